//! The MPI shim (shim/mpi_shim.c, compiled with mpicc): its C ABI, and safe wrappers that
//! turn MPI error codes into errors with MPI's own text.

use std::ffi::{c_char, c_int, c_void};

use crate::error::{Error, Result};

/// The library's duplicate of the application's communicator (opaque, owned by C).
#[repr(C)]
pub struct SmComm {
    _private: [u8; 0],
}

/// A growing set of outstanding MPI requests (opaque, owned by C).
#[repr(C)]
pub struct SmRequests {
    _private: [u8; 0],
}

pub const SM_KIND_NULL: c_int = 1;
pub const SM_KIND_INTER: c_int = 2;

/// Element types of MPI reductions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MpiType {
    F64 = 0,
    I64 = 1,
    C128 = 2,
}

/// MPI reduction operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MpiOp {
    Sum = 0,
    Prod = 1,
    Min = 2,
    Max = 3,
}

unsafe extern "C" {
    fn sm_state(initialized: *mut c_int, finalized: *mut c_int) -> c_int;
    fn sm_thread_ok(ok: *mut c_int) -> c_int;
    fn sm_comm_adopt(fcomm: i32, kind: *mut c_int, out: *mut *mut SmComm) -> c_int;
    fn sm_comm_free(c: *mut SmComm, release_only: c_int) -> c_int;
    fn sm_comm_rank(c: *mut SmComm, rank: *mut c_int, size: *mut c_int) -> c_int;
    fn sm_tag_ub(c: *mut SmComm, ub: *mut c_int) -> c_int;
    fn sm_requests_new() -> *mut SmRequests;
    fn sm_requests_free(q: *mut SmRequests);
    fn sm_isend(c: *mut SmComm, q: *mut SmRequests, buf: *const c_void, bytes: c_int, dest: c_int, tag: c_int)
    -> c_int;
    fn sm_irecv(c: *mut SmComm, q: *mut SmRequests, buf: *mut c_void, bytes: c_int, src: c_int, tag: c_int) -> c_int;
    fn sm_iallreduce(
        c: *mut SmComm,
        q: *mut SmRequests,
        send: *const c_void,
        recv: *mut c_void,
        count: c_int,
        ty: c_int,
        op: c_int,
    ) -> c_int;
    fn sm_iallgatherv(
        c: *mut SmComm,
        q: *mut SmRequests,
        send: *const c_void,
        bytes: c_int,
        recv: *mut c_void,
        counts: *const c_int,
        displs: *const c_int,
    ) -> c_int;
    fn sm_igatherv(
        c: *mut SmComm,
        q: *mut SmRequests,
        send: *const c_void,
        bytes: c_int,
        recv: *mut c_void,
        counts: *const c_int,
        displs: *const c_int,
        root: c_int,
    ) -> c_int;
    fn sm_iscatterv(
        c: *mut SmComm,
        q: *mut SmRequests,
        send: *const c_void,
        counts: *const c_int,
        displs: *const c_int,
        recv: *mut c_void,
        bytes: c_int,
        root: c_int,
    ) -> c_int;
    fn sm_ialltoallv(
        c: *mut SmComm,
        q: *mut SmRequests,
        send: *const c_void,
        send_counts: *const c_int,
        send_displs: *const c_int,
        recv: *mut c_void,
        recv_counts: *const c_int,
        recv_displs: *const c_int,
    ) -> c_int;
    fn sm_ibcast(c: *mut SmComm, q: *mut SmRequests, buf: *mut c_void, bytes: c_int, root: c_int) -> c_int;
    fn sm_testall(q: *mut SmRequests, done: *mut c_int) -> c_int;
    fn sm_error_string(code: c_int, buf: *mut c_char, cap: c_int);
}

/// SL_MPI_ERR_MPI with MPI's text for `code`.
fn mpi_error(what: &str, code: c_int) -> Error {
    let mut buf = [0u8; 512];
    // SAFETY: `buf` is writable for its length; the shim NUL-terminates.
    unsafe { sm_error_string(code, buf.as_mut_ptr().cast(), buf.len() as c_int) };
    let end = buf.iter().position(|&b| b == 0).unwrap_or(buf.len());
    let text = String::from_utf8_lossy(&buf[..end]);
    Error::new(crate::api::SL_MPI_ERR_MPI, format!("{what} failed: MPI error {code}: {text}"))
}

fn mpi(what: &str, code: c_int) -> Result<()> {
    if code == 0 { Ok(()) } else { Err(mpi_error(what, code)) }
}

/// Whether MPI is initialised, and whether it is finalised.
pub fn state() -> Result<(bool, bool)> {
    let (mut init, mut fin) = (0, 0);
    // SAFETY: plain call with writable outputs (allowed before MPI_Init and after MPI_Finalize).
    mpi("MPI_Initialized", unsafe { sm_state(&mut init, &mut fin) })?;
    Ok((init != 0, fin != 0))
}

/// Whether this thread may call MPI (thread level, or the thread that initialised MPI).
pub fn thread_ok() -> Result<bool> {
    let mut ok = 0;
    // SAFETY: plain call.
    mpi("MPI_Query_thread", unsafe { sm_thread_ok(&mut ok) })?;
    Ok(ok != 0)
}

/// An element count or byte count as MPI's int.
pub fn int_count(n: usize, what: &str) -> Result<c_int> {
    c_int::try_from(n).map_err(|_| {
        Error::new(
            crate::sluice_sys::SL_ERR_NOT_SUPPORTED,
            format!("{what}: {n} bytes in one MPI message or collective, more than MPI's int counts allow (2^31 - 1)"),
        )
    })
}

/// The library's communicator: a duplicate of the application's, freed on drop.
pub struct Comm {
    raw: *mut SmComm,
    pub rank: i32,
    pub size: i32,
    pub tag_ub: i32,
}

// SAFETY: the communicator is used under the library's lock only.
unsafe impl Send for Comm {}

/// Why a Fortran communicator handle cannot be used.
pub enum Refused {
    Null,
    Inter,
}

impl Comm {
    /// Duplicates the communicator `fcomm` names (collective over it).
    pub fn adopt(fcomm: i32) -> Result<std::result::Result<Comm, Refused>> {
        let mut kind = 0;
        let mut raw = std::ptr::null_mut();
        // SAFETY: writable outputs.
        mpi("MPI_Comm_dup", unsafe { sm_comm_adopt(fcomm, &mut kind, &mut raw) })?;
        match kind {
            SM_KIND_NULL => return Ok(Err(Refused::Null)),
            SM_KIND_INTER => return Ok(Err(Refused::Inter)),
            _ => {}
        }
        let mut comm = Comm { raw, rank: 0, size: 0, tag_ub: 0 };
        // SAFETY: `raw` is the live duplicate.
        mpi("MPI_Comm_rank", unsafe { sm_comm_rank(raw, &mut comm.rank, &mut comm.size) })?;
        mpi("MPI_Comm_get_attr(MPI_TAG_UB)", unsafe { sm_tag_ub(raw, &mut comm.tag_ub) })?;
        Ok(Ok(comm))
    }

    /// Frees the duplicate (collective); after MPI_Finalize only the library's memory.
    pub fn free(mut self, mpi_alive: bool) -> Result<()> {
        let raw = std::mem::replace(&mut self.raw, std::ptr::null_mut());
        // SAFETY: `raw` is the live duplicate, freed once.
        mpi("MPI_Comm_free", unsafe { sm_comm_free(raw, c_int::from(!mpi_alive)) })
    }
}

impl Drop for Comm {
    fn drop(&mut self) {
        if !self.raw.is_null() {
            // Dropped without `free` (a timed-out context): only the memory.
            // SAFETY: `raw` is the live duplicate.
            unsafe { sm_comm_free(self.raw, 1) };
        }
    }
}

/// Outstanding requests and the buffers they read and write: both live until every
/// request has completed (`Requests::test`), so MPI never sees freed memory.
pub struct Requests {
    raw: *mut SmRequests,
    /// Buffers the requests use; a buffer's heap block never moves while they run.
    pub buffers: Vec<Vec<u8>>,
    counts: Vec<Vec<c_int>>,
    pub messages: u64,
    pub bytes: u64,
    pub collectives: u64,
}

impl Requests {
    pub fn new() -> Requests {
        // SAFETY: plain call.
        let raw = unsafe { sm_requests_new() };
        assert!(!raw.is_null(), "out of memory for MPI requests");
        Requests { raw, buffers: Vec::new(), counts: Vec::new(), messages: 0, bytes: 0, collectives: 0 }
    }

    /// Keeps `data` alive with the requests; returns its index.
    pub fn buffer(&mut self, mut data: Vec<u8>) -> usize {
        // An empty Vec's address is 1, which is OpenMPI's MPI_IN_PLACE: give it a real one.
        data.reserve(1);
        self.buffers.push(data);
        self.buffers.len() - 1
    }

    fn ints(&mut self, v: Vec<c_int>) -> *const c_int {
        self.counts.push(v);
        self.counts.last().expect("pushed").as_ptr()
    }

    pub fn isend(&mut self, comm: &Comm, buf: usize, dest: i32, tag: i32) -> Result<()> {
        let b = &self.buffers[buf];
        let n = int_count(b.len(), "MPI_Isend")?;
        self.messages += 1;
        self.bytes += b.len() as u64;
        // SAFETY: the buffer lives until the request completes.
        mpi("MPI_Isend", unsafe { sm_isend(comm.raw, self.raw, b.as_ptr().cast(), n, dest, tag) })
    }

    pub fn irecv(&mut self, comm: &Comm, buf: usize, src: i32, tag: i32) -> Result<()> {
        let b = &mut self.buffers[buf];
        let n = int_count(b.len(), "MPI_Irecv")?;
        // SAFETY: the buffer lives until the request completes.
        mpi("MPI_Irecv", unsafe { sm_irecv(comm.raw, self.raw, b.as_mut_ptr().cast(), n, src, tag) })
    }

    /// Element-wise reduction of `send` (count values of `ty`) into `recv` on every rank.
    pub fn iallreduce(
        &mut self,
        comm: &Comm,
        send: usize,
        recv: usize,
        count: usize,
        ty: MpiType,
        op: MpiOp,
    ) -> Result<()> {
        let n = int_count(count, "MPI_Iallreduce")?;
        self.collectives += 1;
        let s = self.buffers[send].as_ptr();
        let r = self.buffers[recv].as_mut_ptr();
        // SAFETY: both buffers hold `count` values of `ty` and live until completion.
        mpi("MPI_Iallreduce", unsafe {
            sm_iallreduce(comm.raw, self.raw, s.cast(), r.cast(), n, ty as c_int, op as c_int)
        })
    }

    /// Every rank's `send` bytes, rank after rank, into `recv` (on `root` only, or on every
    /// rank with `None`); `counts[q]` is rank q's byte count.
    pub fn igatherv(
        &mut self,
        comm: &Comm,
        send: usize,
        recv: usize,
        counts: &[usize],
        root: Option<i32>,
    ) -> Result<()> {
        let (counts, displs) = counts_and_displacements(counts, "MPI_Igatherv")?;
        let sn = int_count(self.buffers[send].len(), "MPI_Igatherv")?;
        self.collectives += 1;
        let c = self.ints(counts);
        let d = self.ints(displs);
        let s = self.buffers[send].as_ptr();
        let r = self.buffers[recv].as_mut_ptr();
        // SAFETY: buffers and count arrays live until completion; `recv` holds the total.
        let code = unsafe {
            match root {
                None => sm_iallgatherv(comm.raw, self.raw, s.cast(), sn, r.cast(), c, d),
                Some(root) => sm_igatherv(comm.raw, self.raw, s.cast(), sn, r.cast(), c, d, root),
            }
        };
        mpi(if root.is_none() { "MPI_Iallgatherv" } else { "MPI_Igatherv" }, code)
    }

    /// `root`'s `send` cut into `counts[q]` bytes for rank q, into every rank's `recv`.
    pub fn iscatterv(&mut self, comm: &Comm, send: usize, counts: &[usize], recv: usize, root: i32) -> Result<()> {
        let (counts, displs) = counts_and_displacements(counts, "MPI_Iscatterv")?;
        let rn = int_count(self.buffers[recv].len(), "MPI_Iscatterv")?;
        self.collectives += 1;
        let c = self.ints(counts);
        let d = self.ints(displs);
        let s = self.buffers[send].as_ptr();
        let r = self.buffers[recv].as_mut_ptr();
        // SAFETY: buffers and count arrays live until completion.
        mpi("MPI_Iscatterv", unsafe { sm_iscatterv(comm.raw, self.raw, s.cast(), c, d, r.cast(), rn, root) })
    }

    /// Rank q gets `send_counts[q]` bytes of `send` (rank after rank); `recv` gets
    /// `recv_counts[q]` bytes from rank q, rank after rank.
    pub fn ialltoallv(
        &mut self,
        comm: &Comm,
        send: usize,
        send_counts: &[usize],
        recv: usize,
        recv_counts: &[usize],
    ) -> Result<()> {
        let (sc, sd) = counts_and_displacements(send_counts, "MPI_Ialltoallv")?;
        let (rc, rd) = counts_and_displacements(recv_counts, "MPI_Ialltoallv")?;
        self.collectives += 1;
        self.bytes += send_counts.iter().sum::<usize>() as u64;
        let (sc, sd, rc, rd) = (self.ints(sc), self.ints(sd), self.ints(rc), self.ints(rd));
        let s = self.buffers[send].as_ptr();
        let r = self.buffers[recv].as_mut_ptr();
        // SAFETY: buffers and count arrays live until completion.
        mpi("MPI_Ialltoallv", unsafe { sm_ialltoallv(comm.raw, self.raw, s.cast(), sc, sd, r.cast(), rc, rd) })
    }

    pub fn ibcast(&mut self, comm: &Comm, buf: usize, root: i32) -> Result<()> {
        let n = int_count(self.buffers[buf].len(), "MPI_Ibcast")?;
        self.collectives += 1;
        let b = self.buffers[buf].as_mut_ptr();
        // SAFETY: the buffer lives until completion.
        mpi("MPI_Ibcast", unsafe { sm_ibcast(comm.raw, self.raw, b.cast(), n, root) })
    }

    /// Whether every request has completed.
    pub fn test(&mut self) -> Result<bool> {
        let mut done = 0;
        // SAFETY: plain call on the live set.
        mpi("MPI_Testall", unsafe { sm_testall(self.raw, &mut done) })?;
        Ok(done != 0)
    }

    /// Gives up on requests that never completed (after a timeout): their buffers and the
    /// request set are leaked, since MPI may still write into them.
    pub fn abandon(self) {
        std::mem::forget(self);
    }
}

impl Drop for Requests {
    fn drop(&mut self) {
        // Only completed sets are dropped (`abandon` forgets the others).
        // SAFETY: the set is live and its requests are complete.
        unsafe { sm_requests_free(self.raw) };
    }
}

/// MPI's int counts and displacements for byte counts laid end to end.
fn counts_and_displacements(counts: &[usize], what: &str) -> Result<(Vec<c_int>, Vec<c_int>)> {
    let mut at = 0usize;
    let mut c = Vec::with_capacity(counts.len());
    let mut d = Vec::with_capacity(counts.len());
    for &n in counts {
        c.push(int_count(n, what)?);
        d.push(int_count(at, what)?);
        at = at.checked_add(n).ok_or_else(|| {
            Error::new(crate::sluice_sys::SL_ERR_NOT_SUPPORTED, format!("{what}: byte count overflows"))
        })?;
    }
    int_count(at, what)?;
    Ok((c, d))
}
