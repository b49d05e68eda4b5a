//! CAYMAN INTC is NOT TRACED [004 §1]: an INTC handle bound to CAYMAN does not compile.
use khal::intc::{Intc, MsixIntc};
use khal::DeviceAddr;
use khal::Cayman;

fn main() {
    let _ = Intc::<Cayman>::new(MsixIntc::new(DeviceAddr(0)));
}
