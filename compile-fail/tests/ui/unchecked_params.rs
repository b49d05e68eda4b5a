//! An arch's `dve_init` leaf only takes a config that passed the shim's check
//! [002 §1]: a `Checked` cannot be built outside khal-core.
use khal::engine::{Checked, DveOps, EngineParams};
use khal::DeviceAddr;
use khal::Cayman;
use khal_std::HeapMmio;

fn main() {
    let m = HeapMmio::new(DeviceAddr(0), 0x1000);
    let p = EngineParams { inst_debug_level: 99, ..EngineParams::new(DeviceAddr(0), DeviceAddr(0)) };
    let _ = Cayman::dve_init(&m, Checked(&p));
}
