//! Golden TopSP-NX and NX/XT local registers, Q7 params, notification masks
//! and the MARIANA mailbox map [FACTS §3.6, §3.7, §5, §7].

use khal::core::addr::MESH_HIGH_BIT;
use khal::core::family::{
    NotificMask, NotificMasks, NqMailboxMap, NxLocal, Offset, Q7Params, TopSpNx,
};
use khal::core::ids::Bounded;
use khal::{Cayman, DeviceAddr, Engine, Error, Mariana, Sunda};

fn nt<T: std::fmt::Debug>(r: khal::Result<T>) -> bool {
    matches!(r, Err(Error::NotTraced(_)))
}

#[test]
fn topsp_golden() {
    assert_eq!(Sunda::topsp_window_base(), Ok(Offset(0x6_0000)));
    assert_eq!(Sunda::topsp_stop_signal(), Ok(Offset(0x6_084C)));
    assert_eq!(Sunda::topsp_basic_block_switch(), Ok(Offset(0x6_083C)));
    assert!(nt(Sunda::topsp_host_trigger()));

    assert!(nt(Cayman::topsp_window_base()));
    assert_eq!(Cayman::topsp_stop_signal(), Ok(Offset(0x6_15C0)));
    assert_eq!(Cayman::topsp_basic_block_switch(), Ok(Offset(0x6_15E0)));
    assert_eq!(Cayman::topsp_host_trigger(), Ok(Offset(0x6_15A0)));

    assert!(nt(Mariana::topsp_window_base()));
    assert!(nt(Mariana::topsp_stop_signal()));
    assert!(nt(Mariana::topsp_basic_block_switch()));
    assert!(nt(Mariana::topsp_host_trigger()));
}

#[test]
fn sunda_and_cayman_topsp_are_not_a_constant_delta_apart() {
    let d_stop = Cayman::topsp_stop_signal().unwrap().get() as i64
        - Sunda::topsp_stop_signal().unwrap().get() as i64;
    let d_bbs = Cayman::topsp_basic_block_switch().unwrap().get() as i64
        - Sunda::topsp_basic_block_switch().unwrap().get() as i64;
    assert_ne!(d_stop, d_bbs);
    // And the order flips: SUNDA stop > bbs, CAYMAN stop < bbs.
    assert!(Sunda::topsp_stop_signal().unwrap() > Sunda::topsp_basic_block_switch().unwrap());
    assert!(Cayman::topsp_stop_signal().unwrap() < Cayman::topsp_basic_block_switch().unwrap());
}

#[test]
fn cayman_nx_xt_local_golden() {
    assert_eq!(Cayman::start_ctrl().unwrap().offset(), 0x004);
    assert_eq!(Cayman::notific_sw_queue_num2().unwrap().offset(), 0xA08);
    let f = Cayman::events_semaphores_nt().unwrap();
    assert_eq!(f.mask(), 0xF_0000);
    assert_eq!(f.shift(), 16);
    // The C RMW: (r & 0xfff0ffff) | ((v << 16) & 0xf0000).
    for (r, v) in [(0xFFFF_FFFFu32, 0u32), (0, 0x1F), (0x1234_5678, 0xA)] {
        assert_eq!(f.set(r, v), (r & 0xFFF0_FFFF) | ((v << 16) & 0xF_0000));
    }
    assert_eq!(Cayman::release_run_stall().unwrap().offset(), 0x0);
    assert_eq!(Cayman::memcopy_dmas_offset(), Ok(Offset(0x13A0)));
    for i in 0..3 {
        assert!(nt(Cayman::nx_rsvd_space(Bounded::new(i, "rsvd").unwrap())));
    }
    let nx = Cayman::NX_LOCAL_BLOCK.unwrap();
    assert_eq!(
        nx.lookup(0x4).unwrap().to_string(),
        "tpb_nx_local.start_ctrl"
    );
    assert_eq!(
        nx.lookup(0xA08).unwrap().to_string(),
        "tpb_nx_local.notific_sw_queue_num2"
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
}

#[test]
fn sunda_nx_rsvd_space_golden() {
    let offs: Vec<u64> = (0..3)
        .map(|i| {
            Sunda::nx_rsvd_space(Bounded::new(i, "rsvd").unwrap())
                .unwrap()
                .offset()
        })
        .collect();
    assert_eq!(offs, [0x83C, 0x840, 0x844]);
    // Register indices 527/528/529 [004 §5].
    assert_eq!(offs, [527 * 4, 528 * 4, 529 * 4]);
    assert!(Bounded::<3>::new(3, "rsvd").is_err());
    let nx = Sunda::NX_LOCAL_BLOCK.unwrap();
    assert_eq!(
        nx.lookup(0x840).unwrap().to_string(),
        "tpb_nx_local.nx_rsvd_space1"
    );
    assert!(nt(Sunda::start_ctrl()));
    assert!(nt(Sunda::notific_sw_queue_num2()));
    assert!(nt(Sunda::events_semaphores_nt()));
    assert!(nt(Sunda::release_run_stall()));
    assert!(nt(Sunda::memcopy_dmas_offset()));
    assert!(nt(Sunda::XT_LOCAL_BLOCK));
}

#[test]
fn mariana_local_registers_not_traced() {
    assert!(nt(Mariana::NX_LOCAL_BLOCK));
    assert!(nt(Mariana::XT_LOCAL_BLOCK));
    assert!(nt(Mariana::start_ctrl()));
    assert!(nt(Mariana::notific_sw_queue_num2()));
    assert!(nt(Mariana::events_semaphores_nt()));
    assert!(nt(Mariana::release_run_stall()));
    assert!(nt(Mariana::memcopy_dmas_offset()));
    assert!(nt(Mariana::nx_rsvd_space(Bounded::new(0, "rsvd").unwrap())));
}

#[test]
fn start_addr_and_window_base_not_traced_anywhere() {
    fn check<A: NxLocal>() {
        assert!(nt(A::start_addr_lo()));
        assert!(nt(A::start_addr_hi()));
        for eng in Engine::ALL {
            assert!(nt(A::xt_local_reg_offset(eng)));
        }
    }
    check::<Sunda>();
    check::<Cayman>();
    check::<Mariana>();
}

#[test]
fn q7_and_notific_masks_not_traced_anywhere() {
    fn check<A: Q7Params + NotificMasks>() {
        for set in [0, 2, 5, u32::MAX] {
            assert_eq!(A::q7_params(set), Err(Error::NotTraced("q7 params")));
        }
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
