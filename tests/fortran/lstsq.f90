! Least squares and QR under Fortran names: a cubic fitted by lstsq to noisy samples of a
! known cubic (noise at most 1d-6; the coefficients must come back within 1d-4, which
! the noise, moving them by about ||A^+|| sqrt(m) 1d-6 ~ 1d-5, stays well inside); a
! batch of such fits at once; the reduced and R-only QR of the Vandermonde matrix (Q^T Q
! = I, Q R = A, the same R up to row signs); a rank-deficient fit fails with
! SL_ERR_SINGULAR where its solution is read.
program lstsq_fit
  use sluice
  use checks
  implicit none
  integer, parameter :: m = 120, deg = 4, nb = 3
  real(8) :: t(m), v(m, deg, nb), y(m, 1, nb), want(deg, nb), coef(deg, 1, nb), single(deg)
  real(8) :: q(m, deg), r(deg, deg), r_only(deg, deg), eye(deg, deg)
  integer :: i, j, k, stat
  type(sl_array) :: hq, hr, hr_only, hnone, bad

  call start_test('lstsq')
  call scope_begin()

  do k = 1, nb
    want(:, k) = uniform(deg, -2d0, 2d0)
    t = uniform(m, -1d0, 1d0)
    do j = 1, deg
      v(:, j, k) = t**(j - 1)
    end do
    y(:, 1, k) = matmul(v(:, :, k), want(:, k)) + uniform(m, -1d-6, 1d-6)
  end do
  single = lstsq(sl_array(v(:, :, 1)), sl_array(y(:, 1, 1)))
  call expect(maxval(abs(single - want(:, 1))) < 1d-4, 'cubic fit')
  coef = lstsq(sl_array(v), sl_array(y))
  call expect(maxval(abs(coef(:, 1, :) - want)) < 1d-4, 'batched cubic fits')

  call qr(sl_array(v(:, :, 1)), hq, hr)
  call qr(sl_array(v(:, :, 1)), hnone, hr_only, mode=SL_QR_R)
  q = hq
  r = hr
  r_only = hr_only
  eye = 0
  do i = 1, deg
    eye(i, i) = 1
  end do
  call expect(maxval(abs(matmul(transpose(q), q) - eye)) < 1d-13, 'Q^T Q = I')
  call expect(maxval(abs(matmul(q, r) - v(:, :, 1))) < 1d-13, 'Q R = A')
  call expect(maxval(abs(abs(r_only) - abs(r))) < 1d-12, 'R alone')

  ! Column 3 a copy of column 2.
  v(:, 3, 1) = v(:, 2, 1)
  bad = lstsq(sl_array(v(:, :, 1)), sl_array(y(:, 1, 1)))
  call get(bad, single, stat=stat)
  call expect_error(stat, SL_ERR_SINGULAR, 'rank-deficient', 'fit with a repeated column')
  bad = lstsq(sl_array(v(:, :, 1)), sl_array(y(1:m - 1, 1, 1)), stat=stat)
  call expect_error(stat, SL_ERR_SHAPE_MISMATCH, '[120, 4]', 'lstsq with too short a b')

  call scope_end()
  call end_test('lstsq')
end program lstsq_fit
