//! Comparing a computed array with its reference, element by element.

use super::reference::{Data, Elem, Reference, coords, read};
use crate::ir::{DType, Scalar, Shape, Value};

/// Allowed error per element: `abs + rel * |reference|`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Tolerance {
    pub abs: f64,
    pub rel: f64,
}

/// How a computed array differs from its reference.
#[derive(Clone, Debug)]
pub struct Mismatch {
    pub bad: usize,
    pub total: usize,
    /// Coordinates of the element farthest outside its tolerance.
    pub worst: Vec<i64>,
    pub computed: f64,
    pub reference: f64,
    pub error: f64,
    /// The error in units in the last place of the array's type (integers: the difference).
    pub ulps: f64,
}

/// The reference value as the array's type holds it (f32, f16 and bf16 results are
/// compared with the f64 reference rounded to their type, so an overflow to infinity is
/// not an error).
fn rounded(dtype: DType, r: f64) -> f64 {
    match dtype {
        DType::F32 | DType::F16 | DType::BF16 => Scalar::F64(r).cast(dtype).as_f64(),
        _ => r,
    }
}

/// Distance between `a` and `b` in representable values of `dtype`.
fn ulps(dtype: DType, a: f64, b: f64) -> f64 {
    fn ordered32(x: f32) -> i64 {
        let b = x.to_bits() as i32;
        (if b < 0 { i32::MIN.wrapping_sub(b) } else { b }) as i64
    }
    fn ordered64(x: f64) -> i128 {
        let b = x.to_bits() as i64;
        (if b < 0 { i64::MIN.wrapping_sub(b) } else { b }) as i128
    }
    // A 16-bit value's bits are the upper half of an f32's (bf16) or map onto them in order.
    let ordered16 = |x: f64| ordered32(rounded(dtype, x) as f32);
    match dtype {
        DType::F32 => (ordered32(a as f32) - ordered32(b as f32)).abs() as f64,
        DType::F16 | DType::BF16 => {
            let step = if dtype == DType::F16 { 1 << 13 } else { 1 << 16 };
            ((ordered16(a) - ordered16(b)).abs() / step) as f64
        }
        DType::F64 => (ordered64(a) - ordered64(b)).abs() as f64,
        _ => (a - b).abs(),
    }
}

fn unravel(shape: &Shape, mut i: usize) -> Vec<i64> {
    (0..shape.rank())
        .map(|d| {
            let n = shape.dim(d);
            let c = i % n;
            i /= n;
            c as i64
        })
        .collect()
}

/// Compares `value` (host memory, of `dtype`) with `reference`; `None` when every element
/// is within tolerance. NaN matches NaN, and infinities match themselves.
pub fn compare(reference: &Reference, value: &Value, tol: Tolerance) -> Option<Mismatch> {
    let (dtype, shape) = (reference.dtype, reference.shape);
    let bytes = value.storage.host_bytes().expect("compared values are in host memory");
    let (mut bad, mut worst): (usize, Option<(f64, usize, f64, f64)>) = (0, None);
    let part = dtype.real();
    for (i, coord) in coords(&shape).enumerate() {
        let got = read(dtype, bytes, value.layout.offset_of(&coord, shape.rank()));
        // (computed, reference) per part, and the size errors are relative to: a complex
        // value's parts are compared against its modulus.
        let (pairs, n, size) = match (&reference.data, got) {
            (Data::Float(r), Elem::C(re, im)) => {
                let want = (rounded(part, r[2 * i]), rounded(part, r[2 * i + 1]));
                let scale = reference.scale.as_ref().map_or(0.0, |s| s[i]);
                ([(re, want.0), (im, want.1)], 2, want.0.hypot(want.1).max(scale))
            }
            (Data::Float(r), Elem::F(g)) => {
                let want = rounded(dtype, r[i]);
                ([(g, want), (0.0, 0.0)], 1, reference.magnitude(i).max(want.abs()))
            }
            (Data::Int(_), g) => {
                let want = reference.at(i).f();
                ([(g.i() as f64, want), (0.0, 0.0)], 1, want.abs())
            }
            (Data::Float(r), g) => ([(g.f(), r[i]), (0.0, 0.0)], 1, r[i].abs()),
        };
        let allowed = tol.abs + tol.rel * size;
        // The part farthest outside its tolerance, if any.
        let mut excess_here: Option<(f64, f64, f64)> = None;
        for &(got, want) in &pairs[..n] {
            let same = got == want || (got.is_nan() && want.is_nan());
            let error = (got - want).abs();
            if same || error <= allowed {
                continue;
            }
            // NaN errors (one side NaN) rank above every finite excess.
            let excess = if error.is_nan() { f64::INFINITY } else { error - allowed };
            if excess_here.is_none_or(|(w, ..)| excess > w) {
                excess_here = Some((excess, got, want));
            }
        }
        let Some((excess, got, want)) = excess_here else { continue };
        bad += 1;
        if worst.is_none_or(|(w, ..)| excess > w) {
            worst = Some((excess, i, got, want));
        }
    }
    let (_, at, computed, reference_value) = worst?;
    Some(Mismatch {
        bad,
        total: shape.numel(),
        worst: unravel(&shape, at),
        computed,
        reference: reference_value,
        error: (computed - reference_value).abs(),
        ulps: ulps(part, computed, reference_value),
    })
}
