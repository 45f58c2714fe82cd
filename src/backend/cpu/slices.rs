//! Gathers of whole slices (`ir::slices`): the kernel computing where each slice starts
//! runs as a program over the slices, then each slice is one `memcpy`, spread over the
//! workers. Slices shorter than `MIN_SLICE_LEN` keep the gather program.

use std::any::Any;
use std::sync::Arc;

use super::program::{self, Program};
use super::threads::Workers;
use super::vm::{self, PARALLEL_MIN};
use crate::exec::CompiledKernel;
use crate::exec::memory::HostPool;
use crate::ir::kernel::Kernel;
use crate::ir::slices::slice_gather;
use crate::ir::{DType, Layout, Result, Scalar, Shape, Value};

/// Elements per slice below which the gather program is kept: from slices of 2 elements
/// up, a `memcpy` per slice was faster (1.4x there, 4.8x at 32; BENCHMARKS.md, "Gather").
const MIN_SLICE_LEN: usize = 2;

/// A gather of whole slices, lowered.
pub struct SliceCopy {
    offsets: Program,
    /// Parameters of `offsets` after the step's own.
    offset_params: Vec<Scalar>,
    source: usize,
    elem_size: usize,
    slice_bytes: usize,
    slices: usize,
}

impl CompiledKernel for SliceCopy {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// `k` as a copy of whole slices, if it is one.
pub fn lower(k: &Kernel) -> Result<Option<SliceCopy>> {
    let Some(g) = slice_gather(k).filter(|g| g.slice_len >= MIN_SLICE_LEN) else { return Ok(None) };
    let elem_size = k.inputs[g.source].dtype.size();
    Ok(Some(SliceCopy {
        offsets: program::lower(Arc::new(g.offsets))?,
        offset_params: g.offset_params,
        source: g.source,
        elem_size,
        slice_bytes: g.slice_len * elem_size,
        slices: g.slices,
    }))
}

impl SliceCopy {
    pub fn run(
        &self,
        inputs: &[Value],
        params: &[Scalar],
        output: &Value,
        workers: &Workers,
        memory: &Arc<HostPool>,
    ) -> Result<()> {
        let shape = Shape::new(&[self.slices]);
        let storage = Arc::new(memory.alloc(self.slices * DType::I64.size())?);
        let offsets = Value { storage, layout: Layout::dense(&shape) };
        let params: Vec<Scalar> = params.iter().chain(&self.offset_params).copied().collect();
        vm::run(&self.offsets, inputs, &params, std::slice::from_ref(&offsets), workers)?;
        // Addresses, so the workers may share them.
        let at = |v: &Value| vm::host_ptr(v).map(|p| p as usize);
        let (from, to, starts) = (at(&inputs[self.source])?, at(output)?, at(&offsets)?);
        let (bytes, elem_size) = (self.slice_bytes, self.elem_size);
        let serial = self.slices * (bytes / elem_size) < PARALLEL_MIN;
        workers.for_each(self.slices, serial, |range| {
            for j in range {
                // SAFETY: the offsets are clamped into the source, whose slices are
                // contiguous (`slice_gather`); the output holds `slices` slices and does
                // not overlap the source.
                unsafe {
                    let start = *(starts as *const i64).add(j) as usize;
                    std::ptr::copy_nonoverlapping(
                        (from as *const u8).add(start * elem_size),
                        (to as *mut u8).add(j * bytes),
                        bytes,
                    );
                }
            }
        });
        Ok(())
    }
}
