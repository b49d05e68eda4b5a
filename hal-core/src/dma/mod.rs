//! DMA: memory shared with the device, its allocation, and one-shot descriptor rings.
//!
//! hal-core does not allocate. Memory shared with the device is reached through
//! [`DmaMemory`], implemented by `khal-std`'s allocator-backed buffers and by
//! firmware's static buffers. Every access is bounds-checked and volatile:
//! the device may write the memory at any time.
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

pub mod queue;
pub mod ring;

pub use queue::{run_one_shot, DmaQueue, QueueInfo, RingStatus};
pub use ring::{Descriptor, OneShotRing};

use crate::error::Result;
use crate::notific::entry::{NqEntry, NQ_ENTRY_BYTES};

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

/// A region of memory both the host and the device see.
pub trait DmaMemory {
    /// The address the device uses for byte 0.
    fn bus_addr(&self) -> u64;

    /// Size in bytes.
    fn len(&self) -> usize;

    /// `true` when the region is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// One volatile byte load at `offset` (e.g. an NQ entry's phase byte).
    fn load_u8(&self, offset: usize) -> Result<u8>;

    /// Volatile copy of `out.len()` bytes starting at `offset`.
    fn read(&self, offset: usize, out: &mut [u8]) -> Result<()>;

    /// Count the bytes at `offset`, `offset + stride`, … (at most `max` of
    /// them) whose `mask` bits are all set (`want == true`) or all clear
    /// (`want == false`), stopping at the first that differs. Each byte is one
    /// volatile load, in order.
    ///
    /// This is the NQ phase walk [004 §3]: the default loops over
    /// [`DmaMemory::load_u8`]; a backend may check the whole run's bounds once
    /// and then load without per-byte checks. A run that leaves the region is
    /// refused before any load.
    fn scan_flag_run(
        &self,
        offset: usize,
        stride: usize,
        max: usize,
        mask: u8,
        want: bool,
    ) -> Result<usize> {
        let mut off = offset;
        for n in 0..max {
            if (self.load_u8(off)? & mask == mask) != want {
                return Ok(n);
            }
            off = off.saturating_add(stride);
        }
        Ok(max)
    }

    /// Copy bytes the device has already **published**: the caller observed
    /// their publication (an NQ entry's phase byte, loaded volatile, then an
    /// Acquire fence) and the device does not rewrite them until the consumer
    /// hands them back (the head write) [004 §3], [FACTS §11].
    ///
    /// Those bytes are stable, so a backend may copy them with a plain
    /// `memcpy` instead of volatile loads (which cannot be vectorised): the
    /// NQ drain's bulk copy. The default is [`DmaMemory::read`]; only use
    /// this for bytes whose publication was observed.
    #[inline(always)]
    fn read_published(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        self.read(offset, out)
    }

    /// [`DmaMemory::read_published`] for a run of NQ entries: copy
    /// `out.len()` published 16-byte entries starting at `offset`, in order.
    /// The default copies entry by entry; a backend may copy the run at once
    /// ([`NqEntry`] is `repr(transparent)` over its bytes). The whole run is
    /// bounds-checked before anything is copied.
    fn read_published_entries(&self, offset: usize, out: &mut [NqEntry]) -> Result<()> {
        let bytes = out
            .len()
            .checked_mul(NQ_ENTRY_BYTES)
            .and_then(|b| offset.checked_add(b));
        if bytes.is_none_or(|end| end > self.len()) {
            return Err(crate::Error::OutOfRange {
                what: "dma entry run",
                value: offset as u64,
                limit: self.len() as u64,
            });
        }
        let mut off = offset;
        for e in out {
            self.read_published(off, e.bytes_mut())?;
            off += NQ_ENTRY_BYTES;
        }
        Ok(())
    }

    /// Volatile copy of `data` to `offset`.
    fn write(&self, offset: usize, data: &[u8]) -> Result<()>;

    /// Zero the whole region.
    fn zero(&self) -> Result<()>;

    /// The notes' `dmem_buf_copyin`: copy `data` to the start of the region.
    /// `data` longer than the region is refused before anything is written.
    fn copy_in(&self, data: &[u8]) -> Result<()> {
        if data.len() > self.len() {
            return Err(crate::Error::OutOfRange {
                what: "dma copy-in length",
                value: data.len() as u64,
                limit: self.len() as u64 + 1,
            });
        }
        self.write(0, data)
    }
}

impl<T: DmaMemory + ?Sized> DmaMemory for &T {
    #[inline(always)]
    fn bus_addr(&self) -> u64 {
        (**self).bus_addr()
    }
    #[inline(always)]
    fn len(&self) -> usize {
        (**self).len()
    }
    #[inline(always)]
    fn load_u8(&self, offset: usize) -> Result<u8> {
        (**self).load_u8(offset)
    }
    #[inline(always)]
    fn read(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        (**self).read(offset, out)
    }
    #[inline(always)]
    fn read_published(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        (**self).read_published(offset, out)
    }
    #[inline(always)]
    fn read_published_entries(&self, offset: usize, out: &mut [NqEntry]) -> Result<()> {
        (**self).read_published_entries(offset, out)
    }
    #[inline(always)]
    fn scan_flag_run(
        &self,
        offset: usize,
        stride: usize,
        max: usize,
        mask: u8,
        want: bool,
    ) -> Result<usize> {
        (**self).scan_flag_run(offset, stride, max, mask, want)
    }
    #[inline(always)]
    fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
        (**self).write(offset, data)
    }
    #[inline(always)]
    fn zero(&self) -> Result<()> {
        (**self).zero()
    }
}
