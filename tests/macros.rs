//! Macros (code reuse sections) as an application uses them: record once, replay with one
//! call, controls selecting entries, nesting, the cache bound, and every misuse with its
//! status and message, after which the runtime and the cache still work. One test function,
//! because it reads process-wide counters.

mod common;

use std::ffi::CString;

use common::*;
use sluice::*;

fn macro_stats() -> sl_cache_stats {
    let mut s: sl_cache_stats = unsafe { std::mem::zeroed() };
    ok(sl_get_cache_stats(SL_CACHE_MACRO, &mut s));
    s
}

fn live() -> i64 {
    let mut n = 0;
    ok(sl_live_handles(&mut n));
    n
}

fn begin(name: &str, inputs: &[sl_array], controls: &[f64], outputs: &mut [sl_array]) -> (sl_status, sl_macro_mode) {
    let name = CString::new(name).unwrap();
    let mut mode = -1;
    let st = sl_macro_begin(
        name.as_ptr(),
        inputs.as_ptr(),
        inputs.len() as i32,
        controls.as_ptr(),
        controls.len() as i32,
        outputs.as_mut_ptr(),
        outputs.len() as i32,
        &mut mode,
    );
    (st, mode)
}

/// One step `y' = y * 0.99 + x * c` (or `y * 0.99 - x * c` when `control < 0`) as a
/// section; `runs` counts how often the body ran.
fn step(y: sl_array, x: sl_array, c: sl_array, control: f64, runs: &mut usize) -> sl_array {
    let mut out = [0];
    let (st, mode) = begin("step", &[y, x, c], &[control], &mut out);
    ok(st);
    if mode == SL_MACRO_RECORD {
        *runs += 1;
        let (mut a, mut b) = (0, 0);
        ok(sl_mul_scalar(y, 0.99, &mut a));
        ok(sl_mul(x, c, &mut b));
        ok(if control < 0.0 { sl_sub(a, b, &mut out[0]) } else { sl_add(a, b, &mut out[0]) });
        ok(sl_macro_end(out.as_ptr(), 1));
    } else {
        assert_eq!(mode, SL_MACRO_REPLAY);
    }
    out[0]
}

fn step_reference(y: &[f32], x: &[f32], c: f32, control: f64) -> Vec<f32> {
    y.iter().zip(x).map(|(&y, &x)| if control < 0.0 { y * 0.99 - x * c } else { y * 0.99 + x * c }).collect()
}

fn f32s(a: &Arr) -> Vec<f32> {
    a.v.iter().map(|v| v.f() as f32).collect()
}

#[test]
fn macros() {
    record_and_replay();
    misuse_is_refused_and_harmless();
    aliased_inputs();
    replayed_outputs();
    nested_sections_and_threads();
}

fn record_and_replay() {
    let mut rng = rng("record_and_replay");
    let base = live();
    let n = 777;
    let xa = rand_arr(&mut rng, SL_F32, &[n], -1.0, 1.0, false);
    let x = xa.upload();
    let mut y = rand_arr(&mut rng, SL_F32, &[n], -1.0, 1.0, false).upload();
    let mut want = f32s(&download(y));
    let before = macro_stats();
    let mut runs = 0;
    for k in 0..40 {
        // A fresh scalar array each time: inputs' values vary, the entry does not.
        let cv = rand_val(&mut rng, SL_F32, 0.1, 2.0, false).f() as f32;
        let c = Arr::new(SL_F32, &[], vec![V::F32(cv)]).upload();
        let control = if k % 3 == 0 { -1.0 } else { 1.0 };
        let next = step(y, x, c, control, &mut runs);
        want = step_reference(&want, &f32s(&xa), cv, control);
        release(&[y, c]);
        y = next;
    }
    assert_eq!(runs, 2, "the body runs once per control value");
    let s = macro_stats();
    assert_eq!((s.misses - before.misses, s.hits - before.hits), (2, 38), "{s:?}");
    let got = download(y);
    assert_close("40 steps", &got, &Arr::new(SL_F32, &[n], want.into_iter().map(V::F32).collect()), 4.0);

    // Other input shapes are another entry.
    let x2 = rand_arr(&mut rng, SL_F32, &[5, 3], -1.0, 1.0, false);
    let (xh, yh, ch) = (x2.upload(), x2.upload(), Arr::new(SL_F32, &[], vec![V::F32(0.5)]).upload());
    let r = step(yh, xh, ch, 1.0, &mut runs);
    assert_eq!(runs, 3);
    let w = step_reference(&f32s(&x2), &f32s(&x2), 0.5, 1.0);
    assert_close("other shape", &download(r), &Arr::new(SL_F32, &[5, 3], w.into_iter().map(V::F32).collect()), 4.0);
    release(&[xh, yh, ch, r, x, y]);
    assert_eq!(live(), base, "replays leak no handles");
}

/// Runs `body` inside a new section `name` over `input` and returns what `sl_macro_end`
/// says.
fn misuse(name: &str, input: sl_array, body: impl FnOnce(sl_array, &mut sl_array)) -> sl_status {
    let mut out = [0];
    let (st, mode) = begin(name, &[input], &[], &mut out);
    ok(st);
    assert_eq!(mode, SL_MACRO_RECORD, "a failed recording caches nothing");
    body(input, &mut out[0]);
    sl_macro_end(out.as_ptr(), 1)
}

fn misuse_is_refused_and_harmless() {
    let mut rng = rng("misuse");
    let a = rand_arr(&mut rng, SL_F64, &[64], -1.0, 1.0, false);
    let ah = a.upload();
    let other = rand_arr(&mut rng, SL_F64, &[64], -1.0, 1.0, false).upload();

    // Reads, writes, eval and sync inside a recording.
    let st = misuse("reads", ah, |x, out| {
        ok(sl_neg(x, out));
        let mut buf = vec![0f64; 64];
        fails(
            sl_read(*out, SL_COL_MAJOR, buf.as_mut_ptr() as *mut _, 512),
            SL_ERR_INVALID_STATE,
            "while macro 'reads' is recording",
        );
        fails(sl_eval(out, 1), SL_ERR_INVALID_STATE, "sl_eval is not allowed");
        fails(sl_sync(), SL_ERR_INVALID_STATE, "sl_sync is not allowed");
        let dims = [2i64];
        let mut h = 0;
        fails(
            sl_create(SL_F64, 1, dims.as_ptr(), SL_COL_MAJOR, buf.as_ptr() as *const _, 16, &mut h),
            SL_ERR_INVALID_STATE,
            "sl_create",
        );
    });
    ok(st);

    // An array from outside the section that is not an input.
    let mut kept_out = 0;
    let st = misuse("outsider", ah, |x, out| {
        ok(sl_add(x, other, out));
        kept_out = *out;
    });
    fails(st, SL_ERR_INVALID_ARGUMENT, "neither an input of the section nor computed inside it");
    let got = download(kept_out);
    let o = download(other);
    let want = Arr::new(SL_F64, &[64], a.v.iter().zip(&o.v).map(|(p, q)| V::F64(p.f() + q.f())).collect());
    assert_close("output of a refused section still computes", &got, &want, 0.0);
    release(&[kept_out]);

    // An array kept past the section without being declared.
    let mut escaped = 0;
    let st = misuse("escape", ah, |x, out| {
        ok(sl_exp(x, &mut escaped));
        ok(sl_keep(escaped));
        ok(sl_sin(x, out));
    });
    fails(st, SL_ERR_INVALID_STATE, "is not one of its outputs");
    release(&[escaped]);
    // Refused recordings are not cached: the section records again.
    let st = misuse("outsider", ah, |x, out| ok(sl_add_scalar(x, 1.0, out)));
    ok(st);

    // Wrong number of outputs at the end.
    let mut out = [0];
    let (st, _) = begin("arity", &[ah], &[], &mut out);
    ok(st);
    ok(sl_abs(ah, &mut out[0]));
    fails(sl_macro_end(out.as_ptr(), 0), SL_ERR_INVALID_ARGUMENT, "begun with 1 outputs but ended with 0");

    // A section inside itself.
    let mut out = [0];
    ok(begin("self", &[ah], &[], &mut out).0);
    let mut inner = [0];
    fails(begin("self", &[ah], &[], &mut inner).0, SL_ERR_INVALID_STATE, "already being recorded on this thread");
    ok(sl_macro_cancel());

    scopes_inside_sections(ah, &a);

    // End or cancel without begin; bad arguments to begin.
    fails(sl_macro_end(std::ptr::null(), 0), SL_ERR_INVALID_STATE, "without an open sl_macro_begin");
    fails(sl_macro_cancel(), SL_ERR_INVALID_STATE, "without an open sl_macro_begin");
    let mut mode = 0;
    fails(
        sl_macro_begin(std::ptr::null(), &ah, 1, std::ptr::null(), 0, std::ptr::null_mut(), 0, &mut mode),
        SL_ERR_INVALID_ARGUMENT,
        "name is NULL",
    );
    let mut o = [0];
    fails(begin("stale", &[0xdead], &[], &mut o).0, SL_ERR_INVALID_HANDLE, "");

    // After all that, a section records and replays normally.
    let mut runs = 0;
    let c = Arr::new(SL_F64, &[], vec![V::F64(0.25)]).upload();
    let mut y = 0;
    ok(sl_retain(ah, &mut y));
    for _ in 0..3 {
        let mut out = [0];
        let (st, mode) = begin("after", &[y, c], &[], &mut out);
        ok(st);
        if mode == SL_MACRO_RECORD {
            runs += 1;
            ok(sl_mul(y, c, &mut out[0]));
            ok(sl_macro_end(out.as_ptr(), 1));
        }
        release(&[y]);
        y = out[0];
    }
    assert_eq!(runs, 1);
    // A name that is not UTF-8, right after replays (which compare names as bytes).
    let bad = CString::new(b"after\xff".to_vec()).unwrap();
    let (mut o, mut mode) = ([0], 0);
    fails(
        sl_macro_begin(bad.as_ptr(), [y, c].as_ptr(), 2, std::ptr::null(), 0, o.as_mut_ptr(), 1, &mut mode),
        SL_ERR_INVALID_ARGUMENT,
        "name is not UTF-8",
    );
    let want = Arr::new(SL_F64, &[64], a.v.iter().map(|v| V::F64(v.f() * 0.25 * 0.25 * 0.25)).collect());
    assert_close("section after misuse", &download(y), &want, 0.0);
    release(&[y, c, ah, other]);
}

/// Scopes that do not pair up inside a section: a stray `sl_scope_end` is refused and the
/// recording goes on; scopes begun inside and left open are closed with the section.
fn scopes_inside_sections(ah: sl_array, a: &Arr) {
    let base = live();
    let doubled = Arr::new(SL_F64, &[64], a.v.iter().map(|v| V::F64(v.f() * 2.0)).collect());
    // A scope begun before the section cannot be ended inside it.
    ok(sl_scope_begin());
    let st = misuse("stray scope end", ah, |x, out| {
        fails(sl_scope_end(), SL_ERR_INVALID_STATE, "inside the macro section being recorded");
        ok(sl_mul_scalar(x, 2.0, out));
    });
    ok(st);
    let mut out = [0];
    let (st, mode) = begin("stray scope end", &[ah], &[], &mut out);
    ok(st);
    assert_eq!(mode, SL_MACRO_REPLAY, "the section was recorded despite the stray sl_scope_end");
    assert_close("section with a stray sl_scope_end", &download(out[0]), &doubled, 0.0);
    ok(sl_scope_end());
    assert_eq!(live(), base, "the enclosing scope released the section's outputs");

    // A scope begun inside and not ended: the end fails, closing both (nothing cached).
    let (mut inner_array, mut output) = (0, 0);
    let st = misuse("open scope", ah, |x, out| {
        ok(sl_scope_begin());
        ok(sl_exp(x, &mut inner_array));
        ok(sl_mul_scalar(x, 2.0, out));
        output = *out;
    });
    fails(st, SL_ERR_INVALID_STATE, "were not ended");
    fails(sl_release(inner_array), SL_ERR_INVALID_HANDLE, "released");
    // The thread is no longer recording; the declared output is kept, like the outputs
    // of other refused sections.
    assert_close("output of a section left with a scope open", &download(output), &doubled, 0.0);
    release(&[output]);
    assert_eq!(live(), base, "the open scope's arrays were released");
    let st = misuse("open scope", ah, |x, out| {
        ok(sl_mul_scalar(x, 2.0, out));
        output = *out;
    });
    ok(st);
    let mut out = [0];
    assert_eq!(begin("open scope", &[ah], &[], &mut out), (SL_OK, SL_MACRO_REPLAY));
    release(&[out[0], output]);

    // Cancel closes scopes begun inside too.
    let mut out = [0];
    assert_eq!(begin("cancelled with a scope open", &[ah], &[], &mut out), (SL_OK, SL_MACRO_RECORD));
    ok(sl_scope_begin());
    ok(sl_sqrt(ah, &mut out[0]));
    ok(sl_macro_cancel());
    let mut buf = vec![0f64; 64];
    ok(sl_read(ah, SL_COL_MAJOR, buf.as_mut_ptr().cast(), 512));
    assert_eq!(live(), base, "cancel released what the section made");
    fails(sl_scope_end(), SL_ERR_INVALID_STATE, "without a matching sl_scope_begin");
}

/// A section recorded with one array passed as two inputs is a different entry from the
/// same section with two arrays.
fn aliased_inputs() {
    let mut rng = rng("aliased");
    let (x, y) =
        (rand_arr(&mut rng, SL_F64, &[30], -1.0, 1.0, false), rand_arr(&mut rng, SL_F64, &[30], -1.0, 1.0, false));
    let (xh, yh) = (x.upload(), y.upload());
    let mut runs = 0;
    let mut section = |u: sl_array, v: sl_array| {
        let mut out = [0];
        let (st, mode) = begin("u_minus_2v", &[u, v], &[], &mut out);
        ok(st);
        if mode == SL_MACRO_RECORD {
            runs += 1;
            let mut t = 0;
            ok(sl_mul_scalar(v, 2.0, &mut t));
            ok(sl_sub(u, t, &mut out[0]));
            ok(sl_macro_end(out.as_ptr(), 1));
        }
        let got = download(out[0]);
        release(&out);
        got
    };
    let same = section(xh, xh);
    let different = section(xh, yh);
    assert_eq!(runs, 2, "aliased and distinct inputs are different entries");
    let want = |a: &Arr, b: &Arr| {
        Arr::new(SL_F64, &[30], a.v.iter().zip(&b.v).map(|(p, q)| V::F64(p.f() - 2.0 * q.f())).collect())
    };
    assert_close("u - 2u", &same, &want(&x, &x), 0.0);
    assert_close("u - 2v", &different, &want(&x, &y), 0.0);
    release(&[xh, yh]);
}

/// Replays handing back several outputs: two values of one kernel, one of them declared
/// twice, and an input passed through; with distinct and with aliased inputs. Every replay
/// equals the body's arithmetic exactly.
fn replayed_outputs() {
    let mut rng = rng("replayed_outputs");
    let n = 300;
    let (va, base) = (rand_arr(&mut rng, SL_F32, &[n], -2.0, 2.0, false), live());
    let v = va.upload();
    let mut runs = 0;
    for k in 0..30 {
        let ua = rand_arr(&mut rng, SL_F32, &[n], -2.0, 2.0, false);
        let u = ua.upload();
        // Every third call passes `u` twice (its own entry).
        let (second, sa) = if k % 3 == 0 { (u, &ua) } else { (v, &va) };
        let mut out = [0; 4];
        let (st, mode) = begin("products", &[u, second], &[], &mut out);
        ok(st);
        if mode == SL_MACRO_RECORD {
            runs += 1;
            let (mut a, mut b) = (0, 0);
            ok(sl_mul(u, second, &mut a));
            ok(sl_add(a, u, &mut b));
            out = [b, a, b, second];
            ok(sl_macro_end(out.as_ptr(), 4));
        }
        let a_want: Vec<f32> = f32s(&ua).iter().zip(f32s(sa)).map(|(&p, q)| p * q).collect();
        let b_want: Vec<f32> = a_want.iter().zip(f32s(&ua)).map(|(&p, q)| p + q).collect();
        let arr = |w: Vec<f32>| Arr::new(SL_F32, &[n], w.into_iter().map(V::F32).collect());
        assert_close("u * v + u", &download(out[0]), &arr(b_want.clone()), 0.0);
        assert_close("u * v", &download(out[1]), &arr(a_want), 0.0);
        assert_close("u * v + u, again", &download(out[2]), &arr(b_want), 0.0);
        assert_close("v passed through", &download(out[3]), sa, 0.0);
        // A recording hands back its own arrays (`b` twice, the input itself); a replay
        // makes a new handle per output.
        release(if mode == SL_MACRO_RECORD { &out[..2] } else { &out[..] });
        release(&[u]);
    }
    assert_eq!(runs, 2, "one recording for distinct inputs, one for aliased ones");
    release(&[v]);
    assert_eq!(live(), base, "replays leak no handles");
}

fn nested_sections_and_threads() {
    let mut rng = rng("nested");
    let a = rand_arr(&mut rng, SL_F32, &[100], 0.5, 2.0, false);
    let ah = a.upload();
    let run_outer = |runs: &mut (usize, usize)| -> sl_array {
        let mut out = [0];
        let (st, mode) = begin("outer", &[ah], &[], &mut out);
        ok(st);
        if mode == SL_MACRO_RECORD {
            runs.0 += 1;
            let mut inner = [0];
            let (st, mode) = begin("inner", &[ah], &[], &mut inner);
            ok(st);
            assert_eq!(mode, SL_MACRO_RECORD, "a section inside a recording runs its body");
            runs.1 += 1;
            ok(sl_sqrt(ah, &mut inner[0]));
            ok(sl_macro_end(inner.as_ptr(), 1));
            ok(sl_add_scalar(inner[0], 1.0, &mut out[0]));
            ok(sl_macro_end(out.as_ptr(), 1));
        }
        out[0]
    };
    let mut runs = (0, 0);
    let want = Arr::new(SL_F32, &[100], a.v.iter().map(|v| V::F32((v.f() as f32).sqrt() + 1.0)).collect());
    for _ in 0..3 {
        let r = run_outer(&mut runs);
        assert_close("nested", &download(r), &want, 1.0);
        release(&[r]);
    }
    assert_eq!(runs, (1, 1), "the outer section replays as a whole");

    // A key being recorded on one thread is recorded on another too; the first recording
    // to end is cached.
    let entries = macro_stats().entries;
    let mut out = [0];
    assert_eq!(begin("shared", &[ah], &[], &mut out), (SL_OK, SL_MACRO_RECORD));
    let handle = ah;
    let other = std::thread::spawn(move || {
        let mut o = [0];
        assert_eq!(begin("shared", &[handle], &[], &mut o), (SL_OK, SL_MACRO_RECORD), "{}", last_error().1);
        ok(sl_neg(handle, &mut o[0]));
        ok(sl_macro_end(o.as_ptr(), 1));
        let got = download(o[0]);
        release(&o);
        got
    })
    .join()
    .unwrap();
    let want = Arr::new(SL_F32, &[100], a.v.iter().map(|v| V::F32(-(v.f() as f32))).collect());
    assert_close("recorded on another thread meanwhile", &other, &want, 0.0);
    ok(sl_neg(ah, &mut out[0]));
    ok(sl_macro_end(out.as_ptr(), 1));
    assert_close("recorded on this thread", &download(out[0]), &want, 0.0);
    assert_eq!(macro_stats().entries, entries + 1, "one of the two recordings is cached");
    let replayed = std::thread::spawn(move || {
        let mut o = [0];
        let (st, mode) = begin("shared", &[handle], &[], &mut o);
        ok(st);
        assert_eq!(mode, SL_MACRO_REPLAY, "another thread replays what this one recorded");
        let got = download(o[0]);
        release(&o);
        got
    })
    .join()
    .unwrap();
    assert_close("replayed on another thread", &replayed, &want, 0.0);
    release(&[out[0], ah]);
}

/// Run by `bounded_cache` in a child process with `SLUICE_MACRO_CACHE_ENTRIES=2`.
#[test]
#[ignore = "run by bounded_cache in a child process"]
fn bounded_cache_child() {
    let mut rng = rng("bounded_cache");
    let a = rand_arr(&mut rng, SL_F64, &[50], -1.0, 1.0, false);
    let h = a.upload();
    // Section `k` multiplies by k + 2; returns whether its body ran (it was recorded).
    let section = |k: usize, what: &str| {
        let name = ["a", "b", "c"][k];
        let mut out = [0];
        let (st, mode) = begin(name, &[h], &[], &mut out);
        ok(st);
        if mode == SL_MACRO_RECORD {
            ok(sl_mul_scalar(h, k as f64 + 2.0, &mut out[0]));
            ok(sl_macro_end(out.as_ptr(), 1));
        }
        let want = Arr::new(SL_F64, &[50], a.v.iter().map(|v| V::F64(v.f() * (k as f64 + 2.0))).collect());
        assert_close(&format!("{what}, section {name}"), &download(out[0]), &want, 0.0);
        release(&out);
        mode == SL_MACRO_RECORD
    };
    // Three keys cycling through a cache of two: the least recently used goes each time.
    let runs = (0..3)
        .flat_map(|round| (0..3).map(move |k| (round, k)))
        .filter(|&(r, k)| section(k, &format!("round {r}")))
        .count();
    let s = macro_stats();
    assert_eq!(runs, 9, "a cycle longer than the cache never hits");
    assert!(s.entries == 2 && s.evictions == 7, "{s:?}");
    // The thread remembers the section it replayed last; once the cache has evicted it, the
    // next begin records it again.
    assert!(!section(2, "replayed"), "c is cached");
    assert!(section(0, "after the replay") && section(1, "after the replay"), "a and b were evicted");
    assert!(section(2, "evicted after its replay"), "c was evicted by b");
    assert_eq!(macro_stats().evictions, 10);
    release(&[h]);
}

#[test]
fn bounded_cache() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "bounded_cache_child", "--ignored", "--nocapture", "--test-threads=1"])
        .env("SLUICE_MACRO_CACHE_ENTRIES", "2")
        .output()
        .expect("run the test binary");
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
}

/// Op-by-op evaluation (fusion off) stores every value, but the scalar operands that calls
/// share stay constants: stored, they became arrays from outside the next section using them.
#[test]
fn fusion_off() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "macros", "--nocapture", "--test-threads=1"])
        .env("SLUICE_FUSION", "off")
        .output()
        .expect("run the test binary");
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
}
