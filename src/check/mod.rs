//! Result-comparison mode. Beside the optimised run, every flush also evaluates its ops in
//! a reference run (reference.rs: op by op, no caches, sequential, in f64 on the CPU);
//! optimised values are compared with their references as each kernel output completes
//! (`compute`: every op's value is stored, so the first op that diverges is the one
//! reported) or when the application reads them (`copyout`).

mod compare;
mod factor;
mod fft;
pub mod reference;
mod sort;

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use parking_lot::Mutex;
use rustc_hash::FxHashMap as HashMap;

use compare::compare;
pub use compare::{Mismatch, Tolerance};
pub use reference::Reference;

use crate::exec::memory::{HostPool, Reservation};
use crate::exec::{Executor, OutputCheck};
use crate::ir::{DType, Error, ErrorKind, Node, Op, Result, Value};

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Mode {
    Off,
    /// Check every op's value as soon as it is computed (on the execution thread).
    Compute,
    /// Check values when the application reads them.
    Copyout,
}

impl Mode {
    pub fn parse(s: &str) -> Option<Mode> {
        match s.trim().to_ascii_lowercase().as_str() {
            "off" | "0" => Some(Mode::Off),
            "compute" => Some(Mode::Compute),
            "copyout" => Some(Mode::Copyout),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Mode::Off => "off",
            Mode::Compute => "compute",
            Mode::Copyout => "copyout",
        }
    }
}

/// What a difference beyond tolerance does.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Action {
    /// Print the report to stderr and go on.
    Report,
    /// Fail: the read returns `SL_ERR_MISMATCH` (copyout), or the value is poisoned with
    /// the report, so the next call that needs it fails (compute).
    Error,
    /// Print the report and abort the process.
    Abort,
}

impl Action {
    pub fn parse(s: &str) -> Option<Action> {
        match s.trim().to_ascii_lowercase().as_str() {
            "report" => Some(Action::Report),
            "error" => Some(Action::Error),
            "abort" => Some(Action::Abort),
            _ => None,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Settings {
    pub mode: Mode,
    pub action: Action,
    /// `None`: the default for the result's type (`default_tolerance`).
    pub abs_tol: Option<f64>,
    pub rel_tol: Option<f64>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings { mode: Mode::Off, action: Action::Report, abs_tol: None, rel_tol: None }
    }
}

/// The tolerance used unless the settings give one, for a value whose computation went
/// through `precision` (its narrowest floating-point type): about 84 ulps of f32 and
/// 4,500 ulps of f64 relative, the same absolute (so values near 0 that cancel do not
/// count as wrong); integers and bools exact.
pub fn default_tolerance(precision: DType) -> Tolerance {
    match precision {
        DType::F32 => Tolerance { abs: 1e-5, rel: 1e-5 },
        DType::F64 => Tolerance { abs: 1e-12, rel: 1e-12 },
        // Two units of their epsilon (2^-10 and 2^-7): a result is rounded to them once
        // per op, from operands rounded to them.
        DType::F16 => Tolerance { abs: 2e-3, rel: 2e-3 },
        DType::BF16 => Tolerance { abs: 1.6e-2, rel: 1.6e-2 },
        _ => Tolerance { abs: 0.0, rel: 0.0 },
    }
}

/// The mode, readable without a lock on every flush.
static MODE: AtomicU8 = AtomicU8::new(0);
static SETTINGS: Mutex<Settings> =
    Mutex::new(Settings { mode: Mode::Off, action: Action::Report, abs_tol: None, rel_tol: None });
static CHECKED: AtomicU64 = AtomicU64::new(0);
static MISMATCHES: AtomicU64 = AtomicU64::new(0);

pub fn mode() -> Mode {
    match MODE.load(Ordering::Relaxed) {
        1 => Mode::Compute,
        2 => Mode::Copyout,
        _ => Mode::Off,
    }
}

pub fn settings() -> Settings {
    *SETTINGS.lock()
}

/// Switches the mode, action and tolerances for every thread; flushes planned from now
/// on follow them.
pub fn configure(s: Settings) {
    *SETTINGS.lock() = s;
    MODE.store(
        match s.mode {
            Mode::Off => 0,
            Mode::Compute => 1,
            Mode::Copyout => 2,
        },
        Ordering::Relaxed,
    );
}

/// Values compared since the process started, and how many of them differed.
pub fn counts() -> (u64, u64) {
    (CHECKED.load(Ordering::Relaxed), MISMATCHES.load(Ordering::Relaxed))
}

fn tolerance(precision: DType, s: &Settings) -> Tolerance {
    let d = default_tolerance(precision);
    Tolerance { abs: s.abs_tol.unwrap_or(d.abs), rel: s.rel_tol.unwrap_or(d.rel) }
}

/// A reference value, with the memory it is counted for against the limit.
pub struct Counted {
    reference: Reference,
    _memory: Option<Reservation>,
}

impl std::ops::Deref for Counted {
    type Target = Reference;
    fn deref(&self) -> &Reference {
        &self.reference
    }
}

/// Why a node has no reference although comparison was on when it was planned.
struct Refused(String);

/// The memory whose limit references count against (the runtime's host pool).
static MEMORY: Mutex<Option<Arc<HostPool>>> = Mutex::new(None);

/// Counts references against `pool` (host memory, `SLUICE_MEMORY_LIMIT`) from now on.
pub fn use_memory(pool: Arc<HostPool>) {
    *MEMORY.lock() = Some(pool);
}

/// The reference `make` builds for `n` (with an error scale if `scaled`), counted against
/// the memory limit first; why not when it does not fit.
fn counted(n: &Node, scaled: bool, make: impl FnOnce() -> Reference) -> std::result::Result<Arc<Counted>, String> {
    // f64 or i64 per element (two f64 for a complex one), and the f64 error scale.
    let per_element = if n.dtype.is_complex() { 16 } else { 8 } + if scaled { 8 } else { 0 };
    let bytes = n.shape.checked_numel().and_then(|e| e.checked_mul(per_element)).unwrap_or(usize::MAX);
    let pool = MEMORY.lock().clone();
    let memory = match pool.map(|p| p.reserve(bytes)).transpose() {
        Ok(m) => m,
        Err(e) => {
            return Err(format!(
                "result comparison: no reference for {} made by {} ({} {}): its reference run does not fit in memory: {}",
                n.op.name(),
                n.site,
                n.dtype,
                n.shape,
                e.message
            ));
        }
    };
    Ok(Arc::new(Counted { reference: make(), _memory: memory }))
}

/// The reference attached to `n`, if a flush made one.
pub fn attached(n: &Node) -> Option<Arc<Counted>> {
    n.reference.lock().clone().and_then(|r| r.downcast::<Counted>().ok())
}

/// Why `n` has no reference although its flush ran the reference (it did not fit in
/// memory, or an input's did not).
pub fn refusal(n: &Node) -> Option<String> {
    n.reference.lock().as_ref().and_then(|r| r.downcast_ref::<Refused>()).map(|r| r.0.clone())
}

/// The reference of an input of a flush: attached, or (for arrays the application
/// created, or computed while the mode was off) its value, which the reference run takes
/// as given. Why not when it (or, for a node of this flush, one of its inputs) failed
/// (`None`) or did not fit in memory.
fn input_reference(
    n: &Node,
    host: &dyn Fn(&Value) -> Result<Value>,
) -> std::result::Result<Arc<Counted>, Option<String>> {
    if let Some(r) = attached(n) {
        return Ok(r);
    }
    if let Some(why) = refusal(n) {
        return Err(Some(why));
    }
    if n.is_pending() {
        return Err(None); // in the flush, without a reference: one of its inputs failed
    }
    let value = n.wait().ok().and_then(|v| host(&v).ok()).ok_or(None)?;
    let r = counted(n, false, || Reference::of_value(n.dtype, n.shape, &value)).map_err(Some)?;
    *n.reference.lock() = Some(r.clone());
    Ok(r)
}

/// Runs the reference of every node a flush plans (`nodes` in dependency order, each with
/// its inputs); `host` brings computed values into host memory. A node whose inputs have
/// no reference (they failed) gets none. References count against the memory limit: one
/// that does not fit is not made (nor those depending on it), and the first such is
/// reported on stderr. `transient(i)`: nothing reads node `i`'s reference once the run is
/// over, so it is dropped after its last use in the run.
pub fn attach_references(
    nodes: &[(&Arc<Node>, &[Arc<Node>])],
    transient: impl Fn(usize) -> bool,
    host: &dyn Fn(&Value) -> Result<Value>,
) {
    let index: HashMap<*const Node, usize> = nodes.iter().enumerate().map(|(i, (n, _))| (Arc::as_ptr(n), i)).collect();
    let mut last_use: Vec<Option<usize>> = vec![None; nodes.len()];
    for (i, (_, inputs)) in nodes.iter().enumerate() {
        for j in inputs.iter().filter_map(|x| index.get(&Arc::as_ptr(x))) {
            last_use[*j] = Some(i);
        }
    }
    let mut reported = false;
    for (i, &(n, inputs)) in nodes.iter().enumerate() {
        if n.reference.lock().is_none() {
            let made = inputs
                .iter()
                .map(|x| input_reference(x, host))
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(|why| why.map(|w| format!("{w} (an input of {} made by {})", n.op.name(), n.site)))
                .and_then(|ins| {
                    let ins: Vec<&Reference> = ins.iter().map(|r| &***r).collect();
                    counted(n, reference::carries_scale(n, &ins), || reference::evaluate(n, &ins)).map_err(Some)
                });
            match made {
                Ok(r) => *n.reference.lock() = Some(r),
                Err(Some(why)) => {
                    if !reported {
                        eprintln!("sluice: {why}; values depending on it are not compared");
                        reported = true;
                    }
                    *n.reference.lock() = Some(Arc::new(Refused(why)));
                }
                Err(None) => {}
            }
        }
        // Inputs this node read last (and a transient node nobody reads) are done with.
        for j in inputs.iter().filter_map(|x| index.get(&Arc::as_ptr(x))).copied().chain([i]) {
            if transient(j) && last_use[j].is_none_or(|l| l <= i) {
                nodes[j].0.reference.lock().take();
            }
        }
    }
}

/// The check of a step output that computes `n` (compute mode).
pub fn output_check(n: Arc<Node>) -> Arc<dyn OutputCheck> {
    Arc::new(NodeCheck(n))
}

struct NodeCheck(Arc<Node>);

impl OutputCheck for NodeCheck {
    fn check(&self, executor: &dyn Executor, value: &Value) -> Result<()> {
        verdict(&self.0, &executor.host_value(value)?, Mode::Compute)
    }
}

/// Checks the value of `n` the application is reading (`value` in host memory).
pub fn check_read(n: &Node, value: &Value) -> Result<()> {
    if mode() == Mode::Copyout { verdict(n, value, Mode::Copyout) } else { Ok(()) }
}

fn verdict(n: &Node, value: &Value, mode: Mode) -> Result<()> {
    let Some(reference) = attached(n) else { return Ok(()) };
    if matches!(n.op, Op::Source) {
        return Ok(()); // the application's own data
    }
    let s = settings();
    let tol = tolerance(reference.precision, &s);
    CHECKED.fetch_add(1, Ordering::Relaxed);
    let mismatch = match n.op {
        Op::Factor(op) => factor::compare(op, &reference, value, tol),
        _ => compare(&reference, value, tol),
    };
    let Some(m) = mismatch else { return Ok(()) };
    MISMATCHES.fetch_add(1, Ordering::Relaxed);
    let report = format!(
        "result comparison ({}): {} made by {} ({} {}): {} of {} elements differ from the reference by more than {:e} + {:e} * |reference|; worst at {:?}: computed {:e}, reference {:e}, error {:e} ({} ulps)",
        mode.name(),
        n.op.name(),
        n.site,
        n.dtype,
        n.shape,
        m.bad,
        m.total,
        tol.abs,
        tol.rel,
        m.worst,
        m.computed,
        m.reference,
        m.error,
        m.ulps
    );
    match s.action {
        Action::Report => {
            eprintln!("sluice: {report}");
            Ok(())
        }
        Action::Error => Err(Error::new(ErrorKind::Mismatch, report).with_origin(n.site)),
        Action::Abort => {
            eprintln!("sluice: {report}");
            std::process::abort()
        }
    }
}
