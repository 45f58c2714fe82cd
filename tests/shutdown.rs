//! `sl_shutdown` stops every thread the runtime started before it returns (a loader may
//! unmap the library next), also after other threads made calls, and calls racing it get
//! a clear status or a right value, never a crash. One test function: it counts the
//! process's threads, which tests running beside it would change.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};

use common::*;
use rand::{Rng, SeedableRng};
use sluice::*;

/// The names of this process's threads, leaving out those already ending. The kernel wakes
/// a thread's joiner on that thread's way out, and its entry stays listed until the kernel
/// reaps it (on a loaded machine a time slice or more later); such a thread has left user
/// space for good, which its kernel flags say (PF_EXITING, set before the joiner is woken).
fn thread_names() -> Vec<String> {
    const PF_EXITING: u64 = 0x4;
    std::fs::read_dir("/proc/self/task")
        .expect("list /proc/self/task")
        .filter_map(|t| {
            let task = t.ok()?.path();
            let stat = std::fs::read_to_string(task.join("stat")).ok()?;
            // After the name in parentheses: state, ppid, pgrp, session, tty, tpgid, flags.
            let flags: u64 = stat.rsplit_once(')')?.1.split_whitespace().nth(6)?.parse().ok()?;
            if flags & PF_EXITING != 0 {
                return None;
            }
            std::fs::read_to_string(task.join("comm")).ok()
        })
        .map(|name| name.trim_end().to_string())
        .collect()
}

fn sluice_threads() -> Vec<String> {
    thread_names().into_iter().filter(|n| n.starts_with("sluice")).collect()
}

/// Some work on this thread: element-wise ops, a matmul large enough to run on the
/// worker pool, reads checked against a plain loop.
fn compute(rng: &mut rand::rngs::StdRng) {
    let n = 96;
    let a = rand_arr(rng, SL_F64, &[n, n], -1.0, 1.0, false);
    let b = rand_arr(rng, SL_F64, &[n, n], -1.0, 1.0, false);
    let (ha, hb) = (a.upload(), b.upload());
    let (mut c, mut d, mut s) = (0, 0, 0);
    ok(sl_matmul(ha, hb, &mut c));
    ok(sl_mul_scalar(c, 2.0, &mut d));
    ok(sl_sum(d, SL_ALL_DIMS, &mut s));
    let want: f64 = (0..n)
        .flat_map(|i| (0..n).map(move |j| (i, j)))
        .map(|(i, j)| 2.0 * (0..n).map(|k| a.at(&[i, k]).f() * b.at(&[k, j]).f()).sum::<f64>())
        .sum();
    let got = download(s).v[0].f();
    assert!((got - want).abs() <= 1e-9 * (1.0 + want.abs()), "{got} vs {want}");
    release(&[ha, hb, c, d, s]);
}

#[test]
fn shutdown() {
    let mut rng = rng("shutdown");
    // The threads there are before Sluice starts: the test's own.
    let before = thread_names().len();
    for attempt in 0..30 {
        compute(&mut rng);
        // Other threads use the runtime too (each remembers it).
        let seeds: Vec<u64> = (0..3).map(|_| rng.random()).collect();
        std::thread::scope(|s| {
            for seed in seeds {
                s.spawn(move || compute(&mut rand::rngs::StdRng::seed_from_u64(seed)));
            }
        });
        // A few more after the other threads ended, so their memory of the runtime is stale.
        compute(&mut rng);
        ok(sl_shutdown());
        let left = sluice_threads();
        assert!(left.is_empty(), "attempt {attempt}: threads still running after sl_shutdown: {left:?}");
        let all = thread_names();
        assert_eq!(all.len(), before, "attempt {attempt}: threads after sl_shutdown: {all:?}");
    }
    calls_racing_shutdown(&mut rng);
    let left = sluice_threads();
    assert!(left.is_empty(), "threads still running after the races: {left:?}");
}

/// Threads keep computing while this one shuts the runtime down again and again: each of
/// their calls succeeds with the right value or fails with a clear status.
fn calls_racing_shutdown(rng: &mut rand::rngs::StdRng) {
    let stop = AtomicBool::new(false);
    let seeds: Vec<u64> = (0..4).map(|_| rng.random()).collect();
    let outcomes = std::thread::scope(|s| {
        let workers: Vec<_> = seeds
            .into_iter()
            .map(|seed| {
                let stop = &stop;
                s.spawn(move || {
                    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
                    let (mut computed, mut refused) = (0, 0);
                    while !stop.load(Ordering::Relaxed) {
                        match race_once(&mut rng) {
                            Ok(()) => computed += 1,
                            Err(_) => refused += 1,
                        }
                    }
                    (computed, refused)
                })
            })
            .collect();
        for _ in 0..20 {
            std::thread::sleep(std::time::Duration::from_millis(rng.random_range(1..20)));
            ok(sl_shutdown());
        }
        stop.store(true, Ordering::Relaxed);
        workers.into_iter().map(|w| w.join().expect("a racing thread panicked")).collect::<Vec<_>>()
    });
    ok(sl_shutdown());
    eprintln!("calls racing shutdown, (computed, refused) per thread: {outcomes:?}");
    assert!(outcomes.iter().any(|&(c, _)| c > 0), "some work got done");
}

/// One small computation; a failure must be one that a shutdown explains.
fn race_once(rng: &mut rand::rngs::StdRng) -> Result<(), sl_status> {
    let n = rng.random_range(1..3000);
    let x = rand_arr(rng, SL_F64, &[n], -1.0, 1.0, false);
    let s = rng.random_range(-2.0..2.0);
    let check = |st: sl_status| -> Result<(), sl_status> {
        match st {
            SL_OK => Ok(()),
            SL_ERR_INVALID_HANDLE | SL_ERR_INVALID_STATE | SL_ERR_POISONED => {
                let (_, msg) = last_error();
                let clear = ["invalid handle", "shut down"].iter().any(|w| msg.contains(w));
                assert!(clear, "status {st} with a message that does not say why: {msg}");
                Err(st)
            }
            _ => panic!("unexpected status {st}: {}", last_error().1),
        }
    };
    let dims = [x.shape[0] as i64];
    let bytes = x.bytes();
    let (mut h, mut y, mut t) = (0, 0, 0);
    check(sl_create(SL_F64, 1, dims.as_ptr(), SL_COL_MAJOR, bytes.as_ptr().cast(), bytes.len(), &mut h))?;
    let result = (|| {
        check(sl_mul_scalar(h, s, &mut y))?;
        check(sl_sum(y, SL_ALL_DIMS, &mut t))?;
        let mut got = 0f64;
        check(sl_read(t, SL_COL_MAJOR, (&mut got as *mut f64).cast(), 8))?;
        let want: f64 = x.v.iter().map(|v| v.f() * s).sum();
        assert!((got - want).abs() <= 1e-12 * (1.0 + want.abs()), "{got} vs {want}");
        Ok(())
    })();
    // Released from whichever runtime they belong to; after a shutdown they are stale.
    for a in [h, y, t] {
        if a != 0 {
            let st = sl_release(a);
            assert!(st == SL_OK || st == SL_ERR_INVALID_HANDLE, "release: {st}");
        }
    }
    result
}
