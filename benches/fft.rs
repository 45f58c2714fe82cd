//! Complex f32 Fourier transforms through Sluice against rustfft called directly in the
//! same run (issue 16's sizes: 1-D 2^20, 64 batched transforms of 2^14, 2-D 2048 x 2048).
//! The direct side does what the runtime must: copy the input (which stays as it was)
//! into the output buffer and transform it there; the 2-D case transforms the columns,
//! transposes, transforms, and transposes back, on one thread as rustfft runs.
//! `scripts/bench_numpy.py` times `numpy.fft` on the same sizes.
//! Run: `cargo bench --locked --bench fft`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use rustfft::FftPlanner;
use rustfft::num_complex::Complex32;
use sluice::*;

fn check(st: sl_status) {
    assert_eq!(st, SL_OK, "Sluice call failed");
}

fn signal(n: usize) -> Vec<Complex32> {
    (0..n).map(|i| Complex32::new(((i * 7 % 101) as f32) * 0.01 - 0.5, ((i * 13 % 97) as f32) * 0.01 - 0.5)).collect()
}

/// A copy of the `rows x cols` column-major `a` transposed, in blocks.
fn transpose(a: &[Complex32], out: &mut [Complex32], rows: usize, cols: usize) {
    const B: usize = 32;
    for jb in (0..cols).step_by(B) {
        for ib in (0..rows).step_by(B) {
            for j in jb..(jb + B).min(cols) {
                for i in ib..(ib + B).min(rows) {
                    out[j + i * cols] = a[i + j * rows];
                }
            }
        }
    }
}

/// `shape` (column-major), transformed along `dims` by Sluice and directly.
fn case(
    g: &mut criterion::BenchmarkGroup<criterion::measurement::WallTime>,
    name: &str,
    shape: &[usize],
    dims: &[i32],
) {
    let n: usize = shape.iter().product();
    let x = signal(n);
    let d: Vec<i64> = shape.iter().map(|&s| s as i64).collect();
    let mut h = 0;
    check(sl_create(SL_C64, d.len() as i32, d.as_ptr(), SL_COL_MAJOR, x.as_ptr() as *const _, n * 8, &mut h));
    g.bench_function(format!("sluice_{name}"), |bench| {
        bench.iter(|| {
            let mut y = 0;
            check(sl_fft(h, dims.len() as i32, dims.as_ptr(), SL_FFT_BACKWARD, &mut y));
            check(sl_eval(&y, 1));
            check(sl_sync());
            check(sl_release(y));
        })
    });
    let mut planner = FftPlanner::<f32>::new();
    let rows = planner.plan_fft_forward(shape[0]);
    let mut buf = x.clone();
    let mut scratch = vec![Complex32::default(); rows.get_inplace_scratch_len().max(1)];
    if dims.len() == 1 {
        g.bench_function(format!("rustfft_{name}"), |bench| {
            bench.iter(|| {
                buf.copy_from_slice(&x);
                rows.process_with_scratch(&mut buf, &mut scratch);
                black_box(&buf);
            })
        });
    } else {
        let (r, c) = (shape[0], shape[1]);
        let cols = planner.plan_fft_forward(c);
        let mut t = vec![Complex32::default(); n];
        let mut scratch2 = vec![Complex32::default(); cols.get_inplace_scratch_len().max(1)];
        g.bench_function(format!("rustfft_{name}"), |bench| {
            bench.iter(|| {
                buf.copy_from_slice(&x);
                rows.process_with_scratch(&mut buf, &mut scratch);
                transpose(&buf, &mut t, r, c);
                cols.process_with_scratch(&mut t, &mut scratch2);
                transpose(&t, &mut buf, c, r);
                black_box(&buf);
            })
        });
    }
    check(sl_release(h));
}

fn fft(c: &mut Criterion) {
    let mut g = c.benchmark_group("fft");
    g.sample_size(20).measurement_time(Duration::from_secs(6));
    case(&mut g, "1d_2p20_c64", &[1 << 20], &[0]);
    case(&mut g, "batched_64x2p14_c64", &[1 << 14, 64], &[0]);
    case(&mut g, "2d_2048x2048_c64", &[2048, 2048], &[0, 1]);
    g.finish();
}

criterion_group!(benches, fft);
criterion_main!(benches);
