//! An NQ's token is handed out once and a ring takes it by value: a second
//! ring on the same token does not compile (and the token is not `Clone`).
use khal::notific::{BpMode, EngineConfig, NotificBlocks, NotificEngine, NqConfig, NqRing};
use khal::DeviceAddr;
use khal_std::{DmaBuf, HeapMmio};

fn main() {
    let m = HeapMmio::new(DeviceAddr(0), 0x1000);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(DeviceAddr(0)).unwrap();
    let mut e = NotificEngine::init(&m, &mut block, EngineConfig::tpb(BpMode::All)).unwrap();
    let q = e.queue(2).unwrap();
    let cfg = NqConfig::phase(256);
    let a = NqRing::host(DmaBuf::new(256, 64).unwrap(), q, cfg);
    let b = NqRing::host(DmaBuf::new(256, 64).unwrap(), q, cfg);
    let _ = (a, b);
}
