//! Factorizations and solves on the CPU executor, for the ratios against numpy (LAPACK
//! through OpenBLAS) in BENCHMARKS.md: LU factorization and solve of a 2048 x 2048 f64
//! system (`sl_solve`, one right-hand side), and 100,000 batched 4 x 4 f32 systems in one
//! call; QR (reduced, Q and R read) of a 2048 x 2048 f64 matrix and least squares of a
//! 4096 x 256 f64 system with one right-hand side. `scripts/bench_factor.py` times
//! numpy's `linalg.solve` (and scipy's `lu_factor` + `lu_solve` where scipy is
//! installed), `linalg.qr` and `linalg.lstsq` on the same work and prints the ratios.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use sluice::*;

fn check(st: sl_status) {
    assert_eq!(st, SL_OK, "Sluice call failed");
}

fn upload<T>(dtype: sl_dtype, dims: &[i64], data: &[T]) -> sl_array {
    let mut h = 0;
    check(sl_create(
        dtype,
        dims.len() as i32,
        dims.as_ptr(),
        SL_COL_MAJOR,
        data.as_ptr() as *const _,
        std::mem::size_of_val(data),
        &mut h,
    ));
    h
}

/// Deterministic values in [-1, 1) (a cheap hash: the timings do not depend on them).
fn values(n: usize, salt: u64) -> Vec<f64> {
    (0..n as u64)
        .map(|i| {
            let x = (i ^ salt).wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(17).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            (x >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        })
        .collect()
}

/// Solves `a x = b` and reads x back (so the work is done inside the timing).
fn solve_read<T: Copy + Default>(a: sl_array, b: sl_array, out: &mut [T]) {
    let mut x = 0;
    check(sl_solve(a, b, &mut x));
    check(sl_read(x, SL_COL_MAJOR, out.as_mut_ptr() as *mut _, std::mem::size_of_val(out)));
    check(sl_release(x));
}

fn factor(c: &mut Criterion) {
    let mut g = c.benchmark_group("factor");
    g.sample_size(10).measurement_time(Duration::from_secs(10));

    let n = 2048usize;
    let mut a = values(n * n, 1);
    (0..n).for_each(|i| a[i + i * n] += 4.0); // well conditioned, so every run pivots alike
    let (ha, hb) = (upload(SL_F64, &[n as i64, n as i64], &a), upload(SL_F64, &[n as i64], &values(n, 2)));
    let mut x = vec![0f64; n];
    g.bench_function("solve_2048_f64", |bench| bench.iter(|| solve_read(ha, hb, &mut x)));

    let batch = 100_000usize;
    let mut small: Vec<f32> = values(16 * batch, 3).iter().map(|&v| v as f32).collect();
    for k in 0..batch {
        (0..4).for_each(|i| small[16 * k + 5 * i] += 4.0);
    }
    let hs = upload(SL_F32, &[4, 4, batch as i64], &small);
    let rhs: Vec<f32> = values(4 * batch, 4).iter().map(|&v| v as f32).collect();
    let hr = upload(SL_F32, &[4, 1, batch as i64], &rhs);
    let mut y = vec![0f32; 4 * batch];
    g.bench_function("solve_4x4_f32_x100000", |bench| bench.iter(|| solve_read(hs, hr, &mut y)));

    let (mut q, mut r) = (vec![0f64; n * n], vec![0f64; n * n]);
    g.bench_function("qr_2048_f64", |bench| {
        bench.iter(|| {
            let (mut hq, mut hr) = (0, 0);
            check(sl_qr(ha, SL_QR_REDUCED, &mut hq, &mut hr));
            check(sl_read(hq, SL_COL_MAJOR, q.as_mut_ptr() as *mut _, std::mem::size_of_val(&q[..])));
            check(sl_read(hr, SL_COL_MAJOR, r.as_mut_ptr() as *mut _, std::mem::size_of_val(&r[..])));
            check(sl_release(hq));
            check(sl_release(hr));
        })
    });

    let (rows, cols) = (4096usize, 256usize);
    let tall = upload(SL_F64, &[rows as i64, cols as i64], &values(rows * cols, 5));
    let ty = upload(SL_F64, &[rows as i64], &values(rows, 6));
    let mut coef = vec![0f64; cols];
    g.bench_function("lstsq_4096x256_f64", |bench| {
        bench.iter(|| {
            let mut x = 0;
            check(sl_lstsq(tall, ty, &mut x));
            check(sl_read(x, SL_COL_MAJOR, coef.as_mut_ptr() as *mut _, std::mem::size_of_val(&coef[..])));
            check(sl_release(x));
        })
    });
    g.finish();
    for h in [ha, hb, hs, hr, tall, ty] {
        check(sl_release(h));
    }
}

criterion_group!(benches, factor);
criterion_main!(benches);
