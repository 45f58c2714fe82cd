! The same program as same.c, with the Fortran module. Usage: same_f90 <seed>
program same
  use sluice
  implicit none
  character(len=32) :: arg
  integer(8) :: seed
  type(sl_rng) :: rng
  type(sl_array) :: a, b, c, col
  real(8) :: cols(200), total, c11(1, 1)

  call get_command_argument(1, arg)
  read (arg, *) seed
  call scope_begin()
  rng = rng_create(seed)
  a = random_uniform(rng, SL_F64, [200, 3])
  b = random_normal(rng, SL_F64, [3, 200])
  c = matmul(a, b)
  col = sum(sin(c) * exp(-abs(c)), dim=1)
  cols = col
  total = sum(col)
  c11 = section(c * 0.5d0, [1, 1], [1, 1])
  print '(a, i0)', 'total ', transfer(total, 0_8)
  print '(a, i0)', 'column1 ', transfer(cols(1), 0_8)
  print '(a, i0)', 'column100 ', transfer(cols(100), 0_8)
  print '(a, i0)', 'column200 ', transfer(cols(200), 0_8)
  print '(a, i0)', 'half_c11 ', transfer(c11(1, 1), 0_8)
  call scope_end()
  call rng_destroy(rng)
end program same
