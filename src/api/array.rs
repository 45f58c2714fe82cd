//! Creating, reading, querying and releasing arrays; scopes; evaluation control.

use std::os::raw::c_void;
use std::sync::Arc;

use super::error::boundary;
use super::types::*;
use super::{
    graph, lookup, node, nodes, out_slot, outside_macro, parse_dim, parse_dtype, parse_shape, put, runtime, write_out,
};
use crate::front::host::read_into;
use crate::front::{HostOrder, scope};
use crate::ir::{CallSite, DType, Node, Result, Shape, bail};

fn order(layout: sl_layout) -> Result<HostOrder> {
    Ok(match layout {
        SL_COL_MAJOR => HostOrder::ColumnMajor,
        SL_ROW_MAJOR => HostOrder::RowMajor,
        _ => bail!(InvalidArgument, "{layout} is not an sl_layout"),
    })
}

/// A new array of `dtype` and shape `dims[0..rank]`, holding a copy of `data`
/// (`bytes` long, elements in `layout` order). The data is copied before the call returns.
#[unsafe(no_mangle)]
pub extern "C" fn sl_create(
    dtype: sl_dtype,
    rank: i32,
    dims: *const i64,
    layout: sl_layout,
    data: *const c_void,
    bytes: usize,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_create", |site| {
        let out = out_slot(out)?;
        outside_macro("sl_create")?;
        let (t, s, o) = (parse_dtype(dtype)?, parse_shape(rank, dims)?, order(layout)?);
        let data: &[u8] = if bytes == 0 {
            &[]
        } else if data.is_null() {
            bail!(InvalidArgument, "data is NULL");
        } else {
            // SAFETY: the caller promises `bytes` readable bytes at `data`.
            unsafe { std::slice::from_raw_parts(data as *const u8, bytes) }
        };
        let rt = runtime()?;
        let n = graph(&rt, site).from_host(t, s, data, o)?;
        put(&rt, out, n)
    })
}

/// A new array with every element equal to `value` (converted to `dtype`; a value the
/// type cannot hold exactly is an error).
#[unsafe(no_mangle)]
pub extern "C" fn sl_constant(
    dtype: sl_dtype,
    rank: i32,
    dims: *const i64,
    value: f64,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_constant", |site| {
        let out = out_slot(out)?;
        let (t, s) = (parse_dtype(dtype)?, parse_shape(rank, dims)?);
        let rt = runtime()?;
        let n = graph(&rt, site).constant(t, s, value)?;
        put(&rt, out, n)
    })
}

/// A rank-0 array holding `value`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_scalar(dtype: sl_dtype, value: f64, out: *mut sl_array) -> sl_status {
    boundary!("sl_scalar", |site| {
        let out = out_slot(out)?;
        let t = parse_dtype(dtype)?;
        let rt = runtime()?;
        let n = graph(&rt, site).constant(t, Shape::SCALAR, value)?;
        put(&rt, out, n)
    })
}

/// A new array whose elements are their index along dimension `dim`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_iota(dtype: sl_dtype, rank: i32, dims: *const i64, dim: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_iota", |site| {
        let out = out_slot(out)?;
        let (t, s) = (parse_dtype(dtype)?, parse_shape(rank, dims)?);
        let d = parse_dim(dim, "sl_iota")?;
        let rt = runtime()?;
        let n = graph(&rt, site).iota(t, s, d)?;
        put(&rt, out, n)
    })
}

/// A `rows` x `cols` array with ones on the diagonal and zeros elsewhere.
#[unsafe(no_mangle)]
pub extern "C" fn sl_identity(dtype: sl_dtype, rows: i64, cols: i64, out: *mut sl_array) -> sl_status {
    boundary!("sl_identity", |site| {
        let out = out_slot(out)?;
        let s = parse_shape(2, [rows, cols].as_ptr())?;
        let t = parse_dtype(dtype)?;
        let rt = runtime()?;
        let n = graph(&rt, site).identity(t, s.dim(0), s.dim(1))?;
        put(&rt, out, n)
    })
}

/// The body of the calls that copy an array out (`call` is its name): the value of `a`
/// (or of what `which` makes of its node) into the `bytes` bytes at `dst`, in `layout`.
pub(crate) fn copy_out(
    call: &str,
    site: CallSite,
    a: sl_array,
    layout: sl_layout,
    dst: *mut c_void,
    bytes: usize,
    which: impl FnOnce(&Arc<Node>) -> Arc<Node>,
) -> Result<()> {
    outside_macro(call)?;
    let o = order(layout)?;
    let rt = runtime()?;
    let n = which(&node(&rt, a)?);
    let dst: &mut [u8] = if bytes == 0 {
        &mut []
    } else if dst.is_null() {
        bail!(InvalidArgument, "dst is NULL");
    } else {
        // SAFETY: the caller promises `bytes` writable bytes at `dst`.
        unsafe { std::slice::from_raw_parts_mut(dst as *mut u8, bytes) }
    };
    read_into(&graph(&rt, site), &n, dst, o)
}

/// Copies the array's elements into `dst` (`bytes` long) in `layout` order, computing
/// them first. The only call that waits for results.
#[unsafe(no_mangle)]
pub extern "C" fn sl_read(a: sl_array, layout: sl_layout, dst: *mut c_void, bytes: usize) -> sl_status {
    boundary!("sl_read", |site| copy_out("sl_read", site, a, layout, dst, bytes, Arc::clone))
}

/// A second handle to the same array (released separately).
#[unsafe(no_mangle)]
pub extern "C" fn sl_retain(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_retain", |_site| {
        let out = out_slot(out)?;
        let rt = runtime()?;
        let n = node(&rt, a)?;
        put(&rt, out, n)
    })
}

/// Releases a handle. The array's memory goes when no handle or pending work needs it.
#[unsafe(no_mangle)]
pub extern "C" fn sl_release(a: sl_array) -> sl_status {
    boundary!("sl_release", |_site| runtime()?.handles.remove(a))
}

/// The number of dimensions.
#[unsafe(no_mangle)]
pub extern "C" fn sl_rank(a: sl_array, rank: *mut i32) -> sl_status {
    boundary!("sl_rank", |_site| write_out(rank, "rank", lookup(a)?.shape.rank() as i32))
}

/// The dimensions, into `dims[0..rank]`; `capacity` is the length of `dims`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_shape(a: sl_array, dims: *mut i64, capacity: i32) -> sl_status {
    boundary!("sl_shape", |_site| {
        let n = lookup(a)?;
        let r = n.shape.rank();
        if (capacity as i64) < r as i64 {
            bail!(InvalidArgument, "capacity {capacity} is less than the rank {r}");
        }
        if r > 0 && dims.is_null() {
            bail!(InvalidArgument, "dims is NULL");
        }
        for (d, &size) in n.shape.dims().iter().enumerate() {
            // SAFETY: `dims` has at least `r` entries.
            unsafe { *dims.add(d) = size as i64 };
        }
        Ok(())
    })
}

/// The element type.
#[unsafe(no_mangle)]
pub extern "C" fn sl_get_dtype(a: sl_array, out: *mut sl_dtype) -> sl_status {
    boundary!("sl_get_dtype", |_site| {
        let n = lookup(a)?;
        let code = DType::ALL.iter().position(|&t| t == n.dtype).expect("every dtype has a code") as sl_dtype;
        write_out(out, "out", code)
    })
}

/// The number of elements.
#[unsafe(no_mangle)]
pub extern "C" fn sl_numel(a: sl_array, out: *mut i64) -> sl_status {
    boundary!("sl_numel", |_site| write_out(out, "out", lookup(a)?.shape.numel() as i64))
}

/// How many handles are live (to check for leaks).
#[unsafe(no_mangle)]
pub extern "C" fn sl_live_handles(out: *mut i64) -> sl_status {
    boundary!("sl_live_handles", |_site| write_out(out, "out", runtime()?.handles.live() as i64))
}

/// Opens a scope on this thread: handles created until the matching `sl_scope_end` are
/// released by it, except those moved out with `sl_keep`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_scope_begin() -> sl_status {
    boundary!("sl_scope_begin", |_site| {
        scope::begin();
        Ok(())
    })
}

/// Closes the innermost scope, releasing its handles that are still live. Inside a macro
/// section being recorded, a scope begun before the section cannot be closed
/// (`SL_ERR_INVALID_STATE`; the recording is unaffected).
#[unsafe(no_mangle)]
pub extern "C" fn sl_scope_end() -> sl_status {
    boundary!("sl_scope_end", |_site| {
        let handles = scope::end()?;
        let rt = runtime()?;
        for h in handles {
            // Handles released explicitly inside the scope are already gone.
            let _ = rt.handles.remove(h);
        }
        Ok(())
    })
}

/// Moves `a` from the innermost scope to the enclosing one (out of all scopes if none).
#[unsafe(no_mangle)]
pub extern "C" fn sl_keep(a: sl_array) -> sl_status {
    boundary!("sl_keep", |_site| {
        lookup(a)?;
        scope::keep(a)
    })
}

/// Takes `a` out of every scope on this thread: no `sl_scope_end` releases it, only
/// `sl_release`. For libraries built on Sluice that hold arrays across their callers'
/// scopes (libsluice_mpi holds each rank's part of a distributed array this way). A
/// handle in no scope is left as it is. Not allowed while a macro section is recording
/// (`SL_ERR_INVALID_STATE`): the section's arrays are released with it.
#[unsafe(no_mangle)]
pub extern "C" fn sl_unscope(a: sl_array) -> sl_status {
    boundary!("sl_unscope", |_site| {
        outside_macro("sl_unscope")?;
        lookup(a)?;
        scope::unscope(a);
        Ok(())
    })
}

/// Starts computing these arrays now, without waiting.
#[unsafe(no_mangle)]
pub extern "C" fn sl_eval(arrays: *const sl_array, n: i32) -> sl_status {
    boundary!("sl_eval", |_site| {
        outside_macro("sl_eval")?;
        let rt = runtime()?;
        let ns = nodes(&rt, arrays, n)?;
        rt.sched.flush(&ns);
        Ok(())
    })
}

/// Tells the runtime `a` will be read soon, so it starts computing it.
#[unsafe(no_mangle)]
pub extern "C" fn sl_hint_read(a: sl_array) -> sl_status {
    boundary!("sl_hint_read", |_site| {
        outside_macro("sl_hint_read")?;
        let rt = runtime()?;
        let n = node(&rt, a)?;
        rt.sched.flush(&[n]);
        Ok(())
    })
}

/// Computes everything pending and waits until all work has finished.
#[unsafe(no_mangle)]
pub extern "C" fn sl_sync() -> sl_status {
    boundary!("sl_sync", |_site| {
        outside_macro("sl_sync")?;
        runtime()?.sched.sync();
        Ok(())
    })
}
