//! Assignment into part of an array (a section, a mask, indexed elements). The
//! destination handle keeps its value and names the new version afterwards.

use super::error::boundary;
use super::types::*;
use super::{graph, lookup, node, nodes, runtime, scatter_mode, slice};
use crate::front::assign::SectionSpec;
use crate::front::{Graph, scope};
use crate::ir::{Node, Result, bail};
use std::sync::Arc;

/// Points `dst` at the new version `f` makes of its array. Inside a recording macro
/// section only arrays the section made may be assigned into: a replay skips the
/// section's calls, so it could not point a handle from outside at a new version.
fn assign(
    site: crate::ir::CallSite,
    dst: sl_array,
    f: impl FnOnce(&Graph, &Arc<Node>) -> Result<Arc<Node>>,
) -> Result<()> {
    let rt = runtime()?;
    let old = node(&rt, dst)?;
    if let Some(name) = crate::sched::macros::recording_name()
        && !scope::made_in_section(dst)
    {
        bail!(
            InvalidState,
            "assigning into an array made outside macro '{name}' while it records is not allowed (a replay would \
             skip it); assign into a copy made inside the section and declare it as an output"
        );
    }
    let new = f(&graph(&rt, site), &old)?;
    rt.handles.replace(dst, new)
}

/// The section of an array of rank `rank` that `start`, `count` and `stride` describe.
fn section<'a>(rank: usize, start: *const i64, count: *const i64, stride: *const i64) -> Result<SectionSpec<'a>> {
    let r = rank as i32;
    Ok(SectionSpec {
        start: slice(start, r, "start")?,
        count: slice(count, r, "count")?,
        stride: slice(stride, r, "stride")?,
    })
}

/// Sets the section of `dst` with elements `start[d] + i * stride[d]` for `i < count[d]`
/// (as `sl_section`; a negative stride walks backwards) to `values`, which broadcast to
/// the section's shape. A stride of 0 fixes dimension `d` at `start[d]` and removes it
/// from the section's shape (a projection, Fortran's `u(3, :)`); its count must be 1.
///
/// Arrays are values: `dst` keeps its handle value and names a new version of the
/// array; other handles to the old version (`sl_retain`, views) keep the old values.
/// The handle is not returned through a pointer because it does not change, so copies
/// of it in the application (and its scope) stay valid, as a Fortran variable does
/// across `u(2:n-1) = ...`. When nothing else can see the old version (no other handle,
/// no pending work or view reading it) the new version is written into its memory:
/// only the section is written, and the expression computing `values` is fused into
/// that kernel, so a loop updating an interior section does not copy the array.
///
/// Refused at the call, with nothing changed: a section leaving the array, `values`
/// that do not broadcast to it, and values of a type that does not convert to `dst`'s
/// without loss (the promotion table: f64 or i64 into i32, f64 into f32, complex into
/// real; cast first). An empty section leaves `dst` as it is.
#[unsafe(no_mangle)]
pub extern "C" fn sl_assign_section(
    dst: sl_array,
    start: *const i64,
    count: *const i64,
    stride: *const i64,
    values: sl_array,
) -> sl_status {
    boundary!("sl_assign_section", |site| {
        let v = lookup(values)?;
        assign(site, dst, |g, d| g.assign_section(d, &section(d.shape.rank(), start, count, stride)?, &v))
    })
}

/// `sl_assign_section` of one value, which must be exactly representable in `dst`'s
/// type (2.5 into an integer array is refused).
#[unsafe(no_mangle)]
pub extern "C" fn sl_assign_section_scalar(
    dst: sl_array,
    start: *const i64,
    count: *const i64,
    stride: *const i64,
    value: f64,
) -> sl_status {
    boundary!("sl_assign_section_scalar", |site| {
        assign(site, dst, |g, d| g.assign_section_scalar(d, &section(d.shape.rank(), start, count, stride)?, value))
    })
}

/// Sets the elements of `dst` where `mask` (bool, of `dst`'s shape) is true to
/// `values` (broadcast to `dst`'s shape): `where (mask) dst = values`. The handle names
/// the new version as for `sl_assign_section`; the select is fused with the expression
/// computing `values`, and the whole array is written (a new array per call). Types
/// convert as for `sl_assign_section`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_assign_where(dst: sl_array, mask: sl_array, values: sl_array) -> sl_status {
    boundary!("sl_assign_where", |site| {
        let rt = runtime()?;
        let (m, v) = (node(&rt, mask)?, node(&rt, values)?);
        assign(site, dst, |g, d| g.assign_where(d, &m, &v))
    })
}

/// `sl_assign_where` of one value, exactly representable in `dst`'s type.
#[unsafe(no_mangle)]
pub extern "C" fn sl_assign_where_scalar(dst: sl_array, mask: sl_array, value: f64) -> sl_status {
    boundary!("sl_assign_where_scalar", |site| {
        let m = lookup(mask)?;
        assign(site, dst, |g, d| g.assign_where_scalar(d, &m, value))
    })
}

/// Writes `values[i]` at element `(index[0][i], ..., index[n-1][i])` of `dst`, combined
/// with what is there by `mode` (`SL_SCATTER_REPLACE`, `_ADD`, `_MIN`, `_MAX`; as
/// `sl_scatter`: out-of-range positions are dropped, and among values landing on one
/// element with replace, the highest source position wins): `x[idx] = v`,
/// `x[idx] += v`. The handle names the new version as for `sl_assign_section` (the
/// array is copied, then written). Types convert as for `sl_assign_section`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_assign_indexed(
    dst: sl_array,
    indices: *const sl_array,
    n: i32,
    values: sl_array,
    mode: sl_scatter_mode,
) -> sl_status {
    boundary!("sl_assign_indexed", |site| {
        let m = scatter_mode(mode)?;
        let rt = runtime()?;
        let (idx, v) = (nodes(&rt, indices, n)?, node(&rt, values)?);
        assign(site, dst, |g, d| g.assign_indexed(d, &idx, &v, m))
    })
}
