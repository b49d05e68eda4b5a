//! khal on a host: `Mmio` backends, DMA buffers, a delay and the device model.
//!
//! - [`mmap::MmapMmio`]: a device window mapped from a file (PCI sysfs
//!   `resourceN`, `/dev/uioN`, or a plain file in tests).
//! - [`heap::HeapMmio`]: plain memory standing in for a window (Miri runs on it).
//! - [`counting::Counting`] and [`trace::Trace`]: wrappers that count or record
//!   every access (golden traces).
//! - [`delay::StdDelay`] (real sleeps), [`delay::SimDelay`] (simulated time;
//!   its async delay yields to the executor once per wait) and, with the
//!   `tokio` feature, `delay::TokioDelay` (tokio's timer).
//! - [`dma::DmaBuf`]: aligned, zeroed, allocator-backed DMA memory.
//! - [`model`]: the behavioural device model the tests and `khal demo` run on
//!   (`Send + Sync`: share it with `Arc`).
//!
//! # Features
//!
//! | feature | what you get |
//! | --- | --- |
//! | (none, the default) | everything above but `TokioDelay`; khal-core's `alloc` feature is on (`?` from a refused ring into `Box<dyn Error>`) |
//! | `tokio` | `delay::TokioDelay`: the async `DelayNs` of `khal_core::asynch` on `tokio::time::sleep` |
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs, clippy::undocumented_unsafe_blocks)]

pub mod counting;
pub mod delay;
pub mod dma;
pub mod heap;
pub mod mmap;
pub mod model;
pub mod pagemap;
pub mod trace;

pub use counting::Counting;
#[cfg(feature = "tokio")]
pub use delay::TokioDelay;
pub use delay::{SimDelay, StdDelay};
pub use dma::DmaBuf;
pub use heap::HeapMmio;
pub use trace::Trace;
