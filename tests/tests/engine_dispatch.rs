//! The dispatch layer [002 §1, §3]: binding is a type, AnyArch from a
//! validated id, the two NULL-slot policies, which optional ops each arch
//! overrides, the call order of `stpb_init` / `sp_init` and their error
//! handling.

use std::cell::RefCell;

use khal::engine::{
    self, Checked, EngineOps, EngineParams, PeParams, PoolingParams, RawStpbConfig, SpHandle, Step,
    StpbConfig, StpbOps,
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
    assert_eq!(AnyArch::from(ArchId::Mariana).id(), ArchId::Mariana);
}

/// One optional op, called on a traced register file.
type OptionalOp = Box<dyn Fn(&Trace<HeapMmio>) -> Result<()>>;

/// What one optional op does with default params (no images, TPB memory
/// handle 0): `default` = Ok with no access (the C NULL slot, or a leaf that
/// is a no-op on the arch); `not traced` = `NotTraced` with no access; `writes`
/// = a §13 program that wrote; `refused` = a §13 program that refused its
/// input (absent images) with no access.
fn optional_ops<A: StpbOps>() -> Vec<(&'static str, &'static str)> {
    use Step::*;
    let sp = SpHandle::check(Some(&SP)).unwrap();
    let ops: Vec<(&'static str, OptionalOp)> = vec![
        (
            "act_regs_init",
            Box::new(|m| A::act_step(m, RegsInit, &ENG)),
        ),
        (
            "act_ucode_seq_init",
            Box::new(|m| A::act_step(m, UcodeSeqInit, &ENG)),
        ),
        (
            "act_hw_decode_table_init",
            Box::new(|m| A::act_step(m, HwDecodeTableInit, &ENG)),
        ),
        ("act_dma_init", Box::new(|m| A::act_step(m, DmaInit, &ENG))),
        (
            "act_release_run_stall",
            Box::new(|m| A::act_step(m, ReleaseRunStall, &ENG)),
        ),
        (
            "act_init",
            Box::new(|m| engine::act_init::<A, _>(m, Some(&ENG))),
        ),
        ("pe_regs_init", Box::new(|m| A::pe_step(m, RegsInit, &PE))),
        (
            "pe_ucode_seq_init",
            Box::new(|m| A::pe_step(m, UcodeSeqInit, &PE)),
        ),
        (
            "pe_hw_decode_table_init",
            Box::new(|m| A::pe_step(m, HwDecodeTableInit, &PE)),
        ),
        ("pe_dma_init", Box::new(|m| A::pe_step(m, DmaInit, &PE))),
        (
            "pe_release_run_stall",
            Box::new(|m| A::pe_step(m, ReleaseRunStall, &PE)),
        ),
        ("pe_init", Box::new(|m| engine::pe_init::<A, _>(m, &PE))),
        (
            "pooling_regs_init",
            Box::new(|m| A::pooling_step(m, RegsInit, &POOL)),
        ),
        (
            "pooling_ucode_seq_init",
            Box::new(|m| A::pooling_step(m, UcodeSeqInit, &POOL)),
        ),
        (
            "pooling_q7_ucode_eng_init",
            Box::new(|m| A::pooling_step(m, Q7UcodeEngInit, &POOL)),
        ),
        (
            "pooling_hw_decode_table_init",
            Box::new(|m| A::pooling_step(m, HwDecodeTableInit, &POOL)),
        ),
        (
            "pooling_dma_init",
            Box::new(|m| A::pooling_step(m, DmaInit, &POOL)),
        ),
        (
            "pooling_release_seq_run_stall",
            Box::new(|m| A::pooling_step(m, ReleaseSeqRunStall, &POOL)),
        ),
        (
            "pooling_release_eng_run_stall",
            Box::new(|m| A::pooling_step(m, ReleaseEngRunStall, &POOL)),
        ),
        (
            "pooling_init",
            Box::new(|m| engine::pooling_init::<A, _>(m, Some(&POOL))),
        ),
        (
            "sp_regs_init",
            Box::new(move |m| A::sp_step(m, RegsInit, sp)),
        ),
        (
            "sp_ucode_seq_init",
            Box::new(move |m| A::sp_step(m, UcodeSeqInit, sp)),
        ),
        (
            "sp_release_run_stall",
            Box::new(move |m| A::sp_step(m, ReleaseRunStall, sp)),
        ),
        ("sp_dma_init", Box::new(move |m| A::sp_step(m, DmaInit, sp))),
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
    fn check<A: StpbOps>() {
        let m = mmio();
        for step in [
            Step::RegsInit,
            Step::UcodeSeqInit,
            Step::ReleaseRunStall,
            Step::DmaInit,
        ] {
            assert!(matches!(
                A::dve_step(&m, step, &ENG),
                Err(Error::NotTraced(_))
            ));
        }
        assert!(matches!(
            engine::dve_init::<A, _>(&m, Some(&ENG)),
            Err(Error::NotTraced(_))
        ));
        assert!(m.ops().is_empty());
    }
    check::<Sunda>();
    check::<Cayman>();
    check::<Mariana>();
}

// Test arches: a call log to check orders, and a leaf to fail at.
thread_local! {
    static CALLS: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    static FAIL: RefCell<Option<&'static str>> = const { RefCell::new(None) };
}

/// Log `<eng>_<step>` and fail with `NotTraced` if it is the leaf to fail at.
fn log(eng: &str, step: Step) -> Result<()> {
    let name = format!("{eng}_{}", step.name());
    let fail = FAIL.with(|f| *f.borrow()).filter(|n| *n == name);
    CALLS.with(|c| c.borrow_mut().push(name));
    fail.map_or(Ok(()), |n| Err(Error::NotTraced(n)))
}

fn take_calls() -> Vec<String> {
    CALLS.with(|c| std::mem::take(&mut *c.borrow_mut()))
}

/// The engines whose leaves ran, in order (consecutive calls merged).
fn engines(calls: &[String]) -> Vec<&str> {
    let mut out: Vec<&str> = calls
        .iter()
        .map(|c| c.split('_').next().unwrap_or(""))
        .collect();
    out.dedup();
    out
}

fn fail_at(name: Option<&'static str>) {
    FAIL.with(|f| *f.borrow_mut() = name);
}

/// Only the mandatory (DVE) leaves: every optional op takes its default.
enum Bare {}
impl StpbOps for Bare {
    fn dve_step<M: Mmio + ?Sized>(_: &M, step: Step, _: &EngineParams<'_>) -> Result<()> {
        log("dve", step)
    }
}

/// Every leaf overridden, recording.
enum Rec {}
impl StpbOps for Rec {
    fn dve_step<M: Mmio + ?Sized>(_: &M, step: Step, _: &EngineParams<'_>) -> Result<()> {
        log("dve", step)
    }
    fn act_step<M: Mmio + ?Sized>(_: &M, step: Step, _: &EngineParams<'_>) -> Result<()> {
        log("act", step)
    }
    fn pe_step<M: Mmio + ?Sized>(_: &M, step: Step, _: &PeParams<'_>) -> Result<()> {
        log("pe", step)
    }
    fn pooling_step<M: Mmio + ?Sized>(_: &M, step: Step, _: &PoolingParams<'_>) -> Result<()> {
        log("pooling", step)
    }
    fn sp_step<M: Mmio + ?Sized>(_: &M, step: Step, _: Checked<'_, SpHandle>) -> Result<()> {
        log("sp", step)
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
    engine::stpb_init::<Bare, _, _>(&m, &cfg(), &mut ()).unwrap();
    // Only the mandatory DVE leaves ran, in dve_init's order; nothing was
    // written.
    assert_eq!(
        take_calls(),
        [
            "dve_regs_init",
            "dve_ucode_seq_init",
            "dve_hw_decode_table_init",
            "dve_dma_init",
            "dve_release_run_stall"
        ]
    );
    assert!(m.ops().is_empty());
}

#[test]
fn stpb_init_order_pooling_act_dve_pe_sp() {
    let m = mmio();
    fail_at(None);
    take_calls();
    engine::stpb_init::<Rec, _, _>(&m, &cfg(), &mut ()).unwrap();
    let calls = take_calls();
    assert_eq!(engines(&calls), ["pooling", "act", "dve", "pe", "sp"]);
    assert_eq!(
        calls[calls.len() - 4..],
        [
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
    engine::stpb_init_raw::<Rec, _, _>(&m, &raw, &mut ()).unwrap();
    assert_eq!(engines(&take_calls()), ["pooling", "act", "dve", "pe"]);
}

#[test]
fn stpb_init_stops_at_the_first_error() {
    let m = mmio();
    let order = ["pooling", "act", "dve", "pe"];
    for (i, at) in [
        "pooling_regs_init",
        "act_ucode_seq_init",
        "dve_dma_init",
        "pe_release_run_stall",
    ]
    .into_iter()
    .enumerate()
    {
        fail_at(Some(at));
        take_calls();
        assert_eq!(
            engine::stpb_init::<Rec, _, _>(&m, &cfg(), &mut ()).map(|_| ()),
            Err(Error::NotTraced(at))
        );
        let calls = take_calls();
        assert_eq!(calls.last().map(String::as_str), Some(at));
        assert_eq!(engines(&calls), order[..=i]);
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
        engine::stpb_init::<Rec, _, _>(&m, &c, &mut ()).map(|_| ()),
        Err(Error::InvalidArgument("inst_debug_level > 8"))
    );
    assert_eq!(engines(&take_calls()), ["pooling", "act"]);
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
        engine::stpb_init_raw::<Rec, _, _>(&m, &raw, &mut ()).map(|_| ()),
        Err(Error::InvalidArgument("engine config absent"))
    );
    assert_eq!(engines(&take_calls()), ["pooling", "act"]);
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
        assert_eq!(take_calls().last().map(String::as_str), Some(at));
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
    let out = engine::sp_init_raw::<Rec, _>(&m, Some(&SP), true, 2, false).unwrap();
    assert_eq!(out.notific_error, Some(Error::UnknownMode(2)));
    assert!(m.ops().is_empty());
}

#[test]
fn real_arches_stop_at_the_first_untraced_leaf_before_any_write() {
    fn check<A: engine::EngineOps>() {
        let m = mmio();
        let r = engine::stpb_init::<A, _, _>(&m, &cfg(), &mut ()).map(|_| ());
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

/// The bodies `any_arch_dispatches_to_the_same_bodies` runs, in order.
fn bodies<A: EngineOps>(m: &Trace<HeapMmio>) -> Vec<Result<()>> {
    vec![
        engine::stpb_init::<A, _, _>(m, &cfg(), &mut ()),
        engine::dve_init::<A, _>(m, Some(&ENG)),
        A::dve_step(m, Step::RegsInit, &ENG),
        A::dve_step(m, Step::UcodeSeqInit, &ENG),
        engine::act_init::<A, _>(m, Some(&ENG)),
        engine::pe_init::<A, _>(m, &PE),
        A::pe_step(m, Step::RegsInit, &PE),
        engine::pooling_init::<A, _>(m, Some(&POOL)),
        A::pooling_step(m, Step::HwDecodeTableInit, &POOL),
        engine::program_start::<A, _>(m, DeviceAddr(0), &[u64::MAX; 5]),
        // The checks run before the arch's leaves on every arch.
        engine::act_init::<A, _>(m, None),
    ]
}

#[test]
fn any_arch_dispatches_to_the_same_bodies() {
    for id in [2, 3, 4] {
        let (m, s) = (mmio(), mmio());
        let got = khal_tests::on_arch!(AnyArch::new(id).unwrap(), |A| (m: &'a Trace<HeapMmio> = &m) -> Vec<Result<()>> {
            bodies::<A>(m)
        });
        let want = match id {
            2 => bodies::<Sunda>(&s),
            3 => bodies::<Cayman>(&s),
            _ => bodies::<Mariana>(&s),
        };
        assert_eq!(got, want);
        assert!(m.ops().is_empty() && s.ops().is_empty());
        let nt = |r: &Result<()>| matches!(r, Err(Error::NotTraced(_)));
        assert!(got[..8].iter().all(nt), "{got:?}");
        assert_eq!(got[8].is_ok(), id == 2, "only SUNDA's slot is empty");
        assert_eq!(got[9], Ok(()));
        assert_eq!(got[10], Err(Error::InvalidArgument("engine config absent")));
    }
}

fn program_start_on(id: u32, m: &Trace<HeapMmio>, starts: &[u64; 5]) -> Result<()> {
    khal_tests::on_arch!(AnyArch::new(id).unwrap(), |A| (m: &'a Trace<HeapMmio> = m, starts: &'a [u64; 5] = starts) -> Result<()> {
        engine::program_start::<A, _>(m, DeviceAddr(0), starts)
    })
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
    assert_eq!(program_start_on(3, &m, &starts), Ok(()));
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
            program_start_on(id, &a, starts),
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
