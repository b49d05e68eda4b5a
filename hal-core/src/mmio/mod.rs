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
pub mod slot;
pub mod volatile;

pub use slot::MmioSlot;

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

    /// Check `addr` once for the accesses of [`Mmio::write_slot`] and
    /// [`Mmio::read_slot`] (a register written on every call of a hot path:
    /// an NQ's head). Never fails and accesses nothing: an address the
    /// backend refuses is refused by each access, as [`Mmio::write32`] does.
    ///
    /// The default keeps the address alone ([`MmioSlot::unchecked`]), so the
    /// accesses are [`Mmio::write32`] / [`Mmio::read32`]; a backend with a
    /// cheaper access to a checked register overrides all three methods.
    #[inline(always)]
    fn slot(&self, addr: DeviceAddr) -> MmioSlot {
        MmioSlot::unchecked(addr)
    }

    /// Write `value` to the register of `slot` (one device access, as
    /// [`Mmio::write32`] at `slot.addr()`, with its errors). The default is
    /// exactly that call.
    #[inline(always)]
    fn write_slot(&self, slot: MmioSlot, value: u32) -> Result<()> {
        self.write32(slot.addr(), value)
    }

    /// Read the register of `slot` (one device access, as [`Mmio::read32`]
    /// at `slot.addr()`, with its errors). The default is exactly that call.
    #[inline(always)]
    fn read_slot(&self, slot: MmioSlot) -> Result<u32> {
        self.read32(slot.addr())
    }

    /// [`Mmio::write_slot`] when the backend reaches the slot's register
    /// without a fallback (a slot it checked itself): written, `true`.
    /// Otherwise `false`, and nothing is accessed: the caller then writes
    /// through [`Mmio::write_slot`] (the fallback, the errors). For a hot
    /// path that keeps its fallback out of line, so that the path itself
    /// calls nothing (the NQ drain's head write on bare metal, issue 12).
    /// The default accesses nothing.
    #[inline(always)]
    fn write_slot_direct(&self, slot: MmioSlot, value: u32) -> bool {
        let _ = (slot, value);
        false
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
    #[inline(always)]
    fn slot(&self, addr: DeviceAddr) -> MmioSlot {
        (**self).slot(addr)
    }
    #[inline(always)]
    fn write_slot(&self, slot: MmioSlot, value: u32) -> Result<()> {
        (**self).write_slot(slot, value)
    }
    #[inline(always)]
    fn read_slot(&self, slot: MmioSlot) -> Result<u32> {
        (**self).read_slot(slot)
    }
    #[inline(always)]
    fn write_slot_direct(&self, slot: MmioSlot, value: u32) -> bool {
        (**self).write_slot_direct(slot, value)
    }
}
