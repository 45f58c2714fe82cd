//! A planned flush in a reusable form: every step refers to the flush's subgraph by
//! position instead of by node, so the trace cache can replay it on a later flush whose
//! subgraph has the same key (see `key.rs`), with that flush's arrays and scalars.

use std::sync::Arc;

use smallvec::SmallVec;

use super::build::Subgraph;
use super::cost::Shares;
use crate::exec::{Binding, ProgramSequence, Step, StepCall, StepOutput, StepValues, Work};
use crate::ir::{CallSite, DType, Error, Layout, Node, NodeState, Op, Promise, Scalar, Shape, Value};

/// Per stored slot of a recipe run now: its value or failure (`None` until a step stores it).
pub type SlotValues = SmallVec<[Option<std::result::Result<Value, Arc<Error>>>; 4]>;

/// Where a step's input comes from.
#[derive(Copy, Clone, Debug)]
pub enum Source {
    /// The value the sequence stores in slot `n` (see `Recipe::stored`).
    Stored(u32),
    /// The array already computed or scheduled by an earlier flush at position `n` of
    /// the subgraph's input list.
    Leaf(u32),
}

/// How a node outside the subgraph is read: its elements' layout.
pub fn leaf_layout(n: &Node) -> Layout {
    // A computed leaf (the usual one) is read without its lock.
    if let Some(v) = n.computed() {
        return v.layout;
    }
    match &*n.state() {
        NodeState::Ready(v) => layout_of(n, Some(v)),
        _ => layout_of(n, None),
    }
}

/// `leaf_layout` of `n` when its value (if computed) is `value`.
pub fn layout_of(n: &Node, value: Option<&Value>) -> Layout {
    // Results of scheduled work are allocated dense.
    value.map_or_else(|| Layout::dense(&n.shape), |v| v.layout)
}

pub fn leaf_binding(n: &Node) -> Binding {
    if let Some(v) = n.computed() {
        return Binding::Value(v.clone());
    }
    match &*n.state() {
        NodeState::Ready(v) => Binding::Value(v.clone()),
        NodeState::Scheduled(p) => Binding::Promise(p.clone()),
        NodeState::Failed(e) => Binding::Promise(Promise::failed(e.clone())),
        NodeState::Pending { .. } => unreachable!("pending nodes are in the subgraph"),
    }
}

pub struct StepRecipe {
    pub work: Work,
    pub inputs: Vec<Source>,
    /// Subgraph index of the fill node holding each parameter's value.
    pub params: Vec<u32>,
    /// Stored slots the step writes.
    pub outputs: Vec<u32>,
    /// Subgraph index of the node whose call site the step reports failures against.
    pub site: u32,
    /// Subgraph index of each node fused into the step, with its share of the step's cost
    /// (summing to 1): a replay attributes the step's time to its own flush's call sites.
    pub shares: Shares,
}

impl StepRecipe {
    /// The leaf positions the step reads, in input order (all its inputs, for a `lone_step`).
    pub fn leaf_inputs(&self) -> impl Iterator<Item = u32> + '_ {
        self.inputs.iter().filter_map(|s| match *s {
            Source::Leaf(pos) => Some(pos),
            Source::Stored(_) => None,
        })
    }

    /// The step's shares with each subgraph position bound to its call site by `site`;
    /// only a profile reads them, so nothing is allocated when profiling is off.
    fn bound_shares(&self, site: &impl Fn(u32) -> CallSite) -> Vec<(CallSite, f32)> {
        if crate::profile::enabled() { self.shares.iter().map(|&(i, w)| (site(i), w)).collect() } else { Vec::new() }
    }
}

#[derive(Default)]
pub struct Recipe {
    pub steps: Vec<StepRecipe>,
    /// Subgraph index of the node stored in each slot, and its type and shape.
    pub stored: Vec<u32>,
    pub slot_types: Vec<(DType, Shape)>,
    /// Per subgraph node, whether it is stored.
    pub is_stored: Vec<bool>,
    /// Per subgraph node, how many times nodes of the subgraph read it
    /// (`Subgraph::uses`, the same for every flush with the recipe's key).
    pub uses: Vec<usize>,
    /// Per stored slot, the step that reads it last (or stores it, if none reads it).
    pub last_read: Vec<u32>,
}

/// The promise of each stored slot of a sequence.
pub type Promises = SmallVec<[Arc<Promise>; 4]>;

/// A planned flush: the sequence to submit, the nodes it computes (with the promise
/// each will be fulfilled through, in slot order), pending nodes it computed without
/// storing, and the recipe it was made from.
pub struct Plan {
    pub seq: ProgramSequence,
    pub scheduled: Vec<(Arc<Node>, Arc<Promise>)>,
    pub unstored: Vec<Arc<Node>>,
    recipe: Arc<Recipe>,
}

impl Recipe {
    /// The program sequence with each leaf position bound by `leaf`, each parameter's
    /// fill node (a subgraph index) valued by `param`, and each step reporting failures
    /// at `site` of its subgraph node; with the promise of each stored slot.
    pub fn sequence(
        &self,
        leaf: impl Fn(u32) -> Binding,
        param: impl Fn(u32) -> Scalar,
        site: impl Fn(u32) -> CallSite,
    ) -> (ProgramSequence, Promises) {
        let promises: Promises = self.stored.iter().map(|_| Promise::new()).collect();
        let binding = |s: &Source| match *s {
            Source::Stored(slot) => Binding::Promise(promises[slot as usize].clone()),
            Source::Leaf(pos) => leaf(pos),
        };
        let steps = self
            .steps
            .iter()
            .map(|r| Step {
                work: r.work.clone(),
                inputs: r.inputs.iter().map(binding).collect(),
                params: r.params.iter().map(|&i| param(i)).collect(),
                outputs: r
                    .outputs
                    .iter()
                    .map(|&slot| {
                        let (dtype, shape) = self.slot_types[slot as usize];
                        StepOutput {
                            dtype,
                            shape,
                            promise: promises[slot as usize].clone(),
                            check: None,
                            read_back: false,
                        }
                    })
                    .collect(),
                site: site(r.site),
                // Only a profile reads these: nothing is allocated when profiling is off.
                shares: r.bound_shares(&site),
                in_place: false,
            })
            .collect();
        (ProgramSequence { steps, retired: Vec::new(), release_after: Vec::new() }, promises)
    }

    /// Runs the steps now, one after another, with each leaf position bound to the value
    /// `leaf` lends, parameters and call sites as for `sequence`, and `run` running one
    /// step; `slots` receives the value (or failure) of each stored slot (filled in
    /// place: it is inline and large). A step reading a failed slot fails with the same
    /// error, as in a submitted sequence.
    pub fn run_now<'v>(
        &self,
        leaf: impl Fn(u32) -> &'v Value,
        param: impl Fn(u32) -> Scalar,
        site: impl Fn(u32) -> CallSite,
        run: impl Fn(StepCall, &mut StepValues) -> std::result::Result<(), Arc<Error>>,
        slots: &mut SlotValues,
    ) {
        slots.clear();
        for _ in &self.stored {
            slots.push(None);
        }
        for r in &self.steps {
            let mut inputs: SmallVec<[Value; 4]> = SmallVec::new();
            let mut failed = None;
            for s in &r.inputs {
                match *s {
                    Source::Leaf(pos) => inputs.push(leaf(pos).clone()),
                    Source::Stored(slot) => match slots[slot as usize].as_ref().expect("stored by an earlier step") {
                        Ok(v) => inputs.push(v.clone()),
                        Err(e) => failed = Some(e.clone()),
                    },
                }
            }
            let mut values = StepValues::new();
            let result = match failed {
                Some(e) => Err(e),
                None => self.run_step(r, &inputs, &param, &site, &run, &mut values),
            };
            match result {
                Ok(()) => {
                    for (&slot, v) in r.outputs.iter().zip(values) {
                        slots[slot as usize] = Some(Ok(v));
                    }
                }
                Err(e) => {
                    for &slot in &r.outputs {
                        slots[slot as usize] = Some(Err(e.clone()));
                    }
                }
            }
        }
    }

    /// The recipe's step when it is the only one and reads only leaves (a loop's replayed
    /// kernel): a replay runs it with `run_step`, without slot lists.
    pub fn lone_step(&self) -> Option<&StepRecipe> {
        match &self.steps[..] {
            [r] if r.inputs.iter().all(|s| matches!(s, Source::Leaf(_))) => Some(r),
            _ => None,
        }
    }

    /// Runs step `r` of the recipe on `inputs` with `run`, parameters and call sites as
    /// for `run_now`; its outputs are pushed onto `values`.
    pub fn run_step(
        &self,
        r: &StepRecipe,
        inputs: &[Value],
        param: impl Fn(u32) -> Scalar,
        site: impl Fn(u32) -> CallSite,
        run: impl Fn(StepCall, &mut StepValues) -> std::result::Result<(), Arc<Error>>,
        values: &mut StepValues,
    ) -> std::result::Result<(), Arc<Error>> {
        let mut params: SmallVec<[Scalar; 4]> = SmallVec::new();
        for &i in &r.params {
            params.push(param(i));
        }
        let mut outputs = r.outputs.iter().map(|&slot| self.slot_types[slot as usize]);
        let shares = r.bound_shares(&site);
        let step = StepCall {
            work: &r.work,
            inputs,
            params: &params,
            outputs: &mut outputs,
            site: site(r.site),
            shares: &shares,
        };
        run(step, values)
    }

    /// The plan for `sub`, which must have the key the recipe was made for.
    pub fn instantiate(self: &Arc<Self>, sub: &Subgraph) -> Plan {
        let order = &sub.order;
        let (seq, promises) = self.sequence(
            |pos| leaf_binding(&sub.inputs[pos as usize]),
            |i| fill_value(&order[i as usize]),
            |i| order[i as usize].site,
        );
        let unstored = order.iter().zip(&self.is_stored).filter(|(n, s)| !**s && n.has_handles());
        Plan {
            seq,
            scheduled: self.stored.iter().zip(promises).map(|(&i, p)| (order[i as usize].clone(), p)).collect(),
            unstored: unstored.map(|(n, _)| n.clone()).collect(),
            recipe: self.clone(),
        }
    }
}

impl Plan {
    /// Lists, in `seq.release_after`, the stored values nothing can read once the flush
    /// is over, each with the step that reads it last. Called under the planning lock
    /// once the stored nodes are scheduled (so nothing reaches their inputs through them
    /// any more: the graph's folds look into pending nodes only), with the flush's
    /// `roots`. What is read later, `read_later` decides.
    pub fn release_dead_values(&mut self, sub: &Subgraph, roots: &[Arc<Node>]) {
        // The usual flush stores only what the application holds: nothing to release.
        if self.scheduled.iter().all(|(n, _)| n.has_handles()) {
            return;
        }
        let later = self.read_later(sub, roots);
        let Recipe { last_read, stored, .. } = &*self.recipe;
        let dead = self.scheduled.iter().enumerate().filter(|&(slot, _)| !later[stored[slot] as usize]);
        let mut release: Vec<(usize, Arc<Promise>)> =
            dead.map(|(slot, (_, p))| (last_read[slot] as usize, p.clone())).collect();
        release.sort_by_key(|(s, _)| *s);
        self.seq.release_after = release;
    }

    /// Lets each assignment step write into the storage of the array it makes a new
    /// version of (`Step::in_place`) when nothing can read that array once the step has
    /// run: no later step reads it, and it is not read after the flush (for a value this
    /// flush stores, as `release_dead_values` decides; for an array computed before,
    /// no handle and no holder beyond the flush's own references, zero-copy views of it
    /// included, and not itself such a view). Called where `release_dead_values` is.
    /// Decided per flush, so a replayed recipe decides afresh.
    pub fn mark_in_place(&mut self, sub: &Subgraph, roots: &[Arc<Node>]) {
        let recipe = self.recipe.clone();
        let mut later = None;
        for (s, r) in recipe.steps.iter().enumerate() {
            let Work::Kernel { kernel, .. } = &r.work else { continue };
            let Some(into) = kernel.outputs.first().and_then(|o| o.into) else { continue };
            let free = match r.inputs[into.input as usize] {
                Source::Stored(slot) => {
                    let later = later.get_or_insert_with(|| self.read_later(sub, roots));
                    !later[recipe.stored[slot as usize] as usize] && recipe.last_read[slot as usize] == s as u32
                }
                Source::Leaf(pos) => {
                    let n = &sub.inputs[pos as usize];
                    let read_after = recipe.steps[s + 1..].iter().any(|r| r.leaf_inputs().any(|p| p == pos));
                    // Two references per place the flush reads it: its input list and the reader's.
                    let occurrences = sub.inputs.iter().filter(|i| Arc::ptr_eq(i, n)).count();
                    !read_after && !n.has_handles() && !n.is_view() && Arc::strong_count(n) == 2 * occurrences
                }
            };
            self.seq.steps[s].in_place = free;
        }
    }

    /// Per subgraph node, whether anything can read it once the flush is over: a root,
    /// held by the application, or by anything outside the flush
    /// (`Subgraph::held_elsewhere`, counting the reference `scheduled` holds to a stored
    /// node). An unstored node read later stays pending and reads its inputs again, so
    /// they are read later too.
    fn read_later(&self, sub: &Subgraph, roots: &[Arc<Node>]) -> SmallVec<[bool; 64]> {
        // What depends only on the key (which node reads which) comes from the recipe;
        // what the application holds now, from the nodes.
        let Recipe { is_stored, uses, .. } = &*self.recipe;
        let n = sub.order.len();
        let mut later: SmallVec<[bool; 64]> = smallvec::smallvec![false; n];
        for r in roots.iter().filter_map(|r| sub.index_of(r)) {
            later[r] = true;
        }
        // Readers come after what they read: each node's verdict is final when reached.
        for i in (0..n).rev() {
            later[i] |= sub.order[i].has_handles() || sub.held_elsewhere(i, uses, is_stored[i] as usize);
            if later[i] && !is_stored[i] {
                for j in sub.inputs_at(i).iter().filter_map(|x| sub.index_of(x)) {
                    later[j] = true;
                }
            }
        }
        later
    }
}

/// The value of a fill node that a kernel takes as a parameter.
pub fn fill_value(n: &Node) -> Scalar {
    match n.op {
        Op::Fill { value, .. } => value,
        _ => unreachable!("parameters come from fill nodes"),
    }
}
