//! The `Mmio` abstraction: 32-bit register access at a device address.
//!
//! Drivers are generic over [`Mmio`]; they never hold a `&` into device memory.
//! Backends: [`volatile::VolatileWindow`] (firmware, direct volatile access;
//! its [`bound`] handles check once at bind time and then access through a
//! plain pointer, the firmware's hot path), and in `khal-std` an mmap window,
//! a heap window, the device model, and the `Counting` / `Trace` wrappers.
//! Accesses take `&self` because a register window is shared by every driver
//! of a device, exactly as the hardware is.

pub mod bound;
pub mod volatile;

use crate::addr::DeviceAddr;
use crate::error::Result;
use volatile::VolatileWindow;

/// 32-bit MMIO at device addresses.
///
/// Implementations must perform exactly one device access per call, in call
/// order: golden traces and the C runtime's write order depend on it. Every
/// access names its address and is checked by the backend: nothing a caller
/// builds reaches a register unchecked.
pub trait Mmio {
    /// Read the dword at `addr`.
    fn read32(&self, addr: DeviceAddr) -> Result<u32>;

    /// Write `value` to the dword at `addr`.
    fn write32(&self, addr: DeviceAddr, value: u32) -> Result<()>;

    /// Burst-write consecutive dwords starting at `addr` (the `axi_write` path
    /// [000 §1]). The default is one [`Mmio::write32`] per word; backends with a
    /// real burst override it. There is deliberately no burst read [000 §1 QUIRK].
    fn write_burst(&self, addr: DeviceAddr, words: &[u32]) -> Result<()> {
        let mut a = addr;
        for &w in words {
            self.write32(a, w)?;
            a = a.add(4);
        }
        Ok(())
    }

    /// The mapped window this backend is, if it is one (`None` by default).
    ///
    /// Why a fourth method: a [`CsrWindow`](crate::csr::CsrWindow) resolved
    /// over a mapped window becomes a part of that window answering the CSR
    /// addresses, so its accesses are checked once instead of by the CSR
    /// window and then again by the inner one. A wrapper that records or
    /// counts accesses (`Trace`, `Counting`) keeps the default, so it still
    /// sees every access.
    fn as_volatile(&self) -> Option<&VolatileWindow> {
        None
    }
}

impl<M: Mmio + ?Sized> Mmio for &M {
    fn read32(&self, addr: DeviceAddr) -> Result<u32> {
        (**self).read32(addr)
    }
    fn write32(&self, addr: DeviceAddr, value: u32) -> Result<()> {
        (**self).write32(addr, value)
    }
    fn write_burst(&self, addr: DeviceAddr, words: &[u32]) -> Result<()> {
        (**self).write_burst(addr, words)
    }
    fn as_volatile(&self) -> Option<&VolatileWindow> {
        (**self).as_volatile()
    }
}
