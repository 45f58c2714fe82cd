//! Builds one fused kernel: each output's expression is expanded through the fused
//! (unstored) nodes down to arrays that exist or are stored by earlier steps. Views are
//! pushed through element-wise ops as access maps; identical instructions are shared.

use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use super::cost::{self, Shares, UNOWNED};
use super::recipe::Source;
use crate::ir::kernel::{Inst, IntoInput, Kernel, KernelInput, KernelOutput, KernelReduce, OutputKind};
use crate::ir::random::MAX_RANDOM_PARAMS;
use crate::ir::{
    BinaryOp, Boundary, DType, Layout, MAX_RANK, Map, MapStep, Node, Op, ReduceOp, Scalar, Shape, ViewStep,
};

/// The pending nodes a flush computes, inputs before consumers, with each node's inputs.
/// Each node in it carries its index as its plan mark for this flush's epoch.
#[derive(Default)]
pub struct Subgraph {
    pub epoch: u32,
    pub order: Vec<Arc<Node>>,
    /// Inputs of `order[i]`: `inputs[ranges[i].0 .. ranges[i].0 + ranges[i].1]`.
    pub ranges: Vec<(u32, u32)>,
    pub inputs: Vec<Arc<Node>>,
    /// Whether an earlier flush computed the node without storing it.
    pub fused_before: Vec<bool>,
}

/// Plan marks of leaves carry this bit and their first position in `Subgraph::inputs`.
pub(crate) const LEAF_MARK: u32 = 1 << 31;

impl Subgraph {
    /// Empties the lists (dropping the subgraph's references), keeping their memory.
    pub fn clear(&mut self) {
        self.order.clear();
        self.ranges.clear();
        self.inputs.clear();
        self.fused_before.clear();
    }

    pub fn index_of(&self, n: &Node) -> Option<usize> {
        n.plan_index(self.epoch)
            .filter(|&i| (i as usize) < self.order.len() && self.order[i as usize].id == n.id)
            .map(|i| i as usize)
    }

    /// For a node outside the subgraph that a node in it reads (a leaf), its first
    /// position in `inputs`.
    pub fn leaf_position(&self, n: &Node) -> Option<u32> {
        n.plan_index(self.epoch)
            .filter(|&i| i & LEAF_MARK != 0)
            .map(|i| i & !LEAF_MARK)
            .filter(|&p| self.inputs.get(p as usize).is_some_and(|l| l.id == n.id))
    }

    pub fn inputs_at(&self, i: usize) -> &[Arc<Node>] {
        let (start, len) = self.ranges[i];
        &self.inputs[start as usize..(start + len) as usize]
    }

    /// How many times each node is an input of a node of the subgraph.
    pub fn uses(&self) -> Vec<usize> {
        let mut uses = vec![0; self.order.len()];
        for i in 0..self.order.len() {
            for j in self.inputs_at(i).iter().filter_map(|x| self.index_of(x)) {
                uses[j] += 1;
            }
        }
        uses
    }

    /// Whether something outside the flush holds node `i` (`uses` from `uses`): it has
    /// more references than the subgraph's own (its place in `order`, and two per input
    /// occurrence: in `inputs` and in the reading node's input list) and `extra` more.
    /// A node without handles cannot be reached later but through such holders.
    pub fn held_elsewhere(&self, i: usize, uses: &[usize], extra: usize) -> bool {
        Arc::strong_count(&self.order[i]) != 1 + 2 * uses[i] + extra
    }

    /// Inputs of a node in the subgraph (nodes outside it are leaves: none needed).
    pub fn inputs(&self, n: &Node) -> &[Arc<Node>] {
        self.index_of(n).map_or(&[], |i| self.inputs_at(i))
    }
}

/// How the planner sees a node the kernel reads instead of expanding.
pub enum Leaf {
    /// An array with storage (or the promise of one) in this layout.
    Array(Source, Layout),
    /// Not a leaf: expand it into the kernel.
    Fused,
}

pub struct KernelBuilder<'a> {
    domain: Shape,
    axis: Option<u8>,
    sub: &'a Subgraph,
    leaf: &'a dyn Fn(&Arc<Node>) -> Leaf,
    /// Test-only: the op whose results are perturbed (`GenOptions::perturb`).
    perturb: Option<&'a str>,
    insts: Vec<Inst>,
    types: Vec<DType>,
    cse: HashMap<(Inst, DType), u32>,
    /// Value of subgraph node `i` under the identity map (the common case), or u32::MAX.
    done_plain: Vec<u32>,
    /// (node id, map id) -> value, for the other cases.
    done: HashMap<(u64, u32), u32>,
    /// Interned maps as (parent, last step); map 0 is the identity.
    map_links: Vec<(u32, Option<MapStep>)>,
    map_ids: HashMap<(u32, MapStep), u32>,
    /// Map id -> index in the kernel's `maps`, for maps that reached an instruction.
    used_maps: HashMap<u32, u32>,
    maps: Vec<Map>,
    inputs: Vec<KernelInput>,
    input_of: HashMap<u64, u32>,
    sources: Vec<Source>,
    params: Vec<DType>,
    param_of: HashMap<u64, u32>,
    /// Subgraph index of the fill node each parameter takes its value from.
    param_nodes: Vec<u32>,
    outputs: Vec<KernelOutput>,
    /// Per instruction, the subgraph index of the node whose expansion created it (for
    /// profile attribution; loads go to the first node that reads them).
    owner: Vec<u32>,
    /// The node new instructions belong to.
    current: u32,
    /// Subgraph index of each output's node.
    output_nodes: Vec<u32>,
}

enum Task<'n> {
    Visit(&'n Arc<Node>, u32),
    /// Build a node once its children (`children[start..]` of the builder's child stack,
    /// `len` of them) are done.
    Build(&'n Arc<Node>, u32, usize, usize),
}

impl<'a> KernelBuilder<'a> {
    pub fn new(
        domain: Shape,
        axis: Option<u8>,
        sub: &'a Subgraph,
        leaf: &'a dyn Fn(&Arc<Node>) -> Leaf,
        perturb: Option<&'a str>,
    ) -> Self {
        // Sized for a kernel that fuses most of the subgraph, so maps rarely regrow.
        let n = sub.order.len() + 8;
        KernelBuilder {
            domain,
            axis,
            sub,
            leaf,
            perturb,
            insts: Vec::with_capacity(n),
            types: Vec::with_capacity(n),
            cse: HashMap::with_capacity_and_hasher(n, Default::default()),
            done_plain: vec![u32::MAX; sub.order.len()],
            done: HashMap::default(),
            map_links: vec![(0, None)],
            map_ids: HashMap::default(),
            used_maps: HashMap::default(),
            maps: Vec::new(),
            inputs: Vec::new(),
            input_of: HashMap::default(),
            sources: Vec::new(),
            params: Vec::new(),
            param_of: HashMap::default(),
            param_nodes: Vec::new(),
            outputs: Vec::new(),
            owner: Vec::with_capacity(n),
            current: UNOWNED,
            output_nodes: Vec::new(),
        }
    }

    /// Adds node `n` (whose op produces it over this kernel's domain) as an output.
    pub fn add_output(&mut self, n: &Arc<Node>) {
        let node = self.sub.index_of(n).expect("outputs are in the subgraph") as u32;
        let (value, kind) = match &n.op {
            Op::Reduce { op, .. } => {
                let a = &self.sub.inputs(n)[0];
                let v = self.expand(a, 0);
                self.current = node;
                self.reduction(*op, v, a.dtype)
            }
            Op::Scan { op, .. } => {
                let a = &self.sub.inputs(n)[0];
                let mut v = self.expand(a, 0);
                self.current = node;
                if a.dtype != n.dtype {
                    v = self.cast(v, n.dtype);
                }
                (v, OutputKind::Scan(*op))
            }
            Op::Assign(place) => {
                let (dst, values) = (&self.sub.inputs(n)[0], &self.sub.inputs(n)[1]);
                let v = self.expand(values, 0);
                let Leaf::Array(source, layout) = (self.leaf)(dst) else {
                    unreachable!("the planner stores what an assignment writes into")
                };
                let input = self.input(dst, source, layout);
                let place = place.layout(&Layout::dense(&dst.shape), values.shape.rank());
                self.current = node;
                self.outputs.push(KernelOutput {
                    value: v,
                    kind: OutputKind::Store,
                    dtype: n.dtype,
                    into: Some(IntoInput { input, place }),
                });
                self.output_nodes.push(node);
                return;
            }
            _ => (self.expand_root(n), OutputKind::Store),
        };
        self.outputs.push(KernelOutput { value, kind, dtype: n.dtype, into: None });
        self.output_nodes.push(node);
    }

    /// The application's reductions in terms of the kernel's: counts are sums of
    /// nonzero tests, any/all are max/min over booleans, integer sums widen first.
    fn reduction(&mut self, op: ReduceOp, v: u32, t: DType) -> (u32, OutputKind) {
        let nonzero = |b: &mut Self| {
            if t == DType::Bool {
                v
            } else {
                let zero = b.push(Inst::Const(Scalar::zero(t)), t);
                b.push(Inst::Binary { op: BinaryOp::Ne, a: v, b: zero }, DType::Bool)
            }
        };
        let widen = |b: &mut Self, to: DType| if t == to { v } else { b.cast(v, to) };
        let (v, r) = match op {
            ReduceOp::Sum | ReduceOp::Prod => {
                let to = op.result_dtype(t).expect("checked by the front end");
                let r = if op == ReduceOp::Sum { KernelReduce::Sum } else { KernelReduce::Prod };
                (widen(self, to), r)
            }
            ReduceOp::Mean => (widen(self, op.result_dtype(t).expect("checked")), KernelReduce::Mean),
            ReduceOp::Min => (v, KernelReduce::Min),
            ReduceOp::Max => (v, KernelReduce::Max),
            ReduceOp::ArgMin => (v, KernelReduce::ArgMin),
            ReduceOp::ArgMax => (v, KernelReduce::ArgMax),
            ReduceOp::Any => (nonzero(self), KernelReduce::Max),
            ReduceOp::All => (nonzero(self), KernelReduce::Min),
            ReduceOp::Count => {
                let nz = nonzero(self);
                (self.cast(nz, DType::I64), KernelReduce::Sum)
            }
        };
        (v, OutputKind::Reduce(r))
    }

    /// The value already built for `n` under map `m`, if any.
    fn done_get(&self, n: &Node, m: u32) -> Option<u32> {
        match (m, self.sub.index_of(n)) {
            (0, Some(i)) => Some(self.done_plain[i]).filter(|&v| v != u32::MAX),
            _ => self.done.get(&(n.id, m)).copied(),
        }
    }

    fn done_set(&mut self, n: &Node, m: u32, v: u32) {
        match (m, self.sub.index_of(n)) {
            (0, Some(i)) => self.done_plain[i] = v,
            _ => {
                self.done.insert((n.id, m), v);
            }
        }
    }

    fn cast(&mut self, v: u32, to: DType) -> u32 {
        self.push(Inst::Cast { a: v }, to)
    }

    fn push(&mut self, inst: Inst, ty: DType) -> u32 {
        let next = self.insts.len() as u32;
        let v = *self.cse.entry((inst, ty)).or_insert(next);
        if v == next {
            self.insts.push(inst);
            self.types.push(ty);
            self.owner.push(self.current);
        }
        v
    }

    fn map_step(&mut self, parent: u32, step: MapStep) -> u32 {
        if let Some(&m) = self.map_ids.get(&(parent, step)) {
            return m;
        }
        let m = self.map_links.len() as u32;
        self.map_links.push((parent, Some(step)));
        self.map_ids.insert((parent, step), m);
        m
    }

    /// Index in the kernel's map table of interned map `m`.
    fn kernel_map(&mut self, m: u32) -> u32 {
        if let Some(&k) = self.used_maps.get(&m) {
            return k;
        }
        let mut steps = Vec::new();
        let mut cur = m;
        while let (parent, Some(step)) = self.map_links[cur as usize] {
            steps.push(step);
            cur = parent;
        }
        steps.reverse();
        let k = self.maps.len() as u32;
        self.maps.push(Map { steps });
        self.used_maps.insert(m, k);
        k
    }

    fn input(&mut self, n: &Arc<Node>, source: Source, layout: Layout) -> u32 {
        if let Some(&i) = self.input_of.get(&n.id) {
            return i;
        }
        let i = self.inputs.len() as u32;
        self.inputs.push(KernelInput { dtype: n.dtype, shape: n.shape, layout });
        self.sources.push(source);
        self.input_of.insert(n.id, i);
        i
    }

    /// The value of a kernel output node itself, expanded (never loaded).
    fn expand_root(&mut self, n: &Arc<Node>) -> u32 {
        self.build_from(n, 0, true)
    }

    /// The value of `n` seen through interned map `m`.
    fn expand(&mut self, n: &Arc<Node>, m: u32) -> u32 {
        self.build_from(n, m, false)
    }

    /// Post-order expansion with an explicit stack: fused chains can be thousands deep.
    fn build_from(&mut self, root: &Arc<Node>, m: u32, root_is_output: bool) -> u32 {
        // A rank-0 value reads the same at every point: one map serves all.
        let norm = |n: &Node, m: u32| if n.shape.rank() == 0 { 0 } else { m };
        let sub = self.sub;
        let mut stack = vec![Task::Visit(root, m)];
        let mut children: Vec<(&Arc<Node>, u32)> = Vec::new();
        let mut vals: Vec<u32> = Vec::new();
        while let Some(task) = stack.pop() {
            match task {
                Task::Visit(n, m) => {
                    let m = norm(n, m);
                    if self.done_get(n, m).is_some() {
                        continue;
                    }
                    let is_root = root_is_output && n.id == root.id && m == 0;
                    if !is_root && let Leaf::Array(source, layout) = (self.leaf)(n) {
                        let input = self.input(n, source, layout);
                        let map = self.kernel_map(m);
                        self.current = UNOWNED;
                        let v = self.push(Inst::Load { input, map }, n.dtype);
                        self.done_set(n, m, v);
                        continue;
                    }
                    let start = children.len();
                    self.children(n, sub.inputs(n), m, &mut children);
                    let len = children.len() - start;
                    stack.push(Task::Build(n, m, start, len));
                    for &(c, cm) in children[start..].iter().rev() {
                        stack.push(Task::Visit(c, cm));
                    }
                }
                Task::Build(n, m, start, len) => {
                    vals.clear();
                    vals.extend(
                        children[start..start + len]
                            .iter()
                            .map(|&(c, cm)| self.done_get(c, norm(c, cm)).expect("child built")),
                    );
                    self.current = sub.index_of(n).expect("expanded nodes are in the subgraph") as u32;
                    for &v in &vals {
                        if self.owner[v as usize] == UNOWNED {
                            self.owner[v as usize] = self.current;
                        }
                    }
                    let mut v = self.emit(n, m, &children[start..start + len], &vals);
                    if self.perturb == Some(n.op.name()) {
                        v = self.perturbed(v, n.dtype);
                    }
                    self.done_set(n, m, v);
                    // Children are pushed and consumed in stack order.
                    children.truncate(start);
                }
            }
        }
        self.done_get(root, norm(root, m)).expect("root built")
    }

    /// `v` made slightly wrong (test-only): times 1 + 2^-8 for floats, plus 1 otherwise.
    fn perturbed(&mut self, v: u32, t: DType) -> u32 {
        // Complex values are made of real ones, which are perturbed instead.
        if t.is_complex() {
            return v;
        }
        let (op, by) = match t {
            DType::F32 | DType::F64 => (BinaryOp::Mul, Scalar::F64(1.0 + 1.0 / 256.0).cast(t)),
            DType::Bool => (BinaryOp::Xor, Scalar::Bool(true)),
            _ => (BinaryOp::Add, Scalar::I64(1).cast(t)),
        };
        let by = self.push(Inst::Const(by), t);
        self.push(Inst::Binary { op, a: v, b: by }, t)
    }

    /// Appends the (input, map) pairs node `n` under map `m` needs.
    fn children<'n>(&mut self, n: &Node, inputs: &'n [Arc<Node>], m: u32, out: &mut Vec<(&'n Arc<Node>, u32)>) {
        match &n.op {
            Op::Unary(_) | Op::Binary(_) | Op::Select | Op::Fma | Op::Cast | Op::Random { .. } => {
                out.extend(inputs.iter().map(|i| (i, m)))
            }
            Op::View(step) => {
                let src = &inputs[0];
                let vm = self.map_step(m, MapStep { step: *step, out: n.shape, src: src.shape });
                out.push((src, vm));
                if let Some(fill) = inputs.get(1) {
                    out.push((fill, 0)); // a rank-0 fill value reads the same everywhere
                }
            }
            Op::Concat { dim } => {
                let mut start = 0i64;
                for p in inputs {
                    let mut offset = [0i64; MAX_RANK];
                    offset[*dim as usize] = start;
                    start += p.shape.dim(*dim as usize) as i64;
                    let step = ViewStep::Offset { offset, boundary: Boundary::Fill };
                    out.push((p, self.map_step(m, MapStep { step, out: n.shape, src: p.shape })));
                }
            }
            // The source is a stored array (a leaf); indices are evaluated in place.
            Op::Gather => out.extend(inputs[1..].iter().map(|i| (i, m))),
            // The direction numbers are a stored array, read at the point's dimension.
            Op::Sobol { .. } => out.extend(inputs[1..].iter().map(|i| (i, m))),
            _ => {}
        }
    }

    /// The instructions for `n` under map `m`, given its children and their values.
    fn emit(&mut self, n: &Arc<Node>, m: u32, children: &[(&Arc<Node>, u32)], vals: &[u32]) -> u32 {
        let t = n.dtype;
        match &n.op {
            Op::Fill { value, baked: true } => self.push(Inst::Const(*value), t),
            Op::Fill { baked: false, .. } => {
                let index = match self.param_of.get(&n.id) {
                    Some(&i) => i,
                    None => {
                        let i = self.params.len() as u32;
                        let node = self.sub.index_of(n).expect("expanded nodes are in the subgraph");
                        self.params.push(t);
                        self.param_nodes.push(node as u32);
                        self.param_of.insert(n.id, i);
                        i
                    }
                };
                self.push(Inst::Param { index }, t)
            }
            Op::Iota { dim } => {
                let map = self.kernel_map(m);
                let c = self.push(Inst::Coord { map, dim: *dim }, DType::I64);
                if t == DType::I64 { c } else { self.cast(c, t) }
            }
            Op::Identity => {
                let map = self.kernel_map(m);
                let r = self.push(Inst::Coord { map, dim: 0 }, DType::I64);
                let c = self.push(Inst::Coord { map, dim: 1 }, DType::I64);
                let eq = self.push(Inst::Binary { op: BinaryOp::Eq, a: r, b: c }, DType::Bool);
                if t == DType::Bool { eq } else { self.cast(eq, t) }
            }
            Op::Random { kind, dist, .. } => {
                // A one-element array reads element 0 wherever it is broadcast to.
                let map = (n.shape.rank() > 0).then(|| self.kernel_map(m));
                let mut params = [0; MAX_RANDOM_PARAMS];
                params[..dist.params()].copy_from_slice(&vals[2..2 + dist.params()]);
                self.push(Inst::Random { kind: *kind, dist: *dist, seed: vals[0], draw: vals[1], params, map }, t)
            }
            Op::Sobol { scramble } => {
                let src = &self.sub.inputs(n)[0];
                let Leaf::Array(source, layout) = (self.leaf)(src) else {
                    unreachable!("direction numbers are stored arrays")
                };
                let input = self.input(src, source, layout);
                let map = self.kernel_map(m);
                let point = self.push(Inst::Coord { map, dim: 0 }, DType::I64);
                let dim = self.push(Inst::Coord { map, dim: 1 }, DType::I64);
                let index = self.push(Inst::Binary { op: BinaryOp::Add, a: point, b: vals[0] }, DType::I64);
                self.push(Inst::Sobol { input, index, dim, seed: vals[1], scramble: *scramble }, t)
            }
            Op::Unary(op) => self.push(Inst::Unary { op: *op, a: vals[0] }, t),
            Op::Binary(op) => self.push(Inst::Binary { op: *op, a: vals[0], b: vals[1] }, t),
            Op::Select => self.push(Inst::Select { cond: vals[0], a: vals[1], b: vals[2] }, t),
            Op::Fma => self.push(Inst::Fma { a: vals[0], b: vals[1], c: vals[2] }, t),
            Op::Cast => {
                if children[0].0.dtype == t {
                    vals[0]
                } else {
                    self.cast(vals[0], t)
                }
            }
            Op::View(ViewStep::Offset { boundary: Boundary::Fill, .. }) => {
                let map = self.kernel_map(children[0].1);
                let valid = self.push(Inst::Valid { map }, DType::Bool);
                self.push(Inst::Select { cond: valid, a: vals[0], b: vals[1] }, t)
            }
            Op::View(_) => vals[0],
            Op::Concat { .. } => {
                let mut v = *vals.last().expect("concat has parts");
                for (i, (_, pm)) in children.iter().enumerate().rev().skip(1) {
                    let map = self.kernel_map(*pm);
                    let valid = self.push(Inst::Valid { map }, DType::Bool);
                    v = self.push(Inst::Select { cond: valid, a: vals[i], b: v }, t);
                }
                v
            }
            Op::Gather => {
                let src = &self.sub.inputs(n)[0];
                let Leaf::Array(source, layout) = (self.leaf)(src) else {
                    unreachable!("the planner stores gather sources")
                };
                let input = self.input(src, source, layout);
                let mut indices = [0u32; MAX_RANK];
                for (k, &v) in vals.iter().enumerate() {
                    indices[k] = if self.types[v as usize] == DType::I64 { v } else { self.cast(v, DType::I64) };
                }
                self.push(Inst::Gather { input, indices, rank: vals.len() as u8 }, t)
            }
            Op::Source
            | Op::Reduce { .. }
            | Op::Scan { .. }
            | Op::MatMul { .. }
            | Op::Fft(_)
            | Op::Factor(_)
            | Op::Sort(_)
            | Op::IndexCheck { .. }
            | Op::Scatter { .. }
            | Op::Assign(_) => {
                unreachable!("{} is always stored before it is read", n.op.name())
            }
        }
    }

    /// The kernel, where its inputs come from, the fill nodes holding its parameters, and
    /// the share of its cost of each node fused into it (see `cost`).
    pub fn finish(self) -> (Kernel, Vec<Source>, Vec<u32>, Shares) {
        let kernel = Kernel {
            domain: self.domain,
            axis: self.axis,
            inputs: self.inputs,
            params: self.params,
            maps: self.maps,
            insts: self.insts,
            types: self.types,
            outputs: self.outputs,
        };
        let shares = cost::shares(&kernel, &self.owner, &self.output_nodes);
        (kernel, self.sources, self.param_nodes, shares)
    }
}
