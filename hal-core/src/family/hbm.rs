//! The HBM map: channel count, channel bases, usable size and BAR window
//! [000 §3], [FACTS §3.1].
//!
//! [000 §3 GOTCHA]: `get_hbm_size` (the per-channel usable size the runtime
//! reports) and the kernel's BAR window per channel are different quantities.
//! They are two newtypes here, so one cannot be passed where the other is wanted.

use crate::addr::DeviceAddr;
use crate::error::Result;

/// The per-channel usable HBM size in bytes, as `get_hbm_size` reports it [000 §3].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct HbmUsableSize(pub u64);

/// The PCIe BAR window mapping one HBM channel, in bytes (a kernel constant such as
/// `CAYMAN_PCIE_BAR4_HBM_0_SIZE`) [000 §3 GOTCHA]. Never an [`HbmUsableSize`]:
///
/// ```compile_fail
/// use khal_core::family::{HbmBarWindow, HbmUsableSize};
/// fn reports_memory_stats(_: HbmUsableSize) {}
/// reports_memory_stats(HbmBarWindow(0x10_0000_0000)); // does not type-check
/// ```
///
/// ```
/// use khal_core::family::{HbmBarWindow, HbmUsableSize};
/// fn reports_memory_stats(_: HbmUsableSize) {}
/// reports_memory_stats(HbmUsableSize(0x6_0000_0000));
/// let _bar = HbmBarWindow(0x10_0000_0000);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct HbmBarWindow(pub u64);

/// An arch's HBM map [000 §3], [FACTS §3.1].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HbmLayout {
    /// The base of every HBM channel, in channel order; its length is the
    /// channel count (4 on CAYMAN/MARIANA, 2 on SUNDA).
    pub channel_bases: &'static [DeviceAddr],
    /// The per-channel usable size (`get_hbm_size`).
    pub usable_size: HbmUsableSize,
    /// The BAR window per channel, where the kernel driver gives one;
    /// `Err(NotTraced)` elsewhere.
    pub bar_window: Result<HbmBarWindow>,
}

/// The HBM map family [000 §3], [FACTS §3.1].
pub trait HbmMap {
    /// The arch's HBM map.
    const HBM: HbmLayout;
}
