//! erf.
//!
//! `|x| <= 0.75`: `erf x = (2/sqrt(pi)) x + x^3 P(x^2)` with the leading constant in two parts.
//! `0.75 < |x| <= 1.75`: `erf x = erf(c) + t Q(t)`, `t = |x| - c`, `c = 1.25`, with `erf(c)` in
//! two parts: the constant carries the result and the tail `t Q(t)` (at most 0.22 in size) only
//! its low bits, so the alternating Horner sum's rounding errors stay small. (Used up to 1.5, the
//! first form lost up to 2.5 ulp to cancellation between `(2/sqrt(pi)) x` and the series.)
//! Above 1.75: `erf x = 1 - exp(h(x))`, where `h` approximates `log(erfc x)` by a polynomial in
//! `x - 3.75`; its error only needs to be small relative to `1 / erfc x`, which the fit's
//! weight `erfc(x)` encodes. (Its Horner sum cancels too, and `erfc x` scales that error:
//! starting at 1.5 this form measured 1.31 ulp just above it; erfc(1.75) is 2.5 times smaller.)
//! Beyond 6 erf rounds to 1. Coefficients: our Sollya fits — `P` minimax relative on
//! `[0, 0.75]` (2^-60.0); `Q` minimax absolute on `[0.75, 1.75]` (2^-61.1, the results lie in
//! `[0.5, 1)` whose ulp is 2^-53); `h` weighted Remez, rounded (weighted absolute error 2^-55.0
//! on `[1.5, 6]`). f32 runs the f64 kernel and rounds.

use super::exp_log::{ExpLogConsts, exp_k};
use super::real::{Ops, poly, sel};

pub trait ErfConsts: ExpLogConsts {
    /// erf without the sign handling.
    fn erf_k<O: Ops>(x: Self) -> Self;
}

/// Coefficients of the f64 kernel.
const ERF_SMALL: &[f64] = &[
    -0.37612638903183726,
    0.112837916709529,
    -0.02686617064447548,
    0.0052239776158227265,
    -0.000854832620955653,
    0.00012055290244158497,
    -1.4924210244538025e-05,
    1.6430860581931477e-06,
    -1.594131780660842e-07,
    1.1476303684296243e-08,
];
/// `Q`, lowest degree first: `erf(MID_C + t) - erf(MID_C) ~ t Q(t)`.
const ERF_MID: &[f64] = &[
    0.2365211224472908,
    -0.2956514030591134,
    0.16753579506683158,
    -0.006159404230406734,
    -0.04718103640491728,
    0.021301272963851998,
    0.003625982612021219,
    -0.005697678066740767,
    0.0008776361258038181,
    0.000793511622606691,
    -0.00032395617740899394,
    -5.273904817104182e-05,
    5.5824672794546176e-05,
    -3.0096079044129356e-06,
    -6.3965149405499345e-06,
    1.3367598066336608e-06,
    4.812301634476853e-07,
    -1.8294129897365158e-07,
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
/// The middle range's centre, and erf there in two parts.
const MID_C: f64 = 1.25;
const MID_HI: f64 = 0.9229001282564583;
const MID_LO: f64 = -5.51775442986392e-17;
const SMALL_SPLIT: f64 = 0.75;
const SPLIT: f64 = 1.75;
const CENTER: f64 = 3.75;
const CLAMP: f64 = 6.0;

impl ErfConsts for f64 {
    #[inline(always)]
    fn erf_k<O: Ops>(x: f64) -> f64 {
        let ax = x.abs();
        let z = ax * ax;
        let rest = O::mla(z, poly::<f64, O>(z, ERF_SMALL), C_LO);
        let small = if O::FMA {
            O::mla(ax, C_HI, ax * rest)
        } else {
            // Without FMA the rounding of `ax * C_HI` alone costs up to 1 ulp: keep it exact.
            let (p, e) = O::two_prod(ax, C_HI);
            p + O::mla(ax, rest, e)
        };
        let t = ax - MID_C; // exact for ax in [0.75, 1.75]
        let mid = MID_HI + O::mla(t, poly::<f64, O>(t, ERF_MID), MID_LO);
        let u = sel(ax > CLAMP, CLAMP, ax) - CENTER;
        let large = 1.0 - exp_k::<f64, O>(poly::<f64, O>(u, ERF_LARGE));
        sel(ax > SPLIT, large, sel(ax > SMALL_SPLIT, mid, small))
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
