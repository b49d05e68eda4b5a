//! CSR windows resolved once ([`Csr::window`], [`Csr::bind_block`]): the
//! region lookup of [000 §1] done when a driver binds the registers it holds
//! for its whole life, not on every access.
//!
//! Over a mapped [`VolatileWindow`] a [`CsrWindow`] is resolved into a part
//! of that window answering the CSR addresses, so an access is that part's
//! one check, then the load or store; over any other backend (the device
//! model, mmap, the trace wrappers) it is the window's check, then the inner
//! access at the translation. Either way an address outside the window is
//! refused ([`Error::OutOfWindow`] naming it), even if another region holds
//! it. [`Csr::bind_block`] binds a block in the inner window once, so an
//! access with a constant register is one load or store. Both borrow the
//! [`Csr`]: its table cannot change while they exist.

use core::borrow::Borrow;

use super::{in_csr_space, Csr, CsrRegion};
use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::mmio::BoundBlock;
use crate::mmio::VolatileWindow;
use crate::Mmio;

/// `bytes` of one registered CSR region from `start`, resolved once through
/// a [`Csr`] ([`Csr::window`]); an [`Mmio`] over the `Csr`'s inner backend.
///
/// An access at `p` is valid when `start <= p <= start + bytes - 4` and
/// `p - start` is a multiple of 4 (the translation of `start` is dword
/// aligned, checked when resolved); it goes to the inner backend at
/// `p + (device - start)`. Anything else is [`Error::OutOfWindow`] naming `p`.
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
/// // The 16 bytes at +0x10, resolved once.
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
#[derive(Debug)]
pub struct CsrWindow<'c, M> {
    inner: &'c M,
    /// The block as a region of its own (its first dword's translation is
    /// aligned, so its key is its start).
    block: CsrRegion,
    /// Over a mapped window: the block as a part of it answering the CSR
    /// addresses (it lives no longer than the borrow of `inner`).
    part: Option<VolatileWindow>,
}

impl<M: Mmio, const N: usize> Csr<M, N> {
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
        // A block the mapped window does not hold whole keeps the generic
        // path: its accesses are refused by the inner window.
        let part = self
            .inner
            .as_volatile()
            .and_then(|w| w.sub_window(device, bytes, start).ok());
        let (s, d) = (start.get(), device.get());
        Ok(CsrWindow {
            inner: &self.inner,
            block: CsrRegion::words(s, s + bytes, d, 0),
            part,
        })
    }
}

impl<M, const N: usize> Csr<M, N> {
    /// What both resolve-once forms check: `bytes` a positive whole number of
    /// dwords, the one lookup of `start`, then the block's first and last
    /// dwords against its region. The inner address of `start`.
    fn resolve_block(&self, start: DeviceAddr, bytes: u64) -> Result<DeviceAddr> {
        if bytes == 0 || !bytes.is_multiple_of(4) {
            return Err(Error::InvalidArgument(
                "csr window: size not a positive whole number of dwords",
            ));
        }
        self.region(start)?.translate_run(start, bytes / 4)
    }
}

impl<M: Borrow<VolatileWindow>, const N: usize> Csr<M, N> {
    /// Resolve the `BYTES`-byte register block at `start` once, and bind it
    /// in the inner [`VolatileWindow`] ([`VolatileWindow::bind_block`]): an
    /// access through the block with a constant register is one load or
    /// store, with nothing of the CSR layer or the window checked again.
    ///
    /// Refused as [`Self::window`], then when the translated block leaves the
    /// inner window ([`Error::OutOfWindow`] naming the block's last dword, a
    /// CSR address, as the region check does).
    pub fn bind_block<const BYTES: usize>(
        &self,
        start: DeviceAddr,
    ) -> Result<BoundBlock<'_, BYTES>> {
        let bytes = BYTES as u64;
        let device = self.resolve_block(start, bytes)?;
        let last = Error::out_of_window(start.get().wrapping_add(bytes - 4));
        self.inner
            .borrow()
            .bind_block::<BYTES>(device)
            .map_err(|e| match e {
                Error::OutOfWindow { .. } => last,
                other => other,
            })
    }
}

/// A copy answers as the window does (its part, if any, is the same range of
/// the same borrowed window).
impl<M> Clone for CsrWindow<'_, M> {
    fn clone(&self) -> Self {
        CsrWindow {
            part: self.part.as_ref().map(VolatileWindow::same_part),
            ..*self
        }
    }
}

impl<M> CsrWindow<'_, M> {
    /// The window's first address (in the CSR address space).
    pub const fn start(&self) -> DeviceAddr {
        self.block.start()
    }

    /// Its size in bytes.
    pub const fn len(&self) -> u64 {
        self.block.end - self.block.start
    }

    /// `false`: a window has at least one dword.
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// An access at `addr` through the inner backend: the window's check of
    /// `addr`, then `access` at its translation, its refusal named in the CSR
    /// address space. Inlined: each caller's access compiles to the check and
    /// the access alone.
    #[inline(always)]
    fn via_inner<T>(
        &self,
        addr: DeviceAddr,
        access: impl FnOnce(&M, DeviceAddr) -> Result<T>,
    ) -> Result<T> {
        let d = self.block.translate(addr)?;
        access(self.inner, d).map_err(|e| in_csr_space(e, self.block.delta()))
    }
}

impl<M: Mmio> Mmio for CsrWindow<'_, M> {
    // Inlined so that over a mapped window an access is the part's own (at
    // opt-level "s" a call of this whole function costs the firmware's
    // window write about as much again).
    #[inline]
    fn read32(&self, addr: DeviceAddr) -> Result<u32> {
        match &self.part {
            Some(w) => w.read32(addr),
            None => self.via_inner(addr, |m, d| m.read32(d)),
        }
    }

    #[inline]
    fn write32(&self, addr: DeviceAddr, value: u32) -> Result<()> {
        match &self.part {
            Some(w) => w.write32(addr, value),
            None => self.via_inner(addr, |m, d| m.write32(d, value)),
        }
    }

    /// One burst to the inner backend, refused whole (nothing written) when
    /// a dword of it leaves the window; an empty burst checks `addr` alone.
    fn write_burst(&self, addr: DeviceAddr, words: &[u32]) -> Result<()> {
        let n = words.len().max(1) as u64;
        // `addr` first: a refused `addr` names itself, whatever the run.
        self.block.translate(addr)?;
        // The burst's last dword names the refusal, wrapped past `u64::MAX`
        // too (the table's run names `addr` then).
        let last = addr.get().wrapping_add((n - 1) * 4);
        if last < addr.get() {
            return Err(Error::out_of_window(last));
        }
        self.block.translate_run(addr, n)?;
        match &self.part {
            _ if words.is_empty() => Ok(()),
            Some(w) => w.write_burst(addr, words),
            None => self.via_inner(addr, |m, d| m.write_burst(d, words)),
        }
    }
}
