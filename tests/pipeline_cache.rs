//! The Vulkan executor's in-memory pipeline cache is bounded
//! (`SLUICE_PIPELINE_CACHE_ENTRIES`): more distinct kernels than the bound keep it at the
//! bound, evicting the least recently used (counted in `sl_get_cache_stats`), and an
//! evicted pipeline comes back (from the disk cache) with the same results.

mod common;

use common::reference as r;
use common::*;
use sluice::*;

const BOUND: u64 = 4;
const OPS: [sl_unary_op; 5] = [SL_SIN, SL_COS, SL_TANH, SL_EXP, SL_ABS];

fn program_stats() -> sl_cache_stats {
    let mut s: sl_cache_stats = unsafe { std::mem::zeroed() };
    ok(sl_get_cache_stats(SL_CACHE_PROGRAM, &mut s));
    s
}

/// Kernel `k`: a chain of three unary ops picked by `k` (a structure of its own), times a
/// scalar, over `x`; checked against the reference.
fn chain(k: usize, x: &Arr, hx: sl_array) {
    let ops = [OPS[k % 5], OPS[(k / 5) % 5], OPS[(k / 25) % 5]];
    let (mut h, mut made) = (hx, Vec::new());
    for op in ops {
        let mut y = 0;
        ok(sl_unary(op, h, &mut y));
        made.push(y);
        h = y;
    }
    let mut out = 0;
    ok(sl_mul_scalar(h, 1.5, &mut out));
    let want = r::map1(x, |v| r::binary(SL_MUL, ops.iter().fold(v, |v, &op| r::unary(op, v)), V::F32(1.5)));
    let tol: f64 = ops.iter().map(|&op| max_ulps(Inexact::Unary(op), SL_F32)).sum();
    assert_close(&format!("kernel {k} ({ops:?})"), &download(out), &want, tol + 4.0);
    made.push(out);
    release(&made);
}

#[test]
fn distinct_kernels_beyond_the_bound() {
    let mut rng = rng("distinct_kernels_beyond_the_bound");
    let root = std::env::temp_dir().join(format!("sluice-pipeline-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    // SAFETY: the only test in this process; set before the runtime starts.
    unsafe {
        std::env::set_var("SLUICE_CACHE_DIR", &root);
        std::env::set_var("SLUICE_PIPELINE_CACHE_ENTRIES", BOUND.to_string());
    }
    let mut cfg: sl_config = unsafe { std::mem::zeroed() };
    ok(sl_config_default(&mut cfg));
    cfg.backend = SL_BACKEND_VULKAN;
    ok(sl_init(&cfg));

    let x = rand_arr(&mut rng, SL_F32, &[1000], -1.0, 1.0, false);
    let hx = x.upload();
    let kernels = 3 * BOUND as usize;
    for k in 0..kernels {
        chain(k, &x, hx);
        assert!(program_stats().entries <= BOUND, "kernel {k}: more pipelines kept than the bound");
    }
    let first = program_stats();
    assert_eq!(first.entries, BOUND, "the cache is full: {first:?}");
    assert!(first.misses >= kernels as u64, "each kernel made its pipeline: {first:?}");
    assert_eq!(first.evictions, first.misses - BOUND, "every pipeline beyond the bound evicted one: {first:?}");

    // Again: the flushes replay from the trace cache, whose kernels find their pipelines
    // evicted and make them again (from the SPIR-V on disk), with the same results.
    for k in 0..kernels {
        chain(k, &x, hx);
    }
    let second = program_stats();
    assert_eq!(second.entries, BOUND, "{second:?}");
    assert!(second.misses >= first.misses + kernels as u64 - BOUND, "evicted pipelines made again: {second:?}");
    assert_eq!(second.evictions, second.misses - BOUND, "{second:?}");
    assert_eq!(second.lookups, second.hits + second.misses);
    release(&[hx]);
    ok(sl_shutdown());
    let _ = std::fs::remove_dir_all(&root);
}
