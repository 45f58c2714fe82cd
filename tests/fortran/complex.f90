! complex(8) and complex(4) arrays: sl_array(z) and assignment back, arithmetic with arrays
! and complex scalars on either side, conjg, real, aimag, abs, cmplx, sum and exp, against
! Fortran's own complex arithmetic on random inputs.
program complex_arrays
  use sluice
  use checks
  implicit none
  integer, parameter :: m = 9, n = 7
  complex(8) :: z(m, n), w(m, n), got(m, n), want(m, n), total, c
  complex(4) :: z4(m, n), got4(m, n), want4(m, n)
  real(8) :: re(m, n), im(m, n), modulus(m, n)
  type(sl_array) :: a, b, e
  integer :: stat

  call start_test('complex')
  call scope_begin()
  z = cmplx(reshape(uniform(m * n, -2d0, 2d0), [m, n]), reshape(uniform(m * n, -2d0, 2d0), [m, n]), 8)
  w = cmplx(reshape(uniform(m * n, 0.5d0, 2d0), [m, n]), reshape(uniform(m * n, -2d0, 2d0), [m, n]), 8)
  c = cmplx(0.25d0, -1.5d0, 8)
  a = sl_array(z)
  b = sl_array(w)

  ! Arithmetic: arrays, complex scalars on either side, real scalars.
  got = (a * b + conjg(a)) / b - c * a + 2d0
  want = (z * w + conjg(z)) / w - c * z + 2d0
  call expect(maxval(abs(got - want)) <= 1d-13 * maxval(abs(want)), 'complex(8) expression')
  got = c / a + a * c
  want = c / z + z * c
  call expect(maxval(abs(got - want)) <= 1d-13 * maxval(abs(want)), 'complex scalars on both sides')

  ! Parts, modulus, made from parts.
  re = real(a)
  im = aimag(a)
  modulus = abs(a)
  call expect(all(re == real(z)) .and. all(im == aimag(z)), 'real and aimag')
  ! Both moduli are within 1 ulp of |z|, so they may differ by 2 ulp.
  call expect(maxval(abs(modulus - abs(z)) / abs(z)) <= 2 * epsilon(1d0), 'abs')
  got = cmplx(sl_array(re), sl_array(im))
  call expect(all(got == z), 'cmplx of the parts')

  ! A reduction and exp.
  total = 0
  call get(sum(a * b), total)
  call expect(abs(total - sum(z * w)) <= 1d-12 * sum(abs(z * w)), 'sum of products')
  e = exp(a * 0.5d0)
  got = e
  call expect(maxval(abs(got - exp(z * 0.5d0)) / abs(exp(z * 0.5d0))) <= 1d-14, 'exp')

  ! complex(4), and reading it back as complex(8).
  z4 = cmplx(z, kind=4)
  a = sl_array(z4)
  got4 = a * a - conjg(a)
  want4 = z4 * z4 - conjg(z4)
  call expect(maxval(abs(got4 - want4)) <= 2e-6 * maxval(abs(want4)), 'complex(4) expression')
  got = a
  call expect(all(got == cmplx(z4, kind=8)), 'complex(4) read as complex(8)')

  ! Complex to real is refused.
  call get(a, re, stat)
  call expect_error(stat, SL_ERR_DTYPE_MISMATCH, 'imaginary part', 'complex array read into a real one')
  call scope_end()
  call end_test('complex')
end program complex_arrays
