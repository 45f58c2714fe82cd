//! Sorting on the executor `SLUICE_BACKEND` selects, for the ratio against numpy's
//! `np.sort` in BENCHMARKS.md: 2^24, 2^22 and 2^20 uniform f32 values sorted and read back
//! (`sl_sort` + `sl_read`; numpy's sort also writes a new array). `scripts/bench_sort.py`
//! times `np.sort` on the same work and prints the ratios; on Vulkan, 2^22 and 2^20 are
//! the device kernel's sizes (2^24 does not fit its scratch in one storage-buffer range).

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use sluice::*;

fn check(st: sl_status) {
    assert_eq!(st, SL_OK, "Sluice call failed");
}

/// Deterministic values in [0, 1) (a cheap hash: every radix digit varies).
fn values(n: usize) -> Vec<f32> {
    (0..n as u64)
        .map(|i| {
            let x = i.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(17).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            (x >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect()
}

fn sort(c: &mut Criterion) {
    let mut g = c.benchmark_group("sort");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    for (name, log) in [("f32_2p24", 24), ("f32_2p22", 22), ("f32_2p20", 20)] {
        let n = 1usize << log;
        let data = values(n);
        let mut h = 0;
        let dims = [n as i64];
        check(sl_create(SL_F32, 1, dims.as_ptr(), SL_COL_MAJOR, data.as_ptr() as *const _, 4 * n, &mut h));
        let mut out = vec![0f32; n];
        g.bench_function(name, |bench| {
            bench.iter(|| {
                let mut s = 0;
                check(sl_sort(h, 0, SL_ASCENDING, &mut s));
                check(sl_read(s, SL_COL_MAJOR, out.as_mut_ptr() as *mut _, 4 * n));
                check(sl_release(s));
            })
        });
        assert!(out.windows(2).all(|w| w[0] <= w[1]), "sorted");
        check(sl_release(h));
    }
    g.finish();
}

criterion_group!(benches, sort);
criterion_main!(benches);
