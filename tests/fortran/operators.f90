! Every operator against plain Fortran on random inputs: + - * / ** between arrays, and with
! real(4), real(8), integer(4) and integer(8) scalars on either side; unary minus; the six
! comparisons in the same forms; .and. .or. .eqv. .neqv. .not. on logical arrays; integer
! and real(4) arrays. Basic arithmetic is IEEE and must match to the last bit but for the
! rounding of a different evaluation order (1e-15); ** goes through pow (2 ulp, 1e-14).
program operators
  use sluice
  use checks
  implicit none
  integer, parameter :: m = 7, n = 6
  real(8), parameter :: exact = 1d-15, pow_tol = 1d-14, f32_tol = 2.5d-7
  real(8) :: x(m, n), y(m, n), r(4)
  real(4) :: s4
  real(8) :: s8
  integer(4) :: i4
  integer(8) :: i8
  type(sl_array) :: a, b
  integer(8) :: live

  call start_test('operators')
  live = live_handles()
  ! x > 0 so that it can be a base of **; y has both signs and shares every other row with x
  ! so that == and /= see equal elements.
  x = reshape(uniform(m * n, 0.25d0, 3d0), [m, n])
  y = reshape(uniform(m * n, 0.25d0, 3d0), [m, n]) * merge(1, -1, reshape(uniform(m * n, 0d0, 1d0), [m, n]) > 0.5)
  y(1:m:2, :) = x(1:m:2, :)
  r = uniform(4, -3d0, 3d0)
  s4 = real(r(1), 4)
  s8 = x(2, 3)
  i4 = int(abs(r(3)) * 10, 4) + 2
  i8 = int(r(4) * 1d3, 8) - 5000

  call scope_begin()
  a = sl_array(x)
  b = sl_array(y)
  call arithmetic()
  call powers()
  call comparisons()
  call logical_operators()
  call integer_arrays()
  call real4_arrays()
  call scope_end()
  call expect(live_handles() == live, 'no handles left after the scope')
  call end_test('operators')

contains

  subroutine arithmetic()
    call expect_matches(a + b, x + y, exact, 'a + b')
    call expect_matches(a - b, x - y, exact, 'a - b')
    call expect_matches(a * b, x * y, exact, 'a * b')
    call expect_matches(a / b, x / y, exact, 'a / b')
    call expect_matches(-a, -x, exact, '-a')
    call expect_matches(a + s4, x + real(s4, 8), exact, 'a + real(4)')
    call expect_matches(a - s8, x - s8, exact, 'a - real(8)')
    call expect_matches(a * i4, x * i4, exact, 'a * integer(4)')
    call expect_matches(a / i8, x / i8, exact, 'a / integer(8)')
    call expect_matches(s4 + a, real(s4, 8) + x, exact, 'real(4) + a')
    call expect_matches(s8 - a, s8 - x, exact, 'real(8) - a')
    call expect_matches(i4 * a, i4 * x, exact, 'integer(4) * a')
    call expect_matches(i8 / a, i8 / x, exact, 'integer(8) / a')
    ! All terms positive: no cancellation, so fusing (even with FMA) stays within the tolerance.
    call expect_matches(a * a + a / 3 + 1, x * x + x / 3 + 1, exact, 'a fused expression')
  end subroutine

  subroutine powers()
    call expect_matches(a ** b, x ** y, pow_tol, 'a ** b')
    call expect_matches(a ** s8, x ** s8, pow_tol, 'a ** real(8)')
    call expect_matches(a ** s4, x ** real(s4, 8), pow_tol, 'a ** real(4)')
    call expect_matches(a ** 3, x ** 3, pow_tol, 'a ** integer(4)')
    call expect_matches(a ** (-2_8), x ** (-2_8), pow_tol, 'a ** integer(8)')
    call expect_matches(abs(s8) ** b, abs(s8) ** y, pow_tol, 'real(8) ** b')
    call expect_matches(abs(s4) ** b, real(abs(s4), 8) ** y, pow_tol, 'real(4) ** b')
    call expect_matches(2 ** b, 2d0 ** y, pow_tol, 'integer(4) ** b')
    call expect_matches(3_8 ** b, 3d0 ** y, pow_tol, 'integer(8) ** b')
  end subroutine

  subroutine comparisons()
    integer :: hits
    call expect_matches(a == b, x == y, 'a == b')
    call expect_matches(a /= b, x /= y, 'a /= b')
    call expect_matches(a < b, x < y, 'a < b')
    call expect_matches(a <= b, x <= y, 'a <= b')
    call expect_matches(a > b, x > y, 'a > b')
    call expect_matches(a >= b, x >= y, 'a >= b')
    call expect_matches(a .eq. s8, x == s8, 'a .eq. real(8) (equal at one element)')
    call expect_matches(a /= s4, x /= real(s4, 8), 'a /= real(4)')
    call expect_matches(a < i4, x < i4, 'a < integer(4)')
    call expect_matches(a <= i8, x <= i8, 'a <= integer(8)')
    call expect_matches(s8 > a, s8 > x, 'real(8) > a')
    call expect_matches(s4 >= a, real(s4, 8) >= x, 'real(4) >= a')
    call expect_matches(2 .lt. a, 2 < x, 'integer(4) .lt. a')
    call expect_matches(1_8 == b, 1 == y, 'integer(8) == b')
    hits = count(a == s8)
    call expect(hits >= 1, 'the scalar equals an element')
  end subroutine

  subroutine logical_operators()
    type(sl_array) :: p, q
    logical :: u(m, n), v(m, n)
    u = x > 1.5d0
    v = y < 0
    p = sl_array(u)
    q = sl_array(v)
    call expect_matches(p .and. q, u .and. v, '.and.')
    call expect_matches(p .or. q, u .or. v, '.or.')
    call expect_matches(p .eqv. q, u .eqv. v, '.eqv.')
    call expect_matches(p .neqv. q, u .neqv. v, '.neqv.')
    call expect_matches(.not. p, .not. u, '.not.')
    call expect_matches((a > b) .and. .not. (b < 0), (x > y) .and. .not. (y < 0), 'comparisons combined')
  end subroutine

  subroutine integer_arrays()
    integer(4) :: i(m, n), j(m, n)
    type(sl_array) :: ia, ja
    i = int(reshape(uniform(m * n, -1d4, 1d4), [m, n]))
    j = int(reshape(uniform(m * n, 1d0, 50d0), [m, n])) * merge(1, -1, i > 0)
    ia = sl_array(i)
    ja = sl_array(j)
    call expect_matches(ia + ja, i + j, 'integer a + b')
    call expect_matches(ia - 3, i - 3, 'integer a - 3')
    call expect_matches(7 * ia, 7 * i, 'integer 7 * a')
    call expect_matches(ia / ja, i / j, 'integer division truncates')
    call expect_matches(i4 / ja, i4 / j, 'integer(4) / integer array')
    call expect_matches(ja ** 2, j ** 2, 'integer a ** 2')
    call expect_matches(-ia, -i, 'integer -a')
    call expect_matches(ia >= ja, i >= j, 'integer a >= b')
  end subroutine

  ! A scalar takes the array's type: real(4) arithmetic, as Fortran does with real(4) operands
  ! (within an f32 ulp, 2.5e-7, for a fused multiply-add).
  subroutine real4_arrays()
    real(4) :: x4(m, n)
    type(sl_array) :: a4
    x4 = real(x, 4)
    a4 = sl_array(x4)
    call expect_matches(a4 * 0.1d0 + abs(s4), x4 * real(0.1d0, 4) + abs(s4), f32_tol, 'real(4) array with scalars')
    call expect_matches(s8 + a4 / i4, real(s8, 4) + x4 / real(i4, 4), f32_tol, &
      'real(4) array, scalars on the left')
  end subroutine

end program operators
