//! IRAM sizes per engine `get_tpb_eng_iram_size` [000 §3], [000r1 §3],
//! [FACTS §3.1, §12.1].

use crate::error::Result;
use crate::ids::Engine;

/// The IRAM-size family (`get_tpb_eng_iram_size`, kaena_khal `+0xC0`): PE's
/// size and one size for every other engine, per arch.
pub trait IramSizes {
    /// PE's IRAM bytes (`0x2_0000` on every arch, MED [000r1 §3]).
    const IRAM_SIZE_PE: u64;
    /// The IRAM bytes of ACT, POOL, DVE and SP [000 §3].
    const IRAM_SIZE_NON_PE: u64;

    /// IRAM bytes of engine `eng`.
    fn iram_size(eng: Engine) -> Result<u64> {
        Ok(match eng {
            Engine::Pe => Self::IRAM_SIZE_PE,
            Engine::Act | Engine::Pool | Engine::Dve | Engine::Sp => Self::IRAM_SIZE_NON_PE,
        })
    }
}
