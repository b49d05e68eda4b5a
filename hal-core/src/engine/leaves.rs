//! The engine-init leaves shared by the arches: the traced ones composed from
//! the §13 programs, and the named `NotTraced` answers of the ones the sources
//! do not give whole [FACTS §13.6, §13.11].
//!
//! The arches' op impls (`arch_ops`) pick from here; every `NotTraced`
//! is raised before any access.

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::family::{HwDecode, NxLocal, Q7Params};
use crate::ids::Engine;
use crate::q7::{self, Q7Ucode};
use crate::Mmio;

use super::hw_decode::hw_decode_table_init;
use super::params::EngInfo;

/// `ucode_seq_init` on every arch: get_seq_params, size checks, IRAM then
/// DRAM padded writes; the capacities, destinations and `init_nx_registers`
/// are NOT TRACED [FACTS §13.6, §13.11].
pub const UCODE_SEQ_INIT: Error =
    Error::NotTraced("ucode_seq_init: capacities, destinations, init_nx_registers");
/// `dma_init` on every arch: the rx/tx triple → register map is NOT TRACED.
pub const DMA_INIT: Error = Error::NotTraced("dma_init: the rx/tx triple -> register map");
/// PE/ACT/DVE `release_run_stall`: "release one stall"; the offsets (the same
/// NX writer as POOL's) are only MED: NOT TRACED (§13.11).
pub const RELEASE_RUN_STALL: Error =
    Error::NotTraced("pe/act/dve release_run_stall offset (only MED)");
/// `pe_regs_init`: RMW `+0xA00` (NQ pack); its masks and everything else
/// NOT TRACED.
pub const PE_REGS_INIT: Error = Error::NotTraced("pe regs_init: +0xA00 masks and the rest");
/// `act_regs_init`: the `+0x240..+0x25C` constants are given, the `+0xA04`
/// masks, two of its sources and the ACT level-set body are NOT TRACED.
pub const ACT_REGS_INIT: Error =
    Error::NotTraced("act regs_init: +0xA04 masks and sources, ACT level set");

/// The HW-decode step of an engine's init: `hw_decode_table_init` with the
/// images and flag of its `eng_info` [hw-decode §4]. The arch's params first
/// (SUNDA `Unsupported`, MARIANA `NotTraced`), then absent images →
/// `InvalidArgument` (khal's own check).
pub fn hw_decode_step<A: HwDecode + NxLocal, M: Mmio + ?Sized>(
    mmio: &M,
    mem: DeviceAddr,
    eng: Engine,
    info: &EngInfo<'_>,
) -> Result<()> {
    A::hw_decode_table_params(eng)?;
    let images = info
        .hw_decode
        .ok_or(Error::InvalidArgument("eng_info hw_decode images absent"))?;
    hw_decode_table_init::<A, M>(mmio, mem, eng, images, info.disable_hw_decode)
}

/// The Q7 step of `pooling_init`: `q7_ucode_eng_init(tpb, mem, imgs, 0)`
/// [q7 §7]; absent images → `InvalidArgument` (khal's own check).
pub fn q7_step<A: Q7Params, M: Mmio + ?Sized>(
    mmio: &M,
    mem: DeviceAddr,
    ucode: Option<Q7Ucode<'_>>,
) -> Result<()> {
    let ucode = ucode.ok_or(Error::InvalidArgument("pooling q7 ucode images absent"))?;
    q7::q7_ucode_eng_init::<A, M>(mmio, mem, ucode, 0)
}
