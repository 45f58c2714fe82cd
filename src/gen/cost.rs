//! The cost estimate behind profile attribution: how much of a fused kernel's time each
//! call fused into it accounts for. Each live instruction costs a fixed amount per
//! element, in units of one add (below), and belongs to the op whose expansion created it
//! (a load to the first op that used it); values that do not vary over the domain are
//! computed once per launch and cost nothing; each output costs its store (or
//! accumulation). An op's weight is its instructions' cost over the kernel's total.
//!
//! | instruction | cost |
//! |---|---|
//! | parameter, constant | 0 |
//! | add, multiply, fused multiply-add, compare, min/max, logic, select, cast, abs, floor, ...; coordinate, fill test | 1 |
//! | load | 1 |
//! | divide, remainder, sqrt, rsqrt, reciprocal; gather | 4 |
//! | hypot | 6 |
//! | uniform random value (a quarter or half of a generator block) | 4 |
//! | normal random value (half a Box-Muller pair: log, sqrt, cos and sin per pair) | 40 |
//! | exp, log, sin, cos, tan, their variants, hyperbolic and inverse functions, erf, cbrt | 20 |
//! | atan2 | 25 |
//! | pow, erfc, erfinv | 40 |
//! | lgamma, tgamma | 60 |
//! | store | 1 |
//! | reduce or scan accumulation | 2 |

use crate::ir::kernel::{Inst, Kernel, OutputKind};
use crate::ir::{BinaryOp, Distribution, UnaryOp};

/// Subgraph indices of the nodes fused into a step, each with its share of the step's
/// cost; the shares sum to 1.
pub type Shares = Vec<(u32, f32)>;

/// Owner of instructions no op has claimed (yet).
pub const UNOWNED: u32 = u32::MAX;

fn unary_cost(op: UnaryOp) -> f32 {
    use UnaryOp::*;
    match op {
        Neg | Abs | Sign | Floor | Ceil | Round | Trunc | IsNan | IsInf | Not | Conj | Real | Imag | IsFinite => 1.0,
        Sqrt | Rsqrt | Rcp => 4.0,
        Cbrt | Exp | Exp2 | Expm1 | Log | Log2 | Log10 | Log1p | Sin | Cos | Tan | Asin | Acos | Atan | Sinh | Cosh
        | Tanh | Asinh | Acosh | Atanh | Erf => 20.0,
        Arg => 25.0,
        Erfc | Erfinv => 40.0,
        Lgamma | Tgamma => 60.0,
    }
}

fn binary_cost(op: BinaryOp) -> f32 {
    use BinaryOp::*;
    match op {
        Div | Rem => 4.0,
        Hypot => 6.0,
        Atan2 => 25.0,
        Pow => 40.0,
        Shl | Shr | NextAfter => 3.0,
        CopySign => 2.0,
        Add | Sub | Mul | Min | Max | Eq | Ne | Lt | Le | Gt | Ge | And | Or | Xor | Complex => 1.0,
    }
}

/// Per-element cost of one instruction.
pub fn inst_cost(inst: &Inst) -> f32 {
    match *inst {
        Inst::Param { .. } | Inst::Const(_) => 0.0,
        Inst::Load { .. } | Inst::Coord { .. } | Inst::Valid { .. } | Inst::Select { .. } | Inst::Cast { .. } => 1.0,
        Inst::Fma { .. } => 1.0,
        Inst::Unary { op, .. } => unary_cost(op),
        Inst::Binary { op, .. } => binary_cost(op),
        Inst::Random { dist: Distribution::Uniform | Distribution::Bernoulli | Distribution::Integers, .. } => 4.0,
        Inst::Random { dist: Distribution::UniformRange, .. } => 6.0,
        Inst::Random { dist: Distribution::Exponential, .. } => 20.0,
        Inst::Random { dist: Distribution::Normal, .. } => 40.0,
        Inst::Random { dist: Distribution::Poisson { .. } | Distribution::Gamma { .. }, .. } => 80.0,
        Inst::Sobol { .. } => 40.0,
        Inst::Gather { .. } => 4.0,
    }
}

fn output_cost(kind: OutputKind) -> f32 {
    match kind {
        OutputKind::Store => 1.0,
        OutputKind::Reduce(_) | OutputKind::Scan(_) => 2.0,
    }
}

/// Per instruction, whether its value is the same at every domain point.
fn uniform(k: &Kernel) -> Vec<bool> {
    let mut u = vec![false; k.insts.len()];
    for (i, inst) in k.insts.iter().enumerate() {
        u[i] = match inst {
            Inst::Param { .. } | Inst::Const(_) => true,
            Inst::Load { .. }
            | Inst::Coord { .. }
            | Inst::Valid { .. }
            | Inst::Random { .. }
            | Inst::Gather { .. }
            | Inst::Sobol { .. } => false,
            _ => inst.operands().iter().all(|&a| u[a as usize]),
        };
    }
    u
}

/// The share of kernel `k`'s cost of each owner (a subgraph index), given the owner of
/// each instruction and of each output; shares sum to 1, sorted by owner. Unclaimed
/// instructions go to the first output's owner.
pub fn shares(k: &Kernel, inst_owner: &[u32], output_owner: &[u32]) -> Shares {
    let (live, uniform) = (k.live(), uniform(k));
    let fallback = output_owner.first().copied().unwrap_or(0);
    let owner = |o: u32| if o == UNOWNED { fallback } else { o } as usize;
    // Owners are subgraph indices: a dense table keeps this linear in the kernel's size.
    let len = inst_owner.iter().chain(output_owner).map(|&o| owner(o) + 1).max().unwrap_or(0);
    let mut cost = vec![0f32; len];
    for (i, inst) in k.insts.iter().enumerate() {
        if live[i] && !uniform[i] {
            cost[owner(inst_owner[i])] += inst_cost(inst);
        }
    }
    for (o, &node) in k.outputs.iter().zip(output_owner) {
        cost[owner(node)] += output_cost(o.kind);
    }
    let total: f32 = cost.iter().sum();
    cost.iter().enumerate().filter(|(_, c)| **c > 0.0).map(|(i, c)| (i as u32, c / total)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transcendentals_cost_more_than_adds() {
        assert!(
            inst_cost(&Inst::Unary { op: UnaryOp::Exp, a: 0 })
                > inst_cost(&Inst::Binary { op: BinaryOp::Add, a: 0, b: 1 })
        );
    }
}
