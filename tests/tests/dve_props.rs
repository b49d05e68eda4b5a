//! Property tests of the DVE loader on the device model [000 §4]: for any table
//! contents and sizes that fit between the CAYMAN/MARIANA offsets, on any tile,
//! device memory ends up holding exactly the tables, and a repeat is no DMA.

use khal_arch_cayman::Cayman;
use khal_arch_mariana::Mariana;
use khal_core::dve::{DveLoader, DvePlacement, DveTableSet, LoadOutcome, DVE_QUEUE_NAME};
use khal_core::family::TpbBases;
use khal_core::wait::Budget;
use khal_std::model::dma_engine::{DmaEngineModel, ModelDmaQueue};
use khal_std::model::DeviceModel;
use khal_std::ModelAllocator;
use khal_std::SimDelay;
use proptest::prelude::*;

fn table(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 1..=max)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn any_fitting_config_lands_exactly_and_repeats_without_dma(
        mariana in any::<bool>(),
        tile in 0u32..8,
        // Room up to the next table: control_fast 0x1000 (to control_slow),
        // control_slow 0x1000 (to opcode), opcode 0x4000 (to datapath),
        // datapath 0x1000 (to the parameter RAM) [FACTS §3.4].
        opcode in table(0x4000),
        control_fast in table(0x1000),
        control_slow in table(0x1000),
        datapath in table(0x1000),
        param_ram in prop::collection::vec(any::<u8>(), 0x400),
    ) {
        let p = if mariana {
            DvePlacement::for_tile(Mariana::tile(tile).unwrap()).unwrap()
        } else {
            DvePlacement::for_tile(Cayman::tile(tile).unwrap()).unwrap()
        };
        let t = DveTableSet::five(&opcode, &control_fast, &control_slow, &datapath)
            .with_param_ram(&param_ram);
        let m = DeviceModel::new();
        let mut alloc = ModelAllocator::with_default_arena(&m);
        let mut q = ModelDmaQueue::mount(&m, DmaEngineModel::DEFAULT_BASE, DVE_QUEUE_NAME, 8).unwrap();
        let mut loader = DveLoader::new();
        let mut d = SimDelay::new(&m);
        let out = loader.load(&mut alloc, &mut q, &mut d, Budget::NQ_DEFAULT, &p, &t).unwrap();
        let is_loaded = matches!(out, LoadOutcome::Loaded { tables: 5, .. });
        prop_assert!(is_loaded);
        for (id, bytes) in t.iter() {
            let mut got = vec![0; bytes.len()];
            m.read_mem(p.dest(id).unwrap().get(), &mut got).unwrap();
            prop_assert_eq!(&got[..], bytes, "{}", id);
        }
        let again = loader.load(&mut alloc, &mut q, &mut d, Budget::NQ_DEFAULT, &p, &t).unwrap();
        let is_resident = matches!(again, LoadOutcome::AlreadyResident { .. });
        prop_assert!(is_resident);
        prop_assert_eq!(q.with_engine(|e| e.doorbells()), Some(1));
    }
}
