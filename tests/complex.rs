//! Complex element types (c64, c128): storage, movement, element-wise ops, reductions and
//! scans against plain formulas in f64 written here, on fresh random inputs.

mod common;

use common::*;
use rand::Rng;
use rand::rngs::StdRng;
use rug::Float;
use sluice::backend::vulkan::Handwritten;
use sluice::*;

type Z = (f64, f64);
/// A C call taking one array and giving one.
type Call1 = extern "C" fn(sl_array, *mut sl_array) -> sl_status;
type Ref1 = fn(Z) -> Z;
type Ref2 = fn(Z, Z) -> Z;
type RefPart = fn(Z) -> f64;
/// A complex value with a real scalar.
type RefScalar = fn(Z, f64) -> Z;
type Formula2 = Box<dyn Fn(Z, Z) -> Z>;

const COMPLEX: [sl_dtype; 2] = [SL_C64, SL_C128];

fn part_type(dt: sl_dtype) -> sl_dtype {
    if dt == SL_C64 { SL_F32 } else { SL_F64 }
}

/// `z` as the type's parts hold it.
fn stored(dt: sl_dtype, z: Z) -> Z {
    if dt == SL_C64 { (z.0 as f32 as f64, z.1 as f32 as f64) } else { z }
}

fn bytes(dt: sl_dtype, v: &[Z]) -> Vec<u8> {
    let mut b = Vec::new();
    for &(re, im) in v {
        if dt == SL_C64 {
            b.extend((re as f32).to_le_bytes());
            b.extend((im as f32).to_le_bytes());
        } else {
            b.extend(re.to_le_bytes());
            b.extend(im.to_le_bytes());
        }
    }
    b
}

fn upload(dt: sl_dtype, shape: &[usize], v: &[Z]) -> sl_array {
    let dims: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
    let b = bytes(dt, v);
    let mut h = 0;
    ok(sl_create(dt, dims.len() as i32, dims.as_ptr(), SL_COL_MAJOR, b.as_ptr() as *const _, b.len(), &mut h));
    h
}

/// Reads a complex array back: its type and values.
#[track_caller]
fn read(h: sl_array) -> (sl_dtype, Vec<Z>) {
    (dtype_of(h), download_complex(h))
}

/// Reads a real array (f32, f64 or bool) back as f64 values.
fn read_real(h: sl_array) -> Vec<f64> {
    download(h).v.iter().map(|x| x.f()).collect()
}

/// A value of random magnitude (1e-3 .. 1e3) and sign in each part; with `special`, now
/// and then a zero of either sign, an infinity, a NaN or a value near the type's
/// overflow or underflow.
fn rand_z(rng: &mut StdRng, dt: sl_dtype, special: bool) -> Z {
    let big = if dt == SL_C64 { 1e37 } else { 1e306 };
    let tiny = if dt == SL_C64 { 1e-37 } else { 1e-306 };
    let part = |rng: &mut StdRng| {
        if special && rng.random_bool(0.1) {
            let s = [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, big, -big, tiny];
            return s[rng.random_range(0..s.len())];
        }
        let m = 10f64.powf(rng.random_range(-3.0..3.0));
        if rng.random_bool(0.5) { m } else { -m }
    };
    stored(dt, (part(rng), part(rng)))
}

fn rand_vec(rng: &mut StdRng, dt: sl_dtype, n: usize, special: bool) -> Vec<Z> {
    (0..n).map(|_| rand_z(rng, dt, special)).collect()
}

fn modulus(z: Z) -> f64 {
    z.0.hypot(z.1)
}

/// Whether `got` is within `tol * scale` of `want` in each part; NaN matches NaN and
/// infinities themselves.
fn close(got: Z, want: Z, tol: f64, scale: f64) -> bool {
    let part = |g: f64, w: f64| (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= tol * scale;
    part(got.0, want.0) && part(got.1, want.1)
}

#[track_caller]
fn assert_all_close(what: &str, got: &[Z], want: &[Z], tol: f64, scale: impl Fn(usize) -> f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for i in 0..got.len() {
        assert!(close(got[i], want[i], tol, scale(i)), "{what}: element {i}: got {:?}, want {:?}", got[i], want[i]);
    }
}

/// Unit roundoff of the parts of `dt`.
fn eps(dt: sl_dtype) -> f64 {
    if dt == SL_C64 { f32::EPSILON as f64 } else { f64::EPSILON }
}

#[test]
fn create_read_and_layouts() {
    let mut rng = rng("create_read_and_layouts");
    for dt in COMPLEX {
        let shape = [rng.random_range(1..7), rng.random_range(1..7)];
        let v = rand_vec(&mut rng, dt, shape[0] * shape[1], true);
        let h = upload(dt, &shape, &v);
        assert_eq!(dtype_of(h), dt);
        let (_, got) = read(h);
        assert_all_close("round trip", &got, &v, 0.0, |_| 0.0);
        // Row-major in and out: the transpose of the column-major order.
        let dims = [shape[0] as i64, shape[1] as i64];
        let mut row_major = vec![(0.0, 0.0); v.len()];
        for i in 0..shape[0] {
            for j in 0..shape[1] {
                row_major[i * shape[1] + j] = v[i + j * shape[0]];
            }
        }
        let b = bytes(dt, &row_major);
        let mut r = 0;
        ok(sl_create(dt, 2, dims.as_ptr(), SL_ROW_MAJOR, b.as_ptr() as *const _, b.len(), &mut r));
        assert_all_close("row-major create", &read(r).1, &v, 0.0, |_| 0.0);
        let mut back = vec![0u8; b.len()];
        ok(sl_read(r, SL_ROW_MAJOR, back.as_mut_ptr() as *mut _, back.len()));
        assert_eq!(back, b, "row-major read");
        // A buffer of the real type's size is refused.
        let mut bad = 0;
        fails(
            sl_create(dt, 2, dims.as_ptr(), SL_COL_MAJOR, b.as_ptr() as *const _, b.len() / 2, &mut bad),
            SL_ERR_INVALID_ARGUMENT,
            "bytes",
        );
        release(&[h, r]);
    }
}

/// Each movement op applied to a complex array gives the op applied to its parts (the
/// real ops are tested on their own): as a stored array and fused after an op.
#[test]
fn movement_ops_move_both_parts() {
    let mut rng = rng("movement_ops_move_both_parts");
    type Move = Box<dyn Fn(sl_array, &mut sl_array) -> sl_status>;
    let (m, n) = (rng.random_range(2..9usize), rng.random_range(2..9usize));
    let moves: Vec<(&str, Move)> = vec![
        ("transpose", Box::new(|a, o| sl_transpose(a, o))),
        ("reshape", Box::new(move |a, o| sl_reshape(a, 1, [(m * n) as i64].as_ptr(), o))),
        ("section", Box::new(|a, o| sl_section(a, [1, 0].as_ptr(), [1, 2].as_ptr(), [1, 1].as_ptr(), o))),
        ("shift", Box::new(|a, o| sl_shift(a, 0, 1, SL_BOUNDARY_FILL, 2.5, o))),
        ("rotate", Box::new(|a, o| sl_rotate(a, 1, -1, o))),
        ("pad", Box::new(|a, o| sl_pad(a, [1, 0].as_ptr(), [0, 2].as_ptr(), SL_BOUNDARY_FILL, -1.5, o))),
        ("pad clamp", Box::new(|a, o| sl_pad(a, [2, 1].as_ptr(), [1, 0].as_ptr(), SL_BOUNDARY_CLAMP, 0.0, o))),
        ("tile", Box::new(|a, o| sl_tile(a, [2, 3].as_ptr(), 2, o))),
        ("concat", Box::new(|a, o| sl_concat([a, a].as_ptr(), 2, 1, o))),
        ("broadcast", Box::new(move |a, o| sl_broadcast_to(a, 3, [m as i64, n as i64, 3].as_ptr(), o))),
    ];
    for dt in COMPLEX {
        let v = rand_vec(&mut rng, dt, m * n, true);
        let z = upload(dt, &[m, n], &v);
        let part = |f: Call1| {
            let mut p = 0;
            ok(f(z, &mut p));
            p
        };
        let (re, im) = (part(sl_real), part(sl_imag));
        let mut fused_src = 0;
        ok(sl_conj(z, &mut fused_src)); // conj twice: a pending copy
        let mut pending = 0;
        ok(sl_conj(fused_src, &mut pending));
        for (name, f) in &moves {
            for src in [z, pending] {
                let (mut out, mut r, mut i) = (0, 0, 0);
                ok(f(src, &mut out));
                ok(f(re, &mut r));
                // The imaginary part of a fill is 0.
                let st = if name.starts_with("shift") || name.starts_with("pad") && !name.contains("clamp") {
                    let zeros_fill = |a, o: &mut sl_array| match *name {
                        "shift" => sl_shift(a, 0, 1, SL_BOUNDARY_FILL, 0.0, o),
                        _ => sl_pad(a, [1, 0].as_ptr(), [0, 2].as_ptr(), SL_BOUNDARY_FILL, 0.0, o),
                    };
                    zeros_fill(im, &mut i)
                } else {
                    f(im, &mut i)
                };
                ok(st);
                let want: Vec<Z> = read_real(r).into_iter().zip(read_real(i)).collect();
                assert_eq!(shape_of(out), shape_of(r), "{name} shape");
                assert_all_close(&format!("{name} of {dt}"), &read(out).1, &want, 0.0, |_| 0.0);
                release(&[out, r, i]);
            }
        }
        release(&[z, re, im, fused_src, pending]);
    }
}

#[test]
fn gather_and_scatter() {
    let mut rng = rng("gather_and_scatter");
    for dt in COMPLEX {
        let n = rng.random_range(20..60usize);
        let v = rand_vec(&mut rng, dt, n, false);
        let z = upload(dt, &[n], &v);
        let k = rng.random_range(1..40usize);
        let idx: Vec<i64> = (0..k).map(|_| rng.random_range(0..n as i64)).collect();
        let ih = Arr::new(SL_I64, &[k], idx.iter().map(|&i| V::I64(i)).collect()).upload();
        let mut g = 0;
        ok(sl_gather(z, &ih, 1, &mut g));
        let want: Vec<Z> = idx.iter().map(|&i| v[i as usize]).collect();
        assert_all_close("gather", &read(g).1, &want, 0.0, |_| 0.0);
        // Replace: the last value written to an element wins.
        let vals = rand_vec(&mut rng, dt, k, false);
        let vh = upload(dt, &[k], &vals);
        let mut s = 0;
        ok(sl_scatter(z, &ih, 1, vh, SL_SCATTER_REPLACE, &mut s));
        let mut want = v.clone();
        for (j, &i) in idx.iter().enumerate() {
            want[i as usize] = vals[j];
        }
        assert_all_close("scatter", &read(s).1, &want, 0.0, |_| 0.0);
        // Add: every value landing on an element adds to it, part by part (in some order:
        // each addition rounds, so within 2 eps of the sum of the magnitudes added).
        let mut a = 0;
        ok(sl_scatter(pending(z), &ih, 1, vh, SL_SCATTER_ADD, &mut a));
        let mut want = v.clone();
        let mut size: Vec<f64> = v.iter().map(|&z| modulus(z)).collect();
        for (j, &i) in idx.iter().enumerate() {
            let w = &mut want[i as usize];
            *w = (w.0 + vals[j].0, w.1 + vals[j].1);
            size[i as usize] += modulus(vals[j]);
        }
        let tol = 2.0 * eps(dt) * (k as f64 + 1.0);
        assert_all_close("scatter add", &read(a).1, &want, tol, |i| size[i]);
        let mut bad = 0;
        for mode in [SL_SCATTER_MIN, SL_SCATTER_MAX] {
            fails(sl_scatter(z, &ih, 1, vh, mode, &mut bad), SL_ERR_DTYPE_MISMATCH, "no order");
        }
        release(&[z, ih, g, vh, s, a]);
    }
}

/// Reference complex arithmetic in f64, written out as textbooks give it.
fn mul(a: Z, b: Z) -> Z {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

/// a / b with both scaled by the same power of two (exact) so the naive formula cannot
/// overflow or underflow in f64.
fn div(a: Z, b: Z) -> Z {
    let e = b.0.abs().max(b.1.abs()).log2().floor();
    let s = 2f64.powi(-(e as i32));
    let (a, b) = ((a.0 * s, a.1 * s), (b.0 * s, b.1 * s));
    let d = b.0 * b.0 + b.1 * b.1;
    ((a.0 * b.0 + a.1 * b.1) / d, (a.1 * b.0 - a.0 * b.1) / d)
}

fn exp(z: Z) -> Z {
    let e = z.0.exp();
    (e * z.1.cos(), e * z.1.sin())
}

fn log(z: Z) -> Z {
    (modulus(z).ln(), z.1.atan2(z.0))
}

fn sqrt(z: Z) -> Z {
    // The root with a non-negative real part, from the polar form.
    let (r, t) = (modulus(z).sqrt(), z.1.atan2(z.0) / 2.0);
    (r * t.cos(), r * t.sin())
}

fn pending(h: sl_array) -> sl_array {
    let (mut a, mut b) = (0, 0);
    ok(sl_neg(h, &mut a));
    ok(sl_neg(a, &mut b));
    release(&[a]);
    b
}

#[test]
fn arithmetic_with_broadcasting() {
    let mut rng = rng("arithmetic_with_broadcasting");
    for dt in COMPLEX {
        for special in [false, true] {
            let (m, n) = (rng.random_range(1..40usize), rng.random_range(1..30usize));
            let a = rand_vec(&mut rng, dt, m * n, special);
            let b = rand_vec(&mut rng, dt, m, special); // broadcast along dimension 1
            let (ha, hb) = (upload(dt, &[m, n], &a), upload(dt, &[m], &b));
            let pa = pending(ha);
            // Each operation on parts rounded to the parts' type (so overflows happen where
            // the type's do).
            let r = move |x: f64| stored(dt, (x, 0.0)).0;
            let ops: [(sl_binary_op, Formula2); 3] = [
                (SL_ADD, Box::new(|x, y| (x.0 + y.0, x.1 + y.1))),
                (SL_SUB, Box::new(|x, y| (x.0 - y.0, x.1 - y.1))),
                (SL_MUL, Box::new(move |x, y| (r(r(x.0 * y.0) - r(x.1 * y.1)), r(r(x.0 * y.1) + r(x.1 * y.0))))),
            ];
            for (op, f) in ops {
                let mut out = 0;
                ok(sl_binary(op, pa, hb, &mut out));
                let want: Vec<Z> = (0..m * n).map(|i| stored(dt, f(a[i], b[i % m]))).collect();
                // One rounding per operation on parts: within 2 eps of the largest term.
                let scale = |i: usize| 2.0 * modulus(a[i]) * modulus(b[i % m]).max(1.0) + modulus(want[i]);
                assert_all_close(
                    &format!("binary {op} {dt} special={special}"),
                    &read(out).1,
                    &want,
                    4.0 * eps(dt),
                    scale,
                );
                release(&[out]);
            }
            // Division on finite values, near overflow and underflow too.
            if !special {
                let mut out = 0;
                ok(sl_div(pa, hb, &mut out));
                let want: Vec<Z> = (0..m * n).map(|i| stored(dt, div(a[i], b[i % m]))).collect();
                assert_all_close(&format!("div {dt}"), &read(out).1, &want, 8.0 * eps(dt), |i| modulus(want[i]));
                release(&[out]);
            }
            let mut eq = 0;
            ok(sl_eq(ha, pa, &mut eq));
            let want_eq: Vec<f64> = a.iter().map(|z| (z.0 == z.0 && z.1 == z.1) as u8 as f64).collect();
            assert_eq!(read_real(eq), want_eq, "eq {dt}");
            let mut ne = 0;
            ok(sl_ne(ha, hb, &mut ne));
            let want_ne: Vec<f64> =
                (0..m * n).map(|i| (a[i].0 != b[i % m].0 || a[i].1 != b[i % m].1) as u8 as f64).collect();
            assert_eq!(read_real(ne), want_ne, "ne {dt}");
            release(&[ha, hb, pa, eq, ne]);
        }
    }
}

#[test]
fn division_near_overflow() {
    let mut rng = rng("division_near_overflow");
    for dt in COMPLEX {
        let big = if dt == SL_C64 { 1e37 } else { 1e306 };
        let n = 200;
        let scale = |rng: &mut StdRng| if rng.random_bool(0.5) { big } else { 1.0 / big };
        let a: Vec<Z> = (0..n)
            .map(|_| {
                let s = scale(&mut rng);
                stored(dt, (rng.random_range(-2.0..2.0) * s, rng.random_range(-2.0..2.0) * s))
            })
            .collect();
        let b: Vec<Z> = (0..n)
            .map(|_| {
                let s = scale(&mut rng);
                stored(dt, (rng.random_range(-2.0..2.0) * s, rng.random_range(-2.0..2.0) * s))
            })
            .collect();
        let (ha, hb) = (upload(dt, &[n], &a), upload(dt, &[n], &b));
        let mut q = 0;
        ok(sl_div(ha, hb, &mut q));
        let got = read(q).1;
        let limit = if dt == SL_C64 { f32::MAX as f64 } else { f64::MAX };
        let tiny = if dt == SL_C64 { f32::MIN_POSITIVE as f64 } else { f64::MIN_POSITIVE };
        for i in 0..n {
            let want = div(a[i], b[i]);
            // Where the quotient itself is representable and not subnormal.
            if modulus(want) < limit / 4.0 && modulus(want) > tiny * 1e3 {
                assert!(
                    close(got[i], want, 8.0 * eps(dt), modulus(want)),
                    "{dt} {:?} / {:?}: got {:?}, want {want:?}",
                    a[i],
                    b[i],
                    got[i]
                );
            }
        }
        release(&[ha, hb, q]);
    }
}

#[test]
fn scalar_forms() {
    let mut rng = rng("scalar_forms");
    for dt in COMPLEX {
        let n = rng.random_range(1..3000usize);
        let a = rand_vec(&mut rng, dt, n, false);
        let h = upload(dt, &[n], &a);
        let s: Z = stored(dt, (rng.random_range(-5.0..5.0), rng.random_range(-5.0..5.0)));
        let r = stored(dt, (rng.random_range(-5.0..5.0), 0.0)).0;
        let cases: [(sl_binary_op, bool, Ref2); 6] = [
            (SL_ADD, false, |x, y| (x.0 + y.0, x.1 + y.1)),
            (SL_SUB, false, |x, y| (x.0 - y.0, x.1 - y.1)),
            (SL_SUB, true, |x, y| (y.0 - x.0, y.1 - x.1)),
            (SL_MUL, false, mul),
            (SL_DIV, false, div),
            (SL_DIV, true, |x, y| div(y, x)),
        ];
        for (op, first, f) in cases {
            for (scalar, complex) in [(s, true), ((r, 0.0), false)] {
                let mut out = 0;
                ok(match (complex, first) {
                    (true, false) => sl_binary_scalar_c(op, h, scalar.0, scalar.1, &mut out),
                    (true, true) => sl_scalar_binary_c(op, scalar.0, scalar.1, h, &mut out),
                    (false, false) => sl_binary_scalar(op, h, scalar.0, &mut out),
                    (false, true) => sl_scalar_binary(op, scalar.0, h, &mut out),
                });
                let want: Vec<Z> = a.iter().map(|&x| stored(dt, f(x, scalar))).collect();
                let scale = |i: usize| modulus(want[i]) + modulus(a[i]) * modulus(scalar).max(1.0);
                assert_all_close(
                    &format!("{op} first={first} complex={complex} {dt}"),
                    &read(out).1,
                    &want,
                    8.0 * eps(dt),
                    scale,
                );
                release(&[out]);
            }
        }
        // A real float array with a complex scalar becomes complex of its precision.
        let re: Vec<f64> = a.iter().map(|z| z.0).collect();
        let real = Arr::new(
            part_type(dt),
            &[n],
            re.iter().map(|&x| if dt == SL_C64 { V::F32(x as f32) } else { V::F64(x) }).collect(),
        )
        .upload();
        let mut out = 0;
        ok(sl_binary_scalar_c(SL_MUL, real, 0.0, 1.0, &mut out));
        assert_eq!(dtype_of(out), dt);
        let want: Vec<Z> = re.iter().map(|&x| (0.0 * x, x)).collect();
        assert_all_close("real times i", &read(out).1, &want, 0.0, |_| 0.0);
        let mut c = 0;
        ok(sl_scalar_c(dt, s.0, s.1, &mut c));
        assert_all_close("sl_scalar_c", &read(c).1, &[s], 0.0, |_| 0.0);
        let mut filled = 0;
        ok(sl_constant_c(dt, 2, [3, 2].as_ptr(), s.0, s.1, &mut filled));
        assert_eq!(shape_of(filled), [3, 2]);
        assert_all_close("sl_constant_c", &read(filled).1, &[s; 6], 0.0, |_| 0.0);
        let mut bad = 0;
        fails(sl_constant_c(part_type(dt), 1, [3].as_ptr(), 1.0, 1.0, &mut bad), SL_ERR_DTYPE_MISMATCH, "c64 or c128");
        release(&[filled]);
        release(&[h, real, out, c]);
    }
}

/// A real scalar is not made complex (as in C99's Annex G): +, - and * act on each part
/// (s - x negates x's imaginary part) and x / s divides each, so zero parts have the
/// signs of the part-wise results (the +0 imaginary part of s + 0i would flip some: 0 - 0i
/// over -0.5 is -0 + 0i part-wise, -0 - 0i as a complex quotient), and arg takes the side
/// of the cut (+pi or -pi) those signs give.
#[test]
fn real_scalars_keep_the_signs_of_zero_parts() {
    let mut rng = rng("real_scalars_keep_the_signs_of_zero_parts");
    let part = |rng: &mut StdRng| match rng.random_range(0..4) {
        0 => 0.0,
        1 => -0.0,
        _ => rng.random_range(-4.0..4.0),
    };
    let cases: [(sl_binary_op, bool, RefScalar); 7] = [
        (SL_ADD, false, |x, s| (x.0 + s, x.1)),
        (SL_ADD, true, |x, s| (s + x.0, x.1)),
        (SL_SUB, false, |x, s| (x.0 - s, x.1)),
        (SL_SUB, true, |x, s| (s - x.0, -x.1)),
        (SL_MUL, false, |x, s| (x.0 * s, x.1 * s)),
        (SL_MUL, true, |x, s| (s * x.0, s * x.1)),
        (SL_DIV, false, |x, s| (x.0 / s, x.1 / s)),
    ];
    // Values within a few units of roundoff (Vulkan's division need not round correctly);
    // zeros, infinities and NaNs exactly, with their signs.
    let agree = |dt, got: f64, want: f64, ulps: f64| {
        (got.is_nan() && want.is_nan())
            || (got.is_sign_negative() == want.is_sign_negative()
                && (got == want || (got - want).abs() <= ulps * eps(dt) * want.abs()))
    };
    for dt in COMPLEX {
        let n = rng.random_range(16..300usize);
        let a: Vec<Z> = (0..n).map(|_| stored(dt, (part(&mut rng), part(&mut rng)))).collect();
        let h = upload(dt, &[n], &a);
        let p = pending(h);
        for s in [0.0, -0.0, stored(dt, (rng.random_range(-4.0..4.0), 0.0)).0] {
            for (op, first, f) in cases {
                let (mut out, mut angle) = (0, 0);
                ok(if first { sl_scalar_binary(op, s, p, &mut out) } else { sl_binary_scalar(op, p, s, &mut out) });
                ok(sl_arg(out, &mut angle));
                let (got, got_angle) = (read(out).1, read_real(angle));
                for i in 0..n {
                    let want = stored(dt, f(a[i], s));
                    let what = format!("{op} first={first} {dt} of {:?} and {s:e}", a[i]);
                    assert!(
                        agree(dt, got[i].0, want.0, 4.0) && agree(dt, got[i].1, want.1, 4.0),
                        "{what}: got {:?}, want {want:?}",
                        got[i]
                    );
                    // (+pi and -pi are far apart; the sign of a zero angle is not asked for.)
                    let want_angle = stored(dt, (want.1.atan2(want.0), 0.0)).0;
                    assert!(
                        !(want.0.is_finite() && want.1.is_finite())
                            || (got_angle[i] - want_angle).abs() <= 4.0 * eps(dt) * want_angle.abs(),
                        "arg of {what}: got {}, want {want_angle}",
                        got_angle[i]
                    );
                }
                release(&[out, angle]);
            }
        }
        release(&[h, p]);
    }
}

#[test]
fn unary_ops_and_parts() {
    let mut rng = rng("unary_ops_and_parts");
    for dt in COMPLEX {
        for special in [false, true] {
            let n = rng.random_range(1..2500usize);
            let a = rand_vec(&mut rng, dt, n, special);
            let h = upload(dt, &[n], &a);
            let p = pending(h);
            let complex_ops: [(&str, Call1, Ref1); 2] =
                [("neg", sl_neg, |z| (-z.0, -z.1)), ("conj", sl_conj, |z| (z.0, -z.1))];
            for (name, f, r) in complex_ops {
                let mut out = 0;
                ok(f(p, &mut out));
                let want: Vec<Z> = a.iter().map(|&z| r(z)).collect();
                assert_all_close(&format!("{name} {dt}"), &read(out).1, &want, 0.0, |_| 0.0);
                release(&[out]);
            }
            let real_ops: [(&str, Call1, RefPart, f64); 8] = [
                ("real", sl_real, |z| z.0, 0.0),
                ("imag", sl_imag, |z| z.1, 0.0),
                ("abs", sl_abs, modulus, 2.0),
                ("arg", sl_arg, |z| z.1.atan2(z.0), 4.0),
                ("isnan", sl_isnan, |z| (z.0.is_nan() || z.1.is_nan()) as u8 as f64, 0.0),
                ("isinf", sl_isinf, |z| (z.0.is_infinite() || z.1.is_infinite()) as u8 as f64, 0.0),
                ("isfinite", sl_isfinite, |z| (z.0.is_finite() && z.1.is_finite()) as u8 as f64, 0.0),
                ("real of a pending value", sl_real, |z| z.0, 0.0),
            ];
            for (name, f, r, ulps) in real_ops {
                let mut out = 0;
                ok(f(p, &mut out));
                let got = read_real(out);
                for i in 0..n {
                    let want = r(a[i]);
                    let want = if dt == SL_C64 { want as f32 as f64 } else { want };
                    let ok = (got[i].is_nan() && want.is_nan())
                        || got[i] == want
                        || (got[i] - want).abs() <= ulps * eps(dt) * want.abs();
                    assert!(ok, "{name} {dt} of {:?}: got {}, want {want}", a[i], got[i]);
                }
                release(&[out]);
            }
            release(&[h, p]);
        }
    }
}

#[test]
fn exp_log_sqrt() {
    let mut rng = rng("exp_log_sqrt");
    for dt in COMPLEX {
        let n = rng.random_range(1..2500usize);
        // exp of arguments whose result stays finite; log and sqrt of any finite value.
        let small: Vec<Z> =
            (0..n).map(|_| stored(dt, (rng.random_range(-20.0..20.0), rng.random_range(-50.0..50.0)))).collect();
        let a = rand_vec(&mut rng, dt, n, false);
        let cases: [(&str, Call1, Ref1, &[Z]); 3] =
            [("exp", sl_exp, exp, &small), ("log", sl_log, log, &a), ("sqrt", sl_sqrt, sqrt, &a)];
        // The math library's bound plus the formulas' roundings, relative to |result| (and
        // to 1 for log, whose parts may cancel to 0 near |z| = 1).
        let tol = if dt == SL_C64 { 2e-6 } else { 4e-15 };
        for (name, f, r, input) in cases {
            let h = upload(dt, &[n], input);
            let mut out = 0;
            ok(f(h, &mut out));
            let want: Vec<Z> = input.iter().map(|&z| r(z)).collect();
            let scale = |i: usize| if name == "log" { modulus(want[i]).max(1.0) } else { modulus(want[i]) };
            assert_all_close(&format!("{name} {dt}"), &read(out).1, &want, tol, scale);
            release(&[h, out]);
        }
        // sqrt of 0, of negative reals, and along the branch cut, where the sign of a zero
        // imaginary part picks the side (C99's csqrt, Python's cmath.sqrt: -4 - 0i gives -2i).
        let edge = [(0.0, 0.0), (-4.0, 0.0), (-4.0, -0.0), (0.0, 9.0), (0.0, -9.0)];
        let h = upload(dt, &[edge.len()], &edge);
        let mut out = 0;
        ok(sl_sqrt(h, &mut out));
        let want =
            [(0.0, 0.0), (0.0, 2.0), (0.0, -2.0), (4.5f64.sqrt(), 4.5f64.sqrt()), (4.5f64.sqrt(), -(4.5f64.sqrt()))];
        assert_all_close(&format!("sqrt edges {dt}"), &read(out).1, &want, 2.0 * eps(dt), |_| 3.0);
        release(&[h, out]);
    }
}

// ---------------------------------------------------------------------------------------
// Trigonometric and hyperbolic functions and powers, against their textbook formulas
// evaluated at 256 bits (MPFR), and C99 Annex G's special values.

/// The reference's precision in bits.
const PREC: u32 = 256;

fn mp(x: f64) -> Float {
    Float::with_val(PREC, x)
}

/// `a * b`, zero when a factor is zero (the other may be an infinity: MPFR's exponent
/// range cannot hold cosh 1e300).
fn times(a: Float, b: Float) -> Float {
    if a.is_zero() || b.is_zero() { mp(0.0) } else { a * b }
}

type Exact = fn(&Float, &Float) -> (Float, Float);

fn exact_sinh(x: &Float, y: &Float) -> (Float, Float) {
    (times(x.clone().sinh(), y.clone().cos()), times(x.clone().cosh(), y.clone().sin()))
}

fn exact_cosh(x: &Float, y: &Float) -> (Float, Float) {
    (times(x.clone().cosh(), y.clone().cos()), times(x.clone().sinh(), y.clone().sin()))
}

/// (sinh 2x + i sin 2y) / (cosh 2x + cos 2y), numerator and denominator divided by
/// cosh 2x (which may be infinite at 256 bits too).
fn exact_tanh(x: &Float, y: &Float) -> (Float, Float) {
    let (x2, y2) = (x.clone() * 2u32, y.clone() * 2u32);
    let c = x2.clone().cosh();
    let q = Float::with_val(PREC, y2.clone().cos() / &c) + 1u32;
    (x2.tanh() / &q, y2.sin() / c / q)
}

fn exact_sin(x: &Float, y: &Float) -> (Float, Float) {
    (times(x.clone().sin(), y.clone().cosh()), times(x.clone().cos(), y.clone().sinh()))
}

fn exact_cos(x: &Float, y: &Float) -> (Float, Float) {
    (times(x.clone().cos(), y.clone().cosh()), -times(x.clone().sin(), y.clone().sinh()))
}

/// tan z = -i tanh(iz).
fn exact_tan(x: &Float, y: &Float) -> (Float, Float) {
    let (a, b) = exact_tanh(&-y.clone(), x);
    (b, -a)
}

/// Whether the part `got` of type `dt` is within `tol` of the exact `want`; an overflow
/// counts as right when `want` is within `tol` of the largest finite number.
fn part_ok(dt: sl_dtype, got: f64, want: &Float, tol: &Float) -> bool {
    let (rounded, max) = if dt == SL_C64 { (want.to_f32() as f64, f32::MAX as f64) } else { (want.to_f64(), f64::MAX) };
    if got == rounded || (got.is_nan() && want.is_nan()) {
        return true;
    }
    if got.is_nan() || want.is_nan() {
        return false;
    }
    if got.is_infinite() {
        return (got > 0.0) == want.is_sign_positive() && Float::with_val(PREC, want.abs_ref()) + tol >= max;
    }
    Float::with_val(PREC, mp(got) - want).abs() <= *tol
}

/// A part for the function tests: mostly 1e-3 .. 1e3 in magnitude; now and then where
/// cosh overflows but its product with a cosine may not (|x| 80 .. 95 for f32, 700 .. 720
/// for f64), tiny or zero (so products underflow), or huge (trigonometric arguments
/// reduced exactly, hyperbolic results infinite).
fn rand_part(rng: &mut StdRng, dt: sl_dtype) -> f64 {
    let edge = if dt == SL_C64 { 80.0..95.0 } else { 700.0..720.0 };
    let m = match rng.random_range(0..12) {
        0 | 1 => rng.random_range(edge),
        2 => [0.0, 1e-30, 1e-300][rng.random_range(0..3)],
        3 => 10f64.powf(rng.random_range(3.0..30.0)),
        _ => 10f64.powf(rng.random_range(-3.0..3.0)),
    };
    if rng.random_bool(0.5) { m } else { -m }
}

/// sinh, cosh, sin, cos, tan, tanh of complex arrays, each part within a bound relative
/// to itself, derived from the math library's (README, "Math accuracy": 2 ulps, 2.5 for
/// tan) plus half an ulp per arithmetic operation, the errors adding:
/// - sinh x cos y and the like: 2 + 2 + 0.5; past cosh's overflow,
///   ((e^(|x|/2) / 2) c) e^(|x|/2): 2 + 2 + 2 + 0.5 + 0.5 = 7 ulps;
/// - tanh by Kahan's formula (t = tan y, b = 1 + t^2, s = sinh x, r = sqrt(1 + s^2)):
///   t^2 5.5, b 6, s^2 4.5, r 3, b s 8.5, den = 1 + b s^2 11.5 (sums of positive terms
///   add no more than their roundings), re = b s r / den 24, im = t / den 14.5; past
///   |x| = 12 (20), 4 sin y cos y e^(-2|x|): 7.5.
///
/// A second-order slack of one ulp is added to each. Below the smallest normal number,
/// products lose bits: an absolute floor of that many ulps of the smallest normal.
#[test]
fn trigonometric_and_hyperbolic() {
    let mut rng = rng("trigonometric_and_hyperbolic");
    let cases: [(&str, Call1, Exact, f64); 6] = [
        ("sinh", sl_sinh, exact_sinh, 8.0),
        ("cosh", sl_cosh, exact_cosh, 8.0),
        ("sin", sl_sin, exact_sin, 8.0),
        ("cos", sl_cos, exact_cos, 8.0),
        ("tanh", sl_tanh, exact_tanh, 25.0),
        ("tan", sl_tan, exact_tan, 25.0),
    ];
    for dt in COMPLEX {
        let n = rng.random_range(500..3000usize);
        let z: Vec<Z> = (0..n).map(|_| stored(dt, (rand_part(&mut rng, dt), rand_part(&mut rng, dt)))).collect();
        check_functions(dt, &z, &cases);
    }
}

/// Each function of `cases` on `z` (stored and pending) against its exact value, each part
/// within its case's ulps (see `trigonometric_and_hyperbolic`).
fn check_functions(dt: sl_dtype, z: &[Z], cases: &[(&str, Call1, Exact, f64)]) {
    let n = z.len();
    let h = upload(dt, &[n], z);
    let p = pending(h);
    let tiny = if dt == SL_C64 { f32::MIN_POSITIVE as f64 } else { f64::MIN_POSITIVE };
    for &(name, f, exact, ulps) in cases {
        for src in [h, p] {
            let mut out = 0;
            ok(f(src, &mut out));
            let got = read(out).1;
            for i in 0..n {
                let (re, im) = exact(&mp(z[i].0), &mp(z[i].1));
                let tol = |w: &Float| (Float::with_val(PREC, w.abs_ref()) + tiny) * (ulps * eps(dt));
                assert!(
                    part_ok(dt, got[i].0, &re, &tol(&re)) && part_ok(dt, got[i].1, &im, &tol(&im)),
                    "{name} {dt} of {:?}: got {:?}, want ({}, {})",
                    z[i],
                    got[i],
                    re.to_f64(),
                    im.to_f64()
                );
            }
            release(&[out]);
        }
    }
    release(&[h, p]);
}

fn exact_exp(x: &Float, y: &Float) -> (Float, Float) {
    let e = x.clone().exp();
    (times(e.clone(), y.clone().cos()), times(e, y.clone().sin()))
}

/// Past where e^x overflows, up to where e^(x/2) does too and beyond (|x| 700 .. 1455 for
/// f64, 80 .. 192 for f32), e^x, cosh x and sinh x times a subnormal sine may still be
/// finite: exp, sinh, cosh (and sin, cos through iz) must give them, not an infinity or a
/// value short of its low bits. The bound: beyond |x| = 1418 (176) four factors e^(|x|/4)
/// (2 ulps each), the sine (2) and three products, plus the slack.
#[test]
fn exponentials_far_past_overflow_times_subnormal_sines() {
    let mut rng = rng("exponentials_far_past_overflow_times_subnormal_sines");
    let cases: [(&str, Call1, Exact, f64); 5] = [
        ("exp", sl_exp, exact_exp, 13.0),
        ("sinh", sl_sinh, exact_sinh, 13.0),
        ("cosh", sl_cosh, exact_cosh, 13.0),
        ("sin", sl_sin, exact_sin, 13.0),
        ("cos", sl_cos, exact_cos, 13.0),
    ];
    for dt in COMPLEX {
        // Half the points in the band of four factors, where e^(|x|/2) overflows too.
        let (far, four_factors, smallest, bits) = if dt == SL_C64 {
            (80.0..192.0, 176.0..192.0, f32::from_bits(1) as f64, 23.0)
        } else {
            (700.0..1455.0, 1418.0..1455.0, f64::from_bits(1), 52.0)
        };
        let n = rng.random_range(200..600usize);
        let z: Vec<Z> = (0..n)
            .map(|_| {
                let range = if rng.random_bool(0.5) { four_factors.clone() } else { far.clone() };
                let x = rng.random_range(range) * if rng.random_bool(0.5) { 1.0 } else { -1.0 };
                // A subnormal with a few to all of the type's significant bits.
                let y = smallest * 2f64.powf(rng.random_range(0.0..bits)).round();
                let y = if rng.random_bool(0.5) { y } else { -y };
                stored(dt, (x, y))
            })
            .collect();
        // exp, sinh and cosh of x + iy; sin and cos of y + ix (through iz).
        check_functions(dt, &z, &cases[..3]);
        let swapped: Vec<Z> = z.iter().map(|&(x, y)| (y, x)).collect();
        check_functions(dt, &swapped, &cases[3..]);
    }
}

/// An expected part in the special-value tables: a value (zeros and infinities with their
/// signs), a zero of either sign, or NaN.
#[derive(Copy, Clone, Debug)]
enum Want {
    Is(f64),
    AnyZero,
    Nan,
}

fn want_neg(w: Want) -> Want {
    match w {
        Want::Is(v) => Want::Is(-v),
        other => other,
    }
}

fn matches(got: f64, want: Want) -> bool {
    match want {
        Want::Is(v) => got == v && got.is_sign_negative() == v.is_sign_negative(),
        Want::AnyZero => got == 0.0,
        Want::Nan => got.is_nan(),
    }
}

/// C99 Annex G (G.6.2.4 - G.6.2.6, with C11's ctanh(+0 + i inf) = +0 + iNaN) for
/// csinh, ccosh and ctanh at arguments with non-negative parts; the rest follow from
/// f(conj z) = conj f(z) and f(-z) = -f(z) (sinh, tanh) or f(z) (cosh).
fn annex_g(f: &str) -> Vec<(Z, (Want, Want))> {
    use Want::*;
    let (inf, nan) = (f64::INFINITY, f64::NAN);
    let cis = |y: f64| (Is(inf * y.cos().signum()), Is(inf * y.sin().signum()));
    match f {
        "sinh" => vec![
            ((0.0, 0.0), (Is(0.0), Is(0.0))),
            ((0.0, inf), (AnyZero, Nan)),
            ((0.0, nan), (AnyZero, Nan)),
            ((1.5, inf), (Nan, Nan)),
            ((1.5, nan), (Nan, Nan)),
            ((inf, 0.0), (Is(inf), Is(0.0))),
            ((inf, 1.0), cis(1.0)),
            ((inf, 2.5), cis(2.5)),
            ((inf, inf), (Is(inf), Nan)),
            ((inf, nan), (Is(inf), Nan)),
            ((nan, 0.0), (Nan, Is(0.0))),
            ((nan, 2.0), (Nan, Nan)),
            ((nan, nan), (Nan, Nan)),
        ],
        "cosh" => vec![
            ((0.0, 0.0), (Is(1.0), Is(0.0))),
            ((0.0, inf), (Nan, AnyZero)),
            ((0.0, nan), (Nan, AnyZero)),
            ((1.5, inf), (Nan, Nan)),
            ((1.5, nan), (Nan, Nan)),
            ((inf, 0.0), (Is(inf), Is(0.0))),
            ((inf, 1.0), cis(1.0)),
            ((inf, 2.5), cis(2.5)),
            ((inf, inf), (Is(inf), Nan)),
            ((inf, nan), (Is(inf), Nan)),
            ((nan, 0.0), (Nan, AnyZero)),
            ((nan, 2.0), (Nan, Nan)),
            ((nan, nan), (Nan, Nan)),
        ],
        _ => vec![
            ((0.0, 0.0), (Is(0.0), Is(0.0))),
            ((0.0, inf), (Is(0.0), Nan)),
            ((0.0, nan), (Is(0.0), Nan)),
            ((1.5, inf), (Nan, Nan)),
            ((1.5, nan), (Nan, Nan)),
            ((inf, 1.0), (Is(1.0), Is(0.0))),
            ((inf, 2.0), (Is(1.0), Is(-0.0))), // the sign of sin 2y
            ((inf, inf), (Is(1.0), AnyZero)),
            ((inf, nan), (Is(1.0), AnyZero)),
            ((nan, 0.0), (Nan, Is(0.0))),
            ((nan, 2.0), (Nan, Nan)),
            ((nan, nan), (Nan, Nan)),
        ],
    }
}

/// Special values of sinh, cosh and tanh, and of sin, cos and tan through C99's
/// definitions sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz): at z = -i p
/// for each point p of the hyperbolic table.
#[test]
fn annex_g_special_values() {
    for dt in COMPLEX {
        for (hyp, trig) in [("sinh", "sin"), ("cosh", "cos"), ("tanh", "tan")] {
            let mut points = Vec::new();
            for (z, (re, im)) in annex_g(hyp) {
                let odd = hyp != "cosh";
                let neg = |w| if odd { want_neg(w) } else { w };
                points.push((z, (re, im)));
                points.push(((z.0, -z.1), (re, want_neg(im))));
                points.push(((-z.0, z.1), (neg(re), want_neg(neg(im)))));
                points.push(((-z.0, -z.1), (neg(re), neg(im))));
            }
            let call = |name: &str| -> Call1 {
                match name {
                    "sinh" => sl_sinh,
                    "cosh" => sl_cosh,
                    "tanh" => sl_tanh,
                    "sin" => sl_sin,
                    "cos" => sl_cos,
                    _ => sl_tan,
                }
            };
            for (name, trig_form) in [(hyp, false), (trig, true)] {
                // The trigonometric function at -i p gives -i f(p) (cos: f(p)).
                let args: Vec<Z> = points.iter().map(|&(p, _)| if trig_form { (p.1, -p.0) } else { p }).collect();
                let h = upload(dt, &[args.len()], &args);
                let mut out = 0;
                ok(call(name)(h, &mut out));
                let got = read(out).1;
                for (i, &(p, (re, im))) in points.iter().enumerate() {
                    let want = if trig_form && hyp != "cosh" { (im, want_neg(re)) } else { (re, im) };
                    assert!(
                        matches(got[i].0, want.0) && matches(got[i].1, want.1),
                        "{name} {dt} of {:?} (hyperbolic point {p:?}): got {:?}, want {want:?}",
                        args[i],
                        got[i]
                    );
                }
                release(&[h, out]);
            }
        }
    }
}

/// x^y = exp(y log x) at 256 bits, x^0 = 1, 0^y = 0 for re y > 0.
fn exact_pow(x: Z, y: Z) -> (Float, Float) {
    if y == (0.0, 0.0) {
        return (mp(1.0), mp(0.0));
    }
    if x == (0.0, 0.0) && y.0 > 0.0 {
        return (mp(0.0), mp(0.0));
    }
    let (xr, xi, yr, yi) = (mp(x.0), mp(x.1), mp(y.0), mp(y.1));
    let log_mod = Float::with_val(PREC, xr.hypot_ref(&xi)).ln();
    let angle = xi.atan2(&xr);
    let u = Float::with_val(PREC, &yr * &log_mod) - Float::with_val(PREC, &yi * &angle);
    let v = Float::with_val(PREC, &yr * &angle) + Float::with_val(PREC, &yi * &log_mod);
    let e = u.exp();
    (Float::with_val(PREC, &e * v.clone().cos()), e * v.sin())
}

/// The bound on a part of x^y, relative to |x^y|: the exponent y log x = (u, v) carries
/// absolute errors from log|x| (log 2 ulps of itself plus hypot's 2 ulps, an absolute
/// 2 eps), atan2 (2 ulps) and the products and sums (half an ulp each): |err u| + |err v|
/// <= eps (4 (|yr L| + |yi t| + |yr t| + |yi L|) + 3 (|yr| + |yi|)) with L = log|x|,
/// t = arg x; then exp, cos/sin and the product add 2 + 2 + 0.5 ulps; one more of slack.
fn pow_tol(dt: sl_dtype, x: Z, y: Z, want: &(Float, Float)) -> Float {
    let (l, t) = (modulus(x).ln().abs(), x.1.atan2(x.0).abs());
    let (a, b) = (y.0.abs(), y.1.abs());
    let units = 4.0 * (a * l + b * t + a * t + b * l) + 3.0 * (a + b) + 5.5;
    let size = Float::with_val(PREC, want.0.hypot_ref(&want.1));
    let tiny = if dt == SL_C64 { f32::MIN_POSITIVE as f64 } else { f64::MIN_POSITIVE };
    (size + tiny) * (units * eps(dt))
}

/// Powers: complex^complex, complex^real, real^complex, as arrays and as scalar forms,
/// on moderate bases and on bases near overflow with small exponents.
#[test]
fn powers() {
    let mut rng = rng("powers");
    for dt in COMPLEX {
        let n = rng.random_range(500..2000usize);
        let big = if dt == SL_C64 { 30.0..38.0 } else { 300.0..308.0 };
        let mut x = Vec::new();
        let mut y = Vec::new();
        for _ in 0..n {
            let sign = |rng: &mut StdRng, v: f64| if rng.random_bool(0.5) { v } else { -v };
            let magnitude = |rng: &mut StdRng, r: std::ops::Range<f64>| 10f64.powf(rng.random_range(r));
            if rng.random_bool(0.15) {
                // Near overflow: |x|^re y stays representable for |re y| <= 1, and
                // e^(|im y| pi) <= 1.4 grows it past only for the largest x.
                let m = magnitude(&mut rng, big.clone());
                let m2 = m * rng.random_range(0.0..1.0);
                x.push(stored(dt, (sign(&mut rng, m), sign(&mut rng, m2))));
                y.push(stored(dt, (rng.random_range(-1.0..1.0), rng.random_range(-0.1..0.1))));
            } else {
                let (m1, m2) = (magnitude(&mut rng, -3.0..3.0), magnitude(&mut rng, -3.0..3.0));
                x.push(stored(dt, (sign(&mut rng, m1), sign(&mut rng, m2))));
                y.push(stored(dt, (rng.random_range(-3.0..3.0), rng.random_range(-3.0..3.0))));
            }
        }
        // x^0 = 1, 0^y = 0 (re y > 0).
        x[0] = (0.0, 0.0);
        y[0] = (1.5, -2.0);
        y[1] = (0.0, 0.0);
        let (hx, hy) = (upload(dt, &[n], &x), upload(dt, &[n], &y));
        let real = |v: Vec<f64>| {
            let part = part_type(dt);
            Arr::new(part, &[n], v.iter().map(|&r| if part == SL_F32 { V::F32(r as f32) } else { V::F64(r) }).collect())
                .upload()
        };
        let (xr, yr) = (real(x.iter().map(|z| z.0).collect()), real(y.iter().map(|z| z.0).collect()));
        let s = stored(dt, (rng.random_range(-3.0..3.0), rng.random_range(-3.0..3.0)));
        let r = stored(dt, (rng.random_range(0.1..3.0), 0.0)).0;
        type Pow<'a> = (&'static str, Box<dyn Fn(&mut sl_array) -> sl_status + 'a>, Box<dyn Fn(usize) -> (Z, Z) + 'a>);
        let (xs, ys) = (x.clone(), y.clone());
        let forms: Vec<Pow<'_>> = vec![
            ("complex^complex", Box::new(|o| sl_pow(pending(hx), hy, o)), Box::new(|i| (xs[i], ys[i]))),
            ("complex^real", Box::new(|o| sl_pow(hx, yr, o)), Box::new(|i| (xs[i], (ys[i].0, 0.0)))),
            ("real^complex", Box::new(|o| sl_pow(xr, hy, o)), Box::new(|i| ((xs[i].0, 0.0), ys[i]))),
            ("complex^scalar", Box::new(|o| sl_pow_scalar(hx, r, o)), Box::new(|i| (xs[i], (r, 0.0)))),
            (
                "complex^complex scalar",
                Box::new(|o| sl_binary_scalar_c(SL_POW, hx, s.0, s.1, o)),
                Box::new(|i| (xs[i], s)),
            ),
            (
                "complex scalar^complex",
                Box::new(|o| sl_scalar_binary_c(SL_POW, s.0, s.1, hy, o)),
                Box::new(|i| (s, ys[i])),
            ),
            (
                "real scalar^complex",
                Box::new(|o| sl_scalar_binary(SL_POW, -r, hy, o)),
                Box::new(|i| ((-r, 0.0), ys[i])),
            ),
        ];
        for (name, call, args) in &forms {
            let mut out = 0;
            ok(call(&mut out));
            let got = read(out).1;
            for (i, g) in got.iter().enumerate() {
                let (a, b) = args(i);
                let want = exact_pow(a, b);
                let tol = pow_tol(dt, a, b, &want);
                assert!(
                    part_ok(dt, g.0, &want.0, &tol) && part_ok(dt, g.1, &want.1, &tol),
                    "{name} {dt}: ({a:?})^({b:?}): got {g:?}, want ({}, {})",
                    want.0.to_f64(),
                    want.1.to_f64()
                );
            }
            release(&[out]);
        }
        release(&[hx, hy, xr, yr]);
    }
}

#[test]
fn make_complex_select_and_casts() {
    let mut rng = rng("make_complex_select_and_casts");
    for dt in COMPLEX {
        let n = rng.random_range(1..2000usize);
        let a = rand_vec(&mut rng, dt, n, true);
        let b = rand_vec(&mut rng, dt, n, true);
        let part = part_type(dt);
        let real = |v: Vec<f64>| {
            Arr::new(
                part,
                &[v.len()],
                v.iter().map(|&x| if part == SL_F32 { V::F32(x as f32) } else { V::F64(x) }).collect(),
            )
            .upload()
        };
        let (re, im) = (real(a.iter().map(|z| z.0).collect()), real(a.iter().map(|z| z.1).collect()));
        let mut z = 0;
        ok(sl_complex(re, im, &mut z));
        assert_all_close("sl_complex", &read(z).1, &a, 0.0, |_| 0.0);
        let mut polar = 0;
        ok(sl_polar(re, im, &mut polar));
        let want: Vec<Z> = a.iter().map(|z| stored(dt, (z.0 * z.1.cos(), z.0 * z.1.sin()))).collect();
        let tol = if dt == SL_C64 { 2e-6 } else { 4e-15 };
        assert_all_close("sl_polar", &read(polar).1, &want, tol, |i| a[i].0.abs());
        // select between two complex arrays
        let cond: Vec<bool> = (0..n).map(|_| rng.random_bool(0.5)).collect();
        let ch = Arr::new(SL_BOOL, &[n], cond.iter().map(|&c| V::B(c)).collect()).upload();
        let (ha, hb) = (upload(dt, &[n], &a), upload(dt, &[n], &b));
        let mut s = 0;
        ok(sl_select(ch, pending(ha), hb, &mut s));
        let want: Vec<Z> = (0..n).map(|i| if cond[i] { a[i] } else { b[i] }).collect();
        assert_all_close("select", &read(s).1, &want, 0.0, |_| 0.0);
        // real -> complex: zero imaginary part; c64 <-> c128; complex -> real refused.
        let mut c = 0;
        ok(sl_cast(re, dt, &mut c));
        let want: Vec<Z> = a.iter().map(|z| (z.0, 0.0)).collect();
        assert_all_close("cast real to complex", &read(c).1, &want, 0.0, |_| 0.0);
        let other = if dt == SL_C64 { SL_C128 } else { SL_C64 };
        let mut w = 0;
        ok(sl_cast(ha, other, &mut w));
        let want: Vec<Z> = a.iter().map(|&z| stored(other, z)).collect();
        assert_all_close("cast complex to complex", &read(w).1, &want, 0.0, |_| 0.0);
        let mut bad = 0;
        fails(sl_cast(ha, part, &mut bad), SL_ERR_DTYPE_MISMATCH, "imaginary part");
        let mut i = 0;
        ok(sl_cast(Arr::new(SL_I32, &[2], vec![V::I32(3), V::I32(-7)]).upload(), dt, &mut i));
        assert_all_close("cast i32 to complex", &read(i).1, &[(3.0, 0.0), (-7.0, 0.0)], 0.0, |_| 0.0);
        release(&[re, im, z, polar, ch, ha, hb, s, c, w, i]);
    }
}

/// Ops without a complex meaning, and the ones not implemented yet, refuse complex
/// arrays with a message saying so.
#[test]
fn refusals() {
    for dt in COMPLEX {
        let h = upload(dt, &[3], &[(1.0, 2.0), (3.0, -1.0), (0.5, 0.5)]);
        let mut out = 0;
        fails(sl_lt(h, h, &mut out), SL_ERR_DTYPE_MISMATCH, "no order");
        fails(sl_max(h, h, &mut out), SL_ERR_DTYPE_MISMATCH, "no order");
        fails(sl_floor(h, &mut out), SL_ERR_DTYPE_MISMATCH, "complex");
        fails(sl_sign(h, &mut out), SL_ERR_DTYPE_MISMATCH, "complex");
        for f in [sl_asin, sl_acos, sl_atan, sl_asinh, sl_acosh, sl_atanh] {
            fails(
                f(h, &mut out),
                SL_ERR_DTYPE_MISMATCH,
                "inverse trigonometric and hyperbolic functions are not implemented",
            );
        }
        fails(sl_expm1(h, &mut out), SL_ERR_DTYPE_MISMATCH, "lose accuracy near 0");
        fails(sl_log1p(h, &mut out), SL_ERR_DTYPE_MISMATCH, "lose accuracy near 0");
        fails(sl_atan2(h, h, &mut out), SL_ERR_DTYPE_MISMATCH, "the angle of a complex number is arg");
        fails(sl_hypot(h, h, &mut out), SL_ERR_DTYPE_MISMATCH, "the modulus of a complex number is abs");
        fails(sl_log10(h, &mut out), SL_ERR_DTYPE_MISMATCH, "log(z) divided by");
        fails(sl_maxval(h, SL_ALL_DIMS, &mut out), SL_ERR_DTYPE_MISMATCH, "no order");
        fails(sl_argmin(h, 0, &mut out), SL_ERR_DTYPE_MISMATCH, "no order");
        fails(sl_complex(h, h, &mut out), SL_ERR_DTYPE_MISMATCH, "complex");
        let mut g = 0;
        ok(sl_rng_create(SL_RNG_PHILOX, 1, &mut g));
        fails(sl_random_uniform(g, dt, 1, [3].as_ptr(), &mut out), SL_ERR_DTYPE_MISMATCH, "f32 or f64");
        ok(sl_rng_destroy(g));
        assert_eq!(out, 0);
        // The runtime stays usable.
        let mut s = 0;
        ok(sl_add(h, h, &mut s));
        assert_all_close("after refusals", &read(s).1, &[(2.0, 4.0), (6.0, -2.0), (1.0, 1.0)], 0.0, |_| 0.0);
        release(&[h, s]);
    }
}

fn sum(v: &[Z]) -> Z {
    v.iter().fold((0.0, 0.0), |s, z| (s.0 + z.0, s.1 + z.1))
}

fn prod(v: &[Z]) -> Z {
    v.iter().fold((1.0, 0.0), |p, &z| mul(p, z))
}

/// Values of modulus e^-0.2 .. e^0.2, whose logarithms average 0, so products of thousands
/// stay in f32 range (a product of 9000 is within e^±66 at 6 standard deviations).
fn unitish(rng: &mut StdRng, dt: sl_dtype, n: usize) -> Vec<Z> {
    (0..n)
        .map(|_| {
            let (r, t) = (rng.random_range(-0.2..0.2f64).exp(), rng.random_range(-3.0..3.0f64));
            stored(dt, (r * t.cos(), r * t.sin()))
        })
        .collect()
}

/// The elements of column-major `[m, n]` data along `dim` for each position of the other.
fn lines(v: &[Z], (m, n): (usize, usize), dim: usize) -> Vec<Vec<Z>> {
    match dim {
        0 => (0..n).map(|j| v[j * m..(j + 1) * m].to_vec()).collect(),
        _ => (0..m).map(|i| (0..n).map(|j| v[i + j * m]).collect()).collect(),
    }
}

#[test]
fn reductions_and_scans() {
    let mut rng = rng("reductions_and_scans");
    for dt in COMPLEX {
        for (m, n) in [(rng.random_range(1..50), rng.random_range(1..40)), (rng.random_range(1000..3000), 3), (0, 4)] {
            let v = unitish(&mut rng, dt, m * n);
            let h = pending(upload(dt, &[m, n], &v));
            // Sums in f64 for both types; products through the polar form: a few
            // roundings per factor, relative to the result.
            let sum_tol = |l: &[Z]| 4.0 * eps(dt) * l.iter().map(|&z| modulus(z)).sum::<f64>().max(1.0);
            let prod_tol = |l: &[Z]| 8.0 * eps(dt) * (l.len() as f64 + 4.0) * modulus(prod(l)).max(1e-300);
            for dim in [SL_ALL_DIMS, 0, 1] {
                let groups = if dim == SL_ALL_DIMS { vec![v.clone()] } else { lines(&v, (m, n), dim as usize) };
                let cases: [(&str, extern "C" fn(sl_array, i32, *mut sl_array) -> sl_status); 3] =
                    [("sum", sl_sum), ("mean", sl_mean), ("prod", sl_prod)];
                for (name, f) in cases {
                    let mut out = 0;
                    ok(f(h, dim, &mut out));
                    let got = read(out).1;
                    assert_eq!(got.len(), groups.len(), "{name} along {dim}");
                    for (g, l) in got.iter().zip(&groups) {
                        let (want, tol) = match name {
                            "sum" => (sum(l), sum_tol(l)),
                            "mean" => {
                                let s = sum(l);
                                let k = l.len() as f64;
                                ((s.0 / k, s.1 / k), sum_tol(l) / k.max(1.0))
                            }
                            _ => (prod(l), prod_tol(l)),
                        };
                        let want = stored(dt, want);
                        assert!(
                            close(*g, want, 1.0, tol),
                            "{name} of {dt} [{m}, {n}] along {dim}: got {g:?}, want {want:?}"
                        );
                    }
                    release(&[out]);
                }
            }
            for dim in [0, 1] {
                for (name, f) in [("cumsum", sl_cumsum as extern "C" fn(_, _, _) -> _), ("cumprod", sl_cumprod)] {
                    let mut out = 0;
                    ok(f(h, dim, &mut out));
                    let got = read(out).1;
                    for (k, l) in lines(&v, (m, n), dim as usize).iter().enumerate() {
                        for j in 0..l.len() {
                            let prefix = &l[..=j];
                            let (want, tol) = if name == "cumsum" {
                                (sum(prefix), sum_tol(prefix))
                            } else {
                                (prod(prefix), prod_tol(prefix))
                            };
                            let at = if dim == 0 { j + k * m } else { k + j * m };
                            assert!(
                                close(got[at], stored(dt, want), 1.0, tol),
                                "{name} of {dt} along {dim} at {at}: got {:?}, want {want:?}",
                                got[at]
                            );
                        }
                    }
                    release(&[out]);
                }
            }
            // dot: the sum of products, without conjugation (numpy.dot).
            let w = unitish(&mut rng, dt, m * n);
            let hw = upload(dt, &[m, n], &w);
            let mut d = 0;
            ok(sl_dot(h, hw, &mut d));
            let products: Vec<Z> = v.iter().zip(&w).map(|(&a, &b)| mul(a, b)).collect();
            let want = stored(dt, sum(&products));
            let got = read(d).1[0];
            assert!(close(got, want, 1.0, 8.0 * sum_tol(&products)), "dot {dt}: got {got:?}, want {want:?}");
            release(&[h, hw, d]);
        }
    }
}

/// A chain of complex ops `((a * b + conj(a)) / b)`, its sum and its exp.
fn chain(a: sl_array, b: sl_array) -> [sl_array; 3] {
    let (mut p, mut c, mut s, mut q, mut t, mut e) = (0, 0, 0, 0, 0, 0);
    ok(sl_mul(a, b, &mut p));
    ok(sl_conj(a, &mut c));
    ok(sl_add(p, c, &mut s));
    ok(sl_div(s, b, &mut q));
    ok(sl_sum(q, SL_ALL_DIMS, &mut t));
    ok(sl_mul_scalar(q, 0.01, &mut e));
    let mut x = 0;
    ok(sl_exp(e, &mut x));
    release(&[p, c, s, e]);
    [q, t, x]
}

fn chain_reference(a: &[Z], b: &[Z]) -> (Vec<Z>, Z) {
    let q: Vec<Z> = a.iter().zip(b).map(|(&x, &y)| div((mul(x, y).0 + x.0, mul(x, y).1 - x.1), y)).collect();
    let s = sum(&q);
    (q, s)
}

#[test]
fn trace_cache_and_macros_replay_complex_work() {
    let mut rng = rng("trace_cache_and_macros_replay_complex_work");
    let stats = |c: sl_cache| {
        let mut s: sl_cache_stats = unsafe { std::mem::zeroed() };
        ok(sl_get_cache_stats(c, &mut s));
        s
    };
    for dt in COMPLEX {
        let n = rng.random_range(100..3000usize);
        let before = stats(SL_CACHE_TRACE).hits;
        for _ in 0..4 {
            let (a, b) = (unitish(&mut rng, dt, n), unitish(&mut rng, dt, n));
            let (ha, hb) = (upload(dt, &[n], &a), upload(dt, &[n], &b));
            let [q, t, x] = chain(ha, hb);
            ok(sl_eval([q, t, x].as_ptr(), 3));
            let (want, want_sum) = chain_reference(&a, &b);
            assert_all_close(
                "chain",
                &read(q).1,
                &want.iter().map(|&z| stored(dt, z)).collect::<Vec<_>>(),
                16.0 * eps(dt),
                |i| modulus(want[i]) + 2.0,
            );
            assert!(close(read(t).1[0], want_sum, 64.0 * eps(dt), n as f64 * 4.0), "chain sum");
            release(&[ha, hb, q, t, x]);
        }
        assert!(stats(SL_CACHE_TRACE).hits >= before + 3, "repeated complex flushes hit the trace cache");

        // The chain as a macro section: recorded once, replayed with new inputs.
        let macro_hits = stats(SL_CACHE_MACRO).hits;
        let name = std::ffi::CString::new(format!("complex chain {dt}")).unwrap();
        for k in 0..3 {
            let (a, b) = (unitish(&mut rng, dt, n), unitish(&mut rng, dt, n));
            let (ha, hb) = (upload(dt, &[n], &a), upload(dt, &[n], &b));
            let mut out = [0; 3];
            let mut mode = -1;
            ok(sl_macro_begin(
                name.as_ptr(),
                [ha, hb].as_ptr(),
                2,
                std::ptr::null(),
                0,
                out.as_mut_ptr(),
                3,
                &mut mode,
            ));
            assert_eq!(mode, if k == 0 { SL_MACRO_RECORD } else { SL_MACRO_REPLAY });
            if mode == SL_MACRO_RECORD {
                out = chain(ha, hb);
                ok(sl_macro_end(out.as_ptr(), 3));
            }
            let (want, _) = chain_reference(&a, &b);
            assert_all_close(
                "macro chain",
                &read(out[0]).1,
                &want.iter().map(|&z| stored(dt, z)).collect::<Vec<_>>(),
                16.0 * eps(dt),
                |i| modulus(want[i]) + 2.0,
            );
            release(&[ha, hb]);
            release(&out);
        }
        assert!(stats(SL_CACHE_MACRO).hits >= macro_hits + 2, "complex sections replay");
    }
}

/// Under result comparison (compute mode, error action): complex values are compared with
/// a complex reference, `sl_reference` gives it as c128 and `sl_debug_peek` the value.
#[test]
#[ignore = "run by comparison_and_peek in a child process"]
fn comparison_and_peek_child() {
    let mut rng = rng("comparison_and_peek_child");
    for dt in COMPLEX {
        let n = rng.random_range(100..3000usize);
        let (a, b) = (unitish(&mut rng, dt, n), unitish(&mut rng, dt, n));
        let (ha, hb) = (upload(dt, &[n], &a), upload(dt, &[n], &b));
        let [q, t, x] = chain(ha, hb);
        let got = read(q).1;
        read(t);
        read(x);
        let mut r = 0;
        ok(sl_reference(q, &mut r));
        assert_eq!(dtype_of(r), SL_C128);
        let (want, _) = chain_reference(&a, &b);
        assert_all_close("reference", &read(r).1, &want, 1e-12, |i| modulus(want[i]) + 2.0);
        // The peek of a pending value equals what the read gives afterwards.
        let mut y = 0;
        ok(sl_mul_scalar(q, 3.0, &mut y));
        let part = if dt == SL_C64 { 4 } else { 8 };
        let mut peeked = vec![0u8; n * 2 * part];
        ok(sl_debug_peek(y, SL_COL_MAJOR, peeked.as_mut_ptr() as *mut _, peeked.len()));
        let mut read_back = vec![0u8; peeked.len()];
        ok(sl_read(y, SL_COL_MAJOR, read_back.as_mut_ptr() as *mut _, read_back.len()));
        assert_eq!(peeked, read_back, "peek and read of {dt}");
        let want3: Vec<Z> = got.iter().map(|z| stored(dt, (3.0 * z.0, 3.0 * z.1))).collect();
        assert_all_close("peek", &read(y).1, &want3, 0.0, |_| 0.0);
        // Parts that cancel: c = b (0.1 + 1000 i), so the real parts of c / b and of
        // c conj(b) are 1e-4 of the values' size, their f32 errors far more than 1e-5 of
        // themselves; they are held to the error their terms allow.
        let c: Vec<Z> = b.iter().map(|&z| stored(dt, mul(z, (0.1, 1000.0)))).collect();
        let hc = upload(dt, &[n], &c);
        let (mut quotient, mut conj_b, mut product) = (0, 0, 0);
        ok(sl_div(hc, hb, &mut quotient));
        ok(sl_conj(hb, &mut conj_b));
        ok(sl_mul(hc, conj_b, &mut product));
        for z in [quotient, product] {
            let (mut re, mut im) = (0, 0);
            ok(sl_real(z, &mut re));
            ok(sl_imag(z, &mut im));
            read_real(re);
            read_real(im);
            release(&[re, im]);
        }
        assert_compared_clean(7);
        release(&[ha, hb, q, t, x, r, y, hc, quotient, conj_b, product]);
    }
}

/// A wrong real op inside complex arithmetic is caught by comparing the complex result.
#[test]
#[ignore = "run by comparison_and_peek in a child process"]
fn planted_wrong_op_child() {
    let mut rng = rng("planted_wrong_op_child");
    for dt in COMPLEX {
        let n = 500;
        let (a, b) = (unitish(&mut rng, dt, n), unitish(&mut rng, dt, n));
        let (ha, hb) = (upload(dt, &[n], &a), upload(dt, &[n], &b));
        let mut p = 0;
        ok(sl_mul(ha, hb, &mut p));
        let part = if dt == SL_C64 { 4 } else { 8 };
        let mut buf = vec![0u8; n * 2 * part];
        fails(sl_read(p, SL_COL_MAJOR, buf.as_mut_ptr() as *mut _, buf.len()), SL_ERR_POISONED, "result comparison");
        release(&[ha, hb, p]);
    }
}

#[test]
fn comparison_and_peek() {
    // Every stored value is compared, parts of complex ones too: Smith's division stores
    // real intermediates that cancel (a - b r), held to the error their terms allow (the
    // reference's error scale), with the default tolerances.
    let env = [("SLUICE_COMPARE", "compute"), ("SLUICE_COMPARE_ACTION", "error")];
    child("comparison_and_peek_child", &env);
    let here = if on_vulkan() { "sub@vulkan" } else { "sub@cpu" };
    child("planted_wrong_op_child", &[env[0], env[1], ("SLUICE_TEST_PERTURB", here)]);
}

/// On Vulkan, complex kernels run on the device (both types: lavapipe has 64-bit floats),
/// fused element-wise work, reductions, scans and movement alike.
#[test]
#[ignore = "run by kernels_run_on_the_device in a child process"]
fn kernels_run_on_the_device_child() {
    let mut rng = rng("kernels_run_on_the_device_child");
    let before = stats().host_steps;
    for dt in COMPLEX {
        let (m, n) = (rng.random_range(2..60usize), rng.random_range(2..60usize));
        let (a, b) = (unitish(&mut rng, dt, m * n), unitish(&mut rng, dt, m * n));
        let (ha, hb) = (upload(dt, &[m, n], &a), upload(dt, &[m, n], &b));
        let [q, t, x] = chain(ha, hb);
        let (mut tr, mut p, mut c, mut s, mut g) = (0, 0, 0, 0, 0);
        ok(sl_transpose(q, &mut tr));
        ok(sl_prod(x, 1, &mut p));
        ok(sl_cumsum(tr, 0, &mut c));
        ok(sl_sqrt(c, &mut s));
        let idx = Arr::new(SL_I64, &[3], vec![V::I64(0), V::I64(1), V::I64(0)]).upload();
        let mut row = 0;
        ok(sl_project(hb, 1, 0, &mut row));
        ok(sl_gather(row, &idx, 1, &mut g));
        let outs = [q, t, x, tr, p, c, s, g];
        ok(sl_eval(outs.as_ptr(), outs.len() as i32));
        let (want, _) = chain_reference(&a, &b);
        assert_all_close(
            "chain on the device",
            &read(q).1,
            &want.iter().map(|&z| stored(dt, z)).collect::<Vec<_>>(),
            16.0 * eps(dt),
            |i| modulus(want[i]) + 2.0,
        );
        release(&outs);
        release(&[ha, hb, idx, row]);
    }
    assert_eq!(stats().host_steps, before, "a complex kernel ran on the CPU");
}

#[test]
fn kernels_run_on_the_device() {
    if on_vulkan() {
        child("kernels_run_on_the_device_child", &[]);
    }
}

/// Column gathers (`x[:, idx]`) and a transpose of a section's input: the forms Vulkan
/// copies with hand-written kernels, 16-byte elements included.
#[test]
fn column_gather_and_transposed_input() {
    let mut rng = rng("column_gather_and_transposed_input");
    for dt in COMPLEX {
        let (r, c, k) = (rng.random_range(16..80usize), rng.random_range(2..40usize), rng.random_range(1..30usize));
        let v = rand_vec(&mut rng, dt, r * c, true);
        let z = upload(dt, &[r, c], &v);
        let cols: Vec<i64> = (0..k).map(|_| rng.random_range(0..c as i64)).collect();
        let mut rows = 0;
        ok(sl_iota(SL_I64, 2, [r as i64, k as i64].as_ptr(), 0, &mut rows));
        let ch = Arr::new(SL_I64, &[1, k], cols.iter().map(|&j| V::I64(j)).collect()).upload();
        let mut g = 0;
        ok(sl_gather(z, [rows, ch].as_ptr(), 2, &mut g));
        let gathers = Handwritten::Gather.dispatches();
        let want: Vec<Z> = (0..r * k).map(|i| v[i % r + cols[i / r] as usize * r]).collect();
        assert_all_close("column gather", &read(g).1, &want, 0.0, |_| 0.0);
        assert_handwritten("column gather", "gather", Handwritten::Gather.dispatches() > gathers, true);
        let name = std::ffi::CString::new(format!("transpose {dt}")).unwrap();
        for _ in 0..2 {
            let mut out = [0];
            let mut mode = -1;
            // Counted from the section's start: its steps are submitted at its end (or,
            // replayed, at its start).
            let transposes = Handwritten::Transpose.dispatches();
            ok(sl_macro_begin(name.as_ptr(), &z, 1, std::ptr::null(), 0, out.as_mut_ptr(), 1, &mut mode));
            if mode == SL_MACRO_RECORD {
                ok(sl_transpose(z, &mut out[0]));
                ok(sl_macro_end(out.as_ptr(), 1));
            }
            let want: Vec<Z> = (0..r * c).map(|i| v[i / c + (i % c) * r]).collect();
            assert_all_close("transposed input", &read(out[0]).1, &want, 0.0, |_| 0.0);
            let ran = Handwritten::Transpose.dispatches() > transposes;
            assert_handwritten("transposed input", "transpose", ran, true);
            release(&out);
        }
        release(&[z, rows, ch, g]);
    }
}

/// Ops on a complex value made from a scalar and an array while the queue fills up: taking
/// the parts back out broadcasts the scalar (a new queued node), and when that node makes
/// the queue prune its dead entries (which locks every queued node, the complex value's
/// too) the complex value's lock must not be held (the fuzzer's threads hung there). A
/// varying number of released temporaries puts the pruning at that node in some rounds.
/// In a child process for the queue limit; the work runs on a thread so that a hang fails
/// the test instead of stalling it.
#[test]
fn parts_of_a_queued_complex_value_under_a_full_queue() {
    child("parts_under_a_full_queue_child", &[("SLUICE_QUEUE_LIMIT", "8")]);
}

#[test]
#[ignore = "run by parts_of_a_queued_complex_value_under_a_full_queue with SLUICE_QUEUE_LIMIT=8"]
fn parts_under_a_full_queue_child() {
    let mut rng = rng("parts_under_a_full_queue_child");
    let n = 16;
    let im: Vec<f64> = (0..n).map(|_| rng.random_range(-2.0..2.0)).collect();
    let re = rng.random_range(-2.0..2.0);
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let him = Arr::new(SL_F64, &[n], im.iter().map(|&x| V::F64(x)).collect()).upload();
        for round in 0..60 {
            let (mut hre, mut z, mut neg) = (0, 0, 0);
            ok(sl_scalar(SL_F64, re, &mut hre));
            ok(sl_complex(hre, him, &mut z));
            for _ in 0..round % 9 {
                let mut t = 0;
                ok(sl_add(him, him, &mut t));
                release(&[t]);
            }
            ok(sl_neg(z, &mut neg));
            let got = read(neg).1;
            for (i, g) in got.iter().enumerate() {
                assert_eq!(*g, (-re, -im[i]), "element {i}");
            }
            release(&[hre, z, neg]);
        }
        release(&[him]);
        done.send(()).unwrap();
    });
    finished.recv_timeout(std::time::Duration::from_secs(120)).expect("the calls returned (no hang)");
}
