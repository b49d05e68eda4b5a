//! `DmaBuf`: aligned, zeroed, allocator-backed memory shared with the device.
//!
//! The bus address is the identity (the buffer's own address) for the device
//! model; a real host translates it (see the DMA work for `/proc/self/pagemap`).
//! Every access is bounds-checked and volatile, because the device (or the
//! device model) may write the memory at any time.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::ptr::NonNull;

use khal_core::dma::DmaMemory;
use khal_core::{Error, Result};

/// A heap buffer the device can see. Freed on drop.
#[derive(Debug)]
pub struct DmaBuf {
    ptr: NonNull<u8>,
    layout: Layout,
    bus_addr: u64,
}

// SAFETY: `DmaBuf` owns its allocation exclusively (like a `Box<[u8]>`); all
// accesses through `&self` are volatile single-byte or byte-copy operations on
// memory that is valid for the buffer's whole life, so sharing it across
// threads cannot cause a data race on Rust-visible state beyond what the
// device itself does to DMA memory.
unsafe impl Send for DmaBuf {}
// SAFETY: see `Send` above; concurrent volatile accesses are the DMA contract.
unsafe impl Sync for DmaBuf {}

impl DmaBuf {
    /// A zeroed buffer of `len` bytes aligned to `align` (a power of two).
    /// Bus address = the buffer's own address (identity, for the device model).
    pub fn new(len: usize, align: usize) -> Result<Self> {
        let layout = Layout::from_size_align(len.max(1), align.max(1))
            .map_err(|_| Error::InvalidArgument("dma buffer size/alignment"))?;
        // SAFETY: `layout` has a non-zero size (`len.max(1)`).
        let raw = unsafe { alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).ok_or(Error::OutOfMemory)?;
        Ok(DmaBuf {
            ptr,
            layout,
            bus_addr: raw as u64,
        })
    }

    /// Override the bus address (e.g. after a pagemap translation).
    pub fn with_bus_addr(mut self, bus_addr: u64) -> Self {
        self.bus_addr = bus_addr;
        self
    }

    /// The alignment the buffer was allocated with.
    pub fn align(&self) -> usize {
        self.layout.align()
    }

    fn check(&self, offset: usize, n: usize) -> Result<()> {
        match offset.checked_add(n) {
            Some(end) if end <= self.len() => Ok(()),
            _ => Err(Error::OutOfRange {
                what: "dma buffer offset",
                value: offset as u64,
                limit: self.len() as u64,
            }),
        }
    }

    /// The raw start pointer (for the bench harness's reference loops).
    pub fn as_ptr(&self) -> *const u8 {
        self.ptr.as_ptr()
    }
}

impl DmaMemory for DmaBuf {
    #[inline]
    fn bus_addr(&self) -> u64 {
        self.bus_addr
    }

    #[inline]
    fn len(&self) -> usize {
        self.layout.size()
    }

    #[inline]
    fn load_u8(&self, offset: usize) -> Result<u8> {
        self.check(offset, 1)?;
        // SAFETY: `offset < len` was checked, the allocation is live for `self`'s
        // lifetime, and a byte read has no alignment requirement.
        Ok(unsafe { self.ptr.as_ptr().add(offset).read_volatile() })
    }

    #[inline]
    fn read(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        self.check(offset, out.len())?;
        for (i, o) in out.iter_mut().enumerate() {
            // SAFETY: `offset + i < offset + out.len() <= len` (checked above).
            *o = unsafe { self.ptr.as_ptr().add(offset + i).read_volatile() };
        }
        Ok(())
    }

    #[inline]
    fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
        self.check(offset, data.len())?;
        for (i, &b) in data.iter().enumerate() {
            // SAFETY: in bounds as in `read`; the memory is writable (we own it)
            // and volatile writes do not create references.
            unsafe { self.ptr.as_ptr().add(offset + i).write_volatile(b) };
        }
        Ok(())
    }

    fn zero(&self) -> Result<()> {
        for i in 0..self.len() {
            // SAFETY: `i < len`.
            unsafe { self.ptr.as_ptr().add(i).write_volatile(0) };
        }
        Ok(())
    }
}

impl Drop for DmaBuf {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from `alloc_zeroed(self.layout)` and is freed once.
        unsafe { dealloc(self.ptr.as_ptr(), self.layout) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
