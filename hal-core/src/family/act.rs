//! The ACT table params (`get_act_table_params`, kaena_khal `+0x58`)
//! [000r1 §3], [FACTS §12.1, §13.9].
//!
//! The getter has four out-params. The earlier revision of the note gives
//! their values on CAYMAN and MARIANA (MED); SUNDA's are "not in this band"
//! of the note, so NOT TRACED. Neither revision names the out-params or says
//! what the values are relative to, so khal gives them as raw values in
//! out-param order, not as typed addresses or offsets.

use crate::error::{Error, Result};

/// The ACT table family.
pub trait ActTables {
    /// The four out-param values of `get_act_table_params`, in out-param
    /// order (names not traced) [000r1 §3], or `Err(NotTraced)` where no
    /// revision gives them.
    fn act_table_params() -> Result<[u64; 4]> {
        Err(Error::NotTraced("act table params"))
    }
}
