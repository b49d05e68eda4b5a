//! The INTC ops: mandatory per-arch ops (a NULL slot aborts in C, `khal_intc`
//! `+0x480..+0x4D8`) [004 §1], [FACTS §4], and the arch-bound handle [`Intc`].
//!
//! Every op is a *required* method of [`IntcOps`]: an arch that implements the
//! trait without one does not compile. Only MARIANA implements it: SUNDA and
//! CAYMAN INTC are NOT TRACED [004 §1 NOTE], so `Intc<Cayman>` cannot be
//! written.

use core::marker::PhantomData;

use super::line::ErrtrigLine;
use super::msix::MsixIntc;
use crate::addr::DeviceAddr;
use crate::error::Result;
use crate::family::{Arch, NqMailboxMap};
use crate::mmio::Mmio;

/// The INTC op table of an arch; all ops mandatory.
pub trait IntcOps: Arch + NqMailboxMap {
    /// `aws_hal_intc_mask_vector`, slot `+0x480`.
    fn mask_vector<M: Mmio + ?Sized>(h: &MsixIntc, mmio: &M, vec: u32) -> Result<()>;
    /// `aws_hal_intc_unmask_vector`.
    fn unmask_vector<M: Mmio + ?Sized>(h: &MsixIntc, mmio: &M, vec: u32) -> Result<()>;
    /// `aws_hal_intc_mask_interrupt`.
    fn mask_interrupt<M: Mmio + ?Sized>(h: &MsixIntc, mmio: &M, line: ErrtrigLine) -> Result<()>;
    /// `aws_hal_intc_unmask_interrupt`.
    fn unmask_interrupt<M: Mmio + ?Sized>(h: &MsixIntc, mmio: &M, line: ErrtrigLine) -> Result<()>;
    /// `aws_hal_intc_mask_notification`.
    fn mask_notification<M: Mmio + ?Sized>(h: &MsixIntc, mmio: &M, line: ErrtrigLine)
        -> Result<()>;
    /// `aws_hal_intc_unmask_notification`.
    fn unmask_notification<M: Mmio + ?Sized>(
        h: &MsixIntc,
        mmio: &M,
        line: ErrtrigLine,
    ) -> Result<()>;
    /// `aws_hal_intc_set_cause`.
    fn set_cause<M: Mmio + ?Sized>(h: &MsixIntc, mmio: &M, line: ErrtrigLine) -> Result<()>;
    /// `aws_hal_intc_read_cause`, slot `+0x4D0`.
    fn read_cause<M: Mmio + ?Sized>(h: &MsixIntc, mmio: &M, line: ErrtrigLine) -> Result<u32>;
    /// `aws_hal_intc_set_mod_timer_period`.
    fn set_mod_timer_period<M: Mmio + ?Sized>(h: &MsixIntc, mmio: &M, period: u32) -> Result<()>;
    /// The per-group interval write.
    fn set_group_interval<M: Mmio + ?Sized>(
        h: &MsixIntc,
        mmio: &M,
        grp: u32,
        value: u32,
    ) -> Result<()>;
    /// `aws_hal_intc_set_notific_queue_base`, slot `+0x4A8`: point the NQ of
    /// block `block`'s ENS (held by the handle) at the mailbox base of
    /// `(block, queue)`. Returns the base written.
    fn set_notific_queue_base<M: Mmio + ?Sized>(
        h: &MsixIntc,
        mmio: &M,
        block: u32,
        queue: u32,
    ) -> Result<DeviceAddr>;
}

/// An MSI-X controller bound to arch `A` (MARIANA): the handle plus the arch's
/// op table. `Intc<Sunda>` / `Intc<Cayman>` do not compile.
#[derive(Debug)]
pub struct Intc<A: IntcOps> {
    hw: MsixIntc,
    _arch: PhantomData<fn() -> A>,
}

impl<A: IntcOps> Intc<A> {
    /// Bind a handle to `A`.
    pub const fn new(hw: MsixIntc) -> Self {
        Intc {
            hw,
            _arch: PhantomData,
        }
    }

    /// The handle (bases, shadow).
    pub const fn handle(&self) -> &MsixIntc {
        &self.hw
    }

    /// See [`IntcOps::mask_vector`].
    pub fn mask_vector<M: Mmio + ?Sized>(&self, mmio: &M, vec: u32) -> Result<()> {
        A::mask_vector(&self.hw, mmio, vec)
    }
    /// See [`IntcOps::unmask_vector`].
    pub fn unmask_vector<M: Mmio + ?Sized>(&self, mmio: &M, vec: u32) -> Result<()> {
        A::unmask_vector(&self.hw, mmio, vec)
    }
    /// See [`IntcOps::mask_interrupt`].
    pub fn mask_interrupt<M: Mmio + ?Sized>(&self, mmio: &M, line: ErrtrigLine) -> Result<()> {
        A::mask_interrupt(&self.hw, mmio, line)
    }
    /// See [`IntcOps::unmask_interrupt`].
    pub fn unmask_interrupt<M: Mmio + ?Sized>(&self, mmio: &M, line: ErrtrigLine) -> Result<()> {
        A::unmask_interrupt(&self.hw, mmio, line)
    }
    /// See [`IntcOps::mask_notification`].
    pub fn mask_notification<M: Mmio + ?Sized>(&self, mmio: &M, line: ErrtrigLine) -> Result<()> {
        A::mask_notification(&self.hw, mmio, line)
    }
    /// See [`IntcOps::unmask_notification`].
    pub fn unmask_notification<M: Mmio + ?Sized>(&self, mmio: &M, line: ErrtrigLine) -> Result<()> {
        A::unmask_notification(&self.hw, mmio, line)
    }
    /// See [`IntcOps::set_cause`].
    pub fn set_cause<M: Mmio + ?Sized>(&self, mmio: &M, line: ErrtrigLine) -> Result<()> {
        A::set_cause(&self.hw, mmio, line)
    }
    /// See [`IntcOps::read_cause`].
    pub fn read_cause<M: Mmio + ?Sized>(&self, mmio: &M, line: ErrtrigLine) -> Result<u32> {
        A::read_cause(&self.hw, mmio, line)
    }
    /// See [`IntcOps::set_mod_timer_period`].
    pub fn set_mod_timer_period<M: Mmio + ?Sized>(&self, mmio: &M, period: u32) -> Result<()> {
        A::set_mod_timer_period(&self.hw, mmio, period)
    }
    /// See [`IntcOps::set_group_interval`].
    pub fn set_group_interval<M: Mmio + ?Sized>(
        &self,
        mmio: &M,
        grp: u32,
        value: u32,
    ) -> Result<()> {
        A::set_group_interval(&self.hw, mmio, grp, value)
    }
    /// See [`IntcOps::set_notific_queue_base`].
    pub fn set_notific_queue_base<M: Mmio + ?Sized>(
        &self,
        mmio: &M,
        block: u32,
        queue: u32,
    ) -> Result<DeviceAddr> {
        A::set_notific_queue_base(&self.hw, mmio, block, queue)
    }
}
