//! The NQ a block's ENS holds: `user_errtrig_ens[block].nq` of the C handle
//! (`+696 + 192 × block`), the queue `set_notific_queue_base` programs
//! [004 §4], [004r1 §4], [FACTS §12.3].
//!
//! The C leaf takes only `(block_idx, queue_id)`: the NQ comes from the
//! handle, not from the caller. khal records, per block, which notification
//! engine (its base and flavour) and which of its queues that NQ is
//! ([`EnsNq`], set with [`super::Intc::set_ens_nq`]).

use crate::addr::DeviceAddr;
use crate::error::{Error, Result};
use crate::notific::engine::Flavour;
use crate::notific::NotificEngine;
use crate::regs::{Reg, RegArray};
use crate::Mmio;

/// One block's ENS NQ: engine base, flavour and queue index, validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EnsNq {
    notific_base: DeviceAddr,
    flavour: Flavour,
    nq: u32,
}

impl EnsNq {
    /// The value of an ENS slot not set (never answered as an NQ).
    pub(super) const ZERO: EnsNq = EnsNq {
        notific_base: DeviceAddr(0),
        flavour: Flavour::SingleQueue,
        nq: 0,
    };

    /// NQ `nq` of the notification engine at `notific_base` in `flavour`.
    /// The 10-queue flavour refuses `nq >= 10` (`OutOfRange`); the
    /// single-queue flavour has one NQ, no stride [004 §3 QUIRK], and refuses
    /// `nq != 0` as `NotificEngine::nq_reg` does. A `notific_base` whose
    /// block does not fit below 2^64 is refused (`InvalidArgument`), as
    /// `NotificEngine::init` refuses it.
    pub fn new(notific_base: DeviceAddr, flavour: Flavour, nq: u32) -> Result<Self> {
        crate::regs::check_block_base(notific_base, crate::notific::regs::NOTIFIC_EXTENT)?;
        let e = EnsNq {
            notific_base,
            flavour,
            nq,
        };
        e.reg(crate::notific::regs::NQ_BASE_ADDR_LO)?;
        Ok(e)
    }

    /// NQ `nq` of an initialised engine.
    pub fn of<M: Mmio>(ens: &NotificEngine<'_, M>, nq: u32) -> Result<Self> {
        Self::new(ens.base(), ens.flavour(), nq)
    }

    /// The engine's base.
    pub(super) const fn notific_base(self) -> DeviceAddr {
        self.notific_base
    }

    /// The per-NQ register `r` of this NQ in its flavour (relative to
    /// `notific_base`).
    pub(super) fn reg(self, r: RegArray) -> Result<Reg> {
        match self.flavour {
            Flavour::TenQueue => r.at(self.nq),
            Flavour::SingleQueue if self.nq == 0 => Ok(r.flat()),
            // As `NotificEngine::nq_reg`: the single-queue flavour has queue 0 only.
            Flavour::SingleQueue => Err(Error::out_of_range(
                "nq index (single-queue flavour)",
                self.nq.into(),
                1,
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The queue index and base are the ones validated, and the per-NQ
    /// register follows the flavour's stride [004 §3 QUIRK].
    #[test]
    fn accessors_and_the_queue_stride() {
        let base = DeviceAddr(0x3053_5000);
        let e = EnsNq::new(base, Flavour::TenQueue, 7).unwrap();
        assert_eq!(e.notific_base(), base);
        let lo = crate::notific::regs::NQ_BASE_ADDR_LO;
        assert_eq!(e.reg(lo).unwrap().offset(), 0x100 + 40 * 7);
        assert!(EnsNq::new(base, Flavour::TenQueue, 10).is_err());
        assert!(EnsNq::new(base, Flavour::SingleQueue, 2).is_err());
        let s = EnsNq::new(base, Flavour::SingleQueue, 0).unwrap();
        assert_eq!(s.reg(lo).unwrap().offset(), 0x100);
    }
}
