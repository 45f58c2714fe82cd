//! The distributed graph: nodes (a distributed array each: its meta and either its local
//! part, ready, or the deferred operation that makes it) and the application's handles to
//! them. A node whose inputs are all ready and that needs no communication is computed
//! when it is made (as Sluice calls, themselves deferred); the others wait for an
//! evaluation (eval.rs), which does their communication.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::dist::Meta;
use crate::error::{Result, bail};
use crate::sluice_sys::{Local, SL_C64, SL_C128, SL_ERR_INVALID_HANDLE, SL_F32, SL_F64, SL_MUL, sl_dtype};

pub type NodeId = u64;

/// How the ranks combine their partial results of a reduction (`sl_mpi_order`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// `MPI_Allreduce` where MPI has the operation; the order of combination is MPI's.
    Fast,
    /// Partials gathered to every rank and combined there in rank order: the same bits on
    /// every rank and in every run with the same number of ranks.
    Ranks,
    /// The operands gathered and reduced as one process would: the one-process bits.
    Exact,
}

/// A local operation: applied to each rank's part, piece by piece along the distributed
/// dimension, without communication.
#[derive(Clone, Debug)]
pub enum MapOp {
    /// The input as it is (a replicated input cut to the result's distribution).
    Identity,
    Unary(i32),
    Binary(i32),
    BinaryScalar(i32, f64),
    ScalarBinary(i32, f64),
    Cast(sl_dtype),
    /// `sl_shift` along a dimension that is not the distributed one.
    Shift {
        dim: usize,
        offset: i64,
        boundary: i32,
        fill: f64,
    },
    /// `sl_reduce` along a dimension that is not the distributed one (all: replicated).
    Reduce {
        op: i32,
        dim: Option<usize>,
    },
    /// Rows of the first operand times the whole second one.
    Matmul,
    /// `sl_dot` of replicated operands.
    Dot,
}

impl MapOp {
    pub fn apply(&self, x: &[&Local]) -> Result<Local> {
        match *self {
            MapOp::Identity => x[0].retain(),
            MapOp::Unary(op) => x[0].unary(op),
            MapOp::Binary(op) => x[0].binary(op, x[1]),
            MapOp::BinaryScalar(op, s) => x[0].binary_scalar(op, s),
            MapOp::ScalarBinary(op, s) => x[0].scalar_binary(op, s),
            MapOp::Cast(t) => x[0].cast(t),
            MapOp::Shift { dim, offset, boundary, fill } => x[0].shift(dim, offset, boundary, fill),
            MapOp::Reduce { op, dim } => x[0].reduce(op, dim),
            MapOp::Matmul => x[0].matmul(x[1]),
            MapOp::Dot => x[0].dot(x[1]),
        }
    }

    /// Whether operand `i` is passed whole to every piece rather than cut along the
    /// distributed dimension with it.
    pub fn whole(&self, i: usize) -> bool {
        matches!(self, MapOp::Matmul) && i == 1
    }
}

/// The operation of a node that waits for communication.
#[derive(Clone, Debug)]
pub enum Pending {
    /// A local operation with at least one input not ready yet.
    Map { op: MapOp, inputs: Vec<NodeId> },
    /// `sl_shift` along the distributed dimension: halo exchange.
    Shift { input: NodeId, offset: i64, boundary: i32, fill: f64 },
    /// A reduction along the distributed dimension (`dim`) or over everything (`None`).
    Reduce { input: NodeId, op: i32, dim: Option<usize>, order: Order },
    /// `sl_dot` of two arrays distributed alike.
    Dot { a: NodeId, b: NodeId, order: Order },
    /// The same elements distributed along another dimension (`None`: replicated).
    Redistribute { input: NodeId, to: Option<usize> },
}

impl Pending {
    pub fn inputs(&self) -> Vec<NodeId> {
        match self {
            Pending::Map { inputs, .. } => inputs.clone(),
            Pending::Shift { input, .. } | Pending::Reduce { input, .. } | Pending::Redistribute { input, .. } => {
                vec![*input]
            }
            Pending::Dot { a, b, .. } => vec![*a, *b],
        }
    }

    pub fn communicates(&self) -> bool {
        !matches!(self, Pending::Map { .. })
    }

    /// What the operation is, for agreement between ranks and for messages.
    pub fn describe(&self) -> String {
        match self {
            Pending::Map { op, .. } => format!("{op:?}"),
            Pending::Shift { offset, boundary, fill, .. } => {
                format!("shift by {offset} (boundary {boundary}, fill {:#x})", fill.to_bits())
            }
            Pending::Reduce { op, dim, order, .. } => format!("reduction {op} over {dim:?} ({order:?})"),
            Pending::Dot { order, .. } => format!("dot product ({order:?})"),
            Pending::Redistribute { to, .. } => format!("redistribution to {to:?}"),
        }
    }
}

/// Where a partial sum is computed: f32 and c64 in f64 and c128, as Sluice sums them.
pub fn accumulation_type(dtype: sl_dtype) -> sl_dtype {
    match dtype {
        SL_F32 => SL_F64,
        SL_C64 => SL_C128,
        t => t,
    }
}

/// `sl_dot`'s products, each rounded to the operands' type, in the type sums use.
pub fn products(a: &Local, b: &Local) -> Result<Local> {
    let p = a.binary(SL_MUL, b)?;
    let t = p.dtype()?;
    if accumulation_type(t) != t { p.cast(accumulation_type(t)) } else { Ok(p) }
}

pub enum State {
    Ready(Local),
    Pending(Pending),
}

pub struct Node {
    pub meta: Meta,
    /// The application's handles to this node.
    pub handles: u32,
    /// Pending nodes that read this one.
    pub users: u32,
    pub state: State,
}

/// Handles are never made twice in a process (not even after sl_mpi_finalize and a new
/// sl_mpi_init): a stale one is refused, never reaches another array. They start far from
/// Sluice's own array handles, so one passed for the other is refused too.
static NEXT_HANDLE: AtomicU64 = AtomicU64::new(0x5d00_0000_0000_0001);

#[derive(Default)]
pub struct Graph {
    nodes: HashMap<NodeId, Node>,
    handles: HashMap<u64, NodeId>,
    /// Node ids increase in creation order: inputs before their users.
    next: NodeId,
}

impl Graph {
    pub fn add(&mut self, meta: Meta, state: State) -> NodeId {
        self.next += 1;
        let id = self.next;
        if let State::Pending(p) = &state {
            for i in p.inputs() {
                self.node_mut(i).users += 1;
            }
        }
        self.nodes.insert(id, Node { meta, handles: 0, users: 0, state });
        id
    }

    /// A new application handle to node `id`.
    pub fn handle(&mut self, id: NodeId) -> u64 {
        let h = NEXT_HANDLE.fetch_add(1, Ordering::Relaxed);
        self.node_mut(id).handles += 1;
        self.handles.insert(h, id);
        crate::scope::register(h);
        h
    }

    pub fn lookup(&self, h: u64) -> Result<NodeId> {
        match self.handles.get(&h) {
            Some(&id) => Ok(id),
            None if h == 0 => bail!(SL_ERR_INVALID_HANDLE, "the null handle is not a distributed array"),
            None => bail!(
                SL_ERR_INVALID_HANDLE,
                "handle {h:#x} is not a live distributed array (released, from before sl_mpi_finalize, or not an sl_mpi_array)"
            ),
        }
    }

    pub fn node(&self, id: NodeId) -> &Node {
        self.nodes.get(&id).expect("live node")
    }

    pub fn node_mut(&mut self, id: NodeId) -> &mut Node {
        self.nodes.get_mut(&id).expect("live node")
    }

    pub fn meta(&self, id: NodeId) -> &Meta {
        &self.node(id).meta
    }

    pub fn ready(&self, id: NodeId) -> Option<&Local> {
        match &self.node(id).state {
            State::Ready(l) => Some(l),
            State::Pending(_) => None,
        }
    }

    pub fn pending(&self, id: NodeId) -> Option<&Pending> {
        match &self.node(id).state {
            State::Ready(_) => None,
            State::Pending(p) => Some(p),
        }
    }

    pub fn is_live(&self, h: u64) -> bool {
        self.handles.contains_key(&h)
    }

    /// Drops an application handle.
    pub fn release(&mut self, h: u64) -> Result<()> {
        let id = self.lookup(h)?;
        self.handles.remove(&h);
        self.node_mut(id).handles -= 1;
        self.collect(id);
        Ok(())
    }

    /// Node `id`'s local part is ready: it no longer needs its inputs.
    pub fn set_ready(&mut self, id: NodeId, local: Local) {
        let old = std::mem::replace(&mut self.node_mut(id).state, State::Ready(local));
        if let State::Pending(p) = old {
            self.unuse(&p);
        }
    }

    fn unuse(&mut self, p: &Pending) {
        for i in p.inputs() {
            self.node_mut(i).users -= 1;
            self.collect(i);
        }
    }

    /// Removes node `id` if nothing refers to it any more, and then the pending inputs
    /// only it read (a worklist: a long pending chain must not deepen the stack).
    fn collect(&mut self, id: NodeId) {
        let mut dead = vec![id];
        while let Some(id) = dead.pop() {
            // A node read twice by one that went is listed twice.
            let Some(n) = self.nodes.get(&id) else { continue };
            if n.handles > 0 || n.users > 0 {
                continue;
            }
            if let Some(node) = self.nodes.remove(&id)
                && let State::Pending(p) = node.state
            {
                for i in p.inputs() {
                    self.node_mut(i).users -= 1;
                    dead.push(i);
                }
            }
        }
    }

    /// The pending nodes `targets` need, inputs before users.
    pub fn pending_closure(&self, targets: &[NodeId]) -> Vec<NodeId> {
        let mut seen = std::collections::HashSet::new();
        let mut stack: Vec<NodeId> = targets.to_vec();
        let mut out = Vec::new();
        while let Some(id) = stack.pop() {
            if let Some(p) = self.pending(id)
                && seen.insert(id)
            {
                out.push(id);
                stack.extend(p.inputs());
            }
        }
        out.sort_unstable();
        out
    }

    pub fn live_handles(&self) -> usize {
        self.handles.len()
    }

    /// Every node's local part, released (sl_mpi_finalize).
    pub fn clear(&mut self) {
        self.handles.clear();
        self.nodes.clear();
    }
}
