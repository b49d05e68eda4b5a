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
use super::stpb::{self, SpInit, StpbConfig};
use crate::error::Result;
use crate::ids::Engine;
use crate::mmio::Mmio;

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

    /// The steps of `eng`'s init (SP: none, `sp_init` is its own body).
    fn steps(eng: Engine) -> &'static [Step] {
        match eng {
            Engine::Pe => Self::PE_STEPS,
            Engine::Act => Self::ACT_STEPS,
            Engine::Dve => Self::DVE_STEPS,
            Engine::Pool => Self::POOL_STEPS,
            Engine::Sp => &[],
        }
    }
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

/// Run `steps` of `eng` in order through `leaf`; the first error stops and is
/// returned.
fn run<L: StepLog + ?Sized>(
    eng: Engine,
    steps: &[Step],
    log: &mut L,
    mut leaf: impl FnMut(Step) -> Result<()>,
) -> Result<()> {
    for &s in steps {
        let r = leaf(s);
        log.step(eng, s, r);
        if let Err(e) = r {
            error!("{}_init: {} failed: {:?}", eng.name(), s.name(), e);
            return Err(e);
        }
    }
    Ok(())
}

/// A step not in the engine's list (an arch's [`InitSteps`] is wrong).
fn not_a_step(_: Step) -> Result<()> {
    Err(crate::Error::InvalidArgument(
        "step not in this engine's init",
    ))
}

/// `act_init`'s body: [`InitSteps::ACT_STEPS`] through the ACT leaves.
pub fn act_init<A: ActOps + InitSteps, M: Mmio + ?Sized, L: StepLog + ?Sized>(
    mmio: &M,
    p: Checked<'_, EngineParams<'_>>,
    log: &mut L,
) -> Result<()> {
    debug!("act_init: mem {:#x} regs {:#x}", p.mem.get(), p.regs.get());
    run(Engine::Act, A::ACT_STEPS, log, |s| match s {
        Step::RegsInit => A::act_regs_init(mmio, &p),
        Step::UcodeSeqInit => A::act_ucode_seq_init(mmio, &p),
        Step::HwDecodeTableInit => A::act_hw_decode_table_init(mmio, &p),
        Step::DmaInit => A::act_dma_init(mmio, &p),
        Step::ReleaseRunStall => A::act_release_run_stall(mmio, &p),
        other => not_a_step(other),
    })
}

/// `dve_init`'s body: [`InitSteps::DVE_STEPS`] through the DVE leaves.
pub fn dve_init<A: DveOps + InitSteps, M: Mmio + ?Sized, L: StepLog + ?Sized>(
    mmio: &M,
    p: Checked<'_, EngineParams<'_>>,
    log: &mut L,
) -> Result<()> {
    debug!("dve_init: mem {:#x} regs {:#x}", p.mem.get(), p.regs.get());
    run(Engine::Dve, A::DVE_STEPS, log, |s| match s {
        Step::RegsInit => A::dve_regs_init(mmio, &p),
        Step::UcodeSeqInit => A::dve_ucode_seq_init(mmio, &p),
        Step::HwDecodeTableInit => A::dve_hw_decode_table_init(mmio, &p),
        Step::DmaInit => A::dve_dma_init(mmio, &p),
        Step::ReleaseRunStall => A::dve_release_run_stall(mmio, &p),
        other => not_a_step(other),
    })
}

/// `pe_init`'s body: [`InitSteps::PE_STEPS`] through the PE leaves.
pub fn pe_init<A: PeOps + InitSteps, M: Mmio + ?Sized, L: StepLog + ?Sized>(
    mmio: &M,
    p: Checked<'_, PeParams<'_>>,
    log: &mut L,
) -> Result<()> {
    debug!("pe_init: mem {:#x} regs {:#x}", p.mem.get(), p.regs.get());
    run(Engine::Pe, A::PE_STEPS, log, |s| match s {
        Step::RegsInit => A::pe_regs_init(mmio, &p),
        Step::UcodeSeqInit => A::pe_ucode_seq_init(mmio, &p),
        Step::HwDecodeTableInit => A::pe_hw_decode_table_init(mmio, &p),
        Step::DmaInit => A::pe_dma_init(mmio, &p),
        Step::ReleaseRunStall => A::pe_release_run_stall(mmio, &p),
        other => not_a_step(other),
    })
}

/// `pooling_init`'s body: [`InitSteps::POOL_STEPS`] through the Pooling leaves.
pub fn pooling_init<A: PoolingOps + InitSteps, M: Mmio + ?Sized, L: StepLog + ?Sized>(
    mmio: &M,
    p: Checked<'_, PoolingParams<'_>>,
    log: &mut L,
) -> Result<()> {
    debug!(
        "pooling_init: mem {:#x} regs {:#x}",
        p.mem.get(),
        p.regs.get()
    );
    run(Engine::Pool, A::POOL_STEPS, log, |s| match s {
        Step::RegsInit => A::pooling_regs_init(mmio, &p),
        Step::UcodeSeqInit => A::pooling_ucode_seq_init(mmio, &p),
        Step::Q7UcodeEngInit => A::pooling_q7_ucode_eng_init(mmio, &p),
        Step::HwDecodeTableInit => A::pooling_hw_decode_table_init(mmio, &p),
        Step::DmaInit => A::pooling_dma_init(mmio, &p),
        Step::ReleaseSeqRunStall => A::pooling_release_seq_run_stall(mmio, &p),
        Step::ReleaseEngRunStall => A::pooling_release_eng_run_stall(mmio, &p),
        other => not_a_step(other),
    })
}

/// `stpb_init` with every engine step logged: the shims' checks, then
/// [`pooling_init`], [`act_init`], [`dve_init`], [`pe_init`] and `sp_init`,
/// in the order of [`stpb::stpb_init`]. For an arch whose `_init` ops are
/// these orchestrators (the three real arches) it does exactly what
/// `stpb_init` does, and tells which step stopped it.
pub fn stpb_init_logged<'m, A: StpbOps + InitSteps, M: Mmio + ?Sized, L: StepLog + ?Sized>(
    mmio: &'m M,
    cfg: &StpbConfig<'_>,
    log: &mut L,
) -> Result<SpInit<'m, M>> {
    pooling_init::<A, M, L>(mmio, PoolingParams::check(cfg.pooling)?, log)?;
    act_init::<A, M, L>(mmio, EngineParams::check(cfg.act)?, log)?;
    dve_init::<A, M, L>(mmio, EngineParams::check(cfg.dve)?, log)?;
    pe_init::<A, M, L>(mmio, PeParams::accept(cfg.pe), log)?;
    stpb::sp_init::<A, M>(mmio, cfg.sp, cfg.notific, cfg.flag, cfg.init)
}
