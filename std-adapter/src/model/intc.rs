//! The MSI-X INTC model (filled by the engine work).
