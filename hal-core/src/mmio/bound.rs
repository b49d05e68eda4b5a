//! Bound register handles over a [`VolatileWindow`]: the window check is done
//! once, when a block or a register is bound, and every later access is one
//! load or store through a pointer known to be valid.
//!
//! # Why
//!
//! An access through the address-based [`Mmio`](crate::Mmio) trait carries a
//! 64-bit [`DeviceAddr`] and checks it against the window on every call (on a
//! 32-bit core: a 64-bit subtract, a high-word test, an alignment-and-bound
//! compare). That is right for code generic over backends (the device model,
//! the trace and counting wrappers, mmap). For the firmware hot path, the
//! anchors (tock-registers' `StaticRef`, Rust for Linux's `io::Io` with its
//! compile-time-checked constant offsets, google/safe-mmio's
//! `UniqueMmioPointer`) check once and then access through a plain pointer.
//!
//! # The two handles
//!
//! - [`BoundBlock<'w, BYTES>`]: a register block of `BYTES` bytes at a device
//!   address, checked against the window by [`VolatileWindow::bind_block`].
//!   `read(REG)` / `write(REG, v)` with a `register_block!` handle check
//!   `REG.offset() + 4 <= BYTES` (and alignment); with a constant `REG` (every
//!   `register_block!` handle is a `const`) the compiler folds that check, as
//!   Rust for Linux's `read32` with a constant offset. Held in an engine
//!   struct, an access is two instructions: load the block pointer, access at
//!   `[pointer, #offset]` (proved by `scripts/access-probe.sh` from the
//!   disassembly of a thumbv7em release build).
//! - [`BoundReg<'w>`]: one register, checked when bound ([`BoundBlock::reg`],
//!   [`BoundBlock::at`], [`VolatileWindow::bind`]); `read()` / `write(v)`
//!   cannot fail and are one `ldr` / `str` (two when the handle is itself
//!   loaded from a struct).
//!
//! Both borrow the window (`'w`), so they cannot outlive it: the window's
//! constructor contract (mapped, no Rust references into it) covers every
//! access made through them. Like the window, no reference into device memory
//! is ever created here: accesses are raw `read_volatile` / `write_volatile`.

// The third place in khal-core where `unsafe` is allowed (see the module docs).
#![allow(unsafe_code)]

use core::marker::PhantomData;
use core::ptr::NonNull;

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::mmio::volatile::VolatileWindow;
use crate::regs::{AccessType, Readable, Reg, RegArray, Writable, RW};

/// A register block of `BYTES` bytes inside a [`VolatileWindow`], bound once.
#[derive(Debug, Clone, Copy)]
pub struct BoundBlock<'w, const BYTES: usize> {
    /// Byte 0 of the block (dword aligned, `BYTES` bytes inside the window).
    base: NonNull<u32>,
    _window: PhantomData<&'w VolatileWindow>,
}

/// One 32-bit register inside a [`VolatileWindow`], bound once. `A` is its
/// access, as for [`Reg`]: a bound read-only register has no `write`.
#[derive(Debug, Clone, Copy)]
pub struct BoundReg<'w, A: AccessType = RW> {
    /// The register (dword aligned, inside the window).
    ptr: NonNull<u32>,
    _window: PhantomData<&'w VolatileWindow>,
    _access: PhantomData<A>,
}

// SAFETY: a bound handle is a pointer into a window it borrows; it carries no
// thread-bound state. Sending it (or sharing it) is sending a
// `&VolatileWindow`, which is `Send + Sync` (see there: concurrent access to
// device memory is the device's concern, ordinary memory is the window
// constructor's contract).
unsafe impl<const BYTES: usize> Send for BoundBlock<'_, BYTES> {}
// SAFETY: as for `Send` above.
unsafe impl<const BYTES: usize> Sync for BoundBlock<'_, BYTES> {}
// SAFETY: as for `BoundBlock`.
unsafe impl<A: AccessType> Send for BoundReg<'_, A> {}
// SAFETY: as for `BoundBlock`.
unsafe impl<A: AccessType> Sync for BoundReg<'_, A> {}

impl VolatileWindow {
    /// Bind the `BYTES`-byte register block at device address `base`.
    ///
    /// Refused with [`Error::OutOfWindow`] (the address of the first byte
    /// outside, or `base` itself): a `base` that is not a dword of the window,
    /// or a block running past the window's end. Refused with
    /// [`Error::InvalidArgument`]: `BYTES` that is 0 or not a whole number of
    /// dwords.
    #[inline]
    pub fn bind_block<const BYTES: usize>(
        &self,
        base: DeviceAddr,
    ) -> Result<BoundBlock<'_, BYTES>> {
        let off = self.part_offset(base, BYTES)?;
        Ok(BoundBlock {
            base: self.checked_dword(off),
            _window: PhantomData,
        })
    }

    /// Bind the register at device address `addr` (a dword of the window,
    /// else [`Error::OutOfWindow`]).
    #[inline]
    pub fn bind(&self, addr: DeviceAddr) -> Result<BoundReg<'_>> {
        let off = self.byte_offset(addr)?;
        Ok(BoundReg {
            ptr: self.checked_dword(off),
            _window: PhantomData,
            _access: PhantomData,
        })
    }
}

/// A part of a [`VolatileWindow`] bound once, answering its own device
/// addresses ([`VolatileWindow::bind_window`]): the [`Csr`](crate::csr::Csr)
/// layer's resolved window over a `VolatileWindow`
/// ([`Csr::bind_window`](crate::csr::Csr::bind_window)), whose accesses are
/// the window's own (one check, then the load or store), with no CSR test in
/// front of them. It lends the part out only by reference (`Deref`), so it
/// cannot outlive the window it borrows.
#[derive(Debug)]
pub struct BoundWindow<'w> {
    part: VolatileWindow,
    _window: PhantomData<&'w VolatileWindow>,
}

impl VolatileWindow {
    /// Bind the `bytes` of this window from device address `base` as a
    /// window of their own answering device addresses from `answers_at`.
    ///
    /// Refused with [`Error::OutOfWindow`]: a `base` that is not a dword of
    /// this window (naming `base`), or a part running past its end (naming
    /// `base + bytes`, as [`Self::bind_block`]). Refused with
    /// [`Error::InvalidArgument`]: `bytes` 0 or not a whole number of dwords,
    /// an `answers_at` not dword aligned, or `answers_at + bytes` past
    /// `u64::MAX`.
    pub fn bind_window(
        &self,
        base: DeviceAddr,
        bytes: usize,
        answers_at: DeviceAddr,
    ) -> Result<BoundWindow<'_>> {
        let off = self.part_offset(base, bytes)?;
        let fits = u64::try_from(bytes)
            .ok()
            .and_then(|b| answers_at.get().checked_add(b))
            .is_some();
        if !answers_at.get().is_multiple_of(4) || !fits {
            return Err(Error::InvalidArgument(
                "bound window: answering address not dword aligned or wrapping",
            ));
        }
        Ok(BoundWindow {
            part: self.part(off, bytes / 4, answers_at.get()),
            _window: PhantomData,
        })
    }
}

impl VolatileWindow {
    /// The byte offset of the `bytes` from `base`, all inside this window,
    /// for the bound parts ([`Self::bind_block`], [`Self::bind_window`]):
    /// [`Error::InvalidArgument`] for `bytes` 0 or not a whole number of
    /// dwords; [`Error::OutOfWindow`] naming `base` when it is not a dword
    /// of the window, `base + bytes` when the part runs past its end.
    #[inline(always)]
    fn part_offset(&self, base: DeviceAddr, bytes: usize) -> Result<usize> {
        if bytes == 0 || !bytes.is_multiple_of(4) {
            return Err(Error::InvalidArgument(
                "bound part: size not a positive whole number of dwords",
            ));
        }
        let off = self.byte_offset(base)?;
        // `off < len` (checked above), so `len - off` cannot wrap.
        if bytes > self.len() - off {
            return Err(Error::out_of_window(base.get().wrapping_add(bytes as u64)));
        }
        Ok(off)
    }
}

impl core::ops::Deref for BoundWindow<'_> {
    type Target = VolatileWindow;

    #[inline(always)]
    fn deref(&self) -> &VolatileWindow {
        &self.part
    }
}

impl crate::Mmio for BoundWindow<'_> {
    #[inline(always)]
    fn read32(&self, addr: DeviceAddr) -> Result<u32> {
        self.part.read32(addr)
    }
    #[inline(always)]
    fn write32(&self, addr: DeviceAddr, value: u32) -> Result<()> {
        self.part.write32(addr, value)
    }
    #[inline(always)]
    fn write_burst(&self, addr: DeviceAddr, words: &[u32]) -> Result<()> {
        self.part.write_burst(addr, words)
    }
    #[inline(always)]
    fn slot(&self, addr: DeviceAddr) -> crate::mmio::MmioSlot {
        self.part.slot(addr)
    }
    #[inline(always)]
    fn write_slot(&self, slot: crate::mmio::MmioSlot, value: u32) -> Result<()> {
        self.part.write_slot(slot, value)
    }
    #[inline(always)]
    fn read_slot(&self, slot: crate::mmio::MmioSlot) -> Result<u32> {
        self.part.read_slot(slot)
    }
    #[inline(always)]
    fn write_slot_direct(&self, slot: crate::mmio::MmioSlot, value: u32) -> bool {
        self.part.write_slot_direct(slot, value)
    }
}

impl<'w, const BYTES: usize> BoundBlock<'w, BYTES> {
    /// The block's size in bytes.
    pub const fn len(&self) -> usize {
        BYTES
    }

    /// `false`: a bound block has at least one dword.
    pub const fn is_empty(&self) -> bool {
        BYTES == 0
    }

    /// The pointer to byte offset `offset`, if a dword there lies inside the
    /// block: `offset` a multiple of 4 and `offset + 4 <= BYTES`. With a
    /// constant `offset` the compiler folds the test.
    #[inline(always)]
    fn dword(&self, offset: u64) -> Result<NonNull<u32>> {
        if offset.is_multiple_of(4) && offset < BYTES as u64 {
            // The block is `BYTES` bytes of the window from `base` (checked by
            // `bind_block`) and `offset + 4 <= BYTES` (aligned, below BYTES).
            let p = self
                .base
                .as_ptr()
                .cast::<u8>()
                .wrapping_add(offset as usize)
                .cast::<u32>();
            // SAFETY: `p` lies inside the block, which lies inside the window:
            // a mapped range starting at a non-null pointer and not wrapping
            // the address space (the window constructor's contract), so `p`
            // is not null.
            Ok(unsafe { NonNull::new_unchecked(p) })
        } else {
            Err(Error::out_of_range("register offset", offset, BYTES as u64))
        }
    }

    /// Bind register `r` of the block (its offset checked once, here).
    #[inline(always)]
    pub fn reg<A: AccessType>(&self, r: Reg<A>) -> Result<BoundReg<'w, A>> {
        Ok(BoundReg {
            ptr: self.dword(r.offset())?,
            _window: PhantomData,
            _access: PhantomData,
        })
    }

    /// Bind instance `i` of the register array `a` (index and offset checked
    /// once, here).
    #[inline(always)]
    pub fn at<A: AccessType>(&self, a: RegArray<A>, i: u32) -> Result<BoundReg<'w, A>> {
        self.reg(a.at(i)?)
    }

    /// Read register `r`. With a constant `r` the offset check folds and this
    /// is one load from the block pointer.
    #[inline(always)]
    pub fn read<A: Readable>(&self, r: Reg<A>) -> Result<u32> {
        Ok(self.reg(r)?.read())
    }

    /// Write register `r` (one store once the offset check has folded).
    #[inline(always)]
    pub fn write<A: Writable>(&self, r: Reg<A>, value: u32) -> Result<()> {
        self.reg(r)?.write(value);
        Ok(())
    }
}

impl<A: Readable> BoundReg<'_, A> {
    /// Read the register: one volatile load.
    #[inline(always)]
    pub fn read(self) -> u32 {
        // SAFETY: `ptr` is a dword-aligned dword inside the window this handle
        // borrows (checked when it was bound); the window's constructor
        // contract keeps that memory mapped and readable, with no Rust
        // reference into it, for the whole borrow.
        unsafe { self.ptr.as_ptr().read_volatile() }
    }
}

impl<A: Writable> BoundReg<'_, A> {
    /// Write the register: one volatile store.
    #[inline(always)]
    pub fn write(self, value: u32) {
        // SAFETY: as in `read`: in bounds, aligned, mapped and writable by the
        // window's contract; a register write is the purpose of this call.
        unsafe { self.ptr.as_ptr().write_volatile(value) }
    }
}

impl<A: Readable + Writable> BoundReg<'_, A> {
    /// Read-modify-write: one read, then one write of `f(old)`; returns the
    /// value written.
    #[inline(always)]
    pub fn modify(self, f: impl FnOnce(u32) -> u32) -> u32 {
        let new = f(self.read());
        self.write(new);
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Mmio;

    crate::register_block! {
        /// A test block of 0x20 bytes.
        TESTBLK: "t" {
            /// First dword.
            A @ 0x0, rw, "a";
            /// Last dword.
            Z @ 0x1C, rw, "z";
            /// Past a 0x20-byte block.
            PAST @ 0x20, rw, "past";
            /// Misaligned.
            ODD @ 0x6, rw, "odd";
            /// Array of 4, stride 4.
            ARR @ 0x4, rw, "arr", array "q" [4; 4];
        }
    }

    fn window(buf: &mut [u32], base: u64) -> VolatileWindow {
        let ptr = NonNull::new(buf.as_mut_ptr()).unwrap();
        // SAFETY: `buf` outlives the window in every test and is only touched
        // through it until the window is dropped; single-threaded memory.
        unsafe { VolatileWindow::new(ptr, buf.len() * 4, DeviceAddr(base)) }.unwrap()
    }

    #[test]
    fn bound_accesses_land_where_the_address_based_ones_do() {
        let mut buf = vec![0u32; 16];
        {
            let w = window(&mut buf, 0x1000);
            let b = w.bind_block::<0x20>(DeviceAddr(0x1010)).unwrap();
            b.write(A, 0xA).unwrap();
            b.write(Z, 0xF).unwrap();
            b.at(ARR, 3).unwrap().write(0x33);
            assert_eq!(w.read32(DeviceAddr(0x1010)), Ok(0xA));
            assert_eq!(w.read32(DeviceAddr(0x102C)), Ok(0xF));
            assert_eq!(w.read32(DeviceAddr(0x1010 + 4 + 3 * 4)), Ok(0x33));
            assert_eq!(TESTBLK.regs.len(), 5);
            let r = w.bind(DeviceAddr(0x1004)).unwrap();
            r.write(7);
            assert_eq!(r.modify(|v| v | 0x10), 0x17);
            assert_eq!(r.read(), 0x17);
            assert_eq!(b.read(Z), Ok(0xF));
        }
        assert_eq!(buf[1], 0x17);
        assert_eq!(buf[4], 0xA);
        assert_eq!(buf[8], 0x33);
        assert_eq!(buf[11], 0xF);
    }

    #[test]
    fn binding_refuses_what_the_window_refuses() {
        let mut buf = vec![0u32; 16];
        let w = window(&mut buf, 0x1000);
        // The whole window as one block is fine; one dword more is not.
        assert!(w.bind_block::<0x40>(DeviceAddr(0x1000)).is_ok());
        assert_eq!(
            w.bind_block::<0x40>(DeviceAddr(0x1004)).map(|_| ()),
            Err(Error::out_of_window(0x1044))
        );
        assert_eq!(
            w.bind_block::<0x20>(DeviceAddr(0x1002)).map(|_| ()),
            Err(Error::out_of_window(0x1002))
        );
        assert_eq!(
            w.bind_block::<0x20>(DeviceAddr(0xFFC)).map(|_| ()),
            Err(Error::out_of_window(0xFFC))
        );
        assert!(w.bind_block::<6>(DeviceAddr(0x1000)).is_err());
        assert!(w.bind_block::<0>(DeviceAddr(0x1000)).is_err());
        assert_eq!(
            w.bind(DeviceAddr(0x1040)).map(|_| ()),
            Err(Error::out_of_window(0x1040))
        );
        let b = w.bind_block::<0x20>(DeviceAddr(0x1000)).unwrap();
        assert_eq!(b.len(), 0x20);
        for r in [PAST, ODD] {
            assert!(matches!(b.reg(r), Err(Error::OutOfRange { .. })), "{r:?}");
            assert!(b.write(r, 1).is_err());
            assert!(b.read(r).is_err());
        }
        assert!(b.at(ARR, 4).is_err());
        assert!(b.at(ARR, 3).is_ok());
    }

    #[test]
    fn a_csr_block_is_bound_at_its_translation() {
        use crate::csr::{Csr, CsrRegion, RegionTable};
        use crate::mmio::MmioSlot;
        const CSR: u64 = 0x20_0000_0000;
        let mut buf = vec![0u32; 16];
        {
            let w = window(&mut buf, 0x1000);
            let mut t = RegionTable::<2>::new();
            // [CSR, +0x40) at 0x1000 of the window; [CSR + 0x1000, +0x100)
            // at 0x1030, which the window holds 16 bytes of.
            let region = |s: u64, e: u64, d: u64| {
                CsrRegion::new(DeviceAddr(s), DeviceAddr(e), DeviceAddr(d), 0).unwrap()
            };
            t.insert(region(CSR, CSR + 0x40, 0x1000)).unwrap();
            t.insert(region(CSR + 0x1000, CSR + 0x1100, 0x1030))
                .unwrap();
            let csr = Csr::new(&w, t);
            let b = csr.bind_block::<0x20>(DeviceAddr(CSR + 0x10)).unwrap();
            b.write(A, 0xA).unwrap();
            b.write(Z, 0xF).unwrap();
            assert_eq!(csr.csr_read(DeviceAddr(CSR + 0x10)), Ok(0xA));
            assert_eq!(csr.csr_read(DeviceAddr(CSR + 0x2C)), Ok(0xF));
            // The region refuses a block leaving it (its last dword) ...
            assert_eq!(
                csr.bind_block::<0x40>(DeviceAddr(CSR + 0x10)).map(|_| ()),
                Err(Error::out_of_window(CSR + 0x4C))
            );
            assert_eq!(
                csr.bind_block::<0x20>(DeviceAddr(CSR + 0x80)).map(|_| ()),
                Err(Error::no_region(CSR + 0x80))
            );
            assert!(csr.bind_block::<6>(DeviceAddr(CSR)).is_err());
            // ... and the inner window one whose translation leaves it.
            assert!(csr.bind_block::<0x10>(DeviceAddr(CSR + 0x1000)).is_ok());
            // (named by the block's last dword, a CSR address).
            assert_eq!(
                csr.bind_block::<0x20>(DeviceAddr(CSR + 0x1000)).map(|_| ()),
                Err(Error::out_of_window(CSR + 0x101C))
            );
            // A window's slot is the inner window's (its dword index): the
            // direct write reaches the translation; a refused address keeps
            // the address path, refused by the window.
            let regs = csr.window(DeviceAddr(CSR + 0x20), 0x10).unwrap();
            let slot = regs.slot(DeviceAddr(CSR + 0x24));
            assert_eq!(slot, w.slot(DeviceAddr(0x1024)));
            assert!(regs.write_slot_direct(slot, 0x24));
            regs.write_slot(slot, 0x25).unwrap();
            assert_eq!(regs.read_slot(slot), Ok(0x25));
            let outside = regs.slot(DeviceAddr(CSR + 0x30));
            assert_eq!(outside, MmioSlot::unchecked(DeviceAddr(CSR + 0x30)));
            assert!(!regs.write_slot_direct(outside, 1));
            assert_eq!(
                regs.write_slot(outside, 1),
                Err(Error::out_of_window(CSR + 0x30))
            );
            assert_eq!(
                regs.read_slot(outside),
                Err(Error::out_of_window(CSR + 0x30))
            );
        }
        assert_eq!((buf[4], buf[9], buf[11], buf[12]), (0xA, 0x25, 0xF, 0));
    }

    #[test]
    fn a_bound_window_answers_its_own_addresses_inside_the_window() {
        let mut buf = vec![0u32; 16];
        {
            let w = window(&mut buf, 0x1000);
            // Bytes 0x10..0x30 of the window, answering from 0x8000.
            let part = w
                .bind_window(DeviceAddr(0x1010), 0x20, DeviceAddr(0x8000))
                .unwrap();
            assert_eq!((part.device_base(), part.len()), (DeviceAddr(0x8000), 0x20));
            part.write32(DeviceAddr(0x8000), 1).unwrap();
            part.write32(DeviceAddr(0x801C), 2).unwrap();
            part.write_burst(DeviceAddr(0x8008), &[3, 4]).unwrap();
            let s = part.slot(DeviceAddr(0x8004));
            assert!(part.write_slot_direct(s, 5));
            for a in [0x7FFC, 0x8020, 0x8002, 0x1010] {
                assert_eq!(part.write32(DeviceAddr(a), 9), Err(Error::out_of_window(a)));
            }
            assert_eq!(w.read32(DeviceAddr(0x102C)), Ok(2));
            // Refused: past the window (naming base + bytes), a base outside
            // or misaligned, sizes, a misaligned or wrapping answer address.
            assert_eq!(
                w.bind_window(DeviceAddr(0x1010), 0x34, DeviceAddr(0))
                    .map(|_| ()),
                Err(Error::out_of_window(0x1044))
            );
            assert_eq!(
                w.bind_window(DeviceAddr(0x1040), 4, DeviceAddr(0))
                    .map(|_| ()),
                Err(Error::out_of_window(0x1040))
            );
            assert_eq!(
                w.bind_window(DeviceAddr(0x1002), 4, DeviceAddr(0))
                    .map(|_| ()),
                Err(Error::out_of_window(0x1002))
            );
            for (bytes, at) in [(0, 0), (6, 0), (4, 2), (8, u64::MAX - 3)] {
                assert!(
                    matches!(
                        w.bind_window(DeviceAddr(0x1000), bytes, DeviceAddr(at)),
                        Err(Error::InvalidArgument(_))
                    ),
                    "{bytes} {at:#x}"
                );
            }
        }
        assert_eq!(&buf[3..13], &[0, 1, 5, 3, 4, 0, 0, 0, 2, 0]);
    }

    /// `true` if the table translates `p` (a valid dword of a region).
    fn csr_window_ok<const N: usize>(t: &crate::csr::RegionTable<N>, p: u64) -> bool {
        t.translate(DeviceAddr(p)).is_ok()
    }

    #[test]
    fn a_csr_window_is_bound_in_the_volatile_window() {
        use crate::csr::{Csr, CsrRegion, RegionTable};
        const CSR: u64 = 0x20_0000_0000;
        let mut buf = vec![0u32; 16];
        {
            let w = window(&mut buf, 0x1000);
            let mut t = RegionTable::<3>::new();
            let region = |s: u64, e: u64, d: u64| {
                CsrRegion::new(DeviceAddr(s), DeviceAddr(e), DeviceAddr(d), 0).unwrap()
            };
            t.insert(region(CSR, CSR + 0x40, 0x1000)).unwrap();
            t.insert(region(CSR + 0x1000, CSR + 0x1100, 0x1030))
                .unwrap();
            // A region whose dwords start at a CSR address 2 bytes past a
            // dword: a window of it resolves, a bound window cannot answer.
            t.insert(region(CSR + 0x2002, CSR + 0x2012, 0x1004))
                .unwrap();
            assert!(csr_window_ok(&t, CSR + 0x2002));
            let csr = Csr::new(&w, t);
            let part = csr.bind_window(DeviceAddr(CSR + 0x10), 0x20).unwrap();
            part.write32(DeviceAddr(CSR + 0x10), 7).unwrap();
            part.write32(DeviceAddr(CSR + 0x2C), 8).unwrap();
            assert_eq!(
                part.write32(DeviceAddr(CSR + 0x30), 9),
                Err(Error::out_of_window(CSR + 0x30))
            );
            assert_eq!(csr.csr_read(DeviceAddr(CSR + 0x2C)), Ok(8));
            // Refused as a window is, then by the inner window (the last
            // dword, a CSR address), and for a misaligned start.
            assert_eq!(
                csr.bind_window(DeviceAddr(CSR + 0x30), 0x20).map(|_| ()),
                Err(Error::out_of_window(CSR + 0x4C))
            );
            assert!(csr.bind_window(DeviceAddr(CSR + 0x1000), 0x10).is_ok());
            assert_eq!(
                csr.bind_window(DeviceAddr(CSR + 0x1000), 0x20).map(|_| ()),
                Err(Error::out_of_window(CSR + 0x101C))
            );
            assert_eq!(
                csr.bind_window(DeviceAddr(CSR + 0x80), 4).map(|_| ()),
                Err(Error::no_region(CSR + 0x80))
            );
            assert!(matches!(
                csr.bind_window(DeviceAddr(CSR), 6),
                Err(Error::InvalidArgument(_))
            ));
            assert!(matches!(
                csr.bind_window(DeviceAddr(CSR + 0x2002), 8),
                Err(Error::InvalidArgument(_))
            ));
        }
        assert_eq!((buf[4], buf[11], buf[12]), (7, 8, 0));
    }
}
