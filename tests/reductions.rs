//! Reductions over whole arrays and along long axes, on the executor the environment
//! selects (scripts/test.sh runs it on the CPU executor, on Vulkan, on Vulkan with
//! `SLUICE_VULKAN_AXIS_TREE=on` and with `SLUICE_VULKAN_NO_HANDWRITTEN=on`): every op and
//! dtype against the plain reference, on fresh random data of awkward sizes (empty ones
//! included), plain and with a fused prologue. On Vulkan it also checks which path ran:
//! the hand-written final pass (`kernels/reduce.comp`) for every reduction over
//! everything and for those along an axis that take the tree form, unless switched off.

mod common;

use common::reference as r;
use common::*;
use sluice::backend::vulkan::Handwritten;
use sluice::*;

/// Shapes of awkward sizes; each is reduced over everything and along every axis.
const SHAPES: [&[usize]; 15] = [
    &[0],
    &[1],
    &[31],
    &[1000],
    &[1 << 20 | 3],
    &[0, 3],
    &[3, 0],
    &[1, 1],
    &[1000, 3],
    &[3, 1000],
    &[257, 129],
    &[5000, 3],
    &[2, 9000],
    &[4097],
    &[2, 70000],
];

/// Whether the Vulkan executor reduces this in a tree form (with the hand-written final
/// pass), as docs/internals.md states the policy: always over everything; along an axis,
/// for few long rows on GPUs (or with `SLUICE_VULKAN_AXIS_TREE=on`), and on CPU-type
/// devices for axes longer than their drivers let a shader loop.
fn takes_tree(shape: &[usize], axis: Option<usize>) -> bool {
    use sluice::backend::vulkan::{AXIS_TREE_MAX_ROWS, AXIS_TREE_MIN_EXTENT, CPU_DRIVER_LOOP_LIMIT};
    let Some(a) = axis else { return true };
    let (extent, rows) = (shape[a], numel(shape) / shape[a].max(1));
    let gpu = matches!(device().device_type, SL_DEVICE_DISCRETE_GPU | SL_DEVICE_INTEGRATED_GPU);
    let few_long_rows = extent >= AXIS_TREE_MIN_EXTENT && rows <= AXIS_TREE_MAX_ROWS;
    let beyond_loop_limit = device().device_type == SL_DEVICE_VULKAN_CPU && extent >= CPU_DRIVER_LOOP_LIMIT;
    (few_long_rows && (gpu || switched_on("SLUICE_VULKAN_AXIS_TREE"))) || beyond_loop_limit
}

fn domain(op: sl_reduce_op, dt: sl_dtype) -> (f64, f64) {
    match (op, dt) {
        (SL_PROD, SL_U8) => (1.0, 2.0),
        (SL_PROD, _) => (0.5, 1.5),
        _ => (-100.0, 100.0),
    }
}

#[test]
fn reductions_match_reference_on_every_path() {
    let mut rng = rng("reductions_match_reference_on_every_path");
    for shape in SHAPES {
        for dt in ALL_DTYPES {
            for op in 0..10 {
                if matches!(op, SL_SUM | SL_PROD | SL_MEAN) && dt == SL_BOOL {
                    continue;
                }
                let (lo, hi) = domain(op, dt);
                let a = rand_arr(&mut rng, dt, shape, lo, hi, op != SL_PROD);
                let h = a.upload();
                let negated = negated(&a);
                let axes = std::iter::once(None).chain((0..shape.len()).map(Some));
                for axis in axes {
                    for fused in [false, true] {
                        let (src, input) = if fused { (negate(h), &negated) } else { (h, &a) };
                        let (got, ran) = read_counting(Handwritten::Reduce, || {
                            let mut out = 0;
                            ok(sl_reduce(op, src, axis.map_or(SL_ALL_DIMS, |d| d as i32), &mut out));
                            out
                        });
                        let what = format!("reduce {op} {dt} {shape:?} axis {axis:?} fused {fused}");
                        let want = r::reduce(op, input, axis);
                        // Float sums accumulate in f64 on every path: a few roundings of the
                        // magnitudes summed.
                        let sum_abs: f64 = input.v.iter().map(|v| v.f().abs()).filter(|x| x.is_finite()).sum();
                        let eps = if dt == SL_F32 { 1e-6 } else { 1e-14 };
                        assert_near(&what, &got, &want, 4.0 * eps * sum_abs, 8.0 * eps);
                        assert_handwritten(&what, "hand-written final pass", ran, takes_tree(shape, axis));
                        if fused {
                            release(&[src]);
                        }
                    }
                }
                release(&[h]);
            }
        }
    }
}

/// Several reductions of one fused expression, evaluated together (one kernel, several
/// partials per workgroup), over everything and along a long axis.
#[test]
fn several_reductions_of_one_expression() {
    let mut rng = rng("several_reductions_of_one_expression");
    for (shape, axis) in [(&[70001usize][..], None), (&[6000, 2][..], Some(0)), (&[3, 5000][..], Some(1))] {
        for dt in [SL_F32, SL_F64, SL_I32] {
            let a = rand_arr(&mut rng, dt, shape, -50.0, 50.0, false);
            let h = a.upload();
            let src = negate(h);
            let negated = negated(&a);
            let ops = [SL_SUM, SL_MAXVAL, SL_ARGMIN, SL_MEAN];
            let mut outs = [0; 4];
            for (op, out) in ops.iter().zip(&mut outs) {
                ok(sl_reduce(*op, src, axis.map_or(SL_ALL_DIMS, |d: usize| d as i32), out));
            }
            ok(sl_eval(outs.as_ptr(), outs.len() as i32));
            let sum_abs: f64 = negated.v.iter().map(|v| v.f().abs()).sum();
            let eps = if dt == SL_F32 { 1e-6 } else { 1e-14 };
            for (op, out) in ops.iter().zip(outs) {
                let what = format!("reduce {op} {dt} {shape:?} axis {axis:?} (one of several)");
                assert_near(&what, &download(out), &r::reduce(*op, &negated, axis), 4.0 * eps * sum_abs, 8.0 * eps);
            }
            release(&outs);
            release(&[src, h]);
        }
    }
}
