//! Recording and submitting commands. One submission is two command buffers run in
//! order: the *transfer* buffer (staging copies of the inputs the submission uploads) and
//! the *compute* buffer (a barrier that makes those copies and every earlier submission's
//! writes visible, then the dispatches). Between dispatches, a barrier is recorded only
//! where a dispatch touches a buffer an earlier one of the same submission wrote (or
//! writes one it read), and it names just those buffers, so independent dispatches may
//! overlap on devices that run them concurrently. The submission signals a fence, which
//! is waited for.

use std::collections::HashMap;
use std::sync::Arc;

use ash::vk;

use super::device::{Context, check, checked};
use super::programs::Pipeline;
use crate::ir::Result;

/// Descriptor sets and descriptors one submission may use; a batch that would need more
/// is submitted and a new one begun.
const SETS_PER_SUBMIT: u32 = 256;
pub(super) const DESCRIPTORS_PER_SUBMIT: u32 = 8192;

/// A buffer bound to a shader: as `ranges` consecutive ranges of the device's chunk size
/// (the last shorter) when it exceeds one storage-buffer range.
pub struct Binding {
    pub buffer: vk::Buffer,
    pub size: u64,
    pub ranges: u32,
    /// Whether the shader may write it.
    pub writes: bool,
}

/// How dispatches recorded since the last barrier on a buffer used it.
#[derive(Default, Clone, Copy)]
struct Access {
    read: bool,
    written: bool,
}

/// Command buffers, their fence and descriptor pool, reused submission after submission.
pub struct Commands {
    ctx: Arc<Context>,
    pool: vk::CommandPool,
    transfer: vk::CommandBuffer,
    compute: vk::CommandBuffer,
    fence: vk::Fence,
    descriptors: vk::DescriptorPool,
    /// Whether a submission is being recorded.
    open: bool,
    sets_free: u32,
    descriptors_free: u32,
    /// Dispatches recorded since the last barrier covering each buffer.
    accesses: HashMap<vk::Buffer, Access>,
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
            .command_buffer_count(2);
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
            transfer: cmds[0],
            compute: cmds[1],
            fence,
            descriptors,
            open: false,
            sets_free: 0,
            descriptors_free: 0,
            accesses: HashMap::new(),
        })
    }

    fn begin(&mut self) -> Result<()> {
        if self.open {
            return Ok(());
        }
        let d = &self.ctx.device;
        // SAFETY: the command buffers and descriptor sets are idle: every submission is
        // waited for before the next is recorded.
        unsafe {
            check("resetting descriptors", d.reset_descriptor_pool(self.descriptors, Default::default()))?;
            let begin = vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            for cmd in [self.transfer, self.compute] {
                check("resetting a command buffer", d.reset_command_buffer(cmd, Default::default()))?;
                check("beginning a command buffer", d.begin_command_buffer(cmd, &begin))?;
            }
        }
        self.open = true;
        self.sets_free = SETS_PER_SUBMIT;
        self.descriptors_free = DESCRIPTORS_PER_SUBMIT;
        self.accesses.clear();
        // Earlier submissions' writes, then this one's uploads, are visible to what follows.
        self.global_barrier(self.transfer);
        self.global_barrier(self.compute);
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

    /// Records a staging copy into `dst`, which no dispatch of this submission has used yet.
    pub fn upload(&mut self, src: vk::Buffer, dst: vk::Buffer, bytes: u64) -> Result<()> {
        self.begin()?;
        self.copy_in(self.transfer, src, dst, bytes);
        Ok(())
    }

    /// Records a copy after everything recorded so far (for one-off transfers).
    pub fn copy(&mut self, src: vk::Buffer, dst: vk::Buffer, bytes: u64) -> Result<()> {
        self.begin()?;
        self.copy_in(self.compute, src, dst, bytes);
        Ok(())
    }

    fn copy_in(&self, cmd: vk::CommandBuffer, src: vk::Buffer, dst: vk::Buffer, bytes: u64) {
        if bytes == 0 {
            return;
        }
        let region = [vk::BufferCopy::default().size(bytes)];
        // SAFETY: both buffers are at least `bytes` long and outlive the submission.
        unsafe { self.ctx.device.cmd_copy_buffer(cmd, src, dst, &region) };
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
        !self.open || (dispatches <= self.sets_free && dispatches * descriptors <= self.descriptors_free)
    }

    /// Barriers for the hazards between `bindings` and the dispatches recorded before:
    /// reading or rewriting what one wrote, or writing what one read.
    fn order_after_earlier(&mut self, bindings: &[Binding]) {
        let mut hazards: Vec<vk::Buffer> = Vec::new();
        for b in bindings {
            let seen = self.accesses.get(&b.buffer).copied().unwrap_or_default();
            if (seen.written || (b.writes && seen.read)) && !hazards.contains(&b.buffer) {
                hazards.push(b.buffer);
            }
        }
        if !hazards.is_empty() {
            let buffers: Vec<vk::BufferMemoryBarrier> = hazards
                .iter()
                .filter(|b| self.accesses[b].written)
                .map(|&buffer| {
                    vk::BufferMemoryBarrier::default()
                        .src_access_mask(vk::AccessFlags::SHADER_WRITE)
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
                    vk::PipelineStageFlags::COMPUTE_SHADER,
                    vk::PipelineStageFlags::COMPUTE_SHADER,
                    vk::DependencyFlags::empty(),
                    &[],
                    &buffers,
                    &[],
                )
            };
            // The barrier orders every earlier dispatch before every later one, so reads
            // no longer conflict; writes are visible for the buffers it names.
            for (buffer, a) in self.accesses.iter_mut() {
                a.read = false;
                a.written &= !hazards.contains(buffer);
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
        // SAFETY: both command buffers are recording; the queue is used under its lock.
        unsafe {
            check("ending a command buffer", d.end_command_buffer(self.transfer))?;
            check("ending a command buffer", d.end_command_buffer(self.compute))?;
            let cmds = [self.transfer, self.compute];
            let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
            let queue = self.ctx.queue.lock();
            check("submitting work", d.queue_submit(*queue, &submit, self.fence))?;
            drop(queue);
            check("waiting for the device", d.wait_for_fences(&[self.fence], true, u64::MAX))?;
            check("resetting a fence", d.reset_fences(&[self.fence]))?;
        }
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
            // SAFETY: both command buffers are recording; they are reset before reuse.
            unsafe {
                let _ = self.ctx.device.end_command_buffer(self.transfer);
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
            d.destroy_descriptor_pool(self.descriptors, None);
            d.destroy_fence(self.fence, None);
            d.destroy_command_pool(self.pool, None);
        }
    }
}
