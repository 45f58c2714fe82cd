//! The worker threads of the CPU executor.

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::ir::{Result, bail};

pub struct Workers {
    pool: Option<rayon::ThreadPool>,
    /// Worker threads still running, so dropping the pool can wait for them.
    running: Arc<(Mutex<usize>, Condvar)>,
}

impl Workers {
    pub fn new(threads: usize) -> Result<Workers> {
        let n = threads.max(1);
        let running = Arc::new((Mutex::new(n), Condvar::new()));
        let exited = running.clone();
        match rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .thread_name(|i| format!("sluice-cpu-{i}"))
            .exit_handler(move |_| {
                *exited.0.lock() -= 1;
                exited.1.notify_all();
            })
            .build()
        {
            Ok(pool) => Ok(Workers { pool: Some(pool), running }),
            Err(e) => bail!(Internal, "cannot start the CPU worker threads: {e}"),
        }
    }

    fn pool(&self) -> &rayon::ThreadPool {
        self.pool.as_ref().expect("the pool lives until drop")
    }

    pub fn threads(&self) -> usize {
        self.pool().current_num_threads()
    }

    /// Runs `task` over ranges of task indices covering `0..n`: all on the calling thread
    /// when `serial`, otherwise on every worker, each taking the next range until none
    /// are left.
    /// With profiling on, the time spent in `task` is added to the step's CPU time.
    pub fn for_each(&self, n: usize, serial: bool, task: impl Fn(Range<usize>) + Sync) {
        let busy = AtomicU64::new(0);
        let timed = crate::profile::enabled();
        let task = |r: Range<usize>| {
            if timed {
                busy.fetch_add(time(|| task(r)), Ordering::Relaxed);
            } else {
                task(r)
            }
        };
        self.spread(n, serial, task);
        if timed {
            crate::profile::add_cpu_time(busy.into_inner());
        }
    }

    /// Runs `task` once on the calling thread (a launch too small to share); with
    /// profiling on, its time is added to the step's CPU time.
    pub fn run_here(&self, task: impl FnOnce()) {
        if crate::profile::enabled() {
            crate::profile::add_cpu_time(time(task));
        } else {
            task()
        }
    }

    fn spread(&self, n: usize, serial: bool, task: impl Fn(Range<usize>) + Sync) {
        if serial || n <= 1 || self.threads() == 1 {
            task(0..n);
            return;
        }
        // Workers claim runs of consecutive tasks: fewer contended claims, and each
        // worker streams through contiguous memory the prefetcher can follow.
        let batch = (n / (self.threads() * 8)).clamp(1, 1 << 20);
        let next = AtomicUsize::new(0);
        self.pool().broadcast(|_| {
            loop {
                let first = next.fetch_add(batch, Ordering::Relaxed);
                if first >= n {
                    break;
                }
                task(first..(first + batch).min(n));
            }
        });
    }

    /// Runs `f` inside the pool, so libraries that use rayon (gemm) use these threads.
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        self.pool().install(f)
    }
}

/// Nanoseconds `task` took.
fn time(task: impl FnOnce()) -> u64 {
    let start = Instant::now();
    task();
    start.elapsed().as_nanos() as u64
}

/// Rayon lets its threads exit after the pool is gone; the runtime's shutdown waits for
/// them, so nothing of Sluice is still running when it returns (or when the process exits).
impl Drop for Workers {
    fn drop(&mut self) {
        drop(self.pool.take());
        let (count, exited) = &*self.running;
        let mut n = count.lock();
        while *n > 0 {
            if exited.wait_for(&mut n, Duration::from_secs(5)).timed_out() {
                break;
            }
        }
    }
}
