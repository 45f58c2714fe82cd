//! Reductions and scans composed from the graph's own: over several dimensions at once,
//! exclusive scans, running and/or, NaN-ignoring reductions, variance and norms. Each is
//! a few reduction, scan and element-wise nodes, so both executors fuse, cache, compare
//! and profile them like any other work.

use std::sync::Arc;

use super::graph::Graph;
use crate::ir::{
    BinaryOp, Boundary, DType, MAX_RANK, Node, ReduceOp, Result, Scalar, ScanOp, Shape, UnaryOp, ViewStep, bail,
};

/// The dimensions a reduction or scan folds.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Axes {
    /// Every element, to a rank-0 result.
    All,
    /// The dimensions whose bit is set (bit d is dimension d), each kept with size 1.
    Dims(u32),
}

/// A reduction as the application names it: one of the graph's, or a composition.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Reduction {
    Plain(ReduceOp),
    NanSum,
    NanMean,
    NanMin,
    NanMax,
    Norm1,
    Norm2,
    NormInf,
}

impl Reduction {
    pub fn name(self) -> &'static str {
        match self {
            Reduction::Plain(op) => op.name(),
            Reduction::NanSum => "nansum",
            Reduction::NanMean => "nanmean",
            Reduction::NanMin => "nanmin",
            Reduction::NanMax => "nanmax",
            Reduction::Norm1 => "norm1",
            Reduction::Norm2 => "norm2",
            Reduction::NormInf => "norminf",
        }
    }
}

/// A scan as the application names it. `And` and `Or` scan `x != 0` as bools.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Scan {
    Sum,
    Prod,
    Max,
    Min,
    And,
    Or,
}

impl Scan {
    pub fn name(self) -> &'static str {
        match self {
            Scan::Sum => "cumsum",
            Scan::Prod => "cumprod",
            Scan::Max => "cummax",
            Scan::Min => "cummin",
            Scan::And => "cumand",
            Scan::Or => "cumor",
        }
    }
}

/// The dimensions named by `dims` (bit d is dimension d), in increasing order.
fn dims_of(what: &str, dims: u32, rank: usize) -> Result<Vec<usize>> {
    if dims == 0 {
        bail!(InvalidArgument, "{what}: the dimension set is empty");
    }
    let valid = (1u32 << rank.min(31)) - 1;
    if dims & !valid != 0 {
        bail!(
            InvalidArgument,
            "{what}: dimension set {dims:#x} names a dimension out of range for a rank-{rank} array"
        );
    }
    Ok((0..rank).filter(|d| dims & (1 << d) != 0).collect())
}

/// The element a scan starts from: its running value before the first element.
fn scan_identity(op: ScanOp, t: DType) -> Scalar {
    match (op, t) {
        (ScanOp::Sum, _) => Scalar::F64(0.0).cast(t),
        (ScanOp::Prod, _) => Scalar::F64(1.0).cast(t),
        (ScanOp::Max, DType::I64) => Scalar::I64(i64::MIN),
        (ScanOp::Min, DType::I64) => Scalar::I64(i64::MAX),
        (ScanOp::Max, DType::I32) => Scalar::I32(i32::MIN),
        (ScanOp::Min, DType::I32) => Scalar::I32(i32::MAX),
        (ScanOp::Max, DType::Bool) => Scalar::Bool(false),
        (ScanOp::Min, DType::Bool) => Scalar::Bool(true),
        (ScanOp::Max, DType::U8) => Scalar::U8(0),
        (ScanOp::Min, DType::U8) => Scalar::U8(u8::MAX),
        (ScanOp::Max, _) => Scalar::F64(f64::NEG_INFINITY).cast(t),
        (ScanOp::Min, _) => Scalar::F64(f64::INFINITY).cast(t),
    }
}

impl Graph<'_> {
    /// How many elements each result of a reduction over `dims` folds (`None`: all).
    fn folded_count(a: &Node, dims: Option<&[usize]>) -> usize {
        match dims {
            None => a.shape.numel(),
            Some(dims) => dims.iter().map(|&d| a.shape.dim(d)).product(),
        }
    }

    /// A rank-0 operand of type `t` (complex: a zero imaginary part) holding `v`.
    fn scalar_operand(&self, t: DType, v: f64) -> Result<Arc<Node>> {
        self.constant(t, Shape::SCALAR, v)
    }

    /// `op` over `axes` of `a`: one reduction node along one dimension or over everything,
    /// else one per dimension (a mean is the sum divided by the count).
    fn fold_axes(&self, op: ReduceOp, a: &Arc<Node>, axes: Axes) -> Result<Arc<Node>> {
        let dims = match axes {
            Axes::All => return self.reduce(op, a, None),
            Axes::Dims(mask) => dims_of(op.name(), mask, a.shape.rank())?,
        };
        if let [d] = dims[..] {
            return self.reduce(op, a, Some(d));
        }
        match op {
            ReduceOp::ArgMin | ReduceOp::ArgMax => {
                bail!(InvalidArgument, "{} takes one dimension or every element, not several dimensions", op.name())
            }
            ReduceOp::Mean if a.dtype.is_complex() => {
                let (re, im) = self.parts(a)?;
                self.make_complex(&self.fold_axes(op, &re, axes)?, &self.fold_axes(op, &im, axes)?)
            }
            ReduceOp::Mean => {
                let a = &self.bools_counted(op, a)?;
                let Some(t) = op.result_dtype(a.dtype) else {
                    bail!(DTypeMismatch, "mean is not defined for {} arrays", a.dtype);
                };
                let sum = self.fold_axes(ReduceOp::Sum, &self.cast(a, t)?, axes)?;
                let n = self.scalar_operand(t, Self::folded_count(a, Some(&dims)) as f64)?;
                self.binary(BinaryOp::Div, &sum, &n)
            }
            _ => {
                // Counts add up; the others fold again what they give. The longest
                // dimension goes first, so each partial result is as small as it can be
                // (an empty dimension last: folding it first would fill the others).
                let mut dims = dims;
                dims.sort_by_key(|&d| std::cmp::Reverse(a.shape.dim(d)));
                let mut r = self.reduce(op, a, Some(dims[0]))?;
                let rest = if op == ReduceOp::Count { ReduceOp::Sum } else { op };
                for &d in &dims[1..] {
                    r = self.reduce(rest, &r, Some(d))?;
                }
                Ok(r)
            }
        }
    }

    /// A reduction over `axes` (several dimensions, one, or every element).
    pub fn reduce_axes(&self, r: Reduction, a: &Arc<Node>, axes: Axes) -> Result<Arc<Node>> {
        let name = r.name();
        let dims = match axes {
            Axes::All => None,
            Axes::Dims(mask) => Some(dims_of(name, mask, a.shape.rank())?),
        };
        let n = Self::folded_count(a, dims.as_deref());
        let floats = a.dtype.is_float() || a.dtype.is_complex();
        let ordered = matches!(r, Reduction::NanMin | Reduction::NanMax);
        if a.dtype.is_complex() && ordered {
            bail!(DTypeMismatch, "{name} is not defined for {} arrays (complex numbers have no order)", a.dtype);
        }
        let isnan = || self.unary(UnaryOp::IsNan, a);
        match r {
            Reduction::Plain(op) => self.fold_axes(op, a, axes),
            // Integers have no NaN.
            Reduction::NanSum | Reduction::NanMean | Reduction::NanMin | Reduction::NanMax if !floats => {
                let op = match r {
                    Reduction::NanSum => ReduceOp::Sum,
                    Reduction::NanMean => ReduceOp::Mean,
                    Reduction::NanMin => ReduceOp::Min,
                    _ => ReduceOp::Max,
                };
                self.fold_axes(op, a, axes)
            }
            Reduction::NanSum | Reduction::NanMean => {
                let kept = self.select(&isnan()?, &self.scalar_operand(a.dtype, 0.0)?, a)?;
                let sum = self.fold_axes(ReduceOp::Sum, &kept, axes)?;
                if r == Reduction::NanSum {
                    return Ok(sum);
                }
                let count = self.fold_axes(ReduceOp::Count, &self.unary(UnaryOp::Not, &isnan()?)?, axes)?;
                let count = self.cast(&count, a.dtype.real())?;
                if a.dtype.is_complex() {
                    let (re, im) = self.parts(&sum)?;
                    let div = |p: &Arc<Node>| self.binary(BinaryOp::Div, p, &count);
                    return self.make_complex(&div(&re)?, &div(&im)?);
                }
                self.binary(BinaryOp::Div, &sum, &count)
            }
            Reduction::NanMin | Reduction::NanMax => {
                let (op, skip) = if r == Reduction::NanMin {
                    (ReduceOp::Min, f64::INFINITY)
                } else {
                    (ReduceOp::Max, f64::NEG_INFINITY)
                };
                let kept = self.select(&isnan()?, &self.scalar_operand(a.dtype, skip)?, a)?;
                let folded = self.fold_axes(op, &kept, axes)?;
                if n == 0 {
                    return Ok(folded);
                }
                // NaN where every element is NaN.
                let all_nan = self.fold_axes(ReduceOp::All, &isnan()?, axes)?;
                self.select(&all_nan, &self.scalar_operand(a.dtype, f64::NAN)?, &folded)
            }
            Reduction::Norm1 | Reduction::Norm2 | Reduction::NormInf => {
                let m = self.magnitudes(name, a)?;
                if n == 0 || r == Reduction::Norm1 {
                    // A norm of nothing is 0, which the sum gives.
                    return self.fold_axes(ReduceOp::Sum, &m, axes);
                }
                let largest = self.fold_axes(ReduceOp::Max, &m, axes)?;
                if r == Reduction::NormInf {
                    return Ok(largest);
                }
                self.scaled_norm2(&m, &largest, axes)
            }
        }
    }

    /// |a| as a float array (integers as f64); bools have no norm.
    fn magnitudes(&self, name: &str, a: &Arc<Node>) -> Result<Arc<Node>> {
        match a.dtype {
            DType::Bool => bail!(DTypeMismatch, "{name} is not defined for bool arrays"),
            t if t.is_float() || t.is_complex() => self.unary(UnaryOp::Abs, a),
            _ => self.unary(UnaryOp::Abs, &self.cast(a, DType::F64)?),
        }
    }

    /// sqrt(sum m^2) over `axes` of the magnitudes `m`, scaled by their largest (as BLAS
    /// nrm2 does) so that squares neither overflow nor underflow: `s sqrt(sum (m/s)^2)`,
    /// with s = 1 where the largest is 0 or infinite (the sum then gives 0 or inf).
    fn scaled_norm2(&self, m: &Arc<Node>, largest: &Arc<Node>, axes: Axes) -> Result<Arc<Node>> {
        let t = m.dtype;
        let zero = self.scalar_operand(t, 0.0)?;
        let unusable = self.binary(
            BinaryOp::Or,
            &self.binary(BinaryOp::Eq, largest, &zero)?,
            &self.unary(UnaryOp::IsInf, largest)?,
        )?;
        let scale = self.select(&unusable, &self.scalar_operand(t, 1.0)?, largest)?;
        let q = self.binary(BinaryOp::Div, m, &scale)?;
        let sum = self.fold_axes(ReduceOp::Sum, &self.binary(BinaryOp::Mul, &q, &q)?, axes)?;
        self.binary(BinaryOp::Mul, &scale, &self.unary(UnaryOp::Sqrt, &sum)?)
    }

    /// The variance over `axes` with `ddof` degrees of freedom taken off the count: the
    /// mean first, then the squared deviations from it (the corrected two-pass algorithm,
    /// `(sum d^2 - (sum d)^2 / n) / (n - ddof)`, whose second term removes the error of the
    /// rounded mean). NaN where n <= ddof. Complex values give the real mean of |x - m|^2.
    pub fn variance(&self, a: &Arc<Node>, axes: Axes, ddof: i64, std: bool) -> Result<Arc<Node>> {
        let name = if std { "std" } else { "var" };
        if ddof < 0 {
            bail!(InvalidArgument, "{name}: ddof is {ddof}, not a count >= 0");
        }
        let dims = match axes {
            Axes::All => None,
            Axes::Dims(mask) => Some(dims_of(name, mask, a.shape.rank())?),
        };
        let t = match a.dtype {
            DType::Bool => bail!(DTypeMismatch, "{name} is not defined for bool arrays"),
            t if t.is_complex() => t.real(),
            DType::F32 => DType::F32,
            _ => DType::F64,
        };
        let parts = if a.dtype.is_complex() {
            let (re, im) = self.parts(a)?;
            vec![re, im]
        } else {
            vec![self.cast(a, t)?]
        };
        let n = Self::folded_count(a, dims.as_deref());
        let (mut squares, mut correction): (Option<Arc<Node>>, Option<Arc<Node>>) = (None, None);
        let add = |acc: Option<Arc<Node>>, v: Arc<Node>| -> Result<Arc<Node>> {
            match acc {
                None => Ok(v),
                Some(acc) => self.binary(BinaryOp::Add, &acc, &v),
            }
        };
        for x in &parts {
            let mean = self.fold_axes(ReduceOp::Mean, x, axes)?;
            let d = self.binary(BinaryOp::Sub, x, &mean)?;
            let ss = self.fold_axes(ReduceOp::Sum, &self.binary(BinaryOp::Mul, &d, &d)?, axes)?;
            let s = self.fold_axes(ReduceOp::Sum, &d, axes)?;
            squares = Some(add(squares, ss)?);
            correction = Some(add(correction, self.binary(BinaryOp::Mul, &s, &s)?)?);
        }
        let (Some(squares), Some(correction)) = (squares, correction) else { unreachable!("one part at least") };
        let correction = self.binary(BinaryOp::Div, &correction, &self.scalar_operand(t, n as f64)?)?;
        let dof = n as f64 - ddof as f64;
        let denominator = self.scalar_operand(t, if dof > 0.0 { dof } else { f64::NAN })?;
        let var = self.binary(BinaryOp::Div, &self.binary(BinaryOp::Sub, &squares, &correction)?, &denominator)?;
        if std { self.unary(UnaryOp::Sqrt, &var) } else { Ok(var) }
    }

    /// A scan along each dimension of `dims` in turn (a running total over a box for
    /// several); `exclusive` scans each from its identity, leaving out the element itself.
    pub fn scan_axes(&self, op: Scan, a: &Arc<Node>, dims: u32, exclusive: bool) -> Result<Arc<Node>> {
        let name = op.name();
        let dims = dims_of(name, dims, a.shape.rank())?;
        let (op, mut x) = match op {
            Scan::Sum => (ScanOp::Sum, a.clone()),
            Scan::Prod => (ScanOp::Prod, a.clone()),
            Scan::Max => (ScanOp::Max, a.clone()),
            Scan::Min => (ScanOp::Min, a.clone()),
            Scan::And | Scan::Or if a.dtype.is_complex() => {
                bail!(DTypeMismatch, "{name} is not defined for {} arrays", a.dtype)
            }
            Scan::And | Scan::Or => {
                let truth = if a.dtype == DType::Bool {
                    a.clone()
                } else {
                    self.binary(BinaryOp::Ne, a, &self.scalar_operand(a.dtype, 0.0)?)?
                };
                (if op == Scan::And { ScanOp::Min } else { ScanOp::Max }, truth)
            }
        };
        for d in dims {
            if exclusive {
                x = self.exclusive_input(op, &x, d)?;
            }
            x = self.scan(op, &x, d)?;
        }
        Ok(x)
    }

    /// `x` moved one place up along `d`, its scan's identity coming in at 0: scanning it
    /// gives the exclusive scan of `x`.
    fn exclusive_input(&self, op: ScanOp, x: &Arc<Node>, d: usize) -> Result<Arc<Node>> {
        let t = x.dtype;
        let fill = if t.is_complex() {
            let v = if op == ScanOp::Prod { 1.0 } else { 0.0 };
            self.complex_scalar(t, v, 0.0)?
        } else if op.result_dtype(t).is_none() {
            bail!(DTypeMismatch, "{} is not defined for {t} arrays", op.name());
        } else {
            self.fill(t, Shape::SCALAR, scan_identity(op, t), true)
        };
        let mut offset = [0i64; MAX_RANK];
        offset[d] = (x.shape.dim(d) as i64).min(1);
        Ok(self.view(x, ViewStep::Offset { offset, boundary: Boundary::Fill }, x.shape, Some(fill)))
    }
}
