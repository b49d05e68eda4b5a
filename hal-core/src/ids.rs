//! Identity vocabulary: arch ids, engines, and bounded (pre-validated) indices.

use crate::error::{Error, Result};

/// A silicon generation, as latched by the runtime at bind time [002 §1].
///
/// `0` means "no arch bound" in the C runtime; here it is simply not an
/// `ArchId`: [`ArchId::try_from`] refuses it, so an unbound arch cannot exist.
///
/// ```
/// use khal_core::ArchId;
/// assert_eq!(ArchId::try_from(3), Ok(ArchId::Cayman));
/// assert!(ArchId::try_from(0).is_err()); // INVALID: nothing latched
/// assert!(ArchId::try_from(5).is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u32)]
pub enum ArchId {
    /// SUNDA, arch 2 (Trn1-class, Inf2) [FACTS §1].
    Sunda = 2,
    /// CAYMAN, arch 3 (Trn2) [FACTS §1].
    Cayman = 3,
    /// MARIANA, arch 4 (Trn3, two-die mesh) [FACTS §1].
    Mariana = 4,
}

impl ArchId {
    /// All bound-able arches, in id order.
    pub const ALL: [ArchId; 3] = [ArchId::Sunda, ArchId::Cayman, ArchId::Mariana];

    /// The numeric id the runtime latches.
    pub const fn id(self) -> u32 {
        self as u32
    }

    /// The lowercase name used on the command line (`sunda`, `cayman`, `mariana`).
    pub const fn name(self) -> &'static str {
        match self {
            ArchId::Sunda => "sunda",
            ArchId::Cayman => "cayman",
            ArchId::Mariana => "mariana",
        }
    }
}

/// A lowercase arch name (`"cayman".parse::<ArchId>()`).
impl core::str::FromStr for ArchId {
    type Err = Error;
    fn from_str(name: &str) -> Result<Self> {
        ArchId::ALL
            .into_iter()
            .find(|a| a.name() == name)
            .ok_or(Error::InvalidArgument("arch name (sunda, cayman, mariana)"))
    }
}

impl TryFrom<u32> for ArchId {
    type Error = Error;
    fn try_from(id: u32) -> Result<Self> {
        match id {
            0 => Err(Error::InvalidArgument("arch id 0 (INVALID: no arch bound)")),
            2 => Ok(ArchId::Sunda),
            3 => Ok(ArchId::Cayman),
            4 => Ok(ArchId::Mariana),
            _ => Err(Error::InvalidArgument("arch id (2, 3 or 4)")),
        }
    }
}

display_name!(ArchId);

/// A TPB compute engine; 5 on every arch (AL_HAL_TPB_MAX_ENG = 5) [FACTS §1].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[repr(u8)]
pub enum Engine {
    /// Processing-element array, 0.
    Pe = 0,
    /// Activation, 1.
    Act = 1,
    /// Pooling, 2.
    Pool = 2,
    /// Data vector engine, 3.
    Dve = 3,
    /// Sync processor, 4.
    Sp = 4,
}

impl Engine {
    /// All engines in ordinal order (5 on every arch).
    pub const ALL: [Engine; 5] = [Self::Pe, Self::Act, Self::Pool, Self::Dve, Self::Sp];

    /// The engine ordinal.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The spec's short name (`pe`, `act`, `pool`, `dve`, `sp`).
    pub const fn name(self) -> &'static str {
        match self {
            Engine::Pe => "pe",
            Engine::Act => "act",
            Engine::Pool => "pool",
            Engine::Dve => "dve",
            Engine::Sp => "sp",
        }
    }
}

impl TryFrom<u32> for Engine {
    type Error = Error;
    fn try_from(v: u32) -> Result<Self> {
        Engine::ALL
            .get(v as usize)
            .copied()
            .ok_or(Error::out_of_range("engine", v as u64, 5))
    }
}

display_name!(Engine);

/// An index known to be below `N`: validated once at construction, so code
/// that holds one never re-checks and never panics.
///
/// ```
/// use khal_core::Bounded;
/// type Vector = Bounded<8>;
/// assert_eq!(Vector::new(7, "msi-x vector").unwrap().get(), 7);
/// assert!(Vector::new(8, "msi-x vector").is_err());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Bounded<const N: u32>(u32);

impl<const N: u32> Bounded<N> {
    /// Validate `v < N`; `what` names the index in the error.
    pub const fn new(v: u32, what: &'static str) -> Result<Self> {
        if v < N {
            Ok(Bounded(v))
        } else {
            Err(Error::out_of_range(what, v as u64, N as u64))
        }
    }

    /// The value.
    pub const fn get(self) -> u32 {
        self.0
    }

    /// The value as a `usize` (always `< N`).
    pub(crate) const fn as_usize(self) -> usize {
        self.0 as usize
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_ids() {
        assert_eq!(ArchId::try_from(2), Ok(ArchId::Sunda));
        assert_eq!(ArchId::try_from(3), Ok(ArchId::Cayman));
        assert_eq!(ArchId::try_from(4), Ok(ArchId::Mariana));
        for bad in [0, 1, 5, u32::MAX] {
            assert!(matches!(
                ArchId::try_from(bad),
                Err(Error::InvalidArgument(_))
            ));
        }
        for a in ArchId::ALL {
            assert_eq!(ArchId::try_from(a.id()), Ok(a));
            assert_eq!(a.name().parse(), Ok(a));
        }
    }

    #[test]
    fn engines() {
        for e in Engine::ALL {
            assert_eq!(Engine::try_from(e as u32), Ok(e));
        }
        assert_eq!(
            Engine::try_from(5),
            Err(Error::OutOfRange {
                what: "engine",
                value: 5,
                limit: 5
            })
        );
    }

    #[test]
    fn bounded_refuses_out_of_range() {
        assert!(Bounded::<10>::new(9, "nq").is_ok());
        assert_eq!(
            Bounded::<10>::new(10, "nq"),
            Err(Error::OutOfRange {
                what: "nq",
                value: 10,
                limit: 10
            })
        );
    }
}
