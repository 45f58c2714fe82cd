//! The panic boundary and error reporting of every exported function: the thread's last
//! error, and the stack of application error handlers.

use std::cell::RefCell;
use std::ffi::{CStr, CString, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::ptr;

use parking_lot::Mutex;

use super::types::*;
use crate::exec::engine::panic_message;
use crate::ir::{CallSite, Error, ErrorKind, Result};

pub fn status_of(kind: ErrorKind) -> sl_status {
    match kind {
        ErrorKind::InvalidHandle => SL_ERR_INVALID_HANDLE,
        ErrorKind::InvalidArgument => SL_ERR_INVALID_ARGUMENT,
        ErrorKind::ShapeMismatch => SL_ERR_SHAPE_MISMATCH,
        ErrorKind::DTypeMismatch => SL_ERR_DTYPE_MISMATCH,
        ErrorKind::OutOfMemory => SL_ERR_OUT_OF_MEMORY,
        ErrorKind::NotSupported => SL_ERR_NOT_SUPPORTED,
        ErrorKind::Poisoned => SL_ERR_POISONED,
        ErrorKind::InvalidState => SL_ERR_INVALID_STATE,
        ErrorKind::Internal => SL_ERR_INTERNAL,
        ErrorKind::Mismatch => SL_ERR_MISMATCH,
        ErrorKind::Singular => SL_ERR_SINGULAR,
    }
}

pub fn status_name(s: sl_status) -> &'static CStr {
    match s {
        SL_OK => c"SL_OK",
        SL_ERR_INVALID_HANDLE => c"SL_ERR_INVALID_HANDLE",
        SL_ERR_INVALID_ARGUMENT => c"SL_ERR_INVALID_ARGUMENT",
        SL_ERR_SHAPE_MISMATCH => c"SL_ERR_SHAPE_MISMATCH",
        SL_ERR_DTYPE_MISMATCH => c"SL_ERR_DTYPE_MISMATCH",
        SL_ERR_OUT_OF_MEMORY => c"SL_ERR_OUT_OF_MEMORY",
        SL_ERR_NOT_SUPPORTED => c"SL_ERR_NOT_SUPPORTED",
        SL_ERR_POISONED => c"SL_ERR_POISONED",
        SL_ERR_INVALID_STATE => c"SL_ERR_INVALID_STATE",
        SL_ERR_INTERNAL => c"SL_ERR_INTERNAL",
        SL_ERR_MISMATCH => c"SL_ERR_MISMATCH",
        SL_ERR_SINGULAR => c"SL_ERR_SINGULAR",
        _ => c"unknown status",
    }
}

/// The C strings behind the thread's last `sl_error_info`.
#[derive(Default)]
struct LastError {
    status: sl_status,
    message: CString,
    function: CString,
    call_pc: usize,
    call_file: Option<CString>,
    call_line: i32,
    origin_function: Option<CString>,
    origin_pc: usize,
    origin_file: Option<CString>,
    origin_line: i32,
}

thread_local! {
    static LAST: RefCell<LastError> = RefCell::new(LastError::default());
}

#[derive(Copy, Clone)]
struct Handler {
    f: extern "C" fn(sl_status, *const sl_error_info, *mut c_void) -> i32,
    user: *mut c_void,
}

// SAFETY: the user pointer is the application's; Sluice only hands it back.
unsafe impl Send for Handler {}

static HANDLERS: Mutex<Vec<Handler>> = Mutex::new(Vec::new());

pub fn push_handler(f: extern "C" fn(sl_status, *const sl_error_info, *mut c_void) -> i32, user: *mut c_void) {
    HANDLERS.lock().push(Handler { f, user });
}

pub fn pop_handler() -> Result<()> {
    match HANDLERS.lock().pop() {
        Some(_) => Ok(()),
        None => Err(Error::new(ErrorKind::InvalidState, "no error handler to pop")),
    }
}

fn cstring(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).expect("NUL removed")
}

fn opt_ptr(s: &Option<CString>) -> *const std::os::raw::c_char {
    s.as_ref().map_or(ptr::null(), |c| c.as_ptr())
}

/// Records `e` as this thread's last error, tells the handlers, returns the status.
fn report(site: CallSite, e: Error) -> sl_status {
    let status = status_of(e.kind);
    let (call_pc, call) = site.locate();
    let origin = e.origin.filter(|o| o.api != site.api || o.pc != site.pc);
    let (origin_pc, origin_loc) = origin.map_or((0, None), |o| o.locate());
    let at = |loc: &Option<(String, u32)>| loc.as_ref().map(|(f, l)| format!(" at {f}:{l}")).unwrap_or_default();
    let mut message = format!("{}: {}", site.api, e.message);
    if let Some(o) = origin {
        message.push_str(&format!(" [failing op created by {}{}]", o.api, at(&origin_loc)));
    }
    message.push_str(&at(&call));
    let info = LAST.with(|last| {
        let mut l = last.borrow_mut();
        *l = LastError {
            status,
            message: cstring(&message),
            function: cstring(site.api),
            call_pc,
            call_file: call.as_ref().map(|(f, _)| cstring(f)),
            call_line: call.as_ref().map_or(0, |(_, n)| *n as i32),
            origin_function: origin.map(|o| cstring(o.api)),
            origin_pc,
            origin_file: origin_loc.as_ref().map(|(f, _)| cstring(f)),
            origin_line: origin_loc.as_ref().map_or(0, |(_, n)| *n as i32),
        };
        fill_info(&l)
    });
    let handlers: Vec<Handler> = HANDLERS.lock().clone();
    for h in handlers.iter().rev() {
        if (h.f)(status, &info, h.user) != 0 {
            break;
        }
    }
    status
}

fn fill_info(l: &LastError) -> sl_error_info {
    sl_error_info {
        status: l.status,
        message: l.message.as_ptr(),
        function: l.function.as_ptr(),
        call_pc: l.call_pc,
        call_file: opt_ptr(&l.call_file),
        call_line: l.call_line,
        origin_function: opt_ptr(&l.origin_function),
        origin_pc: l.origin_pc,
        origin_file: opt_ptr(&l.origin_file),
        origin_line: l.origin_line,
    }
}

/// The error of a callback that returned `status` (not `SL_OK`): the last error of this
/// thread when a call inside it failed with that status (its kind and message), else the
/// status alone; `context` says what failed.
pub fn failure_of(status: sl_status, context: &str) -> Error {
    let kinds = [
        ErrorKind::InvalidHandle,
        ErrorKind::InvalidArgument,
        ErrorKind::ShapeMismatch,
        ErrorKind::DTypeMismatch,
        ErrorKind::OutOfMemory,
        ErrorKind::NotSupported,
        ErrorKind::Poisoned,
        ErrorKind::InvalidState,
        ErrorKind::Internal,
        ErrorKind::Mismatch,
        ErrorKind::Singular,
    ];
    let kind = kinds.into_iter().find(|&k| status_of(k) == status);
    let (last_status, message) = LAST.with(|l| {
        let l = l.borrow();
        (l.status, l.message.to_string_lossy().into_owned())
    });
    match kind {
        Some(kind) if last_status == status => Error::new(kind, format!("{context}: {message}")),
        Some(kind) => Error::new(kind, format!("{context} with {}", status_name(status).to_string_lossy())),
        None => {
            Error::new(ErrorKind::InvalidArgument, format!("{context} with status {status}, which is not an sl_status"))
        }
    }
}

/// This thread's last error (status `SL_OK` and empty strings if there was none).
pub fn last_error() -> sl_error_info {
    LAST.with(|l| fill_info(&l.borrow()))
}

/// Runs an exported function's body: panics become `SL_ERR_INTERNAL`, errors are
/// recorded and reported, and nothing unwinds into the caller.
pub fn run(site: CallSite, body: impl FnOnce(CallSite) -> Result<()>) -> sl_status {
    match catch_unwind(AssertUnwindSafe(|| body(site))) {
        Ok(Ok(())) => SL_OK,
        Ok(Err(e)) => report(site, e),
        Err(panic) => {
            let e =
                Error::new(ErrorKind::Internal, format!("internal error (please report): {}", panic_message(&panic)));
            report(site, e)
        }
    }
}

/// Wraps an exported function body: `boundary!("sl_name", |site| { ... })`. The call
/// site is the one the application set on this thread (`sl_set_call_site`), else the
/// return addresses of the call and its callers (`site::capture`); with profiling on, the
/// call is timed.
macro_rules! boundary {
    ($name:literal, |$site:ident| $body:expr) => {{
        let site = $crate::ir::CallSite { pc: $crate::api::site::capture(), api: $name };
        let timer = $crate::profile::CallTimer::start();
        let status = $crate::api::error::run(site, |$site: $crate::ir::CallSite| -> $crate::ir::Result<()> { $body });
        timer.finish(site);
        status
    }};
}
pub(crate) use boundary;
