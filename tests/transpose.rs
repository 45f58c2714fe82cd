//! Copies through a permutation (transposes, and permutes that move the innermost
//! dimension) against the plain reference, on the executor the environment selects,
//! for every dtype and awkward shapes (empty ones included), on fresh random data.
//!
//! A step that is nothing but such a copy comes from a macro section whose output is a
//! permuted view of its input (a section's views of its inputs stay ops). On Vulkan the
//! test also checks which kernel ran: the blocked copy (`kernels/transpose.comp`) where
//! the input's contiguous dimension is not the output's, never with
//! `SLUICE_VULKAN_NO_HANDWRITTEN=on` (scripts/test.sh runs both), and not for a permute
//! fused with other work.

mod common;

use common::reference as r;
use common::*;
use sluice::backend::vulkan::Handwritten;
use sluice::*;

/// (shape, permutation) pairs: 2-D transposes, 3-D permutes that move the innermost
/// dimension, and some that keep it (copied by the generated kernel).
fn cases() -> Vec<(Vec<usize>, Vec<usize>)> {
    let mut c: Vec<(Vec<usize>, Vec<usize>)> = [
        vec![0, 3],
        vec![3, 0],
        vec![1, 1],
        vec![1, 31],
        vec![31, 1],
        vec![1000, 3],
        vec![3, 1000],
        vec![257, 129],
        vec![1027, 1021],
    ]
    .into_iter()
    .map(|s| (s, vec![1, 0]))
    .collect();
    for perm in [[1, 0, 2], [2, 0, 1], [1, 2, 0], [2, 1, 0], [0, 2, 1]] {
        c.push((vec![33, 5, 40], perm.to_vec()));
    }
    c.push((vec![1, 70, 9], vec![2, 1, 0]));
    c.push((vec![4, 0, 7], vec![2, 0, 1]));
    c
}

/// The permute of `a`: output dimension d is input dimension `perm[d]`.
fn reference(a: &Arr, perm: &[usize]) -> Arr {
    let shape: Vec<usize> = perm.iter().map(|&p| a.shape[p]).collect();
    r::remap(
        a,
        &shape,
        |i| {
            let mut src = vec![0; perm.len()];
            for (d, &p) in perm.iter().enumerate() {
                src[p] = i[d];
            }
            Some(src)
        },
        V::B(false),
    )
}

/// Whether the copy is a transpose in the executor's sense: the output's first
/// dimension of more than one point is not the input's (with a dense input).
fn moves_inner_dimension(shape: &[usize], perm: &[usize]) -> bool {
    let out_first = perm.iter().position(|&p| shape[p] > 1);
    let in_first = shape.iter().position(|&n| n > 1);
    match (out_first, in_first) {
        (Some(o), Some(i)) => perm[o] != i,
        _ => false,
    }
}

/// `permute(x)` as the only output of a macro section over `x`: a pure copy step.
fn permute_in_section(x: sl_array, perm: &[usize]) -> sl_array {
    let name = std::ffi::CString::new(format!("permute {perm:?}")).unwrap();
    let perm: Vec<i32> = perm.iter().map(|&p| p as i32).collect();
    let (mut out, mut mode) = ([0], 0);
    ok(sl_macro_begin(name.as_ptr(), &x, 1, std::ptr::null(), 0, out.as_mut_ptr(), 1, &mut mode));
    if mode == SL_MACRO_RECORD {
        ok(sl_permute(x, perm.as_ptr(), perm.len() as i32, &mut out[0]));
        ok(sl_macro_end(out.as_ptr(), 1));
    }
    out[0]
}

#[test]
fn permuted_copies_match_reference() {
    let mut rng = rng("permuted_copies_match_reference");
    let handwritten = on_vulkan() && !switched_on("SLUICE_VULKAN_NO_HANDWRITTEN");
    for (shape, perm) in cases() {
        for dt in ALL_DTYPES {
            let a = rand_arr(&mut rng, dt, &shape, -1000.0, 1000.0, true);
            let want = reference(&a, &perm);
            let x = a.upload();
            // Twice: recorded, then replayed.
            for run in ["recorded", "replayed"] {
                let what = format!("permute {perm:?} of {dt} {shape:?} ({run})");
                let (got, ran) = read_counting(Handwritten::Transpose, || permute_in_section(x, &perm));
                assert_close(&what, &got, &want, 0.0);
                let expected = handwritten && numel(&shape) > 0 && moves_inner_dimension(&shape, &perm);
                assert_eq!(ran, expected, "{what}: the blocked copy kernel ran: {ran}, expected {expected}");
            }
            // A permute fused with other work is the generated kernel's.
            let before = Handwritten::Transpose.dispatches();
            let (mut n1, mut n2, mut t) = (0, 0, 0);
            let op = if dt == SL_BOOL { SL_NOT } else { SL_NEG };
            ok(sl_unary(op, x, &mut n1));
            let p: Vec<i32> = perm.iter().map(|&p| p as i32).collect();
            ok(sl_permute(n1, p.as_ptr(), p.len() as i32, &mut n2));
            ok(sl_unary(op, n2, &mut t));
            assert_close(&format!("neg(permute(neg x)) {perm:?} of {dt} {shape:?}"), &download(t), &want, 0.0);
            assert_eq!(Handwritten::Transpose.dispatches(), before, "a fused permute took the blocked copy");
            release(&[n1, n2, t, x]);
        }
    }
}
