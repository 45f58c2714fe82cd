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
}

impl DType {
    pub const ALL: [DType; 8] =
        [DType::F32, DType::F64, DType::I32, DType::I64, DType::U8, DType::Bool, DType::C64, DType::C128];

    pub fn size(self) -> usize {
        match self {
            DType::F32 | DType::I32 => 4,
            DType::F64 | DType::I64 | DType::C64 => 8,
            DType::U8 | DType::Bool => 1,
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
            DType::F32 | DType::C64 => Some(DType::C64),
            DType::Bool => None,
            _ => Some(DType::C128),
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64)
    }

    pub fn is_integer(self) -> bool {
        matches!(self, DType::I32 | DType::I64 | DType::U8)
    }

    /// The type both operands of an element-wise op take when their types differ: the
    /// promotion table (README "Type promotion"). Kinds rank bool < integer < floating
    /// point < complex and the result has the higher kind; integers never widen a
    /// floating-point type (i64 with f32 is f32, as in JAX), a complex type has the wider
    /// precision of the two floating-point types involved (c64 with f64 is c128), and
    /// integers take the wider of the two (u8 with i32 is i32; every unsigned type is
    /// narrower than every signed one, so no pair needs a wider type than both).
    pub fn promote(self, other: DType) -> DType {
        use DType::*;
        let rank = |t: DType| match t {
            Bool => 0,
            U8 => 1,
            I32 => 2,
            I64 => 3,
            F32 => 4,
            F64 => 5,
            C64 => 6,
            C128 => 7,
        };
        let (lo, hi) = if rank(self) <= rank(other) { (self, other) } else { (other, self) };
        match (lo, hi) {
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
        }
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
        }
    }

    /// The value converted to `dtype` with the same rules as the cast op
    /// (float to integer truncates and saturates, NaN becomes 0; nonzero is true).
    pub fn cast(self, dtype: DType) -> Scalar {
        match dtype {
            DType::F32 => Scalar::F32(self.as_f64() as f32),
            DType::F64 => Scalar::F64(self.as_f64()),
            DType::I32 => Scalar::I32(match self {
                Scalar::I64(v) => v as i32,
                _ => self.as_f64() as i32,
            }),
            DType::I64 => Scalar::I64(match self {
                Scalar::I64(v) => v,
                _ => self.as_f64() as i64,
            }),
            DType::U8 => Scalar::U8(match self {
                Scalar::I64(v) => v as u8,
                Scalar::I32(v) => v as u8,
                _ => self.as_f64() as u8,
            }),
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
        }
    }

    pub fn is_nonzero(self) -> bool {
        match self {
            Scalar::F32(v) => v != 0.0,
            Scalar::F64(v) => v != 0.0,
            Scalar::I32(v) => v != 0,
            Scalar::I64(v) => v != 0,
            Scalar::U8(v) => v != 0,
            Scalar::Bool(v) => v,
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
