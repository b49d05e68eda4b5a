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

/// One engine register window.
#[derive(Debug, Clone)]
pub struct TpbWindow {
    name: &'static str,
    size: u64,
    regs: BTreeMap<u64, u32>,
    start: Option<StartRegs>,
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
            launches: Vec::new(),
            writes: 0,
        }
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
