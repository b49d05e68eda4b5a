//! CAYMAN's engine bring-up data [FACTS §12.1, §13]: the XT/NX windows, the
//! NX/XT local registers, the TopSP doorbells, the Q7 geometry, the HW-decode
//! bases, the PE IRAM size, the DGE cap and registers, the SDMA limits.
//!
//! MARIANA reuses every table here that the sources call "as CAYMAN", with its
//! own grade (`khal-arch-mariana`'s `engine.rs`). Grades: unmarked = HIGH;
//! MED where marked (the sibling pages' INFERRED, an earlier revision's table
//! [000r1 §3], or derived by arithmetic).

use khal_core::family::{
    DgeRegs, Gated, HwDecode, IramSizes, NxLocal, NxLocalRegs, Offset, Q7Owner, Q7Param, Q7Params,
    Sdma, SdmaLimits, TopSpNx, TopSpTable, TpbRegGates, XtWindows,
};
use khal_core::regs::BlockDesc;
use khal_core::DeviceAddr;
use khal_core::Engine;
use khal_core::{Error, Result};

use crate::Cayman;

/// XT/NX window per engine, `get_xt_local_reg_offset` [q7 §6], [FACTS §13.1]:
/// PE `0x266_0000`, ACT `0x246_0000`, POOL `0x306_0000`, DVE `0x2B6_0000`.
/// Each is the §3.2 sequencer base (bit 35 dropped) + `0x6_0000` (derived,
/// MED), and POOL's matches the RTL map's `LOCAL_REG` [devmap-pool §1–§2].
pub const XT_WINDOWS: [u64; 4] = [0x266_0000, 0x246_0000, 0x306_0000, 0x2B6_0000];
/// eng 4, owner 0: the TopSP window `0x6_0000` [q7 §6b], [topsp §3a].
pub const XT_WINDOW_TOPSP: u64 = 0x6_0000;
/// eng 4, owner ≠ 0: `0x286_0000`, coded as `0x8_0286_0000 − 0x8_0000_0000`
/// [q7 §6b]; the TPB SP block `+0x280_0000` + `0x6_0000` (derived, MED §13.10 #9).
pub const XT_WINDOW_SP: u64 = 0x286_0000;
/// eng 5: `0x306_0000`, no owner term, role not named [q7 §6b] (the role is
/// NOT TRACED; the value is).
pub const XT_WINDOW_5: u64 = 0x306_0000;

/// HW-decode CAM device base of eng0 (PE) [000 §3], [hw-decode §3a].
const HW_DECODE_BASE_PE: u64 = 0x8_0267_0000;
/// HW-decode CAM device base of eng1 (ACT) [000 §3], [hw-decode §3a].
const HW_DECODE_BASE_ACT: u64 = 0x8_0247_0000;
/// eng2 (POOL): `0x8_0307_0000`, §13.10 #1 (MED): [hw-decode §3a] swaps eng 2
/// and 3, but the RTL map puts POOL_PROFILE_CAM at POOL `+0x7_0000`
/// [devmap-pool §1–§2], as PE's and ACT's CAMs sit at their block + `0x7_0000`.
const HW_DECODE_BASE_POOL: u64 = 0x8_0307_0000;
/// eng3 (DVE): `0x8_02B8_8000`, inside DVE's block (§13.10 #1, MED).
const HW_DECODE_BASE_DVE: u64 = 0x8_02B8_8000;

/// The TopSP doorbells, offsets from the TPB memory handle (window
/// `0x6_0000` + register) [topsp §3a, §8], [FACTS §13.2].
const TOPSP_INIT_SIGNAL: Offset = Offset(0x6_1540);
/// `tsync_signal` `0x6_1560` [topsp §3a].
const TOPSP_TSYNC_SIGNAL: Offset = Offset(0x6_1560);
/// `host_trigger` `0x6_15A0` [000 §2 QUIRK], [topsp §3a].
const TOPSP_HOST_TRIGGER: Offset = Offset(0x6_15A0);
/// `stop_signal` `0x6_15C0` [000 §2 QUIRK], [topsp §3a].
const TOPSP_STOP_SIGNAL: Offset = Offset(0x6_15C0);
/// `basic_block_switch` `0x6_15E0` (getter only) [000 §2 QUIRK], [topsp §9].
const TOPSP_BASIC_BLOCK_SWITCH: Offset = Offset(0x6_15E0);

/// Q7 owner 2 (POOLING) [q7 §3], [FACTS §13.3]: base `0x310_0000`, IRAM
/// `0x2_0000` + `0x6_0000` reserved, DRAM `0x4_0000` + `0x4_0000` reserved,
/// 8 cores: stride `0x10_0000`, DRAM = IRAM + `0x8_0000` (the RTL map agrees
/// [devmap-pool §3]). The base (§12.1 MED) is HIGH since [q7 §3] (§13.10 #5).
pub const Q7_POOLING: Q7Param = Q7Param {
    base: Offset(0x310_0000),
    iram_size: 0x2_0000,
    dram_size: 0x4_0000,
    iram_rsvd: 0x6_0000,
    dram_rsvd: 0x4_0000,
    num_q7: 8,
};
/// Q7 owner 5 (COMPUTE_CLUSTER): as owner 2 with 4 cores [q7 §3]. That it
/// addresses the cluster at PREPROC's base is MED [devmap-pool §6].
pub const Q7_COMPUTE_CLUSTER: Q7Param = Q7Param {
    num_q7: 4,
    ..Q7_POOLING
};
static_assertions::const_assert_eq!(Q7_POOLING.stride(), 0x10_0000);
static_assertions::const_assert_eq!(
    Q7_POOLING.dram(0).get() - Q7_POOLING.iram(0).get(),
    0x8_0000
);

/// The `owner_idx` → owner map of CAYMAN/MARIANA's loader [q7 §4].
pub(crate) fn q7_owner(owner_idx: u32) -> Result<Q7Owner> {
    match owner_idx {
        0 => Ok(Q7Owner::Pooling),
        1 => Ok(Q7Owner::ComputeCluster),
        _ => Err(Error::Rejected("Invalid q7 owner")),
    }
}

/// CAYMAN's NX/XT local registers, offsets from an engine's XT/NX window
/// (`CaymanArchHeaders tpb_nx.h` [000 §2, §3]; the earlier revision's table
/// [000r1 §3], MED; the device schema [csr §3–§9]). Every offset ≥ `0x1000`
/// is a device scratch register `lr[i]` = `+0x1000 + 0x20·i` (derived, MED
/// [csr §9]). Access kinds are not traced; `rw` is recorded for all.
pub mod regs {
    khal_core::register_block! {
        /// CAYMAN TPB NX-local registers [000 §2, §3], [000r1 §3], [FACTS §12.1, §13].
        pub NX_LOCAL: "tpb_nx_local" {
            /// NX `release_run_stall`, bit 0, reset 1: the sequencer release
            /// writes 0 [hw-decode §5b, §7], [csr §3] (§13.10 #6: HIGH now).
            RELEASE_RUN_STALL @ 0x0, rw, "release_run_stall";
            /// NX `START_CTRL` (`program_start` writes 1) [000 §2].
            START_CTRL @ 0x004, rw, "start_ctrl";
            /// `EVENTS_SEMAPHORES NOTIFIC_CTRL` (MED [000r1 §3]).
            NOTIFIC_CTRL @ 0x808, rw, "events_semaphores_notific_ctrl";
            /// NX `START_ADDR_LO` (`lr[3]`; MED [000r1 §3]).
            START_ADDR_LO @ 0x1060, rw, "start_addr_lo";
            /// NX `START_ADDR_HI` (`lr[4]`; MED [000r1 §3]).
            START_ADDR_HI @ 0x1080, rw, "start_addr_hi";
            /// NX `DMA_CTRL` (`lr[5]`; MED [000r1 §3]).
            DMA_CTRL @ 0x10A0, rw, "dma_ctrl";
            /// NX `DMA_REGS` low half, flag clear (`lr[6]`; MED [000r1 §3]).
            DMA_REGS_LO_A @ 0x10C0, rw, "dma_regs_lo_a";
            /// NX `DMA_REGS` low half, flag set (`lr[7]`; MED [000r1 §3]).
            DMA_REGS_LO_B @ 0x10E0, rw, "dma_regs_lo_b";
            /// NX `DMA_REGS` high half (`lr[8]`; MED [000r1 §3]).
            DMA_REGS_HI @ 0x1100, rw, "dma_regs_hi";
            /// NX `SW_DGE_CARVEOUT` (`lr[39]` `MEMCOPY_CARVEOUT_CFG`; MED
            /// [000r1 §3], [devmap-dma §6.3]).
            SW_DGE_CARVEOUT @ 0x14E0, rw, "sw_dge_carveout";
            /// NX `SW_DGE_DMA_MAPPING` (`lr[40]` `MEMCOPY_DMA_CFG`; MED
            /// [000r1 §3], [devmap-dma §6.3]).
            SW_DGE_DMA_MAPPING @ 0x1500, rw, "sw_dge_dma_mapping";
            /// TopSP `init_signal` (in the eng-4 owner-0 window) [topsp §3a].
            TOPSP_INIT_SIGNAL @ 0x1540, rw, "topsp_init_signal";
            /// TopSP `tsync_signal` [topsp §3a].
            TOPSP_TSYNC_SIGNAL @ 0x1560, rw, "topsp_tsync_signal";
            /// TopSP `host_trigger` [topsp §3a].
            TOPSP_HOST_TRIGGER @ 0x15A0, rw, "topsp_host_trigger";
            /// TopSP `stop_signal` [topsp §3a].
            TOPSP_STOP_SIGNAL @ 0x15C0, rw, "topsp_stop_signal";
            /// TopSP `basic_block_switch` (getter only) [topsp §9].
            TOPSP_BASIC_BLOCK_SWITCH @ 0x15E0, rw, "topsp_basic_block_switch";
        }
    }

    khal_core::register_block! {
        /// CAYMAN TPB XT-local registers [000 §2], [000r1 §3], [FACTS §12.1, §13].
        pub XT_LOCAL: "tpb_xt_local" {
            /// `iram_cache_block_size`, `lr[19]`, written by the regs_init
            /// leaves [arch-stpb §1], [FACTS §13.6].
            IRAM_CACHE_BLOCK_SIZE @ 0x1260, rw, "iram_cache_block_size";
            /// `memcopy_dmas`: the pure offset getter returns `0x13A0` [000 §2].
            MEMCOPY_DMAS @ 0x13A0, rw, "memcopy_dmas";
            /// `memcopy_queues` (MED [000r1 §3]).
            MEMCOPY_QUEUES @ 0x13C0, rw, "memcopy_queues";
            /// `memcopy_all` (MED [000r1 §3]).
            MEMCOPY_ALL @ 0x13E0, rw, "memcopy_all";
            /// `Q7_RELEASE_RUN_STALL`, bits 7:0, reset `0xFF`: one write of 0
            /// frees all 8 cores [hw-decode §5], [csr §4].
            Q7_RELEASE_RUN_STALL @ 0x3000, rw, "q7_release_run_stall";
            /// `HW_DECODE_CONTROL`: bit 0 disables HW decode; bit 1 ordering
            /// mode, bits 18:2 iram_block_size_mask, bit 20 flush enable
            /// [hw-decode §7], [csr §7].
            HW_DECODE_CONTROL @ 0x4000, rw, "hw_decode_control", fields hw_decode {
                /// Bit 0: disable HW decode.
                DISABLE: 0..=0,
            };
        }
    }
}

impl IramSizes for Cayman {
    /// `0x2_0000` (MED [000r1 §3], [FACTS §12.1]).
    const IRAM_SIZE_PE: u64 = 0x2_0000;
    /// The non-PE engines: 32 KiB [000 §3].
    const IRAM_SIZE_NON_PE: u64 = 32 * 1024;
}

/// The CAYMAN HW-decode CAM device bases (bit 35 set) per engine; eng > 3
/// asserts in C → `OutOfRange` [hw-decode §3a].
pub(crate) fn hw_decode_device_base(eng: Engine) -> Result<DeviceAddr> {
    let base = match eng {
        Engine::Pe => HW_DECODE_BASE_PE,
        Engine::Act => HW_DECODE_BASE_ACT,
        Engine::Pool => HW_DECODE_BASE_POOL,
        Engine::Dve => HW_DECODE_BASE_DVE,
        Engine::Sp => {
            return Err(Error::OutOfRange {
                what: "hw-decode engine (asserts eng > 3)",
                value: 4,
                limit: 4,
            })
        }
    };
    Ok(DeviceAddr(base))
}

impl HwDecode for Cayman {
    fn hw_decode_device_base(eng: Engine) -> Result<DeviceAddr> {
        hw_decode_device_base(eng)
    }
}

impl TopSpNx for Cayman {
    /// The doorbells are NX scratch registers `lr[42..47]` of the TopSP's
    /// window: the NX-local description names them.
    const TOPSP_BLOCK: Result<&'static BlockDesc> = Ok(&regs::NX_LOCAL);
    const TOPSP: TopSpTable = TopSpTable {
        window_base: Ok(Offset(XT_WINDOW_TOPSP)),
        init_signal: Ok(TOPSP_INIT_SIGNAL),
        tsync_signal: Ok(TOPSP_TSYNC_SIGNAL),
        host_trigger: Ok(TOPSP_HOST_TRIGGER),
        stop_signal: Ok(TOPSP_STOP_SIGNAL),
        basic_block_switch: Ok(TOPSP_BASIC_BLOCK_SWITCH),
    };
}

impl NxLocal for Cayman {
    const NX_LOCAL_BLOCK: Result<&'static BlockDesc> = Ok(&regs::NX_LOCAL);
    const XT_LOCAL_BLOCK: Result<&'static BlockDesc> = Ok(&regs::XT_LOCAL);
    /// The CAYMAN table [q7 §6b]: eng > 5 asserts.
    const XT_WINDOW_TABLE: XtWindows = XtWindows {
        engines: XT_WINDOWS,
        topsp: XT_WINDOW_TOPSP,
        sp: XT_WINDOW_SP,
        eng5: Some(Ok(XT_WINDOW_5)),
        assert_what: "xt_local engine (cayman asserts eng > 5)",
    };

    const NX_LOCAL_REGS: NxLocalRegs = NxLocalRegs {
        start_ctrl: Ok(regs::START_CTRL),
        start_addr_lo: Ok(regs::START_ADDR_LO),
        start_addr_hi: Ok(regs::START_ADDR_HI),
        release_run_stall: Ok(regs::RELEASE_RUN_STALL),
        // CAYMAN's Q7 swap table is a no-op: these registers are not traced here [004 §5].
        nx_rsvd_space: Err(Error::NotTraced("cayman nx_rsvd_space registers")),
        notific_ctrl: Ok(regs::NOTIFIC_CTRL),
        dma_ctrl: Ok(regs::DMA_CTRL),
        dma_regs: Ok([regs::DMA_REGS_LO_A, regs::DMA_REGS_LO_B, regs::DMA_REGS_HI]),
        memcopy_dmas_offset: Ok(Offset(regs::MEMCOPY_DMAS.offset())),
        memcopy_queues_offset: Ok(Offset(regs::MEMCOPY_QUEUES.offset())),
        memcopy_all_offset: Ok(Offset(regs::MEMCOPY_ALL.offset())),
        iram_cache_block_size: Ok(regs::IRAM_CACHE_BLOCK_SIZE),
        q7_release_run_stall: Ok(Gated::Present(regs::Q7_RELEASE_RUN_STALL)),
        hw_decode_control: Ok(Gated::Present(regs::HW_DECODE_CONTROL)),
        // `+0x14E0` / `+0x1500` (MED [000r1 §3]).
        sw_dge_carveout: Ok(regs::SW_DGE_CARVEOUT),
        sw_dge_dma_mapping: Ok(regs::SW_DGE_DMA_MAPPING),
        // The SW-queue selectors `NOTIFIC_SW_QUEUE_NUM2/4` and their fields in
        // `tpb_regs` [000 §2], (MED [000r1 §3]).
        ..NxLocalRegs::DEFAULTS.with_tpb_sw_queues()
    };
}

impl Q7Params for Cayman {
    fn q7_params(owner: Q7Owner) -> Result<Q7Param> {
        Ok(match owner {
            Q7Owner::Pooling => Q7_POOLING,
            Q7Owner::ComputeCluster => Q7_COMPUTE_CLUSTER,
        })
    }
    fn q7_owner(owner_idx: u32) -> Result<Q7Owner> {
        q7_owner(owner_idx)
    }
}

/// DGE carveout cap `0x3_8000` [arch-stpb §3], [FACTS §13.8]; the registers
/// are in [`NxLocal::NX_LOCAL_REGS`].
impl DgeRegs for Cayman {
    const DGE_CARVEOUT_CAP: u32 = 0x3_8000;
}

/// SDMA limits 16 / 2048 / 2 [hal-registers §4], [FACTS §13.9].
impl Sdma for Cayman {
    const SDMA_LIMITS: SdmaLimits = SdmaLimits {
        max_fma_sources: 16,
        max_cce_elements: 2048,
        max_hw_dge_count: 2,
    };
}

/// No rspcomb control, no PSUM rounding on CAYMAN [FACTS §13.7].
impl TpbRegGates for Cayman {
    const RSPCOMB_EIGHT_DEEP: Gated<Offset> = Gated::Absent;
    fn psum_rounding() -> Result<()> {
        Err(Error::Unsupported {
            what: "psum rounding (MARIANA only)",
            arch: khal_core::ArchId::Cayman,
        })
    }
}
