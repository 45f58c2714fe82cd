! OpenMP threads using Sluice at once: each computes in its own scopes (scopes are per
! thread) and meets its own error, whose message it reads back (per thread under OpenMP).
program threads
  use omp_lib, only: omp_get_thread_num
  use sluice
  use checks
  implicit none
  integer, parameter :: n = 1000, workers = 4, rounds = 20
  real(8) :: x(n, workers)
  integer :: wrong, t, round, stat
  real(8) :: total
  type(sl_array) :: a, r
  integer(8) :: live

  call start_test('threads')
  call random_number(x)
  live = live_handles()
  wrong = 0
  !$omp parallel num_threads(workers) private(t, round, stat, total, a, r) reduction(+:wrong)
  t = omp_get_thread_num() + 1
  do round = 1, rounds
    call scope_begin()
    a = sl_array(x(:, t))
    total = sum(a * a + t * round)
    if (abs(total - sum(x(:, t) ** 2 + t * round)) > 1d-12 * n * (1 + t * round)) wrong = wrong + 1
    r = sqrt(sl_array([t, round]), stat=stat)
    if (stat /= SL_ERR_DTYPE_MISMATCH .or. index(error_message(), 'not defined for i32') == 0) wrong = wrong + 1
    r = sum(a, dim=t + 1, stat=stat)
    if (stat /= SL_ERR_INVALID_ARGUMENT .or. index(error_message(), 'out of range') == 0) wrong = wrong + 1
    call scope_end()
  end do
  !$omp end parallel
  call expect(wrong == 0, 'every thread computed right and saw its own errors')
  call expect(live_handles() == live, 'every thread''s scopes released their arrays')
  call end_test('threads')
end program threads
