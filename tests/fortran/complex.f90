! complex(8) and complex(4) arrays: sl_array(z) and assignment back, arithmetic with arrays
! and complex scalars on either side, conjg, real, aimag, abs, cmplx, arg, is_finite, sum,
! exp, sin, cos, tan, sinh, cosh, tanh and **, a complex constant and complex normal random
! numbers, against Fortran's own complex arithmetic (complex(16) for the functions) on random
! inputs.
program complex_arrays
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_positive_inf, ieee_quiet_nan
  use sluice
  use checks
  implicit none
  integer, parameter :: m = 9, n = 7, qp = selected_real_kind(30), draws = 4096
  complex(8) :: z(m, n), w(m, n), got(m, n), want(m, n), total, c, z3(m, n), normal(draws)
  complex(qp) :: zq(m, n), wq(m, n), cq, exact(m, n)
  complex(4) :: z4(m, n), got4(m, n), want4(m, n)
  real(8) :: re(m, n), im(m, n), modulus(m, n), units(m, n), seed(1)
  logical :: finite(m, n)
  type(sl_array) :: a, b, e
  type(sl_rng) :: rng
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

  ! arg within atan2's 2 ulps (and the reference's), is_finite of both parts.
  re = carg(a)
  call expect(all(abs(re - atan2(aimag(z), real(z))) <= 3 * epsilon(1d0) * abs(atan2(aimag(z), real(z)))), 'arg')
  z3 = z
  z3(1, 1) = cmplx(ieee_value(1d0, ieee_positive_inf), 1d0, 8)
  z3(2, 1) = cmplx(0d0, ieee_value(1d0, ieee_quiet_nan), 8)
  finite = is_finite(sl_array(z3))
  call expect(.not. finite(1, 1) .and. .not. finite(2, 1) .and. all(finite(3:, :)) .and. all(finite(:, 2:)), &
    'is_finite')

  ! sin ... tanh against complex(16): README's bounds put each part within 8 eps (tan and
  ! tanh: 25 eps) of itself, so the error is within sqrt(2) times that of |want|.
  z3 = z * 3
  zq = cmplx(z3, kind=qp)
  a = sl_array(z3)
  got = sin(a)
  call expect(within(got, sin(zq), 8d0), 'sin')
  got = cos(a)
  call expect(within(got, cos(zq), 8d0), 'cos')
  got = tan(a)
  call expect(within(got, tan(zq), 25d0), 'tan')
  got = sinh(a)
  call expect(within(got, sinh(zq), 8d0), 'sinh')
  got = cosh(a)
  call expect(within(got, cosh(zq), 8d0), 'cosh')
  got = tanh(a)
  call expect(within(got, tanh(zq), 25d0), 'tanh')

  ! Powers: array ** array, ** a complex scalar, a complex scalar ** array; the bound grows
  ! with |w log z| (tests/complex.rs derives it).
  wq = cmplx(w, kind=qp)
  cq = cmplx(c, kind=qp)
  a = sl_array(z)
  b = sl_array(w)
  got = a ** b
  exact = exp(wq * log(cmplx(z, kind=qp)))
  call expect(all(abs(got - exact) <= pow_units(z, w) * sqrt(2d0) * epsilon(1d0) * abs(exact)), 'array ** array')
  got = a ** c
  exact = exp(cq * log(cmplx(z, kind=qp)))
  units = pow_units(z, spread(spread(c, 1, m), 2, n))
  call expect(all(abs(got - exact) <= units * sqrt(2d0) * epsilon(1d0) * abs(exact)), 'array ** complex')
  got = c ** b
  exact = exp(wq * log(cq))
  units = pow_units(spread(spread(c, 1, m), 2, n), w)
  call expect(all(abs(got - exact) <= units * sqrt(2d0) * epsilon(1d0) * abs(exact)), 'complex ** array')

  ! A complex constant, and complex normals: E|z|^2 = 1 within six standard errors.
  got = constant(SL_C128, [m, n], c)
  call expect(all(got == c), 'complex constant')
  seed = uniform(1, 0d0, 1d9)
  rng = rng_create(int(seed(1), 8))
  normal = random_normal(rng, SL_C128, [draws])
  call rng_destroy(rng)
  call expect(abs(sum(abs(normal)**2) / draws - 1) < 6d0 / sqrt(real(draws, 8)), 'complex normal E|z|^2')

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

contains

  ! |got - want| <= units sqrt(2) eps |want| element-wise.
  logical function within(g, x, units)
    complex(8), intent(in) :: g(:, :)
    complex(qp), intent(in) :: x(:, :)
    real(8), intent(in) :: units
    within = all(abs(g - x) <= units * sqrt(2d0) * epsilon(1d0) * abs(x))
  end function

  ! The bound on z ** w in eps of |z ** w|.
  elemental real(8) function pow_units(x, y)
    complex(8), intent(in) :: x, y
    real(8) :: l, t, p, q
    l = abs(log(abs(x)))
    t = abs(atan2(aimag(x), real(x)))
    p = abs(real(y))
    q = abs(aimag(y))
    pow_units = 4 * (p * l + q * t + p * t + q * l) + 3 * (p + q) + 5.5d0
  end function
end program complex_arrays
