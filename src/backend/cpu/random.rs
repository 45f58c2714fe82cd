//! Random values for a chunk: the streams of `ir::random`. A run of consecutive elements
//! computes each generator block once, many blocks at a time in vector registers, and takes
//! all of its words (four f32 uniforms, two f64 uniforms, or one or two Box-Muller
//! pairs); lanes whose elements are not consecutive (views such as transposes) compute
//! the block of each lane. Both give the same bits.
//!
//! The other laws: uniform ranges and exponentials transform the uniform values in place;
//! Bernoulli values and integer ranges take the words of a batch (integers that Lemire's
//! method rejects take more from their own blocks, one at a time); Poisson and gamma
//! values compute the first own blocks of a batch's elements together (vectorised like
//! any blocks) and then run `ir::random::samplers` element by element, taking further
//! blocks only for the rare elements that need them.

use multiversion::multiversion;
use multiversion::target::target_cfg_f;

use super::access::Lin;
use super::math::{self, ExpLogConsts, Fma, NoFma, Ops};
use crate::ir::random::samplers::{self, Mt, MtReal, Ptrs};
use crate::ir::random::sobol::{self, Scramble};
use crate::ir::random::{ELEMENT_BLOCK_SHIFT, MAX_RANDOM_PARAMS, Stream, f32_from_word, f64_from_words, fast_block};
use crate::ir::{DType, Distribution, Layout, RngKind};

/// Elements per batch, which bounds the scratch buffers.
const BATCH: usize = 256;
/// Blocks a batch needs at most: one per lane off a run, about half a batch along one, two
/// per lane for the first own blocks of f64 gamma values.
const BATCH_BLOCKS: usize = 2 * BATCH + 2;

/// A random instruction's distribution and the bits of its parameters (launch values).
#[derive(Copy, Clone, Debug)]
pub struct Law {
    pub dist: Distribution,
    pub params: [u64; MAX_RANDOM_PARAMS],
}

/// Per-thread buffers, kept from chunk to chunk.
#[derive(Default)]
pub struct Scratch {
    counters: Vec<u64>,
    blocks: Vec<[u32; 4]>,
    values: Values,
    /// The Poisson inversion's sums for the mean (its bits) used last.
    inversion: Option<(u64, samplers::InversionTable)>,
}

/// Two arrays of `BATCH` values of each type.
#[derive(Default)]
struct Values {
    f32s: Vec<f32>,
    f64s: Vec<f64>,
}

/// Writes the values of type `dtype` of elements `run.base + run.step * l` (`l` in
/// `0..n`) of the random array of law `law` of `stream` to `dst`, with non-temporal stores
/// where it can if `stream_out` (the caller fences).
///
/// # Safety
/// `dst` has room for `n` values of `dtype`.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl+avx2+fma", "x86_64+avx2+fma", "x86_64+sse4.1"))]
#[allow(clippy::too_many_arguments)]
pub unsafe fn fill(
    s: &mut Scratch,
    stream: &Stream,
    law: &Law,
    dtype: DType,
    run: Lin,
    dst: *mut u8,
    n: usize,
    stream_out: bool,
) {
    if s.counters.is_empty() {
        s.counters.resize(BATCH_BLOCKS, 0);
        s.blocks.resize(BATCH_BLOCKS, [0; 4]);
        s.values.f32s.resize(2 * BATCH, 0.0);
        s.values.f64s.resize(2 * BATCH, 0.0);
    }
    // Box-Muller's math with this clone's instructions (as `math`'s loops pick).
    let fma = target_cfg_f!(target_feature = "fma");
    let (f32s, f64s) = (dst as *mut f32, dst as *mut f64);
    // SAFETY: room for `n` values (caller).
    unsafe {
        match (dtype, fma) {
            (DType::F32, true) => fill_float::<f32, Fma>(s, stream, law, run, f32s, n, stream_out),
            (DType::F32, false) => fill_float::<f32, NoFma>(s, stream, law, run, f32s, n, stream_out),
            (DType::F64, true) => fill_float::<f64, Fma>(s, stream, law, run, f64s, n, stream_out),
            (DType::F64, false) => fill_float::<f64, NoFma>(s, stream, law, run, f64s, n, stream_out),
            (DType::Bool, _) => bernoulli(s, stream, law.params[0], run, std::slice::from_raw_parts_mut(dst, n)),
            (t, _) if t.is_integer() => fill_integers(s, stream, law, dtype, run, dst, n),
            (other, _) => unreachable!("random values of type {other}"),
        }
    }
}

/// Sobol' direction numbers bound as a kernel input (`Inst::Sobol`): i32, shape
/// [32, dims].
pub struct Directions<'a> {
    pub ptr: *const i32,
    pub layout: &'a Layout,
}

impl Directions<'_> {
    /// The scrambled digits of coordinate `dim` of point `index` (`ir::random::sobol`).
    ///
    /// # Safety
    /// `dim` is a column of the table.
    #[inline(always)]
    pub unsafe fn coordinate(&self, index: u32, dim: usize, scramble: Scramble, seed: u64) -> u32 {
        let (o, s0, s1) = (self.layout.offset, self.layout.strides[0], self.layout.strides[1]);
        let at = |k: u32| o + k as i64 * s0 + dim as i64 * s1;
        // SAFETY: k < 32 rows, `dim` a column (caller).
        let x = sobol::digits(index, |k| unsafe { *self.ptr.offset(at(k) as isize) as u32 });
        sobol::scramble(x, scramble, sobol::dimension_seed(seed, dim as u32))
    }
}

/// `fill` for floating-point values.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn fill_float<T: Vectors + MtReal + ExpLogConsts, O: Ops>(
    s: &mut Scratch,
    stream: &Stream,
    law: &Law,
    run: Lin,
    dst: *mut T,
    n: usize,
    stream_out: bool,
) {
    let p = |j: usize| T::from_param(law.params[j]);
    // SAFETY: room for `n` values (caller).
    let out = || unsafe { std::slice::from_raw_parts_mut(dst, n) };
    unsafe {
        match law.dist {
            Distribution::Uniform | Distribution::Normal => {
                fill_typed::<T, O>(s, stream, law.dist, run, dst, n, stream_out)
            }
            Distribution::UniformRange => {
                fill_typed::<T, O>(s, stream, Distribution::Uniform, run, dst, n, false);
                let (lo, hi, below) = (p(0), p(1), p(2));
                for x in out() {
                    *x = samplers::uniform_range(*x, lo, hi, below);
                }
            }
            Distribution::Exponential => {
                fill_typed::<T, O>(s, stream, Distribution::Uniform, run, dst, n, false);
                for x in out() {
                    // 1 - u is exact and normal.
                    *x = -math::ln_normal::<T, O>(T::of(1.0) - *x);
                }
            }
            Distribution::Gamma { boost, log } => {
                let mt = Mt { d: p(0), c: p(1) };
                let inv_k = if boost { Some(p(2)) } else { None };
                gamma::<T, O>(s, stream, &mt, inv_k, log, run, out())
            }
            other => unreachable!("{other:?} values are not floating point"),
        }
    }
}

/// Marsaglia-Tsang gamma values (or their logs) of `samplers::marsaglia_tsang`, with the
/// boost `boost^(1/k)` for shapes below 1 (`inv_k`) in this clone's exp and log. The first
/// attempt of every lane of a batch runs in one loop up to the squeeze, which accepts most
/// (vector instructions, the same operations as the definition's); the other lanes run
/// the whole method from their first attempt again.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn gamma<T: Vectors + MtReal + ExpLogConsts, O: Ops>(
    s: &mut Scratch,
    stream: &Stream,
    mt: &Mt<T>,
    inv_k: Option<T>,
    log: bool,
    run: Lin,
    out: &mut [T],
) {
    let per = <T as Sample>::WORDS as usize;
    let (zero, one) = (T::of(0.0), T::of(1.0));
    let ln_d = math::ln_normal::<T, O>(mt.d);
    let mut done = 0;
    while done < out.len() {
        let len = BATCH.min(out.len() - done);
        let sub = advance(run, done);
        let first = first_own_blocks(&mut s.counters, &mut s.blocks, stream, per, sub, len);
        let (ts, boosts) = T::scratch(&mut s.values);
        let (ts, boosts) = (&mut ts[..len], &mut boosts[..len]);
        // Attempt 0 (blocks 0 .. per) of each lane: its t where the squeeze accepts it,
        // else 0 (t is positive when accepted).
        for ((b, t), boost) in first.chunks_exact(per).zip(ts.iter_mut()).zip(boosts.iter_mut()) {
            let w = b.as_flattened();
            let u = |k: usize| <T as Sample>::uniform(&w[k * per..]);
            let (x, _, tt) = samplers::mt_start(mt, u(0), u(1));
            let accepted = tt > zero && samplers::mt_squeezed(x, one - u(2));
            *t = if accepted { tt } else { zero };
            *boost = one - u(3);
        }
        for (l, (t, boost)) in ts.iter_mut().zip(boosts.iter_mut()).enumerate() {
            if *t == zero {
                let e = lane(sub, l);
                let g = samplers::marsaglia_tsang(mt, |a| own_block(stream, first, per, l, e, a));
                (*t, *boost) = (g.t, g.boost);
            }
        }
        // t, d and the boost's 1 - u are positive normal numbers.
        let o = &mut out[done..done + len];
        match (log, inv_k) {
            (true, k) => {
                for ((o, &t), &b) in o.iter_mut().zip(ts.iter()).zip(boosts.iter()) {
                    let v = ln_d + T::of(3.0) * math::ln_normal::<T, O>(t);
                    *o = k.map_or(v, |k| v + math::ln_normal::<T, O>(b) * k);
                }
            }
            (false, None) => {
                for (o, &t) in o.iter_mut().zip(ts.iter()) {
                    *o = mt.d * (t * t * t);
                }
            }
            (false, Some(k)) => {
                for ((o, &t), &b) in o.iter_mut().zip(ts.iter()).zip(boosts.iter()) {
                    *o = mt.d * (t * t * t) * math::exp::<T, O>(math::ln_normal::<T, O>(b) * k);
                }
            }
        }
        done += len;
    }
}

/// Block `a` of element `e` (lane `l` of a batch whose first `per` own blocks per lane are
/// `first`).
#[inline(always)]
fn own_block(stream: &Stream, first: &[[u32; 4]], per: usize, l: usize, e: u64, a: u64) -> [u32; 4] {
    if (a as usize) < per { first[l * per + a as usize] } else { stream.element_block(e, a) }
}

/// `run` from its `done`th lane on.
#[inline(always)]
fn advance(run: Lin, done: usize) -> Lin {
    Lin { base: run.base.wrapping_add(run.step.wrapping_mul(done as i64)), step: run.step }
}

/// The element index of lane `l` of `run`.
#[inline(always)]
fn lane(run: Lin, l: usize) -> u64 {
    run.base.wrapping_add(run.step.wrapping_mul(l as i64)) as u64
}

/// Own blocks `0 .. per` of the elements of lanes `0 .. n` (`n <= BATCH`), lane after lane.
#[inline(always)]
fn first_own_blocks<'b>(
    counters: &mut [u64],
    blocks: &'b mut [[u32; 4]],
    stream: &Stream,
    per: usize,
    run: Lin,
    n: usize,
) -> &'b [[u32; 4]] {
    for l in 0..n {
        for a in 0..per {
            counters[l * per + a] = lane(run, l) + ((a as u64) << ELEMENT_BLOCK_SHIFT);
        }
    }
    compute_blocks(stream, &counters[..n * per], &mut blocks[..n * per]);
    &blocks[..n * per]
}

/// The `m` words of each of lanes `0 .. n` (`n <= BATCH`) of the packed stream (element
/// `e` takes words `m e .. m e + m`), lane after lane.
#[inline(always)]
fn lane_words<'b>(s: &'b mut Scratch, stream: &Stream, m: usize, run: Lin, n: usize) -> &'b [u32] {
    let (counters, blocks) = (&mut s.counters[..], &mut s.blocks[..]);
    if consecutive(run, n) {
        words_from(counters, blocks, stream, run.base as u64 * m as u64, n * m)
    } else {
        words_per_lane(counters, blocks, stream, m, |l| lane(run, l).wrapping_mul(m as u64), n)
    }
}

/// Whether the `n` elements of `run` are consecutive, and their indices do not wrap (so
/// their words are consecutive too).
#[inline(always)]
fn consecutive(run: Lin, n: usize) -> bool {
    run.step == 1 && run.base >= 0 && run.base.checked_add(n as i64).is_some()
}

/// Bernoulli values: word `e` below `threshold`.
fn bernoulli(s: &mut Scratch, stream: &Stream, threshold: u64, run: Lin, out: &mut [u8]) {
    for (b, out) in out.chunks_mut(BATCH).enumerate() {
        let words = lane_words(s, stream, 1, advance(run, b * BATCH), out.len());
        for (o, &w) in out.iter_mut().zip(words) {
            *o = ((w as u64) < threshold) as u8;
        }
    }
}

/// Integers in a range (`samplers::below_u32`, `below_u64`) and Poisson values.
///
/// # Safety
/// `dst` has room for `n` values of `dtype` (an integer type; i32 or i64 for Poisson).
unsafe fn fill_integers(s: &mut Scratch, stream: &Stream, law: &Law, dtype: DType, run: Lin, dst: *mut u8, n: usize) {
    // 64-bit types take two words per element (and Poisson values are i32 or i64).
    let wide = dtype.size() == 8;
    let p = law.params;
    let f = |j: usize| f64::from_bits(p[j]);
    let ptrs = Ptrs { lambda: f(0), a: f(1), b: f(2), ln_inv_alpha: f(3), vr: f(4) };
    // The inversion's sums depend on the mean alone: kept from call to call.
    if law.dist == (Distribution::Poisson { large: false }) && s.inversion.as_ref().is_none_or(|(m, _)| *m != p[0]) {
        s.inversion = Some((p[0], samplers::InversionTable::new(f(0), f(1))));
    }
    // SAFETY: room for `n` values (caller). Values are in the type's range, so keeping
    // the low bytes of their two's complement bits is exact.
    let put = |i: usize, v: i64| unsafe {
        match dtype.size() {
            1 => *dst.add(i) = v as u8,
            2 => *(dst as *mut u16).add(i) = v as u16,
            4 => *(dst as *mut u32).add(i) = v as u32,
            _ => *(dst as *mut i64).add(i) = v,
        }
    };
    let mut done = 0;
    while done < n {
        let len = BATCH.min(n - done);
        let sub = advance(run, done);
        match law.dist {
            Distribution::Integers => {
                let words = lane_words(s, stream, if wide { 2 } else { 1 }, sub, len);
                for l in 0..len {
                    let blocks = |a| stream.element_block(lane(sub, l), a);
                    let x = if wide {
                        let first = (words[2 * l] as u64) << 32 | words[2 * l + 1] as u64;
                        samplers::below_u64(first, p[1], p[2], blocks)
                    } else {
                        samplers::below_u32(words[l], p[1], p[2] as u32, blocks) as u64
                    };
                    put(done + l, (p[0] as i64).wrapping_add(x as i64));
                }
            }
            Distribution::Poisson { large } => {
                let first = first_own_blocks(&mut s.counters, &mut s.blocks, stream, 1, sub, len);
                let ks = &mut s.values.f64s[..len];
                if large {
                    // Attempt 0 of each lane up to the squeeze, which accepts most; -1
                    // where it does not (accepted values are not negative).
                    for (k, w) in ks.iter_mut().zip(first) {
                        let u = f64_from_words(w[0], w[1]) - 0.5;
                        let us = 0.5 - u.abs();
                        let squeezed = samplers::ptrs_squeezed(&ptrs, us, f64_from_words(w[2], w[3]));
                        *k = if squeezed { samplers::ptrs_k(&ptrs, u, us) } else { -1.0 };
                    }
                    for (l, k) in ks.iter_mut().enumerate().filter(|(_, k)| **k < 0.0) {
                        let e = lane(sub, l);
                        *k = samplers::ptrs(&ptrs, |a| own_block(stream, first, 1, l, e, a));
                    }
                } else {
                    let (_, table) = s.inversion.as_ref().expect("the inversion's sums for this mean");
                    for (k, w) in ks.iter_mut().zip(first) {
                        *k = table.sample(f64_from_words(w[0], w[1]));
                    }
                }
                for (l, &k) in ks.iter().enumerate() {
                    put(done + l, if wide { k as i64 } else { k as i32 as i64 });
                }
            }
            other => unreachable!("{other:?} values are not integers"),
        }
        done += len;
    }
}

/// `fill` for values of type `T`: whole groups of blocks straight from the vector
/// registers where it can, the rest in batches.
#[inline(always)]
unsafe fn fill_typed<T: Vectors, O: Ops>(
    s: &mut Scratch,
    stream: &Stream,
    dist: Distribution,
    run: Lin,
    dst: *mut T,
    n: usize,
    stream_out: bool,
) {
    // SAFETY: room for `n` values (caller).
    let (start, end) = unsafe { whole_groups(s, stream, dist, run, dst, n, stream_out) };
    for (from, to) in [(0, start), (end, n)] {
        let mut done = from;
        while done < to {
            let len = BATCH.min(to - done);
            let sub = Lin { base: run.base.wrapping_add(run.step.wrapping_mul(done as i64)), step: run.step };
            // SAFETY: as above.
            batch::<T, O>(s, stream, dist, sub, unsafe { std::slice::from_raw_parts_mut(dst.add(done), len) });
            done += len;
        }
    }
}

/// f32 and f64 as random values.
trait Sample: Copy {
    /// Words per uniform value.
    const WORDS: u64;
    /// The uniform value of the first `WORDS` words of `w`.
    fn uniform(w: &[u32]) -> Self;
    /// `out[l]` from words `WORDS * l ..`.
    fn uniforms(words: &[u32], out: &mut [Self]);
    /// Two scratch arrays of `BATCH` values.
    fn scratch(v: &mut Values) -> (&mut [Self], &mut [Self]);
    /// A parameter from its bits (a launch value).
    fn from_param(bits: u64) -> Self;
    /// The Box-Muller pair of uniforms `u` (radius) and `v` (angle):
    /// `sqrt(-2 ln(1 - u))` times `cos(2 pi v)` and `sin(2 pi v)`.
    fn normal_pair<O: Ops>(u: Self, v: Self) -> (Self, Self);
}

/// Value types with a vector form (`philox_x86::Lanes` where there is one).
#[cfg(target_arch = "x86_64")]
use philox_x86::Lanes as Vectors;
#[cfg(not(target_arch = "x86_64"))]
trait Vectors: Sample {}
#[cfg(not(target_arch = "x86_64"))]
impl Vectors for f32 {}
#[cfg(not(target_arch = "x86_64"))]
impl Vectors for f64 {}

/// Writes the values of the whole groups of eight blocks in the lanes of `fill_typed`
/// that it can compute from vector registers (along a run, with AVX-512), and
/// returns which lanes those are.
///
/// # Safety
/// `dst` has room for `n` values.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn whole_groups<T: Vectors>(
    s: &mut Scratch,
    stream: &Stream,
    dist: Distribution,
    run: Lin,
    dst: *mut T,
    n: usize,
    stream_out: bool,
) -> (usize, usize) {
    if !consecutive(run, n) || stream.kind == RngKind::Threefry || !philox_x86::has_run() {
        return (0, 0);
    }
    let per_block = (4 / T::WORDS) as usize;
    let e0 = run.base as u64;
    let head = ((per_block - (e0 % per_block as u64) as usize) % per_block).min(n);
    let groups = (n - head) / (8 * per_block);
    // SAFETY: `has_run`; the groups' values end within `n`.
    unsafe {
        philox_x86::run::<T>(
            stream,
            dist,
            (e0 + head as u64) / per_block as u64,
            groups,
            dst.add(head),
            stream_out,
            &mut s.values,
        )
    };
    (head, head + 8 * per_block * groups)
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn whole_groups<T: Vectors>(
    _: &mut Scratch,
    _: &Stream,
    _: Distribution,
    _: Lin,
    _: *mut T,
    _: usize,
    _: bool,
) -> (usize, usize) {
    (0, 0)
}

macro_rules! sample {
    ($t:ty, $words:expr, $buf:ident, |$w:ident| $from:expr) => {
        impl Sample for $t {
            const WORDS: u64 = $words;
            #[inline(always)]
            fn uniform($w: &[u32]) -> Self {
                $from
            }
            #[inline(always)]
            fn uniforms(words: &[u32], out: &mut [Self]) {
                for (o, w) in out.iter_mut().zip(words.chunks_exact($words)) {
                    *o = Self::uniform(w);
                }
            }
            fn scratch(v: &mut Values) -> (&mut [Self], &mut [Self]) {
                v.$buf.split_at_mut(BATCH)
            }
            #[inline(always)]
            fn from_param(bits: u64) -> Self {
                <$t>::from_bits(bits as _)
            }
            /// 1 - u is exact (a multiple of u's unit in [2^-24, 1] or [2^-53, 1]), so
            /// normal: the log needs none of its fix-ups for other arguments.
            #[inline(always)]
            fn normal_pair<O: Ops>(u: Self, v: Self) -> (Self, Self) {
                let radius = (-2.0 * math::ln_normal::<$t, O>(1.0 - u)).sqrt();
                let (c, s) = math::cos_sin_turns::<$t, O>(v);
                (radius * c, radius * s)
            }
        }
    };
}

sample!(f32, 1, f32s, |w| f32_from_word(w[0]));
sample!(f64, 2, f64s, |w| f64_from_words(w[0], w[1]));

/// The values of up to `BATCH` elements `run.base + run.step * l` into `out`.
#[inline(always)]
fn batch<T: Sample, O: Ops>(s: &mut Scratch, stream: &Stream, dist: Distribution, run: Lin, out: &mut [T]) {
    let n = out.len();
    let e0 = run.base as u64;
    let consecutive = consecutive(run, n);
    let lane = |l: usize| lane(run, l);
    // Words of a uniform value, and of a normal value's pair.
    let m = T::WORDS as usize;
    let pair = 2 * m;
    match dist {
        Distribution::Uniform => T::uniforms(lane_words(s, stream, m, run, n), out),
        Distribution::Normal => {
            let (counters, blocks) = (&mut s.counters[..], &mut s.blocks[..]);
            // Along a run, pair p of the batch is the stream's pair `first_pair + p`; off
            // a run, lane l has its own pair.
            let first_pair = e0 / 2;
            let (words, pairs) = if consecutive {
                let pairs = ((e0 + n as u64 - 1) / 2 - first_pair + 1) as usize;
                (words_from(counters, blocks, stream, first_pair * pair as u64, pairs * pair), pairs)
            } else {
                (words_per_lane(counters, blocks, stream, pair, |l| (lane(l) / 2).wrapping_mul(pair as u64), n), n)
            };
            let (u, v) = T::scratch(&mut s.values);
            let (u, v) = (&mut u[..pairs], &mut v[..pairs]);
            for ((w, u), v) in words.chunks_exact(pair).zip(u.iter_mut()).zip(v.iter_mut()) {
                (*u, *v) = (T::uniform(w), T::uniform(&w[m..]));
            }
            box_muller::<T, O>(u, v);
            let (even, odd) = (&u[..], &v[..]);
            if consecutive {
                // Element e0 + l is value (e0 + l) % 2 of pair (e0 + l) / 2 - first_pair.
                let skip = (e0 % 2) as usize;
                if skip == 1 {
                    out[0] = odd[0];
                }
                let whole = (n - skip) / 2;
                let pairs_out = out[skip..skip + 2 * whole].chunks_exact_mut(2);
                for (o, (&a, &b)) in pairs_out.zip(even[skip..].iter().zip(&odd[skip..])) {
                    (o[0], o[1]) = (a, b);
                }
                if skip + 2 * whole < n {
                    out[n - 1] = even[skip + whole];
                }
            } else {
                for (l, o) in out.iter_mut().enumerate() {
                    *o = if lane(l) % 2 == 0 { even[l] } else { odd[l] };
                }
            }
        }
        other => unreachable!("{other:?} values are made from uniform ones"),
    }
}

/// Box-Muller in place, one loop: from uniforms `u` (radius) and `v` (angle), each pair's
/// first normal value (`r cos`) into `u` and its second (`r sin`) into `v`.
#[inline(always)]
fn box_muller<T: Sample, O: Ops>(u: &mut [T], v: &mut [T]) {
    for (u, v) in u.iter_mut().zip(v.iter_mut()) {
        (*u, *v) = T::normal_pair::<O>(*u, *v);
    }
}

/// Words `first .. first + len` of the stream, computed from whole blocks.
#[inline(always)]
fn words_from<'b>(
    counters: &mut [u64],
    blocks: &'b mut [[u32; 4]],
    stream: &Stream,
    first: u64,
    len: usize,
) -> &'b [u32] {
    let (b0, b1) = (first / 4, (first + len as u64 - 1) / 4);
    let nb = (b1 - b0 + 1) as usize;
    for (k, c) in counters[..nb].iter_mut().enumerate() {
        *c = b0 + k as u64;
    }
    compute_blocks(stream, &counters[..nb], &mut blocks[..nb]);
    let skip = (first - 4 * b0) as usize;
    &blocks[..nb].as_flattened()[skip..skip + len]
}

/// For each of `n` lanes, the `m` words (1, 2 or 4, within one block) starting at word
/// `start(l)`, lane after lane.
#[inline(always)]
fn words_per_lane<'b>(
    counters: &mut [u64],
    blocks: &'b mut [[u32; 4]],
    stream: &Stream,
    m: usize,
    start: impl Fn(usize) -> u64,
    n: usize,
) -> &'b [u32] {
    for (l, c) in counters[..n].iter_mut().enumerate() {
        *c = start(l) / 4;
    }
    compute_blocks(stream, &counters[..n], &mut blocks[..n]);
    // Each lane's words move to its own slot, in place: slot l (m <= 4 words) ends
    // where block l + 1 starts, and block l is read before slot l is written.
    let flat = blocks[..n].as_flattened_mut();
    for l in 0..n {
        let at = 4 * l + (start(l) % 4) as usize;
        flat.copy_within(at..at + m, m * l);
    }
    &flat[..m * n]
}

/// Block `counters[k]` of the stream into `out[k]`.
fn compute_blocks(stream: &Stream, counters: &[u64], out: &mut [[u32; 4]]) {
    match stream.kind {
        RngKind::Philox => {
            #[cfg(target_arch = "x86_64")]
            if philox_x86::blocks(stream, counters, out) {
                return;
            }
            for (o, &c) in out.iter_mut().zip(counters) {
                *o = stream.block(c);
            }
        }
        RngKind::Fast => fast_blocks(stream.fast_salt(), counters, out),
        RngKind::Threefry => threefry_blocks(stream, counters, out),
    }
}

/// Threefry4x32-20 (`ir::random::threefry4x32_20`) lane by lane over groups of counters,
/// a word of all the group's blocks per array, so each round's adds, rotations and XORs
/// are vector instructions.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl+avx2+fma", "x86_64+avx2+fma", "x86_64+sse4.1"))]
fn threefry_blocks(stream: &Stream, counters: &[u64], out: &mut [[u32; 4]]) {
    const L: usize = 16;
    let key = [stream.seed as u32, (stream.seed >> 32) as u32, 0, 0];
    let draw = [stream.draw as u32, (stream.draw >> 32) as u32];
    for (c, o) in counters.chunks(L).zip(out.chunks_mut(L)) {
        let mut x = [[0u32; L]; 4];
        for (l, &c) in c.iter().enumerate() {
            [x[0][l], x[1][l], x[2][l], x[3][l]] = [c as u32, (c >> 32) as u32, draw[0], draw[1]];
        }
        threefry_lanes(&mut x, key);
        for (l, o) in o.iter_mut().enumerate() {
            *o = [x[0][l], x[1][l], x[2][l], x[3][l]];
        }
    }
}

/// `threefry4x32_20` on `L` counters at once, word `j` of counter `l` in `x[j][l]`.
#[inline(always)]
fn threefry_lanes<const L: usize>(x: &mut [[u32; L]; 4], key: [u32; 4]) {
    use crate::ir::random::{THREEFRY_PARITY, THREEFRY_ROTATIONS};
    let ks = [key[0], key[1], key[2], key[3], THREEFRY_PARITY ^ key[0] ^ key[1] ^ key[2] ^ key[3]];
    for (j, x) in x.iter_mut().enumerate() {
        for v in x.iter_mut() {
            *v = v.wrapping_add(ks[j]);
        }
    }
    for round in 0..20 {
        let [r0, r1] = THREEFRY_ROTATIONS[round % 8];
        let (a, b) = if round % 2 == 0 { ((0, 1), (2, 3)) } else { ((0, 3), (2, 1)) };
        for ((p, q), r) in [(a, r0), (b, r1)] {
            for l in 0..L {
                x[p][l] = x[p][l].wrapping_add(x[q][l]);
                x[q][l] = x[q][l].rotate_left(r) ^ x[p][l];
            }
        }
        if round % 4 == 3 {
            let s = round / 4 + 1;
            for (j, x) in x.iter_mut().enumerate() {
                let add = ks[(s + j) % 5].wrapping_add(if j == 3 { s as u32 } else { 0 });
                for v in x.iter_mut() {
                    *v = v.wrapping_add(add);
                }
            }
        }
    }
}

#[multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl+avx2+fma", "x86_64+avx2+fma", "x86_64+sse4.1"))]
fn fast_blocks(salt: u32, counters: &[u64], out: &mut [[u32; 4]]) {
    for (o, &c) in out.iter_mut().zip(counters) {
        *o = fast_block(salt, c);
    }
}

/// Philox4x32-10 (`ir::random::philox4x32_10`) on 8 counters at once. AVX-512 keeps each
/// word in a 64-bit lane, so each round's multiplies are whole `pmuludq`s (see `rounds`);
/// AVX2 packs eight words in a vector and multiplies its even and odd lanes, whose halves
/// are put back in place by blends. With AVX-512, `run` also turns a run of blocks (of
/// Philox or of the `Fast` hash, whose four mixes per block are cheaper than Philox's ten
/// rounds) into values and stores them straight from the registers.
#[cfg(target_arch = "x86_64")]
mod philox_x86 {
    use std::arch::x86_64::*;

    use super::{Sample, Values, box_muller};
    use crate::backend::cpu::math::Fma;
    use crate::ir::Distribution;
    use crate::ir::RngKind;
    use crate::ir::random::{FAST_WORD_SALTS, FMIX_M1, FMIX_M2, PHILOX_M0, PHILOX_M1, PHILOX_W0, PHILOX_W1, Stream};

    /// Vector groups computed together (see `rounds`).
    const GROUPS: usize = 4;

    /// The keys of the ten rounds.
    fn round_keys(seed: u64) -> [[u32; 2]; 10] {
        let mut k = [seed as u32, (seed >> 32) as u32];
        std::array::from_fn(|_| {
            let this = k;
            k = [k[0].wrapping_add(PHILOX_W0), k[1].wrapping_add(PHILOX_W1)];
            this
        })
    }

    /// Blocks `counters[k]` into `out[k]` with the widest vectors this processor has;
    /// false if it has neither AVX-512 nor AVX2.
    pub fn blocks(stream: &Stream, counters: &[u64], out: &mut [[u32; 4]]) -> bool {
        let keys = round_keys(stream.seed);
        let draw = [stream.draw as u32, (stream.draw >> 32) as u32];
        // Whole interleaved groups, then single vectors (a run that starts or ends inside
        // a block has a few blocks more than a multiple of the groups).
        let whole = |n: usize| counters.len() - counters.len() % n;
        if is_x86_feature_detected!("avx512f") {
            let (c, o) = (counters.split_at(whole(8 * GROUPS)), out.split_at_mut(whole(8 * GROUPS)));
            // SAFETY: the processor has AVX-512F.
            each_group::<{ 8 * GROUPS }>(c.0, o.0, |c, o| unsafe { philox_512::<GROUPS>(&keys, draw, c, o) });
            each_group::<8>(c.1, o.1, |c, o| unsafe { philox_512::<1>(&keys, draw, c, o) });
        } else if is_x86_feature_detected!("avx2") {
            let (c, o) = (counters.split_at(whole(8 * GROUPS)), out.split_at_mut(whole(8 * GROUPS)));
            // SAFETY: the processor has AVX2.
            each_group::<{ 8 * GROUPS }>(c.0, o.0, |c, o| unsafe { philox8::<GROUPS>(&keys, draw, c, o) });
            each_group::<8>(c.1, o.1, |c, o| unsafe { philox8::<1>(&keys, draw, c, o) });
        } else {
            return false;
        }
        true
    }

    /// Runs `f` on groups of `N` counters and blocks; a last partial group is padded.
    #[inline(always)]
    fn each_group<const N: usize>(counters: &[u64], out: &mut [[u32; 4]], mut f: impl FnMut(&[u64], &mut [[u32; 4]])) {
        let mut cs = counters.chunks_exact(N);
        let mut os = out.chunks_exact_mut(N);
        for (c, o) in (&mut cs).zip(&mut os) {
            f(c, o);
        }
        let (c, o) = (cs.remainder(), os.into_remainder());
        if !c.is_empty() {
            let mut padded = [0u64; N];
            padded[..c.len()].copy_from_slice(c);
            let mut words = [[0u32; 4]; N];
            f(&padded, &mut words);
            o.copy_from_slice(&words[..c.len()]);
        }
    }

    /// The ten rounds on `G` groups of eight blocks, interleaved (one group's rounds are
    /// a chain of dependent multiplies, too short to fill the vector units alone). Word j
    /// of the group's block k is the low half of 64-bit lane k of `c[j]`: `pmuludq` reads
    /// only the low halves and makes the whole product, whose high half is then one
    /// shift away and whose low half is already in place. High halves are left over.
    #[target_feature(enable = "avx512f")]
    fn rounds<const G: usize>(keys: &[[u32; 2]; 10], c: &mut [[__m512i; 4]; G]) {
        let (m0, m1) = (_mm512_set1_epi64(PHILOX_M0 as i64), _mm512_set1_epi64(PHILOX_M1 as i64));
        for k in keys {
            let (k0, k1) = (_mm512_set1_epi32(k[0] as i32), _mm512_set1_epi32(k[1] as i32));
            for c in c.iter_mut() {
                let p0 = _mm512_mul_epu32(c[0], m0);
                let p1 = _mm512_mul_epu32(c[2], m1);
                let x0 = _mm512_ternarylogic_epi32::<0x96>(_mm512_srli_epi64::<32>(p1), c[1], k0);
                let x2 = _mm512_ternarylogic_epi32::<0x96>(_mm512_srli_epi64::<32>(p0), c[3], k1);
                *c = [x0, p1, x2, p0];
            }
        }
    }

    /// The words before the rounds of the eight counters `first + [0, 8)` (64-bit lanes)
    /// of draw `draw`.
    #[target_feature(enable = "avx512f")]
    fn start_words(first: __m512i, draw: [u32; 2]) -> [__m512i; 4] {
        [first, _mm512_srli_epi64::<32>(first), _mm512_set1_epi32(draw[0] as i32), _mm512_set1_epi32(draw[1] as i32)]
    }

    /// Eight blocks' words (as `rounds` leaves them) as 32-bit words in block order.
    #[target_feature(enable = "avx512f")]
    fn block_order([c0, c1, c2, c3]: [__m512i; 4]) -> [__m512i; 2] {
        let w01 = _mm512_mask_blend_epi32(0xAAAA, c0, _mm512_slli_epi64::<32>(c1));
        let w23 = _mm512_mask_blend_epi32(0xAAAA, c2, _mm512_slli_epi64::<32>(c3));
        interleave64(w01, w23)
    }

    /// The 64-bit lanes of `a` and `b` alternately.
    #[target_feature(enable = "avx512f")]
    fn interleave64(a: __m512i, b: __m512i) -> [__m512i; 2] {
        let (first, second) =
            (_mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11), _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15));
        [_mm512_permutex2var_epi64(a, first, b), _mm512_permutex2var_epi64(a, second, b)]
    }

    /// `G` groups of eight blocks `counters[8g ..]` into `out[8g ..]`.
    #[target_feature(enable = "avx512f")]
    fn philox_512<const G: usize>(keys: &[[u32; 2]; 10], draw: [u32; 2], counters: &[u64], out: &mut [[u32; 4]]) {
        let mut c = [[_mm512_setzero_si512(); 4]; G];
        for (g, c) in c.iter_mut().enumerate() {
            // SAFETY: 8 u64 are read, unaligned.
            *c = start_words(unsafe { _mm512_loadu_si512(counters[8 * g..8 * g + 8].as_ptr().cast()) }, draw);
        }
        rounds(keys, &mut c);
        for (g, c) in c.into_iter().enumerate() {
            let dst = out[8 * g..8 * g + 8].as_mut_ptr() as *mut __m512i;
            let [lo, hi] = block_order(c);
            // SAFETY: 8 blocks are written, unaligned.
            unsafe {
                _mm512_storeu_si512(dst, lo);
                _mm512_storeu_si512(dst.add(1), hi);
            }
        }
    }

    /// The vector form of a value type for `run`: eight blocks make two vectors of values.
    /// (Free functions with the instruction sets do the work: closures and array `map`
    /// would not inline the intrinsics.)
    pub(super) trait Lanes: Sample {
        /// Values per vector.
        const LANES: usize;
        /// The uniform values of eight blocks from their words (as `rounds` leaves
        /// them), in element order.
        ///
        /// # Safety
        /// `has_run()` (so for each method).
        unsafe fn vector_uniforms(c: [__m512i; 4]) -> [__m512i; 2];
        /// The first values of the pairs in `v` (element order), then the second values.
        unsafe fn deinterleave(v: [__m512i; 2]) -> [__m512i; 2];
        /// The inverse of `deinterleave`.
        unsafe fn interleave(first: __m512i, second: __m512i) -> [__m512i; 2];
    }

    impl Lanes for f32 {
        const LANES: usize = 16;
        #[inline(always)]
        unsafe fn vector_uniforms(c: [__m512i; 4]) -> [__m512i; 2] {
            // SAFETY: `has_run()` (caller), so for each method.
            unsafe {
                let [a, b] = block_order(c);
                [f32s(a), f32s(b)]
            }
        }
        #[inline(always)]
        unsafe fn deinterleave([a, b]: [__m512i; 2]) -> [__m512i; 2] {
            unsafe {
                let even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
                let odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
                [_mm512_permutex2var_epi32(a, even, b), _mm512_permutex2var_epi32(a, odd, b)]
            }
        }
        #[inline(always)]
        unsafe fn interleave(first: __m512i, second: __m512i) -> [__m512i; 2] {
            unsafe {
                let lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
                let hi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
                [_mm512_permutex2var_epi32(first, lo, second), _mm512_permutex2var_epi32(first, hi, second)]
            }
        }
    }

    /// `f32_from_word` of each lane.
    #[target_feature(enable = "avx512f")]
    fn f32s(w: __m512i) -> __m512i {
        let unit = _mm512_set1_ps(1.0 / (1u32 << 24) as f32);
        _mm512_castps_si512(_mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_srli_epi32::<8>(w)), unit))
    }

    impl Lanes for f64 {
        const LANES: usize = 8;
        /// A block's words 0, 1 make value 2k, words 2, 3 value 2k + 1.
        #[inline(always)]
        unsafe fn vector_uniforms([c0, c1, c2, c3]: [__m512i; 4]) -> [__m512i; 2] {
            // SAFETY: `has_run()` (caller), so for each method.
            unsafe { interleave64(f64s(c0, c1), f64s(c2, c3)) }
        }
        #[inline(always)]
        unsafe fn deinterleave([a, b]: [__m512i; 2]) -> [__m512i; 2] {
            unsafe {
                let (even, odd) =
                    (_mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14), _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15));
                [_mm512_permutex2var_epi64(a, even, b), _mm512_permutex2var_epi64(a, odd, b)]
            }
        }
        #[inline(always)]
        unsafe fn interleave(first: __m512i, second: __m512i) -> [__m512i; 2] {
            unsafe { interleave64(first, second) }
        }
    }

    /// `f64_from_words(hi, lo)` of the low halves of each 64-bit lane.
    #[target_feature(enable = "avx512f,avx512dq")]
    fn f64s(hi: __m512i, lo: __m512i) -> __m512i {
        // The 53 bits: hi above the top 21 bits of lo.
        let bits = _mm512_srli_epi64::<11>(_mm512_mask_blend_epi32(0xAAAA, lo, _mm512_slli_epi64::<32>(hi)));
        let unit = _mm512_set1_pd(1.0 / (1u64 << 53) as f64);
        _mm512_castpd_si512(_mm512_mul_pd(_mm512_cvtepu64_pd(bits), unit))
    }

    /// Whether `run` can be used on this processor.
    pub(super) fn has_run() -> bool {
        is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512dq")
    }

    /// The values of blocks `b0 .. b0 + 8 * groups` of `stream` to `dst` in element order,
    /// straight from the registers; with non-temporal stores if `stream_out`.
    ///
    /// # Safety
    /// `has_run()`; `dst` has room for `2 * T::LANES * groups` values.
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
    pub(super) unsafe fn run<T: Lanes>(
        stream: &Stream,
        dist: Distribution,
        b0: u64,
        groups: usize,
        dst: *mut T,
        stream_out: bool,
        values: &mut Values,
    ) {
        let generator = match stream.kind {
            RngKind::Philox => {
                Generator::Philox(round_keys(stream.seed), [stream.draw as u32, (stream.draw >> 32) as u32])
            }
            RngKind::Fast => Generator::Fast(stream.fast_salt()),
            RngKind::Threefry => unreachable!("Threefry blocks are computed in batches (`whole_groups`)"),
        };
        let mut done = 0;
        // SAFETY (both): room for the groups' values (caller).
        while done + GROUPS <= groups {
            unsafe { run_groups::<T, GROUPS>(&generator, dist, b0 + 8 * done as u64, dst, done, stream_out, values) };
            done += GROUPS;
        }
        while done < groups {
            unsafe { run_groups::<T, 1>(&generator, dist, b0 + 8 * done as u64, dst, done, stream_out, values) };
            done += 1;
        }
    }

    /// What `run` computes its blocks with: Philox's round keys and draw, or the `Fast`
    /// hash's salt.
    enum Generator {
        Philox([[u32; 2]; 10], [u32; 2]),
        Fast(u32),
    }

    /// `ir::random::fast_block` of the low halves of the eight 64-bit lanes of `b`, its
    /// words as `rounds` leaves Philox's (the 32-bit arithmetic leaves the high halves
    /// unused).
    #[target_feature(enable = "avx512f")]
    fn fast_words(b: __m512i, salt: u32) -> [__m512i; 4] {
        // The block's high word, mixed, into the low half of each lane (`ir::random::fast_block`).
        let high = fmix(_mm512_srli_epi64::<32>(b));
        let base = fmix(_mm512_xor_si512(_mm512_xor_si512(b, high), _mm512_set1_epi32(salt as i32)));
        let [s1, s2, s3] = FAST_WORD_SALTS.map(|s| _mm512_set1_epi32(s as i32));
        [base, fmix(_mm512_xor_si512(base, s1)), fmix(_mm512_xor_si512(base, s2)), fmix(_mm512_xor_si512(base, s3))]
    }

    /// `ir::random`'s murmur3 finaliser on each 32-bit lane.
    #[target_feature(enable = "avx512f")]
    fn fmix(h: __m512i) -> __m512i {
        let h = _mm512_xor_si512(h, _mm512_srli_epi32::<16>(h));
        let h = _mm512_mullo_epi32(h, _mm512_set1_epi32(FMIX_M1 as i32));
        let h = _mm512_xor_si512(h, _mm512_srli_epi32::<13>(h));
        let h = _mm512_mullo_epi32(h, _mm512_set1_epi32(FMIX_M2 as i32));
        _mm512_xor_si512(h, _mm512_srli_epi32::<16>(h))
    }

    /// `G` groups of `run`, the first being group `first` of `dst`.
    #[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2,fma")]
    #[allow(clippy::too_many_arguments)]
    unsafe fn run_groups<T: Lanes, const G: usize>(
        generator: &Generator,
        dist: Distribution,
        b: u64,
        dst: *mut T,
        first: usize,
        stream_out: bool,
        values: &mut Values,
    ) {
        let mut c = [[_mm512_setzero_si512(); 4]; G];
        let lanes = _mm512_add_epi64(_mm512_set1_epi64(b as i64), _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7));
        let group = |g: usize| _mm512_add_epi64(lanes, _mm512_set1_epi64(8 * g as i64));
        match *generator {
            Generator::Philox(ref keys, draw) => {
                for (g, c) in c.iter_mut().enumerate() {
                    *c = start_words(group(g), draw);
                }
                rounds(keys, &mut c);
            }
            Generator::Fast(salt) => {
                for (g, c) in c.iter_mut().enumerate() {
                    *c = fast_words(group(g), salt);
                }
            }
        }
        let mut v = [[_mm512_setzero_si512(); 2]; G];
        for (v, c) in v.iter_mut().zip(c) {
            // SAFETY: `has_run()` (caller).
            *v = unsafe { T::vector_uniforms(c) };
        }
        if dist == Distribution::Normal {
            let (u, w) = T::scratch(values);
            let l = T::LANES;
            // SAFETY: vectors of `l` values at slot g of `u`, `w`; G l <= `BATCH`.
            unsafe {
                for (g, v) in v.iter().enumerate() {
                    let [first, second] = T::deinterleave(*v);
                    _mm512_storeu_si512(u[g * l..(g + 1) * l].as_mut_ptr().cast(), first);
                    _mm512_storeu_si512(w[g * l..(g + 1) * l].as_mut_ptr().cast(), second);
                }
                box_muller::<T, Fma>(&mut u[..G * l], &mut w[..G * l]);
                for (g, v) in v.iter_mut().enumerate() {
                    let cos = _mm512_loadu_si512(u[g * l..(g + 1) * l].as_ptr().cast());
                    *v = T::interleave(cos, _mm512_loadu_si512(w[g * l..(g + 1) * l].as_ptr().cast()));
                }
            }
        }
        let aligned = (dst as usize).is_multiple_of(64);
        for (g, [lo, hi]) in v.into_iter().enumerate() {
            // SAFETY: room for the group's 128 bytes (caller); streaming stores only where
            // aligned.
            unsafe {
                let out = dst.add((first + g) * 2 * T::LANES) as *mut __m512i;
                if stream_out && aligned {
                    _mm512_stream_si512(out, lo);
                    _mm512_stream_si512(out.add(1), hi);
                } else {
                    _mm512_storeu_si512(out, lo);
                    _mm512_storeu_si512(out.add(1), hi);
                }
            }
        }
    }

    #[target_feature(enable = "avx2")]
    fn mul_hi_lo8(a: __m256i, m: __m256i) -> (__m256i, __m256i) {
        let even = _mm256_mul_epu32(a, m);
        let odd = _mm256_mul_epu32(_mm256_srli_epi64::<32>(a), m);
        let hi = _mm256_blend_epi32::<0xAA>(_mm256_srli_epi64::<32>(even), odd);
        let lo = _mm256_blend_epi32::<0xAA>(even, _mm256_slli_epi64::<32>(odd));
        (hi, lo)
    }

    /// As `philox_512`, with the words packed eight to a vector.
    #[target_feature(enable = "avx2")]
    fn philox8<const G: usize>(keys: &[[u32; 2]; 10], draw: [u32; 2], counters: &[u64], out: &mut [[u32; 4]]) {
        let mut c = [[_mm256_setzero_si256(); 4]; G];
        for (g, c) in c.iter_mut().enumerate() {
            let counters = &counters[8 * g..8 * g + 8];
            // SAFETY: 8 u64 are read, unaligned.
            let (a, b) = unsafe {
                (_mm256_loadu_si256(counters.as_ptr().cast()), _mm256_loadu_si256(counters[4..].as_ptr().cast()))
            };
            // Low and high words of the counters, in counter order.
            let order = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
            let (a, b) = (_mm256_permutevar8x32_epi32(a, order), _mm256_permutevar8x32_epi32(b, order));
            *c = [
                _mm256_permute2x128_si256::<0x20>(a, b),
                _mm256_permute2x128_si256::<0x31>(a, b),
                _mm256_set1_epi32(draw[0] as i32),
                _mm256_set1_epi32(draw[1] as i32),
            ];
        }
        let (m0, m1) = (_mm256_set1_epi32(PHILOX_M0 as i32), _mm256_set1_epi32(PHILOX_M1 as i32));
        for k in keys {
            let (k0, k1) = (_mm256_set1_epi32(k[0] as i32), _mm256_set1_epi32(k[1] as i32));
            for c in c.iter_mut() {
                let (hi0, lo0) = mul_hi_lo8(c[0], m0);
                let (hi1, lo1) = mul_hi_lo8(c[2], m1);
                let x0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c[1]), k0);
                let x2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c[3]), k1);
                *c = [x0, lo1, x2, lo0];
            }
        }
        for (g, [c0, c1, c2, c3]) in c.into_iter().enumerate() {
            // Transpose to blocks: after the unpacks, 128-bit lane i of uj is block 4i + j.
            let (t0, t1) = (_mm256_unpacklo_epi32(c0, c1), _mm256_unpackhi_epi32(c0, c1));
            let (t2, t3) = (_mm256_unpacklo_epi32(c2, c3), _mm256_unpackhi_epi32(c2, c3));
            let (u0, u1) = (_mm256_unpacklo_epi64(t0, t2), _mm256_unpackhi_epi64(t0, t2));
            let (u2, u3) = (_mm256_unpacklo_epi64(t1, t3), _mm256_unpackhi_epi64(t1, t3));
            let dst = out[8 * g..8 * g + 8].as_mut_ptr() as *mut __m256i;
            // SAFETY: 8 blocks are written, unaligned.
            unsafe {
                _mm256_storeu_si256(dst, _mm256_permute2x128_si256::<0x20>(u0, u1));
                _mm256_storeu_si256(dst.add(1), _mm256_permute2x128_si256::<0x20>(u2, u3));
                _mm256_storeu_si256(dst.add(2), _mm256_permute2x128_si256::<0x31>(u0, u1));
                _mm256_storeu_si256(dst.add(3), _mm256_permute2x128_si256::<0x31>(u2, u3));
            }
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        /// Each instruction set this processor has against the definition, on random
        /// counters of any size and a group's worth plus a partial group.
        #[test]
        fn widths_match_the_definition() {
            let mut next = crate::backend::cpu::random::tests::xorshift(0x2545_f491_4f6c_dd1d);
            for _ in 0..50 {
                let stream = Stream { kind: crate::ir::RngKind::Philox, seed: next(), draw: next() };
                let (keys, draw) = (round_keys(stream.seed), [stream.draw as u32, (stream.draw >> 32) as u32]);
                let counters: Vec<u64> = (0..150).map(|_| next() >> (next() % 64)).collect();
                let want: Vec<[u32; 4]> = counters.iter().map(|&c| stream.block(c)).collect();
                let mut got = vec![[0u32; 4]; counters.len()];
                let mut check = |what: &str, run: &dyn Fn(&mut [[u32; 4]])| {
                    got.fill([0; 4]);
                    run(&mut got);
                    assert_eq!(got, want, "{what}, {stream:?}, counters {counters:x?}");
                };
                // SAFETY (each call): the processor has the instructions.
                if is_x86_feature_detected!("avx512f") {
                    check("AVX-512, interleaved", &|o| {
                        each_group::<{ 8 * GROUPS }>(&counters, o, |c, o| unsafe {
                            philox_512::<GROUPS>(&keys, draw, c, o)
                        })
                    });
                    check("AVX-512", &|o| {
                        each_group::<8>(&counters, o, |c, o| unsafe { philox_512::<1>(&keys, draw, c, o) })
                    });
                }
                if is_x86_feature_detected!("avx2") {
                    check("AVX2, interleaved", &|o| {
                        each_group::<{ 8 * GROUPS }>(&counters, o, |c, o| unsafe {
                            philox8::<GROUPS>(&keys, draw, c, o)
                        })
                    });
                    check("AVX2", &|o| {
                        each_group::<8>(&counters, o, |c, o| unsafe { philox8::<1>(&keys, draw, c, o) })
                    });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// cos and sin of 2 pi v against libm's in f64, over every quarter turn and its edges,
    /// with and without FMA.
    #[test]
    fn turns() {
        let tau = std::f64::consts::TAU;
        for i in 0..=(1 << 16) {
            for v in [i as f64 / (1 << 16) as f64, (i as f64 + 0.37) / (1 << 16) as f64] {
                if v >= 1.0 {
                    continue;
                }
                let (v32, v64) = (v as f32, v);
                let (wc, ws) = ((tau * v32 as f64).cos(), (tau * v32 as f64).sin());
                for (c, s) in [math::cos_sin_turns::<f32, Fma>(v32), math::cos_sin_turns::<f32, NoFma>(v32)] {
                    assert!((c as f64 - wc).abs() <= 1.2e-7 && (s as f64 - ws).abs() <= 1.2e-7, "f32 {v32}: {c} {s}");
                }
                // f64's own 2 pi v is rounded, by up to 4.4e-16.
                let (wc, ws) = ((tau * v64).cos(), (tau * v64).sin());
                for (c, s) in [math::cos_sin_turns::<f64, Fma>(v64), math::cos_sin_turns::<f64, NoFma>(v64)] {
                    assert!((c - wc).abs() <= 1e-15 && (s - ws).abs() <= 1e-15, "f64 {v64}: {c} {s} vs {wc} {ws}");
                }
            }
        }
    }

    /// A law without parameters.
    fn plain(dist: Distribution) -> Law {
        Law { dist, params: [0; MAX_RANDOM_PARAMS] }
    }

    /// A xorshift source of test cases, seeded afresh in each process.
    pub(super) fn xorshift(seed: u64) -> impl FnMut() -> u64 {
        let mut x = seed ^ std::process::id() as u64;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        }
    }

    /// A run of elements (vector registers for whole groups of blocks where the processor
    /// has them) has the bits of the same elements computed one at a time, normal values
    /// included, whatever the generator, the run's first element and length.
    #[test]
    fn runs_match_single_elements() {
        let mut s = Scratch::default();
        let mut next = xorshift(0x6a09_e667_f3bc_c908);
        for _ in 0..100 {
            let kind = [RngKind::Philox, RngKind::Fast, RngKind::Threefry][(next() % 3) as usize];
            let stream = Stream { kind, seed: next(), draw: next() };
            let dist = if next().is_multiple_of(2) { Distribution::Uniform } else { Distribution::Normal };
            let n = (next() % 1100) as usize;
            let base = if next().is_multiple_of(4) { (next() >> 1) as i64 - n as i64 } else { (next() % 5000) as i64 };
            for dtype in [DType::F32, DType::F64] {
                let (mut run, mut single) = (vec![0u64; n], vec![0u64; n]);
                let bits = |v: &mut Vec<u64>| v.as_mut_ptr() as *mut u8;
                let size = dtype.size();
                unsafe {
                    fill(
                        &mut s,
                        &stream,
                        &plain(dist),
                        dtype,
                        Lin { base, step: 1 },
                        bits(&mut run),
                        n,
                        next().is_multiple_of(2),
                    );
                    for l in 0..n {
                        let at = bits(&mut single).add(l * size);
                        fill(
                            &mut s,
                            &stream,
                            &plain(dist),
                            dtype,
                            Lin { base: base + l as i64, step: 1 },
                            at,
                            1,
                            false,
                        );
                    }
                }
                assert_eq!(run, single, "{stream:?} {dist:?} {dtype} from {base}, {n} elements");
            }
        }
    }

    /// Runs, views (strided, backwards, repeated) and wrapped indices against the
    /// definition, element by element.
    #[test]
    fn matches_the_definition() {
        let mut s = Scratch::default();
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..200 {
            let kind = [RngKind::Philox, RngKind::Fast, RngKind::Threefry][(next() % 3) as usize];
            let stream = Stream { kind, seed: next(), draw: next() % 1000 };
            let dist = if next().is_multiple_of(2) { Distribution::Uniform } else { Distribution::Normal };
            let n = (next() % 700) as usize;
            let step = [1, 1, 0, 2, -1, 3, 1000][(next() % 7) as usize];
            let base = match next() % 4 {
                0 => (next() % 10) as i64,
                1 => (next() >> 2) as i64,
                2 => -((next() % 10) as i64),
                _ => (next() % 100_000) as i64,
            };
            let run = Lin { base, step };
            let at = |l: usize| base.wrapping_add(step.wrapping_mul(l as i64)) as u64;
            let mut f = vec![0f32; n];
            let mut d = vec![0f64; n];
            unsafe {
                fill(&mut s, &stream, &plain(dist), DType::F32, run, f.as_mut_ptr() as *mut u8, n, false);
                fill(&mut s, &stream, &plain(dist), DType::F64, run, d.as_mut_ptr() as *mut u8, n, false);
            }
            for l in 0..n {
                let e = at(l);
                let ctx = format!("{kind:?} {dist:?} run {run:?} lane {l} element {e}");
                match dist {
                    Distribution::Uniform => {
                        assert_eq!(f[l] as f64, stream.uniform(DType::F32, e), "{ctx}");
                        assert_eq!(d[l], stream.uniform(DType::F64, e), "{ctx}");
                    }
                    Distribution::Normal => {
                        // The rounding of the angle 2 pi v moves a value by up to about
                        // its pair's radius times that rounding.
                        for (got, t, unit) in [(f[l] as f64, DType::F32, 1e-6), (d[l], DType::F64, 1e-14)] {
                            let want = stream.normal(t, e);
                            let radius = stream.normal(t, e & !1).hypot(stream.normal(t, e | 1));
                            assert!((got - want).abs() <= unit * (1.0 + radius), "{ctx} {t}: {got} vs {want}");
                        }
                    }
                    other => unreachable!("{other:?}"),
                }
            }
        }
    }

    /// Every other law's values, along runs and off them, are the definition's
    /// (`Stream::sample`): integers, bools and the rejection methods' decisions bit for bit,
    /// values computed after the decisions within a few ulps.
    #[test]
    fn laws_match_the_definition() {
        use crate::ir::Scalar;
        let mut s = Scratch::default();
        let mut next = xorshift(0x3c6e_f372_fe94_f82b);
        let f64s = |v: &[f64]| v.iter().map(|&x| Scalar::F64(x)).collect::<Vec<_>>();
        for round in 0..120 {
            let kind = [RngKind::Philox, RngKind::Fast, RngKind::Threefry][(next() % 3) as usize];
            let stream = Stream { kind, seed: next(), draw: next() % 1000 };
            let n = (next() % 600) as usize;
            let run = match next() % 3 {
                0 => Lin { base: (next() % 10_000) as i64, step: 1 },
                1 => Lin { base: (next() % 10_000) as i64 + 2000, step: -3 },
                _ => Lin { base: (next() % 10_000) as i64, step: 7 },
            };
            let (dist, dtype, params): (Distribution, DType, Vec<Scalar>) = match round % 8 {
                0 => (
                    Distribution::UniformRange,
                    DType::F32,
                    vec![Scalar::F32(-2.5), Scalar::F32(7.0), Scalar::F32(7f32.next_down())],
                ),
                1 => (Distribution::Exponential, DType::F64, vec![]),
                2 => (Distribution::Bernoulli, DType::Bool, vec![Scalar::I64((next() % (1 << 32)) as i64)]),
                3 => {
                    let span = 1 + next() % (1 << 32);
                    (
                        Distribution::Integers,
                        DType::I32,
                        vec![Scalar::I32(-17), Scalar::I64(span as i64), Scalar::I64(((1u64 << 32) % span) as i64)],
                    )
                }
                4 => {
                    let span = (next() >> 1) | 1 << 62;
                    (
                        Distribution::Integers,
                        DType::I64,
                        vec![
                            Scalar::I64(5),
                            Scalar::I64(span as i64),
                            Scalar::I64((span.wrapping_neg() % span) as i64),
                        ],
                    )
                }
                5 => {
                    let lambda = (next() % 100) as f64 / 10.0;
                    (Distribution::Poisson { large: false }, DType::I32, f64s(&[lambda, (-lambda).exp()]))
                }
                6 => {
                    let p = Ptrs::new(10.0 + (next() % 10_000) as f64);
                    (
                        Distribution::Poisson { large: true },
                        DType::I64,
                        f64s(&[p.lambda, p.a, p.b, p.ln_inv_alpha, p.vr]),
                    )
                }
                _ => {
                    let k = [0.3, 1.0, 2.5, 40.0][(next() % 4) as usize];
                    let kk = if k < 1.0 { k + 1.0 } else { k };
                    let d = kk - 1.0 / 3.0;
                    let t = if next().is_multiple_of(2) { DType::F32 } else { DType::F64 };
                    let mut p = vec![Scalar::F64(d).cast(t), Scalar::F64(1.0 / (9.0 * d).sqrt()).cast(t)];
                    if k < 1.0 {
                        p.push(Scalar::F64(1.0 / k).cast(t));
                    }
                    (Distribution::Gamma { boost: k < 1.0, log: next().is_multiple_of(2) }, t, p)
                }
            };
            let mut law = plain(dist);
            for (v, p) in law.params.iter_mut().zip(&params) {
                *v = p.to_bits();
            }
            let mut out = vec![0u64; n];
            unsafe { fill(&mut s, &stream, &law, dtype, run, out.as_mut_ptr() as *mut u8, n, false) };
            let bytes: &[u8] = unsafe { std::slice::from_raw_parts(out.as_ptr() as *const u8, n * dtype.size()) };
            for l in 0..n {
                let e = run.base.wrapping_add(run.step * l as i64) as u64;
                let want = stream.sample(dist, dtype, e, &params);
                let got = Scalar::from_bits(
                    dtype,
                    match dtype.size() {
                        1 => bytes[l] as u64,
                        4 => u32::from_le_bytes(bytes[4 * l..4 * l + 4].try_into().unwrap()) as u64,
                        _ => u64::from_le_bytes(bytes[8 * l..8 * l + 8].try_into().unwrap()),
                    },
                );
                let ctx = format!("{kind:?} {dist:?} {dtype} {params:?} element {e}");
                if dtype.is_float() {
                    let (g, w) = (got.as_f64(), want.as_f64());
                    let unit = if dtype == DType::F32 { 1e-6 } else { 1e-14 };
                    assert!((g - w).abs() <= unit * w.abs().max(1.0), "{ctx}: {g} vs {w}");
                } else {
                    assert_eq!(got.to_bits(), want.to_bits(), "{ctx}");
                }
            }
        }
    }
}
