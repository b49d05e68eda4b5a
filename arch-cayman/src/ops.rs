//! CAYMAN's engine op table [002 §1, §3], [002r1 §3], its engine-init leaves
//! [FACTS §13.4–§13.6] and its Q7 policy [004 §5], [FACTS §13.3].
//!
//! The CAYMAN registrar (`kaena_khal_register_funcs_v3`) installs real
//! backends, `pooling_hw_decode_table_init` included [002 §3]; which other
//! slots it fills is NOT TRACED [FACTS §12.2]: khal installs the leaves §13
//! describes. The `_init` ops are the orchestrators of [`init`]; each leaf is
//! the §13 program where the sources give it whole (POOL's run-stall
//! releases, the HW-decode table init, the Q7 ucode load) and a `NotTraced`
//! naming the missing piece, before any access, where they do not.
//!
//! Q7: the swap table is a successful no-op that touches nothing, whose offset
//! getter answers zeros [004 §5 QUIRK].

use khal_core::engine::init::{self, InitSteps, Step};
use khal_core::engine::leaves::{self, hw_decode_step, q7_step};
use khal_core::engine::run_stall;
use khal_core::engine::{
    ActOps, Checked, DveOps, EngineParams, PeOps, PeParams, PoolingOps, PoolingParams, SpHandle,
    SpOps,
};
use khal_core::ids::Engine;
use khal_core::q7::Q7SwapTable;
use khal_core::{DeviceAddr, Error, Mmio, Result};

use crate::Cayman;

/// PE/ACT/DVE run the HW-decode step, POOL too [FACTS §13.6].
impl InitSteps for Cayman {
    const PE_STEPS: &'static [Step] = &init::STEPS_WITH_HW_DECODE;
    const ACT_STEPS: &'static [Step] = &init::STEPS_WITH_HW_DECODE;
    const DVE_STEPS: &'static [Step] = &init::STEPS_WITH_HW_DECODE;
    const POOL_STEPS: &'static [Step] = &init::POOL_STEPS_WITH_HW_DECODE;
}

impl DveOps for Cayman {
    /// SUNDA/CAYMAN bodies not given (known only: no chicken bit there).
    fn dve_regs_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        Err(Error::NotTraced("cayman dve regs_init body"))
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
        hw_decode_step::<Cayman, M>(mmio, p.mem, Engine::Dve, &p.info)
    }
    fn dve_init<M: Mmio + ?Sized>(mmio: &M, p: Checked<'_, EngineParams<'_>>) -> Result<()> {
        init::dve_init::<Cayman, M, ()>(mmio, p, &mut ())
    }
}

impl ActOps for Cayman {
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
        hw_decode_step::<Cayman, M>(mmio, p.mem, Engine::Act, &p.info)
    }
    fn act_init<M: Mmio + ?Sized>(mmio: &M, p: Checked<'_, EngineParams<'_>>) -> Result<()> {
        init::act_init::<Cayman, M, ()>(mmio, p, &mut ())
    }
}

impl PeOps for Cayman {
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
        hw_decode_step::<Cayman, M>(mmio, p.mem, Engine::Pe, &p.info)
    }
    fn pe_init<M: Mmio + ?Sized>(mmio: &M, p: &PeParams<'_>) -> Result<()> {
        init::pe_init::<Cayman, M, ()>(mmio, PeParams::accept(p), &mut ())
    }
}

impl PoolingOps for Cayman {
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
        run_stall::release_seq_run_stall::<Cayman, M>(mmio, p.mem)
    }
    fn pooling_release_eng_run_stall<M: Mmio + ?Sized>(
        mmio: &M,
        p: &PoolingParams<'_>,
    ) -> Result<()> {
        run_stall::release_eng_run_stall::<Cayman, M>(mmio, p.mem)
    }
    fn pooling_dma_init<M: Mmio + ?Sized>(_: &M, _: &PoolingParams<'_>) -> Result<()> {
        Err(leaves::DMA_INIT)
    }
    fn pooling_hw_decode_table_init<M: Mmio + ?Sized>(
        mmio: &M,
        p: &PoolingParams<'_>,
    ) -> Result<()> {
        hw_decode_step::<Cayman, M>(mmio, p.mem, Engine::Pool, &p.info)
    }
    fn pooling_q7_ucode_eng_init<M: Mmio + ?Sized>(mmio: &M, p: &PoolingParams<'_>) -> Result<()> {
        q7_step::<Cayman, M>(mmio, p.mem, p.q7)
    }
    fn pooling_init<M: Mmio + ?Sized>(mmio: &M, p: Checked<'_, PoolingParams<'_>>) -> Result<()> {
        init::pooling_init::<Cayman, M, ()>(mmio, p, &mut ())
    }
}

/// The SP leaves' bodies are not given [FACTS §13.4, §13.11].
impl SpOps for Cayman {
    fn sp_regs_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        Err(Error::NotTraced("cayman sp regs_init leaf"))
    }
    fn sp_ucode_seq_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        Err(Error::NotTraced("cayman sp ucode_seq_init leaf"))
    }
    fn sp_release_run_stall<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        Err(Error::NotTraced("cayman sp release_run_stall body"))
    }
    fn sp_dma_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        Err(Error::NotTraced("cayman sp dma_init leaf"))
    }
}

/// The swap table is inactive on CAYMAN: `xor eax,eax; ret`, no register
/// access [004 §5 QUIRK].
impl Q7SwapTable for Cayman {
    fn q7_swap_table<M: Mmio + ?Sized>(_: &M, _: DeviceAddr, _: u64, _: u32) -> Result<()> {
        Ok(())
    }
    fn q7_swap_table_register_offsets() -> Result<[u64; 3]> {
        Ok([0; 3])
    }
    fn q7_swap_file_io_table() -> Result<()> {
        Ok(())
    }
}
