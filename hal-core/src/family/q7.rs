//! Q7 (pooling-engine vision core) params `get_q7_params(set)` [000 §3], [004 §5],
//! [FACTS §3.7].
//!
//! The notes give the shape (iram/dram base and size, core count; addresses
//! shared across arches, only the instance count differs) but no value: every
//! arch answers `Err(NotTraced)`. The CAYMAN owner → param-set mapping belongs
//! to the Q7 loader (engine work), not here.

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};

/// One Q7 param set `(iram_base, iram_size, dram_base, dram_size, ncores)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Q7Param {
    /// IRAM base.
    pub iram_base: DeviceAddr,
    /// IRAM size in bytes.
    pub iram_size: u64,
    /// DRAM base.
    pub dram_base: DeviceAddr,
    /// DRAM size in bytes.
    pub dram_size: u64,
    /// Number of Q7 cores.
    pub ncores: u32,
}

/// The Q7 param family.
pub trait Q7Params {
    /// The param set `set`. The values are NOT TRACED on every arch
    /// [FACTS §3.7]: the default answers so, once for all arches.
    fn q7_params(set: u32) -> Result<Q7Param> {
        let _ = set;
        Err(Error::NotTraced("q7 params"))
    }
}
