//! The CSR region layer of [000 §1] (filled by the foundation work).
