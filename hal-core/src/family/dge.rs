//! The DGE carveout and DMA-mapping registers and the carveout cap
//! [arch-stpb §3–§4], [devmap-dma §6.3], [FACTS §12.1, §13.8].
//!
//! The cap is a per-arch literal the setter checks against, never read from
//! the device: SUNDA `0x3_0000`, CAYMAN `0x3_8000`, MARIANA `0x4_0000`. The
//! registers are in the POOL XT/NX window (`xt_local(mem, 2, 1)`): CAYMAN
//! `SW_DGE_CARVEOUT` `+0x14E0`, `SW_DGE_DMA_MAPPING` `+0x1500` (MED
//! [000r1 §3]); NOT TRACED on SUNDA and MARIANA (§13.11).

use crate::error::{Error, Result};
use crate::regs::Reg;

/// The DGE family.
pub trait DgeRegs {
    /// The carveout cap: `offset + size` must not exceed it [FACTS §13.8].
    const DGE_CARVEOUT_CAP: u32;

    default_fns! {
        /// NX `SW_DGE_CARVEOUT` (device: local reg 39 `MEMCOPY_CARVEOUT_CFG`).
        fn sw_dge_carveout() -> Result<Reg>
            = Err(Error::NotTraced("sw_dge_carveout register offset"));
        /// NX `SW_DGE_DMA_MAPPING` (device: local reg 40 `MEMCOPY_DMA_CFG`).
        fn sw_dge_dma_mapping() -> Result<Reg>
            = Err(Error::NotTraced("sw_dge_dma_mapping register offset"));
    }
}
