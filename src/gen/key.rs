//! The trace-cache key of a flush: everything `compile` reads from a subgraph, so two
//! flushes with equal keys get the same recipe. Per node, in subgraph order: its type,
//! shape, op (with application scalars left out: they are kernel parameters), whether it
//! is a root or was computed unstored before, where its inputs start in the subgraph's
//! input list, and where each input comes from (a node of the subgraph, or an array from
//! outside with its type, shape and layout).

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use rustc_hash::FxHasher;

use super::build::Subgraph;
use super::recipe::leaf_layout;
use crate::ir::{DType, Node, Op, Shape};

/// Serialises values through their `Hash` impls, keeping every word written: for the
/// IR's derived impls, equal word sequences mean equal values.
struct Words<'a>(&'a mut Vec<u64>);

impl Hasher for Words<'_> {
    fn finish(&self) -> u64 {
        unreachable!("a word sink is not a hash")
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0.push(bytes.len() as u64);
        self.0.extend(bytes.chunks(8).map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(w)
        }));
    }
    fn write_u8(&mut self, i: u8) {
        self.0.push(i as u64);
    }
    fn write_u32(&mut self, i: u32) {
        self.0.push(i as u64);
    }
    fn write_u64(&mut self, i: u64) {
        self.0.push(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.0.push(i as u64);
    }
    fn write_isize(&mut self, i: isize) {
        self.0.push(i as u64);
    }
}

const NODE_INPUT: u64 = 1;
const LEAF_FIRST: u64 = 2;
const LEAF_AGAIN: u64 = 3;
const ROOT: u64 = 1 << 8;
const FUSED_BEFORE: u64 = 1 << 9;

#[derive(Default)]
pub struct TraceKey {
    words: Vec<u64>,
    /// Per node: where its words start, and where its inputs' words start.
    starts: Vec<(u32, u32)>,
    /// The words' hash, once computed (`hash`): a key found again by its words alone
    /// needs none.
    hash: Option<u64>,
}

impl PartialEq for TraceKey {
    fn eq(&self, other: &Self) -> bool {
        self.hash == other.hash && self.words == other.words
    }
}

/// Where two keys first differ, for explaining a cache miss.
pub struct Difference {
    /// Index of the first differing node in subgraph order.
    pub node: usize,
    pub what: String,
}

fn push_shape(words: &mut Vec<u64>, shape: &Shape) {
    words.push(shape.rank() as u64);
    words.extend(shape.dims().iter().map(|&d| d as u64));
}

/// The op's words: one for the most common ops, their `Hash` serialisation for the rest.
/// Application scalars (unbaked fills) are left out: they become kernel parameters.
fn push_op(words: &mut Vec<u64>, op: &Op) {
    const COMPACT: u64 = 1 << 63;
    match op {
        Op::Unary(u) => words.push(COMPACT | 1 << 8 | *u as u64),
        Op::Binary(b) => words.push(COMPACT | 2 << 8 | *b as u64),
        Op::Fill { baked: false, .. } => words.push(COMPACT | 3 << 8),
        Op::Cast => words.push(COMPACT | 4 << 8),
        Op::Select => words.push(COMPACT | 5 << 8),
        Op::Fma => words.push(COMPACT | 6 << 8),
        op => op.hash(&mut Words(words)),
    }
}

fn shape_at(words: &[u64]) -> Shape {
    let rank = words[0] as usize;
    Shape::new(&words[1..1 + rank].iter().map(|&d| d as usize).collect::<Vec<_>>())
}

impl TraceKey {
    /// Makes this the key of flush `sub` of `roots`, reusing its lists (a trace cache
    /// keys every flush into the same one, so a hit allocates nothing).
    pub fn fill(&mut self, sub: &Subgraph, roots: &[Arc<Node>]) {
        let TraceKey { words, starts, .. } = self;
        words.clear();
        starts.clear();
        words.reserve(sub.order.len() * 12);
        for (i, nd) in sub.order.iter().enumerate() {
            let start = words.len() as u32;
            let inputs = sub.inputs_at(i);
            let flags = if sub.fused_before[i] { FUSED_BEFORE } else { 0 };
            words.push(nd.dtype as u64 | flags | (inputs.len() as u64) << 16);
            push_shape(words, &nd.shape);
            push_op(words, &nd.op);
            let inputs_start = words.len() as u32;
            // Where the node's inputs start in the subgraph's input list: a recipe binds
            // leaves by their place there, which the order of the roots can change.
            let (first_pos, _) = sub.ranges[i];
            words.push(first_pos as u64);
            for (k, input) in inputs.iter().enumerate() {
                let pos = first_pos + k as u32;
                if let Some(j) = sub.index_of(input) {
                    words.extend([NODE_INPUT, j as u64]);
                } else if sub.leaf_position(input) == Some(pos) {
                    words.extend([LEAF_FIRST, input.dtype as u64]);
                    push_shape(words, &input.shape);
                    let layout = leaf_layout(input);
                    words.push(layout.offset as u64);
                    words.extend(layout.strides[..input.shape.rank()].iter().map(|&s| s as u64));
                } else {
                    words.extend([LEAF_AGAIN, sub.leaf_position(input).expect("leaves are marked") as u64]);
                }
            }
            starts.push((start, inputs_start));
        }
        // Roots are few: their flags are set once every node has its words.
        for i in roots.iter().filter_map(|r| sub.index_of(r)) {
            words[starts[i].0 as usize] |= ROOT;
        }
        self.hash = None;
    }

    /// Whether `self` and `other` are the keys of equal flushes, told by their words
    /// alone (for a key not hashed yet).
    pub fn same_words(&self, other: &TraceKey) -> bool {
        self.words == other.words
    }

    /// The hash of a filled key, computed once.
    pub fn hash(&mut self) -> u64 {
        *self.hash.get_or_insert_with(|| {
            let mut h = FxHasher::default();
            self.words.hash(&mut h);
            h.finish()
        })
    }

    /// Takes `hash` as the key's hash: that of a key with the same words.
    pub fn set_hash(&mut self, hash: u64) {
        self.hash = Some(hash);
    }

    /// Nodes in the flush.
    pub fn nodes(&self) -> usize {
        self.starts.len()
    }

    /// How many leading nodes `self` shares with `other` (the index of the first node
    /// that differs).
    pub fn common_nodes(&self, other: &TraceKey) -> usize {
        let same = self.words.iter().zip(&other.words).take_while(|(a, b)| a == b).count();
        if same == self.words.len() {
            return self.nodes();
        }
        self.starts.partition_point(|&(s, _)| s as usize <= same).saturating_sub(1)
    }

    /// The first node where `self` (a new flush) differs from `cached`, described in terms
    /// of the cached side.
    pub fn first_difference(&self, cached: &TraceKey) -> Option<Difference> {
        if self == cached {
            return None;
        }
        let node = self.common_nodes(cached);
        let Some(&(start, inputs)) = self.starts.get(node) else {
            return Some(Difference { node, what: "the cached flush has more ops".into() });
        };
        let Some(&(c_start, c_inputs)) = cached.starts.get(node) else {
            return Some(Difference { node, what: "the cached flush ends before this op".into() });
        };
        let (w, c) = (&self.words[start as usize..], &cached.words[c_start as usize..]);
        let what = if w[0] & 0xff != c[0] & 0xff {
            format!("type {} was {}", DType::ALL[(w[0] & 0xff) as usize], DType::ALL[(c[0] & 0xff) as usize])
        } else if w[0] & (ROOT | FUSED_BEFORE) != c[0] & (ROOT | FUSED_BEFORE) {
            "whether the value is still held by the application differs".into()
        } else if shape_at(&w[1..]) != shape_at(&c[1..]) {
            format!("shape {} was {}", shape_at(&w[1..]), shape_at(&c[1..]))
        } else if w[..(inputs - start) as usize] != c[..(c_inputs - c_start) as usize] {
            "the operation or its parameters differ".into()
        } else {
            "its inputs differ (which values, or an input's type, shape or layout)".into()
        };
        Some(Difference { node, what })
    }
}
