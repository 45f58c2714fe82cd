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

/// Copies every element of `shape` from `src` (offsets `src_off + sum(i * src_st)`) to
/// `dst` likewise; element size `size` bytes. Walks dimension 0 innermost.
///
/// # Safety
/// Both buffers hold every offset the layouts reach.
unsafe fn strided_copy(shape: &Shape, size: usize, src: *const u8, src_off: i64, src_st: &[i64; MAX_RANK], dst: *mut u8, dst_off: i64, dst_st: &[i64; MAX_RANK]) {
    let total = shape.numel();
    if total == 0 {
        return;
    }
    let dense = shape.dense_strides();
    let contiguous = |st: &[i64; MAX_RANK]| (0..shape.rank()).all(|d| shape.dim(d) <= 1 || st[d] == dense[d]);
    unsafe {
        if contiguous(src_st) && contiguous(dst_st) {
            std::ptr::copy_nonoverlapping(src.offset((src_off * size as i64) as isize), dst.offset((dst_off * size as i64) as isize), total * size);
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
        if dtype == DType::Bool {
            if let Some(i) = data[..bytes].iter().position(|&b| b > 1) {
                bail!(InvalidArgument, "bool data must be 0 or 1; byte {i} is {}", data[i]);
            }
        }
        let buf = self.rt.memory.alloc(bytes)?;
        // SAFETY: `buf` is fresh and `bytes` long; `data` is at least that long.
        unsafe {
            strided_copy(&shape, dtype.size(), data.as_ptr(), 0, &host_strides(&shape, order), buf.as_mut_ptr(), 0, &shape.dense_strides());
        }
        Ok(self.stored(dtype, shape, Value { storage: Arc::new(buf), layout: Layout::dense(&shape) }))
    }
}

/// Waits for `n` and copies its elements into `dst` in `order`.
pub fn read_into(graph: &Graph, n: &Arc<Node>, dst: &mut [u8], order: HostOrder) -> Result<()> {
    let bytes = n.shape.numel() * n.dtype.size();
    if dst.len() < bytes {
        bail!(InvalidArgument, "the buffer holds {} bytes; the array ({} of {}) needs {bytes}", dst.len(), n.shape, n.dtype);
    }
    let v = graph.rt.sched.value(n).map_err(|e| poisoned(&e))?;
    let Some(src) = v.storage.host_bytes() else {
        bail!(Internal, "array storage is not in host memory");
    };
    // SAFETY: the value's layout stays inside its storage; `dst` was checked above.
    unsafe {
        strided_copy(&n.shape, n.dtype.size(), src.as_ptr(), v.layout.offset, &v.layout.strides, dst.as_mut_ptr(), 0, &host_strides(&n.shape, order));
    }
    Ok(())
}

/// The error a use of a failed array reports: poisoned, naming the original failure.
pub fn poisoned(e: &Error) -> Error {
    let at = match e.origin {
        Some(site) if !site.api.is_empty() => format!(" (computing the result of {})", site.api),
        _ => String::new(),
    };
    let mut p = Error::new(ErrorKind::Poisoned, format!("the array depends on work that failed{at}: {}", e.message));
    p.origin = e.origin;
    p
}
