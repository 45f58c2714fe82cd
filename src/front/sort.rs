//! Sorting, searching and the ops whose result size depends on the data.
//!
//! Sorts and searches are intrinsic nodes (`Op::Sort`); top-k, histograms and the
//! data-dependent ops are compositions of them with gathers, scans and scatters, so they
//! fuse, cache and compare like any other work.
//!
//! A node's shape is fixed when it is made (planning, the trace cache and the executors
//! allocate from it), so an op whose size depends on the data (`nonzero`, `compress`,
//! `unique`) computes that size first: the call builds the count (a sum of the mask),
//! reads it — a flush that waits for the values it depends on — and then builds nodes of
//! the known size. The compaction itself is a scan and a scatter: an element where the
//! mask holds goes to place `cumsum(mask) - 1`, the others to place `count`, which a
//! scatter drops as out of range.

use std::sync::Arc;

use smallvec::smallvec;

use super::gather::IndexPolicy;
use super::graph::Graph;
use super::host::{HostOrder, read_into};
use crate::ir::{
    BinaryOp, Boundary, DType, Node, Op, ReduceOp, Result, Scalar, ScanOp, ScatterMode, Shape, SortOp, UnaryOp, bail,
};

impl Graph<'_> {
    /// Refuses what has no order (complex numbers) and a dimension out of range.
    fn orderable(&self, name: &str, a: &Arc<Node>, dim: Option<usize>) -> Result<()> {
        if a.dtype.is_complex() {
            bail!(DTypeMismatch, "{name}: a is {}; complex numbers have no order", a.dtype);
        }
        if let Some(d) = dim
            && d >= a.shape.rank()
        {
            bail!(InvalidArgument, "{name}: dimension {d} is out of range for a rank-{} array", a.shape.rank());
        }
        Ok(())
    }

    /// Every line of `a` along `dim` sorted, stably, NaNs last in both directions.
    pub fn sort(&self, a: &Arc<Node>, dim: usize, descending: bool) -> Result<Arc<Node>> {
        self.orderable("sort", a, Some(dim))?;
        if a.dtype.is_half() {
            return self.in_f32(a.dtype, &[a], |w| self.sort(&w[0], dim, descending));
        }
        let op = SortOp::Sort { dim: dim as u8, descending };
        Ok(self.pending(Op::Sort(op), a.dtype, a.shape, smallvec![a.clone()]))
    }

    /// The i64 positions along `dim` that sort every line of `a` (stably: equal elements
    /// keep their order).
    pub fn argsort(&self, a: &Arc<Node>, dim: usize, descending: bool) -> Result<Arc<Node>> {
        self.orderable("argsort", a, Some(dim))?;
        if a.dtype.is_half() {
            return self.in_f32(a.dtype, &[a], |w| self.argsort(&w[0], dim, descending));
        }
        let op = SortOp::ArgSort { dim: dim as u8, descending };
        Ok(self.pending(Op::Sort(op), DType::I64, a.shape, smallvec![a.clone()]))
    }

    /// The `k` largest (or smallest) elements of every line of `a` along `dim`, in order,
    /// and their i64 positions; of equal elements the earlier comes first.
    pub fn topk(&self, a: &Arc<Node>, k: i64, dim: usize, largest: bool) -> Result<(Arc<Node>, Arc<Node>)> {
        self.orderable("topk", a, Some(dim))?;
        let n = a.shape.dim(dim);
        if k < 0 || k as u64 > n as u64 {
            bail!(
                InvalidArgument,
                "topk: k is {k}; it must lie in 0..={n}, the length of dimension {dim} of {}",
                a.shape
            );
        }
        let order = self.argsort(a, dim, largest)?;
        let r = a.shape.rank();
        let mut count: Vec<i64> = a.shape.dims().iter().map(|&d| d as i64).collect();
        count[dim] = k;
        let positions = self.section(&order, &vec![0; r], &count, &vec![1; r])?;
        let values = self.take_along(a, &positions, dim, IndexPolicy::Clamp, 0.0)?;
        Ok((values, positions))
    }

    /// For each element of `v`, the number of elements of the ascending vector `sorted`
    /// ordered before it (`right`: before or equal), as i64; both are first brought to
    /// one type (the promotion table).
    pub fn searchsorted(&self, sorted: &Arc<Node>, v: &Arc<Node>, right: bool) -> Result<Arc<Node>> {
        self.orderable("searchsorted", sorted, None)?;
        self.orderable("searchsorted", v, None)?;
        if sorted.shape.rank() != 1 {
            bail!(ShapeMismatch, "searchsorted: sorted has shape {}; it must be a vector", sorted.shape);
        }
        let t = sorted.dtype.promote(v.dtype);
        // Halves are compared as f32, which holds them exactly.
        let t = if t.is_half() { DType::F32 } else { t };
        let (s, x) = (self.cast(sorted, t)?, self.cast(v, t)?);
        Ok(self.pending(Op::Sort(SortOp::SearchSorted { right }), DType::I64, v.shape, smallvec![s, x]))
    }

    /// `a` as a vector, in column-major order.
    fn flat(&self, a: &Arc<Node>) -> Result<Arc<Node>> {
        self.reshape(a, Shape::new(&[a.shape.numel()]))
    }

    /// Reads the count of true elements of the bool vector `mask` (the flush waits for it).
    fn count_true(&self, mask: &Arc<Node>) -> Result<usize> {
        let total = self.reduce(ReduceOp::Sum, mask, None)?;
        let mut bytes = [0u8; 8];
        read_into(self, &total, &mut bytes, HostOrder::ColumnMajor)?;
        Ok(i64::from_le_bytes(bytes) as usize)
    }

    /// The elements of the vector `values` where the bool vector `mask` holds, in order,
    /// `count` of them: a scan gives each its place, a scatter puts it there.
    fn compact(&self, values: &Arc<Node>, mask: &Arc<Node>, count: usize) -> Result<Arc<Node>> {
        let places = self.ordinals(mask)?;
        // Elements left out go to place `count`, past the end: the scatter drops them.
        let past = self.operand(DType::I64, Scalar::I64(count as i64));
        let places = self.select(mask, &places, &past)?;
        let out = self.constant(values.dtype, Shape::new(&[count]), 0.0)?;
        self.scatter(&out, &[places], values, ScatterMode::Replace)
    }

    /// For each element of the bool vector `mask`, the number of true elements up to it,
    /// minus one (i64): where a true element goes when the true ones are packed.
    fn ordinals(&self, mask: &Arc<Node>) -> Result<Arc<Node>> {
        let running = self.scan(ScanOp::Sum, &self.cast(mask, DType::I64)?, 0)?;
        self.binary_scalar_int(BinaryOp::Sub, &running, 1, false)
    }

    /// Whether each element of `mask` is nonzero (bools as they are), as a bool vector.
    fn truth(&self, name: &str, mask: &Arc<Node>) -> Result<Arc<Node>> {
        if mask.dtype.is_complex() {
            bail!(DTypeMismatch, "{name}: the mask is {}; it must be bool, an integer or a float array", mask.dtype);
        }
        let flat = self.flat(mask)?;
        if mask.dtype == DType::Bool { Ok(flat) } else { self.binary_scalar(BinaryOp::Ne, &flat, 0.0, false) }
    }

    /// The i64 column-major linear indices of the nonzero elements of `a`, ascending.
    /// Its length depends on the data: the call waits for it.
    pub fn nonzero(&self, a: &Arc<Node>) -> Result<Arc<Node>> {
        let mask = self.truth("nonzero", a)?;
        let count = self.count_true(&mask)?;
        let positions = self.iota(DType::I64, mask.shape, 0)?;
        self.compact(&positions, &mask, count)
    }

    /// The elements of `a` where `mask` (of a's shape; nonzero is true) holds, in
    /// column-major order, as a vector. Its length depends on the data: the call waits
    /// for it.
    pub fn compress(&self, mask: &Arc<Node>, a: &Arc<Node>) -> Result<Arc<Node>> {
        if mask.shape != a.shape {
            bail!(ShapeMismatch, "compress: the mask has shape {} but a has shape {}", mask.shape, a.shape);
        }
        let mask = self.truth("compress", mask)?;
        let count = self.count_true(&mask)?;
        self.compact(&self.flat(a)?, &mask, count)
    }

    /// The distinct elements of `a` in ascending order (-0 and +0 one element, NaNs one
    /// element, last), how often each occurs (i64), and for each element of `a` the
    /// position of its value among them (i64, shaped like a). The number of distinct
    /// elements depends on the data: the call waits for it.
    pub fn unique(&self, a: &Arc<Node>) -> Result<[Arc<Node>; 3]> {
        self.orderable("unique", a, None)?;
        let flat = self.flat(a)?;
        let n = flat.shape.dim(0);
        let order = self.argsort(&flat, 0, false)?;
        let sorted = self.gather(&flat, std::slice::from_ref(&order))?;
        // A run starts where an element differs from the one before it (the first always).
        let before = self.shift(&sorted, 0, 1, Boundary::Clamp, 0.0)?;
        let mut differs = self.binary(BinaryOp::Ne, &sorted, &before)?;
        if a.dtype.is_float() {
            let nan = |x: &Arc<Node>| self.unary(UnaryOp::IsNan, x);
            let both_nan = self.binary(BinaryOp::And, &nan(&sorted)?, &nan(&before)?)?;
            differs = self.binary(BinaryOp::And, &differs, &self.unary(UnaryOp::Not, &both_nan)?)?;
        }
        let first = self.binary_scalar_int(BinaryOp::Eq, &self.iota(DType::I64, flat.shape, 0)?, 0, false)?;
        let starts = self.binary(BinaryOp::Or, &differs, &first)?;
        let count = self.count_true(&starts)?;
        let values = self.compact(&sorted, &starts, count)?;
        // The run of each sorted element, counted into the run's total and scattered
        // back to where the element came from.
        let run = self.ordinals(&starts)?;
        let ones = self.constant(DType::I64, Shape::new(&[n]), 1.0)?;
        let zeros = |len: usize| self.constant(DType::I64, Shape::new(&[len]), 0.0);
        let counts = self.scatter(&zeros(count)?, std::slice::from_ref(&run), &ones, ScatterMode::Add)?;
        let inverse = self.scatter(&zeros(n)?, &[order], &run, ScatterMode::Replace)?;
        Ok([values, counts, self.reshape(&inverse, a.shape)?])
    }

    /// The i64 counts of `a`'s elements in the bins between consecutive `edges`
    /// (ascending, at least two): bin i holds edges[i] <= x < edges[i + 1], the last
    /// bin also x == its right edge (numpy's rule). Elements outside the edges and NaNs
    /// are dropped.
    pub fn histogram(&self, a: &Arc<Node>, edges: &Arc<Node>) -> Result<Arc<Node>> {
        self.orderable("histogram", a, None)?;
        if a.dtype == DType::Bool {
            bail!(DTypeMismatch, "histogram: a is bool; it takes integer or float arrays");
        }
        if edges.shape.rank() != 1 || edges.shape.dim(0) < 2 {
            bail!(
                InvalidArgument,
                "histogram: edges has shape {}; it must be a vector of at least 2 edges (1 bin)",
                edges.shape
            );
        }
        let bins = edges.shape.dim(0) - 1;
        let flat = self.flat(a)?;
        let after = self.searchsorted(edges, &flat, true)?;
        let bin = self.binary_scalar_int(BinaryOp::Sub, &after, 1, false)?;
        // x equal to the last edge falls in the last bin.
        let t = edges.dtype.promote(a.dtype);
        let last = self.project(&self.cast(edges, t)?, 0, bins as i64)?;
        let on_last = self.binary(BinaryOp::Eq, &self.cast(&flat, t)?, &self.broadcast_to(&last, flat.shape)?)?;
        let bin = self.select(&on_last, &self.operand(DType::I64, Scalar::I64(bins as i64 - 1)), &bin)?;
        let ones = self.constant(DType::I64, flat.shape, 1.0)?;
        let zeros = self.constant(DType::I64, Shape::new(&[bins]), 0.0)?;
        self.scatter(&zeros, &[bin], &ones, ScatterMode::Add)
    }

    /// `histogram` over `bins` equal bins spanning [lo, hi]: edges ((bins - i) lo + i hi)
    /// / bins, computed in f64 (so the first is lo and the last hi exactly) and rounded
    /// to a's floating-point type (f64 for integer arrays).
    pub fn histogram_range(&self, a: &Arc<Node>, bins: i64, lo: f64, hi: f64) -> Result<Arc<Node>> {
        if bins < 1 {
            bail!(InvalidArgument, "histogram: bins is {bins}; there must be at least 1 bin");
        }
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            bail!(InvalidArgument, "histogram: the range [{lo}, {hi}] must be finite with lo < hi");
        }
        let t = if a.dtype == DType::F32 { DType::F32 } else { DType::F64 };
        let count = Shape::sized("histogram", &[bins as u64 + 1])?;
        let i = self.iota(DType::F64, count, 0)?;
        let from_lo =
            self.binary_scalar(BinaryOp::Mul, &self.binary_scalar(BinaryOp::Sub, &i, bins as f64, true)?, lo, false)?;
        let to_hi = self.binary_scalar(BinaryOp::Mul, &i, hi, false)?;
        let sum = self.binary(BinaryOp::Add, &from_lo, &to_hi)?;
        let edges = self.cast(&self.binary_scalar(BinaryOp::Div, &sum, bins as f64, false)?, t)?;
        self.histogram(a, &edges)
    }
}
