//! Static DMA memory for firmware: [`StaticDma`] over a `&'static mut` buffer,
//! and [`static_dma!`](crate::static_dma) to get that buffer once, aligned, without `unsafe`.
//!
//! A bare-metal image has no allocator: its NQ rings live in `static` memory.
//! [`static_dma!`](crate::static_dma) hands out a [`DmaBuffer`] (aligned to
//! 64 bytes) exactly once per call site — a second call returns
//! `None` — in the spirit of cortex-m's `singleton!` and esp-hal's
//! `dma_buffers!`. [`StaticDma`] then owns it and implements [`DmaMemory`]:
//!
//! ```
//! use khal_core::dma::{DmaMemory, StaticDma};
//!
//! let buf = khal_core::static_dma!(1024).ok_or(khal_core::Error::OutOfMemory)?;
//! let ring = StaticDma::identity(buf);
//! assert_eq!(ring.len(), 1024);
//! assert_eq!(ring.bus_addr() % 64, 0);
//! # Ok::<(), khal_core::Error>(())
//! ```
//!
//! # The bus address
//!
//! [`DmaMemory::bus_addr`] is the address **the device's DMA** uses to reach
//! byte 0 of the buffer, which is what the NQ base registers receive
//! [004 §3]. The buffer is one contiguous range `[bus_addr, bus_addr + len)`
//! on the device's side too.
//! - [`StaticDma::identity`]: the device sees the core's memory at the same
//!   addresses the core uses (no IOMMU, no address window between them), so
//!   the bus address is the buffer's own address.
//! - [`StaticDma::new`]: any other mapping: the caller supplies the bus
//!   address (e.g. the core's address plus the offset of the PCIe window the
//!   device reaches this RAM through). khal cannot check it; a wrong value
//!   makes the device write elsewhere, never makes khal touch memory outside
//!   the buffer (every access here is bounds-checked against the buffer).
//!
//! # Access
//!
//! Every access is bounds-checked first. The memory is shared with the device,
//! and `StaticDma` is `Sync` with `&self` methods, so two contexts (an
//! interrupt handler and `main`, two cores, a device-model thread in host
//! tests) may reach it at once: every access is a relaxed atomic access of one
//! of the buffer's aligned 4-byte words ([`DmaMemory::words`]), so none races
//! another. Ordering is the callers' business: the drain's Acquire fence after
//! the phase load [FACTS §11].
//!
//! The one `unsafe` block here turns the consumed `&'static mut` buffer into
//! its slice of atomic words (`as_words`), with its `// SAFETY:` comment.

// The second place in khal-core where `unsafe` is allowed (see the module docs).
#![allow(unsafe_code)]

use core::cell::UnsafeCell;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use super::words::WORD;
use super::DmaMemory;
use crate::error::{Error, Result};

/// The alignment of every [`DmaBuffer`]: 64 bytes.
///
/// The notes do not trace the alignment the device needs for an NQ base
/// (not traced, see docs/coverage.md); 64 is khal's own choice: a multiple
/// of the 16-byte entry [004 §3] (no entry straddles a word or cache line)
/// and of the word size, so the bulk copies below are aligned word loads.
pub(crate) const STATIC_DMA_ALIGN: usize = 64;

// The buffer's alignment is a whole number of words.
const _: () = assert!(STATIC_DMA_ALIGN.is_multiple_of(WORD));

/// `N` bytes of DMA memory aligned to 64 bytes (zeroed when
/// created by [`StaticDmaCell::new`]). `N` must be a multiple of 4 (the
/// access word): another `N` does not compile.
///
/// ```compile_fail
/// let _ = khal_core::static_dma!(6); // not a whole number of 4-byte words
/// ```
#[repr(C, align(64))]
#[derive(Debug)]
pub struct DmaBuffer<const N: usize>([u8; N]);

impl<const N: usize> DmaBuffer<N> {
    /// Evaluated (at compile time) by every constructor: `N` is whole words.
    const WHOLE_WORDS: () = assert!(
        N.is_multiple_of(WORD),
        "DmaBuffer<N>: N must be a multiple of 4"
    );
}

// The attribute above must agree with the documented constant.
static_assertions::const_assert_eq!(core::mem::align_of::<DmaBuffer<1>>(), STATIC_DMA_ALIGN);

/// The storage behind one [`static_dma!`](crate::static_dma) call site: a
/// zeroed [`DmaBuffer`] and a flag that lets [`StaticDmaCell::take`] hand it
/// out once.
///
/// Put it in a `static` (the macro does) and call [`StaticDmaCell::take`].
#[derive(Debug)]
pub struct StaticDmaCell<const N: usize> {
    taken: AtomicBool,
    buf: UnsafeCell<DmaBuffer<N>>,
}

// SAFETY: the only access to `buf` from a shared `&StaticDmaCell` is
// `take`, which creates the one `&mut` to it after winning the atomic swap of
// `taken` from `false` to `true`; every other caller, on any thread or
// interrupt level, loses the swap and gets `None`. So `buf` is never reached
// from two contexts, and sharing the cell is sound.
unsafe impl<const N: usize> Sync for StaticDmaCell<N> {}

impl<const N: usize> StaticDmaCell<N> {
    /// A zeroed buffer, not yet handed out (usable in a `static`).
    #[allow(clippy::new_without_default)] // a `static` needs the const fn, not Default
    pub const fn new() -> Self {
        let () = DmaBuffer::<N>::WHOLE_WORDS;
        StaticDmaCell {
            taken: AtomicBool::new(false),
            buf: UnsafeCell::new(DmaBuffer([0; N])),
        }
    }

    /// The buffer, the first time; `None` on every later call.
    ///
    /// Once-only is an atomic swap (`thumbv7em`, `riscv32imac` and hosts have
    /// it), so two threads or an interrupt racing `main` cannot both win.
    // A `&mut` from `&self` is the point of the cell (as static_cell's
    // `StaticCell::init`); the atomic swap makes it unique.
    #[allow(clippy::mut_from_ref)]
    pub fn take(&'static self) -> Option<&'static mut DmaBuffer<N>> {
        if self.taken.swap(true, Ordering::AcqRel) {
            return None;
        }
        // SAFETY: this call won the swap above, so it is the first and only
        // one to get here for this cell (see the `Sync` impl); no other
        // reference to `buf` exists or will ever be made. The cell is
        // `'static`, so the buffer lives for the whole program.
        Some(unsafe { &mut *self.buf.get() })
    }
}

/// A statically allocated DMA buffer of `$len` bytes, aligned to
/// 64 bytes and zeroed:
/// `Some(&'static mut DmaBuffer<$len>)` the first time this call site runs,
/// `None` afterwards. No `unsafe` in the caller.
///
/// Give the buffer to [`StaticDma::identity`] or [`StaticDma::new`].
///
/// ```
/// fn ring() -> Option<&'static mut khal_core::dma::DmaBuffer<256>> {
///     khal_core::static_dma!(256)
/// }
/// assert!(ring().is_some());
/// assert!(ring().is_none()); // the same call site: handed out once
/// ```
#[macro_export]
macro_rules! static_dma {
    ($len:expr) => {{
        static KHAL_STATIC_DMA: $crate::dma::StaticDmaCell<{ $len }> =
            $crate::dma::StaticDmaCell::new();
        KHAL_STATIC_DMA.take()
    }};
}

/// DMA memory over a `&'static mut` buffer: the NQ rings of a firmware image.
/// See the module docs for what the bus address means.
///
/// `Debug` prints the buffer's address, its length in bytes and the bus
/// address, in hex (`StaticDma { addr: 0x20000400, len: 0x400, bus_addr:
/// 0x20000400 }`), not the buffer's contents.
pub struct StaticDma {
    /// The buffer, as its aligned 4-byte words (from the `&'static mut` the
    /// constructor consumed): every access is a relaxed atomic of one of them.
    words: &'static [AtomicU32],
    bus_addr: u64,
}

impl core::fmt::Debug for StaticDma {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "StaticDma {{ addr: {:p}, len: {:#x}, bus_addr: {:#x} }}",
            self.words.as_ptr(),
            self.words.len() * WORD,
            self.bus_addr
        )
    }
}

impl StaticDma {
    /// DMA memory over `buf`, which the device reaches at `bus_addr` (the
    /// address of byte 0 on the device's side, see the module docs).
    ///
    /// Refused with [`Error::InvalidArgument`]: a `bus_addr` that is not a
    /// multiple of 64 (a translation must keep the buffer's
    /// alignment, or entries would straddle on the device's side), or a range
    /// `bus_addr + N` that overflows.
    pub fn new<const N: usize>(buf: &'static mut DmaBuffer<N>, bus_addr: u64) -> Result<Self> {
        if !bus_addr.is_multiple_of(STATIC_DMA_ALIGN as u64) {
            return Err(Error::InvalidArgument(
                "static dma: bus address not 64-byte aligned",
            ));
        }
        if bus_addr.checked_add(N as u64).is_none() {
            return Err(Error::InvalidArgument(
                "static dma: bus address + length overflows",
            ));
        }
        Ok(StaticDma {
            words: as_words(buf),
            bus_addr,
        })
    }

    /// DMA memory over `buf` for a device that sees the core's addresses
    /// (bus address = the buffer's own address).
    pub fn identity<const N: usize>(buf: &'static mut DmaBuffer<N>) -> Self {
        let words = as_words(buf);
        StaticDma {
            bus_addr: words.as_ptr() as usize as u64,
            words,
        }
    }
}

/// The buffer's bytes as its `N / 4` aligned atomic words, for the whole
/// program (the `&'static mut` is consumed: nothing else reaches them).
fn as_words<const N: usize>(buf: &'static mut DmaBuffer<N>) -> &'static [AtomicU32] {
    let () = DmaBuffer::<N>::WHOLE_WORDS;
    let ptr = NonNull::from(&mut buf.0).cast::<AtomicU32>();
    // SAFETY: the buffer is `N` initialised bytes, `N` a multiple of 4
    // (`WHOLE_WORDS`), 64-byte aligned (so 4-byte aligned), and `AtomicU32`
    // has the size and alignment of `u32` and no invalid bit patterns: it is
    // `N / 4` valid `AtomicU32`s. The `&'static mut` was the only reference to
    // the buffer and is consumed here, so from now on the buffer is reached
    // only through this shared slice of atomics (interior mutability, like
    // `AtomicU32::from_mut_slice`), for the whole program; the device's
    // writes are outside Rust.
    unsafe { core::slice::from_raw_parts(ptr.as_ptr(), N / WORD) }
}

impl DmaMemory for StaticDma {
    fn bus_addr(&self) -> u64 {
        self.bus_addr
    }
    fn len(&self) -> usize {
        self.words.len() * WORD
    }
    fn words(&self) -> Option<&[AtomicU32]> {
        Some(self.words)
    }
}
