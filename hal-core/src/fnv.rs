//! FNV-1a 64 with a caller seed, the notes' `fnv_64a_buf` [000 §4] (filled by the DVE work).
