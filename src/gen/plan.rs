//! The decisions of a flush: which values to store, and which stored values share a
//! kernel.

use std::sync::Arc;

use super::GenOptions;
use super::build::Subgraph;
use crate::ir::{BinaryOp, Node, Op, Shape, UnaryOp, ViewStep};

/// Relative compute cost of one op, for deciding between recomputing and storing.
fn op_cost(op: &Op) -> usize {
    match op {
        Op::Unary(u) if u.is_transcendental() && *u != UnaryOp::Sqrt => 8,
        Op::Binary(BinaryOp::Pow | BinaryOp::Atan2 | BinaryOp::Hypot | BinaryOp::Rem) => 8,
        Op::Random { .. } | Op::Sobol { .. } => 8,
        Op::View(_) | Op::Fill { .. } | Op::Iota { .. } => 0,
        _ => 1,
    }
}

/// Recompute a value shared by kernels of different domains only if cheaper than this.
const STORE_COST: usize = 8;

/// Whether `op` is costly math (what `Limits::reductions_fuse_costly_math` is about).
fn is_costly(op: &Op) -> bool {
    op_cost(op) >= STORE_COST
}

/// What the executor allows a kernel.
pub struct Limits {
    /// The most values one kernel may store.
    pub max_outputs: usize,
    /// See `Executor::reductions_fuse_costly_math`.
    pub reductions_fuse_costly_math: bool,
}

/// The domain a stored node is computed over, and its reduction/scan axis if any.
fn domain_of(n: &Node, inputs: &[Arc<Node>]) -> (Shape, Option<Option<u8>>) {
    match &n.op {
        Op::Reduce { axis, .. } => (inputs[0].shape, Some(*axis)),
        Op::Scan { axis, .. } => (inputs[0].shape, Some(Some(*axis))),
        // Computed over the placed view, the values' shape.
        Op::Assign(_) => (inputs[1].shape, None),
        _ => (n.shape, None),
    }
}

pub struct Group {
    pub domain: Shape,
    /// `None` until a reduction or scan joins; then its axis.
    pub axis: Option<Option<u8>>,
    /// Subgraph indices of the values the kernel stores.
    pub members: Vec<usize>,
    ops: usize,
    pub intrinsic: bool,
    /// An assignment's kernel: it stores through a placement, and alone.
    alone: bool,
    /// Whether a member's fused expression has costly math.
    costly: bool,
}

/// Which pending values a flush stores, and how its stored values group into kernels.
pub struct Decisions {
    pub store: Vec<bool>,
    pub groups: Vec<Group>,
    /// For a stored value, its group.
    pub group_of: Vec<usize>,
}

pub fn decide(sub: &Subgraph, roots: &[Arc<Node>], opts: &GenOptions, limits: &Limits) -> Decisions {
    let order = &sub.order;
    let inputs_of: Vec<&[Arc<Node>]> = (0..order.len()).map(|i| sub.inputs_at(i)).collect();
    let n = order.len();
    let pending_input = |j: &Arc<Node>| sub.index_of(j);

    // Which values must be stored.
    // Constants are kernel parameters or compiled in: stored only when asked for (roots),
    // also when every other value is (a stored shared scalar operand would become an
    // outside array of the next macro section that uses it).
    let store_each = !opts.fuse || opts.store_all;
    let mut store: Vec<bool> = order.iter().map(|nd| store_each && !matches!(nd.op, Op::Fill { .. })).collect();
    for r in roots {
        if let Some(i) = sub.index_of(r) {
            store[i] = true;
        }
    }
    for (i, nd) in order.iter().enumerate() {
        let boundary = matches!(nd.op, Op::Reduce { .. } | Op::Scan { .. } | Op::Assign(_)) || !nd.op.is_fusible();
        // A value computed before without being stored is stored on its second use, unless
        // it is a generator cheaper to recompute than to read (an iota kept for indexing
        // stays a coordinate, which a gather of whole slices recognises).
        let generator = matches!(nd.op, Op::Iota { .. } | Op::Identity | Op::Fill { .. });
        if boundary || (sub.fused_before[i] && !generator) {
            store[i] = true;
        }
        // Intrinsics read stored operands; gathers read their source at run-time indices.
        let stored_inputs = match nd.op {
            Op::MatMul { .. }
            | Op::Fft(_)
            | Op::Factor(_)
            | Op::Sort(_)
            | Op::Scatter { .. }
            | Op::IndexCheck { .. } => inputs_of[i].len(),
            // The array an assignment makes a new version of; Sobol's direction numbers.
            Op::Gather | Op::Assign(_) | Op::Sobol { .. } => 1,
            _ => 0,
        };
        for j in inputs_of[i][..stored_inputs].iter().filter_map(pending_input) {
            store[j] = true;
        }
    }
    // Whether each value's fused expression has costly math; where reductions may not
    // share a kernel with it, their operands with costly math are stored.
    let mut costly = vec![false; n];
    let apart = !limits.reductions_fuse_costly_math;
    for i in 0..n {
        let reduces = matches!(order[i].op, Op::Reduce { .. } | Op::Scan { .. });
        let mut c = is_costly(&order[i].op);
        for j in inputs_of[i].iter().filter_map(pending_input) {
            if store[j] || !costly[j] {
                continue;
            }
            if apart && reduces {
                store[j] = true;
            } else {
                c = true;
            }
        }
        costly[i] = c;
    }
    // Values read at several places of one domain (a stencil reads its input through
    // several shifts): each view recomputes them, so chains of such reads grow
    // geometrically unless the values are stored.
    let mut readers = vec![0u32; n];
    let mut viewed = vec![false; n];
    for i in 0..n {
        let view = matches!(order[i].op, Op::View(step) if step != ViewStep::Reshape);
        for j in inputs_of[i].iter().filter_map(pending_input) {
            readers[j] += 1;
            viewed[j] |= view;
        }
    }
    // Fused expression size and cost; very large expressions, and costly values read
    // through several views, are stored.
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
        if s > opts.max_kernel_ops || (viewed[i] && readers[i] > 1 && c > STORE_COST) {
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
            let elementwise = !matches!(order[j].op, Op::Reduce { .. } | Op::Scan { .. } | Op::Assign(_))
                && !groups[group_of[j]].intrinsic;
            let gathered = matches!(order[i].op, Op::Gather | Op::Assign(_) | Op::Sobol { .. }) && k == 0;
            // A value stored because several views read it is read back, not recomputed
            // through each view in the kernel that stores it.
            let reread =
                viewed[j] && readers[j] > 1 && matches!(order[i].op, Op::View(step) if step != ViewStep::Reshape);
            if elementwise && !gathered && !reread { w = w.max(g) } else { a = a.max(g) }
        }
        (after[i], with[i]) = (a, w);
        if !store[i] {
            continue;
        }
        let nd = &order[i];
        let intrinsic = !nd.op.is_fusible();
        let alone = matches!(nd.op, Op::Assign(_));
        let (domain, axis) = domain_of(nd, inputs_of[i]);
        let joinable = |g: &Group| {
            !intrinsic
                && !alone
                && !g.intrinsic
                && !g.alone
                && opts.fuse
                && g.domain == domain
                && (axis.is_none() || g.axis.is_none() || g.axis == axis)
                && g.ops + size[i] <= opts.max_kernel_ops
                && g.members.len() < limits.max_outputs
                && (limits.reductions_fuse_costly_math
                    || !((axis.is_some() && g.costly) || (costly[i] && g.axis.is_some())))
        };
        let target = groups.iter().rposition(joinable).filter(|&g| g as isize > a && g as isize >= w);
        let g = match target {
            Some(g) => g,
            None => {
                groups.push(Group { domain, axis: None, members: Vec::new(), ops: 0, intrinsic, alone, costly: false });
                groups.len() - 1
            }
        };
        let grp = &mut groups[g];
        grp.members.push(i);
        grp.ops += size[i];
        grp.costly |= costly[i];
        if axis.is_some() {
            grp.axis = axis;
        }
        group_of[i] = g;
    }

    Decisions { store, groups, group_of }
}
