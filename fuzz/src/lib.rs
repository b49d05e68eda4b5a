//! Shared pieces of khal's fuzz targets: a byte reader that never fails (an
//! exhausted input reads as zeros), a recording register file and a
//! byte-slice DMA memory that checks every access against the ring.

use std::cell::{Cell, RefCell};

use khal_core::dma::DmaMemory;
use khal_core::{DeviceAddr, Error, Mmio, Result};

/// Reads fuzz input front to back; past the end every read is zero.
pub struct Input<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Input<'a> {
    /// A reader over `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Input { data, pos: 0 }
    }

    /// `true` once every byte was read.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// One byte.
    pub fn u8(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    /// A little-endian u16.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    /// A little-endian u32.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    /// A little-endian u64.
    pub fn u64(&mut self) -> u64 {
        (self.u32() as u64) | ((self.u32() as u64) << 32)
    }

    /// One bit.
    pub fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }

    /// Up to `n` raw bytes (fewer at the end of the input).
    pub fn bytes(&mut self, n: usize) -> &'a [u8] {
        let start = self.pos.min(self.data.len());
        let end = start.saturating_add(n).min(self.data.len());
        self.pos = self.pos.saturating_add(n);
        &self.data[start..end]
    }
}

/// One recorded register access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// A read at an address.
    Read(u64),
    /// A write of a value at an address.
    Write(u64, u32),
}

/// A register file that records every access. Reads return the last value
/// written, except the addresses in `scripted`, which return the next value
/// of their script (the device's tail register), then repeat the last one.
#[derive(Default)]
pub struct RecMmio {
    /// Every access, in order.
    pub log: RefCell<Vec<Access>>,
    regs: RefCell<std::collections::BTreeMap<u64, u32>>,
    scripted: RefCell<Vec<(u64, Vec<u32>, usize)>>,
}

impl RecMmio {
    /// An empty register file.
    pub fn new() -> Self {
        RecMmio::default()
    }

    /// Reads of `addr` return `values` one after the other, then the last.
    pub fn script(&self, addr: u64, values: Vec<u32>) {
        let mut s = self.scripted.borrow_mut();
        s.retain(|(a, _, _)| *a != addr);
        s.push((addr, values, 0));
    }

    /// Number of accesses so far.
    pub fn len(&self) -> usize {
        self.log.borrow().len()
    }

    /// `true` when nothing was accessed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The accesses from index `from` on.
    pub fn since(&self, from: usize) -> Vec<Access> {
        self.log.borrow()[from..].to_vec()
    }
}

impl Mmio for RecMmio {
    fn read32(&self, addr: DeviceAddr) -> Result<u32> {
        let a = addr.get();
        self.log.borrow_mut().push(Access::Read(a));
        let mut s = self.scripted.borrow_mut();
        if let Some((_, vals, i)) = s.iter_mut().find(|(x, _, _)| *x == a) {
            let v = vals.get(*i).or_else(|| vals.last()).copied().unwrap_or(0);
            *i += 1;
            return Ok(v);
        }
        Ok(self.regs.borrow().get(&a).copied().unwrap_or(0))
    }

    fn write32(&self, addr: DeviceAddr, value: u32) -> Result<()> {
        self.log.borrow_mut().push(Access::Write(addr.get(), value));
        self.regs.borrow_mut().insert(addr.get(), value);
        Ok(())
    }
}

/// DMA memory over a byte vector that may be longer than the ring; every
/// access is checked against `limit` (the ring's bytes): touching a byte at
/// or past it is a bug in the consumer, reported by a panic the fuzzer sees.
pub struct RingMem {
    /// The bytes (the device writes them directly through this).
    pub bytes: RefCell<Vec<u8>>,
    /// Accesses must stay below this offset.
    pub limit: Cell<usize>,
    bus: u64,
}

impl RingMem {
    /// `len` zero bytes at bus address `bus`, accesses allowed below `limit`.
    pub fn new(len: usize, limit: usize, bus: u64) -> Self {
        RingMem {
            bytes: RefCell::new(vec![0; len]),
            limit: Cell::new(limit),
            bus,
        }
    }

    fn check(&self, offset: usize, n: usize) -> Result<()> {
        let end = offset.checked_add(n);
        match end {
            Some(e) if e <= self.bytes.borrow().len() => {
                assert!(
                    e <= self.limit.get(),
                    "consumer touched bytes {offset}..{e} outside the {}-byte ring",
                    self.limit.get()
                );
                Ok(())
            }
            _ => Err(Error::out_of_range(
                "ring mem offset",
                offset as u64,
                self.bytes.borrow().len() as u64,
            )),
        }
    }
}

impl DmaMemory for RingMem {
    fn bus_addr(&self) -> u64 {
        self.bus
    }

    fn len(&self) -> usize {
        self.bytes.borrow().len()
    }

    fn load_u8(&self, offset: usize) -> Result<u8> {
        self.check(offset, 1)?;
        Ok(self.bytes.borrow()[offset])
    }

    fn read(&self, offset: usize, out: &mut [u8]) -> Result<()> {
        self.check(offset, out.len())?;
        out.copy_from_slice(&self.bytes.borrow()[offset..offset + out.len()]);
        Ok(())
    }

    fn write(&self, offset: usize, data: &[u8]) -> Result<()> {
        self.check(offset, data.len())?;
        self.bytes.borrow_mut()[offset..offset + data.len()].copy_from_slice(data);
        Ok(())
    }

    fn zero(&self) -> Result<()> {
        let n = self.limit.get().min(self.len());
        self.bytes.borrow_mut()[..n].fill(0);
        Ok(())
    }
}

/// A delay that does nothing (fuzzed waits are bounded by small budgets).
pub struct NoDelay;

impl embedded_hal::delay::DelayNs for NoDelay {
    fn delay_ns(&mut self, _: u32) {}
}
