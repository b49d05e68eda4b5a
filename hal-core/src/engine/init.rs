//! The engine-init orchestrators `pe_init`, `act_init`, `dve_init`,
//! `pooling_init` [arch-stpb §1–§3], [q7 §7], [hw-decode §4], [FACTS §13.6].
//!
//! Each logs `tpb_mem_handle` and `tpb_regs`, runs its steps in order and
//! returns the first non-zero result:
//!
//! - PE, ACT: regs_init → ucode_seq_init → hw_decode_table_init
//!   (CAYMAN/MARIANA only; SUNDA skips the call) → dma_init → release_run_stall;
//! - DVE: the same list, SUNDA included (its hw-decode leaf is a stub, 0);
//! - POOL: regs_init → ucode_seq_init → q7_ucode_eng_init(owner_idx 0) →
//!   hw_decode_table_init (CAYMAN/MARIANA; §13.10 #10: SUNDA's call list omits
//!   it) → dma_init → release_seq_run_stall → release_eng_run_stall.
//!
//! Each step is the arch's leaf (the op traits). A leaf whose program the
//! sources do not give whole answers `NotTraced` naming the step before it
//! writes anything, so an orchestrator goes exactly as far as the knowledge
//! does and stops there. A [`StepLog`] sees every step that ran and its
//! outcome: `khal trace stpb-init` and `khal demo` print it.

use super::ops::{ActOps, DveOps, PeOps, PoolingOps, StpbOps};
use super::params::{Checked, EngineParams, PeParams, PoolingParams};
use super::stpb::{sp_init_raw, RawStpbConfig, SpInit, StpbConfig};
use crate::error::{Error, Result};
use crate::ids::Engine;
use crate::Mmio;

/// One step of an engine-init orchestrator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum Step {
    /// `<eng>_regs_init`.
    RegsInit,
    /// `<eng>_ucode_seq_init`.
    UcodeSeqInit,
    /// `q7_ucode_eng_init(owner_idx 0)` (POOL).
    Q7UcodeEngInit,
    /// `<eng>_hw_decode_table_init`.
    HwDecodeTableInit,
    /// `<eng>_dma_init`.
    DmaInit,
    /// `<eng>_release_run_stall` (PE, ACT, DVE).
    ReleaseRunStall,
    /// `pooling_release_seq_run_stall`.
    ReleaseSeqRunStall,
    /// `pooling_release_eng_run_stall`.
    ReleaseEngRunStall,
}

impl Step {
    /// The C leaf's name, without the engine prefix.
    pub const fn name(self) -> &'static str {
        match self {
            Step::RegsInit => "regs_init",
            Step::UcodeSeqInit => "ucode_seq_init",
            Step::Q7UcodeEngInit => "q7_ucode_eng_init",
            Step::HwDecodeTableInit => "hw_decode_table_init",
            Step::DmaInit => "dma_init",
            Step::ReleaseRunStall => "release_run_stall",
            Step::ReleaseSeqRunStall => "release_seq_run_stall",
            Step::ReleaseEngRunStall => "release_eng_run_stall",
        }
    }
}

/// PE / ACT / DVE with the HW-decode step [FACTS §13.6].
pub const STEPS_WITH_HW_DECODE: [Step; 5] = [
    Step::RegsInit,
    Step::UcodeSeqInit,
    Step::HwDecodeTableInit,
    Step::DmaInit,
    Step::ReleaseRunStall,
];
/// PE / ACT on SUNDA: the HW-decode call skipped [FACTS §13.6].
pub const STEPS_WITHOUT_HW_DECODE: [Step; 4] = [
    Step::RegsInit,
    Step::UcodeSeqInit,
    Step::DmaInit,
    Step::ReleaseRunStall,
];
/// POOL with the HW-decode step (CAYMAN, MARIANA) [FACTS §13.6].
pub const POOL_STEPS_WITH_HW_DECODE: [Step; 7] = [
    Step::RegsInit,
    Step::UcodeSeqInit,
    Step::Q7UcodeEngInit,
    Step::HwDecodeTableInit,
    Step::DmaInit,
    Step::ReleaseSeqRunStall,
    Step::ReleaseEngRunStall,
];
/// POOL on SUNDA: the call list omits HW decode (§13.10 #10).
pub const POOL_STEPS_WITHOUT_HW_DECODE: [Step; 6] = [
    Step::RegsInit,
    Step::UcodeSeqInit,
    Step::Q7UcodeEngInit,
    Step::DmaInit,
    Step::ReleaseSeqRunStall,
    Step::ReleaseEngRunStall,
];

/// Which steps each engine's init runs on an arch.
pub trait InitSteps {
    /// `pe_init`'s steps.
    const PE_STEPS: &'static [Step];
    /// `act_init`'s steps.
    const ACT_STEPS: &'static [Step];
    /// `dve_init`'s steps.
    const DVE_STEPS: &'static [Step];
    /// `pooling_init`'s steps.
    const POOL_STEPS: &'static [Step];
}

/// Sees each step an orchestrator ran, with its outcome.
pub trait StepLog {
    /// `step` of `eng` ran and answered `outcome`.
    fn step(&mut self, eng: Engine, step: Step, outcome: Result<()>);
}

/// No log.
impl StepLog for () {
    fn step(&mut self, _: Engine, _: Step, _: Result<()>) {}
}

impl<F: FnMut(Engine, Step, Result<()>)> StepLog for F {
    fn step(&mut self, eng: Engine, step: Step, outcome: Result<()>) {
        self(eng, step, outcome)
    }
}

/// A step not in the engine's list (an arch's [`InitSteps`] is wrong).
const NOT_A_STEP: Error = Error::InvalidArgument("step not in this engine's init");

/// The engines' orchestrators: each one's [`InitSteps`] list run through the
/// leaf each step names (a step the engine has no leaf for is [`NOT_A_STEP`]).
macro_rules! orchestrators {
    ($(
        $(#[$doc:meta])*
        fn $name:ident<$ops:ident>($params:ident, $eng:expr, $steps:ident) {
            $($step:ident => $leaf:ident,)*
        }
    )*) => {$(
        $(#[$doc])*
        pub fn $name<A: $ops + InitSteps, M: Mmio + ?Sized, L: StepLog + ?Sized>(
            mmio: &M,
            p: Checked<'_, $params<'_>>,
            log: &mut L,
        ) -> Result<()> {
            debug!("{}: mem {:#x} regs {:#x}", stringify!($name), p.mem.get(), p.regs.get());
            // The steps in order; the first error stops and is returned.
            for &s in A::$steps {
                let r = match s {
                    $(Step::$step => A::$leaf(mmio, &p),)*
                    _ => Err(NOT_A_STEP),
                };
                log.step($eng, s, r);
                if let Err(e) = r {
                    error!("{}_init: {} failed: {:?}", $eng.name(), s.name(), e);
                    return Err(e);
                }
            }
            Ok(())
        }
    )*};
}

orchestrators! {
    /// `act_init`'s body: [`InitSteps::ACT_STEPS`] through the ACT leaves.
    fn act_init<ActOps>(EngineParams, Engine::Act, ACT_STEPS) {
        RegsInit => act_regs_init,
        UcodeSeqInit => act_ucode_seq_init,
        HwDecodeTableInit => act_hw_decode_table_init,
        DmaInit => act_dma_init,
        ReleaseRunStall => act_release_run_stall,
    }

    /// `dve_init`'s body: [`InitSteps::DVE_STEPS`] through the DVE leaves.
    fn dve_init<DveOps>(EngineParams, Engine::Dve, DVE_STEPS) {
        RegsInit => dve_regs_init,
        UcodeSeqInit => dve_ucode_seq_init,
        HwDecodeTableInit => dve_hw_decode_table_init,
        DmaInit => dve_dma_init,
        ReleaseRunStall => dve_release_run_stall,
    }

    /// `pe_init`'s body: [`InitSteps::PE_STEPS`] through the PE leaves.
    fn pe_init<PeOps>(PeParams, Engine::Pe, PE_STEPS) {
        RegsInit => pe_regs_init,
        UcodeSeqInit => pe_ucode_seq_init,
        HwDecodeTableInit => pe_hw_decode_table_init,
        DmaInit => pe_dma_init,
        ReleaseRunStall => pe_release_run_stall,
    }

    /// `pooling_init`'s body: [`InitSteps::POOL_STEPS`] through the Pooling leaves.
    fn pooling_init<PoolingOps>(PoolingParams, Engine::Pool, POOL_STEPS) {
        RegsInit => pooling_regs_init,
        UcodeSeqInit => pooling_ucode_seq_init,
        Q7UcodeEngInit => pooling_q7_ucode_eng_init,
        HwDecodeTableInit => pooling_hw_decode_table_init,
        DmaInit => pooling_dma_init,
        ReleaseSeqRunStall => pooling_release_seq_run_stall,
        ReleaseEngRunStall => pooling_release_eng_run_stall,
    }
}

/// `stpb_init` with every engine step logged: the shims' checks, then
/// [`pooling_init`], [`act_init`], [`dve_init`], [`pe_init`] and `sp_init`,
/// in the order of [`stpb_init`](super::stpb::stpb_init). For an arch whose `_init` ops are
/// these orchestrators (the three real arches) it does exactly what
/// `stpb_init` does, and tells which step stopped it.
pub fn stpb_init_logged<A: StpbOps + InitSteps, M: Mmio + ?Sized, L: StepLog + ?Sized>(
    mmio: &M,
    cfg: &StpbConfig<'_>,
    log: &mut L,
) -> Result<()> {
    stpb_init_logged_raw::<A, M, L>(mmio, &cfg.raw(), log).map(drop)
}

/// [`stpb_init_logged`] with the C's arguments, as [`stpb_init_raw`](super::stpb::stpb_init_raw)
/// takes them (`khal trace stpb-init`).
pub fn stpb_init_logged_raw<'m, A: StpbOps + InitSteps, M: Mmio + ?Sized, L: StepLog + ?Sized>(
    mmio: &'m M,
    cfg: &RawStpbConfig<'_>,
    log: &mut L,
) -> Result<SpInit<'m, M>> {
    pooling_init::<A, M, L>(mmio, PoolingParams::check(cfg.pooling)?, log)?;
    act_init::<A, M, L>(mmio, EngineParams::check(cfg.act)?, log)?;
    dve_init::<A, M, L>(mmio, EngineParams::check(cfg.dve)?, log)?;
    pe_init::<A, M, L>(mmio, PeParams::accept(cfg.pe), log)?;
    sp_init_raw::<A, M>(mmio, cfg.sp, cfg.notific, cfg.flag, cfg.init)
}
