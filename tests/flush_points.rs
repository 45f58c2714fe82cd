//! Repeated work flushes at the same points every time: a function called in a loop
//! (its result read at the end of each call) replays every flush of every call after the
//! first from the trace cache, and compiles nothing more, whatever the queue limit — the
//! queue counts only what is still pending, not what a read already computed. Counted
//! per call for a Kirchhoff-style stencil (many small ops over a 2-D grid through
//! sections and shifts) and for conjugate gradients (a scalar read twice per iteration),
//! on whichever executor `SLUICE_BACKEND` picks, with the results checked against plain
//! references. One test function: it restarts the runtime and reads process-wide counters.

mod common;

use common::*;
use rand::Rng;
use rand::rngs::StdRng;
use sluice::*;

/// Calls of each function in the loop.
const CALLS: usize = 7;

fn cache(which: sl_cache) -> sl_cache_stats {
    let mut s: sl_cache_stats = unsafe { std::mem::zeroed() };
    ok(sl_get_cache_stats(which, &mut s));
    s
}

fn restart(queue_limit: i32) {
    ok(sl_shutdown());
    let mut c: sl_config = unsafe { std::mem::zeroed() };
    ok(sl_config_default(&mut c));
    c.queue_limit = queue_limit;
    ok(sl_init(&c));
}

/// What one call cost: flushes, trace-cache hits and misses, and kernels compiled
/// (program-cache misses; the CPU executor keeps no program cache, so there a trace
/// miss is what compiles).
#[derive(Debug, Clone, Copy, PartialEq)]
struct CallCounts {
    flushes: u64,
    hits: u64,
    misses: u64,
    compiles: u64,
}

fn counters() -> CallCounts {
    let (trace, program) = (cache(SL_CACHE_TRACE), cache(SL_CACHE_PROGRAM));
    CallCounts { flushes: stats().flushes, hits: trace.hits, misses: trace.misses, compiles: program.misses }
}

/// Runs `call` `CALLS` times, returning what each call cost.
fn per_call(mut call: impl FnMut(usize)) -> Vec<CallCounts> {
    (0..CALLS)
        .map(|i| {
            let before = counters();
            call(i);
            let after = counters();
            CallCounts {
                flushes: after.flushes - before.flushes,
                hits: after.hits - before.hits,
                misses: after.misses - before.misses,
                compiles: after.compiles - before.compiles,
            }
        })
        .collect()
}

/// Every call after the first replays all its flushes and compiles nothing.
#[track_caller]
fn assert_repeats(what: &str, counts: &[CallCounts]) {
    eprintln!("{what}: per call {counts:?}");
    assert!(counts[0].misses > 0, "{what}: the first call plans: {counts:?}");
    for (i, c) in counts.iter().enumerate().skip(1) {
        assert!(c.flushes > 0, "{what}: call {i} flushes: {counts:?}");
        assert_eq!((c.hits, c.misses, c.compiles), (c.flushes, 0, 0), "{what}: call {i} replays: {counts:?}");
    }
}

/// Taps of the stencil: five ops each, about 1,000 ops a call.
const TAPS: usize = 199;
/// Padding of the grid along each dimension (the sections' reach).
const PAD: [usize; 2] = [4, 3];

/// Where tap `k` reads the padded grid, and its shift along dimension 1.
fn tap(k: usize) -> ([usize; 2], i64) {
    ([(k * 7) % (2 * PAD[0] + 1), (k * k) % (2 * PAD[1] + 1)], (k % 3) as i64 - 1)
}

/// `sum_k c_k * w * shift(section(pad(d), tap k))` plus `c * d`: a Kirchhoff-style sum
/// of shifted, weighted copies of the grid.
fn migrate(d: sl_array, w: sl_array, c: &[f64], shape: [usize; 2]) -> sl_array {
    ok(sl_scope_begin());
    let (lo, hi) = ([PAD[0] as i64, PAD[1] as i64], [PAD[0] as i64, PAD[1] as i64]);
    let mut padded = 0;
    ok(sl_pad(d, lo.as_ptr(), hi.as_ptr(), SL_BOUNDARY_FILL, 0.0, &mut padded));
    let mut acc = 0;
    ok(sl_mul_scalar(d, c[TAPS], &mut acc));
    for (k, &ck) in c[..TAPS].iter().enumerate() {
        let (start, shift) = tap(k);
        let (start, count, stride) = (start.map(|s| s as i64), shape.map(|n| n as i64), [1i64, 1]);
        let (mut sec, mut shifted, mut weighted, mut scaled, mut next) = (0, 0, 0, 0, 0);
        ok(sl_section(padded, start.as_ptr(), count.as_ptr(), stride.as_ptr(), &mut sec));
        ok(sl_shift(sec, 1, shift, SL_BOUNDARY_CLAMP, 0.0, &mut shifted));
        ok(sl_mul(shifted, w, &mut weighted));
        ok(sl_mul_scalar(weighted, ck, &mut scaled));
        ok(sl_add(acc, scaled, &mut next));
        acc = next;
    }
    ok(sl_keep(acc));
    ok(sl_scope_end());
    acc
}

/// `migrate` element by element in f64, with the sum of the terms' magnitudes (the
/// scale of f32 rounding).
fn migrate_reference(d: &Arr, w: &Arr, c: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let [nx, nt] = [d.shape[0], d.shape[1]];
    let padded = |i: usize, j: usize| -> f64 {
        let (i, j) = (i as i64 - PAD[0] as i64, j as i64 - PAD[1] as i64);
        if (0..nx as i64).contains(&i) && (0..nt as i64).contains(&j) {
            d.at(&[i as usize, j as usize]).f()
        } else {
            0.0
        }
    };
    let (mut sum, mut scale) = (vec![0.0; nx * nt], vec![0.0; nx * nt]);
    for j in 0..nt {
        for i in 0..nx {
            let first = c[TAPS] * d.at(&[i, j]).f();
            let (mut s, mut m) = (first, first.abs());
            for (k, &ck) in c[..TAPS].iter().enumerate() {
                let (start, shift) = tap(k);
                let jj = (j as i64 - shift).clamp(0, nt as i64 - 1) as usize;
                let term = ck * w.at(&[i, j]).f() * padded(i + start[0], jj + start[1]);
                s += term;
                m += term.abs();
            }
            sum[i + nx * j] = s;
            scale[i + nx * j] = m;
        }
    }
    (sum, scale)
}

/// One call of the Kirchhoff-style loop: new random data and weights, result read back
/// and checked.
fn migrate_call(rng: &mut StdRng, shape: [usize; 2]) {
    let d = rand_arr(rng, SL_F32, &shape, -1.0, 1.0, false);
    let w = rand_arr(rng, SL_F32, &shape, 0.5, 1.5, false);
    let c: Vec<f64> = (0..=TAPS).map(|_| rng.random_range(-1.0..1.0)).collect();
    let (dh, wh) = (d.upload(), w.upload());
    let out = migrate(dh, wh, &c, shape);
    let got = download(out);
    release(&[dh, wh, out]);
    let (want, scale) = migrate_reference(&d, &w, &c);
    // Each f32 product and sum rounds once: at most (TAPS + 3) roundings of the
    // terms' magnitudes per element.
    let bound = (TAPS + 3) as f64 * f32::EPSILON as f64;
    for (i, (g, (w, s))) in got.v.iter().zip(want.iter().zip(&scale)).enumerate() {
        assert!((g.f() - w).abs() <= bound * s, "migrate: element {i}: got {g:?}, want {w} (scale {s})");
    }
}

/// A rank-0 array's value, read back.
fn scalar(h: sl_array) -> f64 {
    let v = download(h).v[0].f();
    release(&[h]);
    v
}

fn dot(a: sl_array, b: sl_array) -> f64 {
    let mut d = 0;
    ok(sl_dot(a, b, &mut d));
    scalar(d)
}

/// `y + s * x`, releasing `y`.
fn axpy(y: sl_array, s: f64, x: sl_array) -> sl_array {
    let (mut sx, mut out) = (0, 0);
    ok(sl_mul_scalar(x, s, &mut sx));
    ok(sl_add(y, sx, &mut out));
    release(&[sx, y]);
    out
}

/// `iters` steps of conjugate gradients on `a x = b` from x = 0, reading `p·Ap` and
/// `r·r` each step (the application computes the step sizes); returns x.
fn cg(a: sl_array, b: sl_array, iters: usize) -> sl_array {
    let (mut x, mut r, mut p) = (0, 0, 0);
    ok(sl_mul_scalar(b, 0.0, &mut x));
    ok(sl_retain(b, &mut r));
    ok(sl_retain(b, &mut p));
    let mut rr = dot(r, r);
    for _ in 0..iters {
        let mut ap = 0;
        ok(sl_matmul(a, p, &mut ap));
        let alpha = rr / dot(p, ap);
        x = axpy(x, alpha, p);
        r = axpy(r, -alpha, ap);
        release(&[ap]);
        let next = dot(r, r);
        let mut r_copy = 0;
        ok(sl_retain(r, &mut r_copy));
        let p_next = axpy(r_copy, next / rr, p);
        release(&[p]);
        p = p_next;
        rr = next;
    }
    release(&[r, p]);
    x
}

/// The same iteration in plain f64.
fn cg_reference(a: &Arr, b: &[f64], iters: usize) -> Vec<f64> {
    let n = b.len();
    let matvec = |p: &[f64]| -> Vec<f64> { (0..n).map(|i| (0..n).map(|k| a.at(&[i, k]).f() * p[k]).sum()).collect() };
    let dot = |u: &[f64], v: &[f64]| -> f64 { u.iter().zip(v).map(|(x, y)| x * y).sum() };
    let (mut x, mut r, mut p) = (vec![0.0; n], b.to_vec(), b.to_vec());
    let mut rr = dot(&r, &r);
    for _ in 0..iters {
        let ap = matvec(&p);
        let alpha = rr / dot(&p, &ap);
        x.iter_mut().zip(&p).for_each(|(x, p)| *x += alpha * p);
        r.iter_mut().zip(&ap).for_each(|(r, ap)| *r -= alpha * ap);
        let next = dot(&r, &r);
        p.iter_mut().zip(&r).for_each(|(p, r)| *p = r + next / rr * *p);
        rr = next;
    }
    x
}

/// One call of the CG loop: a new random symmetric positive definite system, solved and
/// checked.
fn cg_call(rng: &mut StdRng, n: usize, iters: usize) {
    let m = rand_arr(rng, SL_F64, &[n, n], -1.0, 1.0, false);
    // m^T m / n + I: eigenvalues in [1, about 5], so CG converges within the steps.
    let mut spd = vec![0.0; n * n];
    for j in 0..n {
        for i in 0..n {
            let mtm: f64 = (0..n).map(|k| m.at(&[k, i]).f() * m.at(&[k, j]).f()).sum();
            spd[i + n * j] = mtm / n as f64 + if i == j { 1.0 } else { 0.0 };
        }
    }
    let a = Arr::new(SL_F64, &[n, n], spd.into_iter().map(V::F64).collect());
    let b = rand_arr(rng, SL_F64, &[n], -1.0, 1.0, false);
    let (ah, bh) = (a.upload(), b.upload());
    let x = cg(ah, bh, iters);
    let got = download(x);
    release(&[ah, bh, x]);
    let bv: Vec<f64> = b.v.iter().map(|v| v.f()).collect();
    let want = Arr::new(SL_F64, &[n], cg_reference(&a, &bv, iters).into_iter().map(V::F64).collect());
    // Converged: what is left is the rounding of the products and sums (n terms each).
    assert_near("cg", &got, &want, 1e-10, 1e-9);
}

#[test]
fn repeated_calls_replay() {
    let mut rng = rng("repeated_calls_replay");
    // The default limit (1024 ops) with a call of about 1,000 ops, and a limit that cuts
    // each call into several flushes (one of them mid-expression).
    for limit in [1024, 230] {
        restart(limit);
        let counts = per_call(|_| migrate_call(&mut rng, [40, 33]));
        assert_repeats(&format!("migrate, queue limit {limit}"), &counts);
    }
    // Reads every step; x's updates wait in the queue (two ops a step): the default
    // limit is reached over several calls when reads leave what they computed queued,
    // a small one inside each call.
    for limit in [1024, 40] {
        restart(limit);
        let counts = per_call(|_| cg_call(&mut rng, 80, 24));
        assert_repeats(&format!("cg, queue limit {limit}"), &counts);
    }
    ok(sl_shutdown());
}
