//! The per-engine notification block and the NQ rings [004 §2, §3].
//!
//! - `regs`: the NOTIFIC register block (both flavours) [FACTS §6]; its
//!   description [`NOTIFIC`] (what a trace or a decoder names accesses with) and
//!   the block's mapped size [`NOTIFIC_BLOCK_BYTES`] are public.
//! - `block`: [`NotificBlocks`], a device's blocks, each lent out once as a [`NotificBlock`].
//! - `engine`: [`NotificEngine`], init on a lent
//!   block from a typed [`EngineConfig`] and the per-engine config ops, with shadows
//!   [004 §2]; the [`NqQueue`] tokens it hands out, one per NQ.
//! - `entry`: [`NqEntry`], the 16-byte notification [004 §3].
//! - `ring`: [`NqRing`], the NQ lifecycle on its own queue token: configure, queue config,
//!   enable, reset, available count [004 §3]; how it consumes is its kind, [`Phase`] or
//!   [`Tail`].
//! - `refused`: [`RefusedRing`], a refused ring constructor's error with its memory and
//!   queue token given back.
//! - `drain`: the one take behind every drain (into a buffer, through an iterator
//!   ([`Drain`]), async): one head write per non-empty drain [004 §3].
//! - `stats`: [`get_timestamp`], [`nq_stats_get`] and [`InitParamsCookie`], the block's timestamp and stats reads and the init-params cookie bound
//!   [004r1 §1–§3].

pub(crate) mod block;
pub(crate) mod drain;
pub(crate) mod engine;
pub(crate) mod entry;
pub(crate) mod refused;
pub(crate) mod regs;
pub(crate) mod ring;
pub(crate) mod stats;

pub use block::{NotificBlock, NotificBlocks};
pub use drain::Drain;
pub use engine::{BpMode, EngineConfig, Flavour, NotificEngine, NqQueue, UartMode};
pub use entry::{NqEntry, NQ_ENTRY_BYTES};
pub use refused::RefusedRing;
pub use regs::{NOTIFIC, NOTIFIC_BLOCK_BYTES};
pub use ring::{ConsumeKind, ConsumeMode, DeviceZero, NqConfig, NqRing, Phase, Tail};
pub use stats::{get_timestamp, nq_stats_get, InitParamsCookie};
