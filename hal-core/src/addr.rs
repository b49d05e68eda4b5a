//! Address newtypes and the two address constants that must never be confused.
//!
//! [000 §2 GOTCHA]: the mesh high bit (bit 47) marks the second mesh half in the
//! base tables; the host-visible rebase (bit 35) is subtracted by the switch
//! getters to turn a device-full address into a host-visible offset. They are
//! different roles, reached here only through explicit conversions.

use crate::error::{Error, Result};

/// The mesh high bit `0x8000_0000_0000` (bit 47): second mesh half (TPB tiles
/// 4..7, HBM channels 2..3 on CAYMAN/MARIANA; MARIANA NQ mailbox blocks 4..7)
/// [000 §2], [004 §4].
pub const MESH_HIGH_BIT: u64 = 1 << 47;

/// The host-visible rebase `0x8_0000_0000` (bit 35), subtracted by the switch
/// getters when `host_visible` is asked [000 §2].
pub const HOST_VISIBLE_REBASE: u64 = 1 << 35;

/// A device-full address: what the base tables and getters return, and what
/// [`crate::Mmio`] accesses.
///
/// `Display` and `defmt::Format` print it in hex (`0x2000200000`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct DeviceAddr(pub u64);

/// A host-visible offset: a device-full address with [`HOST_VISIBLE_REBASE`]
/// subtracted [000 §2].
/// `Display` and `defmt::Format` print it in hex.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct HostVisible(pub u64);

/// Which half of a two-die mesh an address belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MeshHalf {
    /// Bit 47 clear.
    Low,
    /// Bit 47 set.
    High,
}

impl DeviceAddr {
    /// The raw value.
    #[inline(always)]
    pub const fn get(self) -> u64 {
        self.0
    }

    /// `self + off`. Device addresses are 48-bit; a sum past `u64::MAX` wraps,
    /// and the CSR layer refuses such an address as outside every window.
    #[inline(always)]
    pub const fn add(self, off: u64) -> DeviceAddr {
        DeviceAddr(self.0.wrapping_add(off))
    }

    /// `self + off`, refused with [`Error::InvalidArgument`] (`what`) past
    /// `u64::MAX` instead of wrapping.
    pub(crate) const fn checked_add(self, off: u64, what: &'static str) -> Result<DeviceAddr> {
        match self.0.checked_add(off) {
            Some(a) => Ok(DeviceAddr(a)),
            None => Err(Error::InvalidArgument(what)),
        }
    }

    /// Refuse `bytes` from `self` that do not fit below 2^64 with
    /// [`Error::InvalidArgument`] (`what`): the accesses past the top would
    /// wrap to low addresses. Every multi-access program that offsets from a
    /// caller's base checks its whole span with this before its first access.
    pub(crate) const fn check_span(self, bytes: u64, what: &'static str) -> Result<()> {
        const_try!(self.checked_add(bytes.saturating_sub(1), what));
        Ok(())
    }

    /// Which mesh half bit 47 names.
    pub const fn mesh_half(self) -> MeshHalf {
        if self.0 & MESH_HIGH_BIT != 0 {
            MeshHalf::High
        } else {
            MeshHalf::Low
        }
    }

    /// Convert to a host-visible offset by subtracting [`HOST_VISIBLE_REBASE`]
    /// [000 §2]. An address below the rebase has no host-visible form.
    pub const fn to_host_visible(self) -> Result<HostVisible> {
        match self.0.checked_sub(HOST_VISIBLE_REBASE) {
            Some(v) => Ok(HostVisible(v)),
            None => Err(Error::InvalidArgument(
                "address below the host-visible rebase",
            )),
        }
    }
}

impl HostVisible {
    /// The raw value.
    pub const fn get(self) -> u64 {
        self.0
    }

    /// Back to the device-full address (adds [`HOST_VISIBLE_REBASE`]).
    pub const fn to_device(self) -> DeviceAddr {
        DeviceAddr(self.0.wrapping_add(HOST_VISIBLE_REBASE))
    }
}

hex_fmt!(DeviceAddr: Display; "{:#x}", "{=u64:#x}");
hex_fmt!(HostVisible: Display; "{:#x}", "{=u64:#x}");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_distinct_roles() {
        assert_eq!(MESH_HIGH_BIT, 0x8000_0000_0000);
        assert_eq!(HOST_VISIBLE_REBASE, 0x8_0000_0000);
        assert_ne!(MESH_HIGH_BIT, HOST_VISIBLE_REBASE);
    }

    #[test]
    fn conversions() {
        let a = DeviceAddr(0x8_0260_0000);
        assert_eq!(a.to_host_visible(), Ok(HostVisible(0x260_0000)));
        assert_eq!(HostVisible(0x260_0000).to_device(), a);
        assert!(DeviceAddr(0x1000).to_host_visible().is_err());
        let t = DeviceAddr(0x20_0000_0000);
        assert_eq!(t.mesh_half(), MeshHalf::Low);
        assert_eq!(DeviceAddr(0x8020_0000_0000).mesh_half(), MeshHalf::High);
    }
}
