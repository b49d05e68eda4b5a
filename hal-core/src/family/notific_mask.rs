//! The notification-enable masks: error, ham, evsem hw-bp [002 §4], [FACTS §4, §5].
//!
//! [002 §4] reads them through `khal_arch` slots `+0xA8` (evsem), `+0xB0`
//! (error), `+0xB8` (ham); the register-accessor page decodes those three
//! slots as `hbm_size`, `seq_params` and `q7_params` instead, so the mask
//! slots are NOT TRACED as well as the values [FACTS §5, §13.10 #2]. Neither
//! revision gives a mask value on any arch [FACTS §12.1].

use crate::error::{Error, Result};

/// Which notification mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum NotificMask {
    /// The error-notification mask ([002 §4] reads it at `khal_arch +0xB0`, a slot
    /// [hal-registers §2] decodes otherwise: NOT TRACED, §13.10 #2).
    Error,
    /// The ham-notification mask ([002 §4] reads it at `khal_arch +0xB8`, a slot
    /// [hal-registers §2] decodes otherwise: NOT TRACED, §13.10 #2).
    Ham,
    /// The event/semaphore hw-backpressure mask ([002 §4] reads it at `khal_arch +0xA8`, a slot
    /// [hal-registers §2] decodes otherwise: NOT TRACED, §13.10 #2).
    Evsem,
}

impl NotificMask {
    /// All three, in the order error, ham, evsem.
    pub const ALL: [NotificMask; 3] = [NotificMask::Error, NotificMask::Ham, NotificMask::Evsem];

    /// The spec's short name.
    pub const fn name(self) -> &'static str {
        match self {
            NotificMask::Error => "error",
            NotificMask::Ham => "ham",
            NotificMask::Evsem => "evsem",
        }
    }
}

/// The notification-mask family.
pub trait NotificMasks {
    /// The mask value. NOT TRACED on every arch [002 §4], [FACTS §5]: the
    /// default answers so, once for all arches.
    fn notific_mask(which: NotificMask) -> Result<u32> {
        Err(Error::NotTraced(match which {
            NotificMask::Error => "error notification mask",
            NotificMask::Ham => "ham notification mask",
            NotificMask::Evsem => "evsem notification mask",
        }))
    }
}
