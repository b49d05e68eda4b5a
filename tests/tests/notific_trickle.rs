//! Phase mode's drain at the size firmware runs it (issue 12): one entry
//! arriving per poll, drained through an `out` of many, and the paths
//! around it (the second entry's test, the run after two, the wrap, a
//! `max_batch` of one) [004 §3], [FACTS §11]. Exact MMIO traces (one head
//! write per non-empty drain, nothing on an idle poll, no register read in
//! phase mode) and exact entries, through `Trace<HeapMmio>` (the test writes
//! the device's entries into the ring's `DmaBuf` itself).

use khal_core::dma::DmaMemory;
use khal_core::notific::NqEntry;
use khal_core::notific::{NqConfig, NqRing};
/// The phase bit's byte and mask in an entry (bit 7 of byte 3) [004 §3].
const PHASE_BYTE: usize = 3;
const PHASE_MASK: u8 = 0x80;
use khal_std::Op::Write as W;
use khal_std::{DmaBuf, HeapMmio, Trace};
use khal_tests::nq::{self, traced, HEAD};

/// A phase-mode host ring of `cap` entries on queue 3 (`max_batch` given,
/// or the default); the trace cleared.
fn ring(
    t: &Trace<HeapMmio>,
    cap: u32,
    max_batch: Option<u32>,
) -> NqRing<'static, DmaBuf, &Trace<HeapMmio>> {
    nq::ring(t, NqConfig::phase, cap, max_batch)
}

/// Entry `seq`'s 16 bytes: each byte `seq`, the phase byte `0x11` with the
/// phase bit of pass `seq / cap` (1 on the first pass over a zeroed ring).
fn entry(seq: u32, cap: u32) -> [u8; 16] {
    let mut e = [seq as u8; 16];
    let phase = (seq / cap).is_multiple_of(2);
    e[PHASE_BYTE] = 0x11 | if phase { PHASE_MASK } else { 0 };
    e
}

/// The device posts entry `seq` in its slot.
fn post(ring: &NqRing<DmaBuf, &Trace<HeapMmio>>, seq: u32) {
    let cap = ring.capacity();
    ring.memory()
        .write((seq % cap) as usize * 16, &entry(seq, cap))
        .unwrap();
}

/// One entry per poll through an `out` of 16, over two and a half passes:
/// each drain takes exactly that entry (the one after it, tested, is not
/// new) and writes the head once; a poll with nothing new touches no
/// register. At the ring's last slot the head wraps to 0.
#[test]
fn one_entry_per_poll_is_taken_alone_with_one_head_write() {
    let t = traced();
    for max_batch in [None, Some(8)] {
        let mut r = ring(&t, 8, max_batch);
        let mut out = [NqEntry::default(); 16];
        for seq in 0..20 {
            post(&r, seq);
            t.clear();
            assert_eq!(r.drain(&mut out), Ok(1), "entry {seq}");
            assert_eq!(out[0].bytes(), &entry(seq, 8), "entry {seq}");
            assert_eq!(t.ops(), vec![(W, HEAD, (seq + 1) % 8 * 16)], "entry {seq}");
            t.clear();
            assert_eq!(r.drain(&mut out), Ok(0));
            assert_eq!(t.ops(), vec![]);
        }
        assert_eq!((r.next_index(), r.phase()), (4, false));
    }
}

/// Two new entries: both taken, through the second entry's test; three:
/// the run after the two takes the third. Then the ring's last slot and
/// two entries after the wrap: one call takes all three (the run after the
/// wrap), one head write at the wrapped position.
#[test]
fn runs_after_the_second_entry_and_across_the_wrap_are_one_call() {
    let t = traced();
    let mut r = ring(&t, 8, Some(8));
    let mut out = [NqEntry::default(); 16];
    for seq in 0..2 {
        post(&r, seq);
    }
    assert_eq!(r.drain(&mut out), Ok(2));
    for seq in 2..5 {
        post(&r, seq);
    }
    assert_eq!(r.drain(&mut out), Ok(3));
    assert_eq!(out[2].bytes(), &entry(4, 8));
    // Slots 5 and 6 taken, then 7 (the last) and 8, 9 after the wrap.
    for seq in 5..7 {
        post(&r, seq);
    }
    assert_eq!(r.drain(&mut out), Ok(2));
    for seq in 7..10 {
        post(&r, seq);
    }
    t.clear();
    assert_eq!(r.drain(&mut out), Ok(3));
    for (k, seq) in (7..10).enumerate() {
        assert_eq!(out[k].bytes(), &entry(seq, 8), "entry {seq}");
    }
    assert_eq!(t.ops(), vec![(W, HEAD, 2 * 16)]);
    assert_eq!((r.next_index(), r.phase()), (2, true));
    // A run of five on the second pass (phase bit 0, other bits of the
    // phase byte set): all five, the run after the two included.
    for seq in 10..15 {
        post(&r, seq);
    }
    assert_eq!(r.drain(&mut out), Ok(5));
    for (k, seq) in (10..15).enumerate() {
        assert_eq!(out[k].bytes(), &entry(seq, 8), "entry {seq}");
    }
    // The last slot alone, nothing after the wrap: one taken, head 0.
    let mut r = ring(&t, 8, Some(8));
    for seq in 0..7 {
        post(&r, seq);
    }
    assert_eq!(r.drain(&mut out), Ok(7));
    post(&r, 7);
    t.clear();
    assert_eq!(r.drain(&mut out), Ok(1));
    assert_eq!(out[0].bytes(), &entry(7, 8));
    assert_eq!(t.ops(), vec![(W, HEAD, 0)]);
    assert_eq!((r.next_index(), r.phase()), (0, true));
}

/// The limits of one call: `max_batch` (1 takes one entry even when the
/// next is new, through an `out` of 16; 3 stops a run of five at three),
/// and the length of `out` (two of three through an `out` of two).
#[test]
fn max_batch_and_the_out_length_bound_every_path() {
    let t = traced();
    let mut out = [NqEntry::default(); 16];
    let mut r = ring(&t, 8, Some(1));
    for seq in 0..3 {
        post(&r, seq);
    }
    for seq in 0..3 {
        t.clear();
        assert_eq!(r.drain(&mut out), Ok(1));
        assert_eq!(out[0].bytes(), &entry(seq, 8));
        assert_eq!(t.ops(), vec![(W, HEAD, (seq + 1) * 16)]);
    }
    let mut r = ring(&t, 8, Some(3));
    for seq in 0..5 {
        post(&r, seq);
    }
    assert_eq!(r.drain(&mut out), Ok(3));
    assert_eq!(r.drain(&mut out), Ok(2));
    assert_eq!(out[1].bytes(), &entry(4, 8));
    let mut r = ring(&t, 8, Some(8));
    for seq in 0..3 {
        post(&r, seq);
    }
    let mut two = [NqEntry::default(); 2];
    assert_eq!(r.drain(&mut two), Ok(2));
    assert_eq!(two[1].bytes(), &entry(1, 8));
    assert_eq!(r.drain(&mut two), Ok(1));
    assert_eq!(two[0].bytes(), &entry(2, 8));
}

/// Every `out` of 1 to 3 entries, every `max_batch` (1, 2, 3 and the
/// default), from each of the ring's last three slots, with 1 to 4 entries
/// pending: one call takes `min(out, max_batch, pending)`, across the wrap
/// when it reaches it, in order, and writes the head once at the slot after
/// them. The ring's memory holds one more entry past the ring, looking new:
/// a drain that read past the ring's end (the second entry's test at the
/// last slot) would take it.
#[test]
fn small_outs_around_the_ring_end_take_what_their_limits_allow() {
    let t = traced();
    let mut bad = [0xEE; 16];
    bad[PHASE_BYTE] = PHASE_MASK;
    for max_batch in [Some(1), Some(2), Some(3), None] {
        for len in 1..=3usize {
            for start in 5..8u32 {
                for pending in 1..=4u32 {
                    let mut r = nq::ring_in(&t, NqConfig::phase, 8, 9, max_batch);
                    r.memory().write(8 * 16, &bad).unwrap();
                    let mut out = [NqEntry::default(); 3];
                    // The cursor to `start`, one entry at a time.
                    for seq in 0..start {
                        post(&r, seq);
                        assert_eq!(r.drain(&mut out[..1]), Ok(1));
                    }
                    for seq in start..start + pending {
                        post(&r, seq);
                    }
                    t.clear();
                    let cap = max_batch.unwrap_or(8 / 4) as usize;
                    let n = len.min(cap).min(pending as usize);
                    let at =
                        format!("max_batch {max_batch:?} out {len} slot {start} pending {pending}");
                    assert_eq!(r.drain(&mut out[..len]), Ok(n), "{at}");
                    for (k, e) in out.iter().take(n).enumerate() {
                        assert_eq!(e.bytes(), &entry(start + k as u32, 8), "{at}");
                    }
                    let pos = (start + n as u32) % 8;
                    assert_eq!(t.ops(), vec![(W, HEAD, pos * 16)], "{at}");
                    assert_eq!(r.next_index(), pos, "{at}");
                    assert_eq!(r.phase(), start + n as u32 >= 8, "{at}");
                }
            }
        }
    }
}
