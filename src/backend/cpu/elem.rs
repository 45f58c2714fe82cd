//! Element types as Rust types, and dispatch from `DType` to them.

/// A Rust type that holds one element. `bool` arrays use `u8` (0 or 1).
pub trait Elem: Copy + Send + Sync + PartialOrd + PartialEq + 'static {
    fn from_u64(bits: u64) -> Self;
    fn to_u64(self) -> u64;
}

macro_rules! elem_int {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            #[inline(always)]
            fn from_u64(bits: u64) -> Self { bits as $t }
            #[inline(always)]
            fn to_u64(self) -> u64 { self as u64 }
        }
    )*};
}
elem_int!(i8, i16, i32, i64, u8, u16, u32, u64);

impl Elem for f32 {
    #[inline(always)]
    fn from_u64(bits: u64) -> Self {
        f32::from_bits(bits as u32)
    }
    #[inline(always)]
    fn to_u64(self) -> u64 {
        f32::to_bits(self) as u64
    }
}

impl Elem for f64 {
    #[inline(always)]
    fn from_u64(bits: u64) -> Self {
        f64::from_bits(bits)
    }
    #[inline(always)]
    fn to_u64(self) -> u64 {
        f64::to_bits(self)
    }
}

/// Conversion with the semantics of the cast op (Rust `as`: float to integer truncates
/// and saturates, NaN becomes 0).
pub trait CastTo<R> {
    fn cast_to(self) -> R;
}

macro_rules! cast_all {
    ($($from:ty),*) => {$(
        impl CastTo<f32> for $from { #[inline(always)] fn cast_to(self) -> f32 { self as f32 } }
        impl CastTo<f64> for $from { #[inline(always)] fn cast_to(self) -> f64 { self as f64 } }
        impl CastTo<i32> for $from { #[inline(always)] fn cast_to(self) -> i32 { self as i32 } }
        impl CastTo<i64> for $from { #[inline(always)] fn cast_to(self) -> i64 { self as i64 } }
        impl CastTo<u8> for $from { #[inline(always)] fn cast_to(self) -> u8 { self as u8 } }
        impl CastTo<i8> for $from { #[inline(always)] fn cast_to(self) -> i8 { self as i8 } }
        impl CastTo<i16> for $from { #[inline(always)] fn cast_to(self) -> i16 { self as i16 } }
        impl CastTo<u16> for $from { #[inline(always)] fn cast_to(self) -> u16 { self as u16 } }
        impl CastTo<u32> for $from { #[inline(always)] fn cast_to(self) -> u32 { self as u32 } }
        impl CastTo<u64> for $from { #[inline(always)] fn cast_to(self) -> u64 { self as u64 } }
    )*};
}
cast_all!(f32, f64, i8, i16, i32, i64, u8, u16, u32, u64);

/// Runs `$body` with `$T` bound to the Rust element type of `$dtype`.
macro_rules! with_elem {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            $crate::ir::DType::F32 => {
                type $T = f32;
                $body
            }
            $crate::ir::DType::F64 => {
                type $T = f64;
                $body
            }
            $crate::ir::DType::I32 => {
                type $T = i32;
                $body
            }
            $crate::ir::DType::I64 => {
                type $T = i64;
                $body
            }
            $crate::ir::DType::U8 | $crate::ir::DType::Bool => {
                type $T = u8;
                $body
            }
            $crate::ir::DType::I8 => {
                type $T = i8;
                $body
            }
            $crate::ir::DType::I16 => {
                type $T = i16;
                $body
            }
            $crate::ir::DType::U16 => {
                type $T = u16;
                $body
            }
            $crate::ir::DType::U32 => {
                type $T = u32;
                $body
            }
            $crate::ir::DType::U64 => {
                type $T = u64;
                $body
            }
            // Complex values are computed through their real parts (backend/cpu/complex.rs).
            t @ ($crate::ir::DType::C64 | $crate::ir::DType::C128) => {
                unreachable!("{t} values are not computed element by element")
            }
        }
    };
}
pub(crate) use with_elem;
