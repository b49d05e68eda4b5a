//! An arch's SP leaves only take a handle that passed `sp_init`'s check
//! [002 §2]: a `Checked` cannot be built outside khal-core.
use khal::engine::{Checked, SpHandle, Step, StpbOps};
use khal::DeviceAddr;
use khal::Cayman;
use khal_std::HeapMmio;

fn main() {
    let m = HeapMmio::new(DeviceAddr(0), 0x1000);
    let h = SpHandle { sp_mem: None, sp_regs: None, ens_regs: None, inst_debug_level: 99 };
    let _ = Cayman::sp_step(&m, Step::RegsInit, Checked(&h));
}
