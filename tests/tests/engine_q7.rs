//! The Q7 swap table and ucode loader [004 §5],
//! [q7 §4-§5], [FACTS §3.7, §13.3]: golden traces, the per-arch policy
//! split, and every invalid argument with nothing written.

use std::sync::Mutex;

use khal::family::{NxLocal, Q7Owner, Q7Params};
use khal::q7::{self, Q7SwapTable, Q7Ucode};
use khal::{Cayman, Mariana, Sunda};
use khal::{DeviceAddr, Error, Mmio, Result};
use khal_std::Op::Write;
use khal_std::{HeapMmio, Trace};

fn traced() -> Trace<HeapMmio> {
    Trace::new(HeapMmio::new(DeviceAddr(0), 0x10_0000))
}

#[test]
fn sunda_swap_table_three_dwords_at_the_xt_local_window() {
    // The POOL XT/NX window xt_local(mem, 2, 1) = mem + 0x296_0000 [FACTS §13.1].
    let mem = DeviceAddr(0x100_0000);
    let window = mem.add(0x296_0000);
    let m = Trace::new(HeapMmio::new(window, 0x1000)).with_block(
        window,
        0x1000,
        Sunda::NX_LOCAL_BLOCK.unwrap(),
    );
    Sunda::q7_swap_table(&m, mem, 0x1122_3344_5566_7788, 0x99).unwrap();
    assert_eq!(
        m.ops(),
        vec![
            (Write, 0x83C, 0x5566_7788),
            (Write, 0x840, 0x1122_3344),
            (Write, 0x844, 0x99),
        ]
    );
    let names: Vec<_> = m
        .accesses()
        .iter()
        .map(|a| a.reg.map(|r| r.to_string()).unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "tpb_nx_local.nx_rsvd_space0",
            "tpb_nx_local.nx_rsvd_space1",
            "tpb_nx_local.nx_rsvd_space2"
        ]
    );
}

#[test]
fn swap_table_policy_split() {
    // SUNDA through the arch: the POOL XT/NX window xt_local(mem, 2, 1) =
    // mem + 0x296_0000 [FACTS §13.1].
    let mem = DeviceAddr(0x100_0000);
    let m = Trace::new(HeapMmio::new(DeviceAddr(0x100_0000), 0x300_0000));
    Sunda::q7_swap_table(&m, mem, 0x1122_3344_5566_7788, 2).unwrap();
    let w = 0x100_0000 + 0x296_0000;
    assert_eq!(
        m.ops(),
        vec![
            (Write, w + 0x83C, 0x5566_7788),
            (Write, w + 0x840, 0x1122_3344),
            (Write, w + 0x844, 2),
        ]
    );
    let m = traced();
    assert!(matches!(
        Sunda::q7_swap_table_register_offsets(),
        Err(Error::NotTraced(_))
    ));
    assert!(matches!(
        Sunda::q7_swap_file_io_table(),
        Err(Error::NotTraced(_))
    ));
    // CAYMAN: a successful no-op that touches nothing, zeros from the offset
    // getter [004 §5 QUIRK].
    assert_eq!(Cayman::q7_swap_table(&m, DeviceAddr(0), 1, 2), Ok(()));
    assert_eq!(Cayman::q7_swap_table_register_offsets(), Ok([0, 0, 0]));
    assert_eq!(Cayman::q7_swap_file_io_table(), Ok(()));
    assert!(m.ops().is_empty());
    // The swap table's registers are traced only for SUNDA.
    assert!(matches!(
        Cayman::NX_LOCAL_REGS.nx_rsvd_space,
        Err(Error::NotTraced(_))
    ));
    assert!(m.ops().is_empty());
}

/// Records write runs (start, words) without a backing store: the loader
/// writes whole per-core apertures (up to 6 MiB on CAYMAN).
#[derive(Default)]
struct Runs(Mutex<Vec<(u64, Vec<u32>)>>);

impl Mmio for Runs {
    fn read32(&self, _: DeviceAddr) -> Result<u32> {
        Err(Error::InvalidArgument("the q7 loader never reads"))
    }
    fn write32(&self, addr: DeviceAddr, value: u32) -> Result<()> {
        let mut runs = self.0.lock().unwrap();
        match runs.last_mut() {
            Some((start, words)) if *start + 4 * words.len() as u64 == addr.get() => {
                words.push(value)
            }
            _ => runs.push((addr.get(), vec![value])),
        }
        Ok(())
    }
}

impl Runs {
    fn take(&self) -> Vec<(u64, Vec<u32>)> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

/// The runs the loader must write: per core k, the DRAM image padded to
/// dram_size at image_base + dram(k), then the IRAM image padded to iram_size
/// at image_base + iram(k) (§13.10 #4: DRAM first).
fn expected_runs<A: Q7Params>(
    owner: Q7Owner,
    image_base: u64,
    iram: &[u32],
    dram: &[u32],
) -> Vec<(u64, Vec<u32>)> {
    let p = A::q7_params(owner).unwrap();
    let padded = |img: &[u32], bytes: u64| {
        let mut v = img.to_vec();
        v.resize((bytes / 4) as usize, 0);
        v
    };
    (0..p.num_q7)
        .flat_map(|k| {
            [
                (image_base + p.dram(k).get(), padded(dram, p.dram_size)),
                (image_base + p.iram(k).get(), padded(iram, p.iram_size)),
            ]
        })
        .collect()
}

const IRAM: [u8; 6] = [1, 2, 3, 4, 5, 6];
const DRAM: [u8; 3] = [7, 8, 9];
const UCODE: Q7Ucode<'static> = Q7Ucode {
    iram: &IRAM,
    dram: &DRAM,
};

#[test]
fn q7_loader_golden_on_every_arch_and_owner() {
    let base = 0x20_0000_0000u64;
    let iram_words = [0x0403_0201, 0x0000_0605];
    let dram_words = [0x0009_0807];
    fn run<A: Q7Params>(owner_idx: u32, owner: Q7Owner, base: u64, i: &[u32], d: &[u32]) {
        let m = Runs::default();
        q7::q7_ucode_eng_init::<A, _>(&m, DeviceAddr(base), UCODE, owner_idx).unwrap();
        let got = m.take();
        let want = expected_runs::<A>(owner, base, i, d);
        assert_eq!(got.len(), want.len());
        assert_eq!(got, want);
    }
    run::<Sunda>(0, Q7Owner::Pooling, base, &iram_words, &dram_words);
    run::<Cayman>(0, Q7Owner::Pooling, base, &iram_words, &dram_words);
    run::<Cayman>(1, Q7Owner::ComputeCluster, base, &iram_words, &dram_words);
    run::<Mariana>(0, Q7Owner::Pooling, base, &iram_words, &dram_words);
    run::<Mariana>(1, Q7Owner::ComputeCluster, base, &iram_words, &dram_words);

    // The literal addresses, CAYMAN owner 0: core 0 DRAM (0x1_0000 words) at
    // +0x318_0000, then its IRAM (0x8000 words) at +0x310_0000; core 1 a
    // stride of 0x10_0000 further [devmap-pool §3].
    let m = Runs::default();
    q7::q7_ucode_eng_init::<Cayman, _>(&m, DeviceAddr(base), UCODE, 0).unwrap();
    let heads: Vec<(u64, usize, u32)> = m
        .take()
        .iter()
        .take(4)
        .map(|(a, w)| (*a, w.len(), w[0]))
        .collect();
    assert_eq!(
        heads,
        vec![
            (base + 0x318_0000, 0x1_0000, 0x0009_0807),
            (base + 0x310_0000, 0x8000, 0x0403_0201),
            (base + 0x328_0000, 0x1_0000, 0x0009_0807),
            (base + 0x320_0000, 0x8000, 0x0403_0201),
        ]
    );
    // SUNDA: 8 cores of 0x2_0000 from 0x298_0000, DRAM = IRAM + 0x1_0000.
    let m = Runs::default();
    q7::q7_ucode_eng_init::<Sunda, _>(&m, DeviceAddr(0), UCODE, 0).unwrap();
    let runs = m.take();
    assert_eq!(runs.len(), 16);
    assert_eq!((runs[0].0, runs[1].0), (0x299_0000, 0x298_0000));
    assert_eq!(
        (runs[14].0, runs[15].0),
        (0x299_0000 + 7 * 0x2_0000, 0x298_0000 + 7 * 0x2_0000)
    );
}

#[test]
fn q7_loader_refusals_are_minus_one_before_any_write() {
    let m = Runs::default();
    // Owners: SUNDA accepts 0 only; CAYMAN/MARIANA 0 and 1 [q7 §4].
    assert_eq!(
        q7::q7_ucode_eng_init::<Sunda, _>(&m, DeviceAddr(0), UCODE, 1),
        Err(Error::Rejected("only pooling supported"))
    );
    for owner in [2, 3, u32::MAX] {
        assert_eq!(
            q7::q7_ucode_eng_init::<Cayman, _>(&m, DeviceAddr(0), UCODE, owner),
            Err(Error::Rejected("Invalid q7 owner"))
        );
    }
    // Too big: one byte over the per-core size; exactly the size passes.
    let over = vec![0u8; 0x2_0001];
    let big_iram = Q7Ucode {
        iram: &over,
        dram: &[],
    };
    let r = q7::q7_ucode_eng_init::<Cayman, _>(&m, DeviceAddr(0), big_iram, 0);
    assert_eq!(r, Err(Error::Rejected("IRAM ucode too big!")));
    assert_eq!(r.map_err(|e| e.c_code()), Err(Some(-1)));
    let over = vec![0u8; 0x1_0001];
    let big_dram = Q7Ucode {
        iram: &[],
        dram: &over,
    };
    assert_eq!(
        q7::q7_ucode_eng_init::<Sunda, _>(&m, DeviceAddr(0), big_dram, 0),
        Err(Error::Rejected("DRAM ucode too big!"))
    );
    assert!(m.take().is_empty());
    let exact = vec![0xAAu8; 0x1_0000];
    let full = Q7Ucode {
        iram: &exact,
        dram: &exact,
    };
    q7::q7_ucode_eng_init::<Sunda, _>(&m, DeviceAddr(0), full, 0).unwrap();
    assert_eq!(m.take().len(), 16);
}
