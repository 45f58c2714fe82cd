//! Recording and submitting commands. One submission is one command buffer: a barrier
//! that makes every earlier submission's writes visible, then each step's staging copies
//! (uploads) and dispatches in order. A barrier is recorded only where a dispatch reads a
//! buffer an upload or an earlier dispatch of the same submission wrote (or writes one a
//! dispatch read), and it names just those buffers, so a step's uploads and independent
//! dispatches may overlap earlier dispatches on devices that run them concurrently. The
//! submission signals a fence, which is waited for.
//!
//! While profiling, the compute buffer also writes timestamps: one after its opening
//! barrier and one at each `mark_step`, so a step's device time is the difference from
//! the mark before it (with dispatches overlapping, the time its commands added).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use ash::vk;

use super::device::{Context, check, checked};
use super::programs::Pipeline;
use crate::ir::Result;

/// Descriptor sets and descriptors one submission may use; a batch that would need more
/// is submitted and a new one begun.
const SETS_PER_SUBMIT: u32 = 256;
pub(super) const DESCRIPTORS_PER_SUBMIT: u32 = 8192;
/// Timestamps one submission may write: the opening one and one per step.
const STAMPS_PER_SUBMIT: u32 = SETS_PER_SUBMIT + 1;

/// A buffer bound to a shader: as `ranges` consecutive ranges of the device's chunk size
/// (the last shorter) when it exceeds one storage-buffer range.
pub struct Binding {
    pub buffer: vk::Buffer,
    pub size: u64,
    pub ranges: u32,
    /// Whether the shader may write it.
    pub writes: bool,
}

/// How commands recorded since the last barrier on a buffer used it.
#[derive(Default, Clone, Copy)]
struct Access {
    /// Read by a dispatch.
    read: bool,
    /// Written by a dispatch.
    written: bool,
    /// Written by an upload.
    uploaded: bool,
}

/// A command buffer, its fence and descriptor pool, reused submission after submission.
pub struct Commands {
    ctx: Arc<Context>,
    pool: vk::CommandPool,
    compute: vk::CommandBuffer,
    fence: vk::Fence,
    descriptors: vk::DescriptorPool,
    /// Whether a submission is being recorded.
    open: bool,
    sets_free: u32,
    descriptors_free: u32,
    /// Commands recorded since the last barrier covering each buffer.
    accesses: HashMap<vk::Buffer, Access>,
    stamps: Stamps,
}

/// The timestamps of profiling (see the module comment).
#[derive(Default)]
struct Stamps {
    /// Created when profiling first needs it.
    pool: Option<vk::QueryPool>,
    /// Written in the submission being recorded (0: it writes none).
    written: u32,
    /// The last submission's timestamps in nanoseconds, and when its fence was seen.
    read: Vec<u64>,
    finished: Option<Instant>,
}

/// The commands of one-off transfers (reads, moving arrays to host memory).
pub type Submitter = Commands;

impl Commands {
    pub fn new(ctx: Arc<Context>) -> Result<Commands> {
        let d = &ctx.device;
        let info = vk::CommandPoolCreateInfo::default()
            .queue_family_index(ctx.queue_family)
            .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
        // SAFETY: valid create infos on a live device; objects are destroyed in `drop`.
        let pool = checked("creating a command pool", unsafe { d.create_command_pool(&info, None) })?;
        let alloc = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        let cmds = checked("allocating command buffers", unsafe { d.allocate_command_buffers(&alloc) })?;
        let fence = checked("creating a fence", unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) })?;
        let sizes = [vk::DescriptorPoolSize::default()
            .ty(vk::DescriptorType::STORAGE_BUFFER)
            .descriptor_count(DESCRIPTORS_PER_SUBMIT)];
        let info = vk::DescriptorPoolCreateInfo::default().max_sets(SETS_PER_SUBMIT).pool_sizes(&sizes);
        let descriptors = checked("creating a descriptor pool", unsafe { d.create_descriptor_pool(&info, None) })?;
        Ok(Commands {
            ctx,
            pool,
            compute: cmds[0],
            fence,
            descriptors,
            open: false,
            sets_free: 0,
            descriptors_free: 0,
            accesses: HashMap::new(),
            stamps: Stamps::default(),
        })
    }

    fn begin(&mut self) -> Result<()> {
        if self.open {
            return Ok(());
        }
        let d = &self.ctx.device;
        // SAFETY: the command buffer and descriptor sets are idle: every submission is
        // waited for before the next is recorded.
        unsafe {
            check("resetting descriptors", d.reset_descriptor_pool(self.descriptors, Default::default()))?;
            let begin = vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            check("resetting a command buffer", d.reset_command_buffer(self.compute, Default::default()))?;
            check("beginning a command buffer", d.begin_command_buffer(self.compute, &begin))?;
        }
        self.open = true;
        self.sets_free = SETS_PER_SUBMIT;
        self.descriptors_free = DESCRIPTORS_PER_SUBMIT;
        self.accesses.clear();
        // Earlier submissions' writes are visible to what follows.
        self.global_barrier(self.compute);
        self.stamps.written = 0;
        if crate::profile::enabled() && self.ctx.caps.timestamps.is_some() {
            let pool = self.stamp_pool()?;
            // SAFETY: the pool is idle (every submission is waited for) and large enough.
            unsafe { self.ctx.device.cmd_reset_query_pool(self.compute, pool, 0, STAMPS_PER_SUBMIT) };
            self.write_stamp(pool);
        }
        Ok(())
    }

    fn stamp_pool(&mut self) -> Result<vk::QueryPool> {
        if let Some(pool) = self.stamps.pool {
            return Ok(pool);
        }
        let info =
            vk::QueryPoolCreateInfo::default().query_type(vk::QueryType::TIMESTAMP).query_count(STAMPS_PER_SUBMIT);
        // SAFETY: a valid create info on a live device; the pool is destroyed in `drop`.
        let pool = checked("creating a query pool", unsafe { self.ctx.device.create_query_pool(&info, None) })?;
        Ok(*self.stamps.pool.insert(pool))
    }

    fn write_stamp(&mut self, pool: vk::QueryPool) -> u32 {
        let at = self.stamps.written;
        // SAFETY: recording into a command buffer in the recording state; `at` was reset.
        unsafe { self.ctx.device.cmd_write_timestamp(self.compute, vk::PipelineStageFlags::BOTTOM_OF_PIPE, pool, at) };
        self.stamps.written += 1;
        at
    }

    /// Ends a step's commands: while profiling, writes a timestamp once they complete and
    /// returns its index for `step_time`.
    pub fn mark_step(&mut self) -> Option<u32> {
        let pool = self.stamps.pool.filter(|_| self.open && self.stamps.written > 0)?;
        Some(self.write_stamp(pool))
    }

    /// The device time of the step marked `mark` in the last submission, and when it
    /// ended on the host's clock (the fence's time, less the device time after it).
    pub fn step_time(&self, mark: u32) -> Option<crate::profile::DeviceTime> {
        let s = &self.stamps;
        let (at, before, last) =
            (s.read.get(mark as usize)?, s.read.get(mark.checked_sub(1)? as usize)?, s.read.last()?);
        let after = std::time::Duration::from_nanos(last.saturating_sub(*at));
        Some(crate::profile::DeviceTime { ns: at.saturating_sub(*before), end: s.finished? - after })
    }

    /// Reads the timestamps of the submission that just ran.
    fn read_stamps(&mut self) -> Result<()> {
        self.stamps.read.clear();
        let (Some(pool), Some((period, mask))) = (self.stamps.pool, self.ctx.caps.timestamps) else {
            return Ok(());
        };
        if self.stamps.written < 2 {
            return Ok(());
        }
        let mut ticks = vec![0u64; self.stamps.written as usize];
        let flags = vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT;
        // SAFETY: the queries were written by the submission, which has completed.
        check("reading timestamps", unsafe { self.ctx.device.get_query_pool_results(pool, 0, &mut ticks, flags) })?;
        self.stamps.read.extend(ticks.iter().map(|t| ((t & mask) as f64 * period) as u64));
        self.stamps.finished = Some(Instant::now());
        Ok(())
    }

    fn global_barrier(&self, cmd: vk::CommandBuffer) {
        let mb = [vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::MEMORY_WRITE)
            .dst_access_mask(vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE)];
        // SAFETY: recording into a command buffer in the recording state.
        unsafe {
            self.ctx.device.cmd_pipeline_barrier(
                cmd,
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::DependencyFlags::empty(),
                &mb,
                &[],
                &[],
            )
        };
    }

    /// Records a staging copy into `dst`, which no command of this submission has used
    /// yet; only the dispatches that read `dst` wait for it.
    pub fn upload(&mut self, src: vk::Buffer, dst: vk::Buffer, bytes: u64) -> Result<()> {
        self.begin()?;
        debug_assert!(!self.accesses.contains_key(&dst), "an upload into a buffer this submission uses");
        self.copy_in(src, dst, bytes);
        self.accesses.entry(dst).or_default().uploaded = true;
        Ok(())
    }

    /// Records a copy of `src`, an array the dispatches recorded so far may have written,
    /// into `dst` (host-visible). It waits only for those dispatches, and nothing recorded
    /// later waits for it, as nothing rewrites an array once written.
    pub fn read_back(&mut self, src: vk::Buffer, dst: vk::Buffer, bytes: u64) -> Result<()> {
        self.begin()?;
        let barrier = [vk::BufferMemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::SHADER_WRITE)
            .dst_access_mask(vk::AccessFlags::TRANSFER_READ)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .buffer(src)
            .offset(0)
            .size(vk::WHOLE_SIZE)];
        // SAFETY: recording into a command buffer in the recording state.
        unsafe {
            self.ctx.device.cmd_pipeline_barrier(
                self.compute,
                vk::PipelineStageFlags::COMPUTE_SHADER,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &barrier,
                &[],
            )
        };
        self.copy_in(src, dst, bytes);
        Ok(())
    }

    /// Records a copy after everything recorded so far (for one-off transfers).
    pub fn copy(&mut self, src: vk::Buffer, dst: vk::Buffer, bytes: u64) -> Result<()> {
        self.begin()?;
        self.copy_in(src, dst, bytes);
        Ok(())
    }

    fn copy_in(&self, src: vk::Buffer, dst: vk::Buffer, bytes: u64) {
        if bytes == 0 {
            return;
        }
        let region = [vk::BufferCopy::default().size(bytes)];
        // SAFETY: both buffers are at least `bytes` long and outlive the submission.
        unsafe { self.ctx.device.cmd_copy_buffer(self.compute, src, dst, &region) };
    }

    /// Records copies `(src, src offset, dst, dst offset, bytes)` ordered after everything
    /// recorded so far and before everything recorded later.
    pub fn copy_between(&mut self, copies: &[(vk::Buffer, u64, vk::Buffer, u64, u64)]) -> Result<()> {
        self.begin()?;
        self.global_barrier(self.compute);
        for &(src, src_offset, dst, dst_offset, bytes) in copies.iter().filter(|c| c.4 > 0) {
            let region = [vk::BufferCopy::default().src_offset(src_offset).dst_offset(dst_offset).size(bytes)];
            // SAFETY: both ranges lie within their buffers, which outlive the submission.
            unsafe { self.ctx.device.cmd_copy_buffer(self.compute, src, dst, &region) };
        }
        self.global_barrier(self.compute);
        // Everything before the barriers is complete and visible to what follows.
        self.accesses.clear();
        Ok(())
    }

    /// Whether `dispatches` more dispatches binding `descriptors` descriptors each fit in
    /// this submission.
    pub fn has_room(&self, dispatches: u32, descriptors: u32) -> bool {
        !self.open
            || (dispatches <= self.sets_free
                && dispatches * descriptors <= self.descriptors_free
                && self.stamps.written < STAMPS_PER_SUBMIT)
    }

    /// Barriers for the hazards between `bindings` and the commands recorded before:
    /// reading or rewriting what a dispatch or an upload wrote, or writing what a dispatch
    /// read. The barrier waits for earlier dispatches only when one of them is involved, so
    /// uploads alone do not hold a dispatch behind unrelated earlier ones.
    fn order_after_earlier(&mut self, bindings: &[Binding]) {
        let mut hazards: Vec<(vk::Buffer, Access)> = Vec::new();
        for b in bindings {
            let seen = self.accesses.get(&b.buffer).copied().unwrap_or_default();
            let hazard = seen.written || seen.uploaded || (b.writes && seen.read);
            if hazard && !hazards.iter().any(|h| h.0 == b.buffer) {
                hazards.push((b.buffer, seen));
            }
        }
        if !hazards.is_empty() {
            let after_dispatches = hazards.iter().any(|(_, a)| a.written || a.read);
            let after_uploads = hazards.iter().any(|(_, a)| a.uploaded);
            let mut stages = vk::PipelineStageFlags::empty();
            if after_dispatches {
                stages |= vk::PipelineStageFlags::COMPUTE_SHADER;
            }
            if after_uploads {
                stages |= vk::PipelineStageFlags::TRANSFER;
            }
            let buffers: Vec<vk::BufferMemoryBarrier> = hazards
                .iter()
                .filter(|(_, a)| a.written || a.uploaded)
                .map(|&(buffer, a)| {
                    let mut src = vk::AccessFlags::empty();
                    if a.written {
                        src |= vk::AccessFlags::SHADER_WRITE;
                    }
                    if a.uploaded {
                        src |= vk::AccessFlags::TRANSFER_WRITE;
                    }
                    vk::BufferMemoryBarrier::default()
                        .src_access_mask(src)
                        .dst_access_mask(vk::AccessFlags::SHADER_READ | vk::AccessFlags::SHADER_WRITE)
                        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                        .buffer(buffer)
                        .offset(0)
                        .size(vk::WHOLE_SIZE)
                })
                .collect();
            // SAFETY: recording into a command buffer in the recording state.
            unsafe {
                self.ctx.device.cmd_pipeline_barrier(
                    self.compute,
                    stages,
                    vk::PipelineStageFlags::COMPUTE_SHADER,
                    vk::DependencyFlags::empty(),
                    &[],
                    &buffers,
                    &[],
                )
            };
            // A barrier after the dispatches orders every earlier dispatch before every
            // later one, so reads no longer conflict; one after the uploads orders every
            // earlier upload. Writes are visible for the buffers it names.
            for (buffer, a) in self.accesses.iter_mut() {
                let named = hazards.iter().any(|h| h.0 == *buffer);
                if after_dispatches {
                    a.read = false;
                    a.written &= !named;
                }
                if after_uploads {
                    a.uploaded &= !named;
                }
            }
        }
        for b in bindings {
            let a = self.accesses.entry(b.buffer).or_default();
            a.read = true;
            a.written |= b.writes;
        }
    }

    /// Records `groups` workgroups of `p` with `bindings` bound in order.
    pub fn dispatch(&mut self, p: &Pipeline, bindings: &[Binding], groups: [u32; 3]) -> Result<()> {
        self.begin()?;
        let d = &self.ctx.device;
        let layouts = [p.layout.set];
        let alloc = vk::DescriptorSetAllocateInfo::default().descriptor_pool(self.descriptors).set_layouts(&layouts);
        // SAFETY: `has_room` was checked by the caller; the pool outlives the submission.
        let set = checked("allocating a descriptor set", unsafe { d.allocate_descriptor_sets(&alloc) })?[0];
        self.sets_free -= 1;
        self.descriptors_free -= bindings.iter().map(|b| b.ranges).sum::<u32>();
        let chunk = self.ctx.caps.chunk_bytes;
        let infos: Vec<Vec<vk::DescriptorBufferInfo>> = bindings
            .iter()
            .map(|b| {
                (0..b.ranges as u64)
                    .map(|c| {
                        let offset = c * chunk;
                        vk::DescriptorBufferInfo::default()
                            .buffer(b.buffer)
                            .offset(offset)
                            .range(chunk.min(b.size - offset))
                    })
                    .collect()
            })
            .collect();
        let writes: Vec<vk::WriteDescriptorSet> = infos
            .iter()
            .enumerate()
            .map(|(i, info)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(i as u32)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(info)
            })
            .collect();
        self.order_after_earlier(bindings);
        let d = &self.ctx.device;
        // SAFETY: the set's buffers outlive the submission (its owner keeps them).
        unsafe {
            d.update_descriptor_sets(&writes, &[]);
            d.cmd_bind_pipeline(self.compute, vk::PipelineBindPoint::COMPUTE, p.raw);
            d.cmd_bind_descriptor_sets(self.compute, vk::PipelineBindPoint::COMPUTE, p.layout.pipeline, 0, &[set], &[]);
            d.cmd_dispatch(self.compute, groups[0], groups[1], groups[2]);
        }
        Ok(())
    }

    /// Submits what was recorded and waits until it has run (nothing to do if nothing was).
    pub fn submit(&mut self) -> Result<()> {
        if !self.open {
            return Ok(());
        }
        self.open = false;
        let d = &self.ctx.device;
        // Results are visible to the host once the fence signals.
        self.global_barrier(self.compute);
        // SAFETY: the command buffer is recording; the queue is used under its lock.
        unsafe {
            check("ending a command buffer", d.end_command_buffer(self.compute))?;
            let cmds = [self.compute];
            let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
            let queue = self.ctx.queue.lock();
            check("submitting work", d.queue_submit(*queue, &submit, self.fence))?;
            drop(queue);
            check("waiting for the device", d.wait_for_fences(&[self.fence], true, u64::MAX))?;
            check("resetting a fence", d.reset_fences(&[self.fence]))?;
        }
        self.read_stamps()?;
        self.ctx.check_validation()
    }

    /// Records commands with `f`, submits them and waits until they have run.
    pub fn run(&mut self, f: impl FnOnce(&mut Commands) -> Result<()>) -> Result<()> {
        self.begin()?;
        match f(self) {
            Ok(()) => self.submit(),
            Err(e) => {
                self.abandon();
                Err(e)
            }
        }
    }

    /// Drops what was recorded without running it.
    fn abandon(&mut self) {
        if std::mem::take(&mut self.open) {
            // SAFETY: the command buffer is recording; it is reset before reuse.
            unsafe {
                let _ = self.ctx.device.end_command_buffer(self.compute);
            }
        }
    }
}

impl Drop for Commands {
    fn drop(&mut self) {
        // SAFETY: every submission was waited for.
        unsafe {
            let d = &self.ctx.device;
            if let Some(pool) = self.stamps.pool {
                d.destroy_query_pool(pool, None);
            }
            d.destroy_descriptor_pool(self.descriptors, None);
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.pool, None);
        }
    }
}
