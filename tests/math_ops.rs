//! The functions composed of element-wise ops (mod with the divisor's sign, clamp,
//! rounding to an integer type) and the edges of the bit-level ops (shifts at and past
//! the type's width, copysign and nextafter at zeros, subnormals, infinities and NaN),
//! against plain references on random inputs with special values.

mod common;

use common::*;
use rand::Rng;
use sluice::*;

/// Python's `%` on floats: fmod, then the divisor's sign (a zero takes the divisor's sign).
fn py_mod(x: f64, y: f64) -> f64 {
    let r = x % y;
    if r != 0.0 && ((r < 0.0) != (y < 0.0)) {
        r + y
    } else if r == 0.0 {
        0.0f64.copysign(y)
    } else {
        r
    }
}

#[test]
fn mod_takes_the_divisor_sign() {
    let mut rng = rng("mod_takes_the_divisor_sign");
    for dt in [SL_F32, SL_F64, SL_I32, SL_I64, SL_U8] {
        for shape in [vec![0], vec![1], vec![rng.random_range(500..3000)], vec![rng.random_range(1..30), 3]] {
            let (lo, hi) = if dt == SL_U8 { (0.0, 255.0) } else { (-1000.0, 1000.0) };
            let a = rand_arr(&mut rng, dt, &shape, lo, hi, true);
            let b = rand_arr(&mut rng, dt, &shape, if dt == SL_U8 { 0.0 } else { -9.0 }, 9.0, true);
            let want = Arr::new(
                dt,
                &shape,
                a.v.iter()
                    .zip(&b.v)
                    .map(|(&x, &y)| match (x, y) {
                        (V::F32(x), V::F32(y)) => V::F32(py_mod(x as f64, y as f64) as f32),
                        (V::F64(x), V::F64(y)) => V::F64(py_mod(x, y)),
                        _ => {
                            let (x, y) = (x.f() as i64, y.f() as i64);
                            V::I64(if y == 0 {
                                0
                            } else {
                                x.rem_euclid(y) + if y < 0 && x.rem_euclid(y) != 0 { y } else { 0 }
                            })
                            .cast(dt)
                        }
                    })
                    .collect(),
            );
            let (ha, hb) = (a.upload(), b.upload());
            let mut m = 0;
            ok(sl_mod(ha, hb, &mut m));
            assert_close(&format!("mod {dt} {shape:?}"), &download(m), &want, 0.0);
            release(&[ha, hb, m]);
        }
    }
    // The integer edges: the smallest value by -1, and by 0.
    let a = Arr::new(SL_I64, &[3], vec![V::I64(i64::MIN), V::I64(i64::MIN), V::I64(-7)]).upload();
    let b = Arr::new(SL_I64, &[3], vec![V::I64(-1), V::I64(0), V::I64(i64::MAX)]).upload();
    let mut m = 0;
    ok(sl_mod(a, b, &mut m));
    let want = Arr::new(SL_I64, &[3], vec![V::I64(0), V::I64(0), V::I64(i64::MAX - 7)]);
    assert_close("mod at the i64 edges", &download(m), &want, 0.0);
    let t = Arr::new(SL_BOOL, &[1], vec![V::B(true)]).upload();
    fails(sl_mod(t, t, &mut m), SL_ERR_DTYPE_MISMATCH, "mod is not defined for bool");
    release(&[a, b, t]);
}

#[test]
fn clamp_is_clip() {
    let mut rng = rng("clamp_is_clip");
    for dt in [SL_F32, SL_F64, SL_I32, SL_I64, SL_U8] {
        let n = rng.random_range(1..2000);
        let (lo, hi) = if dt == SL_U8 { (0.0, 255.0) } else { (-100.0, 100.0) };
        let a = rand_arr(&mut rng, dt, &[n], lo, hi, true);
        let l = rand_arr(&mut rng, dt, &[n], lo, hi, true);
        let (sl, sh) = (rand_val(&mut rng, dt, lo, hi, false), rand_val(&mut rng, dt, lo, hi, false));
        let clip = |x: V, l: V, h: V| -> V {
            let (x, l, h) = (x.f(), l.f(), h.f());
            let v = if x.is_nan() || l.is_nan() || h.is_nan() { f64::NAN } else { x.max(l).min(h) };
            V::F64(v).cast(dt)
        };
        let want = Arr::new(dt, &[n], a.v.iter().zip(&l.v).map(|(&x, &lv)| clip(x, lv, sh)).collect());
        let (ha, hl) = (a.upload(), l.upload());
        let hh = Arr::new(dt, &[], vec![sh]).upload();
        let mut c = 0;
        ok(sl_clamp(ha, hl, hh, &mut c));
        assert_close(&format!("clamp {dt} by arrays"), &download(c), &want, 0.0);
        release(&[c]);
        ok(sl_clamp_scalar(ha, sl.f(), sh.f(), &mut c));
        let want = Arr::new(dt, &[n], a.v.iter().map(|&x| clip(x, sl, sh)).collect());
        assert_close(&format!("clamp {dt} by scalars {sl:?} {sh:?}"), &download(c), &want, 0.0);
        release(&[ha, hl, hh, c]);
    }
    let a = rand_arr(&mut rng, SL_I32, &[4], -9.0, 9.0, false).upload();
    let mut c = 0;
    fails(sl_clamp_scalar(a, 0.5, 3.0, &mut c), SL_ERR_DTYPE_MISMATCH, "cannot be represented");
    assert_eq!(c, 0);
    release(&[a]);
}

#[test]
fn rounding_to_integers_in_one_call() {
    let mut rng = rng("rounding_to_integers_in_one_call");
    type Call = extern "C" fn(sl_array, sl_dtype, *mut sl_array) -> sl_status;
    type Case = (&'static str, Call, fn(f64) -> f64);
    let calls: [Case; 3] =
        [("floor", sl_floor_to, f64::floor), ("ceil", sl_ceil_to, f64::ceil), ("round", sl_round_to, f64::round)];
    for src in [SL_F32, SL_F64] {
        let len = rng.random_range(10..3000);
        let mut a = rand_arr(&mut rng, src, &[len], -1e3, 1e3, true);
        // Halves, overflow on both sides, and values just inside the i32 range.
        for (i, x) in [2.5, -2.5, 0.5, -0.5, 1e300, -1e300, 2147483520.0, -2147483648.0, 3e9].into_iter().enumerate() {
            a.v[i] = V::F64(x).cast(src);
        }
        let h = a.upload();
        for to in [SL_I32, SL_I64, SL_U8] {
            for (name, call, f) in calls {
                let mut out = 0;
                ok(call(h, to, &mut out));
                // Saturating, NaN to 0 (Rust's `as`, sl_cast's rule).
                let want = Arr::new(
                    to,
                    &a.shape,
                    a.v.iter()
                        .map(|&x| match to {
                            SL_I32 => V::I32(f(x.f()) as i32),
                            SL_I64 => V::I64(f(x.f()) as i64),
                            _ => V::U8(f(x.f()) as u8),
                        })
                        .collect(),
                );
                assert_close(&format!("{name} of {src} to {to}"), &download(out), &want, 0.0);
                release(&[out]);
            }
        }
        let mut out = 0;
        fails(sl_floor_to(h, SL_F32, &mut out), SL_ERR_DTYPE_MISMATCH, "integer type");
        release(&[h]);
    }
}

#[test]
fn bit_level_edges() {
    // Shifts at the edges of the count and of the values.
    for (dt, bits) in [(SL_I32, 32i64), (SL_I64, 64)] {
        let xs = [1i64, -1, i64::from(i32::MIN), 0x5a5a, -0x5a5a];
        let cs = [-1i64, 0, 1, bits - 1, bits, bits + 1, 1000];
        let (mut av, mut cv) = (Vec::new(), Vec::new());
        for &x in &xs {
            for &c in &cs {
                av.push(V::I64(x).cast(dt));
                cv.push(V::I64(c).cast(dt));
            }
        }
        let n = av.len();
        let a = Arr::new(dt, &[n], av);
        let c = Arr::new(dt, &[n], cv);
        let (ha, hc) = (a.upload(), c.upload());
        for (op, name) in [(SL_SHL, "shl"), (SL_SHR, "shr")] {
            let mut out = 0;
            ok(sl_binary(op, ha, hc, &mut out));
            let want = Arr::new(
                dt,
                &[n],
                a.v.iter()
                    .zip(&c.v)
                    .map(|(&x, &s)| {
                        let (x, s) = (x.f() as i64, s.f() as i64);
                        let in_range = (0..bits).contains(&s);
                        let v = match (op == SL_SHL, in_range) {
                            (true, true) => x << s,
                            (true, false) => 0,
                            (false, true) => x >> s,
                            (false, false) => -((x < 0) as i64),
                        };
                        V::I64(v).cast(dt)
                    })
                    .collect(),
            );
            assert_close(&format!("{name} edges {dt}"), &download(out), &want, 0.0);
            release(&[out]);
        }
        release(&[ha, hc]);
    }
    // copysign and nextafter at zeros, subnormals, the largest finite values, infinities.
    let specials = [0.0, -0.0, 1.0, -1.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN];
    for dt in [SL_F32, SL_F64] {
        let mut xs: Vec<V> = specials.iter().map(|&v| V::F64(v).cast(dt)).collect();
        match dt {
            SL_F32 => xs.extend([f32::from_bits(1), -f32::from_bits(1), f32::MAX, f32::MIN_POSITIVE].map(V::F32)),
            _ => xs.extend([f64::from_bits(1), -f64::from_bits(1), f64::MAX, f64::MIN_POSITIVE].map(V::F64)),
        }
        let (mut av, mut bv) = (Vec::new(), Vec::new());
        for &x in &xs {
            for &y in &xs {
                av.push(x);
                bv.push(y);
            }
        }
        let n = av.len();
        let (a, b) = (Arr::new(dt, &[n], av), Arr::new(dt, &[n], bv));
        let (ha, hb) = (a.upload(), b.upload());
        for op in [SL_COPYSIGN, SL_NEXTAFTER] {
            let mut out = 0;
            ok(sl_binary(op, ha, hb, &mut out));
            let want = common::reference::map2(&a, &b, |x, y| common::reference::binary(op, x, y));
            assert_close(&format!("op {op} edges {dt}"), &download(out), &want, 0.0);
            release(&[out]);
        }
        release(&[ha, hb]);
    }
}

/// `sl_fma` rounds once: against `mul_add` on random operands, on operands whose naive
/// `a * b + c` loses everything (`c = -round(a b)`, leaving the product's rounding error),
/// on products that overflow or underflow on their own with `c` bringing the sum back, on
/// exact ties broken by a tiny `c`, and on special values; operands broadcast (a scalar and
/// a row against a column) and may be views; integer, bool and complex arrays are refused.
#[test]
fn fma_rounds_once() {
    let mut rng = rng("fma_rounds_once");
    for dt in [SL_F32, SL_F64] {
        let f32 = dt == SL_F32;
        let val = |x: f64| if f32 { V::F32(x as f32) } else { V::F64(x) };
        let mut triples: Vec<(f64, f64, f64)> = Vec::new();
        for _ in 0..3000 {
            let (a, b) = (rand_val(&mut rng, dt, -10.0, 10.0, true).f(), rand_val(&mut rng, dt, -10.0, 10.0, true).f());
            let c = rand_val(&mut rng, dt, -100.0, 100.0, true).f();
            // -round(a b) in the type: fma leaves exactly the product's rounding error.
            let p = if f32 { (a as f32 * b as f32) as f64 } else { a * b };
            triples.push((a, b, c));
            triples.push((a, b, -p));
        }
        // Exponent extremes: products just past the overflow threshold (c = -max brings the
        // sum back), one huge and one tiny factor, products in the subnormal range with
        // subnormal c, negligible products.
        let e = |k: i32| 2f64.powi(if f32 { k / 8 } else { k });
        let (max, min_sub) =
            if f32 { (f32::MAX as f64, f32::from_bits(1) as f64) } else { (f64::MAX, f64::from_bits(1)) };
        for _ in 0..500 {
            let (u, w) = (rng.random_range(1.0..2.0), rng.random_range(1.0..2.0));
            let (u, w) = if f32 { (u as f32 as f64, w as f32 as f64) } else { (u, w) };
            let subnormal_c = min_sub * rng.random_range(-64.0..64.0f64).round();
            triples.push((u * e(512), w * e(511), -max));
            triples.push((u * e(1000), w * e(-1000), rng.random_range(-4.0..4.0)));
            triples.push((u * e(-537), -w * e(-537), subnormal_c));
            triples.push((u * e(-600), w * e(-600), u));
        }
        // (1 + x)(1 + y) = 1 + x + y + xy with xy half an ulp of 1: a tie, broken by a tiny c.
        let (x, y) = if f32 { (2f64.powi(-12), 2f64.powi(-12)) } else { (2f64.powi(-26), 2f64.powi(-27)) };
        for s in [1.0, -1.0, 0.0] {
            triples.push((1.0 + x, 1.0 + y, s * min_sub));
        }
        for &x in &[0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1.0, -1.0] {
            for &y in &[0.0, -0.0, f64::INFINITY, 2.0, f64::NAN] {
                for &z in &[0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, -1.0] {
                    triples.push((x, y, z));
                }
            }
        }
        let n = triples.len();
        let arr = |k: usize| Arr::new(dt, &[n], triples.iter().map(|t| val([t.0, t.1, t.2][k])).collect());
        let (a, b, c) = (arr(0), arr(1), arr(2));
        let want = Arr::new(
            dt,
            &[n],
            (0..n)
                .map(|i| match (a.v[i], b.v[i], c.v[i]) {
                    (V::F32(x), V::F32(y), V::F32(z)) => V::F32(x.mul_add(y, z)),
                    (x, y, z) => V::F64(x.f().mul_add(y.f(), z.f())),
                })
                .collect(),
        );
        let (ha, hb, hc) = (a.upload(), b.upload(), c.upload());
        let mut out = 0;
        ok(sl_fma(ha, hb, hc, &mut out));
        if f32 && !common::accuracy::bound_holds(SL_F32) {
            // Without 64-bit floats the device's own fma (lavapipe's rounds twice).
            eprintln!("fma f32 not held to one rounding on this device");
            release(&[ha, hb, hc, out]);
            continue;
        }
        assert_close(&format!("fma {dt}"), &download(out), &want, 0.0);
        release(&[out]);
        // Fused with its neighbours: fma(-(-a), b, c).
        let minus = negate(ha);
        let na = negate(minus);
        ok(sl_fma(na, hb, hc, &mut out));
        assert_close(&format!("fma {dt} of a pending operand"), &download(out), &want, 0.0);
        release(&[ha, hb, hc, minus, na, out]);

        // Broadcasting: a column, a scalar, a row; the row through a transpose (a view).
        let (m, k) = (rng.random_range(1..40), rng.random_range(1..40));
        let col = rand_arr(&mut rng, dt, &[m, 1], -5.0, 5.0, false);
        let s = rand_arr(&mut rng, dt, &[], -5.0, 5.0, false);
        let row_t = rand_arr(&mut rng, dt, &[k, 1], -5.0, 5.0, false);
        let (hcol, hs, hrt) = (col.upload(), s.upload(), row_t.upload());
        let mut row = 0;
        ok(sl_transpose(hrt, &mut row));
        ok(sl_fma(hcol, hs, row, &mut out));
        let want = Arr::new(
            dt,
            &[m, k],
            (0..m * k)
                .map(|i| {
                    let (r, q) = (i % m, i / m);
                    match (col.v[r], s.v[0], row_t.v[q]) {
                        (V::F32(x), V::F32(y), V::F32(z)) => V::F32(x.mul_add(y, z)),
                        (x, y, z) => V::F64(x.f().mul_add(y.f(), z.f())),
                    }
                })
                .collect(),
        );
        assert_close(&format!("fma {dt} broadcast [{m}, 1] [] [1, {k}]"), &download(out), &want, 0.0);
        release(&[hcol, hs, hrt, row, out]);
        // Empty.
        let e = Arr::new(dt, &[0, 3], vec![]).upload();
        ok(sl_fma(e, e, e, &mut out));
        assert_eq!(shape_of(out), vec![0, 3]);
        release(&[e, out]);
    }
    for dt in [SL_I32, SL_I64, SL_U8, SL_BOOL] {
        let a = rand_arr(&mut rng, dt, &[3], 0.0, 9.0, false).upload();
        let mut out = 0;
        fails(sl_fma(a, a, a, &mut out), SL_ERR_DTYPE_MISMATCH, "fma is defined for f32 and f64");
        assert_eq!(out, 0);
        release(&[a]);
    }
    let (a, b) =
        (Arr::new(SL_F64, &[3], vec![V::F64(1.0); 3]).upload(), Arr::new(SL_F64, &[4], vec![V::F64(1.0); 4]).upload());
    let mut out = 0;
    fails(sl_fma(a, b, a, &mut out), SL_ERR_SHAPE_MISMATCH, "fma");
    release(&[a, b]);
}
