//! Deferred failures: a result whose computation fails (here: out of memory under a
//! memory limit) is poisoned; every read of it or of anything computed from it reports
//! the failure with the call that created the failing op, and nothing already computed
//! is lost, and nothing that does not depend on the failure is poisoned, even when a
//! flush computed it in the same kernel. Runs in its own process because it starts the
//! runtime with a limit.

mod common;

use common::*;
use rand::Rng;
use sluice::*;
use std::ffi::CStr;

#[test]
fn out_of_memory_poisons_results_and_keeps_the_rest() {
    let mut cfg: sl_config = unsafe { std::mem::zeroed() };
    ok(sl_config_default(&mut cfg));
    cfg.memory_limit = 64 << 20;
    ok(sl_init(&cfg));
    fails(sl_init(&cfg), SL_ERR_INVALID_STATE, "already running");

    let x = Arr::new(SL_F32, &[1000], (0..1000).map(|i| V::F32(i as f32)).collect());
    let hx = x.upload();
    let mut kept = 0;
    ok(sl_mul_scalar(hx, 3.0, &mut kept));
    let kept_before = download(kept);

    // 2^26 f32 = 256 MiB: over the limit, but only known when the kernel runs.
    let dims = [1i64 << 26];
    let mut big = 0;
    ok(sl_constant(SL_F32, 1, dims.as_ptr(), 1.0, &mut big));
    let mut y = 0;
    ok(sl_add_scalar(big, 2.0, &mut y));
    // Computing `y` means storing it (a fused sum alone would need no memory at all).
    ok(sl_eval(&y, 1));
    let mut z = 0;
    ok(sl_sum(y, SL_ALL_DIMS, &mut z));
    let mut v = 0f32;
    let st = sl_read(z, SL_COL_MAJOR, &mut v as *mut f32 as *mut _, 4);
    assert_eq!(st, SL_ERR_POISONED, "{}", last_error().1);
    let mut info: sl_error_info = unsafe { std::mem::zeroed() };
    ok(sl_last_error(&mut info));
    let msg = unsafe { CStr::from_ptr(info.message) }.to_str().unwrap().to_owned();
    assert!(msg.contains("out of memory"), "{msg}");
    assert!(!info.origin_function.is_null(), "the failing op's creator is named: {msg}");
    let origin = unsafe { CStr::from_ptr(info.origin_function) }.to_str().unwrap();
    assert_eq!(origin, "sl_add_scalar");
    assert_ne!(info.origin_pc, 0);

    // Anything computed from the poisoned array is poisoned too, at its own read.
    let mut w = 0;
    ok(sl_add_scalar(z, 1.0, &mut w));
    assert_eq!(sl_read(w, SL_COL_MAJOR, &mut v as *mut f32 as *mut _, 4), SL_ERR_POISONED);
    assert!(last_error().1.contains("out of memory"));

    // A replayed section passes a poisoned input's failure on to its outputs; with a
    // computed input it computes as recorded.
    let mut good = 0;
    ok(sl_sum(kept, SL_ALL_DIMS, &mut good));
    let good_value = download(good).v[0].f() as f32;
    let replayed = section(good);
    assert_eq!(download(replayed).v, vec![V::F32(good_value * 2.0 + 1.0)]);
    let again_good = section(good);
    assert_eq!(download(again_good).v, vec![V::F32(good_value * 2.0 + 1.0)]);
    let poisoned = section(z);
    assert_eq!(sl_read(poisoned, SL_COL_MAJOR, &mut v as *mut f32 as *mut _, 4), SL_ERR_POISONED);
    assert!(last_error().1.contains("out of memory"), "{}", last_error().1);
    let mut stats: sl_cache_stats = unsafe { std::mem::zeroed() };
    ok(sl_get_cache_stats(SL_CACHE_MACRO, &mut stats));
    assert_eq!((stats.misses, stats.hits), (1, 2), "recorded once, replayed with both inputs");
    release(&[good, replayed, again_good, poisoned]);

    // What was computed before is intact, and new work runs.
    assert_eq!(download(kept).v, kept_before.v);
    let mut again = 0;
    ok(sl_add(kept, hx, &mut again));
    let want: Vec<V> = x.v.iter().map(|v| V::F32(v.f() as f32 * 4.0)).collect();
    assert_eq!(download(again).v, want);

    let mut stats: sl_stats = unsafe { std::mem::zeroed() };
    ok(sl_get_stats(&mut stats));
    assert!(stats.failed_steps >= 1);
    assert!(stats.peak_live_bytes <= 64 << 20, "the limit held: peak {}", stats.peak_live_bytes);
    let device_peak = stats.device_peak_live_bytes;
    assert!(device_peak <= 64 << 20, "the limit held in device memory: peak {device_peak}");
    release(&[hx, kept, big, y, z, w, again]);
    ok(sl_shutdown());
    // A handle from before the shutdown belongs to no runtime now; the next call started
    // a fresh runtime (without the limit), which computes as usual.
    fails(sl_release(hx), SL_ERR_INVALID_HANDLE, "invalid handle");
    let h = x.upload();
    let mut twice = 0;
    ok(sl_add(h, h, &mut twice));
    let want: Vec<V> = x.v.iter().map(|v| V::F32(v.f() as f32 * 2.0)).collect();
    assert_eq!(download(twice).v, want);
    release(&[h, twice]);
    ok(sl_shutdown());
}

/// A flush stores values of one shape in one kernel, whatever they have to do with each
/// other (a queue cut takes every thread's pending arrays as its roots): a failure there
/// must poison only the values that depend on it, not the kernel's other outputs (the
/// fuzzer's defect p: one thread's small array poisoned by another's refused huge result).
#[test]
fn a_failure_poisons_only_what_depends_on_it() {
    child("a_failure_poisons_only_what_depends_on_it_child", &[("SLUICE_MEMORY_LIMIT", "64M")]);
}

#[test]
#[ignore = "run by a_failure_poisons_only_what_depends_on_it, under a memory limit"]
fn a_failure_poisons_only_what_depends_on_it_child() {
    let mut rng = rng("a_failure_poisons_only_what_depends_on_it");
    let poisoned_by_oom = |h: sl_array, what: &str| {
        let mut b = vec![0u8; numel(&shape_of(h)) * size_of(dtype_of(h))];
        let st = sl_read(h, SL_COL_MAJOR, b.as_mut_ptr() as *mut _, b.len());
        assert_eq!(st, SL_ERR_POISONED, "{what}: {}", last_error().1);
        assert!(last_error().1.contains("out of memory"), "{what}: {}", last_error().1);
    };

    // A failed input: one element of a result that could not be stored (2^26 f32, 256
    // MiB), flushed with an unrelated value of the same shape.
    let n = 1i64 << 26;
    let (mut x, mut y) = (0, 0);
    ok(sl_iota(SL_F32, 1, [n].as_ptr(), 0, &mut x));
    ok(sl_add_scalar(x, 1.0, &mut y));
    ok(sl_eval(&y, 1));
    let mut one = 0;
    ok(sl_section(y, [rng.random_range(0..n)].as_ptr(), [1].as_ptr(), [1].as_ptr(), &mut one));
    let a = rand_arr(&mut rng, SL_F32, &[1], -100.0, 100.0, false);
    let c = rng.random_range(-4.0f32..4.0);
    let ha = a.upload();
    let mut scaled = 0;
    ok(sl_mul_scalar(ha, c as f64, &mut scaled));
    ok(sl_eval([one, scaled].as_ptr(), 2));
    // One IEEE multiply: exact.
    assert_eq!(download(scaled).v, vec![V::F32(a.v[0].f() as f32 * c)], "the unrelated value is computed");
    poisoned_by_oom(one, "the element of the refused result");

    // A refused allocation: 2^24 f64 (128 MiB) and their maximum, one kernel over the
    // same points; the maximum needs 8 bytes.
    let m = 1i64 << 24;
    let c = rng.random_range(0.5..2.0);
    let (mut i, mut big, mut top) = (0, 0, 0);
    ok(sl_iota(SL_F64, 1, [m].as_ptr(), 0, &mut i));
    ok(sl_mul_scalar(i, c, &mut big));
    ok(sl_maxval(big, SL_ALL_DIMS, &mut top));
    ok(sl_eval([big, top].as_ptr(), 2));
    assert_eq!(download(top).v, vec![V::F64((m - 1) as f64 * c)], "the maximum is computed (exact: one multiply)");
    poisoned_by_oom(big, "the refused result");
    release(&[x, y, one, ha, scaled, i, big, top]);
    ok(sl_shutdown());
}

/// `a * 2 + 1` as a macro section (recorded the first time, replayed after).
fn section(a: sl_array) -> sl_array {
    let name = std::ffi::CString::new("twice_plus_one").unwrap();
    let (mut out, mut mode) = ([0], 0);
    ok(sl_macro_begin(name.as_ptr(), &a, 1, std::ptr::null(), 0, out.as_mut_ptr(), 1, &mut mode));
    if mode == SL_MACRO_RECORD {
        let mut t = 0;
        ok(sl_mul_scalar(a, 2.0, &mut t));
        ok(sl_add_scalar(t, 1.0, &mut out[0]));
        ok(sl_release(t));
        ok(sl_macro_end(out.as_ptr(), 1));
    }
    out[0]
}
