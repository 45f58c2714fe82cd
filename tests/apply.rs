//! Applying a function to pieces: `sl_apply_elements` and `sl_apply_blocks`.

mod common;

use std::ffi::c_void;

use common::*;
use sluice::*;

/// The C function for closure type `F`: one function pointer per closure type, so each
/// closure is its own cache key (as each C function is).
unsafe extern "C" fn trampoline<F: FnMut(&[sl_array], &mut [sl_array]) -> sl_status>(
    pieces: *const sl_array,
    n_in: i32,
    outputs: *mut sl_array,
    n_out: i32,
    user: *mut c_void,
) -> sl_status {
    let f = unsafe { &mut *(user as *mut F) };
    let pieces = unsafe { std::slice::from_raw_parts(pieces, n_in as usize) };
    let outputs = unsafe { std::slice::from_raw_parts_mut(outputs, n_out as usize) };
    f(pieces, outputs)
}

fn apply_elements<F: FnMut(&[sl_array], &mut [sl_array]) -> sl_status>(
    f: &mut F,
    inputs: &[sl_array],
    outputs: &mut [sl_array],
) -> sl_status {
    sl_apply_elements(
        Some(trampoline::<F>),
        f as *mut F as *mut c_void,
        inputs.as_ptr(),
        inputs.len() as i32,
        std::ptr::null(),
        0,
        outputs.as_mut_ptr(),
        outputs.len() as i32,
    )
}

#[test]
fn smoke() {
    let mut rng = rng("smoke");
    let a = rand_arr(&mut rng, SL_F32, &[10, 1], -1.0, 1.0, false);
    let b = rand_arr(&mut rng, SL_F32, &[1, 10], -1.0, 1.0, false);
    let (ha, hb) = (a.upload(), b.upload());
    let mut calls = 0;
    let mut f = |p: &[sl_array], out: &mut [sl_array]| {
        calls += 1;
        let mut t = 0;
        let st = sl_mul(p[0], p[1], &mut t);
        if st != SL_OK {
            return st;
        }
        sl_add_scalar(t, 1.0, &mut out[0])
    };
    let mut out = [0];
    ok(apply_elements(&mut f, &[ha, hb], &mut out));
    let got = download(out[0]);
    assert_eq!(got.shape, vec![10, 10]);
    for i in 0..10 {
        for j in 0..10 {
            let want = a.at(&[i, 0]).f() as f32 * b.at(&[0, j]).f() as f32 + 1.0;
            assert_eq!(got.at(&[i, j]).f() as f32, want);
        }
    }
    let mut out2 = [0];
    ok(apply_elements(&mut f, &[ha, hb], &mut out2));
    assert_eq!(download(out2[0]).v, got.v);
    assert_eq!(calls, 1);
}
