//! Debugging: result comparison against a reference run, reference arrays, and a look at
//! an intermediate array that leaves the computation as it was.

use std::ffi::c_void;

use super::array::copy_out;
use super::error::boundary;
use super::types::*;
use super::{graph, node, out_slot, outside_macro, put, runtime};
use crate::check::{self, Action, Mode, Settings};
use crate::front::host::HostOrder;
use crate::ir::{Op, bail, clone_pending};

/// Switches result comparison for every thread: flushes planned from now on run the
/// reference beside the optimised run and compare as `settings` says. Starts the runtime
/// if needed (so its environment settings do not override these later).
#[unsafe(no_mangle)]
pub extern "C" fn sl_set_compare(settings: *const sl_compare_settings) -> sl_status {
    boundary!("sl_set_compare", |_site| {
        if settings.is_null() {
            bail!(InvalidArgument, "settings is NULL");
        }
        // SAFETY: non-null pointer to a settings struct.
        let s = unsafe { *settings };
        let mode = match s.mode {
            SL_COMPARE_OFF => Mode::Off,
            SL_COMPARE_COMPUTE => Mode::Compute,
            SL_COMPARE_COPYOUT => Mode::Copyout,
            m => bail!(InvalidArgument, "{m} is not a comparison mode (SL_COMPARE_OFF, _COMPUTE or _COPYOUT)"),
        };
        let action = match s.action {
            SL_COMPARE_REPORT => Action::Report,
            SL_COMPARE_ERROR => Action::Error,
            SL_COMPARE_ABORT => Action::Abort,
            a => bail!(InvalidArgument, "{a} is not a comparison action (SL_COMPARE_REPORT, _ERROR or _ABORT)"),
        };
        if s.abs_tol.is_nan() || s.rel_tol.is_nan() {
            bail!(InvalidArgument, "tolerances must be numbers (negative for the defaults), not NaN");
        }
        runtime()?;
        let given = |t: f64| (t >= 0.0).then_some(t);
        check::configure(Settings { mode, action, abs_tol: given(s.abs_tol), rel_tol: given(s.rel_tol) });
        Ok(())
    })
}

/// The result-comparison settings in force (tolerances left at their defaults read -1).
#[unsafe(no_mangle)]
pub extern "C" fn sl_get_compare(out: *mut sl_compare_settings) -> sl_status {
    boundary!("sl_get_compare", |_site| {
        if out.is_null() {
            bail!(InvalidArgument, "out is NULL");
        }
        runtime()?;
        let s = check::settings();
        let mode = match s.mode {
            Mode::Off => SL_COMPARE_OFF,
            Mode::Compute => SL_COMPARE_COMPUTE,
            Mode::Copyout => SL_COMPARE_COPYOUT,
        };
        let action = match s.action {
            Action::Report => SL_COMPARE_REPORT,
            Action::Error => SL_COMPARE_ERROR,
            Action::Abort => SL_COMPARE_ABORT,
        };
        // SAFETY: non-null pointer to a settings struct.
        unsafe {
            *out = sl_compare_settings {
                mode,
                action,
                abs_tol: s.abs_tol.unwrap_or(-1.0),
                rel_tol: s.rel_tol.unwrap_or(-1.0),
            }
        };
        Ok(())
    })
}

/// How many values result comparison has compared, and how many differed.
#[unsafe(no_mangle)]
pub extern "C" fn sl_get_compare_stats(out: *mut sl_compare_stats) -> sl_status {
    boundary!("sl_get_compare_stats", |_site| {
        if out.is_null() {
            bail!(InvalidArgument, "out is NULL");
        }
        let (values_checked, mismatches) = check::counts();
        // SAFETY: non-null pointer to a stats struct.
        unsafe { *out = sl_compare_stats { values_checked, mismatches } };
        Ok(())
    })
}

/// A new array holding the reference value of `a` (computing `a` first if needed): f64
/// for floating-point arrays, c128 for complex ones, the array's own type otherwise. Exists for arrays computed
/// while result comparison was on, and for arrays made from application data.
#[unsafe(no_mangle)]
pub extern "C" fn sl_reference(a: sl_array, out: *mut sl_array) -> sl_status {
    boundary!("sl_reference", |site| {
        let out = out_slot(out)?;
        outside_macro("sl_reference")?;
        let rt = runtime()?;
        let n = node(&rt, a)?;
        // The reference run happens when the array's flush is planned; whether the
        // optimised run then succeeds does not matter here.
        let _ = rt.sched.value(&n);
        let (dtype, bytes) = match check::attached(&n) {
            Some(r) => r.to_bytes(),
            None if matches!(n.op, Op::Source) && n.wait().is_ok() => {
                let v = rt.sched.engine().executor().host_value(&n.wait().expect("checked"))?;
                check::Reference::of_value(n.dtype, n.shape, &v).to_bytes()
            }
            None => match check::refusal(&n) {
                Some(why) => bail!(OutOfMemory, "the array made by {} has no reference: {why}", n.site),
                None => bail!(
                    InvalidState,
                    "the array made by {} has no reference: it was computed while result comparison was off (SLUICE_COMPARE, sl_set_compare)",
                    n.site
                ),
            },
        };
        let r = graph(&rt, site).from_host(dtype, n.shape, &bytes, HostOrder::ColumnMajor)?;
        put(&rt, out, r)
    })
}

/// Copies the value of `a` into `dst` like `sl_read`, without changing what the rest of
/// the computation fuses or computes: a pending `a` is evaluated from a copy of the work
/// it depends on, which stays pending and is planned later exactly as without the peek.
#[unsafe(no_mangle)]
pub extern "C" fn sl_debug_peek(a: sl_array, layout: sl_layout, dst: *mut c_void, bytes: usize) -> sl_status {
    boundary!("sl_debug_peek", |site| copy_out("sl_debug_peek", site, a, layout, dst, bytes, clone_pending))
}
