//! HW-decode table params (`get_eng_hw_decode_table_params`) [000 §3], [FACTS §3.3].

use crate::addr::{DeviceAddr, HostVisible};
use crate::error::Result;
use crate::ids::Engine;

/// The traced out-params of the HW-decode getter. The C getter has four
/// out-params; the fourth is NOT TRACED and so is not a field here (see
/// [`HwDecode::hw_decode_fourth_param`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct HwDecodeParams<T> {
    /// The table base of the engine ([`DeviceAddr`] or [`HostVisible`]).
    pub base: T,
    /// Header size in bytes.
    pub header_size: u64,
    /// Block size in bytes.
    pub block_size: u64,
}

impl HwDecodeParams<DeviceAddr> {
    /// The host-visible form: the rebase `-0x8_0000_0000` on the base [000 §3].
    pub const fn to_host_visible(self) -> Result<HwDecodeParams<HostVisible>> {
        match self.base.to_host_visible() {
            Ok(base) => Ok(HwDecodeParams {
                base,
                header_size: self.header_size,
                block_size: self.block_size,
            }),
            Err(e) => Err(e),
        }
    }
}

/// The HW-decode family. SUNDA has no HW-decode silicon: its getter aborts in
/// the C code, here `Err(Unsupported)`.
pub trait HwDecode {
    /// The device-full params of engine `eng`.
    fn hw_decode_table_params(eng: Engine) -> Result<HwDecodeParams<DeviceAddr>>;

    /// The host-visible params of engine `eng`.
    fn hw_decode_table_params_host_visible(eng: Engine) -> Result<HwDecodeParams<HostVisible>>;

    /// The fourth out-param of the getter: NOT TRACED on every arch that has
    /// the getter (`Err(NotTraced)`); SUNDA `Err(Unsupported)`.
    fn hw_decode_fourth_param(eng: Engine) -> Result<u64>;
}
