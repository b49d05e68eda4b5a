//! `AnyArch`: run-time dispatch for hosts that serve whichever device they
//! find [002 §1], ARCHITECTURE rule 3.
//!
//! An `AnyArch` can only be built from a validated arch id: 0 (INVALID,
//! nothing latched) and unknown ids are refused by [`ArchId::try_from`], so
//! there is no unbound state to assert at each call. It is an enum over the
//! three arch *types*; each method is one `match` whose arms call the same
//! generic function a single-arch build calls statically. `khal-core` cannot
//! name the arch crates, so the enum is generic over them; the facade names it
//! `khal::AnyArch = AnyArch<Sunda, Cayman, Mariana>`. The type parameters are
//! checked at compile time to be SUNDA, CAYMAN, MARIANA in that order.

use core::marker::PhantomData;

use super::init::{self, StepLog};
use super::notif::{self, DgeNotif};
use super::params::{EngineParams, PeParams, PoolingParams, SpHandle};
use super::program;
use super::stpb::{self, RawStpbConfig, SpInit, StpbConfig};
use super::EngineOps;
use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::family::Tile;
use crate::ids::ArchId;
use crate::notific::NotificEngine;
use crate::Mmio;

/// A bound arch chosen at run time among SUNDA (`Su`), CAYMAN (`Ca`) and
/// MARIANA (`Ma`).
pub enum AnyArch<Su, Ca, Ma> {
    /// SUNDA, arch 2.
    Sunda(PhantomData<fn() -> Su>),
    /// CAYMAN, arch 3.
    Cayman(PhantomData<fn() -> Ca>),
    /// MARIANA, arch 4.
    Mariana(PhantomData<fn() -> Ma>),
}

impl<Su, Ca, Ma> Clone for AnyArch<Su, Ca, Ma> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<Su, Ca, Ma> Copy for AnyArch<Su, Ca, Ma> {}

impl<Su, Ca, Ma> AnyArch<Su, Ca, Ma> {
    /// The bound arch.
    pub const fn id(self) -> ArchId {
        match self {
            AnyArch::Sunda(_) => ArchId::Sunda,
            AnyArch::Cayman(_) => ArchId::Cayman,
            AnyArch::Mariana(_) => ArchId::Mariana,
        }
    }
}

impl<Su, Ca, Ma> core::fmt::Debug for AnyArch<Su, Ca, Ma> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "AnyArch({})", self.id().name())
    }
}

/// As `Debug`: `AnyArch(cayman)`.
#[cfg(feature = "defmt")]
impl<Su, Ca, Ma> defmt::Format for AnyArch<Su, Ca, Ma> {
    fn format(&self, f: defmt::Formatter<'_>) {
        defmt::write!(f, "AnyArch({=str})", self.id().name())
    }
}

/// One arm per arch, each calling the arch's own op `Arch::$f(args)`
/// (`A::$f(..)`) or a generic body `$m::$f::<Arch, ..>(args)`.
macro_rules! dispatch {
    ($self:expr, A :: $f:ident ($($a:expr),* $(,)?)) => {
        match $self {
            AnyArch::Sunda(_) => Su::$f($($a),*),
            AnyArch::Cayman(_) => Ca::$f($($a),*),
            AnyArch::Mariana(_) => Ma::$f($($a),*),
        }
    };
    ($self:expr, $m:ident :: $f:ident [$($g:ty),*] ($($a:expr),* $(,)?)) => {
        match $self {
            AnyArch::Sunda(_) => $m::$f::<Su $(, $g)*>($($a),*),
            AnyArch::Cayman(_) => $m::$f::<Ca $(, $g)*>($($a),*),
            AnyArch::Mariana(_) => $m::$f::<Ma $(, $g)*>($($a),*),
        }
    };
}

/// The forwarding methods: each is its doc, its generics, its arguments
/// after `self` and its result, then the call `dispatch!` makes on the
/// bound arch with those arguments in order.
macro_rules! forward {
    ($(
        $(#[$doc:meta])*
        fn $name:ident[$($gen:tt)*]($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty
            = $m:ident :: $f:ident $([$($g:ty),*])?;
    )*) => {
        $(
            $(#[$doc])*
            pub fn $name<$($gen)*>(self, $($arg: $ty),*) -> $ret {
                dispatch!(self, $m::$f $([$($g),*])? ($($arg),*))
            }
        )*
    };
}

impl<Su: EngineOps, Ca: EngineOps, Ma: EngineOps> AnyArch<Su, Ca, Ma> {
    /// Bind from a raw arch id: 0 (INVALID) and unknown ids →
    /// `InvalidArgument` [002 §1].
    pub fn new(id: u32) -> Result<Self> {
        Ok(Self::from_arch(ArchId::try_from(id)?))
    }

    /// Bind from a validated arch id.
    pub const fn from_arch(id: ArchId) -> Self {
        // The arch types' order, checked where this is instantiated.
        const {
            assert!(
                matches!(Su::ID, ArchId::Sunda)
                    && matches!(Ca::ID, ArchId::Cayman)
                    && matches!(Ma::ID, ArchId::Mariana),
                "AnyArch<Su, Ca, Ma> takes the SUNDA, CAYMAN and MARIANA types in that order"
            )
        };
        match id {
            ArchId::Sunda => AnyArch::Sunda(PhantomData),
            ArchId::Cayman => AnyArch::Cayman(PhantomData),
            ArchId::Mariana => AnyArch::Mariana(PhantomData),
        }
    }

    forward! {
        /// [`stpb::act_init`] on the bound arch.
        fn act_init[M: Mmio + ?Sized](mmio: &M, cfg: Option<&EngineParams<'_>>) -> Result<()>
            = stpb::act_init[M];
        /// [`stpb::dve_init`] on the bound arch.
        fn dve_init[M: Mmio + ?Sized](mmio: &M, cfg: Option<&EngineParams<'_>>) -> Result<()>
            = stpb::dve_init[M];
        /// The bound arch's `dve_regs_init` (mandatory).
        fn dve_regs_init[M: Mmio + ?Sized](mmio: &M, p: &EngineParams<'_>) -> Result<()>
            = A::dve_regs_init;
        /// The bound arch's `dve_ucode_seq_init` (mandatory).
        fn dve_ucode_seq_init[M: Mmio + ?Sized](mmio: &M, p: &EngineParams<'_>) -> Result<()>
            = A::dve_ucode_seq_init;
        /// [`stpb::pe_init`] on the bound arch.
        fn pe_init[M: Mmio + ?Sized](mmio: &M, p: &PeParams<'_>) -> Result<()>
            = stpb::pe_init[M];
        /// The bound arch's `pe_regs_init` (optional).
        fn pe_regs_init[M: Mmio + ?Sized](mmio: &M, p: &PeParams<'_>) -> Result<()>
            = A::pe_regs_init;
        /// [`stpb::pooling_init`] on the bound arch.
        fn pooling_init[M: Mmio + ?Sized](mmio: &M, cfg: Option<&PoolingParams<'_>>) -> Result<()>
            = stpb::pooling_init[M];
        /// The bound arch's `pooling_hw_decode_table_init` (optional; SUNDA: the
        /// default no-op).
        fn pooling_hw_decode_table_init[M: Mmio + ?Sized](mmio: &M, p: &PoolingParams<'_>)
            -> Result<()> = A::pooling_hw_decode_table_init;
        /// [`stpb::sp_init`] on the bound arch.
        fn sp_init[M: Mmio + ?Sized](mmio: &M, handle: &SpHandle) -> Result<()>
            = stpb::sp_init[M];
        /// [`stpb::sp_init_raw`] on the bound arch.
        fn sp_init_raw['m, M: Mmio + ?Sized](
            mmio: &'m M, handle: Option<&SpHandle>, notific: bool, flag: u8, init: bool,
        ) -> Result<SpInit<'m, M>> = stpb::sp_init_raw[M];
        /// [`stpb::topsp_init`] on the bound arch.
        fn topsp_init[M: Mmio + ?Sized](mmio: &M, handle: &SpHandle) -> Result<()>
            = stpb::topsp_init[M];
        /// [`stpb::topsp_init_raw`] on the bound arch.
        fn topsp_init_raw['m, M: Mmio + ?Sized](
            mmio: &'m M, handle: Option<&SpHandle>, notific: bool, flag: u8, init: bool,
        ) -> Result<SpInit<'m, M>> = stpb::topsp_init_raw[M];
        /// [`stpb::stpb_init`] on the bound arch.
        fn stpb_init[M: Mmio + ?Sized](mmio: &M, cfg: &StpbConfig<'_>) -> Result<()>
            = stpb::stpb_init[M];
        /// [`stpb::stpb_init_raw`] on the bound arch.
        fn stpb_init_raw['m, M: Mmio + ?Sized](mmio: &'m M, cfg: &RawStpbConfig<'_>)
            -> Result<SpInit<'m, M>> = stpb::stpb_init_raw[M];
        /// [`program::program_start`] on the bound arch.
        fn program_start[M: Mmio + ?Sized](mmio: &M, mem: DeviceAddr, starts: &[u64; 5])
            -> Result<()> = program::program_start[M];
        /// [`init::stpb_init_logged`] on the bound arch.
        fn stpb_init_logged[M: Mmio + ?Sized, L: StepLog + ?Sized](
            mmio: &M, cfg: &StpbConfig<'_>, log: &mut L,
        ) -> Result<()> = init::stpb_init_logged[M, L];
        /// [`init::stpb_init_logged_raw`] on the bound arch.
        fn stpb_init_logged_raw['m, M: Mmio + ?Sized, L: StepLog + ?Sized](
            mmio: &'m M, cfg: &RawStpbConfig<'_>, log: &mut L,
        ) -> Result<SpInit<'m, M>> = init::stpb_init_logged_raw[M, L];
        /// [`program::update_events_semaphores_nt`] on the bound arch.
        fn update_events_semaphores_nt[M: Mmio + ?Sized](mmio: &M, regs: DeviceAddr, value: u32)
            -> Result<u32> = program::update_events_semaphores_nt[M];
        /// [`notif::error_notif_enable`] on the bound arch.
        fn error_notif_enable[M: Mmio](nt: &mut NotificEngine<'_, M>, en: bool, q: u32) -> Result<()>
            = notif::error_notif_enable[M];
        /// [`notif::ham_notif_enable`] on the bound arch.
        fn ham_notif_enable[M: Mmio](nt: &mut NotificEngine<'_, M>, en: bool) -> Result<()>
            = notif::ham_notif_enable[M];
        /// [`notif::evsem_notif_hw_bp_enable`] on the bound arch.
        fn evsem_notif_hw_bp_enable[M: Mmio](nt: &mut NotificEngine<'_, M>, en: bool) -> Result<()>
            = notif::evsem_notif_hw_bp_enable[M];
    }

    /// [`program::get_axi_offset`] on the bound arch, the tile validated
    /// against the arch's tile count first (`OutOfRange` otherwise).
    pub fn get_axi_offset(self, tile: u32, rel: u64) -> Result<DeviceAddr> {
        Ok(match self {
            AnyArch::Sunda(_) => program::get_axi_offset(Tile::<Su>::new(tile)?, rel),
            AnyArch::Cayman(_) => program::get_axi_offset(Tile::<Ca>::new(tile)?, rel),
            AnyArch::Mariana(_) => program::get_axi_offset(Tile::<Ma>::new(tile)?, rel),
        })
    }
}

impl<Su: EngineOps + DgeNotif, Ca: EngineOps, Ma: EngineOps> AnyArch<Su, Ca, Ma> {
    /// [`notif::dge_notif_enable`] when the bound arch is SUNDA; on another
    /// arch `Unsupported` (a static build cannot even write that call).
    pub fn dge_notif_enable<M: Mmio + ?Sized>(
        self,
        mmio: &M,
        regs: DeviceAddr,
        en: bool,
    ) -> Result<()> {
        match self {
            AnyArch::Sunda(_) => notif::dge_notif_enable::<Su, M>(mmio, regs, en),
            other => Err(Error::Unsupported {
                what: "dge_notif_enable (SUNDA only)",
                arch: other.id(),
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `Debug` names the bound arch by its id's name, for each variant.
    #[test]
    fn debug_names_the_bound_arch() {
        type Any = AnyArch<(), (), ()>;
        let arches = [
            (Any::Sunda(PhantomData), ArchId::Sunda, "AnyArch(sunda)"),
            (Any::Cayman(PhantomData), ArchId::Cayman, "AnyArch(cayman)"),
            (
                Any::Mariana(PhantomData),
                ArchId::Mariana,
                "AnyArch(mariana)",
            ),
        ];
        for (a, id, text) in arches {
            assert_eq!(a.id(), id);
            assert_eq!(std::format!("{a:?}"), text);
        }
    }
}
