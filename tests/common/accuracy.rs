//! The accuracy every executor's math functions must meet: the one table of ulp bounds
//! (README, "Math accuracy"), held by tests/math.rs against correctly rounded results,
//! and the tolerances the other suites derive from it for their glibc-based reference.

use super::{device, on_vulkan};
use sluice::*;

/// An op whose results are not exact.
#[derive(Copy, Clone, Debug)]
pub enum Inexact {
    Unary(sl_unary_op),
    Binary(sl_binary_op),
}

/// The largest error allowed, in ulps of the correctly rounded result of type `dt`, on
/// every executor, over the whole domain (subnormals, huge arguments, near overflow
/// included). f32 and f64 alike.
pub fn ulp_bound(op: Inexact) -> f64 {
    match op {
        Inexact::Unary(SL_SQRT) => 0.5,
        Inexact::Unary(SL_TAN | SL_ASINH | SL_ACOSH | SL_ATANH) => 2.5,
        Inexact::Binary(SL_REM) => 0.0,
        _ => 2.0,
    }
}

/// Whether `op` of type `dt` is held to `ulp_bound` on the executor in use: everywhere
/// except f32 transcendentals on Vulkan devices without 64-bit floats, which are GLSL's
/// builtins (their accuracy is the implementation's: on lavapipe exp measured 57 ulps on
/// [-60, 60], log hundreds of ulps near 1).
pub fn bound_holds(dt: sl_dtype) -> bool {
    !(on_vulkan() && dt == SL_F32 && device().float64 == 0)
}

/// The largest distance in whole ulps the suites other than tests/math.rs allow between
/// an inexact op's result and their reference (tests/common/reference.rs: glibc's f64
/// functions, rounded for f32): the bound, plus half an ulp for the rounded f32
/// reference or glibc's own error in f64 (2 ulps; erfc 5, lgamma 4, tgamma 9, its
/// libm-test-ulps for x86_64; erfinv, computed from erf and erfc, 3).
pub fn max_ulps(op: Inexact, dt: sl_dtype) -> f64 {
    if !bound_holds(dt) {
        // Only exp is tested there, at this bound; the special functions at theirs.
        return match op {
            Inexact::Unary(SL_ERFC | SL_ERFINV | SL_LGAMMA | SL_TGAMMA) => 256.0,
            _ => 64.0,
        };
    }
    let reference = match (dt, op) {
        (SL_F32, _) => 0.5,
        (_, Inexact::Unary(SL_ERFC)) => 5.0,
        (_, Inexact::Unary(SL_LGAMMA)) => 4.0,
        (_, Inexact::Unary(SL_TGAMMA)) => 9.0,
        (_, Inexact::Unary(SL_ERFINV)) => 3.0,
        _ => 2.0,
    };
    (ulp_bound(op) + reference).ceil()
}
