//! khal's on-target tests: one image per (target, arch), run under QEMU by
//! `scripts/on-target.sh`.
//!
//! The register window and the NQ rings live in the emulator's RAM; a device
//! stand-in ([`device::Device`]) plays the notification engine between drain
//! calls exactly as the host device model does (std-adapter/src/model/notific.rs):
//! entries with phase bits, the phase byte last, the tail moved as a byte offset.
//! Each test prints one line `test <image> <name> ... ok|FAILED`; the image exits
//! with 0 when every test passed, 1 otherwise (semihosting on Arm, the `virt`
//! machine's SiFive test device on RISC-V). No timing is asserted: QEMU is not
//! cycle-accurate, and every wait runs against a fake delay that counts.
#![no_std]
#![no_main]

#[path = "../../tests/golden/notific.rs"]
#[allow(dead_code)]
mod golden;

mod asynch;
mod csr;
mod device;
mod exec;
mod harness;
mod irq;
mod platform;
mod rec;
mod tests;

use khal::mmio::VolatileWindow;
use khal::DeviceAddr;

// The critical-section implementation khal's INTC shadows use (single core).
#[cfg(target_arch = "arm")]
use cortex_m as _;
#[cfg(target_arch = "riscv32")]
use riscv as _;

/// The device address the RAM register window answers from.
pub const WINDOW_BASE: DeviceAddr = DeviceAddr(0x3053_0000);
/// The window's length: 64 KiB of emulated RAM.
pub const WINDOW_BYTES: usize = 0x1_0000;

/// Run every test, print the summary, exit with the result.
fn run() -> ! {
    let Some(buf) = khal::static_dma!(WINDOW_BYTES) else {
        semihosting::println!("window buffer already taken");
        platform::exit(2)
    };
    let ptr = core::ptr::NonNull::from(&mut *buf).cast::<u32>();
    // SAFETY: `buf` is a `'static` RAM buffer of WINDOW_BYTES bytes handed out
    // once by `static_dma!`; from here on it is reached only through this window
    // (the `&mut` is not used again), single-threaded, and plain RAM tolerates a
    // read at any time.
    let win = match unsafe { VolatileWindow::new(ptr, WINDOW_BYTES, WINDOW_BASE) } {
        Ok(w) => w,
        Err(e) => {
            semihosting::println!("window refused: {:?}", e);
            platform::exit(2)
        }
    };
    let mut r = harness::Runner::new(&win);
    tests::all(&mut r);
    asynch::all(&mut r);
    csr::all(&mut r);
    let (passed, failed) = r.totals();
    semihosting::println!(
        "image {} done: {} passed, {} failed",
        platform::IMAGE,
        passed,
        failed
    );
    platform::exit(if failed == 0 { 0 } else { 1 })
}

#[cfg(target_arch = "arm")]
#[cortex_m_rt::entry]
fn main() -> ! {
    run()
}

#[cfg(target_arch = "riscv32")]
#[riscv_rt::entry]
fn main() -> ! {
    run()
}
