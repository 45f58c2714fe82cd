//! sin, cos, tan.
//!
//! Vector path: Cody–Waite reduction `x = n pi/2 + r`, `|r| <= pi/4`.
//! * f64: pi/2 in four parts (33+33+33+53 bits), so `n * P_i` is exact for `n < 2^20` even
//!   without FMA and the cancellation in `x - n P1` is exact (Sterbenz); valid for
//!   `|x| <= 2^20`.
//! * f32: the reduction runs in f64 (three parts, 28+28+53 bits), valid for `|x| <= 2^22`.
//!
//! The reduced argument is kept as `r + rl` (two-sums in the f64 chain; the f64 remainder's
//! rounding error for f32). Then `sin r = r + r^3 S(r^2)` and `cos r = 1 - r^2/2 + r^4 C(r^2)` (the `1 - r^2/2` step is
//! compensated as in fdlibm), the quadrant `n mod 4` selects and negates; `tan = sin / cos` or
//! `-cos / sin`. Coefficients: our Sollya minimax fits on `[0, pi/4]` (relative error 2^-57.9 /
//! 2^-63.9 for f64 sin / cos, 2^-32.2 / 2^-33 for f32).
//!
//! Lanes with finite `|x|` above the vector range are recomputed in a scalar second pass by
//! glibc's `sin`/`cos`/`tan` in f64 (Payne–Hanek reduction; for f32 the f64 result is rounded).

use super::real::{Ops, Real, fast_two_sum, poly, round_int, sel, two_sum};

pub trait TrigConsts: Real {
    /// `sin r = r + r^3 S(r^2)`
    const SIN: &'static [Self];
    /// `cos r = 1 - r^2/2 + r^4 C(r^2)`
    const COS: &'static [Self];
    /// Largest `|x|` the vector reduction handles.
    const LIMIT: Self;
    /// `(r, rl, n)` with `x = n pi/2 + r + rl`, `n` integral, `rl` the tail of `r`.
    fn reduce<O: Ops>(x: Self) -> (Self, Self, Self);
}

impl TrigConsts for f64 {
    const SIN: &'static [f64] = &[
        -0.1666666666666663,
        0.008333333333321924,
        -0.0001984126982946496,
        2.755731358502397e-06,
        -2.5050742812777324e-08,
        1.5895974919455618e-10,
    ];
    const COS: &'static [f64] = &[
        0.041666666666666595,
        -0.0013888888888873348,
        2.480158728900809e-05,
        -2.755731421905481e-07,
        2.087570568855178e-09,
        -1.1358764799839056e-11,
    ];
    const LIMIT: f64 = 1048576.0;
    #[inline(always)]
    fn reduce<O: Ops>(x: f64) -> (f64, f64, f64) {
        const P1: f64 = 1.5707963267341256;
        const P2: f64 = 6.077100506303966e-11;
        const P3: f64 = 2.0222662487111665e-21;
        const P4: f64 = 8.4784276603689e-32;
        let n = round_int(x * core::f64::consts::FRAC_2_PI);
        // n * P1..P3 are exact; x - n P1 is exact (Sterbenz); two-sums keep what the next
        // subtractions round away.
        let r1 = O::mla(n, -P1, x);
        let (r2, e2) = two_sum(r1, n * -P2);
        let (r3, e3) = two_sum(r2, n * -P3);
        let (r, rl) = fast_two_sum(r3, O::mla(n, -P4, e2 + e3));
        (r, rl, n)
    }
}

impl TrigConsts for f32 {
    const SIN: &'static [f32] = &[-0.16666667, 0.008333372, -0.00019849911, 2.800547e-06];
    const COS: &'static [f32] = &[0.041666646, -0.0013887311, 2.4432567e-05];
    const LIMIT: f32 = 4194304.0;
    #[inline(always)]
    fn reduce<O: Ops>(x: f32) -> (f32, f32, f32) {
        const P1: f64 = 1.570796325802803;
        const P2: f64 = 9.920935808982456e-10;
        const P3: f64 = -1.2177051777973966e-18;
        let xd = x as f64;
        let n = round_int(xd * core::f64::consts::FRAC_2_PI);
        let r = O::mla(n, -P1, xd);
        let r = O::mla(n, -P2, r);
        let r = O::mla(n, -P3, r);
        let rf = r as f32;
        (rf, (r - rf as f64) as f32, n as f32)
    }
}

/// `(sin, cos)` of `r + rl`, `|r| <= pi/4`, to first order in the tail `rl`.
#[inline(always)]
fn sincos_poly<T: TrigConsts, O: Ops>(r: T, rl: T) -> (T, T) {
    let z = r * r;
    let s = r + O::mla(r * z, poly::<T, O>(z, T::SIN), rl);
    let hz = T::HALF * z;
    let w = T::ONE - hz;
    let c = w + (((T::ONE - w) - hz) + O::mla(z * z, poly::<T, O>(z, T::COS), -(r * rl)));
    (s, c)
}

/// sin or cos of quadrant `n` and offset `r`.
#[inline(always)]
fn quadrant<T: TrigConsts>(s: T, c: T, n: T) -> T {
    let v = sel(T::int_bit(n, 0), c, s);
    sel(T::int_bit(n, 1), -v, v)
}

#[inline(always)]
pub fn sin<T: TrigConsts, O: Ops>(x: T) -> T {
    let (r, rl, n) = T::reduce::<O>(x);
    let (s, c) = sincos_poly::<T, O>(r, rl);
    sel(x == T::ZERO, x, quadrant(s, c, n))
}

#[inline(always)]
pub fn cos<T: TrigConsts, O: Ops>(x: T) -> T {
    let (r, rl, n) = T::reduce::<O>(x);
    let (s, c) = sincos_poly::<T, O>(r, rl);
    quadrant(s, c, n + T::ONE)
}

#[inline(always)]
pub fn tan<T: TrigConsts, O: Ops>(x: T) -> T {
    let (r, rl, n) = T::reduce::<O>(x);
    let (s, c) = sincos_poly::<T, O>(r, rl);
    let odd = T::int_bit(n, 0);
    let t = sel(odd, -c, s) / sel(odd, s, c);
    sel(x == T::ZERO, x, t)
}

/// Second pass: recompute the (rare) finite lanes beyond the vector range with glibc's f64
/// function. The check is a vectorisable OR-reduction, so the common case costs one compare per
/// element.
#[inline(always)]
pub fn fix_large<T: TrigConsts>(src: &[T], dst: &mut [T], f: fn(f64) -> f64) {
    let big = |x: T| x.abs() > T::LIMIT && x.abs() < T::INF;
    if src.iter().fold(false, |acc, &x| acc | big(x)) {
        fix_large_cold(src, dst, f, big);
    }
}

#[cold]
#[inline(never)]
fn fix_large_cold<T: TrigConsts>(
    src: &[T],
    dst: &mut [T],
    f: fn(f64) -> f64,
    big: impl Fn(T) -> bool,
) {
    for (d, &x) in dst.iter_mut().zip(src) {
        if big(x) {
            *d = T::from_f64(f(x.to_f64()));
        }
    }
}
