//! SUNDA's engine bring-up data [FACTS §12.1, §13]: the XT/NX windows, the
//! compact NX-local window layout, the TopSP doorbells, the Q7 geometry, the
//! PE IRAM size, the DGE cap, the SDMA limits; no HW-decode silicon.
//!
//! Grades: unmarked = HIGH; MED where marked (the sibling pages' INFERRED, the
//! earlier revision's table [000r1 §3], or derived by arithmetic).

use khal_core::family::{
    DgeRegs, Doorbell, Gated, HwDecode, IramSizes, NxLocal, NxLocalRegs, Offset, Q7Owner, Q7Param,
    Q7Params, Sdma, SdmaLimits, TopSpNx, TopSpTable, TpbRegGates, XtWindows,
};
use khal_core::regs::BlockDesc;
use khal_core::DeviceAddr;
use khal_core::{ArchId, Engine};
use khal_core::{Error, Result};
use static_assertions::const_assert_eq;

use crate::Sunda;

/// XT/NX window per engine 0..3, `get_xt_local_reg_offset` [q7 §6a],
/// [FACTS §13.1]: PE `0x266_0000`, ACT `0x246_0000`, POOL `0x296_0000`, DVE
/// `0x2B6_0000` (each the sequencer base + `0x6_0000`, derived MED; POOL's
/// fits only the §12.1 sequencer base `0x290_0000`).
pub const XT_WINDOWS: [u64; 4] = [0x266_0000, 0x246_0000, 0x296_0000, 0x2B6_0000];
/// eng 4, owner 0: the TopSP window `0x6_0000` [q7 §6a], [000 §2 QUIRK].
pub const XT_WINDOW_TOPSP: u64 = 0x6_0000;
/// eng 4, any other owner: `0x286_0000` (SUNDA's branch-free form) [q7 §6a].
pub const XT_WINDOW_SP: u64 = 0x286_0000;

/// TopSP `init_signal`: relative `+0x83C` (MED [000r1 §3], [FACTS §12.1];
/// the sibling pages do not give it, [FACTS §13.11]). The value its setter
/// writes is not traced ([`TopSpNx::topsp_doorbell_value`]).
const TOPSP_INIT_SIGNAL: Offset = Offset(0x6_083C);
/// TopSP `host_trigger` `0x6_0848` [topsp §8] (HIGH since §13.2).
const TOPSP_HOST_TRIGGER: Offset = Offset(0x6_0848);
/// TopSP `stop_signal` `0x6_084C` [000 §2 QUIRK], [topsp §8].
const TOPSP_STOP_SIGNAL: Offset = Offset(0x6_084C);
/// TopSP `basic_block_switch` `0x6_083C` [000 §2 QUIRK] (MED: the sibling
/// pages do not give it, [FACTS §13.11]).
const TOPSP_BASIC_BLOCK_SWITCH: Offset = Offset(0x6_083C);

/// Q7 owner 2 (POOLING), the only owner SUNDA accepts [q7 §3], [FACTS §13.3]:
/// base `0x298_0000` (§12.1, HIGH since [q7 §3]: §13.10 #5), IRAM and DRAM
/// `0x1_0000` each, nothing reserved, 8 cores; stride `0x2_0000` and DRAM =
/// IRAM + `0x1_0000` (derived, MED).
pub const Q7_POOLING: Q7Param = Q7Param {
    base: Offset(0x298_0000),
    iram_size: 0x1_0000,
    dram_size: 0x1_0000,
    iram_rsvd: 0,
    dram_rsvd: 0,
    num_q7: 8,
};
const_assert_eq!(Q7_POOLING.stride(), 0x2_0000);
const_assert_eq!(
    Q7_POOLING.dram(0).get() - Q7_POOLING.iram(0).get(),
    0x1_0000
);

/// SUNDA's one compact XT/NX window (no SUNDA device schema ships [q7 §6d],
/// [csr §11]): the registers the notes and sibling pages decode, offsets from
/// an engine's window. Access kinds are not traced; `rw` is recorded.
pub mod regs {
    khal_core::register_block! {
        /// SUNDA TPB NX/XT-local registers (`tpb_nx_local_regs`) [004 §5],
        /// [q7 §5a, §6c], [hw-decode §5b], [arch-stpb §1, §3].
        pub NX_LOCAL: "tpb_nx_local" {
            /// NX `release_run_stall`: the sequencer release writes 0 here on
            /// SUNDA (`+0x04`, not CAYMAN's `+0x00`: §13.10 #6) [hw-decode §5b].
            RELEASE_RUN_STALL @ 0x04, rw, "release_run_stall";
            /// `run_state`, bit 0 = running [q7 §6c].
            RUN_STATE @ 0x14, rw, "run_state";
            /// `engine_base_address` low (ucode_seq_init, POOL) [q7 §6c].
            ENGINE_BASE_ADDRESS_LO @ 0x28, rw, "engine_base_address_lo";
            /// `engine_base_address` high [q7 §6c].
            ENGINE_BASE_ADDRESS_HI @ 0x2C, rw, "engine_base_address_hi";
            /// `dma_ctrl` (dma_init writes 0, then 1) [arch-stpb §3].
            DMA_CTRL @ 0x40, rw, "dma_ctrl";
            /// rx ring head [arch-stpb §3].
            DMA_RX_RING_HEAD @ 0x58, rw, "dma_rx_ring_head";
            /// rx ring tail [arch-stpb §3].
            DMA_RX_RING_TAIL @ 0x5C, rw, "dma_rx_ring_tail";
            /// `dma_tx_ring_base` (swap_file_io_table) [q7 §5a].
            DMA_TX_RING_BASE @ 0x70, rw, "dma_tx_ring_base";
            /// `dma_tx_ring_length` (swap_file_io_table) [q7 §5a].
            DMA_TX_RING_LENGTH @ 0x74, rw, "dma_tx_ring_length";
            /// `mem_window2` low [arch-stpb §3].
            MEM_WINDOW2_LO @ 0x210, rw, "mem_window2_lo";
            /// `mem_window2` high [arch-stpb §3].
            MEM_WINDOW2_HI @ 0x214, rw, "mem_window2_hi";
            /// `instr_dbg_ctrl` (pooling level set) [arch-stpb §1].
            INSTR_DBG_CTRL @ 0x804, rw, "instr_dbg_ctrl";
            /// `EVENTS_SEMAPHORES NOTIFIC_CTRL` (MED [000r1 §3]).
            NOTIFIC_CTRL @ 0x808, rw, "events_semaphores_notific_ctrl";
            /// `q7_intr_info` (swap_file_io_table) [q7 §5a].
            Q7_INTR_INFO @ 0x838, rw, "q7_intr_info";
            /// `nx_rsvd_space0` (register index 527): swap-table low dword [004 §5].
            NX_RSVD_SPACE0 @ 0x83C, rw, "nx_rsvd_space0";
            /// `nx_rsvd_space1` (register index 528): swap-table high dword [004 §5].
            NX_RSVD_SPACE1 @ 0x840, rw, "nx_rsvd_space1";
            /// `nx_rsvd_space2` (register index 529): swap-table third word [004 §5].
            NX_RSVD_SPACE2 @ 0x844, rw, "nx_rsvd_space2";
            /// `iram_cache_block_size` (pooling_regs_init) [arch-stpb §1].
            IRAM_CACHE_BLOCK_SIZE @ 0x1260, rw, "iram_cache_block_size";
        }
    }
}

/// SUNDA's TopSP-NX doorbells, offsets from the TopSP window `0x6_0000`
/// [000 §2 QUIRK], [topsp §8], [000r1 §3].
pub mod topsp_regs {
    khal_core::register_block! {
        /// SUNDA TopSP-NX registers [FACTS §3.6, §12.1, §13.2].
        pub TOPSP_NX: "topsp_nx" {
            /// `init_signal` write (MED [000r1 §3]); also `basic_block_switch`
            /// `0x6_083C` by [000 §2] (the sources do not say more, §13.11).
            INIT_SIGNAL @ 0x83C, rw, "init_signal";
            /// `host_trigger` (the caller's value, MED) [topsp §8].
            HOST_TRIGGER @ 0x848, rw, "host_trigger";
            /// `stop_signal` [000 §2], [topsp §8].
            STOP_SIGNAL @ 0x84C, rw, "stop_signal";
        }
    }
}

// Register index × 4 = offset: indices 527/528/529 [004 §5].
const_assert_eq!(regs::NX_RSVD_SPACE0.offset(), 527 * 4);
const_assert_eq!(regs::NX_RSVD_SPACE2.offset(), 529 * 4);

impl IramSizes for Sunda {
    /// `0x2_0000` (MED [000r1 §3], [FACTS §12.1]).
    const IRAM_SIZE_PE: u64 = 0x2_0000;
    /// The non-PE engines: 8 MiB [000 §3].
    const IRAM_SIZE_NON_PE: u64 = 8 * 1024 * 1024;
}

/// SUNDA has no HW-decode silicon: the C getter asserts whatever the input
/// [000 §3 QUIRK], [hw-decode §3a].
impl HwDecode for Sunda {
    fn hw_decode_device_base(_eng: Engine) -> Result<DeviceAddr> {
        Err(Error::Unsupported {
            what: "hw-decode table params",
            arch: ArchId::Sunda,
        })
    }
}

impl TopSpNx for Sunda {
    const TOPSP_BLOCK: Result<&'static BlockDesc> = Ok(&topsp_regs::TOPSP_NX);
    const TOPSP: TopSpTable = TopSpTable {
        window_base: Ok(Offset(XT_WINDOW_TOPSP)),
        init_signal: Ok(TOPSP_INIT_SIGNAL),
        tsync_signal: Err(Error::NotTraced("sunda topsp tsync_signal")),
        host_trigger: Ok(TOPSP_HOST_TRIGGER),
        stop_signal: Ok(TOPSP_STOP_SIGNAL),
        basic_block_switch: Ok(TOPSP_BASIC_BLOCK_SWITCH),
    };
    /// SUNDA's host_trigger writer stores the caller's value (MED [topsp §8]);
    /// stop_signal stores 1 [topsp §8]. The init_signal writer's value is in
    /// no source ([000r1 §3] gives only the offset `+0x83C`; the sibling pages
    /// do not give the setter, [FACTS §13.2, §13.11]): `NotTraced`, nothing
    /// written.
    fn topsp_doorbell_value(which: Doorbell, caller: u32) -> Result<u32> {
        match which {
            Doorbell::HostTrigger => Ok(caller),
            Doorbell::InitSignal => Err(Error::NotTraced("sunda topsp init_signal value")),
            _ => Ok(1),
        }
    }
}

impl NxLocal for Sunda {
    const NX_LOCAL_BLOCK: Result<&'static BlockDesc> = Ok(&regs::NX_LOCAL);
    /// SUNDA's layout is one compact window, described once as `NX_LOCAL`.
    const XT_LOCAL_BLOCK: Result<&'static BlockDesc> = Err(Error::NotTraced(
        "sunda xt-local registers (one compact window, described as nx-local)",
    ));
    /// No window 5: eng > 4 asserts [q7 §6a].
    const XT_WINDOW_TABLE: XtWindows = XtWindows {
        engines: XT_WINDOWS,
        topsp: XT_WINDOW_TOPSP,
        sp: XT_WINDOW_SP,
        eng5: None,
        assert_what: "xt_local engine (sunda asserts eng > 4)",
    };

    const NX_LOCAL_REGS: NxLocalRegs = NxLocalRegs {
        start_ctrl: Err(Error::NotTraced("sunda nx start_ctrl")),
        notific_sw_queue_num2: Err(Error::NotTraced("sunda notific_sw_queue_num2")),
        events_semaphores_nt: Err(Error::NotTraced("sunda events_semaphores_nt field")),
        release_run_stall: Ok(regs::RELEASE_RUN_STALL),
        nx_rsvd_space: Ok([
            regs::NX_RSVD_SPACE0,
            regs::NX_RSVD_SPACE1,
            regs::NX_RSVD_SPACE2,
        ]),
        memcopy_dmas_offset: Err(Error::NotTraced("sunda xt memcopy_dmas offset")),
        notific_ctrl: Ok(regs::NOTIFIC_CTRL),
        dma_ctrl: Ok(regs::DMA_CTRL),
        iram_cache_block_size: Ok(regs::IRAM_CACHE_BLOCK_SIZE),
        // SUNDA's release_eng_run_stall is a no-op: the sequencer frees the 8
        // cores through event semaphores [hw-decode §6].
        q7_release_run_stall: Ok(Gated::Absent),
        // SUNDA's disable_hw_decode is a no-op (no HW-decode silicon) [hw-decode §7].
        hw_decode_control: Ok(Gated::Absent),
        ..NxLocalRegs::DEFAULTS
    };
}

impl Q7Params for Sunda {
    fn q7_params(owner: Q7Owner) -> Result<Q7Param> {
        match owner {
            Q7Owner::Pooling => Ok(Q7_POOLING),
            Q7Owner::ComputeCluster => Err(Error::Unsupported {
                what: "q7 owner 5 (compute cluster)",
                arch: ArchId::Sunda,
            }),
        }
    }
    fn q7_owner(owner_idx: u32) -> Result<Q7Owner> {
        match owner_idx {
            0 => Ok(Q7Owner::Pooling),
            _ => Err(Error::Rejected("only pooling supported")),
        }
    }
}

/// DGE carveout cap `0x3_0000` [arch-stpb §3], [FACTS §13.8]; the register
/// offsets are NOT TRACED on SUNDA ([`NxLocalRegs::DEFAULTS`]).
impl DgeRegs for Sunda {
    const DGE_CARVEOUT_CAP: u32 = 0x3_0000;
}

/// SDMA limits 16 / 1024 / 0 [hal-registers §4], [FACTS §13.9].
impl Sdma for Sunda {
    const SDMA_LIMITS: SdmaLimits = SdmaLimits {
        max_fma_sources: 16,
        max_cce_elements: 1024,
        max_hw_dge_count: 0,
    };
}

/// No rspcomb control, no PSUM rounding on SUNDA [FACTS §13.7].
impl TpbRegGates for Sunda {
    const RSPCOMB_EIGHT_DEEP: Gated<Offset> = Gated::Absent;
    fn psum_rounding() -> Result<()> {
        Err(Error::Unsupported {
            what: "psum rounding (MARIANA only)",
            arch: ArchId::Sunda,
        })
    }
}
