//! The `kaena_khal` dispatch slots khal knows, as data (offset = slot
//! address − `0xCA_EB80`) [002 §1–§3], [002r1 §3], [004 §1], [004r1 §1],
//! [FACTS §4, §12.2, §12.3, §13.3].
//!
//! khal dispatches through the op traits (`ops`, [`crate::intc`])
//! and the notific engine's methods, never through a slot table; this table
//! is what `khal map` and the slot tests read, with each slot's sub-table,
//! grade and NULL policy. The ACT band starts at `+0x210` (its
//! `instr_debug_level_set`), not `+0x200` as [002 §4] reads: `+0x200` is
//! DVE's `instr_debug_level_set` [002r1 §3]. Which of these slots each arch
//! fills beyond what [002 §3] says is NOT TRACED (SUNDA leaves at least
//! `pooling_hw_decode_table_init` NULL).
//!
//! Grades: the engine slots of [002r1 §3] are HIGH (the current revision
//! says its slot values "were already right and are unchanged"); the notific,
//! NQ and INTC slots the current [004 §1] names are HIGH, the others of
//! [004r1 §1] MED [FACTS §12]; the three Q7 swap slots are MED, the Q7 loader
//! slot HIGH [FACTS §13.3].

use crate::ids::Engine;

/// What a NULL slot does [002 §3 GOTCHA], [FACTS §4].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum NullPolicy {
    /// The shim asserts (DVE, every notific, NQ and INTC op).
    Fatal,
    /// The shim returns 0 (PE, ACT, Pooling, SP).
    Silent,
    /// No source gives it (the Q7 slots): khal gives none.
    NotTraced,
}

/// The sub-table (band) of `kaena_khal` a slot sits in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SubTable {
    /// An engine's band of `khal_stpb` (PE, ACT, POOL, DVE) or `khal_sp` (SP).
    Engine(Engine),
    /// The Q7 slots `+0x390..+0x3A8` [FACTS §13.3].
    Q7,
    /// `khal_notific` `+0x3B0..+0x400` [004 §1], [004r1 §1].
    KhalNotific,
    /// The NQ-ring band `+0x408..+0x4D0` [004 §1].
    NqRing,
    /// `khal_intc` `+0x480..+0x4D8` [004 §1], [004r1 §1].
    KhalIntc,
}

impl SubTable {
    /// The band's name as `khal map` prints it.
    pub const fn name(self) -> &'static str {
        match self {
            SubTable::Engine(e) => e.name(),
            SubTable::Q7 => "q7",
            SubTable::KhalNotific => "notific",
            SubTable::NqRing => "nq",
            SubTable::KhalIntc => "intc",
        }
    }
}

/// How well the sources give a slot's offset [FACTS §12, §13].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum SlotGrade {
    /// The current notes (or a sibling page) give it.
    High,
    /// Only the earlier revision's table, or a page's INFERRED.
    Med,
}

/// One dispatch slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    /// The sub-table.
    pub table: SubTable,
    /// The op's C name (without the `aws_hal_<band>_` prefix).
    pub op: &'static str,
    /// `kaena_khal + offset`.
    pub offset: u32,
    /// The offset's grade.
    pub grade: SlotGrade,
}

const fn b(table: SubTable, op: &'static str, offset: u32, grade: SlotGrade) -> Slot {
    Slot {
        table,
        op,
        offset,
        grade,
    }
}

const fn e(engine: Engine, op: &'static str, offset: u32) -> Slot {
    b(SubTable::Engine(engine), op, offset, High)
}

use Engine::{Act, Dve, Pe, Pool, Sp};
use SlotGrade::{High, Med};
use SubTable::{KhalIntc, KhalNotific, NqRing, Q7};

/// Every slot khal knows: the engine slots of [002r1 §3] in offset order per
/// engine, then the Q7, notific, NQ and INTC slots.
pub const SLOTS: [Slot; 75] = [
    // DVE (fatal when NULL)
    e(Dve, "reset_rng_seed", 0x1F8),
    e(Dve, "instr_debug_level_set", 0x200),
    e(Dve, "regs_init", 0x208),
    e(Dve, "get_timestamp_inc", 0x278),
    e(Dve, "ucode_seq_init", 0x280),
    e(Dve, "release_run_stall", 0x288),
    e(Dve, "dma_init", 0x290),
    e(Dve, "write_parameter_ram", 0x298),
    e(Dve, "write_tables", 0x2A0),
    e(Dve, "hw_decode_table_init", 0x2A8),
    e(Dve, "dve_init", 0x2B0),
    // ACT (silent)
    e(Act, "instr_debug_level_set", 0x210),
    e(Act, "regs_init", 0x218),
    e(Act, "ucode_seq_init", 0x2B8),
    e(Act, "release_run_stall", 0x2C0),
    e(Act, "dma_init", 0x2C8),
    e(Act, "load_local", 0x2D0),
    e(Act, "hw_decode_table_init", 0x2D8),
    e(Act, "act_init", 0x2E0),
    // PE (silent)
    e(Pe, "instr_debug_level_set", 0x2E8),
    e(Pe, "regs_init", 0x2F0),
    e(Pe, "ucode_seq_init", 0x2F8),
    e(Pe, "release_run_stall", 0x300),
    e(Pe, "dma_init", 0x308),
    e(Pe, "hw_decode_table_init", 0x310),
    e(Pe, "pe_init", 0x318),
    e(Pe, "get_timestamp_inc", 0x320),
    e(Pe, "bg_xpose_get_offset", 0x328),
    // Pooling (silent)
    e(Pool, "instr_debug_level_set", 0x330),
    e(Pool, "regs_init", 0x338),
    e(Pool, "ucode_seq_init", 0x340),
    e(Pool, "release_seq_run_stall", 0x348),
    e(Pool, "release_eng_run_stall", 0x350),
    e(Pool, "dma_init", 0x358),
    e(Pool, "hw_decode_table_init", 0x360),
    e(Pool, "pooling_init", 0x368),
    e(Pool, "set_dge_dma_mapping", 0x370),
    e(Pool, "get_dge_dma_mapping_register_offset_and_val", 0x378),
    e(Pool, "set_dge_carveout", 0x380),
    e(Pool, "get_dge_carveout_register_offset_and_val", 0x388),
    // SP (silent) [002 §2]
    e(Sp, "topsp_evsem_notif_hw_bp_enable", 0x6D8),
    e(Sp, "regs_init", 0x6E0),
    e(Sp, "ucode_seq_init", 0x6E8),
    e(Sp, "release_run_stall", 0x6F0),
    e(Sp, "topsp_set_init_signal", 0x6F8),
    e(Sp, "topsp_set_tsync_signal", 0x700),
    e(Sp, "topsp_set_host_trigger", 0x708),
    e(Sp, "topsp_get_host_trigger_reg_offset", 0x710),
    e(Sp, "topsp_set_stop_signal", 0x718),
    e(Sp, "topsp_get_stop_signal_reg_offset", 0x720),
    e(Sp, "topsp_get_basic_block_switch_reg_offset", 0x728),
    e(Sp, "topsp_read_config_addr", 0x730),
    e(Sp, "dma_init", 0x738),
    e(Sp, "program_start", 0x740),
    e(Sp, "check_run_state", 0x748),
    // The Q7 slots [FACTS §13.3]: the swap tables (MED), the loader.
    b(Q7, "q7_swap_table", 0x390, Med),
    b(Q7, "q7_swap_table_get_register_offsets", 0x398, Med),
    b(Q7, "q7_swap_file_io_table", 0x3A0, Med),
    b(Q7, "q7_ucode_eng_init", 0x3A8, High),
    // khal_notific [004 §1] (HIGH), [004r1 §1] (MED) [FACTS §4, §12.3]
    b(KhalNotific, "init", 0x3B0, High),
    b(KhalNotific, "get_timestamp", 0x3B8, Med),
    b(KhalNotific, "set_wr_buf_enable", 0x3C0, Med),
    b(KhalNotific, "update_wr_buf_enable", 0x3C8, Med),
    b(KhalNotific, "set_axi_id", 0x3D0, High),
    b(KhalNotific, "update_hw_bp", 0x3D8, Med),
    b(KhalNotific, "set_bp_config", 0x3E0, Med),
    b(KhalNotific, "set_coalescer_stream", 0x3E8, High),
    b(KhalNotific, "set_coalescer_bypass", 0x3F0, Med),
    b(KhalNotific, "get_timestamp_inc", 0x3F8, Med),
    b(KhalNotific, "nq_get_notification_size", 0x400, High),
    // The NQ ring band [004 §3]
    b(NqRing, "nq_reset", 0x440, High),
    // khal_intc [004 §1] (HIGH), [004r1 §1] (MED)
    b(KhalIntc, "mask_vector", 0x480, High),
    b(KhalIntc, "set_notific_queue_base", 0x4A8, High),
    b(KhalIntc, "set_cause", 0x4C8, Med),
    b(KhalIntc, "read_cause", 0x4D0, High),
];

impl Slot {
    /// The NULL policy of the slot's sub-table [002 §3 GOTCHA], [FACTS §4]:
    /// DVE and every notific, NQ and INTC op fatal, the other engines silent;
    /// the Q7 slots' is in no source. (`nq_get_notification_size` has no
    /// assert at all: its shim jumps through the slot [004 §1 GOTCHA].)
    pub const fn null_policy(self) -> NullPolicy {
        match self.table {
            SubTable::Engine(Engine::Dve) | KhalNotific | NqRing | KhalIntc => NullPolicy::Fatal,
            SubTable::Engine(_) => NullPolicy::Silent,
            Q7 => NullPolicy::NotTraced,
        }
    }
}

/// The slot's offset in hex, as the notes list it.
#[cfg(feature = "defmt")]
impl defmt::Format for Slot {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(
            f,
            "Slot {{ table: {}, op: {=str}, offset: {=u32:#x}, grade: {} }}",
            self.table,
            self.op,
            self.offset,
            self.grade
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn act_band_starts_at_0x210_and_slots_are_distinct() {
        let act_min = SLOTS
            .iter()
            .filter(|s| s.table == SubTable::Engine(Engine::Act))
            .map(|s| s.offset)
            .min();
        assert_eq!(act_min, Some(0x210));
        assert_eq!(
            SLOTS
                .iter()
                .find(
                    |s| s.table == SubTable::Engine(Engine::Dve) && s.op == "instr_debug_level_set"
                )
                .map(|s| s.offset),
            Some(0x200)
        );
        for (i, a) in SLOTS.iter().enumerate() {
            assert_eq!(a.offset % 8, 0);
            for b in SLOTS.iter().skip(i + 1) {
                assert_ne!(a.offset, b.offset, "{} / {}", a.op, b.op);
            }
        }
    }
}
