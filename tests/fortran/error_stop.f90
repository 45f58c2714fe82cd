! An operator has no `stat`: given arrays that do not broadcast, it prints the message and
! stops the program (expect_error_stop.cmake checks the exit status and the message).
program error_stop
  use sluice
  implicit none
  real(8) :: x(3, 4), y(4)
  type(sl_array) :: a, b, c
  call random_number(x)
  call random_number(y)
  a = sl_array(x)
  b = sl_array(y)
  c = a + b
  print *, 'not reached: the sum has handle', c%handle
end program error_stop
