//! libsluice_mpi: distributed Sluice arrays over MPI, a C library on top of libsluice.
//!
//! A distributed array has a global shape and is split in blocks along one dimension over
//! the ranks of a communicator (or replicated); each rank's block is an ordinary Sluice
//! array, so local work fuses, is cached and runs on the local executor. Operations
//! without communication are Sluice calls at once (deferred by Sluice as always);
//! operations that communicate are nodes of a distributed graph, evaluated in waves when
//! a read needs them (eval.rs). docs/internals.md, "Distributed arrays", has the design.
//!
//! Modules: `api` (the C ABI), `context` (state, agreement, waits), `graph` (nodes and
//! handles), `ops` (each call's checks and nodes), `eval` (waves), `comm` (what each
//! communication sends and receives), `pieces` (a rank's part in pieces during a wave),
//! `dist` (the block rule), `scope` (scopes of handles), `shim` (MPI, through shim/mpi_shim.c), `sluice_sys`
//! (libsluice's C API), `error`.

pub mod api;
mod comm;
mod context;
mod dist;
mod error;
mod eval;
mod graph;
mod ops;
mod pieces;
mod scope;
mod shim;
mod sluice_sys;
