//! khal on a SUNDA part, firmware side: the whole path from reset to drained
//! notifications, with the `khal` facade only (one arch feature). This file
//! holds the one line the compiler cannot check (where the register window
//! is); the rest is shared by the three firmware examples
//! (`common/firmware.rs`, `common/bring_up.rs`):
//!
//! 1. the register window: a `VolatileWindow` at its physical address;
//! 2. the NQ ring: a `StaticDma` over a buffer `static_dma!` hands out
//!    once (64-byte aligned, no unchecked code); the device reaches it at the
//!    core's own address (`StaticDma::identity`);
//! 3. the generic bring-up (`common/bring_up.rs`): bind the arch, init the
//!    notification engine, configure and enable the NQ;
//! 4. drain it, each error handled (and logged through defmt with the
//!    `defmt` feature).
//!
//! Build: `cargo build --release -p khal-example-sunda --target thumbv7em-none-eabihf`
//! (or `riscv32imac-unknown-none-elf`; add `--features defmt` for logs).
#![no_std]
#![no_main]

#[path = "../../common/bring_up.rs"]
mod bring_up;
#[path = "../../common/firmware.rs"]
mod firmware;

use khal::mmio::volatile::VolatileWindow;
use khal::Result;

/// The register window. The example's one unchecked line: khal cannot know
/// that this address range is the device.
fn window() -> Result<VolatileWindow> {
    let ptr = firmware::window_ptr()?;
    // SAFETY: on this board WINDOW_ADDR .. + WINDOW_BYTES is the device's register
    // window: mapped for the whole program, reached only through this window
    // (no Rust reference to it exists), every dword readable at any time.
    unsafe { VolatileWindow::new(ptr, firmware::WINDOW_BYTES, firmware::WINDOW_BASE) }
}

#[cfg_attr(target_arch = "arm", cortex_m_rt::entry)]
#[cfg_attr(target_arch = "riscv32", riscv_rt::entry)]
fn main() -> ! {
    firmware::finish(window().and_then(|w| firmware::run(w, |_| Ok(()))))
}
