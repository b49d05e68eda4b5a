//! khal on a MARIANA part, firmware side: the whole path from reset to drained
//! notifications, with the `khal` facade only (one arch feature). This file
//! holds the one line the compiler cannot check (where the register window
//! is); the rest is shared by the three firmware images
//! (`khal-example-firmware`, `examples/firmware/src/lib.rs`):
//!
//! 1. the register window: a `VolatileWindow` at its physical address;
//! 2. the bring-up of everything khal has over it (the CSR layer, the engines,
//!    the notification engine and its ops, NQ rings over `static_dma!`
//!    buffers, drained; phase and tail rings, and MARIANA's MSI-X INTC: vector and errtrig masks, a cause, an NQ pointed at its mailbox [004 §4]);
//! 3. the outcome logged through defmt with the `defmt` feature.
//!
//! The release build without `defmt` is khal's panic-never proof on MARIANA:
//! it links only if no panic path is reachable from that code.
//!
//! Build: `cargo build --release -p khal-example-mariana --target thumbv7em-none-eabihf`
//! (or `riscv32imac-unknown-none-elf`; add `--features defmt` for logs).
#![no_std]
#![no_main]

use khal::mmio::VolatileWindow;
use khal::Result;
use khal_example_firmware as firmware;

/// The register window. The image's one unchecked line: khal cannot know
/// that this address range is the device.
fn window() -> Result<VolatileWindow> {
    let (ptr, bytes, base) = firmware::window_parts()?;
    // SAFETY: on this board WINDOW_ADDR .. + WINDOW_BYTES is the device's register
    // window: mapped for the whole program, reached only through this window
    // (no Rust reference to it exists), every dword readable at any time.
    unsafe { VolatileWindow::new(ptr, bytes, base) }
}

#[cfg_attr(target_arch = "arm", cortex_m_rt::entry)]
#[cfg_attr(target_arch = "riscv32", riscv_rt::entry)]
fn main() -> ! {
    firmware::run::<khal::Selected>(window(), |w| {
        firmware::intc_bring_up::<khal::Selected>(w).map(drop)
    })
}
