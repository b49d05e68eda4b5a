//! `Trace<M>`: records every access (op, address, value, register name).
//!
//! Golden tests compare the recorded sequence with the one the notes
//! prescribe; `khal trace` prints it. Names come from the block descriptions
//! mounted with [`Trace::with_block`].

use std::sync::Mutex;

use khal_core::regs::{BlockDesc, RegName};
use khal_core::{DeviceAddr, Mmio, Result};

/// Read or write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// A read; `value` is what was read.
    Read,
    /// A write; `value` is what was written.
    Write,
}

impl Op {
    /// `"read"` or `"write"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
        }
    }
}

/// One recorded access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Access {
    /// Read or write.
    pub op: Op,
    /// Absolute device address.
    pub addr: DeviceAddr,
    /// Value read or written.
    pub value: u32,
    /// The block the address falls in, with the block's base, if mounted.
    pub block: Option<(&'static str, DeviceAddr)>,
    /// The described register at the address, if any.
    pub reg: Option<RegName>,
}

impl Access {
    /// Offset from the base of the block it falls in (or the absolute address).
    pub fn offset(&self) -> u64 {
        match self.block {
            Some((_, base)) => self.addr.get() - base.get(),
            None => self.addr.get(),
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Mount {
    base: DeviceAddr,
    size: u64,
    desc: &'static BlockDesc,
}

/// Wraps an [`Mmio`] and records every access in order.
#[derive(Debug)]
pub struct Trace<M> {
    inner: M,
    mounts: Vec<Mount>,
    log: Mutex<Vec<Access>>,
}

impl<M> Trace<M> {
    /// Wrap `inner` with an empty log and no named blocks.
    pub fn new(inner: M) -> Self {
        Trace {
            inner,
            mounts: Vec::new(),
            log: Mutex::new(Vec::new()),
        }
    }

    /// Name accesses in `[base, base + size)` with `desc`.
    pub fn with_block(mut self, base: DeviceAddr, size: u64, desc: &'static BlockDesc) -> Self {
        self.mounts.push(Mount { base, size, desc });
        self
    }

    /// The recorded accesses so far.
    pub fn accesses(&self) -> Vec<Access> {
        self.log.lock().map(|l| l.clone()).unwrap_or_default()
    }

    /// `(op, offset-in-block, value)` triples: the form golden tests compare.
    pub fn ops(&self) -> Vec<(Op, u64, u32)> {
        self.accesses()
            .iter()
            .map(|a| (a.op, a.offset(), a.value))
            .collect()
    }

    /// Forget what was recorded.
    pub fn clear(&self) {
        if let Ok(mut l) = self.log.lock() {
            l.clear();
        }
    }

    /// The wrapped backend.
    pub fn inner(&self) -> &M {
        &self.inner
    }

    fn record(&self, op: Op, addr: DeviceAddr, value: u32) {
        // Blocks may overlap (an engine's NX and XT registers share one
        // window): the first mount that names the register wins, else the
        // first that holds the address.
        let inside = |m: &&Mount| addr.get() >= m.base.get() && addr.get() - m.base.get() < m.size;
        let m = self
            .mounts
            .iter()
            .filter(inside)
            .find(|m| m.desc.lookup(addr.get() - m.base.get()).is_some())
            .or_else(|| self.mounts.iter().find(inside));
        let access = Access {
            op,
            addr,
            value,
            block: m.map(|m| (m.desc.name, m.base)),
            reg: m.and_then(|m| m.desc.lookup(addr.get() - m.base.get())),
        };
        if let Ok(mut l) = self.log.lock() {
            l.push(access);
        }
    }
}

impl<M: Mmio> Mmio for Trace<M> {
    fn read32(&self, addr: DeviceAddr) -> Result<u32> {
        let v = self.inner.read32(addr)?;
        self.record(Op::Read, addr, v);
        Ok(v)
    }

    fn write32(&self, addr: DeviceAddr, value: u32) -> Result<()> {
        self.inner.write32(addr, value)?;
        self.record(Op::Write, addr, value);
        Ok(())
    }

    fn write_burst(&self, addr: DeviceAddr, words: &[u32]) -> Result<()> {
        self.inner.write_burst(addr, words)?;
        let mut a = addr;
        for &w in words {
            self.record(Op::Write, a, w);
            a = a.add(4);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heap::HeapMmio;

    khal_core::register_block! {
        /// test
        pub BLK: "blk" {
            /// r
            R @ 0x10, rw, "r";
        }
    }

    #[test]
    fn records_in_order_with_names() {
        let t = Trace::new(HeapMmio::new(DeviceAddr(0x1000), 0x100)).with_block(
            DeviceAddr(0x1000),
            0x100,
            &BLK,
        );
        R.write(&t, DeviceAddr(0x1000), 5).unwrap();
        assert_eq!(R.read(&t, DeviceAddr(0x1000)), Ok(5));
        t.write32(DeviceAddr(0x1020), 1).unwrap();
        assert_eq!(
            t.ops(),
            vec![
                (Op::Write, 0x10, 5),
                (Op::Read, 0x10, 5),
                (Op::Write, 0x20, 1)
            ]
        );
        let a = t.accesses();
        assert_eq!(a[0].reg.map(|r| r.to_string()), Some("blk.r".to_string()));
        assert_eq!(a[2].reg, None);
    }
}
