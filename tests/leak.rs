//! The same small computation repeated many times, with reads, from one thread and from
//! eight: the process's resident memory stays flat once warmed up (caches filled, pools
//! grown). Run on each executor (`SLUICE_BACKEND=vulkan` for the Vulkan one). One test in
//! this file, so nothing else runs in the process while its memory is sampled.

mod common;

use common::reference as r;
use common::*;
use rand::Rng;
use rand::rngs::StdRng;
use sluice::*;

/// Resident bytes of this process (`/proc/self/statm`, second field, in pages).
fn resident_bytes() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("read /proc/self/statm");
    let pages: usize = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).expect("statm's resident field");
    // SAFETY: sysconf has no preconditions.
    pages * unsafe { libc::sysconf(libc::_SC_PAGESIZE) } as usize
}

/// One iteration: `sum(sin(x) * s + x)` over a fresh random vector, both the element-wise
/// result and the sum read and checked against the reference.
fn iteration(rng: &mut StdRng, what: &str) {
    let n = rng.random_range(200..400);
    let s = rng.random_range(-2.0..2.0);
    let x = rand_arr(rng, SL_F32, &[n], -3.0, 3.0, false);
    ok(sl_scope_begin());
    let hx = x.upload();
    let (mut sx, mut t, mut y, mut total) = (0, 0, 0, 0);
    ok(sl_sin(hx, &mut sx));
    ok(sl_mul_scalar(sx, s, &mut t));
    ok(sl_add(t, hx, &mut y));
    ok(sl_sum(y, SL_ALL_DIMS, &mut total));
    let want = r::map2(&r::map1(&x, |v| r::binary(SL_MUL, r::unary(SL_SIN, v), V::F32(s as f32))), &x, |a, b| {
        r::binary(SL_ADD, a, b)
    });
    assert_close(what, &download(y), &want, max_ulps(Inexact::Unary(SL_SIN), SL_F32) + 2.0);
    let got = download(total).v[0].f();
    let (sum, abs) = want.v.iter().fold((0.0, 0.0), |(s, a), v| (s + v.f(), a + v.f().abs()));
    assert!((got - sum).abs() <= 1e-5 * abs, "{what}: sum {got} vs {sum}");
    ok(sl_scope_end());
}

/// Runs `per_thread` iterations on each of `threads` threads, seeded from `rng`.
fn run(rng: &mut StdRng, threads: usize, per_thread: usize) {
    let seeds: Vec<u64> = (0..threads).map(|_| rng.random()).collect();
    std::thread::scope(|scope| {
        for (t, seed) in seeds.into_iter().enumerate() {
            scope.spawn(move || {
                use rand::SeedableRng;
                let mut rng = StdRng::seed_from_u64(seed);
                for it in 0..per_thread {
                    iteration(&mut rng, &format!("{threads} threads: thread {t} iteration {it}"));
                }
            });
        }
    });
}

/// Growth allowed over the measured iterations: far below the 1 KB per iteration (20 MB
/// here) that a per-call leak of even one small allocation would show, above what the
/// allocator's page-granular heaps vary by.
const ALLOWED_GROWTH: usize = 4 << 20;

#[test]
fn memory_stays_flat_over_many_small_calls() {
    let mut rng = rng("memory_stays_flat_over_many_small_calls");
    for threads in [1, 8] {
        let total = 20_000;
        // Warm up: kernels compiled, caches and pools at their working size.
        run(&mut rng, threads, 2_000 / threads);
        let before = resident_bytes();
        let mut samples = Vec::new();
        for _ in 0..10 {
            run(&mut rng, threads, total / 10 / threads);
            samples.push(resident_bytes());
        }
        let after = *samples.last().unwrap();
        eprintln!("{threads} threads: resident {before} bytes after warm-up, then {samples:?}");
        let s = stats();
        assert_eq!(s.live_handles, 0, "{threads} threads: handles left");
        assert!(
            after <= before + ALLOWED_GROWTH,
            "{threads} threads: resident memory grew by {} bytes over {total} iterations ({} per iteration)",
            after - before,
            (after - before) / total
        );
    }
}
