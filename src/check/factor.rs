//! References of factorizations and solves: textbook algorithms in complex f64 (LU with
//! partial pivoting by row operations, Cholesky by columns, substitution, unblocked
//! Householder QR with explicit reflectors), sharing nothing with faer. Factors are not
//! unique (a pivot tie, or rounding, can choose another row; QR's signs), so an LU,
//! Cholesky or QR result is compared through what it reconstructs (P L U, L Lᴴ; Q R and
//! Qᴴ Q, or Rᴴ R for R alone) against the reference's reconstruction; a solution (a least
//! squares one too) is compared
//! element by element, its tolerance scaled by the condition number of its matrix (the
//! error any backward-stable solve may make); a condition estimate must be within a
//! factor of 10 of the exact one.

use rustfft::num_complex::Complex;

use super::compare::{Mismatch, Tolerance, compare as compare_elements};
use super::reference::{Elem, Reference};
use crate::ir::factor::batch_count;
use crate::ir::{FactorOp, QrMode, Shape, Trans, Value};

type C = Complex<f64>;

/// Matrix `b` (rows x cols) of the batch of reference `r`, column-major.
fn matrix(r: &Reference, b: usize, rows: usize, cols: usize) -> Vec<C> {
    let at = b * rows * cols;
    (0..rows * cols)
        .map(|i| {
            let (re, im) = r.at(at + i).parts();
            C::new(re, im)
        })
        .collect()
}

/// Textbook LU with partial pivoting (the largest |re| + |im| in the column, as LAPACK
/// picks): the packed factors and 1-based pivots.
fn lu(mut a: Vec<C>, m: usize, n: usize) -> (Vec<C>, Vec<usize>) {
    let abs1 = |z: C| z.re.abs() + z.im.abs();
    let mut ipiv = Vec::new();
    for k in 0..m.min(n) {
        let p = (k..m).fold(k, |p, i| if abs1(a[i + k * m]) > abs1(a[p + k * m]) { i } else { p });
        ipiv.push(p + 1);
        for j in 0..n {
            a.swap(k + j * m, p + j * m);
        }
        let pivot = a[k + k * m];
        if pivot == C::new(0.0, 0.0) {
            continue; // LAPACK leaves the column as it is
        }
        for i in k + 1..m {
            a[i + k * m] /= pivot;
            let l = a[i + k * m];
            for j in k + 1..n {
                let u = a[k + j * m];
                a[i + j * m] -= l * u;
            }
        }
    }
    (a, ipiv)
}

/// P L U from packed factors and pivots (m x n).
fn reconstruct_lu(f: &[C], ipiv: &[usize], m: usize, n: usize) -> Vec<C> {
    let mut a = vec![C::new(0.0, 0.0); m * n];
    for i in 0..m {
        for j in 0..n {
            a[i + j * m] =
                (0..=i.min(j)).map(|p| if p == i { f[p + j * m] } else { f[i + p * m] * f[p + j * m] }).sum();
        }
    }
    for (k, &p) in ipiv.iter().enumerate().rev() {
        if (1..=m).contains(&p) {
            for j in 0..n {
                a.swap(k + j * m, p - 1 + j * m);
            }
        }
    }
    a
}

/// The packed factors and pivots of an LU result ((n + 1) x n): dimensions m x n.
fn split_lu(all: &[C], m: usize, n: usize) -> (Vec<C>, Vec<usize>) {
    let f = (0..n).flat_map(|j| all[j * (m + 1)..j * (m + 1) + m].iter().copied()).collect();
    let ipiv = (0..m.min(n)).map(|j| all[j * (m + 1) + m].re as usize).collect();
    (f, ipiv)
}

/// x with op(T) x = b by substitution, T the lower or upper triangle of `t` (n x n).
fn substitute(t: &[C], n: usize, lower: bool, unit: bool, trans: Trans, b: &mut [C], k: usize) {
    let at = |i: usize, j: usize| match trans {
        Trans::None => t[i + j * n],
        Trans::Transpose => t[j + i * n],
        Trans::Conjugate => t[j + i * n].conj(),
    };
    let lower = lower == (trans == Trans::None);
    for c in 0..k {
        let x = &mut b[c * n..(c + 1) * n];
        let order: Vec<usize> = if lower { (0..n).collect() } else { (0..n).rev().collect() };
        for &i in &order {
            let mut s = x[i];
            for j in 0..n {
                if (lower && j < i) || (!lower && j > i) {
                    s -= at(i, j) * x[j];
                }
            }
            x[i] = if unit { s } else { s / at(i, i) };
        }
    }
}

/// x with op(A) x = b from A's packed factors and pivots.
fn lu_solve(f: &[C], ipiv: &[usize], n: usize, trans: Trans, b: &mut [C], k: usize) {
    let swap_all = |b: &mut [C], k_piv: usize, p: usize| {
        for c in 0..k {
            b.swap(c * n + k_piv, c * n + p - 1);
        }
    };
    if trans == Trans::None {
        ipiv.iter().enumerate().for_each(|(i, &p)| swap_all(b, i, p));
        substitute(f, n, true, true, trans, b, k);
        substitute(f, n, false, false, trans, b, k);
    } else {
        substitute(f, n, false, false, trans, b, k);
        substitute(f, n, true, true, trans, b, k);
        ipiv.iter().enumerate().rev().for_each(|(i, &p)| swap_all(b, i, p));
    }
}

fn norm1(a: &[C], n: usize) -> f64 {
    (0..n).map(|j| a[j * n..(j + 1) * n].iter().map(|z| z.norm()).sum::<f64>()).fold(0.0, f64::max)
}

/// The 1-norm condition number of A from its packed factors, through the explicit inverse.
fn condition(f: &[C], ipiv: &[usize], n: usize) -> f64 {
    let a = reconstruct_lu(f, ipiv, n, n);
    let mut inv: Vec<C> = (0..n * n).map(|i| C::new((i % n == i / n) as i32 as f64, 0.0)).collect();
    lu_solve(f, ipiv, n, Trans::None, &mut inv, n);
    norm1(&a, n) * norm1(&inv, n)
}

/// Unblocked Householder QR of `a` (m x n) with the reflector of each column chosen as
/// faer chooses it (R's diagonal gets minus the phase of the column's head, no
/// reflection when the part below the diagonal is zero): Q (m x m) and R (m x n).
fn householder(mut a: Vec<C>, m: usize, n: usize) -> (Vec<C>, Vec<C>) {
    let zero = C::new(0.0, 0.0);
    let mut reflectors = Vec::new();
    for k in 0..m.min(n) {
        let head = a[k + k * m];
        let tail = (k + 1..m).map(|i| a[i + k * m].norm_sqr()).sum::<f64>().sqrt();
        if tail == 0.0 {
            continue;
        }
        let phase = if head.norm() == 0.0 { C::new(1.0, 0.0) } else { head / head.norm() };
        let beta = -phase * head.norm().hypot(tail);
        let mut v: Vec<C> = (k..m).map(|i| a[i + k * m]).collect();
        v[0] = head - beta;
        let vv = v.iter().map(|z| z.norm_sqr()).sum::<f64>();
        // H = I − 2 v vᴴ / (vᴴ v) on rows k.. of every column.
        let reflect = |x: &mut [C], ld: usize, cols: std::ops::Range<usize>| {
            for j in cols {
                let dot: C = v.iter().enumerate().map(|(i, vi)| vi.conj() * x[k + i + j * ld]).sum();
                let f = dot * (2.0 / vv);
                v.iter().enumerate().for_each(|(i, vi)| x[k + i + j * ld] -= vi * f);
            }
        };
        reflect(&mut a, m, k..n);
        (k + 1..m).for_each(|i| a[i + k * m] = zero);
        a[k + k * m] = beta;
        reflectors.push((v, vv, k));
    }
    let mut q: Vec<C> = (0..m * m).map(|i| C::new((i % m == i / m) as i32 as f64, 0.0)).collect();
    for (v, vv, k) in reflectors.iter().rev() {
        for j in 0..m {
            let dot: C = v.iter().enumerate().map(|(i, vi)| vi.conj() * q[k + i + j * m]).sum();
            let f = dot * (2.0 / vv);
            v.iter().enumerate().for_each(|(i, vi)| q[k + i + j * m] -= vi * f);
        }
    }
    (q, a)
}

/// The product of `a` (r x p) and `b` (p x c), column-major.
fn product(a: &[C], b: &[C], r: usize, p: usize, c: usize) -> Vec<C> {
    (0..r * c).map(|i| (0..p).map(|l| a[i % r + l * r] * b[l + (i / r) * p]).sum()).collect()
}

/// The conjugate transpose of `a` (r x c).
fn adjoint(a: &[C], r: usize, c: usize) -> Vec<C> {
    (0..r * c).map(|i| a[i / c + (i % c) * r].conj()).collect()
}

/// The least-squares solution (n x k) of `a` (m x n) x = `b` (m x k) as `FactorOp::Lstsq`
/// defines it, and the 1-norm condition number of its R.
fn lstsq(a: &[C], m: usize, n: usize, b: &[C], k: usize) -> (Vec<C>, f64) {
    let wide = m < n;
    let (rows, cols) = if wide { (n, m) } else { (m, n) };
    let (q, r) = householder(if wide { adjoint(a, m, n) } else { a.to_vec() }, rows, cols);
    // R's leading cols x cols block, and its condition number through its inverse.
    let rr: Vec<C> = (0..cols * cols).map(|i| r[i % cols + (i / cols) * rows]).collect();
    let mut inv: Vec<C> = (0..cols * cols).map(|i| C::new((i % cols == i / cols) as i32 as f64, 0.0)).collect();
    substitute(&rr, cols, false, false, Trans::None, &mut inv, cols);
    let cond = norm1(&rr, cols) * norm1(&inv, cols);
    let x = if wide {
        // a = Rᴴ Q₁ᴴ: x = Q₁ R⁻ᴴ b.
        let mut y = b.to_vec();
        substitute(&rr, m, false, false, Trans::Conjugate, &mut y, k);
        product(&q[..n * m], &y, n, m, k)
    } else {
        let qb = product(&adjoint(&q, m, m), b, m, m, k);
        let mut x: Vec<C> = (0..n * k).map(|i| qb[i % n + (i / n) * m]).collect();
        substitute(&rr, n, false, false, Trans::None, &mut x, k);
        x
    };
    (x, cond)
}

/// The reference of a factorization or solve node of shape `shape` from its inputs'.
pub fn evaluate(op: FactorOp, dtype: crate::ir::DType, shape: Shape, ins: &[&Reference]) -> Reference {
    let a = ins[0];
    let (m, n) = (a.shape.dim(0), a.shape.dim(1));
    let batch = batch_count(&shape).max(batch_count(&a.shape));
    let mut out: Vec<C> = Vec::with_capacity(shape.numel());
    let mut scale: Vec<f64> = Vec::with_capacity(shape.numel());
    // A solve's error is relative to its condition number times the size of x.
    let solved = |out: &mut Vec<C>, scale: &mut Vec<f64>, x: Vec<C>, cond: f64, rows: usize| {
        for col in x.chunks(rows.max(1)) {
            let size = col.iter().map(|z| z.norm()).fold(0.0, f64::max);
            scale.extend(std::iter::repeat_n(cond.max(1.0) * rows as f64 * size, col.len()));
        }
        out.extend(x);
    };
    for b in 0..batch {
        let mat = matrix(a, b, m, n);
        match op {
            FactorOp::Lu => {
                let (f, ipiv) = lu(mat, m, n);
                for j in 0..n {
                    out.extend_from_slice(&f[j * m..(j + 1) * m]);
                    out.push(C::new(ipiv.get(j).map_or(0.0, |&p| p as f64), 0.0));
                }
            }
            FactorOp::LuSolve(trans) => {
                let (f, ipiv) = split_lu(&mat, n, n);
                let k = ins[1].shape.dim(1);
                let mut x = matrix(ins[1], b, n, k);
                lu_solve(&f, &ipiv, n, trans, &mut x, k);
                solved(&mut out, &mut scale, x, condition(&f, &ipiv, n), n);
            }
            FactorOp::LuPermutation => {
                let (_, ipiv) = split_lu(&mat, n, n);
                let eye: Vec<C> = (0..n * n).map(|i| C::new((i % n == i / n) as i32 as f64, 0.0)).collect();
                let unit_l: Vec<C> = eye.clone();
                out.extend(reconstruct_lu(&unit_l, &ipiv, n, n));
            }
            FactorOp::Rcond => {
                let (f, ipiv) = split_lu(&mat, n, n);
                out.push(C::new(1.0 / condition(&f, &ipiv, n), 0.0));
            }
            FactorOp::LogDet => {
                let (f, ipiv) = split_lu(&mat, n, n);
                let swaps = ipiv.iter().enumerate().filter(|&(k, &p)| p != k + 1).count();
                let mut sign = C::new(if swaps % 2 == 0 { 1.0 } else { -1.0 }, 0.0);
                let mut log = 0.0;
                for k in 0..n {
                    let d = f[k + k * n];
                    sign = if d.norm() == 0.0 { C::new(0.0, 0.0) } else { sign * d / d.norm() };
                    log += d.norm().ln();
                }
                let cond = condition(&f, &ipiv, n);
                out.extend([sign, C::new(log, 0.0)]);
                scale.extend([1.0, (n as f64 * cond).max(1.0)]);
            }
            FactorOp::Cholesky => {
                let mut l = vec![C::new(0.0, 0.0); n * n];
                for j in 0..n {
                    let d = mat[j + j * n].re - (0..j).map(|p| l[j + p * n].norm_sqr()).sum::<f64>();
                    l[j + j * n] = C::new(d.sqrt(), 0.0);
                    for i in j + 1..n {
                        let s = mat[i + j * n] - (0..j).map(|p| l[i + p * n] * l[j + p * n].conj()).sum::<C>();
                        l[i + j * n] = s / d.sqrt();
                    }
                }
                out.extend(l);
            }
            FactorOp::CholeskySolve => {
                let k = ins[1].shape.dim(1);
                let mut x = matrix(ins[1], b, n, k);
                substitute(&mat, n, true, false, Trans::None, &mut x, k);
                substitute(&mat, n, true, false, Trans::Conjugate, &mut x, k);
                let lh: Vec<C> = (0..n * n).map(|i| mat[i / n + (i % n) * n].conj()).collect();
                let a_full: Vec<C> =
                    (0..n * n).map(|i| (0..n).map(|p| mat[i % n + p * n] * lh[p + (i / n) * n]).sum()).collect();
                let (f, ipiv) = lu(a_full, n, n);
                solved(&mut out, &mut scale, x, condition(&f, &ipiv, n), n);
            }
            FactorOp::Triangular { lower, unit, trans } => {
                let k = ins[1].shape.dim(1);
                let mut x = matrix(ins[1], b, n, k);
                substitute(&mat, n, lower, unit, trans, &mut x, k);
                let t: Vec<C> = (0..n * n)
                    .map(|i| {
                        let (r, c) = (i % n, i / n);
                        match (r == c, (r > c) == lower) {
                            (true, _) if unit => C::new(1.0, 0.0),
                            (true, _) | (false, true) => mat[i],
                            _ => C::new(0.0, 0.0),
                        }
                    })
                    .collect();
                let (f, ipiv) = lu(t, n, n);
                solved(&mut out, &mut scale, x, condition(&f, &ipiv, n), n);
            }
            FactorOp::Qr(mode) => {
                let (q, r) = householder(mat, m, n);
                let k = mode.q_columns(m, n);
                if mode != QrMode::R {
                    out.extend_from_slice(&q[..m * k]);
                }
                let ld = if mode == QrMode::R { k } else { m };
                out.extend((0..ld * n).map(|i| if i % ld < k { r[i % ld + (i / ld) * m] } else { C::new(0.0, 0.0) }));
            }
            FactorOp::Lstsq => {
                let k = ins[1].shape.dim(1);
                let rhs = matrix(ins[1], b, m, k);
                let (x, cond) = lstsq(&mat, m, n, &rhs, k);
                // The residual's part of the error grows with cond² (Golub and Van Loan).
                let residual = product(&mat, &x, m, n, k);
                let r_norm = residual.iter().zip(&rhs).map(|(p, q)| (p - q).norm()).fold(0.0, f64::max);
                let x_norm = x.iter().map(|z| z.norm()).fold(0.0, f64::max).max(f64::MIN_POSITIVE);
                let a_norm = mat.iter().map(|z| z.norm()).fold(0.0, f64::max).max(f64::MIN_POSITIVE);
                // (and with the larger dimension, not only x's length).
                let cond = cond * (1.0 + cond * r_norm / (a_norm * x_norm)) * (m.max(n) as f64 / n.max(1) as f64);
                solved(&mut out, &mut scale, x, cond, n);
            }
        }
    }
    let complex = dtype.is_complex();
    let elems = out.into_iter().map(|z| if complex { Elem::C(z.re, z.im) } else { Elem::F(z.re) });
    let mut r = Reference::new(dtype, shape, elems);
    if !scale.is_empty() {
        r.scale = Some(scale);
    }
    r
}

/// The columns of Q in a QR result that holds Q beside R in `width` columns (m rows).
fn q_columns(op: FactorOp, m: usize, width: usize) -> usize {
    // Reduced: q = min(m, n) of width q + n.
    if op == FactorOp::Qr(QrMode::Complete) || width >= 2 * m { m } else { width / 2 }
}

/// How a computed factorization or solve (`value`, host memory) differs from its
/// reference beyond the tolerance; `None` when it does not.
pub fn compare(op: FactorOp, reference: &Reference, value: &Value, tol: Tolerance) -> Option<Mismatch> {
    let shape = reference.shape;
    let computed = Reference::of_value(reference.dtype, shape, value);
    match op {
        FactorOp::Lu | FactorOp::Cholesky | FactorOp::Qr(_) => {
            let (rows, n) = (shape.dim(0), shape.dim(1));
            let m = if op == FactorOp::Lu { rows - 1 } else { rows };
            // What a result reconstructs: matrices to compare, each with its row count.
            let rebuild = |r: &Reference, b: usize| -> Vec<(Vec<C>, usize)> {
                let all = matrix(r, b, rows, n);
                match op {
                    FactorOp::Lu => {
                        let (f, ipiv) = split_lu(&all, m, n);
                        vec![(reconstruct_lu(&f, &ipiv, m, n), m)]
                    }
                    FactorOp::Qr(QrMode::R) => vec![(product(&adjoint(&all, m, n), &all, n, m, n), n)],
                    FactorOp::Qr(_) => {
                        // Q (m x q) beside R (q x n, with m rows of storage).
                        let q = q_columns(op, m, n);
                        let (qm, rm) = all.split_at(m * q);
                        let rq: Vec<C> = (0..q * (n - q)).map(|i| rm[i % q + (i / q) * m]).collect();
                        vec![(product(qm, &rq, m, q, n - q), m), (product(&adjoint(qm, m, q), qm, q, m, q), q)]
                    }
                    _ => vec![(product(&all, &adjoint(&all, n, n), n, n, n), n)],
                }
            };
            let mut worst: Option<Mismatch> = None;
            for b in 0..batch_count(&shape) {
                for ((want, m), (got, _)) in rebuild(reference, b).into_iter().zip(rebuild(&computed, b)) {
                    let size = want.iter().map(|z| z.norm()).fold(0.0, f64::max);
                    let allowed = tol.abs + tol.rel * m.max(1) as f64 * size;
                    for (i, (w, g)) in want.iter().zip(&got).enumerate() {
                        let error = (w - g).norm();
                        if error <= allowed || (error.is_nan() && w.norm().is_nan()) {
                            continue;
                        }
                        let bad = worst.as_ref().map_or(0, |x| x.bad) + 1;
                        if worst.as_ref().is_none_or(|x| error.is_nan() || error > x.error) {
                            worst = Some(Mismatch {
                                bad,
                                total: want.len() * batch_count(&shape),
                                worst: vec![(i % m.max(1)) as i64, (i / m.max(1)) as i64, b as i64],
                                computed: g.re,
                                reference: w.re,
                                error,
                                ulps: error / size.max(f64::MIN_POSITIVE),
                            });
                        } else if let Some(x) = worst.as_mut() {
                            x.bad = bad;
                        }
                    }
                }
            }
            worst
        }
        FactorOp::Rcond => {
            let mut worst: Option<Mismatch> = None;
            for i in 0..shape.numel() {
                let (g, w) = (computed.at(i).parts().0, reference.at(i).parts().0);
                let ratio =
                    if w == 0.0 || g == 0.0 { if g == w { 1.0 } else { f64::INFINITY } } else { (g / w).max(w / g) };
                // Tiny condition numbers are dominated by the rounding of the factors.
                if ratio <= 10.0 || w < f64::from(f32::EPSILON) * tol.rel.max(1e-12) {
                    continue;
                }
                worst = Some(Mismatch {
                    bad: worst.as_ref().map_or(1, |x| x.bad + 1),
                    total: shape.numel(),
                    worst: vec![i as i64],
                    computed: g,
                    reference: w,
                    error: (g - w).abs(),
                    ulps: ratio,
                });
            }
            worst
        }
        _ => compare_elements(reference, value, tol),
    }
}
