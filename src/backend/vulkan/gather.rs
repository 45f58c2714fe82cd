//! Gathers of whole slices on the device (`kernels/gather.comp`): for a kernel that
//! `ir::slices::slice_gather` finds copies contiguous slices of its source (`x[:, idx]`
//! of a column-major matrix), a generated pass computes where each slice starts (the
//! gather's index arithmetic, once per slice instead of once per element), then the
//! hand-written kernel copies the slices in blocks, reads and writes contiguous.
//!
//! Both passes bind the same buffers: the meta words (the offsets pass's, then the copy's),
//! the kernel's inputs, the offsets (the first pass's output, bound as scratch before the
//! output) and the output. Slices shorter than `MIN_SLICE_LEN`, sources or outputs beyond
//! one storage-buffer range, inputs that would need packing, and copies whose invocations
//! would loop longer than the driver allows take the generated gather.

use std::fmt::Write;

use super::codegen::{HEADER_WORDS, LOCAL, Mode};
use super::grid::spread;
use super::programs::ProgramRef;
use super::{DeviceKernel, Handwritten, Launch, VulkanExecutor};
use crate::exec::CompiledKernel;
use crate::ir::kernel::{Inst, Kernel};
use crate::ir::slices::slice_gather;
use crate::ir::{DType, Result, Scalar, Value};

/// Elements per slice below which the generated gather is kept. On lavapipe the copy wins
/// from 4 elements up (BENCHMARKS.md, "Gather"); on a GPU the offsets cost 16 bytes per
/// slice of traffic (written, then read), which is small against 16 elements or more.
const MIN_SLICE_LEN: usize = 16;
/// Elements each invocation copies per block (`gather.comp`).
const ITEMS: usize = 8;

/// A gather of whole slices, compiled.
pub struct GatherKernel {
    /// The kernel computing each slice's offset, and its generated pipeline.
    offsets_kernel: Kernel,
    /// Parameters of the offsets kernel after the step's own.
    offset_params: Vec<Scalar>,
    offsets: DeviceKernel,
    copy: ProgramRef,
    /// The copy's meta words (see `gather.comp`).
    words: [u32; 5],
    groups: [u32; 2],
}

impl CompiledKernel for GatherKernel {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The copy's shader, for elements of `t`, its meta words from `base`, the source bound
/// at `src` and the offsets and output after `inputs` inputs.
fn source(t: DType, base: usize, src: usize, inputs: usize) -> String {
    let word = match t.size() {
        1 => "uint8_t",
        4 => "uint",
        8 => "uint64_t",
        16 => "u64vec2",
        size => unreachable!("elements of {size} bytes"),
    };
    let mut s = String::from(
        "#version 450\n\
         #extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n\
         #extension GL_EXT_shader_8bit_storage : require\n",
    );
    let (offsets, out) = (1 + inputs, 2 + inputs);
    writeln!(s, "#define WORD {word}\n#define BASE {base}\n#define SRC {src}\n#define OFFSETS {offsets}").unwrap();
    writeln!(s, "#define OUT {out}").unwrap();
    s + include_str!("../../../kernels/gather.comp")
}

/// Whether a value `k` computes reads input `input`.
fn reads_input(k: &Kernel, input: usize) -> bool {
    let live = k.live();
    k.insts.iter().zip(live).any(|(inst, live)| {
        live && matches!(*inst, Inst::Load { input: i, .. } | Inst::Gather { input: i, .. } if i as usize == input)
    })
}

impl VulkanExecutor {
    /// `k` as a copy of whole slices, if it is one that fits the kernel.
    pub(super) fn compile_gather(&self, k: &Kernel) -> Result<Option<GatherKernel>> {
        let target = &self.target;
        let Some(mut g) = slice_gather(k) else { return Ok(None) };
        let dtype = k.inputs[g.source].dtype;
        let out_elems = g.slice_len * g.slices;
        let fits = |bytes: u64| bytes <= target.chunk_bytes && bytes / dtype.size() as u64 <= i32::MAX as u64;
        let in_range = fits(super::codegen::span_bytes(&k.inputs[g.source])) && fits((out_elems * dtype.size()) as u64);
        if g.slice_len < MIN_SLICE_LEN || !in_range {
            return Ok(None);
        }
        // The copy moves bits: an f64 source the offsets pass binds but does not read
        // (its indices may) is declared as i64 there, so it needs no shaderFloat64.
        if dtype == DType::F64 && !reads_input(&g.offsets, g.source) {
            g.offsets.inputs[g.source].dtype = DType::I64;
        }
        let Ok(shader) = super::codegen::generate(&g.offsets, target) else { return Ok(None) };
        if shader.mode != Mode::Elementwise || !shader.packs.is_empty() {
            return Ok(None);
        }
        // Invocations per slice: a power of two, no more than twice the slice.
        let lanes = g.slice_len.next_power_of_two().min(LOCAL as usize);
        let parts = g.slice_len.div_ceil(lanes * ITEMS);
        let blocks = g.slices.div_ceil(LOCAL as usize / lanes) * parts;
        let [x, y] = spread(blocks, target);
        // Each block is an outer iteration and ITEMS inner ones; the kernel has no other loops.
        let loops = blocks.div_ceil(x * y) * (ITEMS + 1);
        if target.max_loop_iterations.is_some_and(|limit| loops > limit) {
            return Ok(None);
        }
        // The output is bound after the offsets pass's own bindings, in one range.
        let offsets = self.device_kernel(shader, &[1])?;
        let base = HEADER_WORDS + offsets.numbers.len() + 2 * g.offsets.params.len();
        let copy = self.programs.program(&source(dtype, base, 1 + g.source, k.inputs.len()), &offsets.bindings)?;
        let words = [g.slices, g.slice_len, lanes.trailing_zeros() as usize, parts, blocks].map(|w| w as u32);
        let (offsets_kernel, offset_params, groups) = (g.offsets, g.offset_params, [x as u32, y as u32]);
        Ok(Some(GatherKernel { offsets_kernel, offset_params, offsets, copy, words, groups }))
    }

    /// The offsets pass, then the copy.
    pub(super) fn gather_launch(&self, g: &GatherKernel, params: &[Scalar], outputs: &[Value]) -> Result<Launch> {
        let params: Vec<Scalar> = params.iter().chain(&g.offset_params).copied().collect();
        let mut launch = self.kernel_launch(&g.offsets_kernel, &g.offsets, &params, outputs)?;
        if launch.dispatches.is_empty() {
            // No slices, or empty ones: nothing to copy.
            return Ok(launch);
        }
        launch.words.extend_from_slice(&g.words);
        launch.scratch = Some(g.offsets_kernel.domain.numel() * DType::I64.size());
        launch.scratch_first = true;
        launch.dispatches.push((self.programs.get(&g.copy)?, [g.groups[0], g.groups[1], 1]));
        Handwritten::Gather.count();
        Ok(launch)
    }
}
