//! The engine-init pieces the real arches' orchestrators never reach (they stop
//! at an earlier untraced step): the step names, the HW-decode and Q7 steps
//! through the arches' own op slots, and the slots' NULL policy [002 §3],
//! [FACTS §12.2, §13.3, §13.5, §13.6]. (A step outside an engine's list:
//! `engine::init`'s unit test and `engine_arch_ops`.)

use std::cell::RefCell;

use khal::engine::slots::{NullPolicy, SubTable, SLOTS};
use khal::engine::{
    hw_decode_table_init, EngInfo, EngineParams, HwDecodeImages, PeParams, PoolingParams, Step,
    StpbOps,
};
use khal::q7::{self, Q7Ucode};
use khal::{Cayman, Engine, Mariana, Sunda};
use khal::{DeviceAddr, Error, Mmio, Result};

/// Every write, in order; reads answer 0.
#[derive(Default)]
struct Writes(RefCell<Vec<(u64, u32)>>);

impl Mmio for Writes {
    fn read32(&self, _: DeviceAddr) -> Result<u32> {
        Ok(0)
    }
    fn write32(&self, addr: DeviceAddr, value: u32) -> Result<()> {
        self.0.borrow_mut().push((addr.get(), value));
        Ok(())
    }
}

impl Writes {
    fn take(&self) -> Vec<(u64, u32)> {
        std::mem::take(&mut *self.0.borrow_mut())
    }
}

const MEM: DeviceAddr = DeviceAddr(0x20_0000_0000);

#[test]
fn step_names_are_the_c_leaves_without_the_engine_prefix() {
    // The names `khal trace stpb-init`, `khal demo` and the init log print
    // (`<eng>_<name>` is the C leaf) [arch-stpb §1–§3], [q7 §7].
    let names: Vec<&str> = [
        Step::RegsInit,
        Step::UcodeSeqInit,
        Step::Q7UcodeEngInit,
        Step::HwDecodeTableInit,
        Step::DmaInit,
        Step::ReleaseRunStall,
        Step::ReleaseSeqRunStall,
        Step::ReleaseEngRunStall,
    ]
    .iter()
    .map(|s| s.name())
    .collect();
    assert_eq!(
        names,
        [
            "regs_init",
            "ucode_seq_init",
            "q7_ucode_eng_init",
            "hw_decode_table_init",
            "dma_init",
            "release_run_stall",
            "release_seq_run_stall",
            "release_eng_run_stall",
        ]
    );
}

fn image(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i % 251) as u8).collect()
}

#[test]
fn hw_decode_slots_run_the_hw_decode_step_with_the_eng_info_images() {
    // [hw-decode §4], [FACTS §13.5, §13.6]: CAYMAN's four HW-decode slots run
    // hw_decode_table_init with the images and flag of their eng_info.
    let cam = image(0x40);
    let profile = image(0x80);
    let images = HwDecodeImages {
        cam: &cam,
        profile: &profile,
    };
    let info = EngInfo {
        hw_decode: Some(images),
        disable_hw_decode: 1,
    };
    let want = |eng: Engine| {
        let m = Writes::default();
        hw_decode_table_init::<Cayman, _>(&m, MEM, eng, images, 1).unwrap();
        let w = m.take();
        assert!(!w.is_empty());
        w
    };
    let m = Writes::default();
    let pe = PeParams {
        info,
        ..PeParams::new(DeviceAddr(0), MEM)
    };
    Cayman::pe_step(&m, Step::HwDecodeTableInit, &pe).unwrap();
    assert_eq!(m.take(), want(Engine::Pe));
    let eng = EngineParams {
        info,
        ..EngineParams::new(DeviceAddr(0), MEM)
    };
    Cayman::act_step(&m, Step::HwDecodeTableInit, &eng).unwrap();
    assert_eq!(m.take(), want(Engine::Act));
    Cayman::dve_step(&m, Step::HwDecodeTableInit, &eng).unwrap();
    assert_eq!(m.take(), want(Engine::Dve));
    let pool = PoolingParams {
        info,
        ..PoolingParams::new(DeviceAddr(0), MEM)
    };
    Cayman::pooling_step(&m, Step::HwDecodeTableInit, &pool).unwrap();
    assert_eq!(m.take(), want(Engine::Pool));

    // No images in eng_info: khal's own refusal, nothing written.
    let bare = PeParams::new(DeviceAddr(0), MEM);
    assert_eq!(
        Cayman::pe_step(&m, Step::HwDecodeTableInit, &bare),
        Err(Error::InvalidArgument("eng_info hw_decode images absent"))
    );
    // MARIANA: the table bases are not printed; the arch's answer comes first.
    assert!(matches!(
        Mariana::pe_step(&m, Step::HwDecodeTableInit, &pe),
        Err(Error::NotTraced(_))
    ));
    assert_eq!(m.take(), []);
}

#[test]
fn pooling_q7_slot_loads_the_pooling_owners_ucode() {
    // [q7 §7], [FACTS §13.3]: pooling_init's Q7 step is q7_ucode_eng_init(tpb,
    // mem, imgs, owner_idx 0), on every arch.
    const UCODE: Q7Ucode<'static> = Q7Ucode {
        iram: &[1, 2, 3, 4, 5, 6],
        dram: &[7, 8, 9],
    };
    fn check<A: StpbOps + khal::family::Q7Params>() {
        let want = Writes::default();
        q7::q7_ucode_eng_init::<A, _>(&want, MEM, UCODE, 0).unwrap();
        let want = want.take();
        assert!(!want.is_empty());
        let m = Writes::default();
        let pool = PoolingParams {
            q7: Some(UCODE),
            ..PoolingParams::new(DeviceAddr(0), MEM)
        };
        A::pooling_step(&m, Step::Q7UcodeEngInit, &pool).unwrap();
        assert!(m.take() == want, "the owner-0 load");
        // No images: khal's own refusal, nothing written.
        let bare = PoolingParams::new(DeviceAddr(0), MEM);
        assert_eq!(
            A::pooling_step(&m, Step::Q7UcodeEngInit, &bare),
            Err(Error::InvalidArgument("pooling q7 ucode images absent"))
        );
        assert_eq!(m.take(), []);
    }
    check::<Sunda>();
    check::<Cayman>();
    check::<Mariana>();
}

#[test]
fn only_the_dve_slots_are_fatal_when_null() {
    // [002 §3 GOTCHA], [FACTS §12.2]: a NULL DVE slot asserts in the shim; the
    // other engines' NULL slots return 0.
    for s in SLOTS {
        let want = match s.table {
            SubTable::Engine(Engine::Dve)
            | SubTable::KhalNotific
            | SubTable::NqRing
            | SubTable::KhalIntc => NullPolicy::Fatal,
            SubTable::Engine(_) => NullPolicy::Silent,
            SubTable::Q7 => NullPolicy::NotTraced,
        };
        assert_eq!(s.null_policy(), want, "{s:?}");
    }
    let dve_init = SLOTS
        .iter()
        .find(|s| s.table == SubTable::Engine(Engine::Dve) && s.op == "dve_init")
        .unwrap();
    assert_eq!(dve_init.null_policy(), NullPolicy::Fatal);
    assert_eq!(
        SLOTS
            .iter()
            .filter(|s| s.table == SubTable::Engine(Engine::Dve))
            .count(),
        11
    );
}
