//! Golden sequencer triples and the host-visible rebase on every arch [FACTS §3.2].

use khal::family::{SeqParams, SeqSizes, SeqTriple};
use khal::HOST_VISIBLE_REBASE;
use khal::{Cayman, DeviceAddr, Engine, Error, HostVisible, Mariana, Sunda};

const TRN2_BASES: [(Engine, u64); 4] = [
    (Engine::Pe, 0x8_0260_0000),
    (Engine::Act, 0x8_0240_0000),
    (Engine::Pool, 0x8_0300_0000),
    (Engine::Dve, 0x8_02B0_0000),
];
const SUNDA_BASES: [(Engine, u64); 4] = [
    (Engine::Pe, 0x260_0000),
    (Engine::Act, 0x240_0000),
    // MED: the earlier revision's byte-decoded table [000r1 §3], [FACTS §12.1].
    (Engine::Pool, 0x290_0000),
    (Engine::Dve, 0x2B0_0000),
];

fn dev(b: u64) -> SeqTriple<DeviceAddr> {
    SeqTriple {
        seq: DeviceAddr(b),
        seqtop: DeviceAddr(b + 0x2_0000),
        hostvis: DeviceAddr(b + 0x4_0000),
    }
}

fn hv(b: u64) -> SeqTriple<HostVisible> {
    SeqTriple {
        seq: HostVisible(b),
        seqtop: HostVisible(b + 0x2_0000),
        hostvis: HostVisible(b + 0x4_0000),
    }
}

#[test]
fn trn2_device_and_host_visible_for_every_engine() {
    fn check<A: SeqParams>() {
        for (eng, base) in TRN2_BASES {
            assert_eq!(A::seq_params(eng), Ok(dev(base)), "{eng}");
            // Rebase arithmetic: subtract 0x8_0000_0000 from all three.
            assert_eq!(
                A::seq_params_host_visible(eng),
                Ok(hv(base - HOST_VISIBLE_REBASE)),
                "{eng}"
            );
        }
        // SP, both modes (MED).
        assert_eq!(A::seq_params(Engine::Sp), Ok(dev(0)));
        assert_eq!(
            A::seq_params_host_visible(Engine::Sp),
            Ok(SeqTriple {
                seq: HostVisible(0x280_0000),
                seqtop: HostVisible(0x282_0000),
                hostvis: HostVisible(0x284_0000),
            })
        );
        assert_eq!(
            A::SEQ_SIZES,
            SeqSizes {
                sz1: 0x2_0000,
                sz2: 0x1_0000
            }
        );
    }
    check::<Cayman>();
    check::<Mariana>();
}

#[test]
fn host_visible_round_trips_to_the_device_address() {
    for eng in [Engine::Pe, Engine::Act, Engine::Pool, Engine::Dve] {
        let d = Cayman::seq_params(eng).unwrap();
        let h = Cayman::seq_params_host_visible(eng).unwrap();
        assert_eq!(h.seq.to_device(), d.seq);
        assert_eq!(h.seqtop.to_device(), d.seqtop);
        assert_eq!(h.hostvis.to_device(), d.hostvis);
    }
}

#[test]
fn sunda_golden_both_modes() {
    for (eng, base) in SUNDA_BASES {
        assert_eq!(Sunda::seq_params(eng), Ok(dev(base)), "{eng}");
        // No prefix, nothing to rebase.
        assert_eq!(Sunda::seq_params_host_visible(eng), Ok(hv(base)), "{eng}");
    }
    assert!(matches!(
        Sunda::seq_params(Engine::Sp),
        Err(Error::NotTraced(_))
    ));
    assert!(matches!(
        Sunda::seq_params_host_visible(Engine::Sp),
        Err(Error::NotTraced(_))
    ));
    assert_eq!(
        Sunda::SEQ_SIZES,
        SeqSizes {
            sz1: 0x1_0000,
            sz2: 0x4000
        }
    );
}

#[test]
fn sunda_bases_are_cayman_bases_without_the_prefix_but_sizes_differ() {
    for eng in [Engine::Pe, Engine::Act, Engine::Dve] {
        let c = Cayman::seq_params(eng).unwrap();
        let s = Sunda::seq_params(eng).unwrap();
        assert_eq!(s.seq.get(), c.seq.get() & !HOST_VISIBLE_REBASE, "{eng}");
        assert_eq!(s.seqtop.get(), c.seqtop.get() & !HOST_VISIBLE_REBASE);
        assert_eq!(s.hostvis.get(), c.hostvis.get() & !HOST_VISIBLE_REBASE);
    }
    assert_ne!(Sunda::SEQ_SIZES, Cayman::SEQ_SIZES);
}

/// The masking rule does not hold for POOL: the byte-decoded table gives
/// `0x290_0000`, not the masked `0x300_0000` [000r1 §3], [FACTS §12.1].
#[test]
fn sunda_pool_base_is_the_tables_not_the_masked_cayman_base() {
    let c = Cayman::seq_params(Engine::Pool).unwrap();
    let s = Sunda::seq_params(Engine::Pool).unwrap();
    assert_eq!(s, dev(0x290_0000));
    assert_ne!(s.seq.get(), c.seq.get() & !HOST_VISIBLE_REBASE);
    // The SUNDA POOL XT-local window sits at seq base + 0x6_0000 [FACTS §13.1].
    assert_eq!(s.seq.get() + 0x6_0000, 0x296_0000);
}

#[test]
fn out_of_range_engine_is_a_typed_error() {
    for bad in [5u32, 6, u32::MAX] {
        assert_eq!(
            Engine::try_from(bad),
            Err(Error::out_of_range("engine", bad as u64, 5))
        );
    }
}
