//! Golden MMIO traces of the real STPB/SP bodies [002 §2, §4], [FACTS §5]:
//! exact offsets, values and order, on every arch where the op exists; and
//! `NotTraced` with nothing written where a value is not traced.

use khal::engine::notif::{self, ErrorsNt};
use khal::engine::StartLayout;
use khal::engine::{self, EngineOps, SpHandle};
use khal::family::{NxLocal, TpbBases};
use khal::notific::regs::NOTIFIC;
use khal::notific::{BpMode, EngineConfig, NotificBlocks, NotificEngine};
use khal::{register_block, DeviceAddr, Error, Mmio};
use khal::{AnyArch, Cayman, Mariana, Sunda};
use khal_std::model::tpb::{StartRegs, TpbWindow};
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
            assert_eq!(nt.base(), ENS);
            assert!(out.notific_error.is_none());
            // topsp_init is the same call.
            let m2 = traced();
            engine::topsp_init_raw::<A, _>(&m2, Some(&SP), true, flag, false).unwrap();
            assert_eq!(m2.ops(), m.ops());
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
        let top = traced();
        assert_eq!(engine::topsp_init::<A, _>(&top, &SP), r);
        assert_eq!(top.ops(), raw.ops());
    }
    check::<Sunda>();
    check::<Cayman>();
    check::<Mariana>();
    // The same through AnyArch.
    for id in [2, 3, 4] {
        let arch = AnyArch::new(id).unwrap();
        let m = traced();
        arch.sp_init_raw(&m, Some(&SP), true, 0, false).unwrap();
        assert_eq!(m.ops(), notific_init_trace(0x3FF));
        let (typed, raw) = (traced(), traced());
        let r = arch
            .sp_init_raw(&raw, Some(&SP), false, 0, true)
            .map(|_| ());
        assert_eq!(arch.sp_init(&typed, &SP), r);
        assert_eq!(typed.ops(), raw.ops());
    }
}

// A test layout for the launch registers: the real offsets are NOT TRACED on
// every arch [FACTS §3.6], so the body is exercised with injected ones.
register_block! {
    /// Injected NX launch registers (test only, not an arch's numbers).
    pub TEST_NX: "test_nx" {
        /// start_addr_lo (injected)
        LO @ 0x10, rw, "start_addr_lo";
        /// start_addr_hi (injected)
        HI @ 0x14, rw, "start_addr_hi";
        /// START_CTRL (CAYMAN's traced +0x004)
        CTRL @ 0x04, rw, "start_ctrl";
        /// sw_queue_num3 (injected)
        NUM3 @ 0x40, rw, "sw_queue_num3", fields num3 {
            /// errors_nt (injected)
            ERRORS_NT: 4..=7,
        };
    }
}

const WINDOWS: [u64; 5] = [0x10_0000, 0x11_0000, 0x12_0000, 0x13_0000, 0x14_0000];

fn layout() -> StartLayout {
    StartLayout {
        windows: WINDOWS.map(|w| Some(DeviceAddr(w))),
        start_addr_lo: LO,
        start_addr_hi: HI,
        start_ctrl: CTRL,
    }
}

#[test]
fn program_start_order_and_values_with_an_injected_layout() {
    let m = Trace::new(HeapMmio::new(DeviceAddr(0), 0x20_0000));
    // starts indexed by engine number: PE, ACT, POOL, DVE, SP.
    let starts = [
        0x0000_0001_0000_0000,
        0x0000_0002_0000_0010,
        0x0000_0003_0000_0020,
        u64::MAX,
        0x0000_0005_0000_0040,
    ];
    engine::program_start_with(&m, &layout(), &starts).unwrap();
    let w = |e: usize, off: u64| WINDOWS[e] + off;
    let expect: Vec<_> = [
        (2, 0x0000_0020, 3), // POOL
        (1, 0x0000_0010, 2), // ACT
        (0, 0x0000_0000, 1), // PE
        // DVE skipped
        (4, 0x0000_0040, 5), // SP
    ]
    .into_iter()
    .flat_map(|(e, lo, hi)| {
        [
            (Write, w(e, 0x10), lo),
            (Write, w(e, 0x14), hi),
            (Write, w(e, 0x04), 1),
        ]
    })
    .collect();
    assert_eq!(m.ops(), expect);

    // All skipped: nothing.
    let m = Trace::new(HeapMmio::new(DeviceAddr(0), 0x20_0000));
    engine::program_start_with(&m, &layout(), &[u64::MAX; 5]).unwrap();
    assert!(m.ops().is_empty());

    // A launched engine without a window: NotTraced, checked before any write.
    let mut l = layout();
    l.windows[3] = None; // DVE, launched after POOL, ACT, PE
    let m = Trace::new(HeapMmio::new(DeviceAddr(0), 0x20_0000));
    assert_eq!(
        engine::program_start_with(&m, &l, &[1, 2, 3, 4, 5]),
        Err(Error::NotTraced("xt_local_reg_offset window"))
    );
    assert!(m.ops().is_empty());
}

#[test]
fn program_start_on_the_device_model_launches_each_engine_once() {
    let dev = DeviceModel::new();
    let regs = StartRegs {
        lo: 0x10,
        hi: 0x14,
        ctrl: 0x04,
    };
    for (i, w) in WINDOWS.iter().enumerate() {
        let name = ["tpb.pe", "tpb.act", "tpb.pool", "tpb.dve", "tpb.sp"][i];
        dev.mount(
            DeviceAddr(*w),
            TpbWindow::new(name, 0x1000).with_start_regs(regs),
        )
        .unwrap();
    }
    let starts = [0xA0, 0xA1, u64::MAX, 0x1_0000_00A3, 0xA4];
    engine::program_start_with(&dev, &layout(), &starts).unwrap();
    let launches: Vec<Vec<u64>> = WINDOWS
        .iter()
        .map(|w| {
            dev.with_block(DeviceAddr(*w), |t: &mut TpbWindow, _| t.launches().to_vec())
                .unwrap()
        })
        .collect();
    assert_eq!(
        launches,
        vec![
            vec![0xA0],
            vec![0xA1],
            vec![],
            vec![0x1_0000_00A3],
            vec![0xA4]
        ]
    );
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
    let any = AnyArch::new(2).unwrap();
    assert_eq!(any.get_axi_offset(0, 4), Ok(DeviceAddr(0xFFF_C000_0004)));
    assert!(matches!(
        any.get_axi_offset(2, 0),
        Err(Error::OutOfRange {
            value: 2,
            limit: 2,
            ..
        })
    ));
    assert_eq!(
        AnyArch::new(4).unwrap().get_axi_offset(7, 0x10),
        Ok(DeviceAddr(0x8070_0000_0010))
    );
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
        AnyArch::new(3)
            .unwrap()
            .update_events_semaphores_nt(&m, regs, 0x13),
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
fn notification_enables_with_injected_masks() {
    let m = traced();
    let mut nt = engine(&m);
    // error, disable: update(0, mask) of wr_buf_enable from the all-ones shadow.
    notif::error_notif_enable_with(&mut nt, 0x0000_00F0, false, 3, None).unwrap();
    // error, enable: errors_nt = q (read-modify-write), then update(mask, mask).
    let num3 = ErrorsNt {
        regs: ENS,
        reg: NUM3,
        field: num3::ERRORS_NT,
    };
    m.inner().write32(ENS.add(0x40), 0xFFFF_FF0F).unwrap();
    notif::error_notif_enable_with(&mut nt, 0x0000_00F0, true, 3, Some(num3)).unwrap();
    // ham: wr_buf_enable again, with its own mask.
    notif::ham_notif_enable_with(&mut nt, 0x8000_0001, false).unwrap();
    notif::ham_notif_enable_with(&mut nt, 0x8000_0001, true).unwrap();
    // evsem: the hw back-pressure pair, from its all-ones shadow.
    notif::evsem_notif_hw_bp_enable_with(&mut nt, 0x3, false).unwrap();
    notif::evsem_notif_hw_bp_enable_with(&mut nt, 0x3, true).unwrap();
    assert_eq!(
        m.ops(),
        vec![
            (Write, 0x30, 0xFFFF_FF0F),
            (Write, 0x34, 0xFFFF_FFFF),
            (Read, 0x40, 0xFFFF_FF0F),
            (Write, 0x40, 0xFFFF_FF3F),
            (Write, 0x30, 0xFFFF_FFFF),
            (Write, 0x34, 0xFFFF_FFFF),
            (Write, 0x30, 0x7FFF_FFFE),
            (Write, 0x34, 0xFFFF_FFFF),
            (Write, 0x30, 0xFFFF_FFFF),
            (Write, 0x34, 0xFFFF_FFFF),
            (Write, 0x0C, 0xFFFF_FFFC),
            (Write, 0x10, 0xFFFF_FFFF),
            (Write, 0x0C, 0xFFFF_FFFF),
            (Write, 0x10, 0xFFFF_FFFF),
        ]
    );
    assert_eq!(nt.wr_buf_shadow(), u64::MAX);
    assert_eq!(nt.hw_bp_shadow(), u64::MAX);
    // Enabling the error notification without the (not traced) num3 register:
    // NotTraced before any write.
    m.clear();
    assert_eq!(
        notif::error_notif_enable_with(&mut nt, 0xF0, true, 3, None),
        Err(Error::NotTraced("tpb notific sw_queue_num3.errors_nt"))
    );
    assert!(m.ops().is_empty());
}

#[test]
fn notification_enables_through_the_arches_are_not_traced() {
    fn check<A: EngineOps>() {
        let m = traced();
        let mut nt = engine(&m);
        for en in [false, true] {
            assert!(matches!(
                notif::error_notif_enable::<A, _>(&mut nt, en, 1),
                Err(Error::NotTraced(_))
            ));
            assert!(matches!(
                notif::ham_notif_enable::<A, _>(&mut nt, en),
                Err(Error::NotTraced(_))
            ));
            assert!(matches!(
                notif::evsem_notif_hw_bp_enable::<A, _>(&mut nt, en),
                Err(Error::NotTraced(_))
            ));
        }
        assert!(m.ops().is_empty());
        assert_eq!(nt.wr_buf_shadow(), u64::MAX);
    }
    check::<Sunda>();
    check::<Cayman>();
    check::<Mariana>();
    for id in [2, 3, 4] {
        let m = traced();
        let mut nt = engine(&m);
        let any = AnyArch::new(id).unwrap();
        assert!(matches!(
            any.error_notif_enable(&mut nt, true, 0),
            Err(Error::NotTraced(_))
        ));
        assert!(matches!(
            any.ham_notif_enable(&mut nt, true),
            Err(Error::NotTraced(_))
        ));
        assert!(matches!(
            any.evsem_notif_hw_bp_enable(&mut nt, true),
            Err(Error::NotTraced(_))
        ));
        assert!(m.ops().is_empty());
    }
}

#[test]
fn dge_notif_enable_is_sunda_only() {
    let ctrl = DeviceAddr(0x300);
    let m = Trace::new(HeapMmio::new(DeviceAddr(0), 0x1000));
    // The register's offset is not traced: nothing accessed.
    assert_eq!(
        notif::dge_notif_enable::<Sunda, _>(&m, DeviceAddr(0), true),
        Err(Error::NotTraced("sunda tpb dge_notific_ctrl offset"))
    );
    assert_eq!(
        AnyArch::new(2)
            .unwrap()
            .dge_notif_enable(&m, DeviceAddr(0), true),
        Err(Error::NotTraced("sunda tpb dge_notific_ctrl offset"))
    );
    // Another arch through AnyArch: Unsupported (statically: does not compile,
    // see compile-fail/tests/ui/dge_on_cayman.rs).
    for (id, arch) in [(3, khal::ArchId::Cayman), (4, khal::ArchId::Mariana)] {
        assert_eq!(
            AnyArch::new(id)
                .unwrap()
                .dge_notif_enable(&m, DeviceAddr(0), true),
            Err(Error::Unsupported {
                what: "dge_notif_enable (SUNDA only)",
                arch
            })
        );
    }
    assert!(m.ops().is_empty());
    // The body at an explicit address: read, then bit 1 set (|= 2) / cleared.
    m.inner().write32(ctrl, 0x5).unwrap();
    notif::dge_notif_enable_at::<Sunda, _>(&m, ctrl, true).unwrap();
    notif::dge_notif_enable_at::<Sunda, _>(&m, ctrl, false).unwrap();
    assert_eq!(
        m.ops(),
        vec![
            (Read, 0x300, 0x5),
            (Write, 0x300, 0x7),
            (Read, 0x300, 0x7),
            (Write, 0x300, 0x5),
        ]
    );
}

#[test]
fn sp_init_then_intc_queue_base_end_to_end_on_the_device_model() {
    use khal::intc::{EnsNq, Intc, MsixIntc};
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
    // The error enable (mask injected) lands in the model's wr_buf_enable.
    notif::error_notif_enable_with(&mut nt, 0xF, false, 0, None).unwrap();
    assert_eq!(reg(0x30), 0xFFFF_FFF0);
    // MARIANA's INTC points NQ 1 of this engine at block 6, queue 2's mailbox.
    // The NQ comes from the handle's ENS of the block [004 §4], [FACTS §12.3].
    let intc = Intc::<Mariana>::new(
        MsixIntc::new(DeviceAddr(0x10_0000))
            .unwrap()
            .with_ens_nq(6, EnsNq::of(&nt, 1).unwrap())
            .unwrap(),
    );
    assert_eq!(
        intc.set_notific_queue_base(nt.mmio(), 6, 2),
        Ok(DeviceAddr(0x8085_8000_0800))
    );
    assert_eq!([reg(0x100 + 40), reg(0x104 + 40)], [0x8000_0800, 0x8085]);
}
