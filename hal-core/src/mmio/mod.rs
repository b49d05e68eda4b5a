//! The `Mmio` abstraction: 32-bit register access at a device address.
//!
//! Drivers are generic over [`Mmio`](crate::Mmio); they never hold a `&` into device memory.
//! Backends: [`VolatileWindow`] (firmware, direct volatile access; its bound
//! handles, [`BoundBlock`] and [`BoundReg`], check once at bind time and then
//! access through a plain pointer, the firmware's hot path), and in
//! `khal-std` an mmap window, a heap window, the device model, and the
//! `Counting` / `Trace` wrappers. Accesses take `&self` because a register
//! window is shared by every driver of a device, exactly as the hardware is.

pub(crate) mod access;
mod bound;
mod volatile;

pub use bound::{BoundBlock, BoundReg};
pub use volatile::VolatileWindow;
