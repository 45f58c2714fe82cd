! Debugging from Fortran: result comparison on (copyout, errors), the reference of an
! array (f64, from the real(4) inputs exactly), a peek at an intermediate that leaves the
! result as it was, and bad settings.
program debug
  use sluice
  use checks
  use, intrinsic :: iso_c_binding, only: c_null_char
  implicit none
  integer, parameter :: n = 500
  real(8) :: x8(n), ref(n)
  real(4) :: x(n), peeked(n), y(n), again(n)
  type(sl_array) :: a, b, c, missing
  type(sl_compare_stats) :: counts
  integer :: stat

  call start_test('debug')
  x8 = uniform(n, -2d0, 2d0)
  x = real(x8, 4)

  call set_compare(SL_COMPARE_COPYOUT, SL_COMPARE_ERROR)
  a = sl_array(x)
  b = a * a + 1.0
  ref = reference(b)
  call expect(all(ref == real(x, 8) * real(x, 8) + 1), 'the reference of a*a + 1 is exact in f64')
  y = b
  counts = compare_stats()
  call expect(counts%values_checked >= 1 .and. counts%mismatches == 0, 'the read was checked and agreed')
  call set_compare(SL_COMPARE_OFF)

  b = sin(a) * 2.0
  c = b + a
  peeked = debug_peek(b)
  call expect(all(abs(peeked - sin(x) * 2) <= 1e-5), 'a peek at sin(a) * 2')
  y = c
  again = sin(x) * 2 + x
  call expect(all(abs(y - again) <= 2e-5), 'the result after the peek')

  call set_compare(7, stat=stat)
  call expect_error(stat, SL_ERR_INVALID_ARGUMENT, 'not a comparison mode', 'a bad mode')
  missing = reference(c, stat=stat)
  call expect_error(stat, SL_ERR_INVALID_STATE, 'no reference', 'an array computed with comparison off')

  ! An explicit call site names the calls after it, until it is cleared.
  call expect(sl_set_call_site('model.f90'//c_null_char, 42) == SL_OK, 'setting a call site')
  call set_compare(7, stat=stat)
  call expect_error(stat, SL_ERR_INVALID_ARGUMENT, 'model.f90:42', 'an error at the explicit site')
  call expect(sl_set_call_site(c_null_char, 0) == SL_OK, 'clearing the call site')
  call set_compare(7, stat=stat)
  call expect(index(error_message(), 'model.f90') == 0, 'no explicit site once cleared: '//error_message())
  call end_test('debug')
end program debug
