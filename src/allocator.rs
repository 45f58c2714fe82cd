//! The global allocator: mimalloc, entered through its plain calls whenever the alignment
//! asked for is one every mimalloc block of that size has; the C library's allocator when
//! a sanitizer has replaced it.
//!
//! The `mimalloc` crate's allocator always calls `mi_malloc_aligned`. When the page of a
//! size class has no free block at that moment, that call over-allocates from a larger
//! class instead of refilling the page, so a loop that allocates and frees one object of
//! a size that is not a power of two (a replayed macro's output buffer handle, 48 bytes)
//! keeps taking that slow path. The plain calls refill the page.
//!
//! mimalloc takes its memory from the system in large pages, so a sanitizer (AddressSanitizer,
//! LeakSanitizer, ...) sees none of Sluice's blocks: no leak, overflow or use after free of
//! them would be reported. In a process a sanitizer runs in, every block comes from the C
//! library's `malloc` (which the sanitizer replaces) instead, decided before the first one.

use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::c_void;
use std::sync::atomic::{AtomicU8, Ordering};

use libmimalloc_sys as mi;

/// Every mimalloc block of at least this many bytes is aligned to it (`MI_MAX_ALIGN_SIZE`);
/// smaller blocks to their size.
const PLAIN_ALIGN: usize = 16;

pub struct Allocator;

fn plain(layout: &Layout) -> bool {
    layout.align() <= PLAIN_ALIGN && layout.align() <= layout.size()
}

const UNDECIDED: u8 = 0;
const MIMALLOC: u8 = 1;
const SYSTEM: u8 = 2;

/// Whether blocks come from the C library's allocator: when a sanitizer with an allocator of
/// its own runs in the process (every such runtime exports this function). Threads racing
/// to decide look up the same symbol, so all get the same answer.
#[inline]
fn system() -> bool {
    static CHOICE: AtomicU8 = AtomicU8::new(UNDECIDED);
    match CHOICE.load(Ordering::Relaxed) {
        UNDECIDED => {
            // SAFETY: a lookup of a NUL-terminated name; dlsym allocates, if at all, with the
            // C library's malloc, never through this allocator.
            let found =
                !unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"__sanitizer_get_allocated_size".as_ptr()) }.is_null();
            CHOICE.store(if found { SYSTEM } else { MIMALLOC }, Ordering::Relaxed);
            found
        }
        choice => choice == SYSTEM,
    }
}

// SAFETY: every call forwards to mimalloc with the size and (where it matters) the
// alignment of the layout, or to the system allocator with the layout, the same one for
// every block of the process; blocks from any of mimalloc's calls are freed with `mi_free`.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        #[cfg(test)]
        counting::count();
        unsafe {
            if system() {
                System.alloc(layout)
            } else if plain(&layout) {
                mi::mi_malloc(layout.size()) as *mut u8
            } else {
                mi::mi_malloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        #[cfg(test)]
        counting::count();
        unsafe {
            if system() {
                System.alloc_zeroed(layout)
            } else if plain(&layout) {
                mi::mi_zalloc(layout.size()) as *mut u8
            } else {
                mi::mi_zalloc_aligned(layout.size(), layout.align()) as *mut u8
            }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { if system() { System.dealloc(ptr, layout) } else { mi::mi_free(ptr as *mut c_void) } }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let new = Layout::from_size_align(new_size, layout.align()).unwrap_or(layout);
        #[cfg(test)]
        counting::count();
        unsafe {
            if system() {
                System.realloc(ptr, layout, new_size)
            } else if plain(&new) {
                mi::mi_realloc(ptr as *mut c_void, new_size) as *mut u8
            } else {
                mi::mi_realloc_aligned(ptr as *mut c_void, new_size, layout.align()) as *mut u8
            }
        }
    }
}

/// Unit tests count the blocks a thread allocates (a replay's or a read's path claims a
/// number); release builds count nothing.
#[cfg(test)]
pub mod counting {
    use std::cell::Cell;

    thread_local! {
        // A const initialiser and no destructor: using it never allocates.
        static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
    }

    pub(super) fn count() {
        ALLOCATIONS.with(|c| c.set(c.get() + 1));
    }

    /// Blocks allocated (or reallocated) by this thread so far.
    pub fn allocations() -> u64 {
        ALLOCATIONS.with(Cell::get)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Blocks of every size and alignment mix come back aligned, and keep their contents
    /// through a reallocation.
    #[test]
    fn blocks_are_aligned() {
        let a = Allocator;
        for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
            for size in [1, 3, 8, 15, 16, 24, 48, 100, 1000, 5000] {
                let layout = Layout::from_size_align(size, align).unwrap();
                unsafe {
                    let p = a.alloc(layout);
                    assert!(!p.is_null() && (p as usize).is_multiple_of(align), "size {size} align {align}");
                    for i in 0..size {
                        *p.add(i) = i as u8;
                    }
                    let q = a.realloc(p, layout, size * 3);
                    assert!((q as usize).is_multiple_of(align), "realloc to {} align {align}", size * 3);
                    assert!((0..size).all(|i| *q.add(i) == i as u8), "contents kept");
                    a.dealloc(q, Layout::from_size_align(size * 3, align).unwrap());
                    let z = a.alloc_zeroed(layout);
                    assert!((z as usize).is_multiple_of(align) && (0..size).all(|i| *z.add(i) == 0));
                    a.dealloc(z, layout);
                }
            }
        }
    }
}
