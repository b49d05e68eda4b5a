//! A ring keeps its engine's block borrowed: after the engine is dropped, the
//! block cannot be brought up again while the ring lives, so the old ring
//! cannot drain beside a new engine's queues.
use khal::notific::{BpMode, EngineConfig, NotificBlocks, NotificEngine, NqConfig, NqEntry, NqRing};
use khal::DeviceAddr;
use khal_std::{DmaBuf, HeapMmio};

fn main() {
    let m = HeapMmio::new(DeviceAddr(0), 0x1000);
    let ens_blocks = NotificBlocks::new();
    let mut ens = ens_blocks.take(DeviceAddr(0)).unwrap();
    let mut first = NotificEngine::init(&m, &mut ens, EngineConfig::tpb(BpMode::All)).unwrap();
    let cfg = NqConfig::phase(256);
    let mut ring = NqRing::host(DmaBuf::new(256, 64).unwrap(), first.queue(2).unwrap(), cfg).unwrap();
    drop(first);
    let again = NotificEngine::init(&m, &mut ens, EngineConfig::tpb(BpMode::All)).unwrap();
    let mut out = [NqEntry::default(); 4];
    let _ = ring.drain(&mut out);
    drop(again);
}
