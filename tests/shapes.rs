//! Generators (linspace, arange, meshgrid) and shape ops (diag, triu/tril, repeat, flip,
//! squeeze, expand_dims, moveaxis) against plain references, on random inputs with empty
//! and size-1 dimensions, given as stored arrays, pending (fused) arrays and strided views.

mod common;

use common::*;
use rand::Rng;
use rand::rngs::StdRng;
use sluice::*;

/// The same values as three kinds of input: stored, pending (computed in the kernel that
/// reads it), and a stride-2 section of a larger stored array (a view).
fn inputs(rng: &mut StdRng, a: &Arr) -> Vec<sl_array> {
    let stored = a.upload();
    let (mut p, mut pending) = (0, 0);
    let op = if a.dt == SL_BOOL { SL_NOT } else { SL_NEG };
    ok(sl_unary(op, stored, &mut p));
    ok(sl_unary(op, p, &mut pending));
    release(&[p]);
    let big_shape: Vec<usize> = a.shape.iter().map(|&d| 2 * d).collect();
    let mut big = rand_arr(rng, a.dt, &big_shape, -9.0, 9.0, false);
    for i in 0..a.v.len() {
        let idx: Vec<usize> = unravel(&a.shape, i).iter().map(|&c| 2 * c).collect();
        let at = ravel(&big_shape, &idx);
        big.v[at] = a.v[i];
    }
    let hb = big.upload();
    let r = a.shape.len();
    let (start, count, stride) = (vec![0i64; r], a.shape.iter().map(|&d| d as i64).collect::<Vec<_>>(), vec![2i64; r]);
    let mut view = 0;
    ok(sl_section(hb, start.as_ptr(), count.as_ptr(), stride.as_ptr(), &mut view));
    release(&[hb]);
    vec![stored, pending, view]
}

fn zero(dt: sl_dtype) -> V {
    V::I64(0).cast(dt)
}

fn rand_shape(rng: &mut StdRng, rank: usize) -> Vec<usize> {
    (0..rank).map(|_| if rng.random_bool(0.15) { rng.random_range(0..2) } else { rng.random_range(2..7) }).collect()
}

#[test]
fn linspace_matches_reference() {
    let mut rng = rng("linspace_matches_reference");
    for dt in [SL_F32, SL_F64] {
        let eps = if dt == SL_F32 { f32::EPSILON as f64 } else { f64::EPSILON };
        for n in [0i64, 1, 2, 7, rng.random_range(100..5000)] {
            for endpoint in [1, 0] {
                let (start, stop) = (rng.random_range(-100.0..100.0), rng.random_range(-100.0..100.0));
                let mut h = 0;
                ok(sl_linspace(dt, start, stop, n, endpoint, &mut h));
                let div = if endpoint != 0 { (n - 1).max(1) } else { n.max(1) } as f64;
                let want: Vec<V> = (0..n)
                    .map(|i| {
                        let v = if endpoint != 0 && n > 1 && i == n - 1 {
                            stop
                        } else {
                            start + i as f64 * (stop - start) / div
                        };
                        V::F64(v).cast(dt)
                    })
                    .collect();
                let want = Arr::new(dt, &[n as usize], want);
                let got = download(h);
                let scale = start.abs().max(stop.abs());
                assert_near(&format!("linspace {dt} n={n} endpoint={endpoint}"), &got, &want, 4.0 * eps * scale, 0.0);
                if endpoint != 0 && n > 0 {
                    assert_eq!(got.v[0], V::F64(start).cast(dt), "linspace starts exactly at start");
                    assert_eq!(got.v[n as usize - 1], V::F64(if n > 1 { stop } else { start }).cast(dt));
                }
                release(&[h]);
            }
        }
    }
    let mut h = 0;
    fails(sl_linspace(SL_I32, 0.0, 1.0, 4, 1, &mut h), SL_ERR_DTYPE_MISMATCH, "f32 or f64");
    fails(sl_linspace(SL_F32, 0.0, 1.0, -1, 1, &mut h), SL_ERR_INVALID_ARGUMENT, "n must be");
    fails(sl_linspace(SL_F32, 0.0, f64::NAN, 3, 1, &mut h), SL_ERR_INVALID_ARGUMENT, "finite");
    assert_eq!(h, 0);
}

#[test]
fn arange_matches_numpy_lengths() {
    let mut rng = rng("arange_matches_numpy_lengths");
    for _ in 0..40 {
        for dt in [SL_F32, SL_F64] {
            let start: f64 = rng.random_range(-50.0..50.0);
            let stop: f64 = rng.random_range(-50.0..50.0);
            let step: f64 = rng.random_range(0.05..3.0) * if rng.random_bool(0.5) { -1.0 } else { 1.0 };
            let mut h = 0;
            ok(sl_arange(dt, start, stop, step, &mut h));
            // numpy: ceil((stop - start) / step), clipped at 0.
            let n = ((stop - start) / step).ceil().max(0.0) as usize;
            let want = Arr::new(dt, &[n], (0..n).map(|i| V::F64(start + i as f64 * step).cast(dt)).collect());
            let eps = if dt == SL_F32 { f32::EPSILON as f64 } else { f64::EPSILON };
            let got = download(h);
            assert_near(&format!("arange {dt} {start} {stop} {step}"), &got, &want, 4.0 * eps * 200.0, 0.0);
            release(&[h]);
        }
        for dt in [SL_I32, SL_I64, SL_U8] {
            let (lo, hi) = if dt == SL_U8 { (0, 256) } else { (-1000, 1000) };
            let start = rng.random_range(lo..hi);
            let stop = rng.random_range(lo..=hi);
            let step = rng.random_range(1..9) * if rng.random_bool(0.5) { -1 } else { 1 };
            let mut h = 0;
            ok(sl_arange_i(dt, start, stop, step, &mut h));
            let mut want = Vec::new();
            let mut v = start;
            while (step > 0 && v < stop) || (step < 0 && v > stop) {
                want.push(V::I64(v).cast(dt));
                v += step;
            }
            let n = want.len();
            assert_close(&format!("arange_i {dt} {start} {stop} {step}"), &download(h), &Arr::new(dt, &[n], want), 0.0);
            release(&[h]);
            // The double form takes integral values for an integer type.
            ok(sl_arange(dt, start as f64, stop as f64, step as f64, &mut h));
            assert_eq!(shape_of(h), vec![n]);
            release(&[h]);
        }
    }
    // The extremes of i64 without overflow in the length.
    let mut h = 0;
    ok(sl_arange_i(SL_I64, i64::MAX - 3, i64::MAX, 1, &mut h));
    let want: Vec<V> = (0..3).map(|i| V::I64(i64::MAX - 3 + i)).collect();
    assert_close("arange_i at i64::MAX", &download(h), &Arr::new(SL_I64, &[3], want), 0.0);
    release(&[h]);
    fails(sl_arange(SL_F32, 0.0, 1.0, 0.0, &mut h), SL_ERR_INVALID_ARGUMENT, "step");
    fails(sl_arange_i(SL_I32, 0, 1, 0, &mut h), SL_ERR_INVALID_ARGUMENT, "step is 0");
    fails(sl_arange(SL_I32, 0.5, 3.0, 1.0, &mut h), SL_ERR_DTYPE_MISMATCH, "not an integer");
    fails(sl_arange_i(SL_U8, 0, 300, 1, &mut h), SL_ERR_DTYPE_MISMATCH, "last value 299");
    fails(sl_arange(SL_BOOL, 0.0, 3.0, 1.0, &mut h), SL_ERR_DTYPE_MISMATCH, "real numbers");
    assert_eq!(h, 0);
}

#[test]
fn diag_makes_and_extracts() {
    let mut rng = rng("diag_makes_and_extracts");
    for dt in ALL_DTYPES {
        // From a vector: the (n + |k|)-square matrix.
        for n in [0usize, 1, rng.random_range(2..9)] {
            let k = rng.random_range(-3i64..=3);
            let v = rand_arr(&mut rng, dt, &[n], -50.0, 50.0, true);
            let side = n + k.unsigned_abs() as usize;
            let want = (0..side * side)
                .map(|l| {
                    let (i, j) = (l % side, l / side);
                    if j as i64 - i as i64 == k { v.v[if k >= 0 { i } else { j }] } else { zero(dt) }
                })
                .collect();
            let want = Arr::new(dt, &[side, side], want);
            for h in inputs(&mut rng, &v) {
                let mut d = 0;
                ok(sl_diag_matrix(h, k, &mut d));
                assert_close(&format!("diag of a {dt} vector of {n}, k = {k}"), &download(d), &want, 0.0);
                release(&[h, d]);
            }
        }
        // From matrices batched over the dimensions after the first two.
        for rank in [2, 3, 4] {
            let shape = rand_shape(&mut rng, rank);
            let (m, n) = (shape[0] as i64, shape[1] as i64);
            let k = rng.random_range(-m..=n);
            let a = rand_arr(&mut rng, dt, &shape, -50.0, 50.0, true);
            let len = if k >= 0 { m.min(n - k) } else { (m + k).min(n) }.max(0) as usize;
            let mut out_shape = vec![len];
            out_shape.extend_from_slice(&shape[2..]);
            let want = r_remap(&a, &out_shape, |o| {
                let (i, j) = if k >= 0 { (o[0], o[0] + k as usize) } else { (o[0] + (-k) as usize, o[0]) };
                let mut src = vec![i, j];
                src.extend_from_slice(&o[1..]);
                src
            });
            for h in inputs(&mut rng, &a) {
                let mut d = 0;
                ok(sl_diagonal(h, k, &mut d));
                assert_close(&format!("diagonal {k} of {dt} {shape:?}"), &download(d), &want, 0.0);
                release(&[h, d]);
            }
        }
    }
    let a = rand_arr(&mut rng, SL_F32, &[3, 4], -1.0, 1.0, false).upload();
    let mut d = 0;
    fails(sl_diagonal(a, 5, &mut d), SL_ERR_INVALID_ARGUMENT, "k = 5");
    fails(sl_diagonal(a, -4, &mut d), SL_ERR_INVALID_ARGUMENT, "k = -4");
    fails(sl_diag_matrix(a, 0, &mut d), SL_ERR_INVALID_ARGUMENT, "give a vector");
    let s = rand_arr(&mut rng, SL_F32, &[], -1.0, 1.0, false).upload();
    fails(sl_diagonal(s, 0, &mut d), SL_ERR_INVALID_ARGUMENT, "rank 0");
    assert_eq!(d, 0);
    release(&[a, s]);
}

/// `a` read at `src(out index)` for every element of `out_shape`.
fn r_remap(a: &Arr, out_shape: &[usize], src: impl Fn(&[usize]) -> Vec<usize>) -> Arr {
    common::reference::remap(a, out_shape, |o| Some(src(o)), zero(a.dt))
}

#[test]
fn triangles_keep_their_side() {
    let mut rng = rng("triangles_keep_their_side");
    for dt in ALL_DTYPES {
        for rank in [2, 3] {
            let shape = rand_shape(&mut rng, rank);
            let k = rng.random_range(-(shape[0] as i64) - 1..=shape[1] as i64 + 1);
            let a = rand_arr(&mut rng, dt, &shape, -50.0, 50.0, true);
            for (upper, f) in [(true, sl_triu as extern "C" fn(_, _, _) -> _), (false, sl_tril)] {
                let want = Arr::new(
                    dt,
                    &shape,
                    (0..a.v.len())
                        .map(|l| {
                            let c = unravel(&shape, l);
                            let off = c[1] as i64 - c[0] as i64;
                            if (upper && off >= k) || (!upper && off <= k) { a.v[l] } else { zero(dt) }
                        })
                        .collect(),
                );
                for h in inputs(&mut rng, &a) {
                    let mut t = 0;
                    ok(f(h, k, &mut t));
                    assert_close(&format!("upper={upper} k={k} {dt} {shape:?}"), &download(t), &want, 0.0);
                    release(&[h, t]);
                }
            }
        }
    }
    let v = rand_arr(&mut rng, SL_F32, &[5], -1.0, 1.0, false).upload();
    let mut t = 0;
    fails(sl_triu(v, 0, &mut t), SL_ERR_INVALID_ARGUMENT, "two dimensions");
    release(&[v]);
}

#[test]
fn repeat_replicates() {
    let mut rng = rng("repeat_replicates");
    for dt in ALL_DTYPES {
        let rank = rng.random_range(1..4);
        let shape = rand_shape(&mut rng, rank);
        let dim = rng.random_range(0..shape.len());
        let a = rand_arr(&mut rng, dt, &shape, -50.0, 50.0, true);
        // One count for every element.
        let count = rng.random_range(0..4usize);
        let mut out_shape = shape.clone();
        out_shape[dim] *= count;
        let want = r_remap(&a, &out_shape, |o| {
            let mut s = o.to_vec();
            s[dim] /= count.max(1);
            s
        });
        // A count per element (zeros included).
        let counts: Vec<i64> = (0..shape[dim]).map(|_| rng.random_range(0..4)).collect();
        let owner: Vec<usize> =
            counts.iter().enumerate().flat_map(|(i, &c)| std::iter::repeat_n(i, c as usize)).collect();
        let mut each_shape = shape.clone();
        each_shape[dim] = owner.len();
        let want_each = r_remap(&a, &each_shape, |o| {
            let mut s = o.to_vec();
            s[dim] = owner[o[dim]];
            s
        });
        let counts_dt = [SL_I32, SL_I64, SL_U8][rng.random_range(0..3)];
        let hc =
            Arr::new(counts_dt, &[counts.len()], counts.iter().map(|&c| V::I64(c).cast(counts_dt)).collect()).upload();
        for h in inputs(&mut rng, &a) {
            let mut r = 0;
            ok(sl_repeat(h, count as i64, dim as i32, &mut r));
            assert_close(&format!("repeat {count} along {dim} of {dt} {shape:?}"), &download(r), &want, 0.0);
            ok(sl_repeat_counts(h, hc, dim as i32, &mut r));
            assert_close(&format!("repeat {counts:?} along {dim} of {dt}"), &download(r), &want_each, 0.0);
            release(&[h, r]);
        }
        release(&[hc]);
    }
    let a = rand_arr(&mut rng, SL_F64, &[3, 2], -1.0, 1.0, false).upload();
    let bad = Arr::new(SL_I32, &[3], vec![V::I32(1), V::I32(-2), V::I32(0)]).upload();
    let short = Arr::new(SL_I32, &[2], vec![V::I32(1), V::I32(2)]).upload();
    let float = Arr::new(SL_F32, &[3], vec![V::F32(1.0); 3]).upload();
    let mut r = 0;
    fails(sl_repeat(a, -1, 0, &mut r), SL_ERR_INVALID_ARGUMENT, "negative");
    fails(sl_repeat(a, 2, 2, &mut r), SL_ERR_INVALID_ARGUMENT, "dimension 2");
    fails(sl_repeat_counts(a, bad, 0, &mut r), SL_ERR_INVALID_ARGUMENT, "count 1 is negative");
    fails(sl_repeat_counts(a, short, 0, &mut r), SL_ERR_INVALID_ARGUMENT, "length 3");
    fails(sl_repeat_counts(a, float, 0, &mut r), SL_ERR_INVALID_ARGUMENT, "integer vector");
    assert_eq!(r, 0);
    release(&[a, bad, short, float]);
}

#[test]
fn meshgrid_both_indexings() {
    let mut rng = rng("meshgrid_both_indexings");
    for n in 1..=3usize {
        let vs: Vec<Arr> = (0..n)
            .map(|_| {
                let dt = ALL_DTYPES[rng.random_range(0..ALL_DTYPES.len())];
                let len = rng.random_range(0..5);
                rand_arr(&mut rng, dt, &[len], -9.0, 9.0, true)
            })
            .collect();
        let hs: Vec<sl_array> = vs.iter().map(|v| v.upload()).collect();
        for (indexing, swap) in [(SL_INDEXING_IJ, false), (SL_INDEXING_XY, true)] {
            let mut place: Vec<usize> = (0..n).collect();
            if swap && n > 1 {
                place.swap(0, 1);
            }
            let mut grid = vec![0; n];
            for k in 0..n {
                grid[place[k]] = vs[k].shape[0];
            }
            let mut outs = vec![0; n];
            ok(sl_meshgrid(hs.as_ptr(), n as i32, indexing, outs.as_mut_ptr()));
            for k in 0..n {
                let want = r_remap(&vs[k], &grid, |o| vec![o[place[k]]]);
                assert_close(&format!("meshgrid {indexing} output {k} of {grid:?}"), &download(outs[k]), &want, 0.0);
            }
            release(&outs);
        }
        release(&hs);
    }
    let m = rand_arr(&mut rng, SL_F32, &[2, 2], -1.0, 1.0, false).upload();
    let mut outs = [7, 7];
    fails(sl_meshgrid([m, m].as_ptr(), 2, SL_INDEXING_IJ, outs.as_mut_ptr()), SL_ERR_INVALID_ARGUMENT, "rank 2");
    assert_eq!(outs, [0, 0]);
    fails(sl_meshgrid([m, m].as_ptr(), 2, 5, outs.as_mut_ptr()), SL_ERR_INVALID_ARGUMENT, "sl_indexing");
    release(&[m]);
}

#[test]
fn flips_and_dimension_bookkeeping() {
    let mut rng = rng("flips_and_dimension_bookkeeping");
    for dt in ALL_DTYPES {
        let rank = rng.random_range(1..5);
        let shape = rand_shape(&mut rng, rank);
        let r = shape.len();
        let a = rand_arr(&mut rng, dt, &shape, -50.0, 50.0, true);
        let flipped: Vec<i32> = (0..r as i32).filter(|_| rng.random_bool(0.5)).collect();
        let want_flip = r_remap(&a, &shape, |o| {
            let mut s = o.to_vec();
            for &d in &flipped {
                s[d as usize] = shape[d as usize] - 1 - o[d as usize];
            }
            s
        });
        let at = rng.random_range(0..=r);
        let (from, to) = (rng.random_range(0..r), rng.random_range(0..r));
        let mut moved: Vec<usize> = (0..r).filter(|&d| d != from).collect();
        moved.insert(to, from);
        let moved_shape: Vec<usize> = moved.iter().map(|&d| shape[d]).collect();
        let want_moved = r_remap(&a, &moved_shape, |o| {
            let mut s = vec![0; r];
            for (p, &d) in moved.iter().enumerate() {
                s[d] = o[p];
            }
            s
        });
        for h in inputs(&mut rng, &a) {
            let mut out = 0;
            ok(sl_flip(h, flipped.as_ptr(), flipped.len() as i32, &mut out));
            assert_close(&format!("flip {flipped:?} of {dt} {shape:?}"), &download(out), &want_flip, 0.0);
            release(&[out]);
            ok(sl_expand_dims(h, at as i32, &mut out));
            let mut grown = shape.clone();
            grown.insert(at, 1);
            assert_eq!(shape_of(out), grown);
            assert_close("expand_dims values", &Arr { shape: shape.clone(), ..download(out) }, &a, 0.0);
            let mut back = 0;
            ok(sl_squeeze(out, at as i32, &mut back));
            assert_close("squeeze undoes expand_dims", &download(back), &a, 0.0);
            release(&[out, back]);
            ok(sl_squeeze(h, -1, &mut out));
            let kept: Vec<usize> = shape.iter().copied().filter(|&d| d != 1).collect();
            assert_eq!(shape_of(out), kept);
            assert_close("squeeze all", &Arr { shape: shape.clone(), ..download(out) }, &a, 0.0);
            release(&[out]);
            ok(sl_moveaxis(h, from as i32, to as i32, &mut out));
            assert_close(&format!("moveaxis {from} -> {to} of {shape:?}"), &download(out), &want_moved, 0.0);
            release(&[h, out]);
        }
    }
    let a = rand_arr(&mut rng, SL_F32, &[2, 3], -1.0, 1.0, false).upload();
    let mut out = 0;
    fails(sl_flip(a, [0, 0].as_ptr(), 2, &mut out), SL_ERR_INVALID_ARGUMENT, "listed twice");
    fails(sl_squeeze(a, 1, &mut out), SL_ERR_SHAPE_MISMATCH, "size 3");
    fails(sl_expand_dims(a, 3, &mut out), SL_ERR_INVALID_ARGUMENT, "position 3");
    fails(sl_moveaxis(a, 0, 2, &mut out), SL_ERR_INVALID_ARGUMENT, "dimension 2");
    assert_eq!(out, 0);
    release(&[a]);
}

/// The generators and views fuse: a whole chain from iotas to a reduction is one flush,
/// and under compare mode (`SLUICE_COMPARE`) checked like every op.
#[test]
fn generated_values_feed_fused_work() {
    let mut rng = rng("generated_values_feed_fused_work");
    let n = rng.random_range(2..50usize);
    let (mut x, mut m, mut u, mut d, mut s) = (0, 0, 0, 0, 0);
    ok(sl_linspace(SL_F64, 0.0, 1.0, n as i64, 1, &mut x));
    ok(sl_diag_matrix(x, 0, &mut m));
    ok(sl_triu(m, 0, &mut u));
    ok(sl_diagonal(u, 0, &mut d));
    ok(sl_sum(d, SL_ALL_DIMS, &mut s));
    let got = download(s).v[0].f();
    let want: f64 = (0..n).map(|i| i as f64 / (n - 1) as f64).sum();
    assert!((got - want).abs() <= 1e-12 * n as f64, "sum of the diagonal: {got} vs {want}");
    release(&[x, m, u, d, s]);
}
