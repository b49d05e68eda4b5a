//! Dead-device tests: every public operation of khal that waits, against the
//! device model's stall, gone and never-landing faults, returns `Timeout` (or
//! the typed fault) within its budget plus 10% of SIMULATED time; a gone
//! device (all ones) or a lying tail is its typed fault at once, with no wait.
//!
//! Time is the model's own clock: each operation runs with a `SimDelay` over
//! the `DeviceModel`, and the test reads `DeviceModel::now_ns` before and
//! after, so a wait that slept more than its budget (or looped without
//! sleeping and without a bound) shows up here, not in wall-clock time.
//!
//! The waiting operations (every caller of `wait::poll_until`, the only
//! polling loop of khal, see `scripts/check-polling.sh`):
//! - `NqRing::reset` / `NqRing::enable`: wait for the tail to drain to 0;
//! - `NqRing::available_count`, `NqRing::drain`, `NqRing::drain_iter` (tail
//!   mode): wait for the last pending entry's phase to land;
//! - `dma::run_one_shot`, and `DveLoader::load` through it: wait for the
//!   ring's completion.
//!
//! Faults: `QueueFault::Stall` (the tail never moves), `DeviceModel::set_gone`
//! (every read all ones), `QueueFault::LieTail(0xDEADBEEF)` (a resetting
//! device's read), `QueueFault::SlowDma` beyond the budget (the phase byte
//! never lands in time), `DmaFault::NeverComplete`.

use std::sync::Arc;

use khal_arch_cayman::Cayman;
use khal_core::dma::{run_one_shot, DmaMemory, OneShotRing};
use khal_core::dve::{DveLoader, DvePlacement, DveTableSet, DVE_QUEUE_NAME};
use khal_core::family::TpbBases;
use khal_core::notific::{
    BpMode, EngineConfig, Flavour, NotificBlocks, NotificEngine, NqConfig, NqEntry, NqRing, Tail,
};
use khal_core::wait::Budget;
use khal_core::Fault;
use khal_core::{DeviceAddr, Error, Result};
use khal_std::model::dma_engine::{DmaEngineModel, DmaFault, ModelDmaQueue};
use khal_std::model::notific::{NotificModel, QueueFault};
use khal_std::model::DeviceModel;
use khal_std::Advance;
use khal_std::ModelAllocator;
use khal_std::{DmaBuf, SimDelay};

const BASE: DeviceAddr = DeviceAddr(0x3053_5000);

/// The budgets every case runs with: a short one, a fine-grained one, the
/// degenerate "check once" one, and the notes' default (one second).
const BUDGETS: [Budget; 4] = [
    Budget {
        period_us: 100,
        polls: 10,
    },
    Budget {
        period_us: 1,
        polls: 1000,
    },
    Budget {
        period_us: 100,
        polls: 0,
    },
    Budget::NQ_DEFAULT,
];

/// Simulated time `op` took on the model's clock: at most the budget + 10%.
fn timed<T>(m: &DeviceModel, budget: Budget, what: &str, op: impl FnOnce() -> T) -> T {
    let t0 = m.now_ns();
    let r = op();
    let took = m.now_ns() - t0;
    let limit = budget.total_us() * 1000 * 11 / 10;
    assert!(
        took <= limit,
        "{what}: {took} ns of simulated time, budget {} ns (+10% = {limit})",
        budget.total_us() * 1000
    );
    r
}

/// The failure must be a timeout of the named wait or a typed device fault.
fn dead(r: Result<impl std::fmt::Debug>, wait: &'static str, what: &str) {
    match r {
        Err(Error::Timeout(w)) => assert_eq!(w, wait, "{what}"),
        Err(Error::DeviceFault(_)) => {}
        other => panic!("{what}: expected Timeout({wait:?}) or a DeviceFault, got {other:?}"),
    }
}

/// A model with a NOTIFIC engine and a host ring of 8 entries, queue `idx`
/// enabled and 3 entries posted (so the tail is not 0).
struct Nq {
    m: DeviceModel,
    buf: Arc<DmaBuf>,
}

fn nq(flavour: Flavour) -> Nq {
    let m = DeviceModel::new();
    m.mount(BASE, NotificModel::new(flavour)).unwrap();
    let buf = Arc::new(DmaBuf::new(8 * 16, 4096).unwrap());
    m.attach_host(buf.clone());
    Nq { m, buf }
}

fn queues(flavour: Flavour) -> u32 {
    match flavour {
        Flavour::SingleQueue => 1,
        Flavour::TenQueue => 10,
    }
}

fn post(m: &DeviceModel, idx: u32, n: u32) {
    m.with_block(BASE, |nm: &mut NotificModel, bus| nm.post(bus, idx, n))
        .unwrap()
        .unwrap();
}

fn fault(m: &DeviceModel, idx: u32, f: QueueFault) {
    m.with_block(BASE, |nm: &mut NotificModel, _| nm.set_fault(idx, f))
        .unwrap();
}

/// The dead-device conditions of an NQ, applied after the ring is enabled and
/// entries are pending. `ResetReads`: the tail reads 0xDEADBEEF, as a device
/// in reset does.
#[derive(Debug, Clone, Copy)]
enum Dead {
    Stall,
    Gone,
    ResetReads,
    NeverLands,
}

const DEAD: [Dead; 4] = [Dead::Stall, Dead::Gone, Dead::ResetReads, Dead::NeverLands];

fn kill(m: &DeviceModel, idx: u32, d: Dead) {
    match d {
        Dead::Stall => fault(m, idx, QueueFault::Stall),
        Dead::Gone => m.set_gone(true),
        Dead::ResetReads => fault(m, idx, QueueFault::LieTail(0xDEAD_BEEF)),
        Dead::NeverLands => {}
    }
}

/// Run `op` on a tail-mode ring of queue `idx` made dead by `d`, for every
/// flavour and budget; `op` returns the wait it may time out in.
fn each_nq_case(
    name: &str,
    op: impl for<'a> Fn(
        &mut NqRing<'a, &'a DmaBuf, &'a DeviceModel, Tail>,
        &mut NotificEngine<'a, &'a DeviceModel>,
        &mut SimDelay<'_, DeviceModel>,
    ) -> (Result<u32>, &'static str),
) {
    for flavour in [Flavour::TenQueue, Flavour::SingleQueue] {
        for budget in BUDGETS {
            for d in DEAD {
                let r = nq(flavour);
                let idx = if flavour == Flavour::TenQueue { 4 } else { 0 };
                let blocks = NotificBlocks::new();
                let mut block = blocks.take(BASE).unwrap();
                let mut e =
                    NotificEngine::init_raw(&r.m, Some(&mut block), queues(flavour), 1, 0).unwrap();
                let cfg = NqConfig::tail(128).with_budget(budget);
                let mut ring = NqRing::configure_host(&*r.buf, e.queue(idx).unwrap(), cfg).unwrap();
                ring.enable(&mut e, &mut SimDelay::new(&r.m)).unwrap();
                if let Dead::NeverLands = d {
                    fault(
                        &r.m,
                        idx,
                        QueueFault::SlowDma {
                            delay_ns: 1_000_000_000_000,
                        },
                    );
                }
                post(&r.m, idx, 3);
                kill(&r.m, idx, d);
                let what = format!("{name} {flavour:?} {budget:?} {d:?}");
                let cursor = (ring.next_index(), ring.phase());
                let t0 = r.m.now_ns();
                let (res, wait) = timed(&r.m, budget, &what, || {
                    let mut delay = SimDelay::new(&r.m);
                    op(&mut ring, &mut e, &mut delay)
                });
                let took = r.m.now_ns() - t0;
                let resets = name == "reset" || name == "enable";
                match (d, resets) {
                    // Alive for this operation: a stalled engine's 3 entries
                    // have landed (a consumer gets them), and a slow DMA does
                    // not stop the tail from draining on a reset.
                    (Dead::Stall, false) | (Dead::NeverLands, true) => {
                        assert!(res.is_ok(), "{what}: {res:?}")
                    }
                    // A gone device or a resetting one's 0xDEADBEEF is its
                    // typed fault on the FIRST tail read, in every operation
                    // (the reset's tail-drain wait included): no sleep at all.
                    (Dead::Gone, _) => {
                        assert!(
                            matches!(res, Err(Error::DeviceFault(Fault::AllOnes { .. }))),
                            "{what}: {res:?}"
                        );
                        assert_eq!(took, 0, "{what}: waited for a gone device");
                    }
                    (Dead::ResetReads, _) => {
                        assert_eq!(
                            res,
                            Err(Error::DeviceFault(Fault::MisalignedTail {
                                tail: 0xDEAD_BEEF
                            })),
                            "{what}"
                        );
                        assert_eq!(took, 0, "{what}: waited for a lying device");
                    }
                    // A reset needs a stalled tail to read 0: it never does;
                    // a consumer waits for an entry that never lands.
                    (Dead::Stall, true) | (Dead::NeverLands, false) => {
                        assert_eq!(res, Err(Error::Timeout(wait)), "{what}")
                    }
                }
                if !resets && res.is_err() {
                    // A failed consumer call consumes nothing.
                    assert_eq!((ring.next_index(), ring.phase()), cursor, "{what}");
                }
            }
        }
    }
}

#[test]
fn nq_reset_times_out_within_budget_on_a_dead_device() {
    each_nq_case("reset", |ring, e, d| {
        (ring.reset(e, d).map(|_| 0), "nq tail drain")
    });
}

#[test]
fn nq_enable_times_out_within_budget_on_a_dead_device() {
    each_nq_case("enable", |ring, e, d| {
        (ring.enable(e, d).map(|_| 0), "nq tail drain")
    });
}

#[test]
fn nq_available_count_fails_within_budget_on_a_dead_device() {
    each_nq_case("available_count", |ring, _e, d| {
        (ring.available_count(d), "nq notification arrival")
    });
}

#[test]
fn nq_drain_fails_within_budget_on_a_dead_device() {
    each_nq_case("drain", |ring, _e, d| {
        let mut out = [NqEntry::default(); 8];
        (
            ring.drain(d, &mut out).map(|n| n as u32),
            "nq notification arrival",
        )
    });
}

#[test]
fn nq_drain_iter_fails_within_budget_on_a_dead_device() {
    each_nq_case("drain_iter", |ring, _e, d| {
        let r = ring.drain_iter(d, 8).and_then(|it| {
            let mut n = 0;
            for x in it {
                x?;
                n += 1;
            }
            Ok(n)
        });
        (r, "nq notification arrival")
    });
}

#[test]
fn a_gone_device_reads_all_ones_as_a_typed_fault_at_once() {
    // Tail mode on a gone device: the tail read is all ones, a typed fault,
    // with no wait at all (0 ns of simulated time).
    let r = nq(Flavour::TenQueue);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init(&r.m, &mut block, EngineConfig::tpb(BpMode::None)).unwrap();
    let cfg = NqConfig::tail(128);
    let mut ring = NqRing::configure_host(&*r.buf, e.queue(4).unwrap(), cfg).unwrap();
    ring.enable(&mut e, &mut SimDelay::new(&r.m)).unwrap();
    r.m.set_gone(true);
    let t0 = r.m.now_ns();
    let mut out = [NqEntry::default(); 4];
    let err = ring.drain(&mut SimDelay::new(&r.m), &mut out);
    assert_eq!(
        err,
        Err(Error::DeviceFault(Fault::all_ones(
            BASE.get() + 0x110 + 4 * 40
        )))
    );
    assert_eq!(r.m.now_ns(), t0);
    // The 0xDEADBEEF of a resetting device is a misaligned tail.
    r.m.set_gone(false);
    fault(&r.m, 4, QueueFault::LieTail(0xDEAD_BEEF));
    assert_eq!(
        ring.available_count(&mut SimDelay::new(&r.m)),
        Err(Error::DeviceFault(Fault::MisalignedTail {
            tail: 0xDEAD_BEEF
        }))
    );
    assert_eq!(r.m.now_ns(), t0);
}

#[test]
fn phase_mode_never_waits_even_on_a_dead_device() {
    for d in DEAD {
        let r = nq(Flavour::TenQueue);
        let blocks = NotificBlocks::new();
        let mut block = blocks.take(BASE).unwrap();
        let mut e = NotificEngine::init(&r.m, &mut block, EngineConfig::tpb(BpMode::None)).unwrap();
        let cfg = NqConfig::phase(128);
        let mut ring = NqRing::configure_host(&*r.buf, e.queue(2).unwrap(), cfg).unwrap();
        ring.enable(&mut e, &mut SimDelay::new(&r.m)).unwrap();
        kill(&r.m, 2, d);
        let t0 = r.m.now_ns();
        let mut out = [NqEntry::default(); 8];
        assert_eq!(ring.drain(&mut out), Ok(0), "{d:?}");
        assert_eq!(ring.available_count(), Ok(0));
        assert_eq!(r.m.now_ns(), t0, "{d:?}: phase mode slept");
    }
}

#[test]
fn dma_run_one_shot_fails_within_budget_on_a_dead_engine() {
    for budget in BUDGETS {
        for gone in [false, true] {
            let m = DeviceModel::new();
            let mut q = ModelDmaQueue::mount(&m, DmaEngineModel::DEFAULT_BASE, "dead", 4).unwrap();
            let src = Arc::new(DmaBuf::new(64, 64).unwrap());
            let dst = Arc::new(DmaBuf::new(64, 64).unwrap());
            m.attach_host(src.clone());
            m.attach_host(dst.clone());
            let mut ring = OneShotRing::<4>::new();
            ring.add_transfer(src.bus_addr(), DeviceAddr(dst.bus_addr()), 64)
                .unwrap();
            ring.add_completion().unwrap();
            if gone {
                m.set_gone(true);
            } else {
                q.with_engine(|e| e.fault = DmaFault::NeverComplete)
                    .unwrap();
            }
            let what = format!("run_one_shot {budget:?} gone={gone}");
            let r = timed(&m, budget, &what, || {
                run_one_shot(&mut q, &ring, &mut SimDelay::new(&m), budget).map_err(Error::from)
            });
            dead(r, "dma ring completion", &what);
        }
    }
}

#[test]
fn dve_load_fails_within_budget_on_a_dead_engine() {
    const T: &[u8] = &[0x5A; 256];
    for budget in BUDGETS {
        for gone in [false, true] {
            let m = DeviceModel::new();
            let mut alloc = ModelAllocator::with_default_arena(&m);
            let mut q =
                ModelDmaQueue::mount(&m, DmaEngineModel::DEFAULT_BASE, DVE_QUEUE_NAME, 8).unwrap();
            let mut loader = DveLoader::new();
            let p = DvePlacement::for_tile(Cayman::tile(0).unwrap()).unwrap();
            let t = DveTableSet::five(T, T, T, T);
            if gone {
                m.set_gone(true);
            } else {
                q.with_engine(|e| e.fault = DmaFault::NeverComplete)
                    .unwrap();
            }
            let what = format!("dve load {budget:?} gone={gone}");
            let r = timed(&m, budget, &what, || {
                loader.load(&mut alloc, &mut q, &mut SimDelay::new(&m), budget, &p, &t)
            });
            dead(r, "dma ring completion", &what);
            assert!(loader.resident().is_none(), "{what}");
        }
    }
}
