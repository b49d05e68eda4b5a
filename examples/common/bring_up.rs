//! The bring-up every khal example runs, written once and generic over the arch
//! `A`, the register window `M`, the ring memory `R` and the delay `D`: the
//! firmware examples run it over a `VolatileWindow` and a `StaticDma` ring, the
//! host example over a file-backed `MmapMmio` and over the device model.
//!
//! 1. bind the arch: a validated tile index and its TPB base; the arch's
//!    error-notification mask, which the notes do not trace (a typed
//!    `NotTraced` answer: logged, and the bring-up goes on without it);
//! 2. the notification engine: `NotificEngine::init` on the caller's
//!    `NotificBlock` (lent while the engine and its ring live) with
//!    `EngineConfig::tpb(BpMode::None)` (10 queues, back-pressure mode 1,
//!    uart mode 0) [004 §2];
//! 3. one NQ over the ring memory: its token from `engine.queue(NQ)`, then
//!    `NqRing::configure_host` and `enable`
//!    (the reset's bounded tail wait) [004 §3], read by phase bit;
//! 4. drain, handling each error: a timeout consumes nothing and is retried on
//!    the next call; a device fault (tail all ones, misaligned, outside the
//!    ring) resets the queue and is reported; anything else is returned.
//!
//! Every error is logged: through defmt on a firmware build with the `defmt`
//! feature, to stderr on a host, nowhere otherwise (the caller still gets it).

use embedded_hal::delay::DelayNs;
use khal::dma::DmaMemory;
use khal::family::{Arch, NotificMask};
use khal::notific::{BpMode, EngineConfig, NotificBlock, NotificEngine, NqConfig, NqEntry, NqRing};
use khal::{DeviceAddr, Error, Mmio, Result};

/// Entries of the example's NQ ring.
pub const RING_ENTRIES: usize = 64;
/// Its size in bytes (16 per entry [004 §3]).
pub const RING_BYTES: usize = RING_ENTRIES * 16;
/// The NQ the example uses (of the engine's 10).
pub const NQ: u32 = 2;

/// A brought-up engine and its NQ, both on the block lent for `'d`.
pub struct Up<'d, M: Mmio, R: DmaMemory> {
    /// The notification engine (owns the window handle).
    pub engine: NotificEngine<'d, M>,
    /// The enabled NQ (it owns the queue's token, a clone of `M`).
    pub ring: NqRing<'d, R, M>,
}

/// Steps 1 to 3: bind `A`, init the engine on the block `notific` of
/// `window`, configure and enable NQ [`NQ`] over `ring_mem`. `window` is a
/// handle the engine and the queue's ring share (`&VolatileWindow`, `&MmapMmio`).
pub fn bring_up<'d, A: Arch, M: Mmio + Clone, R: DmaMemory, D: DelayNs>(
    window: M,
    notific: &'d mut NotificBlock,
    ring_mem: R,
    delay: &mut D,
) -> Result<Up<'d, M, R>> {
    // A validated tile index, then a per-arch constant: the arch is bound.
    log_bound(A::ID.name(), A::tpb_base(A::tile(0)?));
    match A::notific_mask(NotificMask::Error) {
        Ok(_) => {}
        // Not traced on any arch [002 §4]: no number is guessed; the error
        // enable is left off.
        Err(e @ Error::NotTraced(_)) => log_error("error-notification mask", &e),
        Err(e) => return Err(e),
    }
    let mut engine = NotificEngine::init(window, notific, EngineConfig::tpb(BpMode::None))?;
    let cfg = NqConfig::phase(RING_BYTES as u32);
    let mut ring = NqRing::configure_host(ring_mem, engine.queue(NQ)?, cfg)?;
    ring.enable(&mut engine, delay)?;
    Ok(Up { engine, ring })
}

/// Step 4: drain what is pending into `out`; returns how many. A phase
/// ring's drain never waits; `delay` bounds the reset after a device fault.
pub fn drain<M: Mmio, R: DmaMemory, D: DelayNs>(
    up: &mut Up<'_, M, R>,
    delay: &mut D,
    out: &mut [NqEntry],
) -> Result<usize> {
    match up.ring.drain(out) {
        Ok(n) => Ok(n),
        // The device lied or is gone: reset the queue (bounded) and report.
        Err(e @ Error::DeviceFault(_)) => {
            log_error("nq drain: device fault, resetting the queue", &e);
            up.ring.reset(&mut up.engine, delay)?;
            Err(e)
        }
        Err(e) => {
            log_error("nq drain", &e);
            Err(e)
        }
    }
}

/// Log which arch is bound and its TPB 0 base.
#[cfg(feature = "defmt")]
pub fn log_bound(arch: &str, tpb0: DeviceAddr) {
    defmt::info!("khal: arch {=str}, tpb 0 at {=u64:#x}", arch, tpb0.get());
}

/// Log which arch is bound and its TPB 0 base.
#[cfg(all(not(feature = "defmt"), not(target_os = "none")))]
pub fn log_bound(arch: &str, tpb0: DeviceAddr) {
    std::println!("khal: arch {arch}, tpb 0 at {tpb0}");
}

/// Log which arch is bound: a firmware build without `defmt` has no log.
#[cfg(all(not(feature = "defmt"), target_os = "none"))]
pub fn log_bound(arch: &str, tpb0: DeviceAddr) {
    let _ = (arch, tpb0);
}

/// Log `e` with what failed.
#[cfg(feature = "defmt")]
pub fn log_error(what: &str, e: &Error) {
    defmt::error!("{=str}: {}", what, e);
}

/// Log `e` with what failed.
#[cfg(all(not(feature = "defmt"), not(target_os = "none")))]
pub fn log_error(what: &str, e: &Error) {
    std::eprintln!("{what}: {e}");
}

/// Log `e` with what failed: a firmware build without `defmt` has no log.
#[cfg(all(not(feature = "defmt"), target_os = "none"))]
pub fn log_error(what: &str, e: &Error) {
    let _ = (what, e);
}
