//! The region table of [000 §1]: [`RegionTable`], sorted, fixed capacity,
//! with the precomputed words of its one lookup.

use super::region::{CsrRegion, EMPTY_SLOT};
use crate::addr::DeviceAddr;
use crate::error::{Error, Result};

/// The registered regions of one device: at most `N`, sorted by `start`,
/// never overlapping [000 §1].
///
/// A dword access at `p` is one binary search and one compare: the region
/// to test is the last whose `key` (its first address with an aligned
/// translation, see [`CsrRegion`]) is at or below `p` (`partition_point`),
/// and `p` is valid exactly when that region's one compare accepts it. A
/// valid `p` is never missed (its region has the last key at or below it),
/// so a failed compare is a refusal, and only then is the exact error worked
/// out ([`Self::find`], then [`CsrRegion::translate`]). A binary search
/// rather than a scan: at 8 and 16 slots it tests 3 and 4 keys where a scan
/// tests up to 16 (figures in `docs/PERFORMANCE.md`).
///
/// The used slots are the last `len`; the unused ones come first and are all
/// zero (they sort below every key and never match). A new table is one zero
/// fill, and inserting moves slots one by one, so no `memmove` is linked
/// into firmware.
#[derive(Clone)]
pub struct RegionTable<const N: usize> {
    regions: [CsrRegion; N],
    len: usize,
}

impl<const N: usize> core::fmt::Debug for RegionTable<N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RegionTable")
            .field("regions", &self.as_slice())
            .field("capacity", &N)
            .finish()
    }
}

impl<const N: usize> Default for RegionTable<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> RegionTable<N> {
    /// An empty table.
    pub const fn new() -> Self {
        RegionTable {
            regions: [EMPTY_SLOT; N],
            len: 0,
        }
    }

    /// Index of the first used slot.
    fn first(&self) -> usize {
        N.saturating_sub(self.len)
    }

    /// Register `region`, keeping the table sorted.
    ///
    /// Refused: a region overlapping a registered one
    /// ([`Error::InvalidArgument`]); a full table ([`Error::OutOfMemory`], the
    /// fixed-capacity form of an allocation failure).
    pub fn insert(&mut self, region: CsrRegion) -> Result<()> {
        let mut below = 0;
        for r in self.as_slice() {
            if r.start < region.end && region.start < r.end {
                return Err(Error::InvalidArgument(
                    "csr region overlaps a registered region",
                ));
            }
            below += usize::from(r.start < region.start);
        }
        let Some(first) = self.first().checked_sub(1) else {
            return Err(Error::OutOfMemory);
        };
        // The `below` regions that start before it move one slot left, one
        // copy each (no memmove); it goes after them.
        for i in first..first + below {
            if let Some(&r) = self.regions.get(i + 1) {
                if let Some(slot) = self.regions.get_mut(i) {
                    *slot = r;
                }
            }
        }
        if let Some(slot) = self.regions.get_mut(first + below) {
            *slot = region;
        }
        self.len += 1;
        Ok(())
    }

    /// Remove every region of `device_id` (the `csr_deregister_device` step
    /// [000 §1]); returns how many were removed.
    pub fn remove_device(&mut self, device_id: u32) -> usize {
        let before = self.len;
        // Compact the kept regions to the right end, keeping their order.
        let mut kept = N;
        for i in (self.first()..N).rev() {
            if self
                .regions
                .get(i)
                .is_some_and(|r| r.device_id != device_id)
            {
                kept -= 1;
                if kept < N && i < N {
                    self.regions.swap(kept, i);
                }
            }
        }
        for r in self.regions.iter_mut().take(kept) {
            *r = EMPTY_SLOT;
        }
        self.len = N - kept;
        before - self.len
    }

    /// The region whose `[start, end)` holds `p` (the C `find_region_for`
    /// [000 §1]; with no overlaps there is at most one).
    pub fn find(&self, p: DeviceAddr) -> Option<&CsrRegion> {
        // Unused slots start at 0 and hold nothing, so they never end the
        // search early and never match.
        let i = self.regions.partition_point(|r| r.start <= p.get());
        self.regions.get(i.checked_sub(1)?).filter(|r| r.holds(p))
    }

    /// The inner-backend address of a dword access at `p`: [`Error::NoRegion`]
    /// when no region holds it, [`Error::OutOfWindow`] when its region's
    /// bounds or the alignment of the translation refuse it.
    pub fn translate(&self, p: DeviceAddr) -> Result<DeviceAddr> {
        self.lookup(p.get()).ok_or_else(|| self.refusal(p))
    }

    /// The lookup (see the type docs): the translation of a valid dword
    /// access at `a`, else `None`.
    pub(super) fn lookup(&self, a: u64) -> Option<DeviceAddr> {
        // The last slot whose key is at or below `a` (slot 0 when none is),
        // by a branch-free binary search over all `N` slots.
        let (mut w, mut n) = (0, N);
        while n > 1 {
            let half = n / 2;
            let go = self.regions.get(w + half).is_some_and(|r| r.key <= a);
            w = core::hint::select_unpredictable(go, w + half, w);
            n -= half;
        }
        self.regions.get(w)?.dword(a)
    }

    /// The exact error of an access [`Self::lookup`] refused.
    pub(super) fn refusal(&self, p: DeviceAddr) -> Error {
        match self.find(p) {
            Some(r) => r
                .translate(p)
                .err()
                .unwrap_or(Error::out_of_window(p.get())),
            None => Error::no_region(p.get()),
        }
    }

    /// The regions, sorted by start.
    pub fn as_slice(&self) -> &[CsrRegion] {
        self.regions.get(self.first()..).unwrap_or(&[])
    }
}
