//! khal on a host: `Mmio` backends, DMA buffers, a delay and the device model.
//!
//! - [`mmap::MmapMmio`]: a device window mapped from a file (PCI sysfs
//!   `resourceN`, `/dev/uioN`, or a plain file in tests).
//! - [`HeapMmio`]: plain memory standing in for a window (Miri runs on it).
//! - [`Counting`] and [`Trace`]: wrappers that count or record
//!   every access (golden traces).
//! - [`StdDelay`] (real sleeps), [`SimDelay`] (simulated time;
//!   its async delay yields to the executor once per wait) and, with the
//!   `tokio` feature, `TokioDelay` (tokio's timer).
//! - [`DmaBuf`]: aligned, zeroed, allocator-backed DMA memory.
//! - [`model`]: the behavioural device model the tests and `khal demo` run on
//!   (`Send + Sync`: share it with `Arc`).
//!
//! # Features
//!
//! | feature | what you get |
//! | --- | --- |
//! | (none, the default) | everything above but `TokioDelay`; khal-core's `alloc` feature is on (`?` from a refused ring into `Box<dyn Error>`) |
//! | `neuron` | the `neuron` module (Linux): the vendor driver's `/dev/neuronN` as register window, DMA memory and NQ rings, and its in-process fake |
//! | `tokio` | `TokioDelay`: the async `DelayNs` of `khal_core::asynch` on `tokio::time::sleep` |
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(missing_docs, clippy::undocumented_unsafe_blocks)]

mod counting;
mod delay;
mod dma;
mod heap;
pub mod mmap;
pub mod model;
#[cfg(all(feature = "neuron", target_os = "linux"))]
pub mod neuron;
pub mod pagemap;
mod trace;

pub use counting::Counting;
#[cfg(feature = "tokio")]
pub use delay::TokioDelay;
pub use delay::{Advance, SimClock, SimDelay, StdDelay};
pub use dma::{
    BusAddrProvider, DmaBuf, HostAllocator, Identity, ModelAllocator, ModelBuf, ModelDramBuf,
};
pub use heap::HeapMmio;
pub use trace::{Access, Op, Trace};
