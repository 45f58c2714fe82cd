//! The gamma function: lgamma (`log |Γ(x)|`) and tgamma (`Γ(x)`).
//!
//! Both are built on one kernel, `log |Γ(x)|` as a double-double, accurate to about 2^-60
//! of its size (or absolutely, where it is small but not near a zero), which lgamma rounds
//! and tgamma exponentiates (the exponential's reduction takes the low part, so `Γ` near
//! its overflow at 171.6 keeps its accuracy).
//!
//! `x > -0.5`: the base is `log Γ(2 + t) = t B(t)` for `t` in `[-0.5, 1]` (a fit with the
//! constant term `1 - γ` a double-double, so `t B(t)` is accurate relative to its size near
//! `t = 0`, the zero at 2), and
//! * `|x| < 0.5`: `log |Γ(x)| = x B(x) - log(|x| (1 + x))` (`Γ(x) = Γ(2 + x) / (x (1 + x))`),
//! * `[0.5, 1.5)`: `t = x - 1` (exact), `t B(t) - log x`: near the zero at 1 the leading
//!   terms `(1 - γ) t` and `log x ~ t` cancel to `-γ t`, exactly, in double-double,
//! * `[1.5, 3)`: `t = x - 2` (exact), `t B(t)`,
//! * `[3, 8)`: `Γ(x) = (x - 1) ... (x - m) Γ(x - m)` down to `x - m` in `[2, 3)`: the factors
//!   are exact and their product a double-double,
//! * from 8: Stirling, `(x - 1/2)(log x - 1) + (log(2 pi) - 1)/2 + S(x)` with the double-double
//!   logarithm and `S(x) = 1/(12x) - ...` a fit in `1/x^2`.
//!
//! Every logarithm of these is one `log_dd` of a double-double argument.
//!
//! `x <= -0.5`: the reflection `Γ(x) Γ(-x) = -pi / (x sin(pi x))`, with `x = n + r`
//! (`n` the nearest integer, `r` exact, `|r| <= 1/2`) and `sin(pi x) = ±sin(pi r)`:
//! `log |Γ(x)| = -(log |x r| + log(sin(pi r) / (pi r)) + log Γ(-x))`, the first a
//! double-double logarithm of the exact product `|x r|`, the second a fit in `r^2` (no
//! constant term), the third the kernel above. Γ's sign is negative where `floor(x)` is odd.
//!
//! Accuracy: see `mod.rs`. Near the zeros of lgamma at negative arguments (two in each
//! interval `(-k-1, -k)`, `k >= 2`) the result is a difference of terms of size 1 or more,
//! so there it is accurate absolutely (about 2^-52 of the terms), not relatively.
//!
//! Special values (C99 F.9.5.3, F.9.5.4): lgamma(±0) = lgamma(±inf) = lgamma(negative
//! integer) = +inf; tgamma(±0) = ±inf, tgamma(+inf) = +inf, tgamma(-inf) = tgamma(negative
//! integer) = NaN; both overflow to +inf (lgamma beyond 2.55e305, tgamma beyond 171.62 in
//! f64, 35.04 in f32) and tgamma underflows to ±0 below about -184 (f64).
//!
//! Fits (`fits.sollya`, relative error): `B` 2^-59.2, the sine term 2^-64.6, Stirling's
//! `S` 2^-62.6. f32 runs the f64 kernel and rounds.

use super::driver::{BLOCK, any};
use super::exp_log::{exp_finish, exp_reduce, log_dd};
use super::real::{Ops, PolyDd, Real, fast_two_sum, mul_dd, scale, sel, two_sum};

pub trait GammaConsts: Real {
    fn lgamma_k<O: Ops>(x: Self, negative: bool) -> Self;
    fn tgamma_k<O: Ops>(x: Self, negative: bool) -> Self;
}

/// Which function a slice loop computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Lgamma,
    Tgamma,
}

/// Below this the reflection is used.
const REFLECT: f64 = -0.5;
/// Stirling's formula from here.
const STIRLING: f64 = 8.0;
/// `(log(2 pi) - 1) / 2` as a double-double.
const HALF_LN_2PI_M_HALF: (f64, f64) = (0.4189385332046727, 1.6728209650585413e-17);

/// `log |Γ(x)|` for finite `x > REFLECT`, not 0, as a double-double.
#[inline(always)]
fn lgamma_main<O: Ops>(x: f64) -> (f64, f64) {
    let t = sel(x < 0.5, x, sel(x < 1.5, x - 1.0, sel(x < 3.0, x - 2.0, x - O::trunc(x))));
    let (bh, bl) = LGAMMA_B.eval::<O>(t);
    let (gh, gl) = mul_dd::<f64, O>(t, 0.0, bh, bl);
    // The argument of the logarithm, a double-double: |x| (1 + x) below 0.5, x below 1.5 and
    // from STIRLING, else the product of the factors x - j >= 2 (1 below 3).
    let ax = x.abs();
    let (sq, sqe) = O::two_prod(x, ax);
    let (near, near_e) = fast_two_sum(ax, sq);
    let mut prod = (1.0, 0.0);
    for j in 1..=5 {
        let f = x - j as f64;
        prod = mul_dd::<f64, O>(prod.0, prod.1, sel(f >= 2.0, f, 1.0), 0.0);
    }
    let whole = (0.5..1.5).contains(&x) | (x >= STIRLING);
    let (ph, pl) = sel(x < 0.5, (near, near_e + sqe), sel(whole, (x, 0.0), prod));
    let (lh, ll) = log_dd::<f64, O>(ph);
    let ll = ll + pl / ph;
    let sign = sel(x < 1.5, -1.0, 1.0);
    let (h, e) = two_sum(gh, sign * lh);
    let small = (h, e + (gl + sign * ll));
    // Stirling: (x - 1/2)(log x - 1) + (log(2 pi) - 1)/2 + u S(u^2), u = 1/x.
    let xm = x - 0.5;
    // (Dekker's product, without FMA, overflows splitting factors near the top of the range,
    // where lgamma needs no low part.)
    let huge = x > 1e300;
    let (ah, al) = O::two_prod(sel(huge, 1.0, xm), lh - 1.0);
    let (ah, al) = sel(huge, (xm * (lh - 1.0), 0.0), (ah, al));
    let u = 1.0 / x;
    let (sh, sl) = LGAMMA_STIRLING.eval::<O>(u * u);
    let (h, e) = two_sum(ah, HALF_LN_2PI_M_HALF.0);
    let big = (h, e + (O::mla(xm, ll, al) + O::mla(u, sh + sl, HALF_LN_2PI_M_HALF.1)));
    sel(x >= STIRLING, big, small)
}

/// `log |Γ(x)|` for finite `x <= REFLECT` with `r = x - round(x)` not 0, as a double-double,
/// given `log Γ(-x) = gh + gl`.
#[inline(always)]
fn lgamma_reflected<O: Ops>(x: f64, r: f64, (gh, gl): (f64, f64)) -> (f64, f64) {
    let (p, pe) = O::two_prod(-x, r.abs());
    let (lh, ll) = log_dd::<f64, O>(p);
    let z = r * r;
    let (sh, sl) = LGAMMA_SIN.eval::<O>(z);
    let (h, e) = two_sum(lh, gh);
    (-h, -(e + (ll + pe / p) + O::mla(z, sh, z * sl) + gl))
}

/// `x - n` for the integer `n` nearest `x` (either at a tie), exact; 0 for every
/// `|x| >= 2^52`, where all floats are integers.
#[inline(always)]
fn frac_nearest<O: Ops>(x: f64) -> f64 {
    let f = x - O::trunc(x);
    sel(f > 0.5, f - 1.0, sel(f < -0.5, f + 1.0, f))
}

/// `log |Γ(x)|` as a double-double for finite `x`, not 0 and not a negative integer.
/// `negative`: whether arguments below `REFLECT` can occur (the reflection is skipped if not).
#[inline(always)]
fn lgamma_dd<O: Ops>(x: f64, negative: bool) -> (f64, f64) {
    let main = lgamma_main::<O>(sel(x > REFLECT, x, -x));
    if !negative {
        return main;
    }
    sel(x > REFLECT, main, lgamma_reflected::<O>(x, frac_nearest::<O>(x), main))
}

impl GammaConsts for f64 {
    #[inline(always)]
    fn lgamma_k<O: Ops>(x: f64, negative: bool) -> f64 {
        let (h, l) = lgamma_dd::<O>(x, negative);
        let pole = (x == 0.0) | (x.abs() == f64::INFINITY) | ((x <= REFLECT) & (frac_nearest::<O>(x) == 0.0));
        // Beyond 2.55e305 the high part overflows and the low part is NaN.
        let r = sel(h == f64::INFINITY, h, h + l);
        sel(pole, f64::INFINITY, r)
    }

    #[inline(always)]
    fn tgamma_k<O: Ops>(x: f64, negative: bool) -> f64 {
        // Normalised: the kernel's low part collects whole terms (Stirling's series, the
        // sine term), and the exponential's reduction needs it below an ulp of the high part.
        let (h, l) = lgamma_dd::<O>(x, negative);
        let (h, l) = two_sum(h, l);
        // Clamped where Γ overflows or underflows (the low part too: it is up to a few ulps
        // of a huge high part): the exponential needs a reduced argument in range.
        let (h, l) = sel((h > 710.0) | h.is_nan(), (710.0, 0.0), sel(h < -746.0, (-800.0, 0.0), (h, l)));
        let (rh, rl, n) = exp_reduce::<f64, O>(h);
        let (eh, el) = exp_finish::<f64, O>(rh, rl + l);
        let g = scale(eh + el, n);
        // Negative where floor(x) is odd (x < 0).
        let whole = O::trunc(x);
        let half = 0.5 * sel(x < whole, whole - 1.0, whole);
        let odd = O::trunc(half) != half;
        let g = sel((x < 0.0) & odd, -g, g);
        let g = sel(x == 0.0, f64::INFINITY.copysign(x), g);
        let invalid = (x == f64::NEG_INFINITY) | ((x < 0.0) & (frac_nearest::<O>(x) == 0.0)) | x.is_nan();
        sel(invalid, f64::NAN, sel(x == f64::INFINITY, x, g))
    }
}

/// f32 evaluates the f64 kernel and rounds.
impl GammaConsts for f32 {
    #[inline(always)]
    fn lgamma_k<O: Ops>(x: f32, negative: bool) -> f32 {
        f64::lgamma_k::<O>(x as f64, negative) as f32
    }
    #[inline(always)]
    fn tgamma_k<O: Ops>(x: f32, negative: bool) -> f32 {
        f64::tgamma_k::<O>(x as f64, negative) as f32
    }
}

#[inline(always)]
pub fn lgamma<T: GammaConsts, O: Ops>(x: T) -> T {
    T::lgamma_k::<O>(x, true)
}

#[inline(always)]
pub fn tgamma<T: GammaConsts, O: Ops>(x: T) -> T {
    T::tgamma_k::<O>(x, true)
}

/// The slice loop: blocks without an argument below `REFLECT` skip the reflection (about
/// half the work).
#[inline(always)]
pub fn run<T: GammaConsts, O: Ops>(kind: Kind, src: &[T], dst: &mut [T]) {
    let reflect = T::from_f64(REFLECT);
    for (s, d) in src.chunks(BLOCK).zip(dst.chunks_mut(BLOCK)) {
        let negative = any(s, |x| x <= reflect);
        // Separate `for` loops: a closure choosing the kernel might not be inlined into the
        // clone, and neither was `for_each`'s fold (it then ran without the clone's target
        // features, one lane at a time, calling the C library's `fma`).
        match (kind, negative) {
            (Kind::Lgamma, false) => {
                for (d, &x) in d.iter_mut().zip(s) {
                    *d = T::lgamma_k::<O>(x, false)
                }
            }
            (Kind::Lgamma, true) => {
                for (d, &x) in d.iter_mut().zip(s) {
                    *d = T::lgamma_k::<O>(x, true)
                }
            }
            (Kind::Tgamma, false) => {
                for (d, &x) in d.iter_mut().zip(s) {
                    *d = T::tgamma_k::<O>(x, false)
                }
            }
            (Kind::Tgamma, true) => {
                for (d, &x) in d.iter_mut().zip(s) {
                    *d = T::tgamma_k::<O>(x, true)
                }
            }
        }
    }
}

/// `log Γ(2 + t) = t B(t)` on `[-0.5, 1]`.
pub(crate) const LGAMMA_B: PolyDd = PolyDd {
    hi: 0.42278433509846713,
    lo: 4.9429389781972585e-18,
    q: &[
        0.3224670334241132,
        -0.06735230105319812,
        0.02058080842778612,
        -0.007385551028672567,
        0.002890510330684273,
        -0.001192753911728758,
        0.0005096695257865441,
        -0.00022315475844203106,
        9.945750181933501e-05,
        -4.492623247122046e-05,
        2.050728325093783e-05,
        -9.439541595148375e-06,
        4.374585354951864e-06,
        -2.0389013352870365e-06,
        9.558230195854471e-07,
        -4.503097043104948e-07,
        2.1117233478735244e-07,
        -9.823108723962901e-08,
        4.7918897046097e-08,
        -2.5455721757339014e-08,
        1.2265984012161564e-08,
        -3.959211344138909e-09,
        5.856151516598615e-10,
    ],
};
/// `log(sin(pi r) / (pi r)) = z L(z)`, `z = r^2` in `[0, 1/4]`: `L`.
pub(crate) const LGAMMA_SIN: PolyDd = PolyDd {
    hi: -1.6449340668482264,
    lo: -3.037383488073456e-17,
    q: &[
        -0.5411616168555692,
        -0.33911435399478407,
        -0.25101933905399526,
        -0.20019891470188883,
        -0.16670769497757285,
        -0.14286550476821538,
        -0.1250093439452961,
        -0.11101050202295118,
        -0.10099215710622292,
        -0.08382065697895665,
        -0.12003381499008062,
        0.058278915908947085,
        -0.41199588687533434,
        0.47346741802887277,
        -0.5024610506236847,
    ],
};
/// Stirling's correction `S(x) = u C(u^2)`, `u = 1/x <= 1/8`: `C`.
pub(crate) const LGAMMA_STIRLING: PolyDd = PolyDd {
    hi: 0.08333333333333333,
    lo: 4.613973546746206e-18,
    q: &[
        -0.0027777777777776786,
        0.0007936507935156237,
        -0.0005952380249213903,
        0.0008417327990944326,
        -0.0019149914232754505,
        0.006209322185447968,
        -0.020877463490259696,
    ],
};
