//! khal: the per-silicon device layer of a Trainium-class accelerator, in Rust.
//!
//! # Where to begin
//!
//! 1. Pick the chip by cargo feature (below). A firmware crate enables one
//!    arch and writes `khal::Selected`; a host program enables all three and
//!    `std`, and binds [`AnyArch`](crate#features) from the arch id it reads.
//! 2. `use khal::prelude::*;` brings the register-family traits (such as
//!    `TpbBases`) into scope, so `Selected::tpb_base(..)` resolves.
//! 3. Read the [`guide`]: runnable examples of every main entry point (bind an
//!    arch, read the register matrix, check accesses against the CSR windows
//!    (and pick the table's lookup), bring up a notification engine and
//!    drain an NQ ring, drain it asynchronously beside a device task, record
//!    a golden MMIO trace, mask an MSI-X vector, load the DVE tables) on the
//!    built-in device model, and what a firmware crate depends on.
//! 4. The layers themselves (crate `khal-core`) are modules of this crate:
//!    [`csr`] (every access checked against a registered window),
//!    [`notific`], [`intc`], [`dve`], [`engine`]. Every constant cites its
//!    source in the reference notes (`[000 §3]`, `[004 §2]`, …).
//!
//! ```
//! use khal::prelude::*;
//! # #[cfg(all(feature = "sunda", feature = "cayman", feature = "mariana"))]
//! # use khal::Cayman as Selected; // (a host build of all three has no `Selected`)
//! # #[cfg(not(all(feature = "sunda", feature = "cayman", feature = "mariana")))]
//! use khal::Selected;
//!
//! let tile = Selected::tile(0)?; // a validated tile index
//! let _base: khal::DeviceAddr = Selected::tpb_base(tile);
//! assert!(Selected::tile(1000).is_err()); // out of range: a typed error, never a panic
//! # Ok::<(), khal::Error>(())
//! ```
//!
//! # Features
//!
//! | features | what you get |
//! | --- | --- |
//! | exactly one of `sunda`, `cayman`, `mariana` | `Selected` names that arch; drivers bound to it dispatch statically (firmware) |
//! | all three | `AnyArch`: run-time dispatch from a validated arch id (hosts) |
//! | none, or exactly two | a `compile_error!` saying what to enable |
//! | several on `target_os = "none"` | a `compile_error!` naming the enabled arch features: firmware is for one chip |
//! | `std` | the host backends and the device model (`khal::std_adapter`, crate `khal-std`) |
//! | `tokio` | `std`, plus `khal::std_adapter::TokioDelay`: the async waits on tokio's timer |
//! | `defmt` / `log` | route khal's logging (firmware / host); not both |
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(not(any(feature = "sunda", feature = "cayman", feature = "mariana")))]
compile_error!(
    "khal: select an arch feature: `sunda` (arch 2), `cayman` (arch 3) or `mariana` (arch 4); \
     all three for a run-time `AnyArch` host build"
);

// Firmware is built for one chip: several arch features there are a mistake
// (often feature unification through two dependencies), named in full.
#[cfg(all(
    target_os = "none",
    feature = "sunda",
    feature = "cayman",
    feature = "mariana"
))]
compile_error!(
    "khal: arch features `sunda`, `cayman` and `mariana` are all enabled on a target_os = \"none\" \
     build; firmware is for one chip: enable exactly one"
);

/// The refusals of exactly two arch features `$a` and `$b` (without `$off`):
/// on firmware, several arches are a mistake (as above); on a host, two give
/// neither `Selected` nor `AnyArch` (`AnyArch` dispatches over all three arch
/// types, its match arms checked against the three ids), so say so instead
/// of "cannot find type".
macro_rules! refuse_two_arches {
    ($a:literal, $b:literal, $off:literal) => {
        #[cfg(all(target_os = "none", feature = $a, feature = $b, not(feature = $off)))]
        compile_error!(concat!(
            "khal: arch features `",
            $a,
            "` and `",
            $b,
            "` are both enabled on a ",
            "target_os = \"none\" build; firmware is for one chip: enable exactly one"
        ));
        #[cfg(all(not(target_os = "none"), feature = $a, feature = $b, not(feature = $off)))]
        compile_error!(concat!(
            "khal: arch features `",
            $a,
            "` and `",
            $b,
            "` are enabled, `",
            $off,
            "` is not: ",
            "enable exactly one (`khal::Selected`, static dispatch) or all three ",
            "(`khal::AnyArch`, run-time dispatch)"
        ));
    };
}
refuse_two_arches!("sunda", "cayman", "mariana");
refuse_two_arches!("sunda", "mariana", "cayman");
refuse_two_arches!("cayman", "mariana", "sunda");

#[cfg(all(feature = "defmt", feature = "log"))]
compile_error!("khal: the `defmt` and `log` features are exclusive; pick one logger");

// khal-core's layers, one module each, under their own names: a user writes
// `khal::notific::NqRing`, and `core` keeps meaning the language's crate.
pub use khal_core::wait;
pub use khal_core::{asynch, csr, dma, dve, engine, family, fnv, intc, mmio, notific, q7, regs};
// The vocabulary every layer speaks, at the root.
pub use khal_core::{
    ArchId, Bounded, DeviceAddr, Engine, Error, ErrorAddr, Fault, HostVisible, MeshHalf, Mmio,
    Result, HOST_VISIBLE_REBASE, MESH_HIGH_BIT,
};
// The macros: a `static_dma!` buffer and a `register_block!` description.
pub use khal_core::{register_block, static_dma};

#[cfg(feature = "sunda")]
#[cfg_attr(docsrs, doc(cfg(feature = "sunda")))]
pub use khal_arch_sunda::Sunda;

#[cfg(feature = "cayman")]
#[cfg_attr(docsrs, doc(cfg(feature = "cayman")))]
pub use khal_arch_cayman::Cayman;

#[cfg(feature = "mariana")]
#[cfg_attr(docsrs, doc(cfg(feature = "mariana")))]
pub use khal_arch_mariana::Mariana;

#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub use khal_std as std_adapter;

pub mod prelude;

#[cfg(all(
    feature = "std",
    feature = "sunda",
    feature = "cayman",
    feature = "mariana"
))]
pub mod guide;

/// A guided tour of the main entry points (runnable examples on the device
/// model).
///
/// The examples need the host backends and all three arches: this build does
/// not have them, so the tour is not compiled here. Read it on the crate's
/// documentation (built with `std`, `sunda`, `cayman`, `mariana`), or build
/// it locally with
/// `cargo doc -p khal --features std,sunda,cayman,mariana --open`
/// (the source is `src/guide.rs`).
#[cfg(not(all(
    feature = "std",
    feature = "sunda",
    feature = "cayman",
    feature = "mariana"
)))]
pub mod guide {}

/// The arch this single-arch build is for.
#[cfg(all(feature = "sunda", not(feature = "cayman"), not(feature = "mariana")))]
pub type Selected = khal_arch_sunda::Sunda;

/// The arch this single-arch build is for.
#[cfg(all(feature = "cayman", not(feature = "sunda"), not(feature = "mariana")))]
pub type Selected = khal_arch_cayman::Cayman;

/// The arch this single-arch build is for.
#[cfg(all(feature = "mariana", not(feature = "sunda"), not(feature = "cayman")))]
pub type Selected = khal_arch_mariana::Mariana;

/// The arch of a single-arch build: `Sunda`, `Cayman` or `Mariana`, whichever
/// one arch feature is enabled; every per-arch answer is then a constant of
/// this type (`Selected::tpb_base(tile)`).
///
/// Shown here as `Cayman` because this documentation build has all three
/// arches, where a program uses [`AnyArch`] instead; outside `cargo doc`
/// `Selected` exists only with exactly one arch feature.
#[cfg(all(doc, feature = "sunda", feature = "cayman", feature = "mariana"))]
#[cfg_attr(
    docsrs,
    doc(cfg(any(feature = "sunda", feature = "cayman", feature = "mariana")))
)]
pub type Selected = khal_arch_cayman::Cayman;

/// Run-time dispatch over the three arches, built from a validated arch id
/// (a host build with all three arch features) [002 §1].
#[cfg(all(feature = "sunda", feature = "cayman", feature = "mariana"))]
#[cfg_attr(
    docsrs,
    doc(cfg(all(feature = "sunda", feature = "cayman", feature = "mariana")))
)]
pub type AnyArch = khal_core::engine::AnyArch<
    khal_arch_sunda::Sunda,
    khal_arch_cayman::Cayman,
    khal_arch_mariana::Mariana,
>;
