//! Every op against the plain reference, on fresh random inputs, for every element type
//! it accepts (and the error for those it does not).

mod common;

use common::reference as r;
use common::*;
use rand::Rng;
use rand::rngs::StdRng;
use sluice::*;

/// Shapes that cover rank 0, empty and singleton dimensions, and sizes around a chunk.
fn shapes(rng: &mut StdRng) -> Vec<Vec<usize>> {
    vec![
        vec![],
        vec![0],
        vec![1],
        vec![rng.random_range(2..40)],
        vec![rng.random_range(1000..3000)],
        vec![rng.random_range(1..20), rng.random_range(1..20)],
        vec![rng.random_range(1..5), 0, 3],
        vec![rng.random_range(1..6), 1, rng.random_range(1..6), rng.random_range(1..4)],
    ]
}

/// Exact ops are compared bit for bit; the rest within the executor's stated bound
/// (`common::max_ulps`).
fn tolerance(exact: bool, op: Inexact, dt: sl_dtype) -> f64 {
    if exact { 0.0 } else { max_ulps(op, dt) }
}

/// A pending copy of `h` (`-(-h)` or `!!h`), so views and ops on it run fused in a kernel
/// instead of on stored data.
fn pending_copy(h: sl_array) -> sl_array {
    let op = if dtype_of(h) == SL_BOOL { SL_NOT } else { SL_NEG };
    let (mut a, mut b) = (0, 0);
    ok(sl_unary(op, h, &mut a));
    ok(sl_unary(op, a, &mut b));
    release(&[a]);
    b
}

/// Every real unary op code (34 to 38, the complex ones, have their own tests in complex.rs).
fn real_unary_ops() -> impl Iterator<Item = sl_unary_op> {
    (0..34).chain(39..43)
}

#[test]
fn unary_ops() {
    let mut rng = rng("unary_ops");
    for op in real_unary_ops() {
        for dt in ALL_DTYPES {
            for shape in shapes(&mut rng) {
                let (lo, hi) = r::unary_domain(op);
                let a = rand_arr(&mut rng, dt, &shape, lo, hi, true);
                let h = a.upload();
                let mut out = 0;
                let st = sl_unary(op, h, &mut out);
                if !r::unary_accepts(op, dt) {
                    fails(st, SL_ERR_DTYPE_MISMATCH, "not defined");
                    release(&[h]);
                    continue;
                }
                ok(st);
                let want = r::map1(&a, |x| r::unary(op, x));
                let want = Arr { dt: r::unary_result_dtype(op, dt), ..want };
                assert_close(
                    &format!("unary {op} on {dt} {shape:?}"),
                    &download(out),
                    &want,
                    tolerance(r::unary_exact(op), Inexact::Unary(op), dt),
                );
                release(&[h, out]);
            }
        }
    }
}

fn binary_domain(op: sl_binary_op, dt: sl_dtype) -> ((f64, f64), (f64, f64)) {
    let float = matches!(dt, SL_F32 | SL_F64);
    match op {
        SL_POW if float => ((0.0, 10.0), (-4.0, 4.0)),
        SL_POW => ((-5.0, 5.0), (-2.0, 6.0)),
        SL_DIV | SL_REM if !float => ((-1000.0, 1000.0), (-3.0, 3.0)),
        // Counts on both sides of the type's width, negative ones included.
        SL_SHL | SL_SHR if dt == SL_U8 => ((0.0, 255.0), (0.0, 12.0)),
        SL_SHL | SL_SHR => ((-100000.0, 100000.0), (-3.0, 70.0)),
        _ if dt == SL_U8 => ((0.0, 255.0), (0.0, 255.0)),
        _ if float => ((-100.0, 100.0), (-100.0, 100.0)),
        _ => ((-100000.0, 100000.0), (-100000.0, 100000.0)),
    }
}

/// Every real binary op code (`SL_COMPLEX`, 19, has its own tests in complex.rs).
fn real_binary_ops() -> impl Iterator<Item = sl_binary_op> {
    (0..19).chain(20..24)
}

#[test]
fn binary_ops() {
    let mut rng = rng("binary_ops");
    for op in real_binary_ops() {
        for dt in ALL_DTYPES {
            let ((alo, ahi), (blo, bhi)) = binary_domain(op, dt);
            let n = rng.random_range(2..30);
            let m = rng.random_range(2..30);
            // same shape, broadcast column against row, scalar (rank 0) on either side
            let pairs = [
                (vec![n, m], vec![n, m]),
                (vec![n, 1], vec![1, m]),
                (vec![], vec![n, m]),
                (vec![n], vec![n, m]),
                (vec![2000], vec![]),
            ];
            for (sa, sb) in pairs {
                let a = rand_arr(&mut rng, dt, &sa, alo, ahi, true);
                let b = rand_arr(&mut rng, dt, &sb, blo, bhi, true);
                let (ha, hb) = (a.upload(), b.upload());
                let mut out = 0;
                let st = sl_binary(op, ha, hb, &mut out);
                if !r::binary_accepts(op, dt) {
                    fails(st, SL_ERR_DTYPE_MISMATCH, "not defined");
                    release(&[ha, hb]);
                    continue;
                }
                ok(st);
                let want = r::map2(&a, &b, |x, y| r::binary(op, x, y));
                let want = Arr { dt: r::binary_result_dtype(op, dt), ..want };
                let what = format!("binary {op} on {dt} {sa:?} {sb:?}");
                assert_close(&what, &download(out), &want, tolerance(r::binary_exact(op), Inexact::Binary(op), dt));
                release(&[ha, hb, out]);
            }
        }
    }
}

#[test]
fn binary_with_scalars() {
    let mut rng = rng("binary_with_scalars");
    for op in real_binary_ops() {
        for dt in ALL_DTYPES {
            if !r::binary_accepts(op, dt) {
                continue;
            }
            let ((alo, ahi), (blo, bhi)) = binary_domain(op, dt);
            let len = rng.random_range(1..3000);
            let a = rand_arr(&mut rng, dt, &[len], alo, ahi, true);
            let s = rand_val(&mut rng, dt, blo, bhi, false);
            let h = a.upload();
            let (mut x, mut y) = (0, 0);
            // The scalar form of the array's kind, which keeps the array's type (other
            // kinds promote: tests/promotion.rs).
            ok(same_kind_scalar(op, h, s.f(), false, &mut x));
            ok(same_kind_scalar(op, h, s.f(), true, &mut y));
            let tol = tolerance(r::binary_exact(op), Inexact::Binary(op), dt);
            let dt_out = r::binary_result_dtype(op, dt);
            let want = Arr { dt: dt_out, ..r::map1(&a, |v| r::binary(op, v, s)) };
            assert_close(&format!("{op} {dt} array-scalar"), &download(x), &want, tol);
            let want = Arr { dt: dt_out, ..r::map1(&a, |v| r::binary(op, s, v)) };
            assert_close(&format!("{op} {dt} scalar-array"), &download(y), &want, tol);
            release(&[h, x, y]);
        }
    }
    // An integer scalar the array's type cannot hold is refused, not wrapped: at each end
    // of the integer ranges the first value beyond is refused, the last one inside is exact.
    let mut out = 0;
    let edges = [(SL_I32, i32::MIN as i64, i32::MAX as i64 + 1), (SL_U8, 0, 256)];
    for (dt, lowest, beyond) in edges {
        let a = rand_arr(&mut rng, dt, &[4], 0.0, 9.0, false);
        let h = a.upload();
        for bad in [beyond, lowest - 1] {
            fails(sl_binary_scalar_i(SL_SUB, h, bad, &mut out), SL_ERR_DTYPE_MISMATCH, "cannot be represented");
            assert_eq!(out, 0);
        }
        ok(sl_binary_scalar_i(SL_MAX, h, lowest, &mut out));
        assert_close(&format!("max with {lowest} {dt}"), &download(out), &a, 0.0);
        release(&[h, out]);
    }
}

#[test]
fn strength_reduction_is_exact() {
    let mut rng = rng("strength_reduction_is_exact");
    for dt in [SL_F32, SL_F64, SL_I32] {
        let a = rand_arr(&mut rng, dt, &[1500], -50.0, 50.0, dt != SL_I32);
        let h = a.upload();
        for e in [2.0, 1.0, 0.0, -1.0] {
            if e < 0.0 && dt == SL_I32 {
                continue;
            }
            let mut out = 0;
            ok(same_kind_scalar(SL_POW, h, e, false, &mut out));
            let s = V::F64(e).cast(dt);
            let want = r::map1(&a, |v| match e {
                2.0 => r::binary(SL_MUL, v, v),
                1.0 => v,
                0.0 => V::F64(1.0).cast(dt),
                _ => r::unary(SL_RCP, v),
            });
            // Exact with respect to the identity each rewrite relies on; the reference pow
            // itself agrees within the usual bound.
            assert_close(&format!("pow {dt} {e}"), &download(out), &want, 0.0);
            let via_pow = Arr { dt, ..r::map1(&a, |v| r::binary(SL_POW, v, s)) };
            assert_close(&format!("pow {dt} {e} vs reference pow"), &download(out), &via_pow, 1.0);
            release(&[out]);
        }
        release(&[h]);
    }
}

#[test]
fn select_and_cast() {
    let mut rng = rng("select_and_cast");
    for dt in ALL_DTYPES {
        let c = rand_arr(&mut rng, SL_BOOL, &[17, 1], 0.0, 1.0, false);
        let a = rand_arr(&mut rng, dt, &[17, 9], -50.0, 50.0, true);
        let b = rand_arr(&mut rng, dt, &[1, 9], -50.0, 50.0, true);
        let (hc, ha, hb) = (c.upload(), a.upload(), b.upload());
        let mut out = 0;
        ok(sl_select(hc, ha, hb, &mut out));
        let want = Arr {
            dt,
            shape: vec![17, 9],
            v: (0..17 * 9)
                .map(|i| {
                    let idx = unravel(&[17, 9], i);
                    if r::bcast_at(&c, &idx) == V::B(true) { r::bcast_at(&a, &idx) } else { r::bcast_at(&b, &idx) }
                })
                .collect(),
        };
        assert_close("select", &download(out), &want, 0.0);
        release(&[out]);
        for to in ALL_DTYPES {
            let src = rand_arr(&mut rng, dt, &[1200], -300.0, 300.0, true);
            let h = src.upload();
            ok(sl_cast(h, to, &mut out));
            let want = Arr { dt: to, shape: src.shape.clone(), v: src.v.iter().map(|v| v.cast(to)).collect() };
            assert_close(&format!("cast {dt} -> {to}"), &download(out), &want, 0.0);
            release(&[h, out]);
        }
        release(&[hc, ha, hb]);
    }
}

#[test]
fn creation_and_layouts() {
    let mut rng = rng("creation_and_layouts");
    for dt in ALL_DTYPES {
        let shape = [rng.random_range(1..7), rng.random_range(1..7), rng.random_range(1..7)];
        let a = rand_arr(&mut rng, dt, &shape, -100.0, 100.0, false);
        // The same array given row-major: element (i, j, k) at k + n2*(j + n1*i).
        let mut row = a.clone();
        for i in 0..a.v.len() {
            let idx = unravel(&shape, i);
            row.v[(idx[0] * shape[1] + idx[1]) * shape[2] + idx[2]] = a.v[i];
        }
        let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        let bytes = row.bytes();
        let mut h = 0;
        ok(sl_create(dt, 3, dims.as_ptr(), SL_ROW_MAJOR, bytes.as_ptr() as *const _, bytes.len(), &mut h));
        assert_close("row-major create", &download(h), &a, 0.0);
        let mut back = vec![0u8; bytes.len()];
        ok(sl_read(h, SL_ROW_MAJOR, back.as_mut_ptr() as *mut _, back.len()));
        assert_eq!(back, bytes, "row-major read");
        release(&[h]);

        let value = rand_val(&mut rng, dt, 0.0, 100.0, false).f().round();
        let value = if dt == SL_BOOL { 1.0 } else { value };
        ok(sl_constant(dt, 3, dims.as_ptr(), value, &mut h));
        let want = Arr::new(dt, &shape, vec![V::F64(value).cast(dt); numel(&shape)]);
        assert_close("constant", &download(h), &want, 0.0);
        release(&[h]);
        if dt != SL_BOOL {
            for d in 0..3 {
                ok(sl_iota(dt, 3, dims.as_ptr(), d, &mut h));
                let want = Arr::new(
                    dt,
                    &shape,
                    (0..numel(&shape)).map(|i| V::I64(unravel(&shape, i)[d as usize] as i64).cast(dt)).collect(),
                );
                assert_close("iota", &download(h), &want, 0.0);
                release(&[h]);
            }
        }
        ok(sl_identity(dt, shape[0] as i64, shape[1] as i64, &mut h));
        let s2 = [shape[0], shape[1]];
        let want = Arr::new(
            dt,
            &s2,
            (0..numel(&s2))
                .map(|i| {
                    let idx = unravel(&s2, i);
                    V::B(idx[0] == idx[1]).cast(dt)
                })
                .collect(),
        );
        assert_close("identity", &download(h), &want, 0.0);
        release(&[h]);
    }
    let mut h = 0;
    ok(sl_scalar(SL_F64, 2.5, &mut h));
    assert_eq!(shape_of(h), Vec::<usize>::new());
    assert_close("scalar", &download(h), &Arr::new(SL_F64, &[], vec![V::F64(2.5)]), 0.0);
    release(&[h]);
}

fn reduce_domain(op: sl_reduce_op) -> (f64, f64) {
    match op {
        SL_PROD => (0.5, 1.5),
        _ => (-100.0, 100.0),
    }
}

#[test]
fn reductions() {
    let mut rng = rng("reductions");
    for op in 0..10 {
        for dt in ALL_DTYPES {
            for shape in shapes(&mut rng) {
                let (lo, hi) = reduce_domain(op);
                let lo = if dt == SL_U8 && op == SL_PROD { 1.0 } else { lo };
                let hi = if dt == SL_U8 && op == SL_PROD { 2.0 } else { hi };
                let a = rand_arr(&mut rng, dt, &shape, lo, hi, op != SL_PROD);
                let h = a.upload();
                let axes: Vec<Option<usize>> = std::iter::once(None).chain((0..shape.len()).map(Some)).collect();
                for axis in axes {
                    for fused in [false, true] {
                        let src = if fused { pending_copy(h) } else { h };
                        let mut out = 0;
                        let st = sl_reduce(op, src, axis.map_or(SL_ALL_DIMS, |d| d as i32), &mut out);
                        {
                            ok(st);
                            let want = r::reduce(op, &a, axis);
                            let what = format!("reduce {op} {dt} {shape:?} axis {axis:?} fused {fused}");
                            let got = download(out);
                            let sum_abs: f64 = a.v.iter().map(|v| v.f().abs()).filter(|x| x.is_finite()).sum();
                            let eps = if dt == SL_F32 { 1e-6 } else { 1e-14 };
                            assert_near(&what, &got, &want, 4.0 * eps * sum_abs, 8.0 * eps);
                            release(&[out]);
                        }
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

#[test]
fn scans() {
    let mut rng = rng("scans");
    for prod in [false, true] {
        for dt in [SL_F32, SL_F64, SL_I32, SL_I64, SL_U8] {
            for shape in [vec![1], vec![3000], vec![7, 5], vec![3, 1500], vec![4, 3, 5], vec![0, 4]] {
                let (lo, hi) = if prod { (0.8, 1.2) } else { (-10.0, 10.0) };
                let (lo, hi) =
                    if dt == SL_U8 || (prod && dt != SL_F32 && dt != SL_F64) { (0.0, 3.0) } else { (lo, hi) };
                let a = rand_arr(&mut rng, dt, &shape, lo, hi, false);
                let h = a.upload();
                for axis in 0..shape.len() {
                    let mut out = 0;
                    ok(if prod { sl_cumprod(h, axis as i32, &mut out) } else { sl_cumsum(h, axis as i32, &mut out) });
                    let want = r::scan(prod, &a, axis);
                    let eps = if dt == SL_F32 { 1e-6 } else { 1e-13 };
                    // Sums in another order than the reference's (the blocked scan on Vulkan)
                    // are off by a few roundings of the magnitudes summed (docs/internals.md).
                    let sum_abs: f64 = if prod { 0.0 } else { a.v.iter().map(|v| v.f().abs()).sum() };
                    assert_near(
                        &format!("scan prod={prod} {dt} {shape:?} axis {axis}"),
                        &download(out),
                        &want,
                        eps * 1e-2 * sum_abs,
                        eps,
                    );
                    release(&[out]);
                }
                release(&[h]);
            }
        }
    }
}

/// Runs `view` on a stored array and on a pending one, comparing both to `want`.
fn check_view(what: &str, a: &Arr, want: &Arr, view: impl Fn(sl_array, &mut sl_array) -> sl_status) {
    let h = a.upload();
    for fused in [false, true] {
        let src = if fused { pending_copy(h) } else { h };
        let mut out = 0;
        ok(view(src, &mut out));
        assert_close(&format!("{what} (fused {fused})"), &download(out), want, 0.0);
        // A view consumed by another op: the remapping runs inside that op's kernel.
        let mut twice = 0;
        ok(sl_binary(SL_EQ, out, out, &mut twice));
        let all_eq = download(twice).v.iter().zip(&want.v).all(|(g, w)| *g == V::B(w.f() == w.f()));
        assert!(all_eq, "{what}: view used in a kernel (fused {fused})");
        release(&[out, twice]);
        if fused {
            release(&[src]);
        }
    }
    release(&[h]);
}

#[test]
fn views() {
    let mut rng = rng("views");
    for dt in [SL_F32, SL_I64, SL_U8, SL_BOOL] {
        let shape = vec![rng.random_range(1..9), rng.random_range(1..9), rng.random_range(1..5)];
        let a = rand_arr(&mut rng, dt, &shape, 0.0, 100.0, false);
        let (n0, n1, n2) = (shape[0], shape[1], shape[2]);

        let want = r::remap(&a, &[n1, n0, n2], |i| Some(vec![i[1], i[0], i[2]]), V::B(false));
        check_view("transpose", &a, &want, |h, o| sl_transpose(h, o));

        let perm = [2, 0, 1];
        let want = r::remap(&a, &[n2, n0, n1], |i| Some(vec![i[1], i[2], i[0]]), V::B(false));
        check_view("permute", &a, &want, |h, o| sl_permute(h, perm.as_ptr(), 3, o));

        let total = numel(&shape) as i64;
        let new = [total, 1];
        let want = Arr { shape: vec![total as usize, 1], ..a.clone() };
        check_view("reshape", &a, &want, |h, o| sl_reshape(h, 2, new.as_ptr(), o));

        // sections with positive, negative and unit strides
        let c0 = rng.random_range(0..=n0);
        let start = [(n0 - 1) as i64, 0, 0];
        let count = [c0 as i64, n1.div_ceil(2) as i64, n2 as i64];
        let stride = [-1, 2, 1];
        let want = r::remap(&a, &[c0, n1.div_ceil(2), n2], |i| Some(vec![n0 - 1 - i[0], 2 * i[1], i[2]]), V::B(false));
        check_view("section", &a, &want, |h, o| sl_section(h, start.as_ptr(), count.as_ptr(), stride.as_ptr(), o));

        let p = rng.random_range(0..n1);
        let want = r::remap(&a, &[n0, n2], |i| Some(vec![i[0], p, i[1]]), V::B(false));
        check_view("project", &a, &want, |h, o| sl_project(h, 1, p as i64, o));

        for dim in 0..3 {
            let n = shape[dim] as i64;
            let k = rng.random_range(-n - 1..=n + 1);
            let fill = V::F64(7.0).cast(dt);
            let fill = if dt == SL_BOOL { V::B(true) } else { fill };
            let want = r::remap(
                &a,
                &shape,
                |i| {
                    let s = i[dim] as i64 - k;
                    (0..n).contains(&s).then(|| {
                        let mut j = i.to_vec();
                        j[dim] = s as usize;
                        j
                    })
                },
                fill,
            );
            check_view("shift fill", &a, &want, |h, o| sl_shift(h, dim as i32, k, SL_BOUNDARY_FILL, fill.f(), o));
            let want = r::remap(
                &a,
                &shape,
                |i| {
                    let mut j = i.to_vec();
                    j[dim] = (i[dim] as i64 - k).clamp(0, n - 1) as usize;
                    Some(j)
                },
                fill,
            );
            check_view("shift clamp", &a, &want, |h, o| sl_shift(h, dim as i32, k, SL_BOUNDARY_CLAMP, 0.0, o));
            let want = r::remap(
                &a,
                &shape,
                |i| {
                    let mut j = i.to_vec();
                    j[dim] = (i[dim] as i64 - k).rem_euclid(n) as usize;
                    Some(j)
                },
                fill,
            );
            check_view("rotate", &a, &want, |h, o| sl_rotate(h, dim as i32, k, o));
        }

        let lo = [rng.random_range(0..4i64), 0, rng.random_range(0..3i64)];
        let hi = [rng.random_range(0..4i64), rng.random_range(0..3i64), 0];
        let out_shape: Vec<usize> = (0..3).map(|d| shape[d] + (lo[d] + hi[d]) as usize).collect();
        for (mode, name) in
            [(SL_BOUNDARY_FILL, "pad fill"), (SL_BOUNDARY_CLAMP, "pad clamp"), (SL_BOUNDARY_WRAP, "pad wrap")]
        {
            let fill = if dt == SL_BOOL { V::B(false) } else { V::F64(3.0).cast(dt) };
            let want = r::remap(
                &a,
                &out_shape,
                |i| {
                    let mut j = Vec::new();
                    for d in 0..3 {
                        let s = i[d] as i64 - lo[d];
                        let n = shape[d] as i64;
                        j.push(match mode {
                            SL_BOUNDARY_FILL if !(0..n).contains(&s) => return None,
                            SL_BOUNDARY_FILL => s,
                            SL_BOUNDARY_CLAMP => s.clamp(0, n - 1),
                            _ => s.rem_euclid(n),
                        } as usize);
                    }
                    Some(j)
                },
                fill,
            );
            check_view(name, &a, &want, |h, o| sl_pad(h, lo.as_ptr(), hi.as_ptr(), mode, fill.f(), o));
        }

        let reps = [2i64, 1, 3, 2];
        let tiled = [n0 * 2, n1, n2 * 3, 2];
        let want = r::remap(&a, &tiled, |i| Some(vec![i[0] % n0, i[1], i[2] % n2]), V::B(false));
        check_view("tile", &a, &want, |h, o| sl_tile(h, reps.as_ptr(), 4, o));

        let col = rand_arr(&mut rng, dt, &[n0, 1, n2], 0.0, 100.0, false);
        let target = [n0 as i64, n1 as i64, n2 as i64];
        let want = r::remap(&col, &shape, |i| Some(vec![i[0], 0, i[2]]), V::B(false));
        check_view("broadcast_to", &col, &want, |h, o| sl_broadcast_to(h, 3, target.as_ptr(), o));
    }
}

#[test]
fn empty_and_scalar_views() {
    let mut rng = rng("empty_and_scalar_views");
    let a = rand_arr(&mut rng, SL_F32, &[0, 4], 0.0, 1.0, false);
    let want = Arr { shape: vec![4, 0], ..a.clone() };
    check_view("transpose of empty", &a, &want, |h, o| sl_transpose(h, o));
    let lo = [1i64, 0];
    let hi = [2i64, 0];
    let want = Arr::new(SL_F32, &[3, 4], vec![V::F32(5.0); 12]);
    check_view("pad of empty with fill", &a, &want, |h, o| {
        sl_pad(h, lo.as_ptr(), hi.as_ptr(), SL_BOUNDARY_FILL, 5.0, o)
    });
    let s = Arr::new(SL_F64, &[], vec![V::F64(4.25)]);
    let dims = [3i64, 2];
    let want = Arr::new(SL_F64, &[3, 2], vec![V::F64(4.25); 6]);
    check_view("broadcast scalar", &s, &want, |h, o| sl_broadcast_to(h, 2, dims.as_ptr(), o));
}

#[test]
fn concat_gather_scatter() {
    let mut rng = rng("concat_gather_scatter");
    for dt in [SL_F32, SL_F64, SL_I32, SL_U8] {
        let (n0, n1) = (rng.random_range(1..10), rng.random_range(1..10));
        let parts: Vec<Arr> = (0..3)
            .map(|_| {
                let k = rng.random_range(0..5);
                rand_arr(&mut rng, dt, &[n0, k], 0.0, 100.0, false)
            })
            .collect();
        let widths: Vec<usize> = parts.iter().map(|p| p.shape[1]).collect();
        let total: usize = widths.iter().sum();
        let want = Arr::new(
            dt,
            &[n0, total],
            (0..n0 * total)
                .map(|i| {
                    let idx = unravel(&[n0, total], i);
                    let (mut j, mut p) = (idx[1], 0);
                    while j >= widths[p] {
                        j -= widths[p];
                        p += 1;
                    }
                    parts[p].at(&[idx[0], j])
                })
                .collect(),
        );
        let hs: Vec<sl_array> = parts.iter().map(|p| p.upload()).collect();
        let pend: Vec<sl_array> = hs.iter().map(|&h| pending_copy(h)).collect();
        for set in [&hs, &pend] {
            let mut out = 0;
            ok(sl_concat(set.as_ptr(), 3, 1, &mut out));
            assert_close("concat", &download(out), &want, 0.0);
            release(&[out]);
        }
        release(&hs);
        release(&pend);

        // gather with out-of-range indices (clamped)
        let src = rand_arr(&mut rng, dt, &[n0, n1], 0.0, 100.0, false);
        let m = rng.random_range(1..200);
        let i0 = rand_arr(&mut rng, SL_I32, &[m], -2.0, n0 as f64 + 1.0, false);
        let i1 = rand_arr(&mut rng, SL_I64, &[m], -2.0, n1 as f64 + 1.0, false);
        let want = Arr::new(
            dt,
            &[m],
            (0..m)
                .map(|k| {
                    let a = (i0.v[k].f() as i64).clamp(0, n0 as i64 - 1) as usize;
                    let b = (i1.v[k].f() as i64).clamp(0, n1 as i64 - 1) as usize;
                    src.at(&[a, b])
                })
                .collect(),
        );
        let (hs, h0, h1) = (src.upload(), i0.upload(), i1.upload());
        let mut out = 0;
        ok(sl_gather(hs, [h0, h1].as_ptr(), 2, &mut out));
        assert_close("gather", &download(out), &want, 0.0);
        release(&[out]);

        // scatter: colliding writes resolve by mode; out-of-range positions are dropped
        let vals = rand_arr(&mut rng, dt, &[m], 0.0, 50.0, false);
        let hv = vals.upload();
        let idx: Vec<Vec<i64>> = [&i0, &i1].iter().map(|ix| ix.v.iter().map(|c| c.f() as i64).collect()).collect();
        for mode in scatter::MODES {
            ok(sl_scatter(hs, [h0, h1].as_ptr(), 2, hv, mode, &mut out));
            let (want, mags, counts) = scatter::reference(mode, &src, &idx, &vals.v);
            scatter::check(&format!("scatter mode {mode}"), mode, &download(out), &want, &mags, &counts);
            release(&[out]);
        }
        release(&[hs, h0, h1, hv]);
    }
}

#[test]
fn matmul_and_dot() {
    let mut rng = rng("matmul_and_dot");
    for dt in [SL_F32, SL_F64] {
        for (m, k, n) in [(1, 1, 1), (7, 5, 3), (64, 33, 17), (130, 70, 90), (3, 0, 4)] {
            let a = rand_arr(&mut rng, dt, &[m, k], -1.0, 1.0, false);
            let b = rand_arr(&mut rng, dt, &[k, n], -1.0, 1.0, false);
            let (ha, hb) = (a.upload(), b.upload());
            let mut c = 0;
            ok(sl_matmul(ha, hb, &mut c));
            let eps = if dt == SL_F32 { 1e-5 } else { 1e-13 };
            assert_near("matmul", &download(c), &r::matmul(&a, &b), eps * k as f64, eps);
            // transposed operands are strided views: gemm reads them in place
            let (mut at, mut bt, mut ct, mut c2) = (0, 0, 0, 0);
            ok(sl_transpose(ha, &mut at));
            ok(sl_transpose(hb, &mut bt));
            ok(sl_matmul(bt, at, &mut ct));
            ok(sl_transpose(ct, &mut c2));
            assert_near("matmul of transposes", &download(c2), &r::matmul(&a, &b), eps * k as f64, eps);
            // matrix-vector
            let x = rand_arr(&mut rng, dt, &[k], -1.0, 1.0, false);
            let hx = x.upload();
            let mut y = 0;
            ok(sl_matmul(ha, hx, &mut y));
            let want = r::matmul(&a, &Arr { shape: vec![k, 1], ..x.clone() });
            assert_near("matvec", &download(y), &Arr { shape: vec![m], ..want }, eps * k as f64, eps);
            release(&[ha, hb, c, at, bt, ct, c2, hx, y]);
        }
        let a = rand_arr(&mut rng, dt, &[5000], -1.0, 1.0, false);
        let b = rand_arr(&mut rng, dt, &[5000], -1.0, 1.0, false);
        let (ha, hb) = (a.upload(), b.upload());
        let mut d = 0;
        ok(sl_dot(ha, hb, &mut d));
        let want: f64 = a.v.iter().zip(&b.v).map(|(x, y)| x.f() * y.f()).sum();
        let got = download(d).v[0].f();
        assert!((got - want).abs() < 1e-4, "dot {got} vs {want}");
        release(&[ha, hb, d]);
    }
}

/// Reductions and scans along axes longer than 65,535 points (lavapipe ends a shader's
/// loops there, so the Vulkan executor hands such kernels to the CPU).
#[test]
fn long_axes() {
    let mut rng = rng("long_axes");
    for shape in [vec![70_001], vec![3, 70_001]] {
        let a = rand_arr(&mut rng, SL_F32, &shape, -1.0, 1.0, false);
        let h = a.upload();
        let axis = shape.len() - 1;
        let sum_abs: f64 = a.v.iter().map(|v| v.f().abs()).sum();
        for op in [SL_SUM, SL_COUNT, SL_MAXVAL, SL_ARGMAX] {
            let mut out = 0;
            ok(sl_reduce(op, h, axis as i32, &mut out));
            let want = r::reduce(op, &a, Some(axis));
            assert_near(&format!("reduce {op} {shape:?}"), &download(out), &want, 4e-6 * sum_abs, 8e-6);
            release(&[out]);
        }
        let mut out = 0;
        ok(sl_cumsum(h, axis as i32, &mut out));
        assert_near(&format!("cumsum {shape:?}"), &download(out), &r::scan(false, &a, axis), 4e-6 * sum_abs, 1e-6);
        release(&[out, h]);
    }
}

/// Loop-heavy math of `a` (f64): erf loops up to 216 times per element in its series, fmod
/// once per binade between its operands (about 960 here); each with its reference.
/// Lavapipe counts those loops toward its per-invocation limit too.
fn loop_heavy_math(a: &Arr) -> [(&'static str, Arr, sl_array); 2] {
    let h = a.upload();
    let divisor = 1e-290;
    let (mut e, mut m) = (0, 0);
    ok(sl_erf(h, &mut e));
    ok(sl_binary_scalar(SL_REM, h, divisor, &mut m));
    release(&[h]);
    [
        ("erf", r::map1(a, |x| r::unary(SL_ERF, x)), e),
        ("fmod", r::map1(a, |x| r::binary(SL_REM, x, V::F64(divisor))), m),
    ]
}

/// Reductions and scans along an axis of loop-heavy math (elements past the first few
/// hundred of each row came out wrong on lavapipe): on such devices costly math is stored
/// before a reduction or scan reads it, and a kernel whose loops would still exceed the
/// limit runs on the CPU.
#[test]
fn loop_heavy_math_along_axes() {
    let mut rng = rng("loop_heavy_math_along_axes");
    for shape in [vec![1500], vec![3, 1500]] {
        let axis = shape.len() - 1;
        let a = rand_arr(&mut rng, SL_F64, &shape, -3.0, 3.0, false);
        for (what, want, x) in &loop_heavy_math(&a) {
            let (mut s, mut c) = (0, 0);
            ok(sl_reduce(SL_SUM, *x, axis as i32, &mut s));
            ok(sl_cumsum(*x, axis as i32, &mut c));
            let tol = 1e-13 * magnitude(want);
            assert_near(
                &format!("sum of {what} {shape:?}"),
                &download(s),
                &r::reduce(SL_SUM, want, Some(axis)),
                tol,
                0.0,
            );
            assert_near(&format!("cumsum of {what} {shape:?}"), &download(c), &r::scan(false, want, axis), tol, 0.0);
            release(&[s, c, *x]);
        }
    }
}

/// Loop-heavy math element-wise, summed over everything and along the first axis, over
/// more points than a dispatch has invocations when workgroup counts are lowered
/// (test.sh runs this suite with `SLUICE_VULKAN_MAX_GROUPS`): an invocation then takes
/// many points or rows, and on lavapipe their loops together must stay under its limit.
#[test]
fn loop_heavy_math_over_many_points() {
    let mut rng = rng("loop_heavy_math_over_many_points");
    for shape in [vec![1 << 16], vec![16, 4096]] {
        let a = rand_arr(&mut rng, SL_F64, &shape, -3.0, 3.0, false);
        for (what, want, x) in &loop_heavy_math(&a) {
            let (mut all, mut down) = (0, 0);
            ok(sl_reduce(SL_SUM, *x, SL_ALL_DIMS, &mut all));
            ok(sl_reduce(SL_SUM, *x, 0, &mut down));
            let tol = 1e-13 * magnitude(want);
            assert_near(&format!("{what} {shape:?}"), &download(*x), want, 0.0, 1e-14);
            assert_near(&format!("sum of {what} {shape:?}"), &download(all), &r::reduce(SL_SUM, want, None), tol, 0.0);
            let along = r::reduce(SL_SUM, want, Some(0));
            assert_near(&format!("sum down {what} {shape:?}"), &download(down), &along, tol, 0.0);
            release(&[all, down, *x]);
        }
    }
}
