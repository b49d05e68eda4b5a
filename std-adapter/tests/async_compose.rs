//! Async on the device model composes: an async drain with `SimDelay` and a
//! task posting notifications on the same single-threaded executor drain
//! everything (the delay yields to the executor, so the posting task runs
//! during the drain's waits), with or without the NQ interrupt wired; the
//! model is `Send + Sync`, so the posting task can run on another thread of
//! a multi-threaded runtime.

use std::sync::Arc;

use khal_core::asynch::{self, NqSignal};
use khal_core::notific::{
    BpMode, EngineConfig, Flavour, NotificBlock, NotificBlocks, NotificEngine, NqConfig, NqEntry,
    NqRing,
};
use khal_core::wait::Budget;
use khal_core::DeviceAddr;
use khal_std::model::notific::{entry_seq, NotificModel};
use khal_std::model::DeviceModel;
use khal_std::{DmaBuf, SimDelay};

const BASE: DeviceAddr = DeviceAddr(0x3053_5000);
const NQ: u32 = 2;
const ENTRIES: u32 = 16;
/// More than the ring holds: the drain has to keep up over several wraps.
const TOTAL: u32 = 100;
/// The drain's budget: a short one, so a drain that starved the posting
/// task would time out at once.
const BUDGET: Budget = Budget {
    period_us: 10,
    polls: 5,
};

/// A model with one ten-queue engine; with `irq`, NQ 2's interrupt raises
/// the returned signal (else nothing ever raises it).
fn device(irq: bool) -> (Arc<DeviceModel>, Arc<NqSignal>) {
    let m = Arc::new(DeviceModel::new());
    m.mount(BASE, NotificModel::new(Flavour::TenQueue)).unwrap();
    let signal = Arc::new(NqSignal::new());
    if irq {
        m.with_block(BASE, |nm: &mut NotificModel, _| {
            nm.set_interrupt(NQ, signal.clone())
        })
        .unwrap();
    }
    (m, signal)
}

fn post(m: &DeviceModel, n: u32) -> u32 {
    m.with_block(BASE, |nm: &mut NotificModel, bus| nm.post(bus, NQ, n))
        .unwrap()
        .unwrap()
}

/// Post `TOTAL` notifications in bursts of 3, yielding between bursts.
async fn poster(m: &DeviceModel) -> u32 {
    let mut posted = 0;
    while posted < TOTAL {
        posted += post(m, 3.min(TOTAL - posted));
        embassy_futures::yield_now().await;
    }
    posted
}

type Ring<'a> = NqRing<'a, &'a DmaBuf, &'a DeviceModel>;

/// An engine on `block` and an enabled 16-entry phase-mode ring on NQ 2 over `mem`.
fn ring<'a>(
    m: &'a DeviceModel,
    mem: &'a DmaBuf,
    block: &'a mut NotificBlock,
) -> (NotificEngine<'a, &'a DeviceModel>, Ring<'a>) {
    let mut engine = NotificEngine::init(m, block, EngineConfig::tpb(BpMode::None)).unwrap();
    let cfg = NqConfig::phase(ENTRIES * 16).with_max_batch(8);
    let mut ring = NqRing::configure_host(mem, engine.queue(NQ).unwrap(), cfg).unwrap();
    ring.enable(&mut engine, &mut SimDelay::new(m)).unwrap();
    (engine, ring)
}

/// Drain until `TOTAL` entries arrived; the sequence numbers seen.
async fn drainer<D: embedded_hal_async::delay::DelayNs>(
    mut ring: Ring<'_>,
    signal: &NqSignal,
    mut delay: D,
    budget: Budget,
) -> Vec<u64> {
    let mut out = [NqEntry::default(); 8];
    let mut seen = Vec::new();
    while seen.len() < TOTAL as usize {
        let n = asynch::drain(&mut ring, signal, &mut delay, budget, &mut out)
            .await
            .unwrap_or_else(|e| panic!("after {} entries: {e}", seen.len()));
        seen.extend(out[..n].iter().map(|e| entry_seq(e.bytes())));
    }
    seen
}

/// An async delay that never completes: only the NQ interrupt ends a wait
/// (real threads and simulated time do not mix).
struct NoTimer;

impl embedded_hal_async::delay::DelayNs for NoTimer {
    async fn delay_ns(&mut self, _ns: u32) {
        std::future::pending::<()>().await
    }
}

/// The ring's memory, attached to the model (the device writes it).
fn ring_memory(m: &DeviceModel) -> Arc<DmaBuf> {
    let mem = Arc::new(DmaBuf::new(ENTRIES as usize * 16, 4096).unwrap());
    m.attach_host(mem.clone());
    mem
}

#[test]
fn a_drain_and_a_posting_task_on_one_executor_drain_everything() {
    for irq in [false, true] {
        let (m, signal) = device(irq);
        let mem = ring_memory(&m);
        let blocks = NotificBlocks::new();
        let mut block = blocks.take(BASE).unwrap();
        let (_engine, ring) = ring(&m, &mem, &mut block);
        let (seen, posted) = embassy_futures::block_on(embassy_futures::join::join(
            drainer(ring, &signal, SimDelay::new(&*m), BUDGET),
            poster(&m),
        ));
        assert_eq!(posted, TOTAL, "irq {irq}");
        assert_eq!(seen, (0..u64::from(TOTAL)).collect::<Vec<_>>(), "irq {irq}");
    }
}

#[test]
#[cfg_attr(
    miri,
    ignore = "tokio's runtime under Miri: minutes for what the embassy test shows"
)]
fn the_same_on_a_tokio_current_thread_runtime() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let (m, signal) = device(false);
    let mem = ring_memory(&m);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let (_engine, ring) = ring(&m, &mem, &mut block);
    let drain = drainer(ring, &signal, SimDelay::new(&*m), BUDGET);
    let (seen, posted) = rt.block_on(async { tokio::join!(drain, poster(&m)) });
    assert_eq!(posted, TOTAL);
    assert_eq!(seen.len(), TOTAL as usize);
}

#[test]
#[cfg_attr(
    miri,
    ignore = "tokio's runtime under Miri: minutes; the model's Sync is a compile-time check"
)]
fn the_model_is_shared_with_a_task_on_another_thread() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .unwrap();
    let (m, signal) = device(true);
    let mem = ring_memory(&m);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let (_engine, ring) = ring(&m, &mem, &mut block);
    let seen = rt.block_on(async {
        let dev = Arc::clone(&m);
        // `tokio::spawn` needs `Send + 'static`: an `Arc<DeviceModel>` is.
        let posting = tokio::spawn(async move { poster(&dev).await });
        let budget = Budget {
            period_us: 1000,
            polls: u32::MAX,
        };
        let drain = drainer(ring, &signal, NoTimer, budget);
        let seen = tokio::time::timeout(std::time::Duration::from_secs(20), drain)
            .await
            .expect("every entry within 20 s");
        assert_eq!(posting.await.unwrap(), TOTAL);
        seen
    });
    assert_eq!(seen, (0..u64::from(TOTAL)).collect::<Vec<_>>());
}
