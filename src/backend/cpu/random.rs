//! Random values for a chunk: the streams of `ir::random`, one element per lane.

use super::ops::Opnd;
use crate::ir::DType;
use crate::ir::random::{RngKind, uniform_f32, uniform_f64, words};

/// Where in the random streams the lanes read: each is one value or `n` lanes of i64.
pub struct StreamAt {
    pub seed: Opnd,
    pub draw: Opnd,
    pub index: Opnd,
}

/// Writes `n` uniform values of `dtype` (f32 or f64) from word `word` of the stream at
/// `at` to `dst`.
///
/// # Safety
/// Vector operands point at `n` i64 lanes; `dst` has room for `n` values of `dtype`.
pub unsafe fn uniform(kind: RngKind, word: u8, dtype: DType, at: StreamAt, dst: *mut u8, n: usize) {
    let StreamAt { seed, draw, index } = at;
    let lane = |o: &Opnd, i: usize| match *o {
        Opnd::Scalar(bits) => bits,
        // SAFETY: the caller passes `n` lanes.
        Opnd::Vec(p) => unsafe { *(p as *const u64).add(i) },
    };
    let w = word as usize;
    match dtype {
        DType::F32 => {
            // SAFETY: room for `n` f32 values.
            let out = unsafe { std::slice::from_raw_parts_mut(dst as *mut f32, n) };
            for (i, o) in out.iter_mut().enumerate() {
                *o = uniform_f32(&words(kind, lane(&seed, i), lane(&draw, i), lane(&index, i)), w);
            }
        }
        DType::F64 => {
            // SAFETY: room for `n` f64 values.
            let out = unsafe { std::slice::from_raw_parts_mut(dst as *mut f64, n) };
            for (i, o) in out.iter_mut().enumerate() {
                *o = uniform_f64(&words(kind, lane(&seed, i), lane(&draw, i), lane(&index, i)), w);
            }
        }
        other => unreachable!("random values of type {other}"),
    }
}
