//! Golden values of the per-engine families: IRAM, HW-decode, DVE tables,
//! ACT table params, capability-gated config offsets [FACTS §3.1, §3.3, §3.4,
//! §3.5, §12.1].

use khal::family::{
    ActTables, CapCfg, DgeRegs, DveTableOffsets, DveTableSizes, DveTables, FlagSelected, Gated,
    HwDecode, HwDecodeParams, IramSizes, Offset, Sdma, SdmaLimits,
};
use khal::{ArchId, Cayman, DeviceAddr, Engine, Error, HostVisible, Mariana, Sunda};

#[test]
fn iram_sizes() {
    for eng in [Engine::Act, Engine::Pool, Engine::Dve, Engine::Sp] {
        assert_eq!(Cayman::iram_size(eng), Ok(32 * 1024));
        assert_eq!(Mariana::iram_size(eng), Ok(32 * 1024));
        assert_eq!(Sunda::iram_size(eng), Ok(8 * 1024 * 1024));
    }
    // PE: 0x2_0000 on every arch (MED [000r1 §3], [FACTS §12.1]).
    assert_eq!(Cayman::iram_size(Engine::Pe), Ok(0x2_0000));
    assert_eq!(Mariana::iram_size(Engine::Pe), Ok(0x2_0000));
    assert_eq!(Sunda::iram_size(Engine::Pe), Ok(0x2_0000));
}

#[test]
fn hw_decode_cayman_four_outs() {
    // [hw-decode §1-§3], [FACTS §3.3, §13.5]: cam_base = base - 0x8_0000_0000
    // always, cam_size 0x1000, table_base = cam_base + 0x1000, table_size 0x2000;
    // eng 2 / eng 3 as FACTS (§13.10 #1, MED).
    let golden = [
        (Engine::Pe, 0x8_0267_0000u64),
        (Engine::Act, 0x8_0247_0000),
        (Engine::Pool, 0x8_0307_0000),
        (Engine::Dve, 0x8_02B8_8000),
    ];
    for (eng, base) in golden {
        assert_eq!(Cayman::hw_decode_device_base(eng), Ok(DeviceAddr(base)));
        assert_eq!(
            Cayman::hw_decode_table_params(eng),
            Ok(HwDecodeParams {
                cam_base: HostVisible(base - 0x8_0000_0000),
                cam_size: 0x1000,
                table_base: HostVisible(base - 0x8_0000_0000 + 0x1000),
                table_size: 0x2000,
            })
        );
    }
    // eng > 3 asserts.
    assert!(matches!(
        Cayman::hw_decode_table_params(Engine::Sp),
        Err(Error::OutOfRange { .. })
    ));
    // MARIANA: "v4 bases", not printed (§13.11).
    for eng in Engine::ALL {
        assert!(matches!(
            Mariana::hw_decode_table_params(eng),
            Err(Error::NotTraced(_))
        ));
    }
}

#[test]
fn hw_decode_sunda_is_unsupported() {
    let unsupported = Error::Unsupported {
        what: "hw-decode table params",
        arch: ArchId::Sunda,
    };
    for eng in Engine::ALL {
        assert_eq!(Sunda::hw_decode_table_params(eng), Err(unsupported));
    }
}

#[test]
fn dve_tables() {
    let trn2 = DveTableOffsets {
        opcode: Offset(0x2B8_2000),
        control_fast: Offset(0x2B8_0000),
        control_slow: Offset(0x2B8_1000),
        datapath: Offset(0x2B8_6000),
    };
    assert_eq!(Cayman::DVE_TABLES.offsets, Some(trn2));
    assert_eq!(Mariana::DVE_TABLES.offsets, Some(trn2));
    assert_eq!(
        Sunda::DVE_TABLES.offsets,
        None,
        "SUNDA has no offset getter"
    );

    assert_eq!(Cayman::DVE_TABLES.param_ram_base, Offset(0x2B8_7000));
    assert_eq!(Mariana::DVE_TABLES.param_ram_base, Offset(0x2B8_7000));
    assert_eq!(Sunda::DVE_TABLES.param_ram_base, Offset(0x2B8_4000));
    for size in [
        Sunda::DVE_TABLES.param_ram_size,
        Cayman::DVE_TABLES.param_ram_size,
        Mariana::DVE_TABLES.param_ram_size,
    ] {
        assert_eq!(size, 0x400);
        assert_eq!(size, 256 * 4);
    }
    assert_eq!(
        [
            Sunda::DVE_TABLES.loads_control_slow,
            Cayman::DVE_TABLES.loads_control_slow,
            Mariana::DVE_TABLES.loads_control_slow
        ],
        [false, true, true]
    );
}

/// DVE table sizes, MED [000r1 §3], [FACTS §12.1] (CAYMAN = MARIANA values
/// HIGH [arch-stpb §2], FACTS §13.9).
#[test]
fn dve_table_sizes_golden() {
    assert_eq!(
        Sunda::DVE_TABLES.sizes,
        DveTableSizes {
            opcode: 0x2000,
            control_fast: 0x800,
            control_slow: 0x800,
            datapath: 0x800,
        }
    );
    let trn2 = DveTableSizes {
        opcode: 0x4000,
        control_fast: 0x1000,
        control_slow: 0x1000,
        datapath: 0x400,
    };
    assert_eq!(Cayman::DVE_TABLES.sizes, trn2);
    assert_eq!(Mariana::DVE_TABLES.sizes, trn2);
}

/// ACT table params: four out-params, CAYMAN = MARIANA, MED [000r1 §3];
/// SUNDA "not in this band" [FACTS §12.1].
#[test]
fn act_table_params_golden() {
    let trn2 = [0x250_0000, 0x252_0000, 0x254_0000, 0x258_0000];
    assert_eq!(Cayman::act_table_params(), Ok(trn2));
    assert_eq!(Mariana::act_table_params(), Ok(trn2));
    assert_eq!(
        Sunda::act_table_params(),
        Err(Error::NotTraced("act table params"))
    );
}

#[test]
fn cap_cfg_sunda_and_cayman_absent_never_zero() {
    fn absent<A: CapCfg>() {
        assert_eq!(A::CAP_CFG.sdma_cce_user, Ok(Gated::Absent));
        assert_eq!(A::CAP_CFG.sdma_data_conv_non_ocp, Ok(Gated::Absent));
        assert_eq!(A::CAP_CFG.sdma_data_conv_fp8_ocp, Ok(Gated::Absent));
        assert_eq!(A::CAP_CFG.dve_sequencer_emax, Ok(Gated::Absent));
        for eng in Engine::ALL {
            assert_eq!(A::eng_fp8_cfg_offset(eng), Ok(Gated::Absent));
        }
    }
    absent::<Sunda>();
    absent::<Cayman>();
}

#[test]
fn cap_cfg_mariana_fp8_not_monotone_sp_not_traced() {
    let golden = [
        (Engine::Pe, 0xF00),
        (Engine::Act, 0xF08),
        (Engine::Pool, 0xF0C),
        (Engine::Dve, 0xF04),
    ];
    for (eng, off) in golden {
        assert_eq!(
            Mariana::eng_fp8_cfg_offset(eng),
            Ok(Gated::Present(Offset(off)))
        );
    }
    // Engine 2's offset exceeds engine 3's [000 §3 GOTCHA].
    assert!(golden[2].1 > golden[3].1);
    assert!(matches!(
        Mariana::eng_fp8_cfg_offset(Engine::Sp),
        Err(Error::NotTraced(_))
    ));
}

/// MARIANA's SDMA / data-conv / EMAX offsets, MED [000r1 §3], [FACTS §12.1].
#[test]
fn cap_cfg_mariana_sdma_data_conv_emax_golden() {
    assert_eq!(
        Mariana::CAP_CFG.sdma_cce_user,
        Ok(Gated::Present(Offset(0x2000)))
    );
    assert_eq!(
        Mariana::CAP_CFG.sdma_data_conv_non_ocp,
        Ok(Gated::Present(FlagSelected([Offset(0xC04), Offset(0xC14)])))
    );
    assert_eq!(
        Mariana::CAP_CFG.sdma_data_conv_fp8_ocp,
        Ok(Gated::Present(FlagSelected([Offset(0xC00), Offset(0xC10)])))
    );
    assert_eq!(
        Mariana::CAP_CFG.dve_sequencer_emax,
        Ok(Gated::Present(Offset(0x32C)))
    );
}

#[test]
fn sdma_limits_golden() {
    // [hal-registers §4], [FACTS §13.9]: max_fma_sources / max_cce_elements /
    // max_hw_dge_count, SUNDA 16 / 1024 / 0, CAYMAN 16 / 2048 / 2, MARIANA
    // 32 / 2048 / 2: all nine values, each arch on its own.
    let limits = |a, b, c| SdmaLimits {
        max_fma_sources: a,
        max_cce_elements: b,
        max_hw_dge_count: c,
    };
    assert_eq!(Sunda::SDMA_LIMITS, limits(16, 1024, 0));
    assert_eq!(Cayman::SDMA_LIMITS, limits(16, 2048, 2));
    assert_eq!(Mariana::SDMA_LIMITS, limits(32, 2048, 2));
}

#[test]
fn dge_carveout_caps_golden() {
    // [arch-stpb §3], [FACTS §13.8]: the per-arch literal cap, never read from
    // the device: SUNDA 0x3_0000, CAYMAN 0x3_8000, MARIANA 0x4_0000.
    assert_eq!(Sunda::DGE_CARVEOUT_CAP, 0x3_0000);
    assert_eq!(Cayman::DGE_CARVEOUT_CAP, 0x3_8000);
    assert_eq!(Mariana::DGE_CARVEOUT_CAP, 0x4_0000);
}
