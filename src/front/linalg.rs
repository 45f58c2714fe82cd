//! Matrix products in their BLAS forms, built as product nodes (`Op::MatMul`, an
//! intrinsic each executor computes its own way) with the scaling and the added `c` of
//! `alpha op(a) op(b) + beta c` as element-wise nodes around them.

use std::sync::Arc;

use smallvec::smallvec;

use super::graph::Graph;
use crate::ir::{BinaryOp, DType, Error, ErrorKind, Node, Op, ReduceOp, Result, Semiring, Shape, UnaryOp, bail};

/// What a general product does to an operand first.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Transpose {
    None,
    Transpose,
    /// Transposed and conjugated (complex types; for real ones, `Transpose`).
    Conjugate,
}

impl Graph<'_> {
    /// `a` (m x k, or a vector of length k) times `b` (k x n, or a vector of length k). A
    /// vector times a matrix gives a vector of length n, a matrix times a vector one of
    /// length m: the product node is m x 1 or 1 x n, which executors run as matrix x
    /// vector. Dimensions after the first two are a batch (numpy's `matmul` rules read
    /// column-major, see `product`).
    pub fn matmul(&self, a: &Arc<Node>, b: &Arc<Node>) -> Result<Arc<Node>> {
        self.product("matmul", a, b, [false; 2])
    }

    /// `matmul` with the elements of `a` and of `b` conjugated as `conj` says; `name` is
    /// the call's, for messages. An operand of rank above 2 is a stack of matrices over
    /// its dimensions 2.. (the batch); the two batches broadcast as element-wise operands
    /// do (missing trailing dimensions and size-1 ones stretch), so an m x k x p array
    /// times a k x n matrix is p products, m x n x p. A vector operand (rank 1) has no
    /// batch: it multiplies every matrix of the other's.
    fn product(&self, name: &str, a: &Arc<Node>, b: &Arc<Node>, conj: [bool; 2]) -> Result<Arc<Node>> {
        if !(a.dtype.is_float() || a.dtype.is_complex()) || a.dtype.is_half() || a.dtype != b.dtype {
            bail!(
                DTypeMismatch,
                "{name} needs two arrays of one float or complex type (f32, f64, c64, c128), got {} and {}",
                a.dtype,
                b.dtype
            );
        }
        let conj = conj.map(|c| c && a.dtype.is_complex());
        let p = ProductShapes::of(self, name, a, b)?;
        let c = self.pending(
            Op::MatMul { conj, semiring: Semiring::PLUS_TIMES },
            a.dtype,
            p.result,
            smallvec![p.a.clone(), p.b.clone()],
        );
        p.finish(self, &c)
    }

    /// The generalized inner product: element (i, j) is `reduce` over p of
    /// `combine(a[i, p], b[p, j])`, with `matmul`'s shapes, vectors and batches. (sum,
    /// mul) of float or complex arrays is `matmul`; the min/max pairs of
    /// `Semiring::is_intrinsic` (on bool arrays and/or written for min/max) are product
    /// nodes; every other pair is `reduce` along p of `combine` of the operands
    /// broadcast against each other (fused: the m x k x n values are never stored), so
    /// its types are those of `sl_binary` then `sl_reduce` (a sum of bools counts).
    pub fn inner_product(
        &self,
        reduce: ReduceOp,
        combine: BinaryOp,
        a: &Arc<Node>,
        b: &Arc<Node>,
    ) -> Result<Arc<Node>> {
        const NAME: &str = "inner_product";
        if matches!(reduce, ReduceOp::Mean | ReduceOp::ArgMin | ReduceOp::ArgMax) {
            bail!(
                InvalidArgument,
                "{NAME}: reduce is {}; sum, prod, min, max, any, all or count combine",
                reduce.name()
            );
        }
        if a.dtype != b.dtype {
            bail!(DTypeMismatch, "{NAME} needs two arrays of one type, got {} and {}", a.dtype, b.dtype);
        }
        let t = a.dtype;
        let pair = Semiring { reduce, combine };
        if pair == Semiring::PLUS_TIMES && (t.is_float() || t.is_complex()) {
            return self.product(NAME, a, b, [false; 2]);
        }
        let refuse = || {
            let why = format!("{NAME}: ({}, {}) is not defined for {t} arrays", reduce.name(), combine.name());
            Error::new(ErrorKind::DTypeMismatch, why)
        };
        let defined = combine != BinaryOp::Complex && !t.is_complex() && !t.is_half();
        let Some(ct) = combine.result_dtype(t).filter(|_| defined) else {
            return Err(refuse());
        };
        // The graph's reduce counts bools for sums and products.
        let counted = matches!(reduce, ReduceOp::Sum | ReduceOp::Prod) && ct == DType::Bool;
        if reduce.result_dtype(if counted { DType::I64 } else { ct }).is_none() {
            return Err(refuse());
        }
        let p = ProductShapes::of(self, NAME, a, b)?;
        // On bool arrays or/and are max/min of 0 and 1, any/all the same.
        let canonical = match (t, pair.reduce, pair.combine) {
            (DType::Bool, r, c) => Semiring {
                reduce: match r {
                    ReduceOp::Any => ReduceOp::Max,
                    ReduceOp::All => ReduceOp::Min,
                    r => r,
                },
                combine: match c {
                    BinaryOp::Or => BinaryOp::Max,
                    BinaryOp::And => BinaryOp::Min,
                    c => c,
                },
            },
            _ => pair,
        };
        if canonical.is_intrinsic() {
            let c = self.pending(
                Op::MatMul { conj: [false; 2], semiring: canonical },
                t,
                p.result,
                smallvec![p.a.clone(), p.b.clone()],
            );
            return p.finish(self, &c);
        }
        // a as m x k x 1 x batch, b as 1 x k x n x batch: combined, they broadcast to
        // m x k x n x batch, reduced along k.
        let spread = |x: &Arc<Node>, at: usize| -> Result<Arc<Node>> {
            let mut dims: Vec<u64> = x.shape.dims().iter().map(|&d| d as u64).collect();
            dims.insert(at, 1);
            self.reshape(x, Shape::sized(NAME, &dims)?)
        };
        let terms = self.binary(combine, &spread(&p.a, 2)?, &spread(&p.b, 0)?)?;
        let r = self.reduce(reduce, &terms, Some(1))?;
        let c = self.reshape(&r, r.shape.without_dim(1))?;
        p.finish(self, &c)
    }

    /// `alpha op(a) op(b) + beta c` (without `c`: `alpha op(a) op(b)`). A transposed
    /// matrix is a view read in place; a vector operand is taken as it is (a row on the
    /// left, a column on the right), conjugated by `Transpose::Conjugate`. `c` has the
    /// product's type and shape; with `beta` zero it is not read (as in BLAS). Scalars are
    /// (re, im) pairs; real operands take real ones.
    pub fn gemm(
        &self,
        ops: [Transpose; 2],
        a: &Arc<Node>,
        b: &Arc<Node>,
        alpha: (f64, f64),
        c: Option<&Arc<Node>>,
        beta: (f64, f64),
    ) -> Result<Arc<Node>> {
        let op = |t: Transpose, x: &Arc<Node>| match t {
            Transpose::None => Ok(x.clone()),
            _ if x.shape.rank() >= 2 => self.transpose(x),
            _ => Ok(x.clone()),
        };
        let conj = ops.map(|t| t == Transpose::Conjugate);
        let p = self.product("gemm", &op(ops[0], a)?, &op(ops[1], b)?, conj)?;
        let p = self.scaled(&p, alpha, "alpha")?;
        let Some(c) = c else { return Ok(p) };
        if c.dtype != p.dtype {
            bail!(DTypeMismatch, "gemm: c is {} but the product is {}", c.dtype, p.dtype);
        }
        if c.shape != p.shape {
            bail!(ShapeMismatch, "gemm: c is {} but op(a) op(b) is {}", c.shape, p.shape);
        }
        if beta == (0.0, 0.0) {
            return Ok(p);
        }
        self.binary(BinaryOp::Add, &p, &self.scaled(c, beta, "beta")?)
    }

    /// `x * s` (x itself for s = 1); `name` is the scalar's, for messages.
    fn scaled(&self, x: &Arc<Node>, s: (f64, f64), name: &str) -> Result<Arc<Node>> {
        match s {
            (1.0, 0.0) => Ok(x.clone()),
            _ if x.dtype.is_complex() => self.binary_scalar_complex(BinaryOp::Mul, x, s, false),
            (re, 0.0) => self.binary_scalar(BinaryOp::Mul, x, re, false),
            _ => bail!(DTypeMismatch, "gemm: {name} is complex but the operands are {}", x.dtype),
        }
    }

    /// Sum of element-wise products of two arrays of the same shape: a fused
    /// multiply-and-reduce, which is bandwidth-bound.
    pub fn dot(&self, a: &Arc<Node>, b: &Arc<Node>) -> Result<Arc<Node>> {
        if a.shape != b.shape {
            bail!(ShapeMismatch, "dot: shapes {} and {} differ", a.shape, b.shape);
        }
        let p = self.binary(BinaryOp::Mul, a, b)?;
        self.reduce(ReduceOp::Sum, &p, None)
    }

    /// The generalized outer product: `op(a[i...], b[j...])` for every element of `a`
    /// and of `b`, shaped `a`'s dimensions then `b`'s; `op`'s types as in `binary`. Each
    /// operand is reshaped so that the two broadcast, so it fuses with its neighbours.
    pub fn outer(&self, op: BinaryOp, a: &Arc<Node>, b: &Arc<Node>) -> Result<Arc<Node>> {
        // b's dimensions moved past a's (a's trailing ones are implicit).
        let mut dims = vec![1u64; a.shape.rank()];
        dims.extend(b.shape.dims().iter().map(|&d| d as u64));
        let moved =
            Shape::sized(format_args!("{}: the outer product of {} and {}", op.name(), a.shape, b.shape), &dims)?;
        self.binary(op, a, &self.reshape(b, moved)?)
    }

    /// `dot(conj(a), b)`: the inner product of complex vectors (for real ones, `dot`).
    pub fn vdot(&self, a: &Arc<Node>, b: &Arc<Node>) -> Result<Arc<Node>> {
        if a.shape != b.shape {
            bail!(ShapeMismatch, "vdot: shapes {} and {} differ", a.shape, b.shape);
        }
        self.dot(&self.unary(UnaryOp::Conj, a)?, b)
    }
}

/// The operands of a product as m x k (x batch) and k x n (x batch) matrices, and the
/// product's shape; `finish` takes a vector operand's unit dimension out of the result.
struct ProductShapes {
    a: Arc<Node>,
    b: Arc<Node>,
    result: Shape,
    ranks: (usize, usize),
}

impl ProductShapes {
    fn of(g: &Graph, name: &str, a: &Arc<Node>, b: &Arc<Node>) -> Result<ProductShapes> {
        let (ra, rb) = (a.shape.rank(), b.shape.rank());
        if ra == 0 || rb == 0 || ra + rb == 2 {
            bail!(
                ShapeMismatch,
                "{name} needs matrices (or stacks of them) or a vector times one of those, not two vectors (use dot) or a scalar, got {} and {}",
                a.shape,
                b.shape
            );
        }
        let a2 = if ra == 1 { g.reshape(a, Shape::new(&[1, a.shape.dim(0)]))? } else { a.clone() };
        let b2 = if rb == 1 { g.reshape(b, Shape::new(&[b.shape.dim(0), 1]))? } else { b.clone() };
        let (m, k, n) = (a2.shape.dim(0), a2.shape.dim(1), b2.shape.dim(1));
        if b2.shape.dim(0) != k {
            bail!(ShapeMismatch, "{name}: inner dimensions differ ({} times {})", a.shape, b.shape);
        }
        let batch_of = |s: &Shape| Shape::new(&s.dims()[2..]);
        let Ok(batch) = Shape::broadcast(&batch_of(&a2.shape), &batch_of(&b2.shape)) else {
            bail!(
                ShapeMismatch,
                "{name}: the batch dimensions (after the first two) of {} and {} do not broadcast",
                a.shape,
                b.shape
            );
        };
        let mut dims = vec![m as u64, n as u64];
        dims.extend(batch.dims().iter().map(|&d| d as u64));
        Ok(ProductShapes { a: a2, b: b2, result: Shape::sized(name, &dims)?, ranks: (ra, rb) })
    }

    /// `c` (the product's shape) as the call's result: a vector operand's unit dimension
    /// leaves it.
    fn finish(&self, g: &Graph, c: &Arc<Node>) -> Result<Arc<Node>> {
        match self.ranks {
            (1, _) => g.reshape(c, c.shape.without_dim(0)),
            (_, 1) => g.reshape(c, c.shape.without_dim(1)),
            _ => Ok(c.clone()),
        }
    }
}
