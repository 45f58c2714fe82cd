! Applying a procedure to pieces from Fortran: apply_elements and apply_blocks with bind(C)
! procedures (sl_apply_function), against plain Fortran: a per-element function with
! singleton expansion, a moving mean over blocks with clamped ends, rows as slices and
! their sums as scalars, block_length; a bad option with stat; no handles left.
module apply_functions
  use, intrinsic :: iso_c_binding
  use sluice
  implicit none
contains

  ! out = 2 x y + 1 per element.
  integer(c_int) function twice_product_plus_one(pieces, n_in, outputs, n_out, user) result(status) bind(C)
    integer(c_int32_t), value :: n_in, n_out
    integer(c_int64_t), intent(in) :: pieces(n_in)
    integer(c_int64_t), intent(inout) :: outputs(n_out)
    type(c_ptr), value :: user
    type(sl_array) :: x, y, r
    x%handle = pieces(1)
    y%handle = pieces(2)
    r = 2 * x * y + 1
    outputs(1) = r%handle
    status = SL_OK
  end function

  ! The mean of a window.
  integer(c_int) function window_mean(pieces, n_in, outputs, n_out, user) result(status) bind(C)
    integer(c_int32_t), value :: n_in, n_out
    integer(c_int64_t), intent(in) :: pieces(n_in)
    integer(c_int64_t), intent(inout) :: outputs(n_out)
    type(c_ptr), value :: user
    type(sl_array) :: x, r
    x%handle = pieces(1)
    r = mean(x, stat=status)
    outputs(1) = r%handle
  end function

  ! A row doubled (a slice) and its sum (a scalar).
  integer(c_int) function row_and_sum(pieces, n_in, outputs, n_out, user) result(status) bind(C)
    integer(c_int32_t), value :: n_in, n_out
    integer(c_int64_t), intent(in) :: pieces(n_in)
    integer(c_int64_t), intent(inout) :: outputs(n_out)
    type(c_ptr), value :: user
    type(sl_array) :: x, doubled, total
    x%handle = pieces(1)
    doubled = 2 * x
    total = sum(x)
    outputs(1) = doubled%handle
    outputs(2) = total%handle
    status = SL_OK
  end function

  ! How many of the block's elements are real.
  integer(c_int) function real_length(pieces, n_in, outputs, n_out, user) result(status) bind(C)
    integer(c_int32_t), value :: n_in, n_out
    integer(c_int64_t), intent(in) :: pieces(n_in)
    integer(c_int64_t), intent(inout) :: outputs(n_out)
    type(c_ptr), value :: user
    type(sl_array) :: r
    r = block_length(status)
    outputs(1) = r%handle
  end function
end module

program apply
  use, intrinsic :: iso_c_binding
  use sluice
  use checks
  use apply_functions
  implicit none
  real(8) :: a(10), b(10), m(6, 7), v(20), want(10, 10), means(20), rows(6, 7), sums(6)
  type(sl_array) :: out(1), two(2)
  integer(8) :: live, lengths(1, 4)
  integer :: i, j, stat

  call start_test('apply')
  a = uniform(10, -1d0, 1d0)
  b = uniform(10, -1d0, 1d0)
  m = reshape(uniform(42, -1d0, 1d0), [6, 7])
  v = uniform(20, -1d0, 1d0)
  live = live_handles()
  call scope_begin()

  ! Per element: a 10 x 1 and a 1 x 10 give 10 x 10.
  call apply_elements(twice_product_plus_one, [sl_array(reshape(a, [10, 1])), sl_array(reshape(b, [1, 10]))], out)
  do j = 1, 10
    do i = 1, 10
      want(i, j) = 2 * a(i) * b(j) + 1
    end do
  end do
  call expect_matches(out(1), want, 1d-15, 'per element with singleton expansion')

  ! A moving mean over 5 (2 neighbours on each side, the ends clamped), one per block.
  call apply_blocks(window_mean, [sl_array(v)], out, overlap_before=2, overlap_after=2, boundary=SL_BOUNDARY_CLAMP, &
    descriptors=[output_scalar()])
  do i = 1, 20
    means(i) = sum(v(max(i - 2, 1):min(i + 2, 20))) + (max(3 - i, 0) * v(1)) + (max(i - 18, 0) * v(20))
  end do
  call expect_matches(out(1), reshape(means / 5, [1, 20]), 1d-14, 'moving mean')

  ! Rows (dimension 1) as slices and their sums.
  call apply_blocks(row_and_sum, [sl_array(m)], two, dim=1, descriptors=[output_slice(), output_scalar()])
  rows = 2 * m
  sums = sum(m, dim=2)
  call expect_matches(two(1), rows, 1d-15, 'rows doubled')
  call expect_matches(two(2), reshape(sums, [1, 6]), 1d-14, 'row sums')

  ! Blocks of 3 of 10: 3, 3, 3 and 1 real elements.
  call apply_blocks(real_length, [sl_array(a)], out, block_size=3, descriptors=[output_scalar()])
  lengths = out(1)
  call expect(all(lengths(1, :) == [3, 3, 3, 1]), 'block lengths')

  ! A bad option: a status and a message, no output.
  call apply_blocks(window_mean, [sl_array(v)], out, block_size=0, stat=stat)
  call expect_error(stat, SL_ERR_INVALID_ARGUMENT, 'block_size is 0', 'block size 0')
  call expect(out(1)%handle == 0, 'no output after a failure')

  call scope_end()
  call expect(live_handles() == live, 'no handles left')
  call end_test('apply')
end program
