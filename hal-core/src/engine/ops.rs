//! The per-arch engine ops and the two NULL-slot policies as trait shapes
//! [002 §1, §3], [002r1 §3], [FACTS §4, §12.2].
//!
//! The C runtime fills a 245-slot dispatch object once at bind time; a shim
//! asserts an arch is bound, loads its slot and tail-calls it. When a slot is
//! empty the two policies differ [002 §3 GOTCHA]:
//!
//! - **mandatory** (every DVE op; every notific and INTC op): a missing backend
//!   aborts. Here the DVE leaves are a *required* trait method
//!   ([`StpbOps::dve_step`]; INTC: [`crate::intc::IntcOps`]): an arch without
//!   them does not compile.
//! - **optional** (PE, Pooling, ACT-family, SP): a missing backend returns 0.
//!   Here they are *default* methods that succeed without touching hardware.
//!   SUNDA's `pooling_hw_decode_table_init` answers that default's no-op
//!   success, as its registrar leaves that slot NULL [002 §3]. Which other
//!   slots each arch fills is NOT TRACED [FACTS §12.2]: khal assumes every
//!   arch installs the engine-init leaves §13 describes, and says so where an
//!   arch's leaf is a no-op.
//!
//! An engine's leaves are one op keyed by the [`Step`] they implement: the
//! slots of each step are in [`super::slots`]. The `_init` ops (slots
//! `+0x2B0`, `+0x2E0`, `+0x318`, `+0x368`) are the engines' orchestrators,
//! which run those steps ([`super::init`]); every arch installs them, so they
//! are not an arch's to replace.
//!
//! The three arches implement [`StpbOps`] through one impl over their leaf
//! data ([`super::arch_ops`]); a test arch implements it itself.
//!
//! Binding is a type: every op is an associated function of an arch type
//! (`Cayman::dve_step(..)`, or through [`super::AnyArch`] built from a
//! validated id). There is no "called before bind" state. A leaf whose
//! program the sources do not give whole answers [`crate::Error::NotTraced`]
//! naming the missing piece, before any access.

use super::arch_ops::HwDecodeLeaves;
use super::init::Step;
use super::params::{Checked, EngineParams, PeParams, PoolingParams, SpHandle};
use crate::error::Result;
use crate::family::Arch;
use crate::Mmio;

/// Trait methods whose default is the optional slot's NULL policy: succeed
/// without touching hardware [002 §3].
macro_rules! optional_ops {
    ($($(#[$doc:meta])* fn $name:ident($p:ident: $ty:ty);)*) => {
        $(
            $(#[$doc])*
            fn $name<M: Mmio + ?Sized>(mmio: &M, step: Step, $p: $ty) -> Result<()> {
                let _ = (mmio, step, $p);
                Ok(())
            }
        )*
    };
}

/// The engine leaves of an arch: what `stpb_init` and the per-engine inits
/// run, one op per engine keyed by its [`Step`].
pub trait StpbOps {
    /// Whether the arch has HW-decode silicon. `NoOp`: the PE, ACT and POOL
    /// inits skip the HW-decode step, DVE's runs its leaf (SUNDA [FACTS §13.6],
    /// §13.10 #10); `Program`: every init runs it.
    const HW_DECODE: HwDecodeLeaves = HwDecodeLeaves::Program;

    /// The DVE leaf of `step`, mandatory (a NULL slot aborts in C) [002 §3]:
    /// `regs_init` `+0x208`, `ucode_seq_init` `+0x280`, `release_run_stall`
    /// `+0x288`, `dma_init` `+0x290`, `hw_decode_table_init` `+0x2A8`
    /// (SUNDA: its stub, 0).
    fn dve_step<M: Mmio + ?Sized>(mmio: &M, step: Step, p: &EngineParams<'_>) -> Result<()>;

    optional_ops! {
        /// The ACT leaf of `step`, optional [002 §3], [002r1 §3]: `regs_init`
        /// `+0x218`, `ucode_seq_init` `+0x2B8`, `release_run_stall` `+0x2C0`,
        /// `dma_init` `+0x2C8`, `hw_decode_table_init` `+0x2D8`.
        fn act_step(p: &EngineParams<'_>);
        /// The PE leaf of `step`, optional: `regs_init` `+0x2F0`,
        /// `ucode_seq_init` `+0x2F8`, `release_run_stall` `+0x300`, `dma_init`
        /// `+0x308`, `hw_decode_table_init` `+0x310`.
        fn pe_step(p: &PeParams<'_>);
        /// The Pooling leaf of `step`, optional: `regs_init` `+0x338`,
        /// `ucode_seq_init` `+0x340`, `release_seq_run_stall` `+0x348`,
        /// `release_eng_run_stall` `+0x350`, `dma_init` `+0x358`,
        /// `hw_decode_table_init` `+0x360` (SUNDA: NULL slot → the default
        /// no-op success), and `q7_ucode_eng_init` (kaena_khal `+0x3A8`) with
        /// `owner_idx` 0, as `pooling_init` calls it [q7 §7].
        fn pooling_step(p: &PoolingParams<'_>);
        /// The SP leaf of `step` (the `khal_sp` sub-table), optional [002 §2]:
        /// `regs_init` `+0x6E0`, `ucode_seq_init` `+0x6E8`,
        /// `release_run_stall` `+0x6F0`, `dma_init` `+0x738`.
        fn sp_step(h: Checked<'_, SpHandle>);
    }
}

/// A bound arch with every engine op: what [`super::AnyArch`] dispatches to.
pub trait EngineOps: Arch + StpbOps {}

impl<T: Arch + StpbOps> EngineOps for T {}
