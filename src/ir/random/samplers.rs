//! Each distribution's value from the words of its element: the definitions executors
//! follow. The CPU executor calls these functions; the Vulkan executor's
//! `random_dist.glsl` spells them out with the same operations in the same order. Every
//! decision (reject, try again, which integer an inversion stops at) is made with the
//! portable arithmetic of `portable`, so it comes out the same on every executor; a
//! value computed after the decisions (a gamma's boost, an exponential's log) may differ
//! by the executors' math error bounds.
//!
//! `blocks(a)` is an element's own block `a` (`Stream::element_block`): rejection methods
//! take attempt after attempt from them, so any element can be computed alone.

use super::portable::{Real, horner};
use super::{ELEMENT_BLOCKS, f64_from_words};

/// The integer `m >> 32` of Lemire's method for `[0, span)` (`span <= 2^32`) from 32-bit
/// words `x`: `m = x span` is rejected while its low half is below
/// `reject = 2^32 mod span`, which leaves every result equally likely. The first word is the element's own word of the
/// packed stream; the others come from its blocks 1, 2, ... (four words each). After
/// `4 (ELEMENT_BLOCKS - 1)` rejections (probability below 2^-120) the last is kept.
#[inline(always)]
pub fn below_u32(first: u32, span: u64, reject: u32, mut blocks: impl FnMut(u64) -> [u32; 4]) -> u32 {
    let mut m = first as u64 * span;
    if m as u32 >= reject {
        return (m >> 32) as u32;
    }
    for a in 1..ELEMENT_BLOCKS {
        for w in blocks(a) {
            m = w as u64 * span;
            if m as u32 >= reject {
                return (m >> 32) as u32;
            }
        }
    }
    (m >> 32) as u32
}

/// `below_u32` with 64-bit words (the high word first, as an f64 uniform takes them):
/// `m = x span` in 128 bits, `reject = 2^64 mod span`; two words per block.
#[inline(always)]
pub fn below_u64(first: u64, span: u64, reject: u64, mut blocks: impl FnMut(u64) -> [u32; 4]) -> u64 {
    let mut m = first as u128 * span as u128;
    if m as u64 >= reject {
        return (m >> 64) as u64;
    }
    for a in 1..ELEMENT_BLOCKS {
        let w = blocks(a);
        for x in [(w[0] as u64) << 32 | w[1] as u64, (w[2] as u64) << 32 | w[3] as u64] {
            m = x as u128 * span as u128;
            if m as u64 >= reject {
                return (m >> 64) as u64;
            }
        }
    }
    (m >> 64) as u64
}

/// `lo (1 - u) + hi u` for a uniform `u` on [0, 1), kept in `[lo, below]` (`below` the
/// largest value of the type under `hi`), which rounding could otherwise leave.
#[inline(always)]
pub fn uniform_range<T: Real>(u: T, lo: T, hi: T, below: T) -> T {
    let x = lo * (T::ONE - u) + hi * u;
    if x < lo {
        lo
    } else if x > below {
        below
    } else {
        x
    }
}

/// The squeeze `1 - MT_SQUEEZE x^4` of Marsaglia and Tsang's test.
pub const MT_SQUEEZE: f64 = 0.0331;

/// Marsaglia and Tsang's constants for shape `k >= 1` (for `k < 1`, those of `k + 1`):
/// `d = k - 1/3`, `c = 1 / sqrt(9 d)`.
#[derive(Copy, Clone, Debug)]
pub struct Mt<T> {
    pub d: T,
    pub c: T,
}

/// An accepted Marsaglia-Tsang attempt: the gamma value is `d v` with `v = t^3`, and
/// `boost` is the attempt's last uniform as `1 - u` (in (0, 1]) for the `k < 1` boost
/// `d v boost^(1/k)`.
#[derive(Copy, Clone, Debug)]
pub struct MtDraw<T> {
    pub t: T,
    pub v: T,
    pub boost: T,
}

/// `h(y) = 1 - (1 + y)^3 + 3 ln(1 + y) = -4.5 y^2 + y^4 P(y)` for `|y| < 1/8`, with
/// `P(y) = sum 3 (-1)^(n+1) y^(n-4) / n` over `n >= 4`, truncated below the type's
/// precision (`(1/8)^(N-1)`): computing `d h(c x)` this way keeps the acceptance test
/// right for large shapes, where `1 - v + ln v` would cancel to nothing.
pub const MT_SERIES_F32: [f32; 7] = [-0.75, 0.6, -0.5, 0.42857143, -0.375, 0.33333334, -0.3];
pub const MT_SERIES_F64: [f64; 17] = [
    -0.75,
    0.6,
    -0.5,
    0.42857142857142855,
    -0.375,
    0.3333333333333333,
    -0.3,
    0.2727272727272727,
    -0.25,
    0.23076923076923078,
    -0.21428571428571427,
    0.2,
    -0.1875,
    0.17647058823529413,
    -0.16666666666666666,
    0.15789473684210525,
    -0.15,
];

/// The types Marsaglia-Tsang runs in.
pub trait MtReal: Real + 'static {
    const MT_SERIES: &'static [Self];
}
impl MtReal for f32 {
    const MT_SERIES: &'static [f32] = &MT_SERIES_F32;
}
impl MtReal for f64 {
    const MT_SERIES: &'static [f64] = &MT_SERIES_F64;
}

/// One Marsaglia-Tsang attempt from uniforms `u0`, `u1` (a Box-Muller normal `x`, the
/// cosine of the pair) and `u2` (the test's `U`, taken as `1 - u2`): `Some(t)` if
/// accepted. `t = 1 + c x` must be positive; the squeeze `U < 1 - 0.0331 x^4` accepts
/// most; otherwise `ln U < x^2/2 + d h(c x)`.
#[inline(always)]
pub fn mt_attempt<T: MtReal>(p: &Mt<T>, u0: T, u1: T, u2: T) -> Option<T> {
    let (x, y, t) = mt_start(p, u0, u1);
    if t <= T::ZERO {
        return None;
    }
    let big_u = T::ONE - u2;
    (mt_squeezed(x, big_u) || mt_log_test(p, x, y, t, big_u)).then_some(t)
}

/// An attempt's normal `x`, `y = c x` and `t = 1 + y`.
#[inline(always)]
pub fn mt_start<T: MtReal>(p: &Mt<T>, u0: T, u1: T) -> (T, T, T) {
    let x = (T::of(-2.0) * (T::ONE - u0).ln()).sqrt() * u1.cos_sin_turns().0;
    let y = p.c * x;
    (x, y, T::ONE + y)
}

/// Whether the squeeze `U < 1 - 0.0331 x^4` accepts.
#[inline(always)]
pub fn mt_squeezed<T: MtReal>(x: T, big_u: T) -> bool {
    let x2 = x * x;
    big_u < T::ONE - T::of(MT_SQUEEZE) * (x2 * x2)
}

/// The test past the squeeze: `ln U < x^2/2 + d h(y)`.
#[inline(always)]
pub fn mt_log_test<T: MtReal>(p: &Mt<T>, x: T, y: T, t: T, big_u: T) -> bool {
    let x2 = x * x;
    let h = if y < T::of(0.125) && y > T::of(-0.125) {
        let y2 = y * y;
        T::of(-4.5) * y2 + (y2 * y2) * horner(y, T::MT_SERIES)
    } else {
        (T::ONE - t * t * t) + T::of(3.0) * t.ln()
    };
    big_u.ln() < T::of(0.5) * x2 + p.d * h
}

/// Marsaglia and Tsang's gamma method: attempt `j` takes the element's block `j` (f32) or
/// blocks `2j`, `2j + 1` (f64, whose uniforms take two words each) as four uniforms
/// `u0..u3` (`mt_attempt` and the boost). After `ELEMENT_BLOCKS` blocks without an
/// accepted attempt (probability below 1e-20) the value is `d` (`t = 1`).
#[inline(always)]
pub fn marsaglia_tsang<T: MtReal>(p: &Mt<T>, mut blocks: impl FnMut(u64) -> [u32; 4]) -> MtDraw<T> {
    let per = T::WORDS as u64;
    for j in 0..ELEMENT_BLOCKS / per {
        let mut w = [0u32; 8];
        for b in 0..per {
            w[4 * b as usize..4 * b as usize + 4].copy_from_slice(&blocks(per * j + b));
        }
        let u = |k: usize| T::uniform(&w[k * T::WORDS..]);
        if let Some(t) = mt_attempt(p, u(0), u(1), u(2)) {
            return MtDraw { t, v: t * t * t, boost: T::ONE - u(3) };
        }
    }
    MtDraw { t: T::ONE, v: T::ONE, boost: T::ONE }
}

/// Hörmann's PTRS constants for mean `lambda >= 10` (`ptrs`), computed once per array.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Ptrs {
    pub lambda: f64,
    pub a: f64,
    pub b: f64,
    /// `ln(1 / alpha)`.
    pub ln_inv_alpha: f64,
    pub vr: f64,
}

impl Ptrs {
    pub fn new(lambda: f64) -> Ptrs {
        let b = 0.931 + 2.53 * lambda.sqrt();
        let a = -0.059 + 0.02483 * b;
        let inv_alpha = 1.1239 + 1.1328 / (b - 3.4);
        Ptrs { lambda, a, b, ln_inv_alpha: inv_alpha.ln(), vr: 0.9277 - 3.6224 / (b - 2.0) }
    }
}

/// The mean below which Poisson values are made by inversion, at and above which by PTRS.
pub const POISSON_INVERSION_BELOW: f64 = 10.0;
/// The most steps an inversion takes (its sum stops growing long before, for means below 10).
pub const POISSON_INVERSION_STEPS: u32 = 64;

/// Poisson by inversion (means below 10): the least `k` with `u < F(k)`, summing
/// `p(k) = p(k - 1) lambda / k` from `p(0) = exp(-lambda)` (given) until the sum reaches
/// `u` or stops growing. `u` is the element's block 0, words 0 and 1, as an f64 uniform.
#[inline(always)]
pub fn poisson_inversion(u: f64, lambda: f64, p0: f64) -> f64 {
    let (mut k, mut p, mut f) = (0.0, p0, p0);
    let mut steps = 0;
    while u >= f && steps < POISSON_INVERSION_STEPS {
        k += 1.0;
        p = p * lambda / k;
        let g = f + p;
        if g == f {
            break;
        }
        f = g;
        steps += 1;
    }
    k
}

/// `poisson_inversion`'s sums for one mean, computed once for many elements: an element's
/// value is the number of sums at or below its `u`, or `last` where every sum is.
#[derive(Clone, Debug)]
pub struct InversionTable {
    pub sums: Vec<f64>,
    pub last: f64,
}

impl InversionTable {
    pub fn new(lambda: f64, p0: f64) -> InversionTable {
        let (mut k, mut p, mut f) = (0.0, p0, p0);
        let mut sums = vec![p0];
        for _ in 0..POISSON_INVERSION_STEPS {
            k += 1.0;
            p = p * lambda / k;
            let g = f + p;
            if g == f {
                return InversionTable { sums, last: k };
            }
            f = g;
            sums.push(f);
        }
        InversionTable { sums, last: k }
    }

    /// `poisson_inversion(u, ..)`.
    #[inline(always)]
    pub fn sample(&self, u: f64) -> f64 {
        let below = self.sums.iter().map(|&f| (f <= u) as u32).sum::<u32>() as usize;
        if below == self.sums.len() { self.last } else { below as f64 }
    }
}

/// Hörmann's transformed rejection with squeeze (PTRS, 1993) for means of 10 and more.
/// Attempt `j` takes the element's block `j`: `U` from words 0 and 1 (an f64 uniform, less
/// 1/2), `V` from words 2 and 3. After `ELEMENT_BLOCKS` rejected attempts (probability
/// below 1e-30) the value is `floor(lambda)`.
#[inline(always)]
pub fn ptrs(p: &Ptrs, mut blocks: impl FnMut(u64) -> [u32; 4]) -> f64 {
    for j in 0..ELEMENT_BLOCKS {
        let w = blocks(j);
        let u = f64_from_words(w[0], w[1]) - 0.5;
        let v = f64_from_words(w[2], w[3]);
        if let Some(k) = ptrs_attempt(p, u, v) {
            return k;
        }
    }
    p.lambda.floor()
}

/// PTRS's regions of `us = 1/2 - |U|`: rejected outright below `PTRS_SMALL_US` (where
/// `V > us`), accepted by the squeeze from `PTRS_SQUEEZE_US` (where `V <= vr`); and the
/// shift in `k`.
pub const PTRS_SMALL_US: f64 = 0.013;
pub const PTRS_SQUEEZE_US: f64 = 0.07;
pub const PTRS_SHIFT: f64 = 0.43;

/// One PTRS attempt: `Some(k)` if accepted.
#[inline(always)]
pub fn ptrs_attempt(p: &Ptrs, u: f64, v: f64) -> Option<f64> {
    let us = 0.5 - u.abs();
    if us <= 0.0 || (us < PTRS_SMALL_US && v > us) {
        return None;
    }
    let k = ptrs_k(p, u, us);
    if ptrs_squeezed(p, us, v) {
        return Some(k);
    }
    if k < 0.0 {
        return None;
    }
    if v == 0.0 {
        return Some(k); // ln V is -infinity
    }
    let lhs = v.ln_p() + p.ln_inv_alpha - (p.a / (us * us) + p.b).ln_p();
    (lhs <= ln_poisson_pmf(k, p.lambda)).then_some(k)
}

/// An attempt's candidate `k` for `U = u` and `us = 1/2 - |U|`.
#[inline(always)]
pub fn ptrs_k(p: &Ptrs, u: f64, us: f64) -> f64 {
    ((2.0 * p.a / us + p.b) * u + p.lambda + PTRS_SHIFT).floor()
}

/// Whether the squeeze accepts (`us >= 0.07` and `V <= vr`).
#[inline(always)]
pub fn ptrs_squeezed(p: &Ptrs, us: f64, v: f64) -> bool {
    us >= PTRS_SQUEEZE_US && v <= p.vr
}

/// The portable log on f64, where `f64`'s own `ln` would otherwise be found first.
trait LnPortable {
    fn ln_p(self) -> Self;
}
impl LnPortable for f64 {
    #[inline(always)]
    fn ln_p(self) -> f64 {
        Real::ln(self)
    }
}

/// `ln(k! e^k / (k^k sqrt(2 pi k)))` for `k = 0..=15` (Loader 2000; checked against MPFR).
pub const STIRLERR: [f64; 16] = [
    0.0,
    0.08106146679532726,
    0.0413406959554093,
    0.02767792568499834,
    0.020790672103765093,
    0.016644691189821193,
    0.013876128823070748,
    0.01189670994589177,
    0.010411265261972096,
    0.009255462182712733,
    0.00833056343336287,
    0.007573675487951841,
    0.00694284010720953,
    0.006408994188004207,
    0.0059513701127588475,
    0.005554733551962801,
];

/// The coefficients of Stirling's series for `stirlerr`: 1/12, 1/360, 1/1260, 1/1680, 1/1188.
pub const STIRLING_SERIES: [f64; 5] = [1.0 / 12.0, 1.0 / 360.0, 1.0 / 1260.0, 1.0 / 1680.0, 1.0 / 1188.0];

/// The error of Stirling's formula for `ln k!`, integer `k >= 1`: the table to 15, then
/// Loader's series with as many terms as `k` needs.
#[inline(always)]
pub fn stirlerr(k: f64) -> f64 {
    let [s0, s1, s2, s3, s4] = STIRLING_SERIES;
    if k <= 15.0 {
        return STIRLERR[k as usize];
    }
    let kk = k * k;
    if k > 500.0 {
        (s0 - s1 / kk) / k
    } else if k > 80.0 {
        (s0 - (s1 - s2 / kk) / kk) / k
    } else if k > 35.0 {
        (s0 - (s1 - (s2 - s3 / kk) / kk) / kk) / k
    } else {
        (s0 - (s1 - (s2 - (s3 - s4 / kk) / kk) / kk) / kk) / k
    }
}

/// The most terms `bd0`'s series sums (it converges in about 8 where it is used), and
/// how near `x` must be to `m` (relative to `x + m`) for the series.
pub const BD0_TERMS: u32 = 64;
pub const BD0_NEAR: f64 = 0.1;

/// `x ln(x / m) + m - x` without cancellation (Loader 2000): a series in
/// `v = (x - m) / (x + m)` where `x` is near `m`.
#[inline(always)]
pub fn bd0(x: f64, m: f64) -> f64 {
    if (x - m).abs() < BD0_NEAR * (x + m) {
        let mut v = (x - m) / (x + m);
        let mut s = (x - m) * v;
        let mut ej = 2.0 * x * v;
        v = v * v;
        for j in 1..BD0_TERMS {
            ej *= v;
            let s1 = s + ej / (2 * j + 1) as f64;
            if s1 == s {
                return s1;
            }
            s = s1;
        }
        return s;
    }
    x * (x / m).ln_p() + m - x
}

/// `ln(e^-lambda lambda^k / k!)` for integer `k >= 0`, accurate for large means too:
/// `-stirlerr(k) - bd0(k, lambda) - ln(2 pi k) / 2`.
#[inline(always)]
pub fn ln_poisson_pmf(k: f64, lambda: f64) -> f64 {
    if k == 0.0 {
        return -lambda;
    }
    -stirlerr(k) - bd0(k, lambda) - 0.5 * (std::f64::consts::TAU * k).ln_p()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ln_poisson_pmf` against the direct formula in f64 where that is accurate.
    #[test]
    fn poisson_pmf() {
        for lambda in [10.0f64, 17.5, 100.0, 1000.0] {
            for k in [0u32, 1, 2, 5, 9, 10, 14, 15, 16, 30, 36, 81, 100, 501, 1000, 1200] {
                let kf = k as f64;
                let lgamma: f64 = (1..=k).map(|j| (j as f64).ln()).sum();
                let want = -lambda + kf * lambda.ln() - lgamma;
                let got = ln_poisson_pmf(kf, lambda);
                assert!((got - want).abs() <= 1e-9 * want.abs().max(1.0), "k {k} lambda {lambda}: {got} vs {want}");
            }
        }
    }

    /// The truncated series `h(y)` against the whole series summed term by term (the
    /// closed form cancels too much to check it), and against the closed form where that
    /// is accurate.
    #[test]
    fn mt_series() {
        let h = |y: f64| {
            -4.5 * y * y
                + (4..80).map(|n| 3.0 * if n % 2 == 0 { -1.0 } else { 1.0 } * y.powi(n) / n as f64).sum::<f64>()
        };
        for i in -100..=100 {
            let y = i as f64 / 801.0;
            let want = h(y);
            let y2 = y * y;
            let got = -4.5 * y2 + y2 * y2 * horner(y, &MT_SERIES_F64);
            assert!((got - want).abs() <= 1e-13 * want.abs(), "{y}: {got} vs {want}");
            let y32 = y as f32;
            let got32 = -4.5 * y32 * y32 + (y32 * y32) * (y32 * y32) * horner(y32, &MT_SERIES_F32);
            let want32 = h(y32 as f64);
            assert!((got32 as f64 - want32).abs() <= 1e-6 * want32.abs(), "f32 {y}: {got32} vs {want32}");
        }
        let y = 0.124f64;
        let closed = 1.0 - (1.0 + y).powi(3) + 3.0 * y.ln_1p();
        assert!((h(y) - closed).abs() <= 1e-13, "{} vs {closed}", h(y));
    }

    /// The inversion table gives the inversion loop's values, at every sum's edges too.
    #[test]
    fn inversion_table() {
        for lambda in [0.0f64, 1e-9, 0.3, 1.0, 4.0, 7.7, 9.999_999] {
            let p0 = (-lambda).exp();
            let table = InversionTable::new(lambda, p0);
            let mut us: Vec<f64> = table.sums.iter().flat_map(|&f| [f, f.next_down(), f.next_up()]).collect();
            us.extend((0..2000).map(|i| i as f64 / 2000.0));
            us.extend([0.0, 1.0f64.next_down()]);
            for u in us.into_iter().filter(|u| (0.0..1.0).contains(u)) {
                assert_eq!(table.sample(u), poisson_inversion(u, lambda, p0), "lambda {lambda}, u {u}");
            }
        }
    }

    /// Lemire's method: every value of a small range is reached by the same number of
    /// accepted words, counted over all 2^32 words in the range's classes of low halves.
    #[test]
    fn lemire_is_exact() {
        for span in [3u64, 6, 7, 1000, (1 << 31) + 1, u32::MAX as u64, 1 << 32] {
            let reject = (1u64 << 32) % span;
            // x -> (x span) mod 2^32 hits each residue class of the low half evenly: the
            // accepted low halves are those >= reject, 2^32 - reject of them, a multiple
            // of span, so each high half gets (2^32 - reject) / span words.
            assert_eq!(((1u64 << 32) - reject) % span, 0, "span {span}");
        }
        assert_eq!(below_u32(u32::MAX, 1, 0, |_| unreachable!()), 0);
        assert_eq!(below_u32(0x8000_0001, 1 << 32, 0, |_| unreachable!()), 0x8000_0001);
        assert_eq!(below_u64(u64::MAX, 3, 1, |_| unreachable!()), 2);
    }
}
