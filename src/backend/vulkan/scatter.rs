//! Scatter on the device (`kernels/scatter.comp`), with the CPU executor's semantics:
//! replace lets the highest source index win, add/min/max combine like the element-wise
//! ops, out-of-range positions are dropped. Add/min/max update a destination word with a
//! compare-and-swap loop, so 8-byte elements need 64-bit buffer atomics
//! (`shaderBufferInt64Atomics`); without them (or with `SLUICE_VULKAN_NO_INT64_ATOMICS`)
//! those cases run on the CPU executor, as do operands beyond one storage-buffer range or
//! 32-bit indexing. Float add combines colliding values in the order the device runs
//! them, which may round differently from the CPU's source order (see `scatter.comp`).

use std::fmt::Write;

use super::glsl::{self, Helpers};
use super::{Launch, Plan, VulkanExecutor, codegen};
use crate::exec::Work;
use crate::ir::{BinaryOp, DType, Result, ScatterMode, Shape, Value};

/// `(to_bits, from_bits)`: an element as the bits of its word and back.
fn bits(t: DType) -> (&'static str, &'static str) {
    match t {
        DType::F32 => ("floatBitsToUint(x)", "uintBitsToFloat(w)"),
        DType::I32 => ("uint(x)", "int(w)"),
        DType::F64 => ("packUint2x32(unpackDouble2x32(x))", "packDouble2x32(unpackUint2x32(w))"),
        DType::I64 => ("uint64_t(x)", "int64_t(w)"),
        DType::U8 => ("x", "w"),
        DType::Bool => ("(x ? 1u : 0u)", "(w != 0u)"),
        DType::C64
        | DType::C128
        | DType::I8
        | DType::I16
        | DType::U16
        | DType::U32
        | DType::U64
        | DType::F16
        | DType::BF16 => {
            unreachable!("{t} scatters run on the CPU")
        }
    }
}

/// The shader text of one pass for elements of `t` scattered through `rank` index arrays
/// over sources of rank `vrank`.
fn source(pass: u32, mode: ScatterMode, t: DType, rank: usize, vrank: usize, float64: bool) -> String {
    let replace = mode == ScatterMode::Replace;
    let wide = t.size() == 8;
    let word = if wide { "uint64_t" } else { "uint" };
    let mut s = String::from(
        "#version 450\n\
         #extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n\
         #extension GL_EXT_shader_8bit_storage : require\n",
    );
    if wide && !replace {
        s += "#extension GL_EXT_shader_atomic_int64 : require\n";
    }
    let (ty, mem) = (glsl::reg_type(t), glsl::mem_type(t));
    writeln!(s, "#define PASS {pass}\n#define REPLACE {}\n#define T {ty}\n#define MEM {mem}", replace as u8).unwrap();
    writeln!(
        s,
        "#define WORD {word}\n#define PACKED {}\n#define DRANK {rank}\n#define VRANK {vrank}",
        (t.size() == 1) as u8
    )
    .unwrap();
    s += "layout(std430, set = 0, binding = 0) readonly buffer Meta { int w[]; } meta;\n";
    writeln!(s, "layout(std430, set = 0, binding = 1) readonly buffer Dst {{ {mem} v[]; }} dst;").unwrap();
    writeln!(s, "layout(std430, set = 0, binding = 2) readonly buffer Vals {{ {mem} v[]; }} vals;").unwrap();
    for d in 0..rank {
        writeln!(s, "layout(std430, set = 0, binding = {}) readonly buffer Idx{d} {{ int64_t v[]; }} idx{d};", 3 + d)
            .unwrap();
    }
    writeln!(s, "layout(std430, set = 0, binding = {}) buffer Out {{ {word} w[]; }} out_w;", 3 + rank).unwrap();
    if replace {
        writeln!(s, "layout(std430, set = 0, binding = {}) buffer Winner {{ int w[]; }} winner;", 4 + rank).unwrap();
    }
    let mut helpers = Helpers::new(float64);
    let combined = match mode {
        ScatterMode::Replace => "b".to_string(),
        ScatterMode::Add => helpers.binary(BinaryOp::Add, t, "a", "b"),
        ScatterMode::Min => helpers.binary(BinaryOp::Min, t, "a", "b"),
        ScatterMode::Max => helpers.binary(BinaryOp::Max, t, "a", "b"),
    };
    s += &helpers.source();
    let (to_bits, from_bits) = bits(t);
    writeln!(s, "{ty} combine({ty} a, {ty} b) {{ return {combined}; }}").unwrap();
    writeln!(s, "{word} to_bits({ty} x) {{ return {to_bits}; }}").unwrap();
    writeln!(s, "{ty} from_bits({word} w) {{ return {from_bits}; }}").unwrap();
    // A macro: 8-bit values cannot be function arguments without another extension.
    writeln!(s, "#define from_mem(x) ({})", glsl::from_mem(t, "(x)")).unwrap();
    s += "int64_t load_index(int d, int at) {\nswitch (d) {\n";
    for d in 0..rank {
        writeln!(s, "case {d}: return idx{d}.v[at];").unwrap();
    }
    s += "}\nreturn int64_t(-1);\n}\n";
    s + include_str!("../../../kernels/scatter.comp")
}

/// The meta words (see `scatter.comp`), or `None` if a number does not fit 32 bits.
fn words(dst_shape: &Shape, values_shape: &Shape, inputs: &[Value]) -> Option<Vec<u32>> {
    let mut w: Vec<i64> = vec![values_shape.numel() as i64, dst_shape.numel() as i64];
    w.extend(dst_shape.dims().iter().map(|&n| n as i64));
    w.extend(values_shape.dims().iter().map(|&n| n as i64));
    for (i, v) in inputs.iter().enumerate() {
        let rank = if i == 0 { dst_shape.rank() } else { values_shape.rank() };
        w.push(v.layout.offset);
        w.extend_from_slice(&v.layout.strides[..rank]);
    }
    w.into_iter().map(|v| i32::try_from(v).ok().map(|v| v as u32)).collect()
}

impl VulkanExecutor {
    /// How a scatter step runs: on the device where it can (see the module comment).
    pub(super) fn scatter_plan(&self, work: &Work, inputs: &[Value], outputs: &[Value]) -> Result<Plan> {
        let Work::Scatter { mode, dtype, dst_shape, values_shape } = work else { unreachable!("a scatter step") };
        let caps = &self.ctx.caps;
        let rank = dst_shape.rank();
        let fits = |v: &Value| (v.storage.byte_len() as u64) <= caps.chunk_bytes;
        let feature = match dtype {
            DType::F64 => self.target.float64 && (*mode == ScatterMode::Replace || caps.int64_atomics),
            DType::I64 => *mode == ScatterMode::Replace || caps.int64_atomics,
            // Elements of two words have no atomic claim here: the CPU scatters them.
            DType::C64 | DType::C128 => false,
            // i8, u32 and u64 scatters are not written for the device yet.
            DType::I8 | DType::U32 | DType::U64 => false,
            t => glsl::has_type(*t),
        };
        let numbers = words(dst_shape, values_shape, inputs);
        let (Some(words), true) =
            (numbers, feature && inputs.iter().chain(outputs).all(fits) && 5 + rank as u32 <= self.target.max_bindings)
        else {
            return Ok(Plan::Cpu(work.clone()));
        };
        let replace = *mode == ScatterMode::Replace;
        let mut ranges = vec![1u32; 4 + rank];
        if replace {
            ranges.push(1);
        }
        let (elems, sources) = (dst_shape.numel(), values_shape.numel());
        let scratch = replace.then_some(elems * 4);
        let mut launch = Launch { words, scratch, ranges: ranges.clone(), ..Launch::default() };
        if elems == 0 {
            return Ok(Plan::Device(launch));
        }
        let groups = |n: usize| n.div_ceil(codegen::LOCAL as usize).clamp(1, caps.max_groups_x as usize) as u32;
        let passes: &[u32] = match (replace, sources) {
            (_, 0) => &[0],
            (true, _) => &[0, 1, 2],
            (false, _) => &[0, 1],
        };
        for &pass in passes {
            let text = source(pass, *mode, *dtype, rank, values_shape.rank(), self.target.float64);
            let pipeline = self.programs.pipeline(&text, &ranges)?;
            let n = if pass == 0 { elems } else { sources };
            launch.dispatches.push((pipeline, [groups(n), 1, 1]));
        }
        Ok(Plan::Device(launch))
    }
}
