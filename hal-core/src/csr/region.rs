//! One registered CSR window [000 §1]: [`CsrRegion`], its bounds check
//! (`start <= p <= end - 4`) and its translation to the inner backend.

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};

/// One registered CSR window `{start, end, device_addr, device_id}` [000 §1].
///
/// Valid accesses are the dwords at `p` with `start <= p <= end - 4`.
/// `Debug` and `defmt::Format` print the addresses in hex.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct CsrRegion {
    pub(super) start: u64,
    pub(super) end: u64,
    pub(super) device_addr: u64,
    pub(super) device_id: u32,
}

impl CsrRegion {
    /// A window `[start, end)` forwarded to `device_addr` of the inner backend,
    /// belonging to device `device_id`.
    ///
    /// Refused with [`Error::InvalidArgument`]: an empty or inverted window
    /// (`end <= start`), a window smaller than one dword (no valid access would
    /// exist), and a `device_addr` whose window would wrap past `u64::MAX`.
    pub const fn new(
        start: DeviceAddr,
        end: DeviceAddr,
        device_addr: DeviceAddr,
        device_id: u32,
    ) -> Result<Self> {
        let (s, e, d) = (start.get(), end.get(), device_addr.get());
        if e <= s {
            return Err(Error::InvalidArgument(
                "csr region: end must be above start",
            ));
        }
        let len = e - s;
        if len < 4 {
            return Err(Error::InvalidArgument(
                "csr region: window smaller than one dword",
            ));
        }
        if d.checked_add(len).is_none() {
            return Err(Error::InvalidArgument(
                "csr region: device_addr + window length overflows",
            ));
        }
        Ok(CsrRegion {
            start: s,
            end: e,
            device_addr: d,
            device_id,
        })
    }

    /// An identity-mapped window: `device_addr == start`.
    pub const fn identity(start: DeviceAddr, end: DeviceAddr, device_id: u32) -> Result<Self> {
        CsrRegion::new(start, end, start, device_id)
    }

    /// Window start (inclusive).
    pub const fn start(&self) -> DeviceAddr {
        DeviceAddr(self.start)
    }

    /// Window end (exclusive).
    pub const fn end(&self) -> DeviceAddr {
        DeviceAddr(self.end)
    }

    /// Where `start` sits in the inner backend's address space.
    pub const fn device_addr(&self) -> DeviceAddr {
        DeviceAddr(self.device_addr)
    }

    /// The owning device's id.
    pub const fn device_id(&self) -> u32 {
        self.device_id
    }

    /// `true` if `[start, end)` holds `p`: the lookup test of the C
    /// `find_region_for` [000 §1]. Not the access check (see [`Self::translate`]).
    #[inline]
    pub const fn holds(&self, p: DeviceAddr) -> bool {
        self.start <= p.get() && p.get() < self.end
    }

    /// The inner-backend address of a dword access at `p`, if
    /// `start <= p <= end - 4` [000 §1] and the result is dword-aligned;
    /// otherwise [`Error::OutOfWindow`].
    ///
    #[inline]
    pub const fn translate(&self, p: DeviceAddr) -> Result<DeviceAddr> {
        let a = p.get();
        // `end - start >= 4` is an invariant of `new`, so `end - 4` cannot wrap.
        if a < self.start || a > self.end - 4 {
            return Err(Error::out_of_window(a));
        }
        // Cannot overflow: `device_addr + (end - start)` was checked by `new`.
        let d = self.device_addr + (a - self.start);
        if !d.is_multiple_of(4) {
            return Err(Error::out_of_window(a));
        }
        Ok(DeviceAddr(d))
    }

    /// The translation of a `p` that [`Self::translate`] already accepted
    /// (the array forms validate the whole batch first, then access): the
    /// same address, without checking again.
    #[inline]
    pub(super) const fn translate_validated(&self, p: DeviceAddr) -> DeviceAddr {
        DeviceAddr(
            self.device_addr
                .wrapping_add(p.get().wrapping_sub(self.start)),
        )
    }

    /// Validate `n >= 1` consecutive dwords from `p` against this window and
    /// return the inner address of the first. Checking the first and the last
    /// dword is enough: the window is contiguous. `n` in 64 bits: a window
    /// resolved once may hold more dwords than a 32-bit `usize` counts.
    pub(super) fn translate_run(&self, p: DeviceAddr, n: u64) -> Result<DeviceAddr> {
        let first = self.translate(p)?;
        let last = n
            .checked_sub(1)
            .and_then(|k| k.checked_mul(4))
            .and_then(|off| p.get().checked_add(off))
            .ok_or(Error::out_of_window(p.get()))?;
        self.translate(DeviceAddr(last))?;
        Ok(first)
    }
}

/// A placeholder for the unused slots of a [`RegionTable`]: never returned,
/// never matched (its fast-path `span` is 0, see [`RegionTable`]). All zero,
/// as every unused slot is.
pub(super) const EMPTY_SLOT: CsrRegion = CsrRegion {
    start: 0,
    end: 0,
    device_addr: 0,
    device_id: 0,
};

/// The window's addresses in hex.
impl core::fmt::Debug for CsrRegion {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "CsrRegion {{ start: {:#x}, end: {:#x}, device_addr: {:#x}, device_id: {} }}",
            self.start, self.end, self.device_addr, self.device_id
        )
    }
}

/// The window's addresses in hex, as `Debug` prints them.
#[cfg(feature = "defmt")]
impl defmt::Format for CsrRegion {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(
            f,
            "CsrRegion {{ start: {=u64:#x}, end: {=u64:#x}, device_addr: {=u64:#x}, device_id: {=u32} }}",
            self.start,
            self.end,
            self.device_addr,
            self.device_id
        )
    }
}
