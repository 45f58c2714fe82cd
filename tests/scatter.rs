//! Scatter on the executor the environment selects (scripts/test.sh runs it on the CPU
//! executor and on Vulkan): every dtype and mode against a plain sequential reference, on
//! fresh random data of awkward sizes with many colliding writes, out-of-range indices,
//! a strided (transposed) destination and broadcast values.

mod common;

use common::reference as r;
use common::*;
use rand::Rng;
use rand::rngs::StdRng;
use sluice::*;

const MODES: [sl_scatter_mode; 4] = [SL_SCATTER_REPLACE, SL_SCATTER_ADD, SL_SCATTER_MIN, SL_SCATTER_MAX];

fn combine(mode: sl_scatter_mode, old: V, new: V) -> V {
    match (mode, old, new) {
        (SL_SCATTER_REPLACE, _, _) => new,
        // bool: min is "and", max is "or"
        (SL_SCATTER_MIN, V::B(a), V::B(b)) => V::B(a && b),
        (SL_SCATTER_MAX, V::B(a), V::B(b)) => V::B(a || b),
        (SL_SCATTER_ADD, _, _) => r::binary(SL_ADD, old, new),
        (SL_SCATTER_MIN, _, _) => r::binary(SL_MIN, old, new),
        _ => r::binary(SL_MAX, old, new),
    }
}

/// The CPU executor's semantics, source by source in column-major order; also the sum of
/// magnitudes and the number of values combined into each element (for float sums).
fn reference(mode: sl_scatter_mode, dst: &Arr, idx: &[Vec<i64>], vals: &[V]) -> (Arr, Vec<f64>, Vec<usize>) {
    let mut out = dst.clone();
    let mut mags: Vec<f64> = dst.v.iter().map(|v| v.f().abs()).collect();
    let mut counts = vec![1; dst.v.len()];
    for (k, v) in vals.iter().enumerate() {
        let coords: Option<Vec<usize>> =
            idx.iter().zip(&dst.shape).map(|(ix, &n)| usize::try_from(ix[k]).ok().filter(|&c| c < n)).collect();
        let Some(coords) = coords else { continue };
        let l = ravel(&dst.shape, &coords);
        out.v[l] = combine(mode, out.v[l], *v);
        mags[l] += v.f().abs();
        counts[l] += 1;
    }
    (out, mags, counts)
}

fn on_cpu() -> bool {
    let mut d: sl_device_info = unsafe { std::mem::zeroed() };
    ok(sl_get_device_info(&mut d));
    d.backend == SL_BACKEND_CPU
}

/// Checks a scatter result: exact, except float sums on a device, which may add colliding
/// values in another order (each addition rounds once: within `count` rounding errors of
/// the magnitudes summed).
fn check(what: &str, mode: sl_scatter_mode, got: &Arr, want: &Arr, mags: &[f64], counts: &[usize]) {
    let float = matches!(want.dt, SL_F32 | SL_F64);
    if !(float && mode == SL_SCATTER_ADD) || on_cpu() {
        assert_close(what, got, want, 0.0);
        return;
    }
    let eps = if want.dt == SL_F32 { f32::EPSILON as f64 } else { f64::EPSILON };
    for (i, (g, w)) in got.v.iter().zip(&want.v).enumerate() {
        let (gf, wf) = (g.f(), w.f());
        let tol = eps * counts[i] as f64 * mags[i];
        assert!(
            gf == wf || (gf.is_nan() && wf.is_nan()) || (gf - wf).abs() <= tol,
            "{what}: element {i}: got {g:?}, want {w:?} (tolerance {tol})"
        );
    }
}

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
