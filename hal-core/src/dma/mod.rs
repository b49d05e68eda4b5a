//! DMA: memory shared with the device, its allocation, and one-shot descriptor rings.
//!
//! hal-core does not allocate. Memory shared with the device is reached through
//! [`DmaMemory`], implemented by `khal-std`'s allocator-backed buffers and by
//! firmware's static buffers ([`StaticDma`]). Every access is bounds-checked;
//! the device may write the memory at any time, so the backends reach it
//! through relaxed atomic words ([`DmaMemory::words`]) or volatile accesses.
//!
//! The layer the DVE loader [000 §4] needs, in the notes' order
//! (`dmem_alloc` → `dmem_buf_copyin` → `vring_add_desc_transfer` →
//! `vring_add_event_accel` → `vring_dump_to_pring`):
//! - [`DmaAllocator`]: allocate a buffer in device DRAM or host memory
//!   ([`MemLocation`]); copy bytes in with [`DmaMemory::write`]; its bus address
//!   is [`DmaMemory::bus_addr`];
//! - [`ring::OneShotRing`]: a fixed-capacity list of [`ring::Descriptor`]s,
//!   transfers `src → dst, len`, closed by one completion descriptor;
//! - [`queue::DmaQueue`]: hand a ring to an engine and report its status;
//!   [`queue::run_one_shot`] submits and waits through
//!   [`crate::wait::poll_until`] within a [`crate::wait::Budget`].
//!
//! The vendor's ring descriptor encoding, queue registers and event addresses
//! are NOT TRACED; they belong to each [`queue::DmaQueue`] backend (khal-std's
//! device model documents its own).

pub(crate) mod queue;
pub(crate) mod ring;
pub(crate) mod static_mem;
mod words;

pub use queue::{run_one_shot, Abort, DmaQueue, QueueInfo, RingStatus, RunError};
pub use ring::{Descriptor, OneShotRing};
pub use static_mem::{DmaBuffer, StaticDma, StaticDmaCell};

use core::sync::atomic::AtomicU32;

use crate::error::{Error, Result};

/// Where a DMA buffer lives: the notes' `dmem_alloc` memory kinds [000 §4].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum MemLocation {
    /// Device DRAM (HBM), the notes' `TONGA_DRAM`: where the DVE loader stages
    /// its tables [000 §4].
    DeviceDram,
    /// Host memory the device reaches over PCIe (NQ rings, completion records).
    Host,
}

/// Allocates memory the device can DMA from or to.
///
/// Implementations hand out zeroed buffers aligned to at least `align`; the
/// buffer is freed when dropped (or when its allocator is reset, for arena
/// allocators; each implementation documents which).
pub trait DmaAllocator {
    /// The buffer type handed out.
    type Buffer: DmaMemory;

    /// A zeroed buffer of `len` bytes at `location`, aligned to `align` (a power
    /// of two). `len == 0` or a bad alignment is [`crate::Error::InvalidArgument`];
    /// exhaustion is [`crate::Error::OutOfMemory`]; a location the backend cannot
    /// provide is [`crate::Error::Unsupported`] or [`crate::Error::NotTraced`].
    fn alloc(&mut self, location: MemLocation, len: usize, align: usize) -> Result<Self::Buffer>;
}

/// The refusal of a provided byte method on a backend without words.
const NO_WORDS: &str = "dma memory without words (the backend must implement its byte methods)";

/// A region of memory both the host and the device see: its bus address, its
/// length, byte reads and writes, zeroing, and (for a backend made of them)
/// its aligned 32-bit atomic words.
///
/// A backend over atomic words implements [`DmaMemory::bus_addr`],
/// [`DmaMemory::len`] and [`DmaMemory::words`]; the byte methods are then
/// provided. A backend without words (a volatile window, a test double)
/// implements the byte methods and leaves `words` at `None`: consumers then
/// go through its byte reads, with the same results.
pub trait DmaMemory {
    /// The address the device uses for byte 0.
    fn bus_addr(&self) -> u64;

    /// Size in bytes.
    fn len(&self) -> usize;

    /// `true` when the region is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The region as aligned 32-bit atomic words, word `k` holding bytes
    /// `4k..4k + 4` in memory order: at least `len().div_ceil(4)` words
    /// (bytes past `len` in the last one are the backend's padding), or
    /// `None` when the backend is not made of words (the default).
    ///
    /// Every access through them is a relaxed atomic of one word, so none
    /// races the device's (or a device-model thread's) writes; the NQ
    /// drain reads its entries through them, its Acquire fence after each
    /// entry's phase load [FACTS §11].
    fn words(&self) -> Option<&[AtomicU32]> {
        None
    }

    /// Copy `out.len()` bytes starting at `offset`; bytes outside the region
    /// are refused ([`Error::OutOfRange`]) before any load. Provided over
    /// [`DmaMemory::words`] (one load per word touched); a backend without
    /// words must implement it ([`Error::InvalidArgument`] otherwise).
    fn read(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        let words = self.words().ok_or(Error::InvalidArgument(NO_WORDS))?;
        words::read(words, self.len(), offset, out)
    }

    /// Copy `data` to `offset`, refused as [`DmaMemory::read`] before any
    /// store. Provided over [`DmaMemory::words`] (whole words stored, the
    /// bytes of a partial word merged into it).
    fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
        let words = self.words().ok_or(Error::InvalidArgument(NO_WORDS))?;
        words::write(words, self.len(), offset, data)
    }

    /// Zero the whole region. Provided over [`DmaMemory::words`].
    fn zero(&self) -> Result<()> {
        let words = self.words().ok_or(Error::InvalidArgument(NO_WORDS))?;
        words::zero(words);
        Ok(())
    }

    /// The byte at `offset` (e.g. an NQ entry's phase byte): a one-byte
    /// [`DmaMemory::read`].
    fn load_u8(&self, offset: usize) -> Result<u8> {
        let mut b = [0u8];
        self.read(offset, &mut b)?;
        Ok(b[0])
    }
}

/// A shared reference is the memory it points to: every method forwarded,
/// so a ring over `&T` reads as one over `T` does.
impl<T: DmaMemory + ?Sized> DmaMemory for &T {
    fn bus_addr(&self) -> u64 {
        (**self).bus_addr()
    }
    fn len(&self) -> usize {
        (**self).len()
    }
    fn is_empty(&self) -> bool {
        (**self).is_empty()
    }
    fn words(&self) -> Option<&[AtomicU32]> {
        (**self).words()
    }
    fn read(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        (**self).read(offset, out)
    }
    fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
        (**self).write(offset, data)
    }
    fn zero(&self) -> Result<()> {
        (**self).zero()
    }
    fn load_u8(&self, offset: usize) -> Result<u8> {
        (**self).load_u8(offset)
    }
}
