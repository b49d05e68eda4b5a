//! The engine op tables of the arches, written once: every op trait of
//! [`super::ops`] implemented over [`EngineLeaves`], the data in which the
//! arches' leaves differ [002 §1, §3], [FACTS §13.4–§13.6, §13.11].
//!
//! The three arches run the same §13 programs and give the same named
//! `NotTraced` answers ([`super::leaves`]) in the same slots; what differs is
//! data: the answers that name an arch's own missing piece (DVE and POOL
//! `regs_init`, the SP leaves) and whether the HW-decode slots run the
//! HW-decode program or are the no-op of an arch without that silicon. An arch
//! crate states those as the constants of its `impl EngineLeaves`
//! (`arch-*/src/ops.rs`, each with its citation) and gets [`StpbOps`] from
//! the impl below. It is generic over the arch, so each arch's ops are
//! monomorphised as its own impls were, the [`HwDecodeLeaves`] choice folded
//! at compile time.
//!
//! A test arch that needs other bodies implements [`StpbOps`] itself and not
//! [`EngineLeaves`].

use super::init::{Step, NOT_A_STEP};
use super::leaves::{self, hw_decode_step, q7_step};
use super::ops::StpbOps;
use super::params::{Checked, EngInfo, EngineParams, PeParams, PoolingParams, SpHandle};
use super::run_stall;
use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::family::{HwDecode, NxLocal, Q7Params};
use crate::ids::Engine;
use crate::Mmio;

/// What the HW-decode slots (`pe_`/`act_`/`dve_`/`pooling_hw_decode_table_init`)
/// do on an arch [FACTS §3.3, §13.6].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HwDecodeLeaves {
    /// No HW-decode silicon: every slot succeeds without an access (SUNDA:
    /// DVE's leaf is a stub returning 0, PE/ACT keep the optional slot's
    /// default, POOL's slot is NULL [002 §3]).
    NoOp,
    /// Every slot runs the HW-decode step (the engine's
    /// [`hw_decode_table_init`](super::hw_decode_table_init) with its `eng_info`
    /// images) (CAYMAN, MARIANA).
    Program,
}

/// The data in which the arches' engine leaves differ, one table per arch
/// (`arch-*/src/ops.rs`); every field is required, so an arch cannot leave a
/// mandatory (DVE) op out [002 §3].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Leaves {
    /// `dve_regs_init`'s answer: its body is not given on any arch.
    pub dve_regs_init: Error,
    /// `pooling_regs_init`'s answer: its body is not given whole on any arch.
    pub pooling_regs_init: Error,
    /// What the four HW-decode slots do, and so which steps the inits run
    /// ([`StpbOps::HW_DECODE`]).
    pub hw_decode: HwDecodeLeaves,
    /// `sp_regs_init`'s answer (its body is not given [FACTS §13.4, §13.11]).
    pub sp_regs_init: Error,
    /// `sp_ucode_seq_init`'s answer.
    pub sp_ucode_seq_init: Error,
    /// `sp_release_run_stall`'s answer.
    pub sp_release_run_stall: Error,
    /// `sp_dma_init`'s answer.
    pub sp_dma_init: Error,
}

/// An arch's [`Leaves`]. Implementing it gives the arch [`StpbOps`].
pub trait EngineLeaves: HwDecode + NxLocal + Q7Params {
    /// The arch's leaf answers [FACTS §13.4–§13.6, §13.11].
    const LEAVES: Leaves;
}

/// The HW-decode slot of engine `eng` on arch `A`.
fn hw_decode<A: EngineLeaves, M: Mmio + ?Sized>(
    mmio: &M,
    mem: DeviceAddr,
    eng: Engine,
    info: &EngInfo<'_>,
) -> Result<()> {
    match A::LEAVES.hw_decode {
        HwDecodeLeaves::NoOp => Ok(()),
        HwDecodeLeaves::Program => hw_decode_step::<A, M>(mmio, mem, eng, info),
    }
}

/// The leaves every engine shares: the untraced `ucode_seq_init` and
/// `dma_init`, PE/ACT/DVE's `release_run_stall`, the HW-decode slot; any
/// other step is not the engine's.
fn common<A: EngineLeaves, M: Mmio + ?Sized>(
    mmio: &M,
    step: Step,
    mem: DeviceAddr,
    eng: Engine,
    info: &EngInfo<'_>,
) -> Result<()> {
    match step {
        Step::UcodeSeqInit => Err(leaves::UCODE_SEQ_INIT),
        Step::DmaInit => Err(leaves::DMA_INIT),
        Step::ReleaseRunStall if eng != Engine::Pool => Err(leaves::RELEASE_RUN_STALL),
        Step::HwDecodeTableInit => hw_decode::<A, M>(mmio, mem, eng, info),
        _ => Err(NOT_A_STEP),
    }
}

/// POOL's run-stall releases and Q7 ucode load are the §13 programs on every
/// arch [FACTS §13.4], [q7 §7].
impl<A: EngineLeaves> StpbOps for A {
    const HW_DECODE: HwDecodeLeaves = A::LEAVES.hw_decode;

    fn dve_step<M: Mmio + ?Sized>(mmio: &M, step: Step, p: &EngineParams<'_>) -> Result<()> {
        match step {
            Step::RegsInit => Err(A::LEAVES.dve_regs_init),
            _ => common::<A, M>(mmio, step, p.mem, Engine::Dve, &p.info),
        }
    }

    fn act_step<M: Mmio + ?Sized>(mmio: &M, step: Step, p: &EngineParams<'_>) -> Result<()> {
        match step {
            Step::RegsInit => Err(leaves::ACT_REGS_INIT),
            _ => common::<A, M>(mmio, step, p.mem, Engine::Act, &p.info),
        }
    }

    fn pe_step<M: Mmio + ?Sized>(mmio: &M, step: Step, p: &PeParams<'_>) -> Result<()> {
        match step {
            Step::RegsInit => Err(leaves::PE_REGS_INIT),
            _ => common::<A, M>(mmio, step, p.mem, Engine::Pe, &p.info),
        }
    }

    fn pooling_step<M: Mmio + ?Sized>(mmio: &M, step: Step, p: &PoolingParams<'_>) -> Result<()> {
        match step {
            Step::RegsInit => Err(A::LEAVES.pooling_regs_init),
            Step::ReleaseSeqRunStall => run_stall::release_seq_run_stall::<A, M>(mmio, p.mem),
            Step::ReleaseEngRunStall => run_stall::release_eng_run_stall::<A, M>(mmio, p.mem),
            Step::Q7UcodeEngInit => q7_step::<A, M>(mmio, p.mem, p.q7),
            _ => common::<A, M>(mmio, step, p.mem, Engine::Pool, &p.info),
        }
    }

    fn sp_step<M: Mmio + ?Sized>(_: &M, step: Step, _: Checked<'_, SpHandle>) -> Result<()> {
        Err(match step {
            Step::RegsInit => A::LEAVES.sp_regs_init,
            Step::UcodeSeqInit => A::LEAVES.sp_ucode_seq_init,
            Step::ReleaseRunStall => A::LEAVES.sp_release_run_stall,
            Step::DmaInit => A::LEAVES.sp_dma_init,
            _ => NOT_A_STEP,
        })
    }
}
