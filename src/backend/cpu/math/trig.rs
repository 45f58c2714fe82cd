//! sin, cos, tan.
//!
//! Vector path: Cody–Waite reduction `x = n pi/2 + r`, `|r| <= pi/4` (a little more where `n` is
//! rounded from a short product), `r` kept as `r + rl` with `rl` the tail.
//! * f64, valid for `|x| <= 2^20`: on the FMA clones the three-part scheme of f32 below
//!   ([`reduce_fused`], pi/2 = `P1 + P2 + P3` + O(2^-164), 8 instructions). Without FMA, pi/2 in
//!   four parts (33+33+33+53 bits), so `n * P_i` is exact for `n < 2^20` and the cancellation in
//!   `x - n P1` is exact (Sterbenz); two-sums carry the rounding errors.
//! * f32, main path, all in f32 (full SIMD width): valid for `|x| <= 2^17` (`|n| < 2^17`).
//!   pi/2 = `P1 + P2 + P3` + O(2^-73), each part the f32 rounding of the rest ([`PIO2_F32`]).
//!   `x - n P1` is exact: one FMA on the FMA clones; on the baseline, `P1` cut into four chunks
//!   of at most 7 bits ([`PIO2_F32_HI_CHUNKS`]) so every `n * chunk` and every partial
//!   difference is exact. Then `r = (x - n P1) - RN(n P2)` with its exact error (fast two-sum),
//!   and the tail `rl = ((x - n P1 - r) - n P2) - n P3`: two FMAs (the baseline adds a Dekker
//!   product for `n P2`). Over all f32 inputs up to 2^17 the smallest `|r|` is 2^-27.8 (x =
//!   252.898), where the tail's rounding errors (~2^-56) stay below 1/30 ulp of `r`.
//! * f32 lanes with `2^17 < |x| <= 2^22`: the reduction in f64 arithmetic (three parts,
//!   28+28+53 bits; formerly the only f32 path, at half the SIMD width). [`run`] scans
//!   the input first (two instructions per vector); only when some lane is beyond 2^17 does it
//!   pick a path per block of 256 elements: the f32 one, the f64 one, or both where the block is
//!   mixed. Every result depends on its input alone, not on its neighbours. (Scanning in the
//!   main path's own pass, as exp does, was not measurably faster in the chain benchmark
//!   under load; the scan's loads run ahead for an input still in memory.)
//!
//! Then `sin r = r + r^3 S(r^2)` and `cos r = 1 - r^2/2 + r^4 C(r^2)` (the `1 - r^2/2` step is
//! compensated as in fdlibm), both corrected to first order in `rl`; the quadrant `n mod 4`
//! selects and negates; `tan = sin / cos` or `-cos / sin`. Coefficients: our Sollya minimax
//! fits (`fits.sollya`), f64 on `[0, pi/4]` (relative error 2^-57.9 / 2^-63.9 for sin / cos), f32
//! on `[0, 0.797]` (2^-32.2 / 2^-32.6), which covers the f32 path's `|r|` (0.7968 at most).
//!
//! Lanes with finite `|x|` above every vector range are recomputed in a scalar pass in f64
//! ([`reduce_huge`]: Payne–Hanek reduction, exact in integers, then the f64 kernels; for f32
//! the f64 result is rounded). glibc's own reduction was 8 ulps off at the double nearest a
//! multiple of pi/2 (6381956970095103 * 2^797).

use super::driver::{BLOCK, any};
use super::real::{NoFma, Ops, Real, fast_two_sum, poly, round_int, sel, two_sum};

/// Which of the three functions a kernel computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Sin,
    Cos,
    Tan,
}

/// 2/pi in 32-bit words after the binary point, behind two zero words
/// (scripts/math_constants.py). The Vulkan math library reads the same table.
pub(crate) const TWO_OVER_PI: [u32; 42] = [
    0x00000000, 0x00000000, 0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab,
    0xdebbc561, 0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484,
    0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f, 0xef2f118b,
    0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b, 0x3d0739f7, 0x8a5292ea,
    0x6bfb5fb1, 0x1f8d5d08, 0x56033046, 0xfc7b6bab, 0xf0cfbc20, 0x9af4361d,
];

/// `(r, rl, n)` with `ax = n pi/2 + r + rl` (`n` mod 4, `|r| <= pi/4`) for finite
/// `ax >= 2^20`: `ax = m 2^e` times the 7 words of 2/pi from the one that matters for `e`
/// on (earlier ones only add multiples of 4 quadrants), in integers, with `m` shifted so
/// that the binary point falls at bit 222 of the product; `n` is bits 222-223, the
/// fraction the 126 bits below (its truncation error is below 2^-138, against the 2^-62
/// the nearest double comes to a multiple of pi/2).
fn reduce_huge(ax: f64) -> (f64, f64, i32) {
    let bits = ax.to_bits();
    let e = (bits >> 52) as i32 - 1075;
    let m = (bits & ((1 << 52) - 1)) | (1 << 52);
    let first = 2 + ((e - 2) >> 5);
    let ms = (m as u128) << (e - 2 - 32 * (first - 2));
    let mw = [ms as u32, (ms >> 32) as u32, (ms >> 64) as u32];
    let word = |j: usize| TWO_OVER_PI[first as usize + 6 - j] as u64;
    let mut p = [0u32; 7];
    let mut carry = 0u64;
    for (k, out) in p.iter_mut().enumerate() {
        let (mut column, mut high) = (carry, 0u64);
        for (i, &mi) in mw.iter().enumerate().take(k + 1) {
            let prod = mi as u64 * word(k - i);
            column += prod & 0xffff_ffff;
            high += prod >> 32;
        }
        *out = column as u32;
        carry = (column >> 32) + high;
    }
    let mut n = (p[6] >> 30) as i32;
    let mut f = ((p[6] & 0x3fff_ffff) as u128) << 96 | (p[5] as u128) << 64 | (p[4] as u128) << 32 | p[3] as u128;
    let negative = f >> 125 != 0;
    if negative {
        // Past one half: 1 - fraction, and the next quadrant.
        f = (1u128 << 126) - f;
        n += 1;
    }
    let scale = f64::from_bits((1023 - 126) << 52);
    let hi = f as f64;
    let lo = (f as i128 - hi as i128) as f64;
    let (hi, lo) = (hi * scale, lo * scale);
    let (ph, pe) = NoFma::two_prod(hi, core::f64::consts::FRAC_PI_2);
    let (r, rl) = fast_two_sum(ph, pe + (hi * 6.123233995736766e-17 + lo * core::f64::consts::FRAC_PI_2));
    if negative { (-r, -rl, n & 3) } else { (r, rl, n & 3) }
}

/// The function `k` of a finite `x` beyond the vector paths, in f64.
fn huge_value(k: Kind, x: f64) -> f64 {
    let (r, rl, n) = reduce_huge(x.abs());
    let (r, rl, n) = if x < 0.0 { (-r, -rl, -n) } else { (r, rl, n) };
    finish::<f64, NoFma>(k, x, (r, rl, n as f64 + f64::MAGIC))
}

/// f32 pi/2 = `PIO2_F32[0] + PIO2_F32[1] + PIO2_F32[2]` + O(2^-73), each part the f32 rounding
/// of what the previous ones leave.
pub(super) const PIO2_F32: [f32; 3] = [core::f32::consts::FRAC_PI_2, -4.371139e-8, -1.7151245e-15];

/// `PIO2_F32[0]` cut into chunks of at most 7 significant bits, so that `n * chunk` is exact for
/// `|n| < 2^17` without FMA (the baseline's replacement for one fused `x - n * PIO2_F32[0]`).
pub(super) const PIO2_F32_HI_CHUNKS: [f32; 4] = [1.5625, 0.008178711, 0.00011730194, 3.5762787e-7];

/// The fits of [`TrigConsts::COS_TURNS`] and [`TrigConsts::SIN_TURNS`], shared with the random
/// samplers' portable arithmetic and the Vulkan random numbers.
pub(crate) use crate::ir::random::portable::{COS_TURNS_F32, COS_TURNS_F64, SIN_TURNS_F32, SIN_TURNS_F64};

pub trait TrigConsts: Real {
    /// `sin r = r + r^3 S(r^2)`
    const SIN: &'static [Self];
    /// `cos r = 1 - r^2/2 + r^4 C(r^2)`
    const COS: &'static [Self];
    /// `cos 2 pi f = 1 + f^2 C(f^2)` and `sin 2 pi f = f S(f^2)` for `|f| <= 1/8` ([`cos_sin_turns`]).
    const COS_TURNS: &'static [Self];
    const SIN_TURNS: &'static [Self];
    /// pi/2 = `PIO2[0] + PIO2[1] + PIO2[2]` + O(2^-25 ulp), each part the rounding of what the
    /// previous ones leave.
    const PIO2: [Self; 3];
    /// Largest `|x|` the main vector path handles.
    const LIMIT: Self;
    /// Largest `|x|` the second vector tier ([`TrigConsts::reduce_wide`]) handles; equal to
    /// `LIMIT` where there is no second tier (f64).
    const WIDE_LIMIT: Self;
    /// `(r, rl, q)` with `x = n pi/2 + r + rl`, `n` integral, `rl` the tail of `r`, and
    /// `q = n + MAGIC` (its low bits are `n`, see [`Real::biased_bit`]); valid for
    /// `|x| <= LIMIT`.
    fn reduce<O: Ops>(x: Self) -> (Self, Self, Self);
    /// The same, valid for `|x| <= WIDE_LIMIT`.
    fn reduce_wide<O: Ops>(x: Self) -> (Self, Self, Self);
}

/// `x - n pi/2` as `r + rl` (`rl` the tail) on the FMA clones, for `|n| < 2^(MANT-6)` and
/// `|x|` within the type's `LIMIT`. `r1 = x - n PIO2[0]` is exact: one FMA, and `x` and the
/// product are multiples of `r1`'s unit once `|x| >= 1/2` (below, `n = 0`), `|r1| < 1`. `r =
/// r1 - th` with `th = RN(n PIO2[1])`: `r1` is a multiple of `th`'s ulp, so `d = r1 - r` is exact
/// (fast two-sum), and the remainder `d - n PIO2[1] - n PIO2[2]` takes two more FMAs, its
/// rounding errors far below `r`'s ulp (`|r| >= 2^-27.8` for f32 inputs up to 2^17, where the
/// tail's errors stay below 1/30 ulp; the nearest f64 up to 2^20 to a multiple of pi/2 is much
/// farther than the truncation `n * 2^-164` of pi/2).
#[inline(always)]
fn reduce_fused<T: TrigConsts, O: Ops>(x: T, n: T) -> (T, T) {
    let [p1, p2, p3] = T::PIO2;
    let r1 = O::mla(n, -p1, x);
    let th = n * p2;
    let r = r1 - th;
    let u = O::mla(n, -p2, r1 - r);
    (r, O::mla(n, -p3, u))
}

impl TrigConsts for f64 {
    const SIN: &'static [f64] = &[
        -0.1666666666666663,
        0.008333333333321924,
        -0.0001984126982946496,
        2.755731358502397e-06,
        -2.5050742812777324e-08,
        1.5895974919455618e-10,
    ];
    const COS: &'static [f64] = &[
        0.041666666666666595,
        -0.0013888888888873348,
        2.480158728900809e-05,
        -2.755731421905481e-07,
        2.087570568855178e-09,
        -1.1358764799839056e-11,
    ];
    const COS_TURNS: &'static [f64] = &COS_TURNS_F64;
    const SIN_TURNS: &'static [f64] = &SIN_TURNS_F64;
    const PIO2: [f64; 3] = [core::f64::consts::FRAC_PI_2, 6.123233995736766e-17, -1.4973849048591698e-33];
    const LIMIT: f64 = 1048576.0;
    const WIDE_LIMIT: f64 = Self::LIMIT;
    #[inline(always)]
    fn reduce<O: Ops>(x: f64) -> (f64, f64, f64) {
        if O::FMA {
            let q = O::mla(x, core::f64::consts::FRAC_2_PI, Self::MAGIC);
            let (r, rl) = reduce_fused::<f64, O>(x, q - Self::MAGIC);
            return (r, rl, q);
        }
        // Without FMA: pi/2 in four parts of 33+33+33+53 bits.
        const P1: f64 = 1.5707963267341256;
        const P2: f64 = 6.077100506303966e-11;
        const P3: f64 = 2.0222662487111665e-21;
        const P4: f64 = 8.4784276603689e-32;
        let q = x * core::f64::consts::FRAC_2_PI + Self::MAGIC;
        let n = q - Self::MAGIC;
        // n * P1..P3 are exact; x - n P1 is exact (Sterbenz); two-sums keep what the next
        // subtractions round away.
        let r1 = x - n * P1;
        let (r2, e2) = two_sum(r1, n * -P2);
        let (r3, e3) = two_sum(r2, n * -P3);
        let (r, rl) = fast_two_sum(r3, (e2 + e3) - n * P4);
        (r, rl, q)
    }
    #[inline(always)]
    fn reduce_wide<O: Ops>(x: f64) -> (f64, f64, f64) {
        Self::reduce::<O>(x)
    }
}

impl TrigConsts for f32 {
    const SIN: &'static [f32] = &[-0.16666667, 0.008333371, -0.00019849418, 2.794573e-6];
    const COS: &'static [f32] = &[0.041666646, -0.0013887292, 2.4428959e-5];
    const COS_TURNS: &'static [f32] = &COS_TURNS_F32;
    const SIN_TURNS: &'static [f32] = &SIN_TURNS_F32;
    const PIO2: [f32; 3] = PIO2_F32;
    const LIMIT: f32 = 131072.0;
    const WIDE_LIMIT: f32 = 4194304.0;
    #[inline(always)]
    fn reduce<O: Ops>(x: f32) -> (f32, f32, f32) {
        // |n| <= 2^17 * 2/pi < 2^17. The rounding of 2/pi and (without FMA) of the product can
        // pick the neighbouring n near a half-integer: then |r| reaches 0.797 (the fits cover it).
        let q = O::mla(x, core::f32::consts::FRAC_2_PI, Self::MAGIC);
        let n = q - Self::MAGIC;
        if O::FMA {
            let (r, rl) = reduce_fused::<f32, O>(x, n);
            return (r, rl, q);
        }
        // Without FMA, the same steps: every n * chunk of p1 is exact and so is each partial
        // difference (x and the products are multiples of 2^-24 once |x| >= 1/2, |r1| < 1);
        // then `(r1 - r) - th` is exact and the product's error comes from a Dekker product.
        let [_, p2, p3] = PIO2_F32;
        let mut r1 = x;
        for c in PIO2_F32_HI_CHUNKS {
            r1 = O::mla(n, -c, r1);
        }
        let th = n * p2;
        let r = r1 - th;
        let (_, tl) = O::two_prod(n, p2);
        let u = ((r1 - r) - th) - tl;
        (r, O::mla(n, -p3, u), q)
    }
    #[inline(always)]
    fn reduce_wide<O: Ops>(x: f32) -> (f32, f32, f32) {
        // In f64: pi/2 in three parts (28+28+53 bits).
        const P1: f64 = 1.570796325802803;
        const P2: f64 = 9.920935808982456e-10;
        const P3: f64 = -1.2177051777973966e-18;
        let xd = x as f64;
        let n = round_int(xd * core::f64::consts::FRAC_2_PI);
        let r = O::mla(n, -P1, xd);
        let r = O::mla(n, -P2, r);
        let r = O::mla(n, -P3, r);
        let rf = r as f32;
        (rf, (r - rf as f64) as f32, n as f32 + Self::MAGIC)
    }
}

/// `(sin, cos)` of `r + rl`, `|r| <= pi/4` (0.797 for the f32 path), to first order in the
/// tail `rl`. `1 - r^2/2` is compensated as in fdlibm: `w = 1 - z/2` and its rounding error
/// `ew = (1 - w) - z/2` are exact steps (`z/2` is exact), each one `mla`.
#[inline(always)]
fn sincos_poly<T: TrigConsts, O: Ops>(r: T, rl: T) -> (T, T) {
    let z = r * r;
    let s = r + O::mla(r * z, poly::<T, O>(z, T::SIN), rl);
    let w = O::mla(z, -T::HALF, T::ONE);
    let ew = O::mla(z, -T::HALF, T::ONE - w);
    let c = w + O::mla(z * z, poly::<T, O>(z, T::COS), O::mla(-r, rl, ew));
    (s, c)
}

/// sin or cos of quadrant `n` (held by `q = n + MAGIC`) and offset `r`.
#[inline(always)]
fn quadrant<T: TrigConsts>(s: T, c: T, q: T) -> T {
    let v = sel(T::biased_bit(q, 0), c, s);
    sel(T::biased_bit(q, 1), -v, v)
}

/// The function `k` of `x`, given its reduction.
#[inline(always)]
fn finish<T: TrigConsts, O: Ops>(k: Kind, x: T, (r, rl, q): (T, T, T)) -> T {
    let (s, c) = sincos_poly::<T, O>(r, rl);
    match k {
        Kind::Sin => sel(x == T::ZERO, x, quadrant(s, c, q)),
        // cos(n pi/2 + r) = sin((n + 1) pi/2 + r); q + 1 is exact.
        Kind::Cos => quadrant(s, c, q + T::ONE),
        Kind::Tan => {
            let odd = T::biased_bit(q, 0);
            let t = sel(odd, -c, s) / sel(odd, s, c);
            sel(x == T::ZERO, x, t)
        }
    }
}

/// `(cos 2 pi v, sin 2 pi v)` for `|v| <= 1` (Box-Muller's angle in turns): `v = n/4 + f` exactly,
/// `|f| <= 1/8`, so `2 pi v` is never rounded and zeros stay exact; then the quarter turns
/// `n` rotate the fits' `(cos 2 pi f, sin 2 pi f)`. Within a few ulps (no compensated steps).
#[inline(always)]
pub fn cos_sin_turns<T: TrigConsts, O: Ops>(v: T) -> (T, T) {
    let q = O::mla(v, T::from_f64(4.0), T::MAGIC);
    let n = q - T::MAGIC;
    let f = O::mla(n, T::from_f64(-0.25), v);
    let g = f * f;
    let c = O::mla(g, poly::<T, O>(g, T::COS_TURNS), T::ONE);
    let s = f * poly::<T, O>(g, T::SIN_TURNS);
    (quadrant(s, c, q + T::ONE), quadrant(s, c, q))
}

#[inline(always)]
pub fn sin<T: TrigConsts, O: Ops>(x: T) -> T {
    finish::<T, O>(Kind::Sin, x, T::reduce::<O>(x))
}

#[inline(always)]
pub fn cos<T: TrigConsts, O: Ops>(x: T) -> T {
    finish::<T, O>(Kind::Cos, x, T::reduce::<O>(x))
}

#[inline(always)]
pub fn tan<T: TrigConsts, O: Ops>(x: T) -> T {
    finish::<T, O>(Kind::Tan, x, T::reduce::<O>(x))
}

/// Whether some `|x| > limit` (NaNs ignored, infinities included). Keeps 64 independent running
/// maxima `a > m ? a : m` (that is `maxps`: an FP max reduction would not vectorise), so the
/// scan costs two instructions per vector.
#[inline(always)]
fn any_above<T: Real>(xs: &[T], limit: T) -> bool {
    const W: usize = 64;
    let mut acc = [T::ZERO; W];
    let mut chunks = xs.chunks_exact(W);
    for c in &mut chunks {
        for i in 0..W {
            let a = c[i].abs();
            acc[i] = sel(a > acc[i], a, acc[i]);
        }
    }
    for (m, &x) in acc.iter_mut().zip(chunks.remainder()) {
        let a = x.abs();
        *m = sel(a > *m, a, *m);
    }
    any(&acc, |m| m > limit)
}

/// The slice loop (inlined into the calling clone, so every path vectorises with the clone's
/// instructions). A scan of the input first (two instructions per vector) finds whether some lane
/// is beyond the main path's range `LIMIT`; if none is (the common case), one main-path loop.
/// Otherwise:
/// * f32, per block of [`BLOCK`] elements: the main path if all its lanes are within `LIMIT`, the
///   f64 reduction if none is, and both (each lane takes its own range's result) if mixed, so
///   every result depends on its input alone, not on its neighbours.
/// * f64: the main path (it has no second tier).
/// * Then finite lanes beyond `WIDE_LIMIT` are redone one at a time in f64 (`huge_value`).
#[inline(always)]
pub fn run<T: TrigConsts, O: Ops>(k: Kind, src: &[T], dst: &mut [T]) {
    // (No closures around the kernels: one that LLVM declines to inline would be compiled
    // without the clone's target features, and call libm's fma per element.)
    if !any_above(src, T::LIMIT) {
        for (d, &x) in dst.iter_mut().zip(src) {
            *d = main_path::<T, O>(k, x);
        }
        return;
    }
    if T::WIDE_LIMIT > T::LIMIT {
        // NaN lanes count as beyond: both paths return NaN for them.
        let within = |x: T| x.abs() <= T::LIMIT;
        for (s, d) in src.chunks(BLOCK).zip(dst.chunks_mut(BLOCK)) {
            if !any(s, |x| !within(x)) {
                for (d, &x) in d.iter_mut().zip(s) {
                    *d = main_path::<T, O>(k, x);
                }
            } else if !any(s, within) {
                for (d, &x) in d.iter_mut().zip(s) {
                    *d = wide_path::<T, O>(k, x);
                }
            } else {
                for (d, &x) in d.iter_mut().zip(s) {
                    let (m, w) = (main_path::<T, O>(k, x), wide_path::<T, O>(k, x));
                    *d = sel(within(x), m, w);
                }
            }
        }
    } else {
        for (d, &x) in dst.iter_mut().zip(src) {
            *d = main_path::<T, O>(k, x);
        }
    }
    let huge = |x: T| x.abs() > T::WIDE_LIMIT && x.abs() < T::INF;
    if any(src, huge) {
        fix_huge_cold(k, src, dst, huge);
    }
}

#[inline(always)]
fn main_path<T: TrigConsts, O: Ops>(k: Kind, x: T) -> T {
    finish::<T, O>(k, x, T::reduce::<O>(x))
}

#[inline(always)]
fn wide_path<T: TrigConsts, O: Ops>(k: Kind, x: T) -> T {
    finish::<T, O>(k, x, T::reduce_wide::<O>(x))
}

#[cold]
#[inline(never)]
fn fix_huge_cold<T: TrigConsts>(k: Kind, src: &[T], dst: &mut [T], huge: impl Fn(T) -> bool) {
    for (d, &x) in dst.iter_mut().zip(src) {
        if huge(x) {
            *d = T::from_f64(huge_value(k, x.to_f64()));
        }
    }
}
