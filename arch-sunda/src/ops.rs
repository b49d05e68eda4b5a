//! SUNDA's engine op table [002 §1, §3], [002r1 §3], its engine-init leaves
//! [FACTS §13.4–§13.6], and its SUNDA-only leaves: the DGE notification
//! enable [002 §4] and the real Q7 swap table [004 §5].
//!
//! The SUNDA registrar (`kaena_khal_register_funcs_v2`) leaves at least one
//! Pooling slot NULL on purpose, `pooling_hw_decode_table_init` (+0x360)
//! [002 §3]: that op keeps the trait's default no-op. Which of the other slots
//! it fills is NOT TRACED [FACTS §12.2] (the earlier revision lists the
//! slots, not which each arch fills); khal installs the leaves §13 describes
//! for SUNDA. SUNDA's PE/ACT inits skip the HW-decode call, its DVE init calls
//! a stub (0), its pooling_init's call list omits it (§13.10 #10); its Q7
//! run-stall release is a no-op [FACTS §13.4]. A leaf the sources do not give
//! whole answers `NotTraced` naming the missing piece, before any access.
//!
//! Its `StpbOps` comes from `khal_core::engine` over SUNDA's
//! [`EngineLeaves`]: the answers below, and no HW-decode program, so the PE,
//! ACT and POOL inits skip that step and DVE's calls its stub [FACTS §13.6].

use khal_core::engine::DgeNotif;
use khal_core::engine::{EngineLeaves, HwDecodeLeaves, Leaves};
use khal_core::q7::{self, Q7SwapTable};
use khal_core::regs::Reg;
use khal_core::{DeviceAddr, Error, Mmio, Result};

use crate::Sunda;

/// SUNDA's leaf data [FACTS §13.4–§13.6, §13.11].
impl EngineLeaves for Sunda {
    const LEAVES: Leaves = Leaves {
        // SUNDA/CAYMAN bodies not given (known only: no chicken bit there).
        dve_regs_init: Error::NotTraced("sunda dve regs_init body"),
        // Level set {map level; W `+0x104`; W xt `+0x804`; R xt `+0x14`}, RMW
        // `+0xA00`, W xt `+0x1260` [arch-stpb §1].
        pooling_regs_init: Error::NotTraced(
            "pooling regs_init: +0xE8 masks, values at +0x104/+0x804, the level mapping",
        ),
        // No HW-decode silicon: DVE's leaf is a stub (0, no access), PE/ACT's
        // inits skip the call and their leaves are no-op successes [FACTS §3.3,
        // §13.6]; the registrar leaves `pooling_hw_decode_table_init` (+0x360)
        // NULL, the optional slot's no-op success [002 §3].
        hw_decode: HwDecodeLeaves::NoOp,
        // The SP leaves' bodies are not given [FACTS §13.4, §13.11].
        sp_regs_init: Error::NotTraced("sunda sp regs_init leaf"),
        sp_ucode_seq_init: Error::NotTraced("sunda sp ucode_seq_init leaf"),
        sp_release_run_stall: Error::NotTraced("sunda sp release_run_stall body"),
        sp_dma_init: Error::NotTraced("sunda sp dma_init leaf"),
    };
}

/// SUNDA is the only arch with the DGE notification enable [002 §4 GOTCHA].
impl DgeNotif for Sunda {
    fn dge_notific_ctrl() -> Result<Reg> {
        Err(Error::NotTraced("sunda tpb dge_notific_ctrl offset"))
    }
}

/// The real 3-dword swap table in the POOL XT/NX window [004 §5], [FACTS §13.1].
impl Q7SwapTable for Sunda {
    fn q7_swap_table<M: Mmio + ?Sized>(
        mmio: &M,
        mem: DeviceAddr,
        lo_hi: u64,
        b: u32,
    ) -> Result<()> {
        q7::swap_table_via_window::<Sunda, M>(mmio, mem, lo_hi, b)
    }
    fn q7_swap_table_register_offsets() -> Result<[u64; 3]> {
        Err(Error::NotTraced(
            "sunda q7 swap-table register-offset getter",
        ))
    }
    /// W xt `+0x70`, `+0x74`, `+0x838` with (ring address, 1, ...): which value
    /// goes to which register is NOT TRACED (§13.11).
    fn q7_swap_file_io_table() -> Result<()> {
        Err(Error::NotTraced("sunda q7 swap_file_io_table value order"))
    }
}
