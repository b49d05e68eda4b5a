//! The checked `_init` shims and the real bring-up bodies: `stpb_init`,
//! `sp_init` (also `topsp_init`'s body) [002 §1, §2, §3], [FACTS §4, §5].
//!
//! Two layers over one body each. The typed one takes what a caller must
//! give by type: `&SpHandle`, each engine's params by reference; it runs the
//! SP register bring-up, and the SP's notification block is the caller's
//! next call, [`NotificEngine::init`] on the ENS block taken from the
//! device's [`NotificBlocks`](crate::notific::NotificBlocks) with
//! [`EngineConfig::tpb`] (the C's `nt` step: the same writes, in the same
//! place, last). The raw one (`*_raw`, [`RawStpbConfig`]) keeps the C shapes
//! for callers that hold the C's arguments (`khal trace`, the tests of the C
//! codes): a NULL config or handle is `None` (-22), the back-pressure flag a
//! raw number (other than 0 or 1: the notification init fails with -1,
//! logged as in C).

use super::init::{self, Step, StepLog};
use super::ops::StpbOps;
use super::params::{EngineParams, PeParams, PoolingParams, SpHandle};
use crate::error::{Error, Result};
use crate::notific::{EngineConfig, NotificEngine};
use crate::Mmio;

/// Queues of the SP's notification block: `sp_init` passes `0xA` [002 §2].
const SP_NOTIFIC_QUEUES: u32 = 10;

/// The `uart_mode` `sp_init` passes to the notific init (`0`) [002 §2].
const SP_NOTIFIC_UART_MODE: u32 = 0;

/// `aws_hal_stpb_act_init`: config absent or `inst_debug_level > 8` →
/// `InvalidArgument` (-22) before anything is written; then the ACT
/// orchestrator over the arch's leaves [002 §1].
pub fn act_init<A: StpbOps, M: Mmio + ?Sized>(
    mmio: &M,
    cfg: Option<&EngineParams<'_>>,
) -> Result<()> {
    act_init_logged::<A, M, ()>(mmio, cfg, &mut ())
}

fn act_init_logged<A: StpbOps, M: Mmio + ?Sized, L: StepLog + ?Sized>(
    mmio: &M,
    cfg: Option<&EngineParams<'_>>,
    log: &mut L,
) -> Result<()> {
    let cfg = EngineParams::check(cfg).inspect_err(|e| error!("act_init: {:?}", e))?;
    init::act_init::<A, M, L>(mmio, cfg, log)
}

/// `aws_hal_stpb_dve_init`: same checks as [`act_init`], then the DVE
/// orchestrator over the arch's mandatory leaves [002 §1].
pub fn dve_init<A: StpbOps, M: Mmio + ?Sized>(
    mmio: &M,
    cfg: Option<&EngineParams<'_>>,
) -> Result<()> {
    dve_init_logged::<A, M, ()>(mmio, cfg, &mut ())
}

fn dve_init_logged<A: StpbOps, M: Mmio + ?Sized, L: StepLog + ?Sized>(
    mmio: &M,
    cfg: Option<&EngineParams<'_>>,
    log: &mut L,
) -> Result<()> {
    let cfg = EngineParams::check(cfg).inspect_err(|e| error!("dve_init: {:?}", e))?;
    init::dve_init::<A, M, L>(mmio, cfg, log)
}

/// `aws_hal_stpb_pooling_init`: the same checks on the Pooling params (level
/// read at another place in C), then the Pooling orchestrator [002 §1].
pub fn pooling_init<A: StpbOps, M: Mmio + ?Sized>(
    mmio: &M,
    cfg: Option<&PoolingParams<'_>>,
) -> Result<()> {
    pooling_init_logged::<A, M, ()>(mmio, cfg, &mut ())
}

fn pooling_init_logged<A: StpbOps, M: Mmio + ?Sized, L: StepLog + ?Sized>(
    mmio: &M,
    cfg: Option<&PoolingParams<'_>>,
    log: &mut L,
) -> Result<()> {
    let cfg = PoolingParams::check(cfg).inspect_err(|e| error!("pooling_init: {:?}", e))?;
    init::pooling_init::<A, M, L>(mmio, cfg, log)
}

/// `aws_hal_stpb_pe_init`: no argument check in the shim [002 §3], then the
/// PE orchestrator.
pub fn pe_init<A: StpbOps, M: Mmio + ?Sized>(mmio: &M, cfg: &PeParams<'_>) -> Result<()> {
    init::pe_init::<A, M, ()>(mmio, PeParams::accept(cfg), &mut ())
}

/// What `sp_init` brought up besides the SP registers.
#[derive(Debug)]
pub struct SpInit<'m, M: Mmio + ?Sized> {
    /// The SP's notification block, when asked for and its init succeeded.
    pub notific: Option<NotificEngine<'m, &'m M>>,
    /// The notific init failure, when asked for and it failed: logged and
    /// reported here, never returned as an error [002 §2].
    pub notific_error: Option<Error>,
}

/// `aws_hal_sp_init(handle, 0, 0, 1)` [002 §2], [FACTS §5]: the SP's
/// checks and register bring-up.
///
/// 1. `sp_mem_handle` or `sp_regs` absent → -22; `inst_debug_level > 8` →
///    -22 (nothing written);
/// 2. `regs_init` (its error returned), `ucode_seq_init` (its error
///    returned), `dma_init`, `release_run_stall` (their errors logged, not
///    returned, as the C code ignores them).
///
/// The C's `nt` (the notification init of the SP's ENS block with 10
/// queues, a back-pressure mode, uart mode 0) is the caller's next call:
/// `NotificEngine::init(mmio, &mut ens, EngineConfig::tpb(mode))` on the ENS
/// block taken once from the device's
/// [`NotificBlocks`](crate::notific::NotificBlocks), so the SP's engine is
/// owned like any other and its error is returned, not only logged.
/// [`sp_init_raw`] takes the C's arguments as they are; `aws_hal_sp_topsp_init`
/// is the same call (an 11-byte alias in C).
pub fn sp_init<A: StpbOps, M: Mmio + ?Sized>(mmio: &M, handle: &SpHandle) -> Result<()> {
    sp_init_raw::<A, M>(mmio, Some(handle), false, 0, true).map(drop)
}

/// [`sp_init`] with the C's arguments [002 §2]: `handle` `None` (the C NULL)
/// → -22 first; `notific` the C's `nt`; `flag` the raw back-pressure mode
/// (0 or 1; another value makes the notification init fail with -1, which
/// is logged and kept in [`SpInit::notific_error`], as any notific failure).
/// For `khal trace` and the tests of the C codes.
pub fn sp_init_raw<'m, A: StpbOps, M: Mmio + ?Sized>(
    mmio: &'m M,
    handle: Option<&SpHandle>,
    notific: bool,
    flag: u8,
    init: bool,
) -> Result<SpInit<'m, M>> {
    let h = SpHandle::check(handle).inspect_err(|e| error!("sp_init: {:?}", e))?;
    if init {
        A::sp_step(mmio, Step::RegsInit, h)?;
        A::sp_step(mmio, Step::UcodeSeqInit, h)?;
        let ignored = |step: &str, r: Result<()>| {
            if let Err(e) = r {
                warn!("sp_init: {} failed (ignored, as in C): {:?}", step, e);
            }
        };
        ignored("dma_init", A::sp_step(mmio, Step::DmaInit, h));
        ignored(
            "release_run_stall",
            A::sp_step(mmio, Step::ReleaseRunStall, h),
        );
    }
    let engine = notific.then(|| {
        let cfg = EngineConfig::from_raw(SP_NOTIFIC_QUEUES, u32::from(flag), SP_NOTIFIC_UART_MODE);
        // The C entry point's checks in its order: the handle's possibly
        // absent ENS base (-14) before the mode (-1) [004 §1, §2].
        h.ens_regs
            .ok_or(Error::NoContext)
            .and_then(|base| cfg.and_then(|cfg| NotificEngine::init_at(mmio, base, cfg)))
            .inspect_err(|e| error!("Failed to initialize notific. {:?}", e))
    });
    let (notific, notific_error) = match engine {
        None => (None, None),
        Some(Ok(e)) => (Some(e), None),
        Some(Err(e)) => (None, Some(e)),
    };
    Ok(SpInit {
        notific,
        notific_error,
    })
}

/// The inputs of `aws_hal_stpb_init`: one config per engine (each engine's own
/// type, every one required) and the `sp_init` handle.
#[derive(Debug, Clone, Copy)]
pub struct StpbConfig<'a> {
    /// Pooling params.
    pub pooling: &'a PoolingParams<'a>,
    /// ACT params.
    pub act: &'a EngineParams<'a>,
    /// DVE params.
    pub dve: &'a EngineParams<'a>,
    /// PE params.
    pub pe: &'a PeParams<'a>,
    /// The SP handle.
    pub sp: &'a SpHandle,
}

/// The inputs of `aws_hal_stpb_init` as the C takes them: a `None` config
/// or handle is the C NULL (-22 from its shim), the SP's back-pressure flag
/// a raw number (see [`sp_init_raw`]). For `khal trace` and the tests of the
/// C codes; typed callers use [`StpbConfig`].
#[derive(Debug, Clone, Copy)]
pub struct RawStpbConfig<'a> {
    /// Pooling params (`None` → -22 from `pooling_init`).
    pub pooling: Option<&'a PoolingParams<'a>>,
    /// ACT params (`None` → -22 from `act_init`).
    pub act: Option<&'a EngineParams<'a>>,
    /// DVE params (`None` → -22 from `dve_init`).
    pub dve: Option<&'a EngineParams<'a>>,
    /// PE params (the PE shim has no check [002 §3]).
    pub pe: &'a PeParams<'a>,
    /// The SP handle (`None` → -22 from `sp_init`).
    pub sp: Option<&'a SpHandle>,
    /// `sp_init`'s `nt`: bring the SP's notification block up.
    pub notific: bool,
    /// `sp_init`'s raw back-pressure flag.
    pub flag: u8,
    /// `sp_init`'s `init`: run the SP register bring-up.
    pub init: bool,
}

impl<'a> StpbConfig<'a> {
    /// The same inputs as the C takes them: every config present, the SP
    /// register bring-up run, its notification block left to the caller.
    pub(crate) fn raw(&self) -> RawStpbConfig<'a> {
        RawStpbConfig {
            pooling: Some(self.pooling),
            act: Some(self.act),
            dve: Some(self.dve),
            pe: self.pe,
            sp: Some(self.sp),
            notific: false,
            flag: 0,
            init: true,
        }
    }
}

/// `aws_hal_stpb_init`: `pooling_init`, `act_init`, `dve_init`, `pe_init`, then
/// `sp_init`, in that order [002 §3], [FACTS §5]. The first error is returned
/// and stops the sequence (interpretation MED: the notes give the order, not
/// the error handling of the 2231-byte body). The SP's notification block is
/// the caller's next call, as after [`sp_init`]. Every engine step it ran is
/// shown to `log` with its outcome (`&mut ()` for no log), which tells the
/// step that stopped it; [`stpb_init_raw`] takes the C's arguments.
pub fn stpb_init<A: StpbOps, M: Mmio + ?Sized, L: StepLog + ?Sized>(
    mmio: &M,
    cfg: &StpbConfig<'_>,
    log: &mut L,
) -> Result<()> {
    stpb_init_raw::<A, M, L>(mmio, &cfg.raw(), log).map(drop)
}

/// [`stpb_init`] with the C's arguments ([`RawStpbConfig`]): the same
/// order, a `None` config stops it with its shim's -22 (`khal trace
/// stpb-init`; `&mut ()` for no log).
pub fn stpb_init_raw<'m, A: StpbOps, M: Mmio + ?Sized, L: StepLog + ?Sized>(
    mmio: &'m M,
    cfg: &RawStpbConfig<'_>,
    log: &mut L,
) -> Result<SpInit<'m, M>> {
    pooling_init_logged::<A, M, L>(mmio, cfg.pooling, log)?;
    act_init_logged::<A, M, L>(mmio, cfg.act, log)?;
    dve_init_logged::<A, M, L>(mmio, cfg.dve, log)?;
    init::pe_init::<A, M, L>(mmio, PeParams::accept(cfg.pe), log)?;
    sp_init_raw::<A, M>(mmio, cfg.sp, cfg.notific, cfg.flag, cfg.init)
}
