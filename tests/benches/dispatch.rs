//! Bench: static vs AnyArch dispatch (filled by the engine work).

fn main() {}
