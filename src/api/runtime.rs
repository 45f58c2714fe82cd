//! Version, start-up and shutdown, settings, errors and handlers.

use std::ffi::c_void;
use std::os::raw::c_char;

use super::error::{self, boundary};
use super::types::*;
use crate::config::{Backend, Config};
use crate::exec::DeviceKind;
use crate::front::runtime;
use crate::ir::bail;

pub const SL_VERSION_MAJOR: i32 = 0;
pub const SL_VERSION_MINOR: i32 = 1;
pub const SL_VERSION_PATCH: i32 = 0;

/// The library's version (compare with the `SL_VERSION_*` macros the application was
/// compiled against). Any pointer may be NULL.
#[unsafe(no_mangle)]
pub extern "C" fn sl_version(major: *mut i32, minor: *mut i32, patch: *mut i32) -> sl_status {
    boundary!("sl_version", |_site| {
        for (p, v) in [(major, SL_VERSION_MAJOR), (minor, SL_VERSION_MINOR), (patch, SL_VERSION_PATCH)] {
            if !p.is_null() {
                // SAFETY: non-null pointer to an int supplied by the caller.
                unsafe { *p = v };
            }
        }
        Ok(())
    })
}

/// Fills `config` with "use the defaults" (environment variables still apply).
#[unsafe(no_mangle)]
pub extern "C" fn sl_config_default(config: *mut sl_config) -> sl_status {
    boundary!("sl_config_default", |_site| {
        if config.is_null() {
            bail!(InvalidArgument, "config is NULL");
        }
        // SAFETY: non-null pointer to a config struct.
        unsafe {
            *config = sl_config {
                threads: 0,
                memory_limit: 0,
                fusion: -1,
                queue_limit: 0,
                trace_cache_entries: -1,
                macro_cache_entries: -1,
                backend: SL_BACKEND_DEFAULT,
            }
        };
        Ok(())
    })
}

/// Starts the runtime. Optional: the first call of any other function starts it with
/// the defaults. `config` may be NULL. Fails with `SL_ERR_INVALID_STATE` if it is running.
#[unsafe(no_mangle)]
pub extern "C" fn sl_init(config: *const sl_config) -> sl_status {
    boundary!("sl_init", |_site| {
        let mut c = Config::from_env()?;
        // SAFETY: the caller passes NULL or a pointer to a config struct.
        if let Some(cfg) = unsafe { config.as_ref() } {
            if cfg.threads > 0 {
                c.threads = cfg.threads as usize;
            }
            if cfg.memory_limit > 0 {
                c.memory_limit = cfg.memory_limit as usize;
            }
            match cfg.fusion {
                0 => c.fusion = false,
                1 => c.fusion = true,
                f if f < 0 => {}
                f => bail!(InvalidArgument, "fusion must be 0, 1 or negative (default), not {f}"),
            }
            if cfg.queue_limit > 0 {
                c.queue_limit = cfg.queue_limit as usize;
            }
            if cfg.trace_cache_entries >= 0 {
                c.trace_cache_entries = cfg.trace_cache_entries as usize;
            }
            if cfg.macro_cache_entries >= 0 {
                c.macro_cache_entries = cfg.macro_cache_entries as usize;
            }
            c.backend = match cfg.backend {
                SL_BACKEND_DEFAULT => c.backend,
                SL_BACKEND_CPU => Backend::Cpu,
                SL_BACKEND_VULKAN => Backend::Vulkan,
                SL_BACKEND_AUTO => Backend::Auto,
                b => bail!(InvalidArgument, "backend must be one of the SL_BACKEND_* values, not {b}"),
            };
        }
        runtime::init(c)
    })
}

/// Waits for all work, releases every handle and stops the runtime's threads, returning
/// once they have ended (so a loader may unload the library next). Handles from before
/// are invalid afterwards (`SL_ERR_INVALID_HANDLE`); the next call starts a new runtime.
/// Work that other threads submit to the stopping runtime fails with
/// `SL_ERR_INVALID_STATE` (or `SL_ERR_POISONED` where it is read).
#[unsafe(no_mangle)]
pub extern "C" fn sl_shutdown() -> sl_status {
    boundary!("sl_shutdown", |_site| {
        runtime::shutdown();
        Ok(())
    })
}

/// Details of this thread's last failed call.
#[unsafe(no_mangle)]
pub extern "C" fn sl_last_error(info: *mut sl_error_info) -> sl_status {
    if info.is_null() {
        return SL_ERR_INVALID_ARGUMENT;
    }
    // SAFETY: non-null pointer to an info struct. Not through `boundary!`, so that
    // reading the last error does not replace it.
    unsafe { *info = error::last_error() };
    SL_OK
}

/// The name of a status code, e.g. "SL_ERR_SHAPE_MISMATCH" (a static string).
#[unsafe(no_mangle)]
pub extern "C" fn sl_status_name(status: sl_status, name: *mut *const c_char) -> sl_status {
    boundary!("sl_status_name", |_site| {
        if name.is_null() {
            bail!(InvalidArgument, "name is NULL");
        }
        // SAFETY: non-null pointer to a string pointer.
        unsafe { *name = error::status_name(status).as_ptr() };
        Ok(())
    })
}

/// Adds an error handler; it runs (newest first) for every failing call on any thread.
#[unsafe(no_mangle)]
pub extern "C" fn sl_push_error_handler(handler: sl_error_handler, user: *mut c_void) -> sl_status {
    boundary!("sl_push_error_handler", |_site| {
        let Some(f) = handler else { bail!(InvalidArgument, "handler is NULL") };
        error::push_handler(f, user);
        Ok(())
    })
}

/// Removes the newest error handler.
#[unsafe(no_mangle)]
pub extern "C" fn sl_pop_error_handler() -> sl_status {
    boundary!("sl_pop_error_handler", |_site| error::pop_handler())
}

/// What the runtime has done since it started (for tuning and for tests).
#[unsafe(no_mangle)]
pub extern "C" fn sl_get_stats(out: *mut sl_stats) -> sl_status {
    boundary!("sl_get_stats", |_site| {
        if out.is_null() {
            bail!(InvalidArgument, "out is NULL");
        }
        let rt = runtime::get()?;
        let c = rt.sched.engine().counters();
        let m = rt.memory.stats();
        let d = rt.sched.engine().executor().device_memory().unwrap_or_default();
        let get = |a: &std::sync::atomic::AtomicU64| a.load(std::sync::atomic::Ordering::Relaxed);
        // SAFETY: non-null pointer to a stats struct.
        unsafe {
            *out = sl_stats {
                flushes: rt.sched.flushes(),
                sequences: c.sequences(),
                inline_sequences: get(&c.inline_sequences),
                kernels: get(&c.kernels),
                intrinsics: get(&c.intrinsics),
                failed_steps: get(&c.failed_steps),
                host_steps: rt.sched.engine().executor().steps_on_host(),
                allocations: m.allocations,
                live_bytes: m.live_bytes as u64,
                peak_live_bytes: m.peak_bytes as u64,
                live_handles: rt.handles.live() as u64,
                device_allocations: d.allocations,
                device_live_bytes: d.live_bytes as u64,
                device_peak_live_bytes: d.peak_bytes as u64,
                looped_pieces: rt.sched.looped_pieces(),
            }
        };
        Ok(())
    })
}

/// Copies `s` into a fixed C string field, truncated to fit, NUL-terminated.
fn put_str(dst: &mut [c_char], s: &str) {
    let n = s.len().min(dst.len() - 1);
    for (d, &b) in dst.iter_mut().zip(&s.as_bytes()[..n]) {
        *d = b as c_char;
    }
    dst[n] = 0;
}

/// Which executor runs kernels (starting the runtime if needed), on what device, and why
/// it was chosen.
#[unsafe(no_mangle)]
pub extern "C" fn sl_get_device_info(out: *mut sl_device_info) -> sl_status {
    boundary!("sl_get_device_info", |_site| {
        if out.is_null() {
            bail!(InvalidArgument, "out is NULL");
        }
        let rt = runtime::get()?;
        let d = &rt.device;
        // SAFETY: non-null pointer to an info struct.
        let out = unsafe { &mut *out };
        out.backend = match d.backend {
            Backend::Vulkan => SL_BACKEND_VULKAN,
            _ => SL_BACKEND_CPU,
        };
        out.device_type = match d.kind {
            DeviceKind::Host => SL_DEVICE_HOST,
            DeviceKind::DiscreteGpu => SL_DEVICE_DISCRETE_GPU,
            DeviceKind::IntegratedGpu => SL_DEVICE_INTEGRATED_GPU,
            DeviceKind::VirtualGpu => SL_DEVICE_VIRTUAL_GPU,
            DeviceKind::VulkanCpu => SL_DEVICE_VULKAN_CPU,
            DeviceKind::Other => SL_DEVICE_OTHER,
        };
        out.float64 = d.float64 as i32;
        put_str(&mut out.name, &d.name);
        put_str(&mut out.reason, &d.reason);
        Ok(())
    })
}

/// Counters of cache `which` (`SL_CACHE_TRACE`, `SL_CACHE_MACRO`, `SL_CACHE_PROGRAM`)
/// since the runtime started.
#[unsafe(no_mangle)]
pub extern "C" fn sl_get_cache_stats(which: sl_cache, out: *mut sl_cache_stats) -> sl_status {
    boundary!("sl_get_cache_stats", |_site| {
        if out.is_null() {
            bail!(InvalidArgument, "out is NULL");
        }
        let s = match which {
            SL_CACHE_TRACE => runtime::get()?.sched.trace_stats(),
            SL_CACHE_MACRO => runtime::get()?.sched.macro_stats(),
            SL_CACHE_PROGRAM => runtime::get()?.sched.engine().executor().program_cache().unwrap_or_default(),
            other => {
                bail!(InvalidArgument, "{other} is not a cache (SL_CACHE_TRACE, SL_CACHE_MACRO, SL_CACHE_PROGRAM)")
            }
        };
        let stats = sl_cache_stats {
            lookups: s.lookups,
            hits: s.hits,
            misses: s.misses,
            evictions: s.evictions,
            entries: s.entries,
            saved_ns: s.saved_ns,
            hit_ns: s.hit_ns,
        };
        // SAFETY: non-null pointer to a stats struct.
        unsafe { *out = stats };
        Ok(())
    })
}

/// Starts profiling: API calls, flushes, compiles, kernel runs and transfers are timed,
/// and kernel time is attributed to the call sites fused into each kernel. The results
/// are written when `sl_profile_end` is called: a report by call site (`<path>.txt`), the
/// raw records (`<path>.json`) and a Chrome trace-event timeline (`<path>.trace.json`,
/// for Perfetto or chrome://tracing). The files are created now: an unwritable path
/// fails with `SL_ERR_INVALID_ARGUMENT`; profiling while a profile is on (also one
/// started by `SLUICE_PROFILE`) fails with `SL_ERR_INVALID_STATE`.
#[unsafe(no_mangle)]
pub extern "C" fn sl_profile_begin(path: *const c_char) -> sl_status {
    boundary!("sl_profile_begin", |_site| {
        if path.is_null() {
            bail!(InvalidArgument, "path is NULL");
        }
        // SAFETY: non-null pointer to a NUL-terminated string.
        let path = unsafe { std::ffi::CStr::from_ptr(path) };
        let Ok(path) = path.to_str() else { bail!(InvalidArgument, "path is not UTF-8") };
        crate::profile::begin(path, crate::profile::Origin::Call)
    })
}

/// Waits for the work already submitted, stops profiling and writes the files named by
/// `sl_profile_begin` (or `SLUICE_PROFILE`). Fails with `SL_ERR_INVALID_STATE` when
/// profiling is not on.
#[unsafe(no_mangle)]
pub extern "C" fn sl_profile_end() -> sl_status {
    boundary!("sl_profile_end", |_site| {
        if crate::profile::active().is_none() {
            bail!(InvalidState, "profiling is not on (sl_profile_end without sl_profile_begin or SLUICE_PROFILE)");
        }
        if let Some(rt) = runtime::running() {
            rt.sched.engine().wait_idle();
        }
        crate::profile::end()
    })
}

/// Makes `file:line` the call site of this thread's following calls (error messages and
/// profiles name it) until it is changed or cleared with `file` NULL or empty (languages
/// without NULL strings pass ""); without it, a call site is the caller's address, located
/// through the application's debug information. The header macros `SL_HERE` and
/// `SL_AT(call)` pass `__FILE__` and `__LINE__`. `file` is copied.
#[unsafe(no_mangle)]
pub extern "C" fn sl_set_call_site(file: *const c_char, line: i32) -> sl_status {
    boundary!("sl_set_call_site", |_site| {
        // SAFETY: a non-null `file` points to a NUL-terminated string.
        let file = (!file.is_null()).then(|| unsafe { std::ffi::CStr::from_ptr(file) }.to_string_lossy());
        let Some(file) = file.filter(|f| !f.is_empty()) else {
            crate::ir::site::set_explicit(None);
            return Ok(());
        };
        if line < 0 {
            bail!(InvalidArgument, "line must not be negative, not {line}");
        }
        crate::ir::site::set_explicit(Some((&file, line as u32)));
        Ok(())
    })
}
