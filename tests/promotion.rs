//! Type promotion (README "Type promotion"): every pair of element types in the table,
//! every weak-scalar case, select, and bool reductions, each checked for the result type
//! and for its values against a plain reference on random inputs (the operands converted
//! to the promoted type with the cast op's rules, then the same-type op).
//!
//! The expected types below are written out cell by cell from the README table, not
//! computed by the library.

mod common;

use common::*;
use rand::Rng;
use rand::rngs::StdRng;
use sluice::*;

/// The element types in the order of the README table's rows and columns.
const TYPES: [sl_dtype; 8] = [SL_BOOL, SL_U8, SL_I32, SL_I64, SL_F32, SL_F64, SL_C64, SL_C128];

/// `TABLE[i][j]`: the type of `TYPES[i] op TYPES[j]` (README "Type promotion").
const TABLE: [[sl_dtype; 8]; 8] = {
    const B: sl_dtype = SL_BOOL;
    const U: sl_dtype = SL_U8;
    const I: sl_dtype = SL_I32;
    const L: sl_dtype = SL_I64;
    const F: sl_dtype = SL_F32;
    const D: sl_dtype = SL_F64;
    const C: sl_dtype = SL_C64;
    const Z: sl_dtype = SL_C128;
    [
        //  bool u8 i32 i64 f32 f64 c64 c128
        [B, U, I, L, F, D, C, Z], // bool
        [U, U, I, L, F, D, C, Z], // u8
        [I, I, I, L, F, D, C, Z], // i32
        [L, L, L, L, F, D, C, Z], // i64
        [F, F, F, F, F, D, C, Z], // f32
        [D, D, D, D, D, D, Z, Z], // f64
        [C, C, C, C, C, Z, C, Z], // c64
        [Z, Z, Z, Z, Z, Z, Z, Z], // c128
    ]
};

/// Every element type, in the order of the README table (which has the integer types
/// i8, i16, u16, u32 and u64 and the 16-bit floats f16 and bf16 that `TABLE` leaves out:
/// their values are checked in tests/int_types.rs and tests/half_types.rs).
const ALL_TYPES: [sl_dtype; 15] = [
    SL_BOOL, SL_U8, SL_U16, SL_U32, SL_U64, SL_I8, SL_I16, SL_I32, SL_I64, SL_F16, SL_BF16, SL_F32, SL_F64, SL_C64,
    SL_C128,
];

/// `FULL_TABLE[i][j]`: the type of `ALL_TYPES[i] op ALL_TYPES[j]` (README "Type promotion").
const FULL_TABLE: [[sl_dtype; 15]; 15] = {
    const B: sl_dtype = SL_BOOL;
    const U8: sl_dtype = SL_U8;
    const U16: sl_dtype = SL_U16;
    const U32: sl_dtype = SL_U32;
    const U64: sl_dtype = SL_U64;
    const I8: sl_dtype = SL_I8;
    const I16: sl_dtype = SL_I16;
    const I32: sl_dtype = SL_I32;
    const I64: sl_dtype = SL_I64;
    const F16: sl_dtype = SL_F16;
    const BF16: sl_dtype = SL_BF16;
    const F32: sl_dtype = SL_F32;
    const F64: sl_dtype = SL_F64;
    const C64: sl_dtype = SL_C64;
    const C128: sl_dtype = SL_C128;
    [
        [B, U8, U16, U32, U64, I8, I16, I32, I64, F16, BF16, F32, F64, C64, C128], // bool
        [U8, U8, U16, U32, U64, I16, I16, I32, I64, F16, BF16, F32, F64, C64, C128], // u8
        [U16, U16, U16, U32, U64, I32, I32, I32, I64, F16, BF16, F32, F64, C64, C128], // u16
        [U32, U32, U32, U32, U64, I64, I64, I64, I64, F16, BF16, F32, F64, C64, C128], // u32
        [U64, U64, U64, U64, U64, F64, F64, F64, F64, F16, BF16, F32, F64, C64, C128], // u64
        [I8, I16, I32, I64, F64, I8, I16, I32, I64, F16, BF16, F32, F64, C64, C128], // i8
        [I16, I16, I32, I64, F64, I16, I16, I32, I64, F16, BF16, F32, F64, C64, C128], // i16
        [I32, I32, I32, I64, F64, I32, I32, I32, I64, F16, BF16, F32, F64, C64, C128], // i32
        [I64, I64, I64, I64, F64, I64, I64, I64, I64, F16, BF16, F32, F64, C64, C128], // i64
        [F16, F16, F16, F16, F16, F16, F16, F16, F16, F16, F32, F32, F64, C64, C128], // f16
        [BF16, BF16, BF16, BF16, BF16, BF16, BF16, BF16, BF16, F32, BF16, F32, F64, C64, C128], // bf16
        [F32, F32, F32, F32, F32, F32, F32, F32, F32, F32, F32, F32, F64, C64, C128], // f32
        [F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, F64, C128, C128], // f64
        [C64, C64, C64, C64, C64, C64, C64, C64, C64, C64, C64, C64, C128, C64, C128], // c64
        [C128, C128, C128, C128, C128, C128, C128, C128, C128, C128, C128, C128, C128, C128, C128], // c128
    ]
};

/// The type of `TYPES[i] op s` (and `s op TYPES[i]`) for a weak scalar: an integer
/// scalar (`sl_binary_scalar_i`), a floating-point one (`sl_binary_scalar`), a complex
/// one (`sl_binary_scalar_c`).
const WEAK: [(sl_dtype, [sl_dtype; 3]); 8] = [
    (SL_BOOL, [SL_I64, SL_F64, SL_C128]),
    (SL_U8, [SL_U8, SL_F64, SL_C128]),
    (SL_I32, [SL_I32, SL_F64, SL_C128]),
    (SL_I64, [SL_I64, SL_F64, SL_C128]),
    (SL_F32, [SL_F32, SL_F32, SL_C64]),
    (SL_F64, [SL_F64, SL_F64, SL_C128]),
    (SL_C64, [SL_C64, SL_C64, SL_C64]),
    (SL_C128, [SL_C128, SL_C128, SL_C128]),
];

fn is_complex(t: sl_dtype) -> bool {
    t == SL_C64 || t == SL_C128
}

/// A test value: real types as `V`, complex ones as (re, im) in f64 (exact for c64 parts,
/// which are drawn as f32).
#[derive(Clone)]
enum Val {
    Real(Arr),
    Complex(sl_dtype, Vec<(f64, f64)>),
}

impl Val {
    fn random(rng: &mut StdRng, t: sl_dtype, n: usize) -> Val {
        if !is_complex(t) {
            // Small integers, so every conversion the table makes is exact.
            return Val::Real(rand_arr(rng, t, &[n], -100.0, 100.0, false));
        }
        let part = |rng: &mut StdRng| {
            let x: f64 = rng.random_range(-100.0..100.0);
            if t == SL_C64 { x as f32 as f64 } else { x }
        };
        Val::Complex(t, (0..n).map(|_| (part(rng), part(rng))).collect())
    }

    fn upload(&self) -> sl_array {
        match self {
            Val::Real(a) => a.upload(),
            Val::Complex(t, z) => {
                let mut b = Vec::new();
                for &(re, im) in z {
                    if *t == SL_C64 {
                        b.extend_from_slice(&(re as f32).to_le_bytes());
                        b.extend_from_slice(&(im as f32).to_le_bytes());
                    } else {
                        b.extend_from_slice(&re.to_le_bytes());
                        b.extend_from_slice(&im.to_le_bytes());
                    }
                }
                let dims = [z.len() as i64];
                let mut h = 0;
                ok(sl_create(*t, 1, dims.as_ptr(), SL_COL_MAJOR, b.as_ptr() as *const _, b.len(), &mut h));
                h
            }
        }
    }

    /// The value converted to `t` with the cast op's rules.
    fn cast(&self, t: sl_dtype) -> Val {
        match self {
            Val::Real(a) if is_complex(t) => {
                let part = if t == SL_C64 { SL_F32 } else { SL_F64 };
                Val::Complex(t, a.v.iter().map(|x| (x.cast(part).f(), 0.0)).collect())
            }
            Val::Real(a) => Val::Real(Arr::new(t, &a.shape, a.v.iter().map(|x| x.cast(t)).collect())),
            Val::Complex(_, z) => Val::Complex(t, z.clone()),
        }
    }
}

fn download_val(h: sl_array) -> Val {
    let t = dtype_of(h);
    if is_complex(t) { Val::Complex(t, download_complex(h)) } else { Val::Real(download(h)) }
}

/// The ops each cell runs: arithmetic, a comparison, and a logical or bitwise op.
const OPS: [sl_binary_op; 7] = [SL_ADD, SL_SUB, SL_MUL, SL_DIV, SL_MAX, SL_LT, SL_AND];

/// Whether `op` is defined for operands of type `t` (promotion never makes an op defined
/// that is not defined for the promoted type).
fn accepts(op: sl_binary_op, t: sl_dtype) -> bool {
    if is_complex(t) {
        return matches!(op, SL_ADD | SL_SUB | SL_MUL | SL_DIV);
    }
    reference::binary_accepts(op, t)
}

/// `op` of two complex sequences, in f64.
fn complex_op(op: sl_binary_op, x: (f64, f64), y: (f64, f64)) -> (f64, f64) {
    match op {
        SL_ADD => (x.0 + y.0, x.1 + y.1),
        SL_SUB => (x.0 - y.0, x.1 - y.1),
        SL_MUL => (x.0 * y.0 - x.1 * y.1, x.0 * y.1 + x.1 * y.0),
        SL_DIV => {
            let d = y.0 * y.0 + y.1 * y.1;
            ((x.0 * y.0 + x.1 * y.1) / d, (x.1 * y.0 - x.0 * y.1) / d)
        }
        _ => unreachable!(),
    }
}

/// Checks `got` against `op(a, b)` computed at type `t`.
#[track_caller]
fn check(what: &str, op: sl_binary_op, t: sl_dtype, a: &Val, b: &Val, got: &Val) {
    match (a.cast(t), b.cast(t), got) {
        (Val::Real(x), Val::Real(y), Val::Real(g)) => {
            let want = reference::map2(&x, &y, |p, q| reference::binary(op, p, q));
            // Division is correctly rounded on the CPU; Vulkan's f32 division is within
            // 2.5 ulps.
            let tol = if op == SL_DIV && t == SL_F32 { 3.0 } else { 0.0 };
            assert_close(what, g, &want, tol);
        }
        (Val::Complex(_, x), Val::Complex(_, y), Val::Complex(gt, g)) => {
            assert_eq!(*gt, t, "{what}: dtype");
            let eps = if t == SL_C64 { 1e-5 } else { 1e-12 };
            for i in 0..g.len() {
                let w = complex_op(op, x[i], y[i]);
                let scale = w.0.abs().max(w.1.abs()).max(1.0) * eps;
                assert!(
                    (g[i].0 - w.0).abs() <= scale && (g[i].1 - w.1).abs() <= scale,
                    "{what}: element {i}: got {:?}, want {w:?}",
                    g[i]
                );
            }
        }
        (_, _, g) => {
            let gt = match g {
                Val::Real(a) => a.dt,
                Val::Complex(t, _) => *t,
            };
            panic!("{what}: result type {gt}, want {t}");
        }
    }
}

#[test]
fn every_pair_of_types_follows_the_table() {
    let mut rng = rng("every_pair_of_types_follows_the_table");
    let n = 61;
    for (i, &ta) in TYPES.iter().enumerate() {
        for (j, &tb) in TYPES.iter().enumerate() {
            let t = TABLE[i][j];
            let (a, mut b) = (Val::random(&mut rng, ta, n), Val::random(&mut rng, tb, n));
            // Divisors away from zero, so integer division and the reference agree on
            // every element without special cases (x / 0 is tested in the ops suite).
            if let Val::Real(arr) = &mut b {
                for v in arr.v.iter_mut() {
                    if v.f() == 0.0 {
                        *v = V::I64(1).cast(tb);
                    }
                }
            }
            let (ha, hb) = (a.upload(), b.upload());
            for op in OPS {
                let what = format!("{ta} {op} {tb} (as {t})");
                let mut out = 0;
                let st = sl_binary(op, ha, hb, &mut out);
                if !accepts(op, t) {
                    fails(st, SL_ERR_DTYPE_MISMATCH, "not defined");
                    continue;
                }
                ok(st);
                let want_t = if matches!(op, SL_LT) { SL_BOOL } else { t };
                assert_eq!(dtype_of(out), want_t, "{what}: dtype");
                check(&what, op, t, &a, &b, &download_val(out));
                release(&[out]);
            }
            release(&[ha, hb]);
        }
    }
}

#[test]
fn every_pair_of_all_fifteen_types_has_the_table_type() {
    let n = 5;
    let arrays: Vec<sl_array> = ALL_TYPES
        .iter()
        .map(|&t| {
            let mut h = 0;
            ok(sl_constant(t, 1, [n].as_ptr(), 1.0, &mut h));
            h
        })
        .collect();
    for (i, &ta) in ALL_TYPES.iter().enumerate() {
        for (j, &tb) in ALL_TYPES.iter().enumerate() {
            let t = FULL_TABLE[i][j];
            // Subtraction is defined for every type but bool; a comparison for all.
            let mut out = 0;
            let st = sl_binary(SL_SUB, arrays[i], arrays[j], &mut out);
            if t == SL_BOOL {
                fails(st, SL_ERR_DTYPE_MISMATCH, "not defined");
            } else {
                ok(st);
                assert_eq!(dtype_of(out), t, "{ta} - {tb}");
                release(&[out]);
            }
            // The `TABLE` cells agree.
            if let (Some(k), Some(l)) = (TYPES.iter().position(|&x| x == ta), TYPES.iter().position(|&x| x == tb)) {
                assert_eq!(TABLE[k][l], t, "{ta} and {tb}: the two tables");
            }
        }
    }
    release(&arrays);
}

#[test]
fn the_full_table_is_symmetric_and_keeps_same_types() {
    for i in 0..ALL_TYPES.len() {
        assert_eq!(FULL_TABLE[i][i], ALL_TYPES[i]);
        for j in 0..ALL_TYPES.len() {
            assert_eq!(FULL_TABLE[i][j], FULL_TABLE[j][i], "{} and {}", ALL_TYPES[i], ALL_TYPES[j]);
        }
    }
}

#[test]
fn the_table_is_symmetric_and_keeps_same_types() {
    for i in 0..TYPES.len() {
        assert_eq!(TABLE[i][i], TYPES[i]);
        for j in 0..TYPES.len() {
            assert_eq!(TABLE[i][j], TABLE[j][i], "{} and {}", TYPES[i], TYPES[j]);
        }
    }
}

/// `a op s` and `s op a` through one of the three scalar forms.
fn with_scalar(kind: usize, op: sl_binary_op, a: sl_array, s: f64, scalar_first: bool) -> (sl_status, sl_array) {
    let mut out = 0;
    let st = match (kind, scalar_first) {
        (0, false) => sl_binary_scalar_i(op, a, s as i64, &mut out),
        (0, true) => sl_scalar_binary_i(op, s as i64, a, &mut out),
        (1, false) => sl_binary_scalar(op, a, s, &mut out),
        (1, true) => sl_scalar_binary(op, s, a, &mut out),
        (_, false) => sl_binary_scalar_c(op, a, s, 0.0, &mut out),
        (_, true) => sl_scalar_binary_c(op, s, 0.0, a, &mut out),
    };
    (st, out)
}

#[test]
fn weak_scalars_take_the_array_type_unless_of_a_higher_kind() {
    let mut rng = rng("weak_scalars_take_the_array_type_unless_of_a_higher_kind");
    let n = 53;
    for (ta, results) in WEAK {
        let a = Val::random(&mut rng, ta, n);
        let ha = a.upload();
        for (kind, &t) in results.iter().enumerate() {
            // An integer scalar that every integer type holds; a float one with a fraction
            // (exact in f32) so a wrong integer result would show.
            let s = if kind == 0 { rng.random_range(1..100) as f64 } else { rng.random_range(1..400) as f64 / 4.0 };
            let scalar = match kind {
                0 => Val::Real(Arr::new(SL_I64, &[n], vec![V::I64(s as i64); n])),
                1 => Val::Real(Arr::new(SL_F64, &[n], vec![V::F64(s); n])),
                _ => Val::Complex(SL_C128, vec![(s, 0.0); n]),
            };
            for op in [SL_ADD, SL_MUL, SL_SUB, SL_GE] {
                for first in [false, true] {
                    let what = format!("{ta} {op} weak scalar of kind {kind} (first: {first}, as {t})");
                    let (st, out) = with_scalar(kind, op, ha, s, first);
                    if !accepts(op, t) {
                        fails(st, SL_ERR_DTYPE_MISMATCH, "not defined");
                        continue;
                    }
                    ok(st);
                    assert_eq!(dtype_of(out), if op == SL_GE { SL_BOOL } else { t }, "{what}: dtype");
                    let (x, y) = if first { (&scalar, &a) } else { (&a, &scalar) };
                    check(&what, op, t, x, y, &download_val(out));
                    release(&[out]);
                }
            }
        }
        release(&[ha]);
    }
}

#[test]
fn an_integer_scalar_an_integer_type_cannot_hold_is_refused() {
    for (t, s) in [(SL_U8, 256), (SL_U8, -1), (SL_I32, 1 << 40)] {
        let a = Arr::new(t, &[3], vec![V::I64(7).cast(t); 3]).upload();
        let mut out = 0;
        fails(sl_binary_scalar_i(SL_ADD, a, s, &mut out), SL_ERR_DTYPE_MISMATCH, "cannot be represented");
        assert_eq!(out, 0);
        // The runtime stays usable: the same array with a scalar that fits.
        ok(sl_binary_scalar_i(SL_ADD, a, 1, &mut out));
        assert_eq!(download(out).v[0], V::I64(8).cast(t));
        release(&[a, out]);
    }
}

#[test]
fn monte_carlo_pi_is_a_float() {
    // 4.0 * count(inside) / n: the count is an i64, the double scalar makes it f64.
    let mut rng = rng("monte_carlo_pi_is_a_float");
    let n = 10_000;
    let inside = rand_arr(&mut rng, SL_BOOL, &[n], 0.0, 1.0, false);
    let k = inside.v.iter().filter(|v| **v == V::B(true)).count();
    let h = inside.upload();
    let (mut count, mut scaled, mut pi) = (0, 0, 0);
    ok(sl_count(h, SL_ALL_DIMS, &mut count));
    ok(sl_scalar_binary(SL_MUL, 4.0, count, &mut scaled));
    ok(sl_div_scalar(scaled, n as f64, &mut pi));
    assert_eq!(dtype_of(pi), SL_F64);
    assert_eq!(download(pi).v[0], V::F64(4.0 * k as f64 / n as f64));
    release(&[h, count, scaled, pi]);
}

#[test]
fn sum_and_mean_of_bool_count() {
    let mut rng = rng("sum_and_mean_of_bool_count");
    let shape = [17, 9];
    let a = rand_arr(&mut rng, SL_BOOL, &shape, 0.0, 1.0, false);
    let h = a.upload();
    for dim in [SL_ALL_DIMS, 0, 1] {
        let axis = (dim != SL_ALL_DIMS).then_some(dim as usize);
        let want =
            reference::reduce(SL_SUM, &Arr::new(SL_I64, &shape, a.v.iter().map(|x| x.cast(SL_I64)).collect()), axis);
        let (mut sum, mut mean) = (0, 0);
        ok(sl_sum(h, dim, &mut sum));
        assert_close("sum of bool", &download(sum), &want, 0.0);
        ok(sl_mean(h, dim, &mut mean));
        let m = download(mean);
        assert_eq!(m.dt, SL_F64, "mean of bool");
        let count = if let Some(d) = axis { shape[d] } else { a.v.len() } as f64;
        for (g, w) in m.v.iter().zip(&want.v) {
            assert!((g.f() - w.f() / count).abs() <= 1e-15, "mean of bool: got {g:?}, want {}", w.f() / count);
        }
        release(&[sum, mean]);
    }
    // Over both dimensions as a set (one reduction per dimension, the mean a sum / count).
    let (mut sum, mut mean) = (0, 0);
    ok(sl_reduce_dims(SL_SUM, h, 0b11, &mut sum));
    ok(sl_reduce_dims(SL_MEAN, h, 0b11, &mut mean));
    let count = a.v.iter().filter(|x| x.f() != 0.0).count();
    let (s, m) = (download(sum), download(mean));
    assert_eq!((s.dt, m.dt), (SL_I64, SL_F64), "sum and mean of bool over a set of dimensions");
    assert_eq!(s.v[0].f(), count as f64, "sum of bool over both dimensions");
    assert!((m.v[0].f() - count as f64 / a.v.len() as f64).abs() <= 1e-15, "mean of bool over both: {:?}", m.v[0]);
    release(&[h, sum, mean]);
}

#[test]
fn select_promotes_its_choices_and_takes_scalars() {
    let mut rng = rng("select_promotes_its_choices_and_takes_scalars");
    let n = 47;
    let cond = rand_arr(&mut rng, SL_BOOL, &[n], 0.0, 1.0, false);
    let hc = cond.upload();
    for (i, &ta) in TYPES.iter().enumerate().take(6) {
        for (j, &tb) in TYPES.iter().enumerate().take(6) {
            let t = TABLE[i][j];
            let (a, b) =
                (rand_arr(&mut rng, ta, &[n], -50.0, 50.0, false), rand_arr(&mut rng, tb, &[n], -50.0, 50.0, false));
            let (ha, hb) = (a.upload(), b.upload());
            let mut out = 0;
            ok(sl_select(hc, ha, hb, &mut out));
            let want: Vec<V> = (0..n).map(|k| if cond.v[k] == V::B(true) { a.v[k] } else { b.v[k] }.cast(t)).collect();
            assert_close(&format!("select {ta} {tb}"), &download(out), &Arr::new(t, &[n], want), 0.0);
            release(&[ha, hb, out]);
        }
    }
    // cond ? a : s and cond ? s : a with a weak double scalar.
    for (ta, t) in [(SL_F32, SL_F32), (SL_F64, SL_F64), (SL_I32, SL_F64), (SL_U8, SL_F64), (SL_BOOL, SL_F64)] {
        let a = rand_arr(&mut rng, ta, &[n], -50.0, 50.0, false);
        let ha = a.upload();
        let s = rng.random_range(-400..400) as f64 / 8.0;
        for first in [false, true] {
            let mut out = 0;
            if first {
                ok(sl_scalar_select(hc, s, ha, &mut out));
            } else {
                ok(sl_select_scalar(hc, ha, s, &mut out));
            }
            let want: Vec<V> = (0..n)
                .map(|k| if (cond.v[k] == V::B(true)) != first { a.v[k].cast(t) } else { V::F64(s).cast(t) })
                .collect();
            assert_close(
                &format!("select {ta} with scalar (first: {first})"),
                &download(out),
                &Arr::new(t, &[n], want),
                0.0,
            );
            release(&[out]);
        }
        release(&[ha]);
    }
    release(&[hc]);
}
