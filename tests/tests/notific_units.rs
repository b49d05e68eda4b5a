//! The notific module's constants and small pure functions: register
//! offsets [FACTS §6], the C idioms of the engine [004 §2], the entry's
//! phase bit and dwords [004 §3].

use khal_core::notific::masked_update;
use khal_core::notific::regs::*;
use khal_core::notific::{nq_get_notification_size, BpMode, Flavour, NqEntry};
use khal_core::Error;

#[test]
fn offsets_match_facts_6() {
    assert_eq!(SW_BACKPRESSURE.offset(), 0x08);
    assert_eq!(HW_BACKPRESSURE_LO.offset(), 0x0C);
    assert_eq!(HW_BACKPRESSURE_HI.offset(), 0x10);
    assert_eq!(NQ_ENABLE.offset(), 0x14);
    assert_eq!(SW_OVERFLOW.offset(), 0x18);
    assert_eq!(NQ_UART_MODE.offset(), 0x28);
    assert_eq!(NQ_AXI_ID.offset(), 0x2C);
    assert_eq!(WR_BUF_ENABLE_LO.offset(), 0x30);
    assert_eq!(WR_BUF_ENABLE_HI.offset(), 0x34);
    assert_eq!(COAL_TIMER.offset(), 0xB4);
    assert_eq!(COAL_CTRL.offset(), 0xB8);
    assert_eq!(WOB_CTRL.offset(), 0xBC);
    assert_eq!(TIMESTAMP_INC.offset(), 0xCC);
    assert_eq!(coal_ctrl::BYPASS.mask(), 0x100);
    assert_eq!(coal_ctrl::CLR.mask(), 0x200);
    assert_eq!(coal_ctrl::STREAM_EN.mask(), 0x3C00);
    assert_eq!(wob_ctrl::AXI_ID_ROTATE.mask(), 1);
    assert_eq!(NQ_BASE_ADDR_LO.flat().offset(), 0x100);
    assert_eq!(NQ_BASE_ADDR_HI.flat().offset(), 0x104);
    assert_eq!(NQ_F_SIZE.flat().offset(), 0x108);
    assert_eq!(NQ_HEAD_PTR.flat().offset(), 0x10C);
    assert_eq!(NQ_TAIL_PTR.flat().offset(), 0x110);
    assert_eq!(NQ_TAIL_PTR.at(9).map(|r| r.offset()), Ok(0x110 + 9 * 40));
    assert!(NQ_HEAD_PTR.at(10).is_err());
    assert_eq!(NOTIFIC_SPAN, 0x290);
    assert_eq!(COAL_TIMER_INIT, 700_000);
}

#[test]
fn reverse_lookup_names_the_spec_registers() {
    let n = NOTIFIC.lookup(0x10C + 3 * 40).map(|n| n.reg);
    assert_eq!(n, Some("nq_head_ptr"));
    assert_eq!(NOTIFIC.lookup(0xB8).map(|n| n.reg), Some("coal_ctrl"));
    assert_eq!(NOTIFIC.lookup(0xB0).map(|n| n.reg), Some("nq_stats"));
    // Read-only and read-clearing [FACTS §15.2]: no write may reach it.
    let stats = NOTIFIC
        .regs
        .iter()
        .find(|r| r.name == "nq_stats")
        .map(|r| r.access);
    assert_eq!(stats, Some(khal_core::regs::Access::ReadOnly));
    assert_eq!(NQ_STATS.desc().access, khal_core::regs::Access::ReadOnly);
}

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
