//! Arrays larger than a device's storage-buffer range (128 MiB on lavapipe): 2^26 + 7 f32
//! elements, read, written, viewed and reduced. Plain f32 vectors rather than the
//! reference's boxed values, which would need gigabytes.

mod common;

use common::*;
use rand::Rng;
use sluice::*;

fn create(data: &[f32]) -> sl_array {
    let dims = [data.len() as i64];
    let mut h = 0;
    ok(sl_create(SL_F32, 1, dims.as_ptr(), SL_COL_MAJOR, data.as_ptr() as *const _, data.len() * 4, &mut h));
    h
}

fn read(h: sl_array, n: usize) -> Vec<f32> {
    let mut v = vec![0f32; n];
    ok(sl_read(h, SL_COL_MAJOR, v.as_mut_ptr() as *mut _, n * 4));
    v
}

#[test]
fn arrays_beyond_one_buffer_range() {
    let mut rng = rng("arrays_beyond_one_buffer_range");
    let n = (1usize << 26) + 7;
    let x: Vec<f32> = (0..n).map(|_| rng.random_range(-4.0f32..4.0)).collect();
    let hx = create(&x);

    // Element-wise: input and output each span several ranges.
    let (mut t, mut y) = (0, 0);
    ok(sl_mul_scalar(hx, 3.0, &mut t));
    ok(sl_sub_scalar(t, 1.0, &mut y));
    let got = read(y, n);
    for (i, (&g, &v)) in got.iter().zip(&x).enumerate() {
        assert_eq!(g, v * 3.0 - 1.0, "element {i}");
    }

    // A reversed view of one large array added to another: reads cross range boundaries.
    let (mut rev, mut z) = (0, 0);
    let (start, count, stride) = ([n as i64 - 1], [n as i64], [-1i64]);
    ok(sl_section(hx, start.as_ptr(), count.as_ptr(), stride.as_ptr(), &mut rev));
    ok(sl_add(rev, y, &mut z));
    let got = read(z, n);
    for i in 0..n {
        assert_eq!(got[i], x[n - 1 - i] + (x[i] * 3.0 - 1.0), "element {i} of reversed sum");
    }

    // Reductions over everything and along an axis of a reshaped view.
    let mut s = 0;
    ok(sl_sum(hx, SL_ALL_DIMS, &mut s));
    let want: f64 = x.iter().map(|&v| v as f64).sum();
    let abs: f64 = x.iter().map(|&v| v.abs() as f64).sum();
    let got = read(s, 1)[0] as f64;
    assert!((got - want).abs() <= 1e-6 * abs, "sum {got} vs {want}");
    let (mut head, mut m, mut cols) = (0, 0, 0);
    let rows = 1i64 << 13;
    let (hs, hcount, hstride) = ([0i64], [rows * rows], [1i64]);
    ok(sl_section(hx, hs.as_ptr(), hcount.as_ptr(), hstride.as_ptr(), &mut head));
    let dims = [rows, rows];
    ok(sl_reshape(head, 2, dims.as_ptr(), &mut m));
    ok(sl_maxval(m, 1, &mut cols));
    let got = read(cols, rows as usize);
    for (r, &g) in got.iter().enumerate() {
        let want = (0..rows as usize).map(|c| x[r + c * rows as usize]).fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(g, want, "max of row {r}");
    }
    release(&[hx, t, y, rev, z, s, head, m, cols]);
}

/// A result of 2^40 elements (4 TiB) with no `SLUICE_MEMORY_LIMIT`: its allocation is
/// refused (the default limit is the machine's memory) rather than overcommitted, the
/// read reports out of memory, and arrays computed before stay readable.
#[test]
fn a_result_beyond_the_machine_is_refused() {
    let mut rng = rng("a_result_beyond_the_machine_is_refused");
    assert!(std::env::var("SLUICE_MEMORY_LIMIT").is_err(), "this test is about running without a limit");
    let x: Vec<f32> = (0..1024).map(|_| rng.random_range(-4.0f32..4.0)).collect();
    let hx = create(&x);
    let mut before = 0;
    ok(sl_mul_scalar(hx, 2.0, &mut before));
    ok(sl_eval(&before, 1));

    let (mut c, mut big, mut head) = (0, 0, 0);
    // x broadcast along a second dimension of 2^30.
    let dims = [1024i64, 1 << 30];
    ok(sl_constant(SL_F32, 2, dims.as_ptr(), 1.5, &mut c));
    ok(sl_add(c, hx, &mut big));
    ok(sl_eval(&big, 1));
    let (start, count, stride) = ([0i64, 0], [4i64, 1], [1i64, 1]);
    ok(sl_section(big, start.as_ptr(), count.as_ptr(), stride.as_ptr(), &mut head));
    let mut out = [0f32; 4];
    let st = sl_read(head, SL_COL_MAJOR, out.as_mut_ptr() as *mut _, 16);
    fails(st, SL_ERR_POISONED, "out of memory");
    fails(st, SL_ERR_POISONED, "sl_add");

    // What was computed before is still there, and the runtime still computes.
    let got = read(before, x.len());
    for (i, (&g, &v)) in got.iter().zip(&x).enumerate() {
        assert_eq!(g, v * 2.0, "element {i} computed before the failure");
    }
    let mut after = 0;
    ok(sl_sub_scalar(hx, 1.0, &mut after));
    let got = read(after, x.len());
    for (i, (&g, &v)) in got.iter().zip(&x).enumerate() {
        assert_eq!(g, v - 1.0, "element {i} computed after the failure");
    }
    release(&[hx, before, c, big, head, after]);
}
