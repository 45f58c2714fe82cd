//! Running the steps of a program sequence in as few submissions as possible: consecutive
//! device steps are recorded into one submission (their uploads first, then their
//! dispatches, with barriers only where one depends on another), submitted once and
//! waited for once. A step that runs on the CPU ends the batch before it runs (it may read
//! what the batch computes), and so does a batch that runs out of descriptors or of
//! device memory (once submitted, its arrays may be moved to host memory to make room).
//! Under result comparison, a step whose outputs are checked ends the batch after itself,
//! so that steps reading an output that failed its check see the failure.
//!
//! What becomes of each step is reported in step order once its submission has run: a
//! step whose inputs failed, or whose own recording failed, fails alone (only in the
//! outputs that depend on the failure: `exec::run_step`), and later steps of the batch
//! reading its failed outputs fail with its error; a submission that fails fails every
//! step recorded into it.
//!
//! A step whose launch has a status check (a factorization that can fail, `factor.rs`)
//! ends the batch after itself too: once the submission has run, a failed check fails
//! the step, and later steps then read the failure.
//!
//! While profiling, each device step's commands end with a timestamp (`Commands::mark_step`),
//! and its device time is handed to the profile just before the step is reported.

use std::collections::HashMap;
use std::sync::Arc;

use ash::vk;
use parking_lot::MutexGuard;

use super::factor::FactorCheck;
use super::memory::{PoolBuffer, Use};
use super::programs::Pipeline;
use super::residency::{self, Prepared};
use super::submit::{Binding, Commands};
use super::{Launch, Plan, VulkanExecutor};
use crate::exec::{Step, StepOutcome, StepValues, execute_into, run_step};
use crate::ir::{Error, ErrorKind, Promise, Result, Value};

/// Identifies an output's promise while the batch holds it.
fn promise_key(p: &Arc<Promise>) -> usize {
    Arc::as_ptr(p) as usize
}

/// What recorded commands use, kept until they have run.
#[derive(Default)]
struct Held {
    buffers: Vec<PoolBuffer>,
    values: Vec<Value>,
    /// Inputs with uploads, whose buffers the arrays keep once the uploads have run.
    inputs: Vec<Prepared>,
    /// Outputs copied back for a waiting read, with the host-visible copies.
    read_backs: Vec<(Value, PoolBuffer)>,
    /// Pipelines the dispatches bind: the cache may evict them meanwhile.
    pipelines: Vec<Arc<Pipeline>>,
}

pub struct Batch<'a> {
    exec: &'a VulkanExecutor,
    steps: &'a [Step],
    done: &'a mut dyn FnMut(usize, StepOutcome),
    cmds: MutexGuard<'a, Commands>,
    held: Held,
    /// Steps settled since the last report, in order, with their outputs (good once the
    /// submission has run) or their error, their timestamp mark and their status check.
    settled: Vec<(usize, StepOutcome, Option<u32>, Option<Checked>)>,
    /// The timestamp mark of the step recorded last.
    mark: Option<u32>,
    /// The status check of the step recorded last, if its launch has one.
    check: Option<Checked>,
    /// Outputs of settled steps by promise, for later steps reading them.
    outputs: HashMap<usize, std::result::Result<Value, Arc<Error>>>,
    /// Buffers this batch uploads arrays into, by storage key.
    staged: HashMap<usize, (vk::Buffer, u64)>,
    /// Storage keys of the arrays the recorded commands use (never moved to make room).
    pinned: Vec<usize>,
}

/// A launch's status check with the host-visible copy of its status words.
type Checked = (FactorCheck, PoolBuffer);

/// The error a check's status words hold, if any.
fn checked_error((check, stage): &Checked) -> Option<Error> {
    check.error(&stage.mapped_bytes()[..check.bytes])
}

impl<'a> Batch<'a> {
    pub fn new(exec: &'a VulkanExecutor, steps: &'a [Step], done: &'a mut dyn FnMut(usize, StepOutcome)) -> Self {
        Batch {
            exec,
            steps,
            done,
            cmds: exec.batch.lock(),
            held: Held::default(),
            settled: Vec::new(),
            mark: None,
            check: None,
            outputs: HashMap::new(),
            staged: HashMap::new(),
            pinned: Vec::new(),
        }
    }

    /// Runs every step and reports each.
    pub fn run_all(mut self) {
        let steps = self.steps;
        for (i, step) in steps.iter().enumerate() {
            let inputs = step.input_values(|p| self.outputs.get(&promise_key(p)).cloned());
            let outcome = run_step(self.exec, step, inputs, |step, inputs, values| self.run_step(step, inputs, values));
            self.settle(i, outcome);
            // A checked step (result comparison or a status check) is submitted and
            // reported before later steps read its outputs: a failed check must reach
            // them as a failure.
            let status_checked = self.settled.last().is_some_and(|s| s.3.is_some());
            if self.exec.submit_per_step || status_checked || step.outputs.iter().any(|o| o.check.is_some()) {
                let _ = self.report();
            }
        }
        let _ = self.report();
    }

    fn run_step(
        &mut self,
        step: &Step,
        inputs: &[Value],
        values: &mut StepValues,
    ) -> std::result::Result<(), Arc<Error>> {
        let exec = self.exec;
        execute_into(exec, &step.work, step.output_types(), step.site, values, step.reusable(inputs), |outputs| {
            match exec.plan(&step.work, inputs, &step.params, outputs)? {
                Plan::Cpu(work) => {
                    let _ = self.report();
                    exec.run_on_cpu(&work, inputs, &step.params, outputs)
                }
                Plan::Device(launch) => {
                    let read_back: Vec<bool> = step.outputs.iter().map(|o| o.read_back && exec.read_back).collect();
                    self.record(&launch, inputs, outputs, &read_back)
                }
            }
        })
    }

    fn settle(&mut self, i: usize, outcome: StepOutcome) {
        for (out, result) in self.steps[i].outputs.iter().zip(&outcome) {
            self.outputs.insert(promise_key(&out.promise), result.clone());
        }
        self.settled.push((i, outcome, self.mark.take(), self.check.take()));
    }

    /// Runs one device step on its own (no steps to report), giving the profile its
    /// device time.
    pub fn run_alone(mut self, launch: &Launch, inputs: &[Value], outputs: &[Value]) -> Result<()> {
        self.record(launch, inputs, outputs, &[])?;
        let check = self.check.take();
        self.report()?;
        crate::profile::set_device_time(self.mark.and_then(|m| self.cmds.step_time(m)));
        check.as_ref().and_then(checked_error).map_or(Ok(()), Err)
    }

    /// Records `launch`, then copies of the outputs flagged in `read_back` into host-visible
    /// buffers; when device memory is short and the batch holds arrays, submits the batch
    /// first so they can be moved.
    pub fn record(&mut self, launch: &Launch, inputs: &[Value], outputs: &[Value], read_back: &[bool]) -> Result<()> {
        match self.try_record(launch, inputs, outputs, read_back) {
            Err(e) if e.kind == ErrorKind::OutOfMemory && !self.pinned.is_empty() => {
                let _ = self.report();
                self.try_record(launch, inputs, outputs, read_back)
            }
            r => r,
        }
    }

    fn try_record(&mut self, launch: &Launch, inputs: &[Value], outputs: &[Value], read_back: &[bool]) -> Result<()> {
        let exec = self.exec;
        // Everything is allocated (and room made) before anything is recorded.
        let mut meta = exec.mem.buffer(launch.words.len() * 4, Use::Upload)?;
        for (dst, w) in meta.mapped().chunks_exact_mut(4).zip(&launch.words) {
            dst.copy_from_slice(&w.to_le_bytes());
        }
        let scratch = launch.scratch.map(|bytes| exec.mem.buffer(bytes, Use::Array)).transpose()?;
        let status = match (&launch.check, &scratch) {
            (Some(check), Some(s)) => Some((check.clone(), s.handle(), exec.mem.buffer(check.bytes, Use::Download)?)),
            _ => None,
        };
        let keys: Vec<usize> = inputs.iter().chain(outputs).map(|v| residency::key(&v.storage)).collect();
        let pinned: Vec<usize> = self.pinned.iter().chain(&keys).copied().collect();
        let outs = outputs.iter().map(|v| exec.arrays.output(v, &pinned, &exec.queue)).collect::<Result<Vec<_>>>()?;
        let ins = inputs
            .iter()
            .zip(&keys)
            .map(|(v, k)| match self.staged.get(k) {
                Some(&(buffer, size)) => Ok(Prepared::bound(buffer, size)),
                None => exec.arrays.prepare_input(v, &pinned, &exec.queue),
            })
            .collect::<Result<Vec<_>>>()?;
        let packs =
            launch.packs.iter().map(|p| exec.mem.buffer(p.bytes as usize, Use::Array)).collect::<Result<Vec<_>>>()?;
        let copies_back = outs
            .iter()
            .zip(outputs)
            .zip(read_back)
            .filter(|&((_, v), &wanted)| wanted && v.storage.byte_len() > 0)
            .map(|((&(buffer, _), v), _)| {
                let bytes = v.storage.byte_len();
                Ok((buffer, bytes, v.clone(), exec.mem.buffer(bytes, Use::Download)?))
            })
            .collect::<Result<Vec<_>>>()?;
        let descriptors = launch.ranges.iter().sum();
        if !self.cmds.has_room(launch.dispatches.len() as u32, descriptors) {
            self.report()?;
        }
        let in_buffers: Vec<(vk::Buffer, u64)> = ins.iter().map(|p| (p.buffer, p.size)).collect();
        let mut bound = vec![(meta.handle(), meta.size(), false)];
        if packs.is_empty() {
            bound.extend(in_buffers.iter().map(|&(buffer, size)| (buffer, size, false)));
        } else {
            bound.extend(packs.iter().map(|p| (p.handle(), p.size(), false)));
        }
        let scratch_bound = scratch.as_ref().map(|s| (s.handle(), s.size(), true));
        let outs_bound = outs.into_iter().map(|(buffer, size)| (buffer, size, true));
        if launch.scratch_first {
            bound.extend(scratch_bound.into_iter().chain(outs_bound));
        } else {
            bound.extend(outs_bound.chain(scratch_bound));
        }
        let bindings: Vec<Binding> = bound
            .into_iter()
            .zip(&launch.ranges)
            .map(|((buffer, size, writes), &ranges)| Binding { buffer, size, ranges, writes })
            .collect();
        let pack_copies: Vec<_> = launch
            .packs
            .iter()
            .zip(&packs)
            .flat_map(|(p, buf)| p.members.iter().map(|&(i, at, bytes)| (in_buffers[i].0, 0, buf.handle(), at, bytes)))
            .collect();
        // Kept before recording: a failed command leaves earlier ones recorded.
        for (p, k) in ins.iter().zip(&keys) {
            if p.upload.is_some() {
                self.staged.insert(*k, (p.buffer, p.size));
            }
        }
        let uploads: Vec<_> = ins
            .iter()
            .filter_map(|p| p.upload.as_ref().map(|(stage, bytes)| (stage.handle(), p.buffer, *bytes)))
            .collect();
        self.held.buffers.push(meta);
        self.held.buffers.extend(scratch);
        self.held.buffers.extend(packs);
        self.held.values.extend(inputs.iter().chain(outputs).cloned());
        self.held.inputs.extend(ins);
        self.pinned.extend(keys);
        for (stage, dst, bytes) in uploads {
            self.cmds.upload(stage, dst, bytes)?;
        }
        if !pack_copies.is_empty() {
            self.cmds.copy_between(&pack_copies)?;
        }
        for (pipeline, groups) in &launch.dispatches {
            self.held.pipelines.push(pipeline.clone());
            self.cmds.dispatch(pipeline, &bindings, *groups)?;
        }
        for (buffer, bytes, v, stage) in copies_back {
            self.cmds.read_back(buffer, stage.handle(), bytes as u64)?;
            self.held.read_backs.push((v, stage));
        }
        if let Some((check, scratch, stage)) = status {
            self.cmds.read_back(scratch, stage.handle(), check.bytes as u64)?;
            self.check = Some((check, stage));
        }
        self.mark = self.cmds.mark_step();
        Ok(())
    }

    /// Submits what was recorded, waits for it, and reports the settled steps. Returns
    /// the submission's result.
    pub fn report(&mut self) -> Result<()> {
        let submitted = self.cmds.submit();
        let held = std::mem::take(&mut self.held);
        if submitted.is_ok() {
            self.exec.arrays.installed(held.inputs);
            self.exec.arrays.read_back(held.read_backs);
        }
        self.staged.clear();
        self.pinned.clear();
        self.outputs.clear();
        for (i, mut outcome, mark, check) in std::mem::take(&mut self.settled) {
            let failed = match &submitted {
                Err(e) => Some(e.clone()),
                Ok(()) => check.as_ref().and_then(checked_error),
            };
            if let Some(e) = failed
                && outcome.iter().any(|o| o.is_ok())
            {
                let e = Arc::new(e.with_origin(self.steps[i].site));
                for o in outcome.iter_mut().filter(|o| o.is_ok()) {
                    *o = Err(e.clone());
                }
            }
            crate::profile::set_device_time(mark.and_then(|m| self.cmds.step_time(m)));
            (self.done)(i, outcome);
        }
        submitted
    }
}
