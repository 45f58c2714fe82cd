//! Arithmetic every executor carries out with the same bits: the rejection samplers'
//! decisions (accept or try again, which integer an inversion lands on) must come out the
//! same everywhere, or an element would take another attempt on one executor than on
//! another and get an unrelated value.
//!
//! So the functions here use only operations IEEE 754 rounds correctly (add, subtract,
//! multiply, divide, square root, conversions of exact integers), never a fused
//! multiply-add, in a fixed order; exponents are read and set through the bits. The
//! Vulkan executor's `random_dist.glsl` spells each one out step for step (its locals are
//! `precise`, so no compiler contracts or reorders them), and the CPU executor calls
//! these. Devices whose division or square root is not correctly rounded (GLSL allows
//! 2.5 ulp) may differ in rare elements; lavapipe and CPUs round correctly.

use std::ops::{Add, Div, Mul, Neg, Sub};

/// `log(1 + f) = f + f^2 Q(f)` for `f` in `[sqrt(2)/2 - 1, sqrt(2) - 1)`, f32 (`fits.sollya`:
/// relative error 2^-27.8); the CPU executor's `ln_normal` and the Vulkan random numbers'
/// `r_ln_normal` use it too.
pub const LN1P_Q_F32: [f32; 9] =
    [-0.49999988, 0.33333325, -0.250016, 0.20002003, -0.16608766, 0.14181134, -0.13244562, 0.12909089, -0.07623974];
/// ln 2 in two f32 parts: `k LN2_PARTS_F32[0]` is exact for the exponents `k` of f32.
pub const LN2_PARTS_F32: [f32; 2] = [0.69314575, 1.4286068e-06];

/// fdlibm's `log` (e_log.c): `log(1 + f) = 2s + s R(s^2)` with `s = f / (2 + f)`; its
/// coefficients `Lg1..Lg7` and ln 2 in two parts (`k LN2_PARTS_F64[0]` exact).
pub const LG_F64: [f64; 7] = [
    6.666_666_666_666_735e-1,
    3.999_999_999_940_942e-1,
    2.857_142_874_366_239e-1,
    2.222_219_843_214_978_4e-1,
    1.818_357_216_161_805e-1,
    1.531_383_769_920_937_3e-1,
    1.479_819_860_511_658_6e-1,
];
pub const LN2_PARTS_F64: [f64; 2] = [6.931_471_803_691_238e-1, 1.908_214_929_270_587_7e-10];

/// `cos 2 pi f = 1 + f^2 C(f^2)` and `sin 2 pi f = f S(f^2)` for `|f| <= 1/8` (Box-Muller's
/// angle in turns; `fits.sollya`). f32: relative error 2^-30.9 and 2^-25.1.
pub const COS_TURNS_F32: [f32; 4] = [-19.739208, 64.93918, -85.4295, 58.814777];
pub const SIN_TURNS_F32: [f32; 4] = [std::f32::consts::TAU, -41.34176, 81.604614, -75.83747];
pub const COS_TURNS_F64: [f64; 7] = [
    -19.739208802178716,
    64.93939402266697,
    -85.45681720617853,
    60.24464127097987,
    -26.426245843951058,
    7.902869416918028,
    -1.6929816626426644,
];
pub const SIN_TURNS_F64: [f64; 7] = [
    // The fit's leading coefficient is 2 pi rounded.
    std::f64::consts::TAU,
    -41.341702240399236,
    81.60524927574441,
    -76.70585965977858,
    42.058680289090525,
    -15.093562599270248,
    3.7761210919908,
];

/// f32 and f64 with the portable functions.
pub trait Real:
    Copy
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + std::fmt::Debug
{
    const ZERO: Self;
    const ONE: Self;
    /// Stream words per uniform value (`ir::random`'s layout).
    const WORDS: usize;
    /// The uniform value on [0, 1) of the first `WORDS` words of `w`.
    fn uniform(w: &[u32]) -> Self;
    /// `x` rounded to the type (for constants written in f64).
    fn of(x: f64) -> Self;
    fn to_f64(self) -> f64;
    fn sqrt(self) -> Self;
    fn floor(self) -> Self;
    /// `ln x` for a positive normal `x`.
    fn ln(self) -> Self;
    /// `(cos 2 pi v, sin 2 pi v)` for `v` in `[0, 1]`.
    fn cos_sin_turns(self) -> (Self, Self);
}

/// Horner's rule, `c[0] + x (c[1] + x (...))`, without fused steps.
#[inline(always)]
pub fn horner<T: Real>(x: T, c: &[T]) -> T {
    let mut acc = c[c.len() - 1];
    for &k in c[..c.len() - 1].iter().rev() {
        acc = k + x * acc;
    }
    acc
}

/// cos and sin of `2 pi v` from `v = n/4 + f` (exact, `|f| <= 1/8`), the fits in `f`, and
/// `n` quarter turns; `magic` is 1.5 * 2^mantissa bits, so `4v + magic - magic` rounds
/// `4v` to the nearest integer, whose low bits `nbits` reads.
#[inline(always)]
fn cos_sin_turns<T: Real>(v: T, magic: T, nbits: impl Fn(T) -> u32, cos: &[T], sin: &[T]) -> (T, T) {
    let q = v * T::of(4.0) + magic;
    let n = q - magic;
    let f = v + n * T::of(-0.25);
    let g = f * f;
    let (c, s) = (T::ONE + g * horner(g, cos), f * horner(g, sin));
    let n = nbits(q);
    let (c, s) = if n & 1 != 0 { (-s, c) } else { (c, s) };
    if n & 2 != 0 { (-c, -s) } else { (c, s) }
}

impl Real for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    const WORDS: usize = 1;
    #[inline(always)]
    fn uniform(w: &[u32]) -> f32 {
        super::f32_from_word(w[0])
    }
    #[inline(always)]
    fn of(x: f64) -> f32 {
        x as f32
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn sqrt(self) -> f32 {
        f32::sqrt(self)
    }
    #[inline(always)]
    fn floor(self) -> f32 {
        f32::floor(self)
    }
    /// `x = 2^k m`, `m` in `[sqrt(2)/2, sqrt(2))` from the bits, `f = m - 1` (exact), then
    /// `f + f^2 Q(f)` and `k ln 2` in two parts; within 1 ulp.
    #[inline(always)]
    fn ln(self) -> f32 {
        let bits = self.to_bits();
        let k = (bits.wrapping_sub(0x3f35_04f3) as i32) >> 23;
        let f = f32::from_bits(bits.wrapping_sub((k << 23) as u32)) - 1.0;
        let p = f + f * f * horner(f, &LN1P_Q_F32);
        let kf = k as f32;
        kf * LN2_PARTS_F32[0] + (kf * LN2_PARTS_F32[1] + p)
    }
    #[inline(always)]
    fn cos_sin_turns(self) -> (f32, f32) {
        cos_sin_turns(self, 12_582_912.0, |q: f32| q.to_bits(), &COS_TURNS_F32, &SIN_TURNS_F32)
    }
}

impl Real for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    const WORDS: usize = 2;
    #[inline(always)]
    fn uniform(w: &[u32]) -> f64 {
        super::f64_from_words(w[0], w[1])
    }
    #[inline(always)]
    fn of(x: f64) -> f64 {
        x
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn sqrt(self) -> f64 {
        f64::sqrt(self)
    }
    #[inline(always)]
    fn floor(self) -> f64 {
        f64::floor(self)
    }
    /// fdlibm's: `x = 2^k m` as for f32, `s = f / (2 + f)`, and
    /// `k ln2_hi - ((f^2/2 - (s (f^2/2 + R) + k ln2_lo)) - f)`; within 1 ulp.
    #[inline(always)]
    fn ln(self) -> f64 {
        let bits = self.to_bits();
        let k = (bits.wrapping_sub(0x3fe6_a09e_667f_3bcd) as i64) >> 52;
        let f = f64::from_bits(bits.wrapping_sub((k << 52) as u64)) - 1.0;
        let s = f / (2.0 + f);
        let z = s * s;
        let w = z * z;
        let [l1, l2, l3, l4, l5, l6, l7] = LG_F64;
        let t1 = w * (l2 + w * (l4 + w * l6));
        let t2 = z * (l1 + w * (l3 + w * (l5 + w * l7)));
        let r = t2 + t1;
        let hfsq = 0.5 * f * f;
        let kf = k as f64;
        kf * LN2_PARTS_F64[0] - ((hfsq - (s * (hfsq + r) + kf * LN2_PARTS_F64[1])) - f)
    }
    #[inline(always)]
    fn cos_sin_turns(self) -> (f64, f64) {
        cos_sin_turns(self, 6_755_399_441_055_744.0, |q: f64| q.to_bits() as u32, &COS_TURNS_F64, &SIN_TURNS_F64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ulps64(a: f64, b: f64) -> f64 {
        (a - b).abs() / (b.abs().max(f64::MIN_POSITIVE) * f64::EPSILON)
    }

    /// The logs against the standard library's on every kind of positive normal argument
    /// (the uniforms' `1 - u`, powers of two, and random bit patterns), within 1 ulp.
    #[test]
    fn ln_within_an_ulp() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64 ^ std::process::id() as u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for i in 0..200_000u64 {
            let b = next();
            let a32 = match i % 3 {
                0 => 1.0 - (b >> 40) as f32 * (1.0 / (1u32 << 24) as f32),
                1 => f32::from_bits(0x0080_0000 + (b as u32) % (0x7f80_0000 - 0x0080_0000)),
                _ => 2f32.powi((b % 250) as i32 - 125),
            };
            let want = (a32 as f64).ln();
            let got = <f32 as Real>::ln(a32);
            let ulp = (want.abs() as f32).max(f32::MIN_POSITIVE) * f32::EPSILON;
            assert!((got as f64 - want).abs() <= ulp as f64, "f32 ln {a32:e}: {got} vs {want}");
            let a64 = match i % 3 {
                0 => 1.0 - (b >> 11) as f64 * (1.0 / (1u64 << 53) as f64),
                1 => f64::from_bits(0x0010_0000_0000_0000 + b % (0x7ff0_0000_0000_0000 - 0x0010_0000_0000_0000)),
                _ => 2f64.powi((b % 2000) as i32 - 1000),
            };
            let (got, want) = (Real::ln(a64), a64.ln());
            assert!(ulps64(got, want) <= 1.0, "f64 ln {a64:e}: {got:e} vs {want:e}");
        }
    }

    /// cos and sin of 2 pi v against f64's over the quarter turns and between.
    #[test]
    fn turns() {
        let tau = std::f64::consts::TAU;
        for i in 0..=(1 << 14) {
            let v = i as f64 / (1 << 14) as f64;
            let (c, s) = Real::cos_sin_turns(v as f32);
            let (wc, ws) = ((tau * (v as f32) as f64).cos(), (tau * (v as f32) as f64).sin());
            assert!((c as f64 - wc).abs() <= 2.5e-7 && (s as f64 - ws).abs() <= 2.5e-7, "f32 {v}: {c} {s}");
            let (c, s) = Real::cos_sin_turns(v);
            assert!((c - (tau * v).cos()).abs() <= 1e-15 && (s - (tau * v).sin()).abs() <= 1e-15, "f64 {v}");
        }
    }
}
