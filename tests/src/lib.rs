//! Shared helpers for khal's integration tests (the tests live in `tests/tests/`).

pub mod nq;
