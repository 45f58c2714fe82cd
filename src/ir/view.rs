//! Index-remapping views. A view step maps each coordinate of the view (its *out* shape)
//! to a coordinate of its source (the *src* shape). Views cost nothing by themselves: the
//! kernel that consumes one reads its source through the composed mapping.

use super::node::Layout;
use super::shape::{MAX_RANK, Shape};

/// What a view yields where the mapped source coordinate falls outside the source.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Boundary {
    /// A fill value (the view node's second input).
    Fill,
    /// The nearest edge element.
    Clamp,
    /// Cyclic: the coordinate modulo the source size.
    Wrap,
}

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ViewStep {
    /// `out.dim(d) = src.dim(perm[d])`; source coordinate `perm[d]` is out coordinate `d`.
    Permute { perm: [u8; MAX_RANK] },
    /// The same elements in column-major order under a new shape.
    Reshape,
    /// Source coordinate `start[d] + step[d] * out[d]` (a negative step reverses).
    Section { start: [i64; MAX_RANK], step: [i64; MAX_RANK] },
    /// The source has one more dimension, fixed at `index`, inserted at `dim`.
    Project { dim: u8, index: i64 },
    /// Source dimensions of size 1 are stretched; source dims past its rank are dropped
    /// (they must have out size 1 or be broadcast).
    Broadcast,
    /// Source coordinate `out[d] - offset[d]`, out-of-range coordinates resolved by the
    /// boundary rule. Shift, rotate, pad, tile (offset 0, wrap) and concat are all this.
    Offset { offset: [i64; MAX_RANK], boundary: Boundary },
    /// Blocks of a dimension side by side: the view has one more dimension than its
    /// source, at `block`, and source coordinate `dim` is `stride * out[block]` plus that
    /// dimension's coordinate within the block; the other view coordinates are the
    /// source's in order. Blocks overlap where the window along `dim` is longer than
    /// `stride`. Every coordinate must lie inside the source (pad it first).
    Window { dim: u8, block: u8, stride: i64 },
}

impl ViewStep {
    pub fn name(&self) -> &'static str {
        match self {
            ViewStep::Permute { .. } => "permute",
            ViewStep::Reshape => "reshape",
            ViewStep::Section { .. } => "section",
            ViewStep::Project { .. } => "project",
            ViewStep::Broadcast => "broadcast",
            ViewStep::Offset { .. } => "offset",
            ViewStep::Window { .. } => "window",
        }
    }

    /// The source coordinate of out coordinate `out`, and whether it lies inside the
    /// source (always true except for `Offset` with `Boundary::Fill`). Out-of-range
    /// coordinates under `Fill` are clamped so that reading them stays in bounds.
    pub fn map_coord(&self, out: &[i64; MAX_RANK], out_shape: &Shape, src_shape: &Shape) -> ([i64; MAX_RANK], bool) {
        let mut src = [0i64; MAX_RANK];
        let mut valid = true;
        match self {
            ViewStep::Permute { perm } => {
                for d in 0..out_shape.rank() {
                    src[perm[d] as usize] = out[d];
                }
            }
            ViewStep::Reshape => {
                let mut linear = 0i64;
                let mut mult = 1i64;
                for d in 0..out_shape.rank() {
                    linear += out[d] * mult;
                    mult *= out_shape.dim(d) as i64;
                }
                for d in 0..src_shape.rank() {
                    let n = src_shape.dim(d).max(1) as i64;
                    src[d] = linear % n;
                    linear /= n;
                }
            }
            ViewStep::Section { start, step } => {
                for d in 0..src_shape.rank() {
                    src[d] = start[d] + step[d] * out[d];
                }
            }
            ViewStep::Project { dim, index } => {
                let dim = *dim as usize;
                for d in 0..src_shape.rank() {
                    src[d] = match d.cmp(&dim) {
                        std::cmp::Ordering::Less => out[d],
                        std::cmp::Ordering::Equal => *index,
                        std::cmp::Ordering::Greater => out[d - 1],
                    };
                }
            }
            ViewStep::Broadcast => {
                for d in 0..src_shape.rank() {
                    src[d] = if src_shape.dim(d) == 1 { 0 } else { out[d] };
                }
            }
            ViewStep::Offset { offset, boundary } => {
                for d in 0..src_shape.rank() {
                    let n = src_shape.dim(d) as i64;
                    let c = out[d] - offset[d];
                    src[d] = if (0..n).contains(&c) {
                        c
                    } else {
                        match boundary {
                            Boundary::Fill => {
                                valid = false;
                                c.clamp(0, (n - 1).max(0))
                            }
                            Boundary::Clamp => c.clamp(0, (n - 1).max(0)),
                            Boundary::Wrap => c.rem_euclid(n.max(1)),
                        }
                    };
                }
            }
            ViewStep::Window { dim, block, stride } => {
                for d in 0..src_shape.rank() {
                    src[d] = out[window_out_dim(d, *block)];
                }
                src[*dim as usize] += stride * out[*block as usize];
            }
        }
        (src, valid)
    }
}

impl ViewStep {
    /// The layout of the view when its source is stored with `src_layout`, if the step is
    /// a pure re-indexing of that storage (a zero-copy view).
    pub fn view_layout(&self, src_layout: &Layout, out: &Shape, src: &Shape) -> Option<Layout> {
        let mut l = Layout { offset: src_layout.offset, strides: [0; MAX_RANK] };
        match self {
            ViewStep::Permute { perm } => {
                for d in 0..out.rank() {
                    l.strides[d] = src_layout.strides[perm[d] as usize];
                }
            }
            ViewStep::Section { start, step } => {
                for d in 0..src.rank() {
                    l.offset += start[d] * src_layout.strides[d];
                    l.strides[d] = step[d] * src_layout.strides[d];
                }
            }
            ViewStep::Project { dim, index } => {
                let dim = *dim as usize;
                l.offset += index * src_layout.strides[dim];
                for d in 0..out.rank() {
                    l.strides[d] = src_layout.strides[if d < dim { d } else { d + 1 }];
                }
            }
            ViewStep::Broadcast => {
                for d in 0..out.rank() {
                    l.strides[d] = if d < src.rank() && src.dim(d) != 1 { src_layout.strides[d] } else { 0 };
                }
            }
            ViewStep::Window { dim, block, stride } => {
                for d in 0..src.rank() {
                    l.strides[window_out_dim(d, *block)] = src_layout.strides[d];
                }
                l.strides[*block as usize] = stride * src_layout.strides[*dim as usize];
            }
            ViewStep::Reshape if src_layout.is_dense(src) => l.strides = out.dense_strides(),
            ViewStep::Reshape | ViewStep::Offset { .. } => return None,
        }
        Some(l)
    }
}

/// The view dimension of a `Window`'s source dimension `d` (the view's dimension `block`
/// is the block index).
pub fn window_out_dim(d: usize, block: u8) -> usize {
    if d < block as usize { d } else { d + 1 }
}

/// Where the elements of a view lie in an array it is placed into (an assignment's
/// target): view coordinate `k` walks array dimension `dims[k]` by `step[k]` from `start`;
/// array dimensions no view dimension walks (projections) stay at `start`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Placement {
    pub start: [i64; MAX_RANK],
    pub step: [i64; MAX_RANK],
    pub dims: [u8; MAX_RANK],
}

impl Placement {
    /// The layout of the view's elements in an array stored as `base`, for a view of rank
    /// `rank` (the array's dimensions of `base` are the placement's).
    pub fn layout(&self, base: &Layout, rank: usize) -> Layout {
        let mut l = Layout { offset: base.offset, strides: [0; MAX_RANK] };
        for d in 0..MAX_RANK {
            l.offset += self.start[d] * base.strides[d];
        }
        for k in 0..rank {
            l.strides[k] = self.step[k] * base.strides[self.dims[k] as usize];
        }
        l
    }
}

/// One step of a composed access path, with the shapes on both sides.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct MapStep {
    pub step: ViewStep,
    pub out: Shape,
    pub src: Shape,
}

/// How a kernel's iteration domain reaches some array: the view steps from the domain
/// outward to the array, in order. An empty map is the identity.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Map {
    pub steps: Vec<MapStep>,
}

impl Map {
    /// Source coordinate reached from domain coordinate `c`, and whether every fill
    /// boundary on the way was inside its source.
    pub fn apply(&self, c: &[i64; MAX_RANK]) -> ([i64; MAX_RANK], bool) {
        let mut coord = *c;
        let mut valid = true;
        for s in &self.steps {
            let (next, ok) = s.step.map_coord(&coord, &s.out, &s.src);
            coord = next;
            valid &= ok;
        }
        (coord, valid)
    }
}
