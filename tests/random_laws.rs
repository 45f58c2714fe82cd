//! The random laws beyond uniform and normal (uniform ranges, integer ranges,
//! exponential, Bernoulli, Poisson, gamma, beta, chi-square), the Threefry generator and
//! Sobol' points: every element equals the documented definition (`ir::random`, its
//! `Stream::sample`) on the executor in use (integers, bools and the rejection methods'
//! decisions bit for bit, so both executors agree bit for bit there), through views and
//! fused into arithmetic, in the reference run too; the statistics follow each law;
//! draws repeat from a saved state; Sobol' points are the published ones and keep their
//! net property, scrambled or not; bad parameters are refused with clear messages.
//!
//! Statistical bounds: means and variances within five standard errors (a correct
//! generator fails one about 6 times in 10^7), Kolmogorov-Smirnov `sqrt(n) D` below 2.7
//! (about once in 10^6), chi-square below the 1 - 10^-6 quantile of its degrees of freedom
//! (Wilson-Hilferty); so each assertion fails a correct generator about once in 10^6
//! runs or less.

mod common;

use common::*;
use sluice::ir::random::samplers::Ptrs;
use sluice::ir::random::{RngKind, Stream};
use sluice::ir::{DType, Distribution, Scalar};
use sluice::*;

unsafe extern "C" {
    /// The C library's log-gamma function.
    safe fn lgamma(x: f64) -> f64;
}

/// Held by tests that count host steps and by tests whose types run on the CPU on Vulkan
/// (i16, u16), which would add host steps to the count.
static HOST_STEPS: std::sync::Mutex<()> = std::sync::Mutex::new(());

const KINDS: [(RngKind, sl_rng_kind); 3] =
    [(RngKind::Philox, SL_RNG_PHILOX), (RngKind::Fast, SL_RNG_FAST), (RngKind::Threefry, SL_RNG_THREEFRY)];

fn rng_new(kind: sl_rng_kind, seed: u64) -> sl_rng {
    let mut r = 0;
    ok(sl_rng_create(kind, seed, &mut r));
    r
}

fn state(rng: sl_rng) -> (u64, u64) {
    let (mut s, mut d) = (0, 0);
    ok(sl_rng_get_state(rng, &mut s, &mut d));
    (s, d)
}

/// A law as the C API takes it, with its parameters.
#[derive(Copy, Clone, Debug)]
enum Law {
    Range(f64, f64),
    Integers(i64, i64),
    Exponential(f64),
    Bernoulli(f64),
    Poisson(f64),
    Gamma(f64, f64),
    Beta(f64, f64),
    ChiSquare(f64),
}

/// A new array of law `law` of type `dt` and shape `shape` from `g`.
fn make(g: sl_rng, law: Law, dt: sl_dtype, shape: &[usize]) -> Result<sl_array, sl_status> {
    let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    let (r, d) = (dims.len() as i32, dims.as_ptr());
    let mut out = 0;
    let st = match law {
        Law::Range(lo, hi) => sl_random_uniform_range(g, lo, hi, dt, r, d, &mut out),
        Law::Integers(lo, hi) => sl_random_integers(g, lo, hi, dt, r, d, &mut out),
        Law::Exponential(s) => sl_random_exponential(g, s, dt, r, d, &mut out),
        Law::Bernoulli(p) => sl_random_bernoulli(g, p, r, d, &mut out),
        Law::Poisson(l) => sl_random_poisson(g, l, dt, r, d, &mut out),
        Law::Gamma(k, t) => sl_random_gamma(g, k, t, dt, r, d, &mut out),
        Law::Beta(a, b) => sl_random_beta(g, a, b, dt, r, d, &mut out),
        Law::ChiSquare(df) => sl_random_chisquare(g, df, dt, r, d, &mut out),
    };
    if st == SL_OK { Ok(out) } else { Err(st) }
}

#[track_caller]
fn draw(g: sl_rng, law: Law, dt: sl_dtype, shape: &[usize]) -> sl_array {
    match make(g, law, dt, shape) {
        Ok(h) => h,
        Err(st) => panic!("{law:?} {dt}: failed with {st}: {}", last_error().1),
    }
}

fn ty(dt: sl_dtype) -> DType {
    match dt {
        SL_F32 => DType::F32,
        SL_F64 => DType::F64,
        SL_I32 => DType::I32,
        SL_I64 => DType::I64,
        _ => DType::Bool,
    }
}

/// Marsaglia and Tsang's parameters for shape `k` (the documented constants).
fn gamma_params(k: f64, t: DType) -> (bool, Vec<Scalar>) {
    let boost = k < 1.0;
    let d = if boost { k + 1.0 } else { k } - 1.0 / 3.0;
    let mut p = vec![Scalar::F64(d).cast(t), Scalar::F64(1.0 / (9.0 * d).sqrt()).cast(t)];
    if boost {
        p.push(Scalar::F64(1.0 / k).cast(t));
    }
    (boost, p)
}

/// Element `i` of draw `d` of law `law` by the definition, as f64 (before any scale), and
/// how far an executor may be from it. Beta takes two draws, `d` and `d + 1`.
fn expected(stream: &Stream, law: Law, dt: sl_dtype, i: u64) -> (f64, f64) {
    let t = ty(dt);
    let f = Scalar::F64;
    let at = |dist: Distribution, s: &Stream, p: &[Scalar]| s.sample(dist, t, i, p).as_f64();
    // f32 values computed after the decisions carry a few ulps of their math.
    let unit = if t == DType::F32 { 4e-7 } else { 1e-15 };
    match law {
        Law::Range(lo, hi) => {
            let (l, h) = (f(lo).cast(t), f(hi).cast(t));
            let below = match h {
                Scalar::F32(v) => Scalar::F32(v.next_down()),
                _ => Scalar::F64(h.as_f64().next_down()),
            };
            (at(Distribution::UniformRange, stream, &[l, h, below]), 0.0)
        }
        Law::Integers(lo, hi) => {
            let span = (hi as i128 - lo as i128) as u64;
            let reject = if t.size() <= 4 { (1u64 << 32) % span } else { span.wrapping_neg() % span };
            let p = [Scalar::I64(lo).cast(t), Scalar::I64(span as i64), Scalar::I64(reject as i64)];
            (at(Distribution::Integers, stream, &p), 0.0)
        }
        Law::Exponential(scale) => {
            let x = at(Distribution::Exponential, stream, &[]) * scale;
            (x, 4.0 * unit * x.abs())
        }
        Law::Bernoulli(p) => {
            let thr = Scalar::I64((p * 4294967296.0).round() as i64);
            (at(Distribution::Bernoulli, stream, &[thr]), 0.0)
        }
        Law::Poisson(lambda) => {
            let large = lambda >= 10.0;
            let p = if large {
                let q = Ptrs::new(lambda);
                vec![f(q.lambda), f(q.a), f(q.b), f(q.ln_inv_alpha), f(q.vr)]
            } else {
                vec![f(lambda), f((-lambda).exp())]
            };
            (at(Distribution::Poisson { large }, stream, &p), 0.0)
        }
        Law::Gamma(k, theta) => {
            let (boost, p) = gamma_params(k, t);
            let x = at(Distribution::Gamma { boost, log: false }, stream, &p) * theta;
            // The boost's exp of up to |ln u / k| adds that many ulps.
            let spread = if boost { 30.0 / k } else { 4.0 };
            (x, spread * unit * x.abs())
        }
        Law::ChiSquare(df) => expected(stream, Law::Gamma(df / 2.0, 2.0), dt, i),
        Law::Beta(a, b) => {
            let log = |k: f64, s: &Stream| {
                let (boost, p) = gamma_params(k, t);
                at(Distribution::Gamma { boost, log: true }, s, &p)
            };
            let next = Stream { draw: stream.draw + 1, ..*stream };
            let (lx, ly) = (log(a, stream), log(b, &next));
            let x = 1.0 / (1.0 + (ly - lx).exp());
            // The logs' errors (each a few ulps of their size) move x by x (1 - x) times them.
            let err = unit * 30.0 * (lx.abs() + ly.abs() + 1.0) * x * (1.0 - x) + unit * x;
            (x, err)
        }
    }
}

/// Every law and type of the table, as its values' type.
fn laws() -> Vec<(Law, sl_dtype)> {
    let mut v = Vec::new();
    for dt in [SL_F32, SL_F64] {
        v.extend([
            (Law::Range(-2.5, 7.0), dt),
            (Law::Exponential(0.5), dt),
            (Law::Gamma(0.3, 1.0), dt),
            (Law::Gamma(1.0, 2.0), dt),
            (Law::Gamma(7.5, 0.5), dt),
            (Law::Beta(0.4, 2.5), dt),
            (Law::ChiSquare(3.0), dt),
        ]);
    }
    for dt in [SL_I32, SL_I64] {
        v.extend([
            (Law::Integers(-40, 1000), dt),
            (Law::Integers(-(1 << 31), (1 << 30) + 1), dt),
            (Law::Poisson(3.5), dt),
            (Law::Poisson(250.0), dt),
        ]);
    }
    v.push((Law::Integers(-(1 << 62), (1 << 62) + 12_345), SL_I64));
    v.push((Law::Bernoulli(0.3), SL_BOOL));
    v
}

/// Compares each value of `got` (elements `index(k)` of draw `d`) with the definition.
#[track_caller]
fn check(got: &Arr, stream: &Stream, law: Law, dt: sl_dtype, index: impl Fn(usize) -> u64, what: &str) {
    for (k, v) in got.v.iter().enumerate() {
        let (want, tol) = expected(stream, law, dt, index(k));
        let g = v.f();
        let ctx = format!("{what}: {law:?} {dt} {:?} value {k} (element {})", stream.kind, index(k));
        assert!(g == want || (g - want).abs() <= tol, "{ctx}: {g} vs {want}");
    }
}

/// Every element of every law, generator and type equals the definition's, in arrays with
/// ordinary, empty and size-1 dimensions; each array takes one draw (beta two). On Vulkan
/// with 64-bit floats the device computes them all (no step is left to the CPU executor).
#[test]
fn laws_match_the_definition() {
    let _counting = HOST_STEPS.lock().unwrap_or_else(|e| e.into_inner());
    let mut r = rng("laws_match_the_definition");
    let no_f64 = switched_on("SLUICE_VULKAN_NO_F64") || device().float64 == 0;
    for (kind, sk) in KINDS {
        for (law, dt) in laws() {
            let host_steps = stats().host_steps;
            let seed = rand_val(&mut r, SL_I64, 0.0, 1e15, false).f() as u64;
            let g = rng_new(sk, seed);
            let draws = if matches!(law, Law::Beta(..)) { 2 } else { 1 };
            for (j, shape) in [vec![37, 5, 3], vec![0, 4], vec![1, 9, 1], vec![]].into_iter().enumerate() {
                let h = draw(g, law, dt, &shape);
                let got = download(h);
                assert_eq!(got.v.len(), numel(&shape));
                let stream = Stream { kind, seed, draw: draws * j as u64 };
                check(&got, &stream, law, dt, |k| k as u64, "array");
                release(&[h]);
            }
            assert_eq!(state(g), (seed, 4 * draws), "{law:?}: each array takes {draws} draw(s)");
            // (Counters are per process: with 64-bit floats off, other tests' f64 arrays
            // run on the CPU executor at the same time.)
            if on_vulkan() && !no_f64 {
                assert_eq!(stats().host_steps, host_steps, "{law:?} {dt}: computed on the device");
            }
            ok(sl_rng_destroy(g));
        }
    }
}

/// [lo, hi) ranges of one type.
type Ranges = &'static [(i64, i64)];

/// Integers of the types beyond i32 and i64 (i8, i16, u8, u16, u32 take one 32-bit word
/// per element as i32 does, u64 two as i64 does): every element equals the definition's,
/// whole arrays and a section, over small ranges and a type's whole range; each value is
/// read through a cast to i64, which holds every value these ranges give.
#[test]
fn integers_of_every_type() {
    let _cpu_types = HOST_STEPS.lock().unwrap_or_else(|e| e.into_inner());
    let mut r = rng("integers_of_every_type");
    let ranges: [(sl_dtype, DType, Ranges); 6] = [
        (SL_I8, DType::I8, &[(-128, 128), (-7, 9)]),
        (SL_I16, DType::I16, &[(-32768, 32768), (100, 1100)]),
        (SL_U8, DType::U8, &[(0, 256), (200, 203)]),
        (SL_U16, DType::U16, &[(0, 65536), (5, 40_000)]),
        (SL_U32, DType::U32, &[(0, 1 << 32), ((1 << 31) + 3, (1 << 32) - 5)]),
        (SL_U64, DType::U64, &[(0, i64::MAX), (1 << 40, (1 << 62) + 12_345)]),
    ];
    for (dt, t, ranges) in ranges {
        for &(lo, hi) in ranges {
            let seed = rand_val(&mut r, SL_I64, 0.0, 1e15, false).f() as u64;
            let g = rng_new(SL_RNG_PHILOX, seed);
            let stream = Stream { kind: RngKind::Philox, seed, draw: 0 };
            let span = (hi as i128 - lo as i128) as u64;
            let reject = if t.size() <= 4 { (1u64 << 32) % span } else { span.wrapping_neg() % span };
            let p = [Scalar::I64(lo).cast(t), Scalar::I64(span as i64), Scalar::I64(reject as i64)];
            let want = |i: u64| stream.sample(Distribution::Integers, t, i, &p).as_i128().unwrap();
            let a = draw(g, Law::Integers(lo, hi), dt, &[300, 7]);
            assert_eq!(dtype_of(a), dt);
            // Columns 1, 3, 5 of rows 299, 296, ..., 2 as well as the whole array.
            let (start, count, step) = ([299i64, 1], [100i64, 3], [-3i64, 2]);
            let mut s = 0;
            ok(sl_section(a, start.as_ptr(), count.as_ptr(), step.as_ptr(), &mut s));
            let whole = |k: usize| k as u64;
            let section = |k: usize| (299 - 3 * (k % 100) + 300 * (1 + 2 * (k / 100))) as u64;
            for (h, index, what) in [(a, &whole as &dyn Fn(usize) -> u64, "array"), (s, &section, "section")] {
                let mut c = 0;
                ok(sl_cast(h, SL_I64, &mut c));
                for (k, v) in download(c).v.iter().enumerate() {
                    let V::I64(got) = *v else { panic!("a cast to i64 gave {v:?}") };
                    let (got, want) = (got as i128, want(index(k)));
                    let ctx = format!("{dt} [{lo}, {hi}) {what} value {k}");
                    assert!((lo as i128..hi as i128).contains(&got), "{ctx}: {got} out of range");
                    assert_eq!(got, want, "{ctx}");
                }
                release(&[c]);
            }
            release(&[a, s]);
            ok(sl_rng_destroy(g));
        }
    }
}

/// Views of random arrays (transposes, sections with steps of either sign, broadcasts)
/// and random values fused into arithmetic read the same elements as the whole array.
#[test]
fn views_and_fusion() {
    let mut r = rng("random_law_views");
    for (law, dt) in laws() {
        let seed = rand_val(&mut r, SL_I64, 0.0, 1e15, false).f() as u64;
        let g = rng_new(SL_RNG_PHILOX, seed);
        let stream = Stream { kind: RngKind::Philox, seed, draw: 0 };
        let shape = [23usize, 11];
        let a = draw(g, law, dt, &shape);
        // Transpose: value k of the [11, 23] view is element (k / 11) + 23 (k % 11).
        let mut t = 0;
        ok(sl_transpose(a, &mut t));
        check(&download(t), &stream, law, dt, |k| ((k / 11) + 23 * (k % 11)) as u64, "transpose");
        // Section: rows 20, 17, ..., 2 (step -3) of columns 1, 3, ..., 9.
        let (start, count, step) = ([20i64, 1], [7i64, 5], [-3i64, 2]);
        let mut s = 0;
        ok(sl_section(a, start.as_ptr(), count.as_ptr(), step.as_ptr(), &mut s));
        check(&download(s), &stream, law, dt, |k| ((20 - 3 * (k % 7)) + 23 * (1 + 2 * (k / 7))) as u64, "section");
        // Fused: twice the values (integers and bools as they are, cast to f64 first).
        let mut c = 0;
        ok(sl_cast(t, SL_F64, &mut c));
        let mut y = 0;
        ok(sl_mul_scalar(c, 2.0, &mut y));
        let twice = download(y);
        for (k, v) in twice.v.iter().enumerate() {
            let (want, tol) = expected(&stream, law, dt, ((k / 11) + 23 * (k % 11)) as u64);
            assert!(
                (v.f() - 2.0 * want).abs() <= 2.0 * tol,
                "{law:?} {dt} fused value {k}: {} vs {}",
                v.f(),
                2.0 * want
            );
        }
        release(&[a, t, s, c, y]);
        ok(sl_rng_destroy(g));
    }
}

/// A generator set back to a state it had draws the same values again, bit for bit.
#[test]
fn reproducible_from_seed_and_draw() {
    let mut r = rng("reproducible");
    for (_, sk) in KINDS {
        for (law, dt) in laws() {
            let seed = rand_val(&mut r, SL_I64, 0.0, 1e15, false).f() as u64;
            let g = rng_new(sk, seed);
            let skip = draw(g, law, dt, &[5]);
            let at = state(g);
            let first = download(draw(g, law, dt, &[300, 2]));
            ok(sl_rng_set_state(g, at.0, at.1));
            let again = download(draw(g, law, dt, &[300, 2]));
            assert_close(&format!("{law:?} {dt} redrawn"), &again, &first, 0.0);
            release(&[skip]);
            ok(sl_rng_destroy(g));
        }
    }
}

/// Kolmogorov-Smirnov statistic sqrt(n) D of `x` against the distribution function `cdf`.
fn ks(x: &[f64], cdf: impl Fn(f64) -> f64) -> f64 {
    ks_with_atoms(x, &cdf, &cdf)
}

/// `ks` for a law with atoms: `below(v)` is its probability of values below `v` (equal
/// to `cdf(v)` except at an atom). Tied values are compared as one step.
fn ks_with_atoms(x: &[f64], cdf: &dyn Fn(f64) -> f64, below: &dyn Fn(f64) -> f64) -> f64 {
    let mut s = x.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len() as f64;
    let (mut d, mut i) = (0.0f64, 0);
    while i < s.len() {
        let j = i + s[i..].iter().take_while(|&&v| v == s[i]).count();
        d = d.max(below(s[i]) - i as f64 / n).max(j as f64 / n - cdf(s[i]));
        i = j;
    }
    d * n.sqrt()
}

/// The regularised lower incomplete gamma function P(a, x) (series below a + 1, Lentz's
/// continued fraction above; Numerical Recipes 6.2).
fn gamma_p(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let front = (-x + a * x.ln() - lgamma(a)).exp();
    if x < a + 1.0 {
        let (mut ap, mut del) = (a, 1.0 / a);
        let mut sum = del;
        for _ in 0..100_000 {
            ap += 1.0;
            del *= x / ap;
            sum += del;
            if del.abs() < sum.abs() * 1e-16 {
                break;
            }
        }
        return sum * front;
    }
    let tiny = 1e-300;
    let mut b = x + 1.0 - a;
    let (mut c, mut d) = (1.0 / tiny, 1.0 / b);
    let mut h = d;
    for i in 1..100_000 {
        let an = -(i as f64) * (i as f64 - a);
        b += 2.0;
        d = an * d + b;
        d = if d.abs() < tiny { tiny } else { d };
        c = b + an / c;
        c = if c.abs() < tiny { tiny } else { c };
        d = 1.0 / d;
        let del = d * c;
        h *= del;
        if (del - 1.0).abs() < 1e-16 {
            break;
        }
    }
    1.0 - front * h
}

/// The 1 - 10^-6 quantile of chi-square with `nu` degrees of freedom (Wilson-Hilferty).
fn chi2_bound(nu: f64) -> f64 {
    let z = 4.753;
    let c = 2.0 / (9.0 * nu);
    nu * (1.0 - c + z * c.sqrt()).powi(3)
}

/// Chi-square of counts `got` against expected counts `want`, bins with fewer than 10
/// expected merged into their neighbour, and its degrees of freedom.
fn chi2(got: &[f64], want: &[f64]) -> (f64, f64) {
    let (mut stat, mut bins, mut g, mut w) = (0.0, 0.0, 0.0, 0.0);
    for (a, b) in got.iter().zip(want) {
        g += a;
        w += b;
        if w >= 10.0 {
            stat += (g - w) * (g - w) / w;
            bins += 1.0;
            (g, w) = (0.0, 0.0);
        }
    }
    if w > 0.0 {
        stat += (g - w) * (g - w) / w;
        bins += 1.0;
    }
    (stat, bins - 1.0)
}

/// Mean and variance of `x` within five standard errors of the law's (`m4` its fourth
/// central moment).
#[track_caller]
fn moments(x: &[f64], mean: f64, var: f64, m4: f64, ctx: &str) {
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    let v = x.iter().map(|y| (y - m).powi(2)).sum::<f64>() / (n - 1.0);
    assert!((m - mean).abs() <= 5.0 * (var / n).sqrt(), "{ctx}: mean {m}, law's {mean}");
    assert!((v - var).abs() <= 5.0 * ((m4 - var * var) / n).sqrt(), "{ctx}: variance {v}, law's {var}");
}

/// Each law's values follow it: moments, and Kolmogorov-Smirnov or chi-square against
/// its distribution (bounds in the module's comment), for each generator.
#[test]
fn statistics() {
    let mut r = rng("law_statistics");
    let n = 1usize << 18;
    for (_, sk) in KINDS {
        let g = rng_new(sk, rand_val(&mut r, SL_I64, 0.0, 1e15, false).f() as u64);
        let values = |law: Law, dt: sl_dtype| -> Vec<f64> {
            let h = draw(g, law, dt, &[n]);
            let v = download(h).v.iter().map(|v| v.f()).collect();
            release(&[h]);
            v
        };
        for dt in [SL_F32, SL_F64] {
            let ctx = |what: &str| format!("generator {sk}, {dt}, {what}");
            // Uniform on [lo, hi), also where rounding would reach hi.
            for (lo, hi) in [(-2.5, 7.0), (1.0, 1.0 + 1e-6)] {
                let x = values(Law::Range(lo, hi), dt);
                let (l, h) = if dt == SL_F32 { (lo as f32 as f64, hi as f32 as f64) } else { (lo, hi) };
                assert!(x.iter().all(|&v| v >= l && v < h), "{}", ctx("uniform range values in [lo, hi)"));
                let w = h - l;
                if hi - lo > 1.0 {
                    moments(&x, (l + h) / 2.0, w * w / 12.0, w.powi(4) / 80.0, &ctx("uniform range"));
                    let d = ks(&x, |v| ((v - l) / w).clamp(0.0, 1.0));
                    assert!(d < 2.7, "{}: KS {d}", ctx("uniform range"));
                } else {
                    // A range of a few f32 values: both ends are reached (each missed with
                    // probability (7/8)^n).
                    let (min, max) = (x.iter().fold(h, |a, &b| a.min(b)), x.iter().fold(l, |a, &b| a.max(b)));
                    assert!(min < l + w / 8.0 && max >= h - w / 8.0, "{}: {min} .. {max}", ctx("narrow range"));
                }
            }
            // Exponential of mean s.
            let s = 0.7;
            let x = values(Law::Exponential(s), dt);
            moments(&x, s, s * s, 9.0 * s.powi(4), &ctx("exponential"));
            let d = ks(&x, |v| 1.0 - (-v / s).exp());
            assert!(d < 2.7, "{}: KS {d}", ctx("exponential"));
            // Gamma of shapes on both sides of 1, small and large, and chi-square.
            for (k, theta) in [(0.05, 1.0), (0.5, 2.0), (1.0, 1.0), (5.0, 0.5), (1e4, 1.0)] {
                let x = values(Law::Gamma(k, theta), dt);
                let c = ctx(&format!("gamma({k}, {theta})"));
                assert!(x.iter().all(|&v| v >= 0.0 && v.is_finite()), "{c}: values");
                let var = k * theta * theta;
                moments(&x, k * theta, var, 3.0 * k * (k + 2.0) * theta.powi(4), &c);
                // Values below the least normal number of the type may be subnormal or 0
                // (devices may flush them): they count as one atom at 0.
                let least = if dt == SL_F32 { f32::MIN_POSITIVE as f64 } else { f64::MIN_POSITIVE };
                let x: Vec<f64> = x.iter().map(|&v| if v < least { 0.0 } else { v }).collect();
                let cdf = |v: f64| gamma_p(k, v.max(least) / theta);
                let below = |v: f64| if v == 0.0 { 0.0 } else { cdf(v) };
                let d = ks_with_atoms(&x, &cdf, &below);
                assert!(d < 2.7, "{c}: KS {d}");
            }
            let x = values(Law::ChiSquare(3.0), dt);
            let d = ks(&x, |v| gamma_p(1.5, v / 2.0));
            assert!(d < 2.7, "{}: KS {d}", ctx("chi-square(3)"));
            moments(&x, 3.0, 6.0, 3.0 * 1.5 * 3.5 * 16.0, &ctx("chi-square(3)"));
            // Beta where its distribution function has a closed form, and tiny shapes.
            let asin = |v: f64| 2.0 / std::f64::consts::PI * v.sqrt().asin();
            type Cdf = Box<dyn Fn(f64) -> f64>;
            let betas: [(f64, f64, Cdf); 3] = [
                (2.0, 1.0, Box::new(|v: f64| v * v)),
                (0.5, 0.5, Box::new(asin)),
                (1.0, 3.0, Box::new(|v: f64| 1.0 - (1.0 - v).powi(3))),
            ];
            for (a, b, cdf) in betas {
                let x = values(Law::Beta(a, b), dt);
                let c = ctx(&format!("beta({a}, {b})"));
                assert!(x.iter().all(|&v| (0.0..=1.0).contains(&v)), "{c}: values in [0, 1]");
                let d = ks(&x, |v| cdf(v.clamp(0.0, 1.0)));
                assert!(d < 2.7, "{c}: KS {d}");
            }
            let x = values(Law::Beta(0.01, 0.01), dt);
            assert!(x.iter().all(|&v| (0.0..=1.0).contains(&v)), "{}", ctx("beta(0.01, 0.01) values"));
            // Beta(a, a) is symmetric: mean 1/2, variance 1 / (4 (2a + 1)), kurtosis
            // 3 (2a + 1) / (2a + 3).
            let var = 1.0 / (4.0 * 1.02);
            moments(&x, 0.5, var, var * var * 3.0 * 1.02 / 2.02, &ctx("beta(0.01, 0.01)"));
        }
        for dt in [SL_I32, SL_I64] {
            let ctx = |what: &str| format!("generator {sk}, {dt}, {what}");
            // Poisson by inversion and by PTRS.
            for lambda in [0.0, 0.7, 4.0, 9.99, 10.0, 37.0, 1000.0, 1e6] {
                let x = values(Law::Poisson(lambda), dt);
                let c = ctx(&format!("Poisson({lambda})"));
                if lambda == 0.0 {
                    assert!(x.iter().all(|&v| v == 0.0), "{c}: all 0");
                    continue;
                }
                moments(&x, lambda, lambda, lambda * (1.0 + 3.0 * lambda), &c);
                let top = x.iter().fold(0.0f64, |a, &b| a.max(b)) as usize;
                let bottom = x.iter().fold(f64::MAX, |a, &b| a.min(b)) as usize;
                let mut got = vec![0.0; top - bottom + 1];
                for &v in &x {
                    got[v as usize - bottom] += 1.0;
                }
                let pmf = |k: usize| (-lambda + k as f64 * lambda.ln() - lgamma(k as f64 + 1.0)).exp();
                let mut want: Vec<f64> = (bottom..=top).map(|k| n as f64 * pmf(k)).collect();
                // The tails beyond what was seen go to the end bins.
                let below: f64 = (0..bottom).map(pmf).sum();
                want[0] += n as f64 * below;
                let seen: f64 = want.iter().sum();
                *want.last_mut().unwrap() += n as f64 - seen;
                let (stat, dof) = chi2(&got, &want);
                assert!(stat < chi2_bound(dof), "{c}: chi-square {stat} with {dof} degrees of freedom");
            }
            // Integers in small and large ranges; the large ones reject about half of
            // their first words.
            let mut ranges = vec![(-3i64, 4i64), (-40, 1000), (-(1 << 31), (1 << 30) + 1), (i32::MIN as i64, 1 << 31)];
            if dt == SL_I64 {
                ranges.extend([(-(1 << 62), (1 << 62) + 12_345), (i64::MIN, i64::MAX)]);
            }
            for (lo, hi) in ranges {
                let x = values(Law::Integers(lo, hi), dt);
                let c = ctx(&format!("integers [{lo}, {hi})"));
                let span = (hi as i128 - lo as i128) as f64;
                let bins = span.min(64.0) as usize;
                let mut got = vec![0.0; bins];
                for &v in &x {
                    assert!(v >= lo as f64 && v < hi as f64 || (v == hi as f64 && span > 2f64.powi(52)), "{c}: {v}");
                    got[(((v - lo as f64) / span * bins as f64) as usize).min(bins - 1)] += 1.0;
                }
                // Bin b holds the offsets x with floor(x bins / span) = b.
                let first = |b: usize| (b as f64 * span / bins as f64).ceil();
                let want: Vec<f64> = (0..bins).map(|b| n as f64 * (first(b + 1) - first(b)) / span).collect();
                let (stat, dof) = chi2(&got, &want);
                assert!(stat < chi2_bound(dof), "{c}: chi-square {stat} with {dof} degrees of freedom");
            }
        }
        // Bernoulli: exact at 0 and 1, the count within five standard errors elsewhere.
        for p in [0.0, 1.0, 0.3, 1e-3, 0.999] {
            let x = values(Law::Bernoulli(p), SL_BOOL);
            let count: f64 = x.iter().sum();
            let sd = (n as f64 * p * (1.0 - p)).sqrt();
            assert!((count - n as f64 * p).abs() <= 5.0 * sd, "generator {sk}: Bernoulli({p}) count {count}");
        }
        ok(sl_rng_destroy(g));
    }
}

/// Bad parameters are refused at the call, with a message, and the runtime goes on.
#[test]
fn bad_arguments() {
    let g = rng_new(SL_RNG_THREEFRY, 3);
    let bad = |law: Law, dt: sl_dtype, status: sl_status, needle: &str| {
        let r = make(g, law, dt, &[4]);
        assert!(r.is_err(), "{law:?} {dt} accepted");
        fails(r.unwrap_err(), status, needle);
    };
    let nan = f64::NAN;
    bad(Law::Range(1.0, 1.0), SL_F64, SL_ERR_INVALID_ARGUMENT, "must be above lo");
    bad(Law::Range(2.0, 1.0), SL_F32, SL_ERR_INVALID_ARGUMENT, "must be above lo");
    bad(Law::Range(1.0, 1.0 + 1e-12), SL_F32, SL_ERR_INVALID_ARGUMENT, "as f32 values");
    bad(Law::Range(nan, 1.0), SL_F64, SL_ERR_INVALID_ARGUMENT, "finite");
    bad(Law::Range(0.0, f64::INFINITY), SL_F64, SL_ERR_INVALID_ARGUMENT, "finite");
    bad(Law::Range(0.0, 1e300), SL_F32, SL_ERR_INVALID_ARGUMENT, "finite f32");
    bad(Law::Range(0.0, 1.0), SL_I32, SL_ERR_DTYPE_MISMATCH, "f32 or f64");
    bad(Law::Integers(5, 5), SL_I32, SL_ERR_INVALID_ARGUMENT, "must be above lo");
    bad(Law::Integers(0, (1 << 31) + 1), SL_I32, SL_ERR_INVALID_ARGUMENT, "not a range of i32");
    bad(Law::Integers(0, 9), SL_F32, SL_ERR_DTYPE_MISMATCH, "integer type");
    bad(Law::Integers(0, 9), SL_BOOL, SL_ERR_DTYPE_MISMATCH, "integer type");
    bad(Law::Integers(-1, 9), SL_U16, SL_ERR_INVALID_ARGUMENT, "not a range of u16");
    bad(Law::Integers(0, 257), SL_U8, SL_ERR_INVALID_ARGUMENT, "not a range of u8");
    bad(Law::Integers(-129, 0), SL_I8, SL_ERR_INVALID_ARGUMENT, "not a range of i8");
    bad(Law::Exponential(0.0), SL_F32, SL_ERR_INVALID_ARGUMENT, "above 0");
    bad(Law::Exponential(nan), SL_F64, SL_ERR_INVALID_ARGUMENT, "finite");
    bad(Law::Bernoulli(1.5), SL_BOOL, SL_ERR_INVALID_ARGUMENT, "in [0, 1]");
    bad(Law::Bernoulli(nan), SL_BOOL, SL_ERR_INVALID_ARGUMENT, "in [0, 1]");
    bad(Law::Poisson(-1.0), SL_I32, SL_ERR_INVALID_ARGUMENT, "lambda must be in");
    bad(Law::Poisson(nan), SL_I64, SL_ERR_INVALID_ARGUMENT, "lambda must be in");
    bad(Law::Poisson(3e9), SL_I32, SL_ERR_INVALID_ARGUMENT, "for i32 values");
    bad(Law::Poisson(1e16), SL_I64, SL_ERR_INVALID_ARGUMENT, "for i64 values");
    bad(Law::Poisson(1.0), SL_F64, SL_ERR_DTYPE_MISMATCH, "i32 or i64");
    bad(Law::Gamma(0.0, 1.0), SL_F32, SL_ERR_INVALID_ARGUMENT, "shape");
    bad(Law::Gamma(-2.0, 1.0), SL_F64, SL_ERR_INVALID_ARGUMENT, "shape");
    bad(Law::Gamma(nan, 1.0), SL_F64, SL_ERR_INVALID_ARGUMENT, "shape");
    bad(Law::Gamma(1e-40, 1.0), SL_F32, SL_ERR_INVALID_ARGUMENT, "shape");
    bad(Law::Gamma(2.0, 0.0), SL_F64, SL_ERR_INVALID_ARGUMENT, "theta");
    bad(Law::Gamma(2.0, nan), SL_F64, SL_ERR_INVALID_ARGUMENT, "theta");
    bad(Law::Beta(0.0, 1.0), SL_F64, SL_ERR_INVALID_ARGUMENT, "shape a");
    bad(Law::Beta(1.0, nan), SL_F32, SL_ERR_INVALID_ARGUMENT, "shape b");
    // The second shape is refused before the first is drawn (found by the fuzzer).
    bad(Law::Beta(2.0, 3e38), SL_F32, SL_ERR_INVALID_ARGUMENT, "too large for f32");
    bad(Law::ChiSquare(0.0), SL_F64, SL_ERR_INVALID_ARGUMENT, "degrees of freedom");
    bad(Law::ChiSquare(2.0), SL_I32, SL_ERR_DTYPE_MISMATCH, "f32 or f64");
    assert_eq!(state(g), (3, 0), "refused calls take no draw");
    // Null output, bad shape, and a stale or foreign generator.
    let dims = [4i64];
    fails(sl_random_poisson(g, 1.0, SL_I32, 1, dims.as_ptr(), std::ptr::null_mut()), SL_ERR_INVALID_ARGUMENT, "NULL");
    let mut out = 0;
    fails(sl_random_gamma(g, 1.0, 1.0, SL_F32, -1, dims.as_ptr(), &mut out), SL_ERR_INVALID_ARGUMENT, "rank");
    let a = draw(g, Law::Exponential(1.0), SL_F32, &[4]);
    fails(sl_random_bernoulli(a, 0.5, 1, dims.as_ptr(), &mut out), SL_ERR_INVALID_HANDLE, "random number generator");
    fails(sl_rng_create(3, 1, &mut out), SL_ERR_INVALID_ARGUMENT, "not an sl_rng_kind");
    ok(sl_rng_destroy(g));
    fails(sl_random_integers(g, 0, 4, SL_I32, 1, dims.as_ptr(), &mut out), SL_ERR_INVALID_HANDLE, "not a live");
    // Sobol' points.
    let sobol = |dims: i64, first: i64, count: i64, scramble: sl_sobol_scramble, dt: sl_dtype| {
        let mut out = 0;
        sl_random_sobol(dims, first, count, scramble, 1, dt, &mut out)
    };
    fails(sobol(0, 0, 4, SL_SOBOL_PLAIN, SL_F64), SL_ERR_INVALID_ARGUMENT, "1 to 21201 dimensions");
    fails(sobol(SL_SOBOL_MAX_DIMS + 1, 0, 4, SL_SOBOL_PLAIN, SL_F64), SL_ERR_INVALID_ARGUMENT, "dimensions");
    fails(sobol(2, -1, 4, SL_SOBOL_PLAIN, SL_F64), SL_ERR_INVALID_ARGUMENT, "range 0 .. 2^32");
    fails(sobol(2, (1 << 32) - 3, 4, SL_SOBOL_PLAIN, SL_F64), SL_ERR_INVALID_ARGUMENT, "range 0 .. 2^32");
    fails(sobol(2, 0, -4, SL_SOBOL_PLAIN, SL_F64), SL_ERR_INVALID_ARGUMENT, "range");
    fails(sobol(2, 0, 4, 9, SL_F64), SL_ERR_INVALID_ARGUMENT, "not an sl_sobol_scramble");
    fails(sobol(2, 0, 4, SL_SOBOL_OWEN, SL_I32), SL_ERR_DTYPE_MISMATCH, "f32 or f64");
    fails(sl_random_sobol(2, 0, 4, SL_SOBOL_PLAIN, 1, SL_F64, std::ptr::null_mut()), SL_ERR_INVALID_ARGUMENT, "NULL");
    // The runtime goes on.
    assert_eq!(download(a).v.len(), 4);
    release(&[a]);
}

/// `dims`-dimensional points `first .. first + count` as rows of f64.
fn sobol(dims: usize, first: i64, count: usize, scramble: sl_sobol_scramble, seed: u64, dt: sl_dtype) -> Vec<Vec<f64>> {
    let mut h = 0;
    ok(sl_random_sobol(dims as i64, first, count as i64, scramble, seed, dt, &mut h));
    let a = download(h);
    assert_eq!(a.shape, [count, dims]);
    release(&[h]);
    (0..count).map(|i| (0..dims).map(|j| a.v[i + count * j].f()).collect()).collect()
}

/// Sobol' points equal the published ones: SciPy's `scipy.stats.qmc.Sobol(d,
/// scramble=False, bits=32)`, which uses Joe and Kuo's new-joe-kuo-6.21201 table, in the
/// same Gray-code order (the first 16 points of 6 dimensions, and points deep in the
/// sequence and in high dimensions), exactly in f64 and in f32 (24 digits).
#[test]
fn sobol_published_points() {
    #[rustfmt::skip]
    let first16: [[f64; 6]; 16] = [
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
        [0.5, 0.5, 0.5, 0.5, 0.5, 0.5],
        [0.75, 0.25, 0.25, 0.25, 0.75, 0.75],
        [0.25, 0.75, 0.75, 0.75, 0.25, 0.25],
        [0.375, 0.375, 0.625, 0.875, 0.375, 0.125],
        [0.875, 0.875, 0.125, 0.375, 0.875, 0.625],
        [0.625, 0.125, 0.875, 0.625, 0.625, 0.875],
        [0.125, 0.625, 0.375, 0.125, 0.125, 0.375],
        [0.1875, 0.3125, 0.9375, 0.4375, 0.5625, 0.3125],
        [0.6875, 0.8125, 0.4375, 0.9375, 0.0625, 0.8125],
        [0.9375, 0.0625, 0.6875, 0.1875, 0.3125, 0.5625],
        [0.4375, 0.5625, 0.1875, 0.6875, 0.8125, 0.0625],
        [0.3125, 0.1875, 0.3125, 0.5625, 0.9375, 0.4375],
        [0.8125, 0.6875, 0.8125, 0.0625, 0.4375, 0.9375],
        [0.5625, 0.4375, 0.0625, 0.8125, 0.1875, 0.6875],
        [0.0625, 0.9375, 0.5625, 0.3125, 0.6875, 0.1875],
    ];
    for dt in [SL_F32, SL_F64] {
        let got = sobol(6, 0, 16, SL_SOBOL_PLAIN, 0, dt);
        for (i, row) in first16.iter().enumerate() {
            assert_eq!(got[i], row.to_vec(), "{dt} point {i}");
        }
    }
    // (point, dimension, value).
    let deep = [
        (5, 99, 0.375),
        (5, 999, 0.625),
        (77, 2, 0.0078125),
        (77, 99, 0.8671875),
        (77, 999, 0.5546875),
        (1000, 0, 0.2197265625),
        (1000, 1, 0.0966796875),
        (1000, 2, 0.5185546875),
        (1000, 99, 0.1865234375),
        (1000, 999, 0.2001953125),
        (123456, 0, 0.02649688720703125),
        (123456, 1, 0.18274688720703125),
        (123456, 2, 0.30725860595703125),
        (123456, 99, 0.9257736206054688),
        (123456, 999, 0.9606246948242188),
        (123456, 21200, 0.9765243530273438),
    ];
    let wide = sobol(21201, 123456, 1, SL_SOBOL_PLAIN, 0, SL_F64);
    let early = sobol(1000, 0, 1001, SL_SOBOL_PLAIN, 0, SL_F64);
    for (i, j, want) in deep {
        let got = if i == 123456 { wide[0][j] } else { early[i][j] };
        assert_eq!(got, want, "point {i}, dimension {j}");
    }
    // A later start gives the same points as a longer array.
    let tail = sobol(1000, 990, 11, SL_SOBOL_PLAIN, 0, SL_F64);
    assert_eq!(tail[..], early[990..]);
}

/// The first 2^m points of every coordinate, plain or scrambled, have one point in each
/// of the 2^m intervals [k/2^m, (k+1)/2^m), and those of the first two dimensions are a
/// (0, m, 2)-net: one point in each box of 2^a by 2^(m-a) intervals; scrambles with
/// different seeds differ.
#[test]
fn sobol_equidistribution() {
    let mut r = rng("sobol_equidistribution");
    let m = 10;
    let n = 1usize << m;
    for scramble in [SL_SOBOL_PLAIN, SL_SOBOL_SHIFT, SL_SOBOL_OWEN] {
        for dt in [SL_F32, SL_F64] {
            let seed = rand_val(&mut r, SL_I64, 0.0, 1e15, false).f() as u64;
            let dims = 40;
            let p = sobol(dims, 0, n, scramble, seed, dt);
            let ctx = format!("scramble {scramble}, {dt}");
            for j in 0..dims {
                let mut seen = vec![false; n];
                for row in &p {
                    let cell = (row[j] * n as f64) as usize;
                    assert!(!std::mem::replace(&mut seen[cell], true), "{ctx}: dimension {j}, interval {cell} twice");
                }
            }
            for a in 0..=m {
                let mut seen = vec![false; n];
                for row in &p {
                    let (x, y) = ((row[0] * (1 << a) as f64) as usize, (row[1] * (1 << (m - a)) as f64) as usize);
                    let cell = x + (1 << a) * y;
                    assert!(
                        !std::mem::replace(&mut seen[cell], true),
                        "{ctx}: box {x}, {y} of 2^{a} by 2^{} twice",
                        m - a
                    );
                }
            }
            if scramble != SL_SOBOL_PLAIN {
                let other = sobol(dims, 0, 8, scramble, seed ^ 1, dt);
                assert_ne!(other[..], p[..8], "{ctx}: another seed, other points");
                assert_eq!(sobol(dims, 0, 8, scramble, seed, dt)[..], p[..8], "{ctx}: the same seed, the same points");
            }
        }
    }
}

/// Sobol' points read through a transpose and fused into arithmetic are the array's.
#[test]
fn sobol_views_and_fusion() {
    for scramble in [SL_SOBOL_PLAIN, SL_SOBOL_OWEN] {
        let mut h = 0;
        ok(sl_random_sobol(5, 100, 64, scramble, 42, SL_F32, &mut h));
        let whole = download(h);
        let mut t = 0;
        ok(sl_transpose(h, &mut t));
        let mut y = 0;
        ok(sl_add_scalar(t, 1.0, &mut y));
        let got = download(y);
        for (k, v) in got.v.iter().enumerate() {
            // Value k of the [5, 64] transpose is element (k / 5) + 64 (k % 5).
            let want = whole.v[k / 5 + 64 * (k % 5)].f() + 1.0;
            assert_eq!(v.f(), want as f32 as f64, "scramble {scramble} value {k}");
        }
        release(&[h, t, y]);
    }
}

/// With result comparison on (process-wide, so in a process of its own), the reference
/// run computes every law from the definition and agrees with the executor: integers
/// exactly, values within the default tolerance.
#[test]
fn reference_run_agrees() {
    child("reference_values", &[("SLUICE_COMPARE", "compute"), ("SLUICE_COMPARE_ACTION", "error")]);
}

#[test]
#[ignore = "run by reference_run_agrees, with result comparison on"]
fn reference_values() {
    let mut r = rng("law_reference_values");
    let before = compare_stats().values_checked;
    for (law, dt) in laws() {
        let g = rng_new(SL_RNG_PHILOX, rand_val(&mut r, SL_I64, 0.0, 1e15, false).f() as u64);
        let a = draw(g, law, dt, &[45, 23]);
        let (mut t, mut c, mut y) = (0, 0, 0);
        ok(sl_transpose(a, &mut t));
        ok(sl_cast(t, SL_F64, &mut c));
        ok(sl_mul_scalar(c, 2.0, &mut y));
        assert_eq!(download(y).v.len(), 45 * 23);
        release(&[a, t, c, y]);
        ok(sl_rng_destroy(g));
    }
    for scramble in [SL_SOBOL_PLAIN, SL_SOBOL_SHIFT, SL_SOBOL_OWEN] {
        let mut h = 0;
        ok(sl_random_sobol(7, 3, 50, scramble, 9, SL_F64, &mut h));
        assert_eq!(download(h).v.len(), 350);
        release(&[h]);
    }
    assert_compared_clean(before + 1);
}

/// A section drawing Poisson, gamma and beta values and adding them to its input.
fn section_body(x: sl_array, g: sl_rng) -> sl_array {
    let p = draw(g, Law::Poisson(25.0), SL_I32, &[64]);
    let gm = draw(g, Law::Gamma(0.7, 1.5), SL_F64, &[64]);
    let b = draw(g, Law::Beta(2.0, 0.5), SL_F64, &[64]);
    let (mut pc, mut s1, mut s2, mut out) = (0, 0, 0, 0);
    ok(sl_cast(p, SL_F64, &mut pc));
    ok(sl_add(x, pc, &mut s1));
    ok(sl_add(s1, gm, &mut s2));
    ok(sl_add(s2, b, &mut out));
    release(&[p, gm, b, pc, s1, s2]);
    out
}

/// A macro section with random laws is recorded once; each replay takes the section's
/// four draws (beta takes two) and gives exactly what running the body again would.
#[test]
fn macro_replays_draw_new_values() {
    let mut r = rng("law_macro");
    let x = rand_arr(&mut r, SL_F64, &[64], -1.0, 1.0, false).upload();
    let seed = rand_val(&mut r, SL_I64, 0.0, 1e12, false).f() as u64;
    let g = rng_new(SL_RNG_PHILOX, seed);
    let name = std::ffi::CString::new("law_section").unwrap();
    let (mut runs, replays) = (0, 50);
    let replayed: Vec<Arr> = (0..replays)
        .map(|_| {
            let (mut out, mut mode) = ([0], 0);
            ok(sl_macro_begin(name.as_ptr(), &x, 1, std::ptr::null(), 0, out.as_mut_ptr(), 1, &mut mode));
            if mode == SL_MACRO_RECORD {
                runs += 1;
                out[0] = section_body(x, g);
                ok(sl_macro_end(out.as_ptr(), 1));
            }
            let a = download(out[0]);
            release(&[out[0]]);
            a
        })
        .collect();
    assert_eq!(runs, 1, "recorded once, then replayed");
    assert_eq!(state(g), (seed, 4 * replays as u64), "each replay takes the section's four draws");
    ok(sl_rng_set_state(g, seed, 0));
    for (k, want) in replayed.iter().enumerate() {
        let h = section_body(x, g);
        assert_close(&format!("run {k}"), &download(h), want, 0.0);
        release(&[h]);
    }
    assert!(replayed[0].v != replayed[1].v, "replays draw new values");
    release(&[x]);
    ok(sl_rng_destroy(g));
}
