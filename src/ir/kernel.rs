//! Fused kernels: what one compiled unit computes over its iteration domain. Built by
//! `gen/`, lowered by each backend to its own program form.

use super::dtype::{DType, Scalar};
use super::node::Layout;
use super::op::{BinaryOp, ScanOp, UnaryOp};
use super::random::{Distribution, RngKind};
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
    Cast {
        a: u32,
    },
    /// An element of a random array of the instruction's type (see `ir::random`), from
    /// the draw at i64 values `seed` and `draw`. The element's index is its column-major
    /// linear index in the space `maps[map]` reaches (`Kernel::space`), or 0 for a
    /// one-element array (`map` None).
    Random {
        kind: RngKind,
        dist: Distribution,
        seed: u32,
        draw: u32,
        map: Option<u32>,
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
            Inst::Random { seed, draw, .. } => put(&[seed, draw]),
            Inst::Gather { indices, rank, .. } => put(&indices[..rank as usize]),
        }
        o
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
        let mut live = vec![false; self.insts.len()];
        for o in &self.outputs {
            live[o.value as usize] = true;
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

    pub fn has_reduction(&self) -> bool {
        self.outputs.iter().any(|o| matches!(o.kind, OutputKind::Reduce(_)))
    }

    pub fn has_scan(&self) -> bool {
        self.outputs.iter().any(|o| matches!(o.kind, OutputKind::Scan(_)))
    }
}
