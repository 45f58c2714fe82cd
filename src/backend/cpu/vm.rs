//! Runs a lowered program over its domain: chunk by chunk, on the worker threads.
//!
//! The domain is cut into chunks of at most `Program::lanes` lanes that never split a row
//! unevenly: a row (a run along dimension 0) longer than a chunk is cut into parts, and
//! shorter rows are packed whole, several to a chunk. Kernels that reduce or scan along a
//! dimension other than 0 instead loop over that dimension inside each chunk, folding
//! into per-lane accumulators ("planes"). Partial reductions are combined in chunk order,
//! so results do not depend on the thread count.

use std::cell::RefCell;
use std::ptr;

use multiversion::multiversion;
use smallvec::SmallVec;

use super::access::{Lin, Piece, walk};
use super::elem::with_elem;
use super::ops::{self, Opnd};
use super::program::{Access, Arg, CoordAccess, MAX_LANES, OutKind, OutSpec, Program, UInst, VInst};
use super::random;
use super::reduce::{self, Acc, ScanCarry};
use super::threads::Workers;
use crate::ir::kernel::KernelReduce;
use crate::ir::random::{Stream, sobol};
use crate::ir::{DType, Layout, MAX_RANK, Result, Scalar, Shape, Value, bail};

#[repr(C, align(64))]
#[derive(Copy, Clone)]
struct Block([u8; 64]);

/// Per-thread scratch: the register file and access-walk buffers.
#[derive(Default)]
pub struct Frame {
    regs: Vec<Block>,
    /// Bytes per register: 8 per lane of the running program's chunks.
    reg_bytes: usize,
    ptrs: Vec<*const u8>,
    pieces: Vec<Piece>,
    scratch: Vec<Piece>,
    /// The map and segment `pieces` were walked for, if still current in this launch.
    walked: Option<(u32, [i64; MAX_RANK], usize)>,
    acc: Vec<u64>,
    idx: Vec<i64>,
    carry: Vec<u64>,
    segs: Vec<Segment>,
    /// Per output: where this chunk's lanes go when they are contiguous there (else null).
    direct: Vec<*mut u8>,
    /// Input bytes the thread's next chunk reads, fetched a slice at a time between this
    /// chunk's instructions (`BoundInput::ahead`).
    ahead: Ahead,
    random: random::Scratch,
}

/// Runs of input the next chunk will read, as cache lines still to fetch: `lines[i]`
/// counts down the lines of the run starting at `runs[i]`. Issued into L2 a share per
/// instruction, so memory streams the next chunk in while this one computes (the chunk's
/// first reads otherwise stall on memory and its arithmetic then leaves memory idle).
#[derive(Default)]
struct Ahead {
    runs: Vec<(*const u8, usize)>,
    /// Lines left over all runs.
    left: usize,
}

impl Ahead {
    const LINE: usize = 64;

    /// Queues the `bytes` after `end` (where the next chunk's run of this input starts).
    fn queue(&mut self, end: *const u8, bytes: usize) {
        let lines = bytes.div_ceil(Self::LINE);
        self.runs.push((end, lines));
        self.left += lines;
    }

    /// Issues an even share of the lines left over the `insts` instructions left.
    fn issue(&mut self, insts: usize) {
        let mut quota = self.left.div_ceil(insts.max(1));
        self.left -= quota;
        while quota > 0 {
            let Some((at, lines)) = self.runs.last_mut() else { break };
            let k = quota.min(*lines);
            for i in 0..k {
                prefetch_l2(at.wrapping_add(i * Self::LINE));
            }
            *at = at.wrapping_add(k * Self::LINE);
            *lines -= k;
            quota -= k;
            if *lines == 0 {
                self.runs.pop();
            }
        }
    }

    fn clear(&mut self) {
        self.runs.clear();
        self.left = 0;
    }
}

/// Asks for the line at `p` in L2; `p` may be past the end of its input (a hint: nothing
/// is read, nothing faults).
#[inline(always)]
fn prefetch_l2(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching never faults, whatever the address.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T1, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T1>(p as *const i8)
    };
}

impl Frame {
    fn prepare(&mut self, n_regs: usize, lanes: usize) {
        self.reg_bytes = lanes * 8;
        // One extra register holds splats of uniform outputs.
        let blocks = (n_regs + 1) * self.reg_bytes / 64;
        if self.regs.len() < blocks {
            self.regs.resize(blocks, Block([0; 64]));
        }
        // Every instruction sets its destination before anything reads it, so stale
        // pointers left from an earlier launch are never used.
        if self.ptrs.len() <= n_regs {
            self.ptrs.resize(n_regs + 1, ptr::null());
        }
        self.walked = None;
    }

    /// Walks map `map` of `prog` over segment `s` into `self.pieces`, unless they already
    /// hold that walk: a fill boundary's validity and its load walk the same map.
    fn walk(&mut self, prog: &Program, map: u32, s: &Segment) {
        let key = (map, s.start, s.len);
        if self.walked != Some(key) {
            walk(prog.walk(map), &s.start, s.len, &mut self.pieces, &mut self.scratch);
            self.walked = Some(key);
        }
    }

    /// Whether `p` points into the register file (whose lanes a later instruction may
    /// overwrite), not into an input, an output or a constant.
    fn in_registers(&self, p: *const u8) -> bool {
        self.regs.as_ptr_range().contains(&(p as *const Block))
    }

    /// The lanes of register `r`, without a bounds check (the interpreter's hot path).
    ///
    /// # Safety
    /// `r` is at most the `n_regs` of the last `prepare` (lowering keeps register indices
    /// below a program's `n_regs`).
    #[inline(always)]
    unsafe fn ptr(&self, r: usize) -> *const u8 {
        debug_assert!(r < self.ptrs.len());
        unsafe { *self.ptrs.get_unchecked(r) }
    }

    /// Sets the lanes of register `r`.
    ///
    /// # Safety
    /// As for `ptr`.
    #[inline(always)]
    unsafe fn set_ptr(&mut self, r: usize, p: *const u8) {
        debug_assert!(r < self.ptrs.len());
        unsafe { *self.ptrs.get_unchecked_mut(r) = p }
    }

    fn reg(&mut self, r: usize) -> *mut u8 {
        // SAFETY: `prepare` sized the register file for every register index in use.
        unsafe { (self.regs.as_mut_ptr() as *mut u8).add(r * self.reg_bytes) }
    }
}

/// The lanes of a fill boundary's validity where a chunk is wholly inside it, or wholly
/// outside: a select on them picks one operand without looking at the lanes.
static ALL_VALID: [u8; MAX_LANES] = [1; MAX_LANES];
static NONE_VALID: [u8; MAX_LANES] = [0; MAX_LANES];

thread_local! {
    static FRAME: RefCell<Frame> = RefCell::new(Frame::default());
}

/// A row segment of a chunk: `len` lanes starting at lane `lane`, whose first element has
/// domain coordinates `start` and column-major linear index `linear`.
#[derive(Copy, Clone)]
struct Segment {
    lane: usize,
    len: usize,
    start: [i64; MAX_RANK],
    linear: usize,
}

struct BoundInput<'a> {
    ptr: *const u8,
    size: usize,
    layout: &'a Layout,
    rank: usize,
    /// Whether a chunk reading it in place fetches the next chunk's run while it
    /// computes (`Frame::ahead`): inputs too large to stay in cache, in launches of more
    /// than one chunk (whose threads run consecutive chunks).
    ahead: bool,
}

/// Per-launch lists, inline for the sizes small kernels have, so a launch of a small
/// kernel (a loop's replayed step) does not allocate.
type Few<T> = SmallVec<[T; 8]>;

/// Everything a chunk needs, shared by the worker threads.
struct Launch<'a> {
    prog: &'a Program,
    inputs: &'a [BoundInput<'a>],
    uni: &'a [u64],
    outs: &'a [*mut u8],
    /// Partial reductions: `[chunk * n_outputs + output]`.
    partials: *mut Acc,
    /// Per output: whether it is written with streaming stores.
    stream: &'a [bool],
}

// SAFETY: inputs are read-only while the launch runs; each chunk writes disjoint output
// elements and its own partial slots.
unsafe impl Sync for Launch<'_> {}

pub fn host_ptr(v: &Value) -> Result<*const u8> {
    match v.storage.host_bytes() {
        Some(b) => Ok(b.as_ptr()),
        None => bail!(Internal, "CPU executor given storage that is not in host memory"),
    }
}

pub fn run(prog: &Program, inputs: &[Value], params: &[Scalar], outputs: &[Value], workers: &Workers) -> Result<()> {
    // Nothing to write (a reduction of an empty array along a nonempty axis, say): the
    // domain may still have a huge dimension whose rows would all be walked for nothing.
    if outputs.iter().all(|v| v.storage.byte_len() == 0) {
        return Ok(());
    }
    let k = &prog.kernel;
    // Built in place (no collecting into a `Result`): these lists are inline, and moving
    // them would copy them.
    let mut bound: Few<BoundInput> = SmallVec::new();
    for (v, spec) in inputs.iter().zip(&k.inputs) {
        bound.push(BoundInput {
            ptr: host_ptr(v)?,
            size: spec.dtype.size(),
            layout: &spec.layout,
            rank: spec.shape.rank(),
            ahead: false,
        });
    }
    let mut outs: Few<*mut u8> = SmallVec::new();
    for v in outputs {
        outs.push(host_ptr(v)? as *mut u8);
    }
    let uni = eval_uniforms(prog, &bound, params);
    if let Some(n) = prog.one_row {
        // A loop's small step: its one segment runs here, without the chunk walk or
        // partials. One chunk is far below `STREAM_MIN_BYTES`, so nothing streams.
        let launch = Launch { prog, inputs: &bound, uni: &uni, outs: &outs, partials: ptr::null_mut(), stream: &[] };
        workers.run_here(|| with_frame(&launch, |f| unsafe { one_row(&launch, f, n) }));
        return Ok(());
    }
    let stream: Few<bool> = outputs.iter().map(|v| v.storage.byte_len() >= STREAM_MIN_BYTES).collect();
    let rows = RowChunks::new(&prog.domain.with_dim_or_scalar(prog.axis), prog.axis.is_none(), prog.lanes);
    let n_chunks = rows.n_chunks();
    for (b, v) in bound.iter_mut().zip(inputs) {
        b.ahead = n_chunks > 1 && v.storage.byte_len() >= STREAM_MIN_BYTES;
    }
    // Only reductions fold through partials.
    let reduces = prog.outputs.iter().any(|o| matches!(o.kind, OutKind::Reduce(_)));
    let mut partials: Few<Acc> =
        smallvec::smallvec![Acc { bits: 0, idx: -1 }; if reduces { n_chunks * prog.outputs.len() } else { 0 }];
    let launch =
        Launch { prog, inputs: &bound, uni: &uni, outs: &outs, partials: partials.as_mut_ptr(), stream: &stream };
    let serial = prog.domain.numel() < PARALLEL_MIN;
    match prog.axis {
        Some(axis) if axis > 0 => {
            workers.for_each(n_chunks, serial, |range| {
                with_frame(&launch, |f| range.for_each(|t| unsafe { plane_chunk(&launch, &rows, axis, f, t) }))
            });
        }
        _ => {
            if scans(prog) && rows.parts > 1 {
                // A scan carries along each long row: one task per row, parts in order.
                workers.for_each(rows.rows, serial, |range| {
                    with_frame(&launch, |f| {
                        for row in range {
                            let mut carries = scan_start(prog);
                            for part in 0..rows.parts {
                                unsafe { row_chunk(&launch, &rows, f, row * rows.parts + part, &mut carries) };
                            }
                        }
                    })
                });
            } else {
                workers.for_each(n_chunks, serial, |range| {
                    with_frame(&launch, |f| {
                        let mut carries = scan_start(prog);
                        range.for_each(|t| unsafe { row_chunk(&launch, &rows, f, t, &mut carries) });
                    })
                });
            }
            if reduces {
                unsafe { finish_row_reductions(&launch, &rows, &partials) };
            }
        }
    }
    Ok(())
}

/// Below this many domain points a launch runs on the calling thread.
pub const PARALLEL_MIN: usize = 1 << 15;

/// Runs `f` with this thread's frame, then makes its streaming stores visible.
fn with_frame(l: &Launch, f: impl FnOnce(&mut Frame)) {
    FRAME.with(|fr| {
        let mut fr = fr.borrow_mut();
        fr.prepare(l.prog.n_regs, l.prog.lanes);
        f(&mut fr)
    });
    if l.stream.contains(&true) {
        store_fence();
    }
}

/// Outputs at least this large are written with non-temporal stores: they will not be
/// read again while still in cache, and streaming skips reading each line before writing.
const STREAM_MIN_BYTES: usize = 8 << 20;

/// Copies `bytes` from `src` to `dst` with non-temporal stores where `dst` allows.
unsafe fn stream_copy(dst: *mut u8, src: *const u8, bytes: usize) {
    #[cfg(target_arch = "x86_64")]
    unsafe {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
        if (dst as usize).is_multiple_of(16) {
            let whole = bytes / 16;
            for i in 0..whole {
                _mm_stream_si128(dst.add(16 * i) as *mut __m128i, _mm_loadu_si128(src.add(16 * i) as *const __m128i));
            }
            ptr::copy_nonoverlapping(src.add(16 * whole), dst.add(16 * whole), bytes - 16 * whole);
            return;
        }
    }
    unsafe { ptr::copy_nonoverlapping(src, dst, bytes) };
}

fn store_fence() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: sfence has no preconditions (SSE is part of x86_64).
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

trait ShapeExt {
    fn with_dim_or_scalar(&self, axis: Option<usize>) -> Shape;
}

impl ShapeExt for Shape {
    /// The shape chunks iterate over: the domain, with a plane axis collapsed to 1.
    fn with_dim_or_scalar(&self, axis: Option<usize>) -> Shape {
        let s = if self.rank() == 0 { Shape::new(&[1]) } else { *self };
        match axis {
            Some(a) if a > 0 => s.with_dim(a, 1),
            _ => s,
        }
    }
}

/// How a shape is cut into chunks of `lanes` (the program's). Without a reduction or scan
/// axis, chunk `t` is the linear range `[t * lanes, (t + 1) * lanes)`, whatever the shape,
/// so reductions over everything (whose programs have chunks of `CHUNK` lanes) fold the
/// same blocks in the same order however the domain was collapsed. With an axis, chunks
/// follow rows: a row longer than a chunk is cut into parts, and shorter rows are packed
/// whole, several to a chunk.
struct RowChunks {
    shape: Shape,
    lanes: usize,
    d0: usize,
    rows: usize,
    linear: bool,
    /// Chunks per row when rows are longer than a chunk (else 1).
    parts: usize,
    /// Whole rows per chunk when rows are shorter than a chunk.
    rows_per: usize,
}

impl RowChunks {
    fn new(shape: &Shape, linear: bool, lanes: usize) -> RowChunks {
        let d0 = shape.dim(0);
        let rows = shape.numel().checked_div(d0).unwrap_or(0);
        let parts = if linear { 1 } else { d0.div_ceil(lanes).max(1) };
        let rows_per = if parts > 1 { 1 } else { (lanes / d0.max(1)).max(1) };
        RowChunks { shape: *shape, lanes, d0, rows, linear, parts, rows_per }
    }

    fn n_chunks(&self) -> usize {
        if self.linear {
            self.shape.numel().div_ceil(self.lanes)
        } else if self.parts > 1 {
            self.rows * self.parts
        } else {
            self.rows.div_ceil(self.rows_per)
        }
    }

    fn row_coords(&self, row: usize) -> [i64; MAX_RANK] {
        let mut c = [0i64; MAX_RANK];
        let mut r = row;
        for d in 1..self.shape.rank() {
            let n = self.shape.dim(d);
            c[d] = (r % n) as i64;
            r /= n;
        }
        c
    }

    /// The segments of chunk `t`, appended to `segs`.
    fn segments(&self, t: usize, segs: &mut Vec<Segment>) {
        segs.clear();
        if self.linear {
            let (first, end) = (t * self.lanes, ((t + 1) * self.lanes).min(self.shape.numel()));
            if self.rows == 1 {
                // One row (a collapsed domain): no division to find where the chunk starts.
                let mut start = [0; MAX_RANK];
                start[0] = first as i64;
                segs.push(Segment { lane: 0, len: end - first, start, linear: first });
                return;
            }
            let mut l = first;
            while l < end {
                let (row, c0) = (l / self.d0, l % self.d0);
                let len = (self.d0 - c0).min(end - l);
                let mut start = self.row_coords(row);
                start[0] = c0 as i64;
                segs.push(Segment { lane: l - first, len, start, linear: l });
                l += len;
            }
        } else if self.parts > 1 {
            let (row, part) = (t / self.parts, t % self.parts);
            let c0 = part * self.lanes;
            let mut start = self.row_coords(row);
            start[0] = c0 as i64;
            segs.push(Segment { lane: 0, len: self.lanes.min(self.d0 - c0), start, linear: row * self.d0 + c0 });
        } else {
            let first = t * self.rows_per;
            let last = (first + self.rows_per).min(self.rows);
            for row in first..last {
                segs.push(Segment {
                    lane: (row - first) * self.d0,
                    len: self.d0,
                    start: self.row_coords(row),
                    linear: row * self.d0,
                });
            }
        }
    }
}

/// The launch's uniform values.
fn eval_uniforms(prog: &Program, inputs: &[BoundInput], params: &[Scalar]) -> Few<u64> {
    let mut uni = Few::new();
    for u in &prog.uniforms {
        let mut out = 0u64;
        let dst = &mut out as *mut u64 as *mut u8;
        let at = |j: u16| Opnd::Scalar(uni[j as usize]);
        let ptr_of = |j: u16| &uni[j as usize] as *const u64 as *const u8;
        // SAFETY: every operand is one element in a u64 slot (little-endian low bytes).
        unsafe {
            match u {
                UInst::Param(p) => out = params[*p as usize].to_bits(),
                UInst::Bits(b) => out = *b,
                UInst::Load { input, offset } => {
                    let inp = &inputs[*input as usize];
                    ptr::copy_nonoverlapping(inp.ptr.offset(*offset as isize * inp.size as isize), dst, inp.size);
                }
                UInst::Unary { op, dtype, a } => ops::unary(*op, *dtype, ptr_of(*a), dst, 1),
                UInst::Binary { op, dtype, a, b } => ops::binary(*op, *dtype, at(*a), at(*b), dst, 1),
                UInst::Select { dtype, cond, a, b } => ops::select(*dtype, at(*cond), at(*a), at(*b), dst, 1),
                UInst::Fma { dtype, a, b, c } => ops::fma(*dtype, at(*a), at(*b), at(*c), dst, 1),
                UInst::Cast { from, to, a } => ops::cast(*from, *to, ptr_of(*a), dst, 1),
            }
        }
        uni.push(out);
    }
    uni
}

/// # Safety
/// A register operand is one of the launch's program (see `Frame::ptr`).
unsafe fn opnd(f: &Frame, uni: &[u64], a: Arg) -> Opnd {
    match a {
        Arg::Uniform(u) => Opnd::Scalar(uni[u as usize]),
        Arg::Reg(r) => Opnd::Vec(unsafe { f.ptr(r as usize) }),
    }
}

/// Copies `len` elements of `size` bytes starting at storage offset `a.base`, `a.step`
/// apart, to `dst`.
unsafe fn copy_run(base: *const u8, size: usize, a: Lin, dst: *mut u8, len: usize) {
    unsafe {
        let src = base.offset(a.base as isize * size as isize);
        if a.step == 1 {
            ptr::copy_nonoverlapping(src, dst, len * size);
            return;
        }
        macro_rules! strided {
            ($t:ty) => {{
                let (s, d) = (src as *const $t, dst as *mut $t);
                for l in 0..len {
                    *d.add(l) = *s.offset(l as isize * a.step as isize);
                }
            }};
        }
        match size {
            1 => strided!(u8),
            2 => strided!(u16),
            4 => strided!(u32),
            8 => strided!(u64),
            16 => strided!([u64; 2]),
            _ => unreachable!("elements of {size} bytes"),
        }
    }
}

/// Runs the program's instructions for the lanes of `segs`. Instructions that compute
/// a stored output write straight to `f.direct[output]` when it is set.
unsafe fn exec_code(l: &Launch, f: &mut Frame, segs: &[Segment], n: usize) {
    let prog = l.prog;
    f.ahead.clear();
    for (i, (vi, writes)) in prog.code.iter().zip(&prog.writes_output).enumerate() {
        f.ahead.issue(prog.code.len() - i);
        let target = writes.map(|o| f.direct[o as usize]).filter(|p| !p.is_null());
        unsafe {
            match vi {
                VInst::Load { dst, input, access } => {
                    load(l, f, *dst as usize, &l.inputs[*input as usize], access, segs)
                }
                VInst::Coord { dst, access } => {
                    let d = f.reg(*dst as usize) as *mut i64;
                    for s in segs {
                        match access {
                            CoordAccess::Affine(form) => fill_lin(d.add(s.lane), form.along_row(&s.start), s.len),
                            CoordAccess::Walk { map, dim } => {
                                f.walk(prog, *map, s);
                                for p in &f.pieces {
                                    fill_lin(d.add(s.lane + p.lane), p.coord[*dim as usize], p.len);
                                }
                            }
                        }
                    }
                    f.set_ptr(*dst as usize, d as *const u8);
                }
                VInst::Valid { dst, map } => {
                    let d = f.reg(*dst as usize);
                    let (mut any_valid, mut any_invalid) = (false, false);
                    for s in segs {
                        f.walk(prog, *map, s);
                        for p in &f.pieces {
                            ptr::write_bytes(d.add(s.lane + p.lane), p.valid as u8, p.len);
                            any_valid |= p.valid;
                            any_invalid |= !p.valid;
                        }
                    }
                    let lanes = match (any_valid, any_invalid) {
                        (true, false) => ALL_VALID.as_ptr(),
                        (false, true) => NONE_VALID.as_ptr(),
                        _ => d,
                    };
                    f.set_ptr(*dst as usize, lanes);
                }
                VInst::Unary { op, dtype, dst, a } => {
                    let d = target.unwrap_or_else(|| f.reg(*dst as usize));
                    let Opnd::Vec(src) = opnd(f, l.uni, *a) else { unreachable!("uniform unary is hoisted") };
                    ops::unary(*op, *dtype, src, d, n);
                    f.set_ptr(*dst as usize, d);
                }
                VInst::Binary { op, dtype, dst, a, b } => {
                    let d = target.unwrap_or_else(|| f.reg(*dst as usize));
                    ops::binary(*op, *dtype, opnd(f, l.uni, *a), opnd(f, l.uni, *b), d, n);
                    f.set_ptr(*dst as usize, d);
                }
                VInst::AddChain { dtype, dst, terms } => {
                    let d = target.unwrap_or_else(|| f.reg(*dst as usize));
                    let terms: SmallVec<[Opnd; 32]> = terms.iter().map(|&t| opnd(f, l.uni, t)).collect();
                    ops::add_chain(*dtype, &terms, d, n);
                    f.set_ptr(*dst as usize, d);
                }
                VInst::Select { dtype, dst, cond, a, b } => {
                    let (cond, a, b) = (opnd(f, l.uni, *cond), opnd(f, l.uni, *a), opnd(f, l.uni, *b));
                    // A chunk wholly inside (or outside) a fill boundary reads the chosen
                    // operand's lanes in place, when nothing in this chunk overwrites them.
                    let chosen = match cond {
                        Opnd::Vec(c) if c == ALL_VALID.as_ptr() => Some(a),
                        Opnd::Vec(c) if c == NONE_VALID.as_ptr() => Some(b),
                        _ => None,
                    };
                    if let (None, Some(Opnd::Vec(lanes))) = (target, chosen)
                        && !f.in_registers(lanes)
                    {
                        f.set_ptr(*dst as usize, lanes);
                        continue;
                    }
                    let d = target.unwrap_or_else(|| f.reg(*dst as usize));
                    ops::select(*dtype, cond, a, b, d, n);
                    f.set_ptr(*dst as usize, d);
                }
                VInst::Fma { dtype, dst, a, b, c } => {
                    let d = target.unwrap_or_else(|| f.reg(*dst as usize));
                    ops::fma(*dtype, opnd(f, l.uni, *a), opnd(f, l.uni, *b), opnd(f, l.uni, *c), d, n);
                    f.set_ptr(*dst as usize, d);
                }
                VInst::Cast { from, to, dst, a } => {
                    let d = target.unwrap_or_else(|| f.reg(*dst as usize));
                    let Opnd::Vec(src) = opnd(f, l.uni, *a) else { unreachable!("uniform cast is hoisted") };
                    ops::cast(*from, *to, src, d, n);
                    f.set_ptr(*dst as usize, d);
                }
                VInst::Gather { dst, input, indices } => {
                    let d = f.reg(*dst as usize);
                    gather(
                        f,
                        l.uni,
                        &l.inputs[*input as usize],
                        &prog.kernel.inputs[*input as usize].shape,
                        indices,
                        d,
                        n,
                    );
                    f.set_ptr(*dst as usize, d);
                }
                VInst::Random { kind, dist, dtype, dst, seed, draw, params, index } => {
                    let d = target.unwrap_or_else(|| f.reg(*dst as usize));
                    // Straight into a streamed output: with the generator's own streaming stores.
                    let nt = target.is_some() && writes.is_some_and(|o| l.stream.get(o as usize) == Some(&true));
                    let stream = Stream { kind: *kind, seed: l.uni[*seed as usize], draw: l.uni[*draw as usize] };
                    let mut law = random::Law { dist: *dist, params: Default::default() };
                    for (v, &p) in law.params.iter_mut().zip(&params[..dist.params()]) {
                        *v = l.uni[p as usize];
                    }
                    let size = dtype.size();
                    for s in segs {
                        match &index.access {
                            Access::Affine(form) => {
                                let (run, at) = (form.along_row(&s.start), d.add(s.lane * size));
                                random::fill(&mut f.random, &stream, &law, *dtype, run, at, s.len, nt)
                            }
                            Access::Walk(map) => {
                                f.walk(prog, *map, s);
                                for p in &f.pieces {
                                    let run = p.address(&index.dense, index.rank);
                                    let at = d.add((s.lane + p.lane) * size);
                                    random::fill(&mut f.random, &stream, &law, *dtype, run, at, p.len, nt);
                                }
                            }
                        }
                    }
                    f.set_ptr(*dst as usize, d);
                }
                VInst::Sobol { dtype, dst, input, index, dim, seed, scramble } => {
                    let d = f.reg(*dst as usize);
                    let inp = &l.inputs[*input as usize];
                    let (index, dim) = (opnd(f, l.uni, *index), opnd(f, l.uni, *dim));
                    let at = |o: &Opnd, lane: usize| match *o {
                        Opnd::Scalar(v) => v as i64,
                        Opnd::Vec(p) => *(p as *const i64).add(lane),
                    };
                    let directions = random::Directions { ptr: inp.ptr as *const i32, layout: inp.layout };
                    // SAFETY (coordinate): dimensions index the table's columns and points
                    // are below 2^32 (the front checks both).
                    let seed = l.uni[*seed as usize];
                    for lane in 0..n {
                        let x =
                            directions.coordinate(at(&index, lane) as u32, at(&dim, lane) as usize, *scramble, seed);
                        match dtype {
                            DType::F32 => *(d as *mut f32).add(lane) = sobol::to_f32(x),
                            _ => *(d as *mut f64).add(lane) = sobol::to_f64(x),
                        }
                    }
                    f.set_ptr(*dst as usize, d);
                }
            }
        }
    }
}

unsafe fn fill_lin(d: *mut i64, v: Lin, len: usize) {
    // A running sum: a multiply of 64-bit lanes is slow without AVX-512.
    let mut x = v.base;
    for i in 0..len {
        unsafe { *d.add(i) = x };
        x += v.step;
    }
}

unsafe fn load(l: &Launch, f: &mut Frame, dst: usize, inp: &BoundInput, access: &Access, segs: &[Segment]) {
    unsafe {
        let d = f.reg(dst);
        match access {
            Access::Affine(form) => {
                if let [s] = segs {
                    let a = form.along_row(&s.start);
                    if a.step == 1 {
                        // Contiguous in the input: read it in place.
                        let run = inp.ptr.offset(a.base as isize * inp.size as isize);
                        if inp.ahead {
                            f.ahead.queue(run.wrapping_add(s.len * inp.size), s.len * inp.size);
                        }
                        f.set_ptr(dst, run);
                        return;
                    }
                }
                for s in segs {
                    copy_run(inp.ptr, inp.size, form.along_row(&s.start), d.add(s.lane * inp.size), s.len);
                }
            }
            Access::Walk(map) => {
                for s in segs {
                    f.walk(l.prog, *map, s);
                    if let ([p], [_]) = (&f.pieces[..], segs) {
                        let a = p.address(inp.layout, inp.rank);
                        if p.valid && a.step == 1 {
                            let run = inp.ptr.offset(a.base as isize * inp.size as isize);
                            if inp.ahead {
                                f.ahead.queue(run.wrapping_add(p.len * inp.size), p.len * inp.size);
                            }
                            f.set_ptr(dst, run);
                            return;
                        }
                    }
                    for p in &f.pieces {
                        let lanes = d.add((s.lane + p.lane) * inp.size);
                        if p.valid {
                            copy_run(inp.ptr, inp.size, p.address(inp.layout, inp.rank), lanes, p.len);
                        } else {
                            // Outside a fill boundary (the value is not used), maybe of an empty
                            // source with nothing to read.
                            ptr::write_bytes(lanes, 0, p.len * inp.size);
                        }
                    }
                }
            }
        }
        f.set_ptr(dst, d);
    }
}

unsafe fn gather(f: &Frame, uni: &[u64], inp: &BoundInput, shape: &Shape, indices: &[Arg], d: *mut u8, n: usize) {
    // Uniform indices fold into the base offset; per-lane ones keep their largest index
    // (they are clamped) and stride.
    let mut base = inp.layout.offset;
    let mut lanes: Few<(*const i64, i64, i64)> = Few::new();
    for (dim, &a) in indices.iter().enumerate() {
        let (hi, stride) = ((shape.dim(dim) as i64 - 1).max(0), inp.layout.strides[dim]);
        match unsafe { opnd(f, uni, a) } {
            Opnd::Scalar(b) => base += (b as i64).clamp(0, hi) * stride,
            Opnd::Vec(p) => lanes.push((p as *const i64, hi, stride)),
        }
    }
    // SAFETY: clamped indices stay inside the input, whose elements are aligned to their
    // size; `d` holds `n` elements.
    unsafe { gather_elements(inp.size, inp.ptr.offset(base as isize * inp.size as isize), d, &lanes, n) }
}

/// `dst[lane] = src[sum over dims of clamp(index[lane], 0, hi) * stride]` for elements of
/// `size` bytes, copied as plain bits. With the number of per-lane indices known and the
/// wide targets' 64-bit multiplies, the offsets vectorise.
#[multiversion(targets("x86_64+avx512f+avx512bw+avx512dq+avx512vl+avx2+fma", "x86_64+avx2+fma"))]
unsafe fn gather_elements(size: usize, src: *const u8, dst: *mut u8, lanes: &[(*const i64, i64, i64)], n: usize) {
    unsafe {
        match size {
            1 => gather_by_indices(src, dst, lanes, n),
            2 => gather_by_indices(src as *const u16, dst as *mut u16, lanes, n),
            4 => gather_by_indices(src as *const u32, dst as *mut u32, lanes, n),
            8 => gather_by_indices(src as *const u64, dst as *mut u64, lanes, n),
            16 => gather_by_indices(src as *const [u64; 2], dst as *mut [u64; 2], lanes, n),
            size => unreachable!("elements of {size} bytes"),
        }
    }
}

/// The lanes with the count of per-lane indices a constant, up to three.
#[inline(always)]
unsafe fn gather_by_indices<T: Copy>(src: *const T, dst: *mut T, lanes: &[(*const i64, i64, i64)], n: usize) {
    unsafe {
        match *lanes {
            [] => gather_lanes(src, dst, [], n),
            [a] => gather_lanes(src, dst, [a], n),
            [a, b] => gather_lanes(src, dst, [a, b], n),
            [a, b, c] => gather_lanes(src, dst, [a, b, c], n),
            _ => {
                for lane in 0..n {
                    let off: i64 = lanes.iter().map(|&l| lane_offset(l, lane)).sum();
                    *dst.add(lane) = *src.offset(off as isize);
                }
            }
        }
    }
}

/// In blocks: the offsets first, in a loop of 64-bit vector arithmetic, then the loads
/// (with the loads in the same loop, LLVM kept the index arithmetic scalar).
#[inline(always)]
unsafe fn gather_lanes<T: Copy, const D: usize>(
    src: *const T,
    dst: *mut T,
    lanes: [(*const i64, i64, i64); D],
    n: usize,
) {
    const BLOCK: usize = 256;
    let mut offsets = [0i64; BLOCK];
    for start in (0..n).step_by(BLOCK) {
        let offsets = &mut offsets[..BLOCK.min(n - start)];
        for (i, o) in offsets.iter_mut().enumerate() {
            *o = lanes.iter().map(|&l| unsafe { lane_offset(l, start + i) }).sum();
        }
        for (i, &o) in offsets.iter().enumerate() {
            unsafe { *dst.add(start + i) = *src.offset(o as isize) };
        }
    }
}

/// The offset one per-lane index adds: the index clamped into its dimension, times its stride.
#[inline(always)]
unsafe fn lane_offset((index, hi, stride): (*const i64, i64, i64), lane: usize) -> i64 {
    unsafe { *index.add(lane) }.clamp(0, hi) * stride
}

/// The lanes of an output value as a pointer (uniform values are splatted first).
unsafe fn value_ptr(l: &Launch, f: &mut Frame, a: Arg, dtype: DType, n: usize) -> *const u8 {
    match a {
        Arg::Reg(r) => unsafe { f.ptr(r as usize) },
        Arg::Uniform(u) => {
            let bits = l.uni[u as usize];
            let d = f.reg(l.prog.n_regs);
            // 16-bit floats are splatted as their bits (values are never computed in them).
            let splat_as = if dtype.is_half() { DType::U16 } else { dtype };
            with_elem!(splat_as, T => {
                let v = <T as super::elem::Elem>::from_u64(bits);
                unsafe { std::slice::from_raw_parts_mut(d as *mut T, n).fill(v) };
            });
            d
        }
    }
}

fn scans(prog: &Program) -> bool {
    prog.outputs.iter().any(|o| matches!(o.kind, OutKind::Scan(_)))
}

/// Per output, the carry a scan starts from (none when the program does not scan).
fn scan_start(prog: &Program) -> Few<ScanCarry> {
    let mut carries = Few::new();
    if scans(prog) {
        for o in &prog.outputs {
            carries.push(match o.kind {
                OutKind::Scan(op) => reduce::scan_identity(op, o.dtype),
                _ => ScanCarry { bits: 0 },
            });
        }
    }
    carries
}

/// One chunk of a row-ordered launch: compute, store, scan along rows, and fold
/// reductions into this chunk's partials (or straight into the output when a chunk
/// holds whole rows).
unsafe fn row_chunk(l: &Launch, rows: &RowChunks, f: &mut Frame, t: usize, carries: &mut [ScanCarry]) {
    let mut segs = std::mem::take(&mut f.segs);
    rows.segments(t, &mut segs);
    unsafe { segments_chunk(l, rows, f, t, carries, &segs) };
    f.segs = segs;
}

/// The one segment of a `Program::one_row` launch, `n` lanes: stored outputs are written
/// straight from the instruction that computes them where it can; reductions fold the
/// lanes as the chunk walk folds its one chunk (then combines it with the identity, as
/// `finish_row_reductions` does), so the bits are the same.
unsafe fn one_row(l: &Launch, f: &mut Frame, n: usize) {
    f.direct.clear();
    for (spec, &out) in l.prog.outputs.iter().zip(l.outs) {
        f.direct.push(if spec.kind == OutKind::Store && spec.place.is_none() { out } else { ptr::null_mut() });
    }
    let seg = Segment { lane: 0, len: n, start: [0; MAX_RANK], linear: 0 };
    unsafe {
        exec_code(l, f, &[seg], n);
        for (spec, &out) in l.prog.outputs.iter().zip(l.outs) {
            match spec.kind {
                OutKind::Reduce(op) => {
                    let v = spec.value_dtype;
                    let acc = reduce::combine(op, v, reduce::identity(op, v), fold_everything(l, f, spec, op, n, 0));
                    write_bits(out, spec.dtype, 0, reduce::finish(op, v, spec.dtype, acc, n));
                }
                _ => {
                    let src = value_ptr(l, f, spec.value, spec.value_dtype, n);
                    if let Some(place) = &spec.place {
                        store_placed(out, spec.dtype.size(), place, l.prog.domain.rank(), &seg, src);
                    } else if !ptr::eq(src, out) {
                        ptr::copy_nonoverlapping(src, out, n * spec.dtype.size());
                    }
                }
            }
        }
    }
}

/// Folds the `n` lanes of an output reduced over everything: its values, or the products
/// of its value and factor (`OutSpec::factor`). Lane `i` is element `first + i`.
unsafe fn fold_everything(l: &Launch, f: &mut Frame, spec: &OutSpec, op: KernelReduce, n: usize, first: i64) -> Acc {
    unsafe {
        match (spec.factor, spec.value) {
            (Some(Arg::Reg(b)), Arg::Reg(a)) => {
                reduce::sum_products(spec.value_dtype, f.ptr(a as usize), f.ptr(b as usize), n)
            }
            (Some(_), _) => unreachable!("folded products are of two registers"),
            (None, value) => {
                reduce::reduce_lanes(op, spec.value_dtype, value_ptr(l, f, value, spec.value_dtype, n), n, first)
            }
        }
    }
}

/// Chunk `t` of a row-ordered launch, whose lanes are `segs`.
unsafe fn segments_chunk(
    l: &Launch,
    rows: &RowChunks,
    f: &mut Frame,
    t: usize,
    carries: &mut [ScanCarry],
    segs: &[Segment],
) {
    let n: usize = segs.iter().map(|s| s.len).sum();
    if n > 0 {
        // A chunk's lanes are consecutive elements of the domain, so stored outputs take
        // them in one contiguous run.
        f.direct.clear();
        for (o, spec) in l.prog.outputs.iter().enumerate() {
            // Random values stream to their output themselves.
            let direct =
                spec.kind == OutKind::Store && spec.place.is_none() && (!l.stream[o] || random_writes(l.prog, o));
            let here =
                if direct { unsafe { l.outs[o].add(segs[0].linear * spec.dtype.size()) } } else { ptr::null_mut() };
            f.direct.push(here);
        }
        unsafe { row_chunk_outputs(l, rows, f, t, carries, segs, n) };
    }
}

/// Writes the lanes of segment `s` (elements of `size` bytes in the chunk registers at
/// `src`) to a placed output (`OutSpec::place`): a run from the segment's start along
/// domain dimension 0.
unsafe fn store_placed(out: *mut u8, size: usize, place: &Layout, rank: usize, s: &Segment, src: *const u8) {
    let first = place.offset_of(&s.start, rank);
    let step = place.strides[0];
    unsafe {
        let src = src.add(s.lane * size);
        if step == 1 || s.len == 1 {
            ptr::copy_nonoverlapping(src, out.offset((first * size as i64) as isize), s.len * size);
        } else {
            for i in 0..s.len {
                let at = (first + i as i64 * step) * size as i64;
                ptr::copy_nonoverlapping(src.add(i * size), out.offset(at as isize), size);
            }
        }
    }
}

/// Whether output `o` is a random instruction's value, written in place.
fn random_writes(prog: &Program, o: usize) -> bool {
    let writes = |(vi, w): (&VInst, &Option<u16>)| *w == Some(o as u16) && matches!(vi, VInst::Random { .. });
    prog.code.iter().zip(&prog.writes_output).any(writes)
}

unsafe fn row_chunk_outputs(
    l: &Launch,
    rows: &RowChunks,
    f: &mut Frame,
    t: usize,
    carries: &mut [ScanCarry],
    segs: &[Segment],
    n: usize,
) {
    let prog = l.prog;
    unsafe {
        exec_code(l, f, segs, n);
        for (o, spec) in prog.outputs.iter().enumerate() {
            let src = value_ptr(l, f, spec.value, spec.value_dtype, n);
            let out = l.outs[o];
            match spec.kind {
                OutKind::Store if std::ptr::eq(src, f.direct[o]) => {} // written in place
                OutKind::Store if let Some(place) = &spec.place => {
                    for s in segs {
                        store_placed(out, spec.dtype.size(), place, prog.domain.rank(), s, src);
                    }
                }
                OutKind::Store => {
                    // A chunk's lanes are one contiguous run of the output.
                    let (size, dst) = (spec.dtype.size(), out.add(segs[0].linear * spec.dtype.size()));
                    if l.stream[o] {
                        stream_copy(dst, src, n * size);
                    } else {
                        ptr::copy_nonoverlapping(src, dst, n * size);
                    }
                }
                OutKind::Scan(op) => {
                    let (vs, os) = (spec.value_dtype.size(), spec.dtype.size());
                    for s in segs {
                        if rows.parts == 1 {
                            carries[o] = reduce::scan_identity(op, spec.dtype);
                        }
                        reduce::scan_lanes(
                            op,
                            spec.value_dtype,
                            spec.dtype,
                            &mut carries[o],
                            src.add(s.lane * vs),
                            out.add(s.linear * os),
                            s.len,
                        );
                    }
                }
                OutKind::Reduce(op) if prog.axis.is_none() => {
                    // The chunk's lanes are one linear block: fold them in one pass.
                    let acc = fold_everything(l, f, spec, op, n, (t * rows.lanes) as i64);
                    *l.partials.add(t * prog.outputs.len() + o) = acc;
                }
                OutKind::Reduce(op) => {
                    let vs = spec.value_dtype.size();
                    for s in segs {
                        let part = reduce::reduce_lanes(op, spec.value_dtype, src.add(s.lane * vs), s.len, s.start[0]);
                        if rows.parts == 1 {
                            // Whole rows: this is the row's result.
                            let bits = reduce::finish(op, spec.value_dtype, spec.dtype, part, rows.d0);
                            write_bits(out, spec.dtype, s.linear / rows.d0, bits);
                        } else {
                            *l.partials.add(t * prog.outputs.len() + o) = part;
                        }
                    }
                }
            }
        }
    }
}

unsafe fn write_bits(out: *mut u8, dtype: DType, index: usize, bits: u64) {
    let size = dtype.size();
    let bytes = bits.to_le_bytes();
    unsafe { ptr::copy_nonoverlapping(bytes.as_ptr(), out.add(index * size), size) };
}

/// Combines chunk partials in chunk order into the reduction outputs.
unsafe fn finish_row_reductions(l: &Launch, rows: &RowChunks, partials: &[Acc]) {
    let prog = l.prog;
    let n_out = prog.outputs.len();
    for (o, spec) in prog.outputs.iter().enumerate() {
        let OutKind::Reduce(op) = spec.kind else { continue };
        let v = spec.value_dtype;
        let fold = |range: std::ops::Range<usize>| {
            range.fold(reduce::identity(op, v), |acc, t| reduce::combine(op, v, acc, partials[t * n_out + o]))
        };
        unsafe {
            match prog.axis {
                None => {
                    let acc = fold(0..rows.n_chunks());
                    let count = prog.domain.numel();
                    write_bits(l.outs[o], spec.dtype, 0, reduce::finish(op, v, spec.dtype, acc, count));
                }
                Some(_) if rows.d0 == 0 => {
                    // Reducing empty rows: every output is the identity.
                    let out_len = prog.domain.numel_without(0);
                    let bits = reduce::finish(op, v, spec.dtype, reduce::identity(op, v), 0);
                    for i in 0..out_len {
                        write_bits(l.outs[o], spec.dtype, i, bits);
                    }
                }
                Some(_) if rows.parts > 1 => {
                    for row in 0..rows.rows {
                        let acc = fold(row * rows.parts..(row + 1) * rows.parts);
                        write_bits(l.outs[o], spec.dtype, row, reduce::finish(op, v, spec.dtype, acc, rows.d0));
                    }
                }
                Some(_) => {} // whole rows were written by their chunks
            }
        }
    }
}

trait NumelWithout {
    fn numel_without(&self, d: usize) -> usize;
}

impl NumelWithout for Shape {
    fn numel_without(&self, d: usize) -> usize {
        (0..self.rank()).filter(|&e| e != d).map(|e| self.dim(e)).product()
    }
}

/// One chunk of a launch that reduces or scans along `axis` > 0: the chunk covers
/// positions of the other dimensions and loops over the axis, folding per lane.
unsafe fn plane_chunk(l: &Launch, rows: &RowChunks, axis: usize, f: &mut Frame, t: usize) {
    let prog = l.prog;
    let mut segs = std::mem::take(&mut f.segs);
    rows.segments(t, &mut segs);
    let n: usize = segs.iter().map(|s| s.len).sum();
    if n == 0 {
        f.segs = segs;
        return;
    }
    // Outputs along a plane are not contiguous: compute into registers and copy.
    f.direct.clear();
    f.direct.resize(prog.outputs.len(), ptr::null_mut());
    let extent = prog.domain.dim(axis);
    let dense = prog.domain.dense_strides();
    // Accumulators and scan carries: n lanes per output.
    f.acc.clear();
    f.idx.clear();
    f.carry.clear();
    for spec in &prog.outputs {
        let (a, c) = match spec.kind {
            OutKind::Reduce(op) => (reduce::identity(op, spec.value_dtype).bits, 0),
            OutKind::Scan(op) => (0, reduce::scan_identity(op, spec.dtype).bits),
            OutKind::Store => (0, 0),
        };
        f.acc.extend(std::iter::repeat_n(a, n));
        f.idx.extend(std::iter::repeat_n(-1i64, n));
        f.carry.extend(std::iter::repeat_n(c, n));
    }
    let base_segs = segs.clone();
    for j in 0..extent {
        for s in segs.iter_mut() {
            s.start[axis] = j as i64;
            s.linear = (0..prog.domain.rank()).map(|d| s.start[d] as usize * dense[d] as usize).sum();
        }
        unsafe {
            exec_code(l, f, &segs, n);
            for (o, spec) in prog.outputs.iter().enumerate() {
                let src = value_ptr(l, f, spec.value, spec.value_dtype, n);
                let out = l.outs[o];
                match spec.kind {
                    OutKind::Store => {
                        let size = spec.dtype.size();
                        for s in &segs {
                            match &spec.place {
                                Some(place) => store_placed(out, size, place, prog.domain.rank(), s, src),
                                None => ptr::copy_nonoverlapping(
                                    src.add(s.lane * size),
                                    out.add(s.linear * size),
                                    s.len * size,
                                ),
                            }
                        }
                    }
                    OutKind::Scan(op) => {
                        let (vs, os) = (spec.value_dtype.size(), spec.dtype.size());
                        for s in &segs {
                            let carry = &mut f.carry[o * n + s.lane..o * n + s.lane + s.len];
                            reduce::scan_fold(
                                op,
                                spec.value_dtype,
                                spec.dtype,
                                carry,
                                src.add(s.lane * vs),
                                out.add(s.linear * os),
                            );
                        }
                    }
                    OutKind::Reduce(op) => {
                        let acc = &mut f.acc[o * n..(o + 1) * n];
                        let idx = &mut f.idx[o * n..(o + 1) * n];
                        reduce::fold_lanes(op, spec.value_dtype, acc, idx, src, j as i64);
                    }
                }
            }
        }
    }
    // Reduced outputs have the chunked shape (the axis has size 1), where the
    // segments' own linear indices point.
    for (o, spec) in prog.outputs.iter().enumerate() {
        let OutKind::Reduce(op) = spec.kind else { continue };
        for s in &base_segs {
            for lane in 0..s.len {
                let acc = Acc { bits: f.acc[o * n + s.lane + lane], idx: f.idx[o * n + s.lane + lane] };
                let bits = reduce::finish(op, spec.value_dtype, spec.dtype, acc, extent);
                unsafe { write_bits(l.outs[o], spec.dtype, s.linear + lane, bits) };
            }
        }
    }
    f.segs = segs;
}
