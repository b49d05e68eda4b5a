//! The CSR layer on the core [000 §1]: `csr_write` / `csr_read` through both
//! lookups (the cell index's build runs here too), windows resolved once
//! (`Csr::window`), blocks and windows bound through the table
//! (`Csr::bind_block`, `Csr::bind_window`),
//! with 64-bit CSR addresses on a 32-bit core; every refusal writes nothing.

use khal::core::csr::{BinarySearch, CellIndex, Csr, CsrRegion, Lookup};
use khal::core::mmio::volatile::VolatileWindow;
use khal::{DeviceAddr, Error, Mmio};

use crate::harness::{Outcome, Runner};
use crate::{check, check_eq, ok};

/// The CSR addresses: a TPB band above 4 GiB, so every lookup, window test
/// and translation works on the high word too.
const CSR: u64 = 0x20_0000_0000;
/// Region 0 `[CSR, +0x100)` lives at `+0x100` of the window, region 1
/// `[CSR + 0x1000, +0x100)` at `+0x200`.
const R0: u64 = 0x100;
const R1: u64 = 0x200;

pub fn all(r: &mut Runner<'_>) {
    r.run("csr_table_binary_search", csr_table::<BinarySearch>);
    r.run("csr_table_cell_index", csr_table::<CellIndex<4>>);
    r.run("csr_window_resolved_once", csr_window);
    r.run("csr_block_bound_once", csr_block);
    r.run("csr_window_bound_in_the_window", csr_bound_window);
}

/// A window bound in the `VolatileWindow` (`Csr::bind_window`) answers the
/// CSR addresses: its first and last dwords land at the translation, the
/// dwords around it and the high word are refused by the window's own
/// check, writing nothing; binding past the inner window is refused.
fn csr_bound_window(win: &VolatileWindow) -> Outcome {
    let csr = ok!(csr_of::<BinarySearch>(win));
    let w = ok!(csr.bind_window(DeviceAddr(CSR + 0x1080), 0x10));
    ok!(w.write32(DeviceAddr(CSR + 0x1080), 0xE0));
    ok!(w.write32(DeviceAddr(CSR + 0x108C), 0xE3));
    check_eq!(at(win, R1 + 0x80), Ok(0xE0));
    check_eq!(at(win, R1 + 0x8C), Ok(0xE3));
    for a in [CSR + 0x107C, CSR + 0x1090, CSR + 0x1082, CSR + 0x1080 + (1 << 32)] {
        check_eq!(w.write32(DeviceAddr(a), 1), Err(Error::out_of_window(a)));
    }
    check_eq!(at(win, R1 + 0x7C), Ok(0));
    check_eq!(at(win, R1 + 0x90), Ok(0));
    check_eq!(
        csr.bind_window(DeviceAddr(CSR + 0x10F0), 0x20).map(|_| ()),
        Err(Error::out_of_window(CSR + 0x110C))
    );
    Ok(())
}

/// The window's dword at byte offset `off`.
fn at(win: &VolatileWindow, off: u64) -> Result<u32, Error> {
    win.read32(crate::WINDOW_BASE.add(off))
}

/// The two regions over `win`, built in place.
fn csr_of<L: Lookup>(win: &VolatileWindow) -> Result<Csr<&VolatileWindow, 4, L>, Error> {
    let base = crate::WINDOW_BASE.get();
    let mut csr = Csr::<_, 4, L>::with_empty_table(win);
    let t = csr.regions_mut().ok_or(Error::NoRegionTable)?;
    t.insert(CsrRegion::new(
        DeviceAddr(CSR + 0x1000),
        DeviceAddr(CSR + 0x1100),
        DeviceAddr(base + R1),
        1,
    )?)?;
    t.insert(CsrRegion::new(
        DeviceAddr(CSR),
        DeviceAddr(CSR + 0x100),
        DeviceAddr(base + R0),
        0,
    )?)?;
    Ok(csr)
}

/// `csr_write` / `csr_read` translate to each region's place; the bounds
/// `start`, `end - 4` pass, `end - 3`, a gap, a high word off by one and
/// no table are refused with their -2 errors [000 §1], writing nothing.
fn csr_table<L: Lookup>(win: &VolatileWindow) -> Outcome {
    let csr = ok!(csr_of::<L>(win));
    ok!(csr.csr_write(DeviceAddr(CSR), 0xA0));
    ok!(csr.csr_write(DeviceAddr(CSR + 0xFC), 0xA1));
    ok!(csr.csr_write(DeviceAddr(CSR + 0x1010), 0xB0));
    check_eq!(at(win, R0), Ok(0xA0));
    check_eq!(at(win, R0 + 0xFC), Ok(0xA1));
    check_eq!(at(win, R1 + 0x10), Ok(0xB0));
    check_eq!(csr.csr_read(DeviceAddr(CSR + 0x1010)), Ok(0xB0));
    check_eq!(
        csr.csr_write(DeviceAddr(CSR + 0xFD), 1),
        Err(Error::out_of_window(CSR + 0xFD))
    );
    for a in [CSR + 0x100, CSR - 4, CSR + 0x800, CSR + (1 << 32), 0x100] {
        check_eq!(csr.csr_write(DeviceAddr(a), 1), Err(Error::no_region(a)));
    }
    check_eq!(at(win, R0 + 0xFC), Ok(0xA1));
    check_eq!(at(win, R0 + 0x100), Ok(0));
    let mut csr = csr;
    check!(csr.deregister().is_some());
    check_eq!(csr.csr_write(DeviceAddr(CSR), 1), Err(Error::NoRegionTable));
    check_eq!(at(win, R0), Ok(0xA0));
    Ok(())
}

/// A window resolved once: its first and last dwords land at the region's
/// translation; the dwords around it, misaligned and the other region's
/// addresses are refused by it (`OutOfWindow`), writing nothing.
fn csr_window(win: &VolatileWindow) -> Outcome {
    let csr = ok!(csr_of::<BinarySearch>(win));
    let w = ok!(csr.window(DeviceAddr(CSR + 0x20), 0x10));
    ok!(w.write32(DeviceAddr(CSR + 0x20), 0xC0));
    ok!(w.write32(DeviceAddr(CSR + 0x2C), 0xC3));
    check_eq!(at(win, R0 + 0x20), Ok(0xC0));
    check_eq!(at(win, R0 + 0x2C), Ok(0xC3));
    check_eq!(w.read32(DeviceAddr(CSR + 0x2C)), Ok(0xC3));
    for a in [
        CSR + 0x1C,
        CSR + 0x30,
        CSR + 0x2D,
        CSR + 0x22,
        CSR + 0x1020,
        CSR + 0x20 + (1 << 32),
    ] {
        check_eq!(w.write32(DeviceAddr(a), 1), Err(Error::out_of_window(a)));
    }
    check_eq!(at(win, R0 + 0x1C), Ok(0));
    check_eq!(at(win, R0 + 0x30), Ok(0));
    check_eq!(at(win, R1 + 0x20), Ok(0));
    check_eq!(
        csr.window(DeviceAddr(CSR + 0xF0), 0x20).map(|_| ()),
        Err(Error::out_of_window(CSR + 0x10C))
    );
    Ok(())
}

khal::core::register_block! {
    /// A 16-byte block of region 1.
    BLK: "blk" {
        /// Its first dword.
        FIRST @ 0x0, rw, "first";
        /// Its last dword.
        LAST @ 0xC, rw, "last";
    }
}

/// A block bound through the table writes its registers at the region's
/// translation; a block leaving its region, or its translation leaving the
/// window, is refused when bound.
fn csr_block(win: &VolatileWindow) -> Outcome {
    let csr = ok!(csr_of::<BinarySearch>(win));
    let b = ok!(csr.bind_block::<0x10>(DeviceAddr(CSR + 0x1040)));
    ok!(b.write(FIRST, 0xD0));
    ok!(b.write(LAST, 0xD3));
    check_eq!(at(win, R1 + 0x40), Ok(0xD0));
    check_eq!(at(win, R1 + 0x4C), Ok(0xD3));
    check_eq!(csr.csr_read(DeviceAddr(CSR + 0x104C)), Ok(0xD3));
    check_eq!(
        csr.bind_block::<0x10>(DeviceAddr(CSR + 0x10F8)).map(|_| ()),
        Err(Error::out_of_window(CSR + 0x1104))
    );
    // A region forwarded past the window's end: the window refuses it.
    let mut far = Csr::<_, 1, BinarySearch>::with_empty_table(win);
    let end = crate::WINDOW_BASE.get() + crate::WINDOW_BYTES as u64;
    // (Named by the block's last dword, a CSR address.)
    ok!(ok!(far.regions_mut().ok_or(Error::NoRegionTable)).insert(ok!(CsrRegion::new(
        DeviceAddr(CSR),
        DeviceAddr(CSR + 0x100),
        DeviceAddr(end - 8),
        0,
    ))));
    check_eq!(
        far.bind_block::<0x10>(DeviceAddr(CSR)).map(|_| ()),
        Err(Error::out_of_window(CSR + 0xC))
    );
    Ok(())
}
