//! Call sites: where an API call came from, turned into file:line only when a report or
//! an error needs it (symbolising is slow; capturing the address is not).

use std::fmt;

/// Where an API call came from: the application's return address (0 if unknown) and the
/// name of the C function that was called.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct CallSite {
    pub pc: usize,
    pub api: &'static str,
}

impl CallSite {
    /// Source file and line of the call, if the code there has debug information.
    pub fn location(&self) -> Option<(String, u32)> {
        if self.pc == 0 {
            return None;
        }
        let mut found = None;
        // The return address follows the call; look up the call instruction itself.
        backtrace::resolve((self.pc - 1) as *mut std::ffi::c_void, |sym| {
            if found.is_none()
                && let (Some(file), Some(line)) = (sym.filename(), sym.lineno())
            {
                found = Some((file.display().to_string(), line));
            }
        });
        found
    }
}

/// `sl_add at main.c:12`, or just `sl_add` without debug information.
impl fmt::Display for CallSite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.api)?;
        match self.location() {
            Some((file, line)) => write!(f, " at {file}:{line}"),
            None => Ok(()),
        }
    }
}
