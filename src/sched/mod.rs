//! The work queue: deferred ops wait here until something needs them. A flush hands the
//! needed part of the graph to `gen/` and the resulting program sequence to the engine.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use parking_lot::Mutex;

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

pub struct Scheduler {
    /// Flushes that produced work.
    flushes: AtomicU64,
    /// Numbers each planned flush (the planner marks nodes with it).
    epoch: AtomicU32,
    queue: Mutex<Queue>,
    /// Flushes are planned one at a time, so a node is scheduled once.
    flush_lock: Mutex<()>,
    engine: Engine,
    opts: SchedOptions,
}

impl Scheduler {
    pub fn new(engine: Engine, opts: SchedOptions) -> Scheduler {
        Scheduler { flushes: AtomicU64::new(0), epoch: AtomicU32::new(0), queue: Mutex::new(Queue::default()), flush_lock: Mutex::new(()), engine, opts }
    }

    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    pub fn flushes(&self) -> u64 {
        self.flushes.load(Ordering::Relaxed)
    }

    /// Adds a new pending op; flushes everything live when the queue is full.
    pub fn enqueue(&self, n: &Arc<Node>) {
        let full = {
            let mut q = self.queue.lock();
            q.entries.push(Arc::downgrade(n));
            q.entries.len() >= self.opts.queue_limit
        };
        if full {
            self.flush_all();
        }
    }

    /// Starts computing `roots` (and whatever they need that is not computed yet).
    pub fn flush(&self, roots: &[Arc<Node>]) {
        self.flush_inner(roots, false);
    }

    fn flush_inner(&self, roots: &[Arc<Node>], for_read: bool) {
        let _guard = self.flush_lock.lock();
        let roots: Vec<Arc<Node>> = roots.iter().filter(|r| r.is_pending()).cloned().collect();
        if roots.is_empty() {
            return;
        }
        let epoch = self.epoch.fetch_add(1, Ordering::Relaxed).wrapping_add(1).max(1);
        match r#gen::plan(&roots, epoch, &**self.engine.executor(), &self.opts.r#gen) {
            Ok(mut plan) => {
                self.flushes.fetch_add(1, Ordering::Relaxed);
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

    /// Flushes every queued op that the application still holds, except values an
    /// earlier flush already computed inside a kernel without storing them.
    pub fn flush_all(&self) {
        let roots: Vec<Arc<Node>> = {
            let mut q = self.queue.lock();
            let entries = std::mem::take(&mut q.entries);
            entries
                .iter()
                .filter_map(Weak::upgrade)
                .filter(|n| n.has_handles() && n.is_pending_unflushed())
                .collect()
        };
        self.flush(&roots);
    }

    /// The node's value, computing it first if needed (blocking).
    pub fn value(&self, n: &Arc<Node>) -> Result<Value, Arc<Error>> {
        if n.is_pending() {
            self.flush_inner(std::slice::from_ref(n), true);
        }
        n.wait()
    }

    /// Flushes everything live and waits for all submitted work.
    pub fn sync(&self) {
        self.flush_all();
        self.engine.wait_idle();
    }
}
