! Sluice over MPI for Fortran: module `sluice_mpi`, over the C API of include/sluice_mpi.h
! and the module `sluice`.
!
! Two layers, as in module sluice:
! - the raw C API: every sl_mpi_* function as a bind(C) interface under its C name (handles
!   integer(c_int64_t), statuses integer(c_int)); sl_mpi_init_fint takes the integer
!   communicator of `use mpi` (or comm%MPI_VAL of `use mpi_f08`);
! - a Fortran layer: type(sl_mpi_array), sluice_mpi_init / sluice_mpi_finalize, distribute
!   (from each rank's part), scatter_dist, gather_dist, local_part, operators, and eoshift, cshift,
!   sum, dot_product, matmul for distributed arrays, with Fortran conventions: dimensions
!   count from 1 (0 as a distribution: replicated). Ranks count from 0, as in MPI.
!
! Lifetimes: an sl_mpi_array is a plain handle (copying the variable does not retain it).
! Every distributed array an expression creates belongs to the innermost distributed scope
! of the thread (dist_scope_begin ... dist_scope_end, separate from Sluice's scopes): keep
! one past its scope with keep_dist, replace a loop variable with update_dist, or release
! one with release_dist. Arrays returned by gather_dist and local_part are ordinary Sluice
! arrays, in the innermost Sluice scope.
!
! Errors: procedures with an optional `stat` argument return the status there (SL_OK, an
! SL_ERR_* or SL_MPI_ERR_* code; mpi_error_message() gives the detail); without it, and
! in operators, a failure prints its message and stops the program with `error stop`.
!
! Calls that communicate are collective (every rank makes them, in the same order);
! communication is deferred until local_part, gather_dist or eval_dist needs it.
!
! With CMake: enable Fortran, find_package(Sluice CONFIG REQUIRED COMPONENTS Fortran mpi)
! and link Sluice::mpi_fortran.
module sluice_mpi
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit
  use sluice
  implicit none
  private

  ! The constants of sluice_mpi.h.
  integer(c_int32_t), parameter, public :: SL_MPI_REPLICATED = -1, SL_MPI_ALL_RANKS = -1
  integer(c_int32_t), parameter, public :: SL_MPI_ORDER_FAST = 0, SL_MPI_ORDER_RANKS = 1, SL_MPI_ORDER_EXACT = 2
  integer(c_int), parameter, public :: SL_MPI_ERR_MPI = 100, SL_MPI_ERR_TIMEOUT = 101, &
    SL_MPI_ERR_RANKS_DISAGREE = 102, SL_MPI_ERR_REMOTE = 103

  type, bind(C), public :: sl_mpi_info
    integer(c_int32_t) :: dtype
    integer(c_int32_t) :: rank
    integer(c_int64_t) :: dims(8)
    integer(c_int32_t) :: dist
    integer(c_int64_t) :: local_start
    integer(c_int64_t) :: local_count
  end type

  type, bind(C), public :: sl_mpi_stats
    integer(c_int64_t) :: waves, messages, bytes, collectives, agreements, overlapped
    real(c_double) :: wait_seconds, agreement_seconds
  end type

  ! ---------------------------------------------------------------------------------------
  ! The raw C API.
  interface
    function sl_mpi_init_fint(comm) result(status) bind(C, name="sl_mpi_init_fint")
      import :: c_int, c_int32_t
      integer(c_int32_t), value :: comm
      integer(c_int) :: status
    end function
    function sl_mpi_finalize() result(status) bind(C, name="sl_mpi_finalize")
      import :: c_int
      integer(c_int) :: status
    end function
    function sl_mpi_comm_rank(rank, size) result(status) bind(C, name="sl_mpi_comm_rank")
      import :: c_int, c_int32_t
      integer(c_int32_t), intent(out) :: rank, size
      integer(c_int) :: status
    end function
    function sl_mpi_set_timeout(seconds) result(status) bind(C, name="sl_mpi_set_timeout")
      import :: c_int, c_double
      real(c_double), value :: seconds
      integer(c_int) :: status
    end function
    function sl_mpi_last_error(info) result(status) bind(C, name="sl_mpi_last_error")
      import :: c_int, sl_error_info
      type(sl_error_info), intent(out) :: info
      integer(c_int) :: status
    end function
    function sl_mpi_status_name(status_in, name) result(status) bind(C, name="sl_mpi_status_name")
      import :: c_int, c_ptr
      integer(c_int), value :: status_in
      type(c_ptr), intent(out) :: name
      integer(c_int) :: status
    end function
    function sl_mpi_get_stats(out) result(status) bind(C, name="sl_mpi_get_stats")
      import :: c_int, sl_mpi_stats
      type(sl_mpi_stats), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_mpi_live_handles(out) result(status) bind(C, name="sl_mpi_live_handles")
      import :: c_int, c_int64_t
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_mpi_block(n, parts, index, start, count) result(status) bind(C, name="sl_mpi_block")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: n
      integer(c_int32_t), value :: parts, index
      integer(c_int64_t), intent(out) :: start, count
      integer(c_int) :: status
    end function
    function sl_mpi_from_local(local, rank, dims, dist, out) result(status) bind(C, name="sl_mpi_from_local")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: local
      integer(c_int32_t), value :: rank
      integer(c_int64_t), intent(in) :: dims(*)
      integer(c_int32_t), value :: dist
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_mpi_scatter(global, root, dist, out) result(status) bind(C, name="sl_mpi_scatter")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: global
      integer(c_int32_t), value :: root, dist
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_mpi_gather(a, root, out) result(status) bind(C, name="sl_mpi_gather")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: root
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_mpi_local(a, out) result(status) bind(C, name="sl_mpi_local")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_mpi_eval(arrays, n) result(status) bind(C, name="sl_mpi_eval")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), intent(in) :: arrays(*)
      integer(c_int32_t), value :: n
      integer(c_int) :: status
    end function
    function sl_mpi_get_info(a, out) result(status) bind(C, name="sl_mpi_get_info")
      import :: c_int, c_int64_t, sl_mpi_info
      integer(c_int64_t), value :: a
      type(sl_mpi_info), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_mpi_retain(a, out) result(status) bind(C, name="sl_mpi_retain")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_mpi_release(a) result(status) bind(C, name="sl_mpi_release")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int) :: status
    end function
    function sl_mpi_scope_begin() result(status) bind(C, name="sl_mpi_scope_begin")
      import :: c_int
      integer(c_int) :: status
    end function
    function sl_mpi_scope_end() result(status) bind(C, name="sl_mpi_scope_end")
      import :: c_int
      integer(c_int) :: status
    end function
    function sl_mpi_keep(a) result(status) bind(C, name="sl_mpi_keep")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int) :: status
    end function
    function sl_mpi_unary(op, a, out) result(status) bind(C, name="sl_mpi_unary")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int32_t), value :: op
      integer(c_int64_t), value :: a
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_mpi_binary(op, a, b, out) result(status) bind(C, name="sl_mpi_binary")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int32_t), value :: op
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_mpi_binary_scalar(op, a, s, out) result(status) bind(C, name="sl_mpi_binary_scalar")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int32_t), value :: op
      integer(c_int64_t), value :: a
      real(c_double), value :: s
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_mpi_scalar_binary(op, s, b, out) result(status) bind(C, name="sl_mpi_scalar_binary")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int32_t), value :: op
      real(c_double), value :: s
      integer(c_int64_t), value :: b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_mpi_cast(a, dtype, out) result(status) bind(C, name="sl_mpi_cast")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dtype
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_mpi_shift(a, dim, offset, boundary, fill, out) result(status) bind(C, name="sl_mpi_shift")
      import :: c_int, c_int32_t, c_int64_t, c_double
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), value :: offset
      integer(c_int32_t), value :: boundary
      real(c_double), value :: fill
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_mpi_rotate(a, dim, offset, out) result(status) bind(C, name="sl_mpi_rotate")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim
      integer(c_int64_t), value :: offset
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_mpi_reduce(op, a, dim, order, out) result(status) bind(C, name="sl_mpi_reduce")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int32_t), value :: op
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dim, order
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_mpi_dot(a, b, order, out) result(status) bind(C, name="sl_mpi_dot")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int32_t), value :: order
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_mpi_matmul(a, b, out) result(status) bind(C, name="sl_mpi_matmul")
      import :: c_int, c_int64_t
      integer(c_int64_t), value :: a, b
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
    function sl_mpi_redistribute(a, dist, out) result(status) bind(C, name="sl_mpi_redistribute")
      import :: c_int, c_int32_t, c_int64_t
      integer(c_int64_t), value :: a
      integer(c_int32_t), value :: dist
      integer(c_int64_t), intent(out) :: out
      integer(c_int) :: status
    end function
  end interface
  public :: sl_mpi_init_fint, sl_mpi_finalize, sl_mpi_comm_rank, sl_mpi_set_timeout, sl_mpi_last_error, &
    sl_mpi_status_name, sl_mpi_get_stats, sl_mpi_live_handles, sl_mpi_block, sl_mpi_from_local, sl_mpi_scatter, &
    sl_mpi_gather, sl_mpi_local, sl_mpi_eval, sl_mpi_get_info, sl_mpi_retain, sl_mpi_release, &
    sl_mpi_scope_begin, sl_mpi_scope_end, sl_mpi_keep, sl_mpi_unary, &
    sl_mpi_binary, sl_mpi_binary_scalar, sl_mpi_scalar_binary, sl_mpi_cast, sl_mpi_shift, sl_mpi_rotate, &
    sl_mpi_reduce, sl_mpi_dot, sl_mpi_matmul, sl_mpi_redistribute

  ! ---------------------------------------------------------------------------------------
  ! The Fortran layer.

  ! A distributed array: the C API's handle (0 = none).
  type, public :: sl_mpi_array
    integer(c_int64_t) :: handle = 0
  end type

  interface operator(+)
    module procedure add_dd, add_sd, add_ds
  end interface
  interface operator(-)
    module procedure sub_dd, sub_sd, sub_ds, neg_d
  end interface
  interface operator(*)
    module procedure mul_dd, mul_sd, mul_ds
  end interface
  interface operator(/)
    module procedure div_dd, div_sd, div_ds
  end interface
  interface eoshift
    module procedure eoshift_dist
  end interface
  interface cshift
    module procedure cshift_dist
  end interface
  interface sum
    module procedure sum_dist
  end interface
  interface dot_product
    module procedure dot_product_dist
  end interface
  interface matmul
    module procedure matmul_dist
  end interface
  public :: operator(+), operator(-), operator(*), operator(/), eoshift, cshift, sum, dot_product, matmul
  public :: sluice_mpi_init, sluice_mpi_finalize, mpi_rank, mpi_size, distribute, scatter_dist, gather_dist, local_part, &
    eval_dist, redistribute, release_dist, update_dist, keep_dist, dist_scope_begin, dist_scope_end, &
    mpi_error_message, mpi_live_handles

  ! The detail of this thread's last failure in this layer.
  character(len=1024) :: last_text = ''
  integer :: last_text_length = 0
  !$omp threadprivate(last_text, last_text_length)

contains

  ! Ends a call into the C API: a failure's message comes from sl_mpi_last_error; with
  ! `stat` it is returned, without it printed before `error stop`.
  subroutine finish(status, stat)
    integer(c_int), intent(in) :: status
    integer, intent(out), optional :: stat
    type(sl_error_info) :: info
    character(kind=c_char), pointer :: chars(:)
    integer :: n
    if (status /= SL_OK) then
      last_text_length = 0
      if (sl_mpi_last_error(info) == SL_OK .and. c_associated(info%message)) then
        call c_f_pointer(info%message, chars, [len(last_text)])
        n = 0
        do while (n < len(last_text))
          if (chars(n + 1) == c_null_char) exit
          n = n + 1
          last_text(n:n) = chars(n)
        end do
        last_text_length = n
      end if
    end if
    if (present(stat)) then
      stat = status
    else if (status /= SL_OK) then
      write (error_unit, '(a, i0, 2a)') 'sluice_mpi: status ', status, ': ', last_text(1:last_text_length)
      error stop
    end if
  end subroutine

  function mpi_error_message() result(message)
    character(len=last_text_length) :: message
    message = last_text(1:last_text_length)
  end function

  ! Starts the library on the communicator `comm` (the integer of `use mpi`).
  subroutine sluice_mpi_init(comm, stat)
    integer, intent(in) :: comm
    integer, intent(out), optional :: stat
    call finish(sl_mpi_init_fint(int(comm, c_int32_t)), stat)
  end subroutine

  subroutine sluice_mpi_finalize(stat)
    integer, intent(out), optional :: stat
    call finish(sl_mpi_finalize(), stat)
  end subroutine

  integer function mpi_rank()
    integer(c_int32_t) :: r, s
    call finish(sl_mpi_comm_rank(r, s))
    mpi_rank = r
  end function

  integer function mpi_size()
    integer(c_int32_t) :: r, s
    call finish(sl_mpi_comm_rank(r, s))
    mpi_size = s
  end function

  integer(c_int64_t) function mpi_live_handles()
    call finish(sl_mpi_live_handles(mpi_live_handles))
  end function

  ! Fortran's distribution argument (1-based; 0: replicated) as the C API's.
  integer(c_int32_t) function c_dist(dim)
    integer, intent(in) :: dim
    c_dist = int(dim - 1, c_int32_t)
    if (dim == 0) c_dist = SL_MPI_REPLICATED
  end function

  ! Collective: a distributed array of global shape `global_shape`, split along dimension
  ! `dim` (0: replicated), from each rank's part `local` (its block, sl_mpi_block).
  type(sl_mpi_array) function distribute(local, global_shape, dim, stat) result(r)
    type(sl_array), intent(in) :: local
    integer(c_int64_t), intent(in) :: global_shape(:)
    integer, intent(in) :: dim
    integer, intent(out), optional :: stat
    call finish(sl_mpi_from_local(local%handle, int(size(global_shape), c_int32_t), global_shape, c_dist(dim), &
      r%handle), stat)
  end function

  ! Collective: rank `root`'s `global` split along `dim` (read on the root only).
  type(sl_mpi_array) function scatter_dist(global, root, dim, stat) result(r)
    type(sl_array), intent(in) :: global
    integer, intent(in) :: root, dim
    integer, intent(out), optional :: stat
    call finish(sl_mpi_scatter(global%handle, int(root, c_int32_t), c_dist(dim), r%handle), stat)
  end function

  ! Collective: the whole array on rank `root` (on every rank without it); elsewhere a null
  ! sl_array.
  type(sl_array) function gather_dist(a, root, stat) result(r)
    type(sl_mpi_array), intent(in) :: a
    integer, intent(in), optional :: root
    integer, intent(out), optional :: stat
    integer(c_int32_t) :: to
    to = SL_MPI_ALL_RANKS
    if (present(root)) to = int(root, c_int32_t)
    call finish(sl_mpi_gather(a%handle, to, r%handle), stat)
  end function

  ! This rank's part (collective when communication is pending).
  type(sl_array) function local_part(a, stat) result(r)
    type(sl_mpi_array), intent(in) :: a
    integer, intent(out), optional :: stat
    call finish(sl_mpi_local(a%handle, r%handle), stat)
  end function

  subroutine eval_dist(arrays, stat)
    type(sl_mpi_array), intent(in) :: arrays(:)
    integer, intent(out), optional :: stat
    integer(c_int64_t) :: hs(size(arrays))
    integer :: i
    do i = 1, size(arrays)
      hs(i) = arrays(i)%handle
    end do
    call finish(sl_mpi_eval(hs, int(size(arrays), c_int32_t)), stat)
  end subroutine

  subroutine release_dist(a, stat)
    type(sl_mpi_array), intent(inout) :: a
    integer, intent(out), optional :: stat
    if (a%handle /= 0) call finish(sl_mpi_release(a%handle), stat)
    a%handle = 0
  end subroutine

  ! x = value for a loop variable: x takes a handle of its own to value's array, moved out
  ! of the innermost distributed scope, and the array x held is released.
  subroutine update_dist(x, value)
    type(sl_mpi_array), intent(inout) :: x
    type(sl_mpi_array), intent(in) :: value
    integer(c_int64_t) :: new
    call finish(sl_mpi_retain(value%handle, new))
    call finish(sl_mpi_keep(new))
    if (x%handle /= 0) call finish(sl_mpi_release(x%handle))
    x%handle = new
  end subroutine

  subroutine dist_scope_begin(stat)
    integer, intent(out), optional :: stat
    call finish(sl_mpi_scope_begin(), stat)
  end subroutine

  ! Closes the innermost distributed scope, releasing the arrays created in it.
  subroutine dist_scope_end(stat)
    integer, intent(out), optional :: stat
    call finish(sl_mpi_scope_end(), stat)
  end subroutine

  ! Moves `a` out of the innermost distributed scope into the enclosing one.
  subroutine keep_dist(a, stat)
    type(sl_mpi_array), intent(in) :: a
    integer, intent(out), optional :: stat
    call finish(sl_mpi_keep(a%handle), stat)
  end subroutine

  type(sl_mpi_array) function redistribute(a, dim, stat) result(r)
    type(sl_mpi_array), intent(in) :: a
    integer, intent(in) :: dim
    integer, intent(out), optional :: stat
    call finish(sl_mpi_redistribute(a%handle, c_dist(dim), r%handle), stat)
  end function

  ! eoshift(array, shift, dim): element i of the result is element i + shift of array,
  ! `boundary` (default 0) past the ends. Along the distributed dimension: a halo exchange.
  type(sl_mpi_array) function eoshift_dist(array, shift, boundary, dim, stat) result(r)
    type(sl_mpi_array), intent(in) :: array
    integer, intent(in) :: shift
    real(c_double), intent(in), optional :: boundary
    integer, intent(in), optional :: dim
    integer, intent(out), optional :: stat
    real(c_double) :: fill
    integer :: d
    fill = 0
    if (present(boundary)) fill = boundary
    d = 1
    if (present(dim)) d = dim
    call finish(sl_mpi_shift(array%handle, int(d - 1, c_int32_t), -int(shift, c_int64_t), SL_BOUNDARY_FILL, fill, &
      r%handle), stat)
  end function

  type(sl_mpi_array) function cshift_dist(array, shift, dim, stat) result(r)
    type(sl_mpi_array), intent(in) :: array
    integer, intent(in) :: shift
    integer, intent(in), optional :: dim
    integer, intent(out), optional :: stat
    integer :: d
    d = 1
    if (present(dim)) d = dim
    call finish(sl_mpi_rotate(array%handle, int(d - 1, c_int32_t), -int(shift, c_int64_t), r%handle), stat)
  end function

  ! sum(array[, dim][, order]): replicated on every rank over the distributed dimension.
  type(sl_mpi_array) function sum_dist(array, dim, order, stat) result(r)
    type(sl_mpi_array), intent(in) :: array
    integer, intent(in), optional :: dim, order
    integer, intent(out), optional :: stat
    integer(c_int32_t) :: d, o
    d = SL_ALL_DIMS
    if (present(dim)) d = int(dim - 1, c_int32_t)
    o = SL_MPI_ORDER_FAST
    if (present(order)) o = int(order, c_int32_t)
    call finish(sl_mpi_reduce(SL_REDUCE_SUM, array%handle, d, o, r%handle), stat)
  end function

  type(sl_mpi_array) function dot_product_dist(a, b, order, stat) result(r)
    type(sl_mpi_array), intent(in) :: a, b
    integer, intent(in), optional :: order
    integer, intent(out), optional :: stat
    integer(c_int32_t) :: o
    o = SL_MPI_ORDER_FAST
    if (present(order)) o = int(order, c_int32_t)
    call finish(sl_mpi_dot(a%handle, b%handle, o, r%handle), stat)
  end function

  type(sl_mpi_array) function matmul_dist(a, b, stat) result(r)
    type(sl_mpi_array), intent(in) :: a, b
    integer, intent(out), optional :: stat
    call finish(sl_mpi_matmul(a%handle, b%handle, r%handle), stat)
  end function

  type(sl_mpi_array) function binary_dd(op, a, b) result(r)
    integer(c_int32_t), intent(in) :: op
    type(sl_mpi_array), intent(in) :: a, b
    call finish(sl_mpi_binary(op, a%handle, b%handle, r%handle))
  end function

  type(sl_mpi_array) function add_dd(a, b) result(r)
    type(sl_mpi_array), intent(in) :: a, b
    r = binary_dd(SL_BINARY_ADD, a, b)
  end function
  type(sl_mpi_array) function sub_dd(a, b) result(r)
    type(sl_mpi_array), intent(in) :: a, b
    r = binary_dd(SL_BINARY_SUB, a, b)
  end function
  type(sl_mpi_array) function mul_dd(a, b) result(r)
    type(sl_mpi_array), intent(in) :: a, b
    r = binary_dd(SL_BINARY_MUL, a, b)
  end function
  type(sl_mpi_array) function div_dd(a, b) result(r)
    type(sl_mpi_array), intent(in) :: a, b
    r = binary_dd(SL_BINARY_DIV, a, b)
  end function

  type(sl_mpi_array) function add_sd(s, b) result(r)
    real(c_double), intent(in) :: s
    type(sl_mpi_array), intent(in) :: b
    call finish(sl_mpi_scalar_binary(SL_BINARY_ADD, s, b%handle, r%handle))
  end function
  type(sl_mpi_array) function sub_sd(s, b) result(r)
    real(c_double), intent(in) :: s
    type(sl_mpi_array), intent(in) :: b
    call finish(sl_mpi_scalar_binary(SL_BINARY_SUB, s, b%handle, r%handle))
  end function
  type(sl_mpi_array) function mul_sd(s, b) result(r)
    real(c_double), intent(in) :: s
    type(sl_mpi_array), intent(in) :: b
    call finish(sl_mpi_scalar_binary(SL_BINARY_MUL, s, b%handle, r%handle))
  end function
  type(sl_mpi_array) function div_sd(s, b) result(r)
    real(c_double), intent(in) :: s
    type(sl_mpi_array), intent(in) :: b
    call finish(sl_mpi_scalar_binary(SL_BINARY_DIV, s, b%handle, r%handle))
  end function

  type(sl_mpi_array) function add_ds(a, s) result(r)
    type(sl_mpi_array), intent(in) :: a
    real(c_double), intent(in) :: s
    call finish(sl_mpi_binary_scalar(SL_BINARY_ADD, a%handle, s, r%handle))
  end function
  type(sl_mpi_array) function sub_ds(a, s) result(r)
    type(sl_mpi_array), intent(in) :: a
    real(c_double), intent(in) :: s
    call finish(sl_mpi_binary_scalar(SL_BINARY_SUB, a%handle, s, r%handle))
  end function
  type(sl_mpi_array) function mul_ds(a, s) result(r)
    type(sl_mpi_array), intent(in) :: a
    real(c_double), intent(in) :: s
    call finish(sl_mpi_binary_scalar(SL_BINARY_MUL, a%handle, s, r%handle))
  end function
  type(sl_mpi_array) function div_ds(a, s) result(r)
    type(sl_mpi_array), intent(in) :: a
    real(c_double), intent(in) :: s
    call finish(sl_mpi_binary_scalar(SL_BINARY_DIV, a%handle, s, r%handle))
  end function

  type(sl_mpi_array) function neg_d(a) result(r)
    type(sl_mpi_array), intent(in) :: a
    call finish(sl_mpi_unary(SL_UNARY_NEG, a%handle, r%handle))
  end function

end module sluice_mpi
