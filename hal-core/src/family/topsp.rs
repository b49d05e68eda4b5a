//! TopSP-NX registers: window base, stop_signal, basic_block_switch,
//! host_trigger [000 §2, §3], [FACTS §3.6].
//!
//! [000 §2 QUIRK]: SUNDA's and CAYMAN's TopSP offsets are not a constant delta
//! apart; every arch states its own, and an untraced one is `Err(NotTraced)`,
//! never derived from another arch's.

use crate::error::Result;
use crate::family::Offset;

/// The TopSP-NX family. Values are the getters' offsets as the notes give them.
pub trait TopSpNx {
    /// The TopSP-NX window base.
    fn topsp_window_base() -> Result<Offset>;
    /// The `stop_signal` register.
    fn topsp_stop_signal() -> Result<Offset>;
    /// The `basic_block_switch` register.
    fn topsp_basic_block_switch() -> Result<Offset>;
    /// The `host_trigger` register.
    fn topsp_host_trigger() -> Result<Offset>;
}
