//! The work queue: deferred ops wait here until something needs them. A flush hands the
//! needed part of the graph to `gen/` (or replays what it made for an equal flush before,
//! from the trace cache) and the resulting program sequence to the engine.

mod trace;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::Instant;

use parking_lot::{Condvar, Mutex};

use trace::TraceCache;
pub use trace::TraceStats;

use crate::exec::engine::Engine;
use crate::r#gen::{self, GenOptions, Plan, Subgraph, TraceKey};
use crate::ir::{Error, Inputs, Node, Result, Value};

pub struct SchedOptions {
    pub r#gen: GenOptions,
    /// Pending ops queued before the queue flushes by itself.
    pub queue_limit: usize,
    /// Flushes for a blocking read run on the reading thread when the engine is idle and
    /// the work writes at most this many elements.
    pub inline_elements: usize,
    /// Recipes the trace cache keeps (0: no trace cache).
    pub trace_cache_entries: usize,
    /// Log why each trace cache lookup missed (to stderr).
    pub explain_misses: bool,
}

/// Ops in call order since the last full flush (weak: releasing one drops it).
#[derive(Default)]
struct Queue {
    entries: Vec<Weak<Node>>,
}

/// The ops among `entries` that the application still holds, except values an earlier
/// flush already computed inside a kernel without storing them: the roots of a flush.
fn live(entries: &[Weak<Node>]) -> Vec<Arc<Node>> {
    entries.iter().filter_map(Weak::upgrade).filter(|n| n.has_handles() && n.is_pending_unflushed()).collect()
}

/// What planning needs, shared with the planning thread.
struct Core {
    queue: Mutex<Queue>,
    /// Flushes that produced work.
    flushes: AtomicU64,
    /// Numbers each planned flush (the planner marks nodes with it).
    epoch: AtomicU32,
    /// Nodes in the last flush: programs repeat, so the next is likely as large.
    last_flush_nodes: AtomicUsize,
    /// Held while a flush is planned, so a node is scheduled once.
    planning: Mutex<TraceCache>,
    engine: Engine,
    opts: SchedOptions,
}

impl Core {
    /// Empties the queue, returning the roots of a flush of everything in it.
    fn take_live(&self) -> Vec<Arc<Node>> {
        live(&std::mem::take(&mut self.queue.lock().entries))
    }

    fn flush(&self, roots: &[Arc<Node>], for_read: bool) {
        let mut cache = self.planning.lock();
        let roots: Vec<Arc<Node>> = roots.iter().filter(|r| r.is_pending()).cloned().collect();
        if roots.is_empty() {
            return;
        }
        let epoch = self.epoch.fetch_add(1, Ordering::Relaxed).wrapping_add(1).max(1);
        let sub = r#gen::pending_subgraph(&roots, epoch, self.last_flush_nodes.load(Ordering::Relaxed));
        self.last_flush_nodes.store(sub.order.len(), Ordering::Relaxed);
        match self.plan(&mut cache, &sub, &roots) {
            Ok(mut plan) => {
                drop(cache);
                self.flushes.fetch_add(1, Ordering::Relaxed);
                for (node, promise) in plan.scheduled {
                    plan.seq.retired.push(node.schedule(promise));
                }
                // The subgraph may hold the last references to nodes: freed on the
                // execution thread with the rest.
                plan.seq.retired.extend([sub.order, sub.inputs].map(Inputs::from_vec));
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

    /// The plan for subgraph `sub`: replayed from the trace cache when an equal flush
    /// was planned before, otherwise built (and cached).
    fn plan(&self, cache: &mut TraceCache, sub: &Subgraph, roots: &[Arc<Node>]) -> Result<Plan> {
        let exec = &**self.engine.executor();
        if !cache.enabled() {
            return Ok(r#gen::compile(sub, roots, exec, &self.opts.r#gen)?.instantiate(sub));
        }
        let key = TraceKey::of(sub, roots);
        if let Some(recipe) = cache.lookup(&key) {
            return Ok(recipe.instantiate(sub));
        }
        if self.opts.explain_misses {
            eprintln!("sluice: {}", cache.explain_miss(&key, sub));
        }
        let start = Instant::now();
        let recipe = Arc::new(r#gen::compile(sub, roots, exec, &self.opts.r#gen)?);
        cache.insert(key, recipe.clone(), start.elapsed().as_nanos() as u64);
        Ok(recipe.instantiate(sub))
    }
}

/// Batches of roots the planning thread has yet to flush, in the order they were cut.
#[derive(Default)]
struct PlannerState {
    batches: VecDeque<Vec<Arc<Node>>>,
    working: bool,
    stop: bool,
}

/// Batches waiting before the application blocks (flow control).
const MAX_WAITING_BATCHES: usize = 2;

/// The planning thread: when the queue is full, the application cuts it (taking the ops
/// it holds at that moment as roots, so what is stored does not depend on timing) and
/// goes on recording while this thread fuses and compiles the batch.
struct Planner {
    state: Arc<(Mutex<PlannerState>, Condvar)>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl Planner {
    fn start(core: Arc<Core>) -> Planner {
        let state: Arc<(Mutex<PlannerState>, Condvar)> = Arc::default();
        let shared = state.clone();
        let thread = std::thread::Builder::new()
            .name("sluice-plan".into())
            .spawn(move || {
                let (lock, changed) = &*shared;
                loop {
                    let batch = {
                        let mut st = lock.lock();
                        loop {
                            if let Some(b) = st.batches.pop_front() {
                                st.working = true;
                                changed.notify_all();
                                break b;
                            }
                            if st.stop {
                                return;
                            }
                            changed.wait(&mut st);
                        }
                    };
                    core.flush(&batch, false);
                    drop(batch);
                    lock.lock().working = false;
                    changed.notify_all();
                }
            })
            .expect("spawn the planning thread");
        Planner { state, thread: Mutex::new(Some(thread)) }
    }

    /// Hands a batch of roots to the planning thread, waiting while it is behind; gives
    /// the batch back if the thread has stopped.
    fn submit(&self, batch: Vec<Arc<Node>>) -> Option<Vec<Arc<Node>>> {
        let (lock, changed) = &*self.state;
        let mut st = lock.lock();
        while st.batches.len() >= MAX_WAITING_BATCHES && !st.stop {
            changed.wait(&mut st);
        }
        if st.stop {
            return Some(batch);
        }
        st.batches.push_back(batch);
        changed.notify_all();
        None
    }

    /// Waits until every submitted batch is planned.
    fn wait_idle(&self) {
        let (lock, changed) = &*self.state;
        let mut st = lock.lock();
        while !st.batches.is_empty() || st.working {
            changed.wait(&mut st);
        }
    }

    /// Stops the thread after it has planned the batches it holds.
    fn stop(&self) {
        let (lock, changed) = &*self.state;
        lock.lock().stop = true;
        changed.notify_all();
        if let Some(t) = self.thread.lock().take() {
            let _ = t.join();
        }
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
            last_flush_nodes: AtomicUsize::new(0),
            planning: Mutex::new(TraceCache::new(opts.trace_cache_entries)),
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

    pub fn trace_stats(&self) -> TraceStats {
        self.core.planning.lock().stats()
    }

    /// Adds a new pending op; when the queue is full, what it holds is planned on the
    /// planning thread.
    pub fn enqueue(&self, n: &Arc<Node>) {
        let full = {
            let mut q = self.core.queue.lock();
            q.entries.push(Arc::downgrade(n));
            (q.entries.len() >= self.core.opts.queue_limit).then(|| std::mem::take(&mut q.entries))
        };
        if let Some(entries) = full
            && let Some(roots) = self.planner.submit(live(&entries))
        {
            self.core.flush(&roots, false);
        }
    }

    /// Starts computing `roots` (and whatever they need that is not computed yet). They
    /// are planned before this returns, after the batches cut before them, so what the
    /// call stores does not depend on timing.
    pub fn flush(&self, roots: &[Arc<Node>]) {
        self.planner.wait_idle();
        self.core.flush(roots, false);
    }

    /// The node's value, computing it first if needed (blocking).
    pub fn value(&self, n: &Arc<Node>) -> std::result::Result<Value, Arc<Error>> {
        if n.is_pending() {
            self.planner.wait_idle();
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
