//! Kernel formation: from the pending part of the graph that some roots need, decide
//! which values to store (liveness and fusion boundaries), group stored values into
//! fused kernels, build and compile each kernel, and return the program sequence.

mod build;

use std::sync::Arc;

use build::{KernelBuilder, Leaf, Subgraph};

use crate::exec::{Binding, Executor, ProgramSequence, Step, StepOutput, Work};
use crate::ir::{Layout, Node, NodeState, Op, Promise, Result, Shape, UnaryOp, BinaryOp};

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
    let mut sub = Subgraph { epoch, order: Vec::new(), ranges: Vec::new(), inputs: Vec::new(), fused_before: Vec::new() };
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
            stack.push(Visit { node: n.clone(), inputs: (start, sub.inputs.len() as u32 - start), fused_before, next_input: 0 });
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

/// Relative compute cost of one op, for deciding between recomputing and storing.
fn op_cost(op: &Op) -> usize {
    match op {
        Op::Unary(u) if u.is_transcendental() && *u != UnaryOp::Sqrt => 8,
        Op::Binary(BinaryOp::Pow | BinaryOp::Atan2 | BinaryOp::Hypot | BinaryOp::Rem) => 8,
        Op::View(_) | Op::Fill { .. } | Op::Iota { .. } => 0,
        _ => 1,
    }
}

/// Recompute a value shared by kernels of different domains only if cheaper than this.
const STORE_COST: usize = 8;

/// The domain a stored node is computed over, and its reduction/scan axis if any.
fn domain_of(n: &Node, inputs: &[Arc<Node>]) -> (Shape, Option<Option<u8>>) {
    match &n.op {
        Op::Reduce { axis, .. } => (inputs[0].shape, Some(*axis)),
        Op::Scan { axis, .. } => (inputs[0].shape, Some(Some(*axis))),
        _ => (n.shape, None),
    }
}

struct Group {
    domain: Shape,
    /// `None` until a reduction or scan joins; then its axis.
    axis: Option<Option<u8>>,
    members: Vec<usize>,
    ops: usize,
    intrinsic: bool,
}

/// Plans the flush of `roots`; `epoch` must differ from every earlier flush's.
pub fn plan(roots: &[Arc<Node>], epoch: u32, exec: &dyn Executor, opts: &GenOptions) -> Result<Plan> {
    let sub = pending_subgraph(roots, epoch);
    let order = &sub.order;
    let inputs_of: Vec<&[Arc<Node>]> = (0..order.len()).map(|i| sub.inputs_at(i)).collect();
    let n = order.len();
    let pending_input = |j: &Arc<Node>| sub.index_of(j);

    // Which values must be stored.
    let mut store = vec![!opts.fuse; n];
    for r in roots {
        if let Some(i) = sub.index_of(r) {
            store[i] = true;
        }
    }
    for (i, nd) in order.iter().enumerate() {
        let boundary = matches!(nd.op, Op::Reduce { .. } | Op::Scan { .. }) || !nd.op.is_fusible();
        if boundary || sub.fused_before[i] {
            store[i] = true;
        }
        // Intrinsics read stored operands; gathers read their source at run-time indices.
        let stored_inputs = match nd.op {
            Op::MatMul | Op::Scatter { .. } => inputs_of[i].len(),
            Op::Gather => 1,
            _ => 0,
        };
        for j in inputs_of[i][..stored_inputs].iter().filter_map(pending_input) {
            store[j] = true;
        }
    }
    // Fused expression size and cost; very large expressions are cut.
    let mut size = vec![0usize; n];
    let mut cost = vec![0usize; n];
    for i in 0..n {
        let (mut s, mut c) = (1usize, op_cost(&order[i].op));
        for j in inputs_of[i].iter().filter_map(pending_input) {
            if !store[j] {
                s = s.saturating_add(size[j]);
                c = c.saturating_add(cost[j]);
            }
        }
        if s > opts.max_kernel_ops {
            store[i] = true;
        }
        (size[i], cost[i]) = (s, c);
    }
    // A value read by kernels over different domains is stored when recomputing it in
    // each would cost more than storing it once.
    // Owners are domains, numbered so comparing them is cheap (flushes see few domains).
    #[derive(Copy, Clone, PartialEq)]
    enum Owner {
        None,
        One(usize),
        Many,
    }
    let mut domains: Vec<Shape> = Vec::new();
    let mut domain_id = |s: Shape| match domains.iter().rposition(|d| *d == s) {
        Some(k) => k,
        None => {
            domains.push(s);
            domains.len() - 1
        }
    };
    let mut owner = vec![Owner::None; n];
    for i in (0..n).rev() {
        if store[i] {
            owner[i] = Owner::One(domain_id(domain_of(&order[i], inputs_of[i]).0));
        } else if owner[i] == Owner::Many && cost[i] > STORE_COST {
            store[i] = true;
            owner[i] = Owner::One(domain_id(order[i].shape));
        }
        let mine = owner[i];
        for j in inputs_of[i].iter().filter_map(pending_input) {
            owner[j] = match (owner[j], mine) {
                (Owner::None, o) => o,
                (a, b) if a == b => a,
                _ => Owner::Many,
            };
        }
    }

    // Group stored values into kernels, in dependency order. A value may join the kernel
    // that stores an element-wise value it reads (the kernel computes it once, stores it
    // and uses it), but must come after kernels whose reductions, scans or intrinsic
    // results it reads, and after stored values it gathers from.
    let mut groups: Vec<Group> = Vec::new();
    let mut group_of = vec![usize::MAX; n];
    // Per value: latest group it must follow (`after`) or may share (`with`); -1 for none.
    let mut after = vec![-1isize; n];
    let mut with = vec![-1isize; n];
    for i in 0..n {
        let (mut a, mut w) = (-1isize, -1isize);
        for (k, j) in inputs_of[i].iter().enumerate() {
            let Some(j) = pending_input(j) else { continue };
            if !store[j] {
                a = a.max(after[j]);
                w = w.max(with[j]);
                continue;
            }
            let g = group_of[j] as isize;
            let elementwise = !matches!(order[j].op, Op::Reduce { .. } | Op::Scan { .. }) && !groups[group_of[j]].intrinsic;
            let gathered = matches!(order[i].op, Op::Gather) && k == 0;
            if elementwise && !gathered { w = w.max(g) } else { a = a.max(g) }
        }
        (after[i], with[i]) = (a, w);
        if !store[i] {
            continue;
        }
        let nd = &order[i];
        let intrinsic = !nd.op.is_fusible();
        let (domain, axis) = domain_of(nd, inputs_of[i]);
        let joinable = |g: &Group| {
            !intrinsic
                && !g.intrinsic
                && opts.fuse
                && g.domain == domain
                && (axis.is_none() || g.axis.is_none() || g.axis == axis)
                && g.ops + size[i] <= opts.max_kernel_ops
        };
        let target = groups.iter().rposition(joinable).filter(|&g| g as isize > a && g as isize >= w);
        let g = match target {
            Some(g) => g,
            None => {
                groups.push(Group { domain, axis: None, members: Vec::new(), ops: 0, intrinsic });
                groups.len() - 1
            }
        };
        let grp = &mut groups[g];
        grp.members.push(i);
        grp.ops += size[i];
        if axis.is_some() {
            grp.axis = axis;
        }
        group_of[i] = g;
    }

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
                NodeState::Failed(e) => Leaf::Array(Binding::Promise(Promise::failed(e.clone())), Layout::dense(&nd.shape)),
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
            let inputs = inputs_of[grp.members[0]]
                .iter()
                .map(|j| match leaf(j) {
                    Leaf::Array(b, _) => b,
                    Leaf::Fused => unreachable!("intrinsic operands are stored"),
                })
                .collect();
            let work = match &first.op {
                Op::MatMul => {
                    let (a, b) = (&inputs_of[grp.members[0]][0], &inputs_of[grp.members[0]][1]);
                    Work::MatMul { dtype: first.dtype, m: a.shape.dim(0), k: a.shape.dim(1), n: b.shape.dim(1) }
                }
                Op::Scatter { mode } => {
                    let ins = &inputs_of[grp.members[0]];
                    Work::Scatter { mode: *mode, dtype: first.dtype, dst_shape: ins[0].shape, values_shape: ins[1].shape }
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
