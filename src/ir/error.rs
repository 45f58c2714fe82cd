//! Errors.

use std::fmt;

use super::CallSite;

/// The kinds of failure the runtime reports; the C API maps each to a status code.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ErrorKind {
    InvalidHandle,
    InvalidArgument,
    ShapeMismatch,
    DTypeMismatch,
    OutOfMemory,
    NotSupported,
    /// The array depends on deferred work that failed.
    Poisoned,
    /// A call made in a state that does not allow it (e.g. `scope_end` with no open scope).
    InvalidState,
    Internal,
    /// Result comparison found a value farther from its reference than allowed.
    Mismatch,
    /// A matrix the operation needs nonsingular (or positive definite) is not.
    Singular,
}

#[derive(Clone, Debug)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
    /// For deferred failures: the call that created the array whose computation failed.
    pub origin: Option<CallSite>,
}

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error { kind, message: message.into(), origin: None }
    }

    pub fn with_origin(mut self, site: CallSite) -> Error {
        self.origin = Some(site);
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

/// Shorthand constructors used throughout argument checking.
macro_rules! bail {
    ($kind:ident, $($fmt:tt)*) => {
        return Err($crate::ir::Error::new($crate::ir::ErrorKind::$kind, format!($($fmt)*)))
    };
}
pub(crate) use bail;
