//! The program cache: GLSL compiled by shaderc to SPIR-V, made into compute pipelines,
//! kept by source and bindings so kernels of the same structure share one pipeline.
//! SPIR-V and the driver's pipeline cache are also kept on disk (`disk.rs`), so a later
//! run of the same program compiles nothing.
//!
//! A pipeline holds the driver's machine code (about 1 MB each on lavapipe), so memory
//! keeps a bounded number (`SLUICE_PIPELINE_CACHE_ENTRIES`), evicting the least recently
//! used; compiled kernels hold their pipelines weakly (`ProgramRef`) and make an evicted
//! one again from the disk cache. A pipeline lives on while a recorded command buffer may
//! use it: launches hold it (`Launch::dispatches`) and batches until their fence.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use ash::vk;
use parking_lot::Mutex;

use super::device::{Context, checked};
use super::disk::DiskCache;
use crate::exec::CacheStats;
use crate::ir::{Error, ErrorKind, Result};
use crate::profile::{self, ProgramOrigin};

/// Descriptor-set and pipeline layouts for shaders binding storage buffers (an array of
/// them per binding).
pub struct Layout {
    ctx: Arc<Context>,
    pub set: vk::DescriptorSetLayout,
    pub pipeline: vk::PipelineLayout,
}

impl Drop for Layout {
    fn drop(&mut self) {
        // SAFETY: no pipeline using the layout is alive (pipelines hold the layout).
        unsafe {
            self.ctx.device.destroy_pipeline_layout(self.pipeline, None);
            self.ctx.device.destroy_descriptor_set_layout(self.set, None);
        }
    }
}

pub struct Pipeline {
    ctx: Arc<Context>,
    pub raw: vk::Pipeline,
    pub layout: Arc<Layout>,
    /// When it was last handed out (the cache's clock), for eviction.
    last_use: AtomicU64,
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        // SAFETY: runs wait for completion, so no command uses the pipeline any more.
        unsafe { self.ctx.device.destroy_pipeline(self.raw, None) };
    }
}

/// A pipeline's source and descriptors per binding (a shader may leave bindings of its
/// layout unused, so the same source may be laid out for more than one).
type PipelineKey = (String, Vec<u32>);

/// A compiled kernel's pipeline: the one in memory while the cache keeps it (or a launch
/// still holds it), else made again by `Programs::get`.
pub struct ProgramRef {
    key: Arc<PipelineKey>,
    pipeline: Mutex<Weak<Pipeline>>,
}

/// Counters of the in-memory cache (every lookup is a hit or a miss).
#[derive(Default)]
struct Counters {
    hits: AtomicU64,
    misses: AtomicU64,
    evictions: AtomicU64,
}

pub struct Programs {
    ctx: Arc<Context>,
    compiler: shaderc::Compiler,
    pipelines: Mutex<HashMap<Arc<PipelineKey>, Arc<Pipeline>>>,
    /// Most pipelines kept in `pipelines`.
    capacity: usize,
    clock: AtomicU64,
    counters: Counters,
    layouts: Mutex<HashMap<Vec<u32>, Arc<Layout>>>,
    cache: vk::PipelineCache,
    disk: Option<DiskCache>,
}

impl Programs {
    /// Keeps at most `capacity` (at least 1) pipelines in memory.
    pub fn new(ctx: Arc<Context>, disk: Option<DiskCache>, capacity: usize) -> Result<Programs> {
        let compiler = shaderc::Compiler::new()
            .map_err(|e| Error::new(ErrorKind::Internal, format!("shaderc could not start: {e}")))?;
        let saved = disk.as_ref().map(|d| d.load_pipelines()).unwrap_or_default();
        let create = |data: &[u8]| {
            let info = vk::PipelineCacheCreateInfo::default().initial_data(data);
            // SAFETY: valid create info on a live device; the driver checks the data's
            // header (the directory is per device and driver as well).
            unsafe { ctx.device.create_pipeline_cache(&info, None) }
        };
        let cache = match create(&saved) {
            Ok(c) => c,
            Err(_) => checked("creating a pipeline cache", create(&[]))?,
        };
        let (pipelines, layouts) = (Mutex::new(HashMap::new()), Mutex::new(HashMap::new()));
        Ok(Programs {
            ctx,
            compiler,
            pipelines,
            capacity: capacity.max(1),
            clock: AtomicU64::new(0),
            counters: Counters::default(),
            layouts,
            cache,
            disk,
        })
    }

    /// The pipeline for `source` (binding `bindings[b]` storage buffers at binding `b`),
    /// compiled on first use.
    pub fn pipeline(&self, source: &str, bindings: &[u32]) -> Result<Arc<Pipeline>> {
        self.fetch(&Arc::new((source.to_string(), bindings.to_vec())))
    }

    /// `pipeline`, held as a compiled kernel holds it.
    pub fn program(&self, source: &str, bindings: &[u32]) -> Result<ProgramRef> {
        let key = Arc::new((source.to_string(), bindings.to_vec()));
        let p = self.fetch(&key)?;
        Ok(ProgramRef { key, pipeline: Mutex::new(Arc::downgrade(&p)) })
    }

    /// The pipeline of `r`, made again if it was evicted.
    pub fn get(&self, r: &ProgramRef) -> Result<Arc<Pipeline>> {
        let mut held = r.pipeline.lock();
        if let Some(p) = held.upgrade() {
            self.counters.hits.fetch_add(1, Ordering::Relaxed);
            self.touch(&p);
            return Ok(p);
        }
        let p = self.fetch(&r.key)?;
        *held = Arc::downgrade(&p);
        Ok(p)
    }

    /// Counters of the in-memory cache; `entries` is how many pipelines it holds.
    pub fn stats(&self) -> CacheStats {
        let c = &self.counters;
        let (hits, misses) = (c.hits.load(Ordering::Relaxed), c.misses.load(Ordering::Relaxed));
        CacheStats {
            lookups: hits + misses,
            hits,
            misses,
            evictions: c.evictions.load(Ordering::Relaxed),
            entries: self.pipelines.lock().len() as u64,
            ..CacheStats::default()
        }
    }

    fn touch(&self, p: &Pipeline) {
        p.last_use.store(self.clock.fetch_add(1, Ordering::Relaxed), Ordering::Relaxed);
    }

    /// The cached pipeline for `key`, or a new one (kept, evicting the least recently
    /// used beyond the capacity).
    fn fetch(&self, key: &Arc<PipelineKey>) -> Result<Arc<Pipeline>> {
        if let Some(p) = self.pipelines.lock().get(key) {
            self.counters.hits.fetch_add(1, Ordering::Relaxed);
            profile::note_program(ProgramOrigin::MemoryCache);
            self.touch(p);
            return Ok(p.clone());
        }
        self.counters.misses.fetch_add(1, Ordering::Relaxed);
        let p = self.create(&key.0, &key.1)?;
        self.touch(&p);
        let (p, evicted) = {
            let mut pipelines = self.pipelines.lock();
            let p = pipelines.entry(key.clone()).or_insert(p).clone();
            let mut evicted = Vec::new();
            while pipelines.len() > self.capacity {
                let oldest = pipelines
                    .iter()
                    .filter(|(_, q)| !Arc::ptr_eq(q, &p))
                    .min_by_key(|(_, q)| q.last_use.load(Ordering::Relaxed))
                    .map(|(k, _)| k.clone());
                let Some(k) = oldest else { break };
                evicted.extend(pipelines.remove(&k));
            }
            self.counters.evictions.fetch_add(evicted.len() as u64, Ordering::Relaxed);
            (p, evicted)
        };
        // Evicted pipelines are destroyed here, outside the lock, unless a launch holds them.
        drop(evicted);
        Ok(p)
    }

    /// A new pipeline for `source` laid out for `bindings`.
    fn create(&self, source: &str, bindings: &[u32]) -> Result<Arc<Pipeline>> {
        let spirv = self.compile(source)?;
        let layout = self.layout(bindings)?;
        let d = &self.ctx.device;
        let module_info = vk::ShaderModuleCreateInfo::default().code(&spirv);
        // SAFETY: the SPIR-V comes from shaderc; the module is destroyed after use.
        let module = checked("creating a shader module", unsafe { d.create_shader_module(&module_info, None) })?;
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(c"main");
        let info = [vk::ComputePipelineCreateInfo::default().stage(stage).layout(layout.pipeline)];
        let created = unsafe { d.create_compute_pipelines(self.cache, &info, None) };
        unsafe { d.destroy_shader_module(module, None) };
        let raw = checked("creating a compute pipeline", created.map(|v| v[0]).map_err(|(_, e)| e))?;
        Ok(Arc::new(Pipeline { ctx: self.ctx.clone(), raw, layout, last_use: AtomicU64::new(0) }))
    }

    fn compile(&self, source: &str) -> Result<Vec<u32>> {
        if let Some(words) = self.disk.as_ref().and_then(|d| d.load_spirv(source)) {
            profile::note_program(ProgramOrigin::DiskCache);
            return Ok(words);
        }
        profile::note_program(ProgramOrigin::Compiled);
        let mut opts = shaderc::CompileOptions::new()
            .map_err(|e| Error::new(ErrorKind::Internal, format!("shaderc options: {e}")))?;
        opts.set_target_env(shaderc::TargetEnv::Vulkan, shaderc::EnvVersion::Vulkan1_2 as u32);
        let out = self
            .compiler
            .compile_into_spirv(source, shaderc::ShaderKind::Compute, "kernel.comp", "main", Some(&opts))
            .map_err(|e| Error::new(ErrorKind::Internal, format!("GLSL compilation failed: {e}\n{source}")))?;
        let words = out.as_binary().to_vec();
        if let Some(d) = &self.disk {
            d.store_spirv(source, &words);
        }
        Ok(words)
    }

    fn layout(&self, counts: &[u32]) -> Result<Arc<Layout>> {
        if let Some(l) = self.layouts.lock().get(counts) {
            return Ok(l.clone());
        }
        let d = &self.ctx.device;
        let bindings: Vec<vk::DescriptorSetLayoutBinding> = counts
            .iter()
            .enumerate()
            .map(|(b, &n)| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(b as u32)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .descriptor_count(n)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
        // SAFETY: valid create infos on a live device.
        let set = checked("creating a descriptor set layout", unsafe { d.create_descriptor_set_layout(&info, None) })?;
        let sets = [set];
        let info = vk::PipelineLayoutCreateInfo::default().set_layouts(&sets);
        let pipeline = match unsafe { d.create_pipeline_layout(&info, None) } {
            Ok(p) => p,
            Err(e) => {
                unsafe { d.destroy_descriptor_set_layout(set, None) };
                return checked("creating a pipeline layout", Err(e));
            }
        };
        let l = Arc::new(Layout { ctx: self.ctx.clone(), set, pipeline });
        Ok(self.layouts.lock().entry(counts.to_vec()).or_insert(l).clone())
    }
}

impl Drop for Programs {
    fn drop(&mut self) {
        self.pipelines.lock().clear();
        // SAFETY: the cache is only used while creating pipelines, which has ended.
        unsafe {
            if let (Some(d), Ok(data)) = (&self.disk, self.ctx.device.get_pipeline_cache_data(self.cache)) {
                d.store_pipelines(&data);
            }
            self.ctx.device.destroy_pipeline_cache(self.cache, None);
        }
    }
}
