//! The integer types i8, i16, u16, u32 and u64 through every op defined for integers,
//! against a plain reference: values held as i128 (every value of every integer type),
//! wrapped into the type after each op as Rust's wrapping arithmetic does. Inputs cover
//! each type's whole range (min, max, 0, -1, values next to them, uniform draws), odd
//! lengths and views. On Vulkan, i8, u32 and u64 are computed on the device, the others on
//! the CPU.

mod common;

use common::*;
use rand::Rng;
use rand::rngs::StdRng;
use sluice::*;

const NEW: [sl_dtype; 5] = [SL_I8, SL_I16, SL_U16, SL_U32, SL_U64];
/// Every integer type, for casts and mixed-type ops.
const INTS: [sl_dtype; 9] = [SL_I8, SL_I16, SL_I32, SL_I64, SL_U8, SL_U16, SL_U32, SL_U64, SL_BOOL];
const LENGTHS: [usize; 3] = [1, 1000, 65539];

/// A reference op on values (before wrapping into the result type).
type Unary = fn(i128) -> i128;
/// A reference op combining a running value and an element.
type Fold = fn(i128, i128) -> i128;

fn signed(t: sl_dtype) -> bool {
    matches!(t, SL_I8 | SL_I16 | SL_I32 | SL_I64)
}

fn bytes_of(t: sl_dtype) -> usize {
    match t {
        SL_I8 | SL_U8 | SL_BOOL => 1,
        SL_I16 | SL_U16 => 2,
        SL_I32 | SL_U32 | SL_F32 => 4,
        _ => 8,
    }
}

fn range(t: sl_dtype) -> (i128, i128) {
    if t == SL_BOOL {
        return (0, 1);
    }
    let bits = 8 * bytes_of(t) as u32;
    if signed(t) { (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1) } else { (0, (1i128 << bits) - 1) }
}

/// `v` wrapped into `t` (bool: nonzero is true).
fn wrap(t: sl_dtype, v: i128) -> i128 {
    if t == SL_BOOL {
        return (v != 0) as i128;
    }
    let (lo, hi) = range(t);
    (v - lo).rem_euclid(hi - lo + 1) + lo
}

/// Integer values of type `t` in column-major order.
#[derive(Clone, Debug, PartialEq)]
struct Ints {
    t: sl_dtype,
    shape: Vec<usize>,
    v: Vec<i128>,
}

impl Ints {
    fn upload(&self) -> sl_array {
        let b: Vec<u8> =
            self.v.iter().flat_map(|&x| (x as u128).to_le_bytes().into_iter().take(bytes_of(self.t))).collect();
        let dims: Vec<i64> = self.shape.iter().map(|&d| d as i64).collect();
        let mut h = 0;
        ok(sl_create(self.t, dims.len() as i32, dims.as_ptr(), SL_COL_MAJOR, b.as_ptr() as *const _, b.len(), &mut h));
        h
    }

    fn map(&self, t: sl_dtype, mut f: impl FnMut(i128) -> i128) -> Ints {
        Ints { t, shape: self.shape.clone(), v: self.v.iter().map(|&x| wrap(t, f(x))).collect() }
    }
}

fn decode(t: sl_dtype, b: &[u8]) -> Vec<i128> {
    b.chunks_exact(bytes_of(t))
        .map(|c| {
            let mut w = [0u8; 16];
            w[..c.len()].copy_from_slice(c);
            wrap(t, u128::from_le_bytes(w) as i128)
        })
        .collect()
}

#[track_caller]
fn read_ints(h: sl_array) -> Ints {
    let (t, shape) = (dtype_of(h), shape_of(h));
    let mut b = vec![0u8; numel(&shape) * bytes_of(t)];
    ok(sl_read(h, SL_COL_MAJOR, b.as_mut_ptr() as *mut _, b.len()));
    Ints { t, shape, v: decode(t, &b) }
}

#[track_caller]
fn expect(what: &str, h: sl_array, want: &Ints) {
    let got = read_ints(h);
    assert_eq!((got.t, &got.shape), (want.t, &want.shape), "{what}: type and shape");
    if let Some(i) = (0..want.v.len()).find(|&i| got.v[i] != want.v[i]) {
        panic!("{what}: element {i} is {}, want {}", got.v[i], want.v[i]);
    }
}

/// A value of `t`: an edge of the range a third of the time, else uniform over it.
fn draw(rng: &mut StdRng, t: sl_dtype) -> i128 {
    let (lo, hi) = range(t);
    if rng.random_bool(0.3) {
        let edges = [lo, lo + 1, hi, hi - 1, 0, 1, -1, 2];
        return wrap(t, edges[rng.random_range(0..edges.len())]);
    }
    lo + (rng.random::<u64>() as i128).rem_euclid(hi - lo + 1)
}

fn random(rng: &mut StdRng, t: sl_dtype, shape: &[usize]) -> Ints {
    Ints { t, shape: shape.to_vec(), v: (0..numel(shape)).map(|_| draw(rng, t)).collect() }
}

fn int_pow(b: i128, e: i128, t: sl_dtype) -> i128 {
    if e < 0 {
        return match b {
            1 => 1,
            -1 => 1 - 2 * (e & 1),
            _ => 0,
        };
    }
    let (mut r, mut b, mut e) = (1i128, b, e);
    while e > 0 {
        if e & 1 == 1 {
            r = wrap(t, r.wrapping_mul(b));
        }
        b = wrap(t, b.wrapping_mul(b));
        e >>= 1;
    }
    r
}

/// `op(x, y)` at type `t` (comparisons give 0 or 1).
fn binary(op: sl_binary_op, t: sl_dtype, x: i128, y: i128) -> i128 {
    let bits = 8 * bytes_of(t) as i128;
    match op {
        SL_ADD => x + y,
        SL_SUB => x - y,
        SL_MUL => x.wrapping_mul(y),
        SL_DIV if y == 0 => 0,
        SL_DIV => x / y,
        SL_REM if y == 0 => 0,
        SL_REM => x % y,
        SL_POW => int_pow(x, y, t),
        SL_MIN => x.min(y),
        SL_MAX => x.max(y),
        SL_AND => x & y,
        SL_OR => x | y,
        SL_XOR => x ^ y,
        SL_SHL if (0..bits).contains(&y) => x << y,
        SL_SHR if (0..bits).contains(&y) => x >> y,
        SL_SHL => 0,
        SL_SHR => -((x < 0) as i128),
        SL_EQ => (x == y) as i128,
        SL_NE => (x != y) as i128,
        SL_LT => (x < y) as i128,
        SL_LE => (x <= y) as i128,
        SL_GT => (x > y) as i128,
        SL_GE => (x >= y) as i128,
        _ => unreachable!(),
    }
}

const COMPARISONS: [sl_binary_op; 6] = [SL_EQ, SL_NE, SL_LT, SL_LE, SL_GT, SL_GE];
const ARITHMETIC: [sl_binary_op; 13] =
    [SL_ADD, SL_SUB, SL_MUL, SL_DIV, SL_REM, SL_POW, SL_MIN, SL_MAX, SL_AND, SL_OR, SL_XOR, SL_SHL, SL_SHR];

#[test]
fn binary_ops_wrap_around() {
    let mut rng = rng("binary_ops_wrap_around");
    for t in NEW {
        for n in LENGTHS {
            let a = random(&mut rng, t, &[n]);
            let mut b = random(&mut rng, t, &[n]);
            let bits = 8 * bytes_of(t) as i128;
            for op in ARITHMETIC.into_iter().chain(COMPARISONS) {
                if matches!(op, SL_SHL | SL_SHR | SL_POW) {
                    // Counts and exponents around 0..bits, some outside.
                    b = b.map(t, |_| wrap(t, rng.random_range(-3..bits + 3)));
                }
                let (ha, hb) = (a.upload(), b.upload());
                let mut out = 0;
                ok(sl_binary(op, ha, hb, &mut out));
                let rt = if COMPARISONS.contains(&op) { SL_BOOL } else { t };
                let want = Ints {
                    t: rt,
                    shape: a.shape.clone(),
                    v: a.v.iter().zip(&b.v).map(|(&x, &y)| wrap(rt, binary(op, t, x, y))).collect(),
                };
                expect(&format!("{t} op {op} n={n}"), out, &want);
                release(&[ha, hb, out]);
            }
        }
    }
}

#[test]
fn unary_ops_wrap_around() {
    let mut rng = rng("unary_ops_wrap_around");
    for t in NEW {
        let a = random(&mut rng, t, &[1000]);
        let h = a.upload();
        let ops: [(sl_unary_op, Unary); 5] =
            [(SL_NEG, |x| -x), (SL_ABS, |x| x.abs()), (SL_SIGN, |x| x.signum()), (SL_NOT, |x| !x), (SL_TRUNC, |x| x)];
        for (op, f) in ops {
            let mut out = 0;
            ok(sl_unary(op, h, &mut out));
            expect(&format!("unary {op} of {t}"), out, &a.map(t, f));
            release(&[out]);
        }
        release(&[h]);
    }
}

/// The cast op's conversion of a float to integer type `t`: truncation, saturating,
/// NaN to 0 (Rust `as`).
fn float_to(t: sl_dtype, x: f64) -> i128 {
    match t {
        SL_I8 => x as i8 as i128,
        SL_I16 => x as i16 as i128,
        SL_I32 => x as i32 as i128,
        SL_I64 => x as i64 as i128,
        SL_U8 => x as u8 as i128,
        SL_U16 => x as u16 as i128,
        SL_U32 => x as u32 as i128,
        SL_U64 => x as u64 as i128,
        _ => (x != 0.0) as i128,
    }
}

#[test]
fn casts_between_every_type() {
    let mut rng = rng("casts_between_every_type");
    let n = 777;
    for t in NEW {
        let a = random(&mut rng, t, &[n]);
        let h = a.upload();
        // To every integer type: wrapping (bool: nonzero).
        for to in INTS {
            let mut out = 0;
            ok(sl_cast(h, to, &mut out));
            expect(&format!("{t} to {to}"), out, &a.map(to, |x| x));
            release(&[out]);
        }
        // To floating point: rounded to nearest.
        for to in [SL_F32, SL_F64] {
            let mut out = 0;
            ok(sl_cast(h, to, &mut out));
            let mut b = vec![0u8; n * bytes_of(to)];
            ok(sl_read(out, SL_COL_MAJOR, b.as_mut_ptr() as *mut _, b.len()));
            for (i, &x) in a.v.iter().enumerate() {
                let (got, want) = if to == SL_F32 {
                    (f32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap()) as f64, x as f32 as f64)
                } else {
                    (f64::from_le_bytes(b[8 * i..8 * i + 8].try_into().unwrap()), x as f64)
                };
                assert_eq!(got, want, "{t} {x} to {to}");
            }
            release(&[out]);
        }
        // From every integer type (wrapping) and from floats (saturating).
        for from in INTS {
            let s = random(&mut rng, from, &[n]);
            let hs = s.upload();
            let mut out = 0;
            ok(sl_cast(hs, t, &mut out));
            expect(&format!("{from} to {t}"), out, &s.map(t, |x| x));
            release(&[hs, out]);
        }
        let (lo, hi) = range(t);
        let specials = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.5, 0.99, -1.5, 1e30, -1e30];
        let xs: Vec<f64> = (0..n)
            .map(|i| match i % 4 {
                0 => specials[rng.random_range(0..specials.len())],
                1 => lo as f64 + rng.random_range(-2.0..2.0),
                2 => hi as f64 + rng.random_range(-2.0..2.0),
                _ => rng.random_range(lo as f64..=hi as f64),
            })
            .collect();
        let b: Vec<u8> = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
        let (mut hf, mut out) = (0, 0);
        ok(sl_create(SL_F64, 1, [n as i64].as_ptr(), SL_COL_MAJOR, b.as_ptr() as *const _, b.len(), &mut hf));
        ok(sl_cast(hf, t, &mut out));
        let want = Ints { t, shape: vec![n], v: xs.iter().map(|&x| float_to(t, x)).collect() };
        expect(&format!("f64 to {t}"), out, &want);
        release(&[h, hf, out]);
    }
}

/// The type sums and products of `t` give: i64 for signed types, u64 for these unsigned ones.
fn sum_type(t: sl_dtype) -> sl_dtype {
    if signed(t) { SL_I64 } else { SL_U64 }
}

/// Reduces `a` (rank 2) along `dim`, kept with length 1 (None: all, rank 0) with `f` from
/// `init`, in type `rt`.
fn fold(a: &Ints, dim: Option<usize>, rt: sl_dtype, init: i128, f: impl Fn(i128, i128) -> i128) -> Ints {
    let (m, n) = (a.shape[0], a.shape[1]);
    let at = |i: usize, j: usize| a.v[i + m * j];
    let (shape, v): (Vec<usize>, Vec<i128>) = match dim {
        None => (vec![], vec![a.v.iter().fold(init, |s, &x| wrap(rt, f(s, x)))]),
        Some(0) => (vec![1, n], (0..n).map(|j| (0..m).fold(init, |s, i| wrap(rt, f(s, at(i, j))))).collect()),
        _ => (vec![m, 1], (0..m).map(|i| (0..n).fold(init, |s, j| wrap(rt, f(s, at(i, j))))).collect()),
    };
    Ints { t: rt, shape, v }
}

#[test]
fn reductions_sum_in_64_bits() {
    let mut rng = rng("reductions_sum_in_64_bits");
    for t in NEW {
        for shape in [[1, 1], [37, 29], [3, 21845]] {
            let a = random(&mut rng, t, &shape);
            let h = a.upload();
            let (lo, hi) = range(t);
            let reductions: [(sl_reduce_op, sl_dtype, i128, Fold); 4] = [
                (SL_SUM, sum_type(t), 0, |s, x| s + x),
                (SL_PROD, sum_type(t), 1, |s, x| s.wrapping_mul(x)),
                (SL_MINVAL, t, hi, |s, x| s.min(x)),
                (SL_MAXVAL, t, lo, |s, x| s.max(x)),
            ];
            for (op, rt, init, f) in reductions {
                for dim in [None, Some(0), Some(1)] {
                    let mut out = 0;
                    ok(sl_reduce(op, h, dim.map_or(SL_ALL_DIMS, |d| d as i32), &mut out));
                    let want = fold(&a, dim, rt, init, f);
                    expect(&format!("reduce {op} of {t} {shape:?} along {dim:?}"), out, &want);
                    release(&[out]);
                }
            }
            release(&[h]);
        }
    }
}

#[test]
fn scans_wrap_in_their_type() {
    let mut rng = rng("scans_wrap_in_their_type");
    for t in NEW {
        for n in LENGTHS {
            let a = random(&mut rng, t, &[n]);
            let h = a.upload();
            let scans: [(sl_scan_op, sl_dtype, Fold); 4] = [
                (SL_SCAN_SUM, sum_type(t), |s, x| s + x),
                (SL_SCAN_PROD, sum_type(t), |s, x| s.wrapping_mul(x)),
                (SL_SCAN_MAX, t, |s, x| s.max(x)),
                (SL_SCAN_MIN, t, |s, x| s.min(x)),
            ];
            for (op, rt, f) in scans {
                let mut out = 0;
                ok(sl_scan(op, h, 0, 0, &mut out));
                let mut v = Vec::with_capacity(n);
                for &x in &a.v {
                    let next = v.last().map_or(x, |&s| wrap(rt, f(s, x)));
                    v.push(next);
                }
                expect(&format!("scan {op} of {t} n={n}"), out, &Ints { t: rt, shape: vec![n], v });
                release(&[out]);
            }
            release(&[h]);
        }
    }
}

#[test]
fn sort_and_argsort() {
    let mut rng = rng("sort_and_argsort");
    for t in NEW {
        for n in LENGTHS {
            let a = random(&mut rng, t, &[n]);
            let h = a.upload();
            for order in [SL_ASCENDING, SL_DESCENDING] {
                let mut pos: Vec<usize> = (0..n).collect();
                // Stable in both orders.
                pos.sort_by(|&i, &j| if order == SL_ASCENDING { a.v[i].cmp(&a.v[j]) } else { a.v[j].cmp(&a.v[i]) });
                let (mut s, mut p) = (0, 0);
                ok(sl_sort(h, 0, order, &mut s));
                ok(sl_argsort(h, 0, order, &mut p));
                let sorted = Ints { t, shape: vec![n], v: pos.iter().map(|&i| a.v[i]).collect() };
                expect(&format!("sort {t} n={n} order {order}"), s, &sorted);
                let positions = Ints { t: SL_I64, shape: vec![n], v: pos.iter().map(|&i| i as i128).collect() };
                expect(&format!("argsort {t} n={n} order {order}"), p, &positions);
                release(&[s, p]);
            }
            release(&[h]);
        }
    }
}

#[test]
fn gather_scatter_and_select() {
    let mut rng = rng("gather_scatter_and_select");
    for t in NEW {
        let n = 1000;
        let a = random(&mut rng, t, &[n]);
        let idx = Ints { t: SL_I64, shape: vec![n], v: (0..n).map(|_| rng.random_range(0..n as i128)).collect() };
        let (ha, hi) = (a.upload(), idx.upload());
        let mut out = 0;
        ok(sl_gather(ha, [hi].as_ptr(), 1, &mut out));
        expect(
            &format!("gather {t}"),
            out,
            &Ints { t, shape: vec![n], v: idx.v.iter().map(|&i| a.v[i as usize]).collect() },
        );
        release(&[out]);

        let dst = random(&mut rng, t, &[n]);
        let hd = dst.upload();
        let modes: [(sl_scatter_mode, Fold); 4] = [
            (SL_SCATTER_REPLACE, |_, x| x),
            (SL_SCATTER_ADD, |s, x| s + x),
            (SL_SCATTER_MIN, |s, x| s.min(x)),
            (SL_SCATTER_MAX, |s, x| s.max(x)),
        ];
        for (mode, f) in modes {
            let mut want = dst.clone();
            for (k, &i) in idx.v.iter().enumerate() {
                want.v[i as usize] = wrap(t, f(want.v[i as usize], a.v[k]));
            }
            ok(sl_scatter(hd, [hi].as_ptr(), 1, ha, mode, &mut out));
            expect(&format!("scatter {t} mode {mode}"), out, &want);
            release(&[out]);
        }

        let cond = random(&mut rng, SL_BOOL, &[n]);
        let hc = cond.upload();
        ok(sl_select(hc, ha, hd, &mut out));
        let want = (0..n).map(|i| if cond.v[i] != 0 { a.v[i] } else { dst.v[i] }).collect();
        expect(&format!("select {t}"), out, &Ints { t, shape: vec![n], v: want });
        release(&[ha, hi, hd, hc, out]);
    }
}

#[test]
fn views_as_inputs() {
    let mut rng = rng("views_as_inputs");
    for t in NEW {
        let (m, n) = (37, 41);
        let a = random(&mut rng, t, &[m, n]);
        let b = random(&mut rng, t, &[n, m]);
        let (ha, hb) = (a.upload(), b.upload());
        // a + transpose(b)
        let (mut bt, mut sum) = (0, 0);
        ok(sl_transpose(hb, &mut bt));
        ok(sl_binary(SL_ADD, ha, bt, &mut sum));
        let want = Ints {
            t,
            shape: vec![m, n],
            v: (0..m * n).map(|k| wrap(t, a.v[k] + b.v[(k / m) + n * (k % m)])).collect(),
        };
        expect(&format!("{t} plus a transpose"), sum, &want);
        // every other row of a, backwards columns, times 3
        let (start, count, stride) = ([1i64, n as i64 - 1], [18i64, n as i64], [2i64, -1]);
        let (mut s, mut prod) = (0, 0);
        ok(sl_section(ha, start.as_ptr(), count.as_ptr(), stride.as_ptr(), &mut s));
        ok(sl_binary_scalar_i(SL_MUL, s, 3, &mut prod));
        let want = Ints {
            t,
            shape: vec![18, n],
            v: (0..18 * n).map(|k| wrap(t, 3 * a.v[(1 + 2 * (k % 18)) + m * (n - 1 - k / 18)])).collect(),
        };
        expect(&format!("{t} section times 3"), prod, &want);
        release(&[ha, hb, bt, sum, s, prod]);
    }
}

#[test]
fn mixed_integer_types_promote_and_keep_their_values() {
    let mut rng = rng("mixed_integer_types_promote_and_keep_their_values");
    for ta in NEW {
        for tb in INTS {
            let n = 301;
            let (a, b) = (random(&mut rng, ta, &[n]), random(&mut rng, tb, &[n]));
            let (ha, hb) = (a.upload(), b.upload());
            let mut out = 0;
            ok(sl_binary(SL_ADD, ha, hb, &mut out));
            let t = dtype_of(out);
            if t == SL_F64 {
                // u64 with a signed type: both converted to f64.
                assert!((ta == SL_U64 && signed(tb)) || (tb == SL_U64 && signed(ta)), "{ta} + {tb} is f64");
                release(&[ha, hb, out]);
                continue;
            }
            // The promoted type holds both operands' values: the sum wraps once, in it.
            let (lo, hi) = range(t);
            for x in [range(ta), range(tb)] {
                assert!(lo <= x.0 && x.1 <= hi, "{ta} + {tb} gives {t}, which does not hold both");
            }
            let want = Ints { t, shape: vec![n], v: a.v.iter().zip(&b.v).map(|(&x, &y)| wrap(t, x + y)).collect() };
            expect(&format!("{ta} + {tb}"), out, &want);
            release(&[ha, hb, out]);
        }
    }
}

#[test]
fn weak_integer_scalars_keep_the_type_or_are_refused() {
    for t in NEW {
        let (lo, hi) = range(t);
        let a = Ints { t, shape: vec![3], v: vec![lo, 0, hi] };
        let h = a.upload();
        for s in [lo, hi, 1] {
            let Ok(s) = i64::try_from(s) else { continue };
            let mut out = 0;
            ok(sl_binary_scalar_i(SL_ADD, h, s, &mut out));
            expect(&format!("{t} + {s}"), out, &a.map(t, |x| x + s as i128));
            release(&[out]);
        }
        for s in [lo - 1, hi + 1] {
            let Ok(s) = i64::try_from(s) else { continue };
            let mut out = 0;
            fails(sl_binary_scalar_i(SL_ADD, h, s, &mut out), SL_ERR_DTYPE_MISMATCH, "cannot be represented");
            assert_eq!(out, 0);
        }
        // A double scalar of an integer array gives f64; a constant the type cannot hold is refused.
        let mut out = 0;
        ok(sl_binary_scalar(SL_ADD, h, 0.5, &mut out));
        assert_eq!(dtype_of(out), SL_F64);
        release(&[out]);
        let dims = [2i64];
        fails(
            sl_constant(t, 1, dims.as_ptr(), hi as f64 * 2.0 + 2.0, &mut out),
            SL_ERR_DTYPE_MISMATCH,
            "cannot be represented",
        );
        fails(sl_constant(t, 1, dims.as_ptr(), 0.5, &mut out), SL_ERR_DTYPE_MISMATCH, "cannot be represented");
        release(&[h]);
    }
}

#[test]
fn peek_reads_the_values() {
    let mut rng = rng("peek_reads_the_values");
    for t in NEW {
        let a = random(&mut rng, t, &[5, 7]);
        let h = a.upload();
        let mut twice = 0;
        ok(sl_binary(SL_ADD, h, h, &mut twice));
        let mut b = vec![0u8; 35 * bytes_of(t)];
        ok(sl_debug_peek(twice, SL_COL_MAJOR, b.as_mut_ptr() as *mut _, b.len()));
        assert_eq!(decode(t, &b), a.map(t, |x| 2 * x).v, "peek of {t}");
        release(&[h, twice]);
    }
}

/// In a child process: the step counters are process-wide, and other tests' steps would
/// count.
#[test]
fn vulkan_computes_i8_u32_and_u64_and_hands_i16_and_u16_to_the_cpu() {
    child("where_steps_run_child", &[]);
}

#[test]
#[ignore = "run by vulkan_computes_i8_u32_and_u64_and_hands_i16_and_u16_to_the_cpu in a child"]
fn where_steps_run_child() {
    let mut rng = rng("where_steps_run_child");
    for t in NEW {
        let a = random(&mut rng, t, &[4099]);
        let h = a.upload();
        let before = stats().host_steps;
        let mut out = 0;
        ok(sl_binary(SL_MUL, h, h, &mut out));
        expect(&format!("{t} squared"), out, &a.map(t, |x| x.wrapping_mul(x)));
        let on_host = stats().host_steps > before;
        assert_eq!(on_host, on_vulkan() && matches!(t, SL_I16 | SL_U16), "{t}: step run on the host");
        release(&[h, out]);
    }
}
