//! The HBM map: channel count, channel bases, usable size and BAR window
//! [000 §3], [FACTS §3.1].
//!
//! [000 §3 GOTCHA]: `get_hbm_size` (the per-channel usable size the runtime
//! reports) and the kernel's BAR window per channel are different quantities.
//! They are two newtypes here, so one cannot be passed where the other is wanted.

use crate::addr::DeviceAddr;
use crate::error::Result;

/// The per-channel usable HBM size, as `get_hbm_size` reports it [000 §3].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct HbmUsableSize(pub u64);

impl HbmUsableSize {
    /// Bytes.
    pub const fn bytes(self) -> u64 {
        self.0
    }
}

/// The PCIe BAR window mapping one HBM channel (a kernel constant such as
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

impl HbmBarWindow {
    /// Bytes.
    pub const fn bytes(self) -> u64 {
        self.0
    }
}

indexed_base! {
    /// An HBM channel index of arch `A`, validated against `A`'s channel count
    /// (4 on CAYMAN/MARIANA, 2 on SUNDA). Carries the channel base.
    pub struct HbmChannel<A: HbmMap::HBM_CHANNEL_BASES>, "hbm channel";
    /// Validate `index < A::HBM_CHANNEL_BASES.len()`; else [`crate::Error::OutOfRange`].
    new;
    /// Every channel of `A`, in index order.
    all;
    /// The channel number.
    index;
    /// The channel's base address.
    base;
}

/// The HBM map family [000 §3], [FACTS §3.1].
pub trait HbmMap: Sized {
    /// The base of every HBM channel, in channel order; its length is the
    /// channel count.
    const HBM_CHANNEL_BASES: &'static [DeviceAddr];

    /// The per-channel usable size (`get_hbm_size`).
    const HBM_SIZE: HbmUsableSize;

    /// The BAR window per channel, where the kernel driver gives one;
    /// `Err(NotTraced)` elsewhere.
    const HBM_BAR_WINDOW: Result<HbmBarWindow>;

    default_fns! {
        /// Validate a channel index for this arch (shorthand for [`HbmChannel::new`]).
        fn hbm_channel(index: u32) -> Result<HbmChannel<Self>> = HbmChannel::new(index);
        /// The number of HBM channels.
        fn hbm_channel_count() -> u32 = Self::HBM_CHANNEL_BASES.len() as u32;
        /// The base of a channel.
        fn hbm_channel_base(ch: HbmChannel<Self>) -> DeviceAddr = ch.base();
        /// `get_hbm_size`: the per-channel usable size.
        fn get_hbm_size() -> HbmUsableSize = Self::HBM_SIZE;
        /// The BAR window size per channel, or `Err(NotTraced)`.
        fn hbm_bar_window() -> Result<HbmBarWindow> = Self::HBM_BAR_WINDOW;
    }
}
