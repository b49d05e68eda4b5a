//! The NQ scenarios' set-up, shared by the side-by-side (`main.rs`) and the
//! three checkers (`ver.rs`, `chk.rs`, `chk3.rs`): the engine over a register
//! window, a ring on one queue, the queue's registers, the device's whole
//! passes. The device itself is `kernels::NqDev` (its kernels call it); the
//! kernels and their references stay each author's own.

use std::ptr::NonNull;

use khal_core::dma::DmaMemory;
use khal_core::mmio::volatile::VolatileWindow;
use khal_core::notific::{BpMode, ConsumeMode, EngineConfig, NotificEngine, NqConfig, NqRing};
use khal_core::{Mmio, Result};

use crate::kernels::{nq_entry, window, NoDelay, BASE, RING_ENTRIES, WINDOW_BYTES};

/// The window type of every scenario's engine and rings.
pub type Win = &'static VolatileWindow;

/// Stride of the NQ register block: NQ 1's registers are 40 bytes after
/// NQ 0's (10-queue flavour) [FACTS §10].
pub const NQ_STRIDE: u64 = 40;

/// A notific engine brought up over a window of `regs` (the first dword of
/// a live `Regs`). The window is leaked: the engine and its queue tokens
/// share it (`&W` is `Copy`); one window per measured run.
pub fn bench_engine(regs: NonNull<u32>) -> Option<NotificEngine<Win>> {
    let w: Win = Box::leak(Box::new(window(regs)?));
    NotificEngine::init(w, BASE, EngineConfig::tpb(BpMode::All)).ok()
}

/// A ring of `entries` over `mem` on queue `q` of `e`, in `mode`, with
/// `max_batch` (`None`: the ring's default), enabled (which zeroes it).
pub fn bench_ring<R: DmaMemory, M: Mmio + Clone>(
    e: &mut NotificEngine<M>,
    mem: R,
    q: u32,
    entries: u32,
    mode: ConsumeMode,
    max_batch: Option<u32>,
) -> Option<NqRing<R, M>> {
    let mut cfg = NqConfig::new(entries * 16, mode);
    if let Some(b) = max_batch {
        cfg = cfg.with_max_batch(b);
    }
    let mut ring = NqRing::configure_host(mem, e.queue(q).ok()?, cfg).ok()?;
    ring.enable(e, &mut NoDelay).ok()?;
    Some(ring)
}

/// Tail mode for the tail consumers (`tail`, and a C reference's `ctail`),
/// phase mode for every other.
pub fn consume_mode(consumer: &str) -> ConsumeMode {
    if consumer == "tail" || consumer == "ctail" {
        ConsumeMode::Tail
    } else {
        ConsumeMode::Phase
    }
}

/// NQ `q`'s register at byte offset `off` of NQ 0's
/// ([`crate::kernels::NQ0_TAIL_OFF`], [`crate::kernels::NQ0_HEAD_OFF`]) in the register buffer whose first dword is `regs`.
pub fn nq_reg(regs: NonNull<u32>, q: u32, off: u64) -> Option<NonNull<u32>> {
    let dword = (off + NQ_STRIDE * q as u64) as usize / 4;
    // Inside the buffer of WINDOW_BYTES, or no register.
    (dword < WINDOW_BYTES / 4).then(|| NonNull::new(regs.as_ptr().wrapping_add(dword)))?
}

/// Write the device's pass `pass` over a whole ring of [`RING_ENTRIES`],
/// publishing nothing (the full-ring scenarios set the tail themselves).
pub fn write_pass<R: DmaMemory>(mem: &R, pass: u32) -> Result<()> {
    for i in 0..RING_ENTRIES {
        mem.write(
            i as usize * 16,
            &nq_entry(i, pass, pass * RING_ENTRIES + i, 0),
        )?;
    }
    Ok(())
}
