//! The capability-gated config offsets: the SDMA / FP8 / EMAX getters
//! [000 §3], [FACTS §3.5, §12.1, §13.9].
//!
//! [000 §3 GOTCHA]: on SUNDA and CAYMAN the C getters return the literal 0,
//! meaning "feature absent", never "offset 0". Here that is [`Gated::Absent`],
//! so no caller can write to `base + 0` by mistake.
//!
//! The five getters, by their kaena_khal slots [FACTS §13.9]:
//! `sdma_cce_user_offset` (`+0x78`), `sdma_data_conv_non_ocp_cfg_offset`
//! (`+0x80`), `sdma_data_conv_fp8_ocp_cfg_offset` (`+0x88`),
//! `dve_sequencer_emax_cfg_offset` (`+0x90`), `eng_fp8_cfg_offset` (`+0x98`).
//! MARIANA's values other than `eng_fp8_cfg` come from the earlier revision of
//! the note, graded MED [000r1 §3], [FACTS §12.1].

use crate::error::Result;
use crate::family::Offset;
use crate::ids::Engine;

/// A capability-gated value: present, or the feature is absent on this arch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Gated<T> {
    /// The feature exists; here is its value.
    Present(T),
    /// The feature is absent on this arch (the C getter's 0 sentinel).
    Absent,
}

/// The two offsets a getter chooses between by a flag argument, in the order
/// the earlier revision lists them [000r1 §3], [FACTS §12.1].
///
/// Which flag value selects which offset is in neither revision, so khal
/// offers both and no `select(flag)`: a caller that knows the mapping picks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct FlagSelected(pub [Offset; 2]);

/// One arch's capability-gated config offsets: the table each arch states
/// once (with each value's grade), one field per getter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CapCfgTable {
    /// `sdma_cce_user_offset` (kaena_khal `+0x78`): `Absent`, or the offset.
    pub sdma_cce_user: Result<Gated<Offset>>,
    /// `sdma_data_conv_non_ocp_cfg_offset` (`+0x80`): `Absent`, or the two
    /// offsets its flag argument selects between.
    pub sdma_data_conv_non_ocp: Result<Gated<FlagSelected>>,
    /// `sdma_data_conv_fp8_ocp_cfg_offset` (`+0x88`): `Absent`, or the two
    /// offsets its flag argument selects between.
    pub sdma_data_conv_fp8_ocp: Result<Gated<FlagSelected>>,
    /// `dve_sequencer_emax_cfg_offset` (`+0x90`): `Absent`, or the offset.
    pub dve_sequencer_emax: Result<Gated<Offset>>,
    /// `eng_fp8_cfg_offset` of PE, ACT, POOL, DVE, SP (by [`Engine::index`]);
    /// read it through [`CapCfg::eng_fp8_cfg_offset`].
    pub eng_fp8: [Result<Gated<Offset>>; 5],
}

/// The capability-gated config-offset family.
pub trait CapCfg {
    /// The arch's offsets; by default every getter answers `Absent`, the C
    /// getters' literal 0 on SUNDA and CAYMAN [000 §3 GOTCHA].
    const CAP_CFG: CapCfgTable = CapCfgTable {
        sdma_cce_user: Ok(Gated::Absent),
        sdma_data_conv_non_ocp: Ok(Gated::Absent),
        sdma_data_conv_fp8_ocp: Ok(Gated::Absent),
        dve_sequencer_emax: Ok(Gated::Absent),
        eng_fp8: [Ok(Gated::Absent); 5],
    };

    /// `eng_fp8_cfg_offset` (`+0x98`) of engine `eng`.
    fn eng_fp8_cfg_offset(eng: Engine) -> Result<Gated<Offset>> {
        let [pe, act, pool, dve, sp] = Self::CAP_CFG.eng_fp8;
        match eng {
            Engine::Pe => pe,
            Engine::Act => act,
            Engine::Pool => pool,
            Engine::Dve => dve,
            Engine::Sp => sp,
        }
    }
}
