//! Launch geometry of generated kernels: how many workgroups the first pass has (along x
//! and y), what its loops count to, and the most domain points one invocation takes.
//!
//! The geometry depends on the domain alone, so it is worked out once, when the kernel is
//! compiled: on drivers that end loops early (lavapipe), a kernel whose invocations would
//! take more points than `Target::points_bound` allows is refused there and runs on the
//! CPU, instead of giving wrong results past the limit.

use super::codegen::{LOCAL, Mode, SCAN_ITEMS, Target, rows, scan_blocks};
use crate::ir::kernel::Kernel;

/// Partials a tree reduction aims for in all (its first pass's workgroups), and the
/// fewest points each invocation of that pass folds.
const TREE_GROUPS: usize = 256;
const TREE_POINTS_PER_INVOCATION: usize = 16;

/// `groups` workgroups spread over x, then y, as far as `target` allows.
pub fn spread(groups: usize, target: &Target) -> [usize; 2] {
    let [max_x, max_y] = target.max_groups;
    let x = groups.clamp(1, max_x);
    [x, groups.div_ceil(x).clamp(1, max_y)]
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Grid {
    /// What the first pass's grid loop counts to: domain points (element-wise, over
    /// everything) or rows (along an axis).
    pub count: usize,
    /// Workgroups of the first pass along x and y.
    pub groups: [usize; 2],
    /// Tree forms and blocked scans: rows, and partials (blocks) per row.
    pub rows: usize,
    pub parts: usize,
    /// The most domain points one invocation of the first pass takes.
    pub points_per_invocation: usize,
}

impl Grid {
    /// The geometry of `k` in `mode` on `target`, where one invocation may take at most
    /// `points_bound` points (`None`: loops are not limited), and an element-wise one takes
    /// `step` consecutive points at each step of its loop (`codegen::points_per_step`).
    pub fn of(k: &Kernel, mode: Mode, target: &Target, points_bound: Option<usize>, step: usize) -> Grid {
        let domain = &k.domain;
        let local = LOCAL as usize;
        let max_x = target.max_groups[0];
        let spread = |groups: usize| spread(groups, target);
        // Invocations of a grid loop over `n` items: how many items the busiest takes.
        let per_invocation = |n: usize, [x, y]: [usize; 2]| n.div_ceil(x * y * local);
        // Partials per row that keep every invocation within the loop limit.
        let bounded_parts = |n: usize| points_bound.map_or(1, |bound| n.div_ceil(local * bound));
        match mode {
            Mode::Elementwise => {
                let (n, steps) = (domain.numel(), domain.numel().div_ceil(step));
                let groups = spread(steps.div_ceil(local));
                let points = step * per_invocation(steps, groups);
                Grid { count: n, groups, rows: 0, parts: 0, points_per_invocation: points }
            }
            Mode::ReduceAll => {
                let n = domain.numel();
                let groups = spread(n.div_ceil(local).clamp(1, 1024).max(bounded_parts(n)));
                // One partial per workgroup.
                let parts = groups[0] * groups[1];
                Grid { count: n, groups, rows: 1, parts, points_per_invocation: per_invocation(n, groups) }
            }
            Mode::Axis(a) => {
                let rows = rows(domain, a);
                let groups = spread(rows.div_ceil(local));
                let points = per_invocation(rows, groups) * domain.dim(a);
                Grid { count: rows, groups, rows: 0, parts: 0, points_per_invocation: points }
            }
            Mode::AxisTree(a) => {
                let (extent, rows) = (domain.dim(a), rows(domain, a));
                let parts = extent
                    .div_ceil(local * TREE_POINTS_PER_INVOCATION)
                    .clamp(1, (TREE_GROUPS / rows.max(1)).max(1))
                    .max(bounded_parts(extent));
                // Workgroups loop over (row, partial) pairs along x.
                let x = (rows * parts).clamp(1, max_x);
                let points = (rows * parts).div_ceil(x) * extent.div_ceil(parts * local);
                Grid { count: rows, groups: [x, 1], rows, parts, points_per_invocation: points }
            }
            Mode::ScanBlocks(a) => {
                // `Target::takes_blocked_scan` saw that every block fits one dispatch.
                let rows = rows(domain, a);
                let blocks = scan_blocks(domain.dim(a));
                // Nothing to do for no points, unless reductions beside the scan write
                // identities; those fold as a loop per row does (one invocation per row).
                let (count, points) = if k.has_reduction() {
                    (rows, domain.dim(a).max(SCAN_ITEMS))
                } else {
                    (domain.numel(), SCAN_ITEMS)
                };
                Grid { count, groups: [rows * blocks, 1], rows, parts: blocks, points_per_invocation: points }
            }
        }
    }
}
