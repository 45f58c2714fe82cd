//! The work queue: deferred ops wait here until something needs them. A flush hands the
//! needed part of the graph to `gen/` and the resulting program sequence to the engine.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;

use parking_lot::{Condvar, Mutex};

use crate::exec::engine::Engine;
use crate::r#gen::{self, GenOptions};
use crate::ir::{Error, Node, Value};

pub struct SchedOptions {
    pub r#gen: GenOptions,
    /// Pending ops queued before the queue flushes by itself.
    pub queue_limit: usize,
    /// Flushes for a blocking read run on the reading thread when the engine is idle and
    /// the work writes at most this many elements.
    pub inline_elements: usize,
}

#[derive(Default)]
struct Queue {
    /// Ops in call order since the last full flush (weak: releasing one drops it).
    entries: Vec<Weak<Node>>,
}

/// What planning needs, shared with the planning thread.
struct Core {
    queue: Mutex<Queue>,
    /// Flushes that produced work.
    flushes: AtomicU64,
    /// Numbers each planned flush (the planner marks nodes with it).
    epoch: AtomicU32,
    /// Flushes are planned one at a time, so a node is scheduled once.
    flush_lock: Mutex<()>,
    engine: Engine,
    opts: SchedOptions,
}

impl Core {
    /// Empties the queue, returning the ops in it the application still holds, except
    /// values an earlier flush already computed inside a kernel without storing them.
    fn take_live(&self) -> Vec<Arc<Node>> {
        let entries = std::mem::take(&mut self.queue.lock().entries);
        entries.iter().filter_map(Weak::upgrade).filter(|n| n.has_handles() && n.is_pending_unflushed()).collect()
    }

    fn flush(&self, roots: &[Arc<Node>], for_read: bool) {
        let _guard = self.flush_lock.lock();
        let roots: Vec<Arc<Node>> = roots.iter().filter(|r| r.is_pending()).cloned().collect();
        if roots.is_empty() {
            return;
        }
        let epoch = self.epoch.fetch_add(1, Ordering::Relaxed).wrapping_add(1).max(1);
        // Counted when planning starts: compiling (a shader, for a GPU) may take a while.
        self.flushes.fetch_add(1, Ordering::Relaxed);
        match r#gen::plan(&roots, epoch, &**self.engine.executor(), &self.opts.r#gen) {
            Ok(mut plan) => {
                for (node, promise) in plan.scheduled {
                    plan.seq.retired.push(node.schedule(promise));
                }
                for node in plan.unstored {
                    node.mark_fused_unstored();
                }
                let small = plan.seq.output_elements() <= self.opts.inline_elements;
                if for_read && small {
                    if let Some(seq) = self.engine.try_run_inline(plan.seq) {
                        self.engine.submit(seq);
                    }
                } else {
                    self.engine.submit(plan.seq);
                }
            }
            Err(e) => {
                let e = Arc::new(e);
                for r in &roots {
                    r.fail(Arc::new(Error::clone(&e).with_origin(r.site)));
                }
            }
        }
    }
}

/// The planning thread: when the queue is full it flushes what the queue holds that is
/// still live at that moment, so the application goes on recording while its earlier ops
/// are fused and compiled.
struct Planner {
    /// Set while a request is waiting, so a busy planner is asked once.
    requested: Arc<(Mutex<bool>, Condvar)>,
    /// Cleared when the planner is idle (no request waiting or being served).
    busy: Arc<(Mutex<bool>, Condvar)>,
    stop: Arc<AtomicBool>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl Planner {
    fn start(core: Arc<Core>) -> Planner {
        let requested: Arc<(Mutex<bool>, Condvar)> = Arc::default();
        let busy: Arc<(Mutex<bool>, Condvar)> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let (req, bsy, stp) = (requested.clone(), busy.clone(), stop.clone());
        let thread = std::thread::Builder::new()
            .name("sluice-plan".into())
            .spawn(move || {
                loop {
                    {
                        let mut r = req.0.lock();
                        while !*r && !stp.load(Ordering::Acquire) {
                            req.1.wait(&mut r);
                        }
                        if !*r {
                            return;
                        }
                        *r = false;
                    }
                    core.flush(&core.take_live(), false);
                    let mut b = bsy.0.lock();
                    if !*req.0.lock() {
                        *b = false;
                        bsy.1.notify_all();
                    }
                }
            })
            .expect("spawn the planning thread");
        Planner { requested, busy, stop, thread: Mutex::new(Some(thread)) }
    }

    /// Asks the planning thread for a flush; false if it has stopped.
    fn request(&self) -> bool {
        if self.stop.load(Ordering::Acquire) {
            return false;
        }
        *self.busy.0.lock() = true;
        let mut r = self.requested.0.lock();
        if !*r {
            *r = true;
            self.requested.1.notify_one();
        }
        true
    }

    fn wait_idle(&self) {
        let mut b = self.busy.0.lock();
        while *b {
            self.busy.1.wait(&mut b);
        }
    }

    fn stop(&self) {
        self.stop.store(true, Ordering::Release);
        {
            let _r = self.requested.0.lock();
            self.requested.1.notify_all();
        }
        if let Some(t) = self.thread.lock().take() {
            let _ = t.join();
        }
        let mut b = self.busy.0.lock();
        *b = false;
        self.busy.1.notify_all();
    }
}

pub struct Scheduler {
    core: Arc<Core>,
    planner: Planner,
}

impl Scheduler {
    pub fn new(engine: Engine, opts: SchedOptions) -> Scheduler {
        let core = Arc::new(Core {
            queue: Mutex::new(Queue::default()),
            flushes: AtomicU64::new(0),
            epoch: AtomicU32::new(0),
            flush_lock: Mutex::new(()),
            engine,
            opts,
        });
        let planner = Planner::start(core.clone());
        Scheduler { core, planner }
    }

    pub fn engine(&self) -> &Engine {
        &self.core.engine
    }

    pub fn flushes(&self) -> u64 {
        self.core.flushes.load(Ordering::Relaxed)
    }

    /// Adds a new pending op; when the queue is full, what it holds is planned on the
    /// planning thread.
    pub fn enqueue(&self, n: &Arc<Node>) {
        let full = {
            let mut q = self.core.queue.lock();
            q.entries.push(Arc::downgrade(n));
            q.entries.len() >= self.core.opts.queue_limit
        };
        if full && !self.planner.request() {
            self.core.flush(&self.core.take_live(), false);
        }
    }

    /// Starts computing `roots` (and whatever they need that is not computed yet). They
    /// are planned before this returns, so what the call stores does not depend on timing.
    pub fn flush(&self, roots: &[Arc<Node>]) {
        self.core.flush(roots, false);
    }

    /// The node's value, computing it first if needed (blocking).
    pub fn value(&self, n: &Arc<Node>) -> Result<Value, Arc<Error>> {
        if n.is_pending() {
            self.core.flush(std::slice::from_ref(n), true);
        }
        n.wait()
    }

    /// Flushes everything live and waits for all submitted work.
    pub fn sync(&self) {
        self.planner.wait_idle();
        self.core.flush(&self.core.take_live(), false);
        self.core.engine.wait_idle();
    }

    /// Stops the planning and execution threads (after finishing what they hold).
    pub fn shutdown(&self) {
        self.planner.stop();
        self.core.engine.shutdown();
    }
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        self.planner.stop();
    }
}
