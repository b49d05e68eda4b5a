//! The op tables every arch gets from its `EngineLeaves`: each
//! leaf slot's exact answer on each arch, before any access, and where each
//! `_init` orchestrator stops [002 §1, §3], [FACTS §13.4, §13.6, §13.11]; the
//! checked SP handle's windows [002 §2]. Fast where `engine_dispatch` (which
//! classifies the same slots) is slow: it is what `scripts/mutants.sh`'s engine
//! area runs for `engine/arch_ops.rs` and `engine/params.rs`.

use std::cell::RefCell;

use khal::engine::{
    self, EngInfo, EngineLeaves, EngineParams, HwDecodeImages, HwDecodeLeaves, PeParams,
    PoolingParams, SpHandle, SpRegs, Step, StpbOps,
};
use khal::{Cayman, Mariana, Sunda};
use khal::{DeviceAddr, Error, Mmio, Result};

/// Every access, in order: `(addr, Some(value))` for a write, `(addr, None)`
/// for a read (which answers 0).
#[derive(Default)]
struct Log(RefCell<Vec<(u64, Option<u32>)>>);

impl Mmio for Log {
    fn read32(&self, addr: DeviceAddr) -> Result<u32> {
        self.0.borrow_mut().push((addr.get(), None));
        Ok(0)
    }
    fn write32(&self, addr: DeviceAddr, value: u32) -> Result<()> {
        self.0.borrow_mut().push((addr.get(), Some(value)));
        Ok(())
    }
}

impl Log {
    fn take(&self) -> Vec<(u64, Option<u32>)> {
        std::mem::take(&mut *self.0.borrow_mut())
    }
}

/// The TPB memory handle the XT/NX windows are relative to.
const MEM: DeviceAddr = DeviceAddr(0x20_0000_0000);
const ENG: EngineParams = EngineParams {
    inst_debug_level: 8,
    ..EngineParams::new(DeviceAddr(0x1000), MEM)
};
const POOL: PoolingParams = PoolingParams {
    inst_debug_level: 8,
    ..PoolingParams::new(DeviceAddr(0x2000), MEM)
};
const PE: PeParams = PeParams::new(DeviceAddr(0x3000), MEM);
const SP: SpHandle = SpHandle {
    sp_mem: Some(DeviceAddr(0x4000)),
    sp_regs: Some(DeviceAddr(0x5000)),
    ens_regs: Some(DeviceAddr(0x8000)),
    inst_debug_level: 8,
};

// The answers every arch shares [FACTS §13.6, §13.11].
const UCODE_SEQ_INIT: Error =
    Error::NotTraced("ucode_seq_init: capacities, destinations, init_nx_registers");
const DMA_INIT: Error = Error::NotTraced("dma_init: the rx/tx triple -> register map");
const RELEASE_RUN_STALL: Error = Error::NotTraced("pe/act/dve release_run_stall offset (only MED)");
const PE_REGS_INIT: Error = Error::NotTraced("pe regs_init: +0xA00 masks and the rest");
const ACT_REGS_INIT: Error =
    Error::NotTraced("act regs_init: +0xA04 masks and sources, ACT level set");

/// One slot called with its params.
type Op = Box<dyn FnOnce(&Log) -> Result<()>>;

/// Runs `op` on a fresh log: its answer and every access it made.
fn run(op: impl FnOnce(&Log) -> Result<()>) -> (Result<()>, Vec<(u64, Option<u32>)>) {
    let m = Log::default();
    let r = op(&m);
    (r, m.take())
}

/// The untraced leaves: each answers its named `NotTraced` (the arch's own
/// constant, or the one every arch shares [FACTS §13.6, §13.11]) and touches
/// nothing.
fn untraced_leaves<A>()
where
    A: EngineLeaves + StpbOps,
{
    use Step::*;
    let sp = || SpHandle::check(Some(&SP)).unwrap();
    let cases: [(&str, Result<()>, Op); 19] = [
        (
            "dve_regs_init",
            Err(A::LEAVES.dve_regs_init),
            Box::new(|m| A::dve_step(m, RegsInit, &ENG)),
        ),
        (
            "dve_ucode_seq_init",
            Err(UCODE_SEQ_INIT),
            Box::new(|m| A::dve_step(m, UcodeSeqInit, &ENG)),
        ),
        (
            "dve_release_run_stall",
            Err(RELEASE_RUN_STALL),
            Box::new(|m| A::dve_step(m, ReleaseRunStall, &ENG)),
        ),
        (
            "dve_dma_init",
            Err(DMA_INIT),
            Box::new(|m| A::dve_step(m, DmaInit, &ENG)),
        ),
        (
            "act_regs_init",
            Err(ACT_REGS_INIT),
            Box::new(|m| A::act_step(m, RegsInit, &ENG)),
        ),
        (
            "act_ucode_seq_init",
            Err(UCODE_SEQ_INIT),
            Box::new(|m| A::act_step(m, UcodeSeqInit, &ENG)),
        ),
        (
            "act_release_run_stall",
            Err(RELEASE_RUN_STALL),
            Box::new(|m| A::act_step(m, ReleaseRunStall, &ENG)),
        ),
        (
            "act_dma_init",
            Err(DMA_INIT),
            Box::new(|m| A::act_step(m, DmaInit, &ENG)),
        ),
        (
            "pe_regs_init",
            Err(PE_REGS_INIT),
            Box::new(|m| A::pe_step(m, RegsInit, &PE)),
        ),
        (
            "pe_ucode_seq_init",
            Err(UCODE_SEQ_INIT),
            Box::new(|m| A::pe_step(m, UcodeSeqInit, &PE)),
        ),
        (
            "pe_release_run_stall",
            Err(RELEASE_RUN_STALL),
            Box::new(|m| A::pe_step(m, ReleaseRunStall, &PE)),
        ),
        (
            "pe_dma_init",
            Err(DMA_INIT),
            Box::new(|m| A::pe_step(m, DmaInit, &PE)),
        ),
        (
            "pooling_regs_init",
            Err(A::LEAVES.pooling_regs_init),
            Box::new(|m| A::pooling_step(m, RegsInit, &POOL)),
        ),
        (
            "pooling_ucode_seq_init",
            Err(UCODE_SEQ_INIT),
            Box::new(|m| A::pooling_step(m, UcodeSeqInit, &POOL)),
        ),
        (
            "pooling_dma_init",
            Err(DMA_INIT),
            Box::new(|m| A::pooling_step(m, DmaInit, &POOL)),
        ),
        (
            "sp_regs_init",
            Err(A::LEAVES.sp_regs_init),
            Box::new(move |m| A::sp_step(m, RegsInit, sp())),
        ),
        (
            "sp_ucode_seq_init",
            Err(A::LEAVES.sp_ucode_seq_init),
            Box::new(move |m| A::sp_step(m, UcodeSeqInit, sp())),
        ),
        (
            "sp_release_run_stall",
            Err(A::LEAVES.sp_release_run_stall),
            Box::new(move |m| A::sp_step(m, ReleaseRunStall, sp())),
        ),
        (
            "sp_dma_init",
            Err(A::LEAVES.sp_dma_init),
            Box::new(move |m| A::sp_step(m, DmaInit, sp())),
        ),
    ];
    for (name, want, op) in cases {
        assert!(matches!(want, Err(Error::NotTraced(_))), "{name}: {want:?}");
        assert_eq!(run(op), (want, vec![]), "{name}");
    }
    // A step that is not the engine's: refused, nothing touched.
    let not_a_step = Err(Error::InvalidArgument("step not in this engine's init"));
    let others: [Op; 4] = [
        Box::new(|m| A::dve_step(m, Q7UcodeEngInit, &ENG)),
        Box::new(|m| A::act_step(m, ReleaseSeqRunStall, &ENG)),
        Box::new(|m| A::pooling_step(m, ReleaseRunStall, &POOL)),
        Box::new(move |m| A::sp_step(m, HwDecodeTableInit, sp())),
    ];
    for op in others {
        assert_eq!(run(op), (not_a_step, vec![]));
    }
}

#[test]
fn untraced_leaves_answer_their_named_not_traced_before_any_access() {
    untraced_leaves::<Sunda>();
    untraced_leaves::<Cayman>();
    untraced_leaves::<Mariana>();
}

#[test]
fn only_sunda_lacks_the_hw_decode_silicon() {
    // [FACTS §3.3, §13.6]: SUNDA's HW-decode slots are no-ops; CAYMAN and
    // MARIANA run the program.
    assert_eq!(
        <Sunda as EngineLeaves>::LEAVES.hw_decode,
        HwDecodeLeaves::NoOp
    );
    assert_eq!(
        <Cayman as EngineLeaves>::LEAVES.hw_decode,
        HwDecodeLeaves::Program
    );
    assert_eq!(
        <Mariana as EngineLeaves>::LEAVES.hw_decode,
        HwDecodeLeaves::Program
    );
    // It is what decides the inits' steps.
    assert_eq!(<Sunda as StpbOps>::HW_DECODE, HwDecodeLeaves::NoOp);
    assert_eq!(<Cayman as StpbOps>::HW_DECODE, HwDecodeLeaves::Program);
}

/// Each `_init` orchestrator stops at its first step, `regs_init`, whose
/// answer it returns, before any access [FACTS §13.6].
fn inits_stop_at_regs_init<A>()
where
    A: EngineLeaves + StpbOps,
{
    assert_eq!(
        run(|m| engine::dve_init::<A, _>(m, Some(&ENG))),
        (Err(A::LEAVES.dve_regs_init), vec![])
    );
    assert_eq!(
        run(|m| engine::act_init::<A, _>(m, Some(&ENG))),
        (Err(ACT_REGS_INIT), vec![])
    );
    assert_eq!(
        run(|m| engine::pe_init::<A, _>(m, &PE)),
        (Err(PE_REGS_INIT), vec![])
    );
    assert_eq!(
        run(|m| engine::pooling_init::<A, _>(m, Some(&POOL))),
        (Err(A::LEAVES.pooling_regs_init), vec![])
    );
}

#[test]
fn each_init_stops_at_its_regs_init_answer() {
    inits_stop_at_regs_init::<Sunda>();
    inits_stop_at_regs_init::<Cayman>();
    inits_stop_at_regs_init::<Mariana>();
}

#[test]
fn pooling_run_stall_slots_write_the_facts_13_4_programs() {
    // [FACTS §13.1, §13.4]: the POOL window xt_local(mem, 2, 1) is mem +
    // 0x296_0000 on SUNDA and mem + 0x306_0000 on CAYMAN/MARIANA; the
    // sequencer release writes 0 at NX +0x04 (SUNDA) / +0x00, the Q7 release
    // 0 at +0x3000 (a no-op on SUNDA).
    let mem = MEM.get();
    fn seq<A: StpbOps>() -> (Result<()>, Vec<(u64, Option<u32>)>) {
        run(|m| A::pooling_step(m, Step::ReleaseSeqRunStall, &POOL))
    }
    fn eng<A: StpbOps>() -> (Result<()>, Vec<(u64, Option<u32>)>) {
        run(|m| A::pooling_step(m, Step::ReleaseEngRunStall, &POOL))
    }
    assert_eq!(seq::<Sunda>(), (Ok(()), vec![(mem + 0x296_0004, Some(0))]));
    assert_eq!(eng::<Sunda>(), (Ok(()), vec![]));
    for (s, e) in [
        (seq::<Cayman>(), eng::<Cayman>()),
        (seq::<Mariana>(), eng::<Mariana>()),
    ] {
        assert_eq!(s, (Ok(()), vec![(mem + 0x306_0000, Some(0))]));
        assert_eq!(e, (Ok(()), vec![(mem + 0x306_3000, Some(0))]));
    }
}

#[test]
fn sunda_hw_decode_slots_succeed_without_an_access_even_with_images() {
    // SUNDA has no HW-decode silicon: DVE's leaf is a stub returning 0, the
    // PE/ACT/POOL slots the no-op default [002 §3], [FACTS §3.3, §13.6].
    let cam = [0u8; 0x40];
    let profile = [0u8; 0x80];
    let info = EngInfo {
        hw_decode: Some(HwDecodeImages {
            cam: &cam,
            profile: &profile,
        }),
        disable_hw_decode: 1,
    };
    let eng = EngineParams { info, ..ENG };
    let pe = PeParams { info, ..PE };
    let pool = PoolingParams { info, ..POOL };
    let none = (Ok(()), vec![]);
    assert_eq!(
        run(|m| Sunda::dve_step(m, Step::HwDecodeTableInit, &eng)),
        none
    );
    assert_eq!(
        run(|m| Sunda::act_step(m, Step::HwDecodeTableInit, &eng)),
        none
    );
    assert_eq!(
        run(|m| Sunda::pe_step(m, Step::HwDecodeTableInit, &pe)),
        none
    );
    assert_eq!(
        run(|m| Sunda::pooling_step(m, Step::HwDecodeTableInit, &pool)),
        none
    );
    // CAYMAN runs the program with the same images (its trace is pinned in
    // `engine_leaves`): it writes.
    let (r, w) = run(|m| Cayman::dve_step(m, Step::HwDecodeTableInit, &eng));
    assert_eq!(r, Ok(()));
    assert!(!w.is_empty());
}

#[test]
fn a_checked_sp_handle_yields_its_two_windows() {
    // [002 §2]: sp_init reads sp_mem_handle (+0x00) and sp_regs (+0x08), both
    // present after the check.
    let c = SpHandle::check(Some(&SP)).unwrap();
    assert_eq!(*c, SP);
    assert_eq!(
        c.regs(),
        Ok(SpRegs {
            handle: &SP,
            sp_mem: DeviceAddr(0x4000),
            sp_regs: DeviceAddr(0x5000),
        })
    );
    // The check refuses either window absent, and a level above 8.
    for h in [
        SpHandle { sp_mem: None, ..SP },
        SpHandle {
            sp_regs: None,
            ..SP
        },
        SpHandle {
            sp_mem: None,
            sp_regs: None,
            ..SP
        },
    ] {
        assert_eq!(
            SpHandle::check(Some(&h)),
            Err(Error::InvalidArgument("sp_mem_handle or sp_regs absent"))
        );
    }
    assert_eq!(
        SpHandle::check(Some(&SpHandle {
            inst_debug_level: 9,
            ..SP
        })),
        Err(Error::InvalidArgument("inst_debug_level > 8"))
    );
}
