//! `khal demo --device fake|/dev/neuronN`: the demo through the vendor
//! driver's interface [FACTS §14] instead of the built-in model's registers.
//!
//! `--device fake`: khal-std's in-process fake driver, BAR0 backed by the
//! device model. The bring-up goes through BAR_READ / BAR_WRITE: `stpb_init`
//! (stopping where a program is not traced, as the model demo does), then
//! `sp_init`'s 10-queue notification engine and a single-queue engine; on
//! MARIANA every MSI-X vector masked and unmasked, a latched cause read; 11
//! NQ rings allocated and base-programmed by NOTIFICATIONS_INIT_V2, adopted
//! by `NqRing`, enabled; the model posts notifications in bursts while the
//! host drains them (every head write a BAR_WRITE), each checked once and in
//! order; every ring reset at the end. Block bases are demo choices inside
//! TPB 0's and TPB 1's BAR0 windows; the kernel's queue ids
//! (`nq_type × 16 + engine_index`) are routed to them by the fake.
//!
//! `/dev/neuronN`: the node, read-write. What needs no untraced address runs:
//! DEVICE_BASIC_INFO / DEVICE_INFO, a host DMA chunk allocated, mapped,
//! written, read back and freed, and an NQ ring from NOTIFICATIONS_INIT_V2
//! mapped. The NOTIFIC blocks' device addresses on real silicon are not
//! traced, so khal writes none of the model demo's registers there and says so.

use std::fmt::Write as _;
use std::path::Path;

use khal::dma::DmaMemory;
use khal::engine::Step;
use khal::family::TpbBases;
use khal::intc::{ErrtrigLine, Intc};
use khal::notific::{
    BpMode, ConsumeKind, EngineConfig, Flavour, NotificBlock, NotificBlocks, NotificEngine,
    NqConfig, NqEntry, NqRing,
};
use khal::std_adapter::model::intc::{ErrtrigModel, MsixModel};
use khal::std_adapter::model::notific::{entry_seq, NotificModel};
use khal::std_adapter::model::tpb::TpbWindow;
use khal::std_adapter::neuron::{
    abi, FakeDriver, HostAlloc, Neuron, NeuronDma, NeuronError, NeuronSys, NqDevType, NqId, NqType,
};
use khal::std_adapter::SimDelay;
use khal::Fault;
use khal::{AnyArch, ArchId, DeviceAddr, Error};

use crate::demo::{DemoArgs, ModeArg, TpbParts};
use crate::Failed;

/// The `schema` of `demo --device fake --json` (docs/CLI.md).
pub const SCHEMA: &str = "khal.demo.device/1";

/// Bytes of each NQ ring (a power of two, as NOTIFICATIONS_INIT_V2 wants).
const RING_BYTES: u32 = 1024;
/// Largest burst the model posts at once on one queue.
const MAX_BURST: u64 = 48;
/// Demo offsets inside TPB 0's window: the SP's ENS block, SP memory and
/// registers, the engine windows (POOL, ACT, DVE, PE).
const ENS: u64 = 0x10_0000;
const SP_MEM: u64 = 0x20_0000;
const SP_REGS: u64 = 0x21_0000;
const ENGINES: [u64; 4] = [0x30_0000, 0x31_0000, 0x32_0000, 0x33_0000];
const WINDOW: u64 = 0x1_0000;
/// Demo offsets of the MARIANA MSI-X block and errtrig block 0 in TPB 0's window.
const MSIX: u64 = 0x40_0000;
const ERRTRIG: u64 = 0x50_0000;

fn mode_name(m: ModeArg) -> &'static str {
    match m {
        ModeArg::Phase => "phase",
        ModeArg::Tail => "tail",
    }
}

/// What DEVICE_BASIC_INFO and DEVICE_INFO said.
fn open_line<S: NeuronSys>(dev: &Neuron<S>) -> String {
    format!(
        "  open       DEVICE_BASIC_INFO arch {} rev {}; DEVICE_INFO BAR0 at kernel {:#x}, {:#x} bytes\n",
        dev.arch(),
        dev.revision(),
        dev.bar0_kernel_addr(),
        dev.bar_sizes()[0]
    )
}

/// `--device`: the fake or a node.
pub fn run(args: &DemoArgs, device: &str) -> Result<String, Failed> {
    let id = args.arch.id();
    let r = if device == "fake" {
        fake_demo(args, id)
    } else {
        node_demo(args, id, Path::new(device))
    };
    r.map_err(|e| Failed::from(format!("demo --device {device} on {id}: {e}")))
}

/// The device addresses of TPB 0 and TPB 1 on `id` (FACTS §3.1; SUNDA's
/// kdrv v2 window).
fn tiles(id: ArchId) -> [DeviceAddr; 2] {
    let b = match id {
        ArchId::Sunda => <khal::Sunda as TpbBases>::TPB_BASES,
        ArchId::Cayman => <khal::Cayman as TpbBases>::TPB_BASES,
        ArchId::Mariana => <khal::Mariana as TpbBases>::TPB_BASES,
    };
    [b[0], b[1]]
}

/// One NQ the host drains, a ring of kind `K` (`--mode`).
struct Lane<'a, K: ConsumeKind> {
    engine: usize,
    block: DeviceAddr,
    idx: u32,
    ring: NqRing<'a, NeuronDma<'a, &'a FakeDriver>, &'a Neuron<&'a FakeDriver>, K>,
    next_seq: u64,
}

#[derive(Default)]
struct Stats {
    posted: u64,
    drained: u64,
    lost: u64,
    duplicated: u64,
    drain_calls: u64,
    /// Rings, the first one's bus address, BAR writes before the traffic.
    rings: usize,
    bus: u64,
    setup_writes: usize,
}

fn nq_id(dev_type: NqDevType, engine_index: u32) -> NqId {
    NqId {
        dev_type,
        dev_id: 0,
        nq_type: NqType::Notify,
        engine_index,
    }
}

fn fake_demo(args: &DemoArgs, id: ArchId) -> Result<String, NeuronError> {
    let fake = FakeDriver::new(id);
    let [t0, t1] = tiles(id);
    let (ens, topsp) = (t0.add(ENS), t1.add(ENS));
    fake.mount(ens, NotificModel::new(Flavour::TenQueue))?;
    fake.mount(topsp, NotificModel::new(Flavour::SingleQueue))?;
    for (name, off) in [("tpb.sp_mem", SP_MEM), ("tpb.sp_regs", SP_REGS)]
        .into_iter()
        .chain(
            ["tpb.pool", "tpb.act", "tpb.dve", "tpb.pe"]
                .into_iter()
                .zip(ENGINES),
        )
    {
        fake.mount(t0.add(off), TpbWindow::new(name, WINDOW))?;
    }
    let dev = Neuron::with_sys(&fake)?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "khal demo: {id} through the driver interface on the fake driver (block bases are demo choices)"
    );
    out.push_str(&open_line(&dev));

    // Bring-up through BAR_READ / BAR_WRITE.
    let arch = AnyArch::new(id as u32)?;
    let blocks = NotificBlocks::new();
    let (mut tpb_block, mut top_block) = (blocks.take(t0.add(ENS))?, blocks.take(topsp)?);
    let (stpb, tpb) = bring_up(arch, &dev, t0, &mut tpb_block)?;
    let _ = writeln!(out, "  stpb_init  {stpb}");
    let top = NotificEngine::init(&dev, &mut top_block, EngineConfig::top_sp(BpMode::None))?;
    let mut engines = [tpb, top];
    let intc_line = match id {
        ArchId::Mariana => Some(intc(&fake, &dev, t0)?),
        _ => None,
    };
    if let Some(line) = &intc_line {
        let _ = writeln!(out, "  intc       {line}");
    }
    let _ = writeln!(
        out,
        "  notific    TPB engine: 10 queues (sp_init) at {:#x}; single-queue engine at {:#x}",
        ens.get(),
        topsp.get()
    );

    let st = match args.mode {
        ModeArg::Phase => lanes(
            &fake,
            &dev,
            &mut engines,
            [ens, topsp],
            NqConfig::phase,
            args,
        )?,
        ModeArg::Tail => lanes(
            &fake,
            &dev,
            &mut engines,
            [ens, topsp],
            NqConfig::tail,
            args,
        )?,
    };
    let _ = writeln!(
        out,
        "  rings      {} NQs x {} entries from NOTIFICATIONS_INIT_V2 (bus {:#x}, ...), adopted, {} mode",
        st.rings,
        RING_BYTES / 16,
        st.bus,
        mode_name(args.mode)
    );
    let ok = st.lost == 0 && st.duplicated == 0 && st.drained == st.posted;
    let writes = fake.count(abi::BAR_WRITE) - st.setup_writes;
    let _ = writeln!(
        out,
        "  traffic    posted = {}, drained = {}, lost = {}, duplicated = {}",
        st.posted, st.drained, st.lost, st.duplicated
    );
    let _ = writeln!(
        out,
        "  ioctls     {} BAR_WRITE, {} BAR_READ in all ({} BAR_WRITE during traffic and resets, {} drain calls)",
        fake.count(abi::BAR_WRITE),
        fake.count(abi::BAR_READ),
        writes,
        st.drain_calls
    );
    let _ = writeln!(
        out,
        "  dve        skipped: khal's DMA queue backend is the model's; the vendor's queue registers are not traced"
    );
    if !ok {
        return Err(Error::DeviceFault(Fault::Other(
            "notifications lost, duplicated or misrouted",
        ))
        .into());
    }
    if args.json {
        let v = serde_json::json!({
            "schema": SCHEMA,
            "arch": id.to_string(),
            "device": "fake",
            "mode": mode_name(args.mode),
            "posted": st.posted,
            "drained": st.drained,
            "lost": st.lost,
            "duplicated": st.duplicated,
            "rings": st.rings,
            "bar_writes": fake.count(abi::BAR_WRITE),
            "bar_reads": fake.count(abi::BAR_READ),
            "stpb_init": stpb,
            "intc": intc_line,
        });
        return Ok(format!("{v}\n"));
    }
    let _ = writeln!(
        out,
        "result: OK, every notification received once and in order"
    );
    Ok(out)
}

/// The rings from NOTIFICATIONS_INIT_V2 on the two engines (their blocks
/// `ens` and `topsp`), of `kind`'s kind (`--mode`), adopted and enabled;
/// the traffic; every ring reset. Its stats, with the rings' count, the
/// first one's bus address and the BAR writes before the traffic.
fn lanes<'a, K: ConsumeKind>(
    fake: &'a FakeDriver,
    dev: &'a Neuron<&'a FakeDriver>,
    engines: &mut [NotificEngine<'a, &'a Neuron<&'a FakeDriver>>; 2],
    [ens, topsp]: [DeviceAddr; 2],
    kind: fn(u32) -> NqConfig<K>,
    args: &DemoArgs,
) -> Result<Stats, NeuronError> {
    // Rings from NOTIFICATIONS_INIT_V2, adopted.
    let mut delay = SimDelay::new(fake.model());
    let mut lanes = Vec::new();
    for i in 0..11u32 {
        let (engine, block, idx, stride, dev_type) = if i < 10 {
            (0, ens, i, 40, NqDevType::NeuronCore)
        } else {
            (1, topsp, 0, 0, NqDevType::TopSp)
        };
        let nq = nq_id(dev_type, idx);
        fake.route_nq(nq, block.add(0x100 + stride * u64::from(idx)))?;
        let e = &mut engines[engine];
        let mut ring = dev.adopt_ring(nq, e.queue(idx)?, kind(RING_BYTES))?;
        ring.enable(e, &mut delay)?;
        let off = fake.bar0_offset(block)?;
        let next_seq = fake
            .model()
            .with_block(off, |m: &mut NotificModel, _| m.next_seq(idx))
            .unwrap_or(0);
        lanes.push(Lane {
            engine,
            block: off,
            idx,
            ring,
            next_seq,
        });
    }
    let setup_writes = fake.count(abi::BAR_WRITE);
    let mut st = traffic(fake, &mut lanes, &mut delay, args.notifications)?;
    for l in lanes.iter_mut() {
        l.ring.reset(&mut engines[l.engine], &mut delay)?;
    }
    st.rings = lanes.len();
    st.bus = lanes.first().map_or(0, |l| l.ring.memory().bus_addr());
    st.setup_writes = setup_writes;
    Ok(st)
}

/// `stpb_init` with valid configs (stopping before the first step whose
/// program is not traced [FACTS §13.6]), then the SP's notification engine
/// on `ens`, its ENS block (the C `sp_init`'s `nt` step), all through the
/// driver.
fn bring_up<'d, S: NeuronSys>(
    arch: AnyArch,
    dev: &'d Neuron<S>,
    t0: DeviceAddr,
    ens: &'d mut NotificBlock<'_>,
) -> Result<(String, NotificEngine<'d, &'d Neuron<S>>), NeuronError> {
    let parts = TpbParts::new(
        ENGINES.map(|o| t0.add(o)),
        t0,
        [SP_MEM, SP_REGS, ENS].map(|o| t0.add(o)),
    );
    let cfg = parts.config();
    let mut ran = 0u32;
    let mut last = String::new();
    let mut log = |e: khal::Engine, st: Step, _: khal::Result<()>| {
        ran += 1;
        last = format!("{e:?}.{}", st.name());
    };
    let stpb = match arch.dispatch(crate::demo::StpbInitLogged(dev, &cfg, &mut log)) {
        Ok(()) => "ok".to_string(),
        Err(Error::NotTraced(what)) => {
            format!("stopped at {last} (steps run: {ran}): not traced: {what}")
        }
        Err(e) => return Err(e.into()),
    };
    let engine = NotificEngine::init(dev, ens, EngineConfig::tpb(BpMode::None))?;
    Ok((stpb, engine))
}

/// MARIANA: every MSI-X vector masked then unmasked through BAR writes, a
/// cause the model latched read back through a BAR read [004 §4]; the
/// blocks at demo offsets in TPB 0's window.
fn intc<S: NeuronSys>(
    fake: &FakeDriver,
    dev: &Neuron<S>,
    t0: DeviceAddr,
) -> Result<String, NeuronError> {
    let (msix, errtrig) = (t0.add(MSIX), t0.add(ERRTRIG));
    let msix_off = fake.mount(msix, MsixModel::new())?;
    let errtrig_off = fake.mount(errtrig, ErrtrigModel::new())?;
    let mut intc = Intc::<khal::Mariana>::new(msix)?;
    intc.set_errtrig_base(0, errtrig)?;
    let mask = || {
        fake.model()
            .with_block(msix_off, |b: &mut MsixModel, _| b.mask())
    };
    for v in 0..=7 {
        intc.mask_vector(dev, v)?;
    }
    let masked = mask().unwrap_or(0);
    for v in 0..=7 {
        intc.unmask_vector(dev, v)?;
    }
    let unmasked = mask().unwrap_or(u32::MAX);
    let line = ErrtrigLine::new(0, 1, 2, 31)?;
    fake.model()
        .with_block(errtrig_off, |e: &mut ErrtrigModel, _| e.raise(1, 2, 31));
    let cause = intc.read_cause(dev, line)?;
    if masked != 0xFF || unmasked != 0 || cause & (1 << 31) == 0 {
        return Err(
            Error::DeviceFault(Fault::Other("MSI-X mask or cause did not read back")).into(),
        );
    }
    Ok(format!(
        "vectors 0..7 masked (mask {masked:#04x}) then unmasked ({unmasked:#04x}); cause latched by the model read back {cause:#010x}"
    ))
}

/// The model posts bursts on every queue while the host drains them.
fn traffic<K: ConsumeKind>(
    fake: &FakeDriver,
    lanes: &mut [Lane<'_, K>],
    delay: &mut impl embedded_hal::delay::DelayNs,
    total: u64,
) -> Result<Stats, NeuronError> {
    let mut st = Stats::default();
    let mut buf = [NqEntry::default(); 128];
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let mut stalled = 0u32;
    while st.posted < total {
        let before = st.posted;
        for l in lanes.iter_mut() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let want = (1 + x % MAX_BURST).min(total - st.posted) as u32;
            if want == 0 {
                break;
            }
            let idx = l.idx;
            let n = fake
                .model()
                .with_block(l.block, |m: &mut NotificModel, bus| m.post(bus, idx, want))
                .ok_or(Error::InvalidArgument("demo: notific model not mounted"))??;
            st.posted += u64::from(n);
            loop {
                let k = l.ring.drain_with(delay, &mut buf)?;
                st.drain_calls += 1;
                if k == 0 {
                    break;
                }
                for e in buf.iter().take(k) {
                    let seq = entry_seq(e.bytes());
                    if seq == l.next_seq {
                        l.next_seq += 1;
                    } else if seq > l.next_seq {
                        st.lost += seq - l.next_seq;
                        l.next_seq = seq + 1;
                    } else {
                        st.duplicated += 1;
                    }
                }
                st.drained += k as u64;
            }
        }
        // A device that accepts nothing on empty rings: bounded, then an error.
        stalled = if st.posted == before { stalled + 1 } else { 0 };
        if stalled > 3 {
            return Err(Error::Timeout("device accepting notifications on an empty NQ").into());
        }
    }
    Ok(st)
}

/// The node: what needs no untraced address.
fn node_demo(args: &DemoArgs, id: ArchId, path: &Path) -> Result<String, NeuronError> {
    let dev = Neuron::open_path(path)?;
    if dev.arch() != id {
        return Err(
            Error::InvalidArgument("--arch differs from the arch the driver reports").into(),
        );
    }
    let mut out = String::new();
    let _ = writeln!(out, "khal demo: {id} through {}", path.display());
    out.push_str(&open_line(&dev));
    let chunk = dev.alloc_host(4096, HostAlloc::default())?;
    let pattern: Vec<u8> = (0..64u8).map(|i| i.wrapping_mul(37)).collect();
    chunk.write(0, &pattern)?;
    let mut back = vec![0u8; pattern.len()];
    chunk.read(0, &mut back)?;
    if back != pattern {
        return Err(Error::DeviceFault(Fault::Other("DMA chunk did not read back")).into());
    }
    let _ = writeln!(
        out,
        "  dma        MEM_ALLOC_V2MT {} bytes at bus {:#x} (host window {:#x}), mapped, written and read back",
        chunk.len(),
        chunk.bus_addr(),
        khal::std_adapter::neuron::dma::host_window(id)
    );
    drop(chunk);
    let nq = nq_id(NqDevType::NeuronCore, 0);
    let ring = dev.notifications_init(nq, RING_BYTES)?;
    let _ = writeln!(
        out,
        "  nq         NOTIFICATIONS_INIT_V2 NC 0 NOTIFY engine 0 (queue id {}): {} bytes at bus {:#x}, mapped",
        nq.queue_id(),
        ring.len(),
        ring.bus_addr()
    );
    let _ = writeln!(
        out,
        "  notific    skipped: the NOTIFIC blocks' device addresses on real silicon are not traced (FACTS §14.5, §15.6)"
    );
    let _ = args.notifications;
    let _ = writeln!(
        out,
        "result: OK, the driver interface answered as FACTS §14 says"
    );
    Ok(out)
}
