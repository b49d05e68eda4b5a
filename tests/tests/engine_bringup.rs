//! Golden MMIO traces of the engine bring-up leaves of FACTS §13 on the real
//! arches: `program_start` on CAYMAN, the run-stall releases,
//! `disable_hw_decode`, the HW-decode table init, the DGE setters and getters,
//! the TopSP doorbells, the DVE seed / debug level / rspcomb, the rounding
//! writers; and the orchestrators' step order and first error. Each trace is
//! compared whole: one write moved, added or dropped fails the test.

use std::cell::RefCell;

use khal::engine::tpb_regs::{self, RndEngine};
use khal::engine::DgeWrite;
use khal::engine::{
    self, hw_decode_table_init, Checked, EngineOps, EngineParams, HwDecodeImages, PeParams,
    PoolingParams, RawStpbConfig, SpHandle, Step, StpbConfig, StpbOps,
};
use khal::family::{Doorbell, NxLocal, Offset};
use khal::{Cayman, Engine, Mariana, Sunda};
use khal::{DeviceAddr, Error, Mmio, Result};
use khal_std::Op::{Read, Write};
use khal_std::{HeapMmio, Trace};

/// The TPB memory handle of the tests: the XT/NX windows are offsets from it.
const MEM: u64 = 0x20_0000_0000;

/// A register file from `MEM` covering every window (up to POOL + `0x4000`
/// and the HW-decode tables), named with `A`'s NX/XT descriptions at `window`.
fn traced_at<A: NxLocal>(window: u64) -> Trace<HeapMmio> {
    let mut t = Trace::new(HeapMmio::new(DeviceAddr(MEM), 0x310_0000));
    if let Ok(b) = A::NX_LOCAL_BLOCK {
        t = t.with_block(DeviceAddr(MEM + window), 0x1_0000, b);
    }
    if let Ok(b) = A::XT_LOCAL_BLOCK {
        t = t.with_block(DeviceAddr(MEM + window), 0x1_0000, b);
    }
    t
}

/// The accesses as (op, absolute address, value): the named blocks would make
/// `Trace::ops` block-relative.
fn abs(t: &Trace<HeapMmio>) -> Vec<(khal_std::Op, u64, u32)> {
    t.accesses()
        .iter()
        .map(|a| (a.op, a.addr.get(), a.value))
        .collect()
}

fn names(t: &Trace<HeapMmio>) -> Vec<String> {
    t.accesses()
        .iter()
        .map(|a| a.reg.map_or("-".to_string(), |r| r.to_string()))
        .collect()
}

#[test]
fn program_start_on_cayman_lo_hi_ctrl_per_engine_in_the_notes_order() {
    // [002 §4], [FACTS §12.1, §13.1]: POOL, ACT, PE, DVE, SP; each start_addr_lo
    // (+0x1060), start_addr_hi (+0x1080), START_CTRL (+0x004) = 1 at its window.
    let m = Trace::new(HeapMmio::new(DeviceAddr(MEM), 0x310_0000));
    let starts = [
        0x0000_0001_0000_0000, // PE
        0x0000_0002_0000_0010, // ACT
        0x0000_0003_0000_0020, // POOL
        0x0000_0004_0000_0030, // DVE
        u64::MAX,              // SP skipped
    ];
    engine::program_start::<Cayman, _>(&m, DeviceAddr(MEM), &starts).unwrap();
    let expect: Vec<_> = [
        (0x306_0000u64, 0x20u32, 3u32), // POOL
        (0x246_0000, 0x10, 2),          // ACT
        (0x266_0000, 0x00, 1),          // PE
        (0x2B6_0000, 0x30, 4),          // DVE
    ]
    .into_iter()
    .flat_map(|(w, lo, hi)| {
        [
            (Write, MEM + w + 0x1060, lo),
            (Write, MEM + w + 0x1080, hi),
            (Write, MEM + w + 0x004, 1),
        ]
    })
    .collect();
    assert_eq!(abs(&m), expect);

    // Launching SP: its window needs the eng-4 owner the notes do not pass:
    // NotTraced before any write, even with the other engines launched.
    let m = Trace::new(HeapMmio::new(DeviceAddr(MEM), 0x310_0000));
    let r = engine::program_start::<Cayman, _>(&m, DeviceAddr(MEM), &[1, 2, 3, 4, 5]);
    assert!(
        matches!(r, Err(Error::NotTraced(w)) if w.contains("eng 4")),
        "{r:?}"
    );
    assert!(abs(&m).is_empty());
}

#[test]
fn release_run_stall_per_arch() {
    // [hw-decode §5-§7], [FACTS §13.4]: SUNDA W +0x04 = 0 only; CAYMAN and
    // MARIANA W +0x00 = 0, then W +0x3000 = 0; in the POOL window.
    let m = traced_at::<Sunda>(0x296_0000);
    engine::release_run_stall::<Sunda, _>(&m, DeviceAddr(MEM), Engine::Pool).unwrap();
    assert_eq!(abs(&m), vec![(Write, MEM + 0x296_0004, 0)]);
    assert_eq!(names(&m), ["tpb_nx_local.release_run_stall"]);
    fn cayman_like<A: NxLocal>() {
        let m = traced_at::<A>(0x306_0000);
        engine::release_run_stall::<A, _>(&m, DeviceAddr(MEM), Engine::Pool).unwrap();
        assert_eq!(
            abs(&m),
            vec![(Write, MEM + 0x306_0000, 0), (Write, MEM + 0x306_3000, 0)]
        );
        assert_eq!(
            names(&m),
            [
                "tpb_nx_local.release_run_stall",
                "tpb_xt_local.q7_release_run_stall"
            ]
        );
        for eng in [Engine::Pe, Engine::Act, Engine::Dve, Engine::Sp] {
            let m = traced_at::<A>(0x306_0000);
            let r = engine::release_run_stall::<A, _>(&m, DeviceAddr(MEM), eng);
            assert!(matches!(r, Err(Error::NotTraced(_))), "{eng}: {r:?}");
            assert!(abs(&m).is_empty());
        }
    }
    cayman_like::<Cayman>();
    cayman_like::<Mariana>();
}

#[test]
fn disable_hw_decode_keeps_every_other_bit() {
    // RMW +0x4000: (r & 0xFFFF_FFFE) | (v != 0) [hw-decode §7], [csr §7].
    fn check<A: NxLocal>() {
        let w = DeviceAddr(MEM + 0x306_0000);
        for (preset, v, want) in [
            (0x0017_FFFEu32, 1u32, 0x0017_FFFFu32),
            (0xFFFF_FFFF, 0, 0xFFFF_FFFE),
            (0x0000_0002, 7, 0x0000_0003),
        ] {
            let m = traced_at::<A>(0x306_0000);
            m.inner().write32(w.add(0x4000), preset).unwrap();
            engine::disable_hw_decode::<A, _>(&m, w, v).unwrap();
            assert_eq!(
                abs(&m),
                vec![
                    (Read, w.get() + 0x4000, preset),
                    (Write, w.get() + 0x4000, want)
                ]
            );
        }
    }
    check::<Cayman>();
    check::<Mariana>();
    // SUNDA: no-op, no access.
    let m = traced_at::<Sunda>(0x296_0000);
    engine::disable_hw_decode::<Sunda, _>(&m, DeviceAddr(MEM + 0x296_0000), 1).unwrap();
    assert!(abs(&m).is_empty());
}

/// `n` bytes `0, 1, 2, …` (mod 251).
fn image(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i % 251) as u8).collect()
}

fn words(bytes: &[u8], padded: usize) -> Vec<u32> {
    let mut b = bytes.to_vec();
    b.resize(padded, 0);
    b.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The CAYMAN PE HW-decode program [hw-decode §4], [FACTS §13.5]: CAM padded
/// to 0x1000 at +0x267_0000, PROFILE padded to 0x2000 at +0x267_1000, then the
/// read-modify-write of HW_DECODE_CONTROL in POOL's window (+0x306_4000,
/// FACTS §13.4) leaving `control`.
fn cayman_pe_hw_decode_trace(
    cam: &[u8],
    profile: &[u8],
    control: u32,
) -> Vec<(khal_std::Op, u64, u32)> {
    let mut expect = Vec::new();
    for (i, w) in words(cam, 0x1000).into_iter().enumerate() {
        expect.push((Write, MEM + 0x267_0000 + 4 * i as u64, w));
    }
    for (i, w) in words(profile, 0x2000).into_iter().enumerate() {
        expect.push((Write, MEM + 0x267_1000 + 4 * i as u64, w));
    }
    expect.push((Read, MEM + 0x306_4000, 0));
    expect.push((Write, MEM + 0x306_4000, control));
    expect
}

#[test]
fn hw_decode_table_init_cam_then_profile_then_disable() {
    // [hw-decode §4], [FACTS §13.5]: CAYMAN PE: CAM padded to 0x1000 at
    // +0x267_0000, PROFILE padded to 0x2000 at +0x267_1000, then the RMW of
    // HW_DECODE_CONTROL in POOL's window xt_local(mem, 2, 1) = +0x306_0000
    // [FACTS §13.4], not PE's.
    let cam = image(0x400);
    let profile = image(0x1F00);
    let m = traced_at::<Cayman>(0x306_0000);
    let images = HwDecodeImages {
        cam: &cam,
        profile: &profile,
    };
    hw_decode_table_init::<Cayman, _>(&m, DeviceAddr(MEM), Engine::Pe, images, 1).unwrap();
    assert_eq!(abs(&m), cayman_pe_hw_decode_trace(&cam, &profile, 1));

    // A CAM one byte over its aperture: refused before any write.
    let big = image(0x1001);
    let m = traced_at::<Cayman>(0x266_0000);
    let r = hw_decode_table_init::<Cayman, _>(
        &m,
        DeviceAddr(MEM),
        Engine::Act,
        HwDecodeImages {
            cam: &big,
            profile: &[],
        },
        0,
    );
    assert!(matches!(r, Err(Error::OutOfRange { .. })), "{r:?}");
    assert!(abs(&m).is_empty());
    // A PROFILE over its aperture: the C writes the CAM first, then refuses.
    let big = image(0x2001);
    let m = traced_at::<Cayman>(0x266_0000);
    let r = hw_decode_table_init::<Cayman, _>(
        &m,
        DeviceAddr(MEM),
        Engine::Pe,
        HwDecodeImages {
            cam: &cam,
            profile: &big,
        },
        0,
    );
    assert!(matches!(r, Err(Error::OutOfRange { .. })), "{r:?}");
    assert_eq!(abs(&m).len(), 0x1000 / 4);
    // MARIANA: bases not printed; SUNDA: no HW-decode silicon. Nothing written.
    let m = traced_at::<Mariana>(0x266_0000);
    let r = hw_decode_table_init::<Mariana, _>(&m, DeviceAddr(MEM), Engine::Pe, images, 1);
    assert!(matches!(r, Err(Error::NotTraced(_))));
    let r = hw_decode_table_init::<Sunda, _>(&m, DeviceAddr(MEM), Engine::Pe, images, 1);
    assert!(matches!(r, Err(Error::Unsupported { .. })));
    assert!(abs(&m).is_empty());
}

#[test]
fn dge_carveout_and_mapping() {
    // [arch-stpb §3-§4], [FACTS §13.8]: value ((size >> 4) << 16) | (offset >> 4)
    // at POOL window + 0x14E0 (CAYMAN); cap 0x3_8000; cap check first.
    let w = MEM + 0x306_0000;
    let m = traced_at::<Cayman>(0x306_0000);
    engine::set_dge_carveout::<Cayman, _>(&m, DeviceAddr(MEM), 0x100, 0x20).unwrap();
    engine::set_dge_carveout::<Cayman, _>(&m, DeviceAddr(MEM), 0x3_8000 - 0x10, 0x10).unwrap();
    engine::set_dge_dma_mapping::<Cayman, _>(&m, DeviceAddr(MEM), 0x3, 0x2).unwrap();
    assert_eq!(
        abs(&m),
        vec![
            (Write, w + 0x14E0, 0x0010_0002),
            (Write, w + 0x14E0, 0x37FF_0001),
            (Write, w + 0x1500, 0x0003_0002),
        ]
    );
    assert_eq!(
        names(&m),
        [
            "tpb_nx_local.sw_dge_carveout",
            "tpb_nx_local.sw_dge_carveout",
            "tpb_nx_local.sw_dge_dma_mapping"
        ]
    );
    // Every -22, nothing written: over the cap (and unaligned: the cap check
    // comes first), unaligned size, unaligned offset.
    let m = traced_at::<Cayman>(0x306_0000);
    for (size, offset, what) in [
        (0x3_8000, 0x10, "dge carveout: offset + size > cap"),
        (0x3_8001, 0x1, "dge carveout: offset + size > cap"),
        (
            0x108,
            0x0,
            "dge carveout: size or offset not a multiple of 16",
        ),
        (
            0x100,
            0x8,
            "dge carveout: size or offset not a multiple of 16",
        ),
    ] {
        let r = engine::set_dge_carveout::<Cayman, _>(&m, DeviceAddr(MEM), size, offset);
        assert_eq!(r, Err(Error::InvalidArgument(what)));
        assert_eq!(r.map_err(|e| e.c_code()), Err(Some(-22)));
        assert_eq!(
            engine::get_dge_carveout_register_offset_and_val::<Cayman>(size, offset),
            Err(Error::InvalidArgument(what))
        );
    }
    assert!(abs(&m).is_empty());
    // The getters: same checks, no I/O.
    assert_eq!(
        engine::get_dge_carveout_register_offset_and_val::<Cayman>(0x100, 0x20),
        Ok(DgeWrite {
            offset: Offset(0x14E0),
            value: 0x0010_0002
        })
    );
    assert_eq!(
        engine::get_dge_dma_mapping_register_offset_and_val::<Cayman>(0x3, 0x2),
        Ok(DgeWrite {
            offset: Offset(0x1500),
            value: 0x0003_0002
        })
    );
    // SUNDA / MARIANA: their caps are checked, the registers are NOT TRACED.
    let m = traced_at::<Sunda>(0x296_0000);
    assert_eq!(
        engine::set_dge_carveout::<Sunda, _>(&m, DeviceAddr(MEM), 0x3_0000, 0x10),
        Err(Error::InvalidArgument("dge carveout: offset + size > cap"))
    );
    assert!(matches!(
        engine::set_dge_carveout::<Sunda, _>(&m, DeviceAddr(MEM), 0x3_0000, 0),
        Err(Error::NotTraced(_))
    ));
    assert_eq!(
        engine::set_dge_carveout::<Mariana, _>(&m, DeviceAddr(MEM), 0x4_0000, 0x10),
        Err(Error::InvalidArgument("dge carveout: offset + size > cap"))
    );
    assert!(matches!(
        engine::set_dge_carveout::<Mariana, _>(&m, DeviceAddr(MEM), 0x4_0000, 0),
        Err(Error::NotTraced(_))
    ));
    assert!(matches!(
        engine::set_dge_dma_mapping::<Mariana, _>(&m, DeviceAddr(MEM), 1, 2),
        Err(Error::NotTraced(_))
    ));
    assert!(abs(&m).is_empty());
}

#[test]
fn topsp_doorbells_per_arch() {
    // [topsp §3a, §8], [FACTS §13.2]: W(xt_local(mem, 4, 0) + off, 1).
    let m = traced_at::<Cayman>(0x6_0000);
    for d in Doorbell::ALL {
        engine::topsp_doorbell::<Cayman, _>(&m, DeviceAddr(MEM), d, 9).unwrap();
    }
    let t = MEM + 0x6_0000;
    assert_eq!(
        abs(&m),
        vec![
            (Write, t + 0x1540, 1),
            (Write, t + 0x1560, 1),
            (Write, t + 0x15A0, 1),
            (Write, t + 0x15C0, 1),
        ]
    );
    assert_eq!(
        names(&m),
        [
            "tpb_nx_local.topsp_init_signal",
            "tpb_nx_local.topsp_tsync_signal",
            "tpb_nx_local.topsp_host_trigger",
            "tpb_nx_local.topsp_stop_signal"
        ]
    );
    // SUNDA: host_trigger takes the caller's value (MED); tsync not traced;
    // init_signal's offset is known (MED), the value its setter writes is not.
    let m = traced_at::<Sunda>(0x6_0000);
    for d in [Doorbell::HostTrigger, Doorbell::StopSignal] {
        engine::topsp_doorbell::<Sunda, _>(&m, DeviceAddr(MEM), d, 7).unwrap();
    }
    for d in [Doorbell::TsyncSignal, Doorbell::InitSignal] {
        assert!(matches!(
            engine::topsp_doorbell::<Sunda, _>(&m, DeviceAddr(MEM), d, 7),
            Err(Error::NotTraced(_))
        ));
    }
    assert_eq!(abs(&m), vec![(Write, t + 0x848, 7), (Write, t + 0x84C, 1)]);
    // MARIANA: host_trigger only (init/tsync/stop rest on "as CAYMAN").
    let m = traced_at::<Mariana>(0x6_0000);
    engine::topsp_doorbell::<Mariana, _>(&m, DeviceAddr(MEM), Doorbell::HostTrigger, 7).unwrap();
    for d in [
        Doorbell::InitSignal,
        Doorbell::TsyncSignal,
        Doorbell::StopSignal,
    ] {
        assert!(matches!(
            engine::topsp_doorbell::<Mariana, _>(&m, DeviceAddr(MEM), d, 7),
            Err(Error::NotTraced(_))
        ));
    }
    assert_eq!(abs(&m), vec![(Write, t + 0x15A0, 1)]);
}

#[test]
fn dve_seed_debug_level_rspcomb_and_rounding_writers() {
    let regs = DeviceAddr(MEM + 0x1000);
    let r = regs.get();
    let m = Trace::new(HeapMmio::new(DeviceAddr(MEM), 0x10_0000));
    // [arch-stpb §2], [FACTS §13.6, §13.7].
    tpb_regs::dve_reset_rng_seed(&m, regs).unwrap();
    m.inner().write32(regs.add(0x304), 0xABCD_EF12).unwrap();
    assert_eq!(
        tpb_regs::dve_write_debug_level(&m, regs, 5),
        Ok(0xABCD_EF15)
    );
    assert_eq!(
        tpb_regs::dve_write_debug_level(&m, regs, 0x1F),
        Ok(0xABCD_EF1F)
    );
    for e in [RndEngine::Pool, RndEngine::Act, RndEngine::Dve] {
        tpb_regs::set_stochastic_rnd(&m, regs, e, 0x11).unwrap();
        tpb_regs::set_rnd_mode(&m, regs, e, 0x22).unwrap();
    }
    tpb_regs::set_psum_rounding::<Mariana, _>(&m, regs, 0x33).unwrap();
    assert_eq!(
        abs(&m),
        vec![
            (Write, r + 0x314, 0xCD9E_8D57),
            (Read, r + 0x304, 0xABCD_EF12),
            (Write, r + 0x304, 0xABCD_EF15),
            (Read, r + 0x304, 0xABCD_EF15),
            (Write, r + 0x304, 0xABCD_EF1F),
            (Write, r + 0x10C, 0x11),
            (Write, r + 0x110, 0x22),
            (Write, r + 0x20C, 0x11),
            (Write, r + 0x210, 0x22),
            (Write, r + 0x30C, 0x11),
            (Write, r + 0x310, 0x22),
            (Write, r + 0xF14, 2),
            (Write, r + 0xF10, 0x33),
        ]
    );
    // PSUM rounding off MARIANA: refused, nothing written.
    m.clear();
    for r in [
        tpb_regs::set_psum_rounding::<Cayman, _>(&m, regs, 1),
        tpb_regs::set_psum_rounding::<Sunda, _>(&m, regs, 1),
    ] {
        assert!(matches!(r, Err(Error::Unsupported { .. })));
    }
    // rspcomb: MARIANA RMW bit 0 = v & 1; SUNDA/CAYMAN nothing.
    tpb_regs::force_rspcomb_eight_deep::<Cayman, _>(&m, regs, 1).unwrap();
    tpb_regs::force_rspcomb_eight_deep::<Sunda, _>(&m, regs, 1).unwrap();
    assert!(abs(&m).is_empty());
    m.inner().write32(regs.add(0x3C0), 0xFFFF_FFFE).unwrap();
    tpb_regs::force_rspcomb_eight_deep::<Mariana, _>(&m, regs, 3).unwrap();
    tpb_regs::force_rspcomb_eight_deep::<Mariana, _>(&m, regs, 2).unwrap();
    assert_eq!(
        abs(&m),
        vec![
            (Read, r + 0x3C0, 0xFFFF_FFFE),
            (Write, r + 0x3C0, 0xFFFF_FFFF),
            (Read, r + 0x3C0, 0xFFFF_FFFF),
            (Write, r + 0x3C0, 0xFFFF_FFFE),
        ]
    );
    // The pool-arbiter chicken bit: RMW `+0x3F0 |= 2`, every other bit kept;
    // the timestamp increment: one read of `+0x308` [FACTS §13.7].
    m.clear();
    m.inner().write32(regs.add(0x3F0), 0x8000_0001).unwrap();
    m.inner().write32(regs.add(0x308), 0x0000_0640).unwrap();
    assert_eq!(
        tpb_regs::dve_set_pool_arbiter_chicken_bit(&m, regs),
        Ok(0x8000_0003)
    );
    assert_eq!(tpb_regs::dve_timestamp_inc(&m, regs), Ok(0x640));
    assert_eq!(
        abs(&m),
        vec![
            (Read, r + 0x3F0, 0x8000_0001),
            (Write, r + 0x3F0, 0x8000_0003),
            (Read, r + 0x308, 0x640),
        ]
    );
}

#[test]
fn stpb_init_on_every_arch_stops_at_pooling_regs_init_before_any_write() {
    // [FACTS §13.6, §13.11]: every regs_init needs masks nobody traced.
    fn check<A: EngineOps>() {
        let eng = EngineParams::new(DeviceAddr(0x1000), DeviceAddr(MEM));
        let pool = PoolingParams::new(DeviceAddr(0x2000), DeviceAddr(MEM));
        let pe = PeParams::new(DeviceAddr(0x3000), DeviceAddr(MEM));
        let cfg = RawStpbConfig {
            pooling: Some(&pool),
            act: Some(&eng),
            dve: Some(&eng),
            pe: &pe,
            sp: None,
            notific: false,
            flag: 0,
            init: true,
        };
        let m = Trace::new(HeapMmio::new(DeviceAddr(MEM), 0x1000));
        let mut log = Vec::new();
        let r = engine::stpb_init_raw::<A, _, _>(&m, &cfg, &mut |e, s, o| log.push((e, s, o)))
            .map(|_| ());
        assert!(matches!(r, Err(Error::NotTraced(w)) if w.contains("pooling regs_init")));
        assert_eq!(log.len(), 1);
        assert_eq!((log[0].0, log[0].1), (Engine::Pool, Step::RegsInit));
        assert!(abs(&m).is_empty());
        // The plain stpb_init answers the same, raw or typed.
        assert_eq!(
            engine::stpb_init_raw::<A, _, _>(&m, &cfg, &mut ()).map(|_| ()),
            r
        );
        let sp = SpHandle {
            sp_mem: Some(DeviceAddr(MEM)),
            sp_regs: Some(DeviceAddr(0x4000)),
            ens_regs: None,
            inst_debug_level: 0,
        };
        let typed = StpbConfig {
            pooling: &pool,
            act: &eng,
            dve: &eng,
            pe: &pe,
            sp: &sp,
        };
        assert_eq!(
            khal::engine::stpb_init::<A, _, _>(&m, &typed, &mut ()).map(|_| ()),
            r
        );
        assert_eq!(
            engine::stpb_init::<A, _, _>(&m, &typed, &mut ()).map(|_| ()),
            r
        );
    }
    check::<Sunda>();
    check::<Cayman>();
    check::<Mariana>();
}

// A test arch whose leaves record their calls: the orchestrators' order and
// first-error behaviour, independent of what the real arches know.
thread_local! {
    static CALLS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    static FAIL: RefCell<Option<String>> = const { RefCell::new(None) };
}

fn call(name: &str) -> Result<()> {
    CALLS.with(|c| c.borrow_mut().push(name.to_string()));
    match FAIL.with(|f| f.borrow().clone()) {
        Some(n) if n == name => Err(Error::NotTraced("injected")),
        _ => Ok(()),
    }
}

/// Records `<eng>.<step>` for the leaves given here; PE's ucode_seq_init
/// and dma_init and every SP leaf but regs_init keep the default.
enum Steps {}
impl StpbOps for Steps {
    fn dve_step<M: Mmio + ?Sized>(_: &M, step: Step, _: &EngineParams<'_>) -> Result<()> {
        call(&format!("dve.{}", step.name()))
    }
    fn act_step<M: Mmio + ?Sized>(_: &M, step: Step, _: &EngineParams<'_>) -> Result<()> {
        call(&format!("act.{}", step.name()))
    }
    fn pe_step<M: Mmio + ?Sized>(_: &M, step: Step, _: &PeParams<'_>) -> Result<()> {
        match step {
            Step::UcodeSeqInit | Step::DmaInit => Ok(()),
            _ => call(&format!("pe.{}", step.name())),
        }
    }
    fn pooling_step<M: Mmio + ?Sized>(_: &M, step: Step, _: &PoolingParams<'_>) -> Result<()> {
        call(&format!("pool.{}", step.name()))
    }
    fn sp_step<M: Mmio + ?Sized>(_: &M, step: Step, _: Checked<'_, SpHandle>) -> Result<()> {
        match step {
            Step::RegsInit => call("sp.regs_init"),
            _ => Ok(()),
        }
    }
}

fn take() -> Vec<String> {
    CALLS.with(|c| std::mem::take(&mut *c.borrow_mut()))
}

#[test]
fn orchestrators_run_their_steps_in_order_and_stop_at_the_first_error() {
    let m = HeapMmio::new(DeviceAddr(0), 0x10);
    let eng = EngineParams::new(DeviceAddr(0), DeviceAddr(0));
    let pool = PoolingParams::new(DeviceAddr(0), DeviceAddr(0));
    let pe = PeParams::new(DeviceAddr(0), DeviceAddr(0));
    let cfg = RawStpbConfig {
        pooling: Some(&pool),
        act: Some(&eng),
        dve: Some(&eng),
        pe: &pe,
        sp: None,
        notific: false,
        flag: 0,
        init: false,
    };
    FAIL.with(|f| *f.borrow_mut() = None);
    take();
    let mut log = Vec::new();
    let r =
        engine::stpb_init_raw::<Steps, _, _>(&m, &cfg, &mut |e: Engine, s: Step, o: Result<()>| {
            log.push(format!("{e}.{}:{}", s.name(), o.is_ok()))
        });
    // sp_init without a handle: -22 after every engine ran.
    assert_eq!(
        r.map(|_| ()),
        Err(Error::InvalidArgument("sp handle absent"))
    );
    let all = [
        "pool.regs_init",
        "pool.ucode_seq_init",
        "pool.q7_ucode_eng_init",
        "pool.hw_decode_table_init",
        "pool.dma_init",
        "pool.release_seq_run_stall",
        "pool.release_eng_run_stall",
        "act.regs_init",
        "act.ucode_seq_init",
        "act.hw_decode_table_init",
        "act.dma_init",
        "act.release_run_stall",
        "dve.regs_init",
        "dve.ucode_seq_init",
        "dve.hw_decode_table_init",
        "dve.dma_init",
        "dve.release_run_stall",
        "pe.regs_init",
        "pe.hw_decode_table_init",
        "pe.release_run_stall",
    ];
    assert_eq!(take(), all);
    // PE's default leaves (ucode_seq_init, dma_init) ran too: logged, no call.
    assert_eq!(log.len(), all.len() + 2);
    assert!(log.iter().all(|l| l.ends_with(":true")));
    let sp = SpHandle {
        sp_mem: Some(DeviceAddr(0)),
        sp_regs: Some(DeviceAddr(0)),
        ens_regs: None,
        inst_debug_level: 0,
    };
    let typed = StpbConfig {
        pooling: &pool,
        act: &eng,
        dve: &eng,
        pe: &pe,
        sp: &sp,
    };
    // Typed, with a handle: the same steps, then the SP's register bring-up
    // (its one step with a body here); sp_init answers Ok.
    engine::stpb_init::<Steps, _, _>(&m, &typed, &mut ()).unwrap();
    assert_eq!(take(), [&all[..], &["sp.regs_init"]].concat());
    // A failing step stops its engine and the whole stpb_init.
    for at in [
        "pool.q7_ucode_eng_init",
        "act.dma_init",
        "dve.hw_decode_table_init",
    ] {
        FAIL.with(|f| *f.borrow_mut() = Some(at.to_string()));
        let r = engine::stpb_init_raw::<Steps, _, _>(&m, &cfg, &mut ());
        assert_eq!(r.map(|_| ()), Err(Error::NotTraced("injected")));
        let calls = take();
        assert_eq!(calls.last().map(String::as_str), Some(at));
        let n = all.iter().position(|c| *c == at).unwrap() + 1;
        assert_eq!(calls, all[..n]);
    }
    FAIL.with(|f| *f.borrow_mut() = None);
}

#[test]
fn hw_decode_images_filling_their_apertures_are_accepted_and_one_byte_more_is_refused_exactly() {
    // [hw-decode §4], [FACTS §13.5]: "too big" is larger than the aperture
    // (CAYMAN: CAM 0x1000, PROFILE 0x2000); an image of exactly the aperture's
    // size is written whole, with no padding.
    let cam = image(0x1000);
    let profile = image(0x2000);
    let m = traced_at::<Cayman>(0x266_0000);
    let images = HwDecodeImages {
        cam: &cam,
        profile: &profile,
    };
    hw_decode_table_init::<Cayman, _>(&m, DeviceAddr(MEM), Engine::Pe, images, 0).unwrap();
    assert_eq!(abs(&m), cayman_pe_hw_decode_trace(&cam, &profile, 0));

    // One byte more: the exact error (the first refused length is the limit).
    let m = traced_at::<Cayman>(0x266_0000);
    let big = image(0x1001);
    let r = hw_decode_table_init::<Cayman, _>(
        &m,
        DeviceAddr(MEM),
        Engine::Pe,
        HwDecodeImages {
            cam: &big,
            profile: &[],
        },
        0,
    );
    assert_eq!(
        r,
        Err(Error::OutOfRange {
            what: "HW decode CAM table too big!",
            value: 0x1001,
            limit: 0x1001,
        })
    );
    assert!(abs(&m).is_empty());
    let m = traced_at::<Cayman>(0x266_0000);
    let big = image(0x2001);
    let r = hw_decode_table_init::<Cayman, _>(
        &m,
        DeviceAddr(MEM),
        Engine::Pe,
        HwDecodeImages {
            cam: &cam,
            profile: &big,
        },
        0,
    );
    assert_eq!(
        r,
        Err(Error::OutOfRange {
            what: "HW decode PROFILE table too big!",
            value: 0x2001,
            limit: 0x2001,
        })
    );
    assert_eq!(abs(&m).len(), 0x1000 / 4);
}

#[test]
fn dge_dma_mapping_keeps_the_bits_of_lo_above_15() {
    // [arch-stpb §3-§4], [FACTS §13.8]: value = (hi << 16) | lo with no checks,
    // so bits of `lo` above 15 land in hi's field, OR-ed (not toggled): hi = 1
    // and lo = 0x1_0001 give 0x0001_0001.
    let w = MEM + 0x306_0000;
    let m = traced_at::<Cayman>(0x306_0000);
    engine::set_dge_dma_mapping::<Cayman, _>(&m, DeviceAddr(MEM), 0x1, 0x1_0001).unwrap();
    assert_eq!(abs(&m), vec![(Write, w + 0x1500, 0x0001_0001)]);
    assert_eq!(
        engine::get_dge_dma_mapping_register_offset_and_val::<Cayman>(0x1, 0x1_0001),
        Ok(DgeWrite {
            offset: Offset(0x1500),
            value: 0x0001_0001
        })
    );
}
