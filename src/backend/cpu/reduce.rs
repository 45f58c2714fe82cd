//! Reduction and scan arithmetic: how values fold into accumulators, in a fixed order so
//! results do not depend on the number of threads. Floating-point sums and products
//! accumulate in f64.

use std::slice;

use multiversion::multiversion;

use super::elem::{CastTo, Elem, with_elem};
use crate::ir::kernel::KernelReduce;
use crate::ir::{DType, ScanOp};

/// A partial reduction: the accumulator's bits (in `acc_dtype`) and, for arg-reductions,
/// the index of the chosen element (-1 while empty).
#[derive(Copy, Clone, Debug)]
pub struct Acc {
    pub bits: u64,
    pub idx: i64,
}

/// The type accumulators hold for a reduction of values of type `v`.
pub fn acc_dtype(op: KernelReduce, v: DType) -> DType {
    match op {
        KernelReduce::Sum | KernelReduce::Prod | KernelReduce::Mean => {
            if v.is_float() {
                DType::F64
            } else {
                DType::I64
            }
        }
        _ => v,
    }
}

trait Bounds: Elem {
    const LOWEST: Self;
    const HIGHEST: Self;
    fn nan(self) -> bool;
}

macro_rules! bounds {
    ($t:ty, $lo:expr, $hi:expr, $nan:expr) => {
        impl Bounds for $t {
            const LOWEST: Self = $lo;
            const HIGHEST: Self = $hi;
            #[inline(always)]
            #[allow(clippy::redundant_closure_call)]
            fn nan(self) -> bool {
                ($nan)(self)
            }
        }
    };
}
bounds!(f32, f32::NEG_INFINITY, f32::INFINITY, |x: f32| x.is_nan());
bounds!(f64, f64::NEG_INFINITY, f64::INFINITY, |x: f64| x.is_nan());
bounds!(i32, i32::MIN, i32::MAX, |_| false);
bounds!(i64, i64::MIN, i64::MAX, |_| false);
bounds!(u8, u8::MIN, u8::MAX, |_| false);
bounds!(i8, i8::MIN, i8::MAX, |_| false);
bounds!(i16, i16::MIN, i16::MAX, |_| false);
bounds!(u16, u16::MIN, u16::MAX, |_| false);
bounds!(u32, u32::MIN, u32::MAX, |_| false);
bounds!(u64, u64::MIN, u64::MAX, |_| false);

fn highest(v: DType) -> u64 {
    match v {
        DType::Bool => 1,
        _ => with_elem!(v, T => <T as Bounds>::HIGHEST.to_u64()),
    }
}

fn lowest(v: DType) -> u64 {
    with_elem!(v, T => <T as Bounds>::LOWEST.to_u64())
}

pub fn identity(op: KernelReduce, v: DType) -> Acc {
    let bits = match op {
        KernelReduce::Sum | KernelReduce::Mean => 0,
        KernelReduce::Prod => {
            if v.is_float() {
                1f64.to_u64()
            } else {
                1
            }
        }
        KernelReduce::Min | KernelReduce::ArgMin => highest(v),
        KernelReduce::Max | KernelReduce::ArgMax => lowest(v),
    };
    Acc { bits, idx: -1 }
}

#[inline(always)]
fn pick_min<T: Bounds>(a: T, b: T) -> T {
    if a.nan() {
        a
    } else if b.nan() || b < a {
        b
    } else {
        a
    }
}

#[inline(always)]
fn pick_max<T: Bounds>(a: T, b: T) -> T {
    if a.nan() {
        a
    } else if b.nan() || b > a {
        b
    } else {
        a
    }
}

/// `a` then `b` (order matters only for ties in arg-reductions: the earlier wins).
pub fn combine(op: KernelReduce, v: DType, a: Acc, b: Acc) -> Acc {
    let acc = acc_dtype(op, v);
    match op {
        KernelReduce::Sum | KernelReduce::Mean => Acc { bits: add_bits(acc, a.bits, b.bits), idx: -1 },
        KernelReduce::Prod => Acc { bits: mul_bits(acc, a.bits, b.bits), idx: -1 },
        KernelReduce::Min => {
            with_elem!(v, T => Acc { bits: pick_min(T::from_u64(a.bits), T::from_u64(b.bits)).to_u64(), idx: -1 })
        }
        KernelReduce::Max => {
            with_elem!(v, T => Acc { bits: pick_max(T::from_u64(a.bits), T::from_u64(b.bits)).to_u64(), idx: -1 })
        }
        KernelReduce::ArgMin | KernelReduce::ArgMax => {
            if a.idx < 0 {
                return b;
            }
            if b.idx < 0 {
                return a;
            }
            let take_b = with_elem!(v, T => {
                let (x, y) = (T::from_u64(a.bits), T::from_u64(b.bits));
                !x.nan() && (y.nan() || if op == KernelReduce::ArgMin { y < x } else { y > x })
            });
            if take_b { b } else { a }
        }
    }
}

fn add_bits(acc: DType, a: u64, b: u64) -> u64 {
    match acc {
        DType::F64 => (f64::from_bits(a) + f64::from_bits(b)).to_u64(),
        _ => (a as i64).wrapping_add(b as i64) as u64,
    }
}

fn mul_bits(acc: DType, a: u64, b: u64) -> u64 {
    match acc {
        DType::F64 => (f64::from_bits(a) * f64::from_bits(b)).to_u64(),
        _ => (a as i64).wrapping_mul(b as i64) as u64,
    }
}

/// The output element for a finished accumulator; `count` is the number of values
/// folded (for `Mean`).
pub fn finish(op: KernelReduce, v: DType, out: DType, acc: Acc, count: usize) -> u64 {
    match op {
        KernelReduce::Sum | KernelReduce::Prod | KernelReduce::Mean => {
            if acc_dtype(op, v) == DType::F64 {
                let mut x = f64::from_bits(acc.bits);
                if op == KernelReduce::Mean {
                    x /= count as f64;
                }
                if out == DType::F32 { (x as f32).to_u64() } else { x.to_u64() }
            } else {
                acc.bits
            }
        }
        KernelReduce::Min | KernelReduce::Max => acc.bits,
        KernelReduce::ArgMin | KernelReduce::ArgMax => acc.idx as u64,
    }
}

/// Independent accumulators per fold: enough to hide the add latency of wide vectors.
const LANES: usize = 32;

/// Folds `n` values, `at(i)` being value `i` in the accumulator type: `LANES` independent
/// running folds (lane `l` takes values `l`, `l + LANES`, ...), combined pairwise (lane
/// `l` with lane `l + LANES/2`, and so on: a fixed tree, a few vector operations rather
/// than a chain of `LANES` dependent ones), then the values left over in order.
///
/// # Safety
/// `at(i)` may be called for every `i < n` (callers read slices without bounds checks).
#[inline(always)]
unsafe fn fold_wide<A: Copy>(n: usize, init: A, at: impl Fn(usize) -> A, f: impl Fn(A, A) -> A) -> A {
    let mut lanes = [init; LANES];
    let whole = n - n % LANES;
    let mut i = 0;
    while i < whole {
        for l in 0..LANES {
            lanes[l] = f(lanes[l], at(i + l));
        }
        i += LANES;
    }
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for l in 0..width {
            lanes[l] = f(lanes[l], lanes[l + width]);
        }
    }
    (whole..n).fold(lanes[0], |acc, i| f(acc, at(i)))
}

/// Folds `src` converted to the accumulator type `A`.
#[inline(always)]
fn fold_slice<T: Copy, A: Copy>(src: &[T], init: A, to: impl Fn(T) -> A, f: impl Fn(A, A) -> A) -> A {
    // SAFETY: `fold_wide` reads indices below `src.len()`.
    unsafe { fold_wide(src.len(), init, |i| to(*src.get_unchecked(i)), f) }
}

#[inline(always)]
fn fold_extreme<T: Bounds>(src: &[T], init: T, better: impl Fn(T, T) -> bool) -> T {
    let mut lanes = [init; LANES];
    let mut nan = false;
    let mut chunks = src.chunks_exact(LANES);
    for c in &mut chunks {
        for l in 0..LANES {
            nan |= c[l].nan();
            lanes[l] = if better(c[l], lanes[l]) { c[l] } else { lanes[l] };
        }
    }
    let mut acc = init;
    for &x in lanes.iter().chain(chunks.remainder()) {
        nan |= x.nan();
        acc = if better(x, acc) { x } else { acc };
    }
    if nan { src.iter().copied().find(|x| x.nan()).unwrap_or(acc) } else { acc }
}

#[inline(always)]
fn f64_of<T: CastTo<f64>>(x: T) -> f64 {
    x.cast_to()
}

#[inline(always)]
fn i64_of<T: CastTo<i64>>(x: T) -> i64 {
    x.cast_to()
}

#[inline(always)]
fn reduce_typed<T>(op: KernelReduce, v: DType, src: &[T], first_index: i64) -> Acc
where
    T: Bounds + CastTo<f64> + CastTo<i64>,
{
    let float = v.is_float();
    match op {
        // Every value is widened to f64 before it is added (f32 too, as the header says;
        // the `LANES` f64 accumulators still fill whole vectors).
        KernelReduce::Sum | KernelReduce::Mean if float => {
            Acc { bits: fold_slice(src, 0.0, f64_of, |a, b| a + b).to_u64(), idx: -1 }
        }
        KernelReduce::Sum | KernelReduce::Mean => {
            Acc { bits: fold_slice(src, 0, i64_of, i64::wrapping_add) as u64, idx: -1 }
        }
        KernelReduce::Prod if float => Acc { bits: fold_slice(src, 1.0, f64_of, |a, b| a * b).to_u64(), idx: -1 },
        KernelReduce::Prod => Acc { bits: fold_slice(src, 1, i64_of, i64::wrapping_mul) as u64, idx: -1 },
        KernelReduce::Min => {
            Acc { bits: fold_extreme(src, T::from_u64(identity(op, v).bits), |x, m| x < m).to_u64(), idx: -1 }
        }
        KernelReduce::Max => {
            Acc { bits: fold_extreme(src, T::from_u64(identity(op, v).bits), |x, m| x > m).to_u64(), idx: -1 }
        }
        KernelReduce::ArgMin | KernelReduce::ArgMax => {
            let mut acc = identity(op, v);
            for (i, &x) in src.iter().enumerate() {
                acc = combine(op, v, acc, Acc { bits: x.to_u64(), idx: first_index + i as i64 });
                if x.nan() {
                    break;
                }
            }
            acc
        }
    }
}

/// Folds `n` values of type `v` at `src` into one accumulator. Element `i` has index
/// `first_index + i` (for arg-reductions).
///
/// # Safety
/// `src` holds `n` elements of type `v`.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl+avx2+fma", "x86_64+avx2+fma", "x86_64+sse4.1"))]
pub unsafe fn reduce_lanes(op: KernelReduce, v: DType, src: *const u8, n: usize, first_index: i64) -> Acc {
    with_elem!(v, T => reduce_typed::<T>(op, v, unsafe { slice::from_raw_parts(src as *const T, n) }, first_index))
}

/// The sum of `a[i] * b[i]` over `n` float values of type `v`, each product rounded to
/// `v` (as a multiply stores it): the bits `reduce_lanes` gives for the products stored
/// first, without storing them (a fused `sum(x * y)`, a dot product).
///
/// # Safety
/// `a` and `b` hold `n` elements of the float type `v`.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl+avx2+fma", "x86_64+avx2+fma", "x86_64+sse4.1"))]
pub unsafe fn sum_products(v: DType, a: *const u8, b: *const u8, n: usize) -> Acc {
    macro_rules! fold {
        ($t:ty) => {{
            let (a, b) = (a as *const $t, b as *const $t);
            // SAFETY: `fold_wide` reads indices below `n`.
            unsafe { fold_wide(n, 0.0, |i| f64_of(*a.add(i) * *b.add(i)), |x, y| x + y) }
        }};
    }
    let sum = match v {
        DType::F32 => fold!(f32),
        DType::F64 => fold!(f64),
        _ => unreachable!("fused products are float"),
    };
    Acc { bits: sum.to_u64(), idx: -1 }
}

#[inline(always)]
fn fold_lanes_typed<T>(op: KernelReduce, v: DType, acc: &mut [u64], idx: &mut [i64], src: &[T], index: i64)
where
    T: Bounds + CastTo<f64> + CastTo<i64>,
{
    let float = v.is_float();
    match op {
        KernelReduce::Sum | KernelReduce::Mean if float => {
            for (a, &x) in acc.iter_mut().zip(src) {
                *a = (f64::from_bits(*a) + CastTo::<f64>::cast_to(x)).to_bits();
            }
        }
        KernelReduce::Prod if float => {
            for (a, &x) in acc.iter_mut().zip(src) {
                *a = (f64::from_bits(*a) * CastTo::<f64>::cast_to(x)).to_u64();
            }
        }
        KernelReduce::Sum | KernelReduce::Mean => {
            for (a, &x) in acc.iter_mut().zip(src) {
                *a = (*a as i64).wrapping_add(CastTo::<i64>::cast_to(x)) as u64;
            }
        }
        KernelReduce::Prod => {
            for (a, &x) in acc.iter_mut().zip(src) {
                *a = (*a as i64).wrapping_mul(CastTo::<i64>::cast_to(x)) as u64;
            }
        }
        KernelReduce::Min => {
            for (a, &x) in acc.iter_mut().zip(src) {
                *a = pick_min(T::from_u64(*a), x).to_u64();
            }
        }
        KernelReduce::Max => {
            for (a, &x) in acc.iter_mut().zip(src) {
                *a = pick_max(T::from_u64(*a), x).to_u64();
            }
        }
        KernelReduce::ArgMin | KernelReduce::ArgMax => {
            for ((a, i), &x) in acc.iter_mut().zip(idx.iter_mut()).zip(src) {
                let c = combine(op, v, Acc { bits: *a, idx: *i }, Acc { bits: x.to_u64(), idx: index });
                *a = c.bits;
                *i = c.idx;
            }
        }
    }
}

/// Folds lane `l` of `src` into accumulator `l`, for `n` lanes; `index` is the position
/// along the reduced axis of these values.
///
/// # Safety
/// `src` holds `n` elements of type `v`; `acc` and `idx` have `n` entries.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl+avx2+fma", "x86_64+avx2+fma", "x86_64+sse4.1"))]
pub unsafe fn fold_lanes(op: KernelReduce, v: DType, acc: &mut [u64], idx: &mut [i64], src: *const u8, index: i64) {
    let n = acc.len();
    with_elem!(v, T => fold_lanes_typed::<T>(op, v, acc, idx, unsafe { slice::from_raw_parts(src as *const T, n) }, index))
}

/// Running accumulator of an inclusive scan: floats carry in f64, integers (and bools)
/// in i64.
#[derive(Copy, Clone)]
pub struct ScanCarry {
    pub bits: u64,
}

/// One step of a float scan. Max and min keep the first NaN met, and of equal values the
/// earlier one (as the reductions do).
#[inline(always)]
fn scan_step_float(op: ScanOp, c: f64, x: f64) -> f64 {
    match op {
        ScanOp::Sum => c + x,
        ScanOp::Prod => c * x,
        ScanOp::Max => {
            if !c.is_nan() && (x.is_nan() || x > c) {
                x
            } else {
                c
            }
        }
        ScanOp::Min => {
            if !c.is_nan() && (x.is_nan() || x < c) {
                x
            } else {
                c
            }
        }
    }
}

/// One step of an integer scan whose running values are of type `out`, carried in i64
/// (u64 as its bits: sums wrap alike, max and min compare as unsigned).
#[inline(always)]
fn scan_step_int(op: ScanOp, out: DType, c: i64, x: i64) -> i64 {
    let unsigned = out == DType::U64;
    match op {
        ScanOp::Sum => c.wrapping_add(x),
        ScanOp::Prod => c.wrapping_mul(x),
        ScanOp::Max if unsigned => (c as u64).max(x as u64) as i64,
        ScanOp::Min if unsigned => (c as u64).min(x as u64) as i64,
        ScanOp::Max => c.max(x),
        ScanOp::Min => c.min(x),
    }
}

/// Scans `n` values along the lanes, starting from `carry`, writing `out` elements.
///
/// # Safety
/// `src` holds `n` values of type `v`, `dst` room for `n` of type `out`.
pub unsafe fn scan_lanes(
    op: ScanOp,
    v: DType,
    out: DType,
    carry: &mut ScanCarry,
    src: *const u8,
    dst: *mut u8,
    n: usize,
) {
    unsafe {
        with_elem!(v, T => {
            let s = slice::from_raw_parts(src as *const T, n);
            if out.is_float() {
                let mut c = f64::from_bits(carry.bits);
                for (i, &x) in s.iter().enumerate() {
                    c = scan_step_float(op, c, x.cast_to());
                    write_float(out, dst, i, c);
                }
                carry.bits = c.to_u64();
            } else {
                let mut c = carry.bits as i64;
                for (i, &x) in s.iter().enumerate() {
                    c = scan_step_int(op, out, c, x.cast_to());
                    write_int(out, dst, i, c);
                }
                carry.bits = c as u64;
            }
        })
    }
}

/// Scans across rows: `carry[l]` accumulates lane `l`, and the running values are written.
///
/// # Safety
/// As for `scan_lanes`, with `carry.len() == n`.
pub unsafe fn scan_fold(op: ScanOp, v: DType, out: DType, carry: &mut [u64], src: *const u8, dst: *mut u8) {
    let n = carry.len();
    unsafe {
        with_elem!(v, T => {
            let s = slice::from_raw_parts(src as *const T, n);
            for (i, (c, &x)) in carry.iter_mut().zip(s).enumerate() {
                if out.is_float() {
                    let v = scan_step_float(op, f64::from_bits(*c), x.cast_to());
                    *c = v.to_u64();
                    write_float(out, dst, i, v);
                } else {
                    let v = scan_step_int(op, out, *c as i64, x.cast_to());
                    *c = v as u64;
                    write_int(out, dst, i, v);
                }
            }
        })
    }
}

pub fn scan_identity(op: ScanOp, out: DType) -> ScanCarry {
    let bits = match (op, out.is_float()) {
        (ScanOp::Sum, true) => 0f64.to_u64(),
        (ScanOp::Prod, true) => 1f64.to_u64(),
        (ScanOp::Max, true) => f64::NEG_INFINITY.to_u64(),
        (ScanOp::Min, true) => f64::INFINITY.to_u64(),
        (ScanOp::Sum, false) => 0,
        (ScanOp::Prod, false) => 1,
        // u64 values compare as unsigned (`scan_step_int`)
        (ScanOp::Max, false) if out == DType::U64 => 0,
        (ScanOp::Min, false) if out == DType::U64 => u64::MAX,
        (ScanOp::Max, false) => i64::MIN as u64,
        (ScanOp::Min, false) => i64::MAX as u64,
    };
    ScanCarry { bits }
}

/// Writes a running integer value as element `i` of `dst` (of type `out`: a max or min
/// keeps the input's type, which holds every value it can take).
#[inline(always)]
unsafe fn write_int(out: DType, dst: *mut u8, i: usize, v: i64) {
    unsafe {
        match out {
            DType::I32 | DType::U32 => *(dst as *mut i32).add(i) = v as i32,
            DType::I16 | DType::U16 => *(dst as *mut i16).add(i) = v as i16,
            DType::I8 | DType::U8 | DType::Bool => *dst.add(i) = v as u8,
            DType::I64 | DType::U64 => *(dst as *mut i64).add(i) = v,
            DType::F16 | DType::BF16 | DType::F32 | DType::F64 | DType::C64 | DType::C128 => {
                unreachable!("integer scan into {out}")
            }
        }
    }
}

#[inline(always)]
unsafe fn write_float(out: DType, dst: *mut u8, i: usize, v: f64) {
    unsafe {
        if out == DType::F32 {
            *(dst as *mut f32).add(i) = v as f32;
        } else {
            *(dst as *mut f64).add(i) = v;
        }
    }
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};

    use super::*;

    /// A fused `sum(a * b)` gives the bits of the products stored and then summed, for
    /// f32 and f64, at lengths that do and do not fill whole lane groups.
    #[test]
    fn folded_products_match_stored_products() {
        let seed: u64 = rand::random();
        println!("seed {seed}");
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        for _ in 0..50 {
            let n = rng.random_range(0..3000);
            let scale = 10f64.powi(rng.random_range(-3..4));
            let a: Vec<f64> = (0..n).map(|_| (rng.random::<f64>() * 2.0 - 0.9) * scale).collect();
            let b: Vec<f64> = (0..n).map(|_| (rng.random::<f64>() * 2.0 - 0.9) * scale).collect();
            let (a32, b32): (Vec<f32>, Vec<f32>) =
                (a.iter().map(|&x| x as f32).collect(), b.iter().map(|&x| x as f32).collect());
            let p32: Vec<f32> = a32.iter().zip(&b32).map(|(x, y)| x * y).collect();
            let p64: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x * y).collect();
            unsafe {
                let stored = reduce_lanes(KernelReduce::Sum, DType::F32, p32.as_ptr() as *const u8, n, 0);
                let folded = sum_products(DType::F32, a32.as_ptr() as *const u8, b32.as_ptr() as *const u8, n);
                assert_eq!(stored.bits, folded.bits, "f32, {n} values (seed {seed})");
                let stored = reduce_lanes(KernelReduce::Sum, DType::F64, p64.as_ptr() as *const u8, n, 0);
                let folded = sum_products(DType::F64, a.as_ptr() as *const u8, b.as_ptr() as *const u8, n);
                assert_eq!(stored.bits, folded.bits, "f64, {n} values (seed {seed})");
            }
        }
    }
}
