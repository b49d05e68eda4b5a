//! Golden cases at the edges mutation testing found unguarded in the NQ reset
//! [004 §3 GOTCHA]: the coalescer flush pulse is gated `idx <= 3`, so queue 3
//! pulses and queue 4 does not on the 10-queue flavour. The single-queue
//! flavour has queue 0 only (khal refuses another index before any write, a
//! deviation from the C listed in coverage.md): its queue 0 pulses, and
//! queues 3 and 4 never reach the gate. The pulse SETS bit 9 (`r | 0x200`)
//! whatever the register read. (Mutants `idx < 3`, `idx <= 4` and
//! `r ^ 0x200` passed every test before these; see docs/TESTING.md.)

use khal_core::notific::{BpMode, EngineConfig, NotificBlocks, NotificEngine, NqConfig, NqRing};
use khal_core::Mmio;
use khal_std::Op::{self, Read as R, Write as W};
use khal_std::{DmaBuf, SimDelay};
use khal_tests::nq::{traced, BASE};

/// A coal_ctrl value with the stream-enable bits set, so the pulse's
/// read-modify-write is visible in both of its writes.
const COAL: u32 = 0x3C00;

/// Reset queue `idx` of an engine with `num_queues` queues (10 or 1) and
/// return the trace of the reset alone.
fn reset_trace(num_queues: u32, idx: u32) -> Vec<(Op, u64, u32)> {
    try_reset_trace(num_queues, idx).unwrap()
}

/// The reset's result and its trace.
fn try_reset_trace(num_queues: u32, idx: u32) -> Result<Vec<(Op, u64, u32)>, khal_core::Error> {
    try_reset_trace_from(num_queues, idx, COAL)
}

/// As [`try_reset_trace`], with coal_ctrl holding `coal` before the reset.
fn try_reset_trace_from(
    num_queues: u32,
    idx: u32,
    coal: u32,
) -> Result<Vec<(Op, u64, u32)>, khal_core::Error> {
    let t = traced();
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init_raw(&t, Some(&mut block), num_queues, 0, 0).unwrap();
    t.inner().write32(BASE.add(0xB8), coal).unwrap();
    t.clear();
    let buf = DmaBuf::new(256, 4096).unwrap();
    let mut r = NqRing::host(buf, e.queue(idx)?, NqConfig::tail(256)).unwrap();
    let clock = khal_std::SimClock::new();
    let mut d = SimDelay::new(&clock);
    r.reset(&mut e, &mut d)?;
    Ok(t.ops())
}

/// The reset of [004 §3] written from the notes: overflow then enable bit
/// cleared, the pulse iff `pulse`, tail read, head write. `stride` is 40 on
/// the 10-queue flavour, 0 on the single-queue one.
fn expected(idx: u64, stride: u64, pulse: bool) -> Vec<(Op, u64, u32)> {
    let o = idx * stride;
    let mut v = vec![(W, 0x18, 0), (W, 0x14, 0)];
    if pulse {
        v.extend([(R, 0xB8, COAL), (W, 0xB8, COAL | 0x200), (W, 0xB8, COAL)]);
    }
    v.extend([(R, 0x110 + o, 0), (W, 0x10C + o, 0)]);
    v
}

#[test]
fn ten_queue_idx_3_pulses() {
    assert_eq!(reset_trace(10, 3), expected(3, 40, true));
}

#[test]
fn ten_queue_idx_4_does_not_pulse() {
    assert_eq!(reset_trace(10, 4), expected(4, 40, false));
}

#[test]
fn single_queue_idx_0_pulses() {
    assert_eq!(reset_trace(1, 0), expected(0, 0, true));
}

#[test]
fn single_queue_idx_3_and_4_are_refused_before_the_gate() {
    for idx in [3, 4] {
        assert_eq!(
            try_reset_trace(1, idx),
            Err(khal_core::Error::out_of_range(
                "nq index (single-queue flavour)",
                idx as u64,
                1
            ))
        );
    }
}

/// The pulse writes `r | 0x200` then `r & !0x200` [004 §3 GOTCHA]: with bit 9
/// already set in the register, the first write still has it set (an
/// `r ^ 0x200` would clear it) and the second clears it.
#[test]
fn the_pulse_sets_bit_9_even_when_it_reads_set() {
    let coal = COAL | 0x200;
    let ops = try_reset_trace_from(10, 0, coal).unwrap();
    assert_eq!(
        ops[2..5],
        [(R, 0xB8, coal), (W, 0xB8, coal), (W, 0xB8, COAL)]
    );
}

/// The reset clears only its own queue's `ignore_full_en` bit, from the
/// shadow, before the enable bit [004 §3]: with queues 2 and 5 set through
/// khal's setter, resetting queue 2 writes `+0x18 = 1 << 5`. (Before the
/// setter the shadow was always 0, so a wrong mask in the reset's clear
/// passed every test.)
#[test]
fn reset_clears_only_its_queues_overflow_bit() {
    let t = traced();
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init(&t, &mut block, EngineConfig::tpb(BpMode::All)).unwrap();
    t.inner().write32(BASE.add(0xB8), COAL).unwrap();
    t.clear();
    e.set_nq_ignore_full(2, true).unwrap();
    e.set_nq_ignore_full(5, true).unwrap();
    assert_eq!(t.ops(), [(W, 0x18, 1 << 2), (W, 0x18, (1 << 2) | (1 << 5))]);
    t.clear();
    let buf = DmaBuf::new(256, 4096).unwrap();
    let mut r = NqRing::host(buf, e.queue(2).unwrap(), NqConfig::tail(256)).unwrap();
    let clock = khal_std::SimClock::new();
    let mut d = SimDelay::new(&clock);
    r.reset(&mut e, &mut d).unwrap();
    assert_eq!(t.ops()[..2], [(W, 0x18, 1 << 5), (W, 0x14, 0)]);
    // The shadow kept queue 5's bit alone: setting it again writes just it.
    t.clear();
    e.set_nq_ignore_full(5, true).unwrap();
    assert_eq!(t.ops(), [(W, 0x18, 1 << 5)]);
}

/// The setter checks the queue index as every per-NQ access does, before
/// anything is written: 10 on the 10-queue flavour, 1 on the single-queue one.
#[test]
fn set_nq_ignore_full_refuses_a_queue_the_flavour_lacks() {
    for (num_queues, idx, limit) in [(10, 10, 10), (1, 1, 1)] {
        let t = traced();
        let blocks = NotificBlocks::new();
        let mut block = blocks.take(BASE).unwrap();
        let mut e = NotificEngine::init_raw(&t, Some(&mut block), num_queues, 0, 0).unwrap();
        t.clear();
        let r = e.set_nq_ignore_full(idx, true);
        assert!(
            matches!(r, Err(khal_core::Error::OutOfRange { limit: l, .. }) if l == limit),
            "{r:?}"
        );
        assert!(t.ops().is_empty());
        // The shadow is untouched (0): clearing queue 0 writes 0.
        e.set_nq_ignore_full(0, false).unwrap();
        assert_eq!(t.ops(), [(W, 0x18, 0)]);
    }
}

/// `num_queues` is the count given to init (the coalescer stream count as
/// well), not the flavour's queue count [004 §1].
#[test]
fn num_queues_is_the_count_init_was_given() {
    for n in [1, 7, 10] {
        let t = traced();
        let blocks = NotificBlocks::new();
        let mut block = blocks.take(BASE).unwrap();
        let e = NotificEngine::init_raw(&t, Some(&mut block), n, 0, 0).unwrap();
        assert_eq!(e.num_queues(), n);
    }
}

/// The shadow setters set and clear, they do not toggle: setting a bit that
/// is already set keeps it, clearing touches only its own bit (cargo-mutants
/// survivors `|` → `^`, `& !bit` → `& bit` / `| !bit` / `^ !bit`).
#[test]
fn shadow_setters_set_and_clear_without_toggling() {
    let t = traced();
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init(&t, &mut block, EngineConfig::tpb(BpMode::All)).unwrap();
    // The 10-queue init seeds the stream shadow with all four streams
    // [004 §2]: setting stream 1 keeps all four, clearing it leaves 0xD (the
    // register reads 0 here: its bits 13:10 are the shadow's).
    t.clear();
    e.set_coalescer_stream(1, true).unwrap();
    e.set_coalescer_stream(1, false).unwrap();
    assert_eq!(
        t.ops(),
        [
            (R, 0xB8, 0),
            (W, 0xB8, 0xF << 10),
            (R, 0xB8, 0xF << 10),
            (W, 0xB8, 0xD << 10)
        ]
    );

    t.clear();
    e.set_nq_ignore_full(2, true).unwrap();
    e.set_nq_ignore_full(5, true).unwrap();
    e.set_nq_ignore_full(2, true).unwrap();
    let both = (1 << 2) | (1 << 5);
    assert_eq!(
        t.ops(),
        [(W, 0x18, 1 << 2), (W, 0x18, both), (W, 0x18, both)]
    );
    t.clear();
    e.set_nq_ignore_full(2, false).unwrap();
    e.set_nq_ignore_full(2, false).unwrap();
    assert_eq!(t.ops(), [(W, 0x18, 1 << 5), (W, 0x18, 1 << 5)]);
}
