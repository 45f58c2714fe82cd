//! Assignment into views (`sl_assign_section`, `_where`, `_indexed` and their scalar
//! forms) on the executor the environment selects: every form against a plain
//! reference on fresh random inputs (negative strides, projections, size-1 and empty
//! sections, strided destinations, views and fused expressions as sources), old handles
//! keeping old values, refused calls leaving everything as it was, and a stencil loop
//! that updates its arrays in place.

mod common;

use common::*;
use std::sync::Mutex;

use rand::Rng;
use rand::rngs::StdRng;
use sluice::*;

/// The tests take turns: the stencil test counts the runtime's allocations, which the
/// others' arrays would add to.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// A random section of `shape`: per dimension start, count and stride (0 = projection).
fn random_section(rng: &mut StdRng, shape: &[usize]) -> (Vec<i64>, Vec<i64>, Vec<i64>) {
    let (mut start, mut count, mut stride) = (vec![], vec![], vec![]);
    for &n in shape {
        let n = n as i64;
        let (s, c, st) = match rng.random_range(0..6) {
            // A projection.
            0 => (rng.random_range(0..n), 1, 0),
            // Empty.
            1 if rng.random_bool(0.2) => (rng.random_range(-5..n + 5), 0, rng.random_range(1..4)),
            // Backwards.
            2 => {
                let st = -rng.random_range(1..4);
                let s = rng.random_range(0..n);
                (s, rng.random_range(1..=s / -st + 1), st)
            }
            // One element.
            3 => (rng.random_range(0..n), 1, rng.random_range(1..9)),
            _ => {
                let st = rng.random_range(1..4);
                let s = rng.random_range(0..n);
                (s, rng.random_range(1..=(n - 1 - s) / st + 1), st)
            }
        };
        start.push(s);
        count.push(c);
        stride.push(st);
    }
    (start, count, stride)
}

/// The shape of the view a section selects (projected dimensions removed).
fn view_shape(count: &[i64], stride: &[i64]) -> Vec<usize> {
    count.iter().zip(stride).filter(|(_, s)| **s != 0).map(|(c, _)| *c as usize).collect()
}

/// The destination with `values` (shaped like the view, or broadcast from `vshape`)
/// written at the section, one element at a time.
fn reference(dst: &Arr, section: &(Vec<i64>, Vec<i64>, Vec<i64>), values: &Arr) -> Arr {
    let (start, count, stride) = section;
    let shape = view_shape(count, stride);
    let mut out = dst.clone();
    for l in 0..numel(&shape) {
        let c = unravel(&shape, l);
        let mut at = vec![0usize; dst.shape.len()];
        let mut k = 0;
        for d in 0..dst.shape.len() {
            at[d] = if stride[d] == 0 {
                start[d] as usize
            } else {
                let x = (start[d] + stride[d] * c[k] as i64) as usize;
                k += 1;
                x
            };
        }
        // Values broadcast: size-1 (or missing) dimensions read index 0.
        let vi: Vec<usize> = (0..values.shape.len()).map(|d| if values.shape[d] == 1 { 0 } else { c[d] }).collect();
        out.v[ravel(&dst.shape, &at)] = values.at(&vi).cast(dst.dt);
    }
    out
}

fn exact(what: &str, got: &Arr, want: &Arr) {
    assert_eq!(got.shape, want.shape, "{what}: shape");
    for (i, (g, w)) in got.v.iter().zip(&want.v).enumerate() {
        let same = match (g, w) {
            (V::F32(a), V::F32(b)) => a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
            (V::F64(a), V::F64(b)) => a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
            _ => g == w,
        };
        assert!(same, "{what}: element {i} ({:?}) is {g:?}, want {w:?}", unravel(&want.shape, i));
    }
}

fn assign(dst: sl_array, section: &(Vec<i64>, Vec<i64>, Vec<i64>), values: sl_array) -> sl_status {
    sl_assign_section(dst, section.0.as_ptr(), section.1.as_ptr(), section.2.as_ptr(), values)
}

#[test]
fn sections_against_reference() {
    let _serial = serial();
    let mut rng = rng("sections_against_reference");
    for round in 0..200 {
        let rank = rng.random_range(1..=3);
        let shape: Vec<usize> = (0..rank).map(|_| rng.random_range(1..9)).collect();
        let dt = [SL_F32, SL_F64, SL_I32, SL_U8][round % 4];
        let dst = rand_arr(&mut rng, dt, &shape, 0.0, 100.0, true);
        let section = random_section(&mut rng, &shape);
        let vshape = view_shape(&section.1, &section.2);
        // Values: the view's shape, or with size-1 dimensions (broadcast), or rank 0.
        let bshape: Vec<usize> = match rng.random_range(0..3) {
            0 => vshape.iter().map(|&n| if rng.random_bool(0.5) { 1 } else { n }).collect(),
            1 => vec![],
            _ => vshape.clone(),
        };
        let vals = rand_arr(&mut rng, dt, &bshape, 0.0, 100.0, true);
        let hd = dst.upload();
        let mut old = 0;
        ok(sl_retain(hd, &mut old));
        let hv = vals.upload();
        // Sources of three kinds: the array, an expression fused into the assignment
        // (negation twice: exact), and a view (a transpose of a stored transpose).
        let (src, want_vals) = match rng.random_range(0..3) {
            0 if dt != SL_U8 => (negate(negate(hv)), vals.clone()),
            1 if bshape.len() == 2 => {
                let mut t = 0;
                ok(sl_transpose(hv, &mut t));
                let mut back = 0;
                ok(sl_transpose(t, &mut back));
                release(&[t]);
                (back, vals.clone())
            }
            _ => {
                let mut r = 0;
                ok(sl_retain(hv, &mut r));
                (r, vals.clone())
            }
        };
        let what = format!("round {round}: {dt} {shape:?} section {section:?} <- {bshape:?}");
        ok(assign(hd, &section, src));
        exact(&what, &download(hd), &reference(&dst, &section, &want_vals));
        exact(&format!("{what}, old handle"), &download(old), &dst);
        release(&[hd, old, hv, src]);
    }
}

#[test]
fn strided_destinations_and_promotion() {
    let _serial = serial();
    let mut rng = rng("strided_destinations_and_promotion");
    for round in 0..50 {
        let (n0, n1) = (rng.random_range(1..12), rng.random_range(1..12));
        // The destination is a transpose of a stored array (a strided view), so the
        // assignment writes a copy.
        let stored = rand_arr(&mut rng, SL_F64, &[n1, n0], -10.0, 10.0, false);
        let dst = Arr::new(SL_F64, &[n0, n1], (0..n0 * n1).map(|l| stored.at(&[l / n0, l % n0])).collect());
        let hs = stored.upload();
        let mut ht = 0;
        ok(sl_transpose(hs, &mut ht));
        let section = random_section(&mut rng, &[n0, n1]);
        let vshape = view_shape(&section.1, &section.2);
        // i32 values into an f64 array: widened exactly.
        let vals = rand_arr(&mut rng, SL_I32, &vshape, -1000.0, 1000.0, false);
        let hv = vals.upload();
        let what = format!("round {round}: transposed {n0}x{n1}, section {section:?}");
        ok(assign(ht, &section, hv));
        exact(&what, &download(ht), &reference(&dst, &section, &vals));
        exact(&format!("{what}: the stored array"), &download(hs), &stored);
        release(&[hs, ht, hv]);
    }
}

#[test]
fn scalars_masks_and_indices() {
    let _serial = serial();
    let mut rng = rng("scalars_masks_and_indices");
    for round in 0..60 {
        let shape = vec![rng.random_range(1..20), rng.random_range(1..6)];
        let dst = rand_arr(&mut rng, SL_F32, &shape, -5.0, 5.0, true);
        let hd = dst.upload();
        // A scalar into a section.
        let section = random_section(&mut rng, &shape);
        let x = rng.random_range(-3.0..3.0f32);
        ok(sl_assign_section_scalar(hd, section.0.as_ptr(), section.1.as_ptr(), section.2.as_ptr(), x as f64));
        let after_scalar = reference(&dst, &section, &Arr::new(SL_F32, &[], vec![V::F32(x)]));
        exact(&format!("round {round}: scalar"), &download(hd), &after_scalar);
        // A mask: values (broadcast along dimension 1) where it is true.
        let mask = rand_arr(&mut rng, SL_BOOL, &shape, 0.0, 1.0, false);
        let vals = rand_arr(&mut rng, SL_F32, &[shape[0]], -5.0, 5.0, false);
        let (hm, hv) = (mask.upload(), vals.upload());
        ok(sl_assign_where(hd, hm, hv));
        let mut want = after_scalar.clone();
        for l in 0..numel(&shape) {
            if mask.v[l] == V::B(true) {
                want.v[l] = vals.v[l % shape[0]];
            }
        }
        exact(&format!("round {round}: where"), &download(hd), &want);
        ok(sl_assign_where_scalar(hd, hm, -0.5));
        for l in (0..numel(&shape)).filter(|&l| mask.v[l] == V::B(true)) {
            want.v[l] = V::F32(-0.5);
        }
        exact(&format!("round {round}: where scalar"), &download(hd), &want);
        // Indexed: add at random positions (collisions add up).
        let m = rng.random_range(1..30);
        let idx: Vec<Vec<i64>> =
            shape.iter().map(|&n| (0..m).map(|_| rng.random_range(0..n as i64)).collect()).collect();
        let adds = rand_arr(&mut rng, SL_F32, &[m], -1.0, 1.0, false);
        let hi: Vec<sl_array> =
            idx.iter().map(|ix| Arr::new(SL_I64, &[m], ix.iter().map(|&c| V::I64(c)).collect()).upload()).collect();
        let ha = adds.upload();
        ok(sl_assign_indexed(hd, hi.as_ptr(), 2, ha, SL_SCATTER_ADD));
        let mut sums: Vec<f64> = want.v.iter().map(|v| v.f()).collect();
        for ((&i, &j), add) in idx[0].iter().zip(&idx[1]).zip(&adds.v) {
            let l = ravel(&shape, &[i as usize, j as usize]);
            sums[l] = (sums[l] as f32 + add.f() as f32) as f64;
        }
        let got = download(hd);
        for (l, s) in sums.iter().enumerate() {
            let g = got.v[l].f();
            // Colliding adds may be combined in another order: one rounding each.
            assert!(
                g == *s || (g - s).abs() <= 1e-5 * (1.0 + s.abs()) || (g.is_nan() && s.is_nan()),
                "round {round}: indexed add at {l}: {g} vs {s}"
            );
        }
        release(&[hd, hm, hv, ha]);
        release(&hi);
    }
}

#[test]
fn refused_calls_change_nothing() {
    let _serial = serial();
    let mut rng = rng("refused_calls_change_nothing");
    let dst = rand_arr(&mut rng, SL_I32, &[6, 5], -100.0, 100.0, false);
    let hd = dst.upload();
    let v3 = rand_arr(&mut rng, SL_I32, &[3], -100.0, 100.0, false).upload();
    let f = rand_arr(&mut rng, SL_F64, &[2, 2], -1.0, 1.0, false).upload();
    let (start, count, stride) = ([1i64, 1], [2i64, 2], [1i64, 1]);
    // Out of bounds (and an end that overflows).
    fails(
        sl_assign_section_scalar(hd, [5, 0].as_ptr(), [2, 1].as_ptr(), stride.as_ptr(), 1.0),
        SL_ERR_INVALID_ARGUMENT,
        "leaves the array",
    );
    fails(
        sl_assign_section_scalar(hd, [0, 0].as_ptr(), [2, 1].as_ptr(), [i64::MAX, 1].as_ptr(), 1.0),
        SL_ERR_INVALID_ARGUMENT,
        "leaves the array",
    );
    // A projection must take one element.
    fails(
        sl_assign_section_scalar(hd, start.as_ptr(), [2, 2].as_ptr(), [0, 1].as_ptr(), 1.0),
        SL_ERR_INVALID_ARGUMENT,
        "projection",
    );
    // Shapes that do not broadcast to the section.
    fails(
        sl_assign_section(hd, start.as_ptr(), count.as_ptr(), stride.as_ptr(), v3),
        SL_ERR_SHAPE_MISMATCH,
        "cannot broadcast",
    );
    // f64 values into an i32 array, and a scalar it cannot hold.
    fails(
        sl_assign_section(hd, start.as_ptr(), count.as_ptr(), stride.as_ptr(), f),
        SL_ERR_DTYPE_MISMATCH,
        "lose information",
    );
    fails(
        sl_assign_section_scalar(hd, start.as_ptr(), count.as_ptr(), stride.as_ptr(), 2.5),
        SL_ERR_DTYPE_MISMATCH,
        "cannot be represented",
    );
    // A mask of another shape, or not bool.
    let m = rand_arr(&mut rng, SL_BOOL, &[5, 6], 0.0, 1.0, false).upload();
    fails(sl_assign_where_scalar(hd, m, 1.0), SL_ERR_SHAPE_MISMATCH, "mask has shape");
    fails(sl_assign_where_scalar(hd, hd, 1.0), SL_ERR_DTYPE_MISMATCH, "must be bool");
    // Null pointers and handles.
    fails(
        sl_assign_section_scalar(hd, std::ptr::null(), count.as_ptr(), stride.as_ptr(), 1.0),
        SL_ERR_INVALID_ARGUMENT,
        "start is NULL",
    );
    fails(
        sl_assign_section_scalar(0, start.as_ptr(), count.as_ptr(), stride.as_ptr(), 1.0),
        SL_ERR_INVALID_HANDLE,
        "null handle",
    );
    // Inside a recording macro, an array made outside it cannot be assigned into.
    let mut mode = 0;
    let mut out = 0;
    ok(sl_macro_begin(c"assign_refused".as_ptr(), &hd, 1, std::ptr::null(), 0, &mut out, 1, &mut mode));
    if mode == SL_MACRO_RECORD {
        fails(
            sl_assign_section_scalar(hd, start.as_ptr(), count.as_ptr(), stride.as_ptr(), 1.0),
            SL_ERR_INVALID_STATE,
            "made outside macro",
        );
        ok(sl_macro_cancel());
    }
    // Nothing changed, and the runtime still works.
    exact("after refused calls", &download(hd), &dst);
    ok(sl_assign_section_scalar(hd, start.as_ptr(), count.as_ptr(), stride.as_ptr(), 7.0));
    let mut want = dst.clone();
    for (i, j) in [(1, 1), (2, 1), (1, 2), (2, 2)] {
        want.v[ravel(&[6, 5], &[i, j])] = V::I32(7);
    }
    exact("after a good call", &download(hd), &want);
    release(&[hd, v3, f, m]);
}

/// The 5-point Jacobi update of the interior of `u`, as the application writes it:
/// `unew(2:n-1, 2:n-1) = (u(1:n-2, :) + u(3:n, :) + u(:, 1:n-2) + u(:, 3:n)) / 4`.
fn jacobi_step(u: sl_array, unew: sl_array, n: i64) {
    let m = n - 2;
    let shifted = |i: i64, j: i64| {
        let mut s = 0;
        ok(sl_section(u, [i, j].as_ptr(), [m, m].as_ptr(), [1, 1].as_ptr(), &mut s));
        s
    };
    let (a, b, c, d) = (shifted(0, 1), shifted(2, 1), shifted(1, 0), shifted(1, 2));
    let (mut ab, mut cd, mut sum, mut q) = (0, 0, 0, 0);
    ok(sl_add(a, b, &mut ab));
    ok(sl_add(c, d, &mut cd));
    ok(sl_add(ab, cd, &mut sum));
    ok(sl_mul_scalar(sum, 0.25, &mut q));
    ok(sl_assign_section(unew, [1, 1].as_ptr(), [m, m].as_ptr(), [1, 1].as_ptr(), q));
    release(&[a, b, c, d, ab, cd, sum, q]);
}

fn jacobi_reference(u: &[f32], n: usize) -> Vec<f32> {
    let mut out = u.to_vec();
    for j in 1..n - 1 {
        for i in 1..n - 1 {
            let s = (u[i - 1 + j * n] + u[i + 1 + j * n]) + (u[i + (j - 1) * n] + u[i + (j + 1) * n]);
            out[i + j * n] = s * 0.25;
        }
    }
    out
}

/// The test: a 2-D stencil updating an interior section for 1,000 steps
/// allocates no array per step (the assignments are written in place), and a handle
/// kept to an old version still reads its old values.
#[test]
fn stencil_updates_in_place() {
    let _serial = serial();
    let mut rng = rng("stencil_updates_in_place");
    let n = 48usize;
    let init = rand_arr(&mut rng, SL_F32, &[n, n], -1.0, 1.0, false);
    let (mut u, mut unew) = (init.upload(), init.upload());
    let mut want: Vec<f32> = init.v.iter().map(|v| v.f() as f32).collect();
    let mut kept = 0;
    let mut kept_values = Vec::new();
    let steps = 1000;
    let mut before = stats().allocations;
    for step in 0..steps {
        jacobi_step(u, unew, n as i64);
        want = jacobi_reference(&want, n);
        std::mem::swap(&mut u, &mut unew);
        if step == 10 {
            // The warm-up is done: count from here. An old version kept now must
            // keep its values while later steps update `u` and `unew`.
            ok(sl_retain(u, &mut kept));
            kept_values = want.clone();
            ok(sl_eval(&u, 1));
            ok(sl_sync());
            before = stats().allocations;
        }
    }
    ok(sl_sync());
    let allocated = stats().allocations - before;
    let got = download(u);
    for (l, (g, w)) in got.v.iter().zip(&want).enumerate() {
        assert!((g.f() as f32 - w).abs() <= 1e-5, "element {l}: {g:?} vs {w}");
    }
    let old = download(kept);
    for (l, (g, w)) in old.v.iter().zip(&kept_values).enumerate() {
        assert!((g.f() as f32 - w).abs() <= 1e-5, "kept version, element {l}: {g:?} vs {w}");
    }
    // The kept version costs one copy (the next assignment into it); each queue cut may
    // store a few values of its own (about one per 100 steps), but nothing per step.
    eprintln!("{allocated} arrays allocated over {} steps", steps - 11);
    // Compute-mode result comparison stores and checks every value, so nothing is written
    // in place there (docs/internals.md).
    let compared = std::env::var("SLUICE_COMPARE").is_ok_and(|m| m == "compute");
    assert!(compared || allocated < 40, "{allocated} arrays allocated over {} steps", steps - 11);
    release(&[u, unew, kept]);
}
