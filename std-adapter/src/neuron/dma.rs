//! DMA memory from the driver: host chunks of MEM_ALLOC_V2MT (`align = 0`),
//! their bus address from MEM_GET_EXTENDED_INFO used as returned, the whole
//! chunk mapped [FACTS §14.4]. Dropping a chunk unmaps and frees it.
//!
//! The bus address already carries the device's window onto host memory
//! (`pci_host_base`: SUNDA `0x1000_0000_0000`, CAYMAN / MARIANA
//! `0x4000_0000_0000`); khal puts it as it is into descriptors and NQ base
//! registers. (khal-std's `DmaBuf` is for the device model and tests only:
//! heap memory is never DMA memory on this hardware, §14.4.)

use core::sync::atomic::AtomicU32;

use khal_core::dma::DmaMemory;
use khal_core::{ArchId, Result};

use super::abi::{self, MemAllocV2Mt, MemExtendedInfo, MemFree};
use super::device::Neuron;
use super::error::NeuronError;
use super::sys::{Mapping, NeuronSys};

/// The device's window onto host memory, in every host bus address
/// (`pci_host_base`) [FACTS §14.4].
pub const fn host_window(arch: ArchId) -> u64 {
    match arch {
        ArchId::Sunda => 0x1000_0000_0000,
        ArchId::Cayman | ArchId::Mariana => 0x4000_0000_0000,
    }
}

/// Pages shared with the device: a mapping and the bus address of its first
/// byte. Every access is a relaxed atomic of its aligned 32-bit words
/// ([`DmaMemory::words`]).
#[derive(Debug)]
pub struct SharedPages {
    map: Mapping,
    bus: u64,
}

impl SharedPages {
    /// `map`'s bytes, which the device reaches at `bus`. `map` must be a live
    /// mapping of its whole length, 4-byte aligned (an `mmap` is a page), not
    /// reached by any Rust reference but through this type's atomics until
    /// it is unmapped; [`SharedPages`] never unmaps it (its owner does).
    pub fn new(map: Mapping, bus: u64) -> SharedPages {
        SharedPages { map, bus }
    }

    /// The mapping.
    pub fn mapping(&self) -> &Mapping {
        &self.map
    }

    /// The mapping as aligned 32-bit atomic words (none when it does not
    /// start on a 4-byte boundary).
    fn atomic_words(&self) -> &[AtomicU32] {
        let ptr = self.map.ptr().as_ptr();
        let n = if ptr.align_offset(4) == 0 {
            self.map.len() / 4
        } else {
            0
        };
        // SAFETY: the mapping is live for `self`'s lifetime, covers `len`
        // bytes and (checked above) starts on a 4-byte boundary, so it holds
        // `n` aligned `AtomicU32` (same size and alignment as `u32`, every
        // bit pattern valid). Its bytes are reached only through such shared
        // atomics (interior mutability); the device's writes are outside Rust.
        unsafe { core::slice::from_raw_parts(ptr.cast::<AtomicU32>(), n) }
    }
}

impl DmaMemory for SharedPages {
    fn bus_addr(&self) -> u64 {
        self.bus
    }
    fn len(&self) -> usize {
        self.atomic_words().len() * 4
    }
    fn words(&self) -> Option<&[AtomicU32]> {
        Some(self.atomic_words())
    }
}

/// `DmaMemory` for a type holding [`SharedPages`] in field `$f`: the
/// three required methods forwarded to them (one implementation for every holder).
macro_rules! over_pages {
    (impl<$($g:ident: $b:path),*> for $t:ty, $f:tt) => {
        impl<$($g: $b),*> khal_core::dma::DmaMemory for $t {
            fn bus_addr(&self) -> u64 {
                self.$f.bus_addr()
            }
            fn len(&self) -> usize {
                self.$f.len()
            }
            fn words(&self) -> Option<&[core::sync::atomic::AtomicU32]> {
                self.$f.words()
            }
        }
    };
}
pub(super) use over_pages;

/// A chunk of the driver's memory mapped into this process: a host
/// allocation ([`Neuron::alloc_host`], freed on drop) or an NQ ring the
/// driver allocated ([`Neuron::notifications_init`], only unmapped on drop:
/// the kernel owns it and frees it with the process's last descriptor,
/// [FACTS §14.4]).
#[derive(Debug)]
pub struct NeuronDma<'a, S: NeuronSys> {
    sys: &'a S,
    pages: SharedPages,
    handle: u64,
    freed_by_drop: bool,
}

impl<S: NeuronSys> NeuronDma<'_, S> {
    /// The driver's handle of the chunk.
    pub fn handle(&self) -> u64 {
        self.handle
    }
    /// The shared pages.
    pub fn pages(&self) -> &SharedPages {
        &self.pages
    }
}

impl<S: NeuronSys> Drop for NeuronDma<'_, S> {
    fn drop(&mut self) {
        // A failed munmap / free leaves the chunk to the process's exit
        // (the kernel frees it with the last descriptor, FACTS §14.4).
        let _ = self.sys.munmap(self.pages.mapping());
        if self.freed_by_drop {
            let mut arg = MemFree {
                mem_handle: self.handle,
            };
            let _ = super::device::call(self.sys, abi::MEM_FREE, &mut arg);
        }
    }
}

over_pages!(impl<S: NeuronSys> for NeuronDma<'_, S>, pages);

/// Which NeuronCore and memory type a host allocation is for: passed to
/// MEM_ALLOC_V2MT as given (the meaning of `mem_type`'s values is not traced
/// in FACTS §14; khal invents none).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HostAlloc {
    /// `nc_id`.
    pub nc_id: u32,
    /// `mem_type`.
    pub mem_type: u32,
}

impl<S: NeuronSys> Neuron<S> {
    /// MEM_GET_EXTENDED_INFO (version 1) of `handle` [FACTS §14.2].
    pub fn mem_info(&self, handle: u64) -> Result<MemExtendedInfo, NeuronError> {
        let mut info = MemExtendedInfo {
            mem_handle: handle,
            version: abi::MEM_INFO_VERSION,
            ..MemExtendedInfo::default()
        };
        self.call(abi::MEM_GET_EXTENDED_INFO, &mut info)?;
        Ok(info)
    }

    /// Map the whole chunk `handle` (its extended info's `mmap_offset` and
    /// `size`) and keep its bus address `pa` [FACTS §14.4]. On a failure
    /// after the allocation, an owned chunk is freed.
    pub(super) fn map_chunk(
        &self,
        handle: u64,
        owned: bool,
    ) -> Result<NeuronDma<'_, S>, NeuronError> {
        let free = |e: NeuronError| {
            if owned {
                let mut arg = MemFree { mem_handle: handle };
                let _ = self.call(abi::MEM_FREE, &mut arg);
            }
            e
        };
        let info = self.mem_info(handle).map_err(free)?;
        let len = usize::try_from(info.size)
            .map_err(|_| NeuronError::Hal(khal_core::Error::OutOfMemory))
            .map_err(free)?;
        let map = self
            .sys()
            .mmap(info.mmap_offset, len)
            .map_err(|errno| NeuronError::Os { cmd: "mmap", errno })
            .map_err(free)?;
        Ok(NeuronDma {
            sys: self.sys(),
            pages: SharedPages::new(map, info.pa),
            handle,
            freed_by_drop: owned,
        })
    }

    /// `len` bytes of pinned, contiguous host memory the device reaches:
    /// MEM_ALLOC_V2MT with `host_memory = 1`, `align = 0` [FACTS §14.4],
    /// mapped whole. `len == 0` is refused before any ioctl.
    pub fn alloc_host(&self, len: usize, who: HostAlloc) -> Result<NeuronDma<'_, S>, NeuronError> {
        if len == 0 {
            return Err(khal_core::Error::InvalidArgument("dma length (must be > 0)").into());
        }
        let mut handle = 0u64;
        let mut arg = MemAllocV2Mt {
            size: len as u64,
            align: 0,
            host_memory: 1,
            dram_channel: 0,
            dram_region: 0,
            nc_id: who.nc_id,
            mem_type: who.mem_type,
            pad: 0,
            mem_handle: core::ptr::addr_of_mut!(handle) as u64,
        };
        self.call(abi::MEM_ALLOC_V2MT, &mut arg)?;
        self.map_chunk(handle, true)
    }
}
