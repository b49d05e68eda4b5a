//! The CSR region layer [000 §1] over real khal-std backends: bounds at
//! `start`, `end - 4`, `end - 3`; straddling batches rejected whole; the -2
//! codes; and a property test that no access outside `[start, end - 4]` of a
//! registered window ever succeeds.

use khal_core::csr::{Csr, CsrRegion, RegionTable};
use khal_core::{DeviceAddr, Error, Mmio};
use khal_std::trace::Op;
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
        Err(Error::OutOfWindow { addr: TPB0 + 0xFFD })
    );
    assert_eq!(
        c.read32(DeviceAddr(TPB0 - 4)),
        Err(Error::NoRegion { addr: TPB0 - 4 })
    );
    assert_eq!(
        c.read32(DeviceAddr(TPB0 + 0x2000)),
        Err(Error::NoRegion {
            addr: TPB0 + 0x2000
        })
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

#[test]
fn straddling_batch_is_rejected_whole_nothing_written() {
    let c = bar_csr();
    let ptrs = [
        DeviceAddr(TPB0 + 0xFF8),
        DeviceAddr(TPB0 + 0xFFC),
        DeviceAddr(TPB0 + 0x1000), // next window: registered, but not ptrs[0]'s
    ];
    let err = c.csr_write_array(&ptrs, &[1, 2, 3]).unwrap_err();
    assert_eq!(
        err,
        Error::OutOfWindow {
            addr: TPB0 + 0x1000
        }
    );
    assert_eq!(err.c_code(), Some(-2));
    assert!(c.inner().ops().is_empty(), "no access recorded");
    for a in [0xFF8, 0xFFC, 0x1000] {
        assert_eq!(c.inner().inner().read32(DeviceAddr(a)), Ok(0), "{a:#x}");
    }
}

#[test]
fn axi_write_bursts_and_reads_loop() {
    let c = bar_csr();
    c.axi_write(DeviceAddr(TPB0 + 0x1FF0), &[1, 2, 3, 4])
        .unwrap();
    let mut out = [0; 4];
    c.mem_read_buf(DeviceAddr(TPB0 + 0x1FF0), &mut out).unwrap();
    assert_eq!(out, [1, 2, 3, 4]);
    assert_eq!(
        c.axi_write(DeviceAddr(TPB0 + 0x1FF4), &[1, 2, 3, 4]),
        Err(Error::OutOfWindow {
            addr: TPB0 + 0x2000
        })
    );
    assert_eq!(c.inner().ops().len(), 8);
}

#[test]
fn no_table_is_minus_2() {
    let c: Csr<HeapMmio, 4> = Csr::unregistered(HeapMmio::new(DeviceAddr(0), 0x100));
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
        let mut t = RegionTable::<16>::new();
        for &(s, e) in &ws {
            t.insert(CsrRegion::identity(DeviceAddr(s), DeviceAddr(e), 0).unwrap()).unwrap();
        }
        let c = Csr::new(HeapMmio::new(DeviceAddr(0), 0x10000), t);
        for &a in &accesses {
            let inside = ws.iter().any(|&(s, e)| s <= a && a <= e - 4);
            let r = c.write32(DeviceAddr(a), 1);
            if r.is_ok() {
                prop_assert!(inside, "write at {:#x} succeeded outside every window", a);
            }
            // Identity mapping: an aligned address inside a window must work.
            if inside && a % 4 == 0 {
                prop_assert_eq!(r, Ok(()));
            }
            prop_assert_eq!(c.read32(DeviceAddr(a)).is_ok(), r.is_ok());
        }
        // A batch from the first access succeeds only if all of it fits the
        // window of its first address.
        let vals = vec![0u32; accesses.len()];
        let ptrs: Vec<DeviceAddr> = accesses.iter().map(|&a| DeviceAddr(a)).collect();
        if c.csr_write_array(&ptrs, &vals).is_ok() {
            let (s, e) = *ws.iter().find(|&&(s, e)| s <= accesses[0] && accesses[0] < e).unwrap();
            prop_assert!(accesses.iter().all(|&a| s <= a && a <= e - 4));
        }
    }
}
