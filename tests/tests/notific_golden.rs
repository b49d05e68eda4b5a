//! Golden MMIO traces of the notification engine and NQ lifecycle [004 §2, §3].
//!
//! Every test asserts the exact `(op, offset, value)` sequence the notes
//! prescribe, through `Trace<HeapMmio>` (a plain register file: reads return
//! what was last written, so the read-modify-writes are visible).

use khal_core::dma::DmaMemory;
use khal_core::notific::{
    BpMode, ConsumeKind, EngineConfig, NotificBlocks, NotificEngine, NqConfig, NqRing, Tail,
    UartMode,
};
use khal_core::wait::Budget;
use khal_core::{Error, Mmio};
use khal_std::Op::{Read as R, Write as W};
use khal_std::{DmaBuf, HeapMmio, SimDelay, Trace};
use khal_tests::nq::{traced, BASE};

/// A 10-queue engine on the block at [`BASE`] of `t`'s device (leaked: the
/// engine outlives this call), the trace cleared.
fn ten(t: &Trace<HeapMmio>, bp: u32) -> NotificEngine<'_, &Trace<HeapMmio>> {
    let blocks: &'static NotificBlocks = Box::leak(Box::new(NotificBlocks::new()));
    let block = Box::leak(Box::new(blocks.take(BASE).unwrap()));
    let e = NotificEngine::init_raw(t, Some(block), 10, bp, 0).unwrap();
    t.clear();
    e
}

#[test]
fn init_ten_queue_bp_mode_0() {
    let t = traced();
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init(
        &t,
        &mut block,
        EngineConfig::tpb(BpMode::All).with_uart_mode(UartMode(0x5)),
    )
    .unwrap();
    assert_eq!(
        t.ops(),
        vec![
            (W, 0x28, 0x5),         // nq_uart_mode
            (W, 0xBC, 1),           // wob_ctrl = 1
            (W, 0xB4, 0xAAE60),     // coal_timer (10-queue only)
            (W, 0x30, 0xFFFF_FFFF), // wr_buf_enable lo (all lanes)
            (W, 0x34, 0xFFFF_FFFF), // wr_buf_enable hi
            (W, 0x08, 0x3FF),       // sw_backpressure, mode 0
            (W, 0x0C, 0xFFFF_FFFF), // hw_backpressure lo
            (W, 0x10, 0xFFFF_FFFF), // hw_backpressure hi
        ]
    );
    let names: Vec<String> = t
        .accesses()
        .iter()
        .map(|a| a.reg.map(|r| r.to_string()).unwrap_or_default())
        .collect();
    assert_eq!(names[2], "notific.coal_timer");
    // The shadows init left, as the next masked updates write them: every
    // write-buffer and hw-bp lane, the four coalescer streams seeded.
    t.clear();
    e.update_wr_buf_enable(0, 0).unwrap();
    e.update_hw_bp(0, 0).unwrap();
    e.set_coalescer_stream(0, true).unwrap();
    assert_eq!(
        t.ops(),
        vec![
            (W, 0x30, 0xFFFF_FFFF),
            (W, 0x34, 0xFFFF_FFFF),
            (W, 0x0C, 0xFFFF_FFFF),
            (W, 0x10, 0xFFFF_FFFF),
            (R, 0xB8, 0),
            (W, 0xB8, 0xF << 10),
        ]
    );
}

#[test]
fn init_ten_queue_bp_mode_1() {
    let t = traced();
    NotificEngine::init(
        &t,
        &mut NotificBlocks::new().take(BASE).unwrap(),
        EngineConfig::tpb(BpMode::None),
    )
    .unwrap();
    assert_eq!(
        t.ops(),
        vec![
            (W, 0x28, 0),
            (W, 0xBC, 1),
            (W, 0xB4, 0xAAE60),
            (W, 0x30, 0xFFFF_FFFF),
            (W, 0x34, 0xFFFF_FFFF),
            (W, 0x08, 0),
            (W, 0x0C, 0xFFFF_FFFF),
            (W, 0x10, 0xFFFF_FFFF),
        ]
    );
}

#[test]
fn init_single_queue_skips_the_coalescer_timer() {
    for (bp, sw) in [(0, 0x3FF), (1, 0)] {
        let t = traced();
        let blocks = NotificBlocks::new();
        let mut block = blocks.take(BASE).unwrap();
        let mut e = NotificEngine::init_raw(&t, Some(&mut block), 1, bp, 7).unwrap();
        assert_eq!(
            t.ops(),
            vec![
                (W, 0x28, 7),
                (W, 0xBC, 1),
                (W, 0x30, 0xFFFF_FFFF),
                (W, 0x34, 0xFFFF_FFFF),
                (W, 0x08, sw),
                (W, 0x0C, 0xFFFF_FFFF),
                (W, 0x10, 0xFFFF_FFFF),
            ]
        );
        // No stream seeded: enabling stream 0 sets its bit alone.
        t.clear();
        e.set_coalescer_stream(0, true).unwrap();
        assert_eq!(t.ops(), vec![(R, 0xB8, 0), (W, 0xB8, 1 << 10)]);
    }
}

#[test]
fn init_errors_write_nothing() {
    let t = traced();
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    assert_eq!(
        NotificEngine::init_raw(&t, None, 10, 0, 0).map(|_| ()),
        Err(Error::NoContext)
    );
    assert_eq!(Error::NoContext.c_code(), Some(-14));
    assert_eq!(
        NotificEngine::init_raw(&t, Some(&mut block), 10, 2, 0).map(|_| ()),
        Err(Error::UnknownMode(2))
    );
    assert!(matches!(
        NotificEngine::init_raw(&t, Some(&mut block), 0, 0, 0),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        NotificEngine::init_raw(&t, Some(&mut block), 11, 0, 0),
        Err(Error::InvalidArgument(_))
    ));
    assert_eq!(t.ops(), vec![]);
}

#[test]
fn wr_buf_masked_update_uses_the_shadow_not_the_register() {
    let t = traced();
    let mut e = ten(&t, 0);
    // Scribble the register: the update must not read it.
    t.inner().write32(BASE.add(0x30), 0).unwrap();
    t.clear();
    e.update_wr_buf_enable(0, 0x0000_0001_0000_00F0).unwrap();
    let new = !0x0000_0001_0000_00F0u64;
    assert_eq!(
        t.ops(),
        vec![(W, 0x30, new as u32), (W, 0x34, (new >> 32) as u32)]
    );
    // The shadow holds it: a masked update of no lane writes it back.
    t.clear();
    e.update_wr_buf_enable(0, 0).unwrap();
    assert_eq!(
        t.ops(),
        vec![(W, 0x30, new as u32), (W, 0x34, (new >> 32) as u32)]
    );
    t.clear();
    e.set_wr_buf_enable(0x1234_5678_9ABC_DEF0).unwrap();
    assert_eq!(
        t.ops(),
        vec![(W, 0x30, 0x9ABC_DEF0), (W, 0x34, 0x1234_5678)]
    );
}

#[test]
fn set_bp_config_both_modes_and_unknown() {
    let t = traced();
    let mut e = ten(&t, 1);
    e.update_hw_bp(0, u64::MAX).unwrap();
    t.clear();
    e.set_bp_config(BpMode::All).unwrap();
    assert_eq!(
        t.ops(),
        vec![
            (W, 0x08, 0x3FF),
            (W, 0x0C, 0xFFFF_FFFF),
            (W, 0x10, 0xFFFF_FFFF)
        ]
    );
    t.clear();
    e.update_hw_bp(0, 0).unwrap();
    assert_eq!(
        t.ops(),
        vec![(W, 0x0C, 0xFFFF_FFFF), (W, 0x10, 0xFFFF_FFFF)]
    );
    t.clear();
    e.set_bp_config(BpMode::None).unwrap();
    assert_eq!(
        t.ops(),
        vec![(W, 0x08, 0), (W, 0x0C, 0xFFFF_FFFF), (W, 0x10, 0xFFFF_FFFF)]
    );
    t.clear();
    e.update_hw_bp(0, 0xFF).unwrap();
    t.clear();
    // The C's mode 7 (-1, nothing written) cannot reach the engine: it is
    // refused when it is turned into a `BpMode`.
    assert_eq!(BpMode::from_raw(7), Err(Error::UnknownMode(7)));
    assert_eq!(Error::UnknownMode(7).c_code(), Some(-1));
    assert_eq!(t.ops(), vec![]);
    e.update_hw_bp(0, 0).unwrap();
    assert_eq!(
        t.ops(),
        vec![(W, 0x0C, 0xFFFF_FF00), (W, 0x10, 0xFFFF_FFFF)]
    );
}

#[test]
fn hw_bp_masked_update() {
    let t = traced();
    let mut e = ten(&t, 0);
    e.update_hw_bp(0x0000_0000_0000_0000, 0x8000_0000_0000_0001)
        .unwrap();
    assert_eq!(
        t.ops(),
        vec![(W, 0x0C, 0xFFFF_FFFE), (W, 0x10, 0x7FFF_FFFF)]
    );
    t.clear();
    e.update_hw_bp(0, 0).unwrap();
    assert_eq!(
        t.ops(),
        vec![(W, 0x0C, 0xFFFF_FFFE), (W, 0x10, 0x7FFF_FFFF)]
    );
}

#[test]
fn set_axi_id_rmw_bit0_only() {
    let t = traced();
    let mut e = ten(&t, 0);
    t.inner().write32(BASE.add(0xBC), 0xF0).unwrap();
    e.set_axi_id(0x2A, true).unwrap();
    e.set_axi_id(0x2B, false).unwrap();
    assert_eq!(
        t.ops(),
        vec![
            (W, 0x2C, 0x2A),
            (R, 0xBC, 0xF0),
            (W, 0xBC, 0xF1),
            (W, 0x2C, 0x2B),
            (R, 0xBC, 0xF1),
            (W, 0xBC, 0xF0),
        ]
    );
}

#[test]
fn coalescer_stream_enable_from_the_shadow() {
    let t = traced();
    let mut e = ten(&t, 0);
    t.inner().write32(BASE.add(0xB8), 0xFFFF_C3FF).unwrap();
    e.set_coalescer_stream(2, false).unwrap(); // shadow 15 → 0b1011
    e.set_coalescer_stream(2, true).unwrap();
    assert_eq!(
        t.ops(),
        vec![
            (R, 0xB8, 0xFFFF_C3FF),
            (W, 0xB8, 0xFFFF_C3FF | (0b1011 << 10)),
            (R, 0xB8, 0xFFFF_C3FF | (0b1011 << 10)),
            (W, 0xB8, 0xFFFF_FFFF),
        ]
    );
    // The shadow holds all four again: a register that reads 0 gets them.
    t.inner().write32(BASE.add(0xB8), 0).unwrap();
    t.clear();
    e.set_coalescer_stream(0, true).unwrap();
    assert_eq!(t.ops(), vec![(R, 0xB8, 0), (W, 0xB8, 0xF << 10)]);
}

#[test]
fn coalescer_stream_out_of_range_writes_nothing() {
    let t = traced();
    let mut e = ten(&t, 0);
    assert!(matches!(
        e.set_coalescer_stream(4, true),
        Err(Error::InvalidArgument(_))
    ));
    let t1 = traced();
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut one = NotificEngine::init(&t1, &mut block, EngineConfig::top_sp(BpMode::All)).unwrap();
    t1.clear();
    // A single-queue engine has one stream: stream 1 >= num_streams.
    let r = one.set_coalescer_stream(1, true);
    assert_eq!(r.map_err(|e| e.c_code()), Err(Some(-22)));
    assert_eq!(t.ops(), vec![]);
    assert_eq!(t1.ops(), vec![]);
    one.set_coalescer_stream(0, true).unwrap();
    assert_eq!(t1.ops(), vec![(R, 0xB8, 0), (W, 0xB8, 1 << 10)]);
}

#[test]
fn coalescer_bypass_rmw_bit8() {
    let t = traced();
    let mut e = ten(&t, 0);
    t.inner().write32(BASE.add(0xB8), 0x3C00).unwrap();
    e.set_coalescer_bypass(true).unwrap();
    e.set_coalescer_bypass(false).unwrap();
    assert_eq!(
        t.ops(),
        vec![
            (R, 0xB8, 0x3C00),
            (W, 0xB8, 0x3D00),
            (R, 0xB8, 0x3D00),
            (W, 0xB8, 0x3C00),
        ]
    );
}

#[test]
fn timestamp_increment_is_one_read() {
    let t = traced();
    let e = ten(&t, 0);
    t.inner().write32(BASE.add(0xCC), 42).unwrap();
    assert_eq!(e.timestamp_inc(), Ok(42));
    assert_eq!(t.ops(), vec![(R, 0xCC, 42)]);
}

#[test]
fn notification_size_is_16() {
    assert_eq!(khal_core::notific::NQ_ENTRY_BYTES, 16);
}

/// A 16-entry host ring on queue `idx` of `e` (nothing written).
fn host_ring<'d, 't, K: ConsumeKind>(
    e: &mut NotificEngine<'d, &'t Trace<HeapMmio>>,
    idx: u32,
    kind: fn(u32) -> NqConfig<K>,
) -> NqRing<'d, DmaBuf, &'t Trace<HeapMmio>, K> {
    let buf = DmaBuf::new(256, 4096)
        .unwrap()
        .with_bus_addr(0x12_3456_7000);
    NqRing::host(buf, e.queue(idx).unwrap(), kind(256)).unwrap()
}

/// [`host_ring`]'s tail ring on queue `idx` of `e`, configured (the queue
/// config's three writes).
fn configured_ring<'d, 't>(
    e: &mut NotificEngine<'d, &'t Trace<HeapMmio>>,
    idx: u32,
) -> NqRing<'d, DmaBuf, &'t Trace<HeapMmio>, Tail> {
    let buf = DmaBuf::new(256, 4096)
        .unwrap()
        .with_bus_addr(0x12_3456_7000);
    NqRing::configure_host(buf, e.queue(idx).unwrap(), NqConfig::tail(256)).unwrap()
}

#[test]
fn queue_config_ten_queue_stride_and_single_queue_flat() {
    let t = traced();
    let mut e = ten(&t, 0);
    configured_ring(&mut e, 3);
    let o = 0x100 + 3 * 40;
    assert_eq!(
        t.ops(),
        vec![(W, o, 0x3456_7000), (W, o + 4, 0x12), (W, o + 8, 256)]
    );
    let names: Vec<String> = t
        .accesses()
        .iter()
        .map(|a| a.reg.map(|r| r.to_string()).unwrap_or_default())
        .collect();
    assert_eq!(
        names,
        [
            "notific.nq[3].nq_base_addr_lo",
            "notific.nq[3].nq_base_addr_hi",
            "notific.nq[3].nq_f_size"
        ]
    );

    let t1 = traced();
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut one = NotificEngine::init(&t1, &mut block, EngineConfig::top_sp(BpMode::All)).unwrap();
    t1.clear();
    // Single-queue flavour: no stride [004 §3 QUIRK].
    configured_ring(&mut one, 0);
    assert_eq!(
        t1.ops(),
        vec![(W, 0x100, 0x3456_7000), (W, 0x104, 0x12), (W, 0x108, 256)]
    );
}

#[test]
fn single_queue_refuses_an_index_other_than_0_before_any_write() {
    // The C code accepts any index on the single-queue flavour: its registers
    // alias queue 0's while the enable bit is `1 << idx`. khal refuses it (a
    // deviation, listed in coverage.md), for every per-NQ operation, with
    // nothing written.
    let t = traced();
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init(&t, &mut block, EngineConfig::top_sp(BpMode::All)).unwrap();
    t.clear();
    // The queue token is where the index is checked: a ring (and so a
    // queue config, reset, enable, tail read or drain) cannot exist on it.
    for idx in [1, 3, 9] {
        let refused = Err(Error::out_of_range(
            "nq index (single-queue flavour)",
            idx as u64,
            1,
        ));
        assert_eq!(e.queue(idx).map(|_| ()), refused, "idx {idx}");
        assert_eq!(t.ops(), vec![], "idx {idx}: nothing written");
    }
    assert_eq!(
        e.queue(10).map(|_| ()),
        Err(Error::OutOfRange {
            what: "nq index",
            value: 10,
            limit: 10
        })
    );
    // Queue 0 is the one it has, handed out once.
    assert!(e.queue(0).is_ok());
    assert_eq!(e.queue(0).map(|_| ()), Err(Error::QueueTaken(0)));
    assert_eq!(t.ops(), vec![]);
}

#[test]
fn configure_is_init_then_queue_config() {
    let t = traced();
    let mut e = ten(&t, 0);
    let buf = DmaBuf::new(64, 64).unwrap().with_bus_addr(0x1000);
    let r = NqRing::configure_host(buf, e.queue(9).unwrap(), NqConfig::phase(64)).unwrap();
    assert_eq!(r.capacity(), 4);
    let o = 0x100 + 9 * 40;
    assert_eq!(t.ops(), vec![(W, o, 0x1000), (W, o + 4, 0), (W, o + 8, 64)]);
}

/// `validate`'s refusals, exactly.
const SIZE: Error = Error::InvalidArgument("nq size (a non-zero multiple of 16 bytes)");
const LARGER: Error = Error::InvalidArgument("nq size larger than its memory");
const BATCH: Error = Error::InvalidArgument("nq max_batch (must be > 0)");

#[test]
fn ring_init_errors_write_nothing() {
    let t = traced();
    let mut e = ten(&t, 0);
    let cfg = |size| NqConfig::tail(size);
    assert!(matches!(
        e.queue(10).map(|_| ()),
        Err(Error::OutOfRange {
            value: 10,
            limit: 10,
            ..
        })
    ));
    // One token and one memory through every refusal: each gives both back.
    let mut q = e.queue(3).unwrap();
    let mut mem = DmaBuf::new(256, 64).unwrap().with_bus_addr(0x4000);
    let refusals = [
        (cfg(0), SIZE),
        (cfg(8), SIZE),
        (cfg(24 + 1), SIZE),
        (cfg(272), LARGER),
        (cfg(256).with_max_batch(0), BATCH),
    ];
    for (c, want) in refusals {
        for configure in [false, true] {
            let refused = if configure {
                NqRing::configure_host(mem, q, c)
            } else {
                NqRing::host(mem, q, c)
            }
            .map(|_| ())
            .unwrap_err();
            assert_eq!(refused.error(), want, "{c:?}");
            (mem, q) = refused.into_parts();
            assert_eq!(q.index(), 3);
        }
    }
    // Nothing read or written by any refusal.
    assert_eq!(t.ops(), vec![]);
    // The token was not handed out again, and the one given back builds a ring.
    assert_eq!(e.queue(3).map(|_| ()), Err(Error::QueueTaken(3)));
    let r = NqRing::configure_host(mem, q, cfg(256)).unwrap();
    assert_eq!((r.queue().index(), r.capacity()), (3, 16));
    let o = 0x100 + 3 * 40;
    assert_eq!(
        t.ops(),
        vec![(W, o, 0x4000), (W, o + 4, 0), (W, o + 8, 256)]
    );
}

#[test]
fn refused_device_ring_gives_back_view_zero_and_token() {
    let t = traced();
    let mut e = ten(&t, 0);
    let zeroed = std::cell::Cell::new(0usize);
    let zero = |_: u64, len: usize| {
        zeroed.set(zeroed.get() + len);
        Ok(())
    };
    let view = DmaBuf::new(256, 64).unwrap().with_bus_addr(0x8000);
    let refused = NqRing::configure_device(view, zero, e.queue(5).unwrap(), NqConfig::tail(512))
        .map(|_| ())
        .unwrap_err();
    assert_eq!(refused.error(), LARGER);
    assert_eq!(t.ops(), vec![]);
    let (view, zero, q) = refused.into_device_parts();
    let zero = zero.expect("a device ring's refusal holds its zero callback");
    zero(0, 16).unwrap();
    assert_eq!(
        zeroed.get(),
        16,
        "the callback given back is the one handed in"
    );
    let refused = NqRing::device(view, zero, q, NqConfig::tail(0))
        .map(|_| ())
        .unwrap_err();
    assert_eq!(refused.error(), SIZE);
    let (view, zero, q) = refused.into_device_parts();
    let r = NqRing::configure_device(view, zero.unwrap(), q, NqConfig::tail(256)).unwrap();
    assert_eq!(r.queue().index(), 5);
    let o = 0x100 + 5 * 40;
    assert_eq!(
        t.ops(),
        vec![(W, o, 0x8000), (W, o + 4, 0), (W, o + 8, 256)]
    );
}

#[test]
fn refused_queue_config_write_gives_the_parts_back() {
    // A register file that ends before queue 9's registers (0x100 + 9 * 40):
    // the engine comes up, the ring's first queue-config write is refused.
    let t = Trace::new(HeapMmio::new(BASE, 0x200));
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init_raw(&t, Some(&mut block), 10, 0, 0).unwrap();
    t.clear();
    let mem = DmaBuf::new(64, 64).unwrap();
    let refused = NqRing::configure_host(mem, e.queue(9).unwrap(), NqConfig::phase(64))
        .map(|_| ())
        .unwrap_err();
    let lo = BASE.get() + 0x100 + 9 * 40;
    assert_eq!(refused.error(), Error::out_of_window(lo));
    // `?` in a function returning khal's Result keeps the error alone.
    let via_question_mark = || -> khal_core::Result<()> {
        let (mem, q) = refused.into_parts();
        assert_eq!(q.index(), 9);
        NqRing::configure_host(mem, q, NqConfig::phase(64))?;
        Ok(())
    };
    assert_eq!(via_question_mark(), Err(Error::out_of_window(lo)));
}

#[test]
fn refused_ring_debug_and_display() {
    let t = traced();
    let mut e = ten(&t, 0);
    let refused = NqRing::host(
        DmaBuf::new(64, 64).unwrap(),
        e.queue(2).unwrap(),
        NqConfig::phase(128),
    )
    .map(|_| ())
    .unwrap_err();
    assert_eq!(
        format!("{refused:?}"),
        "RefusedRing { error: InvalidArgument(\"nq size larger than its memory\"), queue: 2, .. }"
    );
    assert_eq!(
        refused.to_string(),
        "invalid argument: nq size larger than its memory"
    );
    // `?` / `into` box the error alone (RefusedRing is not itself an Error).
    let boxed: Box<dyn std::error::Error> = refused.into();
    assert_eq!(boxed.to_string(), LARGER.to_string());
}

/// The reset of [004 §3] for `idx`, with the flush pulse iff `idx <= 3`.
fn reset_ops(
    idx: u64,
    enable_before: u32,
    coal: u32,
    pulse: bool,
) -> Vec<(khal_std::Op, u64, u32)> {
    let o = idx * 40;
    let mut v = vec![(W, 0x18, 0), (W, 0x14, enable_before & !(1 << idx))];
    if pulse {
        v.extend([
            (R, 0xB8, coal),
            (W, 0xB8, coal | 0x200),
            (W, 0xB8, coal & !0x200),
        ]);
    }
    v.extend([(R, 0x110 + o, 0), (W, 0x10C + o, 0)]);
    v
}

#[test]
fn reset_with_the_flush_pulse_idx_2() {
    let t = traced();
    let mut e = ten(&t, 0);
    t.inner().write32(BASE.add(0xB8), 0x3C00).unwrap();
    let mut r = host_ring(&mut e, 2, NqConfig::phase);
    r.memory().write(0, &[0xAB; 256]).unwrap();
    let clock = khal_std::SimClock::new();
    let mut d = SimDelay::new(&clock);
    r.reset(&mut e, &mut d).unwrap();
    assert_eq!(t.ops(), reset_ops(2, 0, 0x3C00, true));
    let mut back = [1u8; 256];
    r.memory().read(0, &mut back).unwrap();
    assert_eq!(back, [0u8; 256]);
    assert_eq!((r.next_index(), r.phase()), (0, false));
}

#[test]
fn reset_without_the_flush_pulse_idx_5() {
    let t = traced();
    let mut e = ten(&t, 0);
    let mut r = host_ring(&mut e, 5, NqConfig::tail);
    let clock = khal_std::SimClock::new();
    let mut d = SimDelay::new(&clock);
    r.reset(&mut e, &mut d).unwrap();
    assert_eq!(t.ops(), reset_ops(5, 0, 0, false));
}

#[test]
fn enable_is_reset_then_the_enable_bit() {
    let t = traced();
    let mut e = ten(&t, 0);
    let clock = khal_std::SimClock::new();
    let mut d = SimDelay::new(&clock);
    let mut r5 = host_ring(&mut e, 5, NqConfig::tail);
    r5.enable(&mut e, &mut d).unwrap();
    let mut want = reset_ops(5, 0, 0, false);
    want.push((W, 0x14, 1 << 5));
    assert_eq!(t.ops(), want);
    t.clear();
    let mut r1 = host_ring(&mut e, 1, NqConfig::phase);
    r1.enable(&mut e, &mut d).unwrap();
    let mut want = reset_ops(1, 1 << 5, 0, true);
    want.push((W, 0x14, (1 << 5) | (1 << 1)));
    assert_eq!(t.ops(), want);
    // Resetting queue 5 clears only its bit, from the shadow.
    t.clear();
    r5.reset(&mut e, &mut d).unwrap();
    assert_eq!(t.ops(), reset_ops(5, 0x22, 0, false));
    // Queue 1's bit stays in the shadow: enabling queue 5 again sets both.
    t.clear();
    r5.enable(&mut e, &mut d).unwrap();
    assert_eq!(t.ops().last(), Some(&(W, 0x14, 0x22)));
}

#[test]
fn reset_single_queue_flat_window() {
    let t = traced();
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init(&t, &mut block, EngineConfig::top_sp(BpMode::All)).unwrap();
    t.clear();
    let clock = khal_std::SimClock::new();
    let mut d = SimDelay::new(&clock);
    let mut r = host_ring(&mut e, 0, NqConfig::tail);
    r.enable(&mut e, &mut d).unwrap();
    let mut want = reset_ops(0, 0, 0, true);
    want.push((W, 0x14, 1));
    assert_eq!(t.ops(), want);
}

#[test]
fn reset_tail_that_never_drains_times_out_within_budget() {
    let t = traced();
    let mut e = ten(&t, 0);
    t.inner().write32(BASE.add(0x110 + 5 * 40), 0x40).unwrap();
    let clock = khal_std::SimClock::new();
    let mut d = SimDelay::new(&clock);
    let budget = Budget {
        period_us: 100,
        polls: 50,
    };
    let buf = DmaBuf::new(256, 64).unwrap();
    let mut r = NqRing::host(
        buf,
        e.queue(5).unwrap(),
        NqConfig::tail(256).with_budget(budget),
    )
    .unwrap();
    assert_eq!(
        r.reset(&mut e, &mut d),
        Err(Error::Timeout("nq tail drain"))
    );
    assert!(d.slept_ns() <= budget.total_us() * 1000 * 11 / 10);
    // 51 tail reads, no head write: the reset stopped at the wait.
    let ops = t.ops();
    assert_eq!(ops.iter().filter(|o| o.1 == 0x110 + 5 * 40).count(), 51);
    assert!(!ops.iter().any(|o| o.1 == 0x10C + 5 * 40));
}

#[test]
fn each_queue_is_handed_out_once_and_comes_back_with_its_ring() {
    let t = traced();
    let mut e = ten(&t, 0);
    let q = e.queue(7).unwrap();
    // The token's registers are the flavour's, computed once [004 §3].
    assert_eq!(q.index(), 7);
    assert_eq!(e.queue(7).map(|_| ()), Err(Error::QueueTaken(7)));
    // NQ 6 is still free (its token is dropped here: taken from now on).
    assert!(e.queue(6).is_ok());
    assert_eq!(Error::QueueTaken(7).c_code(), None);
    assert_eq!(
        Error::QueueTaken(7).to_string(),
        "nq 7 was already handed out by its engine"
    );
    // A ring owns the token; `into_parts` gives it back for another ring.
    let buf = DmaBuf::new(256, 64).unwrap().with_bus_addr(0x2000);
    let ring = NqRing::host(buf, q, NqConfig::tail(256)).unwrap();
    let (buf, q) = ring.into_parts();
    assert_eq!(
        t.ops(),
        vec![],
        "building and giving up a ring writes nothing"
    );
    let ring = NqRing::configure_host(buf, q, NqConfig::phase(128)).unwrap();
    let o = 0x100 + 7 * 40;
    assert_eq!(
        t.ops(),
        vec![(W, o, 0x2000), (W, o + 4, 0), (W, o + 8, 128)]
    );
    assert_eq!((ring.queue().index(), ring.capacity()), (7, 8));
    // The token's tail and head registers are the flavour's, computed once
    // [004 §3]: the tail read of a probe, the head write of a drain.
    t.clear();
    ring.tail_offset().unwrap();
    assert_eq!(t.ops(), vec![(R, 0x110 + 7 * 40, 0)]);
    // Still taken while the ring holds it.
    assert_eq!(e.queue(7).map(|_| ()), Err(Error::QueueTaken(7)));

    let t1 = traced();
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut one = NotificEngine::init(&t1, &mut block, EngineConfig::top_sp(BpMode::None)).unwrap();
    let q0 = one.queue(0).unwrap();
    let ring = NqRing::host(DmaBuf::new(256, 64).unwrap(), q0, NqConfig::tail(256)).unwrap();
    t1.clear();
    ring.tail_offset().unwrap();
    assert_eq!(t1.ops(), vec![(R, 0x110, 0)]);
}

#[test]
fn another_engine_is_refused_before_any_write() {
    // Another engine at the same base, of another device: a ring's reset and
    // enable reach only its own engine.
    let t = traced();
    let t_other = traced();
    let mut mine = ten(&t, 0);
    let mut other = ten(&t_other, 0);
    let mut r = host_ring(&mut mine, 2, NqConfig::tail);
    let clock = khal_std::SimClock::new();
    let mut d = SimDelay::new(&clock);
    assert_eq!(r.reset(&mut other, &mut d), Err(Error::WrongEngine));
    assert_eq!(r.enable(&mut other, &mut d), Err(Error::WrongEngine));
    assert_eq!((t.ops(), t_other.ops()), (vec![], vec![]));
    assert_eq!(d.slept_ns(), 0);
    assert_eq!(Error::WrongEngine.c_code(), None);
    // An engine on another base (the same MMIO type) is refused too; it
    // writes nothing on either window.
    let t2 = Trace::new(HeapMmio::new(BASE.add(0x1000), 0x1000));
    let far_block_blocks = NotificBlocks::new();
    let mut far_block = far_block_blocks.take(BASE.add(0x1000)).unwrap();
    let mut far = NotificEngine::init(&t2, &mut far_block, EngineConfig::tpb(BpMode::All)).unwrap();
    t2.clear();
    assert_eq!(r.reset(&mut far, &mut d), Err(Error::WrongEngine));
    assert_eq!((t.ops(), t2.ops()), (vec![], vec![]));
    // Its own engine works.
    r.enable(&mut mine, &mut d).unwrap();
    assert_eq!(t.ops().last(), Some(&(W, 0x14, 1 << 2)));
}

#[test]
fn a_block_is_given_back_when_its_engine_and_ring_are_gone() {
    // One block, two bring-ups one after the other: while the first engine
    // or its ring lives, the block is lent (a second init does not compile,
    // compile-fail `two_engines_one_block`, `ring_outlives_its_engine`);
    // once both are dropped it is brought up afresh.
    let t = traced();
    let clock = khal_std::SimClock::new();
    let mut d = SimDelay::new(&clock);
    let ens_blocks = NotificBlocks::new();
    let mut ens = ens_blocks.take(BASE).unwrap();
    {
        let mut first = NotificEngine::init(&t, &mut ens, EngineConfig::tpb(BpMode::All)).unwrap();
        let mut r = host_ring(&mut first, 2, NqConfig::phase);
        r.enable(&mut first, &mut d).unwrap();
        assert_eq!(t.ops().last(), Some(&(W, 0x14, 1 << 2)));
        assert_eq!(first.queue(2).map(|_| ()), Err(Error::QueueTaken(2)));
    }
    t.clear();
    let mut again = NotificEngine::init(&t, &mut ens, EngineConfig::tpb(BpMode::All)).unwrap();
    // The whole init program again [004 §2], on the same base.
    assert_eq!(
        t.ops(),
        vec![
            (W, 0x28, 0),
            (W, 0xBC, 1),
            (W, 0xB4, 0xAAE60),
            (W, 0x30, 0xFFFF_FFFF),
            (W, 0x34, 0xFFFF_FFFF),
            (W, 0x08, 0x3FF),
            (W, 0x0C, 0xFFFF_FFFF),
            (W, 0x10, 0xFFFF_FFFF),
        ]
    );
    assert!(t
        .accesses()
        .iter()
        .all(|a| a.block.map(|b| b.1) == Some(BASE)));
    // Fresh shadows, and NQ 2 free again: the old ring's bit is not carried
    // into the new engine's `nq_enable` writes.
    let mut r = host_ring(&mut again, 2, NqConfig::phase);
    t.clear();
    r.enable(&mut again, &mut d).unwrap();
    assert_eq!(t.ops().last(), Some(&(W, 0x14, 1 << 2)));
}
