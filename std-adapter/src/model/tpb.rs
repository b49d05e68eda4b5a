//! TPB engine register windows: a register file per engine window that
//! remembers every write and records program launches [002 §4].
//!
//! The window's register layout is mostly not traced (the start-address
//! registers, the XT-local window bases [FACTS §3.6]): a [`TpbWindow`] is a
//! plain register file (reads give the last value written, 0 before), and a
//! test that knows a layout (injected, or CAYMAN's traced `START_CTRL` at
//! `+0x004`) tells the window where `start_addr_lo/hi` and `START_CTRL` sit
//! with [`TpbWindow::with_start_regs`]; each `START_CTRL = 1` write then
//! records a launch at `hi:lo`.
//!
//! An XT/NX window of [FACTS §13.1] ([`TpbWindow::xt`]) also starts its
//! run-stall and HW-decode registers at their device reset values [csr §3–§7]:
//! NX `release_run_stall` bit 0 = 1 (stalled), Q7 `release_run_stall` bits
//! 7:0 = `0xFF` (8 cores stalled), `hw_decode.control` bits 18:2
//! (`iram_block_size_mask`) = `0x1FFF`; [`TpbWindow::seq_stalled`],
//! [`TpbWindow::q7_stalled`] and [`TpbWindow::hw_decode_disabled`] read them
//! back, so a bring-up on the model can check what it released.

use std::any::Any;
use std::collections::BTreeMap;

use super::{Block, Bus};

/// Where the launch registers sit in a window (offsets from its base).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StartRegs {
    /// `start_addr_lo`.
    pub lo: u64,
    /// `start_addr_hi`.
    pub hi: u64,
    /// `START_CTRL`.
    pub ctrl: u64,
}

/// Where an XT/NX window's run-stall and HW-decode registers sit (offsets
/// from the window; `None` where the arch has none or it is not traced).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct XtLayout {
    /// NX `release_run_stall` (CAYMAN/MARIANA `+0x00`, SUNDA `+0x04`).
    pub seq_release: Option<u64>,
    /// XT `Q7_RELEASE_RUN_STALL` (`+0x3000`).
    pub q7_release: Option<u64>,
    /// XT `HW_DECODE_CONTROL` (`+0x4000`).
    pub hw_decode_control: Option<u64>,
    /// The launch registers (CAYMAN `+0x1060/+0x1080/+0x004`).
    pub start: Option<StartRegs>,
}

/// NX `release_run_stall` reset: bit 0 = 1, the sequencer stalled [csr §3].
pub const SEQ_STALL_RESET: u32 = 1;
/// Q7 `release_run_stall` reset: bits 7:0 = `0xFF`, the 8 cores stalled [csr §4].
pub const Q7_STALL_RESET: u32 = 0xFF;
/// `hw_decode.control` reset: `iram_block_size_mask` (bits 18:2) = `0x1FFF`
/// [csr §7]; the reset of the other bits is not given (0 here).
pub const HW_DECODE_CONTROL_RESET: u32 = 0x1FFF << 2;

/// One engine register window.
#[derive(Debug, Clone)]
pub struct TpbWindow {
    name: &'static str,
    size: u64,
    regs: BTreeMap<u64, u32>,
    start: Option<StartRegs>,
    xt: XtLayout,
    launches: Vec<u64>,
    writes: u64,
}

impl TpbWindow {
    /// A window of `size` bytes named `name` (`"tpb.pool"`, …), all zero.
    pub fn new(name: &'static str, size: u64) -> Self {
        TpbWindow {
            name,
            size,
            regs: BTreeMap::new(),
            start: None,
            xt: XtLayout::default(),
            launches: Vec::new(),
            writes: 0,
        }
    }

    /// An XT/NX window with `layout`'s registers at their reset values.
    pub fn xt(name: &'static str, size: u64, layout: XtLayout) -> Self {
        let mut w = TpbWindow::new(name, size);
        w.start = layout.start;
        w.xt = layout;
        for (off, reset) in [
            (layout.seq_release, SEQ_STALL_RESET),
            (layout.q7_release, Q7_STALL_RESET),
            (layout.hw_decode_control, HW_DECODE_CONTROL_RESET),
        ] {
            if let Some(o) = off {
                w.regs.insert(o, reset);
            }
        }
        w
    }

    /// The sequencer is still stalled (bit 0 of NX `release_run_stall`).
    pub fn seq_stalled(&self) -> Option<bool> {
        self.xt.seq_release.map(|o| self.reg(o) & 1 != 0)
    }

    /// The Q7 cores still stalled (bits 7:0 of `Q7_RELEASE_RUN_STALL`).
    pub fn q7_stalled(&self) -> Option<u32> {
        self.xt.q7_release.map(|o| self.reg(o) & 0xFF)
    }

    /// HW decode disabled (bit 0 of `HW_DECODE_CONTROL`), and the register.
    pub fn hw_decode_disabled(&self) -> Option<(bool, u32)> {
        self.xt.hw_decode_control.map(|o| {
            let r = self.reg(o);
            (r & 1 != 0, r)
        })
    }

    /// Record launches through these registers.
    pub fn with_start_regs(mut self, start: StartRegs) -> Self {
        self.start = Some(start);
        self
    }

    /// Preset a register (state firmware left behind).
    pub fn preset(&mut self, off: u64, value: u32) {
        self.regs.insert(off, value);
    }

    /// The register at `off` (0 if never written).
    pub fn reg(&self, off: u64) -> u32 {
        self.regs.get(&off).copied().unwrap_or(0)
    }

    /// The start addresses launched so far, in order.
    pub fn launches(&self) -> &[u64] {
        &self.launches
    }

    /// Number of writes the window received.
    pub fn writes(&self) -> u64 {
        self.writes
    }
}

impl Block for TpbWindow {
    fn name(&self) -> &'static str {
        self.name
    }
    fn size(&self) -> u64 {
        self.size
    }
    fn read(&mut self, off: u64, _: &mut Bus<'_>) -> u32 {
        self.reg(off)
    }
    fn write(&mut self, off: u64, value: u32, _: &mut Bus<'_>) {
        self.writes += 1;
        self.regs.insert(off, value);
        if let Some(s) = self.start {
            if off == s.ctrl && value == 1 {
                let lo = u64::from(self.reg(s.lo));
                let hi = u64::from(self.reg(s.hi));
                self.launches.push((hi << 32) | lo);
            }
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
    use khal_core::{DeviceAddr, Mmio};

    #[test]
    fn xt_window_resets_and_releases() {
        let dev = DeviceModel::new();
        let base = DeviceAddr(0x10_0000);
        let layout = XtLayout {
            seq_release: Some(0x0),
            q7_release: Some(0x3000),
            hw_decode_control: Some(0x4000),
            start: None,
        };
        dev.mount(base, TpbWindow::xt("xt.pool", 0x1_0000, layout))
            .unwrap();
        let state = |dev: &DeviceModel| {
            dev.with_block(base, |w: &mut TpbWindow, _| {
                (w.seq_stalled(), w.q7_stalled(), w.hw_decode_disabled())
            })
            .unwrap()
        };
        assert_eq!(state(&dev), (Some(true), Some(0xFF), Some((false, 0x7FFC))));
        dev.write32(base, 0).unwrap();
        dev.write32(base.add(0x3000), 0).unwrap();
        dev.write32(base.add(0x4000), 0x7FFD).unwrap();
        assert_eq!(state(&dev), (Some(false), Some(0), Some((true, 0x7FFD))));
    }

    #[test]
    fn records_launches() {
        let dev = DeviceModel::new();
        let base = DeviceAddr(0x4000);
        let regs = StartRegs {
            lo: 0x10,
            hi: 0x14,
            ctrl: 0x4,
        };
        dev.mount(base, TpbWindow::new("tpb.pe", 0x1000).with_start_regs(regs))
            .unwrap();
        dev.write32(base.add(0x10), 0x2000).unwrap();
        dev.write32(base.add(0x14), 0x1).unwrap();
        dev.write32(base.add(0x4), 1).unwrap();
        assert_eq!(dev.read32(base.add(0x14)), Ok(1));
        assert_eq!(
            dev.with_block(base, |w: &mut TpbWindow, _| w.launches().to_vec()),
            Some(vec![0x1_0000_2000])
        );
    }
}
