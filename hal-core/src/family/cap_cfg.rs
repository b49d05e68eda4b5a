//! The capability-gated config offsets: SDMA / FP8 / EMAX [000 §3], [FACTS §3.5].
//!
//! [000 §3 GOTCHA]: on SUNDA and CAYMAN the C getters return the literal 0,
//! meaning "feature absent", never "offset 0". Here that is [`Gated::Absent`],
//! so no caller can write to `base + 0` by mistake. The notes name five getters
//! of this family; only SDMA, FP8 and EMAX are named, the other two are NOT
//! TRACED and have no method.

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

impl<T> Gated<T> {
    /// `Some(value)` when present.
    pub fn present(self) -> Option<T> {
        match self {
            Gated::Present(v) => Some(v),
            Gated::Absent => None,
        }
    }
}

/// The capability-gated config-offset family.
pub trait CapCfg {
    /// The SDMA config offset: `Absent`, or `Err(NotTraced)`.
    fn sdma_cfg_offset() -> Result<Gated<Offset>>;

    /// The FP8 config offset of engine `eng` (`eng_fp8_cfg`).
    fn eng_fp8_cfg_offset(eng: Engine) -> Result<Gated<Offset>>;

    /// The EMAX config offset: `Absent`, or `Err(NotTraced)`.
    fn emax_cfg_offset() -> Result<Gated<Offset>>;
}
