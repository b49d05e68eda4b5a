//! The CSR layer on the core [000 §1]: `csr_write` / `csr_read`, windows
//! resolved once into the `VolatileWindow` (`Csr::window`), blocks bound
//! through the table (`Csr::bind_block`), with 64-bit CSR addresses on a
//! 32-bit core; every refusal writes nothing and names a CSR address.

use khal::csr::{Csr, CsrRegion};
use khal::mmio::VolatileWindow;
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
    r.run("csr_table", csr_table);
    r.run("csr_window_resolved_once", csr_window);
    r.run("csr_block_bound_once", csr_block);
    r.run("csr_window_in_the_window", csr_window_in_the_window);
    r.run(
        "csr_errors_name_csr_addresses",
        csr_errors_name_csr_addresses,
    );
}

/// A window resolved into the `VolatileWindow` answers the CSR addresses:
/// its first and last dwords and a burst land at the translation; the dwords
/// around it, misaligned and the high word are refused by its one check,
/// writing nothing.
fn csr_window_in_the_window(win: &VolatileWindow) -> Outcome {
    let csr = ok!(csr_of(win));
    let w = ok!(csr.window(DeviceAddr(CSR + 0x1080), 0x10));
    ok!(w.write32(DeviceAddr(CSR + 0x1080), 0xE0));
    ok!(w.write32(DeviceAddr(CSR + 0x108C), 0xE3));
    ok!(w.write_burst(DeviceAddr(CSR + 0x1084), &[0xE1, 0xE2]));
    check_eq!(at(win, R1 + 0x80), Ok(0xE0));
    check_eq!(at(win, R1 + 0x84), Ok(0xE1));
    check_eq!(at(win, R1 + 0x88), Ok(0xE2));
    check_eq!(at(win, R1 + 0x8C), Ok(0xE3));
    check_eq!(w.read32(DeviceAddr(CSR + 0x1088)), Ok(0xE2));
    for a in [
        CSR + 0x107C,
        CSR + 0x1090,
        CSR + 0x1082,
        CSR + 0x1080 + (1 << 32),
    ] {
        check_eq!(w.write32(DeviceAddr(a), 1), Err(Error::out_of_window(a)));
        check_eq!(w.read32(DeviceAddr(a)), Err(Error::out_of_window(a)));
    }
    check_eq!(
        w.write_burst(DeviceAddr(CSR + 0x1088), &[1, 2, 3]),
        Err(Error::out_of_window(CSR + 0x1090))
    );
    check_eq!(at(win, R1 + 0x7C), Ok(0));
    check_eq!(at(win, R1 + 0x90), Ok(0));
    check_eq!(
        csr.window(DeviceAddr(CSR + 0x10F0), 0x20).map(|_| ()),
        Err(Error::out_of_window(CSR + 0x110C))
    );
    Ok(())
}

/// A region forwarded past the window's end: `csr_write`, `axi_write` and a
/// window over it refuse what the inner window does not hold, named by the
/// CSR address, and write what it holds.
fn csr_errors_name_csr_addresses(win: &VolatileWindow) -> Outcome {
    let far = ok!(far_csr(win));
    ok!(far.write32(DeviceAddr(CSR + 4), 0xF4));
    check_eq!(at(win, crate::WINDOW_BYTES as u64 - 4), Ok(0xF4));
    check_eq!(
        far.write32(DeviceAddr(CSR + 8), 1),
        Err(Error::out_of_window(CSR + 8))
    );
    check_eq!(
        far.read32(DeviceAddr(CSR + 0x10)),
        Err(Error::out_of_window(CSR + 0x10))
    );
    check_eq!(
        far.write_burst(DeviceAddr(CSR + 8), &[1, 2]),
        Err(Error::out_of_window(CSR + 8))
    );
    let w = ok!(far.window(DeviceAddr(CSR), 0x10));
    ok!(w.write32(DeviceAddr(CSR), 0xF0));
    check_eq!(at(win, crate::WINDOW_BYTES as u64 - 8), Ok(0xF0));
    check_eq!(
        w.write32(DeviceAddr(CSR + 0xC), 1),
        Err(Error::out_of_window(CSR + 0xC))
    );
    check_eq!(
        w.write_burst(DeviceAddr(CSR + 4), &[0xF5, 0xF6]),
        Err(Error::out_of_window(CSR + 8))
    );
    check_eq!(at(win, crate::WINDOW_BYTES as u64 - 4), Ok(0xF4));
    Ok(())
}

/// One region `[CSR, +0x100)` forwarded to the window's last 8 bytes.
fn far_csr(win: &VolatileWindow) -> Result<Csr<&VolatileWindow, 1>, Error> {
    let mut far = Csr::<_, 1>::with_empty_table(win);
    let end = crate::WINDOW_BASE.get() + crate::WINDOW_BYTES as u64;
    let r = CsrRegion::new(
        DeviceAddr(CSR),
        DeviceAddr(CSR + 0x100),
        DeviceAddr(end - 8),
        0,
    )?;
    far.regions_mut().ok_or(Error::NoRegionTable)?.insert(r)?;
    Ok(far)
}

/// The window's dword at byte offset `off`.
fn at(win: &VolatileWindow, off: u64) -> Result<u32, Error> {
    win.read32(crate::WINDOW_BASE.add(off))
}

/// The two regions over `win`, built in place.
fn csr_of(win: &VolatileWindow) -> Result<Csr<&VolatileWindow, 4>, Error> {
    let base = crate::WINDOW_BASE.get();
    let mut csr = Csr::<_, 4>::with_empty_table(win);
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
fn csr_table(win: &VolatileWindow) -> Outcome {
    let csr = ok!(csr_of(win));
    ok!(csr.write32(DeviceAddr(CSR), 0xA0));
    ok!(csr.write32(DeviceAddr(CSR + 0xFC), 0xA1));
    ok!(csr.write32(DeviceAddr(CSR + 0x1010), 0xB0));
    check_eq!(at(win, R0), Ok(0xA0));
    check_eq!(at(win, R0 + 0xFC), Ok(0xA1));
    check_eq!(at(win, R1 + 0x10), Ok(0xB0));
    check_eq!(csr.read32(DeviceAddr(CSR + 0x1010)), Ok(0xB0));
    check_eq!(
        csr.write32(DeviceAddr(CSR + 0xFD), 1),
        Err(Error::out_of_window(CSR + 0xFD))
    );
    for a in [CSR + 0x100, CSR - 4, CSR + 0x800, CSR + (1 << 32), 0x100] {
        check_eq!(csr.write32(DeviceAddr(a), 1), Err(Error::no_region(a)));
    }
    check_eq!(at(win, R0 + 0xFC), Ok(0xA1));
    check_eq!(at(win, R0 + 0x100), Ok(0));
    let mut csr = csr;
    check!(csr.deregister().is_some());
    check_eq!(csr.write32(DeviceAddr(CSR), 1), Err(Error::NoRegionTable));
    check_eq!(at(win, R0), Ok(0xA0));
    Ok(())
}

/// A window resolved once: its first and last dwords land at the region's
/// translation; the dwords around it, misaligned and the other region's
/// addresses are refused by it (`OutOfWindow`), writing nothing.
fn csr_window(win: &VolatileWindow) -> Outcome {
    let csr = ok!(csr_of(win));
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

khal::register_block! {
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
    let csr = ok!(csr_of(win));
    let b = ok!(csr.bind_block::<0x10>(DeviceAddr(CSR + 0x1040)));
    ok!(b.write(FIRST, 0xD0));
    ok!(b.write(LAST, 0xD3));
    check_eq!(at(win, R1 + 0x40), Ok(0xD0));
    check_eq!(at(win, R1 + 0x4C), Ok(0xD3));
    check_eq!(csr.read32(DeviceAddr(CSR + 0x104C)), Ok(0xD3));
    check_eq!(
        csr.bind_block::<0x10>(DeviceAddr(CSR + 0x10F8)).map(|_| ()),
        Err(Error::out_of_window(CSR + 0x1104))
    );
    // A region forwarded past the window's end: the window refuses it
    // (named by the block's last dword, a CSR address).
    let far = ok!(far_csr(win));
    check_eq!(
        far.bind_block::<0x10>(DeviceAddr(CSR)).map(|_| ()),
        Err(Error::out_of_window(CSR + 0xC))
    );
    Ok(())
}
