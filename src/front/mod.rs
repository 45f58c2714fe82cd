//! The front end: handles, scopes, and building the graph from calls.

pub mod apply;
mod arith;
pub mod assign;
mod complex;
mod factor;
mod fft;
pub mod gather;
pub mod graph;
mod half;
pub mod handles;
pub mod host;
pub mod linalg;
pub mod random;
pub mod rng;
pub mod runtime;
pub mod scope;
mod shapes;
mod sort;
pub mod stats;

pub use graph::Graph;
pub use host::HostOrder;
pub use shapes::Indexing;
