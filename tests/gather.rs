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

/// The source as the gather sees it (`shape`), from random data, on the host and as a
/// handle (with the handles to release).
fn make_source(rng: &mut StdRng, dt: sl_dtype, shape: &[usize], how: Source) -> (Arr, sl_array, Vec<sl_array>) {
    match how {
        Source::Stored => {
            let a = rand_arr(rng, dt, shape, -1000.0, 1000.0, true);
            let h = a.upload();
            (a, h, vec![h])
        }
        Source::EveryOtherColumn => {
            let wide = [shape[0], 2 * shape[1]];
            let a = rand_arr(rng, dt, &wide, -1000.0, 1000.0, true);
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
            let a = rand_arr(rng, dt, &[shape[1], shape[0]], -1000.0, 1000.0, true);
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
    let mut rng = rng("gathers_match_reference");
    // Result comparison in compute mode stores every value, iotas too, so no gather
    // index is a coordinate there.
    let stores_all = std::env::var("SLUICE_COMPARE").is_ok_and(|m| m.trim() == "compute");
    let copies = on_vulkan() && !switched_on("SLUICE_VULKAN_NO_HANDWRITTEN") && !stores_all;
    for case in cases() {
        for dt in ALL_DTYPES {
            let (src, x, mut handles) = make_source(&mut rng, dt, &case.shape, case.source);
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
