//! Bad input: every misuse gets its status and a clear message, the result handle stays
//! null, and the runtime keeps working afterwards.

mod common;

use common::*;
use sluice::*;
use std::ffi::CStr;

/// A small computation that must still work after each error.
fn still_works() {
    let a = Arr::new(SL_F64, &[3], vec![V::F64(1.0), V::F64(2.0), V::F64(3.0)]).upload();
    let mut b = 0;
    ok(sl_mul_scalar(a, 2.0, &mut b));
    let got = download(b);
    assert_eq!(got.v, vec![V::F64(2.0), V::F64(4.0), V::F64(6.0)]);
    release(&[a, b]);
}

fn vec_f32(n: usize) -> sl_array {
    Arr::new(SL_F32, &[n], (0..n).map(|i| V::F32(i as f32)).collect()).upload()
}

#[test]
fn stale_forged_and_null_handles() {
    let a = vec_f32(4);
    ok(sl_release(a));
    let mut out = 7;
    fails(sl_neg(a, &mut out), SL_ERR_INVALID_HANDLE, "stale");
    assert_eq!(out, 0, "a failed call leaves the null handle");
    fails(sl_release(a), SL_ERR_INVALID_HANDLE, "stale");
    for forged in [1u64, 2, 12345, 0xdead_beef_0000_0001, u64::MAX] {
        fails(sl_neg(forged, &mut out), SL_ERR_INVALID_HANDLE, "invalid handle");
    }
    fails(sl_neg(0, &mut out), SL_ERR_INVALID_HANDLE, "null handle");
    // The scalar forms of issue 15 (promotion and select with a scalar), with null operands.
    let b = vec_f32(4);
    fails(sl_binary_scalar_i(SL_ADD, 0, 1, &mut out), SL_ERR_INVALID_HANDLE, "null handle");
    fails(sl_scalar_binary_i(SL_ADD, 1, 0, &mut out), SL_ERR_INVALID_HANDLE, "null handle");
    fails(sl_select_scalar(0, b, 1.0, &mut out), SL_ERR_INVALID_HANDLE, "null handle");
    fails(sl_select_scalar(b, 0, 1.0, &mut out), SL_ERR_INVALID_HANDLE, "null handle");
    fails(sl_scalar_select(0, 1.0, b, &mut out), SL_ERR_INVALID_HANDLE, "null handle");
    fails(sl_scalar_select(b, 1.0, 0, &mut out), SL_ERR_INVALID_HANDLE, "null handle");
    assert_eq!(out, 0);
    release(&[b]);
    let mut buf = [0f32; 4];
    fails(sl_read(a, SL_COL_MAJOR, buf.as_mut_ptr() as *mut _, 16), SL_ERR_INVALID_HANDLE, "stale");
    still_works();
}

/// The statistics and scan calls refuse the null handle and a NULL out-pointer.
#[test]
fn statistics_and_scans_refuse_null_handles() {
    let a = vec_f32(4);
    type Call = Box<dyn Fn(sl_array, *mut sl_array) -> sl_status>;
    let calls: Vec<(&str, Call)> = vec![
        ("sl_reduce_dims", Box::new(|h, o| sl_reduce_dims(SL_NORM2, h, 1, o))),
        ("sl_var", Box::new(|h, o| sl_var(h, 0, 1, o))),
        ("sl_std", Box::new(|h, o| sl_std(h, SL_ALL_DIMS, 0, o))),
        ("sl_var_dims", Box::new(|h, o| sl_var_dims(h, 1, 0, o))),
        ("sl_std_dims", Box::new(|h, o| sl_std_dims(h, 1, 0, o))),
        ("sl_scan", Box::new(|h, o| sl_scan(SL_SCAN_MIN, h, 0, 1, o))),
        ("sl_scan_dims", Box::new(|h, o| sl_scan_dims(SL_SCAN_OR, h, 1, 0, o))),
        ("sl_cummax", Box::new(|h, o| sl_cummax(h, 0, o))),
        ("sl_cummin", Box::new(|h, o| sl_cummin(h, 0, o))),
        ("sl_cumand", Box::new(|h, o| sl_cumand(h, 0, o))),
        ("sl_cumor", Box::new(|h, o| sl_cumor(h, 0, o))),
    ];
    for (name, call) in &calls {
        let mut out = 7;
        fails(call(0, &mut out), SL_ERR_INVALID_HANDLE, "null handle");
        assert_eq!(out, 0, "{name} leaves the null handle");
        fails(call(a, std::ptr::null_mut()), SL_ERR_INVALID_ARGUMENT, "NULL");
        ok(call(a, &mut out));
        release(&[out]);
    }
    release(&[a]);
    still_works();
}

#[test]
fn null_pointers_and_bad_sizes() {
    let a = vec_f32(4);
    fails(sl_neg(a, std::ptr::null_mut()), SL_ERR_INVALID_ARGUMENT, "NULL");
    let mut out = 0;
    fails(
        sl_create(SL_F32, 1, std::ptr::null(), SL_COL_MAJOR, std::ptr::null(), 0, &mut out),
        SL_ERR_INVALID_ARGUMENT,
        "shape is NULL",
    );
    let dims = [4i64];
    fails(
        sl_create(SL_F32, 1, dims.as_ptr(), SL_COL_MAJOR, std::ptr::null(), 16, &mut out),
        SL_ERR_INVALID_ARGUMENT,
        "data is NULL",
    );
    let data = [0f32; 3];
    fails(
        sl_create(SL_F32, 1, dims.as_ptr(), SL_COL_MAJOR, data.as_ptr() as *const _, 12, &mut out),
        SL_ERR_INVALID_ARGUMENT,
        "needs 16",
    );
    fails(sl_read(a, SL_COL_MAJOR, std::ptr::null_mut(), 16), SL_ERR_INVALID_ARGUMENT, "NULL");
    let mut small = [0f32; 2];
    fails(sl_read(a, SL_COL_MAJOR, small.as_mut_ptr() as *mut _, 8), SL_ERR_INVALID_ARGUMENT, "needs 16");
    let neg = [-3i64];
    fails(sl_constant(SL_F32, 1, neg.as_ptr(), 0.0, &mut out), SL_ERR_INVALID_ARGUMENT, "negative dimension");
    let nine = [1i64; 9];
    fails(sl_constant(SL_F32, 9, nine.as_ptr(), 0.0, &mut out), SL_ERR_INVALID_ARGUMENT, "rank 9");
    let huge = [i64::MAX / 2, 4];
    fails(sl_constant(SL_F32, 2, huge.as_ptr(), 0.0, &mut out), SL_ERR_INVALID_ARGUMENT, "too large");
    let bad_bool = [0u8, 1, 2];
    let three = [3i64];
    fails(
        sl_create(SL_BOOL, 1, three.as_ptr(), SL_COL_MAJOR, bad_bool.as_ptr() as *const _, 3, &mut out),
        SL_ERR_INVALID_ARGUMENT,
        "0 or 1",
    );
    fails(sl_shape(a, std::ptr::null_mut(), 1), SL_ERR_INVALID_ARGUMENT, "NULL");
    let mut d = [0i64; 1];
    ok(sl_shape(a, d.as_mut_ptr(), 1));
    fails(sl_shape(a, d.as_mut_ptr(), 0), SL_ERR_INVALID_ARGUMENT, "capacity");
    release(&[a]);
    still_works();
}

#[test]
fn bad_codes() {
    let a = vec_f32(4);
    let mut out = 0;
    let dims = [4i64];
    fails(sl_constant(99, 1, dims.as_ptr(), 0.0, &mut out), SL_ERR_INVALID_ARGUMENT, "not an sl_dtype");
    fails(sl_unary(-1, a, &mut out), SL_ERR_INVALID_ARGUMENT, "not an sl_unary_op");
    fails(sl_binary(99, a, a, &mut out), SL_ERR_INVALID_ARGUMENT, "not an sl_binary_op");
    fails(sl_reduce(17, a, 0, &mut out), SL_ERR_INVALID_ARGUMENT, "not an sl_reduce_op");
    let mut buf = [0f32; 4];
    fails(sl_read(a, 5, buf.as_mut_ptr() as *mut _, 16), SL_ERR_INVALID_ARGUMENT, "not an sl_layout");
    fails(sl_shift(a, 0, 1, 7, 0.0, &mut out), SL_ERR_INVALID_ARGUMENT, "not an sl_boundary");
    fails(sl_cast(a, 15, &mut out), SL_ERR_INVALID_ARGUMENT, "not an sl_dtype");
    release(&[a]);
    still_works();
}

#[test]
fn shape_dtype_and_dimension_errors() {
    let (a, b) = (vec_f32(3), vec_f32(4));
    let mut out = 0;
    fails(sl_add(a, b, &mut out), SL_ERR_SHAPE_MISMATCH, "do not broadcast");
    let c = Arr::new(SL_F64, &[3], vec![V::F64(0.0); 3]).upload();
    let bools = Arr::new(SL_BOOL, &[3], vec![V::B(true); 3]).upload();
    fails(sl_add(bools, bools, &mut out), SL_ERR_DTYPE_MISMATCH, "add is not defined for bool");
    // f32 with f64 promotes to f64 (README "Type promotion"), for which `and` is not defined.
    fails(sl_and(a, c, &mut out), SL_ERR_DTYPE_MISMATCH, "and is not defined for f64");
    let i = Arr::new(SL_I32, &[3], vec![V::I32(1); 3]).upload();
    fails(sl_sin(i, &mut out), SL_ERR_DTYPE_MISMATCH, "sin is not defined for i32");
    fails(sl_select(a, a, a, &mut out), SL_ERR_DTYPE_MISMATCH, "must be bool");
    fails(sl_sum(a, 1, &mut out), SL_ERR_INVALID_ARGUMENT, "out of range");
    fails(sl_sum(a, 99, &mut out), SL_ERR_INVALID_ARGUMENT, "out of range");
    let dims = [5i64];
    fails(sl_reshape(a, 1, dims.as_ptr(), &mut out), SL_ERR_SHAPE_MISMATCH, "has 3 elements");
    let perm = [0, 0];
    let m = Arr::new(SL_F32, &[2, 3], vec![V::F32(1.0); 6]).upload();
    fails(sl_permute(m, perm.as_ptr(), 2, &mut out), SL_ERR_INVALID_ARGUMENT, "not a permutation");
    fails(sl_matmul(m, m, &mut out), SL_ERR_SHAPE_MISMATCH, "inner dimensions");
    fails(sl_matmul(i, i, &mut out), SL_ERR_DTYPE_MISMATCH, "one float or complex type");
    let (st, ct, sd) = ([1i64, 0], [2i64, 3], [1i64, 1]);
    fails(sl_section(m, st.as_ptr(), ct.as_ptr(), sd.as_ptr(), &mut out), SL_ERR_INVALID_ARGUMENT, "leaves the array");
    let zero = [0i64, 1];
    fails(sl_section(m, st.as_ptr(), ct.as_ptr(), zero.as_ptr(), &mut out), SL_ERR_INVALID_ARGUMENT, "stride 0");
    fails(sl_project(m, 1, 3, &mut out), SL_ERR_INVALID_ARGUMENT, "out of range");
    fails(sl_concat([a, m].as_ptr(), 2, 1, &mut out), SL_ERR_SHAPE_MISMATCH, "differ");
    fails(sl_gather(m, [i].as_ptr(), 1, &mut out), SL_ERR_INVALID_ARGUMENT, "needs 2 index arrays");
    // f32/f64 indices are floored; bool ones are refused.
    let flags = Arr::new(SL_BOOL, &[3], vec![V::B(true); 3]).upload();
    fails(sl_gather(m, [flags, flags].as_ptr(), 2, &mut out), SL_ERR_DTYPE_MISMATCH, "integers or f32/f64");
    release(&[flags]);
    fails(sl_iota(SL_F32, 1, dims.as_ptr(), 1, &mut out), SL_ERR_INVALID_ARGUMENT, "out of range");
    fails(sl_cumsum(a, SL_ALL_DIMS, &mut out), SL_ERR_INVALID_ARGUMENT, "needs a dimension");
    let empty = Arr::new(SL_F32, &[0], vec![]).upload();
    fails(sl_gather(empty, [i].as_ptr(), 1, &mut out), SL_ERR_INVALID_ARGUMENT, "no elements");
    release(&[empty]);
    // Results whose size overflows are refused up front, not computed wrongly.
    let reps = [i64::MAX / 2];
    fails(sl_tile(a, reps.as_ptr(), 1, &mut out), SL_ERR_INVALID_ARGUMENT, "too large");
    let (lo, hi) = ([i64::MAX / 4], [i64::MAX / 4]);
    fails(sl_pad(a, lo.as_ptr(), hi.as_ptr(), SL_BOUNDARY_FILL, 0.0, &mut out), SL_ERR_INVALID_ARGUMENT, "too large");
    assert_eq!(out, 0);
    release(&[a, b, c, i, m]);
    still_works();
}

#[test]
fn scope_misuse() {
    // Scopes are per thread: this test thread has none open.
    fails(sl_scope_end(), SL_ERR_INVALID_STATE, "without a matching");
    let a = vec_f32(2);
    fails(sl_keep(a), SL_ERR_INVALID_STATE, "outside any scope");
    ok(sl_scope_begin());
    fails(sl_keep(a), SL_ERR_INVALID_ARGUMENT, "not created in the current scope");
    ok(sl_scope_end());
    release(&[a]);
    still_works();
}

#[test]
fn last_error_names_the_call_and_its_site() {
    let a = vec_f32(3);
    let b = vec_f32(5);
    let mut out = 0;
    let line = line!() + 1;
    let st = sl_mul(a, b, &mut out);
    assert_eq!(st, SL_ERR_SHAPE_MISMATCH);
    let mut info: sl_error_info = unsafe { std::mem::zeroed() };
    ok(sl_last_error(&mut info));
    assert_eq!(info.status, SL_ERR_SHAPE_MISMATCH);
    let function = unsafe { CStr::from_ptr(info.function) }.to_str().unwrap();
    assert_eq!(function, "sl_mul");
    assert_ne!(info.call_pc, 0, "the caller's return address is recorded");
    assert!(!info.call_file.is_null(), "this test has debug information");
    let file = unsafe { CStr::from_ptr(info.call_file) }.to_str().unwrap();
    assert!(file.ends_with("errors.rs"), "call site file {file}");
    assert_eq!(info.call_line as u32, line, "call site line");
    let msg = unsafe { CStr::from_ptr(info.message) }.to_str().unwrap();
    assert!(msg.contains("errors.rs:"), "the message names the call site: {msg}");
    let mut name = std::ptr::null();
    ok(sl_status_name(st, &mut name));
    assert_eq!(unsafe { CStr::from_ptr(name) }.to_str().unwrap(), "SL_ERR_SHAPE_MISMATCH");
    release(&[a, b]);
}

/// Other tests' failing calls reach the handler from their threads at the same time, so
/// what it has seen is behind a lock.
type Seen = std::sync::Mutex<Vec<(sl_status, String)>>;

extern "C" fn count_errors(status: sl_status, info: *const sl_error_info, user: *mut std::ffi::c_void) -> i32 {
    let seen = unsafe { &*(user as *const Seen) };
    let f = unsafe { CStr::from_ptr((*info).function) }.to_string_lossy().into_owned();
    seen.lock().unwrap().push((status, f));
    0
}

#[test]
fn error_handlers_run_newest_first() {
    // Handlers are process-wide; other tests in this binary may fail calls concurrently,
    // so look only for this test's own call.
    // Static: another thread may still be running the handler after it is popped.
    static SEEN: Seen = Seen::new(Vec::new());
    ok(sl_push_error_handler(Some(count_errors), &SEEN as *const Seen as *mut _));
    let mut out = 0;
    let st = sl_transpose(0, &mut out);
    ok(sl_pop_error_handler());
    assert_eq!(st, SL_ERR_INVALID_HANDLE);
    let seen = SEEN.lock().unwrap();
    assert!(seen.iter().any(|(s, f)| *s == SL_ERR_INVALID_HANDLE && f == "sl_transpose"), "{seen:?}");
    fails(sl_push_error_handler(None, std::ptr::null_mut()), SL_ERR_INVALID_ARGUMENT, "NULL");
    still_works();
}

type Unary = extern "C" fn(sl_array, *mut sl_array) -> sl_status;
type Binary = extern "C" fn(sl_array, sl_array, *mut sl_array) -> sl_status;
type WithScalar = extern "C" fn(sl_array, f64, *mut sl_array) -> sl_status;
type AlongDim = extern "C" fn(sl_array, i32, *mut sl_array) -> sl_status;
/// A call that is meant to fail, given the out-handle to leave null.
type FailingCall = Box<dyn Fn(*mut sl_array) -> sl_status>;

macro_rules! named {
    ($t:ty: $($f:ident),* $(,)?) => { vec![$((stringify!($f), $f as $t)),*] };
}

/// The functions of `include/sluice.h` that return a handle through an out-pointer.
fn exports_with_out_handles() -> std::collections::BTreeSet<String> {
    let header = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/include/sluice.h")).unwrap();
    header
        .split(';')
        .map(|decl| decl.split_whitespace().collect::<Vec<_>>().join(" ").replace("const sl_array", ""))
        .filter(|d| d.contains("sl_array *out") || d.contains("sl_rng *out"))
        .filter_map(|d| Some(d.split("sl_status ").nth(1)?.split('(').next()?.to_string()))
        // A function type (`sl_apply_fn`) has no name before its parenthesis.
        .filter(|name| !name.is_empty())
        .collect()
}

/// Every export that returns a handle leaves the null handle when it fails, whichever
/// argument is wrong (a bad code or size is checked after the out-handle is cleared). The
/// header is read, so an export added later without a case here fails this test.
#[test]
fn every_failed_call_leaves_the_null_handle() {
    let a = vec_f32(4);
    let stale = vec_f32(2);
    release(&[stale]);
    let d = [4i64];
    let neg = [-1i64];
    let mut calls: Vec<(&str, FailingCall)> = Vec::new();
    let mut add = |name: &'static str, f: FailingCall| calls.push((name, f));
    add("sl_create", Box::new(move |o| sl_create(99, 1, d.as_ptr(), SL_COL_MAJOR, std::ptr::null(), 0, o)));
    add("sl_constant", Box::new(move |o| sl_constant(99, 1, d.as_ptr(), 0.0, o)));
    add("sl_scalar", Box::new(move |o| sl_scalar(SL_BOOL, 0.5, o)));
    add("sl_iota", Box::new(move |o| sl_iota(SL_F32, 1, d.as_ptr(), 3, o)));
    add("sl_identity", Box::new(move |o| sl_identity(SL_F32, -1, 2, o)));
    add("sl_retain", Box::new(move |o| sl_retain(stale, o)));
    add("sl_reference", Box::new(move |o| sl_reference(stale, o)));
    add("sl_unary", Box::new(move |o| sl_unary(-1, a, o)));
    add("sl_binary", Box::new(move |o| sl_binary(99, a, a, o)));
    add("sl_binary_scalar", Box::new(move |o| sl_binary_scalar(99, a, 1.0, o)));
    add("sl_scalar_binary", Box::new(move |o| sl_scalar_binary(99, 1.0, a, o)));
    add("sl_select", Box::new(move |o| sl_select(a, a, a, o)));
    add("sl_binary_scalar_i", Box::new(move |o| sl_binary_scalar_i(99, a, 1, o)));
    add("sl_scalar_binary_i", Box::new(move |o| sl_scalar_binary_i(SL_ADD, 1, stale, o)));
    add("sl_select_scalar", Box::new(move |o| sl_select_scalar(a, a, 1.0, o)));
    add("sl_scalar_select", Box::new(move |o| sl_scalar_select(stale, 1.0, a, o)));
    add("sl_cast", Box::new(move |o| sl_cast(a, 99, o)));
    add("sl_reshape", Box::new(move |o| sl_reshape(a, 1, neg.as_ptr(), o)));
    add("sl_permute", Box::new(move |o| sl_permute(a, [-1].as_ptr(), 1, o)));
    add("sl_section", Box::new(move |o| sl_section(a, &0, &-1, &1, o)));
    add("sl_project", Box::new(move |o| sl_project(a, 99, 0, o)));
    add("sl_shift", Box::new(move |o| sl_shift(a, 0, 1, 99, 0.0, o)));
    add("sl_rotate", Box::new(move |o| sl_rotate(a, -5, 1, o)));
    add("sl_pad", Box::new(move |o| sl_pad(a, &0, &0, 99, 0.0, o)));
    add("sl_tile", Box::new(move |o| sl_tile(a, d.as_ptr(), -1, o)));
    add("sl_broadcast_to", Box::new(move |o| sl_broadcast_to(a, 99, d.as_ptr(), o)));
    add("sl_concat", Box::new(move |o| sl_concat([a].as_ptr(), -1, 0, o)));
    add("sl_gather", Box::new(move |o| sl_gather(a, [a, a].as_ptr(), 2, o)));
    add("sl_gather_with", Box::new(move |o| sl_gather_with(a, [a].as_ptr(), 1, 99, 0.0, o)));
    add("sl_take_along", Box::new(move |o| sl_take_along(a, a, 0, 99, 0.0, o)));
    add("sl_interp1", Box::new(move |o| sl_interp1(a, a, 0, 99, 0.0, o)));
    add("sl_interp2", Box::new(move |o| sl_interp2(a, a, a, 0, 0, SL_INDEX_CLAMP, 0.0, o)));
    add("sl_scatter", Box::new(move |o| sl_scatter(a, [a].as_ptr(), 1, a, 99, o)));
    add("sl_rng_create", Box::new(move |o| sl_rng_create(99, 1, o)));
    add("sl_random_uniform", Box::new(move |o| sl_random_uniform(stale, SL_F32, 1, d.as_ptr(), o)));
    add("sl_random_normal", Box::new(move |o| sl_random_normal(stale, 99, 1, d.as_ptr(), o)));
    let mut rng = 0;
    assert_eq!(sl_rng_create(SL_RNG_PHILOX, 1, &mut rng), SL_OK);
    add("sl_random_uniform_range", Box::new(move |o| sl_random_uniform_range(rng, 2.0, 1.0, SL_F32, 1, d.as_ptr(), o)));
    add("sl_random_integers", Box::new(move |o| sl_random_integers(rng, 3, 3, SL_I32, 1, d.as_ptr(), o)));
    add("sl_random_exponential", Box::new(move |o| sl_random_exponential(rng, -1.0, SL_F64, 1, d.as_ptr(), o)));
    add("sl_random_bernoulli", Box::new(move |o| sl_random_bernoulli(stale, 0.5, 1, d.as_ptr(), o)));
    add("sl_random_poisson", Box::new(move |o| sl_random_poisson(rng, f64::NAN, SL_I64, 1, d.as_ptr(), o)));
    add("sl_random_gamma", Box::new(move |o| sl_random_gamma(rng, 0.0, 1.0, SL_F32, 1, d.as_ptr(), o)));
    add("sl_random_beta", Box::new(move |o| sl_random_beta(rng, 1.0, 1.0, SL_I32, 1, d.as_ptr(), o)));
    add("sl_random_chisquare", Box::new(move |o| sl_random_chisquare(rng, 1.0, SL_F64, -1, d.as_ptr(), o)));
    add("sl_random_sobol", Box::new(move |o| sl_random_sobol(0, 0, 4, SL_SOBOL_PLAIN, 0, SL_F64, o)));
    add("sl_reduce", Box::new(move |o| sl_reduce(99, a, 0, o)));
    add("sl_reduce_dims", Box::new(move |o| sl_reduce_dims(SL_SUM, stale, 1, o)));
    add("sl_var", Box::new(move |o| sl_var(a, 0, -1, o)));
    add("sl_std", Box::new(move |o| sl_std(stale, 0, 0, o)));
    add("sl_var_dims", Box::new(move |o| sl_var_dims(a, 0, 0, o)));
    add("sl_std_dims", Box::new(move |o| sl_std_dims(a, 2, 0, o)));
    add("sl_scan", Box::new(move |o| sl_scan(99, a, 0, 0, o)));
    add("sl_scan_dims", Box::new(move |o| sl_scan_dims(SL_SCAN_MAX, stale, 1, 1, o)));
    add("sl_matmul", Box::new(move |o| sl_matmul(a, a, o)));
    add("sl_dot", Box::new(move |o| sl_dot(a, stale, o)));
    add("sl_vdot", Box::new(move |o| sl_vdot(stale, a, o)));
    add("sl_outer", Box::new(move |o| sl_outer(a, stale, o)));
    add("sl_gemm", Box::new(move |o| sl_gemm(SL_NO_TRANS, a, 3, a, 1.0, 0, 0.0, o)));
    add("sl_gemm_c", Box::new(move |o| sl_gemm_c(SL_TRANS, a, SL_NO_TRANS, a, 1.0, 0.0, stale, 1.0, 0.0, o)));
    add("sl_fft", Box::new(move |o| sl_fft(a, 1, &99, SL_FFT_BACKWARD, o)));
    add("sl_ifft", Box::new(move |o| sl_ifft(stale, 1, &0, SL_FFT_BACKWARD, o)));
    add("sl_rfft", Box::new(move |o| sl_rfft(a, 1, &0, 99, o)));
    add("sl_irfft", Box::new(move |o| sl_irfft(a, 1, &0, 5, SL_FFT_BACKWARD, o)));
    add("sl_transpose", Box::new(move |o| sl_transpose(stale, o)));
    add("sl_binary_scalar_c", Box::new(move |o| sl_binary_scalar_c(SL_ADD, stale, 1.0, 2.0, o)));
    add("sl_scalar_binary_c", Box::new(move |o| sl_scalar_binary_c(SL_LT, 1.0, 2.0, a, o)));
    add("sl_scalar_c", Box::new(move |o| sl_scalar_c(SL_F64, 1.0, 2.0, o)));
    add("sl_constant_c", Box::new(move |o| sl_constant_c(SL_F64, 1, d.as_ptr(), 1.0, 2.0, o)));
    // Factorizations and solves: a null handle in, or a bad code (the two- and
    // three-result calls get the same out-handle in each slot here; `factor_calls_clear_
    // every_result` checks them apart).
    add("sl_lu", Box::new(move |o| sl_lu(0, o, o)));
    add("sl_lu_solve", Box::new(move |o| sl_lu_solve(a, a, 7, a, o)));
    add("sl_lu_unpack", Box::new(move |o| sl_lu_unpack(0, a, o, o, o)));
    add("sl_solve", Box::new(move |o| sl_solve(a, 0, o)));
    add("sl_inv", Box::new(move |o| sl_inv(0, o)));
    add("sl_det", Box::new(move |o| sl_det(stale, o)));
    add("sl_slogdet", Box::new(move |o| sl_slogdet(0, o, o)));
    add("sl_rcond", Box::new(move |o| sl_rcond(0, o)));
    add("sl_cholesky", Box::new(move |o| sl_cholesky(0, o)));
    add("sl_cholesky_solve", Box::new(move |o| sl_cholesky_solve(a, 0, o)));
    add(
        "sl_triangular_solve",
        Box::new(move |o| sl_triangular_solve(0, SL_LOWER, SL_NO_TRANS, SL_NON_UNIT_DIAG, a, o)),
    );
    // Sorts, searches and the data-dependent ops.
    add("sl_sort", Box::new(move |o| sl_sort(a, 0, 7, o)));
    add("sl_argsort", Box::new(move |o| sl_argsort(stale, 0, SL_ASCENDING, o)));
    add("sl_topk", Box::new(move |o| sl_topk(a, 1_000_000, 0, SL_DESCENDING, o, o)));
    add("sl_searchsorted", Box::new(move |o| sl_searchsorted(a, a, 5, o)));
    add("sl_nonzero", Box::new(move |o| sl_nonzero(stale, o)));
    add("sl_compress", Box::new(move |o| sl_compress(a, 0, o)));
    add("sl_unique", Box::new(move |o| sl_unique(0, o, o, o)));
    add("sl_histogram", Box::new(move |o| sl_histogram(a, stale, o)));
    add("sl_histogram_range", Box::new(move |o| sl_histogram_range(a, 0, 0.0, 1.0, o)));
    // Generators, shapes and the integer-valued roundings.
    add("sl_arange", Box::new(move |o| sl_arange(SL_F32, 0.0, 1.0, 0.0, o)));
    add("sl_arange_i", Box::new(move |o| sl_arange_i(99, 0, 4, 1, o)));
    add("sl_linspace", Box::new(move |o| sl_linspace(SL_F32, 0.0, 1.0, -1, 1, o)));
    add("sl_diag_matrix", Box::new(move |o| sl_diag_matrix(stale, 0, o)));
    add("sl_diagonal", Box::new(move |o| sl_diagonal(a, 0, o)));
    add("sl_triu", Box::new(move |o| sl_triu(stale, 0, o)));
    add("sl_tril", Box::new(move |o| sl_tril(a, 0, o)));
    add("sl_repeat", Box::new(move |o| sl_repeat(a, -1, 0, o)));
    add("sl_repeat_counts", Box::new(move |o| sl_repeat_counts(a, stale, 0, o)));
    add("sl_meshgrid", Box::new(move |o| sl_meshgrid([a].as_ptr(), 1, 99, o)));
    add("sl_flip", Box::new(move |o| sl_flip(a, [3].as_ptr(), 1, o)));
    add("sl_squeeze", Box::new(move |o| sl_squeeze(a, 0, o)));
    add("sl_expand_dims", Box::new(move |o| sl_expand_dims(a, 5, o)));
    add("sl_moveaxis", Box::new(move |o| sl_moveaxis(a, 0, 3, o)));
    add("sl_floor_to", Box::new(move |o| sl_floor_to(a, SL_F32, o)));
    add("sl_ceil_to", Box::new(move |o| sl_ceil_to(stale, SL_I32, o)));
    add("sl_round_to", Box::new(move |o| sl_round_to(a, 99, o)));
    add("sl_clamp", Box::new(move |o| sl_clamp(a, stale, a, o)));
    add("sl_clamp_scalar", Box::new(move |o| sl_clamp_scalar(stale, 0.0, 1.0, o)));
    add("sl_fma", Box::new(move |o| sl_fma(a, stale, a, o)));
    add("sl_inner_product", Box::new(move |o| sl_inner_product(99, SL_ADD, a, a, o)));
    add("sl_outer_product", Box::new(move |o| sl_outer_product(99, a, a, o)));
    let unary = named!(Unary: sl_neg, sl_abs, sl_sign, sl_sqrt, sl_rsqrt, sl_cbrt, sl_rcp, sl_exp, sl_exp2,
        sl_expm1, sl_log, sl_log2, sl_log10, sl_log1p, sl_sin, sl_cos, sl_tan, sl_asin, sl_acos, sl_atan, sl_sinh,
        sl_cosh, sl_tanh, sl_asinh, sl_acosh, sl_atanh, sl_erf, sl_floor, sl_ceil, sl_round, sl_trunc, sl_isnan,
        sl_isinf, sl_not, sl_conj, sl_real, sl_imag, sl_arg, sl_isfinite, sl_erfc, sl_erfinv, sl_lgamma, sl_tgamma);
    for (name, f) in unary {
        add(name, Box::new(move |o| f(stale, o)));
    }
    let binary = named!(Binary: sl_add, sl_sub, sl_mul, sl_div, sl_rem, sl_pow, sl_atan2, sl_hypot, sl_min, sl_max,
        sl_eq, sl_ne, sl_lt, sl_le, sl_gt, sl_ge, sl_and, sl_or, sl_xor, sl_complex, sl_polar, sl_mod, sl_shl, sl_shr,
        sl_copysign, sl_nextafter);
    for (name, f) in binary {
        add(name, Box::new(move |o| f(a, stale, o)));
    }
    let with_scalar = named!(WithScalar: sl_add_scalar, sl_sub_scalar, sl_rsub_scalar, sl_mul_scalar,
        sl_div_scalar, sl_rdiv_scalar, sl_pow_scalar, sl_min_scalar, sl_max_scalar);
    for (name, f) in with_scalar {
        add(name, Box::new(move |o| f(stale, 1.0, o)));
    }
    let along_dim = named!(AlongDim: sl_sum, sl_prod, sl_minval, sl_maxval, sl_mean, sl_any, sl_all, sl_count,
        sl_argmin, sl_argmax, sl_cumsum, sl_cumprod, sl_cummax, sl_cummin, sl_cumand, sl_cumor);
    for (name, f) in along_dim {
        add(name, Box::new(move |o| f(a, 99, o)));
    }
    // Applying a function: a NULL function, a bad option, outside a recording.
    add(
        "sl_apply_elements",
        Box::new(move |o| sl_apply_elements(None, std::ptr::null_mut(), &a, 1, std::ptr::null(), 0, o, 1)),
    );
    add(
        "sl_apply_blocks",
        Box::new(move |o| sl_apply_blocks(None, std::ptr::null_mut(), &stale, 1, std::ptr::null(), o, 1)),
    );
    add("sl_apply_block_length", Box::new(|o| sl_apply_block_length(o)));
    let mut mode = 0;
    let mut outputs = [0xdead_u64; 2];
    let st = sl_macro_begin(std::ptr::null(), &a, 1, std::ptr::null(), 0, outputs.as_mut_ptr(), 2, &mut mode);
    fails(st, SL_ERR_INVALID_ARGUMENT, "name is NULL");
    assert_eq!(outputs, [0, 0], "sl_macro_begin clears its outputs");

    let mut covered: std::collections::BTreeSet<String> = calls.iter().map(|(n, _)| n.to_string()).collect();
    covered.insert("sl_macro_begin".into());
    let exports = exports_with_out_handles();
    assert!(exports.contains("sl_add") && exports.contains("sl_rng_create"), "header parsed: {exports:?}");
    let missing: Vec<_> = exports.difference(&covered).cloned().collect();
    assert!(missing.is_empty(), "exports with an out-handle and no case here: {missing:?}");
    for (name, call) in &calls {
        let mut out: sl_array = 0xdead_beef;
        let st = call(&mut out);
        assert_ne!(st, SL_OK, "{name} was meant to fail");
        assert_eq!(out, 0, "{name} failed with {st} ({}) and left {out:#x} in its out-handle", last_error().1);
    }
    release(&[a]);
    assert_eq!(sl_rng_destroy(rng), SL_OK);
    still_works();
}

/// The factorization calls with several results clear each of them when they fail, and
/// name the null handle.
#[test]
fn factor_calls_clear_every_result() {
    let (mut p, mut q, mut r) = (1u64, 2u64, 3u64);
    fails(sl_lu(0, &mut p, &mut q), SL_ERR_INVALID_HANDLE, "null handle");
    assert_eq!((p, q), (0, 0));
    (p, q) = (1, 2);
    fails(sl_slogdet(0, &mut p, &mut q), SL_ERR_INVALID_HANDLE, "null handle");
    assert_eq!((p, q), (0, 0));
    (p, q) = (1, 2);
    fails(sl_lu_unpack(0, 0, &mut p, &mut q, &mut r), SL_ERR_INVALID_HANDLE, "null handle");
    assert_eq!((p, q, r), (0, 0, 0));
    fails(sl_lu(0, &mut p, std::ptr::null_mut()), SL_ERR_INVALID_ARGUMENT, "NULL");
    still_works();
}
