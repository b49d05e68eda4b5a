//! The behavioural device model: a device address space behind [`Mmio`].
//!
//! A [`DeviceModel`] is a set of mounted [`Block`]s (the NOTIFIC engines, the
//! INTC, TPB register windows, the DMA engine…), each playing its hardware
//! side, over a sparse device memory (DRAM/HBM; reads of untouched memory give
//! 0) and the host memory buffers attached to it (the DMA buffers host-memory
//! NQ rings live in). Time is simulated: [`crate::SimDelay`] over the model
//! advances its clock and lets every block [`Block::tick`]. Fault injection
//! that concerns the whole device (`gone`: every read all ones) lives here;
//! block-specific faults live in each block.
//!
//! `DeviceModel` is `Send + Sync`: its state sits behind one mutex, so one
//! model can be shared by threads or by tasks of a multi-threaded executor
//! (`Arc<DeviceModel>`, or a `&'static` one), every register access, memory
//! access and tick taking the lock once. Every [`Block`] is `Send` for this.
//! A block's callback must not call back into the model (the lock is held).

pub mod dma_engine;
pub mod intc;
pub mod notific;
pub mod tpb;

use std::any::Any;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use khal_core::dma::DmaMemory;
use khal_core::{DeviceAddr, Error, Mmio, Result};

use crate::delay::Advance;

const PAGE: u64 = 4096;

/// The model's view of memory for a block: device memory plus attached host
/// buffers, addressed by bus address; and the current simulated time.
pub struct Bus<'a> {
    /// Simulated nanoseconds now.
    pub now_ns: u64,
    dram: &'a mut BTreeMap<u64, Box<[u8; PAGE as usize]>>,
    host: &'a [Arc<dyn DmaMemory + Send + Sync>],
}

impl Bus<'_> {
    /// Write `data` at bus address `addr`: into an attached host buffer that
    /// holds the whole range, else into device memory.
    pub fn write_mem(&mut self, addr: u64, data: &[u8]) -> Result<()> {
        if let Some((h, off)) = self.host_at(addr, data.len()) {
            return h.write(off, data);
        }
        for (i, &b) in data.iter().enumerate() {
            let a = addr
                .checked_add(i as u64)
                .ok_or(Error::out_of_window(addr))?;
            let page = self
                .dram
                .entry(a / PAGE)
                .or_insert_with(|| Box::new([0; PAGE as usize]));
            if let Some(slot) = page.get_mut((a % PAGE) as usize) {
                *slot = b;
            }
        }
        Ok(())
    }

    /// Read `out.len()` bytes at bus address `addr` (host buffer or device memory).
    pub fn read_mem(&self, addr: u64, out: &mut [u8]) -> Result<()> {
        if let Some((h, off)) = self.host_at(addr, out.len()) {
            return h.read(off, out);
        }
        read_dram(self.dram, addr, out)
    }

    fn host_at(&self, addr: u64, n: usize) -> Option<(&Arc<dyn DmaMemory + Send + Sync>, usize)> {
        self.host.iter().find_map(|h| {
            let off = addr.checked_sub(h.bus_addr())?;
            let end = off.checked_add(n as u64)?;
            (end <= h.len() as u64).then_some((h, off as usize))
        })
    }
}

fn read_dram(
    dram: &BTreeMap<u64, Box<[u8; PAGE as usize]>>,
    addr: u64,
    out: &mut [u8],
) -> Result<()> {
    for (i, o) in out.iter_mut().enumerate() {
        let a = addr
            .checked_add(i as u64)
            .ok_or(Error::out_of_window(addr))?;
        *o = dram
            .get(&(a / PAGE))
            .and_then(|p| p.get((a % PAGE) as usize))
            .copied()
            .unwrap_or(0);
    }
    Ok(())
}

/// One piece of modelled hardware mounted at a base address. `Send`, so that
/// the model holding it is `Send + Sync`.
pub trait Block: Any + Send {
    /// A short name (`"notific"`, `"msix"`, …).
    fn name(&self) -> &'static str;
    /// The size of its register window in bytes.
    fn size(&self) -> u64;
    /// A register read at byte offset `off`.
    fn read(&mut self, off: u64, bus: &mut Bus<'_>) -> u32;
    /// A register write at byte offset `off`.
    fn write(&mut self, off: u64, value: u32, bus: &mut Bus<'_>);
    /// Simulated time moved to `bus.now_ns`.
    fn tick(&mut self, _bus: &mut Bus<'_>) {}
    /// For [`DeviceModel::with_block`].
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

struct Mounted {
    base: u64,
    block: Box<dyn Block>,
}

#[derive(Default)]
struct Inner {
    blocks: Vec<Mounted>,
    dram: BTreeMap<u64, Box<[u8; PAGE as usize]>>,
    host: Vec<Arc<dyn DmaMemory + Send + Sync>>,
    now_ns: u64,
    gone: bool,
}

/// The model's state behind its mutex. `borrow` and `borrow_mut` both lock
/// it (the names of the `RefCell` it replaced); a panic inside a block leaves
/// the state as it was, so a poisoned lock is taken over, not a second panic.
#[derive(Default)]
struct Locked(Mutex<Inner>);

impl Locked {
    fn borrow(&self) -> MutexGuard<'_, Inner> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn borrow_mut(&self) -> MutexGuard<'_, Inner> {
        self.borrow()
    }
}

/// The device model. Starts with all-zero registers and memory. `Send + Sync`
/// (see the module docs): share it with `Arc` across threads or tasks.
#[derive(Default)]
pub struct DeviceModel {
    inner: Locked,
}

static_assertions::assert_impl_all!(DeviceModel: Send, Sync);

impl core::fmt::Debug for DeviceModel {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let i = self.inner.borrow();
        let names: Vec<_> = i.blocks.iter().map(|m| (m.block.name(), m.base)).collect();
        f.debug_struct("DeviceModel")
            .field("blocks", &names)
            .field("now_ns", &i.now_ns)
            .finish()
    }
}

impl DeviceModel {
    /// An empty device: no blocks, zeroed memory, time zero.
    pub fn new() -> Self {
        DeviceModel::default()
    }

    /// Mount `block` at `base`. Overlapping an existing block is refused.
    pub fn mount<B: Block>(&self, base: DeviceAddr, block: B) -> Result<()> {
        let mut i = self.inner.borrow_mut();
        let (b, size) = (base.get(), block.size());
        let end = b
            .checked_add(size)
            .ok_or(Error::InvalidArgument("block past the address space"))?;
        if i.blocks
            .iter()
            .any(|m| b < m.base + m.block.size() && m.base < end)
        {
            return Err(Error::InvalidArgument("block overlaps a mounted block"));
        }
        i.blocks.push(Mounted {
            base: b,
            block: Box::new(block),
        });
        Ok(())
    }

    /// Run `f` on the block of type `B` mounted at `base` (e.g. to tell a
    /// NOTIFIC model to post notifications, or to inject a fault).
    pub fn with_block<B: Block, R>(
        &self,
        base: DeviceAddr,
        f: impl FnOnce(&mut B, &mut Bus<'_>) -> R,
    ) -> Option<R> {
        let mut guard = self.inner.borrow_mut();
        let Inner {
            blocks,
            dram,
            host,
            now_ns,
            ..
        } = &mut *guard;
        let m = blocks.iter_mut().find(|m| m.base == base.get())?;
        let b = m.block.as_any_mut().downcast_mut::<B>()?;
        let mut bus = Bus {
            now_ns: *now_ns,
            dram,
            host,
        };
        Some(f(b, &mut bus))
    }

    /// Make host memory visible to the device at its bus address.
    pub fn attach_host(&self, mem: Arc<dyn DmaMemory + Send + Sync>) {
        self.inner.borrow_mut().host.push(mem);
    }

    /// Fault injection: the device is gone; every read returns all ones and
    /// writes are dropped.
    pub fn set_gone(&self, gone: bool) {
        self.inner.borrow_mut().gone = gone;
    }

    /// Copy device memory at bus address `addr` (tests, the DMA loader checks).
    pub fn read_mem(&self, addr: u64, out: &mut [u8]) -> Result<()> {
        let mut guard = self.inner.borrow_mut();
        let Inner {
            dram, host, now_ns, ..
        } = &mut *guard;
        Bus {
            now_ns: *now_ns,
            dram,
            host,
        }
        .read_mem(addr, out)
    }

    /// Write device memory at bus address `addr`.
    pub fn write_mem(&self, addr: u64, data: &[u8]) -> Result<()> {
        let mut guard = self.inner.borrow_mut();
        let Inner {
            dram, host, now_ns, ..
        } = &mut *guard;
        Bus {
            now_ns: *now_ns,
            dram,
            host,
        }
        .write_mem(addr, data)
    }

    fn access<R>(
        &self,
        addr: DeviceAddr,
        f: impl FnOnce(Option<(&mut dyn Block, u64)>, &mut Bus<'_>) -> R,
    ) -> R {
        let mut guard = self.inner.borrow_mut();
        let Inner {
            blocks,
            dram,
            host,
            now_ns,
            ..
        } = &mut *guard;
        let a = addr.get();
        let hit = blocks
            .iter_mut()
            .find(|m| a >= m.base && a - m.base < m.block.size());
        let mut bus = Bus {
            now_ns: *now_ns,
            dram,
            host,
        };
        match hit {
            Some(m) => f(Some((m.block.as_mut(), a - m.base)), &mut bus),
            None => f(None, &mut bus),
        }
    }
}

impl Mmio for DeviceModel {
    fn read32(&self, addr: DeviceAddr) -> Result<u32> {
        if self.inner.borrow().gone {
            return Ok(u32::MAX);
        }
        self.access(addr, |hit, bus| match hit {
            Some((b, off)) => Ok(b.read(off, bus)),
            None => {
                let mut w = [0u8; 4];
                bus.read_mem(addr.get(), &mut w)?;
                Ok(u32::from_le_bytes(w))
            }
        })
    }

    fn write32(&self, addr: DeviceAddr, value: u32) -> Result<()> {
        if self.inner.borrow().gone {
            return Ok(());
        }
        self.access(addr, |hit, bus| match hit {
            Some((b, off)) => {
                b.write(off, value, bus);
                Ok(())
            }
            None => bus.write_mem(addr.get(), &value.to_le_bytes()),
        })
    }
}

impl Advance for DeviceModel {
    fn advance_ns(&self, ns: u64) {
        let mut guard = self.inner.borrow_mut();
        guard.now_ns = guard.now_ns.saturating_add(ns);
        let Inner {
            blocks,
            dram,
            host,
            now_ns,
            ..
        } = &mut *guard;
        let mut bus = Bus {
            now_ns: *now_ns,
            dram,
            host,
        };
        for m in blocks.iter_mut() {
            m.block.tick(&mut bus);
        }
    }

    fn now_ns(&self) -> u64 {
        self.inner.borrow().now_ns
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DmaBuf, SimDelay};
    use embedded_hal::delay::DelayNs;

    /// A register that counts ticks.
    struct Ticker {
        ticks: u32,
        reg: u32,
    }
    impl Block for Ticker {
        fn name(&self) -> &'static str {
            "ticker"
        }
        fn size(&self) -> u64 {
            0x10
        }
        fn read(&mut self, off: u64, _: &mut Bus<'_>) -> u32 {
            if off == 0 {
                self.ticks
            } else {
                self.reg
            }
        }
        fn write(&mut self, _: u64, v: u32, bus: &mut Bus<'_>) {
            self.reg = v;
            bus.write_mem(0x5000, &v.to_le_bytes()).unwrap();
        }
        fn tick(&mut self, _: &mut Bus<'_>) {
            self.ticks += 1;
        }
        fn as_any_mut(&mut self) -> &mut dyn Any {
            self
        }
    }

    #[test]
    fn blocks_memory_time_and_gone() {
        let m = DeviceModel::new();
        m.mount(DeviceAddr(0x1000), Ticker { ticks: 0, reg: 0 })
            .unwrap();
        assert!(m
            .mount(DeviceAddr(0x1008), Ticker { ticks: 0, reg: 0 })
            .is_err());
        m.write32(DeviceAddr(0x1004), 9).unwrap();
        assert_eq!(m.read32(DeviceAddr(0x1004)), Ok(9));
        assert_eq!(m.read32(DeviceAddr(0x5000)), Ok(9)); // the block wrote DRAM
        assert_eq!(m.read32(DeviceAddr(0x9000)), Ok(0)); // untouched memory
        SimDelay::new(&m).delay_us(3);
        assert_eq!(m.read32(DeviceAddr(0x1000)), Ok(1));
        assert_eq!(m.now_ns(), 3000);
        assert_eq!(
            m.with_block(DeviceAddr(0x1000), |t: &mut Ticker, _| t.ticks),
            Some(1)
        );
        m.set_gone(true);
        assert_eq!(m.read32(DeviceAddr(0x1004)), Ok(u32::MAX));
    }

    #[test]
    fn host_memory_is_reached_by_bus_address() {
        let m = DeviceModel::new();
        let buf = Arc::new(DmaBuf::new(64, 64).unwrap());
        m.attach_host(buf.clone());
        m.write_mem(buf.bus_addr() + 8, &[1, 2, 3]).unwrap();
        assert_eq!(buf.load_u8(9), Ok(2));
    }
}
