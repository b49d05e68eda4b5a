//! khal: the per-silicon device layer of a Trainium-class accelerator, in Rust.
//!
//! This facade picks the chip generation by cargo feature:
//!
//! - exactly one of `sunda`, `cayman`, `mariana`: `Selected` names that arch,
//!   and drivers bound to it dispatch statically;
//! - several: no `Selected`; hosts dispatch at run time through the
//!   `AnyArch` of the engine layer, built from a validated arch id;
//! - none: a `compile_error!` names the three.
//!
//! `std` adds the host backends and the device model ([`std_adapter`]);
//! `defmt` or `log` routes khal's logging (not both).
#![no_std]

#[cfg(not(any(feature = "sunda", feature = "cayman", feature = "mariana")))]
compile_error!(
    "khal: select an arch feature: `sunda` (arch 2), `cayman` (arch 3) or `mariana` (arch 4); \
     several for a runtime `AnyArch` host build"
);

#[cfg(all(feature = "defmt", feature = "log"))]
compile_error!("khal: the `defmt` and `log` features are exclusive; pick one logger");

pub use khal_core as core;
pub use khal_core::{ArchId, DeviceAddr, Engine, Error, HostVisible, Mmio, Result};

#[cfg(feature = "sunda")]
pub use khal_arch_sunda::Sunda;

#[cfg(feature = "cayman")]
pub use khal_arch_cayman::Cayman;

#[cfg(feature = "mariana")]
pub use khal_arch_mariana::Mariana;

#[cfg(feature = "std")]
pub use khal_std as std_adapter;

#[cfg(all(
    feature = "std",
    feature = "sunda",
    feature = "cayman",
    feature = "mariana"
))]
pub mod guide;

/// The arch this single-arch build is for.
#[cfg(all(feature = "sunda", not(feature = "cayman"), not(feature = "mariana")))]
pub type Selected = khal_arch_sunda::Sunda;

/// The arch this single-arch build is for.
#[cfg(all(feature = "cayman", not(feature = "sunda"), not(feature = "mariana")))]
pub type Selected = khal_arch_cayman::Cayman;

/// The arch this single-arch build is for.
#[cfg(all(feature = "mariana", not(feature = "sunda"), not(feature = "cayman")))]
pub type Selected = khal_arch_mariana::Mariana;

/// Run-time dispatch over the three arches, built from a validated arch id
/// (a host build with all three arch features) [002 §1].
#[cfg(all(feature = "sunda", feature = "cayman", feature = "mariana"))]
pub type AnyArch = khal_core::engine::AnyArch<
    khal_arch_sunda::Sunda,
    khal_arch_cayman::Cayman,
    khal_arch_mariana::Mariana,
>;
