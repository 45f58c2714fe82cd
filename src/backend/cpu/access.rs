//! Where each lane of a chunk reads from. A kernel's domain is processed in row
//! segments (runs along dimension 0 at fixed outer coordinates); along such a run every
//! view step is piecewise affine, so an access is a short list of pieces, each a
//! constant, a contiguous run or a strided run. Purely affine access paths are composed
//! once, when the kernel is lowered.

use crate::ir::{Boundary, Layout, MAX_RANK, Map, MapStep, Shape, ViewStep, window_out_dim};

/// `base + step * lane`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Lin {
    pub base: i64,
    pub step: i64,
}

impl Lin {
    const fn constant(v: i64) -> Lin {
        Lin { base: v, step: 0 }
    }

    fn at(self, lane: i64) -> Lin {
        Lin { base: self.base + self.step * lane, step: self.step }
    }

    fn scale(self, k: i64) -> Lin {
        Lin { base: self.base * k, step: self.step * k }
    }

    fn add(self, o: Lin) -> Lin {
        Lin { base: self.base + o.base, step: self.step + o.step }
    }
}

/// An affine function of the domain coordinates: `offset + sum(coef[d] * c[d])`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AffineForm {
    pub offset: i64,
    pub coef: [i64; MAX_RANK],
}

impl AffineForm {
    /// Value along a row segment that starts at `start` (dimension 0 advances per lane).
    pub fn along_row(&self, start: &[i64; MAX_RANK]) -> Lin {
        let base = self.offset + (0..MAX_RANK).map(|d| self.coef[d] * start[d]).sum::<i64>();
        Lin { base, step: self.coef[0] }
    }

    pub fn is_constant(&self) -> bool {
        self.coef.iter().all(|&c| c == 0)
    }

    /// Value along a piece whose coordinates are `c`.
    fn of(&self, c: &[Lin; MAX_RANK]) -> Lin {
        (0..MAX_RANK).fold(Lin::constant(self.offset), |v, e| v.add(c[e].scale(self.coef[e])))
    }
}

/// Source coordinates as affine functions of domain coordinates.
#[derive(Clone)]
pub struct AffineMap {
    coords: [AffineForm; MAX_RANK],
}

impl AffineMap {
    fn identity() -> AffineMap {
        let mut coords = [AffineForm { offset: 0, coef: [0; MAX_RANK] }; MAX_RANK];
        for (d, c) in coords.iter_mut().enumerate() {
            c.coef[d] = 1;
        }
        AffineMap { coords }
    }

    /// The composition of `map`'s steps, or `None` if a step is not affine.
    pub fn compose(map: &Map) -> Option<AffineMap> {
        let mut m = AffineMap::identity();
        for s in &map.steps {
            m = m.then(s)?;
        }
        Some(m)
    }

    fn then(&self, s: &MapStep) -> Option<AffineMap> {
        let zero = AffineForm { offset: 0, coef: [0; MAX_RANK] };
        let mut next = [zero; MAX_RANK];
        match &s.step {
            ViewStep::Permute { perm } => {
                for d in 0..s.out.rank() {
                    next[perm[d] as usize] = self.coords[d];
                }
            }
            ViewStep::Section { start, step } => {
                for d in 0..s.src.rank() {
                    let c = &self.coords[d];
                    let mut f = AffineForm { offset: start[d] + step[d] * c.offset, coef: [0; MAX_RANK] };
                    for e in 0..MAX_RANK {
                        f.coef[e] = step[d] * c.coef[e];
                    }
                    next[d] = f;
                }
            }
            ViewStep::Project { dim, index } => {
                let dim = *dim as usize;
                for d in 0..s.src.rank() {
                    next[d] = match d.cmp(&dim) {
                        std::cmp::Ordering::Less => self.coords[d],
                        std::cmp::Ordering::Equal => AffineForm { offset: *index, coef: [0; MAX_RANK] },
                        std::cmp::Ordering::Greater => self.coords[d - 1],
                    };
                }
            }
            ViewStep::Broadcast => {
                for d in 0..s.src.rank() {
                    next[d] = if s.src.dim(d) == 1 { zero } else { self.coords[d] };
                }
            }
            ViewStep::Window { dim, block, stride } => {
                for d in 0..s.src.rank() {
                    next[d] = self.coords[window_out_dim(d, *block)];
                }
                let (along, blocks) = (&mut next[*dim as usize], self.coords[*block as usize]);
                along.offset += stride * blocks.offset;
                for e in 0..MAX_RANK {
                    along.coef[e] += stride * blocks.coef[e];
                }
            }
            ViewStep::Reshape => {
                // Affine when it only inserts or drops dimensions of size 1: the others
                // pair up in order (a unit dimension's coordinate is 0).
                let out = (0..s.out.rank()).filter(|&d| s.out.dim(d) != 1);
                let src = (0..s.src.rank()).filter(|&d| s.src.dim(d) != 1);
                if !out.clone().map(|d| s.out.dim(d)).eq(src.clone().map(|d| s.src.dim(d))) {
                    return None;
                }
                for (o, d) in out.zip(src) {
                    next[d] = self.coords[o];
                }
            }
            ViewStep::Offset { .. } => return None,
        }
        Some(AffineMap { coords: next })
    }

    pub fn coord(&self, d: usize) -> AffineForm {
        self.coords[d]
    }

    /// Element offset in storage with `layout`, for a source of rank `rank`.
    pub fn address(&self, layout: &Layout, rank: usize) -> AffineForm {
        let mut f = AffineForm { offset: layout.offset, coef: [0; MAX_RANK] };
        for d in 0..rank {
            let c = &self.coords[d];
            f.offset += layout.strides[d] * c.offset;
            for e in 0..MAX_RANK {
                f.coef[e] += layout.strides[d] * c.coef[e];
            }
        }
        f
    }
}

/// Lanes `[lane, lane + len)` of a row segment, all mapping to coordinates `coord` (each
/// affine in the lane) and all inside or all outside the fill boundaries.
#[derive(Copy, Clone, Debug)]
pub struct Piece {
    pub lane: usize,
    pub len: usize,
    pub coord: [Lin; MAX_RANK],
    pub valid: bool,
}

impl Piece {
    /// Storage offset of the piece's first lane and its step per lane.
    pub fn address(&self, layout: &Layout, rank: usize) -> Lin {
        let mut a = Lin::constant(layout.offset);
        for d in 0..rank {
            a = a.add(self.coord[d].scale(layout.strides[d]));
        }
        a
    }

    /// The sub-piece `[from, from + len)` relative to this piece's start.
    fn sub(&self, from: usize, len: usize) -> Piece {
        let mut p = *self;
        p.lane += from;
        p.len = len;
        for c in p.coord.iter_mut() {
            *c = c.at(from as i64);
        }
        p
    }
}

/// A map as `walk` takes it: each run of affine steps composed into one, so that only the
/// steps that split a row (fill, clamp and wrap boundaries, reshapes across dimensions)
/// copy pieces. A moving window's term (reshape, project, window, offset) is two stages.
pub struct Walk {
    stages: Vec<Stage>,
}

// A walk has a few stages, made once per program: their size does not matter.
#[allow(clippy::large_enum_variant)]
enum Stage {
    /// Source coordinates of `rank` dimensions as affine functions of the stage's input.
    Affine {
        map: AffineMap,
        rank: usize,
    },
    Split(MapStep),
}

impl Walk {
    pub fn new(map: &Map) -> Walk {
        let mut stages = Vec::new();
        let mut run: Option<(AffineMap, usize)> = None;
        for s in &map.steps {
            let composed = run.as_ref().map_or_else(AffineMap::identity, |(m, _)| m.clone());
            match composed.then(s) {
                Some(m) => run = Some((m, s.src.rank())),
                None => {
                    stages.extend(run.take().map(|(map, rank)| Stage::Affine { map, rank }));
                    stages.push(Stage::Split(*s));
                }
            }
        }
        stages.extend(run.map(|(map, rank)| Stage::Affine { map, rank }));
        Walk { stages }
    }
}

/// Pieces of the row segment starting at domain coordinate `start` with `len` lanes,
/// pushed through every stage of `plan`. `scratch` is reused between calls.
pub fn walk(plan: &Walk, start: &[i64; MAX_RANK], len: usize, out: &mut Vec<Piece>, scratch: &mut Vec<Piece>) {
    out.clear();
    let mut coord = [Lin::constant(0); MAX_RANK];
    for d in 0..MAX_RANK {
        coord[d] = Lin { base: start[d], step: (d == 0) as i64 };
    }
    out.push(Piece { lane: 0, len, coord, valid: true });
    for stage in &plan.stages {
        match stage {
            Stage::Affine { map, rank } => {
                for p in out.iter_mut() {
                    let from = p.coord;
                    for d in 0..MAX_RANK {
                        p.coord[d] = if d < *rank { map.coord(d).of(&from) } else { Lin::constant(0) };
                    }
                }
            }
            Stage::Split(s) => {
                scratch.clear();
                for p in out.iter() {
                    split(s, p, scratch);
                }
                std::mem::swap(out, scratch);
            }
        }
    }
}

/// Pushes `p` through a step that is not affine: a reshape across dimensions or an offset
/// with a boundary.
fn split(s: &MapStep, p: &Piece, out: &mut Vec<Piece>) {
    match &s.step {
        ViewStep::Offset { offset, boundary } => {
            let mut q = *p;
            for d in 0..s.src.rank() {
                q.coord[d] = p.coord[d].add(Lin::constant(-offset[d]));
            }
            bound(q, 0, &s.src, *boundary, out);
        }
        ViewStep::Reshape => reshape(p, &s.out, &s.src, out),
        _ => unreachable!("affine steps are composed (AffineMap::then)"),
    }
}

/// Re-expresses the piece's column-major linear index in the source shape.
fn reshape(p: &Piece, out_shape: &Shape, src: &Shape, out: &mut Vec<Piece>) {
    let mut linear = Lin::constant(0);
    let mut mult = 1i64;
    for d in 0..out_shape.rank() {
        linear = linear.add(p.coord[d].scale(mult));
        mult *= out_shape.dim(d) as i64;
    }
    // Consecutive lanes move along source dimension `f` where prefix(f) <= step <
    // prefix(f + 1) (prefix(d) the product of the dimensions before `d`), when the step
    // is a multiple of prefix(f): the coordinates before `f` then stay fixed. A run along
    // a slower dimension (a section of a reshaped window, say) is one piece, not one per lane.
    let moving = if linear.step > 0 {
        let mut prefix = 1i64;
        let mut found = None;
        for d in 0..src.rank() {
            let n = src.dim(d) as i64;
            if linear.step < prefix * n {
                found = (linear.step % prefix == 0).then_some((d, linear.step / prefix));
                break;
            }
            prefix *= n;
        }
        found
    } else {
        None
    };
    let mut lane = 0usize;
    while lane < p.len {
        let l = linear.base + linear.step * lane as i64;
        let mut q = *p;
        q.lane = p.lane + lane;
        let mut rest = l;
        for d in 0..src.rank() {
            let n = src.dim(d).max(1) as i64;
            q.coord[d] = Lin::constant(rest % n);
            rest /= n;
        }
        q.coord[src.rank()..].fill(Lin::constant(0));
        let run = match moving {
            Some((f, step)) => {
                let within = q.coord[f].base;
                q.coord[f].step = step;
                (((src.dim(f) as i64 - 1 - within) / step + 1) as usize).min(p.len - lane)
            }
            None if linear.step == 0 => p.len - lane,
            None => 1,
        };
        q.len = run;
        out.push(q);
        lane += run;
    }
}

/// Splits the piece where coordinate `d` (and then the later ones) leaves the source,
/// resolving the outside parts by `boundary`.
fn bound(p: Piece, d: usize, src: &Shape, boundary: Boundary, out: &mut Vec<Piece>) {
    if d >= src.rank() {
        out.push(p);
        return;
    }
    let n = src.dim(d) as i64;
    if n == 0 {
        // Nothing to read: only a fill can produce values here.
        let mut q = p;
        q.coord[d] = Lin::constant(0);
        q.valid &= boundary != Boundary::Fill;
        return bound(q, d + 1, src, boundary, out);
    }
    let c = p.coord[d];
    let mut lane = 0usize;
    while lane < p.len {
        let v = c.base + c.step * lane as i64;
        // Period index of v and the number of lanes that stay in that period.
        let k = v.div_euclid(n);
        let run = if c.step > 0 {
            (((k + 1) * n - 1 - v) / c.step + 1) as usize
        } else if c.step < 0 {
            ((v - k * n) / -c.step + 1) as usize
        } else {
            p.len - lane
        };
        let mut run = run.min(p.len - lane);
        let mut q = p.sub(lane, run);
        if k != 0 {
            match boundary {
                Boundary::Wrap => q.coord[d] = Lin { base: v - k * n, step: c.step },
                Boundary::Clamp | Boundary::Fill => {
                    // Every lane outside on the same side clamps to the same edge.
                    let edge = if k < 0 { 0 } else { n - 1 };
                    let side = k.signum();
                    let mut more = run;
                    while lane + more < p.len && (c.base + c.step * (lane + more) as i64).div_euclid(n).signum() == side
                    {
                        more += 1;
                    }
                    run = more;
                    q = p.sub(lane, run);
                    q.coord[d] = Lin::constant(edge);
                    if boundary == Boundary::Fill {
                        q.valid = false;
                    }
                }
            }
        }
        bound(q, d + 1, src, boundary, out);
        lane += run;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks `walk` against the per-element mapping for every lane of every row.
    fn check(map: &Map, domain: &Shape, layout: &Layout, src: &Shape) {
        let (mut pieces, mut scratch) = (Vec::new(), Vec::new());
        let rows: usize = domain.dims()[1..].iter().product();
        let d0 = domain.dim(0);
        for r in 0..rows {
            let outer = Shape::new(&domain.dims()[1..]).unravel(r);
            let mut start = [0i64; MAX_RANK];
            for d in 1..domain.rank() {
                start[d] = outer[d - 1] as i64;
            }
            walk(&Walk::new(map), &start, d0, &mut pieces, &mut scratch);
            let mut covered = 0;
            for p in &pieces {
                assert_eq!(p.lane, covered, "pieces are in lane order");
                covered += p.len;
                let a = p.address(layout, src.rank());
                for l in 0..p.len {
                    let mut c = start;
                    c[0] = (p.lane + l) as i64;
                    let (sc, valid) = map.apply(&c);
                    assert_eq!(valid, p.valid, "validity at {c:?}");
                    let want = layout.offset_of(&sc, src.rank());
                    assert_eq!(a.base + a.step * l as i64, want, "address at {c:?}");
                }
            }
            assert_eq!(covered, d0);
        }
    }

    fn step(step: ViewStep, out: &[usize], src: &[usize]) -> MapStep {
        MapStep { step, out: Shape::new(out), src: Shape::new(src) }
    }

    #[test]
    fn walks_match_elementwise_mapping() {
        let mut off = [0i64; MAX_RANK];
        off[0] = 3;
        off[1] = -2;
        let src = Shape::new(&[7, 5]);
        let layout = Layout::dense(&src);
        for boundary in [Boundary::Fill, Boundary::Clamp, Boundary::Wrap] {
            let map = Map { steps: vec![step(ViewStep::Offset { offset: off, boundary }, &[11, 6], &[7, 5])] };
            check(&map, &Shape::new(&[11, 6]), &layout, &src);
        }
        // tile: a wrap with offset 0 over a larger output
        let map = Map {
            steps: vec![step(ViewStep::Offset { offset: [0; MAX_RANK], boundary: Boundary::Wrap }, &[23, 3], &[7, 1])],
        };
        check(&map, &Shape::new(&[23, 3]), &Layout::dense(&Shape::new(&[7, 1])), &Shape::new(&[7, 1]));
        // reshape after transpose, then reversed section
        let mut perm = [0u8; MAX_RANK];
        perm[0] = 1;
        perm[1] = 0;
        let mut start = [0i64; MAX_RANK];
        let mut stride = [0i64; MAX_RANK];
        start[0] = 20;
        stride[0] = -2;
        stride[1] = 2;
        let map = Map {
            steps: vec![
                step(ViewStep::Reshape, &[5, 6], &[3, 10]),
                step(ViewStep::Permute { perm }, &[3, 10], &[10, 3]),
                step(ViewStep::Section { start, step: stride }, &[10, 3], &[21, 6]),
            ],
        };
        let src = Shape::new(&[21, 6]);
        check(&map, &Shape::new(&[5, 6]), &Layout::dense(&src), &src);
    }

    /// Lanes that move along a reshape's slower dimensions: a run while the step is a
    /// multiple of the dimensions before (source dimension 0, 2, then none), split where
    /// a coordinate wraps.
    #[test]
    fn reshape_runs_along_slow_dimensions() {
        for (view, src) in [([4usize, 9], vec![6usize, 6]), ([6, 5], vec![3, 2, 5]), ([4, 6], vec![3, 8])] {
            let src = Shape::new(&src);
            let map = Map {
                steps: vec![
                    step(ViewStep::Project { dim: 0, index: 1 }, &[view[1]], &view),
                    step(ViewStep::Reshape, &view, src.dims()),
                ],
            };
            check(&map, &Shape::new(&[view[1]]), &Layout::dense(&src), &src);
        }
    }
}
