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

macro_rules! cast_as {
    ($($from:ty => $($to:ty),*);*) => {$($(
        impl CastTo<$to> for $from { #[inline(always)] fn cast_to(self) -> $to { self as $to } }
    )*)*};
}
cast_as!(f32 => f32, f64, i8, i16, u8, u16, u32, u64; f64 => f32, f64, i8, i16, u8, u16, u32, u64);
macro_rules! int_casts {
    ($($from:ty),*) => {$(
        cast_as!($from => f32, f64, i8, i16, i32, i64, u8, u16, u32, u64);
    )*};
}
int_casts!(i8, i16, i32, i64, u8, u16, u32, u64);

/// Floating point to a signed integer as `as` converts (truncated, saturated, NaN to 0),
/// in compares and selects around the plain conversion of a value in range: they
/// vectorise, where LLVM converts `as` to a 64-bit integer one lane at a time.
macro_rules! float_to_int {
    ($($from:ty => $($to:ty),*);*) => {$($(
        impl CastTo<$to> for $from {
            #[inline(always)]
            fn cast_to(self) -> $to {
                // 2^(bits - 1), exact, and the largest float below it.
                const HI: $from = -(<$to>::MIN as $from);
                const BELOW_HI: $from = <$from>::from_bits(HI.to_bits() - 1);
                let x = if self.is_nan() { 0.0 } else { self.clamp(-HI, BELOW_HI) };
                // SAFETY: `x` is finite and truncates to a value in range.
                let v: $to = unsafe { x.to_int_unchecked() };
                if self >= HI { <$to>::MAX } else { v }
            }
        }
    )*)*};
}
float_to_int!(f32 => i32, i64; f64 => i32, i64);

/// Conversions of the 16-bit floating-point types: to them rounded once to nearest even
/// (`half` from f32, `ir::half` from f64 and integers); from them through f32, which holds
/// every value, and then as from f32.
macro_rules! half_casts {
    ($($h:ty, $from_f64:path, $from_int:path);*) => {$(
        impl CastTo<$h> for f32 { #[inline(always)] fn cast_to(self) -> $h { <$h>::from_f32(self) } }
        impl CastTo<$h> for f64 { #[inline(always)] fn cast_to(self) -> $h { $from_f64(self) } }
        half_casts!(@ints $h, $from_int; i8, i16, i32, i64, u8, u16, u32, u64);
        impl CastTo<half::f16> for $h {
            #[inline(always)]
            fn cast_to(self) -> half::f16 { half::f16::from_f32(self.to_f32()) }
        }
        impl CastTo<half::bf16> for $h {
            #[inline(always)]
            fn cast_to(self) -> half::bf16 { half::bf16::from_f32(self.to_f32()) }
        }
        half_casts!(@from $h; f32, f64, i8, i16, i32, i64, u8, u16, u32, u64);
        impl Elem for $h {
            #[inline(always)]
            fn from_u64(bits: u64) -> Self { <$h>::from_bits(bits as u16) }
            #[inline(always)]
            fn to_u64(self) -> u64 { self.to_bits() as u64 }
        }
    )*};
    (@ints $h:ty, $from_int:path; $($i:ty),*) => {$(
        impl CastTo<$h> for $i { #[inline(always)] fn cast_to(self) -> $h { $from_int(self as i128) } }
    )*};
    (@from $h:ty; $($t:ty),*) => {$(
        impl CastTo<$t> for $h { #[inline(always)] fn cast_to(self) -> $t { self.to_f32().cast_to() } }
    )*};
}
half_casts!(
    half::f16, crate::ir::half::f16_from_f64, crate::ir::half::f16_from_int;
    half::bf16, crate::ir::half::bf16_from_f64, crate::ir::half::bf16_from_int
);

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
            // 16-bit floats are converted to f32 and back around every op (front/half.rs).
            t @ ($crate::ir::DType::F16 | $crate::ir::DType::BF16) => {
                unreachable!("{t} values are computed in f32")
            }
        }
    };
}
pub(crate) use with_elem;

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    use super::CastTo;

    /// The vectorisable conversions give what `as` gives, at the edges of every range and
    /// on random bit patterns (NaNs, infinities and subnormals among them).
    #[test]
    fn float_to_int_is_as() {
        fn check<F: CastTo<i32> + CastTo<i64> + Copy + std::fmt::Debug>(x: F, as_i32: i32, as_i64: i64) {
            assert_eq!(CastTo::<i32>::cast_to(x), as_i32, "{x:?} to i32");
            assert_eq!(CastTo::<i64>::cast_to(x), as_i64, "{x:?} to i64");
        }
        let seed: u64 = rand::random();
        eprintln!("float_to_int_is_as: seed {seed}");
        let mut rng = StdRng::seed_from_u64(seed);
        let mut f64s = vec![f64::NAN, -f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, 0.5, -0.5, -1.0];
        for p in [31, 32, 63, 64] {
            let x = 2f64.powi(p);
            f64s.extend([x, -x, x.next_down(), -x.next_down(), x.next_up(), -x.next_up()]);
        }
        f64s.extend((0..100_000).map(|_| f64::from_bits(rng.random())));
        f64s.extend((0..100_000).map(|_| rng.random_range(-1e19..1e19)));
        for &x in &f64s {
            check(x, x as i32, x as i64);
            let y = x as f32;
            check(y, y as i32, y as i64);
        }
        for _ in 0..100_000 {
            let y = f32::from_bits(rng.random());
            check(y, y as i32, y as i64);
        }
    }
}
