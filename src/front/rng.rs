//! Random number generator objects: a bit generator, a seed and the next draw. Every
//! random array takes one draw; its elements are the counter-based stream of that draw
//! (see `ir::random`), so nothing else needs to be stored.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use parking_lot::Mutex;
use rustc_hash::FxHashMap as HashMap;

use crate::ir::{Result, RngKind, bail};

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

/// Generator ids share the handle space's 64 bits but carry their own tag, so an array
/// handle passed as a generator (or the reverse) is reported, not misused.
const RNG_TAG: u64 = 0x5A;

#[derive(Default)]
pub struct RngTable {
    next: AtomicU64,
    rngs: Mutex<HashMap<u64, Arc<Rng>>>,
}

impl RngTable {
    pub fn create(&self, kind: RngKind, seed: u64) -> u64 {
        let id = (self.next.fetch_add(1, Ordering::Relaxed) + 1) << 8 | RNG_TAG;
        let rng = Arc::new(Rng { kind, state: Mutex::new(RngState { seed, draw: 0 }) });
        self.rngs.lock().insert(id, rng);
        id
    }

    pub fn get(&self, id: u64) -> Result<Arc<Rng>> {
        match self.rngs.lock().get(&id) {
            Some(r) => Ok(r.clone()),
            None => bail!(InvalidHandle, "{id:#x} is not a live random number generator"),
        }
    }

    pub fn destroy(&self, id: u64) -> Result<()> {
        match self.rngs.lock().remove(&id) {
            Some(_) => Ok(()),
            None => bail!(InvalidHandle, "{id:#x} is not a live random number generator"),
        }
    }
}
