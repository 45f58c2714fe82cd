//! What the collector records, in the form the JSON file holds them. Times are
//! nanoseconds since profiling began; `site` and `thread` fields index the file's
//! `sites` and `threads` tables.

use serde::Serialize;

/// One API call: host time from entering the exported function to returning.
#[derive(Serialize, Clone, Copy)]
pub struct Call {
    pub site: u32,
    pub thread: u32,
    pub start_ns: u64,
    pub dur_ns: u64,
}

/// How a flush got its program sequence.
#[derive(Serialize, Clone, Copy, PartialEq, Eq, Debug, Default)]
#[serde(rename_all = "snake_case")]
pub enum TraceOutcome {
    /// The trace cache is off: planned and compiled.
    #[default]
    CacheOff,
    /// Replayed from the trace cache: no planning or compiling.
    Hit,
    /// Planned and compiled, then cached.
    Miss,
    /// A macro section being recorded, planned as one unit.
    MacroRecord,
    /// A recorded macro section replayed with new inputs.
    MacroReplay,
}

/// A flush: from taking its roots to handing the sequence to the engine.
#[derive(Serialize, Clone, Copy)]
pub struct Flush {
    pub thread: u32,
    pub start_ns: u64,
    pub end_ns: u64,
    /// Pending nodes it planned (0 for a macro replay, which plans none).
    pub nodes: u64,
    pub trace: TraceOutcome,
    /// Time to key, look up and plan (or instantiate) the sequence.
    pub plan_ns: u64,
}

/// Where an executor got a kernel's program from.
#[derive(Serialize, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
#[serde(rename_all = "snake_case")]
pub enum ProgramOrigin {
    /// Lowered directly (the CPU executor has no program cache: lowering is cheap).
    Lowered,
    /// Found in the executor's in-memory program cache.
    MemoryCache,
    /// Loaded from the on-disk program cache.
    DiskCache,
    /// Compiled (e.g. GLSL to SPIR-V by shaderc).
    Compiled,
}

/// One kernel compile during planning.
#[derive(Serialize, Clone, Copy)]
pub struct Compile {
    pub thread: u32,
    pub executor: &'static str,
    pub kernel: u32,
    pub start_ns: u64,
    pub dur_ns: u64,
    pub origin: ProgramOrigin,
}

/// A share of a step's time given to a call site.
#[derive(Serialize, Clone, Copy)]
pub struct Share {
    pub site: u32,
    pub weight: f32,
}

/// One step (a kernel or an intrinsic) run by an executor.
#[derive(Serialize, Clone)]
pub struct Step {
    pub thread: u32,
    pub executor: &'static str,
    /// Index into the file's `kernels` table.
    pub kernel: u32,
    pub start_ns: u64,
    pub wall_ns: u64,
    /// Summed time of the worker threads' chunks, when the executor reports it.
    pub cpu_ns: Option<u64>,
    /// Time on the device as the device measured it (Vulkan timestamps), and when it
    /// began on the host's clock (placed from when the submission's fence was seen).
    pub device_ns: Option<u64>,
    pub device_start_ns: Option<u64>,
    pub elements: u64,
    /// Bytes of the arrays read plus bytes written.
    pub bytes: u64,
    /// The call sites fused into it; weights sum to 1.
    pub sites: Vec<Share>,
}

/// A function applied to pieces (`sl_apply_elements`, `sl_apply_blocks`) when it was
/// recorded: how many pieces it has, and how many of them ops without a batched form
/// (`ops`) compute one at a time (0 when everything ran batched).
#[derive(Serialize, Clone)]
pub struct Applied {
    pub site: u32,
    pub thread: u32,
    pub start_ns: u64,
    pub pieces: u64,
    pub looped: u64,
    pub ops: Vec<&'static str>,
}

/// A copy between host and device memory.
#[derive(Serialize, Clone, Copy)]
pub struct Transfer {
    pub thread: u32,
    pub kind: &'static str,
    pub bytes: u64,
    pub start_ns: u64,
    pub dur_ns: u64,
}
