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
use crate::Mmio;

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

    /// The handle, to record bases and ENS NQs in place: the handle is about
    /// 1.4 KiB, and building it here rather than moving it in saves firmware a
    /// `memcpy` call.
    pub fn handle_mut(&mut self) -> &mut MsixIntc {
        &mut self.hw
    }
}

/// The op table [`IntcOps`] and [`Intc`]'s methods from one list: each op
/// takes the handle and the MMIO backend, then its own arguments; the bound
/// handle's method of the same name passes its handle.
macro_rules! intc_ops {
    ($($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*) => {
        /// The INTC op table of an arch; all ops mandatory.
        pub trait IntcOps: Arch + NqMailboxMap {
            $(
                $(#[$doc])*
                fn $name<M: Mmio + ?Sized>(h: &MsixIntc, mmio: &M, $($arg: $ty),*) -> $ret;
            )*
        }

        impl<A: IntcOps> Intc<A> {
            $(
                #[doc = concat!("See [`IntcOps::", stringify!($name), "`].")]
                pub fn $name<M: Mmio + ?Sized>(&self, mmio: &M, $($arg: $ty),*) -> $ret {
                    A::$name(&self.hw, mmio, $($arg),*)
                }
            )*
        }
    };
}

intc_ops! {
    /// `aws_hal_intc_mask_vector`, slot `+0x480`.
    fn mask_vector(vec: u32) -> Result<()>;
    /// `aws_hal_intc_unmask_vector`.
    fn unmask_vector(vec: u32) -> Result<()>;
    /// `aws_hal_intc_mask_interrupt`.
    fn mask_interrupt(line: ErrtrigLine) -> Result<()>;
    /// `aws_hal_intc_unmask_interrupt`.
    fn unmask_interrupt(line: ErrtrigLine) -> Result<()>;
    /// `aws_hal_intc_mask_notification`.
    fn mask_notification(line: ErrtrigLine) -> Result<()>;
    /// `aws_hal_intc_unmask_notification`.
    fn unmask_notification(line: ErrtrigLine) -> Result<()>;
    /// `aws_hal_intc_set_cause`.
    fn set_cause(line: ErrtrigLine) -> Result<()>;
    /// `aws_hal_intc_read_cause`, slot `+0x4D0`.
    fn read_cause(line: ErrtrigLine) -> Result<u32>;
    /// `aws_hal_intc_set_mod_timer_period`.
    fn set_mod_timer_period(period: u32) -> Result<()>;
    /// The per-group interval write.
    fn set_group_interval(grp: u32, value: u32) -> Result<()>;
    /// `aws_hal_intc_set_notific_queue_base`, slot `+0x4A8`: point the NQ of
    /// block `block`'s ENS (held by the handle) at the mailbox base of
    /// `(block, queue)`. Returns the base written.
    fn set_notific_queue_base(block: u32, queue: u32) -> Result<DeviceAddr>;
}
