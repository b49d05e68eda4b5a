//! SUNDA register-matrix tables and their family impls [000 §3], [FACTS §3].
//!
//! SUNDA is single-mesh (no bit-47 half), has 2 TPB tiles and 2 HBM channels,
//! no HW-decode silicon, no DVE table-offset getter, and its own TopSP origin.

use khal_core::family::{
    ActTables, Arch, CapCfg, DveTableLayout, DveTableSizes, DveTables, HbmLayout, HbmMap,
    HbmUsableSize, NotificMasks, NqMailboxMap, Offset, SeqParams, SeqSizes, SeqTriple, Tile,
    TpbBases,
};
use khal_core::{ArchId, Engine};
use khal_core::{DeviceAddr, HostVisible};
use khal_core::{Error, Result};
use static_assertions::const_assert_eq;

use crate::Sunda;

/// The kernel's SUNDA TPB window `V2_MMAP_TPB_OFFSET` = `0xFFF_C000_0000` [kdrv v2].
const TPB_WINDOW: u64 = 0xFFF_C000_0000;
/// One TPB's span in that window, `V2_MMAP_TPB_SIZE` = `0x400_0000` [kdrv v2].
const TPB_SIZE: u64 = 0x400_0000;

/// TPB base per tile: `V2_MMAP_TPB_COUNT` = 2 tiles of `V2_MMAP_TPB_SIZE`
/// from `V2_MMAP_TPB_OFFSET` [kdrv v2]. libnrt's SUNDA table is "not in this
/// band" of the notes [000 §3]; reading tile `i` at `window + i * size` is an
/// interpretation (MED) of the kernel's `{offset, size * count}` region.
const TPB_BASES: [DeviceAddr; 2] = [DeviceAddr(TPB_WINDOW), DeviceAddr(TPB_WINDOW + TPB_SIZE)];
const_assert_eq!(TPB_BASES.len(), 2);

/// HBM channel bases `0x0, 0x10_0000_0000` [kdrv v2]; 2 channels [000 §3].
const HBM_CHANNEL_BASES: [DeviceAddr; 2] = [DeviceAddr(0x0), DeviceAddr(0x10_0000_0000)];
const_assert_eq!(HBM_CHANNEL_BASES.len(), 2);

/// `get_hbm_size`: `0x4_0000_0000` (16 GiB) per channel [000 §3].
const HBM_SIZE: u64 = 0x4_0000_0000;

/// Sequencer base of PE: CAYMAN's without the `0x8_0000_0000` prefix [000 §3]
/// (the rule holds for PE, ACT and DVE; POOL is the exception below).
const SEQ_BASE_PE: u64 = 0x260_0000;
/// Sequencer base of ACT [000 §3].
const SEQ_BASE_ACT: u64 = 0x240_0000;
/// Sequencer base of POOL: `0x290_0000`, MED [000r1 §3], [FACTS §12.1].
///
/// Not CAYMAN's `0x8_0300_0000` with the prefix masked (`0x300_0000`, which the
/// current note's summary rule "SUNDA = CAYMAN with the mesh word masked" would
/// give): the earlier revision's byte-decoded table says `0x290_0000`, and the
/// table wins over the summary [FACTS §12.1]. It also fits the SUNDA POOL
/// XT-local window `0x296_0000` = seq base + `0x6_0000` [FACTS §13.1].
const SEQ_BASE_POOL: u64 = 0x290_0000;
/// Sequencer base of DVE [000 §3].
const SEQ_BASE_DVE: u64 = 0x2B0_0000;
/// Sequencer sizes `0x1_0000 / 0x4000`: SUNDA's own, not CAYMAN's [000 §3].
const SEQ_SIZES: SeqSizes = SeqSizes {
    sz1: 0x1_0000,
    sz2: 0x4000,
};

/// DVE parameter-RAM base `0x2B8_4000` (`get_dve_parameter_ram_params_sunda`)
/// [000 §3 CORRECTION].
const DVE_PARAM_RAM_BASE: Offset = Offset(0x2B8_4000);
/// DVE parameter-RAM size `0x400` (256 × f32) [000 §3, §4].
const DVE_PARAM_RAM_SIZE: u64 = 0x400;
/// DVE table sizes (opcode, control_fast, control_slow, datapath)
/// `0x2000, 0x800, 0x800, 0x800`: MED, the earlier revision's table
/// [000r1 §3], [FACTS §12.1]. SUNDA has the size getter though its loader
/// skips control_slow [000 §4].
const DVE_TABLE_SIZES: DveTableSizes = DveTableSizes {
    opcode: 0x2000,
    control_fast: 0x800,
    control_slow: 0x800,
    datapath: 0x800,
};

impl Arch for Sunda {
    /// SUNDA = 2 [002 §1].
    const ID: ArchId = ArchId::Sunda;
}

impl TpbBases for Sunda {
    const TPB_BASES: &'static [DeviceAddr] = &TPB_BASES;
    const PREPROC_BASES: Result<&'static [DeviceAddr]> =
        Err(Error::NotTraced("sunda preproc table"));
    const PREPROC_SIZE: Result<u64> = Err(Error::NotTraced("sunda preproc size"));

    fn psum_base(_tile: Tile<Self>) -> Result<DeviceAddr> {
        // "not in this band" [000 §3]: nobody traced SUNDA's PSUM table.
        Err(Error::NotTraced("sunda psum base"))
    }
}

impl HbmMap for Sunda {
    const HBM: HbmLayout = HbmLayout {
        channel_bases: &HBM_CHANNEL_BASES,
        usable_size: HbmUsableSize(HBM_SIZE),
        bar_window: Err(Error::NotTraced("sunda hbm bar window")),
    };
}

impl SeqParams for Sunda {
    const SEQ_SIZES: SeqSizes = SEQ_SIZES;

    fn seq_params(eng: Engine) -> Result<SeqTriple<DeviceAddr>> {
        Ok(match eng {
            Engine::Pe => SeqTriple::chained(SEQ_BASE_PE),
            Engine::Act => SeqTriple::chained(SEQ_BASE_ACT),
            Engine::Pool => SeqTriple::chained(SEQ_BASE_POOL),
            Engine::Dve => SeqTriple::chained(SEQ_BASE_DVE),
            Engine::Sp => return Err(Error::NotTraced("sunda sp sequencer params")),
        })
    }

    /// SUNDA carries no `0x8_0000_0000` prefix: nothing to rebase, the
    /// host-visible triple has the same values [000 §3].
    fn seq_params_host_visible(eng: Engine) -> Result<SeqTriple<HostVisible>> {
        let t = Self::seq_params(eng)?;
        Ok(SeqTriple {
            seq: HostVisible(t.seq.get()),
            seqtop: HostVisible(t.seqtop.get()),
            hostvis: HostVisible(t.hostvis.get()),
        })
    }

    /// PE-sequencer TopSP host-visible relbase `0x5B_0000` (MED [000r1 §3]).
    fn pe_seq_topsp_relbase() -> Result<Offset> {
        Ok(Offset(0x5B_0000))
    }
}

impl DveTables for Sunda {
    const DVE_TABLES: DveTableLayout = DveTableLayout {
        // SUNDA has no DVE table-offset getter [000 §3].
        offsets: None,
        sizes: DVE_TABLE_SIZES,
        param_ram_base: DVE_PARAM_RAM_BASE,
        param_ram_size: DVE_PARAM_RAM_SIZE,
        // Four tables loaded: control_slow skipped, its state slot = 0 [000 §4].
        loads_control_slow: false,
    };
}

/// SUNDA's ACT table params are "not in this band" of the note [000r1 §3]:
/// the trait's NOT TRACED default.
impl ActTables for Sunda {}

/// All five SDMA / FP8 / EMAX getters return the 0 sentinel on SUNDA
/// [000 §3], [000r1 §3].
impl CapCfg for Sunda {}

/// Notification masks: the trait's NOT TRACED default [FACTS §5].
impl NotificMasks for Sunda {}

impl NqMailboxMap for Sunda {
    /// SUNDA INTC is NOT TRACED [FACTS §7].
    const NQ_MAILBOX_MAP: Result<&'static [DeviceAddr; 16]> =
        Err(Error::NotTraced("sunda intc nq mailbox map"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_tiles_two_channels() {
        assert_eq!(Sunda::TPB_BASES.len(), 2);
        assert_eq!(Sunda::HBM.channel_bases.len(), 2);
        assert!(Sunda::tile(2).is_err());
    }

    #[test]
    fn no_hw_decode() {
        use khal_core::family::HwDecode;
        assert!(matches!(
            Sunda::hw_decode_table_params(Engine::Pe),
            Err(Error::Unsupported { .. })
        ));
    }
}
