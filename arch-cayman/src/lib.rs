//! CAYMAN (arch 3, Trn2): the const tables and leaf behaviour of this generation.
//!
//! Everything is data behind the [`khal_core::family`] traits, implemented on
//! the uninhabited type [`Cayman`].
//!
//! # Features
//!
//! | feature | what you get |
//! | --- | --- |
//! | (none, the default) | everything: the tables need no allocator, no `std`, no logger |
//! | `defmt` | `khal-core`'s `defmt` feature: `defmt::Format` for the types these tables answer with |
#![cfg_attr(not(test), no_std)]
#![forbid(unsafe_code)]
#![deny(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

/// CAYMAN, arch 3. Uninhabited: it names the arch at the type level only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cayman {}

pub mod engine;
mod matrix;
mod ops;
