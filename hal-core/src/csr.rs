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

mod cell;
mod region;
mod table;
mod window;

pub use cell::CellIndex;
pub use region::CsrRegion;
pub use table::{BinarySearch, Lookup, RegionTable};
pub use window::CsrWindow;

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
        let d = region.translate_run(start, words.len().max(1) as u64)?;
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
        let mut d = region.translate_run(start, out.len().max(1) as u64)?;
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
