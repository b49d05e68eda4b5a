//! A notification block is lent to one engine at a time: a second engine on
//! it while the first one is in use does not compile (two engines would each
//! hand out NQ 2 and write `nq_enable` from their own shadows, disabling each
//! other's queues).
use khal::notific::{BpMode, EngineConfig, NotificBlocks, NotificEngine};
use khal::DeviceAddr;
use khal_std::HeapMmio;

fn main() {
    let m = HeapMmio::new(DeviceAddr(0), 0x1000);
    let ens_blocks = NotificBlocks::new();
    let mut ens = ens_blocks.take(DeviceAddr(0)).unwrap();
    let mut a = NotificEngine::init(&m, &mut ens, EngineConfig::tpb(BpMode::All)).unwrap();
    let mut b = NotificEngine::init(&m, &mut ens, EngineConfig::tpb(BpMode::All)).unwrap();
    let _ = (a.queue(2), b.queue(2));
}
