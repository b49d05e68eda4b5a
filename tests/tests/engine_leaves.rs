//! The engine-init pieces the real arches' orchestrators never reach (they stop
//! at an earlier untraced step): the step names, a step outside an engine's
//! list, the HW-decode and Q7 steps through the arches' own op slots, and the
//! slots' NULL policy [002 §3], [FACTS §12.2, §13.3, §13.5, §13.6].

use std::cell::RefCell;

use khal::engine::hw_decode::{hw_decode_table_init, HwDecodeImages};
use khal::engine::init::{self, InitSteps, Step};
use khal::engine::slots::{self, NullPolicy, SubTable, SLOTS};
use khal::engine::{
    ActOps, Checked, DveOps, EngInfo, EngineParams, PeOps, PeParams, PoolingOps, PoolingParams,
};
use khal::q7::{self, Q7Ucode};
use khal::{DeviceAddr, Error, Mmio, Result};
use khal::{Cayman, Engine, Mariana, Sunda};

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

/// A test arch whose step lists name steps its engines do not have; every
/// leaf is the ops traits' default (0, no access).
enum WrongSteps {}
impl InitSteps for WrongSteps {
    const PE_STEPS: &'static [Step] = &[Step::RegsInit, Step::Q7UcodeEngInit, Step::DmaInit];
    const ACT_STEPS: &'static [Step] = &[Step::ReleaseSeqRunStall];
    const DVE_STEPS: &'static [Step] = &[Step::ReleaseEngRunStall];
    const POOL_STEPS: &'static [Step] = &[Step::ReleaseRunStall];
}
impl PeOps for WrongSteps {}
impl ActOps for WrongSteps {}
impl PoolingOps for WrongSteps {}
impl DveOps for WrongSteps {
    fn dve_regs_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        Ok(())
    }
    fn dve_ucode_seq_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        Ok(())
    }
    fn dve_release_run_stall<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        Ok(())
    }
    fn dve_dma_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        Ok(())
    }
    fn dve_hw_decode_table_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        Ok(())
    }
    fn dve_init<M: Mmio + ?Sized>(m: &M, p: Checked<'_, EngineParams<'_>>) -> Result<()> {
        init::dve_init::<WrongSteps, M, ()>(m, p, &mut ())
    }
}

#[test]
fn a_step_outside_the_engines_list_is_refused_and_stops_the_init() {
    const NOT_A_STEP: Error = Error::InvalidArgument("step not in this engine's init");
    let m = Writes::default();
    let mut log = Vec::new();
    let mut record = |e: Engine, s: Step, o: Result<()>| log.push((e, s, o));
    let pe = PeParams::new(DeviceAddr(0), MEM);
    let r = init::pe_init::<WrongSteps, _, _>(&m, PeParams::accept(&pe), &mut record);
    assert_eq!(r, Err(NOT_A_STEP));
    let eng = EngineParams::new(DeviceAddr(0), MEM);
    let checked = || EngineParams::check(Some(&eng)).unwrap();
    let r = init::act_init::<WrongSteps, _, _>(&m, checked(), &mut record);
    assert_eq!(r, Err(NOT_A_STEP));
    let r = init::dve_init::<WrongSteps, _, _>(&m, checked(), &mut record);
    assert_eq!(r, Err(NOT_A_STEP));
    let pool = PoolingParams::new(DeviceAddr(0), MEM);
    let r = init::pooling_init::<WrongSteps, _, _>(
        &m,
        PoolingParams::check(Some(&pool)).unwrap(),
        &mut record,
    );
    assert_eq!(r, Err(NOT_A_STEP));
    // PE's regs_init ran, its Q7 step was refused, its dma_init never ran.
    assert_eq!(
        log,
        [
            (Engine::Pe, Step::RegsInit, Ok(())),
            (Engine::Pe, Step::Q7UcodeEngInit, Err(NOT_A_STEP)),
            (Engine::Act, Step::ReleaseSeqRunStall, Err(NOT_A_STEP)),
            (Engine::Dve, Step::ReleaseEngRunStall, Err(NOT_A_STEP)),
            (Engine::Pool, Step::ReleaseRunStall, Err(NOT_A_STEP)),
        ]
    );
    assert_eq!(m.take(), []);
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
    <Cayman as PeOps>::pe_hw_decode_table_init(&m, &pe).unwrap();
    assert_eq!(m.take(), want(Engine::Pe));
    let eng = EngineParams {
        info,
        ..EngineParams::new(DeviceAddr(0), MEM)
    };
    <Cayman as ActOps>::act_hw_decode_table_init(&m, &eng).unwrap();
    assert_eq!(m.take(), want(Engine::Act));
    <Cayman as DveOps>::dve_hw_decode_table_init(&m, &eng).unwrap();
    assert_eq!(m.take(), want(Engine::Dve));
    let pool = PoolingParams {
        info,
        ..PoolingParams::new(DeviceAddr(0), MEM)
    };
    <Cayman as PoolingOps>::pooling_hw_decode_table_init(&m, &pool).unwrap();
    assert_eq!(m.take(), want(Engine::Pool));

    // No images in eng_info: khal's own refusal, nothing written.
    let bare = PeParams::new(DeviceAddr(0), MEM);
    assert_eq!(
        <Cayman as PeOps>::pe_hw_decode_table_init(&m, &bare),
        Err(Error::InvalidArgument("eng_info hw_decode images absent"))
    );
    // MARIANA: the table bases are not printed; the arch's answer comes first.
    assert!(matches!(
        <Mariana as PeOps>::pe_hw_decode_table_init(&m, &pe),
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
    fn check<A: PoolingOps + khal::family::Q7Params>() {
        let want = Writes::default();
        q7::q7_ucode_eng_init::<A, _>(&want, MEM, UCODE, 0).unwrap();
        let want = want.take();
        assert!(!want.is_empty());
        let m = Writes::default();
        let pool = PoolingParams {
            q7: Some(UCODE),
            ..PoolingParams::new(DeviceAddr(0), MEM)
        };
        A::pooling_q7_ucode_eng_init(&m, &pool).unwrap();
        assert!(m.take() == want, "the owner-0 load");
        // No images: khal's own refusal, nothing written.
        let bare = PoolingParams::new(DeviceAddr(0), MEM);
        assert_eq!(
            A::pooling_q7_ucode_eng_init(&m, &bare),
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
    let dve_init = slots::slot(SubTable::Engine(Engine::Dve), "dve_init").unwrap();
    assert_eq!(dve_init.null_policy(), NullPolicy::Fatal);
    assert_eq!(
        SLOTS
            .iter()
            .filter(|s| s.table == SubTable::Engine(Engine::Dve))
            .count(),
        11
    );
}
