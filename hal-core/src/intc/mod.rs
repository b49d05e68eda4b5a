//! The MSI-X interrupt controller (MARIANA TOP-INTC) [004 §4], [FACTS §7].
//!
//! - [`regs`]: the MSI-X and errtrig register blocks (`register_block!`).
//! - [`handle`]: the C handle `aws_hal_intc_t`'s field offsets and size.
//! - `line`: [`ErrtrigLine`], the resolved `(block, g, sub, bit)` triple.
//! - `ens`: [`EnsNq`], the NQ of a block's ENS that `set_notific_queue_base` programs.
//! - `msix`: [`MsixIntc`], the handle and the register programs.
//! - `ops`: [`IntcOps`] (the mandatory op table, MARIANA only) and [`Intc`].
//!
//! Only MARIANA's INTC leaves were decoded; SUNDA and CAYMAN INTC are NOT
//! TRACED [004 §1 NOTE]: only MARIANA implements the INTC ops trait, so an
//! INTC handle for another arch cannot be written.

pub(crate) mod ens;
pub mod handle;
pub(crate) mod line;
pub(crate) mod msix;
pub(crate) mod ops;
pub mod regs;

pub use ens::EnsNq;
pub use line::{ErrtrigLine, ERRTRIG_BLOCKS};
pub use msix::{MsixIntc, MAX_VECTOR, MOD_TIMER_PERIODS};
pub use ops::{Intc, IntcOps};
