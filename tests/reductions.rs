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
use rand::Rng;
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

/// Sum of `xs` with Neumaier's compensation: for these tests, exact to about one f64
/// rounding of the result, a reference for the f32 reductions (which accumulate in f64).
fn compensated_sum(xs: &[f64]) -> f64 {
    let (mut s, mut c) = (0f64, 0f64);
    for &x in xs {
        let t = s + x;
        c += if s.abs() >= x.abs() { (s - t) + x } else { (x - t) + s };
        s = t;
    }
    s + c
}

/// The sum (or dot, or mean) `got` of f32 values is `exact` rounded to f32, give or take one
/// f32 ulp (a different f64 summation order may round `exact` to its f32 neighbour), plus
/// the worst error of any order of f64 additions: `n` roundings of `magnitude` (the sum of
/// the absolute values) at 2^-53 each, over `divisor` for a mean.
#[track_caller]
fn assert_f64_accumulated(what: &str, got: f32, exact: f64, n: usize, magnitude: f64, divisor: f64) {
    let want = exact as f32;
    let ulp = (want.abs().next_up() - want.abs()) as f64;
    let bound = ulp + n as f64 * magnitude * 2f64.powi(-53) / divisor;
    assert!(
        (got as f64 - want as f64).abs() <= bound,
        "{what}: got {got:e}, the f64 sum rounds to {want:e} (exactly {exact:e}), allowed {bound:e}"
    );
}

/// Reads a rank-0 f32 array.
fn read_f32(h: sl_array) -> f32 {
    let a = download(h);
    match a.v[..] {
        [V::F32(x)] => x,
        _ => panic!("expected one f32, got {:?}", a.v),
    }
}

/// f32 sums and means accumulate in f64 (as the header says) on every path: a power of two
/// of at least 2^24 followed by ones (each one alone is lost against it in f32, but not
/// in f64), over everything and along an axis; random arrays against a compensated f64
/// sum.
#[test]
fn f32_sums_accumulate_in_f64() {
    let mut rng = rng("f32_sums_accumulate_in_f64");
    let mut cases: Vec<(String, Vec<f32>)> = Vec::new();
    for _ in 0..4 {
        let big = 2f32.powi(rng.random_range(24..30));
        let ones = rng.random_range(31..3000);
        let mut xs = vec![big];
        xs.extend(std::iter::repeat_n(1f32, ones));
        cases.push((format!("2^{} then {ones} ones", big.log2()), xs));
    }
    for _ in 0..6 {
        let n = rng.random_range(1..300_000);
        let scale = 10f32.powi(rng.random_range(-3..6));
        let xs = (0..n).map(|_| (rng.random::<f32>() * 2.0 - 0.9) * scale).collect();
        cases.push((format!("{n} random values up to {scale:e}"), xs));
    }
    for (what, xs) in &cases {
        let n = xs.len();
        let wide: Vec<f64> = xs.iter().map(|&x| x as f64).collect();
        let exact = compensated_sum(&wide);
        let magnitude: f64 = wide.iter().map(|x| x.abs()).sum();
        // Over everything, then along dimension 0 of an n x 1 array (each row's loop) and
        // along dimension 1 of a 1 x n one (lanes folded point by point).
        for (dims, dim) in [(vec![n as i64], SL_ALL_DIMS), (vec![n as i64, 1], 0), (vec![1, n as i64], 1)] {
            let mut h = 0;
            ok(sl_create(
                SL_F32,
                dims.len() as i32,
                dims.as_ptr(),
                SL_COL_MAJOR,
                xs.as_ptr() as *const _,
                n * 4,
                &mut h,
            ));
            let (mut s, mut m) = (0, 0);
            ok(sl_sum(h, dim, &mut s));
            ok(sl_mean(h, dim, &mut m));
            let how = format!("{what}, dims {dims:?} along {dim}");
            assert_f64_accumulated(&format!("sum of {how}"), read_f32(s), exact, n, magnitude, 1.0);
            assert_f64_accumulated(&format!("mean of {how}"), read_f32(m), exact / n as f64, n, magnitude, n as f64);
            release(&[s, m, h]);
        }
    }
}

/// f32 dots (f32 products, accumulated in f64) of 400 elements whose products cancel
/// to about 1/10,000 of their magnitudes, against a compensated f64 sum of the products.
#[test]
fn f32_dots_with_cancellation() {
    let mut rng = rng("f32_dots_with_cancellation");
    for case in 0..20 {
        let half = 200;
        let mut pairs: Vec<(f32, f32)> = Vec::new();
        for _ in 0..half {
            let a = (rng.random::<f32>() + 0.5) * 1000.0 * if rng.random_bool(0.5) { 1.0 } else { -1.0 };
            let b = (rng.random::<f32>() + 0.5) * 1000.0;
            // Nearly the negated product: b made larger or smaller by up to 1/1,000.
            let nudged = b * (1.0 + (rng.random::<f32>() - 0.5) * 2e-3);
            pairs.push((a, b));
            pairs.push((-a, nudged));
        }
        // Shuffled, so the cancelling products are not neighbours.
        for i in (1..pairs.len()).rev() {
            pairs.swap(i, rng.random_range(0..=i));
        }
        let (a, b): (Vec<f32>, Vec<f32>) = pairs.into_iter().unzip();
        let products: Vec<f64> = a.iter().zip(&b).map(|(&x, &y)| (x * y) as f64).collect();
        let exact = compensated_sum(&products);
        let magnitude: f64 = products.iter().map(|p| p.abs()).sum();
        let n = a.len() as i64;
        let (mut ha, mut hb, mut d) = (0, 0, 0);
        ok(sl_create(SL_F32, 1, &n, SL_COL_MAJOR, a.as_ptr() as *const _, a.len() * 4, &mut ha));
        ok(sl_create(SL_F32, 1, &n, SL_COL_MAJOR, b.as_ptr() as *const _, b.len() * 4, &mut hb));
        ok(sl_dot(ha, hb, &mut d));
        let what = format!("dot {case} (the products cancel to {:.1e} of their magnitude)", exact.abs() / magnitude);
        assert_f64_accumulated(&what, read_f32(d), exact, a.len(), magnitude, 1.0);
        release(&[ha, hb, d]);
    }
}
