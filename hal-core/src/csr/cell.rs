//! The default CSR lookup [000 §1]: [`CellIndex`], a cell index built at
//! insert and removal (the multiplier search and the cells' entries).

use super::table::{dword_test, Lookup, RegionTable};
use crate::addr::DeviceAddr;
use crate::error::Result;

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
/// [`BinarySearch`](super::BinarySearch), then the slow path if that misses too: the exact
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
    pub(super) const CELLS: usize = 1 << Self::BITS;

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
        dword_test(a, word(&self.key), word(&self.span), || word(&self.delta))
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
