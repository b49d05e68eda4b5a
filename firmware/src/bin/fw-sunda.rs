//! Panic-freedom example for Sunda: the whole bring-up of [`khal_firmware::bring_up`]
//! on a `VolatileWindow`. It links only if no panic path is reachable.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use khal_arch_sunda::Sunda;
use khal_firmware::{bring_up, csr_demo, publish, window, CycleDelay};

#[entry]
fn main() -> ! {
    let r = window().and_then(|w| {
        csr_demo(&w)?;
        bring_up::<Sunda>(&w, &mut CycleDelay)
    });
    publish(r);
    loop {
        cortex_m::asm::wfi();
    }
}
