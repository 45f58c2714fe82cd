! Sluice for Fortran: module `sluice`, over the C API of include/sluice.h.
!
! Two layers:
! - the raw C API: every sl_* function as a bind(C) interface under its C name, handles as
!   integer(c_int64_t), statuses as integer(c_int), and the header's constants as parameters.
!   Op codes are renamed SL_UNARY_*, SL_BINARY_* and SL_REDUCE_* (SL_SIN would be the same
!   Fortran name as the function sl_sin, since Fortran names ignore case).
! - a Fortran layer: type(sl_array), constructors from Fortran arrays, assignment back to
!   them, operators, and the array intrinsics (sum, matmul, cshift, ...) under their Fortran
!   names, with Fortran conventions: dimensions, indices and positions count from 1; then
!   Sluice's own functions, code reuse sections (macro_begin/macro_end) and random arrays.
!
! Lifetimes: every array an expression creates belongs to the innermost Sluice scope of the
! thread (scope_begin ... scope_end); nothing relies on finalisation. Keep an array past its
! scope with keep, or replace a loop variable with update. An sl_array variable is a plain
! handle: copying the variable does not copy the array nor give it a second handle (retain
! does).
!
! Errors: procedures with an optional `stat` argument return the status there (SL_OK or an
! SL_ERR_* code; error_message() gives the detail); without it, and in operators and
! assignments, a failure prints its message and stops the program with `error stop`.
!
! The module is shipped as source, to be compiled by the application's own compiler: with
! CMake, enable Fortran, find_package(Sluice CONFIG REQUIRED COMPONENTS Fortran) and link
! Sluice::fortran.
module sluice
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none
  private

  ! ---------------------------------------------------------------------------------------
  ! The constants of sluice.h (tests/fortran/check_interfaces.sh compares them).
  integer(c_int32_t), parameter, public :: SL_VERSION_MAJOR = 0, SL_VERSION_MINOR = 1, SL_VERSION_PATCH = 0
  integer(c_int32_t), parameter, public :: SL_ALL_DIMS = -1, SL_MAX_RANK = 8
  ! The most elements a shape may span (2**60 - 1); larger shapes are refused.
  integer(c_int64_t), parameter, public :: SL_MAX_ELEMENTS = 1152921504606846975_c_int64_t
  integer(c_int), parameter, public :: SL_OK = 0, SL_ERR_INVALID_HANDLE = 1, SL_ERR_INVALID_ARGUMENT = 2, &
    SL_ERR_SHAPE_MISMATCH = 3, SL_ERR_DTYPE_MISMATCH = 4, SL_ERR_OUT_OF_MEMORY = 5, SL_ERR_NOT_SUPPORTED = 6, &
    SL_ERR_POISONED = 7, SL_ERR_INVALID_STATE = 8, SL_ERR_INTERNAL = 9, SL_ERR_MISMATCH = 10, &
    SL_ERR_SINGULAR = 11
  ! Element types (sl_dtype).
  ! Fortran has no unsigned integers: sl_array(x) and get take integer(1), (2), (4) and (8)
  ! as SL_I8 .. SL_I64; SL_U8 .. SL_U64 arrays are read into them converted as sl_cast does
  ! (wrapping), or through the C API. gfortran has no real(2): an f16 array is made from a
  ! real(4) or real(8) one by real(a, kind=2) (a bf16 one by sl_cast(a%handle, SL_BF16, h)),
  ! and read back through real(a) (real(4)).
  integer(c_int32_t), parameter, public :: SL_F32 = 0, SL_F64 = 1, SL_I32 = 2, SL_I64 = 3, SL_U8 = 4, SL_BOOL = 5, &
    SL_C64 = 6, SL_C128 = 7, SL_I8 = 8, SL_I16 = 9, SL_U16 = 10, SL_U32 = 11, SL_U64 = 12, SL_F16 = 13, SL_BF16 = 14
  ! Layouts of application buffers (sl_layout).
  integer(c_int32_t), parameter, public :: SL_COL_MAJOR = 0, SL_ROW_MAJOR = 1
  ! What gemm does to an operand first.
  integer(c_int32_t), parameter, public :: SL_NO_TRANS = 0, SL_TRANS = 1, SL_CONJ_TRANS = 2
  ! Which triangle a triangular solve reads (sl_uplo), and its diagonal (sl_diag).
  integer(c_int32_t), parameter, public :: SL_LOWER = 0, SL_UPPER = 1, SL_NON_UNIT_DIAG = 0, SL_UNIT_DIAG = 1
  ! The order of a sort (sl_sort_order) and the side searchsorted takes (sl_side).
  integer(c_int32_t), parameter, public :: SL_ASCENDING = 0, SL_DESCENDING = 1, SL_SIDE_LEFT = 0, SL_SIDE_RIGHT = 1
  integer(c_int32_t), parameter, public :: SL_QR_REDUCED = 0, SL_QR_COMPLETE = 1, SL_QR_R = 2
  ! Unary op codes (sl_unary_op; C names SL_NEG, ...).
  integer(c_int32_t), parameter, public :: SL_UNARY_NEG = 0, SL_UNARY_ABS = 1, SL_UNARY_SIGN = 2, &
    SL_UNARY_SQRT = 3, SL_UNARY_RSQRT = 4, SL_UNARY_CBRT = 5, SL_UNARY_RCP = 6, SL_UNARY_EXP = 7, &
    SL_UNARY_EXP2 = 8, SL_UNARY_EXPM1 = 9, SL_UNARY_LOG = 10, SL_UNARY_LOG2 = 11, SL_UNARY_LOG10 = 12, &
    SL_UNARY_LOG1P = 13, SL_UNARY_SIN = 14, SL_UNARY_COS = 15, SL_UNARY_TAN = 16, SL_UNARY_ASIN = 17, &
    SL_UNARY_ACOS = 18, SL_UNARY_ATAN = 19, SL_UNARY_SINH = 20, SL_UNARY_COSH = 21, SL_UNARY_TANH = 22, &
    SL_UNARY_ASINH = 23, SL_UNARY_ACOSH = 24, SL_UNARY_ATANH = 25, SL_UNARY_ERF = 26, SL_UNARY_FLOOR = 27, &
    SL_UNARY_CEIL = 28, SL_UNARY_ROUND = 29, SL_UNARY_TRUNC = 30, SL_UNARY_ISNAN = 31, SL_UNARY_ISINF = 32, &
    SL_UNARY_NOT = 33, SL_UNARY_CONJ = 34, SL_UNARY_REAL = 35, SL_UNARY_IMAG = 36, SL_UNARY_ARG = 37, &
    SL_UNARY_ISFINITE = 38, SL_UNARY_ERFC = 39, SL_UNARY_ERFINV = 40, SL_UNARY_LGAMMA = 41, SL_UNARY_TGAMMA = 42
  ! Binary op codes (sl_binary_op; C names SL_ADD, ...).
  integer(c_int32_t), parameter, public :: SL_BINARY_ADD = 0, SL_BINARY_SUB = 1, SL_BINARY_MUL = 2, &
    SL_BINARY_DIV = 3, SL_BINARY_REM = 4, SL_BINARY_POW = 5, SL_BINARY_ATAN2 = 6, SL_BINARY_HYPOT = 7, &
    SL_BINARY_MIN = 8, SL_BINARY_MAX = 9, SL_BINARY_EQ = 10, SL_BINARY_NE = 11, SL_BINARY_LT = 12, &
    SL_BINARY_LE = 13, SL_BINARY_GT = 14, SL_BINARY_GE = 15, SL_BINARY_AND = 16, SL_BINARY_OR = 17, &
    SL_BINARY_XOR = 18, SL_BINARY_COMPLEX = 19, SL_BINARY_SHL = 20, SL_BINARY_SHR = 21, SL_BINARY_COPYSIGN = 22, &
    SL_BINARY_NEXTAFTER = 23
  ! How meshgrid lays out its grid (sl_indexing).
  integer(c_int32_t), parameter, public :: SL_INDEXING_IJ = 0, SL_INDEXING_XY = 1
  ! Reduction op codes (sl_reduce_op; C names SL_SUM, ...).
  integer(c_int32_t), parameter, public :: SL_REDUCE_SUM = 0, SL_REDUCE_PROD = 1, SL_REDUCE_MINVAL = 2, &
    SL_REDUCE_MAXVAL = 3, SL_REDUCE_MEAN = 4, SL_REDUCE_ANY = 5, SL_REDUCE_ALL = 6, SL_REDUCE_COUNT = 7, &
    SL_REDUCE_ARGMIN = 8, SL_REDUCE_ARGMAX = 9, SL_NANSUM = 10, SL_NANMEAN = 11, SL_NANMIN = 12, &
    SL_NANMAX = 13, SL_NORM1 = 14, SL_NORM2 = 15, SL_NORMINF = 16
  ! Scan op codes (sl_scan_op).
  integer(c_int32_t), parameter, public :: SL_SCAN_SUM = 0, SL_SCAN_PROD = 1, SL_SCAN_MAX = 2, SL_SCAN_MIN = 3, &
    SL_SCAN_AND = 4, SL_SCAN_OR = 5
  ! What views yield outside their source (sl_boundary), and how scatter combines (sl_scatter_mode).
  integer(c_int32_t), parameter, public :: SL_BOUNDARY_FILL = 0, SL_BOUNDARY_CLAMP = 1, SL_BOUNDARY_WRAP = 2
  ! Which direction of a Fourier transform is scaled (sl_fft_norm).
  integer(c_int32_t), parameter, public :: SL_FFT_BACKWARD = 0, SL_FFT_ORTHO = 1, SL_FFT_FORWARD = 2
  integer(c_int32_t), parameter, public :: SL_SCATTER_REPLACE = 0, SL_SCATTER_ADD = 1, SL_SCATTER_MIN = 2, &
    SL_SCATTER_MAX = 3
  ! What an index out of range reads in gather, take_along, interp1 and interp2 (sl_index_policy).
  integer(c_int32_t), parameter, public :: SL_INDEX_CLAMP = 0, SL_INDEX_WRAP = 1, SL_INDEX_FILL = 2, &
    SL_INDEX_ERROR = 3
  ! Caches (sl_cache), what sl_macro_begin says to do (sl_macro_mode), bit generators (sl_rng_kind).
  integer(c_int32_t), parameter, public :: SL_CACHE_TRACE = 0, SL_CACHE_MACRO = 1, SL_CACHE_PROGRAM = 2
  integer(c_int32_t), parameter, public :: SL_MACRO_RECORD = 0, SL_MACRO_REPLAY = 1
  ! sl_apply_blocks: the automatic slicing dimension, and the kinds of output (sl_block_output_kind).
  integer(c_int32_t), parameter, public :: SL_DIM_AUTO = -1
  integer(c_int32_t), parameter, public :: SL_OUTPUT_AGGREGATE = 0, SL_OUTPUT_SLICE = 1, SL_OUTPUT_SCALAR = 2, &
    SL_OUTPUT_SIZE = 3
  integer(c_int32_t), parameter, public :: SL_RNG_PHILOX = 0, SL_RNG_FAST = 1, SL_RNG_THREEFRY = 2
  ! How random_sobol scrambles its points (sl_sobol_scramble), and its most dimensions.
  integer(c_int32_t), parameter, public :: SL_SOBOL_PLAIN = 0, SL_SOBOL_SHIFT = 1, SL_SOBOL_OWEN = 2
  integer(c_int64_t), parameter, public :: SL_SOBOL_MAX_DIMS = 21201
  ! Result comparison: modes (sl_compare_mode) and what a difference does (sl_compare_action).
  integer(c_int32_t), parameter, public :: SL_COMPARE_OFF = 0, SL_COMPARE_COMPUTE = 1, SL_COMPARE_COPYOUT = 2
  integer(c_int32_t), parameter, public :: SL_COMPARE_REPORT = 0, SL_COMPARE_ERROR = 1, SL_COMPARE_ABORT = 2
  ! Executors (sl_backend) and the kinds of device they run on (sl_device_type).
  integer(c_int32_t), parameter, public :: SL_BACKEND_DEFAULT = 0, SL_BACKEND_CPU = 1, SL_BACKEND_VULKAN = 2, &
    SL_BACKEND_AUTO = 3
  integer(c_int32_t), parameter, public :: SL_DEVICE_HOST = 0, SL_DEVICE_DISCRETE_GPU = 1, &
    SL_DEVICE_INTEGRATED_GPU = 2, SL_DEVICE_VIRTUAL_GPU = 3, SL_DEVICE_VULKAN_CPU = 4, SL_DEVICE_OTHER = 5

  ! ---------------------------------------------------------------------------------------
  ! The header's structs.

  ! Settings for sl_init; start from sl_config_default.
  type, bind(C), public :: sl_config
    integer(c_int32_t) :: threads
    integer(c_int64_t) :: memory_limit
    integer(c_int32_t) :: fusion
    integer(c_int32_t) :: queue_limit
    integer(c_int32_t) :: trace_cache_entries
    integer(c_int32_t) :: macro_cache_entries
    integer(c_int32_t) :: backend
  end type

  ! Details of the last failed call on this thread (strings are C pointers).
  type, bind(C), public :: sl_error_info
    integer(c_int32_t) :: status
    type(c_ptr) :: message
    type(c_ptr) :: function
    integer(c_size_t) :: call_pc
    type(c_ptr) :: call_file
    integer(c_int32_t) :: call_line
    type(c_ptr) :: origin_function
    integer(c_size_t) :: origin_pc
    type(c_ptr) :: origin_file
    integer(c_int32_t) :: origin_line
  end type

  ! Counters since the runtime started (sl_get_stats).
  type, bind(C), public :: sl_stats
    integer(c_int64_t) :: flushes
    integer(c_int64_t) :: sequences
    integer(c_int64_t) :: inline_sequences
    integer(c_int64_t) :: kernels
    integer(c_int64_t) :: intrinsics
    integer(c_int64_t) :: failed_steps
    integer(c_int64_t) :: host_steps
    integer(c_int64_t) :: allocations
    integer(c_int64_t) :: live_bytes
    integer(c_int64_t) :: peak_live_bytes
    integer(c_int64_t) :: live_handles
    integer(c_int64_t) :: device_allocations
    integer(c_int64_t) :: device_live_bytes
    integer(c_int64_t) :: device_peak_live_bytes
    integer(c_int64_t) :: looped_pieces
  end type

  ! One output of sl_apply_blocks (C's 0-based sizes; see output_size).
  type, bind(C), public :: sl_block_output
    integer(c_int32_t) :: kind = SL_OUTPUT_AGGREGATE
    integer(c_int32_t) :: rank = 0
    integer(c_int64_t) :: dims(8) = 0
  end type

  ! How sl_apply_blocks cuts its inputs; start from sl_block_options_default. `dim` is
  ! 0-based here, as in C.
  type, bind(C), public :: sl_block_options
    integer(c_int32_t) :: dim
    integer(c_int64_t) :: block_size
    integer(c_int64_t) :: overlap_before
    integer(c_int64_t) :: overlap_after
    integer(c_int32_t) :: boundary
    real(c_double) :: pad
    type(c_ptr) :: outputs
    integer(c_int32_t) :: n_outputs
    type(c_ptr) :: controls
    integer(c_int32_t) :: n_controls
  end type

  ! Counters of one cache since the runtime started (sl_get_cache_stats).
  type, bind(C), public :: sl_cache_stats
    integer(c_int64_t) :: lookups
    integer(c_int64_t) :: hits
    integer(c_int64_t) :: misses
    integer(c_int64_t) :: evictions
    integer(c_int64_t) :: entries
    integer(c_int64_t) :: saved_ns
    integer(c_int64_t) :: hit_ns
  end type

  ! Result comparison settings (sl_set_compare); a negative tolerance means the default.
  type, bind(C), public :: sl_compare_settings
    integer(c_int32_t) :: mode
    integer(c_int32_t) :: action
    real(c_double) :: abs_tol
    real(c_double) :: rel_tol
  end type

  ! What result comparison has compared (sl_get_compare_stats).
  type, bind(C), public :: sl_compare_stats
    integer(c_int64_t) :: values_checked
    integer(c_int64_t) :: mismatches
  end type

  ! What runs kernels, and why (sl_get_device_info); the strings are NUL-terminated.
  type, bind(C), public :: sl_device_info
    integer(c_int32_t) :: backend
    integer(c_int32_t) :: device_type
    integer(c_int32_t) :: float64
    character(kind=c_char) :: name(256)
    character(kind=c_char) :: reason(512)
  end type

  ! ---------------------------------------------------------------------------------------
  ! The raw C API.

  abstract interface
    ! An error handler for sl_push_error_handler (pass c_funloc of a procedure like this).
    function sl_error_handler(status, info, user) result(stop_older) bind(C)
      import :: c_int32_t, c_ptr, sl_error_info
      integer(c_int32_t), value :: status
      type(sl_error_info), intent(in) :: info
      type(c_ptr), value :: user
      integer(c_int32_t) :: stop_older
    end function
    ! The function apply_elements and apply_blocks (sl_apply_elements, sl_apply_blocks)
    ! apply: a bind(C) procedure with this interface. It gets the handles of placeholders
    ! shaped like one piece of each input, stores the handles of its results in `outputs`
    ! and returns SL_OK (or the status of a call that failed).
    function sl_apply_function(pieces, n_in, outputs, n_out, user) result(status) bind(C)
      import :: c_int, c_int32_t, c_int64_t, c_ptr
      integer(c_int32_t), value :: n_in, n_out
      integer(c_int64_t), intent(in) :: pieces(n_in)
      integer(c_int64_t), intent(inout) :: outputs(n_out)
      type(c_ptr), value :: user
      integer(c_int) :: status
    end function
  end interface
  public :: sl_error_handler

  ! Handles, scopes and flushes.
  interface
    function sl_release(a) result(status) bind(C, name="sl_release")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int) :: status
    end function
    function sl_keep(a) result(status) bind(C, name="sl_keep")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int) :: status
    end function
    function sl_unscope(a) result(status) bind(C, name="sl_unscope")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int) :: status
    end function
    function sl_hint_read(a) result(status) bind(C, name="sl_hint_read")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int) :: status
    end function
    function sl_retain(a, out) result(status) bind(C, name="sl_retain")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_scope_begin() result(status) bind(C, name="sl_scope_begin")
      import :: c_int
      integer(c_int) :: status
    end function
    function sl_scope_end() result(status) bind(C, name="sl_scope_end")
      import :: c_int
      integer(c_int) :: status
    end function
    function sl_sync() result(status) bind(C, name="sl_sync")
      import :: c_int
      integer(c_int) :: status
    end function
    function sl_shutdown() result(status) bind(C, name="sl_shutdown")
      import :: c_int
      integer(c_int) :: status
    end function
    function sl_pop_error_handler() result(status) bind(C, name="sl_pop_error_handler")
      import :: c_int
      integer(c_int) :: status
    end function
  end interface
  public :: sl_release, sl_keep, sl_unscope, sl_hint_read, sl_retain, sl_scope_begin, sl_scope_end, sl_sync, sl_shutdown, &
    sl_pop_error_handler

  ! Element-wise unary ops.
  interface
    function sl_neg(a, out) result(status) bind(C, name="sl_neg")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_abs(a, out) result(status) bind(C, name="sl_abs")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_sign(a, out) result(status) bind(C, name="sl_sign")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_sqrt(a, out) result(status) bind(C, name="sl_sqrt")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_rsqrt(a, out) result(status) bind(C, name="sl_rsqrt")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_cbrt(a, out) result(status) bind(C, name="sl_cbrt")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_rcp(a, out) result(status) bind(C, name="sl_rcp")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_exp(a, out) result(status) bind(C, name="sl_exp")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_exp2(a, out) result(status) bind(C, name="sl_exp2")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_expm1(a, out) result(status) bind(C, name="sl_expm1")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_log(a, out) result(status) bind(C, name="sl_log")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_log2(a, out) result(status) bind(C, name="sl_log2")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_log10(a, out) result(status) bind(C, name="sl_log10")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_log1p(a, out) result(status) bind(C, name="sl_log1p")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_sin(a, out) result(status) bind(C, name="sl_sin")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_cos(a, out) result(status) bind(C, name="sl_cos")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_tan(a, out) result(status) bind(C, name="sl_tan")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_asin(a, out) result(status) bind(C, name="sl_asin")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_acos(a, out) result(status) bind(C, name="sl_acos")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_atan(a, out) result(status) bind(C, name="sl_atan")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_sinh(a, out) result(status) bind(C, name="sl_sinh")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_cosh(a, out) result(status) bind(C, name="sl_cosh")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_tanh(a, out) result(status) bind(C, name="sl_tanh")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_asinh(a, out) result(status) bind(C, name="sl_asinh")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_acosh(a, out) result(status) bind(C, name="sl_acosh")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_atanh(a, out) result(status) bind(C, name="sl_atanh")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_erf(a, out) result(status) bind(C, name="sl_erf")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_erfc(a, out) result(status) bind(C, name="sl_erfc")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_erfinv(a, out) result(status) bind(C, name="sl_erfinv")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_lgamma(a, out) result(status) bind(C, name="sl_lgamma")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_tgamma(a, out) result(status) bind(C, name="sl_tgamma")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_floor(a, out) result(status) bind(C, name="sl_floor")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_ceil(a, out) result(status) bind(C, name="sl_ceil")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_round(a, out) result(status) bind(C, name="sl_round")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_trunc(a, out) result(status) bind(C, name="sl_trunc")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_isnan(a, out) result(status) bind(C, name="sl_isnan")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_isinf(a, out) result(status) bind(C, name="sl_isinf")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_not(a, out) result(status) bind(C, name="sl_not")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_transpose(a, out) result(status) bind(C, name="sl_transpose")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
  end interface
  public :: sl_neg, sl_abs, sl_sign, sl_sqrt, sl_rsqrt, sl_cbrt, sl_rcp, sl_exp, sl_exp2, sl_expm1, sl_log, &
    sl_log2, sl_log10, sl_log1p, sl_sin, sl_cos, sl_tan, sl_asin, sl_acos, sl_atan, sl_sinh, sl_cosh, sl_tanh, &
    sl_asinh, sl_acosh, sl_atanh, sl_erf, sl_floor, sl_ceil, sl_round, sl_trunc, sl_isnan, sl_isinf, sl_not, &
    sl_transpose, sl_erfc, sl_erfinv, sl_lgamma, sl_tgamma

  ! Element-wise binary ops, and the two products.
  interface
    function sl_add(a, b, out) result(status) bind(C, name="sl_add")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_sub(a, b, out) result(status) bind(C, name="sl_sub")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_mul(a, b, out) result(status) bind(C, name="sl_mul")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_div(a, b, out) result(status) bind(C, name="sl_div")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_rem(a, b, out) result(status) bind(C, name="sl_rem")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_pow(a, b, out) result(status) bind(C, name="sl_pow")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_atan2(a, b, out) result(status) bind(C, name="sl_atan2")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_hypot(a, b, out) result(status) bind(C, name="sl_hypot")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_min(a, b, out) result(status) bind(C, name="sl_min")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_max(a, b, out) result(status) bind(C, name="sl_max")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_eq(a, b, out) result(status) bind(C, name="sl_eq")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_ne(a, b, out) result(status) bind(C, name="sl_ne")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_lt(a, b, out) result(status) bind(C, name="sl_lt")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_le(a, b, out) result(status) bind(C, name="sl_le")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_gt(a, b, out) result(status) bind(C, name="sl_gt")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_ge(a, b, out) result(status) bind(C, name="sl_ge")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_and(a, b, out) result(status) bind(C, name="sl_and")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_or(a, b, out) result(status) bind(C, name="sl_or")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_xor(a, b, out) result(status) bind(C, name="sl_xor")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_matmul(a, b, out) result(status) bind(C, name="sl_matmul")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_dot(a, b, out) result(status) bind(C, name="sl_dot")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_outer(a, b, out) result(status) bind(C, name="sl_outer")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_outer_product(op, a, b, out) result(status) bind(C, name="sl_outer_product")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int32_t), value :: op
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_inner_product(reduce, combine, a, b, out) result(status) bind(C, name="sl_inner_product")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int32_t), value :: reduce, combine
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_vdot(a, b, out) result(status) bind(C, name="sl_vdot")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_gemm(op_a, a, op_b, b, alpha, c, beta, out) result(status) bind(C, name="sl_gemm")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int32_t), value :: op_a, op_b
      integer(c_int64_t), value :: a, b, c
      real(c_double), value :: alpha, beta
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_gemm_c(op_a, a, op_b, b, alpha_re, alpha_im, c, beta_re, beta_im, out) result(status) &
        bind(C, name="sl_gemm_c")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int32_t), value :: op_a, op_b
      integer(c_int64_t), value :: a, b, c
      real(c_double), value :: alpha_re, alpha_im, beta_re, beta_im
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
  end interface
  public :: sl_add, sl_sub, sl_mul, sl_div, sl_rem, sl_pow, sl_atan2, sl_hypot, sl_min, sl_max, sl_eq, sl_ne, &
    sl_lt, sl_le, sl_gt, sl_ge, sl_and, sl_or, sl_xor, sl_matmul, sl_dot, sl_vdot, sl_outer, sl_gemm, sl_gemm_c, &
    sl_outer_product, sl_inner_product

  ! Fourier transforms (dims are 0-based, as in C).
  interface
    function sl_fft(a, ndims, dims, norm, out) result(status) bind(C, name="sl_fft")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: ndims, norm
      integer(c_int32_t), intent(in) :: dims(*)
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_ifft(a, ndims, dims, norm, out) result(status) bind(C, name="sl_ifft")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: ndims, norm
      integer(c_int32_t), intent(in) :: dims(*)
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_rfft(a, ndims, dims, norm, out) result(status) bind(C, name="sl_rfft")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: ndims, norm
      integer(c_int32_t), intent(in) :: dims(*)
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_irfft(a, ndims, dims, n, norm, out) result(status) bind(C, name="sl_irfft")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a, n
      integer(c_int32_t), value :: ndims, norm
      integer(c_int32_t), intent(in) :: dims(*)
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
  end interface
  public :: sl_fft, sl_ifft, sl_rfft, sl_irfft

  ! Factorizations and solves (batched over dimensions 3 and up).
  interface
    function sl_lu(a, lu, ipiv) result(status) bind(C, name="sl_lu")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: lu, ipiv
      integer(c_int) :: status
    end function
    function sl_lu_solve(lu, ipiv, trans, b, x) result(status) bind(C, name="sl_lu_solve")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: lu, ipiv, b
      integer(c_int32_t), value :: trans
      integer(c_int64_t), intent(out) :: x
      integer(c_int) :: status
    end function
    function sl_lu_unpack(lu, ipiv, l, u, p) result(status) bind(C, name="sl_lu_unpack")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: lu, ipiv
      integer(c_int64_t), intent(out) :: l, u, p
      integer(c_int) :: status
    end function
    function sl_solve(a, b, x) result(status) bind(C, name="sl_solve")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: x
      integer(c_int) :: status
    end function
    function sl_inv(a, out) result(status) bind(C, name="sl_inv")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_det(a, out) result(status) bind(C, name="sl_det")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_slogdet(a, sign, logabs) result(status) bind(C, name="sl_slogdet")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: sign, logabs
      integer(c_int) :: status
    end function
    function sl_rcond(a, out) result(status) bind(C, name="sl_rcond")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_cholesky(a, l) result(status) bind(C, name="sl_cholesky")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: l
      integer(c_int) :: status
    end function
    function sl_cholesky_solve(l, b, x) result(status) bind(C, name="sl_cholesky_solve")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: l, b
      integer(c_int64_t), intent(out) :: x
      integer(c_int) :: status
    end function
    function sl_triangular_solve(t, uplo, trans, diag, b, x) result(status) bind(C, name="sl_triangular_solve")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: t, b
      integer(c_int32_t), value :: uplo, trans, diag
      integer(c_int64_t), intent(out) :: x
      integer(c_int) :: status
    end function
    function sl_qr(a, mode, q, r) result(status) bind(C, name="sl_qr")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: mode
      integer(c_int64_t), intent(out) :: q, r
      integer(c_int) :: status
    end function
    function sl_lstsq(a, b, x) result(status) bind(C, name="sl_lstsq")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: x
      integer(c_int) :: status
    end function
  end interface
  public :: sl_lu, sl_lu_solve, sl_lu_unpack, sl_solve, sl_inv, sl_det, sl_slogdet, sl_rcond, sl_cholesky, &
    sl_cholesky_solve, sl_triangular_solve, sl_qr, sl_lstsq

  ! Sorting, searching and the data-dependent ops.
  interface
    function sl_sort(a, dim, order, out) result(status) bind(C, name="sl_sort")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim, order
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_argsort(a, dim, order, out) result(status) bind(C, name="sl_argsort")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim, order
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_topk(a, k, dim, order, values, indices) result(status) bind(C, name="sl_topk")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a, k
      integer(c_int32_t), value :: dim, order
      integer(c_int64_t), intent(out) :: values, indices
      integer(c_int) :: status
    end function
    function sl_searchsorted(sorted, v, side, out) result(status) bind(C, name="sl_searchsorted")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: sorted, v
      integer(c_int32_t), value :: side
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_nonzero(a, out) result(status) bind(C, name="sl_nonzero")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_compress(mask, a, out) result(status) bind(C, name="sl_compress")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: mask, a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_unique(a, values, counts, inverse) result(status) bind(C, name="sl_unique")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: values, counts, inverse
      integer(c_int) :: status
    end function
    function sl_histogram(a, edges, out) result(status) bind(C, name="sl_histogram")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, edges
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_histogram_range(a, bins, lo, hi, out) result(status) bind(C, name="sl_histogram_range")
      import :: c_int, c_int64_t, c_double
      integer(c_int64_t), value :: a, bins
      real(c_double), value :: lo, hi
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
  end interface
  public :: sl_sort, sl_argsort, sl_topk, sl_searchsorted, sl_nonzero, sl_compress, sl_unique, sl_histogram, &
    sl_histogram_range

  ! Element-wise ops with a scalar.
  interface
    function sl_add_scalar(a, s, out) result(status) bind(C, name="sl_add_scalar")
      import :: c_int, c_int64_t, c_double
      integer(c_int64_t), value :: a
      real(c_double), value :: s
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_sub_scalar(a, s, out) result(status) bind(C, name="sl_sub_scalar")
      import :: c_int, c_int64_t, c_double
      integer(c_int64_t), value :: a
      real(c_double), value :: s
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_rsub_scalar(a, s, out) result(status) bind(C, name="sl_rsub_scalar")
      import :: c_int, c_int64_t, c_double
      integer(c_int64_t), value :: a
      real(c_double), value :: s
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_mul_scalar(a, s, out) result(status) bind(C, name="sl_mul_scalar")
      import :: c_int, c_int64_t, c_double
      integer(c_int64_t), value :: a
      real(c_double), value :: s
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_div_scalar(a, s, out) result(status) bind(C, name="sl_div_scalar")
      import :: c_int, c_int64_t, c_double
      integer(c_int64_t), value :: a
      real(c_double), value :: s
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_rdiv_scalar(a, s, out) result(status) bind(C, name="sl_rdiv_scalar")
      import :: c_int, c_int64_t, c_double
      integer(c_int64_t), value :: a
      real(c_double), value :: s
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_pow_scalar(a, s, out) result(status) bind(C, name="sl_pow_scalar")
      import :: c_int, c_int64_t, c_double
      integer(c_int64_t), value :: a
      real(c_double), value :: s
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_min_scalar(a, s, out) result(status) bind(C, name="sl_min_scalar")
      import :: c_int, c_int64_t, c_double
      integer(c_int64_t), value :: a
      real(c_double), value :: s
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_max_scalar(a, s, out) result(status) bind(C, name="sl_max_scalar")
      import :: c_int, c_int64_t, c_double
      integer(c_int64_t), value :: a
      real(c_double), value :: s
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
  end interface
  public :: sl_add_scalar, sl_sub_scalar, sl_rsub_scalar, sl_mul_scalar, sl_div_scalar, sl_rdiv_scalar, &
    sl_pow_scalar, sl_min_scalar, sl_max_scalar

  ! Reductions and scans along a dimension (0-based, or SL_ALL_DIMS).
  interface
    function sl_sum(a, dim, out) result(status) bind(C, name="sl_sum")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_prod(a, dim, out) result(status) bind(C, name="sl_prod")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_minval(a, dim, out) result(status) bind(C, name="sl_minval")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_maxval(a, dim, out) result(status) bind(C, name="sl_maxval")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_mean(a, dim, out) result(status) bind(C, name="sl_mean")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_any(a, dim, out) result(status) bind(C, name="sl_any")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_all(a, dim, out) result(status) bind(C, name="sl_all")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_count(a, dim, out) result(status) bind(C, name="sl_count")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_argmin(a, dim, out) result(status) bind(C, name="sl_argmin")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_argmax(a, dim, out) result(status) bind(C, name="sl_argmax")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_cumsum(a, dim, out) result(status) bind(C, name="sl_cumsum")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_cumprod(a, dim, out) result(status) bind(C, name="sl_cumprod")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_cummax(a, dim, out) result(status) bind(C, name="sl_cummax")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_cummin(a, dim, out) result(status) bind(C, name="sl_cummin")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_cumand(a, dim, out) result(status) bind(C, name="sl_cumand")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_cumor(a, dim, out) result(status) bind(C, name="sl_cumor")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    ! dims: a set of dimensions, bit d for (0-based) dimension d.
    function sl_reduce_dims(op, a, dims, out) result(status) bind(C, name="sl_reduce_dims")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int32_t), value :: op
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dims
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_scan(op, a, dim, exclusive, out) result(status) bind(C, name="sl_scan")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int32_t), value :: op
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int32_t), value :: exclusive
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_scan_dims(op, a, dims, exclusive, out) result(status) bind(C, name="sl_scan_dims")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int32_t), value :: op
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dims
      integer(c_int32_t), value :: exclusive
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_var(a, dim, ddof, out) result(status) bind(C, name="sl_var")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), value :: ddof
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_std(a, dim, ddof, out) result(status) bind(C, name="sl_std")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), value :: ddof
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_var_dims(a, dims, ddof, out) result(status) bind(C, name="sl_var_dims")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dims
      integer(c_int64_t), value :: ddof
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_std_dims(a, dims, ddof, out) result(status) bind(C, name="sl_std_dims")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dims
      integer(c_int64_t), value :: ddof
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
  end interface
  public :: sl_sum, sl_prod, sl_minval, sl_maxval, sl_mean, sl_any, sl_all, sl_count, sl_argmin, sl_argmax, &
    sl_cumsum, sl_cumprod, sl_cummax, sl_cummin, sl_cumand, sl_cumor, sl_reduce_dims, sl_scan, sl_scan_dims, &
    sl_var, sl_std, sl_var_dims, sl_std_dims

  interface
    ! Creation and reading.
    function sl_create(dtype, rank, dims, layout, data, bytes, out) result(status) bind(C, name="sl_create")
      import :: c_int, c_int32_t, c_int64_t, c_ptr, c_size_t
      integer(c_int32_t), value :: dtype, rank
      integer(c_int64_t), intent(in) :: dims(*)
      integer(c_int32_t), value :: layout
      type(c_ptr), value :: data
      integer(c_size_t), value :: bytes
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_constant(dtype, rank, dims, value, out) result(status) bind(C, name="sl_constant")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int32_t), value :: dtype, rank
      integer(c_int64_t), intent(in) :: dims(*)
      real(c_double), value :: value
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_scalar(dtype, value, out) result(status) bind(C, name="sl_scalar")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int32_t), value :: dtype
      real(c_double), value :: value
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_iota(dtype, rank, dims, dim, out) result(status) bind(C, name="sl_iota")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int32_t), value :: dtype, rank
      integer(c_int64_t), intent(in) :: dims(*)
      integer(c_int32_t), value :: dim
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_identity(dtype, rows, cols, out) result(status) bind(C, name="sl_identity")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int32_t), value :: dtype
      integer(c_int64_t), value :: rows, cols
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_read(a, layout, dst, bytes) result(status) bind(C, name="sl_read")
      import :: c_int, c_int32_t, c_int64_t, c_ptr, c_size_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: layout
      type(c_ptr), value :: dst
      integer(c_size_t), value :: bytes
      integer(c_int) :: status
    end function

    ! Queries.
    function sl_rank(a, rank) result(status) bind(C, name="sl_rank")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), intent(out) :: rank
      integer(c_int) :: status
    end function
    function sl_shape(a, dims, capacity) result(status) bind(C, name="sl_shape")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: dims(*)
      integer(c_int32_t), value :: capacity
      integer(c_int) :: status
    end function
    function sl_get_dtype(a, out) result(status) bind(C, name="sl_get_dtype")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_numel(a, out) result(status) bind(C, name="sl_numel")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_live_handles(out) result(status) bind(C, name="sl_live_handles")
      import :: c_int, c_int64_t
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_eval(arrays, n) result(status) bind(C, name="sl_eval")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), intent(in) :: arrays(*)
      integer(c_int32_t), value :: n
      integer(c_int) :: status
    end function

    ! Element-wise ops by op code, select and cast.
    function sl_unary(op, a, out) result(status) bind(C, name="sl_unary")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int32_t), value :: op
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_binary(op, a, b, out) result(status) bind(C, name="sl_binary")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int32_t), value :: op
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_binary_scalar(op, a, s, out) result(status) bind(C, name="sl_binary_scalar")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int32_t), value :: op
      integer(c_int64_t), value :: a
      real(c_double), value :: s
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_scalar_binary(op, s, b, out) result(status) bind(C, name="sl_scalar_binary")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int32_t), value :: op
      real(c_double), value :: s
      integer(c_int64_t), value :: b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_binary_scalar_i(op, a, s, out) result(status) bind(C, name="sl_binary_scalar_i")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int32_t), value :: op
      integer(c_int64_t), value :: a, s
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_scalar_binary_i(op, s, b, out) result(status) bind(C, name="sl_scalar_binary_i")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int32_t), value :: op
      integer(c_int64_t), value :: s, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_select_scalar(cond, a, s, out) result(status) bind(C, name="sl_select_scalar")
      import :: c_int, c_int64_t, c_double
      integer(c_int64_t), value :: cond, a
      real(c_double), value :: s
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_scalar_select(cond, s, b, out) result(status) bind(C, name="sl_scalar_select")
      import :: c_int, c_int64_t, c_double
      integer(c_int64_t), value :: cond
      real(c_double), value :: s
      integer(c_int64_t), value :: b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_select(cond, a, b, out) result(status) bind(C, name="sl_select")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: cond, a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_cast(a, dtype, out) result(status) bind(C, name="sl_cast")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dtype
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function

    ! Views and data movement.
    function sl_reshape(a, rank, dims, out) result(status) bind(C, name="sl_reshape")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: rank
      integer(c_int64_t), intent(in) :: dims(*)
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_permute(a, perm, rank, out) result(status) bind(C, name="sl_permute")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), intent(in) :: perm(*)
      integer(c_int32_t), value :: rank
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_section(a, start, count, stride, out) result(status) bind(C, name="sl_section")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(in) :: start(*), count(*), stride(*)
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_project(a, dim, index, out) result(status) bind(C, name="sl_project")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), value :: index
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_shift(a, dim, offset, boundary, fill, out) result(status) bind(C, name="sl_shift")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), value :: offset
      integer(c_int32_t), value :: boundary
      real(c_double), value :: fill
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_rotate(a, dim, offset, out) result(status) bind(C, name="sl_rotate")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), value :: offset
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_pad(a, lo, hi, boundary, fill, out) result(status) bind(C, name="sl_pad")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(in) :: lo(*), hi(*)
      integer(c_int32_t), value :: boundary
      real(c_double), value :: fill
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_tile(a, reps, n, out) result(status) bind(C, name="sl_tile")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(in) :: reps(*)
      integer(c_int32_t), value :: n
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_broadcast_to(a, rank, dims, out) result(status) bind(C, name="sl_broadcast_to")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: rank
      integer(c_int64_t), intent(in) :: dims(*)
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_concat(arrays, n, dim, out) result(status) bind(C, name="sl_concat")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), intent(in) :: arrays(*)
      integer(c_int32_t), value :: n, dim
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_gather(src, indices, n, out) result(status) bind(C, name="sl_gather")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: src
      integer(c_int64_t), intent(in) :: indices(*)
      integer(c_int32_t), value :: n
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_gather_with(src, indices, n, policy, fill, out) result(status) bind(C, name="sl_gather_with")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int64_t), value :: src
      integer(c_int64_t), intent(in) :: indices(*)
      integer(c_int32_t), value :: n, policy
      real(c_double), value :: fill
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_take_along(src, index, dim, policy, fill, out) result(status) bind(C, name="sl_take_along")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int64_t), value :: src, index
      integer(c_int32_t), value :: dim, policy
      real(c_double), value :: fill
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_interp1(src, pos, dim, policy, fill, out) result(status) bind(C, name="sl_interp1")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int64_t), value :: src, pos
      integer(c_int32_t), value :: dim, policy
      real(c_double), value :: fill
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_interp2(src, pos0, pos1, dim0, dim1, policy, fill, out) result(status) bind(C, name="sl_interp2")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int64_t), value :: src, pos0, pos1
      integer(c_int32_t), value :: dim0, dim1, policy
      real(c_double), value :: fill
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_scatter(dst, indices, n, values, mode, out) result(status) bind(C, name="sl_scatter")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: dst
      integer(c_int64_t), intent(in) :: indices(*)
      integer(c_int32_t), value :: n
      integer(c_int64_t), value :: values
      integer(c_int32_t), value :: mode
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_assign_section(dst, start, count, stride, values) result(status) &
        bind(C, name="sl_assign_section")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: dst
      integer(c_int64_t), intent(in) :: start(*), count(*), stride(*)
      integer(c_int64_t), value :: values
      integer(c_int) :: status
    end function
    function sl_assign_section_scalar(dst, start, count, stride, value) result(status) &
        bind(C, name="sl_assign_section_scalar")
      import :: c_int, c_int64_t, c_double
      integer(c_int64_t), value :: dst
      integer(c_int64_t), intent(in) :: start(*), count(*), stride(*)
      real(c_double), value :: value
      integer(c_int) :: status
    end function
    function sl_assign_where(dst, mask, values) result(status) bind(C, name="sl_assign_where")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: dst, mask, values
      integer(c_int) :: status
    end function
    function sl_assign_where_scalar(dst, mask, value) result(status) bind(C, name="sl_assign_where_scalar")
      import :: c_int, c_int64_t, c_double
      integer(c_int64_t), value :: dst, mask
      real(c_double), value :: value
      integer(c_int) :: status
    end function
    function sl_assign_indexed(dst, indices, n, values, mode) result(status) bind(C, name="sl_assign_indexed")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: dst
      integer(c_int64_t), intent(in) :: indices(*)
      integer(c_int32_t), value :: n
      integer(c_int64_t), value :: values
      integer(c_int32_t), value :: mode
      integer(c_int) :: status
    end function

    ! Code reuse sections. `name` is a C string: trim(name) // c_null_char.
    function sl_macro_begin(name, inputs, n_in, controls, n_ctrl, outputs, n_out, mode) result(status) &
      bind(C, name="sl_macro_begin")
      import :: c_int, c_int32_t, c_int64_t, c_double, c_char
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int64_t), intent(in) :: inputs(*)
      integer(c_int32_t), value :: n_in
      real(c_double), intent(in) :: controls(*)
      integer(c_int32_t), value :: n_ctrl
      integer(c_int64_t), intent(inout) :: outputs(*)
      integer(c_int32_t), value :: n_out
      integer(c_int32_t), intent(out) :: mode
      integer(c_int) :: status
    end function
    function sl_macro_end(outputs, n_out) result(status) bind(C, name="sl_macro_end")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), intent(in) :: outputs(*)
      integer(c_int32_t), value :: n_out
      integer(c_int) :: status
    end function
    function sl_macro_cancel() result(status) bind(C, name="sl_macro_cancel")
      import :: c_int
      integer(c_int) :: status
    end function

    ! Applying a function to pieces. `f` is c_funloc of a procedure with the interface
    ! sl_apply_function (see apply_elements below).
    function sl_apply_elements(f, user, inputs, n_in, controls, n_ctrl, outputs, n_out) result(status) &
      bind(C, name="sl_apply_elements")
      import :: c_int, c_int32_t, c_int64_t, c_double, c_funptr, c_ptr
      type(c_funptr), value :: f
      type(c_ptr), value :: user
      integer(c_int64_t), intent(in) :: inputs(*)
      integer(c_int32_t), value :: n_in
      real(c_double), intent(in) :: controls(*)
      integer(c_int32_t), value :: n_ctrl
      integer(c_int64_t), intent(inout) :: outputs(*)
      integer(c_int32_t), value :: n_out
      integer(c_int) :: status
    end function
    function sl_block_options_default(options) result(status) bind(C, name="sl_block_options_default")
      import :: c_int, sl_block_options
      type(sl_block_options), intent(out) :: options
      integer(c_int) :: status
    end function
    function sl_apply_blocks(f, user, inputs, n_in, options, outputs, n_out) result(status) &
      bind(C, name="sl_apply_blocks")
      import :: c_int, c_int32_t, c_int64_t, c_funptr, c_ptr, sl_block_options
      type(c_funptr), value :: f
      type(c_ptr), value :: user
      integer(c_int64_t), intent(in) :: inputs(*)
      integer(c_int32_t), value :: n_in
      type(sl_block_options), intent(in) :: options
      integer(c_int64_t), intent(inout) :: outputs(*)
      integer(c_int32_t), value :: n_out
      integer(c_int) :: status
    end function
    function sl_apply_block_length(out) result(status) bind(C, name="sl_apply_block_length")
      import :: c_int, c_int64_t
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function

    ! Random numbers: generators (handles like arrays' ids) and random arrays.
    function sl_rng_create(kind, seed, out) result(status) bind(C, name="sl_rng_create")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int32_t), value :: kind
      integer(c_int64_t), value :: seed
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_rng_destroy(rng) result(status) bind(C, name="sl_rng_destroy")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: rng
      integer(c_int) :: status
    end function
    function sl_rng_get_state(rng, seed, draw) result(status) bind(C, name="sl_rng_get_state")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: rng
      integer(c_int64_t), intent(out) :: seed, draw
      integer(c_int) :: status
    end function
    function sl_rng_set_state(rng, seed, draw) result(status) bind(C, name="sl_rng_set_state")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: rng, seed, draw
      integer(c_int) :: status
    end function
    function sl_random_uniform(rng, dtype, rank, dims, out) result(status) bind(C, name="sl_random_uniform")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: rng
      integer(c_int32_t), value :: dtype, rank
      integer(c_int64_t), intent(in) :: dims(*)
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_random_normal(rng, dtype, rank, dims, out) result(status) bind(C, name="sl_random_normal")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: rng
      integer(c_int32_t), value :: dtype, rank
      integer(c_int64_t), intent(in) :: dims(*)
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_random_uniform_range(rng, lo, hi, dtype, rank, dims, out) result(status) bind(C, name="sl_random_uniform_range")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int64_t), value :: rng
      real(c_double), value :: lo, hi
      integer(c_int32_t), value :: dtype, rank
      integer(c_int64_t), intent(in) :: dims(*)
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_random_integers(rng, lo, hi, dtype, rank, dims, out) result(status) bind(C, name="sl_random_integers")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int64_t), value :: rng
      integer(c_int64_t), value :: lo, hi
      integer(c_int32_t), value :: dtype, rank
      integer(c_int64_t), intent(in) :: dims(*)
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_random_exponential(rng, scale, dtype, rank, dims, out) result(status) bind(C, name="sl_random_exponential")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int64_t), value :: rng
      real(c_double), value :: scale
      integer(c_int32_t), value :: dtype, rank
      integer(c_int64_t), intent(in) :: dims(*)
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_random_bernoulli(rng, p, rank, dims, out) result(status) bind(C, name="sl_random_bernoulli")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int64_t), value :: rng
      real(c_double), value :: p
      integer(c_int32_t), value :: rank
      integer(c_int64_t), intent(in) :: dims(*)
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_random_poisson(rng, lambda, dtype, rank, dims, out) result(status) bind(C, name="sl_random_poisson")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int64_t), value :: rng
      real(c_double), value :: lambda
      integer(c_int32_t), value :: dtype, rank
      integer(c_int64_t), intent(in) :: dims(*)
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_random_gamma(rng, k, theta, dtype, rank, dims, out) result(status) bind(C, name="sl_random_gamma")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int64_t), value :: rng
      real(c_double), value :: k, theta
      integer(c_int32_t), value :: dtype, rank
      integer(c_int64_t), intent(in) :: dims(*)
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_random_beta(rng, a, b, dtype, rank, dims, out) result(status) bind(C, name="sl_random_beta")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int64_t), value :: rng
      real(c_double), value :: a, b
      integer(c_int32_t), value :: dtype, rank
      integer(c_int64_t), intent(in) :: dims(*)
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_random_chisquare(rng, df, dtype, rank, dims, out) result(status) bind(C, name="sl_random_chisquare")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int64_t), value :: rng
      real(c_double), value :: df
      integer(c_int32_t), value :: dtype, rank
      integer(c_int64_t), intent(in) :: dims(*)
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_random_sobol(dims, first, count, scramble, seed, dtype, out) result(status) &
        bind(C, name="sl_random_sobol")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: dims, first, count, seed
      integer(c_int32_t), value :: scramble, dtype
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function

    function sl_reduce(op, a, dim, out) result(status) bind(C, name="sl_reduce")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int32_t), value :: op
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function

    ! The runtime.
    function sl_version(major, minor, patch) result(status) bind(C, name="sl_version")
      import :: c_int, c_int32_t
      integer(c_int32_t), intent(out) :: major, minor, patch
      integer(c_int) :: status
    end function
    function sl_config_default(config) result(status) bind(C, name="sl_config_default")
      import :: c_int, sl_config
      type(sl_config), intent(out) :: config
      integer(c_int) :: status
    end function
    ! `config` is c_loc of a type(sl_config), or c_null_ptr for the defaults.
    function sl_init(config) result(status) bind(C, name="sl_init")
      import :: c_int, c_ptr
      type(c_ptr), value :: config
      integer(c_int) :: status
    end function
    function sl_last_error(info) result(status) bind(C, name="sl_last_error")
      import :: c_int, sl_error_info
      type(sl_error_info), intent(out) :: info
      integer(c_int) :: status
    end function
    function sl_status_name(code, name) result(status) bind(C, name="sl_status_name")
      import :: c_int, c_ptr
      integer(c_int), value :: code
      type(c_ptr), intent(out) :: name
      integer(c_int) :: status
    end function
    ! `handler` is c_funloc of a procedure with the sl_error_handler interface.
    function sl_push_error_handler(handler, user) result(status) bind(C, name="sl_push_error_handler")
      import :: c_int, c_funptr, c_ptr
      type(c_funptr), value :: handler
      type(c_ptr), value :: user
      integer(c_int) :: status
    end function
    function sl_get_stats(out) result(status) bind(C, name="sl_get_stats")
      import :: c_int, sl_stats
      type(sl_stats), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_get_cache_stats(which, out) result(status) bind(C, name="sl_get_cache_stats")
      import :: c_int, c_int32_t, sl_cache_stats
      integer(c_int32_t), value :: which
      type(sl_cache_stats), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_get_device_info(out) result(status) bind(C, name="sl_get_device_info")
      import :: c_int, sl_device_info
      type(sl_device_info), intent(out) :: out
      integer(c_int) :: status
    end function

    ! Debugging.
    function sl_set_compare(settings) result(status) bind(C, name="sl_set_compare")
      import :: c_int, sl_compare_settings
      type(sl_compare_settings), intent(in) :: settings
      integer(c_int) :: status
    end function
    function sl_get_compare(out) result(status) bind(C, name="sl_get_compare")
      import :: c_int, sl_compare_settings
      type(sl_compare_settings), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_get_compare_stats(out) result(status) bind(C, name="sl_get_compare_stats")
      import :: c_int, sl_compare_stats
      type(sl_compare_stats), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_reference(a, out) result(status) bind(C, name="sl_reference")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_debug_peek(a, layout, dst, bytes) result(status) bind(C, name="sl_debug_peek")
      import :: c_int, c_int32_t, c_int64_t, c_ptr, c_size_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: layout
      type(c_ptr), value :: dst
      integer(c_size_t), value :: bytes
      integer(c_int) :: status
    end function

    ! Profiling and explicit call sites (C strings: NUL-terminated, e.g. 'prof'//c_null_char).
    ! sl_set_call_site(c_null_char, 0) clears the site; a preprocessed source (.F90) can pass
    ! __FILE__//c_null_char and __LINE__.
    function sl_profile_begin(path) result(status) bind(C, name="sl_profile_begin")
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int) :: status
    end function
    function sl_profile_end() result(status) bind(C, name="sl_profile_end")
      import :: c_int
      integer(c_int) :: status
    end function
    function sl_set_call_site(file, line) result(status) bind(C, name="sl_set_call_site")
      import :: c_int, c_int32_t, c_char
      character(kind=c_char), intent(in) :: file(*)
      integer(c_int32_t), value :: line
      integer(c_int) :: status
    end function
  end interface
  ! Complex numbers (SL_C64 holds complex(4), SL_C128 complex(8)).
  public :: sl_conj, sl_real, sl_imag, sl_arg, sl_isfinite, sl_complex, sl_polar, &
    sl_binary_scalar_c, sl_scalar_binary_c, sl_scalar_c, sl_constant_c
  interface
    function sl_conj(a, out) result(status) bind(C, name="sl_conj")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_real(a, out) result(status) bind(C, name="sl_real")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_imag(a, out) result(status) bind(C, name="sl_imag")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_arg(a, out) result(status) bind(C, name="sl_arg")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_isfinite(a, out) result(status) bind(C, name="sl_isfinite")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_complex(re, im, out) result(status) bind(C, name="sl_complex")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: re, im
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_polar(r, theta, out) result(status) bind(C, name="sl_polar")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: r, theta
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_binary_scalar_c(op, a, re, im, out) result(status) bind(C, name="sl_binary_scalar_c")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int32_t), value :: op
      integer(c_int64_t), value :: a
      real(c_double), value :: re, im
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_scalar_binary_c(op, re, im, b, out) result(status) bind(C, name="sl_scalar_binary_c")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int32_t), value :: op
      real(c_double), value :: re, im
      integer(c_int64_t), value :: b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_scalar_c(dtype, re, im, out) result(status) bind(C, name="sl_scalar_c")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int32_t), value :: dtype
      real(c_double), value :: re, im
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_constant_c(dtype, rank, dims, re, im, out) result(status) bind(C, name="sl_constant_c")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int32_t), value :: dtype, rank
      integer(c_int64_t), intent(in) :: dims(*)
      real(c_double), value :: re, im
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
  end interface

  ! Generators, shape ops and the functions composed of element-wise ops.
  interface
    function sl_linspace(dtype, start, stop, n, endpoint, out) result(status) bind(C, name="sl_linspace")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int32_t), value :: dtype, endpoint
      real(c_double), value :: start, stop
      integer(c_int64_t), value :: n
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_arange(dtype, start, stop, step, out) result(status) bind(C, name="sl_arange")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int32_t), value :: dtype
      real(c_double), value :: start, stop, step
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_arange_i(dtype, start, stop, step, out) result(status) bind(C, name="sl_arange_i")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int32_t), value :: dtype
      integer(c_int64_t), value :: start, stop, step
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_diag_matrix(v, k, out) result(status) bind(C, name="sl_diag_matrix")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: v, k
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_diagonal(a, k, out) result(status) bind(C, name="sl_diagonal")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, k
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_triu(a, k, out) result(status) bind(C, name="sl_triu")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, k
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_tril(a, k, out) result(status) bind(C, name="sl_tril")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, k
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_repeat(a, count, dim, out) result(status) bind(C, name="sl_repeat")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a, count
      integer(c_int32_t), value :: dim
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_repeat_counts(a, counts, dim, out) result(status) bind(C, name="sl_repeat_counts")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a, counts
      integer(c_int32_t), value :: dim
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_meshgrid(vectors, n, indexing, outs) result(status) bind(C, name="sl_meshgrid")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), intent(in) :: vectors(*)
      integer(c_int32_t), value :: n, indexing
      integer(c_int64_t), intent(out) :: outs(*)
      integer(c_int) :: status
    end function
    function sl_flip(a, dims, n, out) result(status) bind(C, name="sl_flip")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), intent(in) :: dims(*)
      integer(c_int32_t), value :: n
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_squeeze(a, dim, out) result(status) bind(C, name="sl_squeeze")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_expand_dims(a, dim, out) result(status) bind(C, name="sl_expand_dims")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_moveaxis(a, from, to, out) result(status) bind(C, name="sl_moveaxis")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: from, to
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_mod(a, b, out) result(status) bind(C, name="sl_mod")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_shl(a, b, out) result(status) bind(C, name="sl_shl")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_shr(a, b, out) result(status) bind(C, name="sl_shr")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_copysign(a, b, out) result(status) bind(C, name="sl_copysign")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_nextafter(a, b, out) result(status) bind(C, name="sl_nextafter")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_clamp(a, lo, hi, out) result(status) bind(C, name="sl_clamp")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, lo, hi
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_fma(a, b, c, out) result(status) bind(C, name="sl_fma")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b, c
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_clamp_scalar(a, lo, hi, out) result(status) bind(C, name="sl_clamp_scalar")
      import :: c_int, c_int64_t, c_double
      integer(c_int64_t), value :: a
      real(c_double), value :: lo, hi
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_floor_to(a, dtype, out) result(status) bind(C, name="sl_floor_to")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dtype
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_ceil_to(a, dtype, out) result(status) bind(C, name="sl_ceil_to")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dtype
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_round_to(a, dtype, out) result(status) bind(C, name="sl_round_to")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dtype
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
  end interface
  public :: sl_linspace, sl_arange, sl_arange_i, sl_diag_matrix, sl_diagonal, sl_triu, sl_tril, sl_repeat, sl_repeat_counts, &
    sl_meshgrid, sl_flip, sl_squeeze, sl_expand_dims, sl_moveaxis, sl_mod, sl_shl, sl_shr, sl_copysign, &
    sl_nextafter, sl_clamp, sl_clamp_scalar, sl_floor_to, sl_ceil_to, sl_round_to, sl_fma

  public :: sl_set_compare, sl_get_compare, sl_get_compare_stats, sl_reference, sl_debug_peek
  public :: sl_profile_begin, sl_profile_end, sl_set_call_site
  public :: sl_create, sl_constant, sl_scalar, sl_iota, sl_identity, sl_read, sl_rank, sl_shape, sl_get_dtype, &
    sl_numel, sl_live_handles, sl_eval, sl_unary, sl_binary, sl_binary_scalar, sl_scalar_binary, sl_select, &
    sl_binary_scalar_i, sl_scalar_binary_i, sl_select_scalar, sl_scalar_select, &
    sl_cast, sl_reshape, sl_permute, sl_section, sl_project, sl_shift, sl_rotate, sl_pad, sl_tile, &
    sl_broadcast_to, sl_concat, sl_gather, sl_gather_with, sl_take_along, sl_interp1, sl_interp2, sl_scatter, &
    sl_assign_section, sl_assign_section_scalar, sl_assign_where, sl_assign_where_scalar, sl_assign_indexed, &
    sl_macro_begin, sl_macro_end, sl_macro_cancel, sl_apply_elements, sl_block_options_default, sl_apply_blocks, &
    sl_apply_block_length, &
    sl_rng_create, sl_rng_destroy, sl_rng_get_state, sl_rng_set_state, sl_random_uniform, sl_random_normal, &
    sl_random_uniform_range, sl_random_integers, sl_random_exponential, sl_random_bernoulli, sl_random_poisson, &
    sl_random_gamma, sl_random_beta, sl_random_chisquare, sl_random_sobol, &
    sl_reduce, sl_version, sl_config_default, sl_init, sl_last_error, sl_status_name, sl_push_error_handler, &
    sl_get_stats, sl_get_cache_stats, sl_get_device_info

  ! The C library's strlen, to read the C API's strings.
  interface
    function c_strlen(s) result(n) bind(C, name="strlen")
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: n
    end function
  end interface

  ! ---------------------------------------------------------------------------------------
  ! The Fortran layer.

  ! An array in Sluice: the C API's handle (0 = none). Assigning the variable copies the
  ! handle, not the array; the array lives until its scope ends or it is released.
  type, public :: sl_array
    integer(c_int64_t) :: handle = 0
  end type

  ! A random number generator: the C API's id (0 = none). Each random array takes one draw.
  type, public :: sl_rng
    integer(c_int64_t) :: handle = 0
  end type

  ! call assign(u, lower, upper, values [, stride, stat]): Fortran's
  ! u(lower(1):upper(1):stride(1), ...) = values. Bounds are 1-based and inclusive; strides
  ! default to 1 and may be negative; a stride of 0 takes the one index lower(d) and drops the
  ! dimension (u(3, :) is lower = [3, 1], upper = [3, n], stride = [0, 1]). values is an
  ! sl_array (broadcast to the section) or a real(8) or integer scalar exactly representable
  ! in u's type. u keeps its handle and holds the new version: a copy kept with retain(u)
  ! keeps the old values, while a plain copy of the variable is the same handle and follows
  ! u. When nothing else can see the old version it is updated in place, so a loop over
  ! u(2:n-1) = ... does not copy u.
  interface assign
    module procedure assign_array, assign_r8, assign_int
  end interface

  ! call assign_where(u, mask, values [, stat]): where (mask) u = values.
  interface assign_where
    module procedure assign_where_array, assign_where_r8
  end interface

  ! rng_create(seed [, kind, stat]): a generator seeded with an integer(4) or integer(8)
  ! seed, of kind SL_RNG_PHILOX (the default) or SL_RNG_FAST.
  ! random_integers(rng, lo, hi, dtype, shape [, stat]): integers uniform on [lo, hi), lo and
  ! hi both integer(4) or both integer(8).
  interface random_integers
    module procedure random_integers_i4, random_integers_i8
  end interface

  interface rng_create
    module procedure rng_create_i4, rng_create_i8
  end interface

  ! sl_array(x [, stat]): a new array holding a copy of x, a real(4), real(8), complex(4),
  ! complex(8), integer(1), integer(2), integer(4), integer(8) or logical scalar or array of rank 1 to 4 (sections included). Sluice stores
  ! arrays column-major, as Fortran does, so the elements keep their order.
  interface sl_array
    module procedure new_r4_0, new_r4_1, new_r4_2, new_r4_3, new_r4_4, new_r8_0, new_r8_1, new_r8_2, &
      new_r8_3, new_r8_4, new_i4_0, new_i4_1, new_i4_2, new_i4_3, new_i4_4, new_i8_0, new_i8_1, new_i8_2, &
      new_i8_3, new_i8_4, new_i1_0, new_i1_1, new_i1_2, new_i1_3, new_i1_4, &
      new_i2_0, new_i2_1, new_i2_2, new_i2_3, new_i2_4, new_l_0, new_l_1, new_l_2, new_l_3, new_l_4, &
      new_c4_0, new_c4_1, new_c4_2, new_c4_3, new_c4_4, new_c8_0, new_c8_1, new_c8_2, new_c8_3, new_c8_4
  end interface

  ! call get(a, x [, stat]): computes a and copies it into x, whose shape must be a's (a
  ! scalar x takes a one-element array); elements are converted to x's type.
  interface get
    module procedure get_r4_0, get_r4_1, get_r4_2, get_r4_3, get_r4_4, get_r8_0, get_r8_1, get_r8_2, &
      get_r8_3, get_r8_4, get_i4_0, get_i4_1, get_i4_2, get_i4_3, get_i4_4, get_i8_0, get_i8_1, get_i8_2, &
      get_i8_3, get_i8_4, get_i1_0, get_i1_1, get_i1_2, get_i1_3, get_i1_4, &
      get_i2_0, get_i2_1, get_i2_2, get_i2_3, get_i2_4, get_l_0, get_l_1, get_l_2, get_l_3, get_l_4, &
      get_c4_0, get_c4_1, get_c4_2, get_c4_3, get_c4_4, get_c8_0, get_c8_1, get_c8_2, get_c8_3, get_c8_4
  end interface

  ! x = a: call get(a, x), stopping the program on an error.
  interface assignment(=)
    module procedure set_r4_0, set_r4_1, set_r4_2, set_r4_3, set_r4_4, set_r8_0, set_r8_1, set_r8_2, &
      set_r8_3, set_r8_4, set_i4_0, set_i4_1, set_i4_2, set_i4_3, set_i4_4, set_i8_0, set_i8_1, set_i8_2, &
      set_i8_3, set_i8_4, set_i1_0, set_i1_1, set_i1_2, set_i1_3, set_i1_4, &
      set_i2_0, set_i2_1, set_i2_2, set_i2_3, set_i2_4, set_l_0, set_l_1, set_l_2, set_l_3, set_l_4, &
      set_c4_0, set_c4_1, set_c4_2, set_c4_3, set_c4_4, set_c8_0, set_c8_1, set_c8_2, set_c8_3, set_c8_4
  end interface

  ! Operators: sl_array with sl_array, or with a real(4), real(8), integer(4) or integer(8)
  ! scalar on either side (weak scalars, README "Type promotion": an integer keeps the array's type, a real
  ! scalar gives a real result of the array's precision, real(8) for an integer array).
  ! Comparisons give logical (bool) arrays. Operands broadcast as in the C API.
  interface operator(+)
    module procedure add_any, add_r4, add_r8, add_i4, add_i8, add_c4, add_c8
  end interface
  interface operator(-)
    module procedure sub_any, sub_r4, sub_r8, sub_i4, sub_i8, sub_c4, sub_c8, neg_arr
  end interface
  interface operator(*)
    module procedure mul_any, mul_r4, mul_r8, mul_i4, mul_i8, mul_c4, mul_c8
  end interface
  interface operator(/)
    module procedure div_any, div_r4, div_r8, div_i4, div_i8, div_c4, div_c8
  end interface
  interface operator(**)
    module procedure pow_any, pow_r4, pow_r8, pow_i4, pow_i8, pow_c4, pow_c8
  end interface
  interface operator(==)
    module procedure eq_any, eq_r4, eq_r8, eq_i4, eq_i8
  end interface
  interface operator(/=)
    module procedure ne_any, ne_r4, ne_r8, ne_i4, ne_i8
  end interface
  interface operator(<)
    module procedure lt_any, lt_r4, lt_r8, lt_i4, lt_i8
  end interface
  interface operator(<=)
    module procedure le_any, le_r4, le_r8, le_i4, le_i8
  end interface
  interface operator(>)
    module procedure gt_any, gt_r4, gt_r8, gt_i4, gt_i8
  end interface
  interface operator(>=)
    module procedure ge_any, ge_r4, ge_r8, ge_i4, ge_i8
  end interface
  interface operator(.and.)
    module procedure and_arr
  end interface
  interface operator(.or.)
    module procedure or_arr
  end interface
  interface operator(.eqv.)
    module procedure eqv_arr
  end interface
  interface operator(.neqv.)
    module procedure neqv_arr
  end interface
  interface operator(.not.)
    module procedure not_op
  end interface

  ! Element-wise functions under their Fortran names (aint truncates, anint rounds halfway
  ! cases away from zero, not is bitwise), then Sluice's own (signum is -1, 0 or 1).
  interface abs
    module procedure abs_arr
  end interface
  interface sqrt
    module procedure sqrt_arr
  end interface
  interface exp
    module procedure exp_arr
  end interface
  interface log
    module procedure log_arr
  end interface
  interface log10
    module procedure log10_arr
  end interface
  interface sin
    module procedure sin_arr
  end interface
  interface cos
    module procedure cos_arr
  end interface
  interface tan
    module procedure tan_arr
  end interface
  interface asin
    module procedure asin_arr
  end interface
  interface acos
    module procedure acos_arr
  end interface
  interface atan
    module procedure atan_arr
  end interface
  interface sinh
    module procedure sinh_arr
  end interface
  interface cosh
    module procedure cosh_arr
  end interface
  interface tanh
    module procedure tanh_arr
  end interface
  interface asinh
    module procedure asinh_arr
  end interface
  interface acosh
    module procedure acosh_arr
  end interface
  interface atanh
    module procedure atanh_arr
  end interface
  interface erf
    module procedure erf_arr
  end interface
  ! Fortran 2008's erfc, log_gamma and gamma; erfinv has no intrinsic.
  interface erfc
    module procedure erfc_arr
  end interface
  interface erfinv
    module procedure erfinv_arr
  end interface
  interface log_gamma
    module procedure log_gamma_arr
  end interface
  interface gamma
    module procedure gamma_arr
  end interface
  interface aint
    module procedure aint_arr
  end interface
  interface anint
    module procedure anint_arr
  end interface
  interface not
    module procedure not_arr
  end interface
  interface rsqrt
    module procedure rsqrt_arr
  end interface
  interface cbrt
    module procedure cbrt_arr
  end interface
  interface rcp
    module procedure rcp_arr
  end interface
  interface exp2
    module procedure exp2_arr
  end interface
  interface expm1
    module procedure expm1_arr
  end interface
  interface log2
    module procedure log2_arr
  end interface
  interface log1p
    module procedure log1p_arr
  end interface
  interface signum
    module procedure signum_arr
  end interface
  interface is_nan
    module procedure is_nan_arr
  end interface
  interface is_inf
    module procedure is_inf_arr
  end interface
  ! Neither NaN nor infinite (complex: both parts).
  interface is_finite
    module procedure is_finite_arr
  end interface
  ! The phase angle of a complex array, atan2(aimag(z), real(z)) (Fortran has no intrinsic).
  ! C99's name: `arg` would clash with the programs' own variables of that name.
  interface carg
    module procedure arg_arr
  end interface
  interface floor
    module procedure floor_arr
  end interface
  interface ceiling
    module procedure ceiling_arr
  end interface
  interface nint
    module procedure nint_arr
  end interface

  ! Element-wise functions of two arguments: the second may be an sl_array or a scalar.
  interface atan2
    module procedure atan2_arr
  end interface
  interface hypot
    module procedure hypot_arr
  end interface
  interface min
    module procedure min_arr
  end interface
  interface max
    module procedure max_arr
  end interface
  interface mod
    module procedure mod_arr
  end interface
  interface iand
    module procedure iand_arr
  end interface
  interface ior
    module procedure ior_arr
  end interface
  interface ieor
    module procedure ieor_arr
  end interface

  ! modulo: the remainder with the sign of the divisor (mod keeps the dividend's).
  interface modulo
    module procedure modulo_arr
  end interface
  ! Shifts of integer arrays: shiftl, shifta (arithmetic right) and shiftr (logical right)
  ! by a count array or scalar; ishft(i, shift) with a scalar count shifts left for
  ! positive counts and logically right for negative ones. Counts beyond the bit size give
  ! 0 (shifta: -1 for negative values).
  interface shiftl
    module procedure shiftl_arr
  end interface
  interface shifta
    module procedure shifta_arr
  end interface
  interface shiftr
    module procedure shiftr_arr
  end interface
  interface ishft
    module procedure ishft_arr
  end interface
  ! sign(a, b): the magnitude of a with the sign bit of b (C copysign).
  interface sign
    module procedure sign_arr
  end interface
  ! next_after(x, y): the next representable value after x toward y (C nextafter).
  interface next_after
    module procedure next_after_arr
  end interface
  ! clamp(x, lo, hi) = min(max(x, lo), hi): arrays or scalars (scalars take x's type).
  interface clamp
    module procedure clamp_arr
  end interface
  ! fma(a, b, c) = a * b + c rounded once (real arrays; Fortran 2018's ieee_fma of arrays).
  interface fma
    module procedure fma_arr
  end interface
  ! repeat(array, counts [, dim]): each element repeated along dim (1 when absent); a
  ! generic, so the intrinsic repeat of character strings stays usable.
  interface repeat
    module procedure repeat_arr
  end interface

  ! Conversions: real(a [, kind]), dble(a), int(a [, kind]), logical(a) (nonzero is true).
  interface real
    module procedure real_arr
  end interface
  ! Complex arrays: conjg(z), aimag(z), cmplx(x, y) (real(z) is the real part, abs(z) the
  ! modulus).
  interface conjg
    module procedure conjg_arr
  end interface
  interface aimag
    module procedure aimag_arr
  end interface
  interface cmplx
    module procedure cmplx_arr
  end interface
  interface dble
    module procedure dble_arr
  end interface
  interface int
    module procedure int_arr
  end interface
  interface logical
    module procedure logical_arr
  end interface

  ! Reductions over everything (a rank-0 result) or along `dim`, which the result drops as in
  ! Fortran. count gives integer(8); mean is Sluice's own.
  interface norm2
    module procedure norm2_arr
  end interface
  interface sum
    module procedure sum_arr
  end interface
  interface product
    module procedure product_arr
  end interface
  interface maxval
    module procedure maxval_arr
  end interface
  interface minval
    module procedure minval_arr
  end interface
  interface count
    module procedure count_arr
  end interface
  interface any
    module procedure any_arr
  end interface
  interface all
    module procedure all_arr
  end interface
  interface mean
    module procedure mean_arr
  end interface
  ! minloc(array, dim), maxloc(array, dim): the 1-based position of the first smallest or
  ! largest element along dim (integer(8)); dim is required.
  interface minloc
    module procedure minloc_arr
  end interface
  ! Fortran's pack(array, mask): the elements where mask holds, as a vector.
  interface pack
    module procedure pack_arr
  end interface
  interface histogram
    module procedure histogram_edges, histogram_range
  end interface
  interface maxloc
    module procedure maxloc_arr
  end interface

  ! Products and rearrangements under their Fortran names.
  interface matmul
    module procedure matmul_arr
  end interface
  interface dot_product
    module procedure dot_product_arr
  end interface
  ! outer(a, b): a(i) * b(j) of vectors; outer(op, a, b): op(a(i...), b(j...)), any shapes.
  interface outer
    module procedure outer_arr, outer_op
  end interface
  ! alpha op_a(a) op_b(b) + beta c, BLAS's general product (real or complex scalars).
  interface gemm
    module procedure gemm_real, gemm_complex
  end interface
  interface transpose
    module procedure transpose_arr
  end interface
  interface reshape
    module procedure reshape_arr
  end interface
  interface cshift
    module procedure cshift_arr
  end interface
  interface eoshift
    module procedure eoshift_arr
  end interface
  interface spread
    module procedure spread_arr
  end interface
  interface merge
    module procedure merge_arr
  end interface
  interface shape
    module procedure shape_arr
  end interface
  interface size
    module procedure size_arr
  end interface

  public :: get, assignment(=), operator(+), operator(-), operator(*), operator(/), operator(**), &
    operator(==), operator(/=), operator(<), operator(<=), operator(>), operator(>=), operator(.and.), &
    operator(.or.), operator(.eqv.), operator(.neqv.), operator(.not.)
  public :: abs, sqrt, exp, log, log10, sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, asinh, acosh, &
    atanh, erf, erfc, log_gamma, gamma, aint, anint, not, floor, ceiling, nint, atan2, hypot, min, max, mod, iand, ior, ieor, &
    real, dble, int, logical, conjg, aimag, cmplx, sum, product, maxval, minval, count, any, all, minloc, maxloc, matmul, &
    dot_product, transpose, reshape, cshift, eoshift, spread, merge, shape, size
  public :: gemm, outer, inner_product
  public :: norm2, variance, stddev, cummax, cummin
  public :: rsqrt, cbrt, rcp, exp2, expm1, log2, log1p, erfinv, signum, is_nan, is_inf, is_finite, carg, mean, cumsum, cumprod, &
    section, permute, project, pad, tile, broadcast_to, concat, gather, take_along, interp1, interp2, scatter, constant, &
    iota, identity
  public :: modulo, shiftl, shifta, shiftr, ishft, sign, next_after, clamp, fma
  public :: linspace, arange, diag, triu, tril, repeat, meshgrid, flip, squeeze, expand_dims, moveaxis
  public :: assign, assign_where, assign_indexed
  public :: fft, ifft, rfft, irfft
  public :: lu, lu_solve, lu_unpack, solve, inv, det, slogdet, rcond, cholesky, cholesky_solve, triangular_solve, &
    qr, lstsq
  public :: sort, argsort, topk, searchsorted, nonzero, pack, unique, histogram
  public :: set_compare, compare_stats, reference, debug_peek
  public :: scope_begin, scope_end, keep, unscope, release, update, retain, eval, hint_read, sync, init, live_handles, &
    error_message, macro_begin, macro_end, macro_cancel, rng_create, rng_destroy, rng_get_state, rng_set_state, &
    random_uniform, random_normal, random_range, random_integers, random_exponential, random_bernoulli, &
    random_poisson, random_gamma, random_beta, random_chisquare, random_sobol
  public :: sl_apply_function, apply_elements, apply_blocks, block_length, output_aggregate, output_slice, &
    output_scalar, output_size

  ! The message of the last error this module reported (per thread under OpenMP), in a
  ! fixed-length buffer (see `append`).
  character(len=4096) :: last_message = ''
  integer :: last_length = 0
  !$omp threadprivate(last_message, last_length)
  ! Fortran's default kinds, named here because `kind` is an argument name below.
  integer, parameter :: default_real = kind(1.0), default_integer = kind(1)
  character(*), parameter :: bad_operand = 'an operand is neither an sl_array nor a real, integer or logical scalar'

contains

  ! ---------------------------------------------------------------------------------------
  ! Errors.

  ! Hands `status` to the caller: into `stat` when present, else a failure prints the
  ! message and stops the program.
  subroutine deliver(status, stat)
    integer(c_int), intent(in) :: status
    integer, intent(out), optional :: stat
    if (present(stat)) then
      stat = status
    else if (status /= SL_OK) then
      write (error_unit, '(2a)') 'sluice: ', last_message(1:last_length)
      error stop
    end if
  end subroutine

  ! Ends a call into the C API; a failure's message comes from sl_last_error.
  subroutine finish(status, stat)
    integer(c_int), intent(in) :: status
    integer, intent(out), optional :: stat
    type(sl_error_info) :: info
    if (status /= SL_OK) then
      last_length = 0
      if (sl_last_error(info) == SL_OK) then
        call append_status_name(info%status)
        call append(': ')
        call append_c_string(info%message)
      else
        call append('no detail (sl_last_error failed)')
      end if
    end if
    call deliver(status, stat)
  end subroutine

  ! A failure this module finds itself.
  subroutine fail(status, message, stat)
    integer(c_int), intent(in) :: status
    character(*), intent(in) :: message
    integer, intent(out), optional :: stat
    last_length = 0
    call append_status_name(status)
    call append(': ')
    call append(message)
    call deliver(status, stat)
  end subroutine

  ! The message is built in the per-thread buffer without allocatable strings: with
  ! deferred-length strings in this path, OpenMP threads failing at once corrupted the
  ! heap (gfortran 12; tests/fortran/threads failed about half its runs).
  subroutine append(text)
    character(*), intent(in) :: text
    integer :: n
    n = min(len(text), len(last_message) - last_length)
    last_message(last_length + 1:last_length + n) = text(1:n)
    last_length = last_length + n
  end subroutine

  subroutine append_c_string(p)
    type(c_ptr), intent(in) :: p
    character(kind=c_char), pointer :: chars(:)
    integer :: i
    if (.not. c_associated(p)) return
    call c_f_pointer(p, chars, [c_strlen(p)])
    do i = 1, min(size(chars), len(last_message) - last_length)
      last_message(last_length + i:last_length + i) = chars(i)
    end do
    last_length = min(last_length + size(chars), len(last_message))
  end subroutine

  subroutine append_status_name(status)
    integer(c_int), intent(in) :: status
    type(c_ptr) :: p
    if (sl_status_name(status, p) == SL_OK) then
      call append_c_string(p)
    else
      call append('an unknown status')
    end if
  end subroutine

  ! The message of the last error reported by this module: "SL_ERR_...: what went wrong".
  function error_message() result(message)
    character(len=last_length) :: message
    message = last_message(1:last_length)
  end function

  function shape_text(dims) result(text)
    integer(c_int64_t), intent(in) :: dims(:)
    character(:), allocatable :: text
    character(24) :: item
    integer :: d
    text = '('
    do d = 1, size(dims)
      write (item, '(i0)') dims(d)
      if (d > 1) text = text // ','
      text = text // trim(item)
    end do
    text = text // ')'
  end function

  function int_text(n) result(text)
    integer, intent(in) :: n
    character(:), allocatable :: text
    character(24) :: item
    write (item, '(i0)') n
    text = trim(item)
  end function

  ! ---------------------------------------------------------------------------------------
  ! Small helpers.

  ! Releases `h`, an intermediate handle of this module (its pending work stays queued while
  ! a result needs it); a failure to release becomes `status` if that was still SL_OK.
  subroutine drop(h, status)
    integer(c_int64_t), intent(in) :: h
    integer(c_int), intent(inout) :: status
    integer(c_int) :: released
    if (h == 0) return
    released = sl_release(h)
    if (status == SL_OK) status = released
  end subroutine

  subroutine drop_all(handles, status)
    integer(c_int64_t), intent(in) :: handles(:)
    integer(c_int), intent(inout) :: status
    integer :: i
    do i = 1, size(handles)
      call drop(handles(i), status)
    end do
  end subroutine

  ! A Fortran dimension (1-based; 1 when absent) as the C API's (0-based).
  integer(c_int32_t) function c_dim(dim)
    integer, intent(in), optional :: dim
    c_dim = 0
    if (present(dim)) c_dim = int(dim - 1, c_int32_t)
  end function

  ! The value of a Fortran scalar operand as the double the C API takes; false when `s` is
  ! not a real, integer or logical scalar of a kind Sluice has.
  logical function scalar_value(s, v)
    class(*), intent(in) :: s
    real(c_double), intent(out) :: v
    scalar_value = .true.
    select type (s)
    type is (real(c_float))
      v = real(s, c_double)
    type is (real(c_double))
      v = s
    type is (integer(c_int32_t))
      v = real(s, c_double)
    type is (integer(c_int64_t))
      v = real(s, c_double)
    type is (logical)
      v = merge(1.0_c_double, 0.0_c_double, s)
    class default
      v = 0
      scalar_value = .false.
    end select
  end function

  ! Whether `s` is a complex(4) or complex(8) scalar, and its value.
  logical function complex_value(s, z)
    class(*), intent(in) :: s
    complex(c_double_complex), intent(out) :: z
    complex_value = .true.
    select type (s)
    type is (complex(c_float_complex))
      z = cmplx(s, kind=c_double_complex)
    type is (complex(c_double_complex))
      z = s
    class default
      z = 0
      complex_value = .false.
    end select
  end function

  ! scalar_value for an optional fill value, 0 when absent.
  logical function fill_value(s, v)
    class(*), intent(in), optional :: s
    real(c_double), intent(out) :: v
    v = 0
    fill_value = .true.
    if (present(s)) fill_value = scalar_value(s, v)
  end function

  integer(c_size_t) function element_bytes(dtype)
    integer(c_int32_t), intent(in) :: dtype
    select case (dtype)
    case (SL_C128)
      element_bytes = 16
    case (SL_F64, SL_I64, SL_U64, SL_C64)
      element_bytes = 8
    case (SL_F32, SL_I32, SL_U32)
      element_bytes = 4
    case (SL_I16, SL_U16, SL_F16, SL_BF16)
      element_bytes = 2
    case default
      element_bytes = 1
    end select
  end function

  integer(c_int) function rank_of(h, rank) result(status)
    integer(c_int64_t), intent(in) :: h
    integer, intent(out) :: rank
    integer(c_int32_t) :: r
    r = 0
    status = sl_rank(h, r)
    rank = r
  end function

  integer(c_int) function shape_of(h, dims) result(status)
    integer(c_int64_t), intent(in) :: h
    integer(c_int64_t), allocatable, intent(out) :: dims(:)
    integer :: rank
    status = rank_of(h, rank)
    allocate (dims(rank))
    if (status == SL_OK) status = sl_shape(h, dims, int(rank, c_int32_t))
  end function

  ! Whether `n`, the length of a per-dimension argument of `what`, is the rank of `a`; the
  ! C API reads one entry per dimension, so anything else fails here.
  logical function one_per_dim(a, n, what, stat) result(ok)
    type(sl_array), intent(in) :: a
    integer, intent(in) :: n
    character(*), intent(in) :: what
    integer, intent(out), optional :: stat
    integer(c_int) :: status
    integer :: rank
    status = rank_of(a%handle, rank)
    ok = status == SL_OK .and. n == rank
    if (status /= SL_OK) then
      call finish(status, stat)
    else if (.not. ok) then
      call fail(SL_ERR_INVALID_ARGUMENT, what // ': ' // int_text(n) // ' entries for an array of rank ' // &
        int_text(rank), stat)
    end if
  end function

  ! ---------------------------------------------------------------------------------------
  ! Moving data between Fortran and Sluice.

  ! A new array of `dtype` and shape `dims` holding a copy of the Fortran memory at `data`.
  type(sl_array) function create(dtype, dims, data, stat) result(a)
    integer(c_int32_t), intent(in) :: dtype
    integer(c_int64_t), intent(in) :: dims(:)
    type(c_ptr), intent(in) :: data
    integer, intent(out), optional :: stat
    call finish(sl_create(dtype, size(dims, kind=c_int32_t), dims, SL_COL_MAJOR, data, &
      product(dims) * element_bytes(dtype), a%handle), stat)
  end function

  ! A new bool array from Fortran logicals (column-major order), as Sluice's bytes.
  type(sl_array) function create_flags(dims, flags, stat) result(a)
    integer(c_int64_t), intent(in) :: dims(:)
    logical, intent(in) :: flags(:)
    integer, intent(out), optional :: stat
    integer(c_int8_t), target :: bytes(size(flags))
    bytes = merge(1_c_int8_t, 0_c_int8_t, flags)
    a = create(SL_BOOL, dims, c_loc(bytes), stat)
  end function

  ! Computes `a` and copies it into the Fortran memory at `dst`, an array of shape `dims`
  ! and type `dtype`, converting the elements when `a` has another type.
  subroutine read_into(a, dtype, dims, dst, stat)
    type(sl_array), intent(in) :: a
    integer(c_int32_t), intent(in) :: dtype
    integer(c_int64_t), intent(in) :: dims(:)
    type(c_ptr), intent(in) :: dst
    integer, intent(out), optional :: stat
    integer(c_int64_t), allocatable :: have(:)
    integer(c_int64_t) :: src
    integer(c_int32_t) :: from
    integer(c_int) :: status
    status = shape_of(a%handle, have)
    if (status == SL_OK) status = sl_get_dtype(a%handle, from)
    if (status /= SL_OK) then
      call finish(status, stat)
      return
    end if
    if (.not. fits(have, dims)) then
      call fail(SL_ERR_SHAPE_MISMATCH, 'cannot assign an array of shape ' // shape_text(have) // &
        ' to a Fortran variable of shape ' // shape_text(dims), stat)
      return
    end if
    src = a%handle
    if (from /= dtype) status = sl_cast(a%handle, dtype, src)
    if (status == SL_OK) status = sl_read(src, SL_COL_MAJOR, dst, product(dims) * element_bytes(dtype))
    if (src /= a%handle) call drop(src, status)
    call finish(status, stat)
  end subroutine

  ! Whether an array of shape `have` can be read into a Fortran variable of shape `want`.
  logical function fits(have, want)
    integer(c_int64_t), intent(in) :: have(:), want(:)
    if (size(want) == 0) then
      fits = product(have) == 1
    else if (size(have) == size(want)) then
      fits = all(have == want)
    else
      fits = .false.
    end if
  end function

  ! read_into for logical variables: Sluice's bools as bytes into `flags`; whether it worked.
  logical function read_flags(a, dims, flags, stat) result(ok)
    type(sl_array), intent(in) :: a
    integer(c_int64_t), intent(in) :: dims(:)
    integer(c_int8_t), intent(inout), target, contiguous :: flags(:)
    integer, intent(out), optional :: stat
    integer(c_int) :: status
    call read_into(a, SL_BOOL, dims, c_loc(flags), status)
    call deliver(status, stat)
    ok = status == SL_OK
  end function

  ! ---------------------------------------------------------------------------------------
  ! Lifetimes and the runtime.

  ! Opens a scope on this thread: arrays created until the matching scope_end are released
  ! by it, except those moved out with keep or update.
  subroutine scope_begin(stat)
    integer, intent(out), optional :: stat
    call finish(sl_scope_begin(), stat)
  end subroutine

  ! Closes the innermost scope, releasing the arrays created in it.
  subroutine scope_end(stat)
    integer, intent(out), optional :: stat
    call finish(sl_scope_end(), stat)
  end subroutine

  ! Moves `a`, created in the innermost scope, to the enclosing one (out of all scopes if none).
  subroutine keep(a, stat)
    type(sl_array), intent(in) :: a
    integer, intent(out), optional :: stat
    call finish(sl_keep(a%handle), stat)
  end subroutine

  ! Takes `a` out of every scope of this thread: only release ends it (for an array a
  ! library holds across its callers' scopes).
  subroutine unscope(a, stat)
    type(sl_array), intent(in) :: a
    integer, intent(out), optional :: stat
    call finish(sl_unscope(a%handle), stat)
  end subroutine

  ! Releases `a` now and sets it to no array (other variables holding the handle become stale).
  subroutine release(a, stat)
    type(sl_array), intent(inout) :: a
    integer, intent(out), optional :: stat
    integer(c_int) :: status
    status = sl_release(a%handle)
    if (status == SL_OK) a%handle = 0
    call finish(status, stat)
  end subroutine

  ! For loops with a scope per iteration: `x` takes `value` (an array created in the current
  ! scope), which moves to the enclosing scope to outlive this one, and x's previous array
  ! is released.
  subroutine update(x, value, stat)
    type(sl_array), intent(inout) :: x
    type(sl_array), intent(in) :: value
    integer, intent(out), optional :: stat
    integer(c_int) :: status
    status = SL_OK
    if (x%handle /= value%handle) then
      status = sl_keep(value%handle)
      if (status == SL_OK .and. x%handle /= 0) status = sl_release(x%handle)
      if (status == SL_OK) x = value
    end if
    call finish(status, stat)
  end subroutine

  ! A second handle to a's array, released on its own: for a variable that must outlive
  ! another holding the same array (`p = retain(r)` when r is updated or released first).
  type(sl_array) function retain(a, stat) result(r)
    type(sl_array), intent(in) :: a
    integer, intent(out), optional :: stat
    call finish(sl_retain(a%handle, r%handle), stat)
  end function

  ! Starts computing these arrays now, without waiting.
  subroutine eval(arrays, stat)
    type(sl_array), intent(in) :: arrays(:)
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: handles(size(arrays))
    handles = arrays%handle
    call finish(sl_eval(handles, size(arrays, kind=c_int32_t)), stat)
  end subroutine

  ! Tells the runtime `a` will be read soon.
  subroutine hint_read(a, stat)
    type(sl_array), intent(in) :: a
    integer, intent(out), optional :: stat
    call finish(sl_hint_read(a%handle), stat)
  end subroutine

  ! Computes everything pending and waits for it.
  subroutine sync(stat)
    integer, intent(out), optional :: stat
    call finish(sl_sync(), stat)
  end subroutine

  ! Starts the runtime with these settings (others from the environment or defaults); fails
  ! if it is running. Optional: the first Sluice call starts it with the defaults.
  subroutine init(threads, memory_limit, fusion, queue_limit, trace_cache_entries, macro_cache_entries, backend, &
                  stat)
    integer, intent(in), optional :: threads, queue_limit, trace_cache_entries, macro_cache_entries, backend
    integer(c_int64_t), intent(in), optional :: memory_limit
    logical, intent(in), optional :: fusion
    integer, intent(out), optional :: stat
    type(sl_config), target :: config
    integer(c_int) :: status
    status = sl_config_default(config)
    if (present(threads)) config%threads = int(threads, c_int32_t)
    if (present(memory_limit)) config%memory_limit = memory_limit
    if (present(fusion)) config%fusion = merge(1_c_int32_t, 0_c_int32_t, fusion)
    if (present(queue_limit)) config%queue_limit = int(queue_limit, c_int32_t)
    if (present(trace_cache_entries)) config%trace_cache_entries = int(trace_cache_entries, c_int32_t)
    if (present(macro_cache_entries)) config%macro_cache_entries = int(macro_cache_entries, c_int32_t)
    if (present(backend)) config%backend = int(backend, c_int32_t)
    if (status == SL_OK) status = sl_init(c_loc(config))
    call finish(status, stat)
  end subroutine

  ! How many array handles are live (to check for leaks).
  integer(c_int64_t) function live_handles(stat) result(n)
    integer, intent(out), optional :: stat
    n = -1
    call finish(sl_live_handles(n), stat)
  end function

  ! ---------------------------------------------------------------------------------------
  ! Debugging: result comparison against a reference run, and intermediate values.

  ! Switches result comparison (mode SL_COMPARE_OFF, _COMPUTE or _COPYOUT; action
  ! SL_COMPARE_REPORT (the default), _ERROR or _ABORT; tolerances default to the result
  ! type's).
  subroutine set_compare(mode, action, abs_tol, rel_tol, stat)
    integer, intent(in) :: mode
    integer, intent(in), optional :: action
    real(c_double), intent(in), optional :: abs_tol, rel_tol
    integer, intent(out), optional :: stat
    type(sl_compare_settings) :: settings
    settings = sl_compare_settings(int(mode, c_int32_t), SL_COMPARE_REPORT, -1.0_c_double, -1.0_c_double)
    if (present(action)) settings%action = int(action, c_int32_t)
    if (present(abs_tol)) settings%abs_tol = abs_tol
    if (present(rel_tol)) settings%rel_tol = rel_tol
    call finish(sl_set_compare(settings), stat)
  end subroutine

  ! How many values result comparison has compared, and how many differed.
  type(sl_compare_stats) function compare_stats(stat) result(s)
    integer, intent(out), optional :: stat
    s = sl_compare_stats(-1, -1)
    call finish(sl_get_compare_stats(s), stat)
  end function

  ! The reference value of a (f64 for real arrays), computed while comparison was on.
  type(sl_array) function reference(a, stat) result(r)
    type(sl_array), intent(in) :: a
    integer, intent(out), optional :: stat
    call finish(sl_reference(a%handle, r%handle), stat)
  end function

  ! A new array holding the value a has now, computed without changing how the rest of
  ! the program's work is fused or computed (read it like any array).
  type(sl_array) function debug_peek(a, stat) result(r)
    type(sl_array), intent(in) :: a
    integer, intent(out), optional :: stat
    integer(c_int64_t), allocatable :: dims(:)
    integer(c_int32_t) :: dtype
    integer(c_int8_t), allocatable, target :: bytes(:)
    integer(c_int) :: status
    status = shape_of(a%handle, dims)
    if (status == SL_OK) status = sl_get_dtype(a%handle, dtype)
    if (status == SL_OK) then
      allocate(bytes(max(1_c_size_t, product(dims) * element_bytes(dtype))))
      status = sl_debug_peek(a%handle, SL_COL_MAJOR, c_loc(bytes), product(dims) * element_bytes(dtype))
    end if
    if (status == SL_OK) then
      r = create(dtype, dims, c_loc(bytes), stat)
    else
      call finish(status, stat)
    end if
  end function

  ! ---------------------------------------------------------------------------------------
  ! Code reuse sections (macros):
  !
  !   if (macro_begin('step', [u, v], out)) then   ! true: run the body, which is recorded
  !     out(1) = ...                                ! computed from u and v
  !     call macro_end(out)
  !   end if                                        ! either way out holds the results
  !
  ! The body runs, and is recorded, the first time for a name, the inputs' types and shapes
  ! and the control values; after that the section is replayed on the new inputs without
  ! running the body. The outputs are new arrays of the current scope. Inside the body,
  ! reads and eval are refused, and the arrays it makes other than the outputs are released
  ! by macro_end; a body whose calls fail (with stat) ends with macro_cancel instead.

  ! Opens the section; whether the body must run. `controls` are values the body's calls
  ! depend on (each combination is its own recording).
  logical function macro_begin(name, inputs, outputs, controls, stat) result(record)
    character(*), intent(in) :: name
    type(sl_array), intent(in) :: inputs(:)
    type(sl_array), intent(inout) :: outputs(:)
    real(c_double), intent(in), optional :: controls(:)
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: ins(size(inputs)), outs(size(outputs))
    real(c_double), allocatable :: values(:)
    integer(c_int32_t) :: mode
    integer(c_int) :: status
    if (present(controls)) then
      allocate (values, source=controls)
    else
      allocate (values(0))
    end if
    ins = inputs%handle
    outs = 0
    mode = SL_MACRO_REPLAY
    status = sl_macro_begin(name // c_null_char, ins, size(ins, kind=c_int32_t), values, &
      size(values, kind=c_int32_t), outs, size(outs, kind=c_int32_t), mode)
    outputs%handle = outs
    record = status == SL_OK .and. mode == SL_MACRO_RECORD
    call finish(status, stat)
  end function

  ! Closes the section being recorded, declaring its outputs (as many as macro_begin got).
  subroutine macro_end(outputs, stat)
    type(sl_array), intent(in) :: outputs(:)
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: outs(size(outputs))
    outs = outputs%handle
    call finish(sl_macro_end(outs, size(outs, kind=c_int32_t)), stat)
  end subroutine

  ! Abandons the section being recorded: nothing is cached, the arrays it made are released.
  subroutine macro_cancel(stat)
    integer, intent(out), optional :: stat
    call finish(sl_macro_cancel(), stat)
  end subroutine

  ! ---------------------------------------------------------------------------------------
  ! Applying a function to pieces. The function is a bind(C) procedure with the interface
  ! sl_apply_function, which works on handles; inside it, wrap them to use this layer:
  !
  !   integer(c_int) function scaled(pieces, n_in, outputs, n_out, user) result(status) bind(C)
  !     integer(c_int32_t), value :: n_in, n_out
  !     integer(c_int64_t), intent(in) :: pieces(n_in)
  !     integer(c_int64_t), intent(inout) :: outputs(n_out)
  !     type(c_ptr), value :: user
  !     type(sl_array) :: x, y
  !     x%handle = pieces(1)
  !     y = 2 * x + 1
  !     outputs(1) = y%handle
  !     status = SL_OK
  !   end function
  !
  !   call apply_elements(scaled, [a], out)   ! out(1) = 2 * a + 1, one fused kernel
  !
  ! It is called once per recording, with placeholders shaped like one piece; the rules of
  ! macro_begin's body hold (no reads, only its pieces and arrays computed from them). The
  ! recording is cached under the procedure, the inputs' types and shapes, the options and
  ! the controls: calling again with the same ones does not call the procedure.

  ! out(k) = f(inputs) once per element of the inputs' aggregate size.
  subroutine apply_elements(f, inputs, outputs, controls, stat)
    procedure(sl_apply_function) :: f
    type(sl_array), intent(in) :: inputs(:)
    type(sl_array), intent(inout) :: outputs(:)
    real(c_double), intent(in), optional :: controls(:)
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: ins(size(inputs)), outs(size(outputs))
    real(c_double), allocatable :: values(:)
    integer(c_int) :: status
    if (present(controls)) then
      allocate (values, source=controls)
    else
      allocate (values(0))
    end if
    ins = inputs%handle
    outs = 0
    status = sl_apply_elements(c_funloc(f), c_null_ptr, ins, size(ins, kind=c_int32_t), values, &
      size(values, kind=c_int32_t), outs, size(outs, kind=c_int32_t))
    outputs%handle = outs
    call finish(status, stat)
  end subroutine

  ! f on blocks of the inputs along dimension `dim` (1-based; absent: the last one longer
  ! than 1), `block_size` elements each (default 1), each also seeing `overlap_before` and
  ! `overlap_after` neighbours; outside the array a block sees `pad` (default 0), or the
  ! edge (boundary=SL_BOUNDARY_CLAMP) or the other end (SL_BOUNDARY_WRAP). `descriptors`
  ! (output_aggregate, output_slice, output_scalar, output_size) say how each output is put
  ! together (default: the inputs' aggregate size).
  subroutine apply_blocks(f, inputs, outputs, dim, block_size, overlap_before, overlap_after, boundary, pad, &
      descriptors, controls, stat)
    procedure(sl_apply_function) :: f
    type(sl_array), intent(in) :: inputs(:)
    type(sl_array), intent(inout) :: outputs(:)
    integer, intent(in), optional :: dim, block_size, overlap_before, overlap_after, boundary
    real(c_double), intent(in), optional :: pad
    type(sl_block_output), intent(in), optional, target :: descriptors(:)
    real(c_double), intent(in), optional, target :: controls(:)
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: ins(size(inputs)), outs(size(outputs))
    type(sl_block_options) :: options
    integer(c_int) :: status
    status = sl_block_options_default(options)
    if (present(dim)) options%dim = int(dim - 1, c_int32_t)
    if (present(block_size)) options%block_size = int(block_size, c_int64_t)
    if (present(overlap_before)) options%overlap_before = int(overlap_before, c_int64_t)
    if (present(overlap_after)) options%overlap_after = int(overlap_after, c_int64_t)
    if (present(boundary)) options%boundary = int(boundary, c_int32_t)
    if (present(pad)) options%pad = pad
    if (present(descriptors)) then
      if (size(descriptors) > 0) options%outputs = c_loc(descriptors)
      options%n_outputs = size(descriptors, kind=c_int32_t)
    end if
    if (present(controls)) then
      if (size(controls) > 0) options%controls = c_loc(controls)
      options%n_controls = size(controls, kind=c_int32_t)
    end if
    ins = inputs%handle
    outs = 0
    status = sl_apply_blocks(c_funloc(f), c_null_ptr, ins, size(ins, kind=c_int32_t), options, outs, &
      size(outs, kind=c_int32_t))
    outputs%handle = outs
    call finish(status, stat)
  end subroutine

  ! Inside a function apply_blocks is recording: how many of the block's own elements lie
  ! inside the array (a rank-0 int64 array that differs from block to block).
  type(sl_array) function block_length(stat) result(r)
    integer, intent(out), optional :: stat
    call finish(sl_apply_block_length(r%handle), stat)
  end function

  ! Output descriptors of apply_blocks.
  type(sl_block_output) function output_aggregate() result(o)
    o%kind = SL_OUTPUT_AGGREGATE
  end function
  type(sl_block_output) function output_slice() result(o)
    o%kind = SL_OUTPUT_SLICE
  end function
  type(sl_block_output) function output_scalar() result(o)
    o%kind = SL_OUTPUT_SCALAR
  end function
  ! The blocks' results concatenated into an array of size `dims`.
  type(sl_block_output) function output_size(dims) result(o)
    integer, intent(in) :: dims(:)
    integer :: n
    n = min(size(dims), 8)
    o%kind = SL_OUTPUT_SIZE
    o%rank = size(dims, kind=c_int32_t)   ! more than 8 is refused by sl_apply_blocks
    o%dims(1:n) = int(dims(1:n), c_int64_t)
  end function

  ! ---------------------------------------------------------------------------------------
  ! Random numbers.

  type(sl_rng) function rng_create_i8(seed, kind, stat) result(rng)
    integer(c_int64_t), intent(in) :: seed
    integer, intent(in), optional :: kind
    integer, intent(out), optional :: stat
    integer(c_int32_t) :: bits
    bits = SL_RNG_PHILOX
    if (present(kind)) bits = int(kind, c_int32_t)
    call finish(sl_rng_create(bits, seed, rng%handle), stat)
  end function

  type(sl_rng) function rng_create_i4(seed, kind, stat) result(rng)
    integer(c_int32_t), intent(in) :: seed
    integer, intent(in), optional :: kind
    integer, intent(out), optional :: stat
    rng = rng_create_i8(int(seed, c_int64_t), kind, stat)
  end function

  ! Destroys the generator and sets the variable to none.
  subroutine rng_destroy(rng, stat)
    type(sl_rng), intent(inout) :: rng
    integer, intent(out), optional :: stat
    integer(c_int) :: status
    status = sl_rng_destroy(rng%handle)
    if (status == SL_OK) rng%handle = 0
    call finish(status, stat)
  end subroutine

  ! The generator's seed and next draw.
  subroutine rng_get_state(rng, seed, draw, stat)
    type(sl_rng), intent(in) :: rng
    integer(c_int64_t), intent(out) :: seed, draw
    integer, intent(out), optional :: stat
    seed = 0
    draw = 0
    call finish(sl_rng_get_state(rng%handle, seed, draw), stat)
  end subroutine

  ! Sets the seed and next draw: set to an earlier state, it repeats the numbers it gave.
  subroutine rng_set_state(rng, seed, draw, stat)
    type(sl_rng), intent(in) :: rng
    integer(c_int64_t), intent(in) :: seed, draw
    integer, intent(out), optional :: stat
    call finish(sl_rng_set_state(rng%handle, seed, draw), stat)
  end subroutine

  ! An array of `dtype` (SL_F32 or SL_F64) and shape `shape`, uniform on [0, 1).
  type(sl_array) function random_uniform(rng, dtype, shape, stat) result(r)
    type(sl_rng), intent(in) :: rng
    integer, intent(in) :: dtype, shape(:)
    integer, intent(out), optional :: stat
    call finish(sl_random_uniform(rng%handle, int(dtype, c_int32_t), size(shape, kind=c_int32_t), &
      int(shape, c_int64_t), r%handle), stat)
  end function

  ! Like random_uniform, with standard normal values.
  type(sl_array) function random_normal(rng, dtype, shape, stat) result(r)
    type(sl_rng), intent(in) :: rng
    integer, intent(in) :: dtype, shape(:)
    integer, intent(out), optional :: stat
    call finish(sl_random_normal(rng%handle, int(dtype, c_int32_t), size(shape, kind=c_int32_t), &
      int(shape, c_int64_t), r%handle), stat)
  end function

  ! An array of `dtype` (SL_F32 or SL_F64) and shape `shape`, uniform on [lo, hi) (every
  ! value at least lo and below hi as the type holds them).
  type(sl_array) function random_range(rng, lo, hi, dtype, shape, stat) result(r)
    type(sl_rng), intent(in) :: rng
    real(c_double), intent(in) :: lo, hi
    integer, intent(in) :: dtype, shape(:)
    integer, intent(out), optional :: stat
    call finish(sl_random_uniform_range(rng%handle, lo, hi, int(dtype, c_int32_t), size(shape, kind=c_int32_t), &
      int(shape, c_int64_t), r%handle), stat)
  end function

  type(sl_array) function random_integers_i8(rng, lo, hi, dtype, shape, stat) result(r)
    type(sl_rng), intent(in) :: rng
    integer(c_int64_t), intent(in) :: lo, hi
    integer, intent(in) :: dtype, shape(:)
    integer, intent(out), optional :: stat
    call finish(sl_random_integers(rng%handle, lo, hi, int(dtype, c_int32_t), size(shape, kind=c_int32_t), &
      int(shape, c_int64_t), r%handle), stat)
  end function

  type(sl_array) function random_integers_i4(rng, lo, hi, dtype, shape, stat) result(r)
    type(sl_rng), intent(in) :: rng
    integer(c_int32_t), intent(in) :: lo, hi
    integer, intent(in) :: dtype, shape(:)
    integer, intent(out), optional :: stat
    r = random_integers_i8(rng, int(lo, c_int64_t), int(hi, c_int64_t), dtype, shape, stat)
  end function

  ! Exponential values of mean `scale` (SL_F32 or SL_F64).
  type(sl_array) function random_exponential(rng, scale, dtype, shape, stat) result(r)
    type(sl_rng), intent(in) :: rng
    real(c_double), intent(in) :: scale
    integer, intent(in) :: dtype, shape(:)
    integer, intent(out), optional :: stat
    call finish(sl_random_exponential(rng%handle, scale, int(dtype, c_int32_t), size(shape, kind=c_int32_t), &
      int(shape, c_int64_t), r%handle), stat)
  end function

  ! A logical (SL_BOOL) array, each element true with probability p.
  type(sl_array) function random_bernoulli(rng, p, shape, stat) result(r)
    type(sl_rng), intent(in) :: rng
    real(c_double), intent(in) :: p
    integer, intent(in) :: shape(:)
    integer, intent(out), optional :: stat
    call finish(sl_random_bernoulli(rng%handle, p, size(shape, kind=c_int32_t), int(shape, c_int64_t), r%handle), &
      stat)
  end function

  ! Poisson values of mean lambda (SL_I32 or SL_I64).
  type(sl_array) function random_poisson(rng, lambda, dtype, shape, stat) result(r)
    type(sl_rng), intent(in) :: rng
    real(c_double), intent(in) :: lambda
    integer, intent(in) :: dtype, shape(:)
    integer, intent(out), optional :: stat
    call finish(sl_random_poisson(rng%handle, lambda, int(dtype, c_int32_t), size(shape, kind=c_int32_t), &
      int(shape, c_int64_t), r%handle), stat)
  end function

  ! Gamma values of shape k and scale theta (SL_F32 or SL_F64).
  type(sl_array) function random_gamma(rng, k, theta, dtype, shape, stat) result(r)
    type(sl_rng), intent(in) :: rng
    real(c_double), intent(in) :: k, theta
    integer, intent(in) :: dtype, shape(:)
    integer, intent(out), optional :: stat
    call finish(sl_random_gamma(rng%handle, k, theta, int(dtype, c_int32_t), size(shape, kind=c_int32_t), &
      int(shape, c_int64_t), r%handle), stat)
  end function

  ! Beta(a, b) values (two draws).
  type(sl_array) function random_beta(rng, a, b, dtype, shape, stat) result(r)
    type(sl_rng), intent(in) :: rng
    real(c_double), intent(in) :: a, b
    integer, intent(in) :: dtype, shape(:)
    integer, intent(out), optional :: stat
    call finish(sl_random_beta(rng%handle, a, b, int(dtype, c_int32_t), size(shape, kind=c_int32_t), &
      int(shape, c_int64_t), r%handle), stat)
  end function

  ! Chi-square values with df degrees of freedom.
  type(sl_array) function random_chisquare(rng, df, dtype, shape, stat) result(r)
    type(sl_rng), intent(in) :: rng
    real(c_double), intent(in) :: df
    integer, intent(in) :: dtype, shape(:)
    integer, intent(out), optional :: stat
    call finish(sl_random_chisquare(rng%handle, df, int(dtype, c_int32_t), size(shape, kind=c_int32_t), &
      int(shape, c_int64_t), r%handle), stat)
  end function

  ! Points first .. first+count-1 (0-based) of the dims-dimensional Sobol' sequence, shape
  ! [count, dims]: element (i, j) is coordinate j of point first + i - 1. `scramble`
  ! (SL_SOBOL_PLAIN by default, SL_SOBOL_SHIFT or SL_SOBOL_OWEN) with `seed` (default 0);
  ! `dtype` SL_F64 by default.
  type(sl_array) function random_sobol(dims, first, count, dtype, scramble, seed, stat) result(r)
    integer, intent(in) :: dims, first, count
    integer, intent(in), optional :: dtype, scramble
    integer(c_int64_t), intent(in), optional :: seed
    integer, intent(out), optional :: stat
    integer(c_int32_t) :: t, how
    integer(c_int64_t) :: s
    t = SL_F64
    how = SL_SOBOL_PLAIN
    s = 0
    if (present(dtype)) t = int(dtype, c_int32_t)
    if (present(scramble)) how = int(scramble, c_int32_t)
    if (present(seed)) s = seed
    call finish(sl_random_sobol(int(dims, c_int64_t), int(first, c_int64_t), int(count, c_int64_t), how, s, t, &
      r%handle), stat)
  end function

  ! ---------------------------------------------------------------------------------------
  ! Creating arrays.

  ! An array of type `dtype` (SL_F64, ...) and shape `shape`, every element `value` (a
  ! complex value for SL_C64 or SL_C128 arrays).
  type(sl_array) function constant(dtype, shape, value, stat) result(r)
    integer, intent(in) :: dtype, shape(:)
    class(*), intent(in) :: value
    integer, intent(out), optional :: stat
    real(c_double) :: v
    complex(c_double_complex) :: z
    if (complex_value(value, z)) then
      call finish(sl_constant_c(int(dtype, c_int32_t), size(shape, kind=c_int32_t), int(shape, c_int64_t), &
        z%re, z%im, r%handle), stat)
    else if (scalar_value(value, v)) then
      call finish(sl_constant(int(dtype, c_int32_t), size(shape, kind=c_int32_t), int(shape, c_int64_t), v, &
        r%handle), stat)
    else
      call fail(SL_ERR_INVALID_ARGUMENT, 'constant: ' // bad_operand, stat)
    end if
  end function

  ! An array whose elements are their 1-based index along dimension `dim`.
  type(sl_array) function iota(dtype, shape, dim, stat) result(r)
    integer, intent(in) :: dtype, shape(:), dim
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: zero_based
    integer(c_int) :: status
    zero_based = 0
    status = sl_iota(int(dtype, c_int32_t), size(shape, kind=c_int32_t), int(shape, c_int64_t), c_dim(dim), &
      zero_based)
    if (status == SL_OK) status = sl_binary_scalar_i(SL_BINARY_ADD, zero_based, 1_c_int64_t, r%handle)
    call drop(zero_based, status)
    call finish(status, stat)
  end function

  ! A rows x cols (default rows x rows) array with ones on the diagonal.
  type(sl_array) function identity(dtype, rows, cols, stat) result(r)
    integer, intent(in) :: dtype, rows
    integer, intent(in), optional :: cols
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: n
    n = rows
    if (present(cols)) n = cols
    call finish(sl_identity(int(dtype, c_int32_t), int(rows, c_int64_t), n, r%handle), stat)
  end function

  ! ---------------------------------------------------------------------------------------
  ! Element-wise operations.

  type(sl_array) function unary(op, a, stat) result(r)
    integer(c_int32_t), intent(in) :: op
    type(sl_array), intent(in) :: a
    integer, intent(out), optional :: stat
    call finish(sl_unary(op, a%handle, r%handle), stat)
  end function

  ! `a op b` where b is an sl_array or a scalar.
  type(sl_array) function binary_any(op, a, b, stat) result(r)
    integer(c_int32_t), intent(in) :: op
    type(sl_array), intent(in) :: a
    class(*), intent(in) :: b
    integer, intent(out), optional :: stat
    real(c_double) :: v
    integer(c_int64_t) :: other
    integer(c_int) :: status
    select type (b)
    type is (sl_array)
      call finish(sl_binary(op, a%handle, b%handle, r%handle), stat)
    type is (complex(c_float))
      call finish(sl_binary_scalar_c(op, a%handle, real(b%re, c_double), real(b%im, c_double), r%handle), stat)
    type is (complex(c_double))
      call finish(sl_binary_scalar_c(op, a%handle, b%re, b%im, r%handle), stat)
    type is (integer(c_int32_t))
      call finish(sl_binary_scalar_i(op, a%handle, int(b, c_int64_t), r%handle), stat)
    type is (integer(c_int64_t))
      call finish(sl_binary_scalar_i(op, a%handle, b, r%handle), stat)
    type is (logical)
      ! A logical is a bool array of rank 0: bool is the lowest kind, so it never widens.
      other = 0
      status = sl_scalar(SL_BOOL, merge(1.0_c_double, 0.0_c_double, b), other)
      if (status == SL_OK) status = sl_binary(op, a%handle, other, r%handle)
      call drop(other, status)
      call finish(status, stat)
    class default
      if (scalar_value(b, v)) then
        call finish(sl_binary_scalar(op, a%handle, v, r%handle), stat)
      else
        call fail(SL_ERR_INVALID_ARGUMENT, bad_operand, stat)
      end if
    end select
  end function

  ! `s op b` for a real or integer scalar s (weak: README "Type promotion").
  type(sl_array) function scalar_left(op, s, b) result(r)
    integer(c_int32_t), intent(in) :: op
    class(*), intent(in) :: s
    type(sl_array), intent(in) :: b
    real(c_double) :: v
    select type (s)
    type is (integer(c_int32_t))
      call finish(sl_scalar_binary_i(op, int(s, c_int64_t), b%handle, r%handle))
    type is (integer(c_int64_t))
      call finish(sl_scalar_binary_i(op, s, b%handle, r%handle))
    class default
      if (scalar_value(s, v)) call finish(sl_scalar_binary(op, v, b%handle, r%handle))
    end select
  end function

  ! The failure of a conversion to a kind Sluice has no type for.
  subroutine no_type_of_kind(what, kind, stat)
    character(*), intent(in) :: what
    integer, intent(in) :: kind
    integer, intent(out), optional :: stat
    call fail(SL_ERR_INVALID_ARGUMENT, what // ': Sluice has no type of kind ' // int_text(kind), stat)
  end subroutine

  ! `a` converted to `dtype`, or the failure of `what` when dtype is -1 (no such kind).
  type(sl_array) function converted(a, dtype, what, kind, stat) result(r)
    type(sl_array), intent(in) :: a
    integer(c_int32_t), intent(in) :: dtype
    character(*), intent(in) :: what
    integer, intent(in) :: kind
    integer, intent(out), optional :: stat
    if (dtype < 0) then
      call no_type_of_kind(what, kind, stat)
    else
      call finish(sl_cast(a%handle, dtype, r%handle), stat)
    end if
  end function

  integer(c_int32_t) function real_dtype(kind)
    integer, intent(in) :: kind
    select case (kind)
    case (2)
      ! IEEE half precision, the kind other compilers give real(2)
      real_dtype = SL_F16
    case (c_float)
      real_dtype = SL_F32
    case (c_double)
      real_dtype = SL_F64
    case default
      real_dtype = -1
    end select
  end function

  integer(c_int32_t) function int_dtype(kind)
    integer, intent(in) :: kind
    select case (kind)
    case (c_int8_t)
      int_dtype = SL_I8
    case (c_int16_t)
      int_dtype = SL_I16
    case (c_int32_t)
      int_dtype = SL_I32
    case (c_int64_t)
      int_dtype = SL_I64
    case default
      int_dtype = -1
    end select
  end function

  type(sl_array) function real_arr(a, kind, stat) result(r)
    type(sl_array), intent(in) :: a
    integer, intent(in), optional :: kind
    integer, intent(out), optional :: stat
    integer :: k
    integer(c_int32_t) :: t
    type(sl_array) :: part
    k = default_real
    if (present(kind)) k = kind
    ! The real part of a complex array, of its parts' kind unless `kind` is given, as
    ! Fortran's real(z [, kind]).
    if (sl_get_dtype(a%handle, t) == SL_OK .and. (t == SL_C64 .or. t == SL_C128)) then
      part = unary(SL_UNARY_REAL, a, stat)
      if (present(kind)) then
        r = converted(part, real_dtype(k), 'real', k, stat)
      else
        r = part
      end if
    else
      r = converted(a, real_dtype(k), 'real', k, stat)
    end if
  end function

  type(sl_array) function conjg_arr(z, stat) result(r)
    type(sl_array), intent(in) :: z
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_CONJ, z, stat)
  end function

  type(sl_array) function aimag_arr(z, stat) result(r)
    type(sl_array), intent(in) :: z
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_IMAG, z, stat)
  end function

  ! x + i y from two real(4) arrays (complex(4)) or two real(8) arrays (complex(8)).
  type(sl_array) function cmplx_arr(x, y, stat) result(r)
    type(sl_array), intent(in) :: x, y
    integer, intent(out), optional :: stat
    call finish(sl_complex(x%handle, y%handle, r%handle), stat)
  end function

  type(sl_array) function dble_arr(a, stat) result(r)
    type(sl_array), intent(in) :: a
    integer, intent(out), optional :: stat
    call finish(sl_cast(a%handle, SL_F64, r%handle), stat)
  end function

  type(sl_array) function int_arr(a, kind, stat) result(r)
    type(sl_array), intent(in) :: a
    integer, intent(in), optional :: kind
    integer, intent(out), optional :: stat
    integer :: k
    k = default_integer
    if (present(kind)) k = kind
    r = converted(a, int_dtype(k), 'int', k, stat)
  end function

  type(sl_array) function logical_arr(l, stat) result(r)
    type(sl_array), intent(in) :: l
    integer, intent(out), optional :: stat
    call finish(sl_cast(l%handle, SL_BOOL, r%handle), stat)
  end function

  ! floor, ceiling and nint: rounded by `op` to an integer type in one call.
  type(sl_array) function rounded(op, what, a, kind, stat) result(r)
    integer(c_int32_t), intent(in) :: op
    character(*), intent(in) :: what
    type(sl_array), intent(in) :: a
    integer, intent(in), optional :: kind
    integer, intent(out), optional :: stat
    integer(c_int32_t) :: dtype
    integer :: k
    k = default_integer
    if (present(kind)) k = kind
    dtype = int_dtype(k)
    if (dtype < 0) then
      call no_type_of_kind(what, k, stat)
      return
    end if
    select case (op)
    case (SL_UNARY_FLOOR)
      call finish(sl_floor_to(a%handle, dtype, r%handle), stat)
    case (SL_UNARY_CEIL)
      call finish(sl_ceil_to(a%handle, dtype, r%handle), stat)
    case default
      call finish(sl_round_to(a%handle, dtype, r%handle), stat)
    end select
  end function

  type(sl_array) function floor_arr(a, kind, stat) result(r)
    type(sl_array), intent(in) :: a
    integer, intent(in), optional :: kind
    integer, intent(out), optional :: stat
    r = rounded(SL_UNARY_FLOOR, 'floor', a, kind, stat)
  end function

  type(sl_array) function ceiling_arr(a, kind, stat) result(r)
    type(sl_array), intent(in) :: a
    integer, intent(in), optional :: kind
    integer, intent(out), optional :: stat
    r = rounded(SL_UNARY_CEIL, 'ceiling', a, kind, stat)
  end function

  type(sl_array) function nint_arr(a, kind, stat) result(r)
    type(sl_array), intent(in) :: a
    integer, intent(in), optional :: kind
    integer, intent(out), optional :: stat
    r = rounded(SL_UNARY_ROUND, 'nint', a, kind, stat)
  end function

  type(sl_array) function neg_arr(a) result(r)
    type(sl_array), intent(in) :: a
    r = unary(SL_UNARY_NEG, a)
  end function

  type(sl_array) function not_op(a) result(r)
    type(sl_array), intent(in) :: a
    r = unary(SL_UNARY_NOT, a)
  end function

  type(sl_array) function and_arr(a, b) result(r)
    type(sl_array), intent(in) :: a, b
    r = binary_any(SL_BINARY_AND, a, b)
  end function

  type(sl_array) function or_arr(a, b) result(r)
    type(sl_array), intent(in) :: a, b
    r = binary_any(SL_BINARY_OR, a, b)
  end function

  type(sl_array) function eqv_arr(a, b) result(r)
    type(sl_array), intent(in) :: a, b
    r = binary_any(SL_BINARY_EQ, a, b)
  end function

  type(sl_array) function neqv_arr(a, b) result(r)
    type(sl_array), intent(in) :: a, b
    r = binary_any(SL_BINARY_NE, a, b)
  end function

  ! merge(tsource, fsource, mask): tsource where mask is true, else fsource; either may be a
  ! scalar (PeakStream's cond(p, a, 0.0)), which takes the other's type.
  type(sl_array) function merge_arr(tsource, fsource, mask, stat) result(r)
    class(*), intent(in) :: tsource, fsource
    type(sl_array), intent(in) :: mask
    integer, intent(out), optional :: stat
    select type (tsource)
    type is (sl_array)
      select type (fsource)
      type is (sl_array)
        call finish(sl_select(mask%handle, tsource%handle, fsource%handle, r%handle), stat)
      class default
        r = merge_scalar(mask, tsource, fsource, .false., stat)
      end select
    class default
      select type (fsource)
      type is (sl_array)
        r = merge_scalar(mask, fsource, tsource, .true., stat)
      class default
        call fail(SL_ERR_INVALID_ARGUMENT, 'merge: give tsource or fsource as an sl_array', stat)
      end select
    end select
  end function

  ! cond ? a : s (or cond ? s : a when scalar_first), s converted to a's type.
  type(sl_array) function merge_scalar(cond, a, s, scalar_first, stat) result(r)
    type(sl_array), intent(in) :: cond, a
    class(*), intent(in) :: s
    logical, intent(in) :: scalar_first
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: other
    integer(c_int32_t) :: dtype
    integer(c_int) :: status
    real(c_double) :: v
    if (.not. scalar_value(s, v)) then
      call fail(SL_ERR_INVALID_ARGUMENT, 'merge: ' // bad_operand, stat)
      return
    end if
    other = 0
    status = sl_get_dtype(a%handle, dtype)
    if (status == SL_OK) status = sl_scalar(dtype, v, other)
    if (status == SL_OK) then
      if (scalar_first) then
        status = sl_select(cond%handle, other, a%handle, r%handle)
      else
        status = sl_select(cond%handle, a%handle, other, r%handle)
      end if
    end if
    call drop(other, status)
    call finish(status, stat)
  end function

  ! ---------------------------------------------------------------------------------------
  ! Reductions and scans.

  ! `op` over all of `a`, or along `dim` with that dimension dropped.
  integer(c_int) function reduce_along(op, a, dim, out) result(status)
    integer(c_int32_t), intent(in) :: op
    integer(c_int64_t), intent(in) :: a
    integer, intent(in), optional :: dim
    integer(c_int64_t), intent(out) :: out
    integer(c_int64_t) :: kept
    out = 0
    if (.not. present(dim)) then
      status = sl_reduce(op, a, SL_ALL_DIMS, out)
      return
    end if
    kept = 0
    status = sl_reduce(op, a, c_dim(dim), kept)
    if (status == SL_OK) status = sl_project(kept, c_dim(dim), 0_c_int64_t, out)
    call drop(kept, status)
  end function

  type(sl_array) function reduction(op, a, dim, stat) result(r)
    integer(c_int32_t), intent(in) :: op
    type(sl_array), intent(in) :: a
    integer, intent(in), optional :: dim
    integer, intent(out), optional :: stat
    call finish(reduce_along(op, a%handle, dim, r%handle), stat)
  end function

  ! The 1-based position along `dim` of the element `op` (argmin or argmax) picks.
  type(sl_array) function location(op, array, dim, stat) result(r)
    integer(c_int32_t), intent(in) :: op
    type(sl_array), intent(in) :: array
    integer, intent(in) :: dim
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: zero_based
    integer(c_int) :: status
    status = reduce_along(op, array%handle, dim, zero_based)
    if (status == SL_OK) status = sl_binary_scalar_i(SL_BINARY_ADD, zero_based, 1_c_int64_t, r%handle)
    call drop(zero_based, status)
    call finish(status, stat)
  end function

  type(sl_array) function minloc_arr(array, dim, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: dim
    integer, intent(out), optional :: stat
    r = location(SL_REDUCE_ARGMIN, array, dim, stat)
  end function

  type(sl_array) function maxloc_arr(array, dim, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: dim
    integer, intent(out), optional :: stat
    r = location(SL_REDUCE_ARGMAX, array, dim, stat)
  end function

  ! Inclusive cumulative sum along `dim` (integers accumulate in integer(8)).
  type(sl_array) function cumsum(array, dim, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: dim
    integer, intent(out), optional :: stat
    call finish(sl_cumsum(array%handle, c_dim(dim), r%handle), stat)
  end function

  ! Inclusive cumulative product along `dim`.
  type(sl_array) function cumprod(array, dim, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: dim
    integer, intent(out), optional :: stat
    call finish(sl_cumprod(array%handle, c_dim(dim), r%handle), stat)
  end function

  ! Running maximum and minimum along `dim` (a NaN stays from where it is met).
  type(sl_array) function cummax(array, dim, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: dim
    integer, intent(out), optional :: stat
    call finish(sl_cummax(array%handle, c_dim(dim), r%handle), stat)
  end function

  type(sl_array) function cummin(array, dim, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: dim
    integer, intent(out), optional :: stat
    call finish(sl_cummin(array%handle, c_dim(dim), r%handle), stat)
  end function

  ! The Euclidean norm of all of `x` (of a matrix: the Frobenius norm), or along `dim`
  ! (dropped), scaled so that no square overflows (the intrinsic's name).
  type(sl_array) function norm2_arr(x, dim, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(in), optional :: dim
    integer, intent(out), optional :: stat
    r = reduction(SL_NORM2, x, dim, stat)
  end function

  ! sl_var or sl_std of all of `a`, or along `dim` (dropped).
  integer(c_int) function spread_of(std, a, dim, ddof, out) result(status)
    logical, intent(in) :: std
    integer(c_int64_t), intent(in) :: a
    integer, intent(in), optional :: dim, ddof
    integer(c_int64_t), intent(out) :: out
    integer(c_int64_t) :: kept, dof
    integer(c_int32_t) :: along
    out = 0
    kept = 0
    dof = 0
    if (present(ddof)) dof = ddof
    along = SL_ALL_DIMS
    if (present(dim)) along = c_dim(dim)
    if (std) then
      status = sl_std(a, along, dof, kept)
    else
      status = sl_var(a, along, dof, kept)
    end if
    if (.not. present(dim)) then
      out = kept
      return
    end if
    if (status == SL_OK) status = sl_project(kept, along, 0_c_int64_t, out)
    call drop(kept, status)
  end function

  ! The variance of all of `array`, or along `dim` (dropped), with `ddof` (default 0)
  ! degrees of freedom taken off the count, computed stably from the deviations.
  type(sl_array) function variance(array, dim, ddof, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in), optional :: dim, ddof
    integer, intent(out), optional :: stat
    call finish(spread_of(.false., array%handle, dim, ddof, r%handle), stat)
  end function

  ! The standard deviation, the square root of `variance`.
  type(sl_array) function stddev(array, dim, ddof, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in), optional :: dim, ddof
    integer, intent(out), optional :: stat
    call finish(spread_of(.true., array%handle, dim, ddof, r%handle), stat)
  end function

  ! ---------------------------------------------------------------------------------------
  ! Fourier transforms along dims (1-based, one to three of them), batched over the others;
  ! norm is SL_FFT_BACKWARD (the default: the inverse scaled by 1/n), SL_FFT_ORTHO or
  ! SL_FFT_FORWARD.

  ! The discrete Fourier transform (a real array is taken as complex).
  type(sl_array) function fft(array, dims, norm, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: dims(:)
    integer, intent(in), optional :: norm
    integer, intent(out), optional :: stat
    call finish(sl_fft(array%handle, size(dims, kind=c_int32_t), c_dims(dims), c_norm(norm), r%handle), stat)
  end function

  ! Its inverse: ifft(fft(x, dims), dims) is x.
  type(sl_array) function ifft(array, dims, norm, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: dims(:)
    integer, intent(in), optional :: norm
    integer, intent(out), optional :: stat
    call finish(sl_ifft(array%handle, size(dims, kind=c_int32_t), c_dims(dims), c_norm(norm), r%handle), stat)
  end function

  ! The transform of a real array: the last of dims (length n) keeps n/2 + 1 points.
  type(sl_array) function rfft(array, dims, norm, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: dims(:)
    integer, intent(in), optional :: norm
    integer, intent(out), optional :: stat
    call finish(sl_rfft(array%handle, size(dims, kind=c_int32_t), c_dims(dims), c_norm(norm), r%handle), stat)
  end function

  ! The real array of length n along the last of dims whose rfft is `array`.
  type(sl_array) function irfft(array, dims, n, norm, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: dims(:), n
    integer, intent(in), optional :: norm
    integer, intent(out), optional :: stat
    call finish(sl_irfft(array%handle, size(dims, kind=c_int32_t), c_dims(dims), int(n, c_int64_t), c_norm(norm), &
      r%handle), stat)
  end function

  ! ---------------------------------------------------------------------------------------
  ! Factorizations and solves of the matrices of the first two dimensions, batched over
  ! the others. A singular matrix (or one not positive definite, for cholesky) fails
  ! with SL_ERR_SINGULAR where the result is read.

  ! LU with partial pivoting, A = P L U: packed factors and LAPACK's ipiv (1-based, i32).
  subroutine lu(a, factors, ipiv, stat)
    type(sl_array), intent(in) :: a
    type(sl_array), intent(out) :: factors, ipiv
    integer, intent(out), optional :: stat
    call finish(sl_lu(a%handle, factors%handle, ipiv%handle), stat)
  end subroutine

  ! x with op(A) x = b from A's LU factors; trans is SL_NO_TRANS (the default), SL_TRANS
  ! or SL_CONJ_TRANS.
  type(sl_array) function lu_solve(factors, ipiv, b, trans, stat) result(r)
    type(sl_array), intent(in) :: factors, ipiv, b
    integer, intent(in), optional :: trans
    integer, intent(out), optional :: stat
    integer(c_int32_t) :: t
    t = SL_NO_TRANS
    if (present(trans)) t = int(trans, c_int32_t)
    call finish(sl_lu_solve(factors%handle, ipiv%handle, t, b%handle, r%handle), stat)
  end function

  ! L, U and P of a square LU factorization.
  subroutine lu_unpack(factors, ipiv, l, u, p, stat)
    type(sl_array), intent(in) :: factors, ipiv
    type(sl_array), intent(out) :: l, u, p
    integer, intent(out), optional :: stat
    call finish(sl_lu_unpack(factors%handle, ipiv%handle, l%handle, u%handle, p%handle), stat)
  end subroutine

  ! x with A x = b.
  type(sl_array) function solve(a, b, stat) result(r)
    type(sl_array), intent(in) :: a, b
    integer, intent(out), optional :: stat
    call finish(sl_solve(a%handle, b%handle, r%handle), stat)
  end function

  type(sl_array) function inv(a, stat) result(r)
    type(sl_array), intent(in) :: a
    integer, intent(out), optional :: stat
    call finish(sl_inv(a%handle, r%handle), stat)
  end function

  type(sl_array) function det(a, stat) result(r)
    type(sl_array), intent(in) :: a
    integer, intent(out), optional :: stat
    call finish(sl_det(a%handle, r%handle), stat)
  end function

  ! The determinant as its sign and the log of its modulus.
  subroutine slogdet(a, sign, logabs, stat)
    type(sl_array), intent(in) :: a
    type(sl_array), intent(out) :: sign, logabs
    integer, intent(out), optional :: stat
    call finish(sl_slogdet(a%handle, sign%handle, logabs%handle), stat)
  end subroutine

  ! Sorting (docs: README "Sorting"). Positions are 1-based, as Fortran's minloc.

  ! order for sort, argsort and topk: descending when `descending` is present and true.
  integer(c_int32_t) function sort_order(descending)
    logical, intent(in), optional :: descending
    sort_order = SL_ASCENDING
    if (present(descending)) then
      if (descending) sort_order = SL_DESCENDING
    end if
  end function

  ! `zero_based` + 1 into `r`, releasing `zero_based`.
  subroutine one_based(status, zero_based, r)
    integer(c_int), intent(inout) :: status
    integer(c_int64_t), intent(in) :: zero_based
    integer(c_int64_t), intent(out) :: r
    r = 0
    if (status == SL_OK) status = sl_binary_scalar_i(SL_BINARY_ADD, zero_based, 1_c_int64_t, r)
    call drop(zero_based, status)
  end subroutine

  ! Every line of array along dim (default 1) sorted, stably; NaNs last in both orders.
  type(sl_array) function sort(array, dim, descending, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in), optional :: dim
    logical, intent(in), optional :: descending
    integer, intent(out), optional :: stat
    call finish(sl_sort(array%handle, c_dim(dim), sort_order(descending), r%handle), stat)
  end function

  ! The 1-based positions along dim (default 1) that sort every line (stable).
  type(sl_array) function argsort(array, dim, descending, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in), optional :: dim
    logical, intent(in), optional :: descending
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: zero_based
    integer(c_int) :: status
    status = sl_argsort(array%handle, c_dim(dim), sort_order(descending), zero_based)
    call one_based(status, zero_based, r%handle)
    call finish(status, stat)
  end function

  ! The k largest elements along dim (default 1; the smallest when largest is .false.)
  ! and their 1-based positions.
  subroutine topk(array, k, values, indices, dim, largest, stat)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: k
    type(sl_array), intent(out) :: values, indices
    integer, intent(in), optional :: dim
    logical, intent(in), optional :: largest
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: zero_based
    integer(c_int) :: status
    integer(c_int32_t) :: order
    order = SL_DESCENDING
    if (present(largest)) then
      if (.not. largest) order = SL_ASCENDING
    end if
    status = sl_topk(array%handle, int(k, c_int64_t), c_dim(dim), order, values%handle, zero_based)
    call one_based(status, zero_based, indices%handle)
    call finish(status, stat)
  end subroutine

  ! For each element of v, how many elements of the ascending vector `sorted` come before
  ! it (with right = .true., before or equal): its 1-based insertion place minus 1.
  type(sl_array) function searchsorted(sorted, v, right, stat) result(r)
    type(sl_array), intent(in) :: sorted, v
    logical, intent(in), optional :: right
    integer, intent(out), optional :: stat
    integer(c_int32_t) :: side
    side = SL_SIDE_LEFT
    if (present(right)) then
      if (right) side = SL_SIDE_RIGHT
    end if
    call finish(sl_searchsorted(sorted%handle, v%handle, side, r%handle), stat)
  end function

  ! The 1-based column-major indices of the nonzero elements (waits for the data).
  type(sl_array) function nonzero(array, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: zero_based
    integer(c_int) :: status
    status = sl_nonzero(array%handle, zero_based)
    call one_based(status, zero_based, r%handle)
    call finish(status, stat)
  end function

  ! The elements of array where mask holds, in array element order (waits for mask).
  type(sl_array) function pack_arr(array, mask, stat) result(r)
    type(sl_array), intent(in) :: array, mask
    integer, intent(out), optional :: stat
    call finish(sl_compress(mask%handle, array%handle, r%handle), stat)
  end function

  ! The distinct values in ascending order, their counts, and for each element the 1-based
  ! place of its value among them (waits for the data).
  subroutine unique(array, values, counts, inverse, stat)
    type(sl_array), intent(in) :: array
    type(sl_array), intent(out) :: values, counts, inverse
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: zero_based
    integer(c_int) :: status
    status = sl_unique(array%handle, values%handle, counts%handle, zero_based)
    call one_based(status, zero_based, inverse%handle)
    call finish(status, stat)
  end subroutine

  ! Counts of the elements in the bins between consecutive edges (numpy's rule).
  type(sl_array) function histogram_edges(array, edges, stat) result(r)
    type(sl_array), intent(in) :: array, edges
    integer, intent(out), optional :: stat
    call finish(sl_histogram(array%handle, edges%handle, r%handle), stat)
  end function

  ! Counts in `bins` equal bins spanning [lo, hi].
  type(sl_array) function histogram_range(array, bins, lo, hi, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: bins
    real(c_double), intent(in) :: lo, hi
    integer, intent(out), optional :: stat
    call finish(sl_histogram_range(array%handle, int(bins, c_int64_t), lo, hi, r%handle), stat)
  end function

  ! The reciprocal condition number in the 1-norm, estimated as LAPACK's gecon does.
  type(sl_array) function rcond(a, stat) result(r)
    type(sl_array), intent(in) :: a
    integer, intent(out), optional :: stat
    call finish(sl_rcond(a%handle, r%handle), stat)
  end function

  ! The lower Cholesky factor L of a Hermitian positive definite a = L L^H.
  type(sl_array) function cholesky(a, stat) result(r)
    type(sl_array), intent(in) :: a
    integer, intent(out), optional :: stat
    call finish(sl_cholesky(a%handle, r%handle), stat)
  end function

  ! x with L L^H x = b.
  type(sl_array) function cholesky_solve(l, b, stat) result(r)
    type(sl_array), intent(in) :: l, b
    integer, intent(out), optional :: stat
    call finish(sl_cholesky_solve(l%handle, b%handle, r%handle), stat)
  end function

  ! x with op(T) x = b, T the uplo (SL_LOWER or SL_UPPER) triangle of t; trans as in
  ! lu_solve; diag SL_NON_UNIT_DIAG (the default) or SL_UNIT_DIAG.
  type(sl_array) function triangular_solve(t, b, uplo, trans, diag, stat) result(r)
    type(sl_array), intent(in) :: t, b
    integer, intent(in) :: uplo
    integer, intent(in), optional :: trans, diag
    integer, intent(out), optional :: stat
    integer(c_int32_t) :: op, d
    op = SL_NO_TRANS
    d = SL_NON_UNIT_DIAG
    if (present(trans)) op = int(trans, c_int32_t)
    if (present(diag)) d = int(diag, c_int32_t)
    call finish(sl_triangular_solve(t%handle, int(uplo, c_int32_t), op, d, b%handle, r%handle), stat)
  end function

  ! Householder QR, A = Q R, as numpy's qr with mode SL_QR_REDUCED (the default: q m x k,
  ! r k x n, k = min(m, n)), SL_QR_COMPLETE (q m x m, r m x n) or SL_QR_R (r alone; q
  ! is then the null array). Q and R are unique only up to signs.
  subroutine qr(a, q, r, mode, stat)
    type(sl_array), intent(in) :: a
    type(sl_array), intent(out) :: q, r
    integer, intent(in), optional :: mode
    integer, intent(out), optional :: stat
    integer(c_int32_t) :: m
    m = SL_QR_REDUCED
    if (present(mode)) m = int(mode, c_int32_t)
    call finish(sl_qr(a%handle, m, q%handle, r%handle), stat)
  end subroutine

  ! The least-squares x of A x = b through QR (least-norm when A is wide); a
  ! rank-deficient A fails with SL_ERR_SINGULAR where x is read.
  type(sl_array) function lstsq(a, b, stat) result(r)
    type(sl_array), intent(in) :: a, b
    integer, intent(out), optional :: stat
    call finish(sl_lstsq(a%handle, b%handle, r%handle), stat)
  end function

  ! 1-based dimensions as the C API's 0-based ones.
  pure function c_dims(dims) result(c)
    integer, intent(in) :: dims(:)
    integer(c_int32_t) :: c(size(dims))
    c = int(dims - 1, c_int32_t)
  end function

  integer(c_int32_t) function c_norm(norm)
    integer, intent(in), optional :: norm
    c_norm = SL_FFT_BACKWARD
    if (present(norm)) c_norm = int(norm, c_int32_t)
  end function

  ! ---------------------------------------------------------------------------------------
  ! Products.

  ! Fortran's matmul: matrix x matrix, matrix x vector, or vector x matrix.
  type(sl_array) function matmul_arr(matrix_a, matrix_b, stat) result(r)
    type(sl_array), intent(in) :: matrix_a, matrix_b
    integer, intent(out), optional :: stat
    call finish(sl_matmul(matrix_a%handle, matrix_b%handle, r%handle), stat)
  end function

  ! Fortran's dot_product: the first vector conjugated when complex.
  type(sl_array) function dot_product_arr(vector_a, vector_b, stat) result(r)
    type(sl_array), intent(in) :: vector_a, vector_b
    integer, intent(out), optional :: stat
    call finish(sl_vdot(vector_a%handle, vector_b%handle, r%handle), stat)
  end function

  ! The matrix of vector_a(i) * vector_b(j).
  type(sl_array) function outer_arr(vector_a, vector_b, stat) result(r)
    type(sl_array), intent(in) :: vector_a, vector_b
    integer, intent(out), optional :: stat
    call finish(sl_outer(vector_a%handle, vector_b%handle, r%handle), stat)
  end function

  ! op(array_a(i...), array_b(j...)) for a binary op code (SL_BINARY_*), shaped array_a's
  ! dimensions then array_b's.
  type(sl_array) function outer_op(op, array_a, array_b, stat) result(r)
    integer, intent(in) :: op
    type(sl_array), intent(in) :: array_a, array_b
    integer, intent(out), optional :: stat
    call finish(sl_outer_product(int(op, c_int32_t), array_a%handle, array_b%handle, r%handle), stat)
  end function

  ! The generalized inner product: reduce (SL_REDUCE_*) over p of combine (SL_BINARY_*)
  ! of matrix_a(i, p) and matrix_b(p, j), with matmul's shapes, e.g. (SL_REDUCE_MINVAL,
  ! SL_BINARY_ADD) for shortest paths, (SL_REDUCE_ANY, SL_BINARY_AND) for reachability.
  type(sl_array) function inner_product(reduce, combine, matrix_a, matrix_b, stat) result(r)
    integer, intent(in) :: reduce, combine
    type(sl_array), intent(in) :: matrix_a, matrix_b
    integer, intent(out), optional :: stat
    call finish(sl_inner_product(int(reduce, c_int32_t), int(combine, c_int32_t), matrix_a%handle, &
      matrix_b%handle, r%handle), stat)
  end function

  ! alpha op_a(a) op_b(b) + beta c, op SL_NO_TRANS, SL_TRANS or SL_CONJ_TRANS; without c
  ! (or beta) alpha op_a(a) op_b(b). c is not changed: the result is a new array.
  type(sl_array) function gemm_real(op_a, a, op_b, b, alpha, c, beta, stat) result(r)
    integer, intent(in) :: op_a, op_b
    type(sl_array), intent(in) :: a, b
    real(c_double), intent(in) :: alpha
    type(sl_array), intent(in), optional :: c
    real(c_double), intent(in), optional :: beta
    integer, intent(out), optional :: stat
    real(c_double) :: bt
    bt = 0
    if (present(beta)) bt = beta
    r = gemm_complex(op_a, a, op_b, b, cmplx(alpha, 0, c_double_complex), c, cmplx(bt, 0, c_double_complex), stat)
  end function

  type(sl_array) function gemm_complex(op_a, a, op_b, b, alpha, c, beta, stat) result(r)
    integer, intent(in) :: op_a, op_b
    type(sl_array), intent(in) :: a, b
    complex(c_double_complex), intent(in) :: alpha
    type(sl_array), intent(in), optional :: c
    complex(c_double_complex), intent(in), optional :: beta
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: ch
    complex(c_double_complex) :: bt
    ch = 0
    bt = 0
    if (present(c)) ch = c%handle
    if (present(beta)) bt = beta
    call finish(sl_gemm_c(int(op_a, c_int32_t), a%handle, int(op_b, c_int32_t), b%handle, real(alpha, c_double), &
      aimag(alpha), ch, real(bt, c_double), aimag(bt), r%handle), stat)
  end function

  ! ---------------------------------------------------------------------------------------
  ! Shapes and views (views cost nothing until computed; none copies its source).

  ! shape(source): the dimensions, as Fortran's shape gives them.
  function shape_arr(source, stat) result(dims)
    type(sl_array), intent(in) :: source
    integer, intent(out), optional :: stat
    integer, allocatable :: dims(:)
    integer(c_int64_t), allocatable :: have(:)
    call finish(shape_of(source%handle, have), stat)
    dims = int(have)
  end function

  ! size(array [, dim]): the number of elements, or the extent along dim.
  integer function size_arr(array, dim, stat) result(n)
    type(sl_array), intent(in) :: array
    integer, intent(in), optional :: dim
    integer, intent(out), optional :: stat
    integer(c_int64_t), allocatable :: have(:)
    integer(c_int) :: status
    n = 0
    status = shape_of(array%handle, have)
    if (status /= SL_OK) then
      call finish(status, stat)
    else if (.not. present(dim)) then
      n = int(product(have))
      call finish(status, stat)
    else if (dim < 1 .or. dim > size(have)) then
      call fail(SL_ERR_INVALID_ARGUMENT, 'size: dimension ' // int_text(dim) // ' of a rank-' // &
        int_text(size(have)) // ' array', stat)
    else
      n = int(have(dim))
      call finish(status, stat)
    end if
  end function

  type(sl_array) function transpose_arr(matrix, stat) result(r)
    type(sl_array), intent(in) :: matrix
    integer, intent(out), optional :: stat
    call finish(sl_transpose(matrix%handle, r%handle), stat)
  end function

  type(sl_array) function reshape_arr(source, shape, stat) result(r)
    type(sl_array), intent(in) :: source
    integer, intent(in) :: shape(:)
    integer, intent(out), optional :: stat
    call finish(sl_reshape(source%handle, size(shape, kind=c_int32_t), int(shape, c_int64_t), r%handle), stat)
  end function

  ! cshift(array, shift [, dim]): element i of the result is element i + shift, cyclically.
  type(sl_array) function cshift_arr(array, shift, dim, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: shift
    integer, intent(in), optional :: dim
    integer, intent(out), optional :: stat
    call finish(sl_rotate(array%handle, c_dim(dim), -int(shift, c_int64_t), r%handle), stat)
  end function

  ! eoshift(array, shift [, boundary, dim]): element i of the result is element i + shift,
  ! or boundary (default 0) past the ends.
  type(sl_array) function eoshift_arr(array, shift, boundary, dim, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: shift
    class(*), intent(in), optional :: boundary
    integer, intent(in), optional :: dim
    integer, intent(out), optional :: stat
    real(c_double) :: fill
    if (fill_value(boundary, fill)) then
      call finish(sl_shift(array%handle, c_dim(dim), -int(shift, c_int64_t), SL_BOUNDARY_FILL, fill, r%handle), &
        stat)
    else
      call fail(SL_ERR_INVALID_ARGUMENT, 'eoshift: ' // bad_operand, stat)
    end if
  end function

  ! spread(source, dim, ncopies): source repeated ncopies times along a new dimension dim.
  type(sl_array) function spread_arr(source, dim, ncopies, stat) result(r)
    type(sl_array), intent(in) :: source
    integer, intent(in) :: dim, ncopies
    integer, intent(out), optional :: stat
    integer(c_int64_t), allocatable :: dims(:), grown(:)
    integer(c_int64_t) :: lifted
    integer(c_int) :: status
    status = shape_of(source%handle, dims)
    if (status /= SL_OK) then
      call finish(status, stat)
      return
    end if
    if (dim < 1 .or. dim > size(dims) + 1) then
      call fail(SL_ERR_INVALID_ARGUMENT, 'spread: dimension ' // int_text(dim) // ' for a rank-' // &
        int_text(size(dims)) // ' source', stat)
      return
    end if
    allocate (grown(size(dims) + 1))
    grown(:dim - 1) = dims(:dim - 1)
    grown(dim) = 1
    grown(dim + 1:) = dims(dim:)
    lifted = 0
    status = sl_reshape(source%handle, size(grown, kind=c_int32_t), grown, lifted)
    grown(dim) = ncopies
    if (status == SL_OK) status = sl_broadcast_to(lifted, size(grown, kind=c_int32_t), grown, r%handle)
    call drop(lifted, status)
    call finish(status, stat)
  end function

  ! array(lower(1):upper(1):stride(1), ...): a view with 1-based inclusive bounds, one per
  ! dimension; strides default to 1 and may be negative.
  type(sl_array) function section(array, lower, upper, stride, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: lower(:), upper(:)
    integer, intent(in), optional :: stride(:)
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: step(size(lower)), extent(size(lower))
    step = 1
    if (present(stride)) then
      if (size(stride) /= size(lower)) then
        call fail(SL_ERR_INVALID_ARGUMENT, 'section: stride has a different length than lower', stat)
        return
      end if
      step = stride
    end if
    if (size(upper) /= size(lower) .or. any(step == 0)) then
      call fail(SL_ERR_INVALID_ARGUMENT, 'section: upper must have lower''s length and strides must not be 0', &
        stat)
      return
    end if
    if (.not. one_per_dim(array, size(lower), 'section', stat)) return
    extent = max(0_c_int64_t, (upper - lower + step) / step)
    call finish(sl_section(array%handle, int(lower - 1, c_int64_t), extent, step, r%handle), stat)
  end function

  ! Dimension d of the result is dimension order(d) of array.
  type(sl_array) function permute(array, order, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: order(:)
    integer, intent(out), optional :: stat
    call finish(sl_permute(array%handle, int(order - 1, c_int32_t), size(order, kind=c_int32_t), r%handle), stat)
  end function

  ! The slice at 1-based `index` of dimension `dim`, with that dimension removed.
  type(sl_array) function project(array, dim, index, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: dim, index
    integer, intent(out), optional :: stat
    call finish(sl_project(array%handle, c_dim(dim), int(index - 1, c_int64_t), r%handle), stat)
  end function

  ! array with lower(d) elements added before and upper(d) after each dimension d, taken by
  ! the boundary rule (SL_BOUNDARY_FILL with `fill`, default 0; SL_BOUNDARY_CLAMP; SL_BOUNDARY_WRAP).
  type(sl_array) function pad(array, lower, upper, boundary, fill, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: lower(:), upper(:)
    integer, intent(in), optional :: boundary
    class(*), intent(in), optional :: fill
    integer, intent(out), optional :: stat
    integer(c_int32_t) :: rule
    real(c_double) :: v
    if (.not. fill_value(fill, v)) then
      call fail(SL_ERR_INVALID_ARGUMENT, 'pad: ' // bad_operand, stat)
      return
    end if
    if (size(upper) /= size(lower)) then
      call fail(SL_ERR_INVALID_ARGUMENT, 'pad: lower and upper differ in length', stat)
      return
    end if
    if (.not. one_per_dim(array, size(lower), 'pad', stat)) return
    rule = SL_BOUNDARY_FILL
    if (present(boundary)) rule = int(boundary, c_int32_t)
    call finish(sl_pad(array%handle, int(lower, c_int64_t), int(upper, c_int64_t), rule, v, r%handle), stat)
  end function

  ! array repeated reps(d) times along each dimension (more entries than the rank add dimensions).
  type(sl_array) function tile(array, reps, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: reps(:)
    integer, intent(out), optional :: stat
    call finish(sl_tile(array%handle, int(reps, c_int64_t), size(reps, kind=c_int32_t), r%handle), stat)
  end function

  ! array stretched to `shape` along its size-1 and missing trailing dimensions.
  type(sl_array) function broadcast_to(array, shape, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: shape(:)
    integer, intent(out), optional :: stat
    call finish(sl_broadcast_to(array%handle, size(shape, kind=c_int32_t), int(shape, c_int64_t), r%handle), stat)
  end function

  ! The arrays joined along `dim` (their other dimensions match).
  type(sl_array) function concat(arrays, dim, stat) result(r)
    type(sl_array), intent(in) :: arrays(:)
    integer, intent(in) :: dim
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: handles(size(arrays))
    handles = arrays%handle
    call finish(sl_concat(handles, size(arrays, kind=c_int32_t), c_dim(dim), r%handle), stat)
  end function

  ! Fortran's 1-based index arrays as the C API's 0-based ones (new handles to drop).
  integer(c_int) function zero_based(indices, handles) result(status)
    type(sl_array), intent(in) :: indices(:)
    integer(c_int64_t), intent(out) :: handles(:)
    integer :: i
    handles = 0
    status = SL_OK
    do i = 1, size(indices)
      if (status == SL_OK) status = sl_binary_scalar_i(SL_BINARY_SUB, indices(i)%handle, 1_c_int64_t, handles(i))
    end do
  end function

  ! r(i) = source(indices(1)(i), ..., indices(n)(i)): one array of 1-based indices per
  ! dimension of source (they broadcast together; integers, or reals floored). Out-of-range
  ! indices clamp to the edge, or as policy says (SL_INDEX_CLAMP, _WRAP, _FILL with the
  ! value fill, default 0, or _ERROR, which poisons the result).
  type(sl_array) function gather(source, indices, stat, policy, fill) result(r)
    type(sl_array), intent(in) :: source
    type(sl_array), intent(in) :: indices(:)
    integer, intent(out), optional :: stat
    integer, intent(in), optional :: policy
    class(*), intent(in), optional :: fill
    integer(c_int64_t) :: handles(size(indices))
    real(c_double) :: value
    integer(c_int) :: status
    if (.not. fill_value(fill, value)) then
      call fail(SL_ERR_INVALID_ARGUMENT, 'gather: ' // bad_operand, stat)
      return
    end if
    status = zero_based(indices, handles)
    if (status == SL_OK) status = sl_gather_with(source%handle, handles, size(indices, kind=c_int32_t), &
      c_policy(policy), value, r%handle)
    call drop_all(handles, status)
    call finish(status, stat)
  end function

  ! source read along dim at 1-based indices (numpy's take_along_axis): index has source's
  ! extents but along dim (or 1 where it broadcasts); policy and fill as in gather.
  type(sl_array) function take_along(source, indices, dim, policy, fill, stat) result(r)
    type(sl_array), intent(in) :: source, indices
    integer, intent(in) :: dim
    integer, intent(in), optional :: policy
    class(*), intent(in), optional :: fill
    integer, intent(out), optional :: stat
    r = along(source, [indices], [dim], .false., policy, fill, stat)
  end function

  ! Linear interpolation of source (real) along dim at 1-based fractional positions (1.5 is
  ! half way between the first and second elements); outside 1 .. size(source, dim),
  ! policy says what is read (SL_INDEX_CLAMP by default: the edge value).
  type(sl_array) function interp1(source, positions, dim, policy, fill, stat) result(r)
    type(sl_array), intent(in) :: source, positions
    integer, intent(in) :: dim
    integer, intent(in), optional :: policy
    class(*), intent(in), optional :: fill
    integer, intent(out), optional :: stat
    r = along(source, [positions], [dim], .true., policy, fill, stat)
  end function

  ! Bilinear interpolation of source along dims(1) and dims(2) at 1-based positions1 and
  ! positions2; as interp1.
  type(sl_array) function interp2(source, positions1, positions2, dims, policy, fill, stat) result(r)
    type(sl_array), intent(in) :: source, positions1, positions2
    integer, intent(in) :: dims(2)
    integer, intent(in), optional :: policy
    class(*), intent(in), optional :: fill
    integer, intent(out), optional :: stat
    r = along(source, [positions1, positions2], dims, .true., policy, fill, stat)
  end function

  ! take_along (one index array), or when interpolating interp1 (one position array) or
  ! interp2 (two).
  type(sl_array) function along(source, at, dims, interpolate, policy, fill, stat) result(r)
    type(sl_array), intent(in) :: source
    type(sl_array), intent(in) :: at(:)
    integer, intent(in) :: dims(:)
    logical, intent(in) :: interpolate
    integer, intent(in), optional :: policy
    class(*), intent(in), optional :: fill
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: handles(size(at))
    integer(c_int32_t) :: d(size(dims))
    real(c_double) :: value
    integer(c_int) :: status
    if (.not. fill_value(fill, value)) then
      call fail(SL_ERR_INVALID_ARGUMENT, 'fill: ' // bad_operand, stat)
      return
    end if
    d = c_dims(dims)
    status = zero_based(at, handles)
    if (status == SL_OK) then
      if (size(at) == 2) then
        status = sl_interp2(source%handle, handles(1), handles(2), d(1), d(2), c_policy(policy), value, r%handle)
      else if (interpolate) then
        status = sl_interp1(source%handle, handles(1), d(1), c_policy(policy), value, r%handle)
      else
        status = sl_take_along(source%handle, handles(1), d(1), c_policy(policy), value, r%handle)
      end if
    end if
    call drop_all(handles, status)
    call finish(status, stat)
  end function

  integer(c_int32_t) function c_policy(policy)
    integer, intent(in), optional :: policy
    c_policy = SL_INDEX_CLAMP
    if (present(policy)) c_policy = int(policy, c_int32_t)
  end function
  ! The 0-based start, lengths and stride of the section lower:upper:stride (see `assign`).
  logical function section_spec(array, lower, upper, stride, start, lengths, step, stat) result(ok)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: lower(:), upper(:)
    integer, intent(in), optional :: stride(:)
    integer(c_int64_t), intent(out) :: start(size(lower)), lengths(size(lower)), step(size(lower))
    integer, intent(out), optional :: stat
    integer :: d
    ok = .false.
    step = 1
    if (present(stride)) then
      if (size(stride) /= size(lower)) then
        call fail(SL_ERR_INVALID_ARGUMENT, 'assign: stride has a different length than lower', stat)
        return
      end if
      step = stride
    end if
    if (size(upper) /= size(lower)) then
      call fail(SL_ERR_INVALID_ARGUMENT, 'assign: upper must have lower''s length', stat)
      return
    end if
    if (.not. one_per_dim(array, size(lower), 'assign', stat)) return
    start = lower - 1
    do d = 1, size(lower)
      lengths(d) = 1
      if (step(d) /= 0) lengths(d) = max(0_c_int64_t, (upper(d) - lower(d) + step(d)) / step(d))
    end do
    ok = .true.
  end function

  subroutine assign_array(array, lower, upper, values, stride, stat)
    type(sl_array), intent(in) :: array, values
    integer, intent(in) :: lower(:), upper(:)
    integer, intent(in), optional :: stride(:)
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: start(size(lower)), lengths(size(lower)), step(size(lower))
    if (.not. section_spec(array, lower, upper, stride, start, lengths, step, stat)) return
    call finish(sl_assign_section(array%handle, start, lengths, step, values%handle), stat)
  end subroutine

  subroutine assign_r8(array, lower, upper, value, stride, stat)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: lower(:), upper(:)
    real(c_double), intent(in) :: value
    integer, intent(in), optional :: stride(:)
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: start(size(lower)), lengths(size(lower)), step(size(lower))
    if (.not. section_spec(array, lower, upper, stride, start, lengths, step, stat)) return
    call finish(sl_assign_section_scalar(array%handle, start, lengths, step, value), stat)
  end subroutine

  subroutine assign_int(array, lower, upper, value, stride, stat)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: lower(:), upper(:)
    integer, intent(in) :: value
    integer, intent(in), optional :: stride(:)
    integer, intent(out), optional :: stat
    call assign_r8(array, lower, upper, real(value, c_double), stride, stat)
  end subroutine

  subroutine assign_where_array(array, mask, values, stat)
    type(sl_array), intent(in) :: array, mask, values
    integer, intent(out), optional :: stat
    call finish(sl_assign_where(array%handle, mask%handle, values%handle), stat)
  end subroutine

  subroutine assign_where_r8(array, mask, value, stat)
    type(sl_array), intent(in) :: array, mask
    real(c_double), intent(in) :: value
    integer, intent(out), optional :: stat
    call finish(sl_assign_where_scalar(array%handle, mask%handle, value), stat)
  end subroutine

  ! array(indices(1)(i), ..., indices(n)(i)) = values(i) (1-based), or combined by mode
  ! (SL_SCATTER_ADD, _MIN, _MAX); out-of-range positions are dropped. array keeps its
  ! handle and holds the new version (as for `assign`).
  subroutine assign_indexed(array, indices, values, mode, stat)
    type(sl_array), intent(in) :: array, values
    type(sl_array), intent(in) :: indices(:)
    integer, intent(in), optional :: mode
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: handles(size(indices))
    integer(c_int32_t) :: how
    integer(c_int) :: status
    how = SL_SCATTER_REPLACE
    if (present(mode)) how = int(mode, c_int32_t)
    status = zero_based(indices, handles)
    if (status == SL_OK) status = sl_assign_indexed(array%handle, handles, size(indices, kind=c_int32_t), &
      values%handle, how)
    call drop_all(handles, status)
    call finish(status, stat)
  end subroutine

  ! A copy of destination with values(i) written at (indices(1)(i), ..., indices(n)(i))
  ! (1-based), combined by mode (SL_SCATTER_REPLACE by default, _ADD, _MIN, _MAX);
  ! out-of-range positions are dropped.
  type(sl_array) function scatter(destination, indices, values, mode, stat) result(r)
    type(sl_array), intent(in) :: destination, values
    type(sl_array), intent(in) :: indices(:)
    integer, intent(in), optional :: mode
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: handles(size(indices))
    integer(c_int32_t) :: how
    integer(c_int) :: status
    how = SL_SCATTER_REPLACE
    if (present(mode)) how = int(mode, c_int32_t)
    status = zero_based(indices, handles)
    if (status == SL_OK) status = sl_scatter(destination%handle, handles, size(indices, kind=c_int32_t), &
      values%handle, how, r%handle)
    call drop_all(handles, status)
    call finish(status, stat)
  end function

  ! ---------------------------------------------------------------------------------------
  ! One procedure per type and rank (Fortran 2008 has no generic kinds or ranks), each
  ! handing its array's type, shape and address to the shared code above.

  ! sl_array(x): constructors.
  type(sl_array) function new_r4_0(x, stat) result(a)
    real(c_float), intent(in), target :: x
    integer, intent(out), optional :: stat
    a = create(SL_F32, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_r4_1(x, stat) result(a)
    real(c_float), intent(in), target, contiguous :: x(:)
    integer, intent(out), optional :: stat
    a = create(SL_F32, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_r4_2(x, stat) result(a)
    real(c_float), intent(in), target, contiguous :: x(:,:)
    integer, intent(out), optional :: stat
    a = create(SL_F32, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_r4_3(x, stat) result(a)
    real(c_float), intent(in), target, contiguous :: x(:,:,:)
    integer, intent(out), optional :: stat
    a = create(SL_F32, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_r4_4(x, stat) result(a)
    real(c_float), intent(in), target, contiguous :: x(:,:,:,:)
    integer, intent(out), optional :: stat
    a = create(SL_F32, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_r8_0(x, stat) result(a)
    real(c_double), intent(in), target :: x
    integer, intent(out), optional :: stat
    a = create(SL_F64, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_r8_1(x, stat) result(a)
    real(c_double), intent(in), target, contiguous :: x(:)
    integer, intent(out), optional :: stat
    a = create(SL_F64, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_r8_2(x, stat) result(a)
    real(c_double), intent(in), target, contiguous :: x(:,:)
    integer, intent(out), optional :: stat
    a = create(SL_F64, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_r8_3(x, stat) result(a)
    real(c_double), intent(in), target, contiguous :: x(:,:,:)
    integer, intent(out), optional :: stat
    a = create(SL_F64, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_r8_4(x, stat) result(a)
    real(c_double), intent(in), target, contiguous :: x(:,:,:,:)
    integer, intent(out), optional :: stat
    a = create(SL_F64, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_i4_0(x, stat) result(a)
    integer(c_int32_t), intent(in), target :: x
    integer, intent(out), optional :: stat
    a = create(SL_I32, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_i4_1(x, stat) result(a)
    integer(c_int32_t), intent(in), target, contiguous :: x(:)
    integer, intent(out), optional :: stat
    a = create(SL_I32, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_i4_2(x, stat) result(a)
    integer(c_int32_t), intent(in), target, contiguous :: x(:,:)
    integer, intent(out), optional :: stat
    a = create(SL_I32, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_i4_3(x, stat) result(a)
    integer(c_int32_t), intent(in), target, contiguous :: x(:,:,:)
    integer, intent(out), optional :: stat
    a = create(SL_I32, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_i4_4(x, stat) result(a)
    integer(c_int32_t), intent(in), target, contiguous :: x(:,:,:,:)
    integer, intent(out), optional :: stat
    a = create(SL_I32, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_i8_0(x, stat) result(a)
    integer(c_int64_t), intent(in), target :: x
    integer, intent(out), optional :: stat
    a = create(SL_I64, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_i8_1(x, stat) result(a)
    integer(c_int64_t), intent(in), target, contiguous :: x(:)
    integer, intent(out), optional :: stat
    a = create(SL_I64, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_i8_2(x, stat) result(a)
    integer(c_int64_t), intent(in), target, contiguous :: x(:,:)
    integer, intent(out), optional :: stat
    a = create(SL_I64, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_i8_3(x, stat) result(a)
    integer(c_int64_t), intent(in), target, contiguous :: x(:,:,:)
    integer, intent(out), optional :: stat
    a = create(SL_I64, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_i8_4(x, stat) result(a)
    integer(c_int64_t), intent(in), target, contiguous :: x(:,:,:,:)
    integer, intent(out), optional :: stat
    a = create(SL_I64, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_i1_0(x, stat) result(a)
    integer(c_int8_t), intent(in), target :: x
    integer, intent(out), optional :: stat
    a = create(SL_I8, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_i1_1(x, stat) result(a)
    integer(c_int8_t), intent(in), target, contiguous :: x(:)
    integer, intent(out), optional :: stat
    a = create(SL_I8, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_i1_2(x, stat) result(a)
    integer(c_int8_t), intent(in), target, contiguous :: x(:,:)
    integer, intent(out), optional :: stat
    a = create(SL_I8, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_i1_3(x, stat) result(a)
    integer(c_int8_t), intent(in), target, contiguous :: x(:,:,:)
    integer, intent(out), optional :: stat
    a = create(SL_I8, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_i1_4(x, stat) result(a)
    integer(c_int8_t), intent(in), target, contiguous :: x(:,:,:,:)
    integer, intent(out), optional :: stat
    a = create(SL_I8, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_i2_0(x, stat) result(a)
    integer(c_int16_t), intent(in), target :: x
    integer, intent(out), optional :: stat
    a = create(SL_I16, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_i2_1(x, stat) result(a)
    integer(c_int16_t), intent(in), target, contiguous :: x(:)
    integer, intent(out), optional :: stat
    a = create(SL_I16, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_i2_2(x, stat) result(a)
    integer(c_int16_t), intent(in), target, contiguous :: x(:,:)
    integer, intent(out), optional :: stat
    a = create(SL_I16, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_i2_3(x, stat) result(a)
    integer(c_int16_t), intent(in), target, contiguous :: x(:,:,:)
    integer, intent(out), optional :: stat
    a = create(SL_I16, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_i2_4(x, stat) result(a)
    integer(c_int16_t), intent(in), target, contiguous :: x(:,:,:,:)
    integer, intent(out), optional :: stat
    a = create(SL_I16, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_l_0(x, stat) result(a)
    logical, intent(in) :: x
    integer, intent(out), optional :: stat
    a = create_flags(shape(x, c_int64_t), [x], stat)
  end function

  type(sl_array) function new_l_1(x, stat) result(a)
    logical, intent(in) :: x(:)
    integer, intent(out), optional :: stat
    a = create_flags(shape(x, c_int64_t), pack(x, .true.), stat)
  end function

  type(sl_array) function new_l_2(x, stat) result(a)
    logical, intent(in) :: x(:,:)
    integer, intent(out), optional :: stat
    a = create_flags(shape(x, c_int64_t), pack(x, .true.), stat)
  end function

  type(sl_array) function new_l_3(x, stat) result(a)
    logical, intent(in) :: x(:,:,:)
    integer, intent(out), optional :: stat
    a = create_flags(shape(x, c_int64_t), pack(x, .true.), stat)
  end function

  type(sl_array) function new_l_4(x, stat) result(a)
    logical, intent(in) :: x(:,:,:,:)
    integer, intent(out), optional :: stat
    a = create_flags(shape(x, c_int64_t), pack(x, .true.), stat)
  end function

  ! get(a, x): reads.
  subroutine get_r4_0(a, x, stat)
    type(sl_array), intent(in) :: a
    real(c_float), intent(inout), target :: x
    integer, intent(out), optional :: stat
    call read_into(a, SL_F32, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_r4_1(a, x, stat)
    type(sl_array), intent(in) :: a
    real(c_float), intent(inout), target, contiguous :: x(:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_F32, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_r4_2(a, x, stat)
    type(sl_array), intent(in) :: a
    real(c_float), intent(inout), target, contiguous :: x(:,:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_F32, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_r4_3(a, x, stat)
    type(sl_array), intent(in) :: a
    real(c_float), intent(inout), target, contiguous :: x(:,:,:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_F32, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_r4_4(a, x, stat)
    type(sl_array), intent(in) :: a
    real(c_float), intent(inout), target, contiguous :: x(:,:,:,:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_F32, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_r8_0(a, x, stat)
    type(sl_array), intent(in) :: a
    real(c_double), intent(inout), target :: x
    integer, intent(out), optional :: stat
    call read_into(a, SL_F64, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_r8_1(a, x, stat)
    type(sl_array), intent(in) :: a
    real(c_double), intent(inout), target, contiguous :: x(:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_F64, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_r8_2(a, x, stat)
    type(sl_array), intent(in) :: a
    real(c_double), intent(inout), target, contiguous :: x(:,:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_F64, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_r8_3(a, x, stat)
    type(sl_array), intent(in) :: a
    real(c_double), intent(inout), target, contiguous :: x(:,:,:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_F64, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_r8_4(a, x, stat)
    type(sl_array), intent(in) :: a
    real(c_double), intent(inout), target, contiguous :: x(:,:,:,:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_F64, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_i4_0(a, x, stat)
    type(sl_array), intent(in) :: a
    integer(c_int32_t), intent(inout), target :: x
    integer, intent(out), optional :: stat
    call read_into(a, SL_I32, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_i4_1(a, x, stat)
    type(sl_array), intent(in) :: a
    integer(c_int32_t), intent(inout), target, contiguous :: x(:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_I32, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_i4_2(a, x, stat)
    type(sl_array), intent(in) :: a
    integer(c_int32_t), intent(inout), target, contiguous :: x(:,:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_I32, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_i4_3(a, x, stat)
    type(sl_array), intent(in) :: a
    integer(c_int32_t), intent(inout), target, contiguous :: x(:,:,:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_I32, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_i4_4(a, x, stat)
    type(sl_array), intent(in) :: a
    integer(c_int32_t), intent(inout), target, contiguous :: x(:,:,:,:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_I32, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_i8_0(a, x, stat)
    type(sl_array), intent(in) :: a
    integer(c_int64_t), intent(inout), target :: x
    integer, intent(out), optional :: stat
    call read_into(a, SL_I64, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_i8_1(a, x, stat)
    type(sl_array), intent(in) :: a
    integer(c_int64_t), intent(inout), target, contiguous :: x(:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_I64, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_i8_2(a, x, stat)
    type(sl_array), intent(in) :: a
    integer(c_int64_t), intent(inout), target, contiguous :: x(:,:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_I64, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_i8_3(a, x, stat)
    type(sl_array), intent(in) :: a
    integer(c_int64_t), intent(inout), target, contiguous :: x(:,:,:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_I64, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_i8_4(a, x, stat)
    type(sl_array), intent(in) :: a
    integer(c_int64_t), intent(inout), target, contiguous :: x(:,:,:,:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_I64, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_i1_0(a, x, stat)
    type(sl_array), intent(in) :: a
    integer(c_int8_t), intent(inout), target :: x
    integer, intent(out), optional :: stat
    call read_into(a, SL_I8, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_i1_1(a, x, stat)
    type(sl_array), intent(in) :: a
    integer(c_int8_t), intent(inout), target, contiguous :: x(:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_I8, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_i1_2(a, x, stat)
    type(sl_array), intent(in) :: a
    integer(c_int8_t), intent(inout), target, contiguous :: x(:,:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_I8, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_i1_3(a, x, stat)
    type(sl_array), intent(in) :: a
    integer(c_int8_t), intent(inout), target, contiguous :: x(:,:,:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_I8, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_i1_4(a, x, stat)
    type(sl_array), intent(in) :: a
    integer(c_int8_t), intent(inout), target, contiguous :: x(:,:,:,:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_I8, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_i2_0(a, x, stat)
    type(sl_array), intent(in) :: a
    integer(c_int16_t), intent(inout), target :: x
    integer, intent(out), optional :: stat
    call read_into(a, SL_I16, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_i2_1(a, x, stat)
    type(sl_array), intent(in) :: a
    integer(c_int16_t), intent(inout), target, contiguous :: x(:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_I16, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_i2_2(a, x, stat)
    type(sl_array), intent(in) :: a
    integer(c_int16_t), intent(inout), target, contiguous :: x(:,:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_I16, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_i2_3(a, x, stat)
    type(sl_array), intent(in) :: a
    integer(c_int16_t), intent(inout), target, contiguous :: x(:,:,:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_I16, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_i2_4(a, x, stat)
    type(sl_array), intent(in) :: a
    integer(c_int16_t), intent(inout), target, contiguous :: x(:,:,:,:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_I16, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_l_0(a, x, stat)
    type(sl_array), intent(in) :: a
    logical, intent(inout) :: x
    integer, intent(out), optional :: stat
    integer(c_int8_t) :: flags(1)
    if (read_flags(a, shape(x, c_int64_t), flags, stat)) x = flags(1) /= 0
  end subroutine

  subroutine get_l_1(a, x, stat)
    type(sl_array), intent(in) :: a
    logical, intent(inout) :: x(:)
    integer, intent(out), optional :: stat
    integer(c_int8_t) :: flags(size(x))
    if (read_flags(a, shape(x, c_int64_t), flags, stat)) x = reshape(flags /= 0, shape(x))
  end subroutine

  subroutine get_l_2(a, x, stat)
    type(sl_array), intent(in) :: a
    logical, intent(inout) :: x(:,:)
    integer, intent(out), optional :: stat
    integer(c_int8_t) :: flags(size(x))
    if (read_flags(a, shape(x, c_int64_t), flags, stat)) x = reshape(flags /= 0, shape(x))
  end subroutine

  subroutine get_l_3(a, x, stat)
    type(sl_array), intent(in) :: a
    logical, intent(inout) :: x(:,:,:)
    integer, intent(out), optional :: stat
    integer(c_int8_t) :: flags(size(x))
    if (read_flags(a, shape(x, c_int64_t), flags, stat)) x = reshape(flags /= 0, shape(x))
  end subroutine

  subroutine get_l_4(a, x, stat)
    type(sl_array), intent(in) :: a
    logical, intent(inout) :: x(:,:,:,:)
    integer, intent(out), optional :: stat
    integer(c_int8_t) :: flags(size(x))
    if (read_flags(a, shape(x, c_int64_t), flags, stat)) x = reshape(flags /= 0, shape(x))
  end subroutine

  ! x = a: assignments.
  subroutine set_r4_0(x, a)
    real(c_float), intent(inout) :: x
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_r4_1(x, a)
    real(c_float), intent(inout) :: x(:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_r4_2(x, a)
    real(c_float), intent(inout) :: x(:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_r4_3(x, a)
    real(c_float), intent(inout) :: x(:,:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_r4_4(x, a)
    real(c_float), intent(inout) :: x(:,:,:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_r8_0(x, a)
    real(c_double), intent(inout) :: x
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_r8_1(x, a)
    real(c_double), intent(inout) :: x(:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_r8_2(x, a)
    real(c_double), intent(inout) :: x(:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_r8_3(x, a)
    real(c_double), intent(inout) :: x(:,:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_r8_4(x, a)
    real(c_double), intent(inout) :: x(:,:,:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_i4_0(x, a)
    integer(c_int32_t), intent(inout) :: x
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_i4_1(x, a)
    integer(c_int32_t), intent(inout) :: x(:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_i4_2(x, a)
    integer(c_int32_t), intent(inout) :: x(:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_i4_3(x, a)
    integer(c_int32_t), intent(inout) :: x(:,:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_i4_4(x, a)
    integer(c_int32_t), intent(inout) :: x(:,:,:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_i8_0(x, a)
    integer(c_int64_t), intent(inout) :: x
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_i8_1(x, a)
    integer(c_int64_t), intent(inout) :: x(:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_i8_2(x, a)
    integer(c_int64_t), intent(inout) :: x(:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_i8_3(x, a)
    integer(c_int64_t), intent(inout) :: x(:,:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_i8_4(x, a)
    integer(c_int64_t), intent(inout) :: x(:,:,:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_i1_0(x, a)
    integer(c_int8_t), intent(inout) :: x
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_i1_1(x, a)
    integer(c_int8_t), intent(inout) :: x(:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_i1_2(x, a)
    integer(c_int8_t), intent(inout) :: x(:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_i1_3(x, a)
    integer(c_int8_t), intent(inout) :: x(:,:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_i1_4(x, a)
    integer(c_int8_t), intent(inout) :: x(:,:,:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_i2_0(x, a)
    integer(c_int16_t), intent(inout) :: x
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_i2_1(x, a)
    integer(c_int16_t), intent(inout) :: x(:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_i2_2(x, a)
    integer(c_int16_t), intent(inout) :: x(:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_i2_3(x, a)
    integer(c_int16_t), intent(inout) :: x(:,:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_i2_4(x, a)
    integer(c_int16_t), intent(inout) :: x(:,:,:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_l_0(x, a)
    logical, intent(inout) :: x
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_l_1(x, a)
    logical, intent(inout) :: x(:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_l_2(x, a)
    logical, intent(inout) :: x(:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_l_3(x, a)
    logical, intent(inout) :: x(:,:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_l_4(x, a)
    logical, intent(inout) :: x(:,:,:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  ! Operators: an sl_array on the left with anything on the right, or a scalar of each
  ! kind on the left.
  type(sl_array) function add_any(a, b) result(r)
    type(sl_array), intent(in) :: a
    class(*), intent(in) :: b
    r = binary_any(SL_BINARY_ADD, a, b)
  end function

  type(sl_array) function add_r4(s, b) result(r)
    real(c_float), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_ADD, s, b)
  end function

  type(sl_array) function add_r8(s, b) result(r)
    real(c_double), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_ADD, s, b)
  end function

  type(sl_array) function add_i4(s, b) result(r)
    integer(c_int32_t), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_ADD, s, b)
  end function

  type(sl_array) function add_i8(s, b) result(r)
    integer(c_int64_t), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_ADD, s, b)
  end function

  type(sl_array) function sub_any(a, b) result(r)
    type(sl_array), intent(in) :: a
    class(*), intent(in) :: b
    r = binary_any(SL_BINARY_SUB, a, b)
  end function

  type(sl_array) function sub_r4(s, b) result(r)
    real(c_float), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_SUB, s, b)
  end function

  type(sl_array) function sub_r8(s, b) result(r)
    real(c_double), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_SUB, s, b)
  end function

  type(sl_array) function sub_i4(s, b) result(r)
    integer(c_int32_t), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_SUB, s, b)
  end function

  type(sl_array) function sub_i8(s, b) result(r)
    integer(c_int64_t), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_SUB, s, b)
  end function

  type(sl_array) function mul_any(a, b) result(r)
    type(sl_array), intent(in) :: a
    class(*), intent(in) :: b
    r = binary_any(SL_BINARY_MUL, a, b)
  end function

  type(sl_array) function mul_r4(s, b) result(r)
    real(c_float), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_MUL, s, b)
  end function

  type(sl_array) function mul_r8(s, b) result(r)
    real(c_double), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_MUL, s, b)
  end function

  type(sl_array) function mul_i4(s, b) result(r)
    integer(c_int32_t), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_MUL, s, b)
  end function

  type(sl_array) function mul_i8(s, b) result(r)
    integer(c_int64_t), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_MUL, s, b)
  end function

  type(sl_array) function div_any(a, b) result(r)
    type(sl_array), intent(in) :: a
    class(*), intent(in) :: b
    r = binary_any(SL_BINARY_DIV, a, b)
  end function

  type(sl_array) function div_r4(s, b) result(r)
    real(c_float), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_DIV, s, b)
  end function

  type(sl_array) function div_r8(s, b) result(r)
    real(c_double), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_DIV, s, b)
  end function

  type(sl_array) function div_i4(s, b) result(r)
    integer(c_int32_t), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_DIV, s, b)
  end function

  type(sl_array) function div_i8(s, b) result(r)
    integer(c_int64_t), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_DIV, s, b)
  end function

  type(sl_array) function pow_any(a, b) result(r)
    type(sl_array), intent(in) :: a
    class(*), intent(in) :: b
    r = binary_any(SL_BINARY_POW, a, b)
  end function

  type(sl_array) function pow_r4(s, b) result(r)
    real(c_float), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_POW, s, b)
  end function

  type(sl_array) function pow_r8(s, b) result(r)
    real(c_double), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_POW, s, b)
  end function

  type(sl_array) function pow_i4(s, b) result(r)
    integer(c_int32_t), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_POW, s, b)
  end function

  type(sl_array) function pow_i8(s, b) result(r)
    integer(c_int64_t), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_POW, s, b)
  end function

  type(sl_array) function eq_any(a, b) result(r)
    type(sl_array), intent(in) :: a
    class(*), intent(in) :: b
    r = binary_any(SL_BINARY_EQ, a, b)
  end function

  type(sl_array) function eq_r4(s, b) result(r)
    real(c_float), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_EQ, s, b)
  end function

  type(sl_array) function eq_r8(s, b) result(r)
    real(c_double), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_EQ, s, b)
  end function

  type(sl_array) function eq_i4(s, b) result(r)
    integer(c_int32_t), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_EQ, s, b)
  end function

  type(sl_array) function eq_i8(s, b) result(r)
    integer(c_int64_t), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_EQ, s, b)
  end function

  type(sl_array) function ne_any(a, b) result(r)
    type(sl_array), intent(in) :: a
    class(*), intent(in) :: b
    r = binary_any(SL_BINARY_NE, a, b)
  end function

  type(sl_array) function ne_r4(s, b) result(r)
    real(c_float), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_NE, s, b)
  end function

  type(sl_array) function ne_r8(s, b) result(r)
    real(c_double), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_NE, s, b)
  end function

  type(sl_array) function ne_i4(s, b) result(r)
    integer(c_int32_t), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_NE, s, b)
  end function

  type(sl_array) function ne_i8(s, b) result(r)
    integer(c_int64_t), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_NE, s, b)
  end function

  type(sl_array) function lt_any(a, b) result(r)
    type(sl_array), intent(in) :: a
    class(*), intent(in) :: b
    r = binary_any(SL_BINARY_LT, a, b)
  end function

  type(sl_array) function lt_r4(s, b) result(r)
    real(c_float), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_LT, s, b)
  end function

  type(sl_array) function lt_r8(s, b) result(r)
    real(c_double), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_LT, s, b)
  end function

  type(sl_array) function lt_i4(s, b) result(r)
    integer(c_int32_t), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_LT, s, b)
  end function

  type(sl_array) function lt_i8(s, b) result(r)
    integer(c_int64_t), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_LT, s, b)
  end function

  type(sl_array) function le_any(a, b) result(r)
    type(sl_array), intent(in) :: a
    class(*), intent(in) :: b
    r = binary_any(SL_BINARY_LE, a, b)
  end function

  type(sl_array) function le_r4(s, b) result(r)
    real(c_float), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_LE, s, b)
  end function

  type(sl_array) function le_r8(s, b) result(r)
    real(c_double), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_LE, s, b)
  end function

  type(sl_array) function le_i4(s, b) result(r)
    integer(c_int32_t), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_LE, s, b)
  end function

  type(sl_array) function le_i8(s, b) result(r)
    integer(c_int64_t), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_LE, s, b)
  end function

  type(sl_array) function gt_any(a, b) result(r)
    type(sl_array), intent(in) :: a
    class(*), intent(in) :: b
    r = binary_any(SL_BINARY_GT, a, b)
  end function

  type(sl_array) function gt_r4(s, b) result(r)
    real(c_float), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_GT, s, b)
  end function

  type(sl_array) function gt_r8(s, b) result(r)
    real(c_double), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_GT, s, b)
  end function

  type(sl_array) function gt_i4(s, b) result(r)
    integer(c_int32_t), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_GT, s, b)
  end function

  type(sl_array) function gt_i8(s, b) result(r)
    integer(c_int64_t), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_GT, s, b)
  end function

  type(sl_array) function ge_any(a, b) result(r)
    type(sl_array), intent(in) :: a
    class(*), intent(in) :: b
    r = binary_any(SL_BINARY_GE, a, b)
  end function

  type(sl_array) function ge_r4(s, b) result(r)
    real(c_float), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_GE, s, b)
  end function

  type(sl_array) function ge_r8(s, b) result(r)
    real(c_double), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_GE, s, b)
  end function

  type(sl_array) function ge_i4(s, b) result(r)
    integer(c_int32_t), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_GE, s, b)
  end function

  type(sl_array) function ge_i8(s, b) result(r)
    integer(c_int64_t), intent(in) :: s
    type(sl_array), intent(in) :: b
    r = scalar_left(SL_BINARY_GE, s, b)
  end function

  ! ---------------------------------------------------------------------------------------
  ! One procedure per generic name.

  ! Element-wise functions of one argument.
  type(sl_array) function abs_arr(a, stat) result(r)
    type(sl_array), intent(in) :: a
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_ABS, a, stat)
  end function

  type(sl_array) function sqrt_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_SQRT, x, stat)
  end function

  type(sl_array) function exp_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_EXP, x, stat)
  end function

  type(sl_array) function log_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_LOG, x, stat)
  end function

  type(sl_array) function log10_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_LOG10, x, stat)
  end function

  type(sl_array) function sin_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_SIN, x, stat)
  end function

  type(sl_array) function cos_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_COS, x, stat)
  end function

  type(sl_array) function tan_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_TAN, x, stat)
  end function

  type(sl_array) function asin_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_ASIN, x, stat)
  end function

  type(sl_array) function acos_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_ACOS, x, stat)
  end function

  type(sl_array) function atan_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_ATAN, x, stat)
  end function

  type(sl_array) function sinh_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_SINH, x, stat)
  end function

  type(sl_array) function cosh_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_COSH, x, stat)
  end function

  type(sl_array) function tanh_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_TANH, x, stat)
  end function

  type(sl_array) function asinh_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_ASINH, x, stat)
  end function

  type(sl_array) function acosh_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_ACOSH, x, stat)
  end function

  type(sl_array) function atanh_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_ATANH, x, stat)
  end function

  type(sl_array) function erf_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_ERF, x, stat)
  end function

  type(sl_array) function erfc_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_ERFC, x, stat)
  end function

  ! Inverse error function: NaN outside [-1, 1], +-inf at +-1.
  type(sl_array) function erfinv_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_ERFINV, x, stat)
  end function

  ! log |gamma(x)| (C lgamma): +inf at 0 and the negative integers.
  type(sl_array) function log_gamma_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_LGAMMA, x, stat)
  end function

  type(sl_array) function gamma_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_TGAMMA, x, stat)
  end function

  type(sl_array) function aint_arr(a, stat) result(r)
    type(sl_array), intent(in) :: a
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_TRUNC, a, stat)
  end function

  type(sl_array) function anint_arr(a, stat) result(r)
    type(sl_array), intent(in) :: a
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_ROUND, a, stat)
  end function

  type(sl_array) function not_arr(i, stat) result(r)
    type(sl_array), intent(in) :: i
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_NOT, i, stat)
  end function

  type(sl_array) function rsqrt_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_RSQRT, x, stat)
  end function

  type(sl_array) function cbrt_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_CBRT, x, stat)
  end function

  type(sl_array) function rcp_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_RCP, x, stat)
  end function

  type(sl_array) function exp2_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_EXP2, x, stat)
  end function

  type(sl_array) function expm1_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_EXPM1, x, stat)
  end function

  type(sl_array) function log2_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_LOG2, x, stat)
  end function

  type(sl_array) function log1p_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_LOG1P, x, stat)
  end function

  type(sl_array) function signum_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_SIGN, x, stat)
  end function

  type(sl_array) function is_nan_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_ISNAN, x, stat)
  end function

  type(sl_array) function is_inf_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_ISINF, x, stat)
  end function

  type(sl_array) function is_finite_arr(x, stat) result(r)
    type(sl_array), intent(in) :: x
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_ISFINITE, x, stat)
  end function

  type(sl_array) function arg_arr(z, stat) result(r)
    type(sl_array), intent(in) :: z
    integer, intent(out), optional :: stat
    r = unary(SL_UNARY_ARG, z, stat)
  end function

  ! Element-wise functions of two arguments.
  type(sl_array) function atan2_arr(y, x, stat) result(r)
    type(sl_array), intent(in) :: y
    class(*), intent(in) :: x
    integer, intent(out), optional :: stat
    r = binary_any(SL_BINARY_ATAN2, y, x, stat)
  end function

  type(sl_array) function hypot_arr(x, y, stat) result(r)
    type(sl_array), intent(in) :: x
    class(*), intent(in) :: y
    integer, intent(out), optional :: stat
    r = binary_any(SL_BINARY_HYPOT, x, y, stat)
  end function

  type(sl_array) function min_arr(a1, a2, stat) result(r)
    type(sl_array), intent(in) :: a1
    class(*), intent(in) :: a2
    integer, intent(out), optional :: stat
    r = binary_any(SL_BINARY_MIN, a1, a2, stat)
  end function

  type(sl_array) function max_arr(a1, a2, stat) result(r)
    type(sl_array), intent(in) :: a1
    class(*), intent(in) :: a2
    integer, intent(out), optional :: stat
    r = binary_any(SL_BINARY_MAX, a1, a2, stat)
  end function

  type(sl_array) function mod_arr(a, p, stat) result(r)
    type(sl_array), intent(in) :: a
    class(*), intent(in) :: p
    integer, intent(out), optional :: stat
    r = binary_any(SL_BINARY_REM, a, p, stat)
  end function

  type(sl_array) function iand_arr(i, j, stat) result(r)
    type(sl_array), intent(in) :: i
    class(*), intent(in) :: j
    integer, intent(out), optional :: stat
    r = binary_any(SL_BINARY_AND, i, j, stat)
  end function

  type(sl_array) function ior_arr(i, j, stat) result(r)
    type(sl_array), intent(in) :: i
    class(*), intent(in) :: j
    integer, intent(out), optional :: stat
    r = binary_any(SL_BINARY_OR, i, j, stat)
  end function

  type(sl_array) function ieor_arr(i, j, stat) result(r)
    type(sl_array), intent(in) :: i
    class(*), intent(in) :: j
    integer, intent(out), optional :: stat
    r = binary_any(SL_BINARY_XOR, i, j, stat)
  end function

  ! A scalar operand as a rank-0 array of a's type (for the calls that take arrays only).
  logical function scalar_like(a, s, h, stat)
    type(sl_array), intent(in) :: a
    class(*), intent(in) :: s
    integer(c_int64_t), intent(out) :: h
    integer, intent(out), optional :: stat
    integer(c_int32_t) :: dtype
    integer(c_int) :: status
    real(c_double) :: v
    h = 0
    scalar_like = .false.
    if (.not. scalar_value(s, v)) then
      call fail(SL_ERR_INVALID_ARGUMENT, bad_operand, stat)
      return
    end if
    status = sl_get_dtype(a%handle, dtype)
    if (status == SL_OK) status = sl_scalar(dtype, v, h)
    if (status /= SL_OK) then
      call finish(status, stat)
      return
    end if
    scalar_like = .true.
  end function

  type(sl_array) function modulo_arr(a, p, stat) result(r)
    type(sl_array), intent(in) :: a
    class(*), intent(in) :: p
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: h
    integer(c_int) :: status
    select type (p)
    type is (sl_array)
      call finish(sl_mod(a%handle, p%handle, r%handle), stat)
    class default
      if (.not. scalar_like(a, p, h, stat)) return
      status = sl_mod(a%handle, h, r%handle)
      call drop(h, status)
      call finish(status, stat)
    end select
  end function

  type(sl_array) function shiftl_arr(i, shift, stat) result(r)
    type(sl_array), intent(in) :: i
    class(*), intent(in) :: shift
    integer, intent(out), optional :: stat
    r = binary_any(SL_BINARY_SHL, i, shift, stat)
  end function

  type(sl_array) function shifta_arr(i, shift, stat) result(r)
    type(sl_array), intent(in) :: i
    class(*), intent(in) :: shift
    integer, intent(out), optional :: stat
    r = binary_any(SL_BINARY_SHR, i, shift, stat)
  end function

  ! Logical right shift: the arithmetic one with the copies of the sign bit masked off.
  type(sl_array) function shiftr_arr(i, shift, stat) result(r)
    type(sl_array), intent(in) :: i
    integer, intent(in) :: shift
    integer, intent(out), optional :: stat
    integer(c_int32_t) :: dtype
    integer(c_int64_t) :: shifted, mask
    integer(c_int) :: status
    status = sl_get_dtype(i%handle, dtype)
    if (status /= SL_OK) then
      call finish(status, stat)
      return
    end if
    select case (dtype)
    case (SL_I32)
      if (shift < 0 .or. shift > 32) then
        call fail(SL_ERR_INVALID_ARGUMENT, 'shiftr: shift must lie in 0..32', stat)
        return
      end if
      mask = int(shiftr(-1_c_int32_t, shift), c_int64_t)
    case (SL_I64)
      if (shift < 0 .or. shift > 64) then
        call fail(SL_ERR_INVALID_ARGUMENT, 'shiftr: shift must lie in 0..64', stat)
        return
      end if
      mask = shiftr(-1_c_int64_t, shift)
    case default
      r = binary_any(SL_BINARY_SHR, i, shift, stat)
      return
    end select
    shifted = 0
    status = sl_binary_scalar_i(SL_BINARY_SHR, i%handle, int(shift, c_int64_t), shifted)
    if (status == SL_OK) status = sl_binary_scalar_i(SL_BINARY_AND, shifted, mask, r%handle)
    call drop(shifted, status)
    call finish(status, stat)
  end function

  type(sl_array) function ishft_arr(i, shift, stat) result(r)
    type(sl_array), intent(in) :: i
    integer, intent(in) :: shift
    integer, intent(out), optional :: stat
    if (shift >= 0) then
      r = binary_any(SL_BINARY_SHL, i, shift, stat)
    else
      r = shiftr_arr(i, -shift, stat)
    end if
  end function

  type(sl_array) function sign_arr(a, b, stat) result(r)
    type(sl_array), intent(in) :: a
    class(*), intent(in) :: b
    integer, intent(out), optional :: stat
    r = binary_any(SL_BINARY_COPYSIGN, a, b, stat)
  end function

  type(sl_array) function next_after_arr(x, y, stat) result(r)
    type(sl_array), intent(in) :: x
    class(*), intent(in) :: y
    integer, intent(out), optional :: stat
    r = binary_any(SL_BINARY_NEXTAFTER, x, y, stat)
  end function

  type(sl_array) function fma_arr(a, b, c, stat) result(r)
    type(sl_array), intent(in) :: a, b, c
    integer, intent(out), optional :: stat
    call finish(sl_fma(a%handle, b%handle, c%handle, r%handle), stat)
  end function

  type(sl_array) function clamp_arr(x, lo, hi, stat) result(r)
    type(sl_array), intent(in) :: x
    class(*), intent(in) :: lo, hi
    integer, intent(out), optional :: stat
    real(c_double) :: l, h
    select type (lo)
    type is (sl_array)
      select type (hi)
      type is (sl_array)
        call finish(sl_clamp(x%handle, lo%handle, hi%handle, r%handle), stat)
        return
      end select
    end select
    if (scalar_value(lo, l) .and. scalar_value(hi, h)) then
      call finish(sl_clamp_scalar(x%handle, l, h, r%handle), stat)
    else
      call fail(SL_ERR_INVALID_ARGUMENT, 'clamp: give both bounds as sl_arrays or both as scalars', stat)
    end if
  end function

  ! ---------------------------------------------------------------------------------------
  ! Generators and shape ops (dimensions 1-based, as everywhere in this module).

  ! n evenly spaced values from start to stop (SL_F32 or SL_F64); stop is included unless
  ! endpoint is .false.
  type(sl_array) function linspace(dtype, start, stop, n, endpoint, stat) result(r)
    integer, intent(in) :: dtype, n
    class(*), intent(in) :: start, stop
    logical, intent(in), optional :: endpoint
    integer, intent(out), optional :: stat
    real(c_double) :: a, b
    integer(c_int32_t) :: e
    e = 1
    if (present(endpoint)) e = merge(1_c_int32_t, 0_c_int32_t, endpoint)
    if (.not. (scalar_value(start, a) .and. scalar_value(stop, b))) then
      call fail(SL_ERR_INVALID_ARGUMENT, 'linspace: ' // bad_operand, stat)
      return
    end if
    call finish(sl_linspace(int(dtype, c_int32_t), a, b, int(n, c_int64_t), e, r%handle), stat)
  end function

  ! start, start + step, ... before stop (step 1 when absent); numpy's length
  ! ceil((stop - start) / step).
  type(sl_array) function arange(dtype, start, stop, step, stat) result(r)
    integer, intent(in) :: dtype
    class(*), intent(in) :: start, stop
    class(*), intent(in), optional :: step
    integer, intent(out), optional :: stat
    real(c_double) :: a, b, d
    d = 1
    if (present(step)) then
      if (.not. scalar_value(step, d)) d = 0
    end if
    if (.not. (scalar_value(start, a) .and. scalar_value(stop, b))) then
      call fail(SL_ERR_INVALID_ARGUMENT, 'arange: ' // bad_operand, stat)
      return
    end if
    call finish(sl_arange(int(dtype, c_int32_t), a, b, d, r%handle), stat)
  end function

  ! From a vector: the square matrix with it on diagonal k (0 when absent). From a matrix
  ! (batched over dimensions 3 and up): its diagonal k.
  type(sl_array) function diag(array, k, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in), optional :: k
    integer, intent(out), optional :: stat
    integer(c_int32_t) :: rank
    integer(c_int) :: status
    status = sl_rank(array%handle, rank)
    if (status == SL_OK .and. rank == 1) then
      status = sl_diag_matrix(array%handle, offset_or_zero(k), r%handle)
    else if (status == SL_OK) then
      status = sl_diagonal(array%handle, offset_or_zero(k), r%handle)
    end if
    call finish(status, stat)
  end function

  ! Zeros below (triu) or above (tril) diagonal k (0 when absent).
  type(sl_array) function triu(array, k, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in), optional :: k
    integer, intent(out), optional :: stat
    call finish(sl_triu(array%handle, offset_or_zero(k), r%handle), stat)
  end function

  type(sl_array) function tril(array, k, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in), optional :: k
    integer, intent(out), optional :: stat
    call finish(sl_tril(array%handle, offset_or_zero(k), r%handle), stat)
  end function

  integer(c_int64_t) function offset_or_zero(k)
    integer, intent(in), optional :: k
    offset_or_zero = 0
    if (present(k)) offset_or_zero = k
  end function

  ! Each element repeated `counts` times along dim (1 when absent): counts an integer, or an
  ! integer sl_array with one count per element (then the call waits for the counts).
  type(sl_array) function repeat_arr(array, counts, dim, stat) result(r)
    type(sl_array), intent(in) :: array
    class(*), intent(in) :: counts
    integer, intent(in), optional :: dim
    integer, intent(out), optional :: stat
    select type (counts)
    type is (sl_array)
      call finish(sl_repeat_counts(array%handle, counts%handle, c_dim(dim), r%handle), stat)
    type is (integer(c_int32_t))
      call finish(sl_repeat(array%handle, int(counts, c_int64_t), c_dim(dim), r%handle), stat)
    type is (integer(c_int64_t))
      call finish(sl_repeat(array%handle, counts, c_dim(dim), r%handle), stat)
    class default
      call fail(SL_ERR_INVALID_ARGUMENT, 'repeat: counts must be an integer or an integer sl_array', stat)
    end select
  end function

  ! grids(k) holds vectors(k) stretched over the grid they span; indexing SL_INDEXING_XY
  ! (the default) swaps the first two dimensions, SL_INDEXING_IJ does not.
  subroutine meshgrid(vectors, grids, indexing, stat)
    type(sl_array), intent(in) :: vectors(:)
    type(sl_array), intent(out) :: grids(size(vectors))
    integer, intent(in), optional :: indexing
    integer, intent(out), optional :: stat
    integer(c_int32_t) :: layout
    integer(c_int64_t) :: outs(size(vectors))
    layout = SL_INDEXING_XY
    if (present(indexing)) layout = int(indexing, c_int32_t)
    call finish(sl_meshgrid(vectors%handle, size(vectors, kind=c_int32_t), layout, outs), stat)
    grids%handle = outs
  end subroutine

  ! array reversed along each of dims.
  type(sl_array) function flip(array, dims, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: dims(:)
    integer, intent(out), optional :: stat
    call finish(sl_flip(array%handle, int(dims - 1, c_int32_t), size(dims, kind=c_int32_t), r%handle), stat)
  end function

  ! array without dimension dim (of extent 1), or without every extent-1 dimension.
  type(sl_array) function squeeze(array, dim, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in), optional :: dim
    integer, intent(out), optional :: stat
    integer(c_int32_t) :: d
    d = -1
    if (present(dim)) d = c_dim(dim)
    call finish(sl_squeeze(array%handle, d, r%handle), stat)
  end function

  ! array with a new dimension of extent 1 at position dim (1 to rank + 1).
  type(sl_array) function expand_dims(array, dim, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: dim
    integer, intent(out), optional :: stat
    call finish(sl_expand_dims(array%handle, c_dim(dim), r%handle), stat)
  end function

  ! array with dimension `from` moved to position `to`.
  type(sl_array) function moveaxis(array, from, to, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in) :: from, to
    integer, intent(out), optional :: stat
    call finish(sl_moveaxis(array%handle, c_dim(from), c_dim(to), r%handle), stat)
  end function

  ! Reductions.
  type(sl_array) function sum_arr(array, dim, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in), optional :: dim
    integer, intent(out), optional :: stat
    r = reduction(SL_REDUCE_SUM, array, dim, stat)
  end function

  type(sl_array) function product_arr(array, dim, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in), optional :: dim
    integer, intent(out), optional :: stat
    r = reduction(SL_REDUCE_PROD, array, dim, stat)
  end function

  type(sl_array) function maxval_arr(array, dim, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in), optional :: dim
    integer, intent(out), optional :: stat
    r = reduction(SL_REDUCE_MAXVAL, array, dim, stat)
  end function

  type(sl_array) function minval_arr(array, dim, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in), optional :: dim
    integer, intent(out), optional :: stat
    r = reduction(SL_REDUCE_MINVAL, array, dim, stat)
  end function

  type(sl_array) function count_arr(mask, dim, stat) result(r)
    type(sl_array), intent(in) :: mask
    integer, intent(in), optional :: dim
    integer, intent(out), optional :: stat
    r = reduction(SL_REDUCE_COUNT, mask, dim, stat)
  end function

  type(sl_array) function any_arr(mask, dim, stat) result(r)
    type(sl_array), intent(in) :: mask
    integer, intent(in), optional :: dim
    integer, intent(out), optional :: stat
    r = reduction(SL_REDUCE_ANY, mask, dim, stat)
  end function

  type(sl_array) function all_arr(mask, dim, stat) result(r)
    type(sl_array), intent(in) :: mask
    integer, intent(in), optional :: dim
    integer, intent(out), optional :: stat
    r = reduction(SL_REDUCE_ALL, mask, dim, stat)
  end function

  type(sl_array) function mean_arr(array, dim, stat) result(r)
    type(sl_array), intent(in) :: array
    integer, intent(in), optional :: dim
    integer, intent(out), optional :: stat
    r = reduction(SL_REDUCE_MEAN, array, dim, stat)
  end function
  type(sl_array) function new_c4_0(x, stat) result(a)
    complex(c_float_complex), intent(in), target :: x
    integer, intent(out), optional :: stat
    a = create(SL_C64, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_c4_1(x, stat) result(a)
    complex(c_float_complex), intent(in), target, contiguous :: x(:)
    integer, intent(out), optional :: stat
    a = create(SL_C64, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_c4_2(x, stat) result(a)
    complex(c_float_complex), intent(in), target, contiguous :: x(:,:)
    integer, intent(out), optional :: stat
    a = create(SL_C64, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_c4_3(x, stat) result(a)
    complex(c_float_complex), intent(in), target, contiguous :: x(:,:,:)
    integer, intent(out), optional :: stat
    a = create(SL_C64, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_c4_4(x, stat) result(a)
    complex(c_float_complex), intent(in), target, contiguous :: x(:,:,:,:)
    integer, intent(out), optional :: stat
    a = create(SL_C64, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_c8_0(x, stat) result(a)
    complex(c_double_complex), intent(in), target :: x
    integer, intent(out), optional :: stat
    a = create(SL_C128, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_c8_1(x, stat) result(a)
    complex(c_double_complex), intent(in), target, contiguous :: x(:)
    integer, intent(out), optional :: stat
    a = create(SL_C128, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_c8_2(x, stat) result(a)
    complex(c_double_complex), intent(in), target, contiguous :: x(:,:)
    integer, intent(out), optional :: stat
    a = create(SL_C128, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_c8_3(x, stat) result(a)
    complex(c_double_complex), intent(in), target, contiguous :: x(:,:,:)
    integer, intent(out), optional :: stat
    a = create(SL_C128, shape(x, c_int64_t), c_loc(x), stat)
  end function

  type(sl_array) function new_c8_4(x, stat) result(a)
    complex(c_double_complex), intent(in), target, contiguous :: x(:,:,:,:)
    integer, intent(out), optional :: stat
    a = create(SL_C128, shape(x, c_int64_t), c_loc(x), stat)
  end function

  subroutine get_c4_0(a, x, stat)
    type(sl_array), intent(in) :: a
    complex(c_float_complex), intent(inout), target :: x
    integer, intent(out), optional :: stat
    call read_into(a, SL_C64, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_c4_1(a, x, stat)
    type(sl_array), intent(in) :: a
    complex(c_float_complex), intent(inout), target, contiguous :: x(:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_C64, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_c4_2(a, x, stat)
    type(sl_array), intent(in) :: a
    complex(c_float_complex), intent(inout), target, contiguous :: x(:,:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_C64, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_c4_3(a, x, stat)
    type(sl_array), intent(in) :: a
    complex(c_float_complex), intent(inout), target, contiguous :: x(:,:,:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_C64, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_c4_4(a, x, stat)
    type(sl_array), intent(in) :: a
    complex(c_float_complex), intent(inout), target, contiguous :: x(:,:,:,:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_C64, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_c8_0(a, x, stat)
    type(sl_array), intent(in) :: a
    complex(c_double_complex), intent(inout), target :: x
    integer, intent(out), optional :: stat
    call read_into(a, SL_C128, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_c8_1(a, x, stat)
    type(sl_array), intent(in) :: a
    complex(c_double_complex), intent(inout), target, contiguous :: x(:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_C128, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_c8_2(a, x, stat)
    type(sl_array), intent(in) :: a
    complex(c_double_complex), intent(inout), target, contiguous :: x(:,:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_C128, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_c8_3(a, x, stat)
    type(sl_array), intent(in) :: a
    complex(c_double_complex), intent(inout), target, contiguous :: x(:,:,:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_C128, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine get_c8_4(a, x, stat)
    type(sl_array), intent(in) :: a
    complex(c_double_complex), intent(inout), target, contiguous :: x(:,:,:,:)
    integer, intent(out), optional :: stat
    call read_into(a, SL_C128, shape(x, c_int64_t), c_loc(x), stat)
  end subroutine

  subroutine set_c4_0(x, a)
    complex(c_float_complex), intent(inout) :: x
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_c4_1(x, a)
    complex(c_float_complex), intent(inout) :: x(:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_c4_2(x, a)
    complex(c_float_complex), intent(inout) :: x(:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_c4_3(x, a)
    complex(c_float_complex), intent(inout) :: x(:,:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_c4_4(x, a)
    complex(c_float_complex), intent(inout) :: x(:,:,:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_c8_0(x, a)
    complex(c_double_complex), intent(inout) :: x
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_c8_1(x, a)
    complex(c_double_complex), intent(inout) :: x(:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_c8_2(x, a)
    complex(c_double_complex), intent(inout) :: x(:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_c8_3(x, a)
    complex(c_double_complex), intent(inout) :: x(:,:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  subroutine set_c8_4(x, a)
    complex(c_double_complex), intent(inout) :: x(:,:,:,:)
    type(sl_array), intent(in) :: a
    call get(a, x)
  end subroutine

  type(sl_array) function add_c4(s, b) result(r)
    complex(c_float_complex), intent(in) :: s
    type(sl_array), intent(in) :: b
    call finish(sl_scalar_binary_c(SL_BINARY_ADD, real(s%re, c_double), real(s%im, c_double), b%handle, r%handle))
  end function

  type(sl_array) function add_c8(s, b) result(r)
    complex(c_double_complex), intent(in) :: s
    type(sl_array), intent(in) :: b
    call finish(sl_scalar_binary_c(SL_BINARY_ADD, real(s%re, c_double), real(s%im, c_double), b%handle, r%handle))
  end function

  type(sl_array) function sub_c4(s, b) result(r)
    complex(c_float_complex), intent(in) :: s
    type(sl_array), intent(in) :: b
    call finish(sl_scalar_binary_c(SL_BINARY_SUB, real(s%re, c_double), real(s%im, c_double), b%handle, r%handle))
  end function

  type(sl_array) function sub_c8(s, b) result(r)
    complex(c_double_complex), intent(in) :: s
    type(sl_array), intent(in) :: b
    call finish(sl_scalar_binary_c(SL_BINARY_SUB, real(s%re, c_double), real(s%im, c_double), b%handle, r%handle))
  end function

  type(sl_array) function mul_c4(s, b) result(r)
    complex(c_float_complex), intent(in) :: s
    type(sl_array), intent(in) :: b
    call finish(sl_scalar_binary_c(SL_BINARY_MUL, real(s%re, c_double), real(s%im, c_double), b%handle, r%handle))
  end function

  type(sl_array) function mul_c8(s, b) result(r)
    complex(c_double_complex), intent(in) :: s
    type(sl_array), intent(in) :: b
    call finish(sl_scalar_binary_c(SL_BINARY_MUL, real(s%re, c_double), real(s%im, c_double), b%handle, r%handle))
  end function

  type(sl_array) function div_c4(s, b) result(r)
    complex(c_float_complex), intent(in) :: s
    type(sl_array), intent(in) :: b
    call finish(sl_scalar_binary_c(SL_BINARY_DIV, real(s%re, c_double), real(s%im, c_double), b%handle, r%handle))
  end function

  type(sl_array) function div_c8(s, b) result(r)
    complex(c_double_complex), intent(in) :: s
    type(sl_array), intent(in) :: b
    call finish(sl_scalar_binary_c(SL_BINARY_DIV, real(s%re, c_double), real(s%im, c_double), b%handle, r%handle))
  end function

  type(sl_array) function pow_c4(s, b) result(r)
    complex(c_float_complex), intent(in) :: s
    type(sl_array), intent(in) :: b
    call finish(sl_scalar_binary_c(SL_BINARY_POW, real(s%re, c_double), real(s%im, c_double), b%handle, r%handle))
  end function

  type(sl_array) function pow_c8(s, b) result(r)
    complex(c_double_complex), intent(in) :: s
    type(sl_array), intent(in) :: b
    call finish(sl_scalar_binary_c(SL_BINARY_POW, real(s%re, c_double), real(s%im, c_double), b%handle, r%handle))
  end function

end module sluice
