//! Recording and submitting command buffers: transfers, barriers and dispatches go
//! into one command buffer, which is submitted and waited for with a fence.

use std::sync::Arc;

use ash::vk;

use super::device::{Context, check, checked};
use super::programs::Pipeline;
use crate::ir::Result;

/// Descriptor sets one submission may use.
const SETS_PER_SUBMIT: u32 = 64;
const BUFFERS_PER_SET: u32 = 64;

pub struct Submitter {
    ctx: Arc<Context>,
    pool: vk::CommandPool,
    cmd: vk::CommandBuffer,
    fence: vk::Fence,
    descriptors: vk::DescriptorPool,
}

/// A buffer bound to a shader: as `ranges` consecutive ranges of the device's chunk size
/// (the last shorter) when it exceeds one storage-buffer range.
pub struct Binding {
    pub buffer: vk::Buffer,
    pub size: u64,
    pub ranges: u32,
}

/// Commands being recorded into one submission.
pub struct Recorder<'a> {
    ctx: &'a Context,
    cmd: vk::CommandBuffer,
    descriptors: vk::DescriptorPool,
}

impl Submitter {
    pub fn new(ctx: Arc<Context>) -> Result<Submitter> {
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
        let cmd = checked("allocating a command buffer", unsafe { d.allocate_command_buffers(&alloc) })?[0];
        let fence = checked("creating a fence", unsafe { d.create_fence(&vk::FenceCreateInfo::default(), None) })?;
        let sizes = [vk::DescriptorPoolSize::default()
            .ty(vk::DescriptorType::STORAGE_BUFFER)
            .descriptor_count(SETS_PER_SUBMIT * BUFFERS_PER_SET)];
        let info = vk::DescriptorPoolCreateInfo::default().max_sets(SETS_PER_SUBMIT).pool_sizes(&sizes);
        let descriptors = checked("creating a descriptor pool", unsafe { d.create_descriptor_pool(&info, None) })?;
        Ok(Submitter { ctx, pool, cmd, fence, descriptors })
    }

    /// Records commands with `f`, submits them and waits until they have run.
    pub fn run(&mut self, f: impl FnOnce(&mut Recorder) -> Result<()>) -> Result<()> {
        let d = &self.ctx.device;
        // SAFETY: the command buffer and descriptor sets are idle: every submission is
        // waited for before the next is recorded.
        unsafe {
            check("resetting descriptors", d.reset_descriptor_pool(self.descriptors, Default::default()))?;
            check("resetting a command buffer", d.reset_command_buffer(self.cmd, Default::default()))?;
            let begin = vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
            check("beginning a command buffer", d.begin_command_buffer(self.cmd, &begin))?;
        }
        let mut rec = Recorder { ctx: &self.ctx, cmd: self.cmd, descriptors: self.descriptors };
        // Earlier submissions' writes are visible to this one.
        rec.barrier();
        let recorded = f(&mut rec);
        // Results are visible to the host once the fence signals.
        rec.barrier();
        unsafe {
            check("ending a command buffer", d.end_command_buffer(self.cmd))?;
        }
        recorded?;
        let cmds = [self.cmd];
        let submit = [vk::SubmitInfo::default().command_buffers(&cmds)];
        unsafe {
            let queue = self.ctx.queue.lock();
            check("submitting work", d.queue_submit(*queue, &submit, self.fence))?;
            drop(queue);
            check("waiting for the device", d.wait_for_fences(&[self.fence], true, u64::MAX))?;
            check("resetting a fence", d.reset_fences(&[self.fence]))?;
        }
        self.ctx.check_validation()
    }
}

impl Drop for Submitter {
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

impl Recorder<'_> {
    /// Makes every earlier write visible to every later access.
    pub fn barrier(&mut self) {
        let mb = [vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::MEMORY_WRITE)
            .dst_access_mask(vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE)];
        // SAFETY: recording into a command buffer in the recording state.
        unsafe {
            self.ctx.device.cmd_pipeline_barrier(
                self.cmd,
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::DependencyFlags::empty(),
                &mb,
                &[],
                &[],
            )
        };
    }

    pub fn copy(&mut self, src: vk::Buffer, dst: vk::Buffer, bytes: u64) {
        if bytes == 0 {
            return;
        }
        let region = [vk::BufferCopy::default().size(bytes)];
        // SAFETY: both buffers are at least `bytes` long and outlive the submission.
        unsafe { self.ctx.device.cmd_copy_buffer(self.cmd, src, dst, &region) };
    }

    /// Runs `groups` workgroups of `p` with `bindings` bound in order.
    pub fn dispatch(&mut self, p: &Pipeline, bindings: &[Binding], groups: [u32; 2]) -> Result<()> {
        let d = &self.ctx.device;
        let layouts = [p.layout.set];
        let alloc = vk::DescriptorSetAllocateInfo::default().descriptor_pool(self.descriptors).set_layouts(&layouts);
        // SAFETY: the pool has room for the sets one submission uses.
        let set = checked("allocating a descriptor set", unsafe { d.allocate_descriptor_sets(&alloc) })?[0];
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
        unsafe {
            d.update_descriptor_sets(&writes, &[]);
            d.cmd_bind_pipeline(self.cmd, vk::PipelineBindPoint::COMPUTE, p.raw);
            d.cmd_bind_descriptor_sets(self.cmd, vk::PipelineBindPoint::COMPUTE, p.layout.pipeline, 0, &[set], &[]);
            d.cmd_dispatch(self.cmd, groups[0], groups[1], 1);
        }
        Ok(())
    }
}
