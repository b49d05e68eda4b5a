//! The DGE carveout cap [arch-stpb §3–§4], [FACTS §12.1, §13.8].
//!
//! The cap is a per-arch literal the setter checks against, never read from
//! the device: SUNDA `0x3_0000`, CAYMAN `0x3_8000`, MARIANA `0x4_0000`. The
//! registers it guards are NX registers of the POOL XT/NX window
//! ([`crate::family::NxLocalRegs::sw_dge_carveout`],
//! [`crate::family::NxLocalRegs::sw_dge_dma_mapping`]) [devmap-dma §6.3].

/// The DGE family.
pub trait DgeRegs {
    /// The carveout cap: `offset + size` must not exceed it [FACTS §13.8].
    const DGE_CARVEOUT_CAP: u32;
}
