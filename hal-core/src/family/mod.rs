//! Per-arch register-family traits, one file each [000 §2, §3], [FACTS §3].
//!
//! Each `khal-arch-*` crate implements every family on its uninhabited arch type
//! (`Sunda`, `Cayman`, `Mariana`); [`Arch`] bundles them. Drivers take `A: Arch`
//! and never `cfg` on the arch.
//!
//! How the families answer (the matrix has three kinds of holes, and each has
//! its own typed answer, never the literal 0 and never a guess):
//!
//! | case | answer |
//! | --- | --- |
//! | the value is known | `Ok(value)` / the constant |
//! | nobody traced the value (FACTS "NOT TRACED") | `Err(Error::NotTraced(item))` |
//! | the C getter returns 0 = "feature absent" | `Ok(Gated::Absent)` (`cap_cfg`) |
//! | the C getter aborts (no such silicon) | `Err(Error::Unsupported { .. })` |
//! | an index outside the arch's range | `Err(Error::OutOfRange { .. })` |
//! | an arch with no getter at all | `None` in an `Option` constant ([`dve::DveTables::DVE_TABLE_OFFSETS`]) |
//!
//! CAYMAN and MARIANA share the tables the notes call identical: `khal-arch-mariana`
//! reuses CAYMAN's implementation (`<Cayman as Family>::…`), never a copy.

/// An index of arch `A` validated against one of `A`'s base tables, carrying
/// the base it names: the struct, its constructors and accessors, and its
/// value impls (equal by index; `Debug` and `defmt` print `Name(index, base)`).
/// [`Tile`] and [`HbmChannel`] are the two.
macro_rules! indexed_base {
    (
        $(#[$doc:meta])*
        pub struct $name:ident<A: $tr:ident :: $table:ident>, $what:literal;
        $(#[$new_doc:meta])* new;
        $(#[$all_doc:meta])* all;
        $(#[$index_doc:meta])* index;
        $(#[$base_doc:meta])* base;
    ) => {
        $(#[$doc])*
        pub struct $name<A> {
            index: u8,
            base: $crate::DeviceAddr,
            _arch: core::marker::PhantomData<fn() -> A>,
        }

        impl<A: $tr> $name<A> {
            $(#[$new_doc])*
            pub fn new(index: u32) -> $crate::Result<Self> {
                let bases = A::$table;
                let oor = || $crate::Error::out_of_range($what, index.into(), bases.len() as u64);
                let base = usize::try_from(index).ok().and_then(|i| bases.get(i));
                // A base table holds at most 8 entries: the index fits a u8.
                base.map(|&base| Self::at(index as usize, base)).ok_or_else(oor)
            }

            $(#[$all_doc])*
            pub fn all() -> impl Iterator<Item = $name<A>> {
                A::$table.iter().enumerate().map(|(i, &base)| Self::at(i, base))
            }

            fn at(index: usize, base: $crate::DeviceAddr) -> Self {
                $name {
                    index: index as u8,
                    base,
                    _arch: core::marker::PhantomData,
                }
            }

            $(#[$index_doc])*
            pub const fn index(self) -> u32 {
                self.index as u32
            }

            $(#[$base_doc])*
            pub const fn base(self) -> $crate::DeviceAddr {
                self.base
            }

            /// Which mesh half it lives in (bit 47 of its base) [000 §2].
            pub const fn mesh_half(self) -> $crate::MeshHalf {
                self.base.mesh_half()
            }
        }

        impl<A> Clone for $name<A> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<A> Copy for $name<A> {}
        impl<A> PartialEq for $name<A> {
            fn eq(&self, other: &Self) -> bool {
                self.index == other.index
            }
        }
        impl<A> Eq for $name<A> {}
        impl<A> core::fmt::Debug for $name<A> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                write!(f, concat!(stringify!($name), "({}, {})"), self.index, self.base)
            }
        }
        #[cfg(feature = "defmt")]
        impl<A> defmt::Format for $name<A> {
            fn format(&self, f: defmt::Formatter<'_>) {
                defmt::write!(f, "{=str}({=u8}, {})", stringify!($name), self.index, self.base)
            }
        }
    };
}

pub(crate) mod act;
pub(crate) mod cap_cfg;
pub(crate) mod dge;
pub(crate) mod dve;
pub(crate) mod hbm;
pub mod hw_decode;
pub(crate) mod iram;
pub(crate) mod mailbox;
pub(crate) mod notific_mask;
pub(crate) mod nx_local;
pub(crate) mod q7;
pub(crate) mod sdma;
pub(crate) mod seq;
pub(crate) mod topsp;
pub(crate) mod tpb;
pub(crate) mod tpb_regs;

pub use act::{ActTableParams, ActTables};
pub use cap_cfg::{CapCfg, CapCfgTable, FlagSelected, Gated};
pub use dge::DgeRegs;
pub use dve::{DveTableOffsets, DveTableSizes, DveTables};
pub use hbm::{HbmBarWindow, HbmChannel, HbmMap, HbmUsableSize};
// In the crate, the hw-decode trait is named at the family level too.
pub(crate) use hw_decode::HwDecode;
pub use iram::IramSizes;
pub use mailbox::{NqBlock, NqMailboxMap, NqQueue};
pub use notific_mask::{NotificMask, NotificMasks};
pub use nx_local::{
    eng_to_xt, xt_local_window, DmaReg, NxLocal, RsvdSpace, XtWindows, OWNER_TOPSP, OWNER_TPB,
};
pub use q7::{Q7Owner, Q7Param, Q7Params};
pub use sdma::{Sdma, SdmaLimits};
pub use seq::{SeqParams, SeqSizes, SeqTriple, HOSTVIS_DELTA, SEQTOP_DELTA};
pub use topsp::{Doorbell, TopSpNx, TopSpTable};
pub use tpb::{Tile, TpbBases, PSUM_DELTA};
pub use tpb_regs::TpbRegGates;

use crate::ids::ArchId;

/// A byte offset relative to some window base (a TPB AXI base, an engine's
/// register window, the TopSP block): not an absolute [`crate::DeviceAddr`].
///
/// ```
/// use khal_core::{family::Offset, DeviceAddr};
/// assert_eq!(Offset(0x2B8_7000).at(DeviceAddr(0x20_0000_0000)), DeviceAddr(0x20_02B8_7000));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Offset(pub u64);

impl Offset {
    /// The raw value.
    pub const fn get(self) -> u64 {
        self.0
    }

    /// The absolute address of this offset in the window at `base`.
    pub const fn at(self, base: crate::DeviceAddr) -> crate::DeviceAddr {
        base.add(self.0)
    }
}

hex_fmt!(Offset: Display; "+{:#x}", "+{=u64:#x}");

/// A chip generation: every register family, plus its identity.
///
/// Implemented by `khal_arch_sunda::Sunda`, `khal_arch_cayman::Cayman` and
/// `khal_arch_mariana::Mariana`. A generic driver takes `A: Arch`.
pub trait Arch:
    TpbBases
    + HbmMap
    + IramSizes
    + SeqParams
    + HwDecode
    + DveTables
    + ActTables
    + CapCfg
    + TopSpNx
    + NxLocal
    + Q7Params
    + NotificMasks
    + NqMailboxMap
    + DgeRegs
    + Sdma
    + TpbRegGates
    + 'static
{
    /// The arch id the runtime latches [002 §1], [FACTS §1].
    const ID: ArchId;
    /// The lowercase name (`sunda`, `cayman`, `mariana`).
    const NAME: &'static str;
}
