//! Scopes: a per-thread stack of frames, each listing the handles created while it was
//! the innermost. Ending a scope releases those still alive.

use std::cell::RefCell;

use crate::ir::{Result, bail};

thread_local! {
    static FRAMES: RefCell<Vec<Vec<u64>>> = const { RefCell::new(Vec::new()) };
}

pub fn begin() {
    FRAMES.with(|f| f.borrow_mut().push(Vec::new()));
}

/// Pops the innermost frame and returns its handles, oldest first.
pub fn end() -> Result<Vec<u64>> {
    FRAMES.with(|f| match f.borrow_mut().pop() {
        Some(handles) => Ok(handles),
        None => bail!(InvalidState, "sl_scope_end without a matching sl_scope_begin on this thread"),
    })
}

/// Scopes open on this thread.
pub fn depth() -> usize {
    FRAMES.with(|f| f.borrow().len())
}

/// Records a new handle in the innermost frame, if a scope is open.
pub fn register(h: u64) {
    FRAMES.with(|f| {
        if let Some(top) = f.borrow_mut().last_mut() {
            top.push(h);
        }
    });
}

/// Moves `h` from the innermost frame to the one enclosing it (or out of all scopes).
pub fn keep(h: u64) -> Result<()> {
    FRAMES.with(|f| {
        let mut frames = f.borrow_mut();
        let depth = frames.len();
        let Some(top) = frames.last_mut() else {
            bail!(InvalidState, "sl_keep outside any scope");
        };
        let Some(pos) = top.iter().rposition(|&x| x == h) else {
            bail!(InvalidArgument, "sl_keep: handle {h:#x} was not created in the current scope");
        };
        top.remove(pos);
        if depth >= 2 {
            frames[depth - 2].push(h);
        }
        Ok(())
    })
}
