//! The checked `_init` shims and the real bring-up bodies: `stpb_init`,
//! `sp_init`, `topsp_init` [002 §1, §2, §3], [FACTS §4, §5].

use super::ops::{ActOps, DveOps, PeOps, PoolingOps, SpOps, StpbOps};
use super::params::{EngineParams, PeParams, PoolingParams, SpHandle};
use crate::error::{Error, Result};
use crate::mmio::Mmio;
use crate::notific::NotificEngine;

/// Queues of the SP's notification block: `sp_init` passes `0xA` [002 §2].
pub const SP_NOTIFIC_QUEUES: u32 = 10;

/// The `uart_mode` `sp_init` passes to the notific init (`0`) [002 §2].
pub const SP_NOTIFIC_UART_MODE: u32 = 0;

/// `aws_hal_stpb_act_init`: config absent or `inst_debug_level > 8` →
/// `InvalidArgument` (-22) before anything is written; then the arch's
/// `act_init` (optional: default no-op) [002 §1].
pub fn act_init<A: ActOps, M: Mmio + ?Sized>(
    mmio: &M,
    cfg: Option<&EngineParams<'_>>,
) -> Result<()> {
    let cfg = EngineParams::check(cfg).inspect_err(|e| error!("act_init: {:?}", e))?;
    A::act_init(mmio, cfg)
}

/// `aws_hal_stpb_dve_init`: same checks as [`act_init`], then the arch's
/// mandatory `dve_init` [002 §1].
pub fn dve_init<A: DveOps, M: Mmio + ?Sized>(
    mmio: &M,
    cfg: Option<&EngineParams<'_>>,
) -> Result<()> {
    let cfg = EngineParams::check(cfg).inspect_err(|e| error!("dve_init: {:?}", e))?;
    A::dve_init(mmio, cfg)
}

/// `aws_hal_stpb_pooling_init`: the same checks on the Pooling params (level
/// read at another place in C), then the arch's `pooling_init` [002 §1].
pub fn pooling_init<A: PoolingOps, M: Mmio + ?Sized>(
    mmio: &M,
    cfg: Option<&PoolingParams<'_>>,
) -> Result<()> {
    let cfg = PoolingParams::check(cfg).inspect_err(|e| error!("pooling_init: {:?}", e))?;
    A::pooling_init(mmio, cfg)
}

/// `aws_hal_stpb_pe_init`: no argument check in the shim [002 §3].
pub fn pe_init<A: PeOps, M: Mmio + ?Sized>(mmio: &M, cfg: &PeParams<'_>) -> Result<()> {
    A::pe_init(mmio, cfg)
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

/// `aws_hal_sp_init(handle, nt, flag, init)` [002 §2], [FACTS §5]:
///
/// 1. handle absent → -22; `sp_mem_handle` or `sp_regs` absent → -22;
///    `inst_debug_level > 8` → -22 (nothing written);
/// 2. if `init`: `regs_init` (its error returned), `ucode_seq_init` (its error
///    returned), `dma_init`, `release_run_stall` (their errors logged, not
///    returned, as the C code ignores them);
/// 3. if `notific`: the notification init of the SP's ENS block with 10
///    queues, back-pressure mode `flag`, uart mode 0; its failure is logged
///    (`error!`) and kept in [`SpInit::notific_error`], not returned.
pub fn sp_init<'m, A: SpOps, M: Mmio + ?Sized>(
    mmio: &'m M,
    handle: Option<&SpHandle>,
    notific: bool,
    flag: u8,
    init: bool,
) -> Result<SpInit<'m, M>> {
    let h = SpHandle::check(handle).inspect_err(|e| error!("sp_init: {:?}", e))?;
    if init {
        A::sp_regs_init(mmio, h)?;
        A::sp_ucode_seq_init(mmio, h)?;
        if let Err(e) = A::sp_dma_init(mmio, h) {
            warn!("sp_init: dma_init failed (ignored, as in C): {:?}", e);
        }
        if let Err(e) = A::sp_release_run_stall(mmio, h) {
            warn!(
                "sp_init: release_run_stall failed (ignored, as in C): {:?}",
                e
            );
        }
    }
    let mut out = SpInit {
        notific: None,
        notific_error: None,
    };
    if notific {
        // The C numbers and the handle's possibly-absent ENS base: the C
        // entry point's checks (-14, -1) apply as they are [002 §2]. The
        // handle names the block by its base, so the caller answers for
        // not bringing it up twice.
        match NotificEngine::init_raw_at(
            mmio,
            h.ens_regs,
            SP_NOTIFIC_QUEUES,
            u32::from(flag),
            SP_NOTIFIC_UART_MODE,
        ) {
            Ok(engine) => out.notific = Some(engine),
            Err(e) => {
                error!("Failed to initialize notific. {:?}", e);
                out.notific_error = Some(e);
            }
        }
    }
    Ok(out)
}

/// `aws_hal_sp_topsp_init`: the same call as [`sp_init`] (an 11-byte alias in
/// C) [002 §2].
pub fn topsp_init<'m, A: SpOps, M: Mmio + ?Sized>(
    mmio: &'m M,
    handle: Option<&SpHandle>,
    notific: bool,
    flag: u8,
    init: bool,
) -> Result<SpInit<'m, M>> {
    sp_init::<A, M>(mmio, handle, notific, flag, init)
}

/// The inputs of `aws_hal_stpb_init`: one config per engine (each engine's own
/// type) and the `sp_init` arguments.
#[derive(Debug, Clone, Copy)]
pub struct StpbConfig<'a> {
    /// Pooling params (`None` → -22 from `pooling_init`).
    pub pooling: Option<&'a PoolingParams<'a>>,
    /// ACT params (`None` → -22 from `act_init`).
    pub act: Option<&'a EngineParams<'a>>,
    /// DVE params (`None` → -22 from `dve_init`).
    pub dve: Option<&'a EngineParams<'a>>,
    /// PE params.
    pub pe: &'a PeParams<'a>,
    /// The SP handle (`None` → -22 from `sp_init`).
    pub sp: Option<&'a SpHandle>,
    /// `sp_init`'s `nt`: bring the SP's notification block up.
    pub notific: bool,
    /// `sp_init`'s back-pressure flag.
    pub flag: u8,
    /// `sp_init`'s `init`: run the SP register bring-up.
    pub init: bool,
}

/// `aws_hal_stpb_init`: `pooling_init`, `act_init`, `dve_init`, `pe_init`, then
/// `sp_init`, in that order [002 §3], [FACTS §5]. The first error is returned
/// and stops the sequence (interpretation MED: the notes give the order, not
/// the error handling of the 2231-byte body).
pub fn stpb_init<'m, A: StpbOps, M: Mmio + ?Sized>(
    mmio: &'m M,
    cfg: &StpbConfig<'_>,
) -> Result<SpInit<'m, M>> {
    pooling_init::<A, M>(mmio, cfg.pooling)?;
    act_init::<A, M>(mmio, cfg.act)?;
    dve_init::<A, M>(mmio, cfg.dve)?;
    pe_init::<A, M>(mmio, cfg.pe)?;
    sp_init::<A, M>(mmio, cfg.sp, cfg.notific, cfg.flag, cfg.init)
}
