//! Many application threads issuing ops and reads at once, on shared and private arrays,
//! each with its own scopes; every result is checked. The stress test adds handles
//! released while other threads use them and sections every thread records at once,
//! under a watchdog, with the process's memory sampled.

mod common;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use common::reference as r;
use common::*;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use sluice::*;

#[test]
fn many_threads_issue_ops_and_reads() {
    let mut rng = rng("many_threads_issue_ops_and_reads");
    let shared = rand_arr(&mut rng, SL_F64, &[3000], -2.0, 2.0, false);
    let hs = shared.upload();
    let seeds: Vec<u64> = (0..8).map(|_| rng.random()).collect();
    std::thread::scope(|scope| {
        for (t, seed) in seeds.into_iter().enumerate() {
            let shared = &shared;
            scope.spawn(move || {
                let mut rng = StdRng::seed_from_u64(seed);
                for it in 0..60 {
                    ok(sl_scope_begin());
                    let mine = rand_arr(&mut rng, SL_F64, &[3000], -2.0, 2.0, false);
                    let hm = mine.upload();
                    let (op, s) =
                        ([SL_ADD, SL_MUL, SL_SUB, SL_MAX][rng.random_range(0..4)], rng.random_range(-3.0..3.0));
                    let (mut a, mut b, mut c, mut total) = (0, 0, 0, 0);
                    ok(sl_binary(op, hm, hs, &mut a));
                    ok(sl_mul_scalar(a, s, &mut b));
                    ok(sl_tanh(b, &mut c));
                    ok(sl_sum(c, SL_ALL_DIMS, &mut total));
                    let want_c = r::map1(&r::map2(&mine, shared, |x, y| r::binary(op, x, y)), |v| {
                        r::unary(SL_TANH, r::binary(SL_MUL, v, V::F64(s)))
                    });
                    // Read the element-wise result and the sum, in an order that varies.
                    if it % 2 == 0 {
                        assert_close(
                            &format!("thread {t} it {it}"),
                            &download(c),
                            &want_c,
                            max_ulps(Inexact::Unary(SL_TANH), SL_F64),
                        );
                    }
                    let got = download(total).v[0].f();
                    let want: f64 = want_c.v.iter().map(|v| v.f()).sum();
                    assert!((got - want).abs() < 1e-9, "thread {t} it {it}: {got} vs {want}");
                    ok(sl_scope_end());
                }
            });
        }
    });
    release(&[hs]);
}

// ---------------------------------------------------------------------------------------
// Stress: many calls per thread on private and shared arrays, handles released while
// other threads use them, one macro section begun by every thread at once; a watchdog,
// and the process's memory sampled throughout.

const THREADS: usize = 8;
/// Calls each thread makes (`SLUICE_TEST_THREAD_CALLS` changes it).
const CALLS_PER_THREAD: usize = 100_000;
/// Past this the workload has hung: the watchdog ends the process with what each thread
/// had done (generous: the test machines are shared).
const DEADLINE: Duration = Duration::from_secs(600);
/// How much the resident set may grow from 30% of the calls (caches warm, pools sized) to
/// the end of the run.
const RSS_GROWTH_BOUND: usize = 24 << 20;
/// Length of the shared arrays and of the arrays combined with them.
const SHARED_LEN: usize = 1000;
/// Places where threads publish handles for the others to use (and release).
const SLOTS: usize = 8;

/// An array some thread published: any thread may use it until one takes it out and
/// releases it.
#[derive(Clone)]
struct Published {
    handle: sl_array,
    values: Arc<Vec<f64>>,
}

struct Shared {
    a: (sl_array, Vec<f64>),
    b: (sl_array, Vec<f64>),
    /// a * b, not computed until the threads all read it at once.
    product: sl_array,
    slots: Mutex<Vec<Option<Published>>>,
    /// Calls made, per thread (read by the watchdog and the memory sampler).
    calls: Vec<AtomicUsize>,
    start: Barrier,
}

impl Shared {
    fn total_calls(&self) -> usize {
        self.calls.iter().map(|c| c.load(Ordering::Relaxed)).sum()
    }
}

/// Ends the process with a message when it is not dropped before `DEADLINE`.
struct Watchdog {
    done: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Watchdog {
    fn start(what: &'static str, shared: Arc<Shared>) -> Watchdog {
        let done = Arc::new(AtomicBool::new(false));
        let finished = done.clone();
        let thread = std::thread::spawn(move || {
            let start = Instant::now();
            while !finished.load(Ordering::Acquire) {
                if start.elapsed() > DEADLINE {
                    let calls: Vec<usize> = shared.calls.iter().map(|c| c.load(Ordering::Relaxed)).collect();
                    eprintln!("{what}: still running after {DEADLINE:?}; calls made per thread: {calls:?}");
                    std::process::exit(3);
                }
                std::thread::park_timeout(Duration::from_millis(100));
            }
        });
        Watchdog { done, thread: Some(thread) }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.done.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

/// This process's resident set in bytes.
fn rss() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("read /proc/self/statm");
    let pages: usize = statm.split_whitespace().nth(1).and_then(|p| p.parse().ok()).expect("resident pages");
    pages * 4096
}

/// One application thread of the stress test.
struct Worker<'a> {
    t: usize,
    rng: StdRng,
    shared: &'a Shared,
    calls: usize,
    /// Arrays this thread saw published, to use later.
    seen: VecDeque<Published>,
    /// Uses of published handles that another thread had released meanwhile.
    stale: usize,
}

impl Worker<'_> {
    fn counted(&mut self, st: sl_status) -> sl_status {
        self.calls += 1;
        self.shared.calls[self.t].store(self.calls, Ordering::Relaxed);
        st
    }

    #[track_caller]
    fn ok(&mut self, st: sl_status) {
        let st = self.counted(st);
        if st != SL_OK {
            panic!("thread {}: call {} failed with {st}: {}", self.t, self.calls, last_error().1);
        }
    }

    /// A call on a published handle: false when another thread had released it.
    #[track_caller]
    fn maybe_stale(&mut self, st: sl_status) -> bool {
        match self.counted(st) {
            SL_OK => true,
            SL_ERR_INVALID_HANDLE => {
                let msg = last_error().1;
                assert!(msg.contains("released"), "thread {}: {msg}", self.t);
                self.stale += 1;
                false
            }
            st => panic!("thread {}: a published handle gave {st}: {}", self.t, last_error().1),
        }
    }

    fn upload(&mut self, v: &[f64], dims: &[i64]) -> sl_array {
        let mut h = 0;
        self.ok(sl_create(
            SL_F64,
            dims.len() as i32,
            dims.as_ptr(),
            SL_COL_MAJOR,
            v.as_ptr().cast(),
            v.len() * 8,
            &mut h,
        ));
        h
    }

    fn random(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.rng.random_range(-2.0..2.0)).collect()
    }

    fn read_status(&mut self, h: sl_array, n: usize) -> (sl_status, Vec<f64>) {
        let mut v = vec![0f64; n];
        let st = sl_read(h, SL_COL_MAJOR, v.as_mut_ptr().cast(), n * 8);
        (st, v)
    }

    #[track_caller]
    fn read(&mut self, h: sl_array, n: usize) -> Vec<f64> {
        let (st, v) = self.read_status(h, n);
        self.ok(st);
        v
    }

    #[track_caller]
    fn check(&self, what: &str, got: &[f64], want: &[f64]) {
        // Element-wise results are rounded once per op, in the reference's order.
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert!((g - w).abs() <= 2.0 * f64::EPSILON * w.abs(), "thread {} {what}[{i}]: {g} vs {w}", self.t);
        }
    }

    #[track_caller]
    fn check_sum(&self, what: &str, got: f64, terms: &[f64]) {
        let want: f64 = terms.iter().sum();
        let scale: f64 = terms.iter().map(|x| x.abs()).sum();
        assert!((got - want).abs() <= 1e-13 * (1.0 + scale), "thread {} {what}: {got} vs {want}", self.t);
    }

    fn run(&mut self, calls: usize) {
        self.shared.start.wait();
        // All at once: the same section recorded by every thread, the same pending
        // product read by every thread.
        self.section("threads-step-start");
        let product = self.read(self.shared.product, SHARED_LEN);
        let want: Vec<f64> = self.shared.a.1.iter().zip(&self.shared.b.1).map(|(x, y)| x * y).collect();
        self.check("a * b", &product, &want);
        let mut round = 0;
        while self.calls < calls {
            round += 1;
            match self.rng.random_range(0..10) {
                0..=2 => self.private_arrays(),
                3..=4 => self.shared_arrays(),
                5..=7 => self.published(),
                // A new name now and then: threads record it about the same time.
                _ => self.section(&format!("threads-step-{}", round / 400)),
            }
        }
    }

    fn private_arrays(&mut self) {
        let n = self.rng.random_range(1..4000);
        let x = self.random(n);
        let s = self.rng.random_range(-3.0..3.0);
        let op = [SL_ADD, SL_SUB, SL_MUL, SL_MAX][self.rng.random_range(0..4)];
        self.ok(sl_scope_begin());
        let hx = self.upload(&x, &[n as i64]);
        let (mut y, mut z, mut total) = (0, 0, 0);
        self.ok(sl_mul_scalar(hx, s, &mut y));
        self.ok(sl_binary(op, y, hx, &mut z));
        self.ok(sl_sum(z, SL_ALL_DIMS, &mut total));
        let want: Vec<f64> = x
            .iter()
            .map(|&v| {
                let y = v * s;
                match op {
                    SL_ADD => y + v,
                    SL_SUB => y - v,
                    SL_MUL => y * v,
                    _ => y.max(v),
                }
            })
            .collect();
        if self.rng.random_bool(0.5) {
            let got = self.read(z, n);
            self.check("private z", &got, &want);
        }
        let got = self.read(total, 1)[0];
        self.check_sum("private sum", got, &want);
        self.ok(sl_scope_end());
    }

    fn shared_arrays(&mut self) {
        let x = self.random(SHARED_LEN);
        let (a, b) = (self.shared.a.0, self.shared.b.0);
        self.ok(sl_scope_begin());
        let hx = self.upload(&x, &[SHARED_LEN as i64]);
        let (mut z, mut w, mut total) = (0, 0, 0);
        self.ok(sl_add(hx, a, &mut z));
        self.ok(sl_mul(z, b, &mut w));
        self.ok(sl_sum(w, SL_ALL_DIMS, &mut total));
        let want: Vec<f64> =
            x.iter().zip(&self.shared.a.1).zip(&self.shared.b.1).map(|((x, a), b)| (x + a) * b).collect();
        let got = self.read(w, SHARED_LEN);
        self.check("(x + a) * b", &got, &want);
        let got = self.read(total, 1)[0];
        self.check_sum("sum((x + a) * b)", got, &want);
        // Reads of the shared arrays themselves, concurrent with other threads' uses.
        let (which, want) = if self.rng.random_bool(0.5) { (a, &self.shared.a.1) } else { (b, &self.shared.b.1) };
        let got = self.read(which, SHARED_LEN);
        self.check("shared", &got, want);
        self.ok(sl_scope_end());
    }

    /// Publishes an array, uses one another thread published, or takes one out and
    /// releases it: releases race with other threads' uses.
    fn published(&mut self) {
        let k = self.rng.random_range(0..SLOTS);
        match self.rng.random_range(0..10) {
            0..=3 => {
                let n = self.rng.random_range(1..2000);
                let v = self.random(n);
                let handle = self.upload(&v, &[n as i64]);
                let old = self.shared.slots.lock().unwrap()[k].replace(Published { handle, values: Arc::new(v) });
                if let Some(old) = old {
                    self.ok(sl_release(old.handle));
                }
            }
            4..=8 => {
                // An array just published, or one seen a while ago (likely released since).
                let fresh = self.shared.slots.lock().unwrap()[k].clone();
                if let Some(p) = &fresh {
                    self.seen.push_back(p.clone());
                }
                let old = if self.seen.len() > 4 { self.seen.pop_front() } else { None };
                let Some(p) = (if self.rng.random_bool(0.5) { fresh } else { old }) else { return };
                let n = p.values.len();
                if self.rng.random_bool(0.5) {
                    let (st, got) = self.read_status(p.handle, n);
                    if self.maybe_stale(st) {
                        self.check("published", &got, &p.values);
                    }
                } else {
                    let mut neg = 0;
                    if self.maybe_stale(sl_neg(p.handle, &mut neg)) {
                        // The new array keeps what it was made from, released or not.
                        let got = self.read(neg, n);
                        let want: Vec<f64> = p.values.iter().map(|v| -v).collect();
                        self.check("-published", &got, &want);
                        self.ok(sl_release(neg));
                    }
                }
            }
            _ => {
                let taken = self.shared.slots.lock().unwrap()[k].take();
                if let Some(p) = taken {
                    self.ok(sl_release(p.handle));
                }
            }
        }
    }

    /// A section every thread runs under the same name: `x * 0.5 + a`, or `- a` under
    /// the other control value.
    fn section(&mut self, name: &str) {
        let x = self.random(SHARED_LEN);
        let control = if self.rng.random_bool(0.5) { 1.0 } else { -1.0 };
        let a = self.shared.a.0;
        self.ok(sl_scope_begin());
        let hx = self.upload(&x, &[SHARED_LEN as i64]);
        let inputs = [hx, a];
        let name = std::ffi::CString::new(name).unwrap();
        let (mut out, mut mode) = ([0], -1);
        let st = sl_macro_begin(name.as_ptr(), inputs.as_ptr(), 2, &control, 1, out.as_mut_ptr(), 1, &mut mode);
        self.ok(st);
        if mode == SL_MACRO_RECORD {
            let mut half = 0;
            self.ok(sl_mul_scalar(hx, 0.5, &mut half));
            let st = if control > 0.0 { sl_add(half, a, &mut out[0]) } else { sl_sub(half, a, &mut out[0]) };
            self.ok(st);
            self.ok(sl_macro_end(out.as_ptr(), 1));
        }
        let got = self.read(out[0], SHARED_LEN);
        let want: Vec<f64> = x.iter().zip(&self.shared.a.1).map(|(x, a)| x * 0.5 + control * a).collect();
        self.check(&format!("section {name:?}"), &got, &want);
        self.ok(sl_scope_end());
    }
}

/// Runs the stress workload; returns the resident set sampled at each tenth of the calls.
fn stress(calls: usize) -> Vec<usize> {
    let mut rng = rng("threads_stress");
    let upload = |v: &[f64]| {
        let (mut h, dims) = (0, [v.len() as i64]);
        ok(sl_create(SL_F64, 1, dims.as_ptr(), SL_COL_MAJOR, v.as_ptr().cast(), v.len() * 8, &mut h));
        h
    };
    let va: Vec<f64> = (0..SHARED_LEN).map(|_| rng.random_range(-2.0..2.0)).collect();
    let vb: Vec<f64> = (0..SHARED_LEN).map(|_| rng.random_range(-2.0..2.0)).collect();
    let (a, b) = (upload(&va), upload(&vb));
    let mut product = 0;
    ok(sl_mul(a, b, &mut product));
    let shared = Arc::new(Shared {
        a: (a, va),
        b: (b, vb),
        product,
        slots: Mutex::new(vec![None; SLOTS]),
        calls: (0..THREADS).map(|_| AtomicUsize::new(0)).collect(),
        start: Barrier::new(THREADS),
    });
    let _watchdog = Watchdog::start("threads_stress", shared.clone());
    let seeds: Vec<u64> = (0..THREADS).map(|_| rng.random()).collect();
    let started = Instant::now();
    let mut samples = Vec::new();
    let stale: usize = std::thread::scope(|s| {
        let workers: Vec<_> = seeds
            .into_iter()
            .enumerate()
            .map(|(t, seed)| {
                let shared = &*shared;
                s.spawn(move || {
                    let rng = StdRng::seed_from_u64(seed);
                    let mut w = Worker { t, rng, shared, calls: 0, seen: VecDeque::new(), stale: 0 };
                    w.run(calls);
                    w.stale
                })
            })
            .collect();
        while workers.iter().any(|w| !w.is_finished()) {
            if shared.total_calls() * 10 >= (samples.len() + 1) * calls * THREADS {
                samples.push(rss());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        workers.into_iter().map(|w| w.join().expect("a worker failed")).sum()
    });
    samples.push(rss());
    eprintln!(
        "threads_stress: {THREADS} threads x {calls} calls in {:.1} s; {stale} uses of handles released meanwhile; resident MiB at each tenth: {:?}",
        started.elapsed().as_secs_f64(),
        samples.iter().map(|b| b >> 20).collect::<Vec<_>>()
    );
    for p in shared.slots.lock().unwrap().drain(..).flatten() {
        ok(sl_release(p.handle));
    }
    release(&[a, b, product]);
    samples
}

/// Run by `threads_stress` in a process of its own, so the memory it samples is the
/// workload's alone.
#[test]
#[ignore = "run by threads_stress in a child process"]
fn threads_stress_child() {
    let calls = std::env::var("SLUICE_TEST_THREAD_CALLS").ok().and_then(|s| s.parse().ok()).unwrap_or(CALLS_PER_THREAD);
    let base = {
        let mut n = 0;
        ok(sl_live_handles(&mut n));
        n
    };
    let samples = stress(calls);
    let mut live = 0;
    ok(sl_live_handles(&mut live));
    assert_eq!(live, base, "every handle made was released");
    let warm = samples[samples.len().min(3) - 1];
    let end = *samples.last().unwrap();
    assert!(
        end <= warm + RSS_GROWTH_BOUND,
        "resident set grew by {} MiB after warming up (bound {} MiB); samples {samples:?}",
        (end - warm) >> 20,
        RSS_GROWTH_BOUND >> 20
    );
}

#[test]
fn threads_stress() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "threads_stress_child", "--ignored", "--nocapture", "--test-threads=1"])
        .output()
        .expect("run the test binary");
    let log = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    eprintln!("{log}");
    assert!(out.status.success(), "the stress run failed: {log}");
}
