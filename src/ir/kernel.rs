//! Fused kernels: what one compiled unit computes over its iteration domain. Built by
//! `gen/`, lowered by each backend to its own program form.

use super::dtype::{DType, Scalar};
use super::node::Layout;
use super::op::{BinaryOp, ScanOp, UnaryOp};
use super::random::sobol::Scramble;
use super::random::{Distribution, MAX_RANDOM_PARAMS, RngKind};
use super::shape::{MAX_RANK, Shape};
use super::view::Map;

/// An array the kernel reads, and where its elements sit in its storage.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct KernelInput {
    pub dtype: DType,
    pub shape: Shape,
    pub layout: Layout,
}

/// One SSA instruction. Operands are indices of earlier instructions.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Inst {
    /// A scalar argument supplied at launch (application scalars, so one compiled kernel
    /// serves every value).
    Param {
        index: u32,
    },
    /// A constant compiled into the kernel.
    Const(Scalar),
    /// Element of input `input` reached from the domain point through `maps[map]`.
    Load {
        input: u32,
        map: u32,
    },
    /// Coordinate (i64) along `dim` of the space reached through `maps[map]`.
    Coord {
        map: u32,
        dim: u8,
    },
    /// Whether `maps[map]` passes every fill boundary inside its source (bool).
    Valid {
        map: u32,
    },
    Unary {
        op: UnaryOp,
        a: u32,
    },
    Binary {
        op: BinaryOp,
        a: u32,
        b: u32,
    },
    Select {
        cond: u32,
        a: u32,
        b: u32,
    },
    /// `a * b + c` rounded once (floating-point types).
    Fma {
        a: u32,
        b: u32,
        c: u32,
    },
    Cast {
        a: u32,
    },
    /// An element of a random array of the instruction's type (see `ir::random`), from
    /// the draw at i64 values `seed` and `draw`, with the distribution's parameters
    /// `params[..dist.params()]`. The element's index is its column-major linear index in
    /// the space `maps[map]` reaches (`Kernel::space`), or 0 for a one-element array (`map`
    /// None).
    Random {
        kind: RngKind,
        dist: Distribution,
        seed: u32,
        draw: u32,
        params: [u32; MAX_RANDOM_PARAMS],
        map: Option<u32>,
    },
    /// Coordinate `dim` (an i64 value) of Sobol' point `index` (an i64 value below 2^32),
    /// of the instruction's type (f32, f64): the direction numbers of dimension `dim` are
    /// column `dim` of input `input` (i32, shape [32, dims]); `seed` (i64) keys the
    /// scramble (`ir::random::sobol`).
    Sobol {
        input: u32,
        index: u32,
        dim: u32,
        seed: u32,
        scramble: Scramble,
    },
    /// Element of input `input` at the coordinates given by the i64 values
    /// `indices[..rank]` (one per input dimension), each clamped into range.
    Gather {
        input: u32,
        indices: [u32; MAX_RANK],
        rank: u8,
    },
}

impl Inst {
    /// The values this instruction reads.
    pub fn operands(&self) -> Operands {
        let mut o = Operands { vals: [0; MAX_RANK], len: 0 };
        let mut put = |v: &[u32]| {
            o.vals[..v.len()].copy_from_slice(v);
            o.len = v.len() as u8;
        };
        match *self {
            Inst::Param { .. } | Inst::Const(_) | Inst::Load { .. } | Inst::Coord { .. } | Inst::Valid { .. } => {}
            Inst::Unary { a, .. } | Inst::Cast { a } => put(&[a]),
            Inst::Binary { a, b, .. } => put(&[a, b]),
            Inst::Select { cond, a, b } => put(&[cond, a, b]),
            Inst::Fma { a, b, c } => put(&[a, b, c]),
            Inst::Random { seed, draw, params, dist, .. } => {
                const { assert!(2 + MAX_RANDOM_PARAMS <= MAX_RANK) };
                let mut v = [seed, draw, 0, 0, 0, 0, 0];
                v[2..].copy_from_slice(&params);
                put(&v[..2 + dist.params()])
            }
            Inst::Sobol { index, dim, seed, .. } => put(&[index, dim, seed]),
            Inst::Gather { indices, rank, .. } => put(&indices[..rank as usize]),
        }
        o
    }

    /// The instruction with each operand `v` replaced by `f(v)`.
    fn map_operands(self, f: impl Fn(u32) -> u32) -> Inst {
        match self {
            Inst::Param { .. } | Inst::Const(_) | Inst::Load { .. } | Inst::Coord { .. } | Inst::Valid { .. } => self,
            Inst::Unary { op, a } => Inst::Unary { op, a: f(a) },
            Inst::Cast { a } => Inst::Cast { a: f(a) },
            Inst::Binary { op, a, b } => Inst::Binary { op, a: f(a), b: f(b) },
            Inst::Select { cond, a, b } => Inst::Select { cond: f(cond), a: f(a), b: f(b) },
            Inst::Fma { a, b, c } => Inst::Fma { a: f(a), b: f(b), c: f(c) },
            Inst::Random { kind, dist, seed, draw, mut params, map } => {
                for p in &mut params[..dist.params()] {
                    *p = f(*p);
                }
                Inst::Random { kind, dist, seed: f(seed), draw: f(draw), params, map }
            }
            Inst::Sobol { input, index, dim, seed, scramble } => {
                Inst::Sobol { input, index: f(index), dim: f(dim), seed: f(seed), scramble }
            }
            Inst::Gather { input, mut indices, rank } => {
                for i in &mut indices[..rank as usize] {
                    *i = f(*i);
                }
                Inst::Gather { input, indices, rank }
            }
        }
    }

    /// The input this instruction reads elements of, if any.
    fn input(&self) -> Option<u32> {
        match *self {
            Inst::Load { input, .. } | Inst::Gather { input, .. } | Inst::Sobol { input, .. } => Some(input),
            _ => None,
        }
    }
}

/// Up to `MAX_RANK` operand indices, without allocating.
#[derive(Copy, Clone, Debug)]
pub struct Operands {
    vals: [u32; MAX_RANK],
    len: u8,
}

impl std::ops::Deref for Operands {
    type Target = [u32];
    fn deref(&self) -> &[u32] {
        &self.vals[..self.len as usize]
    }
}

/// Reductions a kernel performs on an output value. `Mean` divides the sum by the count.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum KernelReduce {
    Sum,
    Prod,
    Min,
    Max,
    Mean,
    ArgMin,
    ArgMax,
}

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum OutputKind {
    /// The value at every domain point (the output has the domain's shape, dense).
    Store,
    /// Reduced along the kernel's axis (kept with size 1), or over everything (rank 0).
    Reduce(KernelReduce),
    /// Inclusive scan along the kernel's axis.
    Scan(ScanOp),
}

#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct KernelOutput {
    pub value: u32,
    pub kind: OutputKind,
    pub dtype: DType,
    /// A `Store` output that is a new version of an input (an assignment): the output
    /// has that input's shape, holds its elements, and the domain's values are written
    /// at `place` (a layout within the dense output).
    pub into: Option<IntoInput>,
}

/// See `KernelOutput::into`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct IntoInput {
    pub input: u32,
    pub place: Layout,
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Kernel {
    pub domain: Shape,
    /// Axis of every `Reduce`/`Scan` output; `None` reduces over the whole domain.
    pub axis: Option<u8>,
    pub inputs: Vec<KernelInput>,
    pub params: Vec<DType>,
    pub maps: Vec<Map>,
    pub insts: Vec<Inst>,
    /// Type of each instruction's value.
    pub types: Vec<DType>,
    pub outputs: Vec<KernelOutput>,
}

impl Kernel {
    /// The shape of the space map `m` reaches: the source of its last step, or the domain.
    pub fn space(&self, m: u32) -> Shape {
        self.maps[m as usize].steps.last().map_or(self.domain, |s| s.src)
    }

    /// Per instruction, whether an output needs its value.
    pub fn live(&self) -> Vec<bool> {
        self.live_for(|_| true)
    }

    /// Per instruction, whether one of the outputs `keep` selects (by index) needs its value.
    fn live_for(&self, keep: impl Fn(usize) -> bool) -> Vec<bool> {
        let mut live = vec![false; self.insts.len()];
        for (k, o) in self.outputs.iter().enumerate() {
            if keep(k) {
                live[o.value as usize] = true;
            }
        }
        for i in (0..self.insts.len()).rev() {
            if live[i] {
                for &a in self.insts[i].operands().iter() {
                    live[a as usize] = true;
                }
            }
        }
        live
    }

    /// Per input, whether output `o` reads it.
    pub fn inputs_read_by(&self, o: usize) -> Vec<bool> {
        let mut read = self.inputs_read(&self.live_for(|k| k == o));
        if let Some(into) = self.outputs[o].into {
            read[into.input as usize] = true;
        }
        read
    }

    /// Per input, whether a `live` instruction reads it.
    fn inputs_read(&self, live: &[bool]) -> Vec<bool> {
        let mut read = vec![false; self.inputs.len()];
        for (inst, _) in self.insts.iter().zip(live).filter(|(_, live)| **live) {
            if let Some(i) = inst.input() {
                read[i as usize] = true;
            }
        }
        read
    }

    /// The kernel that computes only the outputs `keep` selects, with only the
    /// instructions and inputs they need, and the index in `inputs` of each input it
    /// keeps. (A step one of whose outputs cannot be computed computes the others so.)
    pub fn narrowed(&self, keep: &[bool]) -> (Kernel, Vec<usize>) {
        let live = self.live_for(|k| keep[k]);
        let mut read = self.inputs_read(&live);
        for o in self.outputs.iter().zip(keep).filter(|(_, keep)| **keep).filter_map(|(o, _)| o.into) {
            read[o.input as usize] = true;
        }
        let kept_inputs: Vec<usize> = (0..self.inputs.len()).filter(|&i| read[i]).collect();
        let mut input_index = vec![u32::MAX; self.inputs.len()];
        for (new, &old) in kept_inputs.iter().enumerate() {
            input_index[old] = new as u32;
        }
        let mut inst_index = vec![u32::MAX; self.insts.len()];
        let (mut insts, mut types) = (Vec::new(), Vec::new());
        for (i, inst) in self.insts.iter().enumerate().filter(|&(i, _)| live[i]) {
            let mut inst = inst.map_operands(|v| inst_index[v as usize]);
            if let Inst::Load { input, .. } | Inst::Gather { input, .. } | Inst::Sobol { input, .. } = &mut inst {
                *input = input_index[*input as usize];
            }
            inst_index[i] = insts.len() as u32;
            insts.push(inst);
            types.push(self.types[i]);
        }
        let outputs: Vec<KernelOutput> = (self.outputs.iter().zip(keep))
            .filter(|(_, keep)| **keep)
            .map(|(o, _)| KernelOutput {
                value: inst_index[o.value as usize],
                into: o.into.map(|t| IntoInput { input: input_index[t.input as usize], ..t }),
                ..*o
            })
            .collect();
        // The axis belongs to reductions and scans: without them the kernel is element-wise.
        let along_axis = outputs.iter().any(|o| o.kind != OutputKind::Store);
        let kernel = Kernel {
            domain: self.domain,
            axis: if along_axis { self.axis } else { None },
            inputs: kept_inputs.iter().map(|&i| self.inputs[i].clone()).collect(),
            params: self.params.clone(),
            maps: self.maps.clone(),
            insts,
            types,
            outputs,
        };
        (kernel, kept_inputs)
    }

    /// Whether the kernel reads elements of the input output `o` is a new version of
    /// other than the one each point writes (`u(2:n-1) = u(1:n-2)`, not
    /// `u(2:n-1) = 2 * u(2:n-1)`): then it cannot be written in place, since a point
    /// could read what another wrote.
    pub fn reads_own_target(&self, o: usize) -> bool {
        let Some(into) = self.outputs[o].into else { return false };
        let input = &self.inputs[into.input as usize];
        // Where a load through `map` reads, as a layout over the domain.
        let reached =
            |map: &Map| map.steps.iter().rev().try_fold(input.layout, |l, s| s.step.view_layout(&l, &s.out, &s.src));
        let pointwise = |map: u32| {
            input.layout == Layout::dense(&input.shape) && reached(&self.maps[map as usize]) == Some(into.place)
        };
        self.insts.iter().any(|i| match *i {
            Inst::Load { input, map } => input == into.input && !pointwise(map),
            Inst::Gather { input, .. } => input == into.input,
            _ => false,
        })
    }

    pub fn has_reduction(&self) -> bool {
        self.outputs.iter().any(|o| matches!(o.kind, OutputKind::Reduce(_)))
    }

    pub fn has_scan(&self) -> bool {
        self.outputs.iter().any(|o| matches!(o.kind, OutputKind::Scan(_)))
    }
}
