//! `Counting<M>`: counts every read and write that passes through.

use std::sync::atomic::{AtomicU64, Ordering};

use khal_core::{DeviceAddr, Mmio, Result};

/// Wraps an [`Mmio`] and counts accesses (a burst counts one write per word).
#[derive(Debug, Default)]
pub struct Counting<M> {
    inner: M,
    reads: AtomicU64,
    writes: AtomicU64,
}

impl<M> Counting<M> {
    /// Wrap `inner` with zeroed counters.
    pub fn new(inner: M) -> Self {
        Counting {
            inner,
            reads: AtomicU64::new(0),
            writes: AtomicU64::new(0),
        }
    }

    /// Reads so far.
    pub fn reads(&self) -> u64 {
        self.reads.load(Ordering::Relaxed)
    }

    /// Writes so far.
    pub fn writes(&self) -> u64 {
        self.writes.load(Ordering::Relaxed)
    }

    /// Zero both counters.
    pub fn reset(&self) {
        self.reads.store(0, Ordering::Relaxed);
        self.writes.store(0, Ordering::Relaxed);
    }

    /// The wrapped backend.
    pub fn inner(&self) -> &M {
        &self.inner
    }
}

impl<M: Mmio> Mmio for Counting<M> {
    fn read32(&self, addr: DeviceAddr) -> Result<u32> {
        self.reads.fetch_add(1, Ordering::Relaxed);
        self.inner.read32(addr)
    }

    fn write32(&self, addr: DeviceAddr, value: u32) -> Result<()> {
        self.writes.fetch_add(1, Ordering::Relaxed);
        self.inner.write32(addr, value)
    }

    fn write_burst(&self, addr: DeviceAddr, words: &[u32]) -> Result<()> {
        self.writes.fetch_add(words.len() as u64, Ordering::Relaxed);
        self.inner.write_burst(addr, words)
    }
}
