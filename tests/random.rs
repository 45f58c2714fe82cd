//! Random numbers: every element equals the documented counter-based stream (checked
//! against `ir::random`, whose Philox is checked against the Random123 known answers),
//! the statistics are right, draws advance and repeat after a state reset, views and
//! fusion see the same values, and a macro replay draws exactly what running its body
//! again would draw.

mod common;

use std::ffi::CString;

use common::*;
use sluice::ir::DType;
use sluice::ir::random::{RngKind, Stream};
use sluice::*;

fn rng_new(kind: sl_rng_kind, seed: u64) -> sl_rng {
    let mut r = 0;
    ok(sl_rng_create(kind, seed, &mut r));
    r
}

fn draw(rng: sl_rng, normal: bool, dt: sl_dtype, shape: &[usize]) -> sl_array {
    let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    let mut out = 0;
    let f = if normal { sl_random_normal } else { sl_random_uniform };
    ok(f(rng, dt, dims.len() as i32, dims.as_ptr(), &mut out));
    out
}

/// Element `i` of draw `d` as the stream defines it, in f64.
fn expected(kind: RngKind, normal: bool, dt: sl_dtype, seed: u64, d: u64, i: usize) -> f64 {
    let s = Stream { kind, seed, draw: d };
    let t = if dt == SL_F32 { DType::F32 } else { DType::F64 };
    if normal { s.normal(t, i as u64) } else { s.uniform(t, i as u64) }
}

fn state(rng: sl_rng) -> (u64, u64) {
    let (mut s, mut d) = (0, 0);
    ok(sl_rng_get_state(rng, &mut s, &mut d));
    (s, d)
}

#[test]
fn streams_match_the_definition() {
    let mut r = rng("streams");
    for (kind, sk) in [(RngKind::Philox, SL_RNG_PHILOX), (RngKind::Fast, SL_RNG_FAST)] {
        for dt in [SL_F32, SL_F64] {
            for normal in [false, true] {
                let seed = rand_val(&mut r, SL_I64, 0.0, 1e15, false).f() as u64;
                let g = rng_new(sk, seed);
                let shape = [37, 5, 3];
                let first = draw(g, normal, dt, &shape);
                let second = draw(g, normal, dt, &shape);
                assert_eq!(state(g), (seed, 2), "each array takes one draw");
                for (d, h) in [(0u64, first), (1, second)] {
                    let got = download(h);
                    for (i, v) in got.v.iter().enumerate() {
                        let want = expected(kind, normal, dt, seed, d, i);
                        let v = v.f();
                        if normal {
                            // log, sqrt and cos of the executor, within their error bounds.
                            let tol = if dt == SL_F32 { 2e-6 } else { 1e-13 } * want.abs().max(1.0);
                            assert!((v - want).abs() <= tol, "{kind:?} {dt} normal element {i}: {v} vs {want}");
                        } else {
                            assert_eq!(v, want, "{kind:?} {dt} uniform element {i} is the stream's value");
                        }
                    }
                }
                release(&[first, second]);
                ok(sl_rng_destroy(g));
            }
        }
    }
}

#[test]
fn statistics() {
    let mut r = rng("statistics");
    let n = 1 << 20;
    for sk in [SL_RNG_PHILOX, SL_RNG_FAST] {
        let g = rng_new(sk, rand_val(&mut r, SL_I64, 0.0, 1e15, false).f() as u64);
        let u = download(draw(g, false, SL_F64, &[n]));
        let z = download(draw(g, true, SL_F64, &[n]));
        let mean = |a: &Arr| a.v.iter().map(|v| v.f()).sum::<f64>() / n as f64;
        let var = |a: &Arr, m: f64| a.v.iter().map(|v| (v.f() - m).powi(2)).sum::<f64>() / n as f64;
        let (mu, mz) = (mean(&u), mean(&z));
        // Six standard errors: a correct generator fails this about once in 10^9 runs.
        let se = |sd: f64| 6.0 * sd / (n as f64).sqrt();
        assert!((mu - 0.5).abs() < se((1.0f64 / 12.0).sqrt()), "uniform mean {mu}");
        assert!((var(&u, mu) - 1.0 / 12.0).abs() < se((1.0f64 / 180.0).sqrt()), "uniform variance");
        assert!(mz.abs() < se(1.0), "normal mean {mz}");
        assert!((var(&z, mz) - 1.0).abs() < se(2f64.sqrt()), "normal variance {}", var(&z, mz));
        assert!(u.v.iter().all(|v| (0.0..1.0).contains(&v.f())));
        // Chi-square over 100 equal bins (99 degrees of freedom): above 170 happens for a
        // uniform source about once in 10^5 runs.
        let mut bins = [0u64; 100];
        for v in &u.v {
            bins[(v.f() * 100.0) as usize] += 1;
        }
        let e = n as f64 / 100.0;
        let chi2: f64 = bins.iter().map(|&b| (b as f64 - e).powi(2) / e).sum();
        assert!(chi2 < 170.0, "chi-square {chi2} over 100 bins");
        ok(sl_rng_destroy(g));
    }
}

#[test]
fn state_views_and_fusion() {
    let g = rng_new(SL_RNG_PHILOX, 42);
    let a = draw(g, false, SL_F32, &[30, 20]);
    let av = download(a);
    // Reset the state: the same draw repeats, here read through a transpose and fused
    // into arithmetic, which must see the same elements.
    ok(sl_rng_set_state(g, 42, 0));
    let b = draw(g, false, SL_F32, &[30, 20]);
    let (mut t, mut s) = (0, 0);
    ok(sl_transpose(b, &mut t));
    ok(sl_mul_scalar(t, 2.0, &mut s));
    let got = download(s);
    for i in 0..30 {
        for j in 0..20 {
            assert_eq!(got.v[j + 20 * i].f(), 2.0 * av.v[i + 30 * j].f());
        }
    }
    release(&[a, b, t, s]);

    // A loop drawing fresh numbers replays the trace cache (the draw is a parameter).
    let mut c: sl_cache_stats = unsafe { std::mem::zeroed() };
    ok(sl_get_cache_stats(SL_CACHE_TRACE, &mut c));
    let mut sums = Vec::new();
    for _ in 0..6 {
        let x = draw(g, true, SL_F64, &[1000]);
        let mut m = 0;
        ok(sl_mean(x, -1, &mut m));
        sums.push(download(m).v[0].f());
        release(&[x, m]);
    }
    let mut c2: sl_cache_stats = unsafe { std::mem::zeroed() };
    ok(sl_get_cache_stats(SL_CACHE_TRACE, &mut c2));
    assert!(c2.hits > c.hits, "repeated draws reuse the compiled flush");
    assert!(sums.windows(2).all(|w| w[0] != w[1]), "each draw is new: {sums:?}");
    ok(sl_rng_destroy(g));
}

/// A section drawing from `g` and adding the input; `runs` counts body runs.
fn noisy(x: sl_array, g: sl_rng, runs: &mut usize) -> sl_array {
    let name = CString::new("noisy").unwrap();
    let mut out = [0];
    let mut mode = 0;
    ok(sl_macro_begin(name.as_ptr(), &x, 1, std::ptr::null(), 0, out.as_mut_ptr(), 1, &mut mode));
    if mode == SL_MACRO_RECORD {
        *runs += 1;
        out[0] = noisy_body(x, g);
        ok(sl_macro_end(out.as_ptr(), 1));
    }
    out[0]
}

fn noisy_body(x: sl_array, g: sl_rng) -> sl_array {
    let (u, z) = (draw(g, false, SL_F32, &[64]), draw(g, true, SL_F32, &[64]));
    let (mut a, mut out) = (0, 0);
    ok(sl_add(x, u, &mut a));
    ok(sl_mul(a, z, &mut out));
    release(&[u, z, a]);
    out
}

#[test]
fn macro_replays_draw_new_numbers() {
    let mut r = rng("macro_rng");
    let x = rand_arr(&mut r, SL_F32, &[64], -1.0, 1.0, false).upload();
    let seed = rand_val(&mut r, SL_I64, 0.0, 1e12, false).f() as u64;
    let g = rng_new(SL_RNG_PHILOX, seed);
    let mut runs = 0;
    let replays = 1000;
    let replayed: Vec<Arr> = (0..replays)
        .map(|_| {
            let h = noisy(x, g, &mut runs);
            let a = download(h);
            release(&[h]);
            a
        })
        .collect();
    assert_eq!(runs, 1, "recorded once, then replayed");
    assert_eq!(state(g), (seed, 2 * replays as u64), "each replay takes the section's two draws");
    // The same body run as often from the same state gives the same numbers, bit for bit.
    ok(sl_rng_set_state(g, seed, 0));
    for (k, want) in replayed.iter().enumerate() {
        let h = noisy_body(x, g);
        assert_close(&format!("run {k}"), want, &download(h), 0.0);
        release(&[h]);
    }
    assert!(replayed[0].v != replayed[1].v, "replays draw new numbers");
    ok(sl_rng_destroy(g));
    // A replay whose generator was destroyed is refused.
    let mut out = [0];
    let mut mode = 0;
    let name = CString::new("noisy").unwrap();
    fails(
        sl_macro_begin(name.as_ptr(), &x, 1, std::ptr::null(), 0, out.as_mut_ptr(), 1, &mut mode),
        SL_ERR_INVALID_HANDLE,
        "not a live random number generator",
    );
    release(&[x]);
}

#[test]
fn bad_arguments() {
    let mut g = 0;
    fails(sl_rng_create(7, 1, &mut g), SL_ERR_INVALID_ARGUMENT, "not an sl_rng_kind");
    fails(sl_rng_create(SL_RNG_PHILOX, 1, std::ptr::null_mut()), SL_ERR_INVALID_ARGUMENT, "NULL");
    let g = rng_new(SL_RNG_FAST, 3);
    let dims = [4i64];
    let mut out = 0;
    fails(sl_random_uniform(g, SL_I32, 1, dims.as_ptr(), &mut out), SL_ERR_DTYPE_MISMATCH, "f32 or f64");
    fails(sl_random_normal(g, SL_F32, -1, dims.as_ptr(), &mut out), SL_ERR_INVALID_ARGUMENT, "rank");
    let a = draw(g, false, SL_F32, &[4]);
    fails(sl_random_uniform(a, SL_F32, 1, dims.as_ptr(), &mut out), SL_ERR_INVALID_HANDLE, "random number generator");
    ok(sl_rng_destroy(g));
    fails(sl_rng_destroy(g), SL_ERR_INVALID_HANDLE, "not a live");
    fails(sl_rng_set_state(g, 1, 2), SL_ERR_INVALID_HANDLE, "not a live");
    assert_eq!(download(a).v.len(), 4, "arrays drawn before the generator went stay valid");
    release(&[a]);
}
