//! sinh, cosh, tanh and their inverses.
//!
//! sinh and cosh share one exp reduction `e^|x| = 2^n (hi + lo)`: they form `t = expm1(|x|)`
//! from it as a double-`T` for the cancellation-prone small range (`sinh = (t + t/(t+1))/2`,
//! `cosh = 1 + t^2 / (2(1+t))` or `(e + 1/e)/2`) and `2^(n-1) (hi + lo)` beyond the point where
//! `e^-|x|` no longer matters, which also avoids the spurious overflow of `e^|x|` just below the
//! sinh/cosh overflow threshold. tanh uses one double-`T` expm1 of `-2|x|` or `2|x|` (fdlibm's
//! split at 1: `-u/(u+2)` or `1 - 2/(u+2)`) and a double-`T` quotient.
//!
//! The inverses use `log1p` of a rewritten argument (fdlibm's range split at 2 and 2^28, and at
//! 1/2 for atanh) so no term cancels.

use super::exp_log::{ExpLogConsts, exp_parts, expm1_dd, expm1_from_parts, log1p_k};
use super::real::{Ops, Real, div_dd, scale, sel, two_sum};

pub trait HyperConsts: ExpLogConsts {
    /// Above this `e^-|x|` is below half an ulp of `e^|x|`.
    const SINH_BIG: Self;
    /// sinh/cosh overflow for `|x|` beyond this (clamped to keep the reduction in range).
    const SINH_CLAMP: Self;
    /// tanh rounds to +-1 above this.
    const TANH_CLAMP: Self;
}

impl HyperConsts for f64 {
    const SINH_BIG: f64 = 22.0;
    const SINH_CLAMP: f64 = 711.0;
    const TANH_CLAMP: f64 = 22.0;
}

impl HyperConsts for f32 {
    const SINH_BIG: f32 = 12.0;
    const SINH_CLAMP: f32 = 90.0;
    const TANH_CLAMP: f32 = 10.0;
}

/// `(large, hi, lo, n)`: `e^|x| = 2^n (hi + lo)` and whether `|x|` is in the `e^|x|/2` range.
#[inline(always)]
fn exp_abs<T: HyperConsts, O: Ops>(ax: T) -> (bool, T, T, T) {
    let axc = sel(ax > T::SINH_CLAMP, T::SINH_CLAMP, ax);
    let (hi, lo, n) = exp_parts::<T, O>(axc);
    (ax > T::SINH_BIG, hi, lo, n)
}

#[inline(always)]
pub fn sinh<T: HyperConsts, O: Ops>(x: T) -> T {
    let ax = x.abs();
    let (big, hi, lo, n) = exp_abs::<T, O>(ax);
    let large = scale(hi + lo, n - T::ONE);
    let (t, tl) = expm1_from_parts(hi, lo, sel(big, T::ZERO, n)); // expm1(|x|) = t + tl
    // sinh = (t + t/(t+1)) / 2: both terms positive, the quotient in double-T.
    let (dh, dl) = two_sum(t, T::ONE);
    let (q, ql) = div_dd::<T, O>(t, tl, dh, dl + tl);
    let small = T::HALF * ((t + q) + (tl + ql));
    sel(big, large, small).copysign(x)
}

#[inline(always)]
pub fn cosh<T: HyperConsts, O: Ops>(x: T) -> T {
    let ax = x.abs();
    let (big, hi, lo, n) = exp_abs::<T, O>(ax);
    let large = scale(hi + lo, n - T::ONE);
    let e = T::exp2i(sel(big, T::ZERO, n)) * (hi + lo);
    let mid = O::mla(T::HALF, e, T::HALF / e);
    // n == 0 (|x| < ln2/2): 1 + t^2 / (2(1 + t)) with t = expm1(|x|).
    let (t, tl) = expm1_from_parts(hi, lo, T::ZERO);
    let t = t + tl;
    let tiny = T::ONE + (t * t) / (T::TWO * (T::ONE + t));
    sel(big, large, sel(n == T::ZERO, tiny, mid))
}

/// fdlibm's split: `|x| < 1`: `-u / (u + 2)` with `u = expm1(-2|x|)`; otherwise
/// `1 - 2 / (u + 2)` with `u = expm1(2|x|)`, where the error of `u` is damped.
#[inline(always)]
pub fn tanh<T: HyperConsts, O: Ops>(x: T) -> T {
    let ax = x.abs();
    let small = ax < T::ONE;
    let axc = sel(ax > T::TANH_CLAMP, T::TANH_CLAMP, ax);
    let (u, ul) = expm1_dd::<T, O>(sel(small, -T::TWO, T::TWO) * axc);
    // u + 2 and the quotient in double-T, so the rounding of u does not show.
    let (dh, dl) = two_sum(u, T::TWO);
    let (q, ql) = div_dd::<T, O>(sel(small, -u, T::TWO), sel(small, -ul, T::ZERO), dh, dl + ul);
    sel(small, q + ql, (T::ONE - q) - ql).copysign(x)
}

/// Beyond this `sqrt(x^2 + 1) = |x|` and the inverse functions are `log(2|x|)`.
#[inline(always)]
fn huge<T: Real>() -> T {
    T::from_f64(268435456.0) // 2^28
}

#[inline(always)]
pub fn asinh<T: HyperConsts, O: Ops>(x: T) -> T {
    let ax = x.abs();
    let x2 = ax * ax;
    let is_huge = ax > huge::<T>();
    // |x| > 2: log(2|x| + 1/(sqrt(x^2+1) + |x|)), passed to log1p as that minus one.
    let mid = (T::TWO * ax + T::ONE / ((x2 + T::ONE).sqrt() + ax)) - T::ONE;
    // |x| <= 2: log1p(|x| + x^2 / (1 + sqrt(1 + x^2))).
    let small = ax + x2 / (T::ONE + (T::ONE + x2).sqrt());
    let arg = sel(is_huge, ax - T::ONE, sel(ax > T::TWO, mid, small));
    let r = log1p_k::<T, O>(arg) + sel(is_huge, T::LN2, T::ZERO);
    let r = sel(ax == T::INF, T::INF, r);
    sel(x.is_nan(), x, r.copysign(x))
}

#[inline(always)]
pub fn acosh<T: HyperConsts, O: Ops>(x: T) -> T {
    let is_huge = x > huge::<T>();
    let t = x - T::ONE;
    // x > 2: log(2x - 1/(x + sqrt(x^2 - 1))).
    let mid = (T::TWO * x - T::ONE / (x + (x * x - T::ONE).sqrt())) - T::ONE;
    // 1 <= x <= 2: log1p(t + sqrt(2t + t^2)).
    let small = t + O::mla(t, t, T::TWO * t).sqrt();
    let arg = sel(is_huge, t, sel(x > T::TWO, mid, small));
    let r = log1p_k::<T, O>(arg) + sel(is_huge, T::LN2, T::ZERO);
    let r = sel(x == T::INF, T::INF, r);
    let r = sel(x < T::ONE, T::NAN, r);
    sel(x.is_nan(), x, r)
}

#[inline(always)]
pub fn atanh<T: HyperConsts, O: Ops>(x: T) -> T {
    let ax = x.abs();
    let two_ax = T::TWO * ax;
    let q = two_ax / (T::ONE - ax);
    // |x| < 1/2: 2|x| + 2x^2/(1-|x|) keeps the leading term exact.
    let arg = sel(ax < T::HALF, O::mla(ax, q, two_ax), q);
    let r = T::HALF * log1p_k::<T, O>(arg);
    let r = sel(ax == T::ONE, T::INF, r);
    let r = sel(ax > T::ONE, T::NAN, r);
    sel(x.is_nan(), x, r.copysign(x))
}
