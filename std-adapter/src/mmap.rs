//! `MmapMmio`: a device window mapped from a file with memmap2 (filled by the foundation work).
