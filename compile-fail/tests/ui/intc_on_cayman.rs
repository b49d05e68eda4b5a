//! CAYMAN INTC is NOT TRACED [004 §1]: an INTC handle bound to CAYMAN does not compile.
use khal::intc::Intc;
use khal::DeviceAddr;
use khal::Cayman;

fn main() {
    let _ = Intc::<Cayman>::new(DeviceAddr(0));
}
