//! Running program sequences: the executor interface every backend implements, and the
//! engine that runs sequences asynchronously, resolves dependencies, allocates results
//! just before their step runs, and poisons results of failed work.

pub mod engine;
pub mod memory;

use std::any::Any;
use std::sync::Arc;

use crate::ir::kernel::Kernel;
use crate::ir::{CallSite, DType, Inputs, Promise, Result, Scalar, ScatterMode, Shape, Value};

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
    /// inputs [a (m x k), b (k x n)] -> [c (m x n)]
    MatMul {
        dtype: DType,
        m: usize,
        k: usize,
        n: usize,
    },
    /// inputs [dst, values, index_0, ...] (indices i64, shaped like values) -> [out]
    Scatter {
        mode: ScatterMode,
        dtype: DType,
        dst_shape: Shape,
        values_shape: Shape,
    },
}

impl Work {
    pub fn name(&self) -> &'static str {
        match self {
            Work::Kernel { .. } => "kernel",
            Work::MatMul { .. } => "matmul",
            Work::Scatter { .. } => "scatter",
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
}

pub struct Step {
    pub work: Work,
    pub inputs: Vec<Binding>,
    pub params: Vec<Scalar>,
    pub outputs: Vec<StepOutput>,
    /// The call whose op this step computes; failures are reported against it.
    pub site: CallSite,
}

/// The steps produced by one flush, in dependency order.
#[derive(Default)]
pub struct ProgramSequence {
    pub steps: Vec<Step>,
    /// Graph nodes the flush made unreachable: released by the execution thread after the
    /// steps ran, so the application does not pay for freeing them.
    pub retired: Vec<Inputs>,
}

impl ProgramSequence {
    /// Elements the sequence writes; decides whether it is small enough to run inline.
    pub fn output_elements(&self) -> usize {
        self.steps.iter().flat_map(|s| &s.outputs).map(|o| o.shape.numel()).sum()
    }
}

/// A device that runs steps. Backends implement this; nothing above `exec/` names a
/// backend type.
pub trait Executor: Send + Sync {
    fn name(&self) -> &'static str;
    fn compile(&self, kernel: Arc<Kernel>) -> Result<Arc<dyn CompiledKernel>>;
    /// Storage for a dense result, allocated just before the step that writes it.
    fn alloc(&self, dtype: DType, shape: &Shape) -> Result<Value>;
    fn run(&self, work: &Work, inputs: &[Value], params: &[Scalar], outputs: &[Value]) -> Result<()>;
}

/// The CPU executor, with `threads` workers drawing array memory from `memory`.
pub fn cpu_executor(threads: usize, memory: Arc<memory::HostPool>) -> Result<Arc<dyn Executor>> {
    Ok(Arc::new(crate::backend::cpu::CpuExecutor::new(threads, memory)?))
}
