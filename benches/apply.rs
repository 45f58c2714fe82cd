//! Applying a function to pieces (issue 18), each against a reference measured in the
//! same run: `elements`: an 8-op function of two scalars applied to every element of
//! 2^24 f32 against the same calls on the whole arrays; `blocks`: a moving mean (block 1,
//! overlap 8 on each side) over 2^24 f32 against the bandwidth floor of reading one array
//! and writing one (`copy_f32`, by hand on every core); `pagewise`: 10,000 products of
//! 16 x 16 f32 pages in one `sl_matmul` against a loop of 10,000 `sl_matmul` calls, and
//! against numpy's `matmul` of two (10000, 16, 16) stacks (OpenBLAS's batched path;
//! `scripts/bench_numpy.py` times it). `scripts/bench_report.py --apply` prints the ratios.

use std::ffi::c_void;
use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use sluice::*;

const N: usize = 1 << 24;

fn check(st: sl_status) {
    assert_eq!(st, SL_OK, "Sluice call failed");
}

fn upload(data: &[f32], dims: &[i64]) -> sl_array {
    let mut h = 0;
    check(sl_create(
        SL_F32,
        dims.len() as i32,
        dims.as_ptr(),
        SL_COL_MAJOR,
        data.as_ptr() as *const _,
        data.len() * 4,
        &mut h,
    ));
    h
}

/// Computes `out` (without copying it to the host), waits and releases it.
fn compute(out: sl_array) {
    check(sl_eval(&out, 1));
    check(sl_sync());
    check(sl_release(out));
}

/// `fused/chain8` of benches/core.rs on `x` and `y` (whole arrays or one element each):
/// sin(x)*cos(y) + sqrt(abs(x))*exp(-y*y) - 0.5*x.
fn chain8(x: sl_array, y: sl_array, out: &mut sl_array) -> sl_status {
    let (mut s, mut c, mut p, mut a, mut q, mut yy, mut ny, mut e, mut r, mut h, mut t) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    for st in [
        sl_sin(x, &mut s),
        sl_cos(y, &mut c),
        sl_mul(s, c, &mut p),
        sl_abs(x, &mut a),
        sl_sqrt(a, &mut q),
        sl_mul(y, y, &mut yy),
        sl_neg(yy, &mut ny),
        sl_exp(ny, &mut e),
        sl_mul(q, e, &mut r),
        sl_add(p, r, &mut h),
        sl_mul_scalar(x, 0.5, &mut t),
        sl_sub(h, t, out),
    ] {
        if st != SL_OK {
            return st;
        }
    }
    SL_OK
}

unsafe extern "C" fn chain8_piece(p: *const sl_array, _: i32, out: *mut sl_array, _: i32, _: *mut c_void) -> sl_status {
    // SAFETY: two pieces and one output, as the apply calls below pass.
    unsafe { chain8(*p, *p.add(1), &mut *out) }
}

fn elements(c: &mut Criterion) {
    let xs: Vec<f32> = (0..N).map(|i| ((i % 1000) as f32) * 0.001 - 0.5).collect();
    let ys: Vec<f32> = (0..N).map(|i| ((i % 777) as f32) * 0.002 - 0.7).collect();
    let n = [N as i64];
    let (x, y) = (upload(&xs, &n), upload(&ys, &n));
    let mut g = c.benchmark_group("apply_elements");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    g.bench_function("whole_chain8_f32", |b| {
        b.iter(|| {
            check(sl_scope_begin());
            let mut out = 0;
            check(chain8(x, y, &mut out));
            check(sl_eval(&out, 1));
            check(sl_sync());
            check(sl_scope_end());
        })
    });
    g.bench_function("apply_chain8_f32", |b| {
        b.iter(|| {
            let mut out = 0;
            let ins = [x, y];
            check(sl_apply_elements(
                Some(chain8_piece),
                std::ptr::null_mut(),
                ins.as_ptr(),
                2,
                std::ptr::null(),
                0,
                &mut out,
                1,
            ));
            compute(out)
        })
    });
    g.finish();
    check(sl_release(x));
    check(sl_release(y));
}

unsafe extern "C" fn window_mean(p: *const sl_array, _: i32, out: *mut sl_array, _: i32, _: *mut c_void) -> sl_status {
    // SAFETY: one piece and one output, as the apply call below passes.
    unsafe { sl_mean(*p, SL_ALL_DIMS, &mut *out) }
}

struct SendPtr(*mut f32);
unsafe impl Sync for SendPtr {}

impl SendPtr {
    fn at(&self, i: usize) -> *mut f32 {
        unsafe { self.0.add(i) }
    }
}

/// `a = 2 b` over every core: the floor of a computation that reads one array and writes
/// one of the same size.
fn copy(a: &mut [f32], b: &[f32]) {
    let t = std::thread::available_parallelism().map_or(1, |n| n.get());
    let n = a.len();
    let pa = SendPtr(a.as_mut_ptr());
    std::thread::scope(|s| {
        for k in 0..t {
            let (lo, hi) = (n * k / t, n * (k + 1) / t);
            let (pa, b) = (&pa, &b[lo..hi]);
            s.spawn(move || {
                let dst = unsafe { std::slice::from_raw_parts_mut(pa.at(lo), hi - lo) };
                for (d, &x) in dst.iter_mut().zip(b) {
                    *d = 2.0 * x;
                }
            });
        }
    });
}

fn blocks(c: &mut Criterion) {
    let xs: Vec<f32> = (0..N).map(|i| ((i % 1000) as f32) * 0.001 - 0.5).collect();
    let x = upload(&xs, &[N as i64]);
    let mut g = c.benchmark_group("apply_blocks");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    let mut a = vec![0f32; N];
    g.bench_function("copy_f32", |b| b.iter(|| copy(&mut a, &xs)));
    black_box(&a);
    let mut o = std::mem::MaybeUninit::uninit();
    check(sl_block_options_default(o.as_mut_ptr()));
    let scalar = sl_block_output { kind: SL_OUTPUT_SCALAR, rank: 0, dims: [0; 8] };
    let o = sl_block_options {
        overlap_before: 8,
        overlap_after: 8,
        outputs: &scalar,
        n_outputs: 1,
        ..unsafe { o.assume_init() }
    };
    g.bench_function("moving_mean_17_f32", |b| {
        b.iter(|| {
            let mut out = 0;
            check(sl_apply_blocks(Some(window_mean), std::ptr::null_mut(), &x, 1, &o, &mut out, 1));
            compute(out)
        })
    });
    g.finish();
    check(sl_release(x));
}

fn pagewise(c: &mut Criterion) {
    const PAGES: usize = 10_000;
    let data = |seed: usize| -> Vec<f32> {
        (0..16 * 16 * PAGES).map(|i| (((i * 7 + seed) % 1013) as f32) * 0.001 - 0.5).collect()
    };
    let dims = [16i64, 16, PAGES as i64];
    let (a, b) = (upload(&data(1), &dims), upload(&data(2), &dims));
    let mut g = c.benchmark_group("pagewise");
    g.sample_size(10).measurement_time(Duration::from_secs(6));
    g.bench_function("batched_16x16x10000_f32", |bench| {
        bench.iter(|| {
            let mut out = 0;
            check(sl_matmul(a, b, &mut out));
            compute(out)
        })
    });
    g.bench_function("loop_16x16x10000_f32", |bench| {
        bench.iter(|| {
            check(sl_scope_begin());
            let mut products = Vec::with_capacity(PAGES);
            let (count, stride) = ([16i64, 16, 1], [1i64, 1, 1]);
            for p in 0..PAGES {
                let start = [0, 0, p as i64];
                let (mut pa, mut pb, mut m) = (0, 0, 0);
                check(sl_section(a, start.as_ptr(), count.as_ptr(), stride.as_ptr(), &mut pa));
                check(sl_section(b, start.as_ptr(), count.as_ptr(), stride.as_ptr(), &mut pb));
                check(sl_matmul(pa, pb, &mut m));
                products.push(m);
            }
            check(sl_eval(products.as_ptr(), products.len() as i32));
            check(sl_sync());
            check(sl_scope_end());
        })
    });
    g.finish();
    check(sl_release(a));
    check(sl_release(b));
}

criterion_group!(benches, elements, blocks, pagewise);
criterion_main!(benches);
