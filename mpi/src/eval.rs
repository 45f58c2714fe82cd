//! Evaluation: what a read (or sl_mpi_eval) of distributed arrays does with the pending
//! nodes they need. It runs in waves; a wave is every pending communication whose inputs
//! are ready:
//! 1. plan each (read what it sends from its ready inputs: this waits for their local
//!    Sluice work, and nothing else);
//! 2. agree with the other ranks (one small MPI_Iallreduce: same work everywhere, nobody
//!    failed planning) — nothing is sent before;
//! 3. post every send, receive and collective, non-blocking;
//! 4. build the local operations that read the wave's results, piece by piece, and start
//!    the pieces that need no message, assigned into the array that becomes the result's
//!    part (`sl_eval`): the interior of a stencil computes while the halos travel;
//! 5. wait for the messages (with the timeout), then finish the pieces that needed them,
//!    assigned into the same array (in place).
//!
//! A wave's nodes then are ready; the next wave takes the communications that read them.

use std::collections::{HashMap, HashSet};

use crate::comm::{Ranks, plan};
use crate::context::Context;
use crate::dist::Meta;
use crate::error::{Error, Result, bail};
use crate::graph::{MapOp, NodeId, Pending};
use crate::pieces::{self, Operand, Resolver, Started, Value, of_local};
use crate::shim::Requests;
use crate::sluice_sys::{Local, SL_ERR_INTERNAL, eval};

/// Makes the local parts of `targets` ready, communicating as needed.
pub fn materialize(ctx: &mut Context, targets: &[NodeId], function: &str) -> Result<()> {
    loop {
        let pending = ctx.graph.pending_closure(targets);
        if pending.is_empty() {
            return Ok(());
        }
        let ready_inputs = |ctx: &Context, id: NodeId| {
            ctx.graph.pending(id).expect("pending").inputs().iter().all(|&i| ctx.graph.ready(i).is_some())
        };
        // Local operations whose inputs are ready (left by a wave that failed locally).
        let local: Vec<NodeId> = pending
            .iter()
            .copied()
            .filter(|&id| !ctx.graph.pending(id).expect("pending").communicates() && ready_inputs(ctx, id))
            .collect();
        if !local.is_empty() {
            for id in local {
                compute_local(ctx, id)?;
            }
            continue;
        }
        let wave: Vec<NodeId> = pending.iter().copied().filter(|&id| ready_inputs(ctx, id)).collect();
        if wave.is_empty() {
            bail!(SL_ERR_INTERNAL, "{function}: pending work but no communication can start (a bug in libsluice_mpi)");
        }
        run_wave(ctx, &wave, &pending, targets, function)?;
    }
}

/// Computes pending local operation `id`, whose inputs are ready.
pub fn compute_local(ctx: &mut Context, id: NodeId) -> Result<()> {
    let Some(Pending::Map { op, inputs }) = ctx.graph.pending(id) else { unreachable!("a local operation") };
    let meta = ctx.graph.meta(id).clone();
    let value = map_value(ctx, op, inputs, &meta, &HashMap::new())?;
    let local = resolve_ready(ctx, &value, &meta)?;
    ctx.graph.set_ready(id, local);
    Ok(())
}

fn ranks(ctx: &Context) -> Ranks {
    Ranks { me: ctx.rank(), size: ctx.size() }
}

/// The local part of node `id` as a value, whether ready or valued in this wave.
fn value_of(ctx: &Context, id: NodeId, values: &HashMap<NodeId, Value>) -> Result<Value> {
    if let Some(v) = values.get(&id) {
        return Ok(v.clone());
    }
    let m = ctx.graph.meta(id);
    let local = ctx.graph.ready(id).expect("inputs are ready or valued");
    of_local(local, m, m.block(ctx.size(), ctx.rank()).1)
}

/// Local operation `op` of `inputs` into a result of meta `result`, piece by piece.
pub fn map_value(
    ctx: &Context,
    op: &MapOp,
    inputs: &[NodeId],
    result: &Meta,
    values: &HashMap<NodeId, Value>,
) -> Result<Value> {
    let vals = inputs.iter().map(|&i| value_of(ctx, i, values)).collect::<Result<Vec<_>>>()?;
    let (start, len) = result.block(ctx.size(), ctx.rank());
    let mut operands = Vec::with_capacity(inputs.len());
    for (k, (&i, v)) in inputs.iter().zip(&vals).enumerate() {
        let m = ctx.graph.meta(i);
        operands.push(match (v, result.dist) {
            (Value::Split(p), Some(_)) if !op.whole(k) => Operand::Aligned(p),
            (Value::Whole(s), Some(d)) if !op.whole(k) && m.dims.len() > d && m.dims[d] == result.dims[d] => {
                Operand::Sectioned { whole: s, start, full: result.dims[d] }
            }
            (Value::Whole(s), _) => Operand::Whole(s),
            (Value::Split(_), _) => unreachable!("whole operands and replicated results have replicated inputs"),
        });
    }
    pieces::map(op, &operands, result.dist, len)
}

/// The local part of a value without received data (a local operation of ready inputs).
pub fn resolve_ready(ctx: &Context, value: &Value, meta: &Meta) -> Result<Local> {
    Resolver::default().value(value, meta, &meta.local_dims(ctx.size(), ctx.rank()), &[], None)
}

fn run_wave(ctx: &mut Context, wave: &[NodeId], pending: &[NodeId], targets: &[NodeId], function: &str) -> Result<()> {
    ctx.stats.evaluations += 1;
    let ranks = ranks(ctx);
    let mut reqs = Requests::new();
    let mut values: HashMap<NodeId, Value> = HashMap::new();
    let mut posts = Vec::with_capacity(wave.len());
    let mut work = Vec::with_capacity(wave.len());
    let mut failure: Option<Error> = None;
    for &id in wave {
        let p = ctx.graph.pending(id).expect("pending").clone();
        let meta = ctx.graph.meta(id).clone();
        let ins = p.inputs();
        let input_metas: Vec<String> = ins.iter().map(|&i| ctx.graph.meta(i).describe()).collect();
        work.push(format!("{} of {} into {}", p.describe(), input_metas.join(" and "), meta.describe()));
        if failure.is_some() {
            continue;
        }
        let inputs: Vec<(&Meta, &Local)> =
            ins.iter().map(|&i| (ctx.graph.meta(i), ctx.graph.ready(i).expect("ready"))).collect();
        match plan(&p, &meta, &inputs, ranks, &mut reqs) {
            Ok(plan) => {
                posts.push(plan.posts);
                values.insert(id, plan.value);
            }
            Err(e) => failure = Some(e),
        }
    }
    ctx.agree(function, &work, failure)?;
    let what = work.join("; ");
    for plan_posts in &posts {
        let tag = ctx.tag();
        for post in plan_posts {
            if let Err(e) = post.post(&ctx.comm, &mut reqs, tag) {
                reqs.abandon();
                ctx.broken = Some(format!("an MPI call failed while communicating ({what})"));
                return Err(e);
            }
        }
    }

    // The local operations that read this wave's results, and their pieces to start now.
    let mut local_failure = None;
    for &id in pending {
        if values.contains_key(&id) {
            continue;
        }
        let Some(Pending::Map { op, inputs }) = ctx.graph.pending(id) else { continue };
        if !inputs.iter().all(|i| values.contains_key(i) || ctx.graph.ready(*i).is_some()) {
            continue;
        }
        match map_value(ctx, op, inputs, ctx.graph.meta(id), &values) {
            Ok(v) => {
                values.insert(id, v);
            }
            Err(e) => {
                local_failure = Some(e);
                break;
            }
        }
    }
    // Start the parts of results needed after this wave (not every intermediate: those
    // fuse into them) with their pieces that need no message, in node order (the same
    // flush every time, so Sluice's trace cache replays it).
    let mut started: HashMap<NodeId, Started> = HashMap::new();
    if local_failure.is_none() && ctx.overlap {
        let later: HashSet<NodeId> = pending
            .iter()
            .filter(|id| !values.contains_key(id))
            .flat_map(|&id| ctx.graph.pending(id).expect("pending").inputs())
            .collect();
        let mut ids: Vec<NodeId> = values.keys().copied().collect();
        ids.sort_unstable();
        let begun = ids.into_iter().try_for_each(|id| {
            let node = ctx.graph.node(id);
            let is_map = matches!(ctx.graph.pending(id), Some(Pending::Map { .. }));
            if is_map && (node.handles > 0 || targets.contains(&id) || later.contains(&id)) {
                let dims = node.meta.local_dims(ranks.size, ranks.me);
                if let Some(part) = pieces::start(&values[&id], &node.meta, &dims)? {
                    started.insert(id, part);
                }
            }
            Ok(())
        });
        let mut ids: Vec<NodeId> = started.keys().copied().collect();
        ids.sort_unstable();
        let outs: Vec<&Local> = ids.iter().map(|id| &started[id].out).collect();
        ctx.stats.overlapped += outs.len() as u64;
        if let Err(e) = begun.and_then(|()| eval(&outs)) {
            local_failure = Some(e);
        }
    }
    let reqs = ctx.wait(reqs, function, &what)?;
    // Every rank communicated: make ready what can be, even if a local operation failed
    // (it stays pending, and is computed locally at the next evaluation).
    let mut resolver = Resolver::default();
    let mut ids: Vec<NodeId> = values.keys().copied().collect();
    ids.sort_unstable();
    for id in ids {
        let meta = ctx.graph.meta(id).clone();
        let dims = meta.local_dims(ranks.size, ranks.me);
        match resolver.value(&values[&id], &meta, &dims, &reqs.buffers, started.remove(&id)) {
            Ok(local) => ctx.graph.set_ready(id, local),
            Err(e) => {
                local_failure.get_or_insert(e);
            }
        }
    }
    local_failure.map_or(Ok(()), Err)
}
