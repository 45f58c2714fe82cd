//! Vulkan executor benchmarks: time to the first result of a fused kernel never seen
//! before (GLSL generation, shaderc, pipeline creation), of one whose pipeline is in the
//! in-memory program cache, and of one whose SPIR-V and pipeline are only in the on-disk
//! cache (a fresh runtime). On lavapipe (no GPU) these measure overheads, not a GPU.
//! The element-wise and reduction benchmarks of `core.rs` run on Vulkan with
//! `SLUICE_BACKEND=vulkan cargo bench --bench core -- fused`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use sluice::*;

fn check(st: sl_status) {
    assert_eq!(st, SL_OK, "Sluice call failed");
}

fn start() {
    let mut cfg: sl_config = unsafe { std::mem::zeroed() };
    check(sl_config_default(&mut cfg));
    cfg.backend = SL_BACKEND_VULKAN;
    check(sl_init(&cfg));
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

criterion_group!(benches, program_cache);
criterion_main!(benches);
