//! khal core: the vocabulary, the register-family traits and the generic drivers of khal.
//!
//! Everything here is `no_std`, allocation-free and arch-agnostic: an arch is data
//! behind the traits of [`family`], implemented by the `khal-arch-*` crates on
//! uninhabited types. Drivers are generic over [`Mmio`], so the same code
//! runs against a firmware volatile window, a host mmap or the device model.
//!
//! # Features
//!
//! | feature | what you get |
//! | --- | --- |
//! | (none, the default) | everything: `no_std`, no allocator, no logger |
//! | `defmt` | `defmt::Format` for every public type, and the drivers' events logged through `defmt` (firmware) |
//! | `log` | the drivers' events logged through the `log` facade (hosts); exclusive with `defmt` |
//! | `alloc` | one use of the `alloc` crate: `?` from a refused ring ([`notific::RefusedRing`]) into `Box<dyn Error>`; on with `khal-std`, nothing allocates anywhere else |
#![cfg_attr(not(test), no_std)]
#![deny(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    clippy::undocumented_unsafe_blocks
)]
// The only `unsafe` of this crate lives in `mmio::volatile`, `mmio::bound` and `dma::static_mem`
// (the firmware backends), which re-allow it.
#![deny(unsafe_code)]

/// `?` for a `const fn`, where `?` is not allowed: the `Ok` value, or return
/// the error.
macro_rules! const_try {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Err(e),
        }
    };
}

/// `core::fmt` traits (`Display`, `Debug`) and `defmt::Format` of a type
/// that prints as the one `u64` of its `get()`: `$fmt` is the `core::fmt`
/// format string, `$dfmt` the same in defmt's grammar.
macro_rules! hex_fmt {
    ($ty:ty: $($tr:ident),+; $fmt:literal, $dfmt:literal) => {
        $(
            impl core::fmt::$tr for $ty {
                fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    write!(f, $fmt, self.get())
                }
            }
        )+

        #[cfg(feature = "defmt")]
        impl defmt::Format for $ty {
            fn format(&self, f: defmt::Formatter<'_>) {
                defmt::write!(f, $dfmt, self.get())
            }
        }
    };
}

/// `Display` of each type as its `name()`.
macro_rules! display_name {
    ($($ty:ty),+) => {
        $(
            impl core::fmt::Display for $ty {
                fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                    f.write_str(self.name())
                }
            }
        )+
    };
}

// `fmt` must come first: its macros are used by every later module.
#[macro_use]
mod fmt;

pub(crate) mod addr;
pub mod asynch;
pub mod csr;
pub mod dma;
pub mod dve;
pub mod engine;
pub(crate) mod error;
pub mod family;
pub mod fnv;
pub(crate) mod ids;
pub mod intc;
pub mod mmio;
pub mod notific;
pub mod q7;
pub mod regs;
pub mod wait;

pub use addr::{DeviceAddr, HostVisible, MeshHalf, HOST_VISIBLE_REBASE, MESH_HIGH_BIT};
pub use error::{Error, ErrorAddr, Fault, Result};
pub use ids::{ArchId, Bounded, Engine};
pub use mmio::access::Mmio;
