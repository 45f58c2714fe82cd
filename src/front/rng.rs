//! Random number generator objects: a bit generator, a seed and the next draw. Every
//! random array takes one draw; its elements are the counter-based stream of that draw
//! (see `ir::random`), so nothing else needs to be stored.

use std::sync::Arc;

use parking_lot::Mutex;

use super::handles::{Entry, HandleTable, Kind};
use crate::ir::RngKind;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RngState {
    pub seed: u64,
    /// The next draw.
    pub draw: u64,
}

pub struct Rng {
    pub kind: RngKind,
    state: Mutex<RngState>,
}

impl Rng {
    /// Takes `count` consecutive draws, returning the state before them.
    pub fn take(&self, count: u64) -> RngState {
        let mut st = self.state.lock();
        let before = *st;
        st.draw = st.draw.wrapping_add(count);
        before
    }

    pub fn state(&self) -> RngState {
        *self.state.lock()
    }

    pub fn set_state(&self, s: RngState) {
        *self.state.lock() = s;
    }
}

impl Rng {
    pub fn new(kind: RngKind, seed: u64) -> Arc<Rng> {
        Arc::new(Rng { kind, state: Mutex::new(RngState { seed, draw: 0 }) })
    }
}

impl Entry for Arc<Rng> {
    const KIND: Kind = Kind::Rng;
}

/// Generator ids: generational handles like arrays' (`front::handles`), of their own kind.
pub type RngTable = HandleTable<Arc<Rng>>;
