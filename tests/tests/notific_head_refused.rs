//! A refused head write never leads to redelivery [004 §3], [FACTS §11]:
//! `drain` consumes nothing when its head write is refused (the caller got
//! an error, not the entries); a `drain_iter` whose head write is refused
//! (on `finish` or on drop) has handed its entries out, so the ring keeps
//! its cursor and writes the head before it hands out anything else, or
//! fails with that write's error; the async drain likewise. Also
//! `NqRing::host` as adoption: a ring on registers the vendor driver programmed writes
//! nothing at construction [FACTS §14.5].

use std::cell::Cell;
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use khal_core::asynch::{self, NqSignal};
use khal_core::dma::DmaMemory;
use khal_core::notific::NqEntry;
use khal_core::notific::{ConsumeKind, NotificBlocks, NotificEngine, NqConfig, NqRing, Phase};
/// The phase bit's byte and mask in an entry (bit 7 of byte 3) [004 §3].
const PHASE_BYTE: usize = 3;
const PHASE_MASK: u8 = 0x80;
use khal_core::wait::Budget;
use khal_core::{DeviceAddr, Error, Mmio, Result};
use khal_std::Op::{Read as R, Write as W};
use khal_std::SimClock;
use khal_std::{DmaBuf, HeapMmio, SimDelay, Trace};
use khal_tests::nq::{traced, BASE, HEAD, TAIL};

/// The traced register file, but the head register refuses the next
/// `refuse` writes (they reach nothing, and are not traced).
struct RefuseHead<'a> {
    inner: &'a Trace<HeapMmio>,
    refuse: Cell<u32>,
}

impl Mmio for RefuseHead<'_> {
    fn read32(&self, addr: DeviceAddr) -> Result<u32> {
        self.inner.read32(addr)
    }
    fn write32(&self, addr: DeviceAddr, value: u32) -> Result<()> {
        if addr == BASE.add(HEAD) && self.refuse.get() > 0 {
            self.refuse.set(self.refuse.get() - 1);
            return Err(Error::out_of_window(addr.get()));
        }
        self.inner.write32(addr, value)
    }
}

type Ring<'a, K = Phase> = NqRing<'a, DmaBuf, &'a RefuseHead<'a>, K>;

/// The traced registers `$t`, refusing the next `$refuse` head writes
/// (`$m`), a ring `$r` on them of the kind `$kind` builds.
macro_rules! rig {
    ($t:ident, $m:ident, $r:ident, $refuse:expr, $kind:expr) => {
        let $t = traced();
        let $m = RefuseHead {
            inner: &$t,
            refuse: Cell::new($refuse),
        };
        let mut $r = ring(&$m, $kind);
    };
}

/// A host ring of 8 entries on queue 3, `max_batch` 8; the trace cleared.
fn ring<'a, K: ConsumeKind>(m: &'a RefuseHead<'a>, kind: fn(u32) -> NqConfig<K>) -> Ring<'a, K> {
    // The block of this device alone, leaked: the ring outlives this call.
    let blocks: &'static NotificBlocks = Box::leak(Box::new(NotificBlocks::new()));
    let block = Box::leak(Box::new(blocks.take(BASE).unwrap()));
    let mut e = NotificEngine::init_raw(m, Some(block), 10, 0, 0).unwrap();
    let buf = DmaBuf::new(8 * 16, 4096).unwrap();
    let cfg = kind(8 * 16).with_max_batch(8);
    let r = NqRing::host(buf, e.queue(3).unwrap(), cfg).unwrap();
    m.inner.clear();
    r
}

/// The device posts entries `seq` in slots `seq` (first pass: phase 1).
fn post<K: ConsumeKind>(r: &Ring<'_, K>, seqs: std::ops::Range<u8>) {
    for seq in seqs {
        let mut e = [seq; 16];
        e[PHASE_BYTE] = 0x11 | PHASE_MASK;
        r.memory().write(usize::from(seq) * 16, &e).unwrap();
    }
}

fn seqs(out: &[NqEntry]) -> Vec<u8> {
    out.iter().map(|e| e.bytes()[0]).collect()
}

/// `drain`: a refused head write is the call's error and consumes nothing;
/// the next call hands the entries out once, with one head write.
#[test]
fn a_drain_whose_head_write_is_refused_consumes_nothing() {
    rig!(t, m, r, 1, NqConfig::phase);
    post(&r, 0..3);
    let mut out = [NqEntry::default(); 8];
    assert!(matches!(r.drain(&mut out), Err(Error::OutOfWindow { .. })));
    assert_eq!((r.next_index(), r.head_is_behind()), (0, false));
    assert_eq!(t.ops(), vec![]);
    assert_eq!(r.drain(&mut out), Ok(3));
    assert_eq!(seqs(&out[..3]), [0, 1, 2]);
    assert_eq!(t.ops(), vec![(W, HEAD, 3 * 16)]);
    assert_eq!(r.drain(&mut out), Ok(0));
}

/// `drain_iter` dropped with its head write refused: the entries it
/// yielded stay consumed; the next drain writes the head first and hands
/// out only what came after them. Refused again there, that call fails
/// with nothing read or handed out, and the head stays behind.
#[test]
fn a_dropped_iterator_whose_head_write_is_refused_is_not_redelivered() {
    rig!(t, m, r, 2, NqConfig::phase);
    post(&r, 0..4);
    {
        let mut it = r.drain_iter(8).unwrap();
        assert_eq!(it.next().map(|e| e.unwrap().bytes()[0]), Some(0));
        assert_eq!(it.next().map(|e| e.unwrap().bytes()[0]), Some(1));
    }
    assert_eq!((r.next_index(), r.head_is_behind()), (2, true));
    assert_eq!(t.ops(), vec![]);
    // Refused again: the error, nothing handed out.
    let mut out = [NqEntry::default(); 8];
    assert!(matches!(r.drain(&mut out), Err(Error::OutOfWindow { .. })));
    assert!(r.head_is_behind());
    assert_eq!(out, [NqEntry::default(); 8]);
    // Written now: the head first, then the entries after the two, once.
    assert_eq!(r.drain(&mut out), Ok(2));
    assert_eq!(seqs(&out[..2]), [2, 3]);
    assert_eq!(t.ops(), vec![(W, HEAD, 2 * 16), (W, HEAD, 4 * 16)]);
    assert!(!r.head_is_behind());
}

/// A phase drain on an empty ring hands nothing out, so it leaves a head
/// behind as it is (no register access: the idle poll is one load); the
/// first drain with something new writes the head before it takes.
#[test]
fn an_idle_phase_drain_leaves_a_head_behind_for_the_next_take() {
    rig!(t, m, r, 1, NqConfig::phase);
    post(&r, 0..2);
    {
        let mut it = r.drain_iter(8).unwrap();
        assert_eq!(it.by_ref().count(), 2);
    }
    assert_eq!((r.next_index(), r.head_is_behind()), (2, true));
    let mut out = [NqEntry::default(); 8];
    assert_eq!(r.drain(&mut out), Ok(0));
    assert_eq!(t.ops(), vec![]);
    assert!(r.head_is_behind());
    post(&r, 2..3);
    assert_eq!(r.drain(&mut out), Ok(1));
    assert_eq!(seqs(&out[..1]), [2]);
    assert_eq!(t.ops(), vec![(W, HEAD, 2 * 16), (W, HEAD, 3 * 16)]);
    assert!(!r.head_is_behind());
}

/// `finish` refused: its error, the entries consumed; the next
/// `drain_iter` writes the head before its first item (tail mode: no tail
/// read while the entries known remain).
#[test]
fn a_finish_whose_head_write_is_refused_is_written_by_the_next_iterator() {
    rig!(t, m, r, 1, NqConfig::tail);
    let clock = SimClock::new();
    let mut d = SimDelay::new(&clock);
    post(&r, 0..3);
    t.inner().write32(BASE.add(TAIL), 3 * 16).unwrap();
    t.clear();
    let mut it = r.drain_iter(&mut d, 1).unwrap();
    assert_eq!(it.next().map(|e| e.unwrap().bytes()[0]), Some(0));
    assert!(it.next().is_none());
    assert!(matches!(it.finish(), Err(Error::OutOfWindow { .. })));
    assert_eq!(it.finish(), Ok(0));
    drop(it);
    assert_eq!(t.ops(), vec![(R, TAIL, 3 * 16)]);
    t.clear();
    let got: Vec<u8> = r
        .drain_iter(&mut d, 8)
        .unwrap()
        .map(|e| e.unwrap().bytes()[0])
        .collect();
    assert_eq!(got, [1, 2]);
    assert_eq!(t.ops(), vec![(W, HEAD, 16), (W, HEAD, 3 * 16)]);
}

struct NoWake;
impl Wake for NoWake {
    fn wake(self: Arc<Self>) {}
}

/// An async delay that never completes (the entry is there at once).
struct NoTimer;
impl embedded_hal_async::delay::DelayNs for NoTimer {
    async fn delay_ns(&mut self, _ns: u32) {
        std::future::pending::<()>().await
    }
}

/// The async drain writes a head left behind before it waits or hands out
/// anything: refused, its error; written, even with nothing new (a device
/// that sees a full ring publishes nothing until the head moves), then the
/// wait.
#[test]
fn the_async_drain_writes_a_head_left_behind_first() {
    rig!(t, m, r, 2, NqConfig::phase);
    post(&r, 0..1);
    let first: Vec<u8> = r
        .drain_iter(8)
        .unwrap()
        .map(|e| e.unwrap().bytes()[0])
        .collect();
    assert_eq!(first, [0]);
    let signal = NqSignal::new();
    let waker = Waker::from(Arc::new(NoWake));
    let mut cx = Context::from_waker(&waker);
    let mut out = [NqEntry::default(); 8];
    let budget = Budget {
        period_us: 1,
        polls: 1,
    };
    let mut timer = NoTimer;
    {
        let fut = pin!(asynch::drain(&mut r, &signal, &mut timer, budget, &mut out));
        assert!(matches!(
            fut.poll(&mut cx),
            Poll::Ready(Err(Error::OutOfWindow { .. }))
        ));
    }
    assert_eq!(t.ops(), vec![]);
    {
        let fut = pin!(asynch::drain(&mut r, &signal, &mut timer, budget, &mut out));
        assert!(fut.poll(&mut cx).is_pending());
    }
    assert_eq!(t.ops(), vec![(W, HEAD, 16)]);
    assert!(!r.head_is_behind());
    assert_eq!(out, [NqEntry::default(); 8]);
}

/// `adopt` validates as `host` does and writes nothing: the base and size
/// registers are the vendor driver's [FACTS §14.5]; enable then writes
/// what it writes on any ring, and never those three.
#[test]
fn a_host_ring_adopts_driver_programmed_registers() {
    let t = traced();
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init_raw(&t, Some(&mut block), 10, 0, 0).unwrap();
    t.clear();
    let buf = DmaBuf::new(8 * 16, 4096).unwrap();
    let cfg = NqConfig::phase(8 * 16);
    let mut r = NqRing::host(buf, e.queue(3).unwrap(), cfg).unwrap();
    assert_eq!(t.ops(), vec![]);
    r.enable(&mut e, &mut SimDelay::new(&SimClock::new()))
        .unwrap();
    // Queue 3's base_lo, base_hi and f_size (`0x100`, `0x104`, `0x108` + 40
    // per queue) are never written.
    let q = 3 * 40;
    assert!(t
        .ops()
        .iter()
        .all(|&(_, off, _)| ![0x100 + q, 0x104 + q, 0x108 + q].contains(&off)));
    assert!(t.ops().contains(&(W, HEAD, 0)));
    // The same refusals as `host`, with the parts given back.
    let (buf, q3) = r.into_parts();
    let refused = NqRing::host(buf, q3, NqConfig::phase(8 * 16 + 8)).unwrap_err();
    assert!(matches!(refused.error(), Error::InvalidArgument(_)));
}
