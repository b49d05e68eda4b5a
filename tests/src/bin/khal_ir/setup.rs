//! What every scenario stands on: a register buffer and its window, a
//! notific engine over it, a phase- or tail-mode ring, the device's entries.

#![allow(dead_code)] // the time bench that includes this file uses a part

use std::ptr::NonNull;

use embedded_hal::delay::DelayNs;
use khal_core::dma::DmaMemory;
use khal_core::mmio::VolatileWindow;
use khal_core::notific::{
    BpMode, ConsumeKind, EngineConfig, NotificBlocks, NotificEngine, NqConfig, NqRing,
};
use khal_core::{DeviceAddr, Mmio, Result};

/// Operations per register, CSR and idle-poll kernel.
pub const N: u32 = 10_000;

/// Device address of the register window.
pub const BASE: DeviceAddr = DeviceAddr(0x3053_5000);

/// Bytes of the register window (one notific block).
pub const WINDOW_BYTES: usize = 0x1000;

/// Entries of every ring: 4096 (64 KiB).
pub const RING_ENTRIES: u32 = 4096;

/// Byte offsets of NQ 0's tail and head registers in the notific block
/// (`nq_tail_ptr`, `nq_head_ptr`, 10-queue flavour) [004 §3].
pub const NQ0_TAIL_OFF: u64 = 0x110;
pub const NQ0_HEAD_OFF: u64 = 0x10C;

/// A register window's backing store: plain memory standing in for a BAR.
pub struct Regs {
    words: Box<[u32]>,
}

impl Regs {
    /// A zeroed window of [`WINDOW_BYTES`].
    pub fn new() -> Self {
        Regs {
            words: vec![0u32; WINDOW_BYTES / 4].into_boxed_slice(),
        }
    }

    /// The first dword.
    pub fn ptr(&mut self) -> NonNull<u32> {
        NonNull::from(&mut self.words[0])
    }
}

/// A [`VolatileWindow`] of [`WINDOW_BYTES`] at [`BASE`] over `ptr`.
///
/// Always inlined: a kernel builds its window from constants, as firmware
/// does at a fixed address, so the compiler sees the geometry.
#[inline(always)]
pub fn window(ptr: NonNull<u32>) -> Option<VolatileWindow> {
    // SAFETY: `ptr` is the first dword of a live `Regs` buffer of
    // `WINDOW_BYTES`, which the caller keeps alive and touches only through
    // this window or raw volatile accesses.
    unsafe { VolatileWindow::new(ptr, WINDOW_BYTES, BASE) }.ok()
}

/// A delay that returns at once: phase-mode drains never wait.
pub struct NoDelay;

impl DelayNs for NoDelay {
    fn delay_ns(&mut self, _: u32) {}
}

/// The window type of every engine and ring.
pub type Win = &'static VolatileWindow;

/// A notific engine over a window of `regs`. The window and its block are
/// leaked: the engine and its queue tokens share them; one window per run.
pub fn engine(regs: NonNull<u32>) -> Option<NotificEngine<'static, Win>> {
    let w: Win = Box::leak(Box::new(window(regs)?));
    let blocks: &'static NotificBlocks = Box::leak(Box::new(NotificBlocks::new()));
    let block = Box::leak(Box::new(blocks.take(BASE).unwrap()));
    NotificEngine::init(w, block, EngineConfig::tpb(BpMode::All)).ok()
}

/// A ring of [`RING_ENTRIES`] over `mem` on NQ 0 of `e`, in `mode`, taking
/// at most `max_batch` entries per call, enabled (which zeroes it).
pub fn ring<'d, R: DmaMemory, M: Mmio + Clone, K: ConsumeKind>(
    e: &mut NotificEngine<'d, M>,
    mem: R,
    kind: fn(u32) -> NqConfig<K>,
    max_batch: u32,
) -> Option<NqRing<'d, R, M, K>> {
    let cfg = kind(RING_ENTRIES * 16).with_max_batch(max_batch);
    let mut ring = NqRing::configure_host(mem, e.queue(0).ok()?, cfg).ok()?;
    ring.enable(e, &mut NoDelay).ok()?;
    Some(ring)
}

/// The register at byte offset `off` of the buffer whose first dword is `regs`.
pub fn reg(regs: NonNull<u32>, off: u64) -> NonNull<u32> {
    assert!((off as usize) < WINDOW_BYTES);
    // SAFETY: in bounds of the live buffer (asserted above).
    unsafe { regs.add(off as usize / 4) }
}

/// The device's whole pass `pass` over the ring: each entry's dword 0 is its
/// slot with the phase in bit 31 (1 on even passes) [FACTS §11], dword 1 its
/// sequence number. Publishes nothing: a tail-reading consumer's tail is set
/// by the caller.
pub fn write_pass<R: DmaMemory>(mem: &R, pass: u32) -> Result<()> {
    let phase = if pass.is_multiple_of(2) { 1 << 31 } else { 0 };
    for i in 0..RING_ENTRIES {
        let mut e = [0u8; 16];
        e[..4].copy_from_slice(&(i | phase).to_le_bytes());
        e[4..8].copy_from_slice(&(pass * RING_ENTRIES + i).to_le_bytes());
        mem.write(i as usize * 16, &e)?;
    }
    Ok(())
}
