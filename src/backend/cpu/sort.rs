//! Sorts and searches (`Work::Sort`). Elements become unsigned keys whose integer order
//! is the sort order of `ir/sort.rs` (-0 and +0 one key, every NaN the largest key), so
//! one stable least-significant-digit radix sort serves every type and both directions.
//! A long line is sorted by all workers (per-block digit counts, then each block
//! scatters its elements to their places, so equal keys keep their order); short lines
//! are spread over the workers, each sorted on one thread.

use std::ops::Range;

use super::threads::Workers;
use crate::ir::{DType, MAX_RANK, Result, Shape, SortOp, Value, bail};

/// A line at least this long is sorted by all the workers together.
const PARALLEL_LINE: usize = 1 << 16;
/// Below this a line is sorted by comparisons (a radix pass costs 256 counters).
const RADIX_LINE: usize = 256;

/// An unsigned key: its bytes are the radix sort's digits.
trait Key: Copy + Ord + Send + Sync + std::ops::Not<Output = Self> + 'static {
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

/// An element type that sorts: its key in ascending order and back.
trait Sortable: Copy + Send + Sync + 'static {
    type K: Key;
    /// Whether NaNs take the largest key (floating-point types).
    const NAN_LAST: bool;
    fn key(self) -> Self::K;
    fn from_key(k: Self::K) -> Self;
    /// Whether `from_key(key(self))` has other bits than `self` (a -0, a NaN other than
    /// the one `from_key` makes): such a line is sorted with its positions and gathered.
    fn changed_by_key(self) -> bool;
}

macro_rules! float_sortable {
    ($t:ty, $k:ty) => {
        impl Sortable for $t {
            type K = $k;
            const NAN_LAST: bool = true;
            fn key(self) -> $k {
                const SIGN: $k = 1 << (<$k>::BITS - 1);
                if self.is_nan() {
                    return <$k>::MAX;
                }
                let b = if self == 0.0 { 0 } else { self.to_bits() };
                if b & SIGN != 0 { !b } else { b | SIGN }
            }
            fn from_key(k: $k) -> $t {
                const SIGN: $k = 1 << (<$k>::BITS - 1);
                if k == <$k>::MAX {
                    <$t>::NAN
                } else if k & SIGN != 0 {
                    <$t>::from_bits(k & !SIGN)
                } else {
                    <$t>::from_bits(!k)
                }
            }
            fn changed_by_key(self) -> bool {
                self.to_bits() != Self::from_key(self.key()).to_bits()
            }
        }
    };
}
float_sortable!(f32, u32);
float_sortable!(f64, u64);

macro_rules! int_sortable {
    ($t:ty, $k:ty, $flip:expr) => {
        impl Sortable for $t {
            type K = $k;
            const NAN_LAST: bool = false;
            fn key(self) -> $k {
                (self as $k) ^ $flip
            }
            fn from_key(k: $k) -> $t {
                (k ^ $flip) as $t
            }
            fn changed_by_key(self) -> bool {
                false
            }
        }
    };
}
int_sortable!(i32, u32, 1 << 31);
int_sortable!(i64, u64, 1 << 63);
int_sortable!(u8, u32, 0);

/// The key of `x` in the direction asked: descending complements every key but a NaN's.
fn directed<T: Sortable>(x: T, descending: bool) -> T::K {
    let k = x.key();
    if descending && !(T::NAN_LAST && k == T::K::MAX) { !k } else { k }
}

fn undirected<T: Sortable>(k: T::K, descending: bool) -> T {
    T::from_key(if descending && !(T::NAN_LAST && k == T::K::MAX) { !k } else { k })
}

/// A pointer the workers write through at disjoint places.
#[derive(Copy, Clone)]
struct Shared<T>(*mut T);
// SAFETY: every user writes places no other task writes, and the step waits for them.
unsafe impl<T> Send for Shared<T> {}
unsafe impl<T> Sync for Shared<T> {}

impl<T> Shared<T> {
    /// The pointer (a method, so closures capture the whole `Shared`).
    fn get(self) -> *mut T {
        self.0
    }
}

/// Sorts `items` stably by `key` (a `Key` of `bytes` digits), on all workers unless
/// `serial`. `scratch` is a second buffer of the same length.
fn radix_sort<T: Copy + Send + Sync, K: Key>(
    items: &mut Vec<T>,
    scratch: &mut Vec<T>,
    key: impl Fn(&T) -> K + Sync,
    workers: &Workers,
    serial: bool,
) {
    let n = items.len();
    if n < RADIX_LINE {
        items.sort_by_key(|x| key(x));
        return;
    }
    let blocks = if serial { 1 } else { (n / (PARALLEL_LINE / 4)).clamp(1, 64) };
    let block = |b: usize| -> Range<usize> { n * b / blocks..n * (b + 1) / blocks };
    let mut counts = vec![[0usize; 256]; blocks];
    for digit in 0..K::BYTES {
        let counted = Shared(counts.as_mut_ptr());
        let src = &items[..];
        workers.for_each(blocks, serial, |r| {
            for b in r {
                // SAFETY: block b's counters are written by this task only.
                let c = unsafe { &mut *counted.get().add(b) };
                *c = [0; 256];
                for x in &src[block(b)] {
                    c[key(x).byte(digit)] += 1;
                }
            }
        });
        // Every key with the same digit: the pass would move nothing.
        let total = |d: usize| counts.iter().map(|c| c[d]).sum::<usize>();
        if (0..256).any(|d| total(d) == n) {
            continue;
        }
        // Block b's elements with digit d go after every smaller digit's and after the
        // earlier blocks' elements with digit d.
        let mut start = 0;
        for d in 0..256 {
            for c in counts.iter_mut() {
                let k = c[d];
                c[d] = start;
                start += k;
            }
        }
        let dst = Shared(scratch.as_mut_ptr());
        let places = Shared(counts.as_mut_ptr());
        workers.for_each(blocks, serial, |r| {
            for b in r {
                // SAFETY: block b's places are this task's; they are disjoint from every
                // other block's, and all lie below n.
                let place = unsafe { &mut *places.get().add(b) };
                for x in &src[block(b)] {
                    let d = key(x).byte(digit);
                    unsafe { *dst.get().add(place[d]) = *x };
                    place[d] += 1;
                }
            }
        });
        std::mem::swap(items, scratch);
    }
}

/// Where a line's elements are: its first element's storage offset and the stride along
/// it, in elements.
#[derive(Copy, Clone)]
struct Line {
    start: i64,
    stride: i64,
}

/// The lines along `dim` of an array of `shape` laid out with `offset` and `strides`, in
/// column-major order of the other dimensions.
fn lines(shape: &Shape, dim: usize, offset: i64, strides: &[i64; MAX_RANK]) -> impl Iterator<Item = Line> {
    let shape = *shape;
    let others = shape.with_dim(dim, 1);
    let strides = *strides;
    (0..others.numel()).map(move |l| {
        let at = others.unravel(l);
        let start = offset + (0..shape.rank()).map(|d| at[d] as i64 * strides[d]).sum::<i64>();
        Line { start, stride: strides[dim] }
    })
}

/// Typed views of a step's host storage.
fn host<T>(v: &Value) -> Result<*mut T> {
    match v.storage.host_bytes() {
        Some(b) => Ok(b.as_ptr() as *mut T),
        None => bail!(Internal, "sort operand is not in host memory"),
    }
}

/// What a line's sort writes: its values, or the positions they came from.
#[derive(Copy, Clone)]
enum Give {
    Values,
    Positions,
}

/// Sorts one line of `n` elements of `src` at `line` into `out` at `out_line`.
///
/// SAFETY: the lines lie inside their storages; no other task writes `out`'s line.
unsafe fn sort_line<T: Sortable>(
    (src, line): (*const T, Line),
    n: usize,
    out: (Shared<u8>, Line),
    give: Give,
    descending: bool,
    workers: &Workers,
    serial: bool,
) {
    let at = |i: usize| unsafe { *src.offset((line.start + i as i64 * line.stride) as isize) };
    let (out, out_line) = out;
    let place = |i: usize| (out_line.start + i as i64 * out_line.stride) as usize;
    let changed = matches!(give, Give::Values) && T::NAN_LAST && (0..n).any(|i| at(i).changed_by_key());
    if matches!(give, Give::Values) && !changed {
        let mut keys: Vec<T::K> = (0..n).map(|i| directed(at(i), descending)).collect();
        let mut scratch = keys.clone();
        radix_sort(&mut keys, &mut scratch, |k| *k, workers, serial);
        let out = out.get() as *mut T;
        for (i, k) in keys.into_iter().enumerate() {
            unsafe { *out.add(place(i)) = undirected(k, descending) };
        }
        return;
    }
    let mut pairs: Vec<(T::K, u64)> = (0..n).map(|i| (directed(at(i), descending), i as u64)).collect();
    let mut scratch = pairs.clone();
    radix_sort(&mut pairs, &mut scratch, |p| p.0, workers, serial);
    for (i, (_, from)) in pairs.into_iter().enumerate() {
        match give {
            Give::Values => unsafe { *(out.get() as *mut T).add(place(i)) = at(from as usize) },
            Give::Positions => unsafe { *(out.get() as *mut i64).add(place(i)) = from as i64 },
        }
    }
}

fn sort_typed<T: Sortable>(
    shape: &Shape,
    dim: usize,
    give: Give,
    descending: bool,
    input: &Value,
    out: &Value,
    workers: &Workers,
) -> Result<()> {
    let n = shape.dim(dim);
    if shape.numel() == 0 {
        return Ok(());
    }
    let src = host::<T>(input)? as *const T;
    let dst = Shared(host::<u8>(out)?);
    let ins: Vec<Line> = lines(shape, dim, input.layout.offset, &input.layout.strides).collect();
    let outs: Vec<Line> = lines(shape, dim, 0, &shape.dense_strides()).collect();
    let src = Shared(src as *mut T);
    if n >= PARALLEL_LINE {
        for (l, o) in ins.iter().zip(&outs) {
            // SAFETY: the layouts stay inside their storages; lines do not overlap.
            unsafe { sort_line((src.get(), *l), n, (dst, *o), give, descending, workers, false) };
        }
        return Ok(());
    }
    let serial = shape.numel() < 1 << 14;
    workers.for_each(ins.len(), serial, |r| {
        for l in r {
            // SAFETY: as above; each task writes its own lines.
            unsafe { sort_line((src.get(), ins[l]), n, (dst, outs[l]), give, descending, workers, true) };
        }
    });
    Ok(())
}

/// For each element of `v`: how many elements of the ascending vector `sorted` come
/// before it (`right`: before or equal), in the sort order.
fn search_typed<T: Sortable>(
    shapes: (&Shape, &Shape),
    right: bool,
    sorted: &Value,
    v: &Value,
    out: &Value,
    workers: &Workers,
) -> Result<()> {
    let (s_shape, v_shape) = shapes;
    let s = host::<T>(sorted)? as *const T;
    let (so, ss) = (sorted.layout.offset, sorted.layout.strides[0]);
    // SAFETY: the layout stays inside the storage.
    let keys: Vec<T::K> =
        (0..s_shape.dim(0)).map(|i| unsafe { *s.offset((so + i as i64 * ss) as isize) }.key()).collect();
    let src = Shared(host::<T>(v)?);
    let dst = Shared(host::<i64>(out)?);
    let layout = v.layout;
    let offsets: Vec<i64> = (0..v_shape.numel())
        .map(|i| {
            let at = v_shape.unravel(i);
            layout.offset + (0..v_shape.rank()).map(|d| at[d] as i64 * layout.strides[d]).sum::<i64>()
        })
        .collect();
    workers.for_each(offsets.len(), offsets.len() < 1 << 12, |r| {
        for i in r {
            // SAFETY: offsets come from the layout; each task writes its own elements.
            let k = unsafe { *src.get().offset(offsets[i] as isize) }.key();
            let count = if right { keys.partition_point(|&x| x <= k) } else { keys.partition_point(|&x| x < k) };
            unsafe { *dst.get().add(i) = count as i64 };
        }
    });
    Ok(())
}

/// Runs a `Work::Sort` step: `shapes` are the inputs', `inputs` their values.
pub fn sort(
    op: SortOp,
    dtype: DType,
    shapes: &[Shape],
    inputs: &[Value],
    out: &Value,
    workers: &Workers,
) -> Result<()> {
    macro_rules! typed {
        ($t:ty) => {
            match op {
                SortOp::Sort { dim, descending } => {
                    sort_typed::<$t>(&shapes[0], dim as usize, Give::Values, descending, &inputs[0], out, workers)
                }
                SortOp::ArgSort { dim, descending } => {
                    sort_typed::<$t>(&shapes[0], dim as usize, Give::Positions, descending, &inputs[0], out, workers)
                }
                SortOp::SearchSorted { right } => {
                    search_typed::<$t>((&shapes[0], &shapes[1]), right, &inputs[0], &inputs[1], out, workers)
                }
            }
        };
    }
    match dtype {
        DType::F32 => typed!(f32),
        DType::F64 => typed!(f64),
        DType::I32 => typed!(i32),
        DType::I64 => typed!(i64),
        // A bool is a byte holding 0 or 1: it sorts as one.
        DType::U8 | DType::Bool => typed!(u8),
        DType::C64 | DType::C128 => bail!(DTypeMismatch, "{} is not defined for {dtype} arrays", op.name()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_order_as_the_sort_order() {
        let xs = [f32::NEG_INFINITY, -2.5, -0.0, 0.0, 1e-45, 3.0, f32::INFINITY, f32::NAN, -f32::NAN];
        for w in xs.windows(2) {
            assert!(w[0].key() <= w[1].key(), "{} {}", w[0], w[1]);
        }
        assert_eq!((-0.0f32).key(), 0.0f32.key());
        assert_eq!(f32::NAN.key(), (-f32::NAN).key());
        for x in [-2.5f64, 0.0, 7.0, f64::INFINITY] {
            assert_eq!(f64::from_key(x.key()), x);
            assert_eq!(undirected::<f64>(directed(x, true), true), x);
        }
        assert!(directed(f32::NAN, true) > directed(f32::INFINITY, true));
        assert!(directed(-5i32, false) < directed(3i32, false));
        assert!(directed(-5i64, true) > directed(3i64, true));
    }
}
