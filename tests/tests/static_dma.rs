//! `StaticDma` (firmware's static ring memory) as an NQ ring on the device model: the same
//! post / drain loop as `notific_e2e`, three wraps, both consumption modes, every entry once,
//! in order; and the ring obtained from `static_dma!` with no `unsafe` [004 §3].
#![forbid(unsafe_code)]

use std::sync::Arc;

use khal_core::dma::{DmaBuffer, DmaMemory, StaticDma};

/// The alignment of every `DmaBuffer` (khal's choice, docs/coverage.md).
const STATIC_DMA_ALIGN: usize = 64;
use khal_core::notific::{
    BpMode, ConsumeKind, EngineConfig, Flavour, NotificBlocks, NotificEngine, NqConfig, NqEntry,
    NqRing,
};
use khal_core::{DeviceAddr, Error};
use khal_std::model::notific::{entry_seq, NotificModel};
use khal_std::model::DeviceModel;
use khal_std::SimDelay;

const BASE: DeviceAddr = DeviceAddr(0x3053_5000);
const CAP: u32 = 16;

fn case<K: ConsumeKind>(mem: StaticDma, idx: u32, kind: fn(u32) -> NqConfig<K>) {
    let m = DeviceModel::new();
    m.mount(BASE, NotificModel::new(Flavour::TenQueue)).unwrap();
    let mem = Arc::new(mem);
    m.attach_host(mem.clone());
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init(&m, &mut block, EngineConfig::tpb(BpMode::None)).unwrap();
    let mut ring = NqRing::configure_host(&*mem, e.queue(idx).unwrap(), kind(CAP * 16)).unwrap();
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
            let n = ring.drain_with(&mut d, &mut out).unwrap();
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
    case(StaticDma::identity(buf), 3, NqConfig::phase);
    let buf = khal_core::static_dma!(256).expect("first take");
    case(StaticDma::identity(buf), 7, NqConfig::tail);
}

#[test]
fn the_facade_hands_out_the_buffer_once() {
    fn site() -> Option<&'static mut khal::dma::DmaBuffer<64>> {
        khal::static_dma!(64)
    }
    assert!(site().is_some());
    assert!(site().is_none());
}

#[test]
fn debug_prints_address_length_and_bus_address_in_hex() {
    let buf = khal_core::static_dma!(0x400).expect("first take");
    let addr = buf as *const DmaBuffer<0x400>;
    let mem = StaticDma::new(buf, 0x8000_0040).unwrap();
    assert_eq!(
        format!("{mem:?}"),
        format!("StaticDma {{ addr: {addr:p}, len: 0x400, bus_addr: 0x80000040 }}")
    );
}

#[test]
fn the_macro_hands_out_once_aligned_and_zeroed() {
    fn site() -> Option<&'static mut DmaBuffer<128>> {
        khal_core::static_dma!(128)
    }
    let first = site().expect("first call");
    assert!(site().is_none());
    assert!(site().is_none());
    assert_eq!(first as *const _ as usize % STATIC_DMA_ALIGN, 0);
    let m = StaticDma::identity(first);
    assert_eq!((m.len(), m.words().map(<[_]>::len)), (128, Some(32)));
    assert_eq!(m.bus_addr() % STATIC_DMA_ALIGN as u64, 0);
    let mut out = [0xFFu8; 128];
    m.read(0, &mut out).unwrap();
    assert_eq!(out, [0u8; 128]);
}

#[test]
fn bus_address_is_identity_or_the_given_one() {
    let buf = khal_core::static_dma!(64).unwrap();
    let addr = buf as *const _ as usize as u64;
    let m = StaticDma::identity(buf);
    assert_eq!(m.bus_addr(), addr);
    let buf = khal_core::static_dma!(64).unwrap();
    assert_eq!(
        StaticDma::new(buf, 0x20).unwrap_err(),
        Error::InvalidArgument("static dma: bus address not 64-byte aligned")
    );
    let buf = khal_core::static_dma!(64).unwrap();
    assert!(StaticDma::new(buf, u64::MAX - 63).is_err());
    let buf = khal_core::static_dma!(64).unwrap();
    assert_eq!(
        StaticDma::new(buf, 0x8_0000_0040).unwrap().bus_addr(),
        0x8_0000_0040
    );
}

/// A producer thread (payload, Release fence, phase byte last) and a
/// consumer thread (phase byte, Acquire fence, entry copy) on one buffer:
/// every access is a same-size atomic, so Miri finds no data race.
#[test]
fn a_producer_and_a_consumer_thread_do_not_race() {
    use core::sync::atomic::{
        fence,
        Ordering::{Acquire, Release},
    };
    let m = StaticDma::identity(khal_core::static_dma!(1024).expect("first take"));
    let m = &m;
    std::thread::scope(|s| {
        s.spawn(move || {
            for i in 0..8u8 {
                let off = usize::from(i) * 16;
                m.write(off, &[i; 3]).unwrap();
                m.write(off + 4, &[i; 12]).unwrap();
                fence(Release);
                m.write(off + 3, &[0x80]).unwrap();
            }
        });
        let mut seen = 0usize;
        while seen < 8 {
            if m.load_u8(seen * 16 + 3).unwrap() != 0x80 {
                std::thread::yield_now();
                continue;
            }
            fence(Acquire);
            let mut e = [0u8; 16];
            m.read(seen * 16, &mut e).unwrap();
            assert_eq!((e[0], e[15], e[3]), (seen as u8, seen as u8, 0x80));
            seen += 1;
        }
    });
}
