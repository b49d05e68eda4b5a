//! `/proc/self/pagemap` bus-address translation for DMA on a real host.
//!
//! Linux exposes, per virtual page of the process, one 64-bit native-endian
//! entry at file offset `(va / page_size) * 8` of `/proc/self/pagemap`
//! (kernel `Documentation/admin-guide/mm/pagemap.rst`):
//!
//! | bits | meaning |
//! | --- | --- |
//! | 0..=54 | page frame number (PFN), if present |
//! | 55 | soft-dirty |
//! | 56 | exclusively mapped |
//! | 61 | file page or shared anonymous |
//! | 62 | swapped |
//! | 63 | present |
//!
//! Requirements for the result to be usable as a DMA address:
//! - **privilege**: since Linux 4.2 the PFN field reads as 0 without
//!   `CAP_SYS_ADMIN` (4.0/4.1 refuse the open). An unprivileged read therefore
//!   parses fine but yields [`PagemapError::PfnHidden`];
//! - **pinned memory**: the page must be present and must not move while the
//!   device uses it: allocate with [`crate::DmaBuf::new_pinned`] (`mlock`);
//! - **contiguity**: a buffer crossing a page boundary is usable only if its
//!   pages are physically consecutive; hugepage backing
//!   (`DmaBuf::new_pinned(len, true)`) makes a buffer up to 2 MiB one page;
//! - **no IOMMU remapping**: the physical address equals the bus address only
//!   without an IOMMU in translation mode (or with an identity domain).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::sync::Mutex;

use crate::dma::BusAddrProvider;

/// Bytes per pagemap entry.
pub const PAGEMAP_ENTRY_BYTES: u64 = 8;

/// The auxiliary-vector key of the page size (`AT_PAGESZ`, `<elf.h>`).
pub const AT_PAGESZ: u64 = 6;

/// One pagemap entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PagemapEntry(pub u64);

impl PagemapEntry {
    const PFN_MASK: u64 = (1 << 55) - 1;

    /// Bit 63: the page is present in RAM.
    pub const fn present(self) -> bool {
        self.0 & (1 << 63) != 0
    }
    /// Bit 62: the page is swapped out.
    pub const fn swapped(self) -> bool {
        self.0 & (1 << 62) != 0
    }
    /// Bit 61: a file page or shared anonymous page.
    pub const fn file_or_shared(self) -> bool {
        self.0 & (1 << 61) != 0
    }
    /// Bit 56: mapped by this process only.
    pub const fn exclusive(self) -> bool {
        self.0 & (1 << 56) != 0
    }
    /// Bit 55: soft-dirty.
    pub const fn soft_dirty(self) -> bool {
        self.0 & (1 << 55) != 0
    }
    /// Bits 0..=54: the PFN, meaningful only when present and not swapped
    /// (0 when the reader lacks `CAP_SYS_ADMIN`).
    pub const fn raw_pfn(self) -> u64 {
        self.0 & Self::PFN_MASK
    }

    /// The PFN of a present page, or why there is none.
    pub fn pfn(self, va: u64) -> Result<u64, PagemapError> {
        if self.swapped() {
            return Err(PagemapError::Swapped { va });
        }
        if !self.present() {
            return Err(PagemapError::NotPresent { va });
        }
        match self.raw_pfn() {
            0 => Err(PagemapError::PfnHidden { va }),
            pfn => Ok(pfn),
        }
    }
}

/// Why a translation failed.
#[derive(Debug)]
pub enum PagemapError {
    /// Reading the pagemap (or auxv) failed.
    Io(std::io::Error),
    /// The page is not in RAM (never touched, or not pinned).
    NotPresent {
        /// The address translated.
        va: u64,
    },
    /// The page is swapped out (not pinned).
    Swapped {
        /// The address translated.
        va: u64,
    },
    /// The PFN reads as 0: the process lacks `CAP_SYS_ADMIN`.
    PfnHidden {
        /// The address translated.
        va: u64,
    },
    /// The range spans pages that are not physically consecutive.
    NotContiguous {
        /// The first virtual address whose page breaks the run.
        va: u64,
    },
    /// A page size that is zero or not a power of two, or a range past the
    /// address space.
    BadGeometry,
}

impl core::fmt::Display for PagemapError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            PagemapError::Io(e) => write!(f, "pagemap read failed: {e}"),
            PagemapError::NotPresent { va } => write!(f, "page of {va:#x} not present"),
            PagemapError::Swapped { va } => write!(f, "page of {va:#x} swapped out"),
            PagemapError::PfnHidden { va } => write!(
                f,
                "PFN of {va:#x} hidden (reading pagemap needs CAP_SYS_ADMIN)"
            ),
            PagemapError::NotContiguous { va } => {
                write!(f, "page of {va:#x} not physically after the previous one")
            }
            PagemapError::BadGeometry => write!(f, "bad page size or range"),
        }
    }
}

impl std::error::Error for PagemapError {}

impl From<std::io::Error> for PagemapError {
    fn from(e: std::io::Error) -> Self {
        PagemapError::Io(e)
    }
}

/// The page size from an auxiliary vector image (`/proc/self/auxv`: pairs of
/// native-endian, native-width (`usize`) key/value, ended by key 0).
pub fn page_size_from_auxv(auxv: &[u8]) -> Option<u64> {
    const W: usize = core::mem::size_of::<usize>();
    let word = |c: &[u8]| c.try_into().ok().map(usize::from_ne_bytes);
    auxv.chunks_exact(2 * W)
        .map_while(|kv| Some((word(kv.get(..W)?)?, word(kv.get(W..)?)?)))
        .take_while(|&(k, _)| k != 0)
        .find(|&(k, _)| k as u64 == AT_PAGESZ)
        .map(|(_, v)| v as u64)
}

/// A pagemap reader over any seekable source (the real file, or a synthetic
/// image in tests).
#[derive(Debug)]
pub struct Pagemap<R> {
    src: R,
    page_size: u64,
}

impl Pagemap<File> {
    /// Open `/proc/self/pagemap`, with the page size from `/proc/self/auxv`.
    pub fn open_self() -> Result<Self, PagemapError> {
        let auxv = std::fs::read("/proc/self/auxv")?;
        let page = page_size_from_auxv(&auxv).ok_or(PagemapError::BadGeometry)?;
        Pagemap::new(File::open("/proc/self/pagemap")?, page)
    }
}

impl<R: Read + Seek> Pagemap<R> {
    /// A reader over `src` for pages of `page_size` bytes (a power of two).
    pub fn new(src: R, page_size: u64) -> Result<Self, PagemapError> {
        if !page_size.is_power_of_two() {
            return Err(PagemapError::BadGeometry);
        }
        Ok(Pagemap { src, page_size })
    }

    /// The page size.
    pub fn page_size(&self) -> u64 {
        self.page_size
    }

    /// The raw entry of the page holding `va`.
    pub fn entry(&mut self, va: u64) -> Result<PagemapEntry, PagemapError> {
        let off = (va / self.page_size)
            .checked_mul(PAGEMAP_ENTRY_BYTES)
            .ok_or(PagemapError::BadGeometry)?;
        self.src.seek(SeekFrom::Start(off))?;
        let mut b = [0u8; 8];
        self.src.read_exact(&mut b)?;
        // The kernel writes the entries in the host's byte order.
        Ok(PagemapEntry(u64::from_ne_bytes(b)))
    }

    /// The physical address of `va`.
    pub fn translate(&mut self, va: u64) -> Result<u64, PagemapError> {
        let pfn = self.entry(va)?.pfn(va)?;
        pfn.checked_mul(self.page_size)
            .and_then(|p| p.checked_add(va % self.page_size))
            .ok_or(PagemapError::BadGeometry)
    }

    /// The physical address of `[va, va + len)`, which must be physically
    /// contiguous page after page.
    pub fn translate_range(&mut self, va: u64, len: usize) -> Result<u64, PagemapError> {
        let start = self.translate(va)?;
        let last = va
            .checked_add((len.max(1) - 1) as u64)
            .ok_or(PagemapError::BadGeometry)?;
        let first_page = va / self.page_size;
        for page in first_page + 1..=last / self.page_size {
            let pva = page * self.page_size;
            let want = start - va % self.page_size + (page - first_page) * self.page_size;
            if self.translate(pva)? != want {
                return Err(PagemapError::NotContiguous { va: pva });
            }
        }
        Ok(start)
    }
}

/// A [`BusAddrProvider`] from `/proc/self/pagemap` (physical = bus address,
/// see the module notes).
#[derive(Debug)]
pub struct PagemapTranslator {
    inner: Mutex<Pagemap<File>>,
}

impl PagemapTranslator {
    /// Open the process's own pagemap.
    pub fn open() -> Result<Self, PagemapError> {
        Ok(PagemapTranslator {
            inner: Mutex::new(Pagemap::open_self()?),
        })
    }
}

impl BusAddrProvider for PagemapTranslator {
    fn bus_addr(&self, va: u64, len: usize) -> Result<u64, PagemapError> {
        let mut pm = self
            .inner
            .lock()
            .map_err(|_| PagemapError::Io(std::io::Error::other("pagemap lock poisoned")))?;
        pm.translate_range(va, len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    const PRESENT: u64 = 1 << 63;

    /// A synthetic pagemap: entry i for virtual page i.
    fn image(entries: &[u64]) -> Cursor<Vec<u8>> {
        Cursor::new(entries.iter().flat_map(|e| e.to_ne_bytes()).collect())
    }

    #[test]
    fn entry_bits() {
        let e = PagemapEntry(PRESENT | (1 << 61) | (1 << 56) | (1 << 55) | 0x12345);
        assert!(e.present() && e.file_or_shared() && e.exclusive() && e.soft_dirty());
        assert!(!e.swapped());
        assert_eq!(e.raw_pfn(), 0x12345);
        assert_eq!(e.pfn(0).unwrap(), 0x12345);
        // The PFN field is bits 0..=54 only.
        assert_eq!(PagemapEntry(u64::MAX).raw_pfn(), (1 << 55) - 1);
        assert!(matches!(
            PagemapEntry(0x12345).pfn(7),
            Err(PagemapError::NotPresent { va: 7 })
        ));
        assert!(matches!(
            PagemapEntry(1 << 62 | 5).pfn(7),
            Err(PagemapError::Swapped { va: 7 })
        ));
        // Unprivileged readers see present pages with PFN 0.
        assert!(matches!(
            PagemapEntry(PRESENT).pfn(7),
            Err(PagemapError::PfnHidden { va: 7 })
        ));
    }

    #[test]
    fn translates_synthetic_entries() {
        // Pages 0..4: page 1 → PFN 0x100, page 2 → 0x101 (contiguous), page 3 → 0x200.
        let mut pm = Pagemap::new(
            image(&[0, PRESENT | 0x100, PRESENT | 0x101, PRESENT | 0x200]),
            4096,
        )
        .unwrap();
        assert_eq!(pm.translate(0x1010).unwrap(), 0x10_0010);
        assert_eq!(pm.translate(0x2fff).unwrap(), 0x10_1fff);
        assert_eq!(pm.translate_range(0x1800, 0x1000).unwrap(), 0x10_0800);
        assert!(matches!(
            pm.translate_range(0x2800, 0x1000),
            Err(PagemapError::NotContiguous { va: 0x3000 })
        ));
        assert!(matches!(
            pm.translate(0x10),
            Err(PagemapError::NotPresent { va: 0x10 })
        ));
        // Past the end of the image: an I/O error, not a panic.
        assert!(matches!(pm.translate(0x9000), Err(PagemapError::Io(_))));
        assert!(Pagemap::new(image(&[]), 3000).is_err());
    }

    #[test]
    fn auxv_page_size() {
        let mut auxv = Vec::new();
        for (k, v) in [(33usize, 0xdead_usize), (6, 16384), (0, 0), (6, 1)] {
            auxv.extend_from_slice(&k.to_ne_bytes());
            auxv.extend_from_slice(&v.to_ne_bytes());
        }
        assert_eq!(page_size_from_auxv(&auxv), Some(16384));
        let pair = 2 * core::mem::size_of::<usize>();
        assert_eq!(page_size_from_auxv(&auxv[..pair]), None);
        assert_eq!(page_size_from_auxv(&[1, 2, 3]), None);
    }

    #[test]
    #[cfg_attr(miri, ignore = "Miri cannot open /proc files")]
    fn reads_the_real_pagemap_for_own_memory() {
        let pm = Pagemap::open_self();
        let Ok(mut pm) = pm else {
            // Some sandboxes hide /proc/self/pagemap; then the error is I/O.
            assert!(matches!(pm, Err(PagemapError::Io(_))));
            return;
        };
        assert!(pm.page_size().is_power_of_two());
        let page = pm.page_size() as usize;
        let mut v = vec![1u8; 3 * page];
        let va = v.as_mut_ptr() as u64;
        v[page] = 2; // touched: present
        let e = pm.entry(va + page as u64).unwrap();
        assert!(e.present());
        // Privileged: a real PFN; unprivileged: hidden, typed.
        match pm.translate(va + page as u64) {
            Ok(pa) => assert_eq!(pa % page as u64, va % page as u64),
            Err(err) => assert!(matches!(err, PagemapError::PfnHidden { .. })),
        }
        let t = PagemapTranslator::open().unwrap();
        match t.bus_addr(va, 16) {
            Ok(_) => {}
            Err(err) => assert!(matches!(
                err,
                PagemapError::PfnHidden { .. } | PagemapError::NotContiguous { .. }
            )),
        }
        // The real-host allocator: pinned page, bus address from pagemap.
        use crate::dma::HostAllocator;
        use khal_core::dma::{DmaAllocator, DmaMemory, MemLocation};
        let mut a = HostAllocator::pinned(t, false);
        match a.alloc(MemLocation::Host, page, page) {
            Ok(b) => {
                assert_eq!(b.bus_addr() % page as u64, 0);
                assert_ne!(b.bus_addr(), b.as_ptr() as u64);
            }
            // Unprivileged, or mlock refused by RLIMIT_MEMLOCK: typed.
            Err(e) => assert_eq!(e, khal_core::Error::OutOfMemory),
        }
    }
}
