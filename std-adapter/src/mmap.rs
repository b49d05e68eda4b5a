//! `MmapMmio`: a device window mapped from a file with memmap2 (a PCI sysfs
//! `resourceN`, a `/dev/uioN` map, or a plain file in tests).
//!
//! The file is mapped shared and read-write; byte `0` of the mapped range
//! answers the device address `device_base`. Every access is bounds- and
//! alignment-checked first, then done as one raw `read_volatile` /
//! `write_volatile` of a `u32` in the host's byte order (as the C runtime's
//! BAR access does). No reference into the mapping is ever created, here or in
//! the public API: mapped memory is outside every Rust allocation, so volatile
//! accesses to it are I/O operations the compiler neither elides, merges,
//! reorders nor duplicates, and other writers (the device, another process
//! sharing the file) change nothing Rust assumes.
//!
//! Mapping a regular file beyond its end would fault (`SIGBUS`) on access, so
//! for regular files the range is checked against the file size at open. A
//! file that shrinks while mapped can still fault: see "The file must not
//! shrink" on [`MmapMmio::open`]. Character devices (`/dev/uioN`) report no size; their
//! map length comes from `/sys/class/uio/uioN/maps/mapM/size` and is the
//! caller's to pass.
#![allow(unsafe_code)]

use std::fs::OpenOptions;
use std::io;
use std::path::Path;

use khal_core::{DeviceAddr, Error, Mmio, Result};
use memmap2::{MmapOptions, MmapRaw};

/// A register window mapped from a file. See the module docs.
#[derive(Debug)]
pub struct MmapMmio {
    map: MmapRaw,
    device_base: u64,
    len: usize,
}

/// A register access inside the window at an address that is not a multiple
/// of 4: registers are 32-bit and dword aligned [000 §1].
pub const MISALIGNED: Error =
    Error::InvalidArgument("misaligned MMIO access: address not dword aligned");

fn invalid(what: &'static str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, what)
}

/// The same error (same kind), its message prefixed with the path it is about:
/// "/sys/bus/pci/devices/0000:10:1c.0/resource0: No such file or directory".
fn at_path(path: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.display()))
}

impl MmapMmio {
    /// Map the whole of `path` (a sysfs `resourceN` reports its BAR size; a
    /// plain file its length) at device address `device_base`.
    ///
    /// Fails for a file that reports a size of 0 (e.g. `/dev/uioN`: use
    /// [`MmapMmio::open_range`] with the map's size) and as
    /// [`MmapMmio::open_range`] does.
    ///
    /// Every error names `path` and keeps its [`io::ErrorKind`].
    ///
    /// # The file must not shrink
    ///
    /// While the `MmapMmio` lives, the file must keep at least the mapped
    /// range: an access to a page past the file's end (someone truncated it)
    /// raises `SIGBUS`, which kills the process. Device files (a sysfs
    /// `resourceN`, `/dev/uioN`) cannot shrink; a plain file can. memmap2
    /// makes its constructors `unsafe` for this and because they hand out
    /// references to memory other writers change; this one stays safe
    /// because no reference into the mapping is ever created (every access is
    /// one raw volatile read or write, see the module docs), so a shrink
    /// cannot cause undefined behaviour, only the end of the process, as an
    /// abort would. The same holds for [`MmapMmio::open_range`].
    pub fn open(path: impl AsRef<Path>, device_base: DeviceAddr) -> io::Result<Self> {
        let path = path.as_ref();
        Self::open_whole(path, device_base).map_err(|e| at_path(path, e))
    }

    fn open_whole(path: &Path, device_base: DeviceAddr) -> io::Result<Self> {
        let size = std::fs::metadata(path)?.len();
        let len = usize::try_from(size).map_err(|_| invalid("file too large to map"))?;
        if len == 0 {
            return Err(invalid(
                "file reports size 0; give the window length with open_range",
            ));
        }
        Self::map_range(path, 0, len, device_base)
    }

    /// Map `len` bytes of `path` from byte `offset` at device address
    /// `device_base`. For `/dev/uioN`, map `M` is at `offset = M * page_size`.
    ///
    /// Refused (`InvalidInput`): `len` of 0 or not a multiple of 4; `offset` or
    /// `device_base` not dword aligned; `device_base + len` past `u64::MAX`; for
    /// a regular file, a range extending past its end. I/O errors of opening
    /// and mapping are passed through. Every error names `path` and keeps its
    /// [`io::ErrorKind`]. The mapped range of the file must not shrink while
    /// mapped (`SIGBUS`; see [`MmapMmio::open`]).
    pub fn open_range(
        path: impl AsRef<Path>,
        offset: u64,
        len: usize,
        device_base: DeviceAddr,
    ) -> io::Result<Self> {
        let path = path.as_ref();
        Self::map_range(path, offset, len, device_base).map_err(|e| at_path(path, e))
    }

    fn map_range(
        path: &Path,
        offset: u64,
        len: usize,
        device_base: DeviceAddr,
    ) -> io::Result<Self> {
        if len == 0 || !len.is_multiple_of(4) {
            return Err(invalid("window length must be a non-zero multiple of 4"));
        }
        if !offset.is_multiple_of(4) || !device_base.get().is_multiple_of(4) {
            return Err(invalid("file offset and device base must be dword aligned"));
        }
        let len64 = u64::try_from(len).map_err(|_| invalid("window too large"))?;
        if device_base.get().checked_add(len64).is_none() {
            return Err(invalid("device base + window length overflows"));
        }
        let file = OpenOptions::new().read(true).write(true).open(path)?;
        let meta = file.metadata()?;
        if meta.is_file() && offset.checked_add(len64).is_none_or(|end| end > meta.len()) {
            return Err(invalid("window extends past the end of the file"));
        }
        let map = MmapOptions::new().offset(offset).len(len).map_raw(&file)?;
        if map.len() < len || !(map.as_ptr() as usize).is_multiple_of(4) {
            return Err(invalid("mapping is shorter than asked or misaligned"));
        }
        Ok(MmapMmio {
            map,
            device_base: device_base.get(),
            len,
        })
    }

    /// The device address of byte 0 of the mapping.
    pub fn device_base(&self) -> DeviceAddr {
        DeviceAddr(self.device_base)
    }

    /// The window length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` for an empty window (never: `open_range` refuses length 0).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Flush written pages back to the file (`msync`); a no-op for device
    /// memory, useful for plain files.
    pub fn flush(&self) -> io::Result<()> {
        self.map.flush()
    }

    /// Byte offset of `addr` in the mapping, if the whole dword is inside it
    /// and aligned. An address inside the window but not dword aligned is
    /// [`MISALIGNED`]; one outside it [`Error::OutOfWindow`].
    fn offset(&self, addr: DeviceAddr) -> Result<usize> {
        let refuse = Error::out_of_window(addr.get());
        let off = addr.get().checked_sub(self.device_base).ok_or(refuse)?;
        let off = usize::try_from(off).map_err(|_| refuse)?;
        if off < self.len && !off.is_multiple_of(4) {
            return Err(MISALIGNED);
        }
        if off.checked_add(4).is_none_or(|end| end > self.len) {
            return Err(refuse);
        }
        Ok(off)
    }
}

impl Mmio for MmapMmio {
    fn read32(&self, addr: DeviceAddr) -> Result<u32> {
        let off = self.offset(addr)?;
        // SAFETY: `off + 4 <= len <= map.len()` (checked by `offset` and at
        // open), so the dword is inside the live mapping `self.map` owns; the
        // mapping base is dword aligned (checked at open) and `off % 4 == 0`,
        // so the pointer is aligned for `u32`. The memory is a shared file
        // mapping outside any Rust allocation, accessed only through raw
        // volatile operations, so no Rust reference aliases it.
        let v = unsafe { self.map.as_ptr().add(off).cast::<u32>().read_volatile() };
        Ok(v)
    }

    fn write32(&self, addr: DeviceAddr, value: u32) -> Result<()> {
        let off = self.offset(addr)?;
        // SAFETY: as in `read32`: in bounds, aligned, inside the live mapping,
        // which is mapped writable (opened read-write, `map_raw`); raw volatile
        // write, no reference created.
        unsafe {
            self.map
                .as_mut_ptr()
                .add(off)
                .cast::<u32>()
                .write_volatile(value)
        };
        Ok(())
    }

    /// Both ends of the burst are checked first, so a burst leaving the window
    /// writes nothing; then one volatile write per word, in order.
    fn write_burst(&self, addr: DeviceAddr, words: &[u32]) -> Result<()> {
        let Some(last) = words.len().checked_sub(1) else {
            return Ok(());
        };
        let first = self.offset(addr)?;
        let last_addr = (last as u64)
            .checked_mul(4)
            .and_then(|o| addr.get().checked_add(o))
            .ok_or(Error::out_of_window(addr.get()))?;
        self.offset(DeviceAddr(last_addr))?;
        for (k, &w) in words.iter().enumerate() {
            // SAFETY: `first + 4k` lies between the first and the last dword of
            // the burst, both checked in bounds and aligned above; the window
            // is contiguous. Raw volatile write as in `write32`.
            unsafe {
                self.map
                    .as_mut_ptr()
                    .add(first + 4 * k)
                    .cast::<u32>()
                    .write_volatile(w)
            };
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn file_of(bytes: &[u8]) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        f.write_all(bytes).unwrap();
        f.flush().unwrap();
        f
    }

    #[test]
    #[cfg_attr(miri, ignore = "Miri cannot mmap files")]
    fn reads_the_file_and_writes_land_in_it() {
        let mut bytes = vec![0u8; 4096];
        bytes[8..12].copy_from_slice(&0x1234_5678u32.to_ne_bytes());
        let f = file_of(&bytes);
        let m = MmapMmio::open(f.path(), DeviceAddr(0x20_0000_0000)).unwrap();
        assert_eq!(m.len(), 4096);
        assert_eq!(m.read32(DeviceAddr(0x20_0000_0008)), Ok(0x1234_5678));
        m.write32(DeviceAddr(0x20_0000_0000), 0xCAFE_F00D).unwrap();
        m.write32(DeviceAddr(0x20_0000_0FFC), 0xA5A5_0001).unwrap(); // last dword
        m.write_burst(DeviceAddr(0x20_0000_0100), &[1, 2, 3])
            .unwrap();
        assert_eq!(m.read32(DeviceAddr(0x20_0000_0000)), Ok(0xCAFE_F00D));
        m.flush().unwrap();
        // Read the file back through the file system, not the mapping.
        let back = std::fs::read(f.path()).unwrap();
        let word = |o: usize| u32::from_ne_bytes(back[o..o + 4].try_into().unwrap());
        assert_eq!(word(0), 0xCAFE_F00D);
        assert_eq!(word(0xFFC), 0xA5A5_0001);
        assert_eq!([word(0x100), word(0x104), word(0x108)], [1, 2, 3]);
        assert_eq!(word(8), 0x1234_5678);
    }

    #[test]
    #[cfg_attr(miri, ignore = "Miri cannot mmap files")]
    fn refuses_out_of_window_and_misaligned_without_writing() {
        let f = file_of(&[0u8; 64]);
        let m = MmapMmio::open(f.path(), DeviceAddr(0x1000)).unwrap();
        for a in [0xFFC, 0xFFF, 0x1040, 0x1041, u64::MAX] {
            assert_eq!(
                m.read32(DeviceAddr(a)),
                Err(Error::out_of_window(a)),
                "{a:#x}"
            );
            assert_eq!(m.write32(DeviceAddr(a), 1), Err(Error::out_of_window(a)));
        }
        // Inside the window but not dword aligned: says misaligned.
        for a in [0x1001, 0x1002, 0x1003, 0x103D, 0x103F] {
            assert_eq!(m.read32(DeviceAddr(a)), Err(MISALIGNED), "{a:#x}");
            assert_eq!(m.write32(DeviceAddr(a), 1), Err(MISALIGNED), "{a:#x}");
            assert_eq!(m.write_burst(DeviceAddr(a), &[1]), Err(MISALIGNED));
        }
        assert!(MISALIGNED.to_string().contains("misaligned"));
        assert!(!MISALIGNED.to_string().contains("CSR"));
        assert_eq!(
            m.write_burst(DeviceAddr(0x1038), &[7, 7, 7]),
            Err(Error::out_of_window(0x1040))
        );
        m.flush().unwrap();
        assert_eq!(std::fs::read(f.path()).unwrap(), vec![0u8; 64]);
    }

    #[test]
    #[cfg_attr(miri, ignore = "Miri cannot mmap files")]
    fn maps_a_range_at_an_offset() {
        let mut bytes = vec![0u8; 8192];
        bytes[4096..4100].copy_from_slice(&42u32.to_ne_bytes());
        let f = file_of(&bytes);
        let m = MmapMmio::open_range(f.path(), 4096, 16, DeviceAddr(0x100)).unwrap();
        assert_eq!(m.read32(DeviceAddr(0x100)), Ok(42));
        assert_eq!(
            m.read32(DeviceAddr(0x110)),
            Err(Error::out_of_window(0x110))
        );
    }

    #[test]
    #[cfg_attr(miri, ignore = "Miri cannot open files with isolation on")]
    fn refuses_bad_geometry_at_open() {
        let f = file_of(&[0u8; 64]);
        let p = f.path();
        let kind = |r: io::Result<MmapMmio>| r.map(|_| ()).unwrap_err().kind();
        assert_eq!(
            kind(MmapMmio::open_range(p, 0, 0, DeviceAddr(0))),
            io::ErrorKind::InvalidInput
        );
        assert_eq!(
            kind(MmapMmio::open_range(p, 0, 6, DeviceAddr(0))),
            io::ErrorKind::InvalidInput
        );
        assert_eq!(
            kind(MmapMmio::open_range(p, 2, 8, DeviceAddr(0))),
            io::ErrorKind::InvalidInput
        );
        assert_eq!(
            kind(MmapMmio::open_range(p, 0, 8, DeviceAddr(1))),
            io::ErrorKind::InvalidInput
        );
        // Past the end of a regular file: refused instead of a SIGBUS later.
        assert_eq!(
            kind(MmapMmio::open_range(p, 32, 64, DeviceAddr(0))),
            io::ErrorKind::InvalidInput
        );
        let empty = file_of(&[]);
        assert_eq!(
            kind(MmapMmio::open(empty.path(), DeviceAddr(0))),
            io::ErrorKind::InvalidInput
        );
        assert_eq!(
            kind(MmapMmio::open("/nonexistent/khal-resource0", DeviceAddr(0))),
            io::ErrorKind::NotFound
        );
    }

    #[test]
    #[cfg_attr(miri, ignore = "Miri cannot open files with isolation on")]
    fn errors_name_the_path() {
        let msg = |r: io::Result<MmapMmio>| r.map(|_| ()).unwrap_err().to_string();
        let gone = msg(MmapMmio::open("/nonexistent/khal-resource0", DeviceAddr(0)));
        assert!(gone.starts_with("/nonexistent/khal-resource0: "), "{gone}");
        let f = file_of(&[0u8; 64]);
        let past = msg(MmapMmio::open_range(f.path(), 32, 64, DeviceAddr(0)));
        assert_eq!(
            past,
            format!(
                "{}: window extends past the end of the file",
                f.path().display()
            )
        );
        let empty = file_of(&[]);
        let zero = msg(MmapMmio::open(empty.path(), DeviceAddr(0)));
        assert!(
            zero.starts_with(&format!("{}: file reports size 0", empty.path().display())),
            "{zero}"
        );
    }
}
