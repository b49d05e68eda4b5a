//! A ring cannot outlive the notification block its engine was brought up on.
use khal::notific::{BpMode, EngineConfig, NotificBlocks, NotificEngine, NqConfig, NqRing};
use khal::DeviceAddr;
use khal_std::{DmaBuf, HeapMmio};

fn main() {
    let m = HeapMmio::new(DeviceAddr(0), 0x1000);
    let blocks = NotificBlocks::new();
    let ring = {
        let mut ens = blocks.take(DeviceAddr(0)).unwrap();
        let mut e = NotificEngine::init(&m, &mut ens, EngineConfig::tpb(BpMode::All)).unwrap();
        let cfg = NqConfig::phase(256);
        NqRing::host(DmaBuf::new(256, 64).unwrap(), e.queue(2).unwrap(), cfg).unwrap()
    };
    let _ = ring.capacity();
}
