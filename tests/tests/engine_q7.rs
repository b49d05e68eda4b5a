//! The Q7 swap table and ucode loader, and the UDMA shims [004 §5],
//! [FACTS §3.7, §9]: golden traces, the per-arch policy split, and every
//! invalid argument with nothing written.

use khal::core::family::{NxLocal, Q7Param};
use khal::core::q7::{self, Q7Layout, Q7SwapTable, Q7Ucode};
use khal::core::udma::{self, M2mRxBuilder, RxDescriptorParams};
use khal::core::{DeviceAddr, Error, Result};
use khal::{Cayman, Sunda};
use khal_std::trace::Op::Write;
use khal_std::{HeapMmio, Trace};

fn traced() -> Trace<HeapMmio> {
    Trace::new(HeapMmio::new(DeviceAddr(0), 0x10_0000))
}

#[test]
fn sunda_swap_table_three_dwords_at_the_xt_local_window() {
    let window = DeviceAddr(0x4_0000);
    let m = Trace::new(HeapMmio::new(DeviceAddr(0), 0x10_0000)).with_block(
        window,
        0x1000,
        Sunda::NX_LOCAL_BLOCK.unwrap(),
    );
    q7::swap_table_at::<Sunda, _>(&m, window, 0x1122_3344_5566_7788, 0x99).unwrap();
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
    let m = traced();
    // SUNDA through the arch: the POOL XT-local window base is NOT TRACED.
    assert!(matches!(
        Sunda::q7_swap_table(&m, 1, 2),
        Err(Error::NotTraced(_))
    ));
    assert!(matches!(
        Sunda::q7_swap_table_register_offsets(),
        Err(Error::NotTraced(_))
    ));
    assert!(matches!(
        Sunda::q7_swap_file_io_table(),
        Err(Error::NotTraced(_))
    ));
    // CAYMAN: a successful no-op, zeros from the offset getter.
    assert_eq!(Cayman::q7_swap_table(&m, 1, 2), Ok(()));
    assert_eq!(Cayman::q7_swap_table_register_offsets(), Ok([0, 0, 0]));
    assert_eq!(Cayman::q7_swap_file_io_table(), Ok(()));
    assert!(m.ops().is_empty());
    // The swap table's registers are traced only for SUNDA.
    assert!(matches!(
        q7::swap_table_at::<Cayman, _>(&m, DeviceAddr(0), 1, 2),
        Err(Error::NotTraced(_))
    ));
    assert!(m.ops().is_empty());
}

fn layout(ncores: u32) -> Q7Layout {
    Q7Layout {
        param: Q7Param {
            iram_base: DeviceAddr(0x1_0000),
            iram_size: 8,
            dram_base: DeviceAddr(0x2_0000),
            dram_size: 4,
            ncores,
        },
        core_stride: 0x1000,
    }
}

#[test]
fn q7_loader_owner_and_not_traced_params() {
    let m = traced();
    let ucode = Q7Ucode {
        iram: &[1, 2, 3],
        dram: &[4],
    };
    // Owner 0 → set 2, owner 1 → set 5; the params are NOT TRACED.
    for owner in [0, 1] {
        assert!(matches!(
            q7::q7_ucode_eng_init::<Cayman, _>(&m, ucode, owner),
            Err(Error::NotTraced(_))
        ));
    }
    for owner in [2, 3, u32::MAX] {
        assert_eq!(
            q7::q7_ucode_eng_init::<Cayman, _>(&m, ucode, owner),
            Err(Error::InvalidArgument("Invalid q7 owner"))
        );
    }
    assert_eq!(q7::q7_param_set(0), Ok(2));
    assert_eq!(q7::q7_param_set(1), Ok(5));
    assert!(m.ops().is_empty());
}

#[test]
fn q7_loader_padded_per_core_writes_with_injected_params() {
    let m = traced();
    let ucode = Q7Ucode {
        iram: &[1, 2, 3, 4, 5, 6],
        dram: &[7, 8, 9],
    };
    q7::q7_ucode_load_with(&m, ucode, &layout(2)).unwrap();
    assert_eq!(
        m.ops(),
        vec![
            (Write, 0x1_0000, 0x0403_0201),
            (Write, 0x1_0004, 0x0000_0605),
            (Write, 0x2_0000, 0x0009_0807),
            (Write, 0x1_1000, 0x0403_0201),
            (Write, 0x1_1004, 0x0000_0605),
            (Write, 0x2_1000, 0x0009_0807),
        ]
    );
    // Exactly the size limits pass.
    m.clear();
    let full = Q7Ucode {
        iram: &[0xAA; 8],
        dram: &[0xBB; 4],
    };
    q7::q7_ucode_load_with(&m, full, &layout(1)).unwrap();
    assert_eq!(m.ops().len(), 3);
}

#[test]
fn q7_loader_too_big_images_are_refused_before_any_write() {
    let m = traced();
    let big_iram = Q7Ucode {
        iram: &[0; 9],
        dram: &[0; 4],
    };
    assert_eq!(
        q7::q7_ucode_load_with(&m, big_iram, &layout(2)),
        Err(Error::InvalidArgument("IRAM ucode too big!"))
    );
    let big_dram = Q7Ucode {
        iram: &[0; 8],
        dram: &[0; 5],
    };
    assert_eq!(
        q7::q7_ucode_load_with(&m, big_dram, &layout(2)),
        Err(Error::InvalidArgument("DRAM ucode too big!"))
    );
    assert!(m.ops().is_empty());
}

#[derive(Default)]
struct Builder(Vec<(u32, u32, u64)>);

impl M2mRxBuilder for Builder {
    type Queue = u32;
    fn build_rx_descriptor(&mut self, q: &mut u32, size: u32, buf: u64) -> Result<()> {
        self.0.push((*q, size, buf));
        Ok(())
    }
}

#[test]
fn udma_build_rx_descriptor_checks_then_forwards() {
    let mut b = Builder::default();
    let r = udma::build_rx_descriptor(&mut b, None);
    assert_eq!(r, Err(Error::InvalidArgument("udma rx params absent")));
    assert_eq!(r.map_err(|e| e.c_code()), Err(Some(-22)));
    let mut p = RxDescriptorParams::<u32> {
        queue: None,
        size: 64,
        buf: 0x9000,
    };
    assert_eq!(
        udma::build_rx_descriptor(&mut b, Some(&mut p)),
        Err(Error::InvalidArgument("udma rx params queue absent"))
    );
    assert!(b.0.is_empty());
    let mut q = 7u32;
    let mut p = RxDescriptorParams {
        queue: Some(&mut q),
        size: 64,
        buf: 0x9000,
    };
    udma::build_rx_descriptor(&mut b, Some(&mut p)).unwrap();
    assert_eq!(b.0, vec![(7, 64, 0x9000)]);
}

#[test]
fn udma_addr_check_hook() {
    assert_eq!(udma::addr_check::<(u64, u64)>(None, &(0x1000, 16)), 0);
    let hook = |&(addr, len): &(u64, u64)| if addr + len > 0x2000 { -14 } else { 0 };
    assert_eq!(udma::addr_check(Some(&hook), &(0x1000, 16)), 0);
    assert_eq!(udma::addr_check(Some(&hook), &(0x1FF8, 16)), -14);
}
