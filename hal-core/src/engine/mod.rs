//! TPB/STPB engine bring-up and the arch dispatch [002 §1..§4], [FACTS §4, §5].
//!
//! - [`StpbOps`]: an arch's engine leaves, one op per engine keyed by its
//!   [`Step`]; the two NULL-slot policies as trait shapes (mandatory =
//!   required method, optional = default no-op). [`EngineLeaves`]: the data
//!   in which the three arches' leaves differ, which gives them [`StpbOps`].
//! - the typed bring-up: the checked per-engine inits [`act_init`],
//!   [`dve_init`], [`pe_init`], [`pooling_init`], [`sp_init`], and
//!   [`stpb_init`] over [`StpbConfig`] (which shows each
//!   [`Step`] to a [`StepLog`]); the raw layer with the C's arguments:
//!   [`sp_init_raw`], [`stpb_init_raw`] over [`RawStpbConfig`].
//! - [`program_start`], [`get_axi_offset`], [`update_events_semaphores_nt`].
//! - the notification enables: [`error_notif_enable`], [`ham_notif_enable`],
//!   [`evsem_notif_hw_bp_enable`], [`dge_notif_enable`] (on a [`DgeNotif`] arch).
//! - [`AnyArch`]: run-time dispatch from a validated arch id; an [`ArchFn`]
//!   is run on the bound arch's type.
//! - [`slots`]: the full dispatch slot lists [FACTS §12.2].
//! - the §13 leaves: [`release_run_stall`], [`disable_hw_decode`] in the
//!   [`pool_window`], [`hw_decode_table_init`], the DGE carveout and
//!   mapping ([`set_dge_carveout`], [`set_dge_dma_mapping`] and their
//!   [`DgeWrite`] getters), [`topsp_doorbell`], [`tpb_regs`] (RNG seed, debug level,
//!   rspcomb, rounding writers).
//!
//! Static dispatch names the arch type: `engine::stpb_init::<Cayman, _, _>(..)`.
//! Run-time dispatch: `AnyArch::new(id)?.dispatch(op)` with an [`ArchFn`].
//!
//! `check_run_state` and `stochastic_rounding_config/_enable` are named by the
//! notes without bodies [002 §4], [FACTS §5, §13.7]: they are deliberately
//! absent (their registers' writers are in [`tpb_regs`]).

pub(crate) mod any;
pub(crate) mod arch_ops;
pub(crate) mod dge;
pub(crate) mod hw_decode;
pub(crate) mod init;
pub(crate) mod leaves;
pub(crate) mod notif;
pub(crate) mod ops;
pub(crate) mod padded;
pub(crate) mod params;
pub(crate) mod program;
pub(crate) mod run_stall;
pub mod slots;
pub(crate) mod stpb;
pub(crate) mod topsp;
pub mod tpb_regs;

pub use any::{AnyArch, ArchFn};
pub use arch_ops::{EngineLeaves, HwDecodeLeaves, Leaves};
pub use dge::{
    get_dge_carveout_register_offset_and_val, get_dge_dma_mapping_register_offset_and_val,
    set_dge_carveout, set_dge_dma_mapping, DgeWrite,
};
pub use hw_decode::{hw_decode_table_init, HwDecodeImages};
pub use init::{Step, StepLog};
pub use notif::{
    dge_notif_enable, error_notif_enable, evsem_notif_hw_bp_enable, ham_notif_enable, DgeNotif,
};
pub use ops::{EngineOps, StpbOps};
pub use params::{Checked, EngInfo, EngineParams, PeParams, PoolingParams, SpHandle, SpRegs};
pub use program::{get_axi_offset, program_start, update_events_semaphores_nt, SKIP};
pub use run_stall::{disable_hw_decode, pool_window, release_run_stall};
pub use stpb::{
    act_init, dve_init, pe_init, pooling_init, sp_init, sp_init_raw, stpb_init, stpb_init_raw,
    RawStpbConfig, SpInit, StpbConfig,
};
pub use topsp::topsp_doorbell;

/// A recording register file for the engine unit tests: every access in
/// order, reads answered from what was written (0 elsewhere).
#[cfg(test)]
pub(crate) mod test_mmio {
    use core::cell::RefCell;
    use std::collections::BTreeMap;
    use std::vec::Vec;

    use crate::{DeviceAddr, Mmio, Result};

    /// One access.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(crate) enum Op {
        Read,
        Write,
    }

    #[derive(Default)]
    pub(crate) struct Log {
        ops: RefCell<Vec<(Op, u64, u32)>>,
        regs: RefCell<BTreeMap<u64, u32>>,
    }

    impl Log {
        pub(crate) fn ops(&self) -> Vec<(Op, u64, u32)> {
            self.ops.borrow().clone()
        }
        pub(crate) fn clear(&self) {
            self.ops.borrow_mut().clear();
        }
        /// Set a register without recording an access.
        pub(crate) fn poke(&self, a: u64, v: u32) {
            self.regs.borrow_mut().insert(a, v);
        }
    }

    impl Mmio for Log {
        fn read32(&self, a: DeviceAddr) -> Result<u32> {
            let v = *self.regs.borrow().get(&a.get()).unwrap_or(&0);
            self.ops.borrow_mut().push((Op::Read, a.get(), v));
            Ok(v)
        }
        fn write32(&self, a: DeviceAddr, v: u32) -> Result<()> {
            self.regs.borrow_mut().insert(a.get(), v);
            self.ops.borrow_mut().push((Op::Write, a.get(), v));
            Ok(())
        }
    }
}
