//! `AnyArch`: run-time dispatch for hosts that serve whichever device they
//! find [002 §1], ARCHITECTURE rule 3.
//!
//! An `AnyArch` can only be built from a validated arch id: 0 (INVALID,
//! nothing latched) and unknown ids are refused by [`ArchId::try_from`], so
//! there is no unbound state to assert at each call. It is an enum over the
//! three arch *types*; [`AnyArch::dispatch`] is the one `match`, whose arms
//! run the caller's [`ArchFn`] with the bound arch's type: the same generic
//! code a single-arch build calls statically. `khal-core` cannot
//! name the arch crates, so the enum is generic over them; the facade names it
//! `khal::AnyArch = AnyArch<Sunda, Cayman, Mariana>`. The type parameters are
//! checked at compile time to be SUNDA, CAYMAN, MARIANA in that order.

use core::marker::PhantomData;

use super::EngineOps;
use crate::error::Result;
use crate::ids::ArchId;

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

/// An operation written once, generically over the arch, that
/// [`AnyArch::dispatch`] runs with the bound arch's type: its fields are the
/// operation's arguments.
///
/// ```
/// # use khal_core::engine::{self, AnyArch, ArchFn, EngineOps, EngineParams};
/// # use khal_core::{DeviceAddr, Mmio, Result};
/// struct DveInit<'a, M>(&'a M, &'a EngineParams<'a>);
///
/// impl<M: Mmio> ArchFn for DveInit<'_, M> {
///     type Output = Result<()>;
///     fn call<A: EngineOps>(self) -> Result<()> {
///         engine::dve_init::<A, M>(self.0, Some(self.1))
///     }
/// }
/// # fn run<Su: EngineOps, Ca: EngineOps, Ma: EngineOps, M: Mmio>(
/// #     any: AnyArch<Su, Ca, Ma>, mmio: &M, p: &EngineParams<'_>) -> Result<()> {
/// any.dispatch(DveInit(mmio, p))
/// # }
/// ```
pub trait ArchFn {
    /// What the operation answers.
    type Output;
    /// Run the operation on arch `A`.
    fn call<A: EngineOps>(self) -> Self::Output;
}

impl<Su: EngineOps, Ca: EngineOps, Ma: EngineOps> AnyArch<Su, Ca, Ma> {
    /// Bind from a raw arch id: 0 (INVALID) and unknown ids →
    /// `InvalidArgument` [002 §1].
    pub fn new(id: u32) -> Result<Self> {
        Ok(Self::from(ArchId::try_from(id)?))
    }

    /// Run `op` with the bound arch's type.
    pub fn dispatch<F: ArchFn>(self, op: F) -> F::Output {
        match self {
            AnyArch::Sunda(_) => op.call::<Su>(),
            AnyArch::Cayman(_) => op.call::<Ca>(),
            AnyArch::Mariana(_) => op.call::<Ma>(),
        }
    }
}

/// Bind from a validated arch id.
impl<Su: EngineOps, Ca: EngineOps, Ma: EngineOps> From<ArchId> for AnyArch<Su, Ca, Ma> {
    fn from(id: ArchId) -> Self {
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
