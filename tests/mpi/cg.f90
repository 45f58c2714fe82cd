! Conjugate gradients on the 2-D Poisson problem from Fortran, distributed along dimension 1
! (Fortran's first): each rank builds its part from its rows of the right-hand side
! (distribute), the matrix is applied with eoshift (halo exchanges), dot_product and the
! updates run on distributed arrays in a distributed scope per iteration. Every rank also
! solves the same problem on one process with plain Sluice arrays (module sluice).
! - SL_MPI_ORDER_EXACT: the same iterations and the same bits of x as one process.
! - SL_MPI_ORDER_FAST: about as many iterations (within 10%), and the same residual
!   ||b - A x|| / ||b|| below 1e-8 (A applied by plain loops).
program cg_fortran
  use mpi
  use sluice
  use sluice_mpi
  implicit none
  integer, parameter :: n = 36, max_iterations = 1000
  real(8), parameter :: tolerance = 1d-10
  real(8) :: f(n, n), b(n, n), x_plain(n, n), x_exact(n, n), x_fast(n, n), b_norm, h
  integer :: ierr, me, ranks, k_plain, k_exact, k_fast, failures, total, seed_size, i
  integer, allocatable :: seed(:)
  integer(8) :: clock

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierr)
  call random_seed(size=seed_size)
  allocate (seed(seed_size))
  if (me == 0) then
    call system_clock(clock)
    seed = [(int(mod(clock + 7919_8 * i, 2147483647_8)), i = 1, seed_size)]
    print '(a, i0, a, i0)', 'cg_fortran on ', ranks, ' ranks: seed ', seed(1)
  end if
  call MPI_Bcast(seed, seed_size, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call random_seed(put=seed)
  call random_number(f)
  h = 1d0 / (n + 1)
  b = h**2 * f
  b_norm = norm2(b)
  call sluice_mpi_init(MPI_COMM_WORLD)

  failures = 0
  call solve_plain(x_plain, k_plain)
  call solve_distributed(SL_MPI_ORDER_EXACT, x_exact, k_exact)
  call solve_distributed(SL_MPI_ORDER_FAST, x_fast, k_fast)
  if (k_exact /= k_plain .or. any(transfer(x_exact, 1_8, n * n) /= transfer(x_plain, 1_8, n * n))) then
    print '(a, i0, a, i0, a, i0)', 'rank ', me, ': exact order differs: iterations ', k_exact, ' vs ', k_plain
    failures = failures + 1
  end if
  if (abs(k_fast - k_plain) > k_plain / 10 + 1 .or. .not. residual(x_fast) < 1d-8 .or. &
      .not. residual(x_plain) < 1d-8) then
    print '(a, i0, a, i0, a, i0, 2es10.2)', 'rank ', me, ': fast order: iterations ', k_fast, ' vs ', k_plain, &
      residual(x_fast), residual(x_plain)
    failures = failures + 1
  end if
  if (mpi_live_handles() /= 0) then
    print '(a, i0, a)', 'rank ', me, ': distributed handles leaked'
    failures = failures + 1
  end if
  call sluice_mpi_finalize()
  call MPI_Allreduce(failures, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (me == 0) print '(a, i0, a, i0, a, i0, a, i0, a, es9.2, a)', 'cg_fortran on ', ranks, ' ranks: ', k_plain, &
    ' iterations on one process, ', k_exact, ' exact, ', k_fast, ' fast (residual ', residual(x_fast), ')'
  call MPI_Finalize(ierr)
  if (total /= 0) error stop 'cg_fortran: FAILED'

contains

  function laplacian(u) result(au)
    type(sl_array), intent(in) :: u
    type(sl_array) :: au
    au = 4 * u - eoshift(u, 1, dim=1) - eoshift(u, -1, dim=1) - eoshift(u, 1, dim=2) - eoshift(u, -1, dim=2)
  end function

  function dlaplacian(u) result(au)
    type(sl_mpi_array), intent(in) :: u
    type(sl_mpi_array) :: au
    au = 4d0 * u - eoshift(u, 1, dim=1) - eoshift(u, -1, dim=1) - eoshift(u, 1, dim=2) - eoshift(u, -1, dim=2)
  end function

  subroutine solve_plain(x, k)
    real(8), intent(out) :: x(n, n)
    integer, intent(out) :: k
    type(sl_array) :: xs, r, p, rr, q, alpha, rr2
    real(8) :: now
    call scope_begin()
    xs = sl_array(0 * b)
    r = sl_array(b)
    p = retain(r)
    rr = dot_product(r, r)
    do k = 1, max_iterations
      call scope_begin()
      q = laplacian(p)
      alpha = rr / dot_product(p, q)
      call update(xs, xs + alpha * p)
      call update(r, r - alpha * q)
      rr2 = dot_product(r, r)
      call update(p, r + (rr2 / rr) * p)
      call update(rr, rr2)
      call eval([xs, r, p])
      call scope_end()
      now = rr
      if (sqrt(now) <= tolerance * b_norm) exit
    end do
    x = xs
    call scope_end()
  end subroutine

  subroutine solve_distributed(order, x, k)
    integer, intent(in) :: order
    real(8), intent(out) :: x(n, n)
    integer, intent(out) :: k
    type(sl_mpi_array) :: xs, r, p, rr, q, alpha, rr2, bd
    integer(8) :: start, count
    integer :: status
    real(8) :: now
    call scope_begin()
    call dist_scope_begin()
    status = sl_mpi_block(int(n, 8), ranks, me, start, count)
    ! This rank's rows of b (its block along dimension 1).
    bd = distribute(sl_array(b(start + 1:start + count, :)), [int(n, 8), int(n, 8)], 1)
    xs = 0d0 * bd
    r = 1d0 * bd
    p = 1d0 * bd
    rr = dot_product(r, r, order)
    do k = 1, max_iterations
      call dist_scope_begin()
      q = dlaplacian(p)
      alpha = rr / dot_product(p, q, order)
      call update_dist(xs, xs + alpha * p)
      call update_dist(r, r - alpha * q)
      rr2 = dot_product(r, r, order)
      call update_dist(p, r + (rr2 / rr) * p)
      call update_dist(rr, rr2)
      call eval_dist([xs, r, p])
      call dist_scope_end()
      now = local_part(rr)
      if (sqrt(now) <= tolerance * b_norm) exit
    end do
    x = gather_dist(xs)
    call dist_scope_end()  ! releases bd and the state the iterations kept
    call scope_end()
  end subroutine

  real(8) function residual(x)
    real(8), intent(in) :: x(n, n)
    real(8) :: ax(n, n)
    integer :: i, j
    do j = 1, n
      do i = 1, n
        ax(i, j) = 4 * x(i, j)
        if (i > 1) ax(i, j) = ax(i, j) - x(i - 1, j)
        if (i < n) ax(i, j) = ax(i, j) - x(i + 1, j)
        if (j > 1) ax(i, j) = ax(i, j) - x(i, j - 1)
        if (j < n) ax(i, j) = ax(i, j) - x(i, j + 1)
      end do
    end do
    residual = norm2(b - ax) / b_norm
  end function

end program cg_fortran
