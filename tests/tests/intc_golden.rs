//! Golden MMIO traces of the MARIANA MSI-X interrupt controller [004 §4],
//! [FACTS §7], its argument errors (nothing written), and an end-to-end run on
//! the INTC device model.

use khal::intc::{EnsNq, ErrtrigLine, Intc};
use khal::intc::{ERRTRIG, ERRTRIG_SIZE, MSIX, MSIX_SIZE};
use khal::notific::NOTIFIC;
use khal::notific::{BpMode, EngineConfig, Flavour, NotificBlocks, NotificEngine};
use khal::Mariana;
use khal::{DeviceAddr, Error, Mmio};
use khal_std::model::intc::{ErrtrigModel, MsixModel};
use khal_std::model::DeviceModel;
use khal_std::Op::{Read, Write};
use khal_std::{HeapMmio, Trace};

const MSIX_BASE: DeviceAddr = DeviceAddr(0x1_0000);
const ET_BASE: DeviceAddr = DeviceAddr(0x4_0000);
const ENS: DeviceAddr = DeviceAddr(0x8_0000);

fn traced() -> Trace<HeapMmio> {
    Trace::new(HeapMmio::new(DeviceAddr(0), 0x10_0000))
        .with_block(MSIX_BASE, MSIX_SIZE, &MSIX)
        .with_block(ET_BASE, ERRTRIG_SIZE, &ERRTRIG)
        .with_block(ENS, 0x1000, &NOTIFIC)
}

fn intc() -> Intc<Mariana> {
    let mut i = Intc::new(MSIX_BASE).unwrap();
    i.set_errtrig_base(3, ET_BASE).unwrap();
    i
}

fn names(m: &Trace<HeapMmio>) -> Vec<String> {
    m.accesses()
        .iter()
        .map(|a| a.reg.map(|r| r.to_string()).unwrap_or_default())
        .collect()
}

#[test]
fn mask_and_unmask_vectors() {
    let m = traced();
    let i = intc();
    i.mask_vector(&m, 3).unwrap();
    i.mask_vector(&m, 7).unwrap();
    i.unmask_vector(&m, 3).unwrap();
    i.unmask_vector(&m, 0).unwrap();
    assert_eq!(
        m.ops(),
        vec![
            (Write, 16, 0b1000),
            (Write, 2060 + 16 * 3, 1),
            (Write, 16, 0b1000_1000),
            (Write, 2060 + 16 * 7, 1),
            (Write, 24, 0b1000_0000),
            (Write, 2060 + 16 * 3, 0),
            (Write, 24, 0b1000_0000),
            (Write, 2060, 0),
        ]
    );
    assert_eq!(
        names(&m)[..2],
        [
            "msix.set_mask".to_string(),
            "msix.vec[3].vector_ctrl".to_string()
        ]
    );
}

#[test]
fn vector_above_7_is_refused_with_nothing_written() {
    let m = traced();
    let i = intc();
    for v in [8, 9, u32::MAX] {
        assert_eq!(
            i.mask_vector(&m, v),
            Err(Error::InvalidArgument("msi-x vector > 7"))
        );
        assert_eq!(
            i.unmask_vector(&m, v),
            Err(Error::InvalidArgument("msi-x vector > 7"))
        );
        assert_eq!(i.mask_vector(&m, v).map_err(|e| e.c_code()), Err(Some(-22)));
    }
    assert!(m.ops().is_empty());
    // The shadow is untouched: the next mask writes bit 0 alone.
    i.mask_vector(&m, 0).unwrap();
    assert_eq!(m.ops(), vec![(Write, 16, 1), (Write, 2060, 1)]);
}

#[test]
fn cause_and_masks_through_the_group_sub_bit_addressing() {
    let m = traced();
    let i = intc();
    // errtrig_base[3] + (2 << 12) + (5 << 6) + REG, bit 9.
    let line = ErrtrigLine::new(3, 2, 5, 9).unwrap();
    let unit = (2 << 12) + (5 << 6);
    m.inner()
        .write32(ET_BASE.add(unit + 16), 0x0000_0001)
        .unwrap();
    m.inner()
        .write32(ET_BASE.add(unit + 56), 0xFFFF_FFFF)
        .unwrap();
    i.set_cause(&m, line).unwrap();
    assert_eq!(i.read_cause(&m, line), Ok(0)); // a plain register file: cause_set does not latch
    i.mask_interrupt(&m, line).unwrap();
    i.unmask_interrupt(&m, line).unwrap();
    i.unmask_notification(&m, line).unwrap();
    i.mask_notification(&m, line).unwrap();
    assert_eq!(
        m.ops(),
        vec![
            (Write, unit + 8, 1 << 9),
            (Read, unit, 0),
            (Read, unit + 16, 0x1),
            (Write, unit + 16, 0x201),
            (Write, unit + 24, !(1 << 9)),
            (Read, unit + 56, 0xFFFF_FFFF),
            (Write, unit + 56, 0xFFFF_FDFF),
            (Read, unit + 56, 0xFFFF_FDFF),
            (Write, unit + 56, 0xFFFF_FFFF),
        ]
    );
    assert_eq!(names(&m)[0], "errtrig.unit[133].int_cause_set_grp");
    assert_eq!(names(&m)[4], "errtrig.unit[133].int_mask_clear_grp");
    assert_eq!(names(&m)[5], "errtrig.unit[133].int_log_msk_grp");
}

/// An op on a block before its base is recorded is refused, writing
/// nothing; recorded later, the base is the one the ops address from.
#[test]
fn bases_recorded_after_a_refused_op() {
    let m = traced();
    let mut i = Intc::<Mariana>::new(MSIX_BASE).unwrap();
    let line = ErrtrigLine::new(3, 2, 5, 9).unwrap();
    assert!(matches!(
        i.set_cause(&m, line),
        Err(Error::InvalidArgument(_))
    ));
    i.set_errtrig_base(3, ET_BASE).unwrap();
    i.set_cause(&m, line).unwrap();
    assert_eq!(m.ops(), vec![(Write, (2 << 12) + (5 << 6) + 8, 1 << 9)]);
}

#[test]
fn errtrig_errors_write_nothing() {
    let m = traced();
    let i = intc();
    // g < 4, sub < 64, bit < 32, block < 56: refused when the line is built.
    assert!(matches!(
        ErrtrigLine::new(3, 4, 0, 0),
        Err(Error::OutOfRange {
            what: "errtrig group g",
            value: 4,
            limit: 4
        })
    ));
    assert!(ErrtrigLine::new(3, 0, 64, 0).is_err());
    assert!(ErrtrigLine::new(3, 0, 0, 32).is_err());
    assert!(ErrtrigLine::new(56, 0, 0, 0).is_err());
    // A block whose base was never recorded.
    let line = ErrtrigLine::new(4, 0, 0, 0).unwrap();
    let no_base = Err(Error::InvalidArgument("errtrig base of this block not set"));
    assert_eq!(i.set_cause(&m, line), no_base);
    assert_eq!(i.read_cause(&m, line).map(|_| ()), no_base);
    assert_eq!(i.mask_interrupt(&m, line), no_base);
    assert_eq!(i.unmask_interrupt(&m, line), no_base);
    assert_eq!(i.mask_notification(&m, line), no_base);
    assert_eq!(i.unmask_notification(&m, line), no_base);
    assert!(m.ops().is_empty());
}

#[test]
fn moderation_timer_period_and_group_interval() {
    let m = traced();
    let i = intc();
    m.inner().write32(MSIX_BASE.add(40), 0xFFFF_FFFF).unwrap();
    i.set_mod_timer_period(&m, 5).unwrap();
    i.set_mod_timer_period(&m, 15).unwrap();
    i.set_group_interval(&m, 0, 0x12).unwrap();
    i.set_group_interval(&m, 7, 0xAB).unwrap();
    assert_eq!(
        m.ops(),
        vec![
            (Read, 40, 0xFFFF_FFFF),
            (Write, 40, 0xF5FF_FFFF),
            (Read, 40, 0xF5FF_FFFF),
            (Write, 40, 0xFFFF_FFFF),
            (Write, 1024, 0x12),
            (Write, 1024 + 8 * 7, 0xAB),
        ]
    );
    assert_eq!(names(&m)[5], "msix.grp[7].interval");
    // The period's read-modify-write keeps the reset bit (0x10) [004r1 §4].
    assert_eq!(m.inner().read32(MSIX_BASE.add(40)).unwrap() & 0x10, 0x10);
    m.clear();
    // The interval is the low byte: value <= 0xFF [004r1 §4], [FACTS §12.3].
    i.set_group_interval(&m, 3, 0xFF).unwrap();
    assert_eq!(m.ops(), vec![(Write, 1024 + 8 * 3, 0xFF)]);
    m.clear();
    assert_eq!(
        i.set_group_interval(&m, 3, 0x100),
        Err(Error::OutOfRange {
            what: "intc group interval",
            value: 0x100,
            limit: 0x100
        })
    );
    assert_eq!(
        i.set_mod_timer_period(&m, 16),
        Err(Error::OutOfRange {
            what: "moderation timer period",
            value: 16,
            limit: 16
        })
    );
    assert!(matches!(
        i.set_group_interval(&m, 8, 1),
        Err(Error::OutOfRange {
            value: 8,
            limit: 8,
            ..
        })
    ));
    assert!(m.ops().is_empty());
}

/// `set_notific_queue_base(block, queue)` takes its NQ from the handle's
/// `user_errtrig_ens[block].nq` [004 §4], [004r1 §4], [FACTS §12.3].
#[test]
fn notific_queue_base_through_the_mailbox_map() {
    let m = traced();
    let ten = |nq| EnsNq::new(ENS, Flavour::TenQueue, nq).unwrap();
    let mut i = Intc::<Mariana>::new(MSIX_BASE).unwrap();
    i.set_ens_nq(3, ten(2)).unwrap();
    i.set_ens_nq(4, ten(2)).unwrap();
    i.set_ens_nq(7, ten(0)).unwrap();
    i.set_ens_nq(1, EnsNq::new(ENS, Flavour::SingleQueue, 0).unwrap())
        .unwrap();
    // Low die: map[queue] = 0x85_8000_0400 + 0x200 * queue.
    assert_eq!(
        i.set_notific_queue_base(&m, 3, 3),
        Ok(DeviceAddr(0x85_8000_0A00))
    );
    // High die (block > 3): the mesh-bit half of the map.
    assert_eq!(
        i.set_notific_queue_base(&m, 4, 0),
        Ok(DeviceAddr(0x8085_8000_0400))
    );
    assert_eq!(
        i.set_notific_queue_base(&m, 7, 7),
        Ok(DeviceAddr(0x8085_8000_1200))
    );
    assert_eq!(
        m.ops(),
        vec![
            (Write, 0x100 + 80, 0x8000_0A00),
            (Write, 0x104 + 80, 0x85),
            (Write, 0x100 + 80, 0x8000_0400),
            (Write, 0x104 + 80, 0x8085),
            (Write, 0x100, 0x8000_1200),
            (Write, 0x104, 0x8085),
        ]
    );
    assert_eq!(names(&m)[0], "notific.nq[2].nq_base_addr_lo");
    // block < 8, queue < 8: refused, nothing written; so is a block whose ENS
    // NQ the handle does not hold.
    m.clear();
    assert!(matches!(
        i.set_notific_queue_base(&m, 8, 0),
        Err(Error::OutOfRange {
            value: 8,
            limit: 8,
            ..
        })
    ));
    assert!(matches!(
        i.set_notific_queue_base(&m, 3, 8),
        Err(Error::OutOfRange {
            value: 8,
            limit: 8,
            ..
        })
    ));
    assert_eq!(
        i.set_notific_queue_base(&m, 5, 0),
        Err(Error::InvalidArgument("ens nq of this block not set"))
    );
    assert!(m.ops().is_empty());
    // The ENS NQ is validated when recorded: the 10-queue flavour has nq < 10.
    assert!(matches!(
        EnsNq::new(ENS, Flavour::TenQueue, 10),
        Err(Error::OutOfRange {
            value: 10,
            limit: 10,
            ..
        })
    ));
    assert!(i.set_ens_nq(56, ten(0)).is_err());
    // The single-queue flavour has queue 0 only.
    assert!(matches!(
        EnsNq::new(ENS, Flavour::SingleQueue, 1),
        Err(Error::OutOfRange {
            value: 1,
            limit: 1,
            ..
        })
    ));
    // A single-queue engine: no stride.
    i.set_notific_queue_base(&m, 1, 1).unwrap();
    assert_eq!(
        m.ops(),
        vec![(Write, 0x100, 0x8000_0600), (Write, 0x104, 0x85)]
    );
    // `EnsNq::of` reads base and flavour off an initialised engine.
    let blocks = NotificBlocks::new();
    let mut block = blocks.take(ENS).unwrap();
    let ens = NotificEngine::init(&m, &mut block, EngineConfig::tpb(BpMode::All)).unwrap();
    assert_eq!(EnsNq::of(&ens, 2), Ok(ten(2)));
}

#[test]
fn end_to_end_on_the_intc_model() {
    let dev = DeviceModel::new();
    dev.mount(MSIX_BASE, MsixModel::new()).unwrap();
    dev.mount(ET_BASE, ErrtrigModel::new()).unwrap();
    let i = intc();
    for v in 0..8 {
        i.mask_vector(&dev, v).unwrap();
    }
    for v in [1, 4, 6] {
        i.unmask_vector(&dev, v).unwrap();
    }
    let (mask, enabled) = dev
        .with_block(MSIX_BASE, |b: &mut MsixModel, _| {
            (
                b.mask(),
                (0..8).filter(|v| b.vector_enabled(*v)).collect::<Vec<_>>(),
            )
        })
        .unwrap();
    assert_eq!(mask, 0xFF & !(1 << 1 | 1 << 4 | 1 << 6));
    assert_eq!(enabled, vec![1, 4, 6]);
    // The cause latch: set by software, or raised by the hardware side.
    let a = ErrtrigLine::new(3, 1, 2, 0).unwrap();
    let b = ErrtrigLine::new(3, 1, 2, 31).unwrap();
    i.set_cause(&dev, a).unwrap();
    dev.with_block(ET_BASE, |e: &mut ErrtrigModel, _| e.raise(1, 2, 31));
    assert_eq!(i.read_cause(&dev, b), Ok(0x8000_0001));
    i.mask_interrupt(&dev, b).unwrap();
    assert_eq!(
        dev.with_block(ET_BASE, |e: &mut ErrtrigModel, _| e.pending(1, 2)),
        Some(1)
    );
    i.unmask_interrupt(&dev, b).unwrap();
    i.mask_notification(&dev, a).unwrap();
    let u = dev
        .with_block(ET_BASE, |e: &mut ErrtrigModel, _| e.unit(1, 2))
        .flatten()
        .unwrap();
    assert_eq!((u.cause, u.mask, u.log_msk), (0x8000_0001, 0, 1));
    i.set_mod_timer_period(&dev, 9).unwrap();
    assert_eq!(
        dev.with_block(MSIX_BASE, |b: &mut MsixModel, _| b.mod_timer_ctrl()),
        Some(9 << 24)
    );
}

/// Masking a line whose mask bit is already set keeps it set: the masks are
/// `r | 1 << bit` read-modify-writes, not toggles (a `^` passed every other
/// test: cargo-mutants survivor, docs/TESTING.md).
#[test]
fn masking_an_already_masked_line_keeps_it_masked() {
    let m = traced();
    let i = intc();
    let line = ErrtrigLine::new(3, 2, 5, 9).unwrap();
    let unit = (2 << 12) + (5 << 6);
    m.inner().write32(ET_BASE.add(unit + 16), 0x201).unwrap();
    m.inner().write32(ET_BASE.add(unit + 56), 0x200).unwrap();
    i.mask_interrupt(&m, line).unwrap();
    i.mask_notification(&m, line).unwrap();
    assert_eq!(
        m.ops(),
        vec![
            (Read, unit + 16, 0x201),
            (Write, unit + 16, 0x201),
            (Read, unit + 56, 0x200),
            (Write, unit + 56, 0x200),
        ]
    );
}
