//! Plain-data types and constants of the C ABI.

#![allow(non_camel_case_types)]

use std::os::raw::{c_char, c_void};

/// Status of every call: `SL_OK` or an error code (details in `sl_last_error`).
pub type sl_status = i32;
pub const SL_OK: sl_status = 0;
/// A null, released (stale) or forged handle.
pub const SL_ERR_INVALID_HANDLE: sl_status = 1;
/// A bad argument: a null pointer, a negative size, an out-of-range dimension, ...
pub const SL_ERR_INVALID_ARGUMENT: sl_status = 2;
pub const SL_ERR_SHAPE_MISMATCH: sl_status = 3;
pub const SL_ERR_DTYPE_MISMATCH: sl_status = 4;
pub const SL_ERR_OUT_OF_MEMORY: sl_status = 5;
pub const SL_ERR_NOT_SUPPORTED: sl_status = 6;
/// The array depends on deferred work that failed; the message names the failure and
/// the call that created the failing op.
pub const SL_ERR_POISONED: sl_status = 7;
/// A call in a state that does not allow it (e.g. `sl_scope_end` without a scope).
pub const SL_ERR_INVALID_STATE: sl_status = 8;
/// A bug in Sluice (a caught panic); the runtime stays usable.
pub const SL_ERR_INTERNAL: sl_status = 9;
/// Result comparison found a value farther from its reference than the tolerance allows
/// (`sl_set_compare` with `SL_COMPARE_ERROR`); the message is the comparison's report.
pub const SL_ERR_MISMATCH: sl_status = 10;
/// A matrix a solve or inverse needs nonsingular has a zero pivot, or one Cholesky needs
/// positive definite is not; the message names the call, the first failing pivot or minor
/// and, in a batch, the matrices that failed. Deferred: reported where the result (or
/// anything computed from it) is read, or at the call with `SLUICE_SYNC=1`.
pub const SL_ERR_SINGULAR: sl_status = 11;

/// An opaque array handle; 0 is the null handle, which a call that returns handles leaves
/// in its out-pointer when it fails. Handles are generational and never made twice in a
/// process (not even by a new runtime after `sl_shutdown`): a released or earlier
/// runtime's handle fails with `SL_ERR_INVALID_HANDLE`, never reaching another array.
pub type sl_array = u64;

/// Element types.
pub type sl_dtype = i32;
pub const SL_F32: sl_dtype = 0;
pub const SL_F64: sl_dtype = 1;
pub const SL_I32: sl_dtype = 2;
pub const SL_I64: sl_dtype = 3;
pub const SL_U8: sl_dtype = 4;
/// One byte per element, 0 or 1.
pub const SL_BOOL: sl_dtype = 5;
/// Complex numbers of two f32, real part first: the layout of C `float _Complex`, C++
/// `std::complex<float>` and Fortran `complex(4)`.
pub const SL_C64: sl_dtype = 6;
/// Complex numbers of two f64, real part first (`double _Complex`, `complex(8)`).
pub const SL_C128: sl_dtype = 7;
/// Signed and unsigned integers of 8 to 64 bits (two's complement, little-endian);
/// arithmetic wraps around. On Vulkan, work on i8, u32 and u64 runs on the device (but
/// for their sorts, scatters and matrix products), work on i16 and u16 on the CPU.
pub const SL_I8: sl_dtype = 8;
pub const SL_I16: sl_dtype = 9;
pub const SL_U16: sl_dtype = 10;
pub const SL_U32: sl_dtype = 11;
pub const SL_U64: sl_dtype = 12;
/// IEEE binary16 and bfloat16 (the upper 16 bits of an f32), storage types: C has no
/// portable half type, so `sl_create`, `sl_read` and the like take and give the raw
/// 16-bit patterns (`uint16_t`). Every op reads them as f32, computes in f32 and rounds
/// its result once (to nearest even; sums and other reductions accumulate in f32).
/// Matrix products, factorizations, transforms and random laws other than uniform and
/// normal refuse them. On Vulkan, work on them runs on the CPU.
pub const SL_F16: sl_dtype = 13;
pub const SL_BF16: sl_dtype = 14;

/// Element order of application buffers. Sluice stores arrays column-major.
pub type sl_layout = i32;
pub const SL_COL_MAJOR: sl_layout = 0;
pub const SL_ROW_MAJOR: sl_layout = 1;

/// What `sl_gemm` does to an operand before the product.
pub type sl_transpose_op = i32;
pub const SL_NO_TRANS: sl_transpose_op = 0;
pub const SL_TRANS: sl_transpose_op = 1;
/// Transposed and conjugated (for real types the same as `SL_TRANS`).
pub const SL_CONJ_TRANS: sl_transpose_op = 2;

/// The order of a sort (`sl_sort`, `sl_argsort`): NaNs come last in both.
pub type sl_sort_order = i32;
pub const SL_ASCENDING: sl_sort_order = 0;
pub const SL_DESCENDING: sl_sort_order = 1;

/// Which place `sl_searchsorted` gives a value equal to elements of the sorted vector:
/// before them (`SL_SIDE_LEFT`) or after them (`SL_SIDE_RIGHT`).
pub type sl_side = i32;
pub const SL_SIDE_LEFT: sl_side = 0;
pub const SL_SIDE_RIGHT: sl_side = 1;

/// Which triangle of a matrix a triangular solve reads (`sl_triangular_solve`).
pub type sl_uplo = i32;
pub const SL_LOWER: sl_uplo = 0;
pub const SL_UPPER: sl_uplo = 1;

/// Whether a triangular matrix's diagonal is read or taken as ones (`sl_triangular_solve`).
pub type sl_diag = i32;
pub const SL_NON_UNIT_DIAG: sl_diag = 0;
pub const SL_UNIT_DIAG: sl_diag = 1;

/// What `sl_qr` gives, as numpy's `qr` modes: Q (m x k) and R (k x n) with k = min(m, n);
/// Q (m x m) and R (m x n); or R (k x n) alone.
pub type sl_qr_mode = i32;
pub const SL_QR_REDUCED: sl_qr_mode = 0;
pub const SL_QR_COMPLETE: sl_qr_mode = 1;
pub const SL_QR_R: sl_qr_mode = 2;

/// Pass as `dim` to a reduction to reduce over every element.
pub const SL_ALL_DIMS: i32 = -1;
/// The largest rank of an array.
pub const SL_MAX_RANK: i32 = 8;
/// The most elements an array's shape may span (2^60 - 1): a shape whose nonzero sizes
/// multiply to more, given or made by a call (broadcast, tile, pad, concat, ...), is
/// refused with `SL_ERR_INVALID_ARGUMENT`. Then every byte size, offset and stride fits 63
/// bits, whatever the element type.
pub const SL_MAX_ELEMENTS: i64 = 1_152_921_504_606_846_975;

/// The function `sl_apply_elements` and `sl_apply_blocks` apply. It is called once per
/// recording, with `pieces`: placeholder arrays shaped like one piece of each of the
/// `n_in` inputs (a rank-0 array for an element, a block for a block), which stand for
/// every piece; it makes Sluice calls on them and stores the handles of its `n_out`
/// results in `outputs`. It returns `SL_OK`, or the status of a call that failed. The
/// rules of a macro section hold: no reads, writes, `sl_eval` or `sl_sync`, and no
/// arrays but the pieces and what is computed from them. `user` is the call's.
pub type sl_apply_fn = Option<
    unsafe extern "C" fn(
        pieces: *const sl_array,
        n_in: i32,
        outputs: *mut sl_array,
        n_out: i32,
        user: *mut c_void,
    ) -> sl_status,
>;

/// `sl_block_options.dim`: the last dimension of the inputs' aggregate size longer than
/// 1 (dimension 0 when none is).
pub const SL_DIM_AUTO: i32 = -1;

/// How `sl_apply_blocks` makes an output from the blocks' results.
pub type sl_block_output_kind = i32;
/// The blocks' results concatenated into the inputs' aggregate size.
pub const SL_OUTPUT_AGGREGATE: sl_block_output_kind = 0;
/// One slice per block: each block gives the aggregate size with 1 along the slicing
/// dimension; the output has the number of blocks there.
pub const SL_OUTPUT_SLICE: sl_block_output_kind = 1;
/// One value per block: the output is a 1 x blocks row.
pub const SL_OUTPUT_SCALAR: sl_block_output_kind = 2;
/// The blocks' results concatenated into `dims[..rank]`.
pub const SL_OUTPUT_SIZE: sl_block_output_kind = 3;

/// What one output of `sl_apply_blocks` is. Every block gives a result of the same
/// shape; "concatenated" means: along the one dimension where the output's size differs
/// from a block's result, in block order, with what the last block gives past the size
/// (from its padding) dropped.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct sl_block_output {
    pub kind: sl_block_output_kind,
    /// For `SL_OUTPUT_SIZE`: the output's size.
    pub rank: i32,
    pub dims: [i64; 8],
}

/// How `sl_apply_blocks` cuts its inputs; start from `sl_block_options_default`.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct sl_block_options {
    /// The slicing dimension (0-based), or `SL_DIM_AUTO`.
    pub dim: i32,
    /// Elements per block along it (default 1); the last block may have fewer, and is
    /// padded to this size.
    pub block_size: i64,
    /// Neighbouring elements each block also sees before and after itself (default 0;
    /// at most the array's size along the dimension).
    pub overlap_before: i64,
    pub overlap_after: i64,
    /// What a block sees outside the array (the overlap at the ends, the last block's
    /// padding): `SL_BOUNDARY_FILL` with `pad` (default, 0), `SL_BOUNDARY_CLAMP` (the
    /// edge element) or `SL_BOUNDARY_WRAP` (cyclic).
    pub boundary: sl_boundary,
    pub pad: f64,
    /// `n_outputs` descriptors, one per output; NULL: every output is
    /// `SL_OUTPUT_AGGREGATE`.
    pub outputs: *const sl_block_output,
    pub n_outputs: i32,
    /// Values the function's calls depend on besides its pieces (as `sl_macro_begin`'s
    /// controls): each combination is recorded once.
    pub controls: *const f64,
    pub n_controls: i32,
}

/// Unary element-wise operations (`sl_unary`).
pub type sl_unary_op = i32;
pub const SL_NEG: sl_unary_op = 0;
pub const SL_ABS: sl_unary_op = 1;
pub const SL_SIGN: sl_unary_op = 2;
pub const SL_SQRT: sl_unary_op = 3;
pub const SL_RSQRT: sl_unary_op = 4;
pub const SL_CBRT: sl_unary_op = 5;
pub const SL_RCP: sl_unary_op = 6;
pub const SL_EXP: sl_unary_op = 7;
pub const SL_EXP2: sl_unary_op = 8;
pub const SL_EXPM1: sl_unary_op = 9;
pub const SL_LOG: sl_unary_op = 10;
pub const SL_LOG2: sl_unary_op = 11;
pub const SL_LOG10: sl_unary_op = 12;
pub const SL_LOG1P: sl_unary_op = 13;
pub const SL_SIN: sl_unary_op = 14;
pub const SL_COS: sl_unary_op = 15;
pub const SL_TAN: sl_unary_op = 16;
pub const SL_ASIN: sl_unary_op = 17;
pub const SL_ACOS: sl_unary_op = 18;
pub const SL_ATAN: sl_unary_op = 19;
pub const SL_SINH: sl_unary_op = 20;
pub const SL_COSH: sl_unary_op = 21;
pub const SL_TANH: sl_unary_op = 22;
pub const SL_ASINH: sl_unary_op = 23;
pub const SL_ACOSH: sl_unary_op = 24;
pub const SL_ATANH: sl_unary_op = 25;
pub const SL_ERF: sl_unary_op = 26;
pub const SL_FLOOR: sl_unary_op = 27;
pub const SL_CEIL: sl_unary_op = 28;
/// Rounds halfway cases away from zero (C `round`).
pub const SL_ROUND: sl_unary_op = 29;
pub const SL_TRUNC: sl_unary_op = 30;
pub const SL_ISNAN: sl_unary_op = 31;
pub const SL_ISINF: sl_unary_op = 32;
/// Logical not of bool, bitwise not of integers.
pub const SL_NOT: sl_unary_op = 33;
/// Complex conjugate (real arrays: themselves).
pub const SL_CONJ: sl_unary_op = 34;
/// Real part, of the parts' type (real arrays: themselves).
pub const SL_REAL: sl_unary_op = 35;
/// Imaginary part, of the parts' type (real arrays: zeros).
pub const SL_IMAG: sl_unary_op = 36;
/// Argument (phase angle) in [-pi, pi], `atan2(imag, real)`.
pub const SL_ARG: sl_unary_op = 37;
/// Neither NaN nor infinite (complex: both parts).
pub const SL_ISFINITE: sl_unary_op = 38;
/// Complementary error function, `1 - erf(x)` without its cancellation.
pub const SL_ERFC: sl_unary_op = 39;
/// Inverse error function: NaN outside [-1, 1], ±inf at ±1.
pub const SL_ERFINV: sl_unary_op = 40;
/// `log |Γ(x)|` (C `lgamma`): +inf at 0 and the negative integers.
pub const SL_LGAMMA: sl_unary_op = 41;
/// The gamma function (C `tgamma`): ±inf at ±0, NaN at the negative integers.
pub const SL_TGAMMA: sl_unary_op = 42;

/// Binary element-wise operations (`sl_binary`).
pub type sl_binary_op = i32;
pub const SL_ADD: sl_binary_op = 0;
pub const SL_SUB: sl_binary_op = 1;
pub const SL_MUL: sl_binary_op = 2;
/// Integer division truncates toward zero; for integers x / 0 is 0, and the smallest
/// value divided by -1 wraps to itself (`INT_MIN / -1 == INT_MIN`).
pub const SL_DIV: sl_binary_op = 3;
/// Remainder with the sign of the dividend (C `fmod`, `%`); for integers x % 0 is 0 and
/// `INT_MIN % -1` is 0.
pub const SL_REM: sl_binary_op = 4;
/// Floats: C `pow`. Integers: exact powers that wrap like multiplication; a negative
/// exponent gives the integer part of the true power: 1 for base 1, 1 or -1 for base -1
/// (even or odd exponent), 0 for every other base, 0 included.
pub const SL_POW: sl_binary_op = 5;
pub const SL_ATAN2: sl_binary_op = 6;
pub const SL_HYPOT: sl_binary_op = 7;
/// Minimum; NaN if either operand is NaN.
pub const SL_MIN: sl_binary_op = 8;
/// Maximum; NaN if either operand is NaN.
pub const SL_MAX: sl_binary_op = 9;
pub const SL_EQ: sl_binary_op = 10;
pub const SL_NE: sl_binary_op = 11;
pub const SL_LT: sl_binary_op = 12;
pub const SL_LE: sl_binary_op = 13;
pub const SL_GT: sl_binary_op = 14;
pub const SL_GE: sl_binary_op = 15;
/// Logical on bool, bitwise on integers.
pub const SL_AND: sl_binary_op = 16;
pub const SL_OR: sl_binary_op = 17;
pub const SL_XOR: sl_binary_op = 18;
/// The complex number `a + i b` from two f32 arrays (c64) or two f64 arrays (c128).
pub const SL_COMPLEX: sl_binary_op = 19;
/// Integer `a << b`. A count outside `0 .. bits of the type` (negative, or the width or
/// more) shifts every bit out: the result is 0.
pub const SL_SHL: sl_binary_op = 20;
/// Integer `a >> b`: arithmetic (sign-filling) for signed types, logical for unsigned ones.
/// A count outside `0 .. bits` shifts every bit out: -1 for a negative signed `a`, else 0.
pub const SL_SHR: sl_binary_op = 21;
/// The magnitude of `a` with the sign bit of `b` (C `copysign`; floats).
pub const SL_COPYSIGN: sl_binary_op = 22;
/// The next representable value after `a` toward `b` (C `nextafter`; floats): `b` when
/// they are equal, NaN when either is NaN; subnormals are stepped through, not flushed.
pub const SL_NEXTAFTER: sl_binary_op = 23;

/// Reductions (`sl_reduce`). A reduction of no elements (an empty array, or a dimension
/// of size 0) gives the value noted with each op.
pub type sl_reduce_op = i32;
/// Integer sums and products accumulate in i64 (wrapping) and return i64; float ones in
/// f64, returned in the input type. Of nothing: 0.
pub const SL_SUM: sl_reduce_op = 0;
/// Of nothing: 1.
pub const SL_PROD: sl_reduce_op = 1;
/// Smallest element; NaN if any element is NaN (the first NaN). Of nothing: +inf for
/// floats, the type's largest value for integers, true for bool.
pub const SL_MINVAL: sl_reduce_op = 2;
/// Largest element; NaN if any element is NaN (the first NaN). Of nothing: -inf for
/// floats, the type's smallest value for integers (0 for u8), false for bool.
pub const SL_MAXVAL: sl_reduce_op = 3;
/// f32 for f32 input, f64 otherwise. Of nothing: NaN.
pub const SL_MEAN: sl_reduce_op = 4;
/// Whether any element is nonzero (bool). Of nothing: false.
pub const SL_ANY: sl_reduce_op = 5;
/// Whether every element is nonzero (bool). Of nothing: true.
pub const SL_ALL: sl_reduce_op = 6;
/// Number of nonzero elements (i64). Of nothing: 0.
pub const SL_COUNT: sl_reduce_op = 7;
/// Index (i64) of the first smallest element along the dimension (column-major linear
/// index when reducing everything); a NaN counts as smallest, so the first NaN's index
/// when there is one. Of nothing: -1.
pub const SL_ARGMIN: sl_reduce_op = 8;
/// Index (i64) of the first largest element, as `SL_ARGMIN`: a NaN counts as largest too
/// (the first NaN's index), and of nothing: -1.
pub const SL_ARGMAX: sl_reduce_op = 9;
/// The sum of the elements that are not NaN (integers: `SL_SUM`). Of nothing: 0.
pub const SL_NANSUM: sl_reduce_op = 10;
/// The mean of the elements that are not NaN (integers: `SL_MEAN`); NaN where every
/// element is NaN. Of nothing: NaN.
pub const SL_NANMEAN: sl_reduce_op = 11;
/// The smallest element that is not NaN; NaN where every element is NaN. Of nothing: as
/// `SL_MINVAL`. Not for complex arrays.
pub const SL_NANMIN: sl_reduce_op = 12;
/// The largest element that is not NaN; NaN where every element is NaN. Of nothing: as
/// `SL_MAXVAL`. Not for complex arrays.
pub const SL_NANMAX: sl_reduce_op = 13;
/// The 1-norm, the sum of |x| (float; integers give f64, complex the real type). Of
/// nothing: 0.
pub const SL_NORM1: sl_reduce_op = 14;
/// The 2-norm, sqrt of the sum of |x|^2, scaled by the largest |x| as BLAS nrm2 is so
/// that no square overflows or underflows (the Frobenius norm of a matrix reduced over
/// both dimensions); types as `SL_NORM1`. Of nothing: 0.
pub const SL_NORM2: sl_reduce_op = 15;
/// The largest |x| (NaN if any is NaN); types as `SL_NORM1`. Of nothing: 0.
pub const SL_NORMINF: sl_reduce_op = 16;

/// Scans (`sl_scan`, `sl_scan_dims`).
pub type sl_scan_op = i32;
/// Running sum: integers accumulate in i64 (wrapping) and return i64, floats in f64,
/// returned in the input type.
pub const SL_SCAN_SUM: sl_scan_op = 0;
/// Running product, typed as `SL_SCAN_SUM`.
pub const SL_SCAN_PROD: sl_scan_op = 1;
/// Running maximum in the input's type; from the first NaN on, NaN. Not for complex.
pub const SL_SCAN_MAX: sl_scan_op = 2;
/// Running minimum, as `SL_SCAN_MAX`.
pub const SL_SCAN_MIN: sl_scan_op = 3;
/// Running and of `x != 0` (bool).
pub const SL_SCAN_AND: sl_scan_op = 4;
/// Running or of `x != 0` (bool).
pub const SL_SCAN_OR: sl_scan_op = 5;

/// What views yield outside their source (`sl_shift`, `sl_pad`).
pub type sl_boundary = i32;
/// A fill value.
pub const SL_BOUNDARY_FILL: sl_boundary = 0;
/// The nearest edge element.
pub const SL_BOUNDARY_CLAMP: sl_boundary = 1;
/// Cyclic.
pub const SL_BOUNDARY_WRAP: sl_boundary = 2;

/// How `sl_meshgrid` lays out its grid.
pub type sl_indexing = i32;
/// Matrix indexing: output dimension d follows vector d.
pub const SL_INDEXING_IJ: sl_indexing = 0;
/// Cartesian indexing (numpy's and MATLAB's default): the first two vectors swap places,
/// so x varies along the second dimension and y along the first.
pub const SL_INDEXING_XY: sl_indexing = 1;
/// What an index outside its dimension reads (`sl_gather_with`, `sl_take_along`,
/// `sl_interp1`, `sl_interp2`).
pub type sl_index_policy = i32;
/// The nearest edge element (what `sl_gather` does).
pub const SL_INDEX_CLAMP: sl_index_policy = 0;
/// The element at the index modulo the dimension's length, as a periodic array.
pub const SL_INDEX_WRAP: sl_index_policy = 1;
/// The call's fill value instead of an element.
pub const SL_INDEX_FILL: sl_index_policy = 2;
/// No value: the result is poisoned, and reading it (or anything computed from it) fails
/// with `SL_ERR_POISONED` and a message naming the first out-of-range index (column-major)
/// and its position. Other work is not affected.
pub const SL_INDEX_ERROR: sl_index_policy = 3;

/// How `sl_scatter` combines values that land on the same element.
pub type sl_scatter_mode = i32;
/// The value from the highest source position (column-major) wins.
pub const SL_SCATTER_REPLACE: sl_scatter_mode = 0;
/// The sum of the element and every value landing on it. Integer sums do not depend on the
/// order; float sums on the CPU executor add in source order (column-major), while a Vulkan
/// device adds colliding values as they arrive, so the last bits may differ between runs.
pub const SL_SCATTER_ADD: sl_scatter_mode = 1;
/// The smallest of the element and the values landing on it (for bool: "and").
pub const SL_SCATTER_MIN: sl_scatter_mode = 2;
/// The largest of the element and the values landing on it (for bool: "or").
pub const SL_SCATTER_MAX: sl_scatter_mode = 3;

/// Which direction of a Fourier transform (`sl_fft` and friends) is scaled. `n` is the
/// number of points transformed: the product of the transformed dimensions' lengths (for
/// `sl_rfft` and `sl_irfft`, the real array's).
pub type sl_fft_norm = i32;
/// Forward transforms unscaled, inverse ones scaled by 1/n (numpy's default).
pub const SL_FFT_BACKWARD: sl_fft_norm = 0;
/// Both directions scaled by 1/sqrt(n), so the transform is unitary.
pub const SL_FFT_ORTHO: sl_fft_norm = 1;
/// Forward transforms scaled by 1/n, inverse ones unscaled.
pub const SL_FFT_FORWARD: sl_fft_norm = 2;

/// Details of the last failed call on this thread. Strings stay valid until the next
/// failing call on the same thread.
#[repr(C)]
pub struct sl_error_info {
    pub status: sl_status,
    /// What went wrong.
    pub message: *const c_char,
    /// The Sluice function that failed, e.g. "sl_add".
    pub function: *const c_char,
    /// The application's return address of that call (0 if unknown).
    pub call_pc: usize,
    /// Source file and line of that call when the application has debug information,
    /// else NULL and 0.
    pub call_file: *const c_char,
    pub call_line: i32,
    /// For `SL_ERR_POISONED` and deferred failures: the function that created the op
    /// whose computation failed, with its call site; otherwise NULL / 0.
    pub origin_function: *const c_char,
    pub origin_pc: usize,
    pub origin_file: *const c_char,
    pub origin_line: i32,
}

/// Called for every failing call, newest handler first, before the call returns its
/// status. Return nonzero to stop older handlers from being called. A handler must
/// return (it may also end the process); it must not unwind or longjmp across Sluice.
pub type sl_error_handler =
    Option<extern "C" fn(status: sl_status, info: *const sl_error_info, user: *mut c_void) -> i32>;

/// Settings for `sl_init`; start from `sl_config_default`. Zero or negative fields mean
/// "the default" (which environment variables may set).
#[repr(C)]
pub struct sl_config {
    /// CPU worker threads (`SLUICE_THREADS`; default: all cores).
    pub threads: i32,
    /// Most bytes of array memory in use (`SLUICE_MEMORY_LIMIT`; default: no limit).
    pub memory_limit: u64,
    /// 1: fuse ops into kernels (default); 0: evaluate op by op (`SLUICE_FUSION`).
    pub fusion: i32,
    /// Queued ops before the queue flushes by itself (`SLUICE_QUEUE_LIMIT`).
    pub queue_limit: i32,
    /// Flush recipes the trace cache keeps; 0 turns it off, negative means the default
    /// (`SLUICE_TRACE_CACHE_ENTRIES`).
    pub trace_cache_entries: i32,
    /// Recorded macro sections kept; 0 keeps none (every section records), negative means
    /// the default (`SLUICE_MACRO_CACHE_ENTRIES`).
    pub macro_cache_entries: i32,
    /// Which executor runs kernels: `SL_BACKEND_CPU`, `SL_BACKEND_VULKAN` or
    /// `SL_BACKEND_AUTO` (`SLUICE_BACKEND`; default: auto).
    pub backend: sl_backend,
}

/// Executor choice for `sl_config.backend` (0 keeps the default).
pub type sl_backend = i32;
pub const SL_BACKEND_DEFAULT: sl_backend = 0;
/// The native multithreaded CPU executor.
pub const SL_BACKEND_CPU: sl_backend = 1;
/// A Vulkan device (any type, including CPU implementations such as lavapipe).
pub const SL_BACKEND_VULKAN: sl_backend = 2;
/// A discrete or integrated GPU through Vulkan if there is one, else the CPU executor.
pub const SL_BACKEND_AUTO: sl_backend = 3;

/// Kind of device that runs kernels (`sl_device_info.device_type`).
pub type sl_device_type = i32;
/// The native CPU executor.
pub const SL_DEVICE_HOST: sl_device_type = 0;
pub const SL_DEVICE_DISCRETE_GPU: sl_device_type = 1;
pub const SL_DEVICE_INTEGRATED_GPU: sl_device_type = 2;
pub const SL_DEVICE_VIRTUAL_GPU: sl_device_type = 3;
/// A Vulkan implementation running on the CPU (e.g. lavapipe).
pub const SL_DEVICE_VULKAN_CPU: sl_device_type = 4;
pub const SL_DEVICE_OTHER: sl_device_type = 5;

/// What runs kernels, and why it was chosen (`sl_get_device_info`). Strings are
/// NUL-terminated and truncated to fit.
#[repr(C)]
pub struct sl_device_info {
    /// `SL_BACKEND_CPU` or `SL_BACKEND_VULKAN`.
    pub backend: sl_backend,
    pub device_type: sl_device_type,
    /// 1 when the device computes in 64-bit floats itself (else f64 work runs on the CPU).
    pub float64: i32,
    /// Device name, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)" or the CPU executor's.
    pub name: [c_char; 256],
    /// Why this executor was chosen (and why others were not).
    pub reason: [c_char; 512],
}

/// Counters since the runtime started (`sl_get_stats`).
#[repr(C)]
pub struct sl_stats {
    /// Flushes that turned pending ops into work.
    pub flushes: u64,
    /// Program sequences run, and how many of those ran on the reading thread.
    pub sequences: u64,
    pub inline_sequences: u64,
    /// Fused kernels and intrinsic steps (matmul, scatter) run.
    pub kernels: u64,
    pub intrinsics: u64,
    /// Steps whose results failed (and were poisoned).
    pub failed_steps: u64,
    /// Steps the Vulkan executor ran on the CPU because the device cannot (f64 without
    /// shaderFloat64, operands beyond its limits, ...; README "Vulkan").
    pub host_steps: u64,
    /// Array buffers allocated in host memory (fresh or reused), bytes in use now and at
    /// most.
    pub allocations: u64,
    pub live_bytes: u64,
    pub peak_live_bytes: u64,
    /// Handles the application holds.
    pub live_handles: u64,
    /// The same for device memory (the Vulkan executor's arrays and kernels' scratch
    /// buffers; 0 on the CPU executor).
    pub device_allocations: u64,
    pub device_live_bytes: u64,
    pub device_peak_live_bytes: u64,
    /// Pieces `sl_apply_elements` and `sl_apply_blocks` computed one at a time: a call
    /// of the function with no batched form runs once per piece (README "Applying a
    /// function to pieces"); 0 when every apply ran as batched kernels.
    pub looped_pieces: u64,
}

/// The caches whose counters `sl_get_cache_stats` reports.
pub type sl_cache = i32;
/// Recipes of earlier flushes, replayed when the same sequence of ops is flushed again.
pub const SL_CACHE_TRACE: sl_cache = 0;
/// Recorded macro sections (`sl_macro_begin`).
pub const SL_CACHE_MACRO: sl_cache = 1;
/// Compiled device programs kept in memory (Vulkan pipelines; least recently used evicted
/// beyond `SLUICE_PIPELINE_CACHE_ENTRIES`, and made again from the disk cache when next
/// needed). Every launch counts a lookup. All counters are 0 on the CPU executor.
pub const SL_CACHE_PROGRAM: sl_cache = 2;

/// How `sl_macro_begin` starts a section.
pub type sl_macro_mode = i32;
/// First time for this key: run the section's calls; `sl_macro_end` records them.
pub const SL_MACRO_RECORD: sl_macro_mode = 0;
/// Recorded before: skip the section; the outputs are already filled in.
pub const SL_MACRO_REPLAY: sl_macro_mode = 1;

/// Counters of one cache since the runtime started (`sl_get_cache_stats`).
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct sl_cache_stats {
    pub lookups: u64,
    pub hits: u64,
    pub misses: u64,
    pub evictions: u64,
    /// Entries held now.
    pub entries: u64,
    /// Planning and compiling time the hits skipped, in nanoseconds (what building each
    /// hit entry took when it was first made; trace cache only).
    pub saved_ns: u64,
    /// What the hits took instead, in nanoseconds: keying the flush and finding its entry,
    /// plus binding the entry to the flush's arrays where the flush is handed to the
    /// execution thread (a small read run on the reading thread binds as it runs; trace
    /// cache only).
    pub hit_ns: u64,
}

/// A random number generator object (`sl_rng_create`). Generational like `sl_array`: a
/// destroyed generator's id, or one from before `sl_shutdown`, fails with
/// `SL_ERR_INVALID_HANDLE` and never reaches another generator; an array handle is not a
/// generator, nor the reverse.
pub type sl_rng = u64;

/// Bit generators. Both are counter-based: element i of draw d is a function of the seed,
/// d and i only, identical on every executor.
pub type sl_rng_kind = i32;
/// Philox4x32-10: long period (2^128 counters per seed), passes BigCrush.
pub const SL_RNG_PHILOX: sl_rng_kind = 0;
/// A 32-bit hash: cheaper, but a draw's stream repeats after 2^32 elements; for
/// simulations that need speed more than statistical quality.
pub const SL_RNG_FAST: sl_rng_kind = 1;
/// Threefry4x32-20 (Random123's definition): like Philox, 2^128 counters per seed and
/// passes BigCrush; adds, rotations and XORs only, no multiplies.
pub const SL_RNG_THREEFRY: sl_rng_kind = 2;

/// How `sl_random_sobol` scrambles its points' digits (each keeps the net property).
pub type sl_sobol_scramble = i32;
/// The sequence itself.
pub const SL_SOBOL_PLAIN: sl_sobol_scramble = 0;
/// A random digital shift: each dimension's digits XOR a word of the seed.
pub const SL_SOBOL_SHIFT: sl_sobol_scramble = 1;
/// Owen-style nested scrambling (Burley's hash-based Laine-Karras permutation): each
/// digit flipped by a random function of the digits before it, per dimension.
pub const SL_SOBOL_OWEN: sl_sobol_scramble = 2;
/// The most dimensions `sl_random_sobol` gives (Joe and Kuo's direction numbers).
pub const SL_SOBOL_MAX_DIMS: i64 = 21201;

/// Result-comparison modes (`sl_compare_settings.mode`, `SLUICE_COMPARE`).
pub type sl_compare_mode = i32;
pub const SL_COMPARE_OFF: sl_compare_mode = 0;
/// Every op's value is compared with its reference as soon as it is computed.
pub const SL_COMPARE_COMPUTE: sl_compare_mode = 1;
/// Values are compared when the application reads them.
pub const SL_COMPARE_COPYOUT: sl_compare_mode = 2;

/// What a difference beyond tolerance does (`SLUICE_COMPARE_ACTION`).
pub type sl_compare_action = i32;
/// Print the report to stderr and go on.
pub const SL_COMPARE_REPORT: sl_compare_action = 0;
/// Fail with `SL_ERR_MISMATCH`: the read itself (copyout), or every later use of the
/// value (compute).
pub const SL_COMPARE_ERROR: sl_compare_action = 1;
/// Print the report and abort the process.
pub const SL_COMPARE_ABORT: sl_compare_action = 2;

/// Result comparison: a reference run (op by op, in f64 on the CPU) beside the optimised
/// one. An element passes when `|computed - reference| <= abs_tol + rel_tol * |reference|`.
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct sl_compare_settings {
    pub mode: sl_compare_mode,
    pub action: sl_compare_action,
    /// Negative: the default for the result's type (f32: 1e-5, f64: 1e-12, integers: 0).
    pub abs_tol: f64,
    /// Negative: the default for the result's type (f32: 1e-5, f64: 1e-12, integers: 0).
    pub rel_tol: f64,
}

/// What result comparison has compared since the process started.
#[repr(C)]
#[derive(Copy, Clone, Debug)]
pub struct sl_compare_stats {
    pub values_checked: u64,
    pub mismatches: u64,
}
