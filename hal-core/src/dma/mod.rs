//! DMA-visible memory: what the device writes (NQ rings) and what DMA reads.
//!
//! hal-core does not allocate. Memory shared with the device is reached through
//! [`DmaMemory`], implemented by `khal-std`'s allocator-backed buffers and by
//! firmware's static buffers. Every access is bounds-checked and volatile:
//! the device may write the memory at any time.

use crate::error::Result;

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

    /// Volatile copy of `data` to `offset`.
    fn write(&self, offset: usize, data: &[u8]) -> Result<()>;

    /// Zero the whole region.
    fn zero(&self) -> Result<()>;
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
    fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
        (**self).write(offset, data)
    }
    #[inline(always)]
    fn zero(&self) -> Result<()> {
        (**self).zero()
    }
}
