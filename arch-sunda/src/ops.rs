//! SUNDA's engine op table [002 §1, §3], [002r1 §3], its engine-init leaves
//! [FACTS §13.4–§13.6], and its SUNDA-only leaves: the DGE notification
//! enable [002 §4] and the real Q7 swap table [004 §5].
//!
//! The SUNDA registrar (`kaena_khal_register_funcs_v2`) leaves at least one
//! Pooling slot NULL on purpose, `pooling_hw_decode_table_init` (+0x360)
//! [002 §3]: that op keeps the trait's default no-op. Which of the other slots
//! it fills is NOT TRACED [FACTS §12.2] (the earlier revision lists the
//! slots, not which each arch fills); khal installs the leaves §13 describes
//! for SUNDA. SUNDA's PE/ACT inits skip the HW-decode call, its DVE init calls
//! a stub (0), its pooling_init's call list omits it (§13.10 #10); its Q7
//! run-stall release is a no-op [FACTS §13.4]. A leaf the sources do not give
//! whole answers `NotTraced` naming the missing piece, before any access.

use khal_core::engine::init::{self, InitSteps, Step};
use khal_core::engine::leaves::{self, q7_step};
use khal_core::engine::run_stall;
use khal_core::engine::{
    ActOps, Checked, DgeNotif, DveOps, EngineParams, PeOps, PeParams, PoolingOps, PoolingParams,
    SpHandle, SpOps,
};
use khal_core::q7::{self, Q7SwapTable};
use khal_core::regs::Reg;
use khal_core::{DeviceAddr, Error, Mmio, Result};

use crate::Sunda;

/// No HW-decode step for PE, ACT, POOL; DVE calls its stub [FACTS §13.6].
impl InitSteps for Sunda {
    const PE_STEPS: &'static [Step] = &init::STEPS_WITHOUT_HW_DECODE;
    const ACT_STEPS: &'static [Step] = &init::STEPS_WITHOUT_HW_DECODE;
    const DVE_STEPS: &'static [Step] = &init::STEPS_WITH_HW_DECODE;
    const POOL_STEPS: &'static [Step] = &init::POOL_STEPS_WITHOUT_HW_DECODE;
}

impl DveOps for Sunda {
    /// SUNDA/CAYMAN bodies not given (known only: no chicken bit there).
    fn dve_regs_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        Err(Error::NotTraced("sunda dve regs_init body"))
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
    /// SUNDA's stub: 0, no access (no HW-decode silicon) [FACTS §3.3, §13.6].
    fn dve_hw_decode_table_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        Ok(())
    }
    fn dve_init<M: Mmio + ?Sized>(mmio: &M, p: Checked<'_, EngineParams<'_>>) -> Result<()> {
        init::dve_init::<Sunda, M, ()>(mmio, p, &mut ())
    }
}

/// `act_hw_decode_table_init` keeps the default: SUNDA's leaf is a no-op
/// success and its act_init skips the call [FACTS §3.3, §13.6].
impl ActOps for Sunda {
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
    fn act_init<M: Mmio + ?Sized>(mmio: &M, p: Checked<'_, EngineParams<'_>>) -> Result<()> {
        init::act_init::<Sunda, M, ()>(mmio, p, &mut ())
    }
}

/// `pe_hw_decode_table_init` keeps the default, as ACT's.
impl PeOps for Sunda {
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
    fn pe_init<M: Mmio + ?Sized>(mmio: &M, p: &PeParams<'_>) -> Result<()> {
        init::pe_init::<Sunda, M, ()>(mmio, PeParams::accept(p), &mut ())
    }
}

/// `pooling_hw_decode_table_init` is NOT overridden: SUNDA's slot is NULL, the
/// default no-op success is the C behaviour [002 §3].
impl PoolingOps for Sunda {
    /// Level set {map level; W `+0x104`; W xt `+0x804`; R xt `+0x14`}, RMW
    /// `+0xA00`, W xt `+0x1260` [arch-stpb §1].
    fn pooling_regs_init<M: Mmio + ?Sized>(_: &M, _: &PoolingParams<'_>) -> Result<()> {
        Err(Error::NotTraced(
            "pooling regs_init: +0xE8 masks, values at +0x104/+0x804, the level mapping",
        ))
    }
    fn pooling_ucode_seq_init<M: Mmio + ?Sized>(_: &M, _: &PoolingParams<'_>) -> Result<()> {
        Err(leaves::UCODE_SEQ_INIT)
    }
    fn pooling_release_seq_run_stall<M: Mmio + ?Sized>(
        mmio: &M,
        p: &PoolingParams<'_>,
    ) -> Result<()> {
        run_stall::release_seq_run_stall::<Sunda, M>(mmio, p.mem)
    }
    fn pooling_release_eng_run_stall<M: Mmio + ?Sized>(
        mmio: &M,
        p: &PoolingParams<'_>,
    ) -> Result<()> {
        run_stall::release_eng_run_stall::<Sunda, M>(mmio, p.mem)
    }
    fn pooling_dma_init<M: Mmio + ?Sized>(_: &M, _: &PoolingParams<'_>) -> Result<()> {
        Err(leaves::DMA_INIT)
    }
    fn pooling_q7_ucode_eng_init<M: Mmio + ?Sized>(mmio: &M, p: &PoolingParams<'_>) -> Result<()> {
        q7_step::<Sunda, M>(mmio, p.mem, p.q7)
    }
    fn pooling_init<M: Mmio + ?Sized>(mmio: &M, p: Checked<'_, PoolingParams<'_>>) -> Result<()> {
        init::pooling_init::<Sunda, M, ()>(mmio, p, &mut ())
    }
}

/// The SP leaves' bodies are not given [FACTS §13.4, §13.11].
impl SpOps for Sunda {
    fn sp_regs_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        Err(Error::NotTraced("sunda sp regs_init leaf"))
    }
    fn sp_ucode_seq_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        Err(Error::NotTraced("sunda sp ucode_seq_init leaf"))
    }
    fn sp_release_run_stall<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        Err(Error::NotTraced("sunda sp release_run_stall body"))
    }
    fn sp_dma_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        Err(Error::NotTraced("sunda sp dma_init leaf"))
    }
}

/// SUNDA is the only arch with the DGE notification enable [002 §4 GOTCHA].
impl DgeNotif for Sunda {
    fn dge_notific_ctrl() -> Result<Reg> {
        Err(Error::NotTraced("sunda tpb dge_notific_ctrl offset"))
    }
}

/// The real 3-dword swap table in the POOL XT/NX window [004 §5], [FACTS §13.1].
impl Q7SwapTable for Sunda {
    fn q7_swap_table<M: Mmio + ?Sized>(
        mmio: &M,
        mem: DeviceAddr,
        lo_hi: u64,
        b: u32,
    ) -> Result<()> {
        q7::swap_table_via_window::<Sunda, M>(mmio, mem, lo_hi, b)
    }
    fn q7_swap_table_register_offsets() -> Result<[u64; 3]> {
        Err(Error::NotTraced(
            "sunda q7 swap-table register-offset getter",
        ))
    }
    /// W xt `+0x70`, `+0x74`, `+0x838` with (ring address, 1, ...): which value
    /// goes to which register is NOT TRACED (§13.11).
    fn q7_swap_file_io_table() -> Result<()> {
        Err(Error::NotTraced("sunda q7 swap_file_io_table value order"))
    }
}
