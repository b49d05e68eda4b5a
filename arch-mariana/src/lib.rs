//! MARIANA (arch 4, Trn3, two-die mesh): the const tables and leaf behaviour of this generation.
//!
//! Everything is data behind the [`khal_core::family`] traits, implemented on
//! the uninhabited type [`Mariana`].
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![deny(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

/// MARIANA, arch 4. Uninhabited: it names the arch at the type level only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mariana {}

mod engine;
mod matrix;
mod ops;
