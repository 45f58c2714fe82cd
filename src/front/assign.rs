//! Assignment into part of an array: a section (strides, negative strides, projections),
//! the elements a mask selects, or indexed elements. Arrays stay values: each call makes
//! a new version of the destination (an `Op::Assign` node, or a select or scatter); the
//! planner writes it into the old version's storage when nothing else can see that
//! (`gen::Plan::mark_in_place`).

use std::sync::Arc;

use super::graph::Graph;
use crate::ir::{DType, MAX_RANK, Node, Op, Placement, Result, ScatterMode, Shape, bail};

/// A section of an array to assign into, as the application gives it: per dimension a
/// start, a count and a stride; a stride of 0 fixes the dimension at its start and
/// removes it from the view (a projection), and then the count must be 1.
pub struct SectionSpec<'a> {
    pub start: &'a [i64],
    pub count: &'a [i64],
    pub stride: &'a [i64],
}

impl Graph<'_> {
    /// `values` as elements of `dst`'s type: refused when that would lose information
    /// (a wider or floating-point type into a narrower or integer one, complex into
    /// real), since an assignment converts silently otherwise.
    fn assigned_values(&self, what: &str, dst: &Arc<Node>, values: &Arc<Node>) -> Result<Arc<Node>> {
        if values.dtype.promote(dst.dtype) != dst.dtype {
            bail!(
                DTypeMismatch,
                "{what}: assigning {} values into a {} array would lose information; cast them first (sl_cast)",
                values.dtype,
                dst.dtype
            );
        }
        self.cast(values, dst.dtype)
    }

    /// Where `spec` lies in `dst`, and the shape of the view it selects; checked like
    /// `section`, every element inside `dst`.
    fn placement(&self, dst: &Arc<Node>, spec: &SectionSpec) -> Result<(Placement, Shape)> {
        let r = dst.shape.rank();
        if spec.start.len() != r || spec.count.len() != r || spec.stride.len() != r {
            bail!(InvalidArgument, "assign: expected {r} starts, counts and strides");
        }
        let mut place = Placement { start: [0; MAX_RANK], step: [0; MAX_RANK], dims: [0; MAX_RANK] };
        let mut dims = Vec::with_capacity(r);
        for d in 0..r {
            let (n, start, count, stride) = (dst.shape.dim(d) as i64, spec.start[d], spec.count[d], spec.stride[d]);
            if stride == 0 && count != 1 {
                bail!(InvalidArgument, "assign: dimension {d} has stride 0 (a projection) but count {count}, not 1");
            }
            if count < 0 {
                bail!(InvalidArgument, "assign: dimension {d} has count {count}");
            }
            if count > 0 {
                // Checked: a last coordinate that overflows lies outside the array too.
                let last = (count - 1).checked_mul(stride).and_then(|span| start.checked_add(span));
                if !(0..n).contains(&start) || !last.is_some_and(|l| (0..n).contains(&l)) {
                    bail!(
                        InvalidArgument,
                        "assign: dimension {d} (size {n}) from {start} with stride {stride} for {count} elements \
                         leaves the array"
                    );
                }
                place.start[d] = start;
            }
            if stride != 0 {
                let k = dims.len();
                place.dims[k] = d as u8;
                // A dimension of at most one element never steps (see `section`).
                place.step[k] = if count > 1 { stride } else { 1 };
                dims.push(count as usize);
            }
        }
        Ok((place, Shape::new(&dims)))
    }

    /// A new version of `dst` with the section `spec` set to `values` (broadcast to the
    /// section's shape).
    pub fn assign_section(&self, dst: &Arc<Node>, spec: &SectionSpec, values: &Arc<Node>) -> Result<Arc<Node>> {
        let (place, shape) = self.placement(dst, spec)?;
        let values = self.assigned_values("assign", dst, values)?;
        if Shape::broadcast(&values.shape, &shape).ok() != Some(shape) {
            bail!(
                ShapeMismatch,
                "assign: values of shape {} cannot broadcast to the section's shape {shape}",
                values.shape
            );
        }
        let values = self.broadcast_to(&values, shape)?;
        if shape.numel() == 0 {
            return Ok(dst.clone());
        }
        Ok(self.pending(Op::Assign(place), dst.dtype, dst.shape, vec![dst.clone(), values]))
    }

    /// `assign_section` of one value (exactly representable in `dst`'s type).
    pub fn assign_section_scalar(&self, dst: &Arc<Node>, spec: &SectionSpec, v: f64) -> Result<Arc<Node>> {
        let (_, shape) = self.placement(dst, spec)?;
        let value = self.scalar_value(dst.dtype, v)?;
        let values = self.broadcast_to(&value, shape)?;
        self.assign_section(dst, spec, &values)
    }

    /// A new version of `dst` with `values` (broadcast to `dst`'s shape) where `mask`
    /// (bool, shaped like `dst`) is true.
    pub fn assign_where(&self, dst: &Arc<Node>, mask: &Arc<Node>, values: &Arc<Node>) -> Result<Arc<Node>> {
        if mask.dtype != DType::Bool {
            bail!(DTypeMismatch, "assign_where: the mask must be bool, not {}", mask.dtype);
        }
        if mask.shape != dst.shape {
            bail!(
                ShapeMismatch,
                "assign_where: the mask has shape {} but the array has shape {}",
                mask.shape,
                dst.shape
            );
        }
        let values = self.assigned_values("assign_where", dst, values)?;
        if Shape::broadcast(&values.shape, &dst.shape).ok() != Some(dst.shape) {
            bail!(
                ShapeMismatch,
                "assign_where: values of shape {} cannot broadcast to the array's shape {}",
                values.shape,
                dst.shape
            );
        }
        self.select(mask, &values, dst)
    }

    /// `assign_where` of one value (exactly representable in `dst`'s type).
    pub fn assign_where_scalar(&self, dst: &Arc<Node>, mask: &Arc<Node>, v: f64) -> Result<Arc<Node>> {
        let value = self.scalar_value(dst.dtype, v)?;
        self.assign_where(dst, mask, &value)
    }

    /// A new version of `dst` with `values` written at the indexed elements, combined by
    /// `mode` (a scatter; values are checked like the other assignments).
    pub fn assign_indexed(
        &self,
        dst: &Arc<Node>,
        indices: &[Arc<Node>],
        values: &Arc<Node>,
        mode: ScatterMode,
    ) -> Result<Arc<Node>> {
        let values = self.assigned_values("assign_indexed", dst, values)?;
        self.scatter(dst, indices, &values, mode)
    }

    /// A rank-0 array of `dtype` holding `v` (a kernel parameter, so loops assigning
    /// other values reuse one kernel); refused when `dtype` cannot hold `v` exactly.
    fn scalar_value(&self, dtype: DType, v: f64) -> Result<Arc<Node>> {
        if dtype.is_complex() {
            return self.complex_constant(dtype, Shape::SCALAR, v, 0.0);
        }
        Ok(self.fill(dtype, Shape::SCALAR, self.app_scalar(dtype, v)?, false))
    }
}
