//! The CSR region layer [000 §1] over real khal-std backends: bounds at
//! `start`, `end - 4`, `end - 3`; straddling batches rejected whole; the -2
//! codes; and a property test that no access outside `[start, end - 4]` of a
//! registered window ever succeeds.

use std::cell::RefCell;
use std::collections::BTreeMap;

use khal_core::csr::{Csr, CsrRegion, RegionTable};
use khal_core::{DeviceAddr, Error, Mmio, Result};
use khal_std::Op;
use khal_std::{HeapMmio, Trace};
use proptest::prelude::*;

/// A BAR of 0x2000 bytes at inner address 0, behind two adjacent windows of
/// the TPB-0 band: `[0x20_0000_0000, +0x1000) → 0x0`, `[+0x1000, +0x2000) → 0x1000`.
const TPB0: u64 = 0x20_0000_0000;

fn bar_csr() -> Csr<Trace<HeapMmio>, 4> {
    let mut t = RegionTable::new();
    t.insert(
        CsrRegion::new(
            DeviceAddr(TPB0),
            DeviceAddr(TPB0 + 0x1000),
            DeviceAddr(0),
            0,
        )
        .unwrap(),
    )
    .unwrap();
    t.insert(
        CsrRegion::new(
            DeviceAddr(TPB0 + 0x1000),
            DeviceAddr(TPB0 + 0x2000),
            DeviceAddr(0x1000),
            0,
        )
        .unwrap(),
    )
    .unwrap();
    Csr::new(Trace::new(HeapMmio::new(DeviceAddr(0), 0x2000)), t)
}

#[test]
fn bounds_exactly_at_start_end_minus_4_and_end_minus_3() {
    let c = bar_csr();
    c.write32(DeviceAddr(TPB0), 0xA).unwrap();
    c.write32(DeviceAddr(TPB0 + 0xFFC), 0xB).unwrap();
    assert_eq!(
        c.write32(DeviceAddr(TPB0 + 0xFFD), 0xC),
        Err(Error::out_of_window(TPB0 + 0xFFD))
    );
    assert_eq!(
        c.read32(DeviceAddr(TPB0 - 4)),
        Err(Error::no_region(TPB0 - 4))
    );
    assert_eq!(
        c.read32(DeviceAddr(TPB0 + 0x2000)),
        Err(Error::no_region(TPB0 + 0x2000))
    );
    assert_eq!(c.read32(DeviceAddr(TPB0 + 0xFFC)), Ok(0xB));
    assert_eq!(
        c.inner().ops(),
        vec![
            (Op::Write, 0x0, 0xA),
            (Op::Write, 0xFFC, 0xB),
            (Op::Read, 0xFFC, 0xB)
        ]
    );
}

/// A window whose end is not dword aligned, `[0x1000, 0x10FF)`: the last valid
/// dword starts at `end - 4 = 0x10FB`, so the aligned `0x10F8` is allowed and
/// the aligned `0x10FC` refused by the bound itself, not by the alignment
/// check [000 §1 GOTCHA]. (A bound of `end - 3` would admit `0x10FC`.)
#[test]
fn unaligned_window_end_allows_0x10f8_and_refuses_0x10fc() {
    let mut t = RegionTable::<4>::new();
    t.insert(CsrRegion::identity(DeviceAddr(0x1000), DeviceAddr(0x10FF), 0).unwrap())
        .unwrap();
    let c = Csr::new(Trace::new(HeapMmio::new(DeviceAddr(0), 0x2000)), t);
    c.write32(DeviceAddr(0x10F8), 0x5A).unwrap();
    assert_eq!(c.read32(DeviceAddr(0x10F8)), Ok(0x5A));
    let refused = Err(Error::out_of_window(0x10FC));
    assert_eq!(c.write32(DeviceAddr(0x10FC), 1), refused);
    assert_eq!(c.read32(DeviceAddr(0x10FC)), refused.map(|()| 0));
    assert_eq!(
        c.csr_write_array(&[DeviceAddr(0x10F8), DeviceAddr(0x10FC)], &[1, 2]),
        refused
    );
    assert_eq!(
        c.write_burst(DeviceAddr(0x10F8), &[1, 2]),
        Err(Error::out_of_window(0x10FC))
    );
    assert_eq!(
        c.inner().ops(),
        vec![(Op::Write, 0x10F8, 0x5A), (Op::Read, 0x10F8, 0x5A)]
    );
}

/// A batch with one misaligned pointer is refused whole before any access
/// (khal checks alignment up front so the batch stays all-or-nothing).
#[test]
fn a_misaligned_pointer_refuses_the_whole_batch() {
    let c = bar_csr();
    let ptrs = [DeviceAddr(TPB0 + 0x10), DeviceAddr(TPB0 + 0x16)];
    assert_eq!(
        c.csr_write_array(&ptrs, &[1, 2]),
        Err(Error::out_of_window(TPB0 + 0x16))
    );
    assert_eq!(
        c.write32(DeviceAddr(TPB0 + 0x16), 1),
        Err(Error::out_of_window(TPB0 + 0x16))
    );
    assert!(c.inner().ops().is_empty(), "no access recorded");
}

#[test]
fn straddling_batch_is_rejected_whole_nothing_written() {
    let c = bar_csr();
    let ptrs = [
        DeviceAddr(TPB0 + 0xFF8),
        DeviceAddr(TPB0 + 0xFFC),
        DeviceAddr(TPB0 + 0x1000), // next window: registered, but not ptrs[0]'s
    ];
    let err = c.csr_write_array(&ptrs, &[1, 2, 3]).unwrap_err();
    assert_eq!(err, Error::out_of_window(TPB0 + 0x1000));
    assert_eq!(err.c_code(), Some(-2));
    assert!(c.inner().ops().is_empty(), "no access recorded");
    for a in [0xFF8, 0xFFC, 0x1000] {
        assert_eq!(c.inner().inner().read32(DeviceAddr(a)), Ok(0), "{a:#x}");
    }
}

#[test]
fn axi_write_bursts_and_reads_loop() {
    let c = bar_csr();
    c.write_burst(DeviceAddr(TPB0 + 0x1FF0), &[1, 2, 3, 4])
        .unwrap();
    let mut out = [0; 4];
    c.mem_read_buf(DeviceAddr(TPB0 + 0x1FF0), &mut out).unwrap();
    assert_eq!(out, [1, 2, 3, 4]);
    assert_eq!(
        c.write_burst(DeviceAddr(TPB0 + 0x1FF4), &[1, 2, 3, 4]),
        Err(Error::out_of_window(TPB0 + 0x2000))
    );
    assert_eq!(c.inner().ops().len(), 8);
}

/// The table's bookkeeping, each region's device id (what
/// `csr_deregister_device` removes by), and a table registered after
/// `csr_deregister` [000 §1]. (Mutants of `len`, `is_empty`, `capacity`,
/// `device_id`, `Csr::register` and `Csr::regions` survived before this test.)
#[test]
fn table_bookkeeping_device_ids_and_register_after_deregister() {
    let mut t = RegionTable::<4>::new();
    assert!(t.as_slice().is_empty());
    let a = CsrRegion::new(DeviceAddr(0x1000), DeviceAddr(0x2000), DeviceAddr(0), 7).unwrap();
    assert_eq!(a.device_id(), 7);
    t.insert(a).unwrap();
    t.insert(
        CsrRegion::new(
            DeviceAddr(0x3000),
            DeviceAddr(0x4000),
            DeviceAddr(0x1000),
            9,
        )
        .unwrap(),
    )
    .unwrap();
    assert!(!t.as_slice().is_empty());
    assert_eq!(t.as_slice().len(), 2);
    assert_eq!(t.remove_device(7), 1);
    assert_eq!(t.as_slice().len(), 1);

    let mut c = unregistered(Trace::new(HeapMmio::new(DeviceAddr(0), 0x2000)));
    assert_eq!(c.write32(DeviceAddr(0x3004), 5), Err(Error::NoRegionTable));
    assert!(c.regions().is_none());
    c.register(t);
    assert_eq!(c.regions().map(|t| t.as_slice().len()), Some(1));
    c.write32(DeviceAddr(0x3004), 5).unwrap();
    assert_eq!(
        c.write32(DeviceAddr(0x1004), 5),
        Err(Error::no_region(0x1004))
    );
    assert_eq!(c.inner().ops(), vec![(Op::Write, 0x1004, 5)]);
    assert_eq!(c.deregister().map(|t| t.as_slice().len()), Some(1));
    assert_eq!(c.read32(DeviceAddr(0x3004)), Err(Error::NoRegionTable));
}

/// A `Csr` with no table: registered with an empty one, then deregistered.
fn unregistered<M, const N: usize>(inner: M) -> Csr<M, N> {
    let mut c = Csr::with_empty_table(inner);
    assert!(c.deregister().is_some());
    c
}

#[test]
fn no_table_is_minus_2() {
    let c: Csr<HeapMmio, 4> = unregistered(HeapMmio::new(DeviceAddr(0), 0x100));
    assert_eq!(c.read32(DeviceAddr(0)), Err(Error::NoRegionTable));
    assert_eq!(Error::NoRegionTable.c_code(), Some(-2));
    let mut out = [0; 1];
    assert_eq!(
        c.csr_read_array(&[DeviceAddr(0)], &mut out),
        Err(Error::NoRegionTable)
    );
}

/// Up to 12 disjoint windows in `[0, 0x10000)`, identity-mapped onto a heap
/// BAR of the same size. Starts and ends are arbitrary bytes (not only dwords).
fn windows() -> impl Strategy<Value = Vec<(u64, u64)>> {
    prop::collection::vec((0u64..0x10000, 4u64..0x400), 0..12).prop_map(|cands| {
        let mut taken: Vec<(u64, u64)> = Vec::new();
        for (s, len) in cands {
            let e = (s + len).min(0x10000);
            if e - s >= 4 && taken.iter().all(|&(ts, te)| e <= ts || s >= te) {
                taken.push((s, e));
            }
        }
        taken
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn no_access_outside_start_to_end_minus_4_succeeds(
        ws in windows(),
        accesses in prop::collection::vec(0u64..0x10010, 1..64),
    ) {
        // Identity windows in 64 KiB.
        let mut t = RegionTable::<16>::new();
        for &(s, e) in &ws {
            t.insert(CsrRegion::identity(DeviceAddr(s), DeviceAddr(e), 0).unwrap()).unwrap();
        }
        let c = Csr::new(Trace::new(HeapMmio::new(DeviceAddr(0), 0x10000)), t);
        for &a in &accesses {
            let inside = ws.iter().any(|&(s, e)| s <= a && a <= e - 4);
            let r = c.write32(DeviceAddr(a), 1);
            if r.is_ok() {
                prop_assert!(inside, "write at {:#x} succeeded outside every window", a);
            }
            // Identity mapping: an aligned address inside a window must work,
            // a misaligned one is refused (khal's alignment check, [000 §1]).
            if inside && a % 4 == 0 {
                prop_assert_eq!(r, Ok(()));
            }
            if a % 4 != 0 {
                prop_assert!(r.is_err(), "misaligned write at {:#x} succeeded", a);
                if inside {
                    prop_assert_eq!(r, Err(Error::out_of_window(a)));
                }
            }
            prop_assert_eq!(c.read32(DeviceAddr(a)).is_ok(), r.is_ok());
        }
        // A batch from the first access succeeds only if all of it fits the
        // window of its first address.
        let vals = vec![0u32; accesses.len()];
        let ptrs: Vec<DeviceAddr> = accesses.iter().map(|&a| DeviceAddr(a)).collect();
        let before = c.inner().ops().len();
        if c.csr_write_array(&ptrs, &vals).is_ok() {
            let (s, e) = *ws.iter().find(|&&(s, e)| s <= accesses[0] && accesses[0] < e).unwrap();
            prop_assert!(accesses.iter().all(|&a| s <= a && a <= e - 4 && a % 4 == 0));
        } else {
            // Refused whole: not one dword of the batch was written.
            prop_assert_eq!(c.inner().ops().len(), before);
        }
    }
}

/// One window of the linear model below: `[start, end)` forwarded to `dev`.
#[derive(Clone, Copy, Debug)]
struct ModelWindow {
    start: u64,
    end: u64,
    dev: u64,
    id: u32,
}

/// The C `find_region_for` then the access check, as a plain linear scan
/// [000 §1]: the first window whose `[start, end)` holds `p` (else
/// `NoRegion`), then `start <= p <= end - 4` and an aligned translation
/// (else `OutOfWindow`, khal's alignment interpretation).
fn model_translate(ws: &[ModelWindow], p: u64) -> Result<DeviceAddr, Error> {
    let w = ws
        .iter()
        .find(|w| w.start <= p && p < w.end)
        .ok_or(Error::no_region(p))?;
    if p > w.end - 4 {
        return Err(Error::out_of_window(p));
    }
    let d = w.dev + (p - w.start);
    if !d.is_multiple_of(4) {
        return Err(Error::out_of_window(p));
    }
    Ok(DeviceAddr(d))
}

/// Candidate windows laid out from a base: each one a gap (none: adjacent;
/// a few bytes; up to 4 MiB) after the previous one, a length of 4 bytes to
/// 1 MiB (any byte count, not only dwords), forwarded to its own address or
/// to an arbitrary (also misaligned) `device_addr`, with a device id of 0..3.
/// Base near 0, in the TPB-0 band, or near the top of the address space
/// (windows that would wrap are dropped).
fn layout() -> impl Strategy<Value = Vec<(u64, u64, u64, u32)>> {
    let base = prop_oneof![
        0u64..0x1000,
        0x20_0000_0000u64..0x20_0001_0000,
        (u64::MAX - 0x80_0000)..u64::MAX,
    ];
    let gap = prop_oneof![Just(0u64), 1u64..16, 16u64..0x1000, 0x1000u64..0x40_0000];
    let len = prop_oneof![4u64..16, 16u64..0x1000, 0x1000u64..0x10_0000];
    let dev = prop_oneof![Just(None), (0u64..0x1_0000_0000).prop_map(Some)];
    (base, prop::collection::vec((gap, len, dev, 0u32..3), 0..22)).prop_map(|(base, parts)| {
        let mut out = Vec::new();
        let mut s = base;
        for (gap, len, dev, id) in parts {
            let Some(start) = s.checked_add(gap) else {
                break;
            };
            let Some(end) = start.checked_add(len) else {
                break;
            };
            out.push((start, end, dev.unwrap_or(start), id));
            s = end;
        }
        out
    })
}

/// Addresses around every window's edges (`start - 1 ..= start + 4`,
/// `end - 8 ..= end + 1`), inside it, in the gaps, and anywhere.
fn probes(ws: &[(u64, u64, u64, u32)], extra: &[u64], salt: u64) -> Vec<u64> {
    let mut v: Vec<u64> = extra.to_vec();
    let mut x = salt | 1;
    for &(s, e, _, _) in ws {
        for d in 0..6 {
            v.push(s.wrapping_sub(1).wrapping_add(d));
        }
        for d in 0..10 {
            v.push(e.wrapping_sub(8).wrapping_add(d));
        }
        for _ in 0..4 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v.push(s + x % (e - s));
            v.push(e.wrapping_add(x % 0x2000));
        }
    }
    // Not in address order: the harness's order is its own.
    v.sort_by_key(|&a| a.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17));
    v
}

/// The table of capacity `N` built from `ws` (inserted in `order`'s
/// scrambled order) against the linear model: every insert's result, then
/// `translate` and `csr_read` (result and the inner address read) at every
/// probe, then again after `remove_device`.
fn check_against_model<const N: usize>(
    ws: &[(u64, u64, u64, u32)],
    order: u64,
    addrs: &[u64],
    remove: u32,
) -> Result<(), TestCaseError> {
    let mut idx: Vec<usize> = (0..ws.len()).collect();
    idx.sort_by_key(|&i| (i as u64 ^ order).wrapping_mul(0x2545_F491_4F6C_DD1D));
    let mut t = RegionTable::<N>::new();
    let mut model: Vec<ModelWindow> = Vec::new();
    for i in idx {
        let (start, end, dev, id) = ws[i];
        let Ok(r) = CsrRegion::new(DeviceAddr(start), DeviceAddr(end), DeviceAddr(dev), id) else {
            continue;
        };
        let want = if model.iter().any(|w| start < w.end && w.start < end) {
            Err(Error::InvalidArgument(
                "csr region overlaps a registered region",
            ))
        } else if model.len() == N {
            Err(Error::OutOfMemory)
        } else {
            model.push(ModelWindow {
                start,
                end,
                dev,
                id,
            });
            Ok(())
        };
        prop_assert_eq!(t.insert(r), want, "insert {:#x}..{:#x}", start, end);
    }
    prop_assert_eq!(t.as_slice().len(), model.len());
    let check = |t: &RegionTable<N>, model: &[ModelWindow]| -> Result<(), TestCaseError> {
        let c = Csr::new(Trace::new(Answer), t.clone());
        for &a in addrs {
            let want = model_translate(model, a);
            prop_assert_eq!(t.translate(DeviceAddr(a)), want, "N={} a={:#x}", N, a);
            let before = c.inner().ops().len();
            let got = c.read32(DeviceAddr(a));
            prop_assert_eq!(got, want.map(|d| d.get() as u32));
            let ops = c.inner().ops();
            match want {
                Ok(d) => prop_assert_eq!(&ops[before..], &[(Op::Read, d.get(), d.get() as u32)]),
                Err(_) => prop_assert_eq!(ops.len(), before, "a refused read touched the device"),
            }
        }
        Ok(())
    };
    check(&t, &model)?;
    let removed = t.remove_device(remove);
    let kept: Vec<ModelWindow> = model.iter().copied().filter(|w| w.id != remove).collect();
    prop_assert_eq!(removed, model.len() - kept.as_slice().len());
    check(&t, &kept)
}

/// A backend answering every read with the low word of its address, at any
/// address (the windows of the model test span the whole address space).
struct Answer;

impl Mmio for Answer {
    fn read32(&self, a: DeviceAddr) -> Result<u32> {
        Ok(a.get() as u32)
    }
    fn write32(&self, _: DeviceAddr, _: u32) -> Result<()> {
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// The lookup gives exactly the linear model's answer [000 §1] — same
    /// window, same translation, same error and error address — at
    /// capacities 1 to 8, 12, 16, 17, 32, 33 and 64, full and partly used,
    /// over irregular tables (sizes from 4 bytes to 1 MiB, adjacent windows,
    /// gaps of 1 byte to 4 MiB, misaligned translations, tables at the top of
    /// the address space), more windows than fit (the refused inserts are
    /// checked too), and after `remove_device`.
    #[test]
    fn lookup_matches_a_linear_model(
        ws in layout(),
        order in any::<u64>(),
        extra in prop::collection::vec(any::<u64>(), 0..8),
        remove in 0u32..3,
    ) {
        let addrs = probes(&ws, &extra, order);
        check_against_model::<1>(&ws, order, &addrs, remove)?;
        check_against_model::<3>(&ws, order, &addrs, remove)?;
        check_against_model::<4>(&ws, order, &addrs, remove)?;
        check_against_model::<2>(&ws, order, &addrs, remove)?;
        check_against_model::<5>(&ws, order, &addrs, remove)?;
        check_against_model::<6>(&ws, order, &addrs, remove)?;
        check_against_model::<7>(&ws, order, &addrs, remove)?;
        check_against_model::<8>(&ws, order, &addrs, remove)?;
        check_against_model::<12>(&ws, order, &addrs, remove)?;
        check_against_model::<16>(&ws, order, &addrs, remove)?;
        check_against_model::<17>(&ws, order, &addrs, remove)?;
        check_against_model::<32>(&ws, order, &addrs, remove)?;
        check_against_model::<33>(&ws, order, &addrs, remove)?;
        check_against_model::<64>(&ws, order, &addrs, remove)?;
    }
}

/// A sparse register file recording every access, including bursts as
/// one entry (so a test can see a burst was one call).
#[derive(Default)]
struct Rec {
    mem: RefCell<BTreeMap<u64, u32>>,
    log: RefCell<Vec<(&'static str, u64, u32)>>,
}

impl Mmio for Rec {
    fn read32(&self, a: DeviceAddr) -> Result<u32> {
        let v = self.mem.borrow().get(&a.get()).copied().unwrap_or(0);
        self.log.borrow_mut().push(("r", a.get(), v));
        Ok(v)
    }
    fn write32(&self, a: DeviceAddr, v: u32) -> Result<()> {
        self.mem.borrow_mut().insert(a.get(), v);
        self.log.borrow_mut().push(("w", a.get(), v));
        Ok(())
    }
    fn write_burst(&self, a: DeviceAddr, words: &[u32]) -> Result<()> {
        self.log
            .borrow_mut()
            .push(("burst", a.get(), words.len() as u32));
        for (i, &w) in words.iter().enumerate() {
            self.mem.borrow_mut().insert(a.get() + 4 * i as u64, w);
        }
        Ok(())
    }
}

fn region(s: u64, e: u64, d: u64, id: u32) -> CsrRegion {
    CsrRegion::new(DeviceAddr(s), DeviceAddr(e), DeviceAddr(d), id).unwrap()
}

/// Two adjacent windows: [0x1000, 0x1100) → 0x0, [0x1100, 0x1200) → 0x8000.
fn two_windows() -> Csr<Rec, 8> {
    let mut t = RegionTable::new();
    t.insert(region(0x1100, 0x1200, 0x8000, 1)).unwrap();
    t.insert(region(0x1000, 0x1100, 0x0, 0)).unwrap();
    Csr::new(Rec::default(), t)
}

#[test]
fn region_bounds_start_end4_end3() {
    let c = two_windows();
    c.write32(DeviceAddr(0x1000), 1).unwrap(); // start
    c.write32(DeviceAddr(0x10FC), 2).unwrap(); // end - 4
    assert_eq!(
        c.write32(DeviceAddr(0x10FD), 3), // end - 3: in [start, end) but past end - 4
        Err(Error::out_of_window(0x10FD))
    );
    assert_eq!(
        c.read32(DeviceAddr(0x10FF)),
        Err(Error::out_of_window(0x10FF))
    );
    assert_eq!(*c.inner().log.borrow(), vec![("w", 0x0, 1), ("w", 0xFC, 2)]);
    assert_eq!(c.read32(DeviceAddr(0x10FC)), Ok(2));
    // The second window translates to its own device_addr.
    c.write32(DeviceAddr(0x1104), 9).unwrap();
    assert_eq!(c.inner().mem.borrow().get(&0x8004), Some(&9));
}

#[test]
fn no_table_and_no_region_are_minus_2() {
    let c: Csr<Rec, 4> = unregistered(Rec::default());
    assert_eq!(c.read32(DeviceAddr(0x1000)), Err(Error::NoRegionTable));
    assert_eq!(c.write32(DeviceAddr(0x1000), 1), Err(Error::NoRegionTable));
    assert_eq!(
        c.write_burst(DeviceAddr(0x1000), &[1]),
        Err(Error::NoRegionTable)
    );
    let c = two_windows();
    assert_eq!(c.read32(DeviceAddr(0xFFC)), Err(Error::no_region(0xFFC)));
    assert_eq!(
        c.write32(DeviceAddr(0x1200), 1),
        Err(Error::no_region(0x1200))
    );
    for e in [
        Error::NoRegionTable,
        Error::no_region(0),
        Error::out_of_window(0),
    ] {
        assert_eq!(e.c_code(), Some(-2));
    }
    assert!(c.inner().log.borrow().is_empty());
}

#[test]
fn straddling_batch_is_rejected_whole() {
    let c = two_windows();
    // The last pointer lies in the NEXT window: rejected although that
    // window exists, because the batch is validated against ptrs[0]'s.
    let ptrs = [DeviceAddr(0x10F8), DeviceAddr(0x10FC), DeviceAddr(0x1100)];
    assert_eq!(
        c.csr_write_array(&ptrs, &[1, 2, 3]),
        Err(Error::out_of_window(0x1100))
    );
    let mut out = [0; 3];
    assert_eq!(
        c.csr_read_array(&ptrs, &mut out),
        Err(Error::out_of_window(0x1100))
    );
    assert!(c.inner().log.borrow().is_empty(), "nothing accessed");
    // A batch inside one window goes through, in order.
    c.csr_write_array(&ptrs[..2], &[1, 2]).unwrap();
    c.csr_read_array(&ptrs[..2], &mut out[..2]).unwrap();
    assert_eq!(out[..2], [1, 2]);
    assert_eq!(
        *c.inner().log.borrow(),
        vec![
            ("w", 0xF8, 1),
            ("w", 0xFC, 2),
            ("r", 0xF8, 1),
            ("r", 0xFC, 2)
        ]
    );
    assert_eq!(
        c.csr_write_array(&ptrs[..2], &[1]),
        Err(Error::InvalidArgument(
            "csr_write_array: ptrs and values differ in length"
        ))
    );
}

#[test]
fn invalid_and_overlapping_regions_are_refused() {
    let d = DeviceAddr;
    assert!(CsrRegion::new(d(0x10), d(0x10), d(0), 0).is_err()); // empty
    assert!(CsrRegion::new(d(0x10), d(0x8), d(0), 0).is_err()); // inverted
    assert!(CsrRegion::new(d(0x10), d(0x13), d(0), 0).is_err()); // < 1 dword
    assert!(CsrRegion::new(d(0x10), d(0x20), d(u64::MAX - 4), 0).is_err()); // wraps
    let mut t = RegionTable::<3>::new();
    t.insert(region(0x100, 0x200, 0, 0)).unwrap();
    for (s, e) in [
        (0x100, 0x200),
        (0x80, 0x101),
        (0x1FF, 0x300),
        (0x120, 0x140),
    ] {
        assert_eq!(
            t.insert(region(s, e, 0, 0)),
            Err(Error::InvalidArgument(
                "csr region overlaps a registered region"
            )),
            "{s:#x}..{e:#x}"
        );
    }
    t.insert(region(0x200, 0x300, 0, 1)).unwrap(); // adjacent is fine
    t.insert(region(0x0, 0x100, 0, 1)).unwrap();
    assert_eq!(
        t.insert(region(0x400, 0x500, 0, 0)),
        Err(Error::OutOfMemory)
    );
    let starts: Vec<u64> = t.as_slice().iter().map(|r| r.start().get()).collect();
    assert_eq!(starts, vec![0x0, 0x100, 0x200]);
    assert_eq!(t.remove_device(1), 2);
    assert_eq!(t.as_slice().len(), 1);
}

/// The one-compare fast path answers exactly what the C-shaped slow path
/// (`find`, then `CsrRegion::translate`) answers, for every address around
/// regions of every start / device alignment and size (including windows
/// of 4..=7 bytes whose translation may have no aligned dword at all), in
/// tables of capacity 1 to 16, full and partly used.
#[test]
fn fast_translate_matches_find_then_translate_exhaustively() {
    fn check<const N: usize>(regions: &[(u64, u64, u64)]) {
        let mut t = RegionTable::<N>::new();
        for &(s, e, d) in regions.iter().take(N) {
            t.insert(region(s, e, d, 0)).unwrap();
        }
        let lo = regions
            .iter()
            .map(|r| r.0)
            .min()
            .unwrap_or(0)
            .saturating_sub(8);
        let hi = regions
            .iter()
            .map(|r| r.1)
            .max()
            .unwrap_or(0)
            .saturating_add(8);
        for a in (lo..hi).chain([0, 1, 4, u64::MAX - 3, u64::MAX]) {
            let p = DeviceAddr(a);
            let slow = t
                .find(p)
                .ok_or(Error::no_region(a))
                .and_then(|r| r.translate(p));
            assert_eq!(t.translate(p), slow, "N={N} a={a:#x} {regions:x?}");
        }
    }
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    // Miri runs this test on three targets: a few tables there.
    let tables = if cfg!(miri) { 3 } else { 300 };
    for _ in 0..tables {
        let mut regions = Vec::new();
        let mut s = 0x100 + next(8);
        for _ in 0..9 {
            let len = 4 + next(40);
            let d = next(0x1_0000);
            regions.push((s, s + len, d));
            s += len + next(12);
        }
        check::<1>(&regions);
        check::<3>(&regions);
        check::<4>(&regions);
        check::<8>(&regions);
        check::<16>(&regions);
        check::<8>(&regions[..5]);
        check::<2>(&regions);
        check::<5>(&regions);
        check::<7>(&regions);
        check::<12>(&regions);
        check::<16>(&regions[..3]);
    }
    // A window ending at the top of the address space, and the MAX padding.
    check::<4>(&[(u64::MAX - 0x20, u64::MAX, 0x40)]);
    check::<4>(&[(0, 0x10, u64::MAX - 0x10)]);
    // Windows at the top of the address space, one at address 0.
    let top = [
        (0, 0x10, 0x3),
        (0x1000, 0x1010, 0x0),
        (u64::MAX - 0x61, u64::MAX - 0x40, 0x41),
        (u64::MAX - 0x40, u64::MAX - 0x20, 0x2),
        (u64::MAX - 0x20, u64::MAX, 0x40),
    ];
    fn around<const N: usize>(regions: &[(u64, u64, u64)]) {
        let mut t = RegionTable::<N>::new();
        for &(s, e, d) in regions {
            t.insert(region(s, e, d, 0)).unwrap();
        }
        for &(s, e, _) in regions {
            for a in s.saturating_sub(8)..=e.saturating_add(8) {
                let p = DeviceAddr(a);
                let slow = t
                    .find(p)
                    .ok_or(Error::no_region(a))
                    .and_then(|r| r.translate(p));
                assert_eq!(t.translate(p), slow, "N={N} a={a:#x}");
            }
        }
    }
    around::<8>(&top);
    around::<12>(&top);
    around::<8>(&top[2..]);
}

/// A table is its slots and its length: no index beside them.
#[test]
fn a_table_is_its_slots() {
    use core::mem::size_of;
    let slot = size_of::<CsrRegion>() + 3 * size_of::<u64>();
    // The length, padded to at most one `u64` (targets differ).
    let len = size_of::<u64>();
    assert!(size_of::<RegionTable<4>>() <= 4 * slot + len);
    assert!(size_of::<RegionTable<64>>() <= 64 * slot + len);
}

#[test]
fn remove_device_keeps_order_and_lookups() {
    let mut t = RegionTable::<4>::new();
    t.insert(region(0x300, 0x400, 0x3000, 1)).unwrap();
    t.insert(region(0x100, 0x200, 0x1000, 2)).unwrap();
    t.insert(region(0x200, 0x300, 0x2000, 1)).unwrap();
    t.insert(region(0x0, 0x100, 0x0, 2)).unwrap();
    assert_eq!(t.remove_device(2), 2);
    let starts: Vec<u64> = t.as_slice().iter().map(|r| r.start().get()).collect();
    assert_eq!(starts, vec![0x200, 0x300]);
    assert_eq!(t.translate(DeviceAddr(0x304)), Ok(DeviceAddr(0x3004)));
    assert_eq!(t.translate(DeviceAddr(0x204)), Ok(DeviceAddr(0x2004)));
    assert_eq!(t.translate(DeviceAddr(0x104)), Err(Error::no_region(0x104)));
    // The freed slots are usable again, in sorted place.
    t.insert(region(0x0, 0x100, 0x0, 2)).unwrap();
    assert_eq!(t.translate(DeviceAddr(0xFC)), Ok(DeviceAddr(0xFC)));
    assert_eq!(t.as_slice().len(), 3);
}

#[test]
fn deregister_turns_every_access_into_no_table() {
    let mut c = two_windows();
    assert!(c.deregister().is_some());
    assert_eq!(c.read32(DeviceAddr(0x1000)), Err(Error::NoRegionTable));
}

#[test]
fn region_debug_prints_addresses_in_hex() {
    let r = CsrRegion::new(
        DeviceAddr(0x20_0000_0000),
        DeviceAddr(0x20_0010_0000),
        DeviceAddr(0x1000),
        7,
    )
    .unwrap();
    assert_eq!(
        format!("{r:?}"),
        "CsrRegion { start: 0x2000000000, end: 0x2000100000, device_addr: 0x1000, device_id: 7 }"
    );
}

/// Every error names a CSR address: an inner backend's refusal (a heap
/// window of 0x20 bytes behind a region of 0x100) is named by the CSR
/// address it translates back to, for every form.
#[test]
fn an_inner_refusal_names_the_csr_address() {
    const S: u64 = 0x20_0000_0000;
    let mut t = RegionTable::<2>::new();
    t.insert(region(S, S + 0x100, 0x40, 0)).unwrap();
    let c = Csr::new(HeapMmio::new(DeviceAddr(0x40), 0x20), t);
    c.write32(DeviceAddr(S + 0x1C), 1).unwrap();
    assert_eq!(
        c.read32(DeviceAddr(S + 0x20)),
        Err(Error::out_of_window(S + 0x20))
    );
    assert_eq!(
        c.write32(DeviceAddr(S + 0x24), 1),
        Err(Error::out_of_window(S + 0x24))
    );
    assert_eq!(
        c.csr_write_array(&[DeviceAddr(S + 0x1C), DeviceAddr(S + 0x30)], &[2, 3]),
        Err(Error::out_of_window(S + 0x30))
    );
    let mut out = [0; 2];
    assert_eq!(
        c.csr_read_array(&[DeviceAddr(S + 0x40), DeviceAddr(S)], &mut out),
        Err(Error::out_of_window(S + 0x40))
    );
    // The heap window's burst is the trait's default, dword by dword: the
    // third is refused, named by its CSR address.
    assert_eq!(
        c.write_burst(DeviceAddr(S + 0x18), &[4, 5, 6]),
        Err(Error::out_of_window(S + 0x20))
    );
    assert_eq!(
        c.mem_read_buf(DeviceAddr(S + 0x18), &mut [0; 3]),
        Err(Error::out_of_window(S + 0x20))
    );
    let w = c.window(DeviceAddr(S + 0x10), 0x20).unwrap();
    assert_eq!(
        w.read32(DeviceAddr(S + 0x2C)),
        Err(Error::out_of_window(S + 0x2C))
    );
    assert_eq!(c.read32(DeviceAddr(S + 0x1C)), Ok(5));
}
