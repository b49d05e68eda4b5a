//! HW-decode table params `get_eng_hw_decode_table_params(eng, *cam_base,
//! *table_base, *cam_size, *table_size)` [000 §3], [hw-decode §1–§3],
//! [hal-registers §2], [FACTS §3.3, §13.5].
//!
//! The four outs are now all known [FACTS §13.5]: `cam_base = base(eng) −
//! 0x8_0000_0000` **always** (no host-visible argument: §13.10 #7),
//! `cam_size = 0x1000` (§3.3's "header 4096"), `table_base = cam_base +
//! 0x1000`, `table_size = 0x2000` (§3.3's "block"). The out-param order is MED.
//! SUNDA has no HW-decode silicon: its getter asserts whatever the input,
//! here `Err(Unsupported)`; eng > 3 asserts, here `Err(OutOfRange)`.

use crate::addr::{DeviceAddr, HostVisible};
use crate::error::Result;
use crate::ids::Engine;

/// `cam_size` = `0x1000` [hw-decode §2], [FACTS §13.5].
pub(crate) const CAM_SIZE: u64 = 0x1000;
/// `table_size` = `0x2000` [hw-decode §2], [FACTS §13.5].
pub(crate) const TABLE_SIZE: u64 = 0x2000;
/// `table_base = cam_base + 0x1000` [hw-decode §2], [FACTS §13.5].
pub(crate) const TABLE_DELTA: u64 = 0x1000;

/// The four outs of the HW-decode getter, offsets from the TPB base.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct HwDecodeParams {
    /// The CAM image's destination (the device base with bit 35 folded).
    pub cam_base: HostVisible,
    /// The CAM aperture, `0x1000`.
    pub cam_size: u64,
    /// The PROFILE image's destination, `cam_base + 0x1000`.
    pub table_base: HostVisible,
    /// The PROFILE aperture, `0x2000`.
    pub table_size: u64,
}

impl HwDecodeParams {
    /// The outs for an engine whose device-full base is `base`: the bit-35
    /// fold always applied [hw-decode §3a].
    pub(crate) const fn from_device_base(base: DeviceAddr) -> Result<Self> {
        let cam_base = const_try!(base.to_host_visible());
        Ok(HwDecodeParams {
            cam_base,
            cam_size: CAM_SIZE,
            table_base: HostVisible(cam_base.0 + TABLE_DELTA),
            table_size: TABLE_SIZE,
        })
    }
}

/// The HW-decode family.
pub trait HwDecode {
    /// The device-full base of engine `eng`'s CAM (bit 35 set), before the
    /// fold: `0x8_0267_0000` PE … [000 §3], [FACTS §3.3].
    fn hw_decode_device_base(eng: Engine) -> Result<DeviceAddr>;

    /// `get_eng_hw_decode_table_params(eng)`: the four outs.
    fn hw_decode_table_params(eng: Engine) -> Result<HwDecodeParams> {
        HwDecodeParams::from_device_base(Self::hw_decode_device_base(eng)?)
    }
}
