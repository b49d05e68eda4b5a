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
use khal_core::engine::{EngineLeaves, HwDecodeLeaves};
use khal_core::intc::{ErrtrigLine, IntcOps, MsixIntc};
use khal_core::{DeviceAddr, Error, Mmio, Result};

use crate::Mariana;

/// MARIANA's leaf data [FACTS §13.4–§13.6, §13.11].
impl EngineLeaves for Mariana {
    /// MARIANA's program needs the `+0xA04` masks and the level mapping table.
    const DVE_REGS_INIT: Error =
        Error::NotTraced("mariana dve regs_init: +0xA04 masks, the level mapping table");
    /// CAYMAN's answer: the same program, the same missing pieces.
    const POOLING_REGS_INIT: Error = <Cayman as EngineLeaves>::POOLING_REGS_INIT;
    /// Every engine's HW-decode slot runs the §13 program; its step answers
    /// `NotTraced` (MARIANA's bases are not printed, §13.11).
    const HW_DECODE: HwDecodeLeaves = HwDecodeLeaves::Program;
    /// The SP leaves' bodies are not given [FACTS §13.4, §13.11].
    const SP_REGS_INIT: Error = Error::NotTraced("mariana sp regs_init leaf");
    const SP_UCODE_SEQ_INIT: Error = Error::NotTraced("mariana sp ucode_seq_init leaf");
    const SP_RELEASE_RUN_STALL: Error = Error::NotTraced("mariana sp release_run_stall body");
    const SP_DMA_INIT: Error = Error::NotTraced("mariana sp dma_init leaf");
}

impl IntcOps for Mariana {
    fn mask_vector<M: Mmio + ?Sized>(h: &MsixIntc, mmio: &M, vec: u32) -> Result<()> {
        h.mask_vector(mmio, vec)
    }
    fn unmask_vector<M: Mmio + ?Sized>(h: &MsixIntc, mmio: &M, vec: u32) -> Result<()> {
        h.unmask_vector(mmio, vec)
    }
    fn mask_interrupt<M: Mmio + ?Sized>(h: &MsixIntc, mmio: &M, line: ErrtrigLine) -> Result<()> {
        h.mask_interrupt(mmio, line)
    }
    fn unmask_interrupt<M: Mmio + ?Sized>(h: &MsixIntc, mmio: &M, line: ErrtrigLine) -> Result<()> {
        h.unmask_interrupt(mmio, line)
    }
    fn mask_notification<M: Mmio + ?Sized>(
        h: &MsixIntc,
        mmio: &M,
        line: ErrtrigLine,
    ) -> Result<()> {
        h.mask_notification(mmio, line)
    }
    fn unmask_notification<M: Mmio + ?Sized>(
        h: &MsixIntc,
        mmio: &M,
        line: ErrtrigLine,
    ) -> Result<()> {
        h.unmask_notification(mmio, line)
    }
    fn set_cause<M: Mmio + ?Sized>(h: &MsixIntc, mmio: &M, line: ErrtrigLine) -> Result<()> {
        h.set_cause(mmio, line)
    }
    fn read_cause<M: Mmio + ?Sized>(h: &MsixIntc, mmio: &M, line: ErrtrigLine) -> Result<u32> {
        h.read_cause(mmio, line)
    }
    fn set_mod_timer_period<M: Mmio + ?Sized>(h: &MsixIntc, mmio: &M, period: u32) -> Result<()> {
        h.set_mod_timer_period(mmio, period)
    }
    fn set_group_interval<M: Mmio + ?Sized>(
        h: &MsixIntc,
        mmio: &M,
        grp: u32,
        value: u32,
    ) -> Result<()> {
        h.set_group_interval(mmio, grp, value)
    }
    fn set_notific_queue_base<M: Mmio + ?Sized>(
        h: &MsixIntc,
        mmio: &M,
        block: u32,
        queue: u32,
    ) -> Result<DeviceAddr> {
        h.set_notific_queue_base::<Mariana, M>(mmio, block, queue)
    }
}
