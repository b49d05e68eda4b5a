//! MARIANA's engine op table [002 §1, §3], [002r1 §3], its engine-init
//! leaves [FACTS §13.4–§13.6] and its INTC op table [004 §4].
//!
//! The engine ops are CAYMAN's shapes on MARIANA's data (its `StpbOps` comes
//! from `khal_core::engine` over its [`EngineLeaves`]): the POOL run-stall
//! releases are MARIANA's own decode [hw-decode §5b, §7]; the HW-decode step
//! answers `NotTraced` (MARIANA's bases are not printed, §13.11); which slots
//! the registrar fills beyond [002 §3] is NOT TRACED [FACTS §12.2]. MARIANA's
//! Q7 swap table is not in the sources: no `Q7SwapTable`.
//!
//! INTC: MARIANA is the one arch whose INTC leaves were decoded; every op is
//! the generic MSI-X program of `khal_core::intc` with MARIANA's mailbox map.

use khal_arch_cayman::Cayman;
use khal_core::engine::{EngineLeaves, HwDecodeLeaves, Leaves};
use khal_core::intc::IntcOps;
use khal_core::Error;

use crate::Mariana;

/// MARIANA's leaf data [FACTS §13.4–§13.6, §13.11].
impl EngineLeaves for Mariana {
    const LEAVES: Leaves = Leaves {
        // MARIANA's program needs the `+0xA04` masks and the level mapping table.
        dve_regs_init: Error::NotTraced(
            "mariana dve regs_init: +0xA04 masks, the level mapping table",
        ),
        // CAYMAN's answer: the same program, the same missing pieces.
        pooling_regs_init: <Cayman as EngineLeaves>::LEAVES.pooling_regs_init,
        // Every engine's HW-decode slot runs the §13 program; its step answers
        // `NotTraced` (MARIANA's bases are not printed, §13.11).
        hw_decode: HwDecodeLeaves::Program,
        // The SP leaves' bodies are not given [FACTS §13.4, §13.11].
        sp_regs_init: Error::NotTraced("mariana sp regs_init leaf"),
        sp_ucode_seq_init: Error::NotTraced("mariana sp ucode_seq_init leaf"),
        sp_release_run_stall: Error::NotTraced("mariana sp release_run_stall body"),
        sp_dma_init: Error::NotTraced("mariana sp dma_init leaf"),
    };
}

/// The INTC ops: the generic MSI-X program of `khal_core::intc::Intc`, with
/// MARIANA's NQ mailbox map [004 §4].
impl IntcOps for Mariana {}
