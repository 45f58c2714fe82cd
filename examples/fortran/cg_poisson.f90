! Conjugate gradients on the 2-D Poisson problem -laplace(u) = f on the unit square, zero on
! the boundary, with the 5-point Laplacian on an n x n grid of interior points. Sluice
! applies the Laplacian with shifts (eoshift fills 0 past the edges: the boundary values),
! and runs each iteration inside its own scope: the step is a macro (recorded in the first
! iteration, replayed after), whose results x, r, r.r and p are carried out with update.
! The answer is checked with a plain Fortran application of the same matrix: the program
! prints the iterations and the relative residual ||b - A x|| / ||b|| and fails if that is
! above 1e-6.
program cg_poisson
  use sluice
  implicit none
  integer, parameter :: n = 128, max_iterations = 2000
  real(8), parameter :: tolerance = 1d-8, required = 1d-6
  real(8) :: f(n, n), b(n, n), x(n, n), h, b_norm, rr_now, residual
  type(sl_array) :: bs, xs, r, p, q, rr, alpha, step(4)
  integer :: iterations, recordings
  integer(8) :: live

  ! A random source (fresh each run), scaled by h^2 as the 5-point stencil is.
  h = 1d0 / (n + 1)
  call random_number(f)
  b = h**2 * f
  b_norm = norm2(b)
  live = live_handles()

  call scope_begin()
  bs = sl_array(b)
  x = 0
  xs = sl_array(x)       ! not constant(...): a macro keys constant inputs by their value
  r = bs - laplacian(xs)
  p = bs - laplacian(xs) ! equal to r but an array of its own: a macro recorded with one
                         ! array as two of its inputs replays wrongly (a runtime bug, for now)
  rr = dot_product(r, r)
  recordings = 0
  do iterations = 1, max_iterations
    call scope_begin()
    if (macro_begin('cg_step', [xs, r, p, rr], step)) then
      recordings = recordings + 1
      q = laplacian(p)
      alpha = rr / dot_product(p, q)
      step(1) = xs + alpha * p
      step(2) = r - alpha * q
      step(3) = dot_product(step(2), step(2))
      step(4) = step(2) + (step(3) / rr) * p
      call macro_end(step)
    end if
    call update(xs, step(1))
    call update(r, step(2))
    call update(rr, step(3))
    call update(p, step(4))
    call eval([xs, r, p])    ! store the state now, so no iteration recomputes the last ones
    call scope_end()
    rr_now = rr
    if (sqrt(rr_now) <= tolerance * b_norm) exit
  end do
  x = xs
  call scope_end()

  residual = norm2(b - laplacian_plain(x)) / b_norm
  print '(a, i0, a, i0, a, es9.2, a)', 'cg_poisson: ', n, ' x ', n, ' grid, residual ||b - A x||/||b|| = ', &
    residual, ' (plain Fortran A)'
  print '(a, i0, a, i0, a, i0, a, es9.2, a, i0)', 'cg_poisson: ', iterations, ' iterations (the step: ', &
    recordings, ' recording, ', iterations - recordings, ' replays), recurrence residual ', sqrt(rr_now) / b_norm, &
    ', handles left: ', live_handles() - live
  if (iterations > max_iterations .or. .not. residual <= required) error stop 'cg_poisson: not solved'
  if (live_handles() /= live) error stop 'cg_poisson: handles leaked'

contains

  ! A u: 4 u(i,j) minus the four neighbours, 0 beyond the edges.
  function laplacian(u) result(au)
    type(sl_array), intent(in) :: u
    type(sl_array) :: au
    au = 4 * u - eoshift(u, 1, dim=1) - eoshift(u, -1, dim=1) - eoshift(u, 1, dim=2) - eoshift(u, -1, dim=2)
  end function

  ! The same matrix with loops, as the independent check.
  function laplacian_plain(u) result(au)
    real(8), intent(in) :: u(:, :)
    real(8) :: au(size(u, 1), size(u, 2))
    integer :: i, j, m
    m = size(u, 1)
    do j = 1, size(u, 2)
      do i = 1, m
        au(i, j) = 4 * u(i, j)
        if (i > 1) au(i, j) = au(i, j) - u(i - 1, j)
        if (i < m) au(i, j) = au(i, j) - u(i + 1, j)
        if (j > 1) au(i, j) = au(i, j) - u(i, j - 1)
        if (j < size(u, 2)) au(i, j) = au(i, j) - u(i, j + 1)
      end do
    end do
  end function

end program cg_poisson
