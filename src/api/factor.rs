//! Factorizations and solves of dense matrices (LU, Cholesky, triangular, QR, least
//! squares), each batched
//! over the dimensions after the first two: a rank-3 array is a batch of matrices.

use super::error::boundary;
use super::types::*;
use super::{graph, node, out_slot, put, runtime};
use crate::ir::{CallSite, QrMode, Result, Trans, bail};

fn trans(t: sl_transpose_op) -> Result<Trans> {
    Ok(match t {
        SL_NO_TRANS => Trans::None,
        SL_TRANS => Trans::Transpose,
        SL_CONJ_TRANS => Trans::Conjugate,
        _ => bail!(InvalidArgument, "trans is {t}, not SL_NO_TRANS, SL_TRANS or SL_CONJ_TRANS"),
    })
}

/// LU factorization with partial pivoting, A = P L U, of `a` (m x n, f32, f64, c64 or
/// c128; batched over dimensions 2 and up). `lu` gets the packed factors (m x n: L below
/// the diagonal, its unit diagonal implied, U on and above), `ipiv` the pivots: an i32
/// array of min(m, n) per matrix (batched likewise) in LAPACK's `ipiv` convention,
/// 1-based: row k was swapped with row ipiv[k] in order k = 1, 2, ... — the form
/// `getrf` gives, so factors and pivots can be handed to LAPACK as they are. A singular
/// matrix is not an error here (LAPACK's info > 0): its factors are returned with a zero
/// on U's diagonal (entries past the first zero pivot are then not specified); solving
/// with them fails.
#[unsafe(no_mangle)]
pub extern "C" fn sl_lu(a: sl_array, lu: *mut sl_array, ipiv: *mut sl_array) -> sl_status {
    boundary!("sl_lu", |site| {
        let (lu, ipiv) = (out_slot(lu)?, out_slot(ipiv)?);
        let rt = runtime()?;
        let a = node(&rt, a)?;
        let (f, p) = graph(&rt, site).lu(&a)?;
        put(&rt, lu, f)?;
        put(&rt, ipiv, p)
    })
}

/// Solves op(A) x = b from A's factors `lu` and pivots `ipiv` as `sl_lu` gives them (A
/// square), op being `SL_NO_TRANS`, `SL_TRANS` or `SL_CONJ_TRANS`. `b` is n x k (k right
/// hand sides) or a vector of length n (then so is x), of A's type; with batched factors
/// it has their batch dimensions or none (one b for every matrix). A zero pivot fails
/// with `SL_ERR_SINGULAR` where x is read.
#[unsafe(no_mangle)]
pub extern "C" fn sl_lu_solve(
    lu: sl_array,
    ipiv: sl_array,
    trans_op: sl_transpose_op,
    b: sl_array,
    x: *mut sl_array,
) -> sl_status {
    boundary!("sl_lu_solve", |site| {
        let x = out_slot(x)?;
        let t = trans(trans_op)?;
        let rt = runtime()?;
        let (lu, ipiv, b) = (node(&rt, lu)?, node(&rt, ipiv)?, node(&rt, b)?);
        let r = graph(&rt, site).lu_solve(&lu, &ipiv, &b, t)?;
        put(&rt, x, r)
    })
}

/// The factors of a square LU factorization unpacked: `l` (unit lower triangular), `u`
/// (upper triangular) and the permutation matrix `p`, all n x n of the factors' type
/// (batched likewise), with A = P L U.
#[unsafe(no_mangle)]
pub extern "C" fn sl_lu_unpack(
    lu: sl_array,
    ipiv: sl_array,
    l: *mut sl_array,
    u: *mut sl_array,
    p: *mut sl_array,
) -> sl_status {
    boundary!("sl_lu_unpack", |site| {
        let (l, u, p) = (out_slot(l)?, out_slot(u)?, out_slot(p)?);
        let rt = runtime()?;
        let (lu, ipiv) = (node(&rt, lu)?, node(&rt, ipiv)?);
        let [lf, uf, pf] = graph(&rt, site).lu_unpack(&lu, &ipiv)?;
        put(&rt, l, lf)?;
        put(&rt, u, uf)?;
        put(&rt, p, pf)
    })
}

/// x with A x = b: LU with partial pivoting of `a` (square, batched) and a solve. `b` as
/// in `sl_lu_solve`. A singular matrix fails with `SL_ERR_SINGULAR` where x is read (at
/// this call with `SLUICE_SYNC=1`), naming the first zero pivot and, in a batch, the
/// matrices that failed.
#[unsafe(no_mangle)]
pub extern "C" fn sl_solve(a: sl_array, b: sl_array, x: *mut sl_array) -> sl_status {
    boundary!("sl_solve", |site| {
        let x = out_slot(x)?;
        let rt = runtime()?;
        let (a, b) = (node(&rt, a)?, node(&rt, b)?);
        let r = graph(&rt, site).solve(&a, &b)?;
        put(&rt, x, r)
    })
}

/// Applies `f` (a graph call taking one array) to `a` and stores the result in `out`.
fn one_matrix(
    site: CallSite,
    a: sl_array,
    out: *mut sl_array,
    f: impl FnOnce(&crate::front::Graph, &std::sync::Arc<crate::ir::Node>) -> Result<std::sync::Arc<crate::ir::Node>>,
) -> Result<()> {
    let out = out_slot(out)?;
    let rt = runtime()?;
    let a = node(&rt, a)?;
    let r = f(&graph(&rt, site), &a)?;
    put(&rt, out, r)
}

/// The inverse of `a` (square, batched), through LU. A singular matrix fails as in
/// `sl_solve`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_inv(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_inv", |site| one_matrix(site, a, out, |g, a| g.inverse(a)))
}

/// The determinant of `a` (square, batched: one per matrix, of `a`'s type), computed from
/// its LU factors as sign * exp(log |det|) (so its relative error grows with |log |det||;
/// `sl_slogdet` keeps the logarithm). 0 for a singular matrix.
#[unsafe(no_mangle)]
pub extern "C" fn sl_det(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_det", |site| one_matrix(site, a, out, |g, a| g.det(a)))
}

/// The determinant of `a` (square, batched) as its sign and the natural logarithm of its
/// modulus, as numpy's `slogdet` gives them: `sign` of `a`'s type (+1 or -1, a complex
/// number of modulus 1 for complex types, 0 for a singular matrix), `logabs` real (-inf
/// for a singular matrix). Neither overflows where the determinant would.
#[unsafe(no_mangle)]
pub extern "C" fn sl_slogdet(a: sl_array, sign: *mut sl_array, logabs: *mut sl_array) -> sl_status {
    boundary!("sl_slogdet", |site| {
        let (sign, logabs) = (out_slot(sign)?, out_slot(logabs)?);
        let rt = runtime()?;
        let a = node(&rt, a)?;
        let (s, l) = graph(&rt, site).slogdet(&a)?;
        put(&rt, sign, s)?;
        put(&rt, logabs, l)
    })
}

/// The reciprocal condition number of `a` (square, batched) in the 1-norm, 1 / (‖A‖₁
/// ‖A⁻¹‖₁), estimated as LAPACK's `gecon` does (Hager's and Higham's estimate of ‖A⁻¹‖₁
/// from a few solves with A's LU factors; it is rarely off by more than a factor of 3):
/// real (f32 or f64), one per matrix; 0 for a singular matrix.
#[unsafe(no_mangle)]
pub extern "C" fn sl_rcond(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_rcond", |site| one_matrix(site, a, out, |g, a| g.rcond(a)))
}

/// The Cholesky factor L of `a` (Hermitian positive definite, square, batched; only its
/// lower triangle is read): lower triangular with a positive real diagonal and zeros
/// above, a = L Lᴴ. A matrix that is not positive definite fails with `SL_ERR_SINGULAR`
/// where L is read (at this call with `SLUICE_SYNC=1`), naming the first leading minor
/// that is not positive and, in a batch, the matrices that failed.
#[unsafe(no_mangle)]
pub extern "C" fn sl_cholesky(a: sl_array, l: *mut sl_array) -> sl_status {
    boundary!("sl_cholesky", |site| one_matrix(site, a, l, |g, a| g.cholesky(a)))
}

/// x with L Lᴴ x = b, `l` a Cholesky factor as `sl_cholesky` gives it; `b` as in
/// `sl_lu_solve`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_cholesky_solve(l: sl_array, b: sl_array, x: *mut sl_array) -> sl_status {
    boundary!("sl_cholesky_solve", |site| {
        let x = out_slot(x)?;
        let rt = runtime()?;
        let (l, b) = (node(&rt, l)?, node(&rt, b)?);
        let r = graph(&rt, site).cholesky_solve(&l, &b)?;
        put(&rt, x, r)
    })
}

/// x with op(T) x = b (BLAS `trsm` from the left), T the triangle of `t` that `uplo`
/// names (`SL_LOWER` or `SL_UPPER`; the other triangle is not read), with a diagonal of
/// ones when `diag` is `SL_UNIT_DIAG` (not read then); op as in `sl_lu_solve`, `b` too.
/// A zero on the diagonal (`SL_NON_UNIT_DIAG`) fails with `SL_ERR_SINGULAR` where x is
/// read.
#[unsafe(no_mangle)]
pub extern "C" fn sl_triangular_solve(
    t: sl_array,
    uplo: sl_uplo,
    trans_op: sl_transpose_op,
    diag: sl_diag,
    b: sl_array,
    x: *mut sl_array,
) -> sl_status {
    boundary!("sl_triangular_solve", |site| {
        let x = out_slot(x)?;
        let lower = match uplo {
            SL_LOWER => true,
            SL_UPPER => false,
            _ => bail!(InvalidArgument, "uplo is {uplo}, not SL_LOWER or SL_UPPER"),
        };
        let unit = match diag {
            SL_NON_UNIT_DIAG => false,
            SL_UNIT_DIAG => true,
            _ => bail!(InvalidArgument, "diag is {diag}, not SL_NON_UNIT_DIAG or SL_UNIT_DIAG"),
        };
        let t_op = trans(trans_op)?;
        let rt = runtime()?;
        let (t, b) = (node(&rt, t)?, node(&rt, b)?);
        let r = graph(&rt, site).triangular_solve(&t, &b, lower, unit, t_op)?;
        put(&rt, x, r)
    })
}

/// Householder QR of `a` (m x n, f32, f64, c64 or c128; batched over dimensions 2 and
/// up), A = Q R, as numpy's `linalg.qr` with `mode`: `SL_QR_REDUCED` gives `q` m x k
/// with orthonormal columns and `r` k x n upper triangular (k = min(m, n));
/// `SL_QR_COMPLETE` gives `q` m x m unitary and `r` m x n (zero rows below the k-th);
/// `SL_QR_R` gives `r` (k x n) alone without forming Q (`q` may then be NULL; if not,
/// it is set to the null handle). Q and R are unique only up to the signs (complex
/// phases) of R's rows and Q's columns; compare them through Q R or Qᴴ Q, not element
/// by element with another library's.
#[unsafe(no_mangle)]
pub extern "C" fn sl_qr(a: sl_array, mode: sl_qr_mode, q: *mut sl_array, r: *mut sl_array) -> sl_status {
    boundary!("sl_qr", |site| {
        let mode = match mode {
            SL_QR_REDUCED => QrMode::Reduced,
            SL_QR_COMPLETE => QrMode::Complete,
            SL_QR_R => QrMode::R,
            _ => bail!(InvalidArgument, "mode is {mode}, not SL_QR_REDUCED, SL_QR_COMPLETE or SL_QR_R"),
        };
        let q = if mode == QrMode::R && q.is_null() { None } else { Some(out_slot(q)?) };
        let r = out_slot(r)?;
        let rt = runtime()?;
        let a = node(&rt, a)?;
        let (qf, rf) = graph(&rt, site).qr(&a, mode)?;
        put(&rt, r, rf)?;
        match (q, qf) {
            (Some(q), Some(qf)) => put(&rt, q, qf),
            _ => Ok(()),
        }
    })
}

/// The least-squares solution x of A x = b through Householder QR (LAPACK's `gels`), `a`
/// m x n (f32, f64, c64 or c128; batched over dimensions 2 and up), `b` m x k or a
/// vector of length m (then x is a vector of length n), of a's type, with a's batch
/// dimensions or none (one b for every matrix); x is n x k. When m >= n, x minimizes
/// ‖A x − b‖₂; when m < n it is the solution of least norm ‖x‖₂ (from the QR of Aᴴ).
/// A must have full rank: a matrix whose R has a diagonal entry at most max(m, n)·eps
/// times its largest fails with `SL_ERR_SINGULAR` where x is read (at this call with
/// `SLUICE_SYNC=1`), naming the column and, in a batch, the matrices that failed — QR
/// without column pivoting cannot tell which solution of a rank-deficient problem is
/// wanted, so none is guessed (numpy's `lstsq` uses an SVD with a cutoff for those).
#[unsafe(no_mangle)]
pub extern "C" fn sl_lstsq(a: sl_array, b: sl_array, x: *mut sl_array) -> sl_status {
    boundary!("sl_lstsq", |site| {
        let x = out_slot(x)?;
        let rt = runtime()?;
        let (a, b) = (node(&rt, a)?, node(&rt, b)?);
        let r = graph(&rt, site).lstsq(&a, &b)?;
        put(&rt, x, r)
    })
}
