//! Data movement: views (zero-copy where the source is computed, otherwise folded into
//! the consuming kernel), concatenation, gather and scatter.

use super::error::boundary;
use super::types::*;
use super::{
    boundary as parse_boundary, graph, index_policy, node, nodes, out_slot, parse_dim, parse_shape, put, runtime,
    scatter_mode, slice,
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

/// `out[i] = src[index[0][i], ..., index[r-1][i]]` with one index array per dimension of
/// `src` (`n` = rank of `src`; they broadcast together). Out-of-range indices are clamped
/// to the edge: this is `sl_gather_with` under `SL_INDEX_CLAMP`, and takes the same
/// indices (integers, or f32/f64 floored). A gather that takes whole leading slices (the
/// first dimensions indexed by `sl_iota` along themselves, the others by integer indices
/// constant along them, as in `x[:, idx]`) copies each contiguous slice at once when it
/// is not fused with other work.
#[unsafe(no_mangle)]
pub extern "C" fn sl_gather(src: sl_array, indices: *const sl_array, n: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_gather", |site| gather(site, src, indices, n, SL_INDEX_CLAMP, 0.0, out))
}

/// `sl_gather` with an index policy for indices out of range (`sl_index_policy`; `fill`
/// is the value `SL_INDEX_FILL` gives, converted to `src`'s type, which must hold it
/// exactly). Index arrays are integers, or f32/f64 floored (`floor(2.7)` is 2, `floor(-0.5)`
/// is -1: PeakStream's `gather_floor`); a NaN index is out of range on both sides (the
/// fill value, an error, and element 0 under clamp and wrap). Fused into the kernel
/// that consumes the result, like any element-wise op; under `SL_INDEX_ERROR` the indices
/// are also checked by a reduction before it.
#[unsafe(no_mangle)]
pub extern "C" fn sl_gather_with(
    src: sl_array,
    indices: *const sl_array,
    n: i32,
    policy: sl_index_policy,
    fill: f64,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_gather_with", |site| gather(site, src, indices, n, policy, fill, out))
}

fn gather(
    site: crate::ir::CallSite,
    src: sl_array,
    indices: *const sl_array,
    n: i32,
    policy: sl_index_policy,
    fill: f64,
    out: *mut sl_array,
) -> Result<()> {
    let out = out_slot(out)?;
    let policy = index_policy(policy)?;
    let rt = runtime()?;
    let src = node(&rt, src)?;
    let idx = nodes(&rt, indices, n)?;
    let g = graph(&rt, site).gather_with(&src, &idx, policy, fill)?;
    put(&rt, out, g)
}

/// `src` read along dimension `dim` at `index` (numpy's `take_along_axis`):
/// `out[.., i, ..] = src[.., index[.., i, ..], ..]` with `i` in dimension `dim`. `index`
/// (integers, or f32/f64 floored) has `src`'s lengths in the other dimensions, or 1 where
/// it broadcasts (and `src` may have 1 there too); the result has `index`'s length along
/// `dim`. Indices out of range as `policy` says (see `sl_gather_with`).
#[unsafe(no_mangle)]
pub extern "C" fn sl_take_along(
    src: sl_array,
    index: sl_array,
    dim: i32,
    policy: sl_index_policy,
    fill: f64,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_take_along", |site| {
        let out = out_slot(out)?;
        let d = parse_dim(dim, "sl_take_along")?;
        let policy = index_policy(policy)?;
        let rt = runtime()?;
        let (src, index) = (node(&rt, src)?, node(&rt, index)?);
        let t = graph(&rt, site).take_along(&src, &index, d, policy, fill)?;
        put(&rt, out, t)
    })
}

/// Linear interpolation of `src` (f32 or f64) along dimension `dim` at fractional
/// positions `pos` (any real type; 0 is the first element, 1 the second):
/// `out[.., i, ..] = src[.., k, ..] + w (src[.., k + 1, ..] - src[.., k, ..])` with
/// `k = floor(pos[.., i, ..])` and `w = pos - k`. `pos` broadcasts against `src` as
/// `sl_take_along`'s index does (a 1-D `src` is a table read at positions of any shape).
/// A position is in range from 0 to the length of `dim` less 1. Outside: `SL_INDEX_CLAMP`
/// gives the edge value (numpy's `interp`), `SL_INDEX_WRAP` interpolates periodically
/// (between the last element and the first), `SL_INDEX_FILL` gives `fill`,
/// `SL_INDEX_ERROR` poisons the result. A NaN position gives NaN under clamp and wrap
/// and is out of range under fill and error. Fused into the consuming kernel.
#[unsafe(no_mangle)]
pub extern "C" fn sl_interp1(
    src: sl_array,
    pos: sl_array,
    dim: i32,
    policy: sl_index_policy,
    fill: f64,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_interp1", |site| {
        let out = out_slot(out)?;
        let d = parse_dim(dim, "sl_interp1")?;
        let policy = index_policy(policy)?;
        let rt = runtime()?;
        let (src, pos) = (node(&rt, src)?, node(&rt, pos)?);
        let r = graph(&rt, site).interp(&src, &[(&pos, d)], policy, fill)?;
        put(&rt, out, r)
    })
}

/// Bilinear interpolation of `src` (f32 or f64) along dimensions `dim0` and `dim1` (they
/// differ) at fractional positions `pos0` and `pos1` (which broadcast together): `sl_interp1`
/// along each, with the same broadcasting, policies and NaN rule; a point is in range when
/// both its positions are.
#[unsafe(no_mangle)]
pub extern "C" fn sl_interp2(
    src: sl_array,
    pos0: sl_array,
    pos1: sl_array,
    dim0: i32,
    dim1: i32,
    policy: sl_index_policy,
    fill: f64,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_interp2", |site| {
        let out = out_slot(out)?;
        let d0 = parse_dim(dim0, "sl_interp2")?;
        let d1 = parse_dim(dim1, "sl_interp2")?;
        let policy = index_policy(policy)?;
        let rt = runtime()?;
        let (src, p0, p1) = (node(&rt, src)?, node(&rt, pos0)?, node(&rt, pos1)?);
        let r = graph(&rt, site).interp(&src, &[(&p0, d0), (&p1, d1)], policy, fill)?;
        put(&rt, out, r)
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
