//! A read-only register has no `write` (or `modify`): `nq_tail_ptr` is the
//! device's producer tail, which software only reads [004 §3], [FACTS §6].
use khal::notific::regs::{NQ_TAIL_PTR, TIMESTAMP_INC};
use khal::DeviceAddr;
use khal_std::HeapMmio;

fn main() {
    let m = HeapMmio::new(DeviceAddr(0), 0x1000);
    let _ = NQ_TAIL_PTR.at(3).unwrap().read(&m, DeviceAddr(0));
    let _ = NQ_TAIL_PTR.at(3).unwrap().write(&m, DeviceAddr(0), 0);
    let _ = TIMESTAMP_INC.modify(&m, DeviceAddr(0), |v| v + 1);
}
