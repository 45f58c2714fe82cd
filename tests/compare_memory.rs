//! Result comparison within `SLUICE_MEMORY_LIMIT`: its reference run (f64, so twice the
//! memory of f32 work) counts against the limit and drops intermediate references after
//! their last use, so a fused chain whose computation fits also compares within the
//! limit; references that cannot fit (they may take half of it) are refused with a clear
//! message, and the computation goes on. One test in this file: the limit is set before the runtime starts.

mod common;

use common::*;
use rand::Rng;
use sluice::*;

const LIMIT: usize = 64 << 20;
/// 4 MiB of f32; its reference (f64) is 8 MiB. References may take half the limit.
const N: usize = 1 << 20;

/// `((tanh(cos(sin(x) 1.5 + x) 0.5 + x)) + 1)`, element by element in f64.
fn chain_reference(x: f32) -> f64 {
    let x = x as f64;
    (((x.sin() * 1.5 + x).cos() * 0.5 + x).tanh()) + 1.0
}

/// The chain of `chain_reference` on `hx`, each intermediate released once used unless
/// `keep`; returns the result and the kept intermediates.
fn chain(hx: sl_array, keep: bool) -> (sl_array, Vec<sl_array>) {
    let mut made = Vec::new();
    let mut step = |h: sl_array, next: sl_array| {
        if keep || h == hx {
            made.push(h);
        } else {
            release(&[h]);
        }
        next
    };
    let mut t = unary(SL_SIN, hx);
    let mut n = 0;
    ok(sl_mul_scalar(t, 1.5, &mut n));
    t = step(t, n);
    ok(sl_add(t, hx, &mut n));
    t = step(t, n);
    t = step(t, unary(SL_COS, t));
    ok(sl_mul_scalar(t, 0.5, &mut n));
    t = step(t, n);
    ok(sl_add(t, hx, &mut n));
    t = step(t, n);
    t = step(t, unary(SL_TANH, t));
    ok(sl_add_scalar(t, 1.0, &mut n));
    t = step(t, n);
    made.retain(|&h| h != hx);
    (t, made)
}

#[test]
fn comparison_runs_within_the_memory_limit() {
    let mut rng = rng("comparison_runs_within_the_memory_limit");
    // SAFETY: the only test in this process; set before the runtime starts.
    unsafe {
        std::env::set_var("SLUICE_MEMORY_LIMIT", LIMIT.to_string());
        std::env::set_var("SLUICE_COMPARE", "copyout");
        std::env::set_var("SLUICE_COMPARE_REL_TOL", "1e-4");
    }
    let x: Vec<f32> = (0..N).map(|_| rng.random_range(-2.0f32..2.0)).collect();
    let dims = [N as i64];
    let mut hx = 0;
    ok(sl_create(SL_F32, 1, dims.as_ptr(), SL_COL_MAJOR, x.as_ptr() as *const _, N * 4, &mut hx));
    let checked = compare_stats();

    // A fused sum over the chain: the computation needs x and nothing else; its reference
    // run x's reference and two intermediates at a time (7 without dropping them).
    let (t, _) = chain(hx, false);
    let mut total = 0;
    ok(sl_sum(t, SL_ALL_DIMS, &mut total));
    let mut got = 0f32;
    ok(sl_read(total, SL_COL_MAJOR, &mut got as *mut f32 as *mut _, 4));
    let (want, scale) = x.iter().map(|&v| chain_reference(v)).fold((0.0, 0.0), |(s, a), v| (s + v, a + v.abs()));
    assert!((got as f64 - want).abs() <= 1e-5 * scale, "sum {got} vs {want}");
    let after = compare_stats();
    assert!(after.values_checked > checked.values_checked, "the sum was compared");
    assert_eq!(after.mismatches, checked.mismatches, "and agreed with its reference");
    // References count against the limit: x's and two of the chain's at the peak.
    let peak = stats().peak_live_bytes as usize;
    assert!(peak >= 4 * N + 3 * 8 * N, "references are counted: peak {peak}");
    assert!(peak <= LIMIT, "peak {peak}");
    let mut reference = 0;
    ok(sl_reference(total, &mut reference));
    release(&[t, total, reference]);

    // Every intermediate held by the application: their references must all stay, and
    // cannot fit. The values are computed and read all the same; the references that did
    // not fit are refused, saying why.
    let (t, kept) = chain(hx, true);
    let got = download(t);
    for (i, (g, &v)) in got.v.iter().zip(&x).enumerate() {
        let want = chain_reference(v);
        assert!((g.f() - want).abs() <= 1e-5 * (1.0 + want.abs()), "element {i}: {g:?} vs {want}");
    }
    let mut r = 0;
    fails(sl_reference(t, &mut r), SL_ERR_OUT_OF_MEMORY, "does not fit in memory");
    fails(sl_reference(t, &mut r), SL_ERR_OUT_OF_MEMORY, "SLUICE_MEMORY_LIMIT");
    ok(sl_reference(kept[0], &mut r));
    release(&[r, t]);
    release(&kept);

    // A complex value's reference holds two f64 per element, and counts so: z (N/8 c64),
    // z*z, their references (16 bytes per element each) and the copy sl_reference returns
    // make 56 bytes per element; the real parts the product is lowered to add more.
    let before = stats().live_bytes as usize;
    let half = N / 8;
    let z: Vec<f32> = (0..2 * half).map(|_| rng.random_range(-2.0f32..2.0)).collect();
    let (mut hz, mut hw) = (0, 0);
    let zdims = [half as i64];
    ok(sl_create(SL_C64, 1, zdims.as_ptr(), SL_COL_MAJOR, z.as_ptr() as *const _, half * 8, &mut hz));
    ok(sl_mul(hz, hz, &mut hw));
    ok(sl_reference(hw, &mut r));
    let counted = stats().live_bytes as usize - before;
    assert!(counted > 56 * half, "two c64 arrays, their references and a copy: {counted} bytes counted");
    release(&[r, hw, hz, hx]);
}
