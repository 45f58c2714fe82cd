//! Host memory for array elements: 64-byte aligned buffers from a pool that reuses freed
//! allocations, with an optional limit on the bytes in use.

use std::alloc::{Layout as AllocLayout, alloc, dealloc};
use std::any::Any;
use std::ptr::NonNull;
use std::sync::Arc;

use parking_lot::Mutex;
use rustc_hash::FxHashMap as HashMap;

use crate::ir::{Error, ErrorKind, Result, Storage};

/// Alignment of host buffers, in bytes (a cache line; enough for any element and SIMD load).
pub const ALIGN: usize = 64;

/// Allocation sizes are rounded up to a class so freed buffers fit later requests:
/// multiples of 64 bytes up to 4 KiB, then four classes per power of two.
pub fn size_class(bytes: usize) -> usize {
    let bytes = bytes.max(ALIGN);
    if bytes <= 4096 {
        return bytes.div_ceil(ALIGN) * ALIGN;
    }
    let top = usize::BITS - 1 - bytes.leading_zeros();
    let quarter = 1usize << (top - 2);
    bytes.div_ceil(quarter) * quarter
}

struct PoolState {
    free: HashMap<usize, Vec<NonNull<u8>>>,
    /// Bytes in buffers handed out (by class size).
    live: usize,
    /// Bytes held in the free lists.
    cached: usize,
    limit: usize,
    cache_limit: usize,
    /// Buffers handed out, and the most bytes in use at once.
    allocations: u64,
    peak: usize,
}

// SAFETY: the raw pointers in the free lists are owned allocations, only touched under the mutex.
unsafe impl Send for PoolState {}

impl PoolState {
    fn note_alloc(&mut self, class: usize) {
        self.live += class;
        self.peak = self.peak.max(self.live);
        self.allocations += 1;
    }
}

/// Counters of a pool's use.
#[derive(Copy, Clone, Debug, Default)]
pub struct PoolStats {
    pub allocations: u64,
    pub live_bytes: usize,
    pub peak_bytes: usize,
}

pub struct HostPool {
    state: Mutex<PoolState>,
}

impl HostPool {
    /// `limit`: most bytes in use at once (`usize::MAX` for no limit).
    pub fn new(limit: usize) -> Arc<HostPool> {
        Arc::new(HostPool {
            state: Mutex::new(PoolState {
                free: HashMap::default(),
                live: 0,
                cached: 0,
                limit,
                cache_limit: (limit / 4).min(4 << 30),
                allocations: 0,
                peak: 0,
            }),
        })
    }

    /// A buffer of at least `bytes` bytes (contents unspecified).
    pub fn alloc(self: &Arc<Self>, bytes: usize) -> Result<HostBuffer> {
        let class = size_class(bytes);
        let mut st = self.state.lock();
        if let Some(ptr) = st.free.get_mut(&class).and_then(|v| v.pop()) {
            st.cached -= class;
            st.note_alloc(class);
            return Ok(HostBuffer { ptr, len: bytes, class, pool: self.clone() });
        }
        if st.live.saturating_add(class) > st.limit {
            return Err(oom(bytes, st.live, st.limit));
        }
        if st.live + st.cached + class > st.limit {
            Self::release_cached(&mut st);
        }
        let layout = AllocLayout::from_size_align(class, ALIGN).map_err(|_| oom(bytes, st.live, st.limit))?;
        // SAFETY: layout has nonzero size.
        let ptr = NonNull::new(unsafe { alloc(layout) }).ok_or_else(|| oom(bytes, st.live, st.limit))?;
        st.note_alloc(class);
        Ok(HostBuffer { ptr, len: bytes, class, pool: self.clone() })
    }

    fn give_back(&self, ptr: NonNull<u8>, class: usize) {
        let mut st = self.state.lock();
        st.live -= class;
        if st.cached + class <= st.cache_limit {
            st.cached += class;
            st.free.entry(class).or_default().push(ptr);
        } else {
            // SAFETY: allocated in `alloc` with this class size and alignment.
            unsafe { dealloc(ptr.as_ptr(), AllocLayout::from_size_align_unchecked(class, ALIGN)) };
        }
    }

    fn release_cached(st: &mut PoolState) {
        for (class, ptrs) in st.free.drain() {
            for p in ptrs {
                // SAFETY: as in `give_back`.
                unsafe { dealloc(p.as_ptr(), AllocLayout::from_size_align_unchecked(class, ALIGN)) };
            }
        }
        st.cached = 0;
    }

    /// Frees every cached buffer.
    pub fn trim(&self) {
        Self::release_cached(&mut self.state.lock());
    }

    pub fn live_bytes(&self) -> usize {
        self.state.lock().live
    }

    pub fn stats(&self) -> PoolStats {
        let st = self.state.lock();
        PoolStats { allocations: st.allocations, live_bytes: st.live, peak_bytes: st.peak }
    }
}

impl Drop for HostPool {
    fn drop(&mut self) {
        Self::release_cached(self.state.get_mut());
    }
}

fn oom(bytes: usize, live: usize, limit: usize) -> Error {
    let limit = if limit == usize::MAX { "none".to_string() } else { format!("{limit} bytes") };
    Error::new(
        ErrorKind::OutOfMemory,
        format!("out of memory allocating {bytes} bytes ({live} bytes in use, limit {limit})"),
    )
}

/// A block of host memory from the pool; returned to it when dropped.
pub struct HostBuffer {
    ptr: NonNull<u8>,
    len: usize,
    class: usize,
    pool: Arc<HostPool>,
}

// SAFETY: the buffer owns its allocation; writers synchronise through the runtime (a buffer
// is written only by the step that allocated it, before its value is published).
unsafe impl Send for HostBuffer {}
unsafe impl Sync for HostBuffer {}

impl HostBuffer {
    pub fn as_ptr(&self) -> *const u8 {
        self.ptr.as_ptr()
    }

    /// Pointer for the producer that fills the buffer before anyone else can see it.
    pub fn as_mut_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }
}

impl Drop for HostBuffer {
    fn drop(&mut self) {
        self.pool.give_back(self.ptr, self.class);
    }
}

impl Storage for HostBuffer {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn byte_len(&self) -> usize {
        self.len
    }

    fn host_bytes(&self) -> Option<&[u8]> {
        // SAFETY: the allocation is at least `len` bytes and lives as long as `self`.
        Some(unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_cover_requests() {
        for bytes in [0, 1, 63, 64, 65, 4096, 4097, 5000, 1 << 20, (1 << 20) + 1, 123_456_789] {
            let c = size_class(bytes);
            assert!(c >= bytes.max(1) && c.is_multiple_of(ALIGN), "{bytes} -> {c}");
            assert!(c <= bytes.max(ALIGN) + bytes / 4 + ALIGN, "{bytes} -> {c} wastes too much");
        }
    }

    #[test]
    fn reuse_and_limit() {
        let pool = HostPool::new(1 << 20);
        let a = pool.alloc(100_000).unwrap();
        let p = a.as_ptr();
        drop(a);
        let b = pool.alloc(100_000).unwrap();
        assert_eq!(b.as_ptr(), p, "freed buffer is reused");
        let err = pool.alloc(2 << 20).err().unwrap();
        assert_eq!(err.kind, ErrorKind::OutOfMemory);
        drop(b);
        assert_eq!(pool.live_bytes(), 0);
    }
}
