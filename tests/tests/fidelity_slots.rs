//! The `kaena_khal` slots beyond the engine bands, as FACTS gives them: the Q7
//! slots [FACTS §13.3], the notific slots, `nq_reset` and the INTC slots
//! [004 §1], [FACTS §4, §12.3], each with its grade and NULL policy. One wrong
//! offset, grade or policy, a missing or an extra slot fails.

use khal_core::engine::slots::{NullPolicy, SlotGrade, SubTable, SLOTS};

use NullPolicy::{Fatal, NotTraced};
use SlotGrade::{High, Med};
use SubTable::{KhalIntc, KhalNotific, NqRing, Q7};

#[test]
fn the_q7_notific_nq_and_intc_slots_are_facts_exactly() {
    let facts: [(SubTable, &str, u32, SlotGrade, NullPolicy); 20] = [
        // [FACTS §13.3]: the swap slots MED, the loader slot HIGH; no source
        // gives what a NULL Q7 slot does.
        (Q7, "q7_swap_table", 0x390, Med, NotTraced),
        (
            Q7,
            "q7_swap_table_get_register_offsets",
            0x398,
            Med,
            NotTraced,
        ),
        (Q7, "q7_swap_file_io_table", 0x3A0, Med, NotTraced),
        (Q7, "q7_ucode_eng_init", 0x3A8, High, NotTraced),
        // [FACTS §12.3] (MED unless [FACTS §4], the current 004 §1, names it).
        (KhalNotific, "init", 0x3B0, High, Fatal),
        (KhalNotific, "get_timestamp", 0x3B8, Med, Fatal),
        (KhalNotific, "set_wr_buf_enable", 0x3C0, Med, Fatal),
        (KhalNotific, "update_wr_buf_enable", 0x3C8, Med, Fatal),
        (KhalNotific, "set_axi_id", 0x3D0, High, Fatal),
        (KhalNotific, "update_hw_bp", 0x3D8, Med, Fatal),
        (KhalNotific, "set_bp_config", 0x3E0, Med, Fatal),
        (KhalNotific, "set_coalescer_stream", 0x3E8, High, Fatal),
        (KhalNotific, "set_coalescer_bypass", 0x3F0, Med, Fatal),
        (KhalNotific, "get_timestamp_inc", 0x3F8, Med, Fatal),
        (KhalNotific, "nq_get_notification_size", 0x400, High, Fatal),
        (NqRing, "nq_reset", 0x440, High, Fatal),
        (KhalIntc, "mask_vector", 0x480, High, Fatal),
        (KhalIntc, "set_notific_queue_base", 0x4A8, High, Fatal),
        (KhalIntc, "set_cause", 0x4C8, Med, Fatal),
        (KhalIntc, "read_cause", 0x4D0, High, Fatal),
    ];
    let got: Vec<_> = SLOTS
        .iter()
        .filter(|s| !matches!(s.table, SubTable::Engine(_)))
        .map(|s| (s.table, s.op, s.offset, s.grade, s.null_policy()))
        .collect();
    assert_eq!(got, facts);
    assert_eq!(
        SLOTS
            .iter()
            .find(|s| s.table == KhalIntc && s.op == "set_cause")
            .map(|s| s.offset),
        Some(0x4C8),
        "lookup by band and name"
    );
}

#[test]
fn every_slot_is_an_aligned_distinct_cell_of_the_245_slot_object() {
    // [002 §1]: 245 eight-byte slots (0x7A8 bytes).
    for (i, a) in SLOTS.iter().enumerate() {
        assert_eq!(a.offset % 8, 0, "{a:?}");
        assert!(a.offset < 245 * 8, "{a:?}");
        for b in SLOTS.iter().skip(i + 1) {
            assert_ne!(a.offset, b.offset, "{a:?} / {b:?}");
        }
    }
}
