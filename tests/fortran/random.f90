! Random arrays from Fortran: uniform values in [0, 1) and standard normal ones with the
! right mean and variance (within 5 standard errors on 2^20 values), a draw per array, the
! same numbers again after setting an earlier state, both generator kinds, and errors for
! a destroyed generator. The seed is fresh each run (SLUICE_TEST_SEED replays it).
program random
  use sluice
  use checks
  implicit none
  integer, parameter :: n = 2**20
  real(8), allocatable :: u(:), again(:), z(:)
  real(4), allocatable :: u4(:)
  real(8) :: r(1), total
  type(sl_rng) :: rng, fast, copy
  type(sl_array) :: a
  integer(8) :: seed, draw, seed0, draw0
  integer :: stat

  call start_test('random')
  allocate (u(n), again(n), z(n), u4(n))
  r = uniform(1, 0d0, 1d9)
  rng = rng_create(int(r(1), 8))
  call rng_get_state(rng, seed0, draw0)
  call expect(seed0 == int(r(1), 8) .and. draw0 == 0, 'a new generator is at draw 0')

  u = random_uniform(rng, SL_F64, [n])
  call rng_get_state(rng, seed, draw)
  call expect(draw == 1, 'an array takes one draw')
  call expect(all(u >= 0 .and. u < 1), 'uniform values are in [0, 1)')
  call expect(abs(sum(u) / n - 0.5d0) < 5 * sqrt(1d0 / 12 / n), 'uniform mean')
  call expect(abs(sum((u - 0.5d0)**2) / n - 1d0 / 12) < 5 * sqrt(1d0 / 180 / n), 'uniform variance')
  z = random_normal(rng, SL_F64, [n])
  call expect(abs(sum(z) / n) < 5 / sqrt(real(n, 8)), 'normal mean')
  call expect(abs(sum(z**2) / n - 1) < 5 * sqrt(2d0 / n), 'normal variance')

  call rng_set_state(rng, seed0, 0_8)
  again = random_uniform(rng, SL_F64, [n])
  call expect(all(again == u), 'an earlier state repeats its numbers')
  again = random_uniform(rng, SL_F64, [n])
  call expect(count(again == u) < 10, 'the next draw gives other numbers')

  ! A random array fused into its consumer gives the numbers it gives when stored.
  call rng_set_state(rng, seed0, 0_8)
  total = sum(random_uniform(rng, SL_F64, [n]) * 2)
  call expect_close(total, sum(u * 2), 1d-12, 'a fused random array')

  u4 = random_uniform(rng, SL_F32, [n])
  call expect(all(u4 >= 0 .and. u4 < 1) .and. abs(sum(real(u4, 8)) / n - 0.5d0) < 5 * sqrt(1d0 / 12 / n), &
    'real(4) uniform values')

  fast = rng_create(int(r(1)), kind=SL_RNG_FAST)
  u = random_uniform(fast, SL_F64, [n])
  call expect(all(u >= 0 .and. u < 1) .and. abs(sum(u) / n - 0.5d0) < 5 * sqrt(1d0 / 12 / n), &
    'the fast generator''s uniform values')
  call rng_destroy(fast)
  call expect(fast%handle == 0, 'rng_destroy clears the variable')

  a = random_uniform(rng, SL_I32, [4], stat=stat)
  call expect(stat /= SL_OK, 'integer random arrays are refused')
  copy = rng
  call rng_destroy(rng)
  a = random_normal(copy, SL_F64, [4], stat=stat)
  call expect_error(stat, SL_ERR_INVALID_HANDLE, 'not a live random number generator', 'a destroyed generator')
  call end_test('random')
end program random
