//! Random numbers: every element equals the documented counter-based stream (checked
//! against `ir::random`, whose Philox is checked against the Random123 known answers),
//! the statistics are right, draws advance and repeat after a state reset, views and
//! fusion see the same values, and a macro replay draws exactly what running its body
//! again would draw.

mod common;

use std::ffi::CString;

use common::reference::erf;
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

/// How far an executor's normal element `i` may be from the definition's (computed in
/// f64): the angle 2 pi v is rounded to the type (and 2 pi with it), which moves the value
/// by up to about the radius times that rounding; log, sqrt, cos and sin add a few ulps.
fn normal_tolerance(s: &Stream, t: DType, i: u64) -> f64 {
    let radius = s.normal(t, i & !1).hypot(s.normal(t, i | 1));
    let unit = if t == DType::F32 { 1e-6 } else { 1e-14 };
    unit * (1.0 + radius)
}

fn state(rng: sl_rng) -> (u64, u64) {
    let (mut s, mut d) = (0, 0);
    ok(sl_rng_get_state(rng, &mut s, &mut d));
    (s, d)
}

#[test]
fn streams_match_the_definition() {
    let mut r = rng("streams");
    for (kind, sk) in
        [(RngKind::Philox, SL_RNG_PHILOX), (RngKind::Fast, SL_RNG_FAST), (RngKind::Threefry, SL_RNG_THREEFRY)]
    {
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
                            let t = if dt == SL_F32 { DType::F32 } else { DType::F64 };
                            let tol = normal_tolerance(&Stream { kind, seed, draw: d }, t, i as u64);
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

/// Every value of a long f32 normal array is within the tolerance of the definition's:
/// hundreds of thousands of pairs put some angles within 1e-5 turns of a zero of the cosine
/// or the sine, where an f32 `cos(2 pi v)` (2 pi v rounded, or a device's own f32 cosine)
/// was up to 3e-6 off on Vulkan without f64.
#[test]
fn long_f32_normal_arrays_match_the_definition() {
    let mut r = rng("long_f32_normal");
    for (kind, sk) in
        [(RngKind::Philox, SL_RNG_PHILOX), (RngKind::Fast, SL_RNG_FAST), (RngKind::Threefry, SL_RNG_THREEFRY)]
    {
        let seed = rand_val(&mut r, SL_I64, 0.0, 1e15, false).f() as u64;
        let g = rng_new(sk, seed);
        let a = draw(g, true, SL_F32, &[1 << 19]);
        let stream = Stream { kind, seed, draw: 0 };
        for (i, v) in download(a).v.iter().enumerate() {
            let want = stream.normal(DType::F32, i as u64);
            let tol = normal_tolerance(&stream, DType::F32, i as u64);
            assert!((v.f() - want).abs() <= tol, "{kind:?} element {i}: {} vs {want}", v.f());
        }
        release(&[a]);
        ok(sl_rng_destroy(g));
    }
}

/// Kolmogorov-Smirnov statistic sqrt(n) D of `x` against the distribution function `cdf`.
fn ks(x: &[f64], cdf: impl Fn(f64) -> f64) -> f64 {
    let mut s = x.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len() as f64;
    let d = s
        .iter()
        .enumerate()
        .map(|(i, &v)| (cdf(v) - i as f64 / n).max((i + 1) as f64 / n - cdf(v)))
        .fold(0.0, f64::max);
    d * n.sqrt()
}

/// Correlation of `a` and `b`.
fn correlation(a: &[f64], b: &[f64]) -> f64 {
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let cov: f64 = a.iter().zip(b).map(|(x, y)| (x - ma) * (y - mb)).sum();
    let va: f64 = a.iter().map(|x| (x - ma).powi(2)).sum();
    let vb: f64 = b.iter().map(|y| (y - mb).powi(2)).sum();
    cov / (va * vb).sqrt()
}

/// Distribution, independence and repeats of 2^20 values of every generator, type and
/// distribution. Each bound is six standard errors of its statistic (a correct generator
/// fails one about once in 10^9 runs), except the chi-square and Kolmogorov-Smirnov
/// bounds, passed by a correct source all but about once in 10^5 runs.
#[test]
fn statistics() {
    let mut r = rng("statistics");
    let n = 1 << 20;
    let se = |sd: f64, n: usize| 6.0 * sd / (n as f64).sqrt();
    for sk in [SL_RNG_PHILOX, SL_RNG_FAST, SL_RNG_THREEFRY] {
        for dt in [SL_F32, SL_F64] {
            let g = rng_new(sk, rand_val(&mut r, SL_I64, 0.0, 1e15, false).f() as u64);
            let values =
                |normal: bool| download(draw(g, normal, dt, &[n])).v.iter().map(|v| v.f()).collect::<Vec<f64>>();
            let (u, next, z) = (values(false), values(false), values(true));
            let ctx = format!("generator {sk}, {dt}");
            let mean = |a: &[f64]| a.iter().sum::<f64>() / a.len() as f64;
            let var = |a: &[f64], m: f64| a.iter().map(|v| (v - m).powi(2)).sum::<f64>() / a.len() as f64;
            let (mu, mz) = (mean(&u), mean(&z));
            assert!((mu - 0.5).abs() < se((1.0f64 / 12.0).sqrt(), n), "{ctx}: uniform mean {mu}");
            assert!((var(&u, mu) - 1.0 / 12.0).abs() < se((1.0f64 / 180.0).sqrt(), n), "{ctx}: uniform variance");
            assert!(mz.abs() < se(1.0, n), "{ctx}: normal mean {mz}");
            assert!((var(&z, mz) - 1.0).abs() < se(2f64.sqrt(), n), "{ctx}: normal variance {}", var(&z, mz));
            assert!(u.iter().all(|v| (0.0..1.0).contains(v)), "{ctx}: uniform values in [0, 1)");
            // Chi-square over 100 equal bins (99 degrees of freedom): above 170 about once
            // in 10^5 runs.
            let mut bins = [0u64; 100];
            for v in &u {
                bins[(v * 100.0) as usize] += 1;
            }
            let e = n as f64 / 100.0;
            let chi2: f64 = bins.iter().map(|&b| (b as f64 - e).powi(2) / e).sum();
            assert!(chi2 < 170.0, "{ctx}: chi-square {chi2} over 100 bins");
            // sqrt(n) D above 2.5: about once in 10^5 runs.
            let ku = ks(&u, |x| x.clamp(0.0, 1.0));
            let kz = ks(&z, |x| 0.5 * (1.0 + erf(x / 2f64.sqrt())));
            assert!(ku < 2.5 && kz < 2.5, "{ctx}: Kolmogorov-Smirnov {ku} (uniform), {kz} (normal)");
            // Neighbours: within a block (lags 1-3 for f32, 1 for f64) and across blocks.
            for lag in 1..=8 {
                let c = correlation(&u[..n - lag], &u[lag..]);
                assert!(c.abs() < se(1.0, n), "{ctx}: correlation {c} of uniform values {lag} apart");
                let c = correlation(&z[..n - lag], &z[lag..]);
                assert!(c.abs() < se(1.0, n), "{ctx}: correlation {c} of normal values {lag} apart");
            }
            // The two values of a Box-Muller pair, and their squares, are independent.
            let (even, odd): (Vec<f64>, Vec<f64>) = z.chunks_exact(2).map(|p| (p[0], p[1])).unzip();
            let sq = |a: &[f64]| a.iter().map(|x| x * x).collect::<Vec<f64>>();
            for (c, what) in [(correlation(&even, &odd), "values"), (correlation(&sq(&even), &sq(&odd)), "squares")] {
                assert!(c.abs() < se(1.0, n / 2), "{ctx}: correlation {c} of the {what} of normal pairs");
            }
            // Consecutive draws are independent and share no run of four values (96 bits
            // or more: by chance about once in 2^50 runs).
            let c = correlation(&u, &next);
            assert!(c.abs() < se(1.0, n), "{ctx}: correlation {c} of consecutive draws");
            let runs = |a: &[f64]| {
                a.windows(4).map(|w| w.iter().map(|v| v.to_bits()).collect::<Vec<u64>>()).collect::<Vec<_>>()
            };
            let mut seen = std::collections::HashSet::new();
            for w in runs(&u).into_iter().chain(runs(&next)) {
                assert!(seen.insert(w), "{ctx}: a run of four values repeats within or between draws");
            }
            ok(sl_rng_destroy(g));
        }
    }
}

/// With result comparison on (process-wide, so in a process of its own), the reference
/// run, which computes random values from the definition in f64, has the executor's
/// uniform values bit for bit, read through a transpose and fused into arithmetic, and
/// its normal values within their tolerance.
#[test]
fn reference_run_agrees() {
    child("reference_values", &[("SLUICE_COMPARE", "compute")]);
}

#[test]
#[ignore = "run by reference_run_agrees, with result comparison on"]
fn reference_values() {
    let mut r = rng("reference_values");
    for dt in [SL_F32, SL_F64] {
        for normal in [false, true] {
            let seed = rand_val(&mut r, SL_I64, 0.0, 1e15, false).f() as u64;
            let g = rng_new(SL_RNG_PHILOX, seed);
            let a = draw(g, normal, dt, &[45, 23]);
            let (mut t, mut y, mut reference) = (0, 0, 0);
            ok(sl_transpose(a, &mut t));
            ok(sl_mul_scalar(t, 2.0, &mut y));
            let got = download(y);
            ok(sl_reference(y, &mut reference));
            let want = download(reference);
            let (stream, ty) =
                (Stream { kind: RngKind::Philox, seed, draw: 0 }, if dt == SL_F32 { DType::F32 } else { DType::F64 });
            for (k, (g, w)) in got.v.iter().zip(&want.v).enumerate() {
                let (g, w) = (g.f(), w.f());
                // Value k of the transpose (23 x 45) is element (k / 23) + 45 (k % 23).
                let tol =
                    if normal { 2.0 * normal_tolerance(&stream, ty, (k / 23 + 45 * (k % 23)) as u64) } else { 0.0 };
                assert!((g - w).abs() <= tol, "{dt} normal {normal} value {k}: {g} vs reference {w}");
            }
            release(&[a, t, y, reference]);
            ok(sl_rng_destroy(g));
        }
    }
}

/// A random view of `a` (of `shape`): a permutation, a section (steps of either sign),
/// a reshape, or a broadcast of a size-1 dimension; returns it and its shape.
fn random_view(r: &mut rand::rngs::StdRng, a: sl_array, shape: &[usize]) -> (sl_array, Vec<usize>) {
    use rand::Rng;
    let rank = shape.len();
    let mut out = 0;
    let new_shape = match r.random_range(0..4) {
        0 => {
            let mut perm: Vec<i32> = (0..rank as i32).collect();
            for i in (1..rank).rev() {
                perm.swap(i, r.random_range(0..=i));
            }
            ok(sl_permute(a, perm.as_ptr(), rank as i32, &mut out));
            perm.iter().map(|&p| shape[p as usize]).collect()
        }
        1 => {
            let (mut start, mut count, mut stride) = (vec![], vec![], vec![]);
            for &n in shape {
                let step = [1i64, 2, 3, -1, -2][r.random_range(0..5)];
                let first = r.random_range(0..n) as i64;
                // Elements first, first + step, ... inside 0..n.
                let room = if step > 0 { (n as i64 - 1 - first) / step } else { first / -step };
                let c = r.random_range(0..=room) + 1;
                start.push(first);
                count.push(c);
                stride.push(step);
            }
            ok(sl_section(a, start.as_ptr(), count.as_ptr(), stride.as_ptr(), &mut out));
            count.iter().map(|&c| c as usize).collect()
        }
        2 => {
            // Reversed dimensions, one more unit dimension: same elements, other shape.
            let mut dims: Vec<usize> = shape.iter().rev().copied().collect();
            dims.push(1);
            let d: Vec<i64> = dims.iter().map(|&x| x as i64).collect();
            ok(sl_reshape(a, d.len() as i32, d.as_ptr(), &mut out));
            dims
        }
        _ => {
            // A unit dimension in front, broadcast to a few copies.
            let mut one = vec![1i64];
            one.extend(shape.iter().map(|&x| x as i64));
            let mut with_one = 0;
            ok(sl_reshape(a, one.len() as i32, one.as_ptr(), &mut with_one));
            one[0] = r.random_range(2..4);
            ok(sl_broadcast_to(with_one, one.len() as i32, one.as_ptr(), &mut out));
            release(&[with_one]);
            one.iter().map(|&x| x as usize).collect()
        }
    };
    (out, new_shape)
}

/// Random values of random shapes, seeds and draws, read through chains of random views
/// and fused into arithmetic (times 2, exact), are the stream's elements: uniform values
/// bit for bit, normal values within their functions' error bounds. Which element each
/// value is comes from the same views applied to an array of element indices.
#[test]
fn views_of_random_shapes() {
    use rand::Rng;
    let mut r = rng("views_of_random_shapes");
    for case in 0..60 {
        let kind = if r.random_bool(0.5) { RngKind::Philox } else { RngKind::Fast };
        let (dt, normal) = ([SL_F32, SL_F64][r.random_range(0..2)], r.random_bool(0.4));
        let rank = r.random_range(1..=4);
        // Sometimes one long dimension, so runs cross chunks and batches.
        let shape: Vec<usize> = (0..rank)
            .map(|d| if d == 0 && r.random_bool(0.3) { r.random_range(1..3000) } else { r.random_range(1..9) })
            .collect();
        let (seed, d) = (r.random::<u64>(), r.random_range(0..1u64 << 40));
        let g = rng_new(if kind == RngKind::Philox { SL_RNG_PHILOX } else { SL_RNG_FAST }, seed);
        ok(sl_rng_set_state(g, seed, d));
        let a = draw(g, normal, dt, &shape);
        let indices = Arr::new(SL_I64, &shape, (0..numel(&shape) as i64).map(V::I64).collect()).upload();
        let (mut va, mut vi, mut cur) = (a, indices, shape.clone());
        for _ in 0..r.random_range(1..=3) {
            let mut step = r.clone();
            let (na, s) = random_view(&mut step, va, &cur);
            let (ni, _) = random_view(&mut r, vi, &cur);
            release(&[va, vi]);
            (va, vi, cur) = (na, ni, s);
        }
        let mut twice = 0;
        ok(sl_mul_scalar(va, 2.0, &mut twice));
        let (got, at) = (download(twice), download(vi));
        let stream = Stream { kind, seed, draw: d };
        let t = if dt == SL_F32 { DType::F32 } else { DType::F64 };
        for (k, (v, i)) in got.v.iter().zip(&at.v).enumerate() {
            let V::I64(i) = *i else { unreachable!() };
            let ctx = format!(
                "case {case}: {kind:?} {dt} normal {normal} shape {shape:?} view {cur:?} value {k} element {i}"
            );
            if normal {
                let want = 2.0 * stream.normal(t, i as u64);
                let tol = 2.0 * normal_tolerance(&stream, t, i as u64);
                assert!((v.f() - want).abs() <= tol, "{ctx}: {} vs {want}", v.f());
            } else {
                assert_eq!(v.f(), 2.0 * stream.uniform(t, i as u64), "{ctx}");
            }
        }
        // Summed along a random dimension of the view (the random values fused into the
        // reduction), against sums of the definition's values.
        let dim = r.random_range(0..cur.len());
        let mut sums = 0;
        ok(sl_sum(va, dim as i32, &mut sums));
        let (got_sums, mut want, mut scale) =
            (download(sums), vec![0.0; numel(&cur) / cur[dim]], vec![0.0; numel(&cur) / cur[dim]]);
        let reduced: Vec<usize> = cur.iter().enumerate().map(|(e, &n)| if e == dim { 1 } else { n }).collect();
        for (k, i) in at.v.iter().enumerate() {
            let V::I64(i) = *i else { unreachable!() };
            let x = if normal { stream.normal(t, i as u64) } else { stream.uniform(t, i as u64) };
            let mut idx = unravel(&cur, k);
            idx[dim] = 0;
            want[ravel(&reduced, &idx)] += x;
            scale[ravel(&reduced, &idx)] += x.abs() + 1.0;
        }
        for (k, g) in got_sums.v.iter().enumerate() {
            let tol = if dt == SL_F32 { 1e-5 } else { 1e-12 } * scale[k];
            assert!(
                (g.f() - want[k]).abs() <= tol,
                "case {case}: sum {k} along {dim} of view {cur:?}: {} vs {}",
                g.f(),
                want[k]
            );
        }
        release(&[va, vi, twice, sums]);
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

/// Random arrays of both types and distributions fused into one kernel, of lengths that
/// are not multiples of a block's values: the executor may take several consecutive
/// elements per step (a Vulkan invocation takes as many as the f64 arrays' blocks give,
/// so the f32 ones start steps inside their blocks and pairs), each element still has its
/// stream value.
#[test]
fn both_types_fused_in_one_kernel() {
    use rand::Rng;
    let mut r = rng("both_types");
    for _ in 0..4 {
        let n = r.random_range(1..3000usize);
        let kind = if r.random_bool(0.5) { (RngKind::Philox, SL_RNG_PHILOX) } else { (RngKind::Fast, SL_RNG_FAST) };
        let seeds: Vec<u64> = (0..4).map(|_| r.random_range(0..1u64 << 50)).collect();
        // (normal, type) of each array, each from a generator of its own (first draws).
        let arrays = [(true, SL_F32), (false, SL_F32), (true, SL_F64), (false, SL_F64)];
        let gens: Vec<sl_rng> = seeds.iter().map(|&s| rng_new(kind.1, s)).collect();
        let (mut handles, mut sum) = (Vec::new(), None);
        for (&(normal, dt), &g) in arrays.iter().zip(&gens) {
            let (a, mut wide) = (draw(g, normal, dt, &[n]), 0);
            ok(sl_cast(a, SL_F64, &mut wide));
            handles.extend([a, wide]);
            sum = Some(match sum {
                None => wide,
                Some(s) => {
                    let mut t = 0;
                    ok(sl_add(s, wide, &mut t));
                    handles.push(t);
                    t
                }
            });
        }
        let sum = sum.expect("four arrays");
        let got = download(sum);
        for i in 0..n {
            let (mut want, mut tol) = (0.0, 0.0);
            for (&(normal, dt), &seed) in arrays.iter().zip(&seeds) {
                want += expected(kind.0, normal, dt, seed, 0, i);
                if normal {
                    let t = if dt == SL_F32 { DType::F32 } else { DType::F64 };
                    tol += normal_tolerance(&Stream { kind: kind.0, seed, draw: 0 }, t, i as u64);
                }
            }
            tol += 4.0 * f64::EPSILON * want.abs().max(1.0);
            let v = got.v[i].f();
            assert!((v - want).abs() <= tol, "{kind:?} n {n} element {i}: {v} vs {want}");
        }
        release(&handles);
        for g in gens {
            ok(sl_rng_destroy(g));
        }
    }
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
    fails(sl_random_uniform(g, SL_C64, 1, dims.as_ptr(), &mut out), SL_ERR_DTYPE_MISMATCH, "two real draws");
    fails(sl_random_normal(g, SL_F32, -1, dims.as_ptr(), &mut out), SL_ERR_INVALID_ARGUMENT, "rank");
    let a = draw(g, false, SL_F32, &[4]);
    fails(sl_random_uniform(a, SL_F32, 1, dims.as_ptr(), &mut out), SL_ERR_INVALID_HANDLE, "random number generator");
    ok(sl_rng_destroy(g));
    fails(sl_rng_destroy(g), SL_ERR_INVALID_HANDLE, "not a live");
    fails(sl_rng_set_state(g, 1, 2), SL_ERR_INVALID_HANDLE, "not a live");
    assert_eq!(download(a).v.len(), 4, "arrays drawn before the generator went stay valid");
    release(&[a]);
}

/// Complex normal numbers: element k of a c64 (c128) draw is (x_2k + i x_2k+1) / sqrt(2)
/// for the f32 (f64) normal stream x of the same draw, on the executor in use, read
/// through a fused op too; and the statistics of the standard complex normal: parts of
/// variance 1/2, uncorrelated, E|z|^2 = 1 (six standard errors, as `statistics`).
#[test]
fn complex_normals() {
    let mut r = rng("complex_normals");
    for (kind, sk) in [(RngKind::Philox, SL_RNG_PHILOX), (RngKind::Fast, SL_RNG_FAST)] {
        for (dt, part) in [(SL_C64, DType::F32), (SL_C128, DType::F64)] {
            let seed = rand_val(&mut r, SL_I64, 0.0, 1e15, false).f() as u64;
            let g = rng_new(sk, seed);
            let shape = [rand_val(&mut r, SL_I64, 1.0, 300.0, false).f() as usize, 3, 7];
            let n = numel(&shape);
            let z = draw(g, true, dt, &shape);
            let mut conj = 0;
            ok(sl_conj(z, &mut conj));
            let stream = Stream { kind, seed, draw: 0 };
            for (h, sign) in [(z, 1.0), (conj, -1.0)] {
                let got = download_complex(h);
                assert_eq!(got.len(), n);
                for (k, &(re, im)) in got.iter().enumerate() {
                    for (j, v, s) in [(2 * k, re, 1.0), (2 * k + 1, im, sign)] {
                        let want = s * stream.normal(part, j as u64) * std::f64::consts::FRAC_1_SQRT_2;
                        // The stream's tolerance, and the rounding of the scaling.
                        let tol = normal_tolerance(&stream, part, j as u64) + want.abs() * 1.2e-7;
                        assert!((v - want).abs() <= tol, "{kind:?} {dt} element {k} part {}: {v} vs {want}", j % 2);
                    }
                }
            }
            assert_eq!(state(g), (seed, 1), "a complex array takes one draw");
            let big = download_complex(draw(g, true, dt, &[1 << 18]));
            let m = big.len();
            let se = |sd: f64| 6.0 * sd / (m as f64).sqrt();
            let (re, im): (Vec<f64>, Vec<f64>) = big.iter().copied().unzip();
            let mean = |a: &[f64]| a.iter().sum::<f64>() / m as f64;
            let second = |a: &[f64]| a.iter().map(|x| x * x).sum::<f64>() / m as f64;
            let ctx = format!("{kind:?} {dt}");
            // A part's mean has standard deviation sqrt(1/2), its square's sqrt(2) / 2,
            // |z|^2 (exponential with mean 1) 1.
            for (p, what) in [(&re, "real"), (&im, "imaginary")] {
                assert!(mean(p).abs() < se(0.5f64.sqrt()), "{ctx}: {what} part mean {}", mean(p));
                assert!((second(p) - 0.5).abs() < se(0.5f64.sqrt()), "{ctx}: {what} part variance {}", second(p));
            }
            let abs2: f64 = big.iter().map(|&(a, b)| a * a + b * b).sum::<f64>() / m as f64;
            assert!((abs2 - 1.0).abs() < se(1.0), "{ctx}: E|z|^2 = {abs2}");
            let c = correlation(&re, &im);
            assert!(c.abs() < se(1.0), "{ctx}: correlation {c} of the parts");
            ok(sl_rng_destroy(g));
            release(&[z, conj]);
        }
    }
}
