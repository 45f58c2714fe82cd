//! floor, ceil, round (half away from zero), trunc — exact.
//!
//! All derive from `Ops::trunc`: the hardware instruction in the FMA clones (SSE4.1 `roundps`
//! or AVX-512 `vrndscale`), and in the baseline clone the `(|x| + 2^MANT) - 2^MANT` trick, which
//! vectorises on SSE2 where `f32::floor` would be a libm call.

use super::real::{Ops, Real, sel};

#[inline(always)]
pub fn trunc<T: Real, O: Ops>(x: T) -> T {
    O::trunc(x)
}

#[inline(always)]
pub fn floor<T: Real, O: Ops>(x: T) -> T {
    let t = O::trunc(x);
    sel(t > x, t - T::ONE, t)
}

#[inline(always)]
pub fn ceil<T: Real, O: Ops>(x: T) -> T {
    let t = O::trunc(x);
    sel(t < x, t + T::ONE, t)
}

/// Half away from zero, like C `round`. `|x| - trunc|x|` is exact, so no `x + 0.5` rounding trap.
#[inline(always)]
pub fn round<T: Real, O: Ops>(x: T) -> T {
    let ax = x.abs();
    let t = O::trunc(ax);
    sel(ax - t >= T::HALF, t + T::ONE, t).copysign(x)
}
