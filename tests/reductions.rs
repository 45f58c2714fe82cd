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

/// The settings the reproducibility test runs its reductions under: `SLUICE_THREADS`, and
/// how many threads spin beside them (more workers than cores, and cores taken by
/// spinners, get workers descheduled in the middle of their pieces).
const THREAD_SETTINGS: [(&str, &str); 6] = [("1", "0"), ("2", "0"), ("3", "0"), ("2", "2"), ("5", "2"), ("8", "3")];

/// Sums, means and dots, f32 and f64, over everything and along each axis of a
/// 1500 x 701 array (chunks of whole rows, and planes), give bit-identical results
/// however many threads take the pieces and however they are delayed: each setting of
/// `THREAD_SETTINGS` runs in its own process on the same random data.
#[test]
fn reductions_are_bit_identical_across_threads() {
    if on_vulkan() {
        eprintln!("thread settings concern the CPU executor: skipped on Vulkan");
        return;
    }
    let seed: u64 = rng("reductions_are_bit_identical_across_threads").random();
    let mut digests = Vec::new();
    for (threads, spinners) in THREAD_SETTINGS {
        let log = child(
            "reductions_under_one_thread_setting",
            &[("SLUICE_TEST_SEED", &seed.to_string()), ("SLUICE_THREADS", threads), ("SLUICE_TEST_SPINNERS", spinners)],
        );
        let digest = log.lines().find_map(|l| l.strip_prefix("digest ")).expect("the child prints its digest");
        digests.push((threads, spinners, digest.to_owned()));
    }
    for (threads, spinners, digest) in &digests[1..] {
        assert_eq!(
            digest, &digests[0].2,
            "{threads} threads with {spinners} spinners differ from {} thread(s)",
            digests[0].0
        );
    }
}

/// One setting of `reductions_are_bit_identical_across_threads`: the reductions, run ten
/// times (bit-identical each time) and checked against a compensated f64 sum; prints a
/// digest of every result's bits.
#[test]
#[ignore = "run by reductions_are_bit_identical_across_threads in a child process"]
fn reductions_under_one_thread_setting() {
    let mut rng = rng("reductions_under_one_thread_setting");
    let spinners: usize = std::env::var("SLUICE_TEST_SPINNERS").ok().and_then(|s| s.parse().ok()).unwrap_or(0);
    let stop = std::sync::atomic::AtomicBool::new(false);
    let (rows, cols) = (1500usize, 701usize);
    let scale = 10f64.powi(rng.random_range(-2..4));
    let a: Vec<f64> = (0..rows * cols).map(|_| (rng.random::<f64>() * 2.0 - 0.9) * scale).collect();
    let b: Vec<f64> = (0..rows * cols).map(|_| (rng.random::<f64>() * 2.0 - 0.9) * scale).collect();
    std::thread::scope(|s| {
        for _ in 0..spinners {
            s.spawn(|| {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    std::hint::spin_loop();
                }
            });
        }
        let mut digest = 0xcbf2_9ce4_8422_2325u64;
        for dt in [SL_F32, SL_F64] {
            // The data in this type, and the values the reference adds (exactly what the
            // kernels add: f32 values, and f32 products rounded to f32, widened).
            let (ha, hb, wa, wb) = upload_pair(dt, &a, &b, rows, cols);
            let prod: Vec<f64> = wa
                .iter()
                .zip(&wb)
                .map(|(&x, &y)| if dt == SL_F32 { (x as f32 * y as f32) as f64 } else { x * y })
                .collect();
            let mut ab = 0;
            ok(sl_mul(ha, hb, &mut ab));
            let mut first: Option<Vec<Vec<u8>>> = None;
            for _ in 0..10 {
                let mut results = Vec::new();
                for (what, terms, h) in [("sum", &wa, ha), ("dot", &prod, ab)] {
                    for dim in [SL_ALL_DIMS, 0, 1] {
                        let (mut s, mut m) = (0, 0);
                        if what == "dot" && dim == SL_ALL_DIMS {
                            ok(sl_dot(ha, hb, &mut s));
                        } else {
                            ok(sl_sum(h, dim, &mut s));
                        }
                        ok(sl_mean(h, dim, &mut m));
                        let (sum, mean) = (download(s), download(m));
                        check_against_reference(
                            &format!("{what} of {dt} along {dim}"),
                            &sum,
                            &mean,
                            terms,
                            rows,
                            cols,
                            dim,
                        );
                        results.push(sum.bytes());
                        results.push(mean.bytes());
                        release(&[s, m]);
                    }
                }
                match &first {
                    None => first = Some(results),
                    Some(f) => assert!(f == &results, "{dt}: a repeated reduction gave different bits"),
                }
            }
            for r in first.unwrap() {
                for byte in r {
                    digest = (digest ^ byte as u64).wrapping_mul(0x100_0000_01b3);
                }
            }
            release(&[ab, ha, hb]);
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        eprintln!("digest {digest:016x}");
    });
}

/// `a` and `b` as `rows` x `cols` arrays of `dt`, and their values widened to f64.
fn upload_pair(
    dt: sl_dtype,
    a: &[f64],
    b: &[f64],
    rows: usize,
    cols: usize,
) -> (sl_array, sl_array, Vec<f64>, Vec<f64>) {
    let shape = [rows, cols];
    let arr = |v: &[f64]| Arr::new(dt, &shape, v.iter().map(|&x| V::F64(x).cast(dt)).collect());
    let (aa, bb) = (arr(a), arr(b));
    let widen = |x: &Arr| x.v.iter().map(|v| v.f()).collect::<Vec<f64>>();
    (aa.upload(), bb.upload(), widen(&aa), widen(&bb))
}

/// Checks a sum and a mean of `terms` (column-major `rows` x `cols`) along `dim` against
/// compensated f64 sums: within one ulp of the result's type plus `n` f64 roundings of
/// the terms' magnitude (the bound of `assert_f64_accumulated`).
fn check_against_reference(what: &str, sum: &Arr, mean: &Arr, terms: &[f64], rows: usize, cols: usize, dim: i32) {
    let lines: Vec<Vec<f64>> = match dim {
        SL_ALL_DIMS => vec![terms.to_vec()],
        0 => (0..cols).map(|c| terms[c * rows..(c + 1) * rows].to_vec()).collect(),
        _ => (0..rows).map(|r| (0..cols).map(|c| terms[c * rows + r]).collect()).collect(),
    };
    assert_eq!(sum.v.len(), lines.len(), "{what}: result size");
    for (i, line) in lines.iter().enumerate() {
        let n = line.len() as f64;
        let exact = compensated_sum(line);
        let magnitude: f64 = line.iter().map(|x| x.abs()).sum();
        for (got, want, divisor) in [(sum.v[i], exact, 1.0), (mean.v[i], exact / n, n)] {
            let ulp = match got {
                V::F32(_) => {
                    let w = (want as f32).abs();
                    (w.next_up() - w) as f64
                }
                _ => want.abs().next_up() - want.abs(),
            };
            let bound = ulp + n * magnitude * 2f64.powi(-53) / divisor;
            assert!(
                (got.f() - want).abs() <= bound,
                "{what}, line {i}: got {}, want {want:e} within {bound:e}",
                got.f()
            );
        }
    }
}
