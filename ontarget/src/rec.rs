//! A recording `Mmio`: every access to the RAM window, as `(op, offset from a
//! block base, value)`, in order, to compare with the golden programs; and the
//! register file check (every dword of a block equal to what the program leaves).

use core::cell::{Cell, RefCell};

use khal::mmio::VolatileWindow;
use khal::{DeviceAddr, Mmio, Result};

use crate::golden::{Access, Op};

/// Accesses one test records at most.
pub const LOG: usize = 80;

/// The window, with every access logged relative to `base`.
pub struct Rec<'w> {
    win: &'w VolatileWindow,
    base: DeviceAddr,
    log: RefCell<[Access; LOG]>,
    len: Cell<usize>,
    overflow: Cell<bool>,
    reads: Cell<u32>,
    writes: Cell<u32>,
}

impl<'w> Rec<'w> {
    /// Log accesses to `win` as offsets from `base`.
    pub fn new(win: &'w VolatileWindow, base: DeviceAddr) -> Self {
        Rec {
            win,
            base,
            log: RefCell::new([(Op::Read, 0, 0); LOG]),
            len: Cell::new(0),
            overflow: Cell::new(false),
            reads: Cell::new(0),
            writes: Cell::new(0),
        }
    }

    /// [`Rec::new`]: every access takes the address path (`read32` /
    /// `write32`), as every backend's does.
    pub fn unslotted(win: &'w VolatileWindow, base: DeviceAddr) -> Self {
        Rec::new(win, base)
    }

    fn push(&self, op: Op, addr: DeviceAddr, v: u32) {
        let count = match op {
            Op::Read => &self.reads,
            Op::Write => &self.writes,
        };
        count.set(count.get() + 1);
        let n = self.len.get();
        let off = addr.get().wrapping_sub(self.base.get());
        match self.log.borrow_mut().get_mut(n) {
            Some(slot) => {
                *slot = (op, off, v);
                self.len.set(n + 1);
            }
            None => self.overflow.set(true),
        }
    }

    /// `true` when the log equals `want` exactly (and never overflowed);
    /// otherwise prints both.
    pub fn matches(&self, want: &[Access]) -> bool {
        let log = self.log.borrow();
        let got = log.get(..self.len.get()).unwrap_or(&[]);
        if !self.overflow.get() && got == want {
            return true;
        }
        semihosting::println!("  recorded {:x?}", got);
        semihosting::println!("  golden   {:x?}", want);
        false
    }

    /// Forget what was logged.
    pub fn clear(&self) {
        self.len.set(0);
        self.overflow.set(false);
        self.reads.set(0);
        self.writes.set(0);
    }

    /// `(reads, writes)` since the last [`Rec::clear`] (not bounded by the log).
    pub fn counts(&self) -> (u32, u32) {
        (self.reads.get(), self.writes.get())
    }

    /// Reads of the register at offset `off` still in the log.
    pub fn reads_of(&self, off: u64) -> usize {
        let log = self.log.borrow();
        let got = log.get(..self.len.get()).unwrap_or(&[]);
        got.iter().filter(|a| a.0 == Op::Read && a.1 == off).count()
    }

    /// Writes to the register at offset `off` still in the log.
    pub fn writes_to(&self, off: u64) -> usize {
        let log = self.log.borrow();
        let got = log.get(..self.len.get()).unwrap_or(&[]);
        got.iter()
            .filter(|a| a.0 == Op::Write && a.1 == off)
            .count()
    }
}

impl Mmio for Rec<'_> {
    fn read32(&self, addr: DeviceAddr) -> Result<u32> {
        let v = self.win.read32(addr)?;
        self.push(Op::Read, addr, v);
        Ok(v)
    }

    fn write32(&self, addr: DeviceAddr, value: u32) -> Result<()> {
        self.win.write32(addr, value)?;
        self.push(Op::Write, addr, value);
        Ok(())
    }
}

/// Compare the `bytes` of the window at `base` with `before` (a snapshot of
/// the block as words, or all zero when `None`) after the writes of `program`:
/// each dword must hold the last value the program wrote to it, or its old value.
/// Prints the first difference.
pub fn block_after(
    win: &VolatileWindow,
    base: DeviceAddr,
    bytes: u64,
    before: Option<&[u32]>,
    program: &[Access],
) -> Result<bool> {
    let mut off = 0;
    while off < bytes {
        let mut want = before
            .and_then(|b| b.get((off / 4) as usize).copied())
            .unwrap_or(0);
        for &(op, o, v) in program {
            if op == Op::Write && o == off {
                want = v;
            }
        }
        let got = win.read32(base.add(off))?;
        if got != want {
            semihosting::println!("  register +{:#x} = {:#x}, want {:#x}", off, got, want);
            return Ok(false);
        }
        off += 4;
    }
    Ok(true)
}
