//! SUNDA's engine op table [002 §1, §3], and its SUNDA-only leaves: the DGE
//! notification enable [002 §4] and the real Q7 swap table [004 §5].
//!
//! The SUNDA registrar (`kaena_khal_register_funcs_v2`) installs a leaf in
//! every engine slot except `pooling_hw_decode_table_init` (+0x360), which it
//! leaves NULL on purpose [002 §3]: that op keeps the trait's default no-op.
//! The installed leaves' register programs are not in the notes, so each
//! override answers `NotTraced` before touching the device.

use khal_core::engine::{
    ActOps, Checked, DgeNotif, DveOps, EngineParams, PeOps, PeParams, PoolingOps, PoolingParams,
    SpHandle, SpOps,
};
use khal_core::q7::{self, Q7SwapTable};
use khal_core::regs::Reg;
use khal_core::{Error, Mmio, Result};

use crate::Sunda;

impl DveOps for Sunda {
    fn dve_regs_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams) -> Result<()> {
        Err(Error::NotTraced("sunda dve_regs_init leaf"))
    }
    fn dve_ucode_seq_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams) -> Result<()> {
        Err(Error::NotTraced("sunda dve_ucode_seq_init leaf"))
    }
    fn dve_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, EngineParams>) -> Result<()> {
        Err(Error::NotTraced("sunda dve_init leaf"))
    }
}

impl ActOps for Sunda {
    fn act_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, EngineParams>) -> Result<()> {
        Err(Error::NotTraced("sunda act_init leaf"))
    }
}

impl PeOps for Sunda {
    fn pe_regs_init<M: Mmio + ?Sized>(_: &M, _: &PeParams) -> Result<()> {
        Err(Error::NotTraced("sunda pe_regs_init leaf"))
    }
    fn pe_init<M: Mmio + ?Sized>(_: &M, _: &PeParams) -> Result<()> {
        Err(Error::NotTraced("sunda pe_init leaf"))
    }
}

/// `pooling_hw_decode_table_init` is NOT overridden: SUNDA's slot is NULL, the
/// default no-op success is the C behaviour [002 §3].
impl PoolingOps for Sunda {
    fn pooling_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, PoolingParams>) -> Result<()> {
        Err(Error::NotTraced("sunda pooling_init leaf"))
    }
}

impl SpOps for Sunda {
    fn sp_regs_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        Err(Error::NotTraced("sunda sp regs_init leaf"))
    }
    fn sp_ucode_seq_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        Err(Error::NotTraced("sunda sp ucode_seq_init leaf"))
    }
    fn sp_release_run_stall<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        Err(Error::NotTraced("sunda sp release_run_stall leaf"))
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

/// The real 3-dword swap table [004 §5]; its XT-local window is NOT TRACED.
impl Q7SwapTable for Sunda {
    fn q7_swap_table<M: Mmio + ?Sized>(mmio: &M, lo_hi: u64, b: u32) -> Result<()> {
        q7::swap_table_via_window::<Sunda, M>(mmio, lo_hi, b)
    }
    fn q7_swap_table_register_offsets() -> Result<[u64; 3]> {
        Err(Error::NotTraced(
            "sunda q7 swap-table register-offset getter",
        ))
    }
    fn q7_swap_file_io_table() -> Result<()> {
        Err(Error::NotTraced("sunda q7 swap_file_io_table"))
    }
}
