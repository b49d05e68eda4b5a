//! Device address → BAR0 offset: the per-arch BAR0 window table
//! [FACTS §14.3] and the check every register access passes before any ioctl.
//!
//! The kernel bounds writes (`off > bar_size[0]` and its block-list) but not
//! reads, so khal checks both the C way (`[start, end − 4]`, [000 §1]): a
//! run of dwords must lie inside one window, its last dword included.
//!
//! - SUNDA: BAR0 is contiguous, `offset = device − 0xFFF_C000_0000`, over
//!   the whole of `bar_size[0]`.
//! - CAYMAN and MARIANA (identical offsets): TPB n (device base of FACTS
//!   §3.1) ↔ `0xD000_0000 + n × 0x400_0000`, 64 MiB each. APB_IO_0 ↔ `0x0`
//!   and APB_IO_1 ↔ `0x4000_0000` have no traced size, APB_SE n and the
//!   TOP_SP groups no traced device base: an address there is
//!   [`Error::NotTraced`], never a guess.
//!
//! Every window is clipped to `bar_size[0]` (what DEVICE_INFO reports).

use khal_arch_cayman::Cayman;
use khal_core::family::TpbBases;
use khal_core::{ArchId, DeviceAddr, Error, Result};

/// SUNDA's BAR0 device base: `offset = device − 0xFFF_C000_0000` [FACTS §14.3].
pub const SUNDA_BAR0_DEVICE: u64 = 0xFFF_C000_0000;
/// CAYMAN / MARIANA: BAR0 offset of TPB 0's window [FACTS §14.3].
pub const TPB_BAR0_OFFSET: u64 = 0xD000_0000;
/// CAYMAN / MARIANA: bytes of one TPB's BAR0 window (64 MiB) [FACTS §14.3].
pub const TPB_WINDOW_BYTES: u64 = 0x400_0000;
/// CAYMAN / MARIANA: APB_IO_0's device base (BAR0 offset `0x0`) [FACTS §14.3].
pub const APB_IO_0_DEVICE: u64 = 0x80_0000_0000;
/// CAYMAN / MARIANA: APB_IO_1's device base (BAR0 offset `0x4000_0000`) [FACTS §14.3].
pub const APB_IO_1_DEVICE: u64 = 0x8080_0000_0000;
/// The BAR0 room from APB_IO_0's offset to APB_IO_1's (and from APB_IO_1's
/// to APB_SE 0's, `0x8000_0000`): an upper bound of either window, used
/// only to answer "not traced" rather than "outside every window" there.
const APB_IO_ROOM: u64 = 0x4000_0000;

/// One window of BAR0: `size` bytes of device addresses from `device`,
/// at BAR0 offset `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bar0Window {
    /// Its name in FACTS §14.3.
    pub name: &'static str,
    /// The device address of its first byte.
    pub device: u64,
    /// The BAR0 offset of its first byte.
    pub offset: u64,
    /// Bytes (clipped to `bar_size[0]`).
    pub size: u64,
}

/// The BAR0 window table of one device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bar0Map {
    arch: ArchId,
    windows: Vec<Bar0Window>,
}

const TPB_NAMES: [&str; 8] = [
    "tpb0", "tpb1", "tpb2", "tpb3", "tpb4", "tpb5", "tpb6", "tpb7",
];

impl Bar0Map {
    /// The table of `arch` for a BAR0 of `bar0_size` bytes [FACTS §14.3].
    pub fn new(arch: ArchId, bar0_size: u64) -> Bar0Map {
        let clip = |offset: u64, size: u64| size.min(bar0_size.saturating_sub(offset));
        let windows = match arch {
            ArchId::Sunda => vec![Bar0Window {
                name: "bar0",
                device: SUNDA_BAR0_DEVICE,
                offset: 0,
                size: bar0_size,
            }],
            // MARIANA's BAR0 layout and TPB bases are CAYMAN's [FACTS §14.3].
            ArchId::Cayman | ArchId::Mariana => <Cayman as TpbBases>::TPB_BASES
                .iter()
                .zip(TPB_NAMES)
                .enumerate()
                .map(|(n, (base, name))| {
                    let offset = TPB_BAR0_OFFSET + n as u64 * TPB_WINDOW_BYTES;
                    Bar0Window {
                        name,
                        device: base.get(),
                        offset,
                        size: clip(offset, TPB_WINDOW_BYTES),
                    }
                })
                .collect(),
        };
        Bar0Map { arch, windows }
    }

    /// The arch the table is for.
    pub fn arch(&self) -> ArchId {
        self.arch
    }

    /// The windows.
    pub fn windows(&self) -> &[Bar0Window] {
        &self.windows
    }

    /// The BAR0 offset of `dwords` consecutive dwords from `addr`, all inside
    /// one window. Refused before any access: an address not on a dword
    /// ([`Error::InvalidArgument`]); an address in a window whose size or
    /// base is not traced ([`Error::NotTraced`]); an address outside every
    /// window, or a run whose last dword leaves its window
    /// ([`Error::OutOfWindow`] naming the first address outside).
    pub fn offset(&self, addr: DeviceAddr, dwords: usize) -> Result<u64> {
        let a = addr.get();
        if !a.is_multiple_of(4) {
            return Err(Error::InvalidArgument("bar0 address (a multiple of 4)"));
        }
        let Some(w) = self
            .windows
            .iter()
            .find(|w| a.checked_sub(w.device).is_some_and(|d| d < w.size))
        else {
            return Err(self.outside(a));
        };
        let into = a - w.device;
        let bytes = (dwords as u64).saturating_mul(4);
        let room = w.size - into;
        if bytes > room {
            // The first dword past the window's end.
            return Err(Error::out_of_window(w.device.saturating_add(w.size)));
        }
        Ok(w.offset + into)
    }

    /// The refusal of an address outside every traced window.
    fn outside(&self, a: u64) -> Error {
        if self.arch != ArchId::Sunda {
            for (start, what) in [
                (
                    APB_IO_0_DEVICE,
                    "BAR0 window size of APB_IO_0 (FACTS §14.3)",
                ),
                (
                    APB_IO_1_DEVICE,
                    "BAR0 window size of APB_IO_1 (FACTS §14.3)",
                ),
            ] {
                if a.checked_sub(start).is_some_and(|d| d < APB_IO_ROOM) {
                    return Error::NotTraced(what);
                }
            }
        }
        Error::out_of_window(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cayman_tile4_plus_seq_is_at_0xe000_0000_plus() {
        let m = Bar0Map::new(ArchId::Cayman, 0x1_0000_0000);
        let tile4 = <Cayman as TpbBases>::TPB_BASES[4];
        assert_eq!(
            m.offset(tile4.add(0x260_0000), 1),
            Ok(0xE000_0000 + 0x260_0000)
        );
        assert_eq!(m.windows().len(), 8);
    }

    #[test]
    fn sunda_is_contiguous_over_bar0() {
        let m = Bar0Map::new(ArchId::Sunda, 0x4000_0000);
        assert_eq!(
            m.offset(DeviceAddr(SUNDA_BAR0_DEVICE + 0x400_0000), 1),
            Ok(0x400_0000)
        );
        assert_eq!(
            m.offset(DeviceAddr(SUNDA_BAR0_DEVICE + 0x4000_0000), 1),
            Err(Error::out_of_window(SUNDA_BAR0_DEVICE + 0x4000_0000))
        );
    }

    #[test]
    fn untraced_windows_say_so() {
        let m = Bar0Map::new(ArchId::Mariana, 0x1_0000_0000);
        assert!(matches!(
            m.offset(DeviceAddr(APB_IO_0_DEVICE + 8), 1),
            Err(Error::NotTraced(_))
        ));
        assert!(matches!(
            m.offset(DeviceAddr(APB_IO_1_DEVICE), 1),
            Err(Error::NotTraced(_))
        ));
        assert_eq!(
            m.offset(DeviceAddr(0x20_0000_0002), 1).map_err(|_| ()),
            Err(())
        );
    }
}
