//! Macros (code reuse sections). The application brackets a section of calls with begin
//! and end. The first time a key is seen the section runs and is recorded: its ops are
//! kept out of the work queue, then planned and compiled as one unit at the end. Later
//! begins with the same key skip the section: the recorded program sequence is replayed
//! on the new inputs in one call. The key is the name, each input's type, shape and layout
//! (constants also by value) and the control values.

use std::cell::RefCell;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use hashbrown::{Equivalent, HashTable};
use rustc_hash::FxBuildHasher;
use smallvec::SmallVec;

use super::CacheStats;
use crate::r#gen::{Recipe, layout_of, leaf_layout};
use crate::ir::{CallSite, DType, Layout, Node, Op, Scalar, Shape, Value};

#[derive(Clone, PartialEq, Eq, Debug)]
enum InputKind {
    Array { dtype: DType, shape: Shape, layout: Layout },
    Constant { value: Scalar, shape: Shape },
}

#[derive(Clone, PartialEq, Eq, Debug)]
struct KeyInput {
    kind: InputKind,
    /// The first input that is the same array: a section recorded with one array passed
    /// twice reads it once, which is wrong for two different arrays.
    alias: u32,
}

impl KeyInput {
    /// Input `k` of a section (not pending, except constants).
    fn of(inputs: &[Arc<Node>], k: usize) -> KeyInput {
        let n = &inputs[k];
        let kind = match n.op {
            Op::Fill { value, .. } => InputKind::Constant { value, shape: n.shape },
            _ => InputKind::Array { dtype: n.dtype, shape: n.shape, layout: leaf_layout(n) },
        };
        KeyInput { kind, alias: alias_of(inputs, k) }
    }

    /// Whether input `k` of a call, whose value (if computed) is `value`, is this one: `of`
    /// compared in place, without building it.
    fn matches(&self, inputs: &[Arc<Node>], k: usize, value: Option<&Value>) -> bool {
        let n = &inputs[k];
        let kind = match (&self.kind, &n.op) {
            (InputKind::Constant { value, shape }, Op::Fill { value: v, .. }) => value == v && *shape == n.shape,
            (InputKind::Constant { .. }, _) | (InputKind::Array { .. }, Op::Fill { .. }) => false,
            (InputKind::Array { dtype, shape, layout }, _) => {
                *dtype == n.dtype
                    && same(shape.dims(), n.shape.dims())
                    && match value {
                        Some(v) => same_layout(layout, &v.layout, shape.rank()),
                        None => same_layout(layout, &layout_of(n, None), shape.rank()),
                    }
            }
        };
        kind && self.alias == alias_of(inputs, k)
    }
}

/// Element-wise equality, in a loop: the slices are a few elements long, shorter than
/// the set-up of a call to `bcmp` (a replay compares every input's shape and layout).
fn same<T: PartialEq>(a: &[T], b: &[T]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
}

/// Whether two layouts of arrays of rank `rank` address the same elements (strides past
/// the rank are never used, so they are not compared).
fn same_layout(a: &Layout, b: &Layout, rank: usize) -> bool {
    a.offset == b.offset && same(&a.strides[..rank], &b.strides[..rank])
}

/// The first of `inputs` that is the same array as input `k`.
fn alias_of(inputs: &[Arc<Node>], k: usize) -> u32 {
    inputs.iter().position(|m| m.id == inputs[k].id).expect("itself") as u32
}

impl Hash for KeyInput {
    /// Only the dimensions in use (equal keys still hash equally): most inputs have low rank.
    fn hash<H: Hasher>(&self, h: &mut H) {
        match &self.kind {
            InputKind::Array { dtype, shape, layout } => {
                dtype.hash(h);
                shape.dims().hash(h);
                layout.offset.hash(h);
                layout.strides[..shape.rank()].hash(h);
            }
            InputKind::Constant { value, shape } => {
                value.hash(h);
                shape.dims().hash(h);
            }
        }
        h.write_u32(self.alias);
    }
}

/// A section's key, owned by the cache. Lookups use `KeyOf`, which hashes and compares
/// equal to it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MacroKey {
    pub name: String,
    inputs: Vec<KeyInput>,
    /// Control values, bitwise.
    controls: Vec<u64>,
}

impl MacroKey {
    /// Whether a call with `name`, `inputs` (not pending, except constants; `values`: their
    /// values, where computed) and `controls` has this key; no key is built for the call.
    fn matches(&self, name: &[u8], inputs: &[Arc<Node>], values: &[Option<&Value>], controls: &[f64]) -> bool {
        self.name.as_bytes() == name
            && self.inputs.len() == inputs.len()
            && self.inputs.iter().enumerate().all(|(k, ki)| ki.matches(inputs, k, values[k]))
            && self.controls.len() == controls.len()
            && self.controls.iter().zip(controls).all(|(&bits, c)| c.to_bits() == bits)
    }
}

/// The key of a call, borrowing its name and controls, so a replay looks its entry up
/// without allocating a `MacroKey`.
pub struct KeyOf<'a> {
    pub name: &'a str,
    inputs: SmallVec<[KeyInput; 4]>,
    controls: &'a [f64],
}

impl<'a> KeyOf<'a> {
    /// `inputs` must not be pending (except constants).
    pub fn new(name: &'a str, inputs: &[Arc<Node>], controls: &'a [f64]) -> KeyOf<'a> {
        KeyOf { name, inputs: (0..inputs.len()).map(|k| KeyInput::of(inputs, k)).collect(), controls }
    }

    pub fn to_key(&self) -> MacroKey {
        MacroKey {
            name: self.name.to_owned(),
            inputs: self.inputs.to_vec(),
            controls: self.controls.iter().map(|c| c.to_bits()).collect(),
        }
    }
}

/// The one hash both forms of a key use.
fn hash_key<H: Hasher>(h: &mut H, name: &str, inputs: &[KeyInput], controls: impl ExactSizeIterator<Item = u64>) {
    name.hash(h);
    inputs.hash(h);
    h.write_usize(controls.len());
    for c in controls {
        h.write_u64(c);
    }
}

impl Hash for MacroKey {
    fn hash<H: Hasher>(&self, h: &mut H) {
        hash_key(h, &self.name, &self.inputs, self.controls.iter().copied());
    }
}

impl Hash for KeyOf<'_> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        hash_key(h, self.name, &self.inputs, self.controls.iter().map(|c| c.to_bits()));
    }
}

impl Equivalent<MacroKey> for KeyOf<'_> {
    fn equivalent(&self, key: &MacroKey) -> bool {
        self.name == key.name
            && self.inputs[..] == key.inputs[..]
            && self.controls.len() == key.controls.len()
            && self.controls.iter().zip(&key.controls).all(|(c, &bits)| c.to_bits() == bits)
    }
}

/// Where a declared output comes from in a replay.
#[derive(Copy, Clone, PartialEq, Eq)]
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

/// Where a kernel parameter's value comes from in a replay.
#[derive(Copy, Clone)]
pub enum ParamSource {
    /// The value it had when recorded.
    Recorded(Scalar),
    /// The seed of generator use `.0`.
    Seed(usize),
    /// Draw `first + .1` of use `.0`.
    Draw(usize, u64),
}

/// What a replay needs besides the recipe: how the recipe's leaves, parameters and call
/// sites (subgraph positions at recording time) map to the new call. Tables indexed by
/// position, so a replay binds them without hashing.
pub struct MacroEntry {
    pub recipe: Arc<Recipe>,
    /// Per leaf position the recipe reads: the declared input it is.
    pub leaves: Vec<Option<u32>>,
    /// Per subgraph node that is a step's parameter: where its value comes from.
    pub params: Vec<Option<ParamSource>>,
    /// Per subgraph node a step reports failures against: its call site.
    pub sites: Vec<Option<CallSite>>,
    pub outputs: Vec<OutputRef>,
    pub rng_uses: Vec<RngUse>,
}

/// A table with `value` at each index of `entries` (and `None` elsewhere).
pub fn table<T>(entries: impl IntoIterator<Item = (u32, T)>) -> Vec<Option<T>> {
    let mut t: Vec<Option<T>> = Vec::new();
    for (i, v) in entries {
        let i = i as usize;
        if t.len() <= i {
            t.resize_with(i + 1, || None);
        }
        t[i] = Some(v);
    }
    t
}

/// A recorded section as the cache holds it, shared with the replays running it.
pub struct Section {
    key: MacroKey,
    hash: u64,
    pub entry: MacroEntry,
    /// The cache's clock at its last lookup (least recently used goes first).
    last_use: AtomicU64,
    /// Whether the cache still holds it (cleared, under the cache's lock, on eviction).
    held: AtomicBool,
    /// The cache's clock, shared so a replay counts a hit without the cache's lock.
    clock: Arc<AtomicU64>,
}

impl Section {
    /// Counts a hit on this section, found again through the thread's last replay, if
    /// the cache whose clock is `clock` (this runtime's, not an earlier one's) still holds
    /// it; without the cache's lock (one atomic operation).
    pub fn hit_again(&self, clock: &Arc<AtomicU64>) -> bool {
        if !Arc::ptr_eq(&self.clock, clock) || !self.held.load(Ordering::Acquire) {
            return false;
        }
        self.last_use.store(self.clock.fetch_add(1, Ordering::Relaxed) + 1, Ordering::Relaxed);
        true
    }
}

/// Recorded sections, shared by all threads. Threads that begin a section no one has
/// recorded yet each record it (none waits for another's recording, which could be
/// waiting for it); the first recording to end is cached.
pub struct MacroCache {
    capacity: usize,
    entries: HashTable<Arc<Section>>,
    /// Advanced once per hit and once per insertion, so hits are the clock less the
    /// insertions (hits through `Section::hit_again` count no other way).
    clock: Arc<AtomicU64>,
    insertions: u64,
    /// Misses and evictions (lookups and hits are derived from the clock).
    stats: CacheStats,
}

/// What a lookup found.
pub enum Claim {
    /// The section was recorded: replay this.
    Replay(Arc<Section>),
    /// It was not: the caller records it under this key (and ends with `finish`).
    Record(MacroKey),
}

impl MacroCache {
    pub fn new(capacity: usize) -> MacroCache {
        MacroCache {
            capacity,
            entries: HashTable::new(),
            clock: Arc::new(AtomicU64::new(0)),
            insertions: 0,
            stats: CacheStats::default(),
        }
    }

    pub fn clock(&self) -> Arc<AtomicU64> {
        self.clock.clone()
    }

    pub fn stats(&self) -> CacheStats {
        let hits = self.clock.load(Ordering::Relaxed) - self.insertions;
        CacheStats { entries: self.entries.len() as u64, hits, lookups: hits + self.stats.misses, ..self.stats }
    }

    /// The entry for `key`, or the key to record it under (and end with `finish`).
    pub fn lookup_or_claim(&mut self, key: &KeyOf) -> Claim {
        let hash = FxBuildHasher.hash_one(key);
        if let Some(s) = self.entries.find(hash, |s| key.equivalent(&s.key)) {
            let s = s.clone();
            self.hit(&s);
            return Claim::Replay(s);
        }
        self.stats.misses += 1;
        Claim::Record(key.to_key())
    }

    fn hit(&mut self, s: &Section) {
        s.last_use.store(self.clock.fetch_add(1, Ordering::Relaxed) + 1, Ordering::Relaxed);
    }

    /// Stores what was recorded under `key` (if it succeeded), unless another thread's
    /// recording of the same key was stored first (replays may be running it); the least
    /// recently used entry goes when the cache is full.
    pub fn finish(&mut self, key: MacroKey, entry: Option<MacroEntry>) {
        let Some(entry) = entry else { return };
        let hash = FxBuildHasher.hash_one(&key);
        if self.capacity == 0 || self.entries.find(hash, |s| s.key == key).is_some() {
            return;
        }
        if self.entries.len() >= self.capacity
            && let Some(oldest) = self.entries.iter().min_by_key(|s| s.last_use.load(Ordering::Relaxed)).cloned()
            && let Ok(slot) = self.entries.find_entry(oldest.hash, |s| Arc::ptr_eq(s, &oldest))
        {
            slot.remove().0.held.store(false, Ordering::Release);
            self.stats.evictions += 1;
        }
        self.insertions += 1;
        let now = self.clock.fetch_add(1, Ordering::Relaxed) + 1;
        let section = Section {
            key,
            hash,
            entry,
            last_use: AtomicU64::new(now),
            held: AtomicBool::new(true),
            clock: self.clock.clone(),
        };
        self.entries.insert_unique(hash, Arc::new(section), |s| s.hash);
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
    /// The clock of the macro cache it was begun with: a section begun before
    /// `sl_shutdown` is not planned by the next runtime (its arrays are the old one's).
    pub cache: Arc<AtomicU64>,
}

thread_local! {
    static FRAMES: RefCell<Vec<Frame>> = const { RefCell::new(Vec::new()) };
    /// The section this thread replayed last: a loop replays one section over and over,
    /// and comparing its key is cheaper than hashing a new one. Weak, so a section the
    /// cache (or a shut-down runtime) has let go of is not kept alive by a thread.
    static LAST: RefCell<Weak<Section>> = const { RefCell::new(Weak::new()) };
}

/// The section this thread replayed last, if a call with `name` (compared as bytes, so a
/// replay skips checking it is UTF-8), `inputs` (with `values`, see `MacroKey::matches`)
/// and `controls` has its key.
pub fn last_replayed(
    name: &[u8],
    inputs: &[Arc<Node>],
    values: &[Option<&Value>],
    controls: &[f64],
) -> Option<Arc<Section>> {
    LAST.with(|l| l.borrow().upgrade()).filter(|s| s.key.matches(name, inputs, values, controls))
}

pub fn remember_replayed(s: &Arc<Section>) {
    LAST.with(|l| *l.borrow_mut() = Arc::downgrade(s));
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

pub fn is_open(key: &KeyOf) -> bool {
    FRAMES.with(|f| f.borrow().iter().any(|fr| key.equivalent(&fr.key)))
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
