//! Generators (`linspace`, `arange`, `meshgrid`) and shape ops (`diag_matrix`, `diagonal`,
//! `triu`/`tril`, `repeat`, `flip`, `squeeze`, `expand_dims`, `moveaxis`), built from the nodes that
//! exist: views, iotas and element-wise expressions of them, so they fuse with their
//! neighbours and need no kernels of their own. Only `repeat` with per-element counts
//! reads data (the counts) when it is called.

use std::sync::Arc;

use super::Graph;
use super::graph::I64_LIMIT;
use super::host::{HostOrder, read_into};
use crate::ir::{BinaryOp, DType, MAX_RANK, Node, Result, Scalar, Shape, bail};

/// How `meshgrid` lays out its outputs.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Indexing {
    /// Output dimension d follows vector d.
    Ij,
    /// The first two vectors swap places (x varies along the second dimension).
    Xy,
}

/// The length of `[start, stop)` in steps of `step` as numpy's `arange` computes it:
/// `ceil((stop - start) / step)`, 0 when negative.
fn float_steps(start: f64, stop: f64, step: f64) -> Result<u64> {
    if !(start.is_finite() && stop.is_finite() && step.is_finite()) || step == 0.0 {
        bail!(InvalidArgument, "arange: start {start}, stop {stop} and step {step} must be finite, step nonzero");
    }
    let n = ((stop - start) / step).ceil();
    if !n.is_finite() || n > u64::MAX as f64 {
        bail!(InvalidArgument, "arange: {n} elements from {start} to {stop} by {step} do not fit in memory");
    }
    Ok(n.max(0.0) as u64)
}

/// The exact length of `[start, stop)` in integer steps of `step`.
fn int_steps(start: i64, stop: i64, step: i64) -> Result<u64> {
    if step == 0 {
        bail!(InvalidArgument, "arange: step is 0");
    }
    let (span, step) = (stop as i128 - start as i128, step as i128);
    let n = if (span > 0) == (step > 0) && span != 0 { (span + step - step.signum()) / step } else { 0 };
    Ok(n as u64)
}

impl Graph<'_> {
    /// A rank-0 operand of `dtype` holding `v` (the parts of a complex zero included).
    pub(super) fn scalar_of(&self, dtype: DType, v: f64) -> Result<Arc<Node>> {
        if dtype.is_complex() {
            return self.complex_scalar(dtype, v, 0.0);
        }
        Ok(self.operand(dtype, self.app_scalar(dtype, v)?))
    }

    /// `start + i * step` for `i < n` in `dtype` (an iota scaled and shifted, fused).
    fn affine_iota(&self, dtype: DType, n: u64, start: Scalar, step: Scalar) -> Result<Arc<Node>> {
        let i = self.iota(dtype, Shape::sized("arange", &[n])?, 0)?;
        let scaled = self.binary(BinaryOp::Mul, &i, &self.operand(dtype, step))?;
        self.binary(BinaryOp::Add, &scaled, &self.operand(dtype, start))
    }

    /// `n` values from `start` to `stop` evenly spaced (f32 or f64): `start + i * step`
    /// with `step = (stop - start) / (n - 1)`, and exactly `stop` last, when `endpoint`;
    /// `step = (stop - start) / n` (stop left out) otherwise.
    pub fn linspace(&self, dtype: DType, start: f64, stop: f64, n: i64, endpoint: bool) -> Result<Arc<Node>> {
        if !dtype.is_float() {
            bail!(DTypeMismatch, "linspace makes f32 or f64 arrays, not {dtype}");
        }
        if n < 0 || !start.is_finite() || !stop.is_finite() {
            bail!(InvalidArgument, "linspace: n is {n}, start {start}, stop {stop}; n must be >= 0, both ends finite");
        }
        let div = if endpoint { (n - 1).max(1) } else { n.max(1) };
        let step = (stop - start) / div as f64;
        let cast = |v: f64| Scalar::F64(v).cast(dtype);
        let values = self.affine_iota(dtype, n as u64, cast(start), cast(step))?;
        if !endpoint || n < 2 {
            return Ok(values);
        }
        let last = self.binary_scalar_int(BinaryOp::Eq, &self.iota(DType::I64, values.shape, 0)?, n - 1, false)?;
        self.select(&last, &self.operand(dtype, cast(stop)), &values)
    }

    /// `start, start + step, ...` up to (not including) `stop`, of `dtype`; the length is
    /// numpy's `ceil((stop - start) / step)`. An integer `dtype` takes integer arguments
    /// (as `arange_int`).
    pub fn arange(&self, dtype: DType, start: f64, stop: f64, step: f64) -> Result<Arc<Node>> {
        if dtype.is_integer() {
            let int = |what: &str, v: f64| -> Result<i64> {
                if v.fract() != 0.0 || !(-I64_LIMIT..I64_LIMIT).contains(&v) {
                    bail!(DTypeMismatch, "arange: {what} {v} is not an integer, as a {dtype} arange needs");
                }
                Ok(v as i64)
            };
            return self.arange_int(dtype, int("start", start)?, int("stop", stop)?, int("step", step)?);
        }
        if !dtype.is_float() {
            bail!(DTypeMismatch, "arange makes real numbers, not {dtype}");
        }
        let n = float_steps(start, stop, step)?;
        self.affine_iota(dtype, n, self.app_scalar(dtype, start)?, self.app_scalar(dtype, step)?)
    }

    /// `arange` with exact integer arguments (the length computed without rounding). The
    /// values are computed in `dtype`'s wrapping arithmetic, so a step that the type cannot
    /// hold (a negative one for u8) still walks down; the first and last values must fit.
    pub fn arange_int(&self, dtype: DType, start: i64, stop: i64, step: i64) -> Result<Arc<Node>> {
        if dtype.is_float() {
            return self.arange(dtype, start as f64, stop as f64, step as f64);
        }
        if !dtype.is_integer() {
            bail!(DTypeMismatch, "arange makes real numbers, not {dtype}");
        }
        let n = int_steps(start, stop, step)?;
        let last = start as i128 + (n.max(1) as i128 - 1) * step as i128;
        for (what, v) in [("first value", start as i128), ("last value", last)] {
            if Scalar::I64(v as i64).cast(dtype).cast(DType::I64) != Scalar::I64(v as i64) {
                bail!(DTypeMismatch, "arange: the {what} {v} cannot be represented as {dtype}");
            }
        }
        self.affine_iota(dtype, n, Scalar::I64(start).cast(dtype), Scalar::I64(step).cast(dtype))
    }

    /// The square matrix with the vector `v` on diagonal `k` (above the main one for
    /// k > 0) and zeros elsewhere: a gather of `v` selected where `j - i == k`.
    pub fn diag_matrix(&self, v: &Arc<Node>, k: i64) -> Result<Arc<Node>> {
        if v.shape.rank() != 1 {
            bail!(InvalidArgument, "diag_matrix: the array is rank {}; give a vector", v.shape.rank());
        }
        let len = v.shape.dim(0) as u64;
        let side = len.saturating_add(k.unsigned_abs());
        let shape = Shape::sized("diag", &[side, side])?;
        if len == 0 {
            return self.constant(v.dtype, shape, 0.0);
        }
        // Element (i, j) with j - i = k is v[i] above the main diagonal, v[j] below it.
        let along = if k >= 0 { 0 } else { 1 };
        let index = self.iota(DType::I64, shape, along)?;
        let taken = self.gather(v, &[index])?;
        let on = self.offset_of_diagonal(shape, BinaryOp::Eq, k)?;
        self.select(&on, &taken, &self.scalar_of(v.dtype, 0.0)?)
    }

    /// Diagonal `k` of the matrices in the first two dimensions of `a`, batched over the
    /// others: a view (every `m + 1`-th element of each column-major matrix).
    pub fn diagonal(&self, a: &Arc<Node>, k: i64) -> Result<Arc<Node>> {
        if a.shape.rank() < 2 {
            bail!(InvalidArgument, "diagonal: the array is rank {}; it needs two dimensions", a.shape.rank());
        }
        let (m, n) = (a.shape.dim(0) as i64, a.shape.dim(1) as i64);
        if k > n || k < -m {
            bail!(InvalidArgument, "diagonal: k = {k} is outside the {m} x {n} matrices (-{m} <= k <= {n})");
        }
        let len = if k >= 0 { m.min(n - k) } else { (m + k).min(n) };
        let first = if k >= 0 { k * m } else { -k };
        // The matrices as columns of one flat dimension; the diagonal is a strided section.
        let mut flat = vec![a.shape.dim(0) * a.shape.dim(1)];
        flat.extend_from_slice(&a.shape.dims()[2..]);
        let flat = self.reshape(a, Shape::new(&flat))?;
        let r = flat.shape.rank();
        let (mut start, mut count, mut step) =
            (vec![0; r], flat.shape.dims().iter().map(|&d| d as i64).collect::<Vec<_>>(), vec![1; r]);
        (start[0], count[0], step[0]) = (first, len, m + 1);
        self.section(&flat, &start, &count, &step)
    }

    /// Whether `j - i` (column minus row) of each element of the first two dimensions of
    /// `shape` compares to `k` by `cmp`.
    fn offset_of_diagonal(&self, shape: Shape, cmp: BinaryOp, k: i64) -> Result<Arc<Node>> {
        let plane = Shape::new(&shape.dims()[..2]);
        let (i, j) = (self.iota(DType::I64, plane, 0)?, self.iota(DType::I64, plane, 1)?);
        self.binary_scalar_int(cmp, &self.binary(BinaryOp::Sub, &j, &i)?, k, false)
    }

    /// `a` with the elements below diagonal `k` (`upper`) or above it set to zero, in the
    /// matrices of its first two dimensions, batched over the others.
    pub fn triangle(&self, a: &Arc<Node>, k: i64, upper: bool) -> Result<Arc<Node>> {
        let name = if upper { "triu" } else { "tril" };
        if a.shape.rank() < 2 {
            bail!(InvalidArgument, "{name}: the array is rank {}; it needs two dimensions", a.shape.rank());
        }
        let keep = self.offset_of_diagonal(a.shape, if upper { BinaryOp::Ge } else { BinaryOp::Le }, k)?;
        self.select(&keep, a, &self.scalar_of(a.dtype, 0.0)?)
    }

    /// Each element of `a` repeated `count` times along `dim` (APL's replicate with one
    /// count): a broadcast view, `a` seen as (before, 1, n, after) stretched to `count`.
    pub fn repeat(&self, a: &Arc<Node>, count: i64, dim: usize) -> Result<Arc<Node>> {
        self.check_dim_of("repeat", a, dim)?;
        if count < 0 {
            bail!(InvalidArgument, "repeat: count {count} is negative");
        }
        let dims = a.shape.dims();
        let before: usize = dims[..dim].iter().product();
        let after: usize = dims[dim + 1..].iter().product();
        let n = dims[dim];
        // Nothing to stretch when there are no elements, whatever the count.
        let count = if n == 0 { 0 } else { count };
        let out_len = (n as u64).saturating_mul(count as u64);
        let mut out: Vec<u64> = dims.iter().map(|&d| d as u64).collect();
        out[dim] = out_len;
        let out = Shape::sized("repeat", &out)?;
        let split = self.reshape(a, Shape::new(&[before, 1, n, after]))?;
        let stretched = self.broadcast_to(&split, Shape::new(&[before, count as usize, n, after]))?;
        self.reshape(&stretched, out)
    }

    /// Element `i` of `a` along `dim` repeated `counts[i]` times (APL's replicate). The
    /// output's length depends on the counts' values, so this waits for them; the
    /// repeated elements are a gather along `dim`.
    pub fn repeat_counts(&self, a: &Arc<Node>, counts: &Arc<Node>, dim: usize) -> Result<Arc<Node>> {
        self.check_dim_of("repeat", a, dim)?;
        let n = a.shape.dim(dim);
        if !counts.dtype.is_integer() || counts.shape.rank() > 1 || counts.shape.numel() != n {
            bail!(
                InvalidArgument,
                "repeat: counts must be an integer vector of length {n} (dimension {dim}), not {} of shape {}",
                counts.dtype,
                counts.shape
            );
        }
        let counts = self.cast(counts, DType::I64)?;
        let mut bytes = vec![0u8; n * 8];
        read_into(self, &counts, &mut bytes, HostOrder::ColumnMajor)?;
        let counts: Vec<i64> =
            bytes.chunks_exact(8).map(|c| i64::from_le_bytes(c.try_into().expect("8 bytes"))).collect();
        if let Some(i) = counts.iter().position(|&c| c < 0) {
            bail!(InvalidArgument, "repeat: count {i} is negative ({})", counts[i]);
        }
        let total = counts.iter().fold(0u64, |t, &c| t.saturating_add(c as u64));
        let mut out: Vec<u64> = a.shape.dims().iter().map(|&d| d as u64).collect();
        out[dim] = total;
        let out = Shape::sized("repeat", &out)?;
        Shape::sized("repeat", &[total])?;
        let mut index: Vec<u8> = Vec::new();
        if index.try_reserve_exact(total as usize * 8).is_err() {
            bail!(OutOfMemory, "repeat: no memory for the {total} indices of the result");
        }
        for (i, &c) in counts.iter().enumerate() {
            for _ in 0..c {
                index.extend_from_slice(&(i as i64).to_le_bytes());
            }
        }
        let mut along = vec![1; a.shape.rank()];
        along[dim] = total as usize;
        let picked = self.from_host(DType::I64, Shape::new(&along), &index, HostOrder::ColumnMajor)?;
        let indices = (0..a.shape.rank())
            .map(|d| if d == dim { self.broadcast_to(&picked, out) } else { self.iota(DType::I64, out, d) })
            .collect::<Result<Vec<_>>>()?;
        self.gather(a, &indices)
    }

    /// Coordinate arrays for the grid of `vectors` (each rank 0 or 1): output `k` holds
    /// vector `k` stretched along its own dimension of the grid.
    pub fn meshgrid(&self, vectors: &[Arc<Node>], indexing: Indexing) -> Result<Vec<Arc<Node>>> {
        if vectors.is_empty() || vectors.len() > MAX_RANK {
            bail!(InvalidArgument, "meshgrid: give 1 to {MAX_RANK} vectors, not {}", vectors.len());
        }
        if let Some(k) = vectors.iter().position(|v| v.shape.rank() > 1) {
            bail!(InvalidArgument, "meshgrid: vector {k} has rank {}", vectors[k].shape.rank());
        }
        let mut place: Vec<usize> = (0..vectors.len()).collect();
        if indexing == Indexing::Xy && place.len() > 1 {
            place.swap(0, 1);
        }
        let mut grid = vec![0; vectors.len()];
        for (v, &p) in vectors.iter().zip(&place) {
            grid[p] = v.shape.numel();
        }
        let grid = Shape::new(&grid);
        vectors
            .iter()
            .zip(&place)
            .map(|(v, &p)| {
                let mut own = vec![1; grid.rank()];
                own[p] = v.shape.numel();
                self.broadcast_to(&self.reshape(v, Shape::new(&own))?, grid)
            })
            .collect()
    }

    /// `a` reversed along each of `dims` (a section with stride -1).
    pub fn flip(&self, a: &Arc<Node>, dims: &[usize]) -> Result<Arc<Node>> {
        let r = a.shape.rank();
        let mut start = vec![0i64; r];
        let mut step = vec![1i64; r];
        for &d in dims {
            self.check_dim_of("flip", a, d)?;
            if step[d] == -1 {
                bail!(InvalidArgument, "flip: dimension {d} is listed twice");
            }
            (start[d], step[d]) = ((a.shape.dim(d) as i64 - 1).max(0), -1);
        }
        let count: Vec<i64> = a.shape.dims().iter().map(|&d| d as i64).collect();
        self.section(a, &start, &count, &step)
    }

    /// `a` without dimension `dim` (of size 1), or without every size-1 dimension when
    /// `dim` is `None`.
    pub fn squeeze(&self, a: &Arc<Node>, dim: Option<usize>) -> Result<Arc<Node>> {
        let dims: Vec<usize> = match dim {
            Some(d) => {
                self.check_dim_of("squeeze", a, d)?;
                if a.shape.dim(d) != 1 {
                    bail!(ShapeMismatch, "squeeze: dimension {d} of {} has size {}, not 1", a.shape, a.shape.dim(d));
                }
                a.shape.without_dim(d).dims().to_vec()
            }
            None => a.shape.dims().iter().copied().filter(|&n| n != 1).collect(),
        };
        self.reshape(a, Shape::new(&dims))
    }

    /// `a` with a new dimension of size 1 at position `dim` (0 to the rank).
    pub fn expand_dims(&self, a: &Arc<Node>, dim: usize) -> Result<Arc<Node>> {
        let r = a.shape.rank();
        if dim > r || r == MAX_RANK {
            bail!(InvalidArgument, "expand_dims: position {dim} is not in 0..={r}, or the rank is already {MAX_RANK}");
        }
        let mut dims = a.shape.dims().to_vec();
        dims.insert(dim, 1);
        self.reshape(a, Shape::new(&dims))
    }

    /// `a` with dimension `from` moved to position `to`, the others keeping their order.
    pub fn moveaxis(&self, a: &Arc<Node>, from: usize, to: usize) -> Result<Arc<Node>> {
        self.check_dim_of("moveaxis", a, from)?;
        self.check_dim_of("moveaxis", a, to)?;
        let mut perm: Vec<usize> = (0..a.shape.rank()).filter(|&d| d != from).collect();
        perm.insert(to, from);
        self.permute(a, &perm)
    }

    fn check_dim_of(&self, what: &str, a: &Node, dim: usize) -> Result<()> {
        if dim >= a.shape.rank() {
            bail!(InvalidArgument, "{what}: dimension {dim} is out of range for a rank-{} array", a.shape.rank());
        }
        Ok(())
    }
}
