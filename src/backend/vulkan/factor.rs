//! Batched LU and Cholesky factorizations, LU, Cholesky and triangular solves of small
//! square matrices on the device (`kernels/factor.comp`): one matrix per workgroup, held
//! in shared memory. Operands are read through their layouts (any strides, a right-hand
//! side broadcast over the batch), so nothing is copied first; results are dense.
//!
//! A Cholesky factorization fails on a minor that is not positive, a solve on a zero on the
//! factor's diagonal (for an LU solve, or a NaN), as on the CPU executor. The kernel cannot
//! fail a step, so it writes each matrix's first failing pivot (plus one, or 0) to a
//! status buffer, copied back in the same submission; the batch ends after such a step
//! and turns a nonzero status into the CPU executor's error (`FactorCheck`), so a read of
//! the result, or of anything computed from it, reports `ErrorKind::Singular` naming the
//! failed matrices.
//!
//! Matrices over 32 x 32, non-square LU, complex types, f64 on devices without it, the
//! permutation, rcond, slogdet, QR and least squares, arrays beyond one storage-buffer range and (on Mesa's CPU drivers)
//! launches whose loops would pass the driver's limit run on the CPU executor, as does
//! everything on CPU-type devices unless forced (`SLUICE_VULKAN_DEVICE_FACTOR`): on lavapipe
//! the CPU executor is 25-100x faster than these kernels (BENCHMARKS.md).

use super::{Handwritten, Launch, Plan, VulkanExecutor};
use crate::backend::cpu::failure_error;
use crate::exec::Work;
use crate::ir::factor::batch_count;
use crate::ir::{DType, Error, FactorOp, MAX_RANK, Result, Shape, Trans, Value};

/// Invocations per workgroup, and the largest order factored on the device (`N` in the
/// kernel).
const LANES: usize = 32;
const SOURCE: &str = include_str!("../../../kernels/factor.comp");

/// How a device step's status words become the step's error.
#[derive(Clone)]
pub(super) struct FactorCheck {
    op: FactorOp,
    /// The first operand's shape (the batch, for the message).
    shape: Shape,
    /// Bytes of status: one word per matrix.
    pub bytes: usize,
}

impl FactorCheck {
    /// The error for the status words `status` (the first zero pivot plus one per
    /// matrix), if a matrix failed.
    pub fn error(&self, status: &[u8]) -> Option<Error> {
        let failures: Vec<(usize, usize)> = status
            .chunks_exact(4)
            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]) as usize)
            .enumerate()
            .filter(|&(_, s)| s > 0)
            .map(|(b, s)| (b, s - 1))
            .collect();
        (!failures.is_empty()).then(|| failure_error(self.op, &self.shape, &failures))
    }
}

/// What the kernel does for a step (see `kernels/factor.comp`).
struct Form {
    /// The defines choosing it.
    defines: String,
    /// Whether it reads right-hand sides (binding 2).
    solve: bool,
    /// Whether it writes status words (it can fail).
    checked: bool,
}

impl Form {
    /// The kernel's form for `op`, if it has one.
    fn of(op: FactorOp) -> Option<Form> {
        let solve = |pivots: &str, steps: &str, singular: &str| Form {
            defines: format!("#define PASS SOLVE\n{pivots}#define STEPS {steps}\n#define SINGULAR(d) {singular}\n"),
            solve: true,
            checked: true,
        };
        let zero = "(d == T(0))";
        Some(match op {
            FactorOp::Lu => Form { defines: "#define PASS LU\n".into(), solve: false, checked: false },
            FactorOp::Cholesky => Form { defines: "#define PASS CHOLESKY\n".into(), solve: false, checked: true },
            // faer's factors go NaN after a zero pivot: the CPU counts NaN as zero.
            FactorOp::LuSolve(Trans::None) => solve(
                "#define PIVOTS\n#define PERMUTE\n",
                "lower(x, n, false, true); upper(x, n, false, false);",
                "(d == T(0) || isnan(d))",
            ),
            // Real types: the conjugate transpose is the transpose.
            FactorOp::LuSolve(_) => solve(
                "#define PIVOTS\n#define UNPERMUTE\n",
                "lower(x, n, true, false); upper(x, n, true, true);",
                "(d == T(0) || isnan(d))",
            ),
            FactorOp::CholeskySolve => solve("", "lower(x, n, false, false); upper(x, n, true, false);", zero),
            FactorOp::Triangular { lower, unit, trans } => {
                let t = trans != Trans::None;
                // A transposed lower triangle is an upper one.
                let side = if lower != t { "lower" } else { "upper" };
                solve("", &format!("{side}(x, n, {t}, {unit});"), if unit { "false" } else { zero })
            }
            FactorOp::LuPermutation | FactorOp::Rcond | FactorOp::LogDet | FactorOp::Qr(_) | FactorOp::Lstsq => {
                return None;
            }
        })
    }
}

impl VulkanExecutor {
    /// How a factorization or solve runs: on the device where it can (see the module comment).
    pub(super) fn factor_plan(&self, work: &Work, inputs: &[Value], outputs: &[Value]) -> Result<Plan> {
        let cpu = || Ok(Plan::Cpu(work.clone()));
        let Work::Factor { op, dtype, shapes, .. } = work else { unreachable!("a factorization step") };
        let typed = match dtype {
            DType::F32 => true,
            DType::F64 => self.target.float64,
            _ => false,
        };
        let Some(form) = Form::of(*op) else { return cpu() };
        // An LU solve's factors are (n + 1) x n; the other operands' matrices n x n.
        let n = shapes[0].dim(1);
        let square = form.solve || shapes[0].dim(0) == n;
        let caps = &self.ctx.caps;
        let fits = inputs.iter().chain(outputs).all(|v| (v.storage.byte_len() as u64) <= caps.chunk_bytes);
        if !self.device_factor || !typed || !square || n > LANES || !fits {
            return cpu();
        }
        let count = batch_count(&shapes[0]);
        let k = if form.solve { columns(&shapes[1]) } else { 0 };
        let mut numbers = vec![n as i64, k as i64, count as i64];
        for (v, shape) in inputs.iter().zip(shapes) {
            numbers.extend([v.layout.offset, shape.rank() as i64]);
            numbers.extend((0..MAX_RANK).map(|d| shape.dims().get(d).map_or(1, |&s| s as i64)));
            numbers.extend((0..MAX_RANK).map(|d| if d < shape.rank() { v.layout.strides[d] } else { 0 }));
        }
        let Some(words) = super::words(&numbers) else { return cpu() };
        let groups = count.clamp(1, caps.max_groups_x as usize);
        // Loop iterations of one invocation per matrix: the loads, then the factorization's
        // columns (a reduction and a row update each) or the solves of its right-hand sides.
        let per_matrix = n * n / LANES
            + n
            + if form.solve { k.div_ceil(LANES) * (n * n + 4 * n) } else { n * (LANES.ilog2() as usize + n) + n };
        if self.target.max_loop_iterations.is_some_and(|limit| count.div_ceil(groups) * (per_matrix + MAX_RANK) > limit)
        {
            return cpu();
        }
        let ranges = vec![1; 3 + form.solve as usize + form.checked as usize];
        let mut launch = Launch { words, ranges, ..Launch::default() };
        if form.checked {
            launch.scratch = Some((count * 4).max(16));
        }
        if count > 0 && n > 0 {
            let head = format!("#version 450\n#define T {}\n{}", super::glsl::reg_type(*dtype), form.defines);
            let pipeline = self.programs.pipeline(&format!("{head}{SOURCE}"), &launch.ranges)?;
            launch.dispatches.push((pipeline, [groups as u32, 1, 1]));
            if form.checked {
                launch.check = Some(FactorCheck { op: *op, shape: shapes[0], bytes: count * 4 });
            }
            Handwritten::Factor.count();
        }
        Ok(Plan::Device(launch))
    }
}

/// The columns of a right-hand side (a vector is one).
fn columns(shape: &Shape) -> usize {
    if shape.rank() > 1 { shape.dim(1) } else { 1 }
}
