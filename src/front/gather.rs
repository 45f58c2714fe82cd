//! Gathers with an index policy (clamp, wrap, fill, error), floating-point indices
//! floored, `take_along` (numpy's `take_along_axis`) and linear interpolation along one or
//! two dimensions. Each is the clamped `Graph::gather` (a read at a computed address) with
//! element-wise index arithmetic around it, so it fuses into the kernel that consumes it
//! on every executor, and result comparison and the caches see ordinary nodes.

use std::sync::Arc;

use super::Graph;
use crate::ir::{BinaryOp, DType, Node, Result, Scalar, Shape, UnaryOp, bail};

/// What an index outside its dimension reads.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IndexPolicy {
    /// The nearest edge element.
    Clamp,
    /// The element at the index modulo the dimension's length (periodic).
    Wrap,
    /// A given value instead of an element.
    Fill,
    /// Nothing: the result is poisoned, naming the first bad index.
    Error,
}

/// A read of a source along some of its dimensions (`Graph::along`): the result's shape,
/// the gather's index arrays for every dimension of the source (those read along are
/// replaced), and the position arrays brought to the result's shape.
struct Along {
    out: Shape,
    base: Vec<Arc<Node>>,
    positions: Vec<Arc<Node>>,
}

/// The index of one dimension as a policy resolves it: an i64 index the clamped gather
/// reads at, and for fill and error where it is in range.
struct Resolved {
    index: Arc<Node>,
    valid: Option<Arc<Node>>,
}

impl Graph<'_> {
    /// `src[indices[0][i], ..., indices[r-1][i]]` under `policy` (`fill` for
    /// `IndexPolicy::Fill`). Integer indices are taken as they are, floating-point ones
    /// floored; a NaN index is out of range on both sides (the fill value, an error, and
    /// element 0 under clamp and wrap).
    pub fn gather_with(
        &self,
        src: &Arc<Node>,
        indices: &[Arc<Node>],
        policy: IndexPolicy,
        fill: f64,
    ) -> Result<Arc<Node>> {
        self.check_indices("gather", src.shape.rank(), indices, true)?;
        let fill_value = self.fill_operand(src.dtype, policy, fill)?;
        if src.shape.numel() == 0 && policy == IndexPolicy::Fill {
            let refs: Vec<&Arc<Node>> = indices.iter().collect();
            let (shape, _) = self.broadcast_operands("gather", &refs)?;
            return self.broadcast_to(&fill_value.expect("the fill policy has a value"), shape);
        }
        let resolved = indices
            .iter()
            .enumerate()
            .map(|(d, x)| self.resolve(x, src.shape.dim(d), policy))
            .collect::<Result<Vec<_>>>()?;
        let valid = self.all_valid(resolved.iter().filter_map(|r| r.valid.as_ref()))?;
        let check = self.index_check("gather", policy, src.shape, &valid, indices)?;
        let mut at: Vec<Arc<Node>> = resolved.into_iter().map(|r| r.index).collect();
        at[0] = self.after(&at[0], &check)?;
        let g = self.gather(src, &at)?;
        self.apply_policy(g, valid, fill_value)
    }

    /// `src` read along `dim` at `index` (integer, or floored floating point) under
    /// `policy`: `out[.., i, ..] = src[.., index[.., i, ..], ..]` (numpy's
    /// `take_along_axis`). `index` has `src`'s dimensions except along `dim`, or 1 where
    /// they broadcast; the result has `index`'s length along `dim`.
    pub fn take_along(
        &self,
        src: &Arc<Node>,
        index: &Arc<Node>,
        dim: usize,
        policy: IndexPolicy,
        fill: f64,
    ) -> Result<Arc<Node>> {
        self.check_indices("take_along", 1, std::slice::from_ref(index), true)?;
        let fill_value = self.fill_operand(src.dtype, policy, fill)?;
        let Along { out, base: mut indices, positions: pos } = self.along("take_along", src, &[(index, dim)])?;
        if src.shape.numel() == 0 && policy == IndexPolicy::Fill {
            return self.broadcast_to(&fill_value.expect("the fill policy has a value"), out);
        }
        let r = self.resolve(&pos[0], src.shape.dim(dim), policy)?;
        let check = self.index_check("take_along", policy, src.shape, &r.valid, std::slice::from_ref(index))?;
        indices[dim] = self.after(&r.index, &check)?;
        let g = self.gather(src, &indices)?;
        self.apply_policy(g, r.valid, fill_value)
    }

    /// Linear interpolation of `src` (f32 or f64) along each `(positions, dim)` of `at`
    /// (one or two: `interp1`, bilinear `interp2`) at fractional positions (0 is the first
    /// element, 1 the second). Positions broadcast together and against `src` as
    /// `take_along`'s index does. A position is in range from 0 to the dimension's length
    /// less 1; outside, clamp takes the edge value, wrap interpolates periodically (between
    /// the last element and the first), fill gives `fill`. A NaN position gives NaN under
    /// clamp and wrap and is out of range for fill and error.
    pub fn interp(
        &self,
        src: &Arc<Node>,
        at: &[(&Arc<Node>, usize)],
        policy: IndexPolicy,
        fill: f64,
    ) -> Result<Arc<Node>> {
        let what = if at.len() == 1 { "interp1" } else { "interp2" };
        if !src.dtype.is_float() {
            bail!(DTypeMismatch, "{what}: the source must be f32 or f64, not {}", src.dtype);
        }
        if let Some((p, _)) = at.iter().find(|(p, _)| !(p.dtype.is_float() || p.dtype.is_integer())) {
            bail!(DTypeMismatch, "{what}: positions must be real numbers, not {}", p.dtype);
        }
        if at.len() == 2 && at[0].1 == at[1].1 {
            bail!(InvalidArgument, "{what}: the two dimensions must differ (both are {})", at[0].1);
        }
        let fill_value = self.fill_operand(src.dtype, policy, fill)?;
        let Along { out, base, positions: pos } = self.along(what, src, at)?;
        if src.shape.numel() == 0 && policy == IndexPolicy::Fill {
            return self.broadcast_to(&fill_value.expect("the fill policy has a value"), out);
        }
        // Per dimension: the indices of the two neighbours, the weight of the upper one,
        // and where the position is in range.
        let mut lower_upper = Vec::new();
        let mut weights = Vec::new();
        let mut valid = Vec::new();
        for (p, &(_, dim)) in pos.iter().zip(at) {
            let n = src.shape.dim(dim);
            // In the wider of the two types: the weight of an f32 position below 1 is not
            // an f32 value.
            let p = self.cast(p, if p.dtype.is_float() { p.dtype.promote(src.dtype) } else { src.dtype })?;
            let f = self.unary(UnaryOp::Floor, &p)?;
            let w = self.binary(BinaryOp::Sub, &p, &f)?;
            weights.push(self.cast(&w, src.dtype)?);
            let above = self.binary_scalar(BinaryOp::Add, &f, 1.0, false)?;
            let neighbours = match policy {
                IndexPolicy::Wrap => IndexPolicy::Wrap,
                _ => IndexPolicy::Clamp,
            };
            let lower = self.resolve_whole(&f, n, neighbours)?.index;
            let upper = self.resolve_whole(&above, n, neighbours)?.index;
            lower_upper.push((dim, lower, upper));
            if matches!(policy, IndexPolicy::Fill | IndexPolicy::Error) {
                let lo = self.binary_scalar(BinaryOp::Ge, &p, 0.0, false)?;
                let hi = self.binary_scalar(BinaryOp::Le, &p, n as f64 - 1.0, false)?;
                valid.push(self.binary(BinaryOp::And, &lo, &hi)?);
            }
        }
        let valid = self.all_valid(valid.iter())?;
        let originals: Vec<Arc<Node>> = at.iter().map(|(p, _)| (*p).clone()).collect();
        let check = self.index_check(what, policy, src.shape, &valid, &originals)?;
        let (_, lower, upper) = &mut lower_upper[0];
        (*lower, *upper) = (self.after(lower, &check)?, self.after(upper, &check)?);
        // The 2^k corners, corner `c` taking the upper neighbour along dimension j when
        // bit j of `c` is set; then each dimension's pairs blended, the last first.
        let mut corners = (0..1usize << at.len())
            .map(|c| {
                let mut indices = base.clone();
                for (j, (dim, lower, upper)) in lower_upper.iter().enumerate() {
                    indices[*dim] = if c >> j & 1 == 1 { upper.clone() } else { lower.clone() };
                }
                self.gather(src, &indices)
            })
            .collect::<Result<Vec<_>>>()?;
        for w in weights.iter().rev() {
            let half = corners.len() / 2;
            let (lo, hi) = corners.split_at(half);
            corners = lo.iter().zip(hi).map(|(a, b)| self.lerp(a, b, w)).collect::<Result<Vec<_>>>()?;
        }
        let v = corners.pop().expect("one value is left");
        self.apply_policy(v, valid, fill_value)
    }

    /// `a + w (b - a)`.
    fn lerp(&self, a: &Arc<Node>, b: &Arc<Node>, w: &Arc<Node>) -> Result<Arc<Node>> {
        let d = self.binary(BinaryOp::Sub, b, a)?;
        let d = self.binary(BinaryOp::Mul, w, &d)?;
        self.binary(BinaryOp::Add, a, &d)
    }

    /// A read of `src` along the dimensions of `at` at the given positions (they broadcast
    /// together and, in the other dimensions, against `src`); the gather reads the other
    /// dimensions of `src` along themselves (or at 0 where `src` has length 1).
    fn along(&self, what: &str, src: &Arc<Node>, at: &[(&Arc<Node>, usize)]) -> Result<Along> {
        let rank = src.shape.rank();
        for &(_, dim) in at {
            if dim >= rank {
                bail!(InvalidArgument, "{what}: dimension {dim} is out of range for a rank-{rank} source");
            }
        }
        let positions: Vec<&Arc<Node>> = at.iter().map(|(p, _)| *p).collect();
        let (pos_shape, _) = self.broadcast_operands(what, &positions)?;
        let r = rank.max(pos_shape.rank());
        let (mut s, mut p) = (src.shape.to_rank(r), pos_shape.to_rank(r));
        for &(_, dim) in at {
            s = s.with_dim(dim, 1);
            p = p.with_dim(dim, 1);
        }
        let others = Shape::broadcast(&s, &p).map_err(|mut e| {
            e.message = format!("{what}: the positions {pos_shape} do not fit the source {}: {}", src.shape, e.message);
            e
        })?;
        let dims: Vec<u64> = (0..r)
            .map(|d| if at.iter().any(|&(_, dim)| dim == d) { pos_shape.dim(d) } else { others.dim(d) } as u64)
            .collect();
        let out = Shape::sized(format_args!("the result of {what}"), &dims)?;
        let zero = self.operand(DType::I64, Scalar::I64(0));
        let base = (0..rank)
            .map(|d| if src.shape.dim(d) == 1 { Ok(zero.clone()) } else { self.iota(DType::I64, out, d) })
            .collect::<Result<Vec<_>>>()?;
        let pos = positions.iter().map(|p| self.broadcast_to(p, out)).collect::<Result<Vec<_>>>()?;
        Ok(Along { out, base, positions: pos })
    }

    /// Index `x` (integer, or floating point floored) into a dimension of `n` elements
    /// under `policy`, as i64 (the gather clamps it into range). Floating-point indices
    /// are brought into range before they are converted, so no conversion overflows.
    fn resolve(&self, x: &Arc<Node>, n: usize, policy: IndexPolicy) -> Result<Resolved> {
        let last = n.saturating_sub(1);
        if !x.dtype.is_float() {
            let i = self.cast(x, DType::I64)?;
            return Ok(match policy {
                IndexPolicy::Clamp => Resolved { index: i, valid: None },
                IndexPolicy::Wrap => {
                    // The remainder has the sign of the index: negative ones move up by n.
                    let r = self.binary_scalar_int(BinaryOp::Rem, &i, n as i64, false)?;
                    let neg = self.binary_scalar_int(BinaryOp::Lt, &r, 0, false)?;
                    let up = self.binary_scalar_int(BinaryOp::Add, &r, n as i64, false)?;
                    Resolved { index: self.select(&neg, &up, &r)?, valid: None }
                }
                IndexPolicy::Fill | IndexPolicy::Error => {
                    let lo = self.binary_scalar_int(BinaryOp::Ge, &i, 0, false)?;
                    let hi = self.binary_scalar_int(BinaryOp::Le, &i, last as i64, false)?;
                    Resolved { index: i, valid: Some(self.binary(BinaryOp::And, &lo, &hi)?) }
                }
            });
        }
        self.resolve_whole(&self.unary(UnaryOp::Floor, x)?, n, policy)
    }

    /// `resolve` of floating-point indices that are whole numbers already (or NaN).
    fn resolve_whole(&self, f: &Arc<Node>, n: usize, policy: IndexPolicy) -> Result<Resolved> {
        let last = n.saturating_sub(1);
        // `f` where `keep` holds, else 0: a NaN fails every comparison, so it reads 0.
        let or_zero = |keep: &Arc<Node>, f: &Arc<Node>| self.select_scalar(keep, f, 0.0, false);
        let (f, valid) = match policy {
            IndexPolicy::Clamp => {
                let nonneg = self.binary_scalar(BinaryOp::Ge, f, 0.0, false)?;
                (self.binary_scalar(BinaryOp::Min, &or_zero(&nonneg, f)?, last as f64, false)?, None)
            }
            IndexPolicy::Wrap => {
                let turns = self.binary_scalar(BinaryOp::Div, f, n as f64, false)?;
                let turns = self.unary(UnaryOp::Floor, &turns)?;
                let back = self.binary_scalar(BinaryOp::Mul, &turns, n as f64, false)?;
                let w = self.binary(BinaryOp::Sub, f, &back)?;
                // Rounding of large indices may leave it just outside [0, n).
                let nonneg = self.binary_scalar(BinaryOp::Ge, &w, 0.0, false)?;
                (self.binary_scalar(BinaryOp::Min, &or_zero(&nonneg, &w)?, last as f64, false)?, None)
            }
            IndexPolicy::Fill | IndexPolicy::Error => {
                let lo = self.binary_scalar(BinaryOp::Ge, f, 0.0, false)?;
                let hi = self.binary_scalar(BinaryOp::Le, f, last as f64, false)?;
                let valid = self.binary(BinaryOp::And, &lo, &hi)?;
                (or_zero(&valid, f)?, Some(valid))
            }
        };
        Ok(Resolved { index: self.cast(&f, DType::I64)?, valid })
    }

    /// Under the error policy, the check that
    /// every element of `valid` holds: a rank-0 i64 0 that fails, naming the first index
    /// out of range (read from `indices`, the application's index or position arrays), when
    /// one does not. The gather reads it (`after`), so a failure poisons the result.
    fn index_check(
        &self,
        what: &'static str,
        policy: IndexPolicy,
        src: Shape,
        valid: &Option<Arc<Node>>,
        indices: &[Arc<Node>],
    ) -> Result<Option<Arc<Node>>> {
        let (Some(valid), IndexPolicy::Error) = (valid, policy) else { return Ok(None) };
        if valid.shape.numel() == 0 {
            return Ok(None);
        }
        let out = valid.shape;
        // The column-major position of each element, or i64::MAX where its index is in range.
        let strides = out.dense_strides();
        let mut position = self.operand(DType::I64, Scalar::I64(0));
        for (d, &stride) in strides.iter().enumerate().take(out.rank()) {
            let along = self.iota(DType::I64, out, d)?;
            let term = self.binary_scalar_int(BinaryOp::Mul, &along, stride, false)?;
            position = self.binary(BinaryOp::Add, &position, &term)?;
        }
        let none = self.operand(DType::I64, Scalar::I64(i64::MAX));
        let bad = self.select(valid, &none, &position)?;
        let first = self.reduce(crate::ir::ReduceOp::Min, &bad, None)?;
        // That position's coordinates, and the index each array holds there (clamped
        // into range when every index is: then nobody reads them).
        let coords = (0..out.rank())
            .map(|d| {
                let q = self.binary_scalar_int(BinaryOp::Div, &first, strides[d], false)?;
                self.binary_scalar_int(BinaryOp::Rem, &q, out.dim(d) as i64, false)
            })
            .collect::<Result<Vec<_>>>()?;
        let mut inputs = vec![first];
        for x in indices {
            let v = if x.shape.rank() == 0 { x.clone() } else { self.gather(x, &coords[..x.shape.rank()])? };
            inputs.push(self.cast(&v, DType::F64)?);
        }
        Ok(Some(self.pending(crate::ir::Op::IndexCheck { what, src, out }, DType::I64, Shape::SCALAR, inputs)))
    }

    /// `index` made to depend on `check` (which is 0) when there is one.
    fn after(&self, index: &Arc<Node>, check: &Option<Arc<Node>>) -> Result<Arc<Node>> {
        match check {
            Some(c) => self.binary(BinaryOp::Add, index, c),
            None => Ok(index.clone()),
        }
    }

    /// The conjunction of `valid` (`None` when empty).
    fn all_valid<'v>(&self, valid: impl Iterator<Item = &'v Arc<Node>>) -> Result<Option<Arc<Node>>> {
        let mut all: Option<Arc<Node>> = None;
        for v in valid {
            all = Some(match all {
                Some(a) => self.binary(BinaryOp::And, &a, v)?,
                None => v.clone(),
            });
        }
        Ok(all)
    }

    /// The fill value as a rank-0 operand of `dtype` under the fill policy, refused when
    /// `dtype` cannot hold it.
    fn fill_operand(&self, dtype: DType, policy: IndexPolicy, fill: f64) -> Result<Option<Arc<Node>>> {
        if policy != IndexPolicy::Fill {
            return Ok(None);
        }
        let v = if dtype.is_complex() {
            self.complex_scalar(dtype, fill, 0.0)
        } else {
            self.app_scalar(dtype, fill).map(|s| self.operand(dtype, s)).map_err(|mut e| {
                e.message = format!("gather: the fill value: {}", e.message);
                e
            })
        }?;
        Ok(Some(v))
    }

    /// `g` where the indices were in range (`valid`), the fill value elsewhere.
    fn apply_policy(&self, g: Arc<Node>, valid: Option<Arc<Node>>, fill: Option<Arc<Node>>) -> Result<Arc<Node>> {
        match (valid, fill) {
            (Some(valid), Some(fill)) => self.select(&valid, &g, &fill),
            _ => Ok(g),
        }
    }
}
