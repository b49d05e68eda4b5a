//! CSR windows resolved once ([`Csr::window`], [`Csr::bind_window`],
//! [`Csr::bind_block`]): the region lookup of [000 §1] done when a driver
//! binds the registers it holds, not on every access.
//!
//! # Why
//!
//! Every `csr_read` / `csr_write` looks up the region of its address
//! [000 §1]. Per call that is a few instructions (the cell index: +8 over a
//! raw add on hosts), but in a driver's routine of several accesses each
//! access's miss path (the exact error, from a search) is a call, so the
//! routine saves registers on entry, and on a 32-bit core the 64-bit lookup
//! and the inner backend's own window check cost many times a raw store.
//! An engine holds one register block for its whole life (the anchors:
//! tock-registers' `StaticRef`, Rust for Linux's `io::Io`): it can resolve
//! that block's region once.
//!
//! # The forms
//!
//! - [`CsrWindow`] ([`Csr::window`]): `bytes` of one registered region from
//!   `start`, translated once. It is an [`Mmio`], so every driver runs on it
//!   unchanged; an access tests its address against the window (one
//!   subtract, a rotate and one compare, the table's fast test without the
//!   lookup) and adds the fixed translation. An address outside the window
//!   is refused there ([`Error::OutOfWindow`], built in line: the refusal
//!   calls nothing, so a routine of accesses keeps no frame for it), even if
//!   another registered region holds it: a window is one resolved part of
//!   one region (khal's own rule, as [`VolatileWindow`] refuses what lies
//!   outside it). Any inner backend: the device model, mmap, the trace
//!   wrappers. It hands out the inner backend's register slots
//!   ([`Mmio::slot`]), so a hot register (an NQ head) is the inner one's.
//! - [`Csr::bind_window`] (the inner backend a [`VolatileWindow`]): the
//!   region resolved once and the part bound in the inner window as a window
//!   of its own answering the CSR addresses ([`BoundWindow`]): an access is
//!   that window's own check, then the load or store, with no CSR test in
//!   front of it.
//! - [`Csr::bind_block`] (the inner backend a [`VolatileWindow`]): the
//!   region is resolved once and the block bound in the inner window once
//!   ([`VolatileWindow::bind_block`]), so an access with a constant register
//!   is one load or store: nothing of the CSR layer or the window is checked
//!   again.
//!
//! Both borrow the [`Csr`]: its table cannot change (no `register`,
//! `deregister` or `regions_mut`) while a window or block resolved through
//! it exists, so a resolution never goes stale.

use core::borrow::Borrow;

use super::table::dword_test;
use super::{Csr, Lookup};
use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::mmio::bound::{BoundBlock, BoundWindow};
use crate::mmio::volatile::VolatileWindow;
use crate::mmio::{Mmio, MmioSlot};

/// `bytes` of one registered CSR region from `start`, resolved once through
/// a [`Csr`] ([`Csr::window`]); an [`Mmio`] over the `Csr`'s inner backend.
///
/// An access at `p` is valid when `start <= p <= start + bytes - 4` and
/// `p - start` is a multiple of 4 (the region's translation of `start` is
/// dword aligned, checked when resolved, so every valid `p` translates to an
/// aligned dword); it goes to the inner backend at `p + (device - start)`.
/// Anything else is [`Error::OutOfWindow`] with the address.
///
/// ```
/// use khal_core::csr::{Csr, CsrRegion, RegionTable};
/// use khal_core::{DeviceAddr, Error, Mmio};
/// # struct Regs(core::cell::Cell<[u32; 8]>);
/// # impl Mmio for Regs {
/// #     fn read32(&self, a: DeviceAddr) -> khal_core::Result<u32> {
/// #         Ok(self.0.get()[(a.get() / 4) as usize])
/// #     }
/// #     fn write32(&self, a: DeviceAddr, v: u32) -> khal_core::Result<()> {
/// #         let mut r = self.0.get(); r[(a.get() / 4) as usize] = v; self.0.set(r); Ok(())
/// #     }
/// # }
/// # let bar = Regs(core::cell::Cell::new([0; 8]));
/// // A 32-byte region at 0x20_0000_0000, forwarded to offset 0 of `bar`.
/// let mut table = RegionTable::<4>::new();
/// table.insert(CsrRegion::new(DeviceAddr(0x20_0000_0000), DeviceAddr(0x20_0000_0020),
///                             DeviceAddr(0), 0)?)?;
/// let csr = Csr::new(bar, table);
/// // An engine's 16-byte block at +0x10, resolved once.
/// let regs = csr.window(DeviceAddr(0x20_0000_0010), 16)?;
/// regs.write32(DeviceAddr(0x20_0000_001C), 7)?; // the block's last dword
/// assert_eq!(csr.inner().read32(DeviceAddr(0x1C))?, 7);
/// // In the region but before the block: refused by the window.
/// assert_eq!(regs.read32(DeviceAddr(0x20_0000_000C)), Err(Error::out_of_window(0x20_0000_000C)));
/// // A block leaving its region is refused when resolved.
/// assert_eq!(csr.window(DeviceAddr(0x20_0000_0010), 20).map(|_| ()),
///            Err(Error::out_of_window(0x20_0000_0020)));
/// # Ok::<(), Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct CsrWindow<'c, M> {
    inner: &'c M,
    /// The window's first address (its translation is dword aligned).
    start: u64,
    /// How many dwords it has (at least one).
    dwords: u64,
    /// What the translation adds (`device - start`, wrapping).
    delta: u64,
}

impl<M, const N: usize, L: Lookup> Csr<M, N, L> {
    /// Resolve `bytes` from `start` once: the region holding `start`
    /// (the one lookup of [000 §1]: [`Error::NoRegionTable`],
    /// [`Error::NoRegion`]), then the first and the last dword against it,
    /// as `axi_write` checks a burst ([`Error::OutOfWindow`] naming `start`
    /// when its translation is not dword aligned or it lies in the region's
    /// last three bytes, else naming the block's last dword, `start + bytes
    /// - 4`, when the block leaves the region).
    ///
    /// `bytes` must be a positive whole number of dwords, else
    /// [`Error::InvalidArgument`].
    pub fn window(&self, start: DeviceAddr, bytes: u64) -> Result<CsrWindow<'_, M>> {
        let device = self.resolve_block(start, bytes)?;
        Ok(CsrWindow {
            inner: &self.inner,
            start: start.get(),
            dwords: bytes / 4,
            delta: device.get().wrapping_sub(start.get()),
        })
    }

    /// What every resolve-once form checks ([`Self::window`]): `bytes` a
    /// positive whole number of dwords, the one lookup of `start`, then the
    /// block's first and last dwords against its region, as `axi_write`
    /// checks a burst. The inner address of `start`.
    fn resolve_block(&self, start: DeviceAddr, bytes: u64) -> Result<DeviceAddr> {
        if bytes == 0 || !bytes.is_multiple_of(4) {
            return Err(Error::InvalidArgument(
                "csr window: size not a positive whole number of dwords",
            ));
        }
        self.lookup(start)?.translate_run(start, bytes / 4)
    }
}

/// An inner window's refusal of a resolved block, named in the CSR address
/// space: the block's last dword (as the region check names it).
fn in_csr_space(e: Error, start: DeviceAddr, bytes: u64) -> Error {
    match e {
        Error::OutOfWindow { .. } => Error::out_of_window(start.get().wrapping_add(bytes - 4)),
        other => other,
    }
}

impl<M: Borrow<VolatileWindow>, const N: usize, L: Lookup> Csr<M, N, L> {
    /// Resolve the `BYTES`-byte register block at `start` once, and bind it
    /// in the inner [`VolatileWindow`] ([`VolatileWindow::bind_block`]): an
    /// access through the block with a constant register is one load or
    /// store, with nothing of the CSR layer or the window checked again.
    ///
    /// Refused as [`Self::window`] (the region, then the block in it;
    /// `BYTES` 0 or not a whole number of dwords: [`Error::InvalidArgument`]),
    /// then when the translated block leaves the inner window
    /// ([`Error::OutOfWindow`] naming the block's last dword, as the region
    /// check does: a CSR address, not the inner one).
    pub fn bind_block<const BYTES: usize>(
        &self,
        start: DeviceAddr,
    ) -> Result<BoundBlock<'_, BYTES>> {
        let bytes = BYTES as u64;
        let device = self.resolve_block(start, bytes)?;
        self.inner
            .borrow()
            .bind_block::<BYTES>(device)
            .map_err(|e| in_csr_space(e, start, bytes))
    }

    /// Resolve `bytes` from `start` once, and bind them in the inner
    /// [`VolatileWindow`] as a window of their own answering the CSR
    /// addresses from `start` ([`VolatileWindow::bind_window`]): an access is
    /// then the window's own (one check, then the load or store), with no
    /// CSR test in front of it (a [`CsrWindow`] over a `VolatileWindow`
    /// tests its window, then the inner window tests again).
    ///
    /// Refused as [`Self::window`] (the region, then the block in it;
    /// `bytes` 0 or not a whole number of dwords: [`Error::InvalidArgument`]),
    /// then when `start` is not dword aligned (the window answers dwords:
    /// [`Error::InvalidArgument`]) or the translated part leaves the inner
    /// window ([`Error::OutOfWindow`] naming its last dword, a CSR address).
    pub fn bind_window(&self, start: DeviceAddr, bytes: u64) -> Result<BoundWindow<'_>> {
        let device = self.resolve_block(start, bytes)?;
        // More than the address space holds: no inner window holds it.
        let len = usize::try_from(bytes)
            .map_err(|_| in_csr_space(Error::out_of_window(start.get()), start, bytes))?;
        self.inner
            .borrow()
            .bind_window(device, len, start)
            .map_err(|e| in_csr_space(e, start, bytes))
    }
}

impl<M> CsrWindow<'_, M> {
    /// The window's first address (in the CSR address space).
    pub const fn start(&self) -> DeviceAddr {
        DeviceAddr(self.start)
    }

    /// Its size in bytes.
    pub const fn len(&self) -> u64 {
        self.dwords * 4
    }

    /// `false`: a window has at least one dword.
    pub const fn is_empty(&self) -> bool {
        self.dwords == 0
    }

    /// Where `start` sits in the inner backend's address space.
    pub const fn device_addr(&self) -> DeviceAddr {
        DeviceAddr(self.start.wrapping_add(self.delta))
    }

    /// The inner address of a dword access at `p`: one subtract, a rotate
    /// (a misaligned remainder moves to the top bits) and one compare, as
    /// the region table's fast test; the refusal is built in line.
    #[inline(always)]
    fn translate(&self, p: DeviceAddr) -> Result<DeviceAddr> {
        dword_test(p.get(), self.start, self.dwords, || self.delta)
            .ok_or(Error::out_of_window(p.get()))
    }

    /// The inner address of `words` dwords from `p`, all in the window.
    fn translate_burst(&self, p: DeviceAddr, words: usize) -> Result<DeviceAddr> {
        let d = self.translate(p)?;
        // `p` is valid: `(p - start) / 4 < dwords`, so the room left is
        // `dwords - that`, at least 1.
        let room = self.dwords - (p.get().wrapping_sub(self.start) / 4);
        let n = words as u64;
        if n > room {
            // The burst's last dword, as `Csr::axi_write` and the
            // `VolatileWindow`'s burst name it.
            return Err(Error::out_of_window(
                p.get().wrapping_add((n - 1).wrapping_mul(4)),
            ));
        }
        Ok(d)
    }
}

impl<M: Mmio> Mmio for CsrWindow<'_, M> {
    #[inline(always)]
    fn read32(&self, addr: DeviceAddr) -> Result<u32> {
        self.inner.read32(self.translate(addr)?)
    }

    #[inline(always)]
    fn write32(&self, addr: DeviceAddr, value: u32) -> Result<()> {
        self.inner.write32(self.translate(addr)?, value)
    }

    /// One burst to the inner backend, refused whole (nothing written) when
    /// a dword of it leaves the window; an empty burst checks `addr` alone.
    fn write_burst(&self, addr: DeviceAddr, words: &[u32]) -> Result<()> {
        let d = self.translate_burst(addr, words.len())?;
        if words.is_empty() {
            return Ok(());
        }
        self.inner.write_burst(d, words)
    }

    /// The inner backend's slot of `addr`'s translation, when the window
    /// accepts `addr` and the inner backend keeps a slot of its own (a
    /// `VolatileWindow`: its dword index), so the accesses through it are
    /// the inner backend's (the NQ head written on every drain: one compare
    /// and the store on bare metal). Otherwise the address alone
    /// ([`MmioSlot::unchecked`]): each access then goes through this
    /// window's check, as [`Mmio::write32`] does.
    #[inline(always)]
    fn slot(&self, addr: DeviceAddr) -> MmioSlot {
        match self.translate(addr) {
            Ok(d) => {
                let s = self.inner.slot(d);
                if s.index() == usize::MAX {
                    MmioSlot::unchecked(addr)
                } else {
                    s
                }
            }
            Err(_) => MmioSlot::unchecked(addr),
        }
    }

    /// Through the inner backend for a slot it made; else the address path.
    #[inline(always)]
    fn write_slot(&self, slot: MmioSlot, value: u32) -> Result<()> {
        if slot.index() == usize::MAX {
            self.write32(slot.addr(), value)
        } else {
            self.inner.write_slot(slot, value)
        }
    }

    /// Through the inner backend for a slot it made; else the address path.
    #[inline(always)]
    fn read_slot(&self, slot: MmioSlot) -> Result<u32> {
        if slot.index() == usize::MAX {
            self.read32(slot.addr())
        } else {
            self.inner.read_slot(slot)
        }
    }

    /// The inner backend's direct write for a slot it made; else `false`.
    #[inline(always)]
    fn write_slot_direct(&self, slot: MmioSlot, value: u32) -> bool {
        slot.index() != usize::MAX && self.inner.write_slot_direct(slot, value)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{region, two_windows, Rec};
    use super::*;
    use crate::csr::{BinarySearch, RegionTable};
    use std::vec;

    #[test]
    fn a_window_translates_once_and_accesses_as_the_table_does() {
        let c = two_windows();
        // 16 bytes at +0x20 of the second region ([0x1100, 0x1200) → 0x8000).
        let w = c.window(DeviceAddr(0x1120), 16).unwrap();
        assert_eq!(
            (w.start(), w.len(), w.device_addr()),
            (DeviceAddr(0x1120), 16, DeviceAddr(0x8020))
        );
        assert!(!w.is_empty());
        let looked_up = c.lookups();
        w.write32(DeviceAddr(0x1120), 1).unwrap(); // first dword
        w.write32(DeviceAddr(0x112C), 2).unwrap(); // last dword
        assert_eq!(w.read32(DeviceAddr(0x112C)), Ok(2));
        w.write_burst(DeviceAddr(0x1124), &[3, 4, 5]).unwrap(); // to the last dword
                                                                // No lookup per access: resolved once.
        assert_eq!(c.lookups(), looked_up);
        assert_eq!(
            *c.inner().log.borrow(),
            vec![
                ("w", 0x8020, 1),
                ("w", 0x802C, 2),
                ("r", 0x802C, 2),
                ("burst", 0x8024, 3)
            ]
        );
        // The same dwords through the table.
        assert_eq!(c.csr_read(DeviceAddr(0x1124)), Ok(3));
        assert_eq!(c.csr_read(DeviceAddr(0x112C)), Ok(5));
    }

    #[test]
    fn a_window_refuses_every_address_outside_it_and_touches_nothing() {
        let c = two_windows();
        let w = c.window(DeviceAddr(0x1120), 16).unwrap();
        for p in [
            0x111C,       // the dword before the window (same region)
            0x1130,       // the dword after it (same region)
            0x112D,       // in the last dword: end - 3
            0x1122,       // misaligned inside
            0x1000,       // another registered region
            0x0,          // far below (the subtract wraps)
            u64::MAX - 3, // far above
        ] {
            assert_eq!(
                w.read32(DeviceAddr(p)),
                Err(Error::out_of_window(p)),
                "{p:#x}"
            );
            assert_eq!(
                w.write32(DeviceAddr(p), 1),
                Err(Error::out_of_window(p)),
                "{p:#x}"
            );
        }
        // A burst leaving the window is refused whole, with the first
        // address past it; an empty one checks its address alone.
        assert_eq!(
            w.write_burst(DeviceAddr(0x1128), &[1, 2, 3]),
            Err(Error::out_of_window(0x1130))
        );
        assert_eq!(
            w.write_burst(DeviceAddr(0x1130), &[]),
            Err(Error::out_of_window(0x1130))
        );
        assert_eq!(w.write_burst(DeviceAddr(0x112C), &[]), Ok(()));
        assert!(c.inner().log.borrow().is_empty());
    }

    #[test]
    fn over_a_backend_without_slots_a_slot_is_the_window_address_path() {
        let c = two_windows();
        let w = c.window(DeviceAddr(0x1120), 16).unwrap();
        let s = w.slot(DeviceAddr(0x1124));
        assert_eq!(s, MmioSlot::unchecked(DeviceAddr(0x1124)));
        assert!(!w.write_slot_direct(s, 1));
        w.write_slot(s, 2).unwrap();
        assert_eq!(w.read_slot(s), Ok(2));
        let out = w.slot(DeviceAddr(0x1130));
        assert_eq!(w.write_slot(out, 3), Err(Error::out_of_window(0x1130)));
        assert_eq!(
            *c.inner().log.borrow(),
            vec![("w", 0x8024, 2), ("r", 0x8024, 2)]
        );
    }

    #[test]
    fn resolving_refuses_what_the_table_refuses() {
        let c = two_windows();
        // The whole region is one window; a dword more leaves it (the error
        // names the last dword, the first the region refuses).
        assert!(c.window(DeviceAddr(0x1000), 0x100).is_ok());
        assert_eq!(
            c.window(DeviceAddr(0x1004), 0x100).map(|_| ()),
            Err(Error::out_of_window(0x1100))
        );
        // Not a region's address; the region's last bytes; misaligned.
        assert_eq!(
            c.window(DeviceAddr(0x1200), 4).map(|_| ()),
            Err(Error::no_region(0x1200))
        );
        assert_eq!(
            c.window(DeviceAddr(0x10FD), 4).map(|_| ()),
            Err(Error::out_of_window(0x10FD))
        );
        // Sizes that are not whole dwords.
        for bytes in [0, 2, 6] {
            assert!(
                matches!(
                    c.window(DeviceAddr(0x1000), bytes),
                    Err(Error::InvalidArgument(_))
                ),
                "{bytes}"
            );
        }
        // No table registered.
        let u: Csr<Rec, 4> = Csr::unregistered(Rec::default());
        assert_eq!(
            u.window(DeviceAddr(0x1000), 4).map(|_| ()),
            Err(Error::NoRegionTable)
        );
        // A window whose translation is not dword aligned (device_addr 2).
        let mut t = RegionTable::<2, BinarySearch>::new();
        t.insert(region(0x2000, 0x2100, 0x2, 0)).unwrap();
        let odd = Csr::new(Rec::default(), t);
        assert_eq!(
            odd.window(DeviceAddr(0x2000), 4).map(|_| ()),
            Err(Error::out_of_window(0x2000))
        );
        // ... but from an address whose translation is aligned it resolves.
        let w = odd.window(DeviceAddr(0x2002), 8).unwrap();
        w.write32(DeviceAddr(0x2006), 9).unwrap();
        assert_eq!(*odd.inner().log.borrow(), vec![("w", 0x8, 9)]);
    }
}
