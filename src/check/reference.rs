//! The reference run of result-comparison mode: each op evaluated on its own, element by
//! element, from the references of its inputs: floating-point values in f64 (f32 values
//! are not rounded back to f32 between ops), integers exactly with the wrapping of their
//! type. Deliberately plain: it shares no arithmetic with the executors, so it checks them.

use crate::ir::random::{Stream, sobol};
use crate::ir::{
    BinaryOp, DType, MAX_RANK, Node, Op, Placement, ReduceOp, Scalar, ScanOp, ScatterMode, Semiring, Shape, UnaryOp,
    Value,
};

unsafe extern "C" {
    /// The C library's special functions (Rust's standard library has none).
    pub safe fn erf(x: f64) -> f64;
    safe fn erfc(x: f64) -> f64;
    /// lgamma without the global `signgam` (the reference runs on several threads).
    fn lgamma_r(x: f64, sign: *mut i32) -> f64;
    safe fn tgamma(x: f64) -> f64;
}

/// The inverse error function, from the C library's erf and erfc (which has none): bisection
/// to the float where erfc (for |x| >= 1/2, whose 1 - |x| is exact) or erf crosses, then a
/// Newton step.
fn erfinv(x: f64) -> f64 {
    let a = x.abs();
    if a.is_nan() || a > 1.0 {
        return f64::NAN;
    }
    if a == 1.0 || a == 0.0 {
        return if a == 0.0 { x } else { f64::INFINITY.copysign(x) };
    }
    // g(y) = 0 at the answer, decreasing in y.
    let g = |y: f64| if a >= 0.5 { erfc(y) - (1.0 - a) } else { a - erf(y) };
    let (mut lo, mut hi) = (0.0f64, 6.0f64);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if g(mid) > 0.0 { lo = mid } else { hi = mid }
    }
    let y = 0.5 * (lo + hi);
    let y = y + g(y) / (2.0 / core::f64::consts::PI.sqrt() * (-y * y).exp());
    y.copysign(x)
}

/// Elements in column-major order: f64 for floating-point types (complex ones as
/// (real, imaginary) pairs), i64 for the others (bool as 0 or 1, u64 as its bits).
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    Float(Vec<f64>),
    Int(Vec<i64>),
}

/// The reference value of an array.
#[derive(Clone, Debug)]
pub struct Reference {
    pub dtype: DType,
    pub shape: Shape,
    pub data: Data,
    /// The narrowest floating-point type the optimised computation of this value went
    /// through (an f32 value cast to f64 still carries f32 rounding errors): tolerances
    /// follow it.
    pub precision: DType,
    /// For the parts of complex values and the real arithmetic on them (the lowering of
    /// complex ops, `front/complex.rs`), the size their rounding errors are relative to,
    /// per element: a part's is the modulus of its complex value, a ± b's |a ± b| plus
    /// the scales of a and b, and so on through the arithmetic (first-order error
    /// propagation). So a part that cancels (of a complex product or quotient) is held to
    /// the error of the complex value, as complex values are. `None`: each value's own
    /// size (real work never starting from a complex part keeps its strict tolerance).
    pub scale: Option<Vec<f64>>,
}

/// Whether the reference of `n` (from inputs `ins`) keeps an error scale: the parts of
/// complex values, real arithmetic, selects and casts of values that keep one, complex
/// values made from such parts, transforms, factorizations, floating-point sums, and views
/// of values that keep one.
pub fn carries_scale(n: &Node, ins: &[&Reference]) -> bool {
    use BinaryOp::{Add, Div, Mul, Sub};
    use UnaryOp::{Imag, Neg, Real};
    let part = matches!(n.op, Op::Unary(Real | Imag));
    let passes_on = matches!(n.op, Op::Binary(Add | Sub | Mul | Div) | Op::Unary(Neg) | Op::Select | Op::Cast);
    let inherited = ins.iter().any(|i| i.scale.is_some());
    // A complex value made from parts that carry a scale (of a transform's result) keeps it.
    let joined = n.op == Op::Binary(BinaryOp::Complex) && inherited;
    // A transform's result is held to the size of the whole (`fft::error_scale`).
    let transform = matches!(n.op, Op::Fft(_));
    // A factorization's reference sets its own (`check/factor.rs`), as a floating-point
    // sum or mean does (`reduce`).
    let factor = matches!(n.op, Op::Factor(_));
    let summed = matches!(n.op, Op::Reduce { op: ReduceOp::Sum | ReduceOp::Mean, .. }) && ins[0].dtype.is_float();
    // A view of a value that keeps one keeps it (set by the view's evaluation).
    let viewed = matches!(n.op, Op::View(_)) && ins[0].scale.is_some();
    n.dtype.is_float() && (part || passes_on && inherited) || joined || transform || factor || summed || viewed
}

/// The narrower of two floating-point types (of fewer significand bits).
fn narrower(a: DType, b: DType) -> DType {
    let bits = |t: DType| match t {
        DType::BF16 => 8,
        DType::F16 => 11,
        DType::F32 => 24,
        _ => 53,
    };
    if bits(b) < bits(a) { b } else { a }
}

/// One element of a reference.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Elem {
    F(f64),
    /// An integer or bool: wide enough for every value of every integer type.
    I(i128),
    /// A complex number: real and imaginary parts.
    C(f64, f64),
}

impl Elem {
    pub fn f(self) -> f64 {
        match self {
            Elem::F(x) => x,
            Elem::I(i) => i as f64,
            Elem::C(..) => unreachable!("complex values are read through real and imag"),
        }
    }

    pub fn i(self) -> i128 {
        match self {
            Elem::F(x) => x as i128,
            Elem::I(i) => i,
            Elem::C(..) => unreachable!("complex values are never indices"),
        }
    }

    fn nonzero(self) -> bool {
        match self {
            Elem::F(x) => x != 0.0, // NaN is nonzero
            Elem::I(i) => i != 0,
            Elem::C(..) => unreachable!("complex values are never conditions"),
        }
    }

    fn is_nan(self) -> bool {
        matches!(self, Elem::F(x) if x.is_nan())
    }

    /// The (real, imaginary) parts of a complex element.
    pub fn parts(self) -> (f64, f64) {
        match self {
            Elem::C(re, im) => (re, im),
            x => (x.f(), 0.0),
        }
    }

    fn scalar(self, dtype: DType) -> Scalar {
        match self {
            // Casts read floats at full precision, so an f32 reference casts like an f64.
            Elem::F(x) => Scalar::F64(x),
            // wraps to `dtype`, where the value lies (u64 ones through their bits)
            Elem::I(i) => Scalar::I64(i as i64).cast(dtype),
            Elem::C(..) => unreachable!("complex values are never cast"),
        }
    }

    fn of_scalar(s: Scalar) -> Elem {
        match s {
            Scalar::F32(x) => Elem::F(x as f64),
            Scalar::F64(x) => Elem::F(x),
            Scalar::F16(_) | Scalar::BF16(_) => Elem::F(s.as_f64()),
            s => Elem::I(s.as_i128().expect("an integer scalar")),
        }
    }
}

/// `v` wrapped to the range of integer type `t`, as its arithmetic would.
fn wrap(t: DType, v: i128) -> i128 {
    match t {
        DType::Bool => (v != 0) as i128,
        _ => {
            let (lo, hi) = t.integer_range().expect("an integer type");
            (v - lo).rem_euclid(hi - lo + 1) + lo
        }
    }
}

fn lowest(t: DType) -> Elem {
    match t.integer_range() {
        Some((lo, _)) => Elem::I(lo),
        None if t.is_complex() => unreachable!("complex numbers have no order"),
        None => Elem::F(f64::NEG_INFINITY),
    }
}

fn highest(t: DType) -> Elem {
    match t.integer_range() {
        Some((_, hi)) => Elem::I(hi),
        None if t.is_complex() => unreachable!("complex numbers have no order"),
        None => Elem::F(f64::INFINITY),
    }
}

/// Column-major coordinates of every element of `shape`.
pub fn coords(shape: &Shape) -> impl Iterator<Item = [i64; MAX_RANK]> + '_ {
    let mut c = [0i64; MAX_RANK];
    (0..shape.numel()).map(move |i| {
        if i > 0 {
            for d in 0..shape.rank() {
                c[d] += 1;
                if c[d] < shape.dim(d) as i64 {
                    break;
                }
                c[d] = 0;
            }
        }
        c
    })
}

fn linear(shape: &Shape, c: &[i64; MAX_RANK]) -> usize {
    let mut i = 0usize;
    for d in (0..shape.rank()).rev() {
        i = i * shape.dim(d) + c[d] as usize;
    }
    i
}

impl Reference {
    pub(super) fn new(dtype: DType, shape: Shape, elems: impl Iterator<Item = Elem>) -> Reference {
        // Allocated at its size at once: growing it would take up to half as much again
        // (references count against the memory limit, see `check::counted`).
        let data = if dtype.is_float() {
            let mut v = Vec::with_capacity(shape.numel());
            v.extend(elems.map(Elem::f));
            Data::Float(v)
        } else if dtype.is_complex() {
            let mut v = Vec::with_capacity(2 * shape.numel());
            for (re, im) in elems.map(Elem::parts) {
                v.extend([re, im]);
            }
            Data::Float(v)
        } else {
            let mut v = Vec::with_capacity(shape.numel());
            v.extend(elems.map(|e| wrap(dtype, e.i()) as i64));
            Data::Int(v)
        };
        Reference { dtype, shape, data, precision: dtype.real(), scale: None }
    }

    /// The size the rounding errors of element `i` are relative to.
    pub fn magnitude(&self, i: usize) -> f64 {
        match &self.scale {
            Some(s) => s[i],
            None => self.at(i).f().abs(),
        }
    }

    /// `magnitude` of element `i` of an operand (rank-0 operands: everywhere).
    fn operand_magnitude(&self, i: usize) -> f64 {
        self.magnitude(if self.shape.rank() == 0 { 0 } else { i })
    }

    /// The elements of `value` (in host memory) as a reference.
    pub fn of_value(dtype: DType, shape: Shape, value: &Value) -> Reference {
        let bytes = value.storage.host_bytes().expect("references read host values");
        Reference::new(
            dtype,
            shape,
            coords(&shape).map(|c| read(dtype, bytes, value.layout.offset_of(&c, shape.rank()))),
        )
    }

    /// The elements in column-major order as bytes of the type the reference keeps them
    /// in: f64 for floating-point arrays, c128 for complex ones, the array's own type
    /// otherwise.
    pub fn to_bytes(&self) -> (DType, Vec<u8>) {
        match &self.data {
            Data::Float(v) => {
                let t = if self.dtype.is_complex() { DType::C128 } else { DType::F64 };
                (t, v.iter().flat_map(|x| x.to_le_bytes()).collect())
            }
            Data::Int(v) => {
                let bytes = v.iter().flat_map(|&i| {
                    let b = i.to_le_bytes();
                    b.into_iter().take(self.dtype.size())
                });
                (self.dtype, bytes.collect())
            }
        }
    }

    pub(super) fn at(&self, i: usize) -> Elem {
        match &self.data {
            Data::Float(v) if self.dtype.is_complex() => Elem::C(v[2 * i], v[2 * i + 1]),
            Data::Float(v) => Elem::F(v[i]),
            Data::Int(v) if self.dtype == DType::U64 => Elem::I(v[i] as u64 as i128),
            Data::Int(v) => Elem::I(v[i] as i128),
        }
    }

    /// Element `i` of an operand of an element-wise op: rank-0 operands are read
    /// as one value everywhere.
    fn operand(&self, i: usize) -> Elem {
        self.at(if self.shape.rank() == 0 { 0 } else { i })
    }
}

/// Element at element offset `at` of host bytes of type `dtype`.
pub fn read(dtype: DType, bytes: &[u8], at: i64) -> Elem {
    let at = at as usize * dtype.size();
    let b = &bytes[at..at + dtype.size()];
    match dtype {
        DType::F32 => Elem::F(f32::from_le_bytes(b.try_into().unwrap()) as f64),
        DType::F64 => Elem::F(f64::from_le_bytes(b.try_into().unwrap())),
        DType::F16 => Elem::F(half::f16::from_le_bytes(b.try_into().unwrap()).to_f64()),
        DType::BF16 => Elem::F(half::bf16::from_le_bytes(b.try_into().unwrap()).to_f64()),
        DType::I8 => Elem::I(b[0] as i8 as i128),
        DType::I16 => Elem::I(i16::from_le_bytes(b.try_into().unwrap()) as i128),
        DType::I32 => Elem::I(i32::from_le_bytes(b.try_into().unwrap()) as i128),
        DType::I64 => Elem::I(i64::from_le_bytes(b.try_into().unwrap()) as i128),
        DType::U8 | DType::Bool => Elem::I(b[0] as i128),
        DType::U16 => Elem::I(u16::from_le_bytes(b.try_into().unwrap()) as i128),
        DType::U32 => Elem::I(u32::from_le_bytes(b.try_into().unwrap()) as i128),
        DType::U64 => Elem::I(u64::from_le_bytes(b.try_into().unwrap()) as i128),
        DType::C64 => {
            let (re, im) = b.split_at(4);
            Elem::C(
                f32::from_le_bytes(re.try_into().unwrap()) as f64,
                f32::from_le_bytes(im.try_into().unwrap()) as f64,
            )
        }
        DType::C128 => {
            let (re, im) = b.split_at(8);
            Elem::C(f64::from_le_bytes(re.try_into().unwrap()), f64::from_le_bytes(im.try_into().unwrap()))
        }
    }
}

/// The reference of node `n` from the references of its inputs.
pub fn evaluate(n: &Node, ins: &[&Reference]) -> Reference {
    let mut r = evaluate_op(n, ins);
    let floating = |t: DType| t.is_float() || t.is_complex();
    if floating(r.dtype) {
        r.precision = ins.iter().filter(|i| floating(i.dtype)).fold(r.precision, |p, i| narrower(p, i.precision));
    }
    if carries_scale(n, ins) && r.scale.is_none() && !matches!(n.op, Op::Factor(_)) {
        r.scale = Some(scale(n, ins, &r));
    }
    r
}

/// The error scale of node `n` (value `r`): a part's, its complex value's modulus (or the
/// complex value's own scale, if larger); a complex value's made from parts, the larger
/// of theirs; an arithmetic op's, |f| plus each input's scale times the size of f's
/// derivative in it.
fn scale(n: &Node, ins: &[&Reference], r: &Reference) -> Vec<f64> {
    let value = |x: &Reference, i: usize| x.operand(i).f();
    (0..r.shape.numel())
        .map(|i| {
            let own = {
                let (re, im) = r.at(i).parts();
                re.hypot(im)
            };
            // Where the propagation breaks down (division by 0, infinite terms), the
            // value's own size.
            let finite_or_own = |s: f64| if s.is_finite() { s } else { own };
            let m = |j: usize| ins[j].operand_magnitude(i);
            finite_or_own(match n.op {
                Op::Unary(UnaryOp::Real | UnaryOp::Imag) => {
                    let (re, im) = ins[0].operand(i).parts();
                    let inherited = ins[0].scale.as_ref().map_or(0.0, |_| m(0));
                    re.hypot(im).max(inherited)
                }
                Op::Binary(BinaryOp::Complex) => m(0).max(m(1)),
                Op::Binary(BinaryOp::Add | BinaryOp::Sub) => own + m(0) + m(1),
                Op::Binary(BinaryOp::Mul) => own + m(0) * value(ins[1], i).abs() + value(ins[0], i).abs() * m(1),
                Op::Binary(BinaryOp::Div) => {
                    let d = value(ins[1], i).abs();
                    own + m(0) / d + own / d * m(1)
                }
                Op::Select => {
                    if ins[0].operand(i).nonzero() {
                        m(1)
                    } else {
                        m(2)
                    }
                }
                Op::Cast if ins[0].dtype.is_float() => m(0),
                _ => own.max(m(0)),
            })
        })
        .collect()
}

fn evaluate_op(n: &Node, ins: &[&Reference]) -> Reference {
    let (t, shape) = (n.dtype, n.shape);
    let each = |f: &dyn Fn(usize, &[i64; MAX_RANK]) -> Elem| {
        Reference::new(t, shape, coords(&shape).enumerate().map(|(i, c)| f(i, &c)))
    };
    match &n.op {
        Op::Source => unreachable!("sources are computed, not pending"),
        Op::Fill { value, .. } => each(&|_, _| Elem::of_scalar(*value)),
        Op::Iota { dim } => each(&|_, c| {
            if t.is_float() { Elem::F(c[*dim as usize] as f64) } else { Elem::I(c[*dim as usize] as i128) }
        }),
        Op::Identity => each(&|_, c| {
            if t.is_float() { Elem::F((c[0] == c[1]) as i64 as f64) } else { Elem::I((c[0] == c[1]) as i128) }
        }),
        Op::Random { kind, dist, .. } => {
            let stream = Stream { kind: *kind, seed: ins[0].at(0).i() as u64, draw: ins[1].at(0).i() as u64 };
            let params: Vec<Scalar> = ins[2..].iter().map(|p| p.at(0).scalar(p.dtype)).collect();
            each(&|i, _| Elem::of_scalar(stream.sample(*dist, t, i as u64, &params)))
        }
        Op::Sobol { scramble } => {
            let (directions, first, seed) = (ins[0], ins[1].at(0).i() as u64, ins[2].at(0).i() as u64);
            each(&|_, c| {
                let dim = c[1] as usize;
                let x = sobol::digits((first + c[0] as u64) as u32, |k| {
                    directions.at(k as usize + sobol::SOBOL_BITS as usize * dim).i() as u32
                });
                let x = sobol::scramble(x, *scramble, sobol::dimension_seed(seed, dim as u32));
                Elem::F(if t == DType::F32 { sobol::to_f32(x) as f64 } else { sobol::to_f64(x) })
            })
        }
        Op::Unary(op) => {
            let it = ins[0].dtype;
            each(&|i, _| unary(*op, it, ins[0].operand(i)))
        }
        Op::Binary(op) => {
            let it = ins[0].dtype;
            each(&|i, _| binary(*op, it, ins[0].operand(i), ins[1].operand(i)))
        }
        Op::Select => each(&|i, _| if ins[0].operand(i).nonzero() { ins[1].operand(i) } else { ins[2].operand(i) }),
        Op::Fma => each(&|i, _| Elem::F(ins[0].operand(i).f().mul_add(ins[1].operand(i).f(), ins[2].operand(i).f()))),
        Op::Cast => {
            let from = ins[0].dtype;
            each(&|i, _| {
                let e = ins[0].operand(i);
                match (e, t.is_float()) {
                    // Every op on a 16-bit float rounds its result to it (`front/half.rs`),
                    // overflowing to infinity where f32 would not.
                    (_, true) if t.is_half() => Elem::of_scalar(Scalar::F64(e.f()).cast(t)),
                    (_, true) => Elem::F(e.f()),
                    _ => Elem::of_scalar(e.scalar(from).cast(t)),
                }
            })
        }
        Op::View(step) => {
            // The source element a view element reads, or None for padding (ins[1]).
            let source = |c: &[i64; MAX_RANK]| {
                let (s, inside) = step.map_coord(c, &shape, &ins[0].shape);
                inside.then(|| linear(&ins[0].shape, &s))
            };
            let mut r = each(&|_, c| source(c).map_or_else(|| ins[1].at(0), |l| ins[0].at(l)));
            // A view of a value that keeps an error scale keeps it, element by element.
            if ins[0].scale.is_some() {
                let size = |c| source(&c).map_or_else(|| ins[1].magnitude(0), |l| ins[0].magnitude(l));
                r.scale = Some(coords(&shape).map(size).collect());
            }
            r
        }
        Op::Concat { dim } => {
            let d = *dim as usize;
            each(&|_, c| {
                let mut c = *c;
                for part in ins {
                    let size = part.shape.dim(d) as i64;
                    if c[d] < size {
                        return part.at(linear(&part.shape, &c));
                    }
                    c[d] -= size;
                }
                unreachable!("concat coordinate past its parts")
            })
        }
        Op::Reduce { op, axis } => reduce(*op, *axis, t, shape, ins[0]),
        Op::Scan { op, axis } => scan(*op, *axis as usize, t, ins[0]),
        Op::Gather => {
            let src = ins[0];
            each(&|i, _| {
                let mut s = [0i64; MAX_RANK];
                for d in 0..src.shape.rank() {
                    s[d] = ins[1 + d].operand(i).i().clamp(0, src.shape.dim(d) as i128 - 1) as i64;
                }
                src.at(linear(&src.shape, &s))
            })
        }
        Op::Scatter { mode } => scatter(*mode, t, ins),
        Op::Assign(place) => assign(place, t, ins),
        Op::Factor(op) => super::factor::evaluate(*op, t, shape, ins),
        Op::Sort(op) => super::sort::evaluate(*op, t, shape, ins),
        // A check that failed poisons its result, so one that is compared passed.
        Op::IndexCheck { .. } => each(&|_, _| Elem::I(0)),
        Op::Fft(spec) => {
            let src = ins[0];
            let x = (0..src.shape.numel()).map(|i| {
                let (re, im) = src.at(i).parts();
                rustfft::num_complex::Complex::new(re, im)
            });
            let y = super::fft::transform(spec, &src.shape, &shape, x.collect());
            let scale = super::fft::error_scale(spec, &src.shape, &shape, &y);
            let complex = t.is_complex();
            let mut r = Reference::new(
                t,
                shape,
                y.into_iter().map(|z| if complex { Elem::C(z.re, z.im) } else { Elem::F(z.re) }),
            );
            r.scale = Some(vec![scale; shape.numel()]);
            r
        }
        Op::MatMul { conj, semiring } => {
            let (a, b) = (ins[0], ins[1]);
            let k = a.shape.dim(1);
            // An operand's element, conjugated as the op says.
            let at = |r: &Reference, i: usize, c: bool| match r.at(i) {
                Elem::C(re, im) if c => Elem::C(re, -im),
                e => e,
            };
            // The operands' elements (i, j) of the batch index at `c`'s dimensions 2..,
            // broadcast along their size-1 ones.
            let index = |r: &Reference, i: usize, j: usize, c: &[i64; MAX_RANK]| {
                let mut at = [0i64; MAX_RANK];
                at[0] = i as i64;
                at[1] = j as i64;
                for d in 2..r.shape.rank() {
                    at[d] = if r.shape.dim(d) == 1 { 0 } else { c[d] };
                }
                linear(&r.shape, &at)
            };
            each(&|_, c| {
                let (i, j) = (c[0] as usize, c[1] as usize);
                let terms = (0..k).map(|p| (at(a, index(a, i, p, c), conj[0]), at(b, index(b, p, j, c), conj[1])));
                if *semiring != Semiring::PLUS_TIMES {
                    let combined = terms.map(|(x, y)| binary(semiring.combine, t, x, y));
                    return extremum(semiring.reduce == ReduceOp::Min, t, combined);
                }
                match t {
                    _ if t.is_complex() => {
                        let (re, im) = terms.fold((0.0, 0.0), |(re, im), (x, y)| {
                            let ((xr, xi), (yr, yi)) = (x.parts(), y.parts());
                            (re + xr * yr - xi * yi, im + xr * yi + xi * yr)
                        });
                        Elem::C(re, im)
                    }
                    _ if t.is_float() => Elem::F(terms.map(|(x, y)| x.f() * y.f()).sum()),
                    _ => Elem::I(terms.fold(0i128, |s, (x, y)| s.wrapping_add(x.i().wrapping_mul(y.i())))),
                }
            })
        }
    }
}

fn unary(op: UnaryOp, t: DType, x: Elem) -> Elem {
    use UnaryOp::*;
    if let Elem::C(re, im) = x {
        return match op {
            Real => Elem::F(re),
            Imag => Elem::F(im),
            other => unreachable!("{} of complex values is built from their parts", other.name()),
        };
    }
    let Elem::F(x) = x else {
        let v = x.i();
        return match op {
            IsNan | IsInf => Elem::I(0),
            Not if t == DType::Bool => Elem::I(1 - v),
            Not => Elem::I(wrap(t, !v)),
            Neg => Elem::I(wrap(t, v.wrapping_neg())),
            Abs => Elem::I(wrap(t, v.wrapping_abs())),
            Sign => Elem::I(v.signum()),
            Floor | Ceil | Round | Trunc => Elem::I(v),
            other => unreachable!("{} on integers", other.name()),
        };
    };
    Elem::F(match op {
        IsNan => return Elem::I(x.is_nan() as i128),
        IsInf => return Elem::I(x.is_infinite() as i128),
        Neg => -x,
        Abs => x.abs(),
        Sign => {
            if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                x
            }
        }
        Sqrt => x.sqrt(),
        Rsqrt => 1.0 / x.sqrt(),
        Cbrt => x.cbrt(),
        Rcp => 1.0 / x,
        Exp => x.exp(),
        Exp2 => x.exp2(),
        Expm1 => x.exp_m1(),
        Log => x.ln(),
        Log2 => x.log2(),
        Log10 => x.log10(),
        Log1p => x.ln_1p(),
        Sin => x.sin(),
        Cos => x.cos(),
        Tan => x.tan(),
        Asin => x.asin(),
        Acos => x.acos(),
        Atan => x.atan(),
        Sinh => x.sinh(),
        Cosh => x.cosh(),
        Tanh => x.tanh(),
        Asinh => x.asinh(),
        Acosh => x.acosh(),
        Atanh => x.atanh(),
        Erf => erf(x),
        Erfc => erfc(x),
        Erfinv => erfinv(x),
        Lgamma => {
            let mut sign = 0;
            // SAFETY: `sign` is a valid place for the sign.
            unsafe { lgamma_r(x, &mut sign) }
        }
        Tgamma => tgamma(x),
        Floor => x.floor(),
        Ceil => x.ceil(),
        Round => x.round(),
        Trunc => x.trunc(),
        Not => unreachable!("not on floats"),
        Conj | Real | Imag | Arg | IsFinite => unreachable!("{} of real values is built from other ops", op.name()),
    })
}

/// `b^e` wrapping; a negative exponent gives the integer part of the true power.
fn int_pow(b: i128, e: i128) -> i128 {
    if e < 0 {
        return match b {
            1 => 1,
            -1 => 1 - 2 * (e & 1),
            _ => 0,
        };
    }
    let (mut r, mut b, mut e) = (1i128, b, e);
    while e > 0 {
        if e & 1 == 1 {
            r = r.wrapping_mul(b);
        }
        b = b.wrapping_mul(b);
        e >>= 1;
    }
    r
}

/// `x << c` or `x >> c` (arithmetic for signed types) in `t`'s width; counts outside
/// `0..bits` shift every bit out.
fn shift(t: DType, x: i128, c: i128, left: bool) -> i128 {
    let bits = 8 * t.size() as i128;
    match (left, (0..bits).contains(&c)) {
        (true, true) => x << c,
        (true, false) => 0,
        (false, true) => x >> c,
        (false, false) => x.signum().min(0),
    }
}

/// C `nextafter` in `t`'s precision, stepping through the bits of the representation.
fn next_after(t: DType, x: f64, y: f64) -> f64 {
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    if x == y {
        return y;
    }
    let up = y > x;
    if t == DType::F32 {
        let x = x as f32;
        return if x == 0.0 {
            f32::from_bits(1).copysign(if up { 1.0 } else { -1.0 }) as f64
        } else if (x > 0.0) == up {
            f32::from_bits(x.to_bits() + 1) as f64
        } else {
            f32::from_bits(x.to_bits() - 1) as f64
        };
    }
    if x == 0.0 {
        f64::from_bits(1).copysign(if up { 1.0 } else { -1.0 })
    } else if (x > 0.0) == up {
        f64::from_bits(x.to_bits() + 1)
    } else {
        f64::from_bits(x.to_bits() - 1)
    }
}

fn binary(op: BinaryOp, t: DType, a: Elem, b: Elem) -> Elem {
    use BinaryOp::*;
    let cmp = |o: bool| Elem::I(o as i128);
    if let (Elem::I(x), Elem::I(y)) = (a, b) {
        return match op {
            Eq => cmp(x == y),
            Ne => cmp(x != y),
            Lt => cmp(x < y),
            Le => cmp(x <= y),
            Gt => cmp(x > y),
            Ge => cmp(x >= y),
            Add => Elem::I(wrap(t, x.wrapping_add(y))),
            Sub => Elem::I(wrap(t, x.wrapping_sub(y))),
            Mul => Elem::I(wrap(t, x.wrapping_mul(y))),
            Div => Elem::I(if y == 0 { 0 } else { wrap(t, x.wrapping_div(y)) }),
            Rem => Elem::I(if y == 0 { 0 } else { wrap(t, x.wrapping_rem(y)) }),
            Pow => Elem::I(wrap(t, int_pow(x, y))),
            Min => Elem::I(x.min(y)),
            Max => Elem::I(x.max(y)),
            And => Elem::I(x & y),
            Or => Elem::I(x | y),
            Xor => Elem::I(x ^ y),
            Shl => Elem::I(wrap(t, shift(t, x, y, true))),
            Shr => Elem::I(wrap(t, shift(t, x, y, false))),
            Atan2 | Hypot | Complex | CopySign | NextAfter => unreachable!("{} on integers", op.name()),
        };
    }
    let (x, y) = (a.f(), b.f());
    let nan = x.is_nan() || y.is_nan();
    Elem::F(match op {
        Eq => return cmp(x == y),
        Ne => return cmp(x != y),
        Lt => return cmp(x < y),
        Le => return cmp(x <= y),
        Gt => return cmp(x > y),
        Ge => return cmp(x >= y),
        Add => x + y,
        Sub => x - y,
        Mul => x * y,
        Div => x / y,
        Rem => x % y,
        Pow => x.powf(y),
        Atan2 => x.atan2(y),
        Hypot => x.hypot(y),
        Min if nan => f64::NAN,
        Max if nan => f64::NAN,
        Min => x.min(y),
        Max => x.max(y),
        Complex => return Elem::C(x, y),
        CopySign => x.copysign(y),
        NextAfter => next_after(t, x, y),
        And | Or | Xor | Shl | Shr => unreachable!("{} on floats", op.name()),
    })
}

/// The elements of `src` grouped by output element of a reduction along `axis` (every
/// element for `None`), each with its index along the axis (its linear index for `None`).
/// Each group also holds the elements' linear indices in `src`.
fn groups(src: &Reference, axis: Option<u8>, out: &Shape) -> Vec<Vec<(i64, usize, Elem)>> {
    let mut g: Vec<Vec<(i64, usize, Elem)>> = vec![Vec::new(); out.numel()];
    for (i, c) in coords(&src.shape).enumerate() {
        match axis {
            None => g[0].push((i as i64, i, src.at(i))),
            Some(d) => {
                let mut o = c;
                o[d as usize] = 0;
                g[linear(out, &o)].push((c[d as usize], i, src.at(i)));
            }
        }
    }
    g
}

/// A floating-point sum or mean keeps an error scale: the sum (or mean) of its terms'
/// sizes, since a sum that cancels still carries rounding errors relative to its terms
/// (so `x - mean(x)` downstream is held to the size of x, not of the deviation).
fn reduce(op: ReduceOp, axis: Option<u8>, t: DType, shape: Shape, src: &Reference) -> Reference {
    let v = src.dtype;
    let groups = groups(src, axis, &shape);
    let mut r = Reference::new(t, shape, groups.iter().map(|g| fold(op, v, g)));
    if v.is_float() && matches!(op, ReduceOp::Sum | ReduceOp::Mean) {
        let size = |g: &Vec<(i64, usize, Elem)>| {
            let total: f64 = g.iter().map(|&(_, i, _)| src.magnitude(i)).sum();
            if op == ReduceOp::Mean { total / g.len() as f64 } else { total }
        };
        r.scale = Some(groups.iter().map(size).collect());
    }
    r
}

/// One output element of a reduction of the group `g` of elements of type `v`.
fn fold(op: ReduceOp, v: DType, g: &[(i64, usize, Elem)]) -> Elem {
    let float = v.is_float();
    let values = || g.iter().map(|&(_, _, x)| x);
    match op {
        ReduceOp::Sum if float => Elem::F(values().map(Elem::f).sum()),
        ReduceOp::Sum => Elem::I(values().fold(0i128, |a, x| a.wrapping_add(x.i()))),
        ReduceOp::Prod if float => Elem::F(values().map(Elem::f).product()),
        ReduceOp::Prod => Elem::I(values().fold(1i128, |a, x| a.wrapping_mul(x.i()))),
        ReduceOp::Mean => Elem::F(values().map(Elem::f).sum::<f64>() / g.len() as f64),
        ReduceOp::Any => Elem::I(values().any(Elem::nonzero) as i128),
        ReduceOp::All => Elem::I(values().all(Elem::nonzero) as i128),
        ReduceOp::Count => Elem::I(values().filter(|x| x.nonzero()).count() as i128),
        ReduceOp::Min | ReduceOp::Max => extremum(op == ReduceOp::Min, v, values()),
        ReduceOp::ArgMin | ReduceOp::ArgMax => {
            if let Some(&(i, _, _)) = g.iter().find(|(_, _, x)| x.is_nan()) {
                return Elem::I(i as i128);
            }
            let mut best: Option<(i64, Elem)> = None;
            for &(i, _, x) in g {
                if best.is_none_or(|(_, b)| better(op == ReduceOp::ArgMin, x, b)) {
                    best = Some((i, x));
                }
            }
            Elem::I(best.map_or(-1, |(i, _)| i as i128))
        }
    }
}

/// The smallest (`min`) or largest of values of type `t`: NaN if one is, the extreme
/// value of `t` if there are none.
fn extremum(min: bool, t: DType, values: impl Iterator<Item = Elem>) -> Elem {
    let mut best = if min { highest(t) } else { lowest(t) };
    for x in values {
        if x.is_nan() {
            return x;
        }
        if better(min, x, best) {
            best = x;
        }
    }
    best
}

/// Whether `x` beats `best` (strictly) for a minimum (`min`) or maximum.
fn better(min: bool, x: Elem, best: Elem) -> bool {
    match (x, best) {
        (Elem::I(x), Elem::I(b)) => (min && x < b) || (!min && x > b),
        _ => (min && x.f() < best.f()) || (!min && x.f() > best.f()),
    }
}

fn scan(op: ScanOp, axis: usize, t: DType, src: &Reference) -> Reference {
    let shape = src.shape;
    let mut out = vec![Elem::I(0); shape.numel()];
    for c in coords(&shape).filter(|c| c[axis] == 0) {
        let mut acc = match (op, t.is_float()) {
            (ScanOp::Sum, true) => Some(Elem::F(0.0)),
            (ScanOp::Prod, true) => Some(Elem::F(1.0)),
            (ScanOp::Sum, false) => Some(Elem::I(0)),
            (ScanOp::Prod, false) => Some(Elem::I(1)),
            // Max and min start from the first element.
            (ScanOp::Max | ScanOp::Min, _) => None,
        };
        let mut k = c;
        for j in 0..shape.dim(axis) as i64 {
            k[axis] = j;
            let l = linear(&shape, &k);
            let x = src.at(l);
            let next = match (acc, op) {
                (None, _) => x,
                (Some(Elem::F(a)), ScanOp::Sum) => Elem::F(a + x.f()),
                (Some(Elem::F(a)), ScanOp::Prod) => Elem::F(a * x.f()),
                (Some(Elem::I(a)), ScanOp::Sum) => Elem::I(a.wrapping_add(x.i())),
                (Some(Elem::I(a)), ScanOp::Prod) => Elem::I(a.wrapping_mul(x.i())),
                (Some(a), ScanOp::Max | ScanOp::Min) => {
                    let nan = |e: Elem| matches!(e, Elem::F(v) if v.is_nan());
                    if !nan(a) && (nan(x) || better(op == ScanOp::Min, x, a)) { x } else { a }
                }
                (Some(Elem::C(..)), _) => unreachable!("complex scans are built from real ones"),
            };
            acc = Some(next);
            out[l] = next;
        }
    }
    Reference::new(t, shape, out.into_iter())
}

/// The destination with each value written at its placed coordinate, one by one.
fn assign(place: &Placement, t: DType, ins: &[&Reference]) -> Reference {
    let (dst, values) = (ins[0], ins[1]);
    let mut out: Vec<Elem> = (0..dst.shape.numel()).map(|i| dst.at(i)).collect();
    for (i, c) in coords(&values.shape).enumerate() {
        let mut at = place.start;
        for k in 0..values.shape.rank() {
            at[place.dims[k] as usize] += place.step[k] * c[k];
        }
        out[linear(&dst.shape, &at)] = values.at(i);
    }
    Reference::new(t, dst.shape, out.into_iter())
}

fn scatter(mode: ScatterMode, t: DType, ins: &[&Reference]) -> Reference {
    let (dst, values) = (ins[0], ins[1]);
    let mut out: Vec<Elem> = (0..dst.shape.numel()).map(|i| dst.at(i)).collect();
    'values: for i in 0..values.shape.numel() {
        let mut c = [0i64; MAX_RANK];
        for d in 0..dst.shape.rank() {
            // saturated: an index beyond i64 is out of range as i64::MAX is
            c[d] = ins[2 + d].operand(i).i().clamp(i64::MIN as i128, i64::MAX as i128) as i64;
            if !(0..dst.shape.dim(d) as i64).contains(&c[d]) {
                continue 'values;
            }
        }
        let (slot, x) = (&mut out[linear(&dst.shape, &c)], values.at(i));
        *slot = match mode {
            ScatterMode::Replace => x,
            ScatterMode::Add => binary(BinaryOp::Add, t, *slot, x),
            ScatterMode::Min => binary(BinaryOp::Min, t, *slot, x),
            ScatterMode::Max => binary(BinaryOp::Max, t, *slot, x),
        };
    }
    Reference::new(t, dst.shape, out.into_iter())
}
