//! Kernel formation: from the pending part of the graph that some roots need, decide
//! which values to store (liveness and fusion boundaries), group stored values into
//! fused kernels, build and compile each kernel, and return the program sequence.

mod build;
mod cost;
mod key;
mod plan;
mod recipe;

use std::sync::Arc;

use smallvec::SmallVec;

pub use build::Subgraph;
use build::{KernelBuilder, LEAF_MARK, Leaf};
pub use key::{Difference, TraceKey};
use plan::{Decisions, Limits, decide};
pub use recipe::{Plan, Recipe, SlotValues, fill_value, layout_of, leaf_binding, leaf_layout};
use recipe::{Source, StepRecipe};

use crate::exec::{Batch, Executor, Work};
use crate::ir::{Layout, Node, Op, Result};

#[derive(Clone, Debug)]
pub struct GenOptions {
    /// Off: every op is its own kernel and every value is stored (op-by-op evaluation).
    pub fuse: bool,
    /// Largest fused expression (in ops) before an intermediate is stored.
    pub max_kernel_ops: usize,
    /// Every value is stored while kernels stay fused (result comparison checks each op).
    pub store_all: bool,
    /// Test-only: results of the op with this name come out slightly wrong, so result
    /// comparison has a wrong kernel to find (`SLUICE_TEST_PERTURB`).
    pub perturb: Option<Arc<str>>,
}

impl Default for GenOptions {
    fn default() -> Self {
        GenOptions { fuse: true, max_kernel_ops: 4096, store_all: false, perturb: None }
    }
}

/// Pending nodes reachable from `roots`, inputs before consumers; nodes outside it that
/// they read (leaves) are marked with their first position among the inputs. The lists
/// are `spare`'s (an empty subgraph whose lists a flush gave back), sized for at least
/// `size_hint` nodes.
pub fn pending_subgraph(roots: &[Arc<Node>], epoch: u32, size_hint: usize, spare: Subgraph) -> Subgraph {
    let mut sub = Subgraph { epoch, ..spare };
    debug_assert!(sub.order.is_empty() && sub.inputs.is_empty(), "spare lists are empty");
    sub.order.reserve(size_hint);
    sub.ranges.reserve(size_hint);
    sub.inputs.reserve(size_hint * 2);
    sub.fused_before.reserve(size_hint);
    // A node being visited is marked with index u32::MAX until it is placed.
    let visiting = u32::MAX;
    struct Visit {
        node: Arc<Node>,
        /// Its inputs' range in `sub.inputs`.
        inputs: (u32, u32),
        fused_before: bool,
        next_input: u32,
    }
    // Inline for the depth of a small flush's graph.
    let mut stack: SmallVec<[Visit; 16]> = SmallVec::new();
    // Enters node `n`, read at position `pos` of `sub.inputs` (none for a root).
    let enter = |n: &Arc<Node>, pos: Option<u32>, sub: &mut Subgraph, stack: &mut SmallVec<[Visit; 16]>| {
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
        } else if let Some(pos) = pos {
            n.set_plan_index(epoch, LEAF_MARK | pos);
        }
    };
    // Marks from a flush 2^32 epochs ago could collide, so a mark only counts when it
    // points back at the node.
    let seen = |n: &Node, sub: &Subgraph| match n.plan_index(epoch) {
        Some(i) if i == visiting => true,
        Some(_) => sub.index_of(n).is_some() || sub.leaf_position(n).is_some(),
        None => false,
    };
    for r in roots {
        if !seen(r, &sub) {
            enter(r, None, &mut sub, &mut stack);
        }
        while let Some(top) = stack.last_mut() {
            let (start, len) = top.inputs;
            if top.next_input < len {
                let pos = start + top.next_input;
                top.next_input += 1;
                if !seen(&sub.inputs[pos as usize], &sub) {
                    let c = sub.inputs[pos as usize].clone();
                    enter(&c, Some(pos), &mut sub, &mut stack);
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

/// Per stored slot, the last step that reads it (the step storing it, if none does).
fn last_reads(steps: &[StepRecipe], slots: usize) -> Vec<u32> {
    let mut last = vec![0; slots];
    for (s, step) in steps.iter().enumerate() {
        let read = step.inputs.iter().filter_map(|src| match *src {
            Source::Stored(slot) => Some(slot),
            Source::Leaf(_) => None,
        });
        for slot in step.outputs.iter().copied().chain(read) {
            last[slot as usize] = s as u32;
        }
    }
    last
}

/// Plans the flush of subgraph `sub` (from `pending_subgraph(roots, ..)`): decides what
/// to store, groups stored values into kernels and compiles them.
pub fn compile(sub: &Subgraph, roots: &[Arc<Node>], exec: &dyn Executor, opts: &GenOptions) -> Result<Recipe> {
    let order = &sub.order;
    let n = order.len();

    let limits = Limits {
        max_outputs: exec.max_kernel_outputs(),
        reductions_fuse_costly_math: exec.reductions_fuse_costly_math(),
    };
    let Decisions { store, groups, group_of } = decide(sub, roots, opts, &limits);
    let mut slot_of = vec![u32::MAX; n];
    let mut stored = Vec::new();
    for i in (0..n).filter(|&i| store[i]) {
        slot_of[i] = stored.len() as u32;
        stored.push(i as u32);
    }
    // How kernel `g` reads a node: values stored by the same kernel are recomputed in
    // place (sharing the instructions that store them).
    let leaf_in = |g: usize, nd: &Arc<Node>| -> Leaf {
        match sub.index_of(nd) {
            Some(i) if store[i] && group_of[i] != g => {
                Leaf::Array(Source::Stored(slot_of[i]), Layout::dense(&nd.shape))
            }
            Some(_) => Leaf::Fused,
            None => Leaf::Array(Source::Leaf(sub.leaf_position(nd).expect("leaves are marked")), leaf_layout(nd)),
        }
    };

    let mut steps = Vec::with_capacity(groups.len());
    for (g, grp) in groups.iter().enumerate() {
        let leaf = |nd: &Arc<Node>| leaf_in(g, nd);
        let head = grp.members[0];
        let first = &order[head];
        let outputs = grp.members.iter().map(|&i| slot_of[i]).collect();
        let step = if grp.intrinsic {
            let ins = sub.inputs_at(head);
            let inputs = ins
                .iter()
                .map(|j| match leaf(j) {
                    Leaf::Array(s, _) => s,
                    Leaf::Fused => unreachable!("intrinsic operands are stored"),
                })
                .collect();
            let work = match &first.op {
                Op::MatMul { conj, semiring } => Work::MatMul {
                    dtype: ins[0].dtype,
                    conj: *conj,
                    semiring: *semiring,
                    m: ins[0].shape.dim(0),
                    k: ins[0].shape.dim(1),
                    n: ins[1].shape.dim(1),
                    batch: Batch::of(&first.shape, [&ins[0].shape, &ins[1].shape]),
                },
                Op::Fft(spec) => {
                    Work::Fft { spec: *spec, dtype: ins[0].dtype, shape: ins[0].shape, out_shape: first.shape }
                }
                Op::Factor(op) => Work::Factor {
                    op: *op,
                    dtype: ins[0].dtype,
                    shapes: ins.iter().map(|i| i.shape).collect(),
                    out_shape: first.shape,
                },
                Op::Sort(op) => Work::Sort {
                    op: *op,
                    dtype: ins[0].dtype,
                    shapes: ins.iter().map(|i| i.shape).collect(),
                    out_shape: first.shape,
                },
                Op::Scatter { mode } => Work::Scatter {
                    mode: *mode,
                    dtype: first.dtype,
                    dst_shape: ins[0].shape,
                    values_shape: ins[1].shape,
                },
                Op::IndexCheck { what, src, out } => Work::IndexCheck { what, src: *src, out: *out },
                other => unreachable!("{} is not an intrinsic", other.name()),
            };
            StepRecipe {
                work,
                inputs,
                params: Vec::new(),
                outputs,
                site: head as u32,
                shares: vec![(head as u32, 1.0)],
            }
        } else {
            let mut kb = KernelBuilder::new(grp.domain, grp.axis.flatten(), sub, &leaf, opts.perturb.as_deref());
            for &i in &grp.members {
                kb.add_output(&order[i]);
            }
            let (kernel, inputs, params, shares) = kb.finish();
            let kernel = Arc::new(kernel);
            let timer = crate::profile::CompileTimer::begin();
            let compiled = exec.compile(kernel.clone())?;
            if let Some(t) = timer {
                t.end(exec.name(), &kernel);
            }
            let work = Work::Kernel { kernel, compiled };
            StepRecipe { work, inputs, params, outputs, site: head as u32, shares }
        };
        steps.push(step);
    }
    let slot_types = stored.iter().map(|&i| (order[i as usize].dtype, order[i as usize].shape)).collect();
    let uses = sub.uses();
    let last_read = last_reads(&steps, stored.len());
    Ok(Recipe { steps, stored, slot_types, is_stored: store, uses, last_read })
}
