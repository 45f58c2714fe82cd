//! The Vulkan executor: fused kernels lowered to GLSL compute shaders (compiled by
//! shaderc), array memory from gpu-allocator, the loader loaded at run time.
//!
//! Work the device cannot do (kernels GLSL cannot express, f64 on devices without
//! `shaderFloat64`, and intrinsics without a device kernel) runs on the CPU executor it
//! is given; such results stay in host memory and are uploaded when a device kernel
//! reads them.

mod batch;
mod codegen;
mod device;
mod disk;
mod factor;
mod fft;
mod gather;
mod glsl;
mod grid;
mod memory;
mod programs;
mod residency;
mod scatter;
mod sort;
mod special;
mod submit;
mod transpose;

use std::any::Any;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;

use batch::Batch;
pub use codegen::{AXIS_TREE_MAX_ROWS, AXIS_TREE_MIN_EXTENT};
pub use device::{Options, Want};
pub use disk::default_root as cache_root;
use memory::{DeviceArray, Memory, Place};
use programs::{Pipeline, ProgramRef, Programs};
use residency::Arrays;
pub use residency::reads_copied_back;
use submit::{Commands, Submitter};

use crate::exec::memory::{HostPool, PoolStats};
use crate::exec::{CacheStats, CompiledKernel, DeviceInfo, DeviceKind, Executor, Step, StepOutcome, Work};
use crate::ir::kernel::{Kernel, OutputKind};
use crate::ir::{BinaryOp, DType, Layout, ReduceOp, Result, Scalar, Semiring, Shape, Value, bail};

/// A kernel lowered for the device.
struct DeviceKernel {
    mode: codegen::Mode,
    main: ProgramRef,
    /// The partial-folding pass of a tree reduction (see `codegen::Mode::is_tree`).
    finish: Option<ProgramRef>,
    /// Whether `finish` is hand-written (`kernels/reduce.comp`).
    handwritten: bool,
    /// How the first pass is launched.
    grid: grid::Grid,
    numbers: Vec<u32>,
    /// Ranges bound per binding.
    bindings: Vec<u32>,
    /// Buffers the inputs are copied into first, if they are too many to bind one by one.
    packs: Vec<codegen::Pack>,
}

/// Hand-written kernels whose dispatches are counted, so tests and benchmarks can see
/// which path ran.
#[derive(Copy, Clone, Debug)]
pub enum Handwritten {
    /// The final pass of tree reductions (`kernels/reduce.comp`).
    Reduce,
    /// Copies through a permutation (`kernels/transpose.comp`).
    Transpose,
    /// Scans along an axis in blocks (`kernels/scan.comp`), counted once per launch.
    Scan,
    /// Copies of whole slices (`kernels/gather.comp`).
    Gather,
    /// Matrix times vector (`kernels/gemv.comp`).
    Gemv,
    /// Products of matrices, batched or not (`kernels/matmul.comp`).
    MatMul,
    /// Sorts, argsorts and searches (`kernels/sort.comp`), counted once per launch.
    Sort,
    /// Batched small factorizations and solves (`kernels/factor.comp`).
    Factor,
}

/// Dispatches recorded so far in this process, per `Handwritten` kernel.
static HANDWRITTEN_DISPATCHES: [AtomicU64; 8] = [const { AtomicU64::new(0) }; 8];

impl Handwritten {
    fn count(self) {
        HANDWRITTEN_DISPATCHES[self as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// How many dispatches of this kernel this process has recorded.
    pub fn dispatches(self) -> u64 {
        HANDWRITTEN_DISPATCHES[self as usize].load(Ordering::Relaxed)
    }
}

/// Iterations after which Mesa's CPU-type drivers (lavapipe's gallivm) end a shader's
/// loops, counted over all loops of one invocation.
pub const CPU_DRIVER_LOOP_LIMIT: usize = 65_535;

/// Edge of the square blocks of `kernels/matmul.comp`.
const MATMUL_TILE: usize = 16;

/// Elements of c up to which a product runs an invocation per element (no tiles): a
/// 16 x 16 tile would leave most of its lanes idle. Also that form's workgroup size.
const MATMUL_SMALL: usize = 64;

/// Invocations per workgroup of `kernels/gemv.comp`.
const GEMV_LANES: usize = 64;

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

/// What a device step records: the launch words (binding 0), the bytes of a scratch
/// buffer bound last, the ranges bound per binding, and the dispatches (in order).
#[derive(Default)]
struct Launch {
    words: Vec<u32>,
    scratch: Option<usize>,
    /// Bind the scratch buffer before the outputs rather than last (a gather's offsets,
    /// written as the output of its generated first pass: see `gather.rs`).
    scratch_first: bool,
    ranges: Vec<u32>,
    /// Held until the submission recording them has run (see `programs.rs`).
    dispatches: Vec<(Arc<Pipeline>, [u32; 3])>,
    /// Buffers to copy the inputs into and bind instead of them (see `codegen::Pack`).
    packs: Vec<codegen::Pack>,
    /// Status words the scratch buffer holds once the dispatches have run, copied back and
    /// turned into the step's error (see `factor.rs`).
    check: Option<factor::FactorCheck>,
}

/// How a step runs.
enum Plan {
    Device(Launch),
    /// On the CPU executor, as this work.
    Cpu(Work),
}

pub struct VulkanExecutor {
    // Field order is drop order: everything holding device objects before the context.
    programs: Programs,
    /// One-off transfers (reads, moving arrays to host memory).
    queue: Mutex<Submitter>,
    /// The submissions that run steps.
    batch: Mutex<Commands>,
    arrays: Arrays,
    mem: Arc<Memory>,
    ctx: Arc<device::Context>,
    target: codegen::Target,
    cpu: Arc<dyn Executor>,
    /// Submit each step on its own rather than batching (see `Options::submit_per_step`).
    submit_per_step: bool,
    /// Steps run on the CPU executor (`Executor::steps_on_host`).
    host_steps: AtomicU64,
    /// Copy results a read waits for back in the submission computing them
    /// (`Options::no_read_back` off).
    read_back: bool,
    /// Sorts and searches run on the device (GPU-type devices, or forced for tests): on
    /// lavapipe the CPU executor's radix sort is 20-30x faster (BENCHMARKS.md).
    device_sort: bool,
    /// Small factorizations and solves run on the device (GPU-type devices, or forced for
    /// tests): on lavapipe the CPU executor is 25-100x faster (BENCHMARKS.md).
    device_factor: bool,
}

fn device_array(v: &Value) -> Option<&DeviceArray> {
    v.storage.as_any().downcast_ref::<DeviceArray>()
}

/// Whether `v`'s storage is that of one of `inputs` (an output written in place).
fn is_input(v: &Value, inputs: &[Value]) -> bool {
    inputs.iter().any(|i| Arc::as_ptr(&i.storage) as *const u8 == Arc::as_ptr(&v.storage) as *const u8)
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
        let mem = Memory::new(ctx.clone(), opts.device_memory.min(memory_limit) as u64)?;
        let exec = VulkanExecutor {
            programs: Programs::new(
                ctx.clone(),
                opts.cache_dir.as_deref().and_then(|root| disk::DiskCache::open(root, &caps.cache_key)),
                opts.pipeline_cache_entries,
            )?,
            queue: Mutex::new(Submitter::new(ctx.clone())?),
            batch: Mutex::new(Commands::new(ctx.clone())?),
            arrays: Arrays::new(mem.clone(), host),
            mem,
            target: codegen::Target {
                float64: caps.float64,
                // A submission's descriptor pool holds two full sets (a reduction's two passes).
                max_bindings: caps.max_bindings.min(submit::DESCRIPTORS_PER_SUBMIT / 2),
                chunk_bytes: caps.chunk_bytes,
                chunked_arrays: caps.chunked_arrays,
                // Mesa's CPU drivers; GPU drivers do not cut loops short.
                max_loop_iterations: (caps.kind == DeviceKind::VulkanCpu).then_some(CPU_DRIVER_LOOP_LIMIT),
                handwritten: !opts.no_handwritten,
                // On lavapipe the tree form along an axis loses to a loop per row (BENCHMARKS.md).
                axis_tree: opts.axis_tree || matches!(caps.kind, DeviceKind::DiscreteGpu | DeviceKind::IntegratedGpu),
                blocked_scan: opts.blocked_scan,
                max_groups: [caps.max_groups_x as usize, caps.max_groups_y as usize],
                subgroup_shuffle: caps.subgroup_shuffle,
            },
            ctx,
            cpu,
            submit_per_step: opts.submit_per_step,
            host_steps: AtomicU64::new(0),
            read_back: !opts.no_read_back,
            device_sort: opts.device_sort || matches!(caps.kind, DeviceKind::DiscreteGpu | DeviceKind::IntegratedGpu),
            device_factor: opts.device_factor
                || matches!(caps.kind, DeviceKind::DiscreteGpu | DeviceKind::IntegratedGpu),
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
        self.host_steps.fetch_add(1, Ordering::Relaxed);
        let inputs_given = inputs;
        let inputs = inputs.iter().map(|v| self.host_value(v)).collect::<Result<Vec<_>>>()?;
        let mut written = Vec::with_capacity(outputs.len());
        for o in outputs {
            let Some(arr) = device_array(o) else { bail!(Internal, "output not allocated by the Vulkan executor") };
            // An assignment written in place (`writable_in_place`): the CPU writes the
            // host memory the array already has.
            let reused = match &*arr.place.lock() {
                Place::Host(h) if is_input(o, inputs_given) => Some(h.clone()),
                _ => None,
            };
            let buf = match reused {
                Some(h) => h,
                None => Arc::new(self.arrays.host.alloc(arr.bytes)?),
            };
            written.push((arr, buf.clone(), Value { storage: buf, layout: o.layout }));
        }
        let values: Vec<Value> = written.iter().map(|(_, _, v)| v.clone()).collect();
        self.cpu.run(work, &inputs, params, &values)?;
        for (arr, buf, _) in written {
            *arr.place.lock() = Place::Host(buf);
        }
        Ok(())
    }

    /// How `work` runs: on the device, or on the CPU executor.
    fn plan(&self, work: &Work, inputs: &[Value], params: &[Scalar], outputs: &[Value]) -> Result<Plan> {
        match work {
            Work::Kernel { kernel, compiled } => {
                if let Some(dk) = compiled.as_any().downcast_ref::<DeviceKernel>() {
                    return Ok(Plan::Device(self.kernel_launch(kernel, dk, params, outputs)?));
                }
                if let Some(t) = compiled.as_any().downcast_ref::<transpose::TransposeKernel>() {
                    return Ok(Plan::Device(t.launch(&self.programs, self.ctx.caps.max_groups_x)?));
                }
                if let Some(g) = compiled.as_any().downcast_ref::<gather::GatherKernel>() {
                    return Ok(Plan::Device(self.gather_launch(g, params, outputs)?));
                }
                let Some(routed) = compiled.as_any().downcast_ref::<Routed>() else {
                    bail!(Internal, "kernel was compiled for another executor");
                };
                Ok(Plan::Cpu(Work::Kernel { kernel: kernel.clone(), compiled: routed.cpu.clone() }))
            }
            Work::MatMul { .. } => self.matmul_launch(work, inputs, outputs),
            Work::Fft { .. } => self.fft_plan(work, inputs, outputs),
            Work::Factor { .. } => self.factor_plan(work, inputs, outputs),
            Work::Sort { .. } => self.sort_plan(work, inputs, outputs),
            // A gather's index check reads a few scalars on the host (`cpu/gather.rs`).
            Work::IndexCheck { .. } => Ok(Plan::Cpu(work.clone())),
            Work::Scatter { .. } => self.scatter_plan(work, inputs, outputs),
        }
    }

    /// `shader` made into pipelines, laid out for its bindings followed by `extra` ones.
    fn device_kernel(&self, shader: codegen::Shader, extra: &[u32]) -> Result<DeviceKernel> {
        let mut bindings = shader.bindings;
        bindings.extend_from_slice(extra);
        let main = self.programs.program(&shader.main, &bindings)?;
        let finish = match &shader.finish {
            Some(src) => Some(self.programs.program(src, &bindings)?),
            None => None,
        };
        let (mode, numbers, packs, handwritten, grid) =
            (shader.mode, shader.numbers, shader.packs, shader.handwritten, shader.grid);
        Ok(DeviceKernel { mode, main, finish, handwritten, grid, numbers, bindings, packs })
    }

    fn kernel_launch(&self, k: &Kernel, dk: &DeviceKernel, params: &[Scalar], outputs: &[Value]) -> Result<Launch> {
        let grid::Grid { count, groups: [groups_x, groups_y], rows, parts, .. } = dk.grid;
        let mut words = Vec::with_capacity(codegen::HEADER_WORDS + dk.numbers.len() + 2 * params.len());
        words.extend([count, groups_x * groups_y, rows, parts].map(|w| w as u32));
        words.extend_from_slice(&dk.numbers);
        for p in params {
            let bits = p.to_bits();
            words.extend([bits as u32, (bits >> 32) as u32]);
        }
        let mut launch = Launch { words, ranges: dk.bindings.clone(), packs: dk.packs.clone(), ..Launch::default() };
        // A reduction over nothing still writes its identity; other empty domains only
        // need their (empty) outputs. Empty outputs need no dispatch either, though the
        // domain may have a huge dimension (a scan along an empty one, say).
        let writes_nothing = outputs.iter().all(|v| v.storage.byte_len() == 0);
        if (count == 0 && dk.mode != codegen::Mode::ReduceAll) || writes_nothing {
            return Ok(launch);
        }
        if dk.mode.is_tree() {
            launch.scratch = Some(rows * parts * k.outputs.len() * 16);
        }
        if let codegen::Mode::ScanBlocks(_) = dk.mode {
            // A block total (8 bytes) per block per scan.
            let scans = k.outputs.iter().filter(|o| matches!(o.kind, OutputKind::Scan(_))).count();
            launch.scratch = Some(rows * parts * scans * 8);
            Handwritten::Scan.count();
        }
        launch.dispatches.push((self.programs.get(&dk.main)?, [groups_x as u32, groups_y as u32, 1]));
        // The blocked scan's second pass has the first's workgroups; a tree's, one per row.
        let final_groups = if matches!(dk.mode, codegen::Mode::ScanBlocks(_)) {
            groups_x as u32
        } else {
            rows.clamp(1, self.ctx.caps.max_groups_x as usize) as u32
        };
        if let Some(finish) = &dk.finish {
            launch.dispatches.push((self.programs.get(finish)?, [final_groups, 1, 1]));
        }
        if dk.handwritten {
            Handwritten::Reduce.count();
        }
        Ok(launch)
    }

    /// `c = a b` for each product of the batch with `kernels/matmul.comp` (tiled, or an
    /// invocation per element for matrices of a few elements), or with
    /// `kernels/gemv.comp` when one side is a vector and there is one product. Operands
    /// beyond one storage-buffer range, more workgroups than the device's counts, an inner
    /// dimension longer than the driver's loops run, or f64 on a device without it, run
    /// on the CPU.
    fn matmul_launch(&self, work: &Work, inputs: &[Value], outputs: &[Value]) -> Result<Plan> {
        let Work::MatMul { dtype, conj, semiring, m, k, n, batch } = *work else { unreachable!("a matmul step") };
        let (a, b) = (&inputs[0].layout, &inputs[1].layout);
        let caps = &self.ctx.caps;
        let fits = |v: &Value| (v.storage.byte_len() as u64) <= caps.chunk_bytes;
        let plain = semiring == Semiring::PLUS_TIMES;
        // Byte-sized elements (u8, i8, bool), u32 and u64 of generalized products run on the CPU.
        let typed = match dtype.real() {
            DType::F64 => self.target.float64,
            DType::U8 | DType::I8 | DType::U32 | DType::U64 | DType::Bool => false,
            t => glsl::has_type(t),
        };
        if !(inputs.iter().chain(outputs).all(fits) && typed) {
            return Ok(Plan::Cpu(work.clone()));
        }
        let products = batch.dims.numel();
        let launch = if plain && (n == 1 || m == 1) && products == 1 {
            self.gemv_launch(dtype, conj, [m, k, n], a, b)?
        } else {
            let small = m * n <= MATMUL_SMALL;
            let tiles = [m.div_ceil(MATMUL_TILE), n.div_ceil(MATMUL_TILE)];
            let groups = if small { (m * n * products).div_ceil(MATMUL_SMALL) } else { tiles[0] * tiles[1] * products };
            let max_x = caps.max_groups_x as usize;
            let grid = [groups.min(max_x), groups.div_ceil(max_x)];
            // The tiled loop runs k / TILE + k iterations; both forms add the batch's.
            let loops = if small { k } else { k + k / MATMUL_TILE } + batch.dims.rank();
            let fit = grid[1] <= caps.max_groups_y as usize
                && self.target.max_loop_iterations.is_none_or(|limit| loops <= limit);
            let mut numbers = vec![
                m as i64,
                n as i64,
                k as i64,
                a.offset,
                a.strides[0],
                a.strides[1],
                b.offset,
                b.strides[0],
                b.strides[1],
                tiles[0] as i64,
                tiles[1] as i64,
                products as i64,
                batch.dims.rank() as i64,
            ];
            numbers.extend(batch.dims.dims().iter().map(|&d| d as i64));
            numbers.extend(batch.strides(0, a));
            numbers.extend(batch.strides(1, b));
            match words(&numbers).filter(|_| fit) {
                Some(words) => {
                    let mut launch = Launch { words, ranges: vec![1; 4], ..Launch::default() };
                    if groups > 0 {
                        let mut header = product_header(dtype, &[("OP_A", conj[0]), ("OP_B", conj[1])]);
                        if !plain {
                            header.push_str(&semiring_defines(dtype, semiring));
                        }
                        let form = if small { "#define SMALL\n" } else { "" };
                        let source = format!("{header}{form}{}", include_str!("../../../kernels/matmul.comp"));
                        let pipeline = self.programs.pipeline(&source, &launch.ranges)?;
                        launch.dispatches.push((pipeline, [grid[0] as u32, grid[1] as u32, 1]));
                        Handwritten::MatMul.count();
                    }
                    Some(launch)
                }
                None => None,
            }
        };
        Ok(launch.map_or_else(|| Plan::Cpu(work.clone()), Plan::Device))
    }

    /// A matrix times a vector (`n = 1`) or a vector times a matrix (`m = 1`: the
    /// transposed matrix times the vector) with `kernels/gemv.comp`: a lane per row when
    /// the matrix's columns are contiguous and there are rows enough to fill the device,
    /// else a workgroup per row. None when the device cannot run it.
    fn gemv_launch(
        &self,
        dtype: DType,
        conj: [bool; 2],
        [m, k, n]: [usize; 3],
        a: &Layout,
        b: &Layout,
    ) -> Result<Option<Launch>> {
        // (rows, matrix binding, matrix layout, its strides, vector layout, its stride)
        let (rows, mat_binding, mat, [rs, cs], x, xs) = if n == 1 {
            (m, 1, a, [a.strides[0], a.strides[1]], b, b.strides[0])
        } else {
            (n, 2, b, [b.strides[1], b.strides[0]], a, a.strides[1])
        };
        let conj_mat = conj[mat_binding - 1];
        let caps = &self.ctx.caps;
        let loop_limit = self.target.max_loop_iterations.unwrap_or(usize::MAX);
        let lane_per_row = rs.abs() <= cs.abs() && rows >= 4 * GEMV_LANES && k <= loop_limit;
        let groups = if lane_per_row { rows.div_ceil(GEMV_LANES) } else { rows };
        let max_x = caps.max_groups_x as usize;
        let grid = [groups.min(max_x), groups.div_ceil(max_x)];
        let Some(words) = words(&[rows as i64, k as i64, mat.offset, rs, cs, x.offset, xs]) else {
            return Ok(None);
        };
        if grid[1] > caps.max_groups_y as usize || k / GEMV_LANES > loop_limit {
            return Ok(None);
        }
        let mut launch = Launch { words, ranges: vec![1; 4], ..Launch::default() };
        if rows > 0 {
            let header = product_header(dtype, &[("OP_MAT", conj_mat), ("OP_X", conj[2 - mat_binding])]);
            let source = format!(
                "{header}#define MAT {mat_binding}\n#define X {}\n{}{}",
                3 - mat_binding,
                if lane_per_row { "#define LANE_PER_ROW\n" } else { "" },
                include_str!("../../../kernels/gemv.comp")
            );
            let pipeline = self.programs.pipeline(&source, &launch.ranges)?;
            launch.dispatches.push((pipeline, [grid[0] as u32, grid[1] as u32, 1]));
            Handwritten::Gemv.count();
        }
        Ok(Some(launch))
    }
}

/// The definitions the product kernels read: the element type T, its product MUL, and
/// each operand's op (named in `ops`: the identity, or the conjugate when true).
fn product_header(dtype: DType, ops: &[(&str, bool)]) -> String {
    let mut h = format!("#version 450\n#define T {}\n", glsl::reg_type(dtype));
    if dtype == DType::I64 {
        h.push_str("#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n");
    }
    if dtype.is_complex() {
        h.push_str("#define MUL(u, v) T((u).x * (v).x - (u).y * (v).y, (u).x * (v).y + (u).y * (v).x)\n");
    } else {
        h.push_str("#define MUL(u, v) ((u) * (v))\n");
    }
    for &(name, conj) in ops {
        let body = if conj && dtype.is_complex() { "T((z).x, -(z).y)" } else { "(z)" };
        h.push_str(&format!("#define {name}(z) {body}\n"));
    }
    h
}

/// The definitions `kernels/matmul.comp` reads for a generalized product: the reduce's
/// identity ID, REDUCE(acc, x) and COMBINE(u, v). Float min and max are NaN when an
/// operand is (GLSL's leave that undefined), as the element-wise ops.
fn semiring_defines(dtype: DType, semiring: Semiring) -> String {
    let float = dtype.is_float();
    let op = |op: BinaryOp, x: &str, y: &str| match op {
        BinaryOp::Add => format!("(({x}) + ({y}))"),
        BinaryOp::Mul => format!("(({x}) * ({y}))"),
        BinaryOp::Min | BinaryOp::Max if float => {
            format!("((isnan({x}) || isnan({y})) ? ({x}) + ({y}) : {}({x}, {y}))", op.name())
        }
        _ => format!("{}({x}, {y})", op.name()),
    };
    let (reduce, id) = match semiring.reduce {
        ReduceOp::Min => (BinaryOp::Min, codegen::extreme(dtype, true)),
        _ => (BinaryOp::Max, codegen::extreme(dtype, false)),
    };
    format!(
        "#define ID T({id})\n#define REDUCE(x, y) {}\n#define COMBINE(u, v) {}\n",
        op(reduce, "x", "y"),
        op(semiring.combine, "u", "v")
    )
}

/// `numbers` as the words of a kernel's parameter block, if each fits an int.
fn words(numbers: &[i64]) -> Option<Vec<u32>> {
    numbers.iter().map(|&v| i32::try_from(v).ok().map(|v| v as u32)).collect()
}

impl Executor for VulkanExecutor {
    fn name(&self) -> &'static str {
        "vulkan"
    }

    fn compile(&self, kernel: Arc<Kernel>) -> Result<Arc<dyn CompiledKernel>> {
        // Assignments (stores through a placement into a new version of an input) are
        // not lowered to shaders yet: they run on the CPU executor.
        if kernel.outputs.iter().any(|o| o.into.is_some()) {
            return Ok(Arc::new(Routed { cpu: self.cpu.compile(kernel)? }));
        }
        if self.target.handwritten
            && let Some(t) = transpose::compile(&kernel, &self.target, &self.programs)?
        {
            return Ok(Arc::new(t));
        }
        if self.target.handwritten
            && let Some(g) = self.compile_gather(&kernel)?
        {
            return Ok(Arc::new(g));
        }
        match codegen::generate(&kernel, &self.target) {
            Ok(shader) => Ok(Arc::new(self.device_kernel(shader, &[])?)),
            Err(_why) => Ok(Arc::new(Routed { cpu: self.cpu.compile(kernel)? })),
        }
    }

    /// Room for the parameter block, a reduction's scratch and two packed input buffers
    /// beside the outputs.
    fn max_kernel_outputs(&self) -> usize {
        self.target.max_bindings.saturating_sub(4).max(1) as usize
    }

    fn reductions_fuse_costly_math(&self) -> bool {
        self.target.max_loop_iterations.is_none()
    }

    fn stop_threads(&self) {
        self.cpu.stop_threads();
    }

    fn steps_on_host(&self) -> u64 {
        self.host_steps.load(Ordering::Relaxed)
    }

    fn device_memory(&self) -> Option<PoolStats> {
        Some(self.mem.stats())
    }

    fn program_cache(&self) -> Option<CacheStats> {
        Some(self.programs.stats())
    }

    fn alloc(&self, dtype: DType, shape: &Shape) -> Result<Value> {
        let Some(bytes) = shape.checked_numel().and_then(|n| n.checked_mul(dtype.size())) else {
            bail!(OutOfMemory, "an array of shape {shape} and type {dtype} does not fit in memory");
        };
        let arr = DeviceArray { bytes, place: Mutex::new(Place::Empty), read_back: Mutex::new(None) };
        Ok(Value { storage: Arc::new(arr), layout: Layout::dense(shape) })
    }

    fn run(&self, work: &Work, inputs: &[Value], params: &[Scalar], outputs: &[Value]) -> Result<()> {
        match self.plan(work, inputs, params, outputs)? {
            Plan::Cpu(work) => self.run_on_cpu(&work, inputs, params, outputs),
            Plan::Device(launch) => {
                let mut nothing_to_report = |_: usize, _: StepOutcome| {};
                Batch::new(self, &[], &mut nothing_to_report).run_alone(&launch, inputs, outputs)
            }
        }
    }

    /// Consecutive device steps run as one submission (see `batch.rs`).
    fn run_steps(&self, steps: &[Step], done: &mut dyn FnMut(usize, StepOutcome)) {
        Batch::new(self, steps, done).run_all();
    }

    fn host_value(&self, value: &Value) -> Result<Value> {
        self.arrays.host_value(value, &self.queue)
    }

    /// Only arrays CPU-routed work left in host memory (assignments run on the CPU
    /// executor for now): `run_on_cpu` writes that memory again.
    fn writable_in_place(&self, value: &Value, dtype: DType, shape: &Shape) -> bool {
        let Some(arr) = device_array(value) else { return false };
        value.layout == Layout::dense(shape)
            && arr.bytes >= shape.numel() * dtype.size()
            && arr.read_back.lock().is_none()
            && matches!(*arr.place.lock(), Place::Host(_))
    }
}
