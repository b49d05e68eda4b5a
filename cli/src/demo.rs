//! `khal demo`: a bring-up on the built-in device model, as a test rig does
//! it, with traffic, checks and a summary. No hardware, no setup.
//!
//! Steps, in order:
//! 1. bind the arch at run time ([`khal::AnyArch`] from the validated id);
//! 2. `stpb_init` with valid configs [002 §3], [FACTS §13.6]: each engine's
//!    init runs its steps in order and stops at the first whose program is
//!    not traced (on every arch today `pooling_init.regs_init`), before it
//!    writes; the demo reports where and why, then runs the §13 leaves the
//!    sources give whole on the model's XT/NX windows and reads the model back
//!    (program_start, the POOL run-stall releases, disable_hw_decode, the DGE
//!    carveout, a TopSP doorbell), each line naming what is not traced where
//!    it is not;
//! 3. the TPB's 10-queue notification engine through `sp_init(nt = true,
//!    init = false)` (the SP's notific init [002 §2]) and a single-queue
//!    TopSP engine (`NotificEngine::init` with 1 queue) [004 §2];
//! 4. the DVE tables loaded through the DMA model [000 §4]: caller tables are
//!    deterministic DEMO CONTENT (the default tables are not traced), the
//!    parameter RAM is the default one; a second load is a no-op;
//! 5. on MARIANA: every MSI-X vector masked then unmasked, a cause latched by
//!    the model read back [004 §4];
//! 6. 11 NQs (10 + 1) configured and enabled on allocator DMA buffers attached
//!    to the model; the model posts notifications in bursts while the host
//!    drains them (`--mode phase|tail`) [004 §3]; every notification is checked
//!    once and in order against the model's payload sequence numbers;
//! 7. every NQ reset (quiesce) at the end.
//!
//! Device block bases are demo choices (the real ones are per device).
//! MMIO is counted with [`Counting`]; head-register writes by a small
//! wrapper that names each write through the NOTIFIC description.
//!
//! Faults (`--fault`), injected when half the notifications are handed to
//! the model, on TPB queue 0 (or the whole device for `gone`); each ends in the typed error
//! the HAL (or the demo's own bounded wait) returns, within the NQ budget of
//! simulated time (instant in wall time):
//!
//! | fault | tail mode | phase mode |
//! | --- | --- | --- |
//! | `stall` | `timeout: device accepting notifications on an empty NQ` | same |
//! | `lie` (tail reads `0x18`) | `device fault: tail 0x18 is not a multiple of the 16-byte entry` | same (phase mode reads the tail only in the final reset, whose wait names the lie at once) |
//! | `slow` (phase lands 2 s late, budget 1 s) | `timeout: nq notification arrival` | `timeout: posted notifications landing (phase bits)` |
//! | `gone` (reads all ones) | `device fault: register at … reads all ones (device gone)` | same (head writes are lost, the ring fills and the device takes nothing; before waiting for it, the demo reads the queue's tail once, `NqRing::tail_offset`, phase mode's liveness probe) |
//!
//! With `--json`, a failed run still prints its JSON summary (the counts up to
//! the failure) with the error in `"error"`, and exits 1.

use std::cell::Cell;
use std::fmt::Write as _;
use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Instant;

use clap::{Args, ValueEnum};
use khal::dma::{DmaAllocator, MemLocation};
use khal::dve::{DveLoader, DvePlacement, DveTableSet, LoadOutcome, DVE_QUEUE_NAME};
use khal::engine::{
    self, program_start, ArchFn, EngineOps, EngineParams, PeParams, PoolingParams, SpHandle, Step,
    StepLog, StpbConfig, SKIP,
};
use khal::family::{Arch, Doorbell, Gated, NxLocal, Offset};
use khal::family::{OWNER_TOPSP, OWNER_TPB};
use khal::intc::{ErrtrigLine, Intc};
use khal::notific::{
    BpMode, ConsumeKind, EngineConfig, Flavour, NotificBlock, NotificBlocks, NotificEngine,
    NqConfig, NqEntry, NqRing, NOTIFIC, NOTIFIC_BLOCK_BYTES,
};
use khal::std_adapter::model::dma_engine::{DmaEngineModel, ModelDmaQueue};
use khal::std_adapter::model::intc::{ErrtrigModel, MsixModel};
use khal::std_adapter::model::notific::{entry_seq, NotificModel, QueueFault};
use khal::std_adapter::model::tpb::{StartRegs, TpbWindow, XtLayout};
use khal::std_adapter::model::DeviceModel;
use khal::std_adapter::{Counting, DmaBuf, SimDelay};
use khal::std_adapter::{HostAllocator, Identity};
use khal::wait::{poll_until, Budget};
use khal::Fault;
use khal::{AnyArch, ArchId, Cayman, DeviceAddr, Error, Mariana, Mmio, Sunda};

use crate::{ArchArg, Failed};

/// Demo base of the TPB's notification (ENS) block.
const TPB_ENS: DeviceAddr = DeviceAddr(0x1000_0000);
/// Demo base of the TopSP's notification block.
const TOPSP_ENS: DeviceAddr = DeviceAddr(0x1001_0000);
/// Demo bases of the TPB engine windows (POOL, ACT, DVE, PE, SP mem, SP regs).
const WINDOWS: [(&str, DeviceAddr); 6] = [
    ("tpb.pool", DeviceAddr(0x1100_0000)),
    ("tpb.act", DeviceAddr(0x1101_0000)),
    ("tpb.dve", DeviceAddr(0x1102_0000)),
    ("tpb.pe", DeviceAddr(0x1103_0000)),
    ("tpb.sp_mem", DeviceAddr(0x1104_0000)),
    ("tpb.sp_regs", DeviceAddr(0x1105_0000)),
];
const WINDOW_SIZE: u64 = 0x1_0000;
/// Demo TPB memory handle (`tpb_mem_handle`): the XT/NX windows of
/// [FACTS §13.1] are offsets from it.
const TPB_MEM: DeviceAddr = DeviceAddr(0x4000_0000);
/// Bytes of one XT/NX window mounted for the demo.
const XT_WINDOW_SIZE: u64 = 0x1_0000;
/// Demo bases of the MARIANA MSI-X block and errtrig block 0.
const MSIX_BASE: DeviceAddr = DeviceAddr(0x2000_0000);
const ERRTRIG_BASE: DeviceAddr = DeviceAddr(0x2010_0000);

/// Entries per NQ ring (1 KiB rings: many wraps even on short runs).
const RING_ENTRIES: u32 = 64;
const RING_BYTES: u32 = RING_ENTRIES * 16;
/// Largest burst the model posts at once on one queue.
const MAX_BURST: u64 = 48;
/// The lane (TPB queue 0, the first to get a burst) faults are injected on.
const FAULT_LANE: usize = 0;
/// The waits' budget: the notes' 100 µs × 10000 [004 §3].
const BUDGET: Budget = Budget::NQ_DEFAULT;
/// The misaligned tail the `lie` fault reports.
const LIE_TAIL: u32 = 0x18;
/// The most notifications one run posts: 10^8, about a minute and a half of
/// a release build on the model (it drains about a million a second). More
/// would run for hours with no output off a terminal.
pub const MAX_NOTIFICATIONS: u64 = 100_000_000;

const AFTER_HELP: &str = "\
Everything runs on the built-in device model (simulated time): no hardware,
no setup. The summary shows posted/drained/lost/duplicated; --json prints one
object instead. A --fault ends in the typed error it causes and exit 1.

Examples:
  cargo run --release -p khal-cli -- demo --arch cayman
  khal demo --arch mariana --mode tail --notifications 5000 --json
  khal demo --arch sunda --fault stall";

/// Arguments of `khal demo`.
#[derive(Debug, Args)]
#[command(
    long_about = "Bring up an arch on the built-in device model the way a test rig does: \
bind the arch, stpb_init, a 10-queue TPB notification engine and a single-queue TopSP \
engine, the DVE tables (demo content), MSI-X masks on MARIANA; then the model posts \
notifications in bursts while the host drains 11 NQs, checking every one once and in order.",
    after_help = AFTER_HELP
)]
pub struct DemoArgs {
    /// The arch to bring up.
    #[arg(long, value_enum)]
    pub arch: ArchArg,
    /// Notifications the model posts in total (at most 100000000).
    #[arg(long, default_value_t = 100_000, value_parser = notifications)]
    pub notifications: u64,
    /// How the host learns what is new: phase bits in memory (no register
    /// read) or the tail register.
    #[arg(long, value_enum, default_value = "phase")]
    pub mode: ModeArg,
    /// Print one JSON object instead of the summary.
    #[arg(long)]
    pub json: bool,
    /// Inject a device fault half-way; the demo reports the typed error and exits 1.
    #[arg(long, value_enum)]
    pub fault: Option<FaultArg>,
    /// Run through the vendor driver's interface: `fake` (the in-process
    /// fake driver) or a node such as `/dev/neuron0` (see `demo_device.rs`).
    #[arg(long, value_name = "fake|/dev/neuronN")]
    pub device: Option<String>,
}

/// `--mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ModeArg {
    /// Walk the phase bits (host memory, no register read).
    Phase,
    /// Read the tail register, then wait for the last entry to land.
    Tail,
}

/// `--fault`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FaultArg {
    /// TPB queue 0 stops posting; its tail never moves again.
    Stall,
    /// TPB queue 0's tail register reads a misaligned value.
    Lie,
    /// TPB queue 0's phase bytes land 2 s (simulated) late; the budget is 1 s.
    Slow,
    /// The device is gone: every register read returns all ones.
    Gone,
}

impl FaultArg {
    fn name(self) -> &'static str {
        match self {
            FaultArg::Stall => "stall",
            FaultArg::Lie => "lie",
            FaultArg::Slow => "slow",
            FaultArg::Gone => "gone",
        }
    }
}

/// An [`Mmio`] wrapper counting writes to any NQ's `nq_head_ptr` of the
/// notification blocks it knows (named through the NOTIFIC description).
struct HeadWrites<M> {
    inner: M,
    blocks: [DeviceAddr; 2],
    count: Cell<u64>,
}

impl<M: Mmio> HeadWrites<M> {
    fn is_head(&self, addr: DeviceAddr) -> bool {
        self.blocks.iter().any(|b| {
            addr.get()
                .checked_sub(b.get())
                .filter(|off| *off < NOTIFIC_BLOCK_BYTES)
                .and_then(|off| NOTIFIC.lookup(off))
                .is_some_and(|n| n.reg == "nq_head_ptr")
        })
    }
}

impl<M: Mmio> Mmio for HeadWrites<M> {
    fn read32(&self, addr: DeviceAddr) -> khal::Result<u32> {
        self.inner.read32(addr)
    }
    fn write32(&self, addr: DeviceAddr, value: u32) -> khal::Result<()> {
        if self.is_head(addr) {
            self.count.set(self.count.get() + 1);
        }
        self.inner.write32(addr, value)
    }
}

/// The MMIO stack every HAL call of the demo goes through.
type Meter<'m> = Counting<HeadWrites<&'m DeviceModel>>;

/// One NQ the host drains, a ring of kind `K` (`--mode`).
struct Lane<'b, K: ConsumeKind> {
    /// 0 = the TPB engine, 1 = the TopSP engine.
    engine: usize,
    base: DeviceAddr,
    idx: u32,
    ring: NqRing<'b, &'b DmaBuf, &'b Meter<'b>, K>,
    /// The model's sequence number expected next.
    next_seq: u64,
    /// Entries the model wrote (accepted) so far.
    accepted: u64,
    /// Entries the host received.
    received: u64,
    /// Entries the model still has to post (back-pressure).
    backlog: u64,
}

/// What the demo measured.
#[derive(Debug, Default)]
struct Stats {
    posted: u64,
    drained: u64,
    lost: u64,
    duplicated: u64,
    misrouted: u64,
    wraps: u64,
    drain_calls: u64,
    empty_polls: u64,
    drain_mmio_reads: u64,
}

/// What the bring-up steps reported.
#[derive(Debug, Default)]
struct Bringup {
    stpb: String,
    /// The §13 engine bring-up, one `(what, outcome)` per step.
    engine: Vec<(String, String)>,
    dve: String,
    dve_fingerprint: String,
    dve_tables: usize,
    dve_bytes: u32,
    intc: Option<String>,
}

/// A deterministic xorshift64 (demo content and burst sizes; no crate needed).
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| (self.next() >> 24) as u8).collect()
    }
}

fn post<K: ConsumeKind>(dev: &DeviceModel, lane: &mut Lane<'_, K>) -> khal::Result<u64> {
    let want = u32::try_from(lane.backlog).unwrap_or(u32::MAX);
    let n = dev
        .with_block(lane.base, |nm: &mut NotificModel, bus| {
            nm.post(bus, lane.idx, want)
        })
        .ok_or(Error::InvalidArgument("demo: notific model not mounted"))??;
    let n = u64::from(n);
    lane.backlog -= n;
    lane.accepted += n;
    Ok(n)
}

/// Drain `lane` until an empty poll, checking every entry.
fn drain_lane<K: ConsumeKind>(
    dev: &DeviceModel,
    meter: &Meter<'_>,
    lane: &mut Lane<'_, K>,
    buf: &mut [NqEntry],
    st: &mut Stats,
) -> khal::Result<()> {
    let mut delay = SimDelay::new(dev);
    loop {
        let phase = lane.ring.phase();
        let reads = meter.reads();
        let n = lane.ring.drain_with(&mut delay, buf)?;
        st.drain_mmio_reads += meter.reads() - reads;
        st.drain_calls += 1;
        if lane.ring.phase() != phase {
            st.wraps += 1;
        }
        if n == 0 {
            st.empty_polls += 1;
            return Ok(());
        }
        for e in buf.iter().take(n) {
            if u32::from(e.bytes()[0]) != lane.idx {
                st.misrouted += 1;
            }
            let seq = entry_seq(e.bytes());
            if seq == lane.next_seq {
                lane.next_seq += 1;
            } else if seq > lane.next_seq {
                st.lost += seq - lane.next_seq;
                lane.next_seq = seq + 1;
            } else {
                st.duplicated += 1;
            }
        }
        lane.received += n as u64;
        st.drained += n as u64;
    }
}

fn inject<K: ConsumeKind>(dev: &DeviceModel, fault: FaultArg, lane: &Lane<'_, K>) {
    let f = match fault {
        FaultArg::Gone => {
            dev.set_gone(true);
            return;
        }
        FaultArg::Stall => QueueFault::Stall,
        FaultArg::Lie => QueueFault::LieTail(LIE_TAIL),
        FaultArg::Slow => QueueFault::SlowDma {
            delay_ns: 2 * BUDGET.total_us() * 1000,
        },
    };
    dev.with_block(lane.base, |nm: &mut NotificModel, _| {
        nm.set_fault(lane.idx, f)
    });
}

/// One TPB's engine parameters for the demo's `stpb_init` (every engine
/// present, the SP's notification block and register bring-up on, back-pressure
/// mode 1: none),
/// shared by the device model's demo and the vendor driver's.
pub(crate) struct TpbParts {
    pool: PoolingParams<'static>,
    act: EngineParams<'static>,
    dve: EngineParams<'static>,
    pe: PeParams<'static>,
    pub(crate) sp: SpHandle,
}

impl TpbParts {
    /// The `[pool, act, dve, pe]` register windows over the TPB memory `mem`,
    /// and the SP's `[sp_mem, sp_regs, ens_regs]`.
    pub(crate) fn new(engines: [DeviceAddr; 4], mem: DeviceAddr, sp: [DeviceAddr; 3]) -> Self {
        let [pool, act, dve, pe] = engines;
        let [sp_mem, sp_regs, ens_regs] = sp;
        TpbParts {
            pool: PoolingParams::new(pool, mem),
            act: EngineParams::new(act, mem),
            dve: EngineParams::new(dve, mem),
            pe: PeParams::new(pe, mem),
            sp: SpHandle {
                sp_mem: Some(sp_mem),
                sp_regs: Some(sp_regs),
                ens_regs: Some(ens_regs),
                inst_debug_level: 0,
            },
        }
    }

    /// The `stpb_init` configuration over these parts.
    pub(crate) fn config(&self) -> StpbConfig<'_> {
        StpbConfig {
            pooling: &self.pool,
            act: &self.act,
            dve: &self.dve,
            pe: &self.pe,
            sp: &self.sp,
        }
    }
}
/// `stpb_init` with valid configs on the bound arch, then the TPB's
/// notification engine on `ens`, the SP's ENS block (the C `sp_init`'s `nt`
/// step, back-pressure mode 1: none).
fn bring_up_engines<'m>(
    arch: AnyArch,
    meter: &'m Meter<'m>,
    ens: &'m mut NotificBlock<'_>,
) -> khal::Result<(String, NotificEngine<'m, &'m Meter<'m>>)> {
    let [pool, act, dve, pe, sp_mem, sp_regs] = WINDOWS.map(|(_, b)| b);
    let parts = TpbParts::new([pool, act, dve, pe], TPB_MEM, [sp_mem, sp_regs, TPB_ENS]);
    let cfg = parts.config();
    // Each engine's init runs its §13 steps in order and stops at the first
    // one whose program is not traced, before it writes [FACTS §13.6].
    let mut ran: Vec<String> = Vec::new();
    let mut log = |e: khal::Engine, st: Step, _: khal::Result<()>| {
        let init = match e {
            khal::Engine::Pool => "pooling_init",
            khal::Engine::Act => "act_init",
            khal::Engine::Dve => "dve_init",
            khal::Engine::Pe => "pe_init",
            khal::Engine::Sp => "sp_init",
        };
        ran.push(format!("{init}.{}", st.name()));
    };
    let stpb = match arch.dispatch(StpbInitLogged(meter, &cfg, &mut log)) {
        Ok(()) => "ok".to_string(),
        Err(Error::NotTraced(what)) => format!(
            "stopped at {} (steps run: {}): not traced: {what}; the traced leaves run below",
            ran.last().map_or("the shim", String::as_str),
            ran.len()
        ),
        Err(e) => return Err(e),
    };
    let engine = NotificEngine::init(meter, ens, EngineConfig::tpb(BpMode::None))?;
    Ok((stpb, engine))
}

/// `stpb_init` on the arch an [`AnyArch`] is bound to.
pub(crate) struct StpbInitLogged<'a, M: ?Sized, L: ?Sized>(
    pub(crate) &'a M,
    pub(crate) &'a StpbConfig<'a>,
    pub(crate) &'a mut L,
);

impl<M: Mmio + ?Sized, L: StepLog + ?Sized> ArchFn for StpbInitLogged<'_, M, L> {
    type Output = khal::Result<()>;
    fn call<A: EngineOps>(self) -> khal::Result<()> {
        engine::stpb_init::<A, M, L>(self.0, self.1, self.2)
    }
}

/// The XT/NX window layout of `A` for the model: the run-stall, HW-decode
/// and launch registers the arch gives [FACTS §12.1, §13.4].
fn xt_layout<A: NxLocal>() -> XtLayout {
    let reg = |r: khal::Result<khal::regs::Reg>| r.ok().map(|r| r.offset());
    let gated = |g: khal::Result<Gated<khal::regs::Reg>>| match g {
        Ok(Gated::Present(r)) => Some(r.offset()),
        _ => None,
    };
    let nx = A::NX_LOCAL_REGS;
    let start = match (nx.start_addr_lo, nx.start_addr_hi, nx.start_ctrl) {
        (Ok(lo), Ok(hi), Ok(ctrl)) => Some(StartRegs {
            lo: lo.offset(),
            hi: hi.offset(),
            ctrl: ctrl.offset(),
        }),
        _ => None,
    };
    XtLayout {
        seq_release: reg(nx.release_run_stall),
        q7_release: gated(nx.q7_release_run_stall),
        hw_decode_control: gated(nx.hw_decode_control),
        start,
    }
}

/// The leaves of [FACTS §13] the sources give whole, run on the model's
/// XT/NX windows (mounted at the demo TPB memory handle) and checked by
/// reading the model back: program_start, the POOL run-stall releases,
/// disable_hw_decode, the DGE carveout, a TopSP doorbell. Each line says what
/// happened, or the typed answer naming what is not traced.
fn engine_leaves<A: EngineOps>(dev: &DeviceModel, meter: &Meter<'_>) -> Vec<(String, String)> {
    let mut lines = Vec::new();
    let layout = xt_layout::<A>();
    let names = ["xt.pe", "xt.act", "xt.pool", "xt.dve"];
    let mut windows = Vec::new();
    for (eng, name) in names.into_iter().enumerate() {
        if let Ok(o) = A::xt_local_reg_offset(eng as u32, OWNER_TPB) {
            let base = o.at(TPB_MEM);
            if dev
                .mount(base, TpbWindow::xt(name, XT_WINDOW_SIZE, layout))
                .is_ok()
            {
                windows.push((name, base));
            }
        }
    }
    if let Ok(o) = A::xt_local_reg_offset(4, OWNER_TOPSP) {
        let _ = dev.mount(o.at(TPB_MEM), TpbWindow::new("xt.topsp", XT_WINDOW_SIZE));
    }
    let show = |r: khal::Result<String>| match r {
        Ok(s) => s,
        Err(e) => e.to_string(),
    };
    let read = |base: DeviceAddr| {
        dev.with_block(base, |w: &mut TpbWindow, _| {
            (
                w.launches().to_vec(),
                w.seq_stalled(),
                w.q7_stalled(),
                w.hw_decode_disabled(),
            )
        })
    };
    let pool = windows
        .iter()
        .find(|(n, _)| *n == "xt.pool")
        .map(|(_, b)| *b);

    // program_start: POOL, ACT, PE, DVE launched, SP skipped [002 §4].
    let starts = [0x100, 0x200, 0x300, 0x400, SKIP];
    let r = program_start::<A, _>(meter, TPB_MEM, &starts).map(|()| {
        let got: Vec<String> = windows
            .iter()
            .filter_map(|(n, b)| read(*b).map(|st| format!("{n} {:x?}", st.0)))
            .collect();
        format!("launches read back: {}", got.join(", "))
    });
    lines.push(("program_start".to_string(), show(r)));

    // POOL: the sequencer, then the Q7 cores [FACTS §13.4].
    let r =
        engine::release_run_stall::<A, _>(meter, TPB_MEM, khal::Engine::Pool).map(|()| match pool
            .and_then(read)
        {
            Some((_, seq, q7, _)) => format!(
                "sequencer stalled: {}; q7 cores stalled: {}",
                seq.map_or("-".to_string(), |b| b.to_string()),
                q7.map_or("no register (the sequencer frees them)".to_string(), |m| {
                    format!("{m:#04x}")
                })
            ),
            None => "released".to_string(),
        });
    lines.push(("release_run_stall pool".to_string(), show(r)));

    let r = engine::pool_window::<A>(TPB_MEM)
        .and_then(|w| engine::disable_hw_decode::<A, _>(meter, w, 1))
        .map(|()| match pool.and_then(read).and_then(|st| st.3) {
            Some((d, reg)) => {
                format!("disabled: {d} (hw_decode_control {reg:#x}, other bits kept)")
            }
            None => "no-op on this arch (no HW-decode silicon)".to_string(),
        });
    lines.push(("disable_hw_decode".to_string(), show(r)));

    let r = engine::set_dge_carveout::<A, _>(meter, TPB_MEM, 0x100, 0x20)
        .map(|()| "size 0x100 at offset 0x20 written (0x00100002)".to_string());
    lines.push(("set_dge_carveout".to_string(), show(r)));

    let r = engine::topsp_doorbell::<A, _>(meter, TPB_MEM, Doorbell::HostTrigger, 1)
        .map(|a| format!("rung at tpb_mem + {:#x}", a.get() - TPB_MEM.get()));
    lines.push(("topsp host_trigger".to_string(), show(r)));
    lines
}

/// The DVE tables of tile 0: demo content, default parameter RAM; verified in
/// device memory; a second load must be a no-op.
fn load_dve<A: Arch>(dev: &DeviceModel, b: &mut Bringup) -> khal::Result<()> {
    let tile = A::tile(0)?;
    let (placement, note) = match DvePlacement::for_tile(tile) {
        Ok(p) => (p, String::new()),
        Err(Error::NotTraced(what)) => {
            let slow = A::DVE_TABLES
                .loads_control_slow
                .then_some(Offset(0x13_0000));
            let p = DvePlacement::for_tile_with(
                tile,
                Offset(0x10_0000),
                Offset(0x11_0000),
                slow,
                Offset(0x12_0000),
            )?;
            (
                p,
                format!("; {what}: demo offsets +0x100000/+0x110000/+0x120000 used"),
            )
        }
        Err(e) => return Err(e),
    };
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15 ^ A::ID as u64);
    let (op, cf, cs, dp) = (
        rng.bytes(512),
        rng.bytes(1024),
        rng.bytes(1024),
        rng.bytes(2048),
    );
    let set = if A::DVE_TABLES.loads_control_slow {
        DveTableSet::five(&op, &cf, &cs, &dp)
    } else {
        DveTableSet::four(&op, &cf, &dp)
    };
    let mut alloc = khal::std_adapter::ModelAllocator::with_default_arena(dev);
    let mut queue = ModelDmaQueue::mount(dev, DmaEngineModel::DEFAULT_BASE, DVE_QUEUE_NAME, 8)?;
    let mut loader = DveLoader::new();
    let mut delay = SimDelay::new(dev);
    let out = loader.load(&mut alloc, &mut queue, &mut delay, BUDGET, &placement, &set)?;
    let LoadOutcome::Loaded {
        fingerprint,
        tables,
        bytes,
        ..
    } = out
    else {
        return Err(Error::InvalidArgument("first DVE load was not a load"));
    };
    for (id, want) in set.iter() {
        let dst = placement
            .dest(id)
            .ok_or(Error::InvalidArgument("DVE table without destination"))?;
        let mut got = vec![0u8; want.len()];
        dev.read_mem(dst.get(), &mut got)?;
        if got != want {
            return Err(Error::DeviceFault(Fault::Other(
                "DVE table differs in device memory",
            )));
        }
    }
    let again = loader.load(&mut alloc, &mut queue, &mut delay, BUDGET, &placement, &set)?;
    let resident = matches!(again, LoadOutcome::AlreadyResident { .. });
    let hex = fingerprint.to_string();
    b.dve = format!(
        "{tables} tables on tile 0 (demo content + default param RAM), {bytes} bytes, verified \
         in device memory; reload: {}{note}",
        if resident {
            "already resident, no DMA"
        } else {
            "DMA again (unexpected)"
        }
    );
    b.dve_fingerprint = hex;
    b.dve_tables = tables;
    b.dve_bytes = bytes;
    Ok(())
}

/// MARIANA: mask and unmask every MSI-X vector; read back a cause the model
/// latched and one set through the HAL [004 §4].
fn intc_demo(dev: &DeviceModel, meter: &Meter<'_>) -> khal::Result<String> {
    dev.mount(MSIX_BASE, MsixModel::new())?;
    dev.mount(ERRTRIG_BASE, ErrtrigModel::new())?;
    let mut intc = Intc::<Mariana>::new(MSIX_BASE)?;
    intc.set_errtrig_base(0, ERRTRIG_BASE)?;
    let mask = || dev.with_block(MSIX_BASE, |b: &mut MsixModel, _| b.mask());
    for v in 0..=7 {
        intc.mask_vector(meter, v)?;
    }
    let masked = mask().unwrap_or(0);
    for v in 0..=7 {
        intc.unmask_vector(meter, v)?;
    }
    let unmasked = mask().unwrap_or(u32::MAX);
    let latched = ErrtrigLine::new(0, 1, 2, 31)?;
    dev.with_block(ERRTRIG_BASE, |e: &mut ErrtrigModel, _| e.raise(1, 2, 31));
    let cause = intc.read_cause(meter, latched)?;
    let set = ErrtrigLine::new(0, 0, 5, 3)?;
    intc.set_cause(meter, set)?;
    let cause2 = intc.read_cause(meter, set)?;
    if masked != 0xFF || unmasked != 0 || cause & (1 << 31) == 0 || cause2 & (1 << 3) == 0 {
        return Err(Error::DeviceFault(Fault::Other(
            "MSI-X mask or cause did not read back",
        )));
    }
    Ok(format!(
        "vectors 0..7 masked (mask {masked:#04x}) then unmasked ({unmasked:#04x}); cause \
         latched by the model read back {cause:#010x}; cause set by the HAL read back {cause2:#010x}"
    ))
}

/// The `schema` of `demo --json` (docs/CLI.md).
pub const SCHEMA: &str = "khal.demo/1";

/// `--notifications`: a count up to [`MAX_NOTIFICATIONS`] (a bad command
/// line otherwise, exit 2).
fn notifications(arg: &str) -> Result<u64, String> {
    let n = crate::decode::parse_addr(arg)
        .map_err(|_| format!("'{arg}' is not a count (decimal or 0x hex)"))?;
    if n > MAX_NOTIFICATIONS {
        return Err(format!(
            "at most {MAX_NOTIFICATIONS} notifications per run (about a minute and a half \
             of a release build; more would run for hours)"
        ));
    }
    Ok(n)
}

/// The checks clap cannot express; a failure is a bad command line (exit 2).
pub fn check_args(args: &DemoArgs) -> Result<(), String> {
    if args.fault.is_some() && args.device.is_some() {
        return Err("--fault runs on the built-in model only (no --device)".into());
    }
    if args.fault.is_some() && args.notifications == 0 {
        // The fault is injected between two bursts: with no traffic there is
        // nothing to inject it into, and its error could not be observed.
        return Err("--fault needs --notifications > 0".into());
    }
    Ok(())
}

/// The whole demo; returns the text (or JSON) to print. A failure is one
/// line; with `--json` it also prints the JSON summary holding the error.
pub fn run(args: &DemoArgs) -> Result<String, Failed> {
    if let Some(device) = &args.device {
        return crate::demo_device::run(args, device);
    }
    let arch = args.arch.id();
    let what = match args.fault {
        Some(f) => format!("demo --fault {} on {arch}", f.name()),
        None => format!("demo on {arch}"),
    };
    demo(args).map_err(|DemoError { error, summary }| {
        let msg = format!("{what}: {error}");
        let stdout = match (args.json, summary) {
            (false, _) => String::new(),
            (true, Some(mut v)) => {
                v["error"] = serde_json::json!({ "kind": "failed", "message": msg });
                format!("{v}\n")
            }
            // Failed before the traffic: what is known, and the error.
            (true, None) => format!(
                "{}\n",
                serde_json::json!({
                    "schema": SCHEMA,
                    "arch": arch.to_string(),
                    "mode": args.mode.name(),
                    "error": { "kind": "failed", "message": msg },
                })
            ),
        };
        Failed { msg, stdout }
    })
}

/// A failed demo: the error, and the JSON summary of the run up to it when
/// it failed during the traffic or the final resets.
struct DemoError {
    error: Error,
    summary: Option<serde_json::Value>,
}

impl From<Error> for DemoError {
    fn from(error: Error) -> DemoError {
        DemoError {
            error,
            summary: None,
        }
    }
}

fn demo(args: &DemoArgs) -> Result<String, DemoError> {
    let start = Instant::now();
    let id = args.arch.id();
    let dev = model()?;
    let meter: Meter<'_> = Counting::new(HeadWrites {
        inner: &dev,
        blocks: [TPB_ENS, TOPSP_ENS],
        count: Cell::new(0),
    });
    let blocks = NotificBlocks::new();
    let (mut tpb, mut topsp) = (blocks.take(TPB_ENS)?, blocks.take(TOPSP_ENS)?);
    let (arch, b, mut engines) = bring_up(id, &dev, &meter, &mut tpb, &mut topsp)?;
    let bufs = ring_buffers(&dev)?;
    let mut st = Stats::default();
    let run = Run {
        args,
        dev: &dev,
        meter: &meter,
        bufs: &bufs,
    };
    let (counts, outcome, rings) = match args.mode {
        ModeArg::Phase => run.lanes(NqConfig::phase, &mut engines, &mut st)?,
        ModeArg::Tail => run.lanes(NqConfig::tail, &mut engines, &mut st)?,
    };
    let report = Report {
        id,
        arch,
        mode: args.mode,
        b: &b,
        st: &st,
        reads: meter.reads(),
        writes: meter.writes(),
        traffic: counts,
        rings,
        sim_us: dev_now_us(&dev),
        elapsed_ms: start.elapsed().as_millis() as u64,
    };
    if args.json {
        let v = report.json();
        return match outcome {
            Ok(()) => Ok(format!("{v}\n")),
            Err(error) => Err(DemoError {
                error,
                summary: Some(v),
            }),
        };
    }
    outcome?;
    let ok = st.lost == 0 && st.duplicated == 0 && st.misrouted == 0 && st.drained == st.posted;
    let out = report.text(ok);
    if !ok {
        return Err(Error::DeviceFault(Fault::Other(
            "notifications lost, duplicated or misrouted",
        ))
        .into());
    }
    Ok(out)
}

/// Steps 6 and 7 on what the bring-up made.
struct Run<'a, 'b> {
    args: &'a DemoArgs,
    dev: &'a DeviceModel,
    meter: &'b Meter<'b>,
    bufs: &'b [Arc<DmaBuf>],
}

impl<'b> Run<'_, 'b> {
    /// The rings of `kind`'s kind (`--mode`), the traffic and the final
    /// resets: the traffic's counts, its outcome (a failure keeps the counts
    /// so far for the JSON summary) and the number of rings.
    fn lanes<K: ConsumeKind>(
        &self,
        kind: fn(u32) -> NqConfig<K>,
        engines: &mut [NotificEngine<'b, &'b Meter<'b>>; 2],
        st: &mut Stats,
    ) -> khal::Result<(Counts, khal::Result<()>, usize)> {
        let (dev, meter) = (self.dev, self.meter);
        let mut delay = SimDelay::new(dev);
        let mut lanes = lanes(dev, self.bufs, engines, kind, &mut delay)?;
        let setup = Counts::now(meter);
        let bar = progress(self.args);
        let mut outcome = traffic(
            self.args,
            dev,
            meter,
            &mut lanes,
            &mut delay,
            st,
            bar.as_ref(),
        );
        // The traffic's counts (the enables' resets wrote one head each before).
        let mut counts = setup.since(meter);
        if outcome.is_ok() {
            outcome = quiesce(&mut lanes, engines, &mut delay);
        }
        if outcome.is_err() {
            if let Some(p) = &bar {
                p.finish_and_clear();
            }
            // Failed mid-traffic: the counts up to the failure.
            counts = setup.since(meter);
        }
        st.lost += lanes
            .iter()
            .map(|l| l.accepted.saturating_sub(l.received))
            .sum::<u64>();
        Ok((counts, outcome, lanes.len()))
    }
}

/// The device model with the demo's blocks mounted: the two notification
/// blocks and the TPB engine windows.
fn model() -> khal::Result<DeviceModel> {
    let dev = DeviceModel::new();
    dev.mount(TPB_ENS, NotificModel::new(Flavour::TenQueue))?;
    dev.mount(TOPSP_ENS, NotificModel::new(Flavour::SingleQueue))?;
    for (name, base) in WINDOWS {
        dev.mount(base, TpbWindow::new(name, WINDOW_SIZE))?;
    }
    Ok(dev)
}

/// Steps 1-5: bind the arch, `stpb_init` and the engine leaves, the TopSP
/// engine, the DVE tables and (MARIANA) the INTC. The two notification
/// engines: the TPB's (on `tpb`, its block), then the TopSP's (on `topsp`).
fn bring_up<'m>(
    id: ArchId,
    dev: &DeviceModel,
    meter: &'m Meter<'m>,
    tpb: &'m mut NotificBlock<'_>,
    topsp: &'m mut NotificBlock<'_>,
) -> khal::Result<(AnyArch, Bringup, [NotificEngine<'m, &'m Meter<'m>>; 2])> {
    // 1-3: bind, engines.
    let arch = AnyArch::new(id as u32)?;
    let mut b = Bringup::default();
    let (stpb, tpb) = bring_up_engines(arch, meter, tpb)?;
    b.stpb = stpb;
    b.engine = match id {
        ArchId::Sunda => engine_leaves::<Sunda>(dev, meter),
        ArchId::Cayman => engine_leaves::<Cayman>(dev, meter),
        ArchId::Mariana => engine_leaves::<Mariana>(dev, meter),
    };
    let topsp = NotificEngine::init(meter, topsp, EngineConfig::top_sp(BpMode::None))?;

    // 4-5: DVE, INTC.
    match id {
        ArchId::Sunda => load_dve::<Sunda>(dev, &mut b)?,
        ArchId::Cayman => load_dve::<Cayman>(dev, &mut b)?,
        ArchId::Mariana => load_dve::<Mariana>(dev, &mut b)?,
    }
    if id == ArchId::Mariana {
        b.intc = Some(intc_demo(dev, meter)?);
    }
    Ok((arch, b, [tpb, topsp]))
}

/// Step 6's memory: 11 ring buffers from the host allocator, attached to the
/// model.
fn ring_buffers(dev: &DeviceModel) -> khal::Result<Vec<Arc<DmaBuf>>> {
    let mut alloc = HostAllocator::new(Identity);
    let mut bufs: Vec<Arc<DmaBuf>> = Vec::new();
    for _ in 0..11 {
        let buf = Arc::new(alloc.alloc(MemLocation::Host, RING_BYTES as usize, 4096)?);
        dev.attach_host(buf.clone());
        bufs.push(buf);
    }
    Ok(bufs)
}

/// Step 6's rings: queues 0-9 of the TPB engine and queue 0 of the TopSP
/// engine, each configured on its buffer and enabled.
fn lanes<'b, K: ConsumeKind>(
    dev: &DeviceModel,
    bufs: &'b [Arc<DmaBuf>],
    engines: &mut [NotificEngine<'b, &'b Meter<'b>>; 2],
    kind: fn(u32) -> NqConfig<K>,
    delay: &mut SimDelay<'_, DeviceModel>,
) -> khal::Result<Vec<Lane<'b, K>>> {
    let mut lanes: Vec<Lane<'_, K>> = Vec::new();
    for (i, buf) in bufs.iter().enumerate() {
        let (engine, base, idx) = if i < 10 {
            (0, TPB_ENS, i as u32)
        } else {
            (1, TOPSP_ENS, 0)
        };
        let e = engines
            .get_mut(engine)
            .ok_or(Error::InvalidArgument("demo engine"))?;
        let cfg = kind(RING_BYTES).with_budget(BUDGET);
        let mut ring = NqRing::configure_host(&**buf, e.queue(idx)?, cfg).map_err(Error::from)?;
        ring.enable(e, delay)?;
        let next_seq = dev
            .with_block(base, |nm: &mut NotificModel, _| nm.next_seq(idx))
            .unwrap_or(0);
        lanes.push(Lane {
            engine,
            base,
            idx,
            ring,
            next_seq,
            accepted: 0,
            received: 0,
            backlog: 0,
        });
    }
    Ok(lanes)
}

/// Step 6's traffic: until every notification is posted, the device posts a
/// burst on every queue (what back-pressure allows; `--fault` injected
/// half-way) and the host drains every queue, checking each entry. Every
/// wait for the device is bounded.
fn traffic<K: ConsumeKind>(
    args: &DemoArgs,
    dev: &DeviceModel,
    meter: &Meter<'_>,
    lanes: &mut [Lane<'_, K>],
    delay: &mut SimDelay<'_, DeviceModel>,
    st: &mut Stats,
    bar: Option<&indicatif::ProgressBar>,
) -> khal::Result<()> {
    let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
    let mut remaining = args.notifications;
    let mut injected = false;
    let mut buf = [NqEntry::default(); 128];
    let half = args.notifications / 2;
    while remaining > 0 || lanes.iter().any(|l| l.backlog > 0) {
        // The device posts a burst on every queue (what back-pressure allows).
        for (i, lane) in lanes.iter_mut().enumerate() {
            if remaining > 0 {
                let allocated = args.notifications - remaining;
                let mut burst = (1 + rng.next() % MAX_BURST).min(remaining);
                match args.fault {
                    // The fault lane's burst that crosses half-way is posted
                    // on a faulty device; the other lanes stop at half-way
                    // until then, so the fault is always exercised.
                    Some(f) if !injected && i == FAULT_LANE && allocated + burst > half => {
                        inject(dev, f, lane);
                        injected = true;
                    }
                    Some(_) if !injected => burst = burst.min(half - allocated),
                    _ => {}
                }
                lane.backlog += burst;
                remaining -= burst;
            }
            if lane.backlog == 0 {
                continue;
            }
            let n = post(dev, lane)?;
            st.posted += n;
            if n == 0 && lane.received == lane.accepted {
                // An empty ring and a device that takes nothing. Phase mode
                // has read no register yet: probe the device once (a gone
                // device reads all ones, a lying tail fails its checks) so the
                // fault is named at once rather than after the budget.
                lane.ring.tail_offset()?;
                // A live device that takes nothing: wait (budget).
                poll_until(
                    delay,
                    BUDGET,
                    "device accepting notifications on an empty NQ",
                    || {
                        let n = post(dev, lane)?;
                        st.posted += n;
                        Ok(n > 0)
                    },
                )?;
            }
        }
        // The host drains every queue; what the device says it wrote but the
        // host cannot see yet is waited for (budget).
        for lane in lanes.iter_mut() {
            drain_lane(dev, meter, lane, &mut buf, st)?;
            if lane.received < lane.accepted {
                poll_until(
                    &mut SimDelay::new(dev),
                    BUDGET,
                    "posted notifications landing (phase bits)",
                    || {
                        drain_lane(dev, meter, lane, &mut buf, st)?;
                        Ok(lane.received >= lane.accepted)
                    },
                )?;
            }
        }
        if let Some(p) = bar {
            p.set_position(st.drained);
        }
    }
    if let Some(p) = bar {
        p.finish_and_clear();
    }
    Ok(())
}

/// Step 7: quiesce every queue.
fn quiesce<'b, K: ConsumeKind>(
    lanes: &mut [Lane<'b, K>],
    engines: &mut [NotificEngine<'b, &'b Meter<'b>>; 2],
    delay: &mut SimDelay<'_, DeviceModel>,
) -> khal::Result<()> {
    for lane in lanes.iter_mut() {
        let e = engines
            .get_mut(lane.engine)
            .ok_or(Error::InvalidArgument("demo engine"))?;
        lane.ring.reset(e, delay)?;
    }
    Ok(())
}

/// MMIO reads, writes and NQ head writes: totals at a point, or the
/// difference since one.
#[derive(Debug, Clone, Copy)]
struct Counts {
    reads: u64,
    writes: u64,
    heads: u64,
}

impl Counts {
    fn now(meter: &Meter<'_>) -> Counts {
        Counts {
            reads: meter.reads(),
            writes: meter.writes(),
            heads: meter.inner().count.get(),
        }
    }

    /// What `meter` counted since `self`.
    fn since(self, meter: &Meter<'_>) -> Counts {
        let now = Counts::now(meter);
        Counts {
            reads: now.reads - self.reads,
            writes: now.writes - self.writes,
            heads: now.heads - self.heads,
        }
    }
}

/// What a run prints: the bring-up, the traffic's checks and counts.
struct Report<'a> {
    id: ArchId,
    arch: AnyArch,
    mode: ModeArg,
    b: &'a Bringup,
    st: &'a Stats,
    /// MMIO reads and writes in all.
    reads: u64,
    writes: u64,
    /// MMIO and head writes of the traffic.
    traffic: Counts,
    rings: usize,
    sim_us: u64,
    elapsed_ms: u64,
}

impl Report<'_> {
    /// The `--json` summary (schema [`SCHEMA`]).
    fn json(&self) -> serde_json::Value {
        let (b, st) = (self.b, self.st);
        serde_json::json!({
            "schema": SCHEMA,
            "arch": self.id.to_string(),
            "mode": self.mode.name(),
            "posted": st.posted,
            "drained": st.drained,
            "lost": st.lost,
            "duplicated": st.duplicated,
            "misrouted": st.misrouted,
            "wraps": st.wraps,
            "drain_calls": st.drain_calls,
            "empty_polls": st.empty_polls,
            "non_empty_drains": st.drain_calls - st.empty_polls,
            "mmio_reads": self.reads,
            "mmio_writes": self.writes,
            "traffic_mmio_reads": self.traffic.reads,
            "traffic_mmio_writes": self.traffic.writes,
            "drain_mmio_reads": st.drain_mmio_reads,
            "head_writes": self.traffic.heads,
            "rings": self.rings,
            "ring_entries": RING_ENTRIES,
            "stpb_init": b.stpb,
            "engine_bringup": b.engine.iter().map(|(w, o)| serde_json::json!({"step": w, "outcome": o})).collect::<Vec<_>>(),
            "dve": {
                "tables": b.dve_tables,
                "bytes": b.dve_bytes,
                "sha256": b.dve_fingerprint,
                "content": "demo",
            },
            "intc": b.intc,
            "sim_time_us": self.sim_us,
            "elapsed_ms": self.elapsed_ms,
        })
    }

    /// The summary on a terminal; `ok`: every notification received once and
    /// in order.
    fn text(&self, ok: bool) -> String {
        let (id, b, st) = (self.id, self.b, self.st);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "khal demo: {id} on the built-in device model (block bases are demo choices)"
        );
        let _ = writeln!(
            out,
            "  bind       {:?} from arch id {}",
            self.arch, id as u32
        );
        let _ = writeln!(out, "  stpb_init  {}", b.stpb);
        for (what, outcome) in &b.engine {
            let _ = writeln!(out, "             {what}: {outcome}");
        }
        let _ = writeln!(
            out,
            "  notific    TPB engine: 10 queues (sp_init); TopSP engine: 1 queue; bp mode 1"
        );
        let _ = writeln!(out, "  dve        {}", b.dve);
        let _ = writeln!(out, "             sha256 {}", b.dve_fingerprint);
        match &b.intc {
            Some(i) => {
                let _ = writeln!(out, "  intc       {i}");
            }
            // Only MARIANA's INTC leaves are in the notes; khal does not build
            // `Intc` for the other two (`Intc<Cayman>` does not compile) [FACTS §7].
            None => {
                let _ = writeln!(
                    out,
                    "  intc       skipped: {id}'s INTC is not traced in the notes (only MARIANA's is)"
                );
            }
        }
        let _ = writeln!(
            out,
            "  rings      {} NQs x {RING_ENTRIES} entries on allocator DMA buffers, {} mode",
            self.rings,
            self.mode.name()
        );
        let _ = writeln!(
            out,
            "  traffic    posted = {}, drained = {}, lost = {}, duplicated = {}, wraps = {}",
            st.posted, st.drained, st.lost, st.duplicated, st.wraps
        );
        let _ = writeln!(
            out,
            "  drain      {} calls ({} empty polls), {} head writes, {} MMIO reads while draining",
            st.drain_calls, st.empty_polls, self.traffic.heads, st.drain_mmio_reads
        );
        let _ = writeln!(
            out,
            "  mmio       {} reads, {} writes in all ({} / {} during traffic)",
            self.reads, self.writes, self.traffic.reads, self.traffic.writes
        );
        // Simulated time only passes when a bounded wait has to sleep; a healthy
        // run finds every notification already landed, so it spends none.
        let elapsed_ms = self.elapsed_ms;
        let _ = match self.sim_us {
            0 => writeln!(
                out,
                "  time       {elapsed_ms} ms wall; no wait had to sleep (0 us of simulated device time)"
            ),
            us => writeln!(
                out,
                "  time       {elapsed_ms} ms wall; {us} us of simulated device time spent in bounded waits"
            ),
        };
        let _ = writeln!(
            out,
            "result: {}",
            if ok {
                "OK, every notification received once and in order"
            } else {
                "MISMATCH"
            }
        );
        out
    }
}

impl ModeArg {
    fn name(self) -> &'static str {
        match self {
            ModeArg::Phase => "phase",
            ModeArg::Tail => "tail",
        }
    }
}

fn dev_now_us(dev: &DeviceModel) -> u64 {
    use khal::std_adapter::Advance;
    dev.now_ns() / 1000
}

/// A progress bar on stderr for long runs on a terminal; none otherwise.
fn progress(args: &DemoArgs) -> Option<indicatif::ProgressBar> {
    let tty = std::io::stdout().is_terminal() && std::io::stderr().is_terminal();
    if args.json || !tty || args.notifications < 10_000 {
        return None;
    }
    let bar = indicatif::ProgressBar::new(args.notifications);
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "  draining   [{bar:30}] {human_pos}/{human_len} notifications, eta {eta}",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    Some(bar)
}
