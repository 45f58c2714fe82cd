//! Copies through a permutation on the device (`kernels/transpose.comp`): a kernel that
//! only stores its one input, read through views that compose to a strided layout in
//! which the input is contiguous along another dimension than the output (a transpose,
//! or any permute that moves the innermost dimension), runs as blocks copied through
//! shared memory, so that reads and writes are both contiguous. Other kernels, arrays
//! beyond one storage-buffer range and numbers beyond 32 bits take the generated
//! element-wise kernel.

use std::fmt::Write;

use super::codegen::{self, Target};
use super::glsl;
use super::programs::{ProgramRef, Programs};
use super::{Handwritten, Launch};
use crate::exec::CompiledKernel;
use crate::ir::kernel::{Inst, Kernel, OutputKind};
use crate::ir::{DType, Layout, Result};

/// Edge of the square blocks of `kernels/transpose.comp`.
const TILE: usize = 32;

/// A copy-through-permute kernel, compiled.
pub struct TransposeKernel {
    pipeline: ProgramRef,
    /// The meta words (see `transpose.comp`).
    words: Vec<u32>,
    blocks: usize,
}

impl CompiledKernel for TransposeKernel {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The input's layout over the kernel's domain if `k` only copies its one input through
/// views that re-index its storage.
fn copied_layout(k: &Kernel) -> Option<Layout> {
    let ([input], [out]) = (&k.inputs[..], &k.outputs[..]) else { return None };
    let Inst::Load { input: 0, map } = k.insts[out.value as usize] else { return None };
    if out.kind != OutputKind::Store || out.dtype != input.dtype {
        return None;
    }
    // The map's steps run from the domain outward to the input: compose from the input in.
    k.maps[map as usize]
        .steps
        .iter()
        .rev()
        .try_fold(input.layout, |layout, s| s.step.view_layout(&layout, &s.out, &s.src))
}

/// `k` as a blocked copy, if it is a copy through a permutation that fits the kernel.
pub fn compile(k: &Kernel, target: &Target, programs: &Programs) -> Result<Option<TransposeKernel>> {
    let Some(layout) = copied_layout(k) else { return Ok(None) };
    if !glsl::has_type(k.inputs[0].dtype) {
        return Ok(None);
    }
    let (dims, rank) = (k.domain.dims(), k.domain.rank());
    // The output is contiguous along its first dimension of more than one point, the
    // input along the dimension of stride +-1; a copy is a transpose if they differ.
    let spread = |d: &usize| dims[*d] > 1;
    let (Some(a), Some(b)) = ((0..rank).find(spread), (0..rank).filter(spread).find(|&d| layout.strides[d].abs() == 1))
    else {
        return Ok(None);
    };
    let bytes = |n: u64| n * k.inputs[0].dtype.size() as u64;
    let fits =
        codegen::span_bytes(&k.inputs[0]) <= target.chunk_bytes && bytes(k.domain.numel() as u64) <= target.chunk_bytes;
    if a == b || !fits {
        return Ok(None);
    }
    let (blocks_a, blocks_b) = (dims[a].div_ceil(TILE), dims[b].div_ceil(TILE));
    let blocks = blocks_a * blocks_b * (k.domain.numel() / (dims[a] * dims[b]));
    let mut numbers = vec![rank as i64, a as i64, b as i64, blocks_a as i64, blocks_b as i64, blocks as i64];
    numbers.push(layout.offset);
    numbers.extend(dims.iter().map(|&n| n as i64));
    numbers.extend_from_slice(&layout.strides[..rank]);
    let Some(words) = numbers.iter().map(|&v| i32::try_from(v).ok().map(|v| v as u32)).collect() else {
        return Ok(None);
    };
    let pipeline = programs.program(&source(k.inputs[0].dtype), &RANGES)?;
    Ok(Some(TransposeKernel { pipeline, words, blocks }))
}

/// Bindings: meta, input, output, one range each.
const RANGES: [u32; 3] = [1; 3];

/// The shader for elements of `t`, copied as bits.
fn source(t: DType) -> String {
    let (word, reg) = match t.size() {
        1 => ("uint8_t", "uint"),
        4 => ("uint", "uint"),
        8 => ("uint64_t", "uint64_t"),
        16 => ("u64vec2", "u64vec2"),
        size => unreachable!("elements of {size} bytes"),
    };
    let mut s = String::from(
        "#version 450\n\
         #extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n\
         #extension GL_EXT_shader_8bit_storage : require\n",
    );
    writeln!(s, "#define WORD {word}\n#define REG {reg}").unwrap();
    s + include_str!("../../../kernels/transpose.comp")
}

impl TransposeKernel {
    /// The step's launch: the blocks spread over as many workgroups as the device allows.
    pub fn launch(&self, programs: &Programs, max_groups: u32) -> Result<Launch> {
        let mut launch = Launch { words: self.words.clone(), ranges: RANGES.to_vec(), ..Launch::default() };
        if self.blocks > 0 {
            let groups = self.blocks.min(max_groups as usize) as u32;
            launch.dispatches.push((programs.get(&self.pipeline)?, [groups, 1, 1]));
            Handwritten::Transpose.count();
        }
        Ok(launch)
    }
}
