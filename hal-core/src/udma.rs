//! UDMA M2M shims [004 §5] (filled by the engine work).
