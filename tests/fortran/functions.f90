! Every generic function against the plain Fortran intrinsic (or a plain loop for Sluice's
! own) on random inputs. Tolerances (relative): element-wise math 1e-14 (Sluice's f64 kernels
! are within 4 ulp of glibc, docs in src/backend/cpu/math), 1e-6 for real(4); sums and
! products 1e-13 (another summation order); everything else exact.
program functions
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan, ieee_positive_inf, ieee_is_nan
  use sluice
  use checks
  implicit none
  integer, parameter :: m = 9, n = 7
  real(8), parameter :: math = 1d-14, summed = 1d-13
  real(8) :: x(m, n), y(m, n), unit(m, n)
  type(sl_array) :: a, b, u
  integer(8) :: live

  call start_test('functions')
  live = live_handles()
  x = reshape(uniform(m * n, -3d0, 3d0), [m, n])
  y = reshape(uniform(m * n, 0.5d0, 4d0), [m, n]) * merge(1, -1, x > 0)
  unit = reshape(uniform(m * n, -0.999d0, 0.999d0), [m, n])
  call scope_begin()
  a = sl_array(x)
  b = sl_array(y)
  u = sl_array(unit)
  call elementwise()
  call rounding_and_conversions()
  call two_arguments()
  call integer_bits()
  call reductions()
  call products()
  call rearrangements()
  call sluice_views()
  call gathers_and_interpolation()
  call creation()
  call scope_end()
  call expect(live_handles() == live, 'no handles left after the scope')
  call end_test('functions')

contains

  subroutine elementwise()
    real(8) :: p(m, n), q(m, n), special(6)
    real(4) :: x4(m, n)
    type(sl_array) :: pa, s
    p = abs(y)
    q = 1 + p
    pa = sl_array(p)
    call expect_matches(abs(a), abs(x), math, 'abs')
    call expect_matches(sqrt(pa), sqrt(p), math, 'sqrt')
    call expect_matches(exp(a), exp(x), math, 'exp')
    call expect_matches(log(pa), log(p), math, 'log')
    call expect_matches(log10(pa), log10(p), math, 'log10')
    call expect_matches(sin(a), sin(x), math, 'sin')
    call expect_matches(cos(a), cos(x), math, 'cos')
    call expect_matches(tan(u), tan(unit), math, 'tan')
    call expect_matches(asin(u), asin(unit), math, 'asin')
    call expect_matches(acos(u), acos(unit), math, 'acos')
    call expect_matches(atan(a), atan(x), math, 'atan')
    call expect_matches(sinh(a), sinh(x), math, 'sinh')
    call expect_matches(cosh(a), cosh(x), math, 'cosh')
    call expect_matches(tanh(a), tanh(x), math, 'tanh')
    call expect_matches(asinh(a), asinh(x), math, 'asinh')
    call expect_matches(acosh(sl_array(q)), acosh(q), math, 'acosh')
    call expect_matches(atanh(u), atanh(unit), math, 'atanh')
    call expect_matches(erf(a), erf(x), math, 'erf')
    call expect_matches(erfc(a), erfc(x), math, 'erfc')
    call expect_matches(erfinv(u), erfinv_reference(unit), math, 'erfinv')
    call expect_matches(log_gamma(pa), log_gamma(p), 1d-13, 'log_gamma (zeros at 1 and 2 inside)')
    call expect_matches(gamma(b), gamma(y), math, 'gamma')
    call expect_matches(rsqrt(pa), 1 / sqrt(p), math, 'rsqrt')
    call expect_matches(cbrt(pa), p ** (1d0 / 3), math, 'cbrt')
    call expect_matches(rcp(b), 1 / y, math, 'rcp')
    call expect_matches(exp2(a), 2 ** x, math, 'exp2')
    call expect_matches(expm1(pa), exp(p) - 1, math, 'expm1 (away from 0)')
    call expect_matches(log2(pa), log(p) / log(2d0), math, 'log2')
    call expect_matches(log1p(pa), log(1 + p), math, 'log1p')
    call expect_matches(signum(a), sign(1d0, x), 0d0, 'signum')
    x4 = real(x, 4)
    call expect_matches(sin(sl_array(x4)) * exp(sl_array(x4) / 4), sin(x4) * exp(x4 / 4), 1d-6, 'real(4) math')
    special = [1d0, ieee_value(1d0, ieee_quiet_nan), -2d0, ieee_value(1d0, ieee_positive_inf), 0d0, &
      -ieee_value(1d0, ieee_positive_inf)]
    s = sl_array(special)
    call expect_matches(is_nan(s), ieee_is_nan(special), 'is_nan')
    call expect_matches(is_inf(s), abs(special) > huge(1d0), 'is_inf')
  end subroutine

  ! The inverse error function (Fortran has none): bisection to where erfc (for |x| >= 1/2,
  ! whose 1 - |x| is exact) or erf crosses, then a Newton step.
  elemental real(8) function erfinv_reference(x) result(y)
    real(8), intent(in) :: x
    real(8) :: lo, hi, mid
    integer :: i
    lo = 0
    hi = 6
    do i = 1, 100
      mid = (lo + hi) / 2
      if (erf_gap(mid, abs(x)) > 0) then
        lo = mid
      else
        hi = mid
      end if
    end do
    y = (lo + hi) / 2
    y = sign(y + erf_gap(y, abs(x)) / (2 / sqrt(acos(-1d0)) * exp(-y * y)), x)
  end function

  ! Decreasing in y, zero where erf(y) = a.
  elemental real(8) function erf_gap(y, a)
    real(8), intent(in) :: y, a
    if (a >= 0.5d0) then
      erf_gap = erfc(y) - (1 - a)
    else
      erf_gap = a - erf(y)
    end if
  end function

  subroutine rounding_and_conversions()
    real(8) :: halves(m, n)
    type(sl_array) :: h
    integer(8) :: whole8(m, n)
    ! Halfway cases too: anint and nint round them away from zero.
    halves = anint(4 * x) / 2
    h = sl_array(halves)
    call expect_matches(aint(a), aint(x), 0d0, 'aint')
    call expect_matches(anint(h), anint(halves), 0d0, 'anint (halfway cases)')
    call expect_matches(floor(a), floor(x), 'floor')
    call expect_matches(ceiling(a), ceiling(x), 'ceiling')
    call expect_matches(nint(h), nint(halves), 'nint (halfway cases)')
    whole8 = floor(a, kind=8)
    call expect(all(whole8 == floor(x, kind=8)), 'floor(kind=8)')
    call expect_matches(int(a), int(x), 'int')
    call expect_matches(real(int(a)), real(real(int(x)), 8), 0d0, 'real of an integer array')
    call expect_matches(dble(real(a)), real(real(x), 8), 0d0, 'dble of real(4), rounded like real()')
    call expect_matches(real(a, 8), x, 0d0, 'real(a, 8)')
    call expect_matches(logical(int(a)), int(x) /= 0, 'logical: nonzero is true')
    whole8 = int(a, 8)
    call expect(all(whole8 == int(x, 8)), 'int(kind=8)')
  end subroutine

  subroutine two_arguments()
    call expect_matches(atan2(a, b), atan2(x, y), math, 'atan2')
    call expect_matches(hypot(a, b), hypot(x, y), math, 'hypot')
    call expect_matches(min(a, b), min(x, y), 0d0, 'min')
    call expect_matches(max(a, b), max(x, y), 0d0, 'max')
    call expect_matches(max(a, 0.5d0), max(x, 0.5d0), 0d0, 'max with a scalar')
    call expect_matches(min(a, 1), min(x, 1d0), 0d0, 'min with an integer scalar')
    call expect_matches(mod(a, b), mod(x, y), math, 'mod')
    call expect_matches(mod(a, 0.75d0), mod(x, 0.75d0), math, 'mod with a scalar')
    ! fma(x, y, -x*y) is the product's rounding error; quad precision holds the product
    ! exactly (its sum with c may round twice, by an ulp).
    call expect_matches(fma(a, b, -(a * b)), real(real(x, 16) * y - x * y, 8), 2.3d-16, 'fma')
  end subroutine

  subroutine integer_bits()
    integer(4) :: i(m, n), j(m, n)
    type(sl_array) :: ia, ja
    i = int(reshape(uniform(m * n, -1d9, 1d9), [m, n]))
    j = int(reshape(uniform(m * n, -1d9, 1d9), [m, n]))
    ia = sl_array(i)
    ja = sl_array(j)
    call expect_matches(iand(ia, ja), iand(i, j), 'iand')
    call expect_matches(ior(ia, ja), ior(i, j), 'ior')
    call expect_matches(ieor(ia, ja), ieor(i, j), 'ieor')
    call expect_matches(not(ia), not(i), 'not')
    call expect_matches(mod(ia, 1000), mod(i, 1000), 'integer mod')
    call expect_matches(abs(ia), abs(i), 'integer abs')
  end subroutine

  subroutine reductions()
    real(8) :: near1(m, n), running(m, n), total(m, n), centred(m, n), deviation(m)
    logical :: mask(m, n)
    type(sl_array) :: na, ma
    integer :: i, j
    near1 = reshape(uniform(m * n, 0.9d0, 1.1d0), [m, n])
    na = sl_array(near1)
    mask = x > 0.8d0
    ma = sl_array(mask)
    call expect_matches(sum(a), sum(x), summed * sum(abs(x)) / abs(sum(x)), 'sum')
    call expect_matches(sum(sl_array(abs(x)), dim=1), sum(abs(x), dim=1), summed, 'sum along 1')
    call expect_matches(sum(sl_array(abs(x)), 2), sum(abs(x), 2), summed, 'sum along 2')
    call expect_matches(product(na), product(near1), summed, 'product')
    call expect_matches(product(na, dim=2), product(near1, dim=2), summed, 'product along 2')
    call expect_matches(maxval(a), maxval(x), 0d0, 'maxval')
    call expect_matches(minval(a, dim=1), minval(x, dim=1), 0d0, 'minval along 1')
    call expect_matches(mean(na), sum(near1) / size(near1), summed, 'mean')
    call expect_matches(count(ma), int(count(mask), 8), 'count')
    call expect_matches(int(count(ma, dim=1)), count(mask, dim=1), 'count along 1')
    call expect_matches(any(ma), any(mask), 'any')
    call expect_matches(all(a > -3), all(x > -3), 'all')
    call expect_matches(any(ma, dim=2), any(mask, dim=2), 'any along 2')
    call expect_matches(all(ma, 1), all(mask, 1), 'all along 1')
    call expect_matches(int(minloc(a, dim=1)), minloc(x, dim=1), 'minloc along 1')
    call expect_matches(int(maxloc(a, dim=2)), maxloc(x, dim=2), 'maxloc along 2')
    do j = 1, n
      do i = 1, m
        running(i, j) = sum(near1(:i, j))
        total(i, j) = product(near1(i, :j))
      end do
    end do
    call expect_matches(cumsum(na, 1), running, summed, 'cumsum along 1')
    call expect_matches(cumprod(na, 2), total, summed, 'cumprod along 2')
    do j = 1, n
      do i = 1, m
        running(i, j) = maxval(near1(:i, j))
      end do
    end do
    call expect_matches(cummax(na, 1), running, 0d0, 'cummax along 1')
    call expect_matches(norm2(na), norm2(near1), summed, 'norm2')
    call expect_matches(norm2(na, dim=1), norm2(near1, dim=1), summed, 'norm2 along 1')
    centred = near1 - sum(near1) / size(near1)
    call expect_matches(variance(na, ddof=1), sum(centred**2) / (size(near1) - 1), summed, 'variance')
    do i = 1, m
      deviation(i) = sqrt(sum((near1(i, :) - sum(near1(i, :)) / n)**2) / n)
    end do
    call expect_matches(stddev(na, dim=2), deviation, summed, 'stddev along 2')
  end subroutine

  ! Tolerance: relative to the products' magnitudes (sums of |terms|).
  subroutine products()
    real(8) :: p(m, 4), v(m), w(n)
    type(sl_array) :: pa, va, wa
    p = reshape(uniform(4 * m, 0d0, 1d0), [m, 4])
    v = uniform(m, 0d0, 1d0)
    w = uniform(n, 0d0, 1d0)
    pa = sl_array(p)
    va = sl_array(v)
    wa = sl_array(w)
    call expect_matches(matmul(transpose(pa), pa), matmul(transpose(p), p), summed, 'matmul of matrices')
    call expect_matches(matmul(transpose(pa), va), matmul(transpose(p), v), summed, 'matrix x vector')
    call expect_matches(matmul(va, pa), matmul(v, p), summed, 'vector x matrix')
    call expect_matches(dot_product(va, va), dot_product(v, v), summed, 'dot_product')
    call expect_matches(matmul(sl_array(abs(x)), wa), matmul(abs(x), w), summed, 'matmul, 9 x 7 times 7')
  end subroutine

  subroutine rearrangements()
    real(8) :: v(m), spreadv(m, 3)
    logical :: mask(m, n)
    type(sl_array) :: va
    v = uniform(m, -1d0, 1d0)
    va = sl_array(v)
    mask = y > 0
    call expect_matches(transpose(a), transpose(x), 0d0, 'transpose')
    call expect_matches(reshape(a, [n, m]), reshape(x, [n, m]), 0d0, 'reshape')
    call expect_matches(cshift(a, 2), cshift(x, 2), 0d0, 'cshift')
    call expect_matches(cshift(a, -3, dim=2), cshift(x, -3, dim=2), 0d0, 'cshift along 2, backwards')
    call expect_matches(eoshift(a, 2), eoshift(x, 2), 0d0, 'eoshift')
    call expect_matches(eoshift(a, -1, boundary=7.5d0, dim=2), eoshift(x, -1, 7.5d0, 2), 0d0, 'eoshift boundary')
    spreadv = spread(v, 2, 3)
    call expect_matches(spread(va, 2, 3), spreadv, 0d0, 'spread along a new dimension 2')
    call expect_matches(spread(va, 1, 3), spread(v, 1, 3), 0d0, 'spread along a new dimension 1')
    call expect_matches(merge(a, b, sl_array(mask)), merge(x, y, mask), 0d0, 'merge')
    call expect_matches(merge(a, 0d0, b > 0), merge(x, 0d0, mask), 0d0, 'merge with a scalar')
    call expect_matches(merge(-1.5d0, a, b > 0), merge(-1.5d0, x, mask), 0d0, 'merge with a scalar tsource')
    call expect(all(shape(a) == shape(x)), 'shape')
    call expect(size(a) == size(x) .and. size(a, 2) == n, 'size')
  end subroutine

  subroutine sluice_views()
    real(8) :: x3(4, 3, 5), moved(5, 4, 3), padded(m + 1, n + 3), tiled(2 * m, n), joined(m, 2 * n)
    real(8) :: gathered(6), added(m, n)
    integer :: i, j, k, rows(6), cols(6)
    type(sl_array) :: t
    call expect_matches(section(a, [2, 1], [m, n], [3, 2]), x(2:m:3, 1:n:2), 0d0, 'section')
    call expect_matches(section(a, [m, 2], [1, 4], [-2, 1]), x(m:1:-2, 2:4), 0d0, 'section, backwards')
    call expect_matches(project(a, 2, 3), x(:, 3), 0d0, 'project column 3')
    call expect_matches(project(a, 1, m), x(m, :), 0d0, 'project row m')
    x3 = reshape(uniform(size(x3), -1d0, 1d0), shape(x3))
    do k = 1, 5
      do j = 1, 3
        do i = 1, 4
          moved(k, i, j) = x3(i, j, k)
        end do
      end do
    end do
    t = permute(sl_array(x3), [3, 1, 2])
    call expect(all(shape(t) == shape(moved)), 'permute shape')
    call expect_matches(reshape(t, [size(moved)]), reshape(moved, [size(moved)]), 0d0, 'permute')
    padded = 9.5d0
    padded(2:m + 1, 3:n + 2) = x
    call expect_matches(pad(a, [1, 2], [0, 1], fill=9.5d0), padded, 0d0, 'pad with a fill')
    padded(:, 1:2) = spread(padded(:, 3), 2, 2)
    padded(:, n + 3) = padded(:, n + 2)
    padded(1, :) = padded(2, :)
    call expect_matches(pad(a, [1, 2], [0, 1], boundary=SL_BOUNDARY_CLAMP), padded, 0d0, 'pad clamped')
    tiled(1:m, :) = x
    tiled(m + 1:, :) = x
    call expect_matches(tile(a, [2, 1]), tiled, 0d0, 'tile')
    call expect_matches(broadcast_to(section(a, [1, 1], [m, 1]), [m, n]), spread(x(:, 1), 2, n), 0d0, &
      'broadcast_to')
    joined(:, 1:n) = x
    joined(:, n + 1:) = y
    call expect_matches(concat([a, b], 2), joined, 0d0, 'concat')
    rows = 1 + int(uniform(6, 0d0, 1d0) * m)
    cols = 1 + int(uniform(6, 0d0, 1d0) * n)
    gathered = [(x(rows(i), cols(i)), i=1, 6)]
    call expect_matches(gather(a, [sl_array(rows), sl_array(cols)]), gathered, 0d0, 'gather (1-based)')
    ! Whole columns, x(:, cols): the 1-based iota, made 0-based again by gather, is copied by columns.
    call expect_matches(gather(a, [iota(SL_I32, [m, 1], 1), sl_array(reshape(cols, [1, 6]))]), x(:, cols), 0d0, &
      'gather of columns (1-based)')
    added = x
    do i = 1, 6
      added(rows(i), cols(i)) = added(rows(i), cols(i)) + gathered(i)
    end do
    call expect_matches(scatter(a, [sl_array(rows), sl_array(cols)], sl_array(gathered), SL_SCATTER_ADD), added, &
      math, 'scatter adding (1-based)')
  end subroutine

  ! Floored gathers at real 1-based indices (out of range on both sides) under the fill and
  ! wrap policies, interp1 down each column at 1-based positions, against plain loops; the
  ! error policy reports through stat where the result is read.
  subroutine gathers_and_interpolation()
    integer, parameter :: k = 30, p = 11
    real(8) :: ri(k), ci(k), filled(k), wrapped(k), pos(p, n), traced(p, n), w, got(k)
    integer :: i, j, r, c, status
    type(sl_array) :: bad
    ri = uniform(k, -3d0, dble(m + 4))
    ci = uniform(k, -3d0, dble(n + 4))
    do i = 1, k
      r = floor(ri(i))
      c = floor(ci(i))
      filled(i) = -2.5d0
      if (r >= 1 .and. r <= m .and. c >= 1 .and. c <= n) filled(i) = x(r, c)
      wrapped(i) = x(modulo(r - 1, m) + 1, modulo(c - 1, n) + 1)
    end do
    call expect_matches(gather(a, [sl_array(ri), sl_array(ci)], policy=SL_INDEX_FILL, fill=-2.5d0), filled, 0d0, &
      'floored gather, fill (1-based)')
    call expect_matches(gather(a, [sl_array(ri), sl_array(ci)], policy=SL_INDEX_WRAP), wrapped, 0d0, &
      'floored gather, wrap (1-based)')
    pos = reshape(uniform(p * n, 0d0, dble(m + 2)), [p, n])
    do j = 1, n
      do i = 1, p
        r = min(max(floor(pos(i, j)), 1), m)
        w = pos(i, j) - floor(pos(i, j))
        traced(i, j) = x(r, j) + w * (x(min(max(floor(pos(i, j)) + 1, 1), m), j) - x(r, j))
        if (pos(i, j) < 1) traced(i, j) = x(1, j)
      end do
    end do
    call expect_matches(interp1(a, sl_array(pos), 1), traced, math, 'interp1 down the columns (1-based)')
    bad = gather(a, [sl_array(ri), sl_array(ci)], policy=SL_INDEX_ERROR)
    call get(bad, got, stat=status)
    call expect(status == SL_ERR_POISONED, 'an index out of range under SL_INDEX_ERROR poisons the result')
    call expect(index(error_message(), 'out of range for the source') > 0, 'the message names the bad index')
  end subroutine

  subroutine creation()
    real(8) :: eye(3, 4), filled(3, 4)
    integer(4) :: index2(4, 3)
    integer :: i, j
    eye = reshape([((merge(1d0, 0d0, i == j), i=1, 3), j=1, 4)], [3, 4])
    index2 = reshape([((j, i=1, 4), j=1, 3)], [4, 3])
    filled = 2.5d0
    call expect_matches(identity(SL_F64, 3, 4), eye, 0d0, 'identity')
    call expect_matches(iota(SL_I32, [4, 3], 2), index2, 'iota (1-based)')
    call expect_matches(constant(SL_F64, [3, 4], 2.5d0), filled, 0d0, 'constant')
  end subroutine

end program functions
