//! A drain whose head write is refused consumes nothing: the head is written
//! before the cursor moves, so the entries stay pending for the next call.
//! Found by the `nq_consumer` fuzz target (its crash input is kept as a seed
//! in `fuzz/corpus/nq_consumer/`) when a single-queue ring could still be
//! built on a queue index other than 0 and its head write was refused; such
//! a ring cannot be built any more (the engine refuses the token,
//! `notific_golden::single_queue_refuses_an_index_other_than_0_before_any_write`),
//! so the refusal here comes from the window.

use std::cell::Cell;

use khal_core::notific::{
    BpMode, EngineConfig, NotificBlocks, NotificEngine, NqConfig, NqEntry, NqRing,
};
/// The phase bit's byte and mask in an entry (bit 7 of byte 3) [004 §3].
const PHASE_BYTE: usize = 3;
const PHASE_MASK: u8 = 0x80;
use khal_core::{DeviceAddr, Error, Mmio, Result};
use khal_std::{DmaBuf, HeapMmio, SimDelay, Trace};
use khal_tests::nq::{traced, BASE};

use khal_core::dma::DmaMemory;

/// A window that refuses writes to one address while `refuse` is set.
struct RefuseAt<'t> {
    inner: &'t Trace<HeapMmio>,
    addr: DeviceAddr,
    refuse: Cell<bool>,
}

impl Mmio for RefuseAt<'_> {
    fn read32(&self, addr: DeviceAddr) -> Result<u32> {
        self.inner.read32(addr)
    }
    fn write32(&self, addr: DeviceAddr, value: u32) -> Result<()> {
        if self.refuse.get() && addr == self.addr {
            return Err(Error::out_of_window(addr.get()));
        }
        self.inner.write32(addr, value)
    }
}

#[test]
fn a_refused_head_write_consumes_nothing() {
    let t = traced();
    // One queue: the single-queue flavour; its head has no stride.
    let w = RefuseAt {
        inner: &t,
        addr: BASE.add(0x10C),
        refuse: Cell::new(true),
    };
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init(&w, &mut block, EngineConfig::top_sp(BpMode::All)).unwrap();
    let buf = DmaBuf::new(256, 4096).unwrap();
    // Publish the first three entries of the device's first lap (phase 1).
    for i in 0..3 {
        let mut raw = [0u8; 16];
        raw[0] = i as u8 + 1;
        raw[PHASE_BYTE] = PHASE_MASK;
        buf.write(i * 16, &raw).unwrap();
    }
    let queue = e.queue(0).unwrap();
    let mut ring = NqRing::host(buf, queue, NqConfig::phase(256)).unwrap();
    t.clear();

    let mut out = [NqEntry::default(); 8];
    let r = ring.drain(&mut out);
    assert_eq!(r, Err(Error::out_of_window(BASE.get() + 0x10C)));
    // Nothing consumed, nothing written.
    assert_eq!((ring.next_index(), ring.phase()), (0, false));
    assert!(t.ops().iter().all(|(op, _, _)| *op != khal_std::Op::Write));
    // Once the window takes the write, the same three entries come, once.
    w.refuse.set(false);
    assert_eq!(ring.drain(&mut out), Ok(3));
    assert_eq!(
        out[..3].iter().map(|e| e.bytes()[0]).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    assert_eq!(ring.next_index(), 3);
    assert_eq!(ring.drain(&mut out), Ok(0));
}

/// The same at the ring's end, for each way a drain reaches it: an `out`
/// filled by the last slot's entry (the wrap's own commit), an `out` of
/// more (the run after the wrap, none new), and the entry before the last
/// taken alone after the next was tested. A refused head write leaves the
/// cursor and the phase as they were; the retry takes the same entry once.
#[test]
fn a_refused_head_write_at_the_ring_end_consumes_nothing() {
    let t = traced();
    let w = RefuseAt {
        inner: &t,
        addr: BASE.add(0x10C),
        refuse: Cell::new(false),
    };
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init(&w, &mut block, EngineConfig::top_sp(BpMode::All)).unwrap();
    let queue = e.queue(0).unwrap();
    // A ring of 4 entries, `max_batch` 4.
    let cfg = NqConfig::phase(64).with_max_batch(4);
    let mut ring = NqRing::host(DmaBuf::new(64, 4096).unwrap(), queue, cfg).unwrap();
    let clock = khal_std::SimClock::new();
    let mut d = SimDelay::new(&clock);
    let post = |ring: &NqRing<DmaBuf, &RefuseAt>, slot: usize, seq: u8| {
        let mut raw = [seq; 16];
        raw[PHASE_BYTE] = PHASE_MASK;
        ring.memory().write(slot * 16, &raw).unwrap();
    };
    for len in [1usize, 2, 16] {
        let mut out = vec![NqEntry::default(); len];
        // The cursor at slot 2 of the first pass (entries 0 and 1 taken).
        let start = ring.next_index();
        assert_eq!(start, 0, "out {len}");
        for slot in 0..2 {
            post(&ring, slot, slot as u8 + 1);
            assert_eq!(ring.drain(&mut out), Ok(1), "out {len}");
        }
        // Slot 2 alone (the next tested, not new), then slot 3 alone (the
        // last), each first refused.
        for slot in 2..4 {
            post(&ring, slot, slot as u8 + 1);
            w.refuse.set(true);
            assert_eq!(
                ring.drain(&mut out),
                Err(Error::out_of_window(BASE.get() + 0x10C)),
                "out {len} slot {slot}"
            );
            assert_eq!((ring.next_index(), ring.phase()), (slot as u32, false));
            w.refuse.set(false);
            assert_eq!(ring.drain(&mut out), Ok(1), "out {len} slot {slot}");
            assert_eq!(out[0].bytes()[0], slot as u8 + 1);
        }
        assert_eq!((ring.next_index(), ring.phase()), (0, true), "out {len}");
        assert_eq!(ring.drain(&mut out), Ok(0));
        // The ring back to its first pass's phase: zero it and reset.
        ring.reset(&mut e, &mut d).unwrap();
    }
}
