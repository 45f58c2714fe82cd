//! Generalized inner products over the min/max semirings (`Semiring::is_intrinsic`):
//! `c[i, j] = reduce_p combine(a[i, p], b[p, j])` with reduce min or max and combine add,
//! mul, min or max, in the element type (integers wrap as `sl_add`/`sl_mul` do; float
//! min and max are NaN when an operand is, as `sl_min`/`sl_max`).
//!
//! Register-tiled: a task takes one product and a block of `MR` rows of `a`, packs an
//! `MR x KC` panel of it (contiguous, so the operands' layouts do not matter), and sweeps
//! the columns of `b` `NR` at a time, keeping the `MR x NR` accumulators in registers
//! over the panel's inner index. Min and max of sums vectorise along the rows.

use multiversion::multiversion;

use super::elem::{Elem, with_elem};
use super::linalg::{Operands, Products, SERIAL_PRODUCT};
use super::ops::{Int, fmax, fmin};
use super::threads::Workers;
use crate::ir::{BinaryOp, DType, MAX_RANK, ReduceOp, Semiring};

/// Rows of a register tile (two AVX-512 vectors of f32).
const MR: usize = 32;
/// Columns of a register tile.
const NR: usize = 4;
/// Inner indices per packed panel: `MR x KC` elements stay in L1/L2 while `b` streams.
const KC: usize = 256;

/// The element arithmetic of the semirings, as Sluice's element-wise ops define it.
trait Ring: Elem {
    fn add(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn min(self, o: Self) -> Self;
    fn max(self, o: Self) -> Self;
    /// The identities of max and min: the type's lowest and highest values.
    const LOWEST: Self;
    const HIGHEST: Self;
}

macro_rules! ring_float {
    ($($t:ty),*) => {$(
        impl Ring for $t {
            #[inline(always)]
            fn add(self, o: Self) -> Self { self + o }
            #[inline(always)]
            fn mul(self, o: Self) -> Self { self * o }
            #[inline(always)]
            fn min(self, o: Self) -> Self { fmin(self, o) }
            #[inline(always)]
            fn max(self, o: Self) -> Self { fmax(self, o) }
            const LOWEST: Self = <$t>::NEG_INFINITY;
            const HIGHEST: Self = <$t>::INFINITY;
        }
    )*};
}
ring_float!(f32, f64);

macro_rules! ring_int {
    ($($t:ty),*) => {$(
        impl Ring for $t {
            #[inline(always)]
            fn add(self, o: Self) -> Self { Int::wadd(self, o) }
            #[inline(always)]
            fn mul(self, o: Self) -> Self { Int::wmul(self, o) }
            #[inline(always)]
            fn min(self, o: Self) -> Self { Ord::min(self, o) }
            #[inline(always)]
            fn max(self, o: Self) -> Self { Ord::max(self, o) }
            const LOWEST: Self = <$t>::MIN;
            const HIGHEST: Self = <$t>::MAX;
        }
    )*};
}
ring_int!(i8, i16, i32, i64, u8, u16, u32, u64);

/// One of the ops of a pair, as a type so each pair compiles to its own loop.
trait Apply<T> {
    fn apply(x: T, y: T) -> T;
}

macro_rules! apply {
    ($($name:ident => $method:ident),*) => {$(
        struct $name;
        impl<T: Ring> Apply<T> for $name {
            #[inline(always)]
            fn apply(x: T, y: T) -> T { x.$method(y) }
        }
    )*};
}
apply!(Add => add, Mul => mul, Min => min, Max => max);

/// One product's sizes and operand strides (of its first two dimensions).
#[derive(Copy, Clone)]
struct Shape {
    mkn: [usize; 3],
    sa: [i64; MAX_RANK],
    sb: [i64; MAX_RANK],
}

/// `c = reduce_p combine(a, b)` for each product of `products`, `semiring` one that
/// `Semiring::is_intrinsic` takes and `dtype` a real or bool type (bool's and/or are
/// min/max of 0 and 1).
pub fn inner(dtype: DType, semiring: Semiring, mkn: [usize; 3], products: &Products, workers: &Workers) {
    macro_rules! with_combine {
        ($t:ty, $r:ty, $id:expr) => {
            match semiring.combine {
                BinaryOp::Add => run::<$t, $r, Add>($id, mkn, products, workers),
                BinaryOp::Mul => run::<$t, $r, Mul>($id, mkn, products, workers),
                BinaryOp::Min => run::<$t, $r, Min>($id, mkn, products, workers),
                BinaryOp::Max => run::<$t, $r, Max>($id, mkn, products, workers),
                c => unreachable!("{} is not a semiring's combine", c.name()),
            }
        };
    }
    macro_rules! with_reduce {
        ($t:ty) => {
            match semiring.reduce {
                ReduceOp::Min => with_combine!($t, Min, highest::<$t>(dtype)),
                ReduceOp::Max => with_combine!($t, Max, <$t>::LOWEST),
                r => unreachable!("{} is not a semiring's reduce", r.name()),
            }
        };
    }
    // complex numbers have no order: `with_elem` refuses them
    with_elem!(dtype, T => with_reduce!(T))
}

/// The highest value of `dtype` (min's identity; bool's is true).
fn highest<T: Ring>(dtype: DType) -> T {
    if dtype == DType::Bool { T::from_u64(1) } else { T::HIGHEST }
}

/// Every product of `products` with reduce `R` (identity `id`) and combine `C`.
fn run<T: Ring, R: Apply<T>, C: Apply<T>>(id: T, [m, k, n]: [usize; 3], products: &Products, workers: &Workers) {
    let count = products.count();
    let blocks = m.div_ceil(MR);
    if k == 0 {
        for index in 0..count {
            let c = products.at(index).c as *mut T;
            // SAFETY: `c` is a fresh dense m x n buffer per product.
            unsafe { std::slice::from_raw_parts_mut(c, m * n).fill(id) };
        }
        return;
    }
    let shape = Shape { mkn: [m, k, n], sa: products.strides[0], sb: products.strides[1] };
    let serial = count * m * n * k < SERIAL_PRODUCT;
    workers.for_each(count * blocks, serial, |tasks| {
        let mut panel = vec![[id; MR]; KC.min(k)];
        for task in tasks {
            row_block::<T, R, C>(shape, products.at(task / blocks), task % blocks * MR, id, &mut panel);
        }
    });
}

/// Rows `i0..i0 + MR` (those below m) of one product's `c`.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl+avx2+fma", "x86_64+avx2+fma", "x86_64+sse4.1"))]
fn row_block<T: Ring, R: Apply<T>, C: Apply<T>>(shape: Shape, ops: Operands, i0: usize, id: T, panel: &mut [[T; MR]]) {
    let Shape { mkn: [m, k, n], sa, sb } = shape;
    let (a, b, c) = ops.parts();
    let (a, b, c) = (a as *const T, b as *const T, c as *mut T);
    let rows = MR.min(m - i0);
    let (sa0, sa1, sb0, sb1) = (sa[0] as isize, sa[1] as isize, sb[0] as isize, sb[1] as isize);
    for k0 in (0..k).step_by(KC) {
        let kc = KC.min(k - k0);
        let panel = &mut panel[..kc];
        // SAFETY (this block): operands span their layouts (the planner's shapes), `c` is a
        // dense m x n buffer of which this task alone writes rows i0..i0 + rows.
        for (p, col) in panel.iter_mut().enumerate() {
            let at = unsafe { a.offset(i0 as isize * sa0 + (k0 + p) as isize * sa1) };
            for (r, v) in col.iter_mut().enumerate().take(rows) {
                *v = unsafe { *at.offset(r as isize * sa0) };
            }
        }
        for j0 in (0..n).step_by(NR) {
            let cols = NR.min(n - j0);
            let mut acc = [[id; MR]; NR];
            let mut bcol = [b; NR];
            for jj in 0..NR {
                // Columns past n repeat the last one (computed, never stored).
                let j = j0 + jj.min(cols - 1);
                bcol[jj] = unsafe { b.offset(k0 as isize * sb0 + j as isize * sb1) };
                if k0 > 0 && jj < cols {
                    for r in 0..rows {
                        acc[jj][r] = unsafe { *c.add(i0 + r + j * m) };
                    }
                }
            }
            for (p, col) in panel.iter().enumerate() {
                for jj in 0..NR {
                    let s = unsafe { *bcol[jj].offset(p as isize * sb0) };
                    for r in 0..MR {
                        acc[jj][r] = R::apply(acc[jj][r], C::apply(col[r], s));
                    }
                }
            }
            for (jj, acc) in acc.iter().enumerate().take(cols) {
                for (r, &v) in acc.iter().enumerate().take(rows) {
                    unsafe { *c.add(i0 + r + (j0 + jj) * m) = v };
                }
            }
        }
    }
}
