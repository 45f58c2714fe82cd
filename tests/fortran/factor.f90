! Factorizations and solves under Fortran names: a least-squares fit of a quadratic to
! samples of a known quadratic through the normal equations (cholesky, cholesky_solve),
! which must recover its coefficients; a batch of 3x3 systems with chosen solutions
! (solve), their inverses (inv) and determinants (det, slogdet) against Fortran loops;
! LU factors and pivots (lu, lu_unpack, lu_solve); triangular_solve; a singular system
! (a zero column) fails with SL_ERR_SINGULAR where its solution is read.
program factor
  use sluice
  use checks
  implicit none
  integer, parameter :: m = 40, nb = 20
  real(8) :: t(m), v(m, 3), y(m), coef(3), want(3), g(3, 3)
  real(8) :: a(3, 3, nb), x(3, 1, nb), b(3, 1, nb), got(3, 1, nb), inverse(3, 3, nb), dets(nb), logs(nb), signs(nb)
  real(8) :: l(3, 3), u(3, 3), p(3, 3), a1(3, 3), x1(3), b1(3)
  integer :: i, k, stat
  type(sl_array) :: hv, hl, hf, hp, hlo, hup, hperm, sg, lg, bad

  call start_test('factor')
  call scope_begin()

  ! y = 1.5 - 2 t + 0.75 t^2 sampled at random t: the fit recovers the coefficients.
  want = [1.5d0, -2d0, 0.75d0]
  t = uniform(m, -1d0, 1d0)
  v(:, 1) = 1
  v(:, 2) = t
  v(:, 3) = t**2
  y = matmul(v, want)
  hv = sl_array(v)
  hl = cholesky(gemm(SL_TRANS, hv, SL_NO_TRANS, hv, 1d0))
  coef = cholesky_solve(hl, gemm(SL_TRANS, hv, SL_NO_TRANS, sl_array(y), 1d0))
  call expect(maxval(abs(coef - want)) < 1d-12, 'least-squares coefficients')

  ! nb systems with known solutions.
  do k = 1, nb
    a(:, :, k) = reshape(uniform(9, -1d0, 1d0), [3, 3])
    do i = 1, 3
      a(i, i, k) = a(i, i, k) + 3
    end do
    x(:, 1, k) = uniform(3, -2d0, 2d0)
    b(:, :, k) = matmul(a(:, :, k), x(:, :, k))
  end do
  got = solve(sl_array(a), sl_array(b))
  call expect(maxval(abs(got - x)) < 1d-12, 'batched 3x3 solve')
  inverse = inv(sl_array(a))
  dets = det(sl_array(a))
  call slogdet(sl_array(a), sg, lg)
  signs = sg
  logs = lg
  do k = 1, nb
    g = matmul(a(:, :, k), inverse(:, :, k))
    do i = 1, 3
      g(i, i) = g(i, i) - 1
    end do
    call expect(maxval(abs(g)) < 1d-12, 'inverse')
    call expect(abs(dets(k) - det3(a(:, :, k))) < 1d-12 * abs(det3(a(:, :, k))), 'det')
    call expect(abs(signs(k) * exp(logs(k)) - det3(a(:, :, k))) < 1d-12 * abs(det3(a(:, :, k))), 'slogdet')
  end do

  ! One matrix through its LU factors: P L U = A, and A^T x = b.
  a1 = a(:, :, 1)
  b1 = uniform(3, -1d0, 1d0)
  call lu(sl_array(a1), hf, hp)
  call lu_unpack(hf, hp, hlo, hup, hperm)
  l = hlo
  u = hup
  p = hperm
  call expect(maxval(abs(matmul(p, matmul(l, u)) - a1)) < 1d-14, 'P L U = A')
  x1 = lu_solve(hf, hp, sl_array(b1), trans=SL_TRANS)
  call expect(maxval(abs(matmul(transpose(a1), x1) - b1)) < 1d-13, 'lu_solve transposed')
  x1 = triangular_solve(hup, sl_array(b1), SL_UPPER)
  call expect(maxval(abs(matmul(u, x1) - b1)) < 1d-13, 'triangular_solve')

  ! A singular system (a zero column: exactly singular whatever the order of the
  ! elimination's roundings, which two equal rows are not) fails where its solution is read.
  a1(:, 2) = 0
  bad = solve(sl_array(a1), sl_array(b1))
  call get(bad, x1, stat=stat)
  call expect_error(stat, SL_ERR_SINGULAR, 'singular', 'solve of a singular matrix')
  bad = solve(sl_array(a1(:, 1:2)), sl_array(b1), stat=stat)
  call expect_error(stat, SL_ERR_SHAPE_MISMATCH, 'square', 'solve of a 3x2 matrix')

  call scope_end()
  call end_test('factor')

contains

  real(8) function det3(q)
    real(8), intent(in) :: q(3, 3)
    det3 = q(1, 1) * (q(2, 2) * q(3, 3) - q(3, 2) * q(2, 3)) - q(1, 2) * (q(2, 1) * q(3, 3) - q(3, 1) * q(2, 3)) &
      + q(1, 3) * (q(2, 1) * q(3, 2) - q(3, 1) * q(2, 2))
  end function
end program factor
