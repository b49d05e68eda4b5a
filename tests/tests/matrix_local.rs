//! Golden TopSP-NX and NX/XT local registers, the XT/NX windows, Q7 params,
//! notification masks and the MARIANA mailbox map [FACTS §3.6, §3.7, §5, §7,
//! §12.1, §13.1–§13.3].

use khal::family::{
    Doorbell, Gated, NotificMask, NotificMasks, NqMailboxMap, NxLocal, Offset, Q7Owner, Q7Param,
    Q7Params, TopSpNx,
};
use khal::Bounded;
use khal::MESH_HIGH_BIT;
use khal::{Cayman, DeviceAddr, Engine, Error, Mariana, Sunda};

fn nt<T: std::fmt::Debug>(r: khal::Result<T>) -> bool {
    matches!(r, Err(Error::NotTraced(_)))
}

#[test]
fn topsp_golden() {
    // [000 §2 QUIRK], [topsp §3a, §8], [ncfw §4.7], [FACTS §12.1, §13.2].
    assert_eq!(Sunda::TOPSP.window_base, Ok(Offset(0x6_0000)));
    assert_eq!(Sunda::TOPSP.stop_signal, Ok(Offset(0x6_084C)));
    assert_eq!(Sunda::TOPSP.basic_block_switch, Ok(Offset(0x6_083C)));
    assert_eq!(Sunda::TOPSP.host_trigger, Ok(Offset(0x6_0848)));
    assert_eq!(Sunda::TOPSP.init_signal, Ok(Offset(0x6_083C)));
    assert!(nt(Sunda::TOPSP.tsync_signal));
    assert_eq!(Sunda::topsp_doorbell_value(Doorbell::HostTrigger, 7), Ok(7));
    assert_eq!(Sunda::topsp_doorbell_value(Doorbell::StopSignal, 7), Ok(1));
    assert!(nt(Sunda::topsp_doorbell_value(Doorbell::InitSignal, 7)));

    assert_eq!(Cayman::TOPSP.window_base, Ok(Offset(0x6_0000)));
    assert_eq!(Cayman::TOPSP.init_signal, Ok(Offset(0x6_1540)));
    assert_eq!(Cayman::TOPSP.tsync_signal, Ok(Offset(0x6_1560)));
    assert_eq!(Cayman::TOPSP.stop_signal, Ok(Offset(0x6_15C0)));
    assert_eq!(Cayman::TOPSP.basic_block_switch, Ok(Offset(0x6_15E0)));
    assert_eq!(Cayman::TOPSP.host_trigger, Ok(Offset(0x6_15A0)));
    assert_eq!(
        Cayman::topsp_doorbell_value(Doorbell::HostTrigger, 7),
        Ok(1)
    );

    assert_eq!(Mariana::TOPSP.window_base, Ok(Offset(0x6_0000)));
    assert_eq!(Mariana::TOPSP.host_trigger, Ok(Offset(0x6_15A0)));
    assert_eq!(Mariana::TOPSP.basic_block_switch, Ok(Offset(0x6_15E0)));
    // Only "as CAYMAN": NOT TRACED (§13.11).
    assert!(nt(Mariana::TOPSP.stop_signal));
    assert!(nt(Mariana::TOPSP.init_signal));
    assert!(nt(Mariana::TOPSP.tsync_signal));
}

#[test]
fn xt_local_windows_golden() {
    // [q7 §6a-§6b], [FACTS §13.1]: PE, ACT, POOL, DVE, then eng 4 by owner.
    let w = |a: khal::Result<Offset>| a.map(|o| o.get());
    for (eng, s, c) in [
        (0, 0x266_0000, 0x266_0000),
        (1, 0x246_0000, 0x246_0000),
        (2, 0x296_0000, 0x306_0000),
        (3, 0x2B6_0000, 0x2B6_0000),
    ] {
        for owner in [0, 1, 0xFF] {
            assert_eq!(w(Sunda::xt_local_reg_offset(eng, owner)), Ok(s));
            assert_eq!(w(Cayman::xt_local_reg_offset(eng, owner)), Ok(c));
            assert_eq!(w(Mariana::xt_local_reg_offset(eng, owner)), Ok(c));
        }
    }
    for a in [
        Sunda::xt_local_reg_offset(4, 0),
        Cayman::xt_local_reg_offset(4, 0),
        Mariana::xt_local_reg_offset(4, 0),
    ] {
        assert_eq!(w(a), Ok(0x6_0000));
    }
    for owner in [1, 2, 0xFF] {
        assert_eq!(w(Sunda::xt_local_reg_offset(4, owner)), Ok(0x286_0000));
        assert_eq!(w(Cayman::xt_local_reg_offset(4, owner)), Ok(0x286_0000));
        // MARIANA's windows are CAYMAN's (MED, FACTS §15.3), the SP's owners too.
        assert_eq!(w(Mariana::xt_local_reg_offset(4, owner)), Ok(0x286_0000));
    }
    // eng 5: CAYMAN 0x306_0000 (role unnamed), SUNDA asserts, MARIANA not traced.
    assert_eq!(w(Cayman::xt_local_reg_offset(5, 0)), Ok(0x306_0000));
    assert!(matches!(
        Sunda::xt_local_reg_offset(5, 0),
        Err(Error::OutOfRange { .. })
    ));
    assert!(nt(Mariana::xt_local_reg_offset(5, 0)));
    assert!(matches!(
        Cayman::xt_local_reg_offset(6, 0),
        Err(Error::OutOfRange { .. })
    ));
    assert!(matches!(
        Mariana::xt_local_reg_offset(6, 0),
        Err(Error::OutOfRange { .. })
    ));
    // Derived (MED): window = sequencer base without bit 35 + 0x6_0000.
    use khal::family::SeqParams;
    for e in [Engine::Pe, Engine::Act, Engine::Pool, Engine::Dve] {
        let seq = Cayman::seq_params(e).unwrap().seq.get() & !(1u64 << 35);
        assert_eq!(
            w(Cayman::xt_local_reg_offset(e.index() as u32, 1)),
            Ok(seq + 0x6_0000)
        );
    }
}

#[test]
fn xt_local_asserting_indexes_are_each_arch_s_own_out_of_range() {
    // [q7 §6b], [FACTS §13.1]: SUNDA asserts on eng > 4, CAYMAN and MARIANA on
    // eng > 5; each arch's error names its own assert (MARIANA's table is
    // CAYMAN's for eng 0..4, not its assert).
    assert_eq!(
        Sunda::xt_local_reg_offset(5, 0),
        Err(Error::OutOfRange {
            what: "xt_local engine (sunda asserts eng > 4)",
            value: 5,
            limit: 5,
        })
    );
    assert_eq!(
        Cayman::xt_local_reg_offset(6, 0),
        Err(Error::OutOfRange {
            what: "xt_local engine (cayman asserts eng > 5)",
            value: 6,
            limit: 6,
        })
    );
    assert_eq!(
        Mariana::xt_local_reg_offset(0xFFFF_FFFF, 0),
        Err(Error::OutOfRange {
            what: "xt_local engine (asserts eng > 5)",
            value: 0xFFFF_FFFF,
            limit: 6,
        })
    );
}

#[test]
fn sunda_and_cayman_topsp_are_not_a_constant_delta_apart() {
    let d_stop = Cayman::TOPSP.stop_signal.unwrap().get() as i64
        - Sunda::TOPSP.stop_signal.unwrap().get() as i64;
    let d_bbs = Cayman::TOPSP.basic_block_switch.unwrap().get() as i64
        - Sunda::TOPSP.basic_block_switch.unwrap().get() as i64;
    assert_ne!(d_stop, d_bbs);
    // And the order flips: SUNDA stop > bbs, CAYMAN stop < bbs.
    assert!(Sunda::TOPSP.stop_signal.unwrap() > Sunda::TOPSP.basic_block_switch.unwrap());
    assert!(Cayman::TOPSP.stop_signal.unwrap() < Cayman::TOPSP.basic_block_switch.unwrap());
}

#[test]
fn cayman_nx_xt_local_golden() {
    assert_eq!(Cayman::NX_LOCAL_REGS.start_ctrl.unwrap().offset(), 0x004);
    assert_eq!(
        Cayman::NX_LOCAL_REGS
            .notific_sw_queue_num2
            .unwrap()
            .offset(),
        0xA08
    );
    let f = Cayman::NX_LOCAL_REGS.events_semaphores_nt.unwrap();
    assert_eq!(f.mask(), 0xF_0000);
    assert_eq!(f.lo, 16);
    // The C RMW: (r & 0xfff0ffff) | ((v << 16) & 0xf0000).
    for (r, v) in [(0xFFFF_FFFFu32, 0u32), (0, 0x1F), (0x1234_5678, 0xA)] {
        assert_eq!(f.set(r, v), (r & 0xFFF0_FFFF) | ((v << 16) & 0xF_0000));
    }
    assert_eq!(
        Cayman::NX_LOCAL_REGS.release_run_stall.unwrap().offset(),
        0x0
    );
    assert_eq!(
        Cayman::NX_LOCAL_REGS.memcopy_dmas_offset,
        Ok(Offset(0x13A0))
    );
    assert!(nt(Cayman::NX_LOCAL_REGS.nx_rsvd_space));
    let nx = Cayman::NX_LOCAL_BLOCK.unwrap();
    assert_eq!(
        nx.lookup(0x4).unwrap().to_string(),
        "tpb_nx_local.start_ctrl"
    );
    // The SW-queue selectors are described in tpb_regs (FACTS §13.10 #8).
    assert_eq!(nx.lookup(0xA08), None);
    assert_eq!(
        Cayman::NX_LOCAL_REGS
            .notific_sw_queue_num2
            .unwrap()
            .desc()
            .name,
        "sw_queue_num2"
    );
    assert_eq!(
        nx.lookup(0x0).unwrap().to_string(),
        "tpb_nx_local.release_run_stall"
    );
    let xt = Cayman::XT_LOCAL_BLOCK.unwrap();
    assert_eq!(
        xt.lookup(0x13A0).unwrap().to_string(),
        "tpb_xt_local.memcopy_dmas"
    );
    // [000r1 §3], [FACTS §12.1] (MED).
    assert_eq!(
        Cayman::NX_LOCAL_REGS.start_addr_lo.unwrap().offset(),
        0x1060
    );
    assert_eq!(
        Cayman::NX_LOCAL_REGS.start_addr_hi.unwrap().offset(),
        0x1080
    );
    assert_eq!(Cayman::NX_LOCAL_REGS.notific_ctrl.unwrap().offset(), 0x808);
    assert_eq!(
        Cayman::NX_LOCAL_REGS
            .notific_sw_queue_num3
            .unwrap()
            .offset(),
        0xA0C
    );
    let e = Cayman::NX_LOCAL_REGS.errors_nt.unwrap();
    assert_eq!((e.mask(), e.lo), (0xF, 0));
    assert_eq!(
        Cayman::NX_LOCAL_REGS
            .notific_sw_queue_num4
            .unwrap()
            .offset(),
        0xA10
    );
    let (h, hen) = Cayman::NX_LOCAL_REGS.ham_throttle_fields.unwrap();
    assert_eq!((h.mask(), h.lo), (0xF0, 4));
    assert_eq!((hen.mask(), hen.lo), (0x10_0000, 20));
    assert_eq!(Cayman::NX_LOCAL_REGS.dma_ctrl.unwrap().offset(), 0x10A0);
    let d = Cayman::NX_LOCAL_REGS.dma_regs.unwrap().map(|r| r.offset());
    assert_eq!(d, [0x10C0, 0x10E0, 0x1100]);
    assert_eq!(
        Cayman::NX_LOCAL_REGS.memcopy_queues_offset,
        Ok(Offset(0x13C0))
    );
    assert_eq!(Cayman::NX_LOCAL_REGS.memcopy_all_offset, Ok(Offset(0x13E0)));
    assert_eq!(
        Cayman::NX_LOCAL_REGS
            .iram_cache_block_size
            .unwrap()
            .offset(),
        0x1260
    );
    let present = |g: khal::Result<Gated<khal::regs::Reg>>| match g.unwrap() {
        Gated::Present(r) => Some(r.offset()),
        Gated::Absent => None,
    };
    assert_eq!(
        present(Cayman::NX_LOCAL_REGS.q7_release_run_stall),
        Some(0x3000)
    );
    assert_eq!(
        present(Cayman::NX_LOCAL_REGS.hw_decode_control),
        Some(0x4000)
    );
    assert_eq!(
        present(Mariana::NX_LOCAL_REGS.q7_release_run_stall),
        Some(0x3000)
    );
    assert_eq!(
        present(Mariana::NX_LOCAL_REGS.hw_decode_control),
        Some(0x4000)
    );
    assert_eq!(present(Sunda::NX_LOCAL_REGS.q7_release_run_stall), None);
    assert_eq!(present(Sunda::NX_LOCAL_REGS.hw_decode_control), None);
    // Every offset >= 0x1000 is a scratch register lr[i] = 0x1000 + 0x20 i, i < 60 (MED).
    for b in [nx, xt] {
        for r in b
            .regs
            .iter()
            .filter(|r| (0x1000..0x3000).contains(&r.offset))
        {
            assert_eq!((r.offset - 0x1000) % 0x20, 0, "{}", r.name);
            assert!((r.offset - 0x1000) / 0x20 < 60, "{}", r.name);
        }
    }
}

#[test]
fn sunda_nx_rsvd_space_golden() {
    let offs = Sunda::NX_LOCAL_REGS
        .nx_rsvd_space
        .unwrap()
        .map(|r| r.offset());
    assert_eq!(offs, [0x83C, 0x840, 0x844]);
    // Register indices 527/528/529 [004 §5].
    assert_eq!(offs, [527 * 4, 528 * 4, 529 * 4]);
    let nx = Sunda::NX_LOCAL_BLOCK.unwrap();
    assert_eq!(
        nx.lookup(0x840).unwrap().to_string(),
        "tpb_nx_local.nx_rsvd_space1"
    );
    assert!(nt(Sunda::NX_LOCAL_REGS.start_ctrl));
    assert!(nt(Sunda::NX_LOCAL_REGS.notific_sw_queue_num2));
    assert!(nt(Sunda::NX_LOCAL_REGS.events_semaphores_nt));
    // The sequencer release at +0x04, not CAYMAN's +0x00 (§13.10 #6).
    assert_eq!(
        Sunda::NX_LOCAL_REGS.release_run_stall.unwrap().offset(),
        0x04
    );
    assert_eq!(Sunda::NX_LOCAL_REGS.dma_ctrl.unwrap().offset(), 0x40);
    assert_eq!(
        Sunda::NX_LOCAL_REGS.notific_sw_queue_num3.unwrap().offset(),
        0xA0C
    );
    assert_eq!(
        Sunda::NX_LOCAL_REGS.iram_cache_block_size.unwrap().offset(),
        0x1260
    );
    assert!(nt(Sunda::NX_LOCAL_REGS.memcopy_dmas_offset));
    assert!(nt(Sunda::XT_LOCAL_BLOCK));
}

#[test]
fn mariana_local_registers_beyond_the_releases_not_traced() {
    assert_eq!(
        Mariana::NX_LOCAL_REGS.release_run_stall.unwrap().offset(),
        0x0
    );
    assert!(nt(Mariana::NX_LOCAL_REGS.start_ctrl));
    assert!(nt(Mariana::NX_LOCAL_REGS.start_addr_lo));
    assert!(nt(Mariana::NX_LOCAL_REGS.notific_sw_queue_num2));
    assert!(nt(Mariana::NX_LOCAL_REGS.events_semaphores_nt));
    assert!(nt(Mariana::NX_LOCAL_REGS.memcopy_dmas_offset));
    assert!(nt(Mariana::NX_LOCAL_REGS.nx_rsvd_space));
    // Given on every arch: tpb_regs + 0xA0C (MED) and XT +0x1260.
    assert_eq!(
        Mariana::NX_LOCAL_REGS
            .notific_sw_queue_num3
            .unwrap()
            .offset(),
        0xA0C
    );
    assert_eq!(Mariana::NX_LOCAL_REGS.errors_nt.unwrap().mask(), 0xF);
    assert_eq!(
        Mariana::NX_LOCAL_REGS
            .iram_cache_block_size
            .unwrap()
            .offset(),
        0x1260
    );
    assert!(nt(Mariana::NX_LOCAL_REGS.dma_ctrl));
}

#[test]
fn start_addr_traced_on_cayman_only() {
    assert!(nt(Sunda::NX_LOCAL_REGS.start_addr_lo));
    assert!(nt(Sunda::NX_LOCAL_REGS.start_addr_hi));
    assert!(nt(Mariana::NX_LOCAL_REGS.start_addr_hi));
    assert!(Cayman::NX_LOCAL_REGS.start_addr_lo.is_ok());
}

#[test]
fn q7_params_golden() {
    // [q7 §3], [FACTS §13.3].
    let sunda = Q7Param {
        base: Offset(0x298_0000),
        iram_size: 0x1_0000,
        dram_size: 0x1_0000,
        iram_rsvd: 0,
        dram_rsvd: 0,
        num_q7: 8,
    };
    assert_eq!(Sunda::q7_params(Q7Owner::Pooling), Ok(sunda));
    assert!(matches!(
        Sunda::q7_params(Q7Owner::ComputeCluster),
        Err(Error::Unsupported { .. })
    ));
    assert_eq!(sunda.stride(), 0x2_0000);
    assert_eq!(sunda.dram(0).get() - sunda.iram(0).get(), 0x1_0000);
    let pool = Q7Param {
        base: Offset(0x310_0000),
        iram_size: 0x2_0000,
        dram_size: 0x4_0000,
        iram_rsvd: 0x6_0000,
        dram_rsvd: 0x4_0000,
        num_q7: 8,
    };
    let cc = Q7Param { num_q7: 4, ..pool };
    for (o, p) in [(Q7Owner::Pooling, pool), (Q7Owner::ComputeCluster, cc)] {
        assert_eq!(Cayman::q7_params(o), Ok(p));
        assert_eq!(Mariana::q7_params(o), Ok(p));
    }
    // CAYMAN core k: IRAM 0x310_0000 + k 0x10_0000, DRAM = IRAM + 0x8_0000 [devmap-pool §3].
    assert_eq!(pool.iram(3), Offset(0x340_0000));
    assert_eq!(pool.dram(3), Offset(0x348_0000));
    // Owner index -> owner, and the -1 refusals.
    assert_eq!(Sunda::q7_owner(0), Ok(Q7Owner::Pooling));
    assert_eq!(
        Sunda::q7_owner(1),
        Err(Error::Rejected("only pooling supported"))
    );
    assert_eq!(Cayman::q7_owner(1), Ok(Q7Owner::ComputeCluster));
    assert_eq!(
        Mariana::q7_owner(2),
        Err(Error::Rejected("Invalid q7 owner"))
    );
    assert_eq!(Error::Rejected("x").c_code(), Some(-1));
}

#[test]
fn notific_masks_not_traced_anywhere() {
    fn check<A: NotificMasks>() {
        for m in NotificMask::ALL {
            assert!(nt(A::notific_mask(m)));
        }
    }
    check::<Sunda>();
    check::<Cayman>();
    check::<Mariana>();
}

#[test]
fn mariana_mailbox_map_golden_and_mesh_half() {
    let map = Mariana::NQ_MAILBOX_MAP.unwrap();
    assert_eq!(map.len(), 16);
    for q in 0..8u64 {
        assert_eq!(map[q as usize], DeviceAddr(0x85_8000_0400 + 0x200 * q));
        assert_eq!(
            map[q as usize + 8],
            DeviceAddr(0x8085_8000_0400 + 0x200 * q)
        );
        assert_eq!(
            map[q as usize + 8].get(),
            map[q as usize].get() | MESH_HIGH_BIT
        );
    }
    // set_notific_queue_base indexing: [8 * (block > 3) + queue].
    for block in 0..8 {
        for queue in 0..8 {
            let want = map[8 * usize::from(block > 3) + queue as usize];
            assert_eq!(
                Mariana::nq_mailbox_base(
                    Bounded::new(block, "block").unwrap(),
                    Bounded::new(queue, "queue").unwrap()
                ),
                Ok(want)
            );
        }
    }
    assert!(Bounded::<8>::new(8, "block").is_err());
}

#[test]
fn sunda_and_cayman_intc_not_traced() {
    let b = Bounded::new(0, "block").unwrap();
    let q = Bounded::new(0, "queue").unwrap();
    assert!(nt(Sunda::nq_mailbox_base(b, q)));
    assert!(nt(Cayman::nq_mailbox_base(b, q)));
    assert!(nt(Sunda::NQ_MAILBOX_MAP));
    assert!(nt(Cayman::NQ_MAILBOX_MAP));
}
