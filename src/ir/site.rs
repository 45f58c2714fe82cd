//! Call sites: where an API call came from, turned into file:line only when a report or
//! an error needs it (symbolising is slow; capturing the address is not). Calls made
//! through the C++ and Fortran layers are reported at the application's line. An
//! application may also name its call sites itself (`sl_set_call_site`): those are
//! interned in a global table and carried as a tagged id in place of the address, so a
//! `CallSite` stays two words, `Copy` and cheap to hash.

use std::cell::Cell;
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};

use parking_lot::RwLock;
use rustc_hash::FxHashMap as HashMap;

/// Where an API call came from: the application's return address (0 if unknown), or an
/// explicit site's tagged id (see `explicit_site`), and the name of the C function that
/// was called.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct CallSite {
    pub pc: usize,
    pub api: &'static str,
}

/// Set in `pc` for explicit sites. User-space code addresses never have the top bit set.
const EXPLICIT_TAG: usize = 1 << (usize::BITS - 1);

/// Explicit sites named so far: (file, line), indexed by id; and per line, the ids of
/// its files (looked up without allocating).
#[derive(Default)]
struct Table {
    sites: Vec<(Box<str>, u32)>,
    ids: HashMap<u32, Vec<usize>>,
}

impl Table {
    fn find(&self, file: &str, line: u32) -> Option<usize> {
        self.ids.get(&line)?.iter().copied().find(|&id| &*self.sites[id].0 == file)
    }
}

static TABLE: RwLock<Option<Table>> = RwLock::new(None);
/// Whether any thread has ever set an explicit site: until one has, capturing a call
/// site does not look at the thread-local one.
static ANY_EXPLICIT: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// This thread's explicit site (a tagged pc), 0 when none is set.
    static CURRENT: Cell<usize> = const { Cell::new(0) };
}

/// The tagged pc of explicit site `file:line`, interned on first use.
fn intern(file: &str, line: u32) -> usize {
    if let Some(id) = TABLE.read().as_ref().and_then(|t| t.find(file, line)) {
        return id | EXPLICIT_TAG;
    }
    let mut guard = TABLE.write();
    let t = guard.get_or_insert_with(Table::default);
    let id = match t.find(file, line) {
        Some(id) => id,
        None => {
            t.sites.push((file.into(), line));
            t.ids.entry(line).or_default().push(t.sites.len() - 1);
            t.sites.len() - 1
        }
    };
    id | EXPLICIT_TAG
}

/// Makes `file:line` the call site of this thread's following API calls; `None` clears
/// it (calls are then located by their return address again).
pub fn set_explicit(site: Option<(&str, u32)>) {
    let pc = match site {
        Some((file, line)) => {
            ANY_EXPLICIT.store(true, Ordering::Relaxed);
            intern(file, line)
        }
        None => 0,
    };
    CURRENT.with(|c| c.set(pc));
}

/// The explicit site set on this thread (a tagged pc), or 0.
#[inline(always)]
pub fn explicit_site() -> usize {
    if ANY_EXPLICIT.load(Ordering::Relaxed) { current_explicit() } else { 0 }
}

/// Out of line: inlined, the compiler computes the thread-local's address (a call, in a
/// shared library) on every API call, before the test that makes it unnecessary.
#[inline(never)]
fn current_explicit() -> usize {
    CURRENT.with(|c| c.get())
}

fn explicit_location(pc: usize) -> Option<(String, u32)> {
    let table = TABLE.read();
    let (file, line) = table.as_ref()?.sites.get(pc & !EXPLICIT_TAG)?;
    Some((file.to_string(), *line))
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
    /// Whether the site was named by the application (`sl_set_call_site`).
    pub fn is_explicit(&self) -> bool {
        self.pc & EXPLICIT_TAG != 0
    }

    /// Source file and line of the call: the explicit site, or where the code at the
    /// return address came from if it has debug information.
    pub fn location(&self) -> Option<(String, u32)> {
        match self.pc {
            0 => None,
            pc if self.is_explicit() => explicit_location(pc),
            pc => resolve(pc),
        }
    }

    /// Like `location`, for the call being made on this thread now: when the call came
    /// through a language layer (not inlined), the stack is unwound to the layer's caller.
    /// Slow; for reports only.
    pub fn location_now(&self) -> Option<(String, u32)> {
        let here = self.location();
        if self.is_explicit() || !here.as_ref().is_some_and(|(f, _)| in_layer(f)) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explicit_sites_are_interned_and_located() {
        set_explicit(Some(("model.c", 41)));
        let a = CallSite { pc: explicit_site(), api: "sl_add" };
        set_explicit(Some(("model.c", 42)));
        let b = CallSite { pc: explicit_site(), api: "sl_add" };
        set_explicit(Some(("model.c", 41)));
        let again = CallSite { pc: explicit_site(), api: "sl_add" };
        set_explicit(None);
        assert_eq!(explicit_site(), 0);
        assert!(a.is_explicit() && b.is_explicit());
        assert_eq!(a, again);
        assert_ne!(a, b);
        assert_eq!(a.location(), Some(("model.c".to_string(), 41)));
        assert_eq!(b.location_now(), Some(("model.c".to_string(), 42)));
        assert_eq!(b.to_string(), "sl_add at model.c:42");
    }
}
