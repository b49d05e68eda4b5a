//! CAYMAN's engine op table [002 §1, §3], [002r1 §3], its engine-init leaves
//! [FACTS §13.4–§13.6] and its Q7 policy [004 §5], [FACTS §13.3].
//!
//! The CAYMAN registrar (`kaena_khal_register_funcs_v3`) installs real
//! backends, `pooling_hw_decode_table_init` included [002 §3]; which other
//! slots it fills is NOT TRACED [FACTS §12.2]: khal installs the leaves §13
//! describes. Its `StpbOps` comes from `khal_core::engine` over CAYMAN's
//! [`EngineLeaves`]: the inits run every step, HW decode included
//! [FACTS §13.6]; each leaf is the §13 program where the sources give it whole
//! (POOL's run-stall releases, the HW-decode table init, the Q7 ucode load) and
//! a `NotTraced` naming the missing piece, before any access, where they do not.
//!
//! Q7: the swap table is a successful no-op that touches nothing, whose offset
//! getter answers zeros [004 §5 QUIRK].

use khal_core::engine::{EngineLeaves, HwDecodeLeaves, Leaves};
use khal_core::q7::Q7SwapTable;
use khal_core::{DeviceAddr, Error, Mmio, Result};

use crate::Cayman;

/// CAYMAN's leaf data [FACTS §13.4–§13.6, §13.11].
impl EngineLeaves for Cayman {
    const LEAVES: Leaves = Leaves {
        // SUNDA/CAYMAN bodies not given (known only: no chicken bit there).
        dve_regs_init: Error::NotTraced("cayman dve regs_init body"),
        // As SUNDA for `+0xA00`/`+0x1260` (MED) plus W `+0xA14` = nibble × 8.
        pooling_regs_init: Error::NotTraced(
            "pooling regs_init: +0xE8 masks, values at +0x104/+0x804, source of the +0xA14 nibble",
        ),
        // Every engine's HW-decode slot runs the §13 program, POOL's included
        // [002 §3], [FACTS §13.6].
        hw_decode: HwDecodeLeaves::Program,
        // The SP leaves' bodies are not given [FACTS §13.4, §13.11].
        sp_regs_init: Error::NotTraced("cayman sp regs_init leaf"),
        sp_ucode_seq_init: Error::NotTraced("cayman sp ucode_seq_init leaf"),
        sp_release_run_stall: Error::NotTraced("cayman sp release_run_stall body"),
        sp_dma_init: Error::NotTraced("cayman sp dma_init leaf"),
    };
}

/// The swap table is inactive on CAYMAN: `xor eax,eax; ret`, no register
/// access [004 §5 QUIRK].
impl Q7SwapTable for Cayman {
    fn q7_swap_table<M: Mmio + ?Sized>(_: &M, _: DeviceAddr, _: u64, _: u32) -> Result<()> {
        Ok(())
    }
    fn q7_swap_table_register_offsets() -> Result<[u64; 3]> {
        Ok([0; 3])
    }
    fn q7_swap_file_io_table() -> Result<()> {
        Ok(())
    }
}
