//! The reductions and scans composed in front/stats.rs (running max/min/and/or, exclusive
//! scans, several dimensions at once, NaN-ignoring reductions, variance and norms) against
//! plain references written here, on the executor the environment selects, on fresh
//! random data with ties, NaNs, ±0, empty and size-1 dimensions, and transposed views as
//! inputs.

mod common;

use common::*;
use rand::Rng;
use rand::rngs::StdRng;
use sluice::*;

const SHAPES: [&[usize]; 9] = [&[0], &[1], &[37], &[0, 3], &[3, 0], &[1, 5], &[5, 1], &[33, 17], &[4, 3, 5]];

/// Values with many ties (a few small integers) and, for floats, ±0 and NaN.
fn tied(rng: &mut StdRng, dt: sl_dtype, shape: &[usize]) -> Arr {
    let v = (0..numel(shape))
        .map(|_| {
            let k = rng.random_range(-3i64..=3);
            match dt {
                SL_F32 | SL_F64 => {
                    let x = match rng.random_range(0..10) {
                        0 => f64::NAN,
                        1 => -0.0,
                        2 => 0.0,
                        3 => f64::INFINITY,
                        _ => k as f64 + 0.5 * rng.random_range(0..2) as f64,
                    };
                    // NaNs are rare so that many rows have none.
                    let x = if x.is_nan() && rng.random_bool(0.7) { 1.0 } else { x };
                    if dt == SL_F32 { V::F32(x as f32) } else { V::F64(x) }
                }
                SL_I32 => V::I32(k as i32 * 1_000_000),
                SL_I64 => V::I64(k << 40),
                SL_U8 => V::U8((k + 3) as u8 * 40),
                _ => V::B(k > 0),
            }
        })
        .collect();
    Arr::new(dt, shape, v)
}

/// `a` uploaded, or (for rank 2, sometimes) uploaded transposed and transposed back by a
/// view, so the op reads a transposed layout.
fn input(rng: &mut StdRng, a: &Arr) -> sl_array {
    if a.shape.len() == 2 && rng.random_bool(0.5) {
        let (m, n) = (a.shape[0], a.shape[1]);
        let t = Arr::new(a.dt, &[n, m], (0..m * n).map(|l| a.at(&[l / n, l % n])).collect());
        let h = t.upload();
        let mut v = 0;
        ok(sl_transpose(h, &mut v));
        release(&[h]);
        v
    } else {
        a.upload()
    }
}

fn is_nan(v: V) -> bool {
    v.f().is_nan() && matches!(v, V::F32(_) | V::F64(_))
}

/// The running value of a max/min scan: the first NaN stays, else a strictly better value
/// replaces it (of equal values the earlier stays).
fn running(op: sl_scan_op, acc: V, x: V) -> V {
    if is_nan(acc) {
        return acc;
    }
    let better = match op {
        SL_SCAN_MAX | SL_SCAN_OR => x.f() > acc.f(),
        _ => x.f() < acc.f(),
    };
    if is_nan(x) || better { x } else { acc }
}

/// The lowest or highest value of `dt`, where max and min scans start.
fn start(op: sl_scan_op, dt: sl_dtype) -> V {
    let max = matches!(op, SL_SCAN_MAX | SL_SCAN_OR);
    match dt {
        SL_F32 => V::F32(if max { f32::NEG_INFINITY } else { f32::INFINITY }),
        SL_F64 => V::F64(if max { f64::NEG_INFINITY } else { f64::INFINITY }),
        SL_I32 => V::I32(if max { i32::MIN } else { i32::MAX }),
        SL_I64 => V::I64(if max { i64::MIN } else { i64::MAX }),
        SL_U8 => V::U8(if max { 0 } else { u8::MAX }),
        _ => V::B(!max),
    }
}

/// Reference of a max/min/and/or scan along `axis`, inclusive or exclusive.
fn order_scan(op: sl_scan_op, a: &Arr, axis: usize, exclusive: bool) -> Arr {
    let a = match op {
        SL_SCAN_AND | SL_SCAN_OR => Arr::new(SL_BOOL, &a.shape, a.v.iter().map(|v| V::B(v.f() != 0.0)).collect()),
        _ => a.clone(),
    };
    let mut out = a.clone();
    for l in 0..numel(&a.shape) {
        let mut idx = unravel(&a.shape, l);
        let end = idx[axis] + usize::from(!exclusive);
        let mut acc = start(op, a.dt);
        for j in 0..end {
            idx[axis] = j;
            acc = running(op, acc, a.at(&idx));
        }
        out.v[l] = acc;
    }
    out
}

#[test]
fn running_max_min_and_or_inclusive_and_exclusive() {
    let mut rng = rng("running_max_min_and_or_inclusive_and_exclusive");
    for &shape in &SHAPES {
        for dt in ALL_DTYPES {
            let a = tied(&mut rng, dt, shape);
            for axis in 0..shape.len() {
                for op in [SL_SCAN_MAX, SL_SCAN_MIN, SL_SCAN_AND, SL_SCAN_OR] {
                    for exclusive in [false, true] {
                        let h = input(&mut rng, &a);
                        let mut out = 0;
                        ok(sl_scan(op, h, axis as i32, exclusive as i32, &mut out));
                        let want = order_scan(op, &a, axis, exclusive);
                        let what = format!("scan {op} of {dt} {shape:?} along {axis}, exclusive {exclusive}");
                        assert_close(&what, &download(out), &want, 0.0);
                        release(&[h, out]);
                    }
                }
            }
        }
    }
}

/// The convenience calls are the scans they name, and a fused prologue feeds them.
#[test]
fn cummax_cummin_cumand_cumor_calls() {
    let mut rng = rng("cummax_cummin_cumand_cumor_calls");
    let a = tied(&mut rng, SL_F64, &[40, 7]);
    let h = a.upload();
    let neg = negate(h);
    let calls: [(sl_scan_op, extern "C" fn(sl_array, i32, *mut sl_array) -> sl_status); 4] =
        [(SL_SCAN_MAX, sl_cummax), (SL_SCAN_MIN, sl_cummin), (SL_SCAN_AND, sl_cumand), (SL_SCAN_OR, sl_cumor)];
    for (op, call) in calls {
        for axis in 0..2 {
            let mut out = 0;
            ok(call(neg, axis as i32, &mut out));
            assert_close(
                &format!("scan {op} along {axis}"),
                &download(out),
                &order_scan(op, &negated(&a), axis, false),
                0.0,
            );
            release(&[out]);
        }
    }
    release(&[h, neg]);
}

/// Exclusive sums and products are the inclusive ones moved one place, starting at 0 or 1;
/// scans over several dimensions are the scans along each in turn (box sums).
#[test]
fn exclusive_and_multi_dimension_sums() {
    let mut rng = rng("exclusive_and_multi_dimension_sums");
    for &shape in &[&[0usize, 4][..], &[6, 1], &[9, 7], &[4, 3, 5]] {
        for dt in [SL_F64, SL_I32] {
            let a = rand_arr(&mut rng, dt, shape, -4.0, 4.0, false);
            let all = (1u32 << shape.len()) - 1;
            for dims in 1..=all {
                for exclusive in [false, true] {
                    let h = input(&mut rng, &a);
                    let mut out = 0;
                    ok(sl_scan_dims(SL_SCAN_SUM, h, dims, exclusive as i32, &mut out));
                    let got = download(out);
                    // Box sum: every element whose coordinates are all <= (or < when
                    // exclusive) along the scanned dimensions and equal along the others.
                    let want: Vec<f64> = (0..numel(shape))
                        .map(|l| {
                            let i = unravel(shape, l);
                            (0..numel(shape))
                                .filter(|&m| {
                                    let j = unravel(shape, m);
                                    (0..shape.len()).all(|d| {
                                        if dims & (1 << d) == 0 {
                                            j[d] == i[d]
                                        } else if exclusive {
                                            j[d] < i[d]
                                        } else {
                                            j[d] <= i[d]
                                        }
                                    })
                                })
                                .map(|m| a.v[m].f())
                                .sum()
                        })
                        .collect();
                    let want_dt = if dt == SL_I32 { SL_I64 } else { dt };
                    let want = Arr::new(
                        want_dt,
                        shape,
                        want.iter().map(|&x| if dt == SL_I32 { V::I64(x as i64) } else { V::F64(x) }).collect(),
                    );
                    assert_near(
                        &format!("sum scan of {dt} {shape:?} over {dims:#x}, exclusive {exclusive}"),
                        &got,
                        &want,
                        1e-12,
                        1e-12,
                    );
                    release(&[h, out]);
                }
            }
        }
    }
    // An exclusive product starts at 1.
    let a = rand_arr(&mut rng, SL_F64, &[12], 0.5, 2.0, false);
    let h = a.upload();
    let mut out = 0;
    ok(sl_scan(SL_SCAN_PROD, h, 0, 1, &mut out));
    let mut p = 1.0;
    let want = a.v.iter().map(|x| {
        let before = p;
        p *= x.f();
        V::F64(before)
    });
    assert_near("exclusive cumprod", &download(out), &Arr::new(SL_F64, &[12], want.collect()), 0.0, 1e-14);
    release(&[h, out]);
}

/// Reference of a reduction of `a` over the dimensions of `dims` (kept with size 1):
/// the elements of each result's group, folded by `f`.
fn group_reduce(a: &Arr, dims: u32, dt: sl_dtype, f: impl Fn(&[V]) -> V) -> Arr {
    let shape: Vec<usize> =
        a.shape.iter().enumerate().map(|(d, &n)| if dims & (1 << d) != 0 { 1 } else { n }).collect();
    let v = (0..numel(&shape))
        .map(|l| {
            let i = unravel(&shape, l);
            let members: Vec<V> = (0..a.v.len())
                .filter(|&m| {
                    let j = unravel(&a.shape, m);
                    (0..shape.len()).all(|d| dims & (1 << d) != 0 || j[d] == i[d])
                })
                .map(|m| a.v[m])
                .collect();
            f(&members)
        })
        .collect();
    Arr::new(dt, &shape, v)
}

fn float(dt: sl_dtype, x: f64) -> V {
    if dt == SL_F32 { V::F32(x as f32) } else { V::F64(x) }
}

fn reduce_dims(op: sl_reduce_op, h: sl_array, dims: u32) -> Arr {
    let mut out = 0;
    ok(sl_reduce_dims(op, h, dims, &mut out));
    let r = download(out);
    release(&[out]);
    r
}

#[test]
fn reductions_over_several_dimensions() {
    let mut rng = rng("reductions_over_several_dimensions");
    for &shape in &[&[0usize, 3, 2][..], &[4, 1, 6], &[5, 3, 7], &[9, 8]] {
        let a = tied(&mut rng, SL_I64, shape);
        let f = rand_arr(&mut rng, SL_F64, shape, -2.0, 2.0, false);
        let all = (1u32 << shape.len()) - 1;
        for dims in 1..=all {
            let (ha, hf) = (input(&mut rng, &a), input(&mut rng, &f));
            let what = |op: &str| format!("{op} of {shape:?} over {dims:#x}");
            fn ints(g: &[V]) -> impl Iterator<Item = i64> + '_ {
                g.iter().map(|v| v.f() as i64)
            }
            assert_close(
                &what("sum"),
                &reduce_dims(SL_SUM, ha, dims),
                &group_reduce(&a, dims, SL_I64, |g| V::I64(ints(g).sum())),
                0.0,
            );
            assert_close(
                &what("max"),
                &reduce_dims(SL_MAXVAL, ha, dims),
                &group_reduce(&a, dims, SL_I64, |g| V::I64(ints(g).max().unwrap_or(i64::MIN))),
                0.0,
            );
            assert_close(
                &what("min"),
                &reduce_dims(SL_MINVAL, ha, dims),
                &group_reduce(&a, dims, SL_I64, |g| V::I64(ints(g).min().unwrap_or(i64::MAX))),
                0.0,
            );
            assert_close(
                &what("count"),
                &reduce_dims(SL_COUNT, ha, dims),
                &group_reduce(&a, dims, SL_I64, |g| V::I64(ints(g).filter(|&x| x != 0).count() as i64)),
                0.0,
            );
            let mean = |g: &[V]| V::F64(g.iter().map(|v| v.f()).sum::<f64>() / g.len() as f64);
            assert_near(
                &what("mean"),
                &reduce_dims(SL_MEAN, hf, dims),
                &group_reduce(&f, dims, SL_F64, mean),
                1e-14,
                1e-13,
            );
            release(&[ha, hf]);
        }
    }
    let h = rand_arr(&mut rng, SL_F64, &[3, 4], 0.0, 1.0, false).upload();
    let mut out = 0;
    fails(sl_reduce_dims(SL_ARGMAX, h, 3, &mut out), SL_ERR_INVALID_ARGUMENT, "one dimension");
    fails(sl_reduce_dims(SL_SUM, h, 0, &mut out), SL_ERR_INVALID_ARGUMENT, "empty");
    fails(sl_reduce_dims(SL_SUM, h, 4, &mut out), SL_ERR_INVALID_ARGUMENT, "out of range");
    fails(sl_scan_dims(SL_SCAN_SUM, h, 0x10, 0, &mut out), SL_ERR_INVALID_ARGUMENT, "out of range");
    release(&[h]);
}

#[test]
fn nan_ignoring_reductions() {
    let mut rng = rng("nan_ignoring_reductions");
    for &shape in &SHAPES {
        for dt in [SL_F32, SL_F64, SL_I32] {
            let mut a = tied(&mut rng, dt, shape);
            // Some rows entirely NaN.
            if shape.len() == 2 && shape[1] > 0 && dt != SL_I32 {
                for i in 0..shape[0] {
                    a.v[ravel(shape, &[i, 0])] = float(dt, f64::NAN);
                }
            }
            let dims_all = (1u32 << shape.len()) - 1;
            for dims in 1..=dims_all {
                let h = input(&mut rng, &a);
                let kept = |g: &[V]| g.iter().map(|v| v.f()).filter(|x| !x.is_nan()).collect::<Vec<f64>>();
                let out_t = if dt == SL_I32 { SL_I64 } else { dt };
                let as_out = |x: f64| if dt == SL_I32 { V::I64(x as i64) } else { float(dt, x) };
                let what = |op: &str| format!("{op} of {dt} {shape:?} over {dims:#x}");
                let sum = group_reduce(&a, dims, out_t, |g| as_out(kept(g).iter().sum()));
                let tol = if dt == SL_F32 { 1e-6 } else { 1e-14 };
                assert_near(&what("nansum"), &reduce_dims(SL_NANSUM, h, dims), &sum, tol, tol);
                let mean_t = if dt == SL_F32 { SL_F32 } else { SL_F64 };
                let mean = group_reduce(&a, dims, mean_t, |g| {
                    let k = kept(g);
                    float(mean_t, k.iter().sum::<f64>() / k.len() as f64)
                });
                assert_near(&what("nanmean"), &reduce_dims(SL_NANMEAN, h, dims), &mean, tol, tol);
                for (op, max) in [(SL_NANMIN, false), (SL_NANMAX, true)] {
                    let want = group_reduce(&a, dims, dt, |g| {
                        let k = kept(g);
                        let best =
                            k.iter().copied().reduce(|p, x| if (max && x > p) || (!max && x < p) { x } else { p });
                        match (best, g.is_empty(), dt) {
                            (Some(b), _, SL_I32) => V::I32(b as i32),
                            (Some(b), _, _) => float(dt, b),
                            (None, true, _) => start(if max { SL_SCAN_MAX } else { SL_SCAN_MIN }, dt),
                            (None, false, _) => float(dt, f64::NAN),
                        }
                    });
                    // ±0 compare equal: which zero a tie keeps is not specified here.
                    assert_near(
                        &what(if max { "nanmax" } else { "nanmin" }),
                        &reduce_dims(op, h, dims),
                        &want,
                        0.0,
                        0.0,
                    );
                }
                release(&[h]);
            }
        }
    }
}

/// Reference variance of `g` (exact enough: two passes in f64 over values that are
/// exact in f64, with the mean's error corrected).
fn variance(g: &[f64], ddof: i64) -> f64 {
    let n = g.len() as f64;
    let m = g.iter().sum::<f64>() / n;
    let d: Vec<f64> = g.iter().map(|x| x - m).collect();
    let s: f64 = d.iter().sum();
    let ss: f64 = d.iter().map(|x| x * x).sum();
    if n - ddof as f64 <= 0.0 { f64::NAN } else { (ss - s * s / n) / (n - ddof as f64) }
}

#[test]
fn variance_and_std_with_degrees_of_freedom() {
    let mut rng = rng("variance_and_std_with_degrees_of_freedom");
    for &shape in &[&[0usize][..], &[1], &[2], &[37], &[6, 1], &[33, 17], &[4, 3, 5]] {
        for dt in [SL_F32, SL_F64, SL_I32] {
            let a = rand_arr(&mut rng, dt, shape, -50.0, 50.0, false);
            for ddof in [0i64, 1, 2] {
                let all = (1u32 << shape.len()) - 1;
                for dims in 1..=all {
                    let h = input(&mut rng, &a);
                    let t = if dt == SL_F32 { SL_F32 } else { SL_F64 };
                    let tol = if dt == SL_F32 { 1e-5 } else { 1e-12 };
                    let values = |g: &[V]| g.iter().map(|v| v.f()).collect::<Vec<f64>>();
                    for std in [false, true] {
                        let mut out = 0;
                        ok(if std {
                            sl_std_dims(h, dims, ddof, &mut out)
                        } else {
                            sl_var_dims(h, dims, ddof, &mut out)
                        });
                        let want = group_reduce(&a, dims, t, |g| {
                            let v = variance(&values(g), ddof);
                            float(t, if std { v.sqrt() } else { v })
                        });
                        assert_near(
                            &format!("var/std {std} of {dt} {shape:?} over {dims:#x}, ddof {ddof}"),
                            &download(out),
                            &want,
                            tol,
                            tol,
                        );
                        release(&[out]);
                    }
                    release(&[h]);
                }
                // One dimension and everything.
                let h = a.upload();
                let mut out = 0;
                ok(sl_var(h, SL_ALL_DIMS, ddof, &mut out));
                let got = download(out);
                assert_eq!(got.shape, Vec::<usize>::new());
                let want = variance(&a.v.iter().map(|v| v.f()).collect::<Vec<_>>(), ddof);
                let tol = if dt == SL_F32 { 1e-5 } else { 1e-12 };
                assert!(
                    (got.v[0].f().is_nan() && want.is_nan()) || (got.v[0].f() - want).abs() <= tol * (1.0 + want.abs()),
                    "var of everything {shape:?}: {:?} vs {want}",
                    got.v[0]
                );
                release(&[h, out]);
            }
        }
    }
}

/// Data with a large mean and a tiny spread, where E[x^2] - E[x]^2 loses every digit.
/// Bound: relative error 1e-9 (f64, mean 1e9, spread 1e-3) and 1e-4 (f32, mean 1e4,
/// spread 1e-2); the naive formula in f64 is shown to miss the f64 bound on the same data.
#[test]
fn variance_is_stable_for_a_large_mean() {
    let mut rng = rng("variance_is_stable_for_a_large_mean");
    for (dt, mean, spread, bound) in [(SL_F64, 1e9, 1e-3, 1e-9), (SL_F32, 1e4, 1e-2, 1e-4)] {
        let n = 4096;
        let a = Arr::new(dt, &[n], (0..n).map(|_| float(dt, mean + spread * rng.random_range(-1.0..1.0))).collect());
        let x: Vec<f64> = a.v.iter().map(|v| v.f()).collect();
        let want = variance(&x, 1);
        let h = a.upload();
        let mut out = 0;
        ok(sl_var(h, 0, 1, &mut out));
        let got = download(out).v[0].f();
        assert!((got - want).abs() <= bound * want, "{dt}: var {got}, want {want} (bound {bound})");
        if dt == SL_F64 {
            let (s, s2) = x.iter().fold((0.0, 0.0), |(s, s2), v| (s + v, s2 + v * v));
            let naive = (s2 - s * s / n as f64) / (n as f64 - 1.0);
            assert!((naive - want).abs() > bound * want, "the naive formula happened to hold: {naive} vs {want}");
        }
        release(&[h, out]);
    }
}

#[test]
fn complex_variance_and_norms() {
    let mut rng = rng("complex_variance_and_norms");
    for (dt, part, tol) in [(SL_C64, SL_F32, 1e-5), (SL_C128, SL_F64, 1e-12)] {
        let shape = [23, 4];
        let re = rand_arr(&mut rng, part, &shape, -3.0, 3.0, false);
        let im = rand_arr(&mut rng, part, &shape, -3.0, 3.0, false);
        let (hr, hi) = (re.upload(), im.upload());
        let mut z = 0;
        ok(sl_complex(hr, hi, &mut z));
        assert_eq!(dtype_of(z), dt);
        let mut out = 0;
        ok(sl_var(z, 0, 1, &mut out));
        let got = download(out);
        // Var of the parts adds up: mean |z - m|^2 is var(re) + var(im).
        let want = group_reduce(&re, 1, part, |g| V::F64(0.0 * g.len() as f64));
        for j in 0..shape[1] {
            let col = |a: &Arr| (0..shape[0]).map(|i| a.at(&[i, j]).f()).collect::<Vec<f64>>();
            let v = variance(&col(&re), 1) + variance(&col(&im), 1);
            let g = got.v[j].f();
            assert!((g - v).abs() <= tol * v, "{dt} var column {j}: {g} vs {v}");
            let norm2 = col(&re).iter().zip(col(&im)).map(|(a, b)| a * a + b * b).sum::<f64>().sqrt();
            let mut n = 0;
            ok(sl_reduce(SL_NORM2, z, 0, &mut n));
            let got_n = download(n);
            assert!((got_n.v[j].f() - norm2).abs() <= tol * norm2, "{dt} norm2 column {j}");
            release(&[n]);
        }
        assert_eq!(got.shape, want.shape);
        for op in [SL_NANMAX, SL_NANMIN] {
            fails(sl_reduce(op, z, 0, &mut out), SL_ERR_DTYPE_MISMATCH, "no order");
        }
        for op in [SL_SCAN_MAX, SL_SCAN_MIN] {
            fails(sl_scan(op, z, 0, 0, &mut out), SL_ERR_DTYPE_MISMATCH, "no order");
        }
        release(&[hr, hi, z]);
    }
}

/// A norm's code and its definition on the magnitudes.
type Norm<'a> = (sl_reduce_op, &'a dyn Fn(&[f64]) -> f64);

/// Norms against their definitions, and the 2-norm where squares overflow or underflow.
#[test]
fn norms() {
    let mut rng = rng("norms");
    for &shape in &SHAPES {
        for dt in [SL_F32, SL_F64, SL_I32] {
            let a = rand_arr(&mut rng, dt, shape, -9.0, 9.0, true);
            let t = if dt == SL_F32 { SL_F32 } else { SL_F64 };
            let tol = if dt == SL_F32 { 1e-5 } else { 1e-13 };
            let all = (1u32 << shape.len()) - 1;
            for dims in 1..=all {
                let h = input(&mut rng, &a);
                let abs = |g: &[V]| g.iter().map(|v| v.f().abs()).collect::<Vec<f64>>();
                let nan_or = |g: &[f64], x: f64| if g.iter().any(|v| v.is_nan()) { f64::NAN } else { x };
                let cases: [Norm; 3] = [
                    (SL_NORM1, &|g| g.iter().sum()),
                    (SL_NORM2, &|g| {
                        nan_or(
                            g,
                            if g.iter().any(|v| v.is_infinite()) {
                                f64::INFINITY
                            } else {
                                g.iter().map(|v| v * v).sum::<f64>().sqrt()
                            },
                        )
                    }),
                    (SL_NORMINF, &|g| nan_or(g, g.iter().copied().fold(0.0, f64::max))),
                ];
                for (op, f) in cases {
                    let want = group_reduce(&a, dims, t, |g| float(t, f(&abs(g))));
                    assert_near(
                        &format!("norm {op} of {dt} {shape:?} over {dims:#x}"),
                        &reduce_dims(op, h, dims),
                        &want,
                        tol,
                        tol,
                    );
                }
                release(&[h]);
            }
        }
    }
    // Squares of these overflow (f32: 1e30^2) or underflow (1e-30^2); the norm does not.
    for scale in [1e30, 1e-30] {
        let a = rand_arr(&mut rng, SL_F32, &[50, 3], 0.5, 2.0, false);
        let a = Arr::new(SL_F32, &a.shape, a.v.iter().map(|v| V::F32((v.f() * scale) as f32)).collect());
        let h = a.upload();
        let got = reduce_dims(SL_NORM2, h, 3).v[0].f();
        let want = a.v.iter().map(|v| (v.f() / scale).powi(2)).sum::<f64>().sqrt() * scale;
        assert!((got - want).abs() <= 1e-5 * want, "Frobenius norm at scale {scale}: {got} vs {want}");
        release(&[h]);
    }
}

#[test]
fn bad_arguments() {
    let mut rng = rng("statistics_bad_arguments");
    let h = rand_arr(&mut rng, SL_BOOL, &[5], 0.0, 1.0, false).upload();
    let mut out = 7;
    fails(sl_var(h, 0, 0, &mut out), SL_ERR_DTYPE_MISMATCH, "bool");
    assert_eq!(out, 0);
    fails(sl_reduce(SL_NORM2, h, 0, &mut out), SL_ERR_DTYPE_MISMATCH, "bool");
    let f = rand_arr(&mut rng, SL_F64, &[5], 0.0, 1.0, false).upload();
    fails(sl_var(f, 0, -1, &mut out), SL_ERR_INVALID_ARGUMENT, "ddof");
    fails(sl_scan(99, f, 0, 0, &mut out), SL_ERR_INVALID_ARGUMENT, "sl_scan_op");
    fails(sl_scan(SL_SCAN_MAX, f, SL_ALL_DIMS, 0, &mut out), SL_ERR_INVALID_ARGUMENT, "dimension");
    fails(sl_reduce(17, f, 0, &mut out), SL_ERR_INVALID_ARGUMENT, "sl_reduce_op");
    // The runtime is still usable.
    ok(sl_cummax(f, 0, &mut out));
    release(&[h, f, out]);
}

/// Folding several dimensions of an empty array whose other dimensions are huge gives a
/// small result without making a huge partial one (an empty dimension folded first would
/// fill 2^35 partial sums).
#[test]
fn several_dimensions_of_an_empty_array_with_a_huge_one() {
    let dims = [2i64, 2, 0, (1 << 32) + 1, 2, 4];
    let mut h = 0;
    ok(sl_constant(SL_I32, 6, dims.as_ptr(), 3.0, &mut h));
    let (sum, count) = (reduce_dims(SL_SUM, h, 0xf), reduce_dims(SL_COUNT, h, 0xf));
    assert!(sum.v.iter().chain(&count.v).all(|v| v.f() == 0.0), "sums {sum:?}, counts {count:?}");
    for (name, fold) in [("var", sl_var_dims as extern "C" fn(_, _, _, _) -> _), ("std", sl_std_dims)] {
        let mut out = 0;
        ok(fold(h, 0xf, 1, &mut out));
        let got = download(out);
        assert_eq!(shape_of(out), [1, 1, 1, 1, 2, 4], "{name}");
        assert!(got.v.iter().all(|v| v.f().is_nan()), "{name} of nothing: {got:?}");
        release(&[out]);
    }
    release(&[h]);
}
