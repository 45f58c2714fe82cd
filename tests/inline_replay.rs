//! A loop replaying a small macro section runs its replays on the calling thread. One
//! test function in its own binary: it counts the runtime's program sequences, which
//! tests running beside it would add to (and would make the engine busy).

mod common;

use common::*;
use sluice::*;

fn read(a: sl_array) -> Vec<f32> {
    download(a).v.iter().map(|v| v.f() as f32).collect()
}

/// Sequences run so far, and how many of them ran on the calling thread.
fn sequences() -> (u64, u64) {
    let st = stats();
    (st.sequences, st.inline_sequences)
}

/// sin applied 40 times to `y0`: some milliseconds of work on 2^14 elements, so a loop on
/// it starts while it is still being computed.
fn sin_chain(y0: sl_array) -> sl_array {
    let mut y = 0;
    ok(sl_retain(y0, &mut y));
    for _ in 0..40 {
        let mut t = 0;
        ok(sl_sin(y, &mut t));
        ok(sl_release(y));
        y = t;
    }
    y
}

/// A loop replaying a small section whose first input is still being computed (the
/// section recorded on an array `sl_eval` started): the first replay waits for it, and
/// every later one runs on the calling thread, rather than each handing its step to the
/// execution thread because its input (the previous replay's output) was handed there too.
#[test]
fn replays_run_here_while_input_computes() {
    let mut rng = rng("replays_run_here_while_input_computes");
    let n = 1 << 14;
    let (xs, ys) =
        (rand_arr(&mut rng, SL_F32, &[n], -1.0, 1.0, false), rand_arr(&mut rng, SL_F32, &[n], -1.0, 1.0, false));
    let (x, y0) = (xs.upload(), ys.upload());
    let mut y = sin_chain(y0);
    let want_start = read(y);
    let name = c"replay_while_computing";
    let step = |y: &mut sl_array| {
        let (ins, mut out, mut mode) = ([*y, x], [0], 0);
        ok(sl_macro_begin(name.as_ptr(), ins.as_ptr(), 2, std::ptr::null(), 0, out.as_mut_ptr(), 1, &mut mode));
        if mode == SL_MACRO_RECORD {
            let mut t = 0;
            ok(sl_mul_scalar(*y, 0.99, &mut t));
            ok(sl_add(t, x, &mut out[0]));
            ok(sl_release(t));
            ok(sl_macro_end(out.as_ptr(), 1));
        }
        ok(sl_release(*y));
        *y = out[0];
    };
    step(&mut y); // recorded: its flush goes to the execution thread
    // Read, so that sequence is counted before the loop's (the execution thread counts a
    // sequence when it takes it up).
    read(y);
    ok(sl_release(y));
    y = sin_chain(y0);
    ok(sl_eval(&y, 1));
    let replays = 2000;
    let (seqs, inline) = sequences();
    for _ in 0..replays {
        step(&mut y);
    }
    let (seqs_after, inline_after) = sequences();
    let got = read(y);
    let xs = read(x);
    let mut want = want_start;
    for _ in 0..replays {
        for (w, &xi) in want.iter_mut().zip(&xs) {
            *w = *w * 0.99 + xi;
        }
    }
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!((g - w).abs() <= 1e-3 * w.abs().max(1.0), "element {i}: {g} vs {w}");
    }
    release(&[x, y0, y]);
    let handed = (seqs_after - seqs) - (inline_after - inline);
    eprintln!("of {replays} replays, {handed} sequences went to the execution thread");
    // Only the eval's sequence, still running when the loop starts.
    assert!(handed <= 1, "{handed} sequences of {replays} replays handed to the execution thread");
}
