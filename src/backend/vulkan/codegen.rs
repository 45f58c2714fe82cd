//! Lowering a fused kernel (`ir::kernel::Kernel`) to a GLSL compute shader.
//!
//! The source depends only on the kernel's structure: shapes, strides, offsets and view
//! parameters are read from a word buffer (binding 0, the *meta* buffer), and so are the
//! kernel's scalar parameters, so one compiled pipeline serves every kernel with the same
//! structure (pipelines are cached by source). Three launch forms:
//! - element-wise: one invocation per domain point (grid-stride loop), or per
//!   `points_per_step` consecutive points when random values share generator blocks;
//! - reduction over everything: each workgroup folds its points, combines its threads
//!   in a shared-memory tree and writes a partial; a second one-workgroup pass folds the
//!   partials and writes the results;
//! - reduction or scan along an axis: one invocation per output row, looping along it;
//! - scan along a long axis (`Mode::ScanBlocks`): each workgroup owns a block of
//!   `SCAN_BLOCK_POINTS` consecutive points of one row; a first pass writes each block's
//!   total, a second one recomputes the block and writes it with the totals of the
//!   earlier blocks added (`kernels/scan.comp` holds the workgroup steps). Taken under
//!   the same policy as the tree form of reductions (`Target::takes_blocked_scan`).
//! - reduction along a long axis (`Mode::AxisTree`): like the reduction over everything,
//!   per row: each workgroup folds a slice of one row into a partial. Taken for few long
//!   rows where that pays (`Target::axis_tree`: GPUs), and for axes longer than the
//!   driver lets one invocation loop (its loops are bounded, see `grid::Grid`).
//!
//! On drivers that end a shader's loops early (lavapipe: `Target::max_loop_iterations`,
//! counted over all loops of an invocation, those inside math functions included), a
//! kernel's loops are planned with what one domain point costs in loop iterations
//! (`Helpers::loops_per_point`): the tree forms fold few enough points per invocation, and
//! a kernel whose invocations would still take more points than that allows (a loop per
//! row too long, more points than a dispatch has invocations) runs on the CPU.
//!
//! The partials of both tree forms are folded by the hand-written final pass
//! (`kernels/reduce.comp`), or, with `Target::handwritten` off, by a generated one (over
//! everything only; long axes then loop per row). The first pass stays generated because
//! it holds the fused prologue (the element-wise work feeding the reduction).
//!
//! Float arithmetic is `precise` (no contraction into fused multiply-adds), so fused and
//! unfused kernels give the same results.

use std::fmt::Write;

use super::glsl::{self, Helpers};
use super::grid::Grid;
use crate::ir::kernel::{Inst, Kernel, KernelReduce, OutputKind};
use crate::ir::{Boundary, DType, Distribution, Scalar, ScanOp, Shape, ViewStep, window_out_dim};

/// Invocations per workgroup.
pub const LOCAL: u32 = 128;
/// Meta words before the numbers, set at launch: the count of points (or rows), the
/// number of workgroups of the first pass, and for the tree forms the rows and the
/// partials per row.
pub const HEADER_WORDS: usize = 4;
/// Where `Target::axis_tree` is on, axis reductions take the tree form when the axis has
/// at least this many points and there are at most `AXIS_TREE_MAX_ROWS` rows (a guess
/// for GPUs, where a few rows of one invocation each leave the device idle; not measured,
/// see BENCHMARKS.md).
pub const AXIS_TREE_MIN_EXTENT: usize = 4096;
pub const AXIS_TREE_MAX_ROWS: usize = 256;
/// Consecutive points each invocation of the blocked scan takes, and the points of a
/// block (one workgroup's).
pub const SCAN_ITEMS: usize = 8;
const SCAN_BLOCK_POINTS: usize = LOCAL as usize * SCAN_ITEMS;

/// Blocks per row of a blocked scan along `extent` points (one even for none, so that
/// reductions beside the scan still write their identities).
pub fn scan_blocks(extent: usize) -> usize {
    extent.div_ceil(SCAN_BLOCK_POINTS).max(1)
}
/// On drivers that end loops early, the share of `Target::max_loop_iterations` one
/// invocation may spend on its domain points; the rest is left to the loops around them
/// (grid stride, workgroup tree).
const LOOP_SHARE_FOR_POINTS: usize = 2;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Mode {
    Elementwise,
    ReduceAll,
    Axis(usize),
    AxisTree(usize),
    ScanBlocks(usize),
}

impl Mode {
    /// Whether the first pass writes one partial per workgroup for a final pass to fold.
    pub fn is_tree(self) -> bool {
        matches!(self, Mode::ReduceAll | Mode::AxisTree(_))
    }

    /// Whether the kernel binds a scratch buffer last (partials or block totals).
    pub fn has_scratch(self) -> bool {
        self.is_tree() || matches!(self, Mode::ScanBlocks(_))
    }
}

/// A kernel's shaders and the numbers they read.
pub struct Shader {
    pub mode: Mode,
    pub main: String,
    /// The partial-folding pass of the tree forms.
    pub finish: Option<String>,
    /// Whether `finish` is hand-written (`kernels/reduce.comp`).
    pub handwritten: bool,
    /// How the first pass is launched.
    pub grid: Grid,
    /// Meta words after the header (the kernel's numbers); parameters follow at launch.
    pub numbers: Vec<u32>,
    /// Descriptors per binding (meta, inputs or packs, outputs, then partials for
    /// `ReduceAll`): arrays larger than one storage-buffer range are bound as several ranges.
    pub bindings: Vec<u32>,
    /// When the inputs would need more bindings than the device allows: the buffers they
    /// are copied into before the kernel runs, one per element type (else empty).
    pub packs: Vec<Pack>,
}

/// A buffer that several inputs of one element type are copied into, so that they take
/// one binding.
#[derive(Clone, Debug)]
pub struct Pack {
    pub bytes: u64,
    /// (input, byte offset in the pack, bytes copied from the start of the input)
    pub members: Vec<(usize, u64, u64)>,
}

/// Why a kernel cannot be lowered (it then runs on the CPU).
pub type Unsupported = String;

/// What the device offers that the lowering depends on.
pub struct Target {
    pub float64: bool,
    /// Storage-buffer descriptors a shader may use.
    pub max_bindings: u32,
    /// Bytes per bound range of an array: a power of two within `maxStorageBufferRange`.
    pub chunk_bytes: u64,
    /// Use the hand-written kernels (`kernels/`); off: generated ones only.
    pub handwritten: bool,
    /// Reduce long axes of few rows in the tree form (GPU-type devices, or forced for
    /// tests): on lavapipe a loop per row is faster (about 1.5x, BENCHMARKS.md).
    pub axis_tree: bool,
    /// Scan every axis in the blocked form where it fits, on any device (for tests).
    pub blocked_scan: bool,
    /// Workgroups one dispatch may have along x and along y.
    pub max_groups: [usize; 2],
    /// Shaders may shuffle within a subgroup.
    pub subgroup_shuffle: bool,
    /// Whether shaders may index arrays of storage buffers dynamically (needed to read
    /// arrays bound as several ranges).
    pub chunked_arrays: bool,
    /// Iterations after which the driver ends a shader's loops, if it does (lavapipe's
    /// gallivm: 65,535 per invocation, counted over all its loops).
    pub max_loop_iterations: Option<usize>,
}

impl Target {
    /// Ranges needed to bind `bytes` bytes.
    pub fn chunks(&self, bytes: u64) -> u32 {
        bytes.div_ceil(self.chunk_bytes).max(1) as u32
    }

    /// Most domain points one invocation may run, on drivers that end loops early, when
    /// each costs `per_point` loop iterations.
    fn points_bound(&self, per_point: usize) -> Option<usize> {
        self.max_loop_iterations.map(|limit| limit / LOOP_SHARE_FOR_POINTS / per_point)
    }

    /// Whether a reduction of `domain` along `axis` takes the tree form, each point
    /// costing `per_point` loop iterations.
    fn takes_axis_tree(&self, domain: &Shape, axis: usize, per_point: usize) -> bool {
        let extent = domain.dim(axis);
        let few_long_rows = extent >= AXIS_TREE_MIN_EXTENT && rows(domain, axis) <= AXIS_TREE_MAX_ROWS;
        // A loop per row would end early on this driver; the tree form's loops are bounded.
        let beyond_loop_limit = self.points_bound(per_point).is_some_and(|bound| extent > bound);
        self.handwritten && ((self.axis_tree && few_long_rows) || beyond_loop_limit)
    }

    /// Whether a scan of `domain` along `axis` takes the blocked form, each point costing
    /// `per_point` loop iterations: where the tree form of a reduction would (few long
    /// rows on GPUs, axes beyond the driver's loop limit), or everywhere with
    /// `blocked_scan`; if its blocks fit one dispatch and its invocations' loops the driver.
    /// It depends on the domain alone, so a scan is blocked alike fused or alone.
    fn takes_blocked_scan(&self, domain: &Shape, axis: usize, per_point: usize) -> bool {
        let (extent, rows) = (domain.dim(axis), rows(domain, axis));
        let blocks = scan_blocks(extent);
        let bound = self.points_bound(per_point);
        let fits = rows.saturating_mul(blocks) <= self.max_groups[0] && bound.is_none_or(|b| b >= SCAN_ITEMS);
        let few_long_rows = extent >= AXIS_TREE_MIN_EXTENT && rows <= AXIS_TREE_MAX_ROWS;
        let beyond_loop_limit = bound.is_some_and(|b| extent > b);
        self.handwritten && fits && (self.blocked_scan || (self.axis_tree && few_long_rows) || beyond_loop_limit)
    }
}

/// What a scan of values of type `out` accumulates in: floats in f64 where the device
/// has it, u64 in itself (its max and min compare unsigned), other integers in i64.
fn carry_type(out: DType, float64: bool) -> DType {
    match out {
        t if t.is_float() && float64 => DType::F64,
        t if t.is_float() => DType::F32,
        DType::U64 => DType::U64,
        _ => DType::I64,
    }
}

/// The scan's running value `carry` (of type `carry_type(out)`) as a register of type `out`.
fn scan_result(out: DType, carry: DType, v: &str) -> String {
    if out == carry { v.to_string() } else { format!("{}({v})", glsl::reg_type(out)) }
}

/// Rows of a reduction or scan of `domain` along `axis`: the product of the other
/// dimensions (not numel / extent, which is 0 for an empty axis).
pub fn rows(domain: &Shape, axis: usize) -> usize {
    (0..domain.rank()).filter(|&d| d != axis).map(|d| domain.dim(d)).product()
}

struct Gen<'k> {
    k: &'k Kernel,
    target: &'k Target,
    /// Descriptors per binding.
    bindings: Vec<u32>,
    numbers: Vec<u32>,
    helpers: Helpers,
    /// Per map: the GLSL names of the coordinates it reaches and of its validity flag,
    /// once emitted.
    maps: Vec<Option<(Vec<String>, String)>>,
    /// Per instruction, whether it is a random array whose values a step computes once
    /// (`shared_randoms`).
    shared: Vec<bool>,
    /// Per input when inputs are packed: its pack and the meta slot of its first element.
    packed: Option<Vec<(usize, String)>>,
    /// Packs (bindings after the meta buffer); 0 when inputs are bound one by one.
    pack_count: usize,
}

/// Accumulator of a reduction: floats fold in f64 when the device has it.
fn acc_type(op: KernelReduce, v: DType, float64: bool) -> DType {
    match op {
        KernelReduce::Sum | KernelReduce::Prod | KernelReduce::Mean => {
            if v.is_float() {
                if float64 { DType::F64 } else { DType::F32 }
            } else {
                DType::I64
            }
        }
        _ if v == DType::Bool => DType::U8,
        _ => v,
    }
}

/// The highest or lowest value of `t` as a GLSL expression (floats: infinities).
pub(super) fn extreme(t: DType, highest: bool) -> String {
    match (t, highest) {
        (DType::F32 | DType::F64, true) => format!("({}(1) / {}(0))", glsl::reg_type(t), glsl::reg_type(t)),
        (DType::F32 | DType::F64, false) => format!("({}(-1) / {}(0))", glsl::reg_type(t), glsl::reg_type(t)),
        (DType::I32, true) => "2147483647".into(),
        (DType::I32, false) => "(-2147483647 - 1)".into(),
        (DType::I64, true) => "int64_t(0x7fffffffffffffffl)".into(),
        (DType::I64, false) => "int64_t(0x8000000000000000ul)".into(),
        (DType::U32, true) => "4294967295u".into(),
        (DType::U64, true) => "uint64_t(0xfffffffffffffffful)".into(),
        (DType::U64, false) => "uint64_t(0)".into(),
        (DType::I8, true) => "127".into(),
        (DType::I8, false) => "(-128)".into(),
        (DType::U8 | DType::Bool, true) => "255u".into(),
        (DType::U8 | DType::U32 | DType::Bool, false) => "0u".into(),
        (DType::C64 | DType::C128 | DType::I16 | DType::U16 | DType::F16 | DType::BF16, _) => {
            unreachable!("{t} values have no extremes on the device")
        }
    }
}

fn identity(op: KernelReduce, acc: DType) -> String {
    let ty = glsl::reg_type(acc);
    match op {
        KernelReduce::Sum | KernelReduce::Mean => format!("{ty}(0)"),
        KernelReduce::Prod => format!("{ty}(1)"),
        KernelReduce::Min | KernelReduce::ArgMin => extreme(acc, true),
        KernelReduce::Max | KernelReduce::ArgMax => extreme(acc, false),
    }
}

/// 64 bits of an accumulator as a `uvec2`, and back.
fn encode(t: DType, e: &str) -> String {
    match t {
        DType::F64 => format!("unpackDouble2x32({e})"),
        DType::F32 => format!("uvec2(floatBitsToUint({e}), 0u)"),
        DType::I64 | DType::U64 => format!("unpackUint2x32(uint64_t({e}))"),
        DType::I8 | DType::I32 => format!("uvec2(uint({e}), 0u)"),
        _ => format!("uvec2({e}, 0u)"),
    }
}

fn decode(t: DType, e: &str) -> String {
    match t {
        DType::F64 => format!("packDouble2x32({e})"),
        DType::F32 => format!("uintBitsToFloat(({e}).x)"),
        DType::I64 => format!("int64_t(packUint2x32({e}))"),
        DType::U64 => format!("packUint2x32({e})"),
        DType::I8 | DType::I32 => format!("int(({e}).x)"),
        _ => format!("({e}).x"),
    }
}

/// `comb{o}(a, ai, b, bi)`: folds `b` (index `bi`) into `a` (index `ai`). The result does
/// not depend on the order of folding except for float rounding: arg-reductions prefer
/// NaN, then the smaller index among equals.
fn combine_fn(o: usize, op: KernelReduce, acc: DType) -> String {
    let ty = glsl::reg_type(acc);
    let float = acc.is_float();
    let nan = |v: &str| if float { format!("isnan({v})") } else { "false".into() };
    let body = match op {
        KernelReduce::Sum | KernelReduce::Mean => format!("precise {ty} t = a + b; a = t;"),
        KernelReduce::Prod => format!("precise {ty} t = a * b; a = t;"),
        KernelReduce::Min => format!("if (!{} && ({} || b < a)) a = b;", nan("a"), nan("b")),
        KernelReduce::Max => format!("if (!{} && ({} || b > a)) a = b;", nan("a"), nan("b")),
        KernelReduce::ArgMin | KernelReduce::ArgMax => {
            let better = if op == KernelReduce::ArgMin { "b < a" } else { "b > a" };
            format!(
                "if (bi < 0) return;\n\
                 if (ai < 0) {{ a = b; ai = bi; return; }}\n\
                 bool an = {an}, bn = {bn};\n\
                 bool take = an ? (bn && bi < ai) : (bn || {better} || (b == a && bi < ai));\n\
                 if (take) {{ a = b; ai = bi; }}",
                an = nan("a"),
                bn = nan("b")
            )
        }
    };
    format!("void comb{o}(inout {ty} a, inout int64_t ai, {ty} b, int64_t bi) {{\n{body}\n}}\n")
}

/// The output value (a register of the output's type) for a finished accumulator.
fn finish_expr(op: KernelReduce, acc: DType, out: DType, a: &str, ai: &str, count: &str) -> String {
    let v = match op {
        KernelReduce::ArgMin | KernelReduce::ArgMax => return ai.to_string(),
        KernelReduce::Mean if acc.is_float() => format!("({a} / {}({count}))", glsl::reg_type(acc)),
        _ => a.to_string(),
    };
    match (acc, out) {
        (DType::U8, DType::Bool) => format!("({v} != 0u)"),
        (a, o) if a == o => v,
        _ => format!("{}({v})", glsl::reg_type(out)),
    }
}

/// Bytes of storage an input's elements reach (from index 0) under its layout.
pub fn span_bytes(input: &crate::ir::kernel::KernelInput) -> u64 {
    let (shape, layout) = (&input.shape, &input.layout);
    if shape.numel() == 0 {
        return 0;
    }
    let last = (0..shape.rank()).map(|d| (shape.dim(d) as i64 - 1) * layout.strides[d].max(0)).sum::<i64>();
    (layout.offset + last + 1).max(0) as u64 * input.dtype.size() as u64
}

impl<'k> Gen<'k> {
    /// Element `index` of the buffer `name` at `binding` (of element type `t`), through
    /// the range holding it when the array is bound as several.
    fn elem(&self, name: &str, binding: usize, t: DType, index: &str) -> String {
        if self.bindings[binding] == 1 {
            return format!("{name}.v[{index}]");
        }
        let per = self.target.chunk_bytes / t.size() as u64;
        format!("{name}[({index}) >> {}].v[({index}) & {}]", per.trailing_zeros(), per - 1)
    }

    fn input(&self, i: u32, t: DType, index: &str) -> String {
        let e = match &self.packed {
            Some(packed) => {
                let (p, base) = &packed[i as usize];
                format!("pack{p}.v[{base} + ({index})]")
            }
            None => self.elem(&format!("in{i}"), 1 + i as usize, t, index),
        };
        glsl::from_mem(t, &e)
    }

    /// The binding of output `o`.
    fn out_binding(&self, o: usize) -> usize {
        let inputs = if self.packed.is_some() { self.pack_count } else { self.k.inputs.len() };
        1 + inputs + o
    }

    /// Statement storing register value `v` as element `index` of output `o`.
    fn store_out(&self, o: usize, index: &str, v: &str) -> String {
        let t = self.k.outputs[o].dtype;
        format!("{} = {};", self.elem(&format!("out{o}"), self.out_binding(o), t, index), glsl::to_mem(t, v))
    }

    /// The column-major linear index (an `int64_t` expression) of the point map `m`
    /// reaches in its space, emitting the coordinates' computation.
    fn linear_index(&mut self, m: u32, out: &mut String) -> Result<String, Unsupported> {
        let (coords, _) = self.map(m, out)?;
        let space = self.k.space(m);
        let mut index = format!("int64_t({})", coords[space.rank() - 1]);
        for d in (0..space.rank() - 1).rev() {
            let n = self.num(space.dim(d) as i64)?;
            index = format!("int64_t({}) + int64_t({n}) * ({index})", coords[d]);
        }
        Ok(index)
    }

    /// A meta slot holding `v` (an index quantity, which must fit in an `int`).
    fn num(&mut self, v: i64) -> Result<String, Unsupported> {
        let w = i32::try_from(v).map_err(|_| format!("index value {v} does not fit 32 bits"))?;
        self.numbers.push(w as u32);
        Ok(format!("N({})", HEADER_WORDS + self.numbers.len() - 1))
    }

    /// Coordinates (and validity) reached through map `m`, emitting their computation.
    fn map(&mut self, m: u32, out: &mut String) -> Result<(Vec<String>, String), Unsupported> {
        if let Some(done) = &self.maps[m as usize] {
            return Ok(done.clone());
        }
        let k = self.k;
        let mut cur: Vec<String> = (0..k.domain.rank()).map(|d| format!("c{d}")).collect();
        let ok = format!("m{m}_ok");
        let mut has_fill = false;
        for (si, s) in k.maps[m as usize].steps.iter().enumerate() {
            let name = |d: usize| format!("m{m}_{si}_{d}");
            let src_rank = s.src.rank();
            let mut next = vec![String::from("0"); src_rank];
            match s.step {
                ViewStep::Permute { perm } => {
                    for d in 0..s.out.rank() {
                        next[perm[d] as usize] = cur[d].clone();
                    }
                }
                ViewStep::Reshape => {
                    let mut lin = "0".to_string();
                    for d in (0..s.out.rank()).rev() {
                        let n = self.num(s.out.dim(d) as i64)?;
                        lin = if lin == "0" { cur[d].clone() } else { format!("{} + {n} * ({lin})", cur[d]) };
                    }
                    let l = format!("m{m}_{si}_l");
                    writeln!(out, "int {l} = {lin};").unwrap();
                    for (d, nd) in next.iter_mut().enumerate() {
                        let n = self.num(s.src.dim(d).max(1) as i64)?;
                        writeln!(out, "int {} = {l} % {n}; {l} = {l} / {n};", name(d)).unwrap();
                        *nd = name(d);
                    }
                }
                ViewStep::Section { start, step } => {
                    for (d, nd) in next.iter_mut().enumerate() {
                        let (a, b) = (self.num(start[d])?, self.num(step[d])?);
                        writeln!(out, "int {} = {a} + {b} * {};", name(d), cur[d]).unwrap();
                        *nd = name(d);
                    }
                }
                ViewStep::Project { dim, index } => {
                    let dim = dim as usize;
                    for (d, nd) in next.iter_mut().enumerate() {
                        *nd = match d.cmp(&dim) {
                            std::cmp::Ordering::Less => cur[d].clone(),
                            std::cmp::Ordering::Equal => self.num(index)?,
                            std::cmp::Ordering::Greater => cur[d - 1].clone(),
                        };
                    }
                }
                ViewStep::Broadcast => {
                    // Size-1 source dimensions read coordinate 0: min(c, size - 1).
                    for (d, nd) in next.iter_mut().enumerate() {
                        let last = self.num(s.src.dim(d) as i64 - 1)?;
                        writeln!(out, "int {} = min({}, {last});", name(d), cur[d]).unwrap();
                        *nd = name(d);
                    }
                }
                ViewStep::Offset { offset, boundary } => {
                    for (d, nd) in next.iter_mut().enumerate() {
                        let (off, n) = (self.num(offset[d])?, self.num(s.src.dim(d) as i64)?);
                        let t = format!("{}_t", name(d));
                        writeln!(out, "int {t} = {} - {off};", cur[d]).unwrap();
                        let v = match boundary {
                            Boundary::Fill | Boundary::Clamp => format!("clamp({t}, 0, max({n} - 1, 0))"),
                            Boundary::Wrap => {
                                writeln!(out, "int {t}r = {n} > 0 ? {t} - ({t} / {n}) * {n} : 0;").unwrap();
                                format!("({t}r < 0 ? {t}r + {n} : {t}r)")
                            }
                        };
                        if boundary == Boundary::Fill {
                            if !has_fill {
                                writeln!(out, "bool {ok} = true;").unwrap();
                                has_fill = true;
                            }
                            writeln!(out, "{ok} = {ok} && {t} >= 0 && {t} < {n};").unwrap();
                        }
                        writeln!(out, "int {} = {v};", name(d)).unwrap();
                        *nd = name(d);
                    }
                }
                ViewStep::Window { dim, block, stride } => {
                    for (d, nd) in next.iter_mut().enumerate() {
                        *nd = cur[window_out_dim(d, block)].clone();
                    }
                    let (d, stride) = (dim as usize, self.num(stride)?);
                    writeln!(out, "int {} = {} + {stride} * {};", name(d), next[d], cur[block as usize]).unwrap();
                    next[d] = name(d);
                }
            }
            cur = next;
        }
        let done = (cur, if has_fill { ok } else { "true".to_string() });
        self.maps[m as usize] = Some(done.clone());
        Ok(done)
    }

    /// Element offset of coordinates `coords` in input `input`.
    fn address(&mut self, input: u32, coords: &[String]) -> Result<String, Unsupported> {
        let layout = self.k.inputs[input as usize].layout;
        let mut a = self.num(layout.offset)?;
        for (d, c) in coords.iter().enumerate() {
            let s = self.num(layout.strides[d])?;
            a = format!("{a} + {s} * {c}");
        }
        Ok(a)
    }

    /// The expression of instruction `i` if it is a parameter or a constant (which any
    /// statement of the shader may use).
    fn operand(&self, i: u32) -> Option<String> {
        let t = self.k.types[i as usize];
        match self.k.insts[i as usize] {
            Inst::Param { index } => {
                let w = |o: usize| format!("meta.w[P + {}]", 2 * index as usize + o);
                Some(match t {
                    DType::F32 => format!("uintBitsToFloat({})", w(0)),
                    DType::F64 => format!("packDouble2x32(uvec2({}, {}))", w(0), w(1)),
                    DType::I32 => format!("int({})", w(0)),
                    DType::I64 => format!("int64_t(packUint2x32(uvec2({}, {})))", w(0), w(1)),
                    DType::U8 => format!("({} & 0xFFu)", w(0)),
                    DType::U32 => w(0),
                    DType::I8 => format!("bitfieldExtract(int({}), 0, 8)", w(0)),
                    DType::U64 => format!("packUint2x32(uvec2({}, {}))", w(0), w(1)),
                    DType::Bool => format!("({} != 0u)", w(0)),
                    DType::C64 | DType::C128 => unreachable!("complex parameters are passed as their parts"),
                    DType::I16 | DType::U16 | DType::F16 | DType::BF16 => {
                        unreachable!("{t} kernels run on the CPU (glsl::has_type)")
                    }
                })
            }
            Inst::Const(s) => Some(glsl::literal(s)),
            _ => None,
        }
    }

    /// For an element-wise kernel taking `step` (> 1) consecutive points per step: the
    /// statements, at the start of step `s_`, computing the values of the step of each
    /// random array whose elements are the domain's points (no view), so the step's
    /// points share one block (`step` divides a block's values) without a branch that a
    /// driver may run on every invocation anyway. Marks those arrays in `shared`.
    fn shared_randoms(&mut self, step: usize) -> String {
        let k = self.k;
        let live = k.live();
        let mut s = format!("uint64_t st_ = uint64_t(s_) * {step}ul;\n");
        for (i, inst) in k.insts.iter().enumerate().filter(|(i, _)| live[*i]) {
            let Inst::Random { kind, dist, seed, draw, map: Some(m), .. } = *inst else { continue };
            let (Some(seed), Some(draw)) = (self.operand(seed), self.operand(draw)) else { continue };
            // Other laws' values are computed point by point.
            if !k.maps[m as usize].steps.is_empty() || !matches!(dist, Distribution::Uniform | Distribution::Normal) {
                continue;
            }
            s += &self.helpers.random_step(k.types[i], kind, dist, [&seed, &draw, "st_"], step, &format!("r{i}"));
            self.shared[i] = true;
        }
        s
    }

    /// The statements computing every value the outputs need, for the domain point with
    /// coordinates `c0, c1, ...` (point `j_` of its step for the random arrays of
    /// `shared_randoms`).
    fn body(&mut self) -> Result<String, Unsupported> {
        let k = self.k;
        let live = k.live();
        self.maps = vec![None; k.maps.len()];
        let mut out = String::new();
        for (i, inst) in k.insts.iter().enumerate().filter(|(i, _)| live[*i]) {
            let t = k.types[i];
            let v = |j: u32| format!("v{j}");
            let expr = match *inst {
                Inst::Param { .. } | Inst::Const(_) => self.operand(i as u32).expect("a parameter or constant"),
                // Through an empty array (padded with a fill) nothing exists to read: every
                // point is outside the fill boundary and the value is never used.
                Inst::Load { map, .. } if k.maps[map as usize].steps.iter().any(|s| s.src.numel() == 0) => {
                    if t.is_complex() { format!("{}(0)", glsl::reg_type(t)) } else { glsl::literal(Scalar::zero(t)) }
                }
                Inst::Load { input, map } => {
                    let (coords, _) = self.map(map, &mut out)?;
                    let a = self.address(input, &coords)?;
                    self.input(input, t, &a)
                }
                Inst::Coord { map, dim } => {
                    let (coords, _) = self.map(map, &mut out)?;
                    self.helpers.cast(DType::I32, DType::I64, &coords[dim as usize])
                }
                Inst::Valid { map } => self.map(map, &mut out)?.1,
                Inst::Unary { op, a } => self.helpers.unary(op, k.types[a as usize], &v(a)),
                Inst::Binary { op, a, b } => self.helpers.binary(op, k.types[a as usize], &v(a), &v(b)),
                Inst::Select { cond, a, b } => format!("({} ? {} : {})", v(cond), v(a), v(b)),
                Inst::Fma { a, b, c } => self.helpers.fma(t, &v(a), &v(b), &v(c)),
                Inst::Cast { a } => self.helpers.cast(k.types[a as usize], t, &v(a)),
                Inst::Random { dist, .. } if self.shared[i] => {
                    Helpers::random_step_value(t, dist, &format!("r{i}"), "st_", "j_")
                }
                Inst::Random { kind, dist, seed, draw, params, map } => {
                    let index = match map {
                        Some(m) => self.linear_index(m, &mut out)?,
                        None => "int64_t(0)".to_string(),
                    };
                    let at = [v(seed), v(draw), index];
                    let params: Vec<String> = params[..dist.params()].iter().map(|&p| v(p)).collect();
                    let name = format!("r{i}");
                    self.helpers.random(t, kind, dist, [&at[0], &at[1], &at[2]], &params, &name, &mut out)
                }
                Inst::Sobol { input, index, dim, seed, scramble } => {
                    // The digits: the XOR of the direction numbers of the Gray code's set bits.
                    let (x, g, j) = (format!("sb{i}"), format!("sb{i}_g"), format!("sb{i}_k"));
                    let column = format!("int({})", v(dim));
                    let direction = self.address(input, &[j.clone(), column])?;
                    let read = self.input(input, DType::I32, &direction);
                    writeln!(
                        out,
                        "uint {x} = 0u;\n{{ uint {g} = uint({idx}) ^ (uint({idx}) >> 1); int {j} = 0;\n\
                         while ({g} != 0u) {{ if (({g} & 1u) != 0u) {x} ^= uint({read}); {g} >>= 1; {j}++; }} }}",
                        idx = v(index)
                    )
                    .unwrap();
                    self.helpers.sobol(t, scramble, &x, &v(seed), &v(dim))
                }
                Inst::Gather { input, indices, rank } => {
                    let shape = k.inputs[input as usize].shape;
                    let mut coords = Vec::new();
                    for (d, &ix) in indices[..rank as usize].iter().enumerate() {
                        let last = self.num(shape.dim(d) as i64 - 1)?;
                        coords.push(format!("int(clamp({}, int64_t(0), int64_t(max({last}, 0))))", v(ix)));
                    }
                    let a = self.address(input, &coords)?;
                    self.input(input, t, &a)
                }
            };
            let precise = if t.is_float() { "precise " } else { "" };
            writeln!(out, "{precise}{} v{i} = {expr};", glsl::reg_type(t)).unwrap();
        }
        Ok(out)
    }

    /// Declarations: extensions, buffers, the meta accessors, helpers.
    fn prelude(&self, partials: bool, extensions: &str, body_helpers: &str) -> String {
        let k = self.k;
        let mut s = String::from(
            "#version 450\n\
             #extension GL_EXT_shader_explicit_arithmetic_types_int64 : require\n\
             #extension GL_EXT_shader_8bit_storage : require\n",
        );
        s += extensions;
        writeln!(s, "layout(local_size_x = {LOCAL}) in;").unwrap();
        s += "layout(std430, set = 0, binding = 0) readonly buffer Meta { uint w[]; } meta;\n";
        s += "#define N(i) int(meta.w[i])\n";
        // Parameters follow the numbers, two words each.
        writeln!(s, "const uint P = {}u;", HEADER_WORDS + self.numbers.len()).unwrap();
        let array = |n: u32| if n == 1 { String::new() } else { format!("[{n}]") };
        for p in 0..self.pack_count {
            // Every member of a pack has its element type.
            let (first, _) = self
                .packed
                .as_ref()
                .expect("packed inputs")
                .iter()
                .enumerate()
                .find(|(_, (q, _))| *q == p)
                .expect("a pack has members");
            let t = glsl::mem_type(k.inputs[first].dtype);
            writeln!(s, "layout(std430, set = 0, binding = {}) readonly buffer Pack{p} {{ {t} v[]; }} pack{p};", 1 + p)
                .unwrap();
        }
        for (i, inp) in k.inputs.iter().enumerate().filter(|_| self.packed.is_none()) {
            let b = 1 + i;
            writeln!(
                s,
                "layout(std430, set = 0, binding = {b}) readonly buffer In{i} {{ {} v[]; }} in{i}{};",
                glsl::mem_type(inp.dtype),
                array(self.bindings[b])
            )
            .unwrap();
        }
        for (o, out) in k.outputs.iter().enumerate() {
            let b = self.out_binding(o);
            writeln!(
                s,
                "layout(std430, set = 0, binding = {b}) buffer Out{o} {{ {} v[]; }} out{o}{};",
                glsl::mem_type(out.dtype),
                array(self.bindings[b])
            )
            .unwrap();
        }
        if partials {
            writeln!(
                s,
                "layout(std430, set = 0, binding = {}) buffer Partials {{ uvec2 p[]; }} part;",
                self.out_binding(k.outputs.len())
            )
            .unwrap();
        }
        s += body_helpers;
        s
    }

    /// Unravels linear index `lin` into `c0, c1, ...` over the domain, skipping `skip`.
    fn coords(&mut self, lin: &str, skip: Option<usize>) -> Result<String, Unsupported> {
        let mut s = format!("int r_ = int({lin});\n");
        for d in 0..self.k.domain.rank() {
            if Some(d) == skip {
                writeln!(s, "int c{d} = 0;").unwrap();
                continue;
            }
            let n = self.num(self.k.domain.dim(d) as i64)?;
            writeln!(s, "int c{d} = r_ % {n}; r_ = r_ / {n};").unwrap();
        }
        Ok(s)
    }

    /// The variables each random array that takes its values point by point keeps from one
    /// element to the next (`Helpers::random_cache`), declared at the start of `main`.
    fn random_caches(&self) -> String {
        let k = self.k;
        let live = k.live();
        let mut s = String::new();
        for (i, inst) in k.insts.iter().enumerate().filter(|(i, _)| live[*i] && !self.shared[*i]) {
            if let Inst::Random { dist, .. } = *inst {
                s += &Helpers::random_cache(k.types[i], dist, &format!("r{i}"));
            }
        }
        s
    }

    /// Column-major linear index of `c0, c1, ...` in the domain.
    fn linear(&mut self) -> Result<String, Unsupported> {
        let mut lin = "0".to_string();
        for d in (0..self.k.domain.rank()).rev() {
            let n = self.num(self.k.domain.dim(d) as i64)?;
            lin = if lin == "0" { format!("c{d}") } else { format!("c{d} + {n} * ({lin})") };
        }
        Ok(lin)
    }
}

/// Shared memory of `tree`.
fn tree_shared() -> String {
    format!("shared uvec2 sh_a[{LOCAL}];\nshared int64_t sh_i[{LOCAL}];\n")
}

/// The grid-stride loop over `meta.w[0]` points or rows, by every invocation of a grid of
/// workgroups along x and y (`Grid::groups`).
const GRID_LOOP: &str = "gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + gl_GlobalInvocationID.x; \
                         li_ < meta.w[0]; li_ += gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_WorkGroupSize.x";

/// Consecutive domain points an element-wise invocation takes at each step of its grid
/// loop: as many as one generator block gives values of the kernel's random arrays (four
/// f32, two f64), so that each block is computed once; one without random values. At most
/// `points_bound` (drivers that end loops early), and a power of two.
pub fn points_per_step(k: &Kernel, points_bound: Option<usize>) -> usize {
    let live = k.live();
    let mut randoms = k.insts.iter().enumerate().filter(|(i, inst)| live[*i] && matches!(inst, Inst::Random { .. }));
    let step: usize = match randoms.clone().next() {
        None => 1,
        Some(_) if randoms.any(|(i, _)| k.types[i] == DType::F64) => 2,
        Some(_) => 4,
    };
    // A power of two, so that a step's elements lie in one block.
    let bounded = step.min(points_bound.unwrap_or(step)).max(1);
    1 << bounded.ilog2()
}

/// The shared-memory tree that combines every invocation's accumulator of output `o`;
/// the result is in `a`/`ai` of every invocation.
fn tree(o: usize, acc: DType) -> String {
    format!(
        "sh_a[gl_LocalInvocationID.x] = {ea}; sh_i[gl_LocalInvocationID.x] = ai{o};\n\
         memoryBarrierShared(); barrier();\n\
         for (uint s_ = {half}u; s_ > 0u; s_ >>= 1) {{\n\
           uint l_ = gl_LocalInvocationID.x;\n\
           if (l_ < s_) {{\n\
             {ty} x_ = {dl}; int64_t xi_ = sh_i[l_];\n\
             comb{o}(x_, xi_, {dr}, sh_i[l_ + s_]);\n\
             sh_a[l_] = {ex}; sh_i[l_] = xi_;\n\
           }}\n\
           memoryBarrierShared(); barrier();\n\
         }}\n\
         a{o} = {d0}; ai{o} = sh_i[0];\n\
         memoryBarrierShared(); barrier();\n",
        ea = encode(acc, &format!("a{o}")),
        half = LOCAL / 2,
        ty = glsl::reg_type(acc),
        dl = decode(acc, "sh_a[l_]"),
        dr = decode(acc, "sh_a[l_ + s_]"),
        ex = encode(acc, "x_"),
        d0 = decode(acc, "sh_a[0]"),
    )
}

/// Lowers `k`, or says why it cannot run on this device.
pub fn generate(k: &Kernel, target: &Target) -> Result<Shader, Unsupported> {
    let live = k.live();
    let types = || {
        k.types
            .iter()
            .zip(&live)
            .filter_map(|(t, &l)| l.then_some(*t))
            .chain(k.inputs.iter().map(|i| i.dtype))
            .chain(k.outputs.iter().map(|o| o.dtype))
    };
    if let Some(t) = types().find(|&t| !glsl::has_type(t)) {
        return Err(format!("{t} values are not computed on the device"));
    }
    let uses_f64 = types().any(|t| matches!(t, DType::F64 | DType::C128))
        || k.insts.iter().zip(&live).any(|(i, &l)| l && matches!(i, Inst::Random { dist, .. } if dist.needs_f64()));
    if uses_f64 && !target.float64 {
        return Err("the device has no 64-bit floats (shaderFloat64)".into());
    }
    if k.domain.numel() > i32::MAX as usize {
        return Err(format!("domain {} has more than 2^31 points", k.domain));
    }
    let per_point = 1 + Helpers::loops_per_point(k, target.float64);
    let points_bound = target.points_bound(per_point);
    if points_bound == Some(0) {
        return Err(format!("one point runs up to {per_point} loop iterations: this device ends loops early"));
    }
    let mode = match k.axis {
        _ if !k.has_reduction() && !k.has_scan() => Mode::Elementwise,
        None if k.has_scan() => return Err("a scan without an axis".into()),
        None => Mode::ReduceAll,
        Some(a) if k.has_scan() && target.takes_blocked_scan(&k.domain, a as usize, per_point) => {
            Mode::ScanBlocks(a as usize)
        }
        Some(a) if !k.has_scan() && target.takes_axis_tree(&k.domain, a as usize, per_point) => {
            Mode::AxisTree(a as usize)
        }
        Some(a) => Mode::Axis(a as usize),
    };
    let step = points_per_step(k, points_bound);
    let grid = Grid::of(k, mode, target, points_bound, step);
    if let Some(bound) = points_bound
        && grid.points_per_invocation > bound
    {
        return Err(format!(
            "an invocation would take {} points of {per_point} loop iterations each: this device ends shader \
             loops early",
            grid.points_per_invocation
        ));
    }
    let mut bindings = vec![1u32];
    bindings.extend(k.inputs.iter().map(|i| target.chunks(span_bytes(i))));
    let out_len = |kind: OutputKind| match (kind, mode) {
        (OutputKind::Reduce(_), Mode::ReduceAll) => 1,
        (OutputKind::Reduce(_), Mode::Axis(a) | Mode::AxisTree(a) | Mode::ScanBlocks(a)) => rows(&k.domain, a),
        _ => k.domain.numel(),
    };
    bindings.extend(k.outputs.iter().map(|o| target.chunks((out_len(o.kind) * o.dtype.size()) as u64)));
    if mode.has_scratch() {
        bindings.push(1);
    }
    let mut packs = Vec::new();
    let mut descriptors: u32 = bindings.iter().sum();
    if descriptors > target.max_bindings {
        // Too many inputs to bind one by one: copy them into one buffer per element type.
        packs = pack_inputs(k, target)?;
        let rest = bindings.split_off(1 + k.inputs.len());
        bindings.truncate(1);
        bindings.extend(std::iter::repeat_n(1, packs.len()));
        bindings.extend(rest);
        descriptors = bindings.iter().sum();
        if descriptors > target.max_bindings {
            return Err(format!("{descriptors} buffer ranges exceed the device's {} per shader", target.max_bindings));
        }
    }
    if bindings.iter().any(|&n| n > 1) && !target.chunked_arrays {
        return Err("arrays beyond one storage-buffer range need dynamically indexed buffer arrays".into());
    }
    let mut g = Gen {
        k,
        target,
        bindings,
        numbers: Vec::new(),
        helpers: Helpers::new(target.float64),
        maps: Vec::new(),
        shared: vec![false; k.insts.len()],
        packed: None,
        pack_count: packs.len(),
    };
    if !packs.is_empty() {
        let mut packed = vec![(0, String::new()); k.inputs.len()];
        for (p, pack) in packs.iter().enumerate() {
            for &(i, offset, _) in &pack.members {
                packed[i] = (p, g.num((offset / k.inputs[i].dtype.size() as u64) as i64)?);
            }
        }
        g.packed = Some(packed);
    }
    let reduce_outputs: Vec<(usize, KernelReduce, DType)> = k
        .outputs
        .iter()
        .enumerate()
        .filter_map(|(o, out)| match out.kind {
            OutputKind::Reduce(op) => Some((o, op, acc_type(op, k.types[out.value as usize], target.float64))),
            _ => None,
        })
        .collect();
    let scan_outputs: Vec<(usize, ScanOp, DType)> = k
        .outputs
        .iter()
        .enumerate()
        .filter_map(|(o, out)| match out.kind {
            OutputKind::Scan(op) => Some((o, op, carry_type(out.dtype, target.float64))),
            _ => None,
        })
        .collect();
    let mut combines = String::new();
    for &(o, op, acc) in &reduce_outputs {
        combines += &combine_fn(o, op, acc);
    }
    combines += &scan_op_fns(&scan_outputs);
    let acc_init = |s: &mut String| {
        for &(o, op, acc) in &reduce_outputs {
            writeln!(s, "{} a{o} = {}; int64_t ai{o} = -1;", glsl::reg_type(acc), identity(op, acc)).unwrap();
        }
    };
    let fold = |s: &mut String, index: &str| {
        for &(o, _, acc) in &reduce_outputs {
            let v = k.outputs[o].value;
            let from = k.types[v as usize];
            let x = if from == DType::Bool { format!("uint(v{v})") } else { format!("{}(v{v})", glsl::reg_type(acc)) };
            writeln!(s, "comb{o}(a{o}, ai{o}, {x}, int64_t({index}));").unwrap();
        }
    };
    let store = |g: &Gen, s: &mut String, index: &str| {
        for (o, out) in k.outputs.iter().enumerate().filter(|(_, out)| out.kind == OutputKind::Store) {
            writeln!(s, "{}", g.store_out(o, index, &format!("v{}", out.value))).unwrap();
        }
    };

    let mut main = String::new();
    let mut finish = None;
    // What a mean divides by.
    let mut count = "meta.w[0]".to_string();
    match mode {
        Mode::Elementwise if step == 1 => {
            let coords = g.coords("li_", None)?;
            let body = g.body()?;
            writeln!(main, "void main() {{\nfor (uint li_ = {GRID_LOOP}) {{\n{coords}{body}").unwrap();
            store(&g, &mut main, "li_");
            main += "}\n}\n";
        }
        Mode::Elementwise => {
            // Step s_ of the grid loop takes points `step` s_ ..; the last may be partial.
            let shared = g.shared_randoms(step);
            let coords = g.coords("li_", None)?;
            let body = g.body()?;
            let steps = GRID_LOOP.replace("li_ < meta.w[0]", &format!("li_ < (meta.w[0] + {}u) / {step}u", step - 1));
            writeln!(
                main,
                "void main() {{\n{}for (uint s_ = {}) {{\n{shared}for (uint j_ = 0u; j_ < {step}u; j_++) {{\n\
                 uint li_ = s_ * {step}u + j_;\nif (li_ >= meta.w[0]) break;\n{coords}{body}",
                g.random_caches(),
                steps.replace("li_", "s_")
            )
            .unwrap();
            store(&g, &mut main, "li_");
            main += "}\n}\n}\n";
        }
        Mode::ReduceAll => {
            let coords = g.coords("li_", None)?;
            let body = g.body()?;
            main += "void main() {\n";
            main += &g.random_caches();
            acc_init(&mut main);
            writeln!(main, "for (uint li_ = {GRID_LOOP}) {{\n{coords}{body}").unwrap();
            store(&g, &mut main, "li_");
            fold(&mut main, "li_");
            main += "}\n";
            write_partials(
                &mut main,
                &reduce_outputs,
                "0u",
                "gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x",
            );
            main += "}\n";
            if !target.handwritten {
                finish = Some(generated_finish(&g, &reduce_outputs, &acc_init));
            }
        }
        Mode::AxisTree(axis) => {
            // Workgroup w_ folds slice part_ of row row_: every parts_-th run of LOCAL points.
            let extent = g.num(k.domain.dim(axis) as i64)?;
            let coords = g.coords("row_", Some(axis))?;
            let lin = g.linear()?;
            let body = g.body()?;
            main += "void main() {\nuint rows_ = meta.w[2], parts_ = meta.w[3];\n";
            main += &g.random_caches();
            main += "for (uint w_ = gl_WorkGroupID.x; w_ < rows_ * parts_; w_ += gl_NumWorkGroups.x) {\n\
                     uint row_ = w_ / parts_, part_ = w_ % parts_;\n";
            main += &coords;
            acc_init(&mut main);
            writeln!(
                main,
                "for (int t_ = int(part_ * gl_WorkGroupSize.x + gl_LocalInvocationID.x); t_ < {extent}; \
                 t_ += int(parts_ * gl_WorkGroupSize.x)) {{\nc{axis} = t_;\nint lin_ = {lin};\n{body}"
            )
            .unwrap();
            store(&g, &mut main, "lin_");
            fold(&mut main, "t_");
            main += "}\n";
            write_partials(&mut main, &reduce_outputs, "row_", "part_");
            main += "}\n}\n";
            count = extent;
        }
        Mode::ScanBlocks(axis) => {
            let extent = g.num(k.domain.dim(axis) as i64)?;
            let coords = g.coords("row_", Some(axis))?;
            let lin = g.linear()?;
            let steps = scan_steps(&scan_outputs);
            // Workgroup w of the grid is block w % blocks of row w / blocks; invocation l
            // takes its points SCAN_ITEMS * l ...
            let head = format!(
                "void main() {{\nuint rows_ = meta.w[2], blocks_ = meta.w[3];\n\
                 uint row_ = gl_WorkGroupID.x / blocks_, blk_ = gl_WorkGroupID.x % blocks_;\n{}{coords}",
                g.random_caches()
            );
            let points = |inner: &str| {
                format!(
                    "for (int j_ = 0; j_ < {SCAN_ITEMS}; j_++) {{\n\
                     int t_ = int((blk_ * gl_WorkGroupSize.x + gl_LocalInvocationID.x) * {SCAN_ITEMS}u) + j_;\n\
                     if (t_ < {extent}) {{\nc{axis} = t_;\nint lin_ = {lin};\n{inner}}}\n}}\n"
                )
            };
            let running = |s: &mut String| {
                for &(o, op, carry) in &scan_outputs {
                    writeln!(s, "{} s{o} = {};", glsl::reg_type(carry), scan_identity(op, carry)).unwrap();
                }
            };
            let fold_running = |keep: bool| {
                let mut s = String::new();
                for &(o, _, carry) in &scan_outputs {
                    let v = k.outputs[o].value;
                    writeln!(s, "s{o} = op{o}(s{o}, {}(v{v}));", glsl::reg_type(carry)).unwrap();
                    if keep {
                        writeln!(s, "x{o}[j_] = s{o};").unwrap();
                    }
                }
                s
            };
            // First pass: the block's totals.
            let body = g.body()?;
            main = head.clone();
            running(&mut main);
            main += &points(&format!("{body}{}", fold_running(false)));
            for (n, &(o, _, carry)) in scan_outputs.iter().enumerate() {
                writeln!(
                    main,
                    "s{o} = total{o}(s{o});\nif (gl_LocalInvocationID.x == 0u) {{ \
                     part.p[({n}u * rows_ + row_) * blocks_ + blk_] = {}; }}",
                    encode(carry, &format!("s{o}"))
                )
                .unwrap();
            }
            main += "}\n";
            // Second pass: the block again, with the carries in.
            let body = g.body()?;
            let mut f = head;
            running(&mut f);
            for &(o, _, carry) in &scan_outputs {
                writeln!(f, "{} x{o}[{SCAN_ITEMS}];", glsl::reg_type(carry)).unwrap();
            }
            let mut first = body;
            store(&g, &mut first, "lin_");
            first += &fold_running(true);
            f += &points(&first);
            let mut write = String::new();
            for &(o, _, carry) in &scan_outputs {
                writeln!(f, "{} b{o} = op{o}(carry{o}(row_, blk_), exclusive{o}(s{o}));", glsl::reg_type(carry))
                    .unwrap();
                let res = scan_result(k.outputs[o].dtype, carry, &format!("op{o}(b{o}, x{o}[j_])"));
                writeln!(write, "{}", g.store_out(o, "lin_", &res)).unwrap();
            }
            f += &points(&write);
            if !reduce_outputs.is_empty() {
                // Reductions fused with the scan fold as the loop per row does (`Mode::Axis`),
                // so that they give the same bits as alone: one invocation per row.
                let body = g.body()?;
                f += "if (blk_ == 0u && gl_LocalInvocationID.x == 0u) {\n";
                acc_init(&mut f);
                writeln!(f, "for (int t_ = 0; t_ < {extent}; t_++) {{\nc{axis} = t_;\nint lin_ = {lin};\n{body}")
                    .unwrap();
                fold(&mut f, "t_");
                f += "}\n";
                for &(o, op, acc) in &reduce_outputs {
                    let out = k.outputs[o].dtype;
                    let value = finish_expr(op, acc, out, &format!("a{o}"), &format!("ai{o}"), &extent);
                    writeln!(f, "{}", g.store_out(o, "row_", &value)).unwrap();
                }
                f += "}\n";
            }
            finish = Some(format!("{steps}{f}}}\n"));
            main = format!("{steps}{main}");
        }
        Mode::Axis(axis) => {
            // Each invocation walks the whole axis.
            let coords = g.coords("li_", Some(axis))?;
            let extent = g.num(k.domain.dim(axis) as i64)?;
            let lin = g.linear()?;
            let body = g.body()?;
            writeln!(main, "void main() {{\n{}for (uint li_ = {GRID_LOOP}) {{\n{coords}", g.random_caches()).unwrap();
            acc_init(&mut main);
            for &(o, op, carry) in &scan_outputs {
                let ty = glsl::reg_type(carry);
                writeln!(main, "{ty} s{o} = {};", scan_identity(op, carry)).unwrap();
            }
            writeln!(main, "for (int t_ = 0; t_ < {extent}; t_++) {{\nc{axis} = t_;\nint lin_ = {lin};\n{body}")
                .unwrap();
            store(&g, &mut main, "lin_");
            fold(&mut main, "t_");
            for &(o, _, carry) in &scan_outputs {
                let (ty, v) = (glsl::reg_type(carry), k.outputs[o].value);
                writeln!(main, "s{o} = op{o}(s{o}, {ty}(v{v}));").unwrap();
                let res = scan_result(k.outputs[o].dtype, carry, &format!("s{o}"));
                writeln!(main, "{}", g.store_out(o, "lin_", &res)).unwrap();
            }
            main += "}\n";
            for &(o, op, acc) in &reduce_outputs {
                let out = k.outputs[o].dtype;
                let value = finish_expr(op, acc, out, &format!("a{o}"), &format!("ai{o}"), &extent);
                writeln!(main, "{}", g.store_out(o, "li_", &value)).unwrap();
            }
            main += "}\n}\n";
        }
    }
    let helpers = g.helpers.source() + &combines;
    let tree = mode.is_tree();
    let prelude = g.prelude(mode.has_scratch(), "", &helpers);
    let shared = if tree { tree_shared() } else { String::new() };
    let mut finish = finish.map(|f| format!("{prelude}{shared}{f}"));
    let handwritten = tree && target.handwritten;
    if handwritten {
        let extensions = if target.subgroup_shuffle {
            "#extension GL_KHR_shader_subgroup_basic : require\n\
             #extension GL_KHR_shader_subgroup_shuffle_relative : require\n"
        } else {
            ""
        };
        let mut f = g.prelude(true, extensions, &helpers);
        writeln!(f, "#define LOCAL {LOCAL}u\n#define SUBGROUPS {}", target.subgroup_shuffle as u8).unwrap();
        for &(o, op, acc) in &reduce_outputs {
            f += &final_pass(&g, o, op, acc, &count);
        }
        f += "void main() {\n";
        for &(o, _, _) in &reduce_outputs {
            writeln!(f, "final{o}();").unwrap();
        }
        finish = Some(f + "}\n");
    }
    Ok(Shader {
        mode,
        main: format!("{prelude}{shared}{main}"),
        finish,
        handwritten,
        grid,
        numbers: g.numbers,
        bindings: g.bindings,
        packs,
    })
}

fn scan_identity(op: ScanOp, carry: DType) -> String {
    match op {
        ScanOp::Sum => format!("{}(0)", glsl::reg_type(carry)),
        ScanOp::Prod => format!("{}(1)", glsl::reg_type(carry)),
        ScanOp::Max => extreme(carry, false),
        ScanOp::Min => extreme(carry, true),
    }
}

/// `op{o}(a, b)`, each scan output's step (precise), for the loops and `kernels/scan.comp`.
/// Max and min keep the first NaN met and, of equal values, the earlier (as the CPU does).
fn scan_op_fns(scan_outputs: &[(usize, ScanOp, DType)]) -> String {
    let mut s = String::new();
    for &(o, op, carry) in scan_outputs {
        let ty = glsl::reg_type(carry);
        let nan = |v: &str| if carry.is_float() { format!("isnan({v})") } else { "false".into() };
        let body = match op {
            ScanOp::Sum => format!("precise {ty} t = a + b; return t;"),
            ScanOp::Prod => format!("precise {ty} t = a * b; return t;"),
            ScanOp::Max => format!("return (!{} && ({} || b > a)) ? b : a;", nan("a"), nan("b")),
            ScanOp::Min => format!("return (!{} && ({} || b < a)) ? b : a;", nan("a"), nan("b")),
        };
        writeln!(s, "{ty} op{o}({ty} a, {ty} b) {{ {body} }}").unwrap();
    }
    s
}

/// For each scan output `o` (whose `op{o}` is defined by `scan_op_fns`): the workgroup steps of
/// `kernels/scan.comp` as `total{o}`, `carry{o}` and `exclusive{o}`.
fn scan_steps(scan_outputs: &[(usize, ScanOp, DType)]) -> String {
    let mut s = format!("#define LOCAL {LOCAL}u\n");
    for (n, &(o, op, carry)) in scan_outputs.iter().enumerate() {
        let ty = glsl::reg_type(carry);
        writeln!(s, "#define SCAN_TOTAL total{o}\n#define SCAN_CARRY carry{o}\n#define SCAN_EXCLUSIVE exclusive{o}")
            .unwrap();
        writeln!(
            s,
            "#define S {n}u\n#define ACC {ty}\n#define IDENTITY {}\n#define OP op{o}",
            scan_identity(op, carry)
        )
        .unwrap();
        // The parameter is not `x`: decoding reads the swizzle `.x`.
        writeln!(s, "#define ENCODE(v_) {}\n#define DECODE(v_) {}", encode(carry, "(v_)"), decode(carry, "(v_)"))
            .unwrap();
        s += include_str!("../../../kernels/scan.comp");
        s += "#undef SCAN_TOTAL\n#undef SCAN_CARRY\n#undef SCAN_EXCLUSIVE\n#undef S\n#undef ACC\n#undef IDENTITY\n\
              #undef OP\n#undef ENCODE\n#undef DECODE\n";
    }
    s
}

/// Combines each reduction's accumulators over the workgroup and lets invocation 0 write
/// the workgroup's partial: slot `part` of row `row` (see `kernels/reduce.comp`).
fn write_partials(s: &mut String, reduce_outputs: &[(usize, KernelReduce, DType)], row: &str, part: &str) {
    for &(o, _, acc) in reduce_outputs {
        *s += &tree(o, acc);
        writeln!(
            s,
            "if (gl_LocalInvocationID.x == 0u) {{\n\
             uint at_ = (({o}u * meta.w[2] + {row}) * meta.w[3] + {part}) * 2u;\n\
             part.p[at_] = {}; part.p[at_ + 1u] = unpackUint2x32(uint64_t(ai{o}));\n}}",
            encode(acc, &format!("a{o}"))
        )
        .unwrap();
    }
}

/// The generated final pass over everything (one workgroup folds every partial), used
/// when the hand-written kernels are off.
fn generated_finish(
    g: &Gen,
    reduce_outputs: &[(usize, KernelReduce, DType)],
    acc_init: &dyn Fn(&mut String),
) -> String {
    let mut f = String::from("void main() {\nuint groups_ = meta.w[1];\n");
    acc_init(&mut f);
    for &(o, op, acc) in reduce_outputs {
        writeln!(
            f,
            "for (uint g_ = gl_LocalInvocationID.x; g_ < groups_; g_ += gl_WorkGroupSize.x) {{\n\
             uint at_ = ({o}u * groups_ + g_) * 2u;\n\
             comb{o}(a{o}, ai{o}, {}, int64_t(packUint2x32(part.p[at_ + 1u])));\n}}",
            decode(acc, "part.p[at_]")
        )
        .unwrap();
        f += &tree(o, acc);
        let out = g.k.outputs[o].dtype;
        let value = finish_expr(op, acc, out, &format!("a{o}"), &format!("ai{o}"), "meta.w[0]");
        writeln!(f, "if (gl_LocalInvocationID.x == 0u) {{ {} }}", g.store_out(o, "0", &value)).unwrap();
    }
    f + "}\n"
}

/// The hand-written final pass (`kernels/reduce.comp`) for reduction output `o` as the
/// function `final{o}`, with the definitions it expects; `count` is what a mean divides by.
fn final_pass(g: &Gen, o: usize, op: KernelReduce, acc: DType, count: &str) -> String {
    let ty = glsl::reg_type(acc);
    let out = g.k.outputs[o].dtype;
    let value = finish_expr(op, acc, out, "a", "ai", count);
    let mut s = String::new();
    writeln!(s, "void store{o}(uint row, {ty} a, int64_t ai) {{\n{}\n}}", g.store_out(o, "row", &value)).unwrap();
    writeln!(s, "#define FINAL_PASS final{o}\n#define STORE_RESULT store{o}").unwrap();
    writeln!(s, "#define O {o}u\n#define ACC {ty}\n#define IDENTITY {}\n#define COMBINE comb{o}", identity(op, acc))
        .unwrap();
    // The parameter is not `x`: decoding reads the swizzle `.x`.
    writeln!(s, "#define ENCODE(v_) {}\n#define DECODE(v_) {}", encode(acc, "(v_)"), decode(acc, "(v_)")).unwrap();
    s += include_str!("../../../kernels/reduce.comp");
    s + "#undef FINAL_PASS\n#undef STORE_RESULT\n#undef O\n#undef ACC\n#undef IDENTITY\n#undef COMBINE\n\
         #undef ENCODE\n#undef DECODE\n"
}

/// The packs of `k`'s inputs: one per element type in memory, each input from its start
/// to the last element it reaches, 16-byte aligned. A pack must fit one storage-buffer
/// range (else the kernel runs on the CPU).
fn pack_inputs(k: &Kernel, target: &Target) -> Result<Vec<Pack>, Unsupported> {
    let mut types: Vec<&str> = Vec::new();
    let mut packs: Vec<Pack> = Vec::new();
    for (i, input) in k.inputs.iter().enumerate() {
        let t = glsl::mem_type(input.dtype);
        let p = types.iter().position(|&u| u == t).unwrap_or_else(|| {
            types.push(t);
            packs.push(Pack { bytes: 0, members: Vec::new() });
            types.len() - 1
        });
        let bytes = span_bytes(input);
        let pack = &mut packs[p];
        let offset = pack.bytes.next_multiple_of(16);
        pack.bytes = offset + bytes;
        if pack.bytes > target.chunk_bytes {
            return Err(format!("inputs of type {t} exceed one storage-buffer range when packed"));
        }
        pack.members.push((i, offset, bytes));
    }
    Ok(packs)
}
