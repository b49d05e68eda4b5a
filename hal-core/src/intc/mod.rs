//! The MSI-X interrupt controller (MARIANA TOP-INTC) [004 §4], [FACTS §7].
//!
//! - `regs`: the MSI-X and errtrig register blocks (`register_block!`); their
//!   descriptions [`MSIX`] and [`ERRTRIG`] (what a trace names accesses with)
//!   and the blocks' sizes [`MSIX_SIZE`], [`ERRTRIG_SIZE`] are public.
//! - `handle`: the C handle `aws_hal_intc_t`'s field offsets and size.
//! - `line`: [`ErrtrigLine`], the resolved `(block, g, sub, bit)` triple.
//! - `ens`: [`EnsNq`], the NQ of a block's ENS that `set_notific_queue_base` programs.
//! - `msix`: [`Intc`], the handle and its register programs (the INTC ops),
//!   and [`IntcOps`], the arches that have them (MARIANA only).
//!
//! Only MARIANA's INTC leaves were decoded; SUNDA and CAYMAN INTC are NOT
//! TRACED [004 §1 NOTE]: only MARIANA implements [`IntcOps`], so an INTC
//! handle for another arch cannot be written.

mod ens;
mod handle;
mod line;
mod msix;
pub(crate) mod regs;

pub use ens::EnsNq;
pub use line::ErrtrigLine;
pub use msix::{Intc, IntcOps};
pub use regs::{ERRTRIG, ERRTRIG_SIZE, MSIX, MSIX_SIZE};
