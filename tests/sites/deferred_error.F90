! An op whose computation fails when it runs (out of memory under the SLUICE_MEMORY_LIMIT
! the test sets) is reported at the read that needs it with this file's lines: the line
! that made the failing op, and the line of the read. Not the module's, which the
! application compiles on its own. (Preprocessed, for __LINE__. The sum is made in the
! call: gfortran 12 gives a `call get(total, ...)` right after an assignment the line of
! the program statement.)
program deferred_error
  use sluice
  implicit none
  type(sl_array) :: big, y
  real(4) :: value
  real(8) :: offset
  integer :: stat, origin_line, read_line
  character(len=64) :: origin_at, read_at
  logical :: ok

  call random_number(offset)
  ! 2^26 f32 (256 MiB) to store: over the limit, known only when the kernel runs.
  big = constant(SL_F32, [2**26], 1d0)
  origin_line = __LINE__ + 1
  y = big + (1 + offset)
  call eval([y])
  read_line = __LINE__ + 1
  call get(sum(y), value, stat)

  write (origin_at, '(a, i0, a)') 'deferred_error.F90:', origin_line, ']'
  write (read_at, '(a, i0)') 'deferred_error.F90:', read_line
  ok = stat == SL_ERR_POISONED
  ok = ok .and. index(error_message(), trim(origin_at)) > 0
  ok = ok .and. index(error_message(), trim(read_at), back=.true.) == len(error_message()) - len_trim(read_at) + 1
  ok = ok .and. index(error_message(), 'sluice.f90') == 0
  if (.not. ok) then
    print '(a, i0, 5a)', 'deferred_error (Fortran): FAILED: status ', stat, ', wanted the failing op at ', &
      trim(origin_at), ' and the read at ', trim(read_at), ' in: ' // error_message()
    error stop 1
  end if
  print '(a)', 'deferred_error (Fortran): ok'
end program
