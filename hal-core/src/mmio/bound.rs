//! Bound register handles over a [`VolatileWindow`], the firmware's hot
//! path: the window check is done once, when a block or a register is bound,
//! and every later access is one load or store through a pointer known to be
//! valid (as tock-registers' `StaticRef`, Rust for Linux's `io::Io` with its
//! compile-time-checked constant offsets, google/safe-mmio's
//! `UniqueMmioPointer`). The address-based [`Mmio`](crate::Mmio) path checks
//! a 64-bit [`DeviceAddr`] on every call instead: right for code generic over
//! backends.
//!
//! - [`BoundBlock<'w, BYTES>`]: `BYTES` bytes at a device address, checked by
//!   [`VolatileWindow::bind_block`]. `read(REG)` / `write(REG, v)` check
//!   `REG.offset() + 4 <= BYTES` (and alignment); with a constant `REG` (every
//!   `register_block!` handle is a `const`) the check folds, so an access held
//!   in an engine struct is the load of the block pointer and the access at
//!   `[pointer, #offset]`, as a raw access (`scripts/access-probe.sh` checks
//!   it in the thumbv7em disassembly).
//! - [`BoundReg<'w, A>`]: one register, checked when bound ([`BoundBlock::reg`],
//!   [`BoundBlock::at`], [`VolatileWindow::bind`]); `read()` / `write(v)`
//!   cannot fail and are one `ldr` / `str`. Every route binds a [`Reg`] or
//!   a [`RegArray`] instance and keeps its access `A`, so a read-only
//!   register has no bound `write` either.
//!
//! Both borrow the window (`'w`), so the window's constructor contract
//! (mapped, no Rust references into it) covers every access made through
//! them; accesses are raw `read_volatile` / `write_volatile`.

// Where khal-core allows `unsafe`: the MMIO backend (see the module docs).
#![allow(unsafe_code)]

use core::marker::PhantomData;
use core::ptr::NonNull;

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::mmio::VolatileWindow;
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
    pub fn bind_block<const BYTES: usize>(
        &self,
        base: DeviceAddr,
    ) -> Result<BoundBlock<'_, BYTES>> {
        let off = self.part_offset(base, BYTES as u64)?;
        Ok(BoundBlock {
            base: self.checked_dword(off),
            _window: PhantomData,
        })
    }

    /// Bind register `r` of the block at device address `base`, with `r`'s
    /// access: a bound read-only register has no `write`. Its address
    /// `base + r.offset()` must be a dword of the window, else
    /// [`Error::OutOfWindow`]; past 2^64 it is [`Error::InvalidArgument`]
    /// (it would wrap to a low address).
    pub fn bind<A: AccessType>(&self, base: DeviceAddr, r: Reg<A>) -> Result<BoundReg<'_, A>> {
        let off = self.offset(base.checked_add(r.offset(), "register address past 2^64")?)?;
        Ok(BoundReg {
            ptr: self.checked_dword(off),
            _window: PhantomData,
            _access: PhantomData,
        })
    }
}

impl<'w, const BYTES: usize> BoundBlock<'w, BYTES> {
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
    pub fn modify(self, f: impl FnOnce(u32) -> u32) -> u32 {
        let new = f(self.read());
        self.write(new);
        new
    }
}
