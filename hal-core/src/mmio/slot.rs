//! [`MmioSlot`]: a register address checked once by an [`Mmio`](super::Mmio) backend, so
//! that a hot register (an NQ's head) is not checked again on every access.
//!
//! The address-based [`Mmio`](super::Mmio) path checks each access against the backend's
//! window (on `VolatileWindow`: a 64-bit subtract, a rotate and a compare).
//! [`Mmio::slot`](super::Mmio::slot) does that work once and keeps the result; [`Mmio::write_slot`](super::Mmio::write_slot)
//! and [`Mmio::read_slot`](super::Mmio::read_slot) then access the register through it. The trait's
//! defaults keep the address: a backend that does not override them (the
//! `Counting` and `Trace` wrappers, the device model, `Csr`) performs and
//! records exactly the accesses it always did, through `write32` / `read32`.
//! `VolatileWindow` overrides all three: its slot is the register's dword
//! index, and an access through it is one compare and the store or load.

use crate::addr::DeviceAddr;

/// A register address and what the backend that made it
/// ([`Mmio::slot`](super::Mmio::slot)) checked about it: for
/// [`VolatileWindow`](super::volatile::VolatileWindow), the dword index in
/// its window; for a backend with no slot of its own, nothing (the access
/// goes through the address).
///
/// A slot belongs to the backend that made it. Handed to another backend, an
/// access never leaves that backend's window (it is checked against it) but
/// may reach its dword of the same index instead of the slot's address.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct MmioSlot {
    addr: DeviceAddr,
    index: usize,
}

impl MmioSlot {
    /// A slot with nothing checked: every access goes through `addr` (the
    /// default of [`Mmio::slot`](super::Mmio::slot)).
    #[inline(always)]
    pub const fn unchecked(addr: DeviceAddr) -> MmioSlot {
        MmioSlot {
            addr,
            index: usize::MAX,
        }
    }

    /// The slot of `addr`, which the backend found at `index` (its own
    /// meaning; `usize::MAX` is [`MmioSlot::unchecked`]'s).
    #[inline(always)]
    pub const fn new(addr: DeviceAddr, index: usize) -> MmioSlot {
        MmioSlot { addr, index }
    }

    /// The register's device address.
    #[inline(always)]
    pub const fn addr(&self) -> DeviceAddr {
        self.addr
    }

    /// The backend's index of the register (`usize::MAX`: none).
    #[inline(always)]
    pub const fn index(&self) -> usize {
        self.index
    }
}
