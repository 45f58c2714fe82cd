//! The worker threads of the CPU executor.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::thread::JoinHandle;
use std::time::Instant;

use parking_lot::{Mutex, RwLock};

use crate::ir::{Result, bail};

/// The pool, and its threads so that stopping it can join them: rayon lets a worker run
/// on (its exit handler included) after the pool is dropped, and a thread of the library
/// still running after `sl_shutdown` would crash once a loader unmaps the library.
pub struct Workers {
    /// None once stopped: work then runs on the calling thread.
    pool: RwLock<Option<rayon::ThreadPool>>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl Workers {
    pub fn new(threads: usize) -> Result<Workers> {
        let mut handles = Vec::new();
        let built = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .thread_name(|i| format!("sluice-cpu-{i}"))
            .spawn_handler(|thread| {
                let mut builder = std::thread::Builder::new();
                if let Some(name) = thread.name() {
                    builder = builder.name(name.to_owned());
                }
                if let Some(size) = thread.stack_size() {
                    builder = builder.stack_size(size);
                }
                handles.push(builder.spawn(|| thread.run())?);
                Ok(())
            })
            .build();
        let workers = Workers { pool: RwLock::new(None), threads: Mutex::new(handles) };
        match built {
            Ok(pool) => {
                *workers.pool.write() = Some(pool);
                Ok(workers)
            }
            // Dropping `workers` joins the threads that did start.
            Err(e) => bail!(Internal, "cannot start the CPU worker threads: {e}"),
        }
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
        // Held while the workers run, so `stop` waits for the work in hand.
        let pool = self.pool.read_recursive();
        let Some(pool) = pool.as_ref().filter(|p| !serial && n > 1 && p.current_num_threads() > 1) else {
            task(0..n);
            return;
        };
        // Workers claim runs of consecutive tasks: fewer contended claims, and each
        // worker streams through contiguous memory the prefetcher can follow.
        let batch = (n / (pool.current_num_threads() * 8)).clamp(1, 1 << 20);
        let next = AtomicUsize::new(0);
        pool.broadcast(|_| {
            loop {
                let first = next.fetch_add(batch, Ordering::Relaxed);
                if first >= n {
                    break;
                }
                task(first..(first + batch).min(n));
            }
        });
    }

    /// Runs `f` inside the pool, so libraries that use rayon (gemm) use these threads;
    /// `f` gets the number of threads it may use (1 once stopped: then it runs on the
    /// calling thread, and must not start rayon's global pool).
    pub fn install<R: Send>(&self, f: impl FnOnce(usize) -> R + Send) -> R {
        match self.pool.read_recursive().as_ref() {
            Some(pool) => pool.install(|| f(pool.current_num_threads())),
            None => f(1),
        }
    }

    /// Stops the pool and waits until its threads have ended. Later work runs on the
    /// calling thread.
    pub fn stop(&self) {
        drop(self.pool.write().take());
        let me = std::thread::current().id();
        for t in std::mem::take(&mut *self.threads.lock()) {
            // A worker never ends the runtime, but joining itself would hang.
            if t.thread().id() != me {
                let _ = t.join();
            }
        }
    }
}

/// Nanoseconds `task` took.
fn time(task: impl FnOnce()) -> u64 {
    let start = Instant::now();
    task();
    start.elapsed().as_nanos() as u64
}

impl Drop for Workers {
    fn drop(&mut self) {
        self.stop();
    }
}
