//! The table of active handles. A handle is `(generation ^ salt) << 32 | (slot + 1)`:
//! releasing a handle bumps its slot's generation, so stale handles are detected, and the
//! per-process salt makes small forged integers invalid.

use std::sync::Arc;

use parking_lot::Mutex;
use smallvec::{Array, SmallVec};

use crate::ir::{Node, Result};

struct Slot {
    generation: u32,
    node: Option<Arc<Node>>,
}

struct Inner {
    slots: Vec<Slot>,
    free: Vec<u32>,
    live: usize,
}

pub struct HandleTable {
    inner: Mutex<Inner>,
    salt: u32,
}

impl HandleTable {
    pub fn new() -> HandleTable {
        // Any varying bits will do: the salt only has to make guessed handles unlikely.
        let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        let salt = ((t as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32) as u32 | 1;
        HandleTable { inner: Mutex::new(Inner { slots: Vec::new(), free: Vec::new(), live: 0 }), salt }
    }

    fn encode(&self, slot: u32, generation: u32) -> u64 {
        (((generation ^ self.salt) as u64) << 32) | (slot as u64 + 1)
    }

    fn decode(&self, h: u64) -> (usize, u32) {
        (((h & 0xFFFF_FFFF) as usize).wrapping_sub(1), (h >> 32) as u32 ^ self.salt)
    }

    /// Handle counts change only under the lock (see `Node::add_handle`).
    pub fn insert(&self, node: Arc<Node>) -> u64 {
        let mut t = self.inner.lock();
        node.add_handle();
        t.live += 1;
        let slot = match t.free.pop() {
            Some(s) => s,
            None => {
                t.slots.push(Slot { generation: 1, node: None });
                (t.slots.len() - 1) as u32
            }
        };
        let s = &mut t.slots[slot as usize];
        s.node = Some(node);
        let generation = s.generation;
        drop(t);
        self.encode(slot, generation)
    }

    pub fn get(&self, h: u64) -> Result<Arc<Node>> {
        let t = self.inner.lock();
        self.lookup(&t, h)
    }

    fn lookup(&self, t: &Inner, h: u64) -> Result<Arc<Node>> {
        let (slot, generation) = self.decode(h);
        match t.slots.get(slot) {
            Some(Slot { generation: g, node: Some(n) }) if *g == generation => Ok(n.clone()),
            _ => Err(self.invalid(h, t)),
        }
    }

    /// The nodes of `hs`, appended to `nodes` in order, under one lock (an error names the
    /// first invalid handle).
    pub fn get_all<A: Array<Item = Arc<Node>>>(&self, hs: &[u64], nodes: &mut SmallVec<A>) -> Result<()> {
        let t = self.inner.lock();
        for &h in hs {
            nodes.push(self.lookup(&t, h)?);
        }
        Ok(())
    }

    /// Releases `h`; the node lives on while other handles or pending work use it.
    pub fn remove(&self, h: u64) -> Result<()> {
        let (slot, generation) = self.decode(h);
        let mut t = self.inner.lock();
        let node = match t.slots.get_mut(slot) {
            Some(s) if s.generation == generation && s.node.is_some() => {
                s.generation = s.generation.wrapping_add(1).max(1);
                s.node.take()
            }
            _ => return Err(self.invalid(h, &t)),
        };
        t.free.push(slot as u32);
        t.live -= 1;
        if let Some(n) = &node {
            n.remove_handle();
        }
        drop(t);
        // Dropping the last reference to a long pending chain happens here, outside the lock.
        drop(node);
        Ok(())
    }

    fn invalid(&self, h: u64, t: &Inner) -> crate::ir::Error {
        let (slot, generation) = self.decode(h);
        let why = if h == 0 {
            "the null handle".to_string()
        } else {
            match t.slots.get(slot) {
                Some(s) if s.generation != generation && generation < s.generation && generation > 0 => {
                    "a released (stale) handle".to_string()
                }
                Some(_) | None => "not a handle of this runtime".to_string(),
            }
        };
        crate::ir::Error::new(crate::ir::ErrorKind::InvalidHandle, format!("invalid handle {h:#x}: {why}"))
    }

    pub fn live(&self) -> usize {
        self.inner.lock().live
    }

    /// Releases every handle (runtime shutdown).
    pub fn clear(&self) {
        let nodes: Vec<Arc<Node>> = {
            let mut t = self.inner.lock();
            t.live = 0;
            let mut nodes = Vec::new();
            for s in t.slots.iter_mut() {
                if let Some(n) = s.node.take() {
                    s.generation = s.generation.wrapping_add(1).max(1);
                    n.remove_handle();
                    nodes.push(n);
                }
            }
            t.free = (0..t.slots.len() as u32).rev().collect();
            nodes
        };
        // Released outside the lock.
        drop(nodes);
    }
}

impl Default for HandleTable {
    fn default() -> Self {
        Self::new()
    }
}
