//! Property test: random post / drain / reset interleavings against the NOTIFIC device model [004 §3].
//!
//! Whatever the order, ring size, flavour, queue, consumption mode and batch
//! cap, the consumer receives every notification the model posted exactly
//! once, in order, with the phase of its pass; it never holds more than the
//! model posted; one head write per non-empty drain and none otherwise; phase
//! mode reads no register and tail mode at most one per drain.

use std::sync::Arc;

use proptest::prelude::*;

use khal_core::notific::{
    ConsumeMode, Flavour, NotificBlocks, NotificEngine, NqConfig, NqEntry, NqRing,
};
use khal_core::DeviceAddr;
use khal_std::model::notific::{entry_seq, NotificModel};
use khal_std::model::DeviceModel;
use khal_std::{Counting, DmaBuf, SimDelay};
use khal_tests::nq::Kind;

const BASE: DeviceAddr = DeviceAddr(0x6A0_0000);

#[derive(Debug, Clone)]
enum Step {
    Post(u32),
    Drain(usize),
    Iter(u32),
    Reset,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0u32..40).prop_map(Step::Post),
        4 => (0usize..40).prop_map(Step::Drain),
        2 => (0u32..40).prop_map(Step::Iter),
        1 => Just(Step::Reset),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn every_notification_once_in_order(
        cap in 2u32..40,
        ten in any::<bool>(),
        idx in 0u32..10,
        phase_mode in any::<bool>(),
        batch in proptest::option::of(1u32..50),
        steps in proptest::collection::vec(step(), 1..120),
    ) {
        let (flavour, nq, idx) = if ten { (Flavour::TenQueue, 10, idx) } else { (Flavour::SingleQueue, 1, 0) };
        if phase_mode {
            run(NqConfig::phase, cap, flavour, nq, idx, batch, &steps)?;
        } else {
            run(NqConfig::tail, cap, flavour, nq, idx, batch, &steps)?;
        }
    }
}

/// [`every_notification_once_in_order`] on a ring of `kind`'s kind.
fn run<K: Kind>(
    kind: fn(u32) -> NqConfig<K>,
    cap: u32,
    flavour: Flavour,
    nq: u32,
    idx: u32,
    batch: Option<u32>,
    steps: &[Step],
) -> Result<(), TestCaseError> {
    {
        let mode = K::MODE;
        let m = DeviceModel::new();
        m.mount(BASE, NotificModel::new(flavour)).unwrap();
        let buf = Arc::new(DmaBuf::new(cap as usize * 16, 4096).unwrap());
        m.attach_host(buf.clone());
        let c = Counting::new(&m);
        let blocks = NotificBlocks::new();
        let mut block = blocks.take(BASE).unwrap();
        let mut e = NotificEngine::init_raw(&c, Some(&mut block), nq, 1, 0).unwrap();
        let mut cfg = kind(cap * 16);
        if let Some(b) = batch {
            cfg = cfg.with_max_batch(b);
        }
        let mut ring = NqRing::configure_host(&*buf, e.queue(idx).unwrap(), cfg).unwrap();
        ring.enable(&mut e, &mut SimDelay::new(&m)).unwrap();

        // Sequence numbers: the model's are per queue and survive resets.
        let mut seq0 = 0u64; // first seq since the last reset
        let mut posted = 0u64; // since the last reset
        let mut got = 0u64; // since the last reset
        let mut out = vec![NqEntry::default(); 64];
        let check = |e: &NqEntry, got: u64, seq0: u64| {
            prop_assert_eq!(entry_seq(e.bytes()), seq0 + got);
            prop_assert_eq!(e.phase(), (got / cap as u64).is_multiple_of(2));
            prop_assert_eq!(e.bytes()[0] as u32, idx);
            Ok(())
        };
        for s in steps.iter().cloned() {
            c.reset();
            match s {
                Step::Post(n) => {
                    let done = m
                        .with_block(BASE, |nm: &mut NotificModel, bus| nm.post(bus, idx, n))
                        .unwrap()
                        .unwrap();
                    prop_assert!(done <= n);
                    posted += done as u64;
                    // The model back-pressures at capacity - 1 pending.
                    prop_assert!(posted - got < cap as u64);
                }
                Step::Drain(len) => {
                    let n = ring
                        .drain_with(&mut SimDelay::new(&m), &mut out[..len])
                        .unwrap();
                    prop_assert!(n <= len && n as u32 <= ring.max_batch());
                    for x in out.iter().take(n) {
                        check(x, got, seq0)?;
                        got += 1;
                    }
                    prop_assert_eq!(c.writes(), u64::from(n > 0));
                    let max_reads = if mode == ConsumeMode::Phase { 0 } else { 1 };
                    prop_assert!(c.reads() <= max_reads);
                }
                Step::Iter(max) => {
                    let mut it = K::drain_iter(&mut ring, &mut SimDelay::new(&m), max).unwrap();
                    let mut n = 0u32;
                    for x in it.by_ref() {
                        check(&x.unwrap(), got, seq0)?;
                        got += 1;
                        n += 1;
                    }
                    prop_assert_eq!(it.finish(), Ok(n));
                    prop_assert!(n <= max);
                    prop_assert_eq!(c.writes(), u64::from(n > 0));
                }
                Step::Reset => {
                    ring.reset(&mut e, &mut SimDelay::new(&m)).unwrap();
                    ring.enable(&mut e, &mut SimDelay::new(&m)).unwrap();
                    seq0 = m
                        .with_block(BASE, |nm: &mut NotificModel, _| nm.next_seq(idx))
                        .unwrap();
                    posted = 0;
                    got = 0;
                }
            }
            prop_assert!(got <= posted);
            prop_assert_eq!(ring.next_index() as u64, got % cap as u64);
            prop_assert_eq!(ring.phase(), (got / cap as u64) % 2 == 1);
        }
        // Drain what is left: everything posted arrives.
        loop {
            let n = ring.drain_with(&mut SimDelay::new(&m), &mut out).unwrap();
            for x in out.iter().take(n) {
                check(x, got, seq0)?;
                got += 1;
            }
            if n == 0 {
                break;
            }
        }
        prop_assert_eq!(got, posted);
    }
    Ok(())
}
