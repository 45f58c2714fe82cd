! Fourier transforms from Fortran: a circular convolution of two complex(8) images by
! fft, product and ifft, checked against the direct sum; a real signal's rfft and irfft
! round trip; an output length that does not match is refused with a status.
program fourier
  use sluice
  use checks
  implicit none
  integer, parameter :: m = 20, n = 15
  complex(8) :: x(m, n), k(m, n), got(m, n), want(m, n)
  real(8) :: s(33), back(33)
  type(sl_array) :: a, b, c, h
  integer :: i, j, p, q, stat

  call start_test('fft')
  call scope_begin()
  x = cmplx(reshape(uniform(m * n, -1d0, 1d0), [m, n]), reshape(uniform(m * n, -1d0, 1d0), [m, n]), 8)
  k = cmplx(reshape(uniform(m * n, -1d0, 1d0), [m, n]), reshape(uniform(m * n, -1d0, 1d0), [m, n]), 8)
  a = sl_array(x)
  b = sl_array(k)
  got = ifft(fft(a, [1, 2]) * fft(b, [2, 1]), [1, 2])
  do j = 1, n
    do i = 1, m
      want(i, j) = 0
      do q = 1, n
        do p = 1, m
          want(i, j) = want(i, j) + x(p, q) * k(modulo(i - p, m) + 1, modulo(j - q, n) + 1)
        end do
      end do
    end do
  end do
  ! Relative RMS error within 8 eps log2(m n).
  call expect(sqrt(sum(abs(got - want)**2) / sum(abs(want)**2)) <= 8 * epsilon(1d0) * log(real(m * n, 8)) / log(2d0), &
    'convolution by fft')

  s = uniform(33, -1d0, 1d0)
  h = rfft(sl_array(s), [1], SL_FFT_ORTHO)
  back = irfft(h, [1], 33, SL_FFT_ORTHO)
  call expect(maxval(abs(back - s)) <= 1d-14, 'irfft(rfft(s))')
  c = irfft(h, [1], 30, stat=stat)
  call expect_error(stat, SL_ERR_SHAPE_MISMATCH, 'n = 30', 'irfft with the wrong length')
  call scope_end()
  call end_test('fft')
end program fourier
