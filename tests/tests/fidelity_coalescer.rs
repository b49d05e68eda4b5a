//! The coalescer-stream read-modify-write replaces bits 13:10 of `coal_ctrl`
//! with the stream shadow, whatever they held [004 §2], [FACTS §6]: started
//! with the field set, a write that only ORs the shadow in would leave a
//! disabled stream enabled.

use khal_core::notific::{NotificBlocks, NotificEngine};
use khal_core::Mmio;
use khal_std::Op::{Read as R, Write as W};
use khal_tests::nq::{traced, BASE};

#[test]
fn a_disabled_stream_clears_its_bit_when_the_field_reads_set() {
    let t = traced();
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init_raw(&t, Some(&mut block), 10, 0, 0).unwrap();
    t.clear();
    // Every bit set: the stream field 13:10, bypass (8), clear (9), the rest.
    t.inner().write32(BASE.add(0xB8), 0xFFFF_FFFF).unwrap();
    e.set_coalescer_stream(2, false).unwrap(); // shadow 15 → 0b1011
    e.set_coalescer_stream(0, false).unwrap(); // → 0b1010
    assert_eq!(
        t.ops(),
        vec![
            (R, 0xB8, 0xFFFF_FFFF),
            (W, 0xB8, !0x3C00 | (0b1011 << 10)),
            (R, 0xB8, 0xFFFF_EFFF),
            (W, 0xB8, !0x3C00 | (0b1010 << 10)),
        ]
    );
    // The shadow holds 0b1010: a register that reads 0 gets it back.
    t.inner().write32(BASE.add(0xB8), 0).unwrap();
    t.clear();
    e.set_coalescer_stream(1, true).unwrap();
    assert_eq!(t.ops(), vec![(R, 0xB8, 0), (W, 0xB8, 0b1010 << 10)]);
}

#[test]
fn the_field_is_the_shadow_even_where_the_register_disagrees_with_it() {
    // Bits 13:10 read 0b0101 (not what the shadow says); bypass bit 8 set.
    let t = traced();
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(BASE).unwrap();
    let mut e = NotificEngine::init_raw(&t, Some(&mut block), 10, 0, 0).unwrap();
    t.clear();
    t.inner()
        .write32(BASE.add(0xB8), 0x0100 | 0b0101 << 10)
        .unwrap();
    e.set_coalescer_stream(3, true).unwrap(); // shadow stays 15
    assert_eq!(
        t.ops(),
        vec![(R, 0xB8, 0x1500), (W, 0xB8, 0x0100 | (0b1111 << 10))]
    );
}
