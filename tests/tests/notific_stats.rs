//! Golden traces of the notific reads the earlier revision adds: `get_timestamp`
//! (`+0x4` then `+0x0`), `nq_stats_get` id 6 (`+0xB0`), and the init-params
//! cookie bound `0x100` [004r1 §1–§3], [FACTS §12.3].

use khal_core::notific::{get_timestamp, nq_stats_get, InitParamsCookie};
use khal_core::notific::{
    BpMode, EngineConfig, NotificBlocks, NotificEngine, NOTIFIC, NOTIFIC_BLOCK_BYTES,
};
use khal_core::{DeviceAddr, Error, Mmio};
use khal_std::Op::Read as R;
use khal_std::{HeapMmio, Trace};

const BASE: DeviceAddr = DeviceAddr(0x3053_5000);

fn traced() -> Trace<HeapMmio> {
    Trace::new(HeapMmio::new(BASE, NOTIFIC_BLOCK_BYTES as usize)).with_block(
        BASE,
        NOTIFIC_BLOCK_BYTES,
        &NOTIFIC,
    )
}

#[test]
fn get_timestamp_is_high_word_then_low_word() {
    let t = traced();
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let e = NotificEngine::init(&t, &mut block, EngineConfig::tpb(BpMode::All)).unwrap();
    t.inner().write32(BASE.add(0x4), 0x1234).unwrap();
    t.inner().write32(BASE, 0x5678_9ABC).unwrap();
    t.clear();
    assert_eq!(get_timestamp(&e), Ok(0x1234_5678_9ABC));
    // The high word (`+0x4`), then the low word (`+0x0`) [004r1 §2].
    assert_eq!(t.ops(), vec![(R, 0x4, 0x1234), (R, 0x0, 0x5678_9ABC)]);
}

#[test]
fn nq_stats_get_id_6_reads_0xb0_and_nothing_else_is_traced() {
    let t = traced();
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let e = NotificEngine::init(&t, &mut block, EngineConfig::tpb(BpMode::All)).unwrap();
    t.inner().write32(BASE.add(0xB0), 77).unwrap();
    t.clear();
    assert_eq!(nq_stats_get(&e, 6), Ok(77));
    assert_eq!(t.ops(), vec![(R, 0xB0, 77)]);
    t.clear();
    for id in [0, 5, 7, u32::MAX] {
        assert_eq!(
            nq_stats_get(&e, id),
            Err(Error::NotTraced("nq_stats_get: stat ids other than 6"))
        );
    }
    assert!(t.ops().is_empty(), "an untraced stat id reads nothing");
}

#[test]
fn init_params_cookie_is_at_most_0x100_bytes() {
    let full: Vec<u8> = (0..=255u8).collect();
    assert_eq!(InitParamsCookie::new(&full).unwrap().as_bytes(), &full[..]);
    assert!(InitParamsCookie::new(&[]).unwrap().as_bytes().is_empty());
    assert_eq!(
        InitParamsCookie::new(&[0; 0x101]),
        Err(Error::OutOfRange {
            what: "nq init params cookie size",
            value: 0x101,
            limit: 0x101,
        })
    );
}
