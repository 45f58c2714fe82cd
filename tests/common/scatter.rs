//! Scatter's plain reference and the check of a result against it, shared by the scatter
//! suite and the op suite.
#![allow(dead_code)]

use super::reference as r;
use super::*;

pub const MODES: [sl_scatter_mode; 4] = [SL_SCATTER_REPLACE, SL_SCATTER_ADD, SL_SCATTER_MIN, SL_SCATTER_MAX];

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
pub fn reference(mode: sl_scatter_mode, dst: &Arr, idx: &[Vec<i64>], vals: &[V]) -> (Arr, Vec<f64>, Vec<usize>) {
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

/// Checks a scatter result: exact, except float sums on a device, which may add colliding
/// values in another order (each addition rounds once: within `count` rounding errors of
/// the magnitudes summed).
pub fn check(what: &str, mode: sl_scatter_mode, got: &Arr, want: &Arr, mags: &[f64], counts: &[usize]) {
    let reordered = matches!(want.dt, SL_F32 | SL_F64) && mode == SL_SCATTER_ADD && on_vulkan();
    if !reordered {
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
