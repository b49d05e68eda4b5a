//! `khal trace` engine bring-up operations [FACTS §13]: `program-start`,
//! `stpb-init`, `release-run-stall`, `disable-hw-decode`, `dge-carveout`,
//! `topsp-doorbell`, `q7-ucode-load`.
//!
//! Each runs on the built-in device model through [`Trace`] with a dry-run
//! TPB memory handle [`TPB_MEM`] (the real one is per device): the XT/NX
//! windows of [FACTS §13.1] are mounted at `TPB_MEM + xt_local_reg_offset`
//! with the arch's NX/XT register descriptions, so every access is named and
//! printed relative to its window; what falls outside the windows (the Q7 and
//! HW-decode images) is printed relative to `TPB_MEM` ("tpb_mem").

use clap::Args;
use khal::engine::{
    self, program_start, EngineOps, EngineParams, PeParams, PoolingParams, RawStpbConfig, Step,
    SKIP,
};
use khal::family::{Arch, Doorbell};
use khal::family::{OWNER_TOPSP, OWNER_TPB};
use khal::q7::{self, Q7SwapTable, Q7Ucode};
use khal::regs::BlockDesc;
use khal::std_adapter::model::DeviceModel;
use khal::std_adapter::Access;
use khal::std_adapter::Trace;
use khal::{ArchId, Cayman, DeviceAddr, Engine, Error, Mariana, Sunda};

/// Dry-run TPB memory handle (`tpb_mem_handle`; not a device address).
pub const TPB_MEM: DeviceAddr = DeviceAddr(0x4000_0000);
/// Dry-run `tpb_regs` window (not a device address).
pub const TPB_REGS: DeviceAddr = DeviceAddr(0x7000_0000);
/// Bytes named as "tpb_mem" from [`TPB_MEM`]: every window and Q7 core.
const TPB_MEM_SIZE: u64 = 0x400_0000;
/// Bytes of one XT/NX window described.
const WINDOW_SIZE: u64 = 0x1_0000;

/// No register described: accesses there are printed relative to `TPB_MEM`.
static TPB_MEM_DESC: BlockDesc = BlockDesc {
    name: "tpb_mem",
    regs: &[],
};

/// A start address or `skip`.
fn start(s: &str) -> Result<u64, String> {
    if s == "skip" {
        return Ok(SKIP);
    }
    crate::decode::parse_addr(s).map_err(|_| format!("'{s}' is not a start address or 'skip'"))
}

fn num(s: &str) -> Result<u64, String> {
    crate::decode::parse_addr(s).map_err(|_| format!("'{s}' is not a number (0x hex or decimal)"))
}

fn num32(s: &str) -> Result<u32, String> {
    u32::try_from(num(s)?).map_err(|_| format!("'{s}' does not fit in 32 bits"))
}

fn engine(s: &str) -> Result<Engine, String> {
    Engine::ALL
        .into_iter()
        .find(|e| e.name() == s)
        .ok_or_else(|| format!("'{s}' is not an engine (pe, act, pool, dve, sp)"))
}

fn doorbell(s: &str) -> Result<Doorbell, String> {
    Doorbell::ALL
        .into_iter()
        .find(|d| d.name() == s)
        .ok_or_else(|| {
            "invalid argument: doorbell: init_signal, tsync_signal, host_trigger or stop_signal"
                .into()
        })
}

/// `program-start`: the start address of each engine, or `skip`.
#[derive(Debug, Clone, Args)]
pub struct ProgramStartArgs {
    /// PE's start address (the launch order is POOL, ACT, PE, DVE, SP).
    #[arg(long, default_value = "0x100", value_parser = start)]
    pub pe: u64,
    /// ACT's start address.
    #[arg(long, default_value = "0x200", value_parser = start)]
    pub act: u64,
    /// POOL's start address.
    #[arg(long, default_value = "0x300", value_parser = start)]
    pub pool: u64,
    /// DVE's start address.
    #[arg(long, default_value = "0x400", value_parser = start)]
    pub dve: u64,
    /// SP's start address (its window needs an owner the notes do not pass:
    /// anything but `skip` is not traced).
    #[arg(long, default_value = "skip", value_parser = start)]
    pub sp: u64,
}

/// `release-run-stall`.
#[derive(Debug, Clone, Args)]
pub struct ReleaseArgs {
    /// pool (the sequencer, then the Q7 cores); pe/act/dve/sp are not traced.
    #[arg(long, value_parser = engine)]
    pub engine: Engine,
}

/// `disable-hw-decode`.
#[derive(Debug, Clone, Args)]
pub struct DisableArgs {
    /// `v`: bit 0 of HW_DECODE_CONTROL becomes `v != 0`.
    #[arg(long, default_value = "1", value_parser = num32)]
    pub value: u32,
}

/// `dge-carveout`.
#[derive(Debug, Clone, Args)]
pub struct DgeArgs {
    /// Carveout size in bytes (a multiple of 16).
    #[arg(long, value_parser = num32)]
    pub size: u32,
    /// Carveout offset in bytes (a multiple of 16); offset + size <= the cap.
    #[arg(long, value_parser = num32)]
    pub offset: u32,
}

/// `topsp-doorbell`.
#[derive(Debug, Clone, Args)]
pub struct DoorbellArgs {
    /// init_signal, tsync_signal, host_trigger or stop_signal.
    #[arg(long, value_parser = doorbell)]
    pub which: Doorbell,
    /// The caller's value (only SUNDA's host_trigger writes it; others write 1).
    #[arg(long, default_value = "1", value_parser = num32)]
    pub value: u32,
}

/// `q7-ucode-load`.
#[derive(Debug, Clone, Args)]
pub struct Q7Args {
    /// The loader's owner index: 0 = pooling (every arch), 1 = compute
    /// cluster (CAYMAN, MARIANA).
    #[arg(long, value_parser = num32)]
    pub owner: u32,
    /// Bytes of the IRAM image (demo content: byte i = i mod 251).
    #[arg(long, value_parser = num)]
    pub iram_size: u64,
    /// Bytes of the DRAM image (demo content: byte i = (i + 1) mod 251).
    #[arg(long, value_parser = num)]
    pub dram_size: u64,
}

/// The engine operations.
#[derive(Debug, Clone)]
pub enum EngineOp {
    /// `program-start`.
    ProgramStart(ProgramStartArgs),
    /// `stpb-init`.
    StpbInit,
    /// `release-run-stall`.
    ReleaseRunStall(ReleaseArgs),
    /// `disable-hw-decode`.
    DisableHwDecode(DisableArgs),
    /// `dge-carveout`.
    DgeCarveout(DgeArgs),
    /// `topsp-doorbell`.
    TopspDoorbell(DoorbellArgs),
    /// `q7-ucode-load`.
    Q7UcodeLoad(Q7Args),
    /// `q7-swap-table`: the low dword, the high dword, the third word.
    Q7SwapTable(u64, u32),
}

/// One engine-init step that ran: `(engine, step, outcome)`.
#[derive(Debug, Clone)]
pub struct StepLine {
    /// `pooling_init`, `act_init`, …
    pub init: &'static str,
    /// The step's name.
    pub step: &'static str,
    /// `ok`, or the error.
    pub outcome: Result<(), Error>,
}

/// What an engine operation did.
#[derive(Debug, Default)]
pub struct Report {
    /// The accesses, in order.
    pub accesses: Vec<Access>,
    /// The orchestrator steps that ran (`stpb-init`).
    pub steps: Vec<StepLine>,
    /// Where `stpb-init` stopped (the first error), if it did.
    pub stopped: Option<Error>,
}

fn init_name(e: Engine) -> &'static str {
    match e {
        Engine::Pe => "pe_init",
        Engine::Act => "act_init",
        Engine::Pool => "pooling_init",
        Engine::Dve => "dve_init",
        Engine::Sp => "sp_init",
    }
}

/// The tracer: each engine window of `A` named with its NX and XT
/// descriptions, then the whole TPB memory as `tpb_mem`.
fn tracer<A: Arch>(dev: &DeviceModel) -> Trace<&DeviceModel> {
    let mut t = Trace::new(dev);
    for eng in 0..4 {
        if let Ok(o) = A::xt_local_reg_offset(eng, OWNER_TPB) {
            let base = o.at(TPB_MEM);
            for desc in [A::NX_LOCAL_BLOCK, A::XT_LOCAL_BLOCK].into_iter().flatten() {
                t = t.with_block(base, WINDOW_SIZE, desc);
            }
        }
    }
    // The TopSP window (eng 4, owner 0) has its own description.
    if let (Ok(o), Ok(desc)) = (A::xt_local_reg_offset(4, OWNER_TOPSP), A::TOPSP_BLOCK) {
        t = t.with_block(o.at(TPB_MEM), WINDOW_SIZE, desc);
    }
    t.with_block(TPB_MEM, TPB_MEM_SIZE, &TPB_MEM_DESC)
}

fn demo_image(n: u64, shift: u64) -> khal::Result<Vec<u8>> {
    let n = usize::try_from(n).map_err(|_| Error::InvalidArgument("image size"))?;
    // Refuse absurd sizes before allocating: the largest aperture is 256 KiB.
    if n > 0x100_0000 {
        return Err(Error::InvalidArgument("image size above 16 MiB"));
    }
    Ok((0..n as u64).map(|i| ((i + shift) % 251) as u8).collect())
}

fn run<A: EngineOps>(op: &EngineOp) -> khal::Result<Report> {
    let dev = DeviceModel::new();
    let t = tracer::<A>(&dev);
    let mut report = Report::default();
    match op {
        EngineOp::ProgramStart(a) => {
            let starts = [a.pe, a.act, a.pool, a.dve, a.sp];
            program_start::<A, _>(&t, TPB_MEM, &starts)?;
        }
        EngineOp::StpbInit => {
            let eng = EngineParams::new(TPB_REGS, TPB_MEM);
            let pool = PoolingParams::new(TPB_REGS, TPB_MEM);
            let pe = PeParams::new(TPB_REGS, TPB_MEM);
            let cfg = RawStpbConfig {
                pooling: Some(&pool),
                act: Some(&eng),
                dve: Some(&eng),
                pe: &pe,
                sp: None,
                notific: false,
                flag: 0,
                init: true,
            };
            let mut steps = Vec::new();
            let r = engine::stpb_init_raw::<A, _, _>(
                &t,
                &cfg,
                &mut |e: Engine, s: Step, o: khal::Result<()>| {
                    steps.push(StepLine {
                        init: init_name(e),
                        step: s.name(),
                        outcome: o,
                    })
                },
            );
            report.steps = steps;
            report.stopped = r.err();
        }
        EngineOp::ReleaseRunStall(a) => {
            engine::release_run_stall::<A, _>(&t, TPB_MEM, a.engine)?;
        }
        EngineOp::DisableHwDecode(a) => {
            let w = engine::pool_window::<A>(TPB_MEM)?;
            engine::disable_hw_decode::<A, _>(&t, w, a.value)?;
        }
        EngineOp::DgeCarveout(a) => {
            engine::set_dge_carveout::<A, _>(&t, TPB_MEM, a.size, a.offset)?;
        }
        EngineOp::TopspDoorbell(a) => {
            engine::topsp_doorbell::<A, _>(&t, TPB_MEM, a.which, a.value)?;
        }
        EngineOp::Q7UcodeLoad(a) => {
            let iram = demo_image(a.iram_size, 0)?;
            let dram = demo_image(a.dram_size, 1)?;
            let ucode = Q7Ucode {
                iram: &iram,
                dram: &dram,
            };
            q7::q7_ucode_eng_init::<A, _>(&t, TPB_MEM, ucode, a.owner)?;
        }
        EngineOp::Q7SwapTable(..) => {
            return Err(Error::InvalidArgument(
                "q7-swap-table is dispatched per arch",
            ))
        }
    }
    report.accesses = t.accesses();
    Ok(report)
}

/// The Q7 swap table through the arch [004 §5]: SUNDA's three dwords in the
/// POOL window; CAYMAN's no-op (success, no register access, as the C);
/// MARIANA's is not in the sources.
fn swap_table<A: Arch + Q7SwapTable>(lo_hi: u64, b: u32) -> khal::Result<Report> {
    let dev = DeviceModel::new();
    let t = tracer::<A>(&dev);
    A::q7_swap_table(&t, TPB_MEM, lo_hi, b)?;
    Ok(Report {
        accesses: t.accesses(),
        ..Report::default()
    })
}

/// Run `op` on `arch`. A failed operation records nothing (an error); a
/// `stpb-init` that stops is a report naming the step (not an error).
pub fn record(arch: ArchId, op: &EngineOp) -> khal::Result<Report> {
    if let EngineOp::Q7SwapTable(lo_hi, b) = *op {
        return match arch {
            ArchId::Sunda => swap_table::<Sunda>(lo_hi, b),
            ArchId::Cayman => swap_table::<Cayman>(lo_hi, b),
            ArchId::Mariana => Err(Error::Unsupported {
                what: "the q7 swap table (MARIANA's is not traced)",
                arch,
            }),
        };
    }
    match arch {
        ArchId::Sunda => run::<Sunda>(op),
        ArchId::Cayman => run::<Cayman>(op),
        ArchId::Mariana => run::<Mariana>(op),
    }
}

/// Collapse the contiguous write runs of an image load into one line each:
/// `(first access, words, non-zero words)`.
pub fn bursts(accesses: &[Access]) -> Vec<(Access, usize, usize)> {
    let mut out: Vec<(Access, usize, usize)> = Vec::new();
    for a in accesses {
        if let Some((first, n, nz)) = out.last_mut() {
            if first.op == a.op && first.addr.get() + 4 * *n as u64 == a.addr.get() {
                *n += 1;
                *nz += usize::from(a.value != 0);
                continue;
            }
        }
        out.push((*a, 1, usize::from(a.value != 0)));
    }
    out
}
