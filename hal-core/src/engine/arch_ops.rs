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
//! (`arch-*/src/ops.rs`, each with its citation) and gets the five op traits
//! from the impls below. They are generic over the arch, so each arch's ops are
//! monomorphised as its own impls were, the [`HwDecodeLeaves`] choice folded
//! at compile time.
//!
//! A test arch that needs other bodies implements the op traits itself and
//! not [`EngineLeaves`].

use super::init::{self, InitSteps};
use super::leaves::{self, hw_decode_step, q7_step};
use super::ops::{ActOps, DveOps, PeOps, PoolingOps, SpOps};
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
    /// Every slot runs [`hw_decode_step`] for its engine (CAYMAN, MARIANA).
    Program,
}

/// The data in which the arches' engine leaves differ. Implementing it gives
/// the arch [`DveOps`], [`ActOps`], [`PeOps`], [`PoolingOps`] and [`SpOps`];
/// every constant is required, so an arch cannot leave a mandatory (DVE) op
/// out [002 §3].
pub trait EngineLeaves: InitSteps + HwDecode + NxLocal + Q7Params {
    /// `dve_regs_init`'s answer: its body is not given on any arch.
    const DVE_REGS_INIT: Error;
    /// `pooling_regs_init`'s answer: its body is not given whole on any arch.
    const POOLING_REGS_INIT: Error;
    /// What the four HW-decode slots do.
    const HW_DECODE: HwDecodeLeaves;
    /// `sp_regs_init`'s answer (its body is not given [FACTS §13.4, §13.11]).
    const SP_REGS_INIT: Error;
    /// `sp_ucode_seq_init`'s answer.
    const SP_UCODE_SEQ_INIT: Error;
    /// `sp_release_run_stall`'s answer.
    const SP_RELEASE_RUN_STALL: Error;
    /// `sp_dma_init`'s answer.
    const SP_DMA_INIT: Error;
}

/// The HW-decode slot of engine `eng` on arch `A`.
fn hw_decode<A: EngineLeaves, M: Mmio + ?Sized>(
    mmio: &M,
    mem: DeviceAddr,
    eng: Engine,
    info: &EngInfo<'_>,
) -> Result<()> {
    match A::HW_DECODE {
        HwDecodeLeaves::NoOp => Ok(()),
        HwDecodeLeaves::Program => hw_decode_step::<A, M>(mmio, mem, eng, info),
    }
}

/// The op trait methods of an impl, each as `fn slot(mmio, p: Params) =
/// body;`: the two argument patterns, the params type, the body.
macro_rules! leaf_bodies {
    ($(fn $name:ident($mmio:tt, $p:tt: $ty:ty) = $body:expr;)*) => {
        $(
            fn $name<M: Mmio + ?Sized>($mmio: &M, $p: $ty) -> Result<()> {
                $body
            }
        )*
    };
}

impl<A: EngineLeaves> DveOps for A {
    leaf_bodies! {
        fn dve_regs_init(_, _: &EngineParams<'_>) = Err(A::DVE_REGS_INIT);
        fn dve_ucode_seq_init(_, _: &EngineParams<'_>) = Err(leaves::UCODE_SEQ_INIT);
        fn dve_release_run_stall(_, _: &EngineParams<'_>) = Err(leaves::RELEASE_RUN_STALL);
        fn dve_dma_init(_, _: &EngineParams<'_>) = Err(leaves::DMA_INIT);
        fn dve_hw_decode_table_init(mmio, p: &EngineParams<'_>)
            = hw_decode::<A, M>(mmio, p.mem, Engine::Dve, &p.info);
        fn dve_init(mmio, p: Checked<'_, EngineParams<'_>>)
            = init::dve_init::<A, M, ()>(mmio, p, &mut ());
    }
}

impl<A: EngineLeaves> ActOps for A {
    leaf_bodies! {
        fn act_regs_init(_, _: &EngineParams<'_>) = Err(leaves::ACT_REGS_INIT);
        fn act_ucode_seq_init(_, _: &EngineParams<'_>) = Err(leaves::UCODE_SEQ_INIT);
        fn act_release_run_stall(_, _: &EngineParams<'_>) = Err(leaves::RELEASE_RUN_STALL);
        fn act_dma_init(_, _: &EngineParams<'_>) = Err(leaves::DMA_INIT);
        fn act_hw_decode_table_init(mmio, p: &EngineParams<'_>)
            = hw_decode::<A, M>(mmio, p.mem, Engine::Act, &p.info);
        fn act_init(mmio, p: Checked<'_, EngineParams<'_>>)
            = init::act_init::<A, M, ()>(mmio, p, &mut ());
    }
}

impl<A: EngineLeaves> PeOps for A {
    leaf_bodies! {
        fn pe_regs_init(_, _: &PeParams<'_>) = Err(leaves::PE_REGS_INIT);
        fn pe_ucode_seq_init(_, _: &PeParams<'_>) = Err(leaves::UCODE_SEQ_INIT);
        fn pe_release_run_stall(_, _: &PeParams<'_>) = Err(leaves::RELEASE_RUN_STALL);
        fn pe_dma_init(_, _: &PeParams<'_>) = Err(leaves::DMA_INIT);
        fn pe_hw_decode_table_init(mmio, p: &PeParams<'_>)
            = hw_decode::<A, M>(mmio, p.mem, Engine::Pe, &p.info);
        fn pe_init(mmio, p: &PeParams<'_>)
            = init::pe_init::<A, M, ()>(mmio, PeParams::accept(p), &mut ());
    }
}

/// POOL's run-stall releases and Q7 ucode load are the §13 programs on every
/// arch [FACTS §13.4], [q7 §7].
impl<A: EngineLeaves> PoolingOps for A {
    leaf_bodies! {
        fn pooling_regs_init(_, _: &PoolingParams<'_>) = Err(A::POOLING_REGS_INIT);
        fn pooling_ucode_seq_init(_, _: &PoolingParams<'_>) = Err(leaves::UCODE_SEQ_INIT);
        fn pooling_release_seq_run_stall(mmio, p: &PoolingParams<'_>)
            = run_stall::release_seq_run_stall::<A, M>(mmio, p.mem);
        fn pooling_release_eng_run_stall(mmio, p: &PoolingParams<'_>)
            = run_stall::release_eng_run_stall::<A, M>(mmio, p.mem);
        fn pooling_dma_init(_, _: &PoolingParams<'_>) = Err(leaves::DMA_INIT);
        fn pooling_hw_decode_table_init(mmio, p: &PoolingParams<'_>)
            = hw_decode::<A, M>(mmio, p.mem, Engine::Pool, &p.info);
        fn pooling_q7_ucode_eng_init(mmio, p: &PoolingParams<'_>)
            = q7_step::<A, M>(mmio, p.mem, p.q7);
        fn pooling_init(mmio, p: Checked<'_, PoolingParams<'_>>)
            = init::pooling_init::<A, M, ()>(mmio, p, &mut ());
    }
}

impl<A: EngineLeaves> SpOps for A {
    leaf_bodies! {
        fn sp_regs_init(_, _: Checked<'_, SpHandle>) = Err(A::SP_REGS_INIT);
        fn sp_ucode_seq_init(_, _: Checked<'_, SpHandle>) = Err(A::SP_UCODE_SEQ_INIT);
        fn sp_release_run_stall(_, _: Checked<'_, SpHandle>) = Err(A::SP_RELEASE_RUN_STALL);
        fn sp_dma_init(_, _: Checked<'_, SpHandle>) = Err(A::SP_DMA_INIT);
    }
}
