//! `a*x + b` and `sum(x*x)` on 2^20 f32 (the `midsize` work of `core.rs`) against
//! hand-written loops doing the same on one thread, each timed call by call: the median
//! and the minimum of many calls. On a machine loaded by other processes criterion's
//! batches are dominated by preemption; the minimum of single calls is not. Run with
//! `SLUICE_THREADS=1` to compare the executor's element loops with the one-thread floor:
//! `SLUICE_THREADS=1 cargo bench --locked --bench midsize_min`.

use std::hint::black_box;
use std::time::Instant;

use sluice::*;

const MID: usize = 1 << 20;
const CALLS: usize = 3000;

fn check(st: sl_status) {
    assert_eq!(st, SL_OK, "Sluice call failed");
}

/// Median and minimum of `CALLS` calls of `f`, in microseconds.
fn timed(mut f: impl FnMut()) -> (f64, f64) {
    f();
    let mut times: Vec<u128> = (0..CALLS)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_nanos()
        })
        .collect();
    times.sort_unstable();
    (times[CALLS / 2] as f64 / 1e3, times[0] as f64 / 1e3)
}

fn main() {
    let xs: Vec<f32> = (0..MID).map(|i| ((i % 1000) as f32) * 0.001 - 0.5).collect();
    let mut ys = vec![0f32; MID];
    let (n, mut x) = (MID as i64, 0);
    check(sl_create(SL_F32, 1, &n, SL_COL_MAJOR, xs.as_ptr() as *const _, MID * 4, &mut x));
    let read_floor = timed(|| {
        let mut acc = [0f32; 64];
        for ch in xs.chunks_exact(64) {
            for l in 0..64 {
                acc[l] += ch[l] * ch[l];
            }
        }
        black_box(acc);
    });
    let axpb_floor = timed(|| {
        for (d, v) in ys.iter_mut().zip(&xs) {
            *d = 1.5 * v + 0.25;
        }
        black_box(&ys);
    });
    let sumsq = timed(|| {
        let (mut sq, mut s, mut v) = (0, 0, 0f32);
        check(sl_mul(x, x, &mut sq));
        check(sl_sum(sq, SL_ALL_DIMS, &mut s));
        check(sl_read(s, SL_COL_MAJOR, &mut v as *mut f32 as *mut _, 4));
        check(sl_release(sq));
        check(sl_release(s));
        black_box(v);
    });
    let axpb = timed(|| {
        let (mut ax, mut out) = (0, 0);
        check(sl_mul_scalar(x, 1.5, &mut ax));
        check(sl_add_scalar(ax, 0.25, &mut out));
        check(sl_eval(&out, 1));
        check(sl_sync());
        check(sl_release(ax));
        check(sl_release(out));
    });
    check(sl_release(x));
    println!("2^20 f32, {CALLS} calls each: median / minimum (us), and against the one-thread floor");
    for (name, (med, min), floor) in [
        ("read floor (one thread)", read_floor, read_floor),
        ("a*x + b floor (one thread)", axpb_floor, axpb_floor),
        ("sum(x*x), Sluice", sumsq, read_floor),
        ("a*x + b, Sluice", axpb, axpb_floor),
    ] {
        println!("{name}: {med:.1} / {min:.1} us; {:.2} x / {:.2} x the floor", med / floor.0, min / floor.1);
    }
}
