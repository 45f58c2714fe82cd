//! Fourier transforms: complex to complex, real to complex and complex to real, along one
//! to three dimensions of an array, batched over the others.

use super::error::boundary;
use super::types::*;
use super::{graph, node, out_slot, put, runtime, slice};
use crate::ir::{CallSite, FftKind, FftNorm, Result, bail};

fn norm(n: sl_fft_norm) -> Result<FftNorm> {
    Ok(match n {
        SL_FFT_BACKWARD => FftNorm::Backward,
        SL_FFT_ORTHO => FftNorm::Ortho,
        SL_FFT_FORWARD => FftNorm::Forward,
        _ => bail!(InvalidArgument, "norm: {n} is not an sl_fft_norm"),
    })
}

/// The dimensions to transform, as the application listed them (checked against the
/// array's rank by the graph).
fn dims<'a>(ndims: i32, dims: *const i32) -> Result<&'a [i32]> {
    if !(1..=3).contains(&ndims) {
        bail!(InvalidArgument, "ndims: a transform runs along 1, 2 or 3 dimensions, not {ndims}");
    }
    slice(dims, ndims, "dims")
}

#[allow(clippy::too_many_arguments)]
fn transform(
    site: CallSite,
    kind: FftKind,
    inverse: bool,
    a: sl_array,
    ndims: i32,
    dim_list: *const i32,
    n: Option<i64>,
    nrm: sl_fft_norm,
    out: *mut sl_array,
) -> Result<()> {
    let out = out_slot(out)?;
    let (dim_list, nrm) = (dims(ndims, dim_list)?, norm(nrm)?);
    let rt = runtime()?;
    let a = node(&rt, a)?;
    let r = graph(&rt, site).fft(&a, kind, inverse, dim_list, n, nrm)?;
    put(&rt, out, r)
}

/// The discrete Fourier transform of `a` along the `ndims` (1 to 3) distinct dimensions
/// listed in `dims`, batched over the others: `out[k] = sum_j a[j] exp(-2 pi i j k / n)`
/// per transformed dimension. Any length (mixed radix, Bluestein for large prime
/// factors). `a` is c64 or c128, or f32 or f64 (taken as complex with zero imaginary
/// parts); the result is complex of the same precision and shape. `norm` picks the scale
/// (`sl_fft_norm`). Integer input, a listed dimension of length 0, out of range or listed
/// twice, are refused at the call.
#[unsafe(no_mangle)]
pub extern "C" fn sl_fft(
    a: sl_array,
    ndims: i32,
    dims: *const i32,
    norm: sl_fft_norm,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_fft", |site| transform(site, FftKind::Complex, false, a, ndims, dims, None, norm, out))
}

/// The inverse of `sl_fft` (the sign of the exponent is +), with the same arguments; with
/// `SL_FFT_BACKWARD` it is scaled by 1/n, so `sl_ifft(sl_fft(a))` gives `a` back.
#[unsafe(no_mangle)]
pub extern "C" fn sl_ifft(
    a: sl_array,
    ndims: i32,
    dims: *const i32,
    norm: sl_fft_norm,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_ifft", |site| transform(site, FftKind::Complex, true, a, ndims, dims, None, norm, out))
}

/// The Fourier transform of a real array `a` (f32 or f64) along the listed dimensions,
/// keeping the non-redundant half as numpy's `rfftn` does: the last listed dimension, of
/// length n, becomes n/2 + 1 long (rounded down); the result is c64 or c128.
#[unsafe(no_mangle)]
pub extern "C" fn sl_rfft(
    a: sl_array,
    ndims: i32,
    dims: *const i32,
    norm: sl_fft_norm,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_rfft", |site| transform(site, FftKind::RealToComplex, false, a, ndims, dims, None, norm, out))
}

/// The inverse of `sl_rfft`: a complex array `a` (c64 or c128) holding the half spectrum
/// along the last listed dimension gives the real array (f32 or f64) whose length there
/// is `n`, which must satisfy n/2 + 1 == that dimension's length (rounded down; so
/// `n` is needed to tell even from odd lengths). The imaginary parts of the zero
/// frequency (and, for even `n`, of the n/2 frequency) are ignored, as numpy's `irfftn`
/// does.
#[unsafe(no_mangle)]
pub extern "C" fn sl_irfft(
    a: sl_array,
    ndims: i32,
    dims: *const i32,
    n: i64,
    norm: sl_fft_norm,
    out: *mut sl_array,
) -> sl_status {
    boundary!("sl_irfft", |site| transform(site, FftKind::ComplexToReal, true, a, ndims, dims, Some(n), norm, out))
}
