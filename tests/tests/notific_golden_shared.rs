//! The shared golden programs (`tests/golden/notific.rs`, also asserted by the on-target
//! tests under QEMU) against the host's traced register file: init of both flavours, queue
//! config, reset with and without the flush pulse, enable [004 §2, §3].

#[path = "../golden/notific.rs"]
mod golden;

use golden::Access;
use khal_core::dma::DmaMemory;
use khal_core::notific::{
    BpMode, EngineConfig, NotificBlocks, NotificEngine, NqConfig, NqRing, UartMode,
};
use khal_core::Mmio;
use khal_std::Op;
use khal_std::{DmaBuf, SimDelay};
use khal_tests::nq::{traced, BASE};

fn want(p: &[Access]) -> Vec<(Op, u64, u32)> {
    p.iter()
        .map(|&(op, off, v)| {
            let op = match op {
                golden::Op::Read => Op::Read,
                golden::Op::Write => Op::Write,
            };
            (op, off, v)
        })
        .collect()
}

#[test]
fn init_programs() {
    let t = traced();
    NotificEngine::init(
        &t,
        &mut NotificBlocks::new().take(BASE).unwrap(),
        EngineConfig::tpb(BpMode::All).with_uart_mode(UartMode(5)),
    )
    .unwrap();
    assert_eq!(t.ops(), want(&golden::INIT_TEN_BP0_UART5));
    let t = traced();
    NotificEngine::init(
        &t,
        &mut NotificBlocks::new().take(BASE).unwrap(),
        EngineConfig::top_sp(BpMode::None).with_uart_mode(UartMode(7)),
    )
    .unwrap();
    assert_eq!(t.ops(), want(&golden::INIT_SINGLE_BP1_UART7));
}

#[test]
fn queue_config_reset_and_enable_programs() {
    let t = traced();
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init(&t, &mut block, EngineConfig::tpb(BpMode::All)).unwrap();
    t.inner().write32(BASE.add(0xB8), 0x3C00).unwrap();
    t.clear();
    let bus = 0x12_3456_7000;
    let buf = DmaBuf::new(256, 64).unwrap().with_bus_addr(bus);
    let mut r2 = NqRing::configure_host(&buf, e.queue(2).unwrap(), NqConfig::phase(256)).unwrap();
    assert_eq!(t.ops(), want(&golden::queue_config(2, true, bus, 256)));
    let clock = khal_std::SimClock::new();
    let mut d = SimDelay::new(&clock);
    t.clear();
    r2.enable(&mut e, &mut d).unwrap();
    assert_eq!(t.ops(), want(golden::enable(2, true, 0, 0x3C00).as_slice()));
    let other = DmaBuf::new(256, 64).unwrap();
    let mut r7 = NqRing::host(&other, e.queue(7).unwrap(), NqConfig::tail(256)).unwrap();
    t.clear();
    r7.enable(&mut e, &mut d).unwrap();
    assert_eq!(
        t.ops(),
        want(golden::enable(7, true, 0x4, 0x3C00).as_slice())
    );
    t.clear();
    buf.write(0, &[0xAB; 256]).unwrap();
    r2.reset(&mut e, &mut d).unwrap();
    assert_eq!(
        t.ops(),
        want(golden::reset(2, true, 0x84, 0x3C00).as_slice())
    );

    // The single-queue flavour: no stride [004 §3 QUIRK].
    let t1 = traced();
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut one = NotificEngine::init(&t1, &mut block, EngineConfig::top_sp(BpMode::All)).unwrap();
    t1.clear();
    let mut r0 =
        NqRing::configure_host(&other, one.queue(0).unwrap(), NqConfig::tail(256)).unwrap();
    r0.enable(&mut one, &mut d).unwrap();
    let mut w = want(&golden::queue_config(0, false, other.bus_addr(), 256));
    w.extend(want(golden::enable(0, false, 0, 0).as_slice()));
    assert_eq!(t1.ops(), w);
}
