//! The DVE dynamic-config loader on the device model, on every arch [000 §4], [FACTS §3.4, §8].
//!
//! Fingerprints and the parameter RAM are checked against `tests/fixtures/dve/`,
//! whose digests were computed with `sha256sum` and Python, independently of
//! the code under test (see the fixtures' README).

use khal_arch_cayman::Cayman;
use khal_arch_mariana::Mariana;
use khal_arch_sunda::Sunda;
use khal_core::dma::DmaMemory;
use khal_core::dve::{DveLoader, DvePlacement, DveTableSet, LoadOutcome, TableId, DVE_QUEUE_NAME};
use khal_core::family::{Arch, Offset, Tile, TpbBases};
use khal_core::wait::Budget;
use khal_core::Fault;
use khal_core::{DeviceAddr, Error};
use khal_std::model::dma_engine::{DmaEngineModel, DmaFault, ModelDmaQueue, TransferRecord};
use khal_std::model::DeviceModel;
use khal_std::Advance;
use khal_std::SimDelay;
use khal_std::{ModelAllocator, ModelBuf};

const OPCODE: &[u8] = include_bytes!("../fixtures/dve/opcode.bin");
const CONTROL_FAST: &[u8] = include_bytes!("../fixtures/dve/control_fast.bin");
const CONTROL_SLOW: &[u8] = include_bytes!("../fixtures/dve/control_slow.bin");
const DATAPATH: &[u8] = include_bytes!("../fixtures/dve/datapath.bin");
const PARAM_RAM: &[u8] = include_bytes!("../fixtures/dve/param_ram.bin");

/// `cat opcode control_fast control_slow datapath param_ram | sha256sum`.
const FIVE_SHA256: &str = "48f76deec75c0668f2ced0975790b908018869d43b9569bc4fb6771a0ca39232";
/// `cat opcode control_fast datapath param_ram | sha256sum` (SUNDA).
const FOUR_SHA256: &str = "e6965d1e61fe22504a6e108e1a13c9ca109e9ae2fa1b4bc02e5f690fe1915a74";
/// The five-table config with byte 100 of datapath xor 1, by `sha256sum`.
const FIVE_DP_CHANGED_SHA256: &str =
    "f456b8d3090a3d9638fb82bc4327b314da643e562bed88ef817693f58c766181";
/// `sha256sum param_ram.bin`.
const PARAM_RAM_SHA256: &str = "ee163876fa4e4fe9283bed5886caaeb952f52a51ca9bf07d82d17189b853e21f";

/// SUNDA has no table-offset getter and its offsets are NOT TRACED [000 §3]:
/// these are test-chosen offsets (relative to the TPB AXI base), not values of
/// the silicon. The parameter-RAM base still comes from the arch (0x2B8_4000).
const SUNDA_TEST_OFFSETS: [u64; 3] = [0x10_0000, 0x11_0000, 0x12_0000];

const BUDGET: Budget = Budget {
    period_us: 100,
    polls: 1000,
};

fn five() -> DveTableSet<'static> {
    DveTableSet::five(OPCODE, CONTROL_FAST, CONTROL_SLOW, DATAPATH)
}

fn four() -> DveTableSet<'static> {
    DveTableSet::four(OPCODE, CONTROL_FAST, DATAPATH)
}

fn sunda_placement(tile: u32) -> DvePlacement {
    let [op, cf, dp] = SUNDA_TEST_OFFSETS;
    DvePlacement::for_tile_with(
        Sunda::tile(tile).unwrap(),
        Offset(op),
        Offset(cf),
        None,
        Offset(dp),
    )
    .unwrap()
}

struct Rig<'m> {
    model: &'m DeviceModel,
    alloc: ModelAllocator<'m>,
    queue: ModelDmaQueue<'m>,
    loader: DveLoader<ModelBuf<'m>>,
}

impl<'m> Rig<'m> {
    fn new(model: &'m DeviceModel) -> Self {
        Rig {
            model,
            alloc: ModelAllocator::with_default_arena(model),
            queue: ModelDmaQueue::mount(model, DmaEngineModel::DEFAULT_BASE, DVE_QUEUE_NAME, 8)
                .unwrap(),
            loader: DveLoader::new(),
        }
    }

    fn load(&mut self, p: &DvePlacement, t: &DveTableSet<'_>) -> khal_core::Result<LoadOutcome> {
        let mut d = SimDelay::new(self.model);
        self.loader
            .load(&mut self.alloc, &mut self.queue, &mut d, BUDGET, p, t)
    }

    fn doorbells(&self) -> u32 {
        self.queue.with_engine(|e| e.doorbells()).unwrap()
    }

    fn transfers(&self) -> Vec<TransferRecord> {
        self.queue.with_engine(|e| e.transfers().to_vec()).unwrap()
    }

    fn fault(&self, f: DmaFault) {
        self.queue.with_engine(|e| e.fault = f).unwrap();
    }

    fn mem(&self, addr: DeviceAddr, len: usize) -> Vec<u8> {
        let mut v = vec![0; len];
        self.model.read_mem(addr.get(), &mut v).unwrap();
        v
    }
}

/// Device memory holds exactly each table at its destination, with nothing
/// written past its end, and the engine made exactly these transfers in the
/// notes' order.
fn assert_loaded(rig: &Rig<'_>, p: &DvePlacement, t: &DveTableSet<'_>) {
    let expected: Vec<(TableId, &[u8])> = t.iter().collect();
    let log = rig.transfers();
    assert_eq!(log.len(), expected.len());
    for ((id, bytes), rec) in expected.iter().zip(&log) {
        let dst = p.dest(*id).unwrap();
        assert_eq!(rig.mem(dst, bytes.len()), *bytes, "{id} at {dst}");
        assert_eq!(
            rig.mem(dst.add(bytes.len() as u64), 16),
            [0; 16],
            "{id} tail"
        );
        assert_eq!(
            (rec.dst, rec.len, rec.moved),
            (dst.get(), bytes.len() as u32, bytes.len() as u32)
        );
    }
}

fn placements_five<A: Arch>() -> Vec<DvePlacement> {
    Tile::<A>::all()
        .map(|t| DvePlacement::for_tile(t).unwrap())
        .collect()
}

#[test]
fn cayman_and_mariana_place_each_table_at_axi_plus_offset() {
    for (arch, placements) in [
        ("cayman", placements_five::<Cayman>()),
        ("mariana", placements_five::<Mariana>()),
    ] {
        assert_eq!(placements.len(), 8, "{arch}");
        for p in placements {
            let axi = p.axi_base.get();
            // [FACTS §3.4]: opcode, control_fast, control_slow, datapath, param RAM.
            assert_eq!(p.opcode, DeviceAddr(axi + 0x2B8_2000));
            assert_eq!(p.control_fast, DeviceAddr(axi + 0x2B8_0000));
            assert_eq!(p.control_slow, Some(DeviceAddr(axi + 0x2B8_1000)));
            assert_eq!(p.datapath, DeviceAddr(axi + 0x2B8_6000));
            assert_eq!(p.param_ram, DeviceAddr(axi + 0x2B8_7000));
            assert_eq!(p.param_ram_size, 0x400);
        }
    }
    // Tile 5 is in the second mesh half: its AXI base carries bit 47.
    let p = DvePlacement::for_tile(Cayman::tile(5).unwrap()).unwrap();
    assert_eq!(p.axi_base, DeviceAddr(0x8030_0000_0000));
    assert_eq!(p.param_ram, DeviceAddr(0x8030_02B8_7000));
}

#[test]
fn every_arch_loads_exactly_the_table_bytes() {
    let cases: Vec<(&str, DvePlacement, DveTableSet<'static>)> = vec![
        ("cayman t0", placements_five::<Cayman>()[0], five()),
        ("cayman t7", placements_five::<Cayman>()[7], five()),
        ("mariana t0", placements_five::<Mariana>()[0], five()),
        ("mariana t4", placements_five::<Mariana>()[4], five()),
        ("sunda t0", sunda_placement(0), four()),
        ("sunda t1", sunda_placement(1), four()),
    ];
    for (name, p, t) in cases {
        let m = DeviceModel::new();
        let mut rig = Rig::new(&m);
        let out = rig.load(&p, &t).unwrap();
        let LoadOutcome::Loaded {
            fingerprint,
            tables,
            bytes,
            sleeps,
        } = out
        else {
            panic!("{name}: {out:?}")
        };
        assert_eq!(tables, t.iter().count(), "{name}");
        assert_eq!(
            bytes as usize,
            t.iter().map(|(_, b)| b.len()).sum::<usize>()
        );
        assert_eq!(sleeps, 0);
        assert_loaded(&rig, &p, &t);
        // The state reports each table's buffer, the fingerprint and the queue.
        let st = rig.loader.resident().unwrap();
        assert_eq!(st.fingerprint, fingerprint);
        assert_eq!(st.queue.name, "qDveTable");
        assert_eq!(st.placement, p);
        for (id, bytes) in t.iter() {
            let buf = st.table(id).unwrap();
            let mut staged = vec![0; buf.len()];
            buf.read(0, &mut staged).unwrap();
            assert_eq!(staged, bytes, "{name} {id} staged");
            // The ring read from the staged buffer's bus address.
            assert!(rig.transfers().iter().any(|r| r.src == buf.bus_addr()));
        }
        assert_eq!(rig.doorbells(), 1);
    }
}

#[test]
fn sunda_writes_four_regions_and_never_a_control_slow_address() {
    let m = DeviceModel::new();
    let mut rig = Rig::new(&m);
    let p = sunda_placement(0);
    assert_eq!(p.control_slow, None);
    // The SUNDA parameter RAM is at its own base, 0x2B8_4000 [FACTS §3.4].
    assert_eq!(p.param_ram, p.axi_base.add(0x2B8_4000));
    rig.load(&p, &four()).unwrap();
    let log = rig.transfers();
    assert_eq!(log.len(), 4);
    let st = rig.loader.resident().unwrap();
    assert!(st.control_slow_table.is_none());
    assert!(st.table(TableId::ControlSlow).is_none());
    // The only control-slow offset anyone traced (CAYMAN/MARIANA 0x2B8_1000)
    // is never written on SUNDA, on either tile.
    for tile in Sunda::TPB_BASES {
        let cs = tile.add(0x2B8_1000).get();
        assert!(log
            .iter()
            .all(|r| cs < r.dst || cs >= r.dst + u64::from(r.len)));
        assert_eq!(rig.mem(DeviceAddr(cs), 0x1000), vec![0; 0x1000]);
    }
    assert_eq!(rig.allocations(), 4);
}

impl Rig<'_> {
    fn allocations(&self) -> usize {
        self.alloc.allocations()
    }
}

#[test]
fn sunda_refuses_a_control_slow_and_has_no_offset_getter() {
    assert!(matches!(
        DvePlacement::for_tile(Sunda::tile(0).unwrap()),
        Err(Error::NotTraced(_))
    ));
    assert!(matches!(
        DvePlacement::for_tile_with(
            Sunda::tile(0).unwrap(),
            Offset(0),
            Offset(0x1000),
            Some(Offset(0x2000)),
            Offset(0x3000)
        ),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        DvePlacement::for_tile_with(
            Cayman::tile(0).unwrap(),
            Offset(0),
            Offset(0x1000),
            None,
            Offset(0x3000)
        ),
        Err(Error::InvalidArgument(_))
    ));
    // Five tables to a SUNDA placement, four to a CAYMAN one: refused before
    // any allocation or DMA.
    let m = DeviceModel::new();
    let mut rig = Rig::new(&m);
    assert_eq!(
        rig.load(&sunda_placement(0), &five()),
        Err(Error::InvalidArgument(
            "control_slow table given on an arch without one (SUNDA)"
        ))
    );
    assert_eq!(
        rig.load(&placements_five::<Cayman>()[0], &four()),
        Err(Error::InvalidArgument(
            "control_slow table missing (this arch loads five DVE tables)"
        ))
    );
    assert_eq!(rig.doorbells(), 0);
    assert_eq!(rig.allocations(), 0);
    assert!(rig.transfers().is_empty());
}

#[test]
fn fingerprints_match_sha256sum_of_the_fixtures() {
    assert_eq!(five().fingerprint().to_string(), FIVE_SHA256);
    assert_eq!(four().fingerprint().to_string(), FOUR_SHA256);
    // The default parameter RAM is the fixture's, so the fixture-built set
    // has the same identity.
    assert_eq!(
        five().with_param_ram(PARAM_RAM).fingerprint().to_string(),
        FIVE_SHA256
    );
    let mut dp = DATAPATH.to_vec();
    dp[100] ^= 1;
    let changed = DveTableSet::five(OPCODE, CONTROL_FAST, CONTROL_SLOW, &dp);
    assert_eq!(changed.fingerprint().to_string(), FIVE_DP_CHANGED_SHA256);
    // A single table, through the same path: param RAM alone = sha256sum of it.
    let only_pr = DveTableSet::four(b"", b"", b"");
    assert_eq!(only_pr.fingerprint().to_string(), PARAM_RAM_SHA256);
}

#[test]
fn the_default_parameter_ram_is_bit_exact() {
    assert_eq!(PARAM_RAM.len(), 0x400);
    assert_eq!(four().param_ram, PARAM_RAM);
    assert_eq!(five().param_ram, PARAM_RAM);
    // And it lands bit-exact at the arch's parameter-RAM base.
    let m = DeviceModel::new();
    let mut rig = Rig::new(&m);
    let p = placements_five::<Mariana>()[2];
    rig.load(&p, &five()).unwrap();
    assert_eq!(rig.mem(p.param_ram, 0x400), PARAM_RAM);
}

#[test]
fn a_second_load_of_the_same_config_issues_no_dma() {
    let m = DeviceModel::new();
    let mut rig = Rig::new(&m);
    let p = placements_five::<Cayman>()[1];
    let first = rig.load(&p, &five()).unwrap();
    let (doorbells, transfers, allocs) =
        (rig.doorbells(), rig.transfers().len(), rig.allocations());
    let fp = rig.loader.resident().map(|s| s.fingerprint).unwrap();
    // Another slice with the same bytes: same identity.
    let copy: Vec<u8> = OPCODE.to_vec();
    let again = DveTableSet::five(&copy, CONTROL_FAST, CONTROL_SLOW, DATAPATH);
    assert_eq!(
        rig.load(&p, &again),
        Ok(LoadOutcome::AlreadyResident { fingerprint: fp })
    );
    assert!(matches!(first, LoadOutcome::Loaded { fingerprint, .. } if fingerprint == fp));
    assert_eq!(rig.doorbells(), doorbells);
    assert_eq!(rig.transfers().len(), transfers);
    assert_eq!(rig.allocations(), allocs);
}

#[test]
fn a_changed_byte_changes_the_fingerprint_and_reloads() {
    let m = DeviceModel::new();
    let mut rig = Rig::new(&m);
    let p = placements_five::<Cayman>()[3];
    rig.load(&p, &five()).unwrap();
    let mut dp = DATAPATH.to_vec();
    dp[100] ^= 1;
    let changed = DveTableSet::five(OPCODE, CONTROL_FAST, CONTROL_SLOW, &dp);
    let out = rig.load(&p, &changed).unwrap();
    assert!(matches!(out, LoadOutcome::Loaded { fingerprint, .. }
        if fingerprint.to_string() == FIVE_DP_CHANGED_SHA256));
    assert_eq!(rig.doorbells(), 2);
    assert_eq!(rig.mem(p.datapath, dp.len()), dp);
    assert_eq!(
        rig.loader
            .resident()
            .map(|s| s.fingerprint)
            .unwrap()
            .to_string(),
        FIVE_DP_CHANGED_SHA256
    );
    // The same config at another tile is not resident there: it loads.
    let other = placements_five::<Cayman>()[6];
    assert!(matches!(
        rig.load(&other, &changed),
        Ok(LoadOutcome::Loaded { .. })
    ));
    assert_eq!(rig.doorbells(), 3);
}

#[test]
fn a_completion_that_never_comes_times_out_within_budget_and_nothing_is_resident() {
    let m = DeviceModel::new();
    let mut rig = Rig::new(&m);
    let p = placements_five::<Cayman>()[0];
    rig.load(&p, &five()).unwrap();
    assert!(rig.loader.resident().is_some());
    rig.fault(DmaFault::NeverComplete);
    let mut dp = DATAPATH.to_vec();
    dp[0] ^= 0xFF;
    let changed = DveTableSet::five(OPCODE, CONTROL_FAST, CONTROL_SLOW, &dp);
    let before = m.now_ns();
    assert_eq!(
        rig.load(&p, &changed),
        Err(Error::Timeout("dma ring completion"))
    );
    // Exactly the budget elapsed, in simulated time.
    assert_eq!(m.now_ns() - before, BUDGET.total_us() * 1000);
    // The device may hold part of the new config: nothing is resident, not
    // even the previous one.
    assert!(rig.loader.resident().is_none());
    // Reloading the *first* config now really DMAs again.
    rig.fault(DmaFault::None);
    assert!(matches!(
        rig.load(&p, &five()),
        Ok(LoadOutcome::Loaded { .. })
    ));
    assert_loaded_last_ring(&rig, &p, &five());
}

/// The last ring's transfers wrote each table.
fn assert_loaded_last_ring(rig: &Rig<'_>, p: &DvePlacement, t: &DveTableSet<'_>) {
    for (id, bytes) in t.iter() {
        assert_eq!(rig.mem(p.dest(id).unwrap(), bytes.len()), bytes, "{id}");
    }
}

#[test]
fn a_short_transfer_is_a_typed_fault_and_nothing_is_resident() {
    let m = DeviceModel::new();
    let mut rig = Rig::new(&m);
    let p = placements_five::<Mariana>()[0];
    // Transfer 2 is control_slow (673 bytes): it moves 100.
    rig.fault(DmaFault::ShortTransfer {
        index: 2,
        moved: 100,
    });
    let total: u32 = five().iter().map(|(_, b)| b.len() as u32).sum();
    assert_eq!(
        rig.load(&p, &five()),
        Err(Error::DeviceFault(Fault::ShortTransfer {
            expected: total,
            moved: total - 573
        }))
    );
    assert!(rig.loader.resident().is_none());
    rig.fault(DmaFault::None);
    assert!(matches!(
        rig.load(&p, &five()),
        Ok(LoadOutcome::Loaded { .. })
    ));
    assert_loaded_last_ring(&rig, &p, &five());
}

#[test]
fn a_gone_device_times_out_and_nothing_is_resident() {
    let m = DeviceModel::new();
    let mut rig = Rig::new(&m);
    m.set_gone(true);
    assert_eq!(
        rig.load(&sunda_placement(1), &four()),
        Err(Error::Timeout("dma ring completion"))
    );
    assert!(rig.loader.resident().is_none());
}

#[test]
fn bad_tables_are_refused_before_any_dma_and_keep_the_resident_config() {
    let m = DeviceModel::new();
    let mut rig = Rig::new(&m);
    let p = placements_five::<Cayman>()[0];
    rig.load(&p, &five()).unwrap();
    let fp = rig.loader.resident().map(|s| s.fingerprint);
    let (doorbells, allocs) = (rig.doorbells(), rig.allocations());
    let big = vec![0xAA; 0x1001];
    let cases: Vec<(DveTableSet<'_>, Error)> = vec![
        (
            DveTableSet::five(b"", CONTROL_FAST, CONTROL_SLOW, DATAPATH),
            Error::InvalidArgument("empty DVE table"),
        ),
        (
            five().with_param_ram(&PARAM_RAM[..0x3FC]),
            Error::InvalidArgument(
                "param_ram size differs from the arch's parameter-RAM size (0x400)",
            ),
        ),
        // control_fast at 0x2B8_0000 running past control_slow at 0x2B8_1000.
        (
            DveTableSet::five(OPCODE, &big, CONTROL_SLOW, DATAPATH),
            Error::InvalidArgument("DVE table destinations overlap"),
        ),
    ];
    for (t, e) in cases {
        assert_eq!(rig.load(&p, &t), Err(e));
        assert_eq!(rig.doorbells(), doorbells);
        assert_eq!(rig.allocations(), allocs);
        assert_eq!(rig.loader.resident().map(|s| s.fingerprint), fp);
    }
    // The C allocates its own queue bundle ("qDveTable") and ring ("qDveTbl")
    // [000 §4]; khal takes the caller's queue whatever its name and reports
    // it in the state (no name check: the notes make none).
    rig.loader.forget();
    let mut other = ModelDmaQueue::attach(&m, DmaEngineModel::DEFAULT_BASE, "qOther", 8).unwrap();
    let mut d = SimDelay::new(&m);
    assert!(matches!(
        rig.loader
            .load(&mut rig.alloc, &mut other, &mut d, BUDGET, &p, &five()),
        Ok(LoadOutcome::Loaded { .. })
    ));
    assert_eq!(rig.loader.resident().unwrap().queue.name, "qOther");
    assert_eq!(rig.loader.resident().map(|s| s.fingerprint), fp);
    // Out-of-range tiles are refused by the arch (8 on CAYMAN, 2 on SUNDA).
    assert!(matches!(
        Cayman::tile(8),
        Err(Error::OutOfRange { limit: 8, .. })
    ));
    assert!(matches!(
        Sunda::tile(2),
        Err(Error::OutOfRange { limit: 2, .. })
    ));
}

#[test]
fn staging_memory_exhaustion_is_typed_and_nothing_is_resident() {
    let m = DeviceModel::new();
    let mut rig = Rig::new(&m);
    // An arena that holds the opcode table only.
    rig.alloc = ModelAllocator::new(&m, DeviceAddr(0x2_0000_0000), 1024).unwrap();
    assert_eq!(
        rig.load(&placements_five::<Cayman>()[0], &five()),
        Err(Error::OutOfMemory)
    );
    assert_eq!(rig.doorbells(), 0);
    assert!(rig.loader.resident().is_none());
}

#[test]
fn forget_hands_back_the_state_and_the_next_load_dmas() {
    let m = DeviceModel::new();
    let mut rig = Rig::new(&m);
    let p = sunda_placement(0);
    rig.load(&p, &four()).unwrap();
    let st = rig.loader.forget().unwrap();
    assert_eq!(st.fingerprint.to_string(), FOUR_SHA256);
    assert!(rig.loader.resident().is_none());
    assert!(matches!(
        rig.load(&p, &four()),
        Ok(LoadOutcome::Loaded { .. })
    ));
    assert_eq!(rig.doorbells(), 2);
}

/// Destinations are half-open ranges: a table that ends exactly where another
/// begins does not overlap it. On CAYMAN a 0x1000-byte control_fast ends at
/// control_slow's destination, and a 0x1000-byte control_slow ends at the
/// opcode table's (cargo-mutants survivors `<` → `<=` in the overlap test,
/// docs/TESTING.md).
#[test]
fn tables_that_end_where_the_next_begins_are_accepted() {
    let m = DeviceModel::new();
    let mut rig = Rig::new(&m);
    let p = placements_five::<Cayman>()[0];
    let full = vec![0x5A; 0x1000];
    let t = DveTableSet::five(OPCODE, &full, &full, DATAPATH);
    assert!(matches!(rig.load(&p, &t), Ok(LoadOutcome::Loaded { .. })));
    assert_loaded_last_ring(&rig, &p, &t);
}
