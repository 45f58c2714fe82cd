//! Sorts and searches (`Work::Sort`). Elements become unsigned keys whose integer order
//! is the sort order of `ir/sort.rs` (-0 and +0 one key, every NaN the largest key), so
//! one stable radix sort (`radix.rs`) serves every type and both directions. A long line
//! is sorted by all workers; short lines are spread over the workers, each sorted on one
//! thread. Values are sorted as bare keys, in the output's own memory where a value is as
//! large as its key and the line is contiguous; argsorts, and lines holding a value its
//! key does not give back (a -0, a NaN's other bits), sort (key, position) pairs.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::Mutex;

use super::elem::with_elem;
use super::radix::{self, Key, Shared};
use super::threads::Workers;
use crate::exec::memory::{HostBuffer, HostPool};
use crate::ir::{DType, MAX_RANK, Result, Shape, SortOp, Storage, Value, bail};

/// A line at least this long is sorted by all the workers together.
const PARALLEL_LINE: usize = 1 << 16;

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
                const SIGN: $k = 1 << (<$k>::BITS - 1);
                let b = self.to_bits();
                b == SIGN || (self.is_nan() && b != <$t>::NAN.to_bits())
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
int_sortable!(i8, u32, 1 << 31);
int_sortable!(i16, u32, 1 << 31);
int_sortable!(u16, u32, 0);
int_sortable!(u32, u32, 0);
int_sortable!(u64, u64, 0);

/// The key of `x` in the direction asked: descending complements every key but a NaN's.
fn directed<T: Sortable>(x: T, descending: bool) -> T::K {
    let k = x.key();
    if descending && !(T::NAN_LAST && k == T::K::MAX) { !k } else { k }
}

fn undirected<T: Sortable>(k: T::K, descending: bool) -> T {
    T::from_key(if descending && !(T::NAN_LAST && k == T::K::MAX) { !k } else { k })
}

/// Rewrites sorted keys as the values they stand for, in place.
fn keys_to_values<T: Sortable>(run: &mut [T::K], descending: bool) {
    assert!(size_of::<T>() == size_of::<T::K>() && align_of::<T>() == align_of::<T::K>());
    let p = run.as_mut_ptr();
    for i in 0..run.len() {
        // SAFETY: a value has its key's size and alignment, so value i takes key i's
        // place, written after key i is read.
        unsafe { p.add(i).cast::<T>().write(undirected(p.add(i).read(), descending)) };
    }
}

/// Scratch memory for one task's line sorts: two buffers from the pool (reused between
/// calls, and counted against the memory limit), kept from one line to the next.
struct Room<'a> {
    memory: &'a Arc<HostPool>,
    held: [Option<HostBuffer>; 2],
}

impl Room<'_> {
    fn new(memory: &Arc<HostPool>) -> Room<'_> {
        Room { memory, held: [None, None] }
    }

    /// Buffer `which` (0 or 1) of the line, for `n` items of `X`.
    fn buffer<X>(&mut self, which: usize, n: usize) -> Result<*mut X> {
        let Some(bytes) = n.checked_mul(size_of::<X>()) else {
            bail!(OutOfMemory, "the scratch memory of a sort of {n} elements does not fit in memory")
        };
        let held = &mut self.held[which];
        if held.as_ref().is_none_or(|b| b.byte_len() < bytes) {
            // Given back before the larger one is taken.
            *held = None;
            *held = Some(self.memory.alloc(bytes)?);
        }
        Ok(held.as_ref().map_or(std::ptr::null_mut(), |b| b.as_mut_ptr() as *mut X))
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

/// Sorts one line of `n` elements of `src` at `line` into `out` at `out_line`, with
/// scratch memory from `room`.
///
/// SAFETY: the lines lie inside their storages; no other task writes `out`'s line.
unsafe fn sort_line<T: Sortable>(
    (src, line): (Shared<T>, Line),
    n: usize,
    (out, out_line): (Shared<u8>, Line),
    (give, descending): (Give, bool),
    room: &mut Room,
    workers: &Workers,
    serial: bool,
) -> Result<()> {
    let at = |i: usize| unsafe { *src.get().offset((line.start + i as i64 * line.stride) as isize) };
    let place = |i: usize| (out_line.start + i as i64 * out_line.stride) as usize;
    if matches!(give, Give::Values) {
        let changed = AtomicBool::new(false);
        let load = |i: usize| {
            let x = at(i);
            if T::NAN_LAST && x.changed_by_key() {
                changed.store(true, Ordering::Relaxed);
            }
            directed(x, descending)
        };
        let stop = || changed.load(Ordering::Relaxed);
        let sorted = if out_line.stride == 1 && size_of::<T>() == size_of::<T::K>() {
            // SAFETY: the line's n places in the output are this task's.
            let keys = unsafe { (out.get() as *mut T).add(out_line.start as usize) } as *mut T::K;
            let finish = |_: usize, run: &mut [T::K]| keys_to_values::<T>(run, descending);
            // SAFETY: the scratch buffer is this line's, n keys long, like the output's line.
            unsafe { radix::sort(n, load, |k| *k, (keys, room.buffer(0, n)?), finish, stop, workers, serial) }
        } else {
            let finish = |start: usize, run: &mut [T::K]| {
                for (i, &k) in run.iter().enumerate() {
                    // SAFETY: the run's places are within the line, which is this task's.
                    unsafe { *(out.get() as *mut T).add(place(start + i)) = undirected(k, descending) };
                }
            };
            let bufs = (room.buffer(0, n)?, room.buffer(1, n)?);
            // SAFETY: the buffers are this line's, n keys each.
            unsafe { radix::sort(n, load, |k| *k, bufs, finish, stop, workers, serial) }
        };
        if sorted {
            return Ok(());
        }
    }
    let finish = |start: usize, run: &mut [(T::K, u64)]| {
        for (i, &(_, from)) in run.iter().enumerate() {
            // SAFETY: as above; `from` is a place of the input line.
            match give {
                Give::Values => unsafe { *(out.get() as *mut T).add(place(start + i)) = at(from as usize) },
                Give::Positions => unsafe { *(out.get() as *mut i64).add(place(start + i)) = from as i64 },
            }
        }
    };
    let load = |i: usize| (directed(at(i), descending), i as u64);
    let bufs = (room.buffer(0, n)?, room.buffer(1, n)?);
    // SAFETY: the buffers are this line's, n pairs each.
    unsafe { radix::sort(n, load, |p| p.0, bufs, finish, || false, workers, serial) };
    Ok(())
}

fn sort_typed<T: Sortable>(
    shape: &Shape,
    dim: usize,
    order: (Give, bool),
    (input, out): (&Value, &Value),
    workers: &Workers,
    memory: &Arc<HostPool>,
) -> Result<()> {
    let n = shape.dim(dim);
    if shape.numel() == 0 {
        return Ok(());
    }
    let src = Shared(host::<T>(input)?);
    let dst = Shared(host::<u8>(out)?);
    let ins: Vec<Line> = lines(shape, dim, input.layout.offset, &input.layout.strides).collect();
    let outs: Vec<Line> = lines(shape, dim, 0, &shape.dense_strides()).collect();
    if n >= PARALLEL_LINE {
        let mut room = Room::new(memory);
        for (l, o) in ins.iter().zip(&outs) {
            // SAFETY: the layouts stay inside their storages; lines do not overlap.
            unsafe { sort_line((src, *l), n, (dst, *o), order, &mut room, workers, false)? };
        }
        return Ok(());
    }
    let serial = shape.numel() < 1 << 14;
    let failed = Mutex::new(None);
    workers.for_each(ins.len(), serial, |r| {
        let mut room = Room::new(memory);
        for l in r {
            // SAFETY: as above; each task writes its own lines.
            if let Err(e) = unsafe { sort_line((src, ins[l]), n, (dst, outs[l]), order, &mut room, workers, true) } {
                failed.lock().get_or_insert(e);
                return;
            }
        }
    });
    failed.into_inner().map_or(Ok(()), Err)
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

/// Runs a `Work::Sort` step: `shapes` are the inputs', `inputs` their values; scratch
/// memory comes from `memory`.
pub fn sort(
    op: SortOp,
    dtype: DType,
    (shapes, inputs): (&[Shape], &[Value]),
    out: &Value,
    workers: &Workers,
    memory: &Arc<HostPool>,
) -> Result<()> {
    macro_rules! typed {
        ($t:ty) => {
            match op {
                SortOp::Sort { dim, descending } => {
                    let order = (Give::Values, descending);
                    sort_typed::<$t>(&shapes[0], dim as usize, order, (&inputs[0], out), workers, memory)
                }
                SortOp::ArgSort { dim, descending } => {
                    let order = (Give::Positions, descending);
                    sort_typed::<$t>(&shapes[0], dim as usize, order, (&inputs[0], out), workers, memory)
                }
                SortOp::SearchSorted { right } => {
                    search_typed::<$t>((&shapes[0], &shapes[1]), right, &inputs[0], &inputs[1], out, workers)
                }
            }
        };
    }
    if dtype.is_complex() {
        bail!(DTypeMismatch, "{} is not defined for {dtype} arrays", op.name());
    }
    // A bool is a byte holding 0 or 1: it sorts as a u8.
    with_elem!(dtype, T => typed!(T))
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
