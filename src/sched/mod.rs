//! The work queue: deferred ops wait here until something needs them. A flush hands the
//! needed part of the graph to `gen/` (or replays what it made for an equal flush before,
//! from the trace cache) and the resulting program sequence to the engine.

pub mod apply;
pub mod macros;
mod trace;

use std::borrow::Cow;
use std::collections::VecDeque;
use std::ffi::CStr;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::Instant;

use parking_lot::{Condvar, Mutex};
use rustc_hash::FxHashMap as HashMap;
use smallvec::SmallVec;

use macros::{Claim, Frame, KeyOf, MacroCache, MacroEntry, OutputRef, ParamSource, RngUse, table};
use trace::TraceCache;

use crate::check;
pub use crate::exec::CacheStats;
use crate::exec::engine::Engine;
use crate::exec::{Lent, ProgramSequence, StepCall, StepValues};
use crate::r#gen::{self, GenOptions, Plan, Recipe, SlotValues, Subgraph, leaf_binding};
use crate::ir::{CallSite, Error, Inputs, Node, Op, Promise, Result, Scalar, Value, bail};
use crate::profile::{self, TraceOutcome};

/// A replayed section's outputs (inline: sections have few).
pub type Outputs = SmallVec<[Arc<Node>; 4]>;

/// How a macro section starts.
pub enum MacroStart {
    /// Run the section; its ops are recorded.
    Record,
    /// Skip the section: these are its outputs.
    Replay(Outputs),
}

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
    /// Recorded macro sections kept.
    pub macro_cache_entries: usize,
    /// Every op is computed when it is made (`SLUICE_SYNC`).
    pub synchronous: bool,
}

/// Ops in call order since the last full flush (weak: releasing one drops it).
#[derive(Default)]
struct Queue {
    entries: Vec<Weak<Node>>,
}

impl Queue {
    /// Appends `n`; true when the ops still waiting for a flush reach `limit`. Ops a
    /// flush has computed (a read's, say) and ops released for good do not count: they
    /// leave the queue when its length reaches the limit. So where the queue is cut
    /// depends only on the ops made since and still needed, and a loop whose body reads
    /// its results cuts at the same ops in every iteration.
    fn push(&mut self, n: &Arc<Node>, limit: usize) -> bool {
        self.entries.push(Arc::downgrade(n));
        if self.entries.len() < limit {
            return false;
        }
        self.entries.retain(|e| e.upgrade().is_some_and(|n| n.is_pending_unflushed()));
        self.entries.len() >= limit
    }
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
    /// The lists of a subgraph that a flush run now gave back (emptied), for the next
    /// flush's: a loop's reads then allocate none.
    spare_lists: Mutex<Option<Subgraph>>,
    /// Held while a flush is planned, so a node is scheduled once.
    planning: Mutex<TraceCache>,
    macros: Mutex<MacroCache>,
    /// The macro cache's clock: a section belongs to this cache if it shares it.
    macro_clock: Arc<AtomicU64>,
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
        let roots: SmallVec<[Arc<Node>; 4]> = roots.iter().filter(|r| r.is_pending()).cloned().collect();
        if roots.is_empty() {
            return;
        }
        let sub = self.subgraph(&roots);
        self.attach_references(&sub, &roots);
        let mut profile = profile::FlushTimer::begin(sub.order.len());
        // Counted when planning starts: compiling (a shader, for a GPU) may take a while.
        self.flushes.fetch_add(1, Ordering::Relaxed);
        match self.plan(&mut cache, &sub, &roots) {
            Ok((recipe, hit)) => {
                profile.planned();
                // What a hit took instead of planning: keying the flush, finding its
                // entry and, for a sequence, instantiating it (not running it).
                let note_hit = |cache: &mut TraceCache| {
                    if let Some(start) = hit {
                        cache.note_hit_time(start.elapsed().as_nanos() as u64);
                    }
                };
                if for_read && self.run_now(&recipe, &sub, || note_hit(&mut cache)) {
                    let mut sub = sub;
                    sub.clear();
                    *self.spare_lists.lock() = Some(sub);
                    drop(cache);
                    profile.end(None);
                    return;
                }
                let plan = recipe.instantiate(&sub);
                note_hit(&mut cache);
                // Dispatched under the planning lock: sequences reach the engine in the
                // order they were planned, as the execution thread waits on the promises
                // of earlier ones.
                let seq = self.schedule(plan, sub, &roots, if for_read { &roots } else { &[] });
                self.dispatch(seq, for_read);
                drop(cache);
                profile.end(None);
            }
            Err(e) => {
                let e = Arc::new(e);
                for r in &roots {
                    r.fail(Arc::new(Error::clone(&e).with_origin(r.site)));
                }
            }
        }
    }

    /// Runs a small flush for a blocking read on this thread (the planning lock must be
    /// held), step by step from `recipe` without building a program sequence: no promises,
    /// no step lists, no hand-off; each stored node becomes ready (or failed) as its value
    /// is made. Only where running steps one at a time costs nothing extra, the work is
    /// small, every leaf is computed and the engine is idle; false otherwise, and nothing
    /// has run. `starting` is called just before the steps run.
    fn run_now(&self, recipe: &Recipe, sub: &Subgraph, starting: impl FnOnce()) -> bool {
        let engine = &self.engine;
        if !engine.executor().runs_steps_alone_cheaply() || check::mode() == check::Mode::Compute {
            return false;
        }
        let elements: usize = recipe.slot_types.iter().map(|(_, shape)| shape.numel()).sum();
        if elements > self.opts.inline_elements {
            return false;
        }
        // Leaves still being computed (or failed) go through the engine, which waits for
        // them (or passes their failure on).
        if sub.inputs.iter().any(|n| sub.index_of(n).is_none() && n.computed().is_none()) {
            return false;
        }
        let order = &sub.order;
        let leaf = |pos: u32| sub.inputs[pos as usize].computed().expect("leaves are computed");
        let run = |step: StepCall, outs: &mut StepValues| engine.run_step_now(step, outs);
        let mut slots = SlotValues::new();
        let ran = engine.try_inline(|| {
            starting();
            let (param, site) = (|i: u32| r#gen::fill_value(&order[i as usize]), |i: u32| order[i as usize].site);
            recipe.run_now(leaf, param, site, run, &mut slots)
        });
        if ran.is_none() {
            return false;
        }
        for (&i, slot) in recipe.stored.iter().zip(slots) {
            match slot.expect("every slot is stored by a step") {
                Ok(value) => order[i as usize].complete(value),
                Err(e) => order[i as usize].fail(e),
            }
        }
        for (n, _) in order.iter().zip(&recipe.is_stored).filter(|(n, stored)| !**stored && n.has_handles()) {
            n.mark_fused_unstored();
        }
        true
    }

    /// The pending subgraph of `roots` for a new flush (the planning lock must be held).
    fn subgraph(&self, roots: &[Arc<Node>]) -> Subgraph {
        let epoch = self.epoch.fetch_add(1, Ordering::Relaxed).wrapping_add(1).max(1);
        let spare = self.spare_lists.lock().take().unwrap_or_default();
        let sub = r#gen::pending_subgraph(roots, epoch, self.last_flush_nodes.load(Ordering::Relaxed), spare);
        self.last_flush_nodes.store(sub.order.len(), Ordering::Relaxed);
        sub
    }

    /// In result-comparison mode, the reference run of the subgraph's ops. Comparing on
    /// read (copyout) needs no reference of a node nothing reads after the flush (not a
    /// root, without handles, held by nothing outside): those go after their last use.
    fn attach_references(&self, sub: &Subgraph, roots: &[Arc<Node>]) {
        let mode = check::mode();
        if mode == check::Mode::Off {
            return;
        }
        let exec = &**self.engine.executor();
        let nodes: Vec<_> = sub.order.iter().enumerate().map(|(i, n)| (n, sub.inputs_at(i))).collect();
        let uses = sub.uses();
        let transient = |i: usize| {
            let n = &sub.order[i];
            mode == check::Mode::Copyout
                && !n.has_handles()
                && !roots.iter().any(|r| Arc::ptr_eq(r, n))
                && !sub.held_elsewhere(i, &uses, 0)
        };
        check::attach_references(&nodes, transient, &|v| exec.host_value(v));
    }

    /// How flushes are planned now: checking every op's value (compute comparison)
    /// needs every value stored.
    fn gen_options(&self) -> Cow<'_, GenOptions> {
        if check::mode() == check::Mode::Compute {
            Cow::Owned(GenOptions { store_all: true, ..self.opts.r#gen.clone() })
        } else {
            Cow::Borrowed(&self.opts.r#gen)
        }
    }

    /// Moves the planned nodes to their promises, marking the outputs of `read` (nodes a
    /// blocking read waits for) to be copied back with the work. Done while the planning
    /// lock is held, so a concurrent flush cannot plan the same (still pending) nodes again.
    fn schedule(&self, mut plan: Plan, sub: Subgraph, roots: &[Arc<Node>], read: &[Arc<Node>]) -> ProgramSequence {
        if check::mode() == check::Mode::Compute {
            let node_of: HashMap<*const Promise, &Arc<Node>> =
                plan.scheduled.iter().map(|(n, p)| (Arc::as_ptr(p), n)).collect();
            for out in plan.seq.steps.iter_mut().flat_map(|s| &mut s.outputs) {
                out.check = node_of.get(&Arc::as_ptr(&out.promise)).map(|n| check::output_check(Arc::clone(n)));
            }
        }
        let read_promises = plan.scheduled.iter().filter(|(n, _)| read.iter().any(|r| Arc::ptr_eq(r, n)));
        for (_, promise) in read_promises {
            let outputs = plan.seq.steps.iter_mut().flat_map(|s| &mut s.outputs);
            if let Some(out) = outputs.into_iter().find(|o| Arc::ptr_eq(&o.promise, promise)) {
                out.read_back = true;
            }
        }
        // Sized once: the stored nodes' input lists, and the subgraph's two lists below.
        plan.seq.retired.reserve(plan.scheduled.len() + 2);
        for (node, promise) in &plan.scheduled {
            plan.seq.retired.push(node.schedule(promise.clone()));
        }
        plan.release_dead_values(&sub, roots);
        plan.mark_in_place(&sub, roots);
        // The subgraph may hold the last references to nodes: freed on the
        // execution thread with the rest.
        plan.seq.retired.extend([sub.order, sub.inputs].map(Inputs::from_vec));
        for node in plan.unstored {
            node.mark_fused_unstored();
        }
        plan.seq
    }

    /// Hands the sequence to the engine; a small one for a blocking read runs on this
    /// thread.
    fn dispatch(&self, seq: ProgramSequence, inline: bool) {
        if inline && seq.output_elements() <= self.opts.inline_elements {
            if let Some(seq) = self.engine.try_run_inline(seq) {
                self.engine.submit(seq);
            }
        } else {
            self.engine.submit(seq);
        }
    }

    /// Plans and submits `roots` as one unit (no trace cache), after `check` has
    /// accepted the subgraph and recipe; returns what `check` made of them.
    fn flush_recorded<R>(
        &self,
        roots: &[Arc<Node>],
        check: impl FnOnce(&Subgraph, &Recipe) -> Result<R>,
    ) -> Result<(Arc<Recipe>, R)> {
        let cache = self.planning.lock();
        let sub = self.subgraph(roots);
        self.attach_references(&sub, roots);
        let mut profile = profile::FlushTimer::begin(sub.order.len());
        let recipe = Arc::new(r#gen::compile(&sub, roots, &**self.engine.executor(), &self.gen_options())?);
        let made = check(&sub, &recipe)?;
        let plan = recipe.instantiate(&sub);
        profile.planned();
        let seq = self.schedule(plan, sub, roots, &[]);
        self.dispatch(seq, false);
        drop(cache);
        profile.end(Some(TraceOutcome::MacroRecord));
        Ok((recipe, made))
    }

    /// The recipe for subgraph `sub`: from the trace cache when an equal flush was
    /// planned before (with when the lookup started), otherwise built (and cached).
    fn plan(
        &self,
        cache: &mut TraceCache,
        sub: &Subgraph,
        roots: &[Arc<Node>],
    ) -> Result<(Arc<Recipe>, Option<Instant>)> {
        let exec = &**self.engine.executor();
        // Compute comparison plans differently (every value stored): not from the cache.
        if !cache.enabled() || check::mode() == check::Mode::Compute {
            return Ok((Arc::new(r#gen::compile(sub, roots, exec, &self.gen_options())?), None));
        }
        let start = Instant::now();
        if let Some(recipe) = cache.lookup(sub, roots) {
            profile::note_trace(TraceOutcome::Hit);
            return Ok((recipe, Some(start)));
        }
        profile::note_trace(TraceOutcome::Miss);
        if self.opts.explain_misses {
            eprintln!("sluice: {}", cache.explain_miss(sub));
        }
        let recipe = Arc::new(r#gen::compile(sub, roots, exec, &self.opts.r#gen)?);
        cache.insert(recipe.clone(), start.elapsed().as_nanos() as u64);
        Ok((recipe, None))
    }
}

/// The generators a recorded subgraph draws from, and which of its parameters are their
/// seeds and draws.
fn rng_draws(sub: &Subgraph) -> (Vec<RngUse>, HashMap<u32, ParamSource>) {
    let mut uses: Vec<RngUse> = Vec::new();
    let mut draws: Vec<(u32, u32, usize, u64)> = Vec::new();
    for (i, n) in sub.order.iter().enumerate() {
        let Op::Random { rng, .. } = n.op else { continue };
        let ins = sub.inputs_at(i);
        let index = |k: usize| sub.index_of(&ins[k]).expect("random operands are pending") as u32;
        let draw = match r#gen::fill_value(&ins[1]) {
            Scalar::I64(v) => v as u64,
            other => unreachable!("a draw is an i64, not {other:?}"),
        };
        let u = match uses.iter().position(|u| u.rng == rng) {
            Some(u) => u,
            None => {
                uses.push(RngUse { rng, first: draw, count: 0 });
                uses.len() - 1
            }
        };
        uses[u].first = uses[u].first.min(draw);
        draws.push((index(0), index(1), u, draw));
    }
    let mut params = HashMap::default();
    for &(seed, draw_node, u, draw) in &draws {
        let offset = draw - uses[u].first;
        uses[u].count = uses[u].count.max(offset + 1);
        params.insert(seed, ParamSource::Seed(u));
        params.insert(draw_node, ParamSource::Draw(u, offset));
    }
    (uses, params)
}

/// Sets `values` to the value of each of `inputs` that is computed (filled in place: the
/// list is inline and large).
fn read_values<'n>(inputs: &'n [Arc<Node>], values: &mut SmallVec<[Option<&'n Value>; 4]>) {
    values.clear();
    for n in inputs {
        values.push(n.computed());
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
    /// Batches submitted and not yet planned: `wait_idle` reads it without the lock (a
    /// replay calls it every time, and there is usually nothing to wait for).
    unplanned: Arc<AtomicUsize>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl Planner {
    fn start(core: Arc<Core>) -> Planner {
        let state: Arc<(Mutex<PlannerState>, Condvar)> = Arc::default();
        let shared = state.clone();
        let unplanned = Arc::new(AtomicUsize::new(0));
        let planned = unplanned.clone();
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
                    let mut st = lock.lock();
                    st.working = false;
                    planned.fetch_sub(1, Ordering::Release);
                    drop(st);
                    changed.notify_all();
                }
            })
            .expect("spawn the planning thread");
        Planner { state, unplanned, thread: Mutex::new(Some(thread)) }
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
        self.unplanned.fetch_add(1, Ordering::Relaxed);
        st.batches.push_back(batch);
        changed.notify_all();
        None
    }

    /// Waits until every submitted batch is planned.
    fn wait_idle(&self) {
        if self.unplanned.load(Ordering::Acquire) == 0 {
            return;
        }
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
    /// Pieces applied functions computed one at a time (`apply::Batching::looped`).
    looped_pieces: AtomicU64,
}

impl Scheduler {
    pub fn new(engine: Engine, opts: SchedOptions) -> Scheduler {
        let macros = MacroCache::new(opts.macro_cache_entries);
        let core = Arc::new(Core {
            queue: Mutex::new(Queue::default()),
            flushes: AtomicU64::new(0),
            epoch: AtomicU32::new(0),
            last_flush_nodes: AtomicUsize::new(0),
            spare_lists: Mutex::new(None),
            planning: Mutex::new(TraceCache::new(opts.trace_cache_entries)),
            macro_clock: macros.clock(),
            macros: Mutex::new(macros),
            engine,
            opts,
        });
        let planner = Planner::start(core.clone());
        Scheduler { core, planner, looped_pieces: AtomicU64::new(0) }
    }

    pub fn engine(&self) -> &Engine {
        &self.core.engine
    }

    pub fn flushes(&self) -> u64 {
        self.core.flushes.load(Ordering::Relaxed)
    }

    pub fn trace_stats(&self) -> CacheStats {
        self.core.planning.lock().stats()
    }

    /// Counts pieces an applied function computed one at a time.
    pub fn note_looped(&self, pieces: usize) {
        self.looped_pieces.fetch_add(pieces as u64, Ordering::Relaxed);
    }

    pub fn looped_pieces(&self) -> u64 {
        self.looped_pieces.load(Ordering::Relaxed)
    }

    pub fn macro_stats(&self) -> CacheStats {
        self.core.macros.lock().stats()
    }

    /// Adds a new pending op; when the queue is full, what it holds is planned on the
    /// planning thread.
    pub fn enqueue(&self, n: &Arc<Node>) {
        if macros::capture(n) {
            return;
        }
        if self.core.opts.synchronous {
            self.planner.wait_idle();
            self.core.flush(std::slice::from_ref(n), true);
            let _ = n.wait(); // a failure is reported where the value is used, as usual
            return;
        }
        let full = {
            let mut q = self.core.queue.lock();
            q.push(n, self.core.opts.queue_limit).then(|| std::mem::take(&mut q.entries))
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

    /// Brings an array the application holds to the state it has at this point in every
    /// run of the same calls, for a graph fold that depends on it: planned if a queue cut
    /// took it (the cut is planned on the planning thread), and computed if planned (by
    /// the execution thread). So what a fold makes, and the trace-cache keys of later
    /// flushes, do not depend on how far those threads have got.
    pub fn settle(&self, n: &Node) {
        if n.has_handles() && self.planner.unplanned.load(Ordering::Acquire) > 0 && n.is_pending() {
            self.planner.wait_idle();
        }
        if !n.is_pending() {
            let _ = n.wait(); // a failure is reported where the value is used, as usual
        }
    }

    /// Flushes everything live and waits for all submitted work.
    pub fn sync(&self) {
        self.planner.wait_idle();
        self.core.flush(&self.core.take_live(), false);
        self.core.engine.wait_idle();
    }

    /// Opens a macro section with `inputs` (computed first, so the section reads them as
    /// arrays) and `outputs` outputs: recorded the first time its key is seen, replayed
    /// after. A section opened while another records on this thread is part of that
    /// recording (its body runs). `reserve(rng, count)` takes `count` draws from a
    /// generator the section uses and returns its seed and first draw, so each replay
    /// draws new numbers.
    pub fn macro_begin(
        &self,
        name: &CStr,
        inputs: &[Arc<Node>],
        controls: &[f64],
        outputs: usize,
        site: CallSite,
        reserve: &dyn Fn(u64, u64) -> Result<(u64, u64)>,
    ) -> Result<MacroStart> {
        let nested = macros::recording();
        // A computed input's state is read once: its layout is part of the key, its value
        // is what a replay reads. Only the others may be pending.
        let mut values = SmallVec::new();
        read_values(inputs, &mut values);
        let maybe_pending = || inputs.iter().zip(&values).filter(|(n, v)| v.is_none() && n.is_pending());
        if !nested && maybe_pending().next().is_some() {
            let pending: Vec<Arc<Node>> = maybe_pending().map(|(n, _)| n.clone()).collect();
            self.flush(&pending);
            read_values(inputs, &mut values);
        }
        // Comparison runs every section's body, so its ops have references.
        let compare = check::mode() != check::Mode::Off;
        if !nested
            && !compare
            && let Some(section) = macros::last_replayed(name.to_bytes(), inputs, &values, controls)
            && section.hit_again(&self.core.macro_clock)
        {
            return Ok(MacroStart::Replay(self.replay(&section.entry, inputs, &values, site, reserve)?));
        }
        let Ok(name) = name.to_str() else {
            bail!(InvalidArgument, "name is not UTF-8");
        };
        let query = KeyOf::new(name, inputs, controls);
        if macros::is_open(&query) {
            bail!(
                InvalidState,
                "macro '{name}' is already being recorded on this thread (a section cannot contain itself)"
            );
        }
        let key = if nested || compare {
            query.to_key()
        } else {
            // Looked up with the borrowed key (no allocation); the lock is not held while replaying.
            let claim = self.core.macros.lock().lookup_or_claim(&query);
            match claim {
                Claim::Replay(section) => {
                    macros::remember_replayed(&section);
                    return Ok(MacroStart::Replay(self.replay(&section.entry, inputs, &values, site, reserve)?));
                }
                Claim::Record(key) => key,
            }
        };
        let cache = self.core.macro_clock.clone();
        macros::push(Frame { key, outputs, inputs: inputs.to_vec(), made: Vec::new(), nested, cache });
        Ok(MacroStart::Record)
    }

    /// Replays `e` on `inputs`, whose values (where computed) are `values`.
    fn replay<'n>(
        &self,
        e: &MacroEntry,
        inputs: &'n [Arc<Node>],
        values: &[Option<&'n Value>],
        site: CallSite,
        reserve: &dyn Fn(u64, u64) -> Result<(u64, u64)>,
    ) -> Result<Outputs> {
        // A small replay whose inputs the engine is still computing waits for them and runs
        // here: handed to the execution thread, its outputs would be the next replay's
        // inputs still being computed, so a loop's replays would each pay a hand-off from
        // the recording (or any replay that found the engine busy) to the next read.
        let mut waited = SmallVec::new();
        let values = if self.runs_here(e) && e.leaves.iter().flatten().any(|&i| values[i as usize].is_none()) {
            for n in e.leaves.iter().flatten().map(|&i| &inputs[i as usize]) {
                if n.computed().is_none() && !n.is_pending() {
                    let _ = n.wait(); // a failure goes through the engine, as before
                }
            }
            // The engine sets a sequence's outputs before it counts the sequence finished;
            // found still busy closing it, the replay would be handed on after all.
            self.core.engine.wait_idle();
            read_values(inputs, &mut waited);
            &waited[..]
        } else {
            values
        };
        let mut states: SmallVec<[(u64, u64); 2]> = SmallVec::new();
        for u in &e.rng_uses {
            states.push(reserve(u.rng, u.count)?);
        }
        let param = |i: u32| match e.params[i as usize].expect("a recorded parameter") {
            ParamSource::Recorded(v) => v,
            ParamSource::Seed(u) => Scalar::I64(states[u].0 as i64),
            ParamSource::Draw(u, offset) => Scalar::I64(states[u].1.wrapping_add(offset) as i64),
        };
        let site_of = |i: u32| e.sites[i as usize].expect("a recorded call site");
        let mut profile = profile::FlushTimer::begin(0);
        self.planner.wait_idle();
        // Under the planning lock, like every dispatch (the inputs' sequences are already
        // with the engine). Replays are the small calls of loops: running a small one here
        // when the engine is idle keeps the loop from paying a thread hand-off per call.
        let _planning = self.core.planning.lock();
        if let Some(outputs) = self.replay_now(e, inputs, values, site, &param, &site_of) {
            profile.end(Some(TraceOutcome::MacroReplay));
            return Ok(outputs);
        }
        let leaf = |pos: u32| leaf_binding(&inputs[e.leaves[pos as usize].expect("a recorded leaf") as usize]);
        let (seq, promises) = e.recipe.sequence(leaf, param, site_of);
        profile.planned();
        self.core.dispatch(seq, true);
        profile.end(Some(TraceOutcome::MacroReplay));
        Ok(e.outputs
            .iter()
            .map(|o| match *o {
                OutputRef::Slot(s) => {
                    let (dtype, shape) = e.recipe.slot_types[s as usize];
                    Node::scheduled(Op::Source, dtype, shape, site, promises[s as usize].clone())
                }
                OutputRef::Input(i) => inputs[i as usize].clone(),
            })
            .collect())
    }

    /// Whether a replay of `e` is small enough to run on the replaying thread.
    fn runs_here(&self, e: &MacroEntry) -> bool {
        let elements: usize = e.recipe.slot_types.iter().map(|(_, shape)| shape.numel()).sum();
        elements <= self.core.opts.inline_elements
    }

    /// Runs a small replay on this thread without building a program sequence, when its
    /// inputs are computed and the engine is idle (the planning lock must be held);
    /// None otherwise, and nothing has run. A lone step's inputs are lent, not cloned.
    fn replay_now(
        &self,
        e: &MacroEntry,
        inputs: &[Arc<Node>],
        values: &[Option<&Value>],
        site: CallSite,
        param: &dyn Fn(u32) -> Scalar,
        site_of: &dyn Fn(u32) -> CallSite,
    ) -> Option<Outputs> {
        if !self.runs_here(e) {
            return None;
        }
        // Inputs still being computed (or failed) go through the engine, which waits for
        // them (or passes their failure on).
        if e.leaves.iter().flatten().any(|&i| values[i as usize].is_none()) {
            return None;
        }
        let engine = &self.core.engine;
        let input_of = |pos: u32| e.leaves[pos as usize].expect("a recorded leaf") as usize;
        let run = |step: StepCall, outs: &mut StepValues| engine.run_step_now(step, outs);
        let node = |s: u32, value: std::result::Result<Value, &Arc<Error>>| {
            let (dtype, shape) = e.recipe.slot_types[s as usize];
            match value {
                Ok(v) => Node::ready(Op::Source, dtype, shape, site, v),
                Err(err) => Node::scheduled(Op::Source, dtype, shape, site, Promise::failed(err.clone())),
            }
        };
        // Pushed one by one: collecting through an iterator costs a replay more.
        let mut outputs = Outputs::new();
        if let Some(step) = e.recipe.lone_step() {
            // One kernel on the inputs (a loop's step): its outputs become the nodes.
            let mut ins = Lent::default();
            for pos in step.leaf_inputs() {
                ins.push(values[input_of(pos)].expect("computed"));
            }
            let mut results = StepValues::new();
            let result =
                engine.try_inline(|| e.recipe.run_step(step, ins.as_slice(), param, site_of, run, &mut results))?;
            for (j, o) in e.outputs.iter().enumerate() {
                outputs.push(match *o {
                    OutputRef::Slot(s) => {
                        let k = step.outputs.iter().position(|&x| x == s).expect("the lone step stores every slot");
                        // The last value, read by no later output, is moved (no reference
                        // count traffic; a loop's step has one output).
                        let last_use = k + 1 == results.len() && !e.outputs[j + 1..].contains(o);
                        let value = result.as_ref().map(|()| match last_use {
                            true => results.pop().expect("k is the last"),
                            false => results[k].clone(),
                        });
                        node(s, value)
                    }
                    OutputRef::Input(i) => inputs[i as usize].clone(),
                });
            }
            return Some(outputs);
        }
        let leaf = |pos: u32| values[input_of(pos)].expect("computed");
        let mut slots = SlotValues::new();
        engine.try_inline(|| e.recipe.run_now(leaf, param, site_of, run, &mut slots))?;
        for o in &e.outputs {
            outputs.push(match *o {
                OutputRef::Slot(s) => match slots[s as usize].as_ref().expect("every slot is stored by a step") {
                    Ok(v) => node(s, Ok(v.clone())),
                    Err(err) => node(s, Err(err)),
                },
                OutputRef::Input(i) => inputs[i as usize].clone(),
            });
        }
        Some(outputs)
    }

    /// Closes the innermost section on this thread, declaring its outputs. The section's
    /// values stay computable whatever the outcome.
    pub fn macro_end(&self, outputs: &[Arc<Node>]) -> Result<()> {
        let Some(frame) = macros::pop() else {
            bail!(InvalidState, "sl_macro_end without an open sl_macro_begin on this thread");
        };
        self.begun_here(&frame)?;
        let recorded = self.record(&frame, outputs);
        self.close(frame, recorded)
    }

    /// Abandons the innermost section recording on this thread (nothing is cached).
    pub fn macro_cancel(&self) -> Result<()> {
        let Some(frame) = macros::pop() else {
            bail!(InvalidState, "sl_macro_cancel without an open sl_macro_begin on this thread");
        };
        self.begun_here(&frame)?;
        self.close(frame, Ok(None))
    }

    /// Refuses (and drops) a section begun in an earlier runtime: its ops are not
    /// this one's to plan.
    fn begun_here(&self, frame: &Frame) -> Result<()> {
        if !Arc::ptr_eq(&frame.cache, &self.core.macro_clock) {
            bail!(
                InvalidState,
                "macro '{}' was begun before sl_shutdown; the section is closed without being recorded",
                frame.key.name
            );
        }
        Ok(())
    }

    /// Returns a closed section's ops to the work queue (or its enclosing recording) and
    /// ends its claim on the key, caching what it recorded.
    fn close(&self, frame: Frame, recorded: Result<Option<MacroEntry>>) -> Result<()> {
        if frame.nested {
            macros::adopt(frame.made);
            return recorded.map(|_| ());
        }
        self.core.queue.lock().entries.extend(frame.made);
        let (entry, result) = match recorded {
            Ok(e) => (e, Ok(())),
            Err(e) => (None, Err(e)),
        };
        let entry = entry.filter(|_| check::mode() == check::Mode::Off);
        self.core.macros.lock().finish(frame.key, entry);
        result
    }

    /// Checks a recorded section and compiles it as one unit (outermost sections only).
    fn record(&self, frame: &Frame, outputs: &[Arc<Node>]) -> Result<Option<MacroEntry>> {
        let name = &frame.key.name;
        if outputs.len() != frame.outputs {
            bail!(
                InvalidArgument,
                "macro '{name}' was begun with {} outputs but ended with {}",
                frame.outputs,
                outputs.len()
            );
        }
        let declared = |n: &Arc<Node>| outputs.iter().any(|o| Arc::ptr_eq(o, n));
        for n in frame.made.iter().filter_map(Weak::upgrade) {
            if n.has_handles() && n.is_pending() && !declared(&n) {
                bail!(
                    InvalidState,
                    "macro '{name}': the array made by {} is still held after the section but is not one of its outputs (declare it, or release it inside the section)",
                    n.site
                );
            }
        }
        if frame.nested {
            return Ok(None);
        }
        let input_index = |n: &Node| frame.inputs.iter().position(|i| i.id == n.id);
        let mut roots: Vec<Arc<Node>> = Vec::new();
        for (k, o) in outputs.iter().enumerate() {
            if input_index(o).is_none() && !o.is_pending() {
                bail!(
                    InvalidArgument,
                    "macro '{name}': output {k} (made by {}) is not computed inside the section",
                    o.site
                );
            }
            if o.is_pending() && !roots.iter().any(|r| Arc::ptr_eq(r, o)) {
                roots.push(o.clone());
            }
        }
        if roots.is_empty() {
            let outputs = outputs.iter().map(|o| OutputRef::Input(input_index(o).expect("checked") as u32)).collect();
            return Ok(Some(MacroEntry {
                recipe: Arc::new(Recipe::default()),
                leaves: Vec::new(),
                params: Vec::new(),
                sites: Vec::new(),
                outputs,
                rng_uses: Vec::new(),
            }));
        }
        self.planner.wait_idle();
        let (recipe, recorded) = self.core.flush_recorded(&roots, |sub, recipe| {
            let mut leaves = Vec::new();
            for (pos, leaf) in sub.inputs.iter().enumerate() {
                if sub.leaf_position(leaf) != Some(pos as u32) {
                    continue;
                }
                let Some(i) = input_index(leaf) else {
                    bail!(
                        InvalidArgument,
                        "macro '{name}': the section reads the array made by {}, which is neither an input of the section nor computed inside it",
                        leaf.site
                    );
                };
                leaves.push((pos as u32, i as u32));
            }
            let (rng_uses, rng_params) = rng_draws(sub);
            let source = |p: u32| {
                let recorded = ParamSource::Recorded(r#gen::fill_value(&sub.order[p as usize]));
                (p, rng_params.get(&p).copied().unwrap_or(recorded))
            };
            let params = table(recipe.steps.iter().flat_map(|step| step.params.iter().map(|&p| source(p))));
            // A profiled replay also attributes each step to the recorded calls fused into it.
            let positions = recipe.steps.iter().flat_map(|s| std::iter::once(s.site).chain(s.shares.iter().map(|w| w.0)));
            let sites = table(positions.map(|i| (i, sub.order[i as usize].site)));
            let slot_of = |o: &Arc<Node>| {
                let i = sub.index_of(o).expect("roots are in the subgraph") as u32;
                recipe.stored.iter().position(|&s| s == i).expect("roots are stored") as u32
            };
            let refs: Vec<OutputRef> = outputs
                .iter()
                .map(|o| match input_index(o) {
                    Some(i) => OutputRef::Input(i as u32),
                    None => OutputRef::Slot(slot_of(o)),
                })
                .collect();
            Ok((table(leaves), params, sites, refs, rng_uses))
        })?;
        let (leaves, params, sites, outputs, rng_uses) = recorded;
        Ok(Some(MacroEntry { recipe, leaves, params, sites, outputs, rng_uses }))
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
