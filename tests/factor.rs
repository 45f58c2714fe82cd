//! Factorizations and solves (sl_lu, sl_lu_solve, sl_lu_unpack, sl_solve, sl_inv, sl_det,
//! sl_slogdet, sl_rcond, sl_cholesky, sl_cholesky_solve, sl_triangular_solve, sl_qr,
//! sl_lstsq) on fresh
//! random matrices of every type, batched and not, checked by LAPACK's test ratios
//! computed here in f64 (each must be below 30, as LAPACK's own tests require):
//! ‖A − P L U‖₁ / (n ‖A‖₁ eps), ‖op(A) x − b‖₁ / (‖A‖₁ ‖x‖₁ n eps), ‖A − L Lᴴ‖₁ / (n ‖A‖₁
//! eps), ‖QᴴQ − I‖₁ / (m eps), ‖A − Q R‖₁ / (n ‖A‖₁ eps), and for least squares
//! ‖Aᴴ(A x − b)‖₁ / (‖A‖₁ (‖A‖₁ ‖x‖₁ + ‖b‖₁) n eps) (the residual's orthogonality, as
//! LAPACK's `qrt17` measures it); condition estimates within a factor of 10 of the exact value (from the inverse
//! computed here by Gauss–Jordan elimination in f64); then the failures: singular
//! matrices, matrices that are not positive definite, bad shapes and types.

mod common;

use common::*;
use rand::Rng;
use rand::rngs::StdRng;
use sluice::*;

type Z = (f64, f64);

const RATIO: f64 = 30.0;
const TYPES: [sl_dtype; 4] = [SL_F32, SL_F64, SL_C64, SL_C128];

fn eps(dt: sl_dtype) -> f64 {
    if dt == SL_C64 || dt == SL_F32 { f32::EPSILON as f64 } else { f64::EPSILON }
}

fn is_complex(dt: sl_dtype) -> bool {
    dt == SL_C64 || dt == SL_C128
}

fn add(a: Z, b: Z) -> Z {
    (a.0 + b.0, a.1 + b.1)
}
fn sub(a: Z, b: Z) -> Z {
    (a.0 - b.0, a.1 - b.1)
}
fn mul(a: Z, b: Z) -> Z {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}
fn div(a: Z, b: Z) -> Z {
    let d = b.0 * b.0 + b.1 * b.1;
    ((a.0 * b.0 + a.1 * b.1) / d, (a.1 * b.0 - a.0 * b.1) / d)
}
fn conj(a: Z) -> Z {
    (a.0, -a.1)
}
fn abs(a: Z) -> f64 {
    a.0.hypot(a.1)
}

/// A dense column-major matrix in f64.
#[derive(Clone, Debug)]
struct M {
    rows: usize,
    cols: usize,
    v: Vec<Z>,
}

impl M {
    fn zeros(rows: usize, cols: usize) -> M {
        M { rows, cols, v: vec![(0.0, 0.0); rows * cols] }
    }
    fn eye(n: usize) -> M {
        let mut m = M::zeros(n, n);
        (0..n).for_each(|i| m.v[i + i * n] = (1.0, 0.0));
        m
    }
    fn at(&self, i: usize, j: usize) -> Z {
        self.v[i + j * self.rows]
    }
    fn set(&mut self, i: usize, j: usize, z: Z) {
        self.v[i + j * self.rows] = z;
    }
    fn mul(&self, o: &M) -> M {
        let mut r = M::zeros(self.rows, o.cols);
        for j in 0..o.cols {
            for p in 0..self.cols {
                let b = o.at(p, j);
                for i in 0..self.rows {
                    r.v[i + j * self.rows] = add(r.v[i + j * self.rows], mul(self.at(i, p), b));
                }
            }
        }
        r
    }
    fn sub(&self, o: &M) -> M {
        M { rows: self.rows, cols: self.cols, v: self.v.iter().zip(&o.v).map(|(&a, &b)| sub(a, b)).collect() }
    }
    /// op(self): transposed, conjugated as `op` says.
    fn op(&self, op: sl_transpose_op) -> M {
        if op == SL_NO_TRANS {
            return self.clone();
        }
        let mut r = M::zeros(self.cols, self.rows);
        for i in 0..self.rows {
            for j in 0..self.cols {
                let z = self.at(i, j);
                r.set(j, i, if op == SL_CONJ_TRANS { conj(z) } else { z });
            }
        }
        r
    }
    /// Column j's 1-norm.
    fn col_norm1(&self, j: usize) -> f64 {
        (0..self.rows).map(|i| abs(self.at(i, j))).sum()
    }
    fn norm1(&self) -> f64 {
        (0..self.cols).map(|j| (0..self.rows).map(|i| abs(self.at(i, j))).sum::<f64>()).fold(0.0, f64::max)
    }
    /// The inverse by Gauss–Jordan elimination with partial pivoting.
    fn inverse(&self) -> M {
        let n = self.rows;
        let (mut a, mut inv) = (self.clone(), M::eye(n));
        for k in 0..n {
            let p = (k..n).max_by(|&x, &y| abs(a.at(x, k)).total_cmp(&abs(a.at(y, k)))).unwrap();
            for j in 0..n {
                a.v.swap(k + j * n, p + j * n);
                inv.v.swap(k + j * n, p + j * n);
            }
            let d = a.at(k, k);
            for j in 0..n {
                a.set(k, j, div(a.at(k, j), d));
                inv.set(k, j, div(inv.at(k, j), d));
            }
            for i in (0..n).filter(|&i| i != k) {
                let f = a.at(i, k);
                for j in 0..n {
                    a.set(i, j, sub(a.at(i, j), mul(f, a.at(k, j))));
                    inv.set(i, j, sub(inv.at(i, j), mul(f, inv.at(k, j))));
                }
            }
        }
        inv
    }
}

/// Matrices of a batch stored one after another (column-major each).
#[derive(Clone)]
struct Batch {
    dt: sl_dtype,
    rows: usize,
    cols: usize,
    batch: Vec<usize>,
    ms: Vec<M>,
}

impl Batch {
    fn shape(&self) -> Vec<usize> {
        let mut s = vec![self.rows, self.cols];
        s.extend(&self.batch);
        s
    }
    /// Every element as the type stores it (so the checks see the matrix it factored).
    fn rounded(mut self) -> Batch {
        let single = self.dt == SL_F32 || self.dt == SL_C64;
        let real = !is_complex(self.dt);
        for m in &mut self.ms {
            for z in &mut m.v {
                if real {
                    z.1 = 0.0;
                }
                if single {
                    *z = (z.0 as f32 as f64, z.1 as f32 as f64);
                }
            }
        }
        self
    }
    fn upload(&self) -> sl_array {
        let v: Vec<Z> = self.ms.iter().flat_map(|m| m.v.iter().copied()).collect();
        upload_parts(self.dt, &self.shape(), &v)
    }
}

/// Reads an array of matrices (rows x cols, batched) back.
#[track_caller]
fn matrices(h: sl_array, rows: usize, cols: usize) -> Vec<M> {
    let count: usize = shape_of(h).iter().skip(2).product();
    let v = read_parts(h);
    (0..count).map(|k| M { rows, cols, v: v[k * rows * cols..(k + 1) * rows * cols].to_vec() }).collect()
}

/// A random matrix with entries in [-1, 1) (complex ones get both parts random).
fn random(rng: &mut StdRng, rows: usize, cols: usize) -> M {
    M { rows, cols, v: (0..rows * cols).map(|_| (rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0))).collect() }
}

/// The kinds of matrices the ratios are checked on.
#[derive(Copy, Clone, Debug)]
enum Kind {
    Random,
    /// Columns scaled from 1 down to 10^-decades: condition number about 10^decades.
    Graded(i32),
    Upper,
    Lower,
}

fn make(rng: &mut StdRng, kind: Kind, rows: usize, cols: usize) -> M {
    let mut m = random(rng, rows, cols);
    for j in 0..cols {
        for i in 0..rows {
            let z = m.at(i, j);
            match kind {
                Kind::Random => {}
                Kind::Graded(d) => {
                    let s = 10f64.powf(-(d as f64) * j as f64 / (cols.max(2) - 1) as f64);
                    m.set(i, j, (z.0 * s, z.1 * s));
                }
                Kind::Upper if i > j => m.set(i, j, (0.0, 0.0)),
                Kind::Lower if i < j => m.set(i, j, (0.0, 0.0)),
                _ => {}
            }
        }
        if matches!(kind, Kind::Upper | Kind::Lower) && j < rows {
            // Triangular matrices with a diagonal away from zero.
            let z = m.at(j, j);
            m.set(j, j, (z.0.signum() * (1.0 + z.0.abs()), z.1));
        }
    }
    m
}

fn batch_of(rng: &mut StdRng, dt: sl_dtype, kind: Kind, rows: usize, cols: usize, batch: &[usize]) -> Batch {
    let count: usize = batch.iter().product();
    let ms = (0..count).map(|_| make(rng, kind, rows, cols)).collect();
    Batch { dt, rows, cols, batch: batch.to_vec(), ms }.rounded()
}

/// The i32 pivots of an LU result, per matrix.
fn pivots(h: sl_array, per: usize) -> Vec<Vec<usize>> {
    let count: usize = shape_of(h).iter().skip(1).product();
    let v: Vec<usize> = download(h).v.iter().map(|x| x.f() as usize).collect();
    (0..count).map(|k| v[k * per..(k + 1) * per].to_vec()).collect()
}

/// P L U rebuilt from packed factors and 1-based LAPACK pivots.
fn rebuild(f: &M, ipiv: &[usize]) -> M {
    let (m, n) = (f.rows, f.cols);
    let k = m.min(n);
    let mut l = M::zeros(m, k);
    let mut u = M::zeros(k, n);
    for i in 0..m {
        for j in 0..n {
            if i > j && j < k {
                l.set(i, j, f.at(i, j));
            } else if i < k {
                u.set(i, j, f.at(i, j));
            }
        }
    }
    (0..k).for_each(|i| l.set(i, i, (1.0, 0.0)));
    let mut a = l.mul(&u);
    for (r, &p) in ipiv.iter().enumerate().rev() {
        assert!((1..=m).contains(&p), "pivot {p} of row {r} is outside 1..={m}");
        for j in 0..n {
            a.v.swap(r + j * m, p - 1 + j * m);
        }
    }
    a
}

const SHAPES: [(usize, usize); 9] = [(1, 1), (2, 2), (5, 5), (16, 16), (37, 37), (9, 4), (4, 9), (0, 3), (3, 0)];

#[test]
fn lu_reconstructs_the_matrix() {
    let mut rng = rng("lu_reconstructs_the_matrix");
    for dt in TYPES {
        for (rows, cols) in SHAPES {
            for kind in [Kind::Random, Kind::Graded(6), Kind::Upper, Kind::Lower] {
                for batch in [&[][..], &[3][..], &[2, 2][..]] {
                    let a = batch_of(&mut rng, dt, kind, rows, cols, batch);
                    let ha = a.upload();
                    let (mut hf, mut hp) = (0, 0);
                    ok(sl_lu(ha, &mut hf, &mut hp));
                    let mut want_piv = vec![rows.min(cols)];
                    want_piv.extend(batch);
                    assert_eq!(shape_of(hp), want_piv);
                    assert_eq!(dtype_of(hp), SL_I32);
                    let fs = matrices(hf, rows, cols);
                    let ps = pivots(hp, rows.min(cols));
                    for (i, m) in a.ms.iter().enumerate() {
                        let n = rows.max(cols).max(1) as f64;
                        let ratio =
                            rebuild(&fs[i], &ps[i]).sub(m).norm1() / (n * m.norm1().max(f64::MIN_POSITIVE) * eps(dt));
                        assert!(ratio < RATIO, "{dt} {kind:?} {rows}x{cols} batch {batch:?} #{i}: ratio {ratio}");
                    }
                    release(&[ha, hf, hp]);
                }
            }
        }
    }
}

#[test]
fn lu_unpack_gives_p_l_u() {
    let mut rng = rng("lu_unpack_gives_p_l_u");
    for dt in TYPES {
        for n in [1, 3, 12] {
            let a = batch_of(&mut rng, dt, Kind::Random, n, n, &[2]);
            let ha = a.upload();
            let (mut hf, mut hp, mut hl, mut hu, mut hperm) = (0, 0, 0, 0, 0);
            ok(sl_lu(ha, &mut hf, &mut hp));
            ok(sl_lu_unpack(hf, hp, &mut hl, &mut hu, &mut hperm));
            let (ls, us, ps) = (matrices(hl, n, n), matrices(hu, n, n), matrices(hperm, n, n));
            for (i, m) in a.ms.iter().enumerate() {
                for r in 0..n {
                    assert_eq!(ls[i].at(r, r), (1.0, 0.0), "L's diagonal");
                    for c in r + 1..n {
                        assert_eq!(ls[i].at(r, c), (0.0, 0.0), "L above the diagonal");
                        assert_eq!(us[i].at(c, r), (0.0, 0.0), "U below the diagonal");
                    }
                }
                let plu = ps[i].mul(&ls[i]).mul(&us[i]);
                let ratio = plu.sub(m).norm1() / (n as f64 * m.norm1() * eps(dt));
                assert!(ratio < RATIO, "{dt} {n}x{n} #{i}: P L U ratio {ratio}");
            }
            release(&[ha, hf, hp, hl, hu, hperm]);
        }
    }
}

/// ‖op(A) x − b‖₁ / (‖A‖₁ ‖x‖₁ n eps) per right-hand side, the worst.
fn solve_ratio(dt: sl_dtype, a: &M, op: sl_transpose_op, x: &M, b: &M) -> f64 {
    let r = a.op(op).mul(x).sub(b);
    let n = a.rows.max(1) as f64;
    (0..x.cols)
        .map(|j| {
            let col = |m: &M| (0..m.rows).map(|i| abs(m.at(i, j))).sum::<f64>();
            col(&r) / (a.norm1() * col(x).max(f64::MIN_POSITIVE) * n * eps(dt))
        })
        .fold(0.0, f64::max)
}

#[test]
fn solves_have_small_residuals() {
    let mut rng = rng("solves_have_small_residuals");
    for dt in TYPES {
        for n in [1, 4, 17, 50] {
            for kind in [Kind::Random, Kind::Graded(5), Kind::Upper] {
                for k in [1, 3] {
                    for batch in [&[][..], &[4][..]] {
                        let a = batch_of(&mut rng, dt, kind, n, n, batch);
                        let b = batch_of(&mut rng, dt, Kind::Random, n, k, batch);
                        let (ha, hb) = (a.upload(), b.upload());
                        // sl_solve, and the three ops of sl_lu_solve.
                        let mut hx = 0;
                        ok(sl_solve(ha, hb, &mut hx));
                        let xs = matrices(hx, n, k);
                        for (i, ((m, x), rhs)) in a.ms.iter().zip(&xs).zip(&b.ms).enumerate() {
                            let ratio = solve_ratio(dt, m, SL_NO_TRANS, x, rhs);
                            assert!(ratio < RATIO, "sl_solve {dt} {kind:?} {n} k={k} {batch:?} #{i}: {ratio}");
                        }
                        let (mut hf, mut hp) = (0, 0);
                        ok(sl_lu(ha, &mut hf, &mut hp));
                        for op in [SL_NO_TRANS, SL_TRANS, SL_CONJ_TRANS] {
                            let mut hy = 0;
                            ok(sl_lu_solve(hf, hp, op, hb, &mut hy));
                            let ys = matrices(hy, n, k);
                            for (i, ((m, y), rhs)) in a.ms.iter().zip(&ys).zip(&b.ms).enumerate() {
                                let ratio = solve_ratio(dt, m, op, y, rhs);
                                assert!(
                                    ratio < RATIO,
                                    "sl_lu_solve op {op} {dt} {kind:?} {n} k={k} {batch:?} #{i}: {ratio}"
                                );
                            }
                            release(&[hy]);
                        }
                        release(&[ha, hb, hx, hf, hp]);
                    }
                }
            }
        }
    }
}

#[test]
fn vector_and_shared_right_hand_sides() {
    let mut rng = rng("vector_and_shared_right_hand_sides");
    for dt in TYPES {
        let n = 6;
        // A vector b gives a vector x.
        let a = batch_of(&mut rng, dt, Kind::Random, n, n, &[]);
        let b = batch_of(&mut rng, dt, Kind::Random, n, 1, &[]);
        let (ha, hb) = (a.upload(), b.upload());
        let v: Vec<Z> = b.ms[0].v.clone();
        let hv = upload_parts(dt, &[n], &v);
        let mut hx = 0;
        ok(sl_solve(ha, hv, &mut hx));
        assert_eq!(shape_of(hx), vec![n]);
        let x = M { rows: n, cols: 1, v: read_parts(hx) };
        assert!(solve_ratio(dt, &a.ms[0], SL_NO_TRANS, &x, &b.ms[0]) < RATIO);
        // One b (no batch dimensions) for a whole batch.
        let batch = batch_of(&mut rng, dt, Kind::Random, n, n, &[5]);
        let hbatch = batch.upload();
        let mut hy = 0;
        ok(sl_solve(hbatch, hb, &mut hy));
        assert_eq!(shape_of(hy), vec![n, 1, 5]);
        for (i, y) in matrices(hy, n, 1).iter().enumerate() {
            assert!(solve_ratio(dt, &batch.ms[i], SL_NO_TRANS, y, &b.ms[0]) < RATIO, "shared b #{i}");
        }
        release(&[ha, hb, hv, hx, hbatch, hy]);
    }
}

#[test]
fn inverse_determinant_and_condition() {
    let mut rng = rng("inverse_determinant_and_condition");
    for dt in TYPES {
        for n in [1, 2, 7, 30] {
            for kind in [Kind::Random, Kind::Graded(4), Kind::Lower] {
                let a = batch_of(&mut rng, dt, kind, n, n, &[3]);
                let ha = a.upload();
                let (mut hi, mut hd, mut hs, mut hl, mut hr) = (0, 0, 0, 0, 0);
                ok(sl_inv(ha, &mut hi));
                ok(sl_det(ha, &mut hd));
                ok(sl_slogdet(ha, &mut hs, &mut hl));
                ok(sl_rcond(ha, &mut hr));
                assert_eq!(shape_of(hd), vec![3]);
                assert_eq!(dtype_of(hr), if dt == SL_F32 || dt == SL_C64 { SL_F32 } else { SL_F64 });
                let invs = matrices(hi, n, n);
                let (dets, signs, logs) = (read_parts(hd), read_parts(hs), read_parts(hl));
                let rconds = read_parts(hr);
                for (i, m) in a.ms.iter().enumerate() {
                    let exact = m.inverse();
                    let cond = m.norm1() * exact.norm1();
                    // ‖A X − I‖₁ / (n ‖A‖₁ ‖X‖₁ eps)
                    let r =
                        m.mul(&invs[i]).sub(&M::eye(n)).norm1() / (n as f64 * m.norm1() * invs[i].norm1() * eps(dt));
                    assert!(r < RATIO, "sl_inv {dt} {kind:?} {n} #{i}: ratio {r}");
                    // The determinant from this test's own elimination (its pivots' product).
                    let want = determinant(m);
                    let tol = RATIO * n as f64 * eps(dt) * cond;
                    let log_want = abs(want).ln();
                    assert!(
                        (logs[i].0 - log_want).abs() <= tol,
                        "slogdet {dt} {kind:?} {n} #{i}: {} vs {log_want}",
                        logs[i].0
                    );
                    let sign_want = (want.0 / abs(want), want.1 / abs(want));
                    assert!(
                        abs(sub(signs[i], sign_want)) <= tol,
                        "sign {dt} {n} #{i}: {:?} vs {sign_want:?}",
                        signs[i]
                    );
                    assert!(abs(sub(dets[i], want)) <= tol * abs(want), "det {dt} {n} #{i}: {:?} vs {want:?}", dets[i]);
                    let ratio = rconds[i].0 * cond;
                    assert!(
                        (0.1..=10.0).contains(&ratio),
                        "rcond {dt} {kind:?} {n} #{i}: {} vs {}",
                        rconds[i].0,
                        1.0 / cond
                    );
                }
                release(&[ha, hi, hd, hs, hl, hr]);
            }
        }
    }
}

/// det(m) by Gauss–Jordan elimination in f64.
fn determinant(m: &M) -> Z {
    let n = m.rows;
    let mut a = m.clone();
    let mut det = (1.0, 0.0);
    for k in 0..n {
        let p = (k..n).max_by(|&x, &y| abs(a.at(x, k)).total_cmp(&abs(a.at(y, k)))).unwrap();
        if p != k {
            det = (-det.0, -det.1);
            for j in 0..n {
                a.v.swap(k + j * n, p + j * n);
            }
        }
        det = mul(det, a.at(k, k));
        for i in k + 1..n {
            let f = div(a.at(i, k), a.at(k, k));
            for j in k..n {
                a.set(i, j, sub(a.at(i, j), mul(f, a.at(k, j))));
            }
        }
    }
    det
}

/// A Hermitian positive definite matrix: B Bᴴ + n I.
fn spd(rng: &mut StdRng, dt: sl_dtype, n: usize, batch: &[usize]) -> Batch {
    let count: usize = batch.iter().product();
    let ms = (0..count)
        .map(|_| {
            let b = Batch { dt, rows: n, cols: n, batch: vec![], ms: vec![random(rng, n, n)] }.rounded().ms.remove(0);
            let mut a = b.mul(&b.op(SL_CONJ_TRANS));
            (0..n).for_each(|i| a.set(i, i, (a.at(i, i).0 + n as f64, 0.0)));
            a
        })
        .collect();
    Batch { dt, rows: n, cols: n, batch: batch.to_vec(), ms }.rounded()
}

#[test]
fn cholesky_factors_and_solves() {
    let mut rng = rng("cholesky_factors_and_solves");
    for dt in TYPES {
        for n in [1, 3, 20, 45] {
            for batch in [&[][..], &[3][..]] {
                let a = spd(&mut rng, dt, n, batch);
                let b = batch_of(&mut rng, dt, Kind::Random, n, 2, batch);
                let (ha, hb) = (a.upload(), b.upload());
                let (mut hl, mut hx) = (0, 0);
                ok(sl_cholesky(ha, &mut hl));
                ok(sl_cholesky_solve(hl, hb, &mut hx));
                let (ls, xs) = (matrices(hl, n, n), matrices(hx, n, 2));
                for (i, m) in a.ms.iter().enumerate() {
                    let l = &ls[i];
                    for r in 0..n {
                        let d = l.at(r, r);
                        assert!(
                            d.0 > 0.0 && d.1.abs() <= eps(dt) * d.0,
                            "{dt} n={n}: L's diagonal is real and positive: {d:?}"
                        );
                        for c in r + 1..n {
                            assert_eq!(l.at(r, c), (0.0, 0.0), "L is zero above the diagonal");
                        }
                    }
                    let ratio = l.mul(&l.op(SL_CONJ_TRANS)).sub(m).norm1() / (n as f64 * m.norm1() * eps(dt));
                    assert!(ratio < RATIO, "cholesky {dt} {n} {batch:?} #{i}: {ratio}");
                    let ratio = solve_ratio(dt, m, SL_NO_TRANS, &xs[i], &b.ms[i]);
                    assert!(ratio < RATIO, "cholesky_solve {dt} {n} {batch:?} #{i}: {ratio}");
                }
                release(&[ha, hb, hl, hx]);
            }
        }
    }
}

#[test]
fn triangular_solves_every_form() {
    let mut rng = rng("triangular_solves_every_form");
    for dt in TYPES {
        for n in [1, 5, 33] {
            for (uplo, kind) in [(SL_LOWER, Kind::Lower), (SL_UPPER, Kind::Upper)] {
                for diag in [SL_NON_UNIT_DIAG, SL_UNIT_DIAG] {
                    for op in [SL_NO_TRANS, SL_TRANS, SL_CONJ_TRANS] {
                        // The other triangle holds random values the solve must not read.
                        let full = batch_of(&mut rng, dt, Kind::Random, n, n, &[2]);
                        let mut t = batch_of(&mut rng, dt, kind, n, n, &[2]);
                        let b = batch_of(&mut rng, dt, Kind::Random, n, 3, &[2]);
                        let mut stored = Batch { dt, rows: n, cols: n, batch: vec![2], ms: t.ms.clone() };
                        for (s, f) in stored.ms.iter_mut().zip(&full.ms) {
                            for i in 0..n {
                                for j in 0..n {
                                    let other = if uplo == SL_LOWER { i < j } else { i > j };
                                    if other || (diag == SL_UNIT_DIAG && i == j) {
                                        s.set(i, j, f.at(i, j));
                                    }
                                }
                            }
                        }
                        if diag == SL_UNIT_DIAG {
                            t.ms.iter_mut().for_each(|m| (0..n).for_each(|i| m.set(i, i, (1.0, 0.0))));
                        }
                        let (ht, hb) = (stored.upload(), b.upload());
                        let mut hx = 0;
                        ok(sl_triangular_solve(ht, uplo, op, diag, hb, &mut hx));
                        for (i, x) in matrices(hx, n, 3).iter().enumerate() {
                            let ratio = solve_ratio(dt, &t.ms[i], op, x, &b.ms[i]);
                            assert!(ratio < RATIO, "{dt} n={n} uplo {uplo} diag {diag} op {op} #{i}: {ratio}");
                        }
                        release(&[ht, hb, hx]);
                    }
                }
            }
        }
    }
}

/// A batch of 4 matrices of which #1 and #3 are singular (a zero column 2).
fn singular_batch(rng: &mut StdRng, dt: sl_dtype, n: usize) -> Batch {
    let mut a = batch_of(rng, dt, Kind::Random, n, n, &[4]);
    for i in [1, 3] {
        (0..n).for_each(|r| a.ms[i].set(r, 2, (0.0, 0.0)));
    }
    a
}

#[test]
fn singular_matrices_fail_where_the_result_is_read() {
    let mut rng = rng("singular_matrices_fail_where_the_result_is_read");
    for dt in TYPES {
        let n = 5;
        let a = singular_batch(&mut rng, dt, n);
        let b = batch_of(&mut rng, dt, Kind::Random, n, 1, &[4]);
        let (ha, hb) = (a.upload(), b.upload());
        // LU of a singular matrix is not an error (LAPACK's info > 0): U has a zero pivot.
        let (mut hf, mut hp) = (0, 0);
        ok(sl_lu(ha, &mut hf, &mut hp));
        let fs = matrices(hf, n, n);
        assert_eq!(fs[1].at(2, 2), (0.0, 0.0), "the first zero pivot is on U's diagonal");
        // The solve is made, and fails where x is read, naming the matrices that failed.
        let mut hx = 0;
        ok(sl_solve(ha, hb, &mut hx));
        let mut buf = vec![0u8; n * n * 4 * 16];
        let st = sl_read(hx, SL_COL_MAJOR, buf.as_mut_ptr() as *mut _, buf.len());
        fails(st, SL_ERR_SINGULAR, "2 of the 4 5x5 matrices");
        let msg = last_error().1;
        assert!(msg.contains("matrix 1 (pivot 2") && msg.contains("matrix 3 (pivot 2"), "{msg}");
        assert!(msg.contains("sl_solve"), "the message names the call: {msg}");
        // So does what is computed from it, and the inverse.
        let (mut hy, mut hi) = (0, 0);
        ok(sl_mul_scalar(hx, 2.0, &mut hy));
        fails(sl_read(hy, SL_COL_MAJOR, buf.as_mut_ptr() as *mut _, buf.len()), SL_ERR_SINGULAR, "singular");
        ok(sl_inv(ha, &mut hi));
        fails(sl_read(hi, SL_COL_MAJOR, buf.as_mut_ptr() as *mut _, buf.len()), SL_ERR_SINGULAR, "singular");
        // The determinant of a singular matrix is 0, its condition number 0.
        let (mut hd, mut hr) = (0, 0);
        ok(sl_det(ha, &mut hd));
        ok(sl_rcond(ha, &mut hr));
        let (dets, rconds) = (read_parts(hd), read_parts(hr));
        assert_eq!((dets[1], dets[3]), ((0.0, 0.0), (0.0, 0.0)));
        assert_eq!((rconds[1].0, rconds[3].0), (0.0, 0.0));
        assert!(dets[0] != (0.0, 0.0) && rconds[0].0 > 0.0);
        // A single matrix: the message names the pivot.
        let one = Batch { dt, rows: n, cols: n, batch: vec![], ms: vec![a.ms[1].clone()] };
        let (h1, hb1) = (one.upload(), batch_of(&mut rng, dt, Kind::Random, n, 1, &[]).upload());
        let mut hx1 = 0;
        ok(sl_solve(h1, hb1, &mut hx1));
        let st = sl_read(hx1, SL_COL_MAJOR, buf.as_mut_ptr() as *mut _, buf.len());
        fails(st, SL_ERR_SINGULAR, "5x5 matrix is singular: pivot 2 (0-based)");
        release(&[ha, hb, hf, hp, hx, hy, hi, hd, hr, h1, hb1, hx1]);
        // The runtime is still usable.
        let c = batch_of(&mut rng, dt, Kind::Random, 3, 3, &[]);
        let hc = c.upload();
        let mut hci = 0;
        ok(sl_inv(hc, &mut hci));
        assert_eq!(matrices(hci, 3, 3).len(), 1);
        release(&[hc, hci]);
    }
}

#[test]
fn not_positive_definite_fails_cholesky() {
    let mut rng = rng("not_positive_definite_fails_cholesky");
    for dt in TYPES {
        let n = 4;
        let mut a = spd(&mut rng, dt, n, &[3]);
        // Matrix 2's leading minor of order 3 is negative.
        a.ms[2].set(2, 2, (-100.0, 0.0));
        let ha = a.upload();
        let mut hl = 0;
        ok(sl_cholesky(ha, &mut hl));
        let mut buf = vec![0u8; n * n * 3 * 16];
        fails(
            sl_read(hl, SL_COL_MAJOR, buf.as_mut_ptr() as *mut _, buf.len()),
            SL_ERR_SINGULAR,
            "not positive definite",
        );
        let msg = last_error().1;
        assert!(msg.contains("matrix 2 (the leading minor of order 3"), "{msg}");
        release(&[ha, hl]);
    }
}

#[test]
fn bad_shapes_and_types_are_refused_at_the_call() {
    let mut rng = rng("bad_shapes_and_types_are_refused_at_the_call");
    let square = batch_of(&mut rng, SL_F64, Kind::Random, 3, 3, &[]).upload();
    let wide = batch_of(&mut rng, SL_F64, Kind::Random, 3, 4, &[]).upload();
    let b4 = batch_of(&mut rng, SL_F64, Kind::Random, 4, 1, &[]).upload();
    let b32 = batch_of(&mut rng, SL_F32, Kind::Random, 3, 1, &[]).upload();
    let batched = batch_of(&mut rng, SL_F64, Kind::Random, 3, 3, &[2]).upload();
    let b_other_batch = batch_of(&mut rng, SL_F64, Kind::Random, 3, 1, &[5]).upload();
    let ints = Arr::new(SL_I32, &[2, 2], vec![V::I32(1), V::I32(2), V::I32(3), V::I32(4)]).upload();
    let vector = Arr::new(SL_F64, &[3], vec![V::F64(1.0); 3]).upload();
    let mut x = 7;
    fails(sl_solve(wide, b4, &mut x), SL_ERR_SHAPE_MISMATCH, "[3, 4]");
    assert_eq!(x, 0, "a failed call leaves the null handle");
    fails(sl_solve(square, b4, &mut x), SL_ERR_SHAPE_MISMATCH, "[4, 1]");
    fails(sl_solve(square, b32, &mut x), SL_ERR_DTYPE_MISMATCH, "f32");
    fails(sl_solve(batched, b_other_batch, &mut x), SL_ERR_SHAPE_MISMATCH, "[3, 1, 5]");
    fails(sl_inv(ints, &mut x), SL_ERR_DTYPE_MISMATCH, "i32");
    fails(sl_lu(vector, &mut x, &mut x), SL_ERR_SHAPE_MISMATCH, "[3]");
    fails(sl_det(wide, &mut x), SL_ERR_SHAPE_MISMATCH, "square");
    fails(sl_cholesky(wide, &mut x), SL_ERR_SHAPE_MISMATCH, "square");
    fails(sl_rcond(ints, &mut x), SL_ERR_DTYPE_MISMATCH, "i32");
    fails(sl_triangular_solve(square, 7, SL_NO_TRANS, SL_UNIT_DIAG, b32, &mut x), SL_ERR_INVALID_ARGUMENT, "uplo");
    fails(sl_triangular_solve(square, SL_LOWER, 9, SL_UNIT_DIAG, b32, &mut x), SL_ERR_INVALID_ARGUMENT, "trans");
    fails(sl_triangular_solve(square, SL_LOWER, SL_NO_TRANS, 5, b32, &mut x), SL_ERR_INVALID_ARGUMENT, "diag");
    let (mut f, mut p) = (0, 0);
    ok(sl_lu(square, &mut f, &mut p));
    fails(sl_lu_solve(f, square, SL_NO_TRANS, b4, &mut x), SL_ERR_SHAPE_MISMATCH, "pivots");
    release(&[square, wide, b4, b32, batched, b_other_batch, ints, vector, f, p]);
}

const QR_SHAPES: [(usize, usize); 10] =
    [(1, 1), (2, 2), (5, 5), (16, 16), (37, 20), (20, 37), (9, 4), (4, 9), (0, 3), (3, 0)];
const QR_MODES: [sl_qr_mode; 3] = [SL_QR_REDUCED, SL_QR_COMPLETE, SL_QR_R];

/// sl_qr of `a` in `mode`: Q (None for SL_QR_R) and R, read back.
fn qr(a: &Batch, mode: sl_qr_mode) -> (Option<Vec<M>>, Vec<M>) {
    let (m, n) = (a.rows, a.cols);
    let q_cols = if mode == SL_QR_COMPLETE { m } else { m.min(n) };
    let ha = a.upload();
    let (mut hq, mut hr) = (0, 0);
    ok(sl_qr(ha, mode, if mode == SL_QR_R { std::ptr::null_mut() } else { &mut hq }, &mut hr));
    let mut r_shape = vec![q_cols, n];
    r_shape.extend(&a.batch);
    assert_eq!(shape_of(hr), r_shape, "R's shape, mode {mode}");
    let q = (mode != SL_QR_R).then(|| {
        let mut q_shape = vec![m, q_cols];
        q_shape.extend(&a.batch);
        assert_eq!(shape_of(hq), q_shape, "Q's shape, mode {mode}");
        matrices(hq, m, q_cols)
    });
    let r = matrices(hr, q_cols, n);
    release(&[ha, hr]);
    if mode != SL_QR_R {
        release(&[hq]);
    }
    (q, r)
}

/// ‖QᴴQ − I‖₁ / (m eps) and ‖A − Q R‖₁ / (n ‖A‖₁ eps); R must be upper triangular.
fn qr_ratios(dt: sl_dtype, a: &M, q: &M, r: &M) -> (f64, f64) {
    for j in 0..r.cols {
        for i in j + 1..r.rows {
            assert_eq!(r.at(i, j), (0.0, 0.0), "R below the diagonal at ({i}, {j})");
        }
    }
    let size = a.rows.max(a.cols).max(1) as f64;
    let orthogonal = q.op(SL_CONJ_TRANS).mul(q).sub(&M::eye(q.cols)).norm1() / (size * eps(dt));
    let product = a.sub(&q.mul(r)).norm1() / (size * a.norm1().max(f64::MIN_POSITIVE) * eps(dt));
    (orthogonal, product)
}

#[test]
fn qr_is_orthogonal_and_reconstructs() {
    let mut rng = rng("qr_is_orthogonal_and_reconstructs");
    for dt in TYPES {
        for (rows, cols) in QR_SHAPES {
            for kind in [Kind::Random, Kind::Graded(6), Kind::Upper] {
                for batch in [&[][..], &[3][..]] {
                    let a = batch_of(&mut rng, dt, kind, rows, cols, batch);
                    let (q, reduced_r) = qr(&a, SL_QR_REDUCED);
                    let (complete_q, complete_r) = qr(&a, SL_QR_COMPLETE);
                    let (_, r_only) = qr(&a, SL_QR_R);
                    let what = format!("{dt} {kind:?} {rows}x{cols} batch {batch:?}");
                    for (i, m) in a.ms.iter().enumerate() {
                        for (mode, q, r) in [
                            ("reduced", &q.as_ref().unwrap()[i], &reduced_r[i]),
                            ("complete", &complete_q.as_ref().unwrap()[i], &complete_r[i]),
                        ] {
                            let (orthogonal, product) = qr_ratios(dt, m, q, r);
                            assert!(orthogonal < RATIO, "{what} #{i} {mode}: ‖QᴴQ − I‖ ratio {orthogonal}");
                            assert!(product < RATIO, "{what} #{i} {mode}: ‖A − QR‖ ratio {product}");
                        }
                        // R alone: Rᴴ R = Aᴴ A (R's rows are unique up to their signs).
                        let r = &r_only[i];
                        let gram = r.op(SL_CONJ_TRANS).mul(r).sub(&m.op(SL_CONJ_TRANS).mul(m)).norm1();
                        let scale = rows.max(cols).max(1) as f64 * m.norm1().powi(2).max(f64::MIN_POSITIVE);
                        let ratio = gram / (scale * eps(dt));
                        assert!(ratio < RATIO, "{what} #{i} R only: ‖RᴴR − AᴴA‖ ratio {ratio}");
                    }
                }
            }
        }
    }
}

/// The least-squares solution of A x = b from the normal equations, in f64: (AᴴA)⁻¹Aᴴb
/// for a tall A, Aᴴ(AAᴴ)⁻¹b (the least-norm one) for a wide one; and the 1-norm
/// condition number of the Gram matrix (about cond(A)²).
fn normal_equations(a: &M, b: &M) -> (M, f64) {
    let ah = a.op(SL_CONJ_TRANS);
    let tall = a.rows >= a.cols;
    let gram = if tall { ah.mul(a) } else { a.mul(&ah) };
    let inv = gram.inverse();
    let cond = gram.norm1() * inv.norm1();
    (if tall { inv.mul(&ah.mul(b)) } else { ah.mul(&inv.mul(b)) }, cond)
}

/// Checks sl_lstsq's x of every matrix of `a` and `b`: the residual's orthogonality to
/// A's columns, and x against the normal equations' solution within what the condition
/// numbers allow.
fn check_lstsq(dt: sl_dtype, what: &str, a: &Batch, b: &Batch, xs: &[M]) {
    let size = a.rows.max(a.cols).max(1) as f64;
    for (i, ((m, x), rhs)) in a.ms.iter().zip(xs).zip(&b.ms).enumerate() {
        let r = m.mul(x).sub(rhs);
        let (want, gram_cond) = normal_equations(m, rhs);
        let cond = gram_cond.sqrt();
        for j in 0..x.cols {
            let orthogonal = m.op(SL_CONJ_TRANS).mul(&r).col_norm1(j)
                / (m.norm1() * (m.norm1() * x.col_norm1(j) + rhs.col_norm1(j)) * size * eps(dt)).max(f64::MIN_POSITIVE);
            assert!(orthogonal < RATIO, "{what} #{i} column {j}: ‖Aᴴ(Ax − b)‖ ratio {orthogonal}");
            let x_size = want.col_norm1(j).max(f64::MIN_POSITIVE);
            let error = (0..x.rows).map(|k| abs(sub(x.at(k, j), want.at(k, j)))).sum::<f64>() / x_size;
            let residual = r.col_norm1(j) / (m.norm1() * x_size).max(f64::MIN_POSITIVE);
            let allowed = RATIO * size * (eps(dt) * (cond + gram_cond * residual) + f64::EPSILON * gram_cond);
            assert!(
                error <= allowed,
                "{what} #{i} column {j}: x differs from the normal equations' by {error} > {allowed}"
            );
        }
    }
}

#[test]
fn least_squares_residuals_are_orthogonal() {
    let mut rng = rng("least_squares_residuals_are_orthogonal");
    for dt in TYPES {
        let graded = if eps(dt) > 1e-10 { Kind::Graded(3) } else { Kind::Graded(6) };
        for (rows, cols) in [(1, 1), (5, 5), (20, 7), (50, 3), (9, 4), (4, 9), (3, 20), (0, 3), (3, 0)] {
            for kind in [Kind::Random, graded, Kind::Upper] {
                for k in [1, 3] {
                    for batch in [&[][..], &[3][..]] {
                        let a = batch_of(&mut rng, dt, kind, rows, cols, batch);
                        let b = batch_of(&mut rng, dt, Kind::Random, rows, k, batch);
                        let (ha, hb) = (a.upload(), b.upload());
                        let mut hx = 0;
                        ok(sl_lstsq(ha, hb, &mut hx));
                        let mut want_shape = vec![cols, k];
                        want_shape.extend(batch);
                        assert_eq!(shape_of(hx), want_shape);
                        let what = format!("{dt} {kind:?} {rows}x{cols} k={k} batch {batch:?}");
                        check_lstsq(dt, &what, &a, &b, &matrices(hx, cols, k));
                        release(&[ha, hb, hx]);
                    }
                }
            }
        }
        // A vector b gives a vector x; a b without batch dimensions serves the batch.
        let a = batch_of(&mut rng, dt, Kind::Random, 8, 3, &[]);
        let b = batch_of(&mut rng, dt, Kind::Random, 8, 1, &[]);
        let (ha, hb) = (a.upload(), b.upload());
        let v: Vec<Z> = b.ms[0].v.clone();
        let hv = upload_parts(dt, &[8], &v);
        let mut hx = 0;
        ok(sl_lstsq(ha, hv, &mut hx));
        assert_eq!(shape_of(hx), vec![3]);
        check_lstsq(dt, "vector b", &a, &b, &[M { rows: 3, cols: 1, v: read_parts(hx) }]);
        let batched = batch_of(&mut rng, dt, Kind::Random, 8, 3, &[2]);
        let hbatched = batched.upload();
        let mut hy = 0;
        ok(sl_lstsq(hbatched, hb, &mut hy));
        let shared = Batch { dt, rows: 8, cols: 1, batch: vec![2], ms: vec![b.ms[0].clone(), b.ms[0].clone()] };
        check_lstsq(dt, "shared b", &batched, &shared, &matrices(hy, 3, 1));
        release(&[ha, hb, hv, hx, hbatched, hy]);
    }
}

#[test]
fn rank_deficient_least_squares_fails_where_x_is_read() {
    let mut rng = rng("rank_deficient_least_squares_fails_where_x_is_read");
    for dt in TYPES {
        for (rows, cols) in [(6, 4), (4, 6)] {
            // Matrices #1 and #3 have a zero column (tall) or row (wide) 2.
            let mut a = batch_of(&mut rng, dt, Kind::Random, rows, cols, &[4]);
            for i in [1, 3] {
                if rows >= cols {
                    (0..rows).for_each(|r| a.ms[i].set(r, 2, (0.0, 0.0)));
                } else {
                    (0..cols).for_each(|c| a.ms[i].set(2, c, (0.0, 0.0)));
                }
            }
            let b = batch_of(&mut rng, dt, Kind::Random, rows, 2, &[4]);
            let (ha, hb) = (a.upload(), b.upload());
            let mut hx = 0;
            ok(sl_lstsq(ha, hb, &mut hx));
            let mut buf = vec![0u8; rows * cols * 4 * 16];
            let st = sl_read(hx, SL_COL_MAJOR, buf.as_mut_ptr() as *mut _, buf.len());
            fails(st, SL_ERR_SINGULAR, &format!("2 of the 4 {rows}x{cols} matrices of a batch are rank-deficient"));
            let msg = last_error().1;
            assert!(
                msg.contains("matrix 1 (R's diagonal entry 2") && msg.contains("matrix 3 (R's diagonal entry 2"),
                "{msg}"
            );
            assert!(msg.contains("sl_lstsq"), "the message names the call: {msg}");
            release(&[ha, hb, hx]);
        }
        // The runtime is still usable.
        let a = batch_of(&mut rng, dt, Kind::Random, 5, 2, &[]);
        let b = batch_of(&mut rng, dt, Kind::Random, 5, 1, &[]);
        let (ha, hb) = (a.upload(), b.upload());
        let mut hx = 0;
        ok(sl_lstsq(ha, hb, &mut hx));
        check_lstsq(dt, "after a failure", &a, &b, &matrices(hx, 2, 1));
        release(&[ha, hb, hx]);
    }
}

#[test]
fn qr_and_lstsq_refuse_bad_arguments_at_the_call() {
    let mut rng = rng("qr_and_lstsq_refuse_bad_arguments_at_the_call");
    let tall = batch_of(&mut rng, SL_F64, Kind::Random, 4, 3, &[]).upload();
    let b3 = batch_of(&mut rng, SL_F64, Kind::Random, 3, 1, &[]).upload();
    let b32 = batch_of(&mut rng, SL_F32, Kind::Random, 4, 1, &[]).upload();
    let batched = batch_of(&mut rng, SL_F64, Kind::Random, 4, 3, &[2]).upload();
    let b_other_batch = batch_of(&mut rng, SL_F64, Kind::Random, 4, 1, &[5]).upload();
    let ints = Arr::new(SL_I32, &[2, 2], vec![V::I32(1), V::I32(2), V::I32(3), V::I32(4)]).upload();
    let vector = Arr::new(SL_F64, &[3], vec![V::F64(1.0); 3]).upload();
    let (mut q, mut r, mut x) = (7, 7, 7);
    fails(sl_qr(ints, SL_QR_REDUCED, &mut q, &mut r), SL_ERR_DTYPE_MISMATCH, "i32");
    assert_eq!((q, r), (0, 0), "a failed call leaves null handles");
    fails(sl_qr(vector, SL_QR_REDUCED, &mut q, &mut r), SL_ERR_SHAPE_MISMATCH, "[3]");
    fails(sl_qr(tall, 3, &mut q, &mut r), SL_ERR_INVALID_ARGUMENT, "mode");
    fails(sl_qr(tall, SL_QR_COMPLETE, std::ptr::null_mut(), &mut r), SL_ERR_INVALID_ARGUMENT, "NULL");
    fails(sl_lstsq(tall, b3, &mut x), SL_ERR_SHAPE_MISMATCH, "[4, 3] but b has shape [3, 1]");
    fails(sl_lstsq(tall, b32, &mut x), SL_ERR_DTYPE_MISMATCH, "f32");
    fails(sl_lstsq(batched, b_other_batch, &mut x), SL_ERR_SHAPE_MISMATCH, "[4, 1, 5]");
    fails(sl_lstsq(ints, ints, &mut x), SL_ERR_DTYPE_MISMATCH, "i32");
    fails(sl_lstsq(vector, vector, &mut x), SL_ERR_SHAPE_MISMATCH, "[3]");
    release(&[tall, b3, b32, batched, b_other_batch, ints, vector]);
}

/// A loop of least-squares solves plans its flush once: later ones replay the trace
/// cache's entry.
#[test]
fn trace_cache_replays_least_squares() {
    let mut rng = rng("trace_cache_replays_least_squares");
    let mut before: sl_cache_stats = unsafe { std::mem::zeroed() };
    ok(sl_get_cache_stats(SL_CACHE_TRACE, &mut before));
    for _ in 0..4 {
        let a = batch_of(&mut rng, SL_F64, Kind::Random, 12, 5, &[2]);
        let b = batch_of(&mut rng, SL_F64, Kind::Random, 12, 2, &[2]);
        let (ha, hb) = (a.upload(), b.upload());
        let (mut hq, mut hr, mut hx, mut hy) = (0, 0, 0, 0);
        ok(sl_qr(ha, SL_QR_REDUCED, &mut hq, &mut hr));
        ok(sl_lstsq(ha, hb, &mut hx));
        ok(sl_mul_scalar(hx, 2.0, &mut hy));
        let xs = matrices(hx, 5, 2);
        check_lstsq(SL_F64, "in a loop", &a, &b, &xs);
        let (qs, rs) = (matrices(hq, 12, 5), matrices(hr, 5, 5));
        for (i, m) in a.ms.iter().enumerate() {
            let (orthogonal, product) = qr_ratios(SL_F64, m, &qs[i], &rs[i]);
            assert!(orthogonal < RATIO && product < RATIO, "in a loop #{i}: {orthogonal} {product}");
        }
        let ys = matrices(hy, 5, 2);
        assert_eq!(ys[1].at(3, 1), (2.0 * xs[1].at(3, 1).0, 0.0));
        release(&[ha, hb, hq, hr, hx, hy]);
    }
    let mut after: sl_cache_stats = unsafe { std::mem::zeroed() };
    ok(sl_get_cache_stats(SL_CACHE_TRACE, &mut after));
    // Other tests run at the same time may add hits, never take them away.
    assert!(after.hits >= before.hits + 3, "trace cache hits {} -> {}", before.hits, after.hits);
}

/// With SLUICE_SYNC=1 a singular solve fails at the call.
#[test]
#[ignore = "run by synchronous_mode_fails_at_the_call in its own process"]
fn synchronous_mode_child() {
    let mut rng = rng("synchronous_mode_child");
    let a = singular_batch(&mut rng, SL_F64, 4);
    let b = batch_of(&mut rng, SL_F64, Kind::Random, 4, 2, &[4]);
    let (ha, hb) = (a.upload(), b.upload());
    let mut x = 0;
    fails(sl_solve(ha, hb, &mut x), SL_ERR_SINGULAR, "are singular");
    assert_eq!(x, 0);
    let mut c = spd(&mut rng, SL_F64, 3, &[]);
    c.ms[0].set(0, 0, (-1.0, 0.0));
    let hc = c.upload();
    fails(sl_cholesky(hc, &mut x), SL_ERR_SINGULAR, "order 1");
    release(&[ha, hb, hc]);
}

#[test]
fn synchronous_mode_fails_at_the_call() {
    child("synchronous_mode_child", &[("SLUICE_SYNC", "1")]);
}

/// Result comparison checks every factorization and solve against the textbook f64
/// reference (through reconstructions for the factors) and finds nothing wrong.
#[test]
#[ignore = "run by result_comparison_passes in its own process"]
fn result_comparison_child() {
    let mut rng = rng("result_comparison_child");
    for dt in TYPES {
        let n = 6;
        let a = batch_of(&mut rng, dt, Kind::Random, n, n, &[2]);
        let b = batch_of(&mut rng, dt, Kind::Random, n, 2, &[2]);
        let s = spd(&mut rng, dt, n, &[2]);
        let (ha, hb, hs) = (a.upload(), b.upload(), s.upload());
        let (mut f, mut p, mut x, mut i, mut d, mut r, mut l, mut y, mut t) = (0, 0, 0, 0, 0, 0, 0, 0, 0);
        ok(sl_lu(ha, &mut f, &mut p));
        ok(sl_lu_solve(f, p, SL_TRANS, hb, &mut x));
        ok(sl_inv(ha, &mut i));
        ok(sl_slogdet(ha, &mut d, &mut r));
        ok(sl_cholesky(hs, &mut l));
        ok(sl_cholesky_solve(l, hb, &mut y));
        ok(sl_triangular_solve(l, SL_LOWER, SL_CONJ_TRANS, SL_NON_UNIT_DIAG, hb, &mut t));
        let mut rc = 0;
        ok(sl_rcond(ha, &mut rc));
        for h in [f, p, x, i, d, r, l, y, t, rc] {
            let _ = read_parts(h);
        }
        release(&[ha, hb, hs, f, p, x, i, d, r, l, y, t, rc]);
        // QR in every mode and least squares, tall, wide and square.
        for (rows, cols) in [(9, 4), (4, 9), (5, 5)] {
            let a = batch_of(&mut rng, dt, Kind::Random, rows, cols, &[2]);
            let b = batch_of(&mut rng, dt, Kind::Random, rows, 2, &[2]);
            let (ha, hb) = (a.upload(), b.upload());
            let mut handles = vec![ha, hb];
            for mode in QR_MODES {
                let (mut q, mut r) = (0, 0);
                ok(sl_qr(ha, mode, &mut q, &mut r));
                // (R alone leaves q the null handle.)
                handles.extend([q, r].into_iter().filter(|&h| h != 0));
            }
            let mut x = 0;
            ok(sl_lstsq(ha, hb, &mut x));
            handles.push(x);
            for &h in &handles[2..] {
                let _ = read_parts(h);
            }
            release(&handles);
        }
    }
    assert_compared_clean(1);
}

#[test]
fn result_comparison_passes() {
    child("result_comparison_child", &[("SLUICE_COMPARE", "compute"), ("SLUICE_COMPARE_ACTION", "error")]);
}

/// The LU ratio of each matrix of `a` from the factors and pivots `hf`, `hp` (n x n).
#[track_caller]
fn check_lu(what: &str, a: &Batch, hf: sl_array, hp: sl_array) {
    let n = a.rows;
    let (fs, ps) = (matrices(hf, n, n), pivots(hp, n));
    for (i, m) in a.ms.iter().enumerate() {
        let ratio = rebuild(&fs[i], &ps[i]).sub(m).norm1() / (n as f64 * m.norm1().max(f64::MIN_POSITIVE) * eps(a.dt));
        assert!(ratio < RATIO, "{what} #{i}: P L U ratio {ratio}");
    }
}

/// The solve residuals of op(A) x = b for each matrix of `a` and right-hand side of `b`.
#[track_caller]
fn check_solve(what: &str, a: &Batch, op: sl_transpose_op, hx: sl_array, b: &Batch) {
    let xs = matrices(hx, a.rows, b.cols);
    for (i, (m, x)) in a.ms.iter().zip(&xs).enumerate() {
        let ratio = solve_ratio(a.dt, m, op, x, &b.ms[i.min(b.ms.len() - 1)]);
        assert!(ratio < RATIO, "{what} op {op} #{i}: residual ratio {ratio}");
    }
}

/// Whether small real LU factorizations and solves should run as the device's kernels.
fn device_factors(dt: sl_dtype) -> bool {
    let gpu = matches!(device().device_type, SL_DEVICE_DISCRETE_GPU | SL_DEVICE_INTEGRATED_GPU);
    on_vulkan() && (gpu || switched_on("SLUICE_VULKAN_DEVICE_FACTOR")) && (dt == SL_F32 || device().float64 == 1)
}

/// Cholesky factorizations and solves of SPD matrices shaped as `a`, and lower triangular
/// solves with `a`'s lower triangle transposed, with the right-hand sides `b`.
fn cholesky_and_triangular(rng: &mut StdRng, what: &str, a: &Batch, b: &Batch) {
    let (dt, n) = (a.dt, a.rows);
    let s = spd(rng, dt, n, &a.batch);
    let (hs, hb) = (s.upload(), b.upload());
    let (mut hl, mut hx) = (0, 0);
    ok(sl_cholesky(hs, &mut hl));
    ok(sl_cholesky_solve(hl, hb, &mut hx));
    for (i, (m, l)) in s.ms.iter().zip(matrices(hl, n, n)).enumerate() {
        let ratio = l.mul(&l.op(SL_TRANS)).sub(m).norm1() / (n as f64 * m.norm1() * eps(dt));
        assert!(ratio < RATIO, "cholesky {what} #{i}: {ratio}");
    }
    check_solve(&format!("cholesky_solve {what}"), &s, SL_NO_TRANS, hx, b);
    let t = batch_of(rng, dt, Kind::Lower, n, n, &a.batch);
    let (ht, mut hy) = (t.upload(), 0);
    ok(sl_triangular_solve(ht, SL_LOWER, SL_TRANS, SL_NON_UNIT_DIAG, hb, &mut hy));
    check_solve(&format!("triangular {what}"), &t, SL_TRANS, hy, b);
    release(&[hs, hb, hl, hx, ht, hy]);
}

/// Batches of 1, 7 and 1000 LU factorizations and solves (both ops) of every order up to 33,
/// well and badly conditioned, and Cholesky and triangular ones of well conditioned matrices. On Vulkan those up to 32 x 32 run as the device's kernels
/// (no host step) and 33 x 33 on the CPU executor, on GPUs or with `SLUICE_VULKAN_DEVICE_FACTOR`;
/// else all on the CPU executor. The ratios are those every executor is held to, so the device's results
/// agree with the CPU executor's within them.
#[test]
#[ignore = "run by small_batched_lu_runs_where_planned in a child process"]
fn small_batched_lu_child() {
    let mut rng = rng("small_batched_lu_child");
    for dt in [SL_F32, SL_F64] {
        for n in [1, 2, 3, 5, 16, 31, 32, 33] {
            for batch in [&[][..], &[7][..], &[1000][..]] {
                for kind in [Kind::Random, Kind::Graded(6)] {
                    let what = format!("{dt} {kind:?} {n}x{n} batch {batch:?}");
                    let (steps, dispatches) =
                        (stats().host_steps, sluice::backend::vulkan::Handwritten::Factor.dispatches());
                    let a = batch_of(&mut rng, dt, kind, n, n, batch);
                    let b = batch_of(&mut rng, dt, Kind::Random, n, 2, batch);
                    let (ha, hb) = (a.upload(), b.upload());
                    let (mut hf, mut hp) = (0, 0);
                    ok(sl_lu(ha, &mut hf, &mut hp));
                    check_lu(&what, &a, hf, hp);
                    for op in [SL_NO_TRANS, SL_TRANS] {
                        let mut hx = 0;
                        ok(sl_lu_solve(hf, hp, op, hb, &mut hx));
                        check_solve(&what, &a, op, hx, &b);
                        release(&[hx]);
                    }
                    release(&[ha, hb, hf, hp]);
                    if let Kind::Random = kind {
                        cholesky_and_triangular(&mut rng, &what, &a, &b);
                    }
                    let host_steps = stats().host_steps - steps;
                    let ran = sluice::backend::vulkan::Handwritten::Factor.dispatches() > dispatches;
                    // With fewer workgroups (SLUICE_VULKAN_MAX_GROUPS) a large batch's loops
                    // may pass lavapipe's limit and run on the CPU executor.
                    let limited = std::env::var_os("SLUICE_VULKAN_MAX_GROUPS").is_some();
                    if device_factors(dt) && n <= 32 && !limited {
                        assert_eq!(host_steps, 0, "{what}: a step ran on the host");
                        assert!(ran, "{what}: the factor kernels did not run");
                    } else if !device_factors(dt) || n > 32 {
                        assert!(!ran, "{what}: the factor kernels ran");
                        if on_vulkan() {
                            assert!(host_steps > 0, "{what}: no host step");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn small_batched_lu_runs_where_planned() {
    child("small_batched_lu_child", &[]);
    if on_vulkan() {
        child("small_batched_lu_child", &[("SLUICE_VULKAN_DEVICE_FACTOR", "on")]);
    }
}

/// Singular members of a large batch of small systems are named in the error, on every
/// executor, and what is computed from the solution fails too.
#[test]
fn singular_members_of_a_large_batch_are_named() {
    let mut rng = rng("singular_members_of_a_large_batch_are_named");
    for dt in [SL_F32, SL_F64] {
        let n = 16;
        let mut a = batch_of(&mut rng, dt, Kind::Random, n, n, &[1000]);
        for i in [7, 500, 999] {
            (0..n).for_each(|r| a.ms[i].set(r, 2, (0.0, 0.0)));
        }
        let b = batch_of(&mut rng, dt, Kind::Random, n, 3, &[1000]);
        let (ha, hb) = (a.upload(), b.upload());
        let (mut hf, mut hp, mut hx, mut hy) = (0, 0, 0, 0);
        ok(sl_lu(ha, &mut hf, &mut hp));
        ok(sl_lu_solve(hf, hp, SL_TRANS, hb, &mut hx));
        ok(sl_mul_scalar(hx, 2.0, &mut hy));
        let mut buf = vec![0u8; n * 3 * 1000 * 8];
        for h in [hx, hy] {
            fails(
                sl_read(h, SL_COL_MAJOR, buf.as_mut_ptr() as *mut _, buf.len()),
                SL_ERR_SINGULAR,
                "3 of the 1000 16x16",
            );
            let msg = last_error().1;
            for i in [7, 500, 999] {
                assert!(msg.contains(&format!("matrix {i} (pivot 2")), "{dt}: {msg}");
            }
        }
        release(&[ha, hb, hf, hp, hx, hy]);
    }
}

/// Views as operands, read through their layouts: a transposed batch, a section taking every
/// other matrix of a larger one, and a right-hand side taking every other column.
#[test]
fn views_of_batches_factor_and_solve() {
    let mut rng = rng("views_of_batches_factor_and_solve");
    for dt in TYPES {
        for n in [3, 16, 32] {
            let count = 9;
            let what = format!("{dt} {n}x{n}");
            let dispatches = sluice::backend::vulkan::Handwritten::Factor.dispatches();
            // A transposed batch: factors of the transpose of what was uploaded.
            let a = batch_of(&mut rng, dt, Kind::Random, n, n, &[count]);
            let at = Batch { ms: a.ms.iter().map(|m| m.op(SL_TRANS)).collect(), ..a.clone() };
            let (hat, mut ht) = (at.upload(), 0);
            ok(sl_transpose(hat, &mut ht));
            let (mut hf, mut hp) = (0, 0);
            ok(sl_lu(ht, &mut hf, &mut hp));
            check_lu(&format!("{what} transposed"), &a, hf, hp);
            // Every other matrix of a larger batch, rows 1..n + 1 of n + 2, and every other
            // column of a right-hand side with 4 columns.
            let big = batch_of(&mut rng, dt, Kind::Random, n + 2, n, &[2 * count]);
            let wide = batch_of(&mut rng, dt, Kind::Random, n, 4, &[count]);
            let (hbig, hwide) = (big.upload(), wide.upload());
            let (mut hs, mut hb) = (0, 0);
            let (start, len, step) = ([1i64, 0, 1], [n as i64, n as i64, count as i64], [1i64, 1, 2]);
            ok(sl_section(hbig, start.as_ptr(), len.as_ptr(), step.as_ptr(), &mut hs));
            let (start, len, step) = ([0i64, 1, 0], [n as i64, 2, count as i64], [1i64, 2, 1]);
            ok(sl_section(hwide, start.as_ptr(), len.as_ptr(), step.as_ptr(), &mut hb));
            let section = |m: &M, rows: std::ops::Range<usize>, cols: &[usize]| {
                let mut s = M::zeros(rows.len(), cols.len());
                for (j, &c) in cols.iter().enumerate() {
                    rows.clone().enumerate().for_each(|(i, r)| s.set(i, j, m.at(r, c)));
                }
                s
            };
            let all: Vec<usize> = (0..n).collect();
            let s = Batch {
                rows: n,
                batch: vec![count],
                ms: (0..count).map(|i| section(&big.ms[2 * i + 1], 1..n + 1, &all)).collect(),
                ..big.clone()
            };
            let b = Batch { cols: 2, ms: wide.ms.iter().map(|m| section(m, 0..n, &[1, 3])).collect(), ..wide.clone() };
            let (mut hsf, mut hsp, mut hx) = (0, 0, 0);
            ok(sl_lu(hs, &mut hsf, &mut hsp));
            check_lu(&format!("{what} section"), &s, hsf, hsp);
            ok(sl_lu_solve(hsf, hsp, SL_NO_TRANS, hb, &mut hx));
            check_solve(&format!("{what} section"), &s, SL_NO_TRANS, hx, &b);
            if device_factors(dt) && !is_complex(dt) {
                let ran = sluice::backend::vulkan::Handwritten::Factor.dispatches() > dispatches;
                assert!(ran, "{what}: the factor kernels did not run");
            }
            release(&[hat, ht, hf, hp, hbig, hwide, hs, hb, hsf, hsp, hx]);
        }
    }
}
