//! The traits a khal user calls methods through, in one glob import:
//! `use khal::prelude::*;`.
//!
//! Per-arch answers are associated functions and constants of the arch types
//! (`Selected::tpb_base(tile)`, `Cayman::DVE_TABLES.param_ram_base`), defined by the
//! register-family traits of [`crate::family`]; the engine ops are traits
//! of [`crate::engine`] (the INTC ops are methods of [`crate::intc::Intc`]);
//! drivers take a backend through [`Mmio`] and DMA memory through the [`crate::dma`]
//! traits. Those traits must be in scope for their methods to resolve.

pub use khal_core::dma::{DmaAllocator, DmaMemory, DmaQueue};
pub use khal_core::engine::DgeNotif;
pub use khal_core::engine::{EngineOps, StpbOps};
pub use khal_core::family::{
    Arch, CapCfg, DgeRegs, DveTables, HbmMap, HwDecode, IramSizes, NotificMasks, NqMailboxMap,
    NxLocal, Q7Params, Sdma, SeqParams, TopSpNx, TpbBases, TpbRegGates,
};
pub use khal_core::q7::Q7SwapTable;
pub use khal_core::Mmio;
