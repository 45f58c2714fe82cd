//! Sobol' points (quasi-Monte Carlo): coordinate `j` of point `i` is a pure function of
//! `(i, j)` and the direction numbers of dimension `j`, so executors compute any element
//! alone.
//!
//! The direction numbers are Joe and Kuo's (`new-joe-kuo-6.21201`, "Constructing Sobol
//! sequences with better two-dimensional projections", SIAM J. Sci. Comput. 30, 2008), as
//! the `sobol` crate carries them (BSD-3-Clause; the table's own terms are in its
//! LICENSE): `SOBOL_MAX_DIMS` dimensions, 32 bits each, so `2^32` points. Point `i` is
//! the XOR of the direction numbers `v_k` of the set bits `k` of the Gray code
//! `i ^ (i >> 1)` (Antonov and Saleev's order, the order of Joe and Kuo's and SciPy's
//! generators).
//!
//! Scrambles keep the net property (every elementary interval of the first `2^m` points
//! holds its share): a digital shift XORs each dimension's digits with a random word;
//! Owen-style scrambling permutes them with Laine and Karras's hash as improved by Burley
//! ("Practical hash-based Owen scrambling", JCGT 9(4), 2020): bit reversal, a hash in
//! which each bit depends only on the bits below it, and reversal back, so each digit is
//! flipped by a function of the digits before it, a nested scramble.

use super::fmix32;

/// Dimensions of Joe and Kuo's table.
pub const SOBOL_MAX_DIMS: u32 = 21201;
/// Bits of each direction number: points `0 .. 2^SOBOL_BITS`.
pub const SOBOL_BITS: u32 = 32;

/// How a Sobol' array's digits are scrambled.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Scramble {
    None,
    /// XOR with a random word per dimension.
    Shift,
    /// A nested uniform (Owen) scramble per dimension, by hashing.
    Owen,
}

/// The digits of point `index` in a dimension whose direction numbers `directions(k)`
/// (`k < SOBOL_BITS`, the most significant digit first) are given.
#[inline(always)]
pub fn digits(index: u32, directions: impl Fn(u32) -> u32) -> u32 {
    let mut g = index ^ (index >> 1);
    let mut x = 0;
    let mut k = 0;
    while g != 0 {
        if g & 1 != 0 {
            x ^= directions(k);
        }
        g >>= 1;
        k += 1;
    }
    x
}

/// The scramble word of dimension `dim` for `seed`.
#[inline(always)]
pub fn dimension_seed(seed: u64, dim: u32) -> u32 {
    fmix32(seed as u32 ^ fmix32((seed >> 32) as u32 ^ fmix32(dim ^ 0x5851_f42d)))
}

/// Burley's improved Laine-Karras hash: bit `b` of the result depends on bits `0..=b` of
/// `x` only (the multipliers are even).
#[inline(always)]
pub fn laine_karras(mut x: u32, seed: u32) -> u32 {
    x = x.wrapping_add(seed);
    x ^= x.wrapping_mul(0x6c50_b47c);
    x ^= x.wrapping_mul(0xb82f_1e52);
    x ^= x.wrapping_mul(0xc7af_e638);
    x ^= x.wrapping_mul(0x8d22_f6e6);
    x
}

/// Digits `x` scrambled with dimension seed `s`.
#[inline(always)]
pub fn scramble(x: u32, how: Scramble, s: u32) -> u32 {
    match how {
        Scramble::None => x,
        Scramble::Shift => x ^ s,
        Scramble::Owen => laine_karras(x.reverse_bits(), s).reverse_bits(),
    }
}

/// An f32 on [0, 1) from the digits: the top 24 (exact for unscrambled points below 2^24).
#[inline(always)]
pub fn to_f32(x: u32) -> f32 {
    (x >> 8) as f32 * (1.0 / (1u32 << 24) as f32)
}

/// An f64 on [0, 1) from the digits: all 32.
#[inline(always)]
pub fn to_f64(x: u32) -> f64 {
    x as f64 * (1.0 / (1u64 << 32) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A nested scramble: the top `b` digits of the result depend only on the top `b`
    /// digits of the input.
    #[test]
    fn owen_is_nested() {
        let mut h = 0x1234_5678u32;
        for _ in 0..2000 {
            h = fmix32(h.wrapping_add(1));
            let (x, s) = (h, fmix32(h ^ 77));
            for b in 1..32 {
                let low = fmix32(x ^ b) >> b;
                let y = (x & !(u32::MAX >> b)) | low;
                let top = |v: u32| v >> (32 - b);
                assert_eq!(top(scramble(x, Scramble::Owen, s)), top(scramble(y, Scramble::Owen, s)));
            }
        }
    }
}
