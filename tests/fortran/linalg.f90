! Products under Fortran's names and gemm: matmul of complex(8) matrices and of a vector
! on either side, dot_product (the first vector conjugated, as Fortran's is), and gemm
! with transposed and conjugate-transposed operands and real or complex scalars, against
! Fortran's own matmul, dot_product and transpose on random inputs; outer products; the
! generalized inner product: all-pairs shortest paths by (min, +) squaring against
! Floyd-Warshall.
program linalg
  use sluice
  use checks
  implicit none
  integer, parameter :: m = 13, k = 9, n = 6
  complex(8) :: za(m, k), zb(k, n), zc(m, n), zx(k), got(m, n), gotv(m), d
  real(8) :: ra(k, m), rb(k, n), rc(m, n), rgot(m, n), rv(k), rgotv(m), rout(m, k)
  complex(8), parameter :: alpha = (0.5d0, -2d0), beta = (1.5d0, 0.25d0)
  type(sl_array) :: a, b, c, x, r, bad
  integer :: stat, i, j, p, steps
  integer, parameter :: g = 23
  real(8) :: dist(g, g), fw(g, g), dgot(g, g), rdiff(m, k)
  type(sl_array) :: dh

  call start_test('linalg')
  call scope_begin()
  za = cmplx(reshape(uniform(m * k, -1d0, 1d0), [m, k]), reshape(uniform(m * k, -1d0, 1d0), [m, k]), 8)
  zb = cmplx(reshape(uniform(k * n, -1d0, 1d0), [k, n]), reshape(uniform(k * n, -1d0, 1d0), [k, n]), 8)
  zc = cmplx(reshape(uniform(m * n, -1d0, 1d0), [m, n]), reshape(uniform(m * n, -1d0, 1d0), [m, n]), 8)
  zx = cmplx(uniform(k, -1d0, 1d0), uniform(k, -1d0, 1d0), 8)
  a = sl_array(za)
  b = sl_array(zb)
  c = sl_array(zc)
  x = sl_array(zx)

  got = matmul(a, b)
  call expect(maxval(abs(got - matmul(za, zb))) <= 1d-13 * k, 'complex matmul')
  gotv = matmul(a, x)
  call expect(maxval(abs(gotv - matmul(za, zx))) <= 1d-13 * k, 'complex matrix times vector')
  call get(dot_product(x, x * alpha), d)
  call expect(abs(d - dot_product(zx, zx * alpha)) <= 1d-13 * k, 'dot_product conjugates its first vector')

  ! alpha a^H (a b) + beta c, with a read through its conjugate transpose: m x m times m x n.
  r = gemm(SL_CONJ_TRANS, sl_array(transpose(za)), SL_NO_TRANS, b, alpha, c, beta)
  got = r
  call expect(maxval(abs(got - (alpha * matmul(conjg(za), zb) + beta * zc))) <= 1d-13 * k, 'gemm conj_trans')

  ! Real: 2 ra^T rb - rc, and a vector times a matrix.
  ra = reshape(uniform(k * m, -1d0, 1d0), [k, m])
  rb = reshape(uniform(k * n, -1d0, 1d0), [k, n])
  rc = reshape(uniform(m * n, -1d0, 1d0), [m, n])
  rv = uniform(k, -1d0, 1d0)
  rgot = gemm(SL_TRANS, sl_array(ra), SL_NO_TRANS, sl_array(rb), 2d0, sl_array(rc), -1d0)
  call expect(maxval(abs(rgot - (2 * matmul(transpose(ra), rb) - rc))) <= 1d-13 * k, 'gemm trans, real')
  rgotv = matmul(sl_array(rv), sl_array(ra))
  call expect(maxval(abs(rgotv - matmul(rv, ra))) <= 1d-13 * k, 'vector times matrix')

  rout = outer(sl_array(rc(:, 1)), sl_array(rv))
  call expect(all(rout == spread(rc(:, 1), 2, k) * spread(rv, 1, m)), 'outer')
  rdiff = outer(SL_BINARY_SUB, sl_array(rc(:, 1)), sl_array(rv))
  call expect(all(rdiff == spread(rc(:, 1), 2, k) - spread(rv, 1, m)), 'outer difference')

  ! Shortest paths: integer weights (exact sums), huge() where there is no edge.
  dist = reshape(uniform(g * g, 0d0, 1d0), [g, g])
  where (dist < 0.15d0)
    dist = anint(dist * 100 + 1)
  elsewhere
    dist = huge(1d0) / 4
  end where
  do i = 1, g
    dist(i, i) = 0
  end do
  fw = dist
  do p = 1, g
    do j = 1, g
      do i = 1, g
        fw(i, j) = min(fw(i, j), fw(i, p) + fw(p, j))
      end do
    end do
  end do
  dh = sl_array(dist)
  steps = 1
  do while (steps < g)
    dh = inner_product(SL_REDUCE_MINVAL, SL_BINARY_ADD, dh, dh)
    steps = steps * 2
  end do
  dgot = dh
  call expect(all(dgot == fw), 'min-plus squaring is Floyd-Warshall')

  bad = gemm(SL_NO_TRANS, a, SL_NO_TRANS, a, 1d0, stat=stat)
  call expect_error(stat, SL_ERR_SHAPE_MISMATCH, 'inner dimensions', 'gemm of non-conforming matrices')
  bad = inner_product(SL_REDUCE_ANY, SL_BINARY_AND, a, a, stat=stat)
  call expect_error(stat, SL_ERR_DTYPE_MISMATCH, '(any, and) is not defined for c128', 'or-and of complex matrices')
  bad = gemm(4, a, SL_NO_TRANS, b, 1d0, stat=stat)
  call expect_error(stat, SL_ERR_INVALID_ARGUMENT, 'op_a is 4', 'gemm with a bad op')
  call scope_end()
  call end_test('linalg')
end program linalg
