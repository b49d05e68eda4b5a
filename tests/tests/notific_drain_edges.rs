//! NQ drain edges that mutation testing found unguarded (docs/TESTING.md,
//! "Mutation testing"): exact MMIO traces and exact entries of `drain` and
//! `drain_iter` [004 §3], [FACTS §11], through `Trace<HeapMmio>` (a plain
//! register file: the test sets the tail register and writes the device's
//! entries into the ring's `DmaBuf` itself).

use std::cell::RefCell;

use khal_core::dma::DmaMemory;
use khal_core::notific::NqEntry;
use khal_core::notific::{ConsumeKind, NotificBlocks, NotificEngine, NqConfig, NqRing};
/// The phase bit's byte and mask in an entry (bit 7 of byte 3) [004 §3].
const PHASE_BYTE: usize = 3;
const PHASE_MASK: u8 = 0x80;
use khal_core::Fault;
use khal_core::{Error, Mmio};
use khal_std::Op::{Read as R, Write as W};
use khal_std::SimClock;
use khal_std::{DmaBuf, HeapMmio, SimDelay, Trace};
use khal_tests::nq::{self, traced, BASE, HEAD, TAIL};

/// A host ring of `cap` entries on queue 3, `max_batch` entries a call;
/// the trace cleared (what follows is the drain's alone).
fn ring<K: ConsumeKind>(
    t: &Trace<HeapMmio>,
    kind: fn(u32) -> NqConfig<K>,
    cap: u32,
    max_batch: u32,
) -> NqRing<'static, DmaBuf, &Trace<HeapMmio>, K> {
    nq::ring(t, kind, cap, Some(max_batch))
}

/// Entry `seq`'s 16 bytes: each byte `seq`, the phase byte `0x11` with the
/// phase bit `phase` [004 §3].
fn entry(seq: u8, phase: bool) -> [u8; 16] {
    let mut e = [seq; 16];
    e[PHASE_BYTE] = 0x11 | if phase { PHASE_MASK } else { 0 };
    e
}

/// The device posts entry `seq` into `slot` with phase bit `phase`.
fn post<K: ConsumeKind>(
    ring: &NqRing<DmaBuf, &Trace<HeapMmio>, K>,
    slot: usize,
    seq: u8,
    phase: bool,
) {
    ring.memory().write(slot * 16, &entry(seq, phase)).unwrap();
}

/// An empty request touches no register: `drain_iter` with `max == 0` on a
/// tail ring does not read the tail (nothing may be taken; `drain` with an
/// empty `out` reads nothing either, notific/drain.rs's cost model), yields
/// nothing and writes no head.
#[test]
fn an_empty_drain_iter_on_a_tail_ring_reads_no_register() {
    let t = traced();
    let mut r = ring(&t, NqConfig::tail, 16, 8);
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

/// Ring memory that logs every access the ring makes (method and offset)
/// and forwards it to a `DmaBuf`: its byte accesses (no words, so the ring
/// reads through them).
struct Logged {
    buf: DmaBuf,
    log: RefCell<Vec<(&'static str, usize)>>,
}

impl DmaMemory for Logged {
    fn bus_addr(&self) -> u64 {
        self.buf.bus_addr()
    }
    fn len(&self) -> usize {
        self.buf.len()
    }
    fn load_u8(&self, offset: usize) -> khal_core::Result<u8> {
        self.log.borrow_mut().push(("load_u8", offset));
        self.buf.load_u8(offset)
    }
    fn read(&self, offset: usize, out: &mut [u8]) -> khal_core::Result<()> {
        self.log.borrow_mut().push(("read", offset));
        self.buf.read(offset, out)
    }
    fn write(&self, offset: usize, data: &[u8]) -> khal_core::Result<()> {
        self.log.borrow_mut().push(("write", offset));
        self.buf.write(offset, data)
    }
    fn zero(&self) -> khal_core::Result<()> {
        self.log.borrow_mut().push(("zero", 0));
        self.buf.zero()
    }
}

/// Phase mode's idle poll [004 §3], [FACTS §11] (notific/ring.rs
/// `next_is_new`): one load of the phase byte of the entry at `next` and
/// nothing else — no copy, no register access — through the batch path (an
/// `out` of 4, `max_batch` 8), at slot 0, at slot 3, and on the second
/// pass (consumer phase flipped).
#[test]
fn an_idle_phase_poll_is_one_phase_byte_load_and_no_register() {
    let t = traced();
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init_raw(&t, Some(&mut block), 10, 0, 0).unwrap();
    let mem = Logged {
        buf: DmaBuf::new(4 * 16, 4096).unwrap(),
        log: RefCell::new(Vec::new()),
    };
    let cfg = NqConfig::phase(4 * 16).with_max_batch(8);
    let mut r = NqRing::host(mem, e.queue(3).unwrap(), cfg).unwrap();
    t.clear();
    let mut out = [NqEntry::default(); 4];
    let idle = |r: &mut NqRing<Logged, &Trace<HeapMmio>>| {
        r.memory().log.borrow_mut().clear();
        let mut out = [NqEntry::default(); 4];
        assert_eq!(r.drain(&mut out), Ok(0));
        r.memory().log.take()
    };
    assert_eq!(idle(&mut r), vec![("load_u8", PHASE_BYTE)]);
    // Three entries taken: the next idle poll loads slot 3's phase byte.
    for slot in 0..3 {
        r.memory()
            .buf
            .write(slot * 16, &entry(slot as u8, true))
            .unwrap();
    }
    assert_eq!(r.drain(&mut out), Ok(3));
    assert_eq!(idle(&mut r), vec![("load_u8", 3 * 16 + PHASE_BYTE)]);
    // Slot 3 taken: the consumer wraps, and the second pass's new entries
    // carry phase 0 [FACTS §11]. Slot 0 still holds the first pass's entry
    // (phase 1): old, so the poll is again one load.
    r.memory().buf.write(3 * 16, &entry(3, true)).unwrap();
    assert_eq!(r.drain(&mut out), Ok(1));
    assert_eq!(idle(&mut r), vec![("load_u8", PHASE_BYTE)]);
    r.memory().buf.write(0, &entry(4, false)).unwrap();
    assert_eq!(r.drain(&mut out), Ok(1));
    assert_eq!(out[0].bytes(), &entry(4, false));
    assert_eq!(
        t.ops(),
        vec![(W, HEAD, 3 * 16), (W, HEAD, 0), (W, HEAD, 16)]
    );
}

/// A hostile device that has written past the wrap while the entry before
/// it is not new (out of order, or rewritten): the drain stops at the first
/// entry that is not new and hands out nothing past it [004 §3], [FACTS §11]
/// — not the new-looking entry after the wrap, in either drain.
#[test]
fn nothing_past_an_entry_that_is_not_new_even_after_the_wrap() {
    for use_iter in [false, true] {
        let t = traced();
        let mut r = ring(&t, NqConfig::phase, 4, 8);
        let mut out = [NqEntry::default(); 4];
        post(&r, 0, 0, true);
        post(&r, 1, 1, true);
        assert_eq!(r.drain(&mut out), Ok(2));
        // Slot 2 new, slot 3 not (phase 0 on the first pass), slot 0 with
        // the second pass's phase (0): it looks new to the run after the wrap.
        post(&r, 2, 2, true);
        post(&r, 3, 3, false);
        post(&r, 0, 4, false);
        t.clear();
        let got: Vec<NqEntry> = if use_iter {
            let mut it = r.drain_iter(4).unwrap();
            let got = it.by_ref().map(|x| x.unwrap()).collect();
            it.finish().unwrap();
            got
        } else {
            let n = r.drain(&mut out).unwrap();
            out[..n].to_vec()
        };
        assert_eq!(
            got,
            vec![NqEntry::from_bytes(entry(2, true))],
            "iter {use_iter}"
        );
        assert_eq!(r.next_index(), 3, "iter {use_iter}");
        assert_eq!(t.ops(), vec![(W, HEAD, 3 * 16)], "iter {use_iter}");
    }
}

/// Phase mode's count of pending entries (`available_count`, no register
/// read [004 §3]) walks the run before the wrap and the run after it, each
/// with its own phase [FACTS §11]: exact counts from slot 5 of 8, and a
/// count that stops at an entry that is not new, whatever follows the wrap.
#[test]
fn phase_available_count_walks_both_runs_and_stops_at_an_old_entry() {
    let t = traced();
    let mut r = ring(&t, NqConfig::phase, 8, 8);
    let mut out = [NqEntry::default(); 8];
    for slot in 0..5 {
        post(&r, slot, slot as u8, true);
    }
    assert_eq!(r.drain(&mut out[..5]), Ok(5));
    // Slots 5..8 of the first pass (phase 1), then 0..3 of the second (phase 0).
    for slot in 5..8 {
        post(&r, slot, slot as u8, true);
    }
    for slot in 0..3 {
        post(&r, slot, 8 + slot as u8, false);
    }
    t.clear();
    assert_eq!(r.available_count(), Ok(6));
    // Slot 6 not new: the count is 1 (slot 5), the second pass's entries
    // after the wrap not counted.
    post(&r, 6, 6, false);
    assert_eq!(r.available_count(), Ok(1));
    assert_eq!(t.ops(), vec![]);
}

/// A tail that moves backwards while entries it showed are unconsumed is a
/// typed fault [004 §3] naming the slot the previous read showed, wrapped
/// into the ring: consumer at slot 3 of 4 with one entry known (the previous
/// tail was slot 0, past the wrap), then a tail of slot 3.
#[test]
fn a_tail_moving_backwards_names_the_previous_tail_wrapped() {
    let t = traced();
    let mut r = ring(&t, NqConfig::tail, 4, 8);
    let clock = SimClock::new();
    let mut d = SimDelay::new(&clock);
    let mut out = [NqEntry::default(); 4];
    for slot in 0..2 {
        post(&r, slot, slot as u8, true);
    }
    t.inner().write32(BASE.add(TAIL), 2 * 16).unwrap();
    assert_eq!(r.drain(&mut d, &mut out), Ok(2));
    // Slots 2 and 3 pending (tail at slot 0); one taken, one known.
    for slot in 2..4 {
        post(&r, slot, slot as u8, true);
    }
    t.inner().write32(BASE.add(TAIL), 0).unwrap();
    assert_eq!(r.drain(&mut d, &mut out[..1]), Ok(1));
    assert_eq!(r.next_index(), 3);
    t.inner().write32(BASE.add(TAIL), 3 * 16).unwrap();
    t.clear();
    assert_eq!(
        r.available_count(&mut d),
        Err(Error::DeviceFault(Fault::TailMovedBackwards {
            tail: 3 * 16,
            previous: 0,
        }))
    );
    assert_eq!(t.ops(), vec![(R, TAIL, 3 * 16)]);
}

/// A drain across the wrap hands back the slot after the last entry taken,
/// in bytes [004 §3]: from slot 3 of 4, two entries (slot 3, slot 0 of the
/// second pass), head `0x10`.
#[test]
fn a_drain_across_the_wrap_writes_the_head_of_the_slot_after_it() {
    let t = traced();
    let mut r = ring(&t, NqConfig::phase, 4, 8);
    let mut out = [NqEntry::default(); 4];
    for slot in 0..3 {
        post(&r, slot, slot as u8, true);
    }
    assert_eq!(r.drain(&mut out), Ok(3));
    post(&r, 3, 3, true);
    post(&r, 0, 4, false);
    t.clear();
    assert_eq!(r.drain(&mut out), Ok(2));
    assert_eq!(out[0].bytes(), &entry(3, true));
    assert_eq!(out[1].bytes(), &entry(4, false));
    assert_eq!(r.next_index(), 1);
    assert_eq!(t.ops(), vec![(W, HEAD, 16)]);
}
