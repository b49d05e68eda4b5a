//! Bench: typed register access vs raw volatile (filled by the proof work).

fn main() {}
