//! Element-wise functions composed of the element-wise ops that exist (so they fuse and
//! are compared like them): clamping, the modulo with the divisor's sign, and rounding to
//! an integer type in one call; and the fused multiply-add, an op of its own (one
//! rounding is not a composition of rounded ops).

use std::sync::Arc;

use super::Graph;
use crate::ir::{BinaryOp, DType, Node, Op, Result, UnaryOp, bail};

impl Graph<'_> {
    /// `min(max(a, lo), hi)` (numpy's `clip`: `hi` wins where `lo > hi`; NaN stays NaN).
    pub fn clamp(&self, a: &Arc<Node>, lo: &Arc<Node>, hi: &Arc<Node>) -> Result<Arc<Node>> {
        self.binary(BinaryOp::Min, &self.binary(BinaryOp::Max, a, lo)?, hi)
    }

    /// `clamp` with bounds of `a`'s type (refused when that type cannot hold them).
    pub fn clamp_scalar(&self, a: &Arc<Node>, lo: f64, hi: f64) -> Result<Arc<Node>> {
        if a.dtype == DType::Bool || a.dtype.is_complex() {
            bail!(DTypeMismatch, "clamp is not defined for {} arrays", a.dtype);
        }
        let bound = |v: f64| Ok::<_, crate::ir::Error>(self.operand(a.dtype, self.app_scalar(a.dtype, v)?));
        self.clamp(a, &bound(lo)?, &bound(hi)?)
    }

    /// `a * b + c` rounded once (C `fma`); the three broadcast and promote together, to a
    /// floating-point type.
    pub fn fma(&self, a: &Arc<Node>, b: &Arc<Node>, c: &Arc<Node>) -> Result<Arc<Node>> {
        let t = a.dtype.promote(b.dtype).promote(c.dtype);
        if !t.is_float() {
            bail!(
                DTypeMismatch,
                "fma is defined for f32 and f64 arrays, not {t} (integers: a * b + c is exact already)"
            );
        }
        let (a, b, c) = (&self.cast(a, t)?, &self.cast(b, t)?, &self.cast(c, t)?);
        if t.is_half() {
            return self.in_f32(t, &[a, b, c], |w| self.fma(&w[0], &w[1], &w[2]));
        }
        let (shape, ops) = self.broadcast_operands("fma", &[a, b, c])?;
        Ok(self.pending(Op::Fma, t, shape, ops))
    }

    /// The remainder of `a / b` with the sign of `b` (Python's `%`, numpy's `mod`, Fortran's
    /// `modulo`): `rem(a, b)`, plus `b` where that remainder is nonzero and of the other
    /// sign; a zero result takes the sign of `b`. Integers: `mod(x, 0)` is 0.
    pub fn modulo(&self, a: &Arc<Node>, b: &Arc<Node>) -> Result<Arc<Node>> {
        let t = a.dtype.promote(b.dtype);
        if !(t.is_float() || t.is_integer()) {
            bail!(DTypeMismatch, "mod is not defined for {t} arrays");
        }
        let (a, b) = (&self.cast(a, t)?, &self.cast(b, t)?);
        let r = self.binary(BinaryOp::Rem, a, b)?;
        let zero = self.scalar_of(t, 0.0)?;
        let negative = |x: &Arc<Node>| self.binary(BinaryOp::Lt, x, &zero);
        let signs_differ = self.binary(BinaryOp::Xor, &negative(&r)?, &negative(b)?)?;
        let nonzero = self.binary(BinaryOp::Ne, &r, &zero)?;
        let fix = self.binary(BinaryOp::And, &nonzero, &signs_differ)?;
        let m = self.select(&fix, &self.binary(BinaryOp::Add, &r, b)?, &r)?;
        if !t.is_float() {
            return Ok(m);
        }
        let is_zero = self.binary(BinaryOp::Eq, &m, &zero)?;
        self.select(&is_zero, &self.binary(BinaryOp::CopySign, &m, b)?, &m)
    }

    /// `floor`, `ceil` or `round` (`op`) of `a` converted to the integer type `to`: NaN
    /// gives 0 and values beyond `to`'s range its nearest limit (as `cast`). Integer `a`
    /// is converted as `cast` converts it.
    pub fn round_to(&self, op: UnaryOp, a: &Arc<Node>, to: DType) -> Result<Arc<Node>> {
        if !to.is_integer() {
            bail!(DTypeMismatch, "{}: the result type must be an integer type, not {to}", op.name());
        }
        if !(a.dtype.is_float() || a.dtype.is_integer()) {
            bail!(DTypeMismatch, "{} is not defined for {} arrays", op.name(), a.dtype);
        }
        self.cast(&self.unary(op, a)?, to)
    }
}
