//! f16 and bf16 are storage types: an op on them reads its operands as f32, computes in
//! f32 and rounds its result to the operands' type once (as JAX computes them), so the
//! executors only convert, copy and move their values. Reductions and scans accumulate
//! in f32 too; a scatter that adds does so per element.

use std::sync::Arc;

use super::Graph;
use crate::ir::{DType, Node, Result};

impl Graph<'_> {
    /// `op` of `xs` (all of the 16-bit type `t`) computed on their values as f32; an f32
    /// result is rounded back to `t`, other results (bools, indices) are kept.
    pub(super) fn in_f32(
        &self,
        t: DType,
        xs: &[&Arc<Node>],
        op: impl FnOnce(&[Arc<Node>]) -> Result<Arc<Node>>,
    ) -> Result<Arc<Node>> {
        debug_assert!(t.is_half());
        let wide: Vec<Arc<Node>> = xs.iter().map(|x| self.cast(x, DType::F32)).collect::<Result<_>>()?;
        let r = op(&wide)?;
        if r.dtype == DType::F32 { self.cast(&r, t) } else { Ok(r) }
    }
}
