//! Assignments (`KernelOutput::into`): the output is a new version of an input. Written in
//! place, the kernel stores only the placed view; otherwise the input is first copied
//! into the fresh output here, and the kernel then stores the view over it.

use std::sync::Arc;

use super::threads::Workers;
use super::vm::host_ptr;
use crate::ir::kernel::Kernel;
use crate::ir::{Layout, MAX_RANK, Result, Shape, Value};

/// Bytes one task of a dense copy moves.
const COPY_BLOCK: usize = 1 << 20;

/// Copies the arrays each assignment output of `kernel` makes a new version of into the
/// output, unless the output was given that array's storage (written in place).
pub fn copy_targets(kernel: &Kernel, inputs: &[Value], outputs: &[Value], workers: &Workers) -> Result<()> {
    for (o, out) in kernel.outputs.iter().zip(outputs) {
        let Some(into) = o.into else { continue };
        let src = &inputs[into.input as usize];
        if Arc::as_ptr(&src.storage) as *const u8 == Arc::as_ptr(&out.storage) as *const u8 {
            continue;
        }
        let spec = &kernel.inputs[into.input as usize];
        copy_dense(src, &spec.shape, spec.dtype.size(), host_ptr(out)? as *mut u8, workers)?;
    }
    Ok(())
}

/// Copies the elements of `src` (shaped `shape`, `size` bytes each) into the dense
/// array at `dst`, in blocks on the workers.
fn copy_dense(src: &Value, shape: &Shape, size: usize, dst: *mut u8, workers: &Workers) -> Result<()> {
    let base = host_ptr(src)?;
    let bytes = shape.numel() * size;
    let (dst, base) = (dst as usize, base as usize);
    if src.layout.is_dense(shape) {
        let from = base + src.layout.offset as usize * size;
        let blocks = bytes.div_ceil(COPY_BLOCK);
        workers.for_each(blocks, blocks < 2, |range| {
            for b in range {
                let (start, end) = (b * COPY_BLOCK, ((b + 1) * COPY_BLOCK).min(bytes));
                // SAFETY: both ranges lie inside their arrays; blocks are disjoint.
                unsafe {
                    std::ptr::copy_nonoverlapping((from + start) as *const u8, (dst + start) as *mut u8, end - start)
                };
            }
        });
        return Ok(());
    }
    // Any other layout: row by row along dimension 0.
    let d0 = shape.dim(0).max(1);
    let rows = shape.numel() / d0;
    let layout = src.layout;
    workers.for_each(rows, bytes < COPY_BLOCK, |range| {
        for row in range {
            let mut idx = [0i64; MAX_RANK];
            let mut rest = row;
            for d in 1..shape.rank() {
                idx[d] = (rest % shape.dim(d)) as i64;
                rest /= shape.dim(d);
            }
            let first = Layout::offset_of(&layout, &idx, shape.rank());
            for i in 0..d0 {
                let at = (first + i as i64 * layout.strides[0]) * size as i64;
                // SAFETY: the layout stays inside the source; each row writes its own run.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        (base as *const u8).offset(at as isize),
                        (dst as *mut u8).add((row * d0 + i) * size),
                        size,
                    )
                };
            }
        }
    });
    Ok(())
}
