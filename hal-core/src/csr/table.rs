//! The region table of [000 §1]: [`RegionTable`] (sorted, fixed capacity,
//! the fast-path words of each slot), the [`Lookup`] types' trait, and the
//! [`BinarySearch`] lookup with the exact slow path both lookups share.

use super::cell::CellIndex;
use super::region::{CsrRegion, EMPTY_SLOT};
use crate::addr::DeviceAddr;
use crate::error::{Error, Result};

/// The registered regions of one device: at most `N`, sorted by `start`, never
/// overlapping [000 §1]; `L` is how a lookup finds the region of an address
/// ([`CellIndex<N>`](CellIndex), the default, or [`BinarySearch`]).
///
/// # The fast path (both lookups)
///
/// Lookups are the hot path (every `csr_read` / `csr_write` [000 §1]); the
/// table changes rarely. So besides the regions themselves, each slot `i`
/// keeps three precomputed words, so that a dword access at `p` is resolved
/// with a few loads and one compare:
///
/// - `key[i]`: the first address of region `i` whose translation is dword
///   aligned (`start + o`, `o = (-device_addr) mod 4`). Keys are strictly
///   increasing (regions are sorted, disjoint and at least 4 bytes long).
/// - `span[i]`: how many valid dword addresses the region has, i.e. how many
///   `p = key + 4k` satisfy `p <= end - 4` [000 §1].
/// - `delta[i]`: what the translation adds to an address of region `i`
///   (`device_addr - start`, wrapping): the translation of a valid `p` is
///   `p + delta[i]`, one add.
///
/// An access at `p` is valid in region `i` exactly when
/// `(p - key[i]).rotate_right(2) < span[i]` (wrapping subtraction): the
/// rotation moves a misaligned remainder into the top bits and a `p` below the
/// key wraps to a value no `span` reaches, so bounds `[start, end - 4]` and the
/// alignment of the translated address are one unsigned compare.
///
/// Which region to test (issue 12's row "CSR lookup with at most 8 windows
/// at most 10 instructions over a raw add", measured per `csr_read` call:
/// callgrind, x86-64, against one raw add and the same load, both an
/// `#[inline(never)]` call returning its `Result`, `docs/PERFORMANCE.md`):
///
/// - [`CellIndex<N>`](CellIndex) (the default): `8 N` cells (the largest
///   power of two at most that), one picked by a multiply; the cell's entry,
///   then the next, is tested (see its docs). +8 over the raw add on every
///   ordinary layout of 2 to 64 windows the bench and the checkers have
///   (at most +8.51, on two close pairs; +8.06 on irregular sizes and
///   gaps), and on the two built to defeat cells: eight windows a power
///   of two apart +8.0, three windows in one cell +8.88 (+18.3 / +12.5
///   before the build tried Fibonacci multipliers and cell borders
///   between neighbours). In a driver's routine of several accesses each one's
///   miss path is a call, so the routine saves registers on entry: +12.25
///   per access at 4 accesses, +13.5 at 8 (the binary search +17.5 /
///   +15.75; `tests/src/bin/khal_ir/chk4.rs`); through windows resolved
///   once ([`Csr::window`](super::Csr::window)) +6.75 / +7.0 on every layout. Random layouts vary: of
///   8 random windows, one layout measured +8.34 (+12.0 before the cell
///   borders between neighbours; the binary search +11.75). Memory: `192 N + 8` bytes (776 for `N = 4`); the index is
///   rebuilt at each [`Self::insert`] and [`Self::remove_device`] (a
///   multiplier search, about 6.4 KB of Cortex-M4 code). `CellIndex` alone
///   (`CellIndex<16>`) is 128 cells whatever `N`.
/// - [`BinarySearch`] (no memory beyond the slots, nothing to build): the
///   last slot with `key[i] <= p`, by a binary search over all `N` slots
///   (`N` is a constant, so the search is fully unrolled). Up to 2 slots and
///   past 32, a loop of steps each carrying the slot found so far (1 step
///   for 2 slots, 8 for 256); from 3 to 32 slots, a decision tree whose
///   probes are constant slots and whose last step subtracts a compare's
///   carry from the upper slot of a pair. +10.0 over the raw add for
///   `Csr<_, 4>` of 2 regions (the firmware's), +10.5 at 4 slots, +12.75
///   at 8, +14.9 at 16, +24.0 at 64, about the same on every layout. The
///   firmware images name it: smallest code, no RAM beyond the slots.
///
/// Why a type parameter rather than a choice made at run time: a test of
/// which lookup a table uses would cost every access; the type costs
/// nothing, and the default's memory grows with `N` (a stable Rust type can
/// size a field by `N`, as `[[u64; 4]; N]`, not by a test on it).
///
/// Either way a region the fast path does not accept takes the slow path
/// ([`Self::find`] and [`CsrRegion::translate`]), which gives the exact error
/// of [000 §1], or the translation. The lookup only decides how fast an
/// answer comes, never what it is, so the answers are those of a linear scan
/// for every table and address (`tests/tests/csr_regions.rs`,
/// `lookup_matches_a_linear_model`, both lookups).
///
/// Size: 56 bytes per slot and one word (232 bytes for `N = 4`), plus the
/// lookup's own: `192 M + 8` bytes for a `CellIndex<M>`, none for the
/// [`BinarySearch`].
///
/// The used slots are the LAST `len` of the arrays; the unused ones come first
/// and are all zero (key 0, span 0: they sort below every region and never
/// match). So a new table is one zero fill, which the compiler writes in place
/// rather than building and copying it, and the table is a plain fixed array:
/// inserting shifts entries by swaps, so no `memmove` is linked into firmware
/// (the `heapless::Vec` it replaces pulled in `memmove`/`memcpy`, 21% of a
/// firmware image's `.text`).
#[derive(Clone)]
pub struct RegionTable<const N: usize, L: Lookup = CellIndex<N>> {
    pub(super) regions: [CsrRegion; N],
    pub(super) key: [u64; N],
    pub(super) span: [u64; N],
    pub(super) delta: [u64; N],
    pub(super) len: usize,
    /// The lookup's own data (nothing for [`BinarySearch`], the cells of a
    /// [`CellIndex`]).
    pub(super) index: L,
}

/// How a [`RegionTable`] finds the region to test for an address: the
/// [`BinarySearch`] (the default) or the [`CellIndex`]. Sealed: the two are
/// the only ones, and neither changes an answer, only how fast it comes.
pub trait Lookup: sealed::Sealed + Clone + core::fmt::Debug + Sized {
    /// The lookup of an empty table.
    #[doc(hidden)]
    const EMPTY: Self;
    /// Rebuild the lookup's data after the table changed.
    #[doc(hidden)]
    fn rebuild<const N: usize>(table: &mut RegionTable<N, Self>);
    /// The translation of a dword access at `a` if the lookup's fast
    /// tests accept it (the binary search's one test; the cell's entry,
    /// then the next), else `None` (then [`Self::slow`] answers).
    #[doc(hidden)]
    fn fast<const N: usize>(table: &RegionTable<N, Self>, a: u64) -> Option<DeviceAddr>;
    /// The exact answer for an access [`Self::fast`] did not accept: the
    /// translation, or the error of [000 §1].
    #[doc(hidden)]
    fn slow<const N: usize>(table: &RegionTable<N, Self>, a: u64) -> Result<DeviceAddr>;
}

/// Keeps [`Lookup`] to the two lookups of this module.
mod sealed {
    pub trait Sealed {}
    impl Sealed for super::BinarySearch {}
    impl<const M: usize> Sealed for super::CellIndex<M> {}
}

/// The [`Lookup`] with no memory of its own and nothing to build: a
/// branch-free binary search over the slots (`RegionTable<N, BinarySearch>`;
/// see [`RegionTable`] for the choice).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BinarySearch;

impl Lookup for BinarySearch {
    const EMPTY: Self = BinarySearch;

    #[inline(always)]
    fn rebuild<const N: usize>(_: &mut RegionTable<N, Self>) {}

    #[inline(always)]
    fn fast<const N: usize>(table: &RegionTable<N, Self>, a: u64) -> Option<DeviceAddr> {
        table.search_fast(a)
    }

    #[inline(always)]
    fn slow<const N: usize>(table: &RegionTable<N, Self>, a: u64) -> Result<DeviceAddr> {
        let slot = table.slot_of(a);
        table.refuse(slot, a)
    }
}

impl<const N: usize, L: Lookup> core::fmt::Debug for RegionTable<N, L> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RegionTable")
            .field("regions", &self.as_slice())
            .field("capacity", &N)
            .field("lookup", &self.index)
            .finish()
    }
}

impl<const N: usize, L: Lookup> Default for RegionTable<N, L> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize, L: Lookup> RegionTable<N, L> {
    /// An empty table.
    pub const fn new() -> Self {
        RegionTable {
            regions: [EMPTY_SLOT; N],
            key: [0; N],
            span: [0; N],
            delta: [0; N],
            len: 0,
            index: L::EMPTY,
        }
    }

    /// The fast-path words `(key, span, delta)` of `r` (see the type docs).
    const fn fast_words(r: &CsrRegion) -> (u64, u64, u64) {
        // The offset of the first aligned translation: `device_addr + o` is a
        // multiple of 4.
        let o = r.device_addr.wrapping_neg() & 3;
        // The valid `p = start + o + 4k` are those with `4k <= len - 4 - o`:
        // `(len - o) / 4` of them (none when `len - o < 4`). `len >= 4 > o`
        // (invariant of `CsrRegion::new`): no wrap, and no branch.
        let span = (r.end - r.start - o) / 4;
        // `o < 4 <= end - start`: the key does not wrap. The delta wraps
        // when the window is forwarded below its start: `p + delta` is then
        // `device_addr + (p - start)`, in range (`new` checked
        // `device_addr + (end - start)`).
        (r.start + o, span, r.device_addr.wrapping_sub(r.start))
    }

    /// Index of the first used slot (`N - len`).
    pub(super) fn first(&self) -> usize {
        N.saturating_sub(self.len)
    }

    /// Register `region`, keeping the table sorted, then rebuild the
    /// lookup's index ([`CellIndex`]; nothing for [`BinarySearch`]).
    ///
    /// Refused: a region overlapping a registered one
    /// ([`Error::InvalidArgument`]); a full table ([`Error::OutOfMemory`], the
    /// fixed-capacity form of an allocation failure).
    pub fn insert(&mut self, region: CsrRegion) -> Result<()> {
        self.place(region)?;
        L::rebuild(self);
        Ok(())
    }

    /// Register every region of `regions` in order, as that many
    /// [`Self::insert`] calls do, but rebuilding the lookup's index once, at
    /// the end, instead of after each region: what filling a
    /// [`CellIndex`] table at bring-up wants (its build is a multiplier
    /// search).
    ///
    /// Refused as `insert` refuses; the first refused region ends it and
    /// its error is returned. The regions before it stay registered, as the
    /// `insert` calls before a refused one leave them, and the index is
    /// rebuilt for them.
    ///
    /// ```
    /// use khal_core::csr::{CsrRegion, RegionTable};
    /// use khal_core::{DeviceAddr, Error};
    /// let window = |i: u64| {
    ///     let s = 0x20_0000_0000 + i * 0x10_0000;
    ///     CsrRegion::identity(DeviceAddr(s), DeviceAddr(s + 0x1_0000), 0)
    /// };
    /// let mut t = RegionTable::<8>::new();
    /// t.insert_all((0..8).map(window).collect::<Result<Vec<_>, _>>()?)?;
    /// assert_eq!(t.len(), 8);
    /// assert_eq!(t.translate(DeviceAddr(0x20_0070_0004))?, DeviceAddr(0x20_0070_0004));
    /// # Ok::<(), Error>(())
    /// ```
    pub fn insert_all(&mut self, regions: impl IntoIterator<Item = CsrRegion>) -> Result<()> {
        let mut placed = Ok(());
        for r in regions {
            placed = self.place(r);
            if placed.is_err() {
                break;
            }
        }
        L::rebuild(self);
        placed
    }

    /// [`Self::insert`] without the index's rebuild: the region in its
    /// sorted slot and the slots' fast-path words.
    fn place(&mut self, region: CsrRegion) -> Result<()> {
        // One pass over the registered regions: how many start below the new
        // one, and whether it overlaps any (half-open ranges intersect).
        let mut below = 0;
        for r in self.as_slice() {
            if r.start < region.end && region.start < r.end {
                return Err(Error::InvalidArgument(
                    "csr region overlaps a registered region",
                ));
            }
            below += usize::from(r.start < region.start);
        }
        // The new first used slot, just left of the current ones.
        let Some(first) = self.first().checked_sub(1) else {
            return Err(Error::OutOfMemory);
        };
        // Move the `below` regions that start before it one slot left, one
        // copy each (as a loop of single copies: no memmove), and put it
        // after them; then recompute the fast-path words of the used slots
        // (all of them: the shorter code, for a rare call).
        for i in first..first + below {
            if let Some(&r) = self.regions.get(i + 1) {
                if let Some(slot) = self.regions.get_mut(i) {
                    *slot = r;
                }
            }
        }
        let Some(slot) = self.regions.get_mut(first + below) else {
            return Err(Error::OutOfMemory);
        };
        *slot = region;
        self.len += 1;
        self.refresh(first, N);
        Ok(())
    }

    /// The last valid access address of slot `w` (its key if it has none).
    pub(super) fn last_valid(&self, w: usize) -> u64 {
        // `key + 4 (span - 1)` is at most `end - 4`: no wrap.
        self.key(w) + self.span.get(w).copied().unwrap_or(0).saturating_sub(1) * 4
    }

    /// Recompute the fast-path words of slots `from..to` from the regions.
    /// An unused slot holds `EMPTY_SLOT`, whose words are all zero (see the
    /// type docs), so no slot needs a case of its own.
    fn refresh(&mut self, from: usize, to: usize) {
        for j in from..to.min(N) {
            if let (Some(r), Some(k), Some(s), Some(d)) = (
                self.regions.get(j),
                self.key.get_mut(j),
                self.span.get_mut(j),
                self.delta.get_mut(j),
            ) {
                (*k, *s, *d) = Self::fast_words(r);
            }
        }
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
                // `kept <= i < N`; tested, so no bounds panic is linked into
                // panic-never firmware.
                if kept < N && i < N {
                    self.regions.swap(kept, i);
                }
            }
        }
        for r in self.regions.iter_mut().take(kept) {
            *r = EMPTY_SLOT;
        }
        self.len = N - kept;
        self.refresh(0, N);
        L::rebuild(self);
        before - self.len
    }

    /// The region whose `[start, end)` holds `p`, by binary search. Not
    /// inlined: every array form calls it once per batch, and one shared copy
    /// keeps firmware images small (the per-dword path is [`Self::translate`]).
    #[inline(never)]
    pub fn find(&self, p: DeviceAddr) -> Option<&CsrRegion> {
        // The last slot starting at or below `p`, by the branch-free search
        // of [`Self::search`] over all `N` slots: the unused ones come first
        // and start at 0 (so they never end the search early) and hold
        // nothing (end 0), so the candidate is the region holding `p`, if
        // any.
        let mut base = 0usize;
        let mut n = N;
        while n > 1 {
            let half = n / 2;
            let probe = base + half;
            let go = self.regions.get(probe).is_some_and(|r| r.start <= p.get());
            base = core::hint::select_unpredictable(go, probe, base);
            n -= half;
        }
        self.regions.get(base).filter(|r| r.holds(p))
    }

    /// The inner-backend address of a dword access at `p`: the region lookup
    /// and [`CsrRegion::translate`] in one step (see the type docs for how).
    /// Errors are exactly those of [`Self::find`] then `translate`:
    /// [`Error::NoRegion`] or [`Error::OutOfWindow`].
    #[inline]
    pub fn translate(&self, p: DeviceAddr) -> Result<DeviceAddr> {
        match L::fast(self, p.get()) {
            Some(d) => Ok(d),
            None => self.translate_slow(p),
        }
    }

    /// The exact answer for an access the lookup's fast test did not
    /// accept ([`Lookup::slow`]): out of line, so the fast path keeps no
    /// frame for it.
    #[cold]
    #[inline(never)]
    fn translate_slow(&self, p: DeviceAddr) -> Result<DeviceAddr> {
        L::slow(self, p.get())
    }

    /// The [`BinarySearch`] lookup's answer: the last slot with `key <= a`,
    /// then the fast-path test (see the type docs), then the exact answer.
    #[inline(always)]
    pub(super) fn search(&self, a: u64) -> Result<DeviceAddr> {
        let slot = self.slot_of(a);
        match self.test(slot, a) {
            Some(d) => Ok(d),
            None => self.refuse(slot, a),
        }
    }

    /// The [`BinarySearch`] lookup's fast test: the slot, then one compare.
    #[inline(always)]
    fn search_fast(&self, a: u64) -> Option<DeviceAddr> {
        self.test(self.slot_of(a), a)
    }

    /// The slot the [`BinarySearch`] tests for an access at `a`: the last
    /// slot with `key <= a` (an unused slot, or slot 0, when no region's key
    /// is; the test then refuses). Up to 2 slots and past 32: the branch-free
    /// search over all `N` slots (`N` is a constant, so it is unrolled: 1
    /// step for 2 slots, 8 for 256); 3 to 32: [`Self::tree`], whose path
    /// for 4 slots is one branch and a compare's carry (per `csr_read` call
    /// over the raw add: `Csr<_, 4>` of 2 regions +10.0, 4 of 4 +10.5,
    /// where two branch-free steps cost +13.0; thumbv7em `csr_write` 64
    /// executed instructions instead of 71, riscv32 81 instead of 86).
    #[inline(always)]
    pub(super) fn slot_of(&self, a: u64) -> usize {
        // One step: the last slot with `key <= a` among `n` from `base`
        // lies in the upper or the lower half.
        let step = |(base, n): (usize, usize)| {
            let half = n / 2;
            let probe = base + half;
            let go = self.key.get(probe).is_some_and(|&k| k <= a);
            (core::hint::select_unpredictable(go, probe, base), n - half)
        };
        let mut at = (0usize, N);
        if N <= 2 {
            // Written out: at `opt-level = "s"` (firmware) a loop stays a
            // loop.
            if N > 1 {
                at = step(at);
            }
            at.0
        } else if N > 32 {
            while at.1 > 1 {
                at = step(at);
            }
            at.0
        } else {
            self.tree(a)
        }
    }

    /// The last slot whose key is at or below `a` (slot 0 when none is), for
    /// `N <= 32`: the binary search as a decision tree, every probe a
    /// constant slot (see [`Self::tree8`]).
    #[inline(always)]
    fn tree(&self, a: u64) -> usize {
        let le = |i: usize| i < N && self.key(i) <= a;
        let tree16 = |b: usize| {
            if le(b + 8) {
                self.tree8(b + 8, a)
            } else {
                self.tree8(b, a)
            }
        };
        if le(16) {
            tree16(16)
        } else {
            tree16(0)
        }
    }

    /// The last of the slots `b..b + 8` whose key is at or below `a` (`b`
    /// when none is): two levels of compares and branches, then the last
    /// compare's carry subtracted from the upper slot of the pair (the
    /// branch-free step of [`CellIndex`]). Every slot is a constant on each
    /// path, so no base is carried from step to step (the loop's `or` of the
    /// half on every step taken right). Slots at or past `N` are never
    /// probed nor chosen (their tests fold to false).
    #[inline(always)]
    fn tree8(&self, b: usize, a: u64) -> usize {
        // `slot(b + i) <= a`, false past the end.
        let le = |i: usize| b + i < N && self.key(b + i) <= a;
        // The last of `i` and `i + 1`.
        let leaf = |i: usize| {
            if b + i + 1 < N {
                b + i + 1 - usize::from(a < self.key(b + i + 1))
            } else {
                b + i
            }
        };
        if le(4) {
            if le(6) {
                leaf(6)
            } else {
                leaf(4)
            }
        } else if le(2) {
            leaf(2)
        } else {
            leaf(0)
        }
    }

    /// Slot `w`'s key (0 for a slot past the end).
    #[inline(always)]
    pub(super) fn key(&self, w: usize) -> u64 {
        self.key.get(w).copied().unwrap_or(0)
    }

    /// The translation of a dword access at `a` if it is a valid access of
    /// slot `w`: `t`, the dword index of `a` in the region, is below `span`
    /// (see the type docs); the translation is then `a + delta`. A slot past
    /// the end has span 0: nothing matches it.
    #[inline(always)]
    fn test(&self, w: usize, a: u64) -> Option<DeviceAddr> {
        dword_test(
            a,
            self.key(w),
            self.span.get(w).copied().unwrap_or(0),
            || self.delta.get(w).copied().unwrap_or(0),
        )
    }

    /// The answer for an access at `a` the fast path did not resolve, from
    /// the slot it tried. The answer is the C-shaped one ([`Self::find`],
    /// then [`CsrRegion::translate`]): the exact error.
    ///
    /// `slot` is the last slot whose key is at or below `p` (or the first
    /// slot the search can return, when none is), so the region holding `p`,
    /// if any, is `slot` or `slot + 1`: a region starting at or below `p`
    /// lies below `slot` only if it ends at or below `slot`'s start (sorted,
    /// disjoint), which is at or below its key; one above `slot + 1` starts
    /// at or above `slot + 1`'s end, above its key and so above `p`; and
    /// `slot + 1` holds `p` only in the bytes before its key (the alignment
    /// offset, `o < 4`). Testing those two is the binary search of `find`
    /// without its steps (on hosts: a refused access 72.0 Ir instead of
    /// 83.5 through the binary search, when it was reached from the search
    /// itself; now the miss path searches again first, `docs/PERFORMANCE.md`).
    #[cold]
    #[inline(never)]
    fn refuse(&self, slot: usize, a: u64) -> Result<DeviceAddr> {
        let p = DeviceAddr(a);
        // On bare metal `find` instead: the same answer from the code the
        // array forms share (the two tests cost 68 bytes of .text there).
        #[cfg(target_os = "none")]
        let region = {
            let _ = slot;
            self.find(p)
        };
        #[cfg(not(target_os = "none"))]
        let region = {
            // `slot < N` at every call, but this function is out of line
            // (and in another codegen unit than its callers since the csr
            // module's split): one clamp instead of two bounds checks.
            let slot = slot.min(N.saturating_sub(1));
            let holds = |i: usize| self.regions.get(i).filter(|r| r.holds(p));
            holds(slot + 1).or_else(|| holds(slot))
        };
        region.ok_or(Error::no_region(p.get()))?.translate(p)
    }

    /// The regions, sorted by start.
    pub fn as_slice(&self) -> &[CsrRegion] {
        self.regions.get(self.first()..).unwrap_or(&[])
    }

    /// Number of registered regions.
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` if no region is registered.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The capacity `N`.
    pub const fn capacity(&self) -> usize {
        N
    }
}

/// The fast path's one test (see [`RegionTable`]): a dword access at `a`
/// is valid in a window whose first valid dword is `key` and which has
/// `span` valid dwords exactly when `(a - key).rotate_right(2) < span` (a
/// misaligned remainder rotates into the top bits, an address below `key`
/// wraps past every span); its translation is then `a + delta()`. The
/// table's slots, the cell index's entries and a resolved `CsrWindow` all
/// test this way; `delta` is loaded only when the test passes.
#[inline(always)]
pub(super) fn dword_test(
    a: u64,
    key: u64,
    span: u64,
    delta: impl FnOnce() -> u64,
) -> Option<DeviceAddr> {
    let t = a.wrapping_sub(key).rotate_right(2);
    (t < span).then(|| DeviceAddr(a.wrapping_add(delta())))
}
