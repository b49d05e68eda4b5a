//! CAYMAN's engine op table [002 §1, §3] and its Q7 policy [004 §5].
//!
//! The CAYMAN registrar (`kaena_khal_register_funcs_v3`) installs a leaf in
//! every engine slot, `pooling_hw_decode_table_init` included [002 §3]; the
//! leaves' register programs are not in the notes, so each override answers
//! `NotTraced` before touching the device (`release_run_stall` is known only
//! to write at NX `+0x0`, LOW, value not traced [FACTS §3.6]).
//!
//! Q7: the swap table is a successful no-op whose offset getter answers zeros;
//! the ucode loader is live, its params and per-core stride NOT TRACED.

use khal_core::engine::{
    ActOps, Checked, DveOps, EngineParams, PeOps, PeParams, PoolingOps, PoolingParams, SpHandle,
    SpOps,
};
use khal_core::q7::{Q7SwapTable, Q7UcodeLoader};
use khal_core::{Error, Mmio, Result};

use crate::Cayman;

impl DveOps for Cayman {
    fn dve_regs_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams) -> Result<()> {
        Err(Error::NotTraced("cayman dve_regs_init leaf"))
    }
    fn dve_ucode_seq_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams) -> Result<()> {
        Err(Error::NotTraced("cayman dve_ucode_seq_init leaf"))
    }
    fn dve_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, EngineParams>) -> Result<()> {
        Err(Error::NotTraced("cayman dve_init leaf"))
    }
}

impl ActOps for Cayman {
    fn act_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, EngineParams>) -> Result<()> {
        Err(Error::NotTraced("cayman act_init leaf"))
    }
}

impl PeOps for Cayman {
    fn pe_regs_init<M: Mmio + ?Sized>(_: &M, _: &PeParams) -> Result<()> {
        Err(Error::NotTraced("cayman pe_regs_init leaf"))
    }
    fn pe_init<M: Mmio + ?Sized>(_: &M, _: &PeParams) -> Result<()> {
        Err(Error::NotTraced("cayman pe_init leaf"))
    }
}

impl PoolingOps for Cayman {
    fn pooling_hw_decode_table_init<M: Mmio + ?Sized>(_: &M, _: &PoolingParams) -> Result<()> {
        Err(Error::NotTraced("cayman pooling_hw_decode_table_init leaf"))
    }
    fn pooling_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, PoolingParams>) -> Result<()> {
        Err(Error::NotTraced("cayman pooling_init leaf"))
    }
}

impl SpOps for Cayman {
    fn sp_regs_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        Err(Error::NotTraced("cayman sp regs_init leaf"))
    }
    fn sp_ucode_seq_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        Err(Error::NotTraced("cayman sp ucode_seq_init leaf"))
    }
    fn sp_release_run_stall<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        Err(Error::NotTraced("cayman sp release_run_stall value"))
    }
    fn sp_dma_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        Err(Error::NotTraced("cayman sp dma_init leaf"))
    }
}

/// The swap table is inactive on CAYMAN: `xor eax,eax; ret` [004 §5 QUIRK].
impl Q7SwapTable for Cayman {
    fn q7_swap_table<M: Mmio + ?Sized>(_: &M, _: u64, _: u32) -> Result<()> {
        Ok(())
    }
    fn q7_swap_table_register_offsets() -> Result<[u64; 3]> {
        Ok([0; 3])
    }
    fn q7_swap_file_io_table() -> Result<()> {
        Ok(())
    }
}

/// The live CAYMAN Q7 ucode loader [004 §5]; the per-core stride is NOT TRACED.
impl Q7UcodeLoader for Cayman {
    fn q7_core_stride() -> Result<u64> {
        Err(Error::NotTraced("cayman q7 per-core stride"))
    }
}
