//! Scans (cumsum, cumprod) along every axis against the plain reference, on the executor
//! the environment selects (scripts/test.sh runs it on the CPU executor, on Vulkan, on
//! Vulkan with `SLUICE_VULKAN_BLOCKED_SCAN=on` and with `SLUICE_VULKAN_NO_HANDWRITTEN=on`),
//! for every dtype scans take and awkward shapes (empty ones included), on fresh random
//! data, plain and with a fused prologue. On Vulkan it also checks which path ran: the
//! blocked scan (`kernels/scan.comp`) where docs/internals.md says it is taken, the loop
//! per row elsewhere.

mod common;

use common::reference as r;
use common::*;
use sluice::backend::vulkan::Handwritten;
use sluice::*;

const SHAPES: [&[usize]; 12] = [
    &[0],
    &[1],
    &[31],
    &[1000],
    &[1 << 20 | 3],
    &[0, 3],
    &[3, 0],
    &[1000, 3],
    &[3, 1000],
    &[257, 129],
    &[2, 9000],
    &[40000, 2],
];

/// Every dtype but bool (scans of bools are refused).
const DTYPES: [sl_dtype; 5] = [SL_F32, SL_F64, SL_I32, SL_I64, SL_U8];

/// Whether the Vulkan executor scans this in blocks, as docs/internals.md states the
/// policy: where a reduction would take the tree form (few long rows on GPUs, axes longer
/// than a CPU-type driver lets a shader loop), everywhere with the switch (the blocks of
/// every shape here fit the device's workgroup count, but not always the count
/// `SLUICE_VULKAN_MAX_GROUPS` sets).
fn takes_blocks(shape: &[usize], axis: usize) -> bool {
    use sluice::backend::vulkan::{AXIS_TREE_MAX_ROWS, AXIS_TREE_MIN_EXTENT, CPU_DRIVER_LOOP_LIMIT};
    let (extent, rows) =
        (shape[axis], shape.iter().enumerate().filter(|&(d, _)| d != axis).map(|(_, &n)| n).product::<usize>());
    let gpu = matches!(device().device_type, SL_DEVICE_DISCRETE_GPU | SL_DEVICE_INTEGRATED_GPU);
    let few_long_rows = extent >= AXIS_TREE_MIN_EXTENT && rows <= AXIS_TREE_MAX_ROWS;
    // The prologues here cost one loop iteration per point: half the driver's loop limit.
    let beyond_loop_limit = device().device_type == SL_DEVICE_VULKAN_CPU && extent > CPU_DRIVER_LOOP_LIMIT / 2;
    let policy = switched_on("SLUICE_VULKAN_BLOCKED_SCAN")
        || (few_long_rows && (gpu || switched_on("SLUICE_VULKAN_AXIS_TREE")))
        || beyond_loop_limit;
    let max_groups = std::env::var("SLUICE_VULKAN_MAX_GROUPS").map_or(usize::MAX, |v| v.parse().unwrap());
    // One workgroup per block of 1,024 points (docs/internals.md).
    let fits = rows * extent.div_ceil(1024).max(1) <= max_groups;
    policy && fits && !switched_on("SLUICE_VULKAN_NO_HANDWRITTEN")
}

/// Tolerances (absolute, relative) for a float scan of `input` of type `dt`: the bound
/// docs/internals.md states. Sums: any order of adding n terms is off from the exact sum
/// by at most about (depth of its tree) u sum|x|; both orders here accumulate in f64 where
/// the device has it (the CPU always), so f32 results differ by their own rounding.
/// Products: relative error of the same kind, absolute among subnormals, where long
/// products of factors below 1 end: each product there rounds by up to half a subnormal
/// step, so the error grows by up to a step for each product of the result that is
/// subnormal (f64: a product of factors in 0.8..1.2 usually stays subnormal for a few
/// thousand steps, but a seed took over 8,192; f32 results round from an f64 running
/// product: one step).
fn tolerance(dt: sl_dtype, prod: bool, input: &Arr, want: &Arr) -> (f64, f64) {
    let eps = if dt == SL_F32 { 1e-6 } else { 1e-14 };
    if prod {
        let subnormal = want.v.iter().filter(|v| v.f() != 0.0 && v.f().abs() < f64::MIN_POSITIVE).count();
        let steps =
            if dt == SL_F32 { f64::from(f32::from_bits(1)) } else { subnormal.max(1) as f64 * f64::from_bits(1) };
        (steps, 64.0 * eps)
    } else {
        let sum_abs: f64 = input.v.iter().map(|v| v.f().abs()).filter(|x| x.is_finite()).sum();
        (4.0 * eps * sum_abs, 8.0 * eps)
    }
}

#[test]
fn scans_match_reference_on_every_path() {
    let mut rng = rng("scans_match_reference_on_every_path");
    for shape in SHAPES {
        for dt in DTYPES {
            for prod in [false, true] {
                let (lo, hi) = match (prod, dt) {
                    (_, SL_U8) | (true, SL_I32 | SL_I64) => (0.0, 3.0),
                    (true, _) => (0.8, 1.2),
                    _ => (-100.0, 100.0),
                };
                let a = rand_arr(&mut rng, dt, shape, lo, hi, false);
                let h = a.upload();
                let negated = negated(&a);
                for axis in 0..shape.len() {
                    for fused in [false, true] {
                        let (src, input) = if fused { (negate(h), &negated) } else { (h, &a) };
                        let (got, ran) = read_counting(Handwritten::Scan, || {
                            let mut out = 0;
                            ok(if prod {
                                sl_cumprod(src, axis as i32, &mut out)
                            } else {
                                sl_cumsum(src, axis as i32, &mut out)
                            });
                            out
                        });
                        let what = format!("scan prod={prod} {dt} {shape:?} axis {axis} fused {fused}");
                        let want = r::scan(prod, input, axis);
                        let (abs, rel) = tolerance(dt, prod, input, &want);
                        assert_near(&what, &got, &want, abs, rel);
                        let picked = numel(shape) > 0 && takes_blocks(shape, axis);
                        assert_handwritten(&what, "blocked scan", ran, picked);
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

/// A scan fused with a reduction and a stored value over the same rows (one kernel): the
/// scan gives the same bits as alone, the reduction as alone, and both match the reference.
#[test]
fn scan_beside_reduction_and_store() {
    let mut rng = rng("scan_beside_reduction_and_store");
    // Not beyond the driver's loop limit: there the reduction alone takes the tree form,
    // beside the scan it runs on the CPU (docs/internals.md).
    for (shape, axis) in [(&[5000usize, 3][..], 0), (&[3, 5000][..], 1), (&[20000][..], 0)] {
        for dt in [SL_F32, SL_F64, SL_I64] {
            let a = rand_arr(&mut rng, dt, shape, -50.0, 50.0, false);
            let h = a.upload();
            let src = negate(h);
            let negated = negated(&a);
            let mut outs = [0; 3];
            ok(sl_cumsum(src, axis as i32, &mut outs[0]));
            ok(sl_reduce(SL_SUM, src, axis as i32, &mut outs[1]));
            ok(sl_unary(SL_NEG, src, &mut outs[2]));
            ok(sl_eval(outs.as_ptr(), outs.len() as i32));
            let (mut alone_scan, mut alone_sum) = (0, 0);
            ok(sl_cumsum(src, axis as i32, &mut alone_scan));
            ok(sl_eval(&alone_scan, 1));
            ok(sl_reduce(SL_SUM, src, axis as i32, &mut alone_sum));
            let what = format!("{dt} {shape:?} axis {axis}");
            let want = r::scan(false, &negated, axis);
            let (abs, rel) = tolerance(dt, false, &negated, &want);
            assert_near(&format!("cumsum {what}"), &download(outs[0]), &want, abs, rel);
            assert_near(&format!("sum {what}"), &download(outs[1]), &r::reduce(SL_SUM, &negated, Some(axis)), abs, rel);
            assert_near(&format!("store {what}"), &download(outs[2]), &a, 0.0, 0.0);
            assert_near(&format!("cumsum fused vs alone {what}"), &download(outs[0]), &download(alone_scan), 0.0, 0.0);
            assert_near(&format!("sum fused vs alone {what}"), &download(outs[1]), &download(alone_sum), 0.0, 0.0);
            release(&outs);
            release(&[alone_scan, alone_sum, src, h]);
        }
    }
}
