//! Reference backends for the NQ drain's cost (issue 14 item 1): what
//! `DmaBuf` was before it became sound under threads.
//!
//! [`VolatileRing`] is khal-std's `DmaBuf` of commit `038bdf2`: the phase walk
//! is one volatile byte load per entry, the published run is copied with one
//! plain `memcpy` (vectorised), and the drain's copy is the trait's default
//! (scan, one Acquire fence, bulk copy, copied phases checked). It is NOT
//! sound when another thread writes the buffer (a plain copy racing a write
//! is a data race; Miri reports it): it exists only to measure what the
//! sound atomic-word copy costs against it, in the same run.

use khal_core::dma::DmaMemory;
use khal_core::{Error, Result};

/// A 64-byte-aligned heap ring accessed as the pre-issue-14 `DmaBuf` did.
pub struct VolatileRing {
    buf: Box<[[u64; 8]]>,
}

impl VolatileRing {
    /// A zeroed ring of `bytes` (a multiple of 64).
    pub fn new(bytes: usize) -> Self {
        VolatileRing {
            buf: vec![[0u64; 8]; bytes / 64].into_boxed_slice(),
        }
    }

    pub fn base(&self) -> *mut u8 {
        self.buf.as_ptr().cast::<u8>().cast_mut()
    }

    pub fn check(&self, offset: usize, n: usize) -> Result<()> {
        match offset.checked_add(n) {
            Some(end) if end <= self.len() => Ok(()),
            _ => Err(Error::out_of_range(
                "ring offset",
                offset as u64,
                self.len() as u64,
            )),
        }
    }

    /// The first byte (for the memcpy reference).
    pub fn as_ptr(&self) -> *const u8 {
        self.base()
    }
}

impl DmaMemory for VolatileRing {
    fn bus_addr(&self) -> u64 {
        self.base() as u64
    }

    #[inline]
    fn len(&self) -> usize {
        self.buf.len() * 64
    }

    #[inline]
    fn load_u8(&self, offset: usize) -> Result<u8> {
        self.check(offset, 1)?;
        // SAFETY: `offset < len`, inside the live boxed slice; the ring is only
        // reached through raw-pointer accesses (never a reference to it while
        // the bench runs, single-threaded).
        Ok(unsafe { self.base().add(offset).read_volatile() })
    }

    #[inline]
    fn read(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        self.check(offset, out.len())?;
        for (i, o) in out.iter_mut().enumerate() {
            // SAFETY: `offset + i < len` (checked above).
            *o = unsafe { self.base().add(offset + i).read_volatile() };
        }
        Ok(())
    }

    fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
        self.check(offset, data.len())?;
        for (i, &b) in data.iter().enumerate() {
            // SAFETY: in bounds (checked); the buffer is owned and writable
            // through the raw pointer.
            unsafe { self.base().add(offset + i).write_volatile(b) };
        }
        Ok(())
    }

    fn zero(&self) -> Result<()> {
        for off in (0..self.len()).step_by(64) {
            self.write(off, &[0u8; 64])?;
        }
        Ok(())
    }
}

/// The sound `DmaBuf`'s one-pass drain copy with **plain** loads instead of
/// relaxed atomics (same loop: phase word, Acquire fence, second word, per
/// entry). Unsound under threads like [`VolatileRing`]; it shows what the
/// atomics themselves cost in instructions (a relaxed aligned 8-byte load is
/// a plain `mov` on x86-64, so: nothing).
pub struct PlainRing(pub VolatileRing);

impl DmaMemory for PlainRing {
    fn bus_addr(&self) -> u64 {
        self.0.bus_addr()
    }
    #[inline]
    fn len(&self) -> usize {
        self.0.len()
    }
    #[inline]
    fn load_u8(&self, offset: usize) -> Result<u8> {
        self.0.load_u8(offset)
    }
    fn read(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        self.0.read(offset, out)
    }
    fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
        self.0.write(offset, data)
    }
    fn zero(&self) -> Result<()> {
        self.0.zero()
    }
}
