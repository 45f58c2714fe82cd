//! The worker threads of the CPU executor.

use std::any::Any;
use std::ops::Range;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::thread::{JoinHandle, Thread};
use std::time::{Duration, Instant};

use parking_lot::{Mutex, RwLock};

use crate::ir::{Result, bail};

/// The pool, and its threads so that stopping it can join them: rayon lets a worker run
/// on (its exit handler included) after the pool is dropped, and a thread of the library
/// still running after `sl_shutdown` would crash once a loader unmaps the library.
pub struct Workers {
    /// None once stopped: work then runs on the calling thread.
    pool: RwLock<Option<rayon::ThreadPool>>,
    threads: Mutex<Vec<JoinHandle<()>>>,
    board: Arc<Board>,
    /// Helper jobs handed to the pool (each may wake a parked thread).
    #[cfg(test)]
    jobs: AtomicUsize,
}

impl Workers {
    pub fn new(threads: usize) -> Result<Workers> {
        Workers::start(threads, LINGER)
    }

    /// A pool whose helpers stay on the board for `linger` after their last piece.
    fn start(threads: usize, linger: Duration) -> Result<Workers> {
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
        let workers = Workers {
            pool: RwLock::new(None),
            threads: Mutex::new(handles),
            board: Arc::new(Board::new(linger)),
            #[cfg(test)]
            jobs: AtomicUsize::new(0),
        };
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
        // Helpers still lingering after the last launch see this one on the board; only
        // the others are woken through the pool.
        let helpers = threads.min(n.div_ceil(batch) - 1);
        let posted = self.board.post(&share);
        let (seen, dismissals) =
            (self.board.posts.load(Ordering::SeqCst), self.board.dismissals.load(Ordering::SeqCst));
        // A job not started yet will find this launch on the board too: so at most one
        // job per worker waits in the pool, however long the workers are kept from running.
        let coming = if posted {
            self.board.lingering.load(Ordering::SeqCst) + self.board.summoned.load(Ordering::SeqCst)
        } else {
            0
        };
        for _ in 0..helpers.saturating_sub(coming) {
            #[cfg(test)]
            self.jobs.fetch_add(1, Ordering::Relaxed);
            self.board.summoned.fetch_add(1, Ordering::SeqCst);
            let (share, board) = (share.clone(), self.board.clone());
            pool.spawn(move || {
                board.summoned.fetch_sub(1, Ordering::SeqCst);
                share.help();
                drop(share);
                board.linger(seen, dismissals);
            });
        }
        share.help();
        share.wait();
        if posted {
            self.board.clear();
        }
        if let Some(payload) = share.panic.lock().take() {
            std::panic::resume_unwind(payload);
        }
    }

    /// Runs `f` inside the pool, so libraries that use rayon (gemm) use these threads;
    /// `f` gets the number of threads it may use (1 once stopped: then it runs on the
    /// calling thread, and must not start rayon's global pool).
    pub fn install<R: Send>(&self, f: impl FnOnce(usize) -> R + Send) -> R {
        // A helper lingering on the board would hold its pool thread from `f`.
        self.board.dismiss();
        match self.pool.read_recursive().as_ref() {
            Some(pool) => pool.install(|| f(pool.current_num_threads())),
            None => f(1),
        }
    }

    /// Stops the pool and waits until its threads have ended. Later work runs on the
    /// calling thread.
    pub fn stop(&self) {
        self.board.dismiss();
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

    /// Waits on the calling thread until every piece has finished: yielding for a while
    /// (the last pieces usually end within microseconds, sooner than a park and unpark
    /// take; a piece still running may belong to a thread waiting for this core, which
    /// the yield lets run), then parked.
    fn wait(&self) {
        let start = Instant::now();
        while self.done.load(Ordering::Acquire) < self.n {
            if start.elapsed() < WAIT_YIELDING {
                std::thread::yield_now();
            } else {
                std::thread::park();
            }
        }
    }
}

/// How long a helper stays on the board after its last piece: a loop's launches come
/// closer together than this, and waking a parked thread (a futex, and on a VM the idle
/// core) can cost as much as a mid-size launch's work. The yielding keeps the core busy,
/// so the other threads of the loop (the application's, the execution thread) are woken
/// on a running core too.
const LINGER: Duration = Duration::from_micros(100);

/// How long a launching thread yields for its helpers' last pieces before it parks.
const WAIT_YIELDING: Duration = Duration::from_micros(50);

/// Where a launch leaves its pieces for the helpers that linger after an earlier one, so
/// that back-to-back launches do not wake parked threads.
struct Board {
    /// The launch in progress, if it was posted (one at a time).
    current: Mutex<Option<Arc<Share>>>,
    /// Counts posts, so a lingering helper sees a new launch by reading one word.
    posts: AtomicU64,
    /// Helpers on the board now.
    lingering: AtomicUsize,
    /// Helper jobs handed to the pool and not started yet.
    summoned: AtomicUsize,
    /// Counts dismissals: a helper leaves when this changes.
    dismissals: AtomicU64,
    /// How long a helper stays after its last piece (`LINGER`).
    linger: Duration,
}

impl Board {
    fn new(linger: Duration) -> Board {
        Board {
            current: Mutex::new(None),
            posts: AtomicU64::new(0),
            lingering: AtomicUsize::new(0),
            summoned: AtomicUsize::new(0),
            dismissals: AtomicU64::new(0),
            linger,
        }
    }

    /// Puts `share` on the board; false if another launch has it.
    fn post(&self, share: &Arc<Share>) -> bool {
        let mut current = self.current.lock();
        if current.is_some() {
            return false;
        }
        *current = Some(share.clone());
        self.posts.fetch_add(1, Ordering::SeqCst);
        true
    }

    fn clear(&self) {
        self.current.lock().take();
    }

    fn dismiss(&self) {
        self.dismissals.fetch_add(1, Ordering::SeqCst);
    }

    /// Run by a pool thread after helping: takes pieces of each launch posted after the
    /// `seen`-th, for up to `linger` after the last, yielding between looks so a thread
    /// waiting for this core runs, then goes back to the pool. A job handed out before a
    /// dismissal (the `dismissals`-th) and run after it leaves at once, so `stop` does
    /// not wait a whole `linger` for each job still in the pool.
    fn linger(&self, mut seen: u64, dismissals: u64) {
        // Counted before looking at the posts: a launch that counts this helper (and so
        // hands it no job) posted before that count, and the first look sees its post.
        self.lingering.fetch_add(1, Ordering::SeqCst);
        let mut since = Instant::now();
        loop {
            let posts = self.posts.load(Ordering::SeqCst);
            if posts != seen {
                seen = posts;
                self.help_current();
                since = Instant::now();
            } else if since.elapsed() >= self.linger || self.dismissals.load(Ordering::SeqCst) != dismissals {
                break;
            } else {
                std::thread::yield_now();
            }
        }
        self.lingering.fetch_sub(1, Ordering::SeqCst);
        // Likewise a launch that counted this helper just before it left.
        if self.posts.load(Ordering::SeqCst) != seen {
            self.help_current();
        }
    }

    fn help_current(&self) {
        let share = self.current.lock().clone();
        if let Some(share) = share {
            share.help();
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a launch of `n` tasks, each adding its index to its slot; checks every task ran once.
    fn launch(w: &Workers, n: usize) {
        let slots: Vec<AtomicUsize> = (0..n).map(|_| AtomicUsize::new(0)).collect();
        w.for_each(n, false, |r| {
            for t in r {
                slots[t].fetch_add(t + 1, Ordering::Relaxed);
            }
        });
        for (t, s) in slots.iter().enumerate() {
            assert_eq!(s.load(Ordering::Relaxed), t + 1, "task {t} of {n} ran once");
        }
    }

    #[test]
    fn back_to_back_launches_find_lingering_helpers() {
        // Lingering long (a loaded machine may not run a helper for milliseconds, and each
        // of its yields may give the core away as long), so once both helpers have run,
        // every later launch finds them on the board.
        let w = Workers::start(2, Duration::from_secs(30)).unwrap();
        let launches = 2000;
        for i in 0..launches {
            launch(&w, 64 + i % 300);
        }
        // Without lingering every launch hands each worker a job.
        let jobs = w.jobs.load(Ordering::Relaxed);
        assert!(jobs < launches, "{jobs} pool jobs for {launches} launches of 2 helpers each");
        // Dropping the pool dismisses them.
    }

    #[test]
    fn concurrent_launches_and_pool_work_after_lingering() {
        let w = Workers::new(2).unwrap();
        std::thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| (0..300).for_each(|i| launch(&w, 100 + i)));
            }
        });
        launch(&w, 1000);
        // The pool's own work (gemm's) runs while helpers may still linger.
        assert_eq!(w.install(|threads| threads), 2);
        launch(&w, 1000);
        w.stop();
        launch(&w, 1000);
    }

    #[test]
    fn a_panicking_piece_is_raised_on_the_launching_thread() {
        let w = Workers::new(2).unwrap();
        launch(&w, 500);
        let caught = catch_unwind(AssertUnwindSafe(|| {
            w.for_each(500, false, |r| assert!(!r.contains(&321), "piece with task 321"))
        }));
        assert!(caught.is_err());
        launch(&w, 500);
    }
}
