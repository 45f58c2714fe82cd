//! Gathers against the plain reference, on the executor the environment selects, for
//! every dtype, on fresh random data with indices out of range (clamped).
//!
//! The cases are gathers of whole slices (`x[:, idx]` and its kin: the source's leading
//! dimensions taken whole by their own coordinates) and gathers that are not. On Vulkan
//! the test also checks which kernel ran: the copy of whole slices
//! (`kernels/gather.comp`) for the first kind when slices are long enough, the generated
//! gather otherwise, and never the copy with `SLUICE_VULKAN_NO_HANDWRITTEN=on`
//! (scripts/test.sh runs both). Everything runs in one test, so no other test's dispatches
//! reach the counter. The CPU executor copies the same slices with `memcpy` (slices of
//! `MIN_SLICE_LEN` = 2 elements or more there); only its results are checked.

mod common;

use common::reference::{bcast_at, broadcast_shape, map1};
use common::*;
use rand::rngs::StdRng;
use sluice::backend::vulkan::Handwritten;
use sluice::*;

/// How a gather reads one dimension of its source.
#[derive(Clone)]
enum Index {
    /// The coordinate along `dim` of an iota of this shape and type (pending, so the
    /// gather kernel computes it).
    Iota(Vec<usize>, sl_dtype, usize),
    /// Random indices of this shape and type, some out of range, stored.
    Random(Vec<usize>, sl_dtype),
    /// The same, plus one, pending (index arithmetic fused into the gather).
    RandomPlusOne(Vec<usize>, sl_dtype),
}

/// The index array (values on the host) and its handle.
fn make_index(rng: &mut StdRng, index: &Index, extent: usize) -> (Arr, sl_array) {
    match index {
        Index::Iota(shape, dt, dim) => {
            let v = (0..numel(shape)).map(|i| V::I64(unravel(shape, i)[*dim] as i64).cast(*dt)).collect();
            let dims: Vec<i64> = shape.iter().map(|&n| n as i64).collect();
            let mut h = 0;
            ok(sl_iota(*dt, dims.len() as i32, dims.as_ptr(), *dim as i32, &mut h));
            (Arr::new(*dt, shape, v), h)
        }
        Index::Random(shape, dt) | Index::RandomPlusOne(shape, dt) => {
            let hi = if *dt == SL_U8 { extent.min(250) as f64 + 3.0 } else { extent as f64 + 3.0 };
            let lo = if *dt == SL_U8 { 0.0 } else { -3.0 };
            let a = rand_arr(rng, *dt, shape, lo, hi, false);
            let h = a.upload();
            if !matches!(index, Index::RandomPlusOne(..)) {
                return (a, h);
            }
            let mut plus = 0;
            ok(same_kind_scalar(SL_ADD, h, 1.0, false, &mut plus));
            release(&[h]);
            let v = a.v.iter().map(|x| V::I64(x.cast(SL_I64).f() as i64 + 1).cast(*dt)).collect();
            (Arr::new(*dt, shape, v), plus)
        }
    }
}

/// `src` gathered at `indices` (each broadcast to the output's shape, clamped into range).
fn reference(src: &Arr, indices: &[Arr]) -> Arr {
    let rank = indices.iter().map(|i| i.shape.len()).max().unwrap();
    // Size-1 dimensions stretch (to 0 as well).
    let out: Vec<usize> =
        (0..rank).map(|d| indices.iter().map(|i| i.shape[d]).find(|&n| n != 1).unwrap_or(1)).collect();
    let v = (0..numel(&out))
        .map(|p| {
            let at = unravel(&out, p);
            let coords: Vec<usize> = indices
                .iter()
                .enumerate()
                .map(|(d, ix)| {
                    let own: Vec<usize> = ix.shape.iter().enumerate().map(|(e, &n)| at[e].min(n - 1)).collect();
                    (ix.at(&own).cast(SL_I64).f() as i64).clamp(0, src.shape[d] as i64 - 1) as usize
                })
                .collect();
            src.at(&coords)
        })
        .collect();
    Arr::new(src.dt, &out, v)
}

/// How the source is given to the gather.
#[derive(Copy, Clone, PartialEq)]
enum Source {
    /// Stored as it is.
    Stored,
    /// Every other column (a strided view along dimension 1).
    EveryOtherColumn,
    /// The transpose of a stored array (contiguous along dimension 1).
    Transposed,
}

struct Case {
    what: &'static str,
    shape: Vec<usize>,
    source: Source,
    indices: Vec<Index>,
    /// Indices held 1-based and made 0-based at each gather, as the Fortran layer does.
    one_based: bool,
    /// Whether the copy of whole slices takes it on Vulkan.
    slices: bool,
}

fn cases() -> Vec<Case> {
    use Index::*;
    let columns = |r: usize, c: usize, m: usize, slices: bool| Case {
        what: "columns x[:, idx]",
        shape: vec![r, c],
        source: Source::Stored,
        indices: vec![Iota(vec![r, 1], SL_I32, 0), Random(vec![1, m], SL_I32)],
        one_based: false,
        slices,
    };
    let mut c: Vec<Case> = [(32, 9, 5), (33, 40, 17), (1000, 7, 12), (1025, 3, 9), (2100, 5, 3), (4096, 2, 1)]
        .into_iter()
        .map(|(r, c, m)| columns(r, c, m, true))
        .collect();
    c.push(columns(16, 40, 30, true));
    c.push(columns(15, 40, 30, false));
    c.push(columns(5, 40, 30, false));
    c.push(columns(300, 6, 0, false));
    c.extend([
        Case {
            what: "rows x[idx, :]",
            shape: vec![60, 40],
            source: Source::Stored,
            indices: vec![Random(vec![25, 1], SL_I64), Iota(vec![1, 40], SL_I64, 1)],
            one_based: false,
            slices: false,
        },
        Case {
            what: "leading rows of columns x[:40, idx]",
            shape: vec![100, 6],
            source: Source::Stored,
            indices: vec![Iota(vec![40, 1], SL_I64, 0), Random(vec![1, 9], SL_I64)],
            one_based: false,
            slices: true,
        },
        Case {
            what: "planes x[:, :, idx]",
            shape: vec![40, 3, 11],
            source: Source::Stored,
            indices: vec![
                Iota(vec![40, 1, 1], SL_I32, 0),
                Iota(vec![1, 3, 1], SL_I32, 1),
                Random(vec![1, 1, 6], SL_I64),
            ],
            one_based: false,
            slices: true,
        },
        Case {
            what: "batched columns x[:, b, idx[b, :]]",
            shape: vec![50, 4, 13],
            source: Source::Stored,
            indices: vec![
                Iota(vec![50, 1, 1], SL_I64, 0),
                Iota(vec![1, 4, 1], SL_I64, 1),
                Random(vec![1, 4, 7], SL_I32),
            ],
            one_based: false,
            slices: true,
        },
        Case {
            what: "points of a rank-3 array, every index per element",
            shape: vec![9, 8, 7],
            source: Source::Stored,
            indices: vec![
                Random(vec![11, 1, 1], SL_I64),
                Random(vec![1, 10, 1], SL_I32),
                Random(vec![11, 10, 3], SL_I64),
            ],
            one_based: false,
            slices: false,
        },
        Case {
            what: "points of a rank-4 array, every index per element",
            shape: vec![5, 4, 3, 6],
            source: Source::Stored,
            indices: vec![
                Random(vec![7, 5, 1, 1], SL_I64),
                Random(vec![7, 1, 4, 1], SL_I32),
                Random(vec![1, 5, 4, 1], SL_I64),
                Random(vec![7, 5, 4, 2], SL_I64),
            ],
            one_based: false,
            slices: false,
        },
        Case {
            what: "columns at idx + 1",
            shape: vec![700, 12],
            source: Source::Stored,
            indices: vec![Iota(vec![700, 1], SL_I32, 0), RandomPlusOne(vec![1, 20], SL_I32)],
            one_based: false,
            slices: true,
        },
        Case {
            what: "columns through u8 indices",
            shape: vec![200, 30],
            source: Source::Stored,
            indices: vec![Iota(vec![200, 1], SL_U8, 0), Random(vec![1, 8], SL_U8)],
            one_based: false,
            slices: true,
        },
        Case {
            what: "columns of every other column",
            shape: vec![300, 20],
            source: Source::EveryOtherColumn,
            indices: vec![Iota(vec![300, 1], SL_I32, 0), Random(vec![1, 14], SL_I32)],
            one_based: false,
            slices: true,
        },
        Case {
            what: "columns, 1-based as in Fortran",
            shape: vec![300, 20],
            source: Source::Stored,
            indices: vec![Iota(vec![300, 1], SL_I32, 0), Random(vec![1, 14], SL_I32)],
            one_based: true,
            slices: true,
        },
        Case {
            what: "columns of a transpose",
            shape: vec![300, 20],
            source: Source::Transposed,
            indices: vec![Iota(vec![300, 1], SL_I32, 0), Random(vec![1, 14], SL_I32)],
            one_based: false,
            slices: false,
        },
    ]);
    c
}

/// The source as the gather sees it (`shape`), from random data in [lo, hi) (with NaNs, infinities and
/// signed zeros among it when `special`), on the host and as a handle (with the handles to
/// release).
fn make_source(
    rng: &mut StdRng,
    dt: sl_dtype,
    shape: &[usize],
    how: Source,
    (lo, hi): (f64, f64),
    special: bool,
) -> (Arr, sl_array, Vec<sl_array>) {
    match how {
        Source::Stored => {
            let a = rand_arr(rng, dt, shape, lo, hi, special);
            let h = a.upload();
            (a, h, vec![h])
        }
        Source::EveryOtherColumn => {
            let wide = [shape[0], 2 * shape[1]];
            let a = rand_arr(rng, dt, &wide, lo, hi, special);
            let h = a.upload();
            let (start, count, stride) = ([0i64, 0], [shape[0] as i64, shape[1] as i64], [1i64, 2]);
            let mut view = 0;
            ok(sl_section(h, start.as_ptr(), count.as_ptr(), stride.as_ptr(), &mut view));
            let v = (0..numel(shape)).map(|i| {
                let at = unravel(shape, i);
                a.at(&[at[0], 2 * at[1]])
            });
            (Arr::new(dt, shape, v.collect()), view, vec![h, view])
        }
        Source::Transposed => {
            let a = rand_arr(rng, dt, &[shape[1], shape[0]], lo, hi, special);
            let h = a.upload();
            let mut view = 0;
            ok(sl_permute(h, [1, 0].as_ptr(), 2, &mut view));
            let v = (0..numel(shape)).map(|i| {
                let at = unravel(shape, i);
                a.at(&[at[1], at[0]])
            });
            (Arr::new(dt, shape, v.collect()), view, vec![h, view])
        }
    }
}

/// `h + by`, releasing `h`.
fn offset(h: sl_array, by: f64) -> sl_array {
    let mut out = 0;
    ok(same_kind_scalar(SL_ADD, h, by, false, &mut out));
    release(&[h]);
    out
}

/// `x` gathered at `idx`, made 0-based first if they are 1-based.
fn gather(x: sl_array, idx: &[sl_array], one_based: bool) -> sl_array {
    let zero_based: Vec<sl_array> = idx
        .iter()
        .map(|&h| {
            let mut z = h;
            if one_based {
                ok(same_kind_scalar(SL_SUB, h, 1.0, false, &mut z));
            }
            z
        })
        .collect();
    let mut out = 0;
    ok(sl_gather(x, zero_based.as_ptr(), zero_based.len() as i32, &mut out));
    if one_based {
        release(&zero_based);
    }
    out
}

#[test]
fn gathers_match_reference() {
    let _serial = serial();
    let mut rng = rng("gathers_match_reference");
    // Result comparison in compute mode stores every value, iotas too, so no gather
    // index is a coordinate there.
    let stores_all = std::env::var("SLUICE_COMPARE").is_ok_and(|m| m.trim() == "compute");
    let copies = on_vulkan() && !switched_on("SLUICE_VULKAN_NO_HANDWRITTEN") && !stores_all;
    for case in cases() {
        for dt in ALL_DTYPES {
            let (src, x, mut handles) = make_source(&mut rng, dt, &case.shape, case.source, (-1000.0, 1000.0), true);
            let made: Vec<(Arr, sl_array)> =
                case.indices.iter().enumerate().map(|(d, ix)| make_index(&mut rng, ix, case.shape[d])).collect();
            let (host, mut idx): (Vec<Arr>, Vec<sl_array>) = made.into_iter().unzip();
            if case.one_based {
                idx = idx.iter().map(|&h| offset(h, 1.0)).collect();
            }
            let want = reference(&src, &host);
            // Twice: the second time the iotas have been computed before (and stay
            // coordinates, not stored arrays).
            for run in ["first", "again"] {
                let what = format!("{} of {dt} {:?} ({run})", case.what, case.shape);
                let (got, ran) = read_counting(Handwritten::Gather, || gather(x, &idx, case.one_based));
                assert_close(&what, &got, &want, 0.0);
                let expected = copies && case.slices;
                assert_eq!(ran, expected, "{what}: the copy of whole slices ran: {ran}, expected {expected}");
            }
            let what = format!("{} of {dt} {:?}", case.what, case.shape);
            // Fused with a consumer, the gather is the generated kernel's.
            let (got, ran) = read_counting(Handwritten::Gather, || {
                let g = gather(x, &idx, case.one_based);
                let n = negate(g);
                release(&[g]);
                n
            });
            assert_close(&format!("negated {what}"), &got, &negated(&want), 0.0);
            assert!(!ran, "{what}: a gather fused with its consumer took the copy of whole slices");
            handles.extend(idx);
            release(&handles);
        }
    }
    // Indices computed from the source itself (|x| of its first row, a view of a pending
    // value, so the kernel reads the source's own input): the pass computing the slices'
    // offsets reads the source too (an f64 source is then read as f64 there).
    for dt in [SL_F64, SL_F32, SL_I32, SL_U8] {
        let (rows, cols) = (40, 12);
        let a = rand_arr(&mut rng, dt, &[rows, cols], 0.0, cols as f64 + 2.0, false);
        let x = a.upload();
        let (start, count, stride) = ([0i64, 0], [1i64, cols as i64], [1i64, 1]);
        let (mut abs, mut first_row, mut picks, mut iota) = (0, 0, 0, 0);
        ok(sl_abs(x, &mut abs));
        ok(sl_section(abs, start.as_ptr(), count.as_ptr(), stride.as_ptr(), &mut first_row));
        ok(sl_cast(first_row, SL_I32, &mut picks));
        ok(sl_iota(SL_I32, 2, [rows as i64, 1].as_ptr(), 0, &mut iota));
        let host_picks: Vec<V> = (0..cols).map(|j| a.at(&[0, j]).cast(SL_I32)).collect();
        let want = reference(
            &a,
            &[
                Arr::new(SL_I32, &[rows, 1], (0..rows).map(|i| V::I32(i as i32)).collect()),
                Arr::new(SL_I32, &[1, cols], host_picks),
            ],
        );
        let what = format!("columns of {dt} at indices from its first row");
        let (got, ran) = read_counting(Handwritten::Gather, || gather(x, &[iota, picks], false));
        assert_close(&what, &got, &want, 0.0);
        let f64_on_device = dt != SL_F64 || !switched_on("SLUICE_VULKAN_NO_F64");
        assert_eq!(ran, copies && f64_on_device, "{what}: the copy of whole slices ran: {ran}");
        release(&[x, abs, first_row, picks, iota]);
    }
}

/// Tests that count dispatches (above) and the others here run one at a time, so no
/// other gather's dispatches reach the counter.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

const POLICIES: [(sl_index_policy, &str); 4] =
    [(SL_INDEX_CLAMP, "clamp"), (SL_INDEX_WRAP, "wrap"), (SL_INDEX_FILL, "fill"), (SL_INDEX_ERROR, "error")];

/// Where index `x` reads in a dimension of `n` elements under `policy` (floored, NaN out
/// of range on both sides), or `None` for the fill value (or an error).
fn resolve(x: V, n: usize, policy: sl_index_policy) -> Option<usize> {
    let n = n as i64;
    let f = x.f().floor();
    let inside = f >= 0.0 && f < n as f64;
    match policy {
        SL_INDEX_CLAMP if f.is_nan() => Some(0),
        SL_INDEX_CLAMP => Some(f.clamp(0.0, (n - 1) as f64) as usize),
        SL_INDEX_WRAP if f.is_nan() => Some(0),
        SL_INDEX_WRAP => Some((f as i64).rem_euclid(n) as usize),
        _ => inside.then_some(f as usize),
    }
}

/// Random indices (or positions) of `dt` and `shape` for a dimension of `n`: out of
/// range on both sides, fractional for floats, with NaNs among them when `nan`.
fn random_indices(rng: &mut StdRng, dt: sl_dtype, shape: &[usize], n: usize, nan: bool) -> Arr {
    use rand::Rng;
    let (lo, hi) = (-(2.0 * n as f64) - 2.0, 2.0 * n as f64 + 2.0);
    let v = (0..numel(shape))
        .map(|_| {
            let x: f64 = rng.random_range(lo..hi);
            match dt {
                SL_F32 | SL_F64 if nan && rng.random_range(0..12) == 0 => V::F64(f64::NAN).cast(dt),
                // Some exact integers, the edges among them.
                SL_F32 | SL_F64 if rng.random_range(0..4) == 0 => V::F64(x.round()).cast(dt),
                SL_F32 | SL_F64 => V::F64(x).cast(dt),
                _ => V::I64(x.floor() as i64).cast(dt),
            }
        })
        .collect();
    Arr::new(dt, shape, v)
}

/// Indices like `random_indices` but all in range (for the error policy): below `n` for
/// a gather, at most `n` - 1 for an interpolation.
fn in_range(a: &Arr, n: usize, interpolating: bool) -> Arr {
    let span = if interpolating { (n - 1) as f64 } else { n as f64 };
    let v = a.v.iter().map(|x| {
        let x = x.f();
        let inside = if x.is_nan() || span == 0.0 { 0.0 } else { x.rem_euclid(span) };
        V::F64(inside).cast(a.dt)
    });
    Arr::new(a.dt, &a.shape, v.collect())
}

/// The fill value the tests use for `dt` (one every type holds).
fn fill_for(dt: sl_dtype) -> f64 {
    if dt == SL_BOOL { 1.0 } else { 7.0 }
}

/// `a` created from row-major data (the other layout).
fn upload_row_major(a: &Arr) -> sl_array {
    let dims: Vec<i64> = a.shape.iter().map(|&d| d as i64).collect();
    let rev: Vec<usize> = a.shape.iter().rev().copied().collect();
    let row_major: Vec<V> = (0..numel(&rev))
        .map(|i| {
            let mut at = unravel(&rev, i);
            at.reverse();
            a.at(&at)
        })
        .collect();
    let b = Arr::new(a.dt, &rev, row_major).bytes();
    let mut h = 0;
    ok(sl_create(a.dt, dims.len() as i32, dims.as_ptr(), SL_ROW_MAJOR, b.as_ptr() as *const _, b.len(), &mut h));
    h
}

/// `reference` under `policy`: indices broadcast together, each resolved.
fn policy_reference(src: &Arr, indices: &[Arr], policy: sl_index_policy, fill: f64) -> Arr {
    let out = indices.iter().fold(vec![], |s, i| broadcast_shape(&s, &i.shape));
    let v = (0..numel(&out))
        .map(|p| {
            let at = unravel(&out, p);
            let coords: Option<Vec<usize>> =
                indices.iter().enumerate().map(|(d, ix)| resolve(bcast_at(ix, &at), src.shape[d], policy)).collect();
            coords.map_or(V::F64(fill).cast(src.dt), |c| src.at(&c))
        })
        .collect();
    Arr::new(src.dt, &out, v)
}

/// Every policy against the reference for every data type, integer and floating-point
/// (floored, NaN) indices broadcast together, out of range on both sides, sources stored,
/// viewed, transposed and created row-major, and size-1 and empty dimensions.
#[test]
fn policies_match_reference() {
    let _serial = serial();
    let mut rng = rng("policies_match_reference");
    // (source shape, index shapes)
    let shapes: [(&[usize], [&[usize]; 2]); 4] = [
        (&[9, 7], [&[6, 1], &[1, 5]]),
        (&[9, 7], [&[4, 3], &[4, 3]]),
        (&[1, 6], [&[5, 4], &[1, 4]]),
        (&[4, 5], [&[0, 3], &[1, 3]]),
    ];
    for (policy, pname) in POLICIES {
        // Every data type at i32 and f32 indices; the other index types with f32 data.
        let combos = ALL_DTYPES.iter().flat_map(|&dt| [(SL_I32, dt), (SL_F32, dt)]);
        let combos = combos.chain([SL_I64, SL_U8, SL_F64].map(|idt| (idt, SL_F32)));
        for (idt, dt) in combos {
            for (s, (shape, ishapes)) in shapes.iter().enumerate() {
                let how = [Source::Stored, Source::EveryOtherColumn, Source::Transposed][s % 3];
                let (src, x, mut handles) = make_source(&mut rng, dt, shape, how, (-1000.0, 1000.0), true);
                // The same source created row-major, for the first shape.
                let row_major = (s == 0).then(|| upload_row_major(&src));
                let host: Vec<Arr> = (0..2)
                    .map(|d| {
                        let a = random_indices(&mut rng, idt, ishapes[d], shape[d], true);
                        let a = if idt == SL_U8 {
                            Arr::new(idt, &a.shape, a.v.iter().map(|v| V::U8((v.f().abs() as u8) % 40)).collect())
                        } else {
                            a
                        };
                        if policy == SL_INDEX_ERROR { in_range(&a, shape[d], false) } else { a }
                    })
                    .collect();
                let idx: Vec<sl_array> = host.iter().map(Arr::upload).collect();
                let fill = fill_for(dt);
                let want = policy_reference(&src, &host, policy, fill);
                for (form, source) in [("", Some(x)), (" (row-major source)", row_major)] {
                    let Some(source) = source else { continue };
                    let what = format!("{pname} gather of {dt} {shape:?} at {idt} indices {ishapes:?}{form}");
                    let mut g = 0;
                    ok(sl_gather_with(source, idx.as_ptr(), 2, policy, fill, &mut g));
                    assert_close(&what, &download(g), &want, 0.0);
                    // Fused with a consumer.
                    let n = negate(g);
                    assert_close(&format!("negated {what}"), &download(n), &negated(&want), 0.0);
                    release(&[g, n]);
                }
                handles.extend(idx);
                handles.extend(row_major);
                release(&handles);
            }
        }
    }
}

/// `sl_gather` is the clamp policy, floating-point indices floored.
#[test]
fn plain_gather_floors_and_clamps() {
    let _serial = serial();
    let mut rng = rng("plain_gather_floors_and_clamps");
    for idt in [SL_F32, SL_F64, SL_I32] {
        let src = rand_arr(&mut rng, SL_F32, &[11], -100.0, 100.0, false);
        let ix = random_indices(&mut rng, idt, &[30], 11, true);
        let (x, i) = (src.upload(), ix.upload());
        let mut g = 0;
        ok(sl_gather(x, &i, 1, &mut g));
        assert_close(
            &format!("gather at {idt}"),
            &download(g),
            &policy_reference(&src, &[ix], SL_INDEX_CLAMP, 0.0),
            0.0,
        );
        release(&[x, i, g]);
    }
}

/// `take_along` against the reference along each dimension, indices broadcasting.
#[test]
fn take_along_matches_reference() {
    let _serial = serial();
    let mut rng = rng("take_along_matches_reference");
    let shape = [6usize, 5, 3];
    for (policy, pname) in POLICIES {
        for dim in 0..3 {
            for idt in [SL_I32, SL_F64] {
                let src = rand_arr(&mut rng, SL_F64, &shape, -10.0, 10.0, true);
                let mut ishape = shape.to_vec();
                ishape[dim] = 8;
                ishape[(dim + 1) % 3] = 1; // broadcast along the next dimension
                let ix = random_indices(&mut rng, idt, &ishape, shape[dim], true);
                let ix = if policy == SL_INDEX_ERROR { in_range(&ix, shape[dim], false) } else { ix };
                let mut out = shape.to_vec();
                out[dim] = 8;
                let v = (0..numel(&out)).map(|p| {
                    let at = unravel(&out, p);
                    match resolve(bcast_at(&ix, &at), shape[dim], policy) {
                        Some(k) => {
                            let mut s = at.clone();
                            s[dim] = k;
                            src.at(&s)
                        }
                        None => V::F64(-2.5),
                    }
                });
                let want = Arr::new(SL_F64, &out, v.collect());
                let (x, i) = (src.upload(), ix.upload());
                let mut t = 0;
                ok(sl_take_along(x, i, dim as i32, policy, -2.5, &mut t));
                assert_close(&format!("{pname} take_along dim {dim} at {idt}"), &download(t), &want, 0.0);
                release(&[x, i, t]);
            }
        }
    }
}

/// Linear interpolation along the dimensions `dims` of `src` at `pos` (already
/// broadcast to the result's shape `out`), in f64 from the data's values.
fn interp_reference(src: &Arr, pos: &[&Arr], dims: &[usize], out: &[usize], policy: sl_index_policy, fill: f64) -> Arr {
    let v = (0..numel(out)).map(|p| {
        let at = unravel(out, p);
        let mut corners = vec![(
            at.iter().enumerate().map(|(d, &c)| c.min(src.shape.get(d).copied().unwrap_or(1) - 1)).collect::<Vec<_>>(),
            1.0f64,
        )];
        let mut outside = false;
        for (j, &dim) in dims.iter().enumerate() {
            let n = src.shape[dim];
            let x = bcast_at(pos[j], &at).f();
            outside |= !(x >= 0.0 && x <= (n - 1) as f64);
            let f = x.floor();
            let w = x - f;
            let (lo, hi) = match policy {
                SL_INDEX_WRAP => (resolve(V::F64(f), n, policy).unwrap(), resolve(V::F64(f + 1.0), n, policy).unwrap()),
                _ => (
                    resolve(V::F64(f), n, SL_INDEX_CLAMP).unwrap(),
                    resolve(V::F64(f + 1.0), n, SL_INDEX_CLAMP).unwrap(),
                ),
            };
            corners = corners
                .into_iter()
                .flat_map(|(c, cw)| {
                    let (mut a, mut b) = (c.clone(), c);
                    a[dim] = lo;
                    b[dim] = hi;
                    [(a, cw * (1.0 - w)), (b, cw * w)]
                })
                .collect();
        }
        if outside && policy == SL_INDEX_FILL {
            return V::F64(fill).cast(src.dt);
        }
        let r: f64 =
            corners.iter().map(|(c, w)| if *w == 0.0 { 0.0 } else { w * src.at(&c[..src.shape.len()]).f() }).sum();
        let nan = dims.iter().enumerate().any(|(j, _)| bcast_at(pos[j], &at).f().is_nan());
        V::F64(if nan { f64::NAN } else { r }).cast(src.dt)
    });
    Arr::new(src.dt, out, v.collect())
}

/// The range of interpolated data: positive, so no blend cancels. An f32 blend is accurate
/// relative to its neighbours, and result comparison holds each element to its own size.
const INTERPOLATED: (f64, f64) = (1.0, 2.0);

/// Tolerance of an interpolated value of `dt` (relative to the data's magnitude): the
/// blend rounds a few times in the data's type.
fn interp_tol(dt: sl_dtype) -> f64 {
    if dt == SL_F32 { 4e-6 } else { 1e-14 }
}

/// `interp1` and `interp2` against the reference for f32 and f64 data under clamp, wrap
/// and fill (and error with positions in range): tables read at positions of any shape,
/// traces along either dimension, a batch dimension broadcast, size-1 dimensions, an
/// empty result, views as sources.
#[test]
fn interpolation_matches_reference() {
    let _serial = serial();
    let mut rng = rng("interpolation_matches_reference");
    for (policy, pname) in POLICIES {
        for dt in [SL_F32, SL_F64] {
            for pdt in [SL_F32, SL_F64, SL_I32] {
                let fill = -3.25;
                // interp1: (source, positions, dim)
                let cases1: [(&[usize], &[usize], usize); 5] = [
                    (&[13], &[7, 4], 0),
                    (&[10, 6], &[25, 6], 0),
                    (&[10, 6], &[10, 9], 1),
                    (&[1, 3], &[5, 1], 0),
                    (&[8, 3], &[0, 3], 0),
                ];
                for (k, (shape, pshape, dim)) in cases1.iter().enumerate() {
                    let how = if shape.len() == 2 && k % 2 == 0 { Source::EveryOtherColumn } else { Source::Stored };
                    let (src, x, handles) = make_source(&mut rng, dt, shape, how, INTERPOLATED, false);
                    let p = random_indices(&mut rng, pdt, pshape, shape[*dim], true);
                    let p = if policy == SL_INDEX_ERROR { in_range(&p, shape[*dim], true) } else { p };
                    let out: Vec<usize> = (0..shape.len().max(pshape.len()))
                        .map(|d| {
                            if d == *dim {
                                pshape[d]
                            } else {
                                shape.get(d).copied().unwrap_or(1).max(pshape.get(d).copied().unwrap_or(1))
                            }
                        })
                        .collect();
                    let want = interp_reference(&src, &[&p], &[*dim], &out, policy, fill);
                    let ph = p.upload();
                    let mut r = 0;
                    ok(sl_interp1(x, ph, *dim as i32, policy, fill, &mut r));
                    let what = format!("{pname} interp1 of {dt} {shape:?} along {dim} at {pdt} {pshape:?}");
                    assert_near(&what, &download(r), &want, interp_tol(dt) * magnitude_max(&src), 0.0);
                    release(&[r, ph]);
                    release(&handles);
                }
                // interp2: (source, positions 0, positions 1, dims)
                let cases2: [Interp2Case; 4] = [
                    (&[9, 7], &[6, 5], &[6, 5], [0, 1]),
                    (&[9, 7], &[1, 5], &[6, 1], [1, 0]),
                    (&[6, 5, 3], &[4, 4, 1], &[4, 4, 1], [0, 1]),
                    (&[1, 4], &[3, 3], &[3, 3], [0, 1]),
                ];
                for (shape, p0s, p1s, dims) in cases2 {
                    let src = rand_arr(&mut rng, dt, shape, INTERPOLATED.0, INTERPOLATED.1, false);
                    let mk = |rng: &mut StdRng, s: &[usize], n: usize| {
                        let p = random_indices(rng, pdt, s, n, true);
                        if policy == SL_INDEX_ERROR { in_range(&p, n, true) } else { p }
                    };
                    let p0 = mk(&mut rng, p0s, shape[dims[0]]);
                    let p1 = mk(&mut rng, p1s, shape[dims[1]]);
                    let pb = broadcast_shape(p0s, p1s);
                    let out: Vec<usize> = (0..shape.len().max(pb.len()))
                        .map(|d| if dims.contains(&d) { pb[d] } else { shape[d].max(pb.get(d).copied().unwrap_or(1)) })
                        .collect();
                    let want = interp_reference(&src, &[&p0, &p1], &dims, &out, policy, fill);
                    let (x, h0, h1) = (upload_row_major(&src), p0.upload(), p1.upload());
                    let mut r = 0;
                    ok(sl_interp2(x, h0, h1, dims[0] as i32, dims[1] as i32, policy, fill, &mut r));
                    let what = format!("{pname} interp2 of {dt} {shape:?} along {dims:?} at {pdt} {p0s:?} {p1s:?}");
                    assert_near(&what, &download(r), &want, 2.0 * interp_tol(dt) * magnitude_max(&src), 0.0);
                    release(&[x, h0, h1, r]);
                }
            }
        }
    }
}

/// interp2's source shape, the shapes of its two position arrays, and its dimensions.
type Interp2Case = (&'static [usize], &'static [usize], &'static [usize], [usize; 2]);

/// The largest magnitude in `a` (the scale of an interpolation's rounding).
fn magnitude_max(a: &Arr) -> f64 {
    a.v.iter().map(|v| v.f().abs()).fold(1e-300, f64::max)
}

/// Under the error policy an index out of range poisons the result with a message naming
/// the first one (column-major) and its position; work queued before and after, and
/// other arrays read by the same kernel, are not lost; the runtime stays usable.
#[test]
fn error_policy_names_first_bad_index() {
    let _serial = serial();
    let mut rng = rng("error_policy_names_first_bad_index");
    let src = rand_arr(&mut rng, SL_F32, &[5, 4], -10.0, 10.0, false);
    let x = src.upload();
    // Indices in range but for (2, 1) and (3, 2) of the 4x3 result: (2, 1) comes first.
    let mut i0: Vec<V> = (0..12).map(|k| V::I32(k % 5)).collect();
    let i1: Vec<V> = (0..12).map(|k| V::F64((k / 4) as f64 + 0.5)).collect();
    i0[2 + 4] = V::I32(-7);
    i0[3 + 8] = V::I32(9);
    let (h0, h1) = (Arr::new(SL_I32, &[4, 3], i0).upload(), Arr::new(SL_F64, &[4, 3], i1).upload());
    // Queued before: a pending sum of the source.
    let mut before = 0;
    ok(sl_sum(x, SL_ALL_DIMS, &mut before));
    let mut g = 0;
    ok(sl_gather_with(x, [h0, h1].as_ptr(), 2, SL_INDEX_ERROR, 0.0, &mut g));
    let (mut neg, mut other) = (0, 0);
    ok(sl_neg(g, &mut neg));
    ok(same_kind_scalar(SL_MUL, x, 2.0, false, &mut other));
    let mut b = vec![0u8; 12 * 4];
    let st = sl_read(neg, SL_COL_MAJOR, b.as_mut_ptr() as *mut _, b.len());
    let (code, msg) = last_error();
    assert_eq!(st, SL_ERR_POISONED, "{msg}");
    assert_eq!(code, SL_ERR_POISONED);
    assert!(
        msg.contains("gather: the index (-7, 1.5) of result element (2, 1) is out of range for the source [5, 4]"),
        "{msg}"
    );
    assert!(!msg.contains("(9,"), "only the first bad index is named: {msg}");
    fails(sl_read(g, SL_COL_MAJOR, b.as_mut_ptr() as *mut _, b.len()), SL_ERR_POISONED, "(-7, 1.5)");
    // Nothing else is lost.
    let want_sum: f64 = src.v.iter().map(|v| v.f()).sum();
    let s = download(before);
    assert!((s.v[0].f() - want_sum).abs() <= 1e-4 * magnitude(&src), "sum {:?} vs {want_sum}", s.v[0]);
    assert_close("2x", &download(other), &map1(&src, |v| V::F32(2.0 * v.f() as f32)), 0.0);
    // interp1 names the position.
    let pos = Arr::new(SL_F32, &[3], vec![V::F32(1.5), V::F32(4.25), V::F32(-0.5)]).upload();
    let mut r = 0;
    ok(sl_interp1(x, pos, 0, SL_INDEX_ERROR, 0.0, &mut r));
    let st = sl_read(r, SL_COL_MAJOR, b.as_mut_ptr() as *mut _, b.len());
    assert_eq!(st, SL_ERR_POISONED);
    assert!(last_error().1.contains("interp1: the index (4.25) of result element (1, 0)"), "{}", last_error().1);
    // Still usable: the same gather with good indices.
    let mut fixed = 0;
    ok(sl_gather_with(x, [h1, h1].as_ptr(), 2, SL_INDEX_ERROR, 0.0, &mut fixed));
    download(fixed);
    release(&[x, h0, h1, before, g, neg, other, pos, r, fixed]);
}

/// Bad arguments are refused at the call, naming what is wrong, and nothing queued is lost.
#[test]
fn bad_arguments_are_refused() {
    let _serial = serial();
    let mut rng = rng("bad_arguments_are_refused");
    let src = rand_arr(&mut rng, SL_I32, &[6, 3], -10.0, 10.0, false);
    let x = src.upload();
    let mut pending = 0;
    ok(same_kind_scalar(SL_ADD, x, 1.0, false, &mut pending));
    let i = random_indices(&mut rng, SL_I32, &[4, 3], 6, false).upload();
    let f = random_indices(&mut rng, SL_F64, &[4, 3], 6, false).upload();
    let mut bools = 0;
    ok(sl_isnan(f, &mut bools));
    let mut out = 0;
    fails(sl_gather_with(x, [i, i].as_ptr(), 2, 9, 0.0, &mut out), SL_ERR_INVALID_ARGUMENT, "sl_index_policy");
    fails(sl_gather_with(x, [i, i].as_ptr(), 2, SL_INDEX_FILL, 1.5, &mut out), SL_ERR_DTYPE_MISMATCH, "fill value");
    fails(
        sl_gather_with(x, [i, bools].as_ptr(), 2, SL_INDEX_CLAMP, 0.0, &mut out),
        SL_ERR_DTYPE_MISMATCH,
        "index arrays",
    );
    fails(sl_gather_with(x, [i].as_ptr(), 1, SL_INDEX_CLAMP, 0.0, &mut out), SL_ERR_INVALID_ARGUMENT, "2 index arrays");
    fails(sl_take_along(x, i, 2, SL_INDEX_CLAMP, 0.0, &mut out), SL_ERR_INVALID_ARGUMENT, "dimension 2");
    fails(sl_interp1(x, f, 0, SL_INDEX_CLAMP, 0.0, &mut out), SL_ERR_DTYPE_MISMATCH, "f32 or f64");
    let y = rand_arr(&mut rng, SL_F64, &[6, 3], -10.0, 10.0, false).upload();
    fails(sl_interp1(y, bools, 0, SL_INDEX_CLAMP, 0.0, &mut out), SL_ERR_DTYPE_MISMATCH, "real numbers");
    fails(sl_interp2(y, f, f, 1, 1, SL_INDEX_CLAMP, 0.0, &mut out), SL_ERR_INVALID_ARGUMENT, "must differ");
    let long = random_indices(&mut rng, SL_F64, &[4, 5], 6, false).upload();
    fails(sl_interp1(y, long, 0, SL_INDEX_CLAMP, 0.0, &mut out), SL_ERR_SHAPE_MISMATCH, "do not fit the source");
    assert_close("pending x + 1", &download(pending), &map1(&src, |v| V::I32(v.f() as i32 + 1)), 0.0);
    release(&[x, pending, i, f, bools, y, long]);
}

/// A loop of interpolations repeats its flushes: after the first, each finds its plan in
/// the trace cache, and gives the right values for new positions.
#[test]
fn interpolation_loop_hits_trace_cache() {
    let _serial = serial();
    let mut rng = rng("interpolation_loop_hits_trace_cache");
    let src = rand_arr(&mut rng, SL_F32, &[40, 8], INTERPOLATED.0, INTERPOLATED.1, false);
    let x = src.upload();
    let mut hits = Vec::new();
    for step in 0..6 {
        let p = random_indices(&mut rng, SL_F32, &[30, 8], 40, false);
        let ph = p.upload();
        let (mut r, mut s) = (0, 0);
        ok(sl_interp1(x, ph, 0, SL_INDEX_FILL, 0.0, &mut r));
        ok(same_kind_scalar(SL_MUL, r, 3.0, false, &mut s));
        let want = interp_reference(&src, &[&p], &[0], &[30, 8], SL_INDEX_FILL, 0.0);
        let want = map1(&want, |v| V::F32(3.0 * v.f() as f32));
        assert_near(&format!("step {step}"), &download(s), &want, 3.0 * interp_tol(SL_F32), 0.0);
        hits.push(cache_hits());
        release(&[ph, r, s]);
    }
    // Result comparison in compute mode plans every flush afresh.
    let planned_afresh = std::env::var("SLUICE_COMPARE").is_ok_and(|m| m.trim() == "compute");
    assert!(planned_afresh || hits[5] >= hits[1] + 4, "no trace cache hits in a repeating loop: {hits:?}");
    release(&[x]);
}

fn cache_hits() -> u64 {
    let mut c: sl_cache_stats = unsafe { std::mem::zeroed() };
    ok(sl_get_cache_stats(SL_CACHE_TRACE, &mut c));
    c.hits
}
