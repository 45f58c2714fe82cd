//! Scatter: writes values into a copy of a destination at computed coordinates.

use super::elem::{Elem, with_elem};
use crate::ir::{DType, MAX_RANK, Result, ScatterMode, Shape, Value, bail};

fn host(v: &Value) -> Result<*const u8> {
    match v.storage.host_bytes() {
        Some(b) => Ok(b.as_ptr()),
        None => bail!(Internal, "scatter operand is not in host memory"),
    }
}

/// Storage offsets of a strided array's elements in column-major order.
fn offsets(v: &Value, shape: &Shape) -> impl Iterator<Item = i64> {
    let (layout, shape) = (v.layout, *shape);
    let mut idx = [0usize; MAX_RANK];
    let total = shape.numel();
    (0..total).map(move |i| {
        if i > 0 {
            for d in 0..shape.rank() {
                idx[d] += 1;
                if idx[d] < shape.dim(d) {
                    break;
                }
                idx[d] = 0;
            }
        }
        layout.offset + (0..shape.rank()).map(|d| idx[d] as i64 * layout.strides[d]).sum::<i64>()
    })
}

/// `out = dst` with `values[i]` combined into `out[index_0[i], index_1[i], ...]` for
/// each source position `i` in column-major order; positions with an out-of-range index
/// are dropped. Under `Replace` the last write (highest `i`) wins.
pub fn scatter(
    mode: ScatterMode,
    dtype: DType,
    dst: (&Value, &Shape),
    values: (&Value, &Shape),
    indices: &[Value],
    out: &Value,
) -> Result<()> {
    let (dst_v, dst_shape) = dst;
    let size = dtype.size();
    let out_ptr = host(out)? as *mut u8;
    // Copy the destination (any layout) densely.
    let src = host(dst_v)?;
    for (i, off) in offsets(dst_v, dst_shape).enumerate() {
        unsafe { std::ptr::copy_nonoverlapping(src.add(off as usize * size), out_ptr.add(i * size), size) };
    }
    let (val_v, val_shape) = values;
    let vals = host(val_v)?;
    let idx_ptrs = indices.iter().map(host).collect::<Result<Vec<_>>>()?;
    let mut idx_iters: Vec<_> = indices.iter().map(|v| offsets(v, val_shape)).collect();
    let dense = dst_shape.dense_strides();
    // Each value's target, or `None` when an index is out of range.
    let targets = offsets(val_v, val_shape).map(|val_off| {
        let mut target = 0i64;
        let mut inside = true;
        for (d, it) in idx_iters.iter_mut().enumerate() {
            let off = it.next().expect("index arrays match the values");
            let c = unsafe { *(idx_ptrs[d] as *const i64).offset(off as isize) };
            inside &= (0..dst_shape.dim(d) as i64).contains(&c);
            target += c * dense[d];
        }
        inside.then_some((val_off, target))
    });
    // SAFETY: targets are inside the dense output, value offsets inside the values.
    unsafe {
        match dtype {
            // Complex values are only replaced (the front end refuses the other modes).
            DType::C64 => write_values::<u64>(vals, out_ptr, targets, |_, new| new),
            DType::C128 => write_values::<[u64; 2]>(vals, out_ptr, targets, |_, new| new),
            _ => with_elem!(dtype, T => {
                write_values::<T>(vals, out_ptr, targets, |old, new| combine::<T>(mode, dtype, old, new))
            }),
        }
    }
    Ok(())
}

/// `out[target] = f(out[target], values[offset])` for each `(offset, target)`.
///
/// # Safety
/// Every offset and target is an element of its array, of type `T`.
unsafe fn write_values<T: Copy>(
    vals: *const u8,
    out: *mut u8,
    targets: impl Iterator<Item = Option<(i64, i64)>>,
    f: impl Fn(T, T) -> T,
) {
    for (val_off, target) in targets.flatten() {
        unsafe {
            let v = *(vals as *const T).offset(val_off as isize);
            let o = (out as *mut T).offset(target as isize);
            *o = f(*o, v);
        }
    }
}

fn combine<T: Elem>(mode: ScatterMode, dtype: DType, old: T, new: T) -> T {
    let op = match mode {
        ScatterMode::Replace => return new,
        ScatterMode::Add => crate::ir::BinaryOp::Add,
        ScatterMode::Min => crate::ir::BinaryOp::Min,
        ScatterMode::Max => crate::ir::BinaryOp::Max,
    };
    let mut out = 0u64;
    // SAFETY: one element each, in u64 slots.
    unsafe {
        super::ops::binary(
            op,
            dtype,
            super::ops::Opnd::Scalar(old.to_u64()),
            super::ops::Opnd::Scalar(new.to_u64()),
            &mut out as *mut u64 as *mut u8,
            1,
        )
    };
    T::from_u64(out)
}
