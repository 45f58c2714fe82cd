//! Element types and typed scalar values.

use std::hash::{Hash, Hasher};

/// The element type of an array.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum DType {
    F32,
    F64,
    I32,
    I64,
    U8,
    /// Stored as one byte holding 0 or 1.
    Bool,
    /// Complex numbers: two f32, real part first (C `float _Complex`).
    C64,
    /// Complex numbers: two f64, real part first (C `double _Complex`).
    C128,
    I8,
    I16,
    U16,
    U32,
    U64,
    /// IEEE binary16, a storage type: values are computed in f32 (front/half.rs).
    F16,
    /// bfloat16 (the upper half of an f32), a storage type like `F16`.
    BF16,
}

impl DType {
    /// In the order of the C constants (`SL_F32` = 0 ... `SL_BF16` = 14).
    pub const ALL: [DType; 15] = [
        DType::F32,
        DType::F64,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::Bool,
        DType::C64,
        DType::C128,
        DType::I8,
        DType::I16,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::F16,
        DType::BF16,
    ];

    pub fn size(self) -> usize {
        match self {
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F64 | DType::I64 | DType::U64 | DType::C64 => 8,
            DType::I16 | DType::U16 | DType::F16 | DType::BF16 => 2,
            DType::I8 | DType::U8 | DType::Bool => 1,
            DType::C128 => 16,
        }
    }

    pub fn is_complex(self) -> bool {
        matches!(self, DType::C64 | DType::C128)
    }

    /// The type of a complex type's parts; a real type itself.
    pub fn real(self) -> DType {
        match self {
            DType::C64 => DType::F32,
            DType::C128 => DType::F64,
            t => t,
        }
    }

    /// The complex type whose parts are `self` (f64 for integers), or `None` for bool.
    pub fn complex(self) -> Option<DType> {
        match self {
            DType::F16 | DType::BF16 | DType::F32 | DType::C64 => Some(DType::C64),
            DType::Bool => None,
            _ => Some(DType::C128),
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
    }

    /// The 16-bit floating-point types: stored as such, computed in f32.
    pub fn is_half(self) -> bool {
        matches!(self, DType::F16 | DType::BF16)
    }

    pub fn is_integer(self) -> bool {
        self.is_signed_integer() || self.is_unsigned_integer()
    }

    pub fn is_signed_integer(self) -> bool {
        matches!(self, DType::I8 | DType::I16 | DType::I32 | DType::I64)
    }

    pub fn is_unsigned_integer(self) -> bool {
        matches!(self, DType::U8 | DType::U16 | DType::U32 | DType::U64)
    }

    /// The signed integer type of `bytes` bytes, if there is one.
    fn signed_of_size(bytes: usize) -> Option<DType> {
        [DType::I8, DType::I16, DType::I32, DType::I64].into_iter().find(|t| t.size() == bytes)
    }

    /// The type sums, products and their scans of `self` accumulate in: i64 for signed
    /// integers and u8 (as before the other unsigned types existed), u64 for the wider
    /// unsigned types (numpy's rule), the type itself otherwise.
    pub fn sum_dtype(self) -> DType {
        match self {
            DType::I8 | DType::I16 | DType::I32 | DType::I64 | DType::U8 => DType::I64,
            DType::U16 | DType::U32 | DType::U64 => DType::U64,
            DType::F16 | DType::BF16 | DType::F32 | DType::F64 | DType::C64 | DType::C128 | DType::Bool => self,
        }
    }

    /// The smallest and largest values of an integer type (0 and 1 for bool).
    pub fn integer_range(self) -> Option<(i128, i128)> {
        Some(match self {
            DType::Bool => (0, 1),
            DType::I8 => (i8::MIN as i128, i8::MAX as i128),
            DType::I16 => (i16::MIN as i128, i16::MAX as i128),
            DType::I32 => (i32::MIN as i128, i32::MAX as i128),
            DType::I64 => (i64::MIN as i128, i64::MAX as i128),
            DType::U8 => (0, u8::MAX as i128),
            DType::U16 => (0, u16::MAX as i128),
            DType::U32 => (0, u32::MAX as i128),
            DType::U64 => (0, u64::MAX as i128),
            DType::F16 | DType::BF16 | DType::F32 | DType::F64 | DType::C64 | DType::C128 => return None,
        })
    }

    /// The type both operands of an element-wise op take when their types differ: the
    /// promotion table (README "Type promotion"). Kinds rank bool < integer < floating
    /// point < complex and the result has the higher kind; integers never widen a
    /// floating-point type (i64 with f32 is f32, as in JAX), and a complex type has the
    /// wider precision of the two floating-point types involved (c64 with f64 is c128).
    /// Two integers of one signedness give the wider; unsigned with signed gives the
    /// smallest signed type holding both (u8 with i8 is i16), and u64 with a signed type
    /// is f64 as in numpy 2 (no integer type holds both). The 16-bit floating-point types
    /// rank below f32 (integers with f16 are f16, as with f32); f16 with bf16 is f32, the
    /// smallest type holding both (JAX).
    pub fn promote(self, other: DType) -> DType {
        use DType::*;
        if self.is_integer() && other.is_integer() {
            return promote_integers(self, other);
        }
        let rank = |t: DType| match t {
            Bool => 0,
            I8 | I16 | I32 | I64 | U8 | U16 | U32 | U64 => 1,
            F16 | BF16 => 2,
            F32 => 3,
            F64 => 4,
            C64 => 5,
            C128 => 6,
        };
        let (lo, hi) = if rank(self) <= rank(other) { (self, other) } else { (other, self) };
        match (lo, hi) {
            (F16, BF16) | (BF16, F16) => F32,
            (F64, C64) => C128,
            _ => hi,
        }
    }

    /// The type of `self op s` for a weak scalar `s` of `kind` (the NEP 50 rule numpy 2
    /// and JAX follow): a scalar of the array's kind or a lower one takes the array's type
    /// (a double constant does not widen an f32 array); a scalar of a higher kind gives
    /// that kind's default type (f64 for floating point, i64 for integers, c128 for
    /// complex) except that a complex scalar keeps an f32 or c64 array's precision.
    pub fn promote_weak(self, kind: ScalarKind) -> DType {
        match kind {
            ScalarKind::Int if self == DType::Bool => DType::I64,
            ScalarKind::Float if self == DType::Bool || self.is_integer() => DType::F64,
            ScalarKind::Complex => self.complex().unwrap_or(DType::C128),
            _ => self,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::U8 => "u8",
            DType::Bool => "bool",
            DType::C64 => "c64",
            DType::C128 => "c128",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::U16 => "u16",
            DType::U32 => "u32",
            DType::U64 => "u64",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
        }
    }
}

fn promote_integers(a: DType, b: DType) -> DType {
    if a.is_signed_integer() == b.is_signed_integer() {
        return if a.size() >= b.size() { a } else { b };
    }
    let (unsigned, signed) = if a.is_signed_integer() { (b, a) } else { (a, b) };
    if signed.size() > unsigned.size() {
        signed
    } else {
        DType::signed_of_size(2 * unsigned.size()).unwrap_or(DType::F64)
    }
}

/// The kind of a scalar an application passes by value (a C `int64_t`, `double`, or a
/// pair of doubles): it is "weak", see `DType::promote_weak`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ScalarKind {
    Int,
    Float,
    Complex,
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One typed value. Equality and hashing are bitwise, so NaN constants can key caches.
#[derive(Copy, Clone, Debug)]
pub enum Scalar {
    F32(f32),
    F64(f64),
    I32(i32),
    I64(i64),
    U8(u8),
    Bool(bool),
    I8(i8),
    I16(i16),
    U16(u16),
    U32(u32),
    U64(u64),
    F16(half::f16),
    BF16(half::bf16),
}

impl Scalar {
    pub fn dtype(self) -> DType {
        match self {
            Scalar::F32(_) => DType::F32,
            Scalar::F64(_) => DType::F64,
            Scalar::I32(_) => DType::I32,
            Scalar::I64(_) => DType::I64,
            Scalar::U8(_) => DType::U8,
            Scalar::Bool(_) => DType::Bool,
            Scalar::I8(_) => DType::I8,
            Scalar::I16(_) => DType::I16,
            Scalar::U16(_) => DType::U16,
            Scalar::U32(_) => DType::U32,
            Scalar::U64(_) => DType::U64,
            Scalar::F16(_) => DType::F16,
            Scalar::BF16(_) => DType::BF16,
        }
    }

    /// The exact value of an integer or bool scalar; `None` for floating point.
    pub fn as_i128(self) -> Option<i128> {
        Some(match self {
            Scalar::F32(_) | Scalar::F64(_) | Scalar::F16(_) | Scalar::BF16(_) => return None,
            Scalar::I8(v) => v as i128,
            Scalar::I16(v) => v as i128,
            Scalar::I32(v) => v as i128,
            Scalar::I64(v) => v as i128,
            Scalar::U8(v) => v as i128,
            Scalar::U16(v) => v as i128,
            Scalar::U32(v) => v as i128,
            Scalar::U64(v) => v as i128,
            Scalar::Bool(v) => v as i128,
        })
    }

    /// The value converted to `dtype` with the same rules as the cast op (integer to
    /// integer wraps, float to integer truncates and saturates, NaN becomes 0; nonzero is
    /// true). To f16 and bf16 values round once to nearest even (`ir::half`).
    pub fn cast(self, dtype: DType) -> Scalar {
        macro_rules! int {
            ($v:ident, $t:ty) => {
                Scalar::$v(match self.as_i128() {
                    Some(i) => i as $t,
                    None => self.as_f64() as $t,
                })
            };
        }
        match dtype {
            DType::F32 => Scalar::F32(match self {
                // straight to f32: through f64 would round twice
                Scalar::I64(v) => v as f32,
                Scalar::U64(v) => v as f32,
                _ => self.as_f64() as f32,
            }),
            DType::F64 => Scalar::F64(self.as_f64()),
            DType::F16 => Scalar::F16(match self.as_i128() {
                Some(i) => super::half::f16_from_int(i),
                None => super::half::f16_from_f64(self.as_f64()),
            }),
            DType::BF16 => Scalar::BF16(match self.as_i128() {
                Some(i) => super::half::bf16_from_int(i),
                None => super::half::bf16_from_f64(self.as_f64()),
            }),
            DType::I8 => int!(I8, i8),
            DType::I16 => int!(I16, i16),
            DType::I32 => int!(I32, i32),
            DType::I64 => int!(I64, i64),
            DType::U8 => int!(U8, u8),
            DType::U16 => int!(U16, u16),
            DType::U32 => int!(U32, u32),
            DType::U64 => int!(U64, u64),
            DType::Bool => Scalar::Bool(self.is_nonzero()),
            DType::C64 | DType::C128 => no_complex_scalar(),
        }
    }

    pub fn as_f64(self) -> f64 {
        match self {
            Scalar::F32(v) => v as f64,
            Scalar::F64(v) => v,
            Scalar::I32(v) => v as f64,
            Scalar::I64(v) => v as f64,
            Scalar::U8(v) => v as f64,
            Scalar::Bool(v) => v as u8 as f64,
            Scalar::I8(v) => v as f64,
            Scalar::I16(v) => v as f64,
            Scalar::U16(v) => v as f64,
            Scalar::U32(v) => v as f64,
            Scalar::U64(v) => v as f64,
            Scalar::F16(v) => v.to_f64(),
            Scalar::BF16(v) => v.to_f64(),
        }
    }

    pub fn is_nonzero(self) -> bool {
        match self {
            Scalar::F32(v) => v != 0.0,
            Scalar::F64(v) => v != 0.0,
            Scalar::F16(v) => v.to_f32() != 0.0,
            Scalar::BF16(v) => v.to_f32() != 0.0,
            Scalar::Bool(v) => v,
            _ => self.as_i128() != Some(0),
        }
    }

    /// The value's bits, zero-extended to 64 bits (the in-memory little-endian element).
    pub fn to_bits(self) -> u64 {
        match self {
            Scalar::F32(v) => v.to_bits() as u64,
            Scalar::F64(v) => v.to_bits(),
            Scalar::I32(v) => v as u32 as u64,
            Scalar::I64(v) => v as u64,
            Scalar::U8(v) => v as u64,
            Scalar::Bool(v) => v as u64,
            Scalar::I8(v) => v as u8 as u64,
            Scalar::I16(v) => v as u16 as u64,
            Scalar::U16(v) => v as u64,
            Scalar::U32(v) => v as u64,
            Scalar::U64(v) => v,
            Scalar::F16(v) => v.to_bits() as u64,
            Scalar::BF16(v) => v.to_bits() as u64,
        }
    }

    pub fn from_bits(dtype: DType, bits: u64) -> Scalar {
        match dtype {
            DType::F32 => Scalar::F32(f32::from_bits(bits as u32)),
            DType::F64 => Scalar::F64(f64::from_bits(bits)),
            DType::I32 => Scalar::I32(bits as u32 as i32),
            DType::I64 => Scalar::I64(bits as i64),
            DType::U8 => Scalar::U8(bits as u8),
            DType::Bool => Scalar::Bool(bits & 1 != 0),
            DType::I8 => Scalar::I8(bits as u8 as i8),
            DType::I16 => Scalar::I16(bits as u16 as i16),
            DType::U16 => Scalar::U16(bits as u16),
            DType::U32 => Scalar::U32(bits as u32),
            DType::U64 => Scalar::U64(bits),
            DType::F16 => Scalar::F16(half::f16::from_bits(bits as u16)),
            DType::BF16 => Scalar::BF16(half::bf16::from_bits(bits as u16)),
            DType::C64 | DType::C128 => no_complex_scalar(),
        }
    }

    pub fn zero(dtype: DType) -> Scalar {
        Scalar::from_bits(dtype, 0)
    }

    pub fn one(dtype: DType) -> Scalar {
        Scalar::I64(1).cast(dtype)
    }
}

/// A complex value is never one `Scalar`: the graph builds complex constants from their
/// real and imaginary parts (front/complex.rs), so nothing asks for one.
fn no_complex_scalar() -> ! {
    unreachable!("complex values have no Scalar form")
}

impl PartialEq for Scalar {
    fn eq(&self, other: &Self) -> bool {
        self.dtype() == other.dtype() && self.to_bits() == other.to_bits()
    }
}

impl Eq for Scalar {}

impl Hash for Scalar {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.dtype().hash(state);
        self.to_bits().hash(state);
    }
}
