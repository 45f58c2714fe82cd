//! Result comparison, reference arrays, the debug peek and synchronous mode. (The op suite
//! also runs under both comparison modes: see scripts/test.sh.)
//!
//! Comparison settings and run counters are process-wide, so the tests here take turns;
//! the ones that need a setting from the start (a planted wrong op, SLUICE_SYNC) run in
//! child processes.

mod common;

use common::*;
use parking_lot::Mutex;
use sluice::*;

static SERIAL: Mutex<()> = Mutex::new(());

fn set_compare(mode: sl_compare_mode, action: sl_compare_action) {
    ok(sl_set_compare(&sl_compare_settings { mode, action, abs_tol: -1.0, rel_tol: -1.0 }));
}

/// The executor the tests run on, and the other one.
fn executors() -> (&'static str, &'static str) {
    if on_vulkan() { ("vulkan", "cpu") } else { ("cpu", "vulkan") }
}

/// x (f32, random), s = sin(x / 2) and y = s * s + x, all fused into one kernel; returns
/// (x, s, y, the source line of the sin call).
fn sin_chain(n: usize) -> (sl_array, sl_array, sl_array, u32) {
    let x = rand_arr(&mut rng("sin_chain"), SL_F32, &[n], -3.0, 3.0, false).upload();
    let mut half = 0;
    ok(sl_mul_scalar(x, 0.5, &mut half));
    let mut s = 0;
    let (st, line) = (sl_unary(SL_SIN, half, &mut s), line!());
    ok(st);
    let sq = binary(SL_MUL, s, s);
    let y = binary(SL_ADD, sq, x);
    release(&[half, sq]);
    (x, s, y, line)
}

/// With the perturbed op on this executor and `SLUICE_COMPARE=compute`, error action.
#[test]
#[ignore = "run by planted_wrong_op in a child process"]
fn planted_wrong_op_compute_child() {
    let (x, s, y, line) = sin_chain(5000);
    let mut total = 0;
    ok(sl_sum(y, SL_ALL_DIMS, &mut total));
    let mut v = 0f32;
    // The sum reads y, which the kernel computed from the wrong sin: the report names sin.
    let st = sl_read(total, SL_COL_MAJOR, &mut v as *mut f32 as *mut _, 4);
    fails(st, SL_ERR_POISONED, "result comparison (compute): sin made by sl_unary at");
    fails(st, SL_ERR_POISONED, &format!("compare.rs:{line}"));
    assert!(compare_stats().mismatches >= 1);
    release(&[x, s, y, total]);
}

/// With the perturbed op and `SLUICE_COMPARE=copyout`, error action.
#[test]
#[ignore = "run by planted_wrong_op in a child process"]
fn planted_wrong_op_copyout_child() {
    let (x, s, y, line) = sin_chain(5000);
    ok(sl_eval(&[s, y] as *const _, 2));
    let mut got = vec![0f32; 5000];
    let st = sl_read(s, SL_COL_MAJOR, got.as_mut_ptr() as *mut _, 5000 * 4);
    fails(st, SL_ERR_MISMATCH, "result comparison (copyout): sin made by sl_unary at");
    fails(st, SL_ERR_MISMATCH, &format!("compare.rs:{line}"));
    // The values are handed over all the same (here: sin, 1/256 too large).
    let xs = download(x);
    for (g, xv) in got.iter().zip(&xs.v) {
        let want = (xv.f() / 2.0).sin() * (1.0 + 1.0 / 256.0);
        assert!((*g as f64 - want).abs() < 1e-5, "{g} vs {want}");
    }
    // A value computed from it is caught as the value read.
    let mut buf = vec![0f32; 5000];
    fails(sl_read(y, SL_COL_MAJOR, buf.as_mut_ptr() as *mut _, 5000 * 4), SL_ERR_MISMATCH, "add made by sl_binary");
    release(&[x, s, y]);
}

/// Compute mode, report action: every read succeeds, the reports go to stderr, the first
/// naming sin.
#[test]
#[ignore = "run by planted_wrong_op in a child process"]
fn planted_wrong_op_report_child() {
    let (x, s, y, _) = sin_chain(300);
    let got = download(y);
    assert_eq!(got.v.len(), 300);
    assert!(compare_stats().mismatches >= 2, "sin and what follows from it");
    release(&[x, s, y]);
}

/// The wrong op on the other executor: nothing differs here.
#[test]
#[ignore = "run by planted_wrong_op in a child process"]
fn planted_wrong_op_elsewhere_child() {
    let (x, s, y, _) = sin_chain(5000);
    download(y);
    download(s);
    assert_compared_clean(3);
    release(&[x, s, y]);
}

#[test]
fn planted_wrong_op() {
    let (here, other) = executors();
    let perturbed = format!("sin@{here}");
    let env = |mode, action| {
        vec![("SLUICE_TEST_PERTURB", perturbed.as_str()), ("SLUICE_COMPARE", mode), ("SLUICE_COMPARE_ACTION", action)]
    };
    child("planted_wrong_op_compute_child", &env("compute", "error"));
    child("planted_wrong_op_copyout_child", &env("copyout", "error"));
    let stderr = child("planted_wrong_op_report_child", &env("compute", "report"));
    let first = stderr.lines().find(|l| l.contains("result comparison")).expect("a report on stderr");
    assert!(first.contains("sin made by sl_unary at") && first.contains("compare.rs:"), "{first}");
    let elsewhere = format!("sin@{other}");
    child(
        "planted_wrong_op_elsewhere_child",
        &[
            ("SLUICE_TEST_PERTURB", elsewhere.as_str()),
            ("SLUICE_COMPARE", "compute"),
            ("SLUICE_COMPARE_ACTION", "error"),
        ],
    );
}

#[test]
fn reference_arrays() {
    let _serial = SERIAL.lock();
    set_compare(SL_COMPARE_COPYOUT, SL_COMPARE_ERROR);
    let a = rand_arr(&mut rng("reference_arrays"), SL_F32, &[40, 3], -10.0, 10.0, false);
    let x = a.upload();
    let y = binary(SL_MUL, x, x);
    let mut z = 0;
    ok(sl_add_scalar(y, 1.0, &mut z));
    let mut ten = 0;
    ok(sl_mul_scalar(x, 10.0, &mut ten));
    let mut i = 0;
    ok(sl_cast(ten, SL_I32, &mut i));
    let mut r = 0;
    // The reference of z is x*x + 1 in f64, from the f32 inputs, exactly.
    ok(sl_reference(z, &mut r));
    let want = Arr::new(SL_F64, &[40, 3], a.v.iter().map(|v| V::F64(v.f() * v.f() + 1.0)).collect());
    assert_close("reference of x*x + 1", &download(r), &want, 0.0);
    release(&[r]);
    // An integer array's reference has its own type; an application array's is itself.
    ok(sl_reference(i, &mut r));
    let want = Arr::new(SL_I32, &[40, 3], a.v.iter().map(|v| V::I32((v.f() * 10.0) as i32)).collect());
    assert_close("reference of cast", &download(r), &want, 0.0);
    release(&[r]);
    ok(sl_reference(x, &mut r));
    let want = Arr::new(SL_F64, &[40, 3], a.v.iter().map(|v| V::F64(v.f())).collect());
    assert_close("reference of an application array", &download(r), &want, 0.0);
    release(&[r, y, z, ten, i]);
    // Computed with comparison off: no reference.
    set_compare(SL_COMPARE_OFF, SL_COMPARE_REPORT);
    let w = binary(SL_ADD, x, x);
    download(w);
    fails(sl_reference(w, &mut r), SL_ERR_INVALID_STATE, "no reference");
    assert_eq!(r, 0);
    fails(sl_reference(w, std::ptr::null_mut()), SL_ERR_INVALID_ARGUMENT, "NULL");
    release(&[x, w]);
}

#[test]
fn settings_and_bad_settings() {
    let _serial = SERIAL.lock();
    let want = sl_compare_settings { mode: SL_COMPARE_COMPUTE, action: SL_COMPARE_ERROR, abs_tol: 0.5, rel_tol: -1.0 };
    ok(sl_set_compare(&want));
    let mut got = sl_compare_settings { mode: -1, action: -1, abs_tol: 0.0, rel_tol: 0.0 };
    ok(sl_get_compare(&mut got));
    assert_eq!((got.mode, got.action, got.abs_tol, got.rel_tol), (SL_COMPARE_COMPUTE, SL_COMPARE_ERROR, 0.5, -1.0));
    let bad = |s: sl_compare_settings, needle: &str| fails(sl_set_compare(&s), SL_ERR_INVALID_ARGUMENT, needle);
    bad(sl_compare_settings { mode: 7, ..want }, "not a comparison mode");
    bad(sl_compare_settings { action: 9, ..want }, "not a comparison action");
    bad(sl_compare_settings { rel_tol: f64::NAN, ..want }, "NaN");
    fails(sl_set_compare(std::ptr::null()), SL_ERR_INVALID_ARGUMENT, "NULL");
    fails(sl_get_compare(std::ptr::null_mut()), SL_ERR_INVALID_ARGUMENT, "NULL");
    fails(sl_get_compare_stats(std::ptr::null_mut()), SL_ERR_INVALID_ARGUMENT, "NULL");
    // Failed calls change nothing.
    ok(sl_get_compare(&mut got));
    assert_eq!((got.mode, got.abs_tol), (SL_COMPARE_COMPUTE, 0.5));
    set_compare(SL_COMPARE_OFF, SL_COMPARE_REPORT);
}

/// `(x + 1e8) - 1e8` in f32 is 0 for x in [0.1, 1) (x + 1e8 rounds to 1e8), while the
/// reference is x: the error of each element is known, so the tolerance rule
/// `|computed - reference| <= abs + rel * |reference|` can be checked element by element.
#[test]
fn tolerances_apply() {
    let _serial = SERIAL.lock();
    let mut a = rand_arr(&mut rng("tolerances_apply"), SL_F32, &[4001], 0.1, 1.0, false);
    for v in &mut a.v {
        if (v.f() - 0.5).abs() < 1e-6 {
            *v = V::F32(0.25); // keep clear of the 0.5 boundary tested below
        }
    }
    let x = a.upload();
    let read_with = |abs: f64, rel: f64| {
        let s = sl_compare_settings { mode: SL_COMPARE_COPYOUT, action: SL_COMPARE_ERROR, abs_tol: abs, rel_tol: rel };
        ok(sl_set_compare(&s));
        let (mut up, mut down) = (0, 0);
        ok(sl_add_scalar(x, 1e8, &mut up));
        ok(sl_sub_scalar(up, 1e8, &mut down));
        let mut v = vec![1f32; 4001];
        let st = sl_read(down, SL_COL_MAJOR, v.as_mut_ptr() as *mut _, v.len() * 4);
        assert!(v.iter().all(|&e| e == 0.0), "the values are handed over whatever the verdict");
        release(&[up, down]);
        st
    };
    ok(read_with(1.0, 0.0));
    ok(read_with(0.0, 1.0));
    fails(read_with(0.0, 0.0), SL_ERR_MISMATCH, "4001 of 4001 elements differ");
    fails(read_with(0.0, 0.5), SL_ERR_MISMATCH, "4001 of 4001 elements differ");
    let above = a.v.iter().filter(|v| v.f() > 0.5).count();
    fails(read_with(0.5, 0.0), SL_ERR_MISMATCH, &format!("{above} of 4001 elements differ"));
    set_compare(SL_COMPARE_OFF, SL_COMPARE_REPORT);
    release(&[x]);
}

/// The value of an intermediate of a fused chain, without changing the chain's kernels or
/// result.
#[test]
fn peek_leaves_the_computation_unchanged() {
    let _serial = SERIAL.lock();
    let mut r = rng("peek");
    let (xa, ya) =
        (rand_arr(&mut r, SL_F32, &[3000], -2.0, 2.0, false), rand_arr(&mut r, SL_F32, &[3000], -2.0, 2.0, false));
    let (x, y) = (xa.upload(), ya.upload());
    // d = sum(sin(2x) * y + 2x): one kernel when nothing interferes.
    let chain = || {
        let mut a = 0;
        ok(sl_mul_scalar(x, 2.0, &mut a));
        let b = unary(SL_SIN, a);
        let by = binary(SL_MUL, b, y);
        let c = binary(SL_ADD, by, a);
        let mut d = 0;
        ok(sl_sum(c, SL_ALL_DIMS, &mut d));
        release(&[a, by, c]);
        (b, d)
    };
    let run = |peek: bool| {
        let (b, d) = chain();
        if peek {
            let mut got = vec![0f32; 3000];
            ok(sl_debug_peek(b, SL_COL_MAJOR, got.as_mut_ptr() as *mut _, got.len() * 4));
            let want = Arr::new(SL_F32, &[3000], xa.v.iter().map(|v| V::F32((v.f() as f32 * 2.0).sin())).collect());
            let got = Arr::new(SL_F32, &[3000], got.into_iter().map(V::F32).collect());
            assert_close("peeked sin(2x)", &got, &want, 4.0);
        }
        let before = stats().kernels;
        let result = download(d);
        let kernels = stats().kernels - before;
        release(&[b, d]);
        (result, kernels)
    };
    let (plain, plain_kernels) = run(false);
    let (peeked, peeked_kernels) = run(true);
    assert_close("result with a peek", &peeked, &plain, 0.0);
    assert_eq!(peeked_kernels, plain_kernels, "the peek changed the kernels of the computation");
    // Bad input.
    let mut v = 0f32;
    fails(sl_debug_peek(0, SL_COL_MAJOR, &mut v as *mut f32 as *mut _, 4), SL_ERR_INVALID_HANDLE, "");
    fails(sl_debug_peek(x, SL_COL_MAJOR, std::ptr::null_mut(), 4), SL_ERR_INVALID_ARGUMENT, "NULL");
    fails(sl_debug_peek(x, SL_COL_MAJOR, &mut v as *mut f32 as *mut _, 4), SL_ERR_INVALID_ARGUMENT, "needs");
    fails(sl_debug_peek(x, 5, &mut v as *mut f32 as *mut _, 4), SL_ERR_INVALID_ARGUMENT, "sl_layout");
    release(&[x, y]);
}

/// With SLUICE_SYNC=1 each op is computed by the call that makes it, and fails there.
#[test]
#[ignore = "run by synchronous_mode in a child process"]
fn synchronous_mode_child() {
    let a = rand_arr(&mut rng("synchronous_mode"), SL_F64, &[500], -1.0, 1.0, false);
    let x = a.upload();
    let start = stats().flushes;
    let e = unary(SL_EXP, x);
    let m = binary(SL_MUL, e, x);
    let mut s = 0;
    ok(sl_sub_scalar(m, 0.25, &mut s));
    assert_eq!(stats().flushes - start, 3, "one flush per call");
    let want = Arr::new(SL_F64, &[500], a.v.iter().map(|v| V::F64(v.f().exp() * v.f() - 0.25)).collect());
    assert_near("synchronous chain", &download(s), &want, 1e-13, 1e-13);
    // A failure is the error of the call that made the failing op (here: a result over
    // the memory limit the parent set), not of a later read; the runtime goes on.
    let dims = [1i64 << 26];
    let mut big = 0;
    fails(sl_constant(SL_F32, 1, dims.as_ptr(), 1.0, &mut big), SL_ERR_OUT_OF_MEMORY, "");
    assert_eq!(big, 0);
    assert_near("after the failure", &download(s), &want, 1e-13, 1e-13);
    release(&[x, e, m, s]);
}

#[test]
fn synchronous_mode() {
    child("synchronous_mode_child", &[("SLUICE_SYNC", "1"), ("SLUICE_MEMORY_LIMIT", "64M")]);
}
