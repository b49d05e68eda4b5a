//! The CSR region layer of [000 §1]: `csr_read`, `csr_write`, their array
//! forms and `axi_write`, resolved through a sorted, fixed-capacity table of
//! registered windows.
//!
//! # The model
//!
//! In the C runtime every register touch bottoms into `csr_read`/`csr_write`
//! (single dword) or `axi_write` (absolute-address burst) [000 §1]. Each looks up
//! the registered region (`csr_region_t {used, start, end, device_addr,
//! device_id, device}`) that holds the address, checks the access against
//! `[start, end - 4]`, and hands it to the BAR access of that region's device.
//!
//! khal keeps that shape:
//!
//! - [`CsrRegion`] is one window `{start, end, device_addr, device_id}`. The
//!   `used` flag and the `device` pointer of the C record have no counterpart:
//!   a region is "used" by being in the table, and the device is the one
//!   [`Mmio`] backend the [`Csr`] wraps.
//! - [`RegionTable<N>`] is the region array, fixed capacity `N` (no heap),
//!   **kept sorted by `start`** with overlaps refused at insert, so a lookup is a
//!   binary search (`O(log N)`; the `csr` bench compares 4 and 256 windows),
//!   or, for tables of 5 to 16 regions, a cell index built at insert (see
//!   [`RegionTable`]). The C `find_region_for` takes "the first region whose `[start, end)` holds
//!   the address"; with no overlaps there is at most one, so the order of the
//!   search does not change the answer.
//! - [`Csr<M, N>`] is the `csr_*` layer itself over an inner backend `M`.
//!
//! # How a region's address maps to the device (the choice made here)
//!
//! The C `start`/`end` are process VAs of a mapped BAR; the per-arch getters
//! compute those VAs [000 §2]. In khal the getters return [`DeviceAddr`]s, so a
//! region's `[start, end)` is a range of **the addresses drivers use** (the
//! address space of the `Mmio` calls made on the [`Csr`]), and `device_addr` is
//! where that range sits **in the inner backend's address space**. An access at
//! `p` in region `r` is forwarded to the inner backend at
//! `r.device_addr + (p - r.start)`. With an identity mapping
//! (`device_addr == start`) the layer only validates; with a BAR mapped at 0
//! (e.g. `khal_std::mmap::MmapMmio` over a sysfs `resource0`) `device_addr` is
//! the window's offset in the BAR.
//!
//! [`Csr`] implements [`Mmio`] (`read32` = `csr_read`, `write32` = `csr_write`,
//! `write_burst` = `axi_write`), so every driver can run through the region
//! check unchanged.
//!
//! # Error codes [000 §1], [FACTS §10]
//!
//! All three failures are the C code -2: no table registered →
//! [`Error::NoRegionTable`]; no region holds the (first) address →
//! [`Error::NoRegion`]; an address outside `[start, end - 4]` of the region of
//! the first address → [`Error::OutOfWindow`]. An address in `[end - 3, end)`
//! is found by the lookup (it lies in `[start, end)`) but refused by the bounds
//! check: [000 §1 GOTCHA] the last addressable dword starts at `end - 4`.
//!
//! # Where khal is stricter than the C code (documented interpretations)
//!
//! - Every address is checked **before** the first device access, so a batch
//!   is written whole or not at all (the C array forms do the same [000 §1]).
//! - `axi_write` in C looks up the start address only and bursts without a
//!   bounds check of the rest [000 §1]. khal still does exactly one lookup, but
//!   refuses ([`Error::OutOfWindow`]) a burst whose last dword would leave the
//!   start address's window, instead of writing past it.
//! - The translated device address must be dword-aligned; every khal backend
//!   refuses a misaligned dword, and checking it up front keeps the
//!   all-or-nothing rule ([`Error::OutOfWindow`], the backends' own code).
//! - There is no burst read, as in C [000 §1 QUIRK]: [`Csr::mem_read_buf`] is a
//!   dword loop of single reads, validated whole first.

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::mmio::Mmio;

/// One registered CSR window `{start, end, device_addr, device_id}` [000 §1].
///
/// Valid accesses are the dwords at `p` with `start <= p <= end - 4`.
/// `Debug` and `defmt::Format` print the addresses in hex.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct CsrRegion {
    start: u64,
    end: u64,
    device_addr: u64,
    device_id: u32,
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
    const fn translate_validated(&self, p: DeviceAddr) -> DeviceAddr {
        DeviceAddr(
            self.device_addr
                .wrapping_add(p.get().wrapping_sub(self.start)),
        )
    }

    /// Validate `n >= 1` consecutive dwords from `p` against this window and
    /// return the inner address of the first. Checking the first and the last
    /// dword is enough: the window is contiguous.
    fn translate_run(&self, p: DeviceAddr, n: usize) -> Result<DeviceAddr> {
        let first = self.translate(p)?;
        let last = (n as u64)
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
const EMPTY_SLOT: CsrRegion = CsrRegion {
    start: 0,
    end: 0,
    device_addr: 0,
    device_id: 0,
};

/// The registered regions of one device: at most `N`, sorted by `start`, never
/// overlapping [000 §1].
///
/// # The lookup (why the extra arrays)
///
/// Lookups are the hot path (every `csr_read` / `csr_write` [000 §1]); the
/// table changes rarely. So besides the regions themselves, each slot `i`
/// keeps three precomputed words, and tables of 5 to 16 slots a cell index,
/// so that a dword access at `p` is resolved with a few loads and one compare:
///
/// - `key[i]`: the first address of region `i` whose translation is dword
///   aligned (`start + o`, `o = (-device_addr) mod 4`). Keys are strictly
///   increasing (regions are sorted, disjoint and at least 4 bytes long).
/// - `span[i]`: how many valid dword addresses the region has, i.e. how many
///   `p = key + 4k` satisfy `p <= end - 4` [000 §1].
/// - `dev[i]`: the translation of `key[i]` (`device_addr + o`): the
///   translation of a valid `p` is `dev + 4k`.
///
/// An access at `p` is valid in region `i` exactly when
/// `(p - key[i]).rotate_right(2) < span[i]` (wrapping subtraction): the
/// rotation moves a misaligned remainder into the top bits and a `p` below the
/// key wraps to a value no `span` reaches, so bounds `[start, end - 4]` and the
/// alignment of the translated address are one unsigned compare.
///
/// Which `i` to test:
///
/// - **5 to 16 slots: the cell index**, built at insert and removal. A
///   cell is the top 7 bits of `p * mul` (wrapping): with `mul = 2^(57 - s)`
///   that is bits `s..s + 7` of the address, with a sum of two powers of
///   two it adds a second group of address bits in (a multiply rather than
///   a shift by a variable amount: on x86-64 that needs the count in `cl`,
///   which costs moves). The build tries each power, then the best one plus
///   each lower power, and keeps the `mul` under which the fewest cells hold
///   valid addresses of more than one region. `cell[c]` and `cell2[c]` name
///   the two regions with the fewest valid dwords among those holding a
///   valid address in cell `c` (a small region is most of its accesses in
///   the cells it shares; its large neighbour loses a small part of its
///   own). A lookup tests `cell[c]`, then `cell2[c]`: a multiply, a shift, a
///   cell load, a mask, the compare. A valid address a cell does not lead to
///   (a cell shared by three regions) still gets its translation from the
///   slow path. Measured (callgrind, `csr_read`, Ir over a raw add of 7.0,
///   `khal_ir` scenarios `csr_lookup_8`, `_8b`, `_8m`): 8 windows of 64 KiB
///   1 MiB apart, +9.0 (binary search: +12.0); 8 windows of 1 KiB to 1 MiB,
///   adjacent or up to 4 MiB apart, each as likely to be accessed, +9.3
///   (+12.0); two clusters of 4 windows 2^47 apart (the mesh halves of
///   [000 §2]), +9.0 (+12.0).
/// - **Up to 4 slots and above 16: the last slot with `key[i] <= p`**, by a
///   branch-free binary search over all `N` slots (`N` is a constant, so the
///   search is fully unrolled: 2 steps for 4 slots, 8 for 256). Two steps cost
///   what a cell lookup costs (4 windows: +9.5 against +9.0), and the index
///   (its build at insert, mostly) would add about 1.4 KiB to a `thumbv7em`
///   firmware image, whose table has 4 slots (`fw-cayman`: 10 760 bytes of
///   `.text`, 12 184 with the index). Above 16 slots (not measured): 128
///   cells leave few cells per region, so more cells hold three or more and
///   send accesses to the slow path, while the search grows only with
///   `log2 N`.
///
/// Either way a region the fast path does not accept takes the slow path
/// ([`Self::find`] and [`CsrRegion::translate`]), which gives the exact error
/// of [000 §1], or the translation. The index only decides how fast an
/// answer comes, never what it is (a wrong cell entry is a miss, then the slow
/// path), so the answers are those of a linear scan for every table and
/// address (`tests/tests/csr_regions.rs`, `lookup_matches_a_linear_model`).
///
/// Size: the index is `2 x 128` bytes and one `u64` in every table (tables of
/// 4 or fewer slots and above 16 carry it unused): 264 bytes on top of the
/// 56 bytes per slot.
///
/// The used slots are the LAST `len` of the arrays; the unused ones come first
/// and are all zero (key 0, span 0: they sort below every region and never
/// match). So a new table is one zero fill, which the compiler writes in place
/// rather than building and copying it, and the table is a plain fixed array:
/// inserting shifts entries by swaps, so no `memmove` is linked into firmware
/// (the `heapless::Vec` it replaces pulled in `memmove`/`memcpy`, 21% of a
/// firmware image's `.text`).
#[derive(Clone)]
pub struct RegionTable<const N: usize> {
    regions: [CsrRegion; N],
    key: [u64; N],
    span: [u64; N],
    dev: [u64; N],
    /// The cell index (see the type docs): the slot to test first and
    /// second for an address in cell `c`.
    cell: [u8; CELLS],
    cell2: [u8; CELLS],
    /// The cell multiplier: `(p * mul) >> (64 - CELL_BITS)` is `p`'s cell.
    mul: u64,
    len: usize,
}

/// Cells of the lookup index of a [`RegionTable`] (see its docs).
const CELLS: usize = 1 << CELL_BITS;
const CELL_BITS: u32 = 7;
/// The capacities looked up through the cell index: above `INDEXED_MIN`, up
/// to `INDEXED_MAX` (see [`RegionTable`] for why not the others).
const INDEXED_MIN: usize = 4;
const INDEXED_MAX: usize = 16;

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
    /// Whether lookups go through the cell index (see the type docs).
    const INDEXED: bool = N > INDEXED_MIN && N <= INDEXED_MAX;

    /// An empty table.
    pub const fn new() -> Self {
        RegionTable {
            regions: [EMPTY_SLOT; N],
            key: [0; N],
            span: [0; N],
            dev: [0; N],
            cell: [0; CELLS],
            cell2: [0; CELLS],
            mul: 1,
            len: 0,
        }
    }

    /// The fast-path words `(key, span, dev)` of `r` (see the type docs).
    const fn fast_words(r: &CsrRegion) -> (u64, u64, u64) {
        // The offset of the first aligned translation: `device_addr + o` is a
        // multiple of 4.
        let o = r.device_addr.wrapping_neg() & 3;
        // The valid `p = start + o + 4k` are those with `4k <= len - 4 - o`:
        // `(len - o) / 4` of them (none when `len - o < 4`). `len >= 4 > o`
        // (invariant of `CsrRegion::new`): no wrap, and no branch.
        let span = (r.end - r.start - o) / 4;
        // `o < 4 <= end - start`, so neither sum wraps (`new` checked
        // `device_addr + (end - start)`).
        (r.start + o, span, r.device_addr + o)
    }

    /// Index of the first used slot (`N - len`).
    fn first(&self) -> usize {
        N.saturating_sub(self.len)
    }

    /// Register `region`, keeping the table sorted.
    ///
    /// Refused: a region overlapping a registered one
    /// ([`Error::InvalidArgument`]); a full table ([`Error::OutOfMemory`], the
    /// fixed-capacity form of an allocation failure).
    pub fn insert(&mut self, region: CsrRegion) -> Result<()> {
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
        // after them; then recompute the fast-path words of the slots that
        // changed.
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
        self.refresh(first, first + below + 1);
        self.reindex();
        Ok(())
    }

    /// Rebuild the cell index (see the type docs): the multiplier whose
    /// cells hold the fewest regions ([`Self::crowding`]), then for each cell
    /// the two regions with the fewest valid dwords among those with a valid
    /// address in it.
    fn reindex(&mut self) {
        if !Self::INDEXED {
            return;
        }
        // A power of two first: cell = bits `shift..shift + CELL_BITS`, the
        // smallest shift of the fewest crowded cells.
        let top = 64 - CELL_BITS;
        let (mut mul, mut best) = (1u64 << top, u32::MAX);
        for x in (0..=top).rev() {
            let c = self.crowding(1 << x, best);
            if c < best {
                (mul, best) = (1 << x, c);
                if c == 0 {
                    break;
                }
            }
        }
        // Then that power plus a lower one: the cell adds a second group of
        // address bits, which separates clusters a power of two apart that
        // the first aliases (the two mesh halves, 2^47 apart [000 §2]).
        if best > 0 {
            let base = mul;
            for y in 0..top {
                let m = base | 1 << y;
                if m == base {
                    continue;
                }
                let c = self.crowding(m, best);
                if c < best {
                    (mul, best) = (m, c);
                    if c == 0 {
                        break;
                    }
                }
            }
        }
        self.mul = mul;
        let first = self.first();
        // Cells no region reaches name the first used slot (any slot would
        // do: a miss is a miss).
        self.cell = [first as u8; CELLS];
        self.cell2 = [first as u8; CELLS];
        let mut count = [0u8; CELLS];
        for j in first..N {
            let s = self.span.get(j).copied().unwrap_or(0);
            let Some((c0, n)) = self.arc(j, mul) else {
                continue;
            };
            for i in 0..=n {
                let c = (c0 + i) % CELLS;
                let (Some(p), Some(q), Some(n)) =
                    (self.cell.get(c), self.cell2.get(c), count.get(c))
                else {
                    continue;
                };
                let (p, q, n) = (usize::from(*p), usize::from(*q), *n);
                let span_of = |w: usize| self.span.get(w).copied().unwrap_or(0);
                // Keep the two smallest regions (ties: the lower slot).
                let (p, q) = if n == 0 {
                    (j, j)
                } else if s < span_of(p) {
                    (j, p)
                } else if n == 1 || s < span_of(q) {
                    (p, j)
                } else {
                    (p, q)
                };
                if let (Some(a), Some(b), Some(n)) = (
                    self.cell.get_mut(c),
                    self.cell2.get_mut(c),
                    count.get_mut(c),
                ) {
                    (*a, *b, *n) = (p as u8, q as u8, n.saturating_add(1));
                }
            }
        }
    }

    /// The cells slot `j`'s valid addresses fall in under multiplier `m`:
    /// `(first cell, how many more)`, at most all `CELLS`; `None` for a
    /// region without valid addresses. Multiplying is linear modulo 2^64, so
    /// the addresses `key..=last` map onto one arc of `(last - key) * m`
    /// from `key * m`; the cells that arc crosses (a superset when `m` is
    /// above a cell's width: a superset only costs speed).
    fn arc(&self, j: usize, m: u64) -> Option<(usize, usize)> {
        if self.span.get(j).copied().unwrap_or(0) == 0 {
            return None;
        }
        let from = u128::from(self.key(j).wrapping_mul(m));
        let len = u128::from(self.last_valid(j) - self.key(j)) * u128::from(m);
        let cells = ((from + len) >> (64 - CELL_BITS)) - (from >> (64 - CELL_BITS));
        let first = (from >> (64 - CELL_BITS)) as usize;
        Some((first, cells.min(CELLS as u128 - 1) as usize))
    }

    /// How crowded the cells would be under multiplier `m`: 256 for each
    /// cell holding valid addresses of three or more regions (some of its
    /// addresses would need the slow path), 1 for each cell of two (the
    /// second costs a second test). Counted with a difference array over
    /// the regions' arcs: `O(N + CELLS)`; stops at `bound` (the best so far).
    fn crowding(&self, m: u64, bound: u32) -> u32 {
        let mut diff = [0i32; CELLS + 1];
        let mut all = 0;
        for j in self.first()..N {
            let Some((c0, n)) = self.arc(j, m) else {
                continue;
            };
            if n >= CELLS - 1 {
                all += 1;
                continue;
            }
            let (from, to) = (c0 % CELLS, (c0 + n) % CELLS + 1);
            let mut mark = |i: usize, d: i32| {
                if let Some(x) = diff.get_mut(i) {
                    *x += d;
                }
            };
            mark(from, 1);
            mark(to, -1);
            if from >= to {
                // Wraps past the last cell.
                mark(CELLS, -1);
                mark(0, 1);
            }
        }
        let mut n = all;
        let mut score = 0u32;
        for d in diff.iter().take(CELLS) {
            n += d;
            score += match n {
                0 | 1 => 0,
                2 => 1,
                _ => 256,
            };
            if score >= bound {
                break;
            }
        }
        score
    }

    /// The last valid access address of slot `w` (its key if it has none).
    fn last_valid(&self, w: usize) -> u64 {
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
                self.dev.get_mut(j),
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
                self.regions.swap(kept, i);
            }
        }
        for r in self.regions.iter_mut().take(kept) {
            *r = EMPTY_SLOT;
        }
        self.len = N - kept;
        self.refresh(0, N);
        self.reindex();
        before - self.len
    }

    /// The region whose `[start, end)` holds `p`, by binary search. Not
    /// inlined: every array form calls it once per batch, and one shared copy
    /// keeps firmware images small (the per-dword path is [`Self::translate`]).
    #[inline(never)]
    pub fn find(&self, p: DeviceAddr) -> Option<&CsrRegion> {
        // Index of the first region starting above `p`; the candidate is the
        // one before it (the last region starting at or below `p`).
        let used = self.as_slice();
        let after = used.partition_point(|r| r.start <= p.get());
        after
            .checked_sub(1)
            .and_then(|i| used.get(i))
            .filter(|r| r.holds(p))
    }

    /// The inner-backend address of a dword access at `p`: the region lookup
    /// and [`CsrRegion::translate`] in one step (see the type docs for how).
    /// Errors are exactly those of [`Self::find`] then `translate`:
    /// [`Error::NoRegion`] or [`Error::OutOfWindow`].
    #[inline]
    pub fn translate(&self, p: DeviceAddr) -> Result<DeviceAddr> {
        let a = p.get();
        if Self::INDEXED {
            // The cell: the top `CELL_BITS` bits of `a * mul` (type docs).
            let c = (a.wrapping_mul(self.mul) >> (64 - CELL_BITS)) as usize;
            let b = self.cell.get(c).copied().unwrap_or(0) as usize;
            let (t, s, d) = self.fast(Self::slot(b), a);
            if t < s {
                // `t < span`: `dev + 4t` is at most `device_addr + end - start - 4`.
                return Ok(DeviceAddr(d.wrapping_add(t << 2)));
            }
            // The cell's second region.
            let w = Self::slot(self.cell2.get(c).copied().unwrap_or(0) as usize);
            let (t, s, d) = self.fast(w, a);
            if t < s {
                return Ok(DeviceAddr(d.wrapping_add(t << 2)));
            }
            return self.refuse(w, t);
        }
        // Branch-free binary search for the last slot with `key <= a` (an
        // unused slot, or slot 0, when no region's key is; the compare below
        // then refuses).
        let mut base = 0usize;
        let mut n = N;
        while n > 1 {
            let half = n / 2;
            let probe = base + half;
            let go = self.key.get(probe).is_some_and(|&k| k <= a);
            base = core::hint::select_unpredictable(go, probe, base);
            n -= half;
        }
        let (t, s, d) = self.fast(base, a);
        if t < s {
            return Ok(DeviceAddr(d.wrapping_add(t << 2)));
        }
        self.refuse(base, t)
    }

    /// A cell entry as a slot: reduced modulo `N` when `N` is a power of
    /// two (one `and`, and no bounds check follows; entries are slots, so
    /// this changes none), else as is (a slot past the end would miss).
    #[inline(always)]
    fn slot(w: usize) -> usize {
        if N.is_power_of_two() {
            w & (N - 1)
        } else {
            w
        }
    }

    /// Slot `w`'s key (0 for a slot past the end).
    #[inline(always)]
    fn key(&self, w: usize) -> u64 {
        self.key.get(w).copied().unwrap_or(0)
    }

    /// `(t, span, dev)` of slot `w` for an access at `a`: `t` is the dword
    /// index of `a` in the region, and `a` is a valid access of it exactly
    /// when `t < span` (see the type docs). A slot past the end has span 0:
    /// nothing matches it.
    #[inline(always)]
    fn fast(&self, w: usize, a: u64) -> (u64, u64, u64) {
        let k = self.key(w);
        let s = self.span.get(w).copied().unwrap_or(0);
        let d = self.dev.get(w).copied().unwrap_or(0);
        (a.wrapping_sub(k).rotate_right(2), s, d)
    }

    /// The answer for an access [`Self::translate`] did not resolve, from
    /// the slot it tried last and `t`: the address is
    /// `key[slot] + t.rotate_left(2)` (taking `t` rather than the address
    /// lets the fast path subtract in place, one move fewer per access). The
    /// C-shaped lookup ([`Self::find`], then [`CsrRegion::translate`]) gives
    /// the exact error, or the translation of a valid address the cell index
    /// did not lead to.
    #[cold]
    #[inline(never)]
    fn refuse(&self, slot: usize, t: u64) -> Result<DeviceAddr> {
        let p = DeviceAddr(self.key(slot).wrapping_add(t.rotate_left(2)));
        self.find(p).ok_or(Error::no_region(p.get()))?.translate(p)
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

/// The `csr_*` layer over an inner backend `M`, with up to `N` regions.
///
/// ```
/// use khal_core::csr::{Csr, CsrRegion, RegionTable};
/// use khal_core::{DeviceAddr, Error, Mmio};
/// # struct Regs(core::cell::Cell<[u32; 4]>);
/// # impl Mmio for Regs {
/// #     fn read32(&self, a: DeviceAddr) -> khal_core::Result<u32> {
/// #         Ok(self.0.get()[(a.get() / 4) as usize])
/// #     }
/// #     fn write32(&self, a: DeviceAddr, v: u32) -> khal_core::Result<()> {
/// #         let mut r = self.0.get(); r[(a.get() / 4) as usize] = v; self.0.set(r); Ok(())
/// #     }
/// # }
/// # let bar = Regs(core::cell::Cell::new([0; 4]));
/// // A 16-byte window at 0x20_0000_0000, forwarded to offset 0 of `bar`.
/// let mut table = RegionTable::<4>::new();
/// table.insert(CsrRegion::new(DeviceAddr(0x20_0000_0000), DeviceAddr(0x20_0000_0010),
///                             DeviceAddr(0), 0)?)?;
/// let csr = Csr::new(bar, table);
/// csr.csr_write(DeviceAddr(0x20_0000_000C), 7)?;          // end - 4: the last dword
/// assert_eq!(csr.csr_read(DeviceAddr(0x20_0000_000C)), Ok(7));
/// assert_eq!(csr.csr_read(DeviceAddr(0x20_0000_000D)),      // end - 3: refused
///            Err(Error::out_of_window(0x20_0000_000D)));
/// # Ok::<(), Error>(())
/// ```
#[derive(Debug)]
pub struct Csr<M, const N: usize> {
    inner: M,
    regions: Option<RegionTable<N>>,
    /// Region lookups done so far: lets the tests assert "one lookup per
    /// `axi_write`". Compiled into test builds only, so it costs nothing in
    /// firmware.
    #[cfg(test)]
    lookups: core::sync::atomic::AtomicUsize,
}

impl<M, const N: usize> Csr<M, N> {
    /// The layer over `inner` with `regions` registered.
    pub fn new(inner: M, regions: RegionTable<N>) -> Self {
        Csr {
            inner,
            regions: Some(regions),
            #[cfg(test)]
            lookups: core::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// The layer with an empty region table, to be filled in place through
    /// [`Self::regions_mut`]. Firmware uses this form: the table is created
    /// where it lives, so no copy of it (a `memcpy` in the image) is made.
    #[inline(always)]
    pub fn with_empty_table(inner: M) -> Self {
        Csr {
            inner,
            regions: Some(RegionTable::new()),
            #[cfg(test)]
            lookups: core::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// The layer with no region table: every access fails with
    /// [`Error::NoRegionTable`] (-2), as the C `csr_*` calls do when
    /// `csr_get_regions` returns NULL [000 §1].
    pub fn unregistered(inner: M) -> Self {
        Csr {
            inner,
            regions: None,
            #[cfg(test)]
            lookups: core::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// Register (or replace) the region table.
    pub fn register(&mut self, regions: RegionTable<N>) {
        self.regions = Some(regions);
    }

    /// Deregister the table (`csr_deregister` [000 §1]), giving it back.
    pub fn deregister(&mut self) -> Option<RegionTable<N>> {
        self.regions.take()
    }

    /// The registered table, if any.
    pub fn regions(&self) -> Option<&RegionTable<N>> {
        self.regions.as_ref()
    }

    /// The registered table, to register more regions in place (firmware
    /// builds its table inside the `Csr`, so the table is never moved).
    pub fn regions_mut(&mut self) -> Option<&mut RegionTable<N>> {
        self.regions.as_mut()
    }

    /// The inner backend.
    pub fn inner(&self) -> &M {
        &self.inner
    }

    /// The one region lookup of every operation: table present, then the
    /// region holding `p` [000 §1].
    #[inline]
    fn lookup(&self, p: DeviceAddr) -> Result<&CsrRegion> {
        #[cfg(test)]
        self.lookups
            .fetch_add(1, core::sync::atomic::Ordering::Relaxed);
        let table = self.regions.as_ref().ok_or(Error::NoRegionTable)?;
        table.find(p).ok_or(Error::no_region(p.get()))
    }

    /// The single-dword path of `csr_read` / `csr_write`: table present, then
    /// lookup and bounds check in one step ([`RegionTable::translate`]). On
    /// bare metal one out-of-line copy for every `csr_read` / `csr_write`
    /// site (issue 12: inlined, each site held the whole lookup; -128 B
    /// .text fw-cayman); inlined on hosts, so the lookup benches are unchanged.
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline)]
    fn lookup_translate(&self, p: DeviceAddr) -> Result<DeviceAddr> {
        #[cfg(test)]
        self.lookups
            .fetch_add(1, core::sync::atomic::Ordering::Relaxed);
        self.regions
            .as_ref()
            .ok_or(Error::NoRegionTable)?
            .translate(p)
    }

    #[cfg(test)]
    fn lookups(&self) -> usize {
        self.lookups.load(core::sync::atomic::Ordering::Relaxed)
    }
}

impl<M: Mmio, const N: usize> Csr<M, N> {
    /// `csr_read`: one dword at `p` [000 §1]. Always inlined on bare metal:
    /// its work is the call to the shared lookup and one load, and out of
    /// line its caller copies the `Result` through memory (issue 12: -104 B
    /// .text fw-cayman); `#[inline]` on hosts, as before.
    #[cfg_attr(target_os = "none", inline(always))]
    #[cfg_attr(not(target_os = "none"), inline)]
    pub fn csr_read(&self, p: DeviceAddr) -> Result<u32> {
        let d = self.lookup_translate(p)?;
        self.inner.read32(d)
    }

    /// `csr_write`: one dword at `p` [000 §1].
    #[inline]
    pub fn csr_write(&self, p: DeviceAddr, value: u32) -> Result<()> {
        let d = self.lookup_translate(p)?;
        self.inner.write32(d, value)
    }

    /// `csr_read_array`: `out[i] = *ptrs[i]`, every address validated against
    /// the ONE region holding `ptrs[0]` before any read [000 §1]. A batch that
    /// leaves that region is refused whole ([`Error::OutOfWindow`]), never split.
    ///
    /// `ptrs` and `out` of different lengths: [`Error::InvalidArgument`]. An
    /// empty batch reads nothing and succeeds.
    pub fn csr_read_array(&self, ptrs: &[DeviceAddr], out: &mut [u32]) -> Result<()> {
        if ptrs.len() != out.len() {
            return Err(Error::InvalidArgument(
                "csr_read_array: ptrs and values differ in length",
            ));
        }
        let Some(&first) = ptrs.first() else {
            return Ok(());
        };
        let region = self.lookup(first)?;
        for &p in ptrs {
            region.translate(p)?;
        }
        for (&p, slot) in ptrs.iter().zip(out.iter_mut()) {
            // Validated by the loop above.
            *slot = self.inner.read32(region.translate_validated(p))?;
        }
        Ok(())
    }

    /// `csr_write_array`: `*ptrs[i] = values[i]`, every address validated
    /// against the ONE region holding `ptrs[0]` before any write [000 §1]. A
    /// batch that leaves that region is refused whole ([`Error::OutOfWindow`]):
    /// nothing is written.
    ///
    /// `ptrs` and `values` of different lengths: [`Error::InvalidArgument`]. An
    /// empty batch writes nothing and succeeds.
    pub fn csr_write_array(&self, ptrs: &[DeviceAddr], values: &[u32]) -> Result<()> {
        if ptrs.len() != values.len() {
            return Err(Error::InvalidArgument(
                "csr_write_array: ptrs and values differ in length",
            ));
        }
        let Some(&first) = ptrs.first() else {
            return Ok(());
        };
        let region = self.lookup(first)?;
        for &p in ptrs {
            region.translate(p)?;
        }
        for (&p, &v) in ptrs.iter().zip(values) {
            // Validated by the loop above.
            self.inner.write32(region.translate_validated(p), v)?;
        }
        Ok(())
    }

    /// `axi_write`: `words` to consecutive dwords from the absolute address
    /// `start`, with ONE region lookup (for `start`) and one burst
    /// ([`Mmio::write_burst`]) [000 §1]. A burst whose last dword leaves the
    /// start's window is refused whole (khal addition, see the module docs).
    /// An empty burst still resolves and checks `start`, then writes nothing.
    pub fn axi_write(&self, start: DeviceAddr, words: &[u32]) -> Result<()> {
        let region = self.lookup(start)?;
        let d = region.translate_run(start, words.len().max(1))?;
        if words.is_empty() {
            return Ok(());
        }
        self.inner.write_burst(d, words)
    }

    /// `al_mem_read_buf`: consecutive dwords from `start` into `out`. There is
    /// no burst read [000 §1 QUIRK]: one lookup and a whole-range check, then a
    /// plain loop of single dword reads. An empty `out` still resolves and
    /// checks `start`, then reads nothing.
    pub fn mem_read_buf(&self, start: DeviceAddr, out: &mut [u32]) -> Result<()> {
        let region = self.lookup(start)?;
        let mut d = region.translate_run(start, out.len().max(1))?;
        for slot in out.iter_mut() {
            *slot = self.inner.read32(d)?;
            d = d.add(4);
        }
        Ok(())
    }
}

impl<M: Mmio, const N: usize> Mmio for Csr<M, N> {
    #[inline]
    fn read32(&self, addr: DeviceAddr) -> Result<u32> {
        self.csr_read(addr)
    }

    #[inline]
    fn write32(&self, addr: DeviceAddr, value: u32) -> Result<()> {
        self.csr_write(addr, value)
    }

    #[inline]
    fn write_burst(&self, addr: DeviceAddr, words: &[u32]) -> Result<()> {
        self.axi_write(addr, words)
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::collections::BTreeMap;
    use std::vec::Vec;

    /// A sparse register file recording every access, including bursts as
    /// one entry (so a test can see a burst was one call).
    #[derive(Default)]
    struct Rec {
        mem: RefCell<BTreeMap<u64, u32>>,
        log: RefCell<Vec<(&'static str, u64, u32)>>,
    }

    impl Mmio for Rec {
        fn read32(&self, a: DeviceAddr) -> Result<u32> {
            let v = self.mem.borrow().get(&a.get()).copied().unwrap_or(0);
            self.log.borrow_mut().push(("r", a.get(), v));
            Ok(v)
        }
        fn write32(&self, a: DeviceAddr, v: u32) -> Result<()> {
            self.mem.borrow_mut().insert(a.get(), v);
            self.log.borrow_mut().push(("w", a.get(), v));
            Ok(())
        }
        fn write_burst(&self, a: DeviceAddr, words: &[u32]) -> Result<()> {
            self.log
                .borrow_mut()
                .push(("burst", a.get(), words.len() as u32));
            for (i, &w) in words.iter().enumerate() {
                self.mem.borrow_mut().insert(a.get() + 4 * i as u64, w);
            }
            Ok(())
        }
    }

    fn region(s: u64, e: u64, d: u64, id: u32) -> CsrRegion {
        CsrRegion::new(DeviceAddr(s), DeviceAddr(e), DeviceAddr(d), id).unwrap()
    }

    /// Two adjacent windows: [0x1000, 0x1100) → 0x0, [0x1100, 0x1200) → 0x8000.
    fn two_windows() -> Csr<Rec, 8> {
        let mut t = RegionTable::new();
        t.insert(region(0x1100, 0x1200, 0x8000, 1)).unwrap();
        t.insert(region(0x1000, 0x1100, 0x0, 0)).unwrap();
        Csr::new(Rec::default(), t)
    }

    #[test]
    fn region_bounds_start_end4_end3() {
        let c = two_windows();
        c.csr_write(DeviceAddr(0x1000), 1).unwrap(); // start
        c.csr_write(DeviceAddr(0x10FC), 2).unwrap(); // end - 4
        assert_eq!(
            c.csr_write(DeviceAddr(0x10FD), 3), // end - 3: in [start, end) but past end - 4
            Err(Error::out_of_window(0x10FD))
        );
        assert_eq!(
            c.csr_read(DeviceAddr(0x10FF)),
            Err(Error::out_of_window(0x10FF))
        );
        assert_eq!(*c.inner().log.borrow(), vec![("w", 0x0, 1), ("w", 0xFC, 2)]);
        assert_eq!(c.csr_read(DeviceAddr(0x10FC)), Ok(2));
        // The second window translates to its own device_addr.
        c.csr_write(DeviceAddr(0x1104), 9).unwrap();
        assert_eq!(c.inner().mem.borrow().get(&0x8004), Some(&9));
    }

    #[test]
    fn no_table_and_no_region_are_minus_2() {
        let c: Csr<Rec, 4> = Csr::unregistered(Rec::default());
        assert_eq!(c.csr_read(DeviceAddr(0x1000)), Err(Error::NoRegionTable));
        assert_eq!(
            c.csr_write(DeviceAddr(0x1000), 1),
            Err(Error::NoRegionTable)
        );
        assert_eq!(
            c.axi_write(DeviceAddr(0x1000), &[1]),
            Err(Error::NoRegionTable)
        );
        let c = two_windows();
        assert_eq!(c.csr_read(DeviceAddr(0xFFC)), Err(Error::no_region(0xFFC)));
        assert_eq!(
            c.csr_write(DeviceAddr(0x1200), 1),
            Err(Error::no_region(0x1200))
        );
        for e in [
            Error::NoRegionTable,
            Error::no_region(0),
            Error::out_of_window(0),
        ] {
            assert_eq!(e.c_code(), Some(-2));
        }
        assert!(c.inner().log.borrow().is_empty());
    }

    #[test]
    fn straddling_batch_is_rejected_whole() {
        let c = two_windows();
        // The last pointer lies in the NEXT window: rejected although that
        // window exists, because the batch is validated against ptrs[0]'s.
        let ptrs = [DeviceAddr(0x10F8), DeviceAddr(0x10FC), DeviceAddr(0x1100)];
        assert_eq!(
            c.csr_write_array(&ptrs, &[1, 2, 3]),
            Err(Error::out_of_window(0x1100))
        );
        let mut out = [0; 3];
        assert_eq!(
            c.csr_read_array(&ptrs, &mut out),
            Err(Error::out_of_window(0x1100))
        );
        assert!(c.inner().log.borrow().is_empty(), "nothing accessed");
        // A batch inside one window goes through, in order.
        c.csr_write_array(&ptrs[..2], &[1, 2]).unwrap();
        c.csr_read_array(&ptrs[..2], &mut out[..2]).unwrap();
        assert_eq!(out[..2], [1, 2]);
        assert_eq!(
            *c.inner().log.borrow(),
            vec![
                ("w", 0xF8, 1),
                ("w", 0xFC, 2),
                ("r", 0xF8, 1),
                ("r", 0xFC, 2)
            ]
        );
        assert_eq!(
            c.csr_write_array(&ptrs[..2], &[1]),
            Err(Error::InvalidArgument(
                "csr_write_array: ptrs and values differ in length"
            ))
        );
    }

    #[test]
    fn axi_write_is_one_lookup_and_one_burst() {
        let c = two_windows();
        let before = c.lookups();
        c.axi_write(DeviceAddr(0x1100), &[1, 2, 3, 4]).unwrap();
        assert_eq!(c.lookups() - before, 1);
        assert_eq!(*c.inner().log.borrow(), vec![("burst", 0x8000, 4)]);
        // A burst ending exactly at end - 4 is fine; one dword more is refused whole.
        c.inner().log.borrow_mut().clear();
        let words = [7u32; 64];
        c.axi_write(DeviceAddr(0x1000), &words).unwrap();
        assert_eq!(
            c.axi_write(DeviceAddr(0x1004), &words),
            Err(Error::out_of_window(0x1100))
        );
        assert_eq!(*c.inner().log.borrow(), vec![("burst", 0x0, 64)]);
    }

    #[test]
    fn reads_have_no_burst_form() {
        let c = two_windows();
        c.axi_write(DeviceAddr(0x1000), &[5, 6, 7]).unwrap();
        c.inner().log.borrow_mut().clear();
        let before = c.lookups();
        let mut out = [0; 3];
        c.mem_read_buf(DeviceAddr(0x1000), &mut out).unwrap();
        assert_eq!(out, [5, 6, 7]);
        assert_eq!(c.lookups() - before, 1);
        assert_eq!(
            *c.inner().log.borrow(),
            vec![("r", 0x0, 5), ("r", 0x4, 6), ("r", 0x8, 7)]
        );
        let mut big = [0; 65];
        assert_eq!(
            c.mem_read_buf(DeviceAddr(0x1000), &mut big),
            Err(Error::out_of_window(0x1100))
        );
    }

    #[test]
    fn invalid_and_overlapping_regions_are_refused() {
        let d = DeviceAddr;
        assert!(CsrRegion::new(d(0x10), d(0x10), d(0), 0).is_err()); // empty
        assert!(CsrRegion::new(d(0x10), d(0x8), d(0), 0).is_err()); // inverted
        assert!(CsrRegion::new(d(0x10), d(0x13), d(0), 0).is_err()); // < 1 dword
        assert!(CsrRegion::new(d(0x10), d(0x20), d(u64::MAX - 4), 0).is_err()); // wraps
        let mut t = RegionTable::<3>::new();
        t.insert(region(0x100, 0x200, 0, 0)).unwrap();
        for (s, e) in [
            (0x100, 0x200),
            (0x80, 0x101),
            (0x1FF, 0x300),
            (0x120, 0x140),
        ] {
            assert_eq!(
                t.insert(region(s, e, 0, 0)),
                Err(Error::InvalidArgument(
                    "csr region overlaps a registered region"
                )),
                "{s:#x}..{e:#x}"
            );
        }
        t.insert(region(0x200, 0x300, 0, 1)).unwrap(); // adjacent is fine
        t.insert(region(0x0, 0x100, 0, 1)).unwrap();
        assert_eq!(
            t.insert(region(0x400, 0x500, 0, 0)),
            Err(Error::OutOfMemory)
        );
        let starts: Vec<u64> = t.as_slice().iter().map(|r| r.start().get()).collect();
        assert_eq!(starts, vec![0x0, 0x100, 0x200]);
        assert_eq!(t.remove_device(1), 2);
        assert_eq!(t.len(), 1);
    }

    /// The one-compare fast path answers exactly what the C-shaped slow path
    /// (`find`, then `CsrRegion::translate`) answers, for every address around
    /// regions of every start / device alignment and size (including windows
    /// of 4..=7 bytes whose translation may have no aligned dword at all), in
    /// tables of capacity 1, 3, 4, 8 and 16, full and partly used.
    #[test]
    fn fast_translate_matches_find_then_translate_exhaustively() {
        fn check<const N: usize>(regions: &[(u64, u64, u64)]) {
            let mut t = RegionTable::<N>::new();
            for &(s, e, d) in regions.iter().take(N) {
                t.insert(region(s, e, d, 0)).unwrap();
            }
            let lo = regions
                .iter()
                .map(|r| r.0)
                .min()
                .unwrap_or(0)
                .saturating_sub(8);
            let hi = regions
                .iter()
                .map(|r| r.1)
                .max()
                .unwrap_or(0)
                .saturating_add(8);
            for a in (lo..hi).chain([0, 1, 4, u64::MAX - 3, u64::MAX]) {
                let p = DeviceAddr(a);
                let slow = t
                    .find(p)
                    .ok_or(Error::no_region(a))
                    .and_then(|r| r.translate(p));
                assert_eq!(t.translate(p), slow, "N={N} a={a:#x} {regions:x?}");
            }
        }
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        // Miri runs this test on three targets: a few tables there.
        let tables = if cfg!(miri) { 3 } else { 300 };
        for _ in 0..tables {
            let mut regions = Vec::new();
            let mut s = 0x100 + next(8);
            for _ in 0..9 {
                let len = 4 + next(40);
                let d = next(0x1_0000);
                regions.push((s, s + len, d));
                s += len + next(12);
            }
            check::<1>(&regions);
            check::<3>(&regions);
            check::<4>(&regions);
            check::<8>(&regions);
            check::<16>(&regions);
            check::<8>(&regions[..5]);
        }
        // A window ending at the top of the address space, and the MAX padding.
        check::<4>(&[(u64::MAX - 0x20, u64::MAX, 0x40)]);
        check::<4>(&[(0, 0x10, u64::MAX - 0x10)]);
    }

    /// Whether the cell index alone (`cell`, then `cell2`) accepts `a`.
    fn index_accepts<const N: usize>(t: &RegionTable<N>, a: u64) -> bool {
        let c = (a.wrapping_mul(t.mul) >> (64 - CELL_BITS)) as usize;
        [t.cell[c], t.cell2[c]].iter().any(|&w| {
            let (i, s, _) = t.fast(RegionTable::<N>::slot(usize::from(w)), a);
            i < s
        })
    }

    /// The cell index leads every valid address of tables whose cells hold
    /// at most two regions to its region without the slow path: the answers
    /// cannot tell (a miss falls back to `find`), so this is what keeps the
    /// index from silently decaying, after inserts in any order and after
    /// `remove_device` (8 windows of 64 KiB 1 MiB apart; windows of 4 bytes
    /// to 64 KiB, adjacent or 2 KiB apart, misaligned translations; a table
    /// of 16 with one window 4 GiB away; two clusters of 4 windows 2^47
    /// apart).
    #[test]
    // Safe code only, and slow under Miri (tens of thousands of lookups).
    #[cfg_attr(miri, ignore)]
    fn the_cell_index_resolves_valid_addresses_itself() {
        fn check<const N: usize>(t: &RegionTable<N>) {
            for r in t.as_slice() {
                let (s, e) = (r.start().get(), r.end().get());
                let step = ((e - s) / 64).max(1);
                let mut a = s;
                while a < e {
                    for p in [a, a + 1, a + 2, a + 3, e - 4, e - 5, e - 6, e - 7] {
                        if t.translate(DeviceAddr(p)).is_ok() {
                            assert!(index_accepts(t, p), "N={N} {p:#x} in {r:?}");
                        }
                    }
                    a += step;
                }
            }
        }
        let mut t = RegionTable::<8>::new();
        for i in [3u64, 0, 7, 5, 1, 6, 2, 4] {
            let s = 0x20_0000_0000 + i * 0x10_0000;
            t.insert(region(s, s + 0x1_0000, s, i as u32)).unwrap();
        }
        check(&t);
        assert_eq!(t.remove_device(3), 1);
        check(&t);
        let mut t = RegionTable::<5>::new();
        let mut s = 0x1000;
        for (i, (gap, len)) in [(0, 4), (0, 0x1_0000), (0x800, 6), (0x800, 0x100), (0, 0x20)]
            .into_iter()
            .enumerate()
        {
            s += gap;
            t.insert(region(s, s + len, 0x10_0000 + s + i as u64, 0))
                .unwrap();
            s += len;
        }
        check(&t);
        let mut t = RegionTable::<16>::new();
        for i in 0..15u64 {
            let s = 0x4000 + i * 0x3000;
            t.insert(region(s, s + 0x1000 + i * 0x100, s, 0)).unwrap();
        }
        t.insert(region(0x1_0000_0000, 0x1_0001_0000, 0, 1))
            .unwrap();
        check(&t);
        // Two clusters 2^47 apart (the mesh halves of [000 §2]): cells
        // alias them, two regions per cell.
        let mut t = RegionTable::<8>::new();
        for i in 0..8u64 {
            let s = 0x20_0000_0000 + (i % 4) * 0x100_0000 + (i / 4) * 0x8000_0000_0000;
            t.insert(region(s, s + 0x10_0000, i * 0x10_0000, 0))
                .unwrap();
        }
        check(&t);
    }

    #[test]
    fn remove_device_keeps_order_and_lookups() {
        let mut t = RegionTable::<4>::new();
        t.insert(region(0x300, 0x400, 0x3000, 1)).unwrap();
        t.insert(region(0x100, 0x200, 0x1000, 2)).unwrap();
        t.insert(region(0x200, 0x300, 0x2000, 1)).unwrap();
        t.insert(region(0x0, 0x100, 0x0, 2)).unwrap();
        assert_eq!(t.remove_device(2), 2);
        let starts: Vec<u64> = t.as_slice().iter().map(|r| r.start().get()).collect();
        assert_eq!(starts, vec![0x200, 0x300]);
        assert_eq!(t.translate(DeviceAddr(0x304)), Ok(DeviceAddr(0x3004)));
        assert_eq!(t.translate(DeviceAddr(0x204)), Ok(DeviceAddr(0x2004)));
        assert_eq!(t.translate(DeviceAddr(0x104)), Err(Error::no_region(0x104)));
        // The freed slots are usable again, in sorted place.
        t.insert(region(0x0, 0x100, 0x0, 2)).unwrap();
        assert_eq!(t.translate(DeviceAddr(0xFC)), Ok(DeviceAddr(0xFC)));
        assert_eq!(t.len(), 3);
    }

    #[test]
    fn deregister_turns_every_access_into_no_table() {
        let mut c = two_windows();
        assert!(c.deregister().is_some());
        assert_eq!(c.csr_read(DeviceAddr(0x1000)), Err(Error::NoRegionTable));
    }

    #[test]
    fn region_debug_prints_addresses_in_hex() {
        let r = CsrRegion::new(
            DeviceAddr(0x20_0000_0000),
            DeviceAddr(0x20_0010_0000),
            DeviceAddr(0x1000),
            7,
        )
        .unwrap();
        assert_eq!(
            std::format!("{r:?}"),
            "CsrRegion { start: 0x2000000000, end: 0x2000100000, device_addr: 0x1000, device_id: 7 }"
        );
    }
}
