//! Reductions, scans and linear algebra.

use super::error::boundary;
use super::types::*;
use super::{binary_op, graph, node, out_slot, put, reduce_op, runtime, scan_op};
use crate::front::linalg::Transpose;
use crate::front::stats::{Axes, Reduction, Scan};
use crate::ir::{BinaryOp, CallSite, ReduceOp, Result, bail};

/// `SL_ALL_DIMS` (-1) or a dimension.
fn axis(dim: i32) -> Result<Option<usize>> {
    match dim {
        SL_ALL_DIMS => Ok(None),
        d if (0..SL_MAX_RANK).contains(&d) => Ok(Some(d as usize)),
        d => bail!(InvalidArgument, "dimension {d} is out of range (use SL_ALL_DIMS to reduce everything)"),
    }
}

/// `SL_ALL_DIMS` or one dimension as a set of dimensions.
fn axes(dim: i32) -> Result<Axes> {
    Ok(axis(dim)?.map_or(Axes::All, |d| Axes::Dims(1 << d)))
}

fn reduce(site: CallSite, op: Reduction, a: sl_array, axes: Axes, out: *mut sl_array) -> Result<()> {
    let out = out_slot(out)?;
    let rt = runtime()?;
    let a = node(&rt, a)?;
    let n = graph(&rt, site).reduce_axes(op, &a, axes)?;
    put(&rt, out, n)
}

fn plain(site: CallSite, op: ReduceOp, a: sl_array, dim: i32, out: *mut sl_array) -> Result<()> {
    out_slot(out)?;
    reduce(site, Reduction::Plain(op), a, axes(dim)?, out)
}

fn scan(site: CallSite, op: Scan, a: sl_array, dims: u32, exclusive: bool, out: *mut sl_array) -> Result<()> {
    let out = out_slot(out)?;
    let rt = runtime()?;
    let a = node(&rt, a)?;
    let n = graph(&rt, site).scan_axes(op, &a, dims, exclusive)?;
    put(&rt, out, n)
}

/// One dimension of a scan as a set of dimensions.
fn scan_dim(dim: i32) -> Result<u32> {
    let Some(d) = axis(dim)? else { bail!(InvalidArgument, "a scan needs a dimension, not SL_ALL_DIMS") };
    Ok(1 << d)
}

fn variance(site: CallSite, a: sl_array, axes: Axes, ddof: i64, std: bool, out: *mut sl_array) -> Result<()> {
    let out = out_slot(out)?;
    let rt = runtime()?;
    let a = node(&rt, a)?;
    let n = graph(&rt, site).variance(&a, axes, ddof, std)?;
    put(&rt, out, n)
}

/// Reduces `a` along dimension `dim` (kept with size 1), or over every element to a
/// rank-0 array when `dim` is `SL_ALL_DIMS`. Reducing no elements gives each op's value
/// of nothing (see `sl_reduce_op`: sum 0, prod 1, minval +inf or the type's largest,
/// maxval -inf or the type's smallest, mean NaN, argmin and argmax -1).
#[unsafe(no_mangle)]
pub extern "C" fn sl_reduce(op: sl_reduce_op, a: sl_array, dim: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_reduce", |site| {
        out_slot(out)?; // cleared before the op code is checked
        reduce(site, reduce_op(op)?, a, axes(dim)?, out)
    })
}

/// The sum along `dim` (or of everything with `SL_ALL_DIMS`); 0 of no elements.
#[unsafe(no_mangle)]
pub extern "C" fn sl_sum(a: sl_array, dim: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_sum", |site| plain(site, ReduceOp::Sum, a, dim, out))
}

/// The product along `dim` (or of everything with `SL_ALL_DIMS`); 1 of no elements.
#[unsafe(no_mangle)]
pub extern "C" fn sl_prod(a: sl_array, dim: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_prod", |site| plain(site, ReduceOp::Prod, a, dim, out))
}

/// The smallest element along `dim` (or of everything with `SL_ALL_DIMS`); NaN if any is
/// NaN; +inf (floats) or the type's largest value (integers) of no elements.
#[unsafe(no_mangle)]
pub extern "C" fn sl_minval(a: sl_array, dim: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_minval", |site| plain(site, ReduceOp::Min, a, dim, out))
}

/// The largest element along `dim` (or of everything with `SL_ALL_DIMS`); NaN if any is
/// NaN; -inf (floats) or the type's smallest value (integers) of no elements.
#[unsafe(no_mangle)]
pub extern "C" fn sl_maxval(a: sl_array, dim: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_maxval", |site| plain(site, ReduceOp::Max, a, dim, out))
}

/// The mean along `dim` (or of everything with `SL_ALL_DIMS`); NaN of no elements.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mean(a: sl_array, dim: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_mean", |site| plain(site, ReduceOp::Mean, a, dim, out))
}

/// Whether any element is nonzero along `dim` (or of everything with `SL_ALL_DIMS`);
/// false of no elements.
#[unsafe(no_mangle)]
pub extern "C" fn sl_any(a: sl_array, dim: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_any", |site| plain(site, ReduceOp::Any, a, dim, out))
}

/// Whether every element is nonzero along `dim` (or of everything with `SL_ALL_DIMS`);
/// true of no elements.
#[unsafe(no_mangle)]
pub extern "C" fn sl_all(a: sl_array, dim: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_all", |site| plain(site, ReduceOp::All, a, dim, out))
}

/// The number of nonzero elements along `dim` (or of everything with `SL_ALL_DIMS`).
#[unsafe(no_mangle)]
pub extern "C" fn sl_count(a: sl_array, dim: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_count", |site| plain(site, ReduceOp::Count, a, dim, out))
}

/// The index of the first smallest element along `dim` (or of everything with
/// `SL_ALL_DIMS`): the first NaN's if there is one; -1 of no elements.
#[unsafe(no_mangle)]
pub extern "C" fn sl_argmin(a: sl_array, dim: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_argmin", |site| plain(site, ReduceOp::ArgMin, a, dim, out))
}

/// The index of the first largest element along `dim` (or of everything with
/// `SL_ALL_DIMS`): the first NaN's if there is one; -1 of no elements.
#[unsafe(no_mangle)]
pub extern "C" fn sl_argmax(a: sl_array, dim: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_argmax", |site| plain(site, ReduceOp::ArgMax, a, dim, out))
}

/// Inclusive cumulative sum along `dim` (integers accumulate in i64).
#[unsafe(no_mangle)]
pub extern "C" fn sl_cumsum(a: sl_array, dim: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_cumsum", |site| {
        out_slot(out)?;
        scan(site, Scan::Sum, a, scan_dim(dim)?, false, out)
    })
}

/// Inclusive cumulative product along `dim`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_cumprod(a: sl_array, dim: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_cumprod", |site| {
        out_slot(out)?;
        scan(site, Scan::Prod, a, scan_dim(dim)?, false, out)
    })
}

/// Reduces `a` over every dimension whose bit is set in `dims` (bit d is dimension d;
/// `0x3` is dimensions 0 and 1), each kept with size 1, with `op` as in `sl_reduce`
/// (`SL_NORM2` over both dimensions of a matrix is its Frobenius norm). `SL_ARGMIN` and
/// `SL_ARGMAX` take one dimension only. An empty set or a bit past the rank is refused.
#[unsafe(no_mangle)]
pub extern "C" fn sl_reduce_dims(op: sl_reduce_op, a: sl_array, dims: u32, out: *mut sl_array) -> sl_status {
    boundary!("sl_reduce_dims", |site| {
        out_slot(out)?;
        reduce(site, reduce_op(op)?, a, Axes::Dims(dims), out)
    })
}

/// The variance along `dim` (or of everything with `SL_ALL_DIMS`, a rank-0 result):
/// `sum |x - mean|^2 / (n - ddof)`, `ddof` >= 0 (0: the population variance, 1: the
/// sample variance). Computed stably (the deviations from the mean, not E[x^2] - E[x]^2).
/// f32 gives f32; other real types f64; complex types their real type. NaN where
/// n <= ddof. Not for bool.
#[unsafe(no_mangle)]
pub extern "C" fn sl_var(a: sl_array, dim: i32, ddof: i64, out: *mut sl_array) -> sl_status {
    boundary!("sl_var", |site| {
        out_slot(out)?;
        variance(site, a, axes(dim)?, ddof, false, out)
    })
}

/// The standard deviation, the square root of `sl_var`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_std(a: sl_array, dim: i32, ddof: i64, out: *mut sl_array) -> sl_status {
    boundary!("sl_std", |site| {
        out_slot(out)?;
        variance(site, a, axes(dim)?, ddof, true, out)
    })
}

/// `sl_var` over the dimensions of the set `dims` (as in `sl_reduce_dims`).
#[unsafe(no_mangle)]
pub extern "C" fn sl_var_dims(a: sl_array, dims: u32, ddof: i64, out: *mut sl_array) -> sl_status {
    boundary!("sl_var_dims", |site| variance(site, a, Axes::Dims(dims), ddof, false, out))
}

/// `sl_std` over the dimensions of the set `dims` (as in `sl_reduce_dims`).
#[unsafe(no_mangle)]
pub extern "C" fn sl_std_dims(a: sl_array, dims: u32, ddof: i64, out: *mut sl_array) -> sl_status {
    boundary!("sl_std_dims", |site| variance(site, a, Axes::Dims(dims), ddof, true, out))
}

/// Scan `op` (`sl_scan_op`) along `dim`: element i combines elements 0..=i, or with
/// `exclusive` nonzero elements 0..i-1 (element 0 is then the op's identity: 0, 1, the type's
/// lowest or highest value, true or false).
#[unsafe(no_mangle)]
pub extern "C" fn sl_scan(op: sl_scan_op, a: sl_array, dim: i32, exclusive: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_scan", |site| {
        out_slot(out)?;
        scan(site, scan_op(op)?, a, scan_dim(dim)?, exclusive != 0, out)
    })
}

/// `sl_scan` along each dimension of the set `dims` in turn (bit d is dimension d): with
/// `SL_SCAN_SUM` over `0x3`, element (i, j) is the sum of the box (0..=i, 0..=j).
#[unsafe(no_mangle)]
pub extern "C" fn sl_scan_dims(
    op: sl_scan_op,
    a: sl_array,
    dims: u32,
    exclusive: i32,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_scan_dims", |site| {
        out_slot(out)?;
        scan(site, scan_op(op)?, a, dims, exclusive != 0, out)
    })
}

/// Inclusive running maximum along `dim` (`SL_SCAN_MAX`).
#[unsafe(no_mangle)]
pub extern "C" fn sl_cummax(a: sl_array, dim: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_cummax", |site| {
        out_slot(out)?;
        scan(site, Scan::Max, a, scan_dim(dim)?, false, out)
    })
}

/// Inclusive running minimum along `dim` (`SL_SCAN_MIN`).
#[unsafe(no_mangle)]
pub extern "C" fn sl_cummin(a: sl_array, dim: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_cummin", |site| {
        out_slot(out)?;
        scan(site, Scan::Min, a, scan_dim(dim)?, false, out)
    })
}

/// Inclusive running and of `x != 0` along `dim` (`SL_SCAN_AND`), a bool array.
#[unsafe(no_mangle)]
pub extern "C" fn sl_cumand(a: sl_array, dim: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_cumand", |site| {
        out_slot(out)?;
        scan(site, Scan::And, a, scan_dim(dim)?, false, out)
    })
}

/// Inclusive running or of `x != 0` along `dim` (`SL_SCAN_OR`), a bool array.
#[unsafe(no_mangle)]
pub extern "C" fn sl_cumor(a: sl_array, dim: i32, out: *mut sl_array) -> sl_status {
    boundary!("sl_cumor", |site| {
        out_slot(out)?;
        scan(site, Scan::Or, a, scan_dim(dim)?, false, out)
    })
}

/// Matrix product of `a` (m x k) and `b` (k x n), of one type: f32, f64, c64 or c128.
/// Either may be a vector of length k instead: a matrix times a vector gives a vector of
/// length m, a vector times a matrix one of length n (real ones run as matrix-vector
/// products at memory bandwidth).
/// Batches: dimensions after the first two make an operand a stack of matrices, and the
/// result is the stack of their products. The two batches broadcast as element-wise
/// operands do (numpy's `matmul` rules read column-major): a missing trailing dimension
/// or one of size 1 stretches, so [m, k, p] times [k, n] is [m, n, p] and [m, k, 1, q]
/// times [k, n, p] is [m, n, p, q]; a vector multiplies every matrix of the other side
/// ([k] times [k, n, p] is [n, p]). Shapes that do not conform are refused with both in
/// the message.
/// Operands may be views (transposes, strided sections): they are read in place.
#[unsafe(no_mangle)]
pub extern "C" fn sl_matmul(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_matmul", |site| {
        let out = out_slot(out)?;
        let rt = runtime()?;
        let (a, b) = (node(&rt, a)?, node(&rt, b)?);
        let n = graph(&rt, site).matmul(&a, &b)?;
        put(&rt, out, n)
    })
}

fn transpose_op(t: sl_transpose_op, name: &str) -> Result<Transpose> {
    match t {
        SL_NO_TRANS => Ok(Transpose::None),
        SL_TRANS => Ok(Transpose::Transpose),
        SL_CONJ_TRANS => Ok(Transpose::Conjugate),
        t => bail!(InvalidArgument, "{name} is {t}, not SL_NO_TRANS, SL_TRANS or SL_CONJ_TRANS"),
    }
}

#[allow(clippy::too_many_arguments)]
fn gemm(
    site: CallSite,
    ops: [sl_transpose_op; 2],
    a: sl_array,
    b: sl_array,
    alpha: (f64, f64),
    c: sl_array,
    beta: (f64, f64),
    out: *mut sl_array,
) -> Result<()> {
    let out = out_slot(out)?;
    let ops = [transpose_op(ops[0], "op_a")?, transpose_op(ops[1], "op_b")?];
    let rt = runtime()?;
    let (a, b) = (node(&rt, a)?, node(&rt, b)?);
    let c = if c == 0 { None } else { Some(node(&rt, c)?) };
    let n = graph(&rt, site).gemm(ops, &a, &b, alpha, c.as_ref(), beta)?;
    put(&rt, out, n)
}

/// The general product `out = alpha * op_a(a) * op_b(b) + beta * c` (BLAS `gemm`), op
/// being `SL_NO_TRANS`, `SL_TRANS` or `SL_CONJ_TRANS`. `a` and `b` are matrices of one
/// float or complex type, read in place whatever their layout (a transposed operand is
/// not copied); either may be a vector as in `sl_matmul` (its op then only conjugates).
/// `c` has the product's shape and type, or is 0 for none; with `beta` 0 it is not read.
/// `c` is not changed: the result is a new array. Real scalars; see `sl_gemm_c`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_gemm(
    op_a: sl_transpose_op,
    a: sl_array,
    op_b: sl_transpose_op,
    b: sl_array,
    alpha: f64,
    c: sl_array,
    beta: f64,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_gemm", |site| gemm(site, [op_a, op_b], a, b, (alpha, 0.0), c, (beta, 0.0), out))
}

/// `sl_gemm` with complex scalars `alpha = alpha_re + i alpha_im`, `beta = beta_re + i
/// beta_im` (complex operands; real ones take scalars with zero imaginary parts).
#[unsafe(no_mangle)]
pub extern "C" fn sl_gemm_c(
    op_a: sl_transpose_op,
    a: sl_array,
    op_b: sl_transpose_op,
    b: sl_array,
    alpha_re: f64,
    alpha_im: f64,
    c: sl_array,
    beta_re: f64,
    beta_im: f64,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_gemm_c", |site| gemm(site, [op_a, op_b], a, b, (alpha_re, alpha_im), c, (beta_re, beta_im), out))
}

/// The outer product of vectors `a` (length m) and `b` (length n): the m x n matrix of
/// `a[i] * b[j]` (no conjugation), computed element-wise and fused with its neighbours.
/// For other ops and shapes, `sl_outer_product`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_outer(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_outer", |site| {
        let out = out_slot(out)?;
        let rt = runtime()?;
        let (a, b) = (node(&rt, a)?, node(&rt, b)?);
        if a.shape.rank() != 1 || b.shape.rank() != 1 {
            bail!(
                ShapeMismatch,
                "outer needs two vectors, got {} and {} (sl_outer_product takes any shapes)",
                a.shape,
                b.shape
            );
        }
        let n = graph(&rt, site).outer(BinaryOp::Mul, &a, &b)?;
        put(&rt, out, n)
    })
}

/// The generalized outer product: `out[i..., j...] = op(a[i...], b[j...])` for every
/// element of `a` and every element of `b`, shaped as `a`'s dimensions followed by `b`'s
/// (at most 8 in all), for any `SL_*` binary op with `sl_binary`'s types and promotion.
/// It is a broadcast, so it fuses with the work around it. A rank-0 operand gives
/// `op` of it with every element of the other.
#[unsafe(no_mangle)]
pub extern "C" fn sl_outer_product(op: sl_binary_op, a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_outer_product", |site| {
        let out = out_slot(out)?;
        let op = binary_op(op)?;
        let rt = runtime()?;
        let (a, b) = (node(&rt, a)?, node(&rt, b)?);
        let n = graph(&rt, site).outer(op, &a, &b)?;
        put(&rt, out, n)
    })
}

/// The generalized inner product: `out[i, j] = reduce over p of combine(a[i, p], b[p, j])`
/// for a reduction code (`SL_SUM`, `SL_PROD`, `SL_MINVAL`, `SL_MAXVAL`, `SL_ANY`, `SL_ALL`,
/// `SL_COUNT`) and a binary op code, with `sl_matmul`'s shapes: vectors, and batches over
/// the dimensions after the first two, broadcast. The m x k x n combined values are never
/// stored. `a` and `b` have one type.
/// - (`SL_SUM`, `SL_MUL`) of float or complex arrays is `sl_matmul`.
/// - The min/max semirings are product kernels: reduce `SL_MINVAL` or `SL_MAXVAL` with
///   combine `SL_ADD`, `SL_MUL`, `SL_MIN` or `SL_MAX` on f32, f64, i32, i64 or u8 arrays
///   (min-plus: shortest paths; max-min: bottleneck paths), and on bool arrays
///   (`SL_ANY`, `SL_AND`) (reachability) and (`SL_ALL`, `SL_OR`) (`SL_MAXVAL` and
///   `SL_MINVAL` reduce bools as any and all). Each element is computed in the arrays'
///   type (integers wrap); a min or max with a NaN is NaN, as `sl_min`/`sl_max` and
///   `sl_minval`/`sl_maxval`; with k = 0 the result is the reduction's identity (+inf or the type's
///   largest for min, true for bool's all; -inf, the smallest or false for max).
/// - Every other pair is `sl_reduce` along p of `sl_binary` of the operands, fused, with
///   their result types: an integer sum of products is i64, (`SL_SUM`, `SL_EQ`) counts
///   matches (i64), f32 sums add in f64.
/// - Refused: a pair not defined for the type with `SL_ERR_DTYPE_MISMATCH`; `SL_MEAN`,
///   `SL_ARGMIN`, `SL_ARGMAX` and the NaN-ignoring and norm codes with
///   `SL_ERR_INVALID_ARGUMENT`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_inner_product(
    reduce: sl_reduce_op,
    combine: sl_binary_op,
    a: sl_array,
    b: sl_array,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_inner_product", |site| {
        let out = out_slot(out)?;
        let Reduction::Plain(reduce) = reduce_op(reduce)? else {
            bail!(
                InvalidArgument,
                "reduce is {reduce}: an inner product reduces with a plain reduction, not a NaN-ignoring one or a norm"
            );
        };
        let combine = binary_op(combine)?;
        let rt = runtime()?;
        let (a, b) = (node(&rt, a)?, node(&rt, b)?);
        let n = graph(&rt, site).inner_product(reduce, combine, &a, &b)?;
        put(&rt, out, n)
    })
}

/// Sum of the element-wise products of `conj(a)` and `b`, arrays of the same shape (rank
/// 0 result): the inner product of complex vectors (Fortran's `dot_product`, BLAS
/// `cdotc`, numpy's `vdot`). For real arrays it is `sl_dot`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_vdot(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_vdot", |site| {
        let out = out_slot(out)?;
        let rt = runtime()?;
        let (a, b) = (node(&rt, a)?, node(&rt, b)?);
        let n = graph(&rt, site).vdot(&a, &b)?;
        put(&rt, out, n)
    })
}

/// Sum of the element-wise products of two arrays of the same shape (rank 0 result): each
/// product is rounded to the arrays' type (as `sl_mul`'s), then they are added as `sl_sum`
/// adds (f32 in f64).
#[unsafe(no_mangle)]
pub extern "C" fn sl_dot(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_dot", |site| {
        let out = out_slot(out)?;
        let rt = runtime()?;
        let (a, b) = (node(&rt, a)?, node(&rt, b)?);
        let n = graph(&rt, site).dot(&a, &b)?;
        put(&rt, out, n)
    })
}
