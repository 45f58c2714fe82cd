//! The trace cache: recipes of earlier flushes, found again by the key of a new flush's
//! subgraph, so a program that repeats its sequence of ops skips planning and compiling
//! and replays the recorded program sequence with the new arrays and scalars.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use super::CacheStats;
use crate::r#gen::{Recipe, Subgraph, TraceKey};
use crate::ir::Node;

struct Entry {
    key: TraceKey,
    recipe: Arc<Recipe>,
    build_ns: u64,
    last_use: u64,
}

pub struct TraceCache {
    capacity: usize,
    /// Keys by hash; equal hashes are compared in full.
    buckets: HashMap<u64, Vec<Entry>>,
    clock: u64,
    stats: CacheStats,
    /// The key of the flush last looked up, built in place: a hit allocates no key.
    current: TraceKey,
    /// The hash of the entry hit last: a loop's flush is usually the one before it, found
    /// by comparing its words without hashing them.
    last_hit: Option<u64>,
}

impl TraceCache {
    /// A cache holding at most `capacity` recipes (0 disables it).
    pub fn new(capacity: usize) -> TraceCache {
        TraceCache {
            capacity,
            buckets: HashMap::default(),
            clock: 0,
            stats: CacheStats::default(),
            current: TraceKey::default(),
            last_hit: None,
        }
    }

    pub fn enabled(&self) -> bool {
        self.capacity > 0
    }

    pub fn stats(&self) -> CacheStats {
        self.stats
    }

    /// The recipe cached for flush `sub` of `roots`. On a miss, `insert` and
    /// `explain_miss` then refer to this flush.
    pub fn lookup(&mut self, sub: &Subgraph, roots: &[Arc<Node>]) -> Option<Arc<Recipe>> {
        self.stats.lookups += 1;
        self.clock += 1;
        self.current.fill(sub, roots);
        let again = |h: &u64| self.buckets.get(h).is_some_and(|b| b.iter().any(|e| e.key.same_words(&self.current)));
        if let Some(h) = self.last_hit.filter(again) {
            self.current.set_hash(h);
        }
        let key = &mut self.current;
        let hash = key.hash();
        let found = self.buckets.get_mut(&hash).and_then(|b| b.iter_mut().find(|e| e.key == *key));
        match found {
            Some(e) => {
                self.last_hit = Some(hash);
                e.last_use = self.clock;
                self.stats.hits += 1;
                self.stats.saved_ns += e.build_ns;
                Some(e.recipe.clone())
            }
            None => {
                self.stats.misses += 1;
                None
            }
        }
    }

    pub fn note_hit_time(&mut self, ns: u64) {
        self.stats.hit_ns += ns;
    }

    /// Adds the recipe built in `build_ns` for the flush that last missed, evicting the
    /// least recently used entry when full. Finding it scans every entry: this happens
    /// only on a miss, which costs a compile anyway.
    pub fn insert(&mut self, recipe: Arc<Recipe>, build_ns: u64) {
        let mut key = std::mem::take(&mut self.current);
        if self.stats.entries as usize >= self.capacity {
            let oldest = self.buckets.iter().flat_map(|(&h, b)| b.iter().map(move |e| (e.last_use, h))).min();
            if let Some((last_use, hash)) = oldest {
                let bucket = self.buckets.get_mut(&hash).expect("found above");
                bucket.retain(|e| e.last_use != last_use);
                if bucket.is_empty() {
                    self.buckets.remove(&hash);
                }
                self.stats.entries -= 1;
                self.stats.evictions += 1;
            }
        }
        self.clock += 1;
        let hash = key.hash();
        let entry = Entry { key, recipe, build_ns, last_use: self.clock };
        self.buckets.entry(hash).or_default().push(entry);
        self.stats.entries += 1;
    }

    /// Why flush `sub` missed (the last lookup): where it departs from the nearest cached key.
    pub fn explain_miss(&self, sub: &Subgraph) -> String {
        let key = &self.current;
        let head = format!("trace cache miss: a flush of {} ops", key.nodes());
        let nearest = self.buckets.values().flatten().max_by_key(|e| key.common_nodes(&e.key));
        let Some(near) = nearest else {
            return format!("{head}; the cache is empty");
        };
        let Some(d) = key.first_difference(&near.key) else {
            return format!("{head}; an equal key is cached");
        };
        let node = sub
            .order
            .get(d.node)
            .map_or(String::new(), |n| format!(" (`{}` {}{} called by {})", n.op.name(), n.dtype, n.shape, n.site));
        format!(
            "{head}; the nearest cached flush ({} ops) first differs at op {}{node}: {}",
            near.key.nodes(),
            d.node,
            d.what
        )
    }
}
