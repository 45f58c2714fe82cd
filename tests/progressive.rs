//! Progressive evaluation as the application sees it: how many kernels a computation
//! becomes, that intermediates are never stored, scopes and leaks, long chains.
//! One test function, because it reads process-wide counters.

mod common;

use common::*;
use sluice::*;

fn live() -> i64 {
    let mut n = 0;
    ok(sl_live_handles(&mut n));
    n
}

fn f32s(n: usize, f: impl Fn(usize) -> f32) -> Arr {
    Arr::new(SL_F32, &[n], (0..n).map(|i| V::F32(f(i))).collect())
}

#[test]
fn progressive_evaluation() {
    let n = 100_000;
    let (xa, ya) = (f32s(n, |i| (i as f32 * 0.001).sin()), f32s(n, |i| (i as f32 * 0.0007).cos()));
    let (x, y) = (xa.upload(), ya.upload());
    let base_handles = live();

    // The inputs in the executor's memory first: on Vulkan, host arrays are uploaded into
    // device buffers when first used.
    let mut warm = 0;
    ok(sl_add(x, y, &mut warm));
    download(warm);
    release(&[warm]);

    // The 8-op chain sin(x)*cos(y) + sqrt(abs(x))*exp(-y*y) - 0.5*x: one kernel, and the
    // only buffer allocated is the result.
    ok(sl_scope_begin());
    let before = stats();
    let (mut s, mut c, mut p, mut a, mut q, mut yy, mut ny, mut e, mut r, mut h, mut t, mut out) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    ok(sl_sin(x, &mut s));
    ok(sl_cos(y, &mut c));
    ok(sl_mul(s, c, &mut p));
    ok(sl_abs(x, &mut a));
    ok(sl_sqrt(a, &mut q));
    ok(sl_mul(y, y, &mut yy));
    ok(sl_neg(yy, &mut ny));
    ok(sl_exp(ny, &mut e));
    ok(sl_mul(q, e, &mut r));
    ok(sl_add(p, r, &mut h));
    ok(sl_mul_scalar(x, 0.5, &mut t));
    ok(sl_sub(h, t, &mut out));
    assert_eq!(stats().kernels, before.kernels, "nothing runs before a result is needed");
    let got = download(out);
    let after = stats();
    assert_eq!(after.kernels - before.kernels, 1, "the chain is one kernel");
    let allocations = |s: &sl_stats| s.allocations + s.device_allocations;
    assert_eq!(allocations(&after) - allocations(&before), 1, "only the result is stored");
    for i in (0..n).step_by(997) {
        let (xv, yv) = (xa.v[i].f() as f32, ya.v[i].f() as f32);
        let want = xv.sin() * yv.cos() + xv.abs().sqrt() * (-(yv * yv)).exp() - 0.5 * xv;
        assert!((got.v[i].f() as f32 - want).abs() <= 1e-5, "element {i}");
    }
    // Reading an intermediate the chain computed without storing it: computed now (once
    // more), then stored so a third use would not recompute.
    let before = stats();
    download(p);
    assert_eq!(stats().kernels - before.kernels, 1);
    ok(sl_scope_end());
    assert_eq!(live(), base_handles, "the scope released everything it created");

    // A reduction of a fused expression is one kernel; a value that depends on the
    // reduction needs a second.
    ok(sl_scope_begin());
    let before = stats();
    let (mut xx, mut sum) = (0, 0);
    ok(sl_mul(x, x, &mut xx));
    ok(sl_sum(xx, SL_ALL_DIMS, &mut sum));
    let total = download(sum).v[0].f();
    let want: f64 = xa.v.iter().map(|v| (v.f() as f32 * v.f() as f32) as f64).sum();
    assert!((total - want).abs() < want * 1e-5);
    assert_eq!(stats().kernels - before.kernels, 1);
    let before = stats();
    let (mut m, mut centred, mut var) = (0, 0, 0);
    ok(sl_mean(x, SL_ALL_DIMS, &mut m));
    ok(sl_sub(x, m, &mut centred));
    ok(sl_dot(centred, centred, &mut var));
    download(var);
    assert_eq!(stats().kernels - before.kernels, 2, "mean, then the centred sum of squares");
    // sl_keep moves a result out of the scope.
    ok(sl_keep(var));
    ok(sl_scope_end());
    assert_eq!(live(), base_handles + 1);
    release(&[var]);

    // Nested scopes: keep moves one level out.
    ok(sl_scope_begin());
    ok(sl_scope_begin());
    let mut k = 0;
    ok(sl_neg(x, &mut k));
    ok(sl_keep(k));
    ok(sl_scope_end());
    assert_eq!(live(), base_handles + 1, "kept into the outer scope");
    ok(sl_release(k)); // released early: the outer scope_end skips it
    ok(sl_scope_end());
    assert_eq!(live(), base_handles);

    // A long dependent chain: the queue flushes by itself, kernels are cut at the size
    // limit, and nothing recurses per op.
    let small = f32s(1024, |i| i as f32);
    let hs = small.upload();
    let mut cur = 0;
    ok(sl_retain(hs, &mut cur));
    let before = stats();
    for _ in 0..20_000 {
        let mut t = 0;
        let mut nxt = 0;
        ok(sl_mul_scalar(cur, 0.999, &mut t));
        ok(sl_add(t, hs, &mut nxt));
        release(&[t, cur]);
        cur = nxt;
    }
    assert!(stats().flushes > before.flushes, "the queue flushed by itself");
    let got = download(cur);
    for i in (0..1024).step_by(101) {
        let mut want = i as f32;
        for _ in 0..20_000 {
            want = want * 0.999 + i as f32;
        }
        assert_eq!(got.v[i].f() as f32, want, "element {i} of the chain");
    }
    release(&[cur, hs]);

    // A pending value nobody reads costs nothing; sl_eval starts work, sl_sync waits.
    let before = stats();
    let mut unused = 0;
    ok(sl_exp(x, &mut unused));
    release(&[unused]);
    ok(sl_sync());
    let after = stats();
    assert_eq!(
        after.kernels, before.kernels,
        "a released pending value is never computed: flushes {} -> {}",
        before.flushes, after.flushes
    );
    let mut ev = 0;
    ok(sl_exp(x, &mut ev));
    ok(sl_eval(&ev, 1));
    ok(sl_sync());
    assert_eq!(stats().kernels - before.kernels, 1);
    release(&[ev, x, y]);
    assert_eq!(live(), base_handles - 2);

    stencil_chain();
}

/// 300 steps of a 5-point heat stencil with nothing read in between: each step reads the
/// previous one through four shifts, so recomputing instead of storing would grow
/// geometrically. The work stays about one kernel per step and matches a plain loop.
fn stencil_chain() {
    let (n, steps) = (48usize, 300);
    let mut rng = rng("stencil_chain");
    let init = rand_arr(&mut rng, SL_F64, &[n, n], 0.0, 1.0, false);
    let mut u = init.upload();
    let before = stats();
    for _ in 0..steps {
        ok(sl_scope_begin());
        let mut s = [0; 4];
        for (k, (dim, off)) in [(0, 1), (0, -1), (1, 1), (1, -1)].into_iter().enumerate() {
            ok(sl_shift(u, dim, off, SL_BOUNDARY_CLAMP, 0.0, &mut s[k]));
        }
        let (mut a, mut b, mut c, mut m, mut lap, mut k, mut next) = (0, 0, 0, 0, 0, 0, 0);
        ok(sl_add(s[0], s[1], &mut a));
        ok(sl_add(s[2], s[3], &mut b));
        ok(sl_add(a, b, &mut c));
        ok(sl_mul_scalar(u, 4.0, &mut m));
        ok(sl_sub(c, m, &mut lap));
        ok(sl_mul_scalar(lap, 0.1, &mut k));
        ok(sl_add(u, k, &mut next));
        ok(sl_keep(next));
        ok(sl_scope_end());
        release(&[u]);
        u = next;
    }
    let got = download(u);
    let kernels = stats().kernels - before.kernels;
    assert!(kernels <= steps as u64 + 2, "{kernels} kernels for {steps} steps");
    let mut w: Vec<f64> = init.v.iter().map(|v| v.f()).collect();
    let at = |w: &[f64], i: usize, j: usize| w[i.min(n - 1) + n * j.min(n - 1)];
    for _ in 0..steps {
        let mut next = w.clone();
        for j in 0..n {
            for i in 0..n {
                let c = at(&w, i, j);
                let sum = (at(&w, i + 1, j) + at(&w, i.saturating_sub(1), j))
                    + (at(&w, i, j + 1) + at(&w, i, j.saturating_sub(1)));
                next[i + n * j] = c + (sum - 4.0 * c) * 0.1;
            }
        }
        w = next;
    }
    let want = Arr::new(SL_F64, &[n, n], w.into_iter().map(V::F64).collect());
    assert_close("stencil chain", &got, &want, 64.0);
    release(&[u]);
}
