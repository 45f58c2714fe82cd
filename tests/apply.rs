//! Applying a function to pieces: `sl_apply_elements` and `sl_apply_blocks`. Every result
//! is compared with the same function called by ordinary Sluice calls on each piece in a
//! loop (the pieces cut with ordinary pads and sections, the results joined with concat),
//! on fresh random inputs, on whichever executor `SLUICE_BACKEND` picks (the test command
//! runs this file on the CPU and on Vulkan). The seed's worked examples each have a test;
//! random functions and shapes check both forms against the loop; counters check that a
//! call ran as batched kernels and that a second identical call replays the recording.
//! One test function runs the parts that read process-wide counters, one after another.

mod common;

use std::ffi::c_void;

use common::*;
use rand::Rng;
use rand::rngs::StdRng;
use sluice::*;

// ---------------------------------------------------------------------------------------
// Calling the C API with Rust closures as the function.

/// The C function for closure type `F`: one function pointer per closure type, so each
/// closure is its own cache key (as each C function is).
unsafe extern "C" fn trampoline<F: FnMut(&[sl_array], &mut [sl_array]) -> sl_status>(
    pieces: *const sl_array,
    n_in: i32,
    outputs: *mut sl_array,
    n_out: i32,
    user: *mut c_void,
) -> sl_status {
    let f = unsafe { &mut *(user as *mut F) };
    let pieces = unsafe { std::slice::from_raw_parts(pieces, n_in as usize) };
    let outputs = unsafe { std::slice::from_raw_parts_mut(outputs, n_out as usize) };
    f(pieces, outputs)
}

fn try_elements<F: FnMut(&[sl_array], &mut [sl_array]) -> sl_status>(
    f: &mut F,
    inputs: &[sl_array],
    n_out: usize,
) -> Result<Vec<sl_array>, sl_status> {
    try_elements_with(f, inputs, &[], n_out)
}

/// With control values: a closure's captures are fixed when it records, so a closure
/// that does different things says which with controls.
fn try_elements_with<F: FnMut(&[sl_array], &mut [sl_array]) -> sl_status>(
    f: &mut F,
    inputs: &[sl_array],
    controls: &[f64],
    n_out: usize,
) -> Result<Vec<sl_array>, sl_status> {
    let mut out = vec![0; n_out];
    let st = sl_apply_elements(
        Some(trampoline::<F>),
        f as *mut F as *mut c_void,
        inputs.as_ptr(),
        inputs.len() as i32,
        controls.as_ptr(),
        controls.len() as i32,
        out.as_mut_ptr(),
        n_out as i32,
    );
    if st == SL_OK { Ok(out) } else { Err(st) }
}

#[track_caller]
fn elements<F: FnMut(&[sl_array], &mut [sl_array]) -> sl_status>(
    f: &mut F,
    inputs: &[sl_array],
    n_out: usize,
) -> Vec<sl_array> {
    try_elements(f, inputs, n_out).unwrap_or_else(|st| panic!("sl_apply_elements failed ({st}): {}", last_error().1))
}

fn try_blocks<F: FnMut(&[sl_array], &mut [sl_array]) -> sl_status>(
    f: &mut F,
    inputs: &[sl_array],
    o: &sl_block_options,
    n_out: usize,
) -> Result<Vec<sl_array>, sl_status> {
    let mut out = vec![0; n_out];
    let st = sl_apply_blocks(
        Some(trampoline::<F>),
        f as *mut F as *mut c_void,
        inputs.as_ptr(),
        inputs.len() as i32,
        o,
        out.as_mut_ptr(),
        n_out as i32,
    );
    if st == SL_OK { Ok(out) } else { Err(st) }
}

#[track_caller]
fn blocks<F: FnMut(&[sl_array], &mut [sl_array]) -> sl_status>(
    f: &mut F,
    inputs: &[sl_array],
    o: &sl_block_options,
    n_out: usize,
) -> Vec<sl_array> {
    try_blocks(f, inputs, o, n_out).unwrap_or_else(|st| panic!("sl_apply_blocks failed ({st}): {}", last_error().1))
}

fn options() -> sl_block_options {
    let mut o = std::mem::MaybeUninit::uninit();
    ok(sl_block_options_default(o.as_mut_ptr()));
    unsafe { o.assume_init() }
}

fn size_output(dims: &[usize]) -> sl_block_output {
    let mut d = [0i64; 8];
    for (x, &v) in d.iter_mut().zip(dims) {
        *x = v as i64;
    }
    sl_block_output { kind: SL_OUTPUT_SIZE, rank: dims.len() as i32, dims: d }
}

fn kind_output(kind: sl_block_output_kind) -> sl_block_output {
    sl_block_output { kind, rank: 0, dims: [0; 8] }
}

/// The handle a call makes (`ok` on its status).
#[track_caller]
fn make(call: impl FnOnce(*mut sl_array) -> sl_status) -> sl_array {
    let mut h = 0;
    ok(call(&mut h));
    h
}

/// `?` for statuses inside a function being applied.
macro_rules! st {
    ($call:expr) => {{
        let mut h = 0;
        let s = $call(&mut h);
        if s != SL_OK {
            return Err(s);
        }
        h
    }};
}

/// A function body written with `st!`, as the status the C function returns.
fn status(r: Result<(), sl_status>) -> sl_status {
    r.err().unwrap_or(SL_OK)
}

fn dims64(shape: &[usize]) -> Vec<i64> {
    shape.iter().map(|&d| d as i64).collect()
}

fn section(a: sl_array, start: &[usize], count: &[usize]) -> sl_array {
    let (s, c) = (dims64(start), dims64(count));
    let step = vec![1i64; s.len()];
    make(|o| sl_section(a, s.as_ptr(), c.as_ptr(), step.as_ptr(), o))
}

fn concat(parts: &[sl_array], dim: usize) -> sl_array {
    make(|o| sl_concat(parts.as_ptr(), parts.len() as i32, dim as i32, o))
}

fn stats_now() -> sl_stats {
    stats()
}

fn macro_cache() -> sl_cache_stats {
    let mut s: sl_cache_stats = unsafe { std::mem::zeroed() };
    ok(sl_get_cache_stats(SL_CACHE_MACRO, &mut s));
    s
}

/// f64 results agree within a relative `rel` of the larger magnitude involved.
#[track_caller]
fn assert_same(what: &str, got: sl_array, want: sl_array, rel: f64) {
    let (g, w) = (download(got), download(want));
    let scale = w.v.iter().map(|v| v.f().abs()).fold(1.0f64, f64::max);
    assert_near(what, &g, &w, rel * scale, 0.0);
}

/// The block `k` of `x` along `dim` as the loop takes it: the array padded by the
/// boundary rule by `before` and enough after, then `window` elements from `k * size`.
#[allow(clippy::too_many_arguments)]
fn block_of(
    x: sl_array,
    dim: usize,
    size: usize,
    before: usize,
    window: usize,
    count: usize,
    k: usize,
    o: &sl_block_options,
) -> sl_array {
    let shape = shape_of(x);
    if shape.get(dim).copied().unwrap_or(1) == 1 {
        return make(|out| sl_retain(x, out));
    }
    let n = shape[dim];
    let reach = (count - 1) * size + window;
    let (mut lo, mut hi) = (vec![0i64; shape.len()], vec![0i64; shape.len()]);
    lo[dim] = before as i64;
    hi[dim] = (reach - before - n) as i64;
    let padded = make(|out| sl_pad(x, lo.as_ptr(), hi.as_ptr(), o.boundary, o.pad, out));
    let mut start = vec![0usize; shape.len()];
    let mut cnt = shape_of(padded);
    start[dim] = k * size;
    cnt[dim] = window;
    let b = section(padded, &start, &cnt);
    ok(sl_release(padded));
    b
}

/// The loop over blocks: `f` called on block `k` of each input, for every `k`; the
/// results per output.
fn loop_blocks(
    f: &mut dyn FnMut(&[sl_array], &mut [sl_array]) -> sl_status,
    inputs: &[sl_array],
    o: &sl_block_options,
    dim: usize,
    n: usize,
    n_out: usize,
) -> Vec<Vec<sl_array>> {
    let size = o.block_size as usize;
    let (before, window) = (o.overlap_before as usize, (o.block_size + o.overlap_before + o.overlap_after) as usize);
    let count = n.div_ceil(size);
    let mut results = vec![Vec::new(); n_out];
    for k in 0..count {
        let pieces: Vec<sl_array> =
            inputs.iter().map(|&x| block_of(x, dim, size, before, window, count, k, o)).collect();
        let mut out = vec![0; n_out];
        ok(f(&pieces, &mut out));
        // A result may be a piece itself: its own handle outlives the pieces'.
        for (r, h) in results.iter_mut().zip(out) {
            r.push(make(|o| sl_retain(h, o)));
        }
        release(&pieces);
    }
    results
}

/// Results of every block joined along `dim` and cut to `length` there.
fn joined(parts: &[sl_array], dim: usize, length: usize) -> sl_array {
    let all = concat(parts, dim);
    let mut shape = shape_of(all);
    while shape.len() <= dim {
        shape.push(1);
    }
    let all = make(|o| sl_reshape(all, shape.len() as i32, dims64(&shape).as_ptr(), o));
    shape[dim] = length;
    section(all, &vec![0; shape.len()], &shape)
}

// ---------------------------------------------------------------------------------------
// The seed's worked examples.

/// A 3 x 10 block: the first 8 of its column sums, repeated over 20 rows, plus the row
/// index times the block's first element.
fn column_sums(p: &[sl_array], out: &mut [sl_array]) -> Result<(), sl_status> {
    let s = st!(|o| sl_sum(p[0], 0, o));
    let t = st!(|o| sl_section(s, [0i64, 0].as_ptr(), [1i64, 8].as_ptr(), [1i64, 1].as_ptr(), o));
    let u = st!(|o| sl_broadcast_to(t, 2, [20i64, 8].as_ptr(), o));
    let rows = st!(|o| sl_iota(SL_F64, 2, [20i64, 8].as_ptr(), 0, o));
    let corner = st!(|o| sl_section(p[0], [0i64, 0].as_ptr(), [1i64, 1].as_ptr(), [1i64, 1].as_ptr(), o));
    let w = st!(|o| sl_mul(rows, corner, o));
    out[0] = st!(|o| sl_add(u, w, o));
    Ok(())
}

/// The 10 x 10 array with `Dim 1, BlockSize 3`: four blocks (rows 1-3, 4-6, 7-9, 10, the
/// last padded), each giving 20 x 8, concatenated into `Output [20 30]`.
fn seed_uneven_blocks(rng: &mut StdRng) {
    let a = rand_arr(rng, SL_F64, &[10, 10], -1.0, 1.0, false).upload();
    let mut f = |p: &[sl_array], out: &mut [sl_array]| status(column_sums(p, out));
    let size = [size_output(&[20, 30])];
    let o = sl_block_options { dim: 0, block_size: 3, outputs: size.as_ptr(), n_outputs: 1, ..options() };
    let got = blocks(&mut f, &[a], &o, 1);
    assert_eq!(shape_of(got[0]), vec![20, 30]);
    let parts = loop_blocks(&mut f, &[a], &o, 0, 10, 1);
    assert_eq!(parts[0].len(), 4);
    let want = joined(&parts[0], 1, 30);
    assert_same("uneven blocks", got[0], want, 1e-14);
}

/// A 10 x 1 and a 1 x 10 input: their aggregate size is 10 x 10, per element and in
/// blocks along the second dimension (the 10 x 1 passed whole to every block).
fn seed_expansion(rng: &mut StdRng) {
    let a = rand_arr(rng, SL_F64, &[10, 1], -1.0, 1.0, false).upload();
    let b = rand_arr(rng, SL_F64, &[1, 10], -1.0, 1.0, false).upload();
    let mut f = |p: &[sl_array], out: &mut [sl_array]| {
        status((|| {
            let t = st!(|o| sl_mul(p[0], p[1], o));
            out[0] = st!(|o| sl_add(t, p[0], o));
            Ok(())
        })())
    };
    let per_element = elements(&mut f, &[a, b], 1);
    assert_eq!(shape_of(per_element[0]), vec![10, 10]);
    let whole = {
        let mut out = [0];
        ok(f(&[a, b], &mut out));
        out[0]
    };
    assert_same("elements of 10 x 1 with 1 x 10", per_element[0], whole, 0.0);
    let o = sl_block_options { dim: 1, ..options() };
    let got = blocks(&mut f, &[a, b], &o, 1);
    assert_eq!(shape_of(got[0]), vec![10, 10]);
    let parts = loop_blocks(&mut f, &[a, b], &o, 1, 10, 1);
    assert_same("blocks of 10 x 1 with 1 x 10", got[0], joined(&parts[0], 1, 10), 0.0);
    // The default dimension is the last one longer than 1: the same here.
    let auto = blocks(&mut f, &[a, b], &options(), 1);
    assert_same("SL_DIM_AUTO", auto[0], got[0], 0.0);
}

/// `B1 B2 = slicefun(fun, A, 'Output', {'slice', 'scalar'}, 'Dim', 1)`: a slice and a
/// value per row.
fn seed_output_slice_scalar(rng: &mut StdRng) {
    let a = rand_arr(rng, SL_F64, &[6, 7], -1.0, 1.0, false).upload();
    let mut f = |p: &[sl_array], out: &mut [sl_array]| {
        status((|| {
            let t = st!(|o| sl_mul_scalar(p[0], 2.0, o));
            out[0] = st!(|o| sl_add_scalar(t, 1.0, o));
            out[1] = st!(|o| sl_sum(p[0], SL_ALL_DIMS, o));
            Ok(())
        })())
    };
    let descr = [kind_output(SL_OUTPUT_SLICE), kind_output(SL_OUTPUT_SCALAR)];
    let o = sl_block_options { dim: 0, outputs: descr.as_ptr(), n_outputs: 2, ..options() };
    let got = blocks(&mut f, &[a], &o, 2);
    assert_eq!(shape_of(got[0]), vec![6, 7]);
    assert_eq!(shape_of(got[1]), vec![1, 6]);
    let parts = loop_blocks(&mut f, &[a], &o, 0, 6, 2);
    assert_same("slice", got[0], concat(&parts[0], 0), 1e-14);
    let sums: Vec<sl_array> = parts[1].iter().map(|&s| make(|o| sl_reshape(s, 2, [1i64, 1].as_ptr(), o))).collect();
    assert_same("scalar", got[1], concat(&sums, 1), 1e-14);
}

/// `slicefun(fun, A, 'Dim', 2, 'Overlap', 2)` on a 3-D array: each block sees 2
/// neighbours on each side (the ends padded, clamped or wrapped).
fn seed_overlap(rng: &mut StdRng) {
    let a = rand_arr(rng, SL_F64, &[4, 9, 3], -1.0, 1.0, false).upload();
    // A weighted sum over the window: 4 x 1 x 3 per block.
    let mut f = |p: &[sl_array], out: &mut [sl_array]| {
        status((|| {
            let w = st!(|o| sl_iota(SL_F64, 3, [1i64, 5, 1].as_ptr(), 1, o));
            let t = st!(|o| sl_mul(p[0], w, o));
            out[0] = st!(|o| sl_sum(t, 1, o));
            Ok(())
        })())
    };
    for (boundary, pad) in [(SL_BOUNDARY_FILL, 0.5), (SL_BOUNDARY_CLAMP, 0.0), (SL_BOUNDARY_WRAP, 0.0)] {
        let o = sl_block_options { dim: 1, overlap_before: 2, overlap_after: 2, boundary, pad, ..options() };
        let got = blocks(&mut f, &[a], &o, 1);
        assert_eq!(shape_of(got[0]), vec![4, 9, 3]);
        let parts = loop_blocks(&mut f, &[a], &o, 1, 9, 1);
        assert_same(&format!("overlap, boundary {boundary}"), got[0], joined(&parts[0], 1, 9), 1e-14);
    }
}

/// Pages `[i, j]` of `x` (dimensions 2 and 3), as a matrix.
fn page(x: sl_array, i: usize, j: usize) -> sl_array {
    let s = shape_of(x);
    let (i, j) = (if s[2] == 1 { 0 } else { i }, if s[3] == 1 { 0 } else { j });
    let p = section(x, &[0, 0, i, j], &[s[0], s[1], 1, 1]);
    make(|o| sl_reshape(p, 2, [s[0] as i64, s[1] as i64].as_ptr(), o))
}

/// Page-wise products and solves: 3 x 3 x 4 x 1 with 3 x 3 x 1 x 3 gives 3 x 3 x 4 x 3,
/// page (i, j) from page (i, 1) of the first and (1, j) of the second.
fn seed_pagewise(rng: &mut StdRng) {
    let a = rand_arr(rng, SL_F64, &[3, 3, 4, 1], -1.0, 1.0, false);
    let shift = make(|o| sl_identity(SL_F64, 3, 3, o));
    let a = make(|o| sl_add(a.upload(), make(|o2| sl_mul_scalar(shift, 4.0, o2)), o));
    let b = rand_arr(rng, SL_F64, &[3, 3, 1, 3], -1.0, 1.0, false).upload();
    for (name, call) in [("matmul", sl_matmul as extern "C" fn(_, _, _) -> _), ("solve", sl_solve)] {
        let got = make(|o| call(a, b, o));
        assert_eq!(shape_of(got), vec![3, 3, 4, 3], "{name}");
        let mut rows = Vec::new();
        for j in 0..3 {
            let pages: Vec<sl_array> = (0..4)
                .map(|i| {
                    let p = make(|o| call(page(a, i, 0), page(b, 0, j), o));
                    make(|o| sl_reshape(p, 4, [3i64, 3, 1, 1].as_ptr(), o))
                })
                .collect();
            rows.push(concat(&pages, 2));
        }
        assert_same(&format!("page-wise {name}"), got, concat(&rows, 3), 1e-13);
    }
}

/// 10,000 page-wise 16 x 16 products, against 10,000 `sl_matmul` calls.
fn seed_pagewise_16x16x10000(rng: &mut StdRng) {
    let n = 10_000;
    let a = rand_arr(rng, SL_F32, &[16, 16, n], -1.0, 1.0, false).upload();
    let b = rand_arr(rng, SL_F32, &[16, 16, n], -1.0, 1.0, false).upload();
    let got = make(|o| sl_matmul(a, b, o));
    assert_eq!(shape_of(got), vec![16, 16, n]);
    let got = download(got);
    // Compared 16 pages at a time (one read each; a concat of hundreds of arrays is one
    // kernel reading them all, slow to compile for a Vulkan driver).
    const AT_ONCE: usize = 16;
    for start in (0..n).step_by(AT_ONCE) {
        let products: Vec<sl_array> = (start..start + AT_ONCE)
            .map(|p| {
                let pa = section(a, &[0, 0, p], &[16, 16, 1]);
                let pb = section(b, &[0, 0, p], &[16, 16, 1]);
                let m = make(|o| sl_matmul(pa, pb, o));
                release(&[pa, pb]);
                m
            })
            .collect();
        let want = download(concat(&products, 2));
        release(&products);
        let part = Arr::new(SL_F32, &[16, 16, AT_ONCE], got.v[start * 256..(start + AT_ONCE) * 256].to_vec());
        assert_near("16 x 16 x 10000 product", &part, &want, 1e-5, 1e-5);
    }
}

// ---------------------------------------------------------------------------------------
// Intrinsics inside a function become their batched forms.

fn batched_intrinsics(rng: &mut StdRng) {
    let a = rand_arr(rng, SL_F64, &[8, 8, 50], -1.0, 1.0, false).upload();
    let mut f = |p: &[sl_array], out: &mut [sl_array]| {
        status((|| {
            // p: 8 x 8 x 1. A product, a solve, a sort and a transform of each page.
            let m = st!(|o| sl_reshape(p[0], 2, [8i64, 8].as_ptr(), o));
            let sq = st!(|o| sl_matmul(m, m, o));
            let eye = st!(|o| sl_identity(SL_F64, 8, 8, o));
            let shifted = st!(|o| sl_binary_scalar(SL_MUL, eye, 8.0, o));
            let d = st!(|o| sl_add(m, shifted, o));
            let ones = st!(|o| sl_constant(SL_F64, 2, [8i64, 2].as_ptr(), 1.0, o));
            let x = st!(|o| sl_solve(d, ones, o));
            let sorted = st!(|o| sl_sort(sq, 0, SL_ASCENDING, o));
            let spectrum = st!(|o| sl_fft(m, 1, [0i32].as_ptr(), SL_FFT_BACKWARD, o));
            let re = st!(|o| sl_real(spectrum, o));
            let y = st!(|o| sl_matmul(sorted, x, o));
            let z = st!(|o| sl_matmul(re, x, o));
            out[0] = st!(|o| sl_add(y, z, o));
            Ok(())
        })())
    };
    let descr = [size_output(&[8, 2, 50])];
    let o = sl_block_options { dim: 2, outputs: descr.as_ptr(), n_outputs: 1, ..options() };
    let before = stats_now();
    let got = blocks(&mut f, &[a], &o, 1);
    let got_values = download(got[0]);
    let after = stats_now();
    // One step per intrinsic for all 50 pages, not one per page.
    assert!(after.intrinsics - before.intrinsics < 20, "{} intrinsic steps", after.intrinsics - before.intrinsics);
    assert_eq!(after.looped_pieces, before.looped_pieces);
    let parts = loop_blocks(&mut f, &[a], &o, 2, 50, 1);
    let reshaped: Vec<sl_array> =
        parts[0].iter().map(|&r| make(|o| sl_reshape(r, 3, [8i64, 2, 1].as_ptr(), o))).collect();
    let want = download(concat(&reshaped, 2));
    assert_near("batched intrinsics", &got_values, &want, 1e-10, 1e-10);
}

// ---------------------------------------------------------------------------------------
// Random functions applied by each form to random shapes, against the loop over pieces.

/// A random function of its pieces: an element-wise chain over all of them, then
/// possibly a view and a reduction.
#[derive(Clone, Debug)]
struct Program {
    /// Per input after the first: the op combining it into the value.
    combine: Vec<sl_binary_op>,
    unary: Vec<sl_unary_op>,
    scalars: Vec<(sl_binary_op, f64)>,
    flip: Option<usize>,
    shift: Option<(usize, i64)>,
    /// A reduction along a dimension (`None` inside: over everything).
    reduce: Option<(sl_reduce_op, Option<usize>)>,
}

impl Program {
    fn random(rng: &mut StdRng, inputs: usize, rank: usize, views: bool) -> Program {
        let bin = [SL_ADD, SL_SUB, SL_MUL, SL_MAX, SL_MIN];
        let un = [SL_SIN, SL_COS, SL_TANH, SL_ABS, SL_NEG, SL_ATAN];
        let pick = |rng: &mut StdRng, xs: &[i32]| xs[rng.random_range(0..xs.len())];
        let combine = (1..inputs).map(|_| pick(rng, &bin)).collect();
        let unary = (0..rng.random_range(0..4)).map(|_| pick(rng, &un)).collect();
        let scalars =
            (0..rng.random_range(0..3)).map(|_| (pick(rng, &bin), (rng.random_range(-20..20) as f64) / 8.0)).collect();
        let dim = |rng: &mut StdRng| rng.random_range(0..rank.max(1));
        let flip = (views && rank > 0 && rng.random_bool(0.4)).then(|| dim(rng));
        let shift = (views && rank > 0 && rng.random_bool(0.4)).then(|| (dim(rng), rng.random_range(-2..3)));
        let reduce = (views && rng.random_bool(0.6)).then(|| {
            let op = pick(rng, &[SL_SUM, SL_MEAN, SL_MAXVAL, SL_MINVAL, SL_PROD]);
            (op, (rank > 0 && rng.random_bool(0.7)).then(|| dim(rng)))
        });
        Program { combine, unary, scalars, flip, shift, reduce }
    }

    fn run(&self, p: &[sl_array], out: &mut [sl_array]) -> Result<(), sl_status> {
        let mut x = p[0];
        for (k, &op) in self.combine.iter().enumerate() {
            x = st!(|o| sl_binary(op, x, p[k + 1], o));
        }
        for &u in &self.unary {
            x = st!(|o| sl_unary(u, x, o));
        }
        for &(op, s) in &self.scalars {
            x = st!(|o| sl_binary_scalar(op, x, s, o));
        }
        let rank = {
            let mut r = 0;
            ok(sl_rank(x, &mut r));
            r as usize
        };
        if let Some(d) = self.flip.filter(|&d| d < rank) {
            x = st!(|o| sl_flip(x, [d as i32].as_ptr(), 1, o));
        }
        if let Some((d, off)) = self.shift.filter(|&(d, _)| d < rank) {
            x = st!(|o| sl_shift(x, d as i32, off, SL_BOUNDARY_FILL, 0.25, o));
        }
        if let Some((op, dim)) = self.reduce {
            let dim = dim.filter(|&d| d < rank).map_or(SL_ALL_DIMS, |d| d as i32);
            x = st!(|o| sl_reduce(op, x, dim, o));
        }
        out[0] = x;
        Ok(())
    }
}

/// Shapes of `inputs` arrays of rank at most 3 that broadcast together, and their
/// aggregate size.
fn random_shapes(rng: &mut StdRng, inputs: usize, max_len: usize) -> (Vec<Vec<usize>>, Vec<usize>) {
    let rank = rng.random_range(1..=3);
    let full: Vec<usize> = (0..rank).map(|_| rng.random_range(1..=max_len)).collect();
    let shapes = (0..inputs)
        .map(|_| {
            let r = rng.random_range(0..=rank);
            (0..r).map(|d| if rng.random_bool(0.3) { 1 } else { full[d] }).collect()
        })
        .collect::<Vec<Vec<usize>>>();
    let mut agg = vec![1; shapes.iter().map(Vec::len).max().unwrap_or(0)];
    for s in &shapes {
        for (d, &n) in s.iter().enumerate() {
            agg[d] = agg[d].max(n);
        }
    }
    (shapes, agg)
}

fn random_elements(rng: &mut StdRng, rounds: usize) {
    for round in 0..rounds {
        let inputs = rng.random_range(1..=3);
        let (shapes, agg) = random_shapes(rng, inputs, 4);
        let arrays: Vec<sl_array> =
            shapes.iter().map(|s| rand_arr(rng, SL_F64, s, -2.0, 2.0, false).upload()).collect();
        let prog = Program::random(rng, inputs, 0, false);
        let mut f = |p: &[sl_array], out: &mut [sl_array]| status(prog.run(p, out));
        let got = try_elements_with(&mut f, &arrays, &[round as f64], 1).unwrap_or_else(|e| panic!("{e}"))[0];
        assert_eq!(shape_of(got), agg, "round {round}: {prog:?} on {shapes:?}");
        // The loop over elements: each element of each input (broadcast) alone.
        let n = numel(&agg);
        let mut results = Vec::with_capacity(n);
        for i in 0..n {
            let at = unravel(&agg, i);
            let pieces: Vec<sl_array> = arrays
                .iter()
                .zip(&shapes)
                .map(|(&x, s)| {
                    let start: Vec<usize> =
                        s.iter().enumerate().map(|(d, &len)| if len == 1 { 0 } else { at[d] }).collect();
                    let one = section(x, &start, &vec![1; s.len()]);
                    make(|o| sl_reshape(one, 0, std::ptr::null(), o))
                })
                .collect();
            let mut out = [0];
            ok(f(&pieces, &mut out));
            results.push(make(|o| sl_reshape(out[0], 1, [1i64].as_ptr(), o)));
        }
        let want = make(|o| sl_reshape(concat(&results, 0), agg.len() as i32, dims64(&agg).as_ptr(), o));
        assert_same(&format!("round {round}: {prog:?} on {shapes:?}"), got, want, 1e-13);
    }
}

fn random_blocks(rng: &mut StdRng, rounds: usize) {
    for round in 0..rounds {
        let inputs = rng.random_range(1..=3);
        let (shapes, agg) = random_shapes(rng, inputs, 7);
        let arrays: Vec<sl_array> =
            shapes.iter().map(|s| rand_arr(rng, SL_F64, s, -2.0, 2.0, false).upload()).collect();
        let dim = rng.random_range(0..agg.len().max(1));
        let n = agg.get(dim).copied().unwrap_or(1);
        let size = rng.random_range(1..=4);
        let (before, after) = (rng.random_range(0..=n.min(2)), rng.random_range(0..=n.min(2)));
        let boundary = [SL_BOUNDARY_FILL, SL_BOUNDARY_CLAMP, SL_BOUNDARY_WRAP][rng.random_range(0..3)];
        let prog = Program::random(rng, inputs, agg.len(), true);
        let mut f = |p: &[sl_array], out: &mut [sl_array]| status(prog.run(p, out));
        let control = [round as f64];
        let mut o = sl_block_options {
            dim: dim as i32,
            block_size: size as i64,
            overlap_before: before as i64,
            overlap_after: after as i64,
            boundary,
            pad: 0.75,
            controls: control.as_ptr(),
            n_controls: 1,
            ..options()
        };
        // The loop first: its results' shape decides the output's size.
        let count = n.div_ceil(size);
        let parts = loop_blocks(&mut f, &arrays, &o, dim, n, 1);
        let piece = shape_of(parts[0][0]);
        let what = format!(
            "round {round}: {prog:?} on {shapes:?}, dim {dim}, block {size}, overlap {before}/{after}, boundary {boundary}"
        );
        let (descr, want) = if piece.iter().all(|&d| d == 1) && rng.random_bool(0.5) {
            let scalars: Vec<sl_array> =
                parts[0].iter().map(|&s| make(|o| sl_reshape(s, 2, [1i64, 1].as_ptr(), o))).collect();
            (kind_output(SL_OUTPUT_SCALAR), concat(&scalars, 1))
        } else {
            // Concatenated along a random dimension, the last block's tail cut off.
            let c = rng.random_range(0..=piece.len());
            let per = piece.get(c).copied().unwrap_or(1);
            let cut = if per > 1 && count > 0 { rng.random_range(0..per) } else { 0 };
            let mut size = piece.clone();
            while size.len() <= c {
                size.push(1);
            }
            size[c] = count * per - cut;
            (size_output(&size), joined(&parts[0], c, size[c]))
        };
        let d = [descr];
        o.outputs = d.as_ptr();
        o.n_outputs = 1;
        let got = blocks(&mut f, &arrays, &o, 1)[0];
        assert_same(&what, got, want, 1e-12);
    }
}

// ---------------------------------------------------------------------------------------
// Batching happened, and the recording is replayed.

fn batching_and_replay(rng: &mut StdRng) {
    let n = 1 << 16;
    let x = rand_arr(rng, SL_F32, &[n], -1.0, 1.0, false).upload();
    let y = rand_arr(rng, SL_F32, &[n], -1.0, 1.0, false).upload();
    let calls = std::cell::Cell::new(0);
    // An 8-op function of two scalars.
    let mut f = |p: &[sl_array], out: &mut [sl_array]| {
        calls.set(calls.get() + 1);
        status((|| {
            let a = st!(|o| sl_mul(p[0], p[1], o));
            let b = st!(|o| sl_add_scalar(a, 0.5, o));
            let c = st!(|o| sl_sin(b, o));
            let d = st!(|o| sl_mul(c, p[0], o));
            let e = st!(|o| sl_sub(d, p[1], o));
            let g = st!(|o| sl_abs(e, o));
            let h = st!(|o| sl_sqrt(g, o));
            out[0] = st!(|o| sl_add(h, a, o));
            Ok(())
        })())
    };
    let (before, cache) = (stats_now(), macro_cache());
    let first = elements(&mut f, &[x, y], 1)[0];
    let first_values = download(first);
    let mid = stats_now();
    assert_eq!(mid.kernels - before.kernels, 1, "one fused kernel per apply");
    assert_eq!(mid.looped_pieces, before.looped_pieces);
    let second = elements(&mut f, &[x, y], 1)[0];
    assert_eq!(download(second).v, first_values.v, "the replay computes the same");
    let end = stats_now();
    assert_eq!(end.kernels - mid.kernels, 1, "the replay runs one kernel");
    assert_eq!(calls.get(), 1, "the second apply replays the recording without calling the function");
    let c = macro_cache();
    assert_eq!((c.hits - cache.hits, c.misses - cache.misses), (1, 1));
    // The same expression on whole arrays gives the same values.
    let mut whole = [0];
    ok(f(&[x, y], &mut whole));
    assert_eq!(download(whole[0]).v, first_values.v);

    // Blocks: a moving mean is one kernel for all blocks, replayed too.
    let v = rand_arr(rng, SL_F64, &[1000], -1.0, 1.0, false).upload();
    let calls = std::cell::Cell::new(0);
    let mut mean = |p: &[sl_array], out: &mut [sl_array]| {
        calls.set(calls.get() + 1);
        sl_mean(p[0], SL_ALL_DIMS, &mut out[0])
    };
    let d = [kind_output(SL_OUTPUT_SCALAR)];
    let o = sl_block_options { overlap_before: 3, overlap_after: 3, outputs: d.as_ptr(), n_outputs: 1, ..options() };
    let before = stats_now();
    let m1 = download(blocks(&mut mean, &[v], &o, 1)[0]);
    let mid = stats_now();
    assert_eq!(mid.kernels - before.kernels, 1, "one kernel for the moving mean of every block");
    let m2 = download(blocks(&mut mean, &[v], &o, 1)[0]);
    assert_eq!(m1.v, m2.v);
    assert_eq!(calls.get(), 1);
    // Other options are another recording.
    let o2 = sl_block_options { overlap_before: 2, ..o };
    blocks(&mut mean, &[v], &o2, 1);
    assert_eq!(calls.get(), 2);
}

/// A node without a batched form (a gather that checks its indices) runs piece by
/// piece, and the counters say so.
fn loop_fallback(rng: &mut StdRng) {
    let a = rand_arr(rng, SL_F64, &[5, 6], -1.0, 1.0, false).upload();
    let mut f = |p: &[sl_array], out: &mut [sl_array]| {
        status((|| {
            // p: 5 x 1; element 0 or 1 of the column (where it is positive), through a
            // gather that checks its indices: they differ between pieces.
            let positive = st!(|o| sl_binary_scalar(SL_GT, p[0], 0.0, o));
            let at = st!(|o| sl_cast(positive, SL_I64, o));
            let zero = st!(|o| sl_constant(SL_I64, 2, [5i64, 1].as_ptr(), 0.0, o));
            let g = st!(|o| sl_gather_with(p[0], [at, zero].as_ptr(), 2, SL_INDEX_ERROR, 0.0, o));
            out[0] = st!(|o| sl_reshape(g, 2, [5i64, 1].as_ptr(), o));
            Ok(())
        })())
    };
    let o = sl_block_options { dim: 1, ..options() };
    let before = stats_now();
    let got = blocks(&mut f, &[a], &o, 1)[0];
    let got = download(got);
    let after = stats_now();
    assert_eq!(after.looped_pieces - before.looped_pieces, 6, "six columns computed one by one");
    let parts = loop_blocks(&mut f, &[a], &o, 1, 6, 1);
    assert_near("loop fallback", &got, &download(joined(&parts[0], 1, 6)), 0.0, 0.0);
}

// ---------------------------------------------------------------------------------------
// Inputs of every kind, nesting.

fn inputs_of_every_kind(rng: &mut StdRng) {
    // A transposed view and a row-major array, in blocks and per element.
    let m = rand_arr(rng, SL_F64, &[7, 5], -1.0, 1.0, false);
    let t = make(|o| sl_transpose(m.upload(), o));
    let rows: Vec<f64> = (0..35).map(|_| rng.random_range(-1.0..1.0)).collect();
    let r = make(|o| sl_create(SL_F64, 2, [5i64, 7].as_ptr(), SL_ROW_MAJOR, rows.as_ptr() as *const _, 35 * 8, o));
    let mut f = |p: &[sl_array], out: &mut [sl_array]| {
        status((|| {
            let s = st!(|o| sl_sub(p[0], p[1], o));
            out[0] = st!(|o| sl_mul_scalar(s, 2.0, o));
            Ok(())
        })())
    };
    let descr = [kind_output(SL_OUTPUT_SLICE)];
    let o = sl_block_options { dim: 1, outputs: descr.as_ptr(), n_outputs: 1, ..options() };
    let got = blocks(&mut f, &[t, r], &o, 1)[0];
    let parts = loop_blocks(&mut f, &[t, r], &o, 1, 7, 1);
    assert_same("views and layouts", got, concat(&parts[0], 1), 1e-14);

    // Integer and f32 inputs; an integer pad value.
    let xi = rand_arr(rng, SL_I32, &[9], -50.0, 50.0, false).upload();
    let mut g = |p: &[sl_array], out: &mut [sl_array]| sl_sum(p[0], SL_ALL_DIMS, &mut out[0]);
    let d = [kind_output(SL_OUTPUT_SCALAR)];
    let oi =
        sl_block_options { block_size: 4, overlap_after: 1, pad: -3.0, outputs: d.as_ptr(), n_outputs: 1, ..options() };
    let got = blocks(&mut g, &[xi], &oi, 1)[0];
    let parts = loop_blocks(&mut g, &[xi], &oi, 0, 9, 1);
    let sums: Vec<sl_array> = parts[0].iter().map(|&s| make(|o| sl_reshape(s, 2, [1i64, 1].as_ptr(), o))).collect();
    assert_eq!(download(got).v, download(concat(&sums, 1)).v, "i32 blocks");
    let frac = sl_block_options { pad: 0.5, ..oi };
    fails(try_blocks(&mut g, &[xi], &frac, 1).unwrap_err(), SL_ERR_DTYPE_MISMATCH, "input 0");

    // Empty: no blocks along an empty dimension, no elements.
    let empty = rand_arr(rng, SL_F64, &[3, 0], 0.0, 1.0, false).upload();
    let mut h = |p: &[sl_array], out: &mut [sl_array]| sl_mul_scalar(p[0], 2.0, &mut out[0]);
    let got = blocks(&mut h, &[empty], &sl_block_options { dim: 1, ..options() }, 1)[0];
    assert_eq!(shape_of(got), vec![3, 0]);
    let got = elements(&mut h, &[empty], 1)[0];
    assert_eq!(shape_of(got), vec![3, 0]);
    // A size-1 slicing dimension: one block, the input passed whole.
    let one = rand_arr(rng, SL_F64, &[4, 1], 0.0, 1.0, false);
    let got = blocks(&mut h, &[one.upload()], &sl_block_options { dim: 1, ..options() }, 1)[0];
    assert_eq!(download(got).v, one.v.iter().map(|v| V::F64(v.f() * 2.0)).collect::<Vec<_>>());
    // Rank-0 inputs per element.
    let s = make(|o| sl_scalar(SL_F64, 1.5, o));
    let got = elements(&mut h, &[s], 1)[0];
    assert_eq!(download(got).v, vec![V::F64(3.0)]);
}

fn nesting(rng: &mut StdRng) {
    let a = rand_arr(rng, SL_F64, &[6, 4], -1.0, 1.0, false).upload();
    // Per element inside blocks: the function of each column squares its elements.
    let mut inner = |p: &[sl_array], out: &mut [sl_array]| sl_mul(p[0], p[0], &mut out[0]);
    let mut outer = |p: &[sl_array], out: &mut [sl_array]| {
        status((|| {
            let sq = match try_elements(&mut inner, &[p[0]], 1) {
                Ok(r) => r[0],
                Err(s) => return Err(s),
            };
            out[0] = st!(|o| sl_sum(sq, 0, o));
            Ok(())
        })())
    };
    let d = [size_output(&[1, 4])];
    let o = sl_block_options { dim: 1, outputs: d.as_ptr(), n_outputs: 1, ..options() };
    let got = blocks(&mut outer, &[a], &o, 1)[0];
    let sq = make(|o| sl_mul(a, a, o));
    assert_same("apply inside apply", got, make(|o| sl_sum(sq, 0, o)), 1e-14);

    // Inside a macro section: part of its recording, replayed with it.
    let name = std::ffi::CString::new("apply in a macro").unwrap();
    for round in 0..2 {
        let x = rand_arr(rng, SL_F64, &[6, 4], -1.0, 1.0, false).upload();
        let mut out = [0];
        let mut mode = -1;
        ok(sl_macro_begin(name.as_ptr(), &x, 1, std::ptr::null(), 0, out.as_mut_ptr(), 1, &mut mode));
        assert_eq!(mode, if round == 0 { SL_MACRO_RECORD } else { SL_MACRO_REPLAY });
        if mode == SL_MACRO_RECORD {
            out[0] = blocks(&mut outer, &[x], &o, 1)[0];
            ok(sl_macro_end(out.as_ptr(), 1));
        }
        let sq = make(|o| sl_mul(x, x, o));
        assert_same("apply inside a macro", out[0], make(|o| sl_sum(sq, 0, o)), 1e-14);
    }
}

// ---------------------------------------------------------------------------------------
// Misuse: a status and a message at the call, nothing cached, nothing lost.

fn misuse(rng: &mut StdRng) {
    let a = rand_arr(rng, SL_F64, &[5, 4], -1.0, 1.0, false);
    let ha = a.upload();
    let entries = macro_cache().entries;
    let mut id = |p: &[sl_array], out: &mut [sl_array]| sl_neg(p[0], &mut out[0]);
    let b = rand_arr(rng, SL_F64, &[3, 4], -1.0, 1.0, false).upload();
    fails(try_elements(&mut id, &[ha, b], 1).unwrap_err(), SL_ERR_SHAPE_MISMATCH, "input 1 has shape [3, 4]");
    fails(try_blocks(&mut id, &[ha, b], &options(), 1).unwrap_err(), SL_ERR_SHAPE_MISMATCH, "along dimension 0");
    let bad = |o: sl_block_options, needle: &str| {
        let mut id = |p: &[sl_array], out: &mut [sl_array]| sl_neg(p[0], &mut out[0]);
        fails(try_blocks(&mut id, &[ha], &o, 1).unwrap_err(), SL_ERR_INVALID_ARGUMENT, needle);
    };
    bad(sl_block_options { block_size: 0, ..options() }, "block_size is 0");
    bad(
        sl_block_options { overlap_before: 5, ..options() },
        "overlap_before is 5, larger than the array along dimension 1 (4 elements)",
    );
    bad(sl_block_options { overlap_after: -1, ..options() }, "overlap_after is -1");
    bad(sl_block_options { dim: -2, ..options() }, "dim -2");
    bad(sl_block_options { block_size: i64::MAX, overlap_after: 4, ..options() }, "too large");
    // A result a descriptor cannot hold, named by output.
    let d = [kind_output(SL_OUTPUT_SLICE)];
    let mut twice = |p: &[sl_array], out: &mut [sl_array]| {
        status((|| {
            out[0] = st!(|o| sl_neg(p[0], o));
            Ok(())
        })())
    };
    let o = sl_block_options { block_size: 2, outputs: d.as_ptr(), n_outputs: 1, ..options() };
    fails(try_blocks(&mut twice, &[ha], &o, 1).unwrap_err(), SL_ERR_SHAPE_MISMATCH, "output 0 is a slice");
    let d = [kind_output(SL_OUTPUT_SCALAR)];
    let o = sl_block_options { outputs: d.as_ptr(), ..o };
    fails(try_blocks(&mut twice, &[ha], &o, 1).unwrap_err(), SL_ERR_SHAPE_MISMATCH, "output 0 is a scalar");
    let d = [size_output(&[5, 4, 2])];
    let o = sl_block_options { outputs: d.as_ptr(), ..o };
    fails(try_blocks(&mut twice, &[ha], &o, 1).unwrap_err(), SL_ERR_SHAPE_MISMATCH, "in dimensions [1, 2]");
    let mut non_scalar = |p: &[sl_array], out: &mut [sl_array]| sl_broadcast_to(p[0], 1, [3i64].as_ptr(), &mut out[0]);
    fails(try_elements(&mut non_scalar, &[ha], 1).unwrap_err(), SL_ERR_SHAPE_MISMATCH, "one value per output");
    // A function that reads, uses an outside array, or fails.
    let mut reads = |p: &[sl_array], out: &mut [sl_array]| {
        let mut v = 0.0f64;
        let st = sl_read(p[0], SL_COL_MAJOR, &mut v as *mut f64 as *mut c_void, 8);
        if st != SL_OK {
            return st;
        }
        sl_neg(p[0], &mut out[0])
    };
    fails(try_elements(&mut reads, &[ha], 1).unwrap_err(), SL_ERR_INVALID_STATE, "the function failed");
    let mut outside = |p: &[sl_array], out: &mut [sl_array]| sl_add(p[0], b, &mut out[0]);
    fails(try_elements(&mut outside, &[ha], 1).unwrap_err(), SL_ERR_INVALID_ARGUMENT, "neither one of its inputs");
    let mut returns_input = |_: &[sl_array], out: &mut [sl_array]| sl_retain(b, &mut out[0]);
    fails(
        try_elements(&mut returns_input, &[ha], 1).unwrap_err(),
        SL_ERR_INVALID_ARGUMENT,
        "neither one of its inputs",
    );
    let mut leaves_scope = |p: &[sl_array], out: &mut [sl_array]| {
        ok(sl_scope_begin());
        sl_neg(p[0], &mut out[0])
    };
    fails(try_elements(&mut leaves_scope, &[ha], 1).unwrap_err(), SL_ERR_INVALID_STATE, "did not end");
    assert_eq!(macro_cache().entries, entries, "nothing recorded was cached");
    // Nothing computed is lost: the inputs read back, and applies work.
    assert_eq!(download(ha).v, a.v);
    let got = elements(&mut id, &[ha], 1)[0];
    assert_eq!(download(got).v, a.v.iter().map(|v| V::F64(-v.f())).collect::<Vec<_>>());
}

/// A named part of the suite.
type Part = (&'static str, fn(&mut StdRng));

#[test]
fn apply() {
    let mut rng = rng("apply");
    let parts: [Part; 14] = [
        ("seed_uneven_blocks", seed_uneven_blocks),
        ("seed_expansion", seed_expansion),
        ("seed_output_slice_scalar", seed_output_slice_scalar),
        ("seed_overlap", seed_overlap),
        ("seed_pagewise", seed_pagewise),
        ("seed_pagewise_16x16x10000", seed_pagewise_16x16x10000),
        ("batched_intrinsics", batched_intrinsics),
        ("random_elements", |r| random_elements(r, 20)),
        ("random_blocks", |r| random_blocks(r, 40)),
        ("batching_and_replay", batching_and_replay),
        ("loop_fallback", loop_fallback),
        ("inputs_of_every_kind", inputs_of_every_kind),
        ("nesting", nesting),
        ("misuse", misuse),
    ];
    for (name, part) in parts {
        let start = std::time::Instant::now();
        part(&mut rng);
        eprintln!("apply: {name} passed ({:.1} s)", start.elapsed().as_secs_f64());
    }
}
