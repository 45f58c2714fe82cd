! Helpers shared by the Fortran tests: fresh random inputs (SLUICE_TEST_SEED replays a run),
! comparisons against plain Fortran with a stated tolerance, and a failure count.
module checks
  use sluice
  implicit none
  private
  public :: start_test, end_test, expect, expect_close, expect_equal, expect_error, expect_matches, uniform, &
    failures

  integer :: failures = 0

  ! expect_close(got, want, tol, what): |got - want| <= tol * max(|want|, 1e-300) element-wise.
  interface expect_close
    module procedure close_r8_1, close_r8_0
  end interface

  ! expect_equal(got, want, what): exact equality, element-wise.
  interface expect_equal
    module procedure equal_i8_1, equal_i8_0, equal_l_1
  end interface

  ! expect_matches(a, want, [tol,] what): the Sluice array `a`, read back, against the plain
  ! Fortran result `want`: reals within `tol` (relative), integers and logicals exactly.
  interface expect_matches
    module procedure matches_r8_0, matches_r8_1, matches_r8_2, matches_r4_2, matches_i8_0, matches_i4_1, &
      matches_i4_2, matches_l_0, matches_l_1, matches_l_2
  end interface

contains

  ! Seeds random_number from SLUICE_TEST_SEED or the clock, and prints the seed.
  subroutine start_test(name)
    character(*), intent(in) :: name
    character(32) :: text
    integer :: n, i, length, status, seed
    integer(8) :: clock
    call get_environment_variable('SLUICE_TEST_SEED', text, length, status)
    if (status == 0) then
      read (text, *) seed
    else
      call system_clock(clock)
      seed = int(mod(clock, 2147483647_8))
    end if
    print '(a, a, i0)', name, ': SLUICE_TEST_SEED=', seed
    call random_seed(size=n)
    call random_seed(put=[(ieor(seed, 7919 * i), i=1, n)])
  end subroutine

  ! Stops with a failure status when any check failed.
  subroutine end_test(name)
    character(*), intent(in) :: name
    if (failures > 0) then
      print '(a, a, i0, a)', name, ': ', failures, ' failures'
      error stop 1
    end if
    print '(a, a)', name, ': all checks passed'
  end subroutine

  subroutine expect(condition, what)
    logical, intent(in) :: condition
    character(*), intent(in) :: what
    if (.not. condition) then
      failures = failures + 1
      print '(a, a)', 'FAILED: ', what
    end if
  end subroutine

  ! `stat` is `want` and the module's error message contains `needle`.
  subroutine expect_error(stat, want, needle, what)
    integer, intent(in) :: stat, want
    character(*), intent(in) :: needle, what
    if (stat /= want .or. index(error_message(), needle) == 0) then
      failures = failures + 1
      print '(a, a, a, i0, a, i0, a, a, a)', 'FAILED: ', what, ': status ', stat, ' (wanted ', want, &
        '), message "', error_message(), '"'
    end if
  end subroutine

  ! `n` uniform random numbers in [lo, hi).
  function uniform(n, lo, hi) result(x)
    integer, intent(in) :: n
    real(8), intent(in) :: lo, hi
    real(8) :: x(n)
    call random_number(x)
    x = lo + (hi - lo) * x
  end function

  subroutine close_r8_1(got, want, tol, what)
    real(8), intent(in) :: got(:), want(:)
    real(8), intent(in) :: tol
    character(*), intent(in) :: what
    integer :: i
    if (size(got) /= size(want)) then
      call expect(.false., what // ': sizes differ')
      return
    end if
    do i = 1, size(got)
      if (.not. abs(got(i) - want(i)) <= tol * max(abs(want(i)), 1d-300)) then
        failures = failures + 1
        print '(a, a, a, i0, a, es24.16, a, es24.16)', 'FAILED: ', what, ' at ', i, ': got ', got(i), &
          ', want ', want(i)
        return
      end if
    end do
  end subroutine

  subroutine close_r8_0(got, want, tol, what)
    real(8), intent(in) :: got, want
    real(8), intent(in) :: tol
    character(*), intent(in) :: what
    call close_r8_1([got], [want], tol, what)
  end subroutine

  subroutine equal_i8_1(got, want, what)
    integer(8), intent(in) :: got(:), want(:)
    character(*), intent(in) :: what
    integer :: i
    if (size(got) /= size(want)) then
      call expect(.false., what // ': sizes differ')
      return
    end if
    do i = 1, size(got)
      if (got(i) /= want(i)) then
        failures = failures + 1
        print '(a, a, a, i0, a, i0, a, i0)', 'FAILED: ', what, ' at ', i, ': got ', got(i), ', want ', want(i)
        return
      end if
    end do
  end subroutine

  subroutine equal_i8_0(got, want, what)
    integer(8), intent(in) :: got, want
    character(*), intent(in) :: what
    call equal_i8_1([got], [want], what)
  end subroutine

  subroutine equal_l_1(got, want, what)
    logical, intent(in) :: got(:), want(:)
    character(*), intent(in) :: what
    integer :: i
    if (size(got) /= size(want)) then
      call expect(.false., what // ': sizes differ')
      return
    end if
    do i = 1, size(got)
      if (got(i) .neqv. want(i)) then
        failures = failures + 1
        print '(a, a, a, i0, a, l1, a, l1)', 'FAILED: ', what, ' at ', i, ': got ', got(i), ', want ', want(i)
        return
      end if
    end do
  end subroutine

  subroutine matches_r8_0(a, want, tol, what)
    type(sl_array), intent(in) :: a
    real(8), intent(in) :: want, tol
    character(*), intent(in) :: what
    real(8) :: got
    got = a
    call close_r8_1([got], [want], tol, what)
  end subroutine

  subroutine matches_r8_1(a, want, tol, what)
    type(sl_array), intent(in) :: a
    real(8), intent(in) :: want(:), tol
    character(*), intent(in) :: what
    real(8) :: got(size(want))
    if (.not. same_shape(a, shape(want), what)) return
    got = a
    call close_r8_1(got, want, tol, what)
  end subroutine

  subroutine matches_r8_2(a, want, tol, what)
    type(sl_array), intent(in) :: a
    real(8), intent(in) :: want(:, :), tol
    character(*), intent(in) :: what
    real(8) :: got(size(want, 1), size(want, 2))
    if (.not. same_shape(a, shape(want), what)) return
    got = a
    call close_r8_1(pack(got, .true.), pack(want, .true.), tol, what)
  end subroutine

  subroutine matches_r4_2(a, want, tol, what)
    type(sl_array), intent(in) :: a
    real(4), intent(in) :: want(:, :)
    real(8), intent(in) :: tol
    character(*), intent(in) :: what
    real(4) :: got(size(want, 1), size(want, 2))
    if (.not. same_shape(a, shape(want), what)) return
    got = a
    call close_r8_1(real(pack(got, .true.), 8), real(pack(want, .true.), 8), tol, what)
  end subroutine

  subroutine matches_i8_0(a, want, what)
    type(sl_array), intent(in) :: a
    integer(8), intent(in) :: want
    character(*), intent(in) :: what
    integer(8) :: got
    got = a
    call equal_i8_1([got], [want], what)
  end subroutine

  subroutine matches_i4_1(a, want, what)
    type(sl_array), intent(in) :: a
    integer(4), intent(in) :: want(:)
    character(*), intent(in) :: what
    integer(4) :: got(size(want))
    if (.not. same_shape(a, shape(want), what)) return
    got = a
    call equal_i8_1(int(got, 8), int(want, 8), what)
  end subroutine

  subroutine matches_i4_2(a, want, what)
    type(sl_array), intent(in) :: a
    integer(4), intent(in) :: want(:, :)
    character(*), intent(in) :: what
    integer(4) :: got(size(want, 1), size(want, 2))
    if (.not. same_shape(a, shape(want), what)) return
    got = a
    call equal_i8_1(int(pack(got, .true.), 8), int(pack(want, .true.), 8), what)
  end subroutine

  subroutine matches_l_0(a, want, what)
    type(sl_array), intent(in) :: a
    logical, intent(in) :: want
    character(*), intent(in) :: what
    logical :: got
    got = a
    call equal_l_1([got], [want], what)
  end subroutine

  subroutine matches_l_1(a, want, what)
    type(sl_array), intent(in) :: a
    logical, intent(in) :: want(:)
    character(*), intent(in) :: what
    logical :: got(size(want))
    if (.not. same_shape(a, shape(want), what)) return
    got = a
    call equal_l_1(got, want, what)
  end subroutine

  subroutine matches_l_2(a, want, what)
    type(sl_array), intent(in) :: a
    logical, intent(in) :: want(:, :)
    character(*), intent(in) :: what
    logical :: got(size(want, 1), size(want, 2))
    if (.not. same_shape(a, shape(want), what)) return
    got = a
    call equal_l_1(pack(got, .true.), pack(want, .true.), what)
  end subroutine

  ! Whether `a` has the shape `want` (a failure otherwise).
  logical function same_shape(a, want, what)
    type(sl_array), intent(in) :: a
    integer, intent(in) :: want(:)
    character(*), intent(in) :: what
    associate (have => shape(a))
      same_shape = size(have) == size(want)
      if (same_shape) same_shape = all(have == want)
      if (.not. same_shape) then
        failures = failures + 1
        print '(a, a, a, *(i0, :, " "))', 'FAILED: ', what, ': shape ', have
      end if
    end associate
  end function

end module checks
