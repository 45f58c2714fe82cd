//! erf.
//!
//! `|x| <= 1.5`: `erf x = (2/sqrt(pi)) x + x^3 P(x^2)` with the leading constant in two parts.
//! Above: `erf x = 1 - exp(h(x))`, where `h` approximates `log(erfc x)` by a polynomial in
//! `x - 3.75`; its error only needs to be small relative to `1 / erfc x`, which the fit's
//! weight `erfc(x)` encodes. Beyond 6 erf rounds to 1. Coefficients: our Sollya fits — `P`
//! minimax relative on `[0, 1.5]` (2^-57.7); `h` weighted Remez, rounded (weighted absolute
//! error 2^-55.0 on `[1.5, 6]`). The alternating Horner sums cost up to ~2 ulp of cancellation
//! near the split. f32 runs the f64 kernel and rounds.

use super::exp_log::{ExpLogConsts, exp_k};
use super::real::{Ops, poly, sel};

pub trait ErfConsts: ExpLogConsts {
    /// erf without the sign handling.
    fn erf_k<O: Ops>(x: Self) -> Self;
}

/// Coefficients of the f64 kernel.
const ERF_SMALL: &[f64] = &[
    -0.3761263890318369,
    0.11283791670952766,
    -0.026866170644803684,
    0.0052239776231364525,
    -0.0008548326926872194,
    0.00012055330353570096,
    -1.4925601367336862e-05,
    1.6461468314157961e-06,
    -1.6359707402948115e-07,
    1.476491012210953e-08,
    -1.2080151792321214e-09,
    8.678677043139675e-11,
    -4.899660994774274e-12,
    1.582196701743592e-13,
];
const ERF_LARGE: &[f64] = &[
    -15.989462741384036,
    -7.750404062012052,
    -0.9703663290220798,
    -0.00443690930283333,
    0.0007104724835494705,
    -0.0001153038843862205,
    1.8540993063509627e-05,
    -2.906347759449889e-06,
    3.4133758236155435e-07,
    -1.635871641604233e-07,
    -6.572761663155644e-08,
    -3.4078109208635796e-08,
    -9.80816620220056e-09,
    -1.7464495970406728e-09,
    -1.5534166013566716e-10,
];
/// 2/sqrt(pi) in two parts.
const C_HI: f64 = core::f64::consts::FRAC_2_SQRT_PI;
const C_LO: f64 = 1.533545961316588e-17;
const SPLIT: f64 = 1.5;
const CENTER: f64 = 3.75;
const CLAMP: f64 = 6.0;

impl ErfConsts for f64 {
    #[inline(always)]
    fn erf_k<O: Ops>(x: f64) -> f64 {
        let ax = x.abs();
        let z = ax * ax;
        let small = O::mla(ax, C_HI, ax * O::mla(z, poly::<f64, O>(z, ERF_SMALL), C_LO));
        let u = sel(ax > CLAMP, CLAMP, ax) - CENTER;
        let large = 1.0 - exp_k::<f64, O>(poly::<f64, O>(u, ERF_LARGE));
        sel(ax > SPLIT, large, small)
    }
}

/// f32 evaluates the f64 kernel: an f32 polynomial on the same ranges loses several ulps to
/// cancellation in the alternating Horner sums.
impl ErfConsts for f32 {
    #[inline(always)]
    fn erf_k<O: Ops>(x: f32) -> f32 {
        f64::erf_k::<O>(x as f64) as f32
    }
}

#[inline(always)]
pub fn erf<T: ErfConsts, O: Ops>(x: T) -> T {
    T::erf_k::<O>(x).copysign(x)
}
