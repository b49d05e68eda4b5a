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
//! - [`RegionTable<N, L>`] is the region array, fixed capacity `N` (no heap),
//!   **kept sorted by `start`** with overlaps refused at insert, so a lookup is a
//!   binary search (`O(log N)`; the `csr` bench compares 4 and 256 windows:
//!   [`BinarySearch`], the default `L`), or, opted in with
//!   `RegionTable<N, CellIndex>`, a cell index built at insert ([`CellIndex`],
//!   about 3 KiB more; see [`RegionTable`]). The C `find_region_for` takes "the
//!   first region whose `[start, end)` holds the address"; with no overlaps
//!   there is at most one, so the order of the search does not change the
//!   answer.
//! - [`Csr<M, N, L>`] is the `csr_*` layer itself over an inner backend `M`.
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
/// overlapping [000 §1]; `L` is how a lookup finds the region of an address
/// ([`BinarySearch`], the default, or [`CellIndex`]).
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
/// - `dev[i]`: the translation of `key[i]` (`device_addr + o`): the
///   translation of a valid `p` is `dev + 4k`.
///
/// An access at `p` is valid in region `i` exactly when
/// `(p - key[i]).rotate_right(2) < span[i]` (wrapping subtraction): the
/// rotation moves a misaligned remainder into the top bits and a `p` below the
/// key wraps to a value no `span` reaches, so bounds `[start, end - 4]` and the
/// alignment of the translated address are one unsigned compare.
///
/// Which region to test:
///
/// - [`BinarySearch`] (the default; no memory beyond the slots): the last
///   slot with `key[i] <= p`, by a binary search over all `N` slots (`N` is
///   a constant, so the search is fully unrolled). Up to 4 slots and past
///   32, a loop of steps each carrying the slot found so far (2 steps for 4
///   slots, 8 for 256, about 2.5 instructions each); from 5 to 32 slots, a
///   decision tree whose probes are constant slots and whose last step
///   subtracts a compare's carry from the upper slot of a pair (no slot
///   carried from step to step; slots past `N` pruned at compile time).
///   Measured (callgrind, `csr_read`, Ir over a raw add of 7.0): 4 windows
///   +9.5; 8 windows +10.76 on every 8-window layout of the bench and both
///   checkers (+12.0 before the tree); 6 windows +9.66; 16 +12.88 (+14.5);
///   17 +15.42 (+16.6); 64 +19.5, 256 +24.5 (the loop). Issue 12's
///   "≤ 8 windows ≤ +10" holds by default for a table of 6 slots (+9.66),
///   not of 8 (+10.76).
/// - [`CellIndex`] (opt in: `RegionTable<N, CellIndex>`, about 3 KiB
///   more): one cell of 128 picked by a multiply, owning two entries that
///   hold copies of the fast-path words of its regions, and one compare
///   choosing between them; see its docs. About +8.0 in the ordinary
///   layouts measured from 5 to 64 windows, with no step in `N` (the
///   accesses a cell does not resolve take the binary search; past about
///   128 regions the cells crowd and the binary search alone is faster);
///   layouts built to defeat the cells are dearer than the search (three
///   windows in one cell +13.4, windows at powers of two apart +18.9:
///   `docs/PERFORMANCE.md`).
///
/// Why the index is a type parameter rather than chosen by `N`: a stable
/// Rust type cannot size a field by a test on `N`, so a table holding the
/// index for `N > 4` would hold it for every `N` (it did: a 4-slot table
/// was 496 bytes, 264 of them an unused index; now 232, and a firmware
/// image's zero fill with it). The default keeps small tables small and
/// `Csr<M, 4>` unchanged; a caller wanting the faster lookup names it.
///
/// Either way a region the fast path does not accept takes the slow path
/// ([`Self::find`] and [`CsrRegion::translate`]), which gives the exact error
/// of [000 §1], or the translation. The lookup only decides how fast an
/// answer comes, never what it is, so the answers are those of a linear scan
/// for every table and address (`tests/tests/csr_regions.rs`,
/// `lookup_matches_a_linear_model`, both lookups).
///
/// Size: 56 bytes per slot and one word (232 bytes for `N = 4`), plus the
/// [`CellIndex`] if chosen.
///
/// The used slots are the LAST `len` of the arrays; the unused ones come first
/// and are all zero (key 0, span 0: they sort below every region and never
/// match). So a new table is one zero fill, which the compiler writes in place
/// rather than building and copying it, and the table is a plain fixed array:
/// inserting shifts entries by swaps, so no `memmove` is linked into firmware
/// (the `heapless::Vec` it replaces pulled in `memmove`/`memcpy`, 21% of a
/// firmware image's `.text`).
#[derive(Clone)]
pub struct RegionTable<const N: usize, L: Lookup = BinarySearch> {
    regions: [CsrRegion; N],
    key: [u64; N],
    span: [u64; N],
    dev: [u64; N],
    len: usize,
    /// The lookup's own data (nothing for [`BinarySearch`]).
    index: L,
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
    /// The answer of [`RegionTable::translate`] for an access at `a`.
    #[doc(hidden)]
    fn translate<const N: usize>(table: &RegionTable<N, Self>, a: u64) -> Result<DeviceAddr>;
}

/// Keeps [`Lookup`] to the two lookups of this module.
mod sealed {
    pub trait Sealed {}
    impl Sealed for super::BinarySearch {}
    impl Sealed for super::CellIndex {}
}

/// The default [`Lookup`]: a branch-free binary search over the slots, no
/// memory of its own (see [`RegionTable`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BinarySearch;

impl Lookup for BinarySearch {
    const EMPTY: Self = BinarySearch;

    #[inline(always)]
    fn rebuild<const N: usize>(_: &mut RegionTable<N, Self>) {}

    #[inline(always)]
    fn translate<const N: usize>(table: &RegionTable<N, Self>, a: u64) -> Result<DeviceAddr> {
        table.search(a)
    }
}

/// Cells of a [`CellIndex`], and how many address bits pick one.
const CELL_BITS: u32 = 7;
const CELLS: usize = 1 << CELL_BITS;

/// The [`Lookup`] for tables of 5 to about 128 regions: a cell index built at
/// insert and removal, about 3 KiB (`RegionTable<N, CellIndex>`).
///
/// A cell is the top 7 bits of `p * mul` (wrapping): with `mul = 2^(57 - s)`
/// that is bits `s..s + 7` of the address, with a sum of two powers of two
/// it adds a second group of address bits in (a multiply rather than a shift
/// by a variable amount: on x86-64 that needs the count in `cl`, which costs
/// moves).
///
/// The index is a row of `CELLS + 1` **entries**, each a copy of one
/// region's fast-path words (`key`, `span`, `dev`, see [`RegionTable`]) or
/// empty (key `u64::MAX`, span 0). Cell `c` owns entries `c` and `c + 1`,
/// and an access at `p` in it tests entry `c + 1` when `p` is at or above
/// that entry's key, else entry `c`:
///
/// ```text
/// c = (p * mul) >> 57;  i = c + (p >= key[c + 1]);  t = (p - key[i]).rotate_right(2);  t < span[i]
/// ```
///
/// (a multiply, a shift, one compare choosing the entry, the test; the cell
/// and the entry index fixed arrays, so no bounds check is left). A cell
/// holding valid addresses of two regions has the lower in entry `c` and
/// the higher in entry `c + 1`: a valid `p` of the higher region is at or
/// above its key, one of the lower below it (the regions are disjoint), so
/// **one compare picks the region, with no second test, whichever of the
/// two is accessed**. A cell of one region has it in entry `c` (and an empty
/// entry or a higher region after it) or in entry `c + 1`. Neighbouring
/// cells share an entry, so the build walks the cells in order and gives
/// each entry the region both cells want; where they want different ones
/// (two cells side by side each holding two regions and no region across
/// their border), or a cell holds three or more regions, some valid
/// accesses are not accepted by their cell.
///
/// The build tries each power, then the best one plus each lower power, and
/// keeps the `mul` that leaves the fewest cells not resolving all their
/// valid addresses. An access the cell does not accept (invalid, or one of
/// those) takes the binary search of [`BinarySearch`], then the slow path
/// if that misses too: the exact answer, a little later. So there is no
/// capacity limit and no step where the binary search takes over for the
/// whole table: it takes over per cell, for the cells the build could not
/// resolve, which tables of up to about 64 regions of similar size rarely
/// have (each region needs a cell border of its own).
///
/// Measured (callgrind, `csr_read`, Ir over a raw add of 7.0; `khal_ir`
/// scenarios, see `docs/PERFORMANCE.md`): +8.0 for 8 windows of 64 KiB
/// 1 MiB apart, 8 irregular windows, 8 windows in two clusters 2^47 apart
/// (the mesh halves of [000 §2]), the checker's 6 windows in two close
/// pairs over 60 GiB (uniform, and 90% of the accesses in one window), 16,
/// 17 and 32 windows; +8.3 for 7 windows of 64 bytes beside one of 1 GiB
/// whose cells alias theirs (it loses the cell before each small one). The
/// binary search (its decision tree): 8 windows +10.76, 16 +12.88, 17
/// +15.42.
///
/// 64 windows: +8.0 (binary search +19.5). Where the binary search takes
/// over: past about twice the cells, regions crowd the cells and their
/// accesses pay a miss before the search (256 windows: +36.3 against the
/// search's +24.5), so large tables keep [`BinarySearch`].
///
/// Size: `3 x 129` words and the multiplier (3 104 bytes), in every table
/// using it. The build (at insert and removal) tries about 60 to 230
/// multipliers, each `O(N x cells)`: filling a table of 16 regions takes
/// about 0.7 ms, 64 about 25 ms (x86-64, release).
#[derive(Clone)]
pub struct CellIndex {
    /// The entries' fast-path words (type docs): cell `c` owns `c` and `c + 1`.
    key: [u64; CELLS + 1],
    span: [u64; CELLS + 1],
    dev: [u64; CELLS + 1],
    /// The cell multiplier: `(p * mul) >> (64 - CELL_BITS)` is `p`'s cell.
    mul: u64,
}

impl core::fmt::Debug for CellIndex {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CellIndex")
            .field("cells", &CELLS)
            .field("mul", &format_args!("{:#x}", self.mul))
            .finish_non_exhaustive()
    }
}

/// What the build of a [`CellIndex`] has decided for one entry.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Entry {
    /// Nothing yet: empty unless a later cell wants a region in it.
    Free,
    /// The cell before it tests its region in the entry before: this one
    /// may hold that region or a higher one (or stay empty), not a lower.
    Above(usize),
    /// This region (a slot).
    Region(usize),
}

impl Entry {
    /// Whether a cell may put slot `w` here.
    fn admits(self, w: usize) -> bool {
        match self {
            Entry::Free => true,
            Entry::Above(f) => w >= f,
            Entry::Region(r) => r == w,
        }
    }
}

impl CellIndex {
    /// The entries for the cells' regions (`sets`), walking the cells in
    /// order, and the weight of the valid addresses their cells do not
    /// resolve (type docs).
    fn chain<const N: usize>(sets: &CellSets<N>) -> ([Entry; CELLS + 1], u32) {
        let w = |r: usize| sets.weight.get(r).copied().unwrap_or(0);
        let mut e = [Entry::Free; CELLS + 1];
        let mut lost = 0u32;
        for (c, &(n, [p, q], all)) in sets.cell.iter().enumerate() {
            let (Some(&here), Some(&next)) = (e.get(c), e.get(c + 1)) else {
                continue;
            };
            let (here, next) = match n {
                0 => (here, next),
                1 if here.admits(p) => (Entry::Region(p), Entry::Above(p)),
                // The entry before is another region's: this one goes
                // after it, where every valid address of it is at or above
                // its key.
                1 => (here, Entry::Region(p)),
                _ => {
                    // Two regions (the two kept of a crowded cell, which
                    // loses the others): the lower first.
                    let (lo, hi) = (p.min(q), p.max(q));
                    lost += all.saturating_sub(w(p) + w(q));
                    // The entry is the cell before's (its region, or one
                    // at or above it): one of the two cells loses a
                    // region's addresses in it; the one losing less.
                    let here = match here {
                        Entry::Above(r) | Entry::Region(r) if !here.admits(lo) => {
                            lost += w(r).min(w(lo));
                            if w(r) >= w(lo) {
                                here
                            } else {
                                Entry::Region(lo)
                            }
                        }
                        _ => Entry::Region(lo),
                    };
                    (here, Entry::Region(hi))
                }
            };
            if let Some([a, b]) = e.get_mut(c..c + 2) {
                (*a, *b) = (here, next);
            }
        }
        (e, lost)
    }
}

/// The regions of each cell under one multiplier: what the build of a
/// [`CellIndex`] works from ([`RegionTable::cell_sets`]).
struct CellSets<const N: usize> {
    /// Per cell: how many regions have a valid address in it (up to 255),
    /// the two of them a cell keeps (slots; `N` for none; the two with the
    /// largest weight, ties the lower slot), and the weight of all of them.
    cell: [(u8, [usize; 2], u32); CELLS],
    /// Per slot: the share of its accesses in each cell it has valid
    /// addresses in, `CELLS / cells` (at least 1; 0 for none), if every
    /// region is accessed as often, uniformly over its addresses. A small
    /// region is most of its accesses in the cells it shares; a large one a
    /// small part of its own.
    weight: [u32; N],
}

impl Lookup for CellIndex {
    const EMPTY: Self = CellIndex {
        key: [0; CELLS + 1],
        span: [0; CELLS + 1],
        dev: [0; CELLS + 1],
        mul: 1,
    };

    /// The multiplier leaving the fewest unresolved cells, then the entries.
    fn rebuild<const N: usize>(table: &mut RegionTable<N, Self>) {
        // The score of `m`: the regions left unresolved in a cell, summed
        // over the cells. The regions past two of crowded cells
        // ([`RegionTable::crowding`], cheap) are a lower bound of it, so the
        // full walk runs only for a multiplier that may win.
        let score = |m: u64, best: u32| -> u32 {
            if table.crowding(m, best) >= best {
                return best;
            }
            Self::chain::<N>(&table.cell_sets(m)).1
        };
        // A power of two first: cell = bits `shift..shift + CELL_BITS`. The
        // three best (ties: the smaller shift) are kept.
        let top = 64 - CELL_BITS;
        let mut bases = [(u32::MAX, 1u64 << top); 3];
        for x in (0..=top).rev() {
            let worst = bases.iter().map(|b| b.0).max().unwrap_or(u32::MAX);
            let c = score(1 << x, worst);
            if let Some(slot) = bases.iter_mut().find(|b| b.0 == worst) {
                if c < worst {
                    *slot = (c, 1 << x);
                }
            }
            if c == 0 {
                break;
            }
        }
        let (mut best, mut mul) = bases.iter().copied().min_by_key(|b| b.0).unwrap_or((0, 1));
        // Then each of them plus a lower power: the cell adds a second
        // group of address bits, which separates regions a power of two
        // apart that the first aliases (the two mesh halves, 2^47 apart
        // [000 §2], or a window far above a cluster), each a cell border
        // of its own.
        for (_, base) in bases {
            for y in 0..top {
                if best == 0 {
                    break;
                }
                let m = base | 1 << y;
                if m == base {
                    continue;
                }
                let c = score(m, best);
                if c < best {
                    (best, mul) = (c, m);
                }
            }
        }
        let (entries, _) = Self::chain::<N>(&table.cell_sets(mul));
        let RegionTable {
            key,
            span,
            dev,
            index,
            ..
        } = table;
        index.mul = mul;
        for (at, e) in entries.iter().enumerate() {
            let words = match *e {
                Entry::Region(w) => (
                    key.get(w).copied().unwrap_or(u64::MAX),
                    span.get(w).copied().unwrap_or(0),
                    dev.get(w).copied().unwrap_or(0),
                ),
                // Empty: no address is above the key (but `u64::MAX`, which
                // then meets span 0: a miss).
                Entry::Free | Entry::Above(_) => (u64::MAX, 0, 0),
            };
            if let (Some(k), Some(s), Some(d)) = (
                index.key.get_mut(at),
                index.span.get_mut(at),
                index.dev.get_mut(at),
            ) {
                (*k, *s, *d) = words;
            }
        }
    }

    #[inline(always)]
    fn translate<const N: usize>(table: &RegionTable<N, Self>, a: u64) -> Result<DeviceAddr> {
        let x = &table.index;
        // The cell (type docs): below `CELLS`, so `c + 1` and the entry
        // index the arrays without a check.
        let c = (a.wrapping_mul(x.mul) >> (64 - CELL_BITS)) as usize;
        let i = c + 1 - usize::from(a < x.key.get(c + 1).copied().unwrap_or(0));
        let s = x.span.get(i).copied().unwrap_or(0);
        let t = a
            .wrapping_sub(x.key.get(i).copied().unwrap_or(0))
            .rotate_right(2);
        if t < s {
            // `t < span`: `dev + 4t` is at most `device_addr + end - start - 4`.
            let d = x.dev.get(i).copied().unwrap_or(0);
            return Ok(DeviceAddr(d.wrapping_add(t << 2)));
        }
        table.cell_miss(i, t)
    }
}

impl<const N: usize> RegionTable<N, CellIndex> {
    /// An access the [`CellIndex`] cell did not accept, from the entry `i`
    /// it tested and `t`: the address is `key + t.rotate_left(2)` (taking
    /// `t` rather than the address lets the fast path subtract in place).
    /// The binary search answers (a valid address the cell does not lead
    /// to, or the slow path's exact error).
    #[cold]
    #[inline(never)]
    fn cell_miss(&self, i: usize, t: u64) -> Result<DeviceAddr> {
        let k = self.index.key.get(i).copied().unwrap_or(0);
        self.search(k.wrapping_add(t.rotate_left(2)))
    }

    /// The regions of each cell under multiplier `m` ([`CellSets`]).
    fn cell_sets(&self, m: u64) -> CellSets<N> {
        let mut sets = CellSets {
            cell: [(0u8, [N; 2], 0u32); CELLS],
            weight: [0; N],
        };
        for j in self.first()..N {
            if let (Some((_, n)), Some(w)) = (self.arc(j, m), sets.weight.get_mut(j)) {
                *w = (CELLS / (n + 1)) as u32;
            }
        }
        let w = sets.weight;
        let w = |r: usize| w.get(r).copied().unwrap_or(0);
        for j in self.first()..N {
            let Some((c0, n)) = self.arc(j, m) else {
                continue;
            };
            for i in 0..=n {
                let Some((count, p, all)) = sets.cell.get_mut((c0 + i) % CELLS) else {
                    continue;
                };
                *p = match *p {
                    [a, _] if a == N => [j, N],
                    [a, _] if w(j) > w(a) => [j, a],
                    [a, b] if b == N || w(j) > w(b) => [a, j],
                    keep => keep,
                };
                *count = count.saturating_add(1);
                *all += w(j);
            }
        }
        sets
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
            dev: [0; N],
            len: 0,
            index: L::EMPTY,
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
        L::rebuild(self);
        Ok(())
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

    /// How crowded the cells of a [`CellIndex`] would be under multiplier
    /// `m`: for each cell holding valid addresses of three or more regions,
    /// the regions past two (their accesses in it take the binary search; a
    /// cell of two costs nothing, see [`CellIndex`]). Counted with a difference array
    /// over the regions' arcs: `O(N + CELLS)`; stops at `bound` (the best so
    /// far).
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
            score += u32::try_from(n - 2).unwrap_or(0);
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
        L::translate(self, p.get())
    }

    /// The [`BinarySearch`] lookup: the last slot with `key <= a`, then the
    /// fast-path test (see the type docs).
    #[inline(always)]
    fn search(&self, a: u64) -> Result<DeviceAddr> {
        let slot = self.slot_of(a);
        let (t, s, d) = self.fast(slot, a);
        if t < s {
            return Ok(DeviceAddr(d.wrapping_add(t << 2)));
        }
        self.refuse(slot, t)
    }

    /// The slot the [`BinarySearch`] tests for an access at `a`: the last
    /// slot with `key <= a` (an unused slot, or slot 0, when no region's key
    /// is; the test then refuses). Up to 4 slots and past 32: the branch-free
    /// search over all `N` slots (`N` is a constant, so it is unrolled: 2
    /// steps for 4 slots, 8 for 256); 5 to 32: [`Self::tree`].
    #[inline(always)]
    fn slot_of(&self, a: u64) -> usize {
        // One step: the last slot with `key <= a` among `n` from `base`
        // lies in the upper or the lower half.
        let step = |(base, n): (usize, usize)| {
            let half = n / 2;
            let probe = base + half;
            let go = self.key.get(probe).is_some_and(|&k| k <= a);
            (core::hint::select_unpredictable(go, probe, base), n - half)
        };
        let mut at = (0usize, N);
        if N <= 4 {
            // Written out: at `opt-level = "s"` (firmware) a loop stays a
            // loop.
            if N > 1 {
                at = step(at);
            }
            if N > 2 {
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

    /// The answer for an access the fast path did not resolve, from the
    /// slot it tried and `t`: the address is `key[slot] + t.rotate_left(2)`
    /// (taking `t` rather than the address lets the fast path subtract in
    /// place, one move fewer per access). The answer is the C-shaped one
    /// ([`Self::find`], then [`CsrRegion::translate`]): the exact error.
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
    /// 83.5 through the default lookup, `docs/PERFORMANCE.md`).
    #[cold]
    #[inline(never)]
    fn refuse(&self, slot: usize, t: u64) -> Result<DeviceAddr> {
        let p = DeviceAddr(self.key(slot).wrapping_add(t.rotate_left(2)));
        // On bare metal `find` instead: the same answer from the code the
        // array forms share (the two tests cost 68 bytes of .text there).
        #[cfg(target_os = "none")]
        let region = self.find(p);
        #[cfg(not(target_os = "none"))]
        let region = {
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

/// The `csr_*` layer over an inner backend `M`, with up to `N` regions
/// looked up through `L` (the [`BinarySearch`] unless named: a
/// `Csr<M, 8, CellIndex>` holds a [`RegionTable<8, CellIndex>`]).
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
pub struct Csr<M, const N: usize, L: Lookup = BinarySearch> {
    inner: M,
    regions: Option<RegionTable<N, L>>,
    /// Region lookups done so far: lets the tests assert "one lookup per
    /// `axi_write`". Compiled into test builds only, so it costs nothing in
    /// firmware.
    #[cfg(test)]
    lookups: core::sync::atomic::AtomicUsize,
}

impl<M, const N: usize, L: Lookup> Csr<M, N, L> {
    /// The layer over `inner` with `regions` registered.
    pub fn new(inner: M, regions: RegionTable<N, L>) -> Self {
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
    pub fn register(&mut self, regions: RegionTable<N, L>) {
        self.regions = Some(regions);
    }

    /// Deregister the table (`csr_deregister` [000 §1]), giving it back.
    pub fn deregister(&mut self) -> Option<RegionTable<N, L>> {
        self.regions.take()
    }

    /// The registered table, if any.
    pub fn regions(&self) -> Option<&RegionTable<N, L>> {
        self.regions.as_ref()
    }

    /// The registered table, to register more regions in place (firmware
    /// builds its table inside the `Csr`, so the table is never moved).
    pub fn regions_mut(&mut self) -> Option<&mut RegionTable<N, L>> {
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

impl<M: Mmio, const N: usize, L: Lookup> Csr<M, N, L> {
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

impl<M: Mmio, const N: usize, L: Lookup> Mmio for Csr<M, N, L> {
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
    /// tables of capacity 1, 3, 4, 8 and 16, full and partly used, with
    /// either lookup.
    #[test]
    fn fast_translate_matches_find_then_translate_exhaustively() {
        fn check<const N: usize>(regions: &[(u64, u64, u64)]) {
            one::<N, BinarySearch>(regions);
            // The index's build is safe code and slow under Miri.
            if !cfg!(miri) {
                one::<N, CellIndex>(regions);
            }
        }
        fn one<const N: usize, L: Lookup>(regions: &[(u64, u64, u64)]) {
            let mut t = RegionTable::<N, L>::new();
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
            // The binary search's decision tree with slots past `N` pruned.
            one::<2, BinarySearch>(&regions);
            one::<5, BinarySearch>(&regions);
            one::<7, BinarySearch>(&regions);
            one::<12, BinarySearch>(&regions);
            one::<16, BinarySearch>(&regions[..3]);
        }
        // A window ending at the top of the address space, and the MAX padding.
        check::<4>(&[(u64::MAX - 0x20, u64::MAX, 0x40)]);
        check::<4>(&[(0, 0x10, u64::MAX - 0x10)]);
        // The same through the decision tree (8, 12 slots), with windows
        // below them and one at address 0.
        let top = [
            (0, 0x10, 0x3),
            (0x1000, 0x1010, 0x0),
            (u64::MAX - 0x61, u64::MAX - 0x40, 0x41),
            (u64::MAX - 0x40, u64::MAX - 0x20, 0x2),
            (u64::MAX - 0x20, u64::MAX, 0x40),
        ];
        fn around<const N: usize>(regions: &[(u64, u64, u64)]) {
            let mut t = RegionTable::<N>::new();
            for &(s, e, d) in regions {
                t.insert(region(s, e, d, 0)).unwrap();
            }
            for &(s, e, _) in regions {
                for a in s.saturating_sub(8)..=e.saturating_add(8) {
                    let p = DeviceAddr(a);
                    let slow = t
                        .find(p)
                        .ok_or(Error::no_region(a))
                        .and_then(|r| r.translate(p));
                    assert_eq!(t.translate(p), slow, "N={N} a={a:#x}");
                }
            }
        }
        around::<8>(&top);
        around::<12>(&top);
        around::<8>(&top[2..]);
    }

    /// The default lookup's search leads every valid address of a table to
    /// its region by itself (the slow path would hide a wrong slot: the
    /// answers could not tell, only the speed), for every capacity from 1
    /// to 40 (the unrolled loop up to 4 and past 32, the decision tree from
    /// 5 to 32, its slots past `N` pruned), full and partly used, after
    /// inserts out of order and after `remove_device`; and an address below
    /// every key takes the last unused slot (slot 0 when full).
    #[test]
    // Safe code only, and slow under Miri (tens of thousands of lookups).
    #[cfg_attr(miri, ignore)]
    fn the_search_finds_every_valid_address_itself() {
        fn check<const N: usize>(used: usize) {
            let mut t = RegionTable::<N>::new();
            let n = used.min(N) as u64;
            // Inserted out of order; lengths and alignment offsets vary.
            for k in 0..n {
                // 0, n - 1, 1, n - 2, ...
                let i = if k % 2 == 0 { k / 2 } else { n - 1 - k / 2 };
                let s = 0x10_0000 + i * 0x1000 + (i % 3);
                let len = 4 + (i * 0x1F3) % 0xF00;
                t.insert(region(
                    s,
                    s + len,
                    0x8000_0000 + i * 0x10 + (i % 4),
                    i as u32 % 3,
                ))
                .unwrap();
            }
            let valid = |t: &RegionTable<N>| {
                for (j, r) in t.as_slice().iter().enumerate() {
                    let slot = N - t.len() + j;
                    let (s, e) = (r.start().get(), r.end().get());
                    let inside = (s..e).step_by(61);
                    for p in (s..s + 8).chain(e - 8..e).chain(inside) {
                        if r.translate(DeviceAddr(p)).is_ok() {
                            assert_eq!(t.slot_of(p), slot, "N={N} used={used} {p:#x}");
                        }
                    }
                }
                // The last unused slot (key 0), or slot 0 in a full table.
                let below = (N - t.len()).saturating_sub(1);
                assert_eq!(t.slot_of(0x1000), below, "N={N}: below every key");
            };
            valid(&t);
            t.remove_device(1);
            valid(&t);
        }
        fn all<const N: usize>() {
            for used in [N, N / 2 + 1, 1] {
                check::<N>(used);
            }
        }
        all::<1>();
        all::<2>();
        all::<3>();
        all::<4>();
        all::<5>();
        all::<6>();
        all::<7>();
        all::<8>();
        all::<9>();
        all::<12>();
        all::<15>();
        all::<16>();
        all::<17>();
        all::<24>();
        all::<31>();
        all::<32>();
        all::<33>();
        all::<40>();
    }

    /// Whether the cell index alone (the one entry its cell picks) accepts `a`.
    fn index_accepts<const N: usize>(t: &RegionTable<N, CellIndex>, a: u64) -> bool {
        let x = &t.index;
        let c = (a.wrapping_mul(x.mul) >> (64 - CELL_BITS)) as usize;
        let i = if a >= x.key[c + 1] { c + 1 } else { c };
        a.wrapping_sub(x.key[i]).rotate_right(2) < x.span[i]
    }

    /// The cell index leads every valid address of these tables to its
    /// region without the binary search: the answers cannot tell (a miss
    /// falls back to the search), so this is what keeps the index from
    /// silently decaying, after inserts in any order and after
    /// `remove_device` (8 windows of 64 KiB 1 MiB apart; windows of 4 bytes
    /// to 64 KiB, adjacent or 2 KiB apart, misaligned translations; a table
    /// of 16 with one window 4 GiB away; two clusters of 4 windows 2^47
    /// apart; the checker's two close pairs over 60 GiB; 17 and 40 windows).
    #[test]
    // Safe code only, and slow under Miri (tens of thousands of lookups).
    #[cfg_attr(miri, ignore)]
    fn the_cell_index_resolves_valid_addresses_itself() {
        fn check<const N: usize>(t: &RegionTable<N, CellIndex>) {
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
        let mut t = RegionTable::<8, CellIndex>::new();
        for i in [3u64, 0, 7, 5, 1, 6, 2, 4] {
            let s = 0x20_0000_0000 + i * 0x10_0000;
            t.insert(region(s, s + 0x1_0000, s, i as u32)).unwrap();
        }
        check(&t);
        assert_eq!(t.remove_device(3), 1);
        check(&t);
        let mut t = RegionTable::<5, CellIndex>::new();
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
        let mut t = RegionTable::<16, CellIndex>::new();
        for i in 0..15u64 {
            let s = 0x4000 + i * 0x3000;
            t.insert(region(s, s + 0x1000 + i * 0x100, s, 0)).unwrap();
        }
        t.insert(region(0x1_0000_0000, 0x1_0001_0000, 0, 1))
            .unwrap();
        check(&t);
        // Two clusters 2^47 apart (the mesh halves of [000 §2]): cells
        // alias them.
        let mut t = RegionTable::<8, CellIndex>::new();
        for i in 0..8u64 {
            let s = 0x20_0000_0000 + (i % 4) * 0x100_0000 + (i / 4) * 0x8000_0000_0000;
            t.insert(region(s, s + 0x10_0000, i * 0x10_0000, 0))
                .unwrap();
        }
        check(&t);
        // The checker's layout: two close pairs (one adjacent, one a 32-byte
        // window 4 KiB below a 128 KiB one) and two loners over 60 GiB.
        let mut t = RegionTable::<6, CellIndex>::new();
        for (s, len) in [
            (0xF_0000_0000, 0x10_0000),
            (0x0, 0x800),
            (0x5000_1000, 0x2_0000),
            (0x1238_0000, 0x4_0000),
            (0x5000_0000, 0x20),
            (0x1234_0000, 0x4_0000),
        ] {
            let s = 0x20_0000_0000 + s;
            t.insert(region(s, s + len, s & 0xFFF_FFFF, 0)).unwrap();
        }
        check(&t);
        // 17 and 40 windows (past where the index of 5 to 16 slots stopped).
        let mut t = RegionTable::<17, CellIndex>::new();
        for i in 0..17u64 {
            let s = 0x20_0000_0000 + i * 0x10_0000 + (i * i * 0x1_3000) % 0x8_0000;
            t.insert(region(s, s + 0x1_0000, i * 0x1_0000, 0)).unwrap();
        }
        check(&t);
        let mut t = RegionTable::<40, CellIndex>::new();
        for i in (0..40u64).rev() {
            let s = 0x1000_0000 + i * 0x4_0000;
            t.insert(region(s, s + 0x1000 * (1 + i % 7), s, 0)).unwrap();
        }
        check(&t);
    }

    /// Cells the build cannot resolve (a cell holding three regions) still
    /// answer exactly: through the binary search, the translation, and the
    /// slow path's error and error address.
    #[test]
    // Safe code only, and the index's build is slow under Miri.
    #[cfg_attr(miri, ignore)]
    fn crowded_cells_answer_through_the_search() {
        let mut t = RegionTable::<8, CellIndex>::new();
        // Eight 8-byte windows 8 bytes apart, then one far away: no
        // multiplier gives each of the 64 bytes a cell border of its own.
        for i in 0..7u64 {
            t.insert(region(0x1000 + 16 * i, 0x1008 + 16 * i, 0x100 * i, 0))
                .unwrap();
        }
        t.insert(region(0x4000_0000, 0x4000_1000, 0x8000, 1))
            .unwrap();
        for a in 0x0FF0u64..0x1080 {
            let p = DeviceAddr(a);
            let slow = t
                .find(p)
                .ok_or(Error::no_region(a))
                .and_then(|r| r.translate(p));
            assert_eq!(t.translate(p), slow, "{a:#x}");
        }
        assert_eq!(t.translate(DeviceAddr(0x1014)), Ok(DeviceAddr(0x104)));
        assert_eq!(
            t.translate(DeviceAddr(0x100C)),
            Err(Error::no_region(0x100C))
        );
        assert_eq!(
            t.translate(DeviceAddr(0x1005)),
            Err(Error::out_of_window(0x1005))
        );
    }

    /// The default lookup carries nothing: a table is its slots and its
    /// length (issue 12: `RegionTable<4>` carried an unused 264-byte index);
    /// the cell index is paid only by the tables that name it.
    #[test]
    fn only_the_cell_index_costs_memory() {
        use core::mem::size_of;
        let slot = size_of::<CsrRegion>() + 3 * size_of::<u64>();
        // The length, padded to at most one `u64` (targets differ).
        let len = size_of::<u64>();
        assert_eq!(size_of::<BinarySearch>(), 0);
        assert!(size_of::<RegionTable<4>>() <= 4 * slot + len);
        assert!(size_of::<RegionTable<64>>() <= 64 * slot + len);
        assert_eq!(
            size_of::<CellIndex>(),
            (3 * (CELLS + 1) + 1) * size_of::<u64>()
        );
        assert!(size_of::<RegionTable<8, CellIndex>>() >= 8 * slot + size_of::<CellIndex>());
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
