//! What a firmware example needs besides khal: a busy-wait delay, the panic
//! handler, the critical-section implementation, the defmt transport, the end.

use embedded_hal::delay::DelayNs;
use khal::Result;

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
