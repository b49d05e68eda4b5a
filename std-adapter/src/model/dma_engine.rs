//! The DMA engine model (filled by the DMA work).
