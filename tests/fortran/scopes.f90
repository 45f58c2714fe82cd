! Lifetimes: the arrays expressions create belong to the innermost scope and go when it ends
! (the live-handle count comes back to where it started); keep and update carry arrays out;
! the functions that take several C calls release their intermediate arrays; release and
! retain.
program scopes
  use sluice
  use checks
  implicit none
  integer, parameter :: n = 50
  real(8) :: x(n)
  integer(8) :: start

  call start_test('scopes')
  x = uniform(n, -1d0, 1d0)
  start = live_handles()

  call temporaries_go_with_the_scope()
  call expect(live_handles() == start, 'a subroutine with a scope leaves no handles')
  call kept_arrays_survive()
  call expect(live_handles() == start, 'a kept array is gone once released')
  call loop_with_update()
  call expect(live_handles() == start, 'a loop with update leaves no handles')
  call nested_scopes()
  call expect(live_handles() == start, 'nested scopes leave no handles')
  call one_handle_per_result()
  call expect(live_handles() == start, 'results released one by one leave no handles')
  call retained_handles()
  call expect(live_handles() == start, 'both handles of a retained array released')
  call unscoped_array_survives()
  call expect(live_handles() == start, 'an unscoped array is gone once released')
  call end_test('scopes')

contains

  subroutine temporaries_go_with_the_scope()
    type(sl_array) :: a
    real(8) :: total
    integer :: i
    call scope_begin()
    a = sl_array(x)
    do i = 1, 20
      total = sum(sin(a) ** 2 + cos(a) ** 2 - a * i)
    end do
    call hint_read(exp(a))
    call sync()
    call expect_close(total, sum(sin(x) ** 2 + cos(x) ** 2 - x * 20), 1d-12, 'computed in the scope')
    call expect(live_handles() > start + 100, 'the expressions made handles')
    call scope_end()
  end subroutine

  ! unscope takes an array out of every scope at once: it outlives two.
  subroutine unscoped_array_survives()
    type(sl_array) :: held
    real(8) :: back(n)
    integer :: stat
    call scope_begin()
    call scope_begin()
    held = 2 * sl_array(x)
    call unscope(held)
    call scope_end()
    call scope_end()
    call expect(live_handles() == start + 1, 'only the unscoped array is live after both scopes')
    back = held
    call expect_close(back, 2 * x, 1d-15, 'the unscoped array still holds its value')
    call release(held)
    call unscope(held, stat)
    call expect(stat == SL_ERR_INVALID_HANDLE, 'unscope of a released array')
  end subroutine

  subroutine kept_arrays_survive()
    type(sl_array) :: kept
    real(8) :: back(n)
    call scope_begin()
    kept = exp(sl_array(x)) + 1
    call keep(kept)
    call scope_end()
    call expect(live_handles() == start + 1, 'only the kept array is live after the scope')
    back = kept
    call expect_close(back, exp(x) + 1, 1d-14, 'the kept array still holds its value')
    call release(kept)
    call expect(kept%handle == 0, 'release clears the variable')
  end subroutine

  ! The iteration pattern of the CG example: a scope per iteration, state carried by update.
  subroutine loop_with_update()
    type(sl_array) :: state
    real(8) :: plain(n), back(n)
    integer :: i
    integer(8) :: live_in_loop
    state = sl_array(x)
    plain = x
    live_in_loop = live_handles()
    do i = 1, 25
      call scope_begin()
      call update(state, state * 0.5d0 + cos(state))
      call scope_end()
      plain = plain * 0.5d0 + cos(plain)
      call expect(live_handles() == live_in_loop, 'an iteration leaves the count as it was')
    end do
    back = state
    call expect_close(back, plain, 1d-12, 'the carried state')
    call release(state)
  end subroutine

  subroutine nested_scopes()
    type(sl_array) :: outer, inner
    integer(8) :: live_outer
    call scope_begin()
    outer = sl_array(x) * 2
    live_outer = live_handles()
    call scope_begin()
    inner = outer + sqrt(abs(outer))
    call keep(inner)
    call scope_end()
    call expect(live_handles() == live_outer + 1, 'the inner scope kept one array for the outer')
    call scope_end()
  end subroutine

  ! Outside any scope every function gives exactly one new handle, even those made of
  ! several C calls (reductions along a dimension, matmul of a vector, floor, iota, minloc,
  ! gather, spread, merge with a scalar); reading with a conversion leaves none.
  subroutine one_handle_per_result()
    type(sl_array) :: a, m, v, indices, mask
    integer(4) :: as_int(n)
    integer(8) :: before
    a = sl_array(x)
    m = reshape(a, [10, 5])
    v = section(a, [1], [10])
    indices = iota(SL_I32, [5], 1)
    mask = a > 0
    before = live_handles()
    call one_more(sum(m, dim=2), before, 'sum along a dimension')
    call one_more(matmul(v, m), before, 'matmul of a vector')
    call one_more(floor(a), before, 'floor')
    call one_more(iota(SL_I64, [4, 4], 1), before, 'iota')
    call one_more(minloc(m, dim=1), before, 'minloc')
    call one_more(gather(a, [indices]), before, 'gather')
    call one_more(spread(a, 2, 3), before, 'spread')
    call one_more(merge(a, 0, mask), before, 'merge with a scalar')
    as_int = a
    call expect(live_handles() == before, 'reading with a conversion')
    call release(mask)
    call release(indices)
    call release(v)
    call release(m)
    call release(a)
  end subroutine

  ! retain gives a second handle of its own: releasing one leaves the array to the other.
  subroutine retained_handles()
    type(sl_array) :: a, b
    real(8) :: back(n)
    a = sl_array(x)
    b = retain(a)
    call expect(b%handle /= a%handle .and. live_handles() == start + 2, 'retain makes a second handle')
    call release(a)
    back = b
    call expect_close(back, x, 0d0, 'the array lives on through the other handle')
    call release(b)
  end subroutine

  ! `result` is the only handle made since the count was `before`; releases it.
  subroutine one_more(result, before, what)
    type(sl_array), intent(in) :: result
    integer(8), intent(in) :: before
    character(*), intent(in) :: what
    type(sl_array) :: r
    call expect(live_handles() == before + 1, what // ': one new handle')
    r = result
    call release(r)
  end subroutine

end program scopes
