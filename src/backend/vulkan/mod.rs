//! The Vulkan executor: fused kernels lowered to GLSL compute shaders (compiled by
//! shaderc), array memory from gpu-allocator, the loader loaded at run time.
//!
//! Work the device cannot do (kernels GLSL cannot express, f64 on devices without
//! `shaderFloat64`, and intrinsics without a device kernel) runs on the CPU executor it
//! is given; such results stay in host memory and are uploaded when a device kernel
//! reads them.

mod codegen;
mod device;
mod disk;
mod glsl;
mod memory;
mod programs;
mod submit;

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Weak};

use parking_lot::Mutex;

pub use device::{Options, Want};
pub use disk::default_root as cache_root;
use memory::{DeviceArray, Memory, Place, PoolBuffer, Use};
use programs::{Pipeline, Programs};
use submit::{Binding, Recorder, Submitter};

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
    /// Ranges bound per binding.
    bindings: Vec<u32>,
}

/// Edge of the square blocks of `kernels/matmul.comp`.
const MATMUL_TILE: usize = 16;

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
            programs: Programs::new(
                ctx.clone(),
                opts.cache_dir.as_deref().and_then(|root| disk::DiskCache::open(root, &caps.cache_key)),
            )?,
            queue: Mutex::new(Submitter::new(ctx.clone())?),
            uploads: Mutex::new(HashMap::new()),
            mem: Memory::new(ctx.clone(), memory_limit as u64)?,
            target: codegen::Target {
                float64: caps.float64,
                max_bindings: caps.max_bindings,
                chunk_bytes: caps.chunk_bytes,
                chunked_arrays: caps.chunked_arrays,
            },
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
    fn bind_input(
        &self,
        rec: &mut Recorder,
        v: &Value,
        staging: &mut Vec<PoolBuffer>,
    ) -> Result<(ash::vk::Buffer, u64)> {
        if let Some(arr) = device_array(v) {
            let mut place = arr.place.lock();
            let bound = match &*place {
                Place::Device(b) => (b.handle(), b.size()),
                Place::Host(h) => {
                    let b = self.upload(rec, h.host_bytes().expect("host buffer"), staging)?;
                    let bound = (b.handle(), b.size());
                    *place = Place::Device(b);
                    bound
                }
                Place::Empty => bail!(Internal, "a kernel input was never written"),
            };
            return Ok(bound);
        }
        let Some(bytes) = v.storage.host_bytes() else { bail!(Internal, "input storage of another executor") };
        let key = bytes.as_ptr() as usize;
        let mut uploads = self.uploads.lock();
        uploads.retain(|_, u| u.source.strong_count() > 0);
        if let Some(u) = uploads.get(&key).filter(|u| Weak::ptr_eq(&u.source, &Arc::downgrade(&v.storage))) {
            return Ok((u.buffer.handle(), u.buffer.size()));
        }
        let buffer = self.upload(rec, bytes, staging)?;
        let bound = (buffer.handle(), buffer.size());
        uploads.insert(key, Upload { source: Arc::downgrade(&v.storage), buffer });
        Ok(bound)
    }

    fn bind_output(&self, v: &Value) -> Result<(ash::vk::Buffer, u64)> {
        let Some(arr) = device_array(v) else { bail!(Internal, "output not allocated by the Vulkan executor") };
        let mut place = arr.place.lock();
        if !matches!(*place, Place::Device(_)) {
            *place = Place::Device(self.mem.buffer(arr.bytes, Use::Array)?);
        }
        match &*place {
            Place::Device(b) => Ok((b.handle(), b.size())),
            _ => unreachable!(),
        }
    }

    /// Runs `dispatches` in order (with barriers between) on one submission, binding the
    /// launch words, `inputs` (uploaded if in host memory), `outputs` and `scratch`, with
    /// `ranges[b]` ranges for binding `b`.
    fn launch(
        &self,
        words: &[u32],
        inputs: &[Value],
        outputs: &[Value],
        scratch: Option<&PoolBuffer>,
        ranges: &[u32],
        dispatches: &[(&Pipeline, [u32; 2])],
    ) -> Result<()> {
        let mut meta = self.mem.buffer(words.len() * 4, Use::Upload)?;
        for (dst, w) in meta.mapped().chunks_exact_mut(4).zip(words) {
            dst.copy_from_slice(&w.to_le_bytes());
        }
        let outs = outputs.iter().map(|v| self.bind_output(v)).collect::<Result<Vec<_>>>()?;
        let mut queue = self.queue.lock();
        let mut staging = Vec::new();
        queue.run(|rec| {
            let mut bound = vec![(meta.handle(), meta.size())];
            for v in inputs {
                bound.push(self.bind_input(rec, v, &mut staging)?);
            }
            bound.extend(outs);
            bound.extend(scratch.map(|p| (p.handle(), p.size())));
            let bindings: Vec<Binding> = bound
                .into_iter()
                .zip(ranges)
                .map(|((buffer, size), &ranges)| Binding { buffer, size, ranges })
                .collect();
            for (pipeline, groups) in dispatches {
                rec.barrier();
                rec.dispatch(pipeline, &bindings, *groups)?;
            }
            Ok(())
        })
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
        // A reduction over nothing still writes its identity.
        if count == 0 && dk.mode != codegen::Mode::ReduceAll {
            for v in outputs {
                self.bind_output(v)?;
            }
            return Ok(());
        }
        let groups = count.div_ceil(codegen::LOCAL as usize).clamp(1, max_groups as usize) as u32;
        let mut words = Vec::with_capacity(codegen::HEADER_WORDS + dk.numbers.len() + 2 * params.len());
        words.extend([count as u32, groups]);
        words.extend_from_slice(&dk.numbers);
        for p in params {
            let bits = p.to_bits();
            words.extend([bits as u32, (bits >> 32) as u32]);
        }
        let partials = match dk.mode {
            codegen::Mode::ReduceAll => Some(self.mem.buffer(groups as usize * outputs.len() * 16, Use::Array)?),
            _ => None,
        };
        let mut dispatches = vec![(&*dk.main, [groups, 1])];
        dispatches.extend(dk.finish.as_deref().map(|f| (f, [1, 1])));
        self.launch(&words, inputs, outputs, partials.as_ref(), &dk.bindings, &dispatches)
    }

    /// `c = a b` with the tiled kernel (`kernels/matmul.comp`). Operands beyond one
    /// storage-buffer range, or f64 on a device without it, run on the CPU.
    fn run_matmul(&self, work: &Work, inputs: &[Value], outputs: &[Value]) -> Result<()> {
        let Work::MatMul { dtype, m, k, n } = *work else { unreachable!("a matmul step") };
        let (a, b) = (&inputs[0].layout, &inputs[1].layout);
        let numbers =
            [m as i64, n as i64, k as i64, a.offset, a.strides[0], a.strides[1], b.offset, b.strides[0], b.strides[1]];
        let words: Option<Vec<u32>> = numbers.iter().map(|&v| i32::try_from(v).ok().map(|v| v as u32)).collect();
        let fits = |v: &Value| (v.storage.byte_len() as u64) <= self.ctx.caps.chunk_bytes;
        let (Some(words), true) =
            (words, inputs.iter().chain(outputs).all(fits) && (dtype == DType::F32 || self.target.float64))
        else {
            return self.run_on_cpu(work, inputs, &[], outputs);
        };
        if m == 0 || n == 0 {
            return self.bind_output(&outputs[0]).map(|_| ());
        }
        let source = format!(
            "#version 450\n#define T {}\n{}",
            glsl::reg_type(dtype),
            include_str!("../../../kernels/matmul.comp")
        );
        let pipeline = self.programs.pipeline(&source, &[1, 1, 1, 1])?;
        let groups = [m.div_ceil(MATMUL_TILE) as u32, n.div_ceil(MATMUL_TILE) as u32];
        self.launch(&words, inputs, outputs, None, &[1, 1, 1, 1], &[(&pipeline, groups)])
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
                let main = self.programs.pipeline(&shader.main, &shader.bindings)?;
                let finish = match &shader.finish {
                    Some(src) => Some(self.programs.pipeline(src, &shader.bindings)?),
                    None => None,
                };
                let (mode, numbers, bindings) = (shader.mode, shader.numbers, shader.bindings);
                Ok(Arc::new(DeviceKernel { mode, main, finish, numbers, bindings }))
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
            Work::MatMul { .. } => self.run_matmul(work, inputs, outputs),
            Work::Scatter { .. } => self.run_on_cpu(work, inputs, params, outputs),
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
