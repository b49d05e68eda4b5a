//! `HeapMmio`: a register window backed by plain memory (atomics, no `unsafe`).
//!
//! Useful where a test needs a bare register file with no behaviour, across
//! threads (it is `Sync`), and under Miri.

use std::sync::atomic::{AtomicU32, Ordering};

use khal_core::{DeviceAddr, Error, Mmio, Result};

/// A zero-initialised register window `[base, base + len)`; accesses outside it,
/// or not 4-byte aligned, are refused with [`Error::OutOfWindow`].
#[derive(Debug)]
pub struct HeapMmio {
    base: u64,
    words: Box<[AtomicU32]>,
}

impl HeapMmio {
    /// A window of `len` bytes (rounded up to dwords) at device address `base`.
    pub fn new(base: DeviceAddr, len: usize) -> Self {
        let words = (0..len.div_ceil(4)).map(|_| AtomicU32::new(0)).collect();
        HeapMmio {
            base: base.get(),
            words,
        }
    }

    /// The window base.
    pub fn base(&self) -> DeviceAddr {
        DeviceAddr(self.base)
    }

    /// The window length in bytes.
    pub fn len(&self) -> usize {
        self.words.len() * 4
    }

    /// `true` for a zero-length window.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    fn slot(&self, addr: DeviceAddr) -> Result<&AtomicU32> {
        let off = addr
            .get()
            .checked_sub(self.base)
            .ok_or(Error::out_of_window(addr.get()))?;
        if off % 4 != 0 {
            return Err(Error::out_of_window(addr.get()));
        }
        usize::try_from(off / 4)
            .ok()
            .and_then(|i| self.words.get(i))
            .ok_or(Error::out_of_window(addr.get()))
    }
}

impl Mmio for HeapMmio {
    fn read32(&self, addr: DeviceAddr) -> Result<u32> {
        Ok(self.slot(addr)?.load(Ordering::SeqCst))
    }

    fn write32(&self, addr: DeviceAddr, value: u32) -> Result<()> {
        self.slot(addr)?.store(value, Ordering::SeqCst);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_back_and_refuses_outside() {
        let m = HeapMmio::new(DeviceAddr(0x1000), 0x100);
        m.write32(DeviceAddr(0x10FC), 7).unwrap();
        assert_eq!(m.read32(DeviceAddr(0x10FC)), Ok(7));
        assert_eq!(
            m.read32(DeviceAddr(0x1100)),
            Err(Error::out_of_window(0x1100))
        );
        assert_eq!(
            m.read32(DeviceAddr(0xFFC)),
            Err(Error::out_of_window(0xFFC))
        );
        assert_eq!(
            m.read32(DeviceAddr(0x1002)),
            Err(Error::out_of_window(0x1002))
        );
    }
}
