//! What a firmware example needs besides khal: the board's register window
//! and notification block, the run from window to drained notifications, a
//! busy-wait delay, the panic handler, the critical-section implementation,
//! the defmt transport, the end. Each example's `main.rs` keeps only the one
//! line that builds its register window (the single line the compiler cannot
//! check) and what only its arch has.

use core::ptr::NonNull;

use embedded_hal::delay::DelayNs;
use khal::dma::StaticDma;
use khal::mmio::volatile::VolatileWindow;
use khal::notific::{NotificBlock, NotificEngine, NqEntry};
use khal::{DeviceAddr, Error, Result};

// Halt on panic (khal itself never panics on bad input: it returns errors).
use panic_halt as _;
// defmt frames leave through RTT when the `defmt` feature is on.
#[cfg(feature = "defmt")]
use defmt_rtt as _;
// The single-core critical-section implementation khal's INTC shadows use.
#[cfg(target_arch = "arm")]
use cortex_m as _;
#[cfg(target_arch = "riscv32")]
use riscv as _;

/// Where this board maps the device's register window (a physical address of
/// the core), and its length.
pub const WINDOW_ADDR: usize = 0x4000_0000;
pub const WINDOW_BYTES: usize = 0x100_0000;
/// The device address the window's first byte answers.
pub const WINDOW_BASE: DeviceAddr = DeviceAddr(0);
/// The notification engine's block inside the window (board-specific).
pub const NOTIFIC: DeviceAddr = DeviceAddr(0x70_0000);

/// The first dword of the register window, as the example's `main.rs` hands it
/// to `VolatileWindow::new` (`NoContext` if the board's address is null).
pub fn window_ptr() -> Result<NonNull<u32>> {
    NonNull::new(WINDOW_ADDR as *mut u32).ok_or(Error::NoContext)
}

/// Steps 2 to 4 of every firmware example over its register `window`: the NQ
/// ring over a buffer `static_dma!` hands out once (64-byte aligned), which the
/// device reaches at the core's own address (`StaticDma::identity`); the
/// generic bring-up; `arch_extra` (what only this arch has, run once the
/// engine is up); then a few drains, each error handled.
pub fn run(
    window: VolatileWindow,
    arch_extra: impl FnOnce(&NotificEngine<'_, &VolatileWindow>) -> Result<()>,
) -> Result<usize> {
    let buf = khal::static_dma!(crate::bring_up::RING_BYTES).ok_or(Error::OutOfMemory)?;
    let ring_mem = StaticDma::identity(buf);
    let mut delay = CycleDelay;
    // The window's notification block, owned here once and lent to the engine.
    let mut ens = NotificBlock::new(NOTIFIC);
    let mut up = crate::bring_up::bring_up::<khal::Selected, _, _, _>(
        // Shared by the engine and its NQ's ring (`&VolatileWindow` is `Copy`).
        &window, &mut ens, ring_mem, &mut delay,
    )?;
    arch_extra(&up.engine)?;
    // Poll a few times (a real firmware loops, or drains from its interrupt).
    let mut out = [NqEntry::default(); 16];
    let mut drained = 0;
    for _ in 0..4 {
        drained += crate::bring_up::drain(&mut up, &mut delay, &mut out)?;
    }
    Ok(drained)
}

/// A busy-wait delay for a 64 MHz core: every khal wait is bounded by a budget
/// of these (`poll_until`), so a dead device ends in `Timeout`, never a hang.
pub struct CycleDelay;

impl DelayNs for CycleDelay {
    fn delay_ns(&mut self, ns: u32) {
        // 64 cycles per µs; at least one cycle.
        let cycles = (ns / 16).max(1);
        #[cfg(target_arch = "arm")]
        cortex_m::asm::delay(cycles);
        #[cfg(target_arch = "riscv32")]
        riscv::asm::delay(cycles);
    }
}

/// Report the outcome of the example and stop.
pub fn finish(result: Result<usize>) -> ! {
    match result {
        #[cfg(feature = "defmt")]
        Ok(n) => defmt::info!("khal bring-up done: {=usize} notifications drained", n),
        #[cfg(not(feature = "defmt"))]
        Ok(_) => {}
        Err(e) => crate::bring_up::log_error("khal bring-up", &e),
    }
    loop {
        core::hint::spin_loop();
    }
}
