! Section assignment from Fortran: u(2:n-1, 2:n-1) = (u(1:n-2, 2:n-1) + u(3:n, 2:n-1)) / 2
! written as call assign(u, [2, 2], [n-1, n-1], ...), a row u(3, :) set from a vector
! (stride 0), a reversed strided section set to a scalar, where (u < 0) u = -1, and an
! indexed add, against the same Fortran on random inputs. retain(u) keeps the old values;
! refused calls report through stat and change nothing.
program assign_test
  use sluice
  use checks
  implicit none
  integer, parameter :: n = 23
  real(8) :: u0(n, n), want(n, n), next(n, n), got(n, n), row(n)
  type(sl_array) :: u, old, up, down, r, f
  integer :: step, i, stat
  integer :: ri(12), ci(12)

  call start_test('assign')
  call scope_begin()
  call random_number(u0)
  u0 = 2 * u0 - 1
  want = u0
  u = sl_array(u0)
  old = retain(u)
  do step = 1, 10
    up = section(u, [1, 2], [n - 2, n - 1])
    down = section(u, [3, 2], [n, n - 1])
    call assign(u, [2, 2], [n - 1, n - 1], (up + down) * 0.5d0)
    next = want
    next(2:n-1, 2:n-1) = (want(1:n-2, 2:n-1) + want(3:n, 2:n-1)) * 0.5d0
    want = next
  end do
  got = u
  call expect(maxval(abs(got - want)) <= 1d-15, 'interior updates')
  got = old
  call expect(all(got == u0), 'retain keeps the old version')

  call random_number(row)
  r = sl_array(row)
  call assign(u, [3, 1], [3, n], r, stride=[0, 1])
  want(3, :) = row
  call assign(u, [n, 4], [1, 4], -2.5d0, stride=[-2, 1])
  want(n:1:-2, 4) = -2.5d0
  call assign_where(u, u < 0d0, -1d0)
  where (want < 0) want = -1
  do i = 1, size(ri)
    ri(i) = 1 + mod(7 * i, n)
    ci(i) = 1 + mod(i, 3)
  end do
  call assign_indexed(u, [sl_array(ri), sl_array(ci)], sl_array([(1d0, i = 1, size(ri))]), SL_SCATTER_ADD)
  do i = 1, size(ri)
    want(ri(i), ci(i)) = want(ri(i), ci(i)) + 1
  end do
  got = u
  call expect(maxval(abs(got - want)) <= 1d-15, 'row, column, where and indexed')

  ! Refused: out of bounds, values of another shape, real(8) values into real(4).
  call assign(u, [n, 1], [n + 1, 1], 1d0, stat=stat)
  call expect_error(stat, SL_ERR_INVALID_ARGUMENT, 'leaves the array', 'out of bounds')
  call assign(u, [1, 1], [2, 2], r, stat=stat)
  call expect_error(stat, SL_ERR_SHAPE_MISMATCH, 'cannot broadcast', 'shape')
  f = sl_array(real(u0, 4))
  call assign(f, [1, 1], [2, 2], sl_array(u0(1:2, 1:2)), stat=stat)
  call expect_error(stat, SL_ERR_DTYPE_MISMATCH, 'lose information', 'real(8) into real(4)')
  got = u
  call expect(maxval(abs(got - want)) <= 1d-15, 'after refused calls')
  call scope_end()
  call end_test('assign')
end program assign_test
