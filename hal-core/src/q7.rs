//! Q7 swap table and ucode loader shims [004 §5] (filled by the engine work).
