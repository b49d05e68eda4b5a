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
//! only on success, so a failed operation prints nothing.

use std::fmt::Write as _;

use clap::{Args, Subcommand};
use khal::core::dma::DmaMemory;
use khal::core::family::NxLocal;
use khal::core::intc::regs::{MSIX, MSIX_SIZE};
use khal::core::intc::{EnsNq, Intc, MsixIntc};
use khal::core::notific::regs::{NOTIFIC, NOTIFIC_BLOCK_BYTES};
use khal::core::notific::{ConsumeMode, Flavour, NotificEngine, NqConfig, NqRing};
use khal::core::q7;
use khal::std_adapter::model::intc::MsixModel;
use khal::std_adapter::model::notific::NotificModel;
use khal::std_adapter::model::tpb::TpbWindow;
use khal::std_adapter::model::DeviceModel;
use khal::std_adapter::trace::Access;
use khal::std_adapter::{DmaBuf, SimDelay, Trace};
use khal::{ArchId, DeviceAddr, Error, Mariana, Sunda};

use crate::ArchArg;

/// Dry-run base of the notification engine block (not a device address).
pub const NOTIFIC_BASE: DeviceAddr = DeviceAddr(0x1000_0000);
/// Dry-run base of the MSI-X block (not a device address).
pub const MSIX_BASE: DeviceAddr = DeviceAddr(0x2000_0000);
/// Dry-run base of the POOL engine's XT-local window (NOT TRACED on the
/// silicon: `xt_local_reg_offset(POOL)`).
pub const XT_LOCAL_BASE: DeviceAddr = DeviceAddr(0x3000_0000);
/// Size of the XT-local window mounted for the dry run.
const XT_LOCAL_SIZE: u64 = 0x1000;

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
  khal trace --arch sunda q7-swap-table --value 0x1122334455667788 --extra 0x99";

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
    /// One JSON object per access and line:
    /// {"op","block","offset","value","reg"}, numbers as lowercase 0x hex.
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
    /// Q7 swap table (SUNDA) [004 §5]: three dwords at nx_rsvd_space0/1/2.
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
    dev.mount(XT_LOCAL_BASE, TpbWindow::new("tpb_xt_local", XT_LOCAL_SIZE))?;
    Ok(dev)
}

fn tracer(dev: &DeviceModel, arch: ArchId) -> Trace<&DeviceModel> {
    let mut t = Trace::new(dev)
        .with_block(NOTIFIC_BASE, NOTIFIC_BLOCK_BYTES, &NOTIFIC)
        .with_block(MSIX_BASE, MSIX_SIZE, &MSIX);
    if arch == ArchId::Sunda {
        if let Ok(desc) = Sunda::NX_LOCAL_BLOCK {
            t = t.with_block(XT_LOCAL_BASE, XT_LOCAL_SIZE, desc);
        }
    }
    t
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
    let dev = model(Flavour::from_num_queues(queues))?;
    let t = tracer(&dev, arch);
    // The untraced setup: an engine brought up with defaults.
    let engine = |t| NotificEngine::init(t, Some(NOTIFIC_BASE), queues, 0, 0);
    match *op {
        TraceOp::NotificInit {
            bp_mode, uart_mode, ..
        } => {
            NotificEngine::init(&t, Some(NOTIFIC_BASE), queues, bp_mode, uart_mode)?;
        }
        TraceOp::NqConfigure {
            index, base, size, ..
        } => {
            let e = engine(&t)?;
            t.clear();
            let mem = AddressOnly {
                bus: base,
                len: size as usize,
            };
            NqRing::configure_host(&e, mem, NqConfig::new(index, size, ConsumeMode::Tail))?;
        }
        TraceOp::NqReset { index, .. } => {
            let mut e = engine(&t)?;
            let mem = DmaBuf::new(256, 64)?;
            let mut ring = NqRing::host(&mem, NqConfig::new(index, 256, ConsumeMode::Tail))?;
            t.clear();
            ring.reset(&mut e, &mut SimDelay::new(&dev))?;
        }
        TraceOp::SetAxiId { id, rotate, .. } => {
            let rotate = switch(rotate, "--rotate must be 0 or 1")?;
            let mut e = engine(&t)?;
            t.clear();
            e.set_axi_id(id, rotate)?;
        }
        TraceOp::SetBpConfig { mode, .. } => {
            let mut e = engine(&t)?;
            t.clear();
            e.set_bp_config(mode)?;
        }
        TraceOp::CoalescerStream { stream, enable, .. } => {
            let enable = switch(enable, "--enable must be 0 or 1")?;
            let mut e = engine(&t)?;
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
            let e = engine(&t)?;
            let ens = EnsNq::of(&e, nq)?;
            let i = intc(arch)?;
            let i = Intc::<Mariana>::new(
                MsixIntc::new(i.handle().msix_base()).with_ens_nq(block, ens)?,
            );
            t.clear();
            i.set_notific_queue_base(&t, block, queue)?;
        }
        TraceOp::Q7SwapTable { value, extra } => match arch {
            ArchId::Sunda => q7::swap_table_at::<Sunda, _>(&t, XT_LOCAL_BASE, value, extra)?,
            ArchId::Cayman => {
                return Err(unsupported(
                    "the q7 swap-table register write (SUNDA only; CAYMAN's swap table is a \
                     no-op without register access [004 §5])",
                    arch,
                ))
            }
            ArchId::Mariana => {
                return Err(unsupported(
                    "the q7 swap-table register write (SUNDA only; MARIANA's is not traced)",
                    arch,
                ))
            }
        },
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
    Ok(Intc::new(MsixIntc::new(MSIX_BASE)))
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

/// `khal trace`.
pub fn run(args: &TraceArgs) -> Result<String, String> {
    let arch = args.arch.id();
    let accesses = record(arch, &args.op).map_err(|e| format!("{}: {e}", args.op.name()))?;
    let mut out = String::new();
    if args.json {
        for a in &accesses {
            out.push_str(&json_line(a));
            out.push('\n');
        }
        return Ok(out);
    }
    let _ = writeln!(
        out,
        "# {} on {}: {} register access(es); offsets relative to the block base (dry-run bases)",
        args.op.name(),
        arch,
        accesses.len()
    );
    for a in &accesses {
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
