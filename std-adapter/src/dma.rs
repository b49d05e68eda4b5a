//! DMA buffers and allocators on a host: aligned, zeroed, freed on drop.
//!
//! - [`DmaBuf`]: host memory the device can see. Heap-backed ([`DmaBuf::new`])
//!   or a pinned anonymous mapping ([`DmaBuf::new_pinned`], `mlock`ed, optionally
//!   hugepage-backed so that one buffer is physically contiguous).
//! - [`BusAddrProvider`]: how a buffer's bus address is found: [`Identity`] (the
//!   buffer's own address, for the device model) or
//!   [`crate::pagemap::PagemapTranslator`] (a real host, `/proc/self/pagemap`).
//! - [`HostAllocator`]: a [`DmaAllocator`] for a real host: host memory only
//!   (device DRAM is allocated by the kernel driver's `dmem_alloc`, which the
//!   notes do not trace).
//! - [`ModelAllocator`]: a [`DmaAllocator`] for the [`DeviceModel`]: device DRAM
//!   from an arena of the model's memory, host memory as [`DmaBuf`]s attached
//!   to the model (identity bus addresses).
//!
//! Every access is bounds-checked. [`DmaBuf`] is shared with the device (or a
//! device-model thread) that may write it at any time, so every host access
//! is atomic: see [`DmaBuf`] for why that keeps its safe API sound.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;
use std::sync::atomic::AtomicU32;
use std::sync::Arc;

use khal_core::dma::{DmaAllocator, DmaMemory, MemLocation};
use khal_core::{DeviceAddr, Error, Result};
use memmap2::{MmapMut, MmapOptions};

use crate::model::DeviceModel;
use crate::pagemap::PagemapError;

/// Bytes of the one access granularity of a [`DmaBuf`]: its aligned 4-byte words.
const WORD: usize = 4;

/// The least alignment and size granule of every allocation.
const GRANULE: usize = 8;

/// A heap buffer the device can see. Freed on drop.
///
/// For the device model and tests only: on a real host heap memory is never
/// DMA memory (not pinned, not contiguous, no host-window bit in its address,
/// [FACTS §14.4]); there the driver's chunks are (`neuron::NeuronDma`, feature
/// `neuron`).
///
/// Soundness under threads: the buffer is `Sync` and its methods take `&self`,
/// so a device thread may write while a consumer thread reads. Every host
/// access is therefore a **relaxed atomic** access of one of the buffer's
/// aligned 4-byte words ([`AtomicU32`], [`DmaMemory::words`]): a byte load
/// loads its word, a write of part of a word merges into it with a
/// compare-exchange. All accesses have the same size and alignment, so none
/// races (the memory model forbids racing plain accesses and racing atomics
/// of different sizes). Ordering is the callers' business: the NQ drain's
/// Acquire fence after each entry's phase load, the producer's Release before
/// the phase byte [FACTS §11]. A relaxed 4-byte load or store is a plain
/// `mov`/`ldr`. The byte methods are khal-core's, provided over the words
/// (shared with the firmware's `StaticDma`).
/// The allocation is rounded up to whole 8 bytes (at least 8-byte aligned)
/// so that the word of the last byte is inside it.
#[derive(Debug)]
pub struct DmaBuf {
    /// 8-byte aligned, valid for `len.div_ceil(8) * 8` bytes.
    ptr: NonNull<u8>,
    len: usize,
    /// `len.div_ceil(4)`: the words `DmaMemory::words` hands out.
    words: usize,
    align: usize,
    backing: Backing,
    bus_addr: u64,
}

/// What owns a [`DmaBuf`]'s memory.
#[derive(Debug)]
enum Backing {
    /// `alloc_zeroed(layout)`; freed with `dealloc`.
    Heap(Layout),
    /// An anonymous mapping, unmapped (and so unlocked) on drop.
    // Held only for its `Drop` (munmap); all access goes through `ptr`.
    Mapped(#[allow(dead_code)] MmapMut),
}

// SAFETY: `DmaBuf` owns its allocation exclusively (like a `Box<[u8]>`), valid
// for the buffer's whole life; every access through `&self` is an atomic access
// of an aligned 8-byte word of it (see the type's doc), so sharing or sending it
// across threads cannot cause a data race.
unsafe impl Send for DmaBuf {}
// SAFETY: see `Send` above: concurrent accesses are all same-size atomics.
unsafe impl Sync for DmaBuf {}

impl DmaBuf {
    /// A zeroed buffer of `len` bytes aligned to `align` (a power of two).
    /// Bus address = the buffer's own address (identity, for the device model).
    ///
    /// Errors: `len == 0` → [`Error::InvalidArgument`] (as
    /// [`DmaBuf::new_pinned`]: a buffer the device can write nothing into);
    /// an `align` that is not a power of two, or a size that overflows →
    /// [`Error::InvalidArgument`]; the allocation refused → [`Error::OutOfMemory`].
    pub fn new(len: usize, align: usize) -> Result<Self> {
        if len == 0 {
            return Err(Error::InvalidArgument("dma buffer size 0"));
        }
        let bad = Error::InvalidArgument("dma buffer size/alignment");
        let asked = Layout::from_size_align(len, align.max(1)).map_err(|_| bad)?;
        // Whole words, word-aligned: every byte's word is inside the allocation.
        let layout = Layout::from_size_align(
            asked.size().checked_next_multiple_of(GRANULE).ok_or(bad)?,
            asked.align().max(GRANULE),
        )
        .map_err(|_| bad)?;
        // SAFETY: `layout` has a non-zero size (at least one word).
        let raw = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).ok_or(Error::OutOfMemory)?;
        Ok(DmaBuf {
            ptr,
            len: asked.size(),
            words: asked.size().div_ceil(WORD),
            align: layout.align(),
            backing: Backing::Heap(layout),
            bus_addr: raw as u64,
        })
    }

    /// A zeroed, page-aligned buffer of `len` bytes in an anonymous mapping,
    /// populated and locked in RAM (`mlock`), so that its physical pages stay
    /// put while the device uses them: what a real host's DMA needs before a
    /// pagemap translation means anything. `hugepage` asks for 2 MiB pages
    /// (`MAP_HUGETLB`; needs reserved hugepages, `/proc/sys/vm/nr_hugepages`):
    /// a buffer up to 2 MiB is then physically contiguous.
    ///
    /// Errors: `len == 0` → [`Error::InvalidArgument`]; the mapping or the lock
    /// refused (no hugepages reserved, `RLIMIT_MEMLOCK` too low) →
    /// [`Error::OutOfMemory`]. Bus address: identity until
    /// [`DmaBuf::with_bus_addr`].
    pub fn new_pinned(len: usize, hugepage: bool) -> Result<Self> {
        if len == 0 {
            return Err(Error::InvalidArgument("dma buffer size 0"));
        }
        // Whole words (the mapping is page-aligned, so word-aligned).
        let words = len
            .checked_next_multiple_of(GRANULE)
            .ok_or(Error::InvalidArgument("dma buffer size"))?;
        let mut opts = MmapOptions::new();
        opts.len(words).populate();
        if hugepage {
            // 2^21 = 2 MiB pages.
            opts.huge(Some(21));
        }
        let mut map = opts.map_anon().map_err(|_| Error::OutOfMemory)?;
        map.lock().map_err(|_| Error::OutOfMemory)?;
        let ptr = NonNull::new(map.as_mut_ptr()).ok_or(Error::OutOfMemory)?;
        let align = if hugepage { 1 << 21 } else { 4096 };
        Ok(DmaBuf {
            ptr,
            len,
            words: len.div_ceil(WORD),
            align,
            bus_addr: ptr.as_ptr() as u64,
            // Moving the `MmapMut` does not move the mapping: `ptr` stays valid.
            backing: Backing::Mapped(map),
        })
    }

    /// Override the bus address (e.g. after a pagemap translation).
    pub fn with_bus_addr(mut self, bus_addr: u64) -> Self {
        self.bus_addr = bus_addr;
        self
    }

    /// The alignment the buffer was allocated with (at least the one asked,
    /// and at least 8: the buffer is made of aligned words).
    pub fn align(&self) -> usize {
        self.align
    }

    /// The raw start pointer (for the bench harness's reference loops).
    pub fn as_ptr(&self) -> *const u8 {
        self.ptr.as_ptr()
    }
}

impl DmaMemory for DmaBuf {
    fn bus_addr(&self) -> u64 {
        self.bus_addr
    }
    fn len(&self) -> usize {
        self.len
    }
    fn words(&self) -> Option<&[AtomicU32]> {
        // SAFETY: `ptr` is 8-byte aligned and valid for `len.div_ceil(8) * 8`
        // bytes (the allocation is rounded up: `new`, `new_pinned`), so for
        // `words = len.div_ceil(4)` words, initialised (zeroed at allocation) and
        // alive as long as `&self`; `AtomicU32` has the size and alignment of
        // `u32` and no invalid bit patterns. Every host access of the buffer
        // goes through such a shared slice of atomics (interior mutability;
        // no `&`/`&mut` to its plain bytes is ever made), so sharing it
        // between threads is sound; the device's writes are outside Rust.
        Some(unsafe {
            core::slice::from_raw_parts(self.ptr.as_ptr().cast::<AtomicU32>(), self.words)
        })
    }
}

impl Drop for DmaBuf {
    fn drop(&mut self) {
        if let Backing::Heap(layout) = self.backing {
            // SAFETY: `ptr` came from `alloc_zeroed(layout)` and is freed once.
            unsafe { dealloc(self.ptr.as_ptr(), layout) };
        }
        // `Backing::Mapped` unmaps itself when dropped.
    }
}

/// Finds the bus address of host memory.
pub trait BusAddrProvider {
    /// The bus address of the `len` bytes at virtual address `va`; they must be
    /// contiguous on the bus.
    fn bus_addr(&self, va: u64, len: usize) -> std::result::Result<u64, PagemapError>;
}

/// The bus address is the virtual address: the device model, and IOMMU
/// identity mappings.
#[derive(Debug, Default, Clone, Copy)]
pub struct Identity;

impl BusAddrProvider for Identity {
    fn bus_addr(&self, va: u64, _len: usize) -> std::result::Result<u64, PagemapError> {
        Ok(va)
    }
}

/// A [`DmaAllocator`] for a real host: host memory as [`DmaBuf`]s with the
/// bus address from `P`.
///
/// - `pinned = false`: heap buffers (fine with [`Identity`]);
/// - `pinned = true`: [`DmaBuf::new_pinned`] (with `hugepage`), which a
///   pagemap translation needs (the page must stay where it was translated).
///
/// [`MemLocation::DeviceDram`] is [`Error::NotTraced`]: device DRAM comes from
/// the kernel driver's `dmem_alloc(TONGA_DRAM)` [000 §4], whose interface the
/// notes do not trace. A bus address the provider cannot find (pagemap:
/// unprivileged, page not present, not contiguous) fails the allocation with
/// [`Error::OutOfMemory`] (no DMA-able memory could be had);
/// [`HostAllocator::last_translation_error`] keeps the detail.
#[derive(Debug)]
pub struct HostAllocator<P> {
    provider: P,
    pinned: bool,
    hugepage: bool,
    last_error: Option<PagemapError>,
}

impl<P: BusAddrProvider> HostAllocator<P> {
    /// Heap-backed buffers, bus addresses from `provider`.
    pub fn new(provider: P) -> Self {
        HostAllocator {
            provider,
            pinned: false,
            hugepage: false,
            last_error: None,
        }
    }

    /// Pinned (`mlock`ed) buffers, optionally hugepage-backed.
    pub fn pinned(provider: P, hugepage: bool) -> Self {
        HostAllocator {
            provider,
            pinned: true,
            hugepage,
            last_error: None,
        }
    }

    /// Why the last translation failed, if it did.
    pub fn last_translation_error(&self) -> Option<&PagemapError> {
        self.last_error.as_ref()
    }
}

impl<P: BusAddrProvider> DmaAllocator for HostAllocator<P> {
    type Buffer = DmaBuf;

    fn alloc(&mut self, location: MemLocation, len: usize, align: usize) -> Result<DmaBuf> {
        if location == MemLocation::DeviceDram {
            return Err(Error::NotTraced(
                "device DRAM allocation on a real host (the driver's dmem_alloc)",
            ));
        }
        check_request(len, align)?;
        let buf = if self.pinned {
            let b = DmaBuf::new_pinned(len, self.hugepage)?;
            if b.align() < align {
                return Err(Error::InvalidArgument(
                    "alignment above the pinned buffer's page size",
                ));
            }
            b
        } else {
            DmaBuf::new(len, align)?
        };
        match self.provider.bus_addr(buf.as_ptr() as u64, len) {
            Ok(bus) => {
                self.last_error = None;
                Ok(buf.with_bus_addr(bus))
            }
            Err(e) => {
                self.last_error = Some(e);
                Err(Error::OutOfMemory)
            }
        }
    }
}

fn check_request(len: usize, align: usize) -> Result<()> {
    if len == 0 {
        return Err(Error::InvalidArgument("dma buffer size 0"));
    }
    if !align.is_power_of_two() {
        return Err(Error::InvalidArgument("dma alignment not a power of two"));
    }
    Ok(())
}

/// Device DRAM of the [`DeviceModel`]: `len` bytes at bus address `addr`,
/// read and written through the model's memory.
#[derive(Debug, Clone, Copy)]
pub struct ModelDramBuf<'m> {
    model: &'m DeviceModel,
    addr: u64,
    len: usize,
}

impl<'m> ModelDramBuf<'m> {
    /// `len` bytes of the model's device memory at bus address `addr` (also
    /// the view a host reads a device-memory NQ ring through).
    pub fn new(model: &'m DeviceModel, addr: u64, len: usize) -> Self {
        ModelDramBuf { model, addr, len }
    }

    /// The bus address of bytes `[offset, offset + n)`: inside the view, and
    /// (for a view placed at the end of the address space) not past `u64::MAX`.
    fn check(&self, offset: usize, n: usize) -> Result<u64> {
        match offset.checked_add(n) {
            Some(end) if end <= self.len => {}
            _ => {
                return Err(Error::out_of_range(
                    "dma buffer offset",
                    offset as u64,
                    self.len as u64,
                ))
            }
        }
        // The last byte (`n - 1` past the start) must have an address too.
        self.addr
            .checked_add(offset as u64)
            .filter(|a| a.checked_add((n as u64).saturating_sub(1)).is_some())
            .ok_or(Error::out_of_window(self.addr))
    }
}

impl DmaMemory for ModelDramBuf<'_> {
    fn bus_addr(&self) -> u64 {
        self.addr
    }
    fn len(&self) -> usize {
        self.len
    }
    fn load_u8(&self, offset: usize) -> Result<u8> {
        let mut b = [0u8];
        self.model.read_mem(self.check(offset, 1)?, &mut b)?;
        Ok(b[0])
    }
    fn read(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        self.model.read_mem(self.check(offset, out.len())?, out)
    }
    fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
        self.model.write_mem(self.check(offset, data.len())?, data)
    }
    fn zero(&self) -> Result<()> {
        // Checked whole first: nothing is written for a view that wraps.
        let addr = self.check(0, self.len)?;
        self.model.write_mem(addr, &vec![0; self.len])
    }
}

/// A buffer of the [`ModelAllocator`]: device DRAM or attached host memory.
#[derive(Debug, Clone)]
pub enum ModelBuf<'m> {
    /// In the model's device memory.
    Dram(ModelDramBuf<'m>),
    /// Host memory attached to the model (identity bus address).
    Host(Arc<DmaBuf>),
}

impl DmaMemory for ModelBuf<'_> {
    fn bus_addr(&self) -> u64 {
        match self {
            ModelBuf::Dram(b) => b.bus_addr(),
            ModelBuf::Host(b) => b.bus_addr(),
        }
    }
    fn len(&self) -> usize {
        match self {
            ModelBuf::Dram(b) => b.len(),
            ModelBuf::Host(b) => b.len(),
        }
    }
    fn load_u8(&self, offset: usize) -> Result<u8> {
        match self {
            ModelBuf::Dram(b) => b.load_u8(offset),
            ModelBuf::Host(b) => b.load_u8(offset),
        }
    }
    fn read(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        match self {
            ModelBuf::Dram(b) => b.read(offset, out),
            ModelBuf::Host(b) => b.read(offset, out),
        }
    }
    fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
        match self {
            ModelBuf::Dram(b) => b.write(offset, data),
            ModelBuf::Host(b) => b.write(offset, data),
        }
    }
    fn zero(&self) -> Result<()> {
        match self {
            ModelBuf::Dram(b) => b.zero(),
            ModelBuf::Host(b) => b.zero(),
        }
    }
}

/// A [`DmaAllocator`] over a [`DeviceModel`] with identity bus addresses.
///
/// Device DRAM comes from the arena `[base, base + size)` of the model's
/// memory, bump-allocated and zeroed at each allocation (an arena: a buffer's
/// range is not reused while the allocator lives). Host memory is a heap
/// [`DmaBuf`] attached to the model, so the model's DMA engine reaches it by its
/// address; the model keeps it alive while the model lives.
#[derive(Debug)]
pub struct ModelAllocator<'m> {
    model: &'m DeviceModel,
    next: u64,
    end: u64,
    allocations: usize,
}

impl<'m> ModelAllocator<'m> {
    /// A model-only staging arena: 256 MiB at `0x1_0000_0000`, inside HBM
    /// channel 0 on every arch (channel 0 starts at 0 with at least 16 GiB
    /// [FACTS §3.1]) and below every TPB window. The arena placement is the
    /// model's choice, not a traced value.
    pub const DEFAULT_ARENA: (DeviceAddr, u64) = (DeviceAddr(0x1_0000_0000), 0x1000_0000);

    /// An allocator over `model` with the device-DRAM arena `[base, base + size)`.
    pub fn new(model: &'m DeviceModel, base: DeviceAddr, size: u64) -> Result<Self> {
        let end = base
            .get()
            .checked_add(size)
            .ok_or(Error::InvalidArgument("dram arena past the address space"))?;
        Ok(ModelAllocator {
            model,
            next: base.get(),
            end,
            allocations: 0,
        })
    }

    /// An allocator over `model` with [`Self::DEFAULT_ARENA`].
    pub fn with_default_arena(model: &'m DeviceModel) -> Self {
        ModelAllocator {
            model,
            next: Self::DEFAULT_ARENA.0.get(),
            end: Self::DEFAULT_ARENA.0.get() + Self::DEFAULT_ARENA.1,
            allocations: 0,
        }
    }

    /// Buffers handed out so far.
    pub fn allocations(&self) -> usize {
        self.allocations
    }
}

impl<'m> DmaAllocator for ModelAllocator<'m> {
    type Buffer = ModelBuf<'m>;

    fn alloc(&mut self, location: MemLocation, len: usize, align: usize) -> Result<ModelBuf<'m>> {
        check_request(len, align)?;
        let buf = match location {
            MemLocation::DeviceDram => {
                let a = align as u64;
                let start = self
                    .next
                    .checked_add(a - 1)
                    .map(|v| v & !(a - 1))
                    .ok_or(Error::OutOfMemory)?;
                let end = start.checked_add(len as u64).ok_or(Error::OutOfMemory)?;
                if end > self.end {
                    return Err(Error::OutOfMemory);
                }
                let b = ModelDramBuf {
                    model: self.model,
                    addr: start,
                    len,
                };
                b.zero()?;
                self.next = end;
                ModelBuf::Dram(b)
            }
            MemLocation::Host => {
                let b = Arc::new(DmaBuf::new(len, align)?);
                self.model.attach_host(b.clone());
                ModelBuf::Host(b)
            }
        };
        self.allocations += 1;
        Ok(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use khal_core::dma::DmaAllocator;

    /// Two threads on one buffer: `.ci/run` runs these under Miri with many
    /// schedules (`dma::tests::threads`).
    mod threads {
        use super::*;
        use crate::HeapMmio;
        use khal_core::notific::{NotificBlocks, NotificEngine, NqConfig, NqRing};
        use khal_core::notific::{NqEntry, NQ_ENTRY_BYTES};
        /// The phase bit's byte and mask in an entry (bit 7 of byte 3) [004 §3].
        const PHASE_BYTE: usize = 3;
        const PHASE_MASK: u8 = 0x80;
        use khal_core::DeviceAddr;
        use std::sync::atomic::{fence, AtomicUsize, Ordering};

        /// The NQ protocol across two threads [004 §3], [FACTS §11]: a device
        /// thread writes each entry's payload, a Release fence, then the phase
        /// byte, and waits for the consumer's progress before reusing a slot;
        /// the consumer is `NqRing::drain` (phase mode, the take every drain
        /// runs) over the shared buffer. Every entry arrives once, in order,
        /// whole; under Miri any access of the buffer that is not atomic is a
        /// reported data race.
        #[test]
        fn a_device_thread_and_the_nq_drain_share_a_ring_soundly() {
            const SLOTS: usize = 4;
            const POSTS: usize = 10; // wraps twice: phase 1, 0, 1
                                     // A bounded wait (the test must end even if the other side is broken).
            const SPINS: usize = 100_000;
            let base = DeviceAddr(0x3053_5000);
            let regs = HeapMmio::new(base, 0x1000);
            let blocks = NotificBlocks::new();
            let mut block = blocks.take(base).unwrap();
            let mut engine = NotificEngine::init_raw(&regs, Some(&mut block), 10, 0, 0).unwrap();
            let buf = Arc::new(DmaBuf::new(SLOTS * NQ_ENTRY_BYTES, 64).unwrap());
            let cfg = NqConfig::phase((SLOTS * NQ_ENTRY_BYTES) as u32);
            let mut ring = NqRing::host(&*buf, engine.queue(0).unwrap(), cfg).unwrap();
            let taken = Arc::new(AtomicUsize::new(0));
            let phase_of_pass = |seq: usize| (seq / SLOTS).is_multiple_of(2);
            let device = {
                let (buf, taken) = (buf.clone(), taken.clone());
                std::thread::spawn(move || {
                    for seq in 0..POSTS {
                        let mut spins = 0;
                        while seq - taken.load(Ordering::Acquire) >= SLOTS - 1 {
                            spins += 1;
                            assert!(spins < SPINS, "consumer stuck");
                            std::thread::yield_now();
                        }
                        let off = (seq % SLOTS) * NQ_ENTRY_BYTES;
                        let e = [seq as u8; NQ_ENTRY_BYTES];
                        buf.write(off, &e[..PHASE_BYTE]).unwrap();
                        buf.write(off + PHASE_BYTE + 1, &e[PHASE_BYTE + 1..])
                            .unwrap();
                        fence(Ordering::Release);
                        let phase = if phase_of_pass(seq) { PHASE_MASK } else { 0 };
                        buf.write(off + PHASE_BYTE, &[0x11 | phase]).unwrap();
                    }
                })
            };
            let mut got = Vec::new();
            let mut spins = 0;
            let mut out = [NqEntry::default(); SLOTS];
            while got.len() < POSTS {
                let n = ring.drain(&mut out).unwrap();
                if n == 0 {
                    spins += 1;
                    assert!(spins < SPINS, "device stuck");
                    std::thread::yield_now();
                    continue;
                }
                got.extend_from_slice(&out[..n]);
                taken.store(got.len(), Ordering::Release);
            }
            device.join().unwrap();
            for (seq, e) in got.iter().enumerate() {
                let mut want = [seq as u8; NQ_ENTRY_BYTES];
                want[PHASE_BYTE] = 0x11 | if phase_of_pass(seq) { PHASE_MASK } else { 0 };
                assert_eq!(e.bytes(), &want, "entry {seq}");
            }
        }

        /// A hostile device rewriting bytes the host reads at the same time is a
        /// torn value at worst, never undefined behaviour (Miri checks): every
        /// safe method may race every other.
        #[test]
        fn concurrent_writes_and_reads_of_the_same_bytes_are_not_a_data_race() {
            let b = Arc::new(DmaBuf::new(21, 1).unwrap());
            let writer = {
                let b = b.clone();
                std::thread::spawn(move || {
                    for i in 0..8u8 {
                        b.write(1, &[i; 19]).unwrap();
                        b.write(i.into(), &[0xFF]).unwrap();
                    }
                    b.zero().unwrap();
                })
            };
            let mut bytes = [0u8; 21];
            for _ in 0..8 {
                b.read(0, &mut bytes).unwrap();
                b.read(3, &mut bytes[..7]).unwrap();
                b.load_u8(20).unwrap();
            }
            writer.join().unwrap();
            b.read(0, &mut bytes).unwrap();
            assert_eq!(bytes, [0; 21]);
        }
    }

    #[test]
    fn aligned_zeroed_bounds_checked() {
        let b = DmaBuf::new(256, 4096).unwrap();
        assert_eq!(b.as_ptr() as usize % 4096, 0);
        assert_eq!(b.bus_addr(), b.as_ptr() as u64);
        assert_eq!(b.load_u8(255), Ok(0));
        assert!(b.load_u8(256).is_err());
        b.write(250, &[1, 2, 3, 4, 5, 6]).unwrap();
        assert!(b.write(251, &[0; 6]).is_err());
        let mut out = [0u8; 6];
        b.read(250, &mut out).unwrap();
        assert_eq!(out, [1, 2, 3, 4, 5, 6]);
        b.zero().unwrap();
        b.read(250, &mut out).unwrap();
        assert_eq!(out, [0; 6]);
        assert!(DmaBuf::new(16, 3).is_err());
    }

    #[test]
    #[cfg_attr(miri, ignore = "Miri cannot mmap")]
    fn pinned_buffers_are_page_aligned_zeroed_or_refused_typed() {
        assert_eq!(
            DmaBuf::new_pinned(0, false).unwrap_err(),
            Error::InvalidArgument("dma buffer size 0")
        );
        // mlock may be refused by RLIMIT_MEMLOCK; then the error is typed.
        match DmaBuf::new_pinned(8192, false) {
            Ok(b) => {
                assert_eq!(b.as_ptr() as usize % 4096, 0);
                assert_eq!(b.len(), 8192);
                assert_eq!(b.load_u8(8191), Ok(0));
                b.write(4096, &[7]).unwrap();
                assert_eq!(b.load_u8(4096), Ok(7));
                assert!(b.load_u8(8192).is_err());
            }
            Err(e) => assert_eq!(e, Error::OutOfMemory),
        }
        // Without reserved hugepages the mapping is refused, typed.
        match DmaBuf::new_pinned(4096, true) {
            Ok(b) => assert_eq!(b.as_ptr() as usize % (1 << 21), 0),
            Err(e) => assert_eq!(e, Error::OutOfMemory),
        }
    }

    struct Refuse;
    impl BusAddrProvider for Refuse {
        fn bus_addr(&self, va: u64, _: usize) -> std::result::Result<u64, PagemapError> {
            Err(PagemapError::PfnHidden { va })
        }
    }
    struct Offset;
    impl BusAddrProvider for Offset {
        fn bus_addr(&self, va: u64, _: usize) -> std::result::Result<u64, PagemapError> {
            Ok(va + 0x1000_0000_0000)
        }
    }

    #[test]
    fn host_allocator_uses_its_provider_and_refuses_device_dram() {
        let mut a = HostAllocator::new(Identity);
        let b = a.alloc(MemLocation::Host, 100, 64).unwrap();
        assert_eq!(b.bus_addr(), b.as_ptr() as u64);
        assert_eq!(b.as_ptr() as usize % 64, 0);
        assert!(matches!(
            a.alloc(MemLocation::DeviceDram, 100, 64),
            Err(Error::NotTraced(_))
        ));
        assert_eq!(
            a.alloc(MemLocation::Host, 0, 64).unwrap_err(),
            Error::InvalidArgument("dma buffer size 0")
        );
        assert_eq!(
            a.alloc(MemLocation::Host, 8, 3).unwrap_err(),
            Error::InvalidArgument("dma alignment not a power of two")
        );
        let mut o = HostAllocator::new(Offset);
        let b = o.alloc(MemLocation::Host, 8, 8).unwrap();
        assert_eq!(b.bus_addr(), b.as_ptr() as u64 + 0x1000_0000_0000);
        let mut r = HostAllocator::new(Refuse);
        assert_eq!(
            r.alloc(MemLocation::Host, 8, 8).unwrap_err(),
            Error::OutOfMemory
        );
        assert!(matches!(
            r.last_translation_error(),
            Some(PagemapError::PfnHidden { .. })
        ));
    }

    #[test]
    fn a_dram_view_at_the_end_of_the_address_space_is_refused_typed() {
        let m = DeviceModel::new();
        let top = ModelDramBuf::new(&m, u64::MAX - 7, 16);
        let wrap = Err(Error::out_of_window(u64::MAX - 7));
        // The first 8 bytes have addresses; byte 8 would be 2^64.
        top.write(0, &[1; 8]).unwrap();
        assert_eq!(top.load_u8(7), Ok(1));
        assert_eq!(top.load_u8(8), wrap);
        assert_eq!(top.read(4, &mut [0; 8]), wrap.map(|_| ()));
        assert_eq!(top.write(8, &[1]), wrap.map(|_| ()));
        assert_eq!(top.zero(), wrap.map(|_| ()));
        assert_eq!(top.load_u8(7), Ok(1)); // the refused zero wrote nothing
        assert_eq!(top.read(0, &mut []), Ok(()));
        let far = ModelDramBuf::new(&m, u64::MAX, usize::MAX);
        assert_eq!(
            far.load_u8(usize::MAX - 1),
            Err(Error::out_of_window(u64::MAX))
        );
    }

    #[test]
    fn model_allocator_dram_arena_and_attached_host_memory() {
        let m = DeviceModel::new();
        let mut a = ModelAllocator::new(&m, DeviceAddr(0x10_0000), 0x1000).unwrap();
        let b1 = a.alloc(MemLocation::DeviceDram, 10, 64).unwrap();
        let b2 = a.alloc(MemLocation::DeviceDram, 100, 256).unwrap();
        assert_eq!(b1.bus_addr(), 0x10_0000);
        assert_eq!(b2.bus_addr(), 0x10_0100);
        b2.write(0, &[1, 2, 3]).unwrap();
        let mut out = [0u8; 3];
        m.read_mem(0x10_0100, &mut out).unwrap();
        assert_eq!(out, [1, 2, 3]);
        assert_eq!(b2.load_u8(1), Ok(2));
        assert!(b2.write(0, &[0; 101]).is_err());
        assert!(b1.write(8, &[0; 3]).is_err());
        // Exhaustion is typed and allocates nothing.
        assert_eq!(
            a.alloc(MemLocation::DeviceDram, 0x1000, 64).unwrap_err(),
            Error::OutOfMemory
        );
        assert_eq!(a.allocations(), 2);
        // Host memory: attached, reached by the model at its bus address.
        let h = a.alloc(MemLocation::Host, 16, 16).unwrap();
        m.write_mem(h.bus_addr() + 4, &[9]).unwrap();
        assert_eq!(h.load_u8(4), Ok(9));
        assert!(matches!(h, ModelBuf::Host(_)));
        assert!(ModelAllocator::new(&m, DeviceAddr(u64::MAX), 2).is_err());
    }
}
