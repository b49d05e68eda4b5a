//! The MSI-X interrupt controller model (MARIANA TOP-INTC) [004 §4]: the
//! vector-mask state behind set-mask / clear-mask, the per-vector control
//! words, the moderation timer and group intervals ([`MsixModel`]); and one
//! errtrig block with its cause latch, masks and log masks ([`ErrtrigModel`]).
//!
//! Register semantics the notes do not spell out follow the IOFIC convention
//! the notes point to (interpretation, MED): set-mask ORs the written value
//! into the mask; clear-mask and `int_mask_clear_grp` clear the mask bits
//! written as 0 (a 1 has no effect); `int_cause_set_grp` ORs into the cause
//! latch; a write to `int_cause_grp` clears the bits written as 0. Write-only
//! registers read back 0. Reset state is all zero.

use std::any::Any;

use super::{Block, Bus};

// Where the registers are, written from the spec's decimal figures and not
// taken from the HAL's tables: a wrong offset there then fails the tests
// instead of being mirrored.

/// MSI-X set-mask, `+16` [004 §4], [FACTS §7].
const SET_MASK: u64 = 16;
/// MSI-X clear-mask, `+24` [004 §4].
const CLEAR_MASK: u64 = 24;
/// MSI-X moderation-timer control, `+40` [004 §4].
const MOD_TIMER_CTRL: u64 = 40;
/// Group `grp`'s interval, `+1024 + 8 * grp`, `grp < 8` [004 §4], [004r1 §4].
const GROUP_INTERVAL: u64 = 1024;
/// Vector `vec`'s control word, `+2060 + 16 * vec`, vectors 0..=7 [004 §4].
const VECTOR_CTRL: u64 = 2060;
/// The MSI-X block mounted: one page, past the last vector control word.
const MSIX_BYTES: u64 = 0x1000;
/// errtrig `int_cause_grp`, `+0` of a unit [004 §4].
const CAUSE: u64 = 0;
/// errtrig `int_cause_set_grp`, `+8` [004 §4].
const CAUSE_SET: u64 = 8;
/// errtrig `int_mask_grp`, `+16` [004 §4].
const MASK: u64 = 16;
/// errtrig `int_mask_clear_grp`, `+24` [004 §4].
const MASK_CLEAR: u64 = 24;
/// errtrig `int_log_msk_grp`, `+56` [004 §4].
const LOG_MSK: u64 = 56;
/// One errtrig block: 4 groups of `1 << 12` bytes, each 64 units of
/// `1 << 6` bytes (`(g << 12) + (sub << 6)`) [004 §4].
const ERRTRIG_BYTES: u64 = 4 << 12;

/// The top MSI-X block.
#[derive(Debug, Default, Clone)]
pub struct MsixModel {
    mask: u32,
    vector_ctrl: [u32; 8],
    mod_timer_ctrl: u32,
    interval: [u32; 8],
}

impl MsixModel {
    /// A block in its reset state.
    pub fn new() -> Self {
        MsixModel::default()
    }

    /// The vector mask the set-mask / clear-mask writes produced.
    pub fn mask(&self) -> u32 {
        self.mask
    }

    /// The control word of vector `vec` (1 = masked).
    pub fn vector_ctrl(&self, vec: usize) -> Option<u32> {
        self.vector_ctrl.get(vec).copied()
    }

    /// The moderation-timer control register.
    pub fn mod_timer_ctrl(&self) -> u32 {
        self.mod_timer_ctrl
    }

    /// Preset the moderation-timer control (e.g. other bits set by firmware).
    pub fn set_mod_timer_ctrl(&mut self, v: u32) {
        self.mod_timer_ctrl = v;
    }

    /// The interval register of group `grp`.
    pub fn interval(&self, grp: usize) -> Option<u32> {
        self.interval.get(grp).copied()
    }

    /// Would vector `vec` fire? Unmasked in both the mask and its control word.
    pub fn vector_enabled(&self, vec: u32) -> bool {
        vec < 8
            && self.mask & (1 << vec) == 0
            && self.vector_ctrl.get(vec as usize).copied() == Some(0)
    }
}

fn array_index(off: u64, base: u64, stride: u64, count: usize) -> Option<usize> {
    let rel = off.checked_sub(base)?;
    let (i, rem) = (rel / stride, rel % stride);
    (rem == 0 && (i as usize) < count).then_some(i as usize)
}

impl Block for MsixModel {
    fn name(&self) -> &'static str {
        "msix"
    }
    fn size(&self) -> u64 {
        MSIX_BYTES
    }
    fn read(&mut self, off: u64, _: &mut Bus<'_>) -> u32 {
        if off == MOD_TIMER_CTRL {
            return self.mod_timer_ctrl;
        }
        if let Some(i) = array_index(off, VECTOR_CTRL, 16, 8) {
            return self.vector_ctrl.get(i).copied().unwrap_or(0);
        }
        if let Some(i) = array_index(off, GROUP_INTERVAL, 8, 8) {
            return self.interval.get(i).copied().unwrap_or(0);
        }
        0
    }
    fn write(&mut self, off: u64, value: u32, _: &mut Bus<'_>) {
        if off == SET_MASK {
            self.mask |= value;
        } else if off == CLEAR_MASK {
            self.mask &= value;
        } else if off == MOD_TIMER_CTRL {
            self.mod_timer_ctrl = value;
        } else if let Some(i) = array_index(off, VECTOR_CTRL, 16, 8) {
            if let Some(w) = self.vector_ctrl.get_mut(i) {
                *w = value;
            }
        } else if let Some(i) = array_index(off, GROUP_INTERVAL, 8, 8) {
            if let Some(w) = self.interval.get_mut(i) {
                *w = value;
            }
        }
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// One control unit (`g`, `sub`) of an errtrig block.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Unit {
    /// `int_cause_grp`: the latched causes.
    pub cause: u32,
    /// `int_mask_grp`.
    pub mask: u32,
    /// `int_log_msk_grp`.
    pub log_msk: u32,
}

/// One errtrig block: 4 groups × 64 units of 0x40 bytes [004 §4].
#[derive(Debug, Clone)]
pub struct ErrtrigModel {
    units: Vec<Unit>,
}

impl Default for ErrtrigModel {
    fn default() -> Self {
        ErrtrigModel {
            units: vec![Unit::default(); 256],
        }
    }
}

impl ErrtrigModel {
    /// A block in its reset state.
    pub fn new() -> Self {
        ErrtrigModel::default()
    }

    /// Unit `(g, sub)`.
    pub fn unit(&self, g: u32, sub: u32) -> Option<Unit> {
        self.units.get((g * 64 + sub) as usize).copied()
    }

    /// The hardware side: a source raises cause `bit` of unit `(g, sub)`.
    pub fn raise(&mut self, g: u32, sub: u32, bit: u32) {
        if let Some(u) = self.units.get_mut((g * 64 + sub) as usize) {
            u.cause |= 1u32.checked_shl(bit).unwrap_or(0);
        }
    }

    /// Causes of unit `(g, sub)` that are latched and not masked.
    pub fn pending(&self, g: u32, sub: u32) -> u32 {
        self.unit(g, sub).map_or(0, |u| u.cause & !u.mask)
    }

    fn split(off: u64) -> Option<(usize, u64)> {
        let i = (off / 0x40) as usize;
        (i < 256).then_some((i, off % 0x40))
    }
}

impl Block for ErrtrigModel {
    fn name(&self) -> &'static str {
        "errtrig"
    }
    fn size(&self) -> u64 {
        ERRTRIG_BYTES
    }
    fn read(&mut self, off: u64, _: &mut Bus<'_>) -> u32 {
        let Some((i, reg)) = Self::split(off) else {
            return 0;
        };
        let Some(u) = self.units.get(i) else { return 0 };
        if reg == CAUSE {
            u.cause
        } else if reg == MASK {
            u.mask
        } else if reg == LOG_MSK {
            u.log_msk
        } else {
            0
        }
    }
    fn write(&mut self, off: u64, value: u32, _: &mut Bus<'_>) {
        let Some((i, reg)) = Self::split(off) else {
            return;
        };
        let Some(u) = self.units.get_mut(i) else {
            return;
        };
        if reg == CAUSE {
            u.cause &= value;
        } else if reg == CAUSE_SET {
            u.cause |= value;
        } else if reg == MASK {
            u.mask = value;
        } else if reg == MASK_CLEAR {
            u.mask &= value;
        } else if reg == LOG_MSK {
            u.log_msk = value;
        }
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::DeviceModel;
    use khal_core::family::NqMailboxMap;
    use khal_core::intc::{ErrtrigLine, Intc, IntcOps};
    use khal_core::{DeviceAddr, Error, Result};

    /// An arch with the INTC ops; these programs need no mailbox map.
    enum T {}
    impl NqMailboxMap for T {
        const NQ_MAILBOX_MAP: Result<&'static [DeviceAddr; 16]> = Err(Error::NotTraced("test"));
    }
    impl IntcOps for T {}

    #[test]
    fn mask_unmask_and_cause_latch_end_to_end() {
        let dev = DeviceModel::new();
        let msix = DeviceAddr(0x10_0000);
        let et = DeviceAddr(0x20_0000);
        dev.mount(msix, MsixModel::new()).unwrap();
        dev.mount(et, ErrtrigModel::new()).unwrap();
        let mut h = Intc::<T>::new(msix).unwrap();
        h.set_errtrig_base(3, et).unwrap();
        h.mask_vector(&dev, 2).unwrap();
        h.mask_vector(&dev, 5).unwrap();
        h.unmask_vector(&dev, 2).unwrap();
        let (mask, c2, c5) = dev
            .with_block(msix, |m: &mut MsixModel, _| {
                (m.mask(), m.vector_ctrl(2), m.vector_ctrl(5))
            })
            .unwrap();
        assert_eq!((mask, c2, c5), (1 << 5, Some(0), Some(1)));
        let line = ErrtrigLine::new(3, 2, 7, 4).unwrap();
        h.set_cause(&dev, line).unwrap();
        assert_eq!(h.read_cause(&dev, line), Ok(1 << 4));
        h.mask_interrupt(&dev, line).unwrap();
        assert_eq!(
            dev.with_block(et, |m: &mut ErrtrigModel, _| m.pending(2, 7)),
            Some(0)
        );
        h.unmask_interrupt(&dev, line).unwrap();
        assert_eq!(
            dev.with_block(et, |m: &mut ErrtrigModel, _| m.pending(2, 7)),
            Some(1 << 4)
        );
    }
}
