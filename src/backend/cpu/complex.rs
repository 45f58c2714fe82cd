//! Complex values in chunk registers: a lane holds the real and imaginary parts side by
//! side, as arrays store them. The executor computes complex arithmetic through real
//! operations on the parts (front/complex.rs writes it so), so the only complex
//! operations here move parts in and out of lanes.

use std::slice;

use super::ops::Opnd;
use crate::ir::{DType, UnaryOp};

/// One part of each of `n` complex lanes of `dtype`: `part` 0 is the real part. Inlined
/// into the callers' per-instruction-set copies, where the fixed-stride loops vectorise
/// (shuffles that split the pairs).
///
/// # Safety
/// `src` holds `n` complex elements, `dst` room for `n` parts; no overlap.
#[inline(always)]
pub unsafe fn part(op: UnaryOp, dtype: DType, src: *const u8, dst: *mut u8, n: usize) {
    unsafe {
        match (op, dtype) {
            (UnaryOp::Real, DType::C64) => take::<f32, 0>(src, dst, n),
            (UnaryOp::Imag, DType::C64) => take::<f32, 1>(src, dst, n),
            (UnaryOp::Real, _) => take::<f64, 0>(src, dst, n),
            (UnaryOp::Imag, _) => take::<f64, 1>(src, dst, n),
            _ => unreachable!("{} of complex values is computed from their parts", op.name()),
        }
    }
}

#[inline(always)]
unsafe fn take<T: Copy, const PART: usize>(src: *const u8, dst: *mut u8, n: usize) {
    let s = unsafe { slice::from_raw_parts(src as *const [T; 2], n) };
    let d = unsafe { slice::from_raw_parts_mut(dst as *mut T, n) };
    for (o, z) in d.iter_mut().zip(s) {
        *o = z[PART];
    }
}

/// Complex lanes from real parts `re` and imaginary parts `im` of type `T`; one loop per
/// operand shape, so each vectorises (interleaving shuffles) without lane checks.
///
/// # Safety
/// Vector operands hold `n` values of `T`; `dst` room for `n` pairs, overlapping neither.
#[inline(always)]
pub unsafe fn join<T: super::elem::Elem>(re: Opnd, im: Opnd, dst: *mut u8, n: usize) {
    let d = unsafe { slice::from_raw_parts_mut(dst as *mut [T; 2], n) };
    let values = |o: Opnd| match o {
        Opnd::Vec(p) => Ok(unsafe { slice::from_raw_parts(p as *const T, n) }),
        Opnd::Scalar(bits) => Err(T::from_u64(bits)),
    };
    match (values(re), values(im)) {
        (Ok(re), Ok(im)) => {
            for ((z, &r), &i) in d.iter_mut().zip(re).zip(im) {
                *z = [r, i];
            }
        }
        (Ok(re), Err(i)) => {
            for (z, &r) in d.iter_mut().zip(re) {
                *z = [r, i];
            }
        }
        (Err(r), Ok(im)) => {
            for (z, &i) in d.iter_mut().zip(im) {
                *z = [r, i];
            }
        }
        (Err(r), Err(i)) => d.fill([r, i]),
    }
}

/// `dst[i] = cond[i] ? a[i] : b[i]` for complex lanes (never uniform: lowering keeps
/// complex values in registers, as a launch value holds at most 8 bytes).
///
/// # Safety
/// As for `ops::select`.
#[inline(always)]
pub unsafe fn select(dtype: DType, cond: Opnd, a: Opnd, b: Opnd, dst: *mut u8, n: usize) {
    unsafe {
        match dtype {
            DType::C64 => choose::<u64>(cond, a, b, dst, n),
            _ => choose::<[u64; 2]>(cond, a, b, dst, n),
        }
    }
}

#[inline(always)]
unsafe fn choose<T: Copy>(cond: Opnd, a: Opnd, b: Opnd, dst: *mut u8, n: usize) {
    let (Opnd::Vec(a), Opnd::Vec(b)) = (a, b) else { unreachable!("complex values live in registers") };
    let (a, b) = unsafe { (slice::from_raw_parts(a as *const T, n), slice::from_raw_parts(b as *const T, n)) };
    let d = unsafe { slice::from_raw_parts_mut(dst as *mut T, n) };
    match cond {
        Opnd::Scalar(c) => d.copy_from_slice(if c != 0 { a } else { b }),
        Opnd::Vec(c) => {
            let c = unsafe { slice::from_raw_parts(c, n) };
            for (((o, &c), &x), &y) in d.iter_mut().zip(c).zip(a).zip(b) {
                *o = if c != 0 { x } else { y };
            }
        }
    }
}
