//! A profile being collected: raw records (up to a cap), running totals per call site and
//! per kernel, and the files it will be written to.

use std::cell::Cell;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use rustc_hash::FxHashMap as HashMap;
use serde::Serialize;

use super::records::{Applied, Call, Compile, Flush, ProgramOrigin, Share, Step, TraceOutcome, Transfer};
use super::{DeviceTime, Origin, StepInfo, chrome, report};
use crate::ir::kernel::Kernel;
use crate::ir::{CallSite, Error, ErrorKind, Result};

/// Raw records kept per kind; totals keep counting past it.
const MAX_RECORDS: usize = 1 << 18;

static NEXT_THREAD: AtomicU32 = AtomicU32::new(0);
static THREAD_NAMES: parking_lot::Mutex<Vec<String>> = parking_lot::Mutex::new(Vec::new());

thread_local! {
    static THREAD: Cell<u32> = const { Cell::new(u32::MAX) };
}

/// A small number for the calling thread (its name is kept for the reports).
fn thread_number() -> u32 {
    THREAD.with(|t| {
        if t.get() == u32::MAX {
            let n = NEXT_THREAD.fetch_add(1, Ordering::Relaxed);
            let name = std::thread::current().name().map_or_else(|| format!("thread {n}"), str::to_owned);
            let mut names = THREAD_NAMES.lock();
            if names.len() <= n as usize {
                names.resize(n as usize + 1, String::new());
            }
            names[n as usize] = name;
            t.set(n);
        }
        t.get()
    })
}

/// Totals of one call site.
#[derive(Default, Clone, Copy)]
pub struct SiteTotals {
    pub calls: u64,
    pub host_ns: u64,
    /// Kernel time (`KernelEntry::time_ns`) times the site's weight, summed over steps.
    pub attributed_ns: f64,
}

/// A kernel (or intrinsic) and its totals over every run.
pub struct KernelEntry {
    pub executor: &'static str,
    pub work: &'static str,
    /// Instructions and domain of a fused kernel.
    pub insts: usize,
    pub domain: String,
    pub runs: u64,
    /// Each run's device time where the device measured it, else its wall time: what is
    /// attributed to the call sites.
    pub time_ns: u64,
    pub wall_ns: u64,
    pub cpu_ns: u64,
    pub device_ns: u64,
    pub elements: u64,
    pub bytes: u64,
    pub compiles: u64,
    pub compile_ns: u64,
    /// Time attributed to each site (by site index).
    pub site_ns: HashMap<u32, f64>,
    /// Keeps the kernel alive, so its address keeps naming it.
    _kernel: Option<Arc<Kernel>>,
}

/// The three output files, created when profiling begins.
struct Files {
    text: File,
    json: File,
    trace: File,
}

pub struct Session {
    start: Instant,
    base: String,
    origin: Origin,
    files: Files,
    pub sites: Vec<CallSite>,
    site_ids: HashMap<CallSite, u32>,
    pub site_totals: Vec<SiteTotals>,
    pub kernels: Vec<KernelEntry>,
    kernel_ids: HashMap<(usize, &'static str, &'static str), u32>,
    pub calls: Vec<Call>,
    pub flushes: Vec<Flush>,
    pub compiles: Vec<Compile>,
    pub steps: Vec<Step>,
    pub transfers: Vec<Transfer>,
    pub applies: Vec<Applied>,
    /// Raw records not kept because of the cap.
    pub dropped: u64,
}

fn push<T>(v: &mut Vec<T>, dropped: &mut u64, r: T) {
    if v.len() < MAX_RECORDS {
        v.push(r);
    } else {
        *dropped += 1;
    }
}

fn ns(d: std::time::Duration) -> u64 {
    d.as_nanos() as u64
}

impl Session {
    pub fn create(path: &str, origin: Origin) -> Result<Session> {
        if path.is_empty() {
            return Err(Error::new(ErrorKind::InvalidArgument, "the profile path is empty"));
        }
        let open = |suffix: &str| {
            let name = format!("{path}{suffix}");
            File::create(&name).map_err(|e| {
                Error::new(ErrorKind::InvalidArgument, format!("cannot write the profile file {name}: {e}"))
            })
        };
        let files = Files { text: open(".txt")?, json: open(".json")?, trace: open(".trace.json")? };
        Ok(Session {
            start: Instant::now(),
            base: path.to_owned(),
            origin,
            files,
            sites: Vec::new(),
            site_ids: HashMap::default(),
            site_totals: Vec::new(),
            kernels: Vec::new(),
            kernel_ids: HashMap::default(),
            calls: Vec::new(),
            flushes: Vec::new(),
            compiles: Vec::new(),
            steps: Vec::new(),
            transfers: Vec::new(),
            applies: Vec::new(),
            dropped: 0,
        })
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    pub fn origin(&self) -> Origin {
        self.origin
    }

    fn at(&self, t: Instant) -> u64 {
        ns(t.saturating_duration_since(self.start))
    }

    fn site(&mut self, site: CallSite) -> u32 {
        if let Some(&id) = self.site_ids.get(&site) {
            return id;
        }
        let id = self.sites.len() as u32;
        self.sites.push(site);
        self.site_totals.push(SiteTotals::default());
        self.site_ids.insert(site, id);
        id
    }

    fn kernel(&mut self, executor: &'static str, work: &'static str, kernel: Option<&Arc<Kernel>>) -> u32 {
        let key = (kernel.map_or(0, |k| Arc::as_ptr(k) as usize), executor, work);
        if let Some(&id) = self.kernel_ids.get(&key) {
            return id;
        }
        let id = self.kernels.len() as u32;
        self.kernels.push(KernelEntry {
            executor,
            work,
            insts: kernel.map_or(0, |k| k.insts.len()),
            domain: kernel.map_or_else(String::new, |k| k.domain.to_string()),
            runs: 0,
            time_ns: 0,
            wall_ns: 0,
            cpu_ns: 0,
            device_ns: 0,
            elements: 0,
            bytes: 0,
            compiles: 0,
            compile_ns: 0,
            site_ns: HashMap::default(),
            _kernel: kernel.cloned(),
        });
        self.kernel_ids.insert(key, id);
        id
    }

    pub fn call(&mut self, site: CallSite, start: Instant) {
        let end = Instant::now();
        let id = self.site(site);
        let dur_ns = ns(end - start);
        let t = &mut self.site_totals[id as usize];
        t.calls += 1;
        t.host_ns += dur_ns;
        let r = Call { site: id, thread: thread_number(), start_ns: self.at(start), dur_ns };
        push(&mut self.calls, &mut self.dropped, r);
    }

    pub fn flush(&mut self, start: Instant, planned: Instant, end: Instant, nodes: usize, trace: TraceOutcome) {
        let r = Flush {
            thread: thread_number(),
            start_ns: self.at(start),
            end_ns: self.at(end),
            nodes: nodes as u64,
            trace,
            plan_ns: ns(planned.saturating_duration_since(start)),
        };
        push(&mut self.flushes, &mut self.dropped, r);
    }

    pub fn compile(&mut self, start: Instant, executor: &'static str, kernel: &Arc<Kernel>, origin: ProgramOrigin) {
        let dur_ns = ns(start.elapsed());
        let id = self.kernel(executor, "kernel", Some(kernel));
        let k = &mut self.kernels[id as usize];
        k.compiles += 1;
        k.compile_ns += dur_ns;
        let r = Compile { thread: thread_number(), executor, kernel: id, start_ns: self.at(start), dur_ns, origin };
        push(&mut self.compiles, &mut self.dropped, r);
    }

    pub fn step(
        &mut self,
        start: Instant,
        end: Instant,
        cpu_ns: Option<u64>,
        device: Option<DeviceTime>,
        info: &StepInfo,
    ) {
        let wall_ns = ns(end - start);
        let time_ns = device.map_or(wall_ns, |d| d.ns);
        let id = self.kernel(info.executor, info.work, info.kernel);
        let sites: Vec<Share> = info.shares.iter().map(|&(s, w)| Share { site: self.site(s), weight: w }).collect();
        let k = &mut self.kernels[id as usize];
        k.runs += 1;
        k.time_ns += time_ns;
        k.wall_ns += wall_ns;
        k.cpu_ns += cpu_ns.unwrap_or(0);
        k.device_ns += device.map_or(0, |d| d.ns);
        k.elements += info.elements;
        k.bytes += info.bytes;
        for s in &sites {
            let share = time_ns as f64 * s.weight as f64;
            *k.site_ns.entry(s.site).or_default() += share;
            self.site_totals[s.site as usize].attributed_ns += share;
        }
        let r = Step {
            thread: thread_number(),
            executor: info.executor,
            kernel: id,
            start_ns: self.at(start),
            wall_ns,
            cpu_ns,
            device_ns: device.map(|d| d.ns),
            device_start_ns: device.map(|d| self.at(d.end).saturating_sub(d.ns)),
            elements: info.elements,
            bytes: info.bytes,
            sites,
        };
        push(&mut self.steps, &mut self.dropped, r);
    }

    pub fn applied(&mut self, site: CallSite, at: Instant, pieces: u64, looped: u64, ops: Vec<&'static str>) {
        let r = Applied { site: self.site(site), thread: thread_number(), start_ns: self.at(at), pieces, looped, ops };
        push(&mut self.applies, &mut self.dropped, r);
    }

    pub fn transfer(&mut self, kind: &'static str, bytes: u64, start: Instant) {
        let r =
            Transfer { thread: thread_number(), kind, bytes, start_ns: self.at(start), dur_ns: ns(start.elapsed()) };
        push(&mut self.transfers, &mut self.dropped, r);
    }

    /// Writes the three files.
    pub fn finish(mut self) -> Result<()> {
        let duration_ns = ns(self.start.elapsed());
        let threads = THREAD_NAMES.lock().clone();
        let located = self.sites.iter().map(|s| SiteInfo::of(*s)).collect::<Vec<_>>();
        let rows = report::site_rows(&self, &located);
        let text = report::text(&self, &rows, &located, duration_ns);
        let trace = chrome::trace(&self, &located, &threads);
        let kernels = self.kernels.iter().map(KernelSummary::of).collect();
        let raw = RawFile {
            version: 1,
            duration_ns,
            dropped_records: self.dropped,
            threads: &threads,
            sites: &located,
            summary: Summary { sites: &rows, kernels },
            calls: &self.calls,
            flushes: &self.flushes,
            compiles: &self.compiles,
            steps: &self.steps,
            transfers: &self.transfers,
            applies: &self.applies,
        };
        let base = self.base.clone();
        let failed = |what: &str, e: &dyn std::fmt::Display| {
            Error::new(ErrorKind::InvalidArgument, format!("cannot write the profile file {base}{what}: {e}"))
        };
        self.files.text.write_all(text.as_bytes()).map_err(|e| failed(".txt", &e))?;
        let mut json = BufWriter::new(&mut self.files.json);
        serde_json::to_writer(&mut json, &raw).map_err(|e| failed(".json", &e))?;
        json.flush().map_err(|e| failed(".json", &e))?;
        drop(json);
        let mut out = BufWriter::new(&mut self.files.trace);
        serde_json::to_writer(&mut out, &trace).map_err(|e| failed(".trace.json", &e))?;
        out.flush().map_err(|e| failed(".trace.json", &e))
    }
}

/// A call site as the files name it.
#[derive(Serialize, Clone)]
pub struct SiteInfo {
    pub api: &'static str,
    pub pc: u64,
    pub explicit: bool,
    pub file: Option<String>,
    pub line: Option<u32>,
}

impl SiteInfo {
    pub fn of(s: CallSite) -> SiteInfo {
        let (pc, loc) = s.locate();
        SiteInfo {
            api: s.api,
            pc: pc as u64,
            explicit: s.is_explicit(),
            file: loc.as_ref().map(|(f, _)| f.clone()),
            line: loc.map(|(_, l)| l),
        }
    }

    /// `file:line`, or the address when there is no debug information.
    pub fn place(&self) -> String {
        match (&self.file, self.line) {
            (Some(f), Some(l)) => format!("{f}:{l}"),
            _ if self.pc == 0 => "(unknown)".to_string(),
            _ => format!("{:#x}", self.pc),
        }
    }
}

/// A report row: the call sites with one file:line and api name.
#[derive(Serialize, Clone)]
pub struct SiteRow {
    pub api: &'static str,
    pub place: String,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub calls: u64,
    pub attributed_ns: f64,
    pub host_ns: u64,
}

#[derive(Serialize)]
struct KernelSummary {
    executor: &'static str,
    work: &'static str,
    insts: usize,
    domain: String,
    runs: u64,
    time_ns: u64,
    wall_ns: u64,
    cpu_ns: u64,
    device_ns: u64,
    elements: u64,
    bytes: u64,
    compiles: u64,
    compile_ns: u64,
}

impl KernelSummary {
    fn of(k: &KernelEntry) -> KernelSummary {
        KernelSummary {
            executor: k.executor,
            work: k.work,
            insts: k.insts,
            domain: k.domain.clone(),
            runs: k.runs,
            time_ns: k.time_ns,
            wall_ns: k.wall_ns,
            cpu_ns: k.cpu_ns,
            device_ns: k.device_ns,
            elements: k.elements,
            bytes: k.bytes,
            compiles: k.compiles,
            compile_ns: k.compile_ns,
        }
    }
}

#[derive(Serialize)]
struct Summary<'a> {
    sites: &'a [SiteRow],
    kernels: Vec<KernelSummary>,
}

#[derive(Serialize)]
struct RawFile<'a> {
    version: u32,
    duration_ns: u64,
    dropped_records: u64,
    threads: &'a [String],
    sites: &'a [SiteInfo],
    summary: Summary<'a>,
    calls: &'a [Call],
    flushes: &'a [Flush],
    compiles: &'a [Compile],
    steps: &'a [Step],
    transfers: &'a [Transfer],
    applies: &'a [Applied],
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn base(name: &str) -> String {
        let dir = std::env::temp_dir().join(format!("sluice-session-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("p").to_str().unwrap().to_owned()
    }

    #[test]
    fn step_time_is_shared_by_weight_and_written() {
        let path = base("share");
        let mut s = Session::create(&path, Origin::Call).unwrap();
        let (exp, add) = (CallSite { pc: 0x1000, api: "sl_exp" }, CallSite { pc: 0x2000, api: "sl_add" });
        let start = Instant::now();
        let info = StepInfo { executor: "cpu", work: "matmul", kernel: None, elements: 10, bytes: 80, shares: &[] };
        for (wall_us, w) in [(100, 0.75f32), (300, 0.5)] {
            let shares = [(exp, w), (add, 1.0 - w)];
            s.step(
                start,
                start + Duration::from_micros(wall_us),
                Some(2 * wall_us * 1000),
                None,
                &StepInfo { shares: &shares, ..info },
            );
        }
        // A step the device timed: its device time, not its wall time, is shared.
        let device = DeviceTime { ns: 40_000, end: start + Duration::from_micros(450) };
        let shares = [(exp, 1.0)];
        s.step(start, start + Duration::from_micros(500), None, Some(device), &StepInfo { shares: &shares, ..info });
        s.call(exp, start);
        let device_start = s.at(start) + 410_000;
        let totals = |site: CallSite| s.site_totals[s.site_ids[&site] as usize];
        assert_eq!(totals(exp).attributed_ns, 75_000.0 + 150_000.0 + 40_000.0);
        assert_eq!(totals(add).attributed_ns, 25_000.0 + 150_000.0);
        assert_eq!((totals(exp).calls, totals(add).calls), (1, 0));
        let k = &s.kernels[0];
        assert_eq!((k.runs, k.wall_ns, k.cpu_ns, k.bytes), (3, 900_000, 800_000, 240));
        assert_eq!((k.device_ns, k.time_ns), (40_000, 440_000));
        s.finish().unwrap();
        let raw: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(format!("{path}.json")).unwrap()).unwrap();
        assert_eq!(raw["steps"].as_array().unwrap().len(), 3);
        assert_eq!(raw["steps"][1]["sites"][0]["weight"], 0.5);
        assert_eq!(raw["steps"][2]["device_ns"], 40_000);
        assert_eq!(raw["steps"][2]["device_start_ns"], device_start);
        assert_eq!(raw["summary"]["sites"][0]["api"], "sl_exp");
        let trace: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(format!("{path}.trace.json")).unwrap()).unwrap();
        assert!(trace["traceEvents"].as_array().unwrap().iter().any(|e| e["cat"] == "step"));
        assert!(std::fs::read_to_string(format!("{path}.txt")).unwrap().contains("sl_exp"));
    }

    #[test]
    fn unwritable_paths_are_refused() {
        let e = Session::create("/nonexistent-directory/p", Origin::Call).err().unwrap();
        assert_eq!(e.kind, ErrorKind::InvalidArgument);
        assert!(e.message.contains("cannot write the profile file /nonexistent-directory/p.txt"), "{}", e.message);
        assert!(Session::create("", Origin::Call).is_err());
    }
}
