//! Moving elements between the application's buffers and arrays: copies in at call time,
//! copies out after a blocking wait, converting between row- and column-major order.

use std::sync::Arc;

use super::graph::Graph;
use crate::ir::{DType, Error, ErrorKind, Layout, MAX_RANK, Node, Result, Shape, Value, bail};

/// Element order of an application buffer.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum HostOrder {
    ColumnMajor,
    RowMajor,
}

fn host_strides(shape: &Shape, order: HostOrder) -> [i64; MAX_RANK] {
    match order {
        HostOrder::ColumnMajor => shape.dense_strides(),
        HostOrder::RowMajor => {
            let mut s = [0i64; MAX_RANK];
            let mut acc = 1i64;
            for d in (0..shape.rank()).rev() {
                s[d] = acc;
                acc *= shape.dim(d) as i64;
            }
            s
        }
    }
}

/// Elements in memory: element `i` (a multi-index) is at `ptr + (offset + sum(i * strides)) * size`.
struct Place<P> {
    ptr: P,
    offset: i64,
    strides: [i64; MAX_RANK],
}

/// Copies every element of `shape` (of `size` bytes) from `src` to `dst`, walking
/// dimension 0 innermost.
///
/// # Safety
/// Both places hold every offset their layouts reach.
unsafe fn strided_copy(shape: &Shape, size: usize, src: Place<*const u8>, dst: Place<*mut u8>) {
    let (src, src_off, src_st) = (src.ptr, src.offset, &src.strides);
    let (dst, dst_off, dst_st) = (dst.ptr, dst.offset, &dst.strides);
    let total = shape.numel();
    if total == 0 {
        return;
    }
    let dense = shape.dense_strides();
    let contiguous = |st: &[i64; MAX_RANK]| (0..shape.rank()).all(|d| shape.dim(d) <= 1 || st[d] == dense[d]);
    unsafe {
        if contiguous(src_st) && contiguous(dst_st) {
            std::ptr::copy_nonoverlapping(
                src.offset((src_off * size as i64) as isize),
                dst.offset((dst_off * size as i64) as isize),
                total * size,
            );
            return;
        }
        let d0 = shape.dim(0).max(1);
        let mut idx = [0usize; MAX_RANK];
        let (s0, t0) = (src_st[0], dst_st[0]);
        for _row in 0..total / d0 {
            let mut so = src_off;
            let mut to = dst_off;
            for d in 1..shape.rank() {
                so += idx[d] as i64 * src_st[d];
                to += idx[d] as i64 * dst_st[d];
            }
            for i in 0..d0 as i64 {
                std::ptr::copy_nonoverlapping(
                    src.offset(((so + i * s0) * size as i64) as isize),
                    dst.offset(((to + i * t0) * size as i64) as isize),
                    size,
                );
            }
            for d in 1..shape.rank() {
                idx[d] += 1;
                if idx[d] < shape.dim(d) {
                    break;
                }
                idx[d] = 0;
            }
        }
    }
}

impl Graph<'_> {
    /// A new array holding a copy of `data` (`order` says how it is laid out).
    pub fn from_host(&self, dtype: DType, shape: Shape, data: &[u8], order: HostOrder) -> Result<Arc<Node>> {
        let Some(bytes) = shape.checked_numel().and_then(|n| n.checked_mul(dtype.size())) else {
            bail!(OutOfMemory, "an array of shape {shape} and type {dtype} does not fit in memory");
        };
        if data.len() < bytes {
            bail!(InvalidArgument, "the data holds {} bytes; shape {shape} of {dtype} needs {bytes}", data.len());
        }
        if dtype == DType::Bool
            && let Some(i) = data[..bytes].iter().position(|&b| b > 1)
        {
            bail!(InvalidArgument, "bool data must be 0 or 1; byte {i} is {}", data[i]);
        }
        let buf = self.rt.memory.alloc(bytes)?;
        // SAFETY: `buf` is fresh and `bytes` long; `data` is at least that long.
        unsafe {
            let src = Place { ptr: data.as_ptr(), offset: 0, strides: host_strides(&shape, order) };
            let dst = Place { ptr: buf.as_mut_ptr(), offset: 0, strides: shape.dense_strides() };
            strided_copy(&shape, dtype.size(), src, dst);
        }
        Ok(self.stored(dtype, shape, Value { storage: Arc::new(buf), layout: Layout::dense(&shape) }))
    }
}

/// Waits for `n` and copies its elements into `dst` in `order`.
pub fn read_into(graph: &Graph, n: &Arc<Node>, dst: &mut [u8], order: HostOrder) -> Result<()> {
    let bytes = n.shape.numel() * n.dtype.size();
    if dst.len() < bytes {
        bail!(
            InvalidArgument,
            "the buffer holds {} bytes; the array ({} of {}) needs {bytes}",
            dst.len(),
            n.shape,
            n.dtype
        );
    }
    let v = graph.rt.sched.value(n).map_err(|e| poisoned(&e))?;
    let v = graph.rt.sched.engine().executor().host_value(&v)?;
    // Checked before the copy, reported after it: the application gets the values either way.
    let verdict = crate::check::check_read(n, &v);
    let Some(src) = v.storage.host_bytes() else {
        bail!(Internal, "array storage is not in host memory");
    };
    // SAFETY: the value's layout stays inside its storage; `dst` was checked above.
    unsafe {
        let src = Place { ptr: src.as_ptr(), offset: v.layout.offset, strides: v.layout.strides };
        let dst = Place { ptr: dst.as_mut_ptr(), offset: 0, strides: host_strides(&n.shape, order) };
        strided_copy(&n.shape, n.dtype.size(), src, dst);
    }
    verdict
}

/// The error a use of a failed array reports: poisoned, naming the original failure.
pub fn poisoned(e: &Error) -> Error {
    let at = match e.origin {
        Some(site) if !site.api.is_empty() => format!(" (computing the result of {})", site.api),
        _ => String::new(),
    };
    // A singular matrix is a fact about the application's data, not a failure of the
    // runtime: it keeps its own status, so a caller can tell it apart.
    let kind = if e.kind == ErrorKind::Singular { ErrorKind::Singular } else { ErrorKind::Poisoned };
    let mut p = Error::new(kind, format!("the array depends on work that failed{at}: {}", e.message));
    p.origin = e.origin;
    p
}
