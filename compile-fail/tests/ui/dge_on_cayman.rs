//! `dge_notif_enable` exists for SUNDA only [002 §4]: on CAYMAN it does not compile.
use khal::engine::dge_notif_enable;
use khal::DeviceAddr;
use khal::Cayman;
use khal_std::HeapMmio;

fn main() {
    let m = HeapMmio::new(DeviceAddr(0), 0x1000);
    let _ = dge_notif_enable::<Cayman, _>(&m, DeviceAddr(0), true);
}
