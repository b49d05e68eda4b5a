//! The interrupt path of the async tests: a real interrupt, raised by
//! software where the device would raise its NQ's MSI-X, whose handler
//! signals [`NQ_IRQ`] as a firmware's NQ interrupt handler would.
//!
//! - Cortex-M4F (`mps2-an386`): the PendSV exception, pended through
//!   `ICSR.PENDSVSET`; taken at once in thread mode (nothing masks it).
//! - RISC-V (`virt`): the machine software interrupt, raised by writing 1 to
//!   hart 0's `msip` in the CLINT (`0x0200_0000` on QEMU's `virt` machine);
//!   the handler writes 0 back. Enabled by [`enable`] (`mie.MSIE`,
//!   `mstatus.MIE`).

use core::sync::atomic::{AtomicU32, Ordering};

use khal::asynch::NqSignal;

/// The signal the NQ interrupt handler raises.
pub static NQ_IRQ: NqSignal = NqSignal::new();

/// Interrupts taken since boot.
static TAKEN: AtomicU32 = AtomicU32::new(0);

/// Interrupts taken since boot.
pub fn taken() -> u32 {
    TAKEN.load(Ordering::SeqCst)
}

/// The handler's body: count, then signal the waiting task.
fn on_interrupt() {
    TAKEN.fetch_add(1, Ordering::SeqCst);
    NQ_IRQ.signal();
}

#[cfg(target_arch = "arm")]
#[cortex_m_rt::exception]
fn PendSV() {
    on_interrupt();
}

/// Let the interrupt be taken (nothing to do on Arm: PendSV is always enabled).
#[cfg(target_arch = "arm")]
pub fn enable() {}

/// Raise the interrupt; it has been taken when this returns.
#[cfg(target_arch = "arm")]
pub fn raise() {
    cortex_m::peripheral::SCB::set_pendsv();
    // The pended exception is taken before the next instruction completes.
    cortex_m::asm::dsb();
    cortex_m::asm::isb();
}

/// Hart 0's `msip` register in the `virt` machine's CLINT.
#[cfg(target_arch = "riscv32")]
const MSIP0: *mut u32 = 0x0200_0000 as *mut u32;

#[cfg(target_arch = "riscv32")]
#[export_name = "MachineSoft"]
extern "C" fn machine_soft() {
    // SAFETY: MSIP0 is the CLINT's msip register of hart 0 on QEMU's `virt`
    // machine (mapped I/O, not Rust memory); writing 0 clears the pending
    // software interrupt so the handler is not re-entered.
    unsafe { MSIP0.write_volatile(0) };
    on_interrupt();
}

/// Let the machine software interrupt be taken.
#[cfg(target_arch = "riscv32")]
pub fn enable() {
    // SAFETY: the only machine software interrupt source is `raise`, and its
    // handler (`MachineSoft` above) is installed by riscv-rt's trap vector;
    // the critical sections khal takes clear and restore MIE around themselves.
    unsafe {
        riscv::register::mie::set_msoft();
        riscv::register::mstatus::set_mie();
    }
}

/// Raise the interrupt; it has been taken when this returns.
#[cfg(target_arch = "riscv32")]
pub fn raise() {
    // SAFETY: see MSIP0: a 32-bit volatile store of 1 pends hart 0's machine
    // software interrupt.
    unsafe { MSIP0.write_volatile(1) };
    // Wait (bounded) for the handler: the store reaches the CLINT and the
    // interrupt is taken within a few instructions.
    let t0 = taken();
    for _ in 0..1000 {
        if taken() != t0 {
            break;
        }
        core::hint::spin_loop();
    }
}
