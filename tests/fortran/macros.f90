! Code reuse sections from Fortran: a loop whose step is a macro gives what plain Fortran
! gives, records the step once and replays it after (the macro cache's counters say so);
! new shapes and control values record again; reads inside a recording are refused, and a
! cancelled recording caches nothing; no handles are left.
program macros
  use, intrinsic :: iso_c_binding, only: c_int
  use sluice
  use checks
  implicit none
  integer, parameter :: n = 300, steps = 30
  real(8) :: x(n)
  integer(8) :: live

  call start_test('macros')
  x = uniform(n, -1d0, 1d0)
  live = live_handles()
  call smoothing_loop()
  call controls_choose_the_recording()
  call refused_and_cancelled()
  call expect(live_handles() == live, 'no handles left')
  call end_test('macros')

contains

  subroutine smoothing_loop()
    real(8) :: plain(n), back(n), total
    type(sl_array) :: u, half, out(2)
    type(sl_cache_stats) :: before, after
    integer :: i, records
    call expect(sl_get_cache_stats(SL_CACHE_MACRO, before) == SL_OK, 'sl_get_cache_stats')
    plain = x
    u = sl_array(x)
    records = 0
    do i = 1, steps
      call scope_begin()
      if (macro_begin('smooth', [u], out)) then
        records = records + 1
        out(1) = 0.5d0 * u + 0.25d0 * (cshift(u, 1) + cshift(u, -1))
        out(2) = sum(abs(out(1)))
        call macro_end(out)
      end if
      call update(u, out(1))
      total = out(2)
      call scope_end()
      plain = 0.5d0 * plain + 0.25d0 * (cshift(plain, 1) + cshift(plain, -1))
      call expect_close(total, sum(abs(plain)), 1d-13, 'the second output, step by step')
    end do
    back = u
    call expect_close(back, plain, 1d-13, 'the smoothed array after the loop')
    call expect(records == 1, 'the body ran once')
    call expect(sl_get_cache_stats(SL_CACHE_MACRO, after) == SL_OK, 'sl_get_cache_stats')
    call expect(after%lookups - before%lookups == steps .and. after%hits - before%hits == steps - 1, &
      'one recording, then replays')

    ! Another shape is another recording.
    call scope_begin()
    half = sl_array(x(:n / 2))
    call expect(macro_begin('smooth', [half], out), 'a new shape records again')
    out(1) = 0.5d0 * half
    out(2) = sum(half)
    call macro_end(out)
    call scope_end()
    call release(u)
  end subroutine

  ! The body's Fortran control flow depends on `c`: each value is its own recording.
  subroutine controls_choose_the_recording()
    real(8) :: plain(n), back(n)
    type(sl_array) :: u, out(1)
    integer :: i, c, records
    plain = x
    u = sl_array(x)
    records = 0
    do i = 1, 8
      c = mod(i, 2)
      call scope_begin()
      if (macro_begin('scale', [u], out, controls=[real(c, 8)])) then
        records = records + 1
        if (c == 1) then
          out(1) = u + 1
        else
          out(1) = u * 0.5d0
        end if
        call macro_end(out)
      end if
      call update(u, out(1))
      call scope_end()
      plain = merge(plain + 1, plain * 0.5d0, c == 1)
    end do
    back = u
    call expect_close(back, plain, 1d-15, 'alternating sections')
    call expect(records == 2, 'one recording per control value')
    call release(u)
  end subroutine

  subroutine refused_and_cancelled()
    type(sl_array) :: u, out(1)
    real(8) :: back(n)
    integer :: stat
    logical :: recorded
    u = sl_array(x)
    call scope_begin()
    if (macro_begin('refused', [u], out)) then
      out(1) = exp(u)
      call get(out(1), back, stat)
      call expect_error(stat, SL_ERR_INVALID_STATE, 'while macro ''refused'' is recording', 'a read inside')
      call macro_cancel()
    end if
    call scope_end()
    call scope_begin()
    recorded = macro_begin('refused', [u], out)
    call expect(recorded, 'a cancelled section records again')
    if (recorded) then
      out(1) = exp(u)
      call macro_end(out)
    end if
    back = out(1)
    call expect_close(back, exp(x), 1d-14, 'the section after the cancelled one')
    call scope_end()
    call macro_end([u], stat)
    call expect_error(stat, SL_ERR_INVALID_STATE, 'without an open', 'macro_end without a section')

    ! A body may only read its inputs and what it computes.
    call scope_begin()
    if (macro_begin('outsider', [sl_array(x)], out)) then
      out(1) = u * 2
      call macro_end(out, stat)
      call expect_error(stat, SL_ERR_INVALID_ARGUMENT, 'neither an input of the section', 'a body reading a non-input')
    end if
    call scope_end()
    call release(u)
  end subroutine

end program macros
