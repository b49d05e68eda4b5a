//! Tail mode at one entry arriving per call (issue 12): the one-entry path
//! of `NqRing::drain` (one tail read, the entry's phase as its arrival test,
//! the copy from that load, the head written with the tail just read), and
//! the one-at-a-time drain of entries known from an earlier tail read.
//! Exact MMIO traces, exact entries, across wraps; and every hostile-device
//! answer on this path [004 §3], [FACTS §11], through `Trace<HeapMmio>` (the
//! test sets the tail register and writes the device's entries itself).

use std::cell::Cell;

use khal_core::dma::DmaMemory;
use khal_core::notific::NqEntry;
use khal_core::notific::{NotificBlocks, NotificEngine, NqConfig, NqRing, Tail};
/// The phase bit's byte and mask in an entry (bit 7 of byte 3) [004 §3].
const PHASE_BYTE: usize = 3;
const PHASE_MASK: u8 = 0x80;
use khal_core::wait::Budget;
use khal_core::Fault;
use khal_core::{Error, Mmio};
use khal_std::Op::{Read as R, Write as W};
use khal_std::SimClock;
use khal_std::{DmaBuf, HeapMmio, SimDelay, Trace};
use khal_tests::nq::{traced, BASE};

/// Queue 2 of the 10-queue flavour: its tail and head registers [004 §2]
/// (`0x110` / `0x10C` + 40 per queue).
const TAIL: u64 = 0x110 + 2 * 40;
const HEAD: u64 = 0x10C + 2 * 40;
/// A small wait budget: 20 polls of 100 µs.
const SMALL: Budget = Budget {
    period_us: 100,
    polls: 20,
};

/// A tail-mode host ring of `cap` entries on queue 2 over `mem`, `max_batch`
/// entries a call, the small budget; the trace cleared.
fn ring<R: DmaMemory>(
    t: &Trace<HeapMmio>,
    mem: R,
    cap: u32,
    max_batch: u32,
) -> NqRing<'static, R, &Trace<HeapMmio>, Tail> {
    // The block of this device alone, leaked: the ring outlives this call.
    let blocks: &'static NotificBlocks = Box::leak(Box::new(NotificBlocks::new()));
    let block = Box::leak(Box::new(blocks.take(BASE).unwrap()));
    let mut e = NotificEngine::init_raw(t, Some(block), 10, 0, 0).unwrap();
    let cfg = NqConfig::tail(cap * 16)
        .with_max_batch(max_batch)
        .with_budget(SMALL);
    let ring = NqRing::host(mem, e.queue(2).unwrap(), cfg).unwrap();
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

/// The device writes entry `seq` into `slot` with phase bit `phase`.
fn post<R: DmaMemory>(mem: &R, slot: u32, seq: u8, phase: bool) {
    mem.write(slot as usize * 16, &entry(seq, phase)).unwrap();
}

/// The device publishes its tail (a byte offset [FACTS §11]).
fn set_tail(t: &Trace<HeapMmio>, tail: u32) {
    t.inner().write32(BASE.add(TAIL), tail).unwrap();
}

/// One entry arrives per call and the tail moves by one each time, over
/// three passes of a 4-entry ring (the phase the device writes flips per
/// pass, 1 on the first [FACTS §11]): each call is exactly one tail read and
/// one head write of that same tail, and hands out that entry; an idle poll
/// after it (the tail unchanged) is the tail read alone. At every size of
/// `out` and `max_batch` (the one-entry path is taken whatever they are).
#[test]
fn one_entry_per_call_is_one_tail_read_and_one_head_write_across_wraps() {
    for (max_batch, out_len) in [(1, 1), (4, 4), (4, 1), (1, 4)] {
        let t = traced();
        let buf = DmaBuf::new(4 * 16, 4096).unwrap();
        let mut r = ring(&t, &buf, 4, max_batch);
        let clock = SimClock::new();
        let mut d = SimDelay::new(&clock);
        let mut backing = [NqEntry::default(); 4];
        let out = &mut backing[..out_len];
        for seq in 0..12u32 {
            let (slot, pass) = (seq % 4, seq / 4);
            post(&buf, slot, seq as u8, pass % 2 == 0);
            let tail = (slot + 1) % 4 * 16;
            set_tail(&t, tail);
            t.clear();
            assert_eq!(r.drain(&mut d, out), Ok(1), "seq {seq}");
            assert_eq!(out[0].bytes(), &entry(seq as u8, pass % 2 == 0));
            assert_eq!(t.ops(), vec![(R, TAIL, tail), (W, HEAD, tail)]);
            assert_eq!(r.next_index(), (slot + 1) % 4);
            // The consumer phase: completed wraps mod 2.
            assert_eq!(r.phase(), (seq + 1) / 4 % 2 == 1, "seq {seq}");
            t.clear();
            assert_eq!(r.drain(&mut d, out), Ok(0));
            assert_eq!(
                t.ops(),
                vec![(R, TAIL, tail)],
                "an idle poll: the tail read"
            );
        }
        assert_eq!(d.slept_ns(), 0, "every entry had landed: no wait");
    }
}

/// A tail the one-entry path cannot trust yet, at one entry per call, at
/// either size of `out`: an entry it counts that has not landed (the
/// bounded wait, then `Timeout` within the budget), then lies (misaligned,
/// at the ring's end, far outside it, all ones: each its typed fault at
/// once, no wait). Each is the one tail read and nothing else (nothing
/// written or consumed); the truth, the entry landed, drains it once.
#[test]
fn an_untrusted_tail_at_one_per_call_is_its_typed_error_then_the_truth_drains() {
    for out_len in [1, 4] {
        let t = traced();
        let buf = DmaBuf::new(4 * 16, 4096).unwrap();
        let mut r = ring(&t, &buf, 4, 4);
        let clock = SimClock::new();
        let mut d = SimDelay::new(&clock);
        let mut backing = [NqEntry::default(); 4];
        let out = &mut backing[..out_len];
        post(&buf, 0, 0, true);
        set_tail(&t, 16);
        assert_eq!(r.drain(&mut d, out), Ok(1));
        // Slot 1 still holds the zeroed ring's phase 0: not written yet.
        set_tail(&t, 32);
        t.clear();
        assert!(matches!(r.drain(&mut d, out), Err(Error::Timeout(_))));
        assert_eq!(t.ops(), vec![(R, TAIL, 32)]);
        assert_eq!(r.next_index(), 1);
        let slept = d.slept_ns();
        assert!(
            slept > 0 && slept <= SMALL.total_us() * 1000,
            "slept {slept} ns"
        );
        // It lands; the tail lies.
        post(&buf, 1, 1, true);
        let tail_addr = BASE.get() + TAIL;
        for (lie, want) in [
            (0x18, Fault::MisalignedTail { tail: 0x18 }),
            (0x21, Fault::MisalignedTail { tail: 0x21 }),
            (
                64,
                Fault::TailOutOfRing {
                    tail: 64,
                    ring_bytes: 64,
                },
            ),
            (
                0x1000_0000,
                Fault::TailOutOfRing {
                    tail: 0x1000_0000,
                    ring_bytes: 64,
                },
            ),
            (u32::MAX, Fault::all_ones(tail_addr)),
        ] {
            set_tail(&t, lie);
            t.clear();
            assert_eq!(r.drain(&mut d, out), Err(Error::DeviceFault(want)));
            assert_eq!(t.ops(), vec![(R, TAIL, lie)], "tail {lie:#x}");
            assert_eq!(r.next_index(), 1);
        }
        assert_eq!(d.slept_ns(), slept, "a lie: no wait");
        // The truth: one tail read, one head write, the entry once.
        set_tail(&t, 32);
        t.clear();
        assert_eq!(r.drain(&mut d, out), Ok(1));
        assert_eq!(out[0].bytes(), &entry(1, true));
        assert_eq!(t.ops(), vec![(R, TAIL, 32), (W, HEAD, 32)]);
        assert_eq!(d.slept_ns(), slept, "landed: no wait");
    }
}

/// Ring memory without words (so the drain goes through its byte reads)
/// that rewrites one slot (armed by the test) when the ring copies an entry
/// (a 16-byte `read`, after the phase byte's load): a device that rewrites
/// an entry between its phase test and its copy.
struct Rewrite<'a> {
    inner: &'a DmaBuf,
    armed: Cell<Option<(u32, [u8; 16])>>,
}

impl DmaMemory for Rewrite<'_> {
    fn bus_addr(&self) -> u64 {
        self.inner.bus_addr()
    }
    fn len(&self) -> usize {
        self.inner.len()
    }
    fn load_u8(&self, offset: usize) -> khal_core::Result<u8> {
        self.inner.load_u8(offset)
    }
    fn read(&self, offset: usize, out: &mut [u8]) -> khal_core::Result<()> {
        if out.len() == 16 {
            if let Some((slot, bytes)) = self.armed.take() {
                self.inner.write(slot as usize * 16, &bytes).unwrap();
            }
        }
        self.inner.read(offset, out)
    }
    fn write(&self, offset: usize, data: &[u8]) -> khal_core::Result<()> {
        self.inner.write(offset, data)
    }
    fn zero(&self) -> khal_core::Result<()> {
        self.inner.zero()
    }
}

/// The one entry the tail counts is new at its test and rewritten (its
/// phase no longer new) before its copy: `TooFarAhead` claiming one, nothing
/// consumed or written; the next call reads the tail again and, the entry
/// valid again, drains it once.
#[test]
fn an_entry_rewritten_before_its_copy_at_one_per_call_is_too_far_ahead() {
    let t = traced();
    let buf = DmaBuf::new(4 * 16, 4096).unwrap();
    let mem = Rewrite {
        inner: &buf,
        armed: Cell::new(None),
    };
    let mut r = ring(&t, &mem, 4, 4);
    let clock = SimClock::new();
    let mut d = SimDelay::new(&clock);
    let mut out = [NqEntry::default(); 4];
    post(&buf, 0, 0, true);
    set_tail(&t, 16);
    mem.armed.set(Some((0, entry(9, false))));
    t.clear();
    assert_eq!(
        r.drain(&mut d, &mut out),
        Err(Error::DeviceFault(Fault::TooFarAhead {
            claimed: 1,
            capacity: 4
        }))
    );
    assert_eq!(t.ops(), vec![(R, TAIL, 16)]);
    assert_eq!(r.next_index(), 0);
    assert_eq!(d.slept_ns(), 0);
    // Valid again: the tail read again, the entry drained once.
    post(&buf, 0, 0, true);
    t.clear();
    assert_eq!(r.drain(&mut d, &mut out), Ok(1));
    assert_eq!(out[0].bytes(), &entry(0, true));
    assert_eq!(t.ops(), vec![(R, TAIL, 16), (W, HEAD, 16)]);
    t.clear();
    assert_eq!(r.drain(&mut d, &mut out), Ok(0));
    assert_eq!(t.ops(), vec![(R, TAIL, 16)]);
}

/// Entries known from one tail read, taken one per call (`max_batch` 1, or
/// an `out` of one): the first call reads the tail, the others write the
/// head alone, across the wrap; a known entry whose phase is not new (the
/// device lapped the consumer, or lies) is `TooFarAhead` claiming one, and
/// the entries known are forgotten: the next call reads the tail again.
#[test]
fn known_entries_one_per_call_read_the_tail_once_and_fault_on_a_lap() {
    for (max_batch, out_len) in [(1, 4), (4, 1)] {
        let t = traced();
        let buf = DmaBuf::new(4 * 16, 4096).unwrap();
        let mut r = ring(&t, &buf, 4, max_batch);
        let clock = SimClock::new();
        let mut d = SimDelay::new(&clock);
        let mut backing = [NqEntry::default(); 4];
        let out = &mut backing[..out_len];
        // Slots 0 and 1 drained; then slots 2, 3 and 0 (second pass) pending.
        for slot in 0..2 {
            post(&buf, slot, slot as u8, true);
            set_tail(&t, (slot + 1) * 16);
            assert_eq!(r.drain(&mut d, out), Ok(1));
        }
        post(&buf, 2, 2, true);
        post(&buf, 3, 3, true);
        post(&buf, 0, 4, false);
        set_tail(&t, 16);
        let mut ops = Vec::new();
        for (seq, head) in [(2u8, 48), (3, 0), (4, 16)] {
            t.clear();
            assert_eq!(r.drain(&mut d, out), Ok(1), "seq {seq}");
            assert_eq!(out[0].bytes(), &entry(seq, seq < 4));
            ops.extend(t.ops());
            assert_eq!(r.next_index() * 16, head);
        }
        assert_eq!(
            ops,
            vec![(R, TAIL, 16), (W, HEAD, 48), (W, HEAD, 0), (W, HEAD, 16)]
        );
        assert!(r.phase(), "one wrap");
        // The tail says slots 1, 2 and 3 are pending; slot 3 has landed,
        // slot 2 still holds the first pass's entry (its phase says old).
        post(&buf, 1, 5, false);
        post(&buf, 3, 7, false);
        set_tail(&t, 0);
        let lap = Err(Error::DeviceFault(Fault::TooFarAhead {
            claimed: 1,
            capacity: 4,
        }));
        t.clear();
        assert_eq!(r.drain(&mut d, out), Ok(1));
        assert_eq!(out[0].bytes(), &entry(5, false));
        assert_eq!(t.ops(), vec![(R, TAIL, 0), (W, HEAD, 32)]);
        // Slot 2, known pending, is not new: the fault, nothing consumed.
        t.clear();
        assert_eq!(r.drain(&mut d, out), lap);
        assert_eq!(t.ops(), vec![]);
        assert_eq!(r.next_index(), 2);
        // Forgotten: the next call reads the tail again (the same fault).
        t.clear();
        assert_eq!(r.drain(&mut d, out), lap);
        assert_eq!(t.ops(), vec![(R, TAIL, 0)]);
        // The entry lands: slots 2 and 3, each once, the wrap's head 0.
        post(&buf, 2, 6, false);
        t.clear();
        assert_eq!(r.drain(&mut d, out), Ok(1));
        assert_eq!(out[0].bytes(), &entry(6, false));
        assert_eq!(r.drain(&mut d, out), Ok(1));
        assert_eq!(out[0].bytes(), &entry(7, false));
        assert_eq!(t.ops(), vec![(R, TAIL, 0), (W, HEAD, 48), (W, HEAD, 0)]);
        assert_eq!((r.next_index(), r.phase()), (0, false), "two wraps");
        assert_eq!(d.slept_ns(), 0);
    }
}
