//! Complex values in chunk registers: a lane holds the real and imaginary parts side by
//! side, as arrays store them. The executor computes complex arithmetic through real
//! operations on the parts (front/complex.rs writes it so), so the only complex
//! operations here move parts in and out of lanes.

use std::slice;

use super::ops::Opnd;
use crate::ir::{DType, UnaryOp};

/// One part of each of `n` complex lanes of `dtype`: `part` 0 is the real part.
///
/// # Safety
/// `src` holds `n` complex elements, `dst` room for `n` parts; no overlap.
pub unsafe fn part(op: UnaryOp, dtype: DType, src: *const u8, dst: *mut u8, n: usize) {
    let part = match op {
        UnaryOp::Real => 0,
        UnaryOp::Imag => 1,
        _ => unreachable!("{} of complex values is computed from their parts", op.name()),
    };
    unsafe {
        match dtype {
            DType::C64 => take::<f32>(part, src, dst, n),
            _ => take::<f64>(part, src, dst, n),
        }
    }
}

#[inline(always)]
unsafe fn take<T: Copy>(part: usize, src: *const u8, dst: *mut u8, n: usize) {
    let s = unsafe { slice::from_raw_parts(src as *const [T; 2], n) };
    let d = unsafe { slice::from_raw_parts_mut(dst as *mut T, n) };
    for (o, z) in d.iter_mut().zip(s) {
        *o = z[part];
    }
}

/// Complex lanes from real parts `re` and imaginary parts `im` of type `T`.
///
/// # Safety
/// Vector operands hold `n` values of `T`; `dst` room for `n` pairs, overlapping neither.
#[inline(always)]
pub unsafe fn join<T: super::elem::Elem>(re: Opnd, im: Opnd, dst: *mut u8, n: usize) {
    let d = unsafe { slice::from_raw_parts_mut(dst as *mut [T; 2], n) };
    let lane = |o: Opnd, i: usize| match o {
        Opnd::Vec(p) => unsafe { *(p as *const T).add(i) },
        Opnd::Scalar(bits) => T::from_u64(bits),
    };
    for (i, z) in d.iter_mut().enumerate() {
        *z = [lane(re, i), lane(im, i)];
    }
}

/// `dst[i] = cond[i] ? a[i] : b[i]` for complex lanes (never uniform: lowering keeps
/// complex values in registers, as a launch value holds at most 8 bytes).
///
/// # Safety
/// As for `ops::select`.
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
            for i in 0..n {
                d[i] = if c[i] != 0 { a[i] } else { b[i] };
            }
        }
    }
}
