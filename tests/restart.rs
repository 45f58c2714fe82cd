//! Handles across `sl_shutdown`: a new runtime hands out none of the array handles or
//! generator ids of earlier ones, and refuses the old ones, so a stale id never reaches
//! (or destroys) what a new one refers to. One test in its own process, because it stops
//! and restarts the process-wide runtime.

mod common;

use common::*;
use rand::Rng;
use sluice::*;

#[test]
fn handles_of_a_shut_down_runtime_are_refused() {
    let mut rng = rng("handles_of_a_shut_down_runtime_are_refused");
    let (mut old_arrays, mut old_generators) = (Vec::new(), Vec::new());
    for runtime in 0..3 {
        // Handles of this runtime: new ones, each unlike every handle made before.
        let data = rand_arr(&mut rng, SL_F64, &[5], -1.0, 1.0, false);
        let a = data.upload();
        let seed = rng.random();
        let mut g = 0;
        ok(sl_rng_create(SL_RNG_PHILOX, seed, &mut g));
        assert!(!old_arrays.contains(&a), "runtime {runtime} handed out an earlier runtime's array handle {a:#x}");
        assert!(!old_generators.contains(&g), "runtime {runtime} handed out an earlier runtime's generator {g:#x}");
        for _ in 0..200 {
            let (mut h, mut r) = (0, 0);
            ok(sl_neg(a, &mut h));
            ok(sl_rng_create(SL_RNG_FAST, 1, &mut r));
            assert!(!old_arrays.contains(&h) && !old_generators.contains(&r));
            ok(sl_release(h));
            ok(sl_rng_destroy(r));
        }
        // The earlier runtimes' handles are refused and leave these untouched.
        let mut out = 7;
        for &old in &old_arrays {
            fails(sl_neg(old, &mut out), SL_ERR_INVALID_HANDLE, "before sl_shutdown");
            assert_eq!(out, 0);
            fails(sl_release(old), SL_ERR_INVALID_HANDLE, "before sl_shutdown");
        }
        for &old in &old_generators {
            fails(sl_rng_destroy(old), SL_ERR_INVALID_HANDLE, "not a live random number generator");
            fails(sl_rng_set_state(old, 1, 2), SL_ERR_INVALID_HANDLE, "before sl_shutdown");
            fails(sl_random_uniform(old, SL_F32, 1, [3i64].as_ptr(), &mut out), SL_ERR_INVALID_HANDLE, "before");
        }
        let (mut s, mut d) = (0, 1);
        ok(sl_rng_get_state(g, &mut s, &mut d));
        assert_eq!((s, d), (seed, 0), "the new generator is untouched");
        assert_eq!(download(a).v, data.v, "the new array is untouched");
        // An array handle is not a generator, nor the reverse.
        fails(sl_rng_destroy(a), SL_ERR_INVALID_HANDLE, "array handle passed as a random number generator");
        fails(sl_neg(g, &mut out), SL_ERR_INVALID_HANDLE, "array handle passed as a random number generator");
        old_arrays.push(a);
        old_generators.push(g);
        ok(sl_shutdown());
    }
}
