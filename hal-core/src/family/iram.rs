//! IRAM sizes per engine [000 §3], [FACTS §3.1].

use crate::error::Result;
use crate::ids::Engine;

/// The IRAM-size family (`get_tpb_eng_iram_size`).
pub trait IramSizes {
    /// IRAM bytes of engine `eng`. PE's size is NOT TRACED on every arch:
    /// `Err(NotTraced)`.
    fn iram_size(eng: Engine) -> Result<u64>;
}
