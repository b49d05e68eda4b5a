//! CAYMAN register-matrix tables and their family impls [000 §3], [FACTS §3].
//!
//! The tables the notes call shared between CAYMAN and MARIANA (TPB, PSUM,
//! PREPROC, HBM bases, IRAM, sequencer, HW-decode, DVE) are defined here once;
//! `khal-arch-mariana` reuses them through these impls.

use khal_core::addr::{DeviceAddr, HostVisible, MESH_HIGH_BIT};
use khal_core::error::{Error, Result};
use khal_core::family::{
    hw_decode::HwDecodeParams, nx_local::RsvdSpace, ActTableParams, ActTables, Arch, CapCfg,
    DveTableOffsets, DveTableSizes, DveTables, FlagSelected, Gated, HbmBarWindow, HbmMap,
    HbmUsableSize, HwDecode, IramSizes, NotificMasks, NqMailboxMap, NxLocal, Offset, Q7Params,
    SeqParams, SeqSizes, SeqTriple, Tile, TopSpNx, TpbBases, PSUM_DELTA,
};
use khal_core::ids::{ArchId, Engine};
use khal_core::regs::{BlockDesc, Field, Reg};
use static_assertions::const_assert;

use crate::Cayman;

/// TPB base per tile: tiles 4..7 = tiles 0..3 + the mesh bit.
/// Values [kdrv v3 V3_MMAP_TPB_n_BASE]; shape and mesh bit [000 §3].
const TPB_BASES: [DeviceAddr; 8] = [
    DeviceAddr(0x20_0000_0000),
    DeviceAddr(0x30_0000_0000),
    DeviceAddr(0x60_0000_0000),
    DeviceAddr(0x70_0000_0000),
    DeviceAddr(0x8020_0000_0000),
    DeviceAddr(0x8030_0000_0000),
    DeviceAddr(0x8060_0000_0000),
    DeviceAddr(0x8070_0000_0000),
];
static_assertions::const_assert_eq!(TPB_BASES.len(), 8);
// The upper mesh half mirrors the lower one [000 §3].
const_assert!(
    TPB_BASES[4].0 == TPB_BASES[0].0 | MESH_HIGH_BIT
        && TPB_BASES[5].0 == TPB_BASES[1].0 | MESH_HIGH_BIT
        && TPB_BASES[6].0 == TPB_BASES[2].0 | MESH_HIGH_BIT
        && TPB_BASES[7].0 == TPB_BASES[3].0 | MESH_HIGH_BIT
);

/// PREPROC bases as the kernel driver lists them (4 windows) [kdrv v3]; the
/// length of libnrt's own table is NOT TRACED [000 §3].
const PREPROC_BASES: [DeviceAddr; 4] = [
    DeviceAddr(0x12_0000_0000),
    DeviceAddr(0x52_0000_0000),
    DeviceAddr(0x8012_0000_0000),
    DeviceAddr(0x8052_0000_0000),
];
static_assertions::const_assert_eq!(PREPROC_BASES.len(), 4);

/// PREPROC window size `0x34C_0000` [kdrv v3].
const PREPROC_SIZE: u64 = 0x34C_0000;

/// HBM channel bases; channels 2..3 = 0..1 + the mesh bit [kdrv v3], mesh mirror [000 §3].
const HBM_CHANNEL_BASES: [DeviceAddr; 4] = [
    DeviceAddr(0x0),
    DeviceAddr(0x40_0000_0000),
    DeviceAddr(0x8000_0000_0000),
    DeviceAddr(0x8040_0000_0000),
];
static_assertions::const_assert_eq!(HBM_CHANNEL_BASES.len(), 4);
const_assert!(
    HBM_CHANNEL_BASES[2].0 == HBM_CHANNEL_BASES[0].0 | MESH_HIGH_BIT
        && HBM_CHANNEL_BASES[3].0 == HBM_CHANNEL_BASES[1].0 | MESH_HIGH_BIT
);

/// `get_hbm_size`: `0x6_0000_0000` (24 GiB) per channel [000 §3]; agrees with
/// kdrv `V3_HBM_ACTIVE_SIZE`.
const HBM_SIZE: u64 = 0x6_0000_0000;

/// BAR window per HBM channel, `CAYMAN_PCIE_BAR4_HBM_0_SIZE` = `0x10_0000_0000`
/// [000 §3 GOTCHA]: not the usable size.
const HBM_BAR_WINDOW: u64 = 0x10_0000_0000;

/// IRAM size of the non-PE engines: 32 KiB [000 §3].
const IRAM_SIZE_NON_PE: u64 = 32 * 1024;

/// Sequencer base of PE [000 §2, §3].
const SEQ_BASE_PE: u64 = 0x8_0260_0000;
/// Sequencer base of ACT [000 §2, §3].
const SEQ_BASE_ACT: u64 = 0x8_0240_0000;
/// Sequencer base of POOL [000 §2, §3].
const SEQ_BASE_POOL: u64 = 0x8_0300_0000;
/// Sequencer base of DVE [000 §2, §3].
const SEQ_BASE_DVE: u64 = 0x8_02B0_0000;
/// SP: the triple `(0, 0x2_0000, 0x4_0000)`, plus this when `host_visible`
/// before the rebase (MED) [000 §2], [FACTS §3.2].
const SEQ_SP_HOST_VISIBLE_ADD: u64 = 0x8_0280_0000;
/// Sequencer sizes `sz1 = 0x2_0000`, `sz2 = 0x1_0000` [000 §2].
const SEQ_SIZES: SeqSizes = SeqSizes {
    sz1: 0x2_0000,
    sz2: 0x1_0000,
};

/// HW-decode table base of eng0 (PE) [000 §3].
const HW_DECODE_BASE_PE: u64 = 0x8_0267_0000;
/// HW-decode table base of eng1 (ACT) [000 §3].
const HW_DECODE_BASE_ACT: u64 = 0x8_0247_0000;
/// HW-decode table base of eng2 (POOL) [000 §3].
const HW_DECODE_BASE_POOL: u64 = 0x8_0307_0000;
/// HW-decode table base of eng3 (DVE) [000 §3].
const HW_DECODE_BASE_DVE: u64 = 0x8_02B8_8000;
/// HW-decode header size 4096 [000 §3].
const HW_DECODE_HEADER_SIZE: u64 = 4096;
/// HW-decode block size `0x2000` [000 §3].
const HW_DECODE_BLOCK_SIZE: u64 = 0x2000;

/// DVE table offsets (opcode, control_fast, control_slow, datapath); name↔slot
/// pairing MED [000 §3 CORRECTION].
const DVE_TABLE_OFFSETS: DveTableOffsets = DveTableOffsets {
    opcode: Offset(0x2B8_2000),
    control_fast: Offset(0x2B8_0000),
    control_slow: Offset(0x2B8_1000),
    datapath: Offset(0x2B8_6000),
};
/// DVE parameter-RAM base `0x2B8_7000` [000 §3 CORRECTION].
const DVE_PARAM_RAM_BASE: Offset = Offset(0x2B8_7000);
/// DVE parameter-RAM size `0x400` (256 × f32) [000 §3, §4].
const DVE_PARAM_RAM_SIZE: u64 = 0x400;
/// DVE table sizes (opcode, control_fast, control_slow, datapath)
/// `0x4000, 0x1000, 0x1000, 0x400` [000r1 §3], [FACTS §12.1]; the values are
/// HIGH by [arch-stpb §2], the name↔slot pairing stays MED [FACTS §13.9].
const DVE_TABLE_SIZES: DveTableSizes = DveTableSizes {
    opcode: 0x4000,
    control_fast: 0x1000,
    control_slow: 0x1000,
    datapath: 0x400,
};

/// `get_act_table_params`' four out-params, in order: `0x250_0000,
/// 0x252_0000, 0x254_0000, 0x258_0000`, MED [000r1 §3], [FACTS §12.1].
const ACT_TABLE_PARAMS: ActTableParams =
    ActTableParams([0x250_0000, 0x252_0000, 0x254_0000, 0x258_0000]);

/// TopSP `stop_signal` `0x6_15C0` [000 §2 QUIRK].
const TOPSP_STOP_SIGNAL: Offset = Offset(0x6_15C0);
/// TopSP `basic_block_switch` `0x6_15E0` [000 §2 QUIRK].
const TOPSP_BASIC_BLOCK_SWITCH: Offset = Offset(0x6_15E0);
/// TopSP `host_trigger` `0x6_15A0` [000 §2 QUIRK].
const TOPSP_HOST_TRIGGER: Offset = Offset(0x6_15A0);

/// CAYMAN's NX/XT local-register blocks, offsets from the engine window base
/// (`CaymanArchHeaders tpb_nx.h`, cross-validated against the accessors) [000 §2, §3].
/// Access kinds are not traced; `rw` is recorded for all.
pub mod regs {
    khal_core::register_block! {
        /// CAYMAN TPB NX-local registers [000 §2, §3].
        pub NX_LOCAL: "tpb_nx_local" {
            /// `release_run_stall`: the NX thunk writes at the window origin
            /// (LOW: the macro was not located, offset 0 per byte-decode) [000 §3].
            RELEASE_RUN_STALL @ 0x0, rw, "release_run_stall";
            /// NX `START_CTRL` (`program_start` writes 1) [000 §2].
            START_CTRL @ 0x004, rw, "start_ctrl";
            /// `NOTIFIC_SW_QUEUE_NUM2` [000 §2].
            NOTIFIC_SW_QUEUE_NUM2 @ 0xA08, rw, "notific_sw_queue_num2", fields num2 {
                /// `EVENTS_SEMAPHORES_NT`: mask `0xF_0000`, shift 16 [000 §2].
                EVENTS_SEMAPHORES_NT: 16..=19,
            };
        }
    }

    khal_core::register_block! {
        /// CAYMAN TPB XT-local registers [000 §2].
        pub XT_LOCAL: "tpb_xt_local" {
            /// `memcopy_dmas`: the pure offset getter returns `0x13A0` [000 §2].
            MEMCOPY_DMAS @ 0x13A0, rw, "memcopy_dmas";
        }
    }
}

static_assertions::const_assert_eq!(regs::num2::EVENTS_SEMAPHORES_NT.mask(), 0xF_0000);

impl Arch for Cayman {
    /// CAYMAN = 3 [002 §1].
    const ID: ArchId = ArchId::Cayman;
    const NAME: &'static str = "cayman";
}

impl TpbBases for Cayman {
    const TPB_BASES: &'static [DeviceAddr] = &TPB_BASES;

    fn psum_base(tile: Tile<Self>) -> Result<DeviceAddr> {
        Ok(tile.base().add(PSUM_DELTA))
    }

    fn preproc_count() -> Result<u32> {
        Ok(PREPROC_BASES.len() as u32)
    }

    fn preproc_base(index: u32) -> Result<DeviceAddr> {
        usize::try_from(index)
            .ok()
            .and_then(|i| PREPROC_BASES.get(i))
            .copied()
            .ok_or(Error::OutOfRange {
                what: "preproc window",
                value: index as u64,
                limit: PREPROC_BASES.len() as u64,
            })
    }

    fn preproc_size() -> Result<u64> {
        Ok(PREPROC_SIZE)
    }
}

impl HbmMap for Cayman {
    const HBM_CHANNEL_BASES: &'static [DeviceAddr] = &HBM_CHANNEL_BASES;
    const HBM_SIZE: HbmUsableSize = HbmUsableSize(HBM_SIZE);
    const HBM_BAR_WINDOW: Result<HbmBarWindow> = Ok(HbmBarWindow(HBM_BAR_WINDOW));
}

impl IramSizes for Cayman {
    fn iram_size(eng: Engine) -> Result<u64> {
        match eng {
            Engine::Pe => Err(Error::NotTraced("pe iram size")),
            Engine::Act | Engine::Pool | Engine::Dve | Engine::Sp => Ok(IRAM_SIZE_NON_PE),
        }
    }
}

impl SeqParams for Cayman {
    const SEQ_SIZES: SeqSizes = SEQ_SIZES;

    fn seq_params(eng: Engine) -> Result<SeqTriple<DeviceAddr>> {
        Ok(match eng {
            Engine::Pe => SeqTriple::chained(SEQ_BASE_PE),
            Engine::Act => SeqTriple::chained(SEQ_BASE_ACT),
            Engine::Pool => SeqTriple::chained(SEQ_BASE_POOL),
            Engine::Dve => SeqTriple::chained(SEQ_BASE_DVE),
            // SP: base 0, the same chaining (MED) [FACTS §3.2].
            Engine::Sp => SeqTriple::chained(0),
        })
    }

    fn seq_params_host_visible(eng: Engine) -> Result<SeqTriple<HostVisible>> {
        match eng {
            // SP: add 0x8_0280_0000, then rebase (MED) [000 §2], [FACTS §3.2].
            Engine::Sp => SeqTriple::chained(SEQ_SP_HOST_VISIBLE_ADD).to_host_visible(),
            _ => Self::seq_params(eng)?.to_host_visible(),
        }
    }
}

impl HwDecode for Cayman {
    fn hw_decode_table_params(eng: Engine) -> Result<HwDecodeParams<DeviceAddr>> {
        let base = match eng {
            Engine::Pe => HW_DECODE_BASE_PE,
            Engine::Act => HW_DECODE_BASE_ACT,
            Engine::Pool => HW_DECODE_BASE_POOL,
            Engine::Dve => HW_DECODE_BASE_DVE,
            Engine::Sp => return Err(Error::NotTraced("sp hw-decode table params")),
        };
        Ok(HwDecodeParams {
            base: DeviceAddr(base),
            header_size: HW_DECODE_HEADER_SIZE,
            block_size: HW_DECODE_BLOCK_SIZE,
        })
    }

    fn hw_decode_table_params_host_visible(eng: Engine) -> Result<HwDecodeParams<HostVisible>> {
        Self::hw_decode_table_params(eng)?.to_host_visible()
    }

    fn hw_decode_fourth_param(_eng: Engine) -> Result<u64> {
        Err(Error::NotTraced("hw-decode fourth out-param"))
    }
}

impl DveTables for Cayman {
    const DVE_TABLE_OFFSETS: Option<DveTableOffsets> = Some(DVE_TABLE_OFFSETS);
    const DVE_PARAM_RAM_BASE: Offset = DVE_PARAM_RAM_BASE;
    const DVE_PARAM_RAM_SIZE: u64 = DVE_PARAM_RAM_SIZE;
    /// Five tables loaded, control_slow included [000 §4].
    const DVE_LOADS_CONTROL_SLOW: bool = true;
    const DVE_TABLE_SIZES: DveTableSizes = DVE_TABLE_SIZES;
}

impl ActTables for Cayman {
    fn act_table_params() -> Result<ActTableParams> {
        Ok(ACT_TABLE_PARAMS)
    }
}

/// All five SDMA / FP8 / EMAX getters return the 0 sentinel on CAYMAN
/// [000 §3], [000r1 §3].
impl CapCfg for Cayman {
    fn sdma_cce_user_offset() -> Result<Gated<Offset>> {
        Ok(Gated::Absent)
    }
    fn sdma_data_conv_non_ocp_cfg_offset() -> Result<Gated<FlagSelected>> {
        Ok(Gated::Absent)
    }
    fn sdma_data_conv_fp8_ocp_cfg_offset() -> Result<Gated<FlagSelected>> {
        Ok(Gated::Absent)
    }
    fn dve_sequencer_emax_cfg_offset() -> Result<Gated<Offset>> {
        Ok(Gated::Absent)
    }
    fn eng_fp8_cfg_offset(_eng: Engine) -> Result<Gated<Offset>> {
        Ok(Gated::Absent)
    }
}

impl TopSpNx for Cayman {
    fn topsp_window_base() -> Result<Offset> {
        Err(Error::NotTraced("cayman topsp-nx window base"))
    }
    fn topsp_stop_signal() -> Result<Offset> {
        Ok(TOPSP_STOP_SIGNAL)
    }
    fn topsp_basic_block_switch() -> Result<Offset> {
        Ok(TOPSP_BASIC_BLOCK_SWITCH)
    }
    fn topsp_host_trigger() -> Result<Offset> {
        Ok(TOPSP_HOST_TRIGGER)
    }
}

impl NxLocal for Cayman {
    const NX_LOCAL_BLOCK: Result<&'static BlockDesc> = Ok(&regs::NX_LOCAL);
    const XT_LOCAL_BLOCK: Result<&'static BlockDesc> = Ok(&regs::XT_LOCAL);

    fn start_ctrl() -> Result<Reg> {
        Ok(regs::START_CTRL)
    }
    fn notific_sw_queue_num2() -> Result<Reg> {
        Ok(regs::NOTIFIC_SW_QUEUE_NUM2)
    }
    fn events_semaphores_nt() -> Result<Field> {
        Ok(regs::num2::EVENTS_SEMAPHORES_NT)
    }
    fn release_run_stall() -> Result<Reg> {
        Ok(regs::RELEASE_RUN_STALL)
    }
    fn nx_rsvd_space(_i: RsvdSpace) -> Result<Reg> {
        // CAYMAN's Q7 swap table is a no-op: these registers are not traced here [004 §5].
        Err(Error::NotTraced("cayman nx_rsvd_space registers"))
    }
    fn memcopy_dmas_offset() -> Result<Offset> {
        Ok(Offset(regs::MEMCOPY_DMAS.offset()))
    }
    // start_addr_lo/hi and xt_local_reg_offset: the trait's NOT TRACED defaults.
}

/// Q7 params: the trait's NOT TRACED default [FACTS §3.7].
impl Q7Params for Cayman {}

/// Notification masks: the trait's NOT TRACED default [FACTS §5].
impl NotificMasks for Cayman {}

impl NqMailboxMap for Cayman {
    /// CAYMAN INTC is NOT TRACED [FACTS §7].
    const NQ_MAILBOX_MAP: Result<&'static [DeviceAddr; 16]> =
        Err(Error::NotTraced("cayman intc nq mailbox map"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tile_and_psum() {
        let t = Cayman::tile(7).unwrap();
        assert_eq!(Cayman::tpb_base(t), DeviceAddr(0x8070_0000_0000));
        assert_eq!(Cayman::psum_base(t), Ok(DeviceAddr(0x8078_0200_0000)));
        assert!(Cayman::tile(8).is_err());
    }

    #[test]
    fn seq_sp_special_case() {
        let hv = Cayman::seq_params_host_visible(Engine::Sp).unwrap();
        assert_eq!(hv.seq, HostVisible(0x280_0000));
        assert_eq!(hv.hostvis, HostVisible(0x284_0000));
    }
}
