//! cbrt, pow, hypot.
//!
//! * cbrt: `|x| = 2^(3q + i) m` (`i` in 0..3, computed in floating point: no integer
//!   division), a minimax start `cbrt(m)` on `[1, 2)` (Sollya, 2^-19.6 f64 / 2^-16.7 f32)
//!   times `2^(i/3)`, Newton steps, and a last Newton step whose residual `y^3 - a` is computed
//!   error-free (two-product), which lands within about half an ulp.
//! * pow (f64): `exp(y log|x|)` in double-double: `log` carries ~100 bits (the `2/3 s^3` term
//!   and `k ln2` are done error-free), `y log|x|` is an exact product, and the exp reduction
//!   folds the low part in (the technique of SLEEF's `logk`/`expk`). pow (f32) is the f64
//!   pow rounded (so exact results such as 2^-150 round as ties should).
//!   Special cases follow C99 F.10.4.4 and are applied with selects after the core.
//! * hypot (f64): scale by a power of two when needed, `sqrt(a^2 + b^2)` with both squares
//!   error-free and one Newton correction. hypot (f32): exact in f64, rounded once.

use super::exp_log::{ExpLogConsts, exp_finish, exp_reduce, log_dd};
use super::real::{Ops, fast_two_sum, poly, round_int, scale, sel};

pub trait PowConsts: ExpLogConsts {
    /// `cbrt m` on `[1, 2)`.
    const CBRT: &'static [Self];
    const CBRT2: Self;
    const CBRT4: Self;
    /// Plain Newton steps before the final error-free one.
    const CBRT_NEWTON: usize;
    /// `2^(3 SUB_Q)`: scales subnormals to normal for cbrt.
    const SUB_SCALE: Self;
    const SUB_Q: Self;
    /// `|x|^y` for positive finite `|x|` and finite `y`.
    fn pow_abs<O: Ops>(ax: Self, y: Self) -> Self;
    fn hypot_k<O: Ops>(x: Self, y: Self) -> Self;
}

impl PowConsts for f64 {
    const CBRT: &'static [f64] = &[
        0.47333067881193963,
        0.8381600343158935,
        -0.46922872065411486,
        0.20277723014701973,
        -0.05038653924373415,
        0.005348547584548955,
    ];
    const CBRT2: f64 = 1.2599210498948732;
    const CBRT4: f64 = 1.5874010519681996;
    const CBRT_NEWTON: usize = 1;
    const SUB_SCALE: f64 = 18014398509481984.0; // 2^54
    const SUB_Q: f64 = 18.0;

    #[inline(always)]
    fn pow_abs<O: Ops>(ax: f64, y: f64) -> f64 {
        let (lh, ll) = log_dd::<f64, O>(ax);
        let (ph, pl) = O::two_prod(y, lh);
        exp_dd::<f64, O>(ph, O::mla(y, ll, pl))
    }

    #[inline(always)]
    fn hypot_k<O: Ops>(x: f64, y: f64) -> f64 {
        const BIG: f64 = 3.273390607896142e150; // 2^500
        const SMALL: f64 = 3.054936363499605e-151; // 2^-500
        const UP: f64 = 4.149515568880993e180; // 2^600
        const DOWN: f64 = 2.409919865102884e-181; // 2^-600
        let (ax, ay) = (x.abs(), y.abs());
        let a = sel(ax > ay, ax, ay);
        let b = sel(ax > ay, ay, ax);
        let (big, small) = (a > BIG, a < SMALL);
        let sc = sel(big, DOWN, sel(small, UP, 1.0));
        let isc = sel(big, UP, sel(small, DOWN, 1.0));
        let (a, b) = (a * sc, b * sc);
        let (aa, aal) = O::two_prod(a, a);
        let (bb, bbl) = O::two_prod(b, b);
        let (s, se) = fast_two_sum(aa, bb);
        let e = se + (aal + bbl);
        let h = s.sqrt();
        // One Newton step on h^2 = s + e with an exact h^2.
        let (hh, hhl) = O::two_prod(h, h);
        let h = h + (((s - hh) - hhl) + e) / (2.0 * h);
        sel(a == 0.0, 0.0, h * isc)
    }
}

impl PowConsts for f32 {
    const CBRT: &'static [f32] = &[0.50697976, 0.7181528, -0.30061036, 0.08609079, -0.0106038];
    const CBRT2: f32 = 1.2599211;
    const CBRT4: f32 = 1.587401;
    const CBRT_NEWTON: usize = 0;
    const SUB_SCALE: f32 = 16777216.0; // 2^24
    const SUB_Q: f32 = 8.0;

    #[inline(always)]
    fn pow_abs<O: Ops>(ax: f32, y: f32) -> f32 {
        // The f64 kernel (about half an f64 ulp), rounded: an exact power (2^-150) comes out
        // exact in f64, so its f32 rounding breaks a tie as it should (to even: 0), which
        // `exp(y ln x)` with plain f64 kernels, 1 f64 ulp off, did not always.
        <f64 as PowConsts>::pow_abs::<O>(ax as f64, y as f64) as f32
    }

    #[inline(always)]
    fn hypot_k<O: Ops>(x: f32, y: f32) -> f32 {
        let (x, y) = (x as f64, y as f64);
        O::mla(x, x, y * y).sqrt() as f32
    }
}

#[inline(always)]
pub fn cbrt<T: PowConsts, O: Ops>(x: T) -> T {
    let ax = x.abs();
    let sub = ax < T::MIN_NORMAL;
    let (m, e) = T::split_one(sel(sub, ax * T::SUB_SCALE, ax));
    let three = T::from_f64(3.0);
    let third = T::from_f64(1.0 / 3.0);
    // e = 3q + i with i in {0, 1, 2}.
    let q = round_int((e - T::ONE) * third);
    let i = e - three * q;
    let a = m * T::exp2i(i); // in [1, 8), exact
    let c = sel(i == T::ZERO, T::ONE, sel(i == T::ONE, T::CBRT2, T::CBRT4));
    let mut y = poly::<T, O>(m, T::CBRT) * c;
    for _ in 0..T::CBRT_NEWTON {
        y = y - (y - a / (y * y)) * third;
    }
    // Final Newton step with the residual y^3 - a computed error-free.
    let (h, l) = O::two_prod(y, y);
    let (p, pe) = O::two_prod(h, y);
    let res = O::mla(l, y, (p - a) + pe);
    let y = y - res / (three * h);
    let r = (y * T::exp2i(q - sel(sub, T::SUB_Q, T::ZERO))).copysign(x);
    sel(ax > T::ZERO && ax < T::INF, r, x)
}

/// `e^(ph + pl)` with `|pl| <~ ulp(ph)`.
#[inline(always)]
fn exp_dd<T: PowConsts, O: Ops>(ph: T, pl: T) -> T {
    let over = ph > T::EXP_HI;
    let under = ph < T::EXP_LO;
    let phc = sel(over, T::EXP_HI, sel(under, T::EXP_LO, ph));
    let plc = sel(over || under, T::ZERO, pl);
    let (rh, rl, n) = exp_reduce::<T, O>(phc);
    let (hi, lo) = exp_finish::<T, O>(rh, rl + plc);
    scale(hi + lo, n)
}

#[inline(always)]
pub fn pow<T: PowConsts, O: Ops>(x: T, y: T) -> T {
    let ax = x.abs();
    let ay = y.abs();
    let y_int = O::trunc(y) == y;
    let yh = y * T::HALF;
    let y_odd = y_int && O::trunc(yh) != yh;
    let axc = sel(ax > T::ZERO && ax < T::INF, ax, T::ONE);
    // |y| >= 2^64 over/underflows unless |x| == 1; clamping keeps the error-free products finite.
    let big_y = T::from_f64(18446744073709551616.0);
    let yc = sel(ay < T::INF, sel(ay > big_y, big_y.copysign(y), y), T::ZERO);
    let r = T::pow_abs::<O>(axc, yc);
    // C99 F.10.4.4, lowest priority first.
    let yneg = y < T::ZERO;
    let r = sel(ax == T::ZERO, sel(yneg, T::INF, T::ZERO), r);
    let r = sel(ax == T::INF, sel(yneg, T::ZERO, T::INF), r);
    let y_inf = sel(ax == T::ONE, T::ONE, sel((ax < T::ONE) == yneg, T::INF, T::ZERO));
    let r = sel(ay == T::INF, y_inf, r);
    let r = sel(x.sign_bit() && y_odd, -r, r);
    let r = sel(x < T::ZERO && x > -T::INF && !y_int, T::NAN, r);
    let r = sel(x.is_nan() || y.is_nan(), x + y, r);
    sel(y == T::ZERO || x == T::ONE, T::ONE, r)
}

#[inline(always)]
pub fn hypot<T: PowConsts, O: Ops>(x: T, y: T) -> T {
    let r = T::hypot_k::<O>(x, y);
    let r = sel(x.is_nan() || y.is_nan(), x + y, r);
    sel(x.abs() == T::INF || y.abs() == T::INF, T::INF, r)
}
