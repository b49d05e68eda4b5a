//! 100 000 notifications through the driver backend on the fake driver
//! [FACTS §14.5]: a 10-queue engine in TPB 0's window and a single-queue
//! engine in TPB 1's, every ring allocated and base-programmed by
//! NOTIFICATIONS_INIT_V2 and adopted by `NqRing`, every head write a
//! BAR_WRITE; each notification received once and in order, on every arch.

use khal_core::notific::{
    BpMode, ConsumeKind, EngineConfig, Flavour, NotificBlocks, NotificEngine, NqConfig, NqEntry,
};
use khal_core::{ArchId, DeviceAddr};
use khal_std::model::notific::{entry_seq, NotificModel};
use khal_std::neuron::abi;
use khal_std::neuron::{FakeDriver, Neuron, NqDevType, NqId, NqType};
use khal_std::SimDelay;

const TOTAL: u64 = 100_000;
const RING: u32 = 1024;

/// Two notific blocks at demo offsets inside TPB 0's and TPB 1's windows.
fn blocks(arch: ArchId) -> [DeviceAddr; 2] {
    use khal_core::family::TpbBases;
    match arch {
        ArchId::Sunda => {
            let b = <khal_arch_sunda::Sunda as TpbBases>::TPB_BASES;
            [b[0].add(0x10_0000), b[1].add(0x10_0000)]
        }
        _ => {
            let b = <khal_arch_cayman::Cayman as TpbBases>::TPB_BASES;
            [b[0].add(0x10_0000), b[1].add(0x10_0000)]
        }
    }
}

fn run<K: ConsumeKind>(arch: ArchId, kind: fn(u32) -> NqConfig<K>) {
    let mode = K::MODE;
    let n = Neuron::with_sys(FakeDriver::new(arch)).unwrap();
    let [tpb, topsp] = blocks(arch);
    n.sys()
        .mount(tpb, NotificModel::new(Flavour::TenQueue))
        .unwrap();
    n.sys()
        .mount(topsp, NotificModel::new(Flavour::SingleQueue))
        .unwrap();
    let set = NotificBlocks::new();
    let mut blocks = [set.take(tpb).unwrap(), set.take(topsp).unwrap()];
    let [tpb_block, topsp_block] = &mut blocks;
    let mut engines = [
        NotificEngine::init(&n, tpb_block, EngineConfig::tpb(BpMode::None)).unwrap(),
        NotificEngine::init(&n, topsp_block, EngineConfig::top_sp(BpMode::None)).unwrap(),
    ];
    let mut delay = SimDelay::new(n.sys().model());
    let mut lanes = Vec::new();
    for i in 0..11u32 {
        let (e, idx, stride, dev_type) = if i < 10 {
            (0, i, 40, NqDevType::NeuronCore)
        } else {
            (1, 0, 0, NqDevType::TopSp)
        };
        let id = NqId {
            dev_type,
            dev_id: 0,
            nq_type: NqType::Notify,
            engine_index: idx,
        };
        let base = [tpb, topsp][e];
        n.sys()
            .route_nq(id, base.add(0x100 + stride * u64::from(idx)))
            .unwrap();
        let q = engines[e].queue(idx).unwrap();
        let mut ring = n.adopt_ring(id, q, kind(RING)).unwrap();
        ring.enable(&mut engines[e], &mut delay).unwrap();
        let off = n.sys().bar0_offset(base).unwrap();
        let next = n
            .sys()
            .model()
            .with_block(off, |m: &mut NotificModel, _| m.next_seq(idx))
            .unwrap();
        lanes.push((e, off, idx, ring, next));
    }
    let (mut posted, mut drained, mut lost, mut dup) = (0u64, 0u64, 0u64, 0u64);
    let mut out = [NqEntry::default(); 64];
    let mut k = 0u64;
    while posted < TOTAL {
        for (_, off, idx, ring, next) in lanes.iter_mut() {
            k = k
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let want = ((k >> 33) % 48 + 1).min(TOTAL - posted) as u32;
            let p = n
                .sys()
                .model()
                .with_block(*off, |m: &mut NotificModel, bus| m.post(bus, *idx, want))
                .unwrap()
                .unwrap();
            posted += u64::from(p);
            loop {
                let got = ring.drain_with(&mut delay, &mut out).unwrap();
                if got == 0 {
                    break;
                }
                for e in &out[..got] {
                    let s = entry_seq(e.bytes());
                    if s == *next {
                        *next += 1;
                    } else if s > *next {
                        lost += s - *next;
                        *next = s + 1;
                    } else {
                        dup += 1;
                    }
                }
                drained += got as u64;
            }
        }
    }
    for (e, _, _, ring, _) in lanes.iter_mut() {
        ring.reset(&mut engines[*e], &mut delay).unwrap();
    }
    assert_eq!(
        (posted, drained, lost, dup),
        (TOTAL, TOTAL, 0, 0),
        "{arch} {mode:?}"
    );
    // Every register access went through BAR_READ / BAR_WRITE, none outside BAR0.
    assert!(n.sys().count(abi::BAR_WRITE) > 0);
    assert_eq!(n.sys().unchecked_reads(), 0);
    drop(lanes);
    assert_eq!(n.sys().live_mappings(), 0);
}

#[test]
fn cayman_phase_100k() {
    run(ArchId::Cayman, NqConfig::phase);
}

#[test]
fn mariana_tail_100k() {
    run(ArchId::Mariana, NqConfig::tail);
}

#[test]
fn sunda_phase_100k() {
    run(ArchId::Sunda, NqConfig::phase);
}
