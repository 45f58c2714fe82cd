//! Running program sequences: the executor interface every backend implements, and the
//! engine that runs sequences asynchronously, resolves dependencies, allocates results
//! just before their step runs, and poisons results of failed work.

pub mod engine;
pub mod memory;

use std::any::Any;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use smallvec::SmallVec;

use crate::backend::vulkan;
use crate::config::{Backend, Config};
use crate::ir::kernel::Kernel;
use crate::ir::{
    CallSite, DType, Error, ErrorKind, FactorOp, FftSpec, Inputs, Layout, Promise, Result, Scalar, ScatterMode,
    Semiring, Shape, SortOp, Value,
};

/// A kernel in the executor's own compiled form.
pub trait CompiledKernel: Send + Sync {
    fn as_any(&self) -> &dyn Any;
}

/// What one step of a program sequence does.
#[derive(Clone)]
pub enum Work {
    Kernel {
        kernel: Arc<Kernel>,
        compiled: Arc<dyn CompiledKernel>,
    },
    /// inputs [a (m x k x batch), b (k x n x batch)] -> [c (m x n x batch)], with the
    /// elements of a and of b conjugated as `conj` says, reduced and combined as
    /// `semiring` says (the operands' and result's type `dtype`).
    MatMul {
        dtype: DType,
        conj: [bool; 2],
        semiring: Semiring,
        m: usize,
        k: usize,
        n: usize,
        batch: Batch,
    },
    /// inputs [a] -> [transform of a]; `dtype` and `shape` are the input's.
    Fft {
        spec: FftSpec,
        dtype: DType,
        shape: Shape,
        out_shape: Shape,
    },
    /// A factorization or solve; inputs and output as `FactorOp` lists, `shapes` the
    /// inputs' (`dtype` the first input's).
    Factor {
        op: FactorOp,
        dtype: DType,
        shapes: SmallVec<[Shape; 2]>,
        out_shape: Shape,
    },
    /// A sort or search; inputs and output as `SortOp` lists, `shapes` the inputs'
    /// (`dtype` the first input's).
    Sort {
        op: SortOp,
        dtype: DType,
        shapes: SmallVec<[Shape; 2]>,
        out_shape: Shape,
    },
    /// inputs [dst, values, index_0, ...] (indices i64, shaped like values) -> [out]
    Scatter {
        mode: ScatterMode,
        dtype: DType,
        dst_shape: Shape,
        values_shape: Shape,
    },
    /// inputs and output as `Op::IndexCheck` lists.
    IndexCheck {
        what: &'static str,
        src: Shape,
        out: Shape,
    },
}

/// The batch of a product: the result's dimensions after its first two, one product per
/// index. An operand broadcasts the batch dimensions it lacks or has of size 1 (bit `d`
/// of `broadcast[operand]` for batch dimension `d`): the same matrix serves every index
/// along them.
#[derive(Copy, Clone, Debug)]
pub struct Batch {
    pub dims: Shape,
    pub broadcast: [u8; 2],
}

impl Batch {
    /// The batch of a product of `operands` (m x k x ..., k x n x ...) into `out`.
    pub fn of(out: &Shape, operands: [&Shape; 2]) -> Batch {
        let dims = Shape::new(&out.dims()[2..]);
        let mask = |s: &Shape| (0..dims.rank()).filter(|&d| s.dim(2 + d) != dims.dim(d)).fold(0u8, |m, d| m | 1 << d);
        Batch { dims, broadcast: operands.map(mask) }
    }

    /// Element strides of an operand (`which`, laid out as `layout`) along the batch
    /// dimensions: 0 where it broadcasts.
    pub fn strides(&self, which: usize, layout: &Layout) -> SmallVec<[i64; 6]> {
        (0..self.dims.rank())
            .map(|d| if self.broadcast[which] & 1 << d != 0 { 0 } else { layout.strides[2 + d] })
            .collect()
    }
}

impl Work {
    pub fn name(&self) -> &'static str {
        match self {
            Work::Kernel { .. } => "kernel",
            Work::MatMul { semiring, .. } if *semiring == Semiring::PLUS_TIMES => "matmul",
            Work::MatMul { .. } => "inner_product",
            Work::Fft { .. } => "fft",
            Work::Factor { op, .. } => op.name(),
            Work::Sort { op, .. } => op.name(),
            Work::Scatter { .. } => "scatter",
            Work::IndexCheck { .. } => "index_check",
        }
    }
}

/// An input of a step: a value that exists, or the promise of an earlier step's output.
#[derive(Clone)]
pub enum Binding {
    Value(Value),
    Promise(Arc<Promise>),
}

pub struct StepOutput {
    pub dtype: DType,
    pub shape: Shape,
    pub promise: Arc<Promise>,
    /// Examines the value as soon as the step has computed it (result comparison).
    pub check: Option<Arc<dyn OutputCheck>>,
    /// The application is waiting to read the value: an executor with memory of its own
    /// copies it back in the same submission that computes it.
    pub read_back: bool,
}

/// A look at a step's output before anything reads it; an error replaces the value (the
/// output and what depends on it are poisoned with it).
pub trait OutputCheck: Send + Sync {
    fn check(&self, executor: &dyn Executor, value: &Value) -> Result<()>;
}

/// A step's lists are inline for the sizes most steps have, so instantiating a cached
/// flush's steps allocates none of them.
pub struct Step {
    pub work: Work,
    pub inputs: SmallVec<[Binding; 4]>,
    pub params: SmallVec<[Scalar; 4]>,
    pub outputs: SmallVec<[StepOutput; 2]>,
    /// The call whose op this step computes; failures are reported against it.
    pub site: CallSite,
    /// With profiling on, the calls whose ops are fused into the step and their shares
    /// of its cost (summing to 1); empty otherwise.
    pub shares: Vec<(CallSite, f32)>,
    /// The step is an assignment whose old array nothing can read once it has run
    /// (decided per flush, `gen::Plan::mark_in_place`): its output may take that
    /// array's storage instead of a copy.
    pub in_place: bool,
}

/// What the profile records of a step that produced `outputs`: elements computed, and
/// bytes moved (the arrays it reads, whole, plus what it writes).
pub fn step_profile<'a>(
    executor: &'static str,
    work: &'a Work,
    outputs: &[Value],
    shares: &'a [(CallSite, f32)],
) -> crate::profile::StepInfo<'a> {
    let written: usize = outputs.iter().map(|v| v.storage.byte_len()).sum();
    let (kernel, elements, read): (_, usize, usize) = match work {
        Work::Kernel { kernel, .. } => {
            let read = kernel.inputs.iter().map(|i| i.dtype.size() * i.shape.numel()).sum();
            (Some(kernel), kernel.domain.numel(), read)
        }
        Work::MatMul { dtype, m, k, n, batch, .. } => {
            let count = batch.dims.numel();
            (None, m * n * count, (m * k + k * n) * count * dtype.size())
        }
        Work::Fft { dtype, shape, .. } => (None, shape.numel(), shape.numel() * dtype.size()),
        Work::Factor { dtype, shapes, .. } | Work::Sort { dtype, shapes, .. } => {
            let read: usize = shapes.iter().map(Shape::numel).sum();
            (None, shapes[0].numel(), read * dtype.size())
        }
        // The destination, the values and one i64 index per destination dimension.
        // A position and one index per source dimension.
        Work::IndexCheck { src, .. } => (None, 1, 8 * (1 + src.rank())),
        Work::Scatter { dtype, dst_shape, values_shape, .. } => {
            let per_value = dtype.size() + 8 * dst_shape.rank();
            (None, values_shape.numel(), dst_shape.numel() * dtype.size() + values_shape.numel() * per_value)
        }
    };
    crate::profile::StepInfo {
        executor,
        work: work.name(),
        kernel,
        elements: elements as u64,
        bytes: (read + written) as u64,
        shares,
    }
}

/// One step as a caller running it directly (a replay) hands it over: its work, input
/// values, parameters, output types and shapes, the call it reports failures against,
/// and its shares (as `Step::shares`).
pub struct StepCall<'a> {
    pub work: &'a Work,
    pub inputs: &'a [Value],
    pub params: &'a [Scalar],
    pub outputs: &'a mut dyn Iterator<Item = (DType, Shape)>,
    pub site: CallSite,
    pub shares: &'a [(CallSite, f32)],
}

/// Values lent to a step without touching their reference counts: bitwise copies that
/// are never dropped, so they stay valid while the borrowed originals live. A replay
/// runs its kernel on its inputs' values this way (`Executor::run` takes values).
#[derive(Default)]
pub struct Lent<'a> {
    copies: SmallVec<[ManuallyDrop<Value>; 4]>,
    originals: PhantomData<&'a Value>,
}

impl<'a> Lent<'a> {
    pub fn push(&mut self, v: &'a Value) {
        // SAFETY: the copy is never dropped (no second release of the storage), and `'a`
        // keeps the original, and so its storage, alive while the copy is used.
        self.copies.push(ManuallyDrop::new(unsafe { std::ptr::read(v) }));
    }

    pub fn as_slice(&self) -> &[Value] {
        // SAFETY: `ManuallyDrop<Value>` has the layout of `Value`.
        unsafe { std::slice::from_raw_parts(self.copies.as_ptr() as *const Value, self.copies.len()) }
    }
}

/// Counters of a cache since the runtime started.
#[derive(Copy, Clone, Default, Debug)]
pub struct CacheStats {
    pub lookups: u64,
    pub hits: u64,
    pub misses: u64,
    pub evictions: u64,
    pub entries: u64,
    /// Planning and compiling time the hits skipped: for each hit, what building its
    /// entry took when it missed (trace cache only).
    pub saved_ns: u64,
    /// Time the hits took instead: keying the flush, finding and instantiating its entry
    /// (trace cache only).
    pub hit_ns: u64,
}

/// A step's output values (inline: steps have few).
pub type StepValues = SmallVec<[Value; 2]>;

/// A value, or the error it failed with.
pub type Computed = std::result::Result<Value, Arc<Error>>;

/// What became of each output of a step: its value, or the error it is poisoned with.
pub type StepOutcome = SmallVec<[Computed; 2]>;

/// A step's input values, or their failures (inline: a small flush's steps allocate no list).
pub type InputValues = SmallVec<[Computed; 4]>;

impl Step {
    /// The step's input values, or their failures. `earlier` answers for promises of
    /// earlier steps that ran in the same batch and are not fulfilled yet (their value, or
    /// their error); every other promise is waited for.
    pub fn input_values(&self, earlier: impl Fn(&Arc<Promise>) -> Option<Computed>) -> InputValues {
        self.inputs
            .iter()
            .map(|b| match b {
                Binding::Value(v) => Ok(v.clone()),
                Binding::Promise(p) => earlier(p).unwrap_or_else(|| p.wait()),
            })
            .collect()
    }

    /// The error of this step when it panicked.
    pub fn panicked(&self, panic: &Box<dyn Any + Send>) -> Arc<Error> {
        panicked(&self.work, self.site, panic)
    }

    /// The types and shapes of the step's outputs.
    pub fn output_types(&self) -> impl Iterator<Item = (DType, Shape)> + '_ {
        self.outputs.iter().map(|o| (o.dtype, o.shape))
    }

    /// The value among `inputs` whose storage the step's output may be written into in
    /// place (see `in_place`), if any: an assignment's target, when the kernel reads no
    /// element of it (a point could otherwise read what another point wrote).
    pub fn reusable<'v>(&self, inputs: &'v [Value]) -> Option<&'v Value> {
        let Work::Kernel { kernel, .. } = &self.work else { return None };
        let into = kernel.outputs.first()?.into?;
        (self.in_place && !kernel.reads_own_target(0)).then(|| &inputs[into.input as usize])
    }

    /// Every output failed with `e`.
    pub fn failed(&self, e: Arc<Error>) -> StepOutcome {
        self.outputs.iter().map(|_| Err(e.clone())).collect()
    }

    /// The step computing only the outputs `keep` selects, with its kernel narrowed to
    /// them (compiled on `executor`), and the index in `inputs` of each input it reads.
    fn narrowed<E: Executor + ?Sized>(&self, keep: &[bool], executor: &E) -> Result<(Step, Vec<usize>)> {
        let Work::Kernel { kernel, .. } = &self.work else {
            unreachable!("only kernels have several outputs");
        };
        let (kernel, inputs) = kernel.narrowed(keep);
        let kernel = Arc::new(kernel);
        let compiled = executor.compile(kernel.clone())?;
        let outputs = self.outputs.iter().zip(keep).filter(|(_, keep)| **keep).map(|(o, _)| StepOutput {
            dtype: o.dtype,
            shape: o.shape,
            promise: o.promise.clone(),
            check: o.check.clone(),
            read_back: o.read_back,
        });
        let step = Step {
            work: Work::Kernel { kernel, compiled },
            inputs: inputs.iter().map(|&i| self.inputs[i].clone()).collect(),
            params: self.params.clone(),
            outputs: outputs.collect(),
            site: self.site,
            shares: self.shares.clone(),
            in_place: false,
        };
        Ok((step, inputs))
    }
}

/// Runs `step` on `inputs` (from `Step::input_values`) with `run`, which allocates its
/// outputs onto the list it is given (on failure the list holds those allocated) and
/// computes them, as `execute_into` does.
///
/// A kernel may compute values that have nothing to do with each other (a flush stores
/// values of one domain in one kernel, and a queue cut flushes every thread's pending
/// arrays): a failure poisons only the outputs that depend on it. An output reading a
/// failed input fails with that input's error, and an output whose allocation is refused
/// fails with that error; the other outputs are computed by the kernel narrowed to them.
pub fn run_step<E: Executor + ?Sized>(
    executor: &E,
    step: &Step,
    inputs: InputValues,
    mut run: impl FnMut(&Step, &[Value], &mut StepValues) -> std::result::Result<(), Arc<Error>>,
) -> StepOutcome {
    let kernel = match &step.work {
        Work::Kernel { kernel, .. } if step.outputs.len() > 1 => kernel,
        _ => return run_whole(step, inputs, run),
    };
    // Which outputs read a failed input (worked out only when one failed).
    let failed = inputs.iter().any(|i| i.is_err());
    let failure_read_by = |o: usize| {
        let read = kernel.inputs_read_by(o);
        inputs.iter().zip(read).find_map(|(i, read)| if read { i.as_ref().err().cloned() } else { None })
    };
    let mut outcome: SmallVec<[Option<Computed>; 2]> =
        (0..step.outputs.len()).map(|o| if failed { failure_read_by(o).map(Err) } else { None }).collect();
    loop {
        let keep: SmallVec<[bool; 2]> = outcome.iter().map(Option::is_none).collect();
        let kept: SmallVec<[usize; 2]> = (0..keep.len()).filter(|&o| keep[o]).collect();
        if kept.is_empty() {
            break;
        }
        let narrowed;
        let (to_run, ins): (&Step, SmallVec<[Value; 4]>) = if kept.len() == keep.len() && !failed {
            (step, inputs.iter().map(|i| i.clone().expect("no input failed")).collect())
        } else {
            match step.narrowed(&keep, executor) {
                Ok((s, used)) => {
                    narrowed = s;
                    let ins = used.iter().map(|&i| inputs[i].clone().expect("kept outputs read no failed input"));
                    (&narrowed, ins.collect())
                }
                Err(e) => {
                    let e = Arc::new(e.with_origin(step.site));
                    kept.iter().for_each(|&o| outcome[o] = Some(Err(e.clone())));
                    break;
                }
            }
        };
        let mut values = StepValues::new();
        match run(to_run, &ins, &mut values) {
            Ok(()) => {
                for (&o, v) in kept.iter().zip(values) {
                    outcome[o] = Some(Ok(v));
                }
                break;
            }
            Err(e) => match refused_output(step, &kept, values.len(), &e) {
                // The others are tried without it.
                Some(o) => outcome[o] = Some(Err(e)),
                None => {
                    kept.iter().for_each(|&o| outcome[o] = Some(Err(e.clone())));
                    break;
                }
            },
        }
    }
    outcome.into_iter().map(|o| o.expect("every output is settled")).collect()
}

fn panicked(work: &Work, site: CallSite, panic: &Box<dyn Any + Send>) -> Arc<Error> {
    let msg = engine::panic_message(panic);
    Arc::new(
        Error::new(ErrorKind::Internal, format!("internal error in {} step: {msg}", work.name())).with_origin(site),
    )
}

/// `run_step` of a step whose outputs are computed together or not at all (one output,
/// or an intrinsic).
fn run_whole(
    step: &Step,
    inputs: InputValues,
    mut run: impl FnMut(&Step, &[Value], &mut StepValues) -> std::result::Result<(), Arc<Error>>,
) -> StepOutcome {
    let mut values = StepValues::new();
    match inputs.into_iter().collect::<std::result::Result<SmallVec<[Value; 4]>, _>>() {
        Ok(ins) => match run(step, &ins, &mut values) {
            Ok(()) => values.into_iter().map(Ok).collect(),
            Err(e) => step.failed(e),
        },
        // A failed input's error (with its origin) passes on unchanged.
        Err(e) => step.failed(e),
    }
}

/// Of the outputs `kept` of `step`, the one to leave out after an attempt to compute them
/// failed with `e` having allocated `allocated` of them, if the failure is one output's:
/// the next one's allocation, or, when memory ran out later (a device allocates when it
/// records the work), the largest.
fn refused_output(step: &Step, kept: &[usize], allocated: usize, e: &Error) -> Option<usize> {
    if kept.len() < 2 {
        return None;
    }
    if allocated < kept.len() {
        return Some(kept[allocated]);
    }
    let bytes = |o: usize| step.outputs[o].shape.numel() * step.outputs[o].dtype.size();
    (e.kind == ErrorKind::OutOfMemory).then(|| kept.iter().copied().max_by_key(|&o| bytes(o))).flatten()
}

/// Allocates the outputs of a step of `work` (their types and shapes) on `executor`,
/// pushing them onto `values`, and has `run` compute them; a failure, or a panic (as an
/// internal error), is reported at `site`. On failure `values` holds whatever was
/// allocated. The first output takes the storage of `reuse` (`Step::reusable`) instead
/// where the executor can write it in place.
pub fn execute_into<E: Executor + ?Sized>(
    executor: &E,
    work: &Work,
    outputs: impl Iterator<Item = (DType, Shape)>,
    site: CallSite,
    values: &mut StepValues,
    reuse: Option<&Value>,
    run: impl FnOnce(&[Value]) -> Result<()>,
) -> std::result::Result<(), Arc<Error>> {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        for (dtype, shape) in outputs {
            let reused = reuse.filter(|v| values.is_empty() && executor.writable_in_place(v, dtype, &shape));
            values.push(match reused {
                Some(v) => Value { storage: v.storage.clone(), layout: Layout::dense(&shape) },
                None => executor.alloc(dtype, &shape)?,
            });
        }
        run(values)
    }));
    match outcome {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(Arc::new(e.with_origin(site))),
        Err(panic) => Err(panicked(work, site, &panic)),
    }
}

/// The steps produced by one flush, in dependency order.
#[derive(Default)]
pub struct ProgramSequence {
    pub steps: Vec<Step>,
    /// Graph nodes the flush made unreachable: released by the execution thread after the
    /// steps ran, so the application does not pay for freeing them.
    pub retired: Vec<Inputs>,
    /// Stored values nothing outside the sequence reads, each with the step that reads it
    /// last (in step order): released once that step is done, so a flush's working set
    /// is what its steps use at a time, not everything it stores.
    pub release_after: Vec<(usize, Arc<Promise>)>,
}

impl ProgramSequence {
    /// Elements the sequence writes; decides whether it is small enough to run inline.
    pub fn output_elements(&self) -> usize {
        self.steps.iter().flat_map(|s| &s.outputs).map(|o| o.shape.numel()).sum()
    }
}

/// A device that runs steps. Backends implement this; nothing above `exec/` names a
/// backend type. Steps may be given values in host memory (arrays the application
/// created) as well as the executor's own.
pub trait Executor: Send + Sync {
    fn name(&self) -> &'static str;
    fn compile(&self, kernel: Arc<Kernel>) -> Result<Arc<dyn CompiledKernel>>;
    /// Storage for a dense result, allocated just before the step that writes it.
    fn alloc(&self, dtype: DType, shape: &Shape) -> Result<Value>;
    /// Whether `value` (an array nothing else will read) can be a step's dense output of
    /// `dtype` and `shape` written in place: storage of this executor's own, laid out
    /// densely from its start.
    fn writable_in_place(&self, value: &Value, dtype: DType, shape: &Shape) -> bool {
        let _ = (value, dtype, shape);
        false
    }
    fn run(&self, work: &Work, inputs: &[Value], params: &[Scalar], outputs: &[Value]) -> Result<()>;
    /// Runs the steps of one program sequence in order and calls `done(i, outcome)` for
    /// each, in step order, once it has finished, running each with `run_step` (so a
    /// failure poisons only the outputs, and later steps, that depend on it). The default
    /// runs each step alone, after the previous one is done; an executor may record
    /// several into one submission instead.
    fn run_steps(&self, steps: &[Step], done: &mut dyn FnMut(usize, StepOutcome)) {
        for (i, step) in steps.iter().enumerate() {
            let outcome = run_step(self, step, step.input_values(|_| None), |step, inputs, values| {
                execute_into(self, &step.work, step.output_types(), step.site, values, step.reusable(inputs), |outs| {
                    self.run(&step.work, inputs, &step.params, outs)
                })
            });
            done(i, outcome);
        }
    }
    /// Whether steps run one at a time with `run` cost no more than together with
    /// `run_steps` (nothing to batch into a submission): a small flush for a blocking
    /// read then runs its recipe step by step on the reading thread, without a sequence.
    fn runs_steps_alone_cheaply(&self) -> bool {
        false
    }
    /// The most values one fused kernel may store: the planner starts another kernel
    /// beyond it (a device binds each output as a buffer, and some have few binding slots).
    fn max_kernel_outputs(&self) -> usize {
        usize::MAX
    }
    /// Whether a reduction or scan may share its kernel with costly math (transcendental
    /// functions, pow, remainders, random numbers): not on devices that end a shader's
    /// loops early, where such math loops inside every point of a loop along the axis.
    fn reductions_fuse_costly_math(&self) -> bool {
        true
    }
    /// Stops the executor's own threads and waits until they have ended (runtime
    /// shutdown), so none outlives `sl_shutdown`. Anything run later runs on the calling
    /// thread.
    fn stop_threads(&self) {}
    /// Steps handed to the CPU because this executor's device cannot run them.
    fn steps_on_host(&self) -> u64 {
        0
    }
    /// Counters of the executor's in-memory cache of compiled device programs, if it has
    /// one (the CPU executor only lowers kernels).
    fn program_cache(&self) -> Option<CacheStats> {
        None
    }
    /// Counters of the array buffers in the executor's own memory (a device's), if it
    /// has any.
    fn device_memory(&self) -> Option<memory::PoolStats> {
        None
    }
    /// `value` with its elements in host memory (the same value when they already are;
    /// else a copy with the same layout). `bytes` is how far its layout reaches.
    fn host_value(&self, value: &Value) -> Result<Value> {
        match value.storage.host_bytes() {
            Some(_) => Ok(value.clone()),
            None => crate::ir::bail!(Internal, "{} executor holds a value outside host memory", self.name()),
        }
    }
}

/// Kinds of device an executor runs on.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum DeviceKind {
    /// The native CPU executor.
    Host,
    DiscreteGpu,
    IntegratedGpu,
    VirtualGpu,
    /// A Vulkan implementation on the CPU (lavapipe).
    VulkanCpu,
    Other,
}

impl DeviceKind {
    pub fn name(self) -> &'static str {
        match self {
            DeviceKind::Host => "host CPU",
            DeviceKind::DiscreteGpu => "discrete GPU",
            DeviceKind::IntegratedGpu => "integrated GPU",
            DeviceKind::VirtualGpu => "virtual GPU",
            DeviceKind::VulkanCpu => "CPU-type Vulkan",
            DeviceKind::Other => "other Vulkan",
        }
    }
}

/// What runs kernels and why it was chosen.
#[derive(Clone, Debug)]
pub struct DeviceInfo {
    pub backend: Backend,
    pub kind: DeviceKind,
    pub name: String,
    pub float64: bool,
    pub reason: String,
}

/// Starts the executor `config.backend` asks for (see `config::Backend`), with array
/// memory from `memory`.
pub fn start(config: &Config, memory: Arc<memory::HostPool>) -> Result<(Arc<dyn Executor>, DeviceInfo)> {
    let cpu: Arc<dyn Executor> = Arc::new(crate::backend::cpu::CpuExecutor::new(config.threads, memory.clone())?);
    let cpu_info = |reason: String| DeviceInfo {
        backend: Backend::Cpu,
        kind: DeviceKind::Host,
        name: format!("CPU executor ({} threads)", config.threads),
        float64: true,
        reason,
    };
    let open = |want| {
        let opts = vulkan::Options {
            want,
            no_f64: config.vulkan_no_f64,
            no_int64_atomics: config.vulkan_no_int64_atomics,
            max_bindings: config.vulkan_max_bindings,
            max_groups: config.vulkan_max_groups,
            submit_per_step: config.vulkan_submit_per_step,
            no_handwritten: config.vulkan_no_handwritten,
            no_read_back: config.vulkan_no_read_back,
            axis_tree: config.vulkan_axis_tree,
            device_sort: config.vulkan_device_sort,
            device_factor: config.vulkan_device_factor,
            blocked_scan: config.vulkan_blocked_scan,
            validation: config.vulkan_validation,
            loader: config.vulkan_loader.clone(),
            cache_dir: vulkan::cache_root(config.cache_dir.as_deref()),
            device_memory: config.device_memory,
            pipeline_cache_entries: config.pipeline_cache_entries,
        };
        vulkan::VulkanExecutor::open(&opts, cpu.clone(), memory.clone(), config.memory_limit)
    };
    match config.backend {
        Backend::Cpu => Ok((cpu.clone(), cpu_info("the CPU backend was requested".into()))),
        Backend::Vulkan => {
            let (exec, mut info) = open(vulkan::Want::Any).map_err(|e| {
                Error::new(e.kind, format!("the Vulkan backend was requested but cannot run: {}", e.message))
            })?;
            info.reason = format!("the Vulkan backend was requested; {}", info.reason);
            Ok((Arc::new(exec), info))
        }
        Backend::Auto => match open(vulkan::Want::Gpu) {
            Ok((exec, mut info)) => {
                info.reason = format!("auto: {}", info.reason);
                Ok((Arc::new(exec), info))
            }
            Err(e) => Ok((cpu.clone(), cpu_info(format!("auto: no Vulkan GPU, so the CPU executor ({})", e.message)))),
        },
    }
}
