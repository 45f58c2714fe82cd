//! Graph nodes and their evaluation state.

use std::any::Any;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use parking_lot::{Condvar, Mutex, MutexGuard};
use rustc_hash::FxHashMap as HashMap;

use super::CallSite;
use super::dtype::DType;
use super::error::{Error, ErrorKind};
use super::op::Op;
use super::shape::{MAX_RANK, Shape};

/// Memory holding array elements. Executors implement it for their buffers and downcast
/// through `as_any` when they bind one.
pub trait Storage: Any + Send + Sync {
    fn as_any(&self) -> &dyn Any;
    fn byte_len(&self) -> usize;
    /// The bytes, when the storage lives in host memory.
    fn host_bytes(&self) -> Option<&[u8]>;
}

/// Where the elements of an array sit in its storage, in elements.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Layout {
    pub offset: i64,
    pub strides: [i64; MAX_RANK],
}

impl Layout {
    pub fn dense(shape: &Shape) -> Layout {
        Layout { offset: 0, strides: shape.dense_strides() }
    }

    /// Whether the elements are contiguous in column-major order (ignoring size-1 dims).
    pub fn is_dense(&self, shape: &Shape) -> bool {
        let dense = shape.dense_strides();
        (0..shape.rank()).all(|d| shape.dim(d) <= 1 || self.strides[d] == dense[d])
    }

    /// Element offset of multi-index `idx`.
    pub fn offset_of(&self, idx: &[i64; MAX_RANK], rank: usize) -> i64 {
        self.offset + (0..rank).map(|d| idx[d] * self.strides[d]).sum::<i64>()
    }
}

/// A computed array: storage plus the layout of the elements in it. Several values may
/// share one storage (zero-copy views).
#[derive(Clone)]
pub struct Value {
    pub storage: Arc<dyn Storage>,
    pub layout: Layout,
}

/// The eventual result of a scheduled computation.
#[derive(Default)]
pub struct Promise {
    slot: Mutex<Option<Result<Value, Arc<Error>>>>,
    ready: Condvar,
}

impl Promise {
    pub fn new() -> Arc<Promise> {
        Arc::new(Promise::default())
    }

    pub fn fulfil(&self, result: Result<Value, Arc<Error>>) {
        let mut slot = self.slot.lock();
        debug_assert!(slot.is_none(), "promise fulfilled twice");
        *slot = Some(result);
        self.ready.notify_all();
    }

    /// A promise that already holds a failure.
    pub fn failed(e: Arc<Error>) -> Arc<Promise> {
        let p = Promise::new();
        p.fulfil(Err(e));
        p
    }

    /// Drops the value of a fulfilled promise that nothing will read again (the engine
    /// frees a flush's intermediates after their last use); a read after all fails
    /// loudly instead of finding freed memory.
    pub fn release(&self) {
        // One error shared by every released value: a flush releases its intermediates
        // on every call, and this is never read unless something is wrong.
        static RELEASED: std::sync::LazyLock<Arc<Error>> = std::sync::LazyLock::new(|| {
            Arc::new(Error::new(ErrorKind::Internal, "a value freed after its last use in a flush was read"))
        });
        let mut slot = self.slot.lock();
        if matches!(*slot, Some(Ok(_))) {
            let value = slot.replace(Err(RELEASED.clone()));
            drop(slot);
            drop(value);
        }
    }

    pub fn try_get(&self) -> Option<Result<Value, Arc<Error>>> {
        self.slot.lock().clone()
    }

    pub fn wait(&self) -> Result<Value, Arc<Error>> {
        let mut slot = self.slot.lock();
        loop {
            if let Some(r) = slot.as_ref() {
                return r.clone();
            }
            self.ready.wait(&mut slot);
        }
    }
}

/// A node's inputs: inline for up to two (most ops), so creating one does not allocate.
pub type Inputs = smallvec::SmallVec<[Arc<Node>; 2]>;

pub enum NodeState {
    /// Not yet flushed. `fused_unstored` records that an earlier flush computed this node
    /// inside a kernel without keeping it, so a second need stores it instead of
    /// recomputing again.
    Pending {
        inputs: Inputs,
        fused_unstored: bool,
    },
    /// In a submitted program sequence.
    Scheduled(Arc<Promise>),
    Ready(Value),
    Failed(Arc<Error>),
}

pub struct Node {
    pub id: u64,
    pub op: Op,
    pub dtype: DType,
    pub shape: Shape,
    pub site: CallSite,
    /// How many application handles point here (roots for `sync`).
    handles: AtomicU32,
    /// The planner's scratch: `(flush epoch << 32) | index` (see `plan_index`).
    plan: AtomicU64,
    /// Set once the state is `Ready`, which is final: from then on the value is read
    /// without the lock (`computed`).
    ready: AtomicBool,
    state: Mutex<NodeState>,
    /// For a zero-copy view of a computed array, the node owning the storage it shares:
    /// held so that an assignment sees the owner as read (`Arc::strong_count`) and does
    /// not write the storage in place while the view lives.
    owner: Option<Arc<Node>>,
    /// Result-comparison mode's reference value (a `check::Reference`, or why it has
    /// none), attached when a flush plans the node with the mode on; kept while the node
    /// lives, unless the reference run drops it after its last use there.
    pub reference: Mutex<Option<Arc<dyn Any + Send + Sync>>>,
}

static NEXT_NODE_ID: AtomicU64 = AtomicU64::new(1);

/// Ids a thread takes from `NEXT_NODE_ID` at a time: ids only identify nodes, so each
/// thread numbers its own block instead of an atomic operation per node.
const ID_BLOCK: u64 = 1024;

thread_local! {
    /// The next id of this thread's block and the end of the block.
    static IDS: std::cell::Cell<(u64, u64)> = const { std::cell::Cell::new((0, 0)) };
}

#[inline]
fn next_node_id() -> u64 {
    IDS.with(|ids| {
        let (mut next, mut end) = ids.get();
        if next == end {
            next = NEXT_NODE_ID.fetch_add(ID_BLOCK, Ordering::Relaxed);
            end = next + ID_BLOCK;
        }
        ids.set((next + 1, end));
        next
    })
}

impl Node {
    #[inline]
    pub fn pending(op: Op, dtype: DType, shape: Shape, site: CallSite, inputs: Inputs) -> Arc<Node> {
        Self::with_state(op, dtype, shape, site, NodeState::Pending { inputs, fused_unstored: false })
    }

    pub fn ready(op: Op, dtype: DType, shape: Shape, site: CallSite, value: Value) -> Arc<Node> {
        Self::with_state(op, dtype, shape, site, NodeState::Ready(value))
    }

    /// A node computed by work already submitted.
    pub fn scheduled(op: Op, dtype: DType, shape: Shape, site: CallSite, promise: Arc<Promise>) -> Arc<Node> {
        Self::with_state(op, dtype, shape, site, NodeState::Scheduled(promise))
    }

    #[inline]
    fn with_state(op: Op, dtype: DType, shape: Shape, site: CallSite, state: NodeState) -> Arc<Node> {
        Arc::new(Node {
            id: next_node_id(),
            op,
            dtype,
            shape,
            site,
            handles: AtomicU32::new(0),
            plan: AtomicU64::new(0),
            ready: AtomicBool::new(matches!(state, NodeState::Ready(_))),
            state: Mutex::new(state),
            owner: None,
            reference: Mutex::new(None),
        })
    }

    /// The state, with a finished promise folded into `Ready`/`Failed`.
    pub fn state(&self) -> MutexGuard<'_, NodeState> {
        let mut st = self.state.lock();
        if let NodeState::Scheduled(p) = &*st
            && let Some(r) = p.try_get()
        {
            let ready = r.is_ok();
            *st = match r {
                Ok(v) => NodeState::Ready(v),
                Err(e) => NodeState::Failed(e),
            };
            // Only once the state is written: `computed` then reads it without the lock.
            if ready {
                self.ready.store(true, Ordering::Release);
            }
        }
        st
    }

    /// The value, if it is computed, borrowed: once computed it is read without the lock
    /// or a reference count (a replay reads each input this way).
    pub fn computed(&self) -> Option<&Value> {
        if !self.ready.load(Ordering::Acquire) {
            // A finished promise is folded into the state here.
            drop(self.state());
            if !self.ready.load(Ordering::Acquire) {
                return None;
            }
        }
        // SAFETY: a ready node's state is `Ready` and nothing writes it again (only
        // pending and scheduled states change), so shared reads cannot race a write.
        match unsafe { &*self.state.data_ptr() } {
            NodeState::Ready(v) => Some(v),
            _ => unreachable!("a ready node stays ready"),
        }
    }

    /// Moves a pending node into a submitted sequence. Returns its inputs, which it no
    /// longer needs, so the caller can drop them where it suits (freeing a long chain
    /// takes time).
    pub fn schedule(&self, promise: Arc<Promise>) -> Inputs {
        let mut st = self.state.lock();
        // Checked before writing: a ready node's state is read without the lock.
        assert!(matches!(*st, NodeState::Pending { .. }), "only pending nodes are scheduled");
        match std::mem::replace(&mut *st, NodeState::Scheduled(promise)) {
            NodeState::Pending { inputs, .. } => inputs,
            _ => unreachable!("checked above"),
        }
    }

    /// Gives a pending node its value, computed on this thread by a flush that made no
    /// promise for it (the planning lock was held, so no one else could plan it).
    pub fn complete(&self, value: Value) {
        let mut st = self.state.lock();
        // Checked before writing: a ready node's state is read without the lock.
        assert!(matches!(*st, NodeState::Pending { .. }), "only pending nodes are completed");
        let inputs = std::mem::replace(&mut *st, NodeState::Ready(value));
        // Only once the state is written: `computed` then reads it without the lock.
        self.ready.store(true, Ordering::Release);
        drop(st);
        drop(inputs);
    }

    /// Marks a pending node failed (its work could not be planned or run).
    pub fn fail(&self, e: Arc<Error>) {
        let mut st = self.state.lock();
        if matches!(*st, NodeState::Pending { .. }) {
            let old = std::mem::replace(&mut *st, NodeState::Failed(e));
            drop(st);
            drop(old);
        }
    }

    /// Records that a flush computed this node inside a kernel without storing it.
    pub fn mark_fused_unstored(&self) {
        if let NodeState::Pending { fused_unstored, .. } = &mut *self.state.lock() {
            *fused_unstored = true;
        }
    }

    /// Pending and never part of a flush. A flush marks every node of its subgraph
    /// (`set_plan_index`; epochs start at 1), also those it computed unstored that have
    /// no handle and so are not marked `fused_unstored`.
    pub fn is_pending_unflushed(&self) -> bool {
        self.plan.load(Ordering::Relaxed) == 0
            && matches!(*self.state.lock(), NodeState::Pending { fused_unstored: false, .. })
    }

    pub fn is_pending(&self) -> bool {
        matches!(*self.state.lock(), NodeState::Pending { .. })
    }

    /// For a pending node, calls `f` with its inputs and whether an earlier flush
    /// computed it inside a kernel without storing it; false (not called) otherwise.
    #[inline]
    pub fn with_pending(&self, f: impl FnOnce(&[Arc<Node>], bool)) -> bool {
        match &*self.state.lock() {
            NodeState::Pending { inputs, fused_unstored } => {
                f(inputs, *fused_unstored);
                true
            }
            _ => false,
        }
    }

    /// The index the planner gave this node in flush `epoch`, if it did. Flushes are
    /// planned one at a time, so a node carries at most one current mark.
    pub fn plan_index(&self, epoch: u32) -> Option<u32> {
        let m = self.plan.load(Ordering::Relaxed);
        ((m >> 32) as u32 == epoch).then_some(m as u32)
    }

    pub fn set_plan_index(&self, epoch: u32, index: u32) {
        self.plan.store(((epoch as u64) << 32) | index as u64, Ordering::Relaxed);
    }

    /// Blocks until the node's value exists. Pending nodes must be flushed first.
    pub fn wait(&self) -> Result<Value, Arc<Error>> {
        let promise = match &*self.state() {
            NodeState::Ready(v) => return Ok(v.clone()),
            NodeState::Failed(e) => return Err(e.clone()),
            NodeState::Scheduled(p) => p.clone(),
            NodeState::Pending { .. } => panic!("wait on a pending node"),
        };
        promise.wait()
    }

    /// Counts a new handle. Only the handle table calls this and `remove_handle`, under
    /// its lock, so they never race each other: a load and a store do instead of an
    /// atomic read-modify-write (other threads only read the count).
    pub fn add_handle(&self) {
        self.handles.store(self.handles.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
    }

    /// See `add_handle`.
    pub fn remove_handle(&self) {
        self.handles.store(self.handles.load(Ordering::Relaxed) - 1, Ordering::Relaxed);
    }

    /// A zero-copy view of `base`'s computed storage (see `owner`).
    pub fn view_of(base: &Arc<Node>, op: Op, dtype: DType, shape: Shape, site: CallSite, value: Value) -> Arc<Node> {
        let owner = base.owner.clone().unwrap_or_else(|| base.clone());
        let mut n = Self::with_state(op, dtype, shape, site, NodeState::Ready(value));
        Arc::get_mut(&mut n).expect("just made").owner = Some(owner);
        n
    }

    /// Whether the node's storage belongs to another node (it is a zero-copy view).
    pub fn is_view(&self) -> bool {
        self.owner.is_some()
    }

    pub fn has_handles(&self) -> bool {
        self.handles.load(Ordering::Relaxed) > 0
    }
}

/// A copy of `root` and of the pending nodes it depends on (nodes with values are
/// shared), outside the work queue: evaluating it computes the same value without
/// changing how the originals are planned.
pub fn clone_pending(root: &Arc<Node>) -> Arc<Node> {
    let mut copies: HashMap<u64, Arc<Node>> = HashMap::default();
    let mut stack = vec![(root.clone(), false)];
    while let Some((n, inputs_copied)) = stack.pop() {
        if copies.contains_key(&n.id) {
            continue;
        }
        let mut inputs: Option<Inputs> = None;
        n.with_pending(|ins, _| inputs = Some(ins.iter().cloned().collect()));
        let copy = match inputs {
            None => n.clone(),
            Some(ins) if inputs_copied => {
                let ins = ins.iter().map(|i| copies[&i.id].clone()).collect();
                Node::pending(n.op.clone(), n.dtype, n.shape, n.site, ins)
            }
            Some(ins) => {
                stack.push((n.clone(), true));
                stack.extend(ins.into_iter().filter(|i| !copies.contains_key(&i.id)).map(|i| (i, false)));
                continue;
            }
        };
        copies.insert(n.id, copy);
    }
    copies.remove(&root.id).expect("the root is copied")
}

impl Drop for Node {
    /// Long chains of pending nodes would recurse once per node when the last handle goes;
    /// unlink them iteratively instead.
    fn drop(&mut self) {
        let NodeState::Pending { inputs, .. } = self.state.get_mut() else { return };
        if inputs.is_empty() {
            return;
        }
        // Inline for the few nodes a small flush leaves behind (its fused, unstored values).
        let mut stack: smallvec::SmallVec<[Arc<Node>; 8]> = std::mem::take(inputs).into_iter().collect();
        while let Some(mut node) = stack.pop() {
            // Unlinked in place (moving a node out of its Arc would copy it).
            if let Some(owned) = Arc::get_mut(&mut node)
                && let NodeState::Pending { inputs, .. } = owned.state.get_mut()
            {
                stack.extend(inputs.drain(..));
            } else if let Some(mut owned) = Arc::into_inner(node)
                && let NodeState::Pending { inputs, .. } = owned.state.get_mut()
            {
                // Weak references (queue entries) remain: the node must be moved out.
                stack.extend(inputs.drain(..));
            }
        }
    }
}
