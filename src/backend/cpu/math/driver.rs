//! Slice loops and runtime CPU dispatch.
//!
//! Each math function is a zero-sized kernel type implementing [`UnaryKernel`] or
//! [`BinaryKernel`]; [`unary`] / [`binary`] are `multiversion`ed once, generic over the kernel,
//! so every (function, type) pair gets an AVX-512, an AVX2+FMA and a baseline clone. Inside, the
//! clone picks the [`Ops`] level its target allows (`target_cfg_f!` sees the clone's features,
//! unlike `cfg!`): [`Fma`] for the FMA targets, [`NoFma`] for the baseline.

use multiversion::multiversion;
use multiversion::target::target_cfg_f;

use super::real::{Fma, NoFma, Ops, Real, sel};

/// A unary elementwise function.
pub trait UnaryKernel<T: Real> {
    fn eval<O: Ops>(x: T) -> T;
    /// The slice loop, inlined into the calling clone: [`map`] by default; trig overrides it to
    /// choose a code path per block from the range of its inputs.
    #[inline(always)]
    fn run<O: Ops>(src: &[T], dst: &mut [T]) {
        map::<T, Self, O>(src, dst)
    }
}

/// `dst[i] = K::eval(src[i])`: the plain vectorised loop.
#[inline(always)]
pub fn map<T: Real, K: UnaryKernel<T> + ?Sized, O: Ops>(src: &[T], dst: &mut [T]) {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = K::eval::<O>(s);
    }
}

/// Block size for kernels that choose a code path per block from the range of its inputs.
pub const BLOCK: usize = 256;

/// Vectorisable OR-reduction.
#[inline(always)]
pub fn any<T: Copy>(xs: &[T], f: impl Fn(T) -> bool) -> bool {
    xs.iter().fold(false, |acc, &x| acc | f(x))
}

/// A kernel's fast path, valid for `|x|` up to some limit: [`map_within`].
pub trait Within<T: Real> {
    fn eval<O: Ops>(&self, x: T) -> T;
}

/// `dst[i] = p.eval(src[i])`, and whether some `|src[i]| > limit` (NaNs ignored, infinities
/// included): then the caller redoes those lanes. One pass, so the loads of a slice still in
/// memory overlap the arithmetic; it keeps 16 running maxima `a > m ? a : m` (that is `maxps`:
/// an FP max reduction would not vectorise), a vector instruction per vector of results. (64,
/// four AVX-512 vectors of f32 per step, ran out of registers: constants were reloaded.)
#[inline(always)]
pub fn map_within<T: Real, P: Within<T>, O: Ops>(p: &P, src: &[T], dst: &mut [T], limit: T) -> bool {
    const W: usize = 16;
    let mut acc = [T::ZERO; W];
    let (mut s, mut d) = (src.chunks_exact(W), dst.chunks_exact_mut(W));
    for (s, d) in (&mut s).zip(&mut d) {
        for i in 0..W {
            let x = s[i];
            d[i] = p.eval::<O>(x);
            let a = x.abs();
            acc[i] = sel(a > acc[i], a, acc[i]);
        }
    }
    for ((m, &x), d) in acc.iter_mut().zip(s.remainder()).zip(d.into_remainder()) {
        *d = p.eval::<O>(x);
        let a = x.abs();
        *m = sel(a > *m, a, *m);
    }
    any(&acc, |m| m > limit)
}

/// A binary elementwise function.
pub trait BinaryKernel<T: Real> {
    fn eval<O: Ops>(a: T, b: T) -> T;
}

/// An operand of a binary function: a slice, or a scalar broadcast to every lane.
pub trait Operand<T>: Copy {
    /// Restrict to the first `n` elements (panics if a slice is shorter).
    fn take(self, n: usize) -> Self;
    fn at(self, i: usize) -> T;
}

impl<T: Copy> Operand<T> for &[T] {
    #[inline(always)]
    fn take(self, n: usize) -> Self {
        assert_eq!(self.len(), n, "operand length must equal destination length");
        &self[..n]
    }
    #[inline(always)]
    fn at(self, i: usize) -> T {
        self[i]
    }
}

impl<T: Real> Operand<T> for T {
    #[inline(always)]
    fn take(self, _n: usize) -> Self {
        self
    }
    #[inline(always)]
    fn at(self, _i: usize) -> T {
        self
    }
}

/// The vectorised loop of a unary function at one instruction-set level.
#[inline(always)]
pub fn unary_core<T: Real, K: UnaryKernel<T>, O: Ops>(src: &[T], dst: &mut [T]) {
    assert_eq!(src.len(), dst.len(), "source length must equal destination length");
    K::run::<O>(src, dst);
}

/// The vectorised loop of a binary function at one instruction-set level.
#[inline(always)]
pub fn binary_core<T: Real, K: BinaryKernel<T>, O: Ops, A: Operand<T>, B: Operand<T>>(a: A, b: B, dst: &mut [T]) {
    let n = dst.len();
    let (a, b) = (a.take(n), b.take(n));
    for (i, d) in dst.iter_mut().enumerate() {
        *d = K::eval::<O>(a.at(i), b.at(i));
    }
}

#[multiversion(targets(
    "x86_64+avx512f+avx512vl+avx512dq+avx512bw+avx2+fma+bmi1+bmi2+lzcnt+popcnt",
    "x86_64+avx2+fma+sse4.1",
))]
pub fn unary<T: Real, K: UnaryKernel<T>>(src: &[T], dst: &mut [T]) {
    if target_cfg_f!(target_feature = "fma") {
        unary_core::<T, K, Fma>(src, dst)
    } else {
        unary_core::<T, K, NoFma>(src, dst)
    }
}

#[multiversion(targets(
    "x86_64+avx512f+avx512vl+avx512dq+avx512bw+avx2+fma+bmi1+bmi2+lzcnt+popcnt",
    "x86_64+avx2+fma+sse4.1",
))]
pub fn binary<T: Real, K: BinaryKernel<T>, A: Operand<T>, B: Operand<T>>(a: A, b: B, dst: &mut [T]) {
    if target_cfg_f!(target_feature = "fma") {
        binary_core::<T, K, Fma, A, B>(a, b, dst)
    } else {
        binary_core::<T, K, NoFma, A, B>(a, b, dst)
    }
}
