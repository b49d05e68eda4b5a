//! `VolatileWindow`, its bound handles and a `CsrWindow` resolved into it,
//! over ordinary memory: what Miri checks of khal-core's unsafe code.

#![allow(unsafe_code)]

use std::ptr::NonNull;

use khal_core::csr::{Csr, CsrRegion, RegionTable};
use khal_core::mmio::VolatileWindow;
use khal_core::{DeviceAddr, Error, Mmio};

/// A window over a heap buffer (this is what Miri checks).
fn window(buf: &mut [u32], base: u64) -> VolatileWindow {
    let ptr = NonNull::new(buf.as_mut_ptr()).unwrap();
    // SAFETY: `buf` outlives the window in every test, is only touched
    // through the window until the window is dropped, and is ordinary
    // single-threaded memory.
    unsafe { VolatileWindow::new(ptr, buf.len() * 4, DeviceAddr(base)) }.unwrap()
}

#[test]
fn debug_prints_the_window_in_hex() {
    let mut buf = vec![0u32; 0x40];
    let ptr = buf.as_ptr();
    let w = window(&mut buf, 0x2000_1000);
    assert_eq!(
        format!("{w:?}"),
        format!("VolatileWindow {{ base: {ptr:p}, device_base: 0x20001000, len: 0x100 }}")
    );
}

#[test]
fn reads_back_what_it_wrote_and_lands_in_memory() {
    let mut buf = vec![0u32; 16];
    {
        let w = window(&mut buf, 0x8_0260_0000);
        assert_eq!(w.len(), 64);
        w.write32(DeviceAddr(0x8_0260_0000), 0xDEAD_BEEF).unwrap();
        w.write32(DeviceAddr(0x8_0260_003C), 7).unwrap(); // last dword
        assert_eq!(w.read32(DeviceAddr(0x8_0260_0000)), Ok(0xDEAD_BEEF));
        assert_eq!(w.read32(DeviceAddr(0x8_0260_003C)), Ok(7));
        w.write_burst(DeviceAddr(0x8_0260_0010), &[1, 2, 3])
            .unwrap();
    } // the window ends here; the buffer is read directly only after it
    assert_eq!(buf[0], 0xDEAD_BEEF);
    assert_eq!(buf[4..7], [1, 2, 3]);
    assert_eq!(buf[15], 7);
}

#[test]
fn refuses_outside_and_misaligned_without_touching_memory() {
    let mut buf = vec![0u32; 4];
    {
        let w = window(&mut buf, 0x1000);
        for a in [0xFFC, 0x1010, 0x1002, 0x100F, u64::MAX] {
            assert_eq!(
                w.read32(DeviceAddr(a)),
                Err(Error::out_of_window(a)),
                "{a:#x}"
            );
            assert_eq!(w.write32(DeviceAddr(a), 1), Err(Error::out_of_window(a)));
        }
        // A burst that would run past the end writes nothing at all.
        assert_eq!(
            w.write_burst(DeviceAddr(0x1008), &[9, 9, 9]),
            Err(Error::out_of_window(0x1010))
        );
        assert_eq!(w.write_burst(DeviceAddr(0x2000), &[]), Ok(()));
    }
    assert_eq!(buf, [0, 0, 0, 0]);
}

/// Every address around a window (below, inside, above, misaligned) and
/// near both ends of the address space: refused exactly when it is not an
/// aligned dword of the window.
#[test]
fn the_window_check_matches_the_plain_definition() {
    let mut buf: Vec<u32> = (0..8).collect();
    let ptr = NonNull::new(buf.as_mut_ptr()).unwrap();
    for base in [0u64, 0x1000, 0x8_0260_0000, u64::MAX - 35, 1 << 63] {
        // SAFETY: `buf` outlives the window (dropped each iteration) and is
        // only read through it while it exists.
        let w = unsafe { VolatileWindow::new(ptr, 32, DeviceAddr(base)) }.unwrap();
        let probes = (0..48u64)
            .map(|d| base.wrapping_add(d))
            .chain((1..12u64).map(|d| base.wrapping_sub(d)))
            .chain([
                0,
                4,
                u64::MAX - 3,
                u64::MAX,
                base ^ (1 << 63),
                base.wrapping_add(1 << 32),
            ]);
        for a in probes {
            let want = a
                .checked_sub(base)
                .filter(|o| o % 4 == 0 && *o < 32)
                .map(|o| (o / 4) as u32)
                .ok_or(Error::out_of_window(a));
            assert_eq!(w.read32(DeviceAddr(a)), want, "base {base:#x} addr {a:#x}");
        }
    }
}

#[test]
fn constructor_refuses_bad_geometry() {
    let mut buf = vec![0u32; 4];
    let p = NonNull::new(buf.as_mut_ptr()).unwrap();
    // SAFETY: (all four calls) the buffer is live for the statement; every call
    // is refused before a window exists, and none is accessed.
    unsafe {
        assert!(VolatileWindow::new(p, 15, DeviceAddr(0)).is_err());
        assert!(VolatileWindow::new(p, 16, DeviceAddr(2)).is_err());
        assert!(VolatileWindow::new(p, 16, DeviceAddr(u64::MAX - 7)).is_err());
        let odd = NonNull::new(p.as_ptr().cast::<u8>().wrapping_add(1).cast::<u32>()).unwrap();
        assert!(VolatileWindow::new(odd, 4, DeviceAddr(0)).is_err());
    }
    let empty = window(&mut [], 0);
    assert!(empty.is_empty());
    assert_eq!(empty.read32(DeviceAddr(0)), Err(Error::out_of_window(0)));
}

khal_core::register_block! {
    /// A test block of 0x20 bytes.
    TESTBLK: "t" {
        /// First dword.
        A @ 0x0, rw, "a";
        /// Last dword.
        Z @ 0x1C, rw, "z";
        /// Past a 0x20-byte block.
        PAST @ 0x20, rw, "past";
        /// Misaligned.
        ODD @ 0x6, rw, "odd";
        /// Array of 4, stride 4.
        ARR @ 0x4, rw, "arr", array "q" [4; 4];
    }
}

#[test]
fn bound_accesses_land_where_the_address_based_ones_do() {
    let mut buf = vec![0u32; 16];
    {
        let w = window(&mut buf, 0x1000);
        let b = w.bind_block::<0x20>(DeviceAddr(0x1010)).unwrap();
        b.write(A, 0xA).unwrap();
        b.write(Z, 0xF).unwrap();
        b.at(ARR, 3).unwrap().write(0x33);
        assert_eq!(w.read32(DeviceAddr(0x1010)), Ok(0xA));
        assert_eq!(w.read32(DeviceAddr(0x102C)), Ok(0xF));
        assert_eq!(w.read32(DeviceAddr(0x1010 + 4 + 3 * 4)), Ok(0x33));
        assert_eq!(TESTBLK.regs.len(), 5);
        let r = w.bind(DeviceAddr(0x1004), A).unwrap();
        r.write(7);
        assert_eq!(r.modify(|v| v | 0x10), 0x17);
        assert_eq!(r.read(), 0x17);
        assert_eq!(b.read(Z), Ok(0xF));
    }
    assert_eq!(buf[1], 0x17);
    assert_eq!(buf[4], 0xA);
    assert_eq!(buf[8], 0x33);
    assert_eq!(buf[11], 0xF);
}

#[test]
fn binding_refuses_what_the_window_refuses() {
    let mut buf = vec![0u32; 16];
    let w = window(&mut buf, 0x1000);
    // The whole window as one block is fine; one dword more is not.
    assert!(w.bind_block::<0x40>(DeviceAddr(0x1000)).is_ok());
    assert_eq!(
        w.bind_block::<0x40>(DeviceAddr(0x1004)).map(|_| ()),
        Err(Error::out_of_window(0x1044))
    );
    assert_eq!(
        w.bind_block::<0x20>(DeviceAddr(0x1002)).map(|_| ()),
        Err(Error::out_of_window(0x1002))
    );
    assert_eq!(
        w.bind_block::<0x20>(DeviceAddr(0xFFC)).map(|_| ()),
        Err(Error::out_of_window(0xFFC))
    );
    assert!(w.bind_block::<6>(DeviceAddr(0x1000)).is_err());
    assert!(w.bind_block::<0>(DeviceAddr(0x1000)).is_err());
    assert_eq!(
        w.bind(DeviceAddr(0x1040), A).map(|_| ()),
        Err(Error::out_of_window(0x1040))
    );
    // An address past 2^64 is refused, not wrapped into the window.
    assert!(matches!(
        w.bind(DeviceAddr(u64::MAX - 0x1B), Z).map(|_| ()),
        Err(Error::InvalidArgument(_))
    ));
    let b = w.bind_block::<0x20>(DeviceAddr(0x1000)).unwrap();
    // The block's last dword (+0x1C) is its own; +0x20 is past it.
    assert!(b.reg(Z).is_ok());
    for r in [PAST, ODD] {
        assert!(matches!(b.reg(r), Err(Error::OutOfRange { .. })), "{r:?}");
        assert!(b.write(r, 1).is_err());
        assert!(b.read(r).is_err());
    }
    assert!(b.at(ARR, 4).is_err());
    assert!(b.at(ARR, 3).is_ok());
}

/// A block bound through the CSR layer lands at its translation, and a
/// `CsrWindow` over the `VolatileWindow` (resolved into a part of it) accesses
/// exactly its own dwords: a foreign address, one of another registered
/// region or of the same region outside the window, is refused with the CSR
/// address and touches nothing.
#[test]
fn a_csr_block_and_window_land_at_their_translation() {
    const CSR: u64 = 0x20_0000_0000;
    let mut buf = vec![0u32; 16];
    {
        let w = window(&mut buf, 0x1000);
        let mut t = RegionTable::<3>::new();
        // [CSR, +0x40) at 0x1000 of the window; [CSR + 0x1000, +0x100)
        // at 0x1030, which the window holds 16 bytes of; a region whose
        // dwords start 2 bytes past a CSR dword.
        let region = |s: u64, e: u64, d: u64| {
            CsrRegion::new(DeviceAddr(s), DeviceAddr(e), DeviceAddr(d), 0).unwrap()
        };
        t.insert(region(CSR, CSR + 0x40, 0x1000)).unwrap();
        t.insert(region(CSR + 0x1000, CSR + 0x1100, 0x1030))
            .unwrap();
        t.insert(region(CSR + 0x2002, CSR + 0x2012, 0x1004))
            .unwrap();
        let csr = Csr::new(&w, t);
        let b = csr.bind_block::<0x20>(DeviceAddr(CSR + 0x10)).unwrap();
        b.write(A, 0xA).unwrap();
        b.write(Z, 0xF).unwrap();
        assert_eq!(csr.read32(DeviceAddr(CSR + 0x10)), Ok(0xA));
        assert_eq!(csr.read32(DeviceAddr(CSR + 0x2C)), Ok(0xF));
        // The region refuses a block leaving it (its last dword) ...
        assert_eq!(
            csr.bind_block::<0x40>(DeviceAddr(CSR + 0x10)).map(|_| ()),
            Err(Error::out_of_window(CSR + 0x4C))
        );
        assert_eq!(
            csr.bind_block::<0x20>(DeviceAddr(CSR + 0x80)).map(|_| ()),
            Err(Error::no_region(CSR + 0x80))
        );
        assert!(csr.bind_block::<6>(DeviceAddr(CSR)).is_err());
        // ... and the inner window one whose translation leaves it (named by
        // the block's last dword, a CSR address).
        assert!(csr.bind_block::<0x10>(DeviceAddr(CSR + 0x1000)).is_ok());
        assert_eq!(
            csr.bind_block::<0x20>(DeviceAddr(CSR + 0x1000)).map(|_| ()),
            Err(Error::out_of_window(CSR + 0x101C))
        );
        // A window: its dwords reach the translation, a burst too.
        let regs = csr.window(DeviceAddr(CSR + 0x20), 0x10).unwrap();
        regs.write32(DeviceAddr(CSR + 0x24), 0x25).unwrap();
        assert_eq!(regs.read32(DeviceAddr(CSR + 0x24)), Ok(0x25));
        regs.write_burst(DeviceAddr(CSR + 0x28), &[0x28, 0x2C])
            .unwrap();
        // Foreign addresses: another region's dword, the same region's
        // outside the window, an inner-window address, misaligned; a burst
        // leaving the window; an empty burst outside it.
        for a in [CSR + 0x1000, CSR + 0x1C, CSR + 0x30, 0x1024, CSR + 0x26] {
            assert_eq!(
                regs.write32(DeviceAddr(a), 1),
                Err(Error::out_of_window(a)),
                "{a:#x}"
            );
            assert_eq!(
                regs.read32(DeviceAddr(a)),
                Err(Error::out_of_window(a)),
                "{a:#x}"
            );
        }
        assert_eq!(
            regs.write_burst(DeviceAddr(CSR + 0x2C), &[1, 2]),
            Err(Error::out_of_window(CSR + 0x30))
        );
        assert_eq!(
            regs.write_burst(DeviceAddr(CSR + 0x30), &[]),
            Err(Error::out_of_window(CSR + 0x30))
        );
        // A window the inner window does not hold whole resolves; its
        // accesses past the inner window are refused with CSR addresses, as
        // `csr_write`'s are.
        let part = csr.window(DeviceAddr(CSR + 0x1000), 0x20).unwrap();
        part.write32(DeviceAddr(CSR + 0x100C), 0x3C).unwrap();
        assert_eq!(
            part.write32(DeviceAddr(CSR + 0x1010), 1),
            Err(Error::out_of_window(CSR + 0x1010))
        );
        assert_eq!(
            csr.write32(DeviceAddr(CSR + 0x1010), 1),
            Err(Error::out_of_window(CSR + 0x1010))
        );
        // Dwords at CSR addresses 2 bytes past a dword.
        let odd = csr.window(DeviceAddr(CSR + 0x2002), 8).unwrap();
        odd.write32(DeviceAddr(CSR + 0x2006), 0x99).unwrap();
        assert_eq!(csr.read32(DeviceAddr(CSR + 0x2006)), Ok(0x99));
        assert_eq!(
            odd.write32(DeviceAddr(CSR + 0x2004), 1),
            Err(Error::out_of_window(CSR + 0x2004))
        );
    }
    assert_eq!(
        &buf[..],
        &[0, 0, 0x99, 0, 0xA, 0, 0, 0, 0, 0x25, 0x28, 0x2C, 0, 0, 0, 0x3C]
    );
}
