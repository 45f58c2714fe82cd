//! Call sites: where an API call came from, turned into file:line only when a report or
//! an error needs it (symbolising is slow; capturing addresses is not). A call made
//! through the C++ or Fortran layer is reported at the application's line: its site keeps
//! the return addresses of the layer's functions it passed through, up to the first
//! function of the application's (`api::site` captures them), and locating the site skips
//! the layer's functions, inlined or not. An application may also name its call sites
//! itself (`sl_set_call_site`). Stacks of several return addresses and named sites are
//! interned in a global table and carried as tagged ids in place of an address, so a
//! `CallSite` stays two words, `Copy` and cheap to hash.

use std::cell::Cell;
use std::fmt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering, fence};

use parking_lot::{Mutex, RwLock};
use rustc_hash::FxHashMap as HashMap;

/// Where an API call came from: the application's return address (0 if unknown), or the
/// tagged id of an interned stack or explicit site, and the name of the C function that
/// was called.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct CallSite {
    pub pc: usize,
    pub api: &'static str,
}

/// The most return addresses a call site keeps. Without inlining (-O0), a call made by
/// a C++ container of arrays passes through eight functions of the standard library and
/// the layer before reaching the application's.
pub const MAX_FRAMES: usize = 16;

/// Set in `pc` for explicit sites and for stacks. User-space code addresses never have
/// the top bits set.
const EXPLICIT_TAG: usize = 1 << (usize::BITS - 1);
const STACK_TAG: usize = 1 << (usize::BITS - 2);

/// Sites interned so far: explicit ones (file, line), indexed by id, and per line the ids
/// of its files (looked up without allocating); stacks, by id and by value.
#[derive(Default)]
struct Table {
    sites: Vec<(Box<str>, u32)>,
    ids: HashMap<u32, Vec<usize>>,
    stacks: Vec<Box<[usize]>>,
    stack_ids: HashMap<Box<[usize]>, usize>,
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

/// The most return addresses of a stack kept in `RECENT`.
const RECENT_DEPTH: usize = 4;
const RECENT_SLOTS: usize = 1024;

/// A slot of the table of recently interned stacks: the stack's return addresses (0 past
/// its end) and tagged pc. Written only under the lock of `RECENT_WRITER`, between two
/// increments of `seq`; read without a lock, `seq` before and after, so that a read
/// racing with a write is seen to.
struct RecentStack {
    seq: AtomicUsize,
    frames: [AtomicUsize; RECENT_DEPTH],
    pc: AtomicUsize,
}

/// Stacks of up to `RECENT_DEPTH` return addresses, each in a slot chosen by a hash of
/// them, so that a call from a known place through a layer takes no lock.
static RECENT: [RecentStack; RECENT_SLOTS] = [const {
    RecentStack {
        seq: AtomicUsize::new(0),
        frames: [const { AtomicUsize::new(0) }; RECENT_DEPTH],
        pc: AtomicUsize::new(0),
    }
}; RECENT_SLOTS];
static RECENT_WRITER: Mutex<()> = Mutex::new(());

fn recent_slot(frames: &[usize; RECENT_DEPTH]) -> &'static RecentStack {
    let hash = frames.iter().fold(0usize, |h, &pc| (h.rotate_left(5) ^ pc).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    &RECENT[hash >> (usize::BITS - RECENT_SLOTS.ilog2())]
}

/// `frames` padded with zeros to `RECENT_DEPTH`, if no longer.
#[inline(always)]
fn padded(frames: &[usize]) -> Option<[usize; RECENT_DEPTH]> {
    let mut out = [0; RECENT_DEPTH];
    out.get_mut(..frames.len())?.copy_from_slice(frames);
    Some(out)
}

/// The tagged pc of stack `frames` if its slot holds it.
#[inline(always)]
fn recent_stack(frames: &[usize]) -> Option<usize> {
    let frames = padded(frames)?;
    let slot = recent_slot(&frames);
    let seq = slot.seq.load(Ordering::Acquire);
    let same = (0..RECENT_DEPTH).all(|i| slot.frames[i].load(Ordering::Relaxed) == frames[i]);
    let pc = slot.pc.load(Ordering::Relaxed);
    fence(Ordering::Acquire);
    (same && seq.is_multiple_of(2) && slot.seq.load(Ordering::Relaxed) == seq).then_some(pc)
}

fn remember_stack(frames: &[usize], pc: usize) {
    let Some(frames) = padded(frames) else { return };
    let slot = recent_slot(&frames);
    let _writer = RECENT_WRITER.lock();
    slot.seq.fetch_add(1, Ordering::Relaxed);
    fence(Ordering::Release);
    for (word, &frame) in slot.frames.iter().zip(&frames) {
        word.store(frame, Ordering::Relaxed);
    }
    slot.pc.store(pc, Ordering::Relaxed);
    slot.seq.fetch_add(1, Ordering::Release);
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

/// The pc of a call site captured as return addresses `frames` (innermost first, at least
/// one): the return address itself when it is the only one, else the stack's tagged id,
/// interned on first use.
#[inline]
pub fn stack(frames: &[usize]) -> usize {
    if let [pc] = frames {
        return *pc;
    }
    recent_stack(frames).unwrap_or_else(|| intern_stack(frames))
}

#[cold]
#[inline(never)]
fn intern_stack(frames: &[usize]) -> usize {
    let known = TABLE.read().as_ref().and_then(|t| t.stack_ids.get(frames).copied());
    let id = known.unwrap_or_else(|| {
        let mut guard = TABLE.write();
        let t = guard.get_or_insert_with(Table::default);
        match t.stack_ids.get(frames) {
            Some(&id) => id,
            None => {
                t.stacks.push(frames.into());
                t.stack_ids.insert(frames.into(), t.stacks.len() - 1);
                t.stacks.len() - 1
            }
        }
    });
    remember_stack(frames, id | STACK_TAG);
    id | STACK_TAG
}

/// Makes `file:line` the call site of this thread's following API calls; `None` clears
/// it (calls are then located by their return addresses again).
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

fn stack_frames(pc: usize) -> Option<Box<[usize]>> {
    TABLE.read().as_ref()?.stacks.get(pc & !STACK_TAG).cloned()
}

/// Sluice's language layers. A call made through one is reported at the line that called
/// the layer, not at the layer's own line.
const LAYER_FILES: [&str; 2] = ["sluice.hpp", "sluice.f90"];
/// Headers of the C++ standard library (libstdc++ and libc++ alike): a container of arrays
/// calls the layer from them.
const STD_HEADERS: &str = "/include/c++/";

/// Whether a mangled symbol names a function of the layers (the C++ namespace `sluice`,
/// the Fortran module `sluice`) or of the C++ standard library (`std`, `__gnu_cxx`): code
/// that calls Sluice for the application, which is reported where it was called from.
pub fn library_symbol(name: &[u8]) -> bool {
    if name.starts_with(b"__sluice_MOD_") {
        return true;
    }
    let Some(rest) = name.strip_prefix(b"_Z") else { return false };
    // A local entity (a lambda) is named after its function, `Z<function>...`; a nested
    // name is `N`, its member function's qualifiers, then its outermost scope.
    let rest = rest.strip_prefix(b"Z").unwrap_or(rest);
    let rest = match rest.strip_prefix(b"N") {
        Some(nested) => &nested[nested.iter().take_while(|c| b"rVKRO".contains(c)).count()..],
        None => rest,
    };
    const SCOPES: [&[u8]; 9] = [b"6sluice", b"St", b"Sa", b"Sb", b"Ss", b"Si", b"So", b"Sd", b"9__gnu_cxx"];
    SCOPES.iter().any(|scope| rest.starts_with(scope))
}

/// Whether source `file` is a layer's or a standard library header.
fn library_file(file: &Path) -> bool {
    file.file_name().is_some_and(|name| LAYER_FILES.iter().any(|l| name == *l))
        || file.to_str().is_some_and(|f| f.contains(STD_HEADERS))
}

/// One function at a return address (the innermost of those inlined there first): its
/// source line if known, and whether it is the layers' or the standard library's (by its
/// file, else by its name).
struct Function {
    line: Option<(String, u32)>,
    library: bool,
}

/// The functions at return address `pc`, innermost first (none without symbols).
fn functions(pc: usize) -> Vec<Function> {
    let mut found = Vec::new();
    // The return address follows the call; look up the call instruction itself.
    backtrace::resolve((pc - 1) as *mut std::ffi::c_void, |sym| {
        let library = match sym.filename() {
            Some(file) => library_file(file),
            None => sym.name().is_some_and(|n| library_symbol(n.as_bytes())),
        };
        let line = sym.filename().zip(sym.lineno()).map(|(f, l)| (f.display().to_string(), l));
        found.push(Function { line, library });
    });
    found
}

/// Where a stack is reported: its first frame in the application's code (with a function
/// inlined there that is neither the layers' nor the standard library's), as that frame's
/// return address and line. A frame without symbols ends the search (nothing says it is
/// not the application's); a stack wholly in the layers is reported at its innermost line.
fn locate_stack(frames: &[usize]) -> (usize, Option<(String, u32)>) {
    let mut innermost = None;
    for &pc in frames {
        let functions = functions(pc);
        if functions.is_empty() {
            return (pc, None);
        }
        match functions.iter().position(|f| !f.library) {
            Some(first) => return (pc, functions.into_iter().nth(first).and_then(|f| f.line)),
            None => {
                innermost.get_or_insert_with(|| (pc, functions.into_iter().find_map(|f| f.line)));
            }
        }
    }
    innermost.unwrap_or((0, None))
}

impl CallSite {
    /// Whether the site was named by the application (`sl_set_call_site`).
    pub fn is_explicit(&self) -> bool {
        self.pc & EXPLICIT_TAG != 0
    }

    /// Where the call is reported: the application's return address it is reported at
    /// (the explicit site's tagged id for an explicit site) and the source file and line,
    /// if known from the site's name or from debug information.
    pub fn locate(&self) -> (usize, Option<(String, u32)>) {
        match self.pc {
            0 => (0, None),
            pc if self.is_explicit() => (pc, explicit_location(pc)),
            pc if pc & STACK_TAG != 0 => stack_frames(pc).map_or((0, None), |frames| locate_stack(&frames)),
            pc => locate_stack(&[pc]),
        }
    }

    /// The source file and line of the call (see `locate`).
    pub fn location(&self) -> Option<(String, u32)> {
        self.locate().1
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
    use rand::SeedableRng;

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
        assert_eq!(b.location(), Some(("model.c".to_string(), 42)));
        assert_eq!(b.to_string(), "sl_add at model.c:42");
    }

    #[test]
    fn stacks_are_interned_by_their_addresses() {
        let seed = rand::random::<u64>();
        eprintln!("stacks_are_interned_by_their_addresses: seed {seed}");
        let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
        // Addresses without symbols: located at the innermost, without a line.
        let mut address = || rand::Rng::random_range(&mut rng, 0x1000..1usize << 40);
        let (pc, caller, far) = (address(), address(), address());
        assert_eq!(stack(&[pc]), pc, "a single return address is its own site");
        let short = stack(&[pc, caller]);
        let long: Vec<usize> = (0..MAX_FRAMES).map(|i| if i == 0 { pc } else { address() }).collect();
        let long_id = stack(&long);
        for _ in 0..2 {
            assert_eq!(stack(&[pc, caller]), short);
            assert_eq!(stack(&long), long_id);
        }
        assert_ne!(stack(&[pc, far]), short);
        assert_eq!(stack_frames(short).as_deref(), Some(&[pc, caller][..]));
        assert_eq!(stack_frames(long_id).as_deref(), Some(&long[..]));
        let site = CallSite { pc: short, api: "sl_add" };
        assert!(!site.is_explicit());
        assert_eq!(site.locate(), (pc, None));
    }

    #[test]
    fn library_functions_are_told_by_their_symbols() {
        let library = [
            "_ZN6sluice6detail4makeIPFiljPmEJljEEENS_5ArrayET_DpT0_", // sluice::detail::make<...>
            "_ZNK6sluice5Array5dtypeEv",                              // a const member function
            "_ZN6sluiceplERKNS_5ArrayES2_",                           // sluice::operator+
            "_ZZN6sluice5macroIZ4mainEUlvE_EENS_5ArrayEPKcT_ENKUlvE_clEv", // a lambda in sluice::macro
            "_ZSt8_DestroyIPN6sluice5ArrayEEvT_S3_",                  // std::_Destroy<sluice::Array*>
            "_ZNSt6vectorIN6sluice5ArrayESaIS1_EED2Ev",               // std::vector<sluice::Array>::~vector
            "_ZNSaIN6sluice5ArrayEEC2Ev",                             // std::allocator<sluice::Array>
            "_ZN9__gnu_cxx13new_allocatorIN6sluice5ArrayEE8allocateEmPKv",
            "__sluice_MOD_binary_any", // the Fortran module
        ];
        let application = [
            "main",
            "MAIN__",
            "_Z4stepRKN6sluice5ArrayE", // step(sluice::Array const&)
            "_ZN4heat6sluiceEv",        // heat::sluice()
            "_ZN7sluicex3runEv",        // sluicex::run()
            "_ZZ4mainENKUlvE_clEv",     // a lambda in main
            "__solver_MOD_step",        // another Fortran module
            "_ZN12_GLOBAL__N_14stepERKN6sluice5ArrayE",
        ];
        for name in library {
            assert!(library_symbol(name.as_bytes()), "{name} is a library function");
        }
        for name in application {
            assert!(!library_symbol(name.as_bytes()), "{name} is the application's");
        }
    }
}
