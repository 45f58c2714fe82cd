//! The reference of a Fourier transform: per line, the discrete Fourier transform summed
//! as its definition in f64 (twiddles from the exact index `j k mod n`) for lines of up
//! to `NAIVE_MAX` points, and rustfft in f64 for longer ones (where the definition's n^2
//! terms would take too long).

use rustfft::FftPlanner;
use rustfft::num_complex::Complex;

use crate::ir::{FftKind, FftSpec, Shape};

const NAIVE_MAX: usize = 1024;

/// The transform of one line, unscaled.
fn line(x: &mut [Complex<f64>], inverse: bool) {
    let n = x.len();
    if n > NAIVE_MAX {
        let mut planner = FftPlanner::<f64>::new();
        let fft = if inverse { planner.plan_fft_inverse(n) } else { planner.plan_fft_forward(n) };
        fft.process(x);
        return;
    }
    let sign = if inverse { 1.0 } else { -1.0 };
    let y: Vec<Complex<f64>> = (0..n)
        .map(|k| {
            (0..n)
                .map(|j| {
                    let turn = ((j * k) % n) as f64 / n as f64;
                    x[j] * Complex::from_polar(1.0, sign * 2.0 * std::f64::consts::PI * turn)
                })
                .sum()
        })
        .collect();
    x.copy_from_slice(&y);
}

/// Applies `f` to every line of `x` (column-major, shaped `shape`) along `dim`.
fn lines(x: &mut [Complex<f64>], shape: &Shape, dim: usize, f: &mut dyn FnMut(&mut Vec<Complex<f64>>)) {
    let n = shape.dim(dim);
    let stride: usize = shape.dims()[..dim].iter().product();
    let mut buf = Vec::with_capacity(n);
    for start in (0..shape.numel()).filter(|i| (i / stride).is_multiple_of(n)) {
        buf.clear();
        buf.extend((0..n).map(|k| x[start + k * stride]));
        f(&mut buf);
        for (k, &v) in buf.iter().enumerate() {
            x[start + k * stride] = v;
        }
    }
}

/// The transform `spec` of `x` (complex, or real with zero imaginary parts, shaped
/// `shape`) into an array shaped `out_shape`, as (real, imaginary) pairs; real results
/// have zero imaginary parts.
pub fn transform(spec: &FftSpec, shape: &Shape, out_shape: &Shape, mut x: Vec<Complex<f64>>) -> Vec<Complex<f64>> {
    let dims = spec.dims();
    let halved = spec.halved_dim();
    let each = |x: &mut Vec<Complex<f64>>, ds: &[u8]| {
        for &d in ds {
            lines(x, shape, d as usize, &mut |l| line(l, spec.inverse));
        }
    };
    let real_shape = if spec.kind == FftKind::ComplexToReal { out_shape } else { shape };
    let points: usize = dims.iter().map(|&d| real_shape.dim(d as usize)).product();
    let scale = spec.norm.scale(points, spec.inverse);
    let out = match spec.kind {
        FftKind::Complex => {
            each(&mut x, dims);
            x
        }
        FftKind::RealToComplex => {
            // The whole transform, then the first n/2 + 1 points along the halved one.
            each(&mut x, dims);
            let keep = out_shape.dim(halved);
            let stride: usize = shape.dims()[..halved].iter().product();
            let n = shape.dim(halved);
            (0..shape.numel()).filter(|i| (i / stride) % n < keep).map(|i| x[i]).collect()
        }
        FftKind::ComplexToReal => {
            each(&mut x, &dims[..dims.len() - 1]);
            // Each line along the halved dimension completed to its Hermitian whole.
            let n = out_shape.dim(halved);
            let stride: usize = shape.dims()[..halved].iter().product();
            let h = shape.dim(halved);
            let mut out = vec![Complex::default(); out_shape.numel()];
            for start in (0..shape.numel()).filter(|i| (i / stride).is_multiple_of(h)) {
                let (outer, inner) = (start / (stride * h), start % stride);
                let half = |k: usize| x[start + k * stride];
                let mut full: Vec<Complex<f64>> = (0..n)
                    .map(|k| match k {
                        0 => Complex::new(half(0).re, 0.0),
                        k if 2 * k == n => Complex::new(half(k).re, 0.0),
                        k if k < h => half(k),
                        k => half(n - k).conj(),
                    })
                    .collect();
                line(&mut full, true);
                for (k, v) in full.iter().enumerate() {
                    out[outer * stride * n + k * stride + inner] = Complex::new(v.re, 0.0);
                }
            }
            out
        }
    };
    out.into_iter().map(|v| v * scale).collect()
}

/// The size the rounding errors of the computed transform `y` (the reference's values) are
/// relative to, for every element alike: a transform of n points rounds each element
/// O(log2 n) times, and the errors spread over all elements in proportion to the whole
/// result (its root mean square), not to each element's own size. So an element much
/// smaller than the rest is held to the error of the whole, as transforms are.
pub fn error_scale(spec: &FftSpec, shape: &Shape, out_shape: &Shape, y: &[Complex<f64>]) -> f64 {
    let real_shape = if spec.kind == FftKind::ComplexToReal { out_shape } else { shape };
    let points: usize = spec.dims().iter().map(|&d| real_shape.dim(d as usize)).product();
    let mean_square = y.iter().map(|z| z.norm_sqr()).sum::<f64>() / y.len().max(1) as f64;
    (points.max(2) as f64).log2() * mean_square.sqrt()
}
