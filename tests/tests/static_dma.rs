//! `StaticDma` (firmware's static ring memory) as an NQ ring on the device model: the same
//! post / drain loop as `notific_e2e`, three wraps, both consumption modes, every entry once,
//! in order; and the ring obtained from `static_dma!` with no `unsafe` [004 §3].
#![forbid(unsafe_code)]

use std::sync::Arc;

use khal_core::dma::{DmaMemory, StaticDma};
use khal_core::notific::{
    BpMode, ConsumeMode, EngineConfig, Flavour, NotificEngine, NqConfig, NqEntry, NqRing,
};
use khal_core::DeviceAddr;
use khal_std::model::notific::{entry_seq, NotificModel};
use khal_std::model::DeviceModel;
use khal_std::SimDelay;

const BASE: DeviceAddr = DeviceAddr(0x3053_5000);
const CAP: u32 = 16;

fn case(mem: StaticDma, idx: u32, mode: ConsumeMode) {
    let m = DeviceModel::new();
    m.mount(BASE, NotificModel::new(Flavour::TenQueue)).unwrap();
    let mem = Arc::new(mem);
    m.attach_host(mem.clone());
    let mut e = NotificEngine::init(&m, BASE, EngineConfig::tpb(BpMode::None)).unwrap();
    let mut ring =
        NqRing::configure_host(&*mem, e.queue(idx).unwrap(), NqConfig::new(CAP * 16, mode))
            .unwrap();
    // Queue config wrote the StaticDma's bus address into base_lo / base_hi [004 §3].
    let reg = |off: u64| {
        m.with_block(BASE, |nm: &mut NotificModel, _| nm.reg(off))
            .unwrap()
    };
    let nq = 0x100 + 40 * u64::from(idx);
    assert_eq!(reg(nq), mem.bus_addr() as u32);
    assert_eq!(reg(nq + 4), (mem.bus_addr() >> 32) as u32);
    assert_eq!(reg(nq + 8), CAP * 16);
    let mut d = SimDelay::new(&m);
    ring.enable(&mut e, &mut d).unwrap();

    let seq0 = m
        .with_block(BASE, |nm: &mut NotificModel, _| nm.next_seq(idx))
        .unwrap();
    let total = 3 * u64::from(CAP) + 5;
    let (mut posted, mut got) = (0u64, 0u64);
    let mut out = [NqEntry::default(); 8];
    let mut step = 0u32;
    while got < total {
        step += 1;
        let want = ((step * 5) % CAP).max(1).min((total - posted) as u32);
        posted += u64::from(
            m.with_block(BASE, |nm: &mut NotificModel, bus| nm.post(bus, idx, want))
                .unwrap()
                .unwrap(),
        );
        loop {
            let n = ring.drain(&mut d, &mut out).unwrap();
            for e in &out[..n] {
                assert_eq!(entry_seq(e.bytes()), seq0 + got, "in order, once");
                assert_eq!(e.phase(), (got / u64::from(CAP)).is_multiple_of(2));
                got += 1;
            }
            if n == 0 {
                break;
            }
        }
        assert_eq!(got, posted, "nothing lost");
    }
    assert_eq!(ring.next_index() as u64, total % u64::from(CAP));
}

#[test]
fn static_ring_drains_three_wraps_in_both_modes() {
    let buf = khal_core::static_dma!(256).expect("first take");
    case(StaticDma::identity(buf), 3, ConsumeMode::Phase);
    let buf = khal_core::static_dma!(256).expect("first take");
    case(StaticDma::identity(buf), 7, ConsumeMode::Tail);
}

#[test]
fn the_facade_hands_out_the_buffer_once() {
    fn site() -> Option<&'static mut khal::core::dma::DmaBuffer<64>> {
        khal::core::static_dma!(64)
    }
    assert!(site().is_some());
    assert!(site().is_none());
}
