! Sorting under Fortran names: a vector with ties sorted both ways (sort, argsort with
! 1-based positions) against an insertion sort (stable, so argsort is checked exactly);
! topk; pack (Fortran's intrinsic name for compress) against the intrinsic pack; nonzero;
! unique, whose values(inverse) rebuild the input; a histogram against counting loops;
! a k past the length is refused with stat.
program sort_test
  use sluice
  use checks
  implicit none
  integer, parameter :: n = 300
  real(8) :: x(n), s(n), top(4)
  integer(8) :: order(n), want(n), top_at(4), hist(6), want_hist(6)
  integer(8), allocatable :: nz(:), counts(:), inverse(:)
  real(8), allocatable :: kept(:), values(:)
  integer :: i, j, k, stat
  integer(8) :: tmp
  logical :: descending
  type(sl_array) :: hx, hv, hi, hu, hc, hinv, bad

  call start_test('sort')
  call scope_begin()
  x = real(floor(uniform(n, -5d0, 5d0)), 8) * 0.5d0
  hx = sl_array(x)

  do j = 0, 1
    descending = j == 1
    ! Insertion sort of the positions: stable.
    want = [(int(i, 8), i = 1, n)]
    do i = 2, n
      tmp = want(i)
      k = i
      do while (k > 1)
        if (descending) then
          if (.not. x(want(k - 1)) < x(tmp)) exit
        else
          if (.not. x(want(k - 1)) > x(tmp)) exit
        end if
        want(k) = want(k - 1)
        k = k - 1
      end do
      want(k) = tmp
    end do
    order = argsort(hx, descending=descending)
    call expect_equal(order, want, 'argsort')
    s = sort(hx, descending=descending)
    call expect_close(s, x(want), 0d0, 'sort')
  end do

  call topk(hx, 4, hv, hi)
  top = hv
  top_at = hi
  call expect_close(top, x(want(1:4)), 0d0, 'topk values (the descending order''s first)')
  call expect_equal(top_at, want(1:4), 'topk positions')
  call topk(hx, n + 1, hv, hi, stat=stat)
  call expect_error(stat, SL_ERR_INVALID_ARGUMENT, 'k is 301', 'topk past the length')

  allocate(kept(size(pack(hx, hx > 0d0))))
  kept = pack(hx, hx > 0d0)
  call expect_close(kept, pack(x, x > 0d0), 0d0, 'pack')
  allocate(nz(size(nonzero(hx))))
  nz = nonzero(hx)
  call expect_equal(nz, pack([(int(i, 8), i = 1, n)], x /= 0d0), 'nonzero')

  call unique(hx, hu, hc, hinv)
  allocate(values(size(hu)), counts(size(hc)), inverse(n))
  values = hu
  counts = hc
  inverse = hinv
  call expect(sum(counts) == n, 'unique counts add up')
  call expect_close(values(inverse), x, 0d0, 'values(inverse) rebuilds x')

  hist = histogram(hx, 6, -3d0, 3d0)
  want_hist = 0
  do i = 1, n
    if (x(i) >= -3d0 .and. x(i) <= 3d0) then
      j = min(int(x(i) + 3d0) + 1, 6)
      want_hist(j) = want_hist(j) + 1
    end if
  end do
  call expect_equal(hist, want_hist, 'histogram')

  bad = sort(hx, dim=2, stat=stat)
  call expect_error(stat, SL_ERR_INVALID_ARGUMENT, 'out of range', 'sort along a missing dimension')
  call scope_end()
  call end_test('sort')
end program
