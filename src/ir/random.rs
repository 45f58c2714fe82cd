//! The random streams every executor computes. Counter-based: element `i` of draw `d`
//! from a generator seeded with `s` is a pure function of `(s, d, i)`, so any element can
//! be computed anywhere, in any order, and executors agree bit for bit on the uniform
//! values (normal values go through log/sqrt/cos and agree within those functions'
//! error bounds).

/// Which bit generator a random array uses.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum RngKind {
    /// Philox4x32-10 (Salmon et al., SC'11): 2^128 counters per key, passes BigCrush.
    Philox,
    /// A 32-bit integer hash of (seed, draw, element): cheaper, but each draw's stream
    /// repeats after 2^32 elements and it has no published statistical test record.
    Fast,
}

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Distribution {
    /// Uniform on [0, 1).
    Uniform,
    /// Standard normal (Box-Muller).
    Normal,
}

const PHILOX_M0: u32 = 0xD251_1F53;
const PHILOX_M1: u32 = 0xCD9E_8D57;
const PHILOX_W0: u32 = 0x9E37_79B9;
const PHILOX_W1: u32 = 0xBB67_AE85;

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

/// The murmur3 finaliser: a bijective 32-bit mix.
#[inline(always)]
fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}

/// Four 32-bit words for element `index` of draw `position` from seed `seed`.
#[inline(always)]
pub fn words(kind: RngKind, seed: u64, position: u64, index: u64) -> [u32; 4] {
    match kind {
        RngKind::Philox => philox4x32_10(
            [index as u32, (index >> 32) as u32, position as u32, (position >> 32) as u32],
            [seed as u32, (seed >> 32) as u32],
        ),
        RngKind::Fast => {
            let stream = fmix32(seed as u32 ^ fmix32((seed >> 32) as u32 ^ fmix32(position as u32)));
            let base = fmix32(index as u32 ^ stream);
            [base, fmix32(base ^ 0x6a09_e667), fmix32(base ^ 0xbb67_ae85), fmix32(base ^ 0x3c6e_f372)]
        }
    }
}

/// Uniform f32 on [0, 1) from word `word` (0..4): its top 24 bits.
#[inline(always)]
pub fn uniform_f32(w: &[u32; 4], word: usize) -> f32 {
    (w[word] >> 8) as f32 * (1.0 / (1u32 << 24) as f32)
}

/// Uniform f64 on [0, 1) from words `2 * word` and `2 * word + 1` (word 0 or 1): 53 bits.
#[inline(always)]
pub fn uniform_f64(w: &[u32; 4], word: usize) -> f64 {
    let bits = ((w[2 * word] as u64) << 21) ^ (w[2 * word + 1] >> 11) as u64;
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
    }

    #[test]
    fn uniform_ranges() {
        let top = [u32::MAX; 4];
        assert!(uniform_f32(&top, 0) < 1.0 && uniform_f64(&top, 1) < 1.0);
        assert_eq!(uniform_f32(&[0; 4], 3), 0.0);
    }
}
