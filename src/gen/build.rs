//! Builds one fused kernel: each output's expression is expanded through the fused
//! (unstored) nodes down to arrays that exist or are stored by earlier steps. Views are
//! pushed through element-wise ops as access maps; identical instructions are shared.

use std::collections::HashMap;
use std::sync::Arc;

use crate::exec::Binding;
use crate::ir::kernel::{Inst, Kernel, KernelInput, KernelOutput, KernelReduce, OutputKind};
use crate::ir::{
    BinaryOp, Boundary, DType, Layout, MAX_RANK, Map, MapStep, Node, Op, ReduceOp, Scalar, Shape, ViewStep,
};

/// How the planner sees a node the kernel reads instead of expanding.
pub enum Leaf {
    /// An array with storage (or the promise of one) in this layout.
    Array(Binding, Layout),
    /// Not a leaf: expand it into the kernel.
    Fused,
}

pub struct KernelBuilder<'a> {
    domain: Shape,
    axis: Option<u8>,
    leaf: &'a dyn Fn(&Arc<Node>) -> Leaf,
    insts: Vec<Inst>,
    types: Vec<DType>,
    cse: HashMap<(Inst, DType), u32>,
    /// (node id, map id) -> value
    done: HashMap<(u64, u32), u32>,
    /// Interned maps as (parent, last step); map 0 is the identity.
    map_links: Vec<(u32, Option<MapStep>)>,
    map_ids: HashMap<(u32, MapStep), u32>,
    /// Map id -> index in the kernel's `maps`, for maps that reached an instruction.
    used_maps: HashMap<u32, u32>,
    maps: Vec<Map>,
    inputs: Vec<KernelInput>,
    input_of: HashMap<u64, u32>,
    pub bindings: Vec<Binding>,
    params: Vec<DType>,
    param_of: HashMap<u64, u32>,
    pub param_values: Vec<Scalar>,
    outputs: Vec<KernelOutput>,
}

enum Task {
    Visit(Arc<Node>, u32),
    Build(Arc<Node>, u32, Vec<(Arc<Node>, u32)>),
}

impl<'a> KernelBuilder<'a> {
    pub fn new(domain: Shape, axis: Option<u8>, leaf: &'a dyn Fn(&Arc<Node>) -> Leaf) -> Self {
        KernelBuilder {
            domain,
            axis,
            leaf,
            insts: Vec::new(),
            types: Vec::new(),
            cse: HashMap::new(),
            done: HashMap::new(),
            map_links: vec![(0, None)],
            map_ids: HashMap::new(),
            used_maps: HashMap::new(),
            maps: Vec::new(),
            inputs: Vec::new(),
            input_of: HashMap::new(),
            bindings: Vec::new(),
            params: Vec::new(),
            param_of: HashMap::new(),
            param_values: Vec::new(),
            outputs: Vec::new(),
        }
    }

    /// Adds node `n` (whose op produces it over this kernel's domain) as an output.
    pub fn add_output(&mut self, n: &Arc<Node>) {
        let (value, kind) = match &n.op {
            Op::Reduce { op, .. } => {
                let a = n.pending_inputs()[0].clone();
                let v = self.expand(&a, 0);
                self.reduction(*op, v, a.dtype)
            }
            Op::Scan { op, .. } => {
                let a = n.pending_inputs()[0].clone();
                let mut v = self.expand(&a, 0);
                if a.dtype != n.dtype {
                    v = self.cast(v, n.dtype);
                }
                (v, OutputKind::Scan(*op))
            }
            _ => (self.expand_root(n), OutputKind::Store),
        };
        self.outputs.push(KernelOutput { value, kind, dtype: n.dtype });
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

    fn cast(&mut self, v: u32, to: DType) -> u32 {
        self.push(Inst::Cast { a: v }, to)
    }

    fn push(&mut self, inst: Inst, ty: DType) -> u32 {
        let key = (inst, ty);
        if let Some(&v) = self.cse.get(&key) {
            return v;
        }
        let v = self.insts.len() as u32;
        self.insts.push(key.0.clone());
        self.types.push(ty);
        self.cse.insert(key, v);
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

    fn input(&mut self, n: &Arc<Node>, binding: Binding, layout: Layout) -> u32 {
        if let Some(&i) = self.input_of.get(&n.id) {
            return i;
        }
        let i = self.inputs.len() as u32;
        self.inputs.push(KernelInput { dtype: n.dtype, shape: n.shape, layout });
        self.bindings.push(binding);
        self.input_of.insert(n.id, i);
        i
    }

    /// The value of a kernel output node itself, expanded (never loaded).
    fn expand_root(&mut self, n: &Arc<Node>) -> u32 {
        self.build_from(n.clone(), 0, true)
    }

    /// The value of `n` seen through interned map `m`.
    fn expand(&mut self, n: &Arc<Node>, m: u32) -> u32 {
        self.build_from(n.clone(), m, false)
    }

    /// Post-order expansion with an explicit stack: fused chains can be thousands deep.
    fn build_from(&mut self, root: Arc<Node>, m: u32, root_is_output: bool) -> u32 {
        let (root_id, root_rank0) = (root.id, root.shape.rank() == 0);
        let mut stack = vec![Task::Visit(root, m)];
        while let Some(task) = stack.pop() {
            match task {
                Task::Visit(n, m) => {
                    // A rank-0 value reads the same at every point: one map serves all.
                    let m = if n.shape.rank() == 0 { 0 } else { m };
                    if self.done.contains_key(&(n.id, m)) {
                        continue;
                    }
                    let is_root = root_is_output && n.id == root_id && m == 0;
                    if !is_root {
                        if let Leaf::Array(binding, layout) = (self.leaf)(&n) {
                            let input = self.input(&n, binding, layout);
                            let map = self.kernel_map(m);
                            let v = self.push(Inst::Load { input, map }, n.dtype);
                            self.done.insert((n.id, m), v);
                            continue;
                        }
                    }
                    let children = self.children(&n, m);
                    stack.push(Task::Build(n, m, children.clone()));
                    for (c, cm) in children.into_iter().rev() {
                        stack.push(Task::Visit(c, cm));
                    }
                }
                Task::Build(n, m, children) => {
                    let vals: Vec<u32> = children
                        .iter()
                        .map(|(c, cm)| self.done[&(c.id, if c.shape.rank() == 0 { 0 } else { *cm })])
                        .collect();
                    let v = self.emit(&n, m, &children, &vals);
                    self.done.insert((n.id, m), v);
                }
            }
        }
        self.done[&(root_id, if root_rank0 { 0 } else { m })]
    }

    /// The (input, map) pairs node `n` under map `m` needs.
    fn children(&mut self, n: &Arc<Node>, m: u32) -> Vec<(Arc<Node>, u32)> {
        let inputs = n.pending_inputs();
        match &n.op {
            Op::Unary(_) | Op::Binary(_) | Op::Select | Op::Cast => inputs.into_iter().map(|i| (i, m)).collect(),
            Op::View(step) => {
                let src = &inputs[0];
                let vm = self.map_step(m, MapStep { step: *step, out: n.shape, src: src.shape });
                let mut c = vec![(src.clone(), vm)];
                if let Some(fill) = inputs.get(1) {
                    c.push((fill.clone(), 0)); // a rank-0 fill value reads the same everywhere
                }
                c
            }
            Op::Concat { dim } => {
                let mut start = 0i64;
                inputs
                    .iter()
                    .map(|p| {
                        let mut offset = [0i64; MAX_RANK];
                        offset[*dim as usize] = start;
                        start += p.shape.dim(*dim as usize) as i64;
                        let step = ViewStep::Offset { offset, boundary: Boundary::Fill };
                        (p.clone(), self.map_step(m, MapStep { step, out: n.shape, src: p.shape }))
                    })
                    .collect()
            }
            Op::Gather => {
                // The source is a stored array (a leaf); indices are evaluated in place.
                inputs[1..].iter().map(|i| (i.clone(), m)).collect()
            }
            _ => Vec::new(),
        }
    }

    /// The instructions for `n` under map `m`, given its children and their values.
    fn emit(&mut self, n: &Arc<Node>, m: u32, children: &[(Arc<Node>, u32)], vals: &[u32]) -> u32 {
        let t = n.dtype;
        match &n.op {
            Op::Fill { value, baked: true } => self.push(Inst::Const(*value), t),
            Op::Fill { value, baked: false } => {
                let index = match self.param_of.get(&n.id) {
                    Some(&i) => i,
                    None => {
                        let i = self.params.len() as u32;
                        self.params.push(t);
                        self.param_values.push(*value);
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
            Op::Unary(op) => self.push(Inst::Unary { op: *op, a: vals[0] }, t),
            Op::Binary(op) => self.push(Inst::Binary { op: *op, a: vals[0], b: vals[1] }, t),
            Op::Select => self.push(Inst::Select { cond: vals[0], a: vals[1], b: vals[2] }, t),
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
                let src = n.pending_inputs()[0].clone();
                let Leaf::Array(binding, layout) = (self.leaf)(&src) else {
                    unreachable!("the planner stores gather sources")
                };
                let input = self.input(&src, binding, layout);
                let indices = vals.iter().map(|&v| if self.types[v as usize] == DType::I64 { v } else { self.cast(v, DType::I64) }).collect();
                self.push(Inst::Gather { input, indices }, t)
            }
            Op::Source | Op::Reduce { .. } | Op::Scan { .. } | Op::MatMul | Op::Scatter { .. } => {
                unreachable!("{} is always stored before it is read", n.op.name())
            }
        }
    }

    pub fn finish(self) -> (Kernel, Vec<Binding>, Vec<Scalar>) {
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
        (kernel, self.bindings, self.param_values)
    }
}
