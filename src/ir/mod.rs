//! The graph: nodes are operations on typed, shaped values. Depends on nothing else in
//! the crate and knows nothing of backends.

pub mod dtype;
pub mod error;
pub mod factor;
pub mod half;
pub mod kernel;
pub mod node;
pub mod op;
pub mod random;
pub mod shape;
pub mod site;
pub mod slices;
pub mod sort;
pub mod view;

pub use dtype::{DType, Scalar, ScalarKind};
pub(crate) use error::bail;
pub use error::{Error, ErrorKind, Result};
pub use factor::{FactorOp, QrMode, Trans};
pub use node::{Inputs, Layout, Node, NodeState, Promise, Storage, Value, clone_pending};
pub use op::{BinaryOp, FftKind, FftNorm, FftSpec, Op, ReduceOp, ScanOp, ScatterMode, Semiring, UnaryOp};
pub use random::{Distribution, RngKind};
pub use shape::{MAX_RANK, Shape};
pub use site::CallSite;
pub use sort::SortOp;
pub use view::{Boundary, Map, MapStep, Placement, ViewStep, window_out_dim};
