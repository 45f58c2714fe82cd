//! The library's state between sl_mpi_init and sl_mpi_finalize: the communicator, the
//! distributed graph, settings and counters, behind one lock. Also the two steps every
//! communication takes: the agreement (do all ranks make the same call, and did any fail
//! before communicating?) and the wait (with a timeout naming the operation).

use std::hash::{Hash, Hasher};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::api::{SL_MPI_ERR_RANKS_DISAGREE, SL_MPI_ERR_REMOTE, SL_MPI_ERR_TIMEOUT};
use crate::error::{Error, Result, bail};
use crate::graph::Graph;
use crate::shim::{self, Comm, MpiOp, MpiType, Requests};
use crate::sluice_sys::SL_ERR_INVALID_STATE;

#[derive(Default, Clone, Copy)]
pub struct Stats {
    pub evaluations: u64,
    pub messages: u64,
    pub bytes: u64,
    pub collectives: u64,
    pub agreements: u64,
    pub overlapped: u64,
    pub wait_seconds: f64,
    pub agreement_seconds: f64,
}

pub struct Context {
    pub comm: Comm,
    pub graph: Graph,
    /// How long a communication may take before it is reported (`None`: forever).
    pub timeout: Option<Duration>,
    /// Set when a communication timed out: its requests are still outstanding, so the
    /// communicator's state is unknown and nothing more is sent.
    pub broken: Option<String>,
    next_tag: i32,
    pub stats: Stats,
    /// Whether a wave starts its local pieces before waiting for its messages
    /// (`SLUICE_MPI_OVERLAP=0` turns it off, to measure what the overlap gains).
    pub overlap: bool,
}

static CONTEXT: Mutex<Option<Context>> = Mutex::new(None);

/// The default timeout: `SLUICE_MPI_TIMEOUT` seconds (0: none), else 300 s.
fn default_timeout() -> Option<Duration> {
    let secs = std::env::var("SLUICE_MPI_TIMEOUT").ok().and_then(|v| v.trim().parse::<f64>().ok()).unwrap_or(300.0);
    (secs > 0.0 && secs.is_finite()).then(|| Duration::from_secs_f64(secs))
}

fn lock() -> std::sync::MutexGuard<'static, Option<Context>> {
    CONTEXT.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Checks MPI's state for a call that communicates.
fn check_mpi() -> Result<()> {
    let (initialized, finalized) = shim::state()?;
    if finalized {
        bail!(
            SL_ERR_INVALID_STATE,
            "MPI has been finalised: distributed arrays cannot communicate after MPI_Finalize (call sl_mpi_finalize before it)"
        );
    }
    if !initialized {
        bail!(SL_ERR_INVALID_STATE, "MPI is not initialised: call MPI_Init, then sl_mpi_init");
    }
    if !shim::thread_ok()? {
        bail!(
            SL_ERR_INVALID_STATE,
            "this thread may not call MPI: MPI was initialised below MPI_THREAD_SERIALIZED and this is not the thread that initialised it"
        );
    }
    Ok(())
}

/// Starts the library on the communicator the Fortran handle `fcomm` names.
pub fn init(fcomm: i32) -> Result<()> {
    let mut guard = lock();
    if guard.is_some() {
        bail!(SL_ERR_INVALID_STATE, "sl_mpi_init was called already (sl_mpi_finalize first to start again)");
    }
    check_mpi()?;
    let comm = match Comm::adopt(fcomm)? {
        Ok(c) => c,
        Err(shim::Refused::Null) => bail!(
            crate::sluice_sys::SL_ERR_INVALID_ARGUMENT,
            "the communicator is MPI_COMM_NULL or names no communicator (pass MPI_COMM_WORLD or a communicator of the application)"
        ),
        Err(shim::Refused::Inter) => bail!(
            crate::sluice_sys::SL_ERR_INVALID_ARGUMENT,
            "the communicator is an intercommunicator: distributed arrays need an intracommunicator (one group of ranks)"
        ),
    };
    crate::error::set_place(Some((comm.rank, comm.size)));
    *guard = Some(Context {
        comm,
        graph: Graph::default(),
        timeout: default_timeout(),
        broken: None,
        next_tag: 0,
        stats: Stats::default(),
        overlap: std::env::var("SLUICE_MPI_OVERLAP").map_or(true, |v| v.trim() != "0"),
    });
    Ok(())
}

/// Runs `f` on the context of a call that may communicate.
pub fn with<R>(f: impl FnOnce(&mut Context) -> Result<R>) -> Result<R> {
    let mut guard = lock();
    let Some(ctx) = guard.as_mut() else {
        bail!(SL_ERR_INVALID_STATE, "the library is not initialised: call sl_mpi_init (after MPI_Init)");
    };
    check_mpi()?;
    if let Some(why) = &ctx.broken {
        bail!(SL_ERR_INVALID_STATE, "{why}; the library cannot communicate any more: call sl_mpi_finalize");
    }
    f(ctx)
}

/// Runs `f` on the context of a call that never communicates (handles, settings): also
/// after MPI_Finalize or a timeout.
pub fn with_local<R>(f: impl FnOnce(&mut Context) -> Result<R>) -> Result<R> {
    let mut guard = lock();
    let Some(ctx) = guard.as_mut() else {
        bail!(SL_ERR_INVALID_STATE, "the library is not initialised: call sl_mpi_init (after MPI_Init)");
    };
    f(ctx)
}

/// Ends the library: agrees with the other ranks, releases every array and frees the
/// communicator. After MPI_Finalize (or a timeout) it only releases what it holds.
pub fn finalize() -> Result<()> {
    let mut guard = lock();
    let Some(mut ctx) = guard.take() else {
        bail!(SL_ERR_INVALID_STATE, "the library is not initialised: sl_mpi_finalize without sl_mpi_init");
    };
    crate::error::set_place(None);
    ctx.graph.clear();
    let (_, finalized) = shim::state()?;
    if finalized {
        drop(ctx);
        bail!(
            SL_ERR_INVALID_STATE,
            "MPI was finalised before sl_mpi_finalize: the library's arrays are released, its communicator only forgotten (call sl_mpi_finalize before MPI_Finalize)"
        );
    }
    if ctx.broken.is_some() {
        return Ok(());
    }
    let agreed = ctx.agree("sl_mpi_finalize", &["sl_mpi_finalize".to_string()], None);
    let Context { comm, .. } = ctx;
    agreed?;
    comm.free(true)
}

/// A description cut to a length a message can carry (descriptions are ASCII).
fn shortened(mut s: String) -> String {
    if s.len() > 400 {
        s.truncate(400);
        s.push_str("...");
    }
    s
}

impl Context {
    pub fn rank(&self) -> i32 {
        self.comm.rank
    }

    pub fn size(&self) -> i32 {
        self.comm.size
    }

    /// A tag for one operation's messages: the same on every rank, since every rank
    /// evaluates the same operations in the same order.
    pub fn tag(&mut self) -> i32 {
        self.next_tag = if self.next_tag >= self.comm.tag_ub { 0 } else { self.next_tag + 1 };
        self.next_tag
    }

    /// Waits until `reqs` completes. On a timeout the requests are abandoned (their
    /// buffers leaked: MPI may still use them) and the library stops communicating.
    pub fn wait(&mut self, mut reqs: Requests, function: &str, what: &str) -> Result<Requests> {
        let start = Instant::now();
        let mut pause = Duration::from_micros(1);
        loop {
            if reqs.test()? {
                break;
            }
            if let Some(limit) = self.timeout
                && start.elapsed() > limit
            {
                reqs.abandon();
                let why = format!(
                    "{function}: {what} did not complete within {:.3} s: a rank did not make the same call (it failed, stopped, or makes different calls; every rank must make the same sl_mpi calls in the same order)",
                    limit.as_secs_f64()
                );
                self.broken = Some(format!("an earlier communication timed out ({what} in {function})"));
                return Err(Error::new(SL_MPI_ERR_TIMEOUT, why));
            }
            // Poll (MPI progresses inside MPI calls) without taking a core from the
            // Sluice workers computing meanwhile.
            if pause < Duration::from_micros(50) {
                std::thread::yield_now();
            } else {
                std::thread::sleep(pause);
            }
            pause = (pause * 2).min(Duration::from_micros(100));
        }
        self.stats.wait_seconds += start.elapsed().as_secs_f64();
        self.stats.messages += reqs.messages;
        self.stats.bytes += reqs.bytes;
        self.stats.collectives += reqs.collectives;
        Ok(reqs)
    }

    /// Every rank states what it is about to communicate (`work`, the same on every rank
    /// in a correct program, whichever call triggered it) and whether it failed before (`failure`). Returns the local
    /// failure, or a failure of another rank, or a disagreement, on every rank alike:
    /// nothing has been sent when any is reported.
    pub fn agree(&mut self, function: &str, work: &[String], failure: Option<Error>) -> Result<()> {
        let mut h = std::hash::DefaultHasher::new();
        work.hash(&mut h);
        let signature = h.finish() as i64;
        let (rank, size) = (i64::from(self.rank()), i64::from(self.size()));
        let failed = failure.is_some();
        // Maxima of: the signature and its complement (so its minimum), and the first and
        // last failing rank.
        let mine = [signature, !signature, if failed { size - rank } else { 0 }, if failed { rank + 1 } else { 0 }];
        let mut reqs = Requests::new();
        let send = reqs.buffer(mine.iter().flat_map(|v| v.to_ne_bytes()).collect());
        let recv = reqs.buffer(vec![0u8; 32]);
        reqs.iallreduce(&self.comm, send, recv, 4, MpiType::I64, MpiOp::Max)?;
        let what = shortened(format!("the agreement (MPI_Iallreduce) before {}", work.join("; ")));
        let waited = self.stats.wait_seconds;
        let began = Instant::now();
        let reqs = self.wait(reqs, function, &what)?;
        // Counted apart from the operations' own waits: it is mostly the ranks' arrival.
        self.stats.wait_seconds = waited;
        self.stats.agreement_seconds += began.elapsed().as_secs_f64();
        self.stats.agreements += 1;
        let all: Vec<i64> =
            reqs.buffers[recv].chunks_exact(8).map(|c| i64::from_ne_bytes(c.try_into().expect("8 bytes"))).collect();
        if let Some(e) = failure {
            return Err(e);
        }
        if all[2] > 0 {
            let (first, last) = (size - all[2], all[3] - 1);
            let which = if first == last { format!("rank {first}") } else { format!("ranks {first} to {last} (some)") };
            bail!(
                SL_MPI_ERR_REMOTE,
                "{function}: {which} failed in this call (see the message there); nothing was communicated"
            );
        }
        if all[0] != !all[1] {
            let mine = shortened(work.join("; "));
            bail!(
                SL_MPI_ERR_RANKS_DISAGREE,
                "{function}: the ranks disagree about this call: every rank must make the same sl_mpi calls in the same order, with the same global shapes, distributions and options (this rank: {mine})"
            );
        }
        Ok(())
    }
}
