//! Conformance of the driver backend against the in-process fake driver
//! [FACTS §14]: command numbers and arguments as the kernel decodes them,
//! the BAR0 window checks before any ioctl, batching, refusals, DMA chunks,
//! NQ adoption and NC reset, on every arch.

use khal_core::dma::DmaMemory;
use khal_core::family::TpbBases;
use khal_core::notific::{
    BpMode, EngineConfig, Flavour, NotificBlocks, NotificEngine, NqConfig, NqEntry,
};
use khal_core::{ArchId, DeviceAddr, Error, Mmio};
use khal_std::model::notific::{entry_seq, NotificModel};
use khal_std::neuron::abi::{self, Arg, BarRw, MemAllocV2Mt, NotificationsInitV2};
use khal_std::neuron::dma::host_window;
use khal_std::neuron::fake::FAKE_BAR0_KADDR;
use khal_std::neuron::nq::RESET_BUDGET;
use khal_std::neuron::window::{SUNDA_BAR0_DEVICE, TPB_BAR0_OFFSET, TPB_WINDOW_BYTES};
use khal_std::neuron::{
    Errno, FakeDriver, HostAlloc, Neuron, NeuronError, NeuronSys, NqDevType, NqId, NqType,
};
use khal_std::SimDelay;

fn tpb(n: usize) -> DeviceAddr {
    <khal_arch_cayman::Cayman as TpbBases>::TPB_BASES[n]
}

fn open(arch: ArchId) -> Neuron<FakeDriver> {
    Neuron::with_sys(FakeDriver::new(arch)).unwrap()
}

/// The model's dword at BAR0 offset `off`.
fn at(n: &Neuron<FakeDriver>, off: u64) -> u32 {
    n.sys().model().read32(DeviceAddr(off)).unwrap()
}

/// The last dword of a window and the first past it, per arch.
fn window_end(arch: ArchId) -> (DeviceAddr, u64) {
    match arch {
        ArchId::Sunda => (
            DeviceAddr(SUNDA_BAR0_DEVICE + 0x4000_0000 - 4),
            0x4000_0000 - 4,
        ),
        _ => (
            tpb(3).add(TPB_WINDOW_BYTES - 4),
            TPB_BAR0_OFFSET + 3 * TPB_WINDOW_BYTES + TPB_WINDOW_BYTES - 4,
        ),
    }
}

#[test]
fn open_maps_each_arch_and_keeps_bar0() {
    for arch in ArchId::ALL {
        let n = open(arch);
        assert_eq!(n.arch(), arch);
        assert_eq!(n.revision(), 1);
        assert_eq!(n.bar0_kernel_addr(), FAKE_BAR0_KADDR);
        assert!(n.bar_sizes()[0] > 0);
        assert_eq!(n.sys().log(), [abi::DEVICE_BASIC_INFO, abi::DEVICE_INFO]);
    }
}

#[test]
fn an_unknown_arch_is_a_typed_error() {
    let f = FakeDriver::new(ArchId::Cayman);
    f.report_arch(7);
    assert_eq!(
        Neuron::with_sys(f).unwrap_err(),
        NeuronError::UnknownArch(7)
    );
}

#[test]
fn cayman_tile4_seq_lands_at_bar0_0xe000_0000_plus() {
    let n = open(ArchId::Cayman);
    n.write32(tpb(4).add(0x260_0000), 0xA5A5_0001).unwrap();
    assert_eq!(at(&n, 0xE000_0000 + 0x260_0000), 0xA5A5_0001);
    assert_eq!(n.read32(tpb(4).add(0x260_0000)), Ok(0xA5A5_0001));
    // MARIANA's BAR0 layout is CAYMAN's [FACTS §14.3].
    let m = open(ArchId::Mariana);
    m.write32(tpb(4).add(0x260_0000), 9).unwrap();
    assert_eq!(at(&m, 0xE000_0000 + 0x260_0000), 9);
}

#[test]
fn sunda_offsets_are_device_minus_0xfff_c000_0000() {
    let n = open(ArchId::Sunda);
    n.write32(DeviceAddr(SUNDA_BAR0_DEVICE + 0x400_0010), 3)
        .unwrap();
    assert_eq!(at(&n, 0x400_0010), 3);
}

#[test]
fn a_windows_last_dword_passes_and_the_next_is_refused_before_any_ioctl() {
    for arch in ArchId::ALL {
        let n = open(arch);
        let (last, off) = window_end(arch);
        n.write32(last, 0x1234).unwrap();
        assert_eq!(at(&n, off), 0x1234, "{arch}");
        assert_eq!(n.read32(last), Ok(0x1234));
        n.sys().clear_log();
        assert_eq!(
            n.write32(last.add(4), 1),
            Err(Error::out_of_window(last.get() + 4))
        );
        assert_eq!(
            n.read32(last.add(4)),
            Err(Error::out_of_window(last.get() + 4))
        );
        // A burst whose last dword leaves the window names the first outside.
        assert_eq!(
            n.write_burst(DeviceAddr(last.get() - 4), &[1, 2, 3]),
            Err(Error::out_of_window(last.get() + 4))
        );
        assert!(n.sys().log().is_empty(), "{arch}: no ioctl");
    }
}

#[test]
fn addresses_outside_every_window_or_untraced_are_refused_before_any_ioctl() {
    let n = open(ArchId::Cayman);
    n.sys().clear_log();
    // Bit 35 (device-internal, PSUM) has no BAR0 offset [FACTS §14.3].
    let psum = tpb(0).add(0x8_0200_0000);
    assert_eq!(n.read32(psum), Err(Error::out_of_window(psum.get())));
    assert!(matches!(
        n.read32(DeviceAddr(0x80_0000_0100)),
        Err(Error::NotTraced(_))
    ));
    assert!(matches!(
        n.write32(tpb(0).add(2), 0),
        Err(Error::InvalidArgument(_))
    ));
    assert!(n.sys().log().is_empty());
    assert_eq!(n.sys().unchecked_reads(), 0);
}

#[test]
fn a_150_dword_read_is_two_ioctls_of_100_and_50() {
    let n = open(ArchId::Cayman);
    let base = tpb(1);
    let words: Vec<u32> = (0..150).map(|i| 0x1000 + i).collect();
    n.write_burst(base, &words).unwrap();
    n.sys().clear_log();
    let mut out = [0u32; 150];
    n.read_run(base, &mut out).unwrap();
    assert_eq!(out.to_vec(), words);
    assert_eq!(n.sys().log(), [abi::BAR_READ, abi::BAR_READ]);
    let mut hundred = [0u32; 100];
    n.read_run(base, &mut hundred).unwrap();
    assert_eq!(n.sys().count(abi::BAR_READ), 3);
}

#[test]
fn a_burst_is_one_bar_write_of_its_addresses_in_order() {
    let n = open(ArchId::Sunda);
    n.sys().clear_log();
    n.write_burst(DeviceAddr(SUNDA_BAR0_DEVICE + 0x100), &[5, 6, 7, 8])
        .unwrap();
    assert_eq!(n.sys().log(), [abi::BAR_WRITE]);
    assert_eq!(
        [at(&n, 0x100), at(&n, 0x104), at(&n, 0x108), at(&n, 0x10C)],
        [5, 6, 7, 8]
    );
    n.write_burst(DeviceAddr(SUNDA_BAR0_DEVICE), &[]).unwrap();
    assert_eq!(
        n.sys().log().len(),
        1,
        "an empty burst sends nothing (count >= 1)"
    );
}

#[test]
fn a_blocked_write_is_its_typed_error_naming_the_address_and_writes_nothing() {
    let n = open(ArchId::Cayman);
    let off = TPB_BAR0_OFFSET + 0x1000;
    n.sys().block(off + 8, 4);
    let addr = tpb(0).add(0x1000);
    assert_eq!(
        n.bar_write(addr, &[1, 2, 3]),
        Err(NeuronError::WriteRefused { addr })
    );
    assert_eq!(
        n.write32(addr.add(8), 1),
        Err(Error::no_region(addr.get() + 8))
    );
    assert_eq!(
        [at(&n, off), at(&n, off + 4)],
        [0, 0],
        "nothing of the burst written"
    );
    n.write32(addr.add(12), 4).unwrap();
    assert_eq!(at(&n, off + 12), 4);
}

/// A BAR_READ / BAR_WRITE argument straight through the seam.
fn raw_bar(f: &FakeDriver, cmd: u32, addrs: &[u64], data: &mut [u32]) -> Result<i32, Errno> {
    let arg = BarRw {
        bar: 0,
        address: addrs.as_ptr() as u64,
        data: data.as_mut_ptr() as u64,
        count: addrs.len() as u32,
        ..BarRw::default()
    };
    f.ioctl(cmd, &mut arg.to_bytes())
}

#[test]
fn the_fake_applies_the_kernels_bar_rules() {
    let f = FakeDriver::new(ArchId::Cayman);
    // Past BAR0 (`off > bar_size`): EINVAL.
    let past = FAKE_BAR0_KADDR + 0x1_0000_0004;
    assert_eq!(
        raw_bar(&f, abi::BAR_WRITE, &[past], &mut [1]),
        Err(Errno::EINVAL)
    );
    // More than 100 reads: EINVAL; 100 pass.
    let addrs: Vec<u64> = (0..101).map(|i| FAKE_BAR0_KADDR + 4 * i).collect();
    let mut data = [0u32; 101];
    assert_eq!(
        raw_bar(&f, abi::BAR_READ, &addrs, &mut data),
        Err(Errno::EINVAL)
    );
    assert_eq!(
        raw_bar(&f, abi::BAR_READ, &addrs[..100], &mut data[..100]),
        Ok(0)
    );
    // count 0, a bar other than 0 (2 for reads): EINVAL.
    assert_eq!(
        raw_bar(&f, abi::BAR_WRITE, &[], &mut []),
        Err(Errno::EINVAL)
    );
    let mut arg = BarRw {
        bar: 1,
        count: 1,
        ..BarRw::default()
    };
    assert_eq!(
        f.ioctl(abi::BAR_READ, &mut arg.to_bytes()),
        Err(Errno::EINVAL)
    );
    arg.bar = 0;
    // A short argument, an unknown command.
    assert_eq!(
        f.ioctl(abi::BAR_READ, &mut arg.to_bytes()[..31].to_vec()),
        Err(Errno::EFAULT)
    );
    assert_eq!(
        f.ioctl(abi::ioc(abi::DIR_READ, 99, 8), &mut [0; 8]),
        Err(Errno::ENOTTY)
    );
    // The kernel does not bound reads: the fake counts those it got.
    assert_eq!(raw_bar(&f, abi::BAR_READ, &[past], &mut [0]), Ok(0));
    assert_eq!(f.unchecked_reads(), 1);
}

#[test]
fn before_attach_nothing_but_info_reads_and_reset_pass() {
    let n = Neuron::with_sys(FakeDriver::new(ArchId::Cayman).unattached()).unwrap();
    assert_eq!(n.read32(tpb(0)), Ok(0));
    assert_eq!(
        n.bar_write(tpb(0), &[1]),
        Err(NeuronError::NotAttached { cmd: "BAR_WRITE" })
    );
    assert!(matches!(n.write32(tpb(0), 1), Err(Error::Rejected(_))));
    assert!(matches!(
        n.alloc_host(4096, HostAlloc::default()),
        Err(NeuronError::NotAttached {
            cmd: "MEM_ALLOC_V2MT"
        })
    ));
    let id = NqId {
        dev_type: NqDevType::NeuronCore,
        dev_id: 0,
        nq_type: NqType::Notify,
        engine_index: 0,
    };
    assert!(matches!(
        n.notifications_init(id, 1024),
        Err(NeuronError::NotAttached {
            cmd: "NOTIFICATIONS_INIT_V2"
        })
    ));
    let free = abi::MemFree { mem_handle: 1 };
    assert_eq!(
        n.sys().ioctl(abi::MEM_FREE, &mut free.to_bytes()),
        Err(Errno::EACCES)
    );
    n.nc_reset(
        abi::NC_MAP_ALL,
        &mut SimDelay::new(n.sys().model()),
        RESET_BUDGET,
    )
    .unwrap();
    let info = n.mem_info(1);
    assert!(
        matches!(
            info,
            Err(NeuronError::Os {
                errno: Errno::EINVAL,
                ..
            })
        ),
        "no such chunk, but not gated"
    );
    n.sys().attach();
    n.write32(tpb(0), 1).unwrap();
}

#[test]
fn every_bus_address_carries_the_arch_host_window() {
    // `pci_host_base` [FACTS §14.4], written out here, not taken from the code.
    let windows = [
        (ArchId::Sunda, 0x1000_0000_0000u64),
        (ArchId::Cayman, 0x4000_0000_0000),
        (ArchId::Mariana, 0x4000_0000_0000),
    ];
    for (arch, window) in windows {
        assert_eq!(host_window(arch), window);
        let n = open(arch);
        let a = n.alloc_host(3 * 4096, HostAlloc::default()).unwrap();
        let b = n.alloc_host(100, HostAlloc::default()).unwrap();
        for d in [&a, &b] {
            // The window is the top bits; the fake's physical addresses sit below 2^44.
            assert_eq!(d.bus_addr() & !0xFFF_FFFF_FFFF, window, "{arch}");
            assert_eq!(n.mem_info(d.handle()).unwrap().pa, d.bus_addr());
        }
        assert_ne!(a.bus_addr(), b.bus_addr());
        // The whole chunk is mapped: a page for 100 bytes.
        assert_eq!(b.len(), 4096);
    }
}

#[test]
fn alloc_sends_align_zero_and_the_fake_refuses_any_other() {
    let f = FakeDriver::new(ArchId::Cayman);
    let mut h = 0u64;
    let mut arg = MemAllocV2Mt {
        size: 4096,
        align: 4096,
        host_memory: 1,
        mem_handle: core::ptr::addr_of_mut!(h) as u64,
        ..MemAllocV2Mt::default()
    };
    assert_eq!(
        f.ioctl(abi::MEM_ALLOC_V2MT, &mut arg.to_bytes()),
        Err(Errno::EINVAL)
    );
    arg.align = 0;
    assert_eq!(f.ioctl(abi::MEM_ALLOC_V2MT, &mut arg.to_bytes()), Ok(0));
    assert_ne!(h, 0);
    assert_eq!(f.live_chunks(), 1);
}

#[test]
fn only_whole_chunks_are_mapped() {
    let n = open(ArchId::Cayman);
    let d = n.alloc_host(2 * 4096, HostAlloc::default()).unwrap();
    let info = n.mem_info(d.handle()).unwrap();
    assert_eq!(
        n.sys().mmap(info.mmap_offset, 4096).unwrap_err(),
        Errno::EINVAL
    );
    assert_eq!(
        n.sys().mmap(info.mmap_offset + 4096, 4096).unwrap_err(),
        Errno::EINVAL
    );
    assert_eq!(n.sys().live_mappings(), 1);
}

#[test]
fn dropping_a_chunk_unmaps_and_frees_it() {
    let n = open(ArchId::Mariana);
    {
        let _a = n.alloc_host(4096, HostAlloc::default()).unwrap();
        let _b = n.alloc_host(4096, HostAlloc::default()).unwrap();
        assert_eq!((n.sys().live_chunks(), n.sys().live_mappings()), (2, 2));
    }
    assert_eq!((n.sys().live_chunks(), n.sys().live_mappings()), (0, 0));
    assert_eq!(n.sys().count(abi::MEM_FREE), 2);
    assert_eq!(
        n.alloc_host(0, HostAlloc::default()).unwrap_err(),
        NeuronError::Hal(Error::InvalidArgument("dma length (must be > 0)"))
    );
}

#[test]
fn the_device_and_the_host_share_a_chunks_pages() {
    let n = open(ArchId::Cayman);
    let d = n.alloc_host(4096, HostAlloc::default()).unwrap();
    d.write(16, &[1, 2, 3, 4]).unwrap();
    let mut got = [0u8; 4];
    n.sys()
        .model()
        .read_mem(d.bus_addr() + 16, &mut got)
        .unwrap();
    assert_eq!(got, [1, 2, 3, 4]);
    n.sys().model().write_mem(d.bus_addr() + 100, &[9]).unwrap();
    assert_eq!(d.load_u8(100), Ok(9));
    d.zero().unwrap();
    assert_eq!(d.load_u8(16), Ok(0));
}

fn nq_id(engine_index: u32) -> NqId {
    NqId {
        dev_type: NqDevType::NeuronCore,
        dev_id: 0,
        nq_type: NqType::Notify,
        engine_index,
    }
}

#[test]
fn nq_size_1000_is_refused_and_1024_accepted() {
    let n = open(ArchId::Cayman);
    let ens = tpb(0).add(0x10_0000);
    n.sys().route_nq(nq_id(0), ens.add(0x100)).unwrap();
    n.sys().clear_log();
    assert!(matches!(
        n.notifications_init(nq_id(0), 1000),
        Err(NeuronError::Hal(Error::InvalidArgument(_)))
    ));
    assert!(n.sys().log().is_empty(), "refused before any ioctl");
    // The fake's own rule, through the seam.
    let arg = NotificationsInitV2 {
        size: 1000,
        on_host_memory: 1,
        nq_type: 1,
        ..NotificationsInitV2::default()
    };
    assert_eq!(
        n.sys()
            .ioctl(abi::NOTIFICATIONS_INIT_V2, &mut arg.to_bytes()),
        Err(Errno::EINVAL)
    );
    let ring = n.notifications_init(nq_id(0), 1024).unwrap();
    assert_eq!(ring.len(), 4096, "the whole chunk");
    // The kernel programmed base_lo, base_hi and f_size itself [FACTS §14.5].
    let q = TPB_BAR0_OFFSET + 0x10_0000 + 0x100;
    assert_eq!(
        [at(&n, q), at(&n, q + 4), at(&n, q + 8)],
        [ring.bus_addr() as u32, (ring.bus_addr() >> 32) as u32, 1024]
    );
    // Dropping the ring unmaps it; the kernel keeps the chunk.
    drop(ring);
    assert_eq!((n.sys().live_mappings(), n.sys().live_chunks()), (0, 1));
    assert_eq!(n.sys().count(abi::MEM_FREE), 0);
}

#[test]
fn an_adopted_ring_writes_no_base_and_drains_what_the_device_posts() {
    let n = open(ArchId::Cayman);
    let ens = tpb(0).add(0x10_0000);
    n.sys()
        .mount(ens, NotificModel::new(Flavour::TenQueue))
        .unwrap();
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(ens).unwrap();
    let mut engine = NotificEngine::init(&n, &mut block, EngineConfig::tpb(BpMode::None)).unwrap();
    let idx = 3;
    let base_lo = ens.add(0x100 + 40 * u64::from(idx));
    n.sys().route_nq(nq_id(idx), base_lo).unwrap();
    n.sys().clear_log();
    let cfg = NqConfig::phase(1024);
    let mut ring = n
        .adopt_ring(nq_id(idx), engine.queue(idx).unwrap(), cfg)
        .unwrap();
    assert_eq!(
        n.sys().count(abi::BAR_WRITE),
        0,
        "adoption writes no register"
    );
    let bus = ring.memory().bus_addr();
    let reg = |off: u64| n.read32(base_lo.add(off)).unwrap();
    assert_eq!(
        [reg(0), reg(4), reg(8)],
        [bus as u32, (bus >> 32) as u32, 1024]
    );
    let mut delay = SimDelay::new(n.sys().model());
    ring.enable(&mut engine, &mut delay).unwrap();
    let bm = TPB_BAR0_OFFSET + 0x10_0000;
    let posted = n
        .sys()
        .model()
        .with_block(DeviceAddr(bm), |m: &mut NotificModel, bus| {
            m.post(bus, idx, 100)
        })
        .unwrap()
        .unwrap();
    let mut out = [NqEntry::default(); 128];
    let mut got = Vec::new();
    loop {
        let k = ring.drain(&mut out).unwrap();
        if k == 0 {
            break;
        }
        got.extend(out[..k].iter().map(|e| entry_seq(e.bytes())));
    }
    assert_eq!(got.len() as u32, posted);
    assert!(got.windows(2).all(|w| w[1] == w[0] + 1));
    // No base written after the kernel's: base_lo still the ring's.
    assert_eq!(reg(0), bus as u32);
    ring.reset(&mut engine, &mut delay).unwrap();
    assert_eq!(n.sys().unchecked_reads(), 0);
}

#[test]
fn nc_reset_waits_within_its_budget() {
    let n = open(ArchId::Sunda);
    let mut delay = SimDelay::new(n.sys().model());
    n.sys().interrupt_resets(3);
    n.nc_reset(abi::NC_MAP_ALL, &mut delay, RESET_BUDGET)
        .unwrap();
    assert_eq!(n.sys().count(abi::NC_RESET_READY), 4);
    n.sys().interrupt_resets(10);
    let tight = khal_core::wait::Budget {
        period_us: 100,
        polls: 2,
    };
    assert_eq!(
        n.nc_reset(0x1, &mut delay, tight),
        Err(NeuronError::Hal(Error::Timeout("NC_RESET_READY")))
    );
    // An unknown request id: the kernel's EINVAL.
    let r = abi::NcResetReady {
        request_id: 999,
        result: 0,
    };
    assert_eq!(
        n.sys().ioctl(abi::NC_RESET_READY, &mut r.to_bytes()),
        Err(Errno::EINVAL)
    );
}

#[test]
fn every_command_sent_is_one_of_the_facts_table() {
    let n = open(ArchId::Cayman);
    let d = n.alloc_host(4096, HostAlloc::default()).unwrap();
    n.write32(tpb(0), 1).unwrap();
    n.read32(tpb(0)).unwrap();
    drop(d);
    n.nc_reset(
        abi::NC_MAP_ALL,
        &mut SimDelay::new(n.sys().model()),
        RESET_BUDGET,
    )
    .unwrap();
    let known = [
        abi::DEVICE_BASIC_INFO,
        abi::DEVICE_INFO,
        abi::BAR_READ,
        abi::BAR_WRITE,
        abi::MEM_ALLOC_V2MT,
        abi::MEM_GET_EXTENDED_INFO,
        abi::MEM_FREE,
        abi::NOTIFICATIONS_INIT_V2,
        abi::NC_RESET,
        abi::NC_RESET_READY,
    ];
    let log = n.sys().log();
    assert!(log.iter().all(|c| known.contains(c)));
    for c in [
        abi::MEM_ALLOC_V2MT,
        abi::MEM_GET_EXTENDED_INFO,
        abi::MEM_FREE,
        abi::NC_RESET,
        abi::NC_RESET_READY,
    ] {
        assert!(log.contains(&c), "{}", abi::name_of(c));
    }
}
