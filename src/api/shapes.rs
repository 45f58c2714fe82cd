//! Generators and shape ops: evenly spaced values, grids, diagonals, triangles,
//! repetition, flips and dimension bookkeeping. All but `sl_repeat_counts` are views or
//! element-wise expressions of indices, so they fuse with the work around them.

use super::elementwise::from_array;
use super::error::boundary;
use super::types::*;
use super::{graph, node, nodes, out_slot, parse_dim, parse_dtype, put, runtime, slice};
use crate::front::{Graph, Indexing};
use crate::ir::{CallSite, DType, Node, Result, bail};
use std::sync::Arc;

/// `out = build(dtype)`: what the calls that make an array of a given type do around it.
fn generated(
    site: CallSite,
    dtype: sl_dtype,
    out: *mut sl_array,
    build: impl FnOnce(&Graph<'_>, DType) -> Result<Arc<Node>>,
) -> Result<()> {
    let out = out_slot(out)?;
    let t = parse_dtype(dtype)?;
    let rt = runtime()?;
    let a = build(&graph(&rt, site), t)?;
    put(&rt, out, a)
}

/// `n` evenly spaced values from `start` to `stop` (f32 or f64), computed in `dtype` as
/// `start + i * step`. With `endpoint` nonzero, `step = (stop - start) / (n - 1)` and the
/// last value is exactly `stop`; otherwise `step = (stop - start) / n` and `stop` is left
/// out. `n` may be 0; `start` and `stop` must be finite.
#[unsafe(no_mangle)]
pub extern "C" fn sl_linspace(
    dtype: sl_dtype,
    start: f64,
    stop: f64,
    n: i64,
    endpoint: i32,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_linspace", |site| generated(site, dtype, out, |g, t| g.linspace(t, start, stop, n, endpoint != 0)))
}

/// The vector `start, start + step, ...` of the values before `stop` (after it for a
/// negative step), of `dtype`, computed as `start + i * step`. Its length is numpy's:
/// `max(0, ceil((stop - start) / step))` evaluated in double precision. `step` must be
/// nonzero and every argument finite; an integer `dtype` needs integer arguments (as
/// `sl_arange_i`).
#[unsafe(no_mangle)]
pub extern "C" fn sl_arange(dtype: sl_dtype, start: f64, stop: f64, step: f64, out: *mut sl_array) -> sl_status {
    boundary!("sl_arange", |site| generated(site, dtype, out, |g, t| g.arange(t, start, stop, step)))
}

/// `sl_arange` with integer arguments: the length is computed exactly, and the values in
/// `dtype`'s wrapping arithmetic, so a u8 range may step down (`step` -1). The first and
/// last values must be representable in `dtype`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_arange_i(dtype: sl_dtype, start: i64, stop: i64, step: i64, out: *mut sl_array) -> sl_status {
    boundary!("sl_arange_i", |site| generated(site, dtype, out, |g, t| g.arange_int(t, start, stop, step)))
}

/// The (n + |k|) x (n + |k|) matrix with the vector `v` (length n) on diagonal `k` (above
/// the main diagonal for k > 0, below for k < 0) and zeros elsewhere.
#[unsafe(no_mangle)]
pub extern "C" fn sl_diag_matrix(v: sl_array, k: i64, out: *mut sl_array) -> sl_status {
    boundary!("sl_diag_matrix", |site| from_array(site, v, out, |g, v| g.diag_matrix(v, k)))
}

/// Diagonal `k` of the m x n matrices in the first two dimensions of `a` (rank 2 or more),
/// batched over the others: shape `[len, dims 2...]`. `-m <= k <= n` or the call fails
/// (k = n or -m gives an empty diagonal). A view (every `m + 1`-th element).
#[unsafe(no_mangle)]
pub extern "C" fn sl_diagonal(a: sl_array, k: i64, out: *mut sl_array) -> sl_status {
    boundary!("sl_diagonal", |site| from_array(site, a, out, |g, a| g.diagonal(a, k)))
}

/// `a` with every element below diagonal `k` of the matrices in its first two dimensions
/// set to zero (kept: column - row >= k), batched over the other dimensions. Any `k`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_triu(a: sl_array, k: i64, out: *mut sl_array) -> sl_status {
    boundary!("sl_triu", |site| from_array(site, a, out, |g, a| g.triangle(a, k, true)))
}

/// `a` with every element above diagonal `k` set to zero (kept: column - row <= k), as
/// `sl_triu`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_tril(a: sl_array, k: i64, out: *mut sl_array) -> sl_status {
    boundary!("sl_tril", |site| from_array(site, a, out, |g, a| g.triangle(a, k, false)))
}

/// Each element of `a` repeated `count` (>= 0) times along `dim`, in place (APL's
/// replicate, numpy's `repeat`): `[1, 2]` with count 2 gives `[1, 1, 2, 2]`. A view.
#[unsafe(no_mangle)]
pub extern "C" fn sl_repeat(a: sl_array, count: i64, dim: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_repeat", |site| from_array(site, a, out, |g, a| g.repeat(a, count, parse_dim(dim, "sl_repeat")?)))
}

/// Element `i` of `a` along `dim` repeated `counts[i]` times (`counts`: an integer vector
/// with one non-negative entry per element of that dimension). The result's size depends
/// on the counts' values, so this call evaluates `counts` and waits for them (as `sl_read`
/// would); `a` itself stays deferred.
#[unsafe(no_mangle)]
pub extern "C" fn sl_repeat_counts(a: sl_array, counts: sl_array, dim: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_repeat_counts", |site| {
        let out = out_slot(out)?;
        super::outside_macro("sl_repeat_counts")?;
        let d = parse_dim(dim, "sl_repeat_counts")?;
        let rt = runtime()?;
        let (a, counts) = (node(&rt, a)?, node(&rt, counts)?);
        let r = graph(&rt, site).repeat_counts(&a, &counts, d)?;
        put(&rt, out, r)
    })
}

/// Coordinate arrays of the grid spanned by the `n` vectors (rank 0 or 1, any types):
/// `outs[k]` holds vector `k` stretched over the grid, keeping its type. With
/// `SL_INDEXING_IJ` the grid's dimension d has the length of vector d; with
/// `SL_INDEXING_XY` the first two swap (numpy's default). Each output is a broadcast view.
#[unsafe(no_mangle)]
pub extern "C" fn sl_meshgrid(
    vectors: *const sl_array,
    n: i32,
    indexing: sl_indexing,
    outs: *mut sl_array,
) -> sl_status {
    boundary!("sl_meshgrid", |site| {
        if outs.is_null() {
            bail!(InvalidArgument, "outs is NULL");
        }
        let count = n.max(0) as usize;
        // SAFETY: non-null; the application passes room for `n` handles.
        let outs = unsafe { std::slice::from_raw_parts_mut(outs, count) };
        outs.fill(0);
        let indexing = match indexing {
            SL_INDEXING_IJ => Indexing::Ij,
            SL_INDEXING_XY => Indexing::Xy,
            _ => bail!(InvalidArgument, "{indexing} is not an sl_indexing"),
        };
        let rt = runtime()?;
        let vs = nodes(&rt, vectors, n)?;
        let grids = graph(&rt, site).meshgrid(&vs, indexing)?;
        for (slot, g) in outs.iter_mut().zip(grids) {
            put(&rt, slot, g)?;
        }
        Ok(())
    })
}

/// `a` reversed along each of the `n` dimensions `dims` (each listed once; `n` = 0
/// returns `a` unchanged). A view (a section with stride -1).
#[unsafe(no_mangle)]
pub extern "C" fn sl_flip(a: sl_array, dims: *const i32, n: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_flip", |site| {
        from_array(site, a, out, |g, a| {
            let ds = slice(dims, n, "dims")?.iter().map(|&d| parse_dim(d, "sl_flip")).collect::<Result<Vec<_>>>()?;
            g.flip(a, &ds)
        })
    })
}

/// `a` without dimension `dim`, which must have size 1; with `dim` = -1, without every
/// dimension of size 1.
#[unsafe(no_mangle)]
pub extern "C" fn sl_squeeze(a: sl_array, dim: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_squeeze", |site| {
        from_array(site, a, out, |g, a| {
            let d = if dim == -1 { None } else { Some(parse_dim(dim, "sl_squeeze")?) };
            g.squeeze(a, d)
        })
    })
}

/// `a` with a new dimension of size 1 inserted at position `dim` (0 to the rank of `a`).
#[unsafe(no_mangle)]
pub extern "C" fn sl_expand_dims(a: sl_array, dim: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_expand_dims", |site| {
        from_array(site, a, out, |g, a| g.expand_dims(a, parse_dim(dim, "sl_expand_dims")?))
    })
}

/// `a` with dimension `from` moved to position `to`, the other dimensions keeping their
/// order. A view.
#[unsafe(no_mangle)]
pub extern "C" fn sl_moveaxis(a: sl_array, from: i32, to: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_moveaxis", |site| {
        from_array(site, a, out, |g, a| g.moveaxis(a, parse_dim(from, "sl_moveaxis")?, parse_dim(to, "sl_moveaxis")?))
    })
}
