//! An operation without a bound arch cannot be written [002 §1]: there is no
//! "called before bind" state, the arch is a type the call must name.
use khal::engine::program_start;
use khal::DeviceAddr;
use khal_std::HeapMmio;

fn main() {
    let m = HeapMmio::new(DeviceAddr(0), 0x1000);
    let _ = program_start(&m, DeviceAddr(0), &[0; 5]);
}
