//! Building the graph: every op's argument checks, shape and type inference,
//! broadcasting, constant folding and strength reduction, and zero-copy views of arrays
//! that are already computed.

use std::sync::Arc;

use super::runtime::Runtime;
use crate::ir::random;
use crate::sched::macros;
use smallvec::smallvec;

use super::rng::Rng;
use crate::ir::{
    BinaryOp, Boundary, CallSite, DType, Distribution, Inputs, MAX_RANK, Node, NodeState, Op, ReduceOp, Result, Scalar,
    ScalarKind, ScanOp, ScatterMode, Shape, UnaryOp, Value, ViewStep, bail,
};

/// 2^63: the i64 range as f64 is [-2^63, 2^63).
pub(super) const I64_LIMIT: f64 = 9_223_372_036_854_775_808.0;

/// Creates nodes for calls made at one call site.
pub struct Graph<'a> {
    pub rt: &'a Runtime,
    pub site: CallSite,
}

/// The constant value of a node that is a fill, and whether it was baked.
fn constant(n: &Node) -> Option<(Scalar, bool)> {
    match n.op {
        Op::Fill { value, baked } if n.is_pending() => Some((value, baked)),
        _ => None,
    }
}

/// `x` if `a op c` is `(x + c) - c` or `(x - c) + c` of integers (exact, as integer
/// arithmetic wraps): offsets that cancel, as the Fortran layer's 1-based iotas and its
/// conversion of 1-based indices do, leave `x` itself (an iota stays one).
fn cancelled_offset(op: BinaryOp, a: &Node, c: Scalar, shape: Shape) -> Option<Arc<Node>> {
    let inverse = match op {
        BinaryOp::Add => BinaryOp::Sub,
        _ => BinaryOp::Add,
    };
    if a.op != Op::Binary(inverse) {
        return None;
    }
    let NodeState::Pending { inputs, .. } = &*a.state() else { return None };
    let (x, offset) = (&inputs[0], constant(&inputs[1])?.0);
    (offset == c && x.shape == shape).then(|| x.clone())
}

/// Folds `op` over two constants of the same type, with the kernels' semantics.
fn fold_binary(op: BinaryOp, a: Scalar, b: Scalar) -> Option<Scalar> {
    use BinaryOp as B;
    macro_rules! float {
        ($x:expr, $y:expr, $wrap:path) => {{
            let (x, y) = ($x, $y);
            let nan = x.is_nan() || y.is_nan();
            Some($wrap(match op {
                B::Add => x + y,
                B::Sub => x - y,
                B::Mul => x * y,
                B::Div => x / y,
                B::Min if nan => x + y,
                B::Max if nan => x + y,
                B::Min => {
                    if x < y {
                        x
                    } else {
                        y
                    }
                }
                B::Max => {
                    if x > y {
                        x
                    } else {
                        y
                    }
                }
                _ => return None,
            }))
        }};
    }
    macro_rules! int {
        ($x:expr, $y:expr, $wrap:path) => {{
            let (x, y) = ($x, $y);
            Some($wrap(match op {
                B::Add => x.wrapping_add(y),
                B::Sub => x.wrapping_sub(y),
                B::Mul => x.wrapping_mul(y),
                B::Div => {
                    if y == 0 {
                        0
                    } else {
                        x.wrapping_div(y)
                    }
                }
                B::Min => x.min(y),
                B::Max => x.max(y),
                _ => return None,
            }))
        }};
    }
    match (a, b) {
        (Scalar::F32(x), Scalar::F32(y)) => float!(x, y, Scalar::F32),
        (Scalar::F64(x), Scalar::F64(y)) => float!(x, y, Scalar::F64),
        (Scalar::I32(x), Scalar::I32(y)) => int!(x, y, Scalar::I32),
        (Scalar::I64(x), Scalar::I64(y)) => int!(x, y, Scalar::I64),
        (Scalar::U8(x), Scalar::U8(y)) => int!(x, y, Scalar::U8),
        (Scalar::I8(x), Scalar::I8(y)) => int!(x, y, Scalar::I8),
        (Scalar::I16(x), Scalar::I16(y)) => int!(x, y, Scalar::I16),
        (Scalar::U16(x), Scalar::U16(y)) => int!(x, y, Scalar::U16),
        (Scalar::U32(x), Scalar::U32(y)) => int!(x, y, Scalar::U32),
        (Scalar::U64(x), Scalar::U64(y)) => int!(x, y, Scalar::U64),
        _ => None,
    }
}

fn fold_unary(op: UnaryOp, a: Scalar) -> Option<Scalar> {
    Some(match (op, a) {
        (UnaryOp::Neg, Scalar::F32(x)) => Scalar::F32(-x),
        (UnaryOp::Neg, Scalar::F64(x)) => Scalar::F64(-x),
        (UnaryOp::Neg, Scalar::I32(x)) => Scalar::I32(x.wrapping_neg()),
        (UnaryOp::Neg, Scalar::I64(x)) => Scalar::I64(x.wrapping_neg()),
        (UnaryOp::Abs, Scalar::F32(x)) => Scalar::F32(x.abs()),
        (UnaryOp::Abs, Scalar::F64(x)) => Scalar::F64(x.abs()),
        (UnaryOp::Abs, Scalar::I32(x)) => Scalar::I32(x.wrapping_abs()),
        (UnaryOp::Abs, Scalar::I64(x)) => Scalar::I64(x.wrapping_abs()),
        _ => return None,
    })
}

fn perm_array(perm: &[usize]) -> [u8; MAX_RANK] {
    let mut p = [0u8; MAX_RANK];
    for (d, &v) in perm.iter().enumerate() {
        p[d] = v as u8;
    }
    p
}

/// The broadcast of two shapes, an error naming `what` when there is none.
fn broadcast(what: &str, a: &Shape, b: &Shape) -> Result<Shape> {
    Shape::broadcast(a, b).map_err(|mut e| {
        e.message = format!("{what}: {}", e.message);
        e
    })
}

fn check_dim(what: &str, dim: usize, rank: usize) -> Result<()> {
    if dim >= rank {
        bail!(InvalidArgument, "{what}: dimension {dim} is out of range for a rank-{rank} array");
    }
    Ok(())
}

impl Graph<'_> {
    pub(super) fn pending(&self, op: Op, dtype: DType, shape: Shape, inputs: impl Into<Inputs>) -> Arc<Node> {
        let n = Node::pending(op, dtype, shape, self.site, inputs.into());
        self.rt.sched.enqueue(&n);
        n
    }

    /// A rank-0 constant used as an operand: nothing to queue, since only the op that
    /// uses it can need it. Loops pass the same scalars again and again, and such a node
    /// never changes, so recent ones are shared.
    pub(super) fn operand(&self, dtype: DType, value: Scalar) -> Arc<Node> {
        thread_local! {
            static RECENT: std::cell::RefCell<(usize, [Option<Arc<Node>>; 8])> = Default::default();
        }
        RECENT.with(|r| {
            let (next, slots) = &mut *r.borrow_mut();
            if let Some(n) =
                slots.iter().flatten().find(|n| n.dtype == dtype && n.op == (Op::Fill { value, baked: false }))
            {
                return n.clone();
            }
            let n = Node::pending(Op::Fill { value, baked: false }, dtype, Shape::SCALAR, self.site, Inputs::new());
            slots[*next] = Some(n.clone());
            *next = (*next + 1) % slots.len();
            n
        })
    }

    /// A new draw of random numbers of `dtype` (f32 or f64) and `shape` from generator
    /// `rng` (its id `rng_id`), uniform or normal.
    pub fn random(&self, rng_id: u64, rng: &Rng, dist: Distribution, dtype: DType, shape: Shape) -> Result<Arc<Node>> {
        if dtype.is_complex() {
            return self.complex_random(rng_id, rng, dist, dtype, shape);
        }
        if !dtype.is_float() {
            bail!(DTypeMismatch, "random numbers are f32 or f64, not {dtype}");
        }
        if dtype.is_half() {
            return self.cast(&self.random(rng_id, rng, dist, DType::F32, shape)?, dtype);
        }
        self.random_law(rng_id, rng, dist, dtype, shape, &[])
    }

    /// A new draw of law `dist` with parameters `params` (of the types the law says;
    /// `front::random` checks and computes them). The seed, draw and parameters are
    /// operands of their own (not shared with other ops), so a replayed macro can give
    /// each draw its new value and a loop's kernels do not depend on the values.
    pub fn random_law(
        &self,
        rng_id: u64,
        rng: &Rng,
        dist: Distribution,
        dtype: DType,
        shape: Shape,
        params: &[Scalar],
    ) -> Result<Arc<Node>> {
        debug_assert!(dist.gives(dtype) && params.len() == dist.params());
        if dist.uses_element_blocks() && shape.numel() as u64 > random::MAX_ELEMENT_INDEX {
            bail!(
                InvalidArgument,
                "{} arrays have at most 2^48 elements ({} asked): each element owns counters of its own",
                dist.name(),
                shape.numel()
            );
        }
        let st = rng.take(1);
        let operand = |v: Scalar| {
            Node::pending(Op::Fill { value: v, baked: false }, v.dtype(), Shape::SCALAR, self.site, Inputs::new())
        };
        let mut inputs: Inputs = smallvec![operand(Scalar::I64(st.seed as i64)), operand(Scalar::I64(st.draw as i64))];
        inputs.extend(params.iter().map(|&p| operand(p)));
        let op = Op::Random { kind: rng.kind, dist, rng: rng_id };
        Ok(self.pending(op, dtype, shape, inputs))
    }

    /// An array holding a copy of `value` (already laid out as `value.layout` says).
    pub fn stored(&self, dtype: DType, shape: Shape, value: Value) -> Arc<Node> {
        Node::ready(Op::Source, dtype, shape, self.site, value)
    }

    pub fn fill(&self, dtype: DType, shape: Shape, value: Scalar, baked: bool) -> Arc<Node> {
        debug_assert_eq!(value.dtype(), dtype);
        self.pending(Op::Fill { value, baked }, dtype, shape, Inputs::new())
    }

    /// An application's scalar as an element of `dtype`; refuses values the type cannot
    /// hold rather than rounding them silently.
    pub fn app_scalar(&self, dtype: DType, v: f64) -> Result<Scalar> {
        if dtype.is_complex() {
            bail!(DTypeMismatch, "a {dtype} value is made from its parts (see `constant`)");
        }
        let s = Scalar::F64(v).cast(dtype);
        // Compared before the cast: 2^63 saturates to i64::MAX, which reads back as 2^63.
        let exact = match dtype.integer_range() {
            Some((lo, hi)) => v.fract() == 0.0 && (lo as f64..(hi + 1) as f64).contains(&v),
            None => true,
        };
        if !exact {
            bail!(DTypeMismatch, "scalar {v} cannot be represented as {dtype}");
        }
        Ok(s)
    }

    /// An array of `shape` with every element `v` (a complex one gets a zero imaginary
    /// part).
    pub fn constant(&self, dtype: DType, shape: Shape, v: f64) -> Result<Arc<Node>> {
        if dtype.is_complex() {
            return self.complex_constant(dtype, shape, v, 0.0);
        }
        Ok(self.fill(dtype, shape, self.app_scalar(dtype, v)?, false))
    }

    pub fn iota(&self, dtype: DType, shape: Shape, dim: usize) -> Result<Arc<Node>> {
        check_dim("iota", dim, shape.rank())?;
        if dtype.is_complex() || dtype.is_half() {
            let real = self.iota(if dtype.is_half() { DType::F32 } else { dtype.real() }, shape, dim)?;
            return self.cast(&real, dtype);
        }
        if dtype == DType::Bool {
            bail!(DTypeMismatch, "iota cannot produce bool");
        }
        Ok(self.pending(Op::Iota { dim: dim as u8 }, dtype, shape, Inputs::new()))
    }

    pub fn identity(&self, dtype: DType, rows: usize, cols: usize) -> Result<Arc<Node>> {
        if dtype.is_complex() || dtype.is_half() {
            let real = self.identity(if dtype.is_half() { DType::F32 } else { dtype.real() }, rows, cols)?;
            return self.cast(&real, dtype);
        }
        Ok(self.pending(Op::Identity, dtype, Shape::new(&[rows, cols]), Inputs::new()))
    }

    pub fn unary(&self, op: UnaryOp, a: &Arc<Node>) -> Result<Arc<Node>> {
        use UnaryOp::{Arg, Conj, Imag, IsFinite, Real};
        if a.dtype.is_half() {
            return self.in_f32(a.dtype, &[a], |w| self.unary(op, &w[0]));
        }
        if a.dtype.is_complex() || matches!(op, Conj | Real | Imag | Arg | IsFinite) {
            if a.dtype == DType::Bool {
                bail!(DTypeMismatch, "{} is not defined for bool arrays", op.name());
            }
            return self.complex_unary(op, a);
        }
        let Some(t) = op.result_dtype(a.dtype) else {
            bail!(DTypeMismatch, "{} is not defined for {} arrays", op.name(), a.dtype);
        };
        if let Some((v, baked)) = constant(a)
            && let Some(r) = fold_unary(op, v)
        {
            return Ok(self.fill(t, a.shape, r, baked));
        }
        Ok(self.pending(Op::Unary(op), t, a.shape, smallvec![a.clone()]))
    }

    /// `a` stretched to `shape` (trailing singleton dimensions of `a` are implicit).
    pub fn broadcast_to(&self, a: &Arc<Node>, shape: Shape) -> Result<Arc<Node>> {
        if a.shape == shape {
            return Ok(a.clone());
        }
        match Shape::broadcast(&a.shape, &shape) {
            Ok(s) if s == shape => Ok(self.view(a, ViewStep::Broadcast, shape, None)),
            _ => bail!(ShapeMismatch, "cannot broadcast shape {} to {}", a.shape, shape),
        }
    }

    /// An operand brought to `shape`; rank-0 operands stay as they are (every kernel
    /// reads a scalar the same way at every point).
    fn operand_to(&self, x: &Arc<Node>, shape: Shape) -> Result<Arc<Node>> {
        if x.shape.rank() == 0 { Ok(x.clone()) } else { self.broadcast_to(x, shape) }
    }

    /// Operands brought to their common shape (see `operand_to`).
    pub(super) fn broadcast_operands(&self, what: &str, xs: &[&Arc<Node>]) -> Result<(Shape, Vec<Arc<Node>>)> {
        let mut shape = xs[0].shape;
        for x in &xs[1..] {
            shape = broadcast(what, &shape, &x.shape)?;
        }
        let ops = xs.iter().map(|x| self.operand_to(x, shape)).collect::<Result<Vec<_>>>()?;
        Ok((shape, ops))
    }

    /// `a` and `b` cast to their promoted type (`DType::promote`); a real operand of a
    /// complex result only to that type's parts, which complex arithmetic takes as a real
    /// number (scaling by a real is not multiplying by a complex number with a zero part
    /// when infinities are involved).
    fn promoted(&self, a: &Arc<Node>, b: &Arc<Node>) -> Result<(Arc<Node>, Arc<Node>)> {
        let t = a.dtype.promote(b.dtype);
        let to = |x: &Arc<Node>| if t.is_complex() && !x.dtype.is_complex() { t.real() } else { t };
        Ok((self.cast(a, to(a))?, self.cast(b, to(b))?))
    }

    pub fn binary(&self, op: BinaryOp, a: &Arc<Node>, b: &Arc<Node>) -> Result<Arc<Node>> {
        let (a, b) = &self.promoted(a, b)?;
        if a.dtype.is_half() {
            return self.in_f32(a.dtype, &[a, b], |w| self.binary(op, &w[0], &w[1]));
        }
        if a.dtype.is_complex() || b.dtype.is_complex() {
            return self.complex_binary(op, a, b);
        }
        let Some(t) = op.result_dtype(a.dtype) else {
            bail!(DTypeMismatch, "{} is not defined for {} arrays", op.name(), a.dtype);
        };
        let shape = broadcast(op.name(), &a.shape, &b.shape)?;
        let (ca, cb) = (constant(a), constant(b));
        if let (Some((x, bx)), Some((y, by))) = (ca, cb)
            && let Some(r) = fold_binary(op, x, y)
        {
            return Ok(self.fill(t, shape, r, bx && by));
        }
        let a = self.operand_to(a, shape)?;
        if let Some(n) = self.simplify(op, &a, cb.map(|c| c.0), shape)? {
            return Ok(n);
        }
        let b = self.operand_to(b, shape)?;
        Ok(self.pending(Op::Binary(op), t, shape, smallvec![a, b]))
    }

    /// Strength reduction and identities for `a op c` with a constant `c`, kept to the
    /// rewrites that give bit-identical results. `a` is rank 0 or of the result's `shape`.
    fn simplify(&self, op: BinaryOp, a: &Arc<Node>, c: Option<Scalar>, shape: Shape) -> Result<Option<Arc<Node>>> {
        let Some(c) = c else { return Ok(None) };
        let is = |v: f64| c.as_f64() == v;
        let int = !a.dtype.is_float();
        let r = match op {
            BinaryOp::Pow if is(2.0) => self.binary(BinaryOp::Mul, a, a)?,
            BinaryOp::Pow if is(1.0) => a.clone(),
            BinaryOp::Pow if is(0.0) => return Ok(Some(self.fill(a.dtype, shape, Scalar::one(a.dtype), true))),
            BinaryOp::Pow if is(-1.0) && !int => self.unary(UnaryOp::Rcp, a)?,
            BinaryOp::Mul | BinaryOp::Div if is(1.0) => a.clone(),
            BinaryOp::Add | BinaryOp::Sub if is(0.0) && int => a.clone(),
            BinaryOp::Add | BinaryOp::Sub if int => return Ok(cancelled_offset(op, a, c, shape)),
            _ => return Ok(None),
        };
        // A rank-0 `a` against a shaped constant gives a result of the constant's shape.
        Ok(Some(self.broadcast_to(&r, shape)?))
    }

    /// `a op s` (or `s op a` when `scalar_first`) for a weak floating-point scalar: the
    /// result has the type `DType::promote_weak` gives, and the scalar that type (the type
    /// of its parts for a complex result).
    pub fn binary_scalar(&self, op: BinaryOp, a: &Arc<Node>, s: f64, scalar_first: bool) -> Result<Arc<Node>> {
        let t = a.dtype.promote_weak(ScalarKind::Float).real();
        let c = self.operand(t, self.app_scalar(t, s)?);
        self.binary_ordered(op, a, &c, scalar_first)
    }

    /// `a op s` (or `s op a`) for a weak integer scalar: of `a`'s type (i64 for bool),
    /// refused when that type cannot hold `s`.
    pub fn binary_scalar_int(&self, op: BinaryOp, a: &Arc<Node>, s: i64, scalar_first: bool) -> Result<Arc<Node>> {
        let t = a.dtype.promote_weak(ScalarKind::Int).real();
        let v = Scalar::I64(s).cast(t);
        if t.is_integer() && v.as_i128() != Some(s as i128) {
            bail!(DTypeMismatch, "{}: scalar {s} cannot be represented as {t}", op.name());
        }
        let c = self.operand(t, v);
        self.binary_ordered(op, a, &c, scalar_first)
    }

    fn binary_ordered(&self, op: BinaryOp, a: &Arc<Node>, c: &Arc<Node>, c_first: bool) -> Result<Arc<Node>> {
        if c_first { self.binary(op, c, a) } else { self.binary(op, a, c) }
    }

    /// `a op (re + i im)` (or the scalar first): complex of `a`'s precision.
    pub fn binary_scalar_complex(
        &self,
        op: BinaryOp,
        a: &Arc<Node>,
        (re, im): (f64, f64),
        scalar_first: bool,
    ) -> Result<Arc<Node>> {
        let t = a.dtype.promote_weak(ScalarKind::Complex);
        let c = self.complex_scalar(t, re, im)?;
        self.binary_ordered(op, a, &c, scalar_first)
    }

    pub fn select(&self, cond: &Arc<Node>, a: &Arc<Node>, b: &Arc<Node>) -> Result<Arc<Node>> {
        if cond.dtype != DType::Bool {
            bail!(DTypeMismatch, "select: the condition must be bool, not {}", cond.dtype);
        }
        let t = a.dtype.promote(b.dtype);
        let (a, b) = (&self.cast(a, t)?, &self.cast(b, t)?);
        if t.is_half() {
            return self.in_f32(t, &[a, b], |w| self.select(cond, &w[0], &w[1]));
        }
        let (shape, ops) = self.broadcast_operands("select", &[cond, a, b])?;
        Ok(self.pending(Op::Select, a.dtype, shape, ops))
    }

    /// `cond ? a : s` (or `cond ? s : a` when `scalar_first`) for a weak floating-point
    /// scalar `s`.
    pub fn select_scalar(&self, cond: &Arc<Node>, a: &Arc<Node>, s: f64, scalar_first: bool) -> Result<Arc<Node>> {
        let t = a.dtype.promote_weak(ScalarKind::Float);
        let c = if t.is_complex() { self.complex_scalar(t, s, 0.0)? } else { self.operand(t, self.app_scalar(t, s)?) };
        if scalar_first { self.select(cond, &c, a) } else { self.select(cond, a, &c) }
    }

    pub fn cast(&self, a: &Arc<Node>, to: DType) -> Result<Arc<Node>> {
        if a.dtype == to {
            return Ok(a.clone());
        }
        if to.is_complex() {
            return self.cast_to_complex(a, to);
        }
        if a.dtype.is_complex() {
            bail!(
                DTypeMismatch,
                "cast from {} to {to} would drop the imaginary part; take real (sl_real) or abs (sl_abs)",
                a.dtype
            );
        }
        if let Some((v, baked)) = constant(a) {
            return Ok(self.fill(to, a.shape, v.cast(to), baked));
        }
        Ok(self.pending(Op::Cast, to, a.shape, smallvec![a.clone()]))
    }

    /// A view of `a` with shape `out`. Views of stored arrays that only re-index the
    /// storage cost nothing; views of constants are constants.
    pub fn view(&self, a: &Arc<Node>, step: ViewStep, out: Shape, fill: Option<Arc<Node>>) -> Arc<Node> {
        // A recording macro section reads only its inputs: its views stay ops.
        let recording = macros::recording();
        if !recording {
            // Whether `a` is computed decides what the view becomes.
            self.rt.sched.settle(a);
        }
        if !recording
            && let NodeState::Ready(v) = &*a.state()
            && let Some(layout) = step.view_layout(&v.layout, &out, &a.shape)
        {
            let value = Value { storage: v.storage.clone(), layout };
            return Node::view_of(a, Op::View(step), a.dtype, out, self.site, value);
        }
        if fill.is_none()
            && let Some((v, baked)) = constant(a)
        {
            return self.fill(a.dtype, out, v, baked);
        }
        // A reshape of a pending reshape is one reshape of its source (the source itself
        // when the shapes match), so a value shaped back is not copied.
        if step == ViewStep::Reshape && a.op == Op::View(ViewStep::Reshape) {
            let mut source = None;
            a.with_pending(|ins, _| source = Some(ins[0].clone()));
            if let Some(src) = source {
                return if src.shape == out {
                    src
                } else {
                    self.pending(Op::View(step), src.dtype, out, smallvec![src])
                };
            }
        }
        let mut inputs = vec![a.clone()];
        inputs.extend(fill);
        self.pending(Op::View(step), a.dtype, out, inputs)
    }

    pub fn reshape(&self, a: &Arc<Node>, shape: Shape) -> Result<Arc<Node>> {
        if shape.numel() != a.shape.numel() {
            bail!(
                ShapeMismatch,
                "reshape: {} has {} elements, {} has {}",
                a.shape,
                a.shape.numel(),
                shape,
                shape.numel()
            );
        }
        if shape == a.shape {
            return Ok(a.clone());
        }
        Ok(self.view(a, ViewStep::Reshape, shape, None))
    }

    pub fn permute(&self, a: &Arc<Node>, perm: &[usize]) -> Result<Arc<Node>> {
        let r = a.shape.rank();
        let mut seen = [false; MAX_RANK];
        if perm.len() != r || perm.iter().any(|&p| p >= r || std::mem::replace(&mut seen[p], true)) {
            bail!(InvalidArgument, "permute: {perm:?} is not a permutation of the {r} dimensions");
        }
        if perm.iter().enumerate().all(|(i, &p)| i == p) {
            return Ok(a.clone());
        }
        let dims: Vec<usize> = perm.iter().map(|&p| a.shape.dim(p)).collect();
        Ok(self.view(a, ViewStep::Permute { perm: perm_array(perm) }, Shape::new(&dims), None))
    }

    /// Swaps the first two dimensions; a vector of length n becomes 1 x n.
    pub fn transpose(&self, a: &Arc<Node>) -> Result<Arc<Node>> {
        match a.shape.rank() {
            0 => Ok(a.clone()),
            1 => self.reshape(a, Shape::new(&[1, a.shape.dim(0)])),
            r => {
                let mut perm: Vec<usize> = (0..r).collect();
                perm.swap(0, 1);
                self.permute(a, &perm)
            }
        }
    }

    pub fn section(&self, a: &Arc<Node>, start: &[i64], count: &[i64], step: &[i64]) -> Result<Arc<Node>> {
        let r = a.shape.rank();
        if start.len() != r || count.len() != r || step.len() != r {
            bail!(InvalidArgument, "section: expected {r} starts, counts and strides");
        }
        let (mut st, mut sp, mut dims) = ([0i64; MAX_RANK], [0i64; MAX_RANK], Vec::with_capacity(r));
        for d in 0..r {
            let n = a.shape.dim(d) as i64;
            if step[d] == 0 || count[d] < 0 {
                bail!(InvalidArgument, "section: dimension {d} has stride {} and count {}", step[d], count[d]);
            }
            if count[d] > 0 {
                // Checked: a last coordinate that overflows lies outside the array too.
                let last = (count[d] - 1).checked_mul(step[d]).and_then(|span| start[d].checked_add(span));
                if !(0..n).contains(&start[d]) || !last.is_some_and(|l| (0..n).contains(&l)) {
                    bail!(
                        InvalidArgument,
                        "section: dimension {d} (size {n}) from {} with stride {} for {} elements leaves the array",
                        start[d],
                        step[d],
                        count[d]
                    );
                }
                st[d] = start[d];
            }
            // A dimension of at most one element never steps: its stride is 1, since a
            // huge one would only overflow the strides of the view's layout.
            sp[d] = if count[d] > 1 { step[d] } else { 1 };
            dims.push(count[d] as usize);
        }
        Ok(self.view(a, ViewStep::Section { start: st, step: sp }, Shape::new(&dims), None))
    }

    pub fn project(&self, a: &Arc<Node>, dim: usize, index: i64) -> Result<Arc<Node>> {
        check_dim("project", dim, a.shape.rank())?;
        if !(0..a.shape.dim(dim) as i64).contains(&index) {
            bail!(
                InvalidArgument,
                "project: index {index} is out of range for dimension {dim} of size {}",
                a.shape.dim(dim)
            );
        }
        let out = a.shape.without_dim(dim);
        Ok(self.view(a, ViewStep::Project { dim: dim as u8, index }, out, None))
    }

    fn offset_view(
        &self,
        a: &Arc<Node>,
        offset: [i64; MAX_RANK],
        out: Shape,
        boundary: Boundary,
        fill: f64,
    ) -> Result<Arc<Node>> {
        let fill = match boundary {
            Boundary::Fill if a.dtype.is_complex() => Some(self.complex_scalar(a.dtype, fill, 0.0)?),
            Boundary::Fill => Some(self.operand(a.dtype, self.app_scalar(a.dtype, fill)?)),
            _ => {
                if a.shape.numel() == 0 && out.numel() > 0 {
                    bail!(InvalidArgument, "clamp and wrap boundaries need a non-empty array");
                }
                None
            }
        };
        Ok(self.view(a, ViewStep::Offset { offset, boundary }, out, fill))
    }

    /// `out[i] = a[i - offset]` along `dim`; outside, the fill value or the edge.
    pub fn shift(&self, a: &Arc<Node>, dim: usize, offset: i64, boundary: Boundary, fill: f64) -> Result<Arc<Node>> {
        check_dim("shift", dim, a.shape.rank())?;
        // Reduced to the offset that selects the same elements, so that coordinates minus
        // offsets cannot overflow: a cyclic shift modulo the extent; otherwise from an
        // offset of ±extent on, every element comes from outside.
        let n = a.shape.dim(dim) as i64;
        let mut off = [0i64; MAX_RANK];
        off[dim] = match boundary {
            Boundary::Wrap => offset.rem_euclid(n.max(1)),
            Boundary::Fill | Boundary::Clamp => offset.clamp(-n, n),
        };
        self.offset_view(a, off, a.shape, boundary, fill)
    }

    pub fn pad(&self, a: &Arc<Node>, lo: &[i64], hi: &[i64], boundary: Boundary, fill: f64) -> Result<Arc<Node>> {
        let r = a.shape.rank();
        if lo.len() != r || hi.len() != r || lo.iter().chain(hi).any(|&p| p < 0) {
            bail!(InvalidArgument, "pad: expected {r} non-negative low and high paddings");
        }
        let mut off = [0i64; MAX_RANK];
        let mut dims = Vec::with_capacity(r);
        for d in 0..r {
            off[d] = lo[d];
            dims.push((a.shape.dim(d) as u64).saturating_add(lo[d] as u64).saturating_add(hi[d] as u64));
        }
        self.offset_view(a, off, Shape::sized("pad", &dims)?, boundary, fill)
    }

    /// `count` windows of `length` elements along `dim`, `stride` apart, side by side
    /// along a new last dimension: element `i` of window `k` is `a[stride k + i]` along
    /// `dim`. Every window must lie inside `a` (pad it first).
    pub fn window(&self, a: &Arc<Node>, dim: usize, length: usize, stride: usize, count: usize) -> Result<Arc<Node>> {
        check_dim("window", dim, a.shape.rank())?;
        if a.shape.rank() == MAX_RANK {
            bail!(InvalidArgument, "window: a rank-{MAX_RANK} array has no room for the window index");
        }
        let n = a.shape.dim(dim) as u64;
        let reach = (count as u64)
            .checked_sub(1)
            .map(|k| k.checked_mul(stride as u64).and_then(|s| s.checked_add(length as u64)));
        if reach.is_some_and(|end| end.is_none_or(|end| end > n)) {
            bail!(
                InvalidArgument,
                "window: {count} windows of {length} elements, {stride} apart, do not fit in dimension {dim} of size {n}"
            );
        }
        let mut dims: Vec<u64> = a.shape.dims().iter().map(|&d| d as u64).collect();
        dims[dim] = length as u64;
        dims.push(count as u64);
        let out = Shape::sized("window", &dims)?;
        // One window never steps: its stride would only overflow the strides of the view.
        let stride = if count > 1 { stride as i64 } else { 0 };
        let step = ViewStep::Window { dim: dim as u8, block: a.shape.rank() as u8, stride };
        Ok(self.view(a, step, out, None))
    }

    pub fn tile(&self, a: &Arc<Node>, reps: &[i64]) -> Result<Arc<Node>> {
        if reps.len() > MAX_RANK || reps.iter().any(|&r| r < 0) {
            bail!(InvalidArgument, "tile: expected at most {MAX_RANK} non-negative repetition counts");
        }
        let r = a.shape.rank().max(reps.len());
        let src = a.shape.to_rank(r);
        let dims: Vec<u64> =
            (0..r).map(|d| (src.dim(d) as u64).saturating_mul(reps.get(d).copied().unwrap_or(1) as u64)).collect();
        let out = Shape::sized("tile", &dims)?;
        let a = if src != a.shape { self.reshape(a, src)? } else { a.clone() };
        self.offset_view(&a, [0; MAX_RANK], out, Boundary::Wrap, 0.0)
    }

    pub fn concat(&self, parts: &[Arc<Node>], dim: usize) -> Result<Arc<Node>> {
        let Some(first) = parts.first() else { bail!(InvalidArgument, "concat: no arrays given") };
        if dim >= MAX_RANK {
            bail!(InvalidArgument, "concat: dimension {dim} exceeds the maximum rank");
        }
        let r = parts.iter().map(|p| p.shape.rank()).max().unwrap_or(0).max(dim + 1);
        let mut dims = first.shape.to_rank(r).dims().to_vec();
        dims[dim] = 0;
        let mut ranked = Vec::with_capacity(parts.len());
        for p in parts {
            if p.dtype != first.dtype {
                bail!(DTypeMismatch, "concat: arrays have types {} and {}", first.dtype, p.dtype);
            }
            let s = p.shape.to_rank(r);
            for d in (0..r).filter(|&d| d != dim) {
                if s.dim(d) != first.shape.to_rank(r).dim(d) {
                    bail!(
                        ShapeMismatch,
                        "concat along {dim}: shapes {} and {} differ in dimension {d}",
                        first.shape,
                        p.shape
                    );
                }
            }
            dims[dim] = dims[dim].saturating_add(s.dim(dim));
            ranked.push(if s != p.shape { self.reshape(p, s)? } else { p.clone() });
        }
        if ranked.len() == 1 {
            return Ok(ranked.pop().expect("one part"));
        }
        let dims: Vec<u64> = dims.iter().map(|&d| d as u64).collect();
        Ok(self.pending(Op::Concat { dim: dim as u8 }, first.dtype, Shape::sized("concat", &dims)?, ranked))
    }

    /// `rank` index arrays, integers (or f32/f64 when `floats`: they are floored).
    pub(super) fn check_indices(&self, what: &str, rank: usize, indices: &[Arc<Node>], floats: bool) -> Result<()> {
        if rank == 0 || indices.len() != rank {
            bail!(InvalidArgument, "{what}: a rank-{rank} array needs {rank} index arrays, got {}", indices.len());
        }
        if let Some(i) = indices.iter().find(|i| !(i.dtype.is_integer() || floats && i.dtype.is_float())) {
            let allowed = if floats { "integers or f32/f64" } else { "integers" };
            bail!(DTypeMismatch, "{what}: index arrays must be {allowed}, not {}", i.dtype);
        }
        Ok(())
    }

    pub fn gather(&self, src: &Arc<Node>, indices: &[Arc<Node>]) -> Result<Arc<Node>> {
        self.check_indices("gather", src.shape.rank(), indices, false)?;
        let refs: Vec<&Arc<Node>> = indices.iter().collect();
        let (shape, mut ops) = self.broadcast_operands("gather", &refs)?;
        for op in ops.iter_mut() {
            *op = self.broadcast_to(op, shape)?;
        }
        if src.shape.numel() == 0 && shape.numel() > 0 {
            bail!(InvalidArgument, "gather: the source {} has no elements to take", src.shape);
        }
        let mut inputs = vec![src.clone()];
        inputs.extend(ops);
        Ok(self.pending(Op::Gather, src.dtype, shape, inputs))
    }

    pub fn scatter(
        &self,
        dst: &Arc<Node>,
        indices: &[Arc<Node>],
        values: &Arc<Node>,
        mode: ScatterMode,
    ) -> Result<Arc<Node>> {
        self.check_indices("scatter", dst.shape.rank(), indices, false)?;
        if values.dtype != dst.dtype {
            bail!(DTypeMismatch, "scatter: values are {} but the destination is {}", values.dtype, dst.dtype);
        }
        if dst.dtype == DType::Bool && mode == ScatterMode::Add {
            bail!(DTypeMismatch, "scatter: adding is not defined for bool arrays");
        }
        if dst.dtype.is_complex() && mode != ScatterMode::Replace {
            return self.complex_scatter(dst, indices, values, mode);
        }
        if dst.dtype.is_half() {
            return self.in_f32(dst.dtype, &[dst, values], |w| self.scatter(&w[0], indices, &w[1], mode));
        }
        let mut refs: Vec<&Arc<Node>> = vec![values];
        refs.extend(indices.iter());
        let (shape, _) = self.broadcast_operands("scatter", &refs)?;
        let mut inputs = vec![dst.clone(), self.broadcast_to(values, shape)?];
        for i in indices {
            let i = self.cast(i, DType::I64)?;
            inputs.push(self.broadcast_to(&i, shape)?);
        }
        Ok(self.pending(Op::Scatter { mode }, dst.dtype, dst.shape, inputs))
    }

    /// `a` as `op` reduces it: bools count, so their sum is an i64 and their mean an f64
    /// (as numpy's).
    pub(super) fn bools_counted(&self, op: ReduceOp, a: &Arc<Node>) -> Result<Arc<Node>> {
        match op {
            ReduceOp::Sum | ReduceOp::Prod | ReduceOp::Mean if a.dtype == DType::Bool => self.cast(a, DType::I64),
            _ => Ok(a.clone()),
        }
    }

    pub fn reduce(&self, op: ReduceOp, a: &Arc<Node>, axis: Option<usize>) -> Result<Arc<Node>> {
        if a.dtype.is_complex() {
            if let Some(d) = axis {
                check_dim(op.name(), d, a.shape.rank())?;
            }
            return self.complex_reduce(op, a, axis);
        }
        if a.dtype.is_half() {
            return self.in_f32(a.dtype, &[a], |w| self.reduce(op, &w[0], axis));
        }
        let a = &self.bools_counted(op, a)?;
        let Some(t) = op.result_dtype(a.dtype) else {
            bail!(DTypeMismatch, "{} is not defined for {} arrays", op.name(), a.dtype);
        };
        let shape = match axis {
            None => Shape::SCALAR,
            Some(d) => {
                check_dim(op.name(), d, a.shape.rank())?;
                a.shape.with_dim(d, 1)
            }
        };
        Ok(self.pending(Op::Reduce { op, axis: axis.map(|d| d as u8) }, t, shape, smallvec![a.clone()]))
    }

    pub fn scan(&self, op: ScanOp, a: &Arc<Node>, axis: usize) -> Result<Arc<Node>> {
        let name = op.name();
        if a.dtype.is_complex() {
            check_dim(name, axis, a.shape.rank())?;
            return self.complex_scan(op, a, axis);
        }
        if a.dtype.is_half() {
            return self.in_f32(a.dtype, &[a], |w| self.scan(op, &w[0], axis));
        }
        let Some(t) = op.result_dtype(a.dtype) else {
            bail!(DTypeMismatch, "{name} is not defined for {} arrays", a.dtype);
        };
        check_dim(name, axis, a.shape.rank())?;
        Ok(self.pending(Op::Scan { op, axis: axis as u8 }, t, a.shape, smallvec![a.clone()]))
    }
}
