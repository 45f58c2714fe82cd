//! The operations on distributed arrays as the C API calls them: checks, the result's
//! meta (global shape and type found by Sluice itself, from stand-ins of the global
//! shapes, so its rules and messages apply unchanged), and the node that computes it.
//! Collective calls that create or gather arrays communicate at once; the others are
//! deferred until an evaluation needs them.

use std::collections::HashMap;

use crate::context::Context;
use crate::dist::{Meta, block};
use crate::error::{Error, Result, bail};
use crate::eval::{map_value, materialize, resolve_ready};
use crate::graph::{MapOp, NodeId, Order, Pending, State};
use crate::pieces::{Resolver, SegNode, Value};
use crate::shim::Requests;
use crate::sluice_sys::*;

/// A Sluice array of the global shape and type of `m`, never computed: Sluice checks an
/// operation on it and says what it gives.
fn stand_in(m: &Meta) -> Result<Local> {
    Local::constant(m.dtype, &m.dims, 0.0)
}

/// Dtype and global dims of `f` of stand-ins for `metas`.
fn infer(metas: &[&Meta], f: impl FnOnce(&[&Local]) -> Result<Local>) -> Result<(sl_dtype, Vec<i64>)> {
    let xs = metas.iter().map(|m| stand_in(m)).collect::<Result<Vec<_>>>()?;
    let refs: Vec<&Local> = xs.iter().collect();
    let r = f(&refs)?;
    Ok((r.dtype()?, r.dims()?))
}

fn dim_arg(dim: i32, rank: usize, what: &str) -> Result<usize> {
    match usize::try_from(dim) {
        Ok(d) if d < rank => Ok(d),
        _ => bail!(SL_ERR_INVALID_ARGUMENT, "{what} {dim} is not a dimension of a rank-{rank} array"),
    }
}

/// A distribution argument: `SL_MPI_REPLICATED` (-1) or a dimension.
pub fn dist_arg(dist: i32, rank: usize) -> Result<Option<usize>> {
    if dist == crate::api::SL_MPI_REPLICATED {
        Ok(None)
    } else {
        dim_arg(dist, rank, "distribution dimension").map(Some)
    }
}

pub fn order_arg(order: i32) -> Result<Order> {
    Ok(match order {
        crate::api::SL_MPI_ORDER_FAST => Order::Fast,
        crate::api::SL_MPI_ORDER_RANKS => Order::Ranks,
        crate::api::SL_MPI_ORDER_EXACT => Order::Exact,
        _ => bail!(
            SL_ERR_INVALID_ARGUMENT,
            "order {order} is not SL_MPI_ORDER_FAST (0), SL_MPI_ORDER_RANKS (1) or SL_MPI_ORDER_EXACT (2)"
        ),
    })
}

fn handle_of(ctx: &mut Context, id: NodeId) -> u64 {
    ctx.graph.handle(id)
}

/// A node for local operation `op` of `inputs` with result `result`: computed now (as
/// deferred Sluice calls) when its inputs are ready, else when they are.
fn local_node(ctx: &mut Context, op: MapOp, inputs: Vec<NodeId>, result: Meta) -> Result<NodeId> {
    if inputs.iter().all(|&i| ctx.graph.ready(i).is_some()) {
        let value = map_value(ctx, &op, &inputs, &result, &HashMap::new())?;
        let local = resolve_ready(ctx, &value, &result)?;
        return Ok(ctx.graph.add(result, State::Ready(local)));
    }
    Ok(ctx.graph.add(result, State::Pending(Pending::Map { op, inputs })))
}

/// The distribution of a local operation's result: that of its distributed operands,
/// which must agree, and the distributed dimension must not be stretched by broadcasting.
fn map_dist(op: &MapOp, metas: &[&Meta], dims: &[i64]) -> Result<Option<usize>> {
    let mut dist: Option<(usize, &Meta)> = None;
    for (k, m) in metas.iter().enumerate() {
        let Some(d) = m.dist else { continue };
        if op.whole(k) {
            bail!(SL_ERR_INTERNAL, "a whole operand is distributed");
        }
        match dist {
            Some((e, first)) if e != d => bail!(
                SL_ERR_SHAPE_MISMATCH,
                "operands distributed differently: {} and {}; make them alike with sl_mpi_redistribute",
                first.describe(),
                m.describe()
            ),
            _ => dist = Some((d, m)),
        }
        if m.dims[d] != dims[d] {
            bail!(
                SL_ERR_SHAPE_MISMATCH,
                "broadcasting would stretch the distributed dimension {d} of {} to {} elements: the result would need elements other ranks hold (replicate it with sl_mpi_redistribute(..., SL_MPI_REPLICATED, ...) first)",
                m.describe(),
                dims[d]
            );
        }
    }
    Ok(dist.map(|(d, _)| d))
}

/// A local (element-wise, or along a dimension that is not distributed) operation.
pub fn map(ctx: &mut Context, op: MapOp, handles: &[u64]) -> Result<u64> {
    let ids = handles.iter().map(|&h| ctx.graph.lookup(h)).collect::<Result<Vec<_>>>()?;
    let metas: Vec<Meta> = ids.iter().map(|&i| ctx.graph.meta(i).clone()).collect();
    let refs: Vec<&Meta> = metas.iter().collect();
    let (dtype, dims) = infer(&refs, |x| op.apply(x))?;
    let dist = map_dist(&op, &refs, &dims)?;
    let id = local_node(ctx, op, ids, Meta { dtype, dims, dist })?;
    Ok(handle_of(ctx, id))
}

/// `sl_shift` (or, with `SL_BOUNDARY_WRAP`, `sl_rotate`): along the distributed dimension
/// a halo exchange, along another a local operation.
pub fn shift(ctx: &mut Context, h: u64, dim: i32, offset: i64, boundary: i32, fill: f64) -> Result<u64> {
    let id = ctx.graph.lookup(h)?;
    let m = ctx.graph.meta(id).clone();
    let d = dim_arg(dim, m.dims.len(), "dim")?;
    // Sluice checks the boundary and the fill value.
    infer(&[&m], |x| x[0].shift(d, offset, boundary, fill))?;
    if m.dist != Some(d) {
        let op = MapOp::Shift { dim: d, offset, boundary, fill };
        let id = local_node(ctx, op, vec![id], m)?;
        return Ok(handle_of(ctx, id));
    }
    let id = ctx.graph.add(m, State::Pending(Pending::Shift { input: id, offset, boundary, fill }));
    Ok(handle_of(ctx, id))
}

/// Reductions the distributed dimension can be reduced by.
const DISTRIBUTED_REDUCTIONS: [i32; 16] = [
    SL_SUM, SL_PROD, SL_MINVAL, SL_MAXVAL, SL_MEAN, SL_ANY, SL_ALL, SL_COUNT, SL_ARGMIN, SL_ARGMAX, SL_NANSUM,
    SL_NANMIN, SL_NANMAX, SL_NORM1, SL_NORM2, SL_NORMINF,
];

pub fn reduce(ctx: &mut Context, op: i32, h: u64, dim: i32, order: i32) -> Result<u64> {
    let id = ctx.graph.lookup(h)?;
    let m = ctx.graph.meta(id).clone();
    let order = order_arg(order)?;
    let dim = if dim == SL_ALL_DIMS { None } else { Some(dim_arg(dim, m.dims.len(), "dim")?) };
    let (dtype, dims) = infer(&[&m], |x| x[0].reduce(op, dim))?;
    match (m.dist, dim) {
        (None, _) => {
            let id = local_node(ctx, MapOp::Reduce { op, dim }, vec![id], Meta { dtype, dims, dist: None })?;
            Ok(handle_of(ctx, id))
        }
        (Some(d), Some(e)) if e != d => {
            let id = local_node(ctx, MapOp::Reduce { op, dim }, vec![id], Meta { dtype, dims, dist: Some(d) })?;
            Ok(handle_of(ctx, id))
        }
        (Some(_), _) => {
            if !DISTRIBUTED_REDUCTIONS.contains(&op) {
                bail!(
                    SL_ERR_NOT_SUPPORTED,
                    "reduction {op} over the distributed dimension is not supported (SL_NANMEAN: divide an SL_NANSUM by a count of the values that are not NaN)"
                );
            }
            let p = Pending::Reduce { input: id, op, dim, order };
            let id = ctx.graph.add(Meta { dtype, dims, dist: None }, State::Pending(p));
            Ok(handle_of(ctx, id))
        }
    }
}

/// Node `id` distributed as `to` (the same node when it already is).
fn redistributed(ctx: &mut Context, id: NodeId, to: Option<usize>) -> Result<NodeId> {
    let m = ctx.graph.meta(id).clone();
    if m.dist == to {
        return Ok(id);
    }
    let result = Meta { dist: to, ..m.clone() };
    if m.dist.is_none() {
        // Each rank cuts its block out of the replicated array.
        return local_node(ctx, MapOp::Identity, vec![id], result);
    }
    Ok(ctx.graph.add(result, State::Pending(Pending::Redistribute { input: id, to })))
}

pub fn redistribute(ctx: &mut Context, h: u64, dist: i32) -> Result<u64> {
    let id = ctx.graph.lookup(h)?;
    let to = dist_arg(dist, ctx.graph.meta(id).dims.len())?;
    let id = redistributed(ctx, id, to)?;
    Ok(handle_of(ctx, id))
}

pub fn dot(ctx: &mut Context, a: u64, b: u64, order: i32) -> Result<u64> {
    let (ia, ib) = (ctx.graph.lookup(a)?, ctx.graph.lookup(b)?);
    let order = order_arg(order)?;
    let (ma, mb) = (ctx.graph.meta(ia).clone(), ctx.graph.meta(ib).clone());
    let (dtype, dims) = infer(&[&ma, &mb], |x| x[0].dot(x[1]))?;
    let result = Meta { dtype, dims, dist: None };
    let (ia, ib) = match (ma.dist, mb.dist) {
        (None, None) => {
            let id = local_node(ctx, MapOp::Dot, vec![ia, ib], result)?;
            return Ok(handle_of(ctx, id));
        }
        (Some(d), Some(e)) if d != e => bail!(
            SL_ERR_SHAPE_MISMATCH,
            "operands distributed differently: {} and {}; make them alike with sl_mpi_redistribute",
            ma.describe(),
            mb.describe()
        ),
        (Some(_), Some(_)) => (ia, ib),
        (Some(d), None) => (ia, redistributed(ctx, ib, Some(d))?),
        (None, Some(d)) => (redistributed(ctx, ia, Some(d))?, ib),
    };
    let id = ctx.graph.add(result, State::Pending(Pending::Dot { a: ia, b: ib, order }));
    Ok(handle_of(ctx, id))
}

/// Matrix products. With `a` a matrix distributed by rows (dimension 0) the product is
/// too: each rank multiplies its rows by the whole of `b` (gathered when distributed).
/// Other distributions are gathered first and the product is replicated.
pub fn matmul(ctx: &mut Context, a: u64, b: u64) -> Result<u64> {
    let (ia, ib) = (ctx.graph.lookup(a)?, ctx.graph.lookup(b)?);
    let (ma, mb) = (ctx.graph.meta(ia).clone(), ctx.graph.meta(ib).clone());
    let (dtype, dims) = infer(&[&ma, &mb], |x| x[0].matmul(x[1]))?;
    let rows = ma.dist == Some(0) && ma.dims.len() == 2;
    let ib = redistributed(ctx, ib, None)?;
    let ia = if rows { ia } else { redistributed(ctx, ia, None)? };
    let result = Meta { dtype, dims, dist: if rows { Some(0) } else { None } };
    let id = local_node(ctx, MapOp::Matmul, vec![ia, ib], result)?;
    Ok(handle_of(ctx, id))
}

/// A distributed array of each rank's part `local` (collective: the ranks check the global
/// shape, type and every part's shape together).
pub fn from_local(ctx: &mut Context, local: sl_array, dims: &[i64], dist: i32) -> Result<u64> {
    let (size, me) = (ctx.size(), ctx.rank());
    let checked = (|| -> Result<(Local, Meta)> {
        if let Some(&d) = dims.iter().find(|&&d| d < 0) {
            bail!(SL_ERR_INVALID_ARGUMENT, "global dimension {d} is negative");
        }
        let dist = dist_arg(dist, dims.len())?;
        let local = Local::adopt(local)?;
        let meta = Meta { dtype: local.dtype()?, dims: dims.to_vec(), dist };
        // Sluice's own limit on a shape (SL_MAX_ELEMENTS), on the global one.
        stand_in(&meta)?;
        let want = meta.local_dims(size, me);
        let got = local.dims()?;
        if got != want {
            let rule = match dist {
                Some(d) => {
                    let (s, c) = meta.block(size, me);
                    format!("the block of rank {me} of {size} is elements {s}..{} of dimension {d}", s + c)
                }
                None => "a replicated array's part is all of it".into(),
            };
            bail!(
                SL_ERR_SHAPE_MISMATCH,
                "this rank's part has shape {got:?}, but {} needs {want:?} here ({rule})",
                meta.describe()
            );
        }
        Ok((local, meta))
    })();
    let (work, failure) = match &checked {
        Ok((_, m)) => (format!("sl_mpi_from_local {}", m.describe()), None),
        Err(e) => ("sl_mpi_from_local (failed)".to_string(), Some(e.clone())),
    };
    ctx.agree("sl_mpi_from_local", &[work], failure)?;
    let (local, meta) = checked.expect("agreed: no failure");
    let id = ctx.graph.add(meta, State::Ready(local));
    Ok(handle_of(ctx, id))
}

/// Rank `root`'s array `global` distributed as `dist` (collective; `global` is read on
/// the root only).
pub fn scatter(ctx: &mut Context, global: sl_array, root: i32, dist: i32) -> Result<u64> {
    let (size, me) = (ctx.size(), ctx.rank());
    let checked = (|| -> Result<Option<Local>> {
        if !(0..size).contains(&root) {
            bail!(SL_ERR_INVALID_ARGUMENT, "root {root} is not a rank of the communicator (0..{size})");
        }
        if !(-1..SL_MAX_RANK as i32).contains(&dist) {
            bail!(SL_ERR_INVALID_ARGUMENT, "distribution {dist} is neither SL_MPI_REPLICATED (-1) nor a dimension");
        }
        if me != root {
            return Ok(None);
        }
        let g = Local::adopt(global)?;
        dist_arg(dist, g.dims()?.len())?;
        Ok(Some(g))
    })();
    let failure = checked.as_ref().err().cloned();
    ctx.agree("sl_mpi_scatter", &[format!("sl_mpi_scatter from {root} as {dist}")], failure)?;
    let global = checked.expect("agreed");
    // The root tells the others the type and shape.
    let mut head = [0i64; 2 + SL_MAX_RANK];
    if let Some(g) = &global {
        let dims = g.dims()?;
        head[0] = i64::from(g.dtype()?);
        head[1] = dims.len() as i64;
        head[2..2 + dims.len()].copy_from_slice(&dims);
    }
    let mut reqs = Requests::new();
    let buf = reqs.buffer(head.iter().flat_map(|v| v.to_ne_bytes()).collect());
    reqs.ibcast(&ctx.comm, buf, root)?;
    let reqs = ctx.wait(reqs, "sl_mpi_scatter", "the broadcast of the array's shape (MPI_Ibcast)")?;
    let head: Vec<i64> =
        reqs.buffers[buf].chunks_exact(8).map(|c| i64::from_ne_bytes(c.try_into().expect("8 bytes"))).collect();
    let rank = head[1] as usize;
    let meta = Meta { dtype: head[0] as sl_dtype, dims: head[2..2 + rank].to_vec(), dist: dist_arg(dist, rank)? };
    let counts = (0..size).map(|q| byte_size(meta.dtype, &meta.local_dims(size, q))).collect::<Result<Vec<_>>>()?;
    let mut reqs = Requests::new();
    let mut data = Vec::new();
    if let Some(g) = &global {
        match meta.dist {
            Some(d) => {
                for q in 0..size {
                    let (s, c) = block(meta.dims[d], size, q);
                    if c > 0 {
                        data.extend(g.rows(d, s, c)?.read()?);
                    }
                }
            }
            None => data = g.read()?,
        }
    }
    let mine = counts[me as usize];
    let recv;
    if meta.dist.is_some() {
        let send = reqs.buffer(data);
        recv = reqs.buffer(vec![0; mine]);
        reqs.iscatterv(&ctx.comm, send, &counts, recv, root)?;
    } else {
        if me != root {
            data = vec![0; mine];
        }
        recv = reqs.buffer(data);
        reqs.ibcast(&ctx.comm, recv, root)?;
    }
    let reqs = ctx.wait(reqs, "sl_mpi_scatter", "the scatter of the array (MPI_Iscatterv or MPI_Ibcast)")?;
    let local = Local::create(meta.dtype, &meta.local_dims(size, me), &reqs.buffers[recv])?;
    let id = ctx.graph.add(meta, State::Ready(local));
    Ok(handle_of(ctx, id))
}

/// The whole array on `root` (every rank with `None`); other ranks get 0.
pub fn gather(ctx: &mut Context, h: u64, root: Option<i32>) -> Result<sl_array> {
    let (size, me) = (ctx.size(), ctx.rank());
    let checked = (|| -> Result<NodeId> {
        if let Some(r) = root
            && !(0..size).contains(&r)
        {
            bail!(
                SL_ERR_INVALID_ARGUMENT,
                "root {r} is neither a rank of the communicator (0..{size}) nor SL_MPI_ALL_RANKS (-1)"
            );
        }
        ctx.graph.lookup(h)
    })();
    let work = match &checked {
        Ok(id) => format!("sl_mpi_gather of {} to {root:?}", ctx.graph.meta(*id).describe()),
        Err(_) => "sl_mpi_gather (failed)".into(),
    };
    ctx.agree("sl_mpi_gather", &[work], checked.as_ref().err().cloned())?;
    let id = checked.expect("agreed");
    materialize(ctx, &[id], "sl_mpi_gather")?;
    let meta = ctx.graph.meta(id).clone();
    let local = ctx.graph.ready(id).expect("materialized").retain()?;
    let receives = root.is_none_or(|r| r == me);
    let Some(d) = meta.dist else {
        return if receives { local.handle_for_application() } else { Ok(0) };
    };
    let counts = (0..size).map(|q| byte_size(meta.dtype, &meta.local_dims(size, q))).collect::<Result<Vec<_>>>()?;
    let mut reqs = Requests::new();
    let send = reqs.buffer(local.read()?);
    let recv = reqs.buffer(vec![0; if receives { counts.iter().sum() } else { 0 }]);
    reqs.igatherv(&ctx.comm, send, recv, &counts, root)?;
    let reqs = ctx.wait(reqs, "sl_mpi_gather", "the gather (MPI_Igatherv or MPI_Iallgatherv)")?;
    if !receives {
        return Ok(0);
    }
    let mut at = 0;
    let mut pieces = Vec::new();
    for (q, &bytes) in counts.iter().enumerate() {
        let dims = meta.local_dims(size, q as i32);
        if dims[d] > 0 {
            let seg = std::rc::Rc::new(SegNode::Recv { buf: recv, offset: at, dtype: meta.dtype, dims });
            pieces.push(crate::pieces::Piece { len: 0, seg });
        }
        at += bytes;
    }
    let whole = Resolver::default().value(&Value::Split(pieces), &meta, &meta.dims, &reqs.buffers, None)?;
    whole.handle_for_application()
}

/// The rank's part of `h` (evaluating it first: collective when it has pending work).
pub fn local(ctx: &mut Context, h: u64) -> Result<sl_array> {
    let id = ctx.graph.lookup(h)?;
    materialize(ctx, &[id], "sl_mpi_local")?;
    ctx.graph.ready(id).expect("materialized").handle_for_application()
}

pub fn eval(ctx: &mut Context, handles: &[u64]) -> Result<()> {
    let ids = handles.iter().map(|&h| ctx.graph.lookup(h)).collect::<Result<Vec<_>>>()?;
    materialize(ctx, &ids, "sl_mpi_eval")?;
    let locals: Vec<&Local> = ids.iter().map(|&i| ctx.graph.ready(i).expect("materialized")).collect();
    crate::sluice_sys::eval(&locals)
}

/// A count argument of the C API.
pub fn checked_len(n: i32, what: &str) -> Result<usize> {
    usize::try_from(n).map_err(|_| Error::new(SL_ERR_INVALID_ARGUMENT, format!("{what} {n} is negative")))
}
