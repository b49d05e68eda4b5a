//! Shared by the async examples (tokio, embassy): a device model whose
//! notification engine posts into an NQ ring, a task that posts, and an
//! async drain of everything posted, in order, with a budget on every wait.
//! Each example only picks its executor and its delay.

use std::future::Future;
use std::sync::Arc;

use embedded_hal_async::delay::DelayNs;
use khal::asynch::{self, NqSignal};
use khal::notific::{
    BpMode, EngineConfig, Flavour, NotificBlock, NotificEngine, NqConfig, NqEntry, NqRing,
};
use khal::std_adapter::model::notific::{entry_seq, NotificModel};
use khal::std_adapter::model::DeviceModel;
use khal::std_adapter::{DmaBuf, SimDelay};
use khal::wait::Budget;
use khal::DeviceAddr;

/// The notification engine's block on the model.
pub const NOTIFIC: DeviceAddr = DeviceAddr(0x3053_5000);
/// The queue drained.
pub const NQ: u32 = 2;
/// Entries in the ring; fewer than posted, so the drain keeps up over wraps.
pub const ENTRIES: u32 = 16;
/// Notifications posted in all.
pub const TOTAL: u32 = 1000;

/// A device model with one ten-queue engine whose NQ interrupt raises the
/// returned signal, and the ring's memory attached to it.
pub fn device() -> khal::Result<(DeviceModel, Arc<NqSignal>, Arc<DmaBuf>)> {
    let model = DeviceModel::new();
    model.mount(NOTIFIC, NotificModel::new(Flavour::TenQueue))?;
    let signal = Arc::new(NqSignal::new());
    model
        .with_block(NOTIFIC, |nm: &mut NotificModel, _| {
            nm.set_interrupt(NQ, signal.clone())
        })
        .ok_or(khal::Error::InvalidArgument("no notification engine"))?;
    let mem = Arc::new(DmaBuf::new(ENTRIES as usize * 16, 4096)?);
    model.attach_host(mem.clone());
    Ok((model, signal, mem))
}

/// The engine, up on `block` (the model's block at [`NOTIFIC`]), and an
/// enabled phase-mode ring on `NQ` over `mem`.
pub fn ring<'a>(
    model: &'a DeviceModel,
    mem: &'a DmaBuf,
    block: &'a mut NotificBlock,
) -> khal::Result<(
    NotificEngine<'a, &'a DeviceModel>,
    NqRing<'a, &'a DmaBuf, &'a DeviceModel>,
)> {
    let mut engine = NotificEngine::init(model, block, EngineConfig::tpb(BpMode::None))?;
    let cfg = NqConfig::phase(ENTRIES * 16).with_max_batch(8);
    let mut ring = NqRing::configure_host(mem, engine.queue(NQ)?, cfg)?;
    ring.enable(&mut engine, &mut SimDelay::new(model))?;
    Ok((engine, ring))
}

/// Post `TOTAL` notifications in bursts of 5, awaiting `pause()` after each
/// burst (the device's pace). Returns how many the device accepted.
pub async fn post_all<F: Future<Output = ()>>(
    model: &DeviceModel,
    mut pause: impl FnMut() -> F,
) -> khal::Result<u32> {
    let mut posted = 0;
    while posted < TOTAL {
        let n = 5.min(TOTAL - posted);
        posted += model
            .with_block(NOTIFIC, |nm: &mut NotificModel, bus| nm.post(bus, NQ, n))
            .ok_or(khal::Error::InvalidArgument("no notification engine"))??;
        pause().await;
    }
    Ok(posted)
}

/// Drain until `TOTAL` notifications arrived: each wait is woken by the NQ
/// interrupt or ends after `budget` on `delay` ([`khal::Error::Timeout`]).
/// Checks they arrive in order, none lost, none twice.
pub async fn drain_all<D: DelayNs>(
    ring: &mut NqRing<'_, &DmaBuf, &DeviceModel>,
    signal: &NqSignal,
    delay: &mut D,
    budget: Budget,
) -> khal::Result<u64> {
    let mut out = [NqEntry::default(); 8];
    let mut next = 0u64;
    while next < u64::from(TOTAL) {
        let n = asynch::drain(ring, signal, delay, budget, &mut out).await?;
        for e in &out[..n] {
            if entry_seq(e.bytes()) != next {
                return Err(khal::Error::InvalidArgument("a notification out of order"));
            }
            next += 1;
        }
    }
    Ok(next)
}
