//! NQ drain edges that mutation testing found unguarded (docs/TESTING.md,
//! "Mutation testing"): exact MMIO traces and exact entries of `drain` and
//! `drain_iter` [004 §3], [FACTS §11], through `Trace<HeapMmio>` (a plain
//! register file: the test sets the tail register and writes the device's
//! entries into the ring's `DmaBuf` itself).

use khal_core::dma::DmaMemory;
use khal_core::notific::entry::{NqEntry, PHASE_BYTE, PHASE_MASK};
use khal_core::notific::regs::{self, NOTIFIC};
use khal_core::notific::{ConsumeMode, NotificEngine, NqConfig, NqRing};
use khal_core::{DeviceAddr, Mmio};
use khal_std::delay::SimClock;
use khal_std::trace::Op::{Read as R, Write as W};
use khal_std::{DmaBuf, HeapMmio, SimDelay, Trace};

const BASE: DeviceAddr = DeviceAddr(0x3053_5000);
/// Queue 3 of the 10-queue flavour: its tail and head registers [004 §2]
/// (`0x110` / `0x10C` + 40 per queue).
const TAIL: u64 = 0x110 + 3 * 40;
const HEAD: u64 = 0x10C + 3 * 40;

fn traced() -> Trace<HeapMmio> {
    Trace::new(HeapMmio::new(BASE, regs::NOTIFIC_BLOCK_BYTES as usize)).with_block(
        BASE,
        regs::NOTIFIC_BLOCK_BYTES,
        &NOTIFIC,
    )
}

/// A host ring of `cap` entries on queue 3, `max_batch` entries a call;
/// the trace cleared (what follows is the drain's alone).
fn ring(
    t: &Trace<HeapMmio>,
    mode: ConsumeMode,
    cap: u32,
    max_batch: u32,
) -> NqRing<DmaBuf, &Trace<HeapMmio>> {
    let mut e = NotificEngine::init_raw(t, Some(BASE), 10, 0, 0).unwrap();
    let buf = DmaBuf::new(cap as usize * 16, 4096).unwrap();
    let cfg = NqConfig::new(cap * 16, mode).with_max_batch(max_batch);
    let ring = NqRing::host(buf, e.queue(3).unwrap(), cfg).unwrap();
    t.clear();
    ring
}

/// Entry `seq`'s 16 bytes: each byte `seq`, the phase byte `0x11` with the
/// phase bit `phase` [004 §3].
fn entry(seq: u8, phase: bool) -> [u8; 16] {
    let mut e = [seq; 16];
    e[PHASE_BYTE] = 0x11 | if phase { PHASE_MASK } else { 0 };
    e
}

/// The device posts entry `seq` into `slot` with phase bit `phase`.
fn post(ring: &NqRing<DmaBuf, &Trace<HeapMmio>>, slot: usize, seq: u8, phase: bool) {
    ring.memory().write(slot * 16, &entry(seq, phase)).unwrap();
}

/// An empty request touches no register: `drain_iter` with `max == 0` on a
/// tail ring does not read the tail (nothing may be taken; `drain` with an
/// empty `out` reads nothing either, notific/drain.rs's cost model), yields
/// nothing and writes no head.
#[test]
fn an_empty_drain_iter_on_a_tail_ring_reads_no_register() {
    let t = traced();
    let mut r = ring(&t, ConsumeMode::Tail, 16, 8);
    // Entries are pending: the tail says 2.
    t.inner().write32(BASE.add(TAIL), 2 * 16).unwrap();
    post(&r, 0, 0, true);
    post(&r, 1, 1, true);
    t.clear();
    let clock = SimClock::new();
    let mut d = SimDelay::new(&clock);
    let mut it = r.drain_iter(&mut d, 0).unwrap();
    assert!(it.next().is_none());
    assert_eq!(it.finish(), Ok(0));
    drop(it);
    assert_eq!(t.ops(), vec![]);
    // The entries are still there for the next call: one tail read, one head write.
    let mut out = [NqEntry::default(); 4];
    assert_eq!(r.drain(&mut d, &mut out), Ok(2));
    assert_eq!(t.ops(), vec![(R, TAIL, 2 * 16), (W, HEAD, 2 * 16)]);
    assert_eq!(
        (out[0].bytes(), out[1].bytes()),
        (&entry(0, true), &entry(1, true))
    );
}
