//! Call sites: the application's return address of each API call, captured cheaply on
//! every call and turned into file:line only when an error is reported.

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

/// Source file and line of a return address, if the code there has debug information.
pub fn symbolize(pc: usize) -> Option<(String, u32)> {
    if pc == 0 {
        return None;
    }
    let mut found = None;
    // The return address follows the call; look up the call instruction itself.
    backtrace::resolve((pc - 1) as *mut std::ffi::c_void, |sym| {
        if found.is_none()
            && let (Some(file), Some(line)) = (sym.filename(), sym.lineno())
        {
            found = Some((file.display().to_string(), line));
        }
    });
    found
}
