! Random arrays from Fortran: uniform values in [0, 1) and standard normal ones with the
! right mean and variance (within 5 standard errors on 2^20 values), a draw per array, the
! same numbers again after setting an earlier state, every generator kind, the other laws
! (ranges, Poisson, gamma, Bernoulli, exponential, beta, chi-square: their ranges and
! means), Sobol' points, and errors for bad parameters and a destroyed generator. The
! seed is fresh each run (SLUICE_TEST_SEED replays it).
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
  integer :: stat, j
  integer(4), allocatable :: k4(:)
  integer(8), allocatable :: k8(:)
  logical, allocatable :: heads(:)
  real(8) :: lambda, k_shape, pts(8, 2)
  type(sl_rng) :: tf

  call start_test('random')
  allocate (u(n), again(n), z(n), u4(n), k4(n), k8(1000), heads(n))
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

  ! The other laws, from a Threefry generator.
  tf = rng_create(int(r(1), 8), kind=SL_RNG_THREEFRY)
  u = random_range(tf, -2d0, 3d0, SL_F64, [n])
  call expect(all(u >= -2 .and. u < 3) .and. abs(sum(u) / n - 0.5d0) < 5 * sqrt(25d0 / 12 / n), 'uniform range')
  k4 = random_integers(tf, -5, 12, SL_I32, [n])
  call expect(all(k4 >= -5 .and. k4 < 12) .and. abs(sum(real(k4, 8)) / n - 3d0) < 5 * sqrt(288d0 / 12 / n), &
    'integers in a range')
  k8 = random_integers(tf, -5_8, 2_8**40, SL_I64, [1000])
  call expect(all(k8 >= -5 .and. k8 < 2_8**40), 'integer(8) range')
  r = uniform(1, 0.5d0, 2000d0)
  lambda = r(1)
  k4 = random_poisson(tf, lambda, SL_I32, [n])
  call expect(all(k4 >= 0) .and. abs(sum(real(k4, 8)) / n - lambda) < 5 * sqrt(lambda / n), 'Poisson mean')
  r = uniform(1, 0.2d0, 8d0)
  k_shape = r(1)
  z = random_gamma(tf, k_shape, 2d0, SL_F64, [n])
  call expect(all(z >= 0) .and. abs(sum(z) / n - 2 * k_shape) < 5 * 2 * sqrt(k_shape / n), 'gamma mean')
  z = random_exponential(tf, 3d0, SL_F64, [n])
  call expect(all(z >= 0) .and. abs(sum(z) / n - 3) < 5 * 3 / sqrt(real(n, 8)), 'exponential mean')
  z = random_beta(tf, 2d0, 3d0, SL_F64, [n])
  call expect(all(z >= 0 .and. z <= 1) .and. abs(sum(z) / n - 0.4d0) < 5 * 0.2d0 / sqrt(real(n, 8)), 'beta mean')
  z = random_chisquare(tf, 4d0, SL_F64, [n])
  call expect(abs(sum(z) / n - 4) < 5 * sqrt(8d0 / n), 'chi-square mean')
  heads = random_bernoulli(tf, 0.25d0, [n])
  call expect(abs(real(count(heads), 8) / n - 0.25d0) < 5 * sqrt(0.1875d0 / n), 'Bernoulli frequency')
  ! Sobol' points: the first ones of Joe and Kuo's first two dimensions.
  pts = random_sobol(2, 0, 8)
  call expect(all(pts(:, 1) == [0d0, 0.5d0, 0.75d0, 0.25d0, 0.375d0, 0.875d0, 0.625d0, 0.125d0]) .and. &
    all(pts(:, 2) == [0d0, 0.5d0, 0.25d0, 0.75d0, 0.375d0, 0.875d0, 0.125d0, 0.625d0]), 'Sobol'' points')
  pts = random_sobol(2, 0, 8, scramble=SL_SOBOL_OWEN, seed=7_8)
  do j = 1, 2
    call expect(all(pts(:, j) >= 0 .and. pts(:, j) < 1), 'scrambled Sobol'' points in [0, 1)')
  end do
  a = random_poisson(tf, -1d0, SL_I32, [4], stat=stat)
  call expect_error(stat, SL_ERR_INVALID_ARGUMENT, 'lambda', 'a negative Poisson mean')
  a = random_gamma(tf, 0d0, 1d0, SL_F32, [4], stat=stat)
  call expect_error(stat, SL_ERR_INVALID_ARGUMENT, 'shape', 'a gamma shape of 0')
  a = random_sobol(0, 0, 4, stat=stat)
  call expect_error(stat, SL_ERR_INVALID_ARGUMENT, 'dimensions', 'Sobol'' points of no dimension')
  call rng_destroy(tf)

  a = random_uniform(rng, SL_I32, [4], stat=stat)
  call expect(stat /= SL_OK, 'integer random arrays are refused')
  copy = rng
  call rng_destroy(rng)
  a = random_normal(copy, SL_F64, [4], stat=stat)
  call expect_error(stat, SL_ERR_INVALID_HANDLE, 'not a live random number generator', 'a destroyed generator')
  call end_test('random')
end program random
