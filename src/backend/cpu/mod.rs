//! The CPU executor: fused kernels run as register programs over cache-sized chunks on a
//! pool of worker threads; intrinsics call well-kept crates.

mod access;
mod assign;
mod complex;
mod elem;
mod factor;
mod fft;
mod gather;
mod linalg;
pub mod math;
mod ops;
mod program;
mod radix;
mod random;
mod reduce;
mod scatter;
mod semiring;
mod slices;
mod sort;
mod threads;
mod vm;

pub(crate) use factor::failure_error;

use std::any::Any;
use std::sync::Arc;

use crate::exec::memory::HostPool;
use crate::exec::{CompiledKernel, Executor, Work};
use crate::ir::kernel::Kernel;
use crate::ir::{DType, Layout, Result, Scalar, Shape, Value, bail};

impl CompiledKernel for program::Program {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

pub struct CpuExecutor {
    workers: threads::Workers,
    memory: Arc<HostPool>,
    fft_plans: fft::Plans,
}

impl CpuExecutor {
    pub fn new(threads: usize, memory: Arc<HostPool>) -> Result<CpuExecutor> {
        Ok(CpuExecutor { workers: threads::Workers::new(threads)?, memory, fft_plans: fft::Plans::new() })
    }
}

impl Executor for CpuExecutor {
    fn name(&self) -> &'static str {
        "cpu"
    }

    fn compile(&self, kernel: Arc<Kernel>) -> Result<Arc<dyn CompiledKernel>> {
        if let Some(copy) = slices::lower(&kernel)? {
            return Ok(Arc::new(copy));
        }
        Ok(Arc::new(program::lower(kernel)?))
    }

    fn alloc(&self, dtype: DType, shape: &Shape) -> Result<Value> {
        let bytes = match shape.checked_numel().and_then(|n| n.checked_mul(dtype.size())) {
            Some(b) => b,
            None => bail!(OutOfMemory, "an array of shape {shape} and type {dtype} does not fit in memory"),
        };
        let buf = self.memory.alloc(bytes)?;
        Ok(Value { storage: Arc::new(buf), layout: Layout::dense(shape) })
    }

    fn writable_in_place(&self, value: &Value, dtype: DType, shape: &Shape) -> bool {
        let bytes = shape.numel() * dtype.size();
        value.layout == Layout::dense(shape)
            && value.storage.host_bytes().is_some_and(|b| b.len() >= bytes)
            && value.storage.as_any().is::<crate::exec::memory::HostBuffer>()
    }

    fn run(&self, work: &Work, inputs: &[Value], params: &[Scalar], outputs: &[Value]) -> Result<()> {
        match work {
            Work::Kernel { compiled, .. } => {
                if let Some(copy) = compiled.as_any().downcast_ref::<slices::SliceCopy>() {
                    return copy.run(inputs, params, &outputs[0], &self.workers, &self.memory);
                }
                let Some(prog) = compiled.as_any().downcast_ref::<program::Program>() else {
                    bail!(Internal, "kernel was compiled for another executor");
                };
                assign::copy_targets(&prog.kernel, inputs, outputs, &self.workers)?;
                vm::run(prog, inputs, params, outputs, &self.workers)
            }
            Work::MatMul { dtype, conj, semiring, m, k, n, batch } => linalg::matmul(
                *dtype,
                [*m, *k, *n],
                *conj,
                *semiring,
                batch,
                [&inputs[0], &inputs[1], &outputs[0]],
                &self.workers,
            ),
            Work::Fft { spec, dtype, shape, out_shape } => fft::fft(
                &self.fft_plans,
                &self.workers,
                &self.memory,
                spec,
                *dtype,
                (shape, out_shape),
                &inputs[0],
                &outputs[0],
            ),
            Work::Factor { op, dtype, shapes, out_shape } => {
                factor::factor(*op, *dtype, shapes, out_shape, inputs, &outputs[0], &self.workers)
            }
            Work::Sort { op, dtype, shapes, .. } => {
                sort::sort(*op, *dtype, (shapes, inputs), &outputs[0], &self.workers, &self.memory)
            }
            Work::Scatter { mode, dtype, dst_shape, values_shape } => scatter::scatter(
                *mode,
                *dtype,
                (&inputs[0], dst_shape),
                (&inputs[1], values_shape),
                &inputs[2..],
                &outputs[0],
            ),
            Work::IndexCheck { what, src, out } => gather::index_check(what, src, out, inputs, &outputs[0]),
        }
    }

    fn stop_threads(&self) {
        self.workers.stop();
    }

    fn runs_steps_alone_cheaply(&self) -> bool {
        true
    }
}
