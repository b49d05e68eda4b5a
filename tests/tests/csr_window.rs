//! `Csr::window` / `CsrWindow` [000 §1] against models (the fifth
//! checker): for random region tables (odd sizes, translations not dword
//! aligned, regions up to the top of the 64-bit space), random windows and
//! random addresses, resolving answers exactly what a linear model of the
//! table allows for one region, and a resolved window answers exactly
//! "translate if `start <= p <= start + bytes - 4` and `(p - start) % 4 ==
//! 0`, else `OutOfWindow(p)`", with one inner access per accepted access,
//! in order, and none on a refusal.

use std::cell::RefCell;
use std::collections::BTreeMap;

use khal_core::csr::{Csr, CsrRegion, RegionTable};
use khal_core::{DeviceAddr, Error, Mmio, Result};
use khal_std::Op;
use khal_std::{Counting, HeapMmio, Trace};
use proptest::prelude::*;

/// `(start, length, device)` per region, sorted, not overlapping.
type Layout = Vec<(u64, u64, u64)>;

/// Any inner address is accepted; every access is logged (a burst once).
#[derive(Default)]
struct Rec {
    mem: RefCell<BTreeMap<u64, u32>>,
    log: RefCell<Vec<(&'static str, u64, usize)>>,
}

impl Mmio for Rec {
    fn read32(&self, a: DeviceAddr) -> Result<u32> {
        self.log.borrow_mut().push(("r", a.get(), 1));
        Ok(*self.mem.borrow().get(&a.get()).unwrap_or(&0))
    }
    fn write32(&self, a: DeviceAddr, v: u32) -> Result<()> {
        self.log.borrow_mut().push(("w", a.get(), 1));
        self.mem.borrow_mut().insert(a.get(), v);
        Ok(())
    }
    fn write_burst(&self, a: DeviceAddr, w: &[u32]) -> Result<()> {
        self.log.borrow_mut().push(("b", a.get(), w.len()));
        for (i, &v) in w.iter().enumerate() {
            self.mem.borrow_mut().insert(a.get() + 4 * i as u64, v);
        }
        Ok(())
    }
}

/// The region of `p` in the layout (linear: `start <= p < start + len`).
fn region_of(l: &Layout, p: u64) -> Option<(u64, u64, u64)> {
    l.iter().copied().find(|&(s, n, _)| s <= p && p - s < n)
}

/// The table's answer for a dword at `p`, from the layout [000 §1].
fn table_model(l: &Layout, p: u64) -> Result<u64> {
    let (s, n, d) = region_of(l, p).ok_or(Error::no_region(p))?;
    if p > s + n - 4 || !(d + (p - s)).is_multiple_of(4) {
        return Err(Error::out_of_window(p));
    }
    Ok(d + (p - s))
}

/// What `Csr::window(start, bytes)` answers: the device address of
/// `start`, when every dword of the block is accepted by the table and in
/// the region of `start`; else the first refusal.
fn window_model(l: &Layout, start: u64, bytes: u64) -> std::result::Result<u64, Error> {
    if bytes == 0 || !bytes.is_multiple_of(4) {
        return Err(Error::InvalidArgument(""));
    }
    let first = table_model(l, start)?;
    let (s, n, _) = region_of(l, start).expect("start is in a region");
    let last = start.checked_add(bytes - 4);
    match last {
        Some(q) if q - s < n && table_model(l, q).is_ok() => Ok(first),
        Some(q) => Err(Error::out_of_window(q)),
        None => Err(Error::out_of_window(start)),
    }
}

/// Random layouts: 1 to 8 regions of 4 to 300 bytes (any size), gaps of 0
/// to 40 bytes (any alignment), device addresses anywhere below 2^48 (one
/// in three not dword aligned); low, in the TPB band, or ending at the top
/// of the address space.
fn layouts() -> impl Strategy<Value = Layout> {
    (
        prop::collection::vec((4u64..300, 0u64..40, any::<u64>(), 0u8..3), 1..8),
        0u8..3,
    )
        .prop_map(|(rs, base)| {
            let span: u64 = rs.iter().map(|r| r.0 + r.1).sum();
            let mut s = match base {
                0 => 0x1000,
                1 => 0x20_0000_0000,
                _ => u64::MAX - span,
            };
            rs.iter()
                .map(|&(n, gap, d, mis)| {
                    s += gap;
                    let dev = (d % (1 << 48)) & !3 | if mis == 0 { d & 3 } else { 0 };
                    let r = (s, n, dev);
                    s = s.wrapping_add(n);
                    r
                })
                .collect()
        })
}

fn table<const N: usize>(l: &Layout) -> RegionTable<N> {
    let mut t = RegionTable::<N>::new();
    for (k, &(s, n, d)) in l.iter().enumerate().rev() {
        let r = CsrRegion::new(
            DeviceAddr(s),
            DeviceAddr(s.wrapping_add(n)),
            DeviceAddr(d),
            k as u32,
        );
        // The top region may end at 2^64: then it ends at u64::MAX instead
        // (one byte less), which the layout records below.
        t.insert(r.expect("a valid region")).expect("inserted");
    }
    t
}

/// Keeps the top region below 2^64 (its end is exclusive).
fn fix_top(mut l: Layout) -> Layout {
    if let Some(r) = l.last_mut() {
        if r.0.checked_add(r.1).is_none() {
            r.1 = u64::MAX - r.0;
        }
    }
    l.retain(|&(_, n, _)| n >= 4);
    l
}

/// Addresses worth asking about a window `[s, s + b)`: its edges, one to
/// three bytes off them, inside, and some far away.
fn probes(s: u64, b: u64, extra: &[u64]) -> Vec<u64> {
    let mut v = vec![0, 3, u64::MAX, u64::MAX - 3, u64::MAX - 7];
    for d in 0..12u64 {
        v.push(s.wrapping_sub(8).wrapping_add(d));
        v.push(s.wrapping_add(b).wrapping_sub(8).wrapping_add(d));
    }
    v.extend(extra.iter().map(|&x| s.wrapping_add(x % b.max(1))));
    v.extend_from_slice(extra);
    v
}

fn check_layout<const N: usize>(
    l: &Layout,
    picks: &[(usize, u64, u64)],
    extra: &[u64],
) -> std::result::Result<(), TestCaseError> {
    let csr: Csr<Rec, N> = Csr::new(Rec::default(), table::<N>(l));
    for &(k, off, dwords) in picks {
        let (rs, rn, _) = l[k % l.len()];
        let start = rs.wrapping_add(off % (rn + 8)).wrapping_sub(4);
        let bytes = match dwords % 7 {
            0 => dwords % 5, // 0 to 4: not always whole dwords
            _ => 4 * (dwords % 80),
        };
        let got = csr.window(DeviceAddr(start), bytes);
        let want = window_model(l, start, bytes);
        match (&got, &want) {
            (Err(Error::InvalidArgument(_)), Err(Error::InvalidArgument(_))) => continue,
            (Ok(w), Ok(dev)) => {
                prop_assert_eq!((w.start().get(), w.len()), (start, bytes));
                // Its first dword goes to the translation.
                prop_assert!(w.read32(DeviceAddr(start)).is_ok());
                let last = csr.inner().log.borrow().last().copied();
                prop_assert_eq!(last, Some(("r", *dev, 1)));
            }
            _ => {
                prop_assert_eq!(
                    got.map(|_| ()),
                    want.map(|_| ()),
                    "window({:#x}, {})",
                    start,
                    bytes
                );
                continue;
            }
        }
        let w = got.expect("resolved");
        let dev = want.expect("resolved");
        // Every access of the window against its model (and, where the
        // window takes it, against the table's own answer).
        for p in probes(start, bytes, extra) {
            let o = p.wrapping_sub(start);
            let inside = o.is_multiple_of(4) && o <= bytes - 4;
            csr.inner().log.borrow_mut().clear();
            let r = w.read32(DeviceAddr(p));
            let wr = w.write32(DeviceAddr(p), 0x5A);
            let log = csr.inner().log.borrow().clone();
            if inside {
                let t = dev + o;
                prop_assert_eq!(table_model(l, p), Ok(t));
                prop_assert!(r.is_ok() && wr.is_ok(), "{:#x} in the window refused", p);
                prop_assert_eq!(log, vec![("r", t, 1), ("w", t, 1)]);
            } else {
                prop_assert_eq!(r, Err(Error::out_of_window(p)));
                prop_assert_eq!(wr, Err(Error::out_of_window(p)));
                prop_assert!(log.is_empty(), "a refusal reached the device: {:?}", log);
            }
            // A burst of 0 to 3 dwords from `p`: whole or nothing.
            for len in 0..4usize {
                csr.inner().log.borrow_mut().clear();
                let b = w.write_burst(DeviceAddr(p), &vec![7; len]);
                let log = csr.inner().log.borrow().clone();
                let room = (bytes - o.min(bytes)) / 4;
                if !inside {
                    prop_assert_eq!(b, Err(Error::out_of_window(p)));
                    prop_assert!(log.is_empty());
                } else if len as u64 > room {
                    // Named by the burst's last dword (as `axi_write`).
                    prop_assert_eq!(
                        b,
                        Err(Error::out_of_window(p.wrapping_add(4 * (len as u64 - 1))))
                    );
                    prop_assert!(log.is_empty());
                } else {
                    prop_assert_eq!(b, Ok(()));
                    let want: Vec<_> = if len == 0 {
                        vec![]
                    } else {
                        vec![("b", dev + o, len)]
                    };
                    prop_assert_eq!(log, want);
                }
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn windows_answer_as_the_model(
        l in layouts(),
        picks in prop::collection::vec((0usize..8, any::<u64>(), any::<u64>()), 1..12),
        extra in prop::collection::vec(any::<u64>(), 0..16),
    ) {
        let l = fix_top(l);
        prop_assume!(!l.is_empty());
        check_layout::<8>(&l, &picks, &extra)?;
        check_layout::<16>(&l, &picks, &extra)?;
    }
}

#[test]
fn a_window_with_no_table_is_refused() {
    let u: Csr<Rec, 4> = Csr::with_empty_table(Rec::default());
    assert!(u.window(DeviceAddr(0x1000), 4).is_err());
    let mut c: Csr<Rec, 4> = Csr::with_empty_table(Rec::default());
    let _ = c.deregister();
    assert_eq!(
        c.window(DeviceAddr(0x1000), 4).map(|_| ()),
        Err(Error::NoRegionTable)
    );
}

/// Over the trace and counting wrappers: one inner access per window
/// access, in call order, at the translated address; nothing on a refusal.
#[test]
fn a_window_over_the_wrappers_is_one_access_each_in_order() {
    const S: u64 = 0x20_0000_0000;
    let mut t = RegionTable::<4>::new();
    t.insert(CsrRegion::new(DeviceAddr(S), DeviceAddr(S + 0x100), DeviceAddr(0x40), 0).unwrap())
        .unwrap();
    let csr = Csr::new(
        Counting::new(Trace::new(HeapMmio::new(DeviceAddr(0), 0x200))),
        t,
    );
    let w = csr.window(DeviceAddr(S + 0x10), 0x20).unwrap();
    w.write32(DeviceAddr(S + 0x10), 1).unwrap();
    let v = w.read32(DeviceAddr(S + 0x10)).unwrap();
    w.write32(DeviceAddr(S + 0x2C), v + 1).unwrap();
    assert_eq!(
        w.read32(DeviceAddr(S + 0x30)),
        Err(Error::out_of_window(S + 0x30))
    );
    assert_eq!(
        w.write32(DeviceAddr(S + 0xC), 9),
        Err(Error::out_of_window(S + 0xC))
    );
    w.write_burst(DeviceAddr(S + 0x24), &[5, 6]).unwrap();
    assert_eq!(
        w.write_burst(DeviceAddr(S + 0x28), &[5, 6, 7]),
        Err(Error::out_of_window(S + 0x30))
    );
    assert_eq!(w.read32(DeviceAddr(S + 0x28)), Ok(6));
    let c = csr.inner();
    assert_eq!((c.reads(), c.writes()), (2, 4));
    assert_eq!(
        c.inner().ops(),
        vec![
            (Op::Write, 0x50, 1),
            (Op::Read, 0x50, 1),
            (Op::Write, 0x6C, 2),
            (Op::Write, 0x64, 5),
            (Op::Write, 0x68, 6),
            (Op::Read, 0x68, 6),
        ]
    );
}

khal_core::register_block! {
    /// The 16-byte block the `bind_block` property binds.
    K5BLK: "k5blk" {
        /// Its first dword.
        FIRST @ 0x0, rw, "first";
        /// Its last dword.
        LAST @ 0xC, rw, "last";
    }
}

/// The inner window of the `bind_block` property: 0x100 bytes at 0x4000.
const INNER: u64 = 0x4000;
const INNER_BYTES: u64 = 0x100;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// `Csr::bind_block::<16>` over a `VolatileWindow`: bound exactly when
    /// the window model resolves the block and its translation lies in the
    /// inner window; the block's first and last registers land at the
    /// model's inner address; a refused bind writes nothing. `Csr::window`
    /// of the same block likewise, refusing every address outside it.
    #[test]
    fn a_bound_block_lands_where_the_model_says(
        rs in prop::collection::vec((4u64..96, 0u64..24, 0u64..0x180), 1..6),
        picks in prop::collection::vec((0usize..6, 0u64..128), 1..16),
    ) {
        use khal_core::mmio::VolatileWindow;
        let mut s = 0x20_0000_0000u64;
        let l: Layout = rs
            .iter()
            .map(|&(n, gap, d)| {
                s += gap;
                let r = (s, n, INNER - 0x40 + d);
                s += n;
                r
            })
            .collect();
        let mut buf = vec![0u32; (INNER_BYTES / 4) as usize];
        let ptr = std::ptr::NonNull::new(buf.as_mut_ptr()).unwrap();
        // SAFETY: `buf` outlives the window (dropped at the end of this
        // block) and is touched only through it until then; one thread.
        let win = unsafe { VolatileWindow::new(ptr, INNER_BYTES as usize, DeviceAddr(INNER)) }.unwrap();
        let csr: Csr<&VolatileWindow, 8> = Csr::new(&win, table::<8>(&l));
        for (i, &(k, off)) in picks.iter().enumerate() {
            let (rs, rn, _) = l[k % l.len()];
            let start = rs + off % (rn + 4);
            let got = csr.bind_block::<16>(DeviceAddr(start));
            let want = window_model(&l, start, 16)
                .ok()
                .filter(|&d| d >= INNER && d + 16 <= INNER + INNER_BYTES);
            let before: Vec<u32> = (0..INNER_BYTES / 4).map(|j| win.read32(DeviceAddr(INNER + 4 * j)).unwrap()).collect();
            match (got, want) {
                (Ok(b), Some(d)) => {
                    b.write(FIRST, 2 * i as u32 + 1).unwrap();
                    b.write(LAST, 2 * i as u32 + 2).unwrap();
                    prop_assert_eq!(win.read32(DeviceAddr(d)), Ok(2 * i as u32 + 1));
                    prop_assert_eq!(win.read32(DeviceAddr(d + 0xC)), Ok(2 * i as u32 + 2));
                    prop_assert_eq!(b.read(LAST), Ok(2 * i as u32 + 2));
                }
                (Err(e), None) => {
                    prop_assert!(
                        matches!(e, Error::OutOfWindow { .. } | Error::NoRegion { .. }),
                        "{:?}",
                        e
                    );
                    let after: Vec<u32> = (0..INNER_BYTES / 4).map(|j| win.read32(DeviceAddr(INNER + 4 * j)).unwrap()).collect();
                    prop_assert_eq!(before, after);
                }
                (got, want) => prop_assert!(false, "bind_block({:#x}): {:?}, model {:x?}", start, got.map(|_| ()), want),
            }
            // A window of the same 16 bytes (resolved into the inner window
            // when it holds them): resolved as the model says; its first and
            // last dwords land at the translation when the inner window
            // holds it, else are refused with the CSR address; the dword
            // after it, and a foreign address, are refused and touch nothing.
            let got = csr.window(DeviceAddr(start), 16);
            let want = window_model(&l, start, 16);
            prop_assert_eq!(got.as_ref().map(|_| ()).map_err(|e| *e), want.map(|_| ()));
            let (Ok(w), Ok(d)) = (got, want) else { continue };
            for (j, p) in [start, start + 0xC].into_iter().enumerate() {
                let v = 0x100 + 2 * i as u32 + j as u32;
                let t = d + 4 * 3 * j as u64;
                if (INNER..INNER + INNER_BYTES).contains(&t) {
                    prop_assert_eq!(w.write32(DeviceAddr(p), v), Ok(()));
                    prop_assert_eq!(win.read32(DeviceAddr(t)), Ok(v));
                    prop_assert_eq!(w.read32(DeviceAddr(p)), Ok(v));
                } else {
                    prop_assert_eq!(w.write32(DeviceAddr(p), v), Err(Error::out_of_window(p)));
                    prop_assert_eq!(w.read32(DeviceAddr(p)), Err(Error::out_of_window(p)));
                }
            }
            let before: Vec<u32> = (0..INNER_BYTES / 4).map(|j| win.read32(DeviceAddr(INNER + 4 * j)).unwrap()).collect();
            for p in [start + 0x10, start.wrapping_sub(4), start + 2, d, l[0].0] {
                if p.wrapping_sub(start) % 4 == 0 && p.wrapping_sub(start) < 16 {
                    continue;
                }
                prop_assert_eq!(w.write32(DeviceAddr(p), 1), Err(Error::out_of_window(p)));
            }
            let after: Vec<u32> = (0..INNER_BYTES / 4).map(|j| win.read32(DeviceAddr(INNER + 4 * j)).unwrap()).collect();
            prop_assert_eq!(before, after);
        }
    }
}

/// A driver runs on a window unchanged: the notification engine brought up
/// and a phase-mode ring drained over 2.5 passes through a `CsrWindow`
/// (CSR `0x20_0000_0000` forwarded to the notific block) give the same
/// inner accesses, in the same order, and the same entries as the same
/// driver straight on the register file [004 §2, §3].
#[test]
fn a_driver_through_a_window_makes_the_same_accesses_as_without() {
    use khal_core::dma::DmaMemory;
    use khal_core::notific::NqEntry;
    use khal_core::notific::{
        BpMode, EngineConfig, NotificBlocks, NotificEngine, NqConfig, NqRing, NOTIFIC_BLOCK_BYTES,
    };
    /// The phase bit's byte and mask in an entry (bit 7 of byte 3) [004 §3].
    const PHASE_BYTE: usize = 3;
    const PHASE_MASK: u8 = 0x80;
    use khal_std::DmaBuf;
    use khal_tests::nq::{traced, BASE};

    const CSR: u64 = 0x20_0000_0000;
    const CAP: u32 = 8;
    fn run<M: Mmio + Copy>(m: M, base: DeviceAddr) -> Vec<[u8; 16]> {
        let blocks = NotificBlocks::new();
        let mut block = blocks.take(base).unwrap();
        let mut e = NotificEngine::init(m, &mut block, EngineConfig::tpb(BpMode::All)).unwrap();
        let buf = DmaBuf::new(CAP as usize * 16, 4096).unwrap();
        let mut r = NqRing::host(buf, e.queue(3).unwrap(), NqConfig::phase(CAP * 16)).unwrap();
        let mut out = [NqEntry::default(); 4];
        let mut got = Vec::new();
        for seq in 0..20u32 {
            let mut ent = [seq as u8; 16];
            ent[PHASE_BYTE] = 0x11
                | if (seq / CAP).is_multiple_of(2) {
                    PHASE_MASK
                } else {
                    0
                };
            r.memory().write((seq % CAP) as usize * 16, &ent).unwrap();
            if seq % 3 != 2 {
                continue; // three entries a drain
            }
            // Until an idle poll (a drain stops at the ring's wrap).
            loop {
                let n = r.drain(&mut out).unwrap();
                if n == 0 {
                    break;
                }
                got.extend(out[..n].iter().map(|x| *x.bytes()));
            }
        }
        got
    }
    let direct = traced();
    let want = run(&direct, BASE);
    let inner = traced();
    let mut t = RegionTable::<2>::new();
    t.insert(
        CsrRegion::new(
            DeviceAddr(CSR),
            DeviceAddr(CSR + NOTIFIC_BLOCK_BYTES),
            BASE,
            0,
        )
        .unwrap(),
    )
    .unwrap();
    let csr = Csr::new(&inner, t);
    let w = csr.window(DeviceAddr(CSR), NOTIFIC_BLOCK_BYTES).unwrap();
    let got = run(&w, DeviceAddr(CSR));
    assert_eq!((want.len(), got.len()), (18, 18));
    assert_eq!(got, want);
    assert!(!direct.ops().is_empty());
    assert_eq!(inner.ops(), direct.ops());
}

/// [0x1000, 0x1100) → 0x0, [0x1100, 0x1200) → 0x8000.
fn two_windows() -> Csr<Rec, 8> {
    let mut t = RegionTable::new();
    for (s, d) in [(0x1100, 0x8000), (0x1000, 0)] {
        let r = CsrRegion::new(DeviceAddr(s), DeviceAddr(s + 0x100), DeviceAddr(d), 0);
        t.insert(r.unwrap()).unwrap();
    }
    Csr::new(Rec::default(), t)
}

/// A window refuses every address outside it, a foreign one (another
/// registered region's, far below or above) included, and touches nothing.
#[test]
fn a_window_refuses_every_address_outside_it_and_touches_nothing() {
    let c = two_windows();
    let w = c.window(DeviceAddr(0x1120), 16).unwrap();
    for p in [
        0x111C,       // the dword before the window (same region)
        0x1130,       // the dword after it (same region)
        0x112D,       // in the last dword: end - 3
        0x1122,       // misaligned inside
        0x1000,       // another registered region
        0x8020,       // the inner address of the window's first dword
        0x0,          // far below (the subtract wraps)
        u64::MAX - 3, // far above
    ] {
        assert_eq!(
            w.read32(DeviceAddr(p)),
            Err(Error::out_of_window(p)),
            "{p:#x}"
        );
        assert_eq!(
            w.write32(DeviceAddr(p), 1),
            Err(Error::out_of_window(p)),
            "{p:#x}"
        );
    }
    // A burst leaving the window is refused whole, named by its last dword;
    // an empty one checks its address alone.
    assert_eq!(
        w.write_burst(DeviceAddr(0x1128), &[1, 2, 3]),
        Err(Error::out_of_window(0x1130))
    );
    assert_eq!(
        w.write_burst(DeviceAddr(0x1130), &[]),
        Err(Error::out_of_window(0x1130))
    );
    assert_eq!(w.write_burst(DeviceAddr(0x112C), &[]), Ok(()));
    assert!(c.inner().log.borrow().is_empty());
}

#[test]
fn resolving_refuses_what_the_table_refuses() {
    let c = two_windows();
    // The whole region is one window; a dword more leaves it (the error
    // names the last dword, the first the region refuses).
    assert!(c.window(DeviceAddr(0x1000), 0x100).is_ok());
    assert_eq!(
        c.window(DeviceAddr(0x1004), 0x100).map(|_| ()),
        Err(Error::out_of_window(0x1100))
    );
    // Not a region's address; the region's last bytes.
    assert_eq!(
        c.window(DeviceAddr(0x1200), 4).map(|_| ()),
        Err(Error::no_region(0x1200))
    );
    assert_eq!(
        c.window(DeviceAddr(0x10FD), 4).map(|_| ()),
        Err(Error::out_of_window(0x10FD))
    );
    for bytes in [0, 2, 6] {
        assert!(
            matches!(
                c.window(DeviceAddr(0x1000), bytes),
                Err(Error::InvalidArgument(_))
            ),
            "{bytes}"
        );
    }
    // A window whose translation is not dword aligned (device_addr 2) ...
    let mut t = RegionTable::<2>::new();
    t.insert(CsrRegion::new(DeviceAddr(0x2000), DeviceAddr(0x2100), DeviceAddr(2), 0).unwrap())
        .unwrap();
    let odd = Csr::new(Rec::default(), t);
    assert_eq!(
        odd.window(DeviceAddr(0x2000), 4).map(|_| ()),
        Err(Error::out_of_window(0x2000))
    );
    // ... but from an address whose translation is aligned it resolves.
    let w = odd.window(DeviceAddr(0x2002), 8).unwrap();
    w.write32(DeviceAddr(0x2006), 9).unwrap();
    assert_eq!(*odd.inner().log.borrow(), vec![("w", 0x8, 1)]);
}
