//! The per-arch engine ops and the two NULL-slot policies as trait shapes
//! [002 §1, §3], [002r1 §3], [FACTS §4, §12.2].
//!
//! The C runtime fills a 245-slot dispatch object once at bind time; a shim
//! asserts an arch is bound, loads its slot and tail-calls it. When a slot is
//! empty the two policies differ [002 §3 GOTCHA]:
//!
//! - **mandatory** (every DVE op; every notific and INTC op): a missing backend
//!   aborts. Here they are *required* trait methods ([`DveOps`]; INTC:
//!   [`crate::intc::IntcOps`]): an arch without one does not compile.
//! - **optional** (PE, Pooling, ACT-family, SP): a missing backend returns 0.
//!   Here they are *default* methods that succeed without touching hardware
//!   ([`PeOps`], [`PoolingOps`], [`ActOps`], [`SpOps`]). SUNDA's
//!   `pooling_hw_decode_table_init` answers that default's no-op success, as
//!   its registrar leaves that slot NULL [002 §3]. Which other slots each arch fills is NOT TRACED
//!   [FACTS §12.2]: khal assumes every arch installs the engine-init leaves
//!   §13 describes, and says so where an arch's leaf is a no-op.
//!
//! The three arches implement these traits through one set of impls over
//! their leaf data ([`super::arch_ops`]); a test arch implements them itself.
//!
//! Binding is a type: every op is an associated function of an arch type
//! (`Cayman::dve_init(..)`, or through [`super::AnyArch`] built from a
//! validated id). There is no "called before bind" state.
//!
//! Each op's doc names its dispatch slot (`kaena_khal + offset`, the full
//! lists in [`super::slots`]). The `_init` ops are the engines' orchestrators
//! ([`super::init`]); the step ops are their leaves. A leaf whose program the
//! sources do not give whole answers [`crate::Error::NotTraced`] naming the
//! missing piece, before any access.

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
            fn $name<M: Mmio + ?Sized>(mmio: &M, $p: $ty) -> Result<()> {
                let _ = (mmio, $p);
                Ok(())
            }
        )*
    };
}

/// DVE ops: mandatory on every arch (a NULL slot aborts in C) [002 §3].
pub trait DveOps {
    /// `dve_regs_init`, slot `+0x208`.
    fn dve_regs_init<M: Mmio + ?Sized>(mmio: &M, p: &EngineParams<'_>) -> Result<()>;
    /// `dve_ucode_seq_init`, slot `+0x280`.
    fn dve_ucode_seq_init<M: Mmio + ?Sized>(mmio: &M, p: &EngineParams<'_>) -> Result<()>;
    /// `dve_release_run_stall`, slot `+0x288`.
    fn dve_release_run_stall<M: Mmio + ?Sized>(mmio: &M, p: &EngineParams<'_>) -> Result<()>;
    /// `dve_dma_init`, slot `+0x290`.
    fn dve_dma_init<M: Mmio + ?Sized>(mmio: &M, p: &EngineParams<'_>) -> Result<()>;
    /// `dve_hw_decode_table_init`, slot `+0x2A8` (SUNDA: its stub, 0).
    fn dve_hw_decode_table_init<M: Mmio + ?Sized>(mmio: &M, p: &EngineParams<'_>) -> Result<()>;
    /// `dve_init`, slot `+0x2B0`, after the shim's config check.
    fn dve_init<M: Mmio + ?Sized>(mmio: &M, p: Checked<'_, EngineParams<'_>>) -> Result<()>;
}

/// ACT-family ops: optional (a NULL slot returns 0) [002 §3], [002r1 §3].
pub trait ActOps {
    optional_ops! {
        /// `act_regs_init`, slot `+0x218`.
        fn act_regs_init(p: &EngineParams<'_>);
        /// `act_ucode_seq_init`, slot `+0x2B8`.
        fn act_ucode_seq_init(p: &EngineParams<'_>);
        /// `act_release_run_stall`, slot `+0x2C0`.
        fn act_release_run_stall(p: &EngineParams<'_>);
        /// `act_dma_init`, slot `+0x2C8`.
        fn act_dma_init(p: &EngineParams<'_>);
        /// `act_hw_decode_table_init`, slot `+0x2D8`.
        fn act_hw_decode_table_init(p: &EngineParams<'_>);
        /// `act_init`, slot `+0x2E0`, after the shim's config check.
        fn act_init(p: Checked<'_, EngineParams<'_>>);
    }
}

/// PE ops: optional [002 §3], [002r1 §3].
pub trait PeOps {
    optional_ops! {
        /// `pe_regs_init`, slot `+0x2F0`.
        fn pe_regs_init(p: &PeParams<'_>);
        /// `pe_ucode_seq_init`, slot `+0x2F8`.
        fn pe_ucode_seq_init(p: &PeParams<'_>);
        /// `pe_release_run_stall`, slot `+0x300`.
        fn pe_release_run_stall(p: &PeParams<'_>);
        /// `pe_dma_init`, slot `+0x308`.
        fn pe_dma_init(p: &PeParams<'_>);
        /// `pe_hw_decode_table_init`, slot `+0x310`.
        fn pe_hw_decode_table_init(p: &PeParams<'_>);
        /// `pe_init`, slot `+0x318` (no shim check).
        fn pe_init(p: &PeParams<'_>);
    }
}

/// Pooling ops: optional [002 §3], [002r1 §3].
pub trait PoolingOps {
    optional_ops! {
        /// `pooling_regs_init`, slot `+0x338`.
        fn pooling_regs_init(p: &PoolingParams<'_>);
        /// `pooling_ucode_seq_init`, slot `+0x340`.
        fn pooling_ucode_seq_init(p: &PoolingParams<'_>);
        /// `pooling_release_seq_run_stall`, slot `+0x348`.
        fn pooling_release_seq_run_stall(p: &PoolingParams<'_>);
        /// `pooling_release_eng_run_stall`, slot `+0x350`.
        fn pooling_release_eng_run_stall(p: &PoolingParams<'_>);
        /// `pooling_dma_init`, slot `+0x358`.
        fn pooling_dma_init(p: &PoolingParams<'_>);
        /// `pooling_hw_decode_table_init`, slot `+0x360` (SUNDA: NULL slot → the
        /// default no-op success).
        fn pooling_hw_decode_table_init(p: &PoolingParams<'_>);
        /// `pooling_q7_ucode_eng_init`: `q7_ucode_eng_init` (kaena_khal `+0x3A8`)
        /// with `owner_idx` 0, as `pooling_init` calls it [q7 §7].
        fn pooling_q7_ucode_eng_init(p: &PoolingParams<'_>);
        /// `pooling_init`, slot `+0x368`, after the shim's config check.
        fn pooling_init(p: Checked<'_, PoolingParams<'_>>);
    }
}

/// SP ops (the `khal_sp` sub-table, `+0x6D8..+0x748`): optional [002 §2].
pub trait SpOps {
    optional_ops! {
        /// `sp_regs_init`, slot `+0x6E0`.
        fn sp_regs_init(h: Checked<'_, SpHandle>);
        /// `sp_ucode_seq_init`, slot `+0x6E8`.
        fn sp_ucode_seq_init(h: Checked<'_, SpHandle>);
        /// `sp_release_run_stall`, slot `+0x6F0`.
        fn sp_release_run_stall(h: Checked<'_, SpHandle>);
        /// `sp_dma_init`, slot `+0x738`.
        fn sp_dma_init(h: Checked<'_, SpHandle>);
    }
}

/// Every engine op: what `stpb_init` needs. Implemented automatically for
/// every type that implements the five op traits.
pub trait StpbOps: DveOps + ActOps + PeOps + PoolingOps + SpOps {}

impl<T: DveOps + ActOps + PeOps + PoolingOps + SpOps> StpbOps for T {}

/// A bound arch with every engine op: what [`super::AnyArch`] dispatches to.
pub trait EngineOps: Arch + StpbOps + super::init::InitSteps {}

impl<T: Arch + StpbOps + super::init::InitSteps> EngineOps for T {}
