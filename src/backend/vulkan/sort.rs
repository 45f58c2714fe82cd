//! Sorts and argsorts along a dimension on the device (`kernels/sort.comp`): each element
//! becomes a record of its directed key (the CPU executor's mapping, `cpu/sort.rs`: one
//! 32-bit word for f32, i32, u8 and bool, two for f64 and i64, built from the bits so no
//! 64-bit arithmetic is needed) and its position along its line, in a scratch buffer of
//! two regions. Records are distinct, so ordering them by every word is the stable sort.
//!
//! One dispatch sorts tiles of `P` records in shared memory (bitonic, a workgroup per
//! tile): a line that fits shared memory (`maxComputeSharedMemorySize`) is one tile, so
//! short lines take that dispatch alone. Longer lines are cut into tiles, then merged in
//! `log2(n / P)` passes, each invocation writing 16 consecutive records of a merged run:
//! a binary search along the merge path finds where they start in the two runs, then a
//! sequential merge of 16 steps (every invocation the same work, none waiting). A merge was
//! chosen over an LSD radix sort: it needs no per-workgroup histograms or scans, the
//! same passes serve one-word and two-word keys, and a pass's cost does not depend on
//! the key's width. A last dispatch writes the output: each element looks up its record's
//! position and copies the input element from there (the bits, so -0 and NaN payloads
//! come out as they went in) or writes the position. Lines are read through the input's
//! layout (any strides, any dimension), so nothing is transposed first.
//!
//! searchsorted is one dispatch: a binary search per value over the sorted vector's keys.
//!
//! Only on GPU-type devices, unless forced (`SLUICE_VULKAN_DEVICE_SORT`): on lavapipe the
//! CPU executor's radix sort is 20-30x faster than these kernels (BENCHMARKS.md).
//! Complex types (refused by the CPU executor), arrays or scratch beyond one
//! storage-buffer range, numbers beyond 32 bits and (on Mesa's CPU drivers) launches
//! whose loops would pass the driver's limit run on the CPU executor.

use super::{Handwritten, Launch, Plan, VulkanExecutor};
use crate::exec::Work;
use crate::ir::{DType, MAX_RANK, Result, Shape, SortOp, Value};

/// Bindings: meta, input, output, scratch; one range each.
const RANGES: [u32; 4] = [1; 4];
/// Invocations of a workgroup sorting a tile (fewer if the device allows fewer).
const TILE_LANES: usize = 256;
/// Most records a tile holds: more would make each invocation's share of a bitonic step long.
const MAX_TILE: usize = 4096;
/// Invocations per workgroup of the merge and output passes (`LANES` in the kernel).
const LANES: usize = 64;
/// Records a merging invocation writes (`ITEMS` in the kernel).
const MERGE_ITEMS: usize = 16;
/// Every pass's text, chosen by the defines before it.
const SOURCE: &str = include_str!("../../../kernels/sort.comp");

impl VulkanExecutor {
    /// How a sort step runs: on the device where it can (see the module comment).
    pub(super) fn sort_plan(&self, work: &Work, inputs: &[Value], outputs: &[Value]) -> Result<Plan> {
        let cpu = || Ok(Plan::Cpu(work.clone()));
        let Work::Sort { op, dtype, shapes, .. } = work else { unreachable!("a sort step") };
        if !self.device_sort {
            return cpu();
        }
        let (key_words, how) = match dtype {
            DType::F32 => (1, "#define FLOAT\n"),
            DType::F64 => (2, "#define FLOAT\n"),
            DType::I32 => (1, "#define SIGNED\n"),
            DType::I64 => (2, "#define SIGNED\n"),
            DType::U8 | DType::Bool => (1, ""),
            DType::C64
            | DType::C128
            | DType::I8
            | DType::I16
            | DType::U16
            | DType::U32
            | DType::U64
            | DType::F16
            | DType::BF16 => return cpu(),
        };
        let r = key_words + 1;
        let caps = &self.ctx.caps;
        let in_range = |v: &Value| (v.storage.byte_len() as u64) <= caps.chunk_bytes;
        if !inputs.iter().chain(outputs).all(in_range) {
            return cpu();
        }
        let head = format!("#version 450\n#define R {r}\n#define ELEM {}\n{how}", dtype.size());
        let (dim, descending, argsort) = match *op {
            SortOp::Sort { dim, descending } => (dim as usize, descending, false),
            SortOp::ArgSort { dim, descending } => (dim as usize, descending, true),
            SortOp::SearchSorted { right } => {
                let launch = self.search_launch(&head, right, shapes, inputs)?;
                return Ok(launch.map_or_else(|| Plan::Cpu(work.clone()), Plan::Device));
            }
        };
        let shape = &shapes[0];
        let (n, total) = (shape.dim(dim), shape.numel());
        let layout = &inputs[0].layout;
        let scratch = 2 * total * r * 4;
        let mut numbers = vec![n as i64, (total / n.max(1)) as i64, shape.rank() as i64, dim as i64, layout.offset];
        numbers.extend((0..MAX_RANK).map(|d| shape.dims().get(d).map_or(1, |&s| s as i64)));
        numbers.extend_from_slice(&layout.strides);
        let Some(words) = super::words(&numbers) else { return cpu() };
        if scratch as u64 > caps.chunk_bytes {
            return cpu();
        }
        let mut launch = Launch { words, scratch: Some(scratch.max(16)), ranges: RANGES.to_vec(), ..Launch::default() };
        if total == 0 {
            return Ok(Plan::Device(launch));
        }
        // The largest power-of-two tile whose records fit shared memory, or the line's.
        let fit = (caps.max_shared_bytes as usize / (4 * r)).min(MAX_TILE);
        let tile = if fit < MERGE_ITEMS { return cpu() } else { 1 << fit.ilog2() };
        let p = n.next_power_of_two().min(tile);
        let tile_lanes = TILE_LANES.min(caps.max_invocations as usize).min((p / 2).max(1));
        let max_x = caps.max_groups_x as usize;
        let groups = |items: usize, lanes: usize| items.div_ceil(lanes).clamp(1, max_x);
        let tiles = total / n * n.div_ceil(p);
        let merges = (n.div_ceil(p).next_power_of_two().ilog2()) as usize;
        // Loop iterations of one invocation: a rank loop per element visited, a bitonic
        // network per tile, a merge-path search and ITEMS steps per chunk merged.
        if let Some(limit) = self.target.max_loop_iterations {
            let rounds = |items: usize, lanes: usize| items.div_ceil(groups(items, lanes) * lanes);
            let log = p.ilog2() as usize + 1;
            let tile_loops =
                tiles.div_ceil(groups(tiles, 1)) * (p.div_ceil(tile_lanes) * (MAX_RANK + 1) * (1 + log * log));
            let merge_loops = rounds(total.div_ceil(MERGE_ITEMS), LANES) * (2 * n.ilog2() as usize + 2 * MERGE_ITEMS);
            let emit_loops = rounds(total, LANES) * 4 * 2 * MAX_RANK;
            if tile_loops.max(merge_loops).max(emit_loops) > limit {
                return cpu();
            }
        }
        let direction = if descending { "#define DESCENDING\n" } else { "" };
        let mut pass = |defines: String, groups: usize| -> Result<()> {
            let pipeline = self.programs.pipeline(&format!("{head}{direction}{defines}{SOURCE}"), &RANGES)?;
            launch.dispatches.push((pipeline, [groups as u32, 1, 1]));
            Ok(())
        };
        pass(format!("#define PASS TILE\n#define P {p}\n#define LANES {tile_lanes}\n"), groups(tiles, 1))?;
        for m in 0..merges {
            let width = p << m;
            let chunks = total / n * n.div_ceil(2 * width) * (2 * width / MERGE_ITEMS);
            pass(
                format!("#define PASS MERGE\n#define WIDTH {width}\n#define FROM {}\n", m % 2),
                groups(chunks, LANES),
            )?;
        }
        let argsort = if argsort { "#define ARGSORT\n" } else { "" };
        let units = if dtype.size() == 1 && argsort.is_empty() { total.div_ceil(4) } else { total };
        pass(format!("#define PASS EMIT\n#define FROM {}\n{argsort}", merges % 2), groups(units, LANES))?;
        Handwritten::Sort.count();
        Ok(Plan::Device(launch))
    }

    /// searchsorted of the values `inputs[1]` in the vector `inputs[0]` (shaped as
    /// `shapes`): a binary search per value. None when a number passes 32 bits or (on
    /// Mesa's CPU drivers) the loops would pass the driver's limit.
    fn search_launch(&self, head: &str, right: bool, shapes: &[Shape], inputs: &[Value]) -> Result<Option<Launch>> {
        let (sorted, values) = (&inputs[0].layout, &inputs[1].layout);
        let (m, total) = (shapes[0].dim(0), shapes[1].numel());
        let mut numbers = vec![m as i64, sorted.offset, sorted.strides[0], total as i64];
        numbers.extend([shapes[1].rank() as i64, values.offset]);
        numbers.extend((0..MAX_RANK).map(|d| shapes[1].dims().get(d).map_or(1, |&s| s as i64)));
        numbers.extend_from_slice(&values.strides);
        let Some(words) = super::words(&numbers) else { return Ok(None) };
        let groups = total.div_ceil(LANES).clamp(1, self.ctx.caps.max_groups_x as usize);
        let rounds = total.div_ceil(groups * LANES);
        if self
            .target
            .max_loop_iterations
            .is_some_and(|limit| rounds * (MAX_RANK + 2 + (m + 1).ilog2() as usize) > limit)
        {
            return Ok(None);
        }
        let mut launch = Launch { words, ranges: RANGES.to_vec(), ..Launch::default() };
        if total > 0 {
            let side = if right { "#define RIGHT\n" } else { "" };
            let pipeline = self.programs.pipeline(&format!("{head}#define PASS SEARCH\n{side}{SOURCE}"), &RANGES)?;
            launch.dispatches.push((pipeline, [groups as u32, 1, 1]));
            Handwritten::Sort.count();
        }
        Ok(Some(launch))
    }
}
