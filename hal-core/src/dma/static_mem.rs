//! Static DMA memory for firmware: [`StaticDma`] over a `&'static mut` buffer,
//! and [`static_dma!`](crate::static_dma) to get that buffer once, aligned, without `unsafe`.
//!
//! A bare-metal image has no allocator: its NQ rings live in `static` memory.
//! [`static_dma!`](crate::static_dma) hands out a [`DmaBuffer`] (aligned to
//! [`STATIC_DMA_ALIGN`]) exactly once per call site — a second call returns
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
//! tests) may reach it at once: every access is therefore a **relaxed atomic**
//! access of one of the buffer's aligned 4-byte words ([`AtomicU32`]), the
//! same size everywhere, so no access ever races another (the memory model
//! forbids racing plain accesses and racing atomics of different sizes). A
//! byte load loads its word; a write of part of a word merges into it with a
//! compare-exchange; whole words are plain stores. On `thumbv7em` and
//! `riscv32imac` a relaxed word load is one `ldr` / `lw`: the NQ drain's entry
//! copy ([`DmaMemory::read_new_entries`]) is four word loads per entry, never
//! a byte loop, with the whole run's bounds checked once. Ordering is the
//! callers' business: the drain's Acquire fence after the phase load [FACTS §11].
//! Every access is [`AtomicWords`]'s (safe code), shared with khal-std's
//! `DmaBuf` (8-byte words).
//!
//! The one `unsafe` block here turns the consumed `&'static mut` buffer into
//! its slice of atomic words (`as_words`), with its `// SAFETY:` comment.

// The second place in khal-core where `unsafe` is allowed (see the module docs).
#![allow(unsafe_code)]

use core::cell::UnsafeCell;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use super::words::AtomicWords;
use super::DmaMemory;
use crate::error::{Error, Result};
use crate::notific::entry::NQ_ENTRY_BYTES;

/// The alignment of every [`DmaBuffer`]: 64 bytes.
///
/// The notes do not trace the alignment the device needs for an NQ base
/// (not traced, see docs/coverage.md); 64 is khal's own choice: a multiple
/// of the 16-byte entry [004 §3] (no entry straddles a word or cache line)
/// and of the word size, so the bulk copies below are aligned word loads.
pub const STATIC_DMA_ALIGN: usize = 64;

/// Bytes of the one access granularity of a [`StaticDma`]: its aligned 4-byte words.
const WORD: usize = 4;

// An entry is four words; the buffer's alignment is a whole number of words.
const _: () = assert!(NQ_ENTRY_BYTES == 4 * WORD && STATIC_DMA_ALIGN.is_multiple_of(WORD));

/// `N` bytes of DMA memory aligned to [`STATIC_DMA_ALIGN`] (zeroed when
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
/// [`STATIC_DMA_ALIGN`](crate::dma::static_mem::STATIC_DMA_ALIGN) and zeroed:
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
        static KHAL_STATIC_DMA: $crate::dma::static_mem::StaticDmaCell<{ $len }> =
            $crate::dma::static_mem::StaticDmaCell::new();
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
    /// multiple of [`STATIC_DMA_ALIGN`] (a translation must keep the buffer's
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

    /// The buffer as atomic words (what every access goes through).
    #[inline(always)]
    fn view(&self) -> AtomicWords<'static, AtomicU32> {
        AtomicWords::whole(self.words)
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

crate::dma_memory_over_words! {
    impl DmaMemory for StaticDma {
        fn view(&self) = self.view();
        fn bus_addr(&self) = self.bus_addr;
        fn len(&self) = self.words.len() * WORD;
        /// The whole run checked once; entries that start on a word (a ring's
        /// base is 64-byte aligned) are four word loads each.
        fn read_published_entries;
        /// One pass per entry ([`AtomicWords::read_new_entries`]): its first
        /// word (the phase byte's), an Acquire fence, its other three words.
        fn read_new_entries;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notific::entry::{NqEntry, PHASE_BYTE, PHASE_MASK};

    /// A fresh 1 KiB ring: every expansion is its own call site (its own static).
    macro_rules! ring_1k {
        () => {
            StaticDma::identity(crate::static_dma!(1024).expect("first take"))
        };
    }

    #[test]
    fn debug_prints_address_length_and_bus_address_in_hex() {
        let buf = crate::static_dma!(0x400).expect("first take");
        let addr = buf as *const DmaBuffer<0x400>;
        let mem = StaticDma::new(buf, 0x8000_0040).unwrap();
        assert_eq!(
            format!("{mem:?}"),
            format!("StaticDma {{ addr: {addr:p}, len: 0x400, bus_addr: 0x80000040 }}")
        );
    }

    #[test]
    fn the_macro_hands_out_once_aligned_and_zeroed() {
        fn site() -> Option<&'static mut DmaBuffer<128>> {
            crate::static_dma!(128)
        }
        let first = site().expect("first call");
        assert!(site().is_none());
        assert!(site().is_none());
        assert_eq!(first as *const _ as usize % STATIC_DMA_ALIGN, 0);
        let m = StaticDma::identity(first);
        assert_eq!(m.len(), 128);
        assert_eq!(m.bus_addr() % STATIC_DMA_ALIGN as u64, 0);
        let mut out = [0xFFu8; 128];
        m.read(0, &mut out).unwrap();
        assert_eq!(out, [0u8; 128]);
    }

    /// Its entry views are of 4-byte words: what the drain iterator reads
    /// them as (`DmaMemory::entry_view_word_bytes`).
    #[test]
    fn entry_views_are_of_four_byte_words() {
        let m = ring_1k!();
        assert_eq!(m.entry_view_word_bytes(), 4);
        assert!(m.entry_views_of_words());
    }

    #[test]
    fn bus_address_is_identity_or_the_given_one() {
        let buf = crate::static_dma!(64).unwrap();
        let addr = buf as *const _ as usize as u64;
        let m = StaticDma::identity(buf);
        assert_eq!(m.bus_addr(), addr);
        let buf = crate::static_dma!(64).unwrap();
        assert_eq!(
            StaticDma::new(buf, 0x20).unwrap_err(),
            Error::InvalidArgument("static dma: bus address not 64-byte aligned")
        );
        let buf = crate::static_dma!(64).unwrap();
        assert!(StaticDma::new(buf, u64::MAX - 63).is_err());
        let buf = crate::static_dma!(64).unwrap();
        assert_eq!(
            StaticDma::new(buf, 0x8_0000_0040).unwrap().bus_addr(),
            0x8_0000_0040
        );
    }

    #[test]
    fn reads_back_writes_at_every_alignment() {
        let m = ring_1k!();
        let data: [u8; 37] = core::array::from_fn(|i| i as u8 + 1);
        for off in 0..20 {
            m.zero().unwrap();
            m.write(off, &data).unwrap();
            let mut out = [0u8; 39];
            m.read(off.saturating_sub(1), &mut out).unwrap();
            let start = usize::from(off > 0);
            assert_eq!(&out[start..start + 37], &data, "offset {off}");
            if off > 0 {
                assert_eq!(out[0], 0, "byte before offset {off} untouched");
            }
            assert_eq!(out[start + 37], 0, "byte after offset {off} untouched");
            assert_eq!(m.load_u8(off + 36), Ok(37));
        }
    }

    #[test]
    fn refuses_out_of_range_before_touching_memory() {
        let m = ring_1k!();
        let mut out = [7u8; 8];
        assert!(m.read(1020, &mut out).is_err());
        assert_eq!(out, [7u8; 8]);
        assert!(m.read(usize::MAX, &mut out).is_err());
        assert!(m.load_u8(1024).is_err());
        assert!(m.write(1017, &[1; 8]).is_err());
        assert_eq!(m.load_u8(1023), Ok(0));
        let mut e = [NqEntry::default(); 2];
        assert!(m.read_published_entries(1024 - 16, &mut e).is_err());
        assert!(m.read_published_entries(usize::MAX - 8, &mut e).is_err());
        assert!(m.scan_flag_run(3, 16, 65, PHASE_MASK, true).is_err());
        assert_eq!(m.scan_flag_run(3, 16, 0, PHASE_MASK, true), Ok(0));
        assert!(m.copy_in(&[0u8; 1025]).is_err());
    }

    /// A producer thread (payload, Release fence, phase byte last) and a
    /// consumer thread (phase scan, Acquire fence, entry copy) on one buffer:
    /// every access is a same-size atomic, so Miri finds no data race.
    #[test]
    fn a_producer_and_a_consumer_thread_do_not_race() {
        use core::sync::atomic::{
            fence,
            Ordering::{Acquire, Release},
        };
        let m = ring_1k!();
        let m = &m;
        std::thread::scope(|s| {
            s.spawn(move || {
                for i in 0..8u8 {
                    let off = usize::from(i) * 16;
                    m.write(off, &[i; 3]).unwrap();
                    m.write(off + 4, &[i; 12]).unwrap();
                    fence(Release);
                    m.write(off + PHASE_BYTE, &[PHASE_MASK]).unwrap();
                }
            });
            let mut seen = 0usize;
            let mut out = [NqEntry::default(); 8];
            while seen < 8 {
                let off = seen * 16 + PHASE_BYTE;
                let n = m
                    .scan_flag_run(off, 16, 8 - seen, PHASE_MASK, true)
                    .unwrap();
                if n == 0 {
                    std::thread::yield_now();
                    continue;
                }
                fence(Acquire);
                m.read_published_entries(seen * 16, &mut out[..n]).unwrap();
                for (k, e) in out[..n].iter().enumerate() {
                    assert_eq!(e.bytes()[0], (seen + k) as u8);
                    assert_eq!(e.bytes()[15], (seen + k) as u8);
                    assert!(e.phase());
                }
                seen += n;
            }
        });
    }

    #[test]
    fn scan_and_entry_copy_follow_the_phase_bits() {
        let m = ring_1k!();
        // Entries 0..5 carry phase 1 and their index in byte 0; entry 5 is old.
        for i in 0..5u8 {
            let mut e = [0u8; 16];
            e[0] = i;
            e[15] = 0xA0 | i;
            e[PHASE_BYTE] = PHASE_MASK;
            m.write(i as usize * 16, &e).unwrap();
        }
        assert_eq!(m.scan_flag_run(PHASE_BYTE, 16, 64, PHASE_MASK, true), Ok(5));
        assert_eq!(
            m.scan_flag_run(5 * 16 + PHASE_BYTE, 16, 59, PHASE_MASK, false),
            Ok(59)
        );
        let mut out = [NqEntry::default(); 5];
        m.read_published_entries(0, &mut out).unwrap();
        for (i, e) in out.iter().enumerate() {
            assert_eq!(e.bytes()[0], i as u8);
            assert_eq!(e.bytes()[15], 0xA0 | i as u8);
            assert!(e.phase());
        }
        // The same bytes through the plain read and the published read.
        let mut a = [0u8; 16];
        let mut b = [0u8; 16];
        m.read(32, &mut a).unwrap();
        m.read_published(32, &mut b).unwrap();
        assert_eq!(a, *out[2].bytes());
        assert_eq!(b, a);
        m.zero().unwrap();
        assert_eq!(
            m.scan_flag_run(PHASE_BYTE, 16, 64, PHASE_MASK, false),
            Ok(64)
        );
    }
}
