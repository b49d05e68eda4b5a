//! The MARIANA MSI-X interrupt controller [004 §4] (filled by the engine work).
