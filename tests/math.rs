//! Math accuracy: every inexact math function, in f32 and f64, on the executor in use,
//! against MPFR's correctly rounded result (computed here, at 256 bits), over its whole
//! domain: fresh random points each run (random bit patterns, so every exponent and the
//! subnormals, plus the ranges where a function is delicate: near its zeros and poles,
//! near overflow and underflow, huge trigonometric arguments) and fixed special values,
//! whose results C99 Annex F defines (MPFR follows it: signed zeros, infinities, NaNs,
//! `pow`'s and `atan2`'s special cases). The bounds are `common::accuracy::ulp_bound`.
//!
//! `SLUICE_TEST_SEED` replays a run; `SLUICE_MATH_POINTS` sets how many random points
//! each function gets per type (default 2^14).

mod common;

use common::accuracy::{Inexact, bound_holds, ulp_bound};
use common::*;
use rand::Rng;
use rand::rngs::StdRng;
use rug::Float;
use rug::ops::Pow;
use sluice::*;

/// The reference's precision in bits.
const PREC: u32 = 256;

fn points() -> usize {
    std::env::var("SLUICE_MATH_POINTS").ok().and_then(|s| s.parse().ok()).unwrap_or(1 << 14)
}

// ---------------------------------------------------------------------------------------
// Inputs

/// Where a function's random arguments come from.
#[derive(Clone, Copy, Debug)]
enum Dist {
    /// Random bit patterns of the type (finite ones): every exponent equally often.
    Bits,
    /// `Bits`, made positive.
    BitsPos,
    /// Subnormals of the type, either sign.
    Subnormal,
    Uniform(f64, f64),
    /// Log-uniform magnitude in [lo, hi], either sign.
    LogSym(f64, f64),
    /// Log-uniform in [lo, hi].
    LogPos(f64, f64),
    /// `c` plus or minus a log-uniform distance in [lo, hi].
    Around(f64, f64, f64),
    /// `k step + Uniform(-w, w)` with an integer `|k| <= kmax`: near the multiples of `step`.
    Multiples(f64, f64, f64),
}

fn is_f32(dt: sl_dtype) -> bool {
    dt == SL_F32
}

/// `v` rounded to the type.
fn to_type(v: f64, dt: sl_dtype) -> f64 {
    if is_f32(dt) { v as f32 as f64 } else { v }
}

fn sign(rng: &mut StdRng) -> f64 {
    if rng.random_bool(0.5) { 1.0 } else { -1.0 }
}

fn log_uniform(rng: &mut StdRng, lo: f64, hi: f64) -> f64 {
    rng.random_range(lo.ln()..hi.ln()).exp().clamp(lo, hi)
}

impl Dist {
    fn draw(self, rng: &mut StdRng, dt: sl_dtype) -> f64 {
        let v = match self {
            Dist::Bits => loop {
                let v = if is_f32(dt) { f32::from_bits(rng.random()) as f64 } else { f64::from_bits(rng.random()) };
                if v.is_finite() {
                    break v;
                }
            },
            Dist::BitsPos => Dist::Bits.draw(rng, dt).abs(),
            Dist::Subnormal => {
                let s = sign(rng);
                if is_f32(dt) {
                    s * f32::from_bits(rng.random_range(1..0x80_0000)) as f64
                } else {
                    s * f64::from_bits(rng.random_range(1..1u64 << 52))
                }
            }
            Dist::Uniform(lo, hi) => rng.random_range(lo..hi),
            Dist::LogSym(lo, hi) => sign(rng) * log_uniform(rng, lo, hi),
            Dist::LogPos(lo, hi) => log_uniform(rng, lo, hi),
            Dist::Around(c, lo, hi) => c + sign(rng) * log_uniform(rng, lo, hi),
            Dist::Multiples(step, kmax, w) => rng.random_range(-kmax..kmax).round() * step + rng.random_range(-w..w),
        };
        to_type(v, dt)
    }
}

/// Where a binary function's random argument pairs come from.
#[derive(Clone, Copy, Debug)]
enum Pair {
    Indep(Dist, Dist),
    /// pow: `x` from the distribution, `y` such that `y ln x` is uniform in [lo, hi].
    PowRange(Dist, f64, f64),
    /// pow: `x` from the distribution, `y` an integer with `|y| <= m`.
    IntExp(Dist, f64),
    /// `x` from the distribution, `y = x r` with `|r|` log-uniform in [lo, hi].
    Ratio(Dist, f64, f64),
}

impl Pair {
    fn draw(self, rng: &mut StdRng, dt: sl_dtype) -> (f64, f64) {
        match self {
            Pair::Indep(a, b) => (a.draw(rng, dt), b.draw(rng, dt)),
            Pair::PowRange(a, lo, hi) => {
                let x = a.draw(rng, dt);
                let l = x.ln();
                let y = if l == 0.0 { rng.random_range(-1e6..1e6) } else { rng.random_range(lo..hi) / l };
                (x, to_type(y, dt))
            }
            Pair::IntExp(a, m) => (a.draw(rng, dt), rng.random_range(-m..m).round()),
            Pair::Ratio(a, lo, hi) => {
                let x = a.draw(rng, dt);
                (x, to_type(x * sign(rng) * log_uniform(rng, lo, hi), dt))
            }
        }
    }
}

/// Arguments with results Annex F defines or that are known to be hard: zeros,
/// infinities, NaN, the ends of each type's range, subnormals, overflow and underflow
/// thresholds, huge trigonometric arguments (the last the double closest to a multiple
/// of pi/2).
fn special_values() -> Vec<f64> {
    let mut v = vec![
        0.0,
        f64::INFINITY,
        f64::NAN,
        1.0,
        0.5,
        2.0,
        3.0,
        10.0,
        0.75,
        core::f64::consts::FRAC_PI_2,
        core::f64::consts::PI,
        1e-300,
        1e300,
        1e-40,
        1e-20,
        1e22,
        1e30,
        8388608.0,
        8388607.5,
        4503599627370495.5,
        4503599627370496.0,
        88.72,
        89.5,
        103.9,
        709.437,
        709.78,
        710.5,
        745.2,
        744.44,
        0.9999999,
        1.0000001,
        6381956970095103.0 * 2f64.powi(797),
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
        f32::MIN_POSITIVE as f64,
        1e-45,
        f32::MAX as f64,
    ];
    v.extend(v.clone().iter().map(|x| -x));
    v
}

fn binary_specials() -> Vec<(f64, f64)> {
    let vals = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        3.0,
        -3.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        1.0 / 3.0,
        -8.0,
        1e-310,
        -1e-310,
        1e300,
        -1e300,
        f64::MAX,
        f64::MIN_POSITIVE,
        0.75,
        -0.75,
        1e10,
        -1e10,
        1e-10,
    ];
    let mut out: Vec<(f64, f64)> = vals.iter().flat_map(|&a| vals.iter().map(move |&b| (a, b))).collect();
    // Results at the ends of each type's range (round to even at the last tie).
    out.extend([(2.0, -149.0), (2.0, -150.0), (2.0, -1074.0), (2.0, -1075.0), (2.0, 127.0), (2.0, 1023.0)]);
    out
}

// ---------------------------------------------------------------------------------------
// The reference and the error

fn big(x: f64) -> Float {
    Float::with_val(PREC, x)
}

fn exact_unary(op: sl_unary_op, x: f64) -> Float {
    let x = big(x);
    match op {
        SL_SQRT => x.sqrt(),
        SL_CBRT => x.cbrt(),
        SL_EXP => x.exp(),
        SL_EXP2 => x.exp2(),
        SL_EXPM1 => x.exp_m1(),
        SL_LOG => x.ln(),
        SL_LOG2 => x.log2(),
        SL_LOG10 => x.log10(),
        SL_LOG1P => x.ln_1p(),
        SL_SIN => x.sin(),
        SL_COS => x.cos(),
        SL_TAN => x.tan(),
        SL_ASIN => x.asin(),
        SL_ACOS => x.acos(),
        SL_ATAN => x.atan(),
        SL_SINH => x.sinh(),
        SL_COSH => x.cosh(),
        SL_TANH => x.tanh(),
        SL_ASINH => x.asinh(),
        SL_ACOSH => x.acosh(),
        SL_ATANH => x.atanh(),
        SL_ERF => x.erf(),
        SL_ERFC => x.erfc(),
        SL_ERFINV => erfinv_exact(x),
        SL_LGAMMA if x.is_infinite() => Float::with_val(PREC, f64::INFINITY),
        SL_LGAMMA => x.ln_abs_gamma().0,
        SL_TGAMMA => x.gamma(),
        _ => unreachable!("unary op {op} is not in the accuracy table"),
    }
}

/// The inverse error function (MPFR has none): Newton steps on erfc (erf below 1/2, where
/// 1 - |x| is inexact) at full precision from the f64 reference's value.
fn erfinv_exact(x: Float) -> Float {
    let a = Float::with_val(PREC, x.abs_ref());
    if a.is_nan() || a > 1 {
        return Float::with_val(PREC, f64::NAN);
    }
    if a == 1 || a == 0 {
        return if a == 0 { x } else { Float::with_val(PREC, f64::INFINITY.copysign(x.to_f64())) };
    }
    let upper = a >= 0.5;
    let q = Float::with_val(PREC, 1 - &a);
    // Decreasing in y, zero at the answer.
    let g = |y: &Float| -> Float {
        if upper {
            Float::with_val(PREC, y.erfc_ref()) - &q
        } else {
            Float::with_val(PREC, &a - Float::with_val(PREC, y.erf_ref()))
        }
    };
    let two_over_sqrt_pi = Float::with_val(PREC, Float::with_val(PREC, rug::float::Constant::Pi).sqrt().recip()) * 2u32;
    let mut y = big(common::reference::erfinv(a.to_f64()));
    for _ in 0..4 {
        let slope = Float::with_val(PREC, -Float::with_val(PREC, y.square_ref())).exp() * &two_over_sqrt_pi;
        y += g(&y) / slope;
    }
    if x.is_sign_negative() { -y } else { y }
}

fn exact_binary(op: sl_binary_op, x: f64, y: f64) -> Float {
    let (x, y) = (big(x), big(y));
    match op {
        SL_REM => x % &y,
        SL_POW => x.pow(&y),
        SL_ATAN2 => x.atan2(&y),
        SL_HYPOT => x.hypot(&y),
        _ => unreachable!("binary op {op} is not in the accuracy table"),
    }
}

/// The error of `got` in ulps of the exact value (of type `dt`: the ulp of its binade,
/// or of the subnormals). Where the exact value is zero, NaN or rounds to an infinity,
/// `got` must be that value (the sign of a zero included): 0 if it is, infinite if not.
/// So must it at a special point whose exact result is a double (`pow(2, -150)` in f32
/// rounds, as a tie, to 0).
fn ulp_error(got: f64, exact: &Float, dt: sl_dtype, special: bool) -> f64 {
    if exact.is_nan() || got.is_nan() {
        return if exact.is_nan() && got.is_nan() { 0.0 } else { f64::INFINITY };
    }
    let rounded = if is_f32(dt) { exact.to_f32() as f64 } else { exact.to_f64() };
    let representable = *exact == exact.to_f64();
    if exact.is_zero() || rounded.is_infinite() || got.is_infinite() || (special && representable) {
        let same = got == rounded && got.is_sign_negative() == rounded.is_sign_negative();
        return if same { 0.0 } else { f64::INFINITY };
    }
    let (digits, min_exp) = if is_f32(dt) { (24, -149) } else { (53, -1074) };
    // exact = m 2^e with 0.5 <= |m| < 1.
    let e = exact.get_exp().expect("finite, non-zero");
    let ulp_exp = (e - digits).max(min_exp);
    let diff = Float::with_val(PREC, got) - exact;
    (diff.abs() >> ulp_exp).to_f64()
}

// ---------------------------------------------------------------------------------------
// Running and judging

fn array(dt: sl_dtype, xs: &[f64]) -> Arr {
    let v = xs.iter().map(|&x| if is_f32(dt) { V::F32(x as f32) } else { V::F64(x) }).collect();
    Arr::new(dt, &[xs.len()], v)
}

/// The largest error seen for one function and type, and where.
#[derive(Default)]
struct Worst {
    err: f64,
    at: Vec<f64>,
    got: f64,
    want: f64,
}

/// Judges each result (the first `specials` at special points), prints the worst error,
/// and returns a failure line if it exceeds the bound.
fn judge(
    name: &str,
    dt: sl_dtype,
    bound: f64,
    (args, specials): (&[Vec<f64>], usize),
    got: &[f64],
    exact: impl Fn(usize) -> Float,
) -> Option<String> {
    let mut w = Worst::default();
    for (i, &g) in got.iter().enumerate() {
        let e = exact(i);
        let err = ulp_error(g, &e, dt, i < specials);
        if err > w.err {
            let want = if is_f32(dt) { e.to_f32() as f64 } else { e.to_f64() };
            w = Worst { err, at: args.iter().map(|a| a[i]).collect(), got: g, want };
        }
    }
    let ty = if is_f32(dt) { "f32" } else { "f64" };
    println!(
        "ACCURACY {name}_{ty}: max {:.3} ulp (bound {bound}) over {} points; worst at {:?}: got {:e}, want {:e}",
        w.err,
        got.len(),
        w.at,
        w.got,
        w.want
    );
    (w.err > bound)
        .then(|| format!("{name}_{ty}: {} ulp > {bound} at {:?}: got {:e}, want {:e}", w.err, w.at, w.got, w.want))
}

fn finish(name: &str, failures: Vec<String>, seed_hint: &str) {
    assert!(failures.is_empty(), "{name} ({seed_hint}):\n{}", failures.join("\n"));
}

fn check_unary(name: &str, op: sl_unary_op, dists: &[Dist]) {
    let mut rng = rng(&format!("math {name}"));
    let bound = ulp_bound(Inexact::Unary(op));
    let per = points().div_ceil(dists.len());
    let mut failures = Vec::new();
    for dt in [SL_F32, SL_F64] {
        if !bound_holds(dt) {
            eprintln!("{name}: f32 not checked (this device's f32 functions are GLSL's builtins)");
            continue;
        }
        // lgamma below -0.5 is judged by `lgamma_negative`.
        let special = |x: &f64| !(op == SL_LGAMMA && *x <= -0.5);
        let mut xs: Vec<f64> = special_values().iter().filter(|x| special(x)).map(|&x| to_type(x, dt)).collect();
        let specials = xs.len();
        for d in dists {
            xs.extend((0..per).map(|_| d.draw(&mut rng, dt)));
        }
        let h = array(dt, &xs).upload();
        let mut out = 0;
        ok(sl_unary(op, h, &mut out));
        let got: Vec<f64> = download(out).v.iter().map(|v| v.f()).collect();
        release(&[h, out]);
        let args = [xs];
        failures.extend(judge(name, dt, bound, (&args, specials), &got, |i| exact_unary(op, args[0][i])));
    }
    finish(name, failures, "SLUICE_TEST_SEED above replays it");
}

fn check_binary(name: &str, op: sl_binary_op, pairs: &[Pair]) {
    let mut rng = rng(&format!("math {name}"));
    let bound = ulp_bound(Inexact::Binary(op));
    let per = points().div_ceil(pairs.len());
    let mut failures = Vec::new();
    for dt in [SL_F32, SL_F64] {
        if !bound_holds(dt) {
            eprintln!("{name}: f32 not checked (this device's f32 functions are GLSL's builtins)");
            continue;
        }
        let mut xy: Vec<(f64, f64)> =
            binary_specials().iter().map(|&(x, y)| (to_type(x, dt), to_type(y, dt))).collect();
        let specials = xy.len();
        for p in pairs {
            xy.extend((0..per).map(|_| p.draw(&mut rng, dt)));
        }
        let (xs, ys): (Vec<f64>, Vec<f64>) = xy.into_iter().unzip();
        let (a, b) = (array(dt, &xs).upload(), array(dt, &ys).upload());
        let mut out = 0;
        ok(sl_binary(op, a, b, &mut out));
        let got: Vec<f64> = download(out).v.iter().map(|v| v.f()).collect();
        release(&[a, b, out]);
        let args = [xs, ys];
        failures.extend(judge(name, dt, bound, (&args, specials), &got, |i| exact_binary(op, args[0][i], args[1][i])));
    }
    finish(name, failures, "SLUICE_TEST_SEED above replays it");
}

// ---------------------------------------------------------------------------------------
// The functions and where their arguments come from

use Dist::*;

const PIO2: f64 = core::f64::consts::FRAC_PI_2;

const LOG: [Dist; 6] = [Bits, BitsPos, Subnormal, Uniform(0.7, 1.5), Around(1.0, 1e-17, 0.1), LogPos(1e-320, 1e-300)];

const TRIG: [Dist; 10] = [
    Bits,
    Subnormal,
    Uniform(-10.0, 10.0),
    Multiples(PIO2, 100.0, 1e-3),
    Multiples(PIO2, 1e6, 1e-2),
    LogSym(1e-10, 5e6),
    Uniform(-2e6, 2e6),
    LogSym(1e6, 1e30),
    LogSym(1e30, 1e300),
    Around(8388608.0, 1e-2, 1e6),
];

const ASIN: [Dist; 7] = [
    Bits,
    Subnormal,
    Uniform(-1.0, 1.0),
    Around(1.0, 1e-17, 0.5),
    Around(-1.0, 1e-17, 0.5),
    Around(0.5, 1e-17, 0.1),
    LogSym(1e-30, 1.0),
];

const SINH: [Dist; 8] = [
    Bits,
    Subnormal,
    Uniform(-1.0, 1.0),
    Uniform(-30.0, 30.0),
    Uniform(-720.0, 720.0),
    Around(710.475, 1e-6, 1.0),
    Around(89.4, 1e-6, 1.0),
    LogSym(1e-30, 1.0),
];

macro_rules! unary_tests {
    ($($name:ident: $op:expr, $dists:expr;)*) => {$(
        #[test]
        fn $name() {
            check_unary(stringify!($name), $op, &$dists);
        }
    )*};
}

unary_tests! {
    sqrt: SL_SQRT, [Bits, BitsPos, Subnormal, Uniform(0.0, 4.0)];
    cbrt: SL_CBRT, [Bits, Subnormal, Uniform(-10.0, 10.0)];
    exp: SL_EXP, [Bits, Subnormal, Uniform(-750.0, 750.0), Uniform(-110.0, 95.0), Uniform(-1.0, 1.0),
        LogSym(1e-30, 1.0), Around(709.78, 1e-6, 1.0), Around(-745.0, 1e-6, 1.0), Around(88.7, 1e-6, 1.0),
        Around(-103.5, 1e-6, 1.0)];
    exp2: SL_EXP2, [Bits, Subnormal, Uniform(-1100.0, 1100.0), Uniform(-160.0, 140.0), Uniform(-1.0, 1.0),
        LogSym(1e-30, 1.0), Around(1024.0, 1e-6, 1.0), Around(-1074.0, 1e-6, 2.0), Around(128.0, 1e-6, 1.0),
        Around(-149.0, 1e-6, 2.0)];
    expm1: SL_EXPM1, [Bits, Subnormal, Uniform(-50.0, 720.0), Uniform(-20.0, 95.0), Uniform(-1.0, 1.0),
        LogSym(1e-30, 1.0), Around(709.6, 1e-3, 0.5), Around(88.7, 1e-6, 1.0)];
    log: SL_LOG, LOG;
    log2: SL_LOG2, LOG;
    log10: SL_LOG10, LOG;
    log1p: SL_LOG1P, [Bits, Subnormal, Uniform(-1.0, 1.0), Around(-1.0, 1e-17, 0.5), LogSym(1e-30, 1.0),
        LogPos(1.0, 1e30)];
    sin: SL_SIN, TRIG;
    cos: SL_COS, TRIG;
    tan: SL_TAN, TRIG;
    asin: SL_ASIN, ASIN;
    acos: SL_ACOS, ASIN;
    atan: SL_ATAN, [Bits, Subnormal, Uniform(-5.0, 5.0), LogSym(1e-30, 1e30)];
    sinh: SL_SINH, SINH;
    cosh: SL_COSH, SINH;
    tanh: SL_TANH, [Bits, Subnormal, Uniform(-25.0, 25.0), Uniform(-1.0, 1.0), LogSym(1e-30, 1.0)];
    asinh: SL_ASINH, [Bits, Subnormal, Uniform(-3.0, 3.0), LogSym(1e-30, 1e30), LogSym(1e30, 1e308)];
    acosh: SL_ACOSH, [Bits, Around(1.0, 1e-17, 1.0), Uniform(1.0, 5.0), LogPos(1.0, 1e300)];
    atanh: SL_ATANH, [Bits, Subnormal, Uniform(-1.0, 1.0), Around(1.0, 1e-17, 0.5), Around(-1.0, 1e-17, 0.5),
        LogSym(1e-30, 1.0)];
    // Uniform(0.5, 2.0): both range splits of the CPU kernel (0.75, 1.75) and the old worst region.
    erf: SL_ERF, [Bits, Subnormal, Uniform(-7.0, 7.0), Uniform(-2.0, 2.0), LogSym(1e-30, 1.0), Uniform(0.5, 2.0)];
    // The splits (0.5, 1, 2, 4), erfc's tail down to its underflow (near 10.05 in f32, 27.2
    // in f64), negative arguments (2 - erfc).
    erfc: SL_ERFC, [Bits, Subnormal, Uniform(-6.0, 30.0), Uniform(0.4, 2.1), Uniform(1.9, 4.1), Uniform(4.0, 11.0),
        Around(27.2, 1e-6, 0.3), Around(10.05, 1e-6, 0.2), LogSym(1e-30, 1.0)];
    // Near ±1 (down to 1 - |x| = 2^-53), near 0, at the piece boundaries (w = 3.125, 6.25, 16).
    erfinv: SL_ERFINV, [Uniform(-1.0, 1.0), Around(1.0, 1e-17, 0.1), Around(-1.0, 1e-17, 0.1), Subnormal,
        LogSym(1e-30, 1.0), Around(0.97803, 1e-9, 1e-3), Around(0.99807, 1e-9, 1e-3), Around(0.9999999, 1e-12, 1e-7),
        Bits];
    // Near the zeros at 1 and 2, tiny and huge arguments and lgamma's overflow (2.55e305),
    // the splits (0.5, 1.5, 3, 8). Negative arguments: `lgamma_negative`.
    lgamma: SL_LGAMMA, [BitsPos, Subnormal, Uniform(0.0, 10.0), Around(1.0, 1e-17, 0.5), Around(2.0, 1e-17, 0.5),
        LogPos(1e-300, 1e-5), LogPos(10.0, 1e306), Around(2.5563e305, 1e290, 1e303), Uniform(-0.5, 0.0)];
    // Overflow (171.62 in f64, 35.04 in f32), underflow (near -184 in f64), near the poles
    // and the integers, tiny arguments.
    tgamma: SL_TGAMMA, [Bits, Subnormal, Uniform(-30.0, 180.0), Uniform(0.0, 10.0), Around(171.62, 1e-6, 0.1),
        Around(35.04, 1e-6, 0.1), Uniform(-190.0, -0.5), Multiples(1.0, 30.0, 1e-3), LogSym(1e-30, 1e-3)];
}

#[test]
fn rem() {
    let pairs = [
        Pair::Indep(Bits, Bits),
        Pair::Indep(Uniform(-100.0, 100.0), Uniform(-10.0, 10.0)),
        Pair::Ratio(LogSym(1e-300, 1e300), 1e-30, 1.0),
        Pair::Indep(LogSym(1e-10, 1e300), Subnormal),
        Pair::Indep(Bits, Subnormal),
        Pair::Indep(Subnormal, Subnormal),
    ];
    check_binary("rem", SL_REM, &pairs);
}

#[test]
fn pow() {
    let pairs = [
        Pair::Indep(Bits, Bits),
        Pair::Indep(BitsPos, Uniform(-10.0, 10.0)),
        Pair::Indep(Subnormal, Uniform(-2.0, 2.0)),
        Pair::PowRange(BitsPos, -760.0, 720.0),
        Pair::PowRange(BitsPos, -110.0, 95.0),
        Pair::PowRange(Around(1.0, 1e-17, 0.5), -760.0, 720.0),
        Pair::IntExp(Uniform(-10.0, 10.0), 40.0),
        Pair::IntExp(LogSym(1e-3, 1e3), 300.0),
    ];
    check_binary("pow", SL_POW, &pairs);
}

#[test]
fn atan2() {
    let pairs = [
        Pair::Indep(Bits, Bits),
        Pair::Indep(Uniform(-2.0, 2.0), Uniform(-2.0, 2.0)),
        Pair::Indep(Subnormal, Subnormal),
        Pair::Ratio(LogSym(1e-300, 1e300), 1e-5, 1e5),
        Pair::Ratio(LogSym(1e-30, 1e30), 0.3, 3.0),
    ];
    check_binary("atan2", SL_ATAN2, &pairs);
}

#[test]
fn hypot() {
    let pairs = [
        Pair::Indep(Bits, Bits),
        Pair::Indep(Uniform(-2.0, 2.0), Uniform(-2.0, 2.0)),
        Pair::Indep(Subnormal, Subnormal),
        Pair::Ratio(LogSym(1e-320, 1e308), 1e-9, 1.0),
        Pair::Ratio(LogSym(1e-45, 1e38), 1e-5, 1.0),
    ];
    check_binary("hypot", SL_HYPOT, &pairs);
}

/// lgamma at negative arguments. It has two zeros in each interval (-k-1, -k), k >= 2 (the
/// first at -2.457 and -2.748, then ever closer to the integers), where the reflection's
/// terms, of size `1 + lgamma(1 - x)`, cancel: there the error is bounded absolutely, by
/// `LGAMMA_ABS` units of 2^-53 of that size (README, "Math accuracy"), and elsewhere by the
/// ulp bound. Prints the worst of each.
#[test]
fn lgamma_negative() {
    let mut rng = rng("math lgamma_negative");
    let zeros = [-2.4570247382208006, -2.7476826467274127, -3.14358088834998, -3.955294284858598];
    let mut dists = vec![Uniform(-20.0, -0.5), Uniform(-200.0, -0.5), LogPos(0.5, 1e15), Multiples(1.0, 25.0, 0.06)];
    dists.extend(zeros.iter().map(|&z| Around(z, 1e-17, 1e-3)));
    let bound = ulp_bound(Inexact::Unary(SL_LGAMMA));
    let per = points().div_ceil(dists.len());
    let mut failures = Vec::new();
    for dt in [SL_F32, SL_F64] {
        if !bound_holds(dt) {
            continue;
        }
        let xs: Vec<f64> = dists
            .iter()
            .flat_map(|d| (0..per).map(|_| -d.draw(&mut rng, dt).abs()).collect::<Vec<_>>())
            .chain(zeros.iter().map(|&z| to_type(z, dt)))
            .collect();
        let h = array(dt, &xs).upload();
        let mut out = 0;
        ok(sl_unary(SL_LGAMMA, h, &mut out));
        let got: Vec<f64> = download(out).v.iter().map(|v| v.f()).collect();
        release(&[h, out]);
        let (mut worst_ulp, mut worst_abs) = ((0.0, 0.0), (0.0, 0.0));
        for (&x, &g) in xs.iter().zip(&got) {
            let exact = exact_unary(SL_LGAMMA, x);
            let ulps = ulp_error(g, &exact, dt, false);
            let size = 1.0 + exact_unary(SL_LGAMMA, 1.0 - x).to_f64().abs();
            let units = (Float::with_val(PREC, g) - &exact).abs().to_f64() / (size * 2f64.powi(-53));
            if ulps > bound && units > worst_abs.0 {
                worst_abs = (units, x);
            } else if ulps <= bound && ulps > worst_ulp.0 {
                worst_ulp = (ulps, x);
            }
        }
        let ty = if is_f32(dt) { "f32" } else { "f64" };
        println!(
            "ACCURACY lgamma_negative_{ty}: max {:.3} ulp where within the ulp bound (at {:e}); elsewhere max {:.3} \
             units of 2^-53 (1 + lgamma(1 - x)) (at {:e}), bound {LGAMMA_ABS}",
            worst_ulp.0, worst_ulp.1, worst_abs.0, worst_abs.1
        );
        if worst_abs.0 > LGAMMA_ABS {
            failures
                .push(format!("lgamma_{ty}: {} units of 2^-53 (1 + lgamma(1 - x)) at {:e}", worst_abs.0, worst_abs.1));
        }
    }
    finish("lgamma_negative", failures, "SLUICE_TEST_SEED above replays it");
}

/// lgamma's absolute bound near its negative zeros, in units of 2^-53 (1 + lgamma(1 - x)).
const LGAMMA_ABS: f64 = 4.0;
