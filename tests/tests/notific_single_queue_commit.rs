//! A drain whose head write is refused consumes nothing. On the single-queue
//! flavour a queue index other than 0 is refused (a deviation from the C,
//! listed in docs/coverage.md); a ring built with such an index must not move
//! its cursor past entries it then fails to hand back to the device. Found by
//! the `nq_consumer` fuzz target (its crash input is kept as a seed in
//! `fuzz/corpus/nq_consumer/`).

use khal_core::notific::entry::{PHASE_BYTE, PHASE_MASK};
use khal_core::notific::regs::{self, NOTIFIC};
use khal_core::notific::{ConsumeMode, NotificEngine, NqConfig, NqEntry, NqRing};
use khal_core::{DeviceAddr, Error};
use khal_std::{DmaBuf, HeapMmio, SimDelay, Trace};

use khal_core::dma::DmaMemory;

const BASE: DeviceAddr = DeviceAddr(0x3053_5000);

#[test]
fn a_refused_head_write_consumes_nothing() {
    let t = Trace::new(HeapMmio::new(BASE, regs::NOTIFIC_BLOCK_BYTES as usize)).with_block(
        BASE,
        regs::NOTIFIC_BLOCK_BYTES,
        &NOTIFIC,
    );
    // One queue: the single-queue flavour.
    let e = NotificEngine::init(&t, Some(BASE), 1, 0, 0).unwrap();
    let buf = DmaBuf::new(256, 4096).unwrap();
    // Publish the first three entries of the device's first lap (phase 1).
    for i in 0..3 {
        let mut raw = [0u8; 16];
        raw[0] = i as u8 + 1;
        raw[PHASE_BYTE] = PHASE_MASK;
        buf.write(i * 16, &raw).unwrap();
    }
    let mut ring = NqRing::host(buf, NqConfig::new(3, 256, ConsumeMode::Phase)).unwrap();
    let clock = khal_std::delay::SimClock::new();
    let mut d = SimDelay::new(&clock);
    t.clear();

    let mut out = [NqEntry::default(); 8];
    let r = ring.drain(&e, &mut d, &mut out);
    assert!(
        matches!(
            r,
            Err(Error::OutOfRange {
                limit: 1,
                value: 3,
                ..
            })
        ),
        "{r:?}"
    );
    // Nothing consumed, nothing written.
    assert_eq!((ring.next_index(), ring.phase()), (0, false));
    assert!(t
        .ops()
        .iter()
        .all(|(op, _, _)| *op != khal_std::trace::Op::Write));
}
