//! The CSR region layer of [000 §1]: `csr_read`, `csr_write`, their array
//! forms and `axi_write`, resolved through a sorted, fixed-capacity table of
//! registered windows.
//!
//! In the C runtime every register touch bottoms into `csr_read`/`csr_write`
//! (single dword) or `axi_write` (absolute-address burst) [000 §1]. Each looks
//! up the registered region (`csr_region_t {used, start, end, device_addr,
//! device_id, device}`) that holds the address, checks the access against
//! `[start, end - 4]`, and hands it to the BAR access of that region's device.
//! Here [`CsrRegion`] is one window (a region is "used" by being in the
//! table; the device is the one [`Mmio`] backend the [`Csr`] wraps),
//! [`RegionTable<N>`] the region array (fixed capacity, sorted, overlaps
//! refused; with no overlaps at most one region holds an address, so the
//! order of the search does not change the C `find_region_for`'s answer),
//! [`Csr<M, N>`] the `csr_*` layer over an inner backend `M` and an [`Mmio`]
//! itself (`read32` = `csr_read`, `write32` = `csr_write`, `write_burst` =
//! `axi_write`), and [`CsrWindow`] ([`Csr::window`]) and [`Csr::bind_block`]
//! a block of one region resolved once (khal's own).
//!
//! A region's `[start, end)` is a range of the addresses drivers use (the C
//! ones are process VAs of a mapped BAR [000 §2]); `device_addr` is where it
//! sits in the inner backend's address space: an access at `p` goes to
//! `device_addr + (p - start)`. With a BAR mapped at 0
//! (`khal_std::mmap::MmapMmio` over a sysfs `resource0`) `device_addr` is the
//! window's offset in the BAR.
//!
//! # Error codes [000 §1], [FACTS §10]
//!
//! All three failures are the C code -2: no table registered →
//! [`Error::NoRegionTable`]; no region holds the (first) address →
//! [`Error::NoRegion`]; an address outside `[start, end - 4]` of the region of
//! the first address → [`Error::OutOfWindow`] ([000 §1 GOTCHA]: the last
//! dword starts at `end - 4`). Every error names a CSR address: an inner
//! backend's refusal is named by the CSR address it translates back to.
//!
//! # Where khal is stricter than the C code
//!
//! - Every address is checked before the first device access, so a batch is
//!   written whole or not at all (the C array forms do the same [000 §1]).
//! - `axi_write` in C looks up the start address only and bursts without a
//!   bounds check of the rest [000 §1]; khal still does one lookup, but
//!   refuses ([`Error::OutOfWindow`]) a burst whose last dword would leave
//!   the window, instead of writing past it.
//! - The translated address must be dword-aligned (every khal backend
//!   refuses a misaligned dword; checking it first keeps all-or-nothing).
//! - There is no burst read, as in C [000 §1 QUIRK]: [`Csr::mem_read_buf`] is
//!   a dword loop of single reads, validated whole first.

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::Mmio;

mod region;
mod table;
mod window;

pub use region::CsrRegion;
pub use table::RegionTable;
pub use window::CsrWindow;

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
/// csr.write32(DeviceAddr(0x20_0000_000C), 7)?;            // end - 4: the last dword
/// assert_eq!(csr.read32(DeviceAddr(0x20_0000_000C)), Ok(7));
/// assert_eq!(csr.read32(DeviceAddr(0x20_0000_000D)),        // end - 3: refused
///            Err(Error::out_of_window(0x20_0000_000D)));
/// # Ok::<(), Error>(())
/// ```
#[derive(Debug)]
pub struct Csr<M, const N: usize> {
    inner: M,
    /// The registered table; with none registered, an empty one (every
    /// lookup misses, and the refusal answers [`Error::NoRegionTable`]), so
    /// an access tests nothing before its lookup.
    table: RegionTable<N>,
    /// Whether a table is registered (read on the refusal path only).
    registered: bool,
    /// Region lookups of the block forms: lets the tests assert "one lookup
    /// per `axi_write`". Test builds only.
    #[cfg(test)]
    lookups: core::cell::Cell<usize>,
}

impl<M, const N: usize> Csr<M, N> {
    /// The layer over `inner` with `regions` registered.
    pub fn new(inner: M, regions: RegionTable<N>) -> Self {
        Csr {
            inner,
            table: regions,
            registered: true,
            #[cfg(test)]
            lookups: core::cell::Cell::new(0),
        }
    }

    /// The layer with an empty region table, to be filled in place through
    /// [`Self::regions_mut`]. Firmware uses this form: the table is created
    /// where it lives, so no copy of it (a `memcpy` in the image) is made.
    pub fn with_empty_table(inner: M) -> Self {
        Self::new(inner, RegionTable::new())
    }

    /// Register (or replace) the region table.
    pub fn register(&mut self, regions: RegionTable<N>) {
        self.table = regions;
        self.registered = true;
    }

    /// Deregister the table (`csr_deregister` [000 §1]), giving it back:
    /// from then on every access fails with [`Error::NoRegionTable`] (-2), as
    /// the C `csr_*` calls do when `csr_get_regions` returns NULL [000 §1].
    pub fn deregister(&mut self) -> Option<RegionTable<N>> {
        core::mem::replace(&mut self.registered, false).then(|| core::mem::take(&mut self.table))
    }

    /// The registered table, if any.
    pub fn regions(&self) -> Option<&RegionTable<N>> {
        self.registered.then_some(&self.table)
    }

    /// The registered table, to register more regions in place (firmware
    /// builds its table inside the `Csr`, so the table is never moved).
    pub fn regions_mut(&mut self) -> Option<&mut RegionTable<N>> {
        self.registered.then_some(&mut self.table)
    }

    /// The inner backend.
    pub fn inner(&self) -> &M {
        &self.inner
    }

    /// The region lookup of the batch and block forms: table present, then
    /// the region holding `p` [000 §1].
    fn region(&self, p: DeviceAddr) -> Result<&CsrRegion> {
        #[cfg(test)]
        self.lookups.set(self.lookups.get() + 1);
        self.regions()
            .ok_or(Error::NoRegionTable)?
            .find(p)
            .ok_or(Error::no_region(p.get()))
    }

    /// The exact error of a dword access the lookup refused: out of line and
    /// a tail call, so that an access keeps no frame for it.
    #[cold]
    #[inline(never)]
    fn refused<T>(&self, p: DeviceAddr) -> Result<T> {
        if !self.registered {
            return Err(Error::NoRegionTable);
        }
        Err(self.table.refusal(p))
    }
}

/// An inner backend's refusal named in the CSR address space: its address
/// less the translation's `delta` (for a single dword, the CSR address
/// accessed).
pub(crate) fn in_csr_space(e: Error, delta: u64) -> Error {
    match e {
        Error::OutOfWindow { addr } => Error::out_of_window(addr.get().wrapping_sub(delta)),
        Error::NoRegion { addr } => Error::no_region(addr.get().wrapping_sub(delta)),
        other => other,
    }
}

impl<M: Mmio, const N: usize> Csr<M, N> {
    /// The one dword access `access` at `p`, at its inner address, its refusal
    /// named at `p`. Inlined: each caller's access compiles to the lookup and
    /// the access alone.
    #[inline(always)]
    fn dword<T>(&self, p: DeviceAddr, access: impl FnOnce(DeviceAddr) -> Result<T>) -> Result<T> {
        match self.table.lookup(p.get()) {
            Some(d) => access(d).map_err(|e| in_csr_space(e, d.get().wrapping_sub(p.get()))),
            None => self.refused(p),
        }
    }

    /// The region of a batch: every address validated against the ONE region
    /// holding `ptrs[0]` [000 §1], its translation's delta (0 for an empty
    /// batch, which accesses nothing), or the refusal of the whole batch.
    fn batch(&self, ptrs: &[DeviceAddr], values: usize, what: &'static str) -> Result<u64> {
        if ptrs.len() != values {
            return Err(Error::InvalidArgument(what));
        }
        let Some(&first) = ptrs.first() else {
            return Ok(0);
        };
        let region = self.region(first)?;
        for &p in ptrs {
            region.translate(p)?;
        }
        Ok(region.delta())
    }

    /// `csr_read_array`: `out[i] = *ptrs[i]`, every address validated against
    /// the ONE region holding `ptrs[0]` before any read [000 §1]. A batch that
    /// leaves that region is refused whole ([`Error::OutOfWindow`]), never split.
    ///
    /// `ptrs` and `out` of different lengths: [`Error::InvalidArgument`]. An
    /// empty batch reads nothing and succeeds.
    pub fn csr_read_array(&self, ptrs: &[DeviceAddr], out: &mut [u32]) -> Result<()> {
        let what = "csr_read_array: ptrs and values differ in length";
        let delta = self.batch(ptrs, out.len(), what)?;
        for (&p, slot) in ptrs.iter().zip(out.iter_mut()) {
            let d = DeviceAddr(p.get().wrapping_add(delta));
            *slot = self.inner.read32(d).map_err(|e| in_csr_space(e, delta))?;
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
        let what = "csr_write_array: ptrs and values differ in length";
        let delta = self.batch(ptrs, values.len(), what)?;
        for (&p, &v) in ptrs.iter().zip(values) {
            self.inner
                .write32(p.add(delta), v)
                .map_err(|e| in_csr_space(e, delta))?;
        }
        Ok(())
    }

    /// `al_mem_read_buf`: consecutive dwords from `start` into `out`. There is
    /// no burst read [000 §1 QUIRK]: one lookup and a whole-range check, then a
    /// plain loop of single dword reads. An empty `out` still resolves and
    /// checks `start`, then reads nothing.
    pub fn mem_read_buf(&self, start: DeviceAddr, out: &mut [u32]) -> Result<()> {
        let (d, delta) = self.run(start, out.len())?;
        for (k, slot) in out.iter_mut().enumerate() {
            *slot = self
                .inner
                .read32(d.add(4 * k as u64))
                .map_err(|e| in_csr_space(e, delta))?;
        }
        Ok(())
    }

    /// The one region lookup of a block access of `n` dwords (at least one
    /// checked) from `start`: the device address of `start` and the region's
    /// translation.
    fn run(&self, start: DeviceAddr, n: usize) -> Result<(DeviceAddr, u64)> {
        let region = self.region(start)?;
        let d = region.translate_run(start, n.max(1) as u64)?;
        Ok((d, region.delta()))
    }
}

/// The `csr_*` calls of [000 §1] that take one address: `read32` is
/// `csr_read`, `write32` is `csr_write`, `write_burst` is `axi_write`.
impl<M: Mmio, const N: usize> Mmio for Csr<M, N> {
    /// `csr_read`: one dword at `addr` [000 §1].
    fn read32(&self, addr: DeviceAddr) -> Result<u32> {
        self.dword(addr, |d| self.inner.read32(d))
    }

    /// `csr_write`: one dword at `addr` [000 §1].
    fn write32(&self, addr: DeviceAddr, value: u32) -> Result<()> {
        self.dword(addr, |d| self.inner.write32(d, value))
    }

    /// `axi_write`: `words` to consecutive dwords from the absolute address
    /// `addr`, with ONE region lookup (for `addr`) and one burst of the inner
    /// backend [000 §1]. A burst whose last dword leaves the start's window
    /// is refused whole (see the module docs). An empty burst still resolves
    /// and checks `addr`, then writes nothing.
    fn write_burst(&self, addr: DeviceAddr, words: &[u32]) -> Result<()> {
        let (d, delta) = self.run(addr, words.len())?;
        if words.is_empty() {
            return Ok(());
        }
        self.inner
            .write_burst(d, words)
            .map_err(|e| in_csr_space(e, delta))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::vec::Vec;

    /// Records every access, a burst as one entry.
    #[derive(Default)]
    struct Rec(RefCell<Vec<(&'static str, u64, usize)>>);

    impl Mmio for Rec {
        fn read32(&self, a: DeviceAddr) -> Result<u32> {
            self.0.borrow_mut().push(("r", a.get(), 1));
            Ok(0)
        }
        fn write32(&self, a: DeviceAddr, _: u32) -> Result<()> {
            self.0.borrow_mut().push(("w", a.get(), 1));
            Ok(())
        }
        fn write_burst(&self, a: DeviceAddr, words: &[u32]) -> Result<()> {
            self.0.borrow_mut().push(("b", a.get(), words.len()));
            Ok(())
        }
    }

    /// `axi_write` and `mem_read_buf` are one lookup each, a window one in
    /// all (none per access).
    #[test]
    fn the_block_forms_look_up_once() {
        let mut t = RegionTable::<2>::new();
        let r = CsrRegion::new(
            DeviceAddr(0x1100),
            DeviceAddr(0x1200),
            DeviceAddr(0x8000),
            0,
        );
        t.insert(r.unwrap()).unwrap();
        let c = Csr::new(Rec::default(), t);
        c.write_burst(DeviceAddr(0x1100), &[1, 2, 3, 4]).unwrap();
        c.mem_read_buf(DeviceAddr(0x1104), &mut [0; 2]).unwrap();
        assert_eq!(c.lookups.get(), 2);
        let w = c.window(DeviceAddr(0x1120), 16).unwrap();
        w.write32(DeviceAddr(0x1120), 1).unwrap();
        w.write_burst(DeviceAddr(0x1124), &[3, 4, 5]).unwrap();
        assert_eq!(w.read32(DeviceAddr(0x112C)), Ok(0));
        assert_eq!(c.lookups.get(), 3);
        let log = [("b", 0x8000, 4), ("r", 0x8004, 1), ("r", 0x8008, 1)];
        let win = [("w", 0x8020, 1), ("b", 0x8024, 3), ("r", 0x802C, 1)];
        assert_eq!(*c.inner().0.borrow(), [log, win].concat());
    }
}
