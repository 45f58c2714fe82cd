//! The worker threads of the CPU executor.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::ir::{Result, bail};

pub struct Workers {
    pool: rayon::ThreadPool,
}

impl Workers {
    pub fn new(threads: usize) -> Result<Workers> {
        match rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .thread_name(|i| format!("sluice-cpu-{i}"))
            .build()
        {
            Ok(pool) => Ok(Workers { pool }),
            Err(e) => bail!(Internal, "cannot start the CPU worker threads: {e}"),
        }
    }

    pub fn threads(&self) -> usize {
        self.pool.current_num_threads()
    }

    /// Runs `task` over ranges of task indices covering `0..n`: all on the calling thread
    /// when `serial`, otherwise on every worker, each taking the next range until none
    /// are left.
    pub fn for_each(&self, n: usize, serial: bool, task: impl Fn(Range<usize>) + Sync) {
        if serial || n <= 1 || self.threads() == 1 {
            task(0..n);
            return;
        }
        // Workers claim runs of consecutive tasks: fewer contended claims, and each
        // worker streams through contiguous memory the prefetcher can follow.
        let batch = (n / (self.threads() * 8)).clamp(1, 1 << 20);
        let next = AtomicUsize::new(0);
        self.pool.broadcast(|_| {
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
        self.pool.install(f)
    }
}
