//! khal on a MARIANA part, firmware side: the whole path from reset to drained
//! notifications, with the `khal` facade only (one arch feature). This file
//! holds the one line the compiler cannot check (where the register window
//! is) and what only MARIANA has; the rest is shared by the three firmware examples
//! (`common/firmware.rs`, `common/bring_up.rs`):
//!
//! 1. the register window: a `VolatileWindow` at its physical address;
//! 2. the NQ ring: a `StaticDma` over a buffer `static_dma!` hands out
//!    once (64-byte aligned, no unchecked code); the device reaches it at the
//!    core's own address (`StaticDma::identity`);
//! 3. the generic bring-up (`common/bring_up.rs`): bind the arch, init the
//!    notification engine, configure and enable the NQ;
//! 4. the MSI-X interrupt controller [004 §4]: every vector masked but the
//!    one this firmware services, an errtrig line's interrupt unmasked, and a
//!    second NQ pointed at its mailbox through the arch's NQ mailbox map;
//! 5. drain the NQ, each error handled (and logged through defmt with the
//!    `defmt` feature).
//!
//! Build: `cargo build --release -p khal-example-mariana --target thumbv7em-none-eabihf`
//! (or `riscv32imac-unknown-none-elf`; add `--features defmt` for logs).
#![no_std]
#![no_main]

#[path = "../../common/bring_up.rs"]
mod bring_up;
#[path = "../../common/firmware.rs"]
mod firmware;

use khal::mmio::volatile::VolatileWindow;
use khal::{DeviceAddr, Result};

/// The register window. The example's one unchecked line: khal cannot know
/// that this address range is the device.
fn window() -> Result<VolatileWindow> {
    let ptr = firmware::window_ptr()?;
    // SAFETY: on this board WINDOW_ADDR .. + WINDOW_BYTES is the device's register
    // window: mapped for the whole program, reached only through this window
    // (no Rust reference to it exists), every dword readable at any time.
    unsafe { VolatileWindow::new(ptr, firmware::WINDOW_BYTES, firmware::WINDOW_BASE) }
}

/// The MSI-X block and errtrig block 0 inside the window (board-specific).
const MSIX: DeviceAddr = DeviceAddr(0x80_0000);
const ERRTRIG0: DeviceAddr = DeviceAddr(0x90_0000);
/// The MSI-X vector this firmware services.
const VECTOR: u32 = 0;

/// MARIANA's MSI-X INTC [004 §4]: mask every vector but [`VECTOR`], unmask
/// one errtrig line's interrupt, point NQ 3 at the mailbox of (block 0, queue 3).
fn intc(engine: &khal::notific::NotificEngine<'_, &VolatileWindow>) -> Result<()> {
    use khal::intc::{EnsNq, ErrtrigLine, Intc, MsixIntc};
    // set_notific_queue_base takes its NQ from the handle's ENS of the block
    // (`user_errtrig_ens[block].nq`) [004 §4]: NQ 3 of `engine` for block 0.
    let intc = Intc::<khal::Selected>::new(
        MsixIntc::new(MSIX)
            .with_errtrig_base(0, ERRTRIG0)?
            .with_ens_nq(0, EnsNq::of(engine, 3)?)?,
    );
    let mmio = engine.mmio();
    for vec in 0..8 {
        if vec == VECTOR {
            intc.unmask_vector(mmio, vec)?;
        } else {
            intc.mask_vector(mmio, vec)?;
        }
    }
    // Errtrig block 0, group 0, unit 0, bit 0 (illustrative: the trigger-id
    // decoder is not traced).
    let line = ErrtrigLine::new(0, 0, 0, 0)?;
    intc.unmask_interrupt(mmio, line)?;
    intc.set_notific_queue_base(mmio, 0, 3)?;
    Ok(())
}

#[cfg_attr(target_arch = "arm", cortex_m_rt::entry)]
#[cfg_attr(target_arch = "riscv32", riscv_rt::entry)]
fn main() -> ! {
    firmware::finish(window().and_then(|w| firmware::run(w, intc)))
}
