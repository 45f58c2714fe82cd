//! Dense factorizations and solves: what each one reads and gives. Every one works on the
//! matrices of the first two dimensions, batched over the others (the operands of one
//! node share their batch dimensions).

use super::shape::Shape;

/// What a solve does to the factored matrix first.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Trans {
    None,
    Transpose,
    /// Transposed and conjugated (for real types, `Transpose`).
    Conjugate,
}

/// A factorization or solve (`Op::Factor`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FactorOp {
    /// LU with partial pivoting: [a (m x n)] -> [(m + 1) x n]. Rows 0..m hold the packed
    /// factors (L below the diagonal with an implied unit diagonal, U on and above it);
    /// row m holds the min(m, n) pivots as LAPACK's `ipiv` (1-based: row k was swapped
    /// with row ipiv[k], in order), as the element type, then zeros.
    Lu,
    /// [lu ((n + 1) x n), b (n x k)] -> x (n x k) with op(A) x = b. A zero on U's
    /// diagonal fails the solve (the matrix is singular).
    LuSolve(Trans),
    /// [lu ((n + 1) x n)] -> P (n x n), the permutation with A = P L U.
    LuPermutation,
    /// [lu ((n + 1) x n), a (n x n)] -> the reciprocal condition number of a in the
    /// 1-norm, estimated as LAPACK's `gecon` does (0 for a singular matrix), of the
    /// element type's real type.
    Rcond,
    /// [lu ((n + 1) x n)] -> [2]: the determinant's sign (a unit complex number for
    /// complex types; 0 when it is 0) and the natural log of its modulus (-inf when it
    /// is 0), both as the element type.
    LogDet,
    /// Cholesky: [a (n x n), Hermitian positive definite, read from its lower triangle]
    /// -> L (n x n, lower, zeros above) with a = L L^H. A minor that is not positive
    /// fails it.
    Cholesky,
    /// [l (n x n), b (n x k)] -> x with L L^H x = b.
    CholeskySolve,
    /// [t (n x n), b (n x k)] -> x with op(T) x = b, T the lower or upper triangle of t,
    /// its diagonal taken as ones when `unit`. A zero on the diagonal fails it.
    Triangular { lower: bool, unit: bool, trans: Trans },
    /// Householder QR of a (m x n), k = min(m, n). `Reduced` and `Complete`: [a] -> Q
    /// beside R, m x (q + n) with q = k (`Reduced`) or m (`Complete`): columns 0..q hold Q
    /// (orthonormal columns; unitary when complete), columns q.. hold R (q x n, upper
    /// trapezoidal, zeros below the diagonal). `R`: [a] -> R (k x n) alone, Q not formed.
    Qr(QrMode),
    /// Least squares through QR: [a (m x n), b (m x k)] -> x (n x k). For m >= n the x
    /// that minimizes ‖a x − b‖₂; for m < n the x of least norm with a x = b (from the QR
    /// of aᴴ). A numerically rank-deficient a (a diagonal entry of R at most max(m, n)
    /// eps times the largest) fails it.
    Lstsq,
}

/// What `FactorOp::Qr` gives (numpy's `mode` of `numpy.linalg.qr`).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum QrMode {
    /// Q (m x k) and R (k x n).
    Reduced,
    /// Q (m x m) and R (m x n).
    Complete,
    /// R (k x n) only.
    R,
}

impl QrMode {
    /// The number of columns of Q (and rows of R) of an m x n matrix.
    pub fn q_columns(self, m: usize, n: usize) -> usize {
        if self == QrMode::Complete { m } else { m.min(n) }
    }
}

impl FactorOp {
    pub fn name(&self) -> &'static str {
        match self {
            FactorOp::Lu => "lu",
            FactorOp::LuSolve(_) => "lu_solve",
            FactorOp::LuPermutation => "lu_permutation",
            FactorOp::Rcond => "rcond",
            FactorOp::LogDet => "slogdet",
            FactorOp::Cholesky => "cholesky",
            FactorOp::CholeskySolve => "cholesky_solve",
            FactorOp::Triangular { .. } => "triangular_solve",
            FactorOp::Qr(_) => "qr",
            FactorOp::Lstsq => "lstsq",
        }
    }
}

/// The number of matrices in a batch of `shape` (the product of the dimensions after the
/// first two).
pub fn batch_count(shape: &Shape) -> usize {
    shape.dims().iter().skip(2).product()
}
