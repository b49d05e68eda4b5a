//! Panic-freedom example for Mariana: the whole bring-up of [`khal_firmware::bring_up`]
//! and the MSI-X INTC bring-up of [`khal_firmware::intc_bring_up`] on a `VolatileWindow`. It links only if no panic path is reachable.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use khal_arch_mariana::Mariana;

#[entry]
fn main() -> ! {
    khal_firmware::run::<Mariana>(|w| khal_firmware::intc_bring_up::<Mariana>(w).map(|_| ()))
}
