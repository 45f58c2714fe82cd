//! Call sites: where an API call came from, turned into file:line only when a report or
//! an error needs it (symbolising is slow; capturing the address is not). Calls made
//! through the C++ and Fortran layers are reported at the application's line.

use std::fmt;

/// Where an API call came from: the application's return address (0 if unknown) and the
/// name of the C function that was called.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct CallSite {
    pub pc: usize,
    pub api: &'static str,
}

/// Sluice's language layers. A call made through one is reported at the line that called
/// the layer, not at the layer's own line.
const LAYER_FILES: [&str; 2] = ["sluice.hpp", "sluice.f90"];

fn in_layer(file: &str) -> bool {
    LAYER_FILES.iter().any(|l| file.ends_with(l))
}

/// File and line of the code at return address `pc`: of the functions inlined there
/// (innermost first), the first outside the language layers, else the innermost.
fn resolve(pc: usize) -> Option<(String, u32)> {
    let mut found: Vec<(String, u32)> = Vec::new();
    // The return address follows the call; look up the call instruction itself.
    backtrace::resolve((pc - 1) as *mut std::ffi::c_void, |sym| {
        if let (Some(file), Some(line)) = (sym.filename(), sym.lineno()) {
            found.push((file.display().to_string(), line));
        }
    });
    let outside = found.iter().position(|(f, _)| !in_layer(f)).unwrap_or(0);
    found.into_iter().nth(outside)
}

impl CallSite {
    /// Source file and line of the call, if the code there has debug information.
    pub fn location(&self) -> Option<(String, u32)> {
        if self.pc == 0 { None } else { resolve(self.pc) }
    }

    /// Like `location`, for the call being made on this thread now: when the call came
    /// through a language layer (not inlined), the stack is unwound to the layer's caller.
    /// Slow; for reports only.
    pub fn location_now(&self) -> Option<(String, u32)> {
        let here = self.location();
        if !here.as_ref().is_some_and(|(f, _)| in_layer(f)) {
            return here;
        }
        let mut past_call = false;
        let mut outside = None;
        backtrace::trace(|frame| {
            let ip = frame.ip() as usize;
            if past_call && ip != 0 {
                outside = resolve(ip).filter(|(f, _)| !in_layer(f));
            }
            past_call |= ip == self.pc;
            outside.is_none()
        });
        outside.or(here)
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
