! The raw C API from Fortran: bind(C) calls with integer handles, the header's structs
! (sl_error_info, sl_stats, sl_config) laid out as C has them, C strings, and an error
! handler written in Fortran.
! An sl_error_handler written in Fortran, counting the failures it sees.
module counting_handler
  use, intrinsic :: iso_c_binding
  use sluice
  implicit none
  integer :: handler_calls = 0
  integer(c_int32_t) :: handler_status = SL_OK
contains
  function count_errors(status, info, user) result(stop_older) bind(C)
    integer(c_int32_t), value :: status
    type(sl_error_info), intent(in) :: info
    type(c_ptr), value :: user
    integer(c_int32_t) :: stop_older
    handler_calls = handler_calls + 1
    handler_status = status
    ! Older handlers run too (0), once the info is seen to agree with the status.
    stop_older = merge(1, 0, info%status /= status .or. c_associated(user))
  end function
end module counting_handler

program raw_api
  use, intrinsic :: iso_c_binding
  use sluice
  use checks
  use counting_handler
  implicit none

  call start_test('raw_api')
  call versions_and_config()
  call arrays_through_the_c_api()
  call errors_and_handlers()
  call end_test('raw_api')

contains

  subroutine versions_and_config()
    integer(c_int32_t) :: major, minor, patch
    type(sl_config) :: config
    call expect(sl_version(major, minor, patch) == SL_OK, 'sl_version')
    call expect(major == SL_VERSION_MAJOR .and. minor == SL_VERSION_MINOR .and. patch == SL_VERSION_PATCH, &
      'the library is the version of the module')
    call expect(sl_config_default(config) == SL_OK, 'sl_config_default')
    call expect(config%threads <= 0 .and. config%memory_limit == 0 .and. config%queue_limit <= 0 .and. &
      config%trace_cache_entries < 0 .and. config%macro_cache_entries < 0, 'sl_config_default asks for the defaults')
    call expect(sl_init(c_null_ptr) == SL_OK, 'sl_init(NULL)')
  end subroutine

  ! y = 2 x + 1 and its sum, with handles and statuses only; sl_get_stats agrees with
  ! sl_live_handles.
  subroutine arrays_through_the_c_api()
    real(c_double), target :: x(5, 3), y(5, 3), total
    integer(c_int64_t) :: a, twice, plus, s, live, dims(2)
    integer(c_int32_t) :: rank, dtype
    type(sl_stats) :: stats
    type(sl_cache_stats) :: traces, programs
    x = reshape(uniform(size(x), -1d0, 1d0), shape(x))
    call expect(sl_create(SL_F64, 2, [5_c_int64_t, 3_c_int64_t], SL_COL_MAJOR, c_loc(x), c_sizeof(x), a) == SL_OK, &
      'sl_create')
    ! Fortran may evaluate the operands of .and. in any order: one call per statement.
    call expect(sl_mul_scalar(a, 2d0, twice) == SL_OK, 'sl_mul_scalar')
    call expect(sl_add_scalar(twice, 1d0, plus) == SL_OK, 'sl_add_scalar')
    call expect(sl_reduce(SL_REDUCE_SUM, plus, SL_ALL_DIMS, s) == SL_OK, 'sl_reduce')
    call expect(sl_read(plus, SL_COL_MAJOR, c_loc(y), c_sizeof(y)) == SL_OK, 'sl_read')
    call expect(sl_read(s, SL_COL_MAJOR, c_loc(total), c_sizeof(total)) == SL_OK, 'sl_read of a scalar')
    call expect_close(pack(y, .true.), pack(2 * x + 1, .true.), 1d-15, 'y = 2 x + 1')
    call expect_close(total, sum(2 * x + 1), 1d-13, 'its sum')
    call expect(sl_rank(plus, rank) == SL_OK, 'sl_rank')
    call expect(sl_shape(plus, dims, 2) == SL_OK, 'sl_shape')
    call expect(sl_get_dtype(plus, dtype) == SL_OK, 'sl_get_dtype')
    call expect(rank == 2 .and. all(dims == [5, 3]) .and. dtype == SL_F64, 'rank, shape and type')
    call expect(sl_live_handles(live) == SL_OK, 'sl_live_handles')
    call expect(sl_get_stats(stats) == SL_OK, 'sl_get_stats')
    call expect(stats%live_handles == live .and. stats%flushes > 0 .and. stats%kernels > 0 .and. &
      stats%device_peak_live_bytes >= stats%device_live_bytes, 'sl_stats fields where C has them')
    call expect(sl_get_cache_stats(SL_CACHE_TRACE, traces) == SL_OK, 'sl_get_cache_stats')
    call expect(traces%lookups == traces%hits + traces%misses .and. traces%lookups > 0, &
      'sl_cache_stats fields where C has them')
    ! Programs: compiled pipelines on Vulkan, none on the CPU executor.
    call expect(sl_get_cache_stats(SL_CACHE_PROGRAM, programs) == SL_OK, 'sl_get_cache_stats of programs')
    call expect(programs%lookups == programs%hits + programs%misses .and. &
      programs%entries <= programs%misses - programs%evictions, 'sl_cache_stats of the program cache')
    call expect(sl_release(s) == SL_OK, 'sl_release')
    call expect(sl_release(plus) == SL_OK, 'sl_release')
    call expect(sl_release(twice) == SL_OK, 'sl_release')
    call expect(sl_release(a) == SL_OK, 'sl_release')
  end subroutine

  subroutine errors_and_handlers()
    integer(c_int64_t) :: out
    type(sl_error_info) :: info
    type(c_ptr) :: name
    out = 12345
    call expect(sl_exp(0_c_int64_t, out) == SL_ERR_INVALID_HANDLE, 'sl_exp of the null handle fails')
    call expect(out == 0, 'a failed call gives the null handle')
    call expect(sl_last_error(info) == SL_OK, 'sl_last_error')
    call expect(info%status == SL_ERR_INVALID_HANDLE, 'sl_error_info%status')
    call expect(c_text(info%function) == 'sl_exp', 'sl_error_info%function is "' // c_text(info%function) // '"')
    call expect(index(c_text(info%message), 'null handle') > 0, 'sl_error_info%message')
    call expect(sl_status_name(SL_ERR_SHAPE_MISMATCH, name) == SL_OK, 'sl_status_name')
    call expect(c_text(name) == 'SL_ERR_SHAPE_MISMATCH', 'the status name')

    call expect(sl_push_error_handler(c_funloc(count_errors), c_null_ptr) == SL_OK, 'sl_push_error_handler')
    call expect(sl_sqrt(42_c_int64_t, out) == SL_ERR_INVALID_HANDLE, 'a forged handle')
    call expect(handler_calls == 1 .and. handler_status == SL_ERR_INVALID_HANDLE, 'the Fortran handler ran once')
    call expect(sl_pop_error_handler() == SL_OK, 'sl_pop_error_handler')
    call expect(sl_sqrt(42_c_int64_t, out) == SL_ERR_INVALID_HANDLE, 'the forged handle again')
    call expect(handler_calls == 1, 'the handler is gone')
    call expect(sl_scope_end() == SL_ERR_INVALID_STATE, 'sl_scope_end without a scope')
  end subroutine

  function c_text(p) result(s)
    type(c_ptr), intent(in) :: p
    character(:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: n
    s = ''
    if (.not. c_associated(p)) return
    call c_f_pointer(p, chars, [1000])
    n = 0
    do while (chars(n + 1) /= c_null_char)
      n = n + 1
    end do
    s = transfer(chars(:n), repeat(' ', n))
  end function

end program raw_api
