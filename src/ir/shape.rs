//! Array shapes (rank 0 to 8, column-major: the first dimension is the fastest).

use super::error::{Result, bail};

pub const MAX_RANK: usize = 8;

/// The most elements a shape may span: the product of its nonzero sizes. At 8 bytes an
/// element (the widest type) every byte offset then fits an `isize` and an `i64`, whatever
/// the type, and so do element counts and the strides and offsets of views.
pub const MAX_ELEMENTS: u64 = isize::MAX as u64 / 8;

/// Dimensions past the rank are always 0, so the derived equality compares shapes.
#[derive(Copy, Clone, PartialEq, Eq, Hash)]
pub struct Shape {
    dims: [usize; MAX_RANK],
    rank: u8,
}

impl Shape {
    pub const SCALAR: Shape = Shape { dims: [0; MAX_RANK], rank: 0 };

    /// Panics if `dims.len() > MAX_RANK`; callers validate user input first.
    pub fn new(dims: &[usize]) -> Shape {
        assert!(dims.len() <= MAX_RANK, "rank {} exceeds {}", dims.len(), MAX_RANK);
        let mut s = Shape { dims: [0; MAX_RANK], rank: dims.len() as u8 };
        s.dims[..dims.len()].copy_from_slice(dims);
        s
    }

    /// A shape of sizes that come from the application (given, or computed from what it
    /// gave), refused when they span more than `MAX_ELEMENTS`. The nonzero sizes count, so
    /// an empty shape cannot carry a size whose strides overflow either. `what` names the
    /// argument or call in the message (formatted only when the sizes are refused: a
    /// binary op broadcasts its operands on every call).
    pub fn sized(what: impl std::fmt::Display, dims: &[u64]) -> Result<Shape> {
        if dims.len() > MAX_RANK {
            bail!(InvalidArgument, "{what}: rank {} is outside 0..={MAX_RANK}", dims.len());
        }
        let span = dims.iter().filter(|&&d| d != 0).try_fold(1u64, |acc, &d| acc.checked_mul(d));
        if span.is_none_or(|n| n > MAX_ELEMENTS) {
            bail!(
                InvalidArgument,
                "{what}: shape {dims:?} is too large (its nonzero sizes span more than {MAX_ELEMENTS} elements)"
            );
        }
        let mut s = Shape { dims: [0; MAX_RANK], rank: dims.len() as u8 };
        for (out, &d) in s.dims.iter_mut().zip(dims) {
            *out = d as usize;
        }
        Ok(s)
    }

    pub fn rank(&self) -> usize {
        self.rank as usize
    }

    pub fn dims(&self) -> &[usize] {
        &self.dims[..self.rank as usize]
    }

    /// Size of dimension `d`; dimensions past the rank have size 1 (trailing singletons).
    pub fn dim(&self, d: usize) -> usize {
        if d < self.rank() { self.dims[d] } else { 1 }
    }

    pub fn numel(&self) -> usize {
        self.dims().iter().product()
    }

    /// Like `numel` but `None` on overflow.
    pub fn checked_numel(&self) -> Option<usize> {
        self.dims().iter().try_fold(1usize, |acc, &d| acc.checked_mul(d))
    }

    pub fn with_dim(&self, d: usize, size: usize) -> Shape {
        let mut s = *self;
        s.dims[d] = size;
        s
    }

    pub fn without_dim(&self, d: usize) -> Shape {
        let mut v: Vec<usize> = self.dims().to_vec();
        v.remove(d);
        Shape::new(&v)
    }

    /// The shape padded (or cut) to `rank` dimensions; padding dims are 1.
    pub fn to_rank(&self, rank: usize) -> Shape {
        Shape::new(&(0..rank).map(|d| self.dim(d)).collect::<Vec<_>>())
    }

    /// Column-major element strides of a dense array of this shape.
    pub fn dense_strides(&self) -> [i64; MAX_RANK] {
        let mut strides = [0i64; MAX_RANK];
        let mut acc = 1i64;
        for d in 0..self.rank() {
            strides[d] = acc;
            acc *= self.dims[d] as i64;
        }
        strides
    }

    /// The broadcast of two shapes: ranks are aligned at the first dimension (missing
    /// trailing dimensions are 1, as in Fortran and MATLAB), then size-1 dimensions stretch.
    /// Fails with `ShapeMismatch` when they do not broadcast, and as `sized` does when the
    /// result is too large (`[1, n]` with `[n]` is `[n, n]`).
    pub fn broadcast(a: &Shape, b: &Shape) -> Result<Shape> {
        // Most ops pair equal shapes or an array with a rank-0 value: a shape that exists
        // is sized already.
        if a == b || b.rank == 0 {
            return Ok(*a);
        }
        if a.rank == 0 {
            return Ok(*b);
        }
        let rank = a.rank().max(b.rank());
        let mut dims = [0u64; MAX_RANK];
        for (d, out) in dims.iter_mut().enumerate().take(rank) {
            let (x, y) = (a.dim(d), b.dim(d));
            *out = if x == y || y == 1 {
                x
            } else if x == 1 {
                y
            } else {
                bail!(ShapeMismatch, "shapes {a} and {b} do not broadcast");
            } as u64;
        }
        Shape::sized(format_args!("the broadcast of {a} and {b}"), &dims[..rank])
    }

    /// Multi-index of the column-major linear index `i`.
    pub fn unravel(&self, mut i: usize) -> [usize; MAX_RANK] {
        let mut idx = [0usize; MAX_RANK];
        for d in 0..self.rank() {
            let n = self.dims[d].max(1);
            idx[d] = i % n;
            i /= n;
        }
        idx
    }
}

impl std::fmt::Debug for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.dims())
    }
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("[")?;
        for (i, d) in self.dims().iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str("]")
    }
}
