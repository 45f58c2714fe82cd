//! Macros (code reuse sections): begin, end and cancel. See `sched::macros` for what is
//! recorded and replayed, and the `SL_MACRO` helper in the header for use from C.

use std::ffi::CStr;
use std::os::raw::c_char;
use std::sync::Arc;

use smallvec::SmallVec;

use super::error::boundary;
use super::types::*;
use super::{node, put, runtime, slice, write_out};
use crate::front::scope;
use crate::ir::{Node, Result, bail};
use crate::sched::MacroStart;

/// Opens a code reuse section named `name` reading `inputs` (their values are what vary
/// between runs) with `controls` (values the section's calls depend on, e.g. an if/else;
/// each combination is its own entry) and `n_out` outputs. `*mode` says what to do:
/// `SL_MACRO_RECORD`: run the section's calls and close it with `sl_macro_end`;
/// `SL_MACRO_REPLAY`: skip them; `outputs` already holds new handles to the results.
/// Inside a recording section, reads, writes, `sl_eval` and `sl_sync` are refused, and
/// arrays it makes are released at `sl_macro_end` unless declared as outputs. A thread
/// that begins a section another thread is still recording records it too (it does not
/// wait); the first recording to end is cached.
#[unsafe(no_mangle)]
pub extern "C" fn sl_macro_begin(
    name: *const c_char,
    inputs: *const sl_array,
    n_in: i32,
    controls: *const f64,
    n_ctrl: i32,
    outputs: *mut sl_array,
    n_out: i32,
    mode: *mut sl_macro_mode,
) -> sl_status {
    boundary!("sl_macro_begin", |site| {
        let outs = slice_mut(outputs, n_out)?;
        outs.fill(0);
        write_out(mode, "mode", SL_MACRO_REPLAY)?;
        if name.is_null() {
            bail!(InvalidArgument, "name is NULL");
        }
        // SAFETY: non-null, and the caller passes a NUL-terminated string. (The scheduler
        // checks it is UTF-8.)
        let name = unsafe { CStr::from_ptr(name) };
        let rt = runtime()?;
        // Looked up under one lock, without collecting into a `Result` (which costs a replay more).
        let mut ins: SmallVec<[Arc<Node>; 4]> = SmallVec::new();
        rt.handles.get_all(slice(inputs, n_in, "inputs")?, &mut ins)?;
        let ctrl = slice(controls, n_ctrl, "controls")?;
        let reserve = draws(&rt);
        match rt.sched.macro_begin(name, &ins, ctrl, outs.len(), site, &reserve)? {
            MacroStart::Replay(results) => {
                for (slot, n) in outs.iter_mut().zip(results) {
                    put(&rt, slot, n)?;
                }
            }
            MacroStart::Record => {
                // The section's arrays live in a scope of their own.
                scope::begin_section();
                write_out(mode, "mode", SL_MACRO_RECORD)?;
            }
        }
        Ok(())
    })
}

/// Closes the section being recorded on this thread, declaring its `n_out` outputs (as
/// many as `sl_macro_begin` was given); they stay valid after the section, every other
/// array it made is released. The section is compiled as one unit and cached. Scopes
/// begun inside the section and not ended are an error (`SL_ERR_INVALID_STATE`): they
/// are closed with the section, which is then not cached.
#[unsafe(no_mangle)]
pub extern "C" fn sl_macro_end(outputs: *const sl_array, n_out: i32) -> sl_status {
    boundary!("sl_macro_end", |_site| {
        let rt = runtime()?;
        let handles = slice(outputs, n_out, "outputs")?;
        let outs: Vec<Arc<Node>> = handles.iter().map(|&h| node(&rt, h)).collect::<Result<_>>()?;
        let Some(name) = crate::sched::macros::recording_name() else {
            bail!(InvalidState, "sl_macro_end without an open sl_macro_begin on this thread");
        };
        // Outputs made before the section (inputs passed through) are not in its scope.
        let unended = close_scope(&rt, handles)?;
        if unended > 0 {
            rt.sched.macro_cancel()?;
            bail!(
                InvalidState,
                "macro '{name}': {unended} scope(s) begun inside the section were not ended (sl_scope_end); they were closed with the section, which is not cached"
            );
        }
        rt.sched.macro_end(&outs)
    })
}

/// Abandons the section being recorded on this thread (e.g. when its calls failed):
/// nothing is cached, the arrays it made are released (also those of scopes begun inside
/// it and not ended), everything else is kept.
#[unsafe(no_mangle)]
pub extern "C" fn sl_macro_cancel() -> sl_status {
    boundary!("sl_macro_cancel", |_site| {
        let rt = runtime()?;
        if crate::sched::macros::recording_name().is_none() {
            bail!(InvalidState, "sl_macro_cancel without an open sl_macro_begin on this thread");
        }
        close_scope(&rt, &[])?;
        rt.sched.macro_cancel()
    })
}

/// Takes `count` draws from generator `rng` for a replay: its seed and first draw.
pub(super) fn draws(rt: &crate::front::runtime::Runtime) -> impl Fn(u64, u64) -> Result<(u64, u64)> + '_ {
    |rng, count| {
        let st = rt.rngs.get(rng)?.take(count);
        Ok((st.seed, st.draw))
    }
}

/// Ends the section's scope (and scopes begun inside it), releasing what they still hold
/// except `keep`; returns how many scopes begun inside were left open.
pub(super) fn close_scope(rt: &crate::front::runtime::Runtime, keep: &[sl_array]) -> Result<usize> {
    let end = scope::end_section(keep)?;
    for h in end.released {
        let _ = rt.handles.remove(h);
    }
    Ok(end.unended)
}

/// `n` writable handles at `p`; NULL only when `n` is 0.
pub(super) fn slice_mut<'a>(p: *mut sl_array, n: i32) -> Result<&'a mut [sl_array]> {
    if n < 0 {
        bail!(InvalidArgument, "negative number of outputs {n}");
    }
    if n == 0 {
        return Ok(&mut []);
    }
    if p.is_null() {
        bail!(InvalidArgument, "outputs is NULL");
    }
    // SAFETY: non-null; the caller passes `n` writable handles.
    Ok(unsafe { std::slice::from_raw_parts_mut(p, n as usize) })
}
