//! Vulkan executor benchmarks: time to the first result of a fused kernel never seen
//! before (GLSL generation, shaderc, pipeline creation), of one whose pipeline is in the
//! in-memory program cache, and of one whose SPIR-V and pipeline are only in the on-disk
//! cache (a fresh runtime); element-wise and reduction work on both executors (same
//! process, same data); and a sequence of 8 dependent small kernels submitted once or
//! step by step (`SLUICE_VULKAN_SUBMIT_PER_STEP`); sums and transposes with and without
//! the hand-written kernels (`SLUICE_VULKAN_NO_HANDWRITTEN`, `SLUICE_VULKAN_AXIS_TREE`);
//! cumsums in blocks and looping per row (`SLUICE_VULKAN_BLOCKED_SCAN`); results read at
//! once, copied back by the submission computing them or downloaded
//! (`SLUICE_VULKAN_NO_READ_BACK`); a gather of columns against a copy of as many; sin, cos,
//! exp and log of 2^22 f32 on both executors; 2^22 random values (uniform and normal f32,
//! Philox and the fast hash, and uniform values fused into `a*x + b`) on both executors.
//! Complex f32 Fourier transforms on both executors.
//! Batched LU solves of small matrices, the device's kernels against CPU steps
//! (the device's forced by `SLUICE_VULKAN_DEVICE_FACTOR`).
//! On lavapipe (no GPU) these measure overheads, not a GPU.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use sluice::*;

fn check(st: sl_status) {
    assert_eq!(st, SL_OK, "Sluice call failed");
}

fn start() {
    start_on(SL_BACKEND_VULKAN);
}

fn start_on(backend: sl_backend) {
    let mut cfg: sl_config = unsafe { std::mem::zeroed() };
    check(sl_config_default(&mut cfg));
    cfg.backend = backend;
    check(sl_init(&cfg));
}

fn upload(data: &[f32]) -> sl_array {
    let n = [data.len() as i64];
    let mut h = 0;
    check(sl_create(SL_F32, 1, n.as_ptr(), SL_COL_MAJOR, data.as_ptr() as *const _, data.len() * 4, &mut h));
    h
}

/// Reads `h` (f32, `n` elements) back and returns its first element.
fn first(h: sl_array, n: usize) -> f32 {
    let mut v = vec![0f32; n];
    check(sl_read(h, SL_COL_MAJOR, v.as_mut_ptr() as *mut _, n * 4));
    v[0]
}

/// `x*a` and `x*a + b`, pending.
fn axpb(x: sl_array, a: f64, b: f64) -> (sl_array, sl_array) {
    let (mut ax, mut out) = (0, 0);
    check(sl_mul_scalar(x, a, &mut ax));
    check(sl_add_scalar(ax, b, &mut out));
    (ax, out)
}

/// Evaluates `h`, waits for it, and releases it.
fn evaluate(h: sl_array) {
    check(sl_eval(&h, 1));
    check(sl_sync());
    check(sl_release(h));
}

/// Elements of the element-wise and reduction benchmarks.
const N: usize = 1 << 22;

/// The executors compared: the CPU, Vulkan, and Vulkan with generated kernels only
/// (`SLUICE_VULKAN_NO_HANDWRITTEN`).
const EXECUTORS: [(&str, sl_backend, bool); 3] = [
    ("cpu", SL_BACKEND_CPU, false),
    ("vulkan", SL_BACKEND_VULKAN, false),
    ("vulkan_generated", SL_BACKEND_VULKAN, true),
];

/// Starts the runtime on `backend`, with the hand-written Vulkan kernels off if `generated`.
fn start_executor(backend: sl_backend, generated: bool) {
    switch("SLUICE_VULKAN_NO_HANDWRITTEN", generated);
    start_on(backend);
}

/// `a*x + b` and `sum(x*x)` on 2^22 f32, on the CPU executor and on Vulkan.
fn elementwise_and_reduction(c: &mut Criterion) {
    let xs: Vec<f32> = (0..N).map(|i| ((i % 1000) as f32) * 0.001 - 0.5).collect();
    let mut g = c.benchmark_group("executors");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    for (name, backend, generated) in EXECUTORS {
        start_executor(backend, generated);
        let x = upload(&xs);
        g.bench_function(format!("axpb_f32/{name}"), |b| {
            b.iter(|| {
                let (ax, out) = axpb(x, 1.5, 0.25);
                evaluate(out);
                check(sl_release(ax));
            })
        });
        g.bench_function(format!("sumsq_f32/{name}"), |b| {
            b.iter(|| {
                let (mut sq, mut s) = (0, 0);
                check(sl_mul(x, x, &mut sq));
                check(sl_sum(sq, SL_ALL_DIMS, &mut s));
                black_box(first(s, 1));
                check(sl_release(sq));
                check(sl_release(s));
            })
        });
        check(sl_release(x));
        check(sl_shutdown());
    }
    g.finish();
}

/// sin, cos, exp and log of 2^22 f32 (in [0.5, 10.5)) on the CPU executor and on Vulkan,
/// whose f32 math is its double-precision library rounded.
fn math_functions(c: &mut Criterion) {
    let xs: Vec<f32> = (0..N).map(|i| 0.5 + (i % 1000) as f32 * 0.01).collect();
    let mut g = c.benchmark_group("math");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    for (name, backend) in [("cpu", SL_BACKEND_CPU), ("vulkan", SL_BACKEND_VULKAN)] {
        start_on(backend);
        let x = upload(&xs);
        for (op, f) in [("sin", SL_SIN), ("cos", SL_COS), ("exp", SL_EXP), ("log", SL_LOG)] {
            g.bench_function(format!("{op}_f32/{name}"), |b| {
                b.iter(|| {
                    let mut y = 0;
                    check(sl_unary(f, x, &mut y));
                    evaluate(y);
                })
            });
        }
        check(sl_release(x));
        check(sl_shutdown());
    }
    g.finish();
}

/// 2^22 random f32 values stored, on the CPU executor and on Vulkan: uniform and normal
/// from Philox, uniform from the fast hash, and Philox uniforms fused into `a*x + b`.
fn random_numbers(c: &mut Criterion) {
    let mut g = c.benchmark_group("random");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    let n = N as i64;
    for (name, backend) in [("cpu", SL_BACKEND_CPU), ("vulkan", SL_BACKEND_VULKAN)] {
        start_on(backend);
        for (kind, gen_name) in [(SL_RNG_PHILOX, ""), (SL_RNG_FAST, "fast_")] {
            let mut rng = 0;
            check(sl_rng_create(kind, 20261124, &mut rng));
            let dists: &[(&str, bool)] =
                if kind == SL_RNG_PHILOX { &[("uniform", false), ("normal", true)] } else { &[("uniform", false)] };
            for &(dist, normal) in dists {
                let f = if normal { sl_random_normal } else { sl_random_uniform };
                g.bench_function(format!("{gen_name}{dist}_f32/{name}"), |b| {
                    b.iter(|| {
                        let mut a = 0;
                        check(f(rng, SL_F32, 1, &n, &mut a));
                        evaluate(a);
                    })
                });
            }
            if kind == SL_RNG_PHILOX {
                g.bench_function(format!("uniform_f32_axpb/{name}"), |b| {
                    b.iter(|| {
                        let mut a = 0;
                        check(sl_random_uniform(rng, SL_F32, 1, &n, &mut a));
                        let (ax, out) = axpb(a, 1.5, 0.25);
                        evaluate(out);
                        check(sl_release(ax));
                        check(sl_release(a));
                    })
                });
            }
            check(sl_rng_destroy(rng));
        }
        check(sl_shutdown());
    }
    g.finish();
}

/// 8 dependent kernels on 4096 f32 in one flush: four times a sum over everything and
/// the array plus that sum (each kernel reads the previous one's result).
fn dependent_steps(x: sl_array) -> f32 {
    check(sl_scope_begin());
    let mut cur = x;
    for _ in 0..4 {
        let (mut s, mut next) = (0, 0);
        check(sl_sum(cur, SL_ALL_DIMS, &mut s));
        check(sl_mul_scalar(s, 1e-4, &mut s));
        check(sl_add(cur, s, &mut next));
        cur = next;
    }
    let v = first(cur, 4096);
    check(sl_scope_end());
    v
}

fn one_submission(c: &mut Criterion) {
    let xs: Vec<f32> = (0..4096).map(|i| (i as f32) * 1e-3).collect();
    let mut g = c.benchmark_group("vulkan_sequence");
    g.sample_size(20).measurement_time(Duration::from_secs(5));
    for (name, per_step) in [("one_submit", false), ("submit_per_step", true)] {
        switch("SLUICE_VULKAN_SUBMIT_PER_STEP", per_step);
        start();
        let x = upload(&xs);
        g.bench_function(format!("8_dependent_kernels/{name}"), |b| b.iter(|| black_box(dependent_steps(x))));
        check(sl_release(x));
        check(sl_shutdown());
    }
    switch("SLUICE_VULKAN_SUBMIT_PER_STEP", false);
    g.finish();
}

/// `x*2 + 1` read at once, on 4096 and 2^20 f32: the result copied back by the
/// submission computing it (default) or by a submission of its own
/// (`SLUICE_VULKAN_NO_READ_BACK`).
fn read_back(c: &mut Criterion) {
    let mut g = c.benchmark_group("vulkan_read");
    g.sample_size(20).measurement_time(Duration::from_secs(5));
    for n in [4096, 1 << 20] {
        let xs: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 1e-3).collect();
        for (name, off) in [("copied_back", false), ("downloaded", true)] {
            switch("SLUICE_VULKAN_NO_READ_BACK", off);
            start();
            let x = upload(&xs);
            g.bench_function(format!("axpb_{n}/{name}"), |b| {
                b.iter(|| {
                    let (t, y) = axpb(x, 2.0, 1.0);
                    black_box(first(y, n));
                    check(sl_release(t));
                    check(sl_release(y));
                })
            });
            check(sl_release(x));
            check(sl_shutdown());
        }
    }
    switch("SLUICE_VULKAN_NO_READ_BACK", false);
    g.finish();
}

/// Gathers of random columns of a column-major f32 array (`x[:, idx]`, columns
/// contiguous): 2,048 of a 1024 x 4096 array, and 131,072 of a 16 x 262,144 one (the
/// shortest slices Vulkan's copy of whole slices takes, `MIN_SLICE_LEN`), against copying every
/// other column of the first (the same amount, read through a strided view by an
/// element-wise kernel adding a constant): how far a gather is from a copy. On Vulkan,
/// with the copy of whole slices (`kernels/gather.comp`) and with generated kernels only
/// (`SLUICE_VULKAN_NO_HANDWRITTEN`).
fn gather_against_copy(c: &mut Criterion) {
    let mut g = c.benchmark_group("gather");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    for (name, backend, generated) in EXECUTORS {
        start_executor(backend, generated);
        for (label, rows, cols, picked) in
            [("columns", 1024i64, 4096i64, 2048i64), ("columns_of_16", 16, 262_144, 131_072)]
        {
            let xs: Vec<f32> = (0..rows * cols).map(|i| (i % 977) as f32).collect();
            let idx: Vec<i32> = (0..picked).map(|j| ((j * 2654435761) % cols) as i32).collect();
            let dims = [rows, cols];
            let mut x = 0;
            check(sl_create(SL_F32, 2, dims.as_ptr(), SL_COL_MAJOR, xs.as_ptr() as *const _, xs.len() * 4, &mut x));
            let (idx_dims, row_dims) = ([1, picked], [rows, 1]);
            let (mut hi, mut hr) = (0, 0);
            check(sl_create(
                SL_I32,
                2,
                idx_dims.as_ptr(),
                SL_COL_MAJOR,
                idx.as_ptr() as *const _,
                idx.len() * 4,
                &mut hi,
            ));
            check(sl_iota(SL_I32, 2, row_dims.as_ptr(), 0, &mut hr));
            let before = sluice::backend::vulkan::Handwritten::Gather.dispatches();
            let mut ran = false;
            g.bench_function(format!("{label}/{name}"), |b| {
                ran = true;
                b.iter(|| {
                    let mut out = 0;
                    check(sl_gather(x, [hr, hi].as_ptr(), 2, &mut out));
                    evaluate(out);
                })
            });
            // The copy of whole slices is what the Vulkan run measures, and only that run
            // (when a filter left the benchmark out, nothing ran).
            let copied = sluice::backend::vulkan::Handwritten::Gather.dispatches() > before;
            assert!(!ran || copied == (backend == SL_BACKEND_VULKAN && !generated), "{label}/{name}: which gather ran");
            if label == "columns" && !generated {
                g.bench_function(format!("strided_copy/{name}"), |b| {
                    b.iter(|| {
                        let (start, count, stride) = ([0i64, 0], [rows, picked], [1i64, 2]);
                        let (mut view, mut out) = (0, 0);
                        check(sl_section(x, start.as_ptr(), count.as_ptr(), stride.as_ptr(), &mut view));
                        check(sl_add_scalar(view, 0.5, &mut out));
                        evaluate(out);
                        check(sl_release(view));
                    })
                });
            }
            check(sl_release(x));
            check(sl_release(hi));
            check(sl_release(hr));
        }
        check(sl_shutdown());
    }
    switch("SLUICE_VULKAN_NO_HANDWRITTEN", false);
    g.finish();
}

/// Sets (or clears) an `on` switch of the environment before the runtime starts.
fn switch(name: &str, on: bool) {
    // SAFETY: set before the runtime starts, on the only thread using the environment.
    unsafe {
        match on {
            true => std::env::set_var(name, "on"),
            false => std::env::remove_var(name),
        }
    }
}

/// The ways kernels are chosen that the hand-written benchmarks compare: the default
/// policy, the tree form along long axes forced (`SLUICE_VULKAN_AXIS_TREE`), and
/// generated kernels only (`SLUICE_VULKAN_NO_HANDWRITTEN`).
const PATHS: [(&str, bool, bool); 3] =
    [("handwritten", false, false), ("axis_tree_forced", true, false), ("generated", false, true)];

/// Sums of 2^22 f32 on each of `PATHS`: over everything (where only the final pass
/// differs), along axes of 2^15 points (on lavapipe a loop per row unless the tree form
/// is forced), and along axes of 2^20 points (beyond lavapipe's loop limit: the tree form
/// on the device, or the CPU executor with generated kernels only).
fn handwritten_reductions(c: &mut Criterion) {
    let xs: Vec<f32> = (0..N).map(|i| ((i % 1000) as f32) * 0.001 - 0.5).collect();
    let mut g = c.benchmark_group("vulkan_reduce");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    for (name, axis_tree, generated) in PATHS {
        switch("SLUICE_VULKAN_AXIS_TREE", axis_tree);
        switch("SLUICE_VULKAN_NO_HANDWRITTEN", generated);
        start();
        let mut x = 0;
        for (case, dims, axis) in [
            ("all", [N as i64, 1], SL_ALL_DIMS),
            ("128x2^15_axis1", [128, N as i64 / 128], 1),
            ("2^15x128_axis0", [N as i64 / 128, 128], 0),
            ("4x2^20_axis1", [4, N as i64 / 4], 1),
            ("2^20x4_axis0", [N as i64 / 4, 4], 0),
        ] {
            check(sl_create(SL_F32, 2, dims.as_ptr(), SL_COL_MAJOR, xs.as_ptr() as *const _, N * 4, &mut x));
            let outputs = if axis == SL_ALL_DIMS { 1 } else { N / dims[axis as usize] as usize };
            g.bench_function(format!("sum_f32_{case}/{name}"), |b| {
                b.iter(|| {
                    let mut s = 0;
                    check(sl_sum(x, axis, &mut s));
                    black_box(first(s, outputs));
                    check(sl_release(s));
                })
            });
            check(sl_release(x));
        }
        check(sl_shutdown());
    }
    switch("SLUICE_VULKAN_AXIS_TREE", false);
    switch("SLUICE_VULKAN_NO_HANDWRITTEN", false);
    g.finish();
}

/// A 2048 x 2048 f32 transpose as a step of its own (the only output of a macro
/// section), with the blocked copy (`kernels/transpose.comp`) and with the generated
/// element-wise kernel.
fn handwritten_transpose(c: &mut Criterion) {
    const EDGE: i64 = 2048;
    let xs: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let mut g = c.benchmark_group("vulkan_transpose");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    for (name, generated) in [("handwritten", false), ("generated", true)] {
        switch("SLUICE_VULKAN_NO_HANDWRITTEN", generated);
        start();
        let dims = [EDGE, EDGE];
        let mut x = 0;
        check(sl_create(SL_F32, 2, dims.as_ptr(), SL_COL_MAJOR, xs.as_ptr() as *const _, N * 4, &mut x));
        g.bench_function(format!("transpose_f32_2048x2048/{name}"), |b| {
            b.iter(|| {
                let (mut t, mut mode) = ([0], 0);
                let name = c"transpose";
                check(sl_macro_begin(name.as_ptr(), &x, 1, std::ptr::null(), 0, t.as_mut_ptr(), 1, &mut mode));
                if mode == SL_MACRO_RECORD {
                    check(sl_transpose(x, &mut t[0]));
                    check(sl_macro_end(t.as_ptr(), 1));
                }
                check(sl_eval(t.as_ptr(), 1));
                check(sl_sync());
                check(sl_release(t[0]));
            })
        });
        check(sl_release(x));
        check(sl_shutdown());
    }
    switch("SLUICE_VULKAN_NO_HANDWRITTEN", false);
    g.finish();
}

/// Cumsums of 2^22 f32 along axes of 2^15 points (128 rows) and of 2^20 points (4 rows,
/// beyond lavapipe's loop limit), in blocks (`kernels/scan.comp`, forced with
/// `SLUICE_VULKAN_BLOCKED_SCAN`) and with generated kernels only (a loop per row; the
/// CPU executor beyond the loop limit).
fn handwritten_scan(c: &mut Criterion) {
    let xs: Vec<f32> = (0..N).map(|i| ((i % 1000) as f32) * 0.001 - 0.5).collect();
    let mut g = c.benchmark_group("vulkan_scan");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    for (name, generated) in [("blocked", false), ("generated", true)] {
        switch("SLUICE_VULKAN_BLOCKED_SCAN", !generated);
        switch("SLUICE_VULKAN_NO_HANDWRITTEN", generated);
        start();
        let mut x = 0;
        for (case, dims) in [("128x2^15_axis1", [128, N as i64 / 128]), ("4x2^20_axis1", [4, N as i64 / 4])] {
            check(sl_create(SL_F32, 2, dims.as_ptr(), SL_COL_MAJOR, xs.as_ptr() as *const _, N * 4, &mut x));
            g.bench_function(format!("cumsum_f32_{case}/{name}"), |b| {
                b.iter(|| {
                    let mut s = 0;
                    check(sl_cumsum(x, 1, &mut s));
                    black_box(first(s, N));
                    check(sl_release(s));
                })
            });
            check(sl_release(x));
        }
        check(sl_shutdown());
    }
    switch("SLUICE_VULKAN_BLOCKED_SCAN", false);
    switch("SLUICE_VULKAN_NO_HANDWRITTEN", false);
    g.finish();
}

/// A chain of 24 unary ops whose sequence spells `shape` in binary (sin for a 1, cos for
/// a 0), so each `shape` is a kernel structure of its own; returns once it is read.
fn first_result(shape: u64) {
    let data: Vec<f32> = (0..1024).map(|i| i as f32 * 1e-3).collect();
    let n = [1024i64];
    let mut x = 0;
    check(sl_create(SL_F32, 1, n.as_ptr(), SL_COL_MAJOR, data.as_ptr() as *const _, 4096, &mut x));
    let mut cur = x;
    for bit in 0..24 {
        let mut next = 0;
        check(if shape >> bit & 1 == 1 { sl_sin(cur, &mut next) } else { sl_cos(cur, &mut next) });
        if cur != x {
            check(sl_release(cur));
        }
        cur = next;
    }
    let mut out = vec![0f32; 1024];
    check(sl_read(cur, SL_COL_MAJOR, out.as_mut_ptr() as *mut _, 4096));
    check(sl_release(cur));
    check(sl_release(x));
}

/// Structures not used before in this process or on disk.
static FRESH: AtomicU64 = AtomicU64::new(0);

fn fresh_shape() -> u64 {
    let run = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64;
    (run ^ FRESH.fetch_add(0x9e37_79b9, Ordering::Relaxed)) & 0xff_ffff
}

fn program_cache(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("sluice-bench-cache-{}", std::process::id()));
    // SAFETY: set before any runtime starts, on the only thread.
    unsafe { std::env::set_var("SLUICE_CACHE_DIR", &dir) };
    let mut g = c.benchmark_group("vulkan_first_result");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    start();
    g.bench_function("compile", |b| b.iter(|| first_result(fresh_shape())));
    let seen = fresh_shape();
    first_result(seen);
    g.bench_function("memory_cache_hit", |b| b.iter(|| first_result(seen)));
    check(sl_shutdown());
    g.bench_function("disk_cache_hit", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                // Compiled (and written to disk) by one runtime, timed in the next.
                let shape = fresh_shape();
                start();
                first_result(shape);
                check(sl_shutdown());
                start();
                let t = Instant::now();
                first_result(shape);
                total += t.elapsed();
                check(sl_shutdown());
            }
            total
        })
    });
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

/// Complex f32 transforms of issue 16's sizes (1-D 2^20, 64 batched lines of 2^14, 2-D
/// 2048 x 2048), forward, on the CPU executor and on Vulkan (the generated Stockham
/// kernels; docs/internals.md, "Fourier transforms").
fn fourier_transforms(c: &mut Criterion) {
    let mut g = c.benchmark_group("fft");
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    let cases: [(&str, &[i64], &[i32]); 3] =
        [("1d_2p20", &[1 << 20], &[0]), ("batched_64x2p14", &[1 << 14, 64], &[0]), ("2d_2048", &[2048, 2048], &[0, 1])];
    for (name, backend) in [("cpu", SL_BACKEND_CPU), ("vulkan", SL_BACKEND_VULKAN)] {
        start_on(backend);
        for &(case, shape, dims) in &cases {
            let n: i64 = shape.iter().product();
            let x: Vec<f32> = (0..2 * n).map(|i| ((i * 7 % 101) as f32) * 0.01 - 0.5).collect();
            let mut h = 0;
            let bytes = x.len() * 4;
            check(sl_create(
                SL_C64,
                shape.len() as i32,
                shape.as_ptr(),
                SL_COL_MAJOR,
                x.as_ptr() as *const _,
                bytes,
                &mut h,
            ));
            g.bench_function(format!("{case}/{name}"), |b| {
                b.iter(|| {
                    let mut y = 0;
                    check(sl_fft(h, dims.len() as i32, dims.as_ptr(), SL_FFT_BACKWARD, &mut y));
                    evaluate(y);
                })
            });
            check(sl_release(h));
        }
        check(sl_shutdown());
    }
    g.finish();
}

/// Batched LU solves (`sl_solve`, x read back) of 10000 3 x 3, 1000 16 x 16 and 200
/// 32 x 32 f32 systems (one right-hand side each): the device's kernels (one matrix per
/// workgroup, `kernels/factor.comp`) against the same work as CPU steps
/// (the default on CPU-type devices; the kernels forced by `SLUICE_VULKAN_DEVICE_FACTOR`).
fn batched_small_lu(c: &mut Criterion) {
    let mut g = c.benchmark_group("vulkan_batched_lu");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    for (name, cpu) in [("device", false), ("cpu_step", true)] {
        switch("SLUICE_VULKAN_DEVICE_FACTOR", !cpu);
        start();
        for (n, count) in [(3usize, 10_000usize), (16, 1000), (32, 200)] {
            // Diagonally dominant, so every run pivots alike.
            let a: Vec<f32> = (0..n * n * count)
                .map(|i| {
                    let (r, c) = (i % n, i / n % n);
                    ((i * 7919 % 1000) as f32 / 500.0 - 1.0) + if r == c { n as f32 } else { 0.0 }
                })
                .collect();
            let b: Vec<f32> = (0..n * count).map(|i| (i * 104_729 % 1000) as f32 / 500.0 - 1.0).collect();
            let (mut ha, mut hb) = (0, 0);
            let dims = [n as i64, n as i64, count as i64];
            check(sl_create(SL_F32, 3, dims.as_ptr(), SL_COL_MAJOR, a.as_ptr() as *const _, a.len() * 4, &mut ha));
            let dims = [n as i64, 1, count as i64];
            check(sl_create(SL_F32, 3, dims.as_ptr(), SL_COL_MAJOR, b.as_ptr() as *const _, b.len() * 4, &mut hb));
            let mut x = vec![0f32; n * count];
            g.bench_function(format!("{count}x{n}x{n}/{name}"), |bench| {
                bench.iter(|| {
                    let mut hx = 0;
                    check(sl_solve(ha, hb, &mut hx));
                    check(sl_read(hx, SL_COL_MAJOR, x.as_mut_ptr() as *mut _, x.len() * 4));
                    check(sl_release(hx));
                })
            });
            check(sl_release(ha));
            check(sl_release(hb));
        }
        check(sl_shutdown());
    }
    switch("SLUICE_VULKAN_DEVICE_FACTOR", false);
    g.finish();
}

criterion_group!(
    benches,
    program_cache,
    elementwise_and_reduction,
    math_functions,
    random_numbers,
    one_submission,
    read_back,
    gather_against_copy,
    handwritten_reductions,
    handwritten_transpose,
    handwritten_scan,
    fourier_transforms,
    batched_small_lu
);
criterion_main!(benches);
