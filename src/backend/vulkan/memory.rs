//! Device memory from gpu-allocator: buffers pooled by size class, device-local array
//! storage, and host-visible staging for transfers.

use std::any::Any;
use std::collections::HashMap;
use std::sync::Arc;

use ash::vk;
use gpu_allocator::MemoryLocation;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme, Allocator, AllocatorCreateDesc};
use parking_lot::Mutex;

use super::device::{Context, check, checked};
use crate::exec::memory::{HostBuffer, PoolStats, size_class};
use crate::ir::{Error, ErrorKind, Result, Storage};

/// A Vulkan buffer with its memory.
struct Raw {
    buffer: vk::Buffer,
    alloc: Allocation,
}

/// What a buffer is for, which decides its memory type.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Use {
    /// Array elements, in device-local memory.
    Array,
    /// Host-written data the device reads (staging for uploads, launch words).
    Upload,
    /// Device results the host reads back.
    Download,
}

impl Use {
    fn location(self) -> MemoryLocation {
        match self {
            Use::Array => MemoryLocation::GpuOnly,
            Use::Upload => MemoryLocation::CpuToGpu,
            Use::Download => MemoryLocation::GpuToCpu,
        }
    }
}

struct Pool {
    free: HashMap<(u64, Use), Vec<Raw>>,
    cached: u64,
    /// Bytes of array buffers handed out, and the most allowed.
    live: u64,
    limit: u64,
    /// Array buffers handed out, and the most bytes of them in use at once.
    allocations: u64,
    peak: u64,
}

impl Pool {
    /// Counts a buffer handed out (its bytes are already in `live`).
    fn handed_out(&mut self, usage: Use) {
        if usage == Use::Array {
            self.allocations += 1;
            self.peak = self.peak.max(self.live);
        }
    }
}

/// Buffers for one device; freed buffers are kept for reuse up to a cache limit.
pub struct Memory {
    ctx: Arc<Context>,
    allocator: Mutex<Option<Allocator>>,
    pool: Mutex<Pool>,
}

/// Bytes of freed buffers kept for reuse.
const CACHE_LIMIT: u64 = 512 << 20;

impl Memory {
    /// `limit`: most bytes of array buffers in use at once (no more than the device's
    /// largest device-local heap holds).
    pub fn new(ctx: Arc<Context>, limit: u64) -> Result<Arc<Memory>> {
        // SAFETY: a physical device of this instance.
        let props = unsafe { ctx.instance.get_physical_device_memory_properties(ctx.physical) };
        let heaps = &props.memory_heaps[..props.memory_heap_count as usize];
        let device_local = heaps.iter().filter(|h| h.flags.contains(vk::MemoryHeapFlags::DEVICE_LOCAL)).map(|h| h.size);
        let limit = device_local.max().map_or(limit, |heap| limit.min(heap));
        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: ctx.instance.clone(),
            device: ctx.device.clone(),
            physical_device: ctx.physical,
            debug_settings: Default::default(),
            buffer_device_address: false,
            allocation_sizes: Default::default(),
        })
        .map_err(|e| Error::new(ErrorKind::Internal, format!("gpu-allocator: {e}")))?;
        Ok(Arc::new(Memory {
            ctx,
            allocator: Mutex::new(Some(allocator)),
            pool: Mutex::new(Pool { free: HashMap::new(), cached: 0, live: 0, limit, allocations: 0, peak: 0 }),
        }))
    }

    /// A buffer of at least `bytes` bytes for `usage`.
    pub fn buffer(self: &Arc<Self>, bytes: usize, usage: Use) -> Result<PoolBuffer> {
        let oom = |live: u64, limit: u64| {
            Error::new(
                ErrorKind::OutOfMemory,
                format!("out of memory allocating {bytes} bytes of device memory ({live} bytes in use, limit {limit})"),
            )
        };
        let Some(class) = size_class(bytes.max(16)).map(|c| c as u64) else {
            let p = self.pool.lock();
            return Err(oom(p.live, p.limit));
        };
        if let Some(raw) = {
            let mut p = self.pool.lock();
            if usage == Use::Array {
                if p.live.saturating_add(class) > p.limit {
                    return Err(oom(p.live, p.limit));
                }
                p.live += class;
            }
            let r = p.free.get_mut(&(class, usage)).and_then(|v| v.pop());
            if r.is_some() {
                p.cached -= class;
                p.handed_out(usage);
            }
            r
        } {
            return Ok(PoolBuffer { raw: Some(raw), size: class, usage, mem: self.clone() });
        }
        let raw = self.create(class, usage).or_else(|e| {
            // Freed buffers may be what is in the way.
            self.trim();
            self.create(class, usage).map_err(|_| e)
        });
        let raw = match raw {
            Ok(r) => r,
            Err(e) => {
                if usage == Use::Array {
                    self.pool.lock().live -= class;
                }
                return Err(e);
            }
        };
        self.pool.lock().handed_out(usage);
        Ok(PoolBuffer { raw: Some(raw), size: class, usage, mem: self.clone() })
    }

    /// Whether an array buffer of `bytes` could be had by freeing others: not when it
    /// alone is beyond the limit.
    pub fn could_fit(&self, bytes: usize) -> bool {
        size_class(bytes.max(16)).is_some_and(|c| c as u64 <= self.pool.lock().limit)
    }

    /// Counters of the array buffers (device memory).
    pub fn stats(&self) -> PoolStats {
        let p = self.pool.lock();
        PoolStats { allocations: p.allocations, live_bytes: p.live as usize, peak_bytes: p.peak as usize }
    }

    fn create(&self, size: u64, purpose: Use) -> Result<Raw> {
        let d = &self.ctx.device;
        let usage = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST;
        let info = vk::BufferCreateInfo::default().size(size).usage(usage).sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: valid create info on a live device.
        let buffer = checked("creating a buffer", unsafe { d.create_buffer(&info, None) })?;
        let requirements = unsafe { d.get_buffer_memory_requirements(buffer) };
        let location = purpose.location();
        let alloc =
            self.allocator.lock().as_mut().expect("allocator lives until drop").allocate(&AllocationCreateDesc {
                name: "sluice",
                requirements,
                location,
                linear: true,
                allocation_scheme: AllocationScheme::GpuAllocatorManaged,
            });
        let alloc = match alloc {
            Ok(a) => a,
            Err(e) => {
                unsafe { d.destroy_buffer(buffer, None) };
                return Err(Error::new(
                    ErrorKind::OutOfMemory,
                    format!("out of device memory allocating {size} bytes ({e})"),
                ));
            }
        };
        // SAFETY: the allocation satisfies the buffer's requirements.
        if let Err(e) =
            check("binding buffer memory", unsafe { d.bind_buffer_memory(buffer, alloc.memory(), alloc.offset()) })
        {
            self.destroy(Raw { buffer, alloc });
            return Err(e);
        }
        Ok(Raw { buffer, alloc })
    }

    fn destroy(&self, raw: Raw) {
        // SAFETY: the buffer is no longer used by any command (runs wait for completion).
        unsafe { self.ctx.device.destroy_buffer(raw.buffer, None) };
        if let Some(a) = self.allocator.lock().as_mut() {
            let _ = a.free(raw.alloc);
        }
    }

    fn give_back(&self, raw: Raw, size: u64, usage: Use) {
        let mut p = self.pool.lock();
        if usage == Use::Array {
            p.live -= size;
        }
        if p.cached + size <= CACHE_LIMIT {
            p.cached += size;
            p.free.entry((size, usage)).or_default().push(raw);
        } else {
            drop(p);
            self.destroy(raw);
        }
    }

    /// Frees every cached buffer.
    pub fn trim(&self) {
        let free: Vec<Raw> = {
            let mut p = self.pool.lock();
            p.cached = 0;
            p.free.drain().flat_map(|(_, v)| v).collect()
        };
        for raw in free {
            self.destroy(raw);
        }
    }
}

impl Drop for Memory {
    fn drop(&mut self) {
        self.trim();
        drop(self.allocator.lock().take());
    }
}

/// A buffer from the pool, returned to it when dropped.
pub struct PoolBuffer {
    raw: Option<Raw>,
    size: u64,
    usage: Use,
    mem: Arc<Memory>,
}

impl PoolBuffer {
    pub fn handle(&self) -> vk::Buffer {
        self.raw.as_ref().expect("live buffer").buffer
    }

    /// Bytes in the buffer (at least what was asked for).
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The mapped bytes of a host-visible buffer, to read.
    pub fn mapped_bytes(&self) -> &[u8] {
        let a = &self.raw.as_ref().expect("live buffer").alloc;
        &a.mapped_slice().expect("staging buffers are host-visible and mapped")[..self.size as usize]
    }

    /// The mapped bytes of a host-visible buffer.
    pub fn mapped(&mut self) -> &mut [u8] {
        let size = self.size as usize;
        let a = &mut self.raw.as_mut().expect("live buffer").alloc;
        let s = a.mapped_slice_mut().expect("staging buffers are host-visible and mapped");
        &mut s[..size]
    }
}

impl Drop for PoolBuffer {
    fn drop(&mut self) {
        if let Some(raw) = self.raw.take() {
            self.mem.give_back(raw, self.size, self.usage);
        }
    }
}

/// Where an array's elements are.
pub enum Place {
    /// Not written yet.
    Empty,
    Device(PoolBuffer),
    /// In host memory: written by work that ran on the CPU.
    Host(Arc<HostBuffer>),
}

/// Array storage of the Vulkan executor: device memory, or host memory for values that
/// CPU-routed work produced (uploaded when a device kernel needs them).
pub struct DeviceArray {
    pub bytes: usize,
    pub place: Mutex<Place>,
    /// A host-readable copy made by the submission that computed the array, because a
    /// read was waiting for it; the first read takes it.
    pub read_back: Mutex<Option<PoolBuffer>>,
}

impl Storage for DeviceArray {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn byte_len(&self) -> usize {
        self.bytes
    }

    fn host_bytes(&self) -> Option<&[u8]> {
        None
    }
}
