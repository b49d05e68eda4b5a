//! Bench: NQ drain throughput vs memcpy, MMIO counts (filled by the NQ work).

fn main() {}
