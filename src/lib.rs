//! Sluice: a data-parallel array runtime with a C ABI.
//!
//! Applications hold handles to arrays and call operations on them; Sluice records the
//! calls, fuses them into few kernels when a result is needed, and runs the kernels on
//! a threaded CPU executor. See `DESIGN.md` in the project's shared folder for the
//! architecture; each module's documentation says what it is responsible for.

// Loops over dimensions index several per-dimension arrays at once; indices read best.
#![allow(clippy::needless_range_loop)]

/// Graph nodes are made on the application's thread and freed on the execution thread;
/// mimalloc frees across threads without the lock contention of the system allocator.
#[global_allocator]
static ALLOCATOR: allocator::Allocator = allocator::Allocator;

mod allocator;
pub mod api;
pub mod backend;
pub mod check;
pub mod config;
pub mod exec;
pub mod front;
pub mod r#gen;
pub mod ir;
pub mod profile;
pub mod sched;

pub use api::apply::*;
pub use api::array::*;
pub use api::assign::*;
pub use api::complex::*;
pub use api::debug::*;
pub use api::elementwise::*;
pub use api::factor::*;
pub use api::fft::*;
pub use api::macros::*;
pub use api::movement::*;
pub use api::random::*;
pub use api::reduce::*;
pub use api::runtime::*;
pub use api::shapes::*;
pub use api::sort::*;
pub use api::types::*;
