//! What each communicating node sends and receives, and the pieces of its result: planned
//! from its ready inputs (the sends are read from them now), posted after the ranks agree
//! (eval.rs), completed when the messages are in.

use std::rc::Rc;

use crate::dist::{Meta, block, owner};
use crate::error::{Result, bail};
use crate::graph::{Order, Pending, accumulation_type, products};
use crate::pieces::{Piece, Seg, SegNode, Value, apply, ready};
use crate::shim::{Comm, MpiOp, MpiType, Requests};
use crate::sluice_sys::*;

/// One MPI operation of a plan, on buffers registered with the wave's requests.
pub enum Post {
    Send {
        buf: usize,
        dest: i32,
    },
    Recv {
        buf: usize,
        src: i32,
    },
    Allreduce {
        send: usize,
        recv: usize,
        count: usize,
        ty: MpiType,
        op: MpiOp,
    },
    /// Every rank's `send` (rank q: `counts[q]` bytes) into `recv`, on every rank.
    Allgather {
        send: usize,
        recv: usize,
        counts: Vec<usize>,
    },
    AllToAll {
        send: usize,
        send_counts: Vec<usize>,
        recv: usize,
        recv_counts: Vec<usize>,
    },
}

impl Post {
    pub fn post(&self, comm: &Comm, reqs: &mut Requests, tag: i32) -> Result<()> {
        match self {
            Post::Send { buf, dest } => reqs.isend(comm, *buf, *dest, tag),
            Post::Recv { buf, src } => reqs.irecv(comm, *buf, *src, tag),
            Post::Allreduce { send, recv, count, ty, op } => reqs.iallreduce(comm, *send, *recv, *count, *ty, *op),
            Post::Allgather { send, recv, counts } => reqs.igatherv(comm, *send, *recv, counts, None),
            Post::AllToAll { send, send_counts, recv, recv_counts } => {
                reqs.ialltoallv(comm, *send, send_counts, *recv, recv_counts)
            }
        }
    }
}

pub struct Plan {
    pub posts: Vec<Post>,
    pub value: Value,
}

/// The communicator's shape as plans need it.
#[derive(Clone, Copy)]
pub struct Ranks {
    pub me: i32,
    pub size: i32,
}

/// Plans node `p` (of meta `meta`) whose inputs' local parts are `inputs`, of metas `metas`.
pub fn plan(p: &Pending, meta: &Meta, inputs: &[(&Meta, &Local)], ranks: Ranks, reqs: &mut Requests) -> Result<Plan> {
    match *p {
        Pending::Shift { offset, boundary, fill, .. } => shift(meta, inputs[0].1, offset, boundary, fill, ranks, reqs),
        Pending::Reduce { op, dim, order, .. } => {
            let (m, x) = inputs[0];
            if order == Order::Exact {
                let full = gathered(m, x, ranks, reqs)?;
                let value = apply(vec![full.whole], Rc::new(move |xs| xs[0].reduce(op, dim)))?;
                return Ok(Plan { posts: full.posts, value: Value::Whole(value) });
            }
            if op == SL_ARGMIN || op == SL_ARGMAX {
                return arg_extremum(meta, m, x, op, dim, ranks, reqs);
            }
            let sum_like = matches!(op, SL_SUM | SL_NANSUM | SL_NORM1 | SL_NORM2 | SL_PROD);
            // A mean sums in its result's type (f64 for integers, as Sluice's), sums and
            // norms of f32/c64 in f64/c128.
            let wide = if op == SL_MEAN { accumulation_type(meta.dtype) } else { accumulation_type(m.dtype) };
            let x = if (sum_like || op == SL_MEAN) && wide != m.dtype { x.cast(wide)? } else { x.retain()? };
            let partial = x.reduce(if op == SL_MEAN { SL_SUM } else { op }, dim)?;
            let count = match dim {
                Some(d) => m.dims[d],
                None => m.dims.iter().product(),
            };
            combined(meta, m, partial, op, dim, order, count, ranks, reqs)
        }
        Pending::Dot { order, .. } => {
            let ((ma, a), (mb, b)) = (inputs[0], inputs[1]);
            if order == Order::Exact {
                let fa = gathered(ma, a, ranks, reqs)?;
                let fb = gathered(mb, b, ranks, reqs)?;
                let inputs = vec![fa.whole, fb.whole];
                let value = apply(inputs, Rc::new(|xs| xs[0].dot(xs[1])))?;
                let mut posts = fa.posts;
                posts.extend(fb.posts);
                return Ok(Plan { posts, value: Value::Whole(value) });
            }
            let partial = if accumulation_type(ma.dtype) != ma.dtype || accumulation_type(mb.dtype) != mb.dtype {
                products(a, b)?.reduce(SL_SUM, None)?
            } else {
                a.dot(b)?
            };
            combined(meta, ma, partial, SL_SUM, None, order, 0, ranks, reqs)
        }
        Pending::Redistribute { to, .. } => {
            let (m, x) = inputs[0];
            match to {
                None => {
                    let full = gathered(m, x, ranks, reqs)?;
                    Ok(Plan { posts: full.posts, value: Value::Whole(full.whole) })
                }
                Some(e) => all_to_all(meta, m, x, e, ranks, reqs),
            }
        }
        Pending::Map { .. } => unreachable!("local operations have no plan"),
    }
}

/// A stretch of a rank's result along the distributed dimension of a shift.
#[derive(Debug, PartialEq)]
enum Run {
    /// `len` elements of the fill value.
    Fill(i64),
    /// Input elements `src..src + len` (all in `owner`'s block), stretched to `out`
    /// elements (`out > len` only for a clamped edge: one element repeated).
    Take { owner: i32, src: i64, len: i64, out: i64 },
}

impl Run {
    fn out(&self) -> i64 {
        match *self {
            Run::Fill(n) => n,
            Run::Take { out, .. } => out,
        }
    }
}

/// Where rank `r`'s part of `shift(x, offset)` comes from, in order (`n` elements along
/// the dimension, `p` ranks).
fn shift_runs(n: i64, p: i32, r: i32, offset: i64, boundary: i32) -> Vec<Run> {
    let (s, c) = block(n, p, r);
    let end = s + c;
    let mut runs = Vec::new();
    let take = |runs: &mut Vec<Run>, mut j: i64, mut len: i64| {
        while len > 0 {
            let q = owner(n, p, j);
            let (sq, cq) = block(n, p, q);
            let l = len.min(sq + cq - j);
            runs.push(Run::Take { owner: q, src: j, len: l, out: l });
            j += l;
            len -= l;
        }
    };
    let mut g = s;
    while g < end {
        let j = i128::from(g) - i128::from(offset);
        let left = end - g;
        let len = if boundary == SL_BOUNDARY_WRAP {
            let jm = j.rem_euclid(i128::from(n)) as i64;
            let len = left.min(n - jm);
            take(&mut runs, jm, len);
            len
        } else if j < 0 || j >= i128::from(n) {
            let len = if j < 0 { i128::from(left).min(-j) as i64 } else { left };
            if boundary == SL_BOUNDARY_CLAMP {
                let edge = if j < 0 { 0 } else { n - 1 };
                runs.push(Run::Take { owner: owner(n, p, edge), src: edge, len: 1, out: len });
            } else {
                runs.push(Run::Fill(len));
            }
            len
        } else {
            let len = left.min(n - j as i64);
            take(&mut runs, j as i64, len);
            len
        };
        g += len;
    }
    runs
}

/// Halo exchange: each rank receives exactly the elements of its result that other ranks
/// hold, and sends what others need of its own.
fn shift(
    meta: &Meta,
    x: &Local,
    offset: i64,
    boundary: i32,
    fill: f64,
    ranks: Ranks,
    reqs: &mut Requests,
) -> Result<Plan> {
    let d = meta.dist.expect("a distributed shift");
    let n = meta.dims[d];
    let (s_me, _) = block(n, ranks.size, ranks.me);
    let mut posts = Vec::new();
    let mut pieces = Vec::new();
    for run in shift_runs(n, ranks.size, ranks.me, offset, boundary) {
        let seg = match run {
            Run::Fill(len) => ready(Local::constant(meta.dtype, &meta.with_len(len), fill)?),
            Run::Take { owner, src, len, out } => {
                let part = if owner == ranks.me {
                    ready(x.rows(d, src - s_me, len)?)
                } else {
                    let dims = meta.with_len(len);
                    let buf = reqs.buffer(vec![0; byte_size(meta.dtype, &dims)?]);
                    posts.push(Post::Recv { buf, src: owner });
                    Rc::new(SegNode::Recv { buf, offset: 0, dtype: meta.dtype, dims })
                };
                if out == len {
                    part
                } else {
                    let dims = meta.with_len(out);
                    apply(vec![part], Rc::new(move |x| x[0].broadcast_to(&dims)))?
                }
            }
        };
        pieces.push(Piece { len: run.out(), seg });
    }
    for r in (0..ranks.size).filter(|&r| r != ranks.me) {
        for run in shift_runs(n, ranks.size, r, offset, boundary) {
            if let Run::Take { owner, src, len, .. } = run
                && owner == ranks.me
            {
                let buf = reqs.buffer(x.rows(d, src - s_me, len)?.read()?);
                posts.push(Post::Send { buf, dest: r });
            }
        }
    }
    Ok(Plan { posts, value: Value::Split(pieces) })
}

/// Every rank's bytes count of its block of `m`.
fn block_bytes(m: &Meta, ranks: Ranks) -> Result<Vec<usize>> {
    (0..ranks.size).map(|q| byte_size(m.dtype, &m.local_dims(ranks.size, q))).collect()
}

/// Received blocks (rank q's at the sum of the earlier counts), joined along `dim` into
/// an array of `dtype` and `dims`; ranks with nothing are left out, and with nothing
/// anywhere `empty` stands for the result.
fn joined(
    buf: usize,
    counts: &[usize],
    dims_of: impl Fn(i32) -> Vec<i64>,
    (dtype, dims): (sl_dtype, Vec<i64>),
    dim: usize,
    empty: Seg,
) -> Result<Seg> {
    let mut at = 0;
    let mut parts = Vec::new();
    for (q, &bytes) in counts.iter().enumerate() {
        let part = dims_of(q as i32);
        if part[dim] > 0 {
            parts.push(Rc::new(SegNode::Recv { buf, offset: at, dtype, dims: part }) as Seg);
        }
        at += bytes;
    }
    if parts.is_empty() {
        return Ok(empty);
    }
    apply(parts, Rc::new(move |xs| join(xs, dim, dtype, &dims)))
}

struct Gathered {
    posts: Vec<Post>,
    /// The whole array.
    whole: Seg,
}

/// The whole of distributed `x` on every rank (`MPI_Iallgatherv` of the blocks).
fn gathered(m: &Meta, x: &Local, ranks: Ranks, reqs: &mut Requests) -> Result<Gathered> {
    let d = m.dist.expect("distributed");
    let counts = block_bytes(m, ranks)?;
    let total = counts.iter().try_fold(0usize, |a, &c| a.checked_add(c));
    let Some(total) = total else { bail!(SL_ERR_NOT_SUPPORTED, "{} is too large to gather", m.describe()) };
    let send = reqs.buffer(x.read()?);
    let recv = reqs.buffer(vec![0; total]);
    let empty = ready(x.retain()?);
    let seg = joined(recv, &counts, |q| m.local_dims(ranks.size, q), (m.dtype, m.dims.clone()), d, empty)?;
    Ok(Gathered { posts: vec![Post::Allgather { send, recv, counts }], whole: seg })
}

/// The MPI reduction that combines partials of `op` of type `dtype`, and the type they
/// travel in; `None` where MPI has none that gives Sluice's result (NaN in a float min or
/// max, a norm, an argmin): those gather the partials.
fn mpi_reduction(op: i32, dtype: sl_dtype) -> Option<(MpiType, MpiOp, sl_dtype)> {
    let (ty, wire) = if is_complex(dtype) {
        (MpiType::C128, SL_C128)
    } else if is_float(dtype) {
        (MpiType::F64, SL_F64)
    } else {
        (MpiType::I64, SL_I64)
    };
    let ordered = !is_float(dtype) && !is_complex(dtype);
    let mpi_op = match op {
        SL_SUM | SL_MEAN | SL_NANSUM | SL_NORM1 | SL_COUNT => MpiOp::Sum,
        SL_PROD => MpiOp::Prod,
        SL_ANY if ordered => MpiOp::Max,
        SL_ALL if ordered => MpiOp::Min,
        SL_MINVAL | SL_NANMIN if ordered => MpiOp::Min,
        SL_MAXVAL | SL_NANMAX if ordered => MpiOp::Max,
        _ => return None,
    };
    if ty == MpiType::C128 && !matches!(mpi_op, MpiOp::Sum | MpiOp::Prod) {
        return None;
    }
    Some((ty, mpi_op, wire))
}

/// How partials of `op` combine into the result.
fn combining(op: i32) -> i32 {
    match op {
        SL_MEAN | SL_NANSUM | SL_NORM1 | SL_COUNT => SL_SUM,
        SL_NORMINF => SL_MAXVAL,
        other => other,
    }
}

/// The ranks whose blocks of distributed `m` hold elements; rank 0 alone when none does
/// (its partial is then the reduction of nothing).
fn members(m: &Meta, ranks: Ranks) -> Vec<i32> {
    let d = m.dist.expect("distributed");
    let with: Vec<i32> = (0..ranks.size).filter(|&q| m.local_dims(ranks.size, q)[d] > 0).collect();
    if with.is_empty() { vec![0] } else { with }
}

/// Each rank's `partial` of reduction `op` (along `dim` of `m`, or everything) combined
/// into `meta` on every rank: by MPI_Allreduce (`Order::Fast` where MPI has the operation)
/// or gathered and combined in rank order. `count` is the number of elements a mean
/// divides by.
#[allow(clippy::too_many_arguments)]
fn combined(
    meta: &Meta,
    m: &Meta,
    partial: Local,
    op: i32,
    dim: Option<usize>,
    order: Order,
    count: i64,
    ranks: Ranks,
    reqs: &mut Requests,
) -> Result<Plan> {
    let pdims = partial.dims()?;
    let pdtype = partial.dtype()?;
    let result = meta.dtype;
    let finish = move |x: Local| -> Result<Local> {
        let x = if op == SL_MEAN {
            let wide = if is_complex(x.dtype()?) { SL_C128 } else { SL_F64 };
            x.cast(wide)?.binary_scalar(SL_DIV, count as f64)?
        } else {
            x
        };
        if x.dtype()? == result { Ok(x) } else { x.cast(result) }
    };
    if order == Order::Fast
        && let Some((ty, mpi_op, wire)) = mpi_reduction(op, pdtype)
    {
        let bytes = if wire == pdtype { partial.read()? } else { partial.cast(wire)?.read()? };
        let values = bytes.len() / element_size(wire).expect("known type");
        let send = reqs.buffer(bytes);
        let recv = reqs.buffer(vec![0; reqs.buffers[send].len()]);
        let seg = Rc::new(SegNode::Recv { buf: recv, offset: 0, dtype: wire, dims: pdims });
        let value = apply(vec![seg], Rc::new(move |x| finish(x[0].retain()?)))?;
        let post = Post::Allreduce { send, recv, count: values, ty, op: mpi_op };
        return Ok(Plan { posts: vec![post], value: Value::Whole(value) });
    }
    let bytes = partial.read()?;
    let len = bytes.len();
    let send = reqs.buffer(bytes);
    let recv = reqs.buffer(vec![0; len * ranks.size as usize]);
    let segs: Vec<Seg> = members(m, ranks)
        .into_iter()
        .map(|q| {
            Rc::new(SegNode::Recv { buf: recv, offset: q as usize * len, dtype: pdtype, dims: pdims.clone() }) as Seg
        })
        .collect();
    let combine = combining(op);
    let value = apply(
        segs,
        Rc::new(move |xs| {
            let stacked = stack(xs, dim)?;
            finish(stacked.reduce(combine, dim)?)
        }),
    )?;
    let post = Post::Allgather { send, recv, counts: vec![len; ranks.size as usize] };
    Ok(Plan { posts: vec![post], value: Value::Whole(value) })
}

/// Partials joined along the reduced dimension (over everything: rank-0 partials as a
/// vector).
fn stack(xs: &[&Local], dim: Option<usize>) -> Result<Local> {
    let parts =
        xs.iter().map(|x| if dim.is_some() { x.retain() } else { x.reshape(&[1]) }).collect::<Result<Vec<_>>>()?;
    concat(&parts, dim.unwrap_or(0))
}

/// Argmin and argmax: each rank's extreme values and their global indices, gathered; the
/// candidate first in the array's order (along the reduced dimension: the first rank)
/// holding the extreme (the first NaN) gives the index, as one process would.
fn arg_extremum(
    meta: &Meta,
    m: &Meta,
    x: &Local,
    op: i32,
    dim: Option<usize>,
    ranks: Ranks,
    reqs: &mut Requests,
) -> Result<Plan> {
    let d = m.dist.expect("distributed");
    let extreme = if op == SL_ARGMIN { SL_MINVAL } else { SL_MAXVAL };
    let values = x.reduce(extreme, dim)?;
    let pdims = values.dims()?;
    let vtype = values.dtype()?;
    let vbytes = values.read()?;
    let mut index: Vec<i64> = x
        .reduce(op, dim)?
        .cast(SL_I64)?
        .read()?
        .chunks_exact(8)
        .map(|c| i64::from_ne_bytes(c.try_into().expect("8 bytes")))
        .collect();
    let (start, count) = m.block(ranks.size, ranks.me);
    let below: i64 = m.dims[..d].iter().product();
    for i in index.iter_mut().filter(|i| **i >= 0) {
        *i = match dim {
            Some(_) => *i + start,
            // A column-major flat index of the block, made one of the whole array.
            None => {
                let (low, rest) = (*i % below, *i / below);
                let (along, high) = (rest % count + start, rest / count);
                low + below * (along + m.dims[d] * high)
            }
        };
    }
    let mut bytes = vbytes;
    let vlen = bytes.len();
    bytes.extend(index.iter().flat_map(|i| i.to_ne_bytes()));
    let len = bytes.len();
    let send = reqs.buffer(bytes);
    let recv = reqs.buffer(vec![0; len * ranks.size as usize]);
    let who = members(m, ranks);
    let k = who.len();
    let mut segs: Vec<Seg> = Vec::new();
    for (at, dtype) in [(0, vtype), (vlen, SL_I64)] {
        segs.extend(who.iter().map(|&q| {
            Rc::new(SegNode::Recv { buf: recv, offset: q as usize * len + at, dtype, dims: pdims.clone() }) as Seg
        }));
    }
    let result = meta.dtype;
    let value = apply(
        segs,
        Rc::new(move |xs| {
            let (mut v, mut i) = (stack(&xs[..k], dim)?, stack(&xs[k..], dim)?);
            if dim.is_none() {
                // The first extreme in the whole array's order, which is not rank order
                // when the blocks are not its last dimension: candidates by index.
                let by_index = i.argsort(0)?;
                v = v.take_along(&by_index, 0)?;
                i = i.take_along(&by_index, 0)?;
            }
            let along = dim.unwrap_or(0);
            let pick = v.reduce(op, Some(along))?;
            let mut r = i.take_along(&pick, along)?;
            if dim.is_none() {
                r = r.reshape(&[])?;
            }
            if r.dtype()? == result { Ok(r) } else { r.cast(result) }
        }),
    )?;
    let post = Post::Allgather { send, recv, counts: vec![len; ranks.size as usize] };
    Ok(Plan { posts: vec![post], value: Value::Whole(value) })
}

/// Redistribution from dimension `d` to `e`: rank t gets from every rank the elements of
/// its block along `e` in that rank's block along `d` (`MPI_Ialltoallv`).
fn all_to_all(meta: &Meta, m: &Meta, x: &Local, e: usize, ranks: Ranks, reqs: &mut Requests) -> Result<Plan> {
    let d = m.dist.expect("distributed");
    let mut send = Vec::new();
    let mut send_counts = Vec::with_capacity(ranks.size as usize);
    let mine = m.local_dims(ranks.size, ranks.me);
    for t in 0..ranks.size {
        let (s, c) = block(m.dims[e], ranks.size, t);
        let before = send.len();
        if c > 0 && mine[d] > 0 {
            send.extend(x.rows(e, s, c)?.read()?);
        }
        send_counts.push(send.len() - before);
    }
    let (_, c_me) = block(meta.dims[e], ranks.size, ranks.me);
    let from = |q: i32| {
        let mut dims = m.local_dims(ranks.size, q);
        dims[e] = c_me;
        dims
    };
    let recv_counts = (0..ranks.size).map(|q| byte_size(m.dtype, &from(q))).collect::<Result<Vec<_>>>()?;
    let total = recv_counts.iter().sum();
    let send = reqs.buffer(send);
    let recv = reqs.buffer(vec![0; total]);
    let local_dims = meta.local_dims(ranks.size, ranks.me);
    let empty = ready(Local::constant(meta.dtype, &local_dims, 0.0)?);
    let seg = joined(recv, &recv_counts, from, (m.dtype, local_dims), d, empty)?;
    let value = if c_me == 0 { Value::Split(Vec::new()) } else { Value::Split(vec![Piece { len: c_me, seg }]) };
    Ok(Plan { posts: vec![Post::AllToAll { send, send_counts, recv, recv_counts }], value })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `SL_BOUNDARY_FILL` (the library itself only tells the other two apart).
    const SL_BOUNDARY_FILL: i32 = 0;

    /// The runs against shifting a plain vector: every output element's source.
    #[test]
    fn shift_runs_match_a_plain_shift() {
        for n in 0..13i64 {
            for p in 1..6i32 {
                for offset in [-20i64, -13, -5, -1, 0, 1, 2, 7, 12, 13, 25, i64::MIN, i64::MAX] {
                    for boundary in [SL_BOUNDARY_FILL, SL_BOUNDARY_CLAMP, SL_BOUNDARY_WRAP] {
                        if boundary == SL_BOUNDARY_WRAP && n == 0 {
                            continue;
                        }
                        let mut got = Vec::new();
                        for r in 0..p {
                            for run in shift_runs(n, p, r, offset, boundary) {
                                match run {
                                    Run::Fill(len) => got.extend((0..len).map(|_| None)),
                                    Run::Take { owner: q, src, len, out } => {
                                        let (sq, cq) = block(n, p, q);
                                        assert!(src >= sq && src + len <= sq + cq, "run inside its owner's block");
                                        if out == len {
                                            got.extend((src..src + len).map(Some));
                                        } else {
                                            assert_eq!(len, 1);
                                            got.extend((0..out).map(|_| Some(src)));
                                        }
                                    }
                                }
                            }
                        }
                        let want: Vec<Option<i64>> = (0..n)
                            .map(|g| {
                                let j = i128::from(g) - i128::from(offset);
                                let n128 = i128::from(n);
                                match boundary {
                                    SL_BOUNDARY_WRAP => Some(j.rem_euclid(n128) as i64),
                                    _ if (0..n128).contains(&j) => Some(j as i64),
                                    SL_BOUNDARY_CLAMP => Some(j.clamp(0, n128 - 1) as i64),
                                    _ => None,
                                }
                            })
                            .collect();
                        assert_eq!(got, want, "n {n} p {p} offset {offset} boundary {boundary}");
                    }
                }
            }
        }
    }
}
