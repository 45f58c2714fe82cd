//! Checking and shaping Fourier transform calls: which dimensions, which types, which
//! output shape. The transform itself is one intrinsic node (`Op::Fft`).

use std::sync::Arc;

use smallvec::smallvec;

use super::graph::Graph;
use crate::ir::{FftKind, FftNorm, FftSpec, Node, Op, Result, Shape, bail};

impl Graph<'_> {
    /// A transform of `a` along `dims` (as the application listed them; 1 to 3). `n` is
    /// the real output's length along the last listed dimension (`ComplexToReal` only).
    pub fn fft(
        &self,
        a: &Arc<Node>,
        kind: FftKind,
        inverse: bool,
        dims: &[i32],
        n: Option<i64>,
        norm: FftNorm,
    ) -> Result<Arc<Node>> {
        let name = Op::Fft(FftSpec { kind, inverse, norm, dims: [0; 3], ndims: 1 }).name();
        let rank = a.shape.rank();
        let mut spec = FftSpec { kind, inverse, norm, dims: [0; 3], ndims: dims.len() as u8 };
        for (i, &d) in dims.iter().enumerate() {
            if d < 0 || d as usize >= rank {
                bail!(InvalidArgument, "{name}: dims[{i}] = {d} is not a dimension of a rank-{rank} array");
            }
            if dims[..i].contains(&d) {
                bail!(InvalidArgument, "{name}: dims[{i}] = {d} is listed twice");
            }
            if a.shape.dim(d as usize) == 0 {
                bail!(InvalidArgument, "{name}: dimension {d} (dims[{i}]) has length 0; a transform needs points");
            }
            spec.dims[i] = d as u8;
        }
        let t = a.dtype;
        if !(t.is_float() || t.is_complex()) || t.is_half() {
            bail!(DTypeMismatch, "{name}: a is {t}; transforms take f32, f64, c64 or c128 arrays");
        }
        let last = spec.halved_dim();
        match kind {
            FftKind::Complex => {
                let c = t.complex().expect("a float or complex type");
                let a = self.cast(a, c)?;
                Ok(self.pending(Op::Fft(spec), c, a.shape, smallvec![a]))
            }
            FftKind::RealToComplex => {
                if t.is_complex() {
                    bail!(DTypeMismatch, "{name}: a is {t}; sl_rfft takes a real (f32 or f64) array");
                }
                let shape = a.shape.with_dim(last, a.shape.dim(last) / 2 + 1);
                Ok(self.pending(Op::Fft(spec), t.complex().expect("a float type"), shape, smallvec![a.clone()]))
            }
            FftKind::ComplexToReal => {
                if !t.is_complex() {
                    bail!(DTypeMismatch, "{name}: a is {t}; sl_irfft takes a complex (c64 or c128) half spectrum");
                }
                let n = n.expect("complex-to-real transforms have an output length");
                let half = a.shape.dim(last);
                if n < 1 || (n / 2 + 1) as u64 != half as u64 {
                    bail!(
                        ShapeMismatch,
                        "{name}: n = {n} does not match the input: dimension {last} has {half} points, and an output \
                         of n points needs n/2 + 1 (so n is {} or {})",
                        2 * (half as i64 - 1),
                        2 * (half as i64 - 1) + 1
                    );
                }
                let dims: Vec<u64> = a
                    .shape
                    .dims()
                    .iter()
                    .enumerate()
                    .map(|(d, &l)| if d == last { n as u64 } else { l as u64 })
                    .collect();
                let shape = Shape::sized(name, &dims)?;
                Ok(self.pending(Op::Fft(spec), t.real(), shape, smallvec![a.clone()]))
            }
        }
    }
}
