//! The random streams every executor computes. Counter-based: element `i` of draw `d`
//! from a generator seeded with `s` is a pure function of `(s, d, i)`, so any element can
//! be computed anywhere, in any order, and executors agree bit for bit on the uniform
//! values and on every integer and bool a distribution gives, and on every decision a
//! rejection method makes (see `portable`); floating-point values computed from those
//! (normal values through log/sqrt/cos/sin, exponentials, a gamma's boost) agree within
//! those functions' error bounds.
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
//!   `sqrt(-2 ln(1 - u)) cos(2 pi v)` and `sqrt(-2 ln(1 - u)) sin(2 pi v)`;
//! - uniform on `[lo, hi)` and exponential elements `i` are functions of the uniform
//!   element `i` of their type (`lo (1 - u) + hi u` kept below `hi`; `-ln(1 - u)`);
//! - Bernoulli element `i`: `w(i) < round(p 2^32)`;
//! - integer elements `i` in a range start from `w(i)` (i32) or `w(2i) w(2i + 1)` (i64, the
//!   high word first) and take more words, when Lemire's method rejects one, from the
//!   element's own blocks 1, 2, ... (below).
//!
//! So one block gives four f32 uniforms, two f64 uniforms, two f32 normal pairs or one
//! f64 normal pair, and an executor computing a contiguous run of elements computes each
//! block once.
//!
//! Rejection methods need any number of words per element, so element `i` also owns the
//! blocks `i + a 2^48` (`Stream::element_block`, "block `a` of element `i`") for
//! `a = 0 .. ELEMENT_BLOCKS`: Poisson and gamma elements take all of theirs from there
//! (`samplers`: attempt after attempt), integers their retries from `a >= 1` (block
//! `i + 0` is the packed stream's). Element indices stay below 2^48
//! (`MAX_ELEMENT_INDEX`), so no two elements' blocks meet, and none meets a block of the
//! packed stream of the same draw (different draws never share a counter).

pub mod portable;
pub mod samplers;
pub mod sobol;

use super::dtype::{DType, Scalar};

/// Which bit generator a random array uses.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum RngKind {
    /// Philox4x32-10 (Salmon et al., SC'11): 2^128 counters per key, passes BigCrush.
    /// Block `b` of draw `d` with seed `s` is Philox4x32-10 of the counter
    /// `(b mod 2^32, b / 2^32, d mod 2^32, d / 2^32)` with the key `(s mod 2^32, s / 2^32)`.
    Philox,
    /// A 32-bit integer hash of (seed, draw, block): cheaper, but its blocks take 32 bits
    /// of state, so a draw's values repeat (2^32 blocks on, 2^34 f32 values, a stream
    /// comes back to the same hash input) and it has no published statistical test record.
    Fast,
    /// Threefry4x32-20 (Salmon et al., SC'11; Random123's definition): the Threefish block
    /// cipher's rotations and key schedule without its tweak, 20 rounds, no multiplies.
    /// Block `b` of draw `d` with seed `s` is Threefry4x32-20 of the counter
    /// `(b mod 2^32, b / 2^32, d mod 2^32, d / 2^32)` with the key
    /// `(s mod 2^32, s / 2^32, 0, 0)`.
    Threefry,
}

/// The law of a random array's elements. The scalar parameters of each are operands of
/// the random node after the seed and the draw (`params`, of the types
/// `param_type` says), computed once per array by the front (so a kernel never depends on
/// their values, and every executor gets the same bits).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Distribution {
    /// Uniform on [0, 1) (f32, f64).
    Uniform,
    /// Standard normal (Box-Muller pairs, see the module's layout) (f32, f64).
    Normal,
    /// Uniform on `[lo, hi)` (f32, f64). Params: `lo`, `hi` and the largest value below
    /// `hi`, of the array's type.
    UniformRange,
    /// Integers uniform on `[lo, lo + span)` (every integer type). Params: `lo` (the
    /// array's type), `span` (at most 2^32 for types of up to 32 bits, which take one
    /// 32-bit word per element; 64-bit types take two) and `reject = 2^32 mod span`
    /// (2^64 for 64-bit types) as the bits of an i64.
    Integers,
    /// Standard exponential (f32, f64): scale it for other rates.
    Exponential,
    /// `true` with probability `threshold / 2^32` (bool). Params: `threshold` (i64).
    Bernoulli,
    /// Poisson (i32, i64; computed in f64). Means below 10 by inversion, params `lambda`
    /// and `exp(-lambda)`; `large` (10 and above) by PTRS, params those of `Ptrs`.
    Poisson { large: bool },
    /// Standard gamma (f32, f64) by Marsaglia and Tsang, or its natural log (`log`, which
    /// stays finite for tiny shapes whose values underflow; beta takes it). Params `d`,
    /// `c` of `Mt` for shape `k`, and with `boost` (shapes below 1, which run with
    /// `k + 1`) `1/k`, of the array's type.
    Gamma { boost: bool, log: bool },
}

/// The most parameters a distribution has.
pub const MAX_RANDOM_PARAMS: usize = 5;

impl Distribution {
    /// How many parameters the random node takes after its seed and draw.
    pub fn params(self) -> usize {
        match self {
            Distribution::Uniform | Distribution::Normal | Distribution::Exponential => 0,
            Distribution::Bernoulli => 1,
            Distribution::Poisson { large: false } => 2,
            Distribution::Poisson { large: true } => 5,
            Distribution::UniformRange | Distribution::Integers => 3,
            Distribution::Gamma { boost, .. } => 2 + boost as usize,
        }
    }

    /// The type of parameter `j` of an array of type `t`.
    pub fn param_type(self, t: DType, j: usize) -> DType {
        match self {
            Distribution::Integers if j > 0 => DType::I64,
            Distribution::Bernoulli => DType::I64,
            Distribution::Poisson { .. } => DType::F64,
            _ => t,
        }
    }

    /// Whether arrays of type `t` can have this law.
    pub fn gives(self, t: DType) -> bool {
        match self {
            Distribution::Integers => t.is_integer(),
            Distribution::Poisson { .. } => matches!(t, DType::I32 | DType::I64),
            Distribution::Bernoulli => t == DType::Bool,
            // f16 and bf16 draws are f32 ones rounded (`Graph::random`), for the uniform and
            // normal laws only.
            _ => matches!(t, DType::F32 | DType::F64),
        }
    }

    /// Whether elements take words from their own blocks (`Stream::element_block`), which
    /// bounds an array's size by `MAX_ELEMENT_INDEX`.
    pub fn uses_element_blocks(self) -> bool {
        matches!(self, Distribution::Integers | Distribution::Poisson { .. } | Distribution::Gamma { .. })
    }

    /// Whether computing it needs 64-bit floats whatever the array's type.
    pub fn needs_f64(self) -> bool {
        matches!(self, Distribution::Poisson { .. })
    }

    pub fn name(self) -> &'static str {
        match self {
            Distribution::Uniform => "random_uniform",
            Distribution::Normal => "random_normal",
            Distribution::UniformRange => "random_uniform_range",
            Distribution::Integers => "random_integers",
            Distribution::Exponential => "random_exponential",
            Distribution::Bernoulli => "random_bernoulli",
            Distribution::Poisson { .. } => "random_poisson",
            Distribution::Gamma { log: false, .. } => "random_gamma",
            Distribution::Gamma { log: true, .. } => "random_log_gamma",
        }
    }
}

/// Elements of arrays that use their own blocks have indices below this.
pub const MAX_ELEMENT_INDEX: u64 = 1 << ELEMENT_BLOCK_SHIFT;
/// Block `a` of element `i` is block `i + a 2^ELEMENT_BLOCK_SHIFT` of the draw.
pub const ELEMENT_BLOCK_SHIFT: u32 = 48;
/// Blocks each element owns (`Stream::element_block`); rejection methods give up after
/// these (`samplers`).
pub const ELEMENT_BLOCKS: u64 = 32;

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
pub(crate) fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(FMIX_M1);
    h ^= h >> 13;
    h = h.wrapping_mul(FMIX_M2);
    h ^ (h >> 16)
}

/// What the `Fast` hash mixes into a block's first word to make its other three.
pub const FAST_WORD_SALTS: [u32; 3] = [0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372];

/// Threefry4x32's key schedule parity and rotations (Random123's `R_32x4`), by round mod 8.
pub const THREEFRY_PARITY: u32 = 0x1BD1_1BDA;
pub const THREEFRY_ROTATIONS: [[u32; 2]; 8] =
    [[10, 26], [11, 21], [13, 27], [23, 5], [6, 20], [17, 11], [25, 10], [18, 20]];

/// Threefry4x32 with 20 rounds: a key injection before the first round and after every
/// fourth, the pairs `(0, 1), (2, 3)` mixed in even rounds and `(0, 3), (2, 1)` in odd ones.
#[inline(always)]
pub fn threefry4x32_20(counter: [u32; 4], key: [u32; 4]) -> [u32; 4] {
    let ks = [key[0], key[1], key[2], key[3], THREEFRY_PARITY ^ key[0] ^ key[1] ^ key[2] ^ key[3]];
    let mut x = [0u32; 4];
    for (j, x) in x.iter_mut().enumerate() {
        *x = counter[j].wrapping_add(ks[j]);
    }
    for round in 0..20 {
        let [r0, r1] = THREEFRY_ROTATIONS[round % 8];
        let (a, b) = if round % 2 == 0 { ((0, 1), (2, 3)) } else { ((0, 3), (2, 1)) };
        x[a.0] = x[a.0].wrapping_add(x[a.1]);
        x[a.1] = x[a.1].rotate_left(r0) ^ x[a.0];
        x[b.0] = x[b.0].wrapping_add(x[b.1]);
        x[b.1] = x[b.1].rotate_left(r1) ^ x[b.0];
        if round % 4 == 3 {
            let s = (round / 4 + 1) as u32;
            for (j, x) in x.iter_mut().enumerate() {
                *x = x.wrapping_add(ks[(s as usize + j) % 5]);
            }
            x[3] = x[3].wrapping_add(s);
        }
    }
    x
}

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
            RngKind::Threefry => threefry4x32_20(
                [b as u32, (b >> 32) as u32, self.draw as u32, (self.draw >> 32) as u32],
                [self.seed as u32, (self.seed >> 32) as u32, 0, 0],
            ),
        }
    }

    /// Block `a` of element `i`'s own (`i < MAX_ELEMENT_INDEX`, `a < ELEMENT_BLOCKS`).
    #[inline(always)]
    pub fn element_block(&self, i: u64, a: u64) -> [u32; 4] {
        self.block(i + (a << ELEMENT_BLOCK_SHIFT))
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

    /// Element `i` of an array of type `t` with law `dist` and parameters `params`, by the
    /// definitions of `samplers`; values computed after the decisions (an exponential's
    /// log, a gamma's boost and log) are computed in f64 and rounded to `t`.
    pub fn sample(&self, dist: Distribution, t: DType, i: u64, params: &[Scalar]) -> Scalar {
        let f = |j: usize| params[j].as_f64();
        let bits = |j: usize| params[j].to_bits();
        let blocks = |a: u64| self.element_block(i, a);
        let float = |x: f64| Scalar::F64(x).cast(t);
        match dist {
            Distribution::Uniform => float(self.uniform(t, i)),
            Distribution::Normal => float(self.normal(t, i)),
            Distribution::UniformRange => match t {
                DType::F32 => {
                    let p = |j: usize| f(j) as f32;
                    Scalar::F32(samplers::uniform_range(self.uniform(t, i) as f32, p(0), p(1), p(2)))
                }
                _ => Scalar::F64(samplers::uniform_range(self.uniform(t, i), f(0), f(1), f(2))),
            },
            Distribution::Exponential => float(-(1.0 - self.uniform(t, i)).ln()),
            Distribution::Bernoulli => Scalar::Bool((self.word(i) as u64) < bits(0)),
            Distribution::Integers => {
                let x = if t.size() <= 4 {
                    samplers::below_u32(self.word(i), bits(1), bits(2) as u32, blocks) as u64
                } else {
                    let first = (self.word(2 * i) as u64) << 32 | self.word(2 * i + 1) as u64;
                    samplers::below_u64(first, bits(1), bits(2), blocks)
                };
                // lo + x is in the type's range, so wrapping arithmetic on its bits is exact.
                Scalar::from_bits(t, bits(0).wrapping_add(x))
            }
            Distribution::Poisson { large } => {
                let k = if large {
                    let p = samplers::Ptrs { lambda: f(0), a: f(1), b: f(2), ln_inv_alpha: f(3), vr: f(4) };
                    samplers::ptrs(&p, blocks)
                } else {
                    let w = blocks(0);
                    samplers::poisson_inversion(f64_from_words(w[0], w[1]), f(0), f(1))
                };
                Scalar::F64(k).cast(t)
            }
            Distribution::Gamma { boost, log } => {
                let inv_k = if boost { f(2) } else { 0.0 };
                match t {
                    DType::F32 => {
                        let mt = samplers::Mt { d: f(0) as f32, c: f(1) as f32 };
                        let g = samplers::marsaglia_tsang(&mt, blocks);
                        float(gamma_value(mt.d as f64, (mt.d * g.v) as f64, g.t as f64, g.boost as f64, inv_k, log))
                    }
                    _ => {
                        let mt = samplers::Mt { d: f(0), c: f(1) };
                        let g = samplers::marsaglia_tsang(&mt, blocks);
                        float(gamma_value(mt.d, mt.d * g.v, g.t, g.boost, inv_k, log))
                    }
                }
            }
        }
    }
}

/// A gamma value `dv = d v` (or its log, `ln d + 3 ln t`) with the boost `boost^inv_k`
/// (`inv_k` 0 without one).
fn gamma_value(d: f64, dv: f64, t: f64, boost: f64, inv_k: f64, log: bool) -> f64 {
    if log {
        d.ln() + 3.0 * t.ln() + boost.ln() * inv_k
    } else if inv_k == 0.0 {
        dv
    } else {
        dv * (boost.ln() * inv_k).exp()
    }
}

/// Block `b` of the `Fast` hash for a draw whose salt is `salt`. The block's high word
/// is mixed in (as `fmix32(0) = 0`, blocks below 2^32 depend on the low word alone), so
/// elements' own blocks (`Stream::element_block`) differ from one another.
#[inline(always)]
pub fn fast_block(salt: u32, b: u64) -> [u32; 4] {
    let base = fmix32(b as u32 ^ salt ^ fmix32((b >> 32) as u32));
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

    /// Known-answer vectors from the Random123 distribution (kat_vectors, threefry4x32 20).
    #[test]
    fn threefry_known_answers() {
        assert_eq!(threefry4x32_20([0; 4], [0; 4]), [0x9c6ca96a, 0xe17eae66, 0xfc10ecd4, 0x5256a7d8]);
        assert_eq!(threefry4x32_20([u32::MAX; 4], [u32::MAX; 4]), [0x2a881696, 0x57012287, 0xf6c7446e, 0xa16a6732]);
        assert_eq!(
            threefry4x32_20(
                [0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344],
                [0xa4093822, 0x299f31d0, 0x082efa98, 0xec4e6c89]
            ),
            [0x59cd1dbb, 0xb8879579, 0x86b5d00c, 0xac8b6d84]
        );
        // A stream's block is Threefry of (block, draw) under (seed, 0, 0).
        let s = Stream { kind: RngKind::Threefry, seed: 0x299f31d0_a4093822, draw: 0x03707344_13198a2e };
        assert_eq!(
            s.block(0x85a308d3_243f6a88),
            threefry4x32_20([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0, 0, 0])
        );
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
        for kind in [RngKind::Philox, RngKind::Fast, RngKind::Threefry] {
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
            // An element's own blocks differ from one another and from the packed ones.
            for a in 1..ELEMENT_BLOCKS {
                assert_ne!(s.element_block(5, a), s.element_block(5, a - 1), "{kind:?} block {a} of element 5");
            }
        }
    }
}
