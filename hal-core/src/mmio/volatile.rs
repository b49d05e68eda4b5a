//! Direct volatile-pointer MMIO for firmware: [`VolatileWindow`], a mapped
//! register window accessed through the `volatile-register` cells.
//!
//! This is the only module of khal-core allowed to use `unsafe` (the crate
//! denies it everywhere else). Every `unsafe` block carries a `// SAFETY:`
//! comment; the single precondition that cannot be checked at run time (the
//! pointer really is a mapped window) is the contract of the `unsafe`
//! constructor [`VolatileWindow::new`].
//!
//! # Why references to `RW`/`RO` cells are used, and why that is sound here
//!
//! The `volatile-register` cells ([`RW<u32>`], [`RO<u32>`]) are
//! `#[repr(transparent)]` wrappers around `vcell::VolatileCell<u32>`, itself a
//! `#[repr(transparent)]` `UnsafeCell<u32>`. A dword of the window therefore has
//! exactly the layout of a cell, and a `&RW<u32>` is a `&UnsafeCell<u32>`:
//! holding one does **not** promise the compiler the value is immutable, so the
//! device changing a register under it breaks no aliasing rule. Each `read` /
//! `write` of a cell is one `read_volatile` / `write_volatile` of the `u32`:
//! one device access, never elided, merged or reordered with other volatile
//! accesses.
//!
//! What a `&` still gives the compiler is *dereferenceability*: while a
//! reference is live the compiler may, in principle, insert an extra ordinary
//! read of that dword (the known caveat of reference-based MMIO, see
//! rust-embedded/volatile-register#10). This module keeps that window as small
//! as it can be and puts the rest in the constructor's contract:
//!
//! 1. a reference to a cell is created from the raw window pointer inside one
//!    access method, used for exactly one `read`/`write`, and dropped before
//!    the method returns: it never outlives one device access;
//! 2. no reference into the window ever leaves this module: the public API is
//!    the address-based [`Mmio`] trait (`read32(addr) -> u32`), which copies
//!    values out and in, so no caller can hold a `&` into device memory and
//!    stretch that lifetime (rule 8 of ARCHITECTURE.md);
//! 3. the constructor's `# Safety` section requires the window to be mapped and
//!    readable for the whole life of the [`VolatileWindow`], so even a
//!    compiler-inserted read is a read of mapped memory, never a fault.
//!
//! A window whose registers have read side effects (clear-on-read) would be
//! exposed to point 3's theoretical extra read; no register khal drives through
//! this backend is documented as read-to-clear in the notes. A backend with no
//! reference at all is `khal_std::mmap::MmapMmio` (raw `read_volatile`).

// The one place in khal-core where `unsafe` is allowed (see the module docs).
#![allow(unsafe_code)]

use core::ptr::NonNull;

use volatile_register::{RO, RW};

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::Mmio;

/// A register window of `len` bytes mapped at `ptr`, answering device addresses
/// `[device_base, device_base + len)`. Accesses outside it, or not dword
/// aligned, are refused with [`Error::OutOfWindow`] before any memory is touched.
///
/// `Debug` prints the pointer, the device base and the length in bytes, in hex
/// (`VolatileWindow { base: 0x40000000, device_base: 0x0, len: 0x1000000 }`).
pub struct VolatileWindow {
    /// The first dword of the window.
    base: NonNull<u32>,
    /// The device address of the first dword.
    device_base: u64,
    /// Length of the window in dwords.
    words: usize,
}

// SAFETY: a `VolatileWindow` is a pointer to a mapped register window plus two
// integers; moving it to another thread moves no thread-bound state (nothing
// here is thread-local), and the window stays valid by the constructor's
// contract for as long as the `VolatileWindow` exists.
unsafe impl Send for VolatileWindow {}

// SAFETY: sharing `&VolatileWindow` lets two contexts issue volatile accesses to
// the same window. For device memory (outside any Rust allocation) volatile
// accesses are I/O operations, and concurrent register access is the device's
// concern exactly as in the C runtime; for ordinary memory the constructor's
// contract (point 3) makes the caller responsible for not accessing one window
// from two threads at once.
unsafe impl Sync for VolatileWindow {}

impl core::fmt::Debug for VolatileWindow {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "VolatileWindow {{ base: {:p}, device_base: {:#x}, len: {:#x} }}",
            self.base,
            self.device_base,
            self.words * 4
        )
    }
}

impl VolatileWindow {
    /// A window over `len` bytes at `ptr`, answering device addresses from
    /// `device_base`.
    ///
    /// Refused with [`Error::InvalidArgument`]: a `ptr` that is not 4-byte
    /// aligned, a `len` that is not a whole number of dwords, a `device_base`
    /// that is not dword aligned, or `device_base + len` past `u64::MAX`.
    ///
    /// # Safety
    ///
    /// For as long as the returned window (or anything that borrows it) exists:
    ///
    /// 1. `ptr .. ptr + len` must be mapped, readable and writable memory
    ///    (a device register window, or ordinary memory in tests), and remain
    ///    so: it must not be unmapped or freed;
    /// 2. no Rust reference (`&`/`&mut`) to any byte of it may be used by other
    ///    code (other raw-pointer volatile access is fine);
    /// 3. every dword of it must tolerate a read at any time while the window
    ///    is being accessed (see the module docs: reference-based cells); and
    ///    if the memory is ordinary memory (inside a Rust allocation), the
    ///    window must not be accessed from two threads at the same time.
    pub unsafe fn new(ptr: NonNull<u32>, len: usize, device_base: DeviceAddr) -> Result<Self> {
        let aligned = (ptr.as_ptr() as usize | len).is_multiple_of(4);
        if !aligned || !device_base.get().is_multiple_of(4) {
            return Err(Error::InvalidArgument(
                "volatile window: pointer, length or device base not dword aligned",
            ));
        }
        if u64::try_from(len)
            .ok()
            .and_then(|l| device_base.get().checked_add(l))
            .is_none()
        {
            return Err(Error::InvalidArgument(
                "volatile window: device base + length overflows",
            ));
        }
        Ok(VolatileWindow {
            base: ptr,
            device_base: device_base.get(),
            words: len / 4,
        })
    }

    /// The device address of the first dword.
    pub fn device_base(&self) -> DeviceAddr {
        DeviceAddr(self.device_base)
    }

    /// The window length in bytes.
    pub fn len(&self) -> usize {
        self.words * 4
    }

    /// `true` for a zero-length window (every access is refused).
    pub fn is_empty(&self) -> bool {
        self.words == 0
    }

    /// The byte offset of `addr`, if it is an aligned address of the window.
    ///
    /// One wrapping subtraction and one compare: `off = addr - device_base`
    /// (wrapping) is below `len` exactly when `addr` is in the window (every
    /// window has `device_base + len <= 2^64`, so an `addr` below the base
    /// wraps to at least `2^64 - device_base >= len`); and
    /// `off.rotate_right(2) < words` holds exactly when, in addition, `off` is
    /// a multiple of 4 (a remainder rotates into the top two bits, and
    /// `words <= usize::MAX / 4`). On a 32-bit target the `u64 -> usize` step
    /// is a test of the high word.
    #[inline(always)]
    pub(super) fn offset(&self, addr: DeviceAddr) -> Result<usize> {
        let off = addr.get().wrapping_sub(self.device_base);
        match usize::try_from(off) {
            Ok(off) if off.rotate_right(2) < self.words => Ok(off),
            _ => Err(Error::out_of_window(addr.get())),
        }
    }

    /// [`Mmio::write32`] but for its `Error`: the check and the store,
    /// `false` if `addr` is refused (nothing is written then). Out of line on
    /// bare metal: a firmware image holds dozens of address-based accesses,
    /// and out of line, with a `bool` back in `r0`, each is the address, the
    /// call and one test, the `Error` built at the caller, where `addr` is.
    /// Hosts inline it into `write32`.
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline(always))]
    fn store(&self, value: u32, addr: DeviceAddr) -> bool {
        self.offset(addr)
            .ok()
            .map(|o| self.checked_dword(o))
            .map(|p| write_dword(p, value))
            .is_some()
    }

    /// [`Mmio::read32`] but for its `Error`, out of line on bare metal as
    /// [`Self::store`] is: `None` if `addr` is refused (nothing is read then).
    #[cfg_attr(target_os = "none", inline(never))]
    #[cfg_attr(not(target_os = "none"), inline(always))]
    fn load(&self, addr: DeviceAddr) -> Option<u32> {
        self.offset(addr)
            .ok()
            .map(|o| self.checked_dword(o))
            .map(read_dword)
    }

    /// The non-null pointer to the dword at byte offset `off`, which
    /// [`Self::offset`] accepted; also for the bound handles of `mmio::bound`.
    #[inline(always)]
    pub(super) fn checked_dword(&self, off: usize) -> NonNull<u32> {
        let p = self
            .base
            .as_ptr()
            .cast::<u8>()
            .wrapping_add(off)
            .cast::<u32>();
        // SAFETY: `off < len`: the pointer lies inside the mapped window, a
        // range that starts at the non-null `base` and does not wrap the
        // address space (constructor contract 1), so it is not null.
        unsafe { NonNull::new_unchecked(p) }
    }

    /// The byte offset of the `bytes` from `base`, all inside this window:
    /// [`Error::InvalidArgument`] for `bytes` 0 or not a whole number of
    /// dwords; [`Error::OutOfWindow`] naming `base` when it is not a dword
    /// of the window, `base + bytes` when the part runs past its end.
    pub(super) fn part_offset(&self, base: DeviceAddr, bytes: u64) -> Result<usize> {
        if bytes == 0 || !bytes.is_multiple_of(4) {
            return Err(Error::InvalidArgument(
                "bound part: size not a positive whole number of dwords",
            ));
        }
        let off = self.offset(base)?;
        // `off < len`, so `len - off` cannot wrap.
        if bytes > (self.len() - off) as u64 {
            return Err(Error::out_of_window(base.get().wrapping_add(bytes)));
        }
        Ok(off)
    }

    /// The `bytes` of this window from `base` as a window of their own,
    /// answering device addresses from `answers_at` (with `answers_at +
    /// bytes <= 2^64`, as for every window: a CSR block's, which lies in its
    /// region). Refused as [`Self::part_offset`] refuses.
    ///
    /// Crate-private: the part does not borrow this window, so only a holder
    /// that borrows it for as long as the part lives may make one (a
    /// [`CsrWindow`](crate::csr::CsrWindow) borrows its `Csr`, which holds
    /// or borrows this window).
    pub(crate) fn sub_window(
        &self,
        base: DeviceAddr,
        bytes: u64,
        answers_at: DeviceAddr,
    ) -> Result<Self> {
        let off = self.part_offset(base, bytes)?;
        Ok(VolatileWindow {
            // A range inside this window: the constructor's contract
            // (mapped, no references, reads tolerated) holds for it as for
            // the whole, for as long as this window is borrowed.
            base: self.checked_dword(off),
            device_base: answers_at.get(),
            // `bytes <= len - off`, a `usize`.
            words: (bytes / 4) as usize,
        })
    }

    /// A part answering as this one does, for a holder that made this one
    /// with [`Self::sub_window`] and borrows its window as long.
    pub(crate) fn same_part(&self) -> VolatileWindow {
        VolatileWindow { ..*self }
    }
}

/// One volatile load of the dword at `ptr`, a pointer [`VolatileWindow`]'s
/// accepted offset points at.
#[inline(always)]
fn read_dword(ptr: NonNull<u32>) -> u32 {
    // SAFETY: `ptr` is the dword at a multiple-of-4 offset below `len`
    // (`offset`), so it lies inside the window, which the
    // constructor's contract keeps mapped and readable; the pointer is
    // dword aligned (checked by `new`, and the stride is 4). `RO<u32>` is
    // `repr(transparent)` over `UnsafeCell<u32>`, so the cast preserves
    // layout, and a shared reference to an `UnsafeCell` does not assume
    // the value is immutable. The reference lives for this one statement.
    let cell: &RO<u32> = unsafe { &*ptr.as_ptr().cast::<RO<u32>>() };
    cell.read()
}

/// One volatile store of `value` to the dword at `ptr`, a pointer
/// [`VolatileWindow`]'s accepted offset points at.
#[inline(always)]
fn write_dword(ptr: NonNull<u32>, value: u32) {
    // SAFETY: as in `read_dword`: in bounds, aligned, mapped and writable by
    // the constructor's contract; `RW<u32>` has the layout of `u32` and wraps
    // an `UnsafeCell`, so writing through `&RW` is interior mutability.
    // `RW::write` is `unsafe` only because a register write has side
    // effects, which is the purpose of this call.
    unsafe {
        let cell: &RW<u32> = &*ptr.as_ptr().cast::<RW<u32>>();
        cell.write(value);
    }
}

impl Mmio for VolatileWindow {
    #[inline(always)]
    fn read32(&self, addr: DeviceAddr) -> Result<u32> {
        self.load(addr).ok_or(Error::out_of_window(addr.get()))
    }

    #[inline(always)]
    fn write32(&self, addr: DeviceAddr, value: u32) -> Result<()> {
        self.store(value, addr)
            .then_some(())
            .ok_or(Error::out_of_window(addr.get()))
    }

    /// All words are checked against the window first, so a burst that would
    /// leave it writes nothing.
    fn write_burst(&self, addr: DeviceAddr, words: &[u32]) -> Result<()> {
        let Some(n) = words.len().checked_sub(1) else {
            return Ok(());
        };
        let first = self.offset(addr)?;
        // A slice holds fewer than 2^62 dwords: `4 n` does not wrap, and the
        // add wraps exactly when `last < addr`.
        let last = addr.get().wrapping_add(4 * n as u64);
        if last < addr.get() {
            return Err(Error::out_of_window(addr.get()));
        }
        self.offset(DeviceAddr(last))?;
        for (k, &w) in words.iter().enumerate() {
            // `first + 4 k <= last offset < len` (both ends checked above,
            // the window is contiguous). One volatile write per word, in order.
            write_dword(self.checked_dword(first + 4 * k), w);
        }
        Ok(())
    }

    fn as_volatile(&self) -> Option<&VolatileWindow> {
        Some(self)
    }
}
