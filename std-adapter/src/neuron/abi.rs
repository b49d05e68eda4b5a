//! The driver's user-space interface in khal's own words: command numbers and
//! argument layouts of `/dev/neuronN` [FACTS §14.2].
//!
//! Every number here is recomputed from the facts' encoding
//! (`dir << 30 | size << 16 | 'N' << 8 | nr`) by [`ioc`] and checked at
//! compile time against the hex value FACTS §14.2 gives; every argument type
//! is `#[repr(C)]` for LP64 with its padding spelled out as fields and its
//! size checked at compile time. Arguments travel as their bytes
//! ([`Arg::to_bytes`], [`Arg::from_bytes`], native byte order as the kernel
//! reads them), so the seam ([`super::sys::NeuronSys`]) sees exactly what the
//! kernel sees. Pointer fields are `u64` user addresses.

/// No data transfer (`_IOC_NONE`).
pub const DIR_NONE: u32 = 0;
/// User space writes, the kernel reads (`_IOC_WRITE`).
pub const DIR_WRITE: u32 = 1;
/// The kernel writes, user space reads (`_IOC_READ`).
pub const DIR_READ: u32 = 2;
/// The driver's ioctl magic, `'N'` [FACTS §14.2].
pub const MAGIC: u32 = b'N' as u32;
/// The size field of a command declared with a pointer argument (LP64) [FACTS §14.2].
pub const PTR: u32 = 8;

/// A command number from its direction, number and size field
/// [FACTS §14.2]: `dir << 30 | size << 16 | 'N' << 8 | nr`.
pub const fn ioc(dir: u32, nr: u32, size: u32) -> u32 {
    (dir << 30) | (size << 16) | (MAGIC << 8) | nr
}

/// The direction bits of a command (bits 31:30).
pub const fn dir_of(cmd: u32) -> u32 {
    cmd >> 30
}

/// The size field of a command (bits 29:16).
pub const fn size_of_cmd(cmd: u32) -> u32 {
    (cmd >> 16) & 0x3FFF
}

/// The magic of a command (bits 15:8).
pub const fn magic_of(cmd: u32) -> u32 {
    (cmd >> 8) & 0xFF
}

/// The number of a command (bits 7:0).
pub const fn nr_of(cmd: u32) -> u32 {
    cmd & 0xFF
}

/// `DEVICE_BASIC_INFO`, nr 100: [`BasicInfo`]; no gate.
pub const DEVICE_BASIC_INFO: u32 = ioc(DIR_WRITE, 100, 8);
/// `DEVICE_INFO`, nr 3: [`DeviceInfo`] through a pointer; no gate.
pub const DEVICE_INFO: u32 = ioc(DIR_READ, 3, PTR);
/// `BAR_READ`, nr 11: [`BarRw`] through a pointer; no gate.
pub const BAR_READ: u32 = ioc(DIR_READ, 11, PTR);
/// `BAR_WRITE`, nr 12: [`BarRw`] through a pointer; attached only.
pub const BAR_WRITE: u32 = ioc(DIR_WRITE, 12, PTR);
/// `MEM_ALLOC_V2MT`, nr 102: [`MemAllocV2Mt`] (48 bytes); attached only.
pub const MEM_ALLOC_V2MT: u32 = ioc(DIR_READ, 102, MemAllocV2Mt::SIZE as u32);
/// `MEM_GET_EXTENDED_INFO`, nr 29: [`MemExtendedInfo`] through a pointer; no gate.
pub const MEM_GET_EXTENDED_INFO: u32 = ioc(DIR_READ, 29, PTR);
/// `MEM_FREE`, nr 22: [`MemFree`]; attached only.
pub const MEM_FREE: u32 = ioc(DIR_READ, 22, 8);
/// `NOTIFICATIONS_INIT_V2`, nr 53: [`NotificationsInitV2`] through a pointer; attached only.
pub const NOTIFICATIONS_INIT_V2: u32 = ioc(DIR_READ, 53, PTR);
/// `NC_RESET`, nr 103: [`NcReset`]; no gate.
pub const NC_RESET: u32 = ioc(DIR_READ, 103, 8);
/// `NC_RESET_READY`, nr 104: [`NcResetReady`]; no gate.
pub const NC_RESET_READY: u32 = ioc(DIR_READ, 104, 8);
/// `RESOURCE_MMAP_INFO`, nr 112 (not used by khal; its decoded value is one
/// of the four the book's catalogue confirms) [FACTS §14.2].
pub const RESOURCE_MMAP_INFO: u32 = ioc(DIR_READ | DIR_WRITE, 112, 0x20);

// The hex values of FACTS §14.2, at compile time.
const _: () = {
    assert!(DEVICE_BASIC_INFO == 0x4008_4E64);
    assert!(DEVICE_INFO == 0x8008_4E03);
    assert!(BAR_READ == 0x8008_4E0B);
    assert!(BAR_WRITE == 0x4008_4E0C);
    assert!(MEM_ALLOC_V2MT == 0x8030_4E66);
    assert!(MEM_GET_EXTENDED_INFO == 0x8008_4E1D);
    assert!(MEM_FREE == 0x8008_4E16);
    assert!(NOTIFICATIONS_INIT_V2 == 0x8008_4E35);
    assert!(NC_RESET == 0x8008_4E67);
    assert!(NC_RESET_READY == 0x8008_4E68);
    assert!(RESOURCE_MMAP_INFO == 0xC020_4E70);
};

/// The name of a command (for errors and logs); `"ioctl"` for one khal does not use.
pub const fn name_of(cmd: u32) -> &'static str {
    match cmd {
        DEVICE_BASIC_INFO => "DEVICE_BASIC_INFO",
        DEVICE_INFO => "DEVICE_INFO",
        BAR_READ => "BAR_READ",
        BAR_WRITE => "BAR_WRITE",
        MEM_ALLOC_V2MT => "MEM_ALLOC_V2MT",
        MEM_GET_EXTENDED_INFO => "MEM_GET_EXTENDED_INFO",
        MEM_FREE => "MEM_FREE",
        NOTIFICATIONS_INIT_V2 => "NOTIFICATIONS_INIT_V2",
        NC_RESET => "NC_RESET",
        NC_RESET_READY => "NC_RESET_READY",
        RESOURCE_MMAP_INFO => "RESOURCE_MMAP_INFO",
        _ => "ioctl",
    }
}

/// The bytes of the argument of command `cmd` (its struct, which a
/// pointer-declared command's size field does not say); `None` for a
/// command khal does not use.
pub const fn arg_size(cmd: u32) -> Option<usize> {
    Some(match cmd {
        DEVICE_BASIC_INFO => BasicInfo::SIZE,
        DEVICE_INFO => DeviceInfo::SIZE,
        BAR_READ | BAR_WRITE => BarRw::SIZE,
        MEM_ALLOC_V2MT => MemAllocV2Mt::SIZE,
        MEM_GET_EXTENDED_INFO => MemExtendedInfo::SIZE,
        MEM_FREE => MemFree::SIZE,
        NOTIFICATIONS_INIT_V2 => NotificationsInitV2::SIZE,
        NC_RESET => NcReset::SIZE,
        NC_RESET_READY => NcResetReady::SIZE,
        _ => return None,
    })
}

/// The architecture numbers of DEVICE_BASIC_INFO / DEVICE_INFO: 2 = SUNDA,
/// 3 = CAYMAN, 4 = MARIANA (v4 driver) [FACTS §14.2].
pub const ARCH_SUNDA: u32 = 2;
/// CAYMAN's architecture number [FACTS §14.2].
pub const ARCH_CAYMAN: u32 = 3;
/// MARIANA's architecture number (v4 driver) [FACTS §14.2].
pub const ARCH_MARIANA: u32 = 4;

/// Most dwords one BAR_READ moves [FACTS §14.3].
pub const BAR_READ_MAX: u32 = 100;
/// `nc_map` of NC_RESET resetting the whole device [FACTS §14.2].
pub const NC_MAP_ALL: u32 = 0xFFFF_FFFF;
/// MEM_GET_EXTENDED_INFO's `version` [FACTS §14.2].
pub const MEM_INFO_VERSION: u32 = 1;
/// Queues per NQ type in the kernel's numbering (`nq_type × 16 + engine_index`) [FACTS §14.5].
pub const NQ_PER_TYPE: u32 = 16;

/// One field of an argument: its bytes at `at`, native order.
pub trait Field: Sized + Copy {
    /// Bytes of the field.
    const BYTES: usize;
    /// Store at `b[at..]`.
    fn put(self, b: &mut [u8], at: usize);
    /// Load from `b[at..]`.
    fn get(b: &[u8], at: usize) -> Self;
}

macro_rules! int_field {
    ($($t:ty),*) => {$(
        impl Field for $t {
            const BYTES: usize = core::mem::size_of::<$t>();
            fn put(self, b: &mut [u8], at: usize) {
                if let Some(d) = b.get_mut(at..at + Self::BYTES) {
                    d.copy_from_slice(&self.to_ne_bytes());
                }
            }
            fn get(b: &[u8], at: usize) -> Self {
                let mut w = [0u8; core::mem::size_of::<$t>()];
                if let Some(s) = b.get(at..at + Self::BYTES) {
                    w.copy_from_slice(s);
                }
                <$t>::from_ne_bytes(w)
            }
        }
    )*};
}
int_field!(u32, i32, u64);

impl Field for [u32; 8] {
    const BYTES: usize = 32;
    fn put(self, b: &mut [u8], at: usize) {
        for (i, w) in self.into_iter().enumerate() {
            w.put(b, at + 4 * i);
        }
    }
    fn get(b: &[u8], at: usize) -> Self {
        core::array::from_fn(|i| u32::get(b, at + 4 * i))
    }
}

/// An ioctl argument: a `#[repr(C)]` struct carried as its bytes.
pub trait Arg: Sized {
    /// Its size in bytes (LP64).
    const SIZE: usize;
    /// Its bytes, as the kernel reads them.
    fn to_bytes(&self) -> Vec<u8>;
    /// From its bytes; `None` unless exactly [`Arg::SIZE`] of them.
    fn from_bytes(b: &[u8]) -> Option<Self>;
}

macro_rules! abi_struct {
    ($(#[$m:meta])* $name:ident = $size:literal { $($(#[$fm:meta])* $f:ident: $t:ty),* $(,)? }) => {
        $(#[$m])*
        #[repr(C)]
        #[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
        pub struct $name { $($(#[$fm])* pub $f: $t),* }

        // The size FACTS §14.2 gives, and no padding the fields do not spell.
        const _: () = assert!(core::mem::size_of::<$name>() == $size);
        const _: () = assert!(0 $(+ <$t as Field>::BYTES)* == $size);

        impl Arg for $name {
            const SIZE: usize = $size;
            fn to_bytes(&self) -> Vec<u8> {
                let mut b = vec![0u8; $size];
                let mut at = 0;
                $( self.$f.put(&mut b, at); at += <$t as Field>::BYTES; )*
                let _ = at;
                b
            }
            fn from_bytes(b: &[u8]) -> Option<Self> {
                if b.len() != $size {
                    return None;
                }
                let mut at = 0;
                $( let $f = <$t as Field>::get(b, at); at += <$t as Field>::BYTES; )*
                let _ = at;
                Some($name { $($f),* })
            }
        }
    };
}

abi_struct! {
    /// DEVICE_BASIC_INFO's argument [FACTS §14.2].
    BasicInfo = 8 {
        /// 2 = SUNDA, 3 = CAYMAN, 4 = MARIANA.
        architecture: u32,
        /// The silicon revision.
        revision: u32,
    }
}

abi_struct! {
    /// DEVICE_INFO's argument (80 bytes) [FACTS §14.2].
    DeviceInfo = 80 {
        /// As [`BasicInfo::architecture`].
        architecture: u32,
        /// As [`BasicInfo::revision`].
        revision: u32,
        /// How many of `connected_devices` are valid.
        connected_device_count: u32,
        /// Device numbers of the connected devices.
        connected_devices: [u32; 8],
        /// LP64 padding before the first `u64`.
        pad: u32,
        /// `bar_address[0]` is the kernel virtual address of BAR0.
        bar_address: [u64; 2],
        /// BAR sizes in bytes.
        bar_size: [u64; 2],
    }
}

impl Field for [u64; 2] {
    const BYTES: usize = 16;
    fn put(self, b: &mut [u8], at: usize) {
        self[0].put(b, at);
        self[1].put(b, at + 8);
    }
    fn get(b: &[u8], at: usize) -> Self {
        [u64::get(b, at), u64::get(b, at + 8)]
    }
}

abi_struct! {
    /// BAR_READ's and BAR_WRITE's argument (32 bytes) [FACTS §14.2].
    BarRw = 32 {
        /// 0 (or 2 for reads) [FACTS §14.3].
        bar: u32,
        /// Padding.
        pad0: u32,
        /// User address of `count` `u64` kernel addresses.
        address: u64,
        /// User address of `count` `u32` data words.
        data: u64,
        /// Dwords to move, at least 1.
        count: u32,
        /// Padding.
        pad1: u32,
    }
}

abi_struct! {
    /// MEM_ALLOC_V2MT's argument (48 bytes) [FACTS §14.2].
    MemAllocV2Mt = 48 {
        /// Bytes.
        size: u64,
        /// 0 for host memory [FACTS §14.4].
        align: u64,
        /// 1 = host memory.
        host_memory: u32,
        /// DRAM channel (device memory).
        dram_channel: u32,
        /// DRAM region (device memory).
        dram_region: u32,
        /// NeuronCore id.
        nc_id: u32,
        /// Memory type.
        mem_type: u32,
        /// Padding.
        pad: u32,
        /// User address of the `u64` the handle is written to.
        mem_handle: u64,
    }
}

abi_struct! {
    /// MEM_GET_EXTENDED_INFO's argument (48 bytes) [FACTS §14.2].
    MemExtendedInfo = 48 {
        /// The chunk's handle.
        mem_handle: u64,
        /// [`MEM_INFO_VERSION`].
        version: u32,
        /// 1 for host memory.
        host_memory: u32,
        /// The offset to `mmap` the chunk at.
        mmap_offset: u64,
        /// The bus address the device uses (host window included) [FACTS §14.4].
        pa: u64,
        /// Owner pid.
        pid: u64,
        /// Bytes.
        size: u64,
    }
}

abi_struct! {
    /// MEM_FREE's argument [FACTS §14.2].
    MemFree = 8 {
        /// The chunk's handle.
        mem_handle: u64,
    }
}

abi_struct! {
    /// NOTIFICATIONS_INIT_V2's argument (48 bytes) [FACTS §14.2].
    NotificationsInitV2 = 48 {
        /// Device index of the NeuronCore / TopSP.
        nq_dev_id: u32,
        /// 0 = NeuronCore, 1 = TopSP [FACTS §14.5].
        nq_dev_type: u32,
        /// TRACE 0, NOTIFY 1, EVENT 2, ERROR 3, TRACE_DMA 4, THROTTLE 5.
        nq_type: u32,
        /// Engine index within the type.
        engine_index: u32,
        /// Ring bytes, a power of two.
        size: u32,
        /// 1 = host memory.
        on_host_memory: u32,
        /// DRAM channel (device memory).
        dram_channel: u32,
        /// DRAM region (device memory).
        dram_region: u32,
        /// Out: the offset to `mmap` the ring at.
        mmap_offset: u64,
        /// Out: the ring's memory handle.
        mem_handle: u64,
    }
}

abi_struct! {
    /// NC_RESET's argument [FACTS §14.2].
    NcReset = 8 {
        /// NeuronCores to reset; [`NC_MAP_ALL`] = the whole device.
        nc_map: u32,
        /// Out: the request id for NC_RESET_READY.
        request_id: u32,
    }
}

abi_struct! {
    /// NC_RESET_READY's argument [FACTS §14.2].
    NcResetReady = 8 {
        /// NC_RESET's request id.
        request_id: u32,
        /// Out: the reset's result (0 = done).
        result: i32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every command of FACTS §14.2: the hex value, and its fields decoded back.
    #[test]
    fn commands_are_the_facts_hex_values_and_decode_back() {
        let table: [(u32, u32, u32, u32, u32); 11] = [
            (DEVICE_BASIC_INFO, 0x4008_4E64, DIR_WRITE, 100, 8),
            (DEVICE_INFO, 0x8008_4E03, DIR_READ, 3, 8),
            (BAR_READ, 0x8008_4E0B, DIR_READ, 11, 8),
            (BAR_WRITE, 0x4008_4E0C, DIR_WRITE, 12, 8),
            (MEM_ALLOC_V2MT, 0x8030_4E66, DIR_READ, 102, 48),
            (MEM_GET_EXTENDED_INFO, 0x8008_4E1D, DIR_READ, 29, 8),
            (MEM_FREE, 0x8008_4E16, DIR_READ, 22, 8),
            (NOTIFICATIONS_INIT_V2, 0x8008_4E35, DIR_READ, 53, 8),
            (NC_RESET, 0x8008_4E67, DIR_READ, 103, 8),
            (NC_RESET_READY, 0x8008_4E68, DIR_READ, 104, 8),
            (
                RESOURCE_MMAP_INFO,
                0xC020_4E70,
                DIR_READ | DIR_WRITE,
                112,
                0x20,
            ),
        ];
        for (cmd, hex, dir, nr, size) in table {
            assert_eq!(cmd, hex, "{hex:#x}");
            assert_eq!(
                (dir_of(cmd), nr_of(cmd), size_of_cmd(cmd), magic_of(cmd)),
                (dir, nr, size, u32::from(b'N'))
            );
        }
    }

    #[test]
    fn arguments_have_the_facts_sizes_and_round_trip() {
        assert_eq!(
            [
                BarRw::SIZE,
                MemAllocV2Mt::SIZE,
                MemExtendedInfo::SIZE,
                NotificationsInitV2::SIZE,
                DeviceInfo::SIZE
            ],
            [32, 48, 48, 48, 80]
        );
        let d = DeviceInfo {
            architecture: 3,
            revision: 1,
            connected_device_count: 2,
            connected_devices: [1, 2, 3, 4, 5, 6, 7, 8],
            pad: 0,
            bar_address: [0xFFFF_C900_0000_0000, 7],
            bar_size: [0x1_0000_0000, 9],
        };
        let b = d.to_bytes();
        // bar_address[0] at byte 48, after 11 u32 and the pad [FACTS §14.2].
        assert_eq!(u64::get(&b, 48), 0xFFFF_C900_0000_0000);
        assert_eq!(u64::get(&b, 64), 0x1_0000_0000);
        assert_eq!(DeviceInfo::from_bytes(&b), Some(d));
        assert_eq!(DeviceInfo::from_bytes(&b[..79]), None);
        let r = BarRw {
            bar: 0,
            address: 0x1111,
            data: 0x2222,
            count: 5,
            ..BarRw::default()
        };
        let b = r.to_bytes();
        assert_eq!(
            (u64::get(&b, 8), u64::get(&b, 16), u32::get(&b, 24)),
            (0x1111, 0x2222, 5)
        );
        let m = MemAllocV2Mt {
            mem_handle: 0xABC,
            ..MemAllocV2Mt::default()
        };
        assert_eq!(u64::get(&m.to_bytes(), 40), 0xABC);
        let n = NotificationsInitV2 {
            size: 1024,
            mmap_offset: 5,
            ..NotificationsInitV2::default()
        };
        assert_eq!(u32::get(&n.to_bytes(), 16), 1024);
        assert_eq!(u64::get(&n.to_bytes(), 32), 5);
    }
}
