//! Panic-freedom example for Sunda: the whole bring-up of [`khal_firmware::bring_up`]
//! on a `VolatileWindow`. It links only if no panic path is reachable.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use khal_arch_sunda::Sunda;

#[entry]
fn main() -> ! {
    khal_firmware::run::<Sunda>(|_| Ok(()))
}
