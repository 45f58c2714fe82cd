//! Batching a function recorded on one piece (`sl_apply_elements`, `sl_apply_blocks`).
//! The function's calls were recorded, like a macro section's, on placeholder arrays
//! shaped like one piece (an element, a block). Here every node of that per-piece graph
//! is rebuilt with the pieces' index as extra trailing dimensions, the *batch*, so all
//! pieces run as ordinary kernels over a larger domain (the `vmap` idea): element-wise
//! ops and views become ops over the whole domain, reductions over a piece's dimensions
//! stay reductions over those dimensions only (one per piece, side by side; over a few
//! elements, as a moving window's, they become element-wise work on the terms), and
//! intrinsics (products, transforms, factorizations, sorts) take the batch as more of
//! their own batch dimensions. A node with no batched form is computed piece by piece
//! (`Batching::looped` counts the pieces), and a value that reads no piece is computed
//! once for all of them.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;
use smallvec::SmallVec;

use super::Scheduler;
use crate::ir::{
    BinaryOp, DType, Inputs, MAX_RANK, Node, Op, Placement, ReduceOp, Result, Scalar, Shape, SortOp, ViewStep, bail,
};

/// A value of the per-piece graph in the batched graph.
#[derive(Clone)]
pub enum Batched {
    /// The same for every piece (it reads no piece's data): shaped like one piece's value.
    Whole(Arc<Node>),
    /// One value per piece: the piece's shape followed by the batch dimensions.
    Each(Arc<Node>),
}

impl Batched {
    pub fn node(&self) -> &Arc<Node> {
        match self {
            Batched::Whole(n) | Batched::Each(n) => n,
        }
    }
}

/// A recorded function's per-piece graph: its pending nodes in dependency order, from
/// the placeholders (which stand for the pieces) to its outputs.
pub struct PieceGraph {
    order: Vec<(Arc<Node>, Inputs)>,
    placeholders: Vec<Arc<Node>>,
    outputs: Vec<Arc<Node>>,
}

impl PieceGraph {
    /// The graph from `placeholders` to `outputs`. Refuses a function that reads an array that is neither a placeholder nor computed
    /// inside it, and one that draws random numbers (a draw per piece would need the
    /// generator's state per piece).
    pub fn collect(outputs: &[Arc<Node>], placeholders: &[Arc<Node>]) -> Result<PieceGraph> {
        let mut order = Vec::new();
        let mut seen: HashMap<u64, ()> = HashMap::default();
        for p in placeholders {
            seen.insert(p.id, ());
        }
        let mut stack: Vec<(Arc<Node>, bool)> = outputs.iter().rev().map(|o| (o.clone(), false)).collect();
        while let Some((n, expanded)) = stack.pop() {
            if seen.contains_key(&n.id) && !expanded {
                continue;
            }
            let mut inputs: Option<Inputs> = None;
            n.with_pending(|ins, _| inputs = Some(ins.iter().cloned().collect()));
            let Some(inputs) = inputs else {
                bail!(
                    InvalidArgument,
                    "the function uses the array made by {}, which is neither one of its inputs nor computed inside it (pass it as an input)",
                    n.site
                );
            };
            if matches!(n.op, Op::Random { .. }) {
                bail!(
                    NotSupported,
                    "the function draws random numbers (made by {}); draw them outside for every piece and pass them as an input",
                    n.site
                );
            }
            if expanded {
                order.push((n, inputs));
                continue;
            }
            seen.insert(n.id, ());
            stack.push((n.clone(), true));
            stack.extend(inputs.iter().filter(|i| !seen.contains_key(&i.id)).map(|i| (i.clone(), false)));
        }
        Ok(PieceGraph { order, placeholders: placeholders.to_vec(), outputs: outputs.to_vec() })
    }

    /// The highest rank of a value of one piece.
    pub fn max_rank(&self) -> usize {
        let ranks = self.order.iter().map(|(n, _)| n.shape.rank());
        ranks.chain(self.placeholders.iter().map(|p| p.shape.rank())).max().unwrap_or(0)
    }
}

/// What batching made.
pub struct Batching {
    /// The function's outputs, one per declared output.
    pub outputs: Vec<Batched>,
    /// Pieces computed one by one, summed over the nodes without a batched form.
    pub looped: usize,
    /// The ops of those nodes.
    pub looped_ops: Vec<&'static str>,
}

impl Scheduler {
    /// Batches `graph` over `batch` (the pieces' index space), placeholder `k` being
    /// `inputs[k]` (`Each`: shaped like the placeholder followed by `batch`). The nodes
    /// made go to the work queue (or the recording section) like any op.
    pub fn batch(&self, what: &str, graph: &PieceGraph, inputs: Vec<Batched>, batch: Shape) -> Result<Batching> {
        let mut b = Batcher { sched: self, what, batch, values: HashMap::default(), looped: 0, looped_ops: Vec::new() };
        for (p, v) in graph.placeholders.iter().zip(inputs) {
            b.values.insert(p.id, v);
        }
        for (n, ins) in &graph.order {
            let v = b.node(n, ins)?;
            b.values.insert(n.id, v);
        }
        let outputs = graph.outputs.iter().map(|o| b.values[&o.id].clone()).collect();
        Ok(Batching { outputs, looped: b.looped, looped_ops: b.looped_ops })
    }
}

struct Batcher<'a> {
    sched: &'a Scheduler,
    what: &'a str,
    batch: Shape,
    values: HashMap<u64, Batched>,
    looped: usize,
    looped_ops: Vec<&'static str>,
}

impl Batcher<'_> {
    /// A new pending node (queued, or kept by the recording section).
    fn make(&self, op: Op, dtype: DType, shape: Shape, inputs: Inputs, like: &Node) -> Arc<Node> {
        let n = Node::pending(op, dtype, shape, like.site, inputs);
        self.sched.enqueue(&n);
        n
    }

    /// `piece` followed by the batch dimensions.
    fn each(&self, piece: &Shape) -> Result<Shape> {
        let rank = piece.rank() + self.batch.rank();
        if rank > MAX_RANK {
            bail!(
                NotSupported,
                "a rank-{} value of the function over {} batch dimensions needs rank {rank}, more than {MAX_RANK}",
                piece.rank(),
                self.batch.rank()
            );
        }
        let dims: SmallVec<[u64; MAX_RANK]> = piece.dims().iter().chain(self.batch.dims()).map(|&d| d as u64).collect();
        Shape::sized(self.what, &dims)
    }

    fn reshape(&self, x: &Arc<Node>, to: Shape) -> Arc<Node> {
        if x.shape == to {
            return x.clone();
        }
        self.make(Op::View(ViewStep::Reshape), x.dtype, to, smallvec::smallvec![x.clone()], x)
    }

    /// Value `v` of per-piece shape `piece` as an array of `to` (which `piece` broadcasts
    /// to) followed by the batch dimensions.
    fn spread(&self, v: &Batched, piece: &Shape, to: &Shape) -> Result<Arc<Node>> {
        let target = self.each(to)?;
        if piece.rank() > to.rank() {
            bail!(Internal, "{}: a value of shape {piece} spread to {to}", self.what);
        }
        let x = match v {
            Batched::Whole(w) => w.clone(),
            Batched::Each(x) => self.reshape(x, self.each(&piece.to_rank(to.rank()))?),
        };
        if x.shape == target {
            return Ok(x);
        }
        Ok(self.make(Op::View(ViewStep::Broadcast), x.dtype, target, smallvec::smallvec![x.clone()], &x))
    }

    /// The batched form of `n` (whose inputs are `ins`).
    fn node(&mut self, n: &Arc<Node>, ins: &[Arc<Node>]) -> Result<Batched> {
        let vals: SmallVec<[Batched; 4]> = ins.iter().map(|i| self.values[&i.id].clone()).collect();
        if vals.iter().all(|v| matches!(v, Batched::Whole(_))) {
            if vals.iter().zip(ins).all(|(v, i)| Arc::ptr_eq(v.node(), i)) {
                return Ok(Batched::Whole(n.clone()));
            }
            let inputs = vals.iter().map(|v| v.node().clone()).collect();
            return Ok(Batched::Whole(self.make(n.op.clone(), n.dtype, n.shape, inputs, n)));
        }
        Ok(Batched::Each(match self.batched(n, ins, &vals)? {
            Some(x) => x,
            None => self.looped(n, ins, &vals)?,
        }))
    }

    /// `n` over every piece at once, or None when it has no batched form.
    fn batched(&self, n: &Arc<Node>, ins: &[Arc<Node>], vals: &[Batched]) -> Result<Option<Arc<Node>>> {
        let out = self.each(&n.shape)?;
        let m = self.batch.rank();
        // Each operand as its own per-piece shape followed by the batch.
        let own = |k: usize| self.spread(&vals[k], &ins[k].shape, &ins[k].shape);
        let make = |op: Op, inputs: Inputs| Some(self.make(op, n.dtype, out, inputs, n));
        Ok(match &n.op {
            Op::Unary(_)
            | Op::Cast
            | Op::Fft(_)
            | Op::Scan { .. }
            | Op::Sort(SortOp::Sort { .. } | SortOp::ArgSort { .. }) => {
                make(n.op.clone(), smallvec::smallvec![own(0)?])
            }
            Op::Reduce { op, axis } => {
                // Over the piece's elements only (with no axis, its dimensions as one).
                let (x, axis) = match axis {
                    Some(a) => (own(0)?, *a as usize),
                    None => (self.reshape(&own(0)?, self.each(&Shape::new(&[ins[0].shape.numel()]))?), 0),
                };
                let r = match self.unrolled(*op, &x, axis, n)? {
                    Some(r) => r,
                    None => {
                        let shape = x.shape.with_dim(axis, 1);
                        self.make(
                            Op::Reduce { op: *op, axis: Some(axis as u8) },
                            n.dtype,
                            shape,
                            smallvec::smallvec![x],
                            n,
                        )
                    }
                };
                // Both have the result's elements in its order (unit dimensions aside).
                Some(self.reshape(&r, out))
            }
            Op::Binary(_) | Op::Select | Op::Fma => {
                // A rank-0 operand the same for every piece is read as one value.
                let mut inputs = Inputs::new();
                for (k, v) in vals.iter().enumerate() {
                    inputs.push(match v {
                        Batched::Whole(w) if w.shape.rank() == 0 => w.clone(),
                        _ => self.spread(v, &ins[k].shape, &n.shape)?,
                    });
                }
                make(n.op.clone(), inputs)
            }
            Op::View(step) => {
                // A fill value differing between pieces has no batched form.
                if let Some(Batched::Each(_)) = vals.get(1) {
                    return Ok(None);
                }
                let src = &ins[0].shape;
                if *step == ViewStep::Broadcast {
                    return Ok(Some(self.spread(&vals[0], src, &n.shape)?));
                }
                let (r_src, r_out) = (src.rank(), n.shape.rank());
                let step = match *step {
                    ViewStep::Permute { mut perm } => {
                        for j in 0..m {
                            perm[r_out + j] = (r_out + j) as u8;
                        }
                        ViewStep::Permute { perm }
                    }
                    ViewStep::Section { mut start, mut step } => {
                        for j in 0..m {
                            (start[r_src + j], step[r_src + j]) = (0, 1);
                        }
                        ViewStep::Section { start, step }
                    }
                    ViewStep::Offset { mut offset, boundary } => {
                        offset[r_src..r_src + m].fill(0);
                        ViewStep::Offset { offset, boundary }
                    }
                    s @ (ViewStep::Reshape | ViewStep::Project { .. } | ViewStep::Window { .. }) => s,
                    ViewStep::Broadcast => unreachable!("spread above"),
                };
                let mut inputs = smallvec::smallvec![own(0)?];
                inputs.extend(vals.get(1).map(|f| f.node().clone()));
                make(Op::View(step), inputs)
            }
            Op::Concat { .. } => make(n.op.clone(), (0..ins.len()).map(own).collect::<Result<_>>()?),
            Op::Gather => {
                let mut inputs = Inputs::new();
                inputs.push(vals[0].node().clone());
                for k in 1..ins.len() {
                    inputs.push(self.spread(&vals[k], &ins[k].shape, &n.shape)?);
                }
                // A source per piece is indexed by the piece too.
                if let Batched::Each(_) = vals[0] {
                    inputs.extend(self.batch_coords(&n.shape, n)?);
                }
                make(Op::Gather, inputs)
            }
            Op::Scatter { .. } => {
                let at = &ins[1].shape;
                let mut inputs: Inputs = smallvec::smallvec![own(0)?, own(1)?];
                for k in 2..ins.len() {
                    inputs.push(self.spread(&vals[k], &ins[k].shape, at)?);
                }
                inputs.extend(self.batch_coords(at, n)?);
                make(n.op.clone(), inputs)
            }
            Op::MatMul { .. } => {
                // Operands keep their own (broadcast) batch dimensions; ours follow the
                // product's, so an operand per piece is brought to the product's rank.
                let mut inputs = Inputs::new();
                for (k, v) in vals.iter().enumerate() {
                    inputs.push(match v {
                        Batched::Whole(w) => w.clone(),
                        Batched::Each(x) => self.reshape(x, self.each(&ins[k].shape.to_rank(n.shape.rank()))?),
                    });
                }
                make(n.op.clone(), inputs)
            }
            Op::Factor(_) => {
                // The operands of one factorization node share their batch dimensions.
                let rank = ins.iter().map(|i| i.shape.rank()).max().unwrap_or(0);
                let mut inputs = Inputs::new();
                for (k, v) in vals.iter().enumerate() {
                    inputs.push(self.spread(v, &ins[k].shape, &ins[k].shape.to_rank(rank))?);
                }
                make(n.op.clone(), inputs)
            }
            Op::Sort(SortOp::SearchSorted { .. }) => match vals[0] {
                Batched::Whole(ref sorted) => make(n.op.clone(), smallvec::smallvec![sorted.clone(), own(1)?]),
                Batched::Each(_) => None,
            },
            Op::Assign(placement) => {
                let (r_dst, r_view) = (ins[0].shape.rank(), ins[1].shape.rank());
                let mut p: Placement = *placement;
                for j in 0..m {
                    p.dims[r_view + j] = (r_dst + j) as u8;
                    p.step[r_view + j] = 1;
                    p.start[r_dst + j] = 0;
                }
                make(Op::Assign(p), smallvec::smallvec![own(0)?, own(1)?])
            }
            Op::IndexCheck { .. } => None,
            Op::Random { .. } | Op::Sobol { .. } | Op::Source | Op::Fill { .. } | Op::Iota { .. } | Op::Identity => {
                bail!(Internal, "{}: {} has no operand that differs between pieces", self.what, n.op.name())
            }
        })
    }

    /// Reduction `op` of `x` along `axis` (a piece's own dimension) as element-wise work
    /// when the pieces are short along it, as a moving window's are: the terms combined in
    /// order, so every piece's reduction is one fused kernel over the batch. The executors
    /// would otherwise take each piece's few elements as a row of its own, which costs far
    /// more per row than its arithmetic. The terms accumulate in their own type (a few
    /// roundings of f32 at most 32 terms; f64 accumulators would also send the kernel
    /// to the CPU on a device without f64). The result has `x`'s shape without `axis`.
    /// None for other reductions (and long axes), which stay reductions.
    fn unrolled(&self, op: ReduceOp, x: &Arc<Node>, axis: usize, like: &Node) -> Result<Option<Arc<Node>>> {
        /// The longest axis unrolled: a kernel reads each term as an input of its own.
        const MOST_TERMS: usize = 32;
        let extent = x.shape.dim(axis);
        let combine = match op {
            ReduceOp::Sum | ReduceOp::Mean => BinaryOp::Add,
            ReduceOp::Prod => BinaryOp::Mul,
            ReduceOp::Min => BinaryOp::Min,
            ReduceOp::Max => BinaryOp::Max,
            _ => return Ok(None),
        };
        if !x.dtype.is_float() || extent == 0 || extent > MOST_TERMS {
            return Ok(None);
        }
        let (t, term_shape) = (x.dtype, x.shape.without_dim(axis));
        let term = |k: usize| {
            let step = ViewStep::Project { dim: axis as u8, index: k as i64 };
            self.make(Op::View(step), t, term_shape, smallvec::smallvec![x.clone()], like)
        };
        let mut r = term(0);
        for k in 1..extent {
            r = self.make(Op::Binary(combine), t, term_shape, smallvec::smallvec![r, term(k)], like);
        }
        if op == ReduceOp::Mean {
            let count = Op::Fill { value: Scalar::F64(extent as f64).cast(t), baked: true };
            let count = self.make(count, t, Shape::SCALAR, Inputs::new(), like);
            let count = self.make(Op::View(ViewStep::Broadcast), t, term_shape, smallvec::smallvec![count], like);
            r = self.make(Op::Binary(BinaryOp::Div), t, term_shape, smallvec::smallvec![r, count], like);
        }
        Ok(Some(r))
    }

    /// Index arrays over `piece` followed by the batch: the coordinate along each batch
    /// dimension (a gather or scatter on values per piece reads its own piece's).
    fn batch_coords(&self, piece: &Shape, like: &Node) -> Result<Vec<Arc<Node>>> {
        let shape = self.each(piece)?;
        let r = piece.rank();
        Ok((0..self.batch.rank())
            .map(|j| self.make(Op::Iota { dim: (r + j) as u8 }, DType::I64, shape, Inputs::new(), like))
            .collect())
    }

    /// `n` computed piece by piece: one node per piece on that piece's operands, each
    /// assigned into its place of the result.
    fn looped(&mut self, n: &Arc<Node>, ins: &[Arc<Node>], vals: &[Batched]) -> Result<Arc<Node>> {
        let out = self.each(&n.shape)?;
        let count = self.batch.numel();
        if count == 0 {
            return Ok(self.nothing(n, out));
        }
        let r = n.shape.rank();
        let mut result: Option<Arc<Node>> = None;
        for p in 0..count {
            let at = self.batch.unravel(p);
            let mut inputs = Inputs::new();
            for (k, v) in vals.iter().enumerate() {
                inputs.push(match v {
                    Batched::Whole(w) => w.clone(),
                    Batched::Each(x) => self.piece_of(x, ins[k].shape, &at),
                });
            }
            let value = self.make(n.op.clone(), n.dtype, n.shape, inputs, n);
            result = Some(match result {
                None => self.spread(&Batched::Whole(value), &n.shape, &n.shape)?,
                Some(acc) => {
                    let mut p = Placement { start: [0; MAX_RANK], step: [1; MAX_RANK], dims: [0; MAX_RANK] };
                    for (d, dim) in p.dims.iter_mut().enumerate().take(r) {
                        *dim = d as u8;
                    }
                    for (j, &i) in at.iter().enumerate().take(self.batch.rank()) {
                        p.start[r + j] = i as i64;
                    }
                    self.make(Op::Assign(p), n.dtype, out, smallvec::smallvec![acc, value], n)
                }
            });
        }
        self.looped += count;
        if !self.looped_ops.contains(&n.op.name()) {
            self.looped_ops.push(n.op.name());
        }
        Ok(result.expect("at least one piece"))
    }

    /// The piece at batch index `at` of `x` (per-piece shape `piece`).
    fn piece_of(&self, x: &Arc<Node>, piece: Shape, at: &[usize; MAX_RANK]) -> Arc<Node> {
        let mut v = x.clone();
        for &i in at.iter().take(self.batch.rank()).rev() {
            // The last batch dimension first, so the others keep their places.
            let shape = v.shape.without_dim(v.shape.rank() - 1);
            let step = ViewStep::Project { dim: (v.shape.rank() - 1) as u8, index: i as i64 };
            v = self.make(Op::View(step), v.dtype, shape, smallvec::smallvec![v.clone()], x);
        }
        debug_assert_eq!(v.shape, piece);
        v
    }

    /// An array of `shape` with no elements, of `n`'s type.
    fn nothing(&self, n: &Node, shape: Shape) -> Arc<Node> {
        let fill = |t: DType| Op::Fill { value: Scalar::zero(t), baked: true };
        if !n.dtype.is_complex() {
            return self.make(fill(n.dtype), n.dtype, shape, Inputs::new(), n);
        }
        let part = self.make(fill(n.dtype.real()), n.dtype.real(), shape, Inputs::new(), n);
        self.make(Op::Binary(BinaryOp::Complex), n.dtype, shape, smallvec::smallvec![part.clone(), part], n)
    }
}
