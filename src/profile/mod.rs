//! Profiling mode: timing of API calls, flushes, compiles, kernel runs and transfers, and
//! attribution of kernel time to the call sites fused into each kernel.
//!
//! Off (the default) it costs one relaxed atomic load at each place that would record
//! something, and allocates nothing. On (`SLUICE_PROFILE=path` or `sl_profile_begin`),
//! records are kept in memory and written when profiling ends (`sl_profile_end`, or
//! `sl_shutdown`/exit for a profile started by the environment) as three files: a text
//! report by call site (`path.txt`), the raw records (`path.json`) and a Chrome
//! trace-event timeline (`path.trace.json`, for Perfetto or chrome://tracing).

mod chrome;
pub mod records;
mod report;
mod session;

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

pub use records::{ProgramOrigin, TraceOutcome};
use session::Session;

use crate::ir::kernel::Kernel;
use crate::ir::{CallSite, Result, bail};

static ENABLED: AtomicBool = AtomicBool::new(false);
static SESSION: parking_lot::Mutex<Option<Session>> = parking_lot::Mutex::new(None);

thread_local! {
    /// How the flush being planned on this thread got its sequence (see `note_trace`).
    static TRACE: Cell<TraceOutcome> = const { Cell::new(TraceOutcome::CacheOff) };
    /// Where the kernel being compiled on this thread came from (see `note_program`).
    static PROGRAM: Cell<Option<ProgramOrigin>> = const { Cell::new(None) };
    /// Worker time of the step running on this thread (see `add_cpu_time`).
    static CPU_NS: Cell<Option<u64>> = const { Cell::new(None) };
    /// Device time of the step being reported on this thread (see `set_device_time`).
    static DEVICE: Cell<Option<DeviceTime>> = const { Cell::new(None) };
}

/// Whether profiling is on: the one check on every hot path.
#[inline(always)]
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Who started the profile; a profile the environment started is written at shutdown.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Origin {
    Call,
    Environment,
}

/// Starts profiling into `path` (.txt, .json and .trace.json are appended). The files
/// are created now, so an unwritable path fails here rather than when profiling ends.
pub fn begin(path: &str, origin: Origin) -> Result<()> {
    let mut slot = SESSION.lock();
    if let Some(s) = slot.as_ref() {
        bail!(InvalidState, "profiling is already on (into {}); call sl_profile_end first", s.base());
    }
    *slot = Some(Session::create(path, origin)?);
    ENABLED.store(true, Ordering::Relaxed);
    if origin == Origin::Environment {
        register_exit_hook();
    }
    Ok(())
}

/// Starts the profile `SLUICE_PROFILE` asks for, once per process: it covers the run up
/// to the first `sl_shutdown` (or exit), and a runtime started again afterwards does not
/// overwrite its files.
pub fn begin_environment(path: &str) -> Result<()> {
    static DONE: AtomicBool = AtomicBool::new(false);
    if active().is_some() || DONE.load(Ordering::Relaxed) {
        return Ok(());
    }
    begin(path, Origin::Environment)?;
    DONE.store(true, Ordering::Relaxed);
    Ok(())
}

/// Whether a profile is being collected, and who started it.
pub fn active() -> Option<Origin> {
    SESSION.lock().as_ref().map(|s| s.origin())
}

/// Stops profiling and writes the files. Work still running is not waited for here
/// (callers wait for the engine first).
pub fn end() -> Result<()> {
    let session = {
        let mut slot = SESSION.lock();
        ENABLED.store(false, Ordering::Relaxed);
        slot.take()
    };
    match session {
        Some(s) => s.finish(),
        None => bail!(InvalidState, "profiling is not on (sl_profile_end without sl_profile_begin or SLUICE_PROFILE)"),
    }
}

/// Ends a profile the environment started (at shutdown or exit), reporting a failure
/// to write on stderr: there is no caller to return it to.
pub fn end_environment_profile() {
    if active() == Some(Origin::Environment)
        && let Err(e) = end()
    {
        eprintln!("sluice: {}", e.message);
    }
}

fn register_exit_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    extern "C" fn at_exit() {
        if let Some(rt) = crate::front::runtime::running() {
            rt.sched.engine().wait_idle();
        }
        end_environment_profile();
    }
    // SAFETY: registering a plain function with no preconditions.
    ONCE.call_once(|| unsafe {
        libc::atexit(at_exit);
    });
}

/// Runs `f` on the session if profiling is on.
fn with_session(f: impl FnOnce(&mut Session)) {
    if let Some(s) = SESSION.lock().as_mut() {
        f(s);
    }
}

/// The time now when profiling, for a record made later.
#[inline(always)]
pub fn now() -> Option<Instant> {
    if enabled() { Some(Instant::now()) } else { None }
}

/// Times one API call (the `boundary!` of every export).
pub struct CallTimer(Option<Instant>);

impl CallTimer {
    #[inline(always)]
    pub fn start() -> CallTimer {
        CallTimer(now())
    }

    #[inline(always)]
    pub fn finish(self, site: CallSite) {
        if let Some(start) = self.0 {
            with_session(|s| s.call(site, start));
        }
    }
}

/// Records how the flush being planned on this thread got its sequence.
#[inline(always)]
pub fn note_trace(outcome: TraceOutcome) {
    if enabled() {
        TRACE.with(|t| t.set(outcome));
    }
}

/// Times one flush: `begin` when it starts, `planned` when its sequence is ready,
/// `end` when it is handed to the engine. Does nothing when profiling is off.
pub struct FlushTimer(Option<FlushStart>);

struct FlushStart {
    start: Instant,
    planned: Option<Instant>,
    nodes: usize,
}

impl FlushTimer {
    #[inline(always)]
    pub fn begin(nodes: usize) -> FlushTimer {
        FlushTimer(now().map(|start| {
            TRACE.with(|t| t.set(TraceOutcome::CacheOff));
            FlushStart { start, planned: None, nodes }
        }))
    }

    #[inline(always)]
    pub fn planned(&mut self) {
        if let Some(f) = &mut self.0 {
            f.planned = Some(Instant::now());
        }
    }

    /// Records the flush; `outcome` overrides what planning noted (macros).
    #[inline(always)]
    pub fn end(self, outcome: Option<TraceOutcome>) {
        if let Some(f) = self.0 {
            let outcome = outcome.unwrap_or_else(|| TRACE.with(|t| t.get()));
            let planned = f.planned.unwrap_or(f.start);
            with_session(|s| s.flush(f.start, planned, Instant::now(), f.nodes, outcome));
        }
    }
}

/// Records where the kernel being compiled on this thread came from (the costliest
/// origin wins when compiling one kernel makes several programs).
#[inline(always)]
pub fn note_program(origin: ProgramOrigin) {
    if enabled() {
        PROGRAM.with(|p| p.set(Some(p.get().map_or(origin, |o| o.max(origin)))));
    }
}

/// Times one kernel compile.
pub struct CompileTimer(Instant);

impl CompileTimer {
    #[inline(always)]
    pub fn begin() -> Option<CompileTimer> {
        let start = now()?;
        PROGRAM.with(|p| p.set(None));
        Some(CompileTimer(start))
    }

    pub fn end(self, executor: &'static str, kernel: &Arc<Kernel>) {
        let origin = PROGRAM.with(|p| p.take()).unwrap_or(ProgramOrigin::Lowered);
        with_session(|s| s.compile(self.0, executor, kernel, origin));
    }
}

/// Adds worker time to the step running on this thread (an executor that runs a kernel
/// in chunks on worker threads reports their summed time).
pub fn add_cpu_time(ns: u64) {
    CPU_NS.with(|c| c.set(Some(c.get().unwrap_or(0) + ns)));
}

/// A step's time on a device, measured by the device (Vulkan timestamps).
#[derive(Clone, Copy, Debug)]
pub struct DeviceTime {
    pub ns: u64,
    /// When it ended, on the host's clock.
    pub end: Instant,
}

/// Gives the step reported next on this thread its device time.
pub fn set_device_time(time: Option<DeviceTime>) {
    if enabled() {
        DEVICE.with(|d| d.set(time));
    }
}

/// What a step was, for its record.
pub struct StepInfo<'a> {
    pub executor: &'static str,
    /// `kernel`, `matmul`, ...
    pub work: &'static str,
    /// The fused kernel, for kernel steps (identifies it across runs).
    pub kernel: Option<&'a Arc<Kernel>>,
    pub elements: u64,
    pub bytes: u64,
    /// The call sites fused into the step and their weights (summing to 1).
    pub shares: &'a [(CallSite, f32)],
}

/// Times the steps an executor runs one after another: each step's time runs from the
/// end of the one before (or the start) to its own end. A step that ran alone gets its own
/// time; steps that ran as one submission (Vulkan) give the first one the submission's
/// time, and each its device time where the device measures it. Its CPU time is what the
/// worker threads reported since the step before.
pub struct StepLaps(Instant);

impl StepLaps {
    #[inline(always)]
    pub fn begin() -> Option<StepLaps> {
        let start = now()?;
        CPU_NS.with(|c| c.set(None));
        DEVICE.with(|d| d.set(None));
        Some(StepLaps(start))
    }

    /// Records the step that just finished.
    pub fn lap(&mut self, info: &StepInfo) {
        let end = Instant::now();
        let cpu = CPU_NS.with(|c| c.take());
        let device = DEVICE.with(|d| d.take());
        with_session(|s| s.step(self.0, end, cpu, device, info));
        self.0 = end;
    }
}

/// Records the recording of a function applied to `pieces` pieces at `site`, of which
/// `looped` run one at a time (for the ops `ops`).
pub fn applied(site: CallSite, pieces: usize, looped: usize, ops: &[&'static str]) {
    if let Some(now) = now() {
        with_session(|s| s.applied(site, now, pieces as u64, looped as u64, ops.to_vec()));
    }
}

/// Records a copy between host and device memory that began at `start` (from `now()`).
pub fn transfer(kind: &'static str, bytes: usize, start: Option<Instant>) {
    if let Some(start) = start {
        with_session(|s| s.transfer(kind, bytes as u64, start));
    }
}
