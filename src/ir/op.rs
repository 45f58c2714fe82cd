//! Operations of the graph and their typing rules.

use super::dtype::{DType, Scalar};
use super::factor::FactorOp;
use super::random::sobol::Scramble;
use super::random::{Distribution, RngKind};
use super::shape::Shape;
use super::sort::SortOp;
use super::view::{Placement, ViewStep};

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum UnaryOp {
    Neg,
    Abs,
    Sign,
    Sqrt,
    Rsqrt,
    Cbrt,
    Rcp,
    Exp,
    Exp2,
    Expm1,
    Log,
    Log2,
    Log10,
    Log1p,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    Erf,
    Floor,
    Ceil,
    Round,
    Trunc,
    IsNan,
    IsInf,
    /// Logical not on bool, bitwise not on integers.
    Not,
    /// Complex conjugate (the identity on real numbers).
    Conj,
    /// Real part (the identity on real numbers).
    Real,
    /// Imaginary part (0 for real numbers).
    Imag,
    /// Argument (phase angle) of a complex number, in [-pi, pi].
    Arg,
    /// Neither NaN nor infinite (for complex numbers: both parts).
    IsFinite,
    /// Complementary error function `1 - erf(a)`.
    Erfc,
    /// Inverse error function on [-1, 1].
    Erfinv,
    /// `log |Γ(a)|`.
    Lgamma,
    /// The gamma function `Γ(a)`.
    Tgamma,
}

impl UnaryOp {
    pub const ALL: [UnaryOp; 43] = {
        use UnaryOp::*;
        [
            Neg, Abs, Sign, Sqrt, Rsqrt, Cbrt, Rcp, Exp, Exp2, Expm1, Log, Log2, Log10, Log1p, Sin, Cos, Tan, Asin,
            Acos, Atan, Sinh, Cosh, Tanh, Asinh, Acosh, Atanh, Erf, Floor, Ceil, Round, Trunc, IsNan, IsInf, Not, Conj,
            Real, Imag, Arg, IsFinite, Erfc, Erfinv, Lgamma, Tgamma,
        ]
    };

    /// Floating-point-only functions (the math library's domain).
    pub fn is_transcendental(self) -> bool {
        use UnaryOp::*;
        matches!(
            self,
            Sqrt | Rsqrt
                | Cbrt
                | Rcp
                | Exp
                | Exp2
                | Expm1
                | Log
                | Log2
                | Log10
                | Log1p
                | Sin
                | Cos
                | Tan
                | Asin
                | Acos
                | Atan
                | Sinh
                | Cosh
                | Tanh
                | Asinh
                | Acosh
                | Atanh
                | Erf
                | Erfc
                | Erfinv
                | Lgamma
                | Tgamma
        )
    }

    /// The result type for an input of type `t`, or `None` if the op does not accept `t`.
    pub fn result_dtype(self, t: DType) -> Option<DType> {
        use UnaryOp::*;
        if t.is_complex() {
            return match self {
                Neg | Conj | Sqrt | Rcp | Exp | Log | Sin | Cos | Tan | Sinh | Cosh | Tanh => Some(t),
                Abs | Arg | Real | Imag => Some(t.real()),
                IsNan | IsInf | IsFinite => Some(DType::Bool),
                _ => None,
            };
        }
        match self {
            IsNan | IsInf | IsFinite => Some(DType::Bool),
            Conj | Real | Imag => (t != DType::Bool).then_some(t),
            Arg => t.is_float().then_some(t),
            Not => (t.is_integer() || t == DType::Bool).then_some(t),
            Neg | Abs | Sign | Floor | Ceil | Round | Trunc => (t != DType::Bool).then_some(t),
            _ => t.is_float().then_some(t),
        }
    }

    pub fn name(self) -> &'static str {
        use UnaryOp::*;
        match self {
            Neg => "neg",
            Abs => "abs",
            Sign => "sign",
            Sqrt => "sqrt",
            Rsqrt => "rsqrt",
            Cbrt => "cbrt",
            Rcp => "rcp",
            Exp => "exp",
            Exp2 => "exp2",
            Expm1 => "expm1",
            Log => "log",
            Log2 => "log2",
            Log10 => "log10",
            Log1p => "log1p",
            Sin => "sin",
            Cos => "cos",
            Tan => "tan",
            Asin => "asin",
            Acos => "acos",
            Atan => "atan",
            Sinh => "sinh",
            Cosh => "cosh",
            Tanh => "tanh",
            Asinh => "asinh",
            Acosh => "acosh",
            Atanh => "atanh",
            Erf => "erf",
            Floor => "floor",
            Ceil => "ceil",
            Round => "round",
            Trunc => "trunc",
            IsNan => "isnan",
            IsInf => "isinf",
            Not => "not",
            Conj => "conj",
            Real => "real",
            Imag => "imag",
            Arg => "arg",
            IsFinite => "isfinite",
            Erfc => "erfc",
            Erfinv => "erfinv",
            Lgamma => "lgamma",
            Tgamma => "tgamma",
        }
    }
}

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    /// Remainder with the sign of the dividend (C `fmod` / `%`).
    Rem,
    Pow,
    Atan2,
    Hypot,
    Min,
    Max,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Xor,
    /// The complex number with real part `a` and imaginary part `b` (f32 parts make c64,
    /// f64 parts c128).
    Complex,
    /// Integer `a` shifted left by `b` bits; a count outside `0..bits` shifts every bit out.
    Shl,
    /// Integer `a` shifted right by `b` bits, arithmetic for signed types and logical for
    /// unsigned ones; a count outside `0..bits` shifts every bit out (-1 stays for a
    /// negative signed `a`, else 0).
    Shr,
    /// The magnitude of `a` with the sign bit of `b` (floats).
    CopySign,
    /// The next representable value after `a` in the direction of `b` (floats; `b` when
    /// they are equal, NaN when either is).
    NextAfter,
}

impl BinaryOp {
    pub const ALL: [BinaryOp; 24] = {
        use BinaryOp::*;
        [
            Add, Sub, Mul, Div, Rem, Pow, Atan2, Hypot, Min, Max, Eq, Ne, Lt, Le, Gt, Ge, And, Or, Xor, Complex, Shl,
            Shr, CopySign, NextAfter,
        ]
    };

    /// The result type when both operands have type `t`, or `None` if not accepted.
    pub fn result_dtype(self, t: DType) -> Option<DType> {
        use BinaryOp::*;
        if t.is_complex() {
            return match self {
                Add | Sub | Mul | Div | Pow => Some(t),
                Eq | Ne => Some(DType::Bool),
                _ => None,
            };
        }
        match self {
            Complex => t.is_float().then(|| t.complex()).flatten(),
            Eq | Ne | Lt | Le | Gt | Ge => Some(DType::Bool),
            And | Or | Xor => (t.is_integer() || t == DType::Bool).then_some(t),
            Shl | Shr => t.is_integer().then_some(t),
            Atan2 | Hypot | CopySign | NextAfter => t.is_float().then_some(t),
            Add | Sub | Mul | Div | Rem | Pow | Min | Max => (t != DType::Bool).then_some(t),
        }
    }

    pub fn name(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Add => "add",
            Sub => "sub",
            Mul => "mul",
            Div => "div",
            Rem => "rem",
            Pow => "pow",
            Atan2 => "atan2",
            Hypot => "hypot",
            Min => "min",
            Max => "max",
            Eq => "eq",
            Ne => "ne",
            Lt => "lt",
            Le => "le",
            Gt => "gt",
            Ge => "ge",
            And => "and",
            Or => "or",
            Xor => "xor",
            Complex => "complex",
            Shl => "shl",
            Shr => "shr",
            CopySign => "copysign",
            NextAfter => "nextafter",
        }
    }
}

/// Reductions as the application names them.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ReduceOp {
    Sum,
    Prod,
    Min,
    Max,
    Mean,
    Any,
    All,
    Count,
    ArgMin,
    ArgMax,
}

impl ReduceOp {
    pub const ALL: [ReduceOp; 10] = {
        use ReduceOp::*;
        [Sum, Prod, Min, Max, Mean, Any, All, Count, ArgMin, ArgMax]
    };

    /// Result type for input type `t`: integer sums and products accumulate in i64 or u64
    /// (`DType::sum_dtype`), means of integers are f64, counts and arg-reductions are i64
    /// indices.
    pub fn result_dtype(self, t: DType) -> Option<DType> {
        use ReduceOp::*;
        if t.is_complex() {
            return matches!(self, Sum | Prod | Mean).then_some(t);
        }
        match self {
            Sum | Prod => match t {
                DType::Bool => None,
                _ => Some(t.sum_dtype()),
            },
            Min | Max => Some(t),
            Mean => match t {
                DType::Bool => None,
                DType::F32 => Some(DType::F32),
                _ => Some(DType::F64),
            },
            Any | All => Some(DType::Bool),
            Count | ArgMin | ArgMax => Some(DType::I64),
        }
    }

    pub fn name(self) -> &'static str {
        use ReduceOp::*;
        match self {
            Sum => "sum",
            Prod => "prod",
            Min => "min",
            Max => "max",
            Mean => "mean",
            Any => "any",
            All => "all",
            Count => "count",
            ArgMin => "argmin",
            ArgMax => "argmax",
        }
    }
}

/// The pair of ops of a product: element (i, j) is `reduce` over p of
/// `combine(a[i, p], b[p, j])`. The ordinary product is `PLUS_TIMES`; the others a
/// product node takes (`is_intrinsic`) are the min/max semirings: shortest and longest
/// paths (min, +), (max, +), bottleneck paths (max, min), (min, max), (max, *); on bool
/// arrays max and min are or and and, so (max, min) is reachability.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Semiring {
    pub reduce: ReduceOp,
    pub combine: BinaryOp,
}

impl Semiring {
    pub const PLUS_TIMES: Semiring = Semiring { reduce: ReduceOp::Sum, combine: BinaryOp::Mul };

    /// Whether a product node computes this pair other than as `PLUS_TIMES`: reduce min
    /// or max, combine add, mul, min or max (each executor's generalized product kernel).
    pub fn is_intrinsic(self) -> bool {
        matches!(self.reduce, ReduceOp::Min | ReduceOp::Max)
            && matches!(self.combine, BinaryOp::Add | BinaryOp::Mul | BinaryOp::Min | BinaryOp::Max)
    }
}

/// Inclusive scans. `Max` and `Min` keep the type (a NaN propagates from where it is met;
/// of equal values the earlier stays), and on bool arrays are the running or and and.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ScanOp {
    Sum,
    Prod,
    Max,
    Min,
}

impl ScanOp {
    pub fn result_dtype(self, t: DType) -> Option<DType> {
        match (self, t) {
            (ScanOp::Max | ScanOp::Min, t) if t.is_complex() => None,
            (ScanOp::Max | ScanOp::Min, t) => Some(t),
            (_, DType::Bool) => None,
            _ => Some(t.sum_dtype()),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ScanOp::Sum => "cumsum",
            ScanOp::Prod => "cumprod",
            ScanOp::Max => "cummax",
            ScanOp::Min => "cummin",
        }
    }
}

/// How `scatter` combines values that land on the same destination element.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ScatterMode {
    /// The value with the highest source index (column-major) wins.
    Replace,
    Add,
    Min,
    Max,
}

/// Which values a Fourier transform takes and gives.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FftKind {
    /// Complex to complex, forward or inverse.
    Complex,
    /// Real to complex, forward: the last transformed dimension keeps `n / 2 + 1` points.
    RealToComplex,
    /// Complex to real, inverse: the last transformed dimension grows back to the
    /// output's length.
    ComplexToReal,
}

/// Which direction of a Fourier transform is scaled, and by what.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FftNorm {
    /// The inverse is scaled by 1/n (numpy's default).
    Backward,
    /// Both directions are scaled by 1/sqrt(n).
    Ortho,
    /// The forward transform is scaled by 1/n.
    Forward,
}

impl FftNorm {
    /// The factor a transform of `n` points (product over its dimensions) is scaled by.
    pub fn scale(self, n: usize, inverse: bool) -> f64 {
        match (self, inverse) {
            (FftNorm::Ortho, _) => 1.0 / (n as f64).sqrt(),
            (FftNorm::Backward, true) | (FftNorm::Forward, false) => 1.0 / n as f64,
            _ => 1.0,
        }
    }
}

/// A Fourier transform along up to three dimensions of an array, batched over the others.
/// The transform is separable: one-dimensional transforms along each dimension in turn.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct FftSpec {
    pub kind: FftKind,
    pub inverse: bool,
    pub norm: FftNorm,
    /// The transformed dimensions, distinct; `dims[..ndims]`. For the real kinds the last
    /// one is the halved dimension.
    pub dims: [u8; 3],
    pub ndims: u8,
}

impl FftSpec {
    pub fn dims(&self) -> &[u8] {
        &self.dims[..self.ndims as usize]
    }

    /// The halved dimension of the real kinds (the last transformed one).
    pub fn halved_dim(&self) -> usize {
        self.dims[self.ndims as usize - 1] as usize
    }
}

/// What a graph node computes. Node inputs are listed per variant.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub enum Op {
    /// Data that exists (or is being computed) when the node is made: copied in from the
    /// application, or an output of a replayed macro. Never part of a fused kernel.
    Source,
    /// Every element equal to `value`. `baked` constants come from the runtime itself
    /// (folding, strength reduction) and are compiled in; others are kernel arguments.
    Fill { value: Scalar, baked: bool },
    /// The coordinate along `dim`.
    Iota { dim: u8 },
    /// 1 on the diagonal of the first two dimensions, else 0.
    Identity,
    /// Random numbers with law `dist` from generator object `rng`. inputs: [seed, draw,
    /// params...] (rank-0 operands: i64 seed and draw, then `dist.params()` of the types
    /// `dist.param_type` gives, so one compiled kernel serves every draw and parameter).
    Random { kind: RngKind, dist: Distribution, rng: u64 },
    /// Sobol' points (`ir::random::sobol`), f32 or f64, of shape `[count, dims]`: element
    /// `(i, j)` is coordinate `j` of point `first + i`. inputs: [directions (a stored i32
    /// array of shape [32, dims], column `j` the direction numbers of dimension `j`), first
    /// (rank-0 i64), seed (rank-0 i64, of the scramble)].
    Sobol { scramble: Scramble },
    /// inputs: [a]
    Unary(UnaryOp),
    /// inputs: [a, b], same shape and dtype (broadcasts are explicit view nodes).
    Binary(BinaryOp),
    /// inputs: [cond, a, b]
    Select,
    /// inputs: [a, b, c], one floating-point type: `a * b + c` rounded once.
    Fma,
    /// inputs: [a]; the target type is the node's dtype.
    Cast,
    /// inputs: [a]
    View(ViewStep),
    /// inputs: the parts, joined along `dim`.
    Concat { dim: u8 },
    /// inputs: [a]. `axis: None` reduces every element to a rank-0 result; otherwise the
    /// dimension is kept with size 1.
    Reduce { op: ReduceOp, axis: Option<u8> },
    /// inputs: [a]
    Scan { op: ScanOp, axis: u8 },
    /// inputs: [src, index_0, ..., index_{r-1}]; out(i) = src[index_0(i), ...], indices
    /// clamped to the source bounds.
    Gather,
    /// inputs: [dst, values, index_0, ...]; out = dst with values written at the indices;
    /// out-of-range indices are dropped.
    Scatter { mode: ScatterMode },
    /// inputs: [a (m x k), b (k x n)]; `conj` conjugates the elements of a and of b
    /// (complex types; false for real ones). `semiring` is `PLUS_TIMES` (float and
    /// complex types) or an intrinsic pair (real and bool types, never conjugated).
    MatMul { conj: [bool; 2], semiring: Semiring },
    /// inputs: [a]; complex input for `Complex` and `ComplexToReal`, real for
    /// `RealToComplex`. The output's shape gives the transformed lengths.
    Fft(FftSpec),
    /// A factorization or solve; inputs and output as `FactorOp` lists.
    Factor(FactorOp),
    /// A sort or search; inputs as `SortOp` lists.
    Sort(SortOp),
    /// The check of a gather under the error policy (`what` names the call). inputs
    /// (rank 0): [first, index_0, ..., index_{r-1}]: `first` the column-major position in
    /// a result of shape `out` of the first index out of range for a source of shape
    /// `src` (i64::MAX when none is), then that position's index along each dimension
    /// (f64). out: 0 (rank-0 i64), read by the gather so it depends on the check; the
    /// check fails naming the index when one is out of range.
    IndexCheck { what: &'static str, src: Shape, out: Shape },
    /// inputs: [dst, values]; out = dst (a new version of it) with `values` (shaped like
    /// the placed view, of dst's type) written at the elements the placement selects.
    /// Computed over the view: `values` fuses into the kernel, which stores through the
    /// placement into dst's storage when nothing else can see the old version, or into
    /// a copy of it.
    Assign(Placement),
}

impl Op {
    /// Whether the op can be part of a fused kernel (primitive ops), as opposed to an
    /// intrinsic that runs as its own step.
    pub fn is_fusible(&self) -> bool {
        !matches!(
            self,
            Op::Scatter { .. }
                | Op::MatMul { .. }
                | Op::Fft(_)
                | Op::Factor(_)
                | Op::Sort(_)
                | Op::IndexCheck { .. }
                | Op::Source
        )
    }

    pub fn name(&self) -> &'static str {
        match self {
            Op::Source => "source",
            Op::Fill { .. } => "fill",
            Op::Iota { .. } => "iota",
            Op::Identity => "identity",
            Op::Random { dist, .. } => dist.name(),
            Op::Sobol { .. } => "random_sobol",
            Op::Unary(u) => u.name(),
            Op::Binary(b) => b.name(),
            Op::Select => "select",
            Op::Fma => "fma",
            Op::Cast => "cast",
            Op::View(v) => v.name(),
            Op::Concat { .. } => "concat",
            Op::Reduce { op, .. } => op.name(),
            Op::Scan { op, .. } => op.name(),
            Op::Gather => "gather",
            Op::Scatter { .. } => "scatter",
            Op::MatMul { semiring, .. } if *semiring == Semiring::PLUS_TIMES => "matmul",
            Op::MatMul { .. } => "inner_product",
            Op::Fft(spec) => match (spec.kind, spec.inverse) {
                (FftKind::Complex, false) => "fft",
                (FftKind::Complex, true) => "ifft",
                (FftKind::RealToComplex, _) => "rfft",
                (FftKind::ComplexToReal, _) => "irfft",
            },
            Op::Factor(f) => f.name(),
            Op::Sort(s) => s.name(),
            Op::IndexCheck { .. } => "index_check",
            Op::Assign(_) => "assign",
        }
    }
}
