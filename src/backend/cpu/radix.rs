//! The stable radix sort behind `sort.rs`: items ordered by an unsigned key, one byte of
//! it a digit. A long line is split on its most significant digit into 256 buckets (the
//! workers count and scatter blocks of it together, each block to places of its own, so
//! equal keys keep their order), and every bucket still larger than the cache budget is
//! split again on the next digit. A bucket within the budget is finished in cache by
//! least-significant-digit passes over its remaining digits, skipping those its keys all
//! share. The buckets are spread over the workers, the largest first. So the line crosses
//! main memory once or twice instead of once per digit.

use std::cmp::Reverse;
use std::ops::{Not, Range};

use super::threads::Workers;

/// An unsigned key: its bytes are the radix sort's digits.
pub trait Key: Copy + Ord + Send + Sync + Not<Output = Self> + 'static {
    const BYTES: usize;
    const MAX: Self;
    fn byte(self, i: usize) -> usize;
}

impl Key for u32 {
    const BYTES: usize = 4;
    const MAX: u32 = u32::MAX;
    fn byte(self, i: usize) -> usize {
        (self >> (8 * i)) as usize & 0xff
    }
}

impl Key for u64 {
    const BYTES: usize = 8;
    const MAX: u64 = u64::MAX;
    fn byte(self, i: usize) -> usize {
        (self >> (8 * i)) as usize & 0xff
    }
}

/// A bucket whose items take at most this many bytes is sorted in cache (its items and
/// the scratch places beside them stay within a core's L2). Room to spare matters: a
/// bucket just over the budget is split into buckets of a few hundred items.
const CACHE_BYTES: usize = 384 << 10;
/// Below this many items a bucket is sorted by comparisons (a radix pass costs 256 counters).
const SHORT: usize = 64;
/// Items per block of a split shared by the workers (at least; at most 64 blocks).
const BLOCK: usize = 1 << 14;
/// A bucket longer than this share of the line is split by all the workers together
/// rather than by one (the share of the work one task may hold up).
const SHARED_SPLIT: usize = 8;

/// A pointer the workers write through at disjoint places.
pub struct Shared<T>(pub *mut T);
// Not derived: those would ask `T: Copy`.
impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Shared<T> {}
// SAFETY: every user writes places no other task writes, and the step waits for them.
unsafe impl<T> Send for Shared<T> {}
unsafe impl<T> Sync for Shared<T> {}

impl<T> Shared<T> {
    /// The pointer (a method, so closures capture the whole `Shared`).
    pub fn get(self) -> *mut T {
        self.0
    }
}

/// Items that sort together: their places `start..start + len` (the same in both
/// buffers), which buffer holds them, and how many low digits are still unsorted (the
/// higher ones are equal within the bucket).
#[derive(Copy, Clone)]
struct Bucket {
    start: usize,
    len: usize,
    in_out: bool,
    digits: usize,
}

impl Bucket {
    fn places(&self) -> Range<usize> {
        self.start..self.start + self.len
    }

    /// The buckets `counts` (items per value of the next digit) make of this one's items
    /// once split into the other buffer.
    fn children(self, counts: &[usize; 256]) -> impl Iterator<Item = Bucket> {
        let mut start = self.start;
        counts.iter().filter(|&&c| c > 0).map(move |&len| {
            let b = Bucket { start, len, in_out: !self.in_out, digits: self.digits - 1 };
            start += len;
            b
        })
    }
}

/// One sort's two buffers of n items each; the sorted items end in `out`.
struct Buffers<T> {
    out: Shared<T>,
    scratch: Shared<T>,
}

impl<T> Buffers<T> {
    fn holding(&self, in_out: bool) -> Shared<T> {
        if in_out { self.out } else { self.scratch }
    }
}

/// Sorts the items `load(0)..load(n)` stably by `key`, on all workers unless `serial`.
/// The sorted items end in `out`; each run of them is handed to `finish` (with the place
/// of its first item) as soon as it is sorted, while it is in cache. `stop` is asked once
/// every item has been loaded: if it says so, the sort returns false, having finished
/// nothing.
///
/// SAFETY: `out` and `scratch` are valid for writes and reads of `n` items each, do not
/// overlap, and nothing else uses them during the call.
#[allow(clippy::too_many_arguments)]
pub unsafe fn sort<T: Copy + Send + Sync, K: Key>(
    n: usize,
    load: impl Fn(usize) -> T + Sync,
    key: impl Fn(&T) -> K + Sync,
    (out, scratch): (*mut T, *mut T),
    finish: impl Fn(usize, &mut [T]) + Sync,
    stop: impl Fn() -> bool,
    workers: &Workers,
    serial: bool,
) -> bool {
    let bufs = Buffers { out: Shared(out), scratch: Shared(scratch) };
    let fits = (CACHE_BYTES / size_of::<T>().max(1)).max(SHORT);
    let whole = Bucket { start: 0, len: n, in_out: true, digits: K::BYTES };
    if n <= fits {
        for i in 0..n {
            // SAFETY: i < n.
            unsafe { out.add(i).write(load(i)) };
        }
        if stop() {
            return false;
        }
        settle(whole, &bufs, &key, &finish, fits, workers);
        return true;
    }
    // The first split also loads the items into `scratch` (so it moves them even when
    // their top digit is one).
    let counts = split(0..n, load, &key, K::BYTES - 1, bufs.scratch, false, workers, serial);
    if stop() {
        return false;
    }
    let Some(counts) = counts else { unreachable!("a split that must move always moves") };
    let mut pending: Vec<Bucket> = whole.children(&counts).collect();
    let mut tasks = Vec::new();
    while let Some(b) = pending.pop() {
        if serial || b.digits == 0 || b.len <= fits || b.len <= n / SHARED_SPLIT {
            tasks.push(b);
            continue;
        }
        let src = bufs.holding(b.in_out);
        // SAFETY: the bucket's places hold its items.
        let read = |i: usize| unsafe { src.get().add(i).read() };
        match split(b.places(), read, &key, b.digits - 1, bufs.holding(!b.in_out), true, workers, false) {
            Some(counts) => pending.extend(b.children(&counts)),
            None => pending.push(Bucket { digits: b.digits - 1, ..b }),
        }
    }
    tasks.sort_by_key(|b| Reverse(b.len));
    workers.for_each(tasks.len(), serial, |r| {
        for t in r {
            settle(tasks[t], &bufs, &key, &finish, fits, workers);
        }
    });
    true
}

/// Sorts one bucket on this thread: splits it while it is larger than `fits` items, then
/// finishes each piece in cache, and hands the sorted runs in `out` to `finish`.
/// Buckets given to different tasks have disjoint places.
fn settle<T: Copy + Send + Sync, K: Key>(
    b: Bucket,
    bufs: &Buffers<T>,
    key: &(impl Fn(&T) -> K + Sync),
    finish: &(impl Fn(usize, &mut [T]) + Sync),
    fits: usize,
    workers: &Workers,
) {
    let (src, other) = (bufs.holding(b.in_out), bufs.holding(!b.in_out));
    if b.len > fits && b.digits > 0 {
        // SAFETY: the bucket's places hold its items.
        let read = |i: usize| unsafe { src.get().add(i).read() };
        match split(b.places(), read, key, b.digits - 1, other, true, workers, true) {
            Some(counts) => b.children(&counts).for_each(|c| settle(c, bufs, key, finish, fits, workers)),
            None => settle(Bucket { digits: b.digits - 1, ..b }, bufs, key, finish, fits, workers),
        }
        return;
    }
    // SAFETY: the bucket's places in both buffers are this task's alone; its items are
    // in `src`, and `in_cache` writes every place of `other` it later reads.
    let (items, spare) = unsafe { (src.get().add(b.start), other.get().add(b.start)) };
    let in_other = unsafe { in_cache(std::slice::from_raw_parts_mut(items, b.len), spare, key, b.digits) };
    let sorted = if in_other { spare } else { items };
    let run = if b.in_out { items } else { spare };
    if run != sorted {
        // SAFETY: both runs are this bucket's, in different buffers.
        unsafe { std::ptr::copy_nonoverlapping(sorted, run, b.len) };
    }
    // SAFETY: `run` is the bucket's places in `out`, holding its sorted items.
    finish(b.start, unsafe { std::slice::from_raw_parts_mut(run, b.len) });
}

/// Sorts `items` stably by their low `digits` digits (the higher ones being equal),
/// using the `items.len()` places at `spare`; true if the sorted items are at `spare`.
///
/// SAFETY: `spare` is valid for `items.len()` items and overlaps nothing else in use.
unsafe fn in_cache<T: Copy, K: Key>(items: &mut [T], spare: *mut T, key: &impl Fn(&T) -> K, digits: usize) -> bool {
    let n = items.len();
    if n < SHORT {
        items.sort_by_key(key);
        return false;
    }
    // Every digit's counts in one read.
    let mut counts = [[0usize; 256]; 8];
    for x in items.iter() {
        let k = key(x);
        for (d, c) in counts[..digits].iter_mut().enumerate() {
            c[k.byte(d)] += 1;
        }
    }
    let (mut src, mut dst) = (items.as_mut_ptr(), spare);
    let mut swapped = false;
    for (d, c) in counts[..digits].iter_mut().enumerate() {
        // Every key with the same digit: the pass would move nothing.
        if c.contains(&n) {
            continue;
        }
        let mut place = 0;
        for c in c.iter_mut() {
            (*c, place) = (place, place + *c);
        }
        for i in 0..n {
            // SAFETY: `src` holds the n items (initially `items`, then what the previous
            // pass wrote); the places of digit value v run from its first place for its
            // count, all below n.
            unsafe {
                let x = src.add(i).read();
                let p = &mut c[key(&x).byte(d)];
                dst.add(*p).write(x);
                *p += 1;
            }
        }
        (src, dst) = (dst, src);
        swapped = !swapped;
    }
    swapped
}

/// Scatters the items of `places` (`read(i)` is the item at place i) into the same places
/// of `dst` ordered stably by digit `digit` of their keys, on all workers unless
/// `serial`. Returns the count of each digit value, or None, having moved nothing, when
/// `may_skip` and every item has the same digit.
#[allow(clippy::too_many_arguments)]
fn split<T: Copy + Send + Sync, K: Key>(
    places: Range<usize>,
    read: impl Fn(usize) -> T + Sync,
    key: &(impl Fn(&T) -> K + Sync),
    digit: usize,
    dst: Shared<T>,
    may_skip: bool,
    workers: &Workers,
    serial: bool,
) -> Option<[usize; 256]> {
    let len = places.len();
    let blocks = if serial { 1 } else { (len / BLOCK).clamp(1, 64) };
    let block = |b: usize| places.start + len * b / blocks..places.start + len * (b + 1) / blocks;
    let mut counts = vec![[0usize; 256]; blocks];
    let counted = Shared(counts.as_mut_ptr());
    workers.for_each(blocks, serial, |r| {
        for b in r {
            // SAFETY: block b's counters are written by this task only.
            let c = unsafe { &mut *counted.get().add(b) };
            for i in block(b) {
                c[key(&read(i)).byte(digit)] += 1;
            }
        }
    });
    let mut totals = [0usize; 256];
    for c in &counts {
        for (t, k) in totals.iter_mut().zip(c) {
            *t += k;
        }
    }
    if may_skip && totals.contains(&len) {
        return None;
    }
    // Block b's items with digit value v go after every smaller value's and after the
    // earlier blocks' items with value v.
    let mut place = places.start;
    for v in 0..256 {
        for c in counts.iter_mut() {
            (c[v], place) = (place, place + c[v]);
        }
    }
    let placed = Shared(counts.as_mut_ptr());
    workers.for_each(blocks, serial, |r| {
        for b in r {
            // SAFETY: block b's places are this task's: disjoint from every other
            // block's, and all within `places`.
            let place = unsafe { &mut *placed.get().add(b) };
            for i in block(b) {
                let x = read(i);
                let p = &mut place[key(&x).byte(digit)];
                unsafe { dst.get().add(*p).write(x) };
                *p += 1;
            }
        }
    });
    Some(totals)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

    use super::*;
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    /// Sorts `keys` tagged with their positions through `sort` and checks the result is
    /// std's stable sort, and that `finish` saw every place once.
    fn check<K: Key + std::fmt::Debug>(keys: &[K], workers: &Workers, serial: bool) {
        let n = keys.len();
        let items: Vec<(K, u32)> = keys.iter().copied().zip(0..).collect();
        let mut want = items.clone();
        want.sort_by_key(|p| p.0);
        let mut out = vec![(keys[0], 0u32); n];
        let mut scratch = out.clone();
        let seen: Vec<AtomicU32> = (0..n).map(|_| Default::default()).collect();
        let finish = |start: usize, run: &mut [(K, u32)]| {
            for i in start..start + run.len() {
                seen[i].fetch_add(1, Ordering::Relaxed);
            }
        };
        // SAFETY: both buffers hold n items and are used by nothing else.
        let bufs = (out.as_mut_ptr(), scratch.as_mut_ptr());
        let sorted = unsafe { sort(n, |i| items[i], |p| p.0, bufs, finish, || false, workers, serial) };
        assert!(sorted);
        assert!(seen.iter().all(|s| s.load(Ordering::Relaxed) == 1), "n {n}: a place finished twice or never");
        if out != want {
            let i = (0..n).find(|&i| out[i] != want[i]).unwrap();
            panic!("n {n} serial {serial}: place {i} holds {:?}, the stable sort {:?}", out[i], want[i]);
        }
    }

    fn sizes() -> Vec<usize> {
        // The budgets of 8- and 16-byte items.
        let (small, large) = (CACHE_BYTES / 16, CACHE_BYTES / 8);
        vec![1, 2, SHORT - 1, SHORT, 1000, small, small + 1, large - 1, large, large + 1, 3 * large + 7, 300_000]
    }

    #[test]
    fn sorts_as_std_stable_sort() {
        let workers = Workers::new(2).unwrap();
        let mut rng = StdRng::seed_from_u64(rand::random());
        for n in sizes() {
            let wide: Vec<u32> = (0..n).map(|_| rng.random()).collect();
            let few: Vec<u32> = (0..n).map(|_| rng.random_range(0..5u32) << 20).collect();
            let equal = vec![7u32; n];
            let ascending: Vec<u32> = (0..n as u32).map(|i| i * 3).collect();
            let descending: Vec<u32> = ascending.iter().rev().copied().collect();
            // Uniform f32 values in [0, 1) as keys: the top digit takes few values.
            let floats: Vec<u32> = (0..n).map(|_| rng.random::<f32>().to_bits() | 1 << 31).collect();
            for keys in [wide, few, equal, ascending, descending, floats] {
                check(&keys, &workers, false);
                check(&keys, &workers, true);
            }
            let wide64: Vec<u64> = (0..n).map(|_| rng.random::<u64>() >> rng.random_range(0..64)).collect();
            check(&wide64, &workers, false);
            let few64: Vec<u64> = (0..n).map(|_| rng.random_range(0..3u64) << 40 | 5).collect();
            check(&few64, &workers, false);
        }
    }

    #[test]
    fn stops_after_loading() {
        let workers = Workers::new(2).unwrap();
        for n in [10, 100_000] {
            let (mut out, mut scratch) = (vec![0u32; n], vec![0u32; n]);
            let finished = AtomicBool::new(false);
            let finish = |_: usize, _: &mut [u32]| finished.store(true, Ordering::Relaxed);
            // SAFETY: both buffers hold n items and are used by nothing else.
            let bufs = (out.as_mut_ptr(), scratch.as_mut_ptr());
            let sorted = unsafe { sort(n, |i| i as u32, |k| *k, bufs, finish, || true, &workers, false) };
            assert!(!sorted && !finished.into_inner());
        }
    }
}
