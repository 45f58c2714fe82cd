//! A rank's part of an array while an evaluation runs: pieces along the distributed
//! dimension, each either a Sluice array already (a section of a ready part: its work is
//! deferred in Sluice as usual) or a computation waiting for received data. Local
//! operations apply piece by piece, so the pieces that need nothing from other ranks (the
//! interior of a stencil) can be computed while the others' messages are in flight.

use std::collections::HashMap;
use std::rc::Rc;

use crate::dist::Meta;
use crate::error::Result;
use crate::graph::MapOp;
use crate::sluice_sys::{Local, join, sl_dtype};

pub type Seg = Rc<SegNode>;

type Compute = Rc<dyn Fn(&[&Local]) -> Result<Local>>;

pub enum SegNode {
    Ready(Local),
    /// Bytes of received buffer `buf` from `offset`: an array of `dtype` and `dims`,
    /// column-major.
    Recv {
        buf: usize,
        offset: usize,
        dtype: sl_dtype,
        dims: Vec<i64>,
    },
    /// `f` of the inputs, once they are arrays.
    Apply {
        inputs: Vec<Seg>,
        f: Compute,
    },
}

/// Piece of `len` elements along the distributed dimension.
#[derive(Clone)]
pub struct Piece {
    pub len: i64,
    pub seg: Seg,
}

/// A rank's part of a node: whole (replicated nodes) or pieces in order along the
/// distributed dimension.
#[derive(Clone)]
pub enum Value {
    Whole(Seg),
    Split(Vec<Piece>),
}

pub fn ready(local: Local) -> Seg {
    Rc::new(SegNode::Ready(local))
}

/// `f` of `inputs`: computed now when they are all arrays, else when they are.
pub fn apply(inputs: Vec<Seg>, f: Compute) -> Result<Seg> {
    let locals: Option<Vec<&Local>> = inputs
        .iter()
        .map(|s| match &**s {
            SegNode::Ready(l) => Some(l),
            _ => None,
        })
        .collect();
    match locals {
        Some(xs) => Ok(ready(f(&xs)?)),
        None => Ok(Rc::new(SegNode::Apply { inputs, f })),
    }
}

/// Elements `start..start + count` along `dim` of a piece `len` long.
pub fn rows(seg: &Seg, dim: usize, start: i64, count: i64, len: i64) -> Result<Seg> {
    if start == 0 && count == len {
        return Ok(seg.clone());
    }
    apply(vec![seg.clone()], Rc::new(move |x| x[0].rows(dim, start, count)))
}

/// The value of a ready node.
pub fn of_local(local: &Local, meta: &Meta, local_len: i64) -> Result<Value> {
    let seg = ready(local.retain()?);
    Ok(match meta.dist {
        None => Value::Whole(seg),
        Some(_) if local_len == 0 => Value::Split(Vec::new()),
        Some(_) => Value::Split(vec![Piece { len: local_len, seg }]),
    })
}

/// How one operand of a local operation enters each piece of the result.
pub enum Operand<'a> {
    /// The same array for every piece (broadcast, or a matrix product's right side).
    Whole(&'a Seg),
    /// Cut like the result: pieces of the same distribution.
    Aligned(&'a [Piece]),
    /// A replicated array with the distributed dimension in full: each piece takes its
    /// elements `start + piece offset ..` of it.
    Sectioned { whole: &'a Seg, start: i64, full: i64 },
}

/// `op` of the operands, piece by piece; `len` is the result's local length along `dim`
/// (`None`: the result is replicated, every operand whole).
pub fn map(op: &MapOp, operands: &[Operand], dim: Option<usize>, len: i64) -> Result<Value> {
    let f: Compute = {
        let op = op.clone();
        Rc::new(move |x| op.apply(x))
    };
    let Some(dim) = dim else {
        let inputs = operands
            .iter()
            .map(|o| match o {
                Operand::Whole(s) => (*s).clone(),
                _ => unreachable!("a replicated result has whole operands"),
            })
            .collect();
        return Ok(Value::Whole(apply(inputs, f)?));
    };
    // Cut where any aligned operand's pieces end.
    let mut cuts = vec![0, len];
    for o in operands {
        if let Operand::Aligned(pieces) = o {
            let mut at = 0;
            for p in pieces.iter() {
                at += p.len;
                cuts.push(at);
            }
        }
    }
    cuts.sort_unstable();
    cuts.dedup();
    let mut out = Vec::new();
    for w in cuts.windows(2) {
        let (a, b) = (w[0], w[1]);
        if a == b {
            continue;
        }
        let mut inputs = Vec::with_capacity(operands.len());
        for o in operands {
            inputs.push(match o {
                Operand::Whole(s) => (*s).clone(),
                Operand::Aligned(pieces) => cut(pieces, dim, a, b)?,
                Operand::Sectioned { whole, start, full } => rows(whole, dim, start + a, b - a, *full)?,
            });
        }
        out.push(Piece { len: b - a, seg: apply(inputs, f.clone())? });
    }
    Ok(Value::Split(out))
}

/// Elements `a..b` along `dim` of pieces laid end to end, within one piece (the cuts of
/// `map` never cross a piece's end).
fn cut(pieces: &[Piece], dim: usize, a: i64, b: i64) -> Result<Seg> {
    let mut at = 0;
    for p in pieces {
        if a >= at && b <= at + p.len {
            return rows(&p.seg, dim, a - at, b - a, p.len);
        }
        at += p.len;
    }
    unreachable!("cut {a}..{b} outside the pieces")
}

/// Turns segments into arrays once received data is in `buffers`; a segment shared by
/// several pieces or nodes becomes one array.
#[derive(Default)]
pub struct Resolver {
    memo: HashMap<*const SegNode, Rc<Local>>,
}

impl Resolver {
    pub fn seg(&mut self, seg: &Seg, buffers: &[Vec<u8>]) -> Result<Rc<Local>> {
        let key = Rc::as_ptr(seg);
        if let Some(l) = self.memo.get(&key) {
            return Ok(l.clone());
        }
        let local = Rc::new(match &**seg {
            SegNode::Ready(l) => l.retain()?,
            SegNode::Recv { buf, offset, dtype, dims } => {
                let bytes = crate::sluice_sys::byte_size(*dtype, dims)?;
                Local::create(*dtype, dims, &buffers[*buf][*offset..*offset + bytes])?
            }
            SegNode::Apply { inputs, f } => {
                let xs = inputs.iter().map(|s| self.seg(s, buffers)).collect::<Result<Vec<_>>>()?;
                let refs: Vec<&Local> = xs.iter().map(|l| &**l).collect();
                f(&refs)?
            }
        });
        self.memo.insert(key, local.clone());
        Ok(local)
    }

    /// A node's whole local part: its pieces joined (an empty part when it has none),
    /// into `started` where the pieces that were ready went before the wait.
    pub fn value(
        &mut self,
        value: &Value,
        meta: &Meta,
        local_dims: &[i64],
        buffers: &[Vec<u8>],
        started: Option<Started>,
    ) -> Result<Local> {
        match value {
            Value::Whole(s) => self.seg(s, buffers)?.retain(),
            Value::Split(pieces) if pieces.is_empty() => Local::constant(meta.dtype, local_dims, 0.0),
            Value::Split(pieces) => {
                let d = meta.dist.expect("split values are distributed");
                let Some(Started { out, done }) = started else {
                    let parts = pieces.iter().map(|p| self.seg(&p.seg, buffers)).collect::<Result<Vec<_>>>()?;
                    let refs: Vec<&Local> = parts.iter().map(|l| &**l).collect();
                    return join(&refs, d, meta.dtype, local_dims);
                };
                let mut at = 0;
                for (p, done) in pieces.iter().zip(done) {
                    if !done {
                        out.assign_rows(d, at, &*self.seg(&p.seg, buffers)?)?;
                    }
                    at += p.len;
                }
                Ok(out)
            }
        }
    }
}

/// A node's part begun before its messages arrive: the pieces that were ready, assigned
/// into the array that becomes its part (`done` marks them).
pub struct Started {
    pub out: Local,
    done: Vec<bool>,
}

/// Starts a split value's part with its ready pieces (a stencil's interior), so that
/// Sluice computes them into the part's own storage while the halos travel; `None`
/// where there is nothing to start or nothing to join.
pub fn start(value: &Value, meta: &Meta, local_dims: &[i64]) -> Result<Option<Started>> {
    let Value::Split(pieces) = value else { return Ok(None) };
    let ready = |p: &Piece| matches!(&*p.seg, SegNode::Ready(_));
    if pieces.len() < 2 || !pieces.iter().any(ready) {
        return Ok(None);
    }
    let d = meta.dist.expect("split values are distributed");
    let out = Local::constant(meta.dtype, local_dims, 0.0)?;
    let mut at = 0;
    let mut done = Vec::with_capacity(pieces.len());
    for p in pieces {
        if let SegNode::Ready(l) = &*p.seg {
            out.assign_rows(d, at, l)?;
        }
        done.push(ready(p));
        at += p.len;
    }
    Ok(Some(Started { out, done }))
}
