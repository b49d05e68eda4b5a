//! The per-arch gates on the `tpb_regs` leaves: which arches have the DVE
//! `rspcomb` eight-deep control and the PSUM rounding registers
//! [arch-stpb §2, §4], [hal-registers §3], [FACTS §13.7].
//!
//! The registers themselves are the same on every arch that has them
//! ([`crate::engine::tpb_regs::TPB_REGS`]); only their presence differs.

use crate::error::Result;
use crate::family::{Gated, Offset};

/// The `tpb_regs` gate family.
pub trait TpbRegGates {
    /// `force_rspcomb_eight_deep`'s register: MARIANA `Present(0x3C0)`;
    /// SUNDA/CAYMAN `Absent` (the setter does nothing, the getter answers 0)
    /// [FACTS §13.7].
    const RSPCOMB_EIGHT_DEEP: Gated<Offset>;

    /// The PSUM rounding writers exist (MARIANA); elsewhere the C asserts,
    /// here `Err(Unsupported)` [FACTS §13.7].
    fn psum_rounding() -> Result<()>;
}
