//! Bench: CSR region lookup, 4 vs 256 windows (filled by the foundation work).

fn main() {}
