//! The per-engine init parameter types differ [002 §3 QUIRK]: a Pooling config
//! is not a DVE config.
use khal::engine::{self, PoolingParams};
use khal::DeviceAddr;
use khal::Cayman;
use khal_std::HeapMmio;

fn main() {
    let m = HeapMmio::new(DeviceAddr(0), 0x1000);
    let p = PoolingParams::new(DeviceAddr(0), DeviceAddr(0));
    let _ = engine::dve_init::<Cayman, _>(&m, Some(&p));
}
