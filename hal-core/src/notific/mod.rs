//! The per-engine notification block and the NQ rings [004 §2, §3] (filled by the NQ work).
