//! The DMA engine model: walks a submitted descriptor ring, copies, completes.
//!
//! The vendor's DMA queue registers, ring descriptor encoding and completion
//! event are NOT TRACED [000 §4]; this model defines its own, documented here,
//! and [`ModelDmaQueue`] is the matching driver (a
//! [`khal_core::dma::DmaQueue`]). Nothing in hal-core depends on these numbers.
//!
//! Registers of [`DmaEngineModel`] (byte offsets in its window of
//! [`DmaEngineModel::WINDOW`] bytes):
//!
//! | off | name | use |
//! | --- | --- | --- |
//! | `0x00` | `RING_BASE_LO` | ring bus address, low 32 bits |
//! | `0x04` | `RING_BASE_HI` | ring bus address, high 32 bits |
//! | `0x08` | `RING_COUNT` | descriptors in the ring |
//! | `0x0C` | `DOORBELL` | write 1: start the ring |
//! | `0x10` | `ABORT` | write 1: drop a ring not yet processed |
//! | `0x14` | `RINGS_DONE` | read: rings processed |
//! | `0x18` | `BUSY` | read: 1 while a ring waits to be processed, else 0 |
//!
//! A descriptor is 32 bytes, little-endian: `kind: u32` (1 transfer,
//! 2 completion), `len: u32`, `src: u64`, `dst: u64`, `0: u64`. A completion's
//! `dst` is the bus address of a 16-byte completion record the engine writes:
//! `state: u32` (0 pending, 1 done; anything else is corrupt), `descriptors: u32`, `moved: u64`.
//!
//! The engine processes a ring `latency_ns` of simulated time after the
//! doorbell (at once when 0), reading descriptors and sources and writing
//! destinations through the model's memory ([`Bus::read_mem`] /
//! [`Bus::write_mem`]). Fault injection ([`DmaFault`]): the completion is never
//! raised (the wait times out), one transfer moves fewer bytes (the
//! completion reports the short count), or a corrupt record shows while the
//! ring is pending; and [`DmaEngineModel::ignore_abort`] (the engine ignores
//! `ABORT`). Every transfer is logged. The driver confirms an abort by
//! reading `BUSY` back (0: stopped).

use std::any::Any;
use std::sync::Arc;

use khal_core::dma::{Descriptor, DmaMemory, DmaQueue, QueueInfo, RingStatus};
use khal_core::Fault;
use khal_core::{DeviceAddr, Error, Mmio, Result};

use super::{Block, Bus, DeviceModel};
use crate::dma::DmaBuf;

/// `RING_BASE_LO` register offset.
pub const RING_BASE_LO: u64 = 0x00;
/// `RING_BASE_HI` register offset.
pub const RING_BASE_HI: u64 = 0x04;
/// `RING_COUNT` register offset.
pub const RING_COUNT: u64 = 0x08;
/// `DOORBELL` register offset.
pub const DOORBELL: u64 = 0x0C;
/// `ABORT` register offset.
pub const ABORT: u64 = 0x10;
/// `RINGS_DONE` register offset.
pub const RINGS_DONE: u64 = 0x14;
/// `BUSY` register offset.
pub const BUSY: u64 = 0x18;

/// Bytes per encoded descriptor.
pub const DESC_BYTES: usize = 32;
/// Bytes of the completion record.
pub const COMPLETION_BYTES: usize = 16;

const KIND_TRANSFER: u32 = 1;
const KIND_COMPLETION: u32 = 2;
const STATE_DONE: u32 = 1;
/// The record state [`DmaFault::GarbageRecord`] writes (neither 0 nor 1).
const STATE_GARBAGE: u32 = 0xBAD;

/// Faults the engine can be told to play.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DmaFault {
    /// Behave.
    #[default]
    None,
    /// Copy everything but never write the completion record.
    NeverComplete,
    /// The `index`-th transfer of the ring (0-based) moves only `moved` bytes;
    /// the completion reports the short total.
    ShortTransfer {
        /// Which transfer.
        index: usize,
        /// Bytes it moves.
        moved: u32,
    },
    /// At the doorbell the engine writes a corrupt completion record (state
    /// `0xBAD`), then processes the ring after its latency as usual: the
    /// driver's status read fails while the ring is still pending.
    GarbageRecord,
}

/// One transfer the engine performed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransferRecord {
    /// Source bus address.
    pub src: u64,
    /// Destination bus address.
    pub dst: u64,
    /// Bytes asked.
    pub len: u32,
    /// Bytes moved.
    pub moved: u32,
}

/// The DMA engine model (a [`Block`]).
#[derive(Debug, Default)]
pub struct DmaEngineModel {
    ring_lo: u32,
    ring_hi: u32,
    count: u32,
    pending: Option<(u64, u32, u64)>,
    /// Injected fault.
    pub fault: DmaFault,
    /// Simulated nanoseconds between the doorbell and the processing.
    pub latency_ns: u64,
    /// Fault injection: `ABORT` writes are counted but ignored (a pending
    /// ring stays pending, `BUSY` stays 1).
    pub ignore_abort: bool,
    aborts: u32,
    doorbells: u32,
    rings_done: u32,
    log: Vec<TransferRecord>,
}

impl DmaEngineModel {
    /// Size of the register window.
    pub const WINDOW: u64 = 0x100;

    /// A model base address, outside every traced TPB, PSUM and HBM window of
    /// the three arches (model-only, not a traced value).
    pub const DEFAULT_BASE: DeviceAddr = DeviceAddr(0x7F00_0000_0000);

    /// An idle engine, no fault, no latency.
    pub fn new() -> Self {
        DmaEngineModel::default()
    }

    /// Doorbells rung so far (rings submitted).
    pub fn doorbells(&self) -> u32 {
        self.doorbells
    }

    /// `ABORT` writes so far.
    pub fn aborts(&self) -> u32 {
        self.aborts
    }

    /// Every transfer performed, in order.
    pub fn transfers(&self) -> &[TransferRecord] {
        &self.log
    }

    fn process(&mut self, ring: u64, count: u32, bus: &mut Bus<'_>) {
        let mut transfer_index = 0usize;
        let mut moved_total = 0u64;
        for i in 0..u64::from(count) {
            let mut d = [0u8; DESC_BYTES];
            let addr = ring.wrapping_add(i * DESC_BYTES as u64);
            if bus.read_mem(addr, &mut d).is_err() {
                return;
            }
            let kind = le32(&d, 0);
            let len = le32(&d, 4);
            let src = le64(&d, 8);
            let dst = le64(&d, 16);
            match kind {
                KIND_TRANSFER => {
                    let moved = match self.fault {
                        DmaFault::ShortTransfer { index, moved } if index == transfer_index => {
                            moved.min(len)
                        }
                        _ => len,
                    };
                    let mut data = vec![0u8; moved as usize];
                    let ok =
                        bus.read_mem(src, &mut data).is_ok() && bus.write_mem(dst, &data).is_ok();
                    let moved = if ok { moved } else { 0 };
                    self.log.push(TransferRecord {
                        src,
                        dst,
                        len,
                        moved,
                    });
                    moved_total += u64::from(moved);
                    transfer_index += 1;
                }
                KIND_COMPLETION => {
                    if self.fault == DmaFault::NeverComplete {
                        return;
                    }
                    let rec = completion_record(STATE_DONE, i as u32 + 1, moved_total);
                    let _ = bus.write_mem(dst, &rec);
                    self.rings_done += 1;
                    return;
                }
                _ => {
                    // No completion address is known for a bad ring: the
                    // engine stops; the driver's wait times out.
                    return;
                }
            }
        }
    }
}

impl DmaEngineModel {
    /// [`DmaFault::GarbageRecord`]: write a corrupt record at the ring's
    /// completion address (the first completion descriptor's `dst`).
    fn garbage_record(&mut self, ring: u64, count: u32, bus: &mut Bus<'_>) {
        for i in 0..u64::from(count) {
            let mut d = [0u8; DESC_BYTES];
            let addr = ring.wrapping_add(i * DESC_BYTES as u64);
            if bus.read_mem(addr, &mut d).is_err() {
                return;
            }
            if le32(&d, 0) == KIND_COMPLETION {
                let _ = bus.write_mem(le64(&d, 16), &completion_record(STATE_GARBAGE, 0, 0));
                return;
            }
        }
    }
}

fn completion_record(state: u32, descriptors: u32, moved: u64) -> [u8; COMPLETION_BYTES] {
    let mut r = [0u8; COMPLETION_BYTES];
    r[0..4].copy_from_slice(&state.to_le_bytes());
    r[4..8].copy_from_slice(&descriptors.to_le_bytes());
    r[8..16].copy_from_slice(&moved.to_le_bytes());
    r
}

fn le32(b: &[u8], at: usize) -> u32 {
    let mut w = [0u8; 4];
    if let Some(s) = b.get(at..at + 4) {
        w.copy_from_slice(s);
    }
    u32::from_le_bytes(w)
}

fn le64(b: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    if let Some(s) = b.get(at..at + 8) {
        w.copy_from_slice(s);
    }
    u64::from_le_bytes(w)
}

impl Block for DmaEngineModel {
    fn name(&self) -> &'static str {
        "dma-engine"
    }
    fn size(&self) -> u64 {
        Self::WINDOW
    }
    fn read(&mut self, off: u64, _bus: &mut Bus<'_>) -> u32 {
        match off {
            RING_BASE_LO => self.ring_lo,
            RING_BASE_HI => self.ring_hi,
            RING_COUNT => self.count,
            RINGS_DONE => self.rings_done,
            BUSY => u32::from(self.pending.is_some()),
            _ => 0,
        }
    }
    fn write(&mut self, off: u64, value: u32, bus: &mut Bus<'_>) {
        match off {
            RING_BASE_LO => self.ring_lo = value,
            RING_BASE_HI => self.ring_hi = value,
            RING_COUNT => self.count = value,
            DOORBELL if value & 1 != 0 => {
                self.doorbells += 1;
                let ring = u64::from(self.ring_hi) << 32 | u64::from(self.ring_lo);
                let due = bus.now_ns.saturating_add(self.latency_ns);
                if self.fault == DmaFault::GarbageRecord {
                    self.garbage_record(ring, self.count, bus);
                }
                if self.latency_ns == 0 {
                    self.process(ring, self.count, bus);
                } else {
                    self.pending = Some((ring, self.count, due));
                }
            }
            ABORT if value & 1 != 0 => {
                self.aborts += 1;
                if !self.ignore_abort {
                    self.pending = None;
                }
            }
            _ => {}
        }
    }
    fn tick(&mut self, bus: &mut Bus<'_>) {
        if let Some((ring, count, due)) = self.pending {
            if bus.now_ns >= due {
                self.pending = None;
                self.process(ring, count, bus);
            }
        }
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// The driver of a [`DmaEngineModel`]: a [`DmaQueue`] whose ring and
/// completion record are host [`DmaBuf`]s attached to the model.
#[derive(Debug)]
pub struct ModelDmaQueue<'m> {
    model: &'m DeviceModel,
    base: DeviceAddr,
    ring: Arc<DmaBuf>,
    completion: Arc<DmaBuf>,
    capacity: usize,
    info: QueueInfo,
}

impl<'m> ModelDmaQueue<'m> {
    /// Mount a fresh [`DmaEngineModel`] at `base` and return its queue, named
    /// `name`, with room for `capacity` descriptors.
    pub fn mount(
        model: &'m DeviceModel,
        base: DeviceAddr,
        name: &'static str,
        capacity: usize,
    ) -> Result<Self> {
        model.mount(base, DmaEngineModel::new())?;
        Self::attach(model, base, name, capacity)
    }

    /// A queue over an engine already mounted at `base`.
    pub fn attach(
        model: &'m DeviceModel,
        base: DeviceAddr,
        name: &'static str,
        capacity: usize,
    ) -> Result<Self> {
        if capacity == 0 {
            return Err(Error::InvalidArgument("dma queue capacity 0"));
        }
        let ring_bytes = capacity
            .checked_mul(DESC_BYTES)
            .ok_or(Error::InvalidArgument("dma queue capacity"))?;
        let ring = Arc::new(DmaBuf::new(ring_bytes, 64)?);
        let completion = Arc::new(DmaBuf::new(COMPLETION_BYTES, 64)?);
        model.attach_host(ring.clone());
        model.attach_host(completion.clone());
        Ok(ModelDmaQueue {
            model,
            base,
            ring,
            completion,
            capacity,
            info: QueueInfo { name, index: 0 },
        })
    }

    /// The engine's base address.
    pub fn base(&self) -> DeviceAddr {
        self.base
    }

    /// Run `f` on the engine model (fault injection, the transfer log).
    pub fn with_engine<R>(&self, f: impl FnOnce(&mut DmaEngineModel) -> R) -> Option<R> {
        self.model
            .with_block(self.base, |e: &mut DmaEngineModel, _| f(e))
    }

    fn reg(&self, off: u64) -> DeviceAddr {
        self.base.add(off)
    }
}

impl DmaQueue for ModelDmaQueue<'_> {
    fn info(&self) -> QueueInfo {
        self.info
    }

    fn submit(&mut self, ring: &[Descriptor]) -> Result<()> {
        if ring.len() > self.capacity {
            return Err(Error::out_of_range(
                "dma ring descriptors",
                ring.len() as u64,
                self.capacity as u64 + 1,
            ));
        }
        for (i, d) in ring.iter().enumerate() {
            let mut raw = [0u8; DESC_BYTES];
            let (kind, len, src, dst) = match *d {
                Descriptor::Transfer { src, dst, len } => (KIND_TRANSFER, len, src, dst.get()),
                Descriptor::Completion => (KIND_COMPLETION, 0, 0, self.completion.bus_addr()),
            };
            raw[0..4].copy_from_slice(&kind.to_le_bytes());
            raw[4..8].copy_from_slice(&len.to_le_bytes());
            raw[8..16].copy_from_slice(&src.to_le_bytes());
            raw[16..24].copy_from_slice(&dst.to_le_bytes());
            self.ring.write(i * DESC_BYTES, &raw)?;
        }
        self.completion.zero()?;
        let bus = self.ring.bus_addr();
        self.model.write32(self.reg(RING_BASE_LO), bus as u32)?;
        self.model
            .write32(self.reg(RING_BASE_HI), (bus >> 32) as u32)?;
        self.model
            .write32(self.reg(RING_COUNT), ring.len() as u32)?;
        self.model.write32(self.reg(DOORBELL), 1)
    }

    fn status(&mut self) -> Result<RingStatus> {
        let mut rec = [0u8; COMPLETION_BYTES];
        self.completion.read(0, &mut rec)?;
        match le32(&rec, 0) {
            0 => Ok(RingStatus::Pending),
            STATE_DONE => Ok(RingStatus::Complete {
                moved: le64(&rec, 8),
            }),
            _ => Err(Error::DeviceFault(Fault::Other(
                "dma completion record corrupt",
            ))),
        }
    }

    /// Write `ABORT`, then confirm with `BUSY`: 0 is stopped; all ones is a
    /// gone device ([`Fault::AllOnes`]); anything else, an engine that did
    /// not stop.
    fn abort(&mut self) -> Result<()> {
        self.model.write32(self.reg(ABORT), 1)?;
        match self.model.read32(self.reg(BUSY))? {
            0 => Ok(()),
            u32::MAX => Err(Error::DeviceFault(Fault::all_ones(self.reg(BUSY).get()))),
            _ => Err(Error::DeviceFault(Fault::Other(
                "dma engine still busy after abort",
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delay::Advance;
    use crate::SimDelay;
    use khal_core::dma::{run_one_shot, Abort, OneShotRing, RunError};
    use khal_core::wait::Budget;

    const B: Budget = Budget {
        period_us: 100,
        polls: 100,
    };

    fn ring(src: &DmaBuf, dst: u64) -> OneShotRing<4> {
        let mut r = OneShotRing::new();
        r.add_transfer(src.bus_addr(), DeviceAddr(dst), 8).unwrap();
        r.add_transfer(src.bus_addr() + 8, DeviceAddr(dst + 0x100), 8)
            .unwrap();
        r.add_completion().unwrap();
        r
    }

    fn setup(m: &DeviceModel) -> (ModelDmaQueue<'_>, Arc<DmaBuf>) {
        let q = ModelDmaQueue::mount(m, DmaEngineModel::DEFAULT_BASE, "qTest", 8).unwrap();
        let src = Arc::new(DmaBuf::new(16, 64).unwrap());
        src.write(0, &(1..=16).collect::<Vec<u8>>()).unwrap();
        m.attach_host(src.clone());
        (q, src)
    }

    #[test]
    fn copies_and_completes() {
        let m = DeviceModel::new();
        let (mut q, src) = setup(&m);
        let mut d = SimDelay::new(&m);
        assert_eq!(run_one_shot(&mut q, &ring(&src, 0x5000), &mut d, B), Ok(0));
        let mut out = [0u8; 8];
        m.read_mem(0x5000, &mut out).unwrap();
        assert_eq!(out, [1, 2, 3, 4, 5, 6, 7, 8]);
        m.read_mem(0x5100, &mut out).unwrap();
        assert_eq!(out, [9, 10, 11, 12, 13, 14, 15, 16]);
        let log = q.with_engine(|e| e.transfers().to_vec()).unwrap();
        assert_eq!(log.len(), 2);
        assert_eq!(log[1].dst, 0x5100);
        assert_eq!(q.with_engine(|e| e.doorbells()), Some(1));
        assert_eq!(
            m.read32(DmaEngineModel::DEFAULT_BASE.add(RINGS_DONE)),
            Ok(1)
        );
    }

    #[test]
    fn latency_is_waited_for_within_budget() {
        let m = DeviceModel::new();
        let (mut q, src) = setup(&m);
        q.with_engine(|e| e.latency_ns = 350_000).unwrap();
        let mut d = SimDelay::new(&m);
        // 350 µs at 100 µs per poll: four sleeps.
        assert_eq!(run_one_shot(&mut q, &ring(&src, 0x5000), &mut d, B), Ok(4));
    }

    #[test]
    fn never_completing_times_out_and_aborts() {
        let m = DeviceModel::new();
        let (mut q, src) = setup(&m);
        q.with_engine(|e| e.fault = DmaFault::NeverComplete)
            .unwrap();
        let mut d = SimDelay::new(&m);
        assert_eq!(
            run_one_shot(&mut q, &ring(&src, 0x5000), &mut d, B),
            Err(RunError {
                error: Error::Timeout("dma ring completion"),
                abort: Abort::Stopped
            })
        );
        assert_eq!(d.slept_ns(), B.total_us() * 1000);
        assert_eq!(q.with_engine(|e| e.aborts()), Some(1));
    }

    #[test]
    fn a_corrupt_record_while_pending_aborts_the_ring_before_it_runs() {
        let m = DeviceModel::new();
        let (mut q, src) = setup(&m);
        q.with_engine(|e| {
            e.fault = DmaFault::GarbageRecord;
            e.latency_ns = 250_000;
        })
        .unwrap();
        let mut d = SimDelay::new(&m);
        assert_eq!(
            run_one_shot(&mut q, &ring(&src, 0x5000), &mut d, B),
            Err(RunError {
                error: Error::DeviceFault(Fault::Other("dma completion record corrupt")),
                abort: Abort::Stopped
            })
        );
        // Failed at the first status read: no sleep, no transfer.
        assert_eq!(d.slept_ns(), 0);
        // Past the engine's latency, the aborted ring never runs: nothing
        // reads the sources any more (the caller may free them).
        m.advance_ns(1_000_000);
        assert_eq!(q.with_engine(|e| e.transfers().len()), Some(0));
        assert_eq!(q.with_engine(|e| e.aborts()), Some(1));
    }

    #[test]
    fn an_abort_the_engine_ignores_is_reported_with_the_timeout() {
        let m = DeviceModel::new();
        let (mut q, src) = setup(&m);
        q.with_engine(|e| {
            e.ignore_abort = true;
            e.latency_ns = u64::MAX / 2;
        })
        .unwrap();
        let mut d = SimDelay::new(&m);
        let r = run_one_shot(&mut q, &ring(&src, 0x5000), &mut d, B).unwrap_err();
        assert_eq!(
            r,
            RunError {
                error: Error::Timeout("dma ring completion"),
                abort: Abort::Failed(Error::DeviceFault(Fault::Other(
                    "dma engine still busy after abort"
                )))
            }
        );
        assert!(matches!(r.abort, Abort::Failed(_)));
        assert_eq!(q.with_engine(|e| e.pending.is_some()), Some(true));
    }

    #[test]
    fn abort_drops_a_pending_ring() {
        let m = DeviceModel::new();
        let (mut q, src) = setup(&m);
        q.with_engine(|e| e.latency_ns = u64::MAX / 2).unwrap();
        let mut d = SimDelay::new(&m);
        assert!(run_one_shot(&mut q, &ring(&src, 0x5000), &mut d, B).is_err());
        q.with_engine(|e| e.latency_ns = 0).unwrap();
        assert_eq!(q.with_engine(|e| e.pending), Some(None));
    }

    #[test]
    fn short_transfer_is_reported() {
        let m = DeviceModel::new();
        let (mut q, src) = setup(&m);
        q.with_engine(|e| e.fault = DmaFault::ShortTransfer { index: 1, moved: 3 })
            .unwrap();
        let mut d = SimDelay::new(&m);
        assert_eq!(
            run_one_shot(&mut q, &ring(&src, 0x5000), &mut d, B),
            Err(RunError {
                error: Error::DeviceFault(Fault::ShortTransfer {
                    expected: 16,
                    moved: 11
                }),
                abort: Abort::NotNeeded
            })
        );
        let mut out = [0u8; 8];
        m.read_mem(0x5100, &mut out).unwrap();
        assert_eq!(out, [9, 10, 11, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn a_gone_device_times_out_and_oversized_rings_are_refused() {
        let m = DeviceModel::new();
        let (mut q, src) = setup(&m);
        m.set_gone(true);
        let mut d = SimDelay::new(&m);
        // The abort's confirmation reads all ones: reported with the timeout.
        assert_eq!(
            run_one_shot(&mut q, &ring(&src, 0x5000), &mut d, B),
            Err(RunError {
                error: Error::Timeout("dma ring completion"),
                abort: Abort::Failed(Error::DeviceFault(Fault::all_ones(
                    DmaEngineModel::DEFAULT_BASE.add(BUSY).get()
                )))
            })
        );
        m.set_gone(false);
        let big = [Descriptor::Completion; 9];
        assert!(matches!(q.submit(&big), Err(Error::OutOfRange { .. })));
        assert!(ModelDmaQueue::attach(&m, DeviceAddr(0), "x", 0).is_err());
    }

    #[test]
    fn corrupt_completion_records_are_device_faults() {
        let m = DeviceModel::new();
        let (mut q, _src) = setup(&m);
        q.completion.write(0, &[9, 0, 0, 0]).unwrap();
        assert_eq!(
            q.status(),
            Err(Error::DeviceFault(Fault::Other(
                "dma completion record corrupt"
            )))
        );
    }
}
