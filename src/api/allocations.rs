//! Blocks allocated per call on the paths a loop repeats (a replayed macro step, a read of
//! a scalar), counted by the test build's allocator on the calling thread.

use std::sync::Mutex;

use rand::Rng;

use super::array::*;
use super::elementwise::*;
use super::macros::*;
use super::reduce::*;
use super::types::*;
use crate::allocator::counting::allocations;

/// The tests share the runtime: one at a time, so neither finds the engine busy with the
/// other's work (which would take the queued path instead of running inline).
static SERIAL: Mutex<()> = Mutex::new(());

fn check(st: sl_status) {
    assert_eq!(st, SL_OK, "Sluice call failed");
}

fn upload(data: &[f32]) -> sl_array {
    let (n, mut h) = (data.len() as i64, 0);
    check(sl_create(SL_F32, 1, &n, SL_COL_MAJOR, data.as_ptr().cast(), data.len() * 4, &mut h));
    h
}

fn read(a: sl_array, len: usize) -> Vec<f32> {
    let mut out = vec![0f32; len];
    check(sl_read(a, SL_COL_MAJOR, out.as_mut_ptr().cast(), len * 4));
    out
}

fn release_all(hs: &[sl_array]) {
    for &h in hs {
        check(sl_release(h));
    }
}

fn random_vec(len: usize) -> Vec<f32> {
    let seed: u64 = rand::rng().random();
    eprintln!("seed {seed}");
    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(seed);
    (0..len).map(|_| rng.random_range(-1.0f32..1.0)).collect()
}

/// The fewest blocks one call of `f` allocated, over batches of `per_batch` calls (a
/// batch that found the engine busy, and queued, is not the one counted).
fn fewest_per_call(batches: usize, per_batch: usize, mut f: impl FnMut()) -> u64 {
    (0..batches)
        .map(|_| {
            let before = allocations();
            for _ in 0..per_batch {
                f();
            }
            (allocations() - before) / per_batch as u64
        })
        .min()
        .expect("at least one batch")
}

/// `y = y*0.99 + x` on 1024 f32 as a macro section, replayed: the replay allocates only
/// its output (the buffer's handle and the node) and the handle table's entry, and its
/// results match a plain loop's.
#[test]
fn replay_allocations() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let n = 1024;
    let (xs, ys) = (random_vec(n), random_vec(n));
    let (x, mut y) = (upload(&xs), upload(&ys));
    let name = c"alloc_mul_add";
    let mut step = || {
        let (ins, mut out, mut mode) = ([y, x], [0], 0);
        check(sl_macro_begin(name.as_ptr(), ins.as_ptr(), 2, std::ptr::null(), 0, out.as_mut_ptr(), 1, &mut mode));
        if mode == SL_MACRO_RECORD {
            let mut t = 0;
            check(sl_mul_scalar(y, 0.99, &mut t));
            check(sl_add(t, x, &mut out[0]));
            check(sl_release(t));
            check(sl_macro_end(out.as_ptr(), 1));
        }
        check(sl_release(y));
        y = out[0];
    };
    let (batches, per_batch) = (5, 200);
    for _ in 0..10 {
        step();
    }
    let per_replay = fewest_per_call(batches, per_batch, &mut step);
    eprintln!("blocks allocated per replay: {per_replay}");
    let got = read(y, n);
    let mut want = ys.clone();
    for _ in 0..10 + batches * per_batch {
        for (w, &xi) in want.iter_mut().zip(&xs) {
            *w = *w * 0.99 + xi;
        }
    }
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!((g - w).abs() <= 1e-4 * w.abs().max(1.0), "element {i}: {g} vs {w}");
    }
    check(sl_release(x));
    check(sl_release(y));
    assert!(per_replay <= 3, "{per_replay} blocks allocated per replay");
}

/// A read of `dot(a, b)` (80 elements), made and read again and again: each round trip
/// hits the trace cache and runs its recipe on the reading thread (no program sequence);
/// it allocates at most the 3 blocks counted on this path (the two nodes `sl_dot` makes
/// and the result's buffer handle; 17 when each read built a program sequence), and its
/// value matches a plain dot product.
#[test]
fn scalar_read_allocations() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let n = 80;
    let (av, bv) = (random_vec(n), random_vec(n));
    let (a, b) = (upload(&av), upload(&bv));
    let mut value = 0f32;
    let mut round_trip = || {
        let mut d = 0;
        check(sl_dot(a, b, &mut d));
        // Into the stack, so only Sluice's blocks are counted.
        check(sl_read(d, SL_COL_MAJOR, (&mut value as *mut f32).cast(), 4));
        check(sl_release(d));
    };
    for _ in 0..10 {
        round_trip();
    }
    let per_read = fewest_per_call(5, 200, &mut round_trip);
    eprintln!("blocks allocated per dot and read: {per_read}");
    let want: f64 = av.iter().zip(&bv).map(|(&x, &y)| (x * y) as f64).sum();
    assert!((value as f64 - want).abs() <= 1e-5 * want.abs().max(1.0), "{value} vs {want}");
    release_all(&[a, b]);
    assert!(per_read <= 3, "{per_read} blocks allocated per dot and read");
}
