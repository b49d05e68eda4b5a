//! Panic-freedom example for Mariana: the whole bring-up of [`khal_firmware::bring_up`]
//! and the MSI-X INTC bring-up of [`khal_firmware::intc_bring_up`] on a `VolatileWindow`. It links only if no panic path is reachable.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use khal_arch_mariana::Mariana;
use khal_firmware::{bring_up, csr_demo, intc_bring_up, publish, window, CycleDelay};

#[entry]
fn main() -> ! {
    let r = window().and_then(|w| {
        csr_demo(&w)?;
        intc_bring_up::<Mariana>(&w)?;
        bring_up::<Mariana>(&w, &mut CycleDelay)
    });
    publish(r);
    loop {
        cortex_m::asm::wfi();
    }
}
