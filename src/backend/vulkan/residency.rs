//! Where arrays live: device buffers tracked in order of last use, device copies of
//! arrays the application created in host memory, and, when device memory runs out,
//! the least recently used arrays a step does not need moved to host memory (they come
//! back when a kernel reads them).
//!
//! Locks: an array's place may be held while waiting for the queue (reads and spills
//! copy out under it), never the other way round; steps allocate before recording.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use ash::vk;
use parking_lot::Mutex;

use super::memory::{DeviceArray, Memory, Place, PoolBuffer, Use};
use super::submit::Submitter;
use crate::exec::memory::{ALIGN, HostBuffer, HostPool};
use crate::ir::{ErrorKind, Result, Storage, Value, bail};

/// An array's elements in a staging buffer the device wrote, read by the host in place
/// (a read copies them once, into the application's buffer).
struct Staged {
    stage: PoolBuffer,
    bytes: usize,
}

impl Storage for Staged {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn byte_len(&self) -> usize {
        self.bytes
    }

    fn host_bytes(&self) -> Option<&[u8]> {
        Some(&self.stage.mapped_bytes()[..self.bytes])
    }
}

/// Reads served from a copy made by the submission that computed the array
/// (`Arrays::read_back`), in this process.
static READS_COPIED_BACK: AtomicU64 = AtomicU64::new(0);

/// How many reads this process served from copies made by the submission that computed
/// the array rather than by a download of their own.
pub fn reads_copied_back() -> u64 {
    READS_COPIED_BACK.load(Ordering::Relaxed)
}

/// Identifies a storage while it lives.
pub fn key(s: &Arc<dyn Storage>) -> usize {
    Arc::as_ptr(s) as *const () as usize
}

fn device_array(s: &dyn Storage) -> Option<&DeviceArray> {
    s.as_any().downcast_ref::<DeviceArray>()
}

/// A device copy of a host array, kept while the host array lives.
struct Upload {
    source: Weak<dyn Storage>,
    buffer: PoolBuffer,
}

/// Where an uploaded buffer goes once its copy has run.
enum Install {
    /// Back into the array's place (it had been moved to host memory).
    Place(Arc<dyn Storage>, PoolBuffer),
    /// Into the upload cache.
    Upload(usize, Weak<dyn Storage>, PoolBuffer),
}

/// An input ready to bind; `upload` (staging buffer, bytes) is copied into the buffer first.
pub struct Prepared {
    pub buffer: vk::Buffer,
    pub size: u64,
    pub upload: Option<(PoolBuffer, u64)>,
    install: Option<Install>,
}

impl Prepared {
    /// An input whose buffer is already filled (or filled by commands recorded earlier).
    pub fn bound(buffer: vk::Buffer, size: u64) -> Prepared {
        Prepared { buffer, size, upload: None, install: None }
    }
}

/// An array with a device buffer, and when it was last used.
type Resident = (Weak<dyn Storage>, u64);

/// Arrays holding a device buffer, by storage key. Entries of arrays since freed are
/// dropped whenever the map has doubled since the last sweep: each holds the freed
/// array's allocation (through the weak reference), so keeping them leaked memory with
/// every array a program made.
#[derive(Default)]
struct Residents {
    map: HashMap<usize, Resident>,
    sweep_at: usize,
}

impl Residents {
    fn sweep(&mut self) {
        self.map.retain(|_, (w, _)| w.strong_count() > 0);
        self.sweep_at = (2 * self.map.len()).max(64);
    }
}

pub struct Arrays {
    mem: Arc<Memory>,
    pub host: Arc<HostPool>,
    clock: AtomicU64,
    /// Arrays holding a device buffer, with their last use.
    resident: Mutex<Residents>,
    uploads: Mutex<HashMap<usize, Upload>>,
}

impl Arrays {
    pub fn new(mem: Arc<Memory>, host: Arc<HostPool>) -> Arrays {
        Arrays {
            mem,
            host,
            clock: AtomicU64::new(0),
            resident: Mutex::new(Residents::default()),
            uploads: Mutex::new(HashMap::new()),
        }
    }

    fn touch(&self, s: &Arc<dyn Storage>) {
        let now = self.clock.fetch_add(1, Ordering::Relaxed);
        let mut resident = self.resident.lock();
        resident.map.insert(key(s), (Arc::downgrade(s), now));
        if resident.map.len() >= resident.sweep_at {
            resident.sweep();
        }
    }

    /// A device buffer for array elements, making room if device memory is short: first
    /// by dropping device copies of host arrays, then by moving the least recently used
    /// arrays to host memory. `pinned` (storage keys) are needed by the step at hand.
    pub fn device_buffer(&self, bytes: usize, pinned: &[usize], queue: &Mutex<Submitter>) -> Result<PoolBuffer> {
        loop {
            match self.mem.buffer(bytes, Use::Array) {
                Err(e) if e.kind == ErrorKind::OutOfMemory => {
                    // Moving arrays out cannot make room for what the device cannot hold.
                    if !self.mem.could_fit(bytes) || (!self.drop_an_upload(pinned) && !self.spill_one(pinned, queue)?) {
                        return Err(e);
                    }
                }
                r => return r,
            }
        }
    }

    fn drop_an_upload(&self, pinned: &[usize]) -> bool {
        let mut uploads = self.uploads.lock();
        let victim = uploads.keys().copied().find(|k| !pinned.contains(k));
        victim.and_then(|k| uploads.remove(&k)).is_some()
    }

    /// Moves the least recently used array not in `pinned` to host memory; false if
    /// there is none.
    fn spill_one(&self, pinned: &[usize], queue: &Mutex<Submitter>) -> Result<bool> {
        let mut candidates: Vec<(u64, usize, Weak<dyn Storage>)> = {
            let mut resident = self.resident.lock();
            resident.sweep();
            resident.map.iter().filter(|(k, _)| !pinned.contains(k)).map(|(&k, (w, t))| (*t, k, w.clone())).collect()
        };
        candidates.sort_by_key(|c| c.0);
        for (_, k, weak) in candidates {
            let Some(storage) = weak.upgrade() else { continue };
            let Some(arr) = device_array(&*storage) else { continue };
            // An array being read right now is not the one to move.
            let Some(mut place) = arr.place.try_lock() else { continue };
            let Place::Device(b) = &*place else {
                self.resident.lock().map.remove(&k);
                continue;
            };
            let stage = self.download(queue, b.handle(), arr.bytes)?;
            *place = Place::Host(Arc::new(self.host_copy(&stage, arr.bytes)?));
            self.resident.lock().map.remove(&k);
            return Ok(true);
        }
        Ok(false)
    }

    /// The device buffer of input `v`, or a new one with the upload to record first.
    pub fn prepare_input(&self, v: &Value, pinned: &[usize], queue: &Mutex<Submitter>) -> Result<Prepared> {
        let stage = |data: &[u8]| -> Result<(PoolBuffer, u64)> {
            let mut s = self.mem.buffer(data.len(), Use::Upload)?;
            let start = crate::profile::now();
            s.mapped()[..data.len()].copy_from_slice(data);
            crate::profile::transfer("upload (to staging)", data.len(), start);
            Ok((s, data.len() as u64))
        };
        if let Some(arr) = device_array(&*v.storage) {
            let host = match &*arr.place.lock() {
                Place::Device(b) => {
                    let (buffer, size) = (b.handle(), b.size());
                    self.touch(&v.storage);
                    return Ok(Prepared::bound(buffer, size));
                }
                Place::Host(h) => h.clone(),
                Place::Empty => bail!(Internal, "a kernel input was never written"),
            };
            let dst = self.device_buffer(arr.bytes, pinned, queue)?;
            let upload = Some(stage(host.host_bytes().expect("host buffer"))?);
            let (buffer, size) = (dst.handle(), dst.size());
            return Ok(Prepared { buffer, size, upload, install: Some(Install::Place(v.storage.clone(), dst)) });
        }
        let Some(bytes) = v.storage.host_bytes() else { bail!(Internal, "input storage of another executor") };
        let k = key(&v.storage);
        {
            let mut uploads = self.uploads.lock();
            uploads.retain(|_, u| u.source.strong_count() > 0);
            if let Some(u) = uploads.get(&k).filter(|u| Weak::ptr_eq(&u.source, &Arc::downgrade(&v.storage))) {
                return Ok(Prepared::bound(u.buffer.handle(), u.buffer.size()));
            }
        }
        let dst = self.device_buffer(bytes.len(), pinned, queue)?;
        let upload = Some(stage(bytes)?);
        let (buffer, size) = (dst.handle(), dst.size());
        Ok(Prepared { buffer, size, upload, install: Some(Install::Upload(k, Arc::downgrade(&v.storage), dst)) })
    }

    /// Keeps the buffers that uploads filled, once their copies have run.
    pub fn installed(&self, prepared: Vec<Prepared>) {
        for p in prepared {
            match p.install {
                Some(Install::Place(storage, buf)) => {
                    if let Some(arr) = device_array(&*storage) {
                        *arr.place.lock() = Place::Device(buf);
                        self.touch(&storage);
                    }
                }
                Some(Install::Upload(k, source, buffer)) => {
                    self.uploads.lock().insert(k, Upload { source, buffer });
                }
                None => {}
            }
        }
    }

    /// The device buffer an output is written to (allocated on first use).
    pub fn output(&self, v: &Value, pinned: &[usize], queue: &Mutex<Submitter>) -> Result<(vk::Buffer, u64)> {
        let Some(arr) = device_array(&*v.storage) else {
            bail!(Internal, "output not allocated by the Vulkan executor")
        };
        let resident = |place: &Place| match place {
            Place::Device(b) => Some((b.handle(), b.size())),
            _ => None,
        };
        if let Some(bound) = resident(&arr.place.lock()) {
            return Ok(bound);
        }
        let buf = self.device_buffer(arr.bytes, pinned, queue)?;
        let mut place = arr.place.lock();
        *place = Place::Device(buf);
        self.touch(&v.storage);
        Ok(resident(&place).expect("just placed"))
    }

    /// Keeps the host-visible copies a submission made of arrays a read waits for.
    pub fn read_back(&self, copies: Vec<(Value, PoolBuffer)>) {
        for (v, stage) in copies {
            if let Some(arr) = device_array(&*v.storage) {
                *arr.read_back.lock() = Some(stage);
            }
        }
    }

    /// `v` in host memory: itself, the host copy of a moved array, the copy its
    /// submission made for a read (taken), or a download.
    pub fn host_value(&self, v: &Value, queue: &Mutex<Submitter>) -> Result<Value> {
        let Some(arr) = device_array(&*v.storage) else {
            if v.storage.host_bytes().is_some() {
                return Ok(v.clone());
            }
            bail!(Internal, "a value of another executor");
        };
        let stage = match arr.read_back.lock().take() {
            Some(stage) => {
                READS_COPIED_BACK.fetch_add(1, Ordering::Relaxed);
                stage
            }
            None => match &*arr.place.lock() {
                Place::Host(h) => return Ok(Value { storage: h.clone(), layout: v.layout }),
                Place::Device(b) => self.download(queue, b.handle(), arr.bytes)?,
                Place::Empty => bail!(Internal, "a value that was never written"),
            },
        };
        // Host code may rely on the alignment of host buffers; mapped device memory has
        // at least the device's storage-buffer alignment, which may be less.
        let storage: Arc<dyn Storage> = if (stage.mapped_bytes().as_ptr() as usize).is_multiple_of(ALIGN) {
            Arc::new(Staged { stage, bytes: arr.bytes })
        } else {
            Arc::new(self.host_copy(&stage, arr.bytes)?)
        };
        Ok(Value { storage, layout: v.layout })
    }

    /// Copies a device buffer into a staging buffer the host can read.
    fn download(&self, queue: &Mutex<Submitter>, src: vk::Buffer, bytes: usize) -> Result<PoolBuffer> {
        let stage = self.mem.buffer(bytes, Use::Download)?;
        let start = crate::profile::now();
        queue.lock().run(|rec| rec.copy(src, stage.handle(), bytes as u64))?;
        crate::profile::transfer("download", bytes, start);
        Ok(stage)
    }

    /// The first `bytes` of a staging buffer the device has written, in a new host buffer.
    fn host_copy(&self, stage: &PoolBuffer, bytes: usize) -> Result<HostBuffer> {
        let out = self.host.alloc(bytes)?;
        // SAFETY: `out` is fresh and `bytes` long; the staging buffer holds at least that.
        unsafe { std::ptr::copy_nonoverlapping(stage.mapped_bytes().as_ptr(), out.as_mut_ptr(), bytes) };
        Ok(out)
    }
}
