//! The async API on the target (`khal::asynch`) [004 §3], [FACTS §11]:
//! async drains over the device stand-in across wraps, an async wait on a
//! stalled queue that times out after exactly its budget, and an `NqSignal`
//! raised by a real interrupt (PendSV on Arm, the machine software interrupt
//! on RISC-V) waking the waiting drain. Futures run on [`crate::exec`].

use khal::asynch::{self, NqSignal};
use khal::dma::StaticDma;
use khal::mmio::VolatileWindow;
use khal::notific::{
    BpMode, EngineConfig, NotificBlock, NotificBlocks, NotificEngine, NqConfig, NqEntry, NqRing,
};
use khal::wait::Budget;
use khal::{DeviceAddr, Error};

use crate::device::{entry_seq, Device};
use crate::exec::block_on;
use crate::harness::{Fail, Outcome, Runner};
use crate::rec::Rec;
use crate::{check, check_eq, irq, ok};

/// The notification engine's block in the window (as in `tests`).
const NOTIFIC: DeviceAddr = DeviceAddr(0x3053_5000);
/// Ring size: 16 entries.
const RING: u32 = 256;
/// The async waits' budget: 50 waits of 100 µs.
const BUDGET: Budget = Budget {
    period_us: 100,
    polls: 50,
};

/// The async tests of this image, in order.
pub fn all(r: &mut Runner<'_>) {
    irq::enable();
    r.run("async_drain_delivers_entries", async_drain_delivers_entries);
    r.run(
        "async_wait_stalled_queue_times_out",
        async_wait_stalled_queue_times_out,
    );
    r.run(
        "async_signal_from_interrupt_wakes_drain",
        async_signal_from_interrupt_wakes_drain,
    );
    r.run(
        "async_signal_before_wait_is_kept",
        async_signal_before_wait_is_kept,
    );
}

/// A blocking delay that adds up what it was asked (for `enable`).
#[derive(Default)]
struct Counting {
    ns: u64,
}

impl embedded_hal::delay::DelayNs for Counting {
    fn delay_ns(&mut self, ns: u32) {
        self.ns += u64::from(ns);
    }
}

impl embedded_hal_async::delay::DelayNs for Counting {
    /// Ready at once: the time is only added up (QEMU is not cycle-accurate).
    async fn delay_ns(&mut self, ns: u32) {
        self.ns += u64::from(ns);
    }
}

/// An async delay that never completes: only the interrupt can end a wait.
struct Forever;

impl embedded_hal_async::delay::DelayNs for Forever {
    async fn delay_ns(&mut self, _ns: u32) {
        core::future::pending::<()>().await
    }
}

/// `Some(v)` of a finished run, or print that it did not finish and fail.
macro_rules! done {
    ($run:expr) => {
        match $run.output {
            Some(v) => v,
            None => {
                semihosting::println!(
                    "  {}:{}: future not finished ({} polls, {} wakes, {} idles)",
                    file!(),
                    line!(),
                    $run.polls,
                    $run.wakes,
                    $run.idles
                );
                return Err(Fail);
            }
        }
    };
}

/// The engine over `rec` (10 queues, no back-pressure) and its queue `idx`
/// as a phase-mode ring on `mem` (16 entries, the async budget, batches of
/// 8), configured and enabled through `delay`; and the device stand-in that
/// posts into it. `mem` is the caller's: each `static_dma!` call site hands
/// its buffer out once.
fn phase_queue<'a>(
    win: &'a VolatileWindow,
    rec: &'a Rec<'a>,
    mem: &'a StaticDma,
    idx: u32,
    block: &'a mut NotificBlock,
    delay: &mut Counting,
) -> Result<PhaseQueue<'a>, Fail> {
    let mut e = ok!(NotificEngine::init(
        rec,
        block,
        EngineConfig::tpb(BpMode::None)
    ));
    let cfg = NqConfig::phase(RING).with_budget(BUDGET).with_max_batch(8);
    let mut ring = ok!(NqRing::configure_host(mem, ok!(e.queue(idx)), cfg));
    ok!(ring.enable(&mut e, delay));
    Ok((
        e,
        ring,
        Device::new(win, NOTIFIC, true, idx, mem, RING / 16),
    ))
}

/// What [`phase_queue`] sets up: the engine, the ring, the device stand-in.
type PhaseQueue<'a> = (
    NotificEngine<'a, &'a Rec<'a>>,
    NqRing<'a, &'a StaticDma, &'a Rec<'a>>,
    Device<'a>,
);

/// Post and async-drain `2 * capacity + 3` entries on phase-mode queue 3:
/// each drain finds its entries at once (no wait, no register read, one head
/// write), every entry once and in order across two wraps. An empty `out`
/// returns 0. (The async drain of a tail ring does not compile.)
fn async_drain_delivers_entries(win: &VolatileWindow) -> Outcome {
    let rec = Rec::new(win, NOTIFIC);
    let mem = StaticDma::identity(ok!(khal::static_dma!(256).ok_or(Error::OutOfMemory)));
    let mut d = Counting::default();
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(NOTIFIC).unwrap();
    let (_e, mut ring, mut dev) = phase_queue(win, &rec, &mem, 3, &mut block, &mut d)?;
    let sig = NqSignal::new();
    let cap = u64::from(ring.capacity());
    let total = 2 * cap + 3;
    let seq0 = dev.seq;
    let mut got = 0u64;
    let mut out = [NqEntry::default(); 8];
    let mut step = 0u32;
    while got < total {
        step += 1;
        let want = (step * 3 % 8).max(1).min((total - got) as u32);
        check_eq!(ok!(dev.post(want)), want);
        rec.clear();
        let run = block_on(
            asynch::drain(&mut ring, &sig, &mut d, BUDGET, &mut out),
            4,
            || {},
        );
        let n = ok!(done!(run));
        check_eq!((run.polls, run.idles), (1, 0));
        check_eq!(n, want as usize);
        check_eq!(rec.counts(), (0, 1)); // phase rule: no register read
        for entry in out.get(..n).unwrap_or(&[]) {
            check_eq!(entry_seq(entry.bytes()), seq0 + got);
            check_eq!(entry.phase(), (got / cap).is_multiple_of(2));
            got += 1;
        }
        check_eq!(ok!(dev.head()), ring.next_index() * 16);
    }
    check_eq!(got, total);
    check_eq!(u64::from(ring.next_index()), total % cap);
    check_eq!(d.ns, 0);
    // Nothing new: an empty `out` still returns 0 at once.
    let run = block_on(
        asynch::drain(&mut ring, &sig, &mut d, BUDGET, &mut []),
        1,
        || {},
    );
    check_eq!(ok!(done!(run)), 0);
    Ok(())
}

/// A stalled DMA (the tail moved, the phase bytes never land): the async
/// wait spends exactly its budget, 50 waits of 100 µs, then times out with
/// nothing consumed and no register touched; once the DMA completes, the
/// async drain delivers the same three entries, once, in order.
fn async_wait_stalled_queue_times_out(win: &VolatileWindow) -> Outcome {
    let rec = Rec::new(win, NOTIFIC);
    let mem = StaticDma::identity(ok!(khal::static_dma!(256).ok_or(Error::OutOfMemory)));
    let mut d = Counting::default();
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(NOTIFIC).unwrap();
    let (_, mut ring, mut dev) = phase_queue(win, &rec, &mem, 6, &mut block, &mut d)?;
    let seq0 = dev.seq;
    check_eq!(ok!(dev.post_stalled(3)), 3);
    let sig = NqSignal::new();
    rec.clear();
    let run = block_on(asynch::wait_new(&ring, &sig, &mut d, BUDGET), 4, || {});
    check_eq!(done!(run), Err(Error::Timeout("nq notification (async)")));
    check_eq!(d.ns, BUDGET.total_us() * 1000);
    check_eq!(rec.counts(), (0, 0));
    check_eq!((ring.next_index(), ok!(dev.head())), (0, 0));
    // The DMA completes: the three arrive, once, in order, without a wait.
    ok!(dev.land(3));
    d.ns = 0;
    let mut out = [NqEntry::default(); 8];
    let run = block_on(
        asynch::drain(&mut ring, &sig, &mut d, BUDGET, &mut out),
        4,
        || {},
    );
    check_eq!(ok!(done!(run)), 3);
    for (k, entry) in out.iter().take(3).enumerate() {
        check_eq!(entry_seq(entry.bytes()), seq0 + k as u64);
    }
    check_eq!(ok!(dev.head()), 48);
    check_eq!(d.ns, 0);
    Ok(())
}

/// The drain waits on an empty ring with a delay that never completes; the
/// device posts five entries and raises the interrupt, whose handler signals
/// [`irq::NQ_IRQ`]: the waker is woken exactly once, by the handler, and the
/// second poll delivers the five.
fn async_signal_from_interrupt_wakes_drain(win: &VolatileWindow) -> Outcome {
    let rec = Rec::new(win, NOTIFIC);
    let mem = StaticDma::identity(ok!(khal::static_dma!(256).ok_or(Error::OutOfMemory)));
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(NOTIFIC).unwrap();
    let (_, mut ring, mut dev) =
        phase_queue(win, &rec, &mem, 2, &mut block, &mut Counting::default())?;
    let seq0 = dev.seq;
    irq::NQ_IRQ.take(); // nothing left over
    let taken0 = irq::taken();
    let mut out = [NqEntry::default(); 8];
    let mut posted = Ok(0);
    let run = block_on(
        asynch::drain(&mut ring, &irq::NQ_IRQ, &mut Forever, BUDGET, &mut out),
        4,
        || {
            posted = dev.post(5);
            irq::raise();
        },
    );
    check_eq!(posted, Ok(5));
    check_eq!(irq::taken() - taken0, 1);
    check_eq!((run.polls, run.idles, run.wakes), (2, 1, 1));
    check_eq!(ok!(done!(run)), 5);
    for (k, entry) in out.iter().take(5).enumerate() {
        check_eq!(entry_seq(entry.bytes()), seq0 + k as u64);
    }
    check_eq!(ok!(dev.head()), 5 * 16);
    check!(!irq::NQ_IRQ.take()); // the signal was spent by the wait

    // Without the interrupt nothing wakes the drain: the executor reports it stuck.
    let run = block_on(
        asynch::drain(&mut ring, &irq::NQ_IRQ, &mut Forever, BUDGET, &mut out),
        4,
        || {},
    );
    check!(run.output.is_none());
    check_eq!((run.polls, run.idles, run.wakes), (1, 1, 0));
    Ok(())
}

/// An interrupt taken before anyone waits is kept: the wait then resolves on
/// its first poll, with no wake needed, and consumes it.
fn async_signal_before_wait_is_kept(_: &VolatileWindow) -> Outcome {
    irq::NQ_IRQ.take();
    let taken0 = irq::taken();
    irq::raise();
    check_eq!(irq::taken() - taken0, 1);
    let run = block_on(irq::NQ_IRQ.wait(), 2, || {});
    check!(run.output.is_some());
    check_eq!((run.polls, run.wakes), (1, 0));
    check!(!irq::NQ_IRQ.take());
    Ok(())
}
