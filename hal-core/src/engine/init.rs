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
//! Each step is the arch's leaf ([`StpbOps`]). A leaf whose program the
//! sources do not give whole answers `NotTraced` naming the step before it
//! writes anything, so an orchestrator goes exactly as far as the knowledge
//! does and stops there. A [`StepLog`] sees every step that ran and its
//! outcome: `khal trace stpb-init` and `khal demo` print it.

use super::arch_ops::HwDecodeLeaves;
use super::ops::StpbOps;
use super::params::{Checked, EngineParams, PeParams, PoolingParams};
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
const STEPS_WITH_HW_DECODE: [Step; 5] = [
    Step::RegsInit,
    Step::UcodeSeqInit,
    Step::HwDecodeTableInit,
    Step::DmaInit,
    Step::ReleaseRunStall,
];
/// PE / ACT on SUNDA: the HW-decode call skipped [FACTS §13.6].
const STEPS_WITHOUT_HW_DECODE: [Step; 4] = [
    Step::RegsInit,
    Step::UcodeSeqInit,
    Step::DmaInit,
    Step::ReleaseRunStall,
];
/// POOL with the HW-decode step (CAYMAN, MARIANA) [FACTS §13.6].
const POOL_STEPS_WITH_HW_DECODE: [Step; 7] = [
    Step::RegsInit,
    Step::UcodeSeqInit,
    Step::Q7UcodeEngInit,
    Step::HwDecodeTableInit,
    Step::DmaInit,
    Step::ReleaseSeqRunStall,
    Step::ReleaseEngRunStall,
];
/// POOL on SUNDA: the call list omits HW decode (§13.10 #10).
const POOL_STEPS_WITHOUT_HW_DECODE: [Step; 6] = [
    Step::RegsInit,
    Step::UcodeSeqInit,
    Step::Q7UcodeEngInit,
    Step::DmaInit,
    Step::ReleaseSeqRunStall,
    Step::ReleaseEngRunStall,
];

/// The steps `eng`'s init runs on an arch whose HW-decode slots do `hw`:
/// DVE's list has the HW-decode step on every arch (SUNDA's leaf is a stub),
/// the others only with the HW-decode program [FACTS §13.6].
pub(crate) const fn init_steps(eng: Engine, hw: HwDecodeLeaves) -> &'static [Step] {
    match (eng, hw) {
        (Engine::Pool, HwDecodeLeaves::Program) => &POOL_STEPS_WITH_HW_DECODE,
        (Engine::Pool, HwDecodeLeaves::NoOp) => &POOL_STEPS_WITHOUT_HW_DECODE,
        (Engine::Dve, _) | (_, HwDecodeLeaves::Program) => &STEPS_WITH_HW_DECODE,
        (_, HwDecodeLeaves::NoOp) => &STEPS_WITHOUT_HW_DECODE,
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

/// A step not in the engine's list: the leaf a step names does not exist
/// for that engine.
pub(crate) const NOT_A_STEP: Error = Error::InvalidArgument("step not in this engine's init");

/// An orchestrator's body: `steps` in order through `leaf`, each logged; the
/// first error stops and is returned.
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

/// The engines' orchestrators: each one's step list run through its leaf.
macro_rules! orchestrators {
    ($(
        $(#[$doc:meta])*
        fn $name:ident($params:ident, $eng:expr, $leaf:ident);
    )*) => {$(
        $(#[$doc])*
        pub(crate) fn $name<A: StpbOps, M: Mmio + ?Sized, L: StepLog + ?Sized>(
            mmio: &M,
            p: Checked<'_, $params<'_>>,
            log: &mut L,
        ) -> Result<()> {
            debug!("{}: mem {:#x} regs {:#x}", stringify!($name), p.mem.get(), p.regs.get());
            run($eng, init_steps($eng, A::HW_DECODE), log, |s| A::$leaf(mmio, s, &p))
        }
    )*};
}

orchestrators! {
    /// `act_init`'s body (slot `+0x2E0`): its steps through the ACT leaves.
    fn act_init(EngineParams, Engine::Act, act_step);
    /// `dve_init`'s body (slot `+0x2B0`): its steps through the DVE leaves.
    fn dve_init(EngineParams, Engine::Dve, dve_step);
    /// `pe_init`'s body (slot `+0x318`): its steps through the PE leaves.
    fn pe_init(PeParams, Engine::Pe, pe_step);
    /// `pooling_init`'s body (slot `+0x368`): its steps through the Pooling leaves.
    fn pooling_init(PoolingParams, Engine::Pool, pooling_step);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A step outside the engine's list stops the init with its refusal,
    /// logged, and the steps after it do not run.
    #[test]
    fn a_refused_step_stops_the_init() {
        let mut ran = std::vec::Vec::new();
        let mut log = |e: Engine, s: Step, o: Result<()>| ran.push((e, s, o));
        let r = run(Engine::Dve, &STEPS_WITH_HW_DECODE, &mut log, |s| match s {
            Step::HwDecodeTableInit => Err(NOT_A_STEP),
            _ => Ok(()),
        });
        assert_eq!(r, Err(NOT_A_STEP));
        assert_eq!(
            ran,
            [
                (Engine::Dve, Step::RegsInit, Ok(())),
                (Engine::Dve, Step::UcodeSeqInit, Ok(())),
                (Engine::Dve, Step::HwDecodeTableInit, Err(NOT_A_STEP)),
            ]
        );
    }

    /// The lists of [FACTS §13.6]: SUNDA (no HW-decode program) skips the
    /// step for PE, ACT and POOL, not DVE.
    #[test]
    fn step_lists_per_hw_decode() {
        use HwDecodeLeaves::{NoOp, Program};
        for eng in [Engine::Pe, Engine::Act, Engine::Dve] {
            assert_eq!(init_steps(eng, Program), &STEPS_WITH_HW_DECODE);
        }
        assert_eq!(
            init_steps(Engine::Pool, Program),
            &POOL_STEPS_WITH_HW_DECODE
        );
        assert_eq!(init_steps(Engine::Pe, NoOp), &STEPS_WITHOUT_HW_DECODE);
        assert_eq!(init_steps(Engine::Act, NoOp), &STEPS_WITHOUT_HW_DECODE);
        assert_eq!(init_steps(Engine::Dve, NoOp), &STEPS_WITH_HW_DECODE);
        assert_eq!(
            init_steps(Engine::Pool, NoOp),
            &POOL_STEPS_WITHOUT_HW_DECODE
        );
    }
}
