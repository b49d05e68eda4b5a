//! TPB/STPB engine bring-up and the arch dispatch [002 §1..§4], [FACTS §4, §5].
//!
//! - [`ops`]: the per-arch op traits; the two NULL-slot policies as trait
//!   shapes (mandatory = required method, optional = default no-op).
//! - [`params`]: the per-engine init parameter types and their checks.
//! - [`stpb`]: the checked `_init` shims, `stpb_init`, `sp_init`, `topsp_init`.
//! - [`program`]: `program_start`, `get_axi_offset`, the
//!   `EVENTS_SEMAPHORES_NT` update.
//! - [`notif`]: the error / ham / evsem-hw-bp / DGE notification enables.
//! - [`any`]: [`AnyArch`], run-time dispatch from a validated arch id.
//!
//! Static dispatch names the arch type: `stpb::stpb_init::<Cayman, _>(..)`.
//! Run-time dispatch: `AnyArch::new(id)?.stpb_init(..)`.
//!
//! `check_run_state` and `stochastic_rounding_config/_enable` are named by the
//! notes without bodies [002 §4], [FACTS §5]: they are deliberately absent.

pub mod any;
pub mod notif;
pub mod ops;
pub mod params;
pub mod program;
pub mod stpb;

pub use any::AnyArch;
pub use notif::DgeNotif;
pub use ops::{ActOps, DveOps, EngineOps, PeOps, PoolingOps, SpOps, StpbOps};
pub use params::{Checked, EngineParams, PeParams, PoolingParams, SpHandle, MAX_INST_DEBUG_LEVEL};
pub use program::{get_axi_offset, program_start, PROGRAM_START_ORDER, SKIP};
pub use stpb::{sp_init, stpb_init, topsp_init, SpInit, StpbConfig};
