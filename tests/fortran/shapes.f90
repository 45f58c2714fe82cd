! Generators, shape ops and the new element-wise functions under their Fortran names,
! against plain Fortran on random inputs: linspace, arange, diag, triu/tril, repeat,
! meshgrid, flip, squeeze/expand_dims, moveaxis; modulo beside mod, shiftl/shifta/shiftr/
! ishft, sign, clamp, and floor/ceiling/nint to integers in one call.
program shapes
  use sluice
  use checks
  implicit none
  integer, parameter :: m = 6, n = 4
  real(8) :: x(m, n), v(n), lin(7)
  integer(4) :: p(m, n), q(m, n), counts(n), want_rep(0:3 * n)
  integer :: i, j, k, total, stat
  type(sl_array) :: a, d, grids(2), r
  integer(8) :: live

  call start_test('shapes')
  live = live_handles()
  call scope_begin()
  x = reshape(uniform(m * n, -9d0, 9d0), [m, n])
  v = uniform(n, -1d0, 1d0)
  a = sl_array(x)

  ! linspace and arange (values, not indices: arange starts where asked).
  lin = [(-1d0 + 2d0 * i / 6, i = 0, 6)]
  call expect_matches(linspace(SL_F64, -1d0, 1d0, 7), lin, 1d-15, 'linspace')
  call expect_matches(int(arange(SL_I64, 3, 15, 4)), [3, 7, 11], 'arange')

  ! diag both ways, with an offset; the triangles.
  call expect_matches(diag(a, -1), [(x(i + 1, i), i = 1, min(m - 1, n))], 0d0, 'diag(a, -1)')
  d = diag(sl_array(v), 2)
  call expect_equal(int(shape(d), 8), [int(n + 2, 8), int(n + 2, 8)], 'diag of a vector, k = 2')
  call expect_matches(diag(d, 2), v, 0d0, 'diag(diag(v, 2), 2)')
  call expect_matches(triu(a, 1), reshape([((merge(x(i, j), 0d0, j - i >= 1), i = 1, m), j = 1, n)], [m, n]), &
    0d0, 'triu(a, 1)')
  call expect_matches(tril(a), reshape([((merge(x(i, j), 0d0, j - i <= 0), i = 1, m), j = 1, n)], [m, n]), &
    0d0, 'tril(a)')

  ! repeat along dimension 1 by a count per element.
  counts = [(mod(int(uniform(1, 0d0, 4d0)), 4), i = 1, n)]
  total = 0
  do i = 1, n
    do k = 1, counts(i)
      want_rep(total) = i
      total = total + 1
    end do
  end do
  r = repeat(sl_array(real([(i, i = 1, n)], 8)), sl_array(counts))
  call expect_matches(r, real(want_rep(0:total - 1), 8), 0d0, 'repeat by counts')
  call expect_matches(repeat(sl_array(v), 2), v([(i, i, i = 1, n)]), 0d0, 'repeat by 2')

  ! meshgrid (xy: grids are n x m), flip, squeeze/expand_dims, moveaxis.
  call meshgrid([sl_array(x(:, 1)), sl_array(v)], grids)
  call expect_matches(grids(1), spread(x(:, 1), 1, n), 0d0, 'meshgrid x')
  call expect_matches(grids(2), spread(v, 2, m), 0d0, 'meshgrid y')
  call expect_matches(flip(a, [1, 2]), x(m:1:-1, n:1:-1), 0d0, 'flip both')
  call expect_matches(squeeze(expand_dims(a, 2)), x, 0d0, 'squeeze(expand_dims)')
  call expect_matches(moveaxis(a, 1, 2), transpose(x), 0d0, 'moveaxis')

  ! Integer functions.
  p = int(reshape(uniform(m * n, -1d4, 1d4), [m, n]))
  q = int(reshape(uniform(m * n, 1d0, 9d0), [m, n])) * merge(1, -1, x > 0)
  call expect_matches(modulo(sl_array(p), sl_array(q)), modulo(p, q), 'modulo')
  call expect_matches(mod(sl_array(p), sl_array(q)), mod(p, q), 'mod')
  call expect_matches(modulo(sl_array(p), -7), modulo(p, -7), 'modulo by a scalar')
  call expect_matches(shiftl(sl_array(p), 3), shiftl(p, 3), 'shiftl')
  call expect_matches(shifta(sl_array(p), 5), shifta(p, 5), 'shifta')
  call expect_matches(shiftr(sl_array(p), 5), shiftr(p, 5), 'shiftr')
  call expect_matches(ishft(sl_array(p), -7), ishft(p, -7), 'ishft right')
  call expect_matches(ishft(sl_array(p), 2), ishft(p, 2), 'ishft left')
  call expect_matches(floor(a), floor(x), 'floor')
  call expect_matches(ceiling(a), ceiling(x), 'ceiling')
  call expect_matches(nint(a), nint(x), 'nint')
  call expect_matches(sign(a, sl_array(-x)), sign(x, -x), 0d0, 'sign')
  call expect_matches(clamp(a, -2d0, 3d0), min(max(x, -2d0), 3d0), 0d0, 'clamp')

  r = diag(a, 9, stat)
  call expect_error(stat, SL_ERR_INVALID_ARGUMENT, 'k = 9', 'diag with k beyond the matrix')
  r = shiftr(sl_array(p), 40, stat)
  call expect_error(stat, SL_ERR_INVALID_ARGUMENT, 'shift must lie', 'shiftr beyond the bit size')
  call scope_end()
  call expect(live_handles() == live, 'no handles left after the scope')
  call end_test('shapes')
end program
