//! Complex arithmetic as real arithmetic on the parts. A complex array is stored
//! interleaved (real, imaginary); the graph's only complex operations are taking a part
//! (`Real`, `Imag`), making a complex value from two real ones (`Complex`), and moving
//! values (views, select, concat, gather, scatter). Everything else an application asks of
//! complex values is written here in terms of real ops on the parts, so both executors
//! fuse, cache and compare it like any real work, and compute it with their real math
//! library.

use std::sync::Arc;

use super::graph::Graph;
use super::rng::Rng;
use crate::ir::{
    BinaryOp, DType, Distribution, Node, NodeState, Op, ReduceOp, Result, Scalar, ScanOp, ScatterMode, Shape, UnaryOp,
    bail,
};

impl Graph<'_> {
    /// The real and imaginary parts of `z` (a real `z` has a zero imaginary part).
    pub fn parts(&self, z: &Arc<Node>) -> Result<(Arc<Node>, Arc<Node>)> {
        if !z.dtype.is_complex() {
            return Ok((z.clone(), self.zero(z.dtype)));
        }
        // A value made from its parts gives them back (a chain of complex ops then
        // never goes through the interleaved form).
        // The parts are taken out before broadcasting: making a node may prune the queue,
        // which locks the state of every queued node, z's included.
        let made_from = || match &*z.state() {
            NodeState::Pending { inputs, .. } => Some((inputs[0].clone(), inputs[1].clone())),
            _ => None,
        };
        if z.op == Op::Binary(BinaryOp::Complex)
            && let Some((re, im)) = made_from()
        {
            return Ok((self.broadcast_to(&re, z.shape)?, self.broadcast_to(&im, z.shape)?));
        }
        let part = |op| self.pending(Op::Unary(op), z.dtype.real(), z.shape, smallvec::smallvec![z.clone()]);
        Ok((part(UnaryOp::Real), part(UnaryOp::Imag)))
    }

    /// The complex value with parts `re` and `im` (of one float type; they broadcast).
    pub fn make_complex(&self, re: &Arc<Node>, im: &Arc<Node>) -> Result<Arc<Node>> {
        self.binary(BinaryOp::Complex, re, im)
    }

    /// A rank-0 zero of real type `t`, compiled into the kernel.
    fn zero(&self, t: DType) -> Arc<Node> {
        self.fill(t, Shape::SCALAR, Scalar::zero(t), true)
    }

    /// A rank-0 constant of real type `t`, compiled into the kernel.
    fn real_constant(&self, t: DType, v: f64) -> Arc<Node> {
        self.fill(t, Shape::SCALAR, Scalar::F64(v).cast(t), true)
    }

    /// `a` converted to complex type `to`: a real `a` gets a zero imaginary part.
    pub(crate) fn cast_to_complex(&self, a: &Arc<Node>, to: DType) -> Result<Arc<Node>> {
        if a.dtype == DType::Bool {
            bail!(DTypeMismatch, "cast: bool arrays have no complex value; select between two constants");
        }
        let (re, im) = self.parts(a)?;
        let part = to.real();
        self.make_complex(&self.cast(&re, part)?, &self.cast(&im, part)?)
    }

    /// A complex application scalar `re + i im` as a rank-0 operand of complex type `t`.
    pub fn complex_scalar(&self, t: DType, re: f64, im: f64) -> Result<Arc<Node>> {
        let part = t.real();
        let (re, im) = (self.app_scalar(part, re)?, self.app_scalar(part, im)?);
        self.make_complex(&self.operand(part, re), &self.operand(part, im))
    }

    /// An array of complex type `t` and `shape` with every element `re + i im`.
    pub fn complex_constant(&self, t: DType, shape: Shape, re: f64, im: f64) -> Result<Arc<Node>> {
        let re = self.constant(t.real(), shape, re)?;
        self.make_complex(&re, &self.constant(t.real(), Shape::SCALAR, im)?)
    }

    /// Scatter into a complex array with accumulation: adding adds each part (two real
    /// scatters); min and max have no complex meaning. (Replacing moves whole elements.)
    pub(crate) fn complex_scatter(
        &self,
        dst: &Arc<Node>,
        indices: &[Arc<Node>],
        values: &Arc<Node>,
        mode: ScatterMode,
    ) -> Result<Arc<Node>> {
        if mode != ScatterMode::Add {
            bail!(
                DTypeMismatch,
                "scatter: taking the minimum or maximum is not defined for {} arrays (complex numbers have no order)",
                dst.dtype
            );
        }
        let (dr, di) = self.parts(dst)?;
        let (vr, vi) = self.parts(values)?;
        self.make_complex(&self.scatter(&dr, indices, &vr, mode)?, &self.scatter(&di, indices, &vi, mode)?)
    }

    /// Unary ops on complex values, and the complex-only ops on real values.
    pub(crate) fn complex_unary(&self, op: UnaryOp, z: &Arc<Node>) -> Result<Arc<Node>> {
        use UnaryOp as U;
        if !z.dtype.is_complex() {
            return match op {
                U::Real | U::Conj => Ok(z.clone()),
                U::Imag => self.broadcast_to(&self.zero(z.dtype), z.shape),
                U::IsFinite => {
                    let bad = self.binary(BinaryOp::Or, &self.unary(U::IsNan, z)?, &self.unary(U::IsInf, z)?)?;
                    self.unary(U::Not, &bad)
                }
                // A real number's argument: pi for negative numbers (and -0), else 0.
                U::Arg => self.binary(BinaryOp::Atan2, &self.zero(z.dtype), z),
                _ => unreachable!("{} of real values is the real op", op.name()),
            };
        }
        if op.result_dtype(z.dtype).is_none() {
            let why = match op {
                U::Rsqrt => "compute rcp(sqrt(z))",
                U::Cbrt => "a complex number has three cube roots; pow(z, 1/3) gives the principal one",
                U::Exp2 => "compute exp(z log 2)",
                U::Log2 | U::Log10 => "compute log(z) divided by the base's logarithm",
                U::Expm1 | U::Log1p => {
                    "not implemented for complex numbers; exp(z) - 1 and log(1 + z) lose accuracy near 0"
                }
                U::Asin | U::Acos | U::Atan | U::Asinh | U::Acosh | U::Atanh => {
                    "the inverse trigonometric and hyperbolic functions are not implemented for complex numbers"
                }
                U::Erf | U::Erfc | U::Erfinv => "the error functions are real only",
                U::Lgamma | U::Tgamma => "the gamma functions are not implemented for complex numbers",
                _ => "complex numbers have no order or bits; take real, imag or abs first",
            };
            bail!(DTypeMismatch, "{} is not defined for {} arrays ({why})", op.name(), z.dtype);
        }
        let (re, im) = self.parts(z)?;
        let (b, u) = (|o, x: &Arc<Node>, y: &Arc<Node>| self.binary(o, x, y), |o, x: &Arc<Node>| self.unary(o, x));
        match op {
            U::Real => Ok(re),
            U::Imag => Ok(im),
            U::Neg => self.make_complex(&u(U::Neg, &re)?, &u(U::Neg, &im)?),
            U::Conj => self.make_complex(&re, &u(U::Neg, &im)?),
            // hypot scales, so |z| overflows only when the result does.
            U::Abs => b(BinaryOp::Hypot, &re, &im),
            U::Arg => b(BinaryOp::Atan2, &im, &re),
            U::IsNan | U::IsInf => b(BinaryOp::Or, &u(op, &re)?, &u(op, &im)?),
            U::IsFinite => b(BinaryOp::And, &u(op, &re)?, &u(op, &im)?),
            U::Rcp => {
                let one = self.make_complex(&self.real_constant(re.dtype, 1.0), &self.zero(re.dtype))?;
                self.complex_binary(BinaryOp::Div, &one, z)
            }
            U::Exp => self.complex_exp(&re, &im),
            U::Log => self.make_complex(&u(U::Log, &b(BinaryOp::Hypot, &re, &im)?)?, &b(BinaryOp::Atan2, &im, &re)?),
            U::Sqrt => self.complex_sqrt(&re, &im),
            U::Sinh | U::Cosh | U::Tanh => {
                let (r, i) = self.hyperbolic(op, &re, &im)?;
                self.make_complex(&r, &i)
            }
            // As C99 Annex G defines them, through iz = (-im, re): cos z = cosh(iz),
            // sin z = -i sinh(iz), tan z = -i tanh(iz). Special values and signed zeros
            // follow from the hyperbolic functions'.
            U::Cos => {
                let (r, i) = self.hyperbolic(U::Cosh, &u(U::Neg, &im)?, &re)?;
                self.make_complex(&r, &i)
            }
            U::Sin | U::Tan => {
                let f = if op == U::Sin { U::Sinh } else { U::Tanh };
                let (r, i) = self.hyperbolic(f, &u(U::Neg, &im)?, &re)?;
                self.make_complex(&i, &u(U::Neg, &r)?)
            }
            _ => unreachable!("refused above"),
        }
    }

    /// e^re (cos im, sin im), each part finite wherever it is (see `exp_times`); a zero
    /// imaginary part stays exactly zero (e^re may be infinite, and infinity times 0
    /// would be NaN).
    fn complex_exp(&self, re: &Arc<Node>, im: &Arc<Node>) -> Result<Arc<Node>> {
        let zero_im = self.binary(BinaryOp::Eq, im, &self.zero(im.dtype))?;
        let im_out = self.select(&zero_im, im, &self.exp_times(re, &self.unary(UnaryOp::Sin, im)?, 1.0)?)?;
        self.make_complex(&self.exp_times(re, &self.unary(UnaryOp::Cos, im)?, 1.0)?, &im_out)
    }

    /// `e^x c s` (|c| <= 1, `s` a power of two at most 1), finite wherever it is: where
    /// e^x overflows, as ((e^(x/2) s) c) e^(x/2), and where e^(x/2) overflows too, with
    /// four factors e^(x/4). The power of two scales a factor above 1, so a subnormal `c`
    /// keeps its bits, and each product grows towards the result, so none overflows or
    /// underflows unless the result does.
    fn exp_times(&self, x: &Arc<Node>, c: &Arc<Node>, s: f64) -> Result<Arc<Node>> {
        use BinaryOp::{Lt, Mul};
        let (b, u) = (|o, p: &Arc<Node>, q: &Arc<Node>| self.binary(o, p, q), |o, p: &Arc<Node>| self.unary(o, p));
        let t = x.dtype;
        let scaled = |p: Arc<Node>| if s == 1.0 { Ok(p) } else { b(Mul, &p, &self.real_constant(t, s)) };
        let direct = b(Mul, &scaled(u(UnaryOp::Exp, x)?)?, c)?;
        // e^(x/k) times the rest, k factors of it in all (k 2 or 4).
        let far = |k: f64| -> Result<Arc<Node>> {
            let root = u(UnaryOp::Exp, &b(Mul, x, &self.real_constant(t, 1.0 / k))?)?;
            let mut p = b(Mul, &scaled(root.clone())?, c)?;
            for _ in 1..k as usize {
                p = b(Mul, &p, &root)?;
            }
            Ok(p)
        };
        let edge = self.exp_overflow_edge(t);
        let twice_edge = b(Mul, &edge, &self.real_constant(t, 2.0))?;
        let far = self.select(&b(Lt, x, &twice_edge)?, &far(2.0)?, &far(4.0)?)?;
        self.select(&b(Lt, x, &edge)?, &direct, &far)
    }

    /// The parts of sinh, cosh or tanh (`f`) of `x + iy`. Each part is a product or
    /// quotient of real functions, so each is accurate relative to itself (no
    /// cancellation). Special values as C99 Annex G gives them for csinh, ccosh and
    /// ctanh, except the sign of a zero part where Annex G leaves it unspecified.
    fn hyperbolic(&self, f: UnaryOp, x: &Arc<Node>, y: &Arc<Node>) -> Result<(Arc<Node>, Arc<Node>)> {
        use BinaryOp::{And, Eq, Lt, Or};
        let (b, u) = (|o, p: &Arc<Node>, q: &Arc<Node>| self.binary(o, p, q), |o, p: &Arc<Node>| self.unary(o, p));
        if f == UnaryOp::Tanh {
            return self.complex_tanh(x, y);
        }
        let sinh = f == UnaryOp::Sinh;
        // sinh: (sinh x cos y, cosh x sin y); cosh: (cosh x cos y, sinh x sin y).
        let re = self.hyperbolic_times(x, &u(UnaryOp::Cos, y)?, sinh)?;
        let im = self.hyperbolic_times(x, &u(UnaryOp::Sin, y)?, !sinh)?;
        let zero = self.zero(x.dtype);
        let (x_zero, y_zero) = (b(Eq, x, &zero)?, b(Eq, y, &zero)?);
        let y_bad = u(UnaryOp::Not, &u(UnaryOp::IsFinite, y)?)?;
        // An infinite x with an infinite or NaN y: the part made with cos y is an
        // infinity (sinh: x, cosh: |x|), not inf * NaN.
        let inf_x_bad_y = b(And, &u(UnaryOp::IsInf, x)?, &y_bad)?;
        if sinh {
            // sinh(±0 + iy) has real part ±0 and sinh(x ± i0) imaginary part ±0 whatever
            // the other part is (no 0 * NaN or inf * 0).
            let re = self.select(&b(Or, &x_zero, &inf_x_bad_y)?, x, &re)?;
            return Ok((re, self.select(&y_zero, y, &im)?));
        }
        let re = self.select(&inf_x_bad_y, &u(UnaryOp::Abs, x)?, &re)?;
        // sinh x sin y with a zero factor: a zero with the product's sign (cosh is even,
        // so cosh(-x + i0) = cosh(x - i0)), also where sinh x overflows or is NaN and
        // where sin y is NaN.
        let signed_y = self.select(&b(Lt, x, &zero)?, &u(UnaryOp::Neg, y)?, y)?;
        let im = self.select(&b(And, &y_zero, &u(UnaryOp::Not, &x_zero)?)?, &signed_y, &im)?;
        let im = self.select(&b(And, &x_zero, &y_bad)?, x, &im)?;
        Ok((re, im))
    }

    /// Just below where e^x overflows (88.7 for f32, 709.8 for f64).
    fn exp_overflow_edge(&self, t: DType) -> Arc<Node> {
        self.real_constant(t, if t == DType::F32 { 88.0 } else { 709.0 })
    }

    /// `f(x) c` (|c| <= 1) for f = sinh (`odd`) or cosh, finite wherever it is: where
    /// e^|x| overflows (before f does), f(x) is e^|x| / 2 to working precision, and the
    /// product is `exp_times(|x|, c, 1/2)`.
    fn hyperbolic_times(&self, x: &Arc<Node>, c: &Arc<Node>, odd: bool) -> Result<Arc<Node>> {
        use BinaryOp::{Lt, Mul};
        let (b, u) = (|o, p: &Arc<Node>, q: &Arc<Node>| self.binary(o, p, q), |o, p: &Arc<Node>| self.unary(o, p));
        let t = x.dtype;
        let direct = b(Mul, &u(if odd { UnaryOp::Sinh } else { UnaryOp::Cosh }, x)?, c)?;
        let ax = u(UnaryOp::Abs, x)?;
        let far = self.exp_times(&ax, c, 0.5)?;
        let far = if odd { self.select(&b(Lt, x, &self.zero(t))?, &u(UnaryOp::Neg, &far)?, &far)? } else { far };
        self.select(&b(Lt, &ax, &self.exp_overflow_edge(t))?, &direct, &far)
    }

    /// tanh(x + iy) by Kahan's formula: with t = tan y, b = 1 + t^2, s = sinh x and
    /// r = sqrt(1 + s^2), tanh = (b s r + i t) / (1 + b s^2); no part cancels. Past
    /// |x| = 12 (f32) or 20 (f64), where s^2 could overflow, tanh = sign(x) +
    /// i 4 sin y cos y e^(-2|x|) to working precision (e^(-2|x|) is below eps^2).
    fn complex_tanh(&self, x: &Arc<Node>, y: &Arc<Node>) -> Result<(Arc<Node>, Arc<Node>)> {
        use BinaryOp::{Add, And, Div, Eq, Lt, Mul};
        let (b, u) = (|o, p: &Arc<Node>, q: &Arc<Node>| self.binary(o, p, q), |o, p: &Arc<Node>| self.unary(o, p));
        let t = x.dtype;
        let (zero, one) = (self.zero(t), self.real_constant(t, 1.0));
        let s = u(UnaryOp::Sinh, x)?;
        let tn = u(UnaryOp::Tan, y)?;
        let beta = b(Add, &one, &b(Mul, &tn, &tn)?)?;
        let rho = u(UnaryOp::Sqrt, &b(Add, &one, &b(Mul, &s, &s)?)?)?;
        let beta_s = b(Mul, &beta, &s)?;
        let den = b(Add, &one, &b(Mul, &beta_s, &s)?)?;
        let near_re = b(Div, &b(Mul, &beta_s, &rho)?, &den)?;
        let near_im = b(Div, &tn, &den)?;
        let ax = u(UnaryOp::Abs, x)?;
        let far_re = self.select(&b(Lt, x, &zero)?, &u(UnaryOp::Neg, &one)?, &one)?;
        let decay = u(UnaryOp::Exp, &b(Mul, &ax, &self.real_constant(t, -2.0))?)?;
        let sin_cos = b(Mul, &b(Mul, &self.real_constant(t, 4.0), &u(UnaryOp::Sin, y)?)?, &u(UnaryOp::Cos, y)?)?;
        let far_im = b(Mul, &sin_cos, &decay)?;
        let near = b(Lt, &ax, &self.real_constant(t, if t == DType::F32 { 12.0 } else { 20.0 }))?;
        let (re, im) = (self.select(&near, &near_re, &far_re)?, self.select(&near, &near_im, &far_im)?);
        // tanh(±0 + iy) = ±0 + i tan y (NaN for infinite y); tanh(x ± i0) = tanh x ± i0;
        // tanh(±inf + iy) = ±1 ± i0 for an infinite or NaN y; NaN x: NaN real part.
        let re = self.select(&b(Eq, x, &zero)?, x, &re)?;
        let re = self.select(&u(UnaryOp::IsNan, x)?, x, &re)?;
        let y_bad = u(UnaryOp::Not, &u(UnaryOp::IsFinite, y)?)?;
        let im = self.select(&b(And, &u(UnaryOp::IsInf, x)?, &y_bad)?, &zero, &im)?;
        let im = self.select(&b(Eq, y, &zero)?, y, &im)?;
        Ok((re, im))
    }

    /// The principal square root: with t = sqrt((|re| + |z|) / 2) (halves added, so
    /// nothing overflows), sqrt(z) = (t, im / 2t) for re >= 0, else (|im| / 2t, ±t) with
    /// the sign of im; 0 at 0.
    fn complex_sqrt(&self, re: &Arc<Node>, im: &Arc<Node>) -> Result<Arc<Node>> {
        let (b, u) = (|o, x: &Arc<Node>, y: &Arc<Node>| self.binary(o, x, y), |o, x: &Arc<Node>| self.unary(o, x));
        let t = re.dtype;
        let half = self.real_constant(t, 0.5);
        let modulus = b(BinaryOp::Hypot, re, im)?;
        let sum =
            b(BinaryOp::Add, &b(BinaryOp::Mul, &half, &u(UnaryOp::Abs, re)?)?, &b(BinaryOp::Mul, &half, &modulus)?)?;
        let root = u(UnaryOp::Sqrt, &sum)?;
        // im / 2t, as (im / t) / 2 so that 2t cannot overflow.
        let other = b(BinaryOp::Mul, &b(BinaryOp::Div, im, &root)?, &half)?;
        let zero = self.zero(t);
        let nonneg = b(BinaryOp::Ge, re, &zero)?;
        let out_re = self.select(&nonneg, &root, &u(UnaryOp::Abs, &other)?)?;
        // The sign of im, -0 included (C99: sqrt(conj z) = conj sqrt(z)).
        let signed_root = b(BinaryOp::CopySign, &root, im)?;
        let out_im = self.select(&nonneg, &other, &signed_root)?;
        // At 0 the formulas divide 0 by 0.
        let at_zero = b(BinaryOp::Eq, &root, &zero)?;
        self.make_complex(&self.select(&at_zero, &zero, &out_re)?, &self.select(&at_zero, im, &out_im)?)
    }

    /// Binary ops with a complex operand; the other may be real of the parts' type (a
    /// scalar operand), which then counts as a complex number with no imaginary part.
    pub(crate) fn complex_binary(&self, op: BinaryOp, x: &Arc<Node>, y: &Arc<Node>) -> Result<Arc<Node>> {
        let complex = if x.dtype.is_complex() { x.dtype } else { y.dtype };
        let part = complex.real();
        for a in [x, y] {
            if a.dtype != complex && a.dtype != part {
                bail!(DTypeMismatch, "{}: operands have types {} and {}; cast one first", op.name(), x.dtype, y.dtype);
            }
        }
        if BinaryOp::result_dtype(op, complex).is_none() {
            let why = match op {
                BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge | BinaryOp::Min | BinaryOp::Max => {
                    "complex numbers have no order; compare abs or real parts"
                }
                BinaryOp::And | BinaryOp::Or | BinaryOp::Xor | BinaryOp::Shl | BinaryOp::Shr => {
                    "complex numbers have no bits to combine"
                }
                BinaryOp::Atan2 => "atan2 takes two real numbers; the angle of a complex number is arg",
                BinaryOp::Hypot => "hypot takes two real numbers; the modulus of a complex number is abs",
                BinaryOp::Rem => "complex numbers have no remainder",
                _ => "not implemented for complex numbers",
            };
            bail!(DTypeMismatch, "{} is not defined for {} arrays ({why})", op.name(), complex);
        }
        let (b, u) = (|o, p: &Arc<Node>, q: &Arc<Node>| self.binary(o, p, q), |o, p: &Arc<Node>| self.unary(o, p));
        let (xr, xi) = self.parts(x)?;
        let (yr, yi) = self.parts(y)?;
        let (x_real, y_real) = (!x.dtype.is_complex(), !y.dtype.is_complex());
        match op {
            BinaryOp::Add | BinaryOp::Sub => {
                let im = match (x_real, y_real) {
                    (false, true) => xi,
                    (true, _) if op == BinaryOp::Add => yi,
                    (true, _) => u(UnaryOp::Neg, &yi)?,
                    _ => b(op, &xi, &yi)?,
                };
                self.make_complex(&b(op, &xr, &yr)?, &im)
            }
            // Times a real number: each part.
            BinaryOp::Mul if x_real || y_real => {
                let (s, re, im) = if x_real { (&xr, &yr, &yi) } else { (&yr, &xr, &xi) };
                self.make_complex(&b(op, re, s)?, &b(op, im, s)?)
            }
            BinaryOp::Mul => {
                let re = b(BinaryOp::Sub, &b(op, &xr, &yr)?, &b(op, &xi, &yi)?)?;
                let im = b(BinaryOp::Add, &b(op, &xr, &yi)?, &b(op, &xi, &yr)?)?;
                self.make_complex(&re, &im)
            }
            BinaryOp::Div if y_real => self.make_complex(&b(op, &xr, &yr)?, &b(op, &xi, &yr)?),
            BinaryOp::Div => self.smith_division(&xr, &xi, &yr, &yi),
            BinaryOp::Pow => self.complex_pow((&xr, &xi), (&yr, &yi), y_real),
            BinaryOp::Eq => b(BinaryOp::And, &b(op, &xr, &yr)?, &b(op, &xi, &yi)?),
            BinaryOp::Ne => b(BinaryOp::Or, &b(op, &xr, &yr)?, &b(op, &xi, &yi)?),
            _ => unreachable!("refused above"),
        }
    }

    /// The principal power x^y = exp(y log x), with x^0 = 1 (any x) and 0^y = 0 for
    /// re y > 0. A real exponent (`y_real`) multiplies the logarithm's parts alone (no
    /// 0 * inf from its zero imaginary part). The error grows with |y log x|: the
    /// exponent's parts carry a few units of roundoff of their size into the angle.
    fn complex_pow(
        &self,
        (xr, xi): (&Arc<Node>, &Arc<Node>),
        (yr, yi): (&Arc<Node>, &Arc<Node>),
        y_real: bool,
    ) -> Result<Arc<Node>> {
        use BinaryOp::{Add, And, Atan2, Eq, Gt, Hypot, Mul, Sub};
        let (b, u) = (|o, p: &Arc<Node>, q: &Arc<Node>| self.binary(o, p, q), |o, p: &Arc<Node>| self.unary(o, p));
        let log_mod = u(UnaryOp::Log, &b(Hypot, xr, xi)?)?;
        let angle = b(Atan2, xi, xr)?;
        let (re, im) = if y_real {
            (b(Mul, yr, &log_mod)?, b(Mul, yr, &angle)?)
        } else {
            (
                b(Sub, &b(Mul, yr, &log_mod)?, &b(Mul, yi, &angle)?)?,
                b(Add, &b(Mul, yr, &angle)?, &b(Mul, yi, &log_mod)?)?,
            )
        };
        let (pr, pi) = self.parts(&self.complex_exp(&re, &im)?)?;
        let t = xr.dtype;
        let (zero, one) = (self.zero(t), self.real_constant(t, 1.0));
        let is_zero = |r: &Arc<Node>, i: &Arc<Node>| b(And, &b(Eq, r, &zero)?, &b(Eq, i, &zero)?);
        let base_zero = b(And, &is_zero(xr, xi)?, &b(Gt, yr, &zero)?)?;
        let (pr, pi) = (self.select(&base_zero, &zero, &pr)?, self.select(&base_zero, &zero, &pi)?);
        let power_zero = is_zero(yr, yi)?;
        self.make_complex(&self.select(&power_zero, &one, &pr)?, &self.select(&power_zero, &zero, &pi)?)
    }

    /// (a + ib) / (c + id) by Smith's method: divide through by the larger of |c|, |d|,
    /// so no intermediate overflows unless the result does.
    fn smith_division(&self, a: &Arc<Node>, bi: &Arc<Node>, c: &Arc<Node>, d: &Arc<Node>) -> Result<Arc<Node>> {
        use BinaryOp::{Add, Div, Mul, Sub};
        let (b, u) = (|o, p: &Arc<Node>, q: &Arc<Node>| self.binary(o, p, q), |o, p: &Arc<Node>| self.unary(o, p));
        let wide = b(BinaryOp::Ge, &u(UnaryOp::Abs, c)?, &u(UnaryOp::Abs, d)?)?;
        // |c| >= |d|: r = d/c, den = c + d r, ((a + b r) / den, (b - a r) / den).
        let r1 = b(Div, d, c)?;
        let den1 = b(Add, c, &b(Mul, d, &r1)?)?;
        let re1 = b(Div, &b(Add, a, &b(Mul, bi, &r1)?)?, &den1)?;
        let im1 = b(Div, &b(Sub, bi, &b(Mul, a, &r1)?)?, &den1)?;
        // otherwise: r = c/d, den = d + c r, ((a r + b) / den, (b r - a) / den).
        let r2 = b(Div, c, d)?;
        let den2 = b(Add, d, &b(Mul, c, &r2)?)?;
        let re2 = b(Div, &b(Add, &b(Mul, a, &r2)?, bi)?, &den2)?;
        let im2 = b(Div, &b(Sub, &b(Mul, bi, &r2)?, a)?, &den2)?;
        self.make_complex(&self.select(&wide, &re1, &re2)?, &self.select(&wide, &im1, &im2)?)
    }

    /// Reductions of complex values: sums and means part by part; a product as the
    /// product of the moduli at the sum of the arguments (the polar form multiplies).
    pub(crate) fn complex_reduce(&self, op: ReduceOp, z: &Arc<Node>, axis: Option<usize>) -> Result<Arc<Node>> {
        let (re, im) = self.parts(z)?;
        match op {
            ReduceOp::Sum | ReduceOp::Mean => {
                self.make_complex(&self.reduce(op, &re, axis)?, &self.reduce(op, &im, axis)?)
            }
            ReduceOp::Prod => {
                let modulus = self.reduce(ReduceOp::Prod, &self.binary(BinaryOp::Hypot, &re, &im)?, axis)?;
                let angle = self.reduce(ReduceOp::Sum, &self.binary(BinaryOp::Atan2, &im, &re)?, axis)?;
                self.polar(&modulus, &angle)
            }
            _ => bail!(
                DTypeMismatch,
                "{} is not defined for {} arrays (complex numbers have no order; reduce abs or the parts)",
                op.name(),
                z.dtype
            ),
        }
    }

    /// Scans of complex values, as `complex_reduce` folds them.
    pub(crate) fn complex_scan(&self, op: ScanOp, z: &Arc<Node>, axis: usize) -> Result<Arc<Node>> {
        let (re, im) = self.parts(z)?;
        match op {
            ScanOp::Sum => self.make_complex(&self.scan(op, &re, axis)?, &self.scan(op, &im, axis)?),
            ScanOp::Prod => {
                let modulus = self.scan(ScanOp::Prod, &self.binary(BinaryOp::Hypot, &re, &im)?, axis)?;
                let angle = self.scan(ScanOp::Sum, &self.binary(BinaryOp::Atan2, &im, &re)?, axis)?;
                self.polar(&modulus, &angle)
            }
            ScanOp::Max | ScanOp::Min => bail!(
                DTypeMismatch,
                "{} is not defined for {} arrays (complex numbers have no order; scan abs or the parts)",
                op.name(),
                z.dtype
            ),
        }
    }

    /// Complex normal numbers of type `t`: element k is (x_2k + i x_2k+1) / sqrt(2) for
    /// the real normal draw x of 2n values of the parts' type, so its parts are the
    /// Box-Muller pair of one pair of uniforms: independent, each of variance 1/2, and
    /// E|z|^2 = 1 (the standard complex normal).
    pub(crate) fn complex_random(
        &self,
        rng_id: u64,
        rng: &Rng,
        dist: Distribution,
        t: DType,
        shape: Shape,
    ) -> Result<Arc<Node>> {
        if dist != Distribution::Normal {
            bail!(DTypeMismatch, "uniform random numbers are f32 or f64, not {t}; make {t} from two real draws");
        }
        let pairs = Shape::sized("random", &[2, shape.numel() as u64])?;
        let draw = self.random(rng_id, rng, dist, t.real(), pairs)?;
        let scale = self.real_constant(t.real(), std::f64::consts::FRAC_1_SQRT_2);
        let part = |k| -> Result<Arc<Node>> {
            let column = self.reshape(&self.project(&draw, 0, k)?, shape)?;
            self.binary(BinaryOp::Mul, &column, &scale)
        };
        self.make_complex(&part(0)?, &part(1)?)
    }

    /// `r (cos theta, sin theta)`.
    pub fn polar(&self, r: &Arc<Node>, theta: &Arc<Node>) -> Result<Arc<Node>> {
        let re = self.binary(BinaryOp::Mul, r, &self.unary(UnaryOp::Cos, theta)?)?;
        let im = self.binary(BinaryOp::Mul, r, &self.unary(UnaryOp::Sin, theta)?)?;
        self.make_complex(&re, &im)
    }
}
