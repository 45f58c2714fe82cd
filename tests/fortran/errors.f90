! Bad input through the `stat` arguments: each failure gives its status and a message naming
! what went wrong (error_message()), and the runtime keeps working afterwards.
program errors
  use sluice
  use checks
  implicit none
  real(8) :: x(3, 4), v(4)
  type(sl_array) :: a, b, stale, none, r
  integer :: stat

  call start_test('errors')
  ! A memory limit, so that a computation can fail when it runs.
  call init(memory_limit=32_8 * 2**20, stat=stat)
  call expect(stat == SL_OK, 'init with a memory limit')
  call init(stat=stat)
  call expect_error(stat, SL_ERR_INVALID_STATE, 'running', 'a second init')

  x = reshape(uniform(size(x), -1d0, 1d0), shape(x))
  v = uniform(size(v), -1d0, 1d0)
  a = sl_array(x)
  b = sl_array(v)

  ! Shapes that do not broadcast, and reading into the wrong shape.
  r = min(a, b, stat=stat)
  call expect_error(stat, SL_ERR_SHAPE_MISMATCH, 'broadcast', 'min of (3,4) and (4)')
  call expect(r%handle == 0, 'a failed function gives no array')
  r = matmul(a, a, stat=stat)
  call expect_error(stat, SL_ERR_SHAPE_MISMATCH, 'matmul', 'matmul of (3,4) and (3,4)')
  ! The message names this program's line that called the module, not the module's own.
  call expect(index(error_message(), 'errors.f90:') > 0 .and. index(error_message(), 'sluice.f90') == 0, &
    'the call site is in errors.f90: ' // error_message())
  call get(a, v, stat)
  call expect_error(stat, SL_ERR_SHAPE_MISMATCH, 'shape (3,4) to a Fortran variable of shape (4)', &
    'reading (3,4) into (4)')
  r = reshape(a, [5, 2], stat=stat)
  call expect_error(stat, SL_ERR_SHAPE_MISMATCH, 'elements', 'reshape to another size')
  call still_works()

  ! Released, stale and null handles.
  stale = exp(a)
  r = stale
  call release(r)
  r = sin(stale, stat=stat)
  call expect_error(stat, SL_ERR_INVALID_HANDLE, 'stale', 'sin of a released array')
  call release(stale, stat)
  call expect_error(stat, SL_ERR_INVALID_HANDLE, 'stale', 'releasing twice')
  r = sum(none, stat=stat)
  call expect_error(stat, SL_ERR_INVALID_HANDLE, 'null handle', 'sum of an unset sl_array')
  call get(none, x, stat)
  call expect_error(stat, SL_ERR_INVALID_HANDLE, 'null handle', 'reading an unset sl_array')
  call still_works()

  ! Types and kinds.
  r = sqrt(sl_array([1, 4, 9]), stat=stat)
  call expect_error(stat, SL_ERR_DTYPE_MISMATCH, 'not defined for i32', 'sqrt of integers')
  r = real(a, kind=16, stat=stat)
  call expect_error(stat, SL_ERR_INVALID_ARGUMENT, 'no type of kind 16', 'real(kind=16)')
  r = int(a, kind=3, stat=stat)
  call expect_error(stat, SL_ERR_INVALID_ARGUMENT, 'no type of kind 3', 'int(kind=3)')
  r = max(a, 'text', stat=stat)
  call expect_error(stat, SL_ERR_INVALID_ARGUMENT, 'neither an sl_array nor', 'a character operand')
  r = max(sl_array([1, 2]), 2_8**40, stat=stat)
  call expect_error(stat, SL_ERR_DTYPE_MISMATCH, 'cannot be represented', '2**40 with an integer(4) array')
  call still_works()

  ! Dimensions and per-dimension arguments.
  r = sum(a, dim=3, stat=stat)
  call expect_error(stat, SL_ERR_INVALID_ARGUMENT, 'out of range', 'sum along dimension 3 of a matrix')
  r = section(a, [1], [2], stat=stat)
  call expect_error(stat, SL_ERR_INVALID_ARGUMENT, '1 entries for an array of rank 2', 'section with one bound')
  r = section(a, [1, 1], [2, 2], [1, 0], stat=stat)
  call expect_error(stat, SL_ERR_INVALID_ARGUMENT, 'must not be 0', 'section with stride 0')
  r = spread(a, 4, 2, stat=stat)
  call expect_error(stat, SL_ERR_INVALID_ARGUMENT, 'spread: dimension 4', 'spread along dimension 4')
  call expect(size(a, 3, stat) == 0, 'size along a missing dimension')
  call expect_error(stat, SL_ERR_INVALID_ARGUMENT, 'dimension 3 of a rank-2', 'size along dimension 3')
  call still_works()

  ! Unbalanced scopes.
  call scope_end(stat)
  call expect_error(stat, SL_ERR_INVALID_STATE, 'without a matching', 'scope_end without a scope')
  call keep(a, stat)
  call expect_error(stat, SL_ERR_INVALID_STATE, 'outside any scope', 'keep outside a scope')
  call scope_begin()
  call update(r, a, stat)
  call expect_error(stat, SL_ERR_INVALID_ARGUMENT, 'not created in the current scope', 'update with an old array')
  call scope_end()
  call still_works()

  ! A computation that fails when it runs: 2^24 doubles (128 MiB) exceed the 32 MiB limit.
  ! The failure poisons what depends on it, reported when read.
  call poisoned()
  call still_works()
  call end_test('errors')

contains

  subroutine poisoned()
    type(sl_array) :: big, total
    real(8) :: t
    call scope_begin()
    big = constant(SL_F64, [2**24], 1) + 1
    call eval([big])
    total = sum(big)
    t = -1
    call get(total, t, stat)
    call expect_error(stat, SL_ERR_POISONED, 'out of memory', 'reading a poisoned array')
    call expect(t == -1, 'a failed read leaves the variable alone')
    call get(total * 2, t, stat)
    call expect_error(stat, SL_ERR_POISONED, 'out of memory', 'reading what depends on it')
    call scope_end()
  end subroutine

  ! The runtime still computes right after a failure.
  subroutine still_works()
    real(8) :: back(3, 4)
    call scope_begin()
    back = a * 10 + 1
    call expect(all(back == x * 10 + 1), 'still works after a failure')
    call scope_end()
  end subroutine

end program errors
