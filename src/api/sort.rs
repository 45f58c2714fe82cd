//! Sorting and searching along a dimension, and the ops whose result size depends on the
//! data. Every one orders elements the same way: by value, -0 equal to +0, every NaN
//! after every number in both directions (NaNs equal to each other); sorts are stable
//! (equal elements keep their order). Complex arrays have no order and are refused
//! (`SL_ERR_DTYPE_MISMATCH`).
//!
//! `sl_nonzero`, `sl_compress` and `sl_unique` give arrays whose length depends on the
//! values: the call computes that length before it returns, so it waits for the work its
//! input depends on (as a read does), and it is refused inside a recording macro
//! section (`SL_ERR_INVALID_STATE`). Everything else is deferred like any other call.

use super::error::boundary;
use super::types::*;
use super::{graph, node, out_slot, outside_macro, parse_dim, put, runtime};
use crate::ir::{Result, bail};

fn descending(order: sl_sort_order) -> Result<bool> {
    match order {
        SL_ASCENDING => Ok(false),
        SL_DESCENDING => Ok(true),
        _ => bail!(InvalidArgument, "order is {order}, not SL_ASCENDING or SL_DESCENDING"),
    }
}

/// Every line of `a` along `dim` sorted in `order` (`SL_ASCENDING` or `SL_DESCENDING`),
/// stably; NaNs last in both orders. Any real or bool type. On a Vulkan GPU sorts, argsorts
/// and searchsorted run on the device; on a CPU-type Vulkan device (lavapipe) on the CPU
/// executor, much faster there (each adds to `sl_stats.host_steps`).
#[unsafe(no_mangle)]
pub extern "C" fn sl_sort(a: sl_array, dim: i32, order: sl_sort_order, out: *mut sl_array) -> sl_status {
    boundary!("sl_sort", |site| {
        let out = out_slot(out)?;
        let (dim, descending) = (parse_dim(dim, "sl_sort")?, descending(order)?);
        let rt = runtime()?;
        let a = node(&rt, a)?;
        put(&rt, out, graph(&rt, site).sort(&a, dim, descending)?)
    })
}

/// The positions (i64, 0-based) along `dim` that sort every line of `a` in `order`:
/// `out[..., i, ...]` is where the i-th element of the sorted line was. Stable: equal
/// elements keep their order, in both orders.
#[unsafe(no_mangle)]
pub extern "C" fn sl_argsort(a: sl_array, dim: i32, order: sl_sort_order, out: *mut sl_array) -> sl_status {
    boundary!("sl_argsort", |site| {
        let out = out_slot(out)?;
        let (dim, descending) = (parse_dim(dim, "sl_argsort")?, descending(order)?);
        let rt = runtime()?;
        let a = node(&rt, a)?;
        put(&rt, out, graph(&rt, site).argsort(&a, dim, descending)?)
    })
}

/// The `k` largest (`SL_DESCENDING`) or smallest (`SL_ASCENDING`) elements of every line
/// of `a` along `dim`, in that order, in `values` (a's shape with k along `dim`), and
/// their positions along `dim` (i64) in `indices`; of equal elements the earlier comes
/// first, and NaNs count as past every number either way. A k outside 0..=the length
/// of `dim` is refused (`SL_ERR_INVALID_ARGUMENT`).
#[unsafe(no_mangle)]
pub extern "C" fn sl_topk(
    a: sl_array,
    k: i64,
    dim: i32,
    order: sl_sort_order,
    values: *mut sl_array,
    indices: *mut sl_array,
) -> sl_status {
    boundary!("sl_topk", |site| {
        let (values, indices) = (out_slot(values)?, out_slot(indices)?);
        let (dim, largest) = (parse_dim(dim, "sl_topk")?, descending(order)?);
        let rt = runtime()?;
        let a = node(&rt, a)?;
        let (v, i) = graph(&rt, site).topk(&a, k, dim, largest)?;
        put(&rt, values, v)?;
        put(&rt, indices, i)
    })
}

/// For each element of `v`, where it would go in the ascending vector `sorted` to keep
/// it sorted (i64, shaped like v): the number of elements ordered before it, and with
/// `SL_SIDE_RIGHT` also those equal to it (numpy's `searchsorted`). A NaN goes after
/// every number. `sorted` and `v` are brought to one type first (the promotion table);
/// `sorted` must already be sorted (not checked).
#[unsafe(no_mangle)]
pub extern "C" fn sl_searchsorted(sorted: sl_array, v: sl_array, side: sl_side, out: *mut sl_array) -> sl_status {
    boundary!("sl_searchsorted", |site| {
        let out = out_slot(out)?;
        let right = match side {
            SL_SIDE_LEFT => false,
            SL_SIDE_RIGHT => true,
            _ => bail!(InvalidArgument, "side is {side}, not SL_SIDE_LEFT or SL_SIDE_RIGHT"),
        };
        let rt = runtime()?;
        let (sorted, v) = (node(&rt, sorted)?, node(&rt, v)?);
        put(&rt, out, graph(&rt, site).searchsorted(&sorted, &v, right)?)
    })
}

/// The 0-based column-major linear indices (i64, ascending) of the nonzero elements of
/// `a` (true ones of a bool array; NaN is nonzero), as a vector. Its length depends on
/// the data: the call waits for `a` to be computed (see the top of this section).
#[unsafe(no_mangle)]
pub extern "C" fn sl_nonzero(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_nonzero", |site| {
        let out = out_slot(out)?;
        outside_macro("sl_nonzero")?;
        let rt = runtime()?;
        let a = node(&rt, a)?;
        put(&rt, out, graph(&rt, site).nonzero(&a)?)
    })
}

/// The elements of `a` where `mask` (a's shape; nonzero counts as true) holds, in
/// column-major order, as a vector of a's type. Its length depends on the data: the call
/// waits for `mask` to be computed.
#[unsafe(no_mangle)]
pub extern "C" fn sl_compress(mask: sl_array, a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_compress", |site| {
        let out = out_slot(out)?;
        outside_macro("sl_compress")?;
        let rt = runtime()?;
        let (mask, a) = (node(&rt, mask)?, node(&rt, a)?);
        put(&rt, out, graph(&rt, site).compress(&mask, &a)?)
    })
}

/// The distinct elements of `a` (any shape, taken as a whole) in ascending order, in
/// `values` (a vector of a's type; -0 and +0 are one value, all NaNs one value, last),
/// how often each occurs in `counts` (i64, same length), and in `inverse` (i64, a's
/// shape) the position in `values` of each element of `a`, so `values[inverse]` is `a`.
/// The number of distinct values depends on the data: the call waits for `a` to be
/// computed.
#[unsafe(no_mangle)]
pub extern "C" fn sl_unique(
    a: sl_array,
    values: *mut sl_array,
    counts: *mut sl_array,
    inverse: *mut sl_array,
) -> sl_status {
    boundary!("sl_unique", |site| {
        let (values, counts, inverse) = (out_slot(values)?, out_slot(counts)?, out_slot(inverse)?);
        outside_macro("sl_unique")?;
        let rt = runtime()?;
        let a = node(&rt, a)?;
        let [v, c, i] = graph(&rt, site).unique(&a)?;
        put(&rt, values, v)?;
        put(&rt, counts, c)?;
        put(&rt, inverse, i)
    })
}

/// The counts (i64) of the elements of `a` (integer or float, any shape) in the bins
/// between consecutive `edges` (a vector of at least 2 ascending edges, so at least one
/// bin; not checked to be ascending): bin i counts edges[i] <= x < edges[i + 1], the last
/// bin also x equal to its right edge (numpy's rule). Elements outside the edges and
/// NaNs are dropped, not counted. Deferred like any other call.
#[unsafe(no_mangle)]
pub extern "C" fn sl_histogram(a: sl_array, edges: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_histogram", |site| {
        let out = out_slot(out)?;
        let rt = runtime()?;
        let (a, edges) = (node(&rt, a)?, node(&rt, edges)?);
        put(&rt, out, graph(&rt, site).histogram(&a, &edges)?)
    })
}

/// `sl_histogram` over `bins` equal bins spanning [lo, hi]: edge i is
/// ((bins - i) lo + i hi) / bins, computed in f64 and rounded to a's type (f64 for
/// integer arrays). Elements outside [lo, hi] and NaNs are dropped. Fewer than 1 bin or
/// a range that is not finite with lo < hi is refused (`SL_ERR_INVALID_ARGUMENT`).
#[unsafe(no_mangle)]
pub extern "C" fn sl_histogram_range(a: sl_array, bins: i64, lo: f64, hi: f64, out: *mut sl_array) -> sl_status {
    boundary!("sl_histogram_range", |site| {
        let out = out_slot(out)?;
        let rt = runtime()?;
        let a = node(&rt, a)?;
        put(&rt, out, graph(&rt, site).histogram_range(&a, bins, lo, hi)?)
    })
}
