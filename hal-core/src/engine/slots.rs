//! The full dispatch slot lists of the engine sub-tables (`kaena_khal`
//! offsets = slot address − `0xCA_EB80`) [002 §2, §3], [002r1 §3],
//! [FACTS §4, §12.2].
//!
//! Data only: the op traits ([`super::ops`]) name each op's slot in its doc;
//! this table is what `khal map` and the slot tests read. The ACT band starts
//! at `+0x210` (its `instr_debug_level_set`), not `+0x200` as [002 §4] reads:
//! `+0x200` is DVE's `instr_debug_level_set` [002r1 §3]. Which of these slots
//! each arch fills beyond what [002 §3] says is NOT TRACED (SUNDA leaves at
//! least `pooling_hw_decode_table_init` NULL).

use crate::ids::Engine;

/// What a NULL slot does [002 §3 GOTCHA].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum NullPolicy {
    /// The shim asserts (DVE).
    Fatal,
    /// The shim returns 0 (PE, ACT, Pooling, SP).
    Silent,
}

/// One dispatch slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slot {
    /// The engine sub-table.
    pub engine: Engine,
    /// The op's C name (without the `aws_hal_stpb_<eng>_` prefix).
    pub op: &'static str,
    /// `kaena_khal + offset`.
    pub offset: u32,
}

const fn s(engine: Engine, op: &'static str, offset: u32) -> Slot {
    Slot { engine, op, offset }
}

/// Every engine slot of [002r1 §3], in offset order per engine.
pub const SLOTS: [Slot; 58] = [
    // DVE (fatal when NULL)
    s(Engine::Dve, "reset_rng_seed", 0x1F8),
    s(Engine::Dve, "instr_debug_level_set", 0x200),
    s(Engine::Dve, "regs_init", 0x208),
    s(Engine::Dve, "get_timestamp_inc", 0x278),
    s(Engine::Dve, "ucode_seq_init", 0x280),
    s(Engine::Dve, "release_run_stall", 0x288),
    s(Engine::Dve, "dma_init", 0x290),
    s(Engine::Dve, "write_parameter_ram", 0x298),
    s(Engine::Dve, "write_tables", 0x2A0),
    s(Engine::Dve, "hw_decode_table_init", 0x2A8),
    s(Engine::Dve, "dve_init", 0x2B0),
    // ACT (silent)
    s(Engine::Act, "instr_debug_level_set", 0x210),
    s(Engine::Act, "regs_init", 0x218),
    s(Engine::Act, "ucode_seq_init", 0x2B8),
    s(Engine::Act, "release_run_stall", 0x2C0),
    s(Engine::Act, "dma_init", 0x2C8),
    s(Engine::Act, "load_local", 0x2D0),
    s(Engine::Act, "hw_decode_table_init", 0x2D8),
    s(Engine::Act, "act_init", 0x2E0),
    // PE (silent)
    s(Engine::Pe, "instr_debug_level_set", 0x2E8),
    s(Engine::Pe, "regs_init", 0x2F0),
    s(Engine::Pe, "ucode_seq_init", 0x2F8),
    s(Engine::Pe, "release_run_stall", 0x300),
    s(Engine::Pe, "dma_init", 0x308),
    s(Engine::Pe, "hw_decode_table_init", 0x310),
    s(Engine::Pe, "pe_init", 0x318),
    s(Engine::Pe, "get_timestamp_inc", 0x320),
    s(Engine::Pe, "bg_xpose_get_offset", 0x328),
    // Pooling (silent)
    s(Engine::Pool, "instr_debug_level_set", 0x330),
    s(Engine::Pool, "regs_init", 0x338),
    s(Engine::Pool, "ucode_seq_init", 0x340),
    s(Engine::Pool, "release_seq_run_stall", 0x348),
    s(Engine::Pool, "release_eng_run_stall", 0x350),
    s(Engine::Pool, "dma_init", 0x358),
    s(Engine::Pool, "hw_decode_table_init", 0x360),
    s(Engine::Pool, "pooling_init", 0x368),
    s(Engine::Pool, "set_dge_dma_mapping", 0x370),
    s(
        Engine::Pool,
        "get_dge_dma_mapping_register_offset_and_val",
        0x378,
    ),
    s(Engine::Pool, "set_dge_carveout", 0x380),
    s(
        Engine::Pool,
        "get_dge_carveout_register_offset_and_val",
        0x388,
    ),
    // SP (silent) [002 §2]
    s(Engine::Sp, "topsp_evsem_notif_hw_bp_enable", 0x6D8),
    s(Engine::Sp, "regs_init", 0x6E0),
    s(Engine::Sp, "ucode_seq_init", 0x6E8),
    s(Engine::Sp, "release_run_stall", 0x6F0),
    s(Engine::Sp, "topsp_set_init_signal", 0x6F8),
    s(Engine::Sp, "topsp_set_tsync_signal", 0x700),
    s(Engine::Sp, "topsp_set_host_trigger", 0x708),
    s(Engine::Sp, "topsp_get_host_trigger_reg_offset", 0x710),
    s(Engine::Sp, "topsp_set_stop_signal", 0x718),
    s(Engine::Sp, "topsp_get_stop_signal_reg_offset", 0x720),
    s(Engine::Sp, "topsp_get_basic_block_switch_reg_offset", 0x728),
    s(Engine::Sp, "topsp_read_config_addr", 0x730),
    s(Engine::Sp, "dma_init", 0x738),
    s(Engine::Sp, "program_start", 0x740),
    s(Engine::Sp, "check_run_state", 0x748),
    // The Q7 slots (MED) [FACTS §13.3]
    s(Engine::Pool, "q7_swap_table", 0x390),
    s(Engine::Pool, "q7_swap_table_get_register_offsets", 0x398),
    s(Engine::Pool, "q7_swap_file_io_table", 0x3A0),
];

impl Slot {
    /// The NULL policy of the slot's sub-table.
    pub const fn null_policy(self) -> NullPolicy {
        match self.engine {
            Engine::Dve => NullPolicy::Fatal,
            _ => NullPolicy::Silent,
        }
    }
}

/// The slot of `op` on `engine`, if listed.
pub fn slot(engine: Engine, op: &str) -> Option<Slot> {
    SLOTS
        .iter()
        .copied()
        .find(|s| s.engine == engine && s.op == op)
}

/// The slot's offset in hex, as the notes list it.
#[cfg(feature = "defmt")]
impl defmt::Format for Slot {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(
            f,
            "Slot {{ engine: {}, op: {=str}, offset: {=u32:#x} }}",
            self.engine,
            self.op,
            self.offset
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
            .filter(|s| s.engine == Engine::Act)
            .map(|s| s.offset)
            .min();
        assert_eq!(act_min, Some(0x210));
        assert_eq!(
            slot(Engine::Dve, "instr_debug_level_set").map(|s| s.offset),
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
