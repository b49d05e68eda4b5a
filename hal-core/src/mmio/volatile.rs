//! Direct volatile-pointer MMIO for firmware (filled by the foundation work).
