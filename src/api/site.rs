//! Capturing call sites: the site the application named with `sl_set_call_site`, else the
//! return address of the API call, with its callers' up to the application's when the call
//! came through a language layer (see `unwind`), interned by `ir::site` and turned into
//! file:line by `ir::CallSite::locate` when needed.

use crate::ir::site;

/// The `CallSite::pc` of the API call running now. Needs frame pointers in Sluice's own
/// code (`.cargo/config.toml` enables them; `build.rs` sets `sluice_frame_pointers` only
/// when they are on, and otherwise this returns 0): the exported function's frame pointer
/// is where unwinding starts.
#[inline(always)]
pub fn capture() -> usize {
    let explicit = site::explicit_site();
    if explicit != 0 {
        return explicit;
    }
    #[cfg(all(sluice_frame_pointers, target_arch = "x86_64"))]
    {
        let fp: usize;
        // SAFETY: reads a register.
        unsafe { std::arch::asm!("mov {}, rbp", out(reg) fp, options(nomem, nostack, preserves_flags)) };
        if fp == 0 { 0 } else { super::unwind::call_site(fp) }
    }
    // Elsewhere only the caller's return address is kept (a call through a layer that is
    // not inlined is reported at the layer's line): x29 holds the frame record (saved x29,
    // saved x30 = lr).
    #[cfg(all(sluice_frame_pointers, target_arch = "aarch64"))]
    {
        let fp: usize;
        // SAFETY: as above; the frame record lives as long as the function runs.
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
