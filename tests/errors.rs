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
    let mut buf = [0f32; 4];
    fails(sl_read(a, SL_COL_MAJOR, buf.as_mut_ptr() as *mut _, 16), SL_ERR_INVALID_HANDLE, "stale");
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
    fails(sl_binary(19, a, a, &mut out), SL_ERR_INVALID_ARGUMENT, "not an sl_binary_op");
    fails(sl_reduce(10, a, 0, &mut out), SL_ERR_INVALID_ARGUMENT, "not an sl_reduce_op");
    let mut buf = [0f32; 4];
    fails(sl_read(a, 5, buf.as_mut_ptr() as *mut _, 16), SL_ERR_INVALID_ARGUMENT, "not an sl_layout");
    fails(sl_shift(a, 0, 1, 7, 0.0, &mut out), SL_ERR_INVALID_ARGUMENT, "not an sl_boundary");
    fails(sl_cast(a, 6, &mut out), SL_ERR_INVALID_ARGUMENT, "not an sl_dtype");
    release(&[a]);
    still_works();
}

#[test]
fn shape_dtype_and_dimension_errors() {
    let (a, b) = (vec_f32(3), vec_f32(4));
    let mut out = 0;
    fails(sl_add(a, b, &mut out), SL_ERR_SHAPE_MISMATCH, "do not broadcast");
    let c = Arr::new(SL_F64, &[3], vec![V::F64(0.0); 3]).upload();
    fails(sl_add(a, c, &mut out), SL_ERR_DTYPE_MISMATCH, "f32 and f64");
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
    fails(sl_matmul(i, i, &mut out), SL_ERR_DTYPE_MISMATCH, "f32 or two f64");
    let (st, ct, sd) = ([1i64, 0], [2i64, 3], [1i64, 1]);
    fails(sl_section(m, st.as_ptr(), ct.as_ptr(), sd.as_ptr(), &mut out), SL_ERR_INVALID_ARGUMENT, "leaves the array");
    let zero = [0i64, 1];
    fails(sl_section(m, st.as_ptr(), ct.as_ptr(), zero.as_ptr(), &mut out), SL_ERR_INVALID_ARGUMENT, "stride 0");
    fails(sl_project(m, 1, 3, &mut out), SL_ERR_INVALID_ARGUMENT, "out of range");
    fails(sl_concat([a, m].as_ptr(), 2, 1, &mut out), SL_ERR_SHAPE_MISMATCH, "differ");
    fails(sl_gather(m, [i].as_ptr(), 1, &mut out), SL_ERR_INVALID_ARGUMENT, "needs 2 index arrays");
    fails(sl_gather(m, [a, a].as_ptr(), 2, &mut out), SL_ERR_DTYPE_MISMATCH, "integers");
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

extern "C" fn count_errors(status: sl_status, info: *const sl_error_info, user: *mut std::ffi::c_void) -> i32 {
    let seen = unsafe { &mut *(user as *mut Vec<(sl_status, String)>) };
    let f = unsafe { CStr::from_ptr((*info).function) }.to_string_lossy().into_owned();
    seen.push((status, f));
    0
}

#[test]
fn error_handlers_run_newest_first() {
    // Handlers are process-wide; other tests in this binary may fail calls concurrently,
    // so look only for this test's own call.
    let mut seen: Vec<(sl_status, String)> = Vec::new();
    ok(sl_push_error_handler(Some(count_errors), &mut seen as *mut _ as *mut _));
    let mut out = 0;
    let st = sl_transpose(0, &mut out);
    ok(sl_pop_error_handler());
    assert_eq!(st, SL_ERR_INVALID_HANDLE);
    assert!(seen.iter().any(|(s, f)| *s == SL_ERR_INVALID_HANDLE && f == "sl_transpose"), "{seen:?}");
    fails(sl_push_error_handler(None, std::ptr::null_mut()), SL_ERR_INVALID_ARGUMENT, "NULL");
    still_works();
}
