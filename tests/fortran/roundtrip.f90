! Fortran arrays into Sluice and back: every type (real(4), real(8), integer(1), integer(2),
! integer(4), integer(8), logical; f16 and bf16 through real(4)) and rank 0 to 4, through
! sl_array(x), `y = a` and `call get(a, y)`; non-contiguous sections in and out; conversion
! to the variable's type on reading.
program roundtrip
  use sluice
  use checks
  implicit none
  integer(8) :: live

  call start_test('roundtrip')
  live = live_handles()
  call scope_begin()
  call reals8()
  call reals4()
  call integers4()
  call integers8()
  call integers1()
  call integers2()
  call logicals()
  call halves()
  call sections()
  call conversions()
  call scope_end()
  call expect(live_handles() == live, 'the scope released every array')
  call end_test('roundtrip')

contains

  subroutine reals8()
    real(8) :: v(120), s, x1(7), x2(5, 4), x3(4, 3, 5), x4(3, 2, 4, 5)
    real(8) :: t, y1(7), y2(5, 4), y3(4, 3, 5), y4(3, 2, 4, 5)
    integer :: stat
    v = uniform(size(v), -1d3, 1d3)
    s = v(1)
    x1 = v(:7)
    x2 = reshape(v, shape(x2))
    x3 = reshape(v, shape(x3))
    x4 = reshape(v, shape(x4))
    t = sl_array(s)
    y1 = sl_array(x1)
    y2 = sl_array(x2)
    call get(sl_array(x3), y3, stat)
    call expect(stat == SL_OK, 'get succeeds')
    call get(sl_array(x4), y4)
    call expect(t == s .and. all(y1 == x1) .and. all(y2 == x2) .and. all(y3 == x3) .and. all(y4 == x4), &
      'real(8) ranks 0-4 come back unchanged')
    call expect(size(shape(sl_array(s))) == 0 .and. all(shape(sl_array(x4)) == shape(x4)), 'real(8) shapes')
  end subroutine

  subroutine reals4()
    real(4) :: v(120), s, x1(7), x2(5, 4), x3(4, 3, 5), x4(3, 2, 4, 5)
    real(4) :: t, y1(7), y2(5, 4), y3(4, 3, 5), y4(3, 2, 4, 5)
    v = real(uniform(size(v), -1d3, 1d3), 4)
    s = v(1)
    x1 = v(:7)
    x2 = reshape(v, shape(x2))
    x3 = reshape(v, shape(x3))
    x4 = reshape(v, shape(x4))
    t = sl_array(s)
    y1 = sl_array(x1)
    y2 = sl_array(x2)
    y3 = sl_array(x3)
    y4 = sl_array(x4)
    call expect(t == s .and. all(y1 == x1) .and. all(y2 == x2) .and. all(y3 == x3) .and. all(y4 == x4), &
      'real(4) ranks 0-4 come back unchanged')
    call expect(all(shape(sl_array(x3)) == shape(x3)), 'real(4) shape')
  end subroutine

  subroutine integers4()
    integer(4) :: v(120), s, x1(7), x2(5, 4), x3(4, 3, 5), x4(3, 2, 4, 5)
    integer(4) :: t, y1(7), y2(5, 4), y3(4, 3, 5), y4(3, 2, 4, 5)
    v = int(uniform(size(v), -2d9, 2d9), 4)
    s = v(1)
    x1 = v(:7)
    x2 = reshape(v, shape(x2))
    x3 = reshape(v, shape(x3))
    x4 = reshape(v, shape(x4))
    t = sl_array(s)
    y1 = sl_array(x1)
    y2 = sl_array(x2)
    y3 = sl_array(x3)
    y4 = sl_array(x4)
    call expect(t == s .and. all(y1 == x1) .and. all(y2 == x2) .and. all(y3 == x3) .and. all(y4 == x4), &
      'integer(4) ranks 0-4 come back unchanged')
    call expect(all(shape(sl_array(x2)) == shape(x2)), 'integer(4) shape')
  end subroutine

  subroutine integers8()
    integer(8) :: v(120), s, x1(7), x2(5, 4), x3(4, 3, 5), x4(3, 2, 4, 5)
    integer(8) :: t, y1(7), y2(5, 4), y3(4, 3, 5), y4(3, 2, 4, 5)
    ! Values beyond 2^53 check that no double sits in between.
    v = int(uniform(size(v), -4d18, 4d18), 8) + 1
    s = v(1)
    x1 = v(:7)
    x2 = reshape(v, shape(x2))
    x3 = reshape(v, shape(x3))
    x4 = reshape(v, shape(x4))
    t = sl_array(s)
    y1 = sl_array(x1)
    y2 = sl_array(x2)
    y3 = sl_array(x3)
    y4 = sl_array(x4)
    call expect(t == s .and. all(y1 == x1) .and. all(y2 == x2) .and. all(y3 == x3) .and. all(y4 == x4), &
      'integer(8) ranks 0-4 come back unchanged')
    call expect(all(shape(sl_array(x1)) == shape(x1)), 'integer(8) shape')
  end subroutine

  subroutine integers1()
    integer(1) :: v(120), s, x1(7), x2(5, 4), x3(4, 3, 5), x4(3, 2, 4, 5)
    integer(1) :: t, y1(7), y2(5, 4), y3(4, 3, 5), y4(3, 2, 4, 5), twice(7)
    integer(8) :: total
    ! The whole range, its ends included.
    v = int(uniform(size(v), -2d0**(8*1-1), 2d0**(8*1-1) - 1), 1)
    v(1:2) = [-huge(s) - 1_1, huge(s)]
    s = v(1)
    x1 = v(:7)
    x2 = reshape(v, shape(x2))
    x3 = reshape(v, shape(x3))
    x4 = reshape(v, shape(x4))
    t = sl_array(s)
    y1 = sl_array(x1)
    y2 = sl_array(x2)
    y3 = sl_array(x3)
    y4 = sl_array(x4)
    call expect(t == s .and. all(y1 == x1) .and. all(y2 == x2) .and. all(y3 == x3) .and. all(y4 == x4), &
      'integer(1) ranks 0-4 come back unchanged')
    call expect(all(shape(sl_array(x4)) == shape(x4)), 'integer(1) shape')
    ! Sums wrap around in the type (computed here in integer(8)); totals are integer(8).
    twice = sl_array(x1) + sl_array(x1)
    call expect(all(twice == int(modulo(2 * int(x1, 8) + 2_8**(8*1-1), 2_8**(8*1)) - 2_8**(8*1-1), 1)), &
      'integer(1) sums wrap around')
    total = sum(sl_array(v))
    call expect(total == sum(int(v, 8)), 'the sum of integer(1) values is an integer(8)')
    y1 = int(sl_array(int(x1, 8)), 1)
    call expect(all(y1 == x1), 'int(a, 1) converts to integer(1)')
  end subroutine

  subroutine integers2()
    integer(2) :: v(120), s, x1(7), x2(5, 4), x3(4, 3, 5), x4(3, 2, 4, 5)
    integer(2) :: t, y1(7), y2(5, 4), y3(4, 3, 5), y4(3, 2, 4, 5), twice(7)
    integer(8) :: total
    ! The whole range, its ends included.
    v = int(uniform(size(v), -2d0**(8*2-1), 2d0**(8*2-1) - 1), 2)
    v(1:2) = [-huge(s) - 1_2, huge(s)]
    s = v(1)
    x1 = v(:7)
    x2 = reshape(v, shape(x2))
    x3 = reshape(v, shape(x3))
    x4 = reshape(v, shape(x4))
    t = sl_array(s)
    y1 = sl_array(x1)
    y2 = sl_array(x2)
    y3 = sl_array(x3)
    y4 = sl_array(x4)
    call expect(t == s .and. all(y1 == x1) .and. all(y2 == x2) .and. all(y3 == x3) .and. all(y4 == x4), &
      'integer(2) ranks 0-4 come back unchanged')
    call expect(all(shape(sl_array(x4)) == shape(x4)), 'integer(2) shape')
    ! Sums wrap around in the type (computed here in integer(8)); totals are integer(8).
    twice = sl_array(x1) + sl_array(x1)
    call expect(all(twice == int(modulo(2 * int(x1, 8) + 2_8**(8*2-1), 2_8**(8*2)) - 2_8**(8*2-1), 2)), &
      'integer(2) sums wrap around')
    total = sum(sl_array(v))
    call expect(total == sum(int(v, 8)), 'the sum of integer(2) values is an integer(8)')
    y1 = int(sl_array(int(x1, 8)), 2)
    call expect(all(y1 == x1), 'int(a, 2) converts to integer(2)')
  end subroutine

  ! f16 and bf16 have no Fortran kind in gfortran: made by converting real(4) arrays, read
  ! back through real(a) (real(4)).
  subroutine halves()
    real(4) :: x(1001), y(1001)
    type(sl_array) :: a, b
    integer(4) :: t
    ! Multiples of 1/8 below 16 in magnitude (7 significant bits): exact in both types.
    x = real(nint(uniform(size(x), -127d0, 127d0)), 4) / 8
    a = real(sl_array(x), kind=2)
    call expect(sl_get_dtype(a%handle, t) == SL_OK .and. t == SL_F16, 'real(a, kind=2) is f16')
    y = real(a)
    call expect(all(y == x), 'f16 values come back unchanged')
    ! bf16 through the raw C API (a handle this scope does not hold: released here).
    call expect(sl_cast(a%handle, SL_BF16, b%handle) == SL_OK, 'sl_cast to bf16')
    call expect(sl_get_dtype(b%handle, t) == SL_OK .and. t == SL_BF16, 'sl_cast gives bf16')
    y = real(b + b)
    call expect(all(y == 2 * x), 'bf16 values, doubled, come back')
    call expect(sl_release(b%handle) == SL_OK, 'sl_release')
    ! Rounded to nearest even on conversion: 1 + 2**-12 is 1 in f16, 2049 is 2048.
    y(:2) = real(real(sl_array([1 + 2.0**(-12), 2049.0]), kind=2))
    call expect(y(1) == 1 .and. y(2) == 2048, 'f16 rounds to nearest even')
  end subroutine

  subroutine logicals()
    logical :: v(120), s, x1(7), x2(5, 4), x3(4, 3, 5), x4(3, 2, 4, 5)
    logical :: t, y1(7), y2(5, 4), y3(4, 3, 5), y4(3, 2, 4, 5)
    v = uniform(size(v), 0d0, 1d0) > 0.5d0
    s = v(1)
    x1 = v(:7)
    x2 = reshape(v, shape(x2))
    x3 = reshape(v, shape(x3))
    x4 = reshape(v, shape(x4))
    t = sl_array(s)
    y1 = sl_array(x1)
    y2 = sl_array(x2)
    y3 = sl_array(x3)
    y4 = sl_array(x4)
    call expect((t .eqv. s) .and. all(y1 .eqv. x1) .and. all(y2 .eqv. x2) .and. all(y3 .eqv. x3) .and. &
      all(y4 .eqv. x4), 'logical ranks 0-4 come back unchanged')
    call expect(all(shape(sl_array(x4)) == shape(x4)), 'logical shape')
  end subroutine

  ! Strided sections in, and reads into sections that leave the rest of the variable alone.
  subroutine sections()
    real(8) :: x(6, 5, 4, 3), y(6, 5, 4, 3), part(3, 5, 2, 2)
    integer(4) :: k(9, 8), back(3, 4)
    logical :: flags(10), got(5)
    type(sl_array) :: a
    x = reshape(uniform(size(x), -1d0, 1d0), shape(x))
    a = sl_array(x(1:6:2, :, 4:1:-2, ::2))
    part = a
    call expect(all(part == x(1:6:2, :, 4:1:-2, ::2)), 'a strided, reversed section goes in')
    y = 0
    y(2:6:2, :, 1:2, 2:3) = a
    call expect(all(y(2:6:2, :, 1:2, 2:3) == part), 'a read into a section')
    call expect(count(y /= 0) == size(part), 'the rest of the variable is untouched')

    k = int(reshape(uniform(size(k), -1d6, 1d6), shape(k)))
    back = sl_array(k(2:9:3, 1:8:2))
    call expect(all(back == k(2:9:3, 1:8:2)), 'an integer section goes in')

    flags = uniform(size(flags), 0d0, 1d0) > 0.5d0
    got = sl_array(flags(10:1:-2))
    call expect(all(got .eqv. flags(10:1:-2)), 'a reversed logical section goes in')
  end subroutine

  ! Reading converts to the variable's type as Fortran's assignment would.
  subroutine conversions()
    real(8) :: x(4, 3), as8(4, 3), one
    real(4) :: as4(4, 3)
    integer(4) :: i(4, 3), as_int(4, 3), flags_as_int(4, 3)
    integer(8) :: as8i(4, 3)
    logical :: mask(4, 3)
    x = reshape(uniform(size(x), -1d4, 1d4), shape(x))
    i = int(x)
    mask = x > 0
    as4 = sl_array(x)
    call expect(all(as4 == real(x, 4)), 'real(8) read into real(4) rounds like real()')
    as8 = sl_array(i)
    call expect(all(as8 == real(i, 8)), 'integer(4) read into real(8)')
    as_int = sl_array(x)
    call expect(all(as_int == int(x)), 'real(8) read into integer truncates like int()')
    as8i = sl_array(i)
    call expect(all(as8i == int(i, 8)), 'integer(4) read into integer(8)')
    flags_as_int = sl_array(mask)
    call expect(all(flags_as_int == merge(1, 0, mask)), 'logical read into integer gives 0 and 1')
    one = sl_array(x(2:2, 3:3))
    call expect(one == x(2, 3), 'a one-element array read into a scalar')
  end subroutine

end program roundtrip
