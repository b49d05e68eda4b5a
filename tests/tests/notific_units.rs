//! The notific module's small pure functions: the C idioms of the engine
//! [004 §2], the entry's phase bit and dwords [004 §3]. (The register
//! offsets [FACTS §6] are checked by `notific::regs::tests` in hal-core.)

use khal_core::notific::{BpMode, EngineConfig, Flavour, NqEntry, NQ_ENTRY_BYTES};
use khal_core::Error;

#[test]
fn bp_modes_and_flavours() {
    assert_eq!(BpMode::from_raw(0), Ok(BpMode::All));
    assert_eq!(BpMode::from_raw(1), Ok(BpMode::None));
    assert_eq!(BpMode::from_raw(2), Err(Error::UnknownMode(2)));
    assert_eq!(Error::UnknownMode(2).c_code(), Some(-1));
    let flavour = |n| EngineConfig::from_raw(n, 0, 0).map(EngineConfig::flavour);
    assert_eq!(flavour(1), Ok(Flavour::SingleQueue));
    assert_eq!(flavour(10), Ok(Flavour::TenQueue));
    assert_eq!(NQ_ENTRY_BYTES, 16);
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
    let dword = |i: usize| u32::from_le_bytes(e.bytes()[i * 4..i * 4 + 4].try_into().unwrap());
    assert_eq!(dword(0), 0x8403_0201);
    assert_eq!(dword(3), 0x100F_0E0D);
    assert_eq!(e.bytes(), &raw);
    assert!(e.phase());
}
