//! The trace cache as an application sees it: a repeated sequence of ops replays the
//! recorded program sequence with new arrays and scalars, gives exactly what planning
//! afresh gives, misses when the structure differs, stays within its capacity, and says
//! why it missed when asked. One test function (it restarts the runtime with different
//! settings and reads process-wide counters), plus child processes for the environment.

mod common;

use std::process::Command;

use common::*;
use sluice::*;

fn cache_stats() -> sl_cache_stats {
    let mut s: sl_cache_stats = unsafe { std::mem::zeroed() };
    ok(sl_get_cache_stats(SL_CACHE_TRACE, &mut s));
    s
}

fn restart(trace_cache_entries: i32, queue_limit: i32) {
    ok(sl_shutdown());
    let mut c: sl_config = unsafe { std::mem::zeroed() };
    ok(sl_config_default(&mut c));
    c.trace_cache_entries = trace_cache_entries;
    c.queue_limit = queue_limit;
    ok(sl_init(&c));
}

/// `y = y * s_k + x * t` for `iters` iterations, `s_k` different each time; returns the
/// final y read back.
fn damped_sum(x: &Arr, scales: &[f64], t: f64) -> Arr {
    let xh = x.upload();
    let mut y = 0;
    ok(sl_retain(xh, &mut y));
    for &s in scales {
        ok(sl_scope_begin());
        let (mut a, mut b, mut next) = (0, 0, 0);
        ok(sl_mul_scalar(y, s, &mut a));
        ok(sl_mul_scalar(xh, t, &mut b));
        ok(sl_add(a, b, &mut next));
        ok(sl_keep(next));
        ok(sl_scope_end());
        ok(sl_release(y));
        y = next;
    }
    let out = download(y);
    release(&[xh, y]);
    out
}

/// The same recurrence in plain f32 arithmetic.
fn damped_sum_reference(x: &Arr, scales: &[f64], t: f64) -> Arr {
    let mut y: Vec<f32> = x.v.iter().map(|v| v.f() as f32).collect();
    for &s in scales {
        for (yi, xi) in y.iter_mut().zip(&x.v) {
            *yi = *yi * s as f32 + xi.f() as f32 * t as f32;
        }
    }
    Arr::new(SL_F32, &x.shape, y.into_iter().map(V::F32).collect())
}

/// A flush of `sin(x) * 2.5 + x` over `x`, read back.
fn one_flush(x: sl_array) -> Arr {
    let (mut s, mut m, mut r) = (0, 0, 0);
    ok(sl_sin(x, &mut s));
    ok(sl_mul_scalar(s, 2.5, &mut m));
    ok(sl_add(m, x, &mut r));
    let out = download(r);
    release(&[s, m, r]);
    out
}

#[test]
fn trace_cache() {
    let mut rng = rng("trace_cache");
    let x = rand_arr(&mut rng, SL_F32, &[1000], -1.0, 1.0, false);
    let scales: Vec<f64> = (0..300).map(|_| rand_val(&mut rng, SL_F64, 0.5, 1.0, false).f()).collect();
    let want = damped_sum_reference(&x, &scales, 0.25);

    // A small queue limit cuts the loop into many flushes of the same shape.
    restart(-1, 60);
    let cached = damped_sum(&x, &scales, 0.25);
    let s = cache_stats();
    assert!(s.hits > 0, "the repeated flushes replay: {s:?}");
    assert_eq!(s.lookups, s.hits + s.misses);
    assert!(s.misses < s.hits, "most flushes of the loop are alike: {s:?}");
    assert!(s.saved_ns > 0);
    assert_close("replayed loop vs plain f32", &cached, &want, 2.0);

    // Without the cache every flush is planned afresh: exactly the same numbers.
    restart(0, 60);
    let planned = damped_sum(&x, &scales, 0.25);
    assert_eq!(cache_stats().lookups, 0, "a disabled cache is not consulted");
    assert_close("replayed vs planned afresh", &cached, &planned, 0.0);

    // Different shapes or layouts are different entries, each correct.
    restart(-1, 60);
    let expect = |a: &Arr| -> Arr {
        let v = a.v.iter().map(|v| V::F32((v.f() as f32).sin() * 2.5 + v.f() as f32)).collect();
        Arr::new(SL_F32, &a.shape, v)
    };
    let a = rand_arr(&mut rng, SL_F32, &[40, 30], -3.0, 3.0, false);
    let b = rand_arr(&mut rng, SL_F32, &[40, 30], -3.0, 3.0, false);
    let (ah, bh) = (a.upload(), b.upload());
    let before = cache_stats();
    assert_close("first", &one_flush(ah), &expect(&a), 4.0);
    assert_close("same structure, new array", &one_flush(bh), &expect(&b), 4.0);
    let after = cache_stats();
    assert_eq!((after.misses - before.misses, after.hits - before.hits), (1, 1));
    let mut t = 0;
    ok(sl_transpose(ah, &mut t));
    let at = download(t);
    let got = one_flush(t);
    let after_t = cache_stats();
    assert_eq!(after_t.misses - after.misses, 1, "a transposed view reads another layout");
    assert_close("transposed view", &got, &expect(&at), 4.0);
    let c = rand_arr(&mut rng, SL_F32, &[41, 30], -3.0, 3.0, false);
    let ch = c.upload();
    assert_close("other shape", &one_flush(ch), &expect(&c), 4.0);
    assert_eq!(cache_stats().misses - after_t.misses, 1, "another shape misses");
    release(&[ah, bh, t, ch]);

    // A cache of two entries cycling through three structures evicts, and stays right.
    restart(2, 60);
    let arrays: Vec<Arr> = [10, 20, 30].iter().map(|&n| rand_arr(&mut rng, SL_F32, &[n], -2.0, 2.0, false)).collect();
    let handles: Vec<sl_array> = arrays.iter().map(Arr::upload).collect();
    for _ in 0..3 {
        for (a, &h) in arrays.iter().zip(&handles) {
            assert_close("cycling", &one_flush(h), &expect(a), 4.0);
        }
    }
    let s = cache_stats();
    assert!(s.entries <= 2 && s.evictions > 0, "{s:?}");
    release(&handles);

    // One flush asked for with its roots in another order: its leaves sit at other places
    // of the subgraph's input list, so it is another entry, each replay right (a replay
    // once bound leaves by the first order's places and read a pending node as a leaf).
    restart(-1, 60);
    for round in 0..4 {
        let [p, q, r] = [0, 1, 2].map(|_| rand_arr(&mut rng, SL_F32, &[64], -2.0, 2.0, false));
        let [ph, qh, rh] = [&p, &q, &r].map(Arr::upload);
        let (mut d, mut m) = (0, 0);
        ok(sl_sub(ph, qh, &mut d));
        ok(sl_mul(d, rh, &mut m));
        let roots = if round % 2 == 0 { [d, m] } else { [m, d] };
        ok(sl_eval(roots.as_ptr(), 2));
        let want = (0..64).map(|i| V::F32((p.v[i].f() as f32 - q.v[i].f() as f32) * r.v[i].f() as f32)).collect();
        assert_close("roots in another order", &download(m), &Arr::new(SL_F32, &[64], want), 0.0);
        release(&[ph, qh, rh, d, m]);
    }

    // Bad arguments.
    fails(sl_get_cache_stats(SL_CACHE_TRACE, std::ptr::null_mut()), SL_ERR_INVALID_ARGUMENT, "NULL");
    let mut s: sl_cache_stats = unsafe { std::mem::zeroed() };
    fails(sl_get_cache_stats(99, &mut s), SL_ERR_INVALID_ARGUMENT, "not a cache");
    ok(sl_shutdown());
}

/// Run by `explained_misses` in a child process with `SLUICE_EXPLAIN_MISSES=1`.
#[test]
#[ignore = "run by explained_misses in a child process"]
fn explain_child() {
    let mut rng = rng("explain_child");
    for n in [1000, 1001] {
        let h = rand_arr(&mut rng, SL_F32, &[n], -1.0, 1.0, false).upload();
        one_flush(h);
        release(&[h]);
    }
}

fn child(test: &str, env: (&str, &str)) -> std::process::Output {
    Command::new(std::env::current_exe().unwrap())
        .args(["--exact", test, "--ignored", "--nocapture", "--test-threads=1"])
        .env(env.0, env.1)
        .output()
        .expect("run the test binary")
}

#[test]
fn explained_misses() {
    let out = child("explain_child", ("SLUICE_EXPLAIN_MISSES", "1"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("trace cache miss") && err.contains("the cache is empty"), "{err}");
    assert!(err.contains("shape [1001] was [1000]"), "{err}");
    assert!(err.contains("tests/trace_cache.rs:"), "the explanation names the call site: {err}");
}

#[test]
fn bad_settings() {
    let out = child("explain_child", ("SLUICE_TRACE_CACHE_ENTRIES", "lots"));
    let text = String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("SLUICE_TRACE_CACHE_ENTRIES=lots is not a non-negative integer"), "{text}");
}
