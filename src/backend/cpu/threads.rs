//! The worker threads of the CPU executor.

use std::any::Any;
use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::thread::{JoinHandle, Thread};
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
    /// when `serial`, otherwise in pieces taken in turn by the calling thread and the
    /// workers that come to help, until none are left.
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
        // Held while the pieces run, so `stop` waits for the work in hand.
        let pool = self.pool.read_recursive();
        let threads = pool.as_ref().map_or(1, |p| p.current_num_threads());
        let batch = piece_len(n, threads);
        let Some(pool) = pool.as_ref().filter(|_| !serial && threads > 1 && batch < n) else {
            task(0..n);
            return;
        };
        let task: &(dyn Fn(Range<usize>) + Sync) = &task;
        // SAFETY: only the lifetime is erased. `Share::help` calls `task` only for a piece
        // it claimed, and this function returns only once every piece has finished, so no
        // call outlives the borrow; a helper that comes later finds no piece and leaves.
        let task: &'static (dyn Fn(Range<usize>) + Sync) = unsafe { std::mem::transmute(task) };
        let share = Arc::new(Share {
            next: AtomicUsize::new(0),
            done: AtomicUsize::new(0),
            n,
            batch,
            task,
            caller: std::thread::current(),
            panic: Mutex::new(None),
        });
        // Every worker is asked, and the calling thread takes part too: a helper that is
        // not scheduled in time (its core busy) costs nothing, the others take its pieces.
        let helpers = threads.min(n.div_ceil(batch) - 1);
        for _ in 0..helpers {
            let share = share.clone();
            pool.spawn(move || share.help());
        }
        share.help();
        share.wait();
        if let Some(payload) = share.panic.lock().take() {
            std::panic::resume_unwind(payload);
        }
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

/// Tasks per piece for `n` tasks on `threads` threads: several pieces per thread, so a
/// thread that starts late or is descheduled leaves only its current piece to wait for,
/// in runs of consecutive tasks, so claims stay few and each piece streams through
/// contiguous memory the prefetcher can follow.
fn piece_len(n: usize, threads: usize) -> usize {
    (n / (threads * PIECES_PER_THREAD)).clamp(1, 1 << 20)
}

const PIECES_PER_THREAD: usize = 8;

/// One parallel `for_each`: its tasks in pieces of `batch`, claimed in index order by the
/// calling thread and by the pool's threads that come to help. Which thread runs a piece
/// does not change what it computes (reductions keep one partial per task, combined in
/// task order), so results do not depend on how the pieces were taken.
struct Share {
    /// The first task not yet claimed.
    next: AtomicUsize,
    /// Tasks finished.
    done: AtomicUsize,
    n: usize,
    batch: usize,
    task: &'static (dyn Fn(Range<usize>) + Sync),
    /// Woken when the last task finishes.
    caller: Thread,
    /// The first panic of a piece, raised again on the calling thread.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

impl Share {
    /// Runs pieces until none are left unclaimed.
    fn help(&self) {
        loop {
            let first = self.next.fetch_add(self.batch, Ordering::Relaxed);
            if first >= self.n {
                return;
            }
            let piece = first..(first + self.batch).min(self.n);
            let len = piece.len();
            // A panicking piece still counts as finished, so the caller never waits for it.
            if let Err(payload) = catch_unwind(AssertUnwindSafe(|| (self.task)(piece))) {
                self.panic.lock().get_or_insert(payload);
            }
            if self.done.fetch_add(len, Ordering::AcqRel) + len == self.n {
                self.caller.unpark();
            }
        }
    }

    /// Waits on the calling thread until every piece has finished. It parks at once
    /// rather than spin: a piece still running may belong to a thread waiting for this
    /// core.
    fn wait(&self) {
        while self.done.load(Ordering::Acquire) < self.n {
            std::thread::park();
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
