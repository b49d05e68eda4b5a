//! `?` on a refused ring in a `main() -> Result<(), Box<dyn Error>>`-shaped
//! function: it compiles although the ring's memory and the MMIO handle are
//! borrowed locals, and the box holds the ring's error alone.

use std::error::Error;

use khal_core::notific::{NotificBlocks, NotificEngine, NqConfig, NqRing};
use khal_core::DeviceAddr;
use khal_std::{DmaBuf, HeapMmio};

const BASE: DeviceAddr = DeviceAddr(0x1000);

/// A `main` as a user writes it: a local register file, a local DMA buffer (the ring borrows both), a
/// ring asked for more entries than its memory holds.
fn main_shaped(entries: u32) -> Result<(), Box<dyn Error>> {
    let regs = HeapMmio::new(BASE, 0x1000);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut engine = NotificEngine::init_raw(&regs, Some(&mut block), 10, 0, 0)?;
    let buf = DmaBuf::new(256, 64)?;
    let cfg = NqConfig::phase(entries);
    let _ring = NqRing::host(&buf, engine.queue(2)?, cfg)?;
    Ok(())
}

/// The same with a `Send + Sync` box (threads, tokio's `JoinHandle`).
fn send_sync_shaped(entries: u32) -> Result<(), Box<dyn Error + Send + Sync>> {
    let regs = HeapMmio::new(BASE, 0x1000);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut engine = NotificEngine::init_raw(&regs, Some(&mut block), 10, 0, 0)?;
    let buf = DmaBuf::new(256, 64)?;
    let cfg = NqConfig::phase(entries);
    let _ring = NqRing::host(&buf, engine.queue(2)?, cfg)?;
    Ok(())
}

#[test]
fn a_refused_ring_converts_with_question_mark_into_box_dyn_error() {
    let e = main_shaped(512).unwrap_err();
    let khal = e
        .downcast_ref::<khal_core::Error>()
        .expect("the ring's error");
    assert_eq!(
        *khal,
        khal_core::Error::InvalidArgument("nq size larger than its memory")
    );
    assert_eq!(
        e.to_string(),
        "invalid argument: nq size larger than its memory"
    );
    let e = send_sync_shaped(512).unwrap_err();
    assert!(e.downcast_ref::<khal_core::Error>().is_some());
    // The config that fits is accepted.
    assert_eq!(main_shaped(16).map_err(|e| e.to_string()), Ok(()));
}
