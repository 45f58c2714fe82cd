//! Fourier transforms through rustfft (complex lines) and realfft (real input or output
//! lines). A transform along several dimensions is a pass of one-dimensional transforms
//! per dimension: the first reads the input in its own layout, later ones work in place
//! on the dense result (or, for complex-to-real, on a dense complex intermediate). A pass
//! copies blocks of lines into a buffer, transforms them and copies them out, and the
//! blocks are spread over the worker threads; the last pass applies the normalisation as
//! it copies out.

use std::sync::Arc;

use parking_lot::Mutex;
use realfft::RealFftPlanner;
use rustfft::num_complex::Complex;
use rustfft::{Fft, FftNum, FftPlanner};

use super::threads::Workers;
use crate::exec::memory::HostPool;
use crate::ir::{DType, FftKind, FftSpec, MAX_RANK, Result, Shape, Storage, Value, bail};

/// Elements (complex or real) a block of lines holds at most: the lines of a block are
/// copied in together, so that strided lines are read a cache line at a time.
const BLOCK_ELEMENTS: usize = 1 << 15;
/// Transforms of fewer elements run on the calling thread.
const SERIAL_ELEMENTS: usize = 1 << 14;

/// Plans by length and direction, per precision: each planner keeps the plans it made,
/// and they are shared by every transform of that length.
pub struct Plans {
    complex32: Mutex<FftPlanner<f32>>,
    complex64: Mutex<FftPlanner<f64>>,
    real32: Mutex<RealFftPlanner<f32>>,
    real64: Mutex<RealFftPlanner<f64>>,
}

impl Plans {
    pub fn new() -> Plans {
        Plans {
            complex32: Mutex::new(FftPlanner::new()),
            complex64: Mutex::new(FftPlanner::new()),
            real32: Mutex::new(RealFftPlanner::new()),
            real64: Mutex::new(RealFftPlanner::new()),
        }
    }
}

/// A part type (f32 or f64) and where its plans are kept.
trait Part: FftNum + Default {
    fn complex_planner(plans: &Plans) -> &Mutex<FftPlanner<Self>>;
    fn real_planner(plans: &Plans) -> &Mutex<RealFftPlanner<Self>>;
}

impl Part for f32 {
    fn complex_planner(plans: &Plans) -> &Mutex<FftPlanner<f32>> {
        &plans.complex32
    }
    fn real_planner(plans: &Plans) -> &Mutex<RealFftPlanner<f32>> {
        &plans.real32
    }
}

impl Part for f64 {
    fn complex_planner(plans: &Plans) -> &Mutex<FftPlanner<f64>> {
        &plans.complex64
    }
    fn real_planner(plans: &Plans) -> &Mutex<RealFftPlanner<f64>> {
        &plans.real64
    }
}

/// An element a pass copies: a real part type or a complex number of one.
trait Element<T: Part>: Copy + Send + Sync + Default {
    fn scaled(self, s: T) -> Self;
}

impl<T: Part> Element<T> for T {
    fn scaled(self, s: T) -> T {
        self * s
    }
}

impl<T: Part> Element<T> for Complex<T> {
    fn scaled(self, s: T) -> Complex<T> {
        self * s
    }
}

/// An array a pass reads or writes: its first element and its strides, in elements.
struct Strided<E> {
    base: *mut E,
    offset: i64,
    strides: [i64; MAX_RANK],
}

impl<E> Clone for Strided<E> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<E> Copy for Strided<E> {}

// SAFETY: the step owning the arrays waits for its pass to finish, and the tasks of a
// pass write disjoint lines.
unsafe impl<E> Send for Strided<E> {}
unsafe impl<E> Sync for Strided<E> {}

impl<E> Strided<E> {
    fn of(v: &Value) -> Result<Strided<E>> {
        let Some(bytes) = v.storage.host_bytes() else { bail!(Internal, "transform operand is not in host memory") };
        Ok(Strided { base: bytes.as_ptr() as *mut E, offset: v.layout.offset, strides: v.layout.strides })
    }

    fn dense(base: *mut E, shape: &Shape) -> Strided<E> {
        Strided { base, offset: 0, strides: shape.dense_strides() }
    }

    /// The element at `offset + k * stride`.
    ///
    /// # Safety
    /// The offset lies inside the array.
    unsafe fn at(&self, offset: i64) -> *mut E {
        unsafe { self.base.offset(offset as isize) }
    }
}

/// A transform of a block's lines: input lines, output lines, the plan's scratch.
type Lines<'a, T, I, O> = &'a (dyn Fn(&mut [I], &mut [O], &mut [Complex<T>]) + Sync);

/// One pass: the lines along `dim` of `src` (shaped `src_shape`) are copied into blocks,
/// transformed by `transform` (lines of `src_shape[dim]` elements in, of
/// `dst_shape[dim]` out) and copied to `dst`, multiplied by `scale` when it is not 1.
/// `dst` may be `src` (the lines are then transformed in place, each by one task).
#[allow(clippy::too_many_arguments)]
fn pass<T: Part, I: Element<T>, O: Element<T>>(
    workers: &Workers,
    src: Strided<I>,
    src_shape: &Shape,
    dst: Strided<O>,
    dim: usize,
    n_out: usize,
    scale: T,
    scratch_len: usize,
    transform: Lines<T, I, O>,
) {
    let n_in = src_shape.dim(dim);
    let lines_shape = src_shape.with_dim(dim, 1);
    let lines = lines_shape.numel();
    let per_block = (BLOCK_ELEMENTS / n_in.max(n_out)).clamp(1, lines.max(1));
    let blocks = lines.div_ceil(per_block);
    let serial = lines * n_in.max(n_out) < SERIAL_ELEMENTS;
    let unit = T::one();
    workers.for_each(blocks, serial, |range| {
        let mut ins = vec![I::default(); per_block * n_in];
        let mut outs = vec![O::default(); per_block * n_out];
        let mut scratch = vec![Complex::default(); scratch_len];
        let mut bases = vec![(0i64, 0i64); per_block];
        for block in range {
            let first = block * per_block;
            let count = per_block.min(lines - first);
            for (b, base) in bases[..count].iter_mut().enumerate() {
                let c = lines_shape.unravel(first + b);
                let offset =
                    |s: &[i64; MAX_RANK], o: i64| o + (0..lines_shape.rank()).map(|d| c[d] as i64 * s[d]).sum::<i64>();
                *base = (offset(&src.strides, src.offset), offset(&dst.strides, dst.offset));
            }
            let (sd, dd) = (src.strides[dim], dst.strides[dim]);
            // A strided line is walked point by point across the block's lines, which are
            // neighbours in memory (one cache line and page serve them all); a contiguous
            // one line by line.
            // SAFETY: every line lies inside its array (the layouts span the shapes).
            unsafe {
                if sd.abs() == 1 {
                    for (b, &(s, _)) in bases[..count].iter().enumerate() {
                        for (k, x) in ins[b * n_in..(b + 1) * n_in].iter_mut().enumerate() {
                            *x = *src.at(s + k as i64 * sd);
                        }
                    }
                } else {
                    for k in 0..n_in {
                        for (b, &(s, _)) in bases[..count].iter().enumerate() {
                            ins[b * n_in + k] = *src.at(s + k as i64 * sd);
                        }
                    }
                }
            }
            let (ins, outs) = (&mut ins[..count * n_in], &mut outs[..count * n_out]);
            transform(ins, outs, &mut scratch);
            let scaled = |x: O| if scale == unit { x } else { x.scaled(scale) };
            // SAFETY: as above; tasks write disjoint lines.
            unsafe {
                if dd.abs() == 1 {
                    for (b, &(_, d)) in bases[..count].iter().enumerate() {
                        for (k, &x) in outs[b * n_out..(b + 1) * n_out].iter().enumerate() {
                            *dst.at(d + k as i64 * dd) = scaled(x);
                        }
                    }
                } else {
                    for k in 0..n_out {
                        for (b, &(_, d)) in bases[..count].iter().enumerate() {
                            *dst.at(d + k as i64 * dd) = scaled(outs[b * n_out + k]);
                        }
                    }
                }
            }
        }
    });
}

/// A complex pass along `d` of `src` (shaped `shape`) into `dst` with `fft`. Where both
/// are dense and the lines are the first dimension's, they are runs of memory: each block
/// is copied into place and transformed there (rustfft takes the lines of a block in one
/// call); otherwise lines go through the block buffers of `pass`.
#[allow(clippy::too_many_arguments)]
fn complex_pass<T: Part>(
    workers: &Workers,
    fft: &Arc<dyn Fft<T>>,
    src: Strided<Complex<T>>,
    shape: &Shape,
    dst: Strided<Complex<T>>,
    d: usize,
    scale: T,
) {
    let dense = shape.dense_strides();
    let is_dense = |s: &Strided<Complex<T>>| (0..shape.rank()).all(|k| shape.dim(k) <= 1 || s.strides[k] == dense[k]);
    let n = shape.dim(d);
    if !(is_dense(&src) && is_dense(&dst) && shape.dims()[..d].iter().all(|&l| l == 1)) {
        let lines = |ins: &mut [Complex<T>], outs: &mut [Complex<T>], scratch: &mut [Complex<T>]| {
            fft.process_outofplace_with_scratch(ins, outs, scratch);
        };
        pass(workers, src, shape, dst, d, n, scale, fft.get_outofplace_scratch_len(), &lines);
        return;
    }
    let lines = shape.numel() / n;
    let per_block = (BLOCK_ELEMENTS / n).clamp(1, lines);
    let serial = shape.numel() < SERIAL_ELEMENTS;
    let unit = T::one();
    workers.for_each(lines.div_ceil(per_block), serial, |range| {
        let mut scratch = vec![Complex::default(); fft.get_inplace_scratch_len()];
        for block in range {
            let first = block * per_block;
            let count = per_block.min(lines - first);
            // SAFETY: the block's lines lie inside both arrays (dense layouts of `shape`);
            // tasks write disjoint blocks, and a block copied onto itself is not copied.
            let out = unsafe {
                let from = src.at(src.offset + (first * n) as i64);
                let to = dst.at(dst.offset + (first * n) as i64);
                if from != to {
                    std::ptr::copy_nonoverlapping(from, to, count * n);
                }
                std::slice::from_raw_parts_mut(to, count * n)
            };
            fft.process_with_scratch(out, &mut scratch);
            if scale != unit {
                out.iter_mut().for_each(|x| *x = *x * scale);
            }
        }
    });
}

fn run<T: Part>(
    plans: &Plans,
    workers: &Workers,
    memory: &Arc<HostPool>,
    spec: &FftSpec,
    (shape, out_shape): (&Shape, &Shape),
    input: &Value,
    output: &Value,
) -> Result<()> {
    if out_shape.numel() == 0 {
        return Ok(());
    }
    // The full (real) lengths of the transformed dimensions give the scale.
    let real_shape = if spec.kind == FftKind::ComplexToReal { out_shape } else { shape };
    let points: usize = spec.dims().iter().map(|&d| real_shape.dim(d as usize)).product();
    let scale = T::from_f64(spec.norm.scale(points, spec.inverse)).expect("a float");
    let unit = T::one();
    let complex_plan = |n: usize| {
        let mut planner = T::complex_planner(plans).lock();
        if spec.inverse { planner.plan_fft_inverse(n) } else { planner.plan_fft_forward(n) }
    };
    let dims = spec.dims();
    let last = dims.len() - 1;
    // A complex-to-complex pass along `d` from `src` to `dst` (shaped `shape`).
    let input_pass = |src: Strided<Complex<T>>, dst: Strided<Complex<T>>, d: usize, s: T| {
        complex_pass(workers, &complex_plan(shape.dim(d)), src, shape, dst, d, s);
    };
    match spec.kind {
        FftKind::Complex => {
            let out = Strided::<Complex<T>>::of(output)?;
            for (i, &d) in dims.iter().enumerate() {
                let src = if i == 0 { Strided::of(input)? } else { out };
                input_pass(src, out, d as usize, if i == last { scale } else { unit });
            }
        }
        FftKind::RealToComplex => {
            let halved = spec.halved_dim();
            let r2c = T::real_planner(plans).lock().plan_fft_forward(shape.dim(halved));
            let (n, h) = (r2c.len(), r2c.complex_len());
            let out = Strided::<Complex<T>>::of(output)?;
            let lines = |ins: &mut [T], outs: &mut [Complex<T>], scratch: &mut [Complex<T>]| {
                for (i, o) in ins.chunks_exact_mut(n).zip(outs.chunks_exact_mut(h)) {
                    r2c.process_with_scratch(i, o, scratch).expect("lines of the plan's length");
                }
            };
            let first_scale = if last == 0 { scale } else { unit };
            pass(workers, Strided::of(input)?, shape, out, halved, h, first_scale, r2c.get_scratch_len(), &lines);
            for (i, &d) in dims[..last].iter().enumerate() {
                let d = d as usize;
                let s = if i + 1 == last { scale } else { unit };
                complex_pass(workers, &complex_plan(out_shape.dim(d)), out, out_shape, out, d, s);
            }
        }
        FftKind::ComplexToReal => {
            let halved = spec.halved_dim();
            // The other dimensions are transformed first, into a dense intermediate (the
            // input is never written).
            let mut src = Strided::<Complex<T>>::of(input)?;
            let _keep = if last > 0 {
                let bytes = shape.numel() * std::mem::size_of::<Complex<T>>();
                let buf = memory.alloc(bytes)?;
                let Some(b) = buf.host_bytes() else { bail!(Internal, "host memory without bytes") };
                let tmp = Strided::dense(b.as_ptr() as *mut Complex<T>, shape);
                for (i, &d) in dims[..last].iter().enumerate() {
                    input_pass(if i == 0 { src } else { tmp }, tmp, d as usize, unit);
                }
                src = tmp;
                Some(buf)
            } else {
                None
            };
            let c2r = T::real_planner(plans).lock().plan_fft_inverse(out_shape.dim(halved));
            let (n, h) = (c2r.len(), c2r.complex_len());
            let lines = |ins: &mut [Complex<T>], outs: &mut [T], scratch: &mut [Complex<T>]| {
                for (i, o) in ins.chunks_exact_mut(h).zip(outs.chunks_exact_mut(n)) {
                    // Nonzero imaginary parts where a real signal has none are ignored (and
                    // reported by realfft, which computes the transform without them).
                    match c2r.process_with_scratch(i, o, scratch) {
                        Ok(()) | Err(realfft::FftError::InputValues(..)) => {}
                        Err(e) => unreachable!("lines of the plan's length: {e}"),
                    }
                }
            };
            let out = Strided::<T>::of(output)?;
            pass(workers, src, shape, out, halved, n, scale, c2r.get_scratch_len(), &lines);
        }
    }
    Ok(())
}

/// The transform `spec` of `input` (of type `dtype`, in any layout) into `output` (dense);
/// `shapes` are the input's and the output's.
#[allow(clippy::too_many_arguments)]
pub fn fft(
    plans: &Plans,
    workers: &Workers,
    memory: &Arc<HostPool>,
    spec: &FftSpec,
    dtype: DType,
    shapes: (&Shape, &Shape),
    input: &Value,
    output: &Value,
) -> Result<()> {
    match dtype {
        DType::F32 | DType::C64 => run::<f32>(plans, workers, memory, spec, shapes, input, output),
        DType::F64 | DType::C128 => run::<f64>(plans, workers, memory, spec, shapes, input, output),
        t => bail!(DTypeMismatch, "a Fourier transform needs f32, f64, c64 or c128 input, not {t}"),
    }
}
