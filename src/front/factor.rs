//! Checking and shaping factorization and solve calls. Each computation is one
//! intrinsic node (`Op::Factor`); what the application sees of it (the factors, the
//! pivots as i32, a determinant) are views, casts and element-wise nodes around it.

use std::sync::Arc;

use smallvec::smallvec;

use super::graph::Graph;
use crate::ir::{BinaryOp, DType, FactorOp, Node, Op, QrMode, Result, Shape, Trans, UnaryOp, bail};

/// `shape` with its first two dimensions replaced by `lead`.
fn with_lead(lead: &[usize], shape: &Shape) -> Shape {
    let mut dims = lead.to_vec();
    dims.extend_from_slice(&shape.dims()[2.min(shape.rank())..]);
    Shape::new(&dims)
}

impl Graph<'_> {
    /// Refuses what no factorization takes: integer or bool arrays, and fewer than two
    /// dimensions; `square` also non-square matrices.
    fn matrices(&self, name: &str, what: &str, a: &Arc<Node>, square: bool) -> Result<()> {
        if !(a.dtype.is_float() || a.dtype.is_complex()) || a.dtype.is_half() {
            bail!(DTypeMismatch, "{name}: {what} is {}; factorizations take f32, f64, c64 or c128 matrices", a.dtype);
        }
        if a.shape.rank() < 2 {
            bail!(
                ShapeMismatch,
                "{name}: {what} has shape {}; a matrix (or a batch of them) has at least 2 dimensions",
                a.shape
            );
        }
        if square && a.shape.dim(0) != a.shape.dim(1) {
            bail!(ShapeMismatch, "{name}: {what} has shape {}; its matrices must be square", a.shape);
        }
        Ok(())
    }

    /// The operands of a solve with `a` (m x n, batched; `m` is the node the solve reads
    /// for it: `a`, its factors or its LU node) and right-hand sides `b` (m x k, or a
    /// vector of length m: one column), brought to one batch: the batch dimensions of the
    /// two broadcast as element-wise operands do (missing trailing ones and ones of size 1
    /// stretch), so a 3 x 3 x 4 x 1 matrix with 3 x k x 1 x 3 right-hand sides is 12
    /// solves. Returns `m` and `b` over that batch, and whether b was a vector.
    fn solve_operands(
        &self,
        name: &str,
        a: &Arc<Node>,
        m: &Arc<Node>,
        b: &Arc<Node>,
    ) -> Result<(Arc<Node>, Arc<Node>, bool)> {
        if b.dtype != a.dtype {
            bail!(DTypeMismatch, "{name}: the matrix is {} but b is {}; they must be of one type", a.dtype, b.dtype);
        }
        let n = a.shape.dim(0);
        let vector = b.shape.rank() == 1;
        let b2 = if vector { self.reshape(b, Shape::new(&[b.shape.dim(0), 1]))? } else { b.clone() };
        let batch_of = |s: &Shape| Shape::new(&s.dims()[2.min(s.rank())..]);
        let batch = Shape::broadcast(&batch_of(&a.shape), &batch_of(&b2.shape));
        let (Ok(batch), true, false) = (batch, b2.shape.dim(0) == n, vector && a.shape.rank() > 2) else {
            bail!(
                ShapeMismatch,
                "{name}: the matrix has shape {} but b has shape {}; b must be m x k (or a vector of length m) for an m x n matrix, with batch dimensions that broadcast with the matrix's (equal or 1)",
                a.shape,
                b.shape
            );
        };
        let over = |x: &Arc<Node>| -> Result<Arc<Node>> {
            let mut dims: Vec<u64> = vec![x.shape.dim(0) as u64, x.shape.dim(1) as u64];
            dims.extend(batch.dims().iter().map(|&d| d as u64));
            self.broadcast_to(x, Shape::sized(name, &dims)?)
        };
        Ok((over(m)?, over(&b2)?, vector))
    }

    /// The LU node of `a`: packed factors over a row of pivots ((m + 1) x n, batched).
    fn lu_node(&self, a: &Arc<Node>) -> Arc<Node> {
        let shape = with_lead(&[a.shape.dim(0) + 1, a.shape.dim(1)], &a.shape);
        self.pending(Op::Factor(FactorOp::Lu), a.dtype, shape, smallvec![a.clone()])
    }

    /// Rows `rows` and columns `cols` of every matrix of `x`.
    fn block(&self, x: &Arc<Node>, rows: std::ops::Range<usize>, cols: std::ops::Range<usize>) -> Result<Arc<Node>> {
        let r = x.shape.rank();
        let mut start = vec![0i64; r];
        let mut count: Vec<i64> = x.shape.dims().iter().map(|&d| d as i64).collect();
        (start[0], count[0]) = (rows.start as i64, rows.len() as i64);
        (start[1], count[1]) = (cols.start as i64, cols.len() as i64);
        self.section(x, &start, &count, &vec![1; r])
    }

    /// LU with partial pivoting of `a` (m x n, batched): the packed factors (m x n) and
    /// the pivots (min(m, n), batched; i32, LAPACK's 1-based `ipiv`). A singular matrix
    /// is factored too (a zero on U's diagonal), as LAPACK's `getrf` does.
    pub fn lu(&self, a: &Arc<Node>) -> Result<(Arc<Node>, Arc<Node>)> {
        self.matrices("lu", "a", a, false)?;
        let (m, n) = (a.shape.dim(0), a.shape.dim(1));
        let lu = self.lu_node(a);
        let factors = self.block(&lu, 0..m, 0..n)?;
        let row = self.block(&lu, m..m + 1, 0..m.min(n))?;
        let row = if a.dtype.is_complex() { self.unary(UnaryOp::Real, &row)? } else { row };
        let pivots =
            self.reshape(&self.cast(&row, DType::I32)?, Shape::new(&a.shape.dims()[1..]).with_dim(0, m.min(n)))?;
        Ok((factors, pivots))
    }

    /// An LU node rebuilt from factors and pivots the application holds (as `lu` gave).
    fn packed(&self, name: &str, factors: &Arc<Node>, pivots: &Arc<Node>) -> Result<Arc<Node>> {
        self.matrices(name, "lu", factors, true)?;
        let n = factors.shape.dim(0);
        let want = Shape::new(&factors.shape.dims()[1..]);
        if pivots.shape != want || !matches!(pivots.dtype, DType::I32 | DType::I64) {
            bail!(
                ShapeMismatch,
                "{name}: the factors have shape {} so the pivots must be an i32 array of shape {want}, not {} {}",
                factors.shape,
                pivots.dtype,
                pivots.shape
            );
        }
        let row = self.reshape(&self.cast(pivots, factors.dtype)?, with_lead(&[1, n], &factors.shape))?;
        self.concat(&[factors.clone(), row], 0)
    }

    /// Solves op(A) x = b from A's LU factors and pivots (as `lu` gave them).
    pub fn lu_solve(&self, factors: &Arc<Node>, pivots: &Arc<Node>, b: &Arc<Node>, trans: Trans) -> Result<Arc<Node>> {
        let lu = self.packed("lu_solve", factors, pivots)?;
        self.solve_with(&lu, factors, b, trans)
    }

    /// x = op(A)^-1 b through the LU node `lu` of `a` (whose shape the checks read).
    fn solve_with(&self, lu: &Arc<Node>, a: &Arc<Node>, b: &Arc<Node>, trans: Trans) -> Result<Arc<Node>> {
        let name = Op::Factor(FactorOp::LuSolve(trans)).name();
        let (lu, b2, vector) = self.solve_operands(name, a, lu, b)?;
        let x = self.pending(Op::Factor(FactorOp::LuSolve(trans)), a.dtype, b2.shape, smallvec![lu, b2]);
        if vector { self.reshape(&x, b.shape) } else { Ok(x) }
    }

    /// x with A x = b (A square, batched), through LU with partial pivoting.
    pub fn solve(&self, a: &Arc<Node>, b: &Arc<Node>) -> Result<Arc<Node>> {
        self.matrices("solve", "a", a, true)?;
        self.solve_with(&self.lu_node(a), a, b, Trans::None)
    }

    /// The inverse of every matrix of `a`.
    pub fn inverse(&self, a: &Arc<Node>) -> Result<Arc<Node>> {
        self.matrices("inverse", "a", a, true)?;
        let n = a.shape.dim(0);
        let eye = self.identity(a.dtype, n, n)?;
        self.solve_with(&self.lu_node(a), a, &eye, Trans::None)
    }

    /// The unpacked factors of a square LU factorization: L (unit lower), U (upper) and
    /// the permutation P, with A = P L U.
    pub fn lu_unpack(&self, factors: &Arc<Node>, pivots: &Arc<Node>) -> Result<[Arc<Node>; 3]> {
        self.matrices("lu_unpack", "lu", factors, true)?;
        let lu = self.packed("lu_unpack", factors, pivots)?;
        let p = self.pending(Op::Factor(FactorOp::LuPermutation), factors.dtype, factors.shape, smallvec![lu]);
        let (l, u) = self.triangles(factors)?;
        Ok([l, u, p])
    }

    /// The unit lower triangle and the upper triangle of every matrix of `f`.
    fn triangles(&self, f: &Arc<Node>) -> Result<(Arc<Node>, Arc<Node>)> {
        let rows = self.iota(DType::I32, f.shape, 0)?;
        let cols = self.iota(DType::I32, f.shape, 1)?;
        let zero = self.constant(f.dtype, f.shape, 0.0)?;
        let one = self.constant(f.dtype, f.shape, 1.0)?;
        let below = self.binary(BinaryOp::Gt, &rows, &cols)?;
        let diagonal = self.binary(BinaryOp::Eq, &rows, &cols)?;
        let l = self.select(&below, f, &self.select(&diagonal, &one, &zero)?)?;
        let u = self.select(&below, &zero, f)?;
        Ok((l, u))
    }

    /// The sign (a unit complex number for complex types; 0 for a singular matrix) and
    /// the natural log of the modulus of the determinant of every matrix of `a`.
    pub fn slogdet(&self, a: &Arc<Node>) -> Result<(Arc<Node>, Arc<Node>)> {
        self.matrices("slogdet", "a", a, true)?;
        let both =
            self.pending(Op::Factor(FactorOp::LogDet), a.dtype, with_lead(&[2], &a.shape), smallvec![self.lu_node(a)]);
        let batch = Shape::new(&a.shape.dims()[2..]);
        let part = |i: usize| -> Result<Arc<Node>> {
            let r = both.shape.rank();
            let mut start = vec![0i64; r];
            let mut count: Vec<i64> = both.shape.dims().iter().map(|&d| d as i64).collect();
            start[0] = i as i64;
            count[0] = 1;
            self.reshape(&self.section(&both, &start, &count, &vec![1; r])?, batch)
        };
        let log = part(1)?;
        let log = if a.dtype.is_complex() { self.unary(UnaryOp::Real, &log)? } else { log };
        Ok((part(0)?, log))
    }

    /// The determinant of every matrix of `a`: sign times exp(log|det|).
    pub fn det(&self, a: &Arc<Node>) -> Result<Arc<Node>> {
        let (sign, log) = self.slogdet(a)?;
        let modulus = self.unary(UnaryOp::Exp, &log)?;
        let modulus = if a.dtype.is_complex() { self.cast(&modulus, a.dtype)? } else { modulus };
        self.binary(BinaryOp::Mul, &sign, &modulus)
    }

    /// The reciprocal condition number in the 1-norm of every matrix of `a`, estimated as
    /// LAPACK's `gecon` does; real (f32 or f64).
    pub fn rcond(&self, a: &Arc<Node>) -> Result<Arc<Node>> {
        self.matrices("rcond", "a", a, true)?;
        let batch = Shape::new(&a.shape.dims()[2..]);
        Ok(self.pending(Op::Factor(FactorOp::Rcond), a.dtype.real(), batch, smallvec![self.lu_node(a), a.clone()]))
    }

    /// The Cholesky factor L (lower, zeros above) of every matrix of `a` (Hermitian
    /// positive definite; its lower triangle is read), with a = L L^H.
    pub fn cholesky(&self, a: &Arc<Node>) -> Result<Arc<Node>> {
        self.matrices("cholesky", "a", a, true)?;
        Ok(self.pending(Op::Factor(FactorOp::Cholesky), a.dtype, a.shape, smallvec![a.clone()]))
    }

    /// x with L L^H x = b, L a Cholesky factor.
    pub fn cholesky_solve(&self, l: &Arc<Node>, b: &Arc<Node>) -> Result<Arc<Node>> {
        self.matrices("cholesky_solve", "l", l, true)?;
        self.factor_solve(FactorOp::CholeskySolve, l, b)
    }

    /// x with op(T) x = b, T the lower or upper triangle of `t` (unit diagonal if `unit`).
    pub fn triangular_solve(
        &self,
        t: &Arc<Node>,
        b: &Arc<Node>,
        lower: bool,
        unit: bool,
        trans: Trans,
    ) -> Result<Arc<Node>> {
        self.matrices("triangular_solve", "t", t, true)?;
        self.factor_solve(FactorOp::Triangular { lower, unit, trans }, t, b)
    }

    fn factor_solve(&self, op: FactorOp, m: &Arc<Node>, b: &Arc<Node>) -> Result<Arc<Node>> {
        let (m, b2, vector) = self.solve_operands(op.name(), m, m, b)?;
        let x = self.pending(Op::Factor(op), m.dtype, b2.shape, smallvec![m, b2]);
        if vector { self.reshape(&x, b.shape) } else { Ok(x) }
    }

    /// Householder QR of every matrix of `a` (m x n, batched), as numpy's `qr` with
    /// `mode`: Q and R (`Reduced`: m x k and k x n, k = min(m, n); `Complete`: m x m and
    /// m x n), or R alone (`QrMode::R`: k x n, Q is `None`).
    pub fn qr(&self, a: &Arc<Node>, mode: QrMode) -> Result<(Option<Arc<Node>>, Arc<Node>)> {
        self.matrices("qr", "a", a, false)?;
        let (m, n) = (a.shape.dim(0), a.shape.dim(1));
        let q = mode.q_columns(m, n);
        let op = Op::Factor(FactorOp::Qr(mode));
        if mode == QrMode::R {
            return Ok((None, self.pending(op, a.dtype, with_lead(&[q, n], &a.shape), smallvec![a.clone()])));
        }
        // One node gives Q beside R; the application sees the two blocks.
        let both = self.pending(op, a.dtype, with_lead(&[m, q + n], &a.shape), smallvec![a.clone()]);
        Ok((Some(self.block(&both, 0..m, 0..q)?), self.block(&both, 0..q, q..q + n)?))
    }

    /// The least-squares solution x (n x k, batched) of a x = b for `a` m x n: the x
    /// minimizing ‖a x − b‖₂ when m >= n, the x of least norm solving it when m < n; `b`
    /// m x k or a vector of length m (then x is a vector of length n), as in `solve`.
    pub fn lstsq(&self, a: &Arc<Node>, b: &Arc<Node>) -> Result<Arc<Node>> {
        self.matrices("lstsq", "a", a, false)?;
        let (a, b2, vector) = self.solve_operands("lstsq", a, a, b)?;
        let shape = with_lead(&[a.shape.dim(1), b2.shape.dim(1)], &b2.shape);
        let x = self.pending(Op::Factor(FactorOp::Lstsq), a.dtype, shape, smallvec![a.clone(), b2]);
        if vector { self.reshape(&x, Shape::new(&[a.shape.dim(1)])) } else { Ok(x) }
    }
}
