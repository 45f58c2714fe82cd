//! The execution scheduler: a thread that runs submitted program sequences in order on
//! one executor, so the application keeps issuing calls while earlier work runs.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{SyncSender, sync_channel};
use std::thread::JoinHandle;

use parking_lot::{Condvar, Mutex};

use super::{Executor, ProgramSequence, Step, StepCall, StepOutcome, StepValues, Work, execute_into};
use crate::ir::{Error, ErrorKind};

/// Outstanding work is counted atomically, without the lock: a replay run inline claims
/// and ends it every time. The lock and condition variable only serve `wait_idle`.
#[derive(Default)]
struct Shared {
    /// Sequences submitted and not yet finished (an inline run counts as one).
    outstanding: AtomicUsize,
    /// Threads in `wait_idle`: `end` takes the lock to wake them only when there are any.
    waiters: AtomicUsize,
    lock: Mutex<()>,
    idle: Condvar,
    counters: Counters,
}

/// What the engine has run.
#[derive(Default)]
pub struct Counters {
    /// Sequences the execution thread ran; `sequences()` adds those run inline.
    pub queued_sequences: AtomicU64,
    pub inline_sequences: AtomicU64,
    pub kernels: AtomicU64,
    pub intrinsics: AtomicU64,
    pub failed_steps: AtomicU64,
}

impl Counters {
    /// Every sequence run, on the execution thread or inline.
    pub fn sequences(&self) -> u64 {
        self.queued_sequences.load(Ordering::Relaxed) + self.inline_sequences.load(Ordering::Relaxed)
    }
}

impl Shared {
    fn begin(&self) {
        self.outstanding.fetch_add(1, Ordering::SeqCst);
    }

    /// Sequentially consistent with `wait`: either it sees the waiter, or the waiter
    /// sees the count at 0 and does not sleep.
    fn end(&self) {
        if self.outstanding.fetch_sub(1, Ordering::SeqCst) == 1 && self.waiters.load(Ordering::SeqCst) > 0 {
            let _guard = self.lock.lock();
            self.idle.notify_all();
        }
    }

    /// Counts one run as outstanding if nothing else is.
    fn claim(&self) -> bool {
        self.outstanding.compare_exchange(0, 1, Ordering::SeqCst, Ordering::Relaxed).is_ok()
    }

    fn wait(&self) {
        if self.outstanding.load(Ordering::SeqCst) == 0 {
            return;
        }
        let mut guard = self.lock.lock();
        self.waiters.fetch_add(1, Ordering::SeqCst);
        while self.outstanding.load(Ordering::SeqCst) != 0 {
            self.idle.wait(&mut guard);
        }
        self.waiters.fetch_sub(1, Ordering::SeqCst);
    }
}

pub struct Engine {
    executor: Arc<dyn Executor>,
    shared: Arc<Shared>,
    queue: Mutex<Option<SyncSender<ProgramSequence>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl Engine {
    /// `depth`: how many sequences may wait before `submit` blocks the caller (flow control).
    pub fn new(executor: Arc<dyn Executor>, depth: usize) -> Engine {
        let (tx, rx) = sync_channel::<ProgramSequence>(depth);
        let shared = Arc::new(Shared::default());
        let thread = {
            let executor = executor.clone();
            let shared = shared.clone();
            std::thread::Builder::new()
                .name("sluice-exec".into())
                .spawn(move || {
                    for seq in rx {
                        shared.counters.queued_sequences.fetch_add(1, Ordering::Relaxed);
                        run_sequence(&*executor, seq, &shared.counters);
                        shared.end();
                    }
                })
                .expect("spawn the execution thread")
        };
        Engine { executor, shared, queue: Mutex::new(Some(tx)), thread: Mutex::new(Some(thread)) }
    }

    pub fn executor(&self) -> &Arc<dyn Executor> {
        &self.executor
    }

    pub fn counters(&self) -> &Counters {
        &self.shared.counters
    }

    /// Queues `seq` for the execution thread.
    pub fn submit(&self, seq: ProgramSequence) {
        self.shared.begin();
        let queue = self.queue.lock().clone();
        let unsent = match queue {
            Some(tx) => tx.send(seq).err().map(|e| e.0),
            None => Some(seq),
        };
        if let Some(seq) = unsent {
            // Shut down: nothing will run it, so fail its outputs rather than hang readers.
            let e = Arc::new(Error::new(ErrorKind::InvalidState, "the runtime was shut down"));
            for step in &seq.steps {
                fail(step, e.clone());
            }
            self.shared.end();
        }
    }

    /// Runs `seq` on the calling thread when no other work is outstanding, so a blocking
    /// read of a small result does not pay two thread hand-offs. Returns the sequence
    /// back if the engine is busy.
    pub fn try_run_inline(&self, seq: ProgramSequence) -> Option<ProgramSequence> {
        if !self.claim_idle() {
            return Some(seq);
        }
        run_sequence(&*self.executor, seq, &self.shared.counters);
        self.shared.end();
        None
    }

    /// Runs `f` on the calling thread, as one sequence whose steps `f` runs with
    /// `run_step_now`, when no other work is outstanding; None if the engine is busy. A
    /// replay of a small recorded section runs this way without building a sequence.
    pub fn try_inline<R>(&self, f: impl FnOnce() -> R) -> Option<R> {
        if !self.claim_idle() {
            return None;
        }
        let r = f();
        self.shared.end();
        Some(r)
    }

    /// Counts an inline sequence as outstanding if nothing else is.
    fn claim_idle(&self) -> bool {
        if !self.shared.claim() {
            return false;
        }
        self.shared.counters.inline_sequences.fetch_add(1, Ordering::Relaxed);
        true
    }

    /// Runs one step inside `try_inline`, pushing its outputs onto `values`; or the
    /// error (with its origin) they fail with.
    pub fn run_step_now(&self, step: StepCall, values: &mut StepValues) -> std::result::Result<(), Arc<Error>> {
        let StepCall { work, inputs, params, outputs, site, shares } = step;
        let counters = &self.shared.counters;
        count_step(counters, work);
        let exec = &*self.executor;
        let mut laps = crate::profile::StepLaps::begin();
        // Replays and small reads run here copy what they assign into.
        let result = execute_into(exec, work, outputs, site, values, None, |outs| exec.run(work, inputs, params, outs));
        match &result {
            Ok(()) => {
                if let Some(laps) = laps.as_mut() {
                    laps.lap(&super::step_profile(exec.name(), work, values, shares));
                }
            }
            Err(_) => {
                counters.failed_steps.fetch_add(1, Ordering::Relaxed);
            }
        }
        result
    }

    /// Blocks until every submitted sequence has finished.
    pub fn wait_idle(&self) {
        self.shared.wait();
    }

    /// Finishes queued work and stops the execution thread and the executor's threads,
    /// waiting until they have ended. Sequences submitted later fail.
    pub fn shutdown(&self) {
        drop(self.queue.lock().take());
        if let Some(t) = self.thread.lock().take() {
            let _ = t.join();
        }
        self.executor.stop_threads();
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn run_sequence(executor: &dyn Executor, seq: ProgramSequence, counters: &Counters) {
    let ProgramSequence { steps, retired, release_after } = seq;
    let mut finished = 0;
    let mut releases = release_after.iter().peekable();
    let ran = catch_unwind(AssertUnwindSafe(|| {
        let mut laps = crate::profile::StepLaps::begin();
        executor.run_steps(&steps, &mut |i, outcome| {
            // A step that computed something (all its outputs, or those a failure left).
            if let Some(laps) = laps.as_mut()
                && outcome.iter().any(|o| o.is_ok())
            {
                let values: StepValues = outcome.iter().filter_map(|o| o.as_ref().ok().cloned()).collect();
                laps.lap(&super::step_profile(executor.name(), &steps[i].work, &values, &steps[i].shares));
            }
            finish(executor, &steps[i], outcome, counters);
            finished = i + 1;
            // Steps are reported in order once they have run (on a device, once their
            // submission has): values whose last reader this was are free to go.
            while let Some((_, p)) = releases.next_if(|(last, _)| *last <= i) {
                p.release();
            }
        })
    }));
    // Steps the executor did not get to (it panicked) fail rather than leave readers waiting.
    if let Err(panic) = ran {
        for step in &steps[finished..] {
            finish(executor, step, step.failed(step.panicked(&panic)), counters);
        }
    }
    drop(retired);
}

fn count_step(counters: &Counters, work: &Work) {
    let kind = match work {
        Work::Kernel { .. } => &counters.kernels,
        _ => &counters.intrinsics,
    };
    kind.fetch_add(1, Ordering::Relaxed);
}

/// Publishes what became of one step: its outputs' promises are fulfilled, each output
/// first looked at by its check (result comparison), if it has one.
fn finish(executor: &dyn Executor, step: &Step, outcome: StepOutcome, counters: &Counters) {
    count_step(counters, &step.work);
    // Outputs come in dependency order: once one fails its check, later ones that fail
    // too report that first one (the op that went wrong), not their own.
    let mut first_failure: Option<Arc<Error>> = None;
    let mut failed = false;
    for (out, result) in step.outputs.iter().zip(outcome) {
        let checked = result.and_then(|v| match &out.check {
            Some(c) => c.check(executor, &v).map(|()| v).map_err(|e| first_failure.get_or_insert(Arc::new(e)).clone()),
            None => Ok(v),
        });
        failed |= checked.is_err();
        out.promise.fulfil(checked);
    }
    if failed {
        counters.failed_steps.fetch_add(1, Ordering::Relaxed);
    }
}

fn fail(step: &Step, e: Arc<Error>) {
    for out in &step.outputs {
        out.promise.fulfil(Err(e.clone()));
    }
}

pub fn panic_message(panic: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = panic.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".to_string()
    }
}
