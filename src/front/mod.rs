//! The front end: handles, scopes, and building the graph from calls.

pub mod assign;
mod complex;
mod factor;
mod fft;
pub mod graph;
pub mod handles;
pub mod host;
pub mod linalg;
pub mod rng;
pub mod runtime;
pub mod scope;
pub mod stats;

pub use graph::Graph;
pub use host::HostOrder;
