//! The dispatch layer [002 §1, §3]: binding is a type, AnyArch from a
//! validated id, the two NULL-slot policies, which optional ops each arch
//! overrides, the call order of `stpb_init` / `sp_init` and their error
//! handling.

use std::cell::RefCell;

use khal::engine::{
    self, ActOps, Checked, DveOps, EngineParams, PeOps, PeParams, PoolingOps, PoolingParams,
    RawStpbConfig, SpHandle, SpOps, StpbConfig,
};
use khal::{AnyArch, ArchId, Cayman, Mariana, Sunda};
use khal::{DeviceAddr, Error, Mmio, Result};
use khal_std::{HeapMmio, Trace};

/// A register file covering the XT/NX windows of a TPB memory handle at 0
/// (up to POOL `0x306_0000` + `0x4000`) [FACTS §13.1].
fn mmio() -> Trace<HeapMmio> {
    Trace::new(HeapMmio::new(DeviceAddr(0), 0x310_0000))
}

const ENG: EngineParams = EngineParams {
    inst_debug_level: 3,
    ..EngineParams::new(DeviceAddr(0x1000), DeviceAddr(0))
};
const POOL: PoolingParams = PoolingParams {
    inst_debug_level: 8,
    ..PoolingParams::new(DeviceAddr(0x2000), DeviceAddr(0))
};
const PE: PeParams = PeParams::new(DeviceAddr(0x3000), DeviceAddr(0));
const SP: SpHandle = SpHandle {
    sp_mem: Some(DeviceAddr(0x4000)),
    sp_regs: Some(DeviceAddr(0x5000)),
    ens_regs: Some(DeviceAddr(0x8000)),
    inst_debug_level: 0,
};

#[test]
fn any_arch_only_from_a_validated_id() {
    assert_eq!(
        AnyArch::new(0).map(|a| a.id()),
        Err(Error::InvalidArgument("arch id 0 (INVALID: no arch bound)"))
    );
    for bad in [1, 5, 0xFFFF_FFFF] {
        assert!(matches!(AnyArch::new(bad), Err(Error::InvalidArgument(_))));
    }
    assert_eq!(AnyArch::new(2).map(|a| a.id()), Ok(ArchId::Sunda));
    assert_eq!(AnyArch::new(3).map(|a| a.id()), Ok(ArchId::Cayman));
    assert_eq!(AnyArch::new(4).map(|a| a.id()), Ok(ArchId::Mariana));
    assert_eq!(AnyArch::from_arch(ArchId::Mariana).id(), ArchId::Mariana);
}

/// One optional op, called on a traced register file.
type OptionalOp = Box<dyn Fn(&Trace<HeapMmio>) -> Result<()>>;

/// What one optional op does with default params (no images, TPB memory
/// handle 0): `default` = Ok with no access (the C NULL slot, or a leaf that
/// is a no-op on the arch); `not traced` = `NotTraced` with no access; `writes`
/// = a §13 program that wrote; `refused` = a §13 program that refused its
/// input (absent images) with no access.
fn optional_ops<A: ActOps + PeOps + PoolingOps + SpOps>() -> Vec<(&'static str, &'static str)> {
    let eng = EngineParams::check(Some(&ENG)).unwrap();
    let pool = PoolingParams::check(Some(&POOL)).unwrap();
    let sp = SpHandle::check(Some(&SP)).unwrap();
    let ops: Vec<(&'static str, OptionalOp)> = vec![
        ("act_regs_init", Box::new(|m| A::act_regs_init(m, &ENG))),
        (
            "act_ucode_seq_init",
            Box::new(|m| A::act_ucode_seq_init(m, &ENG)),
        ),
        (
            "act_hw_decode_table_init",
            Box::new(|m| A::act_hw_decode_table_init(m, &ENG)),
        ),
        ("act_dma_init", Box::new(|m| A::act_dma_init(m, &ENG))),
        (
            "act_release_run_stall",
            Box::new(|m| A::act_release_run_stall(m, &ENG)),
        ),
        ("act_init", Box::new(move |m| A::act_init(m, eng))),
        ("pe_regs_init", Box::new(|m| A::pe_regs_init(m, &PE))),
        (
            "pe_ucode_seq_init",
            Box::new(|m| A::pe_ucode_seq_init(m, &PE)),
        ),
        (
            "pe_hw_decode_table_init",
            Box::new(|m| A::pe_hw_decode_table_init(m, &PE)),
        ),
        ("pe_dma_init", Box::new(|m| A::pe_dma_init(m, &PE))),
        (
            "pe_release_run_stall",
            Box::new(|m| A::pe_release_run_stall(m, &PE)),
        ),
        ("pe_init", Box::new(|m| A::pe_init(m, &PE))),
        (
            "pooling_regs_init",
            Box::new(|m| A::pooling_regs_init(m, &POOL)),
        ),
        (
            "pooling_ucode_seq_init",
            Box::new(|m| A::pooling_ucode_seq_init(m, &POOL)),
        ),
        (
            "pooling_q7_ucode_eng_init",
            Box::new(|m| A::pooling_q7_ucode_eng_init(m, &POOL)),
        ),
        (
            "pooling_hw_decode_table_init",
            Box::new(|m| A::pooling_hw_decode_table_init(m, &POOL)),
        ),
        (
            "pooling_dma_init",
            Box::new(|m| A::pooling_dma_init(m, &POOL)),
        ),
        (
            "pooling_release_seq_run_stall",
            Box::new(|m| A::pooling_release_seq_run_stall(m, &POOL)),
        ),
        (
            "pooling_release_eng_run_stall",
            Box::new(|m| A::pooling_release_eng_run_stall(m, &POOL)),
        ),
        ("pooling_init", Box::new(move |m| A::pooling_init(m, pool))),
        ("sp_regs_init", Box::new(move |m| A::sp_regs_init(m, sp))),
        (
            "sp_ucode_seq_init",
            Box::new(move |m| A::sp_ucode_seq_init(m, sp)),
        ),
        (
            "sp_release_run_stall",
            Box::new(move |m| A::sp_release_run_stall(m, sp)),
        ),
        ("sp_dma_init", Box::new(move |m| A::sp_dma_init(m, sp))),
    ];
    ops.into_iter()
        .map(|(name, op)| {
            let m = mmio();
            let r = op(&m);
            let wrote = !m.ops().is_empty();
            let class = match (r, wrote) {
                (Ok(()), false) => "default",
                (Ok(()), true) => "writes",
                (Err(Error::NotTraced(_)), false) => "not traced",
                (Err(Error::InvalidArgument(_)), false) => "refused",
                (r, w) => panic!("{name}: unexpected {r:?} (wrote: {w})"),
            };
            (name, class)
        })
        .collect()
}

/// The classes in the order of [`optional_ops`].
fn classes(list: &[(&'static str, &'static str)]) -> Vec<&'static str> {
    list.iter().map(|(_, c)| *c).collect()
}

const NT: &str = "not traced";

#[test]
fn sunda_optional_ops() {
    assert_eq!(
        classes(&optional_ops::<Sunda>()),
        [
            // ACT: no HW-decode call, its leaf a no-op [FACTS §3.3, §13.6]
            NT, NT, "default", NT, NT, NT, // PE
            NT, NT, "default", NT, NT, NT,
            // Pooling: q7 needs images; hw-decode slot NULL [002 §3]; the
            // sequencer release writes +0x04; the Q7 release is a no-op.
            NT, NT, "refused", "default", NT, "writes", "default", NT, // SP
            NT, NT, NT, NT,
        ]
    );
}

#[test]
fn cayman_optional_ops() {
    assert_eq!(
        classes(&optional_ops::<Cayman>()),
        [
            NT, NT, "refused", NT, NT, NT, NT, NT, "refused", NT, NT, NT, NT, NT, "refused",
            "refused", NT, "writes", "writes", NT, NT, NT, NT, NT,
        ]
    );
}

#[test]
fn mariana_optional_ops() {
    assert_eq!(
        classes(&optional_ops::<Mariana>()),
        [
            // HW-decode bases: NOT TRACED on MARIANA (§13.11).
            NT, NT, NT, NT, NT, NT, NT, NT, NT, NT, NT, NT, NT, NT, "refused", NT, NT, "writes",
            "writes", NT, NT, NT, NT, NT,
        ]
    );
}

#[test]
fn mandatory_dve_ops_answer_not_traced_on_every_arch() {
    fn check<A: DveOps>() {
        let m = mmio();
        let c = EngineParams::check(Some(&ENG)).unwrap();
        assert!(matches!(
            A::dve_regs_init(&m, &ENG),
            Err(Error::NotTraced(_))
        ));
        assert!(matches!(
            A::dve_ucode_seq_init(&m, &ENG),
            Err(Error::NotTraced(_))
        ));
        assert!(matches!(
            A::dve_release_run_stall(&m, &ENG),
            Err(Error::NotTraced(_))
        ));
        assert!(matches!(
            A::dve_dma_init(&m, &ENG),
            Err(Error::NotTraced(_))
        ));
        assert!(matches!(A::dve_init(&m, c), Err(Error::NotTraced(_))));
        assert!(m.ops().is_empty());
    }
    check::<Sunda>();
    check::<Cayman>();
    check::<Mariana>();
}

// A test arch: DVE ops (mandatory) implemented, every optional op left to its
// default, and a call log to check orders.
thread_local! {
    static CALLS: RefCell<Vec<&'static str>> = const { RefCell::new(Vec::new()) };
    static FAIL: RefCell<Option<&'static str>> = const { RefCell::new(None) };
}

fn log(name: &'static str) -> Result<()> {
    CALLS.with(|c| c.borrow_mut().push(name));
    match FAIL.with(|f| *f.borrow()) {
        Some(n) if n == name => Err(Error::NotTraced(name)),
        _ => Ok(()),
    }
}

fn take_calls() -> Vec<&'static str> {
    CALLS.with(|c| std::mem::take(&mut *c.borrow_mut()))
}

fn fail_at(name: Option<&'static str>) {
    FAIL.with(|f| *f.borrow_mut() = name);
}

/// Only the mandatory ops: every optional op takes its default.
enum Bare {}
impl DveOps for Bare {
    fn dve_regs_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        log("dve_regs_init")
    }
    fn dve_ucode_seq_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        log("dve_ucode_seq_init")
    }
    fn dve_release_run_stall<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        log("dve_release_run_stall")
    }
    fn dve_dma_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        log("dve_dma_init")
    }
    fn dve_hw_decode_table_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        log("dve_hw_decode_table_init")
    }
    fn dve_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, EngineParams<'_>>) -> Result<()> {
        log("dve_init")
    }
}
impl ActOps for Bare {}
impl PeOps for Bare {}
impl PoolingOps for Bare {}
impl SpOps for Bare {}

/// Every op overridden, recording.
enum Rec {}
impl DveOps for Rec {
    fn dve_regs_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        log("dve_regs_init")
    }
    fn dve_ucode_seq_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        log("dve_ucode_seq_init")
    }
    fn dve_release_run_stall<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        log("dve_release_run_stall")
    }
    fn dve_dma_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        log("dve_dma_init")
    }
    fn dve_hw_decode_table_init<M: Mmio + ?Sized>(_: &M, _: &EngineParams<'_>) -> Result<()> {
        log("dve_hw_decode_table_init")
    }
    fn dve_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, EngineParams<'_>>) -> Result<()> {
        log("dve_init")
    }
}
impl ActOps for Rec {
    fn act_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, EngineParams<'_>>) -> Result<()> {
        log("act_init")
    }
}
impl PeOps for Rec {
    fn pe_init<M: Mmio + ?Sized>(_: &M, _: &PeParams<'_>) -> Result<()> {
        log("pe_init")
    }
}
impl PoolingOps for Rec {
    fn pooling_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, PoolingParams<'_>>) -> Result<()> {
        log("pooling_init")
    }
}
impl SpOps for Rec {
    fn sp_regs_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        log("sp_regs_init")
    }
    fn sp_ucode_seq_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        log("sp_ucode_seq_init")
    }
    fn sp_release_run_stall<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        log("sp_release_run_stall")
    }
    fn sp_dma_init<M: Mmio + ?Sized>(_: &M, _: Checked<'_, SpHandle>) -> Result<()> {
        log("sp_dma_init")
    }
}

fn cfg() -> StpbConfig<'static> {
    StpbConfig {
        pooling: &POOL,
        act: &ENG,
        dve: &ENG,
        pe: &PE,
        sp: &SP,
    }
}

#[test]
fn optional_defaults_succeed_without_touching_hardware() {
    assert!(classes(&optional_ops::<Bare>())
        .iter()
        .all(|c| *c == "default"));
    let m = mmio();
    fail_at(None);
    take_calls();
    engine::stpb_init::<Bare, _>(&m, &cfg()).unwrap();
    // Only the mandatory DVE op ran; nothing was written.
    assert_eq!(take_calls(), vec!["dve_init"]);
    assert!(m.ops().is_empty());
}

#[test]
fn stpb_init_order_pooling_act_dve_pe_sp() {
    let m = mmio();
    fail_at(None);
    take_calls();
    engine::stpb_init::<Rec, _>(&m, &cfg()).unwrap();
    assert_eq!(
        take_calls(),
        vec![
            "pooling_init",
            "act_init",
            "dve_init",
            "pe_init",
            "sp_regs_init",
            "sp_ucode_seq_init",
            "sp_dma_init",
            "sp_release_run_stall",
        ]
    );
    // The raw layer's init = false: no SP register bring-up.
    let raw = RawStpbConfig {
        pooling: Some(&POOL),
        act: Some(&ENG),
        dve: Some(&ENG),
        pe: &PE,
        sp: Some(&SP),
        notific: false,
        flag: 0,
        init: false,
    };
    engine::stpb_init_raw::<Rec, _>(&m, &raw).unwrap();
    assert_eq!(
        take_calls(),
        vec!["pooling_init", "act_init", "dve_init", "pe_init"]
    );
}

#[test]
fn stpb_init_stops_at_the_first_error() {
    let m = mmio();
    for (at, ran) in [
        ("pooling_init", 1),
        ("act_init", 2),
        ("dve_init", 3),
        ("pe_init", 4),
    ] {
        fail_at(Some(at));
        take_calls();
        assert_eq!(
            engine::stpb_init::<Rec, _>(&m, &cfg()).map(|_| ()),
            Err(Error::NotTraced(at))
        );
        assert_eq!(take_calls().len(), ran);
    }
    fail_at(None);
    // A bad DVE config stops after pooling and act ran.
    let bad = EngineParams {
        inst_debug_level: 9,
        ..ENG
    };
    let mut c = cfg();
    c.dve = &bad;
    take_calls();
    assert_eq!(
        engine::stpb_init::<Rec, _>(&m, &c).map(|_| ()),
        Err(Error::InvalidArgument("inst_debug_level > 8"))
    );
    assert_eq!(take_calls(), vec!["pooling_init", "act_init"]);
    // The raw layer: an absent DVE config stops at the same place.
    let raw = RawStpbConfig {
        pooling: Some(&POOL),
        act: Some(&ENG),
        dve: None,
        pe: &PE,
        sp: Some(&SP),
        notific: false,
        flag: 0,
        init: true,
    };
    assert_eq!(
        engine::stpb_init_raw::<Rec, _>(&m, &raw).map(|_| ()),
        Err(Error::InvalidArgument("engine config absent"))
    );
    assert_eq!(take_calls(), vec!["pooling_init", "act_init"]);
}

#[test]
fn sp_init_returns_regs_and_ucode_errors_but_not_dma_or_stall() {
    let m = mmio();
    for at in ["sp_regs_init", "sp_ucode_seq_init"] {
        fail_at(Some(at));
        take_calls();
        assert_eq!(
            engine::sp_init::<Rec, _>(&m, &SP).map(|_| ()),
            Err(Error::NotTraced(at))
        );
        // Nothing after the failing step ran.
        assert_eq!(take_calls().last(), Some(&at));
        assert!(m.ops().is_empty());
    }
    for at in ["sp_dma_init", "sp_release_run_stall"] {
        fail_at(Some(at));
        take_calls();
        assert!(engine::sp_init::<Rec, _>(&m, &SP).is_ok());
        assert_eq!(
            take_calls(),
            vec![
                "sp_regs_init",
                "sp_ucode_seq_init",
                "sp_dma_init",
                "sp_release_run_stall"
            ]
        );
    }
    fail_at(None);
}

#[test]
fn sp_init_notific_failure_is_reported_not_returned() {
    let m = mmio();
    fail_at(None);
    // No ENS base: the notific init fails with -14; sp_init still returns Ok.
    let no_ens = SpHandle {
        ens_regs: None,
        ..SP
    };
    let out = engine::sp_init_raw::<Rec, _>(&m, Some(&no_ens), true, 0, false).unwrap();
    assert!(out.notific.is_none());
    assert_eq!(out.notific_error, Some(Error::NoContext));
    // The raw layer: the absent base (-14) before the flag (-1), as in C.
    let out = engine::sp_init_raw::<Rec, _>(&m, Some(&no_ens), true, 2, false).unwrap();
    assert_eq!(out.notific_error, Some(Error::NoContext));
    // An unknown back-pressure flag: -1, nothing written, still Ok.
    let out = engine::topsp_init_raw::<Rec, _>(&m, Some(&SP), true, 2, false).unwrap();
    assert_eq!(out.notific_error, Some(Error::UnknownMode(2)));
    assert!(m.ops().is_empty());
}

#[test]
fn real_arches_stop_at_the_first_untraced_leaf_before_any_write() {
    fn check<A: engine::EngineOps>() {
        let m = mmio();
        let r = engine::stpb_init::<A, _>(&m, &cfg()).map(|_| ());
        assert!(matches!(r, Err(Error::NotTraced(_))), "{r:?}");
        assert!(m.ops().is_empty());
        // sp_init with init: regs_init is the first untraced leaf.
        let r = engine::sp_init::<A, _>(&m, &SP).map(|_| ());
        assert!(matches!(r, Err(Error::NotTraced(_))));
        assert!(m.ops().is_empty());
    }
    check::<Sunda>();
    check::<Cayman>();
    check::<Mariana>();
}

#[test]
fn any_arch_dispatches_to_the_same_bodies() {
    for id in [2, 3, 4] {
        let any = AnyArch::new(id).unwrap();
        let m = mmio();
        assert!(matches!(
            any.stpb_init(&m, &cfg()).map(|_| ()),
            Err(Error::NotTraced(_))
        ));
        assert!(matches!(
            any.dve_init(&m, Some(&ENG)),
            Err(Error::NotTraced(_))
        ));
        assert!(matches!(
            any.dve_regs_init(&m, &ENG),
            Err(Error::NotTraced(_))
        ));
        assert!(matches!(
            any.dve_ucode_seq_init(&m, &ENG),
            Err(Error::NotTraced(_))
        ));
        assert!(matches!(
            any.act_init(&m, Some(&ENG)),
            Err(Error::NotTraced(_))
        ));
        assert!(matches!(any.pe_init(&m, &PE), Err(Error::NotTraced(_))));
        assert!(matches!(
            any.pe_regs_init(&m, &PE),
            Err(Error::NotTraced(_))
        ));
        assert!(matches!(
            any.pooling_init(&m, Some(&POOL)),
            Err(Error::NotTraced(_))
        ));
        assert_eq!(
            any.pooling_hw_decode_table_init(&m, &POOL).is_ok(),
            id == 2,
            "only SUNDA's slot is empty"
        );
        assert_eq!(any.program_start(&m, DeviceAddr(0), &[u64::MAX; 5]), Ok(()));
        assert!(m.ops().is_empty());
        // The checks run before dispatch on every arch.
        assert_eq!(
            any.act_init(&m, None),
            Err(Error::InvalidArgument("engine config absent"))
        );
    }
}

#[test]
fn any_arch_program_start_writes_the_bound_arch_s_trace() {
    // [002 §4], [FACTS §12.1, §13.1]: CAYMAN launches POOL, ACT, PE, DVE in
    // that order, each start_addr_lo (+0x1060), start_addr_hi (+0x1080),
    // START_CTRL (+0x004) = 1 in its XT/NX window; SP skipped.
    let starts = [
        0x0000_0001_0000_0000, // PE
        0x0000_0002_0000_0010, // ACT
        0x0000_0003_0000_0020, // POOL
        0x0000_0004_0000_0030, // DVE
        u64::MAX,              // SP skipped
    ];
    let m = mmio();
    let any = AnyArch::new(3).unwrap();
    assert_eq!(any.program_start(&m, DeviceAddr(0), &starts), Ok(()));
    let want: Vec<(u64, u32)> = [
        (0x306_0000u64, 0x20u32, 3u32), // POOL
        (0x246_0000, 0x10, 2),          // ACT
        (0x266_0000, 0x00, 1),          // PE
        (0x2B6_0000, 0x30, 4),          // DVE
    ]
    .into_iter()
    .flat_map(|(w, lo, hi)| [(w + 0x1060, lo), (w + 0x1080, hi), (w + 0x004, 1)])
    .collect();
    let got: Vec<(u64, u32)> = m
        .accesses()
        .iter()
        .map(|a| (a.addr.get(), a.value))
        .collect();
    assert_eq!(got, want);
    // SUNDA and MARIANA: the same answer and trace as the static call.
    fn same<A: khal::family::NxLocal>(id: u32, starts: &[u64; 5]) {
        let (a, s) = (mmio(), mmio());
        assert_eq!(
            AnyArch::new(id)
                .unwrap()
                .program_start(&a, DeviceAddr(0), starts),
            engine::program_start::<A, _>(&s, DeviceAddr(0), starts)
        );
        assert_eq!(a.ops(), s.ops());
    }
    same::<Sunda>(2, &starts);
    same::<Mariana>(4, &starts);
}

#[test]
fn the_slot_table_is_facts_12_2_exactly() {
    // Transcribed from [FACTS §12.2] ([002r1 §3]): every engine slot
    // (engine, op, offset), in order. One wrong offset, a missing or an extra
    // slot fails. The Q7, notific, NQ and INTC slots: tests/fidelity_slots.rs.
    use khal::engine::slots::{SubTable, SLOTS};
    use khal::Engine::{Act, Dve, Pe, Pool, Sp};
    let facts: [(khal::Engine, &str, u32); 55] = [
        (Dve, "reset_rng_seed", 0x1F8),
        (Dve, "instr_debug_level_set", 0x200),
        (Dve, "regs_init", 0x208),
        (Dve, "get_timestamp_inc", 0x278),
        (Dve, "ucode_seq_init", 0x280),
        (Dve, "release_run_stall", 0x288),
        (Dve, "dma_init", 0x290),
        (Dve, "write_parameter_ram", 0x298),
        (Dve, "write_tables", 0x2A0),
        (Dve, "hw_decode_table_init", 0x2A8),
        (Dve, "dve_init", 0x2B0),
        (Act, "instr_debug_level_set", 0x210),
        (Act, "regs_init", 0x218),
        (Act, "ucode_seq_init", 0x2B8),
        (Act, "release_run_stall", 0x2C0),
        (Act, "dma_init", 0x2C8),
        (Act, "load_local", 0x2D0),
        (Act, "hw_decode_table_init", 0x2D8),
        (Act, "act_init", 0x2E0),
        (Pe, "instr_debug_level_set", 0x2E8),
        (Pe, "regs_init", 0x2F0),
        (Pe, "ucode_seq_init", 0x2F8),
        (Pe, "release_run_stall", 0x300),
        (Pe, "dma_init", 0x308),
        (Pe, "hw_decode_table_init", 0x310),
        (Pe, "pe_init", 0x318),
        (Pe, "get_timestamp_inc", 0x320),
        (Pe, "bg_xpose_get_offset", 0x328),
        (Pool, "instr_debug_level_set", 0x330),
        (Pool, "regs_init", 0x338),
        (Pool, "ucode_seq_init", 0x340),
        (Pool, "release_seq_run_stall", 0x348),
        (Pool, "release_eng_run_stall", 0x350),
        (Pool, "dma_init", 0x358),
        (Pool, "hw_decode_table_init", 0x360),
        (Pool, "pooling_init", 0x368),
        (Pool, "set_dge_dma_mapping", 0x370),
        (Pool, "get_dge_dma_mapping_register_offset_and_val", 0x378),
        (Pool, "set_dge_carveout", 0x380),
        (Pool, "get_dge_carveout_register_offset_and_val", 0x388),
        (Sp, "topsp_evsem_notif_hw_bp_enable", 0x6D8),
        (Sp, "regs_init", 0x6E0),
        (Sp, "ucode_seq_init", 0x6E8),
        (Sp, "release_run_stall", 0x6F0),
        (Sp, "topsp_set_init_signal", 0x6F8),
        (Sp, "topsp_set_tsync_signal", 0x700),
        (Sp, "topsp_set_host_trigger", 0x708),
        (Sp, "topsp_get_host_trigger_reg_offset", 0x710),
        (Sp, "topsp_set_stop_signal", 0x718),
        (Sp, "topsp_get_stop_signal_reg_offset", 0x720),
        (Sp, "topsp_get_basic_block_switch_reg_offset", 0x728),
        (Sp, "topsp_read_config_addr", 0x730),
        (Sp, "dma_init", 0x738),
        (Sp, "program_start", 0x740),
        (Sp, "check_run_state", 0x748),
    ];
    let got: Vec<_> = SLOTS
        .iter()
        .filter_map(|s| match s.table {
            SubTable::Engine(e) => Some((e, s.op, s.offset)),
            _ => None,
        })
        .collect();
    assert_eq!(got, facts);
}
