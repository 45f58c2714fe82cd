! Type promotion from Fortran (README "Type promotion"): mixed expressions against plain
! Fortran on random inputs, checked for the result's type too. The program keeps a local
! variable named `count` for system_clock, as ports do: the module's generic `count` is
! renamed on the `use` line (the idiom the README gives).
program promotion
  use, intrinsic :: iso_c_binding, only: c_int32_t
  use sluice, array_count => count
  use checks
  implicit none
  integer, parameter :: n = 5000
  integer(8) :: count, rate
  real(8) :: px(n), py(n), u(n), pi, got8(n)
  real(4) :: x4(n), got4(n)
  integer(4) :: k(n), got_i(n)
  type(sl_array) :: ax, ay, ak, a4, r

  call start_test('promotion')
  call system_clock(count, rate)
  call expect(rate > 0, 'system_clock still works next to the module')
  px = uniform(n, 0d0, 1d0)
  py = uniform(n, 0d0, 1d0)
  u = uniform(n, -1d3, 1d3)
  k = int(u, 4)
  x4 = real(uniform(n, -4d0, 4d0), 4)

  call scope_begin()
  ! Monte Carlo pi: 4.0 * count(inside) / n is the real(8) estimate, not an integer.
  ax = sl_array(px)
  ay = sl_array(py)
  r = 4.0d0 * array_count(ax * ax + ay * ay <= 1d0) / n
  call expect_type(r, SL_F64, '4.0 * count(inside) / n')
  pi = r
  call expect(pi == 4d0 * count_inside() / n, '4.0 * count(inside) / n is the float estimate')

  ! An integer array with a real(8) scalar is real(8); with an integer scalar, integer.
  ak = sl_array(k)
  r = ak + 2.5d0
  call expect_type(r, SL_F64, 'integer + 2.5d0')
  got8 = r
  call expect(all(got8 == k + 2.5d0), 'integer + 2.5d0 values')
  r = 3 * ak
  call expect_type(r, SL_I32, '3 * integer')
  got_i = r
  call expect(all(got_i == 3 * k), '3 * integer values')

  ! A real(8) constant does not widen a real(4) array; an integer array with it is real(4).
  a4 = sl_array(x4)
  r = a4 * 0.1d0
  call expect_type(r, SL_F32, 'real(4) * 0.1d0')
  got4 = r
  call expect(all(got4 == x4 * 0.1), 'real(4) * 0.1d0 values')
  r = ak * a4
  call expect_type(r, SL_F32, 'integer * real(4) array')
  got4 = r
  call expect(all(got4 == real(k, 4) * x4), 'integer * real(4) array values')
  call scope_end()
  call end_test('promotion')

contains

  integer function count_inside()
    count_inside = size(pack(px, px * px + py * py <= 1d0))
  end function

  subroutine expect_type(a, want, what)
    type(sl_array), intent(in) :: a
    integer(c_int32_t), intent(in) :: want
    character(*), intent(in) :: what
    integer(c_int32_t) :: t
    call expect(sl_get_dtype(a%handle, t) == SL_OK, what // ': sl_get_dtype')
    call expect(t == want, what // ': result type')
  end subroutine

end program promotion
