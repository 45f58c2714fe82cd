//! The Vulkan executor: fused kernels lowered to GLSL compute shaders (compiled by
//! shaderc), array memory from gpu-allocator, the loader loaded at run time.
//!
//! Work the device cannot do (kernels GLSL cannot express, f64 on devices without
//! `shaderFloat64`, and intrinsics without a device kernel) runs on the CPU executor it
//! is given; such results stay in host memory and are uploaded when a device kernel
//! reads them.

mod codegen;
mod device;
mod glsl;
mod memory;
mod programs;
mod submit;

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Weak};

use parking_lot::Mutex;

pub use device::{Options, Want};
use memory::{DeviceArray, Memory, Place, PoolBuffer, Use};
use programs::{Pipeline, Programs};
use submit::{Recorder, Submitter};

use crate::exec::memory::{HostBuffer, HostPool};
use crate::exec::{CompiledKernel, DeviceInfo, Executor, Work};
use crate::ir::kernel::Kernel;
use crate::ir::{DType, Layout, Result, Scalar, Shape, Storage, Value, bail};

/// A kernel lowered for the device.
struct DeviceKernel {
    mode: codegen::Mode,
    main: Arc<Pipeline>,
    finish: Option<Arc<Pipeline>>,
    numbers: Vec<u32>,
}

/// A kernel the device cannot run, compiled for the CPU executor instead.
struct Routed {
    cpu: Arc<dyn CompiledKernel>,
}

impl CompiledKernel for DeviceKernel {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl CompiledKernel for Routed {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Device copies of host arrays, kept while the host array lives.
struct Upload {
    source: Weak<dyn Storage>,
    buffer: PoolBuffer,
}

pub struct VulkanExecutor {
    // Field order is drop order: everything holding device objects before the context.
    programs: Programs,
    queue: Mutex<Submitter>,
    uploads: Mutex<HashMap<usize, Upload>>,
    mem: Arc<Memory>,
    ctx: Arc<device::Context>,
    target: codegen::Target,
    cpu: Arc<dyn Executor>,
    host: Arc<HostPool>,
}

fn device_array(v: &Value) -> Option<&DeviceArray> {
    v.storage.as_any().downcast_ref::<DeviceArray>()
}

impl VulkanExecutor {
    /// Opens the best device `opts` allows; `cpu` runs what the device cannot.
    pub fn open(
        opts: &Options,
        cpu: Arc<dyn Executor>,
        host: Arc<HostPool>,
        memory_limit: usize,
    ) -> Result<(VulkanExecutor, DeviceInfo)> {
        let ctx = Arc::new(device::Context::open(opts)?);
        let caps = ctx.caps.clone();
        let exec = VulkanExecutor {
            programs: Programs::new(ctx.clone())?,
            queue: Mutex::new(Submitter::new(ctx.clone())?),
            uploads: Mutex::new(HashMap::new()),
            mem: Memory::new(ctx.clone(), memory_limit as u64)?,
            target: codegen::Target { float64: caps.float64, max_bindings: caps.max_bindings },
            ctx,
            cpu,
            host,
        };
        let f64_note = if caps.float64 {
            ""
        } else if opts.no_f64 {
            "; f64 work runs on the CPU (SLUICE_VULKAN_NO_F64)"
        } else {
            "; f64 work runs on the CPU (no shaderFloat64)"
        };
        let info = DeviceInfo {
            backend: crate::config::Backend::Vulkan,
            kind: caps.kind,
            name: caps.name.clone(),
            float64: caps.float64,
            reason: format!("{} is a {} device{f64_note}", caps.name, caps.kind.name()),
        };
        Ok((exec, info))
    }

    /// Runs `work` on the CPU executor with host copies of the inputs; the outputs keep
    /// the host buffers it wrote.
    fn run_on_cpu(&self, work: &Work, inputs: &[Value], params: &[Scalar], outputs: &[Value]) -> Result<()> {
        let inputs = inputs.iter().map(|v| self.host_value(v)).collect::<Result<Vec<_>>>()?;
        let mut written = Vec::with_capacity(outputs.len());
        for o in outputs {
            let Some(arr) = device_array(o) else { bail!(Internal, "output not allocated by the Vulkan executor") };
            let buf = Arc::new(self.host.alloc(arr.bytes)?);
            written.push((arr, buf.clone(), Value { storage: buf, layout: o.layout }));
        }
        let values: Vec<Value> = written.iter().map(|(_, _, v)| v.clone()).collect();
        self.cpu.run(work, &inputs, params, &values)?;
        for (arr, buf, _) in written {
            *arr.place.lock() = Place::Host(buf);
        }
        Ok(())
    }

    /// Copies `bytes` from host memory into a new device buffer (recorded into `rec`).
    fn upload(&self, rec: &mut Recorder, data: &[u8], staging: &mut Vec<PoolBuffer>) -> Result<PoolBuffer> {
        let dst = self.mem.buffer(data.len(), Use::Array)?;
        let mut stage = self.mem.buffer(data.len(), Use::Upload)?;
        stage.mapped()[..data.len()].copy_from_slice(data);
        rec.copy(stage.handle(), dst.handle(), data.len() as u64);
        staging.push(stage);
        Ok(dst)
    }

    /// The device buffer holding `v`'s elements, uploading them if they are in host
    /// memory. The buffer lives as long as `v` (in its place, or in the upload cache).
    fn bind_input(&self, rec: &mut Recorder, v: &Value, staging: &mut Vec<PoolBuffer>) -> Result<ash::vk::Buffer> {
        if let Some(arr) = device_array(v) {
            let mut place = arr.place.lock();
            let buffer = match &*place {
                Place::Device(b) => b.handle(),
                Place::Host(h) => {
                    let b = self.upload(rec, h.host_bytes().expect("host buffer"), staging)?;
                    let handle = b.handle();
                    *place = Place::Device(b);
                    handle
                }
                Place::Empty => bail!(Internal, "a kernel input was never written"),
            };
            return Ok(buffer);
        }
        let Some(bytes) = v.storage.host_bytes() else { bail!(Internal, "input storage of another executor") };
        let key = bytes.as_ptr() as usize;
        let mut uploads = self.uploads.lock();
        uploads.retain(|_, u| u.source.strong_count() > 0);
        if let Some(u) = uploads.get(&key).filter(|u| Weak::ptr_eq(&u.source, &Arc::downgrade(&v.storage))) {
            return Ok(u.buffer.handle());
        }
        let buffer = self.upload(rec, bytes, staging)?;
        let handle = buffer.handle();
        uploads.insert(key, Upload { source: Arc::downgrade(&v.storage), buffer });
        Ok(handle)
    }

    fn bind_output(&self, v: &Value) -> Result<ash::vk::Buffer> {
        let Some(arr) = device_array(v) else { bail!(Internal, "output not allocated by the Vulkan executor") };
        let mut place = arr.place.lock();
        if !matches!(*place, Place::Device(_)) {
            *place = Place::Device(self.mem.buffer(arr.bytes, Use::Array)?);
        }
        match &*place {
            Place::Device(b) => Ok(b.handle()),
            _ => unreachable!(),
        }
    }

    fn run_kernel(
        &self,
        k: &Kernel,
        dk: &DeviceKernel,
        inputs: &[Value],
        params: &[Scalar],
        outputs: &[Value],
    ) -> Result<()> {
        let (count, max_groups) = match dk.mode {
            codegen::Mode::Elementwise => (k.domain.numel(), self.ctx.caps.max_groups_x),
            codegen::Mode::ReduceAll => (k.domain.numel(), 1024),
            codegen::Mode::Axis(a) => (
                (0..k.domain.rank()).filter(|&d| d != a).map(|d| k.domain.dim(d)).product(),
                self.ctx.caps.max_groups_x,
            ),
        };
        let groups = count.div_ceil(codegen::LOCAL as usize).clamp(1, max_groups as usize) as u32;
        let mut words = Vec::with_capacity(codegen::HEADER_WORDS + dk.numbers.len() + 2 * params.len());
        words.extend([count as u32, groups]);
        words.extend_from_slice(&dk.numbers);
        for p in params {
            let bits = p.to_bits();
            words.extend([bits as u32, (bits >> 32) as u32]);
        }
        let mut meta = self.mem.buffer(words.len() * 4, Use::Upload)?;
        for (dst, w) in meta.mapped().chunks_exact_mut(4).zip(&words) {
            dst.copy_from_slice(&w.to_le_bytes());
        }
        let partials = match dk.mode {
            codegen::Mode::ReduceAll => Some(self.mem.buffer(groups as usize * outputs.len() * 16, Use::Array)?),
            _ => None,
        };
        let out_buffers = outputs.iter().map(|v| self.bind_output(v)).collect::<Result<Vec<_>>>()?;
        let limit = self.ctx.caps.max_storage_buffer_range;
        for v in inputs.iter().chain(outputs) {
            if v.storage.byte_len() as u64 > limit {
                bail!(
                    NotSupported,
                    "an array of {} bytes exceeds the device's storage-buffer range ({limit} bytes)",
                    v.storage.byte_len()
                );
            }
        }
        let mut queue = self.queue.lock();
        let mut staging = Vec::new();
        queue.run(|rec| {
            let mut buffers = vec![meta.handle()];
            for v in inputs {
                buffers.push(self.bind_input(rec, v, &mut staging)?);
            }
            buffers.extend(&out_buffers);
            buffers.extend(partials.as_ref().map(|p| p.handle()));
            rec.barrier();
            if count > 0 || dk.mode == codegen::Mode::ReduceAll {
                rec.dispatch(&dk.main, &buffers, groups)?;
            }
            if let Some(f) = &dk.finish {
                rec.barrier();
                rec.dispatch(f, &buffers, 1)?;
            }
            Ok(())
        })
    }

    /// Reads a device buffer back into a new host buffer.
    fn download(&self, src: ash::vk::Buffer, bytes: usize) -> Result<HostBuffer> {
        let mut stage = self.mem.buffer(bytes, Use::Download)?;
        self.queue.lock().run(|rec| {
            rec.copy(src, stage.handle(), bytes as u64);
            Ok(())
        })?;
        let out = self.host.alloc(bytes)?;
        // SAFETY: `out` is fresh and `bytes` long; the staging buffer holds at least that.
        unsafe { std::ptr::copy_nonoverlapping(stage.mapped().as_ptr(), out.as_mut_ptr(), bytes) };
        Ok(out)
    }
}

impl Executor for VulkanExecutor {
    fn name(&self) -> &'static str {
        "vulkan"
    }

    fn compile(&self, kernel: Arc<Kernel>) -> Result<Arc<dyn CompiledKernel>> {
        match codegen::generate(&kernel, &self.target) {
            Ok(shader) => {
                let main = self.programs.pipeline(&shader.main, shader.bindings)?;
                let finish = match &shader.finish {
                    Some(src) => Some(self.programs.pipeline(src, shader.bindings)?),
                    None => None,
                };
                Ok(Arc::new(DeviceKernel { mode: shader.mode, main, finish, numbers: shader.numbers }))
            }
            Err(_why) => Ok(Arc::new(Routed { cpu: self.cpu.compile(kernel)? })),
        }
    }

    fn alloc(&self, dtype: DType, shape: &Shape) -> Result<Value> {
        let Some(bytes) = shape.checked_numel().and_then(|n| n.checked_mul(dtype.size())) else {
            bail!(OutOfMemory, "an array of shape {shape} and type {dtype} does not fit in memory");
        };
        let arr = DeviceArray { bytes, place: Mutex::new(Place::Empty) };
        Ok(Value { storage: Arc::new(arr), layout: Layout::dense(shape) })
    }

    fn run(&self, work: &Work, inputs: &[Value], params: &[Scalar], outputs: &[Value]) -> Result<()> {
        match work {
            Work::Kernel { kernel, compiled } => {
                if let Some(dk) = compiled.as_any().downcast_ref::<DeviceKernel>() {
                    return self.run_kernel(kernel, dk, inputs, params, outputs);
                }
                let Some(routed) = compiled.as_any().downcast_ref::<Routed>() else {
                    bail!(Internal, "kernel was compiled for another executor");
                };
                let work = Work::Kernel { kernel: kernel.clone(), compiled: routed.cpu.clone() };
                self.run_on_cpu(&work, inputs, params, outputs)
            }
            Work::MatMul { .. } | Work::Scatter { .. } => self.run_on_cpu(work, inputs, params, outputs),
        }
    }

    fn host_value(&self, value: &Value) -> Result<Value> {
        let Some(arr) = device_array(value) else {
            if value.storage.host_bytes().is_some() {
                return Ok(value.clone());
            }
            bail!(Internal, "a value of another executor");
        };
        // The place's lock is not held while waiting for the queue (runs take them in the
        // other order); a device buffer stays in its place while the value lives.
        let handle = match &*arr.place.lock() {
            Place::Host(h) => return Ok(Value { storage: h.clone(), layout: value.layout }),
            Place::Device(b) => b.handle(),
            Place::Empty => bail!(Internal, "a value that was never written"),
        };
        let buf = self.download(handle, arr.bytes)?;
        Ok(Value { storage: Arc::new(buf), layout: value.layout })
    }
}
