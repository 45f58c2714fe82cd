//! Macros (code reuse sections). The application brackets a section of calls with begin
//! and end. The first time a key is seen the section runs and is recorded: its ops are
//! kept out of the work queue, then planned and compiled as one unit at the end. Later
//! begins with the same key skip the section: the recorded program sequence is replayed
//! on the new inputs in one call. The key is the name, each input's type, shape and layout
//! (constants also by value) and the control values.

use std::cell::RefCell;
use std::sync::{Arc, Weak};

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::CacheStats;
use crate::r#gen::{Recipe, leaf_layout};
use crate::ir::{CallSite, DType, Layout, Node, Op, Result, Scalar, Shape, bail};

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
enum InputKind {
    Array { dtype: DType, shape: Shape, layout: Layout },
    Constant { value: Scalar, shape: Shape },
}

#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct MacroKey {
    pub name: String,
    inputs: Vec<InputKind>,
    /// Per input, the first input that is the same array: a section recorded with one
    /// array passed twice reads it once, which is wrong for two different arrays.
    aliases: Vec<u32>,
    /// Control values, bitwise.
    controls: Vec<u64>,
}

impl MacroKey {
    /// The key of a section; `inputs` must not be pending (except constants).
    pub fn new(name: &str, inputs: &[Arc<Node>], controls: &[f64]) -> MacroKey {
        let kind = |n: &Arc<Node>| match n.op {
            Op::Fill { value, .. } => InputKind::Constant { value, shape: n.shape },
            _ => InputKind::Array { dtype: n.dtype, shape: n.shape, layout: leaf_layout(n) },
        };
        MacroKey {
            name: name.to_owned(),
            inputs: inputs.iter().map(kind).collect(),
            aliases: inputs.iter().map(|n| inputs.iter().position(|m| m.id == n.id).expect("itself") as u32).collect(),
            controls: controls.iter().map(|c| c.to_bits()).collect(),
        }
    }
}

/// Where a declared output comes from in a replay.
#[derive(Copy, Clone)]
pub enum OutputRef {
    /// A value the recorded sequence stores.
    Slot(u32),
    /// One of the section's inputs, passed through.
    Input(u32),
}

/// A generator the section draws from: its draws at recording were `first ..
/// first + count`; a replay takes `count` new ones.
pub struct RngUse {
    pub rng: u64,
    pub first: u64,
    pub count: u64,
}

/// A parameter that comes from a generator's state instead of its recorded value.
#[derive(Copy, Clone)]
pub enum RngParam {
    /// The seed of use `.0`.
    Seed(usize),
    /// Draw `first + .1` of use `.0`.
    Draw(usize, u64),
}

/// What a replay needs besides the recipe: how the recipe's leaves, parameters and call
/// sites (subgraph positions at recording time) map to the new call.
pub struct MacroEntry {
    pub recipe: Arc<Recipe>,
    /// Leaf position -> index of the declared input it is.
    pub leaves: HashMap<u32, u32>,
    /// Parameter fill node -> the value it had when recorded.
    pub params: HashMap<u32, Scalar>,
    pub sites: HashMap<u32, CallSite>,
    pub outputs: Vec<OutputRef>,
    pub rng_uses: Vec<RngUse>,
    pub rng_params: HashMap<u32, RngParam>,
}

struct Cached {
    entry: Arc<MacroEntry>,
    last_use: u64,
}

/// Recorded sections, shared by all threads.
pub struct MacroCache {
    capacity: usize,
    entries: HashMap<MacroKey, Cached>,
    /// Keys being recorded (on any thread).
    recording: HashSet<MacroKey>,
    clock: u64,
    stats: CacheStats,
}

impl MacroCache {
    pub fn new(capacity: usize) -> MacroCache {
        MacroCache {
            capacity,
            entries: HashMap::default(),
            recording: HashSet::default(),
            clock: 0,
            stats: CacheStats::default(),
        }
    }

    pub fn stats(&self) -> CacheStats {
        CacheStats { entries: self.entries.len() as u64, ..self.stats }
    }

    /// The entry for `key`, or a claim to record it (refused while another thread does).
    pub fn lookup_or_claim(&mut self, key: &MacroKey) -> Result<Option<Arc<MacroEntry>>> {
        if self.recording.contains(key) {
            bail!(InvalidState, "macro '{}' with these inputs is being recorded on another thread", key.name);
        }
        self.stats.lookups += 1;
        self.clock += 1;
        if let Some(c) = self.entries.get_mut(key) {
            c.last_use = self.clock;
            self.stats.hits += 1;
            return Ok(Some(c.entry.clone()));
        }
        self.stats.misses += 1;
        self.recording.insert(key.clone());
        Ok(None)
    }

    /// Ends the claim on `key`, storing what was recorded (if it succeeded); the least
    /// recently used entry goes when the cache is full.
    pub fn finish(&mut self, key: MacroKey, entry: Option<MacroEntry>) {
        self.recording.remove(&key);
        let Some(entry) = entry else { return };
        if self.capacity == 0 {
            return;
        }
        if self.entries.len() >= self.capacity
            && let Some(oldest) = self.entries.iter().min_by_key(|(_, c)| c.last_use).map(|(k, _)| k.clone())
        {
            self.entries.remove(&oldest);
            self.stats.evictions += 1;
        }
        self.clock += 1;
        self.entries.insert(key, Cached { entry: Arc::new(entry), last_use: self.clock });
    }
}

/// A section being recorded on this thread.
pub struct Frame {
    pub key: MacroKey,
    pub outputs: usize,
    pub inputs: Vec<Arc<Node>>,
    /// Ops the section made (kept out of the work queue until it ends).
    pub made: Vec<Weak<Node>>,
    /// Opened while an enclosing section records: it runs as part of that recording.
    pub nested: bool,
}

thread_local! {
    static FRAMES: RefCell<Vec<Frame>> = const { RefCell::new(Vec::new()) };
}

pub fn push(frame: Frame) {
    FRAMES.with(|f| f.borrow_mut().push(frame));
}

pub fn pop() -> Option<Frame> {
    FRAMES.with(|f| f.borrow_mut().pop())
}

/// Whether a section is recording on this thread.
pub fn recording() -> bool {
    FRAMES.with(|f| !f.borrow().is_empty())
}

/// The name of the innermost section recording on this thread.
pub fn recording_name() -> Option<String> {
    FRAMES.with(|f| f.borrow().last().map(|fr| fr.key.name.clone()))
}

pub fn is_open(key: &MacroKey) -> bool {
    FRAMES.with(|f| f.borrow().iter().any(|fr| fr.key == *key))
}

/// Keeps a new op in the innermost recording section instead of the work queue; false
/// if none is open.
pub fn capture(n: &Arc<Node>) -> bool {
    FRAMES.with(|f| match f.borrow_mut().last_mut() {
        Some(fr) => {
            fr.made.push(Arc::downgrade(n));
            true
        }
        None => false,
    })
}

/// Hands the ops of a finished nested section to the section enclosing it.
pub fn adopt(made: Vec<Weak<Node>>) {
    FRAMES.with(|f| {
        if let Some(fr) = f.borrow_mut().last_mut() {
            fr.made.extend(made);
        }
    });
}
