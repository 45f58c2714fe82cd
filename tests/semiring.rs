//! Generalized inner products (`sl_inner_product`) against plain loops on random operands
//! of every type, with NaN and infinities, given as dense arrays and as views (transposes,
//! strided sections), batched and broadcast; min-plus against Floyd–Warshall and or-and
//! against a reachability loop; generalized outer products (`sl_outer_product`).

mod common;

use common::reference;
use common::*;
use rand::Rng;
use rand::rngs::StdRng;
use sluice::*;

/// How an operand reaches the call.
#[derive(Copy, Clone, Debug)]
enum Form {
    Dense,
    /// The transpose of a stored array (a view, read in place).
    Transposed,
    /// Every other row and a column offset of a larger array.
    Section,
}

const FORMS: [Form; 3] = [Form::Dense, Form::Transposed, Form::Section];

/// The pairs a product kernel computes, per type, and some that compose.
const KERNEL_PAIRS: [(sl_reduce_op, sl_binary_op); 8] = [
    (SL_MINVAL, SL_ADD),
    (SL_MAXVAL, SL_ADD),
    (SL_MAXVAL, SL_MIN),
    (SL_MINVAL, SL_MAX),
    (SL_MAXVAL, SL_MUL),
    (SL_MINVAL, SL_MUL),
    (SL_MINVAL, SL_MIN),
    (SL_MAXVAL, SL_MAX),
];
const BOOL_PAIRS: [(sl_reduce_op, sl_binary_op); 6] =
    [(SL_ANY, SL_AND), (SL_ALL, SL_OR), (SL_MAXVAL, SL_AND), (SL_MINVAL, SL_OR), (SL_SUM, SL_EQ), (SL_ANY, SL_XOR)];
const COMPOSED_PAIRS: [(sl_reduce_op, sl_binary_op); 5] =
    [(SL_SUM, SL_EQ), (SL_COUNT, SL_LT), (SL_SUM, SL_SUB), (SL_ANY, SL_GT), (SL_PROD, SL_MAX)];

/// A random operand of type `dt` (m x n, as `form`), with its values as a dense array.
fn operand(rng: &mut StdRng, dt: sl_dtype, shape: &[usize], form: Form, special: bool) -> (sl_array, Arr) {
    let (lo, hi) = range(dt);
    let (m, n) = (shape[0], shape[1]);
    let rest = &shape[2..];
    match form {
        Form::Dense => {
            let a = rand_arr(rng, dt, shape, lo, hi, special);
            (a.upload(), a)
        }
        Form::Transposed => {
            let mut tshape = vec![n, m];
            tshape.extend_from_slice(rest);
            let t = rand_arr(rng, dt, &tshape, lo, hi, special);
            let ht = t.upload();
            let mut h = 0;
            ok(sl_transpose(ht, &mut h));
            release(&[ht]);
            let v = (0..numel(shape))
                .map(|x| {
                    let mut idx = unravel(shape, x);
                    idx.swap(0, 1);
                    t.at(&idx)
                })
                .collect();
            (h, Arr::new(dt, shape, v))
        }
        Form::Section => {
            let mut pshape = vec![2 * m + 1, n + 3];
            pshape.extend_from_slice(rest);
            let p = rand_arr(rng, dt, &pshape, lo, hi, special);
            let hp = p.upload();
            let rank = shape.len();
            let mut start = vec![1i64, 2];
            let mut stride = vec![2i64, 1];
            start.resize(rank, 0);
            stride.resize(rank, 1);
            let count: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
            let mut h = 0;
            ok(sl_section(hp, start.as_ptr(), count.as_ptr(), stride.as_ptr(), &mut h));
            release(&[hp]);
            let v = (0..numel(shape))
                .map(|x| {
                    let mut idx = unravel(shape, x);
                    idx[0] = 1 + 2 * idx[0];
                    idx[1] += 2;
                    p.at(&idx)
                })
                .collect();
            (h, Arr::new(dt, shape, v))
        }
    }
}

/// Value ranges that make sums and products wrap for the small integer types.
fn range(dt: sl_dtype) -> (f64, f64) {
    match dt {
        SL_U8 => (0.0, 255.0),
        SL_I32 => (-2e9, 2e9),
        SL_I64 => (-1e18, 1e18),
        _ => (-4.0, 4.0),
    }
}

/// `reduce` over p of `combine(a[i, p, b...], b[p, j, b...])` by the test suite's
/// reference ops, with `matmul`'s batch broadcasting; `out` is the result's shape.
fn inner_loop(reduce: sl_reduce_op, combine: sl_binary_op, a: &Arr, b: &Arr, out: &[usize]) -> Arr {
    let k = a.shape[1];
    let mut vals = Vec::with_capacity(numel(out));
    let mut dt = None;
    for x in 0..numel(out) {
        let idx = unravel(out, x);
        let at = |arr: &Arr, r: usize, c: usize| {
            let mut i = vec![r, c];
            i.extend(arr.shape.iter().zip(&idx).skip(2).map(|(&size, &at)| if size == 1 { 0 } else { at }));
            arr.at(&i)
        };
        let terms: Vec<V> = (0..k).map(|p| reference::binary(combine, at(a, idx[0], p), at(b, p, idx[1]))).collect();
        let tdt = reference::binary_result_dtype(combine, a.dt);
        let r = reference::reduce(reduce, &Arr::new(tdt, &[k], terms), None);
        dt = Some(r.dt);
        vals.push(r.v[0]);
    }
    let dt = dt.unwrap_or_else(|| reference::reduce(reduce, &Arr::new(a.dt, &[0], vec![]), None).dt);
    Arr::new(dt, out, vals)
}

fn inner(reduce: sl_reduce_op, combine: sl_binary_op, a: sl_array, b: sl_array) -> Arr {
    let mut c = 0;
    ok(sl_inner_product(reduce, combine, a, b, &mut c));
    let got = download(c);
    release(&[c]);
    got
}

/// Min and max pairs are exact; float sums and products are within their rounding
/// (terms of at most 8 in magnitude).
fn assert_pair(what: &str, reduce: sl_reduce_op, got: &Arr, want: &Arr, k: usize) {
    if matches!(reduce, SL_SUM | SL_PROD) && matches!(want.dt, SL_F32 | SL_F64) {
        let eps = if want.dt == SL_F32 { 1.2e-7 } else { 2.3e-16 };
        assert_near(what, got, want, 32.0 * k as f64 * eps, 4.0 * k as f64 * eps);
    } else {
        assert_close(what, got, want, 0.0);
    }
}

/// Every pair on every type it takes, with operands in every form, odd sizes, NaN and
/// infinities among the floats.
#[test]
fn every_pair_against_a_loop() {
    let mut rng = rng("every_pair_against_a_loop");
    for dt in [SL_F32, SL_F64, SL_I32, SL_I64, SL_U8, SL_BOOL] {
        let pairs: Vec<_> = if dt == SL_BOOL {
            BOOL_PAIRS.to_vec()
        } else {
            KERNEL_PAIRS.iter().chain(&COMPOSED_PAIRS).copied().collect()
        };
        for (reduce, combine) in pairs {
            for &(m, k, n) in &[(1, 1, 1), (3, 70, 5), (33, 9, 17), (40, 300, 6)] {
                let (fa, fb) = (FORMS[rng.random_range(0..3)], FORMS[rng.random_range(0..3)]);
                let (ha, a) = operand(&mut rng, dt, &[m, k], fa, true);
                let (hb, b) = operand(&mut rng, dt, &[k, n], fb, true);
                let got = inner(reduce, combine, ha, hb);
                let want = inner_loop(reduce, combine, &a, &b, &[m, n]);
                let what = format!("{dt} ({reduce}, {combine}) {m}x{k}x{n} {fa:?} {fb:?}");
                assert_pair(&what, reduce, &got, &want, k);
                release(&[ha, hb]);
            }
        }
    }
}

/// An inner dimension of 0 gives the reduction's identity; vectors on either side drop
/// their unit dimension, as `sl_matmul`'s.
#[test]
fn empty_inner_dimension_and_vectors() {
    let mut rng = rng("empty_inner_dimension_and_vectors");
    for (dt, reduce, combine) in
        [(SL_F32, SL_MINVAL, SL_ADD), (SL_I32, SL_MAXVAL, SL_ADD), (SL_BOOL, SL_ALL, SL_OR), (SL_BOOL, SL_ANY, SL_AND)]
    {
        let (ha, a) = operand(&mut rng, dt, &[4, 0], Form::Dense, false);
        let (hb, b) = operand(&mut rng, dt, &[0, 3], Form::Dense, false);
        let got = inner(reduce, combine, ha, hb);
        assert_close(&format!("{dt} k = 0"), &got, &inner_loop(reduce, combine, &a, &b, &[4, 3]), 0.0);
        release(&[ha, hb]);
        let (hm, mm) = operand(&mut rng, dt, &[5, 7], Form::Transposed, true);
        let (hv, v) = operand(&mut rng, dt, &[7, 1], Form::Dense, true);
        let mut hv1 = 0;
        ok(sl_reshape(hv, 1, [7i64].as_ptr(), &mut hv1));
        let got = inner(reduce, combine, hm, hv1);
        assert_eq!(got.shape, vec![5]);
        let want = inner_loop(reduce, combine, &mm, &v, &[5, 1]);
        assert_close(&format!("{dt} matrix x vector"), &got, &Arr::new(want.dt, &[5], want.v), 0.0);
        release(&[hm, hv, hv1]);
    }
}

/// Stacks of matrices broadcast against each other as `sl_matmul`'s do.
#[test]
fn batched_products() {
    let mut rng = rng("batched_products");
    for (dt, reduce, combine) in [
        (SL_F32, SL_MINVAL, SL_ADD),
        (SL_F64, SL_MAXVAL, SL_MIN),
        (SL_I64, SL_MINVAL, SL_ADD),
        (SL_BOOL, SL_ANY, SL_AND),
        (SL_I32, SL_SUM, SL_MUL),
    ] {
        for (sa, sb, out) in [
            (vec![5, 6, 3], vec![6, 4], vec![5, 4, 3]),
            (vec![3, 9, 1, 2], vec![9, 20, 3], vec![3, 20, 3, 2]),
            (vec![2, 2, 200], vec![2, 2, 200], vec![2, 2, 200]),
        ] {
            let form = FORMS[rng.random_range(0..3)];
            let (ha, a) = operand(&mut rng, dt, &sa, form, true);
            let (hb, b) = operand(&mut rng, dt, &sb, Form::Dense, true);
            let got = inner(reduce, combine, ha, hb);
            let want = inner_loop(reduce, combine, &a, &b, &out);
            assert_pair(&format!("{dt} ({reduce}, {combine}) {sa:?} x {sb:?} {form:?}"), reduce, &got, &want, sa[1]);
            release(&[ha, hb]);
        }
    }
}

/// A random weighted digraph's distance matrix: integer weights (sums are exact), inf
/// where there is no edge, 0 on the diagonal.
fn graph(rng: &mut StdRng, n: usize) -> Vec<f64> {
    let mut d = vec![f64::INFINITY; n * n];
    for i in 0..n {
        for j in 0..n {
            if i == j {
                d[i + j * n] = 0.0;
            } else if rng.random_bool(0.1) {
                d[i + j * n] = rng.random_range(1..100) as f64;
            }
        }
    }
    d
}

/// Squaring a distance matrix in (min, +) log2(n) times gives every shortest path:
/// Floyd–Warshall's result, exactly (integer weights).
#[test]
fn min_plus_squaring_is_floyd_warshall() {
    let mut rng = rng("min_plus_squaring_is_floyd_warshall");
    for (dt, n) in [(SL_F32, 70), (SL_F64, 33), (SL_I64, 50)] {
        let d = graph(&mut rng, n);
        // Integers take a large finite value for "no edge" (it never wraps in two sums).
        let value = |x: f64| match dt {
            SL_F32 => V::F32(x as f32),
            SL_F64 => V::F64(x),
            _ => V::I64(if x.is_infinite() { 1 << 40 } else { x as i64 }),
        };
        let mut fw = d.clone();
        for p in 0..n {
            for j in 0..n {
                for i in 0..n {
                    fw[i + j * n] = fw[i + j * n].min(fw[i + p * n] + fw[p + j * n]);
                }
            }
        }
        let mut h = Arr::new(dt, &[n, n], d.iter().map(|&x| value(x)).collect()).upload();
        let mut steps = 1;
        while steps < n {
            let mut next = 0;
            ok(sl_inner_product(SL_MINVAL, SL_ADD, h, h, &mut next));
            release(&[h]);
            h = next;
            steps *= 2;
        }
        let got = download(h);
        release(&[h]);
        // Unreachable pairs keep the sentinel: 0 (the diagonal) plus it is one term.
        let want = Arr::new(dt, &[n, n], fw.iter().map(|&x| value(x)).collect());
        assert_close(&format!("{dt} min-plus squaring of a {n}-node graph"), &got, &want, 0.0);
    }
}

/// Squaring (A or I) in (or, and) gives reachability, as a breadth-first loop finds it.
#[test]
fn or_and_squaring_is_reachability() {
    let mut rng = rng("or_and_squaring_is_reachability");
    let n = 90;
    let adj: Vec<bool> = (0..n * n).map(|x| x % (n + 1) == 0 || rng.random_bool(0.02)).collect();
    let mut reach = adj.clone();
    loop {
        let mut grew = false;
        for i in 0..n {
            for j in 0..n {
                if !reach[i + j * n] && (0..n).any(|p| reach[i + p * n] && adj[p + j * n]) {
                    reach[i + j * n] = true;
                    grew = true;
                }
            }
        }
        if !grew {
            break;
        }
    }
    let mut h = Arr::new(SL_BOOL, &[n, n], adj.iter().map(|&x| V::B(x)).collect()).upload();
    for _ in 0..7 {
        let mut next = 0;
        ok(sl_inner_product(SL_ANY, SL_AND, h, h, &mut next));
        release(&[h]);
        h = next;
    }
    let got = download(h);
    release(&[h]);
    assert_close("reachability", &got, &Arr::new(SL_BOOL, &[n, n], reach.iter().map(|&x| V::B(x)).collect()), 0.0);
}

/// The generalized outer product against a loop: any op, any shapes.
#[test]
fn outer_products() {
    let mut rng = rng("outer_products");
    for (dt, op, sa, sb) in [
        (SL_F32, SL_SUB, vec![3, 2], vec![4]),
        (SL_I32, SL_GE, vec![5], vec![2, 3]),
        (SL_F64, SL_MAX, vec![7], vec![6]),
        (SL_BOOL, SL_XOR, vec![2, 2], vec![3, 1, 2]),
        (SL_U8, SL_MUL, vec![], vec![9]),
    ] {
        let (ha, hb) = (rand_arr(&mut rng, dt, &sa, -5.0, 5.0, true), rand_arr(&mut rng, dt, &sb, -5.0, 5.0, true));
        let (a, b) = (ha.upload(), hb.upload());
        let mut c = 0;
        ok(sl_outer_product(op, a, b, &mut c));
        let got = download(c);
        let shape: Vec<usize> = sa.iter().chain(&sb).copied().collect();
        let v = (0..numel(&shape))
            .map(|x| {
                let idx = unravel(&shape, x);
                reference::binary(op, ha.at(&idx[..sa.len()]), hb.at(&idx[sa.len()..]))
            })
            .collect();
        let want = Arr::new(reference::binary_result_dtype(op, dt), &shape, v);
        assert_close(&format!("{dt} outer {op} {sa:?} x {sb:?}"), &got, &want, 0.0);
        release(&[a, b, c]);
    }
}

/// Pairs not defined for a type, reductions that are not plain, and shapes that do not
/// conform are refused at the call; work queued before stays.
#[test]
fn refused_calls() {
    let mut rng = rng("refused_calls");
    let (hf, f) = operand(&mut rng, SL_F32, &[3, 4], Form::Dense, false);
    let (hd, _) = operand(&mut rng, SL_F64, &[4, 2], Form::Dense, false);
    let (hb, _) = operand(&mut rng, SL_BOOL, &[4, 2], Form::Dense, false);
    let (hc, _) = operand(&mut rng, SL_F32, &[3, 2], Form::Dense, false);
    let mut queued = 0;
    ok(sl_neg(hf, &mut queued));
    let mut out = 0;
    fails(sl_inner_product(SL_MINVAL, SL_ADD, hf, hd, &mut out), SL_ERR_DTYPE_MISMATCH, "f32 and f64");
    fails(
        sl_inner_product(SL_MINVAL, SL_ADD, hb, hb, &mut out),
        SL_ERR_DTYPE_MISMATCH,
        "(min, add) is not defined for bool",
    );
    fails(
        sl_inner_product(SL_ANY, SL_AND, hf, hf, &mut out),
        SL_ERR_DTYPE_MISMATCH,
        "(any, and) is not defined for f32",
    );
    fails(sl_inner_product(SL_MEAN, SL_ADD, hf, hf, &mut out), SL_ERR_INVALID_ARGUMENT, "reduce is mean");
    fails(sl_inner_product(SL_NANMIN, SL_ADD, hf, hf, &mut out), SL_ERR_INVALID_ARGUMENT, "not a nan-ignoring");
    fails(sl_inner_product(SL_MINVAL, 99, hf, hf, &mut out), SL_ERR_INVALID_ARGUMENT, "99 is not an sl_binary_op");
    fails(sl_inner_product(SL_MINVAL, SL_ADD, hf, hc, &mut out), SL_ERR_SHAPE_MISMATCH, "[3, 4] times [3, 2]");
    let dims = [1i64; 5];
    let mut h5 = 0;
    ok(sl_reshape(hf, 5, [3i64, 4, 1, 1, 1].as_ptr(), &mut h5));
    let mut h4 = 0;
    ok(sl_constant(SL_F32, 4, dims.as_ptr(), 1.0, &mut h4));
    fails(sl_outer_product(SL_ADD, h5, h4, &mut out), SL_ERR_INVALID_ARGUMENT, "rank 9");
    fails(sl_outer_product(SL_AND, hf, hf, &mut out), SL_ERR_DTYPE_MISMATCH, "and is not defined for f32");
    assert_eq!(out, 0);
    let got = download(queued);
    assert_close("queued negation", &got, &reference::map1(&f, |x| reference::unary(SL_NEG, x)), 0.0);
    release(&[hf, hd, hb, hc, h5, h4, queued]);
}

/// Rounds of the same products: compared against the reference under compute
/// comparison, replayed from the trace cache otherwise.
#[test]
#[ignore = "run by products_compared_and_replayed in a child process"]
fn semiring_rounds_child() {
    let mut rng = rng("semiring_rounds_child");
    rounds_compared_or_replayed(5, |round| {
        for (dt, reduce, combine) in [
            (SL_F32, SL_MINVAL, SL_ADD),
            (SL_F64, SL_MAXVAL, SL_MIN),
            (SL_I32, SL_MAXVAL, SL_ADD),
            (SL_BOOL, SL_ANY, SL_AND),
            (SL_F32, SL_SUM, SL_EQ),
        ] {
            let (ha, a) = operand(&mut rng, dt, &[20, 33, 2], Form::Section, true);
            let (hb, b) = operand(&mut rng, dt, &[33, 7], Form::Transposed, true);
            let got = inner(reduce, combine, ha, hb);
            let want = inner_loop(reduce, combine, &a, &b, &[20, 7, 2]);
            assert_pair(&format!("round {round} {dt} ({reduce}, {combine})"), reduce, &got, &want, 33);
            release(&[ha, hb]);
        }
    });
}

#[test]
fn products_compared_and_replayed() {
    child("semiring_rounds_child", &[("SLUICE_COMPARE", "compute"), ("SLUICE_COMPARE_ACTION", "error")]);
    child("semiring_rounds_child", &[]);
}

/// On Vulkan the float and integer pairs run in the tiled product kernel (f64 where the
/// device has it), the small form included.
#[test]
fn device_kernel_runs() {
    let mut rng = rng("device_kernel_runs");
    for (dt, shape) in [(SL_F32, [40, 50, 30]), (SL_I32, [3, 20, 4]), (SL_I64, [17, 33, 18])] {
        let (ha, a) = operand(&mut rng, dt, &[shape[0], shape[1]], Form::Dense, true);
        let (hb, b) = operand(&mut rng, dt, &[shape[1], shape[2]], Form::Section, true);
        let (got, ran) = read_counting(sluice::backend::vulkan::Handwritten::MatMul, || {
            let mut c = 0;
            ok(sl_inner_product(SL_MINVAL, SL_ADD, ha, hb, &mut c));
            c
        });
        let want = inner_loop(SL_MINVAL, SL_ADD, &a, &b, &[shape[0], shape[2]]);
        assert_close(&format!("{dt} min-plus"), &got, &want, 0.0);
        assert_handwritten(&format!("{dt} min-plus"), "product kernel", ran, true);
        release(&[ha, hb]);
    }
}
