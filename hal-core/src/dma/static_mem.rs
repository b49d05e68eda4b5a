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
//! copy ([`DmaMemory::read_published_entries`]) is four word loads per entry,
//! never a byte loop, and the phase walk ([`DmaMemory::scan_flag_run`]) checks
//! the whole run's bounds once, then loads one word per entry. Ordering is the
//! callers' business: the drain's Acquire fence after the phase scan [FACTS §11].
//! (khal-std's `DmaBuf` does the same with 8-byte words.)
//!
//! This module and `mmio::volatile` are the only places of khal-core that use
//! `unsafe`; every block carries a `// SAFETY:` comment.

// The second place in khal-core where `unsafe` is allowed (see the module docs).
#![allow(unsafe_code)]

use core::cell::UnsafeCell;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicBool, AtomicU32, Ordering, Ordering::Relaxed};

use super::{check_flag_run, flag_value, DmaMemory};
use crate::error::{Error, Result};
use crate::notific::entry::{NqEntry, NQ_ENTRY_BYTES};

// `read_published_entries` copies a run of entries as bytes: an `NqEntry` must
// be exactly its 16 bytes, with no alignment of its own [004 §1 GOTCHA].
static_assertions::assert_eq_size!(NqEntry, [u8; NQ_ENTRY_BYTES]);
static_assertions::const_assert_eq!(core::mem::align_of::<NqEntry>(), 1);

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
#[derive(Debug)]
pub struct StaticDma {
    /// Byte 0 of the buffer (from the `&'static mut` the constructor consumed).
    ptr: NonNull<u8>,
    len: usize,
    bus_addr: u64,
}

// SAFETY: a `StaticDma` owns its `'static` buffer exclusively (it consumed
// the only `&'static mut` to it), like a `&'static mut [u8]`, which is `Send`.
unsafe impl Send for StaticDma {}
// SAFETY: every access through `&StaticDma` is a bounds-checked relaxed atomic
// access of an aligned 4-byte word of memory the value owns for the whole
// program, all of the same size, so accesses from several contexts never race
// (see the module docs, "Access"); the device's writes are outside Rust.
unsafe impl Sync for StaticDma {}

impl StaticDma {
    /// DMA memory over `buf`, which the device reaches at `bus_addr` (the
    /// address of byte 0 on the device's side, see the module docs).
    ///
    /// Refused with [`Error::InvalidArgument`]: a `bus_addr` that is not a
    /// multiple of [`STATIC_DMA_ALIGN`] (a translation must keep the buffer's
    /// alignment, or entries would straddle on the device's side), or a range
    /// `bus_addr + N` that overflows.
    pub fn new<const N: usize>(buf: &'static mut DmaBuffer<N>, bus_addr: u64) -> Result<Self> {
        let () = DmaBuffer::<N>::WHOLE_WORDS;
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
            ptr: NonNull::from(&mut buf.0).cast::<u8>(),
            len: N,
            bus_addr,
        })
    }

    /// DMA memory over `buf` for a device that sees the core's addresses
    /// (bus address = the buffer's own address).
    pub fn identity<const N: usize>(buf: &'static mut DmaBuffer<N>) -> Self {
        let () = DmaBuffer::<N>::WHOLE_WORDS;
        let ptr = NonNull::from(&mut buf.0).cast::<u8>();
        StaticDma {
            ptr,
            len: N,
            bus_addr: ptr.as_ptr() as usize as u64,
        }
    }

    fn check(&self, offset: usize, n: usize) -> Result<()> {
        match offset.checked_add(n) {
            Some(end) if end <= self.len => Ok(()),
            _ => Err(Error::OutOfRange {
                what: "static dma offset",
                value: offset as u64,
                limit: self.len as u64,
            }),
        }
    }

    /// A pointer to the word holding byte `offset`, derived from the buffer's
    /// pointer; only dereferenced, atomically, for `offset < len`.
    #[inline(always)]
    fn word_ptr(&self, offset: usize) -> *mut u32 {
        // `wrapping_add` keeps this safe; callers check `offset < len`.
        self.ptr
            .as_ptr()
            .wrapping_add(offset & !(WORD - 1))
            .cast::<u32>()
    }

    /// The word holding byte `offset`.
    ///
    /// # Safety
    /// `offset < len`.
    #[inline(always)]
    unsafe fn word(&self, offset: usize) -> &AtomicU32 {
        // SAFETY: `offset < len` (the caller's contract) and `len` is a whole
        // number of words (`DmaBuffer::WHOLE_WORDS`), so the word at
        // `offset & !3` is inside the buffer; the buffer is 64-byte aligned,
        // so the word is 4-byte aligned; it lives for the whole program, and
        // every access to it is a 4-byte atomic (module docs, "Access").
        unsafe { AtomicU32::from_ptr(self.word_ptr(offset)) }
    }

    /// Copy `out.len()` bytes from `offset` (the caller checked
    /// `offset + out.len() <= len`): one relaxed load per word touched.
    #[inline(always)]
    fn copy_out(&self, offset: usize, out: &mut [u8]) {
        let mut off = offset;
        // A partial first word.
        let k = off % WORD;
        let head = if k == 0 { 0 } else { (WORD - k).min(out.len()) };
        let (first, rest) = out.split_at_mut(head);
        if !first.is_empty() {
            // SAFETY: `off` is the first byte asked, below `len` (checked by the caller).
            let w = unsafe { self.word(off) }.load(Relaxed).to_ne_bytes();
            if let Some(src) = w.get(k..k + first.len()) {
                first.copy_from_slice(src);
            }
            off += first.len();
        }
        // Whole words.
        let mut words = rest.chunks_exact_mut(WORD);
        for o in &mut words {
            // SAFETY: `off` is a byte asked, below `len` (checked by the caller).
            o.copy_from_slice(&unsafe { self.word(off) }.load(Relaxed).to_ne_bytes());
            off += WORD;
        }
        // A partial last word.
        let tail = words.into_remainder();
        if !tail.is_empty() {
            // SAFETY: `off` is a byte asked, below `len` (checked by the caller).
            let w = unsafe { self.word(off) }.load(Relaxed).to_ne_bytes();
            if let Some(src) = w.get(..tail.len()) {
                tail.copy_from_slice(src);
            }
        }
    }

    /// Write `data` into the word holding `offset`, from byte `offset % 4` on
    /// (it must fit in the word), keeping the word's other bytes. The caller
    /// checked `offset + data.len() <= len`.
    #[inline(always)]
    fn merge(&self, offset: usize, data: &[u8]) {
        let k = offset % WORD;
        // SAFETY: `offset` is a byte to write, below `len` (checked by `write`).
        let word = unsafe { self.word(offset) };
        if let Ok(w) = <[u8; WORD]>::try_from(data) {
            // A whole word (`k` is then 0): one store.
            word.store(u32::from_ne_bytes(w), Relaxed);
            return;
        }
        // A compare-exchange, so that a concurrent write of the word's other
        // bytes is not lost; the closure never refuses, so the result is `Ok`.
        let _ = word.fetch_update(Relaxed, Relaxed, |old| {
            let mut w = old.to_ne_bytes();
            if let Some(dst) = w.get_mut(k..k + data.len()) {
                dst.copy_from_slice(data);
            }
            Some(u32::from_ne_bytes(w))
        });
    }
}

/// The shift of byte `k` (0..4) of a word loaded with `from_ne_bytes`.
#[inline(always)]
const fn byte_shift(k: usize) -> u32 {
    if cfg!(target_endian = "little") {
        8 * k as u32
    } else {
        8 * (WORD - 1 - k) as u32
    }
}

impl DmaMemory for StaticDma {
    #[inline]
    fn bus_addr(&self) -> u64 {
        self.bus_addr
    }

    #[inline]
    fn len(&self) -> usize {
        self.len
    }

    #[inline]
    fn load_u8(&self, offset: usize) -> Result<u8> {
        self.check(offset, 1)?;
        // SAFETY: `offset < len`, checked above.
        let w = unsafe { self.word(offset) }.load(Relaxed);
        Ok((w >> byte_shift(offset % WORD)) as u8)
    }

    #[inline]
    fn read(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        self.check(offset, out.len())?;
        self.copy_out(offset, out);
        Ok(())
    }

    /// The same word loads as [`DmaMemory::read`]: a plain `memcpy` would race
    /// another context that (against the contract) rewrites published bytes.
    #[inline]
    fn read_published(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        self.read(offset, out)
    }

    /// The whole run checked once; entries that start on a word (a ring's
    /// base is 64-byte aligned) are four word loads each, walking a word pointer.
    #[inline]
    fn read_published_entries(&self, offset: usize, out: &mut [NqEntry]) -> Result<()> {
        let n = out
            .len()
            .checked_mul(NQ_ENTRY_BYTES)
            .ok_or(Error::OutOfRange {
                what: "static dma entry run",
                value: offset as u64,
                limit: self.len as u64,
            })?;
        self.check(offset, n)?;
        if offset.is_multiple_of(WORD) && !out.is_empty() {
            let mut p = self.word_ptr(offset);
            for e in out.iter_mut() {
                let mut raw = [0u8; NQ_ENTRY_BYTES];
                for chunk in raw.chunks_exact_mut(WORD) {
                    // SAFETY: `p` is a word of this entry, inside `len` (the
                    // whole run was checked above), aligned, accessed
                    // atomically only.
                    let w = unsafe { AtomicU32::from_ptr(p) }.load(Relaxed);
                    chunk.copy_from_slice(&w.to_ne_bytes());
                    p = p.wrapping_add(1);
                }
                *e = NqEntry::from_bytes(raw);
            }
            return Ok(());
        }
        for (k, e) in out.iter_mut().enumerate() {
            // In bounds: the whole run was checked above.
            self.copy_out(offset + k * NQ_ENTRY_BYTES, e.bytes_mut());
        }
        Ok(())
    }

    #[inline]
    fn scan_flag_run(
        &self,
        offset: usize,
        stride: usize,
        max: usize,
        mask: u8,
        want: bool,
    ) -> Result<usize> {
        // The whole run's bounds once, then one word load per flag.
        check_flag_run(offset, stride, max, self.len)?;
        let expect = flag_value(mask, want);
        if stride.is_multiple_of(WORD) {
            // Every flag sits at the same byte of its word (the NQ ring:
            // stride 16): test it in place, walking a word pointer.
            let sh = byte_shift(offset % WORD);
            let (m, e) = (u32::from(mask) << sh, u32::from(expect) << sh);
            let step = stride / WORD;
            let mut p = self.word_ptr(offset);
            for n in 0..max {
                // SAFETY: `p` is the word of flag `n`, inside `len` (the whole
                // run was checked above), aligned, accessed atomically only.
                if unsafe { AtomicU32::from_ptr(p) }.load(Relaxed) & m != e {
                    return Ok(n);
                }
                p = p.wrapping_add(step);
            }
            return Ok(max);
        }
        let mut off = offset;
        for n in 0..max {
            // SAFETY: `off` is a flag of the run, inside `len` (checked above).
            let b = (unsafe { self.word(off) }.load(Relaxed) >> byte_shift(off % WORD)) as u8;
            if b & mask != expect {
                return Ok(n);
            }
            off += stride; // in bounds: the whole run was checked above
        }
        Ok(max)
    }

    #[inline]
    fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
        self.check(offset, data.len())?;
        let mut off = offset;
        let mut rest = data;
        while !rest.is_empty() {
            let n = (WORD - off % WORD).min(rest.len());
            let (now, later) = rest.split_at(n);
            self.merge(off, now);
            off += n;
            rest = later;
        }
        Ok(())
    }

    fn zero(&self) -> Result<()> {
        let mut p = self.word_ptr(0);
        for _ in 0..self.len / WORD {
            // SAFETY: `p` walks the buffer's words (`len` is whole words),
            // aligned, accessed atomically only.
            unsafe { AtomicU32::from_ptr(p) }.store(0, Relaxed);
            p = p.wrapping_add(1);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notific::entry::{PHASE_BYTE, PHASE_MASK};

    /// A fresh 1 KiB ring: every expansion is its own call site (its own static).
    macro_rules! ring_1k {
        () => {
            StaticDma::identity(crate::static_dma!(1024).expect("first take"))
        };
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
