//! Host memory for array elements: 64-byte aligned buffers from a pool that reuses freed
//! allocations, with a limit on the bytes in use: `SLUICE_MEMORY_LIMIT`, or what the
//! system can hold (`system_memory`). A large allocation is also refused when the system
//! has not that much memory available at the time (`available_memory`): the allocator
//! reserves address space without committing it, so an allocation the system cannot back
//! would otherwise succeed and the process be killed while writing it.

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
/// multiples of 64 bytes up to 4 KiB, then four classes per power of two. `None` when the
/// class would not fit in a `usize`.
pub fn size_class(bytes: usize) -> Option<usize> {
    let bytes = bytes.max(ALIGN);
    if bytes <= 4096 {
        return Some(bytes.div_ceil(ALIGN) * ALIGN);
    }
    let top = usize::BITS - 1 - bytes.leading_zeros();
    let quarter = 1usize << (top - 2);
    bytes.div_ceil(quarter).checked_mul(quarter)
}

/// Bytes of memory this process can have: physical memory, or its control group's limit
/// where that is lower (cgroup v2 `memory.max`, v1 `memory.limit_in_bytes`, of the
/// process's group and the groups above it).
pub fn system_memory() -> usize {
    // SAFETY: sysconf has no preconditions.
    let (pages, page) = unsafe { (libc::sysconf(libc::_SC_PHYS_PAGES), libc::sysconf(libc::_SC_PAGESIZE)) };
    let physical = if pages > 0 && page > 0 { (pages as usize).saturating_mul(page as usize) } else { usize::MAX };
    physical.min(cgroup_limit().unwrap_or(usize::MAX))
}

/// The lowest memory limit of the control groups this process is in (and their parents).
fn cgroup_limit() -> Option<usize> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let mut lowest: Option<usize> = None;
    for line in groups.lines() {
        let mut fields = line.splitn(3, ':');
        let (Some(id), Some(controllers), Some(path)) = (fields.next(), fields.next(), fields.next()) else { continue };
        let (mount, file) = if id == "0" && controllers.is_empty() {
            ("/sys/fs/cgroup", "memory.max")
        } else if controllers.split(',').any(|c| c == "memory") {
            ("/sys/fs/cgroup/memory", "memory.limit_in_bytes")
        } else {
            continue;
        };
        // The group's directory and those above it, up to the mount point (which is the
        // group itself where the cgroup namespace hides the path).
        let mut dir = std::path::Path::new(mount).join(path.trim_start_matches('/'));
        loop {
            let limit = std::fs::read_to_string(dir.join(file)).ok().and_then(|v| v.trim().parse::<usize>().ok());
            if let Some(l) = limit {
                lowest = Some(lowest.map_or(l, |x| x.min(l)));
            }
            if dir.as_os_str() == mount || !dir.pop() {
                break;
            }
        }
    }
    lowest
}

/// Bytes the system could provide now without killing anything: `MemAvailable` plus free
/// swap (`/proc/meminfo`); `None` where that cannot be read.
pub fn available_memory() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let field = |name: &str| {
        info.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<usize>().ok())
            .map(|kb| kb.saturating_mul(1024))
    };
    Some(field("MemAvailable")?.saturating_add(field("SwapFree").unwrap_or(0)))
}

/// Fresh allocations of at least this many bytes are checked against `available_memory`
/// (reading it costs microseconds; writing this much memory, milliseconds).
const CHECK_AVAILABLE: usize = 256 << 20;

/// Where a pool's limit comes from, for messages.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum LimitSource {
    /// `SLUICE_MEMORY_LIMIT` (or `sl_config.memory_limit`).
    Set,
    /// `system_memory`, as no limit was set.
    System,
}

struct PoolState {
    free: HashMap<usize, Vec<NonNull<u8>>>,
    /// Bytes in buffers handed out (by class size).
    live: usize,
    /// Bytes held in the free lists.
    cached: usize,
    /// Bytes of `live` that are reservations.
    reserved: usize,
    limit: usize,
    source: LimitSource,
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
    /// `limit`: most bytes in use at once (`usize::MAX`: not set, so what the system can
    /// hold, `system_memory`).
    pub fn new(limit: usize) -> Arc<HostPool> {
        let (limit, source) =
            if limit == usize::MAX { (system_memory(), LimitSource::System) } else { (limit, LimitSource::Set) };
        Arc::new(HostPool {
            state: Mutex::new(PoolState {
                free: HashMap::default(),
                live: 0,
                cached: 0,
                reserved: 0,
                limit,
                source,
                cache_limit: (limit / 4).min(4 << 30),
                allocations: 0,
                peak: 0,
            }),
        })
    }

    /// A buffer of at least `bytes` bytes (contents unspecified).
    pub fn alloc(self: &Arc<Self>, bytes: usize) -> Result<HostBuffer> {
        let mut st = self.state.lock();
        let Some(class) = size_class(bytes) else { return Err(st.oom(bytes)) };
        if let Some(ptr) = st.free.get_mut(&class).and_then(|v| v.pop()) {
            st.cached -= class;
            st.note_alloc(class);
            return Ok(HostBuffer { ptr, len: bytes, class, pool: self.clone() });
        }
        if st.live.saturating_add(class) > st.limit {
            return Err(st.oom(bytes));
        }
        if st.live + st.cached + class > st.limit {
            Self::release_cached(&mut st);
        }
        if class >= CHECK_AVAILABLE
            && let Some(available) = available_memory().filter(|&a| a < class)
        {
            return Err(Error::new(
                ErrorKind::OutOfMemory,
                format!(
                    "out of memory allocating {bytes} bytes: the system has {available} bytes available \
                     ({} bytes in use by arrays)",
                    st.live
                ),
            ));
        }
        let layout = AllocLayout::from_size_align(class, ALIGN).map_err(|_| st.oom(bytes))?;
        // SAFETY: layout has nonzero size.
        let ptr = NonNull::new(unsafe { alloc(layout) }).ok_or_else(|| st.oom(bytes))?;
        st.note_alloc(class);
        Ok(HostBuffer { ptr, len: bytes, class, pool: self.clone() })
    }

    /// Counts `bytes` as in use until the reservation is dropped, for memory allocated
    /// elsewhere that the limit covers too (result comparison's reference values).
    /// Reservations together stay within half the limit, so the arrays keep the rest.
    pub fn reserve(self: &Arc<Self>, bytes: usize) -> Result<Reservation> {
        let mut st = self.state.lock();
        if st.reserved.saturating_add(bytes) > st.limit / 2 {
            return Err(Error::new(
                ErrorKind::OutOfMemory,
                format!(
                    "{bytes} bytes more would take reference values beyond half the memory limit ({} of {} bytes: {})",
                    st.reserved,
                    st.limit,
                    st.source.name()
                ),
            ));
        }
        if st.live.saturating_add(bytes) > st.limit {
            return Err(st.oom(bytes));
        }
        if st.live + st.cached + bytes > st.limit {
            Self::release_cached(&mut st);
        }
        st.live += bytes;
        st.reserved += bytes;
        st.peak = st.peak.max(st.live);
        Ok(Reservation { bytes, pool: self.clone() })
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

impl LimitSource {
    fn name(self) -> &'static str {
        match self {
            LimitSource::Set => "SLUICE_MEMORY_LIMIT",
            LimitSource::System => "the system's memory, as SLUICE_MEMORY_LIMIT is not set",
        }
    }
}

impl PoolState {
    fn oom(&self, bytes: usize) -> Error {
        Error::new(
            ErrorKind::OutOfMemory,
            format!(
                "out of memory allocating {bytes} bytes ({} bytes in use, limit {} bytes: {})",
                self.live,
                self.limit,
                self.source.name()
            ),
        )
    }
}

/// Bytes counted as in use (`HostPool::reserve`) until dropped.
pub struct Reservation {
    bytes: usize,
    pool: Arc<HostPool>,
}

impl Drop for Reservation {
    fn drop(&mut self) {
        let mut st = self.pool.state.lock();
        st.live -= self.bytes;
        st.reserved -= self.bytes;
    }
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
            let c = size_class(bytes).unwrap();
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
        assert!(size_class(usize::MAX - 5).is_none(), "a class beyond usize");
        let held = pool.reserve(400_000).unwrap();
        assert_eq!(pool.live_bytes(), 400_000);
        let err = pool.reserve(200_000).err().unwrap();
        assert!(err.kind == ErrorKind::OutOfMemory && err.message.contains("half"), "beyond half the limit");
        drop(held);
        let held = pool.reserve(100_000).unwrap();
        let a = pool.alloc(700_000).unwrap();
        let err = pool.reserve(200_000).err().unwrap();
        assert!(err.kind == ErrorKind::OutOfMemory && !err.message.contains("half"), "beyond the limit");
        drop((held, a));
        assert_eq!(pool.live_bytes(), 0);
        let err = pool.alloc(usize::MAX - 5).err().unwrap();
        assert_eq!(err.kind, ErrorKind::OutOfMemory);
    }

    /// Without a limit, the pool's is what the system can hold: an allocation beyond it
    /// is refused, not overcommitted.
    #[test]
    fn default_limit_is_the_systems() {
        let system = system_memory();
        assert!(system > 0 && system < usize::MAX, "{system}");
        let pool = HostPool::new(usize::MAX);
        let err = pool.alloc(system.saturating_add(1 << 20)).err().unwrap();
        assert_eq!(err.kind, ErrorKind::OutOfMemory);
        assert!(err.message.contains("SLUICE_MEMORY_LIMIT is not set"), "{}", err.message);
        assert!(available_memory().is_some_and(|a| a > 0));
    }
}
