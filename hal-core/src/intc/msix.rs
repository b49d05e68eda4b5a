//! The MARIANA MSI-X interrupt controller driver: the handle (bases and
//! shadow masks) and the register programs of [004 §4].
//!
//! Shadows are authoritative (ARCHITECTURE rule 10): the vector-mask shadow is
//! the `top_intc_masks[0]` word of the C handle (`+472`), changed by mask /
//! unmask and written whole to the set-mask / clear-mask register. It is shared
//! between thread and interrupt context, so every change of it, together with
//! the register writes that publish it, runs inside
//! [`critical_section::with`]: two contexts can never publish shadows out of
//! order.
//!
//! The errtrig mask / log-mask programs are interpretations (MED): the notes
//! name their registers (`int_mask_grp +16`, `int_mask_clear_grp +24`,
//! `int_log_msk_grp +56`) but neither revision gives the values the MARIANA
//! leaves write [004 §4], [004r1 §4], [FACTS §12.3]. khal keeps its reading,
//! which follows the IOFIC convention the note cross-references [004 §4
//! "IOFIC Interrupt Model"]: mask = read-modify-write OR of `int_mask_grp`;
//! unmask = write `!(1 << bit)` to `int_mask_clear_grp` (a 0 bit clears its
//! mask bit, a 1 bit has no effect); the log mask is a read-modify-write of
//! `int_log_msk_grp`.
//!
//! It does **not** follow the errtrig mask shadow the C handle carries
//! (`intc_user_errtrig_masks`, handle `+480`, `super::handle`): that shadow
//! is indexed by `get_intc_user_errtrig_mask_index`, whose decode is not traced
//! [004 §4 GOTCHA], and whether the leaves write from it is in neither
//! revision. Keeping a shadow under an invented index would be a guess; the
//! register read-modify-write needs no index.
//!
//! Each field of [`Intc`] names its C counterpart in `aws_hal_intc_t`
//! (`super::handle`).

use core::cell::Cell;
use core::marker::PhantomData;

use critical_section::Mutex;

use super::ens::EnsNq;
use super::line::{ErrtrigLine, ERRTRIG_BLOCKS};
use super::regs::{
    group_interval, mod_timer_ctrl, CAUSE, CAUSE_SET, CLEAR_MASK, ERRTRIG_EXTENT, GROUP_INTERVAL,
    LOG_MSK, MASK, MASK_CLEAR, MOD_TIMER_CTRL, MSIX_EXTENT, SET_MASK, VECTOR_CTRL,
};
use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::family::mailbox::{NqBlock, NqQueue};
use crate::family::NqMailboxMap;
use crate::ids::Bounded;
use crate::notific::regs::{NQ_BASE_ADDR_HI, NQ_BASE_ADDR_LO};
use crate::regs::{check_block_base, Reg};
use crate::Mmio;

/// Highest MSI-X vector: `vec > 7` is refused with -22 [004 §4].
const MAX_VECTOR: u32 = 7;

/// Moderation-timer periods are `< 16` (4 bits, 27:24) [004 §4].
const MOD_TIMER_PERIODS: u32 = 16;

/// The arches whose INTC leaves are traced: only MARIANA [004 §1 NOTE].
///
/// The INTC ops are mandatory (a NULL `khal_intc` slot aborts in C,
/// `+0x480..+0x4D8`) [004 §1], [FACTS §4], and every one of them is the one
/// MSI-X program of [`Intc`], the arch supplying its NQ mailbox map: an arch
/// implements this trait to have all of them, and an arch that does not
/// (SUNDA, CAYMAN: INTC NOT TRACED) has none, so `Intc<Cayman>` does not
/// compile.
pub trait IntcOps: NqMailboxMap {}

/// The MSI-X interrupt controller of arch `A` (MARIANA): the handle
/// (`aws_hal_intc_t` of [004 §4], the parts the register programs use: the
/// MSI-X block base, the 56 errtrig block bases, the vector-mask shadow and
/// the 56 ENS NQs) and its register programs, the INTC ops.
/// `Intc<Sunda>` / `Intc<Cayman>` do not compile.
///
/// The handle is `Sync`: the shadow lives in a [`critical_section::Mutex`].
/// It is about 1.4 KiB (56 bases and 56 NQs, as the C handle): firmware
/// records the bases and ENS NQs in place (`set_*`), without moving it.
pub struct Intc<A: IntcOps> {
    /// `top_intc_msix_base`, C handle `+8`.
    msix: DeviceAddr,
    /// `intc_user_errtrig_base[56]`, C handle `+24 + 8 × block`; a block not
    /// set has none (the C handle would hold 0; khal refuses to address from it).
    errtrig: PerBlock<DeviceAddr>,
    /// `top_intc_masks[0]`, C handle `+472`.
    vec_mask: Mutex<Cell<u32>>,
    /// `user_errtrig_ens[56].nq`, C handle `+696 + 192 × block`; none until set.
    ens_nq: PerBlock<EnsNq>,
    _arch: PhantomData<fn() -> A>,
}

impl<A: IntcOps> core::fmt::Debug for Intc<A> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Intc")
            .field("msix", &self.msix)
            .field("errtrig", &self.errtrig)
            .field("vec_mask", &self.vec_mask)
            .field("ens_nq", &self.ens_nq)
            .finish()
    }
}

/// One value per errtrig block and which blocks have one. A slot not set
/// holds the zero value, so a new handle is zero bytes and the ENS NQ of
/// [`EnsNq::ZERO`] is never answered.
#[derive(Debug)]
struct PerBlock<T> {
    /// Bit `block` set: `values[block]` was recorded.
    set: u64,
    values: [T; ERRTRIG_BLOCKS],
}

/// The ENS table of a new handle: a constant, so that it is zero bytes set
/// in place (an array built element by element would be built aside and
/// copied in).
const NO_ENS_NQ: [EnsNq; ERRTRIG_BLOCKS] = [EnsNq::ZERO; ERRTRIG_BLOCKS];

const _: () = assert!(ERRTRIG_BLOCKS <= 64, "one bit of `PerBlock::set` per block");

impl<T: Copy> PerBlock<T> {
    fn get(&self, block: usize) -> Option<T> {
        let v = *self.values.get(block)?;
        (self.set >> block & 1 == 1).then_some(v)
    }

    /// Record `v` for `block`; `block >= ERRTRIG_BLOCKS` (56) → `OutOfRange`
    /// named `what`, nothing recorded.
    fn record(&mut self, block: u32, v: T, what: &'static str) -> Result<()> {
        let oor = || Error::out_of_range(what, block.into(), ERRTRIG_BLOCKS as u64);
        *self.values.get_mut(block as usize).ok_or_else(oor)? = v;
        self.set |= 1 << block;
        Ok(())
    }
}

impl<A: IntcOps> Intc<A> {
    /// A handle for the MSI-X block at `msix_base` (`top_intc_msix_base`,
    /// handle `+8`), no errtrig bases yet, all-zero shadow. A `msix_base`
    /// whose block does not fit below 2^64 is refused (`InvalidArgument`):
    /// the handle's programs would write at wrapped low addresses.
    #[inline(always)]
    pub const fn new(msix_base: DeviceAddr) -> Result<Self> {
        const_try!(check_block_base(msix_base, MSIX_EXTENT));
        Ok(Intc {
            msix: msix_base,
            errtrig: PerBlock {
                set: 0,
                values: [DeviceAddr(0); ERRTRIG_BLOCKS],
            },
            vec_mask: Mutex::new(Cell::new(0)),
            ens_nq: PerBlock {
                set: 0,
                values: NO_ENS_NQ,
            },
            _arch: PhantomData,
        })
    }

    /// The NQ of block `block`'s ENS, if recorded.
    fn ens_nq(&self, block: usize) -> Option<EnsNq> {
        self.ens_nq.get(block)
    }

    /// `aws_hal_intc_set_notific_queue_base` [004 §4]: point the NQ of block
    /// `block`'s ENS at the mailbox base of `(block, queue)`. `block < 8` and
    /// `queue < 8` (the C asserts; here `OutOfRange`, nothing written); the
    /// NQ is the block's ENS
    /// NQ (`user_errtrig_ens[block].nq`; not recorded → `InvalidArgument`,
    /// nothing written) [004r1 §4], [FACTS §12.3]; the base is `A`'s mailbox
    /// map `[8 * (block > 3) + queue]` (the high die's blocks get the mesh-bit
    /// addresses); then the NQ base programmer
    /// (`aws_hal_notific_nq_set_base_addr`): `nq_base_addr_lo` then
    /// `nq_base_addr_hi`. Returns the base written. Slot `+0x4A8`.
    pub fn set_notific_queue_base<M: Mmio + ?Sized>(
        &self,
        mmio: &M,
        block: u32,
        queue: u32,
    ) -> Result<DeviceAddr> {
        let block = NqBlock::new(block, "intc nq block")?;
        let queue = NqQueue::new(queue, "intc nq queue")?;
        let ens = self
            .ens_nq(block.as_usize())
            .ok_or(Error::InvalidArgument("ens nq of this block not set"))?;
        let base = A::nq_mailbox_base(block, queue)?;
        let lo = ens.reg(NQ_BASE_ADDR_LO)?;
        let hi = ens.reg(NQ_BASE_ADDR_HI)?;
        lo.write(mmio, ens.notific_base(), base.get() as u32)?;
        hi.write(mmio, ens.notific_base(), (base.get() >> 32) as u32)?;
        Ok(base)
    }

    /// Record the base of errtrig block `block` (`intc_user_errtrig_base[block]`).
    /// A `base` whose errtrig block does not fit below 2^64 is refused
    /// (`InvalidArgument`), nothing recorded.
    pub fn set_errtrig_base(&mut self, block: u32, base: DeviceAddr) -> Result<()> {
        check_block_base(base, ERRTRIG_EXTENT)?;
        self.errtrig.record(block, base, "errtrig block")
    }

    /// Record the NQ of block `block`'s ENS (`user_errtrig_ens[block].nq`),
    /// the queue [`Intc::set_notific_queue_base`] programs for that block.
    pub fn set_ens_nq(&mut self, block: u32, nq: EnsNq) -> Result<()> {
        self.ens_nq.record(block, nq, "intc ens block")
    }

    /// The base of errtrig block `block`, if recorded.
    fn errtrig_base(&self, block: usize) -> Option<DeviceAddr> {
        self.errtrig.get(block)
    }

    /// The vector-mask shadow (`top_intc_masks[0]`).
    #[cfg(test)]
    fn vector_mask_shadow(&self) -> u32 {
        critical_section::with(|cs| self.vec_mask.borrow(cs).get())
    }

    /// `aws_hal_intc_mask_vector`: mask MSI-X vector `vec`: shadow `|= 1 << vec`, write the shadow to
    /// set-mask (`+16`), then 1 to the vector's control word
    /// (`+2060 + 16 * vec`). `vec > 7` → `InvalidArgument` (-22), nothing
    /// written [004 §4].
    pub fn mask_vector<M: Mmio + ?Sized>(&self, mmio: &M, vec: u32) -> Result<()> {
        self.set_vector_masked(mmio, vec, true)
    }

    /// `aws_hal_intc_unmask_vector`: unmask MSI-X vector `vec`: shadow `&= !(1 << vec)`, write the shadow to
    /// clear-mask (`+24`), then 0 to the vector's control word. `vec > 7` →
    /// `InvalidArgument` (-22), nothing written [004 §4].
    pub fn unmask_vector<M: Mmio + ?Sized>(&self, mmio: &M, vec: u32) -> Result<()> {
        self.set_vector_masked(mmio, vec, false)
    }

    /// The mask (`masked`) or unmask program of vector `vec`: the shadow's
    /// bit, the shadow to set-mask or clear-mask, then the control word.
    fn set_vector_masked<M: Mmio + ?Sized>(&self, mmio: &M, vec: u32, masked: bool) -> Result<()> {
        if vec > MAX_VECTOR {
            return Err(Error::InvalidArgument("msi-x vector > 7"));
        }
        let ctrl = VECTOR_CTRL.at(vec)?;
        let (publish, bit) = if masked {
            (SET_MASK, 1 << vec)
        } else {
            (CLEAR_MASK, 0)
        };
        critical_section::with(|cs| {
            let shadow = self.vec_mask.borrow(cs);
            shadow.set(shadow.get() & !(1 << vec) | bit);
            publish.write(mmio, self.msix, shadow.get())?;
            ctrl.write(mmio, self.msix, masked as u32)
        })
    }

    /// `aws_hal_intc_set_mod_timer_period`: set the moderation-timer period: read-modify-write of bits 27:24 of
    /// `+40`. `period >= 16` is refused (the C code asserts), nothing touched
    /// [004 §4]. The other bits, the reset bit `0x10` (MED, [FACTS §12.3])
    /// among them, are kept.
    pub fn set_mod_timer_period<M: Mmio + ?Sized>(&self, mmio: &M, period: u32) -> Result<()> {
        let period = Bounded::<MOD_TIMER_PERIODS>::new(period, "moderation timer period")?.get();
        critical_section::with(|_| {
            MOD_TIMER_CTRL
                .modify(mmio, self.msix, |r| mod_timer_ctrl::PERIOD.set(r, period))
                .map(|_| ())
        })
    }

    /// Write the per-group interval register `+1024 + 8 * grp` with `value`,
    /// the low-byte interval [004 §4], [004r1 §4], [FACTS §12.3]. `grp >= 8`
    /// or `value > 0xFF` is refused (`OutOfRange`), nothing written: both
    /// bounds are MED (the earlier revision's, [FACTS §12.3]).
    ///
    /// One plain write (bits 31:8 written 0): the revisions give the field and
    /// its bounds but not whether the leaf preserves the upper bits
    /// (interpretation, MED).
    pub fn set_group_interval<M: Mmio + ?Sized>(
        &self,
        mmio: &M,
        grp: u32,
        value: u32,
    ) -> Result<()> {
        let reg = GROUP_INTERVAL.at(grp)?;
        let value =
            Bounded::<{ group_interval::INTERVAL.mask() + 1 }>::new(value, "intc group interval")?;
        reg.write(
            mmio,
            self.msix,
            group_interval::INTERVAL.set(0, value.get()),
        )
    }

    fn unit(&self, line: ErrtrigLine) -> Result<DeviceAddr> {
        let base = self
            .errtrig_base(line.block())
            .ok_or(Error::InvalidArgument("errtrig base of this block not set"))?;
        Ok(base.add(line.unit_offset()))
    }

    /// Set (`set`) or clear the line's bit of `reg` in the line's unit by
    /// read-modify-write, under the critical section, so that two contexts'
    /// updates of one mask word do not lose a bit.
    fn modify_unit<M: Mmio + ?Sized>(
        &self,
        mmio: &M,
        line: ErrtrigLine,
        reg: Reg,
        set: bool,
    ) -> Result<()> {
        let unit = self.unit(line)?;
        let bit = line.bit_mask();
        critical_section::with(|_| {
            reg.modify(mmio, unit, |r| if set { r | bit } else { r & !bit })
                .map(|_| ())
        })
    }

    /// `aws_hal_intc_set_cause`: latch a cause: write `1 << bit` to `int_cause_set_grp` (`+8`) of the
    /// line's unit [004 §4].
    pub fn set_cause<M: Mmio + ?Sized>(&self, mmio: &M, line: ErrtrigLine) -> Result<()> {
        let unit = self.unit(line)?;
        CAUSE_SET.flat().write(mmio, unit, line.bit_mask())
    }

    /// `aws_hal_intc_read_cause`: read `int_cause_grp` (`+0`) of the line's unit [004 §4]. Slot `+0x4D0`.
    pub fn read_cause<M: Mmio + ?Sized>(&self, mmio: &M, line: ErrtrigLine) -> Result<u32> {
        CAUSE.flat().read(mmio, self.unit(line)?)
    }

    /// `aws_hal_intc_mask_interrupt`: mask the line's interrupt: `int_mask_grp |= 1 << bit` (read-modify-write;
    /// interpretation MED, see the module docs).
    pub fn mask_interrupt<M: Mmio + ?Sized>(&self, mmio: &M, line: ErrtrigLine) -> Result<()> {
        self.modify_unit(mmio, line, MASK.flat(), true)
    }

    /// `aws_hal_intc_unmask_interrupt`: unmask the line's interrupt: write `!(1 << bit)` to `int_mask_clear_grp`
    /// (interpretation MED, see the module docs).
    pub fn unmask_interrupt<M: Mmio + ?Sized>(&self, mmio: &M, line: ErrtrigLine) -> Result<()> {
        let unit = self.unit(line)?;
        MASK_CLEAR.flat().write(mmio, unit, !line.bit_mask())
    }

    /// `aws_hal_intc_mask_notification`: mask the line's notification log: `int_log_msk_grp |= 1 << bit`
    /// (interpretation MED, see the module docs).
    pub fn mask_notification<M: Mmio + ?Sized>(&self, mmio: &M, line: ErrtrigLine) -> Result<()> {
        self.modify_unit(mmio, line, LOG_MSK.flat(), true)
    }

    /// `aws_hal_intc_unmask_notification`: unmask the line's notification log: `int_log_msk_grp &= !(1 << bit)`
    /// (interpretation MED, see the module docs).
    pub fn unmask_notification<M: Mmio + ?Sized>(&self, mmio: &M, line: ErrtrigLine) -> Result<()> {
        self.modify_unit(mmio, line, LOG_MSK.flat(), false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use core::cell::RefCell;

    /// An arch with INTC ops and no traced mailbox map: the programs here
    /// need none but `set_notific_queue_base`'s (tested with MARIANA's map in
    /// the integration tests).
    enum T {}
    impl NqMailboxMap for T {
        const NQ_MAILBOX_MAP: Result<&'static [DeviceAddr; 16]> = Err(Error::NotTraced("test"));
    }
    impl IntcOps for T {}
    type H = Intc<T>;

    /// A tiny recording register file for unit tests (the golden traces live
    /// in the integration tests).
    #[derive(Default)]
    struct Rec {
        log: RefCell<Vec<(bool, u64, u32)>>,
        regs: RefCell<std::collections::BTreeMap<u64, u32>>,
    }
    impl Mmio for Rec {
        fn read32(&self, a: DeviceAddr) -> Result<u32> {
            let v = *self.regs.borrow().get(&a.get()).unwrap_or(&0);
            self.log.borrow_mut().push((false, a.get(), v));
            Ok(v)
        }
        fn write32(&self, a: DeviceAddr, v: u32) -> Result<()> {
            self.regs.borrow_mut().insert(a.get(), v);
            self.log.borrow_mut().push((true, a.get(), v));
            Ok(())
        }
    }

    #[test]
    fn vector_mask_program() {
        let m = Rec::default();
        let h = H::new(DeviceAddr(0x1000)).unwrap();
        h.mask_vector(&m, 3).unwrap();
        h.mask_vector(&m, 0).unwrap();
        h.unmask_vector(&m, 3).unwrap();
        assert_eq!(
            *m.log.borrow(),
            vec![
                (true, 0x1010, 0b1000),
                (true, 0x1000 + 2060 + 48, 1),
                (true, 0x1010, 0b1001),
                (true, 0x1000 + 2060, 1),
                (true, 0x1018, 0b0001),
                (true, 0x1000 + 2060 + 48, 0),
            ]
        );
        assert_eq!(h.vector_mask_shadow(), 1);
        assert_eq!(
            h.mask_vector(&m, 8),
            Err(Error::InvalidArgument("msi-x vector > 7"))
        );
        assert_eq!(m.log.borrow().len(), 6);
    }

    #[test]
    fn errtrig_needs_its_base() {
        let m = Rec::default();
        let mut h = H::new(DeviceAddr(0)).unwrap();
        h.set_errtrig_base(1, DeviceAddr(0x10_0000)).unwrap();
        let line = ErrtrigLine::new(0, 0, 0, 0).unwrap();
        assert!(matches!(
            h.set_cause(&m, line),
            Err(Error::InvalidArgument(_))
        ));
        assert!(m.log.borrow().is_empty());
        assert!(h.set_errtrig_base(56, DeviceAddr(0)).is_err());
    }

    /// The setters record per block, and a refused block changes nothing.
    #[test]
    fn in_place_setters_record_as_the_builders_do() {
        let nq = EnsNq::new(DeviceAddr(0x2000), crate::notific::Flavour::TenQueue, 3).unwrap();
        let mut h = H::new(DeviceAddr(0)).unwrap();
        h.set_errtrig_base(55, DeviceAddr(0x70_0000)).unwrap();
        h.set_ens_nq(0, nq).unwrap();
        assert_eq!(h.errtrig_base(55), Some(DeviceAddr(0x70_0000)));
        assert_eq!(h.ens_nq(0), Some(nq));
        assert!(h.set_errtrig_base(56, DeviceAddr(0x10)).is_err());
        assert!(h.set_ens_nq(56, nq).is_err());
        assert_eq!(h.errtrig_base(0), None);
        assert_eq!(h.ens_nq(55), None);
        // A recorded zero is recorded: set-ness is not read from the value.
        h.set_errtrig_base(3, DeviceAddr(0)).unwrap();
        h.set_ens_nq(4, EnsNq::ZERO).unwrap();
        assert_eq!(h.errtrig_base(3), Some(DeviceAddr(0)));
        assert_eq!(h.ens_nq(4), Some(EnsNq::ZERO));
        assert_eq!((h.errtrig_base(4), h.ens_nq(3)), (None, None));
    }

    /// Both per-block tables hold blocks 0..56 and refuse block 56 by name.
    #[test]
    fn per_block_records_refuse_block_56() {
        let nq = EnsNq::new(DeviceAddr(0x2000), crate::notific::Flavour::TenQueue, 3).unwrap();
        let mut h = H::new(DeviceAddr(0)).unwrap();
        h.set_errtrig_base(55, DeviceAddr(0x70_0000)).unwrap();
        h.set_ens_nq(55, nq).unwrap();
        assert_eq!(h.errtrig_base(55), Some(DeviceAddr(0x70_0000)));
        assert_eq!(h.ens_nq(55), Some(nq));
        let oor = |what| Error::OutOfRange {
            what,
            value: 56,
            limit: 56,
        };
        assert_eq!(
            h.set_errtrig_base(56, DeviceAddr(0)),
            Err(oor("errtrig block"))
        );
        assert_eq!(h.set_ens_nq(56, nq), Err(oor("intc ens block")));
    }
}
