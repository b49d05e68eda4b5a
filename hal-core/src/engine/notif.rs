//! The STPB notification-enable bodies: error, ham, evsem hw-bp, and the
//! SUNDA-only DGE enable [002 §4], [FACTS §5].
//!
//! Each enable composes an arch mask (error, ham, evsem: [002 §4] reads them
//! at `khal_arch` +0xB0, +0xB8, +0xA8, slots that conflict with
//! [hal-registers §2]; values and slots NOT TRACED [FACTS §5, §13.10 #2])
//! into the notific engine's masked update `update(en ? mask : 0, mask)`. A mask not traced for the arch
//! → `NotTraced` before any write. The bodies (`*_with`, private) take the
//! mask (and, for the error enable, the `sw_queue_num3.errors_nt` register)
//! injected, so their unit tests run them with values no arch traces.

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::family::{Arch, NotificMask, NotificMasks};
use crate::notific::NotificEngine;
use crate::regs::{Field, Reg};
use crate::Mmio;

/// The masked-update value of an enable: `en ? mask : 0` [002 §4].
fn enable_value(en: bool, mask: u32) -> u64 {
    u64::from(if en { mask } else { 0 })
}

/// The `sw_queue_num3.errors_nt` field the error enable updates with the
/// queue when enabling: `tpb_regs + 0xA0C`, mask `0xF` (MED [000r1 §3],
/// [`crate::engine::tpb_regs::SW_QUEUE_NUM3`], [`crate::family::NxLocalRegs::errors_nt`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
struct ErrorsNt {
    /// The register window the register sits in (the enable's `regs`).
    regs: DeviceAddr,
    /// `sw_queue_num3`.
    reg: Reg,
    /// Its `errors_nt` field.
    field: Field,
}

/// `aws_hal_stpb_error_notif_enable(regs, nt, en, q)` through the arch: the
/// error mask is NOT TRACED → `NotTraced`, nothing written [002 §4]. (The
/// `sw_queue_num3.errors_nt` register is known; the mask comes first, so the
/// arch path stops there.)
pub fn error_notif_enable<A: NotificMasks, M: Mmio>(
    nt: &mut NotificEngine<'_, M>,
    en: bool,
    q: u32,
) -> Result<()> {
    error_notif_enable_with(nt, A::notific_mask(NotificMask::Error)?, en, q, None)
}

/// The error-enable body with the mask injected: if `en`, read-modify-write
/// `errors_nt = q` (absent → `NotTraced`, nothing written); then
/// `update_wr_buf_enable(en ? mask : 0, mask)` [002 §4].
fn error_notif_enable_with<M: Mmio>(
    nt: &mut NotificEngine<'_, M>,
    mask: u32,
    en: bool,
    q: u32,
    errors_nt: Option<ErrorsNt>,
) -> Result<()> {
    if en {
        let e = errors_nt.ok_or(Error::NotTraced("tpb notific sw_queue_num3.errors_nt"))?;
        e.reg.modify(nt.mmio(), e.regs, |r| e.field.set(r, q))?;
    }
    nt.update_wr_buf_enable(enable_value(en, mask), u64::from(mask))
}

/// `aws_hal_stpb_ham_notif_enable(nt, en)` through the arch (ham mask NOT
/// TRACED → `NotTraced`, nothing written) [002 §4].
pub fn ham_notif_enable<A: NotificMasks, M: Mmio>(
    nt: &mut NotificEngine<'_, M>,
    en: bool,
) -> Result<()> {
    ham_notif_enable_with(nt, A::notific_mask(NotificMask::Ham)?, en)
}

/// The ham-enable body: `update_wr_buf_enable(en ? mask : 0, mask)` [002 §4].
fn ham_notif_enable_with<M: Mmio>(
    nt: &mut NotificEngine<'_, M>,
    mask: u32,
    en: bool,
) -> Result<()> {
    nt.update_wr_buf_enable(enable_value(en, mask), u64::from(mask))
}

/// `aws_hal_stpb_evsem_notif_hw_bp_enable(nt, en)` through the arch (evsem
/// mask NOT TRACED → `NotTraced`, nothing written) [002 §4].
pub fn evsem_notif_hw_bp_enable<A: NotificMasks, M: Mmio>(
    nt: &mut NotificEngine<'_, M>,
    en: bool,
) -> Result<()> {
    evsem_notif_hw_bp_enable_with(nt, A::notific_mask(NotificMask::Evsem)?, en)
}

/// The evsem-enable body: `update_hw_bp(en ? mask : 0, mask)` [002 §4].
fn evsem_notif_hw_bp_enable_with<M: Mmio>(
    nt: &mut NotificEngine<'_, M>,
    mask: u32,
    en: bool,
) -> Result<()> {
    nt.update_hw_bp(enable_value(en, mask), u64::from(mask))
}

/// The arches with a DGE notification control: SUNDA only. The C callee
/// asserts `arch == 2` [002 §4 GOTCHA]; here no other arch implements this
/// trait, so `dge_notif_enable::<Cayman, _>` does not compile.
pub trait DgeNotif: Arch {
    /// The `xt_local_reg` DGE notific-ctrl register (SUNDA: offset NOT
    /// TRACED → `NotTraced`).
    fn dge_notific_ctrl() -> Result<Reg>;
}

/// Bit 1 of the DGE notific ctrl: the enable `dge_notif_enable` sets
/// (`|= 2`) [002 §4].
const DGE_NOTIF_EN: Field = Field {
    name: "dge_notif_en",
    lo: 1,
    hi: 1,
};

/// `aws_hal_stpb_dge_notif_enable(regs, en)`: read-modify-write of the DGE
/// notific ctrl in the window at `regs` [002 §4]. The register's offset is not
/// traced → `NotTraced`, nothing accessed.
///
/// Interpretation (MED, listed in `docs/coverage.md`): the notes show only the
/// enabling `|= 2`; `en = false` clearing bit 1 is khal's reading.
pub fn dge_notif_enable<A: DgeNotif, M: Mmio + ?Sized>(
    mmio: &M,
    regs: DeviceAddr,
    en: bool,
) -> Result<()> {
    dge_notif_enable_at(mmio, A::dge_notific_ctrl()?.addr(regs), en)
}

/// The DGE enable body at an explicit register address:
/// one read, then one write with bit 1 = `en` (`|= 2` when enabling as the
/// notes say; clearing it when disabling is an interpretation, MED).
fn dge_notif_enable_at<M: Mmio + ?Sized>(mmio: &M, ctrl: DeviceAddr, en: bool) -> Result<()> {
    let r = mmio.read32(ctrl)?;
    mmio.write32(ctrl, DGE_NOTIF_EN.set(r, u32::from(en)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::test_mmio::Log;
    use crate::engine::test_mmio::Op::{Read, Write};
    use crate::notific::EngineConfig;

    crate::register_block! {
        /// An injected `sw_queue_num3` (test only, not an arch's numbers).
        #[expect(dead_code, reason = "the test uses the block's register")]
        TEST_NUM3: "test_num3" {
            /// sw_queue_num3 (injected)
            NUM3 @ 0x40, rw, "sw_queue_num3", fields num3 {
                /// errors_nt (injected)
                ERRORS_NT: 4..=7,
            };
        }
    }

    /// A TPB-flavour notification engine at 0 over `m`, its init's writes
    /// cleared: both shadows all ones.
    fn engine(m: &Log) -> NotificEngine<'_, &Log> {
        let cfg = EngineConfig::from_raw(10, 0, 0).unwrap();
        let nt = NotificEngine::init_at(m, DeviceAddr(0), cfg).unwrap();
        m.clear();
        nt
    }

    /// Each enable is its masked update from the all-ones shadow; the error
    /// enable first sets `errors_nt = q` when enabling [002 §4].
    #[test]
    fn notification_enables_with_injected_masks() {
        let m = Log::default();
        let mut nt = engine(&m);
        // error, disable: update(0, mask) of wr_buf_enable from the all-ones shadow.
        error_notif_enable_with(&mut nt, 0x0000_00F0, false, 3, None).unwrap();
        // error, enable: errors_nt = q (read-modify-write), then update(mask, mask).
        let num3 = ErrorsNt {
            regs: DeviceAddr(0),
            reg: NUM3,
            field: num3::ERRORS_NT,
        };
        m.poke(0x40, 0xFFFF_FF0F);
        error_notif_enable_with(&mut nt, 0x0000_00F0, true, 3, Some(num3)).unwrap();
        // ham: wr_buf_enable again, with its own mask.
        ham_notif_enable_with(&mut nt, 0x8000_0001, false).unwrap();
        ham_notif_enable_with(&mut nt, 0x8000_0001, true).unwrap();
        // evsem: the hw back-pressure pair, from its all-ones shadow.
        evsem_notif_hw_bp_enable_with(&mut nt, 0x3, false).unwrap();
        evsem_notif_hw_bp_enable_with(&mut nt, 0x3, true).unwrap();
        assert_eq!(
            m.ops(),
            [
                (Write, 0x30, 0xFFFF_FF0F),
                (Write, 0x34, 0xFFFF_FFFF),
                (Read, 0x40, 0xFFFF_FF0F),
                (Write, 0x40, 0xFFFF_FF3F),
                (Write, 0x30, 0xFFFF_FFFF),
                (Write, 0x34, 0xFFFF_FFFF),
                (Write, 0x30, 0x7FFF_FFFE),
                (Write, 0x34, 0xFFFF_FFFF),
                (Write, 0x30, 0xFFFF_FFFF),
                (Write, 0x34, 0xFFFF_FFFF),
                (Write, 0x0C, 0xFFFF_FFFC),
                (Write, 0x10, 0xFFFF_FFFF),
                (Write, 0x0C, 0xFFFF_FFFF),
                (Write, 0x10, 0xFFFF_FFFF),
            ]
        );
        assert_eq!(nt.wr_buf_shadow(), u64::MAX);
        assert_eq!(nt.hw_bp_shadow(), u64::MAX);
        // Enabling the error notification without the (not traced) num3
        // register: NotTraced before any write.
        m.clear();
        assert_eq!(
            error_notif_enable_with(&mut nt, 0xF0, true, 3, None),
            Err(Error::NotTraced("tpb notific sw_queue_num3.errors_nt"))
        );
        assert!(m.ops().is_empty());
    }

    /// The DGE body at an explicit address: read, then bit 1 set (`|= 2`) /
    /// cleared (the interpretation, MED) [002 §4].
    #[test]
    fn dge_notif_enable_sets_and_clears_bit_1() {
        let m = Log::default();
        m.poke(0x300, 0x5);
        dge_notif_enable_at(&m, DeviceAddr(0x300), true).unwrap();
        dge_notif_enable_at(&m, DeviceAddr(0x300), false).unwrap();
        assert_eq!(
            m.ops(),
            [
                (Read, 0x300, 0x5),
                (Write, 0x300, 0x7),
                (Read, 0x300, 0x7),
                (Write, 0x300, 0x5),
            ]
        );
    }
}
