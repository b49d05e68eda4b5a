//! MARIANA's engine op table [002 §1, §3] and its INTC op table [004 §4].
//!
//! Engine ops: the MARIANA registrar (`kaena_khal_register_funcs_v4`)
//! installs a leaf in every engine slot; the leaves' register programs are not
//! in the notes, so each override answers `NotTraced` before touching the
//! device.
//!
//! INTC: MARIANA is the one arch whose INTC leaves were decoded; every op is
//! the generic MSI-X program of `khal_core::intc` with MARIANA's mailbox map.

use khal_core::engine::{
    ActOps, Checked, DveOps, EngineParams, PeOps, PeParams, PoolingOps, PoolingParams, SpHandle,
    SpOps,
};
use khal_core::intc::{set_notific_queue_base_via_map, ErrtrigLine, IntcOps, MsixIntc};
use khal_core::notific::NotificEngine;
use khal_core::{DeviceAddr, Error, Mmio, Result};

use crate::Mariana;

impl DveOps for Mariana {
    fn dve_regs_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams) -> Result<()> {
        Err(Error::NotTraced("mariana dve_regs_init leaf"))
    }
    fn dve_ucode_seq_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams) -> Result<()> {
        Err(Error::NotTraced("mariana dve_ucode_seq_init leaf"))
    }
    fn dve_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, EngineParams>) -> Result<()> {
        Err(Error::NotTraced("mariana dve_init leaf"))
    }
}

impl ActOps for Mariana {
    fn act_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, EngineParams>) -> Result<()> {
        Err(Error::NotTraced("mariana act_init leaf"))
    }
}

impl PeOps for Mariana {
    fn pe_regs_init<M: Mmio + ?Sized>(_: &M, _: &PeParams) -> Result<()> {
        Err(Error::NotTraced("mariana pe_regs_init leaf"))
    }
    fn pe_init<M: Mmio + ?Sized>(_: &M, _: &PeParams) -> Result<()> {
        Err(Error::NotTraced("mariana pe_init leaf"))
    }
}

impl PoolingOps for Mariana {
    fn pooling_hw_decode_table_init<M: Mmio + ?Sized>(_: &M, _: &PoolingParams) -> Result<()> {
        Err(Error::NotTraced(
            "mariana pooling_hw_decode_table_init leaf",
        ))
    }
    fn pooling_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, PoolingParams>) -> Result<()> {
        Err(Error::NotTraced("mariana pooling_init leaf"))
    }
}

impl SpOps for Mariana {
    fn sp_regs_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        Err(Error::NotTraced("mariana sp regs_init leaf"))
    }
    fn sp_ucode_seq_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        Err(Error::NotTraced("mariana sp ucode_seq_init leaf"))
    }
    fn sp_release_run_stall<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        Err(Error::NotTraced("mariana sp release_run_stall leaf"))
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
    fn set_notific_queue_base<M: Mmio>(
        _h: &MsixIntc,
        ens: &NotificEngine<M>,
        nq: u32,
        block: u32,
        queue: u32,
    ) -> Result<DeviceAddr> {
        set_notific_queue_base_via_map::<Mariana, M>(ens, nq, block, queue)
    }
}
