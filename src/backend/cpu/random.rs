//! Random values for a chunk: the streams of `ir::random`. A run of consecutive elements
//! computes each generator block once, 16 blocks at a time in vector registers, and takes
//! all of its words (four f32 uniforms, two f64 uniforms, or one or two Box-Muller
//! pairs); lanes whose elements are not consecutive (views such as transposes) compute
//! the block of each lane. Both give the same bits.

use multiversion::multiversion;

use super::access::Lin;
use super::math;
use crate::ir::random::{
    PHILOX_M0, PHILOX_M1, PHILOX_W0, PHILOX_W1, Stream, f32_from_word, f64_from_words, fast_block,
};
use crate::ir::{DType, Distribution, RngKind};

/// Elements per batch, which bounds the scratch buffers.
const BATCH: usize = 256;
/// Blocks a batch needs at most: one per lane off a run, about half a batch along one.
const BATCH_BLOCKS: usize = BATCH + 2;

/// Per-thread buffers, kept from chunk to chunk.
#[derive(Default)]
pub struct Scratch {
    counters: Vec<u64>,
    blocks: Vec<[u32; 4]>,
    values: Values,
}

/// Four arrays of `BATCH` values of each type.
#[derive(Default)]
struct Values {
    f32s: Vec<f32>,
    f64s: Vec<f64>,
}

/// Writes the values of type `dtype` of elements `run.base + run.step * l` (`l` in
/// `0..n`) of the random array `dist` of `stream` to `dst`.
///
/// # Safety
/// `dst` has room for `n` values of `dtype`.
pub unsafe fn fill(
    s: &mut Scratch,
    stream: &Stream,
    dist: Distribution,
    dtype: DType,
    run: Lin,
    dst: *mut u8,
    n: usize,
) {
    if s.counters.is_empty() {
        s.counters.resize(BATCH_BLOCKS, 0);
        s.blocks.resize(BATCH_BLOCKS, [0; 4]);
        s.values.f32s.resize(4 * BATCH, 0.0);
        s.values.f64s.resize(4 * BATCH, 0.0);
    }
    let mut done = 0;
    while done < n {
        let len = BATCH.min(n - done);
        let sub = Lin { base: run.base.wrapping_add(run.step.wrapping_mul(done as i64)), step: run.step };
        // SAFETY: room for `n` values (caller).
        unsafe {
            match dtype {
                DType::F32 => {
                    batch(s, stream, dist, sub, std::slice::from_raw_parts_mut((dst as *mut f32).add(done), len))
                }
                DType::F64 => {
                    batch(s, stream, dist, sub, std::slice::from_raw_parts_mut((dst as *mut f64).add(done), len))
                }
                other => unreachable!("random values of type {other}"),
            }
        }
        done += len;
    }
}

/// f32 and f64 as random values.
trait Sample: Copy {
    /// Words per uniform value.
    const WORDS: u64;
    const TAU: Self;
    /// The uniform value of the first `WORDS` words of `w`.
    fn uniform(w: &[u32]) -> Self;
    /// Four scratch arrays of `BATCH` values.
    fn scratch(v: &mut Values) -> (&mut [Self], &mut [Self], &mut [Self], &mut [Self]);
    fn log(src: &[Self], dst: &mut [Self]);
    fn cos(src: &[Self], dst: &mut [Self]);
    fn sin(src: &[Self], dst: &mut [Self]);
    /// `sqrt(-2 ln)`, the radius of a Box-Muller pair.
    fn radius(ln: Self) -> Self;
    fn one_minus(u: Self) -> Self;
    fn mul(a: Self, b: Self) -> Self;
}

fn quarters<T>(v: &mut [T]) -> (&mut [T], &mut [T], &mut [T], &mut [T]) {
    let (a, rest) = v.split_at_mut(BATCH);
    let (b, rest) = rest.split_at_mut(BATCH);
    let (c, d) = rest.split_at_mut(BATCH);
    (a, b, c, d)
}

macro_rules! sample {
    ($t:ty, $words:expr, $buf:ident, $log:path, $cos:path, $sin:path, |$w:ident| $from:expr) => {
        impl Sample for $t {
            const WORDS: u64 = $words;
            const TAU: Self = std::f64::consts::TAU as $t;
            #[inline(always)]
            fn uniform($w: &[u32]) -> Self {
                $from
            }
            fn scratch(v: &mut Values) -> (&mut [Self], &mut [Self], &mut [Self], &mut [Self]) {
                quarters(&mut v.$buf)
            }
            fn log(src: &[Self], dst: &mut [Self]) {
                $log(src, dst)
            }
            fn cos(src: &[Self], dst: &mut [Self]) {
                $cos(src, dst)
            }
            fn sin(src: &[Self], dst: &mut [Self]) {
                $sin(src, dst)
            }
            #[inline(always)]
            fn radius(ln: Self) -> Self {
                (-2.0 * ln).sqrt()
            }
            #[inline(always)]
            fn one_minus(u: Self) -> Self {
                1.0 - u
            }
            #[inline(always)]
            fn mul(a: Self, b: Self) -> Self {
                a * b
            }
        }
    };
}

sample!(f32, 1, f32s, math::log_f32, math::cos_f32, math::sin_f32, |w| f32_from_word(w[0]));
sample!(f64, 2, f64s, math::log_f64, math::cos_f64, math::sin_f64, |w| f64_from_words(w[0], w[1]));

/// The values of up to `BATCH` elements `run.base + run.step * l` into `out`.
fn batch<T: Sample>(s: &mut Scratch, stream: &Stream, dist: Distribution, run: Lin, out: &mut [T]) {
    let n = out.len();
    let e0 = run.base as u64;
    // Consecutive elements whose indices do not wrap: their words are consecutive too.
    let consecutive = run.step == 1 && run.base >= 0 && run.base.checked_add(n as i64).is_some();
    let lane = |l: usize| run.base.wrapping_add(run.step.wrapping_mul(l as i64)) as u64;
    // Words of a uniform value, and of a normal value's pair.
    let m = T::WORDS as usize;
    let pair = 2 * m;
    let (counters, blocks) = (&mut s.counters[..], &mut s.blocks[..]);
    match dist {
        Distribution::Uniform => {
            let words = if consecutive {
                words_from(counters, blocks, stream, e0 * m as u64, n * m)
            } else {
                words_per_lane(counters, blocks, stream, m, |l| lane(l).wrapping_mul(m as u64), n)
            };
            for (o, w) in out.iter_mut().zip(words.chunks_exact(m)) {
                *o = T::uniform(w);
            }
        }
        Distribution::Normal => {
            // Along a run, pair p of the batch is the stream's pair `first_pair + p`; off
            // a run, lane l has its own pair.
            let first_pair = e0 / 2;
            let (words, pairs) = if consecutive {
                let pairs = ((e0 + n as u64 - 1) / 2 - first_pair + 1) as usize;
                (words_from(counters, blocks, stream, first_pair * pair as u64, pairs * pair), pairs)
            } else {
                (words_per_lane(counters, blocks, stream, pair, |l| (lane(l) / 2).wrapping_mul(pair as u64), n), n)
            };
            let (u, v, r, sin) = T::scratch(&mut s.values);
            let (u, v, r, sin) = (&mut u[..pairs], &mut v[..pairs], &mut r[..pairs], &mut sin[..pairs]);
            for ((w, u), v) in words.chunks_exact(pair).zip(u.iter_mut()).zip(v.iter_mut()) {
                (*u, *v) = (T::uniform(w), T::uniform(&w[m..]));
            }
            box_muller(u, v, r, sin);
            let cos = v;
            for (l, o) in out.iter_mut().enumerate() {
                let e = lane(l);
                let p = if consecutive { (e / 2 - first_pair) as usize } else { l };
                *o = T::mul(r[p], if e % 2 == 0 { cos[p] } else { sin[p] });
            }
        }
    }
}

/// Box-Muller: from uniforms `u` (radius) and `v` (angle), the radius into `r`, the
/// cosine into `v` and the sine into `sin`. `u` is clobbered.
fn box_muller<T: Sample>(u: &mut [T], v: &mut [T], r: &mut [T], sin: &mut [T]) {
    for x in u.iter_mut() {
        *x = T::one_minus(*x); // exact: 1 - u is a multiple of u's unit in (0, 1]
    }
    T::log(u, r);
    for x in r.iter_mut() {
        *x = T::radius(*x);
    }
    for (a, &x) in u.iter_mut().zip(v.iter()) {
        *a = T::mul(T::TAU, x);
    }
    T::cos(u, v);
    T::sin(u, sin);
}

/// Words `first .. first + len` of the stream, computed from whole blocks.
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

/// Lanes of one group of blocks computed together.
const LANES: usize = 16;

/// Block `counters[k]` of the stream into `out[k]`.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl+avx2+fma", "x86_64+avx2+fma", "x86_64+sse4.1"))]
fn compute_blocks(stream: &Stream, counters: &[u64], out: &mut [[u32; 4]]) {
    match stream.kind {
        RngKind::Philox => {
            let key = [stream.seed as u32, (stream.seed >> 32) as u32];
            let mut cs = counters.chunks_exact(LANES);
            let mut os = out.chunks_exact_mut(LANES);
            for (c, o) in (&mut cs).zip(&mut os) {
                philox_group(key, stream.draw, c.try_into().expect("a group"), o);
            }
            let (c, o) = (cs.remainder(), os.into_remainder());
            if !c.is_empty() {
                let mut padded = [0u64; LANES];
                padded[..c.len()].copy_from_slice(c);
                let mut words = [[0u32; 4]; LANES];
                philox_group(key, stream.draw, &padded, &mut words);
                o.copy_from_slice(&words[..c.len()]);
            }
        }
        RngKind::Fast => {
            let salt = stream.fast_salt();
            for (o, &c) in out.iter_mut().zip(counters) {
                *o = fast_block(salt, c);
            }
        }
    }
}

/// Philox4x32-10 (`ir::random::philox4x32_10`) of the counters `(c, draw)` under `key`,
/// `LANES` at a time: written lane-wise so that each step is one vector instruction.
#[inline(always)]
fn philox_group(key: [u32; 2], draw: u64, counters: &[u64; LANES], out: &mut [[u32; 4]]) {
    let (mut c0, mut c1) = ([0u32; LANES], [0u32; LANES]);
    for l in 0..LANES {
        c0[l] = counters[l] as u32;
        c1[l] = (counters[l] >> 32) as u32;
    }
    let (mut c2, mut c3) = ([draw as u32; LANES], [(draw >> 32) as u32; LANES]);
    let mut k = key;
    for _ in 0..10 {
        for l in 0..LANES {
            let p0 = PHILOX_M0 as u64 * c0[l] as u64;
            let p1 = PHILOX_M1 as u64 * c2[l] as u64;
            let (n0, n2) = ((p1 >> 32) as u32 ^ c1[l] ^ k[0], (p0 >> 32) as u32 ^ c3[l] ^ k[1]);
            (c0[l], c1[l], c2[l], c3[l]) = (n0, p1 as u32, n2, p0 as u32);
        }
        k = [k[0].wrapping_add(PHILOX_W0), k[1].wrapping_add(PHILOX_W1)];
    }
    for (l, o) in out.iter_mut().enumerate() {
        *o = [c0[l], c1[l], c2[l], c3[l]];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs, views (strided, backwards, repeated) and wrapped indices against the
    /// definition, element by element.
    #[test]
    fn matches_the_definition() {
        let mut s = Scratch::default();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64 ^ std::process::id() as u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..200 {
            let kind = if next() % 2 == 0 { RngKind::Philox } else { RngKind::Fast };
            let stream = Stream { kind, seed: next(), draw: next() % 1000 };
            let dist = if next() % 2 == 0 { Distribution::Uniform } else { Distribution::Normal };
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
                fill(&mut s, &stream, dist, DType::F32, run, f.as_mut_ptr() as *mut u8, n);
                fill(&mut s, &stream, dist, DType::F64, run, d.as_mut_ptr() as *mut u8, n);
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
                        let (wf, wd) = (stream.normal(DType::F32, e), stream.normal(DType::F64, e));
                        assert!((f[l] as f64 - wf).abs() <= 2e-6 * wf.abs().max(1.0), "{ctx}: {} vs {wf}", f[l]);
                        assert!((d[l] - wd).abs() <= 1e-13 * wd.abs().max(1.0), "{ctx}: {} vs {wd}", d[l]);
                    }
                }
            }
        }
    }
}
