//! The results the header defines at the edges: reductions of nothing, integer division
//! and remainder by 0 and of the smallest integer by -1, integer powers with negative
//! exponents, and NaN in min/max/argmin/argmax. Each is checked against the documented
//! value on fresh random data, on the executor in use (`SLUICE_BACKEND`), with result
//! comparison on (`SL_COMPARE_ERROR`): a read fails if the executor and the reference run
//! (`src/check/reference.rs`) disagree, so all three agree with the header.

mod common;

use common::*;
use rand::Rng;
use rand::rngs::StdRng;
use sluice::*;

fn compare_every_value() {
    let s = sl_compare_settings { mode: SL_COMPARE_COMPUTE, action: SL_COMPARE_ERROR, abs_tol: -1.0, rel_tol: -1.0 };
    ok(sl_set_compare(&s));
}

/// `x` as stored (`false`) or computed by a kernel as -(-x) (`true`), which fuses the op
/// under test into it.
fn source(x: &Arr, computed: bool) -> sl_array {
    let h = x.upload();
    if !computed {
        return h;
    }
    let (mut n, mut nn) = (0, 0);
    ok(sl_neg(h, &mut n));
    ok(sl_neg(n, &mut nn));
    release(&[h, n]);
    nn
}

fn int(t: sl_dtype, v: i64) -> V {
    V::I64(v).cast(t)
}

/// What a reduction of no elements gives, in the result's type.
fn of_nothing(op: sl_reduce_op, t: sl_dtype) -> V {
    let float = t == SL_F32 || t == SL_F64;
    let (lowest, highest) = match t {
        SL_F32 | SL_F64 => (V::F64(f64::NEG_INFINITY).cast(t), V::F64(f64::INFINITY).cast(t)),
        SL_I32 => (int(t, i32::MIN as i64), int(t, i32::MAX as i64)),
        SL_I64 => (int(t, i64::MIN), int(t, i64::MAX)),
        SL_U8 => (int(t, 0), int(t, 255)),
        _ => (V::B(false), V::B(true)),
    };
    let wide = if float { t } else { SL_I64 };
    match op {
        SL_SUM => V::I64(0).cast(wide),
        SL_PROD => V::I64(1).cast(wide),
        SL_MINVAL => highest,
        SL_MAXVAL => lowest,
        SL_MEAN => V::F64(f64::NAN).cast(if t == SL_F32 { SL_F32 } else { SL_F64 }),
        SL_ANY => V::B(false),
        SL_ALL => V::B(true),
        SL_COUNT => V::I64(0),
        _ => V::I64(-1),
    }
}

#[test]
fn reductions_of_nothing() {
    compare_every_value();
    let mut rng = rng("reductions_of_nothing");
    let ops = [SL_SUM, SL_PROD, SL_MINVAL, SL_MAXVAL, SL_MEAN, SL_ANY, SL_ALL, SL_COUNT, SL_ARGMIN, SL_ARGMAX];
    for t in ALL_DTYPES {
        for computed in [false, true] {
            let k = rng.random_range(1..5usize);
            // Everything of an empty array, and each column of a 0 x k one.
            for (shape, dim, result) in [(vec![0], SL_ALL_DIMS, vec![]), (vec![0, k], 0, vec![1, k])] {
                let x = source(&Arr::new(t, &shape, vec![]), computed && t != SL_BOOL);
                for op in ops {
                    let mut out = 0;
                    let st = sl_reduce(op, x, dim, &mut out);
                    if st == SL_ERR_DTYPE_MISMATCH {
                        continue; // not defined for this type (sum of bool, ...)
                    }
                    ok(st);
                    let got = download(out);
                    assert_eq!(got.shape, result);
                    let want = of_nothing(op, t);
                    assert!(
                        got.v.iter().all(|&v| v == want),
                        "reduce {op} of nothing ({t}): {:?}, want {want:?}",
                        got.v
                    );
                    release(&[out]);
                }
                release(&[x]);
            }
        }
    }
    assert_compared_clean(1);
}

/// A random integer of type `t`, often one of the values at the edges.
fn edge_int(rng: &mut StdRng, t: sl_dtype) -> i64 {
    let (lo, hi) = match t {
        SL_I32 => (i32::MIN as i64, i32::MAX as i64),
        SL_I64 => (i64::MIN, i64::MAX),
        _ => (0, 255),
    };
    match rng.random_range(0..4) {
        0 => [lo, hi, 0, 1, -1, lo + 1][rng.random_range(0..6)].clamp(lo, hi),
        1 => rng.random_range(-9..=9i64).clamp(lo, hi),
        _ => rng.random_range(lo..=hi),
    }
}

/// `x op y` as the header defines it for integers of type `t` (given as i64).
fn int_op(op: sl_binary_op, t: sl_dtype, x: i64, y: i64) -> V {
    let r = match op {
        _ if y == 0 && op != SL_POW => 0,
        SL_DIV => x.wrapping_div(y),
        SL_REM => x.wrapping_rem(y),
        _ if y < 0 => match x {
            1 => 1,
            -1 if y % 2 != 0 => -1,
            -1 => 1,
            _ => 0,
        },
        _ => (0..y).fold(1i64, |acc, _| acc.wrapping_mul(x)),
    };
    // Wrapped to `t` (so the smallest i32 / -1 is the smallest i32 again).
    int(t, r)
}

#[test]
fn integer_division_remainder_and_power_at_the_edges() {
    compare_every_value();
    let mut rng = rng("integer_division_remainder_and_power_at_the_edges");
    for t in [SL_I32, SL_I64, SL_U8] {
        for op in [SL_DIV, SL_REM, SL_POW] {
            for computed in [false, true] {
                let n = rng.random_range(50..200usize);
                let mut pairs: Vec<(i64, i64)> = (0..n)
                    .map(|_| {
                        let y = match op {
                            SL_POW if t == SL_U8 => rng.random_range(0..=70),
                            SL_POW => rng.random_range(-70..=70),
                            _ => edge_int(&mut rng, t),
                        };
                        (edge_int(&mut rng, t), y)
                    })
                    .collect();
                // The smallest integer by -1 is always among them.
                if t != SL_U8 && op != SL_POW {
                    pairs[0] = (if t == SL_I32 { i32::MIN as i64 } else { i64::MIN }, -1);
                }
                let x = Arr::new(t, &[n], pairs.iter().map(|p| int(t, p.0)).collect());
                let y = Arr::new(t, &[n], pairs.iter().map(|p| int(t, p.1)).collect());
                let (hx, hy) = (source(&x, computed), source(&y, computed));
                let mut out = 0;
                ok(sl_binary(op, hx, hy, &mut out));
                let got = download(out);
                for (i, &(a, b)) in pairs.iter().enumerate() {
                    assert_eq!(got.v[i], int_op(op, t, a, b), "{op} of {a} and {b} ({t})");
                }
                release(&[hx, hy, out]);
            }
        }
    }
    assert_compared_clean(1);
}

#[test]
fn nan_is_both_the_smallest_and_the_largest() {
    compare_every_value();
    let mut rng = rng("nan_is_both_the_smallest_and_the_largest");
    for t in [SL_F32, SL_F64] {
        for computed in [false, true] {
            let shape = [rng.random_range(1..40usize), rng.random_range(1..6usize)];
            let mut x = rand_arr(&mut rng, t, &shape, -10.0, 10.0, false);
            for _ in 0..rng.random_range(1..6) {
                let i = rng.random_range(0..x.v.len());
                x.v[i] = V::F64(f64::NAN).cast(t);
            }
            let h = source(&x, computed);
            for op in [SL_ARGMIN, SL_ARGMAX, SL_MINVAL, SL_MAXVAL] {
                // Everything, then along dimension 0 (one result per column).
                let mut out = 0;
                ok(sl_reduce(op, h, SL_ALL_DIMS, &mut out));
                let first_nan = x.v.iter().position(|v| v.f().is_nan()).unwrap();
                let want = match op {
                    SL_ARGMIN | SL_ARGMAX => V::I64(first_nan as i64),
                    _ => x.v[first_nan],
                };
                assert_eq!(download(out).v, vec![want], "reduce {op} of {t} with NaN");
                release(&[out]);
                ok(sl_reduce(op, h, 0, &mut out));
                let got = download(out);
                for c in 0..shape[1] {
                    let column = &x.v[c * shape[0]..(c + 1) * shape[0]];
                    let Some(r) = column.iter().position(|v| v.f().is_nan()) else { continue };
                    let want = if op == SL_ARGMIN || op == SL_ARGMAX { V::I64(r as i64) } else { column[r] };
                    assert_eq!(got.v[c], want, "reduce {op} of column {c} of {t} with NaN");
                }
                release(&[out]);
            }
            release(&[h]);
        }
    }
    assert_compared_clean(1);
}
