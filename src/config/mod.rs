//! Runtime settings: defaults, overridden by environment variables, overridden by the
//! values an application passes to `sl_init`.
//!
//! | variable | meaning | default |
//! |---|---|---|
//! | `SLUICE_THREADS` | CPU worker threads | all cores |
//! | `SLUICE_MEMORY_LIMIT` | most bytes of array memory in use (suffixes K, M, G) | the machine's memory, or the cgroup's limit if lower |
//! | `SLUICE_FUSION` | `0`/`off` evaluates op by op, storing every value | on |
//! | `SLUICE_QUEUE_LIMIT` | ops waiting in the queue (not yet computed by a flush) before it flushes itself | 1024 |
//! | `SLUICE_MAX_KERNEL_OPS` | largest fused expression before a value is stored | 4096 |
//! | `SLUICE_BACKEND` | `cpu`, `vulkan` or `auto` (a Vulkan GPU if there is one, else the CPU) | auto |
//! | `SLUICE_VULKAN_NO_F64` | `on`: treat the Vulkan device as lacking 64-bit floats | off |
//! | `SLUICE_VULKAN_NO_INT64_ATOMICS` | `on`: treat the Vulkan device as lacking 64-bit buffer atomics (such scatters then run on the CPU) | off |
//! | `SLUICE_VULKAN_MAX_BINDINGS` | most storage buffers a Vulkan shader may bind, if lower than the device's limit (for tests) | the device's |
//! | `SLUICE_VULKAN_MAX_GROUPS` | most workgroups a Vulkan dispatch may have along x and along y, if lower than the device's limits (for tests) | the device's |
//! | `SLUICE_VULKAN_SUBMIT_PER_STEP` | `on`: submit and wait for each step instead of each run of device steps (for comparison) | off |
//! | `SLUICE_VULKAN_NO_READ_BACK` | `on`: a blocking read copies a result back in a submission of its own, not in the one computing it (for comparison) | off |
//! | `SLUICE_VULKAN_NO_HANDWRITTEN` | `on`: run reductions, scans, transposes and gathers with generated kernels only, not the hand-written ones in `kernels/` (for comparison) | off |
//! | `SLUICE_VULKAN_AXIS_TREE` | `on`: reduce long axes of few rows in the tree form on every Vulkan device, not only GPUs (for tests) | off |
//! | `SLUICE_VULKAN_DEVICE_SORT` | `on`: sorts, argsorts and searchsorted run on every Vulkan device, not only GPUs (on CPU-type devices the CPU executor's radix sort is faster; for tests) | off |
//! | `SLUICE_VULKAN_DEVICE_FACTOR` | `on`: factorizations and solves of small matrices run as the device's batched kernels on every Vulkan device, not only GPUs (on CPU-type devices the CPU executor is faster; for tests) | off |
//! | `SLUICE_VULKAN_BLOCKED_SCAN` | `on`: every scan along an axis takes the blocked form (`kernels/scan.comp`) where it fits, on every Vulkan device (for tests) | off |
//! | `SLUICE_VULKAN_VALIDATION` | `on`: Vulkan validation layers; any message fails the step | off |
//! | `SLUICE_VULKAN_LOADER` | path of the Vulkan loader to load | `libvulkan.so.1` |
//! | `SLUICE_DEVICE_MEMORY` | most bytes of arrays in Vulkan device memory; beyond it the least recently used move to host memory | none |
//! | `SLUICE_CACHE_DIR` | where compiled GPU programs are kept between runs | `$XDG_CACHE_HOME/sluice` |
//! | `SLUICE_PIPELINE_CACHE_ENTRIES` | compiled Vulkan pipelines kept in memory (least recently used evicted; the disk cache keeps all) | 128 |
//! | `SLUICE_TRACE_CACHE_ENTRIES` | flush recipes the trace cache keeps (0: off) | 256 |
//! | `SLUICE_EXPLAIN_MISSES` | `1`/`on` logs why each trace cache lookup missed | off |
//! | `SLUICE_MACRO_CACHE_ENTRIES` | recorded macro sections kept (0: none, always record) | 64 |
//! | `SLUICE_COMPARE` | result comparison: `off`, `compute` (every op as it completes) or `copyout` (values read) | off |
//! | `SLUICE_COMPARE_ACTION` | on a difference: `report` (stderr), `error` or `abort` | report |
//! | `SLUICE_COMPARE_ABS_TOL`, `SLUICE_COMPARE_REL_TOL` | allowed error `abs + rel * abs(reference)` | f32: 1e-5, 1e-5; f64: 1e-12, 1e-12; integers exact |
//! | `SLUICE_SYNC` | `on`: every call computes its result before it returns (step-by-step debugging) | off |
//! | `SLUICE_TEST_PERTURB` | test-only: `op[@executor]` makes that op's results slightly wrong | none |
//! | `SLUICE_TEST_LEAK` | test-only: start-up leaks a block of this many bytes, for leak checkers to find | none |
//! | `SLUICE_PROFILE` | profile into `path.txt`, `path.json` and `path.trace.json`, written at shutdown or exit | off |

use crate::check;
use crate::ir::{Result, bail};

#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub threads: usize,
    /// Most bytes of array memory in use (`usize::MAX`: not set; host memory is then
    /// limited to what the system can hold, see `exec::memory::system_memory`).
    pub memory_limit: usize,
    pub fusion: bool,
    pub queue_limit: usize,
    pub max_kernel_ops: usize,
    pub trace_cache_entries: usize,
    pub explain_misses: bool,
    pub macro_cache_entries: usize,
    pub backend: Backend,
    /// Pretend the Vulkan device has no `shaderFloat64` (f64 work then runs on the CPU).
    pub vulkan_no_f64: bool,
    /// Pretend the Vulkan device has no 64-bit buffer atomics.
    pub vulkan_no_int64_atomics: bool,
    /// Lower the storage buffers a Vulkan shader may bind (kernels are split to fit).
    pub vulkan_max_bindings: Option<u32>,
    /// Lower the workgroups a Vulkan dispatch may have along x and along y.
    pub vulkan_max_groups: Option<u32>,
    /// Submit each Vulkan step on its own instead of batching a sequence's steps.
    pub vulkan_submit_per_step: bool,
    /// Use generated kernels only, not the hand-written ones (for comparison).
    pub vulkan_no_handwritten: bool,
    /// Copy results a read waits for back in a submission of their own (for comparison).
    pub vulkan_no_read_back: bool,
    /// Reduce long axes of few rows in the tree form on every Vulkan device (for tests).
    pub vulkan_axis_tree: bool,
    /// Sort on every Vulkan device, not only GPUs (for tests).
    pub vulkan_device_sort: bool,
    /// Small factorizations and solves on every Vulkan device, not only GPUs (for tests).
    pub vulkan_device_factor: bool,
    /// Scan every axis in the blocked form on every Vulkan device (for tests).
    pub vulkan_blocked_scan: bool,
    /// Enable the Vulkan validation layers and fail steps on any message.
    pub vulkan_validation: bool,
    /// The Vulkan loader library to load instead of the system's.
    pub vulkan_loader: Option<String>,
    /// Directory of the on-disk program cache (default: the XDG cache directory).
    pub cache_dir: Option<String>,
    /// Most bytes of arrays in Vulkan device memory (`usize::MAX`: what the device has).
    pub device_memory: usize,
    /// Most compiled Vulkan pipelines kept in memory.
    pub pipeline_cache_entries: usize,
    /// Result comparison at start.
    pub compare: check::Settings,
    /// Every call computes its result before returning.
    pub synchronous: bool,
    /// Test-only: the op (and executor, if given) whose results are perturbed.
    pub test_perturb: Option<Perturb>,
    /// Test-only: bytes start-up leaks, so a leak checker has one of Sluice's own to report.
    pub test_leak: Option<usize>,
    /// Profile from start-up into files named from this path (see `profile`).
    pub profile: Option<String>,
}

/// `SLUICE_TEST_PERTURB=op[@executor]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Perturb {
    pub op: String,
    pub executor: Option<String>,
}

impl Perturb {
    fn parse(s: &str) -> Option<Perturb> {
        let (op, executor) = match s.trim().split_once('@') {
            Some((op, e)) => (op, Some(e.to_owned())),
            None => (s.trim(), None),
        };
        (!op.is_empty()).then(|| Perturb { op: op.to_owned(), executor })
    }
}

/// Which executor runs kernels.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Backend {
    Cpu,
    Vulkan,
    /// A discrete or integrated GPU through Vulkan if present, else the CPU executor
    /// (never a CPU-type Vulkan device such as lavapipe).
    Auto,
}

impl Backend {
    pub fn parse(s: &str) -> Option<Backend> {
        match s.trim().to_ascii_lowercase().as_str() {
            "cpu" => Some(Backend::Cpu),
            "vulkan" => Some(Backend::Vulkan),
            "auto" => Some(Backend::Auto),
            _ => None,
        }
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            threads: std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1),
            memory_limit: usize::MAX,
            fusion: true,
            queue_limit: 1024,
            max_kernel_ops: 4096,
            backend: Backend::Auto,
            vulkan_no_f64: false,
            vulkan_no_int64_atomics: false,
            vulkan_max_bindings: None,
            vulkan_max_groups: None,
            vulkan_submit_per_step: false,
            vulkan_no_handwritten: false,
            vulkan_no_read_back: false,
            vulkan_axis_tree: false,
            vulkan_device_sort: false,
            vulkan_device_factor: false,
            vulkan_blocked_scan: false,
            vulkan_validation: false,
            vulkan_loader: None,
            cache_dir: None,
            device_memory: usize::MAX,
            pipeline_cache_entries: 128,
            trace_cache_entries: 256,
            explain_misses: false,
            macro_cache_entries: 64,
            compare: check::Settings::default(),
            synchronous: false,
            test_perturb: None,
            test_leak: None,
            profile: None,
        }
    }
}

/// Parses a byte count such as `1500`, `64K`, `512M` or `2G`.
pub fn parse_bytes(s: &str) -> Option<usize> {
    let s = s.trim();
    let (digits, mult) = match s.chars().last()?.to_ascii_uppercase() {
        'K' => (&s[..s.len() - 1], 1usize << 10),
        'M' => (&s[..s.len() - 1], 1 << 20),
        'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    digits.trim().parse::<usize>().ok()?.checked_mul(mult)
}

fn parse_switch(s: &str) -> Option<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "1" | "on" | "yes" | "true" => Some(true),
        "0" | "off" | "no" | "false" => Some(false),
        _ => None,
    }
}

fn positive(s: &str) -> Option<usize> {
    s.trim().parse().ok().filter(|&n| n > 0)
}

fn count(s: &str) -> Option<usize> {
    s.trim().parse().ok()
}

fn tolerance(s: &str) -> Option<f64> {
    s.trim().parse().ok().filter(|t: &f64| *t >= 0.0)
}

/// Environment variable `name` parsed by `parse`; `None` when unset or empty, an error
/// naming it (and saying it should be `expected`) when it does not parse.
fn setting<T>(name: &str, parse: impl Fn(&str) -> Option<T>, expected: &str) -> Result<Option<T>> {
    match std::env::var(name).ok().filter(|v| !v.trim().is_empty()) {
        None => Ok(None),
        Some(v) => match parse(&v) {
            Some(x) => Ok(Some(x)),
            None => bail!(InvalidArgument, "{name}={v} is not {expected}"),
        },
    }
}

impl Config {
    /// Defaults with the environment applied. A variable that does not parse is an error
    /// naming it, rather than silently ignored.
    pub fn from_env() -> Result<Config> {
        let mut c = Config::default();
        let (positive_int, count_int) = ("a positive integer", "a non-negative integer");
        let (bytes, switch) = ("a byte count (e.g. 512M)", "on/off");
        if let Some(n) = setting("SLUICE_THREADS", positive, positive_int)? {
            c.threads = n;
        }
        if let Some(n) = setting("SLUICE_MEMORY_LIMIT", parse_bytes, bytes)? {
            c.memory_limit = n;
        }
        if let Some(n) = setting("SLUICE_DEVICE_MEMORY", parse_bytes, bytes)? {
            c.device_memory = n;
        }
        if let Some(n) = setting("SLUICE_PIPELINE_CACHE_ENTRIES", positive, positive_int)? {
            c.pipeline_cache_entries = n;
        }
        if let Some(b) = setting("SLUICE_FUSION", parse_switch, switch)? {
            c.fusion = b;
        }
        if let Some(n) = setting("SLUICE_QUEUE_LIMIT", positive, positive_int)? {
            c.queue_limit = n;
        }
        if let Some(n) = setting("SLUICE_MAX_KERNEL_OPS", positive, positive_int)? {
            c.max_kernel_ops = n;
        }
        if let Some(b) = setting("SLUICE_BACKEND", Backend::parse, "cpu, vulkan or auto")? {
            c.backend = b;
        }
        if let Some(b) = setting("SLUICE_VULKAN_NO_F64", parse_switch, switch)? {
            c.vulkan_no_f64 = b;
        }
        if let Some(b) = setting("SLUICE_VULKAN_NO_INT64_ATOMICS", parse_switch, switch)? {
            c.vulkan_no_int64_atomics = b;
        }
        c.vulkan_max_bindings = setting(
            "SLUICE_VULKAN_MAX_BINDINGS",
            |v| v.trim().parse().ok().filter(|&n: &u32| n >= 8),
            "an integer of at least 8",
        )?;
        c.vulkan_max_groups = setting(
            "SLUICE_VULKAN_MAX_GROUPS",
            |v| v.trim().parse().ok().filter(|&n: &u32| n >= 1),
            "a positive integer",
        )?;
        if let Some(b) = setting("SLUICE_VULKAN_SUBMIT_PER_STEP", parse_switch, switch)? {
            c.vulkan_submit_per_step = b;
        }
        if let Some(b) = setting("SLUICE_VULKAN_NO_HANDWRITTEN", parse_switch, switch)? {
            c.vulkan_no_handwritten = b;
        }
        if let Some(b) = setting("SLUICE_VULKAN_NO_READ_BACK", parse_switch, switch)? {
            c.vulkan_no_read_back = b;
        }
        if let Some(b) = setting("SLUICE_VULKAN_AXIS_TREE", parse_switch, switch)? {
            c.vulkan_axis_tree = b;
        }
        if let Some(b) = setting("SLUICE_VULKAN_DEVICE_SORT", parse_switch, switch)? {
            c.vulkan_device_sort = b;
        }
        if let Some(b) = setting("SLUICE_VULKAN_DEVICE_FACTOR", parse_switch, switch)? {
            c.vulkan_device_factor = b;
        }
        if let Some(b) = setting("SLUICE_VULKAN_BLOCKED_SCAN", parse_switch, switch)? {
            c.vulkan_blocked_scan = b;
        }
        if let Some(b) = setting("SLUICE_VULKAN_VALIDATION", parse_switch, switch)? {
            c.vulkan_validation = b;
        }
        c.vulkan_loader = setting("SLUICE_VULKAN_LOADER", |v| Some(v.to_owned()), "a path")?;
        c.cache_dir = setting("SLUICE_CACHE_DIR", |v| Some(v.to_owned()), "a path")?;
        c.profile = setting("SLUICE_PROFILE", |v| Some(v.to_owned()), "a path")?;
        if let Some(n) = setting("SLUICE_TRACE_CACHE_ENTRIES", count, count_int)? {
            c.trace_cache_entries = n;
        }
        if let Some(n) = setting("SLUICE_MACRO_CACHE_ENTRIES", count, count_int)? {
            c.macro_cache_entries = n;
        }
        if let Some(b) = setting("SLUICE_EXPLAIN_MISSES", parse_switch, switch)? {
            c.explain_misses = b;
        }
        if let Some(m) = setting("SLUICE_COMPARE", check::Mode::parse, "off, compute or copyout")? {
            c.compare.mode = m;
        }
        if let Some(a) = setting("SLUICE_COMPARE_ACTION", check::Action::parse, "report, error or abort")? {
            c.compare.action = a;
        }
        let tol = "a non-negative number";
        c.compare.abs_tol = setting("SLUICE_COMPARE_ABS_TOL", tolerance, tol)?;
        c.compare.rel_tol = setting("SLUICE_COMPARE_REL_TOL", tolerance, tol)?;
        if let Some(b) = setting("SLUICE_SYNC", parse_switch, switch)? {
            c.synchronous = b;
        }
        c.test_perturb = setting("SLUICE_TEST_PERTURB", Perturb::parse, "op or op@executor")?;
        c.test_leak = setting("SLUICE_TEST_LEAK", parse_bytes, "a byte count")?;
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_counts() {
        assert_eq!(parse_bytes("1500"), Some(1500));
        assert_eq!(parse_bytes("64K"), Some(65536));
        assert_eq!(parse_bytes("2g"), Some(2 << 30));
        assert_eq!(parse_bytes("x"), None);
        assert_eq!(parse_bytes(""), None);
    }

    #[test]
    fn backends() {
        assert_eq!(Backend::parse(" Vulkan "), Some(Backend::Vulkan));
        assert_eq!(Backend::parse("cpu"), Some(Backend::Cpu));
        assert_eq!(Backend::parse("auto"), Some(Backend::Auto));
        assert_eq!(Backend::parse("gpu"), None);
    }
}
