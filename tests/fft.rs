//! Fourier transforms (sl_fft, sl_ifft, sl_rfft, sl_irfft) on fresh random inputs: against
//! the definition summed in f64 here for small lengths, against transforms known in
//! closed form (impulse, constant, single frequency) for large ones, and round trips.
//!
//! Error bound: the relative RMS error `sqrt(sum |y - ref|^2 / sum |ref|^2)` is at most
//! `C * eps * log2(n)` (n the points transformed, at least 2; eps the type's machine
//! epsilon), with `C = 4`: a radix-2 FFT's RMS error grows like `eps * sqrt(log2 n)`
//! and its worst case like `eps * log2 n`; Bluestein's three transforms and the
//! twiddles' own rounding take part of the factor.

mod common;

use std::f64::consts::PI;

use common::*;
use rand::Rng;
use rand::rngs::StdRng;
use sluice::*;

type Z = (f64, f64);

const C: f64 = 4.0;

fn eps(dt: sl_dtype) -> f64 {
    if dt == SL_C64 || dt == SL_F32 { f32::EPSILON as f64 } else { f64::EPSILON }
}

fn bound(dt: sl_dtype, points: usize) -> f64 {
    C * eps(dt) * (points.max(2) as f64).log2()
}

fn is_complex(dt: sl_dtype) -> bool {
    dt == SL_C64 || dt == SL_C128
}

fn complex_of(dt: sl_dtype) -> sl_dtype {
    match dt {
        SL_F32 | SL_C64 => SL_C64,
        _ => SL_C128,
    }
}

fn real_of(dt: sl_dtype) -> sl_dtype {
    match dt {
        SL_F32 | SL_C64 => SL_F32,
        _ => SL_F64,
    }
}

/// `v` as the type stores it.
fn stored(dt: sl_dtype, v: &[Z]) -> Vec<Z> {
    let single = dt == SL_C64 || dt == SL_F32;
    v.iter().map(|&(re, im)| if single { (re as f32 as f64, im as f32 as f64) } else { (re, im) }).collect()
}

fn random(rng: &mut StdRng, n: usize, real: bool) -> Vec<Z> {
    (0..n).map(|_| (rng.random_range(-1.0..1.0), if real { 0.0 } else { rng.random_range(-1.0..1.0) })).collect()
}

fn mul(a: Z, b: Z) -> Z {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

/// e^(i 2 pi j k / n) with the sign of `sign`, from the exact index `j k mod n`.
fn twiddle(j: usize, k: usize, n: usize, sign: f64) -> Z {
    let t = 2.0 * PI * (((j as u128 * k as u128) % n as u128) as f64) / n as f64;
    (t.cos(), sign * t.sin())
}

/// The definition along `dim` of `x` (column-major, shaped `shape`), unscaled.
fn dft(x: &[Z], shape: &[usize], dim: usize, inverse: bool) -> Vec<Z> {
    let n = shape[dim];
    let stride: usize = shape[..dim].iter().product();
    let sign = if inverse { 1.0 } else { -1.0 };
    (0..x.len())
        .map(|i| {
            let k = (i / stride) % n;
            let start = i - k * stride;
            (0..n)
                .map(|j| mul(x[start + j * stride], twiddle(j, k, n, sign)))
                .fold((0.0, 0.0), |s, t| (s.0 + t.0, s.1 + t.1))
        })
        .collect()
}

fn scaled(x: Vec<Z>, s: f64) -> Vec<Z> {
    x.into_iter().map(|(a, b)| (a * s, b * s)).collect()
}

/// Relative RMS error of `got` against `want`.
fn rel_rms(got: &[Z], want: &[Z]) -> f64 {
    assert_eq!(got.len(), want.len());
    let err: f64 = got.iter().zip(want).map(|(g, w)| (g.0 - w.0).powi(2) + (g.1 - w.1).powi(2)).sum();
    let norm: f64 = want.iter().map(|w| w.0 * w.0 + w.1 * w.1).sum();
    if norm == 0.0 { err.sqrt() } else { (err / norm).sqrt() }
}

#[track_caller]
fn assert_within(what: &str, dt: sl_dtype, points: usize, got: &[Z], want: &[Z]) {
    let (e, b) = (rel_rms(got, want), bound(dt, points));
    assert!(e <= b, "{what}: relative RMS error {e:.3e} exceeds {b:.3e} ({C} eps log2 {points})");
}

fn fft(a: sl_array, dims: &[i32], norm: sl_fft_norm) -> sl_array {
    let mut h = 0;
    ok(sl_fft(a, dims.len() as i32, dims.as_ptr(), norm, &mut h));
    h
}

fn ifft(a: sl_array, dims: &[i32], norm: sl_fft_norm) -> sl_array {
    let mut h = 0;
    ok(sl_ifft(a, dims.len() as i32, dims.as_ptr(), norm, &mut h));
    h
}

fn rfft(a: sl_array, dims: &[i32], norm: sl_fft_norm) -> sl_array {
    let mut h = 0;
    ok(sl_rfft(a, dims.len() as i32, dims.as_ptr(), norm, &mut h));
    h
}

fn irfft(a: sl_array, dims: &[i32], n: usize, norm: sl_fft_norm) -> sl_array {
    let mut h = 0;
    ok(sl_irfft(a, dims.len() as i32, dims.as_ptr(), n as i64, norm, &mut h));
    h
}

/// The lengths checked against the definition: 1, 2, primes, products of 2, 3, 5 and 7,
/// and lengths whose large prime factors take Bluestein's algorithm.
const SMALL: [usize; 18] = [1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 30, 49, 64, 101, 210, 256, 343, 1009];

#[test]
fn complex_transforms_match_the_definition() {
    let mut rng = rng("complex_transforms_match_the_definition");
    for dt in [SL_C64, SL_C128, SL_F32, SL_F64] {
        for n in SMALL {
            let x = stored(dt, &random(&mut rng, n, !is_complex(dt)));
            let a = upload_parts(dt, &[n], &x);
            let y = fft(a, &[0], SL_FFT_BACKWARD);
            assert_eq!(dtype_of(y), complex_of(dt));
            let want = dft(&x, &[n], 0, false);
            assert_within(&format!("fft type {dt} n {n}"), dt, n, &read_parts(y), &want);
            let back = ifft(y, &[0], SL_FFT_BACKWARD);
            assert_within(&format!("ifft(fft) type {dt} n {n}"), dt, n, &read_parts(back), &x);
            let inv = ifft(a, &[0], SL_FFT_BACKWARD);
            let want = scaled(dft(&x, &[n], 0, true), 1.0 / n as f64);
            assert_within(&format!("ifft type {dt} n {n}"), dt, n, &read_parts(inv), &want);
            release(&[a, y, back, inv]);
        }
    }
}

#[test]
fn real_transforms_match_the_definition() {
    let mut rng = rng("real_transforms_match_the_definition");
    for dt in [SL_F32, SL_F64] {
        for n in SMALL {
            let x = stored(dt, &random(&mut rng, n, true));
            let a = upload_parts(dt, &[n], &x);
            let y = rfft(a, &[0], SL_FFT_BACKWARD);
            assert_eq!((dtype_of(y), shape_of(y)), (complex_of(dt), vec![n / 2 + 1]));
            let want: Vec<Z> = dft(&x, &[n], 0, false)[..n / 2 + 1].to_vec();
            assert_within(&format!("rfft type {dt} n {n}"), dt, n, &read_parts(y), &want);
            let back = irfft(y, &[0], n, SL_FFT_BACKWARD);
            assert_eq!((dtype_of(back), shape_of(back)), (dt, vec![n]));
            assert_within(&format!("irfft(rfft) type {dt} n {n}"), dt, n, &read_parts(back), &x);
            release(&[a, y, back]);
        }
    }
}

/// irfft of a half spectrum that is not one of a real signal: the imaginary parts of the
/// zero (and n/2) frequencies are ignored, the rest completed by symmetry.
#[test]
fn complex_to_real_completes_the_spectrum() {
    let mut rng = rng("complex_to_real_completes_the_spectrum");
    for dt in [SL_C64, SL_C128] {
        for n in [1, 2, 5, 8, 9, 100, 101] {
            let h = n / 2 + 1;
            let half = stored(dt, &random(&mut rng, h, false));
            let full: Vec<Z> = (0..n)
                .map(|k| match k {
                    0 => (half[0].0, 0.0),
                    k if 2 * k == n => (half[k].0, 0.0),
                    k if k < h => half[k],
                    k => (half[n - k].0, -half[n - k].1),
                })
                .collect();
            let want: Vec<Z> = dft(&full, &[n], 0, true).into_iter().map(|z| (z.0 / n as f64, 0.0)).collect();
            let a = upload_parts(dt, &[h], &half);
            let y = irfft(a, &[0], n, SL_FFT_BACKWARD);
            assert_within(&format!("irfft type {dt} n {n}"), dt, n, &read_parts(y), &want);
            release(&[a, y]);
        }
    }
}

#[test]
fn normalisations_scale_each_direction() {
    let mut rng = rng("normalisations_scale_each_direction");
    let n = 60;
    let x = random(&mut rng, n, false);
    let a = upload_parts(SL_C128, &[n], &x);
    let (fwd, inv) = (dft(&x, &[n], 0, false), dft(&x, &[n], 0, true));
    let nf = n as f64;
    for (norm, sf, si) in [
        (SL_FFT_BACKWARD, 1.0, 1.0 / nf),
        (SL_FFT_ORTHO, 1.0 / nf.sqrt(), 1.0 / nf.sqrt()),
        (SL_FFT_FORWARD, 1.0 / nf, 1.0),
    ] {
        let (y, z) = (fft(a, &[0], norm), ifft(a, &[0], norm));
        assert_within(&format!("fft norm {norm}"), SL_C128, n, &read_parts(y), &scaled(fwd.clone(), sf));
        assert_within(&format!("ifft norm {norm}"), SL_C128, n, &read_parts(z), &scaled(inv.clone(), si));
        let real_x: Vec<Z> = x.iter().map(|z| (z.0, 0.0)).collect();
        let real_fwd = dft(&real_x, &[n], 0, false);
        let (r, c) = (upload_parts(SL_F64, &[n], &x), upload_parts(SL_C128, &[n / 2 + 1], &real_fwd[..n / 2 + 1]));
        let (ry, cy) = (rfft(r, &[0], norm), irfft(c, &[0], n, norm));
        assert_within(
            &format!("rfft norm {norm}"),
            SL_C128,
            n,
            &read_parts(ry),
            &scaled(real_fwd[..n / 2 + 1].to_vec(), sf),
        );
        // The unscaled inverse of the half spectrum of real x is n x.
        assert_within(&format!("irfft norm {norm}"), SL_C128, n, &read_parts(cy), &scaled(real_x, nf * si));
        release(&[y, z, r, c, ry, cy]);
    }
    release(&[a]);
}

/// Takes a strided view of `base` (shaped `shape`): every other element along dimension
/// 0 from the second, reversed along the last. Returns the view and its values.
fn strided_view(base: sl_array, shape: &[usize], x: &[Z]) -> (sl_array, Vec<usize>, Vec<Z>) {
    let r = shape.len();
    let mut start: Vec<i64> = vec![0; r];
    let mut count: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    let mut stride: Vec<i64> = vec![1; r];
    start[0] = 1;
    count[0] = (shape[0] as i64 - 1).div_euclid(2).max(1);
    stride[0] = 2;
    start[r - 1] = shape[r - 1] as i64 - 1;
    stride[r - 1] = -1;
    let mut v = 0;
    ok(sl_section(base, start.as_ptr(), count.as_ptr(), stride.as_ptr(), &mut v));
    let vshape: Vec<usize> = count.iter().map(|&c| c as usize).collect();
    let vals = (0..numel(&vshape))
        .map(|i| {
            let c = unravel(&vshape, i);
            let src: Vec<usize> = (0..r).map(|d| (start[d] + stride[d] * c[d] as i64) as usize).collect();
            x[ravel(shape, &src)]
        })
        .collect();
    (v, vshape, vals)
}

#[test]
fn multi_dimensional_batched_strided() {
    let mut rng = rng("multi_dimensional_batched_strided");
    let shape = [9, 6, 5, 7];
    for dt in [SL_C64, SL_C128, SL_F32, SL_F64] {
        let x = stored(dt, &random(&mut rng, numel(&shape), !is_complex(dt)));
        let base = upload_parts(dt, &shape, &x);
        let (v, vs, vx) = strided_view(base, &shape, &x);
        for dims in [vec![0], vec![3], vec![1, 3], vec![3, 0, 2], vec![2, 1]] {
            let points: usize = dims.iter().map(|&d| vs[d as usize]).product();
            let mut want = vx.clone();
            for &d in &dims {
                want = dft(&want, &vs, d as usize, false);
            }
            let y = fft(v, &dims, SL_FFT_BACKWARD);
            assert_within(&format!("fft type {dt} dims {dims:?}"), dt, points, &read_parts(y), &want);
            let back = ifft(y, &dims, SL_FFT_BACKWARD);
            assert_within(&format!("ifft(fft) type {dt} dims {dims:?}"), dt, points, &read_parts(back), &vx);
            release(&[y, back]);
            if is_complex(dt) {
                continue;
            }
            // Real input: the last listed dimension is halved.
            let last = *dims.last().unwrap() as usize;
            let mut hs = vs.clone();
            hs[last] = vs[last] / 2 + 1;
            let half: Vec<Z> = (0..numel(&hs)).map(|i| want[ravel(&vs, &unravel(&hs, i))]).collect();
            let y = rfft(v, &dims, SL_FFT_BACKWARD);
            assert_eq!(shape_of(y), hs);
            assert_within(&format!("rfft type {dt} dims {dims:?}"), dt, points, &read_parts(y), &half);
            let back = irfft(y, &dims, vs[last], SL_FFT_BACKWARD);
            assert_eq!(shape_of(back), vs);
            assert_within(&format!("irfft(rfft) type {dt} dims {dims:?}"), dt, points, &read_parts(back), &vx);
            release(&[y, back]);
        }
        release(&[base, v]);
    }
}

/// Large lengths (beyond what the definition can check in time, and beyond a Vulkan
/// workgroup's shared memory) against transforms known in closed form, and round trips.
#[test]
fn large_lengths_known_transforms() {
    let mut rng = rng("large_lengths_known_transforms");
    // 2^16, 2^17, 2^4 3^3 5 7^2, a prime, 2 times a prime.
    for n in [1 << 16, 1 << 17, 105_840, 65_537, 2 * 50_021] {
        for dt in [SL_C64, SL_C128] {
            let amp = (rng.random_range(0.5..2.0), rng.random_range(-1.0..1.0));
            // An impulse at p: amp e^(-2 pi i p k / n).
            let p = rng.random_range(0..n);
            let mut x = vec![(0.0, 0.0); n];
            x[p] = amp;
            let x = stored(dt, &x);
            let want: Vec<Z> = (0..n).map(|k| mul(x[p], twiddle(p, k, n, -1.0))).collect();
            let a = upload_parts(dt, &[n], &x);
            let y = fft(a, &[0], SL_FFT_BACKWARD);
            assert_within(&format!("impulse type {dt} n {n}"), dt, n, &read_parts(y), &want);
            // A single frequency f: n amp at f, 0 elsewhere.
            let f = rng.random_range(0..n);
            let x: Vec<Z> = (0..n).map(|j| mul(amp, twiddle(j, f, n, 1.0))).collect();
            let mut want = vec![(0.0, 0.0); n];
            want[f] = (amp.0 * n as f64, amp.1 * n as f64);
            let b = upload_parts(dt, &[n], &x);
            let z = fft(b, &[0], SL_FFT_BACKWARD);
            assert_within(&format!("frequency {f} type {dt} n {n}"), dt, n, &read_parts(z), &want);
            // A constant: n amp at 0, and back by the real inverse.
            let c = upload_parts(real_of(dt), &[n], &vec![(amp.0, 0.0); n]);
            let s = rfft(c, &[0], SL_FFT_BACKWARD);
            let mut want = vec![(0.0, 0.0); n / 2 + 1];
            want[0] = (stored(dt, &[amp])[0].0 * n as f64, 0.0);
            assert_within(&format!("constant type {dt} n {n}"), dt, n, &read_parts(s), &want);
            let back = irfft(s, &[0], n, SL_FFT_BACKWARD);
            assert_within(&format!("irfft(constant) type {dt} n {n}"), dt, n, &read_parts(back), &read_parts(c));
            // A random signal there and back.
            let r = stored(dt, &random(&mut rng, n, false));
            let d = upload_parts(dt, &[n], &r);
            let rt = ifft(fft(d, &[0], SL_FFT_ORTHO), &[0], SL_FFT_ORTHO);
            assert_within(&format!("round trip type {dt} n {n}"), dt, n, &read_parts(rt), &r);
            release(&[a, y, b, z, c, s, back, d, rt]);
        }
    }
}

/// Element-wise work before and after a transform is computed in the same flush as it.
#[test]
fn element_wise_neighbours() {
    let mut rng = rng("element_wise_neighbours");
    let (n, m) = (48, 5);
    let x = random(&mut rng, n * m, false);
    let a = upload_parts(SL_C128, &[n, m], &x);
    let mut two = 0;
    ok(sl_scalar_c(SL_C128, 2.0, -1.0, &mut two));
    let mut pre = 0;
    ok(sl_mul(a, two, &mut pre));
    let y = fft(pre, &[0], SL_FFT_ORTHO);
    let mut post = 0;
    ok(sl_abs(y, &mut post));
    let doubled: Vec<Z> = x.iter().map(|&z| mul(z, (2.0, -1.0))).collect();
    let want: Vec<Z> = scaled(dft(&doubled, &[n, m], 0, false), 1.0 / (n as f64).sqrt())
        .into_iter()
        .map(|z| (z.0.hypot(z.1), 0.0))
        .collect();
    assert_within("abs(fft(2 a))", SL_C128, n, &read_parts(post), &want);
    release(&[a, two, pre, y, post]);
}

#[test]
fn bad_arguments_are_refused_at_the_call() {
    let mut rng = rng("bad_arguments_are_refused_at_the_call");
    let x = random(&mut rng, 24, false);
    let a = upload_parts(SL_C64, &[4, 6], &x);
    let r = upload_parts(SL_F32, &[4, 6], &x);
    // Work queued before the failing calls, read after them.
    let mut queued = 0;
    ok(sl_add(a, a, &mut queued));
    let mut out = 7;
    let d = |v: &[i32]| v.to_vec();
    fails(sl_fft(a, 1, d(&[2]).as_ptr(), SL_FFT_BACKWARD, &mut out), SL_ERR_INVALID_ARGUMENT, "dims[0] = 2");
    assert_eq!(out, 0, "a failed call leaves the null handle");
    fails(sl_fft(a, 1, d(&[-1]).as_ptr(), SL_FFT_BACKWARD, &mut out), SL_ERR_INVALID_ARGUMENT, "dims[0] = -1");
    fails(
        sl_ifft(a, 2, d(&[1, 1]).as_ptr(), SL_FFT_BACKWARD, &mut out),
        SL_ERR_INVALID_ARGUMENT,
        "dims[1] = 1 is listed twice",
    );
    fails(sl_fft(a, 0, d(&[0]).as_ptr(), SL_FFT_BACKWARD, &mut out), SL_ERR_INVALID_ARGUMENT, "ndims");
    fails(sl_fft(a, 4, d(&[0, 1, 2, 3]).as_ptr(), SL_FFT_BACKWARD, &mut out), SL_ERR_INVALID_ARGUMENT, "ndims");
    fails(sl_fft(a, 1, std::ptr::null(), SL_FFT_BACKWARD, &mut out), SL_ERR_INVALID_ARGUMENT, "dims is NULL");
    fails(sl_fft(a, 1, d(&[0]).as_ptr(), 3, &mut out), SL_ERR_INVALID_ARGUMENT, "norm");
    fails(sl_fft(a, 1, d(&[0]).as_ptr(), SL_FFT_BACKWARD, std::ptr::null_mut()), SL_ERR_INVALID_ARGUMENT, "");
    // A dimension of length 0.
    let mut empty = 0;
    ok(sl_section(a, [0i64, 0].as_ptr(), [4i64, 0].as_ptr(), [1i64, 1].as_ptr(), &mut empty));
    fails(sl_fft(empty, 1, d(&[1]).as_ptr(), SL_FFT_BACKWARD, &mut out), SL_ERR_INVALID_ARGUMENT, "length 0");
    // ... which is fine as a batch dimension.
    let e = fft(empty, &[0], SL_FFT_BACKWARD);
    assert_eq!(shape_of(e), vec![4, 0]);
    assert!(read_parts(e).is_empty());
    // Types.
    let ints = [1i32, 2, 3, 4];
    let mut i = 0;
    ok(sl_create(SL_I32, 1, [4i64].as_ptr(), SL_COL_MAJOR, ints.as_ptr() as *const _, 16, &mut i));
    fails(sl_fft(i, 1, d(&[0]).as_ptr(), SL_FFT_BACKWARD, &mut out), SL_ERR_DTYPE_MISMATCH, "a is i32");
    fails(sl_rfft(i, 1, d(&[0]).as_ptr(), SL_FFT_BACKWARD, &mut out), SL_ERR_DTYPE_MISMATCH, "a is i32");
    fails(sl_rfft(a, 1, d(&[0]).as_ptr(), SL_FFT_BACKWARD, &mut out), SL_ERR_DTYPE_MISMATCH, "real");
    fails(sl_irfft(r, 1, d(&[0]).as_ptr(), 6, SL_FFT_BACKWARD, &mut out), SL_ERR_DTYPE_MISMATCH, "complex");
    // Output lengths: dimension 1 has 6 points, so n is 10 or 11.
    fails(sl_irfft(a, 1, d(&[1]).as_ptr(), 12, SL_FFT_BACKWARD, &mut out), SL_ERR_SHAPE_MISMATCH, "n = 12");
    fails(sl_irfft(a, 1, d(&[1]).as_ptr(), 0, SL_FFT_BACKWARD, &mut out), SL_ERR_SHAPE_MISMATCH, "10 or 11");
    fails(sl_irfft(a, 1, d(&[1]).as_ptr(), -3, SL_FFT_BACKWARD, &mut out), SL_ERR_SHAPE_MISMATCH, "n = -3");
    for n in [10, 11] {
        let y = irfft(a, &[1], n, SL_FFT_BACKWARD);
        assert_eq!(shape_of(y), vec![4, n]);
        release(&[y]);
    }
    // Nothing queued was lost, and the runtime still works.
    let sum: Vec<Z> = stored(SL_C64, &x).iter().map(|z| (2.0 * z.0, 2.0 * z.1)).collect();
    assert_eq!(read_parts(queued), sum);
    release(&[a, r, queued, empty, e, i]);
}

/// A transform read with sl_debug_peek leaves the pending work as it was.
#[test]
fn debug_peek_of_a_transform() {
    let mut rng = rng("debug_peek_of_a_transform");
    let n = 30;
    let x = random(&mut rng, n, false);
    let a = upload_parts(SL_C128, &[n], &x);
    let y = fft(a, &[0], SL_FFT_BACKWARD);
    let mut b = vec![0u8; n * 16];
    ok(sl_debug_peek(y, SL_COL_MAJOR, b.as_mut_ptr() as *mut _, b.len()));
    let peeked: Vec<Z> = b
        .chunks_exact(16)
        .map(|c| (f64::from_le_bytes(c[..8].try_into().unwrap()), f64::from_le_bytes(c[8..].try_into().unwrap())))
        .collect();
    let want = dft(&x, &[n], 0, false);
    assert_within("peek", SL_C128, n, &peeked, &want);
    assert_eq!(read_parts(y), peeked);
    release(&[a, y]);
}

/// Every kind of transform, fused with element-wise work, read back.
fn transforms_of_every_kind(rng: &mut StdRng) -> Vec<(sl_array, Vec<Z>)> {
    let shape = [12, 5];
    let x = random(rng, 60, false);
    let a = upload_parts(SL_C128, &shape, &x);
    let r = upload_parts(SL_F64, &shape, &x);
    let mut s = 0;
    ok(sl_add(a, a, &mut s));
    let y = fft(s, &[0, 1], SL_FFT_ORTHO);
    let z = ifft(y, &[1], SL_FFT_FORWARD);
    let h = rfft(r, &[1, 0], SL_FFT_BACKWARD);
    let back = irfft(h, &[1, 0], 12, SL_FFT_BACKWARD);
    let twice: Vec<Z> = x.iter().map(|z| (2.0 * z.0, 2.0 * z.1)).collect();
    let mut want_y = twice.clone();
    for d in [0, 1] {
        want_y = dft(&want_y, &shape, d, false);
    }
    let want_y = scaled(want_y, 1.0 / 60f64.sqrt());
    let want_z = dft(&want_y, &shape, 1, true);
    let real: Vec<Z> = x.iter().map(|z| (z.0, 0.0)).collect();
    release(&[a, r, s, h]);
    vec![(y, want_y), (z, want_z), (back, real)]
}

/// Transforms of every kind read back; in result-comparison mode their references agree
/// with the executor's.
#[test]
#[ignore = "run by compare_mode_checks_transforms and profile_names_transforms in a child process"]
fn every_kind_child() {
    let mut rng = rng("every_kind_child");
    for (h, want) in transforms_of_every_kind(&mut rng) {
        assert_within("transform", SL_C128, 60, &read_parts(h), &want);
        release(&[h]);
    }
    if std::env::var_os("SLUICE_COMPARE").is_some() {
        assert_compared_clean(3);
    }
}

#[test]
fn compare_mode_checks_transforms() {
    for mode in ["compute", "copyout"] {
        let tol = [("SLUICE_COMPARE_ABS_TOL", "1e-10"), ("SLUICE_COMPARE_REL_TOL", "1e-10")];
        let env = [("SLUICE_COMPARE", mode), ("SLUICE_COMPARE_ACTION", "error"), tol[0], tol[1]];
        child("every_kind_child", &env);
    }
}

/// Long transforms of every kind (2^20 points, f32 and f64) in result-comparison mode with
/// the default tolerances: their rounding errors grow with log2(n) and spread over every
/// output element (the small ones too), and none may count as a mismatch.
#[test]
#[ignore = "run by long_transforms_under_default_compare_tolerances in a child process"]
fn long_transforms_child() {
    let mut rng = rng("long_transforms_child");
    let n = 1usize << 20;
    for dt in [SL_C64, SL_C128] {
        let x = random(&mut rng, n, false);
        let a = upload_parts(dt, &[n], &x);
        let r = upload_parts(real_of(dt), &[n], &x);
        let y = fft(a, &[0], SL_FFT_BACKWARD);
        let h = rfft(r, &[0], SL_FFT_ORTHO);
        let back = irfft(h, &[0], n, SL_FFT_ORTHO);
        for v in [y, h, back] {
            read_parts(v);
        }
        release(&[a, r, y, h, back]);
    }
    assert_compared_clean(6);
}

#[test]
fn long_transforms_under_default_compare_tolerances() {
    for mode in ["compute", "copyout"] {
        child("long_transforms_child", &[("SLUICE_COMPARE", mode), ("SLUICE_COMPARE_ACTION", "report")]);
    }
}

/// A loop of transforms plans its flush once: later ones replay the trace cache's entry.
#[test]
fn trace_cache_replays_transforms() {
    let mut rng = rng("trace_cache_replays_transforms");
    let mut hits_before: sl_cache_stats = unsafe { std::mem::zeroed() };
    ok(sl_get_cache_stats(SL_CACHE_TRACE, &mut hits_before));
    let x = random(&mut rng, 40 * 3, false);
    let a = upload_parts(SL_C64, &[40, 3], &x);
    // Scalars that no strength reduction folds (as 0 or 1 would be).
    for k in [0.5, 1.5, 2.5, 3.5] {
        let mut s = 0;
        ok(sl_scalar_c(SL_C64, k, 1.0, &mut s));
        let mut b = 0;
        ok(sl_mul(a, s, &mut b));
        let y = fft(b, &[0], SL_FFT_BACKWARD);
        let scaled_x: Vec<Z> = stored(SL_C64, &x).iter().map(|&z| mul(z, (k, 1.0))).collect();
        assert_within("fft in a loop", SL_C64, 40, &read_parts(y), &dft(&scaled_x, &[40, 3], 0, false));
        release(&[s, b, y]);
    }
    let mut hits: sl_cache_stats = unsafe { std::mem::zeroed() };
    ok(sl_get_cache_stats(SL_CACHE_TRACE, &mut hits));
    // Other tests run at the same time may add hits, never take them away.
    assert!(hits.hits >= hits_before.hits + 3, "trace cache hits {} -> {}", hits_before.hits, hits.hits);
    release(&[a]);
}

/// The profile's steps name the transforms.
#[test]
fn profile_names_transforms() {
    let base = std::env::temp_dir().join(format!("sluice-fft-profile-{}", std::process::id()));
    let base = base.to_str().unwrap().to_string();
    child("every_kind_child", &[("SLUICE_PROFILE", &base)]);
    let raw = std::fs::read_to_string(format!("{base}.json")).unwrap();
    assert!(raw.contains("\"fft\""), "no fft step in the profile: {raw:.2000}");
    for ext in ["txt", "json", "trace.json"] {
        let _ = std::fs::remove_file(format!("{base}.{ext}"));
    }
}

fn program_misses() -> u64 {
    let mut s: sl_cache_stats = unsafe { std::mem::zeroed() };
    ok(sl_get_cache_stats(SL_CACHE_PROGRAM, &mut s));
    s.misses
}

/// Runs transforms of each kind and path (shared memory, global passes, Bluestein, real
/// kinds, a strided 2-D view) twice on fresh data; returns the host steps and program
/// cache misses of each round (this child runs alone, so the counters are its own).
fn device_rounds(dt: sl_dtype) -> [(u64, u64); 2] {
    let mut rng = rng("device_rounds");
    let shape = [1 << 13, 2];
    [0, 1].map(|_| {
        let before = (stats().host_steps, program_misses());
        for n in [64, 1 << 13, 101] {
            let x = stored(dt, &random(&mut rng, n, false));
            let a = upload_parts(dt, &[n], &x);
            let y = fft(a, &[0], SL_FFT_ORTHO);
            assert_within(
                &format!("fft type {dt} n {n}"),
                dt,
                n,
                &read_parts(y),
                &scaled(dft(&x, &[n], 0, false), 1.0 / (n as f64).sqrt()),
            );
            release(&[a, y]);
        }
        let x = stored(dt, &random(&mut rng, numel(&shape), false));
        let base = upload_parts(dt, &shape, &x);
        let (v, vs, vx) = strided_view(base, &shape, &x);
        let y = ifft(v, &[1, 0], SL_FFT_FORWARD);
        let want = dft(&dft(&vx, &vs, 1, true), &vs, 0, true);
        assert_within(&format!("ifft type {dt} 2-D view"), dt, numel(&vs), &read_parts(y), &want);
        let real = upload_parts(real_of(dt), &[30], &random(&mut rng, 30, true));
        let back = irfft(rfft(real, &[0], SL_FFT_BACKWARD), &[0], 30, SL_FFT_BACKWARD);
        assert_within(&format!("irfft(rfft) type {dt}"), dt, 30, &read_parts(back), &read_parts(real));
        release(&[base, v, y, real, back]);
        let after = (stats().host_steps, program_misses());
        (after.0 - before.0, after.1 - before.1)
    })
}

#[test]
#[ignore = "run by vulkan_transforms_run_on_the_device in a child process"]
fn device_rounds_child() {
    let [first, second] = device_rounds(SL_C64);
    assert_eq!(first.0, 0, "c64 transforms made host steps");
    assert_eq!(second, (0, 0), "the repeated c64 transforms made host steps or compiled programs");
    let [first, second] = device_rounds(SL_C128);
    if std::env::var_os("SLUICE_VULKAN_NO_F64").is_some() {
        // f64 work runs on the CPU executor.
        assert!(first.0 > 0 && second.0 > 0, "c128 transforms ran on the device without f64");
    } else {
        assert_eq!(first.0, 0, "c128 transforms made host steps");
        assert_eq!(second, (0, 0), "the repeated c128 transforms made host steps or compiled programs");
    }
}

/// On Vulkan, transforms run on the device (no host step), and repeating one compiles
/// nothing; with SLUICE_VULKAN_NO_F64, f64 ones run on the CPU executor.
#[test]
fn vulkan_transforms_run_on_the_device() {
    if !on_vulkan() {
        return;
    }
    child("device_rounds_child", &[]);
    child("device_rounds_child", &[("SLUICE_VULKAN_NO_F64", "on")]);
}
