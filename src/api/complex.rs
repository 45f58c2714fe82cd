//! Complex numbers (`SL_C64`, `SL_C128`): their own functions and the scalar forms of the
//! binary ops. Arithmetic, `pow`, comparisons for equality, `abs`, `exp`, `log`, `sqrt`,
//! the trigonometric and hyperbolic functions, the reductions `sum`, `prod`, `mean`, the
//! scans, views, `select`, `concat`, `gather`, `scatter` (replacing or adding) and
//! `sl_random_normal` take complex arrays through the general calls.

use super::elementwise::{binary, from_array, unary};
use super::error::boundary;
use super::types::*;
use super::{binary_op, graph, node, out_slot, parse_dtype, parse_shape, put, runtime};
use crate::ir::{BinaryOp, CallSite, Result, UnaryOp, bail};

/// Element-wise complex conjugate (a real array is its own conjugate).
#[unsafe(no_mangle)]
pub extern "C" fn sl_conj(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_conj", |site| unary(site, UnaryOp::Conj, a, out))
}

/// Element-wise real part: f32 of a c64 array, f64 of a c128 one (a real array itself).
#[unsafe(no_mangle)]
pub extern "C" fn sl_real(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_real", |site| unary(site, UnaryOp::Real, a, out))
}

/// Element-wise imaginary part (zeros for a real array).
#[unsafe(no_mangle)]
pub extern "C" fn sl_imag(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_imag", |site| unary(site, UnaryOp::Imag, a, out))
}

/// Element-wise argument (phase angle) in [-pi, pi]: `atan2(imag(a), real(a))`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_arg(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_arg", |site| unary(site, UnaryOp::Arg, a, out))
}

/// Element-wise whether a is neither NaN nor infinite (complex: both parts; bool).
#[unsafe(no_mangle)]
pub extern "C" fn sl_isfinite(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_isfinite", |site| unary(site, UnaryOp::IsFinite, a, out))
}

/// The complex array `re + i im` from two f32 arrays (c64) or two f64 arrays (c128),
/// which broadcast.
#[unsafe(no_mangle)]
pub extern "C" fn sl_complex(re: sl_array, im: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_complex", |site| binary(site, BinaryOp::Complex, re, im, out))
}

/// The complex array `r (cos theta + i sin theta)` from two f32 or two f64 arrays,
/// which broadcast.
#[unsafe(no_mangle)]
pub extern "C" fn sl_polar(r: sl_array, theta: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_polar", |site| {
        let out = out_slot(out)?;
        let rt = runtime()?;
        let (r, theta) = (node(&rt, r)?, node(&rt, theta)?);
        let g = graph(&rt, site);
        if r.dtype != theta.dtype || !r.dtype.is_float() {
            bail!(DTypeMismatch, "sl_polar needs two f32 or two f64 arrays, got {} and {}", r.dtype, theta.dtype);
        }
        let n = g.polar(&r, &theta)?;
        put(&rt, out, n)
    })
}

fn binary_scalar_complex(
    site: CallSite,
    op: sl_binary_op,
    a: sl_array,
    s: (f64, f64),
    scalar_first: bool,
    out: *mut sl_array,
) -> Result<()> {
    out_slot(out)?;
    let op = binary_op(op)?;
    from_array(site, a, out, |g, a| g.binary_scalar_complex(op, a, s, scalar_first))
}

/// `out = op(a, re + i im)` for a weak complex scalar: `a` is complex, or a real array
/// taken as complex of its precision (f32 gives c64; f64, integers and bool give c128).
/// The parts are converted to the result's part type. For a real scalar, `sl_binary_scalar` takes a complex `a` too.
#[unsafe(no_mangle)]
pub extern "C" fn sl_binary_scalar_c(op: sl_binary_op, a: sl_array, re: f64, im: f64, out: *mut sl_array) -> sl_status {
    boundary!("sl_binary_scalar_c", |site| binary_scalar_complex(site, op, a, (re, im), false, out))
}

/// `out = op(re + i im, b)`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_scalar_binary_c(op: sl_binary_op, re: f64, im: f64, b: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_scalar_binary_c", |site| binary_scalar_complex(site, op, b, (re, im), true, out))
}

/// A rank-0 array of complex type `dtype` (`SL_C64` or `SL_C128`) holding `re + i im`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_scalar_c(dtype: sl_dtype, re: f64, im: f64, out: *mut sl_array) -> sl_status {
    boundary!("sl_scalar_c", |site| {
        let out = out_slot(out)?;
        let t = parse_dtype(dtype)?;
        if !t.is_complex() {
            bail!(DTypeMismatch, "sl_scalar_c makes c64 or c128 values, not {t}");
        }
        let rt = runtime()?;
        let n = graph(&rt, site).complex_scalar(t, re, im)?;
        put(&rt, out, n)
    })
}

/// A new array of complex type `dtype` (`SL_C64` or `SL_C128`) and shape
/// `dims[0..rank]` with every element `re + i im` (`sl_constant` makes complex arrays
/// with a zero imaginary part).
#[unsafe(no_mangle)]
pub extern "C" fn sl_constant_c(
    dtype: sl_dtype,
    rank: i32,
    dims: *const i64,
    re: f64,
    im: f64,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_constant_c", |site| {
        let out = out_slot(out)?;
        let (t, s) = (parse_dtype(dtype)?, parse_shape(rank, dims)?);
        if !t.is_complex() {
            bail!(DTypeMismatch, "sl_constant_c makes c64 or c128 arrays, not {t}; use sl_constant");
        }
        let rt = runtime()?;
        let n = graph(&rt, site).complex_constant(t, s, re, im)?;
        put(&rt, out, n)
    })
}
