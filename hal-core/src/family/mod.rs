//! Per-arch register-family traits, one file each (filled by the register-matrix work).
