//! TPB/STPB engine bring-up and the arch dispatch [002 §1..§4], [FACTS §4, §5].
//!
//! - `ops`: the per-arch op traits; the two NULL-slot policies as trait
//!   shapes (mandatory = required method, optional = default no-op).
//! - `arch_ops`: those traits implemented once for every arch over
//!   [`EngineLeaves`], the data in which the arches' leaves differ.
//! - `params`: the per-engine init parameter types and their checks.
//! - `stpb`: the checked `_init` shims, `stpb_init`, `sp_init`, `topsp_init`,
//!   typed, and their raw layer with the C's arguments (`*_raw`).
//! - `program`: `program_start`, `get_axi_offset`, the
//!   `EVENTS_SEMAPHORES_NT` update.
//! - [`notif`]: the error / ham / evsem-hw-bp / DGE notification enables.
//! - `any`: [`AnyArch`], run-time dispatch from a validated arch id.
//!
//! - [`init`]: the engine-init orchestrators and their steps [FACTS §13.6].
//! - [`slots`]: the full dispatch slot lists [FACTS §12.2].
//! - the §13 leaves: [`run_stall`] (run-stall releases, `disable_hw_decode`),
//!   [`hw_decode`] (HW-decode table init), [`dge`] (DGE carveout / mapping),
//!   [`topsp`] (the TopSP doorbells), [`tpb_regs`] (RNG seed, debug level,
//!   rspcomb, rounding writers), [`padded`] (the padded image writer),
//!   [`leaves`] (what the arches share).
//!
//! Static dispatch names the arch type: `engine::stpb_init::<Cayman, _>(..)`.
//! Run-time dispatch: `AnyArch::new(id)?.stpb_init(..)`.
//!
//! `check_run_state` and `stochastic_rounding_config/_enable` are named by the
//! notes without bodies [002 §4], [FACTS §5, §13.7]: they are deliberately
//! absent (their registers' writers are in [`tpb_regs`]).

pub(crate) mod any;
pub(crate) mod arch_ops;
pub mod dge;
pub mod hw_decode;
pub mod init;
pub mod leaves;
pub mod notif;
pub(crate) mod ops;
pub mod padded;
pub(crate) mod params;
pub(crate) mod program;
pub mod run_stall;
pub mod slots;
pub(crate) mod stpb;
pub mod topsp;
pub mod tpb_regs;

pub use any::AnyArch;
pub use arch_ops::{EngineLeaves, HwDecodeLeaves};
pub use ops::{ActOps, DveOps, EngineOps, PeOps, PoolingOps, SpOps, StpbOps};
pub use params::{
    Checked, EngInfo, EngineParams, PeParams, PoolingParams, SpHandle, SpRegs, MAX_INST_DEBUG_LEVEL,
};
pub use program::{
    get_axi_offset, program_start, program_start_with, update_events_semaphores_nt, StartLayout,
    PROGRAM_START_ORDER, SKIP,
};
pub use stpb::{
    act_init, dve_init, pe_init, pooling_init, sp_init, sp_init_raw, stpb_init, stpb_init_raw,
    topsp_init, topsp_init_raw, RawStpbConfig, SpInit, StpbConfig, SP_NOTIFIC_QUEUES,
    SP_NOTIFIC_UART_MODE,
};
