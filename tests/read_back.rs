//! Reads of results the read itself makes the runtime compute: on Vulkan the submission
//! computing such a result also copies it back (`SLUICE_VULKAN_NO_READ_BACK` switches
//! that off); other reads download. One test, so that nothing else in the process reads
//! while it counts.

mod common;

use common::reference as r;
use common::*;
use sluice::backend::vulkan::reads_copied_back;
use sluice::*;

/// Reads `h` and returns it with how many reads were served from copies made by the
/// computing submission meanwhile.
fn read_counting(h: sl_array) -> (Arr, u64) {
    let before = reads_copied_back();
    let got = download(h);
    (got, reads_copied_back() - before)
}

#[test]
fn reads_of_fresh_results() {
    let mut rng = rng("reads_of_fresh_results");
    // Copies back happen on Vulkan unless switched off.
    let copies = u64::from(on_vulkan() && !switched_on("SLUICE_VULKAN_NO_READ_BACK"));
    let n = 1000 + rand::Rng::random_range(&mut rng, 0..100);
    let a = rand_arr(&mut rng, SL_F32, &[n], -2.0, 2.0, false);
    let x = a.upload();
    // Several times, so that later rounds replay their plans from the trace cache.
    for round in 0..3 {
        let y_want = r::map1(&a, |v| r::binary(SL_ADD, r::binary(SL_MUL, v, V::F32(2.0)), V::F32(1.0)));
        let (mut t, mut y) = (0, 0);
        ok(sl_mul_scalar(x, 2.0, &mut t));
        ok(sl_add_scalar(t, 1.0, &mut y));
        let (got, copied) = read_counting(y);
        assert_close(&format!("round {round}: y"), &got, &y_want, 0.0);
        assert_eq!(copied, copies, "round {round}: the first read of y");
        // A second read of the same array downloads it.
        let (again, copied) = read_counting(y);
        assert_close(&format!("round {round}: y again"), &again, &y_want, 0.0);
        assert_eq!(copied, 0, "round {round}: the second read of y");

        // A sum read at once: its kernel's one output is copied back.
        let w_want = r::map1(&y_want, |v| r::binary(SL_SUB, v, V::F32(0.5)));
        let terms = r::map1(&w_want, |v| r::binary(SL_MUL, v, v));
        let s_want = r::reduce(SL_SUM, &terms, None);
        let (mut w, mut sq, mut s) = (0, 0, 0);
        ok(sl_sub_scalar(y, 0.5, &mut w));
        ok(sl_mul(w, w, &mut sq));
        ok(sl_sum(sq, SL_ALL_DIMS, &mut s));
        let (got, copied) = read_counting(s);
        assert_near(&format!("round {round}: sum"), &got, &s_want, 1e-6 * magnitude(&terms), 0.0);
        assert_eq!(copied, copies, "round {round}: the read of the sum");
        // Evaluated without a read waiting: read later by a download.
        ok(sl_eval(&w, 1));
        ok(sl_sync());
        let (got, copied) = read_counting(w);
        assert_close(&format!("round {round}: w"), &got, &w_want, 0.0);
        assert_eq!(copied, 0, "round {round}: w, evaluated before its read");
        release(&[t, y, w, sq, s]);
    }
    release(&[x]);
}
