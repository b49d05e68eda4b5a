//! Panic-freedom example for Cayman: the whole bring-up of [`khal_firmware::bring_up`]
//! on a `VolatileWindow`. It links only if no panic path is reachable.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use khal_arch_cayman::Cayman;

#[entry]
fn main() -> ! {
    khal_firmware::run::<Cayman>(|_| Ok(()))
}
