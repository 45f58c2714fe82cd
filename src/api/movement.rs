//! Data movement: views (zero-copy where the source is computed, otherwise folded into
//! the consuming kernel), concatenation, gather and scatter.

use super::error::boundary;
use super::types::*;
use super::{
    boundary as parse_boundary, graph, node, nodes, out_slot, parse_dim, parse_shape, put, runtime, scatter_mode, slice,
};
use crate::front::Graph;
use crate::ir::{Node, Result, bail};
use std::sync::Arc;

/// Runs `f` on the node of `a` and stores the resulting array in `out` (cleared first,
/// so `f` checks the other arguments).
fn with_one(
    site: crate::ir::CallSite,
    a: sl_array,
    out: *mut sl_array,
    f: impl FnOnce(&Graph, &Arc<Node>) -> Result<Arc<Node>>,
) -> Result<()> {
    let out = out_slot(out)?;
    let rt = runtime()?;
    let a = node(&rt, a)?;
    let n = f(&graph(&rt, site), &a)?;
    put(&rt, out, n)
}

/// Per-dimension values of an array of rank `rank`.
fn per_dim<'a>(p: *const i64, rank: usize, what: &str) -> Result<&'a [i64]> {
    slice(p, rank as i32, what)
}

/// The same elements (column-major order) with shape `dims[0..rank]`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_reshape(a: sl_array, rank: i32, dims: *const i64, out: *mut sl_array) -> sl_status {
    boundary!("sl_reshape", |site| with_one(site, a, out, |g, a| g.reshape(a, parse_shape(rank, dims)?)))
}

/// Dimension `d` of the result is dimension `perm[d]` of `a` (`rank` entries).
#[unsafe(no_mangle)]
pub extern "C" fn sl_permute(a: sl_array, perm: *const i32, rank: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_permute", |site| {
        with_one(site, a, out, |g, a| {
            let p = slice(perm, rank, "perm")?;
            if p.iter().any(|&d| d < 0) {
                bail!(InvalidArgument, "perm {p:?} has a negative entry");
            }
            g.permute(a, &p.iter().map(|&d| d as usize).collect::<Vec<_>>())
        })
    })
}

/// Swaps the first two dimensions (a vector of length n becomes 1 x n).
#[unsafe(no_mangle)]
pub extern "C" fn sl_transpose(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_transpose", |site| with_one(site, a, out, |g, a| g.transpose(a)))
}

/// Elements `start[d] + i * stride[d]` for `i < count[d]` in each dimension (a negative
/// stride walks backwards). Each array has one entry per dimension of `a`. Every element
/// taken must lie inside `a` (computed without overflow: a section whose end does not fit
/// 64 bits is refused). A dimension taking one element may have any nonzero stride, and
/// one taking none any start and nonzero stride.
#[unsafe(no_mangle)]
pub extern "C" fn sl_section(
    a: sl_array,
    start: *const i64,
    count: *const i64,
    stride: *const i64,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_section", |site| {
        with_one(site, a, out, |g, a| {
            let r = a.shape.rank();
            g.section(a, per_dim(start, r, "start")?, per_dim(count, r, "count")?, per_dim(stride, r, "stride")?)
        })
    })
}

/// The slice at `index` of dimension `dim`, with that dimension removed.
#[unsafe(no_mangle)]
pub extern "C" fn sl_project(a: sl_array, dim: i32, index: i64, out: *mut sl_array) -> sl_status {
    boundary!("sl_project", |site| {
        with_one(site, a, out, |g, a| g.project(a, parse_dim(dim, "sl_project")?, index))
    })
}

/// `out[.., i, ..] = a[.., i - offset, ..]` along `dim`; positions that fall outside
/// take `fill` (`SL_BOUNDARY_FILL`), the nearest edge (`SL_BOUNDARY_CLAMP`) or wrap
/// around (`SL_BOUNDARY_WRAP`). Any offset is exact, `INT64_MIN` included.
#[unsafe(no_mangle)]
pub extern "C" fn sl_shift(
    a: sl_array,
    dim: i32,
    offset: i64,
    boundary: sl_boundary,
    fill: f64,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_shift", |site| {
        with_one(site, a, out, |g, a| g.shift(a, parse_dim(dim, "sl_shift")?, offset, parse_boundary(boundary)?, fill))
    })
}

/// Cyclic shift: `out[.., i, ..] = a[.., (i - offset) mod n, ..]` along `dim` (the
/// mathematical modulo, exact for any offset, `INT64_MIN` included).
#[unsafe(no_mangle)]
pub extern "C" fn sl_rotate(a: sl_array, dim: i32, offset: i64, out: *mut sl_array) -> sl_status {
    boundary!("sl_rotate", |site| {
        with_one(site, a, out, |g, a| g.shift(a, parse_dim(dim, "sl_rotate")?, offset, crate::ir::Boundary::Wrap, 0.0))
    })
}

/// `a` with `lo[d]` elements added before and `hi[d]` after each dimension, filled by
/// the boundary rule (constant `fill`, edge clamp, or wrap-around).
#[unsafe(no_mangle)]
pub extern "C" fn sl_pad(
    a: sl_array,
    lo: *const i64,
    hi: *const i64,
    boundary: sl_boundary,
    fill: f64,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_pad", |site| {
        with_one(site, a, out, |g, a| {
            let r = a.shape.rank();
            g.pad(a, per_dim(lo, r, "lo")?, per_dim(hi, r, "hi")?, parse_boundary(boundary)?, fill)
        })
    })
}

/// `a` repeated `reps[d]` times along each dimension (`n` entries; more than the rank
/// adds dimensions).
#[unsafe(no_mangle)]
pub extern "C" fn sl_tile(a: sl_array, reps: *const i64, n: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_tile", |site| with_one(site, a, out, |g, a| g.tile(a, slice(reps, n, "reps")?)))
}

/// `a` stretched to shape `dims[0..rank]` (its size-1 and missing trailing dimensions).
#[unsafe(no_mangle)]
pub extern "C" fn sl_broadcast_to(a: sl_array, rank: i32, dims: *const i64, out: *mut sl_array) -> sl_status {
    boundary!("sl_broadcast_to", |site| with_one(site, a, out, |g, a| g.broadcast_to(a, parse_shape(rank, dims)?)))
}

/// The `n` arrays joined along `dim` (other dimensions must match).
#[unsafe(no_mangle)]
pub extern "C" fn sl_concat(arrays: *const sl_array, n: i32, dim: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_concat", |site| {
        let out = out_slot(out)?;
        let d = parse_dim(dim, "sl_concat")?;
        let rt = runtime()?;
        let parts = nodes(&rt, arrays, n)?;
        let c = graph(&rt, site).concat(&parts, d)?;
        put(&rt, out, c)
    })
}

/// `out[i] = src[index[0][i], ..., index[r-1][i]]` with one integer index array per
/// dimension of `src` (`n` = rank of `src`; they broadcast together). Out-of-range
/// indices are clamped to the edge. A gather that takes whole leading slices (the first
/// dimensions indexed by `sl_iota` along themselves, the others by indices constant
/// along them, as in `x[:, idx]`) copies each contiguous slice at once when it is not
/// fused with other work.
#[unsafe(no_mangle)]
pub extern "C" fn sl_gather(src: sl_array, indices: *const sl_array, n: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_gather", |site| {
        let out = out_slot(out)?;
        let rt = runtime()?;
        let src = node(&rt, src)?;
        let idx = nodes(&rt, indices, n)?;
        let g = graph(&rt, site).gather(&src, &idx)?;
        put(&rt, out, g)
    })
}

/// A copy of `dst` with `values[i]` written at `(index[0][i], ..., index[r-1][i])`,
/// combined by `mode`; elements not written keep their value, and positions with an
/// out-of-range index are dropped. With `SL_SCATTER_REPLACE` the value from the highest
/// source position (column-major) wins.
#[unsafe(no_mangle)]
pub extern "C" fn sl_scatter(
    dst: sl_array,
    indices: *const sl_array,
    n: i32,
    values: sl_array,
    mode: sl_scatter_mode,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_scatter", |site| {
        let out = out_slot(out)?;
        let m = scatter_mode(mode)?;
        let rt = runtime()?;
        let (dst, values) = (node(&rt, dst)?, node(&rt, values)?);
        let idx = nodes(&rt, indices, n)?;
        let s = graph(&rt, site).scatter(&dst, &idx, &values, m)?;
        put(&rt, out, s)
    })
}
