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
//! | an arch with no getter at all | `None` in an `Option` constant ([`DveTableLayout::offsets`]) |
//!
//! CAYMAN and MARIANA share the tables the notes call identical: `khal-arch-mariana`
//! reuses CAYMAN's implementation (`<Cayman as Family>::…`), never a copy.

pub(crate) mod act;
pub(crate) mod cap_cfg;
pub(crate) mod dge;
pub(crate) mod dve;
pub(crate) mod hbm;
pub(crate) mod hw_decode;
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

pub use act::ActTables;
pub use cap_cfg::{CapCfg, CapCfgTable, FlagSelected, Gated};
pub use dge::DgeRegs;
pub use dve::{DveTableLayout, DveTableOffsets, DveTableSizes, DveTables};
pub use hbm::{HbmBarWindow, HbmLayout, HbmMap, HbmUsableSize};
pub use hw_decode::{HwDecode, HwDecodeParams};
pub use iram::IramSizes;
pub use mailbox::{NqMailboxMap, NqQueue};
pub use notific_mask::{NotificMask, NotificMasks};
pub use nx_local::{NxLocal, NxLocalRegs, XtWindows, OWNER_TOPSP, OWNER_TPB};
pub use q7::{Q7Owner, Q7Param, Q7Params};
pub use sdma::{Sdma, SdmaLimits};
pub use seq::{SeqParams, SeqSizes, SeqTriple};
pub use topsp::{Doorbell, TopSpNx, TopSpTable};
pub use tpb::{Tile, TpbBases};
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
    /// The arch id the runtime latches [002 §1], [FACTS §1]; its
    /// [`ArchId::name`] is the lowercase name (`sunda`, `cayman`, `mariana`).
    const ID: ArchId;
}
