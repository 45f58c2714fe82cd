//! The CPU form of a kernel: instructions over chunk-sized registers, produced from the
//! fused-kernel IR by `lower`.

use std::collections::HashMap;
use std::sync::Arc;

use smallvec::SmallVec;

use super::access::{AffineForm, AffineMap, Walk};
use crate::ir::kernel::{Inst, Kernel, KernelOutput, KernelReduce, OutputKind};
use crate::ir::random::MAX_RANDOM_PARAMS;
use crate::ir::random::sobol::Scramble;
use crate::ir::{
    BinaryOp, DType, Distribution, Layout, Map, MapStep, Result, RngKind, ScanOp, Shape, UnaryOp, ViewStep, bail,
};

/// Lanes per chunk of a program that reduces or scans: a register of f64 is 8 KiB, so a
/// program's working set stays in L1/L2. Reductions over everything fold blocks of this
/// many elements, whatever else the program computes, so their bits do not depend on
/// what was fused with them.
pub const CHUNK: usize = 1024;

/// Register bytes a chunk of a program that only stores may take: with few registers its
/// chunks are longer than `CHUNK` (up to 8 times), so the interpreter's work per chunk
/// (walking the chunk, dispatching each instruction) is spread over more elements.
const STORE_REGISTER_BYTES: usize = 64 << 10;

/// The most lanes a chunk has.
pub const MAX_LANES: usize = 8 * CHUNK;

/// Where an SSA value lives while a chunk runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    /// One value for the whole launch.
    Uniform(u16),
    /// A chunk-sized register.
    Reg(u16),
}

/// How a load finds its element for each lane.
#[derive(Clone, Debug)]
pub enum Access {
    /// Storage offset affine in the domain coordinates.
    Affine(AffineForm),
    /// Through the view steps of a kernel map, piece by piece.
    Walk(u32),
}

#[derive(Clone, Debug)]
pub enum VInst {
    Load {
        dst: u16,
        input: u16,
        access: Access,
    },
    /// Coordinate along `dim` of the space a map reaches.
    Coord {
        dst: u16,
        access: CoordAccess,
    },
    Valid {
        dst: u16,
        map: u32,
    },
    Unary {
        op: UnaryOp,
        dtype: DType,
        dst: u16,
        a: Arg,
    },
    Binary {
        op: BinaryOp,
        dtype: DType,
        dst: u16,
        a: Arg,
        b: Arg,
    },
    /// `((terms[0] + terms[1]) + terms[2]) + ...` of floats, each lane in that order (a
    /// chain of additions whose partial sums nothing else reads: a moving window's
    /// terms, a stencil's neighbours), in one pass over the lanes.
    AddChain {
        dtype: DType,
        dst: u16,
        terms: SmallVec<[Arg; 8]>,
    },
    Select {
        dtype: DType,
        dst: u16,
        cond: Arg,
        a: Arg,
        b: Arg,
    },
    Fma {
        dtype: DType,
        dst: u16,
        a: Arg,
        b: Arg,
        c: Arg,
    },
    Cast {
        from: DType,
        to: DType,
        dst: u16,
        a: Arg,
    },
    Gather {
        dst: u16,
        input: u16,
        indices: Vec<Arg>,
    },
    /// Random values of type `dtype`; `seed`, `draw` and the distribution's `params` are
    /// launch values.
    Random {
        kind: RngKind,
        dist: Distribution,
        dtype: DType,
        dst: u16,
        seed: u16,
        draw: u16,
        params: [u16; MAX_RANDOM_PARAMS],
        index: RandomIndex,
    },
    /// Sobol' coordinates of type `dtype` (`Inst::Sobol`): the direction numbers are input
    /// `input`, the seed a launch value.
    Sobol {
        dtype: DType,
        dst: u16,
        input: u16,
        index: Arg,
        dim: Arg,
        seed: u16,
        scramble: Scramble,
    },
}

/// The element index of each lane of a random instruction: an address in a dense array
/// of the random array's shape.
#[derive(Clone, Debug)]
pub struct RandomIndex {
    pub access: Access,
    pub dense: Layout,
    pub rank: usize,
}

#[derive(Clone, Debug)]
pub enum CoordAccess {
    Affine(AffineForm),
    Walk { map: u32, dim: u8 },
}

/// A value computed once per launch, before any chunk.
#[derive(Clone, Debug)]
pub enum UInst {
    Param(u32),
    Bits(u64),
    /// The one element a constant-address load reads.
    Load {
        input: u16,
        offset: i64,
    },
    Unary {
        op: UnaryOp,
        dtype: DType,
        a: u16,
    },
    Binary {
        op: BinaryOp,
        dtype: DType,
        a: u16,
        b: u16,
    },
    Select {
        dtype: DType,
        cond: u16,
        a: u16,
        b: u16,
    },
    Fma {
        dtype: DType,
        a: u16,
        b: u16,
        c: u16,
    },
    Cast {
        from: DType,
        to: DType,
        a: u16,
    },
}

#[derive(Clone, Debug)]
pub struct OutSpec {
    pub value: Arg,
    /// For a float sum or mean over everything of a product used nowhere else: the
    /// product's second factor (`value` is the first). The product is folded as it is
    /// computed (`reduce::sum_products`), never stored in a register.
    pub factor: Option<Arg>,
    /// Type of the value folded or stored.
    pub value_dtype: DType,
    pub dtype: DType,
    pub kind: OutKind,
    /// A `Store` written through a layout into its output (`KernelOutput::into`): in
    /// the domain's coordinates, which then never collapse.
    pub place: Option<Layout>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OutKind {
    Store,
    Reduce(KernelReduce),
    Scan(ScanOp),
}

pub struct Program {
    pub kernel: Arc<Kernel>,
    /// For each instruction of `code`: the `Store` output it may write straight into
    /// (its value is that output), instead of a register and a copy.
    pub writes_output: Vec<Option<u16>>,
    /// The iteration domain, collapsed to one dimension when every access allows it.
    pub domain: Shape,
    pub axis: Option<usize>,
    pub uniforms: Vec<UInst>,
    pub code: Vec<VInst>,
    pub n_regs: usize,
    /// Lanes per chunk (registers hold this many values): `CHUNK`, or more for a program
    /// over a linear domain that only stores, by `STORE_REGISTER_BYTES`.
    pub lanes: usize,
    pub outputs: Vec<OutSpec>,
    /// The kernel's maps prepared for walking, by map index.
    pub walks: Vec<Walk>,
    /// The domain's length when it is one non-empty row of at most one chunk and every
    /// output is stored or reduced over everything (no scan, no axis): a launch is then
    /// that one segment (a loop's step, a solver's dot product).
    pub one_row: Option<usize>,
}

impl Program {
    /// How to walk the kernel's map `map` (an `Access::Walk` or `CoordAccess::Walk`).
    pub fn walk(&self, map: u32) -> &Walk {
        &self.walks[map as usize]
    }
}

/// Whether a map reaches its target at the domain point's column-major linear index:
/// only reshapes, the first from the domain's shape (a view of a rank-0 value starts
/// from no coordinates, whatever the domain).
fn linear_preserving(map: &Map, domain: &Shape) -> bool {
    map.steps.first().is_none_or(|s| s.out == *domain)
        && map.steps.iter().all(|s: &MapStep| matches!(s.step, ViewStep::Reshape))
}

/// Whether a multi-dimensional domain can run as one long dimension: every access
/// depends only on the linear index of the domain point.
fn collapsible(k: &Kernel, affine: &[Option<AffineMap>]) -> bool {
    if k.domain.rank() <= 1 || k.axis.is_some() && (k.has_reduction() || k.has_scan()) {
        return false;
    }
    let dense = k.domain.dense_strides();
    let rank = k.domain.rank();
    // Whether an array of `shape` in `layout`, reached through `map`, is read at the
    // domain's linear index (or at one address).
    let linear = |map: u32, layout: &Layout, shape: &Shape| match &affine[map as usize] {
        Some(a) => {
            let f = a.address(layout, shape.rank());
            f.is_constant() || (0..rank).all(|d| k.domain.dim(d) == 1 || f.coef[d] == dense[d])
        }
        None => linear_preserving(&k.maps[map as usize], &k.domain) && layout.is_dense(shape),
    };
    k.insts.iter().all(|inst| match inst {
        Inst::Load { input, map } => {
            let inp = &k.inputs[*input as usize];
            linear(*map, &inp.layout, &inp.shape)
        }
        Inst::Random { map: Some(map), .. } => {
            let space = k.space(*map);
            linear(*map, &Layout::dense(&space), &space)
        }
        Inst::Coord { .. } => false,
        Inst::Valid { map } => affine[*map as usize].is_some(),
        _ => true,
    })
}

/// The products a kernel folds straight into a sum: for each float `Mul` of two values
/// that vary over the domain, read by nothing but sums or means over everything, its
/// operands (keyed by the product's value).
fn folded_products(k: &Kernel, live: &[bool], uniform: &[bool]) -> HashMap<u32, (u32, u32)> {
    let mut folded = HashMap::new();
    if k.axis.is_some() {
        return folded;
    }
    let summed = |o: &KernelOutput| {
        matches!(o.kind, OutputKind::Reduce(KernelReduce::Sum) | OutputKind::Reduce(KernelReduce::Mean))
    };
    for o in k.outputs.iter().filter(|o| summed(o) && k.types[o.value as usize].is_float()) {
        let v = o.value;
        let Inst::Binary { op: BinaryOp::Mul, a, b } = k.insts[v as usize] else { continue };
        let read_elsewhere = k.outputs.iter().any(|p| p.value == v && !summed(p))
            || k.insts.iter().enumerate().any(|(i, inst)| live[i] && inst.operands().contains(&v));
        if !uniform[a as usize] && !uniform[b as usize] && !read_elsewhere {
            folded.insert(v, (a, b));
        }
    }
    folded
}

/// Chains of float additions computed in one pass (`VInst::AddChain`): for each addition
/// whose left operand is an addition of the same type that nothing else reads (so its
/// partial sum need not be kept), the terms of the whole chain, keyed by the last
/// addition; the additions inside chains are the returned set.
fn add_chains(k: &Kernel, live: &[bool], uniform: &[bool]) -> (HashMap<u32, SmallVec<[u32; 8]>>, Vec<bool>) {
    let n = k.insts.len();
    let mut readers = vec![0usize; n];
    for (inst, _) in k.insts.iter().zip(live).filter(|(_, live)| **live) {
        for &a in inst.operands().iter() {
            readers[a as usize] += 1;
        }
    }
    for o in &k.outputs {
        readers[o.value as usize] += 1;
    }
    let addition = |v: u32| match k.insts[v as usize] {
        Inst::Binary { op: BinaryOp::Add, a, b }
            if live[v as usize] && !uniform[v as usize] && k.types[v as usize].is_float() =>
        {
            Some((a, b))
        }
        _ => None,
    };
    let mut chains: HashMap<u32, SmallVec<[u32; 8]>> = HashMap::new();
    let mut inside = vec![false; n];
    for i in 0..n as u32 {
        let Some((a, b)) = addition(i) else { continue };
        if let Some((x, y)) = addition(a)
            && readers[a as usize] == 1
            && k.types[a as usize] == k.types[i as usize]
        {
            let mut terms = chains.remove(&a).unwrap_or_else(|| smallvec::smallvec![x, y]);
            terms.push(b);
            inside[a as usize] = true;
            chains.insert(i, terms);
        }
    }
    (chains, inside)
}

/// `kernel` over its domain without the dimensions of size 1 (a reduction's axis kept),
/// every map reaching the original domain through a reshape first (affine: it only drops
/// unit dimensions). Rows run along dimension 0, so a domain of `[1, n]` whose accesses
/// keep it from collapsing (a row vector shifted, a moving window's results) would
/// otherwise run as `n` rows of one lane.
fn squeezed(kernel: Arc<Kernel>) -> Arc<Kernel> {
    let k = &*kernel;
    let rank = k.domain.rank();
    let keep = |d: usize| k.domain.dim(d) != 1 || k.axis == Some(d as u8);
    // Placed outputs are written in the domain's own coordinates.
    if rank <= 1 || (0..rank).all(keep) || k.outputs.iter().any(|o| o.into.is_some()) {
        return kernel;
    }
    let dims: Vec<usize> = (0..rank).filter(|&d| keep(d)).map(|d| k.domain.dim(d)).collect();
    let domain = Shape::new(if dims.is_empty() { &[1] } else { &dims });
    let axis = k.axis.map(|a| (0..a as usize).filter(|&d| keep(d)).count() as u8);
    let unsqueeze = MapStep { step: ViewStep::Reshape, out: domain, src: k.domain };
    // Every map, also those whose first step starts from another shape: they read the
    // domain's coordinates by position (a broadcast from a larger space, a rank-0 value).
    let maps = k
        .maps
        .iter()
        .map(|m| Map { steps: std::iter::once(unsqueeze).chain(m.steps.iter().cloned()).collect() })
        .collect();
    Arc::new(Kernel { domain, axis, maps, ..k.clone() })
}

/// Lowers a kernel to a CPU program: affine access paths are composed, launch-invariant
/// values are hoisted out of the chunk loop, and registers are allocated by liveness
/// (a destination never shares a register with an operand, so loops vectorise).
pub fn lower(kernel: Arc<Kernel>) -> Result<Program> {
    let kernel = squeezed(kernel);
    let k = &*kernel;
    let affine: Vec<Option<AffineMap>> = k.maps.iter().map(AffineMap::compose).collect();
    let collapse = collapsible(k, &affine) && k.outputs.iter().all(|o| o.into.is_none());
    let domain = if collapse { Shape::new(&[k.domain.numel()]) } else { k.domain };

    // The storage offset of an array in `layout` reached through `map`, when affine in
    // the domain coordinates. In a collapsed domain the linear index is the only
    // coordinate.
    let offset = |layout: &Layout, rank: usize, map: u32| -> Option<AffineForm> {
        let full = match &affine[map as usize] {
            Some(a) => a.address(layout, rank),
            None if collapse => {
                let mut f = AffineForm { offset: layout.offset, coef: [0; crate::ir::MAX_RANK] };
                f.coef[0] = 1;
                return Some(f);
            }
            None => return None,
        };
        if collapse {
            let mut f = AffineForm { offset: full.offset, coef: [0; crate::ir::MAX_RANK] };
            f.coef[0] = if full.is_constant() { 0 } else { 1 };
            Some(f)
        } else {
            Some(full)
        }
    };
    let address = |input: u32, map: u32| {
        let inp = &k.inputs[input as usize];
        offset(&inp.layout, inp.shape.rank(), map)
    };
    let access = |form: Option<AffineForm>, map: u32| match form {
        Some(f) => Access::Affine(f),
        None => Access::Walk(map),
    };

    let n = k.insts.len();
    let mut uniform = vec![false; n];
    for (i, inst) in k.insts.iter().enumerate() {
        // A launch value is 8 bytes, so complex values always live in registers.
        uniform[i] = !k.types[i].is_complex()
            && match inst {
                Inst::Param { .. } | Inst::Const(_) => true,
                Inst::Load { input, map } => address(*input, *map).is_some_and(|f| f.is_constant()),
                Inst::Valid { map } => affine[*map as usize].is_some(),
                Inst::Coord { .. } | Inst::Gather { .. } | Inst::Random { .. } | Inst::Sobol { .. } => false,
                _ => inst.operands().iter().all(|&a| uniform[a as usize]),
            };
    }

    // Values the outputs need, then the last instruction that reads each of them.
    let live = k.live();
    let mut last_use = vec![0usize; n];
    for (i, inst) in k.insts.iter().enumerate().filter(|(i, _)| live[*i]) {
        for &a in inst.operands().iter() {
            last_use[a as usize] = i;
        }
    }
    for o in &k.outputs {
        last_use[o.value as usize] = usize::MAX;
    }

    // Products folded straight into a sum over everything: their factors stay live to
    // the end of the chunk, and the product itself is never computed into a register.
    let folded = folded_products(k, &live, &uniform);
    for &(a, b) in folded.values() {
        last_use[a as usize] = usize::MAX;
        last_use[b as usize] = usize::MAX;
    }
    // The terms of a chain of additions are read where the chain ends.
    let (chains, inside_chain) = add_chains(k, &live, &uniform);
    for (&end, terms) in &chains {
        for &t in terms {
            last_use[t as usize] = last_use[t as usize].max(end as usize);
        }
    }

    let mut slots: Vec<Option<Arg>> = vec![None; n];
    let mut uniforms = Vec::new();
    let mut code = Vec::new();
    // The SSA value each instruction of `code` computes.
    let mut defines: Vec<u32> = Vec::new();
    let mut free: Vec<u16> = Vec::new();
    let mut n_regs = 0usize;
    let arg = |slots: &Vec<Option<Arg>>, v: u32| slots[v as usize].expect("operand defined");
    let uni = |slots: &Vec<Option<Arg>>, v: u32| match slots[v as usize] {
        Some(Arg::Uniform(u)) => u,
        _ => unreachable!("uniform operand"),
    };

    for (i, inst) in k.insts.iter().enumerate() {
        let ty = k.types[i];
        if !live[i] || folded.contains_key(&(i as u32)) || inside_chain[i] {
            continue;
        }
        if uniform[i] {
            let u = match inst {
                Inst::Param { index } => UInst::Param(*index),
                Inst::Const(s) => UInst::Bits(s.to_bits()),
                Inst::Valid { .. } => UInst::Bits(1),
                Inst::Load { input, map } => UInst::Load {
                    input: *input as u16,
                    offset: address(*input, *map).expect("constant address").offset,
                },
                Inst::Unary { op, a } => UInst::Unary { op: *op, dtype: k.types[*a as usize], a: uni(&slots, *a) },
                Inst::Binary { op, a, b } => {
                    UInst::Binary { op: *op, dtype: k.types[*a as usize], a: uni(&slots, *a), b: uni(&slots, *b) }
                }
                Inst::Select { cond, a, b } => {
                    UInst::Select { dtype: ty, cond: uni(&slots, *cond), a: uni(&slots, *a), b: uni(&slots, *b) }
                }
                Inst::Fma { a, b, c } => {
                    UInst::Fma { dtype: ty, a: uni(&slots, *a), b: uni(&slots, *b), c: uni(&slots, *c) }
                }
                Inst::Cast { a } => UInst::Cast { from: k.types[*a as usize], to: ty, a: uni(&slots, *a) },
                Inst::Coord { .. } | Inst::Gather { .. } | Inst::Random { .. } | Inst::Sobol { .. } => unreachable!(),
            };
            slots[i] = Some(Arg::Uniform(uniforms.len() as u16));
            uniforms.push(u);
            continue;
        }
        // Lanes of 16 bytes (c128) take two neighbouring registers, new ones.
        let dst = match free.pop() {
            Some(r) if ty.size() <= 8 => r,
            reused => {
                free.extend(reused);
                n_regs += ty.size().div_ceil(8);
                (n_regs - ty.size().div_ceil(8)) as u16
            }
        };
        let vi = match inst {
            Inst::Load { input, map } => {
                VInst::Load { dst, input: *input as u16, access: access(address(*input, *map), *map) }
            }
            Inst::Coord { map, dim } => VInst::Coord {
                dst,
                access: match &affine[*map as usize] {
                    Some(a) => CoordAccess::Affine(a.coord(*dim as usize)),
                    None => CoordAccess::Walk { map: *map, dim: *dim },
                },
            },
            Inst::Valid { map } => VInst::Valid { dst, map: *map },
            Inst::Unary { op, a } => VInst::Unary { op: *op, dtype: k.types[*a as usize], dst, a: arg(&slots, *a) },
            Inst::Binary { .. } if chains.contains_key(&(i as u32)) => {
                VInst::AddChain { dtype: ty, dst, terms: chains[&(i as u32)].iter().map(|&t| arg(&slots, t)).collect() }
            }
            Inst::Binary { op, a, b } => {
                VInst::Binary { op: *op, dtype: k.types[*a as usize], dst, a: arg(&slots, *a), b: arg(&slots, *b) }
            }
            Inst::Select { cond, a, b } => {
                VInst::Select { dtype: ty, dst, cond: arg(&slots, *cond), a: arg(&slots, *a), b: arg(&slots, *b) }
            }
            Inst::Fma { a, b, c } => {
                VInst::Fma { dtype: ty, dst, a: arg(&slots, *a), b: arg(&slots, *b), c: arg(&slots, *c) }
            }
            Inst::Cast { a } => VInst::Cast { from: k.types[*a as usize], to: ty, dst, a: arg(&slots, *a) },
            Inst::Gather { input, indices, rank } => {
                let indices = indices[..*rank as usize].iter().map(|&v| arg(&slots, v)).collect();
                VInst::Gather { dst, input: *input as u16, indices }
            }
            Inst::Random { kind, dist, seed, draw, params, map } => {
                let index = match *map {
                    Some(m) => {
                        let space = k.space(m);
                        let dense = Layout::dense(&space);
                        RandomIndex { access: access(offset(&dense, space.rank(), m), m), dense, rank: space.rank() }
                    }
                    // Element 0 at every lane.
                    None => RandomIndex {
                        access: Access::Affine(AffineForm { offset: 0, coef: [0; crate::ir::MAX_RANK] }),
                        dense: Layout::dense(&Shape::SCALAR),
                        rank: 0,
                    },
                };
                let (seed, draw) = (uni(&slots, *seed), uni(&slots, *draw));
                let mut param_slots = [0; MAX_RANDOM_PARAMS];
                for (slot, &p) in param_slots.iter_mut().zip(&params[..dist.params()]) {
                    *slot = uni(&slots, p);
                }
                VInst::Random { kind: *kind, dist: *dist, dtype: ty, dst, seed, draw, params: param_slots, index }
            }
            Inst::Sobol { input, index, dim, seed, scramble } => VInst::Sobol {
                dtype: ty,
                dst,
                input: *input as u16,
                index: arg(&slots, *index),
                dim: arg(&slots, *dim),
                seed: uni(&slots, *seed),
                scramble: *scramble,
            },
            Inst::Param { .. } | Inst::Const(_) => unreachable!(),
        };
        code.push(vi);
        defines.push(i as u32);
        slots[i] = Some(Arg::Reg(dst));
        // Registers of operands whose last reader this was go back to the free list
        // only now, after the destination was chosen.
        let ops: SmallVec<[u32; 8]> = match chains.get(&(i as u32)) {
            Some(terms) => terms.clone(),
            None => inst.operands().iter().copied().collect(),
        };
        for (j, &a) in ops.iter().enumerate() {
            // Each register once, even if an operand repeats (x * x).
            if last_use[a as usize] == i
                && !ops[..j].contains(&a)
                && let Some(Arg::Reg(r)) = slots[a as usize]
            {
                free.extend((r..).take(k.types[a as usize].size().div_ceil(8)));
            }
        }
    }
    if n_regs > u16::MAX as usize || uniforms.len() > u16::MAX as usize {
        bail!(NotSupported, "kernel too large for the CPU executor ({n_regs} registers)");
    }

    let outputs: Vec<OutSpec> = k
        .outputs
        .iter()
        .map(|o| match folded.get(&o.value) {
            Some(&(a, b)) => (o, arg(&slots, a), Some(arg(&slots, b))),
            None => (o, arg(&slots, o.value), None),
        })
        .map(|(o, value, factor)| OutSpec {
            value,
            factor,
            value_dtype: k.types[o.value as usize],
            dtype: o.dtype,
            kind: match o.kind {
                OutputKind::Store => OutKind::Store,
                OutputKind::Reduce(r) => OutKind::Reduce(r),
                OutputKind::Scan(s) => OutKind::Scan(s),
            },
            place: o.into.map(|t| t.place),
        })
        .collect();
    // Only kernels without a reduction or scan axis collapse.
    let axis = if collapse { None } else { k.axis.map(|a| a as usize) };
    // Matched by value, not register: a register is reused by values of other types.
    let writes_output = code
        .iter()
        .zip(&defines)
        .map(|(vi, &v)| {
            if !matches!(
                vi,
                VInst::Unary { .. }
                    | VInst::Binary { .. }
                    | VInst::AddChain { .. }
                    | VInst::Select { .. }
                    | VInst::Fma { .. }
                    | VInst::Cast { .. }
                    | VInst::Random { .. }
            ) {
                return None;
            }
            let direct = |o: &KernelOutput| o.kind == OutputKind::Store && o.into.is_none() && o.value == v;
            k.outputs.iter().position(direct).map(|o| o as u16)
        })
        .collect();
    let (d, n) = (&domain, domain.numel());
    let no_scan = outputs.iter().all(|o| matches!(o.kind, OutKind::Store | OutKind::Reduce(_)));
    let one_row = (axis.is_none() && n == d.dim(0) && (1..=CHUNK).contains(&n) && no_scan).then_some(n);
    let stores_only = axis.is_none() && outputs.iter().all(|o| o.kind == OutKind::Store);
    let lanes = if stores_only {
        let fit = STORE_REGISTER_BYTES / (8 * n_regs.max(1));
        (1 << fit.max(1).ilog2()).clamp(CHUNK, MAX_LANES)
    } else {
        CHUNK
    };
    let walks = kernel.maps.iter().map(Walk::new).collect();
    Ok(Program { domain, axis, uniforms, code, n_regs, lanes, outputs, walks, kernel, writes_output, one_row })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::kernel::KernelInput;

    /// A kernel over `n` f32 elements of two inputs computing `insts` (after the two
    /// loads, values 0 and 1), with `outputs`.
    fn kernel(n: usize, insts: &[Inst], outputs: &[(u32, OutputKind)]) -> Arc<Kernel> {
        let shape = Shape::new(&[n]);
        let input = KernelInput { dtype: DType::F32, shape, layout: Layout::dense(&shape) };
        let mut all = vec![Inst::Load { input: 0, map: 0 }, Inst::Load { input: 1, map: 0 }];
        all.extend_from_slice(insts);
        Arc::new(Kernel {
            domain: shape,
            axis: None,
            inputs: vec![input.clone(), input],
            params: Vec::new(),
            maps: vec![Map { steps: Vec::new() }],
            types: vec![DType::F32; all.len()],
            insts: all,
            outputs: outputs
                .iter()
                .map(|&(value, kind)| KernelOutput { value, kind, dtype: DType::F32, into: None })
                .collect(),
        })
    }

    fn multiplies(p: &Program) -> bool {
        p.code.iter().any(|vi| matches!(vi, VInst::Binary { op: BinaryOp::Mul, .. }))
    }

    /// `sum(x * y)` folds the products as it computes them; a product that is also
    /// stored, or reduced otherwise, is computed into a register first.
    #[test]
    fn sums_of_products_fold_the_products() {
        let product = [Inst::Binary { op: BinaryOp::Mul, a: 0, b: 1 }];
        let sum = OutputKind::Reduce(KernelReduce::Sum);
        let p = lower(kernel(5000, &product, &[(2, sum), (2, OutputKind::Reduce(KernelReduce::Mean))])).unwrap();
        assert!(!multiplies(&p));
        assert!(p.outputs.iter().all(|o| o.factor.is_some()));
        for others in [OutputKind::Store, OutputKind::Reduce(KernelReduce::Max)] {
            let p = lower(kernel(5000, &product, &[(2, sum), (2, others)])).unwrap();
            assert!(multiplies(&p), "{others:?}");
            assert!(p.outputs.iter().all(|o| o.factor.is_none()), "{others:?}");
        }
    }

    /// A chain of additions is one instruction over its terms, in order; a partial sum
    /// that something else reads ends the chain before it.
    #[test]
    fn chains_of_additions_are_one_pass() {
        let add = |a, b| Inst::Binary { op: BinaryOp::Add, a, b };
        let chain = [add(0, 1), add(2, 0), add(3, 1)];
        let terms = |p: &Program| -> Vec<Vec<Arg>> {
            let chains = p.code.iter().filter_map(|vi| match vi {
                VInst::AddChain { terms, .. } => Some(terms.to_vec()),
                _ => None,
            });
            chains.collect()
        };
        let p = lower(kernel(5000, &chain, &[(4, OutputKind::Store)])).unwrap();
        assert!(!p.code.iter().any(|vi| matches!(vi, VInst::Binary { .. })));
        let [loaded_x, loaded_y] = [0, 1].map(|i| match p.code[i] {
            VInst::Load { dst, .. } => Arg::Reg(dst),
            _ => unreachable!("the loads come first"),
        });
        assert_eq!(terms(&p), [vec![loaded_x, loaded_y, loaded_x, loaded_y]]);
        // The first partial sum is also stored: the chain starts from it.
        let p = lower(kernel(5000, &chain, &[(4, OutputKind::Store), (2, OutputKind::Store)])).unwrap();
        let found = terms(&p);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0][1..], [loaded_x, loaded_y]);
        assert_eq!(p.code.iter().filter(|vi| matches!(vi, VInst::Binary { op: BinaryOp::Add, .. })).count(), 1);
    }

    /// A program that only stores, with few registers, runs longer chunks; one that
    /// reduces keeps chunks of `CHUNK`, the blocks its sums fold.
    #[test]
    fn chunk_length_follows_registers_and_reductions() {
        let axpb = [Inst::Binary { op: BinaryOp::Mul, a: 0, b: 1 }, Inst::Binary { op: BinaryOp::Add, a: 2, b: 1 }];
        let p = lower(kernel(1 << 20, &axpb, &[(3, OutputKind::Store)])).unwrap();
        assert!(p.lanes > CHUNK && p.n_regs * p.lanes * 8 <= STORE_REGISTER_BYTES, "{} lanes", p.lanes);
        let p = lower(kernel(1 << 20, &axpb, &[(3, OutputKind::Store), (3, OutputKind::Reduce(KernelReduce::Sum))]))
            .unwrap();
        assert_eq!(p.lanes, CHUNK);
    }
}
