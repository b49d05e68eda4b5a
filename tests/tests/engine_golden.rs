//! Golden MMIO traces of the real STPB/SP bodies [002 §2, §4], [FACTS §5]:
//! exact offsets, values and order, on every arch where the op exists; and
//! `NotTraced` with nothing written where a value is not traced.

use khal::engine::{self, EngineOps, SpHandle};
use khal::family::{NxLocal, TpbBases};
use khal::notific::{BpMode, EngineConfig, NotificBlocks, NotificEngine, NOTIFIC};
use khal::{AnyArch, Cayman, Mariana, Sunda};
use khal::{DeviceAddr, Error, Mmio};
use khal_std::model::DeviceModel;
use khal_std::Op::{Read, Write};
use khal_std::{HeapMmio, Trace};

const ENS: DeviceAddr = DeviceAddr(0x8000);

fn traced() -> Trace<HeapMmio> {
    Trace::new(HeapMmio::new(DeviceAddr(0), 0x10_0000)).with_block(ENS, 0x1000, &NOTIFIC)
}

const SP: SpHandle = SpHandle {
    sp_mem: Some(DeviceAddr(0x4000)),
    sp_regs: Some(DeviceAddr(0x5000)),
    ens_regs: Some(ENS),
    inst_debug_level: 8,
};

/// The 10-queue notific init of `sp_init` [004 §2]: uart mode 0, wob_ctrl 1,
/// coal_timer 0xAAE60, wr_buf_enable all lanes, then bp config.
fn notific_init_trace(sw_bp: u32) -> Vec<(khal_std::Op, u64, u32)> {
    vec![
        (Write, 0x28, 0),
        (Write, 0xBC, 1),
        (Write, 0xB4, 0xAAE60),
        (Write, 0x30, 0xFFFF_FFFF),
        (Write, 0x34, 0xFFFF_FFFF),
        (Write, 0x08, sw_bp),
        (Write, 0x0C, 0xFFFF_FFFF),
        (Write, 0x10, 0xFFFF_FFFF),
    ]
}

#[test]
fn sp_init_notific_bring_up_on_every_arch() {
    fn check<A: EngineOps>() {
        for (mode, flag, sw_bp) in [(BpMode::All, 0u8, 0x3FF), (BpMode::None, 1, 0)] {
            // The C's `nt` step alone: the raw layer, the flag the mode.
            let m = traced();
            let out = engine::sp_init_raw::<A, _>(&m, Some(&SP), true, flag, false).unwrap();
            assert_eq!(m.ops(), notific_init_trace(sw_bp));
            let nt = out.notific.unwrap();
            assert_eq!(nt.num_queues(), 10);
            // On the ENS block: every write of the bring-up lands there.
            assert!(m
                .accesses()
                .iter()
                .all(|a| a.addr.get() >= ENS.get() && a.addr.get() < ENS.get() + 0x1000));
            assert!(out.notific_error.is_none());
            // Typed, the step is the caller's engine init on the ENS block:
            // the same writes.
            let m3 = traced();
            let blocks = NotificBlocks::new();
            let mut ens = blocks.take(ENS).unwrap();
            NotificEngine::init(&m3, &mut ens, EngineConfig::tpb(mode)).unwrap();
            assert_eq!(m3.ops(), m.ops());
        }
        // No notific requested: nothing at all.
        let m = traced();
        let out = engine::sp_init_raw::<A, _>(&m, Some(&SP), false, 0, false).unwrap();
        assert!(out.notific.is_none() && m.ops().is_empty());
        // The typed sp_init is the raw one's register bring-up, no notific.
        let (typed, raw) = (traced(), traced());
        let r = engine::sp_init_raw::<A, _>(&raw, Some(&SP), false, 0, true).map(|_| ());
        assert_eq!(engine::sp_init::<A, _>(&typed, &SP), r);
        assert_eq!(typed.ops(), raw.ops());
    }
    check::<Sunda>();
    check::<Cayman>();
    check::<Mariana>();
    // The same through AnyArch.
    for id in [2, 3, 4] {
        let arch = AnyArch::new(id).unwrap();
        let raw = |m: &Trace<HeapMmio>, nt: bool, init: bool| {
            khal_tests::on_arch!(arch, |A| (m: &'a Trace<HeapMmio> = m, nt: bool = nt, init: bool = init) -> khal::Result<()> {
                engine::sp_init_raw::<A, _>(m, Some(&SP), nt, 0, init).map(|_| ())
            })
        };
        let m = traced();
        raw(&m, true, false).unwrap();
        assert_eq!(m.ops(), notific_init_trace(0x3FF));
        let (typed, untyped) = (traced(), traced());
        let r = raw(&untyped, false, true);
        let t = khal_tests::on_arch!(arch, |A| (m: &'a Trace<HeapMmio> = &typed) -> khal::Result<()> {
            engine::sp_init::<A, _>(m, &SP)
        });
        assert_eq!(t, r);
        assert_eq!(typed.ops(), untyped.ops());
    }
}

#[test]
fn program_start_through_the_arches_is_not_traced_before_any_write() {
    // SUNDA and MARIANA: no start_addr/START_CTRL [FACTS §3.6, §12.1]; every
    // arch: launching SP needs the eng-4 owner the notes do not pass.
    fn check<A: NxLocal>(starts: &[[u64; 5]]) {
        let m = Trace::new(HeapMmio::new(DeviceAddr(0), 0x1000));
        for s in starts {
            let r = engine::program_start::<A, _>(&m, DeviceAddr(0), s);
            assert!(matches!(r, Err(Error::NotTraced(_))), "{r:?}");
        }
        assert_eq!(
            engine::program_start::<A, _>(&m, DeviceAddr(0), &[u64::MAX; 5]),
            Ok(())
        );
        assert!(m.ops().is_empty());
    }
    let pool_only = [u64::MAX, u64::MAX, 7, u64::MAX, u64::MAX];
    check::<Sunda>(&[[0; 5], pool_only]);
    check::<Cayman>(&[[0; 5], [u64::MAX, u64::MAX, u64::MAX, u64::MAX, 7]]);
    check::<Mariana>(&[[0; 5], pool_only]);
}

#[test]
fn get_axi_offset_adds_the_tile_base() {
    let rel = 0x2B8_7000;
    assert_eq!(
        engine::get_axi_offset(Cayman::tile(0).unwrap(), rel),
        DeviceAddr(0x20_0000_0000 + rel)
    );
    assert_eq!(
        engine::get_axi_offset(Mariana::tile(5).unwrap(), rel),
        DeviceAddr(0x8030_0000_0000 + rel)
    );
    assert_eq!(
        engine::get_axi_offset(Sunda::tile(1).unwrap(), rel),
        DeviceAddr(0xFFF_C000_0000 + 0x400_0000 + rel)
    );
    // Through AnyArch, the tile validated for the bound arch first.
    let axi = |id: u32, tile: u32, rel: u64| {
        khal_tests::on_arch!(AnyArch::new(id).unwrap(), |A| (tile: u32 = tile, rel: u64 = rel) -> khal::Result<DeviceAddr> {
            Ok(engine::get_axi_offset(A::tile(tile)?, rel))
        })
    };
    assert_eq!(axi(2, 0, 4), Ok(DeviceAddr(0xFFF_C000_0004)));
    assert!(matches!(
        axi(2, 2, 0),
        Err(Error::OutOfRange {
            value: 2,
            limit: 2,
            ..
        })
    ));
    assert_eq!(axi(4, 7, 0x10), Ok(DeviceAddr(0x8070_0000_0010)));
}

#[test]
fn events_semaphores_nt_read_modify_write_on_cayman() {
    // The register sits in tpb_regs (FACTS §13.10 #8).
    let regs = DeviceAddr(0x20_0000);
    let block = &khal::engine::tpb_regs::TPB_REGS;
    let m = Trace::new(HeapMmio::new(DeviceAddr(0), 0x40_0000)).with_block(regs, 0x1000, block);
    m.inner().write32(regs.add(0xA08), 0x1234_5678).unwrap();
    assert_eq!(
        engine::update_events_semaphores_nt::<Cayman, _>(&m, regs, 0xA),
        Ok(0x123A_5678)
    );
    // Bits beyond the 4-bit field are dropped, as the C (v << 16) & 0xF0000.
    assert_eq!(
        khal_tests::on_arch!(AnyArch::new(3).unwrap(), |A| (m: &'a Trace<HeapMmio> = &m, regs: DeviceAddr = regs) -> khal::Result<u32> {
            engine::update_events_semaphores_nt::<A, _>(m, regs, 0x13)
        }),
        Ok(0x1233_5678)
    );
    assert_eq!(
        m.ops(),
        vec![
            (Read, 0xA08, 0x1234_5678),
            (Write, 0xA08, 0x123A_5678),
            (Read, 0xA08, 0x123A_5678),
            (Write, 0xA08, 0x1233_5678),
        ]
    );
    assert_eq!(
        m.accesses()[1].reg.map(|r| r.to_string()),
        Some("tpb_regs.sw_queue_num2".to_string())
    );
    // Not traced on SUNDA and MARIANA: nothing accessed.
    let m = Trace::new(HeapMmio::new(DeviceAddr(0), 0x40_0000));
    assert!(matches!(
        engine::update_events_semaphores_nt::<Sunda, _>(&m, regs, 1),
        Err(Error::NotTraced(_))
    ));
    assert!(matches!(
        engine::update_events_semaphores_nt::<Mariana, _>(&m, regs, 1),
        Err(Error::NotTraced(_))
    ));
    assert!(m.ops().is_empty());
}

fn engine(m: &Trace<HeapMmio>) -> NotificEngine<'_, &Trace<HeapMmio>> {
    // The block of this trace's device alone, leaked: the engine outlives
    // this call.
    let blocks: &'static NotificBlocks = Box::leak(Box::new(NotificBlocks::new()));
    let block = Box::leak(Box::new(blocks.take(ENS).unwrap()));
    let nt = NotificEngine::init(m, block, EngineConfig::tpb(BpMode::All)).unwrap();
    m.clear();
    nt
}

#[test]
fn notification_enables_through_the_arches_are_not_traced() {
    fn check<A: EngineOps>() {
        let m = traced();
        let mut nt = engine(&m);
        for en in [false, true] {
            assert!(matches!(
                engine::error_notif_enable::<A, _>(&mut nt, en, 1),
                Err(Error::NotTraced(_))
            ));
            assert!(matches!(
                engine::ham_notif_enable::<A, _>(&mut nt, en),
                Err(Error::NotTraced(_))
            ));
            assert!(matches!(
                engine::evsem_notif_hw_bp_enable::<A, _>(&mut nt, en),
                Err(Error::NotTraced(_))
            ));
        }
        assert!(m.ops().is_empty());
        // The refusals left the write-buffer shadow as init set it.
        nt.update_wr_buf_enable(0, 0).unwrap();
        assert_eq!(
            m.ops(),
            vec![(Write, 0x30, 0xFFFF_FFFF), (Write, 0x34, 0xFFFF_FFFF)]
        );
    }
    check::<Sunda>();
    check::<Cayman>();
    check::<Mariana>();
    for id in [2, 3, 4] {
        let m = traced();
        let mut nt = engine(&m);
        type Nt<'n> = NotificEngine<'n, &'n Trace<HeapMmio>>;
        let r = khal_tests::on_arch!(AnyArch::new(id).unwrap(), |A| (nt: &'a mut Nt<'a> = &mut nt) -> [khal::Result<()>; 3] {
            [
                engine::error_notif_enable::<A, _>(nt, true, 0),
                engine::ham_notif_enable::<A, _>(nt, true),
                engine::evsem_notif_hw_bp_enable::<A, _>(nt, true),
            ]
        });
        assert!(r.iter().all(|r| matches!(r, Err(Error::NotTraced(_)))));
        assert!(m.ops().is_empty());
    }
}

#[test]
fn dge_notif_enable_is_sunda_only() {
    // (On another arch it does not compile: compile-fail/tests/ui/dge_on_cayman.rs;
    // its body's bit-1 read-modify-write is notif's unit test.)
    let m = Trace::new(HeapMmio::new(DeviceAddr(0), 0x1000));
    // The register's offset is not traced: nothing accessed.
    assert_eq!(
        engine::dge_notif_enable::<Sunda, _>(&m, DeviceAddr(0), true),
        Err(Error::NotTraced("sunda tpb dge_notific_ctrl offset"))
    );
    assert!(m.ops().is_empty());
}

#[test]
fn sp_init_then_intc_queue_base_end_to_end_on_the_device_model() {
    use khal::intc::{EnsNq, Intc};
    use khal::notific::Flavour;
    use khal_std::model::notific::NotificModel;

    let dev = DeviceModel::new();
    dev.mount(ENS, NotificModel::new(Flavour::TenQueue))
        .unwrap();
    let blocks = NotificBlocks::new();
    let mut ens = blocks.take(ENS).unwrap();
    let mut nt = NotificEngine::init(&dev, &mut ens, EngineConfig::tpb(BpMode::None)).unwrap();
    let reg = |off| {
        dev.with_block(ENS, |n: &mut NotificModel, _| n.reg(off))
            .unwrap()
    };
    assert_eq!(
        [
            reg(0x28),
            reg(0xBC),
            reg(0xB4),
            reg(0x30),
            reg(0x34),
            reg(0x08)
        ],
        [0, 1, 0xAAE60, 0xFFFF_FFFF, 0xFFFF_FFFF, 0]
    );
    // The error enable's body (disabling, a mask 0xF: no arch traces it)
    // lands in the model's wr_buf_enable.
    nt.update_wr_buf_enable(0, 0xF).unwrap();
    assert_eq!(reg(0x30), 0xFFFF_FFF0);
    // MARIANA's INTC points NQ 1 of this engine at block 6, queue 2's mailbox.
    // The NQ comes from the handle's ENS of the block [004 §4], [FACTS §12.3].
    let mut intc = Intc::<Mariana>::new(DeviceAddr(0x10_0000)).unwrap();
    intc.set_ens_nq(6, EnsNq::of(&nt, 1).unwrap()).unwrap();
    assert_eq!(
        intc.set_notific_queue_base(nt.mmio(), 6, 2),
        Ok(DeviceAddr(0x8085_8000_0800))
    );
    assert_eq!([reg(0x100 + 40), reg(0x104 + 40)], [0x8000_0800, 0x8085]);
}
