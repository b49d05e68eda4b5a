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
use crate::mmio::{Mmio, MmioSlot};

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
        if !(ptr.as_ptr() as usize).is_multiple_of(4) {
            return Err(Error::InvalidArgument(
                "volatile window: pointer not dword aligned",
            ));
        }
        if !len.is_multiple_of(4) {
            return Err(Error::InvalidArgument(
                "volatile window: length not a whole number of dwords",
            ));
        }
        if !device_base.get().is_multiple_of(4) {
            return Err(Error::InvalidArgument(
                "volatile window: device base not dword aligned",
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
    /// (wrapping) is below `len` exactly when `addr` is in the window (the
    /// constructor refused `device_base + len` past `u64::MAX`, so an `addr`
    /// below the base wraps to at least `2^64 - device_base >= len`); and
    /// `off.rotate_right(2) < words` holds exactly when, in addition, `off` is
    /// a multiple of 4 (a remainder rotates into the top two bits, and
    /// `words <= usize::MAX / 4`). On a 32-bit target the `u64 -> usize` step
    /// is a test of the high word, so the check is a handful of 32-bit
    /// instructions instead of a 64-bit subtract-compare-divide.
    #[inline(always)]
    fn offset(&self, addr: DeviceAddr) -> Result<usize> {
        let off = addr.get().wrapping_sub(self.device_base);
        match usize::try_from(off) {
            Ok(off) if off.rotate_right(2) < self.words => Ok(off),
            _ => Err(Error::out_of_window(addr.get())),
        }
    }

    /// The dword at `addr`, if it is an aligned address of the window
    /// ([`Self::offset`]).
    #[inline(always)]
    fn checked_ptr(&self, addr: DeviceAddr) -> Option<NonNull<u32>> {
        match self.offset(addr) {
            Ok(off) => Some(self.checked_dword(off)),
            Err(_) => None,
        }
    }

    /// [`Mmio::write32`] on bare metal, but for its `Error`: the check and
    /// the store, out of line, `false` if `addr` is refused (nothing is
    /// written then).
    ///
    /// The check is most of an access's code, and a firmware image holds
    /// dozens of address-based accesses (issue 12): out of line, with the
    /// value in `r1` and the address in `r2:r3` and a `bool` back in `r0`,
    /// an access is the address, the call and one test of `r0`. The 20-byte
    /// `Error` is built at the caller, where `addr` is. Hosts inline the
    /// check into `write32` (a typed access costs what a raw one does: the
    /// bench).
    #[cfg(target_os = "none")]
    #[inline(never)]
    fn store(&self, value: u32, addr: DeviceAddr) -> bool {
        self.checked_ptr(addr)
            .map(|p| write_dword(p, value))
            .is_some()
    }

    /// [`Mmio::read32`] on bare metal, but for its `Error` (see
    /// [`Self::store`]): the check and the load, out of line, `None` if
    /// `addr` is refused (nothing is read then). An `Option<u32>` comes
    /// back in `r0:r1`.
    #[cfg(target_os = "none")]
    #[inline(never)]
    fn load(&self, addr: DeviceAddr) -> Option<u32> {
        self.checked_ptr(addr).map(read_dword)
    }

    /// [`Self::offset`], for the bound handles of `mmio::bound`.
    #[inline(always)]
    pub(super) fn byte_offset(&self, addr: DeviceAddr) -> Result<usize> {
        self.offset(addr)
    }

    /// The non-null pointer to the dword at byte offset `off`, which
    /// [`Self::offset`] accepted; for the bound handles of `mmio::bound`.
    #[inline(always)]
    pub(super) fn checked_dword(&self, off: usize) -> NonNull<u32> {
        // SAFETY: `off < len`: the pointer lies inside the mapped window, a
        // range that starts at the non-null `base` and does not wrap the
        // address space (constructor contract 1), so it is not null.
        unsafe { NonNull::new_unchecked(self.dword_at(off)) }
    }

    /// The part of this window from byte offset `off` (which
    /// [`Self::offset`] accepted) of `words` dwords (`off + 4 words <= len`,
    /// checked by the caller), answering device addresses from
    /// `device_base` (dword aligned, `device_base + 4 words` not past
    /// `u64::MAX`, checked by the caller); for `mmio::bound`'s
    /// [`BoundWindow`](super::bound::BoundWindow), which only lends it out
    /// by reference while it borrows this window.
    pub(super) fn part(&self, off: usize, words: usize, device_base: u64) -> VolatileWindow {
        VolatileWindow {
            // A range inside this window: the constructor's contract (mapped,
            // no references, reads tolerated) holds for it as for the whole,
            // for as long as this window is borrowed.
            base: self.checked_dword(off),
            device_base,
            words,
        }
    }

    /// The dword index of `addr` ([`Self::offset`] / 4).
    #[inline(always)]
    fn index(&self, addr: DeviceAddr) -> Result<usize> {
        Ok(self.offset(addr)? / 4)
    }

    /// Pointer to the dword at byte offset `off`; only called with an offset
    /// [`Self::offset`] accepted (aligned, inside the window). A byte offset,
    /// not an index, so no `* 4` (or `& !3`) is computed per access.
    #[inline(always)]
    fn dword_at(&self, off: usize) -> *mut u32 {
        self.base
            .as_ptr()
            .cast::<u8>()
            .wrapping_add(off)
            .cast::<u32>()
    }

    /// [`Mmio::write32`] for a slot outside the window: on hosts out of line
    /// and cold, so that the slot's hot path is the compare and the store
    /// alone. On bare metal `write32` is already a call of the out-of-line
    /// `store`; a second function around it would return the 20-byte
    /// `Result` through memory (issue 12, firmware size).
    #[cfg_attr(not(target_os = "none"), cold, inline(never))]
    #[cfg_attr(target_os = "none", inline(always))]
    fn write_unslotted(&self, addr: DeviceAddr, value: u32) -> Result<()> {
        self.write32(addr, value)
    }

    /// [`Mmio::read32`] for a slot outside the window (see `write_unslotted`).
    #[cfg_attr(not(target_os = "none"), cold, inline(never))]
    #[cfg_attr(target_os = "none", inline(always))]
    fn read_unslotted(&self, addr: DeviceAddr) -> Result<u32> {
        self.read32(addr)
    }

    /// Pointer to dword `i`; only called with `i < self.words`.
    #[inline(always)]
    fn dword(&self, i: usize) -> *mut u32 {
        // `wrapping_add` keeps this function safe; with `i < words` (checked by
        // every caller through `index`) it is the in-bounds `add`.
        self.base.as_ptr().wrapping_add(i)
    }
}

/// One volatile load of the dword at `ptr`, a pointer [`VolatileWindow`]'s
/// `checked_ptr` returned.
#[inline(always)]
fn read_dword(ptr: NonNull<u32>) -> u32 {
    // SAFETY: `ptr` is the dword at a multiple-of-4 offset below `len`
    // (`checked_ptr`), so it lies inside the window, which the
    // constructor's contract keeps mapped and readable; the pointer is
    // dword aligned (checked by `new`, and the stride is 4). `RO<u32>` is
    // `repr(transparent)` over `UnsafeCell<u32>`, so the cast preserves
    // layout, and a shared reference to an `UnsafeCell` does not assume
    // the value is immutable. The reference lives for this one statement.
    let cell: &RO<u32> = unsafe { &*ptr.as_ptr().cast::<RO<u32>>() };
    cell.read()
}

/// One volatile store of `value` to the dword at `ptr`, a pointer
/// [`VolatileWindow`]'s `checked_ptr` returned.
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
        #[cfg(target_os = "none")]
        let value = self.load(addr);
        #[cfg(not(target_os = "none"))]
        let value = self.checked_ptr(addr).map(read_dword);
        value.ok_or(Error::out_of_window(addr.get()))
    }

    #[inline(always)]
    fn write32(&self, addr: DeviceAddr, value: u32) -> Result<()> {
        #[cfg(target_os = "none")]
        let written = self.store(value, addr);
        #[cfg(not(target_os = "none"))]
        let written = self
            .checked_ptr(addr)
            .map(|p| write_dword(p, value))
            .is_some();
        if written {
            Ok(())
        } else {
            Err(Error::out_of_window(addr.get()))
        }
    }

    /// The register's dword index when `addr` is a dword of the window
    /// (checked here, once), [`MmioSlot::unchecked`] otherwise (each access
    /// is then refused as `write32` refuses it).
    #[inline]
    fn slot(&self, addr: DeviceAddr) -> MmioSlot {
        match self.index(addr) {
            Ok(i) => MmioSlot::new(addr, i),
            Err(_) => MmioSlot::unchecked(addr),
        }
    }

    /// One compare of the slot's index with the window's dwords, then the
    /// store; a slot outside the window (unchecked, or another window's)
    /// takes the address path of [`Mmio::write32`].
    #[inline(always)]
    fn write_slot(&self, slot: MmioSlot, value: u32) -> Result<()> {
        if self.write_slot_direct(slot, value) {
            return Ok(());
        }
        self.write_unslotted(slot.addr(), value)
    }

    /// The store of [`Mmio::write_slot`] for a slot inside the window (one
    /// compare, then the store); `false` for any other (nothing written).
    #[inline(always)]
    fn write_slot_direct(&self, slot: MmioSlot, value: u32) -> bool {
        if slot.index() >= self.words {
            return false;
        }
        // SAFETY: `index < words`: the dword lies inside the window, mapped
        // and writable by the constructor's contract, dword aligned (the
        // base is, and the stride is 4). As in `write32`: `RW<u32>` has the
        // layout of `u32` over an `UnsafeCell`; the reference lives for this
        // one statement; a register write is the purpose of this call.
        unsafe {
            let cell: &RW<u32> = &*self.dword(slot.index()).cast::<RW<u32>>();
            cell.write(value);
        }
        true
    }

    /// As [`Mmio::write_slot`] here: one compare, then the load.
    #[inline(always)]
    fn read_slot(&self, slot: MmioSlot) -> Result<u32> {
        if slot.index() >= self.words {
            return self.read_unslotted(slot.addr());
        }
        // SAFETY: `index < words`, as in `write_slot`; readable by the
        // constructor's contract. As in `read32`: `RO<u32>` is
        // `repr(transparent)` over `UnsafeCell<u32>`; the reference lives for
        // this one statement.
        let cell: &RO<u32> = unsafe { &*self.dword(slot.index()).cast::<RO<u32>>() };
        Ok(cell.read())
    }

    /// All words are checked against the window first, so a burst that would
    /// leave it writes nothing.
    fn write_burst(&self, addr: DeviceAddr, words: &[u32]) -> Result<()> {
        let Some(last_off) = words
            .len()
            .checked_sub(1)
            .and_then(|k| u64::try_from(k).ok())
            .and_then(|k| k.checked_mul(4))
        else {
            return Ok(());
        };
        let first = self.index(addr)?;
        let last_addr = addr
            .get()
            .checked_add(last_off)
            .ok_or(Error::out_of_window(addr.get()))?;
        self.index(DeviceAddr(last_addr))?;
        for (k, &w) in words.iter().enumerate() {
            // SAFETY: `first + k <= last index < words` (both ends checked
            // above, the window is contiguous); aligned, mapped and writable
            // as in `write32`. One volatile write per word, in order.
            unsafe {
                let cell: &RW<u32> = &*self.dword(first + k).cast::<RW<u32>>();
                cell.write(w);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A window over a heap buffer (this is what Miri checks).
    fn window(buf: &mut [u32], base: u64) -> VolatileWindow {
        let ptr = NonNull::new(buf.as_mut_ptr()).unwrap();
        // SAFETY: `buf` outlives the window in every test, is only touched
        // through the window until the window is dropped, and is ordinary
        // single-threaded memory.
        unsafe { VolatileWindow::new(ptr, buf.len() * 4, DeviceAddr(base)) }.unwrap()
    }

    #[test]
    fn debug_prints_the_window_in_hex() {
        let mut buf = vec![0u32; 0x40];
        let ptr = buf.as_ptr();
        let w = window(&mut buf, 0x2000_1000);
        assert_eq!(
            format!("{w:?}"),
            format!("VolatileWindow {{ base: {ptr:p}, device_base: 0x20001000, len: 0x100 }}")
        );
    }

    #[test]
    fn reads_back_what_it_wrote_and_lands_in_memory() {
        let mut buf = vec![0u32; 16];
        {
            let w = window(&mut buf, 0x8_0260_0000);
            assert_eq!(w.len(), 64);
            w.write32(DeviceAddr(0x8_0260_0000), 0xDEAD_BEEF).unwrap();
            w.write32(DeviceAddr(0x8_0260_003C), 7).unwrap(); // last dword
            assert_eq!(w.read32(DeviceAddr(0x8_0260_0000)), Ok(0xDEAD_BEEF));
            assert_eq!(w.read32(DeviceAddr(0x8_0260_003C)), Ok(7));
            w.write_burst(DeviceAddr(0x8_0260_0010), &[1, 2, 3])
                .unwrap();
        } // the window ends here; the buffer is read directly only after it
        assert_eq!(buf[0], 0xDEAD_BEEF);
        assert_eq!(buf[4..7], [1, 2, 3]);
        assert_eq!(buf[15], 7);
    }

    #[test]
    fn a_slot_is_checked_once_and_reaches_its_register() {
        let mut buf = vec![0u32; 4];
        let mut other = vec![0u32; 2];
        {
            let w = window(&mut buf, 0x1000);
            let s = w.slot(DeviceAddr(0x1008));
            assert_eq!((s.addr(), s.index()), (DeviceAddr(0x1008), 2));
            w.write_slot(s, 0x55).unwrap();
            assert_eq!(w.read_slot(s), Ok(0x55));
            assert_eq!(w.read32(DeviceAddr(0x1008)), Ok(0x55));
            // Outside or misaligned: no slot, and each access is refused as
            // `write32` / `read32` refuse it.
            for a in [0x1010, 0x1002, 0xFFC] {
                let s = w.slot(DeviceAddr(a));
                assert_eq!(s, MmioSlot::unchecked(DeviceAddr(a)));
                assert_eq!(w.write_slot(s, 1), Err(Error::out_of_window(a)));
                assert_eq!(w.read_slot(s), Err(Error::out_of_window(a)));
            }
            // Another window's slot never leaves this window.
            let small = window(&mut other, 0x1000);
            let far = w.slot(DeviceAddr(0x100C));
            assert_eq!(small.write_slot(far, 9), Err(Error::out_of_window(0x100C)));
            // The direct write: a slot of this window is written, any
            // other is not (nothing written, `false`).
            let s1 = w.slot(DeviceAddr(0x1004));
            assert!(w.write_slot_direct(s1, 0x66));
            assert!(!w.write_slot_direct(MmioSlot::unchecked(DeviceAddr(0x100C)), 9));
            assert!(!small.write_slot_direct(far, 9));
            assert!(
                !small.write_slot_direct(s, 9),
                "index 2 of a 2-dword window"
            );
        }
        assert_eq!(buf, [0, 0x66, 0x55, 0]);
        assert_eq!(other, [0, 0]);
    }

    /// A backend without slots of its own (the trait's defaults): a direct
    /// slot write accesses nothing and says so.
    #[test]
    fn the_default_direct_slot_write_accesses_nothing() {
        struct Addr(core::cell::Cell<u32>);
        impl Mmio for Addr {
            fn read32(&self, _: DeviceAddr) -> Result<u32> {
                self.0.set(self.0.get() + 1);
                Ok(0)
            }
            fn write32(&self, _: DeviceAddr, _: u32) -> Result<()> {
                self.0.set(self.0.get() + 1);
                Ok(())
            }
        }
        let m = Addr(core::cell::Cell::new(0));
        let s = m.slot(DeviceAddr(0x1000));
        assert!(!m.write_slot_direct(s, 1));
        assert!(!Mmio::write_slot_direct(&&m, s, 1), "the `&M` forwarding");
        assert_eq!(m.0.get(), 0);
        assert_eq!(m.write_slot(s, 1), Ok(()));
        assert_eq!(m.0.get(), 1);
    }

    #[test]
    fn refuses_outside_and_misaligned_without_touching_memory() {
        let mut buf = vec![0u32; 4];
        {
            let w = window(&mut buf, 0x1000);
            for a in [0xFFC, 0x1010, 0x1002, 0x100F, u64::MAX] {
                assert_eq!(
                    w.read32(DeviceAddr(a)),
                    Err(Error::out_of_window(a)),
                    "{a:#x}"
                );
                assert_eq!(w.write32(DeviceAddr(a), 1), Err(Error::out_of_window(a)));
            }
            // A burst that would run past the end writes nothing at all.
            assert_eq!(
                w.write_burst(DeviceAddr(0x1008), &[9, 9, 9]),
                Err(Error::out_of_window(0x1010))
            );
            assert_eq!(w.write_burst(DeviceAddr(0x2000), &[]), Ok(()));
        }
        assert_eq!(buf, [0, 0, 0, 0]);
    }

    /// Every address around a window (below, inside, above, misaligned) and
    /// near both ends of the address space: refused exactly when it is not an
    /// aligned dword of the window.
    #[test]
    fn index_matches_the_plain_definition() {
        let mut buf = vec![0u32; 8];
        let ptr = NonNull::new(buf.as_mut_ptr()).unwrap();
        for base in [0u64, 0x1000, 0x8_0260_0000, u64::MAX - 35, 1 << 63] {
            // SAFETY: `buf` outlives the window (dropped each iteration) and is
            // only read here through `index`, never accessed.
            let w = unsafe { VolatileWindow::new(ptr, 32, DeviceAddr(base)) }.unwrap();
            let probes = (0..48u64)
                .map(|d| base.wrapping_add(d))
                .chain((1..12u64).map(|d| base.wrapping_sub(d)))
                .chain([
                    0,
                    4,
                    u64::MAX - 3,
                    u64::MAX,
                    base ^ (1 << 63),
                    base.wrapping_add(1 << 32),
                ]);
            for a in probes {
                let want = a
                    .checked_sub(base)
                    .filter(|o| o % 4 == 0 && *o < 32)
                    .map(|o| (o / 4) as usize)
                    .ok_or(Error::out_of_window(a));
                assert_eq!(w.index(DeviceAddr(a)), want, "base {base:#x} addr {a:#x}");
            }
        }
    }

    #[test]
    fn constructor_refuses_bad_geometry() {
        let mut buf = vec![0u32; 4];
        let p = NonNull::new(buf.as_mut_ptr()).unwrap();
        // SAFETY: (all four calls) the buffer is live for the statement; every call
        // is refused before a window exists, and none is accessed.
        unsafe {
            assert!(VolatileWindow::new(p, 15, DeviceAddr(0)).is_err());
            assert!(VolatileWindow::new(p, 16, DeviceAddr(2)).is_err());
            assert!(VolatileWindow::new(p, 16, DeviceAddr(u64::MAX - 7)).is_err());
            let odd = NonNull::new(p.as_ptr().cast::<u8>().wrapping_add(1).cast::<u32>()).unwrap();
            assert!(VolatileWindow::new(odd, 4, DeviceAddr(0)).is_err());
        }
        let empty = window(&mut [], 0);
        assert!(empty.is_empty());
        assert_eq!(empty.read32(DeviceAddr(0)), Err(Error::out_of_window(0)));
    }
}
