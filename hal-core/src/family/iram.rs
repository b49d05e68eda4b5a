//! IRAM sizes per engine `get_tpb_eng_iram_size` [000 §3], [000r1 §3],
//! [FACTS §3.1, §12.1].

use crate::error::Result;
use crate::ids::Engine;

/// The IRAM-size family (`get_tpb_eng_iram_size`, kaena_khal `+0xC0`).
pub trait IramSizes {
    /// IRAM bytes of engine `eng`. PE's size is `0x2_0000` on every arch
    /// (MED [000r1 §3]); the other engines' are [000 §3].
    fn iram_size(eng: Engine) -> Result<u64>;
}
