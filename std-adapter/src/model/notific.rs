//! The NOTIFIC engine model: a register file that produces NQ notifications, with fault injection [004 §2, §3].
//!
//! [`NotificModel`] plays the hardware side of one engine's notification
//! block, in either register flavour. It keeps every register of the block as
//! written (reads return it), except `nq_tail_ptr`, which it owns. Told to
//! [`post`](NotificModel::post) notifications for a queue (through
//! [`DeviceModel::with_block`](super::DeviceModel::with_block)), it writes
//! 16-byte entries into the ring memory the queue's `nq_base_addr_lo/hi` and
//! `nq_f_size` name (host `DmaBuf`s attached to the device model, or device
//! memory), at its tail:
//! - the phase byte (byte 3) is written LAST [FACTS §11]; the first pass over a
//!   ring carries phase 1, the second 0, … (flipping at each wrap);
//! - the tail register advances as a byte offset [FACTS §11];
//! - a queue whose `nq_enable` bit is clear gets nothing;
//! - the device back-pressures: it never has more than `capacity - 1` entries
//!   pending past the head register (so a tail count is never ambiguous);
//! - clearing a queue's enable bit drains its tail to 0 and restarts it at
//!   slot 0, first pass (what the consumer's reset waits for) [004 §3];
//! - a `coal_ctrl.clr` write (bit 9) flushes the in-flight writes of the
//!   coalesced queues 0..=3 at once and is counted [004 §3].
//!
//! The payload is the model's own choice, NOT a spec field (the notes decode
//! only the phase bit): byte 0 = queue index, bytes 4..12 = a per-queue
//! sequence number (little-endian, monotonic across resets), so tests can
//! check order and uniqueness.
//!
//! Fault injection per queue ([`QueueFault`]): stall, lie, slow DMA, overrun.
//! "Gone" is the whole device's: [`DeviceModel::set_gone`](super::DeviceModel::set_gone).

use std::any::Any;
use std::sync::Arc;

use khal_core::asynch::NqSignal;
use khal_core::notific::Flavour;
use khal_core::{Error, Result};

use super::{Block, Bus};

// Where the registers are, written from the spec and not taken from the HAL's
// tables: a wrong offset there then fails the tests instead of being mirrored.

/// `nq_enable`: one enable bit per queue [004 §3], [FACTS §6].
const NQ_ENABLE: u64 = 0x14;
/// `coal_ctrl` [004 §2, §3], [FACTS §6].
const COAL_CTRL: u64 = 0xB8;
/// `coal_ctrl.clr`, bit 9: pulsed by the NQ reset of queues 0..=3 [004 §3].
const COAL_CTRL_CLR: u32 = 1 << 9;
/// `nq[0].nq_base_addr_lo` [004 §3], [FACTS §6].
const NQ_BASE_ADDR_LO: u64 = 0x100;
/// `nq[0].nq_base_addr_hi` [004 §3], [FACTS §6].
const NQ_BASE_ADDR_HI: u64 = 0x104;
/// `nq[0].nq_f_size`: the ring's size in bytes [004 §3], [FACTS §6].
const NQ_F_SIZE: u64 = 0x108;
/// `nq[0].nq_head_ptr` [004 §3], [FACTS §6].
const NQ_HEAD_PTR: u64 = 0x10C;
/// `nq[0].nq_tail_ptr` [004 §3], [FACTS §6].
const NQ_TAIL_PTR: u64 = 0x110;
/// Bytes between two NQ windows of the 10-queue flavour [004 §3].
const NQ_STRIDE: u64 = 40;
/// NQs of the 10-queue flavour [004 §3].
const NQ_COUNT: u32 = 10;
/// The whole block's size in the kernel's map (`0x100 + 96 * 0x28`)
/// [kdrv v2 notific.h].
const BLOCK_BYTES: u64 = 0x1000;

/// A fault a queue of the model can be told to have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QueueFault {
    /// Behave.
    #[default]
    None,
    /// The engine is stuck: posts do nothing and the tail register never
    /// moves again, not even to drain on a reset.
    Stall,
    /// The tail register reads this value whatever happened (misaligned,
    /// outside the ring, all ones…); posts still write memory.
    LieTail(u32),
    /// Entries and the tail are written at once, but each phase byte lands
    /// `delay_ns` of simulated time later (a slow DMA).
    SlowDma {
        /// Simulated delay of each phase byte.
        delay_ns: u64,
    },
    /// The engine ignores the head register and overwrites unread entries
    /// (a producer more than a ring ahead).
    Overrun,
}

/// A phase byte still in flight (slow DMA).
#[derive(Debug, Clone, Copy)]
struct InFlight {
    due_ns: u64,
    addr: u64,
    byte: u8,
    queue: u32,
}

#[derive(Debug, Clone, Copy, Default)]
struct Queue {
    /// Entries written since the last restart (slot = written mod capacity).
    written: u64,
    /// Next payload sequence number (never reset).
    seq: u64,
    /// The tail register value.
    tail: u32,
    fault: QueueFault,
}

/// The behavioural NOTIFIC engine. Mount it with
/// [`DeviceModel::mount`](super::DeviceModel::mount) at the engine's notific base.
#[derive(Debug)]
pub struct NotificModel {
    flavour: Flavour,
    regs: Vec<u32>,
    queues: [Queue; NQ_COUNT as usize],
    in_flight: Vec<InFlight>,
    coalescer_clears: u32,
    /// Per queue, the interrupt raised when a phase byte lands (the NQ's
    /// MSI-X line of a real device), if wired.
    interrupts: [Option<Arc<NqSignal>>; NQ_COUNT as usize],
}

/// The payload byte range holding the model's sequence number.
pub const SEQ_BYTES: core::ops::Range<usize> = 4..12;

/// The sequence number the model wrote in an entry (bytes 4..12, LE).
pub fn entry_seq(raw: &[u8; 16]) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&raw[SEQ_BYTES]);
    u64::from_le_bytes(b)
}

impl NotificModel {
    /// A model of one engine of `flavour`, every register 0.
    pub fn new(flavour: Flavour) -> Self {
        NotificModel {
            flavour,
            regs: vec![0; (BLOCK_BYTES / 4) as usize],
            queues: [Queue::default(); NQ_COUNT as usize],
            in_flight: Vec::new(),
            coalescer_clears: 0,
            interrupts: Default::default(),
        }
    }

    /// Wire queue `idx`'s interrupt: `signal` is raised each time entries of
    /// the queue become visible (their phase bytes land), as a device's NQ
    /// interrupt would; `khal_core::asynch` waits are woken by it.
    pub fn set_interrupt(&mut self, idx: u32, signal: Arc<NqSignal>) {
        if let Some(slot) = self.interrupts.get_mut(idx as usize) {
            *slot = Some(signal);
        }
    }

    /// Raise queue `idx`'s interrupt, if wired.
    fn interrupt(&self, idx: u32) {
        if let Some(Some(s)) = self.interrupts.get(idx as usize) {
            s.signal();
        }
    }

    /// The register flavour.
    pub fn flavour(&self) -> Flavour {
        self.flavour
    }

    /// Number of queues the flavour has (1 or 10). The single-queue flavour's
    /// queue is queue 0 (its enable bit is bit 0).
    pub fn queue_count(&self) -> u32 {
        match self.flavour {
            Flavour::SingleQueue => 1,
            Flavour::TenQueue => NQ_COUNT,
        }
    }

    /// The stored value of the register at `off` (tail: the model's tail).
    pub fn reg(&self, off: u64) -> u32 {
        match self.tail_queue(off) {
            Some(q) => self.queues.get(q as usize).map_or(0, |q| q.tail),
            None => self.regs.get((off / 4) as usize).copied().unwrap_or(0),
        }
    }

    /// Inject (or clear, with [`QueueFault::None`]) a fault on queue `idx`.
    pub fn set_fault(&mut self, idx: u32, fault: QueueFault) {
        if let Some(q) = self.queues.get_mut(idx as usize) {
            q.fault = fault;
        }
    }

    /// Entries written to queue `idx` since its last restart.
    pub fn written(&self, idx: u32) -> u64 {
        self.queues.get(idx as usize).map_or(0, |q| q.written)
    }

    /// The sequence number the next entry of queue `idx` will carry.
    pub fn next_seq(&self, idx: u32) -> u64 {
        self.queues.get(idx as usize).map_or(0, |q| q.seq)
    }

    /// `coal_ctrl.clr` set-writes seen so far.
    pub fn coalescer_clears(&self) -> u32 {
        self.coalescer_clears
    }

    /// Phase bytes still in flight (slow DMA).
    pub fn in_flight(&self) -> usize {
        self.in_flight.len()
    }

    /// Byte offset of queue `idx`'s window (`+40 * idx`, or none).
    fn window(&self, idx: u32) -> u64 {
        match self.flavour {
            Flavour::SingleQueue => 0,
            Flavour::TenQueue => idx as u64 * NQ_STRIDE,
        }
    }

    fn raw(&self, off: u64) -> u32 {
        self.regs.get((off / 4) as usize).copied().unwrap_or(0)
    }

    /// Which queue's tail register `off` is, if any.
    fn tail_queue(&self, off: u64) -> Option<u32> {
        let tail0 = NQ_TAIL_PTR;
        let rel = off.checked_sub(tail0)?;
        match self.flavour {
            Flavour::SingleQueue => (rel == 0).then_some(0),
            Flavour::TenQueue => (rel % NQ_STRIDE == 0 && rel / NQ_STRIDE < NQ_COUNT as u64)
                .then_some((rel / NQ_STRIDE) as u32),
        }
    }

    /// `(ring bus address, capacity)` as programmed for queue `idx`.
    fn geometry(&self, idx: u32) -> (u64, u64) {
        let w = self.window(idx);
        let lo = self.raw(NQ_BASE_ADDR_LO + w) as u64;
        let hi = self.raw(NQ_BASE_ADDR_HI + w) as u64;
        let size = self.raw(NQ_F_SIZE + w) as u64;
        ((hi << 32) | lo, size / 16)
    }

    fn enabled(&self, idx: u32) -> bool {
        self.raw(NQ_ENABLE) & (1 << idx) != 0
    }

    /// Post up to `n` notifications on queue `idx`; returns how many were
    /// written (fewer when the queue is disabled, full, stalled or
    /// unconfigured). Memory errors (a ring outside every attached buffer
    /// that is not device memory either, or an entry past the end of the
    /// 64-bit address space: [`Error::OutOfWindow`]) stop the post.
    pub fn post(&mut self, bus: &mut Bus<'_>, idx: u32, n: u32) -> Result<u32> {
        if idx >= self.queue_count() {
            return Err(Error::out_of_range(
                "model nq index",
                idx as u64,
                self.queue_count() as u64,
            ));
        }
        let (base, cap) = self.geometry(idx);
        let head_slot = (self.raw(NQ_HEAD_PTR + self.window(idx)) / 16) as u64;
        let mut done = 0;
        for _ in 0..n {
            let Some(q) = self.queues.get(idx as usize).copied() else {
                break;
            };
            if !self.enabled(idx) || cap == 0 || q.fault == QueueFault::Stall {
                break;
            }
            let slot = q.written % cap;
            let pending = (slot + cap - head_slot % cap) % cap;
            if q.fault != QueueFault::Overrun && pending >= cap - 1 {
                break; // back-pressure: the ring is full
            }
            let first_pass = (q.written / cap) % 2 == 0;
            let phase_byte = if first_pass { 0x80 } else { 0x00 };
            let mut e = [0u8; 16];
            e[0] = idx as u8;
            e[SEQ_BYTES].copy_from_slice(&q.seq.to_le_bytes());
            // A ring whose entry would pass the end of the address space is
            // refused, typed (the register values are the consumer's).
            let addr = slot
                .checked_mul(16)
                .and_then(|o| base.checked_add(o))
                .filter(|a| a.checked_add(15).is_some())
                .ok_or(Error::out_of_window(base))?;
            // Everything but the phase byte first, the phase byte last [FACTS §11].
            bus.write_mem(addr, &e[..3])?;
            bus.write_mem(addr + 4, &e[4..])?;
            match q.fault {
                QueueFault::SlowDma { delay_ns } => self.in_flight.push(InFlight {
                    due_ns: bus.now_ns.saturating_add(delay_ns),
                    addr: addr + 3,
                    byte: phase_byte,
                    queue: idx,
                }),
                _ => bus.write_mem(addr + 3, &[phase_byte])?,
            }
            let written = q.written + 1;
            if let Some(qm) = self.queues.get_mut(idx as usize) {
                qm.written = written;
                qm.seq += 1;
                qm.tail = ((written % cap) * 16) as u32;
            }
            done += 1;
        }
        // Entries whose phase byte landed are visible: interrupt (slow DMA
        // interrupts when its bytes land, in `land`).
        let slow = matches!(
            self.queues.get(idx as usize).map(|q| q.fault),
            Some(QueueFault::SlowDma { .. })
        );
        if done > 0 && !slow {
            self.interrupt(idx);
        }
        Ok(done)
    }

    /// Land the in-flight phase bytes that are due (or, with `force`, those
    /// of the queues `force` selects).
    fn land(&mut self, bus: &mut Bus<'_>, force: impl Fn(u32) -> bool) {
        let now = bus.now_ns;
        let mut keep = Vec::with_capacity(self.in_flight.len());
        for f in self.in_flight.drain(..) {
            if f.due_ns <= now || force(f.queue) {
                // A ring outside memory was refused at post time already.
                let _ = bus.write_mem(f.addr, &[f.byte]);
                if let Some(Some(s)) = self.interrupts.get(f.queue as usize) {
                    s.signal();
                }
            } else {
                keep.push(f);
            }
        }
        self.in_flight = keep;
    }

    /// Queue `idx` was disabled: drop its in-flight writes, drain its tail
    /// to 0 and restart at slot 0, first pass (unless stalled).
    fn quiesce(&mut self, idx: u32) {
        self.in_flight.retain(|f| f.queue != idx);
        if let Some(q) = self.queues.get_mut(idx as usize) {
            if q.fault != QueueFault::Stall {
                q.tail = 0;
                q.written = 0;
            }
        }
    }
}

impl Block for NotificModel {
    fn name(&self) -> &'static str {
        "notific"
    }

    fn size(&self) -> u64 {
        BLOCK_BYTES
    }

    fn read(&mut self, off: u64, _bus: &mut Bus<'_>) -> u32 {
        match self.tail_queue(off) {
            Some(q) => match self.queues.get(q as usize) {
                Some(Queue {
                    fault: QueueFault::LieTail(v),
                    ..
                }) => *v,
                Some(q) => q.tail,
                None => 0,
            },
            None => self.raw(off),
        }
    }

    fn write(&mut self, off: u64, value: u32, bus: &mut Bus<'_>) {
        if self.tail_queue(off).is_some() {
            return; // the tail is the device's
        }
        let old = self.raw(off);
        if let Some(r) = self.regs.get_mut((off / 4) as usize) {
            *r = value;
        }
        if off == NQ_ENABLE {
            let cleared = old & !value;
            for idx in 0..self.queue_count() {
                if cleared & (1 << idx) != 0 {
                    self.quiesce(idx);
                }
            }
        }
        if off == COAL_CTRL && value & COAL_CTRL_CLR != 0 {
            self.coalescer_clears += 1;
            self.land(bus, |q| q <= 3);
        }
    }

    fn tick(&mut self, bus: &mut Bus<'_>) {
        if !self.in_flight.is_empty() {
            self.land(bus, |_| false);
        }
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// A [`DmaMemory`](khal_core::dma::DmaMemory) view of device memory (HBM) of a
/// [`DeviceModel`](super::DeviceModel): what a
/// host reads a device-memory NQ ring through (on real hardware, a BAR
/// mapping of the HBM). The same view the DMA allocator hands out for device
/// DRAM: one implementation, [`crate::ModelDramBuf`].
pub type DeviceMemView<'a> = crate::dma::ModelDramBuf<'a>;

#[cfg(test)]
mod tests {
    use super::super::DeviceModel;
    use super::*;
    use crate::{DmaBuf, SimDelay};
    use embedded_hal::delay::DelayNs;
    use khal_core::dma::DmaMemory;
    use khal_core::{DeviceAddr, Mmio};
    use std::sync::Arc;

    const B: DeviceAddr = DeviceAddr(0x10_0000);

    fn setup(flavour: Flavour, idx: u32) -> (DeviceModel, Arc<DmaBuf>) {
        let m = DeviceModel::new();
        m.mount(B, NotificModel::new(flavour)).unwrap();
        let buf = Arc::new(DmaBuf::new(64, 64).unwrap());
        m.attach_host(buf.clone());
        let w = if flavour == Flavour::TenQueue {
            idx as u64 * 40
        } else {
            0
        };
        m.write32(B.add(0x100 + w), buf.bus_addr() as u32).unwrap();
        m.write32(B.add(0x104 + w), (buf.bus_addr() >> 32) as u32)
            .unwrap();
        m.write32(B.add(0x108 + w), 64).unwrap();
        (m, buf)
    }

    #[test]
    fn posts_entries_phase_last_and_advances_the_tail() {
        let (m, buf) = setup(Flavour::TenQueue, 2);
        let post = |n| {
            m.with_block(B, |nm: &mut NotificModel, bus| nm.post(bus, 2, n))
                .unwrap()
        };
        assert_eq!(post(1), Ok(0)); // disabled
        m.write32(B.add(0x14), 1 << 2).unwrap();
        assert_eq!(post(5), Ok(3)); // capacity 4: at most 3 pending
        assert_eq!(m.read32(B.add(0x110 + 80)), Ok(48));
        let mut e = [0u8; 16];
        buf.read(16, &mut e).unwrap();
        assert_eq!((e[0], e[3], entry_seq(&e)), (2, 0x80, 1));
        m.write32(B.add(0x10C + 80), 48).unwrap(); // consumer caught up
        assert_eq!(post(2), Ok(2)); // wraps: slot 3 pass 0, slot 0 pass 1
        buf.read(0, &mut e).unwrap();
        assert_eq!((e[3], entry_seq(&e)), (0x00, 4));
        assert_eq!(m.read32(B.add(0x110 + 80)), Ok(16));
        // Disable: the tail drains to 0 and the queue restarts.
        m.write32(B.add(0x14), 0).unwrap();
        assert_eq!(m.read32(B.add(0x110 + 80)), Ok(0));
        assert_eq!(
            m.with_block(B, |nm: &mut NotificModel, _| nm.written(2)),
            Some(0)
        );
    }

    #[test]
    fn slow_dma_lands_the_phase_later_and_clear_flushes_it() {
        let (m, buf) = setup(Flavour::SingleQueue, 0);
        m.write32(B.add(0x14), 1).unwrap();
        m.with_block(B, |nm: &mut NotificModel, _| {
            nm.set_fault(0, QueueFault::SlowDma { delay_ns: 1_000 })
        });
        let n = m
            .with_block(B, |nm: &mut NotificModel, bus| nm.post(bus, 0, 2))
            .unwrap();
        assert_eq!(n, Ok(2));
        assert_eq!(m.read32(B.add(0x110)), Ok(32));
        assert_eq!(buf.load_u8(3), Ok(0));
        SimDelay::new(&m).delay_ns(999);
        assert_eq!(buf.load_u8(3), Ok(0));
        SimDelay::new(&m).delay_ns(1);
        assert_eq!(buf.load_u8(3), Ok(0x80));
        assert_eq!(buf.load_u8(19), Ok(0x80));
        // A coalescer clear flushes in-flight writes of queues 0..=3 at once.
        let n = m
            .with_block(B, |nm: &mut NotificModel, bus| nm.post(bus, 0, 1))
            .unwrap();
        assert_eq!(n, Ok(1));
        assert_eq!(buf.load_u8(35), Ok(0));
        m.write32(B.add(0xB8), 0x200).unwrap();
        assert_eq!(buf.load_u8(35), Ok(0x80));
    }

    #[test]
    fn a_ring_at_the_end_of_the_address_space_is_refused_typed() {
        let m = DeviceModel::new();
        m.mount(B, NotificModel::new(Flavour::SingleQueue)).unwrap();
        m.write32(B.add(0x14), 1).unwrap();
        m.write32(B.add(0x108), 64).unwrap();
        // Base 2^64 - 32: slots 0 and 1 fit, slot 2 would wrap.
        m.write32(B.add(0x100), 0xFFFF_FFE0).unwrap();
        m.write32(B.add(0x104), 0xFFFF_FFFF).unwrap();
        let post = |n| {
            m.with_block(B, |nm: &mut NotificModel, bus| nm.post(bus, 0, n))
                .unwrap()
        };
        assert_eq!(post(2), Ok(2));
        m.write32(B.add(0x10C), 32).unwrap(); // consumer caught up
        assert_eq!(post(1), Err(Error::out_of_window(u64::MAX - 31)));
        // Base 2^64 - 8: the first entry already wraps.
        m.write32(B.add(0x100), 0xFFFF_FFF8).unwrap();
        m.write32(B.add(0x14), 0).unwrap(); // restart at slot 0
        m.write32(B.add(0x10C), 0).unwrap();
        m.write32(B.add(0x14), 1).unwrap();
        assert_eq!(post(1), Err(Error::out_of_window(u64::MAX - 7)));
        // A slow DMA delay of u64::MAX does not overflow the clock.
        m.write32(B.add(0x100), 0x1000).unwrap();
        m.write32(B.add(0x104), 0).unwrap();
        m.with_block(B, |nm: &mut NotificModel, _| {
            nm.set_fault(0, QueueFault::SlowDma { delay_ns: u64::MAX })
        });
        SimDelay::new(&m).delay_ns(5);
        assert_eq!(post(1), Ok(1));
    }

    #[test]
    fn stall_and_lie() {
        let (m, _buf) = setup(Flavour::TenQueue, 1);
        m.write32(B.add(0x14), 2).unwrap();
        m.with_block(B, |nm: &mut NotificModel, bus| nm.post(bus, 1, 1))
            .unwrap()
            .unwrap();
        m.with_block(B, |nm: &mut NotificModel, _| {
            nm.set_fault(1, QueueFault::Stall)
        });
        let n = m
            .with_block(B, |nm: &mut NotificModel, bus| nm.post(bus, 1, 1))
            .unwrap();
        assert_eq!(n, Ok(0));
        m.write32(B.add(0x14), 0).unwrap();
        assert_eq!(m.read32(B.add(0x110 + 40)), Ok(16)); // never drains
        m.with_block(B, |nm: &mut NotificModel, _| {
            nm.set_fault(1, QueueFault::LieTail(7))
        });
        assert_eq!(m.read32(B.add(0x110 + 40)), Ok(7));
        m.write32(B.add(0xB8), 0x200).unwrap();
        assert_eq!(
            m.with_block(B, |nm: &mut NotificModel, _| nm.coalescer_clears()),
            Some(1)
        );
    }
}
