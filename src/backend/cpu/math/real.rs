//! The scalar abstraction every kernel is written against.
//!
//! [`Real`] is implemented for `f32` and `f64`: arithmetic, the IEEE bit tricks the kernels need
//! (exponent extraction, building `2^n`), and type-specific constants. [`Ops`] abstracts the two
//! instruction-set levels: [`Fma`] (hardware fused multiply-add and SSE4.1 rounding) and
//! [`NoFma`] (plain SSE2). Kernels are generic over both, so a multiversioned clone picks the one
//! whose instructions it may use: calling `f64::mul_add` or `f64::trunc` without the target
//! feature would become a libm call per element and kill vectorisation.
//!
//! Everything here is `#[inline(always)]` and branch-free so that the per-element kernels inline
//! into the slice loops and the loop vectoriser turns `if c { a } else { b }` into blends.

use core::fmt::Debug;
use core::ops::{Add, Div, Mul, Neg, Sub};

/// `f32` or `f64`, with the bit-level primitives the kernels use.
pub trait Real:
    Copy
    + PartialOrd
    + Debug
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    const HALF: Self;
    const TWO: Self;
    const INF: Self;
    const NAN: Self;
    /// Explicit mantissa bits (23 / 52).
    const MANT: i32;
    /// `2^MANT`: every float at least this large is an integer.
    const TWO_POW_MANT: Self;
    /// `1.5 * 2^MANT`: `(x + MAGIC) - MAGIC` rounds `|x| < 2^(MANT-1)` to the nearest integer,
    /// and the low mantissa bits of `x + MAGIC` then hold that integer (two's complement).
    const MAGIC: Self;
    /// Smallest positive normal number.
    const MIN_NORMAL: Self;
    /// Veltkamp splitter `2^ceil((MANT+1)/2) + 1` for error-free products without FMA.
    const SPLITTER: Self;
    /// ln 2 with a short high part (`n * LN2_HI` is exact for the exponent range of `n`).
    const LN2_HI: Self;
    const LN2_LO: Self;
    const LOG2E: Self;
    /// ln 2 rounded to nearest.
    const LN2: Self;

    fn from_f64(v: f64) -> Self;
    fn to_f64(self) -> f64;
    fn abs(self) -> Self;
    fn copysign(self, sign: Self) -> Self;
    /// Sign bit set (true for -0.0 and negative NaNs too).
    fn sign_bit(self) -> bool;
    fn sqrt(self) -> Self;
    /// Hardware fused multiply-add; only call through [`Fma`].
    fn hw_fma(self, b: Self, c: Self) -> Self;
    /// Hardware truncation; only call through [`Fma`] (needs SSE4.1).
    fn hw_trunc(self) -> Self;
    /// `2^n` for an integral `n` in the normal exponent range `[-(bias-1), bias]`.
    #[inline(always)]
    fn exp2i(n: Self) -> Self {
        Self::exp2i_biased(n + Self::MAGIC)
    }
    /// `2^n` from `q = n + MAGIC` (as [`round_int`] computes it), `n` as for [`Real::exp2i`].
    fn exp2i_biased(q: Self) -> Self;
    /// Bit `bit` of the integer `n` held by `q = n + MAGIC` (`|n| < 2^(MANT-1)`): the low
    /// mantissa bits of `q` are `n` in two's complement.
    fn biased_bit(q: Self, bit: u32) -> bool;
    /// For positive normal `x`: `(m, k)` with `x = m * 2^k`, `m` in `[sqrt(2)/2, sqrt(2))`.
    fn split_sqrt2(x: Self) -> (Self, Self);
    /// For positive normal `x`: `(m, k)` with `x = m * 2^k`, `m` in `[1, 2)`.
    fn split_one(x: Self) -> (Self, Self);
    /// `x` with the low half of its mantissa cleared, so products of two such values are exact.
    fn hi_half(self) -> Self;

    #[inline(always)]
    fn is_nan(self) -> bool {
        #[allow(clippy::eq_op)]
        let r = self != self;
        r
    }
}

macro_rules! impl_real {
    ($t:ident, $u:ident, $i:ident, $mant:expr, $bias:expr, $split:expr,
     $ln2_hi:expr, $ln2_lo:expr, $sqrt_half_bits:expr, $hi_mask:expr) => {
        impl Real for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const HALF: Self = 0.5;
            const TWO: Self = 2.0;
            const INF: Self = $t::INFINITY;
            const NAN: Self = $t::NAN;
            const MANT: i32 = $mant;
            const TWO_POW_MANT: Self = (1u64 << $mant) as $t;
            const MAGIC: Self = 1.5 * (1u64 << $mant) as $t;
            const MIN_NORMAL: Self = $t::MIN_POSITIVE;
            const SPLITTER: Self = $split;
            const LN2_HI: Self = $ln2_hi;
            const LN2_LO: Self = $ln2_lo;
            const LOG2E: Self = core::$t::consts::LOG2_E;
            const LN2: Self = core::$t::consts::LN_2;

            #[inline(always)]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn to_f64(self) -> f64 {
                self as f64
            }
            #[inline(always)]
            fn abs(self) -> Self {
                $t::abs(self)
            }
            #[inline(always)]
            fn copysign(self, sign: Self) -> Self {
                $t::copysign(self, sign)
            }
            #[inline(always)]
            fn sign_bit(self) -> bool {
                self.is_sign_negative()
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                $t::sqrt(self)
            }
            #[inline(always)]
            fn hw_fma(self, b: Self, c: Self) -> Self {
                $t::mul_add(self, b, c)
            }
            #[inline(always)]
            fn hw_trunc(self) -> Self {
                $t::trunc(self)
            }
            #[inline(always)]
            fn exp2i_biased(q: Self) -> Self {
                // The low bits of `q` are `n`; add the bias and shift into the exponent field
                // (everything above the exponent is shifted out).
                $t::from_bits(q.to_bits().wrapping_add($bias) << $mant)
            }
            #[inline(always)]
            fn biased_bit(q: Self, bit: u32) -> bool {
                (q.to_bits() >> bit) & 1 != 0
            }
            #[inline(always)]
            fn split_sqrt2(x: Self) -> (Self, Self) {
                // Subtracting the bits of sqrt(2)/2 makes the exponent field carry exactly when
                // the mantissa is >= sqrt(2): the arithmetic shift then yields k.
                let bits = x.to_bits();
                let k = (bits.wrapping_sub($sqrt_half_bits) as $i) >> $mant;
                let m = $t::from_bits(bits.wrapping_sub((k << $mant) as $u));
                (m, Self::int_from_small(k))
            }
            #[inline(always)]
            fn split_one(x: Self) -> (Self, Self) {
                let bits = x.to_bits();
                let k = ((bits >> $mant) as $i) - ($bias as $i);
                let m = $t::from_bits((bits & ((1 << $mant) - 1)) | (($bias as $u) << $mant));
                (m, Self::int_from_small(k))
            }
            #[inline(always)]
            fn hi_half(self) -> Self {
                $t::from_bits(self.to_bits() & $hi_mask)
            }
        }

        impl IntFromSmall<$i> for $t {
            /// Exact integer-to-float conversion for `|k| < 2^(MANT-1)` without a cvt
            /// instruction (AVX2 has none for 64-bit integers): `MAGIC + k` built from bits.
            #[inline(always)]
            fn int_from_small(k: $i) -> Self {
                $t::from_bits(Self::MAGIC.to_bits().wrapping_add(k as $u)) - Self::MAGIC
            }
        }
    };
}

trait IntFromSmall<I> {
    fn int_from_small(k: I) -> Self;
}

impl_real!(f32, u32, i32, 23, 127, 4097.0, 0.69314575, 1.4286068e-06, 0x3f35_04f3u32, 0xffff_f000u32);
impl_real!(
    f64,
    u64,
    i64,
    52,
    1023,
    134217729.0,
    0.6931471806019545,
    -4.2009150726810846e-11,
    0x3fe6_a09e_667f_3bcdu64,
    0xffff_ffff_0000_0000u64
);

/// Instruction-set level of a kernel instantiation.
pub trait Ops: Copy + 'static {
    /// Whether [`Ops::mla`] is fused (lets a kernel pick a cheaper exact sequence that relies on
    /// the single rounding; the choice is a compile-time constant).
    const FMA: bool;
    /// `a * b + c`, fused where the hardware has FMA.
    fn mla<T: Real>(a: T, b: T, c: T) -> T;
    /// Round toward zero.
    fn trunc<T: Real>(x: T) -> T;
    /// Error-free product: `a * b = p + e` exactly (barring over/underflow).
    fn two_prod<T: Real>(a: T, b: T) -> (T, T);
}

/// Hardware FMA and rounding instructions (the AVX2 / AVX-512 clones).
#[derive(Clone, Copy, Debug)]
pub struct Fma;

/// Plain SSE2: no FMA, no `roundps`.
#[derive(Clone, Copy, Debug)]
pub struct NoFma;

impl Ops for Fma {
    const FMA: bool = true;
    #[inline(always)]
    fn mla<T: Real>(a: T, b: T, c: T) -> T {
        a.hw_fma(b, c)
    }
    #[inline(always)]
    fn trunc<T: Real>(x: T) -> T {
        x.hw_trunc()
    }
    #[inline(always)]
    fn two_prod<T: Real>(a: T, b: T) -> (T, T) {
        let p = a * b;
        (p, a.hw_fma(b, -p))
    }
}

impl Ops for NoFma {
    const FMA: bool = false;
    #[inline(always)]
    fn mla<T: Real>(a: T, b: T, c: T) -> T {
        a * b + c
    }
    #[inline(always)]
    fn trunc<T: Real>(x: T) -> T {
        // Adding 2^MANT rounds |x| to an integer; step back by one where that rounded up.
        let ax = x.abs();
        let r = (ax + T::TWO_POW_MANT) - T::TWO_POW_MANT;
        let r = sel(r > ax, r - T::ONE, r);
        sel(ax < T::TWO_POW_MANT, r.copysign(x), x)
    }
    #[inline(always)]
    fn two_prod<T: Real>(a: T, b: T) -> (T, T) {
        // Dekker's product with Veltkamp splitting.
        let p = a * b;
        let (ah, al) = split(a);
        let (bh, bl) = split(b);
        let e = ((ah * bh - p) + ah * bl + al * bh) + al * bl;
        (p, e)
    }
}

#[inline(always)]
fn split<T: Real>(a: T) -> (T, T) {
    let c = T::SPLITTER * a;
    let h = c - (c - a);
    (h, a - h)
}

/// Branch-free select; the vectoriser turns it into a blend.
#[inline(always)]
pub fn sel<T>(c: bool, a: T, b: T) -> T {
    if c { a } else { b }
}

/// Horner evaluation of `c[0] + c[1] x + c[2] x^2 + ...` (fully unrolled: `c` is a constant).
#[inline(always)]
pub fn poly<T: Real, O: Ops>(x: T, c: &[T]) -> T {
    let n = c.len();
    let mut acc = c[n - 1];
    let mut i = n - 1;
    while i > 0 {
        i -= 1;
        acc = O::mla(acc, x, c[i]);
    }
    acc
}

/// Round to the nearest integer (ties to even) for `|x| < 2^(MANT-1)`.
#[inline(always)]
pub fn round_int<T: Real>(x: T) -> T {
    (x + T::MAGIC) - T::MAGIC
}

/// `x * 2^n` for integral `n` with `|n| <= 2 * bias`, in two exact steps so that results that
/// over- or underflow (to subnormals) round only once.
#[inline(always)]
pub fn scale<T: Real>(x: T, n: T) -> T {
    let n1 = round_int(n * T::HALF);
    x * T::exp2i(n1) * T::exp2i(n - n1)
}

/// Knuth's two-sum: `a + b = s + e` exactly.
#[inline(always)]
pub fn two_sum<T: Real>(a: T, b: T) -> (T, T) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `q + ql = (nh + nl) / (dh + dl)` for double-`T` operands.
#[inline(always)]
pub fn div_dd<T: Real, O: Ops>(nh: T, nl: T, dh: T, dl: T) -> (T, T) {
    let q = nh / dh;
    let (p, pe) = O::two_prod(q, dh);
    (q, ((((nh - p) - pe) + nl) - q * dl) / dh)
}

/// Dekker's fast two-sum, valid when `|a| >= |b|` (or `a == 0`).
#[inline(always)]
pub fn fast_two_sum<T: Real>(a: T, b: T) -> (T, T) {
    let s = a + b;
    (s, b - (s - a))
}

/// A polynomial `c0 + t q(t)` whose constant term is a double-double (`hi + lo`): the form of
/// the special functions' fits (`fits.sollya`), whose results must stay accurate where `c0`
/// dominates. The Vulkan executor evaluates the same tables.
pub(crate) struct PolyDd {
    pub hi: f64,
    pub lo: f64,
    /// `q`, lowest degree first.
    pub q: &'static [f64],
}

impl PolyDd {
    /// `c0 + t q(t)` as a double-double `(hi, lo)`: `q` by Horner, the product with `t` and
    /// the sum with `c0` exact, so the only rounding errors are those of `q(t)`, scaled by
    /// the size of `t q(t)`.
    #[inline(always)]
    pub fn eval<O: Ops>(&self, t: f64) -> (f64, f64) {
        let (p, pe) = O::two_prod(t, poly::<f64, O>(t, self.q));
        let (h, e) = two_sum(self.hi, p);
        (h, e + (pe + self.lo))
    }
}

/// `(ah + al) (bh + bl)` as a double-double (the product of the low parts left out).
#[inline(always)]
pub fn mul_dd<T: Real, O: Ops>(ah: T, al: T, bh: T, bl: T) -> (T, T) {
    let (p, pe) = O::two_prod(ah, bh);
    (p, pe + O::mla(ah, bl, al * bh))
}
