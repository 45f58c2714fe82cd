//! Capturing call sites: the application's return address of each API call (turned into
//! file:line by `ir::CallSite::location` when needed), or the site the application named
//! with `sl_set_call_site` (see `ir::site`).

/// The return address of the current (exported) function into its caller. Needs frame
/// pointers (`.cargo/config.toml` enables them; `build.rs` sets `sluice_frame_pointers`
/// only when they are on, and otherwise this returns 0).
#[inline(always)]
pub fn caller_pc() -> usize {
    #[cfg(all(sluice_frame_pointers, target_arch = "x86_64"))]
    {
        let fp: usize;
        // SAFETY: with frame pointers, rbp points at the saved caller rbp, followed by the
        // return address, for as long as the function runs.
        unsafe {
            std::arch::asm!("mov {}, rbp", out(reg) fp, options(nomem, nostack, preserves_flags));
            if fp == 0 { 0 } else { *(fp as *const usize).add(1) }
        }
    }
    #[cfg(all(sluice_frame_pointers, target_arch = "aarch64"))]
    {
        let fp: usize;
        // SAFETY: as above; x29 holds the frame record (saved x29, saved x30 = lr).
        unsafe {
            std::arch::asm!("mov {}, x29", out(reg) fp, options(nomem, nostack, preserves_flags));
            if fp == 0 { 0 } else { *(fp as *const usize).add(1) }
        }
    }
    #[cfg(not(all(sluice_frame_pointers, any(target_arch = "x86_64", target_arch = "aarch64"))))]
    {
        0
    }
}
