//! Kernel formation: from the pending part of the graph that some roots need, decide
//! which values to store (liveness and fusion boundaries), group stored values into
//! fused kernels, build and compile each kernel, and return the program sequence.

mod build;
mod plan;

use std::sync::Arc;

use build::{KernelBuilder, Leaf, Subgraph};
use plan::{Decisions, decide};

use crate::exec::{Binding, Executor, ProgramSequence, Step, StepOutput, Work};
use crate::ir::{Layout, Node, NodeState, Op, Promise, Result};

#[derive(Clone, Debug)]
pub struct GenOptions {
    /// Off: every op is its own kernel and every value is stored (op-by-op evaluation).
    pub fuse: bool,
    /// Largest fused expression (in ops) before an intermediate is stored.
    pub max_kernel_ops: usize,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions { fuse: true, max_kernel_ops: 4096 }
    }
}

/// A planned flush: the sequence to submit, the nodes it computes (with the promise
/// each will be fulfilled through), and pending nodes it computed without storing.
pub struct Plan {
    pub seq: ProgramSequence,
    pub scheduled: Vec<(Arc<Node>, Arc<Promise>)>,
    pub unstored: Vec<Arc<Node>>,
}

/// Pending nodes reachable from `roots`, inputs before consumers.
fn pending_subgraph(roots: &[Arc<Node>], epoch: u32) -> Subgraph {
    let mut sub =
        Subgraph { epoch, order: Vec::new(), ranges: Vec::new(), inputs: Vec::new(), fused_before: Vec::new() };
    // A node being visited is marked with index u32::MAX until it is placed.
    let visiting = u32::MAX;
    struct Visit {
        node: Arc<Node>,
        /// Its inputs' range in `sub.inputs`.
        inputs: (u32, u32),
        fused_before: bool,
        next_input: u32,
    }
    let mut stack: Vec<Visit> = Vec::new();
    let enter = |n: &Arc<Node>, sub: &mut Subgraph, stack: &mut Vec<Visit>| {
        let start = sub.inputs.len() as u32;
        let mut fused_before = false;
        let pending = n.with_pending(|inputs, fused| {
            sub.inputs.extend(inputs.iter().cloned());
            fused_before = fused;
        });
        if pending {
            n.set_plan_index(epoch, visiting);
            stack.push(Visit {
                node: n.clone(),
                inputs: (start, sub.inputs.len() as u32 - start),
                fused_before,
                next_input: 0,
            });
        }
    };
    // Marks from a flush 2^32 epochs ago could collide, so a placed mark only counts when
    // it points back at the node.
    let seen = |n: &Node, sub: &Subgraph| match n.plan_index(epoch) {
        Some(i) if i == visiting => true,
        Some(_) => sub.index_of(n).is_some(),
        None => false,
    };
    for r in roots {
        if !seen(r, &sub) {
            enter(r, &mut sub, &mut stack);
        }
        while let Some(top) = stack.last_mut() {
            let (start, len) = top.inputs;
            if top.next_input < len {
                let c = sub.inputs[(start + top.next_input) as usize].clone();
                top.next_input += 1;
                if !seen(&c, &sub) {
                    enter(&c, &mut sub, &mut stack);
                }
            } else {
                let done = stack.pop().expect("non-empty");
                done.node.set_plan_index(epoch, sub.order.len() as u32);
                sub.order.push(done.node);
                sub.ranges.push(done.inputs);
                sub.fused_before.push(done.fused_before);
            }
        }
    }
    sub
}

/// Plans the flush of `roots`; `epoch` must differ from every earlier flush's.
pub fn plan(roots: &[Arc<Node>], epoch: u32, exec: &dyn Executor, opts: &GenOptions) -> Result<Plan> {
    let sub = pending_subgraph(roots, epoch);
    let order = &sub.order;
    let n = order.len();

    let Decisions { store, groups, group_of } = decide(&sub, roots, opts);
    let promises: Vec<Option<Arc<Promise>>> = (0..n).map(|i| store[i].then(Promise::new)).collect();
    // How kernel `g` reads a node: values stored by the same kernel are recomputed in
    // place (sharing the instructions that store them).
    let leaf_in = |g: usize, nd: &Arc<Node>| -> Leaf {
        match sub.index_of(nd) {
            Some(i) => match &promises[i] {
                Some(_) if group_of[i] == g => Leaf::Fused,
                Some(p) => Leaf::Array(Binding::Promise(p.clone()), Layout::dense(&nd.shape)),
                None => Leaf::Fused,
            },
            None => match &*nd.state() {
                NodeState::Ready(v) => Leaf::Array(Binding::Value(v.clone()), v.layout),
                NodeState::Scheduled(p) => Leaf::Array(Binding::Promise(p.clone()), Layout::dense(&nd.shape)),
                NodeState::Failed(e) => {
                    Leaf::Array(Binding::Promise(Promise::failed(e.clone())), Layout::dense(&nd.shape))
                }
                NodeState::Pending { .. } => unreachable!("pending nodes are in the subgraph"),
            },
        }
    };

    let mut seq = ProgramSequence::default();
    for (g, grp) in groups.iter().enumerate() {
        let leaf = |nd: &Arc<Node>| leaf_in(g, nd);
        let first = &order[grp.members[0]];
        let outputs: Vec<StepOutput> = grp
            .members
            .iter()
            .map(|&i| StepOutput {
                dtype: order[i].dtype,
                shape: order[i].shape,
                promise: promises[i].clone().expect("stored"),
            })
            .collect();
        let step = if grp.intrinsic {
            let inputs = sub
                .inputs_at(grp.members[0])
                .iter()
                .map(|j| match leaf(j) {
                    Leaf::Array(b, _) => b,
                    Leaf::Fused => unreachable!("intrinsic operands are stored"),
                })
                .collect();
            let work = match &first.op {
                Op::MatMul => {
                    let (a, b) = (&sub.inputs_at(grp.members[0])[0], &sub.inputs_at(grp.members[0])[1]);
                    Work::MatMul { dtype: first.dtype, m: a.shape.dim(0), k: a.shape.dim(1), n: b.shape.dim(1) }
                }
                Op::Scatter { mode } => {
                    let ins = sub.inputs_at(grp.members[0]);
                    Work::Scatter {
                        mode: *mode,
                        dtype: first.dtype,
                        dst_shape: ins[0].shape,
                        values_shape: ins[1].shape,
                    }
                }
                other => unreachable!("{} is not an intrinsic", other.name()),
            };
            Step { work, inputs, params: Vec::new(), outputs, site: first.site }
        } else {
            let mut kb = KernelBuilder::new(grp.domain, grp.axis.flatten(), &sub, &leaf);
            for &i in &grp.members {
                kb.add_output(&order[i]);
            }
            let (kernel, inputs, params) = kb.finish();
            let kernel = Arc::new(kernel);
            let compiled = exec.compile(kernel.clone())?;
            Step { work: Work::Kernel { kernel, compiled }, inputs, params, outputs, site: first.site }
        };
        seq.steps.push(step);
    }

    let scheduled = (0..n).filter_map(|i| promises[i].clone().map(|p| (order[i].clone(), p))).collect();
    let unstored = (0..n).filter(|&i| !store[i] && order[i].has_handles()).map(|i| order[i].clone()).collect();
    Ok(Plan { seq, scheduled, unstored })
}
