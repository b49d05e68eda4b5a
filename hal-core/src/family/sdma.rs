//! The SDMA limits `get_sdma_*` [hal-registers §1–§4], [FACTS §13.9].

/// The three SDMA limits of an arch (other arch ids assert in C).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SdmaLimits {
    /// `max_fma_sources`: SUNDA 16, CAYMAN 16, MARIANA 32.
    pub max_fma_sources: u32,
    /// `max_cce_elements`: SUNDA 1024, CAYMAN 2048, MARIANA 2048.
    pub max_cce_elements: u32,
    /// `max_hw_dge_count`: SUNDA 0, CAYMAN 2, MARIANA 2.
    pub max_hw_dge_count: u32,
}

/// The SDMA-limit family.
pub trait Sdma {
    /// This arch's limits [FACTS §13.9].
    const SDMA_LIMITS: SdmaLimits;
}
