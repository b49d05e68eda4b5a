//! SUNDA register-matrix tables (filled by the register-matrix work).
