//! Accuracy and special-value tests.
//!
//! Every test draws fresh random inputs (seed from the clock, printed on failure; set
//! `SLUICE_MATH_SEED` to reproduce, `SLUICE_MATH_SAMPLES` to change the sample count) and checks
//! both code paths: the dispatched one (FMA clone on this machine) and the baseline `NoFma` one.
//! f32 results are compared with the f64 glibc result (near-exact at f32 precision); f64 results
//! with glibc itself, so f64 bounds are relative to glibc.

use super::*;
use std::sync::OnceLock;

/// glibc's f64 functions (Rust's std implements asinh/acosh/atanh itself and has no erf).
mod glibc {
    unsafe extern "C" {
        pub safe fn cbrt(x: f64) -> f64;
        pub safe fn exp(x: f64) -> f64;
        pub safe fn exp2(x: f64) -> f64;
        pub safe fn expm1(x: f64) -> f64;
        pub safe fn log(x: f64) -> f64;
        pub safe fn log2(x: f64) -> f64;
        pub safe fn log10(x: f64) -> f64;
        pub safe fn log1p(x: f64) -> f64;
        pub safe fn sin(x: f64) -> f64;
        pub safe fn cos(x: f64) -> f64;
        pub safe fn tan(x: f64) -> f64;
        pub safe fn asin(x: f64) -> f64;
        pub safe fn acos(x: f64) -> f64;
        pub safe fn atan(x: f64) -> f64;
        pub safe fn sinh(x: f64) -> f64;
        pub safe fn cosh(x: f64) -> f64;
        pub safe fn tanh(x: f64) -> f64;
        pub safe fn asinh(x: f64) -> f64;
        pub safe fn acosh(x: f64) -> f64;
        pub safe fn atanh(x: f64) -> f64;
        pub safe fn erf(x: f64) -> f64;
        pub safe fn erff(x: f32) -> f32;
        pub safe fn erfc(x: f64) -> f64;
        pub safe fn erfcf(x: f32) -> f32;
        pub safe fn tgamma(x: f64) -> f64;
        pub safe fn tgammaf(x: f32) -> f32;
        pub fn lgamma_r(x: f64, sign: *mut i32) -> f64;
        pub fn lgammaf_r(x: f32, sign: *mut i32) -> f32;
        pub safe fn floor(x: f64) -> f64;
        pub safe fn ceil(x: f64) -> f64;
        pub safe fn round(x: f64) -> f64;
        pub safe fn trunc(x: f64) -> f64;
        pub safe fn pow(x: f64, y: f64) -> f64;
        pub safe fn atan2(y: f64, x: f64) -> f64;
        pub safe fn hypot(x: f64, y: f64) -> f64;
    }
}

fn reference_unary(f: UnaryFn) -> fn(f64) -> f64 {
    use UnaryFn::*;
    match f {
        Erfc => |x| mpfr::erfc(x),
        Erfinv => |x| mpfr::erfinv(x),
        Lgamma => |x| mpfr::lgamma(x),
        Tgamma => |x| mpfr::tgamma(x),
        Cbrt => |x| glibc::cbrt(x),
        Exp => |x| glibc::exp(x),
        Exp2 => |x| glibc::exp2(x),
        Expm1 => |x| glibc::expm1(x),
        Log => |x| glibc::log(x),
        Log2 => |x| glibc::log2(x),
        Log10 => |x| glibc::log10(x),
        Log1p => |x| glibc::log1p(x),
        Sin => |x| glibc::sin(x),
        Cos => |x| glibc::cos(x),
        Tan => |x| glibc::tan(x),
        Asin => |x| glibc::asin(x),
        Acos => |x| glibc::acos(x),
        Atan => |x| glibc::atan(x),
        Sinh => |x| glibc::sinh(x),
        Cosh => |x| glibc::cosh(x),
        Tanh => |x| glibc::tanh(x),
        Asinh => |x| glibc::asinh(x),
        Acosh => |x| glibc::acosh(x),
        Atanh => |x| glibc::atanh(x),
        Erf => |x| glibc::erf(x),
        Floor => |x| glibc::floor(x),
        Ceil => |x| glibc::ceil(x),
        Round => |x| glibc::round(x),
        Trunc => |x| glibc::trunc(x),
    }
}

fn reference_binary(f: BinaryFn) -> extern "C" fn(f64, f64) -> f64 {
    match f {
        BinaryFn::Pow => glibc::pow,
        BinaryFn::Atan2 => glibc::atan2,
        BinaryFn::Hypot => glibc::hypot,
    }
}

/// MPFR's correctly rounded values (glibc's own erfc, lgamma and tgamma are off by up to 5, 4
/// and 9 ulps, and it has no erfinv).
mod mpfr {
    use rug::Float;

    const PREC: u32 = 128;

    fn big(x: f64) -> Float {
        Float::with_val(PREC, x)
    }
    pub fn erfc(x: f64) -> f64 {
        big(x).erfc().to_f64()
    }
    pub fn lgamma(x: f64) -> f64 {
        if x.is_infinite() {
            return f64::INFINITY;
        }
        big(x).ln_abs_gamma().0.to_f64()
    }
    pub fn tgamma(x: f64) -> f64 {
        big(x).gamma().to_f64()
    }
    /// Newton steps on erfc (erf below 1/2, where 1 - |x| is inexact) in MPFR from a
    /// bisection on glibc's f64 functions.
    pub fn erfinv(x: f64) -> f64 {
        let a = x.abs();
        if a.is_nan() || a > 1.0 {
            return f64::NAN;
        }
        if a == 0.0 || a == 1.0 {
            return if a == 0.0 { x } else { f64::INFINITY.copysign(x) };
        }
        let target = big(1.0) - big(a); // exact
        let g = |y: &Float| -> Float {
            if a >= 0.5 {
                Float::with_val(PREC, y.erfc_ref()) - &target
            } else {
                big(a) - Float::with_val(PREC, y.erf_ref())
            }
        };
        let (mut lo, mut hi) = (0.0f64, 6.0f64);
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            let gap = if a >= 0.5 { super::glibc::erfc(mid) - (1.0 - a) } else { a - super::glibc::erf(mid) };
            if gap > 0.0 { lo = mid } else { hi = mid }
        }
        let mut y = big(0.5 * (lo + hi));
        let two_over_sqrt_pi =
            Float::with_val(PREC, Float::with_val(PREC, rug::float::Constant::Pi).sqrt().recip()) * 2u32;
        for _ in 0..3 {
            let d = Float::with_val(PREC, -Float::with_val(PREC, y.square_ref())).exp() * &two_over_sqrt_pi;
            y += g(&y) / d;
        }
        y.to_f64().copysign(x)
    }
}

// ---------------------------------------------------------------------------------------------
// Random inputs

/// SplitMix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
    fn sign(&mut self) -> f64 {
        if self.next() & 1 == 0 { 1.0 } else { -1.0 }
    }
    /// Log-uniform magnitude in [lo, hi] (lo > 0).
    fn log_uniform(&mut self, lo: f64, hi: f64) -> f64 {
        (self.uniform(lo.ln(), hi.ln())).exp().clamp(lo, hi)
    }
}

fn seed() -> u64 {
    static SEED: OnceLock<u64> = OnceLock::new();
    *SEED.get_or_init(|| {
        std::env::var("SLUICE_MATH_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
        })
    })
}

fn samples() -> usize {
    std::env::var("SLUICE_MATH_SAMPLES").ok().and_then(|s| s.parse().ok()).unwrap_or(1 << 20)
}

/// Input distributions. `Bits` draws random bit patterns: every exponent (subnormals included)
/// equally often, both signs — log-uniform over the whole range.
#[derive(Clone, Copy, Debug)]
enum Dist {
    Bits,
    /// `Bits`, made positive.
    BitsPos,
    Uniform(f64, f64),
    /// Log-uniform magnitude in [lo, hi], random sign.
    LogSym(f64, f64),
    /// Log-uniform in [lo, hi], positive.
    LogPos(f64, f64),
    /// `c + s * LogPos(lo, hi)` with random sign `s`: densely around `c`.
    Around(f64, f64, f64),
    /// `k * step + Uniform(-w, w)` with integer `|k| <= kmax`.
    Multiples(f64, f64, f64),
    /// Integers and half-integers up to the given magnitude.
    Halves(f64),
}

impl Dist {
    fn draw32(self, r: &mut Rng) -> f32 {
        match self {
            Dist::Bits => loop {
                let v = f32::from_bits(r.next() as u32);
                if v.is_finite() {
                    return v;
                }
            },
            Dist::BitsPos => Dist::Bits.draw32(r).abs(),
            _ => self.draw64(r) as f32,
        }
    }
    fn draw64(self, r: &mut Rng) -> f64 {
        match self {
            Dist::Bits => loop {
                let v = f64::from_bits(r.next());
                if v.is_finite() {
                    return v;
                }
            },
            Dist::BitsPos => Dist::Bits.draw64(r).abs(),
            Dist::Uniform(lo, hi) => r.uniform(lo, hi),
            Dist::LogSym(lo, hi) => r.sign() * r.log_uniform(lo, hi),
            Dist::LogPos(lo, hi) => r.log_uniform(lo, hi),
            Dist::Around(c, lo, hi) => c + r.sign() * r.log_uniform(lo, hi),
            Dist::Multiples(step, kmax, w) => {
                let k = (r.uniform(-kmax, kmax)).round();
                k * step + r.uniform(-w, w)
            }
            Dist::Halves(m) => (r.uniform(-m, m) * 2.0).round() * 0.5,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Error measurement

/// Error of `got` in f32 ulps of the exact value `exact` (an f64 approximation of it).
/// Non-finite or zero references must match exactly (including the sign of zero).
fn ulp_err32(got: f32, exact: f64) -> f64 {
    let r = exact as f32;
    if r.is_nan() || got.is_nan() {
        return if r.is_nan() && got.is_nan() { 0.0 } else { f64::INFINITY };
    }
    if r.is_infinite() || exact == 0.0 || got.is_infinite() {
        return if got == r && got.is_sign_negative() == r.is_sign_negative() { 0.0 } else { f64::INFINITY };
    }
    let e = ((exact.abs().to_bits() >> 52) as i32 - 1023).max(-126);
    (got as f64 - exact).abs() / (2f64).powi(e - 23)
}

/// Error of `got` in f64 ulps of the reference value.
fn ulp_err64(got: f64, reference: f64) -> f64 {
    if reference.is_nan() || got.is_nan() {
        return if reference.is_nan() && got.is_nan() { 0.0 } else { f64::INFINITY };
    }
    if reference.is_infinite() || reference == 0.0 || got.is_infinite() {
        return if got == reference && got.is_sign_negative() == reference.is_sign_negative() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let e = ((reference.abs().to_bits() >> 52) as i32 - 1023).max(-1022);
    // |got - reference| * 2^(52 - e), in two steps: 2^(52 - e) can exceed f64::MAX.
    let k = 52 - e;
    (got - reference).abs() * (2f64).powi(k / 2) * (2f64).powi(k - k / 2)
}

/// Worst case found for one (function, type, path).
#[derive(Clone, Copy, Debug, Default)]
struct Worst {
    err: f64,
    input: (f64, f64),
    got: f64,
    want: f64,
}

impl Worst {
    fn add(&mut self, err: f64, input: (f64, f64), got: f64, want: f64) {
        if err > self.err || (err.is_nan() && !self.err.is_nan()) {
            *self = Worst { err, input, got, want };
        }
    }
}

fn special_values() -> Vec<f64> {
    let mut v = vec![
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        3.0,
        -3.0,
        1.5,
        -1.5,
        2.5,
        -2.5,
        10.0,
        -10.0,
        core::f64::consts::FRAC_PI_2,
        -core::f64::consts::FRAC_PI_2,
        core::f64::consts::PI,
        1e-300,
        -1e-300,
        1e300,
        -1e300,
        1e-40,
        1e-20,
        1e20,
        1e40,
        88.7,
        89.5,
        -103.9,
        709.78,
        710.5,
        -745.1,
        -745.2,
        0.9999999,
        1.0000001,
        4503599627370495.5,
        8388607.5,
        -8388607.5,
    ];
    for t in [f64::MIN_POSITIVE, 5e-324, f64::MAX, f32::MIN_POSITIVE as f64, 1e-45, f32::MAX as f64] {
        v.push(t);
        v.push(-t);
    }
    v
}

struct Outcome {
    name: String,
    worst: Worst,
    samples: usize,
}

fn check_unary(f: UnaryFn, dists: &[Dist], bound32: f64, bound64: f64) {
    // The special functions' references are MPFR's: a quarter of the samples.
    let special = matches!(f, UnaryFn::Erfc | UnaryFn::Erfinv | UnaryFn::Lgamma | UnaryFn::Tgamma);
    let n = if special { samples() / 4 } else { samples() };
    let seed = seed();
    let mut rng = Rng(seed ^ (f as u64).wrapping_mul(0x1234_5678_9abc_def1));
    let per = n.div_ceil(dists.len());
    let reference = reference_unary(f);
    let mut outcomes = Vec::new();

    // lgamma below -0.5 has its own test (`lgamma_negative`).
    let specials: Vec<f64> = special_values().into_iter().filter(|&v| !(f == UnaryFn::Lgamma && v <= -0.5)).collect();

    // f32
    let mut xs: Vec<f32> = specials.iter().map(|&v| v as f32).collect();
    for d in dists {
        xs.extend((0..per).map(|_| d.draw32(&mut rng)));
    }
    let want: Vec<f64> = xs.iter().map(|&x| reference(x as f64)).collect();
    let mut got = vec![0f32; xs.len()];
    for (path, nofma) in [("dispatch", false), ("nofma", true)] {
        if nofma {
            unary_f32_nofma(f, &xs, &mut got);
        } else {
            unary_f32(f, &xs, &mut got);
        }
        let mut w = Worst::default();
        for i in 0..xs.len() {
            w.add(ulp_err32(got[i], want[i]), (xs[i] as f64, 0.0), got[i] as f64, want[i]);
        }
        outcomes.push((Outcome { name: format!("{}_f32/{path}", f.name()), worst: w, samples: xs.len() }, bound32));
    }

    // f64
    let mut xs: Vec<f64> = specials;
    for d in dists {
        xs.extend((0..per).map(|_| d.draw64(&mut rng)));
    }
    let want: Vec<f64> = xs.iter().map(|&x| reference(x)).collect();
    let mut got = vec![0f64; xs.len()];
    for (path, nofma) in [("dispatch", false), ("nofma", true)] {
        if nofma {
            unary_f64_nofma(f, &xs, &mut got);
        } else {
            unary_f64(f, &xs, &mut got);
        }
        let mut w = Worst::default();
        for i in 0..xs.len() {
            w.add(ulp_err64(got[i], want[i]), (xs[i], 0.0), got[i], want[i]);
        }
        outcomes.push((Outcome { name: format!("{}_f64/{path}", f.name()), worst: w, samples: xs.len() }, bound64));
    }
    report(outcomes, seed);
}

fn report(outcomes: Vec<(Outcome, f64)>, seed: u64) {
    let mut failures = Vec::new();
    for (o, bound) in &outcomes {
        let w = o.worst;
        println!(
            "ACCURACY {:<18} max_ulp {:>9.4} bound {:>4} samples {:>8} worst input ({:e}, {:e}) got {:e} want {:e}",
            o.name, w.err, bound, o.samples, w.input.0, w.input.1, w.got, w.want
        );
        if w.err.is_nan() || w.err > *bound {
            failures.push(format!(
                "{}: {} ulp > {} at input ({:e}, {:e}): got {:e} ({:#x}), want {:e}",
                o.name,
                w.err,
                bound,
                w.input.0,
                w.input.1,
                w.got,
                w.got.to_bits(),
                w.want
            ));
        }
    }
    assert!(failures.is_empty(), "seed {seed} (SLUICE_MATH_SEED={seed} reproduces):\n{}", failures.join("\n"));
}

/// Pairs of inputs for binary functions.
#[derive(Clone, Copy, Debug)]
enum Dist2 {
    /// Independent draws.
    Indep(Dist, Dist),
    /// pow: positive x from the distribution, y chosen so y ln x is uniform in [lo, hi].
    PowRange(Dist, f64, f64),
    /// pow: x from the distribution, y a random integer with |y| <= the bound.
    IntExp(Dist, f64),
    /// hypot/atan2: x from the distribution, y = x * ratio, ratio log-uniform in [lo, hi].
    Ratio(Dist, f64, f64),
}

impl Dist2 {
    fn draw(self, r: &mut Rng, single: bool) -> (f64, f64) {
        let one = |d: Dist, r: &mut Rng| {
            if single { d.draw32(r) as f64 } else { d.draw64(r) }
        };
        let round = |v: f64| if single { v as f32 as f64 } else { v };
        match self {
            Dist2::Indep(a, b) => (one(a, r), one(b, r)),
            Dist2::PowRange(a, lo, hi) => {
                let x = one(a, r);
                let l = x.ln();
                (x, round(if l == 0.0 { r.uniform(-1e6, 1e6) } else { r.uniform(lo, hi) / l }))
            }
            Dist2::IntExp(a, m) => (one(a, r), r.uniform(-m, m).round()),
            Dist2::Ratio(a, lo, hi) => {
                let x = one(a, r);
                (x, round(x * r.sign() * r.log_uniform(lo, hi)))
            }
        }
    }
}

fn binary_specials() -> Vec<(f64, f64)> {
    let mut vals = vec![0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0, f64::INFINITY];
    vals.extend([f64::NEG_INFINITY, f64::NAN, 1.0 / 3.0, -8.0, 1e-310, -1e-310, 1e300, -1e300]);
    vals.extend([f64::MAX, f64::MIN_POSITIVE, 0.75, -0.75, 1e10, -1e10, 1e-10]);
    let mut out = Vec::new();
    for &a in &vals {
        for &b in &vals {
            out.push((a, b));
        }
    }
    out
}

fn check_binary(f: BinaryFn, dists: &[Dist2], bound32: f64, bound64: f64) {
    let n = samples();
    let seed = seed();
    let mut rng = Rng(seed ^ (f as u64 + 100).wrapping_mul(0x1234_5678_9abc_def1));
    let per = n.div_ceil(dists.len());
    let reference = reference_binary(f);
    let mut outcomes = Vec::new();

    // f32
    let mut pairs: Vec<(f64, f64)> =
        binary_specials().iter().map(|&(a, b)| (a as f32 as f64, b as f32 as f64)).collect();
    for d in dists {
        pairs.extend((0..per).map(|_| d.draw(&mut rng, true)));
    }
    let a: Vec<f32> = pairs.iter().map(|p| p.0 as f32).collect();
    let b: Vec<f32> = pairs.iter().map(|p| p.1 as f32).collect();
    let want: Vec<f64> = a.iter().zip(&b).map(|(&x, &y)| reference(x as f64, y as f64)).collect();
    let mut got = vec![0f32; a.len()];
    for (path, nofma) in [("dispatch", false), ("nofma", true)] {
        if nofma {
            binary_f32_nofma(f, &a, &b, &mut got);
        } else {
            binary_f32(f, &a, &b, &mut got);
        }
        let mut w = Worst::default();
        for i in 0..a.len() {
            w.add(ulp_err32(got[i], want[i]), (a[i] as f64, b[i] as f64), got[i] as f64, want[i]);
        }
        outcomes.push((Outcome { name: format!("{}_f32/{path}", f.name()), worst: w, samples: a.len() }, bound32));
    }

    // f64
    let mut pairs = binary_specials();
    for d in dists {
        pairs.extend((0..per).map(|_| d.draw(&mut rng, false)));
    }
    let a: Vec<f64> = pairs.iter().map(|p| p.0).collect();
    let b: Vec<f64> = pairs.iter().map(|p| p.1).collect();
    let want: Vec<f64> = a.iter().zip(&b).map(|(&x, &y)| reference(x, y)).collect();
    let mut got = vec![0f64; a.len()];
    for (path, nofma) in [("dispatch", false), ("nofma", true)] {
        if nofma {
            binary_f64_nofma(f, &a, &b, &mut got);
        } else {
            binary_f64(f, &a, &b, &mut got);
        }
        let mut w = Worst::default();
        for i in 0..a.len() {
            w.add(ulp_err64(got[i], want[i]), (a[i], b[i]), got[i], want[i]);
        }
        outcomes.push((Outcome { name: format!("{}_f64/{path}", f.name()), worst: w, samples: a.len() }, bound64));
    }
    report(outcomes, seed);
}

// ---------------------------------------------------------------------------------------------
// The tests: distributions per function and the enforced bounds (f32, f64).

use Dist::*;

const PIO2: f64 = core::f64::consts::FRAC_PI_2;

#[test]
fn acc_cbrt() {
    check_unary(UnaryFn::Cbrt, &[Bits, Uniform(-10.0, 10.0), LogSym(1e-320, 1e-300)], 1.0, 1.0);
}
#[test]
fn acc_exp() {
    let d = [Bits, Uniform(-750.0, 750.0), Uniform(-110.0, 95.0), Uniform(-1.0, 1.0), LogSym(1e-30, 1.0)];
    check_unary(UnaryFn::Exp, &d, 1.0, 1.0);
}
#[test]
fn acc_exp2() {
    let d = [Bits, Uniform(-1100.0, 1100.0), Uniform(-160.0, 140.0), Uniform(-1.0, 1.0), LogSym(1e-30, 1.0)];
    check_unary(UnaryFn::Exp2, &d, 1.0, 1.0);
}
#[test]
fn acc_expm1() {
    let d = [Bits, Uniform(-50.0, 720.0), Uniform(-20.0, 95.0), Uniform(-1.0, 1.0), LogSym(1e-30, 1.0)];
    check_unary(UnaryFn::Expm1, &d, 1.5, 1.5);
}
const LOG_DISTS: [Dist; 5] = [Bits, BitsPos, Uniform(0.7, 1.5), Around(1.0, 1e-17, 0.1), LogPos(1e-320, 1e-300)];
#[test]
fn acc_log() {
    check_unary(UnaryFn::Log, &LOG_DISTS, 1.0, 1.0);
}
#[test]
fn acc_log2() {
    check_unary(UnaryFn::Log2, &LOG_DISTS, 1.0, 1.0);
}
#[test]
fn acc_log10() {
    check_unary(UnaryFn::Log10, &LOG_DISTS, 1.0, 2.0);
}
#[test]
fn acc_log1p() {
    let d = [Bits, Uniform(-1.0, 1.0), Around(-1.0, 1e-17, 0.5), LogSym(1e-30, 1.0), LogPos(1.0, 1e30)];
    check_unary(UnaryFn::Log1p, &d, 1.0, 1.0);
}
/// Covers both f32 vector tiers (|x| <= 2^17 in f32, up to 2^22 with the f64 reduction) and
/// their boundary, and the f64 range limit 2^20.
const TRIG_DISTS: [Dist; 10] = [
    Bits,
    Uniform(-10.0, 10.0),
    Multiples(PIO2, 100.0, 1e-3),
    Multiples(PIO2, 8e4, 1e-2),
    Multiples(PIO2, 1e6, 1e-2),
    LogSym(1e-10, 5e6),
    Uniform(-1.4e5, 1.4e5),
    Around(131072.0, 1e-2, 1e3),
    Uniform(-2e6, 2e6),
    LogSym(1e6, 1e30),
];
#[test]
fn acc_sin() {
    check_unary(UnaryFn::Sin, &TRIG_DISTS, 1.0, 1.0);
}
#[test]
fn acc_cos() {
    check_unary(UnaryFn::Cos, &TRIG_DISTS, 1.0, 1.0);
}
#[test]
fn acc_tan() {
    check_unary(UnaryFn::Tan, &TRIG_DISTS, 3.0, 3.0);
}
const ASIN_DISTS: [Dist; 6] = [
    Bits,
    Uniform(-1.0, 1.0),
    Around(1.0, 1e-17, 0.5),
    Around(-1.0, 1e-17, 0.5),
    Around(0.5, 1e-17, 0.1),
    LogSym(1e-30, 1.0),
];
#[test]
fn acc_asin() {
    check_unary(UnaryFn::Asin, &ASIN_DISTS, 1.0, 1.0);
}
#[test]
fn acc_acos() {
    check_unary(UnaryFn::Acos, &ASIN_DISTS, 1.0, 1.0);
}
#[test]
fn acc_atan() {
    check_unary(UnaryFn::Atan, &[Bits, Uniform(-5.0, 5.0), LogSym(1e-30, 1e30)], 1.0, 1.0);
}
const SINH_DISTS: [Dist; 7] = [
    Bits,
    Uniform(-1.0, 1.0),
    Uniform(-30.0, 30.0),
    Uniform(-720.0, 720.0),
    Around(710.475, 1e-6, 1.0),
    Around(89.4, 1e-6, 1.0),
    LogSym(1e-30, 1.0),
];
#[test]
fn acc_sinh() {
    check_unary(UnaryFn::Sinh, &SINH_DISTS, 2.0, 3.0);
}
#[test]
fn acc_cosh() {
    check_unary(UnaryFn::Cosh, &SINH_DISTS, 2.0, 3.0);
}
#[test]
fn acc_tanh() {
    check_unary(UnaryFn::Tanh, &[Bits, Uniform(-25.0, 25.0), Uniform(-1.0, 1.0), LogSym(1e-30, 1.0)], 1.5, 3.0);
}
#[test]
fn acc_asinh() {
    check_unary(UnaryFn::Asinh, &[Bits, Uniform(-3.0, 3.0), LogSym(1e-30, 1e30)], 3.0, 3.0);
}
#[test]
fn acc_acosh() {
    let d = [Bits, Around(1.0, 1e-17, 1.0), Uniform(1.0, 5.0), LogPos(1.0, 1e300)];
    check_unary(UnaryFn::Acosh, &d, 3.0, 3.0);
}
#[test]
fn acc_atanh() {
    let d = [Bits, Uniform(-1.0, 1.0), Around(1.0, 1e-17, 0.5), Around(-1.0, 1e-17, 0.5), LogSym(1e-30, 1.0)];
    check_unary(UnaryFn::Atanh, &d, 3.0, 3.0);
}
#[test]
fn acc_erf() {
    // Uniform(0.5, 2.0): the kernel's range splits at 0.75 and 1.75.
    let dists = [Bits, Uniform(-7.0, 7.0), Uniform(-2.0, 2.0), LogSym(1e-30, 1.0), Uniform(0.5, 2.0)];
    check_unary(UnaryFn::Erf, &dists, 1.0, 2.0);
}
#[test]
fn acc_erfc() {
    // The splits (0.5, 1, 2, 4) and erfc's underflow (near 10.05 in f32, 27.2 in f64).
    let dists = [
        Bits,
        Uniform(-6.0, 30.0),
        Uniform(0.4, 2.1),
        Uniform(1.9, 4.1),
        Uniform(4.0, 10.0),
        Around(27.2, 1e-6, 0.3),
        Around(10.0, 1e-6, 0.2),
        LogSym(1e-30, 1.0),
    ];
    check_unary(UnaryFn::Erfc, &dists, 1.0, 1.0);
}
#[test]
fn acc_erfinv() {
    // Near ±1 (the tail pieces, |x| within 2^-53 of 1) and near 0.
    let dists = [
        Uniform(-1.0, 1.0),
        Around(1.0, 1e-17, 0.1),
        Around(-1.0, 1e-17, 0.1),
        Around(0.99807, 1e-10, 1e-3),
        LogSym(1e-30, 1.0),
        LogSym(1e-310, 1e-30),
        Bits,
    ];
    check_unary(UnaryFn::Erfinv, &dists, 1.0, 1.0);
}
#[test]
fn acc_lgamma() {
    // Near the zeros at 1 and 2, tiny and huge arguments, the range splits (0.5, 1.5, 3, 8),
    // down to -0.5 (negative arguments: `lgamma_negative`).
    let dists = [
        Uniform(-0.5, 0.0),
        BitsPos,
        Uniform(0.0, 10.0),
        Around(1.0, 1e-17, 0.5),
        Around(2.0, 1e-17, 0.5),
        LogPos(1e-300, 1e-5),
        LogPos(10.0, 1e306),
        Around(2.55e305, 1e290, 1e303),
    ];
    check_unary(UnaryFn::Lgamma, &dists, 1.0, 1.5);
}
/// lgamma below -0.5 (the reflection): within 1.5 ulp, or, near its zeros there, where the
/// reflection's terms cancel, within 4 units of 2^-53 (1 + |lgamma(1 - x)|) (the bound
/// tests/math.rs holds). Both code paths; prints the worst of each kind.
#[test]
fn lgamma_negative() {
    let n = samples() / 4;
    let seed = seed();
    let mut rng = Rng(seed ^ 0x6a09_e667);
    let zeros = [-2.4570247382208006, -2.7476826467274127, -3.14358088834998, -3.955294284858598];
    let mut dists = vec![Uniform(-20.0, -0.5), Uniform(-200.0, -0.5), LogPos(0.5, 1e15), Multiples(1.0, 25.0, 0.06)];
    dists.extend(zeros.iter().map(|&z| Around(z, 1e-17, 1e-3)));
    let per = n.div_ceil(dists.len());
    let xs: Vec<f64> =
        dists.iter().flat_map(|d| (0..per).map(|_| -d.draw64(&mut rng).abs()).collect::<Vec<_>>()).collect();
    let want: Vec<f64> = xs.iter().map(|&x| mpfr::lgamma(x)).collect();
    let size: Vec<f64> = xs.iter().map(|&x| 1.0 + mpfr::lgamma(1.0 - x).abs()).collect();
    let mut failures = Vec::new();
    for nofma in [false, true] {
        let mut got = vec![0f64; xs.len()];
        if nofma {
            unary_f64_nofma(UnaryFn::Lgamma, &xs, &mut got)
        } else {
            unary_f64(UnaryFn::Lgamma, &xs, &mut got)
        }
        let (mut ulp_worst, mut abs_worst) = ((0.0, 0.0), (0.0, 0.0));
        for i in 0..xs.len() {
            let e = ulp_err64(got[i], want[i]);
            let units = (got[i] - want[i]).abs() / (size[i] * 2f64.powi(-53));
            if e <= 1.5 {
                if e > ulp_worst.0 {
                    ulp_worst = (e, xs[i]);
                }
            } else if units.is_nan() || units > abs_worst.0 {
                abs_worst = (units, xs[i]);
            }
        }
        println!(
            "ACCURACY lgamma_negative_f64 (nofma {nofma}): max {:.3} ulp within 1.5 (at {:e}); elsewhere max {:.3} \
             units of 2^-53 (1 + |lgamma(1 - x)|) (at {:e})",
            ulp_worst.0, ulp_worst.1, abs_worst.0, abs_worst.1
        );
        if abs_worst.0.is_nan() || abs_worst.0 > 4.0 {
            failures.push(format!("nofma {nofma}: {} units at {:e}", abs_worst.0, abs_worst.1));
        }
    }
    assert!(failures.is_empty(), "seed {seed} (SLUICE_MATH_SEED={seed} reproduces): {failures:?}");
}

#[test]
fn acc_tgamma() {
    // Overflow (171.62 f64, 35.04 f32), underflow (about -184), near the poles, tiny.
    let dists = [
        Bits,
        Uniform(-30.0, 180.0),
        Uniform(0.0, 10.0),
        Around(171.62, 1e-6, 0.1),
        Around(35.04, 1e-6, 0.1),
        Uniform(-190.0, -0.5),
        Multiples(1.0, 20.0, 1e-3),
        LogSym(1e-30, 1e-3),
    ];
    check_unary(UnaryFn::Tgamma, &dists, 1.0, 2.0);
}
const ROUND_DISTS: [Dist; 5] = [Bits, Uniform(-10.0, 10.0), Halves(1e6), LogSym(4e6, 2e7), LogSym(2e15, 1e16)];
#[test]
fn acc_floor() {
    check_unary(UnaryFn::Floor, &ROUND_DISTS, 0.0, 0.0);
}
#[test]
fn acc_ceil() {
    check_unary(UnaryFn::Ceil, &ROUND_DISTS, 0.0, 0.0);
}
#[test]
fn acc_round() {
    check_unary(UnaryFn::Round, &ROUND_DISTS, 0.0, 0.0);
}
#[test]
fn acc_trunc() {
    check_unary(UnaryFn::Trunc, &ROUND_DISTS, 0.0, 0.0);
}

#[test]
fn acc_pow() {
    let d = [
        Dist2::Indep(Bits, Bits),
        Dist2::Indep(BitsPos, Uniform(-10.0, 10.0)),
        Dist2::PowRange(BitsPos, -760.0, 720.0),
        Dist2::PowRange(BitsPos, -110.0, 95.0),
        Dist2::PowRange(Around(1.0, 1e-17, 0.5), -760.0, 720.0),
        Dist2::IntExp(Uniform(-10.0, 10.0), 40.0),
        Dist2::IntExp(LogSym(1e-3, 1e3), 300.0),
    ];
    check_binary(BinaryFn::Pow, &d, 1.0, 2.0);
}
#[test]
fn acc_atan2() {
    let d = [
        Dist2::Indep(Bits, Bits),
        Dist2::Indep(Uniform(-2.0, 2.0), Uniform(-2.0, 2.0)),
        Dist2::Ratio(LogSym(1e-300, 1e300), 1e-5, 1e5),
        Dist2::Ratio(LogSym(1e-30, 1e30), 0.3, 3.0),
    ];
    check_binary(BinaryFn::Atan2, &d, 2.0, 2.0);
}
#[test]
fn acc_hypot() {
    let d = [
        Dist2::Indep(Bits, Bits),
        Dist2::Indep(Uniform(-2.0, 2.0), Uniform(-2.0, 2.0)),
        Dist2::Ratio(LogSym(1e-320, 1e308), 1e-9, 1.0),
        Dist2::Ratio(LogSym(1e-45, 1e38), 1e-5, 1.0),
    ];
    check_binary(BinaryFn::Hypot, &d, 1.0, 1.0);
}

// ---------------------------------------------------------------------------------------------
// API shape

#[test]
fn scalar_operand_variants_match_slices() {
    let mut rng = Rng(seed());
    let a: Vec<f64> = (0..1000).map(|_| rng.uniform(0.0, 4.0)).collect();
    let b: Vec<f64> = (0..1000).map(|_| rng.uniform(-3.0, 3.0)).collect();
    let (s, t) = (1.7f64, -0.6f64);
    for &f in BinaryFn::ALL {
        let mut want = vec![0.0; a.len()];
        let mut got = vec![0.0; a.len()];
        binary_f64(f, &a, &vec![s; a.len()], &mut want);
        binary_f64_vs(f, &a, s, &mut got);
        assert_eq!(
            want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            got.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
        binary_f64(f, &vec![t; b.len()], &b, &mut want);
        binary_f64_sv(f, t, &b, &mut got);
        assert_eq!(
            want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            got.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );

        let a32: Vec<f32> = a.iter().map(|&v| v as f32).collect();
        let b32: Vec<f32> = b.iter().map(|&v| v as f32).collect();
        let mut want = vec![0.0f32; a.len()];
        let mut got = vec![0.0f32; a.len()];
        binary_f32(f, &a32, &vec![s as f32; a.len()], &mut want);
        binary_f32_vs(f, &a32, s as f32, &mut got);
        assert_eq!(
            want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            got.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
        binary_f32(f, &vec![t as f32; b.len()], &b32, &mut want);
        binary_f32_sv(f, t as f32, &b32, &mut got);
        assert_eq!(
            want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            got.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
    }
}

#[test]
fn enum_dispatch_matches_named_functions() {
    let src: Vec<f32> = (0..100).map(|i| i as f32 * 0.37 - 10.0).collect();
    let mut a = vec![0f32; 100];
    let mut b = vec![0f32; 100];
    unary_f32(UnaryFn::Sin, &src, &mut a);
    sin_f32(&src, &mut b);
    assert_eq!(a, b);
    unary_f32(UnaryFn::Log1p, &src, &mut a);
    log1p_f32(&src, &mut b);
    assert_eq!(a.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), b.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    assert_eq!(UnaryFn::ALL.len(), 29);
    assert_eq!(BinaryFn::ALL.len(), 3);
    // Empty slices are fine.
    unary_f64(UnaryFn::Exp, &[], &mut []);
    binary_f64_vs(BinaryFn::Pow, &[], 2.0, &mut []);
}

/// The AVX2 and AVX-512 clones run the same operations, so their results must be bit-identical
/// (the accuracy tests only reach the clone the dispatcher picks on this machine).
#[test]
fn avx2_clone_matches_dispatch() {
    if !(is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")) {
        eprintln!("no AVX2+FMA: skipped");
        return;
    }
    let mut rng = Rng(seed() ^ 0xa5a5);
    let n = 1 << 14;
    let same32 =
        |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()));
    let same64 =
        |a: &[f64], b: &[f64]| a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()));
    let x32: Vec<f32> = (0..n)
        .map(|i| if i % 2 == 0 { Bits.draw32(&mut rng) } else { Uniform(-20.0, 20.0).draw32(&mut rng) })
        .collect();
    let y32: Vec<f32> = (0..n)
        .map(|i| if i % 2 == 0 { Bits.draw32(&mut rng) } else { Uniform(-20.0, 20.0).draw32(&mut rng) })
        .collect();
    let x64: Vec<f64> = (0..n)
        .map(|i| if i % 2 == 0 { Bits.draw64(&mut rng) } else { Uniform(-20.0, 20.0).draw64(&mut rng) })
        .collect();
    let y64: Vec<f64> = (0..n)
        .map(|i| if i % 2 == 0 { Bits.draw64(&mut rng) } else { Uniform(-20.0, 20.0).draw64(&mut rng) })
        .collect();
    let (mut a32, mut b32) = (vec![0f32; n], vec![0f32; n]);
    let (mut a64, mut b64) = (vec![0f64; n], vec![0f64; n]);
    for &f in UnaryFn::ALL {
        unary_f32(f, &x32, &mut a32);
        // SAFETY: AVX2 and FMA were detected above.
        unsafe { unary_f32_avx2(f, &x32, &mut b32) };
        assert!(same32(&a32, &b32), "{}_f32 differs between clones (seed {})", f.name(), seed());
        unary_f64(f, &x64, &mut a64);
        // SAFETY: as above.
        unsafe { unary_f64_avx2(f, &x64, &mut b64) };
        assert!(same64(&a64, &b64), "{}_f64 differs between clones (seed {})", f.name(), seed());
    }
    for &f in BinaryFn::ALL {
        binary_f32(f, &x32, &y32, &mut a32);
        // SAFETY: as above.
        unsafe { binary_f32_avx2(f, &x32, &y32, &mut b32) };
        assert!(same32(&a32, &b32), "{}_f32 differs between clones (seed {})", f.name(), seed());
        binary_f64(f, &x64, &y64, &mut a64);
        // SAFETY: as above.
        unsafe { binary_f64_avx2(f, &x64, &y64, &mut b64) };
        assert!(same64(&a64, &b64), "{}_f64 differs between clones (seed {})", f.name(), seed());
    }
}

#[test]
#[should_panic]
fn unary_length_mismatch_panics() {
    sin_f32(&[1.0, 2.0], &mut [0.0]);
}

#[test]
#[should_panic]
fn binary_length_mismatch_panics() {
    pow_f64(&[1.0, 2.0], &[1.0], &mut [0.0, 0.0]);
}

#[test]
fn c99_special_cases() {
    let p = |x: f64, y: f64| {
        let mut d = [0.0];
        pow_f64(&[x], &[y], &mut d);
        let mut d32 = [0.0f32];
        pow_f32(&[x as f32], &[y as f32], &mut d32);
        assert_eq!(d[0].to_bits(), (d32[0] as f64).to_bits(), "pow({x}, {y}) f32 vs f64");
        d[0]
    };
    let same = |a: f64, b: f64| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    assert!(same(p(f64::NAN, 0.0), 1.0));
    assert!(same(p(1.0, f64::NAN), 1.0));
    assert!(same(p(-8.0, 1.0 / 3.0), f64::NAN));
    assert!(same(p(-2.0, 3.0), -8.0));
    assert!(same(p(-0.0, -3.0), f64::NEG_INFINITY));
    assert!(same(p(-0.0, 3.0), -0.0));
    assert!(same(p(-0.0, 2.0), 0.0));
    assert!(same(p(-1.0, f64::INFINITY), 1.0));
    assert!(same(p(0.5, f64::NEG_INFINITY), f64::INFINITY));
    assert!(same(p(f64::NEG_INFINITY, -3.0), -0.0));
    // 2^-150 is a tie between 0 and the smallest f32 subnormal: to even, 0.
    let mut d32 = [0.0f32; 2];
    pow_f32(&[2.0, 2.0], &[-150.0, -149.0], &mut d32);
    assert_eq!(d32.map(f32::to_bits), [0, 1], "f32 pow(2, -150), pow(2, -149)");
    let a2 = |y: f64, x: f64| {
        let mut d = [0.0];
        atan2_f64(&[y], &[x], &mut d);
        d[0]
    };
    assert!(same(a2(0.0, -0.0), core::f64::consts::PI));
    assert!(same(a2(-0.0, -0.0), -core::f64::consts::PI));
    assert!(same(a2(-0.0, 0.0), -0.0));
    assert!(same(a2(f64::INFINITY, f64::NEG_INFINITY), 3.0 * core::f64::consts::FRAC_PI_4));
    let mut d = [0.0];
    hypot_f64(&[f64::INFINITY], &[f64::NAN], &mut d);
    assert!(same(d[0], f64::INFINITY));
    exp_f64(&[f64::NEG_INFINITY], &mut d);
    assert!(same(d[0], 0.0));
    log_f64(&[0.0], &mut d);
    assert!(same(d[0], f64::NEG_INFINITY));
    log_f64(&[-1.0], &mut d);
    assert!(d[0].is_nan());
    round_f64(&[-0.5], &mut d);
    assert!(same(d[0], -1.0));
}

/// The f32 reduction's split of pi/2: the chunks are exactly the high part, each short enough for
/// exact products with `|n| < 2^17`, and the parts are successive roundings of pi/2.
#[test]
fn trig_f32_pio2_split() {
    use super::trig::{PIO2_F32, PIO2_F32_HI_CHUNKS};
    let sum: f64 = PIO2_F32_HI_CHUNKS.iter().map(|&c| c as f64).sum();
    assert_eq!(sum, PIO2_F32[0] as f64);
    for c in PIO2_F32_HI_CHUNKS {
        let m = c.to_bits() & 0x7f_ffff;
        // At most 7 significant bits: the low 17 explicit mantissa bits are zero.
        assert_eq!(m & 0x1_ffff, 0, "{c:e} has more than 7 significant bits");
        assert!((131071.0 * c as f64) == (131071.0 * c) as f64);
    }
    // pi/2 to 40 digits, minus the parts, in f64 pieces (each difference is exact).
    let rest = ((core::f64::consts::FRAC_PI_2 - PIO2_F32[0] as f64) - PIO2_F32[1] as f64) - PIO2_F32[2] as f64;
    // pi/2 - FRAC_PI_2 (f64) = 6.123233995736766e-17; the parts leave below 2^-70 in all.
    assert!((rest + 6.123233995736766e-17).abs() < 2f64.powi(-70), "{rest:e}");
    assert_eq!(PIO2_F32[1], (core::f64::consts::FRAC_PI_2 - PIO2_F32[0] as f64) as f32);
}

/// Trig and exp results depend on the input only, not on the other lanes of the slice (a block
/// with a lane beyond the f32 path's range is recomputed with the f64 reduction, but only that
/// lane takes the new value; exp's blocks with every lane within `EXP_NORMAL` take a shorter
/// path, here the lone elements), and a lone element matches the same element in a long slice.
#[test]
fn results_independent_of_neighbours() {
    let mut rng = Rng(seed() ^ 0x7219);
    let n = 3000;
    let xs: Vec<f32> = (0..n)
        .map(|i| match i % 4 {
            0 => Uniform(-10.0, 10.0).draw32(&mut rng),
            1 => Uniform(-1.4e5, 1.4e5).draw32(&mut rng),
            2 => LogSym(1e-3, 1e7).draw32(&mut rng),
            _ if i < n / 2 => Uniform(-100.0, 100.0).draw32(&mut rng),
            _ => Bits.draw32(&mut rng),
        })
        .collect();
    let mut all = vec![0f32; n];
    let mut one = [0f32];
    for f in [UnaryFn::Sin, UnaryFn::Cos, UnaryFn::Tan, UnaryFn::Exp] {
        for nofma in [false, true] {
            let run = |src: &[f32], dst: &mut [f32]| {
                if nofma { unary_f32_nofma(f, src, dst) } else { unary_f32(f, src, dst) }
            };
            run(&xs, &mut all);
            for (i, &x) in xs.iter().enumerate() {
                run(&[x], &mut one);
                assert!(
                    one[0].to_bits() == all[i].to_bits() || (one[0].is_nan() && all[i].is_nan()),
                    "{}_f32 (nofma {nofma}) of {x:e}: {:e} alone, {:e} in the slice (seed {})",
                    f.name(),
                    one[0],
                    all[i],
                    seed()
                );
            }
        }
    }
}

/// Every f32 input, both signs, against glibc's f64 function: prints the max error and the
/// count of results that are not correctly rounded, per path. Takes a few minutes:
/// `cargo test --release --lib exhaustive_trig -- --ignored --nocapture`;
/// `SLUICE_MATH_EXHAUSTIVE_MAX=131072` stops at that |x|.
#[test]
#[ignore]
fn exhaustive_trig_f32() {
    let max: f32 =
        std::env::var("SLUICE_MATH_EXHAUSTIVE_MAX").ok().and_then(|s| s.parse().ok()).unwrap_or(f32::INFINITY);
    let top = max.to_bits() as u64 + 1; // every |x| <= max, and NaNs when max is inf
    let top = if max == f32::INFINITY { 1u64 << 31 } else { top };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let mut outcomes = Vec::new();
    for (f, bound) in [(UnaryFn::Sin, 1.0), (UnaryFn::Cos, 1.0), (UnaryFn::Tan, 3.0)] {
        let reference = reference_unary(f);
        for (path, nofma) in [("dispatch", false), ("nofma", true)] {
            let parts: Vec<(Worst, u64)> = std::thread::scope(|sc| {
                let handles: Vec<_> = (0..threads)
                    .map(|t| {
                        sc.spawn(move || {
                            let (lo, hi) = (top * t / threads, top * (t + 1) / threads);
                            let mut xs = vec![0f32; 4096];
                            let mut got = vec![0f32; 4096];
                            let mut w = Worst::default();
                            let mut inexact = 0u64;
                            let mut b = lo;
                            while b < hi {
                                let m = (hi - b).min(2048) as usize;
                                // Both signs: the even slots positive, the odd ones negative.
                                for i in 0..m {
                                    xs[2 * i] = f32::from_bits((b as u32) + i as u32);
                                    xs[2 * i + 1] = -xs[2 * i];
                                }
                                let m2 = 2 * m;
                                if nofma {
                                    unary_f32_nofma(f, &xs[..m2], &mut got[..m2]);
                                } else {
                                    unary_f32(f, &xs[..m2], &mut got[..m2]);
                                }
                                for i in 0..m2 {
                                    let want = reference(xs[i] as f64);
                                    let e = ulp_err32(got[i], want);
                                    if e > 0.5 {
                                        inexact += 1;
                                    }
                                    w.add(e, (xs[i] as f64, 0.0), got[i] as f64, want);
                                }
                                b += m as u64;
                            }
                            (w, inexact)
                        })
                    })
                    .collect();
                handles.into_iter().map(|h| h.join().unwrap()).collect()
            });
            let mut w = Worst::default();
            let mut inexact = 0;
            for (pw, pi) in parts {
                w.add(pw.err, pw.input, pw.got, pw.want);
                inexact += pi;
            }
            println!(
                "EXHAUSTIVE {}_f32/{path}: |x| <= {max:e}, {} inputs, {inexact} not correctly rounded",
                f.name(),
                2 * top
            );
            outcomes.push((
                Outcome { name: format!("{}_f32/{path}", f.name()), worst: w, samples: 2 * top as usize },
                bound,
            ));
        }
    }
    report(outcomes, 0);
}

// ---------------------------------------------------------------------------------------------
// Throughput report (not a test of anything; run with
// `cargo test --release --lib throughput -- --ignored --nocapture`).

fn std_unary32(f: UnaryFn) -> fn(f32) -> f32 {
    use UnaryFn::*;
    match f {
        Cbrt => f32::cbrt,
        Exp => f32::exp,
        Exp2 => f32::exp2,
        Expm1 => f32::exp_m1,
        Log => f32::ln,
        Log2 => f32::log2,
        Log10 => f32::log10,
        Log1p => f32::ln_1p,
        Sin => f32::sin,
        Cos => f32::cos,
        Tan => f32::tan,
        Asin => f32::asin,
        Acos => f32::acos,
        Atan => f32::atan,
        Sinh => f32::sinh,
        Cosh => f32::cosh,
        Tanh => f32::tanh,
        Asinh => f32::asinh,
        Acosh => f32::acosh,
        Atanh => f32::atanh,
        Erf => |x| glibc::erff(x),
        Erfc => |x| glibc::erfcf(x),
        // No C erfinv: the MPFR reference (slow), for completeness.
        Erfinv => |x| mpfr::erfinv(x as f64) as f32,
        // SAFETY: the sign is written to a local.
        Lgamma => |x| unsafe { glibc::lgammaf_r(x, &mut 0) },
        Tgamma => |x| glibc::tgammaf(x),
        Floor => f32::floor,
        Ceil => f32::ceil,
        Round => f32::round,
        Trunc => f32::trunc,
    }
}

fn std_unary64(f: UnaryFn) -> fn(f64) -> f64 {
    use UnaryFn::*;
    match f {
        Cbrt => f64::cbrt,
        Exp => f64::exp,
        Exp2 => f64::exp2,
        Expm1 => f64::exp_m1,
        Log => f64::ln,
        Log2 => f64::log2,
        Log10 => f64::log10,
        Log1p => f64::ln_1p,
        Sin => f64::sin,
        Cos => f64::cos,
        Tan => f64::tan,
        Asin => f64::asin,
        Acos => f64::acos,
        Atan => f64::atan,
        Sinh => f64::sinh,
        Cosh => f64::cosh,
        Tanh => f64::tanh,
        Asinh => f64::asinh,
        Acosh => f64::acosh,
        Atanh => f64::atanh,
        Erf => |x| glibc::erf(x),
        Erfc => |x| glibc::erfc(x),
        Erfinv => mpfr::erfinv,
        // SAFETY: the sign is written to a local.
        Lgamma => |x| unsafe { glibc::lgamma_r(x, &mut 0) },
        Tgamma => |x| glibc::tgamma(x),
        Floor => f64::floor,
        Ceil => f64::ceil,
        Round => f64::round,
        Trunc => f64::trunc,
    }
}

fn bench_domain(f: UnaryFn) -> (f64, f64) {
    use UnaryFn::*;
    match f {
        Log | Log2 | Log10 | Cbrt => (0.01, 100.0),
        Log1p => (-0.9, 100.0),
        Asin | Acos | Atanh => (-0.99, 0.99),
        Acosh => (1.0, 100.0),
        Erfinv => (-1.0, 1.0),
        Lgamma | Tgamma => (-20.0, 30.0),
        _ => (-10.0, 10.0),
    }
}

/// Median ns per element of `run` over 1024-element slices.
fn time_ns(mut run: impl FnMut()) -> f64 {
    let reps = 200;
    let mut samples = Vec::new();
    for _ in 0..15 {
        let t = std::time::Instant::now();
        for _ in 0..reps {
            run();
        }
        samples.push(t.elapsed().as_nanos() as f64 / (reps * 1024) as f64);
    }
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    samples[samples.len() / 2]
}

#[test]
#[ignore]
fn throughput() {
    use std::hint::black_box;
    let avx2 = is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma");
    let mut rng = Rng(1);
    println!(
        "| function | f32 dispatched | f32 AVX2 | f32 baseline | f32 std | f32 speed-up (AVX2 vs std) \
         | f64 dispatched | f64 AVX2 | f64 baseline | f64 std | f64 speed-up (AVX2 vs std) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let row = |name: &str, t32: [f64; 4], t64: [f64; 4]| {
        println!(
            "| {name} | {:.2} | {:.2} | {:.2} | {:.2} | {:.1}x | {:.2} | {:.2} | {:.2} | {:.2} | {:.1}x |",
            t32[0],
            t32[1],
            t32[2],
            t32[3],
            t32[3] / t32[1],
            t64[0],
            t64[1],
            t64[2],
            t64[3],
            t64[3] / t64[1]
        );
    };
    for &f in UnaryFn::ALL {
        let (lo, hi) = bench_domain(f);
        let x64: Vec<f64> = (0..1024).map(|_| rng.uniform(lo, hi)).collect();
        let x32: Vec<f32> = x64.iter().map(|&v| v as f32).collect();
        let mut d64 = vec![0f64; 1024];
        let mut d32 = vec![0f32; 1024];
        let s32 = std_unary32(f);
        let s64 = std_unary64(f);
        let t32 = [
            time_ns(|| unary_f32(f, black_box(&x32), black_box(&mut d32))),
            if avx2 {
                // SAFETY: AVX2 and FMA are present.
                time_ns(|| unsafe { unary_f32_avx2(f, black_box(&x32), black_box(&mut d32)) })
            } else {
                f64::NAN
            },
            time_ns(|| unary_f32_nofma(f, black_box(&x32), black_box(&mut d32))),
            time_ns(|| {
                for (d, &x) in d32.iter_mut().zip(black_box(&x32)) {
                    *d = s32(x);
                }
                black_box(&d32);
            }),
        ];
        let t64 = [
            time_ns(|| unary_f64(f, black_box(&x64), black_box(&mut d64))),
            if avx2 {
                // SAFETY: as above.
                time_ns(|| unsafe { unary_f64_avx2(f, black_box(&x64), black_box(&mut d64)) })
            } else {
                f64::NAN
            },
            time_ns(|| unary_f64_nofma(f, black_box(&x64), black_box(&mut d64))),
            time_ns(|| {
                for (d, &x) in d64.iter_mut().zip(black_box(&x64)) {
                    *d = s64(x);
                }
                black_box(&d64);
            }),
        ];
        row(f.name(), t32, t64);
    }
    for &f in BinaryFn::ALL {
        let a64: Vec<f64> = (0..1024).map(|_| rng.uniform(0.1, 10.0)).collect();
        let b64: Vec<f64> = (0..1024).map(|_| rng.uniform(-5.0, 5.0)).collect();
        let a32: Vec<f32> = a64.iter().map(|&v| v as f32).collect();
        let b32: Vec<f32> = b64.iter().map(|&v| v as f32).collect();
        let mut d64 = vec![0f64; 1024];
        let mut d32 = vec![0f32; 1024];
        type Pair = (fn(f32, f32) -> f32, fn(f64, f64) -> f64);
        let (s32, s64): Pair = match f {
            BinaryFn::Pow => (f32::powf, f64::powf),
            BinaryFn::Atan2 => (f32::atan2, f64::atan2),
            BinaryFn::Hypot => (f32::hypot, f64::hypot),
        };
        let (a32, b32, a64, b64) = (&a32[..], &b32[..], &a64[..], &b64[..]);
        let t32 = [
            time_ns(|| binary_f32(f, black_box(a32), black_box(b32), black_box(&mut d32))),
            if avx2 {
                // SAFETY: as above.
                time_ns(|| unsafe { binary_f32_avx2(f, black_box(a32), black_box(b32), black_box(&mut d32)) })
            } else {
                f64::NAN
            },
            time_ns(|| binary_f32_nofma(f, black_box(a32), black_box(b32), black_box(&mut d32))),
            time_ns(|| {
                for ((d, &x), &y) in d32.iter_mut().zip(black_box(a32)).zip(black_box(b32)) {
                    *d = s32(x, y);
                }
                black_box(&d32);
            }),
        ];
        let t64 = [
            time_ns(|| binary_f64(f, black_box(a64), black_box(b64), black_box(&mut d64))),
            if avx2 {
                // SAFETY: as above.
                time_ns(|| unsafe { binary_f64_avx2(f, black_box(a64), black_box(b64), black_box(&mut d64)) })
            } else {
                f64::NAN
            },
            time_ns(|| binary_f64_nofma(f, black_box(a64), black_box(b64), black_box(&mut d64))),
            time_ns(|| {
                for ((d, &x), &y) in d64.iter_mut().zip(black_box(a64)).zip(black_box(b64)) {
                    *d = s64(x, y);
                }
                black_box(&d64);
            }),
        ];
        row(f.name(), t32, t64);
    }
}

/// `ln_normal` (Box-Muller's log, without fix-ups for subnormals and special values) on
/// the arguments it takes: f32 within 1 ulp of the correctly rounded log on every `1 - u`
/// of the random streams (multiples of 2^-24 in (0, 1]) and on random normal bit
/// patterns; f64 bit for bit `log` on random normal bit patterns and `1 - u` (multiples of
/// 2^-53), so `log`'s bound holds. Both code paths.
#[test]
fn ln_normal_bounds() {
    let mut r = Rng(seed());
    let n = samples() / 4;
    let units = (1..=1u32 << 24).map(|j| j as f32 * (1.0 / (1u32 << 24) as f32));
    let bits = (0..n).map(|_| f32::from_bits(0x0080_0000 + (r.next() as u32) % (0x7f80_0000 - 0x0080_0000)));
    let x32: Vec<f32> = units.chain(bits).chain([f32::MIN_POSITIVE, f32::MAX]).collect();
    let mut worst = (0.0, 0.0);
    for &x in &x32 {
        let exact = glibc::log(x as f64);
        for got in [ln_normal::<f32, real::Fma>(x), ln_normal::<f32, real::NoFma>(x)] {
            let err = ulp_err32(got, exact);
            if err > worst.0 {
                worst = (err, x);
            }
        }
    }
    assert!(worst.0 <= 1.0, "f32: {} ulp at {:e} (seed {})", worst.0, worst.1, seed());
    let mut x64: Vec<f64> = (0..n)
        .map(|i| match i % 2 {
            0 => f64::from_bits(0x0010_0000_0000_0000 + r.next() % (0x7ff0_0000_0000_0000 - 0x0010_0000_0000_0000)),
            _ => 1.0 - ((r.next() >> 11) as f64) * (1.0 / (1u64 << 53) as f64),
        })
        .collect();
    x64.extend([1.0, f64::MIN_POSITIVE, f64::MAX, (1.0 / (1u64 << 53) as f64), 1.0 - f64::EPSILON / 2.0]);
    let (mut fma, mut nofma) = (vec![0f64; x64.len()], vec![0f64; x64.len()]);
    assert!(is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma"));
    // SAFETY: the processor has AVX2 and FMA (checked).
    unsafe { unary_f64_avx2(UnaryFn::Log, &x64, &mut fma) };
    unary_f64_nofma(UnaryFn::Log, &x64, &mut nofma);
    for ((&x, &w), &w_nofma) in x64.iter().zip(&fma).zip(&nofma) {
        let got = ln_normal::<f64, real::Fma>(x);
        assert_eq!(got.to_bits(), w.to_bits(), "f64 {x:e}: {got:e} vs log {w:e} (seed {})", seed());
        let got = ln_normal::<f64, real::NoFma>(x);
        assert_eq!(got.to_bits(), w_nofma.to_bits(), "f64 {x:e}, no FMA: {got:e} vs {w_nofma:e} (seed {})", seed());
    }
}
