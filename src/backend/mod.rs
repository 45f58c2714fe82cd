//! Executors for kinds of device; each implements `exec::Executor`.

pub mod cpu;
pub mod vulkan;
