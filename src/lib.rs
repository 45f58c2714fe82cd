//! Sluice: a data-parallel array runtime with a C ABI.
