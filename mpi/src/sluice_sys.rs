//! The part of libsluice's C API (include/sluice.h) this library calls, and `Local`: one
//! Sluice array handle the library owns. Every handle the library makes is taken out of
//! the application's scopes (`sl_unscope`), so an `sl_scope_end` of the application never
//! releases a rank's part of a distributed array; the library releases it itself.
#![allow(non_camel_case_types)]

use std::ffi::{CStr, c_char, c_void};

use crate::error::{Error, Result};

pub type sl_status = i32;
pub type sl_array = u64;
pub type sl_dtype = i32;

pub const SL_OK: sl_status = 0;
pub const SL_ERR_INVALID_HANDLE: sl_status = 1;
pub const SL_ERR_INVALID_ARGUMENT: sl_status = 2;
pub const SL_ERR_SHAPE_MISMATCH: sl_status = 3;
pub const SL_ERR_NOT_SUPPORTED: sl_status = 6;
pub const SL_ERR_INVALID_STATE: sl_status = 8;
pub const SL_ERR_INTERNAL: sl_status = 9;

pub const SL_F32: sl_dtype = 0;
pub const SL_F64: sl_dtype = 1;
pub const SL_I32: sl_dtype = 2;
pub const SL_I64: sl_dtype = 3;
pub const SL_U8: sl_dtype = 4;
pub const SL_BOOL: sl_dtype = 5;
pub const SL_C64: sl_dtype = 6;
pub const SL_C128: sl_dtype = 7;

pub const SL_COL_MAJOR: i32 = 0;
pub const SL_MAX_RANK: usize = 8;
pub const SL_ALL_DIMS: i32 = -1;

pub const SL_BOUNDARY_CLAMP: i32 = 1;
pub const SL_BOUNDARY_WRAP: i32 = 2;

// Reduction codes (sl_reduce_op).
pub const SL_SUM: i32 = 0;
pub const SL_PROD: i32 = 1;
pub const SL_MINVAL: i32 = 2;
pub const SL_MAXVAL: i32 = 3;
pub const SL_MEAN: i32 = 4;
pub const SL_ANY: i32 = 5;
pub const SL_ALL: i32 = 6;
pub const SL_COUNT: i32 = 7;
pub const SL_ARGMIN: i32 = 8;
pub const SL_ARGMAX: i32 = 9;
pub const SL_NANSUM: i32 = 10;
pub const SL_NANMIN: i32 = 12;
pub const SL_NANMAX: i32 = 13;
pub const SL_NORM1: i32 = 14;
pub const SL_NORM2: i32 = 15;
pub const SL_NORMINF: i32 = 16;

// Binary op codes used inside the library (sl_binary_op).
pub const SL_MUL: i32 = 2;
pub const SL_DIV: i32 = 3;

#[repr(C)]
pub struct sl_error_info {
    pub status: sl_status,
    pub message: *const c_char,
    pub function: *const c_char,
    pub call_pc: usize,
    pub call_file: *const c_char,
    pub call_line: i32,
    pub origin_function: *const c_char,
    pub origin_pc: usize,
    pub origin_file: *const c_char,
    pub origin_line: i32,
}

unsafe extern "C" {
    fn sl_create(
        dtype: sl_dtype,
        rank: i32,
        dims: *const i64,
        layout: i32,
        data: *const c_void,
        bytes: usize,
        out: *mut sl_array,
    ) -> sl_status;
    fn sl_constant(dtype: sl_dtype, rank: i32, dims: *const i64, value: f64, out: *mut sl_array) -> sl_status;
    fn sl_read(a: sl_array, layout: i32, dst: *mut c_void, bytes: usize) -> sl_status;
    fn sl_retain(a: sl_array, out: *mut sl_array) -> sl_status;
    fn sl_release(a: sl_array) -> sl_status;
    fn sl_unscope(a: sl_array) -> sl_status;
    fn sl_rank(a: sl_array, rank: *mut i32) -> sl_status;
    fn sl_shape(a: sl_array, dims: *mut i64, capacity: i32) -> sl_status;
    fn sl_get_dtype(a: sl_array, out: *mut sl_dtype) -> sl_status;
    fn sl_eval(arrays: *const sl_array, n: i32) -> sl_status;
    fn sl_last_error(info: *mut sl_error_info) -> sl_status;
    pub fn sl_status_name(status: sl_status, name: *mut *const c_char) -> sl_status;
    fn sl_unary(op: i32, a: sl_array, out: *mut sl_array) -> sl_status;
    fn sl_binary(op: i32, a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status;
    fn sl_binary_scalar(op: i32, a: sl_array, s: f64, out: *mut sl_array) -> sl_status;
    fn sl_scalar_binary(op: i32, s: f64, b: sl_array, out: *mut sl_array) -> sl_status;
    fn sl_cast(a: sl_array, dtype: sl_dtype, out: *mut sl_array) -> sl_status;
    fn sl_section(
        a: sl_array,
        start: *const i64,
        count: *const i64,
        stride: *const i64,
        out: *mut sl_array,
    ) -> sl_status;
    fn sl_shift(a: sl_array, dim: i32, offset: i64, boundary: i32, fill: f64, out: *mut sl_array) -> sl_status;
    fn sl_reshape(a: sl_array, rank: i32, dims: *const i64, out: *mut sl_array) -> sl_status;
    fn sl_broadcast_to(a: sl_array, rank: i32, dims: *const i64, out: *mut sl_array) -> sl_status;
    fn sl_concat(arrays: *const sl_array, n: i32, dim: i32, out: *mut sl_array) -> sl_status;
    fn sl_assign_section(
        dst: sl_array,
        start: *const i64,
        count: *const i64,
        stride: *const i64,
        values: sl_array,
    ) -> sl_status;
    fn sl_take_along(src: sl_array, index: sl_array, dim: i32, policy: i32, fill: f64, out: *mut sl_array)
    -> sl_status;
    fn sl_reduce(op: i32, a: sl_array, dim: i32, out: *mut sl_array) -> sl_status;
    fn sl_argsort(a: sl_array, dim: i32, order: i32, out: *mut sl_array) -> sl_status;
    fn sl_dot(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status;
    fn sl_matmul(a: sl_array, b: sl_array, out: *mut sl_array) -> sl_status;
}

/// Bytes per element of each Sluice type.
pub fn element_size(dtype: sl_dtype) -> Option<usize> {
    Some(match dtype {
        SL_U8 | SL_BOOL => 1,
        SL_F32 | SL_I32 => 4,
        SL_F64 | SL_I64 | SL_C64 => 8,
        SL_C128 => 16,
        _ => return None,
    })
}

pub fn dtype_name(dtype: sl_dtype) -> &'static str {
    ["f32", "f64", "i32", "i64", "u8", "bool", "c64", "c128"].get(dtype as usize).copied().unwrap_or("?")
}

pub fn is_float(dtype: sl_dtype) -> bool {
    matches!(dtype, SL_F32 | SL_F64)
}

pub fn is_complex(dtype: sl_dtype) -> bool {
    matches!(dtype, SL_C64 | SL_C128)
}

fn text(p: *const c_char) -> String {
    if p.is_null() {
        return String::new();
    }
    // SAFETY: Sluice's error strings are NUL-terminated and live until its next failing call.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

/// The error of a failed Sluice call, with Sluice's status and its message.
pub fn check(status: sl_status) -> Result<()> {
    if status == SL_OK {
        return Ok(());
    }
    let mut info = std::mem::MaybeUninit::<sl_error_info>::zeroed();
    // SAFETY: `info` is writable; a failure leaves it zeroed (null strings).
    unsafe { sl_last_error(info.as_mut_ptr()) };
    // SAFETY: zeroed or filled by sl_last_error; both are valid.
    let info = unsafe { info.assume_init() };
    let message = text(info.message);
    let function = text(info.function);
    Err(Error::new(status, if function.is_empty() { message } else { format!("{function}: {message}") }))
}

/// A Sluice array handle the library owns: released when dropped.
pub struct Local(sl_array);

impl Drop for Local {
    fn drop(&mut self) {
        // SAFETY: plain call; a handle made stale by sl_shutdown only fails.
        unsafe { sl_release(self.0) };
    }
}

impl std::fmt::Debug for Local {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Local({:#x})", self.0)
    }
}

/// Runs a Sluice call that makes one array, and owns the result.
fn make(call: impl FnOnce(*mut sl_array) -> sl_status) -> Result<Local> {
    let mut h: sl_array = 0;
    check(call(&mut h))?;
    let local = Local(h);
    // SAFETY: plain call on a live handle.
    check(unsafe { sl_unscope(h) })?;
    Ok(local)
}

fn rank_of(dims: &[i64]) -> i32 {
    dims.len() as i32
}

impl Local {
    pub fn raw(&self) -> sl_array {
        self.0
    }

    /// A second handle to the application's array `a` (checked: a stale handle fails).
    pub fn adopt(a: sl_array) -> Result<Local> {
        // SAFETY: plain call; Sluice checks the handle.
        make(|out| unsafe { sl_retain(a, out) })
    }

    pub fn retain(&self) -> Result<Local> {
        Local::adopt(self.0)
    }

    /// A new handle to this array for the application: an ordinary Sluice handle, in the
    /// application's innermost scope like any other it gets.
    pub fn handle_for_application(&self) -> Result<sl_array> {
        let mut h = 0;
        // SAFETY: plain call on a live handle.
        check(unsafe { sl_retain(self.0, &mut h) })?;
        Ok(h)
    }

    pub fn create(dtype: sl_dtype, dims: &[i64], data: &[u8]) -> Result<Local> {
        // SAFETY: `data` is readable for its length.
        make(|out| unsafe {
            sl_create(dtype, rank_of(dims), dims.as_ptr(), SL_COL_MAJOR, data.as_ptr().cast(), data.len(), out)
        })
    }

    pub fn constant(dtype: sl_dtype, dims: &[i64], value: f64) -> Result<Local> {
        // SAFETY: `dims` holds rank entries.
        make(|out| unsafe { sl_constant(dtype, rank_of(dims), dims.as_ptr(), value, out) })
    }

    pub fn dtype(&self) -> Result<sl_dtype> {
        let mut t = 0;
        // SAFETY: plain call.
        check(unsafe { sl_get_dtype(self.0, &mut t) })?;
        Ok(t)
    }

    pub fn dims(&self) -> Result<Vec<i64>> {
        dims_of(self.0)
    }

    /// The elements, column-major.
    pub fn read(&self) -> Result<Vec<u8>> {
        let bytes = byte_size(self.dtype()?, &self.dims()?)?;
        let mut buf = vec![0u8; bytes];
        // SAFETY: `buf` is writable for `bytes`.
        check(unsafe { sl_read(self.0, SL_COL_MAJOR, buf.as_mut_ptr().cast(), bytes) })?;
        Ok(buf)
    }

    pub fn unary(&self, op: i32) -> Result<Local> {
        // SAFETY: plain call.
        make(|out| unsafe { sl_unary(op, self.0, out) })
    }

    pub fn binary(&self, op: i32, b: &Local) -> Result<Local> {
        // SAFETY: plain call.
        make(|out| unsafe { sl_binary(op, self.0, b.0, out) })
    }

    pub fn binary_scalar(&self, op: i32, s: f64) -> Result<Local> {
        // SAFETY: plain call.
        make(|out| unsafe { sl_binary_scalar(op, self.0, s, out) })
    }

    pub fn scalar_binary(&self, op: i32, s: f64) -> Result<Local> {
        // SAFETY: plain call.
        make(|out| unsafe { sl_scalar_binary(op, s, self.0, out) })
    }

    pub fn cast(&self, dtype: sl_dtype) -> Result<Local> {
        // SAFETY: plain call.
        make(|out| unsafe { sl_cast(self.0, dtype, out) })
    }

    /// Elements `start..start + count` along `dim`, all of every other dimension.
    pub fn rows(&self, dim: usize, start: i64, count: i64) -> Result<Local> {
        let dims = self.dims()?;
        if start == 0 && count == dims[dim] {
            return self.retain();
        }
        let mut first = vec![0i64; dims.len()];
        let mut counts = dims.clone();
        first[dim] = start;
        counts[dim] = count;
        let stride = vec![1i64; dims.len()];
        // SAFETY: the three arrays hold rank entries.
        make(|out| unsafe { sl_section(self.0, first.as_ptr(), counts.as_ptr(), stride.as_ptr(), out) })
    }

    /// Writes `values` over elements `start..` along `dim` (all of every other dimension):
    /// a new version of this array under the same handle, written in place when nothing
    /// else reads the old one, with the work computing `values` fused into that write.
    pub fn assign_rows(&self, dim: usize, start: i64, values: &Local) -> Result<()> {
        let count = values.dims()?;
        let mut first = vec![0i64; count.len()];
        first[dim] = start;
        let stride = vec![1i64; count.len()];
        // SAFETY: the three arrays hold rank entries.
        check(unsafe { sl_assign_section(self.0, first.as_ptr(), count.as_ptr(), stride.as_ptr(), values.0) })
    }

    pub fn shift(&self, dim: usize, offset: i64, boundary: i32, fill: f64) -> Result<Local> {
        // SAFETY: plain call.
        make(|out| unsafe { sl_shift(self.0, dim as i32, offset, boundary, fill, out) })
    }

    pub fn reshape(&self, dims: &[i64]) -> Result<Local> {
        // SAFETY: `dims` holds rank entries.
        make(|out| unsafe { sl_reshape(self.0, rank_of(dims), dims.as_ptr(), out) })
    }

    pub fn broadcast_to(&self, dims: &[i64]) -> Result<Local> {
        // SAFETY: `dims` holds rank entries.
        make(|out| unsafe { sl_broadcast_to(self.0, rank_of(dims), dims.as_ptr(), out) })
    }

    pub fn take_along(&self, index: &Local, dim: usize) -> Result<Local> {
        // SAFETY: plain call; SL_INDEX_ERROR (3): every index is in range by construction.
        make(|out| unsafe { sl_take_along(self.0, index.0, dim as i32, 3, 0.0, out) })
    }

    /// `sl_reduce` along `dim`, or over everything with `None`.
    pub fn reduce(&self, op: i32, dim: Option<usize>) -> Result<Local> {
        let d = dim.map_or(SL_ALL_DIMS, |d| d as i32);
        // SAFETY: plain call.
        make(|out| unsafe { sl_reduce(op, self.0, d, out) })
    }

    /// The ascending sort's permutation along `dim`.
    pub fn argsort(&self, dim: usize) -> Result<Local> {
        // SAFETY: plain call; 0 is SL_ASCENDING.
        make(|out| unsafe { sl_argsort(self.0, dim as i32, 0, out) })
    }

    pub fn dot(&self, b: &Local) -> Result<Local> {
        // SAFETY: plain call.
        make(|out| unsafe { sl_dot(self.0, b.0, out) })
    }

    pub fn matmul(&self, b: &Local) -> Result<Local> {
        // SAFETY: plain call.
        make(|out| unsafe { sl_matmul(self.0, b.0, out) })
    }
}

/// The arrays joined along `dim` (one array is itself).
pub fn concat(parts: &[Local], dim: usize) -> Result<Local> {
    if parts.len() == 1 {
        return parts[0].retain();
    }
    let raw: Vec<sl_array> = parts.iter().map(Local::raw).collect();
    // SAFETY: `raw` holds `n` handles.
    make(|out| unsafe { sl_concat(raw.as_ptr(), raw.len() as i32, dim as i32, out) })
}

/// Blocks laid end to end along `dim` into a new array of `dtype` and `dims`, by
/// assignments into it: Sluice's `sl_concat` computes its result element by element, far
/// below memory speed (80-100 ms for 32 MB of f64 here, where scaling them takes 3-7 ms),
/// while an assignment writes in place at about a copy's speed and fuses the work
/// computing its values.
pub fn join(parts: &[&Local], dim: usize, dtype: sl_dtype, dims: &[i64]) -> Result<Local> {
    if let [one] = parts {
        return one.retain();
    }
    let out = Local::constant(dtype, dims, 0.0)?;
    let mut at = 0;
    for p in parts {
        out.assign_rows(dim, at, p)?;
        at += p.dims()?[dim];
    }
    Ok(out)
}

/// Starts computing these arrays without waiting.
pub fn eval(parts: &[&Local]) -> Result<()> {
    if parts.is_empty() {
        return Ok(());
    }
    let raw: Vec<sl_array> = parts.iter().map(|l| l.raw()).collect();
    // SAFETY: `raw` holds `n` handles.
    check(unsafe { sl_eval(raw.as_ptr(), raw.len() as i32) })
}

/// The shape of an application's handle.
pub fn dims_of(a: sl_array) -> Result<Vec<i64>> {
    let mut rank = 0;
    // SAFETY: plain calls; `dims` holds SL_MAX_RANK entries.
    check(unsafe { sl_rank(a, &mut rank) })?;
    let mut dims = [0i64; SL_MAX_RANK];
    check(unsafe { sl_shape(a, dims.as_mut_ptr(), SL_MAX_RANK as i32) })?;
    Ok(dims[..rank as usize].to_vec())
}

/// Bytes of an array of `dtype` and `dims` (checked).
pub fn byte_size(dtype: sl_dtype, dims: &[i64]) -> Result<usize> {
    let size = element_size(dtype).ok_or_else(|| Error::new(SL_ERR_INTERNAL, format!("unknown dtype {dtype}")))?;
    dims.iter().try_fold(size, |acc, &d| usize::try_from(d).ok().and_then(|d| acc.checked_mul(d))).ok_or_else(|| {
        Error::new(SL_ERR_INVALID_ARGUMENT, format!("{dims:?} elements of {} overflow", dtype_name(dtype)))
    })
}
