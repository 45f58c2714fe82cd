//! The error function family: erf, erfc, erfinv.
//!
//! # erf
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
//!
//! # erfc
//!
//! `|x| < 0.5`: `1 - erf x` from erf's small-range polynomial, with `1 - (2/sqrt(pi)) x` exact
//! (a two-product and a two-sum), so only the small `x^3` part rounds (the result is at least
//! 0.47). `|x| >= 0.5`: `erfc |x| = e^(-x^2) erfcx(|x|)` (Cody's and fdlibm's split, here with
//! polynomials): `x^2` as an exact double-double feeds the exponential's reduction, whose
//! `2^n (h + l)` is multiplied by `erfcx` (a double-double from the fits below) and rounded
//! once, then scaled, so a subnormal result rounds once too. `erfcx(a) = erfc(a) e^(a^2)`:
//! polynomials in `a - 0.75` on `[0.5, 1]`, in `a - 1.5` on `[1, 2]`, and `erfcx(a) = u G(u)`
//! with `u = 1/a` (a double-double) on `[2, 4]` (`G` in `u - 0.375`) and on `[4, 27.3]` (`G`
//! in `u^2`); beyond 27.3 erfc rounds to 0. Negative `x`: `2 - erfc |x|`. Fits (relative
//! error, constant term a double-double): 2^-60.4, 2^-59.9, 2^-62.2, 2^-59.6.
//!
//! # erfinv
//!
//! Giles' variable (M. Giles, "Approximating the erfinv function", GPU Computing Gems, 2011):
//! `erfinv(x) = x P(w)` with `w = -log(1 - x^2)`, here with `1 - x^2` an exact double-double
//! (so `w` is accurate near `|x| = 1`, where `1 - |x|` is as small as 2^-53) and its
//! logarithm in double-double. Four pieces, our fits of `erfinv(x) / x` with relative error
//! 2^-59.4, 2^-60.3, 2^-59.8, 2^-58.7: in `w` on `[0, 3.125]` and `[3.125, 6.25]`, in
//! `sqrt(w)` on `[2.5, 4]` and `[4, 6.1]` (the last reached only in f64). Accurate enough
//! that no Newton step follows (one would be limited by erf's own error, about an ulp). The
//! product `x P` is rounded once. ±1 give ±inf, `|x| > 1` NaN.
//!
//! f32 runs the f64 kernels and rounds.

use super::exp_log::{ExpLogConsts, exp_finish, exp_k, exp_reduce, log_dd};
use super::real::{Ops, PolyDd, mul_dd, poly, scale, sel, two_sum};

pub trait ErfConsts: ExpLogConsts {
    /// erf without the sign handling.
    fn erf_k<O: Ops>(x: Self) -> Self;
    fn erfc_k<O: Ops>(x: Self) -> Self;
    fn erfinv_k<O: Ops>(x: Self) -> Self;
}

/// Coefficients of the f64 kernel.
pub(crate) const ERF_SMALL: &[f64] = &[
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
pub(crate) const C_HI: f64 = core::f64::consts::FRAC_2_SQRT_PI;
pub(crate) const C_LO: f64 = 1.533545961316588e-17;
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

    #[inline(always)]
    fn erfc_k<O: Ops>(x: f64) -> f64 {
        // |x| < 0.5: 1 - erf(x) = (1 - C_HI x) - (C_LO x + x^3 P(x^2)).
        let rest = O::mla(x * x, poly::<f64, O>(x * x, ERF_SMALL), C_LO);
        let (p, pe) = O::two_prod(C_HI, x);
        let (s, se) = two_sum(1.0, -p);
        let small = s + (se - O::mla(x, rest, pe));
        // |x| >= 0.5: 2^n (h + l) erfcx(|x|), rounded once, then scaled.
        let a = x.abs();
        let a = sel(a > ERFC_ZERO, ERFC_ZERO, a);
        let (fh, fl) = erfcx_dd::<O>(a);
        let (sh, sl) = O::two_prod(a, a);
        let (rh, rl, n) = exp_reduce::<f64, O>(-sh);
        let (eh, el) = exp_finish::<f64, O>(rh, rl - sl);
        let (mh, ml) = mul_dd::<f64, O>(eh, el, fh, fl);
        let tail = scale(mh + ml, n);
        sel(x.abs() < ERFC_SPLIT, small, sel(x < 0.0, 2.0 - tail, tail))
    }

    #[inline(always)]
    fn erfinv_k<O: Ops>(x: f64) -> f64 {
        // w = -log(1 - x^2) and r = sqrt(w) as double-doubles, 1 - x^2 one too (exact near
        // |x| = 1): rounding w or r would cost up to an ulp of the result each.
        let (q, qe) = O::two_prod(x, x);
        let (h, e) = two_sum(1.0, -q);
        let (lh, ll) = log_dd::<f64, O>(h);
        let (w, wl) = two_sum(-lh, -(ll + (e - qe) / h));
        let r = w.sqrt();
        let (r2, r2e) = O::two_prod(r, r);
        let rl = (((w - r2) - r2e) + wl) / (2.0 * r);
        // The piece's variable, t + d = w - c or r - c (t rounded, d the rest).
        let far = w >= 6.25;
        let c = sel(far, sel(r < 4.0, 3.25, 5.05), sel(w < 3.125, 1.5625, 4.6875));
        let (t, te) = two_sum(sel(far, r, w), -c);
        let d = te + sel(far, rl, wl);
        let near = sel(w < 3.125, ERFINV_A.eval::<O>(t), ERFINV_B.eval::<O>(t));
        let near_slope = sel(w < 3.125, ERFINV_A.q[0], ERFINV_B.q[0]);
        let tail = sel(r < 4.0, ERFINV_C.eval::<O>(t), ERFINV_D.eval::<O>(t));
        let tail_slope = sel(r < 4.0, ERFINV_C.q[0], ERFINV_D.q[0]);
        let (ph, pl) = sel(far, tail, near);
        // P(t + d) = P(t) + d P'(t), P' within a percent of its linear coefficient.
        let pl = O::mla(d, sel(far, tail_slope, near_slope), pl);
        // Below 2^-960 the product's rounding error underflows (to an ulp of a subnormal
        // result without fma): the product is taken on x scaled up, rounded once coming down.
        let tiny = x.abs() < f64::from_bits((1023 - 960) << 52);
        let xs = sel(tiny, x * f64::from_bits((1023 + 128) << 52), x);
        let (yh, ye) = O::two_prod(xs, ph);
        let y = yh + O::mla(xs, pl, ye);
        let y = sel(tiny, y * f64::from_bits((1023 - 128) << 52), y);
        let a = x.abs();
        let y = sel(x == 0.0, x, y); // -0 stays -0
        sel(a < 1.0, y, sel(a == 1.0, f64::INFINITY.copysign(x), f64::NAN))
    }
}

/// Below this `|x|`, erfc is `1 - erf x`.
const ERFC_SPLIT: f64 = 0.5;
/// erfc rounds to 0 beyond this (erfc(27.3) is about 4e-326); larger arguments are clamped to it.
const ERFC_ZERO: f64 = 27.3;

/// `erfcx(a) = erfc(a) e^(a^2)` for `a` in `[0.5, ERFC_ZERO]`, as a double-double.
#[inline(always)]
fn erfcx_dd<O: Ops>(a: f64) -> (f64, f64) {
    let near = sel(a < 1.0, ERFCX_A.eval::<O>(a - 0.75), ERFCX_B.eval::<O>(a - 1.5));
    // u = 1/a as uh + ul (the residual of the division is exact).
    let uh = 1.0 / a;
    let (p, pe) = O::two_prod(uh, a);
    let ul = ((1.0 - p) - pe) * uh;
    let (gh, gl) = sel(a < 4.0, ERFCX_C.eval::<O>(uh - 0.375), ERFCX_D.eval::<O>(uh * uh));
    let far = mul_dd::<f64, O>(uh, ul, gh, gl);
    sel(a < 2.0, near, far)
}

/// f32 evaluates the f64 kernel: an f32 polynomial on the same ranges loses several ulps to
/// cancellation in the alternating Horner sums.
impl ErfConsts for f32 {
    #[inline(always)]
    fn erf_k<O: Ops>(x: f32) -> f32 {
        f64::erf_k::<O>(x as f64) as f32
    }
    #[inline(always)]
    fn erfc_k<O: Ops>(x: f32) -> f32 {
        f64::erfc_k::<O>(x as f64) as f32
    }
    #[inline(always)]
    fn erfinv_k<O: Ops>(x: f32) -> f32 {
        f64::erfinv_k::<O>(x as f64) as f32
    }
}

#[inline(always)]
pub fn erf<T: ErfConsts, O: Ops>(x: T) -> T {
    T::erf_k::<O>(x).copysign(x)
}

#[inline(always)]
pub fn erfc<T: ErfConsts, O: Ops>(x: T) -> T {
    T::erfc_k::<O>(x)
}

#[inline(always)]
pub fn erfinv<T: ErfConsts, O: Ops>(x: T) -> T {
    T::erfinv_k::<O>(x)
}

/// erfcx on `[0.5, 1]` in `a - 0.75`.
pub(crate) const ERFCX_A: PolyDd = PolyDd {
    hi: 0.5069376502931449,
    lo: -5.335769806434635e-17,
    q: &[
        -0.3679726916557954,
        0.2309581315512983,
        -0.12983606199487485,
        0.06679054252756438,
        -0.03189726204053217,
        0.014289198666428554,
        -0.006051532242174483,
        0.0024376373334371935,
        -0.0009385139697942263,
        0.0003467514890897374,
        -0.00012331798783819117,
        4.235857320032e-05,
        -1.4447627165924416e-05,
        4.665990792586696e-06,
    ],
};
/// erfcx on `[1, 2]` in `a - 1.5`.
pub(crate) const ERFCX_B: PolyDd = PolyDd {
    hi: 0.3215854164543175,
    lo: 1.7037457107312567e-17,
    q: &[
        -0.16362291773256007,
        0.07615103985547739,
        -0.032930905299561636,
        0.013377340953068344,
        -0.005145957548029142,
        0.0018861348769614555,
        -0.0006619300654694181,
        0.00022330994578325107,
        -7.265893341215793e-05,
        2.2864295465365787e-05,
        -6.974913020535252e-06,
        2.067085467319471e-06,
        -5.964071914863509e-07,
        1.6709430463984357e-07,
        -4.5219412264800355e-08,
        1.3291326877564135e-08,
        -4.040925982376643e-09,
    ],
};
/// `G(u) = erfcx(1/u) / u` on `u` in `[1/4, 1/2]`, in `u - 0.375`.
pub(crate) const ERFCX_C: PolyDd = PolyDd {
    hi: 0.530860349316975,
    lo: 3.1931508299440826e-17,
    q: &[
        -0.1515855295741559,
        -0.09203998771159028,
        0.1772680341260176,
        -0.11628192691558685,
        -0.03780807551095512,
        0.1962423333729483,
        -0.2556844979847124,
        0.13611577109116102,
        0.1702849438584425,
        -0.5550754568387154,
        0.7810476672708886,
        -0.5353882042722059,
        -0.42632886954091526,
        2.066003470807217,
        -3.6759832555199674,
        3.159607150789017,
    ],
};
/// `G` on `u` in `[1/27.5, 1/4]`, in `u^2`.
pub(crate) const ERFCX_D: PolyDd = PolyDd {
    hi: 0.5641895835477563,
    lo: -2.087857157267954e-17,
    q: &[
        -0.28209479177383007,
        0.4231421876295663,
        -1.0578554585267204,
        3.702491972254089,
        -16.660934625360508,
        91.61020918293424,
        -593.8970012292534,
        4383.122472748889,
        -34914.04956574918,
        275565.79409603984,
        -1926773.0129162888,
        10501164.900492892,
        -37918710.68277298,
        66201606.745415345,
    ],
};
/// `erfinv(x) / x` for `w = -log(1 - x^2)` in `[0, 3.125]`, in `w - 1.5625`.
pub(crate) const ERFINV_A: PolyDd = PolyDd {
    hi: 1.267714421908913,
    lo: 9.443431179050993e-17,
    q: &[
        0.2504480717147713,
        0.0004916729753290509,
        -0.0020470271702959343,
        0.00018463162540291448,
        2.126963432550222e-05,
        -5.388525306729473e-06,
        -7.298338525113858e-09,
        1.1329273704473474e-07,
        -8.428460308484142e-09,
        -1.8063332462627909e-09,
        3.172801955566295e-10,
        1.6079325526503196e-11,
        -8.173012648975114e-12,
        2.4318642638105104e-13,
        1.629555609064106e-13,
        -1.67646982484525e-14,
        -2.1991770960464395e-15,
        4.193575869934668e-16,
    ],
};
/// The same for `w` in `[3.125, 6.25]`, in `w - 4.6875`.
pub(crate) const ERFINV_B: PolyDd = PolyDd {
    hi: 2.012317835967474,
    lo: -1.2378748835984756e-16,
    q: &[
        0.21827425002091766,
        -0.007352930274518392,
        5.3887368757768984e-05,
        7.052763111395213e-05,
        -1.2297162666245578e-05,
        9.566246488126262e-07,
        3.156773662266962e-08,
        -1.901805369513527e-08,
        2.3944287227396508e-09,
        -7.276155926323317e-11,
        -2.5231914769462886e-11,
        4.856046729720837e-12,
        -3.3984708311701045e-13,
        -2.419684591349029e-14,
        8.909429910458887e-15,
        -7.777379039786788e-16,
        -2.904493807334801e-17,
    ],
};
/// The same for `sqrt(w)` in `[2.5, 4]`, in `sqrt(w) - 3.25`.
pub(crate) const ERFINV_C: PolyDd = PolyDd {
    hi: 3.0838856104922208,
    lo: -8.777477935127791e-17,
    q: &[
        1.0052589676941652,
        0.005370914553555211,
        -0.0037512085082078354,
        0.002491442097946851,
        -0.001688275536042991,
        0.0009532893418068007,
        -0.000355037803876443,
        2.4031510250160792e-05,
        6.828702499842417e-05,
        -4.7320663334857096e-05,
        1.2465551216368745e-05,
        2.932508456467273e-06,
        -3.987573096679925e-06,
        1.4817728857155878e-06,
        -2.3390121896362414e-08,
        -2.457629610900823e-07,
        1.2570159231970713e-07,
        -2.0692838332346436e-08,
        -1.0709430389483725e-08,
        7.601303173508658e-09,
        -1.5409147509048347e-09,
    ],
};
/// The same for `sqrt(w)` in `[4, 6.1]`, in `sqrt(w) - 5.05` (f64 only: 1 - 2^-53 has `sqrt(w)` 6.0).
pub(crate) const ERFINV_D: PolyDd = PolyDd {
    hi: 4.90042105144364,
    lo: 2.1756165486168752e-16,
    q: &[
        1.0102850175977711,
        -0.00016985809149403546,
        -0.00020031200662818998,
        7.124031543780992e-05,
        -1.8374536957657493e-05,
        4.193853610909778e-06,
        -9.070801374185031e-07,
        2.016197205708242e-07,
        -5.495498025306493e-08,
        2.182010101853925e-08,
        -1.115457050048441e-08,
        5.808560788956343e-09,
        -2.7046920575798405e-09,
        1.0459378832482074e-09,
        -3.2595710668873085e-10,
        7.860946667770378e-11,
        1.353652679594603e-12,
        -1.5671835070274055e-11,
        5.253139081908558e-12,
    ],
};
