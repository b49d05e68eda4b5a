//! A base whose register block does not fit below 2^64 is refused with
//! `InvalidArgument` before any access: its registers would sit at wrapped
//! low addresses, and an init that wrote some of them before failing would
//! leave a half-done bring-up. A base that just fits (the block's last dword
//! at `u64::MAX - 3`) works, and its accesses land at the top of the space.
//!
//! The extents are the register tables' last dwords: notific
//! `nq[9].nq_tail_ptr` at `0x110 + 9 * 40` [004 §3]; MSI-X `vec[7].vector_ctrl`
//! at `2060 + 16 * 7` [004 §4]; errtrig unit 255 (`g = 3`, `sub = 63`)
//! `int_log_msk_grp` at `(3 << 12) + (63 << 6) + 56` [004 §4]. The loaders'
//! spans: the Q7 images of every core (the last core's DRAM ends it)
//! [FACTS §13.3]; the HW-decode CAM and PROFILE images [hw-decode §2]; the
//! SUNDA swap table's three dwords `+0x83C..+0x848` [004 §5].

use std::cell::RefCell;

use khal_arch_cayman::Cayman;
use khal_arch_mariana::Mariana;
use khal_arch_sunda::Sunda;
use khal_core::engine::{
    hw_decode_table_init, sp_init_raw, topsp_doorbell, HwDecodeImages, SpHandle,
};
use khal_core::family::Doorbell;
use khal_core::family::{NxLocal, Q7Params};
use khal_core::intc::{EnsNq, ErrtrigLine, Intc};
use khal_core::notific::{BpMode, EngineConfig, Flavour, NotificBlocks, NotificEngine};
use khal_core::q7::{self, Q7SwapTable, Q7Ucode};
use khal_core::Engine;
use khal_core::{DeviceAddr, Error, Mmio, Result};

/// Every access, in order: `(write?, address)`. Reads answer 0, writes land
/// anywhere: the backend refuses nothing, so only the driver's check can.
#[derive(Default)]
struct Rec(RefCell<Vec<(bool, u64)>>);

impl Mmio for Rec {
    fn read32(&self, addr: DeviceAddr) -> Result<u32> {
        self.0.borrow_mut().push((false, addr.get()));
        Ok(0)
    }
    fn write32(&self, addr: DeviceAddr, _: u32) -> Result<()> {
        self.0.borrow_mut().push((true, addr.get()));
        Ok(())
    }
}

impl Rec {
    fn accesses(&self) -> usize {
        self.0.borrow().len()
    }
}

/// The bases the brief of the check names, and the one just below the
/// lowest refused one for a block of `extent` bytes.
fn wrapping_bases(extent: u64) -> [DeviceAddr; 3] {
    [
        DeviceAddr(u64::MAX - 7),
        DeviceAddr(u64::MAX - 0xF),
        DeviceAddr(u64::MAX - extent + 2),
    ]
}

/// The base whose block's last dword is `u64::MAX - 3`.
fn just_fits(extent: u64) -> DeviceAddr {
    DeviceAddr(u64::MAX - extent + 1)
}

const NOTIFIC_EXTENT: u64 = 0x110 + 9 * 40 + 4;
const MSIX_EXTENT: u64 = 2060 + 16 * 7 + 4;
const ERRTRIG_EXTENT: u64 = (3 << 12) + (63 << 6) + 56 + 4;

fn refused<T>(r: Result<T>) -> bool {
    matches!(r, Err(Error::InvalidArgument(_)))
}

#[test]
fn notific_init_refuses_a_wrapping_base_before_any_write() {
    for base in wrapping_bases(NOTIFIC_EXTENT) {
        // The typed path: no block at such a base can be taken.
        let blocks = NotificBlocks::new();
        assert!(refused(blocks.take(base)), "{base:x?}");
        // The raw path, a number from the C handle: refused before a write
        // (the failure is sp_init's logged notific error, as in C).
        let m = Rec::default();
        let sp = SpHandle {
            sp_mem: Some(DeviceAddr(0x4000)),
            sp_regs: Some(DeviceAddr(0x5000)),
            ens_regs: Some(base),
            inst_debug_level: 0,
        };
        let out = sp_init_raw::<Cayman, _>(&m, Some(&sp), true, 0, false).unwrap();
        assert!(refused(out.notific_error.map_or(Ok(()), Err)), "{base:x?}");
        assert!(out.notific.is_none());
        assert_eq!(m.accesses(), 0, "{base:x?}");
    }
}

#[test]
fn notific_init_on_a_base_that_just_fits() {
    let base = just_fits(NOTIFIC_EXTENT);
    let m = Rec::default();
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(base).unwrap();
    let mut e = NotificEngine::init(&m, &mut block, EngineConfig::tpb(BpMode::All)).unwrap();
    assert!(m.accesses() > 0);
    assert!(m.0.borrow().iter().all(|&(_, a)| a >= base.get()));
    // The highest register of the block: NQ 9's tail pointer, at the top.
    let q = e.queue(9).unwrap();
    let mem = khal_std::DmaBuf::new(256, 64).unwrap();
    let ring =
        khal_core::notific::NqRing::host(mem, q, khal_core::notific::NqConfig::tail(256)).unwrap();
    let _ = ring.tail_offset();
    assert_eq!(m.0.borrow().last(), Some(&(false, u64::MAX - 3)));
}

#[test]
fn ens_nq_refuses_a_wrapping_base() {
    for base in wrapping_bases(NOTIFIC_EXTENT) {
        for flavour in [Flavour::TenQueue, Flavour::SingleQueue] {
            assert!(refused(EnsNq::new(base, flavour, 0)), "{base:x?}");
        }
    }
    let base = just_fits(NOTIFIC_EXTENT);
    assert!(EnsNq::new(base, Flavour::TenQueue, 9).is_ok());
}

#[test]
fn msix_handle_refuses_a_wrapping_base() {
    for base in wrapping_bases(MSIX_EXTENT) {
        assert!(refused(Intc::<Mariana>::new(base)), "{base:x?}");
    }
    let base = just_fits(MSIX_EXTENT);
    let m = Rec::default();
    let h = Intc::<Mariana>::new(base).unwrap();
    h.mask_vector(&m, 7).unwrap();
    // Set-mask, then vector 7's control word: the block's last dword.
    assert_eq!(
        *m.0.borrow(),
        vec![(true, base.get() + 16), (true, u64::MAX - 3)]
    );
}

#[test]
fn errtrig_base_refuses_a_wrapping_base() {
    let msix = DeviceAddr(0x1000);
    let m = Rec::default();
    for base in wrapping_bases(ERRTRIG_EXTENT) {
        let mut h = Intc::<Mariana>::new(msix).unwrap();
        assert!(refused(h.set_errtrig_base(5, base)));
        // Nothing recorded: the block still has no base to address from.
        let line = ErrtrigLine::new(5, 0, 0, 0).unwrap();
        assert!(refused(h.set_cause(&m, line)));
    }
    assert_eq!(m.accesses(), 0);
    let base = just_fits(ERRTRIG_EXTENT);
    let mut h = Intc::<Mariana>::new(msix).unwrap();
    h.set_errtrig_base(2, base).unwrap();
    let line = ErrtrigLine::new(2, 3, 63, 0).unwrap();
    h.set_cause(&m, line).unwrap();
    // Unit (3, 63) at `(3 << 12) + (63 << 6)`, `int_cause_set_grp` at +8.
    assert_eq!(
        *m.0.borrow(),
        vec![(true, base.get() + (3 << 12) + (63 << 6) + 8)]
    );
}

#[test]
fn q7_loader_refuses_an_image_base_before_any_core() {
    let ucode = Q7Ucode {
        iram: &[0xAB; 16],
        dram: &[0xCD; 16],
    };
    let p = Cayman::q7_params(Cayman::q7_owner(0).unwrap()).unwrap();
    let extent = p.dram(p.num_q7 - 1).get() + p.dram_size;
    for base in wrapping_bases(extent) {
        let m = Rec::default();
        assert!(refused(q7::q7_ucode_eng_init::<Cayman, _>(
            &m, base, ucode, 0
        )));
        assert_eq!(m.accesses(), 0, "{base:x?}");
    }
    let base = just_fits(extent);
    let m = Rec::default();
    q7::q7_ucode_eng_init::<Cayman, _>(&m, base, ucode, 0).unwrap();
    assert!(m.0.borrow().iter().all(|&(_, a)| a >= base.get()));
    // The last core's DRAM image ends the span (its IRAM is written after it).
    assert_eq!(
        m.0.borrow().iter().map(|&(_, a)| a).max(),
        Some(u64::MAX - 3)
    );
}

#[test]
fn hw_decode_tables_refuse_a_memory_handle_before_any_write() {
    let images = HwDecodeImages {
        cam: &[1; 64],
        profile: &[2; 64],
    };
    for mem in [DeviceAddr(u64::MAX - 7), DeviceAddr(u64::MAX - 0xF)] {
        let m = Rec::default();
        assert!(refused(hw_decode_table_init::<Cayman, _>(
            &m,
            mem,
            Engine::Pool,
            images,
            0
        )));
        assert_eq!(m.accesses(), 0, "{mem:x?}");
    }
    // Room for the window's offset but not for the tables above it.
    let p = <Cayman as khal_core::family::HwDecode>::hw_decode_table_params(Engine::Pool).unwrap();
    let mem = DeviceAddr(u64::MAX - p.table_base.get() - 0xFFF);
    let m = Rec::default();
    let r = hw_decode_table_init::<Cayman, _>(&m, mem, Engine::Pool, images, 0);
    assert!(refused(r), "{r:?}");
    assert_eq!(m.accesses(), 0);
}

#[test]
fn swap_table_refuses_a_window_before_its_first_dword() {
    // SUNDA's window is xt_local(mem, 2, 1) = mem + 0x296_0000 [FACTS §13.1].
    let mem_of = |window: DeviceAddr| DeviceAddr(window.get() - 0x296_0000);
    for window in wrapping_bases(0x848) {
        let m = Rec::default();
        assert!(refused(Sunda::q7_swap_table(&m, mem_of(window), 1, 2)));
        assert_eq!(m.accesses(), 0, "{window:x?}");
    }
    let window = just_fits(0x848);
    let m = Rec::default();
    Sunda::q7_swap_table(&m, mem_of(window), 1, 2).unwrap();
    assert_eq!(m.0.borrow().last(), Some(&(true, u64::MAX - 3)));
    assert_eq!(m.accesses(), 3);
}

#[test]
fn xt_windows_and_doorbells_refuse_a_memory_handle_past_the_top() {
    for mem in [DeviceAddr(u64::MAX - 7), DeviceAddr(u64::MAX - 0xF)] {
        let m = Rec::default();
        assert!(refused(topsp_doorbell::<Cayman, _>(
            &m,
            mem,
            Doorbell::InitSignal,
            0
        )));
        assert_eq!(m.accesses(), 0);
    }
    // The window itself fits, the doorbell above it does not.
    let low = DeviceAddr(0x100_0000);
    let rel = topsp_doorbell::<Cayman, _>(&Rec::default(), low, Doorbell::InitSignal, 0)
        .unwrap()
        .get()
        - low.get();
    let mem = DeviceAddr(u64::MAX - rel + 1);
    let window = Cayman::xt_local_reg_offset(4, 0).unwrap().get();
    assert!(mem.get().checked_add(window).is_some());
    let m = Rec::default();
    assert!(refused(topsp_doorbell::<Cayman, _>(
        &m,
        mem,
        Doorbell::InitSignal,
        0
    )));
    assert_eq!(m.accesses(), 0);
}
