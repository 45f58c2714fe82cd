//! Applying a function to the pieces of arrays in one call: `sl_apply_elements` (a piece
//! per element, with singleton expansion) and `sl_apply_blocks` (blocks along a
//! dimension, with overlap, padding and output descriptors). This module cuts the inputs
//! into pieces: it checks the options, makes the placeholders the function is recorded
//! on (shaped like one piece), builds every input's pieces as one array over the batch
//! (a broadcast for elements, a padded window view for blocks), has `sched::apply` batch
//! the recorded graph, and puts each output together as its descriptor says.

use std::cell::RefCell;
use std::sync::Arc;

use super::graph::Graph;
use crate::ir::{BinaryOp, Boundary, DType, Error, MAX_RANK, Node, Op, Promise, Result, Shape, bail};
use crate::sched::apply::{Batched, Batching, PieceGraph};

/// What an output of `sl_apply_blocks` is made of.
#[derive(Clone, Debug, PartialEq)]
pub enum Output {
    /// The blocks' results concatenated into the aggregate size of the inputs.
    Aggregate,
    /// One slice per block: the aggregate size, with the number of blocks along the
    /// slicing dimension (each block gives the aggregate size with 1 there).
    Slice,
    /// One value per block: a 1 x blocks row.
    Scalar,
    /// The blocks' results concatenated into this size.
    Size(Shape),
}

/// The options of `sl_apply_blocks` as the application gave them.
pub struct BlockOptions {
    /// The slicing dimension; `None`: the last dimension of the aggregate size longer
    /// than 1 (the first when none is).
    pub dim: Option<usize>,
    pub size: u64,
    /// Neighbouring elements each block also sees before and after it.
    pub before: u64,
    pub after: u64,
    /// What a block sees outside the array (overlap at the ends, the last block's tail).
    pub boundary: Boundary,
    pub pad: f64,
}

/// Blocks along one dimension, checked.
pub struct Blocks {
    /// The aggregate size of the inputs.
    shape: Shape,
    dim: usize,
    size: usize,
    before: usize,
    after: usize,
    boundary: Boundary,
    pad: f64,
    count: usize,
    outputs: Vec<Output>,
}

/// How a call cuts its inputs into pieces.
pub enum Pieces {
    /// One piece per element of the aggregate size.
    Elements(Shape),
    Blocks(Blocks),
}

/// The aggregate size of `inputs`: the most dimensions of any, and along each the
/// largest size; sizes along a dimension must be equal or 1.
fn aggregate(inputs: &[Arc<Node>]) -> Result<Shape> {
    let mut shape = Shape::SCALAR;
    for (k, x) in inputs.iter().enumerate() {
        let rank = shape.rank().max(x.shape.rank());
        if let Some(d) = (0..rank).find(|&d| {
            let (a, b) = (shape.dim(d), x.shape.dim(d));
            a != b && a != 1 && b != 1
        }) {
            bail!(
                ShapeMismatch,
                "input {k} has shape {}, but the inputs before it have size {} along dimension {d}; sizes along a dimension must be equal or 1",
                x.shape,
                shape.dim(d)
            );
        }
        shape = Shape::broadcast(&shape, &x.shape)?;
    }
    Ok(shape)
}

/// What a function's output over every piece is called in messages.
const OVER_PIECES: &str = "the function's output over every piece";

/// `dims` as a shape checked for size (`what` names it in the message).
fn sized(what: impl std::fmt::Display, dims: impl IntoIterator<Item = usize>) -> Result<Shape> {
    Shape::sized(what, &dims.into_iter().map(|d| d as u64).collect::<Vec<_>>())
}

impl Pieces {
    pub fn elements(inputs: &[Arc<Node>]) -> Result<Pieces> {
        Ok(Pieces::Elements(aggregate(inputs)?))
    }

    /// Blocks of `inputs` as `options` say, with one descriptor per output. Every option
    /// is checked here, before anything is recorded.
    pub fn blocks(inputs: &[Arc<Node>], options: &BlockOptions, outputs: Vec<Output>) -> Result<Pieces> {
        let shape = aggregate(inputs)?;
        let dim = match options.dim {
            Some(d) => d,
            None => (0..shape.rank()).rev().find(|&d| shape.dim(d) > 1).unwrap_or(0),
        };
        if options.size == 0 {
            bail!(InvalidArgument, "block_size is 0; a block has at least one element");
        }
        let n = shape.dim(dim) as u64;
        for (name, o) in [("overlap_before", options.before), ("overlap_after", options.after)] {
            if o > n {
                bail!(InvalidArgument, "{name} is {o}, larger than the array along dimension {dim} ({n} elements)");
            }
        }
        // The window (block and overlaps) is a dimension of the function's pieces.
        let window = options.size.checked_add(options.before + options.after);
        if window.is_none_or(|w| w > crate::ir::shape::MAX_ELEMENTS) {
            bail!(
                InvalidArgument,
                "block_size {} with overlaps {} and {} makes blocks too large",
                options.size,
                options.before,
                options.after
            );
        }
        Ok(Pieces::Blocks(Blocks {
            shape,
            dim,
            size: options.size as usize,
            before: options.before as usize,
            after: options.after as usize,
            boundary: options.boundary,
            pad: options.pad,
            count: n.div_ceil(options.size) as usize,
            outputs,
        }))
    }

    /// How many pieces there are.
    pub fn count(&self) -> usize {
        match self {
            Pieces::Elements(s) => s.numel(),
            Pieces::Blocks(b) => b.count,
        }
    }

    /// The values besides the inputs' types and shapes that decide what is recorded:
    /// part of the key of the recording.
    pub fn controls(&self) -> Vec<f64> {
        match self {
            Pieces::Elements(_) => Vec::new(),
            Pieces::Blocks(b) => {
                let boundary = b.boundary as u8 as f64;
                let mut c = vec![b.dim as f64, b.size as f64, b.before as f64, b.after as f64, boundary, b.pad];
                for o in &b.outputs {
                    match o {
                        Output::Aggregate => c.push(0.0),
                        Output::Slice => c.push(1.0),
                        Output::Scalar => c.push(2.0),
                        Output::Size(s) => {
                            c.push(3.0 + s.rank() as f64);
                            c.extend(s.dims().iter().map(|&d| d as f64));
                        }
                    }
                }
                c
            }
        }
    }

    /// The shape of one piece of input `x`.
    fn piece_shape(&self, x: &Node) -> Result<Shape> {
        match self {
            Pieces::Elements(_) => Ok(Shape::SCALAR),
            Pieces::Blocks(b) if b.whole(x) => Ok(x.shape),
            Pieces::Blocks(b) => {
                let mut dims = x.shape.dims().to_vec();
                dims[b.dim] = b.window();
                sized(format_args!("a block of {} elements with its overlaps", b.size), dims)
            }
        }
    }

    /// The pieces' index space for a function whose values have at most `max_rank`
    /// dimensions: the aggregate size for elements (one dimension when the function's
    /// values would leave no room for them), the blocks for blocks.
    fn batch(&self, max_rank: usize) -> Shape {
        match self {
            Pieces::Elements(s) if max_rank + s.rank() <= MAX_RANK => *s,
            Pieces::Elements(s) => Shape::new(&[s.numel()]),
            Pieces::Blocks(b) => Shape::new(&[b.count]),
        }
    }

    /// Every piece of input `k` (`x`) as one array: shaped like a piece followed by
    /// `batch`.
    fn input(&self, g: &Graph, k: usize, x: &Arc<Node>, batch: Shape) -> Result<Batched> {
        match self {
            Pieces::Elements(shape) => {
                let all = g.broadcast_to(x, *shape)?;
                Ok(Batched::Each(g.reshape(&all, batch)?))
            }
            Pieces::Blocks(b) if b.whole(x) => Ok(Batched::Whole(x.clone())),
            Pieces::Blocks(b) => b.window_of(g, x).map(Batched::Each).map_err(|e| prefixed(e, k)),
        }
    }

    /// Output `k` of the call from the function's output `v`, of shape `piece` for one
    /// piece, over `batch`.
    fn assemble(&self, g: &Graph, k: usize, v: &Batched, piece: &Shape, batch: Shape) -> Result<Arc<Node>> {
        let each = sized(OVER_PIECES, piece.dims().iter().chain(batch.dims()).copied())?;
        let x = match v {
            Batched::Each(x) => x.clone(),
            Batched::Whole(w) => g.broadcast_to(w, each)?,
        };
        match self {
            Pieces::Elements(shape) => {
                if piece.dims().iter().any(|&d| d != 1) {
                    bail!(
                        ShapeMismatch,
                        "output {k} of the function has shape {piece}; a function applied to elements gives one value per output"
                    );
                }
                g.reshape(&x, *shape)
            }
            Pieces::Blocks(b) => b.assemble(g, k, &x, piece),
        }
    }
}

/// `e` with the input it is about named.
fn prefixed(e: Error, k: usize) -> Error {
    Error { message: format!("input {k}: {}", e.message), ..e }
}

impl Blocks {
    /// Input `x` is passed whole to every block: its size along the slicing dimension is 1.
    fn whole(&self, x: &Node) -> bool {
        x.shape.dim(self.dim) == 1
    }

    /// The length of a block with its overlaps.
    fn window(&self) -> usize {
        self.size + self.before + self.after
    }

    /// The blocks of `x` side by side: padded along the slicing dimension by the boundary
    /// rule (the overlap before the first block, and whatever the last block's window
    /// reaches past the end), then windows of `window()` elements, `size` apart.
    fn window_of(&self, g: &Graph, x: &Arc<Node>) -> Result<Arc<Node>> {
        let n = x.shape.dim(self.dim);
        // Windows cover `(count - 1) size + window` elements from `-before`.
        let reach = self.count.saturating_sub(1) * self.size + self.window();
        let after = reach - self.before - n;
        let padded = if self.before == 0 && after == 0 {
            x.clone()
        } else {
            let (mut lo, mut hi) = (vec![0i64; x.shape.rank()], vec![0i64; x.shape.rank()]);
            (lo[self.dim], hi[self.dim]) = (self.before as i64, after as i64);
            // An empty array has nothing to clamp or wrap to, and no block reads it.
            let boundary = if n == 0 { Boundary::Fill } else { self.boundary };
            g.pad(x, &lo, &hi, boundary, self.pad)?
        };
        g.window(&padded, self.dim, self.window(), self.size, self.count)
    }

    /// How many elements of each block lie inside the array (`size`, or fewer for the
    /// last block): an i64 per block.
    fn real_lengths(&self, g: &Graph) -> Result<Arc<Node>> {
        let n = self.shape.dim(self.dim) as i64;
        let k = g.iota(DType::I64, Shape::new(&[self.count]), 0)?;
        let start = g.binary_scalar_int(BinaryOp::Mul, &k, self.size as i64, false)?;
        let left = g.binary_scalar_int(BinaryOp::Sub, &start, n, true)?;
        g.binary_scalar_int(BinaryOp::Min, &left, self.size as i64, false)
    }

    /// Output `k` from `x`, the function's output (shape `piece` per block) followed by
    /// the blocks.
    fn assemble(&self, g: &Graph, k: usize, x: &Arc<Node>, piece: &Shape) -> Result<Arc<Node>> {
        let (dim, count) = (self.dim, self.count);
        let size = match &self.outputs[k] {
            Output::Slice => {
                let rank = self.shape.rank().max(dim + 1).max(piece.rank());
                let slice = self.shape.to_rank(rank).with_dim(dim, 1);
                if piece.to_rank(rank) != slice {
                    bail!(
                        ShapeMismatch,
                        "output {k} is a slice: every block must give an array of shape {} (the inputs' aggregate size with 1 along dimension {dim}), but the function gives {piece}",
                        self.shape.to_rank(self.shape.rank().max(dim + 1)).with_dim(dim, 1)
                    );
                }
                // The block index moves into the slicing dimension.
                let x = g.reshape(x, sized(OVER_PIECES, slice.dims().iter().copied().chain([count]))?)?;
                let mut perm: Vec<usize> = (0..=rank).collect();
                perm.swap(dim, rank);
                let moved = g.permute(&x, &perm)?;
                return g.project(&moved, rank, 0);
            }
            Output::Scalar => {
                if piece.dims().iter().any(|&d| d != 1) {
                    bail!(
                        ShapeMismatch,
                        "output {k} is a scalar: every block must give one value, but the function gives an array of shape {piece}"
                    );
                }
                return g.reshape(x, Shape::new(&[1, count]));
            }
            Output::Aggregate => self.shape,
            Output::Size(s) => *s,
        };
        self.concatenated(g, k, x, piece, size)
    }

    /// The blocks' results (`x`: `piece` per block) concatenated into `size`: along the
    /// one dimension where `size` differs from `piece`, the last block's surplus (from
    /// padding) cut off.
    fn concatenated(&self, g: &Graph, k: usize, x: &Arc<Node>, piece: &Shape, size: Shape) -> Result<Arc<Node>> {
        let count = self.count;
        let described = match self.outputs[k] {
            Output::Aggregate => format!("output {k} (the inputs' aggregate size {size})"),
            _ => format!("output {k} of size {size}"),
        };
        let rank = size.rank().max(piece.rank());
        let differ: Vec<usize> = (0..rank).filter(|&d| size.dim(d) != piece.dim(d)).collect();
        let c = match differ[..] {
            [] if count == 1 => return g.reshape(x, size),
            [] => bail!(ShapeMismatch, "{described} holds one block's result ({piece}), but there are {count} blocks"),
            [c] => c,
            _ => bail!(
                ShapeMismatch,
                "{described} differs from each block's result ({piece}) in dimensions {differ:?}; the blocks' results are concatenated along one dimension"
            ),
        };
        let (per, want) = (piece.dim(c) as u64, size.dim(c) as u64);
        let total = per * count as u64;
        if want > total || want + per <= total {
            bail!(
                ShapeMismatch,
                "{described}: the {count} blocks' results ({piece} each) concatenated along dimension {c} have {total} elements there, which size {want} {}",
                if want > total { "cannot be filled from" } else { "would leave a whole block of" }
            );
        }
        // Blocks next to each other along `c`, then cut to `want`.
        let full = piece.to_rank(rank);
        let x = g.reshape(x, sized(OVER_PIECES, full.dims().iter().copied().chain([count]))?)?;
        let mut perm: Vec<usize> = (0..=c).collect();
        perm.push(rank);
        perm.extend(c + 1..rank);
        let x = if c + 1 < rank { g.permute(&x, &perm)? } else { x };
        let x = g.reshape(&x, full.with_dim(c, total as usize))?;
        let x = if want < total {
            let mut count: Vec<i64> = full.dims().iter().map(|&d| d as i64).collect();
            count[c] = want as i64;
            g.section(&x, &vec![0; rank], &count, &vec![1; rank])?
        } else {
            x
        };
        g.reshape(&x, size)
    }
}

/// What a function being applied may ask about its pieces (`sl_apply_block_length`).
struct Applying {
    /// The blocks it is applied to (None for elements).
    blocks: bool,
    /// The placeholder of the real lengths of the blocks, once asked for.
    length: Option<Arc<Node>>,
}

thread_local! {
    /// The applies whose function runs on this thread, innermost last.
    static APPLYING: RefCell<Vec<Applying>> = const { RefCell::new(Vec::new()) };
}

/// A placeholder made while recording: it stands for every piece and has no value.
fn placeholder(g: &Graph, what: &str, dtype: DType, shape: Shape) -> Arc<Node> {
    let why = format!("{what}: a placeholder of the function's pieces has no value outside the function");
    let promise = Promise::failed(Arc::new(Error::new(crate::ir::ErrorKind::InvalidState, why)));
    Node::scheduled(Op::Source, dtype, shape, g.site, promise)
}

/// The placeholders a function is recorded on.
pub struct Recording {
    pub pieces: Vec<Arc<Node>>,
}

impl Graph<'_> {
    /// Starts recording a function applied to the pieces of `inputs`: returns the
    /// placeholders to call it with (one per input, shaped like one of its pieces).
    /// `finish_apply` (or `cancel_apply`) ends it.
    pub fn begin_apply(&self, what: &str, pieces: &Pieces, inputs: &[Arc<Node>]) -> Result<Recording> {
        let mut placeholders = Vec::with_capacity(inputs.len());
        for x in inputs {
            placeholders.push(placeholder(self, what, x.dtype, pieces.piece_shape(x)?));
        }
        let blocks = matches!(pieces, Pieces::Blocks(_));
        APPLYING.with(|a| a.borrow_mut().push(Applying { blocks, length: None }));
        Ok(Recording { pieces: placeholders })
    }

    /// Ends the recording begun last on this thread without using it.
    pub fn cancel_apply(&self) {
        APPLYING.with(|a| a.borrow_mut().pop());
    }

    /// Ends the recording begun last on this thread: batches the function's `outputs`
    /// (recorded on `rec`'s placeholders) over the pieces of `inputs` and puts the call's
    /// outputs together. Returns them and how batching went.
    pub fn finish_apply(
        &self,
        what: &str,
        pieces: &Pieces,
        inputs: &[Arc<Node>],
        rec: Recording,
        outputs: &[Arc<Node>],
    ) -> Result<(Vec<Arc<Node>>, Batching)> {
        let length = APPLYING.with(|a| a.borrow_mut().pop()).and_then(|a| a.length);
        let mut placeholders = rec.pieces;
        placeholders.extend(length.clone());
        let graph = PieceGraph::collect(outputs, &placeholders)?;
        let batch = pieces.batch(graph.max_rank());
        let mut batched = Vec::with_capacity(placeholders.len());
        for (k, x) in inputs.iter().enumerate() {
            batched.push(pieces.input(self, k, x, batch)?);
        }
        if length.is_some()
            && let Pieces::Blocks(b) = pieces
        {
            batched.push(Batched::Each(b.real_lengths(self)?));
        }
        let done = self.rt.sched.batch(what, &graph, batched, batch)?;
        let mut results = Vec::with_capacity(outputs.len());
        for (k, (v, o)) in done.outputs.iter().zip(outputs).enumerate() {
            results.push(pieces.assemble(self, k, v, &o.shape, batch)?);
        }
        Ok((results, done))
    }

    /// The number of elements of the block being processed that lie inside the array (a
    /// rank-0 i64 that differs between blocks), for the function of the innermost
    /// `sl_apply_blocks` recording on this thread.
    pub fn block_length(&self) -> Result<Arc<Node>> {
        APPLYING.with(|a| {
            let mut a = a.borrow_mut();
            match a.last_mut() {
                Some(Applying { blocks: true, length }) => Ok(length
                    .get_or_insert_with(|| placeholder(self, "sl_apply_block_length", DType::I64, Shape::SCALAR))
                    .clone()),
                _ => bail!(
                    InvalidState,
                    "sl_apply_block_length is called only by a function sl_apply_blocks is recording"
                ),
            }
        })
    }
}
