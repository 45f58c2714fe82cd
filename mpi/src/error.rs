//! Errors: statuses (Sluice's, and this library's own beyond them), the thread's last error
//! (`sl_mpi_last_error`), and the panic boundary every export runs in.

use std::cell::RefCell;
use std::ffi::CString;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::sluice_sys::{SL_ERR_INTERNAL, sl_status};

/// A failure: a status and the whole message (without the function's name).
#[derive(Clone, Debug)]
pub struct Error {
    pub status: sl_status,
    pub message: String,
}

impl Error {
    pub fn new(status: sl_status, message: impl Into<String>) -> Error {
        Error { status, message: message.into() }
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// `return Err(Error::new(status, format!(...)))`.
macro_rules! bail {
    ($status:expr, $($fmt:tt)+) => {
        return Err($crate::error::Error::new($status, format!($($fmt)+)))
    };
}
pub(crate) use bail;

struct LastError {
    status: sl_status,
    message: CString,
    function: CString,
}

thread_local! {
    static LAST: RefCell<Option<LastError>> = const { RefCell::new(None) };
}

fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', " ")).expect("no NUL left")
}

/// This process's rank and the communicator's size while the library is initialised
/// (`rank << 32 | size`), else `u64::MAX`: messages say which rank they come from.
static PLACE: AtomicU64 = AtomicU64::new(u64::MAX);

pub fn set_place(place: Option<(i32, i32)>) {
    PLACE.store(place.map_or(u64::MAX, |(r, s)| (r as u64) << 32 | s as u64), Ordering::Relaxed);
}

fn record(function: &str, e: &Error) {
    let place = PLACE.load(Ordering::Relaxed);
    let message = if place == u64::MAX {
        e.message.clone()
    } else {
        format!("{} [rank {} of {}]", e.message, place >> 32, place & 0xffff_ffff)
    };
    LAST.with(|l| {
        *l.borrow_mut() =
            Some(LastError { status: e.status, message: c_string(&message), function: c_string(function) })
    });
}

/// The thread's last error: (status, message, function) as C strings that stay valid until
/// the next failing call on this thread.
pub fn with_last<R>(f: impl FnOnce(Option<(sl_status, &CString, &CString)>) -> R) -> R {
    LAST.with(|l| f(l.borrow().as_ref().map(|e| (e.status, &e.message, &e.function))))
}

/// Runs an export's body: an error or a panic becomes a status and the thread's last
/// error; nothing unwinds into C.
pub fn boundary(function: &'static str, body: impl FnOnce() -> Result<()>) -> sl_status {
    let result = catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Err(Error::new(SL_ERR_INTERNAL, format!("internal error (a bug in libsluice_mpi): {what}")))
    });
    match result {
        Ok(()) => 0,
        Err(e) => {
            record(function, &e);
            e.status
        }
    }
}
