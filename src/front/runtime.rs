//! The process-wide runtime: handle table, scheduler, memory and settings. Started by
//! `sl_init` or lazily by the first call; `sl_shutdown` ends it (a later call starts a
//! new one).

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use parking_lot::{Mutex, RwLock};

use super::handles::HandleTable;
use super::rng::RngTable;
use crate::config::Config;
use crate::exec::DeviceInfo;
use crate::exec::engine::Engine;
use crate::exec::memory::HostPool;
use crate::r#gen::GenOptions;
use crate::ir::{Node, Result, bail};
use crate::sched::{SchedOptions, Scheduler};

pub struct Runtime {
    pub handles: HandleTable<Arc<Node>>,
    pub rngs: RngTable,
    pub sched: Scheduler,
    pub memory: Arc<HostPool>,
    pub config: Config,
    /// The executor chosen at start, and why.
    pub device: DeviceInfo,
}

/// Sequences that may wait for the execution thread before a flush blocks.
const ENGINE_DEPTH: usize = 16;

impl Runtime {
    fn start(config: Config) -> Result<Runtime> {
        if let Some(path) = &config.profile {
            crate::profile::begin_environment(path)?;
        }
        if let Some(bytes) = config.test_leak {
            // A block nothing points to once it is forgotten (black_box keeps the allocation
            // from being optimised away): the sanitizer builds of tests/c check it is reported.
            std::mem::forget(std::hint::black_box(vec![0u8; bytes]));
        }
        let memory = HostPool::new(config.memory_limit);
        let (executor, device) = crate::exec::start(&config, memory.clone())?;
        crate::check::configure(config.compare);
        crate::check::use_memory(memory.clone());
        let opts = SchedOptions {
            r#gen: GenOptions {
                fuse: config.fusion,
                max_kernel_ops: config.max_kernel_ops,
                store_all: false,
                perturb: config
                    .test_perturb
                    .as_ref()
                    .filter(|p| p.executor.as_deref().is_none_or(|e| e == executor.name()))
                    .map(|p| p.op.as_str().into()),
            },
            synchronous: config.synchronous,
            queue_limit: config.queue_limit,
            inline_elements: 1 << 16,
            trace_cache_entries: config.trace_cache_entries,
            explain_misses: config.explain_misses,
            macro_cache_entries: config.macro_cache_entries,
        };
        let engine = Engine::new(executor, ENGINE_DEPTH);
        Ok(Runtime {
            handles: HandleTable::new(),
            rngs: RngTable::new(),
            sched: Scheduler::new(engine, opts),
            memory,
            config,
            device,
        })
    }
}

static RUNTIME: RwLock<Option<Arc<Runtime>>> = RwLock::new(None);
/// Bumped whenever the runtime starts or stops, so threads know their cached one is stale.
static GENERATION: AtomicU64 = AtomicU64::new(0);

/// Held by `shutdown` throughout, so a second `sl_shutdown` returns only once the
/// runtime's threads have ended.
static SHUTDOWN: Mutex<()> = Mutex::new(());

thread_local! {
    /// Every call needs the runtime: each thread keeps it, saving the shared lock. Weak,
    /// so threads that made calls do not keep a shut-down runtime (its memory, device and
    /// the device driver's threads) alive.
    static CACHED: RefCell<Option<(u64, Weak<Runtime>)>> = const { RefCell::new(None) };
}

/// The running runtime, started from the environment's settings if none is.
pub fn get() -> Result<Arc<Runtime>> {
    let generation = GENERATION.load(Ordering::Acquire);
    let cached =
        CACHED.with(|c| c.borrow().as_ref().filter(|(g, _)| *g == generation).and_then(|(_, rt)| rt.upgrade()));
    if let Some(rt) = cached {
        return Ok(rt);
    }
    let running = RUNTIME.read().clone();
    let rt = match running {
        Some(rt) => rt,
        None => {
            let mut slot = RUNTIME.write();
            if slot.is_none() {
                *slot = Some(Arc::new(Runtime::start(Config::from_env()?)?));
                GENERATION.fetch_add(1, Ordering::Release);
            }
            slot.as_ref().expect("just started").clone()
        }
    };
    let generation = GENERATION.load(Ordering::Acquire);
    CACHED.with(|c| *c.borrow_mut() = Some((generation, Arc::downgrade(&rt))));
    Ok(rt)
}

/// The running runtime, if there is one (without starting one).
pub fn running() -> Option<Arc<Runtime>> {
    RUNTIME.read().clone()
}

/// Starts the runtime with explicit settings.
pub fn init(config: Config) -> Result<()> {
    let mut slot = RUNTIME.write();
    if slot.is_some() {
        bail!(InvalidState, "the runtime is already running (call sl_shutdown before sl_init)");
    }
    *slot = Some(Arc::new(Runtime::start(config)?));
    GENERATION.fetch_add(1, Ordering::Release);
    Ok(())
}

/// Finishes all work, releases every handle and stops the threads, waiting until they
/// have ended. Calls other threads make meanwhile get the runtime being stopped (their
/// work fails with `SL_ERR_INVALID_STATE` once it has stopped) or start a new one.
pub fn shutdown() {
    let _one_at_a_time = SHUTDOWN.lock();
    let rt = {
        let mut slot = RUNTIME.write();
        GENERATION.fetch_add(1, Ordering::Release);
        slot.take()
    };
    CACHED.with(|c| c.borrow_mut().take());
    if let Some(rt) = rt {
        rt.sched.sync();
        crate::profile::end_environment_profile();
        rt.handles.clear();
        rt.sched.shutdown();
    }
}
