//! End to end on the device model: post and drain NQ notifications over several wraps, both
//! consumption modes, both engine flavours, host and device memory; and every fault's typed
//! error within its budget [004 §3].

use std::sync::Arc;

use khal_core::dma::DmaMemory;
use khal_core::notific::DeviceZero;
use khal_core::notific::{
    BpMode, ConsumeKind, ConsumeMode, EngineConfig, Flavour, NotificBlocks, NotificEngine,
    NqConfig, NqEntry, NqQueue, NqRing, Tail,
};
use khal_core::wait::Budget;
use khal_core::Fault;
use khal_core::{DeviceAddr, Error};
use khal_std::model::notific::{entry_seq, DeviceMemView, NotificModel, QueueFault};
use khal_std::model::DeviceModel;
use khal_std::Advance;
use khal_std::{Counting, DmaBuf, SimDelay};
use khal_tests::nq::Kind;

const BASE: DeviceAddr = DeviceAddr(0x3053_5000);
/// Where device-memory rings live in the model's HBM.
const HBM_RING: u64 = 0x40_0000_0000;

fn device(flavour: Flavour) -> DeviceModel {
    let m = DeviceModel::new();
    m.mount(BASE, NotificModel::new(flavour)).unwrap();
    m
}

fn num_queues(flavour: Flavour) -> u32 {
    match flavour {
        Flavour::SingleQueue => 1,
        Flavour::TenQueue => 10,
    }
}

fn post(m: &DeviceModel, idx: u32, n: u32) -> u32 {
    m.with_block(BASE, |nm: &mut NotificModel, bus| nm.post(bus, idx, n))
        .unwrap()
        .unwrap()
}

fn next_seq(m: &DeviceModel, idx: u32) -> u64 {
    m.with_block(BASE, |nm: &mut NotificModel, _| nm.next_seq(idx))
        .unwrap()
}

fn fault(m: &DeviceModel, idx: u32, f: QueueFault) {
    m.with_block(BASE, |nm: &mut NotificModel, _| nm.set_fault(idx, f))
        .unwrap();
}

/// What a consumer checks of every entry it receives.
struct Checker {
    cap: u64,
    received: u64,
    idx: u32,
    /// The model's sequence number of the first entry since the reset.
    seq0: u64,
}

impl Checker {
    /// Entry `received` since the reset: the next sequence number, the queue
    /// index, and the phase of its pass (1 on the first pass, flipping per wrap).
    fn check(&mut self, e: &NqEntry) {
        assert_eq!(
            entry_seq(e.bytes()),
            self.seq0 + self.received,
            "order/uniqueness"
        );
        assert_eq!(e.bytes()[0] as u32, self.idx);
        assert_eq!(
            e.phase(),
            (self.received / self.cap).is_multiple_of(2),
            "phase of its pass"
        );
        self.received += 1;
    }
}

/// Post and drain `wraps` full rings (plus a bit) on one queue; checks every
/// entry once, in order; the consumer phase flips exactly once per wrap; phase
/// mode reads no register; one head write per non-empty drain, none per empty poll.
fn run<R: DmaMemory, K: ConsumeKind, Z: DeviceZero>(
    m: &DeviceModel,
    engine: &NotificEngine<&Counting<&DeviceModel>>,
    ring: &mut NqRing<R, &Counting<&DeviceModel>, K, Z>,
    wraps: u64,
) {
    let counts = engine.mmio();
    let cap = ring.capacity() as u64;
    let idx = ring.queue().index();
    let total = wraps * cap + cap / 2;
    let mut chk = Checker {
        cap,
        received: 0,
        idx,
        seq0: next_seq(m, idx),
    };
    let mut d = SimDelay::new(m);
    let mut posted = 0u64;
    let mut flips = 0u64;
    let mut buf = [NqEntry::default(); 64];
    let mut step = 0u32;
    while chk.received < total {
        step += 1;
        let want = ((step * 7) % (cap as u32))
            .max(1)
            .min((total - posted) as u32);
        posted += post(m, idx, want) as u64;
        loop {
            counts.reset();
            let before = ring.phase();
            let n = ring.drain_with(&mut d, &mut buf).unwrap();
            let tail_reads = counts.reads();
            match K::MODE {
                ConsumeMode::Phase => assert_eq!(tail_reads, 0, "phase mode reads no register"),
                ConsumeMode::Tail => assert!(tail_reads <= 1, "one tail read per drain at most"),
            }
            assert_eq!(
                counts.writes(),
                u64::from(n > 0),
                "one head write iff non-empty"
            );
            if ring.phase() != before {
                flips += 1;
            }
            for e in buf.iter().take(n) {
                chk.check(e);
            }
            if n == 0 {
                break;
            }
        }
        assert_eq!(chk.received, posted, "nothing lost");
        if posted >= total {
            break;
        }
    }
    assert_eq!(chk.received, total);
    assert_eq!(flips, total / cap, "the phase flips exactly once per wrap");
    assert_eq!(ring.phase(), (total / cap) % 2 == 1);
    // The head register holds the cursor as a byte offset [FACTS §11].
    assert_eq!(ring.next_index() as u64, total % cap);
}

fn host_case<K: ConsumeKind>(flavour: Flavour, idx: u32, kind: fn(u32) -> NqConfig<K>, cap: u32) {
    let m = device(flavour);
    let buf = Arc::new(DmaBuf::new(cap as usize * 16, 4096).unwrap());
    m.attach_host(buf.clone());
    let c = Counting::new(&m);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init_raw(&c, Some(&mut block), num_queues(flavour), 1, 0).unwrap();
    let mut ring = NqRing::configure_host(&*buf, e.queue(idx).unwrap(), kind(cap * 16)).unwrap();
    ring.enable(&mut e, &mut SimDelay::new(&m)).unwrap();
    run(&m, &e, &mut ring, 3);
    // A reset mid-stream restarts both sides at slot 0, phase 0.
    post(&m, idx, 2);
    ring.reset(&mut e, &mut SimDelay::new(&m)).unwrap();
    assert_eq!((ring.next_index(), ring.phase()), (0, false));
    let mut zero = vec![1u8; cap as usize * 16];
    buf.read(0, &mut zero).unwrap();
    assert!(zero.iter().all(|&b| b == 0), "ring zeroed");
}

#[test]
fn ten_queue_phase_mode_three_wraps() {
    host_case(Flavour::TenQueue, 2, NqConfig::phase, 16);
    host_case(Flavour::TenQueue, 9, NqConfig::phase, 64);
}

#[test]
fn ten_queue_tail_mode_three_wraps() {
    host_case(Flavour::TenQueue, 5, NqConfig::tail, 16);
    host_case(Flavour::TenQueue, 0, NqConfig::tail, 8);
}

#[test]
fn single_queue_both_modes_three_wraps() {
    host_case(Flavour::SingleQueue, 0, NqConfig::phase, 16);
    host_case(Flavour::SingleQueue, 0, NqConfig::tail, 32);
}

#[test]
fn device_memory_ring_tail_mode_three_wraps_and_zero_callback() {
    for flavour in [Flavour::TenQueue, Flavour::SingleQueue] {
        let m = device(flavour);
        let c = Counting::new(&m);
        let blocks = NotificBlocks::new();
        let mut block = blocks.take(BASE).unwrap();
        let mut e =
            NotificEngine::init_raw(&c, Some(&mut block), num_queues(flavour), 0, 0).unwrap();
        let size = 16 * 16;
        let view = DeviceMemView::new(&m, HBM_RING, size);
        let zeroed = std::cell::Cell::new(None);
        let zero = |addr: u64, len: usize| {
            zeroed.set(Some((addr, len)));
            m.write_mem(addr, &vec![0; len])
        };
        let mut ring =
            NqRing::configure_device(view, zero, e.queue(0).unwrap(), NqConfig::tail(size as u32))
                .unwrap();
        ring.enable(&mut e, &mut SimDelay::new(&m)).unwrap();
        assert_eq!(zeroed.get(), Some((HBM_RING, size)));
        run(&m, &e, &mut ring, 3);
    }
}

#[test]
fn drain_iter_commits_once_and_matches_drain() {
    let m = device(Flavour::TenQueue);
    let buf = Arc::new(DmaBuf::new(16 * 16, 4096).unwrap());
    m.attach_host(buf.clone());
    let c = Counting::new(&m);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init(&c, &mut block, EngineConfig::tpb(BpMode::None)).unwrap();
    // One queue, a ring per mode: the token goes from one ring to the next.
    let queue = e.queue(3).unwrap();
    let queue = iter_case(&m, &c, &mut e, &buf, queue, NqConfig::phase);
    iter_case(&m, &c, &mut e, &buf, queue, NqConfig::tail);
}

/// The counted model the per-kind cases below run on.
type Meter<'c, 'm> = &'c Counting<&'m DeviceModel>;

/// [`drain_iter_commits_once_and_matches_drain`] on a ring of `kind`'s kind
/// on `queue`, given back.
fn iter_case<'d, 'c, 'm, K: Kind>(
    m: &'m DeviceModel,
    c: Meter<'c, 'm>,
    e: &mut NotificEngine<'d, Meter<'c, 'm>>,
    buf: &DmaBuf,
    queue: NqQueue<'d, Meter<'c, 'm>>,
    kind: fn(u32) -> NqConfig<K>,
) -> NqQueue<'d, Meter<'c, 'm>> {
    let mode = K::MODE;
    {
        let mut ring = NqRing::configure_host(buf, queue, kind(256)).unwrap();
        ring.enable(e, &mut SimDelay::new(m)).unwrap();
        let mut chk = Checker {
            cap: 16,
            received: 0,
            idx: 3,
            seq0: next_seq(m, 3),
        };
        for _ in 0..6 {
            assert_eq!(post(m, 3, 9), 9);
            c.reset();
            let it = K::drain_iter(&mut ring, &mut SimDelay::new(m), 100).unwrap();
            let got: Vec<NqEntry> = it.map(|r| r.unwrap()).collect();
            // `collect` consumed and dropped the iterator: one head write.
            assert_eq!(c.writes(), 1);
            assert_eq!(got.len(), 4, "default batch cap: capacity / 4");
            got.iter().for_each(|e| chk.check(e));
            c.reset();
            let mut rest = 0;
            loop {
                let mut it = K::drain_iter(&mut ring, &mut SimDelay::new(m), 100).unwrap();
                let mut n = 0;
                for r in it.by_ref() {
                    chk.check(&r.unwrap());
                    n += 1;
                }
                assert_eq!(it.finish(), Ok(n));
                // Finished: nothing more is yielded or committed.
                let w = c.writes();
                assert_eq!(it.finish(), Ok(0));
                assert!(it.next().is_none());
                assert_eq!(c.writes(), w);
                rest += n;
                if n == 0 {
                    break;
                }
            }
            assert_eq!(rest, 5);
        }
        // Empty polls: no head write.
        c.reset();
        assert_eq!(
            K::drain_iter(&mut ring, &mut SimDelay::new(m), 100)
                .unwrap()
                .count(),
            0
        );
        assert_eq!(c.writes(), 0);
        assert_eq!(ring.drain_with(&mut SimDelay::new(m), &mut []), Ok(0));
        assert_eq!(
            (c.reads(), c.writes()),
            (u64::from(mode == ConsumeMode::Tail), 0)
        );
        ring.reset(e, &mut SimDelay::new(m)).unwrap();
        ring.into_parts().1
    }
}

#[test]
fn available_count_both_modes() {
    let m = device(Flavour::TenQueue);
    let buf = Arc::new(DmaBuf::new(8 * 16, 4096).unwrap());
    m.attach_host(buf.clone());
    let c = Counting::new(&m);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init(&c, &mut block, EngineConfig::tpb(BpMode::None)).unwrap();
    // One queue, a ring per mode: the token goes from one ring to the next.
    let queue = e.queue(4).unwrap();
    let queue = count_case(&m, &c, &mut e, &buf, queue, NqConfig::phase);
    let queue = count_case(&m, &c, &mut e, &buf, queue, NqConfig::tail);
    // Phase mode, cursor at slot 0, every entry new (written here: the model
    // leaves a slot free): one run of the capacity, and no run after a wrap
    // (the walk ends after the first run).
    let mut ring = NqRing::configure_host(&*buf, queue, NqConfig::phase(128)).unwrap();
    ring.enable(&mut e, &mut SimDelay::new(&m)).unwrap();
    for slot in 0..8 {
        buf.write(slot * 16 + 3, &[0x80]).unwrap();
    }
    assert_eq!(ring.available_count(), Ok(8));
}

/// [`available_count_both_modes`] on a ring of `kind`'s kind on `queue`,
/// given back.
fn count_case<'d, 'c, 'm, K: Kind>(
    m: &'m DeviceModel,
    c: Meter<'c, 'm>,
    e: &mut NotificEngine<'d, Meter<'c, 'm>>,
    buf: &DmaBuf,
    queue: NqQueue<'d, Meter<'c, 'm>>,
    kind: fn(u32) -> NqConfig<K>,
) -> NqQueue<'d, Meter<'c, 'm>> {
    let mut ring = NqRing::configure_host(buf, queue, kind(128)).unwrap();
    ring.enable(e, &mut SimDelay::new(m)).unwrap();
    let mut d = SimDelay::new(m);
    assert_eq!(K::available(&mut ring, &mut d), Ok(0));
    post(m, 4, 5);
    c.reset();
    assert_eq!(K::available(&mut ring, &mut d), Ok(5));
    assert_eq!(c.reads(), u64::from(K::MODE == ConsumeMode::Tail));
    let mut out = [NqEntry::default(); 8];
    assert_eq!(ring.drain_with(&mut d, &mut out), Ok(2)); // cap: 8 / 4
    post(m, 4, 4); // wraps
    assert_eq!(K::available(&mut ring, &mut d), Ok(7));
    ring.reset(e, &mut d).unwrap();
    ring.into_parts().1
}

// ---- faults: each returns its typed error within its budget ----

const SMALL: Budget = Budget {
    period_us: 100,
    polls: 50,
};

fn within_budget(d: &SimDelay<'_, DeviceModel>, b: Budget) {
    assert!(
        d.slept_ns() <= b.total_us() * 1000 * 11 / 10,
        "slept {} ns, budget {} us",
        d.slept_ns(),
        b.total_us()
    );
}

struct Rig {
    m: DeviceModel,
    buf: Arc<DmaBuf>,
}

fn rig() -> Rig {
    let m = device(Flavour::TenQueue);
    let buf = Arc::new(DmaBuf::new(8 * 16, 4096).unwrap());
    m.attach_host(buf.clone());
    Rig { m, buf }
}

#[test]
fn misaligned_and_out_of_ring_tails_are_typed_faults_with_no_head_write() {
    let r = rig();
    let c = Counting::new(&r.m);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init(&c, &mut block, EngineConfig::tpb(BpMode::None)).unwrap();
    let cfg = NqConfig::tail(128).with_budget(SMALL);
    let mut ring = NqRing::configure_host(&*r.buf, e.queue(6).unwrap(), cfg).unwrap();
    ring.enable(&mut e, &mut SimDelay::new(&r.m)).unwrap();
    post(&r.m, 6, 3);
    let mut out = [NqEntry::default(); 4];
    for (lie, want) in [
        (0x18, khal_core::Fault::MisalignedTail { tail: 0x18 }),
        (
            128,
            khal_core::Fault::TailOutOfRing {
                tail: 128,
                ring_bytes: 128,
            },
        ),
        (
            0x1000_0000,
            khal_core::Fault::TailOutOfRing {
                tail: 0x1000_0000,
                ring_bytes: 128,
            },
        ),
    ] {
        fault(&r.m, 6, QueueFault::LieTail(lie));
        c.reset();
        let mut d = SimDelay::new(&r.m);
        assert_eq!(ring.drain(&mut d, &mut out), Err(Error::DeviceFault(want)));
        assert_eq!(ring.available_count(&mut d), Err(Error::DeviceFault(want)));
        assert_eq!(c.writes(), 0, "no head write on a fault");
        assert_eq!(d.slept_ns(), 0);
        assert_eq!(ring.next_index(), 0);
    }
    // The truth again: all three, in order.
    fault(&r.m, 6, QueueFault::None);
    assert_eq!(ring.drain(&mut SimDelay::new(&r.m), &mut out), Ok(2));
    assert_eq!(entry_seq(out[0].bytes()), 0);
}

#[test]
fn a_device_more_than_a_ring_ahead_is_a_typed_fault() {
    let r = rig();
    let c = Counting::new(&r.m);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init(&c, &mut block, EngineConfig::tpb(BpMode::None)).unwrap();
    let cfg = NqConfig::tail(128).with_max_batch(2);
    let mut ring = NqRing::configure_host(&*r.buf, e.queue(1).unwrap(), cfg).unwrap();
    ring.enable(&mut e, &mut SimDelay::new(&r.m)).unwrap();
    assert_eq!(post(&r.m, 1, 5), 5);
    let mut out = [NqEntry::default(); 8];
    let mut d = SimDelay::new(&r.m);
    assert_eq!(ring.drain(&mut d, &mut out), Ok(2));
    // The producer ignores the head and laps the consumer.
    fault(&r.m, 1, QueueFault::Overrun);
    assert_eq!(post(&r.m, 1, 8), 8);
    c.reset();
    let got = ring.drain(&mut d, &mut out);
    assert_eq!(
        got,
        Err(Error::DeviceFault(khal_core::Fault::TooFarAhead {
            claimed: 2,
            capacity: 8
        }))
    );
    assert_eq!(c.writes(), 0);
    assert_eq!(ring.next_index(), 2, "nothing consumed on a fault");
}

#[test]
fn stalled_tail_makes_reset_time_out_within_budget() {
    let r = rig();
    let c = Counting::new(&r.m);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init(&c, &mut block, EngineConfig::tpb(BpMode::None)).unwrap();
    let cfg = NqConfig::tail(128).with_budget(SMALL);
    let mut ring = NqRing::configure_host(&*r.buf, e.queue(2).unwrap(), cfg).unwrap();
    ring.enable(&mut e, &mut SimDelay::new(&r.m)).unwrap();
    post(&r.m, 2, 3);
    fault(&r.m, 2, QueueFault::Stall);
    let mut d = SimDelay::new(&r.m);
    assert_eq!(
        ring.reset(&mut e, &mut d),
        Err(Error::Timeout("nq tail drain"))
    );
    within_budget(&d, SMALL);
    assert_eq!(d.slept_ns(), SMALL.total_us() * 1000);
    // The default budget is the notes' 100 µs × 10000 (one simulated second).
    // The queue's token back from the first ring, for a ring with the default budget.
    let (mem, queue) = ring.into_parts();
    let mut ring = NqRing::host(mem, queue, NqConfig::tail(128)).unwrap();
    let mut d = SimDelay::new(&r.m);
    assert_eq!(
        ring.reset(&mut e, &mut d),
        Err(Error::Timeout("nq tail drain"))
    );
    within_budget(&d, Budget::NQ_DEFAULT);
    assert_eq!(d.slept_ns(), 1_000_000_000);
}

#[test]
fn slow_dma_is_waited_for_within_budget_or_times_out() {
    let r = rig();
    let c = Counting::new(&r.m);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init(&c, &mut block, EngineConfig::tpb(BpMode::None)).unwrap();
    let cfg = NqConfig::tail(128).with_budget(SMALL);
    let mut ring = NqRing::configure_host(&*r.buf, e.queue(7).unwrap(), cfg).unwrap();
    ring.enable(&mut e, &mut SimDelay::new(&r.m)).unwrap();
    let mut out = [NqEntry::default(); 8];

    // Lands after 350 µs: the tail-mode wait polls every 100 µs and gets it.
    fault(&r.m, 7, QueueFault::SlowDma { delay_ns: 350_000 });
    post(&r.m, 7, 2);
    let mut d = SimDelay::new(&r.m);
    assert_eq!(ring.drain(&mut d, &mut out), Ok(2));
    assert_eq!(d.slept_ns(), 400_000);
    assert_eq!(entry_seq(out[1].bytes()), 1);

    // Never within the budget: Timeout, nothing consumed, no head write.
    fault(
        &r.m,
        7,
        QueueFault::SlowDma {
            delay_ns: 10_000_000_000,
        },
    );
    post(&r.m, 7, 1);
    c.reset();
    let mut d = SimDelay::new(&r.m);
    assert_eq!(
        ring.drain(&mut d, &mut out),
        Err(Error::Timeout("nq notification arrival"))
    );
    within_budget(&d, SMALL);
    assert_eq!((c.reads(), c.writes()), (1, 0));
    assert_eq!(ring.next_index(), 2);
}

#[test]
fn slow_dma_in_phase_mode_is_simply_not_yet_there() {
    let r = rig();
    let c = Counting::new(&r.m);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init(&c, &mut block, EngineConfig::tpb(BpMode::None)).unwrap();
    let mut ring =
        NqRing::configure_host(&*r.buf, e.queue(3).unwrap(), NqConfig::phase(128)).unwrap();
    ring.enable(&mut e, &mut SimDelay::new(&r.m)).unwrap();
    fault(&r.m, 3, QueueFault::SlowDma { delay_ns: 1_000 });
    post(&r.m, 3, 2);
    let mut out = [NqEntry::default(); 8];
    c.reset();
    assert_eq!(ring.drain(&mut out), Ok(0));
    assert_eq!((c.reads(), c.writes()), (0, 0));
    r.m.advance_ns(1_000);
    assert_eq!(ring.drain(&mut out), Ok(2));
    assert_eq!((c.reads(), c.writes()), (0, 1));
}

#[test]
fn a_gone_device_is_a_typed_fault_at_once() {
    let r = rig();
    let c = Counting::new(&r.m);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init(&c, &mut block, EngineConfig::tpb(BpMode::None)).unwrap();
    let cfg = NqConfig::tail(128).with_budget(SMALL);
    let mut ring = NqRing::configure_host(&*r.buf, e.queue(8).unwrap(), cfg).unwrap();
    ring.enable(&mut e, &mut SimDelay::new(&r.m)).unwrap();
    post(&r.m, 8, 1);
    r.m.set_gone(true);
    let mut out = [NqEntry::default(); 8];
    let mut d = SimDelay::new(&r.m);
    let tail_addr = BASE.get() + 0x110 + 8 * 40;
    assert_eq!(
        ring.drain(&mut d, &mut out),
        Err(Error::DeviceFault(khal_core::Fault::all_ones(tail_addr)))
    );
    // The reset's tail-drain wait sees it on its first read: the typed
    // fault, not a timeout after the budget.
    assert_eq!(
        ring.reset(&mut e, &mut d),
        Err(Error::DeviceFault(khal_core::Fault::all_ones(tail_addr)))
    );
    assert_eq!(d.slept_ns(), 0);
    // Phase mode reads no register while draining, so it cannot see the
    // device go; it sees what landed in host memory and nothing more ...
    let (mem, queue) = ring.into_parts();
    let mut p = NqRing::host(mem, queue, NqConfig::phase(128)).unwrap();
    c.reset();
    assert_eq!(p.drain(&mut out), Ok(1));
    assert_eq!(entry_seq(out[0].bytes()), 0);
    assert_eq!(p.drain(&mut out), Ok(0));
    assert_eq!(c.reads(), 0);
    // ... until it asks: one checked tail read names the fault at once.
    assert_eq!(
        p.tail_offset(),
        Err(Error::DeviceFault(khal_core::Fault::all_ones(tail_addr)))
    );
    assert_eq!((c.reads(), d.slept_ns()), (1, 0));
    assert_eq!(
        p.reset(&mut e, &mut d),
        Err(Error::DeviceFault(khal_core::Fault::all_ones(tail_addr)))
    );
    assert_eq!(d.slept_ns(), 0);
}

#[test]
fn a_lying_tail_ends_the_reset_wait_at_once_with_its_fault() {
    // Phase mode never reads the tail while draining; the reset's wait does,
    // and a value no honest device shows is its typed fault at once.
    let r = rig();
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init(&r.m, &mut block, EngineConfig::tpb(BpMode::None)).unwrap();
    let cfg = NqConfig::phase(128).with_budget(SMALL);
    let mut ring = NqRing::configure_host(&*r.buf, e.queue(0).unwrap(), cfg).unwrap();
    ring.enable(&mut e, &mut SimDelay::new(&r.m)).unwrap();
    post(&r.m, 0, 3);
    for (lie, want) in [
        (0x18, khal_core::Fault::MisalignedTail { tail: 0x18 }),
        (
            0x80,
            khal_core::Fault::TailOutOfRing {
                tail: 0x80,
                ring_bytes: 128,
            },
        ),
        (
            0xDEAD_BEEF,
            khal_core::Fault::MisalignedTail { tail: 0xDEAD_BEEF },
        ),
    ] {
        fault(&r.m, 0, QueueFault::LieTail(lie));
        let mut d = SimDelay::new(&r.m);
        assert_eq!(ring.reset(&mut e, &mut d), Err(Error::DeviceFault(want)));
        assert_eq!(d.slept_ns(), 0, "{lie:#x}: waited");
    }
    // An honest in-ring tail that does not drain is still waited for.
    fault(&r.m, 0, QueueFault::LieTail(0x30));
    let mut d = SimDelay::new(&r.m);
    assert_eq!(
        ring.reset(&mut e, &mut d),
        Err(Error::Timeout("nq tail drain"))
    );
    assert_eq!(d.slept_ns(), SMALL.total_us() * 1000);
}

#[test]
fn a_tail_that_moves_backwards_is_a_typed_fault_at_once() {
    let r = rig();
    let c = Counting::new(&r.m);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init(&c, &mut block, EngineConfig::tpb(BpMode::None)).unwrap();
    let cfg = NqConfig::tail(128).with_budget(SMALL).with_max_batch(8);
    let mut ring = NqRing::configure_host(&*r.buf, e.queue(5).unwrap(), cfg).unwrap();
    ring.enable(&mut e, &mut SimDelay::new(&r.m)).unwrap();
    assert_eq!(post(&r.m, 5, 5), 5);
    let mut d = SimDelay::new(&r.m);
    assert_eq!(ring.available_count(&mut d), Ok(5));
    // The tail goes back from 0x50 to 0x20 while the 5 entries it showed
    // are unconsumed: before, the count wrapped to 8 - 3 and the arrival
    // wait ran out its whole budget.
    fault(&r.m, 5, QueueFault::LieTail(0x20));
    c.reset();
    let back = Err(Error::DeviceFault(khal_core::Fault::TailMovedBackwards {
        tail: 0x20,
        previous: 0x50,
    }));
    assert_eq!(ring.available_count(&mut d), back);
    assert_eq!(d.slept_ns(), 0);
    assert_eq!((c.reads(), c.writes()), (1, 0));
    // A drain still has the 5 entries it knows: it reads no tail for them.
    fault(&r.m, 5, QueueFault::None);
    let mut out = [NqEntry::default(); 8];
    assert_eq!(ring.drain(&mut d, &mut out), Ok(5));
    assert_eq!(entry_seq(out[4].bytes()), 4);
}

#[test]
fn dma_buf_bulk_read_matches_byte_reads_at_every_alignment() {
    // The drain's bulk entry copy goes through `DmaBuf::read` (8-byte volatile
    // loads in the aligned middle); it must give the bytes a byte loop gives.
    let b = DmaBuf::new(96, 64).unwrap();
    let data: Vec<u8> = (0..96u8).map(|i| i.wrapping_mul(37) ^ 0x5A).collect();
    b.write(0, &data).unwrap();
    for off in 0..40 {
        for len in 0..=(96 - off).min(40) {
            let mut out = vec![0u8; len];
            b.read(off, &mut out).unwrap();
            assert_eq!(out, &data[off..off + len], "off {off} len {len}");
        }
    }
    let mut out = [0u8; 9];
    assert!(b.read(88, &mut out).is_err());
}

// ---- hostile entries (issue 14.4) ----

/// A ring memory whose device rewrites one slot between the consumer's phase
/// scan and its copy (it must not: the head has not handed the slot back):
/// the first copy after [`Rewrite::arm`] writes `bytes` into `slot`, then
/// copies. Everything else goes to the `DmaBuf`.
struct Rewrite<'a> {
    inner: &'a DmaBuf,
    armed: std::cell::Cell<Option<(usize, [u8; 16])>>,
}

impl<'a> Rewrite<'a> {
    fn new(inner: &'a DmaBuf) -> Self {
        Rewrite {
            inner,
            armed: std::cell::Cell::new(None),
        }
    }

    fn arm(&self, slot: usize, bytes: [u8; 16]) {
        self.armed.set(Some((slot, bytes)));
    }

    fn fire(&self) {
        if let Some((slot, bytes)) = self.armed.take() {
            self.inner.write(slot * 16, &bytes).unwrap();
        }
    }
}

impl DmaMemory for Rewrite<'_> {
    fn bus_addr(&self) -> u64 {
        self.inner.bus_addr()
    }
    fn len(&self) -> usize {
        self.inner.len()
    }
    fn load_u8(&self, offset: usize) -> khal_core::Result<u8> {
        self.inner.load_u8(offset)
    }
    fn read(&self, offset: usize, out: &mut [u8]) -> khal_core::Result<()> {
        self.fire();
        self.inner.read(offset, out)
    }
    fn write(&self, offset: usize, data: &[u8]) -> khal_core::Result<()> {
        self.inner.write(offset, data)
    }
    fn zero(&self) -> khal_core::Result<()> {
        self.inner.zero()
    }
}

/// The second pass's entry in `slot`: new payload, phase 0 (a lapping device).
fn second_pass(slot: u8) -> [u8; 16] {
    let mut b = [0xEE; 16];
    b[0] = slot;
    b[3] = 0x7F;
    b
}

#[test]
fn an_entry_rewritten_after_the_scan_is_not_handed_out_nor_anything_past_it() {
    for (use_iter, slot) in [(false, 0), (false, 2), (true, 0), (true, 2)] {
        let r = rig();
        let c = Counting::new(&r.m);
        let blocks = NotificBlocks::new();
        let mut block = blocks.take(BASE).unwrap();
        let mut e = NotificEngine::init(&c, &mut block, EngineConfig::tpb(BpMode::None)).unwrap();
        let mem = Rewrite::new(&r.buf);
        let cfg = NqConfig::phase(128).with_max_batch(8);
        let mut ring = NqRing::configure_host(&mem, e.queue(3).unwrap(), cfg).unwrap();
        ring.enable(&mut e, &mut SimDelay::new(&r.m)).unwrap();
        assert_eq!(post(&r.m, 3, 4), 4);
        // The scan sees 4 new entries; `slot` is rewritten before the copy
        // (slot 0: between its own phase load and its copy).
        mem.arm(slot, second_pass(slot as u8));
        c.reset();
        let mut out = [NqEntry::default(); 8];
        let n = if use_iter {
            let mut it = ring.drain_iter(8).unwrap();
            let mut n = 0;
            for (slot, x) in out.iter_mut().zip(&mut it) {
                *slot = x.unwrap();
                n += 1;
            }
            it.finish().unwrap();
            n
        } else {
            ring.drain(&mut out).unwrap()
        };
        let what = format!("iter {use_iter}, slot {slot}");
        assert_eq!(n, slot, "{what}: entries before the rewritten one only");
        for (i, x) in out.iter().take(n).enumerate() {
            assert_eq!(entry_seq(x.bytes()), i as u64);
            assert!(x.phase(), "every entry handed out carries the new phase");
        }
        assert_eq!(
            ring.next_index(),
            slot as u32,
            "{what}: nothing past it consumed"
        );
        let heads = u64::from(slot > 0);
        assert_eq!(
            (c.reads(), c.writes()),
            (0, heads),
            "{what}: one head write"
        );
        // The rewritten slot does not look new to a phase-0 consumer: nothing more.
        assert_eq!(ring.drain(&mut out), Ok(0));
    }
}

/// The iterator over a `DmaBuf` reads the ring's own words (issue 12:
/// `DmaMemory::entry_view`), so an entry the device rewrites while the
/// iterator is still before it (a lapping device: phase 0) ends the run
/// there: phase mode hands out the entries before it and nothing more, tail
/// mode then gives `TooFarAhead`; one head write for what was yielded,
/// nothing past it consumed.
#[test]
fn the_word_view_iterator_stops_at_an_entry_rewritten_ahead_of_it() {
    rewritten_ahead(NqConfig::phase);
    rewritten_ahead(NqConfig::tail);
}

/// [`the_word_view_iterator_stops_at_an_entry_rewritten_ahead_of_it`] on a
/// ring of `kind`'s kind.
fn rewritten_ahead<K: Kind>(kind: fn(u32) -> NqConfig<K>) {
    let mode = K::MODE;
    {
        let r = rig();
        let c = Counting::new(&r.m);
        let blocks = NotificBlocks::new();
        let mut block = blocks.take(BASE).unwrap();
        let mut e = NotificEngine::init(&c, &mut block, EngineConfig::tpb(BpMode::None)).unwrap();
        let cfg = kind(128).with_max_batch(8);
        let mut ring = NqRing::configure_host(&*r.buf, e.queue(3).unwrap(), cfg).unwrap();
        ring.enable(&mut e, &mut SimDelay::new(&r.m)).unwrap();
        assert!(ring.memory().words().is_some());
        assert_eq!(post(&r.m, 3, 4), 4);
        let mut d = SimDelay::new(&r.m);
        let mut it = K::drain_iter(&mut ring, &mut d, 8).unwrap();
        for i in 0..2 {
            let x = it.next().expect("new").unwrap();
            assert_eq!(entry_seq(x.bytes()), i, "{mode:?}");
        }
        r.buf.write(2 * 16, &second_pass(2)).unwrap();
        match mode {
            ConsumeMode::Phase => assert_eq!(it.next(), None),
            ConsumeMode::Tail => assert_eq!(
                it.next(),
                Some(Err(Error::DeviceFault(Fault::TooFarAhead {
                    claimed: 4,
                    capacity: 8
                })))
            ),
        }
        assert_eq!(it.next(), None, "{mode:?}: nothing after the end");
        c.reset();
        assert_eq!(it.finish(), Ok(2), "{mode:?}");
        assert_eq!((c.reads(), c.writes()), (0, 1), "{mode:?}: one head write");
        assert_eq!(
            it.finish(),
            Ok(0),
            "{mode:?}: a second finish commits nothing"
        );
        drop(it);
        assert_eq!(c.writes(), 1, "{mode:?}: the drop writes nothing more");
        assert_eq!(ring.next_index(), 2, "{mode:?}: nothing past it consumed");
    }
}

/// One entry per call (`drain`'s one-entry paths, issue 12: an `out` of one
/// with the default batch cap, and a ring of `max_batch` 1, whose idle test's
/// load is the entry's first word): every entry once, in order, across two
/// wraps, one head write and no read per call; an entry rewritten between
/// the idle test and its copy is not handed out and nothing is consumed.
#[test]
fn one_entry_per_call_is_in_order_across_wraps_and_checks_the_copy() {
    for max_batch in [None, Some(1)] {
        one_entry_per_call(max_batch);
    }
}

fn one_entry_per_call(max_batch: Option<u32>) {
    let r = rig();
    let c = Counting::new(&r.m);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init(&c, &mut block, EngineConfig::tpb(BpMode::None)).unwrap();
    let mem = Rewrite::new(&r.buf);
    let mut cfg = NqConfig::phase(128);
    if let Some(b) = max_batch {
        cfg = cfg.with_max_batch(b);
    }
    let mut ring = NqRing::configure_host(&mem, e.queue(5).unwrap(), cfg).unwrap();
    ring.enable(&mut e, &mut SimDelay::new(&r.m)).unwrap();
    let mut out = [NqEntry::default(); 1];
    let mut seq = 0u64;
    for _ in 0..5 {
        assert_eq!(post(&r.m, 5, 4), 4);
        for _ in 0..4 {
            c.reset();
            assert_eq!(ring.drain(&mut out), Ok(1), "entry {seq}");
            assert_eq!(entry_seq(out[0].bytes()), seq);
            assert_eq!((c.reads(), c.writes()), (0, 1), "entry {seq}");
            seq += 1;
        }
        c.reset();
        assert_eq!(ring.drain(&mut out), Ok(0));
        assert_eq!((c.reads(), c.writes()), (0, 0));
    }
    // 20 entries on a ring of 8: two wraps, so phase 0 again, at slot 4.
    assert_eq!((ring.next_index(), ring.phase()), (4, false));
    assert_eq!(post(&r.m, 5, 1), 1);
    mem.arm(4, second_pass(4));
    c.reset();
    assert_eq!(ring.drain(&mut out), Ok(0), "the rewritten copy");
    assert_eq!((ring.next_index(), c.writes()), (4, 0), "nothing consumed");
    // An empty `out` takes nothing and writes nothing, on either path.
    r.buf.write(4 * 16 + 3, &[0x80]).unwrap();
    c.reset();
    assert_eq!(ring.drain(&mut []), Ok(0));
    assert_eq!((ring.next_index(), c.reads(), c.writes()), (4, 0, 0));
}

/// A ring of `max_batch` 1 over the `DmaBuf` itself (its peek keeps the
/// loaded word, so the take loads only the entry's second word), and a ring
/// of the default `max_batch` drained with an `out` of one (the same
/// one-entry path, issue 12): the same entries, in order, across wraps, as
/// the run copy of a batch ring.
#[test]
fn max_batch_one_over_a_dmabuf_drains_what_a_batch_ring_does() {
    one_per_call_over_a_dmabuf(Some(1), 4);
    one_per_call_over_a_dmabuf(None, 1);
}

fn one_per_call_over_a_dmabuf(max_batch: Option<u32>, out_len: usize) {
    let r = rig();
    let c = Counting::new(&r.m);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init(&c, &mut block, EngineConfig::tpb(BpMode::None)).unwrap();
    let mut cfg = NqConfig::phase(128);
    if let Some(b) = max_batch {
        cfg = cfg.with_max_batch(b);
    }
    let mut ring = NqRing::configure_host(&*r.buf, e.queue(6).unwrap(), cfg).unwrap();
    ring.enable(&mut e, &mut SimDelay::new(&r.m)).unwrap();
    let mut backing = [NqEntry::default(); 4];
    let out = &mut backing[..out_len];
    let mut seq = 0u64;
    for round in 0..6 {
        assert_eq!(post(&r.m, 6, 3), 3);
        for _ in 0..3 {
            c.reset();
            // `out` holds four and `max_batch` is 1, or `out` holds one:
            // one entry per call.
            assert_eq!(ring.drain(out), Ok(1), "round {round}");
            assert_eq!(entry_seq(out[0].bytes()), seq);
            assert!(out[0].phase() == (seq / 8).is_multiple_of(2));
            assert_eq!((c.reads(), c.writes()), (0, 1));
            seq += 1;
        }
        c.reset();
        assert_eq!(ring.drain(out), Ok(0));
        assert_eq!(
            (c.reads(), c.writes()),
            (0, 0),
            "an idle poll touches nothing"
        );
    }
    assert_eq!((ring.next_index(), ring.phase()), (2, false));
}

#[test]
fn in_tail_mode_a_rewritten_entry_is_too_far_ahead_and_consumes_nothing() {
    let r = rig();
    let c = Counting::new(&r.m);
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init(&c, &mut block, EngineConfig::tpb(BpMode::None)).unwrap();
    let mem = Rewrite::new(&r.buf);
    let cfg = NqConfig::tail(128).with_max_batch(8);
    let mut ring = NqRing::configure_host(&mem, e.queue(4).unwrap(), cfg).unwrap();
    ring.enable(&mut e, &mut SimDelay::new(&r.m)).unwrap();
    assert_eq!(post(&r.m, 4, 4), 4);
    mem.arm(1, second_pass(1));
    c.reset();
    let mut out = [NqEntry::default(); 8];
    let mut d = SimDelay::new(&r.m);
    assert_eq!(
        ring.drain(&mut d, &mut out),
        Err(Error::DeviceFault(khal_core::Fault::TooFarAhead {
            claimed: 4,
            capacity: 8
        }))
    );
    assert_eq!((ring.next_index(), c.writes()), (0, 0));
}

/// A transient lie in tail mode: the tail claims 6 entries while 3 are
/// valid and a stray entry with a "new" phase sits in slot 5 (so the arrival
/// wait is satisfied and the walk stops at slot 3): `TooFarAhead`, nothing
/// consumed. Then the tail tells the truth: the 3 valid entries are delivered
/// exactly once, then the ones posted later, in order.
#[test]
fn after_a_transient_lie_valid_entries_are_delivered_exactly_once() {
    for use_iter in [false, true] {
        let r = rig();
        let blocks = NotificBlocks::new();
        let mut block = blocks.take(BASE).unwrap();
        let mut e = NotificEngine::init(&r.m, &mut block, EngineConfig::tpb(BpMode::None)).unwrap();
        let cfg = NqConfig::tail(128).with_budget(SMALL).with_max_batch(8);
        let mut ring = NqRing::configure_host(&*r.buf, e.queue(9).unwrap(), cfg).unwrap();
        ring.enable(&mut e, &mut SimDelay::new(&r.m)).unwrap();
        assert_eq!(post(&r.m, 9, 3), 3);
        let mut stray = [0u8; 16];
        stray[3] = 0x80;
        r.buf.write(5 * 16, &stray).unwrap();
        fault(&r.m, 9, QueueFault::LieTail(6 * 16));
        let lie = Err(Error::DeviceFault(khal_core::Fault::TooFarAhead {
            claimed: 6,
            capacity: 8,
        }));
        let mut seqs = Vec::new();
        let drain = |ring: &mut NqRing<&DmaBuf, &DeviceModel, Tail>,
                     seqs: &mut Vec<u64>|
         -> Result<usize, Error> {
            let mut d = SimDelay::new(&r.m);
            if use_iter {
                let mut n = 0;
                for x in ring.drain_iter(&mut d, 8)? {
                    seqs.push(entry_seq(x?.bytes()));
                    n += 1;
                }
                Ok(n)
            } else {
                let mut out = [NqEntry::default(); 8];
                let n = ring.drain(&mut d, &mut out)?;
                seqs.extend(out[..n].iter().map(|x| entry_seq(x.bytes())));
                Ok(n)
            }
        };
        if use_iter {
            // The iterator yields the valid entries before the lie shows,
            // then the fault; it commits what it yielded.
            assert_eq!(drain(&mut ring, &mut seqs), lie.map(|_: ()| 0));
            assert_eq!(seqs, [0, 1, 2]);
        } else {
            assert_eq!(drain(&mut ring, &mut seqs), lie.map(|_: ()| 0));
            assert_eq!(ring.next_index(), 0, "nothing consumed on the fault");
            // Still lying: the same fault, still nothing consumed.
            assert_eq!(drain(&mut ring, &mut seqs), lie.map(|_: ()| 0));
            assert!(seqs.is_empty());
        }
        // The tail tells the truth again: the next call reads it again.
        fault(&r.m, 9, QueueFault::None);
        if !use_iter {
            assert_eq!(drain(&mut ring, &mut seqs), Ok(3));
        }
        assert_eq!(drain(&mut ring, &mut seqs), Ok(0));
        assert_eq!(post(&r.m, 9, 3), 3);
        assert_eq!(drain(&mut ring, &mut seqs), Ok(3));
        assert_eq!(drain(&mut ring, &mut seqs), Ok(0));
        assert_eq!(
            seqs,
            [0, 1, 2, 3, 4, 5],
            "iter {use_iter}: each exactly once, in order"
        );
    }
}
