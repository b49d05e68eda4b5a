//! A guided tour of the main entry points, each a runnable example on the
//! built-in device model (host builds with `std` and all three arches).
//!
//! # Bind an arch and read the register matrix
//!
//! ```
//! use khal::engine::{self, ArchFn, EngineOps};
//! use khal::family::{DveTables, TpbBases};
//! use khal::{AnyArch, ArchId, Cayman, DeviceAddr, Error};
//!
//! // Static: the arch is a type; a tile index is validated once.
//! let tile = Cayman::tile(4)?;
//! assert_eq!(Cayman::tpb_base(tile), DeviceAddr(0x8020_0000_0000)); // mesh high half
//! // 8 tiles: a typed error, never a panic. `OutOfRange`'s numbers are `u32`,
//! // saturating (`u32::MAX` reads "u32::MAX or more"); build one with
//! // `Error::out_of_range`, which takes the full 64-bit value and bound.
//! assert_eq!(Cayman::tile(8), Err(Error::OutOfRange { what: "tpb tile", value: 8, limit: 8 }));
//! assert_eq!(Cayman::tile(8), Err(Error::out_of_range("tpb tile", 8, 8)));
//! assert_eq!(Cayman::DVE_TABLES.param_ram_base.0, 0x2B8_7000);
//!
//! // Run time: an arch id from the device; 0 ("nothing bound") is refused.
//! let any = AnyArch::new(4)?;
//! assert_eq!(any.id(), ArchId::Mariana);
//! assert!(AnyArch::new(0).is_err());
//! // An operation written once over the arch runs on the bound one.
//! struct AxiOffset(u32, u64);
//! impl ArchFn for AxiOffset {
//!     type Output = khal::Result<DeviceAddr>;
//!     fn call<A: EngineOps>(self) -> Self::Output {
//!         Ok(engine::get_axi_offset(A::tile(self.0)?, self.1))
//!     }
//! }
//! assert_eq!(any.dispatch(AxiOffset(0, 0x100))?, DeviceAddr(0x20_0000_0100));
//! # Ok::<(), Error>(())
//! ```
//!
//! # Check every access against the CSR windows
//!
//! [`Csr`](crate::csr::Csr) is the region layer of `csr_read` /
//! `csr_write` [000 §1] over an inner backend (here plain memory standing for
//! a BAR): an access is checked against the registered windows, then
//! translated. It is itself an [`Mmio`](crate::Mmio), so every driver runs
//! on it unchanged.
//!
//! ```
//! use khal::csr::{Csr, CsrRegion, RegionTable};
//! use khal::std_adapter::HeapMmio;
//! use khal::{DeviceAddr, Error, Mmio};
//!
//! // Device addresses [0x20_0000_0000, +64 KiB) live at offset 0x1_0000 of the BAR.
//! let bar = HeapMmio::new(DeviceAddr(0), 0x10_0000);
//! let mut regions = RegionTable::<4>::new(); // at most 4 windows, no heap
//! regions.insert(CsrRegion::new(
//!     DeviceAddr(0x20_0000_0000),
//!     DeviceAddr(0x20_0001_0000),
//!     DeviceAddr(0x1_0000),
//!     0,
//! )?)?;
//! let csr = Csr::new(bar, regions);
//! csr.write32(DeviceAddr(0x20_0000_0010), 7)?;
//! assert_eq!(csr.inner().read32(DeviceAddr(0x1_0010))?, 7); // translated
//!
//! // The last dword starts at `end - 4`; no region holds 0x30_0000_0000. The
//! // error holds the exact 64-bit address (an `ErrorAddr`: `get()`, `== u64`).
//! assert_eq!(csr.read32(DeviceAddr(0x20_0000_FFFE)), Err(Error::out_of_window(0x20_0000_FFFE)));
//! match csr.read32(DeviceAddr(0x30_0000_0000)) {
//!     Err(Error::NoRegion { addr }) => assert!(addr == 0x30_0000_0000),
//!     other => unreachable!("{other:?}"),
//! }
//!
//! // One binary search over the sorted windows, then one compare.
//! let mut many = RegionTable::<16>::new();
//! for i in 0..8u64 {
//!     let start = 0x20_0000_0000 + i * 0x10_0000;
//!     many.insert(CsrRegion::identity(DeviceAddr(start), DeviceAddr(start + 0x1_0000), 0)?)?;
//! }
//! assert_eq!(many.translate(DeviceAddr(0x20_0030_0004))?, DeviceAddr(0x20_0030_0004));
//! assert_eq!(many.translate(DeviceAddr(0x20_0031_0000)), Err(Error::no_region(0x20_0031_0000)));
//! // A table is its slots: 56 bytes each and a word.
//! assert_eq!(core::mem::size_of::<RegionTable<4>>(), 232);
//! let csr = Csr::new(HeapMmio::new(DeviceAddr(0x20_0000_0000), 0x80_0000), many); // Csr<_, 16>
//! assert_eq!(csr.read32(DeviceAddr(0x20_0070_FFFC))?, 0);
//! # Ok::<(), Error>(())
//! ```
//!
//! A driver that holds a register block for its whole life resolves it once:
//! [`Csr::window`](crate::csr::Csr::window) looks the region up and
//! checks the block's ends, and the [`CsrWindow`](crate::csr::CsrWindow)
//! it returns is an `Mmio` whose access tests only that window and adds the
//! translation. Over a `VolatileWindow` (firmware) the block is resolved into
//! a part of that window answering the CSR addresses, so an access is one
//! check and the store; and
//! [`Csr::bind_block`](crate::csr::Csr::bind_block) binds a block: a
//! constant register is then one store on the core (figures in
//! `docs/PERFORMANCE.md`).
//!
//! ```
//! use khal::csr::{Csr, CsrRegion, RegionTable};
//! use khal::notific::{BpMode, EngineConfig, Flavour, NotificBlocks, NotificEngine};
//! use khal::std_adapter::model::{notific::NotificModel, DeviceModel};
//! use khal::{DeviceAddr, Error, Mmio};
//!
//! // The device model answers at 0x3053_5000; the driver's CSR address of
//! // that block is 0x20_0000_0000 (a window forwarded there).
//! const ENS: DeviceAddr = DeviceAddr(0x3053_5000);
//! let device = DeviceModel::new();
//! device.mount(ENS, NotificModel::new(Flavour::TenQueue))?;
//! let mut regions = RegionTable::<4>::new();
//! regions.insert(CsrRegion::new(DeviceAddr(0x20_0000_0000), DeviceAddr(0x20_0000_1000), ENS, 0)?)?;
//! let csr = Csr::new(&device, regions);
//!
//! // Resolved once; the engine runs on it as on any `Mmio`.
//! let regs = csr.window(DeviceAddr(0x20_0000_0000), 0x1000)?;
//! let blocks = NotificBlocks::new(); // the device's notification blocks
//! let mut block = blocks.take(DeviceAddr(0x20_0000_0000))?;
//! let engine = NotificEngine::init(&regs, &mut block, EngineConfig::tpb(BpMode::None))?;
//! engine.timestamp_inc()?; // a read of the model's register, through the window
//! // Outside the window: refused by it, whatever the table holds there.
//! assert_eq!(regs.read32(DeviceAddr(0x20_0000_1000)), Err(Error::out_of_window(0x20_0000_1000)));
//! # Ok::<(), Error>(())
//! ```
//!
//! # Bring up a notification engine and drain an NQ ring
//!
//! ```
//! use std::sync::Arc;
//! use khal::notific::{BpMode, EngineConfig, Flavour, NotificBlocks, NotificEngine, NqConfig, NqEntry, NqRing};
//! use khal::std_adapter::model::{notific::NotificModel, DeviceModel};
//! use khal::std_adapter::{DmaBuf, SimDelay};
//! use khal::DeviceAddr;
//!
//! const ENS: DeviceAddr = DeviceAddr(0x3053_5000);
//! let device = DeviceModel::new();
//! device.mount(ENS, NotificModel::new(Flavour::TenQueue))?;
//!
//! // The device's notification blocks, one set per device: each block is
//! // taken once (taken again while it lives: `BlockTaken`). `init` borrows
//! // it for as long as the engine, its queue tokens and their rings live, so
//! // a second engine on it meanwhile does not compile. Typed config: a TPB's
//! // 10-queue flavour, no back-pressure (the C's bp mode 1), uart mode 0
//! // [004 §2].
//! let blocks = NotificBlocks::new();
//! let mut ens = blocks.take(ENS)?;
//! let mut engine = NotificEngine::init(&device, &mut ens, EngineConfig::tpb(BpMode::None))?;
//!
//! // A 64-entry host ring for NQ 2, read by phase bit (no register read per
//! // entry, no wait): a phase ring, `NqConfig::phase`, whose drains take no
//! // delay. (`NqConfig::tail` builds a tail ring: its drains take the delay
//! // of their wait for the last entry to land.)
//! // The engine hands NQ 2 out once (a second `queue(2)` is `QueueTaken`); the
//! // ring owns it, so draining needs no engine.
//! let ring_mem = Arc::new(DmaBuf::new(64 * 16, 4096)?);
//! device.attach_host(ring_mem.clone());
//! // A refused config gives the memory and the token back (a `RefusedRing`,
//! // which `?` turns into its `Error`): here a ring larger than its memory.
//! let too_big = NqConfig::phase(128 * 16);
//! let refused = match NqRing::configure_host(&*ring_mem, engine.queue(2)?, too_big) {
//!     Err(refused) => refused,
//!     Ok(_) => unreachable!("128 entries do not fit 64"),
//! };
//! assert_eq!(refused.error(), khal::Error::InvalidArgument("nq size larger than its memory"));
//! let (mem, queue) = refused.into_parts();
//! let cfg = NqConfig::phase(64 * 16);
//! let mut ring = NqRing::configure_host(mem, queue, cfg)?;
//! assert_eq!(engine.queue(2).map(|_| ()), Err(khal::Error::QueueTaken(2)));
//! let mut delay = SimDelay::new(&device); // simulated time: waits cost nothing
//! ring.enable(&mut engine, &mut delay)?;
//!
//! // The model plays the device: 10 notifications into the ring, phase byte last.
//! device.with_block(ENS, |nm: &mut NotificModel, bus| nm.post(bus, 2, 10)).unwrap()?;
//!
//! let mut out = [NqEntry::default(); 16];
//! let n = ring.drain(&mut out)?; // one head write
//! assert_eq!(n, 10);
//! assert!(out[0].phase()); // the first pass carries phase 1 [FACTS §11]
//! assert_eq!(ring.drain(&mut out)?, 0); // empty poll: no write
//!
//! // Phase mode reads no register while draining, so a dead device looks
//! // like an empty ring: `Ok(0)` for ever. `tail_offset` is the liveness
//! // probe: one checked read of nq_tail_ptr.
//! device.set_gone(true); // every read is all ones from now on
//! assert_eq!(ring.drain(&mut out)?, 0);
//! assert!(matches!(
//!     ring.tail_offset(),
//!     Err(khal::Error::DeviceFault(khal::Fault::AllOnes { .. }))
//! ));
//! # Ok::<(), khal::Error>(())
//! ```
//!
//! A refused ring converts with `?` into khal's `Error` and, on a host
//! (`std`), into `Box<dyn std::error::Error>`, as in
//! `fn main() -> Result<(), Box<dyn Error>>`: the box holds the error alone,
//! so the borrowed ring memory need not outlive `main`.
//!
//! # Async: a drain and a device task on one executor
//!
//! `khal::asynch::drain` waits, woken by the NQ's interrupt (an
//! `NqSignal`) or bounded by a budget on an async `DelayNs`, then drains.
//! On the device model, `SimDelay`'s async delay advances simulated time and
//! yields to the executor once, so a task posting on the same executor runs
//! while the drain waits (here `embassy_futures`' `block_on` and `join`; an
//! embassy `Executor`, tokio's `join!` or a spawned tokio task work the same,
//! see `examples/async-embassy` and `examples/async-tokio`).
//!
//! ```
//! use std::sync::Arc;
//! use khal::asynch::{self, NqSignal};
//! use khal::notific::{BpMode, EngineConfig, Flavour, NotificBlocks, NotificEngine, NqConfig, NqEntry, NqRing};
//! use khal::wait::Budget;
//! use khal::std_adapter::model::{notific::NotificModel, DeviceModel};
//! use khal::std_adapter::{DmaBuf, SimDelay};
//! use khal::DeviceAddr;
//!
//! const ENS: DeviceAddr = DeviceAddr(0x3053_5000);
//! let device = DeviceModel::new(); // Send + Sync: an Arc<DeviceModel> crosses threads
//! device.mount(ENS, NotificModel::new(Flavour::TenQueue))?;
//! let signal = Arc::new(NqSignal::new()); // an interrupt handler raises it
//! device.with_block(ENS, |nm: &mut NotificModel, _| nm.set_interrupt(2, signal.clone()));
//! let blocks = NotificBlocks::new();
//! let mut ens = blocks.take(ENS)?;
//! let mut engine = NotificEngine::init(&device, &mut ens, EngineConfig::tpb(BpMode::None))?;
//! let mem = Arc::new(DmaBuf::new(16 * 16, 4096)?);
//! device.attach_host(mem.clone());
//! let cfg = NqConfig::phase(16 * 16);
//! let mut ring = NqRing::configure_host(&*mem, engine.queue(2)?, cfg)?;
//! ring.enable(&mut engine, &mut SimDelay::new(&device))?;
//!
//! let drain = async {
//!     let (mut delay, mut out, mut got) = (SimDelay::new(&device), [NqEntry::default(); 8], 0);
//!     let budget = Budget { period_us: 10, polls: 100 }; // every wait is bounded
//!     while got < 40 {
//!         got += asynch::drain(&mut ring, &signal, &mut delay, budget, &mut out).await?;
//!     }
//!     Ok::<usize, khal::Error>(got)
//! };
//! let post = async {
//!     for _ in 0..8 {
//!         let posted = device.with_block(ENS, |nm: &mut NotificModel, bus| nm.post(bus, 2, 5));
//!         assert_eq!(posted, Some(Ok(5)));
//!         embassy_futures::yield_now().await; // the device's pace
//!     }
//! };
//! let (got, ()) = embassy_futures::block_on(embassy_futures::join::join(drain, post));
//! assert_eq!(got?, 40); // 40 entries through a 16-entry ring, none lost
//! # Ok::<(), khal::Error>(())
//! ```
//!
//! The delay is the executor's: `embassy_time::Delay` on embassy,
//! `khal::std_adapter::TokioDelay` on tokio (khal's `tokio`
//! feature; it needs a runtime with its time driver), `SimDelay` on the
//! device model. Only phase rings drain asynchronously: the async drain of a
//! tail ring does not compile.
//!
//! # Set up a firmware crate
//!
//! A firmware crate depends on khal with one arch feature and on four more
//! things khal does not choose for it: `embedded-hal` (the `DelayNs` every
//! bounded wait takes), a runtime (`cortex-m-rt`, `riscv-rt`), a panic
//! handler (`panic-halt`, or `defmt`'s), and a critical-section
//! implementation (the MSI-X INTC's shadow and `NqSignal` lock through
//! `critical-section`; only the firmware knows whether its core is alone):
//!
//! ```toml
//! [dependencies]
//! khal = { version = "0.1", default-features = false, features = ["cayman"] }
//! embedded-hal = "1.0"
//! panic-halt = "1.0"
//!
//! [target.'cfg(target_arch = "arm")'.dependencies]
//! cortex-m = { version = "0.7", features = ["critical-section-single-core"] }
//! cortex-m-rt = "0.7"
//!
//! [target.'cfg(target_arch = "riscv32")'.dependencies]
//! riscv = { version = "0.11", features = ["critical-section-single-hart"] }
//! riscv-rt = "0.12"
//! ```
//!
//! The binary is `#![no_std]` and `#![no_main]`, names the panic handler
//! (`use panic_halt as _;`) and the runtime's entry point
//! (`#[cortex_m_rt::entry]`, `#[riscv_rt::entry]`): `examples/fw-cayman`
//! and the library the firmware images share, `examples/firmware`, are a
//! complete one (their panic handler is khal's panic-never proof: an image
//! links only if no panic path is reachable).
//!
//! **`undefined symbol: _critical_section_1_0_acquire`** at link time (or
//! `_release`) means no critical-section implementation is linked:
//! `critical-section` declares these two symbols and one crate of the
//! binary must define them. Enable `critical-section-single-core` on
//! `cortex-m`, `critical-section-single-hart` on `riscv`, or pick a
//! multi-core implementation for a multi-core part. A host build gets the
//! `std` implementation through `khal-std` (feature `std`).
//!
//! # Record a golden trace
//!
//! ```
//! use khal::notific::{BpMode, EngineConfig, NotificBlocks, NotificEngine, UartMode, NOTIFIC};
//! use khal::std_adapter::{HeapMmio, Op, Trace};
//! use khal::DeviceAddr;
//!
//! let base = DeviceAddr(0x1000);
//! let mmio = Trace::new(HeapMmio::new(base, 0x1000)).with_block(base, 0x1000, &NOTIFIC);
//! let cfg = EngineConfig::top_sp(BpMode::All).with_uart_mode(UartMode(7)); // single-queue flavour
//! let blocks = NotificBlocks::new();
//! let mut block = blocks.take(base)?;
//! let mut e = NotificEngine::init(&mmio, &mut block, cfg)?;
//! mmio.clear();
//! e.set_axi_id(5, true)?;
//! // nq_axi_id, then a read-modify-write of wob_ctrl bit 0 only [004 §2].
//! assert_eq!(mmio.ops(), vec![(Op::Write, 0x2C, 5), (Op::Read, 0xBC, 1), (Op::Write, 0xBC, 1)]);
//! assert_eq!(mmio.accesses()[0].reg.unwrap().to_string(), "notific.nq_axi_id");
//! # Ok::<(), khal::Error>(())
//! ```
//!
//! # Mask an MSI-X vector (MARIANA)
//!
//! ```
//! use khal::intc::Intc;
//! use khal::std_adapter::HeapMmio;
//! use khal::{DeviceAddr, Error, Mariana, Mmio};
//!
//! let msix = DeviceAddr(0x2000_0000);
//! let mmio = HeapMmio::new(msix, 0x1000);
//! let intc = Intc::<Mariana>::new(msix)?;
//! intc.mask_vector(&mmio, 3)?;
//! assert_eq!(mmio.read32(msix.add(16))?, 1 << 3); // set-mask gets the shadow
//! assert_eq!(mmio.read32(msix.add(2060 + 16 * 3))?, 1); // per-vector control
//! assert_eq!(intc.mask_vector(&mmio, 8), Err(Error::InvalidArgument("msi-x vector > 7")));
//! # Ok::<(), Error>(())
//! ```
//!
//! `Intc<Cayman>` does not compile: CAYMAN's INTC is not traced.
//!
//! # Load the DVE tables
//!
//! ```
//! use khal::dve::{DveLoader, DvePlacement, DveTableSet, LoadOutcome, DVE_QUEUE_NAME};
//! use khal::family::TpbBases;
//! use khal::wait::Budget;
//! use khal::std_adapter::ModelAllocator;
//! use khal::std_adapter::model::dma_engine::{DmaEngineModel, ModelDmaQueue};
//! use khal::std_adapter::model::DeviceModel;
//! use khal::std_adapter::SimDelay;
//! use khal::Cayman;
//!
//! let device = DeviceModel::new();
//! let mut alloc = ModelAllocator::with_default_arena(&device);
//! let mut queue = ModelDmaQueue::mount(&device, DmaEngineModel::DEFAULT_BASE, DVE_QUEUE_NAME, 8)?;
//! let placement = DvePlacement::for_tile(Cayman::tile(0)?)?; // TPB AXI base + table offsets
//! let (op, cf, cs, dp) = ([1u8; 64], [2u8; 64], [3u8; 64], [4u8; 64]); // the caller's tables
//! let tables = DveTableSet::five(&op, &cf, &cs, &dp); // + the default reciprocal param RAM
//! let mut loader = DveLoader::new();
//! let mut delay = SimDelay::new(&device);
//! let first = loader.load(&mut alloc, &mut queue, &mut delay, Budget::NQ_DEFAULT, &placement, &tables)?;
//! assert!(matches!(first, LoadOutcome::Loaded { .. }));
//! // Same fingerprint, same place: no DMA.
//! let again = loader.load(&mut alloc, &mut queue, &mut delay, Budget::NQ_DEFAULT, &placement, &tables)?;
//! assert!(matches!(again, LoadOutcome::AlreadyResident { .. }));
//! # Ok::<(), khal::Error>(())
//! ```
//!
//! # On a real host: the vendor driver's device node
//!
//! With the `neuron` feature (Linux), `khal::std_adapter::neuron` talks to a
//! device through the vendor driver's `/dev/neuronN` [FACTS §14]: every
//! register access is a BAR_READ / BAR_WRITE ioctl, checked first against
//! the arch's BAR0 windows (the kernel bounds writes, never reads); DMA
//! memory is the driver's pinned host chunks, whose bus address already
//! carries the device's host window; NQ rings are allocated and
//! base-programmed by the driver and adopted by `NqRing`. `DmaBuf` is for
//! the device model and tests only: heap memory is never DMA memory there
//! (§14.4). The same code runs on the in-process fake driver, below.
#![cfg_attr(
    feature = "neuron",
    doc = r#"
```
use khal::dma::DmaMemory;
use khal::family::TpbBases;
use khal::notific::{BpMode, EngineConfig, Flavour, NotificBlocks, NotificEngine, NqConfig, NqEntry};
use khal::std_adapter::model::notific::NotificModel;
use khal::std_adapter::neuron::{FakeDriver, HostAlloc, Neuron, NqDevType, NqId, NqType};
use khal::std_adapter::SimDelay;
use khal::{ArchId, Cayman, Error, Mmio};

// On a host with the driver: `let dev = Neuron::open(0)?;` (read-write: attached).
let dev = Neuron::with_sys(FakeDriver::new(ArchId::Cayman))?;
assert_eq!(dev.arch(), ArchId::Cayman);

// Registers: one BAR_WRITE at bar_address[0] + 0xE000_0000 + 0x260_0000
// (TPB 4's window, FACTS §14.3); a device-internal address (bit 35) has no
// BAR0 offset and is refused before any ioctl.
let tile4 = <Cayman as TpbBases>::TPB_BASES[4];
dev.write32(tile4.add(0x260_0000), 1)?;
let psum = tile4.add(0x8_0200_0000);
assert_eq!(dev.read32(psum), Err(Error::out_of_window(psum.get())));

// DMA memory: MEM_ALLOC_V2MT (align 0), the bus address as the driver says.
let buf = dev.alloc_host(4096, HostAlloc::default())?;
assert_eq!(buf.bus_addr() & 0x4000_0000_0000, 0x4000_0000_0000);

// An NQ the driver allocates and base-programs (NOTIFICATIONS_INIT_V2),
// adopted by khal's ring on the queue the caller says it is. The NOTIFIC
// block's address on real silicon is not traced: the fake's is a choice.
let ens = <Cayman as TpbBases>::TPB_BASES[0].add(0x10_0000);
let fake = dev.sys();
fake.mount(ens, NotificModel::new(Flavour::TenQueue))?;
let id = NqId { dev_type: NqDevType::NeuronCore, dev_id: 0, nq_type: NqType::Notify, engine_index: 2 };
fake.route_nq(id, ens.add(0x100 + 40 * 2))?;
let blocks = NotificBlocks::new(); // this device's notification blocks
let mut ens_block = blocks.take(ens)?;
let mut engine = NotificEngine::init(&dev, &mut ens_block, EngineConfig::tpb(BpMode::None))?;
let mut ring = dev.adopt_ring(id, engine.queue(2)?, NqConfig::phase(1024))?;
let mut delay = SimDelay::new(fake.model());
ring.enable(&mut engine, &mut delay)?;
let block = fake.bar0_offset(ens)?;
fake.model().with_block(block, |m: &mut NotificModel, bus| m.post(bus, 2, 10)).unwrap()?;
let mut out = [NqEntry::default(); 16];
assert_eq!(ring.drain(&mut out)?, 10); // its head write: one BAR_WRITE
# Ok::<(), Box<dyn std::error::Error>>(())
```
"#
)]
//!
//! `khal probe /dev/neuron0` prints what the node reports; `khal demo
//! --device fake` runs the demo through this path on the fake.
