//! The random streams every executor computes. Counter-based: element `i` of draw `d`
//! from a generator seeded with `s` is a pure function of `(s, d, i)`, so any element can
//! be computed anywhere, in any order, and executors agree bit for bit on the uniform
//! values (normal values go through log/sqrt/cos/sin and agree within those functions'
//! error bounds).
//!
//! # Layout
//!
//! A draw is a sequence of 32-bit words `w(0), w(1), ...` made four at a time: words
//! `4b .. 4b + 4` are block `b`, the bit generator's output for counter `b` of that draw
//! (`Stream::block`). Elements take the words in order, so every word of a block is used:
//! - uniform f32 element `i`: the top 24 bits of `w(i)`, times 2^-24;
//! - uniform f64 element `i`: the 53 bits of `w(2i)` (high 32) and the top 21 of
//!   `w(2i + 1)`, times 2^-53;
//! - normal elements `2j` and `2j + 1` (of either type) are a Box-Muller pair from the
//!   uniform elements `u = U(2j)` and `v = U(2j + 1)` of that type:
//!   `sqrt(-2 ln(1 - u)) cos(2 pi v)` and `sqrt(-2 ln(1 - u)) sin(2 pi v)`.
//!
//! So one block gives four f32 uniforms, two f64 uniforms, two f32 normal pairs or one
//! f64 normal pair, and an executor computing a contiguous run of elements computes each
//! block once.

use super::dtype::DType;

/// Which bit generator a random array uses.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum RngKind {
    /// Philox4x32-10 (Salmon et al., SC'11): 2^128 counters per key, passes BigCrush.
    /// Block `b` of draw `d` with seed `s` is Philox4x32-10 of the counter
    /// `(b mod 2^32, b / 2^32, d mod 2^32, d / 2^32)` with the key `(s mod 2^32, s / 2^32)`.
    Philox,
    /// A 32-bit integer hash of (seed, draw, block): cheaper, but each draw's stream
    /// repeats after 2^32 blocks (2^34 f32 values) and it has no published statistical
    /// test record.
    Fast,
}

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Distribution {
    /// Uniform on [0, 1).
    Uniform,
    /// Standard normal (Box-Muller pairs, see the module's layout).
    Normal,
}

pub const PHILOX_M0: u32 = 0xD251_1F53;
pub const PHILOX_M1: u32 = 0xCD9E_8D57;
pub const PHILOX_W0: u32 = 0x9E37_79B9;
pub const PHILOX_W1: u32 = 0xBB67_AE85;

#[inline(always)]
fn mul_hi_lo(a: u32, b: u32) -> (u32, u32) {
    let p = a as u64 * b as u64;
    ((p >> 32) as u32, p as u32)
}

/// Philox4x32 with 10 rounds.
#[inline(always)]
pub fn philox4x32_10(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let (mut c, mut k) = (counter, key);
    for round in 0..10 {
        if round > 0 {
            k = [k[0].wrapping_add(PHILOX_W0), k[1].wrapping_add(PHILOX_W1)];
        }
        let (hi0, lo0) = mul_hi_lo(PHILOX_M0, c[0]);
        let (hi1, lo1) = mul_hi_lo(PHILOX_M1, c[2]);
        c = [hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0];
    }
    c
}

/// The multipliers of `fmix32`.
pub const FMIX_M1: u32 = 0x85eb_ca6b;
pub const FMIX_M2: u32 = 0xc2b2_ae35;

/// The murmur3 finaliser: a bijective 32-bit mix.
#[inline(always)]
fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(FMIX_M1);
    h ^= h >> 13;
    h = h.wrapping_mul(FMIX_M2);
    h ^ (h >> 16)
}

/// What the `Fast` hash mixes into a block's first word to make its other three.
pub const FAST_WORD_SALTS: [u32; 3] = [0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372];

/// The words of one draw of one generator.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct Stream {
    pub kind: RngKind,
    pub seed: u64,
    pub draw: u64,
}

impl Stream {
    /// The `Fast` hash's value for the whole draw, mixed into each block.
    #[inline(always)]
    pub fn fast_salt(&self) -> u32 {
        let (s, d) = (self.seed, self.draw);
        fmix32(s as u32 ^ fmix32((s >> 32) as u32 ^ fmix32(d as u32)))
    }

    /// Words `4b .. 4b + 4` of the draw.
    #[inline(always)]
    pub fn block(&self, b: u64) -> [u32; 4] {
        match self.kind {
            RngKind::Philox => philox4x32_10(
                [b as u32, (b >> 32) as u32, self.draw as u32, (self.draw >> 32) as u32],
                [self.seed as u32, (self.seed >> 32) as u32],
            ),
            RngKind::Fast => fast_block(self.fast_salt(), b),
        }
    }

    /// Word `j` of the draw.
    pub fn word(&self, j: u64) -> u32 {
        self.block(j / 4)[(j % 4) as usize]
    }

    /// Uniform element `i` of type `t` (f32 or f64), as f64.
    pub fn uniform(&self, t: DType, i: u64) -> f64 {
        match t {
            DType::F32 => f32_from_word(self.word(i)) as f64,
            _ => f64_from_words(self.word(i.wrapping_mul(2)), self.word(i.wrapping_mul(2).wrapping_add(1))),
        }
    }

    /// Normal element `i` of type `t` (f32 or f64), computed in f64 from its pair's
    /// uniforms.
    pub fn normal(&self, t: DType, i: u64) -> f64 {
        let first = i & !1;
        let (u, v) = (self.uniform(t, first), self.uniform(t, first + 1));
        let r = (-2.0 * (1.0 - u).ln()).sqrt();
        let angle = std::f64::consts::TAU * v;
        r * if i.is_multiple_of(2) { angle.cos() } else { angle.sin() }
    }
}

/// Block `b` of the `Fast` hash for a draw whose salt is `salt`.
#[inline(always)]
pub fn fast_block(salt: u32, b: u64) -> [u32; 4] {
    let base = fmix32(b as u32 ^ salt);
    let [s1, s2, s3] = FAST_WORD_SALTS;
    [base, fmix32(base ^ s1), fmix32(base ^ s2), fmix32(base ^ s3)]
}

/// A uniform f32 on [0, 1) from one word: its top 24 bits.
#[inline(always)]
pub fn f32_from_word(w: u32) -> f32 {
    (w >> 8) as f32 * (1.0 / (1u32 << 24) as f32)
}

/// A uniform f64 on [0, 1) from two words: 53 bits, the first word's 32 above the
/// second's top 21.
#[inline(always)]
pub fn f64_from_words(hi: u32, lo: u32) -> f64 {
    let bits = ((hi as u64) << 21) ^ (lo >> 11) as u64;
    bits as f64 * (1.0 / (1u64 << 53) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known-answer vectors from the Random123 distribution (kat_vectors).
    #[test]
    fn philox_known_answers() {
        assert_eq!(philox4x32_10([0; 4], [0; 2]), [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]);
        assert_eq!(philox4x32_10([u32::MAX; 4], [u32::MAX; 2]), [0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd]);
        assert_eq!(
            philox4x32_10([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0]),
            [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]
        );
        // A stream's block is Philox of (block, draw) under the seed, low words first.
        let s = Stream { kind: RngKind::Philox, seed: 0x299f31d0_a4093822, draw: 0x03707344_13198a2e };
        assert_eq!(s.block(0x85a308d3_243f6a88), [0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]);
    }

    #[test]
    fn uniform_ranges() {
        assert!(f32_from_word(u32::MAX) < 1.0 && f64_from_words(u32::MAX, u32::MAX) < 1.0);
        assert_eq!(f32_from_word(0), 0.0);
        assert_eq!(f32_from_word(1 << 8), 1.0 / (1u32 << 24) as f32);
        assert_eq!(f64_from_words(0, 1 << 11), 1.0 / (1u64 << 53) as f64);
    }

    /// Elements take the words in order: every word of a block is used once.
    #[test]
    fn layout() {
        for kind in [RngKind::Philox, RngKind::Fast] {
            let s = Stream { kind, seed: 0x1234_5678_9abc_def0, draw: 77 };
            for i in 0..64u64 {
                let w = s.block(i / 4)[(i % 4) as usize];
                assert_eq!(s.word(i), w);
                assert_eq!(s.uniform(DType::F32, i), f32_from_word(w) as f64);
                assert_eq!(s.uniform(DType::F64, i / 2), f64_from_words(s.word(i & !1), s.word(i | 1)));
                // A normal pair's squares add up to its radius squared.
                for t in [DType::F32, DType::F64] {
                    let (a, b) = (s.normal(t, i & !1), s.normal(t, i | 1));
                    let r2 = -2.0 * (1.0 - s.uniform(t, i & !1)).ln();
                    assert!((a * a + b * b - r2).abs() <= 1e-12 * r2.max(1.0), "{kind:?} {t} pair {}", i / 2);
                }
            }
            assert_ne!(s.block(0), s.block(1));
            assert_ne!(s.block(0), Stream { draw: 78, ..s }.block(0));
        }
    }
}
