//! MARIANA's engine op table [002 §1, §3], [002r1 §3], its engine-init
//! leaves [FACTS §13.4–§13.6] and its INTC op table [004 §4].
//!
//! The engine ops are CAYMAN's shapes on MARIANA's data: the POOL run-stall
//! releases are MARIANA's own decode [hw-decode §5b, §7]; the HW-decode step
//! answers `NotTraced` (MARIANA's bases are not printed, §13.11); which slots
//! the registrar fills beyond [002 §3] is NOT TRACED [FACTS §12.2]. MARIANA's
//! Q7 swap table is not in the sources: no `Q7SwapTable`.
//!
//! INTC: MARIANA is the one arch whose INTC leaves were decoded; every op is
//! the generic MSI-X program of `khal_core::intc` with MARIANA's mailbox map.

use khal_core::engine::init::{self, InitSteps, Step};
use khal_core::engine::leaves::{self, hw_decode_step, q7_step};
use khal_core::engine::run_stall;
use khal_core::engine::{
    ActOps, Checked, DveOps, EngineParams, PeOps, PeParams, PoolingOps, PoolingParams, SpHandle,
    SpOps,
};
use khal_core::ids::Engine;
use khal_core::intc::{ErrtrigLine, IntcOps, MsixIntc};
use khal_core::{DeviceAddr, Error, Mmio, Result};

use crate::Mariana;

/// PE/ACT/DVE run the HW-decode step, POOL too [FACTS §13.6].
impl InitSteps for Mariana {
    const PE_STEPS: &'static [Step] = &init::STEPS_WITH_HW_DECODE;
    const ACT_STEPS: &'static [Step] = &init::STEPS_WITH_HW_DECODE;
    const DVE_STEPS: &'static [Step] = &init::STEPS_WITH_HW_DECODE;
    const POOL_STEPS: &'static [Step] = &init::POOL_STEPS_WITH_HW_DECODE;
}

impl DveOps for Mariana {
    /// MARIANA's program needs the `+0xA04` masks and the level mapping table.
    fn dve_regs_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        Err(Error::NotTraced(
            "mariana dve regs_init: +0xA04 masks, the level mapping table",
        ))
    }
    fn dve_ucode_seq_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        Err(leaves::UCODE_SEQ_INIT)
    }
    fn dve_release_run_stall<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        Err(leaves::RELEASE_RUN_STALL)
    }
    fn dve_dma_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        Err(leaves::DMA_INIT)
    }
    fn dve_hw_decode_table_init<M: Mmio + ?Sized>(mmio: &M, p: &EngineParams<'_>) -> Result<()> {
        hw_decode_step::<Mariana, M>(mmio, p.mem, Engine::Dve, &p.info)
    }
    fn dve_init<M: Mmio + ?Sized>(mmio: &M, p: Checked<'_, EngineParams<'_>>) -> Result<()> {
        init::dve_init::<Mariana, M, ()>(mmio, p, &mut ())
    }
}

impl ActOps for Mariana {
    fn act_regs_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        Err(leaves::ACT_REGS_INIT)
    }
    fn act_ucode_seq_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        Err(leaves::UCODE_SEQ_INIT)
    }
    fn act_release_run_stall<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        Err(leaves::RELEASE_RUN_STALL)
    }
    fn act_dma_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        Err(leaves::DMA_INIT)
    }
    fn act_hw_decode_table_init<M: Mmio + ?Sized>(mmio: &M, p: &EngineParams<'_>) -> Result<()> {
        hw_decode_step::<Mariana, M>(mmio, p.mem, Engine::Act, &p.info)
    }
    fn act_init<M: Mmio + ?Sized>(mmio: &M, p: Checked<'_, EngineParams<'_>>) -> Result<()> {
        init::act_init::<Mariana, M, ()>(mmio, p, &mut ())
    }
}

impl PeOps for Mariana {
    fn pe_regs_init<M: Mmio + ?Sized>(_: &M, _: &PeParams<'_>) -> Result<()> {
        Err(leaves::PE_REGS_INIT)
    }
    fn pe_ucode_seq_init<M: Mmio + ?Sized>(_: &M, _: &PeParams<'_>) -> Result<()> {
        Err(leaves::UCODE_SEQ_INIT)
    }
    fn pe_release_run_stall<M: Mmio + ?Sized>(_: &M, _: &PeParams<'_>) -> Result<()> {
        Err(leaves::RELEASE_RUN_STALL)
    }
    fn pe_dma_init<M: Mmio + ?Sized>(_: &M, _: &PeParams<'_>) -> Result<()> {
        Err(leaves::DMA_INIT)
    }
    fn pe_hw_decode_table_init<M: Mmio + ?Sized>(mmio: &M, p: &PeParams<'_>) -> Result<()> {
        hw_decode_step::<Mariana, M>(mmio, p.mem, Engine::Pe, &p.info)
    }
    fn pe_init<M: Mmio + ?Sized>(mmio: &M, p: &PeParams<'_>) -> Result<()> {
        init::pe_init::<Mariana, M, ()>(mmio, PeParams::accept(p), &mut ())
    }
}

impl PoolingOps for Mariana {
    /// As SUNDA for `+0xA00`/`+0x1260` (MED) plus W `+0xA14` = nibble × 8.
    fn pooling_regs_init<M: Mmio + ?Sized>(_: &M, _: &PoolingParams<'_>) -> Result<()> {
        Err(Error::NotTraced(
            "pooling regs_init: +0xE8 masks, values at +0x104/+0x804, source of the +0xA14 nibble",
        ))
    }
    fn pooling_ucode_seq_init<M: Mmio + ?Sized>(_: &M, _: &PoolingParams<'_>) -> Result<()> {
        Err(leaves::UCODE_SEQ_INIT)
    }
    fn pooling_release_seq_run_stall<M: Mmio + ?Sized>(
        mmio: &M,
        p: &PoolingParams<'_>,
    ) -> Result<()> {
        run_stall::release_seq_run_stall::<Mariana, M>(mmio, p.mem)
    }
    fn pooling_release_eng_run_stall<M: Mmio + ?Sized>(
        mmio: &M,
        p: &PoolingParams<'_>,
    ) -> Result<()> {
        run_stall::release_eng_run_stall::<Mariana, M>(mmio, p.mem)
    }
    fn pooling_dma_init<M: Mmio + ?Sized>(_: &M, _: &PoolingParams<'_>) -> Result<()> {
        Err(leaves::DMA_INIT)
    }
    fn pooling_hw_decode_table_init<M: Mmio + ?Sized>(
        mmio: &M,
        p: &PoolingParams<'_>,
    ) -> Result<()> {
        hw_decode_step::<Mariana, M>(mmio, p.mem, Engine::Pool, &p.info)
    }
    fn pooling_q7_ucode_eng_init<M: Mmio + ?Sized>(mmio: &M, p: &PoolingParams<'_>) -> Result<()> {
        q7_step::<Mariana, M>(mmio, p.mem, p.q7)
    }
    fn pooling_init<M: Mmio + ?Sized>(mmio: &M, p: Checked<'_, PoolingParams<'_>>) -> Result<()> {
        init::pooling_init::<Mariana, M, ()>(mmio, p, &mut ())
    }
}

/// The SP leaves' bodies are not given [FACTS §13.4, §13.11].
impl SpOps for Mariana {
    fn sp_regs_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        Err(Error::NotTraced("mariana sp regs_init leaf"))
    }
    fn sp_ucode_seq_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        Err(Error::NotTraced("mariana sp ucode_seq_init leaf"))
    }
    fn sp_release_run_stall<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        Err(Error::NotTraced("mariana sp release_run_stall body"))
    }
    fn sp_dma_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        Err(Error::NotTraced("mariana sp dma_init leaf"))
    }
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
