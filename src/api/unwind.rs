//! The return addresses of an API call made through the language layers: the call's own,
//! then its callers' while they are functions of the layers or of the C++ standard library
//! (which a container of arrays calls the layer from), up to the first of the
//! application's. They are unwound with the DWARF call-frame information of the loaded
//! objects (`.eh_frame`, which C, C++ and Fortran compilers emit by default on x86-64);
//! frame pointers cannot be followed past the application's first frame, since g++ and
//! gfortran omit them from -O1 on. Whose a function is, capture tells by its symbol (from
//! the object's symbol table, read once per object): cheap and conservative, as a layer's
//! function may have the application's code inlined; locating the site tells exactly, from
//! debug information (`ir::site`). What unwinding past a return address takes (a `Rule`)
//! and whose its function is are found once per process and kept in a lock-free table, so
//! a call from a known place costs a few loads per frame.

use std::ffi::{CStr, c_int, c_void};
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering, fence};

use gimli::{
    BaseAddresses, CfaRule, EhFrame, EhFrameHdr, NativeEndian, Pointer, RegisterRule, UnwindContext, UnwindSection,
    UnwindTableRow, X86_64,
};
use object::{Object, ObjectSymbol, SymbolKind};
use parking_lot::Mutex;
use rustc_hash::{FxBuildHasher, FxHashMap as HashMap, FxHashSet as HashSet};

use crate::ir::site::{MAX_FRAMES, library_symbol};

/// How to find a function's caller at one return address in it: the canonical frame
/// address (CFA, the stack pointer before the call into the function) is `cfa_offset`
/// past the stack pointer or the frame pointer; the return address into the caller is
/// saved at `ra_offset` from the CFA, and the caller's frame pointer at `fp_offset` if
/// the function saved it (otherwise it still holds the caller's).
#[derive(Copy, Clone, Debug, PartialEq)]
struct Rule {
    cfa_from_fp: bool,
    cfa_offset: i32,
    ra_offset: i8,
    fp_offset: Option<i8>,
}

/// The registers unwinding follows, in one frame: where it returns to, its stack pointer
/// after that return, and its frame pointer.
struct Regs {
    pc: usize,
    sp: usize,
    fp: usize,
}

/// A frame larger than this is taken as a sign that the rules do not describe the stack.
const MAX_FRAME: usize = 1 << 28;

/// What capture knows of a return address, packed into a word (so that a slot of `RECENT`
/// is two): whether its function is a library's (the layers' or the standard library's,
/// by its symbol), and how to unwind past it. Bits 0-3: library, has a rule, CFA from the
/// frame pointer, frame pointer saved; then the CFA offset (32 bits), the return address's
/// offset and the frame pointer's (8 each).
#[derive(Copy, Clone, Debug, PartialEq)]
struct Frame(u64);
/// A slot of the table of recent return addresses: an address and its `Frame`, packed.
/// Written only under the lock of `KNOWN`, address last; read without a lock, the address
/// before and after the frame, so that a read racing with a write is seen to.
struct Slot {
    pc: AtomicUsize,
    frame: AtomicU64,
}

const SLOTS: usize = 1024;
static RECENT: [Slot; SLOTS] = [const { Slot { pc: AtomicUsize::new(0), frame: AtomicU64::new(0) } }; SLOTS];
/// Every return address seen, for those whose slot another took since.
static KNOWN: Mutex<HashMap<usize, Frame>> = Mutex::new(HashMap::with_hasher(FxBuildHasher));

/// The `CallSite::pc` of the API call whose exported function's frame pointer is `fp`:
/// its return address, or, when that is in a library's function, the interned stack of
/// return addresses up to the first outside the libraries (at most `MAX_FRAMES`). Out of
/// line, so that each export only reads its frame pointer.
#[inline(never)]
pub fn call_site(fp: usize) -> usize {
    // SAFETY: `fp` is the frame pointer of the exported function running on this thread
    // (compiled with frame pointers): the return address follows the saved frame pointer.
    let pc = unsafe { *((fp + 8) as *const usize) };
    let frame = frame(pc);
    if frame.library() { through_libraries(fp, frame) } else { pc }
}

/// The call site of a call from a library's function (whose `Frame` is `frame`).
#[inline(never)]
fn through_libraries(fp: usize, mut frame: Frame) -> usize {
    // SAFETY: as in `call_site`; the caller's stack pointer is just past the return address.
    let mut regs = unsafe { Regs { pc: *((fp + 8) as *const usize), sp: fp + 16, fp: *(fp as *const usize) } };
    let mut frames = [0; MAX_FRAMES];
    frames[0] = regs.pc;
    let mut n = 1;
    while n < MAX_FRAMES
        && frame.library()
        && let Some(next) = frame.rule().and_then(|r| caller(r, &regs))
    {
        frames[n] = next.pc;
        n += 1;
        regs = next;
        frame = self::frame(regs.pc);
    }
    crate::ir::site::stack(&frames[..n])
}

/// What is known of return address `pc`: from its slot, else found (once) and kept.
#[inline(always)]
fn frame(pc: usize) -> Frame {
    // Fibonacci hashing: the top bits of the product.
    let slot = &RECENT[pc.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (usize::BITS - SLOTS.ilog2())];
    let before = slot.pc.load(Ordering::Acquire);
    let bits = slot.frame.load(Ordering::Relaxed);
    fence(Ordering::Acquire);
    if before == pc && slot.pc.load(Ordering::Relaxed) == pc { Frame(bits) } else { remember(slot, pc) }
}

#[cold]
#[inline(never)]
fn remember(slot: &Slot, pc: usize) -> Frame {
    let mut known = KNOWN.lock();
    let frame = *known.entry(pc).or_insert_with(|| describe(pc));
    slot.pc.store(0, Ordering::Relaxed);
    fence(Ordering::Release);
    slot.frame.store(frame.0, Ordering::Relaxed);
    slot.pc.store(pc, Ordering::Release);
    frame
}

impl Frame {
    fn new(library: bool, rule: Option<Rule>) -> Frame {
        let r = rule.unwrap_or(Rule { cfa_from_fp: false, cfa_offset: 0, ra_offset: 0, fp_offset: None });
        Frame(
            u64::from(library)
                | u64::from(rule.is_some()) << 1
                | u64::from(r.cfa_from_fp) << 2
                | u64::from(r.fp_offset.is_some()) << 3
                | u64::from(r.cfa_offset as u32) << 16
                | u64::from(r.ra_offset as u8) << 48
                | u64::from(r.fp_offset.unwrap_or(0) as u8) << 56,
        )
    }

    fn library(self) -> bool {
        self.0 & 1 != 0
    }

    fn rule(self) -> Option<Rule> {
        let bits = self.0;
        (bits & 2 != 0).then_some(Rule {
            cfa_from_fp: bits & 4 != 0,
            cfa_offset: (bits >> 16) as u32 as i32,
            ra_offset: (bits >> 48) as u8 as i8,
            fp_offset: (bits & 8 != 0).then_some((bits >> 56) as u8 as i8),
        })
    }
}

/// The registers of the caller of the frame `r`, whose function's rule is `rule`.
#[inline(always)]
fn caller(rule: Rule, r: &Regs) -> Option<Regs> {
    let base = if rule.cfa_from_fp { r.fp } else { r.sp };
    let cfa = base.wrapping_add_signed(rule.cfa_offset as isize);
    // The caller's frame lies above, past the saved registers (`Rule::of` allows only
    // negative offsets of whole words); anything else means the rules do not fit this stack.
    let deepest = -i64::from(rule.ra_offset.min(rule.fp_offset.unwrap_or(0))) as usize;
    if !(deepest..=MAX_FRAME).contains(&cfa.wrapping_sub(r.sp)) || !cfa.is_multiple_of(8) {
        return None;
    }
    // SAFETY: between the frame's stack pointer and its CFA is the frame itself, live on
    // this thread's stack below the exported function running now; the saved registers
    // lie in it, whole words below the CFA.
    let saved = |offset: i8| unsafe { *(cfa.wrapping_add_signed(offset as isize) as *const usize) };
    let pc = saved(rule.ra_offset);
    let fp = rule.fp_offset.map_or(r.fp, saved);
    (pc != 0).then_some(Regs { pc, sp: cfa, fp })
}

/// What capture needs to know of return address `pc`, from the loaded object holding it.
fn describe(pc: usize) -> Frame {
    let Some(found) = find(pc) else { return Frame::new(false, None) };
    let library = library_functions(&found.object, found.bias).contains(&found.function);
    Frame::new(library, found.rule)
}

/// The loaded object holding a return address (its file, "" for the program, and load
/// bias), the start of the function holding it and the rule there.
struct Found {
    object: String,
    bias: usize,
    function: usize,
    rule: Option<Rule>,
}

fn find(pc: usize) -> Option<Found> {
    struct Search {
        pc: usize,
        found: Option<Found>,
    }
    unsafe extern "C" fn visit(info: *mut libc::dl_phdr_info, _size: usize, data: *mut c_void) -> c_int {
        // SAFETY: the loader passes a valid description of one loaded object, whose
        // program headers stay mapped while it runs this callback; `data` is the search.
        let (info, search) = unsafe { (&*info, &mut *(data as *mut Search)) };
        let headers = unsafe { std::slice::from_raw_parts(info.dlpi_phdr, usize::from(info.dlpi_phnum)) };
        let bias = info.dlpi_addr as usize;
        let range = |h: &libc::Elf64_Phdr| bias + h.p_vaddr as usize..bias + (h.p_vaddr + h.p_memsz) as usize;
        let loaded = || headers.iter().filter(|h| h.p_type == libc::PT_LOAD).map(range);
        if !loaded().any(|r| r.contains(&search.pc)) {
            return 0;
        }
        search.found = headers.iter().find(|h| h.p_type == libc::PT_GNU_EH_FRAME).and_then(|h| {
            let segment_end = |addr: usize| loaded().find(|r| r.contains(&addr)).map(|r| r.end);
            let (function, rule) = unwind_info(search.pc, range(h), segment_end)?;
            // SAFETY: the loader's name of the object, a C string ("" for the program).
            let object = unsafe { CStr::from_ptr(info.dlpi_name) }.to_string_lossy().into_owned();
            Some(Found { object, bias, function, rule })
        });
        1
    }
    let mut search = Search { pc, found: None };
    // SAFETY: `visit` matches the callback's signature and only reads what it is given.
    unsafe { libc::dl_iterate_phdr(Some(visit), &mut search as *mut Search as *mut c_void) };
    search.found
}

/// Start addresses of the library functions (see `library_symbol`) of each loaded object
/// seen so far, by file and load bias.
type LibraryFunctions = Arc<HashSet<usize>>;
static LIBRARY_FUNCTIONS: Mutex<Vec<(String, usize, LibraryFunctions)>> = Mutex::new(Vec::new());

fn library_functions(object: &str, bias: usize) -> LibraryFunctions {
    let mut known = LIBRARY_FUNCTIONS.lock();
    if let Some((_, _, functions)) = known.iter().find(|(o, b, _)| o == object && *b == bias) {
        return functions.clone();
    }
    let functions = Arc::new(read_library_functions(object, bias));
    known.push((object.to_owned(), bias, functions.clone()));
    functions
}

/// Reads the symbol tables of an object's file (none found: no function is a library's).
fn read_library_functions(object: &str, bias: usize) -> HashSet<usize> {
    let path = if object.is_empty() { "/proc/self/exe" } else { object };
    let Ok(file) = std::fs::File::open(path) else { return HashSet::default() };
    let data = object::ReadCache::new(file);
    let Ok(elf) = object::File::parse(&data) else { return HashSet::default() };
    elf.symbols()
        .chain(elf.dynamic_symbols())
        .filter(|s| s.kind() == SymbolKind::Text && s.name_bytes().is_ok_and(library_symbol))
        .map(|s| bias + s.address() as usize)
        .collect()
}

/// The start of the function holding `pc` and the rule there, from an object's
/// `.eh_frame_hdr` (loaded at `hdr`) and the `.eh_frame` it points to, read up to the end
/// of the segment holding it.
fn unwind_info(
    pc: usize,
    hdr: Range<usize>,
    segment_end: impl Fn(usize) -> Option<usize>,
) -> Option<(usize, Option<Rule>)> {
    // SAFETY: both sections lie in segments the loader keeps mapped while the object is
    // loaded, and it stays loaded while `dl_iterate_phdr` runs.
    let hdr_bytes = unsafe { std::slice::from_raw_parts(hdr.start as *const u8, hdr.len()) };
    let bases = BaseAddresses::default().set_eh_frame_hdr(hdr.start as u64);
    let parsed = EhFrameHdr::new(hdr_bytes, NativeEndian).parse(&bases, size_of::<usize>() as u8).ok()?;
    let Pointer::Direct(eh_frame) = parsed.eh_frame_ptr() else { return None };
    let eh_frame = eh_frame as usize;
    let end = segment_end(eh_frame)?;
    let bytes = unsafe { std::slice::from_raw_parts(eh_frame as *const u8, end - eh_frame) };
    let bases = bases.set_eh_frame(eh_frame as u64);
    let section = EhFrame::new(bytes, NativeEndian);
    // A return address follows its call; the call itself may be a function's last
    // instruction, so look up the byte before.
    let at = (pc - 1) as u64;
    let fde = parsed.table()?.fde_for_address(&section, &bases, at, EhFrame::cie_from_offset).ok()?;
    let mut ctx = UnwindContext::new();
    let rule = fde.unwind_info_for_address(&section, &bases, &mut ctx, at).ok().and_then(Rule::of);
    Some((fde.initial_address() as usize, rule))
}

impl Rule {
    /// The rule of an unwind-table row, if it is of the forms compilers emit at calls.
    fn of(row: &UnwindTableRow<usize>) -> Option<Rule> {
        let CfaRule::RegisterAndOffset { register, offset } = *row.cfa() else { return None };
        let cfa_from_fp = match register {
            X86_64::RSP => false,
            X86_64::RBP => true,
            _ => return None,
        };
        // Saved registers: whole words below the CFA.
        let saved_at = |offset: i64| (offset < 0 && offset % 8 == 0).then(|| i8::try_from(offset).ok()).flatten();
        let Some(RegisterRule::Offset(ra_offset)) = row.register(X86_64::RA) else { return None };
        let fp_offset = match row.register(X86_64::RBP) {
            None | Some(RegisterRule::SameValue) => None,
            Some(RegisterRule::Offset(offset)) => Some(saved_at(offset)?),
            Some(_) => return None,
        };
        Some(Rule { cfa_from_fp, cfa_offset: i32::try_from(offset).ok()?, ra_offset: saved_at(ra_offset)?, fp_offset })
    }
}

#[cfg(test)]
mod tests {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    use super::*;

    #[test]
    fn frames_pack_into_one_word() {
        let seed = rand::random::<u64>();
        eprintln!("frames_pack_into_one_word: seed {seed}");
        let mut rng = StdRng::seed_from_u64(seed);
        for _ in 0..1000 {
            let rule = Rule {
                cfa_from_fp: rng.random(),
                cfa_offset: rng.random(),
                ra_offset: rng.random(),
                fp_offset: rng.random::<bool>().then(|| rng.random()),
            };
            for rule in [Some(rule), None] {
                let library = rng.random();
                let frame = Frame::new(library, rule);
                assert_eq!((frame.library(), frame.rule()), (library, rule));
            }
        }
    }

    /// Unwinds from its own frame to `outer`'s caller with the call-frame information,
    /// and returns that with what the frame pointers (on in this crate) say.
    #[inline(never)]
    fn inner() -> (Option<usize>, usize, Option<usize>) {
        let fp: usize;
        // SAFETY: reads a register.
        unsafe { std::arch::asm!("mov {}, rbp", out(reg) fp, options(nomem, nostack, preserves_flags)) };
        // SAFETY: with frame pointers, each frame record is the saved frame pointer and
        // the return address; `outer`'s is live while this runs.
        let (regs, want) = unsafe {
            let outer_fp = *(fp as *const usize);
            (Regs { pc: *((fp + 8) as *const usize), sp: fp + 16, fp: outer_fp }, *((outer_fp + 8) as *const usize))
        };
        let found = find(regs.pc);
        let unwound = found.as_ref().and_then(|f| f.rule).and_then(|rule| caller(rule, &regs)).map(|r| r.pc);
        (unwound, want, found.map(|f| f.function))
    }

    #[inline(never)]
    fn outer() -> (Option<usize>, usize, Option<usize>) {
        std::hint::black_box(inner())
    }

    #[test]
    fn call_frame_information_finds_the_callers_return_address() {
        let (unwound, want, function) = outer();
        assert_ne!(want, 0);
        assert_eq!(unwound, Some(want));
        assert_eq!(function, Some(outer as fn() -> _ as usize), "the start of the function holding the return address");
    }
}
