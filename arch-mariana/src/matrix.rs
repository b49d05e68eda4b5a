//! MARIANA register-matrix tables and their family impls [000 §3], [004 §4], [FACTS §3, §7].
//!
//! The notes call MARIANA's TPB / PSUM / PREPROC tables, sequencer, HW-decode
//! and DVE getters byte-identical to CAYMAN's [000 §3]: those families delegate
//! to `khal_arch_cayman::Cayman`, so there is one definition of each table.
//! MARIANA's own values: the HBM size, the FP8 config table and the INTC
//! mailbox map.

use khal_arch_cayman::Cayman;
use khal_core::family::{
    ActTables, Arch, CapCfg, CapCfgTable, DveTableLayout, DveTables, FlagSelected, Gated,
    HbmLayout, HbmMap, HbmUsableSize, NotificMasks, NqMailboxMap, Offset, SeqParams, SeqSizes,
    SeqTriple, Tile, TpbBases,
};
use khal_core::{ArchId, Engine};
use khal_core::{DeviceAddr, HostVisible, MESH_HIGH_BIT};
use khal_core::{Error, Result};
use static_assertions::{const_assert, const_assert_eq};

use crate::Mariana;

/// `get_hbm_size`: `0x9_0000_0000` (36 GiB) per channel [000 §3].
const HBM_SIZE: u64 = 0x9_0000_0000;

/// `eng_fp8_cfg` per engine 0..3: `0xF00, 0xF08, 0xF0C, 0xF04` — not monotone
/// (`.rodata CSWTCH.14`) [000 §3 GOTCHA].
const FP8_CFG: [Offset; 4] = [Offset(0xF00), Offset(0xF08), Offset(0xF0C), Offset(0xF04)];
const_assert_eq!(FP8_CFG.len(), 4);

/// `sdma_cce_user_offset` `0x2000`, MED [000r1 §3], [FACTS §12.1].
const SDMA_CCE_USER_OFFSET: Offset = Offset(0x2000);
/// `sdma_data_conv_non_ocp_cfg_offset`: `0xC04` / `0xC14`, a flag selects
/// (which value by which flag: not traced), MED [000r1 §3], [FACTS §12.1].
const SDMA_DATA_CONV_NON_OCP_CFG: FlagSelected = FlagSelected([Offset(0xC04), Offset(0xC14)]);
/// `sdma_data_conv_fp8_ocp_cfg_offset`: `0xC00` / `0xC10`, a flag selects
/// (which value by which flag: not traced), MED [000r1 §3], [FACTS §12.1].
const SDMA_DATA_CONV_FP8_OCP_CFG: FlagSelected = FlagSelected([Offset(0xC00), Offset(0xC10)]);
/// `dve_sequencer_emax_cfg_offset` `0x32C`, MED [000r1 §3], [FACTS §12.1].
const DVE_SEQUENCER_EMAX_CFG_OFFSET: Offset = Offset(0x32C);

/// First mailbox base of the low die: `0x85_8000_0400` [004 §4].
const MAILBOX_BASE: u64 = 0x85_8000_0400;
/// Mailbox stride per queue id: `0x200` [004 §4].
const MAILBOX_STRIDE: u64 = 0x200;

/// `mariana_intc_nq_id_to_mb_base_map`: entries 0..7 = `0x85_8000_0400 + 0x200 * q`,
/// entries 8..15 the same plus the mesh bit (blocks 4..7, the high die) [004 §4 QUIRK].
// Evaluated at compile time: an out-of-bounds index here is a build error, never a panic.
#[allow(clippy::indexing_slicing)]
const NQ_MAILBOX_MAP: [DeviceAddr; 16] = {
    let mut map = [DeviceAddr(0); 16];
    let mut q = 0;
    while q < 8 {
        let low = MAILBOX_BASE + MAILBOX_STRIDE * q as u64;
        map[q] = DeviceAddr(low);
        map[q + 8] = DeviceAddr(low | MESH_HIGH_BIT);
        q += 1;
    }
    map
};
const_assert_eq!(NQ_MAILBOX_MAP.len(), 16);
// The two anchors the notes print [004 §4].
const_assert!(NQ_MAILBOX_MAP[0].0 == 0x85_8000_0400 && NQ_MAILBOX_MAP[8].0 == 0x8085_8000_0400);

impl Arch for Mariana {
    /// MARIANA = 4 [002 §1].
    const ID: ArchId = ArchId::Mariana;
}

/// Shared with CAYMAN (identical `.rodata` tables) [000 §3].
impl TpbBases for Mariana {
    const TPB_BASES: &'static [DeviceAddr] = <Cayman as TpbBases>::TPB_BASES;
    const PREPROC_BASES: Result<&'static [DeviceAddr]> = <Cayman as TpbBases>::PREPROC_BASES;
    const PREPROC_SIZE: Result<u64> = <Cayman as TpbBases>::PREPROC_SIZE;

    fn psum_base(tile: Tile<Self>) -> Result<DeviceAddr> {
        let same = <Cayman as TpbBases>::tile(tile.index())?;
        <Cayman as TpbBases>::psum_base(same)
    }
}

/// The channel bases and count are CAYMAN's: `0x0`, `0x40_0000_0000`,
/// `0x8000_0000_0000`, `0x8040_0000_0000` with `HBM_ACTIVE_SIZE
/// 0x9_0000_0000` in the v4 kernel headers, HIGH [kdrv v4], [FACTS §15.4]
/// (the notes' "share a 4-channel HBM map" [000 §3]); the usable size is
/// MARIANA's own; the BAR window is not traced.
impl HbmMap for Mariana {
    const HBM: HbmLayout = HbmLayout {
        channel_bases: <Cayman as HbmMap>::HBM.channel_bases,
        usable_size: HbmUsableSize(HBM_SIZE),
        bar_window: Err(Error::NotTraced("mariana hbm bar window")),
    };
}

/// CAYMAN and MARIANA emit the same per-engine sequencer bases [000 §3].
impl SeqParams for Mariana {
    const SEQ_SIZES: SeqSizes = <Cayman as SeqParams>::SEQ_SIZES;

    fn seq_params(eng: Engine) -> Result<SeqTriple<DeviceAddr>> {
        <Cayman as SeqParams>::seq_params(eng)
    }
    fn seq_params_host_visible(eng: Engine) -> Result<SeqTriple<HostVisible>> {
        <Cayman as SeqParams>::seq_params_host_visible(eng)
    }
}

/// Byte-identical to CAYMAN's getters [000 §3 CORRECTION].
/// "Same as CAYMAN" [000r1 §3], [FACTS §12.1].
impl DveTables for Mariana {
    const DVE_TABLES: DveTableLayout = <Cayman as DveTables>::DVE_TABLES;
}

/// "Same as CAYMAN" (MED) [000r1 §3], [FACTS §12.1].
impl ActTables for Mariana {
    fn act_table_params() -> Result<[u64; 4]> {
        <Cayman as ActTables>::act_table_params()
    }
}

/// MARIANA is the only arch with these features: `eng_fp8_cfg` engines 0..3
/// from the current note [000 §3], the other four from the earlier revision
/// (MED) [000r1 §3]; the FP8 offset of SP is in neither.
impl CapCfg for Mariana {
    const CAP_CFG: CapCfgTable = CapCfgTable {
        sdma_cce_user: Ok(Gated::Present(SDMA_CCE_USER_OFFSET)),
        sdma_data_conv_non_ocp: Ok(Gated::Present(SDMA_DATA_CONV_NON_OCP_CFG)),
        sdma_data_conv_fp8_ocp: Ok(Gated::Present(SDMA_DATA_CONV_FP8_OCP_CFG)),
        dve_sequencer_emax: Ok(Gated::Present(DVE_SEQUENCER_EMAX_CFG_OFFSET)),
        eng_fp8: [
            Ok(Gated::Present(FP8_CFG[0])),
            Ok(Gated::Present(FP8_CFG[1])),
            Ok(Gated::Present(FP8_CFG[2])),
            Ok(Gated::Present(FP8_CFG[3])),
            Err(Error::NotTraced("mariana fp8 cfg offset of sp")),
        ],
    };
}

/// Notification masks: the trait's NOT TRACED default [FACTS §5].
impl NotificMasks for Mariana {}

impl NqMailboxMap for Mariana {
    const NQ_MAILBOX_MAP: Result<&'static [DeviceAddr; 16]> = Ok(&NQ_MAILBOX_MAP);
}

#[cfg(test)]
mod tests {
    use super::*;
    use khal_core::Bounded;

    #[test]
    fn mailbox_and_fp8() {
        let b = |v| Bounded::<8>::new(v, "x").unwrap();
        assert_eq!(
            Mariana::nq_mailbox_base(b(5), b(3)),
            Ok(DeviceAddr(0x8085_8000_0A00))
        );
        assert_eq!(
            Mariana::eng_fp8_cfg_offset(Engine::Pool),
            Ok(Gated::Present(Offset(0xF0C)))
        );
    }

    #[test]
    fn shares_cayman_tables() {
        assert_eq!(
            <Mariana as TpbBases>::TPB_BASES,
            <Cayman as TpbBases>::TPB_BASES
        );
    }
}
