//! The per-engine init parameter types and the checks of the `_init` shims
//! [002 §1, §2, §3], [FACTS §4, §5].
//!
//! The notes read `inst_debug_level` at different places per engine (ACT and
//! DVE at `+0xC0` of a wider create-params struct, Pooling at `+0xE0`, the SP
//! handle at `+0xA8`) and warn not to assume one uniform argument type
//! [002 §3 QUIRK]: here they are four distinct types, so a Pooling config
//! cannot be handed to `dve_init`. A missing config (the C `NULL`) is `None`.
//!
//! The orchestrators and the SP leaves receive a [`Checked`] config, which
//! only this module can build: an SP leaf can never be reached with a handle
//! that skipped the check.

use core::ops::Deref;

use crate::addr::DeviceAddr;
use crate::engine::hw_decode::HwDecodeImages;
use crate::error::{Error, Result};
use crate::q7::Q7Ucode;

/// Highest accepted `inst_debug_level`; above it the `_init` shims return
/// -22 [002 §1], [FACTS §4].
const MAX_INST_DEBUG_LEVEL: u32 = 8;

/// The parts of `eng_info` (`0xD0` B) the §13 leaves read [arch-stpb §1],
/// [FACTS §13.6]. The leaves whose programs are not traced (regs_init,
/// ucode_seq_init, dma_init) read more of it; those fields are not here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EngInfo<'a> {
    /// `hw_decode {profile, cam}` (`+0x40`): the caller's images.
    pub hw_decode: Option<HwDecodeImages<'a>>,
    /// `disable_hw_decode` (`+0xC4`): the value hw_decode_table_init hands to
    /// `disable_hw_decode` (MED).
    pub disable_hw_decode: u32,
}

impl EngInfo<'_> {
    /// No images, `disable_hw_decode = 0`.
    pub(crate) const NONE: EngInfo<'static> = EngInfo {
        hw_decode: None,
        disable_hw_decode: 0,
    };
}

/// ACT and DVE create params: the fields khal needs of the notes' wider
/// "engine create-params" struct (`inst_debug_level` at `+0xC0`) [002 §3 QUIRK].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EngineParams<'a> {
    /// The engine's register window (`tpb_regs`, context `+0x08`).
    pub regs: DeviceAddr,
    /// The TPB memory handle (`tpb_mem_handle`, context `+0x00`) the XT/NX
    /// windows are relative to [FACTS §13.1, §13.6].
    pub mem: DeviceAddr,
    /// Instruction debug level, `<= 8`.
    pub inst_debug_level: u32,
    /// The engine's `eng_info` fields the leaves read.
    pub info: EngInfo<'a>,
}

impl EngineParams<'static> {
    /// Params with `regs` and `mem`, level 0, no `eng_info` data.
    pub const fn new(regs: DeviceAddr, mem: DeviceAddr) -> Self {
        EngineParams {
            regs,
            mem,
            inst_debug_level: 0,
            info: EngInfo::NONE,
        }
    }
}

/// Pooling create params (`inst_debug_level` at `+0xE0`) [002 §3 QUIRK].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolingParams<'a> {
    /// The engine's register window (`tpb_regs`).
    pub regs: DeviceAddr,
    /// The TPB memory handle (`tpb_mem_handle`).
    pub mem: DeviceAddr,
    /// Instruction debug level, `<= 8`.
    pub inst_debug_level: u32,
    /// The engine's `eng_info` fields the leaves read.
    pub info: EngInfo<'a>,
    /// The Q7 microcode `pooling_init` hands to `q7_ucode_eng_init` (owner 0).
    pub q7: Option<Q7Ucode<'a>>,
}

impl PoolingParams<'static> {
    /// Params with `regs` and `mem`, level 0, no images.
    pub const fn new(regs: DeviceAddr, mem: DeviceAddr) -> Self {
        PoolingParams {
            regs,
            mem,
            inst_debug_level: 0,
            info: EngInfo::NONE,
            q7: None,
        }
    }
}

/// PE create params: the PE shims carry no argument check [002 §3].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PeParams<'a> {
    /// The engine's register window (`tpb_regs`).
    pub regs: DeviceAddr,
    /// The TPB memory handle (`tpb_mem_handle`).
    pub mem: DeviceAddr,
    /// The engine's `eng_info` fields the leaves read.
    pub info: EngInfo<'a>,
}

impl PeParams<'static> {
    /// Params with `regs` and `mem`, no `eng_info` data.
    pub const fn new(regs: DeviceAddr, mem: DeviceAddr) -> Self {
        PeParams {
            regs,
            mem,
            info: EngInfo::NONE,
        }
    }
}

/// The SP / TopSP handle: a distinct, smaller struct than the STPB handle
/// [002 §2 QUIRK]. `sp_init` reads `+0x00` (`sp_mem_handle`), `+0x08`
/// (`sp_regs`), `+0x10` (`ens_regs`) and `+0xA8` (`inst_debug_level`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct SpHandle {
    /// The SP memory window (`sp_mem_handle`); `None` → -22.
    pub sp_mem: Option<DeviceAddr>,
    /// The SP register window (`sp_regs`); `None` → -22.
    pub sp_regs: Option<DeviceAddr>,
    /// The SP's notification (ENS) block base (`ens_regs`), handed to the
    /// notific init; `None` makes that init fail (-14), which is logged.
    pub ens_regs: Option<DeviceAddr>,
    /// Instruction debug level, `<= 8`.
    pub inst_debug_level: u32,
}

/// A config that passed its `_init` check. Built only inside khal-core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checked<'a, P>(&'a P);

impl<P> Deref for Checked<'_, P> {
    type Target = P;
    fn deref(&self) -> &P {
        self.0
    }
}

/// The level check every `_init` shim ends with: `level > 8` → -22, else
/// `cfg` checked [002 §1].
const fn check_level<P>(cfg: &P, level: u32) -> Result<Checked<'_, P>> {
    if level > MAX_INST_DEBUG_LEVEL {
        return Err(Error::InvalidArgument("inst_debug_level > 8"));
    }
    Ok(Checked(cfg))
}

impl<'p> EngineParams<'p> {
    /// The check of `act_init` / `dve_init`: absent → -22, level > 8 → -22
    /// [002 §1].
    pub(crate) fn check<'a>(
        cfg: Option<&'a EngineParams<'p>>,
    ) -> Result<Checked<'a, EngineParams<'p>>> {
        let cfg = cfg.ok_or(Error::InvalidArgument("engine config absent"))?;
        check_level(cfg, cfg.inst_debug_level)
    }
}

impl<'p> PoolingParams<'p> {
    /// The check of `pooling_init`: absent → -22, level > 8 → -22 [002 §1].
    pub(crate) fn check<'a>(
        cfg: Option<&'a PoolingParams<'p>>,
    ) -> Result<Checked<'a, PoolingParams<'p>>> {
        let cfg = cfg.ok_or(Error::InvalidArgument("pooling config absent"))?;
        check_level(cfg, cfg.inst_debug_level)
    }
}

impl<'p> PeParams<'p> {
    /// The PE shims make no check [002 §3]: every PE config is accepted.
    pub(crate) fn accept<'a>(cfg: &'a PeParams<'p>) -> Checked<'a, PeParams<'p>> {
        Checked(cfg)
    }
}

/// The SP handle after the checks of `sp_init`: both windows present.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpRegs<'a> {
    /// The checked handle.
    pub handle: &'a SpHandle,
    /// `sp_mem_handle`, present.
    pub sp_mem: DeviceAddr,
    /// `sp_regs`, present.
    pub sp_regs: DeviceAddr,
}

impl SpHandle {
    /// The checks of `sp_init`, in the notes' order: handle absent → -22;
    /// `sp_mem_handle` or `sp_regs` absent → -22; level > 8 → -22 [002 §2].
    pub fn check(handle: Option<&SpHandle>) -> Result<Checked<'_, SpHandle>> {
        let h = handle.ok_or(Error::InvalidArgument("sp handle absent"))?;
        Checked(h).regs()?;
        check_level(h, h.inst_debug_level)
    }
}

impl<'a> Checked<'a, SpHandle> {
    /// The two windows the check proved present.
    pub fn regs(self) -> Result<SpRegs<'a>> {
        match (self.0.sp_mem, self.0.sp_regs) {
            (Some(sp_mem), Some(sp_regs)) => Ok(SpRegs {
                handle: self.0,
                sp_mem,
                sp_regs,
            }),
            _ => Err(Error::InvalidArgument("sp_mem_handle or sp_regs absent")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks() {
        let e = EngineParams {
            inst_debug_level: 8,
            ..EngineParams::new(DeviceAddr(0), DeviceAddr(0))
        };
        assert!(EngineParams::check(Some(&e)).is_ok());
        assert_eq!(
            EngineParams::check(None),
            Err(Error::InvalidArgument("engine config absent"))
        );
        let bad = EngineParams {
            inst_debug_level: 9,
            ..e
        };
        assert_eq!(
            EngineParams::check(Some(&bad)),
            Err(Error::InvalidArgument("inst_debug_level > 8"))
        );
        let p = PoolingParams {
            inst_debug_level: 9,
            ..PoolingParams::new(DeviceAddr(0), DeviceAddr(0))
        };
        assert!(PoolingParams::check(Some(&p)).is_err());
        let sp = SpHandle {
            sp_mem: Some(DeviceAddr(1)),
            sp_regs: None,
            ens_regs: None,
            inst_debug_level: 0,
        };
        assert_eq!(
            SpHandle::check(Some(&sp)),
            Err(Error::InvalidArgument("sp_mem_handle or sp_regs absent"))
        );
    }
}
