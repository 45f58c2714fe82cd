//! Scopes of distributed-array handles, as Sluice's scopes of array handles: a per-thread
//! stack of frames, each listing the handles made while it was the innermost;
//! `sl_mpi_scope_end` releases those still live. For callers without destructors (the
//! Fortran layer's expression temporaries).

use std::cell::RefCell;

use crate::error::{Result, bail};
use crate::sluice_sys::{SL_ERR_INVALID_ARGUMENT, SL_ERR_INVALID_STATE};

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
        None => bail!(SL_ERR_INVALID_STATE, "sl_mpi_scope_end without a matching sl_mpi_scope_begin on this thread"),
    })
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
            bail!(SL_ERR_INVALID_STATE, "sl_mpi_keep outside any scope");
        };
        let Some(pos) = top.iter().rposition(|&x| x == h) else {
            bail!(SL_ERR_INVALID_ARGUMENT, "handle {h:#x} was not created in the current scope");
        };
        top.remove(pos);
        if depth >= 2 {
            frames[depth - 2].push(h);
        }
        Ok(())
    })
}
