//! Factorizations and solves through faer: each matrix of a batch is copied from its
//! operand's layout into a dense column-major block, factored or solved there, and
//! written to the dense result. A single matrix uses the worker threads inside faer;
//! a batch spreads its matrices over the workers, each solved on one thread.

use std::ops::{Add, Div, Mul, MulAssign, Neg, Sub};

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::{LltRegularization, cholesky_in_place, cholesky_in_place_scratch};
use faer::linalg::householder::{
    apply_block_householder_sequence_on_the_left_in_place_scratch as apply_q_scratch,
    apply_block_householder_sequence_on_the_left_in_place_with_conj as apply_q,
};
use faer::linalg::lu::partial_pivoting::factor::{lu_in_place, lu_in_place_scratch};
use faer::linalg::qr::no_pivoting::factor::{qr_in_place, qr_in_place_scratch, recommended_block_size};
use faer::linalg::qr::no_pivoting::solve::{solve_lstsq_in_place_scratch, solve_lstsq_in_place_with_conj};
use faer::linalg::triangular_solve as tri;
use faer::traits::ComplexField;
use faer::{Conj, MatMut, MatRef, Par, c32, c64};
use parking_lot::Mutex;

use super::threads::Workers;
use crate::ir::factor::batch_count;
use crate::ir::{DType, Error, ErrorKind, FactorOp, MAX_RANK, QrMode, Result, Shape, Trans, Value, bail};

/// An element type faer factors, with the few scalar operations done here.
trait Element:
    ComplexField
    + Copy
    + Send
    + Sync
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + MulAssign
    + Div<Output = Self>
    + Neg<Output = Self>
{
    /// The real type of the same precision (rcond's result).
    type Part: Copy + Send + Sync;
    fn real(x: f64) -> Self;
    fn to_real(x: f64) -> Self::Part;
    /// The machine epsilon of the precision.
    fn eps() -> f64;
    fn parts(self) -> (f64, f64);
    fn modulus(self) -> f64 {
        let (re, im) = self.parts();
        re.hypot(im)
    }
    /// `self / |self|`, 1 for 0 (the estimator's sign vector).
    fn unit(self) -> Self;
}

macro_rules! real_element {
    ($t:ty) => {
        impl Element for $t {
            type Part = $t;
            fn real(x: f64) -> $t {
                x as $t
            }
            fn to_real(x: f64) -> $t {
                x as $t
            }
            fn eps() -> f64 {
                <$t>::EPSILON as f64
            }
            fn parts(self) -> (f64, f64) {
                (self as f64, 0.0)
            }
            fn unit(self) -> $t {
                if self < 0.0 { -1.0 } else { 1.0 }
            }
        }
    };
}
real_element!(f32);
real_element!(f64);

macro_rules! complex_element {
    ($t:ty, $p:ty) => {
        impl Element for $t {
            type Part = $p;
            fn real(x: f64) -> $t {
                <$t>::new(x as $p, 0.0)
            }
            fn to_real(x: f64) -> $p {
                x as $p
            }
            fn eps() -> f64 {
                <$p>::EPSILON as f64
            }
            fn parts(self) -> (f64, f64) {
                (self.re as f64, self.im as f64)
            }
            fn unit(self) -> $t {
                let m = self.re.hypot(self.im);
                if m == 0.0 { <$t>::new(1.0, 0.0) } else { <$t>::new(self.re / m, self.im / m) }
            }
        }
    };
}
complex_element!(c32, f32);
complex_element!(c64, f64);

/// An operand's matrices: where matrix `b` of the batch starts, and its row and column
/// strides, in elements.
struct Operand<T> {
    base: *const T,
    rows: usize,
    cols: usize,
    rs: isize,
    cs: isize,
    shape: Shape,
    strides: [i64; MAX_RANK],
}

// SAFETY: the step that owns the operand waits for the work to finish.
unsafe impl<T> Send for Operand<T> {}
unsafe impl<T> Sync for Operand<T> {}

impl<T: Element> Operand<T> {
    fn new(v: &Value, shape: &Shape) -> Result<Operand<T>> {
        let Some(bytes) = v.storage.host_bytes() else {
            bail!(Internal, "factorization operand is not in host memory")
        };
        let s = v.layout.strides;
        Ok(Operand {
            // SAFETY: the layout's offset lies inside the storage.
            base: unsafe { (bytes.as_ptr() as *const T).add(v.layout.offset as usize) },
            rows: shape.dim(0),
            cols: shape.dim(1),
            rs: s[0] as isize,
            cs: if shape.rank() > 1 { s[1] as isize } else { 0 },
            shape: *shape,
            strides: s,
        })
    }

    /// Matrix `b` of the batch, copied into a dense column-major vector.
    fn dense(&self, b: usize) -> Vec<T> {
        let mut at = 0isize;
        let mut rest = b;
        for d in 2..self.shape.rank() {
            let n = self.shape.dim(d);
            at += (rest % n) as isize * self.strides[d] as isize;
            rest /= n;
        }
        let mut out = Vec::with_capacity(self.rows * self.cols);
        for j in 0..self.cols {
            for i in 0..self.rows {
                // SAFETY: (i, j) of matrix b lies inside the operand's layout.
                out.push(unsafe { *self.base.offset(at + i as isize * self.rs + j as isize * self.cs) });
            }
        }
        out
    }
}

/// A dense column-major matrix as faer sees it.
fn view<T: Element>(m: &[T], rows: usize, cols: usize) -> MatRef<'_, T> {
    // SAFETY: `m` holds rows * cols elements in column-major order.
    unsafe { MatRef::from_raw_parts(m.as_ptr(), rows, cols, 1, rows.max(1) as isize) }
}

fn view_mut<T: Element>(m: &mut [T], rows: usize, cols: usize) -> MatMut<'_, T> {
    // SAFETY: as `view`, borrowed mutably.
    unsafe { MatMut::from_raw_parts_mut(m.as_mut_ptr(), rows, cols, 1, rows.max(1) as isize) }
}

/// Runs `op` on every matrix of the batch: input values `inputs` shaped `shapes`, result
/// dense in `out` (`out_shape`).
pub fn factor(
    op: FactorOp,
    dtype: DType,
    shapes: &[Shape],
    out_shape: &Shape,
    inputs: &[Value],
    out: &Value,
    workers: &Workers,
) -> Result<()> {
    match dtype {
        DType::F32 => run::<f32>(op, shapes, out_shape, inputs, out, workers),
        DType::F64 => run::<f64>(op, shapes, out_shape, inputs, out, workers),
        DType::C64 => run::<c32>(op, shapes, out_shape, inputs, out, workers),
        DType::C128 => run::<c64>(op, shapes, out_shape, inputs, out, workers),
        _ => bail!(DTypeMismatch, "{} needs a float or complex matrix, not {dtype}", op.name()),
    }
}

/// Why one matrix of a batch failed: the first zero pivot or failing minor (0-based).
pub(crate) type Failure = (usize, usize);

fn run<T: Element>(
    op: FactorOp,
    shapes: &[Shape],
    out_shape: &Shape,
    inputs: &[Value],
    out: &Value,
    workers: &Workers,
) -> Result<()> {
    let operands: Vec<Operand<T>> =
        inputs.iter().zip(shapes).map(|(v, s)| Operand::new(v, s)).collect::<Result<_>>()?;
    let count = batch_count(&shapes[0]);
    let per_matrix = out_shape.numel().checked_div(count).unwrap_or(0);
    let Some(bytes) = out.storage.host_bytes() else { bail!(Internal, "factorization result is not in host memory") };
    let out_ptr = OutPtr(bytes.as_ptr() as *mut T);
    if op == FactorOp::Rcond {
        // One real number per matrix (of the element type's precision).
        let out_ptr = OutPtr(bytes.as_ptr() as *mut T::Part);
        workers.for_each(count, count < 64, |range| {
            for b in range {
                let (lu, n) = packed(&operands[0], b);
                // SAFETY: the result holds one real per matrix.
                unsafe { *out_ptr.at(b) = T::to_real(rcond(&lu, n, &operands[1].dense(b))) };
            }
        });
        return Ok(());
    }
    let failures = Mutex::new(Vec::<Failure>::new());
    let work = |b: usize, par: Par| {
        // SAFETY: matrix b owns its own `per_matrix` elements of the dense result.
        let dst = unsafe { std::slice::from_raw_parts_mut(out_ptr.at(b * per_matrix), per_matrix) };
        if let Err(at) = one(op, &operands, b, dst, par) {
            failures.lock().push((b, at));
        }
    };
    if count == 1 {
        workers.install(|threads| work(0, if threads > 1 { Par::rayon(threads) } else { Par::Seq }));
    } else {
        let n = shapes[0].dim(0);
        let serial = count * n * n * n < 1 << 15;
        workers.for_each(count, serial, |range| range.for_each(|b| work(b, Par::Seq)));
    }
    let mut failures = failures.into_inner();
    if failures.is_empty() {
        return Ok(());
    }
    failures.sort_unstable();
    Err(failure_error(op, &shapes[0], &failures))
}

#[derive(Copy, Clone)]
struct OutPtr<T>(*mut T);
// SAFETY: each matrix of the batch writes its own part of the result.
unsafe impl<T> Send for OutPtr<T> {}
unsafe impl<T> Sync for OutPtr<T> {}
impl<T> OutPtr<T> {
    fn at(self, i: usize) -> *mut T {
        // SAFETY: callers stay inside the result.
        unsafe { self.0.add(i) }
    }
}

/// The message of a failed solve or factorization: the call's op, the first failing pivot
/// or minor, and in a batch which matrices failed (the first few).
pub(crate) fn failure_error(op: FactorOp, shape: &Shape, failures: &[Failure]) -> Error {
    let what = |at: usize| match op {
        FactorOp::Cholesky => format!("the leading minor of order {} is not positive", at + 1),
        FactorOp::Lstsq => format!(
            "R's diagonal entry {at} (0-based) is at most max(m, n) eps times the largest, so column {at} (of a, or of aᴴ when a is wide) is numerically a combination of those before it"
        ),
        _ => format!("pivot {at} (0-based) of U's diagonal is exactly zero"),
    };
    let singular = match op {
        FactorOp::Cholesky => "is not positive definite",
        FactorOp::Lstsq => "is rank-deficient",
        _ => "is singular",
    };
    // (An LU result is (n + 1) x n: the matrices are n x n.)
    let dims = match op {
        FactorOp::Lstsq => format!("{}x{}", shape.dim(0), shape.dim(1)),
        _ => format!("{n}x{n}", n = shape.dim(1)),
    };
    let message = if batch_count(shape) == 1 {
        format!("{}: the {dims} matrix {singular}: {}", op.name(), what(failures[0].1))
    } else {
        const LISTED: usize = 8;
        let listed: Vec<String> =
            failures.iter().take(LISTED).map(|&(b, at)| format!("matrix {b} ({})", what(at))).collect();
        let more =
            if failures.len() > LISTED { format!(" and {} more", failures.len() - LISTED) } else { String::new() };
        format!(
            "{}: {} of the {} {dims} matrices of a batch {}: {}{more}",
            op.name(),
            failures.len(),
            batch_count(shape),
            if failures.len() == 1 { singular.to_string() } else { singular.replace("is ", "are ") },
            listed.join(", "),
        )
    };
    Error::new(ErrorKind::Singular, message)
}

/// `op` on matrix `b`; the index of the first zero pivot or failing minor when it fails.
fn one<T: Element>(
    op: FactorOp,
    ops: &[Operand<T>],
    b: usize,
    dst: &mut [T],
    par: Par,
) -> std::result::Result<(), usize> {
    let a = &ops[0];
    match op {
        FactorOp::Lu => {
            let (m, n) = (a.rows, a.cols);
            let mut f = a.dense(b);
            let ipiv = lu(&mut f, m, n, par);
            for j in 0..n {
                dst[j * (m + 1)..j * (m + 1) + m].copy_from_slice(&f[j * m..(j + 1) * m]);
                dst[j * (m + 1) + m] = T::real(ipiv.get(j).map_or(0.0, |&p| p as f64));
            }
            Ok(())
        }
        FactorOp::LuSolve(trans) => {
            let (lu, n) = packed(a, b);
            let rhs = &ops[1];
            dst.copy_from_slice(&rhs.dense(b));
            lu_solve(&lu, n, trans, dst, rhs.cols, par)
        }
        FactorOp::LuPermutation => {
            let (lu, n) = packed(a, b);
            dst.fill(T::real(0.0));
            for (i, &r) in row_order(&lu, n).iter().enumerate() {
                // Row i of L U is row r of A: P has a one at (r, i).
                dst[r + i * n] = T::real(1.0);
            }
            Ok(())
        }
        FactorOp::Rcond => unreachable!("rcond is written as a real number by `run`"),
        FactorOp::LogDet => {
            let (lu, n) = packed(a, b);
            let (sign, log) = log_det(&lu, n);
            dst[0] = sign;
            dst[1] = T::real(log);
            Ok(())
        }
        FactorOp::Cholesky => {
            let n = a.rows;
            dst.copy_from_slice(&a.dense(b));
            let mut mem = MemBuffer::new(cholesky_in_place_scratch::<T>(n, par, Default::default()));
            let result = cholesky_in_place(
                view_mut(dst, n, n),
                LltRegularization::default(),
                par,
                MemStack::new(&mut mem),
                Default::default(),
            );
            for j in 1..n {
                dst[j * n..j * n + j].fill(T::real(0.0));
            }
            result
                .map(|_| ())
                .map_err(|faer::linalg::cholesky::llt::factor::LltError::NonPositivePivot { index }| index)
        }
        FactorOp::CholeskySolve => {
            let n = a.rows;
            let l = a.dense(b);
            let rhs = &ops[1];
            dst.copy_from_slice(&rhs.dense(b));
            if let Some(k) = (0..n).find(|&k| l[k + k * n] == T::real(0.0)) {
                return Err(k);
            }
            let (l, mut x) = (view(&l, n, n), view_mut(dst, n, rhs.cols));
            tri::solve_lower_triangular_in_place_with_conj(l, Conj::No, x.as_mut(), par);
            tri::solve_upper_triangular_in_place_with_conj(l.transpose(), Conj::Yes, x, par);
            Ok(())
        }
        FactorOp::Triangular { lower, unit, trans } => {
            let n = a.rows;
            let t = a.dense(b);
            let rhs = &ops[1];
            dst.copy_from_slice(&rhs.dense(b));
            if !unit && let Some(k) = (0..n).find(|&k| t[k + k * n] == T::real(0.0)) {
                return Err(k);
            }
            let conj = if trans == Trans::Conjugate { Conj::Yes } else { Conj::No };
            let t = view(&t, n, n);
            let t = if trans == Trans::None { t } else { t.transpose() };
            // A transposed lower triangle is an upper one.
            let lower = lower == (trans == Trans::None);
            let x = view_mut(dst, n, rhs.cols);
            match (lower, unit) {
                (true, false) => tri::solve_lower_triangular_in_place_with_conj(t, conj, x, par),
                (true, true) => tri::solve_unit_lower_triangular_in_place_with_conj(t, conj, x, par),
                (false, false) => tri::solve_upper_triangular_in_place_with_conj(t, conj, x, par),
                (false, true) => tri::solve_unit_upper_triangular_in_place_with_conj(t, conj, x, par),
            }
            Ok(())
        }
        FactorOp::Qr(mode) => {
            let (m, n) = (a.rows, a.cols);
            let h = Householder::new(a.dense(b), m, n, par);
            let q = mode.q_columns(m, n);
            // Q (m x q) comes first unless only R is asked for; R (q x n) is written with
            // the leading dimension of the block it sits in.
            let (q_block, r) = dst.split_at_mut(if mode == QrMode::R { 0 } else { m * q });
            let ld = if mode == QrMode::R { q } else { m };
            for j in 0..n {
                for i in 0..ld {
                    r[i + j * ld] = if i <= j && i < h.k { h.f[i + j * m] } else { T::real(0.0) };
                }
            }
            if mode != QrMode::R {
                q_block.fill(T::real(0.0));
                (0..q.min(m)).for_each(|i| q_block[i + i * m] = T::real(1.0));
                h.apply_q(view_mut(q_block, m, q), par);
            }
            Ok(())
        }
        FactorOp::Lstsq => {
            let rhs = &ops[1];
            lstsq(a, b, &rhs.dense(b), rhs.cols, dst, par)
        }
    }
}

/// A Householder QR: R on and above the diagonal of the dense m x n `f`, the reflectors
/// below it, their block coefficients (`block` x k) in `coeff`.
struct Householder<T> {
    f: Vec<T>,
    coeff: Vec<T>,
    block: usize,
    m: usize,
    n: usize,
    k: usize,
}

impl<T: Element> Householder<T> {
    fn new(mut f: Vec<T>, m: usize, n: usize, par: Par) -> Householder<T> {
        let k = m.min(n);
        let block = recommended_block_size::<T>(m, n);
        let mut coeff = vec![T::real(0.0); block * k];
        if k > 0 {
            let mut mem = MemBuffer::new(qr_in_place_scratch::<T>(m, n, block, par, Default::default()));
            let (fm, cm) = (view_mut(&mut f, m, n), view_mut(&mut coeff, block, k));
            qr_in_place(fm, cm, par, MemStack::new(&mut mem), Default::default());
        }
        Householder { f, coeff, block, m, n, k }
    }

    /// Q x in place (x: m rows).
    fn apply_q(&self, x: MatMut<'_, T>, par: Par) {
        if self.k == 0 {
            return;
        }
        let mut mem = MemBuffer::new(apply_q_scratch::<T>(self.m, self.block, x.ncols()));
        let basis = view(&self.f, self.m, self.n).subcols(0, self.k);
        apply_q(basis, view(&self.coeff, self.block, self.k), Conj::No, x, par, MemStack::new(&mut mem));
    }

    /// The first diagonal entry of R at most max(m, n) eps times the largest: the column
    /// where the matrix is numerically rank-deficient.
    fn deficient(&self) -> Option<usize> {
        let d: Vec<f64> = (0..self.k).map(|i| self.f[i + i * self.m].modulus()).collect();
        let tiny = d.iter().copied().fold(0.0, f64::max) * self.m.max(self.n) as f64 * T::eps();
        d.iter().position(|&x| x <= tiny || x.is_nan())
    }
}

/// The least-squares solution (n x c, into `dst`) of matrix `b` of `a` (m x n) times x
/// = `rhs` (m x c): through the QR of a when m >= n, else the least-norm one through the
/// QR of aᴴ (a = Rᴴ Qᴴ, x = Q R⁻ᴴ rhs).
fn lstsq<T: Element>(
    a: &Operand<T>,
    b: usize,
    rhs: &[T],
    c: usize,
    dst: &mut [T],
    par: Par,
) -> std::result::Result<(), usize> {
    let (m, n) = (a.rows, a.cols);
    if m >= n {
        let h = Householder::new(a.dense(b), m, n, par);
        if let Some(k) = h.deficient() {
            return Err(k);
        }
        let mut x = rhs.to_vec();
        if n > 0 {
            let mut mem = MemBuffer::new(solve_lstsq_in_place_scratch::<T>(m, n, h.block, c, par));
            let (qr, coeff) = (view(&h.f, m, n), view(&h.coeff, h.block, n));
            solve_lstsq_in_place_with_conj(
                qr,
                coeff,
                qr,
                Conj::No,
                view_mut(&mut x, m, c),
                par,
                MemStack::new(&mut mem),
            );
        }
        for j in 0..c {
            dst[j * n..(j + 1) * n].copy_from_slice(&x[j * m..j * m + n]);
        }
        return Ok(());
    }
    let dense = a.dense(b);
    let adjoint: Vec<T> = (0..n * m).map(|i| T::conj_impl(&dense[i / n + (i % n) * m])).collect();
    let h = Householder::new(adjoint, n, m, par);
    if let Some(k) = h.deficient() {
        return Err(k);
    }
    dst.fill(T::real(0.0));
    for j in 0..c {
        dst[j * n..j * n + m].copy_from_slice(&rhs[j * m..(j + 1) * m]);
    }
    let r = view(&h.f, n, m).subrows(0, m);
    let mut x = view_mut(dst, n, c);
    tri::solve_lower_triangular_in_place_with_conj(r.transpose(), Conj::Yes, x.as_mut().subrows_mut(0, m), par);
    h.apply_q(x, par);
    Ok(())
}

/// Factors the dense m x n matrix `f` in place; its pivots as LAPACK's 1-based `ipiv`.
fn lu<T: Element>(f: &mut [T], m: usize, n: usize, par: Par) -> Vec<usize> {
    let mut perm = vec![0usize; m];
    let mut perm_inv = vec![0usize; m];
    let mut mem = MemBuffer::new(lu_in_place_scratch::<usize, T>(m, n, par, Default::default()));
    lu_in_place(view_mut(f, m, n), &mut perm, &mut perm_inv, par, MemStack::new(&mut mem), Default::default());
    // faer gives the row order (row i of L U is row perm[i] of A); LAPACK's ipiv is the
    // sequence of swaps that makes it: swap k with wherever row perm[k] is by then.
    let mut order: Vec<usize> = (0..m).collect();
    let mut place: Vec<usize> = (0..m).collect();
    (0..m.min(n))
        .map(|k| {
            let j = place[perm[k]];
            let (rk, rj) = (order[k], order[j]);
            order.swap(k, j);
            place[rk] = j;
            place[rj] = k;
            j + 1
        })
        .collect()
}

/// The packed factors of matrix `b` of an LU result ((n + 1) x n), without the pivot row,
/// and n.
fn packed<T: Element>(a: &Operand<T>, b: usize) -> (Packed<T>, usize) {
    let n = a.cols;
    let all = a.dense(b);
    let mut f = Vec::with_capacity(n * n);
    let mut ipiv = Vec::with_capacity(n);
    for j in 0..n {
        f.extend_from_slice(&all[j * (n + 1)..j * (n + 1) + n]);
        ipiv.push(all[j * (n + 1) + n].parts().0 as usize);
    }
    (Packed { f, ipiv }, n)
}

struct Packed<T> {
    f: Vec<T>,
    ipiv: Vec<usize>,
}

/// The row order the pivots make: row i of L U is row `order[i]` of A.
fn row_order<T>(lu: &Packed<T>, n: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    for (k, &p) in lu.ipiv.iter().enumerate() {
        // Pivots come from the application too (a factorization it passes back): out of
        // range ones are taken as no swap rather than read out of bounds.
        if (1..=n).contains(&p) {
            order.swap(k, p - 1);
        }
    }
    order
}

/// The first zero on U's diagonal (NaN counts too: faer divides by a zero pivot).
fn zero_pivot<T: Element>(lu: &Packed<T>, n: usize) -> Option<usize> {
    (0..n).find(|&k| {
        let d = lu.f[k + k * n];
        d == T::real(0.0) || d.modulus().is_nan()
    })
}

/// Solves op(A) x = b in place in `x` (n x k) from A's packed factors.
fn lu_solve<T: Element>(
    lu: &Packed<T>,
    n: usize,
    trans: Trans,
    x: &mut [T],
    k: usize,
    par: Par,
) -> std::result::Result<(), usize> {
    if let Some(z) = zero_pivot(lu, n) {
        return Err(z);
    }
    let order = row_order(lu, n);
    let f = view(&lu.f, n, n);
    let mut scratch = vec![T::real(0.0); n];
    let permute = |x: &mut [T], scratch: &mut [T], forward: bool| {
        for c in 0..k {
            let col = &mut x[c * n..(c + 1) * n];
            for (i, &r) in order.iter().enumerate() {
                if forward { scratch[i] = col[r] } else { scratch[r] = col[i] }
            }
            col.copy_from_slice(scratch);
        }
    };
    match trans {
        Trans::None => {
            permute(x, &mut scratch, true);
            tri::solve_unit_lower_triangular_in_place_with_conj(f, Conj::No, view_mut(x, n, k), par);
            tri::solve_upper_triangular_in_place_with_conj(f, Conj::No, view_mut(x, n, k), par);
        }
        Trans::Transpose | Trans::Conjugate => {
            let conj = if trans == Trans::Conjugate { Conj::Yes } else { Conj::No };
            tri::solve_lower_triangular_in_place_with_conj(f.transpose(), conj, view_mut(x, n, k), par);
            tri::solve_unit_upper_triangular_in_place_with_conj(f.transpose(), conj, view_mut(x, n, k), par);
            permute(x, &mut scratch, false);
        }
    }
    Ok(())
}

/// The sign (unit modulus, 0 for a singular matrix) and log of the modulus of det(A).
fn log_det<T: Element>(lu: &Packed<T>, n: usize) -> (T, f64) {
    if zero_pivot(lu, n).is_some() {
        return (T::real(0.0), f64::NEG_INFINITY);
    }
    let swaps = lu.ipiv.iter().enumerate().filter(|&(k, &p)| p != k + 1).count();
    let mut sign = T::real(if swaps % 2 == 0 { 1.0 } else { -1.0 });
    let mut log = 0.0;
    for k in 0..n {
        let d = lu.f[k + k * n];
        sign *= d.unit();
        log += d.modulus().ln();
    }
    (sign, log)
}

/// LAPACK `gecon`'s estimate of 1 / (||A||_1 ||A^-1||_1): ||A^-1||_1 by Hager's method
/// with Higham's refinements (at most five steps, then an alternative guess of
/// alternating signs), each step a solve with the factors. `a` is A (dense n x n).
fn rcond<T: Element>(lu: &Packed<T>, n: usize, a: &[T]) -> f64 {
    if n == 0 {
        return f64::INFINITY;
    }
    let norm_a = (0..n).map(|j| a[j * n..(j + 1) * n].iter().map(|x| x.modulus()).sum::<f64>()).fold(0.0, f64::max);
    if zero_pivot(lu, n).is_some() || norm_a == 0.0 {
        return 0.0;
    }
    let solve = |x: &mut Vec<T>, trans: Trans| {
        let _ = lu_solve(lu, n, trans, x, 1, Par::Seq);
    };
    let norm1 = |x: &[T]| x.iter().map(|v| v.modulus()).sum::<f64>();
    let mut x = vec![T::real(1.0 / n as f64); n];
    solve(&mut x, Trans::None);
    let mut estimate = norm1(&x);
    let mut last = usize::MAX;
    for step in 0..5 {
        let mut z: Vec<T> = x.iter().map(|v| v.unit()).collect();
        solve(&mut z, Trans::Conjugate);
        let j =
            z.iter().map(|v| v.modulus()).enumerate().fold((0, -1.0), |b, (i, m)| if m > b.1 { (i, m) } else { b }).0;
        if step > 0 && j == last {
            break; // the same column again: converged
        }
        last = j;
        x = vec![T::real(0.0); n];
        x[j] = T::real(1.0);
        solve(&mut x, Trans::None);
        let next = norm1(&x);
        if next <= estimate && step > 0 {
            break;
        }
        estimate = estimate.max(next);
    }
    // Higham's alternative: a vector of alternating signs and growing size catches the
    // matrices that fool the main iteration.
    let mut alt: Vec<T> = (0..n)
        .map(|i| {
            let s = if i % 2 == 0 { 1.0 } else { -1.0 };
            T::real(s * (1.0 + i as f64 / (n.max(2) - 1) as f64))
        })
        .collect();
    solve(&mut alt, Trans::None);
    estimate = estimate.max(2.0 * norm1(&alt) / (3.0 * n as f64));
    1.0 / (norm_a * estimate)
}
