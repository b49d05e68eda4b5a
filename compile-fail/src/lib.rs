//! Compile-fail tests of the khal family (trybuild), all in one run: the
//! cases are `tests/ui/*.rs` with their expected diagnostics in
//! `tests/ui/*.stderr`, driven by `tests/compile_fail.rs`. This library is
//! empty; the crate exists so that trybuild builds only khal's own
//! dependencies.
#![no_std]
