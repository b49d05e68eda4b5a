//! One registered CSR window [000 §1]: [`CsrRegion`], its bounds check
//! (`start <= p <= end - 4`) and its translation to the inner backend.

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};

/// One registered CSR window `{start, end, device_addr, device_id}` [000 §1].
///
/// Valid accesses are the dwords at `p` with `start <= p <= end - 4` whose
/// translation is dword aligned. `Debug` and `defmt::Format` print the
/// addresses in hex.
///
/// Besides the four fields a region keeps three words, computed once, so
/// that checking and translating an access is one compare and one add:
/// `key`, its first address whose translation is aligned (`start + o`,
/// `o = (-device_addr) mod 4`); `span`, how many dwords `key + 4k <= end - 4`
/// it has; `delta`, what the translation adds (`device_addr - start`,
/// wrapping). `p` is valid exactly when `(p - key).rotate_right(2) < span`
/// (wrapping): a misaligned remainder rotates into the top bits and a `p`
/// below the key wraps past every span.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct CsrRegion {
    pub(super) start: u64,
    pub(super) end: u64,
    pub(super) device_addr: u64,
    pub(super) device_id: u32,
    pub(super) key: u64,
    span: u64,
    delta: u64,
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
        let bad = match e.checked_sub(s) {
            None | Some(0) => "csr region: end must be above start",
            Some(1..4) => "csr region: window smaller than one dword",
            Some(len) if d.checked_add(len).is_none() => {
                "csr region: device_addr + window length overflows"
            }
            Some(_) => return Ok(Self::words(s, e, d, device_id)),
        };
        Err(Error::InvalidArgument(bad))
    }

    /// The region with its lookup words (`e - s >= 4 > o`: nothing wraps).
    pub(super) const fn words(s: u64, e: u64, d: u64, device_id: u32) -> Self {
        let o = d.wrapping_neg() & 3;
        CsrRegion {
            start: s,
            end: e,
            device_addr: d,
            device_id,
            key: s + o,
            span: (e - s - o) / 4,
            delta: d.wrapping_sub(s),
        }
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
    pub(super) const fn holds(&self, p: DeviceAddr) -> bool {
        self.start <= p.get() && p.get() < self.end
    }

    /// The inner-backend address of a dword access at `p`, if
    /// `start <= p <= end - 4` [000 §1] and the result is dword-aligned;
    /// otherwise [`Error::OutOfWindow`].
    pub fn translate(&self, p: DeviceAddr) -> Result<DeviceAddr> {
        self.dword(p.get()).ok_or(Error::out_of_window(p.get()))
    }

    /// [`Self::translate`] as one compare (see the type docs).
    pub(super) fn dword(&self, a: u64) -> Option<DeviceAddr> {
        let t = a.wrapping_sub(self.key).rotate_right(2);
        (t < self.span).then_some(DeviceAddr(a.wrapping_add(self.delta)))
    }

    /// What the translation adds.
    pub(super) const fn delta(&self) -> u64 {
        self.delta
    }

    /// Validate `n >= 1` consecutive dwords from `p` against this window and
    /// return the inner address of the first; the refusal names `p` (also
    /// for a run wrapping past `u64::MAX`), else the run's last dword. The
    /// first and the last dword are enough: the window is contiguous. `n` in
    /// 64 bits: a window resolved once may hold more dwords than a 32-bit
    /// `usize` counts.
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

/// The unused slots of a [`RegionTable`](super::RegionTable): all zero, so
/// they sort below every region and never match (span 0).
pub(super) const EMPTY_SLOT: CsrRegion = CsrRegion::words(0, 0, 0, 0);

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
