//! khal on a MARIANA part, firmware side: the whole path from reset to drained
//! notifications, with the `khal` facade only (one arch feature) and no
//! `unsafe` but the one line that says where the register window is.
//!
//! 1. the register window: a `VolatileWindow` at its physical address;
//! 2. the NQ ring: a `StaticDma` over a buffer `static_dma!` hands out
//!    once (64-byte aligned, no `unsafe`); the device reaches it at the
//!    core's own address (`StaticDma::identity`);
//! 3. the generic bring-up (`common/bring_up.rs`): bind the arch, init the
//!    notification engine, configure and enable the NQ;
//! 4. drain it, each error handled (and logged through defmt with the
//!    `defmt` feature).
//! 5. the MSI-X interrupt controller [004 §4]: every vector masked but the
//!    one this firmware services, an errtrig line's interrupt unmasked, and a
//!    second NQ pointed at its mailbox through the arch's NQ mailbox map.
//!
//! Build: `cargo build --release -p khal-example-mariana --target thumbv7em-none-eabihf`
//! (or `riscv32imac-unknown-none-elf`; add `--features defmt` for logs).
#![no_std]
#![no_main]

#[path = "../../common/bring_up.rs"]
mod bring_up;
#[path = "../../common/firmware.rs"]
mod firmware;

use core::ptr::NonNull;

use khal::core::dma::StaticDma;
use khal::core::mmio::volatile::VolatileWindow;
use khal::core::notific::NqEntry;
use khal::{DeviceAddr, Error, Result};

/// Where this board maps the device's register window (a physical address of
/// the core), and its length.
const WINDOW_ADDR: usize = 0x4000_0000;
const WINDOW_BYTES: usize = 0x100_0000;
/// The device address the window's first byte answers.
const WINDOW_BASE: DeviceAddr = DeviceAddr(0);
/// The notification engine's block inside the window (board-specific).
const NOTIFIC: DeviceAddr = DeviceAddr(0x70_0000);

/// The register window. The example's only `unsafe`: khal cannot know that
/// this address range is the device.
fn window() -> Result<VolatileWindow> {
    let ptr = NonNull::new(WINDOW_ADDR as *mut u32).ok_or(Error::NoContext)?;
    // SAFETY: on this board WINDOW_ADDR .. + WINDOW_BYTES is the device's register
    // window: mapped for the whole program, reached only through this window
    // (no Rust reference to it exists), every dword readable at any time.
    unsafe { VolatileWindow::new(ptr, WINDOW_BYTES, WINDOW_BASE) }
}

fn run() -> Result<usize> {
    let window = window()?;
    let buf = khal::core::static_dma!(bring_up::RING_BYTES).ok_or(Error::OutOfMemory)?;
    let ring_mem = StaticDma::identity(buf);
    let mut delay = firmware::CycleDelay;
    let mut up =
        bring_up::bring_up::<khal::Selected, _, _, _>(window, NOTIFIC, ring_mem, &mut delay)?;
    intc(&up.engine)?;
    // Poll a few times (a real firmware loops, or drains from its interrupt).
    let mut out = [NqEntry::default(); 16];
    let mut drained = 0;
    for _ in 0..4 {
        drained += bring_up::drain(&mut up, &mut delay, &mut out)?;
    }
    Ok(drained)
}

/// The MSI-X block and errtrig block 0 inside the window (board-specific).
const MSIX: DeviceAddr = DeviceAddr(0x80_0000);
const ERRTRIG0: DeviceAddr = DeviceAddr(0x90_0000);
/// The MSI-X vector this firmware services.
const VECTOR: u32 = 0;

/// MARIANA's MSI-X INTC [004 §4]: mask every vector but [`VECTOR`], unmask
/// one errtrig line's interrupt, point NQ 3 at the mailbox of (block 0, queue 3).
fn intc<M: khal::Mmio>(engine: &khal::core::notific::NotificEngine<M>) -> Result<()> {
    use khal::core::intc::{EnsNq, ErrtrigLine, Intc, MsixIntc};
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
    firmware::finish(run())
}
