//! CAYMAN register-matrix tables and their family impls [000 §3], [FACTS §3].
//!
//! The tables the notes call shared between CAYMAN and MARIANA (TPB, PSUM,
//! PREPROC, HBM bases, IRAM, sequencer, HW-decode, DVE) are defined here once;
//! `khal-arch-mariana` reuses them through these impls.

use khal_core::family::{
    ActTables, Arch, CapCfg, DveTableLayout, DveTableOffsets, DveTableSizes, DveTables,
    HbmBarWindow, HbmLayout, HbmMap, HbmUsableSize, NotificMasks, NqMailboxMap, Offset, SeqParams,
    SeqSizes, SeqTriple, Tile, TpbBases,
};
use khal_core::{ArchId, Engine};
use khal_core::{DeviceAddr, HostVisible, MESH_HIGH_BIT};
use khal_core::{Error, Result};
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

/// The PSUM aperture delta: PSUM base = TPB base + `0x8_0200_0000`, per tile,
/// verified across all eight slots [000 §3 NOTE].
const PSUM_DELTA: u64 = 0x8_0200_0000;

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
const ACT_TABLE_PARAMS: [u64; 4] = [0x250_0000, 0x252_0000, 0x254_0000, 0x258_0000];

impl Arch for Cayman {
    /// CAYMAN = 3 [002 §1].
    const ID: ArchId = ArchId::Cayman;
}

impl TpbBases for Cayman {
    const TPB_BASES: &'static [DeviceAddr] = &TPB_BASES;
    const PREPROC_BASES: Result<&'static [DeviceAddr]> = Ok(&PREPROC_BASES);
    const PREPROC_SIZE: Result<u64> = Ok(PREPROC_SIZE);

    fn psum_base(tile: Tile<Self>) -> Result<DeviceAddr> {
        Ok(Self::tpb_base(tile).add(PSUM_DELTA))
    }
}

impl HbmMap for Cayman {
    const HBM: HbmLayout = HbmLayout {
        channel_bases: &HBM_CHANNEL_BASES,
        usable_size: HbmUsableSize(HBM_SIZE),
        bar_window: Ok(HbmBarWindow(HBM_BAR_WINDOW)),
    };
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

    /// PE-sequencer TopSP host-visible relbase `0x14_0000` (MED [000r1 §3]).
    fn pe_seq_topsp_relbase() -> Result<Offset> {
        Ok(Offset(0x14_0000))
    }
}

impl DveTables for Cayman {
    const DVE_TABLES: DveTableLayout = DveTableLayout {
        offsets: Some(DVE_TABLE_OFFSETS),
        sizes: DVE_TABLE_SIZES,
        param_ram_base: DVE_PARAM_RAM_BASE,
        param_ram_size: DVE_PARAM_RAM_SIZE,
        // Five tables loaded, control_slow included [000 §4].
        loads_control_slow: true,
    };
}

impl ActTables for Cayman {
    fn act_table_params() -> Result<[u64; 4]> {
        Ok(ACT_TABLE_PARAMS)
    }
}

/// All five SDMA / FP8 / EMAX getters return the 0 sentinel on CAYMAN
/// [000 §3], [000r1 §3].
impl CapCfg for Cayman {}

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
