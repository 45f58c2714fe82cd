! Complex and Fourier work, profiled by check_sites.py: every row of the profile must name a
! line of this file. A complex(8) signal is turned in frequency space (fft, a complex
! product, conjg, ifft, abs) and a real one goes through rfft and irfft; the round trip is
! checked against the input, the turn against Parseval's theorem.
program spectral
  use sluice
  implicit none
  integer, parameter :: n = 4096
  real(8) :: re(n), im(n), r(n), got(n), energy, spectral_energy, want
  type(sl_array) :: signal, spectrum, back, twice
  logical :: ok

  call random_number(re)
  call random_number(im)
  call random_number(r)
  signal = sl_array(cmplx(re - 0.5d0, im - 0.5d0, 8))
  spectrum = fft(signal, [1])
  back = ifft(conjg(spectrum * cmplx(0.6d0, 0.8d0, 8)), [1])
  ! A unit factor and conjg keep |X|; Parseval: sum |X|^2 = n sum |x|^2.
  energy = sum(abs(back) * abs(back))
  spectral_energy = sum(abs(spectrum) * abs(spectrum))
  twice = irfft(rfft(sl_array(r), [1]) * 2d0, [1], n)
  got = twice

  want = sum((re - 0.5d0)**2 + (im - 0.5d0)**2)
  ok = abs(energy - want) <= 1d-10 * want .and. abs(spectral_energy - n * want) <= 1d-10 * n * want
  ok = ok .and. maxval(abs(got - 2 * r)) <= 1d-12
  if (.not. ok) then
    print '(a, 3es12.4)', 'spectral (Fortran): FAILED', energy, want, maxval(abs(got - 2 * r))
    stop 1
  end if
  print '(a)', 'spectral (Fortran): ok'
end program spectral
