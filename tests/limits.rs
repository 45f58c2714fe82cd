//! Sizes, offsets and strides at the edges of 64 bits. Calls whose sizes would overflow are
//! refused (`SL_ERR_INVALID_ARGUMENT`, a message, the null handle); extreme calls that are
//! valid compute the right elements, checked exactly against a plain reference on fresh
//! random data, on the executor in use (`SLUICE_BACKEND`); and an algebraic rewrite with a
//! rank-0 operand keeps the broadcast shape.

mod common;

use common::*;
use rand::Rng;
use rand::rngs::StdRng;
use sluice::*;

/// `st` is `SL_ERR_INVALID_ARGUMENT` mentioning `needle`, and `out` is the null handle.
#[track_caller]
fn refused(st: sl_status, out: sl_array, needle: &str) {
    fails(st, SL_ERR_INVALID_ARGUMENT, needle);
    assert_eq!(out, 0, "a refused call leaves the null handle");
}

fn constant(dims: &[i64], out: &mut sl_array) -> sl_status {
    sl_constant(SL_F32, dims.len() as i32, dims.as_ptr(), 1.0, out)
}

fn numel_of(h: sl_array) -> i64 {
    let mut n = -1;
    ok(sl_numel(h, &mut n));
    n
}

#[test]
fn shapes_beyond_the_element_limit_are_refused() {
    let max = SL_MAX_ELEMENTS;
    let mut out = 0;
    for dims in [vec![max], vec![1, max, 1], vec![max / 3, 3], vec![1 << 30, (1 << 30) - 1]] {
        ok(constant(&dims, &mut out));
        assert_eq!(numel_of(out), dims.iter().product::<i64>(), "{dims:?}");
        release(&[out]);
    }
    let too_large =
        [vec![max + 1], vec![1 << 30, 1 << 30], vec![0, max + 1], vec![max, 0, 2], vec![i64::MAX, 0], vec![1 << 31; 3]];
    for dims in &too_large {
        let r = dims.len() as i32;
        out = 7;
        refused(constant(dims, &mut out), out, "too large");
        out = 7;
        refused(sl_iota(SL_I64, r, dims.as_ptr(), 0, &mut out), out, "too large");
        let mut generator = 0;
        ok(sl_rng_create(SL_RNG_PHILOX, 1, &mut generator));
        out = 7;
        refused(sl_random_uniform(generator, SL_F32, r, dims.as_ptr(), &mut out), out, "too large");
        ok(sl_rng_destroy(generator));
        out = 7;
        refused(
            sl_create(SL_U8, r, dims.as_ptr(), SL_COL_MAJOR, [0u8].as_ptr() as *const _, 1, &mut out),
            out,
            "too large",
        );
        let one = vec_f32(&[1.0]);
        out = 7;
        refused(sl_broadcast_to(one, r, dims.as_ptr(), &mut out), out, "too large");
        out = 7;
        refused(sl_reshape(one, r, dims.as_ptr(), &mut out), out, "too large");
        release(&[one]);
    }
    out = 7;
    refused(sl_identity(SL_F32, 1 << 31, 1 << 30, &mut out), out, "too large");
}

fn vec_f32(v: &[f32]) -> sl_array {
    Arr::new(SL_F32, &[v.len()], v.iter().map(|&x| V::F32(x)).collect()).upload()
}

/// Results made by broadcasting, tiling, padding and concatenating are held to the same
/// limit, including empty ones (whose other sizes could otherwise be anything).
#[test]
fn results_beyond_the_element_limit_are_refused() {
    let (mut row, mut col, mut out) = (0, 0, 7);
    ok(constant(&[1, 1 << 32], &mut row));
    ok(constant(&[1 << 32], &mut col));
    refused(sl_add(row, col, &mut out), out, "too large");
    out = 7;
    refused(sl_binary(SL_MUL, col, row, &mut out), out, "too large");
    let (mut cond, mut idx) = (0, 0);
    ok(sl_constant(SL_BOOL, 1, [1i64 << 32].as_ptr(), 1.0, &mut cond));
    out = 7;
    refused(sl_select(cond, row, col, &mut out), out, "too large");
    ok(sl_constant(SL_I64, 2, [1i64, 1 << 32].as_ptr(), 0.0, &mut idx));
    let mut idx_col = 0;
    ok(sl_reshape(idx, 1, [1i64 << 32].as_ptr(), &mut idx_col));
    out = 7;
    refused(sl_gather(row, [idx_col, idx].as_ptr(), 2, &mut out), out, "too large");
    out = 7;
    refused(sl_scatter(row, [idx_col, idx].as_ptr(), 2, row, SL_SCATTER_ADD, &mut out), out, "too large");
    release(&[row, col, cond, idx, idx_col]);

    let mut empty = 0;
    ok(constant(&[0, 2], &mut empty));
    out = 7;
    refused(sl_tile(empty, [1i64, 1 << 62].as_ptr(), 2, &mut out), out, "too large");
    out = 7;
    refused(sl_tile(empty, [3i64, 2, i64::MAX].as_ptr(), 3, &mut out), out, "too large");
    out = 7;
    refused(
        sl_pad(empty, [0i64, i64::MAX].as_ptr(), [0i64, i64::MAX].as_ptr(), SL_BOUNDARY_FILL, 0.0, &mut out),
        out,
        "too large",
    );
    let mut half = 0;
    ok(constant(&[0, SL_MAX_ELEMENTS / 2 + 1], &mut half));
    out = 7;
    refused(sl_concat([half, half].as_ptr(), 2, 1, &mut out), out, "too large");
    // At the limit itself they are made.
    ok(sl_tile(empty, [1i64, SL_MAX_ELEMENTS / 2].as_ptr(), 2, &mut out));
    assert_eq!(shape_of(out), vec![0, (SL_MAX_ELEMENTS / 2 * 2) as usize]);
    release(&[empty, half, out]);
}

fn sectioned(a: &Arr, start: &[i64], count: &[i64], stride: &[i64]) -> Arr {
    let shape: Vec<usize> = count.iter().map(|&c| c as usize).collect();
    let v = (0..numel(&shape))
        .map(|i| {
            let idx = unravel(&shape, i);
            let src: Vec<usize> =
                (0..idx.len()).map(|d| (start[d] as i128 + idx[d] as i128 * stride[d] as i128) as usize).collect();
            a.at(&src)
        })
        .collect();
    Arr::new(a.dt, &shape, v)
}

#[test]
fn sections_whose_end_overflows_are_refused() {
    let mut rng = rng("sections_whose_end_overflows_are_refused");
    let a = rand_arr(&mut rng, SL_F64, &[7], -1.0, 1.0, false);
    let h = a.upload();
    // (count - 1) * stride wraps around 2^64 to an offset inside the array.
    let cases = [
        (0, 3, i64::MIN + 1),
        (1, (1 << 62) + 1, 4),
        (6, (1 << 62) + 1, -4),
        (6, 2, i64::MAX),
        (0, 2, i64::MIN),
        (0, i64::MAX, 2),
        (i64::MAX, 1, 1),
        (i64::MIN, 1, 1),
    ];
    for (start, count, stride) in cases {
        let mut out = 7;
        let st = sl_section(h, &start, &count, &stride, &mut out);
        refused(st, out, "leaves the array");
    }
    // The array is intact and a valid section still works.
    let mut out = 0;
    ok(sl_section(h, &6, &4, &-2, &mut out));
    assert_eq!(download(out).v, sectioned(&a, &[6], &[4], &[-2]).v);
    release(&[h, out]);
}

/// A random valid (start, count, stride) along an extent `n`, often extreme: single
/// elements with any stride, the longest negative strides, empty sections anywhere.
fn random_section(rng: &mut StdRng, n: i64) -> (i64, i64, i64) {
    let huge = [i64::MIN, i64::MIN + 1, i64::MAX, i64::MAX - 1, -(1 << 62), 1 << 62];
    let any_stride = |rng: &mut StdRng| {
        if rng.random_bool(0.5) { huge[rng.random_range(0..huge.len())] } else { rng.random::<i64>() | 1 }
    };
    match rng.random_range(0..5) {
        0 => (rng.random(), 0, any_stride(rng)),
        1 => (rng.random_range(0..n), 1, any_stride(rng)),
        2 if n >= 2 => (n - 1, 2, -(n - 1)),
        _ => {
            let s = rng.random_range(1..=n.max(2) - 1) * if rng.random_bool(0.5) { -1 } else { 1 };
            let count = rng.random_range(1..=1 + (n - 1) / s.abs());
            let span = (count - 1) * s.abs();
            let start = if s > 0 { rng.random_range(0..=n - 1 - span) } else { rng.random_range(span..=n - 1) };
            (start, count, s)
        }
    }
}

/// A random f64 array of rank 1 to 3 (sizes up to `max`) as two sources, each with its
/// values: stored, and computed (pending: doubled by a kernel).
fn random_sources(rng: &mut StdRng, max: usize) -> [(sl_array, Arr); 2] {
    let shape: Vec<usize> = (0..rng.random_range(1..=3)).map(|_| rng.random_range(1..=max)).collect();
    let a = rand_arr(rng, SL_F64, &shape, -1.0, 1.0, false);
    let h = a.upload();
    let mut pending = 0;
    ok(sl_mul_scalar(h, 2.0, &mut pending));
    let doubled = Arr::new(a.dt, &a.shape, a.v.iter().map(|x| V::F64(2.0 * x.f())).collect());
    [(h, a), (pending, doubled)]
}

#[test]
fn sections_with_extreme_valid_strides_match_the_reference() {
    let mut rng = rng("sections_with_extreme_valid_strides_match_the_reference");
    for _ in 0..60 {
        for (src, want_src) in random_sources(&mut rng, 9) {
            // A section of a section: the second one's strides compose with the first's.
            let mut cur = (src, want_src);
            let mut made = Vec::new();
            for _ in 0..2 {
                let sec: Vec<_> = cur.1.shape.iter().map(|&n| random_section(&mut rng, n as i64)).collect();
                let (start, count, stride): (Vec<i64>, Vec<i64>, Vec<i64>) = (
                    sec.iter().map(|s| s.0).collect(),
                    sec.iter().map(|s| s.1).collect(),
                    sec.iter().map(|s| s.2).collect(),
                );
                let mut out = 0;
                let st = sl_section(cur.0, start.as_ptr(), count.as_ptr(), stride.as_ptr(), &mut out);
                assert_eq!(st, SL_OK, "section {sec:?} of {:?}: {}", cur.1.shape, last_error().1);
                let want = sectioned(&cur.1, &start, &count, &stride);
                let got = download(out);
                assert_eq!(got.shape, want.shape, "section {sec:?} of {:?}", cur.1.shape);
                assert_eq!(got.v, want.v, "section {sec:?} of {:?}", cur.1.shape);
                made.push(out);
                if want.v.is_empty() {
                    break;
                }
                cur = (out, want);
            }
            release(&made);
            release(&[src]);
        }
    }
}

/// `out[.., i, ..] = a[.., i - offset, ..]` along `dim` by the boundary rule, in exact
/// (128-bit) arithmetic.
fn shifted(a: &Arr, dim: usize, offset: i64, boundary: sl_boundary, fill: f64) -> Arr {
    let n = a.shape[dim] as i128;
    let v = (0..a.v.len())
        .map(|i| {
            let mut idx = unravel(&a.shape, i);
            let c = idx[dim] as i128 - offset as i128;
            idx[dim] = match boundary {
                SL_BOUNDARY_WRAP => c.rem_euclid(n),
                SL_BOUNDARY_CLAMP => c.clamp(0, n - 1),
                _ if (0..n).contains(&c) => c,
                _ => return V::F64(fill),
            } as usize;
            a.at(&idx)
        })
        .collect();
    Arr::new(a.dt, &a.shape, v)
}

#[test]
fn shifts_and_rotations_by_extreme_offsets_match_the_reference() {
    let mut rng = rng("shifts_and_rotations_by_extreme_offsets_match_the_reference");
    for _ in 0..12 {
        for (src, want_src) in random_sources(&mut rng, 11) {
            let shape = want_src.shape.clone();
            for dim in 0..shape.len() {
                let n = shape[dim] as i64;
                let k = rng.random_range(0..1000);
                let offsets = [
                    i64::MIN,
                    i64::MIN + 1,
                    i64::MIN + k,
                    i64::MAX,
                    i64::MAX - k,
                    n,
                    -n,
                    n + 1,
                    -n - 1,
                    rng.random_range(-3 * n..=3 * n),
                    rng.random(),
                ];
                for offset in offsets {
                    let fill = rng.random_range(-9.0..9.0f64).round();
                    for boundary in [SL_BOUNDARY_FILL, SL_BOUNDARY_CLAMP, SL_BOUNDARY_WRAP] {
                        let mut out = 0;
                        ok(sl_shift(src, dim as i32, offset, boundary, fill, &mut out));
                        let want = shifted(&want_src, dim, offset, boundary, fill);
                        assert_eq!(
                            download(out).v,
                            want.v,
                            "shift {shape:?} along {dim} by {offset}, boundary {boundary}"
                        );
                        release(&[out]);
                    }
                    let mut out = 0;
                    ok(sl_rotate(src, dim as i32, offset, &mut out));
                    let want = shifted(&want_src, dim, offset, SL_BOUNDARY_WRAP, 0.0);
                    assert_eq!(download(out).v, want.v, "rotate {shape:?} along {dim} by {offset}");
                    release(&[out]);
                }
            }
            release(&[src]);
        }
    }
}

/// `op(base, c)` with a rank-0 `base` and a constant array `c` of a value that a rewrite
/// replaces (pow by 2, 1, 0, -1; mul or div by 1; integer add or sub of 0) has `c`'s shape
/// and the values of the plain op.
#[test]
fn rewrites_with_a_rank0_operand_keep_the_broadcast_shape() {
    let mut rng = rng("rewrites_with_a_rank0_operand_keep_the_broadcast_shape");
    let shape = [rng.random_range(1..=6usize), rng.random_range(1..=6usize)];
    let dims = shape.map(|d| d as i64);
    let cases: [(sl_dtype, sl_binary_op, f64); 10] = [
        (SL_F64, SL_POW, 2.0),
        (SL_F64, SL_POW, -1.0),
        (SL_F64, SL_POW, 1.0),
        (SL_F64, SL_POW, 0.0),
        (SL_F64, SL_MUL, 1.0),
        (SL_F64, SL_DIV, 1.0),
        (SL_I64, SL_POW, 2.0),
        (SL_I64, SL_ADD, 0.0),
        (SL_I64, SL_SUB, 0.0),
        (SL_I32, SL_MUL, 1.0),
    ];
    for (dt, op, c) in cases {
        let x = match dt {
            SL_F64 => rng.random_range(0.5..4.0f64),
            _ => rng.random_range(-50..=50) as f64,
        };
        let want = match op {
            SL_POW if c == -1.0 => 1.0 / x,
            SL_POW => x.powi(c as i32),
            _ => x,
        };
        let want = V::F64(want).cast(dt);
        // A stored base is rewritten; a constant one is folded with the constant array.
        let mut constant_base = 0;
        ok(sl_scalar(dt, x, &mut constant_base));
        let stored_base = Arr::new(dt, &[], vec![V::F64(x).cast(dt)]).upload();
        for base in [stored_base, constant_base] {
            let (mut exps, mut out) = (0, 0);
            ok(sl_constant(dt, 2, dims.as_ptr(), c, &mut exps));
            ok(sl_binary(op, base, exps, &mut out));
            let got = download(out);
            assert_eq!(got.shape, shape.to_vec(), "op {op} of a rank-0 {dt} and a constant {c} array");
            assert!(got.v.iter().all(|&v| v == want), "op {op} of {x} and {c}: {:?}, want {want:?}", got.v);
            release(&[exps, out]);
        }
        release(&[stored_base, constant_base]);
    }
}

/// Scans of empty arrays with a huge dimension, along each dimension: the result is
/// empty, and computing it returns at once (the CPU executor walked the 2^33 planes of
/// a cumsum of [2^33 + 7, 0, 18, 3] along its empty dimension, found by the fuzzer as a
/// call that did not return).
#[test]
fn scans_of_empty_arrays_with_huge_dimensions_return_at_once() {
    for dims in [[15032385529i64, 0, 18, 3], [1 << 40, 0, 1, 1], [1 << 20, 0, 1 << 20, 1]] {
        for dim in 0..4 {
            let (mut x, mut c) = (0, 0);
            ok(sl_constant(SL_I64, 4, dims.as_ptr(), 1.0, &mut x));
            ok(sl_cumsum(x, dim, &mut c));
            ok(sl_read(c, SL_COL_MAJOR, std::ptr::null_mut(), 0));
            assert_eq!(numel_of(c), 0, "cumsum of {dims:?} along {dim}");
            release(&[x, c]);
        }
    }
}
