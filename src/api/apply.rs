//! Applying a function to the elements or blocks of arrays in one call. The function is
//! a callback recorded once, like a macro section, on placeholders shaped like one piece
//! (front/apply.rs cuts the inputs, sched/apply.rs batches the recording over all
//! pieces); the recording is cached under the function, the inputs' types and shapes,
//! the options and the controls, so the same call again runs the cached program.

use std::ffi::{CString, c_void};
use std::sync::Arc;

use super::error::{boundary, failure_of};
use super::macros::{close_scope, draws, slice_mut};
use super::types::*;
use super::{boundary as parse_boundary, graph, nodes, out_slot, put, runtime, slice};
use crate::front::Graph;
use crate::front::apply::{BlockOptions, Output, Pieces, Recording};
use crate::front::runtime::Runtime;
use crate::front::scope;
use crate::ir::{CallSite, Error, MAX_RANK, Node, Result, Shape, bail};

/// The function type of `sl_apply_fn`, known not to be NULL.
type ApplyFn = unsafe extern "C" fn(*const sl_array, i32, *mut sl_array, i32, *mut c_void) -> sl_status;
use crate::sched::MacroStart;

/// Calls `f(x)` once per element of the inputs' aggregate size (inputs of size 1 along a
/// dimension are repeated along it, as element-wise ops do) and gives each of the
/// `n_out` outputs the aggregate size. `f` is called once per recording with rank-0
/// placeholders (`sl_apply_fn`) and must give one value per output; it runs as one
/// fused kernel, as the same calls on whole arrays would. The recording is cached under
/// `f`, the inputs' types and shapes, and `controls` (as `sl_macro_begin`'s): the same
/// call again does not call `f`. Inside a macro section being recorded it is part of
/// that recording.
#[unsafe(no_mangle)]
pub extern "C" fn sl_apply_elements(
    f: sl_apply_fn,
    user: *mut c_void,
    inputs: *const sl_array,
    n_in: i32,
    controls: *const f64,
    n_ctrl: i32,
    outputs: *mut sl_array,
    n_out: i32,
) -> sl_status {
    boundary!("sl_apply_elements", |site| {
        let outs = slice_mut(outputs, n_out)?;
        outs.fill(0);
        let rt = runtime()?;
        let ins = nodes(&rt, inputs, n_in)?;
        let ctrl = slice(controls, n_ctrl, "controls")?;
        let pieces = Pieces::elements(&ins)?;
        apply(&rt, site, "sl_apply_elements", (f, user), &ins, &pieces, ctrl, outs)
    })
}

/// Fills `options` with the defaults: `SL_DIM_AUTO`, blocks of 1, no overlap, padding
/// with 0, every output `SL_OUTPUT_AGGREGATE`, no controls.
#[unsafe(no_mangle)]
pub extern "C" fn sl_block_options_default(options: *mut sl_block_options) -> sl_status {
    boundary!("sl_block_options_default", |_site| {
        super::write_out(
            options,
            "options",
            sl_block_options {
                dim: SL_DIM_AUTO,
                block_size: 1,
                overlap_before: 0,
                overlap_after: 0,
                boundary: SL_BOUNDARY_FILL,
                pad: 0.0,
                outputs: std::ptr::null(),
                n_outputs: 0,
                controls: std::ptr::null(),
                n_controls: 0,
            },
        )
    })
}

/// Calls `f` on blocks of the inputs along one dimension (`options`, NULL for the
/// defaults; see `sl_block_options`) and puts its `n_out` results together as the
/// output descriptors say. An input of size 1 along the slicing dimension is passed whole
/// to every block; the inputs' sizes along every dimension must be equal or 1 (their
/// aggregate size is the largest along each). `f` is called once per recording with
/// placeholders shaped like one block of each input (with its overlaps: `block_size +
/// overlap_before + overlap_after` along the slicing dimension; `sl_apply_block_length`
/// tells how many of the block's own elements lie inside the array); every block runs as
/// one batched program (a sum, product, mean, minimum or maximum over at most 32 of a
/// block's elements, as in a moving window, becomes element-wise arithmetic on the terms,
/// in the block's own type: f32 sums are not carried in f64 there). Options and
/// descriptors are checked first (`SL_ERR_INVALID_ARGUMENT` naming the option); a result
/// a descriptor cannot hold is refused before anything runs (`SL_ERR_SHAPE_MISMATCH`
/// naming the output). Cached as `sl_apply_elements` is, also under the options.
#[unsafe(no_mangle)]
pub extern "C" fn sl_apply_blocks(
    f: sl_apply_fn,
    user: *mut c_void,
    inputs: *const sl_array,
    n_in: i32,
    options: *const sl_block_options,
    outputs: *mut sl_array,
    n_out: i32,
) -> sl_status {
    boundary!("sl_apply_blocks", |site| {
        const WHAT: &str = "sl_apply_blocks";
        let outs = slice_mut(outputs, n_out)?;
        outs.fill(0);
        let rt = runtime()?;
        let ins = nodes(&rt, inputs, n_in)?;
        let mut defaults = std::mem::MaybeUninit::uninit();
        // SAFETY: the caller passes NULL or a pointer to an options struct.
        let o = match unsafe { options.as_ref() } {
            Some(o) => *o,
            None => {
                sl_block_options_default(defaults.as_mut_ptr());
                // SAFETY: just filled.
                unsafe { defaults.assume_init() }
            }
        };
        let (opts, descriptors, ctrl) = block_options(&o, outs.len())?;
        let pieces = Pieces::blocks(&ins, &opts, descriptors)?;
        apply(&rt, site, WHAT, (f, user), &ins, &pieces, ctrl, outs)
    })
}

/// Inside a function `sl_apply_blocks` is recording: how many of the block's own
/// elements (at most `block_size`, fewer for a last block that reaches past the array)
/// lie inside the array, as a rank-0 i64 array that differs from block to block.
#[unsafe(no_mangle)]
pub extern "C" fn sl_apply_block_length(out: *mut sl_array) -> sl_status {
    boundary!("sl_apply_block_length", |site| {
        let out = out_slot(out)?;
        let rt = runtime()?;
        let n = graph(&rt, site).block_length()?;
        put(&rt, out, n)
    })
}

/// The checked options of `o` for `n_out` outputs: the cut, the descriptors and the
/// controls.
fn block_options(o: &sl_block_options, n_out: usize) -> Result<(BlockOptions, Vec<Output>, &[f64])> {
    let dim = match o.dim {
        SL_DIM_AUTO => None,
        d if (0..MAX_RANK as i32).contains(&d) => Some(d as usize),
        d => bail!(InvalidArgument, "dim {d} is neither a dimension (0..{MAX_RANK}) nor SL_DIM_AUTO"),
    };
    for (name, v) in
        [("block_size", o.block_size), ("overlap_before", o.overlap_before), ("overlap_after", o.overlap_after)]
    {
        if v < 0 {
            bail!(InvalidArgument, "{name} is {v}; it cannot be negative");
        }
    }
    let boundary =
        parse_boundary(o.boundary).map_err(|e| Error { message: format!("boundary: {}", e.message), ..e })?;
    let opts = BlockOptions {
        dim,
        size: o.block_size as u64,
        before: o.overlap_before as u64,
        after: o.overlap_after as u64,
        boundary,
        pad: o.pad,
    };
    let given = slice(o.outputs, o.n_outputs, "options.outputs")?;
    if !given.is_empty() && given.len() != n_out {
        bail!(InvalidArgument, "{} output descriptors for {n_out} outputs", given.len());
    }
    let mut descriptors = vec![Output::Aggregate; n_out];
    for (k, (d, out)) in given.iter().zip(descriptors.iter_mut()).enumerate() {
        *out = match d.kind {
            SL_OUTPUT_AGGREGATE => Output::Aggregate,
            SL_OUTPUT_SLICE => Output::Slice,
            SL_OUTPUT_SCALAR => Output::Scalar,
            SL_OUTPUT_SIZE => {
                if !(0..=MAX_RANK as i32).contains(&d.rank) {
                    bail!(InvalidArgument, "output {k}: rank {} is outside 0..={MAX_RANK}", d.rank);
                }
                let dims = &d.dims[..d.rank as usize];
                if let Some(x) = dims.iter().find(|&&x| x < 0) {
                    bail!(InvalidArgument, "output {k}: size {dims:?} has a negative dimension {x}");
                }
                let dims: Vec<u64> = dims.iter().map(|&x| x as u64).collect();
                Output::Size(Shape::sized(format_args!("output {k}"), &dims)?)
            }
            kind => bail!(InvalidArgument, "output {k}: {kind} is not an sl_block_output_kind"),
        };
    }
    let controls = slice(o.controls, o.n_controls, "options.controls")?;
    Ok((opts, descriptors, controls))
}

/// Runs (or replays) `f` over the pieces of `ins`, storing the outputs in `outs`.
#[allow(clippy::too_many_arguments)]
fn apply(
    rt: &Arc<Runtime>,
    site: CallSite,
    what: &'static str,
    (f, user): (sl_apply_fn, *mut c_void),
    ins: &[Arc<Node>],
    pieces: &Pieces,
    controls: &[f64],
    outs: &mut [sl_array],
) -> Result<()> {
    let Some(f) = f else { bail!(InvalidArgument, "the function is NULL") };
    if outs.is_empty() {
        bail!(InvalidArgument, "the function must give at least one output");
    }
    // The key: the function, the inputs (types, shapes, layouts), the options, the controls.
    let name = CString::new(format!("{what} {:p}", f as *const ())).expect("no NUL");
    let mut key = pieces.controls();
    key.extend_from_slice(controls);
    let reserve = draws(rt);
    let results = match rt.sched.macro_begin(&name, ins, &key, outs.len(), site, &reserve)? {
        MacroStart::Replay(results) => results.into_vec(),
        MacroStart::Record => {
            scope::begin_section();
            let g = graph(rt, site);
            let recorded = record(rt, &g, what, f, user, ins, pieces, outs.len());
            // The function's arrays (and the placeholders) go with the section's scope.
            let closed = close_scope(rt, &[]);
            let batched = recorded.and_then(|(rec, made)| match closed {
                Ok(0) => g.finish_apply(what, pieces, ins, rec, &made),
                Ok(unended) => {
                    g.cancel_apply();
                    bail!(InvalidState, "the function began {unended} scope(s) it did not end (sl_scope_end)")
                }
                Err(e) => {
                    g.cancel_apply();
                    Err(e)
                }
            });
            let (results, done) = match batched {
                Ok(done) => done,
                Err(e) => {
                    let _ = rt.sched.macro_cancel();
                    return Err(e);
                }
            };
            rt.sched.note_looped(done.looped);
            crate::profile::applied(site, pieces.count(), done.looped, &done.looped_ops);
            rt.sched.macro_end(&results)?;
            results
        }
    };
    for (slot, n) in outs.iter_mut().zip(results) {
        put(rt, slot, n)?;
    }
    Ok(())
}

/// Calls `f` on placeholders of the pieces of `ins`, returning them and the function's
/// `n_out` outputs. The apply's recording is begun (and, on failure, cancelled) here.
#[allow(clippy::too_many_arguments)]
fn record(
    rt: &Runtime,
    g: &Graph,
    what: &str,
    f: ApplyFn,
    user: *mut c_void,
    ins: &[Arc<Node>],
    pieces: &Pieces,
    n_out: usize,
) -> Result<(Recording, Vec<Arc<Node>>)> {
    let rec = g.begin_apply(what, pieces, ins)?;
    let result = (|| {
        let mut handles = vec![0; rec.pieces.len()];
        for (h, p) in handles.iter_mut().zip(&rec.pieces) {
            put(rt, h, p.clone())?;
        }
        let mut made = vec![0; n_out];
        // SAFETY: the application's function, called as `sl_apply_fn` documents.
        let status = unsafe { f(handles.as_ptr(), handles.len() as i32, made.as_mut_ptr(), n_out as i32, user) };
        if status != SL_OK {
            return Err(failure_of(status, "the function failed"));
        }
        let output = |(k, &h): (usize, &sl_array)| {
            rt.handles.get(h).map_err(|e| Error { message: format!("output {k} of the function: {}", e.message), ..e })
        };
        made.iter().enumerate().map(output).collect::<Result<Vec<_>>>()
    })();
    match result {
        Ok(made) => Ok((rec, made)),
        Err(e) => {
            g.cancel_apply();
            Err(e)
        }
    }
}
