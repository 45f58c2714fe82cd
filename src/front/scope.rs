//! Scopes: a per-thread stack of frames, each listing the handles created while it was
//! the innermost. Ending a scope releases those still alive. A macro section being
//! recorded has a scope of its own, which only the section's end or cancel may close.

use std::cell::RefCell;

use crate::ir::{Result, bail};

struct Frame {
    handles: Vec<u64>,
    /// The scope of a macro section (opened by `sl_macro_begin`).
    section: bool,
}

thread_local! {
    static FRAMES: RefCell<Vec<Frame>> = const { RefCell::new(Vec::new()) };
}

/// Opens an application's scope (`sl_scope_begin`).
pub fn begin() {
    FRAMES.with(|f| f.borrow_mut().push(Frame { handles: Vec::new(), section: false }));
}

/// Opens the scope of a macro section being recorded.
pub fn begin_section() {
    FRAMES.with(|f| f.borrow_mut().push(Frame { handles: Vec::new(), section: true }));
}

/// Pops the innermost frame and returns its handles, oldest first. A section's scope is
/// refused (and kept): ending it would leave the section unable to end.
pub fn end() -> Result<Vec<u64>> {
    FRAMES.with(|f| {
        let mut frames = f.borrow_mut();
        match frames.last() {
            None => bail!(InvalidState, "sl_scope_end without a matching sl_scope_begin on this thread"),
            Some(top) if top.section => bail!(
                InvalidState,
                "sl_scope_end without a matching sl_scope_begin inside the macro section being recorded (the section's own scope ends with sl_macro_end or sl_macro_cancel)"
            ),
            Some(_) => Ok(frames.pop().expect("checked").handles),
        }
    })
}

/// What closing a section's scope left to do.
pub struct SectionEnd {
    /// Handles to release, oldest first.
    pub released: Vec<u64>,
    /// Application scopes begun inside the section and not ended (closed with it).
    pub unended: usize,
}

/// Pops the frames down to and including the innermost section's scope; the handles of
/// `keep` found in them move to the frame enclosing the section (or out of all scopes).
pub fn end_section(keep: &[u64]) -> Result<SectionEnd> {
    FRAMES.with(|f| {
        let mut frames = f.borrow_mut();
        let Some(at) = frames.iter().rposition(|fr| fr.section) else {
            bail!(InvalidState, "no macro section's scope is open on this thread");
        };
        let unended = frames.len() - at - 1;
        let (kept, released): (Vec<u64>, Vec<u64>) =
            frames.drain(at..).flat_map(|fr| fr.handles).partition(|h| keep.contains(h));
        if let Some(enclosing) = frames.last_mut() {
            enclosing.handles.extend(kept);
        }
        Ok(SectionEnd { released, unended })
    })
}

/// Records a new handle in the innermost frame, if a scope is open.
pub fn register(h: u64) {
    FRAMES.with(|f| {
        if let Some(top) = f.borrow_mut().last_mut() {
            top.handles.push(h);
        }
    });
}

/// Whether `h` was made inside the innermost macro section's scope (or scopes begun
/// inside it) on this thread.
pub fn made_in_section(h: u64) -> bool {
    FRAMES.with(|f| {
        let frames = f.borrow();
        let Some(at) = frames.iter().rposition(|fr| fr.section) else { return false };
        frames[at..].iter().any(|fr| fr.handles.contains(&h))
    })
}

/// Moves `h` from the innermost frame to the one enclosing it (or out of all scopes).
pub fn keep(h: u64) -> Result<()> {
    FRAMES.with(|f| {
        let mut frames = f.borrow_mut();
        let depth = frames.len();
        let Some(top) = frames.last_mut() else {
            bail!(InvalidState, "sl_keep outside any scope");
        };
        let Some(pos) = top.handles.iter().rposition(|&x| x == h) else {
            bail!(InvalidArgument, "sl_keep: handle {h:#x} was not created in the current scope");
        };
        top.handles.remove(pos);
        if depth >= 2 {
            frames[depth - 2].handles.push(h);
        }
        Ok(())
    })
}

/// Removes `h` from every frame on this thread (`sl_unscope`).
pub fn unscope(h: u64) {
    FRAMES.with(|f| {
        for frame in f.borrow_mut().iter_mut() {
            frame.handles.retain(|&x| x != h);
        }
    });
}
