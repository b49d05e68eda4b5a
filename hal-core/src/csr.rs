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
//!   **kept sorted by `start`** with overlaps refused at insert. A lookup goes
//!   through a cell index built at insert ([`CellIndex<N>`](CellIndex), the
//!   default `L`: `192 N` bytes more) or, named as
//!   `RegionTable<N, BinarySearch>`, a binary search with no memory and no
//!   build (`O(log N)`; see [`RegionTable`] for the choice). The C `find_region_for` takes "the
//!   first region whose `[start, end)` holds the address"; with no overlaps
//!   there is at most one, so the order of the search does not change the
//!   answer.
//! - [`Csr<M, N, L>`] is the `csr_*` layer itself over an inner backend `M`.
//! - [`CsrWindow`] ([`Csr::window`]) and [`Csr::bind_block`]: a block of one
//!   region resolved once, for a driver that holds its registers for its
//!   whole life (khal's own; see the `window` module docs).
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

mod window;
pub use window::CsrWindow;

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
///   per access at 4 accesses, +9.88 at 8 (the binary search +17.5 /
///   +15.75; `tests/src/bin/khal_ir/chk4.rs`); through windows resolved
///   once ([`Csr::window`]) +6.75 / +7.0 on every layout. Random layouts vary: of
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
    regions: [CsrRegion; N],
    key: [u64; N],
    span: [u64; N],
    delta: [u64; N],
    len: usize,
    /// The lookup's own data (nothing for [`BinarySearch`], the cells of a
    /// [`CellIndex`]).
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

/// The [`Lookup`] that finds the region of an address through a cell index
/// built at insert and removal: one multiply picks a cell, and the cell's
/// entry, then the next entry, is tested. The default of
/// [`RegionTable<N>`](RegionTable) is `CellIndex<N>`: `8 N` cells (see
/// [`RegionTable`] for the choice); `CellIndex` alone is `CellIndex<16>`,
/// 128 cells, for a table of any capacity.
///
/// `CELLS`, the cells in use, is the largest power of two at most `8 M`;
/// each has one entry, a copy of one region's fast-path words (`key`,
/// `span`, `delta`, see [`RegionTable`]) or empty (span 0).
///
/// A cell is the top `log2 CELLS` bits of `p * mul` (wrapping): with `mul` a
/// power of two that is a group of address bits; with a sum of two powers
/// it adds a second group in (a multiply rather than a shift by a variable
/// amount: on x86-64 that needs the count in `cl`, which costs moves).
/// Cell `c` tests entry `c`, then entry `c + 1` (modulo `CELLS`):
///
/// ```text
/// c = (p * mul) >> (64 - log2 CELLS);  test(c)  or  test((c + 1) mod CELLS)
/// test(i) = (p - key[i]).rotate_right(2) < span[i]  then  p + delta[i]
/// ```
///
/// So a region whose valid addresses are the only ones in a cell costs a
/// multiply, a shift and the test (8 instructions over the raw add on
/// x86-64). Neighbouring cells share an entry: the build walks the cells in
/// order and gives each entry the region its cell accesses most, and a
/// second region of a cell the next entry when the next cell leaves it
/// free or wants the same region (a window spanning the border). A cell
/// holding three regions, or two whose next entry another region holds,
/// does not resolve all its addresses: those take the binary search of
/// [`BinarySearch`], then the slow path if that misses too: the exact
/// answer, a little later. The cells only decide how fast an answer comes.
///
/// The build tries each power of two, then the Fibonacci multipliers
/// (`2^64 / φ` shifted right, one per cell width: regions a power of two
/// apart get cells of their own), then the three best powers plus each
/// lower power, then, for two neighbouring regions the best so far puts in
/// one cell, the multipliers of about its size that put a cell border
/// between them (three windows in one cell: a border splits them one and
/// two, one of the two in the next entry), and keeps the multiplier whose entries cost least: the
/// accesses a cell finds in its next entry, plus six times those it does
/// not resolve, each region's accesses spread evenly over its cells. It
/// stops at the first multiplier that costs nothing.
///
/// Measured per `csr_read` call over the raw add it replaces (callgrind,
/// x86-64, `docs/PERFORMANCE.md`): +8 at 2 to 64 windows on the ordinary
/// layouts of the bench and the checkers (a window in its cell's own
/// entry); an access found in the next entry pays one test more (+13); one
/// its cell does not resolve takes the binary search after the miss.
///
/// Size: `3 x 8 M` words and the multiplier (`192 M + 8` bytes; 776 for
/// `M = 4`, 1 544 for 8). The build (at insert and removal) tries about 60
/// to 300 multipliers, and up to 16 for each two neighbours sharing a
/// cell; a lower bound of the cost from the crowded cells
/// skips most, the rest cost `O(N x CELLS)`. Filling a table one `insert`
/// at a time rebuilds it each time (callgrind on x86-64: 8 windows 0.68 M
/// instructions in all, 64 166 M); [`RegionTable::insert_all`] builds it
/// once (0.13 M / 4.8 M; the eight a power of two apart 0.23 M, the three
/// in one cell 0.80 M). Its scratch is on the stack, about `400 M` bytes on a
/// 64-bit target (`M = 4`: under 2 KiB; `M = 64`: about 26 KiB), which a
/// firmware stack must have at `insert`.
#[derive(Clone)]
pub struct CellIndex<const M: usize = 16> {
    /// The entries' fast-path words (type docs), `8 M` of them, of which
    /// the first `CELLS` are used.
    key: [[u64; PER_SLOT]; M],
    span: [[u64; PER_SLOT]; M],
    delta: [[u64; PER_SLOT]; M],
    /// The cell multiplier: `(p * mul) >> (64 - BITS)` is `p`'s cell.
    mul: u64,
}

/// Cells per slot of a [`CellIndex<M>`]: `CELLS` is the largest power of
/// two at most `PER_SLOT x M`.
const PER_SLOT: usize = 8;

impl<const M: usize> CellIndex<M> {
    /// How many address bits pick a cell: `CELLS` is the largest power of
    /// two at most `8 M` (2 for `M = 0`).
    const BITS: u32 = if M == 0 { 1 } else { (PER_SLOT * M).ilog2() };
    /// The cells (and the entries) in use.
    const CELLS: usize = 1 << Self::BITS;

    /// `p`'s cell.
    #[inline(always)]
    fn cell(&self, a: u64) -> usize {
        (a.wrapping_mul(self.mul) >> (64 - Self::BITS)) as usize
    }

    /// The translation of `a` if it is a valid access of entry `i`'s region
    /// (the test of [`RegionTable`]'s type docs).
    #[inline(always)]
    fn test(&self, i: usize, a: u64) -> Option<DeviceAddr> {
        let word = |w: &[[u64; PER_SLOT]; M]| w.as_flattened().get(i).copied().unwrap_or(0);
        let t = a.wrapping_sub(word(&self.key)).rotate_right(2);
        (t < word(&self.span)).then(|| DeviceAddr(a.wrapping_add(word(&self.delta))))
    }
}

impl<const M: usize> core::fmt::Debug for CellIndex<M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CellIndex")
            .field("cells", &Self::CELLS)
            .field("mul", &format_args!("{:#x}", self.mul))
            .finish_non_exhaustive()
    }
}

/// The regions of each cell under one multiplier: what the build of a
/// [`CellIndex`] works from ([`RegionTable::cell_sets`]).
struct CellSets<const N: usize, const M: usize> {
    /// Per cell (the first `CELLS` of `8 M`): how many regions have a valid
    /// address in it (up to 255), the two of them a cell keeps (slots; `N`
    /// for none; the two with the largest weight, ties the lower slot), and
    /// the weight of all of them.
    cell: [[(u8, [usize; 2], u32); PER_SLOT]; M],
    /// Per slot: the share of its accesses in each cell it has valid
    /// addresses in, `CELLS / cells` (at least 1; 0 for none), if every
    /// region is accessed as often, uniformly over its addresses. A small
    /// region is most of its accesses in the cells it shares; a large one a
    /// small part of its own.
    weight: [u32; N],
}

impl<const M: usize> Lookup for CellIndex<M> {
    const EMPTY: Self = CellIndex {
        key: [[0; PER_SLOT]; M],
        span: [[0; PER_SLOT]; M],
        delta: [[0; PER_SLOT]; M],
        mul: 1,
    };

    /// The multiplier whose entries cost least ([`RegionTable::chain`]),
    /// then the entries.
    fn rebuild<const N: usize>(table: &mut RegionTable<N, Self>) {
        // The score of `m`: the cost of its entries. Crowded cells give a
        // lower bound of it ([`RegionTable::crowding`], cheap), so the
        // full walk runs only for a multiplier that may win.
        // The build's scratch, filled in place for each multiplier (no
        // array of cells is returned by value).
        let mut sets = CellSets {
            cell: [[(0u8, [N; 2], 0u32); PER_SLOT]; M],
            weight: [0; N],
        };
        let mut entries = [[None; PER_SLOT]; M];
        let mut score = |m: u64, best: u32| -> u32 {
            if table.crowding(m, best) >= best {
                return best;
            }
            table.cell_sets(m, &mut sets);
            table.chain(&sets, &mut entries)
        };
        // A power of two first: cell = a group of `BITS` address bits. The
        // three best (ties: the smaller shift) are kept.
        let top = 64 - Self::BITS;
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
        // Then the Fibonacci multipliers (2^64 / golden ratio, shifted
        // right by 0 to 63: one per cell width): every address bit above
        // the cell width moves the cell, so regions at powers of two apart
        // that every group and pair of groups of bits alias get cells of
        // their own (the second checker's eight windows at 2^16, 2^20, ...
        // 2^40: a pair loses two of them; measured +18.3 Ir a call
        // over the raw add, with this +8.0).
        for x in 0..64 {
            if best == 0 {
                break;
            }
            let m = 0x9E37_79B9_7F4A_7C15u64 >> x;
            let c = score(m, best);
            if c < best {
                (best, mul) = (c, m);
            }
        }
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
        // Then a cell border between two neighbours the best puts in one
        // cell: the multipliers of about its size under which a cell
        // border falls between the last valid address `x1` of the one and
        // the first `x2` of the next (`x1 m < t S <= x2 m`, `S = 2^(64 -
        // BITS)` a cell of `p * m`, for `t` near `x2 mul / S`). Three
        // windows in one cell: a border splits them one and two, one of
        // the two in the next entry (measured +8.88 Ir a call over the raw
        // add, +12.5 before, when the third took the binary search).
        let width = 1u128 << (64 - Self::BITS);
        for j in table.first() + 1..N {
            let (x1, x2) = (table.last_valid(j - 1), table.key(j));
            let cell = |x: u64, m: u64| x.wrapping_mul(m) >> (64 - Self::BITS);
            if best == 0 || x1 == 0 || cell(x1, mul) != cell(x2, mul) {
                continue;
            }
            let at = u128::from(mul) * u128::from(x2) / width;
            for t in at.saturating_sub(8)..at + 8 {
                let Some(tw) = t.checked_mul(width) else {
                    continue;
                };
                // Checked divisions (`x1 != 0` above, `x2 > x1`): a division
                // the compiler cannot prove nonzero is a panic path, which a
                // panic-never firmware image refuses to link.
                let (Some(lo), Some(hi)) = (div_ceil(tw, x2), div_ceil(tw, x1)) else {
                    continue;
                };
                let Ok(m) = u64::try_from(lo) else {
                    continue;
                };
                if lo < hi && m != 0 {
                    let c = score(m, best);
                    if c < best {
                        (best, mul) = (c, m);
                    }
                }
            }
        }
        table.cell_sets(mul, &mut sets);
        table.chain(&sets, &mut entries);
        let RegionTable {
            key,
            span,
            delta,
            index,
            ..
        } = table;
        index.mul = mul;
        let words = |w: Option<usize>| match w {
            Some(w) => (
                key.get(w).copied().unwrap_or(0),
                span.get(w).copied().unwrap_or(0),
                delta.get(w).copied().unwrap_or(0),
            ),
            // Empty: span 0, nothing matches.
            None => (0, 0, 0),
        };
        for (at, e) in entries.as_flattened().iter().enumerate() {
            if let (Some(k), Some(s), Some(d)) = (
                index.key.as_flattened_mut().get_mut(at),
                index.span.as_flattened_mut().get_mut(at),
                index.delta.as_flattened_mut().get_mut(at),
            ) {
                (*k, *s, *d) = words(*e);
            }
        }
    }

    #[inline(always)]
    fn fast<const N: usize>(table: &RegionTable<N, Self>, a: u64) -> Option<DeviceAddr> {
        let x = &table.index;
        let c = x.cell(a);
        // Entry `c`, then entry `c + 1`: where the build put the cell's
        // regions (the [`CellIndex`] docs).
        x.test(c, a)
            .or_else(|| x.test((c + 1) & (Self::CELLS - 1), a))
    }

    /// The binary search answers an access the cell did not accept (a
    /// valid address the cell does not lead to, or the slow path's exact
    /// error).
    #[inline(always)]
    fn slow<const N: usize>(table: &RegionTable<N, Self>, a: u64) -> Result<DeviceAddr> {
        table.search(a)
    }
}

/// `a / b` rounded up, `None` for `b == 0` (no panic path: the cell build
/// runs in panic-never firmware).
fn div_ceil(a: u128, b: u64) -> Option<u128> {
    let b = u128::from(b);
    let q = a.checked_div(b)?;
    Some(q.wrapping_add(u128::from(a.checked_rem(b)? != 0)))
}

/// What an access a cell does not resolve costs, in units of the next
/// entry's test (the binary search and the miss path against one more
/// test; measured about 30 Ir against 5).
const LOST: u32 = 6;

/// The build of a [`CellIndex`].
impl<const N: usize, const M: usize> RegionTable<N, CellIndex<M>> {
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
        let bits = CellIndex::<M>::BITS;
        let from = u128::from(self.key(j).wrapping_mul(m));
        let len = u128::from(self.last_valid(j) - self.key(j)) * u128::from(m);
        let cells = ((from + len) >> (64 - bits)) - (from >> (64 - bits));
        let first = (from >> (64 - bits)) as usize;
        Some((first, cells.min(CellIndex::<M>::CELLS as u128 - 1) as usize))
    }

    /// A lower bound of [`Self::chain`]'s cost under multiplier `m`, from
    /// how crowded the cells are: a cell of two or more regions finds all
    /// but its heaviest in the next entry or loses them, and loses those
    /// past two, so it costs at least its weight less the heaviest weight
    /// `h` of any region, plus `LOST - 1` times its weight less `2 h`.
    /// Counted with difference arrays over the regions' arcs (each region's
    /// weight as [`Self::cell_sets`] gives it): `O(N + CELLS)`; stops at
    /// `bound` (the best so far).
    fn crowding(&self, m: u64, bound: u32) -> u32 {
        let cells = CellIndex::<M>::CELLS;
        let mut diff = [[(0i32, 0i32); PER_SLOT]; M];
        let diff = diff.as_flattened_mut();
        // Regions in every cell: how many, and their weight.
        let mut all = (0, 0);
        let mut heaviest = 0;
        for j in self.first()..N {
            let Some((c0, n)) = self.arc(j, m) else {
                continue;
            };
            let w = (cells / n.saturating_add(1)).max(1) as i32;
            heaviest = heaviest.max(w);
            if n >= cells - 1 {
                all = (all.0 + 1, all.1 + w);
                continue;
            }
            // `+1` at the arc's first cell, `-1` after its last (a mark at
            // `cells` or past it is never summed).
            let (from, to) = (c0 % cells, (c0 + n) % cells + 1);
            let mut mark = |i: usize, d: i32| {
                if let Some(x) = diff.get_mut(i) {
                    *x = (x.0 + d, x.1 + d * w);
                }
            };
            mark(from, 1);
            mark(to, -1);
            if from >= to {
                // Wraps past the last cell.
                mark(0, 1);
            }
        }
        let (mut n, mut weight) = all;
        let mut score = 0u32;
        for d in diff.iter().take(cells) {
            n += d.0;
            weight += d.1;
            if n >= 2 {
                let over = |h: i32| u32::try_from(weight - h).unwrap_or(0);
                score = score
                    .saturating_add(over(heaviest))
                    .saturating_add((LOST - 1).saturating_mul(over(2 * heaviest)));
                if score >= bound {
                    break;
                }
            }
        }
        score
    }

    /// The regions of each cell under multiplier `m`, into `sets`
    /// ([`CellSets`]).
    fn cell_sets(&self, m: u64, sets: &mut CellSets<N, M>) {
        let cells = CellIndex::<M>::CELLS;
        sets.cell.as_flattened_mut().fill((0, [N; 2], 0));
        sets.weight.fill(0);
        for j in self.first()..N {
            if let (Some((_, n)), Some(w)) = (self.arc(j, m), sets.weight.get_mut(j)) {
                *w = (cells / n.saturating_add(1)).max(1) as u32;
            }
        }
        let w = sets.weight;
        let w = |r: usize| w.get(r).copied().unwrap_or(0);
        let cell = sets.cell.as_flattened_mut();
        for j in self.first()..N {
            let Some((c0, n)) = self.arc(j, m) else {
                continue;
            };
            for i in 0..=n {
                let Some((count, p, all)) = cell.get_mut((c0 + i) % cells) else {
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
    }

    /// The entries for the cells' regions (`sets`), walking the cells in
    /// order, into `entries`; returns their cost: the weight of the valid
    /// addresses a cell finds in its next entry (one test more), plus
    /// [`LOST`] times the weight of those it finds in neither (they take the
    /// binary search).
    fn chain(&self, sets: &CellSets<N, M>, entries: &mut [[Option<usize>; PER_SLOT]; M]) -> u32 {
        let cells = CellIndex::<M>::CELLS;
        let w = |r: usize| sets.weight.get(r).copied().unwrap_or(0);
        let e = entries.as_flattened_mut();
        e.fill(None);
        let (mut lost, mut second) = (0u32, 0u32);
        for (c, &(n, [p, q], all)) in sets.cell.as_flattened().iter().take(cells).enumerate() {
            // Entry `c` may already hold the region the cell before tests
            // next; entry `c + 1` is free, but for the last cell, whose next
            // entry is entry 0 (the first cell's).
            let here = e.get(c).copied().flatten();
            let next_at = (c + 1) % cells;
            let pinned = if next_at == 0 {
                e.first().copied().flatten()
            } else {
                None
            };
            // This cell's region `r` in its next entry: found there if that
            // entry is free or holds `r`, else lost.
            let mut next = None;
            let mut put_next = |r: usize| {
                if pinned.or(next).is_none_or(|x| x == r) {
                    second += w(r);
                    next = Some(r);
                } else {
                    lost += w(r);
                }
            };
            // The crowded cell's regions past two (not kept).
            // The weight of a crowded cell's regions past the two it keeps
            // (0 for a cell of one or two; `w(N)`, no region, is 0).
            let crowd = all.saturating_sub(w(p) + w(q));
            let here = match (n, here) {
                (0, _) => here,
                // One region: its own entry, unless the cell before took
                // it for another; then the next.
                (1, None) => Some(p),
                (1, Some(r)) if r == p => here,
                (1, Some(_)) => {
                    put_next(p);
                    here
                }
                // Two regions (the two kept of a crowded cell): the heavier
                // in its own entry where that is free, the other next.
                (_, None) => {
                    put_next(q);
                    Some(p)
                }
                (_, Some(r)) if r == p => {
                    put_next(q);
                    here
                }
                (_, Some(r)) if r == q => {
                    put_next(p);
                    here
                }
                // The cell before's region holds the entry: this cell
                // tests the heavier of its two next, and loses the other.
                (_, Some(_)) => {
                    put_next(p);
                    put_next(q);
                    here
                }
            };
            lost += crowd;
            if let Some(x) = e.get_mut(c) {
                *x = here;
            }
            if next.is_some() && pinned.is_none() {
                if let Some(x) = e.get_mut(next_at) {
                    *x = next;
                }
            }
        }
        lost.saturating_mul(LOST).saturating_add(second)
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
    fn first(&self) -> usize {
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
    fn search(&self, a: u64) -> Result<DeviceAddr> {
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
    fn key(&self, w: usize) -> u64 {
        self.key.get(w).copied().unwrap_or(0)
    }

    /// The translation of a dword access at `a` if it is a valid access of
    /// slot `w`: `t`, the dword index of `a` in the region, is below `span`
    /// (see the type docs); the translation is then `a + delta`. A slot past
    /// the end has span 0: nothing matches it.
    #[inline(always)]
    fn test(&self, w: usize, a: u64) -> Option<DeviceAddr> {
        let t = a.wrapping_sub(self.key(w)).rotate_right(2);
        let s = self.span.get(w).copied().unwrap_or(0);
        (t < s).then(|| DeviceAddr(a.wrapping_add(self.delta.get(w).copied().unwrap_or(0))))
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
/// looked up through `L` (the cell index `CellIndex<N>` unless named: a
/// `Csr<M, 8, BinarySearch>` holds a [`RegionTable<8, BinarySearch>`]).
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
pub struct Csr<M, const N: usize, L: Lookup = CellIndex<N>> {
    inner: M,
    /// The registered table; with none registered, an empty one (every
    /// lookup misses, and the miss path answers [`Error::NoRegionTable`]),
    /// so an access tests nothing before its lookup.
    table: RegionTable<N, L>,
    /// Whether a table is registered (read on the miss path only).
    registered: bool,
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
            table: regions,
            registered: true,
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
            table: RegionTable::new(),
            registered: true,
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
            table: RegionTable::new(),
            registered: false,
            #[cfg(test)]
            lookups: core::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// Register (or replace) the region table.
    pub fn register(&mut self, regions: RegionTable<N, L>) {
        self.table = regions;
        self.registered = true;
    }

    /// Deregister the table (`csr_deregister` [000 §1]), giving it back.
    pub fn deregister(&mut self) -> Option<RegionTable<N, L>> {
        if !self.registered {
            return None;
        }
        self.registered = false;
        Some(core::mem::take(&mut self.table))
    }

    /// The registered table, if any.
    pub fn regions(&self) -> Option<&RegionTable<N, L>> {
        self.registered.then_some(&self.table)
    }

    /// The registered table, to register more regions in place (firmware
    /// builds its table inside the `Csr`, so the table is never moved).
    pub fn regions_mut(&mut self) -> Option<&mut RegionTable<N, L>> {
        self.registered.then_some(&mut self.table)
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
        self.regions()
            .ok_or(Error::NoRegionTable)?
            .find(p)
            .ok_or(Error::no_region(p.get()))
    }

    /// The single-dword lookup of `csr_read` / `csr_write`: the table's
    /// one fast test (lookup, bounds and alignment, [`Lookup::fast`]), the
    /// translation if it accepts `p`. Nothing is tested before it: with no
    /// table registered the table is empty and the test fails.
    #[inline(always)]
    fn lookup_fast(&self, p: DeviceAddr) -> Option<DeviceAddr> {
        #[cfg(test)]
        self.lookups
            .fetch_add(1, core::sync::atomic::Ordering::Relaxed);
        L::fast(&self.table, p.get())
    }

    /// The single-dword lookup on bare metal: one out-of-line copy shared
    /// by every `csr_read` / `csr_write` site (issue 12: inlined at each
    /// site, the lookup cost 128 B of fw-cayman's .text, and 132 B more as
    /// the fast test and its miss calls).
    #[cfg(target_os = "none")]
    #[inline(never)]
    fn lookup_translate(&self, p: DeviceAddr) -> Result<DeviceAddr> {
        match self.lookup_fast(p) {
            Some(d) => Ok(d),
            None => self.lookup_slow(p),
        }
    }

    /// The exact answer for a dword access the fast test did not accept:
    /// no table registered ([`Error::NoRegionTable`]), else the lookup's
    /// slow path ([`Lookup::slow`]: the translation, or the error of
    /// [000 §1]).
    fn lookup_slow(&self, p: DeviceAddr) -> Result<DeviceAddr> {
        if !self.registered {
            return Err(Error::NoRegionTable);
        }
        L::slow(&self.table, p.get())
    }

    #[cfg(test)]
    fn lookups(&self) -> usize {
        self.lookups.load(core::sync::atomic::Ordering::Relaxed)
    }
}

impl<M: Mmio, const N: usize, L: Lookup> Csr<M, N, L> {
    /// `csr_read`: one dword at `p` [000 §1].
    ///
    /// On hosts the lookup's fast test is inlined and a miss is a tail call
    /// to `csr_read_miss`, so the access keeps no frame. On bare
    /// metal every site calls one shared `lookup_translate` instead
    /// (inlined at each site, the search cost 132 B of fw-cayman's .text)
    /// and `csr_read` itself is always inlined: out of line its caller
    /// copies the `Result` through memory (issue 12: -104 B .text fw-cayman).
    #[cfg_attr(target_os = "none", inline(always))]
    #[cfg_attr(not(target_os = "none"), inline)]
    pub fn csr_read(&self, p: DeviceAddr) -> Result<u32> {
        #[cfg(target_os = "none")]
        return self.inner.read32(self.lookup_translate(p)?);
        #[cfg(not(target_os = "none"))]
        match self.lookup_fast(p) {
            Some(d) => self.inner.read32(d),
            None => self.csr_read_miss(p),
        }
    }

    /// `csr_read` of an address the fast test did not accept: out of line
    /// and last, so the fast path keeps no frame for it (a tail call).
    #[cfg(not(target_os = "none"))]
    #[cold]
    #[inline(never)]
    fn csr_read_miss(&self, p: DeviceAddr) -> Result<u32> {
        let d = self.lookup_slow(p)?;
        self.inner.read32(d)
    }

    /// `csr_write`: one dword at `p` [000 §1] (as [`Self::csr_read`]).
    #[inline]
    pub fn csr_write(&self, p: DeviceAddr, value: u32) -> Result<()> {
        #[cfg(target_os = "none")]
        return self.inner.write32(self.lookup_translate(p)?, value);
        #[cfg(not(target_os = "none"))]
        match self.lookup_fast(p) {
            Some(d) => self.inner.write32(d, value),
            None => self.csr_write_miss(p, value),
        }
    }

    /// `csr_write` of an address the fast test did not accept (as
    /// [`Self::csr_read_miss`]).
    #[cfg(not(target_os = "none"))]
    #[cold]
    #[inline(never)]
    fn csr_write_miss(&self, p: DeviceAddr, value: u32) -> Result<()> {
        let d = self.lookup_slow(p)?;
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
    pub(super) struct Rec {
        pub(super) mem: RefCell<BTreeMap<u64, u32>>,
        pub(super) log: RefCell<Vec<(&'static str, u64, u32)>>,
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

    pub(super) fn region(s: u64, e: u64, d: u64, id: u32) -> CsrRegion {
        CsrRegion::new(DeviceAddr(s), DeviceAddr(e), DeviceAddr(d), id).unwrap()
    }

    /// Two adjacent windows: [0x1000, 0x1100) → 0x0, [0x1100, 0x1200) → 0x8000.
    pub(super) fn two_windows() -> Csr<Rec, 8> {
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
                // The default: `8 N` cells.
                one::<N, CellIndex<N>>(regions);
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
            let mut t = RegionTable::<N, BinarySearch>::new();
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
            let valid = |t: &RegionTable<N, BinarySearch>| {
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

    /// Whether the cell index alone (its cell's two entries) accepts `a`.
    fn index_accepts<const N: usize, const M: usize>(
        t: &RegionTable<N, CellIndex<M>>,
        a: u64,
    ) -> bool {
        CellIndex::<M>::fast(t, a).is_some()
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
        fn check<const N: usize, const M: usize>(t: &RegionTable<N, CellIndex<M>>) {
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
        // The second checker's windows a power of two apart (4 KiB at 0 and
        // 2^16, 2^20, ... 2^40 above 2^38), in the default index of 8
        // slots (64 cells): no group or pair of groups of address bits
        // tells all eight apart; a Fibonacci multiplier does.
        let mut t = RegionTable::<8>::new();
        for i in [5u64, 0, 3, 6, 1, 4, 7, 2] {
            let s = 0x40_0000_0000 + if i == 0 { 0 } else { 1 << (12 + 4 * i) };
            t.insert(region(s, s + 0x1000, s, 0)).unwrap();
        }
        check(&t);
        // The second checker's three 64-byte windows in 0x140 bytes (and
        // five spread ones): no cell width splits them without splitting the
        // 4 KiB and 1 MiB windows over every cell; a border between the
        // second and the third, at a width near 1 GiB, does.
        let mut t = RegionTable::<8>::new();
        for (s, len) in [
            (0x1_0000_0040, 0x40),
            (0x0, 0x1000),
            (0x7_0000_0000, 0x10_0000),
            (0x8000_0000, 0x1000),
            (0x1_0000_0100, 0x40),
            (0x4000_0000, 0x1000),
            (0x1_0000_0000, 0x40),
            (0xC000_0000, 0x1000),
        ] {
            let s = 0x40_0000_0000 + s;
            t.insert(region(s, s + len, s, 0)).unwrap();
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

    /// `insert_all` leaves the table `insert` by `insert` would (the same
    /// regions, the same answers), with the index built once, for the
    /// whole batch and for the prefix a refused region leaves.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn insert_all_is_insert_by_insert_with_one_rebuild() {
        let window = |i: u64| {
            let s = 0x20_0000_0000 + (i * 7 % 8) * 0x10_0000;
            region(s, s + 0x1_0000 + i * 0x100, s + 3, i as u32)
        };
        let mut one = RegionTable::<8>::new();
        for i in 0..8 {
            one.insert(window(i)).unwrap();
        }
        let mut all = RegionTable::<8>::new();
        assert_eq!(all.insert_all((0..8).map(window)), Ok(()));
        assert_eq!(all.as_slice(), one.as_slice());
        for r in all.as_slice() {
            let (s, e) = (r.start().get(), r.end().get());
            for p in (s..e).step_by(0x3FF).chain([e - 4, e - 5]) {
                assert_eq!(all.translate(DeviceAddr(p)), one.translate(DeviceAddr(p)));
                if one.translate(DeviceAddr(p)).is_ok() {
                    // The index was built: the cells alone accept it.
                    assert!(index_accepts(&all, p), "{p:#x}");
                }
            }
        }
        // A refused region (overlapping window 1) in the middle: the
        // regions before it stay, indexed; the error is insert's.
        let mut part = RegionTable::<8>::new();
        let batch = [window(0), window(1), window(1), window(2)];
        assert_eq!(
            part.insert_all(batch),
            Err(Error::InvalidArgument(
                "csr region overlaps a registered region"
            ))
        );
        assert_eq!(part.len(), 2);
        // (Its translation is 3 above its start: the dwords at start + 1 + 4k.)
        let p = window(1).start().get() + 0x41;
        assert_eq!(part.translate(DeviceAddr(p)), Ok(DeviceAddr(p + 3)));
        assert!(index_accepts(&part, p));
        // Past the capacity: `OutOfMemory`, the table full and indexed.
        let mut full = RegionTable::<2>::new();
        assert_eq!(full.insert_all((0..3).map(window)), Err(Error::OutOfMemory));
        assert_eq!(full.len(), 2);
        assert!(index_accepts(&full, window(1).start().get() + 0x41));
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

    /// The binary search carries nothing: a table is its slots and its
    /// length (issue 12: `RegionTable<4>` once carried an unused 264-byte
    /// index); the cell index (the default, `CellIndex<N>`) carries `8 N`
    /// entries of three words and its multiplier, in proportion to the
    /// capacity; `CellIndex` alone is 128 cells.
    #[test]
    fn what_each_lookup_costs_in_memory() {
        use core::mem::size_of;
        let slot = size_of::<CsrRegion>() + 3 * size_of::<u64>();
        // The length, padded to at most one `u64` (targets differ).
        let len = size_of::<u64>();
        assert_eq!(size_of::<BinarySearch>(), 0);
        assert!(size_of::<RegionTable<4, BinarySearch>>() <= 4 * slot + len);
        assert!(size_of::<RegionTable<64, BinarySearch>>() <= 64 * slot + len);
        for (size, m) in [
            (size_of::<CellIndex<8>>(), 8),
            (size_of::<CellIndex<4>>(), 4),
            (size_of::<CellIndex<1>>(), 1),
            (size_of::<CellIndex>(), 16),
        ] {
            assert_eq!(size, (3 * 8 * m + 1) * size_of::<u64>());
        }
        assert_eq!(CellIndex::<8>::CELLS, 64);
        assert_eq!(CellIndex::<6>::CELLS, 32);
        assert_eq!(CellIndex::<1>::CELLS, 8);
        assert_eq!(CellIndex::<0>::CELLS, 2);
        assert_eq!(CellIndex::<16>::CELLS, 128);
        assert_eq!(
            size_of::<RegionTable<4>>(),
            size_of::<RegionTable<4, BinarySearch>>() + size_of::<CellIndex<4>>()
        );
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
