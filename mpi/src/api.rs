//! The C API of libsluice_mpi (include/sluice_mpi.h is generated from this file).
//!
//! Every function returns an `sl_status`; a failure's message is in `sl_mpi_last_error`
//! (this library's own, beside Sluice's `sl_last_error`). Calls marked collective must be
//! made by every rank of the communicator, in the same order, with the same global shapes
//! and options; the others are local.
#![allow(non_camel_case_types)]
// The exports take C pointers, checked for null before use: they are the C ABI, not unsafe Rust.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

use std::ffi::c_char;

use crate::context::{self, Context};
use crate::error::{Result, bail, boundary};
use crate::graph::MapOp;
use crate::ops;
use crate::sluice_sys::{
    SL_BOUNDARY_WRAP, SL_ERR_INVALID_ARGUMENT, SL_MAX_RANK, sl_array, sl_dtype, sl_error_info, sl_status,
    sl_status_name,
};

/// A distributed array: an opaque handle (0 is the null handle). Generational like
/// `sl_array`: a released handle, or one from before `sl_mpi_finalize`, fails with
/// `SL_ERR_INVALID_HANDLE`; an `sl_array` is not an `sl_mpi_array`, nor the reverse.
pub type sl_mpi_array = u64;

/// How the ranks combine their partial results of a floating-point reduction or dot
/// product (`sl_mpi_reduce`, `sl_mpi_dot`). Integer results are exact in every order.
pub type sl_mpi_order = i32;

/// `dist` of a replicated array: every rank holds all of it.
pub const SL_MPI_REPLICATED: i32 = -1;

/// `root` of `sl_mpi_gather` that gives the whole array to every rank.
pub const SL_MPI_ALL_RANKS: i32 = -1;

/// `MPI_Iallreduce` of the ranks' partials where MPI has the operation (sums, products,
/// integer minima and maxima, any, all, counts), else as `SL_MPI_ORDER_RANKS`: the order of
/// combination is MPI's, so a float result may differ from one process's by rounding.
pub const SL_MPI_ORDER_FAST: sl_mpi_order = 0;

/// The partials gathered to every rank and combined in rank order there: the same bits on
/// every rank and in every run with the same number of ranks.
pub const SL_MPI_ORDER_RANKS: sl_mpi_order = 1;

/// The operands gathered to every rank and reduced as one process reduces them: the bits
/// of the one-process result, at the cost of moving the whole operands.
pub const SL_MPI_ORDER_EXACT: sl_mpi_order = 2;

/// An MPI call failed; the message has MPI's error string.
pub const SL_MPI_ERR_MPI: sl_status = 100;

/// A communication did not complete within the timeout (`sl_mpi_set_timeout`): a rank
/// did not make the same call. The message names the operation. The library then stops
/// communicating (its requests are outstanding): only `sl_mpi_finalize` is left.
pub const SL_MPI_ERR_TIMEOUT: sl_status = 101;

/// The ranks made different collective calls, or passed different global shapes,
/// distributions or options. Reported on every rank, before anything is sent.
pub const SL_MPI_ERR_RANKS_DISAGREE: sl_status = 102;

/// Another rank failed in this collective call (its own status and message say why);
/// nothing was sent.
pub const SL_MPI_ERR_REMOTE: sl_status = 103;

/// What a distributed array is (`sl_mpi_get_info`).
#[repr(C)]
pub struct sl_mpi_info {
    pub dtype: sl_dtype,
    /// Number of dimensions, and the global shape in `dims[0..rank]`.
    pub rank: i32,
    pub dims: [i64; 8],
    /// The distributed dimension, or `SL_MPI_REPLICATED`.
    pub dist: i32,
    /// This rank's block along `dist`: elements `local_start .. local_start + local_count`
    /// (both 0 when replicated).
    pub local_start: i64,
    pub local_count: i64,
}

/// What the library has communicated since `sl_mpi_init` (`sl_mpi_get_stats`).
#[repr(C)]
pub struct sl_mpi_stats {
    /// Evaluation waves: rounds of communication of deferred operations.
    pub waves: u64,
    /// Point-to-point messages sent, and bytes sent in them and in all-to-alls.
    pub messages: u64,
    pub bytes: u64,
    /// Collective operations (reductions, gathers, all-to-alls, broadcasts).
    pub collectives: u64,
    /// The agreements between ranks (one small allreduce before communicating).
    pub agreements: u64,
    /// Local pieces started before waiting for a wave's messages (computed meanwhile).
    pub overlapped: u64,
    /// Seconds spent waiting for communications to complete (after posting them, and
    /// after starting the local pieces that need no message), and in the agreements
    /// (mostly waiting for the other ranks to arrive at the same call).
    pub wait_seconds: f64,
    pub agreement_seconds: f64,
}

/// A collective call that communicates at once: a bad out-pointer fails on every rank.
fn collective<T: Default>(name: &'static str, out: *mut T, f: impl FnOnce(&mut Context) -> Result<T>) -> sl_status {
    boundary(name, || {
        context::with(|ctx| {
            let slot = match out_handle(out) {
                Ok(slot) => slot,
                Err(e) => {
                    ctx.agree(name, &[format!("{name} (failed)")], Some(e.clone()))?;
                    return Err(e);
                }
            };
            *slot = f(ctx)?;
            Ok(())
        })
    })
}

fn out_handle<'a, T: Default>(out: *mut T) -> Result<&'a mut T> {
    if out.is_null() {
        bail!(SL_ERR_INVALID_ARGUMENT, "out is NULL");
    }
    // SAFETY: non-null pointer from the application to writable storage.
    let slot = unsafe { &mut *out };
    *slot = T::default();
    Ok(slot)
}

/// A deferred call: the library initialised, MPI running.
fn call<T: Default>(name: &'static str, out: *mut T, f: impl FnOnce(&mut Context) -> Result<T>) -> sl_status {
    boundary(name, || {
        let slot = out_handle(out)?;
        *slot = context::with(f)?;
        Ok(())
    })
}

/// Starts the library on the communicator whose Fortran handle is `comm` (collective over
/// it: the library duplicates it, so its messages never mix with the application's).
/// MPI must be initialised. From C, call `sl_mpi_init(MPI_Comm)` (an inline function of
/// this header); from Fortran, pass the `integer` communicator (`comm%MPI_VAL` with
/// `mpi_f08`). Fails with `SL_ERR_INVALID_STATE` before `MPI_Init`, after `MPI_Finalize`,
/// or when the library is initialised already; `SL_ERR_INVALID_ARGUMENT` for
/// `MPI_COMM_NULL` or an intercommunicator.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_init_fint(comm: i32) -> sl_status {
    boundary("sl_mpi_init", || context::init(comm))
}

/// Ends the library (collective): releases every distributed array and frees its
/// communicator. Call it before `MPI_Finalize`; after it, the library only releases its
/// arrays and reports `SL_ERR_INVALID_STATE`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_finalize() -> sl_status {
    boundary("sl_mpi_finalize", context::finalize)
}

/// This process's rank in the library's communicator, and the number of ranks. Either
/// pointer may be NULL.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_comm_rank(rank: *mut i32, size: *mut i32) -> sl_status {
    boundary("sl_mpi_comm_rank", || {
        context::with_local(|ctx| {
            // SAFETY: non-null pointers from the application to writable storage.
            unsafe {
                if !rank.is_null() {
                    *rank = ctx.rank();
                }
                if !size.is_null() {
                    *size = ctx.size();
                }
            }
            Ok(())
        })
    })
}

/// How long a communication may wait for the other ranks before it fails with
/// `SL_MPI_ERR_TIMEOUT` naming the operation (0: forever). The default is the environment
/// variable `SLUICE_MPI_TIMEOUT` (seconds), else 300 s. Local: each rank sets its own.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_set_timeout(seconds: f64) -> sl_status {
    boundary("sl_mpi_set_timeout", || {
        if !(seconds >= 0.0 && seconds.is_finite()) {
            bail!(SL_ERR_INVALID_ARGUMENT, "timeout {seconds} s is not a finite number >= 0");
        }
        context::with_local(|ctx| {
            ctx.timeout = (seconds > 0.0).then(|| std::time::Duration::from_secs_f64(seconds));
            Ok(())
        })
    })
}

/// Details of this thread's last failed `sl_mpi_*` call: status, message (which names the
/// rank) and function. Strings stay valid until the next failing call on the thread.
/// The call-site fields are 0 / NULL.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_last_error(info: *mut sl_error_info) -> sl_status {
    if info.is_null() {
        return SL_ERR_INVALID_ARGUMENT;
    }
    crate::error::with_last(|last| {
        let (status, message, function) = match last {
            Some((s, m, f)) => (s, m.as_ptr(), f.as_ptr()),
            None => (0, c"no sl_mpi call has failed on this thread".as_ptr(), c"".as_ptr()),
        };
        // SAFETY: non-null pointer from the application to writable storage.
        unsafe {
            *info = sl_error_info {
                status,
                message,
                function,
                call_pc: 0,
                call_file: std::ptr::null(),
                call_line: 0,
                origin_function: std::ptr::null(),
                origin_pc: 0,
                origin_file: std::ptr::null(),
                origin_line: 0,
            };
        }
    });
    0
}

/// The name of a status: this library's (`SL_MPI_ERR_*`) and Sluice's.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_status_name(status: sl_status, name: *mut *const c_char) -> sl_status {
    boundary("sl_mpi_status_name", || {
        if name.is_null() {
            bail!(SL_ERR_INVALID_ARGUMENT, "name is NULL");
        }
        let own = match status {
            SL_MPI_ERR_MPI => Some(c"SL_MPI_ERR_MPI"),
            SL_MPI_ERR_TIMEOUT => Some(c"SL_MPI_ERR_TIMEOUT"),
            SL_MPI_ERR_RANKS_DISAGREE => Some(c"SL_MPI_ERR_RANKS_DISAGREE"),
            SL_MPI_ERR_REMOTE => Some(c"SL_MPI_ERR_REMOTE"),
            _ => None,
        };
        match own {
            // SAFETY: `name` is writable (checked above).
            Some(s) => unsafe { *name = s.as_ptr() },
            // SAFETY: as above.
            None => crate::sluice_sys::check(unsafe { sl_status_name(status, name) })?,
        }
        Ok(())
    })
}

/// Counters of what the library communicated since `sl_mpi_init` (local).
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_get_stats(out: *mut sl_mpi_stats) -> sl_status {
    boundary("sl_mpi_get_stats", || {
        if out.is_null() {
            bail!(SL_ERR_INVALID_ARGUMENT, "out is NULL");
        }
        context::with_local(|ctx| {
            let s = ctx.stats;
            // SAFETY: non-null pointer from the application to writable storage.
            unsafe {
                *out = sl_mpi_stats {
                    waves: s.evaluations,
                    messages: s.messages,
                    bytes: s.bytes,
                    collectives: s.collectives,
                    agreements: s.agreements,
                    overlapped: s.overlapped,
                    wait_seconds: s.wait_seconds,
                    agreement_seconds: s.agreement_seconds,
                }
            };
            Ok(())
        })
    })
}

/// How many distributed-array handles are live on this rank (to check for leaks).
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_live_handles(out: *mut i64) -> sl_status {
    boundary("sl_mpi_live_handles", || {
        let slot = out_handle(out)?;
        *slot = context::with_local(|ctx| Ok(ctx.graph.live_handles() as i64))?;
        Ok(())
    })
}

/// The block distribution's rule: of `n` elements over `parts` ranks, rank `index` holds
/// elements `*start .. *start + *count`. The first `n mod parts` ranks hold `n / parts +
/// 1` each, the others `n / parts`, in rank order (with `n < parts` the last ranks hold
/// none). Needs no initialisation.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_block(n: i64, parts: i32, index: i32, start: *mut i64, count: *mut i64) -> sl_status {
    boundary("sl_mpi_block", || {
        if n < 0 {
            bail!(SL_ERR_INVALID_ARGUMENT, "n {n} is negative");
        }
        if parts < 1 || !(0..parts).contains(&index) {
            bail!(SL_ERR_INVALID_ARGUMENT, "index {index} is not one of {parts} parts");
        }
        if start.is_null() || count.is_null() {
            bail!(SL_ERR_INVALID_ARGUMENT, "start or count is NULL");
        }
        let (s, c) = crate::dist::block(n, parts, index);
        // SAFETY: non-null pointers from the application to writable storage.
        unsafe {
            *start = s;
            *count = c;
        }
        Ok(())
    })
}

/// Global shape `dims[0..rank]`, distribution `dist` (a dimension, or
/// `SL_MPI_REPLICATED`).
fn dims_arg<'a>(rank: i32, dims: *const i64) -> Result<&'a [i64]> {
    let n = ops::checked_len(rank, "rank")?;
    if n > SL_MAX_RANK {
        bail!(SL_ERR_INVALID_ARGUMENT, "rank {rank} is above SL_MAX_RANK ({SL_MAX_RANK})");
    }
    if n == 0 {
        return Ok(&[]);
    }
    if dims.is_null() {
        bail!(SL_ERR_INVALID_ARGUMENT, "dims is NULL");
    }
    // SAFETY: the application passes `rank` readable entries.
    Ok(unsafe { std::slice::from_raw_parts(dims, n) })
}

/// A distributed array of global shape `dims[0..rank]`, split along dimension `dist` (or
/// replicated: `SL_MPI_REPLICATED`), from each rank's part `local`: the block of rank r
/// along `dist` (`sl_mpi_block`), every other dimension whole; of a replicated array, all
/// of it (the same on every rank). Collective: the ranks check the type, global shape and
/// every part's shape together, so a wrong part fails on every rank. The array keeps its
/// own handle to `local`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_from_local(
    local: sl_array,
    rank: i32,
    dims: *const i64,
    dist: i32,
    out: *mut sl_mpi_array,
) -> sl_status {
    collective("sl_mpi_from_local", out, |ctx| {
        let dims = dims_arg(rank, dims);
        match dims {
            Ok(d) => ops::from_local(ctx, local, d, dist),
            Err(e) => {
                ctx.agree("sl_mpi_from_local", &["sl_mpi_from_local (failed)".into()], Some(e.clone()))?;
                Err(e)
            }
        }
    })
}

/// Rank `root`'s array `global` distributed over the ranks along `dist` (or replicated).
/// Collective; `global` is read on the root only (others may pass 0).
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_scatter(global: sl_array, root: i32, dist: i32, out: *mut sl_mpi_array) -> sl_status {
    collective("sl_mpi_scatter", out, |ctx| ops::scatter(ctx, global, root, dist))
}

/// The whole array as a Sluice array on rank `root`, or on every rank with
/// `SL_MPI_ALL_RANKS`; the other ranks get the null handle. Collective; evaluates `a`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_gather(a: sl_mpi_array, root: i32, out: *mut sl_array) -> sl_status {
    collective("sl_mpi_gather", out, |ctx| {
        ops::gather(ctx, a, if root == SL_MPI_ALL_RANKS { None } else { Some(root) })
    })
}

/// This rank's part of `a` as a Sluice array (a new handle, in the application's scope
/// like any other): its block, or all of a replicated array. Evaluates `a`: collective
/// when `a` has deferred communication (every rank must then read it too).
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_local(a: sl_mpi_array, out: *mut sl_array) -> sl_status {
    call("sl_mpi_local", out, |ctx| ops::local(ctx, a))
}

/// Does the deferred communication these arrays need now and starts their local work,
/// without waiting for it. Collective when any has deferred communication.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_eval(arrays: *const sl_mpi_array, n: i32) -> sl_status {
    boundary("sl_mpi_eval", || {
        let n = ops::checked_len(n, "n")?;
        if n > 0 && arrays.is_null() {
            bail!(SL_ERR_INVALID_ARGUMENT, "arrays is NULL");
        }
        let handles = if n == 0 {
            &[][..]
        } else {
            // SAFETY: the application passes `n` readable handles.
            unsafe { std::slice::from_raw_parts(arrays, n) }
        };
        context::with(|ctx| ops::eval(ctx, handles))
    })
}

/// What `a` is: type, global shape, distribution and this rank's block (local).
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_get_info(a: sl_mpi_array, out: *mut sl_mpi_info) -> sl_status {
    boundary("sl_mpi_get_info", || {
        if out.is_null() {
            bail!(SL_ERR_INVALID_ARGUMENT, "out is NULL");
        }
        context::with_local(|ctx| {
            let m = ctx.graph.meta(ctx.graph.lookup(a)?).clone();
            let (start, count) = m.block(ctx.size(), ctx.rank());
            let mut dims = [0i64; 8];
            dims[..m.dims.len()].copy_from_slice(&m.dims);
            // SAFETY: non-null pointer from the application to writable storage.
            unsafe {
                *out = sl_mpi_info {
                    dtype: m.dtype,
                    rank: m.dims.len() as i32,
                    dims,
                    dist: m.dist.map_or(SL_MPI_REPLICATED, |d| d as i32),
                    local_start: start,
                    local_count: count,
                }
            };
            Ok(())
        })
    })
}

/// A second handle to the same distributed array (released separately; local).
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_retain(a: sl_mpi_array, out: *mut sl_mpi_array) -> sl_status {
    boundary("sl_mpi_retain", || {
        let slot = out_handle(out)?;
        *slot = context::with_local(|ctx| {
            let id = ctx.graph.lookup(a)?;
            Ok(ctx.graph.handle(id))
        })?;
        Ok(())
    })
}

/// Releases a handle (local, but every rank must release alike: an array released on one
/// rank only and read later on the others leaves those waiting). Works after
/// `MPI_Finalize` too.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_release(a: sl_mpi_array) -> sl_status {
    boundary("sl_mpi_release", || context::with_local(|ctx| ctx.graph.release(a)))
}

/// Opens a scope on this thread: distributed-array handles created until the matching
/// `sl_mpi_scope_end` are released by it, except those moved out with `sl_mpi_keep` (as
/// Sluice's scopes, for distributed arrays; the two kinds of scope are separate).
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_scope_begin() -> sl_status {
    boundary("sl_mpi_scope_begin", || {
        crate::scope::begin();
        Ok(())
    })
}

/// Closes the innermost scope, releasing its handles that are still live (local; every
/// rank must release alike, as with `sl_mpi_release`).
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_scope_end() -> sl_status {
    boundary("sl_mpi_scope_end", || {
        let handles = crate::scope::end()?;
        // Handles released explicitly, or by sl_mpi_finalize, are gone already.
        context::with_local(|ctx| {
            for h in handles {
                if ctx.graph.is_live(h) {
                    ctx.graph.release(h)?;
                }
            }
            Ok(())
        })
        .or_else(|e| if e.status == crate::sluice_sys::SL_ERR_INVALID_STATE { Ok(()) } else { Err(e) })
    })
}

/// Moves `a` from the innermost scope to the enclosing one (out of all scopes if none).
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_keep(a: sl_mpi_array) -> sl_status {
    boundary("sl_mpi_keep", || {
        context::with_local(|ctx| ctx.graph.lookup(a).map(|_| ()))?;
        crate::scope::keep(a)
    })
}

/// `op(a)` element-wise (`sl_unary` codes). Local.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_unary(op: i32, a: sl_mpi_array, out: *mut sl_mpi_array) -> sl_status {
    call("sl_mpi_unary", out, |ctx| ops::map(ctx, MapOp::Unary(op), &[a]))
}

/// `op(a, b)` element-wise (`sl_binary` codes) with Sluice's broadcasting. Distributed
/// operands must be split along the same dimension, of the same length; a replicated
/// operand either has that dimension in full (each rank takes its block) or of size 1 or
/// not at all (broadcast). Local: no communication.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_binary(op: i32, a: sl_mpi_array, b: sl_mpi_array, out: *mut sl_mpi_array) -> sl_status {
    call("sl_mpi_binary", out, |ctx| ops::map(ctx, MapOp::Binary(op), &[a, b]))
}

/// `op(a, s)` for a weak scalar `s`, as `sl_binary_scalar`. Local.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_binary_scalar(op: i32, a: sl_mpi_array, s: f64, out: *mut sl_mpi_array) -> sl_status {
    call("sl_mpi_binary_scalar", out, |ctx| ops::map(ctx, MapOp::BinaryScalar(op, s), &[a]))
}

/// `op(s, b)` for a weak scalar `s`, as `sl_scalar_binary`. Local.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_scalar_binary(op: i32, s: f64, b: sl_mpi_array, out: *mut sl_mpi_array) -> sl_status {
    call("sl_mpi_scalar_binary", out, |ctx| ops::map(ctx, MapOp::ScalarBinary(op, s), &[b]))
}

/// `a` converted to `dtype`, as `sl_cast`. Local.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_cast(a: sl_mpi_array, dtype: sl_dtype, out: *mut sl_mpi_array) -> sl_status {
    call("sl_mpi_cast", out, |ctx| ops::map(ctx, MapOp::Cast(dtype), &[a]))
}

/// `sl_shift` of the global array: `out[.., i, ..] = a[.., i - offset, ..]` along `dim`,
/// positions outside taking `fill`, the nearest edge or wrapping around. Along the
/// distributed dimension a halo exchange (deferred): each rank receives exactly the
/// elements of its result that other ranks hold (for |offset| below the block length,
/// |offset| slices from one neighbour), and at evaluation the part that needs no message
/// is computed while they travel. Along another dimension, local.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_shift(
    a: sl_mpi_array,
    dim: i32,
    offset: i64,
    boundary: i32,
    fill: f64,
    out: *mut sl_mpi_array,
) -> sl_status {
    call("sl_mpi_shift", out, |ctx| ops::shift(ctx, a, dim, offset, boundary, fill))
}

/// Cyclic shift of the global array along `dim`, as `sl_rotate` (a halo exchange along the
/// distributed dimension, see `sl_mpi_shift`).
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_rotate(a: sl_mpi_array, dim: i32, offset: i64, out: *mut sl_mpi_array) -> sl_status {
    call("sl_mpi_rotate", out, |ctx| ops::shift(ctx, a, dim, offset, SL_BOUNDARY_WRAP, 0.0))
}

/// `sl_reduce` of the global array along `dim` (or everything with `SL_ALL_DIMS`). Over
/// the distributed dimension (or everything) the result is replicated, the same on every
/// rank, combined as `order` says (deferred); along another dimension it is local. Over
/// the distributed dimension: `SL_SUM`, `SL_PROD`, `SL_MINVAL`, `SL_MAXVAL`, `SL_MEAN`,
/// `SL_ANY`, `SL_ALL`, `SL_COUNT`, `SL_ARGMIN`, `SL_ARGMAX` (global indices),
/// `SL_NANSUM`, `SL_NANMIN`, `SL_NANMAX` and the norms; `SL_NANMEAN` is refused.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_reduce(
    op: i32,
    a: sl_mpi_array,
    dim: i32,
    order: sl_mpi_order,
    out: *mut sl_mpi_array,
) -> sl_status {
    call("sl_mpi_reduce", out, |ctx| ops::reduce(ctx, op, a, dim, order))
}

/// `sl_dot` of two arrays of the same global shape: a replicated rank-0 result, the same
/// on every rank, combined as `order` says (deferred). A replicated operand against a
/// distributed one takes its block of it.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_dot(
    a: sl_mpi_array,
    b: sl_mpi_array,
    order: sl_mpi_order,
    out: *mut sl_mpi_array,
) -> sl_status {
    call("sl_mpi_dot", out, |ctx| ops::dot(ctx, a, b, order))
}

/// `sl_matmul` of the global arrays. With `a` a matrix distributed by rows (dimension 0),
/// the result is distributed by rows too: each rank multiplies its rows of `a` by the
/// whole of `b`, which is gathered to every rank when it is distributed (deferred;
/// matrix x vector and matrix x matrix). Any other distribution of `a` is gathered first
/// and the result replicated.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_matmul(a: sl_mpi_array, b: sl_mpi_array, out: *mut sl_mpi_array) -> sl_status {
    call("sl_mpi_matmul", out, |ctx| ops::matmul(ctx, a, b))
}

/// The same global array distributed along `dist` (or replicated: `SL_MPI_REPLICATED`):
/// an all-to-all between the ranks (deferred), so work along the old distributed
/// dimension (a transpose, an FFT along it) becomes local. From replicated, local.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mpi_redistribute(a: sl_mpi_array, dist: i32, out: *mut sl_mpi_array) -> sl_status {
    call("sl_mpi_redistribute", out, |ctx| ops::redistribute(ctx, a, dist))
}
