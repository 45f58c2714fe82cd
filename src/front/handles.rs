//! Tables of generational handles: array handles (to nodes) and random generator ids. A
//! handle is `(generation ^ salt) << 32 | kind | (slot + 1)`:
//! - every handle made takes the next generation of one process-wide counter, so no handle
//!   is made twice in a process, not even by the runtime that starts after `sl_shutdown`:
//!   a released handle, or one of an earlier runtime, is detected and never reaches what
//!   its slot holds now (until the counter wraps, after 2^32 handles);
//! - the per-process salt makes small forged integers invalid;
//! - the kind bit tells array handles from generators, so one passed as the other is refused.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, LazyLock};

use parking_lot::Mutex;
use smallvec::{Array, SmallVec};

use crate::ir::{Error, ErrorKind, Node, Result};

/// What a handle refers to.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Kind {
    Array,
    Rng,
}

/// The bit of a handle's low word that marks generators; the rest is the slot + 1.
const RNG_BIT: u32 = 1 << 31;

impl Kind {
    fn bit(self) -> u32 {
        match self {
            Kind::Array => 0,
            Kind::Rng => RNG_BIT,
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Kind::Array => "handle",
            Kind::Rng => "random number generator",
        }
    }
}

/// What a table holds.
pub trait Entry: Clone {
    const KIND: Kind;
    /// Called under the table's lock when a handle to the entry is made or released.
    fn handle_added(&self) {}
    fn handle_removed(&self) {}
}

impl Entry for Arc<Node> {
    const KIND: Kind = Kind::Array;
    /// Handle counts change only under the lock (see `Node::add_handle`).
    fn handle_added(&self) {
        self.add_handle();
    }
    fn handle_removed(&self) {
        self.remove_handle();
    }
}

/// The generation of the next handle made, in any table of the process.
static NEXT_GENERATION: AtomicU32 = AtomicU32::new(1);

static SALT: LazyLock<u32> = LazyLock::new(|| {
    // Any varying bits will do: the salt only has to make guessed handles unlikely.
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
    let place = &t as *const u128 as u64; // differs between runs where addresses are randomised
    ((t as u64 ^ place).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as u32
});

struct Slot<T> {
    generation: u32,
    entry: Option<T>,
}

struct Inner<T> {
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
    live: usize,
}

pub struct HandleTable<T: Entry> {
    inner: Mutex<Inner<T>>,
    /// The first generation this table could hand out: handles of older ones were made
    /// before it (by an earlier runtime) or forged.
    first: u32,
}

fn encode(kind: Kind, slot: u32, generation: u32) -> u64 {
    (((generation ^ *SALT) as u64) << 32) | (kind.bit() | (slot + 1)) as u64
}

/// The kind bit, slot and generation of `h`.
fn decode(h: u64) -> (u32, usize, u32) {
    let low = h as u32;
    (low & RNG_BIT, ((low & !RNG_BIT) as usize).wrapping_sub(1), (h >> 32) as u32 ^ *SALT)
}

impl<T: Entry> HandleTable<T> {
    pub fn new() -> HandleTable<T> {
        HandleTable {
            inner: Mutex::new(Inner { slots: Vec::new(), free: Vec::new(), live: 0 }),
            first: NEXT_GENERATION.load(Ordering::Relaxed),
        }
    }

    pub fn insert(&self, entry: T) -> u64 {
        let mut t = self.inner.lock();
        entry.handle_added();
        t.live += 1;
        let slot = match t.free.pop() {
            Some(s) => s,
            None => {
                // Each slot holds a live entry, so memory runs out long before 2^31 of them.
                assert!(t.slots.len() < (RNG_BIT - 1) as usize, "more than 2^31 live handles");
                t.slots.push(Slot { generation: 0, entry: None });
                (t.slots.len() - 1) as u32
            }
        };
        let generation = NEXT_GENERATION.fetch_add(1, Ordering::Relaxed);
        t.slots[slot as usize] = Slot { generation, entry: Some(entry) };
        drop(t);
        encode(T::KIND, slot, generation)
    }

    pub fn get(&self, h: u64) -> Result<T> {
        let t = self.inner.lock();
        self.lookup(&t, h)
    }

    fn lookup(&self, t: &Inner<T>, h: u64) -> Result<T> {
        let (kind, slot, generation) = decode(h);
        match t.slots.get(slot) {
            Some(Slot { generation: g, entry: Some(e) }) if *g == generation && kind == T::KIND.bit() => Ok(e.clone()),
            _ => Err(self.invalid(h)),
        }
    }

    /// The entries of `hs`, appended to `entries` in order, under one lock (an error names
    /// the first invalid handle).
    pub fn get_all<A: Array<Item = T>>(&self, hs: &[u64], entries: &mut SmallVec<A>) -> Result<()> {
        let t = self.inner.lock();
        for &h in hs {
            entries.push(self.lookup(&t, h)?);
        }
        Ok(())
    }

    /// Releases `h`; the entry lives on while others hold it (a node: other handles or
    /// pending work).
    pub fn remove(&self, h: u64) -> Result<()> {
        let mut t = self.inner.lock();
        self.lookup(&t, h)?;
        let (_, slot, _) = decode(h);
        let entry = t.slots[slot].entry.take();
        t.free.push(slot as u32);
        t.live -= 1;
        if let Some(e) = &entry {
            e.handle_removed();
        }
        drop(t);
        // Dropping the last reference to a long pending chain happens here, outside the lock.
        drop(entry);
        Ok(())
    }

    /// Points `h` at `entry` instead of its entry (an assignment's new version); the
    /// handle keeps its value, and other handles their entries.
    pub fn replace(&self, h: u64, entry: T) -> Result<()> {
        let mut t = self.inner.lock();
        self.lookup(&t, h)?;
        let (_, slot, _) = decode(h);
        entry.handle_added();
        let old = t.slots[slot].entry.replace(entry);
        if let Some(e) = &old {
            e.handle_removed();
        }
        drop(t);
        drop(old);
        Ok(())
    }

    fn invalid(&self, h: u64) -> Error {
        let (kind, _, generation) = decode(h);
        let made_here =
            generation.wrapping_sub(self.first) < NEXT_GENERATION.load(Ordering::Relaxed).wrapping_sub(self.first);
        let why = if h == 0 {
            "the null handle"
        } else if kind != T::KIND.bit() {
            "an array handle passed as a random number generator, or the reverse"
        } else if made_here {
            "released (stale)"
        } else {
            "not made by this runtime (made before sl_shutdown, or forged)"
        };
        let noun = T::KIND.noun();
        Error::new(ErrorKind::InvalidHandle, format!("invalid {noun} {h:#x}: not a live {noun}: {why}"))
    }

    pub fn live(&self) -> usize {
        self.inner.lock().live
    }

    /// Releases every handle (runtime shutdown).
    pub fn clear(&self) {
        let entries: Vec<T> = {
            let mut t = self.inner.lock();
            t.live = 0;
            let entries: Vec<T> = t.slots.iter_mut().filter_map(|s| s.entry.take()).collect();
            entries.iter().for_each(Entry::handle_removed);
            t.free = (0..t.slots.len() as u32).rev().collect();
            entries
        };
        // Released outside the lock.
        drop(entries);
    }
}

impl<T: Entry> Default for HandleTable<T> {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone)]
    struct Thing;
    impl Entry for Thing {
        const KIND: Kind = Kind::Rng;
    }

    /// A table made after another (a runtime after `sl_shutdown`) hands out none of the
    /// first one's handles, and refuses them; handles of the other kind are refused too.
    #[test]
    fn handles_stay_unique_across_tables() {
        let old: HandleTable<Thing> = HandleTable::new();
        let before: Vec<u64> = (0..4).map(|_| old.insert(Thing)).collect();
        old.remove(before[0]).unwrap();
        old.clear();
        let new: HandleTable<Thing> = HandleTable::new();
        for _ in 0..100 {
            let h = new.insert(Thing);
            assert!(!before.contains(&h));
            new.remove(h).unwrap();
        }
        for &h in &before {
            let e = new.get(h).err().expect("an old handle is refused");
            assert_eq!(e.kind, ErrorKind::InvalidHandle);
            assert!(e.message.contains("before sl_shutdown"), "{}", e.message);
        }
        let array = encode(Kind::Array, 0, NEXT_GENERATION.load(Ordering::Relaxed));
        assert!(new.get(array).err().expect("refused").message.contains("array handle"));
    }
}
