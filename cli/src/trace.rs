//! `khal trace`: a dry run of one HAL operation on the device model, printing
//! every register access in order with the register's spec name.
//!
//! The device model starts from all-zero registers. Each operation runs on
//! the built-in [`DeviceModel`] through [`Trace`] with the block descriptions
//! mounted, so every access is named (`notific.nq[2].nq_head_ptr`). The real
//! block bases are per device (or NOT TRACED); the dry run mounts each block
//! at a fixed dry-run base and prints offsets relative to the block the
//! operation was given: the notification engine [004 §2, §3], the MSI-X block
//! [004 §4], the XT-local window [004 §5].
//!
//! Operations that need an engine object (everything but `notific-init`) get
//! one from a setup step that is run but NOT printed (the trace is cleared
//! after it): `NotificEngine::init` with `--queues` (default 10), back-pressure
//! mode 0, uart mode 0. The printed trace is the operation alone.
//!
//! Errors (an operation the arch does not have, an argument out of range) are
//! typed [`khal::Error`]s; the trace is recorded into a buffer and printed
//! only on success, so a failed operation prints no trace (with `--json`,
//! the error document of `main`).

use std::fmt::Write as _;

use clap::{Args, Subcommand};
use khal::dma::DmaMemory;
use khal::intc::{EnsNq, Intc, MSIX, MSIX_SIZE};
use khal::notific::{
    BpMode, EngineConfig, Flavour, NotificBlocks, NotificEngine, NqConfig, NqRing, NOTIFIC,
    NOTIFIC_BLOCK_BYTES,
};
use khal::std_adapter::model::intc::MsixModel;
use khal::std_adapter::model::notific::NotificModel;
use khal::std_adapter::model::DeviceModel;
use khal::std_adapter::Access;
use khal::std_adapter::{DmaBuf, SimDelay, Trace};
use khal::{ArchId, DeviceAddr, Error, Mariana};

use crate::ArchArg;

mod engine;

/// The `schema` of `trace --json` (docs/CLI.md).
pub const SCHEMA: &str = "khal.trace/1";

/// Dry-run base of the notification engine block (not a device address).
pub const NOTIFIC_BASE: DeviceAddr = DeviceAddr(0x1000_0000);
/// Dry-run base of the MSI-X block (not a device address).
pub const MSIX_BASE: DeviceAddr = DeviceAddr(0x2000_0000);

const AFTER_HELP: &str = "\
Offsets are relative to the base of the block the operation was given (the
notification engine, the MSI-X block, the XT-local window): the real bases are
per device, so the dry run mounts each block at a dry-run base. The device
model starts from all-zero registers. Operations on an engine first run a
setup that is NOT printed: notific init with --queues (default 10), bp mode 0,
uart mode 0.

Examples:
  khal trace --arch cayman notific-init --queues 10 --bp-mode 0 --uart-mode 0
  khal trace --arch sunda --json nq-reset --queues 10 --index 2
  khal trace --arch mariana intc-mask-vector --vector 3
  khal trace --arch sunda q7-swap-table --value 0x1122334455667788 --extra 0x99
  khal trace --arch cayman program-start --pool 0x1000 --act 0x2000
  khal trace --arch sunda stpb-init
  khal trace --arch cayman release-run-stall --engine pool
  khal trace --arch cayman disable-hw-decode
  khal trace --arch cayman dge-carveout --size 0x100 --offset 0x20
  khal trace --arch cayman topsp-doorbell --which init_signal
  khal trace --arch cayman q7-ucode-load --owner 1 --iram-size 64 --dram-size 32

The engine operations run against a dry-run TPB memory handle (0x40000000):
each XT/NX window of FACTS §13.1 is printed relative to its own base, the Q7
and HW-decode images relative to the handle (block tpb_mem).";

/// Arguments of `khal trace`.
#[derive(Debug, Args)]
#[command(
    long_about = "Dry-run one HAL operation against the built-in device model and print \
every register access in order (read/write, block, offset, value, spec register name).",
    after_help = AFTER_HELP
)]
pub struct TraceArgs {
    /// The arch to bind.
    #[arg(long, value_enum)]
    pub arch: ArchArg,
    /// One JSON document (schema khal.trace/1, docs/CLI.md):
    /// {"schema","arch","op","steps":[{"step","outcome"}],"accesses":[…]},
    /// one access per line: {"op","block","offset","value","reg"}, numbers
    /// as lowercase 0x hex; q7-ucode-load gives one
    /// {"op":"write_burst","block","offset","words","nonzero","first"} per burst.
    #[arg(long, global = true)]
    pub json: bool,
    /// The operation.
    #[command(subcommand)]
    pub op: TraceOp,
}

/// Parse a number: `0x` hex (`_` allowed) or decimal.
fn num(s: &str) -> Result<u64, String> {
    crate::decode::parse_addr(s).map_err(|_| format!("'{s}' is not a number (0x hex or decimal)"))
}

fn num32(s: &str) -> Result<u32, String> {
    let v = num(s)?;
    u32::try_from(v).map_err(|_| format!("'{s}' does not fit in 32 bits"))
}

/// The engine-flavour option shared by the notific operations.
#[derive(Debug, Clone, Copy, Args)]
pub struct Queues {
    /// Queues of the engine: 1 = single-queue flavour (a TopSP), 10 = the
    /// 10-queue flavour (a NeuronCore TPB) [004 §3]; 2..9 select the 10-queue
    /// flavour with that many coalescer streams; 0 or > 10 is refused.
    #[arg(long, default_value = "10", value_parser = num32)]
    pub queues: u32,
}

/// One HAL operation.
#[derive(Debug, Clone, Subcommand)]
pub enum TraceOp {
    /// Notification engine init [004 §2]: uart mode, wob_ctrl = 1,
    /// [10-queue: coal_timer], write-buffer enable, back-pressure config.
    NotificInit {
        #[command(flatten)]
        queues: Queues,
        /// Back-pressure mode: 0 (all queues) or 1 (none).
        #[arg(long, value_parser = num32)]
        bp_mode: u32,
        /// Value written to nq_uart_mode.
        #[arg(long, value_parser = num32)]
        uart_mode: u32,
    },
    /// NQ configure [004 §3]: validate, then base_lo, base_hi, f_size.
    NqConfigure {
        #[command(flatten)]
        queues: Queues,
        /// Queue index (< 10).
        #[arg(long, value_parser = num32)]
        index: u32,
        /// Ring bus address.
        #[arg(long, value_parser = num)]
        base: u64,
        /// Ring size in bytes (a non-zero multiple of 16).
        #[arg(long, value_parser = num32)]
        size: u32,
    },
    /// NQ reset [004 §3]: overflow and enable bits cleared, coalescer flush
    /// pulse for index <= 3, tail drain wait, head write.
    NqReset {
        #[command(flatten)]
        queues: Queues,
        /// Queue index (< 10).
        #[arg(long, value_parser = num32)]
        index: u32,
    },
    /// AXI id and its rotate bit [004 §2].
    SetAxiId {
        #[command(flatten)]
        queues: Queues,
        /// Value written to nq_axi_id.
        #[arg(long, value_parser = num32)]
        id: u32,
        /// wob_ctrl.axi_id_rotate: 0 or 1.
        #[arg(long, value_parser = num32)]
        rotate: u32,
    },
    /// Back-pressure config [004 §2]: mode 0 or 1.
    SetBpConfig {
        #[command(flatten)]
        queues: Queues,
        /// Back-pressure mode: 0 (all queues) or 1 (none).
        #[arg(long, value_parser = num32)]
        mode: u32,
    },
    /// Coalescer stream enable [004 §2]: stream < 4 and < queues.
    CoalescerStream {
        #[command(flatten)]
        queues: Queues,
        /// Stream index.
        #[arg(long, value_parser = num32)]
        stream: u32,
        /// 1 to enable, 0 to disable.
        #[arg(long, value_parser = num32)]
        enable: u32,
    },
    /// MSI-X vector mask (MARIANA) [004 §4]: vector <= 7.
    IntcMaskVector {
        /// The vector.
        #[arg(long, value_parser = num32)]
        vector: u32,
    },
    /// MSI-X vector unmask (MARIANA) [004 §4]: vector <= 7.
    IntcUnmaskVector {
        /// The vector.
        #[arg(long, value_parser = num32)]
        vector: u32,
    },
    /// MSI-X moderation-timer period (MARIANA) [004 §4]: period < 16.
    IntcModTimer {
        /// The period.
        #[arg(long, value_parser = num32)]
        period: u32,
    },
    /// Point an NQ at its mailbox base (MARIANA) [004 §4]: block < 8, queue < 8.
    /// The NQ is `--nq` (default 0) of the notification engine.
    IntcSetNotificQueueBase {
        #[command(flatten)]
        queues: Queues,
        /// The NQ of the engine whose base is programmed.
        #[arg(long, default_value = "0", value_parser = num32)]
        nq: u32,
        /// The block index.
        #[arg(long, value_parser = num32)]
        block: u32,
        /// The queue id.
        #[arg(long, value_parser = num32)]
        queue: u32,
    },
    /// Engine launch [002 §4], [FACTS §13.1]: for each engine not skipped, in
    /// the order POOL, ACT, PE, DVE, SP: start_addr_lo, start_addr_hi,
    /// START_CTRL = 1 at its XT/NX window (CAYMAN; SUNDA/MARIANA not traced).
    #[command(
        after_help = "Example:\n  khal trace --arch cayman program-start --pool 0x1000 --pe skip"
    )]
    ProgramStart(engine::ProgramStartArgs),
    /// The engine bring-up `stpb_init` [FACTS §13.6]: every step of each
    /// engine's init that ran, and the step where it stopped and why.
    #[command(after_help = "Example:\n  khal trace --arch mariana stpb-init")]
    StpbInit,
    /// Run-stall release [FACTS §13.4]: pool = the sequencer (NX +0x00,
    /// SUNDA +0x04) then the Q7 cores (+0x3000, a no-op on SUNDA).
    #[command(after_help = "Example:\n  khal trace --arch sunda release-run-stall --engine pool")]
    ReleaseRunStall(engine::ReleaseArgs),
    /// `disable_hw_decode(v)` in the POOL window [FACTS §13.4]: RMW of bit 0
    /// of HW_DECODE_CONTROL (+0x4000); a no-op on SUNDA.
    #[command(after_help = "Example:\n  khal trace --arch cayman disable-hw-decode --value 1")]
    DisableHwDecode(engine::DisableArgs),
    /// `set_dge_carveout(size, offset)` [FACTS §13.8]: cap and 16-byte checks
    /// (-22), then one write of ((size >> 4) << 16) | (offset >> 4).
    #[command(
        after_help = "Example:\n  khal trace --arch cayman dge-carveout --size 0x100 --offset 0x20"
    )]
    DgeCarveout(engine::DgeArgs),
    /// A TopSP doorbell [FACTS §13.2]: one write in the TopSP window.
    #[command(
        after_help = "Example:\n  khal trace --arch cayman topsp-doorbell --which host_trigger"
    )]
    TopspDoorbell(engine::DoorbellArgs),
    /// The Q7 ucode loader [FACTS §13.3]: per core the DRAM image then the
    /// IRAM image, each zero-padded to its aperture. Each contiguous burst is
    /// printed as one line (JSON: "op":"write_burst" with "words" and
    /// "nonzero").
    #[command(
        after_help = "Example:\n  khal trace --arch sunda q7-ucode-load --owner 0 --iram-size 16 --dram-size 8"
    )]
    Q7UcodeLoad(engine::Q7Args),
    /// Q7 swap table [004 §5]: SUNDA three dwords at nx_rsvd_space0/1/2 of the
    /// POOL window; CAYMAN a successful no-op with no register access.
    Q7SwapTable {
        /// The 64-bit value (low dword to rsvd_space0, high to rsvd_space1).
        #[arg(long, value_parser = num)]
        value: u64,
        /// The third dword (rsvd_space2).
        #[arg(long, value_parser = num32)]
        extra: u32,
    },
}

impl TraceOp {
    /// The operation's command-line name.
    pub fn name(&self) -> &'static str {
        match self {
            TraceOp::NotificInit { .. } => "notific-init",
            TraceOp::NqConfigure { .. } => "nq-configure",
            TraceOp::NqReset { .. } => "nq-reset",
            TraceOp::SetAxiId { .. } => "set-axi-id",
            TraceOp::SetBpConfig { .. } => "set-bp-config",
            TraceOp::CoalescerStream { .. } => "coalescer-stream",
            TraceOp::IntcMaskVector { .. } => "intc-mask-vector",
            TraceOp::IntcUnmaskVector { .. } => "intc-unmask-vector",
            TraceOp::IntcModTimer { .. } => "intc-mod-timer",
            TraceOp::IntcSetNotificQueueBase { .. } => "intc-set-notific-queue-base",
            TraceOp::Q7SwapTable { .. } => "q7-swap-table",
            TraceOp::ProgramStart(_) => "program-start",
            TraceOp::StpbInit => "stpb-init",
            TraceOp::ReleaseRunStall(_) => "release-run-stall",
            TraceOp::DisableHwDecode(_) => "disable-hw-decode",
            TraceOp::DgeCarveout(_) => "dge-carveout",
            TraceOp::TopspDoorbell(_) => "topsp-doorbell",
            TraceOp::Q7UcodeLoad(_) => "q7-ucode-load",
        }
    }
}

/// A 0/1 switch argument; anything else is a typed error.
fn switch(v: u32, what: &'static str) -> khal::Result<bool> {
    match v {
        0 => Ok(false),
        1 => Ok(true),
        _ => Err(Error::InvalidArgument(what)),
    }
}

/// A ring memory that only has a bus address and a length: `nq-configure`
/// programs registers from it and never touches its bytes (so a dry run of a
/// large ring allocates nothing). Any byte access is refused.
#[derive(Debug, Clone, Copy)]
struct AddressOnly {
    bus: u64,
    len: usize,
}

impl DmaMemory for AddressOnly {
    fn bus_addr(&self) -> u64 {
        self.bus
    }
    fn len(&self) -> usize {
        self.len
    }
    fn load_u8(&self, _: usize) -> khal::Result<u8> {
        Err(Error::InvalidArgument("dry-run ring has no memory"))
    }
    fn read(&self, _: usize, _: &mut [u8]) -> khal::Result<()> {
        Err(Error::InvalidArgument("dry-run ring has no memory"))
    }
    fn write(&self, _: usize, _: &[u8]) -> khal::Result<()> {
        Err(Error::InvalidArgument("dry-run ring has no memory"))
    }
    fn zero(&self) -> khal::Result<()> {
        Err(Error::InvalidArgument("dry-run ring has no memory"))
    }
}

/// The device model with every block an operation may be given, mounted at
/// its dry-run base, and a tracer naming them.
fn model(flavour: Flavour) -> khal::Result<DeviceModel> {
    let dev = DeviceModel::new();
    dev.mount(NOTIFIC_BASE, NotificModel::new(flavour))?;
    dev.mount(MSIX_BASE, MsixModel::new())?;
    Ok(dev)
}

fn tracer(dev: &DeviceModel) -> Trace<&DeviceModel> {
    Trace::new(dev)
        .with_block(NOTIFIC_BASE, NOTIFIC_BLOCK_BYTES, &NOTIFIC)
        .with_block(MSIX_BASE, MSIX_SIZE, &MSIX)
}

fn unsupported(what: &'static str, arch: ArchId) -> Error {
    Error::Unsupported { what, arch }
}

/// Run `op` on `arch` and return the accesses it made (none on error).
pub fn record(arch: ArchId, op: &TraceOp) -> khal::Result<Vec<Access>> {
    let queues = match op {
        TraceOp::NotificInit { queues, .. }
        | TraceOp::NqConfigure { queues, .. }
        | TraceOp::NqReset { queues, .. }
        | TraceOp::SetAxiId { queues, .. }
        | TraceOp::SetBpConfig { queues, .. }
        | TraceOp::CoalescerStream { queues, .. }
        | TraceOp::IntcSetNotificQueueBase { queues, .. } => queues.queues,
        _ => 10,
    };
    let dev = model(EngineConfig::from_raw(queues, 0, 0)?.flavour())?;
    let t = tracer(&dev);
    // The untraced setup: an engine brought up with defaults, on the
    // model's one notification block.
    let ens_blocks = NotificBlocks::new();
    let mut ens = ens_blocks.take(NOTIFIC_BASE)?;
    let engine = |t, ens| NotificEngine::init_raw(t, Some(ens), queues, 0, 0);
    match *op {
        TraceOp::NotificInit {
            bp_mode, uart_mode, ..
        } => {
            NotificEngine::init_raw(&t, Some(&mut ens), queues, bp_mode, uart_mode)?;
        }
        TraceOp::NqConfigure {
            index, base, size, ..
        } => {
            let mut e = engine(&t, &mut ens)?;
            t.clear();
            let mem = AddressOnly {
                bus: base,
                len: size as usize,
            };
            NqRing::configure_host(mem, e.queue(index)?, NqConfig::tail(size))?;
        }
        TraceOp::NqReset { index, .. } => {
            let mut e = engine(&t, &mut ens)?;
            let mem = DmaBuf::new(256, 64)?;
            let mut ring = NqRing::host(&mem, e.queue(index)?, NqConfig::tail(256))?;
            t.clear();
            ring.reset(&mut e, &mut SimDelay::new(&dev))?;
        }
        TraceOp::SetAxiId { id, rotate, .. } => {
            let rotate = switch(rotate, "--rotate must be 0 or 1")?;
            let mut e = engine(&t, &mut ens)?;
            t.clear();
            e.set_axi_id(id, rotate)?;
        }
        TraceOp::SetBpConfig { mode, .. } => {
            let mut e = engine(&t, &mut ens)?;
            t.clear();
            e.set_bp_config(BpMode::from_raw(mode)?)?;
        }
        TraceOp::CoalescerStream { stream, enable, .. } => {
            let enable = switch(enable, "--enable must be 0 or 1")?;
            let mut e = engine(&t, &mut ens)?;
            t.clear();
            e.set_coalescer_stream(stream, enable)?;
        }
        TraceOp::IntcMaskVector { vector } => {
            intc(arch)?.mask_vector(&t, vector)?;
        }
        TraceOp::IntcUnmaskVector { vector } => {
            intc(arch)?.unmask_vector(&t, vector)?;
        }
        TraceOp::IntcModTimer { period } => {
            intc(arch)?.set_mod_timer_period(&t, period)?;
        }
        TraceOp::IntcSetNotificQueueBase {
            nq, block, queue, ..
        } => {
            // The C leaf takes the NQ from the handle's ENS of the block
            // (`user_errtrig_ens[block].nq`) [004 §4], [FACTS §12.3]: the dry
            // run records the engine's NQ `nq` there first.
            let e = engine(&t, &mut ens)?;
            let ens = EnsNq::of(&e, nq)?;
            let mut i = intc(arch)?;
            i.set_ens_nq(block, ens)?;
            t.clear();
            i.set_notific_queue_base(&t, block, queue)?;
        }
        TraceOp::Q7SwapTable { .. }
        | TraceOp::ProgramStart(_)
        | TraceOp::StpbInit
        | TraceOp::ReleaseRunStall(_)
        | TraceOp::DisableHwDecode(_)
        | TraceOp::DgeCarveout(_)
        | TraceOp::TopspDoorbell(_)
        | TraceOp::Q7UcodeLoad(_) => {
            return Err(Error::InvalidArgument(
                "an engine operation (trace::engine)",
            ))
        }
    }
    Ok(t.accesses())
}

/// The MARIANA MSI-X controller of the dry run; SUNDA and CAYMAN INTC are NOT
/// TRACED [004 §1 NOTE].
fn intc(arch: ArchId) -> khal::Result<Intc<Mariana>> {
    if arch != ArchId::Mariana {
        return Err(unsupported(
            "the MSI-X INTC (MARIANA only; SUNDA/CAYMAN INTC not traced [004 §1])",
            arch,
        ));
    }
    Intc::new(MSIX_BASE)
}

/// The register name of an access without its block prefix
/// (`nq[2].nq_head_ptr`), if described.
fn reg_name(a: &Access) -> Option<String> {
    a.reg.map(|r| match r.instance {
        Some((arr, i)) => format!("{arr}[{i}].{}", r.reg),
        None => r.reg.to_string(),
    })
}

/// One JSON line of an access, keys in the documented order:
/// `{"op","block","offset","value","reg"}`.
pub fn json_line(a: &Access) -> String {
    let s = |v: Option<&str>| serde_json::Value::from(v).to_string();
    format!(
        "{{\"op\":{},\"block\":{},\"offset\":\"{:#x}\",\"value\":\"{:#x}\",\"reg\":{}}}",
        s(Some(a.op.as_str())),
        s(a.block.map(|(n, _)| n)),
        a.offset(),
        a.value,
        s(reg_name(a).as_deref())
    )
}

/// The engine operation of `op`, if it is one ([`engine`]).
fn engine_op(op: &TraceOp) -> Option<engine::EngineOp> {
    use engine::EngineOp as E;
    Some(match op {
        TraceOp::ProgramStart(a) => E::ProgramStart(a.clone()),
        TraceOp::StpbInit => E::StpbInit,
        TraceOp::ReleaseRunStall(a) => E::ReleaseRunStall(a.clone()),
        TraceOp::DisableHwDecode(a) => E::DisableHwDecode(a.clone()),
        TraceOp::DgeCarveout(a) => E::DgeCarveout(a.clone()),
        TraceOp::TopspDoorbell(a) => E::TopspDoorbell(a.clone()),
        TraceOp::Q7UcodeLoad(a) => E::Q7UcodeLoad(a.clone()),
        TraceOp::Q7SwapTable { value, extra } => E::Q7SwapTable(*value, *extra),
        _ => return None,
    })
}

/// `khal trace`.
pub fn run(args: &TraceArgs) -> Result<String, String> {
    let arch = args.arch.id();
    let fail = |e: Error| format!("{}: {e}", args.op.name());
    let report = match engine_op(&args.op) {
        Some(op) => engine::record(arch, &op).map_err(fail)?,
        None => engine::Report {
            accesses: record(arch, &args.op).map_err(fail)?,
            ..engine::Report::default()
        },
    };
    let q7 = matches!(args.op, TraceOp::Q7UcodeLoad(_));
    let mut out = String::new();
    if args.json {
        // One document; each step and access on its own line, keys in the
        // documented order (docs/CLI.md).
        let mut lines: Vec<String> = Vec::new();
        if q7 {
            for (a, words, nonzero) in engine::bursts(&report.accesses) {
                lines.push(json_burst(&a, words, nonzero));
            }
        } else {
            lines.extend(report.accesses.iter().map(json_line));
        }
        let steps: Vec<String> = report.steps.iter().map(json_step).collect();
        let s = |v: &str| serde_json::Value::from(v).to_string();
        let _ = write!(
            out,
            "{{\"schema\":{},\"arch\":{},\"op\":{},\"steps\":[{}],\"accesses\":[",
            s(SCHEMA),
            s(arch.name()),
            s(args.op.name()),
            steps.join(",")
        );
        if !lines.is_empty() {
            let _ = write!(out, "\n{}\n", lines.join(",\n"));
        }
        out.push_str("]}\n");
        return Ok(out);
    }
    let _ = writeln!(
        out,
        "# {} on {}: {} register access(es); offsets relative to the block base (dry-run bases)",
        args.op.name(),
        arch,
        report.accesses.len()
    );
    for st in &report.steps {
        let outcome = match st.outcome {
            Ok(()) => "ok".to_string(),
            Err(e) => format!("stopped: {e}"),
        };
        let _ = writeln!(out, "step   {}.{}  {outcome}", st.init, st.step);
    }
    if let Some(e) = report.stopped {
        let at = report
            .steps
            .last()
            .map_or("the shim's check".to_string(), |s| {
                format!("{}.{}", s.init, s.step)
            });
        let _ = writeln!(out, "stpb_init stopped at {at}: {e}");
    } else if matches!(args.op, TraceOp::StpbInit) {
        let _ = writeln!(out, "stpb_init completed");
    }
    if q7 {
        for (a, words, nonzero) in engine::bursts(&report.accesses) {
            let _ = writeln!(
                out,
                "{:<5}  {:<12}  +{:#09x}  burst of {words} words ({nonzero} non-zero, first {:#010x})",
                a.op.as_str(),
                a.block.map_or("-", |(n, _)| n),
                a.offset(),
                a.value,
            );
        }
        return Ok(out);
    }
    for a in &report.accesses {
        let _ = writeln!(
            out,
            "{:<5}  {:<12}  +{:#06x}  {:#010x}  {}",
            a.op.as_str(),
            a.block.map_or("-", |(n, _)| n),
            a.offset(),
            a.value,
            reg_name(a).as_deref().unwrap_or("(not described)")
        );
    }
    Ok(out)
}

/// One JSON line of an engine-init step, keys in this order:
/// `{"step","outcome"}` (`ok` or the error).
fn json_step(st: &engine::StepLine) -> String {
    let outcome = match st.outcome {
        Ok(()) => "ok".to_string(),
        Err(e) => e.to_string(),
    };
    let s = |v: &str| serde_json::Value::from(v).to_string();
    format!(
        "{{\"step\":{},\"outcome\":{}}}",
        s(&format!("{}.{}", st.init, st.step)),
        s(&outcome)
    )
}

/// One JSON line of a write burst, keys in this order:
/// `{"op","block","offset","words","nonzero","first"}`.
fn json_burst(a: &Access, words: usize, nonzero: usize) -> String {
    let block = serde_json::Value::from(a.block.map(|(n, _)| n)).to_string();
    format!(
        "{{\"op\":\"write_burst\",\"block\":{block},\"offset\":\"{:#x}\",\"words\":{words},\"nonzero\":{nonzero},\"first\":\"{:#x}\"}}",
        a.offset(),
        a.value
    )
}
