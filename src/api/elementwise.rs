//! Element-wise operations. Operands of different shapes broadcast: missing trailing
//! dimensions count as 1, and dimensions of size 1 stretch to match. Operands of different
//! types are promoted to one type by the table in README.md ("Type promotion"); scalar
//! operands are weak (a `double` scalar does not widen an f32 array, but makes an integer
//! array's result f64; an `int64_t` scalar takes the array's type).

use super::error::boundary;
use super::types::*;
use super::{binary_op, graph, node, out_slot, parse_dtype, put, runtime, unary_op};
use crate::front::Graph;
use crate::ir::{BinaryOp, CallSite, Node, Result, UnaryOp};
use std::sync::Arc;

/// `out = build(a)` with the graph builder for `site`: what every call on one array
/// operand does around its op (the out-pointer cleared first, the handle looked up, the
/// result given a handle).
pub(super) fn from_array(
    site: CallSite,
    a: sl_array,
    out: *mut sl_array,
    build: impl FnOnce(&Graph<'_>, &Arc<Node>) -> Result<Arc<Node>>,
) -> Result<()> {
    let out = out_slot(out)?;
    let rt = runtime()?;
    let a = node(&rt, a)?;
    let n = build(&graph(&rt, site), &a)?;
    put(&rt, out, n)
}

pub(super) fn unary(site: CallSite, op: UnaryOp, a: sl_array, out: *mut sl_array) -> Result<()> {
    from_array(site, a, out, |g, a| g.unary(op, a))
}

pub(super) fn binary(site: CallSite, op: BinaryOp, a: sl_array, b: sl_array, out: *mut sl_array) -> Result<()> {
    let out = out_slot(out)?;
    let rt = runtime()?;
    let (a, b) = (node(&rt, a)?, node(&rt, b)?);
    let n = graph(&rt, site).binary(op, &a, &b)?;
    put(&rt, out, n)
}

fn binary_scalar(
    site: CallSite,
    op: BinaryOp,
    a: sl_array,
    s: f64,
    scalar_first: bool,
    out: *mut sl_array,
) -> Result<()> {
    from_array(site, a, out, |g, a| g.binary_scalar(op, a, s, scalar_first))
}

/// The int64_t scalar forms (the op code checked after the out-pointer is cleared).
fn binary_scalar_int(
    site: CallSite,
    op: sl_binary_op,
    a: sl_array,
    s: i64,
    scalar_first: bool,
    out: *mut sl_array,
) -> Result<()> {
    out_slot(out)?;
    let op = binary_op(op)?;
    from_array(site, a, out, |g, a| g.binary_scalar_int(op, a, s, scalar_first))
}

/// `cond ? a : s` (or `cond ? s : a` when `scalar_first`) for a weak `double` scalar.
fn select_scalar(
    site: CallSite,
    cond: sl_array,
    a: sl_array,
    s: f64,
    scalar_first: bool,
    out: *mut sl_array,
) -> Result<()> {
    let out = out_slot(out)?;
    let rt = runtime()?;
    let (c, a) = (node(&rt, cond)?, node(&rt, a)?);
    let n = graph(&rt, site).select_scalar(&c, &a, s, scalar_first)?;
    put(&rt, out, n)
}

/// `out = op(a)` for an `SL_*` unary op code.
#[unsafe(no_mangle)]
pub extern "C" fn sl_unary(op: sl_unary_op, a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_unary", |site| {
        out_slot(out)?; // cleared before the op code is checked
        unary(site, unary_op(op)?, a, out)
    })
}

/// `out = op(a, b)` for an `SL_*` binary op code.
#[unsafe(no_mangle)]
pub extern "C" fn sl_binary(op: sl_binary_op, a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_binary", |site| {
        out_slot(out)?; // cleared before the op code is checked
        binary(site, binary_op(op)?, a, b, out)
    })
}

/// `out = op(a, s)` for a weak floating-point scalar `s`: the result has `a`'s type when
/// `a` is floating point or complex (`s` rounds to it), f64 when `a` is an integer or bool
/// array (README "Type promotion"). For integer scalars, `sl_binary_scalar_i`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_binary_scalar(op: sl_binary_op, a: sl_array, s: f64, out: *mut sl_array) -> sl_status {
    boundary!("sl_binary_scalar", |site| {
        out_slot(out)?; // cleared before the op code is checked
        binary_scalar(site, binary_op(op)?, a, s, false, out)
    })
}

/// `out = op(s, b)`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_scalar_binary(op: sl_binary_op, s: f64, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_scalar_binary", |site| {
        out_slot(out)?; // cleared before the op code is checked
        binary_scalar(site, binary_op(op)?, b, s, true, out)
    })
}

/// `out = op(a, s)` for a weak integer scalar `s`: the result has `a`'s type (i64 for a
/// bool `a`); `SL_ERR_DTYPE_MISMATCH` when an integer type cannot hold `s`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_binary_scalar_i(op: sl_binary_op, a: sl_array, s: i64, out: *mut sl_array) -> sl_status {
    boundary!("sl_binary_scalar_i", |site| binary_scalar_int(site, op, a, s, false, out))
}

/// `out = op(s, b)` for a weak integer scalar `s` (see `sl_binary_scalar_i`).
#[unsafe(no_mangle)]
pub extern "C" fn sl_scalar_binary_i(op: sl_binary_op, s: i64, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_scalar_binary_i", |site| binary_scalar_int(site, op, b, s, true, out))
}

/// `out = cond ? a : s` element-wise for a weak floating-point scalar `s` (PeakStream's
/// `cond(p, a, 0.0f)`): of `a`'s type when `a` is floating point or complex, f64 otherwise.
#[unsafe(no_mangle)]
pub extern "C" fn sl_select_scalar(cond: sl_array, a: sl_array, s: f64, out: *mut sl_array) -> sl_status {
    boundary!("sl_select_scalar", |site| select_scalar(site, cond, a, s, false, out))
}

/// `out = cond ? s : b` element-wise for a weak floating-point scalar `s`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_scalar_select(cond: sl_array, s: f64, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_scalar_select", |site| select_scalar(site, cond, b, s, true, out))
}

/// `out = cond ? a : b` element-wise (`cond` is bool; all three broadcast; `a` and `b`
/// are promoted to one type, README "Type promotion").
#[unsafe(no_mangle)]
pub extern "C" fn sl_select(cond: sl_array, a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_select", |site| {
        let out = out_slot(out)?;
        let rt = runtime()?;
        let (c, a, b) = (node(&rt, cond)?, node(&rt, a)?, node(&rt, b)?);
        let n = graph(&rt, site).select(&c, &a, &b)?;
        put(&rt, out, n)
    })
}

/// `a` converted to `dtype` (float to integer truncates and saturates, NaN becomes 0;
/// nonzero becomes true).
#[unsafe(no_mangle)]
pub extern "C" fn sl_cast(a: sl_array, dtype: sl_dtype, out: *mut sl_array) -> sl_status {
    boundary!("sl_cast", |site| {
        let out = out_slot(out)?;
        let t = parse_dtype(dtype)?;
        let rt = runtime()?;
        let a = node(&rt, a)?;
        let n = graph(&rt, site).cast(&a, t)?;
        put(&rt, out, n)
    })
}

/// Element-wise -a.
#[unsafe(no_mangle)]
pub extern "C" fn sl_neg(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_neg", |site| unary(site, UnaryOp::Neg, a, out))
}

/// Element-wise |a|.
#[unsafe(no_mangle)]
pub extern "C" fn sl_abs(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_abs", |site| unary(site, UnaryOp::Abs, a, out))
}

/// Element-wise -1, 0 or 1 by the sign of a (NaN and signed zeros pass through).
#[unsafe(no_mangle)]
pub extern "C" fn sl_sign(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_sign", |site| unary(site, UnaryOp::Sign, a, out))
}

/// Element-wise square root.
#[unsafe(no_mangle)]
pub extern "C" fn sl_sqrt(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_sqrt", |site| unary(site, UnaryOp::Sqrt, a, out))
}

/// Element-wise 1 / sqrt(a).
#[unsafe(no_mangle)]
pub extern "C" fn sl_rsqrt(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_rsqrt", |site| unary(site, UnaryOp::Rsqrt, a, out))
}

/// Element-wise cube root.
#[unsafe(no_mangle)]
pub extern "C" fn sl_cbrt(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_cbrt", |site| unary(site, UnaryOp::Cbrt, a, out))
}

/// Element-wise 1 / a.
#[unsafe(no_mangle)]
pub extern "C" fn sl_rcp(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_rcp", |site| unary(site, UnaryOp::Rcp, a, out))
}

/// Element-wise e^a.
#[unsafe(no_mangle)]
pub extern "C" fn sl_exp(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_exp", |site| unary(site, UnaryOp::Exp, a, out))
}

/// Element-wise 2^a.
#[unsafe(no_mangle)]
pub extern "C" fn sl_exp2(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_exp2", |site| unary(site, UnaryOp::Exp2, a, out))
}

/// Element-wise e^a - 1, accurate near 0.
#[unsafe(no_mangle)]
pub extern "C" fn sl_expm1(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_expm1", |site| unary(site, UnaryOp::Expm1, a, out))
}

/// Element-wise natural logarithm.
#[unsafe(no_mangle)]
pub extern "C" fn sl_log(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_log", |site| unary(site, UnaryOp::Log, a, out))
}

/// Element-wise base-2 logarithm.
#[unsafe(no_mangle)]
pub extern "C" fn sl_log2(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_log2", |site| unary(site, UnaryOp::Log2, a, out))
}

/// Element-wise base-10 logarithm.
#[unsafe(no_mangle)]
pub extern "C" fn sl_log10(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_log10", |site| unary(site, UnaryOp::Log10, a, out))
}

/// Element-wise log(1 + a), accurate near 0.
#[unsafe(no_mangle)]
pub extern "C" fn sl_log1p(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_log1p", |site| unary(site, UnaryOp::Log1p, a, out))
}

/// Element-wise sine.
#[unsafe(no_mangle)]
pub extern "C" fn sl_sin(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_sin", |site| unary(site, UnaryOp::Sin, a, out))
}

/// Element-wise cosine.
#[unsafe(no_mangle)]
pub extern "C" fn sl_cos(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_cos", |site| unary(site, UnaryOp::Cos, a, out))
}

/// Element-wise tangent.
#[unsafe(no_mangle)]
pub extern "C" fn sl_tan(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_tan", |site| unary(site, UnaryOp::Tan, a, out))
}

/// Element-wise arcsine.
#[unsafe(no_mangle)]
pub extern "C" fn sl_asin(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_asin", |site| unary(site, UnaryOp::Asin, a, out))
}

/// Element-wise arccosine.
#[unsafe(no_mangle)]
pub extern "C" fn sl_acos(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_acos", |site| unary(site, UnaryOp::Acos, a, out))
}

/// Element-wise arctangent.
#[unsafe(no_mangle)]
pub extern "C" fn sl_atan(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_atan", |site| unary(site, UnaryOp::Atan, a, out))
}

/// Element-wise hyperbolic sine.
#[unsafe(no_mangle)]
pub extern "C" fn sl_sinh(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_sinh", |site| unary(site, UnaryOp::Sinh, a, out))
}

/// Element-wise hyperbolic cosine.
#[unsafe(no_mangle)]
pub extern "C" fn sl_cosh(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_cosh", |site| unary(site, UnaryOp::Cosh, a, out))
}

/// Element-wise hyperbolic tangent.
#[unsafe(no_mangle)]
pub extern "C" fn sl_tanh(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_tanh", |site| unary(site, UnaryOp::Tanh, a, out))
}

/// Element-wise inverse hyperbolic sine.
#[unsafe(no_mangle)]
pub extern "C" fn sl_asinh(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_asinh", |site| unary(site, UnaryOp::Asinh, a, out))
}

/// Element-wise inverse hyperbolic cosine.
#[unsafe(no_mangle)]
pub extern "C" fn sl_acosh(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_acosh", |site| unary(site, UnaryOp::Acosh, a, out))
}

/// Element-wise inverse hyperbolic tangent.
#[unsafe(no_mangle)]
pub extern "C" fn sl_atanh(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_atanh", |site| unary(site, UnaryOp::Atanh, a, out))
}

/// Element-wise error function.
#[unsafe(no_mangle)]
pub extern "C" fn sl_erf(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_erf", |site| unary(site, UnaryOp::Erf, a, out))
}

/// Element-wise complementary error function `1 - erf(a)`, accurate where erf is near 1
/// (down to erfc's underflow near 27.2 in f64, 10.05 in f32).
#[unsafe(no_mangle)]
pub extern "C" fn sl_erfc(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_erfc", |site| unary(site, UnaryOp::Erfc, a, out))
}

/// Element-wise inverse error function: `erfinv(erf(y)) = y`; ±inf at ±1, NaN outside
/// [-1, 1].
#[unsafe(no_mangle)]
pub extern "C" fn sl_erfinv(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_erfinv", |site| unary(site, UnaryOp::Erfinv, a, out))
}

/// Element-wise `log |Γ(a)|` (C `lgamma`; the sign of Γ is not returned): +inf at 0, at the
/// negative integers and at ±inf. Near its zeros at negative arguments the error is
/// bounded absolutely rather than relatively (README, "Math accuracy").
#[unsafe(no_mangle)]
pub extern "C" fn sl_lgamma(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_lgamma", |site| unary(site, UnaryOp::Lgamma, a, out))
}

/// Element-wise gamma function (C `tgamma`): ±inf at ±0, NaN at the negative integers and
/// at -inf; overflows to +inf beyond 171.62 (f64) or 35.04 (f32).
#[unsafe(no_mangle)]
pub extern "C" fn sl_tgamma(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_tgamma", |site| unary(site, UnaryOp::Tgamma, a, out))
}

/// Element-wise round down.
#[unsafe(no_mangle)]
pub extern "C" fn sl_floor(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_floor", |site| unary(site, UnaryOp::Floor, a, out))
}

/// Element-wise round up.
#[unsafe(no_mangle)]
pub extern "C" fn sl_ceil(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_ceil", |site| unary(site, UnaryOp::Ceil, a, out))
}

/// Element-wise round to nearest, halfway cases away from zero.
#[unsafe(no_mangle)]
pub extern "C" fn sl_round(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_round", |site| unary(site, UnaryOp::Round, a, out))
}

/// Element-wise round toward zero.
#[unsafe(no_mangle)]
pub extern "C" fn sl_trunc(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_trunc", |site| unary(site, UnaryOp::Trunc, a, out))
}

/// Element-wise whether a is NaN (bool).
#[unsafe(no_mangle)]
pub extern "C" fn sl_isnan(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_isnan", |site| unary(site, UnaryOp::IsNan, a, out))
}

/// Element-wise whether a is infinite (bool).
#[unsafe(no_mangle)]
pub extern "C" fn sl_isinf(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_isinf", |site| unary(site, UnaryOp::IsInf, a, out))
}

/// Element-wise logical not (bool) or bitwise not (integers).
#[unsafe(no_mangle)]
pub extern "C" fn sl_not(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_not", |site| unary(site, UnaryOp::Not, a, out))
}

/// Element-wise a + b.
#[unsafe(no_mangle)]
pub extern "C" fn sl_add(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_add", |site| binary(site, BinaryOp::Add, a, b, out))
}

/// Element-wise a - b.
#[unsafe(no_mangle)]
pub extern "C" fn sl_sub(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_sub", |site| binary(site, BinaryOp::Sub, a, b, out))
}

/// Element-wise a * b.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mul(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_mul", |site| binary(site, BinaryOp::Mul, a, b, out))
}

/// Element-wise a / b (integers truncate; x / 0 = 0; `INT_MIN / -1 = INT_MIN`; `SL_DIV`).
#[unsafe(no_mangle)]
pub extern "C" fn sl_div(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_div", |site| binary(site, BinaryOp::Div, a, b, out))
}

/// Element-wise remainder of a / b with the sign of a (integers: x % 0 = 0 and
/// `INT_MIN % -1 = 0`; `SL_REM`).
#[unsafe(no_mangle)]
pub extern "C" fn sl_rem(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_rem", |site| binary(site, BinaryOp::Rem, a, b, out))
}

/// Element-wise a raised to b (integers: exact and wrapping; a negative exponent gives 0
/// except for bases 1 and -1; `SL_POW`).
#[unsafe(no_mangle)]
pub extern "C" fn sl_pow(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_pow", |site| binary(site, BinaryOp::Pow, a, b, out))
}

/// Element-wise angle of the point (b, a).
#[unsafe(no_mangle)]
pub extern "C" fn sl_atan2(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_atan2", |site| binary(site, BinaryOp::Atan2, a, b, out))
}

/// Element-wise sqrt(a^2 + b^2) without overflow.
#[unsafe(no_mangle)]
pub extern "C" fn sl_hypot(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_hypot", |site| binary(site, BinaryOp::Hypot, a, b, out))
}

/// Element-wise remainder of a / b with the sign of b (Python's `%`, numpy's `mod`, Fortran's
/// `modulo`; `sl_rem` keeps the sign of a): `rem(a, b)` plus `b` where that is nonzero and
/// of the other sign, a zero result taking the sign of b. Integers: x mod 0 is 0.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mod(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_mod", |site| {
        let out = out_slot(out)?;
        let rt = runtime()?;
        let (a, b) = (node(&rt, a)?, node(&rt, b)?);
        let n = graph(&rt, site).modulo(&a, &b)?;
        put(&rt, out, n)
    })
}

/// Element-wise integer a << b (`SL_SHL`: a count outside 0 .. bits of the type gives 0).
#[unsafe(no_mangle)]
pub extern "C" fn sl_shl(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_shl", |site| binary(site, BinaryOp::Shl, a, b, out))
}

/// Element-wise integer a >> b, arithmetic for signed types and logical for u8 (`SL_SHR`:
/// a count outside 0 .. bits gives -1 for a negative signed a, else 0).
#[unsafe(no_mangle)]
pub extern "C" fn sl_shr(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_shr", |site| binary(site, BinaryOp::Shr, a, b, out))
}

/// Element-wise magnitude of a with the sign bit of b (C `copysign`).
#[unsafe(no_mangle)]
pub extern "C" fn sl_copysign(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_copysign", |site| binary(site, BinaryOp::CopySign, a, b, out))
}

/// Element-wise next representable value after a toward b (C `nextafter`; `SL_NEXTAFTER`).
#[unsafe(no_mangle)]
pub extern "C" fn sl_nextafter(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_nextafter", |site| binary(site, BinaryOp::NextAfter, a, b, out))
}

/// Element-wise `min(max(a, lo), hi)` (numpy's `clip`): `hi` where `lo > hi`, NaN where
/// any operand is NaN. The three broadcast and promote together.
#[unsafe(no_mangle)]
pub extern "C" fn sl_clamp(a: sl_array, lo: sl_array, hi: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_clamp", |site| {
        let out = out_slot(out)?;
        let rt = runtime()?;
        let (a, lo, hi) = (node(&rt, a)?, node(&rt, lo)?, node(&rt, hi)?);
        let n = graph(&rt, site).clamp(&a, &lo, &hi)?;
        put(&rt, out, n)
    })
}

/// `sl_clamp` with scalar bounds, which take the type of `a` (a bound that type cannot
/// hold exactly, such as 0.5 for an integer array, is an error).
#[unsafe(no_mangle)]
pub extern "C" fn sl_clamp_scalar(a: sl_array, lo: f64, hi: f64, out: *mut sl_array) -> sl_status {
    boundary!("sl_clamp_scalar", |site| from_array(site, a, out, |g, a| g.clamp_scalar(a, lo, hi)))
}

/// Element-wise `a * b + c` rounded once (C `fma`), on f32 or f64 arrays: the three
/// broadcast and promote together (to a floating-point type; integer and complex arrays
/// are refused). Fused like the other element-wise ops.
#[unsafe(no_mangle)]
pub extern "C" fn sl_fma(a: sl_array, b: sl_array, c: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_fma", |site| {
        let out = out_slot(out)?;
        let rt = runtime()?;
        let (a, b, c) = (node(&rt, a)?, node(&rt, b)?, node(&rt, c)?);
        let n = graph(&rt, site).fma(&a, &b, &c)?;
        put(&rt, out, n)
    })
}

/// The integer rounding calls: `op` of `a`, converted to the integer type `dtype`.
fn round_to(site: CallSite, op: UnaryOp, a: sl_array, dtype: sl_dtype, out: *mut sl_array) -> Result<()> {
    out_slot(out)?;
    let t = parse_dtype(dtype)?;
    from_array(site, a, out, |g, a| g.round_to(op, a, t))
}

/// Element-wise floor of a as the integer type `dtype` (i32, i64 or u8) in one call: NaN
/// gives 0 and values beyond the type's range saturate to its limits (as `sl_cast`).
#[unsafe(no_mangle)]
pub extern "C" fn sl_floor_to(a: sl_array, dtype: sl_dtype, out: *mut sl_array) -> sl_status {
    boundary!("sl_floor_to", |site| round_to(site, UnaryOp::Floor, a, dtype, out))
}

/// Element-wise ceiling of a as the integer type `dtype`, as `sl_floor_to`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_ceil_to(a: sl_array, dtype: sl_dtype, out: *mut sl_array) -> sl_status {
    boundary!("sl_ceil_to", |site| round_to(site, UnaryOp::Ceil, a, dtype, out))
}

/// Element-wise a rounded to the nearest integer, halves away from zero (Fortran's `nint`),
/// as the integer type `dtype`, as `sl_floor_to`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_round_to(a: sl_array, dtype: sl_dtype, out: *mut sl_array) -> sl_status {
    boundary!("sl_round_to", |site| round_to(site, UnaryOp::Round, a, dtype, out))
}

/// Element-wise smaller of a and b (NaN if either is NaN).
#[unsafe(no_mangle)]
pub extern "C" fn sl_min(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_min", |site| binary(site, BinaryOp::Min, a, b, out))
}

/// Element-wise larger of a and b (NaN if either is NaN).
#[unsafe(no_mangle)]
pub extern "C" fn sl_max(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_max", |site| binary(site, BinaryOp::Max, a, b, out))
}

/// Element-wise a == b (bool).
#[unsafe(no_mangle)]
pub extern "C" fn sl_eq(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_eq", |site| binary(site, BinaryOp::Eq, a, b, out))
}

/// Element-wise a != b (bool).
#[unsafe(no_mangle)]
pub extern "C" fn sl_ne(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_ne", |site| binary(site, BinaryOp::Ne, a, b, out))
}

/// Element-wise a < b (bool).
#[unsafe(no_mangle)]
pub extern "C" fn sl_lt(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_lt", |site| binary(site, BinaryOp::Lt, a, b, out))
}

/// Element-wise a <= b (bool).
#[unsafe(no_mangle)]
pub extern "C" fn sl_le(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_le", |site| binary(site, BinaryOp::Le, a, b, out))
}

/// Element-wise a > b (bool).
#[unsafe(no_mangle)]
pub extern "C" fn sl_gt(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_gt", |site| binary(site, BinaryOp::Gt, a, b, out))
}

/// Element-wise a >= b (bool).
#[unsafe(no_mangle)]
pub extern "C" fn sl_ge(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_ge", |site| binary(site, BinaryOp::Ge, a, b, out))
}

/// Element-wise logical (bool) or bitwise (integers) and.
#[unsafe(no_mangle)]
pub extern "C" fn sl_and(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_and", |site| binary(site, BinaryOp::And, a, b, out))
}

/// Element-wise logical or bitwise or.
#[unsafe(no_mangle)]
pub extern "C" fn sl_or(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_or", |site| binary(site, BinaryOp::Or, a, b, out))
}

/// Element-wise logical or bitwise exclusive or.
#[unsafe(no_mangle)]
pub extern "C" fn sl_xor(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_xor", |site| binary(site, BinaryOp::Xor, a, b, out))
}

/// Element-wise a + s for a scalar `s`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_add_scalar(a: sl_array, s: f64, out: *mut sl_array) -> sl_status {
    boundary!("sl_add_scalar", |site| binary_scalar(site, BinaryOp::Add, a, s, false, out))
}

/// Element-wise a - s for a scalar `s`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_sub_scalar(a: sl_array, s: f64, out: *mut sl_array) -> sl_status {
    boundary!("sl_sub_scalar", |site| binary_scalar(site, BinaryOp::Sub, a, s, false, out))
}

/// Element-wise s - a for a scalar `s`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_rsub_scalar(a: sl_array, s: f64, out: *mut sl_array) -> sl_status {
    boundary!("sl_rsub_scalar", |site| binary_scalar(site, BinaryOp::Sub, a, s, true, out))
}

/// Element-wise a * s for a scalar `s`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_mul_scalar(a: sl_array, s: f64, out: *mut sl_array) -> sl_status {
    boundary!("sl_mul_scalar", |site| binary_scalar(site, BinaryOp::Mul, a, s, false, out))
}

/// Element-wise a / s for a scalar `s`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_div_scalar(a: sl_array, s: f64, out: *mut sl_array) -> sl_status {
    boundary!("sl_div_scalar", |site| binary_scalar(site, BinaryOp::Div, a, s, false, out))
}

/// Element-wise s / a for a scalar `s`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_rdiv_scalar(a: sl_array, s: f64, out: *mut sl_array) -> sl_status {
    boundary!("sl_rdiv_scalar", |site| binary_scalar(site, BinaryOp::Div, a, s, true, out))
}

/// Element-wise a raised to s (s = 2, 1, 0, -1 become cheaper exact ops) for a scalar `s`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_pow_scalar(a: sl_array, s: f64, out: *mut sl_array) -> sl_status {
    boundary!("sl_pow_scalar", |site| binary_scalar(site, BinaryOp::Pow, a, s, false, out))
}

/// Element-wise min(a, s) for a scalar `s`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_min_scalar(a: sl_array, s: f64, out: *mut sl_array) -> sl_status {
    boundary!("sl_min_scalar", |site| binary_scalar(site, BinaryOp::Min, a, s, false, out))
}

/// Element-wise max(a, s) for a scalar `s`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_max_scalar(a: sl_array, s: f64, out: *mut sl_array) -> sl_status {
    boundary!("sl_max_scalar", |site| binary_scalar(site, BinaryOp::Max, a, s, false, out))
}
