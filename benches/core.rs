//! Core benchmarks. Each Sluice measurement has a reference measured in the same run
//! (STREAM-style bandwidth, OpenBLAS sgemm, the same computation unfused), because these
//! machines are shared and noisy; `scripts/bench.sh` turns the estimates into the ratios
//! recorded in BENCHMARKS.md.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use sluice::*;

const N: usize = 1 << 24;

fn check(st: sl_status) {
    assert_eq!(st, SL_OK, "Sluice call failed");
}

/// Threads of the hand-written references: `SLUICE_THREADS` when set (as the executor's
/// workers), so `SLUICE_THREADS=1` compares one thread with one thread; else every core.
fn threads() -> usize {
    std::env::var("SLUICE_THREADS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&t| t > 0)
        .unwrap_or_else(|| std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1))
}

/// Runs `f(lo, hi)` over `n` indices split evenly across the machine's threads.
fn parallel(n: usize, f: impl Fn(usize, usize) + Sync) {
    let t = threads();
    std::thread::scope(|s| {
        for k in 0..t {
            let f = &f;
            s.spawn(move || f(n * k / t, n * (k + 1) / t));
        }
    });
}

struct SendPtr<T>(*mut T);
unsafe impl<T> Sync for SendPtr<T> {}

impl<T> SendPtr<T> {
    /// A method, so closures capture the wrapper rather than the bare pointer.
    fn at(&self, i: usize) -> *mut T {
        unsafe { self.0.add(i) }
    }
}

/// STREAM triad `a = b + s*c` (`n` elements of `T`).
fn triad<T: Copy + Send + Sync + std::ops::Add<Output = T> + std::ops::Mul<Output = T>>(
    a: &mut [T],
    b: &[T],
    cc: &[T],
    s: T,
) {
    let pa = SendPtr(a.as_mut_ptr());
    parallel(a.len(), |lo, hi| {
        let dst = unsafe { std::slice::from_raw_parts_mut(pa.at(lo), hi - lo) };
        for ((d, &x), &y) in dst.iter_mut().zip(&b[lo..hi]).zip(&cc[lo..hi]) {
            *d = x + s * y;
        }
    })
}

/// STREAM triad `a = b + s*c` and a read-only sum, over arrays too big for any cache.
/// The triads move the bytes of the 8-op chains of `fused` (two inputs, one output).
fn bandwidth(c: &mut Criterion) {
    let mut a = vec![0f32; N];
    let b = vec![1.5f32; N];
    let cc = vec![2.5f32; N];
    let mut g = c.benchmark_group("bandwidth");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    g.bench_function("triad_f32", |bench| bench.iter(|| triad(&mut a, &b, &cc, 3.0)));
    {
        let (mut a, b, cc) = (vec![0f64; N], vec![1.5f64; N], vec![2.5f64; N]);
        g.bench_function("triad_f64", |bench| bench.iter(|| triad(&mut a, &b, &cc, 3.0)));
        black_box(&a);
    }
    g.bench_function("write_f32", |bench| {
        let pa = SendPtr(a.as_mut_ptr());
        bench.iter(|| parallel(N, |lo, hi| unsafe { stream_fill(pa.at(lo), hi - lo, lo as f32) }))
    });
    // The same into pages mapped afresh for each write (and unmapped after), which the
    // kernel faults in and zeroes: the floor of a store into memory never touched before.
    // The executor's outputs reuse freed buffers of their size, so `write_f32` is the floor
    // of a repeated computation (`random_t*/*_store`).
    g.bench_function("write_f32_fresh", |bench| {
        bench.iter(|| {
            let bytes = N * 4;
            // SAFETY: an anonymous private mapping, written within its length, then unmapped.
            unsafe {
                let p = libc::mmap(
                    std::ptr::null_mut(),
                    bytes,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                );
                assert_ne!(p, libc::MAP_FAILED);
                let pa = SendPtr(p as *mut f32);
                parallel(N, |lo, hi| stream_fill(pa.at(lo), hi - lo, lo as f32));
                libc::munmap(p, bytes);
            }
        })
    });
    g.bench_function("read_f32", |bench| {
        bench.iter(|| {
            let total = std::sync::Mutex::new(0f32);
            parallel(N, |lo, hi| {
                let mut acc = [0f32; 16];
                for ch in b[lo..hi].chunks_exact(16) {
                    for l in 0..16 {
                        acc[l] += ch[l];
                    }
                }
                *total.lock().unwrap() += acc.iter().sum::<f32>();
            });
            black_box(*total.lock().unwrap())
        })
    });
    g.finish();
    black_box(&a);
}

/// Writes `n` floats from `value` on with non-temporal stores where aligned (as the CPU
/// executor writes large outputs): the floor of any computation that stores an array.
unsafe fn stream_fill(dst: *mut f32, n: usize, value: f32) {
    let mut i = 0;
    #[cfg(target_arch = "x86_64")]
    unsafe {
        use std::arch::x86_64::{_mm_set1_ps, _mm_sfence, _mm_stream_ps};
        while i < n && !(dst.add(i) as usize).is_multiple_of(16) {
            *dst.add(i) = value;
            i += 1;
        }
        let v = _mm_set1_ps(value);
        while i + 4 <= n {
            _mm_stream_ps(dst.add(i), v);
            i += 4;
        }
        _mm_sfence();
    }
    for j in i..n {
        unsafe { *dst.add(j) = value };
    }
}

fn upload(data: &[f32]) -> sl_array {
    let n = data.len() as i64;
    let mut h = 0;
    check(sl_create(SL_F32, 1, &n, SL_COL_MAJOR, data.as_ptr() as *const _, data.len() * 4, &mut h));
    h
}

/// Computes `out` (without copying it to the host) and waits.
fn compute(out: sl_array) {
    check(sl_eval(&out, 1));
    check(sl_sync());
}

/// Computes `1.5*x + 0.25` (not read back) and releases it.
fn axpb(x: sl_array) {
    let (mut ax, mut out) = (0, 0);
    check(sl_mul_scalar(x, 1.5, &mut ax));
    check(sl_add_scalar(ax, 0.25, &mut out));
    compute(out);
    check(sl_release(ax));
    check(sl_release(out));
}

fn chain8(x: sl_array, y: sl_array) -> sl_array {
    // sin(x)*cos(y) + sqrt(abs(x))*exp(-y*y) - 0.5*x
    let (mut s, mut c, mut p, mut a, mut q, mut yy, mut ny, mut e, mut r, mut h, mut t, mut out) =
        (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    check(sl_scope_begin());
    check(sl_sin(x, &mut s));
    check(sl_cos(y, &mut c));
    check(sl_mul(s, c, &mut p));
    check(sl_abs(x, &mut a));
    check(sl_sqrt(a, &mut q));
    check(sl_mul(y, y, &mut yy));
    check(sl_neg(yy, &mut ny));
    check(sl_exp(ny, &mut e));
    check(sl_mul(q, e, &mut r));
    check(sl_add(p, r, &mut h));
    check(sl_mul_scalar(x, 0.5, &mut t));
    check(sl_sub(h, t, &mut out));
    check(sl_keep(out));
    check(sl_scope_end());
    out
}

/// `chain8` of `x` and `y`, computed and released.
fn run_chain8(x: sl_array, y: sl_array) {
    let out = chain8(x, y);
    compute(out);
    check(sl_release(out));
}

/// Large fused work (2^24 elements): compare with `bandwidth` (`triad_*` moves the bytes of
/// the chains). `scripts/bench_numpy.py` times numpy on the same chains.
fn fused(c: &mut Criterion) {
    let xs: Vec<f32> = (0..N).map(|i| ((i % 1000) as f32) * 0.001 - 0.5).collect();
    let ys: Vec<f32> = (0..N).map(|i| ((i % 777) as f32) * 0.002 - 0.7).collect();
    let (x, y) = (upload(&xs), upload(&ys));
    let mut g = c.benchmark_group("fused");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    g.bench_function("axpb_f32", |bench| bench.iter(|| axpb(x)));
    g.bench_function("chain8_f32", |bench| bench.iter(|| run_chain8(x, y)));
    g.bench_function("sumsq_f32", |bench| bench.iter(|| black_box(sumsq_read(x))));
    check(sl_release(x));
    check(sl_release(y));
    let to_f64 = |v: &[f32]| v.iter().map(|&e| e as f64).collect::<Vec<f64>>();
    let n = N as i64;
    let (x, y) = (upload_f64(&to_f64(&xs), &[n]), upload_f64(&to_f64(&ys), &[n]));
    g.bench_function("chain8_f64", |bench| bench.iter(|| run_chain8(x, y)));
    g.finish();
    check(sl_release(x));
    check(sl_release(y));
}

/// The special functions' inputs (2^22 of them, the pattern repeating every 1000): erfc on
/// [-3, 10), erfinv on (-1, 1), lgamma on (0, 50), tgamma on (0, 30). `scripts/bench_numpy.py`
/// builds the same arrays for scipy.special.
const SPECIAL_N: usize = 1 << 22;

fn special_inputs(op: sl_unary_op) -> Vec<f32> {
    let (scale, offset) = match op {
        SL_ERFC => (0.013, -3.0),
        SL_ERFINV => (0.001998, -0.999),
        SL_LGAMMA => (0.05, 0.01),
        _ => (0.03, 0.01),
    };
    (0..SPECIAL_N).map(|i| (i % 1000) as f32 * scale + offset).collect()
}

/// erfc, erfinv, lgamma and tgamma of 2^22 f32 and f64 values, computed (not read back);
/// scipy.special's times on the same inputs come from `scripts/bench_numpy.py`.
fn special(c: &mut Criterion) {
    let mut g = c.benchmark_group("special");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    for (op, name) in [(SL_ERFC, "erfc"), (SL_ERFINV, "erfinv"), (SL_LGAMMA, "lgamma"), (SL_TGAMMA, "tgamma")] {
        let xs = special_inputs(op);
        let x64: Vec<f64> = xs.iter().map(|&v| v as f64).collect();
        for (suffix, x) in [("f32", upload(&xs)), ("f64", upload_f64(&x64, &[SPECIAL_N as i64]))] {
            g.bench_function(format!("{name}_{suffix}"), |bench| {
                bench.iter(|| {
                    let mut r = 0;
                    check(sl_unary(op, x, &mut r));
                    compute(r);
                    check(sl_release(r));
                })
            });
            check(sl_release(x));
        }
    }
    g.finish();
}

/// `((a b + conj(a)) 0.5 - b) (1 - 2i)` plus `a`: six complex ops on two complex arrays,
/// one output.
fn chain6_complex(a: sl_array, b: sl_array) -> sl_array {
    let (mut p, mut c, mut s, mut h, mut d, mut r, mut out) = (0, 0, 0, 0, 0, 0, 0);
    check(sl_scope_begin());
    check(sl_mul(a, b, &mut p));
    check(sl_conj(a, &mut c));
    check(sl_add(p, c, &mut s));
    check(sl_mul_scalar(s, 0.5, &mut h));
    check(sl_sub(h, b, &mut d));
    check(sl_binary_scalar_c(SL_MUL, d, 1.0, -2.0, &mut r));
    check(sl_add(r, a, &mut out));
    check(sl_keep(out));
    check(sl_scope_end());
    out
}

/// A complex vector of `dtype` from the bytes of its interleaved parts.
fn upload_complex(dtype: sl_dtype, parts: &[u8]) -> sl_array {
    let n = (parts.len() / if dtype == SL_C64 { 8 } else { 16 }) as i64;
    let mut h = 0;
    check(sl_create(dtype, 1, &n, SL_COL_MAJOR, parts.as_ptr() as *const _, parts.len(), &mut h));
    h
}

/// A 6-op complex element-wise chain on 2^22 elements (issue 16: within 1.5x the memory
/// floor) and, in the same group, its floor: a triad over the same bytes (two inputs, one
/// output, 2^23 parts each). `chain6_*_l3` runs the chain on the first 2^17 elements
/// (3 or 6 MiB of operands and result, held by the 32 MiB L3): 32 times its time is what
/// the long chain's arithmetic and launches take when memory costs next to nothing.
fn complex_chain(c: &mut Criterion) {
    const M: usize = 1 << 22;
    let mut g = c.benchmark_group("complex");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    let re: Vec<f32> = (0..2 * M).map(|i| ((i % 1000) as f32) * 0.001 - 0.5).collect();
    let im: Vec<f32> = (0..2 * M).map(|i| ((i % 777) as f32) * 0.002 - 0.7).collect();
    {
        let mut out = vec![0f32; 2 * M];
        g.bench_function("triad_floor_c64", |bench| bench.iter(|| triad(&mut out, &re, &im, 3.0)));
        black_box(&out);
    }
    chains(&mut g, "c64", SL_C64, bytes_of(&re), bytes_of(&im));
    let (re, im): (Vec<f64>, Vec<f64>) =
        (re.iter().map(|&x| x as f64).collect(), im.iter().map(|&x| x as f64).collect());
    {
        let mut out = vec![0f64; 2 * M];
        g.bench_function("triad_floor_c128", |bench| bench.iter(|| triad(&mut out, &re, &im, 3.0)));
        black_box(&out);
    }
    chains(&mut g, "c128", SL_C128, bytes_of(&re), bytes_of(&im));
    g.finish();
}

/// Elements of the in-cache chains.
const IN_CACHE: usize = 1 << 17;

/// The chain on the vectors of `re` and `im` (bytes of interleaved parts), and on their
/// first `IN_CACHE` elements.
fn chains(
    g: &mut criterion::BenchmarkGroup<criterion::measurement::WallTime>,
    name: &str,
    dtype: sl_dtype,
    re: &[u8],
    im: &[u8],
) {
    let whole = re.len() / if dtype == SL_C64 { 8 } else { 16 };
    for (suffix, bytes) in [("", re.len()), ("_l3", re.len() / (whole / IN_CACHE))] {
        let (a, b) = (upload_complex(dtype, &re[..bytes]), upload_complex(dtype, &im[..bytes]));
        g.bench_function(format!("chain6_{name}{suffix}"), |bench| {
            bench.iter(|| {
                let out = chain6_complex(a, b);
                compute(out);
                check(sl_release(out));
            })
        });
        check(sl_release(a));
        check(sl_release(b));
    }
}

/// The bytes of a slice of floats.
fn bytes_of<T>(v: &[T]) -> &[u8] {
    // SAFETY: any initialised memory may be viewed as bytes.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
}

/// Sums of f32 arrays (accumulated in f64): 2^20 elements (4 MiB, about what the caches
/// hold) and 2^24 (64 MiB, bound by memory: compare with `bandwidth/read_f32`).
fn sums(c: &mut Criterion) {
    let mut g = c.benchmark_group("sum");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    for log2 in [20, 24] {
        let xs: Vec<f32> = (0..1usize << log2).map(|i| ((i % 1000) as f32) * 0.001 - 0.5).collect();
        let x = upload(&xs);
        g.bench_function(format!("sum_f32_2^{log2}"), |bench| {
            bench.iter(|| {
                let mut s = 0;
                check(sl_sum(x, SL_ALL_DIMS, &mut s));
                let mut v = 0f32;
                check(sl_read(s, SL_COL_MAJOR, &mut v as *mut f32 as *mut _, 4));
                check(sl_release(s));
                black_box(v)
            })
        });
        check(sl_release(x));
    }
    g.finish();
}

/// The 8-op chain with fusion switched off (every op stored), for comparison.
fn unfused(c: &mut Criterion) {
    check(sl_shutdown());
    let mut cfg: sl_config = unsafe { std::mem::zeroed() };
    check(sl_config_default(&mut cfg));
    cfg.fusion = 0;
    check(sl_init(&cfg));
    let xs: Vec<f32> = (0..N).map(|i| ((i % 1000) as f32) * 0.001 - 0.5).collect();
    let (x, y) = (upload(&xs), upload(&xs));
    let mut g = c.benchmark_group("unfused");
    g.sample_size(10).measurement_time(Duration::from_secs(4));
    g.bench_function("chain8_f32", |bench| bench.iter(|| run_chain8(x, y)));
    g.finish();
    check(sl_release(x));
    check(sl_release(y));
    check(sl_shutdown());
}

/// 10,000 iterations of `y = y*0.99 + x` on 1024 elements, read at the end.
fn bench_mul_add_loop(c: &mut Criterion, group: &str) {
    let xs: Vec<f32> = (0..1024).map(|i| i as f32 * 0.001).collect();
    let x = upload(&xs);
    let mut g = c.benchmark_group(group);
    g.sample_size(20).measurement_time(Duration::from_secs(6));
    g.bench_function("y_mul_add_1024_x10000", |bench| bench.iter(|| black_box(step_loop(x, mul_add))));
    g.finish();
    check(sl_release(x));
}

/// Small arrays: the cost per call of recording, fusing and running.
fn overhead(c: &mut Criterion) {
    bench_mul_add_loop(c, "overhead");
}

/// An 8-op step on small arrays: `y' = (sqrt(|(y*0.99 + sin x) * 0.5|) - x) * 0.9`.
fn step8(y: sl_array, x: sl_array) -> sl_array {
    let mut t = [0; 8];
    check(sl_mul_scalar(y, 0.99, &mut t[0]));
    check(sl_sin(x, &mut t[1]));
    check(sl_add(t[0], t[1], &mut t[2]));
    check(sl_mul_scalar(t[2], 0.5, &mut t[3]));
    check(sl_abs(t[3], &mut t[4]));
    check(sl_sqrt(t[4], &mut t[5]));
    check(sl_sub(t[5], x, &mut t[6]));
    check(sl_mul_scalar(t[6], 0.9, &mut t[7]));
    for &h in &t[..7] {
        check(sl_release(h));
    }
    t[7]
}

/// 10,000 steps on 1024 elements, each through `step` (which returns the new y), read at
/// the end.
fn step_loop(x: sl_array, step: impl Fn(sl_array, sl_array) -> sl_array) -> Vec<f32> {
    let mut y = 0;
    check(sl_retain(x, &mut y));
    for _ in 0..10_000 {
        let next = step(y, x);
        check(sl_release(y));
        y = next;
    }
    let mut out = vec![0f32; 1024];
    check(sl_read(y, SL_COL_MAJOR, out.as_mut_ptr() as *mut _, 4096));
    check(sl_release(y));
    out
}

/// The 8-op step called op by op (trace cache replaying the flushes), and as a macro
/// (one call per step replays the recorded section).
fn macro_replay(c: &mut Criterion) {
    let xs: Vec<f32> = (0..1024).map(|i| i as f32 * 0.001).collect();
    let x = upload(&xs);
    let mut g = c.benchmark_group("macro");
    g.sample_size(20).measurement_time(Duration::from_secs(6));
    g.bench_function("step8_calls_1024_x10000", |bench| bench.iter(|| black_box(step_loop(x, step8))));
    let step8_macro = as_macro("step8", step8);
    g.bench_function("step8_replay_1024_x10000", |bench| bench.iter(|| black_box(step_loop(x, &step8_macro))));
    let mul_add_macro = as_macro("mul_add", mul_add);
    g.bench_function("mul_add_replay_1024_x10000", |bench| bench.iter(|| black_box(step_loop(x, &mul_add_macro))));
    g.finish();
    check(sl_release(x));
}

/// `y * 0.99 + x`.
fn mul_add(y: sl_array, x: sl_array) -> sl_array {
    let (mut t, mut out) = (0, 0);
    check(sl_mul_scalar(y, 0.99, &mut t));
    check(sl_add(t, x, &mut out));
    check(sl_release(t));
    out
}

/// `step` (of y and x) as a code reuse section named `name`.
fn as_macro(name: &str, step: fn(sl_array, sl_array) -> sl_array) -> impl Fn(sl_array, sl_array) -> sl_array {
    let name = std::ffi::CString::new(name).unwrap();
    move |y, x| {
        let (ins, mut out, mut mode) = ([y, x], [0], 0);
        check(sl_macro_begin(name.as_ptr(), ins.as_ptr(), 2, std::ptr::null(), 0, out.as_mut_ptr(), 1, &mut mode));
        if mode == SL_MACRO_RECORD {
            out[0] = step(y, x);
            check(sl_macro_end(out.as_ptr(), 1));
        }
        out[0]
    }
}

/// An iterative update of about 20 ops on 2^16 elements, flushed every iteration (as a
/// solver that checks convergence would): the trace cache replays each flush.
fn iterative20(x: sl_array) {
    let mut y = 0;
    check(sl_retain(x, &mut y));
    for _ in 0..200 {
        let mut t = [0; 20];
        check(sl_mul_scalar(y, 0.5, &mut t[0]));
        check(sl_sin(t[0], &mut t[1]));
        check(sl_mul(t[1], x, &mut t[2]));
        check(sl_add(t[2], y, &mut t[3]));
        check(sl_abs(t[3], &mut t[4]));
        check(sl_sqrt(t[4], &mut t[5]));
        check(sl_sub(t[5], x, &mut t[6]));
        check(sl_mul(t[6], t[6], &mut t[7]));
        check(sl_add_scalar(t[7], 1.0, &mut t[8]));
        check(sl_rcp(t[8], &mut t[9]));
        check(sl_mul(t[9], y, &mut t[10]));
        check(sl_max_scalar(t[10], -2.0, &mut t[11]));
        check(sl_min_scalar(t[11], 2.0, &mut t[12]));
        check(sl_cos(t[12], &mut t[13]));
        check(sl_mul_scalar(t[13], 0.25, &mut t[14]));
        check(sl_add(t[14], t[3], &mut t[15]));
        check(sl_mul_scalar(t[15], 0.5, &mut t[16]));
        check(sl_sub(t[16], t[12], &mut t[17]));
        check(sl_add(t[17], x, &mut t[18]));
        check(sl_mul_scalar(t[18], 0.5, &mut t[19]));
        check(sl_eval(&t[19], 1));
        for &h in &t[..19] {
            check(sl_release(h));
        }
        check(sl_release(y));
        y = t[19];
    }
    check(sl_sync());
    check(sl_release(y));
}

fn bench_iterative20(c: &mut Criterion, group: &str) {
    let xs: Vec<f32> = (0..1 << 16).map(|i| (i % 1000) as f32 * 0.001).collect();
    let x = upload(&xs);
    let mut g = c.benchmark_group(group);
    g.sample_size(10).measurement_time(Duration::from_secs(6));
    g.bench_function("ops20_65536_x200", |bench| bench.iter(|| iterative20(x)));
    g.finish();
    check(sl_release(x));
}

fn trace_stats() -> sl_cache_stats {
    let mut s: sl_cache_stats = unsafe { std::mem::zeroed() };
    check(sl_get_cache_stats(SL_CACHE_TRACE, &mut s));
    s
}

/// Also records what planning the loop's flushes cost with the cache (hits) and what the
/// hits saved (planning them afresh), for `scripts/bench_report.py`.
fn trace_cache(c: &mut Criterion) {
    let before = trace_stats();
    bench_iterative20(c, "trace_cache_on");
    let after = trace_stats();
    let json = format!(
        "{{\"hits\": {}, \"hit_ns\": {}, \"saved_ns\": {}}}",
        after.hits - before.hits,
        after.hit_ns - before.hit_ns,
        after.saved_ns - before.saved_ns
    );
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/target/criterion/trace_cache_on");
    std::fs::create_dir_all(dir).and_then(|_| std::fs::write(format!("{dir}/planning.json"), json)).expect("write");
}

/// The same loop with the trace cache off (every flush planned and compiled afresh).
fn overhead_no_trace_cache(c: &mut Criterion) {
    check(sl_shutdown());
    let mut cfg: sl_config = unsafe { std::mem::zeroed() };
    check(sl_config_default(&mut cfg));
    cfg.trace_cache_entries = 0;
    check(sl_init(&cfg));
    bench_mul_add_loop(c, "overhead_no_trace_cache");
    bench_iterative20(c, "trace_cache_off");
    check(sl_shutdown());
}

/// Taps of the Kirchhoff-style function: five ops each, about 1,000 ops a call.
const TAPS: usize = 199;

/// One call of a Kirchhoff-style function on a `n` x `n` grid: a sum of `TAPS` shifted
/// sections of the padded grid, weighted, read back.
fn migrate_call(d: sl_array, w: sl_array, n: usize, out: &mut [f32]) {
    check(sl_scope_begin());
    let (lo, hi) = ([4i64, 3], [4i64, 3]);
    let mut padded = 0;
    check(sl_pad(d, lo.as_ptr(), hi.as_ptr(), SL_BOUNDARY_FILL, 0.0, &mut padded));
    let mut acc = 0;
    check(sl_mul_scalar(d, 0.5, &mut acc));
    for k in 0..TAPS {
        let start = [((k * 7) % 9) as i64, ((k * k) % 7) as i64];
        let (count, stride) = ([n as i64; 2], [1i64; 2]);
        let (mut sec, mut shifted, mut weighted, mut scaled, mut next) = (0, 0, 0, 0, 0);
        check(sl_section(padded, start.as_ptr(), count.as_ptr(), stride.as_ptr(), &mut sec));
        check(sl_shift(sec, 1, (k % 3) as i64 - 1, SL_BOUNDARY_CLAMP, 0.0, &mut shifted));
        check(sl_mul(shifted, w, &mut weighted));
        check(sl_mul_scalar(weighted, 1.0 / (k + 2) as f64, &mut scaled));
        check(sl_add(acc, scaled, &mut next));
        acc = next;
    }
    check(sl_read(acc, SL_COL_MAJOR, out.as_mut_ptr() as *mut _, out.len() * 4));
    check(sl_scope_end());
}

/// Calls in one run of the repeated-call loop.
const CALLS: u32 = 7;

/// A program calling the Kirchhoff-style function `CALLS` times from a fresh runtime
/// (started untimed), timed per call: with the queue limit cutting each call into flushes
/// (230), at the default (1024, above one call), and so large that nothing is cut. The
/// cut loop's time against the uncut one's is what cutting costs repeated work.
fn repeated_calls(c: &mut Criterion) {
    let n = 128;
    let data: Vec<f32> = (0..n * n).map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0).collect();
    let weights: Vec<f32> = (0..n * n).map(|i| 0.5 + (i * 13 % 17) as f32 / 17.0).collect();
    let mut g = c.benchmark_group("repeated_calls");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    for (name, limit) in [("cut_230", 230), ("default_1024", 0), ("uncut", 1 << 20)] {
        g.bench_function(name, |bench| {
            bench.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    check(sl_shutdown());
                    let mut cfg: sl_config = unsafe { std::mem::zeroed() };
                    check(sl_config_default(&mut cfg));
                    cfg.queue_limit = limit;
                    check(sl_init(&cfg));
                    let dims = [n as i64; 2];
                    let (mut d, mut w) = (0, 0);
                    check(sl_create(
                        SL_F32,
                        2,
                        dims.as_ptr(),
                        SL_COL_MAJOR,
                        data.as_ptr() as *const _,
                        n * n * 4,
                        &mut d,
                    ));
                    check(sl_create(
                        SL_F32,
                        2,
                        dims.as_ptr(),
                        SL_COL_MAJOR,
                        weights.as_ptr() as *const _,
                        n * n * 4,
                        &mut w,
                    ));
                    let mut out = vec![0f32; n * n];
                    let start = Instant::now();
                    for _ in 0..CALLS {
                        migrate_call(d, w, n, &mut out);
                    }
                    total += start.elapsed() / CALLS;
                    black_box(&out);
                    check(sl_release(d));
                    check(sl_release(w));
                }
                total
            })
        });
    }
    g.finish();
    check(sl_shutdown());
}

#[link(name = "openblas")]
unsafe extern "C" {
    fn cblas_sgemm(
        order: i32,
        ta: i32,
        tb: i32,
        m: i32,
        n: i32,
        k: i32,
        alpha: f32,
        a: *const f32,
        lda: i32,
        b: *const f32,
        ldb: i32,
        beta: f32,
        c: *mut f32,
        ldc: i32,
    );
}

/// Square sgemm of 1024 and 2048 through Sluice and OpenBLAS (`scripts/bench_numpy.py`
/// times numpy's matmul, OpenBLAS with its own threads, on the same sizes).
fn matmul(c: &mut Criterion) {
    let mut g = c.benchmark_group("matmul");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    matmul_size::<1024>(&mut g);
    matmul_size::<2048>(&mut g);
    g.finish();
}

fn matmul_size<const M: usize>(g: &mut criterion::BenchmarkGroup<criterion::measurement::WallTime>) {
    let a: Vec<f32> = (0..M * M).map(|i| ((i * 7 % 101) as f32) * 0.01 - 0.5).collect();
    let b: Vec<f32> = (0..M * M).map(|i| ((i * 13 % 97) as f32) * 0.01 - 0.5).collect();
    let mut out = vec![0f32; M * M];
    let dims = [M as i64, M as i64];
    let (mut ha, mut hb) = (0, 0);
    check(sl_create(SL_F32, 2, dims.as_ptr(), SL_COL_MAJOR, a.as_ptr() as *const _, a.len() * 4, &mut ha));
    check(sl_create(SL_F32, 2, dims.as_ptr(), SL_COL_MAJOR, b.as_ptr() as *const _, b.len() * 4, &mut hb));
    g.bench_function(format!("sluice_{M}_f32"), |bench| {
        bench.iter(|| {
            let mut m = 0;
            check(sl_matmul(ha, hb, &mut m));
            compute(m);
            check(sl_release(m));
        })
    });
    g.bench_function(format!("openblas_{M}_f32"), |bench| {
        bench.iter(|| unsafe {
            cblas_sgemm(
                102,
                111,
                111,
                M as i32,
                M as i32,
                M as i32,
                1.0,
                a.as_ptr(),
                M as i32,
                b.as_ptr(),
                M as i32,
                0.0,
                out.as_mut_ptr(),
                M as i32,
            )
        })
    });
    check(sl_release(ha));
    check(sl_release(hb));
}

const MID: usize = 1 << 20;

/// `passes` passes of `pass(lo, hi)` over `n` indices split across the machine's threads,
/// started together; the time until every thread has done its passes. Each thread streams
/// through its part of the array without waiting for the others between passes: the
/// bandwidth of the data's cache level, with no hand-off cost.
fn timed_passes(n: usize, passes: u64, pass: impl Fn(usize, usize) + Sync) -> Duration {
    let t = threads();
    let go = std::sync::Barrier::new(t + 1);
    std::thread::scope(|s| {
        for k in 0..t {
            let (pass, go) = (&pass, &go);
            s.spawn(move || {
                go.wait();
                for _ in 0..passes {
                    pass(n * k / t, n * (k + 1) / t);
                }
            });
        }
        go.wait();
        std::time::Instant::now()
    })
    .elapsed()
}

#[link(name = "openblas")]
unsafe extern "C" {
    fn cblas_sdot(n: i32, x: *const f32, incx: i32, y: *const f32, incy: i32) -> f32;
}

/// `sum(x*x)` of `x`, read back.
fn sumsq_read(x: sl_array) -> f32 {
    let (mut sq, mut s) = (0, 0);
    check(sl_mul(x, x, &mut sq));
    check(sl_sum(sq, SL_ALL_DIMS, &mut s));
    let mut v = 0f32;
    check(sl_read(s, SL_COL_MAJOR, &mut v as *mut f32 as *mut _, 4));
    check(sl_release(sq));
    check(sl_release(s));
    v
}

/// Mid-size arrays (2^20 f32, 4 MiB: they stay in this machine's L3 between runs), where a
/// flush's fixed cost weighs: `a*x + b` and `sum(x*x)` against the floor of the same
/// memory traffic measured here (hand-written loops on all cores, data in the same cache
/// level), and OpenBLAS `sdot` on the same array.
fn midsize(c: &mut Criterion) {
    let xs: Vec<f32> = (0..MID).map(|i| ((i % 1000) as f32) * 0.001 - 0.5).collect();
    let mut ys = vec![0f32; MID];
    let x = upload(&xs);
    let mut g = c.benchmark_group("midsize");
    g.sample_size(50).measurement_time(Duration::from_secs(3));
    g.bench_function("read_floor_f32", |bench| {
        bench.iter_custom(|passes| {
            timed_passes(MID, passes, |lo, hi| {
                // Enough independent lanes that the adds' latency does not bound the loop.
                let mut acc = [0f32; 64];
                for ch in xs[lo..hi].chunks_exact(64) {
                    for l in 0..64 {
                        acc[l] += ch[l] * ch[l];
                    }
                }
                black_box(acc);
            })
        })
    });
    g.bench_function("axpb_floor_f32", |bench| {
        let py = SendPtr(ys.as_mut_ptr());
        bench.iter_custom(|passes| {
            timed_passes(MID, passes, |lo, hi| {
                let dst = unsafe { std::slice::from_raw_parts_mut(py.at(lo), hi - lo) };
                for (d, v) in dst.iter_mut().zip(&xs[lo..hi]) {
                    *d = 1.5 * v + 0.25;
                }
            })
        })
    });
    g.bench_function("axpb_f32", |bench| bench.iter(|| axpb(x)));
    g.bench_function("sumsq_f32", |bench| bench.iter(|| black_box(sumsq_read(x))));
    // The same read of 1024 elements: what a flush and read cost besides the arithmetic.
    let small = upload(&xs[..1024]);
    g.bench_function("sumsq_f32_1024", |bench| bench.iter(|| black_box(sumsq_read(small))));
    check(sl_release(small));
    g.bench_function("openblas_sdot_f32", |bench| {
        bench.iter(|| black_box(unsafe { cblas_sdot(MID as i32, xs.as_ptr(), 1, xs.as_ptr(), 1) }))
    });
    g.finish();
    black_box(&ys);
    check(sl_release(x));
}

/// Issue 15's interior update of a 4096 x 4096 f32 array, written in place: a scalar
/// into `u(2:n-1, 2:n-1)` and `u(2:n-1, 2:n-1) = 0.5 * v(2:n-1, 2:n-1)`, each against the
/// floor of the bytes it changes (hand-written loops over the same interior rows: the
/// writes, and the reads of v's interior with them).
fn assign(c: &mut Criterion) {
    const S: usize = 4096;
    let data: Vec<f32> = (0..S * S).map(|i| (i % 1000) as f32 * 0.001).collect();
    let mut plain = data.clone();
    let dims = [S as i64, S as i64];
    let make = || {
        let mut h = 0;
        check(sl_create(SL_F32, 2, dims.as_ptr(), SL_COL_MAJOR, data.as_ptr() as *const _, data.len() * 4, &mut h));
        h
    };
    let (u, v) = (make(), make());
    let m = (S - 2) as i64;
    let (start, count, stride) = ([1i64, 1], [m, m], [1i64, 1]);
    let mut g = c.benchmark_group("assign");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    g.bench_function("interior_scalar_f32", |bench| {
        let mut x = 0.0;
        bench.iter(|| {
            x += 1.0;
            check(sl_assign_section_scalar(u, start.as_ptr(), count.as_ptr(), stride.as_ptr(), x));
            compute(u);
        })
    });
    let pu = SendPtr(plain.as_mut_ptr());
    g.bench_function("interior_scalar_floor_f32", |bench| {
        bench.iter(|| {
            parallel(S - 2, |lo, hi| {
                for j in lo + 1..hi + 1 {
                    let row = unsafe { std::slice::from_raw_parts_mut(pu.at(j * S + 1), S - 2) };
                    row.fill(black_box(2.0));
                }
            })
        })
    });
    g.bench_function("interior_scaled_f32", |bench| {
        bench.iter(|| {
            let (mut sec, mut half) = (0, 0);
            check(sl_section(v, start.as_ptr(), count.as_ptr(), stride.as_ptr(), &mut sec));
            check(sl_mul_scalar(sec, 0.5, &mut half));
            check(sl_assign_section(u, start.as_ptr(), count.as_ptr(), stride.as_ptr(), half));
            check(sl_release(sec));
            check(sl_release(half));
            compute(u);
        })
    });
    g.bench_function("interior_scaled_floor_f32", |bench| {
        bench.iter(|| {
            parallel(S - 2, |lo, hi| {
                for j in lo + 1..hi + 1 {
                    let row = unsafe { std::slice::from_raw_parts_mut(pu.at(j * S + 1), S - 2) };
                    for (d, x) in row.iter_mut().zip(&data[j * S + 1..j * S + S - 1]) {
                        *d = 0.5 * x;
                    }
                }
            })
        })
    });
    g.finish();
    black_box(&plain);
    release_all(&[u, v]);
}

/// A process spinning on one core for as long as it lives.
struct Spinner(std::process::Child);

impl Spinner {
    fn on_core(core: usize) -> Spinner {
        let child = std::process::Command::new("sh").args(["-c", "while :; do :; done"]).spawn().expect("start sh");
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(core, &mut set);
            let st = libc::sched_setaffinity(child.id() as libc::pid_t, size_of::<libc::cpu_set_t>(), &set);
            assert_eq!(st, 0, "pin the spinner to core {core}");
        }
        Spinner(child)
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// `sum(x*x)` of 2^20 f32 on an otherwise idle machine, then with another process spinning
/// on the last core (started here): a flush should slow by that core's share of the work,
/// not wait for a worker the scheduler has descheduled.
fn shared_core(c: &mut Criterion) {
    let xs: Vec<f32> = (0..MID).map(|i| ((i % 1000) as f32) * 0.001 - 0.5).collect();
    let x = upload(&xs);
    let mut g = c.benchmark_group("shared_core");
    g.sample_size(50).measurement_time(Duration::from_secs(3));
    g.bench_function("sumsq_f32_idle", |bench| bench.iter(|| black_box(sumsq_read(x))));
    let spinner = Spinner::on_core(std::thread::available_parallelism().map_or(1, |n| n.get()) - 1);
    g.bench_function("sumsq_f32_spinner", |bench| bench.iter(|| black_box(sumsq_read(x))));
    drop(spinner);
    g.finish();
    check(sl_release(x));
}

/// Starts a new runtime with `threads` CPU worker threads.
fn restart_with_threads(threads: i32) {
    check(sl_shutdown());
    let mut cfg: sl_config = unsafe { std::mem::zeroed() };
    check(sl_config_default(&mut cfg));
    cfg.threads = threads;
    check(sl_init(&cfg));
}

/// 2^24 random values (`normal` or uniform, of `dtype`) from `rng`.
fn draw(rng: sl_rng, normal: bool, dtype: sl_dtype) -> sl_array {
    let (n, mut a) = (N as i64, 0);
    let f = if normal { sl_random_normal } else { sl_random_uniform };
    check(f(rng, dtype, 1, &n, &mut a));
    a
}

/// `sum(a)`, read back.
fn sum_read(a: sl_array, dtype: sl_dtype) -> f64 {
    let mut s = 0;
    check(sl_sum(a, SL_ALL_DIMS, &mut s));
    let v = if dtype == SL_F32 {
        let mut v = 0f32;
        check(sl_read(s, SL_COL_MAJOR, &mut v as *mut f32 as *mut _, 4));
        v as f64
    } else {
        let mut v = 0f64;
        check(sl_read(s, SL_COL_MAJOR, &mut v as *mut f64 as *mut _, 8));
        v
    };
    check(sl_release(s));
    v
}

/// Random arrays of 2^24 values stored and summed, and the Monte Carlo option example, on
/// the CPU executor with 1 and 2 worker threads. `scripts/bench_numpy.py` times numpy on
/// the same work for the ratios in BENCHMARKS.md.
fn random(c: &mut Criterion) {
    for threads in [1, 2] {
        restart_with_threads(threads);
        let mut g = c.benchmark_group(format!("random_t{threads}"));
        g.sample_size(20).measurement_time(Duration::from_secs(4));
        for (kind, gen_name) in [(SL_RNG_PHILOX, ""), (SL_RNG_FAST, "fast_")] {
            let mut rng = 0;
            check(sl_rng_create(kind, 20261122, &mut rng));
            for (dist, normal) in [("uniform", false), ("normal", true)] {
                for (dtype, tname) in [(SL_F32, "f32"), (SL_F64, "f64")] {
                    g.bench_function(format!("{gen_name}{dist}_{tname}_store"), |bench| {
                        bench.iter(|| {
                            let a = draw(rng, normal, dtype);
                            compute(a);
                            check(sl_release(a));
                        })
                    });
                    if kind == SL_RNG_PHILOX {
                        g.bench_function(format!("{dist}_{tname}_sum"), |bench| {
                            bench.iter(|| {
                                let a = draw(rng, normal, dtype);
                                let s = sum_read(a, dtype);
                                check(sl_release(a));
                                black_box(s)
                            })
                        });
                    }
                }
            }
            check(sl_rng_destroy(rng));
        }
        g.sample_size(10).measurement_time(Duration::from_secs(6));
        // One generator for every run: the recorded section replays its draws.
        let mut rng = 0;
        check(sl_rng_create(SL_RNG_PHILOX, 20261122, &mut rng));
        g.bench_function("monte_carlo_4m", |bench| bench.iter(|| black_box(monte_carlo(rng, 1 << 18, 16))));
        check(sl_rng_destroy(rng));
        g.finish();
    }
    check(sl_shutdown());
}

/// Values of the random laws, 2^22 of them stored, on the CPU executor with 1 and 2 worker
/// threads: exponential, Poisson (means 4 and 1000: inversion and PTRS), gamma (shapes 0.5
/// and 5: with and without the boost). `scripts/bench_numpy.py` times numpy's Generator
/// (one thread) on the same draws for the ratios in BENCHMARKS.md.
fn random_laws(c: &mut Criterion) {
    let n = LAWS_N as i64;
    type Draw = Box<dyn Fn(sl_rng, &mut sl_array) -> sl_status>;
    let laws: Vec<(&str, Draw)> = vec![
        ("exponential_f32", Box::new(move |g, a| sl_random_exponential(g, 1.0, SL_F32, 1, &n, a))),
        ("exponential_f64", Box::new(move |g, a| sl_random_exponential(g, 1.0, SL_F64, 1, &n, a))),
        ("poisson_4_i64", Box::new(move |g, a| sl_random_poisson(g, 4.0, SL_I64, 1, &n, a))),
        ("poisson_1000_i64", Box::new(move |g, a| sl_random_poisson(g, 1000.0, SL_I64, 1, &n, a))),
        ("gamma_0.5_f32", Box::new(move |g, a| sl_random_gamma(g, 0.5, 1.0, SL_F32, 1, &n, a))),
        ("gamma_0.5_f64", Box::new(move |g, a| sl_random_gamma(g, 0.5, 1.0, SL_F64, 1, &n, a))),
        ("gamma_5_f32", Box::new(move |g, a| sl_random_gamma(g, 5.0, 1.0, SL_F32, 1, &n, a))),
        ("gamma_5_f64", Box::new(move |g, a| sl_random_gamma(g, 5.0, 1.0, SL_F64, 1, &n, a))),
    ];
    for threads in [1, 2] {
        restart_with_threads(threads);
        let mut g = c.benchmark_group(format!("random_laws_t{threads}"));
        g.sample_size(10).measurement_time(Duration::from_secs(4));
        let mut rng = 0;
        check(sl_rng_create(SL_RNG_PHILOX, 20261122, &mut rng));
        for (name, draw) in &laws {
            g.bench_function(*name, |bench| {
                bench.iter(|| {
                    let mut a = 0;
                    check(draw(rng, &mut a));
                    compute(a);
                    check(sl_release(a));
                })
            });
        }
        check(sl_rng_destroy(rng));
        g.finish();
    }
    check(sl_shutdown());
}

/// Values per `random_laws` benchmark.
const LAWS_N: usize = 1 << 22;

/// The computation of `examples/c/monte_carlo.c`: the discounted mean payoff of a European
/// call over `batches` batches of `batch` paths, each batch a macro section drawing f64
/// normals from `rng` (from its first draw on).
fn monte_carlo(rng: sl_rng, batch: i64, batches: usize) -> f64 {
    let (s0, strike, rate, sigma, years) = (100.0, 105.0, 0.05f64, 0.2f64, 1.0f64);
    check(sl_rng_set_state(rng, 20261122, 0));
    let name = std::ffi::CString::new("mc_batch").unwrap();
    let (mut m, mut m2) = (0.0, 0.0);
    for _ in 0..batches {
        check(sl_scope_begin());
        let (mut sums, mut mode) = ([0; 2], 0);
        check(sl_macro_begin(name.as_ptr(), std::ptr::null(), 0, std::ptr::null(), 0, sums.as_mut_ptr(), 2, &mut mode));
        if mode == SL_MACRO_RECORD {
            let mut t = [0; 8];
            check(sl_random_normal(rng, SL_F64, 1, &batch, &mut t[0]));
            check(sl_mul_scalar(t[0], sigma * years.sqrt(), &mut t[1]));
            check(sl_add_scalar(t[1], (rate - 0.5 * sigma * sigma) * years, &mut t[2]));
            check(sl_exp(t[2], &mut t[3]));
            check(sl_mul_scalar(t[3], s0, &mut t[4]));
            check(sl_sub_scalar(t[4], strike, &mut t[5]));
            check(sl_max_scalar(t[5], 0.0, &mut t[6]));
            check(sl_mul(t[6], t[6], &mut t[7]));
            check(sl_sum(t[6], SL_ALL_DIMS, &mut sums[0]));
            check(sl_sum(t[7], SL_ALL_DIMS, &mut sums[1]));
            check(sl_macro_end(sums.as_ptr(), 2));
        }
        let (mut s, mut sq) = (0f64, 0f64);
        check(sl_read(sums[0], SL_COL_MAJOR, &mut s as *mut f64 as *mut _, 8));
        check(sl_read(sums[1], SL_COL_MAJOR, &mut sq as *mut f64 as *mut _, 8));
        check(sl_scope_end());
        m += s;
        m2 += sq;
    }
    let paths = (batch as usize * batches) as f64;
    black_box(m2);
    (-rate * years).exp() * m / paths
}

/// Order of the conjugate gradient benchmark's system.
const CG_N: usize = 80;
/// Iterations per measured CG solve (the system converges slowly enough that the residual
/// stays positive, so every iteration does the same work).
const CG_ITERS: usize = 50;

/// A symmetric positive definite `CG_N` x `CG_N` system `B^T B + 0.01 I` (B uniform in
/// [-1, 1), from a fixed LCG so numpy's run solves the same one) and a right-hand side.
fn cg_system() -> (Vec<f64>, Vec<f64>) {
    let n = CG_N;
    let mut state = 20261124u64;
    let mut uniform = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let b: Vec<f64> = (0..n * n).map(|_| uniform()).collect();
    let mut a = vec![0f64; n * n];
    for i in 0..n {
        for j in 0..n {
            a[i + j * n] = (0..n).map(|k| b[k + i * n] * b[k + j * n]).sum::<f64>() + if i == j { 0.01 } else { 0.0 };
        }
    }
    let rhs = (0..n).map(|_| uniform()).collect();
    (a, rhs)
}

fn upload_f64(data: &[f64], dims: &[i64]) -> sl_array {
    let mut h = 0;
    let (rank, bytes) = (dims.len() as i32, data.len() * 8);
    check(sl_create(SL_F64, rank, dims.as_ptr(), SL_COL_MAJOR, data.as_ptr() as *const _, bytes, &mut h));
    h
}

/// `f(a, b)` into a new handle.
fn op2(f: extern "C" fn(sl_array, sl_array, *mut sl_array) -> sl_status, a: sl_array, b: sl_array) -> sl_array {
    let mut out = 0;
    check(f(a, b, &mut out));
    out
}

fn release_all(hs: &[sl_array]) {
    for &h in hs {
        check(sl_release(h));
    }
}

/// `CG_ITERS` iterations of conjugate gradient from x = 0 as a user writes it: a matvec,
/// two dots and three vector updates per iteration, the step sizes kept as rank-0 arrays,
/// and the residual's squared norm read back every iteration (to test convergence).
/// Returns the last squared residual norm.
fn cg_solve(a: sl_array, rhs: sl_array) -> f64 {
    let (mut x, mut r, mut p, mut rs) = (0, 0, 0, 0);
    check(sl_mul_scalar(rhs, 0.0, &mut x));
    check(sl_retain(rhs, &mut r));
    check(sl_retain(rhs, &mut p));
    check(sl_dot(r, r, &mut rs));
    let mut rs_host = 0f64;
    for _ in 0..CG_ITERS {
        let ap = op2(sl_matmul, a, p);
        let pap = op2(sl_dot, p, ap);
        let alpha = op2(sl_div, rs, pap);
        let (step_x, step_r) = (op2(sl_mul, alpha, p), op2(sl_mul, alpha, ap));
        let (x2, r2) = (op2(sl_add, x, step_x), op2(sl_sub, r, step_r));
        let rs2 = op2(sl_dot, r2, r2);
        check(sl_read(rs2, SL_COL_MAJOR, &mut rs_host as *mut f64 as *mut _, 8));
        let beta = op2(sl_div, rs2, rs);
        let step_p = op2(sl_mul, beta, p);
        let p2 = op2(sl_add, r2, step_p);
        release_all(&[ap, pap, alpha, step_x, step_r, beta, step_p, x, r, p, rs]);
        (x, r, p, rs) = (x2, r2, p2, rs2);
    }
    release_all(&[x, r, p, rs]);
    rs_host
}

/// A blocking read of a small result that depends on a cached flush: the round trip
/// (`sl_dot` of two 80-element vectors, read, per iteration), and conjugate gradient on an
/// 80 x 80 system, whose every iteration ends in such a read. `scripts/bench_numpy.py`
/// times the same solve in numpy.
fn roundtrip(c: &mut Criterion) {
    let (a, rhs) = cg_system();
    let n = CG_N as i64;
    let (ha, hb) = (upload_f64(&a, &[n, n]), upload_f64(&rhs, &[n]));
    let mut g = c.benchmark_group("roundtrip");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    g.bench_function("dot_read_80_f64", |bench| {
        bench.iter(|| {
            let d = op2(sl_dot, hb, hb);
            let mut v = 0f64;
            check(sl_read(d, SL_COL_MAJOR, &mut v as *mut f64 as *mut _, 8));
            check(sl_release(d));
            black_box(v)
        })
    });
    g.bench_function("cg_80_f64_x50", |bench| bench.iter(|| black_box(cg_solve(ha, hb))));
    g.finish();
    release_all(&[ha, hb]);
}

/// Gathers at computed fractional positions with linear interpolation on 2^22 f32 outputs
/// (issue 15: within 2x the memory floor) and, in the same group, their floors. `interp1`
/// reads 2048 traces of 2048 samples along time at smoothly stretched positions (a
/// moveout correction): it reads the positions and the traces and writes the result, a
/// triad's bytes. `interp2` warps a 2048x2048 image smoothly: two position arrays and the
/// image in, one array out.
fn interpolation(c: &mut Criterion) {
    const S: usize = 2048;
    const M: usize = S * S;
    let dims = [S as i64, S as i64];
    let make = |f: &dyn Fn(usize, usize) -> f32| -> Vec<f32> { (0..M).map(|i| f(i % S, i / S)).collect() };
    let image = make(&|t, x| ((t * 7 + x * 13) % 1000) as f32 * 0.001 - 0.5);
    let stretched = make(&|t, x| t as f32 * (0.9 + 0.1 * x as f32 / S as f32) + 0.37);
    let rows = make(&|t, x| t as f32 + 2.5 * (x as f32 * 0.01).sin());
    let cols = make(&|t, x| x as f32 + 2.5 * (t as f32 * 0.01).cos());
    let upload2 = |v: &[f32]| {
        let mut h = 0;
        check(sl_create(SL_F32, 2, dims.as_ptr(), SL_COL_MAJOR, v.as_ptr() as *const _, v.len() * 4, &mut h));
        h
    };
    let (src, t, p0, p1) = (upload2(&image), upload2(&stretched), upload2(&rows), upload2(&cols));
    let mut g = c.benchmark_group("interpolation");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    let mut out = vec![0f32; M];
    g.bench_function("triad_floor_f32", |bench| bench.iter(|| triad(&mut out, &stretched, &image, 3.0)));
    g.bench_function("interp1_f32", |bench| {
        bench.iter(|| {
            let mut r = 0;
            check(sl_interp1(src, t, 0, SL_INDEX_CLAMP, 0.0, &mut r));
            compute(r);
            check(sl_release(r));
        })
    });
    g.bench_function("three_in_floor_f32", |bench| {
        let po = SendPtr(out.as_mut_ptr());
        bench.iter(|| {
            parallel(M, |lo, hi| {
                let dst = unsafe { std::slice::from_raw_parts_mut(po.at(lo), hi - lo) };
                for (((d, &a), &b), &e) in dst.iter_mut().zip(&rows[lo..hi]).zip(&cols[lo..hi]).zip(&image[lo..hi]) {
                    *d = a + b + e;
                }
            })
        })
    });
    g.bench_function("interp2_f32", |bench| {
        bench.iter(|| {
            let mut r = 0;
            check(sl_interp2(src, p0, p1, 0, 1, SL_INDEX_CLAMP, 0.0, &mut r));
            compute(r);
            check(sl_release(r));
        })
    });
    g.finish();
    black_box(&out);
    release_all(&[src, t, p0, p1]);
}

criterion_group!(
    benches,
    special,
    interpolation,
    bandwidth,
    random,
    random_laws,
    fused,
    complex_chain,
    midsize,
    shared_core,
    sums,
    overhead,
    macro_replay,
    roundtrip,
    trace_cache,
    matmul,
    unfused,
    overhead_no_trace_cache,
    repeated_calls,
    assign
);
criterion_main!(benches);
