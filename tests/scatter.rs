//! Scatter on the executor the environment selects (scripts/test.sh runs it on the CPU
//! executor and on Vulkan): every dtype and mode against a plain sequential reference, on
//! fresh random data of awkward sizes with many colliding writes, out-of-range indices,
//! a strided (transposed) destination and broadcast values.

mod common;

use common::scatter::{MODES, check, reference};
use common::*;
use rand::Rng;
use rand::rngs::StdRng;
use sluice::*;

/// Index arrays for `m` sources into `shape`, about 1 in 10 out of range.
fn indices(rng: &mut StdRng, shape: &[usize], m: usize) -> Vec<Vec<i64>> {
    shape
        .iter()
        .map(|&n| {
            (0..m)
                .map(|_| if rng.random_bool(0.1) { rng.random_range(-3..0) } else { rng.random_range(0..n as i64 + 1) })
                .collect()
        })
        .collect()
}

fn upload_indices(idx: &[Vec<i64>]) -> Vec<sl_array> {
    idx.iter().map(|ix| Arr::new(SL_I64, &[ix.len()], ix.iter().map(|&c| V::I64(c)).collect()).upload()).collect()
}

fn value_range(dt: sl_dtype) -> (f64, f64) {
    match dt {
        SL_U8 => (0.0, 255.0),
        SL_I32 | SL_I64 => (-1e9, 1e9),
        _ => (-100.0, 100.0),
    }
}

#[test]
fn every_dtype_and_mode() {
    let mut rng = rng("every_dtype_and_mode");
    for dt in ALL_DTYPES {
        let big = if matches!(dt, SL_F32 | SL_I64) { (1 << 20) + 3 } else { 3000 };
        for (shape, m) in [(vec![1], 1), (vec![31], 1000), (vec![7, 5], 31), (vec![1000], big)] {
            let (lo, hi) = value_range(dt);
            let dst = rand_arr(&mut rng, dt, &shape, lo, hi, true);
            let vals = rand_arr(&mut rng, dt, &[m], lo, hi, true);
            let idx = indices(&mut rng, &shape, m);
            let (hd, hv, hi) = (dst.upload(), vals.upload(), upload_indices(&idx));
            for mode in MODES.into_iter().filter(|&mode| !(dt == SL_BOOL && mode == SL_SCATTER_ADD)) {
                let mut out = 0;
                ok(sl_scatter(hd, hi.as_ptr(), hi.len() as i32, hv, mode, &mut out));
                let (want, mags, counts) = reference(mode, &dst, &idx, &vals.v);
                check(&format!("{dt} {shape:?} <- {m}, mode {mode}"), mode, &download(out), &want, &mags, &counts);
                release(&[out]);
            }
            release(&[hd, hv]);
            release(&hi);
        }
    }
}

#[test]
fn strided_destination_and_broadcast_values() {
    let mut rng = rng("strided_destination_and_broadcast_values");
    for dt in [SL_F32, SL_I32, SL_U8, SL_F64] {
        let (lo, hi) = value_range(dt);
        let (n0, n1, m) = (rng.random_range(1..20), rng.random_range(1..20), rng.random_range(1..500));
        // The destination is the transpose of a stored array: a strided view.
        let stored = rand_arr(&mut rng, dt, &[n1, n0], lo, hi, false);
        let dst = Arr::new(dt, &[n0, n1], (0..n0 * n1).map(|l| stored.at(&[l / n0, l % n0])).collect());
        let value = rand_val(&mut rng, dt, lo, hi, false);
        let idx = indices(&mut rng, &[n0, n1], m);
        let (hs, hv, hi) = (stored.upload(), Arr::new(dt, &[], vec![value]).upload(), upload_indices(&idx));
        let mut ht = 0;
        ok(sl_transpose(hs, &mut ht));
        for mode in MODES {
            let mut out = 0;
            ok(sl_scatter(ht, hi.as_ptr(), 2, hv, mode, &mut out));
            let (want, mags, counts) = reference(mode, &dst, &idx, &vec![value; m]);
            check(&format!("{dt} transposed, scalar value, mode {mode}"), mode, &download(out), &want, &mags, &counts);
            release(&[out]);
        }
        release(&[hs, hv, ht]);
        release(&hi);
    }
}
