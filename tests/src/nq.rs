//! The traced NQ set-up of the notific tests: a notific block at [`BASE`]
//! over a plain register file, recorded by `Trace` ([`traced`]: every
//! `notific_*` test that records its accesses), and for the drain tests
//! (`notific_trickle.rs`, `notific_drain_edges.rs`) a 10-queue host ring on
//! its queue 3.

use embedded_hal::delay::DelayNs;
use khal_core::dma::DmaMemory;
use khal_core::notific::{
    ConsumeKind, DeviceZero, Drain, NotificBlocks, NotificEngine, NqConfig, NqRing, Phase, Tail,
    NOTIFIC, NOTIFIC_BLOCK_BYTES,
};
use khal_core::{DeviceAddr, Mmio, Result};
use khal_std::{DmaBuf, HeapMmio, Trace};

/// The notific block's base.
pub const BASE: DeviceAddr = DeviceAddr(0x3053_5000);
/// Queue 3's tail register of the 10-queue flavour [004 §2] (`0x110` + 40
/// per queue).
pub const TAIL: u64 = 0x110 + 3 * 40;
/// Queue 3's head register of the 10-queue flavour [004 §2] (`0x10C` + 40
/// per queue).
pub const HEAD: u64 = 0x10C + 3 * 40;

/// A traced register file holding the notific block at [`BASE`].
pub fn traced() -> Trace<HeapMmio> {
    Trace::new(HeapMmio::new(BASE, NOTIFIC_BLOCK_BYTES as usize)).with_block(
        BASE,
        NOTIFIC_BLOCK_BYTES,
        &NOTIFIC,
    )
}

/// A host ring of `cap` entries on queue 3 over `mem` entries of memory
/// (`mem >= cap`), of the kind `kind` builds (`NqConfig::phase` or
/// `NqConfig::tail`), `max_batch` given or the default; the trace cleared
/// (what follows is the test's alone). The block is the trace's own (each
/// trace is a device of its own), leaked so that the ring can outlive this
/// call.
pub fn ring_in<K: ConsumeKind>(
    t: &Trace<HeapMmio>,
    kind: fn(u32) -> NqConfig<K>,
    cap: u32,
    mem: u32,
    max_batch: Option<u32>,
) -> NqRing<'static, DmaBuf, &Trace<HeapMmio>, K> {
    let blocks: &'static NotificBlocks = Box::leak(Box::new(NotificBlocks::new()));
    let block = Box::leak(Box::new(blocks.take(BASE).unwrap()));
    let mut e = NotificEngine::init_raw(t, Some(block), 10, 0, 0).unwrap();
    let buf = DmaBuf::new(mem as usize * 16, 4096).unwrap();
    let mut cfg = kind(cap * 16);
    if let Some(b) = max_batch {
        cfg = cfg.with_max_batch(b);
    }
    let ring = NqRing::host(buf, e.queue(3).unwrap(), cfg).unwrap();
    t.clear();
    ring
}

/// [`ring_in`] over exactly the ring's memory.
pub fn ring<K: ConsumeKind>(
    t: &Trace<HeapMmio>,
    kind: fn(u32) -> NqConfig<K>,
    cap: u32,
    max_batch: Option<u32>,
) -> NqRing<'static, DmaBuf, &Trace<HeapMmio>, K> {
    ring_in(t, kind, cap, cap, max_batch)
}

/// The kind-specific drains of a ring for test code generic over its kind:
/// a phase ring's take no delay, a tail ring's take one (`delay` is
/// handed to the tail kind's only).
pub trait Kind: ConsumeKind + Sized {
    /// `NqRing::available_count` of the kind.
    fn available<R: DmaMemory, M: Mmio, Z: DeviceZero, D: DelayNs + ?Sized>(
        ring: &mut NqRing<'_, R, M, Self, Z>,
        delay: &mut D,
    ) -> Result<u32>;

    /// `NqRing::drain_iter` of the kind.
    fn drain_iter<'a, 'd, R: DmaMemory, M: Mmio, Z: DeviceZero, D: DelayNs + ?Sized>(
        ring: &'a mut NqRing<'d, R, M, Self, Z>,
        delay: &mut D,
        max: u32,
    ) -> Result<Drain<'a, 'd, R, M, Self, Z>>;
}

impl Kind for Phase {
    fn available<R: DmaMemory, M: Mmio, Z: DeviceZero, D: DelayNs + ?Sized>(
        ring: &mut NqRing<'_, R, M, Phase, Z>,
        _: &mut D,
    ) -> Result<u32> {
        ring.available_count()
    }

    fn drain_iter<'a, 'd, R: DmaMemory, M: Mmio, Z: DeviceZero, D: DelayNs + ?Sized>(
        ring: &'a mut NqRing<'d, R, M, Phase, Z>,
        _: &mut D,
        max: u32,
    ) -> Result<Drain<'a, 'd, R, M, Phase, Z>> {
        ring.drain_iter(max)
    }
}

impl Kind for Tail {
    fn available<R: DmaMemory, M: Mmio, Z: DeviceZero, D: DelayNs + ?Sized>(
        ring: &mut NqRing<'_, R, M, Tail, Z>,
        delay: &mut D,
    ) -> Result<u32> {
        ring.available_count(delay)
    }

    fn drain_iter<'a, 'd, R: DmaMemory, M: Mmio, Z: DeviceZero, D: DelayNs + ?Sized>(
        ring: &'a mut NqRing<'d, R, M, Tail, Z>,
        delay: &mut D,
        max: u32,
    ) -> Result<Drain<'a, 'd, R, M, Tail, Z>> {
        ring.drain_iter(delay, max)
    }
}
