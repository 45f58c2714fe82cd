//! Sorts, searches and the data-dependent ops (top-k, nonzero, compress, unique,
//! histogram) against plain references written here (std's stable sort with the
//! NaN-last order as a comparator, linear counts), on random data full of ties, NaNs and
//! signed zeros, empty and size-1 dimensions, row-major data and views as inputs, on the
//! executor the environment selects. Sort results are compared bit for bit, so the
//! stability guarantee (equal elements, -0 and +0 among them, keep their order) is
//! checked on every case; `argsort_is_stable_on_ties` checks it on its own.

mod common;

use std::cmp::Ordering;

use common::*;
use rand::Rng;
use rand::rngs::StdRng;
use sluice::*;

/// The sort order: by value, -0 equal to +0, NaNs after every number and equal.
fn order(a: V, b: V) -> Ordering {
    let (x, y) = (a.f(), b.f());
    match (x.is_nan(), y.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => x.partial_cmp(&y).unwrap(),
    }
}

fn directed(a: V, b: V, descending: bool) -> Ordering {
    if descending && !a.f().is_nan() && !b.f().is_nan() { order(b, a) } else { order(a, b) }
}

/// Values with many ties: a few small integers, signed zeros, infinities and NaNs of
/// both signs for floats.
fn tied(rng: &mut StdRng, dt: sl_dtype, shape: &[usize]) -> Arr {
    let v = (0..numel(shape))
        .map(|_| {
            if matches!(dt, SL_F32 | SL_F64) && rng.random_bool(0.2) {
                let s = [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, -f64::NAN];
                let x = s[rng.random_range(0..s.len())];
                return if dt == SL_F32 { V::F32(x as f32) } else { V::F64(x) };
            }
            let x = rng.random_range(-6..=6) as f64 * if matches!(dt, SL_F32 | SL_F64) { 0.5 } else { 1.0 };
            match dt {
                SL_U8 => V::U8((x + 6.0) as u8),
                SL_BOOL => V::B(x > 0.0),
                _ => V::F64(x).cast(dt),
            }
        })
        .collect();
    Arr::new(dt, shape, v)
}

/// The stable sort of every line of `a` along `dim`: (values, positions).
fn reference_sort(a: &Arr, dim: usize, descending: bool) -> (Arr, Arr) {
    let mut values = a.clone();
    let mut positions = Arr::new(SL_I64, &a.shape, vec![V::I64(0); a.v.len()]);
    let mut line_shape = a.shape.clone();
    line_shape[dim] = 1;
    for l in 0..numel(&line_shape) {
        let start = unravel(&line_shape, l);
        let at = |i: usize| {
            let mut idx = start.clone();
            idx[dim] = i;
            ravel(&a.shape, &idx)
        };
        let mut line: Vec<(V, usize)> = (0..a.shape[dim]).map(|i| (a.v[at(i)], i)).collect();
        line.sort_by(|x, y| directed(x.0, y.0, descending));
        for (i, (v, from)) in line.into_iter().enumerate() {
            values.v[at(i)] = v;
            positions.v[at(i)] = V::I64(from as i64);
        }
    }
    (values, positions)
}

/// Bit-for-bit equality (NaNs of any payload equal), naming the first difference.
#[track_caller]
fn assert_same(what: &str, got: &Arr, want: &Arr) {
    assert_eq!(got.shape, want.shape, "{what}: shape");
    assert_eq!(got.dt, want.dt, "{what}: type");
    if let Some(i) = (0..want.v.len()).find(|&i| got.v[i] != want.v[i]) {
        panic!("{what}: element {i} is {:?}, the reference {:?}", got.v[i], want.v[i]);
    }
}

fn order_code(descending: bool) -> sl_sort_order {
    if descending { SL_DESCENDING } else { SL_ASCENDING }
}

fn sorted(h: sl_array, dim: usize, descending: bool) -> (Arr, Arr) {
    let (mut s, mut p) = (0, 0);
    ok(sl_sort(h, dim as i32, order_code(descending), &mut s));
    ok(sl_argsort(h, dim as i32, order_code(descending), &mut p));
    let got = (download(s), download(p));
    release(&[s, p]);
    got
}

/// Sorts and argsorts of `a` along every dimension, both orders, against the reference.
fn sorts_match_the_reference(a: &Arr) {
    let h = a.upload();
    for dim in 0..a.shape.len() {
        for descending in [false, true] {
            let (values, positions) = sorted(h, dim, descending);
            let (want_v, want_p) = reference_sort(a, dim, descending);
            let what = format!("{} {:?} dim {dim} descending {descending}", a.dt, a.shape);
            assert_same(&format!("sort {what}"), &values, &want_v);
            assert_same(&format!("argsort {what}"), &positions, &want_p);
        }
    }
    release(&[h]);
}

const SHAPES: [&[usize]; 10] = [&[0], &[1], &[7], &[1000], &[0, 3], &[3, 1], &[5, 40], &[40, 5], &[2, 3, 4], &[300, 0]];

#[test]
fn sort_and_argsort_match_the_stable_reference() {
    let mut rng = rng("sort_and_argsort_match_the_stable_reference");
    for dt in ALL_DTYPES {
        for shape in SHAPES {
            let a = tied(&mut rng, dt, shape);
            sorts_match_the_reference(&a);
        }
    }
}

/// Lines long enough for the workers to sort together (and for the pairs path when a
/// line holds a -0 or a NaN), and many short lines spread over the workers.
#[test]
fn long_and_many_lines() {
    let mut rng = rng("long_and_many_lines");
    for (dt, shape) in
        [(SL_F32, &[300_000][..]), (SL_F64, &[70_000, 2]), (SL_I32, &[3, 40_000]), (SL_F32, &[16, 20_000])]
    {
        // Wide values: every radix digit varies.
        let wide = rand_arr(&mut rng, dt, shape, -1e6, 1e6, false);
        for a in [wide, tied(&mut rng, dt, shape)] {
            sorts_match_the_reference(&a);
        }
    }
}

/// Lengths around the device kernel's boundaries (powers of two, the shared-memory tile
/// of 4096 one-word or 2048 two-word records on lavapipe, merges of tiles), a 2^20 line,
/// and 1000 lines of 17 (both dimensions).
#[test]
fn device_sizes() {
    let mut rng = rng("device_sizes");
    for dt in ALL_DTYPES {
        for n in [2, 3, 255, 256, 257, 2047, 2048, 2049, 4095, 4096, 4097, 100_003] {
            sorts_match_the_reference(&tied(&mut rng, dt, &[n]));
        }
        sorts_match_the_reference(&tied(&mut rng, dt, &[1000, 17]));
    }
    for dt in [SL_F32, SL_I64] {
        sorts_match_the_reference(&rand_arr(&mut rng, dt, &[1 << 20], -1e9, 1e9, true));
    }
}

/// Lines longer than a tile, read through a section (every other row, backwards) and a
/// transpose of it.
#[test]
fn long_lines_of_views() {
    let mut rng = rng("long_lines_of_views");
    for dt in [SL_F32, SL_I64, SL_U8] {
        let (rows, cols) = (9001, 3);
        let a = tied(&mut rng, dt, &[rows, cols]);
        let h = a.upload();
        let (mut sec, mut tr) = (0, 0);
        let half = rows / 2;
        ok(sl_section(
            h,
            [rows as i64 - 1, 0].as_ptr(),
            [half as i64, cols as i64].as_ptr(),
            [-2, 1].as_ptr(),
            &mut sec,
        ));
        let sec_ref = Arr::new(
            dt,
            &[half, cols],
            (0..half * cols).map(|i| a.at(&[rows - 1 - 2 * (i % half), i / half])).collect(),
        );
        ok(sl_transpose(sec, &mut tr));
        let tr_ref = Arr::new(dt, &[cols, half], (0..half * cols).map(|i| sec_ref.at(&[i / cols, i % cols])).collect());
        for (what, view, want) in [("section", sec, &sec_ref), ("transpose", tr, &tr_ref)] {
            for dim in 0..2 {
                for descending in [false, true] {
                    let (values, positions) = sorted(view, dim, descending);
                    let (want_v, want_p) = reference_sort(want, dim, descending);
                    let what = format!("{dt} {what} along {dim} descending {descending}");
                    assert_same(&format!("sort of a {what}"), &values, &want_v);
                    assert_same(&format!("argsort of a {what}"), &positions, &want_p);
                }
            }
        }
        release(&[h, sec, tr]);
    }
}

#[test]
#[ignore = "run by vulkan_sorts_run_on_the_device in a child process"]
fn device_sorts_child() {
    let mut rng = rng("device_sorts_child");
    let (steps, dispatches) = (stats().host_steps, sluice::backend::vulkan::Handwritten::Sort.dispatches());
    for dt in ALL_DTYPES {
        for shape in [&[5000][..], &[30, 7]] {
            let a = tied(&mut rng, dt, shape);
            let h = a.upload();
            let _ = sorted(h, 0, false);
            let mut s = tied(&mut rng, dt, &[100]);
            s.v.sort_by(|x, y| order(*x, *y));
            let (hs, mut q) = (s.upload(), 0);
            ok(sl_searchsorted(hs, h, SL_SIDE_RIGHT, &mut q));
            let _ = download(q);
            release(&[h, hs, q]);
        }
    }
    let (host_steps, ran) =
        (stats().host_steps - steps, sluice::backend::vulkan::Handwritten::Sort.dispatches() > dispatches);
    let gpu = matches!(device().device_type, SL_DEVICE_DISCRETE_GPU | SL_DEVICE_INTEGRATED_GPU);
    if gpu || switched_on("SLUICE_VULKAN_DEVICE_SORT") {
        assert_eq!(host_steps, 0, "a sort ran on the host");
        assert!(ran, "the sort kernels did not run");
    } else {
        assert!(host_steps > 0 && !ran, "on a CPU-type device sorts run on the CPU executor");
    }
}

/// On Vulkan GPUs (or with `SLUICE_VULKAN_DEVICE_SORT=on`), sorts, argsorts and searches run on
/// the device: no host step; on CPU-type devices on the CPU executor (this child runs alone, so
/// the counters are its own).
#[test]
fn vulkan_sorts_run_where_they_are_fastest() {
    if on_vulkan() {
        child("device_sorts_child", &[]);
        child("device_sorts_child", &[("SLUICE_VULKAN_DEVICE_SORT", "on")]);
    }
}

/// Many equal keys: the positions of equal elements must rise along every sorted run,
/// in both orders.
#[test]
fn argsort_is_stable_on_ties() {
    let mut rng = rng("argsort_is_stable_on_ties");
    for n in [50, 5000, 200_000] {
        let a = Arr::new(SL_F32, &[n], (0..n).map(|_| V::F32([-0.0, 0.0, 1.0, 2.0][rng.random_range(0..4)])).collect());
        let h = a.upload();
        for descending in [false, true] {
            let (_, p) = sorted(h, 0, descending);
            let p: Vec<usize> = p.v.iter().map(|v| v.f() as usize).collect();
            for w in p.windows(2) {
                if order(a.v[w[0]], a.v[w[1]]) == Ordering::Equal {
                    assert!(
                        w[0] < w[1],
                        "n {n} descending {descending}: equal elements at {} and {} swapped",
                        w[0],
                        w[1]
                    );
                }
            }
        }
        release(&[h]);
    }
}

/// Inputs that are views (a reversed section, a transpose), fused expressions, and data
/// given in row-major order.
#[test]
fn views_expressions_and_row_major_inputs() {
    let mut rng = rng("views_expressions_and_row_major_inputs");
    let a = tied(&mut rng, SL_F64, &[9, 13]);
    let h = a.upload();
    // Every other row, backwards.
    let (mut sec, mut tr, mut scaled) = (0, 0, 0);
    ok(sl_section(h, [8, 0].as_ptr(), [5, 13].as_ptr(), [-2, 1].as_ptr(), &mut sec));
    let sec_ref = Arr::new(SL_F64, &[5, 13], (0..65).map(|i| a.at(&[8 - 2 * (i % 5), i / 5])).collect());
    ok(sl_transpose(h, &mut tr));
    let tr_ref = Arr::new(SL_F64, &[13, 9], (0..117).map(|i| a.at(&[i / 13, i % 13])).collect());
    ok(sl_binary_scalar(SL_MUL, h, -3.0, &mut scaled));
    let scaled_ref = Arr::new(SL_F64, &[9, 13], a.v.iter().map(|v| V::F64(v.f() * -3.0)).collect());
    for (what, view, want) in
        [("section", sec, &sec_ref), ("transpose", tr, &tr_ref), ("expression", scaled, &scaled_ref)]
    {
        for dim in 0..2 {
            let (values, positions) = sorted(view, dim, dim == 1);
            let (want_v, want_p) = reference_sort(want, dim, dim == 1);
            assert_same(&format!("sort of a {what} along {dim}"), &values, &want_v);
            assert_same(&format!("argsort of a {what} along {dim}"), &positions, &want_p);
        }
    }
    // Row-major data in and out: the same array.
    let row_major: Vec<u8> = (0..117).flat_map(|i| a.at(&[i / 13, i % 13]).f().to_le_bytes()).collect::<Vec<u8>>();
    let mut r = 0;
    ok(sl_create(SL_F64, 2, [9, 13].as_ptr(), SL_ROW_MAJOR, row_major.as_ptr() as *const _, row_major.len(), &mut r));
    let mut s = 0;
    ok(sl_sort(r, 1, SL_ASCENDING, &mut s));
    let mut back = vec![0u8; 117 * 8];
    ok(sl_read(s, SL_ROW_MAJOR, back.as_mut_ptr() as *mut _, back.len()));
    let (want, _) = reference_sort(&a, 1, false);
    for (i, c) in back.chunks_exact(8).enumerate() {
        let got = V::F64(f64::from_le_bytes(c.try_into().unwrap()));
        assert_eq!(got, want.at(&[i / 13, i % 13]), "row-major sort, element {i}");
    }
    release(&[h, sec, tr, scaled, r, s]);
}

#[test]
fn topk_takes_the_first_of_the_stable_order() {
    let mut rng = rng("topk_takes_the_first_of_the_stable_order");
    for dt in [SL_F32, SL_I64, SL_U8] {
        let shape = [12, 5];
        let a = tied(&mut rng, dt, &shape);
        let h = a.upload();
        for dim in 0..2 {
            for k in [0, 1, 3, shape[dim]] {
                for largest in [false, true] {
                    let (mut v, mut p) = (0, 0);
                    ok(sl_topk(h, k as i64, dim as i32, order_code(largest), &mut v, &mut p));
                    let (want_v, want_p) = reference_sort(&a, dim, largest);
                    let mut out_shape = shape.to_vec();
                    out_shape[dim] = k;
                    let first = |x: &Arr| {
                        let v = (0..numel(&out_shape)).map(|i| x.at(&unravel(&out_shape, i))).collect();
                        Arr::new(x.dt, &out_shape, v)
                    };
                    let what = format!("topk {dt} dim {dim} k {k} largest {largest}");
                    assert_same(&what, &download(v), &first(&want_v));
                    assert_same(&what, &download(p), &first(&want_p));
                    release(&[v, p]);
                }
            }
        }
        let (mut v, mut p) = (0, 0);
        fails(sl_topk(h, 13, 0, SL_DESCENDING, &mut v, &mut p), SL_ERR_INVALID_ARGUMENT, "k is 13");
        assert_eq!((v, p), (0, 0), "a refused topk leaves null handles");
        fails(sl_topk(h, -1, 1, SL_DESCENDING, &mut v, &mut p), SL_ERR_INVALID_ARGUMENT, "k is -1");
        release(&[h]);
    }
}

#[test]
fn searchsorted_counts_before_and_through_ties() {
    let mut rng = rng("searchsorted_counts_before_and_through_ties");
    for dt in ALL_DTYPES {
        for n in [0, 1, 17, 500] {
            let mut s = tied(&mut rng, dt, &[n]);
            s.v.sort_by(|x, y| order(*x, *y));
            let v = tied(&mut rng, dt, &[6, 7]);
            let (hs, hv) = (s.upload(), v.upload());
            for (side, right) in [(SL_SIDE_LEFT, false), (SL_SIDE_RIGHT, true)] {
                let mut out = 0;
                ok(sl_searchsorted(hs, hv, side, &mut out));
                let want =
                    v.v.iter()
                        .map(|&x| {
                            let before = s.v.iter().filter(|&&y| order(y, x) == Ordering::Less).count();
                            let equal = s.v.iter().filter(|&&y| order(y, x) == Ordering::Equal).count();
                            V::I64((before + if right { equal } else { 0 }) as i64)
                        })
                        .collect();
                assert_same(
                    &format!("searchsorted {dt} n {n} right {right}"),
                    &download(out),
                    &Arr::new(SL_I64, &[6, 7], want),
                );
                release(&[out]);
            }
            release(&[hs, hv]);
        }
    }
}

#[test]
fn nonzero_and_compress_keep_what_the_mask_holds() {
    let mut rng = rng("nonzero_and_compress_keep_what_the_mask_holds");
    for shape in [&[0][..], &[1], &[33, 4], &[5000]] {
        for dt in [SL_BOOL, SL_F32, SL_I32] {
            let a = tied(&mut rng, dt, shape);
            let values = rand_arr(&mut rng, SL_F64, shape, -9.0, 9.0, true);
            let (ha, hv) = (a.upload(), values.upload());
            let (mut nz, mut kept) = (0, 0);
            ok(sl_nonzero(ha, &mut nz));
            ok(sl_compress(ha, hv, &mut kept));
            let chosen: Vec<usize> = (0..a.v.len()).filter(|&i| a.v[i].f() != 0.0).collect();
            let want_nz = Arr::new(SL_I64, &[chosen.len()], chosen.iter().map(|&i| V::I64(i as i64)).collect());
            let want_kept = Arr::new(SL_F64, &[chosen.len()], chosen.iter().map(|&i| values.v[i]).collect());
            assert_same(&format!("nonzero {dt} {shape:?}"), &download(nz), &want_nz);
            assert_same(&format!("compress {dt} {shape:?}"), &download(kept), &want_kept);
            release(&[ha, hv, nz, kept]);
        }
    }
}

#[test]
fn unique_values_counts_and_inverse() {
    let mut rng = rng("unique_values_counts_and_inverse");
    for dt in ALL_DTYPES {
        for shape in [&[0][..], &[1], &[40, 3], &[3000]] {
            let a = tied(&mut rng, dt, shape);
            let h = a.upload();
            let (mut v, mut c, mut inv) = (0, 0, 0);
            ok(sl_unique(h, &mut v, &mut c, &mut inv));
            // Runs of the stable sort: each run's first element stands for it.
            let (sorted_all, _) = reference_sort(&Arr::new(dt, &[a.v.len()], a.v.clone()), 0, false);
            let mut values: Vec<V> = Vec::new();
            let mut counts: Vec<i64> = Vec::new();
            for &x in &sorted_all.v {
                match values.last() {
                    Some(&last) if order(last, x) == Ordering::Equal => *counts.last_mut().unwrap() += 1,
                    _ => {
                        values.push(x);
                        counts.push(1);
                    }
                }
            }
            let inverse: Vec<V> =
                a.v.iter()
                    .map(|&x| V::I64(values.iter().position(|&u| order(u, x) == Ordering::Equal).unwrap() as i64))
                    .collect();
            let what = format!("unique {dt} {shape:?}");
            assert_same(&what, &download(v), &Arr::new(dt, &[values.len()], values.clone()));
            assert_same(
                &what,
                &download(c),
                &Arr::new(SL_I64, &[counts.len()], counts.iter().map(|&n| V::I64(n)).collect()),
            );
            assert_same(&what, &download(inv), &Arr::new(SL_I64, shape, inverse));
            release(&[h, v, c, inv]);
        }
    }
}

/// Bins by numpy's rule: [e_i, e_{i+1}) and the last bin closed; outside and NaN dropped.
fn reference_histogram(a: &Arr, edges: &[f64]) -> Arr {
    let bins = edges.len() - 1;
    let mut counts = vec![0i64; bins];
    for x in a.v.iter().map(|v| v.f()) {
        if x == edges[bins] {
            counts[bins - 1] += 1;
        } else if let Some(b) = (0..bins).find(|&b| edges[b] <= x && x < edges[b + 1]) {
            counts[b] += 1;
        }
    }
    Arr::new(SL_I64, &[bins], counts.into_iter().map(V::I64).collect())
}

#[test]
fn histogram_with_edges_and_with_a_range() {
    let mut rng = rng("histogram_with_edges_and_with_a_range");
    for dt in [SL_F32, SL_F64, SL_I32] {
        let a = tied(&mut rng, dt, &[50, 7]);
        let h = a.upload();
        let mut edges: Vec<f64> = (0..6).map(|_| rng.random_range(-3..=3) as f64).collect();
        edges.sort_by(f64::total_cmp);
        let he = Arr::new(SL_F64, &[6], edges.iter().map(|&e| V::F64(e)).collect()).upload();
        let mut out = 0;
        ok(sl_histogram(h, he, &mut out));
        assert_same(&format!("histogram {dt} edges {edges:?}"), &download(out), &reference_histogram(&a, &edges));
        let (bins, lo, hi) = (rng.random_range(1..9), -2.5, 2.0);
        let mut ranged = 0;
        ok(sl_histogram_range(h, bins, lo, hi, &mut ranged));
        let t = if dt == SL_F32 { |x: f64| x as f32 as f64 } else { |x: f64| x };
        let edges: Vec<f64> = (0..=bins).map(|i| t(((bins - i) as f64 * lo + i as f64 * hi) / bins as f64)).collect();
        assert_same(&format!("histogram {dt} {bins} bins"), &download(ranged), &reference_histogram(&a, &edges));
        release(&[h, he, out, ranged]);
    }
}

#[test]
fn bad_inputs_are_refused_at_the_call() {
    let mut rng = rng("bad_inputs_are_refused_at_the_call");
    let a = rand_arr(&mut rng, SL_F32, &[4, 3], -1.0, 1.0, false);
    let h = a.upload();
    let mut z = 0;
    ok(sl_complex(h, h, &mut z));
    let mut out = 0;
    fails(sl_sort(z, 0, SL_ASCENDING, &mut out), SL_ERR_DTYPE_MISMATCH, "complex numbers have no order");
    fails(sl_argsort(h, 2, SL_ASCENDING, &mut out), SL_ERR_INVALID_ARGUMENT, "dimension 2 is out of range");
    fails(sl_sort(h, 0, 2, &mut out), SL_ERR_INVALID_ARGUMENT, "order is 2");
    fails(sl_searchsorted(h, h, SL_SIDE_LEFT, &mut out), SL_ERR_SHAPE_MISMATCH, "must be a vector");
    fails(sl_searchsorted(h, h, 3, &mut out), SL_ERR_INVALID_ARGUMENT, "side is 3");
    fails(sl_unique(z, &mut out, &mut out, &mut out), SL_ERR_DTYPE_MISMATCH, "complex");
    let mut one_edge = 0;
    ok(sl_reshape(h, 1, [12].as_ptr(), &mut one_edge));
    let mut e1 = 0;
    ok(sl_section(one_edge, [0].as_ptr(), [1].as_ptr(), [1].as_ptr(), &mut e1));
    fails(sl_histogram(h, e1, &mut out), SL_ERR_INVALID_ARGUMENT, "at least 2 edges");
    fails(sl_histogram_range(h, 0, 0.0, 1.0, &mut out), SL_ERR_INVALID_ARGUMENT, "at least 1 bin");
    fails(sl_histogram_range(h, 4, 1.0, 1.0, &mut out), SL_ERR_INVALID_ARGUMENT, "lo < hi");
    fails(sl_compress(one_edge, h, &mut out), SL_ERR_SHAPE_MISMATCH, "the mask has shape");
    // Inside a recording macro a data-dependent size cannot be replayed.
    let mut mode = 0;
    let mut outputs = [0u64; 1];
    ok(sl_macro_begin(c"sort_refusal".as_ptr(), &h, 1, std::ptr::null(), 0, outputs.as_mut_ptr(), 1, &mut mode));
    if mode == SL_MACRO_RECORD {
        fails(sl_nonzero(h, &mut out), SL_ERR_INVALID_STATE, "not allowed while macro");
        ok(sl_macro_cancel());
    } else {
        ok(sl_macro_end(outputs.as_ptr(), 0));
    }
    // Nothing was lost: the runtime still sorts.
    let (values, _) = sorted(h, 0, false);
    assert_same("sort after refusals", &values, &reference_sort(&a, 0, false).0);
    release(&[h, z, one_edge, e1]);
}

/// A loop sorting new data of the same shape replays the trace cache's recipe.
#[test]
fn repeated_sorts_hit_the_trace_cache() {
    let mut rng = rng("repeated_sorts_hit_the_trace_cache");
    let hits = || {
        let mut s: sl_cache_stats = unsafe { std::mem::zeroed() };
        ok(sl_get_cache_stats(SL_CACHE_TRACE, &mut s));
        s.hits
    };
    let before = hits();
    for round in 0..4 {
        let a = tied(&mut rng, SL_F32, &[64, 9]);
        let h = a.upload();
        let (mut x, mut s) = (0, 0);
        ok(sl_binary_scalar(SL_ADD, h, 1.0, &mut x));
        ok(sl_sort(x, 0, SL_DESCENDING, &mut s));
        let shifted = Arr::new(SL_F32, &[64, 9], a.v.iter().map(|v| V::F32(v.f() as f32 + 1.0)).collect());
        assert_same(&format!("round {round}"), &download(s), &reference_sort(&shifted, 0, true).0);
        release(&[h, x, s]);
    }
    assert!(hits() > before, "sorting the same shapes again replays a cached flush");
}

#[test]
#[ignore = "run by result_comparison_passes in a child with SLUICE_COMPARE=compute"]
fn result_comparison_child() {
    let mut rng = rng("result_comparison_child");
    for dt in [SL_F32, SL_F64, SL_I32] {
        let a = tied(&mut rng, dt, &[30, 4]);
        let h = a.upload();
        let (mut s, mut p, mut v, mut i, mut q, mut hist) = (0, 0, 0, 0, 0, 0);
        ok(sl_sort(h, 0, SL_ASCENDING, &mut s));
        ok(sl_argsort(h, 1, SL_DESCENDING, &mut p));
        ok(sl_topk(h, 3, 0, SL_DESCENDING, &mut v, &mut i));
        let mut col = 0;
        ok(sl_project(s, 1, 0, &mut col));
        ok(sl_searchsorted(col, h, SL_SIDE_RIGHT, &mut q));
        ok(sl_histogram_range(h, 5, -3.0, 3.0, &mut hist));
        let (mut u, mut c, mut inv) = (0, 0, 0);
        ok(sl_unique(h, &mut u, &mut c, &mut inv));
        for x in [s, p, v, i, q, hist, u, c, inv] {
            let _ = download(x);
        }
        release(&[h, s, p, v, i, col, q, hist, u, c, inv]);
    }
    assert_compared_clean(1);
}

#[test]
fn result_comparison_passes() {
    child("result_comparison_child", &[("SLUICE_COMPARE", "compute"), ("SLUICE_COMPARE_ACTION", "error")]);
}
