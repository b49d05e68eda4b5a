//! The async NQ waits (`khal_core::asynch`) on the device model: a drain
//! pending on an empty ring is woken by the model's NQ interrupt when entries
//! land (and not before), drains them with one head write, keeps order over
//! wraps; a wait with nothing posted times out after exactly its budget of
//! simulated time; a late (slow DMA) phase byte wakes it when it lands; a
//! tail ring's wait works on its phase bits, then its blocking drain (its
//! async drain does not compile) [004 §3], [FACTS §11].

use std::future::Future;
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use khal_core::asynch::{self, NqSignal};
use khal_core::notific::{
    BpMode, ConsumeKind, EngineConfig, Flavour, NotificBlocks, NotificEngine, NqConfig, NqEntry,
    NqRing, Phase, Tail,
};
use khal_core::wait::Budget;
use khal_core::{DeviceAddr, Error};
use khal_std::model::notific::{entry_seq, NotificModel, QueueFault};
use khal_std::model::DeviceModel;
use khal_std::Advance;
use khal_std::{DmaBuf, SimDelay};

const BASE: DeviceAddr = DeviceAddr(0x3053_5000);
const NQ: u32 = 2;
const ENTRIES: u32 = 16;

/// An async delay that never completes: only the interrupt can end a wait.
struct NoTimer;
impl embedded_hal_async::delay::DelayNs for NoTimer {
    async fn delay_ns(&mut self, _ns: u32) {
        std::future::pending::<()>().await
    }
}

/// Counts the wakes of the task.
struct Wakes(AtomicUsize);
impl Wake for Wakes {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn post(m: &DeviceModel, n: u32) -> u32 {
    m.with_block(BASE, |nm: &mut NotificModel, bus| nm.post(bus, NQ, n))
        .unwrap()
        .unwrap()
}

type Ring<K = Phase> = NqRing<'static, &'static DmaBuf, &'static DeviceModel, K>;
type Engine = NotificEngine<'static, &'static DeviceModel>;

/// A device with one ten-queue engine whose NQ 2 interrupt raises the
/// returned signal, and an enabled 16-entry ring on NQ 2. The model and the
/// ring memory (and the model's notification block) are leaked: the engine
/// and the ring borrow them for the whole test.
fn setup<K: ConsumeKind>(
    kind: fn(u32) -> NqConfig<K>,
) -> (&'static DeviceModel, Engine, Ring<K>, Arc<NqSignal>) {
    let m: &'static DeviceModel = Box::leak(Box::new(DeviceModel::new()));
    m.mount(BASE, NotificModel::new(Flavour::TenQueue)).unwrap();
    let signal = Arc::new(NqSignal::new());
    m.with_block(BASE, |nm: &mut NotificModel, _| {
        nm.set_interrupt(NQ, signal.clone())
    })
    .unwrap();
    let blocks: &'static NotificBlocks = Box::leak(Box::new(NotificBlocks::new()));
    let block = Box::leak(Box::new(blocks.take(BASE).unwrap()));
    let mut engine = NotificEngine::init(m, block, EngineConfig::tpb(BpMode::None)).unwrap();
    let mem: &'static Arc<DmaBuf> = Box::leak(Box::new(Arc::new(
        DmaBuf::new(ENTRIES as usize * 16, 4096).unwrap(),
    )));
    m.attach_host(mem.clone());
    let cfg = kind(ENTRIES * 16).with_max_batch(8);
    let mut ring = NqRing::configure_host(&**mem, engine.queue(NQ).unwrap(), cfg).unwrap();
    ring.enable(&mut engine, &mut SimDelay::new(m)).unwrap();
    (m, engine, ring, signal)
}

/// Queue `NQ`'s `nq_head_ptr` as the model holds it: `+0x10C + 40 * idx`
/// on the 10-queue flavour [004 §3], [FACTS §6].
fn head(m: &DeviceModel, engine: &Engine) -> u32 {
    let _ = engine;
    let off = 0x10C + 40 * u64::from(NQ);
    m.with_block(BASE, |nm: &mut NotificModel, _| nm.reg(off))
        .unwrap()
}

#[test]
fn a_pending_drain_is_woken_by_the_nq_interrupt_and_drains_in_order() {
    let (m, engine, mut ring, signal) = setup(NqConfig::phase);
    let wakes = Arc::new(Wakes(AtomicUsize::new(0)));
    let waker = Waker::from(wakes.clone());
    let mut cx = Context::from_waker(&waker);
    let mut out = [NqEntry::default(); 8];
    let mut seq = 0u64;
    // Three rounds over a 16-entry ring: 3 x (5 + 6) = 33 entries, two wraps.
    for round in 0..3 {
        for batch in [5u32, 6] {
            let mut timer = NoTimer;
            let n = {
                let mut fut = pin!(asynch::drain(
                    &mut ring,
                    &signal,
                    &mut timer,
                    Budget::NQ_DEFAULT,
                    &mut out,
                ));
                // Nothing posted: pending, and nothing woke the task.
                let before = wakes.0.load(Ordering::SeqCst);
                assert!(fut.as_mut().poll(&mut cx).is_pending(), "round {round}");
                assert!(fut.as_mut().poll(&mut cx).is_pending(), "round {round}");
                assert_eq!(wakes.0.load(Ordering::SeqCst), before);
                // The device posts: its NQ interrupt wakes the task.
                assert_eq!(post(m, batch), batch);
                assert_eq!(wakes.0.load(Ordering::SeqCst), before + 1, "woken once");
                let Poll::Ready(n) = fut.as_mut().poll(&mut cx) else {
                    panic!("not ready after the interrupt");
                };
                n.unwrap()
            };
            assert_eq!(n, batch as usize);
            for e in &out[..n] {
                assert_eq!(entry_seq(e.bytes()), seq, "in order, none lost");
                seq += 1;
            }
            // One head write, at the consumer cursor (byte offset).
            assert_eq!(head(m, &engine), ring.next_index() * 16);
        }
    }
    assert_eq!(seq, 33);
}

#[test]
fn a_wait_with_nothing_posted_times_out_after_its_budget_of_simulated_time() {
    let (m, _engine, mut ring, signal) = setup(NqConfig::phase);
    let budget = Budget {
        period_us: 100,
        polls: 50,
    };
    let t0 = m.now_ns();
    let mut out = [NqEntry::default(); 4];
    let mut delay = SimDelay::new(m);
    let r = embassy_futures::block_on(asynch::drain(
        &mut ring, &signal, &mut delay, budget, &mut out,
    ));
    assert_eq!(r, Err(Error::Timeout("nq notification (async)")));
    assert_eq!(m.now_ns() - t0, budget.total_us() * 1000);
    assert_eq!(ring.next_index(), 0, "nothing consumed");
}

#[test]
fn a_late_phase_byte_wakes_the_wait_when_it_lands() {
    let (m, _engine, mut ring, signal) = setup(NqConfig::phase);
    m.with_block(BASE, |nm: &mut NotificModel, _| {
        nm.set_fault(
            NQ,
            QueueFault::SlowDma {
                delay_ns: 1_000_000,
            },
        )
    })
    .unwrap();
    assert_eq!(post(m, 3), 3);
    assert!(!signal.take(), "no interrupt before the phase bytes land");
    // Polled every 100 us of simulated time: the bytes land after 1 ms and
    // the drain gets all three, well within the budget.
    let t0 = m.now_ns();
    let mut out = [NqEntry::default(); 4];
    let mut delay = SimDelay::new(m);
    let n = embassy_futures::block_on(asynch::drain(
        &mut ring,
        &signal,
        &mut delay,
        Budget::NQ_DEFAULT,
        &mut out,
    ))
    .unwrap();
    assert!(n >= 1, "{n}");
    let waited = m.now_ns() - t0;
    assert!((1_000_000..=1_100_000).contains(&waited), "{waited} ns");
}

#[test]
fn a_tail_ring_waits_on_the_phase_bits_then_drains_blocking() {
    // The async drain of a tail ring does not compile
    // (compile-fail/tests/ui/async_drain_of_a_tail_ring.rs); the
    // interrupt-woken wait works on it (phase bits only), then its
    // blocking drain takes the entries.
    let (m, _engine, mut ring, signal) = setup(NqConfig::tail);
    // A wait of no period: `Ok` when the entry at the cursor is new now.
    let now = Budget {
        period_us: 1,
        polls: 0,
    };
    let has_new = |ring: &Ring<Tail>| {
        embassy_futures::block_on(asynch::wait_new(ring, &signal, &mut SimDelay::new(m), now))
            .is_ok()
    };
    assert!(!has_new(&ring));
    assert_eq!(post(m, 2), 2);
    let waits = embassy_futures::block_on(asynch::wait_new(
        &ring,
        &signal,
        &mut SimDelay::new(m),
        Budget::NQ_DEFAULT,
    ));
    assert_eq!(waits, Ok(0));
    assert!(has_new(&ring));
    let mut out = [NqEntry::default(); 4];
    assert_eq!(ring.drain(&mut SimDelay::new(m), &mut out), Ok(2));
    assert!(!has_new(&ring));
}
