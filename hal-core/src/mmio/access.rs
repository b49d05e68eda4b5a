//! The `Mmio` trait, re-exported at the crate root (`khal_core::Mmio`).

use super::volatile::VolatileWindow;
use crate::addr::DeviceAddr;
use crate::error::Result;

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
