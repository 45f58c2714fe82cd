//! asin, acos, atan, atan2.
//!
//! asin/acos follow fdlibm's scheme: for `|x| <= 1/2` `asin x = x + x^3 A(x^2)`; above,
//! `asin x = pi/2 - 2 asin(sqrt((1-|x|)/2))` with the square root split into an exact high part
//! plus a correction so the subtraction from pi/2 loses nothing. atan reduces with
//! `tan(3pi/8)` and `tan(pi/8)` breakpoints (Cephes' scheme: `-1/x` and `(x-1)/(x+1)`) to
//! `|t| <= tan(pi/8)` where `atan t = t + t^3 T(t^2)`; the quotient `t` is computed with its
//! rounding error `tl` (exact numerator/denominator via two-sums, remainder via two-product) so
//! the cancellation against the `pi/4` offset does not expose it. atan2 builds `min/max` (or
//! `(min-max)/(min+max)`) directly from `|y|, |x|` in one division and adds the quadrant offset
//! `j * pi/4` from a two-part constant.
//!
//! Coefficients: our Sollya minimax fits (relative error): `A` on `[0, 1/2]` (2^-59.9 f64,
//! 2^-31.7 f32), `T` on `[0, tan(pi/8)]` (2^-59.4 / 2^-30.4).

use super::real::{Ops, Real, div_dd, poly, sel, two_sum};

pub trait InvTrigConsts: Real {
    /// `asin s = s + s^3 A(s^2)` on `[0, 1/2]`.
    const ASIN: &'static [Self];
    /// `atan t = t + t^3 T(t^2)` on `[0, tan(pi/8)]`.
    const ATAN: &'static [Self];
    const PIO2_HI: Self;
    const PIO2_LO: Self;
    const PIO4_HI: Self;
    const PIO4_LO: Self;
    const PI_HI: Self;
    /// pi/4 with a high part short enough that `j * Q_HI` is exact for `j <= 4`.
    const Q_HI: Self;
    const Q_LO: Self;
    const TAN_PI8: Self;
    const TAN_3PI8: Self;
    /// atan2 rescales `max(|x|, |y|)` outside `[TINY, HUGE]` by `2^-60` / `2^60` so the sums
    /// and error-free products cannot overflow or lose accuracy to underflow.
    const HUGE: Self;
    const TINY: Self;
}

impl InvTrigConsts for f64 {
    const ASIN: &'static [f64] = &[
        0.1666666666666676,
        0.07499999999970867,
        0.04464285717455937,
        0.030381942709939623,
        0.022372214933962416,
        0.017351612884603268,
        0.013980810971389734,
        0.011398984890791528,
        0.010779871868343047,
        0.0037077635317693423,
        0.02170432555336977,
        -0.02099485893090953,
        0.0326261117857431,
    ];
    const ATAN: &'static [f64] = &[
        -0.333333333333332,
        0.1999999999995369,
        -0.14285714280202147,
        0.11111110783640755,
        -0.09090897762034506,
        0.07692060292843655,
        -0.06663105046707299,
        0.05847897710337758,
        -0.05039348496787303,
        0.03806583360922101,
        -0.017908783426176453,
    ];
    const PIO2_HI: f64 = core::f64::consts::FRAC_PI_2;
    const PIO2_LO: f64 = 6.123233995736766e-17;
    const PIO4_HI: f64 = core::f64::consts::FRAC_PI_4;
    const PIO4_LO: f64 = 3.061616997868383e-17;
    const PI_HI: f64 = core::f64::consts::PI;
    const Q_HI: f64 = core::f64::consts::FRAC_PI_4; // 50 significant bits
    const Q_LO: f64 = 3.061616997868383e-17;
    const TAN_PI8: f64 = 0.41421356237309503;
    const TAN_3PI8: f64 = 2.414213562373095;
    const HUGE: f64 = 2.4544070618760814e299; // 2^994
    const TINY: f64 = 2.0844024005876096e-290; // 2^-962
}

impl InvTrigConsts for f32 {
    const ASIN: &'static [f32] = &[0.1666666, 0.075005166, 0.044514995, 0.031821825, 0.014391219, 0.03757677];
    const ATAN: &'static [f32] = &[-0.33333316, 0.1999853, -0.1424443, 0.10599487, -0.060908936];
    const PIO2_HI: f32 = core::f32::consts::FRAC_PI_2;
    const PIO2_LO: f32 = -4.371139e-08;
    const PIO4_HI: f32 = core::f32::consts::FRAC_PI_4;
    const PIO4_LO: f32 = -2.1855694e-08;
    const PI_HI: f32 = core::f32::consts::PI;
    #[allow(clippy::approx_constant)] // deliberately short: 21 bits
    const Q_HI: f32 = 0.785398;
    const Q_LO: f32 = 1.5695824e-07;
    const TAN_PI8: f32 = 0.41421357;
    const TAN_3PI8: f32 = 2.4142137;
    const HUGE: f32 = 3.1691265e29; // 2^98
    const TINY: f32 = 1.3552527e-20; // 2^-66
}

/// Shared asin/acos reduction: `(big, z, s, r)` with `asin s = s + s r`, `r = z A(z)`,
/// `s = |x|` (small) or `sqrt((1-|x|)/2)` (big, `|x| > 1/2`).
#[inline(always)]
fn asin_parts<T: InvTrigConsts, O: Ops>(ax: T) -> (bool, T, T, T) {
    let big = ax > T::HALF;
    let z = sel(big, (T::ONE - ax) * T::HALF, ax * ax);
    let s = sel(big, z.sqrt(), ax);
    let r = z * poly::<T, O>(z, T::ASIN);
    (big, z, s, r)
}

/// `s = df + c` exactly enough: `df` has a short mantissa so `df^2` is exact.
#[inline(always)]
fn sqrt_split<T: Real>(z: T, s: T) -> (T, T) {
    let df = s.hi_half();
    let den = s + df;
    let c = sel(den > T::ZERO, (z - df * df) / den, T::ZERO);
    (df, c)
}

#[inline(always)]
pub fn asin<T: InvTrigConsts, O: Ops>(x: T) -> T {
    let ax = x.abs();
    let (big, z, s, r) = asin_parts::<T, O>(ax);
    let small = O::mla(s, r, s);
    // pi/2 - 2(s + s r), s = df + c.
    let (df, c) = sqrt_split(z, s);
    let p = O::mla(T::TWO * s, r, -(T::PIO2_LO - T::TWO * c));
    let q = T::PIO4_HI - T::TWO * df;
    let big_r = T::PIO4_HI - (p - q);
    sel(big, big_r, small).copysign(x)
}

#[inline(always)]
pub fn acos<T: InvTrigConsts, O: Ops>(x: T) -> T {
    let ax = x.abs();
    let (big, z, s, r) = asin_parts::<T, O>(ax);
    // |x| <= 1/2: pi/2 - asin x.
    let small = T::PIO2_HI - (x - O::mla(-x, r, T::PIO2_LO));
    // x > 1/2: 2 asin s, with s = df + c.
    let (df, c) = sqrt_split(z, s);
    let pos = T::TWO * (df + O::mla(r, s, c));
    // x < -1/2: pi - 2 asin s.
    let neg = T::PI_HI - T::TWO * (s + O::mla(r, s, -T::PIO2_LO));
    sel(big, sel(x < T::ZERO, neg, pos), small)
}

/// `atan(t + tl) - t` for `|t| <= tan(pi/8)`, `tl` the tail of `t`.
#[inline(always)]
fn atan_tail<T: InvTrigConsts, O: Ops>(t: T, tl: T) -> T {
    let z = t * t;
    O::mla(t * z, poly::<T, O>(z, T::ATAN), O::mla(-tl, z, tl))
}

/// `2^60`: beyond it the tail of `t` is irrelevant and error-free products could overflow.
#[inline(always)]
fn two60<T: Real>() -> T {
    T::from_f64(1152921504606846976.0)
}

#[inline(always)]
pub fn atan<T: InvTrigConsts, O: Ops>(x: T) -> T {
    let ax = x.abs();
    let big = ax > T::TAN_3PI8;
    let mid = ax > T::TAN_PI8;
    // big: -1/|x|; mid: (|x| - 1) / (|x| + 1) with exact numerator and denominator.
    let (mnh, mnl) = two_sum(ax, -T::ONE);
    let (mdh, mdl) = two_sum(ax, T::ONE);
    let nh = sel(big, -T::ONE, sel(mid, mnh, ax));
    let nl = sel(big || !mid, T::ZERO, mnl);
    let dh = sel(big, ax, sel(mid, mdh, T::ONE));
    let dl = sel(big || !mid, T::ZERO, mdl);
    let (t, tl) = div_dd::<T, O>(nh, nl, dh, dl);
    let tl = sel(ax > two60::<T>(), T::ZERO, tl);
    let yh = sel(big, T::PIO2_HI, sel(mid, T::PIO4_HI, T::ZERO));
    let yl = sel(big, T::PIO2_LO, sel(mid, T::PIO4_LO, T::ZERO));
    let p = atan_tail::<T, O>(t, tl);
    (yh + (t + (p + yl))).copysign(x)
}

#[inline(always)]
pub fn atan2<T: InvTrigConsts, O: Ops>(y: T, x: T) -> T {
    let (ax, ay) = (x.abs(), y.abs());
    let swap = ay > ax;
    let num = sel(swap, ax, ay); // num <= den
    let den = sel(swap, ay, ax);
    let sc = sel(den > T::HUGE, T::ONE / two60::<T>(), sel(den < T::TINY, two60::<T>(), T::ONE));
    let (num, den) = (num * sc, den * sc);
    let both_inf = num == T::INF;
    let both_zero = den == T::ZERO;
    // num/den in (tan(pi/8), 1]: atan(num/den) = pi/4 + atan((num-den)/(num+den)).
    let mid = num > T::TAN_PI8 * den || both_inf;
    let (mnh, mnl) = two_sum(num, -den);
    let (mdh, mdl) = two_sum(num, den);
    let (t, tl) =
        div_dd::<T, O>(sel(mid, mnh, num), sel(mid, mnl, T::ZERO), sel(mid, mdh, den), sel(mid, mdl, T::ZERO));
    let degenerate = both_inf || both_zero;
    let t = sel(degenerate, T::ZERO, t);
    // The tail only matters against the pi/4 offset; for tiny quotients (possibly from
    // subnormal numerators, where the error-free product is not error-free) drop it.
    let tiny_t = t.abs() < T::ONE / two60::<T>();
    let tl = sel(degenerate || den == T::INF || tiny_t, T::ZERO, tl);
    let p = atan_tail::<T, O>(t, tl);
    // angle = j pi/4 +- (t + p): quadrant from swap and the sign of x (-0 counts as negative).
    let xneg = x.sign_bit();
    let y0 = sel(mid, T::ONE, T::ZERO);
    let base = sel(swap, T::TWO, sel(xneg, T::TWO + T::TWO, T::ZERO));
    let flip = swap != xneg;
    let j = base + sel(flip, -y0, y0);
    let (t, p) = (sel(flip, -t, t), sel(flip, -p, p));
    let r = O::mla(j, T::Q_HI, t + O::mla(j, T::Q_LO, p));
    let r = r.copysign(y);
    sel(x.is_nan() || y.is_nan(), x + y, r)
}
