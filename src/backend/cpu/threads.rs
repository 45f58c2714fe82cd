//! The worker threads of the CPU executor.

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

    /// Runs `task(t)` for every `t < n`: on the calling thread when `serial`, otherwise
    /// on every worker, each taking the next task until none are left.
    pub fn for_each(&self, n: usize, serial: bool, task: impl Fn(usize) + Sync) {
        if serial || n <= 1 || self.threads() == 1 {
            (0..n).for_each(task);
            return;
        }
        let next = AtomicUsize::new(0);
        self.pool.broadcast(|_| {
            loop {
                let t = next.fetch_add(1, Ordering::Relaxed);
                if t >= n {
                    break;
                }
                task(t);
            }
        });
    }

    /// Runs `f` inside the pool, so libraries that use rayon (gemm) use these threads.
    pub fn install<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        self.pool.install(f)
    }
}
