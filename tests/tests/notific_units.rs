//! The notific module's small pure functions: the C idioms of the engine
//! [004 §2], the entry's phase bit and dwords [004 §3]. (The register
//! offsets [FACTS §6] are checked by `notific::regs::tests` in hal-core.)

use khal_core::notific::masked_update;
use khal_core::notific::{nq_get_notification_size, BpMode, Flavour, NqEntry};
use khal_core::Error;

#[test]
fn masked_update_is_the_notes_idiom() {
    assert_eq!(masked_update(0, u64::MAX, u64::MAX), u64::MAX);
    assert_eq!(masked_update(0xF0F0, 0x0F0F, 0x00FF), 0xF00F);
    assert_eq!(masked_update(0xFFFF, 0, 0), 0xFFFF);
    assert_eq!(masked_update(u64::MAX, 0, 1 << 40), !(1 << 40));
}

#[test]
fn bp_modes_and_flavours() {
    assert_eq!(BpMode::from_raw(0).map(BpMode::sw_backpressure), Ok(0x3FF));
    assert_eq!(BpMode::from_raw(1).map(BpMode::sw_backpressure), Ok(0));
    assert_eq!(BpMode::from_raw(2), Err(Error::UnknownMode(2)));
    assert_eq!(Error::UnknownMode(2).c_code(), Some(-1));
    assert_eq!(Flavour::from_num_queues(1), Flavour::SingleQueue);
    assert_eq!(Flavour::from_num_queues(10), Flavour::TenQueue);
    assert_eq!(nq_get_notification_size(), 16);
}

#[test]
fn phase_is_bit_7_of_byte_3() {
    let mut raw = [0u8; 16];
    assert!(!NqEntry::from_bytes(raw).phase());
    raw[3] = 0x80;
    assert!(NqEntry::from_bytes(raw).phase());
    raw[3] = 0x7F;
    assert!(!NqEntry::from_bytes(raw).phase());
    raw[2] = 0xFF;
    raw[4] = 0xFF;
    assert!(!NqEntry::from_bytes(raw).phase());
}

#[test]
fn dwords_are_little_endian() {
    let raw = [1, 2, 3, 0x84, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];
    let e = NqEntry::from_bytes(raw);
    assert_eq!(e.dword_le(0), Some(0x8403_0201));
    assert_eq!(e.dword_le(3), Some(0x100F_0E0D));
    assert_eq!(e.dword_le(4), None);
    assert_eq!(e.bytes(), &raw);
    assert!(e.phase());
}
