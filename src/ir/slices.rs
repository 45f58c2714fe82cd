//! Gathers of whole slices: a kernel that only gathers from one source, where the
//! indices of the source's leading dimensions are the domain's own coordinates and the
//! other indices do not change along those dimensions, copies contiguous runs of the
//! source (`x[:, idx]` of a column-major matrix takes whole columns). Such a kernel splits
//! into a small kernel computing where each run starts and a copy of the runs, which
//! executors can do without index arithmetic per element.

use super::kernel::{Inst, Kernel, KernelOutput, OutputKind};
use super::{BinaryOp, DType, Layout, MAX_RANK, Scalar, Shape};

/// A gather kernel that copies whole slices, as `slice_gather` found it.
#[derive(Clone, Debug)]
pub struct SliceGather {
    /// The kernel input gathered from.
    pub source: usize,
    /// Elements per slice: the product of the domain's leading dimensions that the slices
    /// span. The output holds the slices one after the other.
    pub slice_len: usize,
    /// Slices in the output.
    pub slices: usize,
    /// A kernel over the slices computing the element offset (i64) in the source's
    /// storage at which each slice starts, in output order. It is the gather kernel
    /// restricted to coordinate 0 along the slices' dimensions: its domain has size 1
    /// there, and its maps and inputs are the gather's (so it binds the same inputs).
    /// Its parameters are the gather's, then `offset_params`.
    pub offsets: Kernel,
    /// The source's layout as parameters of `offsets` (its offset, then the last index and
    /// the stride of each dimension not spanned), so that one compiled kernel serves
    /// every source of the same structure.
    pub offset_params: Vec<Scalar>,
}

/// Domain dimensions as a bit set.
type Dims = u32;

/// The domain dimensions of size > 1 that a view of strides `strides` varies along.
fn varying(strides: &[i64; MAX_RANK], domain: &Shape) -> Dims {
    (0..domain.rank()).filter(|&d| domain.dim(d) > 1 && strides[d] != 0).fold(0, |m, d| m | 1 << d)
}

/// Every dimension of `domain`.
fn all_dims(domain: &Shape) -> Dims {
    (1 << domain.rank()) - 1
}

/// What a layout over the space that map `m` reaches is over the domain (`None` if a
/// step of the map is not strided).
fn through_map(k: &Kernel, m: u32, layout: Layout) -> Option<Layout> {
    // The map's steps run from the domain outward: compose from the far side in.
    k.maps[m as usize].steps.iter().rev().try_fold(layout, |l, s| s.step.view_layout(&l, &s.out, &s.src))
}

/// Coordinate `dim` of the space map `m` reaches, as a layout over the domain: the
/// coordinate is `offset + sum strides[d] * c[d]` (`None` if not affine in the domain's).
fn coord_layout(k: &Kernel, m: u32, dim: u8) -> Option<Layout> {
    let mut unit = Layout { offset: 0, strides: [0; MAX_RANK] };
    unit.strides[dim as usize] = 1;
    through_map(k, m, unit)
}

/// Per instruction, the domain dimensions its value may change along.
fn dependence(k: &Kernel) -> Vec<Dims> {
    let (domain, every) = (&k.domain, all_dims(&k.domain));
    let mut deps: Vec<Dims> = Vec::with_capacity(k.insts.len());
    for inst in &k.insts {
        let own = match *inst {
            Inst::Param { .. } | Inst::Const(_) => 0,
            Inst::Load { input, map } => {
                through_map(k, map, k.inputs[input as usize].layout).map_or(every, |l| varying(&l.strides, domain))
            }
            Inst::Coord { map, dim } => coord_layout(k, map, dim).map_or(every, |l| varying(&l.strides, domain)),
            // Fill boundaries: not worth tracking.
            Inst::Valid { .. } => every,
            _ => 0,
        };
        deps.push(inst.operands().iter().fold(own, |m, &a| m | deps[a as usize]));
    }
    deps
}

/// Largest value an integer of type `t` holds.
fn integer_max(t: DType) -> Option<i64> {
    let (_, hi) = t.integer_range().filter(|_| t.is_integer())?;
    Some(hi.min(i64::MAX as i128) as i64)
}

/// Whether value `v` equals the domain coordinate `d` at every point: that coordinate,
/// through casts that keep every value it takes.
fn is_domain_coord(k: &Kernel, mut v: u32, d: usize) -> bool {
    let top = k.domain.dim(d) as i64 - 1;
    loop {
        match k.insts[v as usize] {
            Inst::Cast { a } if integer_max(k.types[v as usize]).is_some_and(|m| m >= top) => v = a,
            Inst::Coord { map, dim } => {
                let Some(l) = coord_layout(k, map, dim) else { return false };
                let unit = |e: usize| k.domain.dim(e) <= 1 || l.strides[e] == (e == d) as i64;
                return l.offset == 0 && (0..k.domain.rank()).all(unit);
            }
            _ => return false,
        }
    }
}

/// `k` as a copy of whole slices, if it is one (see the module comment).
pub fn slice_gather(k: &Kernel) -> Option<SliceGather> {
    let [out] = &k.outputs[..] else { return None };
    let Inst::Gather { input, indices, rank } = k.insts[out.value as usize] else { return None };
    let source = &k.inputs[input as usize];
    if out.kind != OutputKind::Store || out.into.is_some() || out.dtype != source.dtype || k.axis.is_some() {
        return None;
    }
    let (domain, rank) = (&k.domain, rank as usize);
    // Leading dimensions taken whole: the index is the coordinate, within the source, and
    // the source holds them contiguously in the output's order.
    let mut spanned = 0;
    let mut run = 1i64;
    while spanned < rank.min(domain.rank()) {
        let (d, extent) = (spanned, domain.dim(spanned));
        let contiguous = extent <= 1 || source.layout.strides[d] == run;
        if !(contiguous && extent <= source.shape.dim(d) && is_domain_coord(k, indices[d], d)) {
            break;
        }
        run *= extent as i64;
        spanned += 1;
    }
    // The other indices must hold still along the slices.
    let deps = dependence(k);
    let still = |s: usize| indices[s..rank].iter().all(|&v| deps[v as usize] & ((1 << s) - 1) == 0);
    let s = (1..=spanned).rev().find(|&s| still(s))?;
    let slice_len: usize = domain.dims()[..s].iter().product();
    let mut offsets = k.clone();
    let mut reduced = *domain;
    for d in 0..s {
        reduced = reduced.with_dim(d, 1);
    }
    offsets.domain = reduced;
    let mut offset_params = vec![Scalar::I64(source.layout.offset)];
    for d in s..rank {
        offset_params.extend([source.shape.dim(d).saturating_sub(1) as i64, source.layout.strides[d]].map(Scalar::I64));
    }
    let param = |i: usize| Inst::Param { index: (k.params.len() + i) as u32 };
    let mut push = |inst: Inst| {
        offsets.insts.push(inst);
        offsets.types.push(DType::I64);
        offsets.insts.len() as u32 - 1
    };
    let mut at = push(param(0));
    let zero = push(Inst::Const(Scalar::I64(0)));
    for (i, &index) in indices[s..rank].iter().enumerate() {
        // Clamped into range, as the gather does.
        let (last, stride) = (push(param(1 + 2 * i)), push(param(2 + 2 * i)));
        let low = push(Inst::Binary { op: BinaryOp::Max, a: index, b: zero });
        let clamped = push(Inst::Binary { op: BinaryOp::Min, a: low, b: last });
        let step = push(Inst::Binary { op: BinaryOp::Mul, a: clamped, b: stride });
        at = push(Inst::Binary { op: BinaryOp::Add, a: at, b: step });
    }
    offsets.params.extend(offset_params.iter().map(|p| p.dtype()));
    offsets.outputs = vec![KernelOutput { value: at, kind: OutputKind::Store, dtype: DType::I64, into: None }];
    Some(SliceGather { source: input as usize, slice_len, slices: reduced.numel(), offsets, offset_params })
}
