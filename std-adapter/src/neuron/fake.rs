//! An in-process fake of the vendor driver behind the seam: it decodes the
//! raw command numbers and argument bytes as the kernel's handlers do and
//! applies their rules [FACTS §14], over khal-std's device model.
//!
//! - BAR0 sits at a fake **kernel** address ([`FAKE_BAR0_KADDR`]), so the
//!   backend's `bar_address[0] + offset` arithmetic is real; BAR0 offsets are
//!   the addresses of a [`DeviceModel`] (blocks are mounted by BAR0 offset,
//!   [`FakeDriver::mount`]).
//! - BAR_WRITE: refused `EACCES` before attach; `EINVAL` for an offset past
//!   `bar_size[0]` (`off > bar_size`) or in the block-list
//!   ([`FakeDriver::block`]); all offsets checked before any dword is written
//!   (khal's reading of "refuses …, else writes each dword in order").
//! - BAR_READ: more than 100 dwords `EINVAL`; `bar` 0 or 2 (BAR2 reads 0:
//!   not modelled); addresses are **not** bounds-checked, as in the kernel:
//!   a read outside BAR0 reads all ones and is counted
//!   ([`FakeDriver::unchecked_reads`]), so a test can prove khal never sends one.
//! - MEM_ALLOC_V2MT: host memory only, `align ≠ 0` refused `EINVAL`; each
//!   chunk is a memfd, mapped once by the fake for the device model (its DMA
//!   engine and NQ blocks reach it by bus address) and mapped again, whole
//!   only, by [`NeuronSys::mmap`]: the same pages.
//! - Bus addresses are [`host_window`]` + ` a fake physical address.
//! - NOTIFICATIONS_INIT_V2: size a power of two (`EINVAL` else); the ring is
//!   a chunk; the fake writes the queue's base_lo, base_hi and f_size at the
//!   BAR0 offset the test routed the kernel's queue to ([`FakeDriver::route_nq`]).
//! - NC_RESET / NC_RESET_READY: request ids; the ready call can be told to
//!   answer `EINTR` a few times ([`FakeDriver::interrupt_resets`]).
//!
//! The user buffers an argument points to (BAR_READ / BAR_WRITE arrays, the
//! allocation's handle) are read and written at the addresses the argument
//! holds, as `copy_from_user` / `copy_to_user` do; the fake has no MMU to
//! refuse a bad one, so it must only be handed arguments whose pointers are
//! live buffers of their counts (what every caller of the real node
//! guarantees too; khal's backend builds them so).

use core::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::os::fd::{AsFd, OwnedFd};
use std::sync::Arc;

use khal_core::dma::DmaMemory;
use khal_core::{ArchId, DeviceAddr, Mmio};

use super::abi::{self, Arg, BarRw, BasicInfo, DeviceInfo, MemAllocV2Mt, MemExtendedInfo};
use super::abi::{MemFree, NcReset, NcResetReady, NotificationsInitV2, BAR_READ_MAX};
use super::dma::{host_window, SharedPages};
use super::nq::NqId;
use super::sys::{map_shared, unmap, Errno, Mapping, NeuronSys};
use super::window::Bar0Map;
use crate::model::{Block, DeviceModel};

/// The fake kernel virtual address of BAR0 (`bar_address[0]`).
pub const FAKE_BAR0_KADDR: u64 = 0xFFFF_C900_4000_0000;
/// The fake BAR0 size: 4 GiB, room for every CAYMAN / MARIANA window.
pub const FAKE_BAR0_SIZE: u64 = 0x1_0000_0000;
/// The fake SUNDA BAR0 size: 1 GiB (TPB0, TPB1, TOP_SP, APB offsets inside).
pub const FAKE_SUNDA_BAR0_SIZE: u64 = 0x4000_0000;
/// The first fake physical address of host chunks.
const FAKE_PHYS_BASE: u64 = 0x1_0000_0000;
const PAGE: u64 = 4096;

/// A host chunk: its memfd, the fake's own mapping (the device model's view).
struct Chunk {
    memfd: OwnedFd,
    view: Arc<FakeView>,
    mmap_offset: u64,
    size: u64,
}

/// The device model's view of a chunk: the fake's own mapping of the memfd.
#[derive(Debug)]
struct FakeView(SharedPages);

impl Drop for FakeView {
    fn drop(&mut self) {
        // The fake's own mapping of the chunk's memfd, made in `new_chunk`.
        let _ = unmap(self.0.mapping());
    }
}

super::dma::over_pages!(impl<> for FakeView, 0);

/// `copy_from_user` of `n` values of `T` at user address `addr`.
fn copy_from_user<T: Copy>(addr: u64, n: usize) -> Result<Vec<T>, Errno> {
    let p = addr as *const T;
    if p.is_null() || !p.is_aligned() {
        return Err(Errno::EFAULT);
    }
    // SAFETY: the module's contract: an argument's pointers are live,
    // aligned buffers of its count (checked non-null and aligned above);
    // they are only read here, for the call's duration.
    Ok(unsafe { core::slice::from_raw_parts(p, n) }.to_vec())
}

/// `copy_to_user` of `vals` to user address `addr`.
fn copy_to_user<T: Copy>(addr: u64, vals: &[T]) -> Result<(), Errno> {
    let p = addr as *mut T;
    if p.is_null() || !p.is_aligned() {
        return Err(Errno::EFAULT);
    }
    // SAFETY: as `copy_from_user`: a live, aligned buffer of `vals.len()`
    // values the caller handed over for the call, written once here.
    unsafe { core::ptr::copy_nonoverlapping(vals.as_ptr(), p, vals.len()) };
    Ok(())
}

/// The in-process fake driver of one device.
pub struct FakeDriver {
    arch: ArchId,
    revision: u32,
    bar_size: [u64; 2],
    model: DeviceModel,
    attached: Cell<bool>,
    blocked: RefCell<Vec<(u64, u64)>>,
    chunks: RefCell<BTreeMap<u64, Chunk>>,
    next_handle: Cell<u64>,
    next_phys: Cell<u64>,
    next_offset: Cell<u64>,
    nq_routes: RefCell<BTreeMap<(u32, u32, u32), u64>>,
    next_request: Cell<u32>,
    requests: RefCell<Vec<u32>>,
    interrupts: Cell<u32>,
    log: RefCell<Vec<u32>>,
    mapped: Cell<usize>,
    unchecked: Cell<u64>,
    reported_arch: Cell<Option<u32>>,
}

impl core::fmt::Debug for FakeDriver {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FakeDriver")
            .field("arch", &self.arch)
            .field("attached", &self.attached.get())
            .field("chunks", &self.chunks.borrow().len())
            .finish()
    }
}

impl FakeDriver {
    /// A fake device of `arch`, revision 1, opened read-write (attached),
    /// with an empty device model behind BAR0.
    pub fn new(arch: ArchId) -> FakeDriver {
        let bar0 = match arch {
            ArchId::Sunda => FAKE_SUNDA_BAR0_SIZE,
            ArchId::Cayman | ArchId::Mariana => FAKE_BAR0_SIZE,
        };
        FakeDriver {
            arch,
            revision: 1,
            bar_size: [bar0, 0],
            model: DeviceModel::new(),
            attached: Cell::new(true),
            blocked: RefCell::new(Vec::new()),
            chunks: RefCell::new(BTreeMap::new()),
            next_handle: Cell::new(1),
            next_phys: Cell::new(FAKE_PHYS_BASE),
            next_offset: Cell::new(0),
            nq_routes: RefCell::new(BTreeMap::new()),
            next_request: Cell::new(1),
            requests: RefCell::new(Vec::new()),
            interrupts: Cell::new(0),
            log: RefCell::new(Vec::new()),
            mapped: Cell::new(0),
            unchecked: Cell::new(0),
            reported_arch: Cell::new(None),
        }
    }

    /// The same device opened write-only (not attached): only the info
    /// ioctls and reads pass [FACTS §14.1].
    pub fn unattached(self) -> FakeDriver {
        self.attached.set(false);
        self
    }

    /// Report architecture number `n` in the info ioctls instead of the
    /// arch's own (an arch khal does not know).
    pub fn report_arch(&self, n: u32) {
        self.reported_arch.set(Some(n));
    }

    fn architecture(&self) -> u32 {
        self.reported_arch.get().unwrap_or(self.arch.id())
    }

    /// Attach (what a read-write open does).
    pub fn attach(&self) {
        self.attached.set(true);
    }

    /// The device model behind BAR0 (addressed by BAR0 offset).
    pub fn model(&self) -> &DeviceModel {
        &self.model
    }

    /// The arch.
    pub fn arch(&self) -> ArchId {
        self.arch
    }

    /// The BAR0 window table of the fake's BAR0.
    pub fn bar0_map(&self) -> Bar0Map {
        Bar0Map::new(self.arch, self.bar_size[0])
    }

    /// The BAR0 offset of device address `addr` (a model address).
    pub fn bar0_offset(&self, addr: DeviceAddr) -> khal_core::Result<DeviceAddr> {
        self.bar0_map().offset(addr, 1).map(DeviceAddr)
    }

    /// Mount `block` at the BAR0 offset of device address `addr`.
    pub fn mount<B: Block>(&self, addr: DeviceAddr, block: B) -> khal_core::Result<DeviceAddr> {
        let off = self.bar0_offset(addr)?;
        self.model.mount(off, block)?;
        Ok(off)
    }

    /// Refuse writes to `len` bytes of BAR0 from `offset` (the kernel's
    /// write block-list: kernel-owned UDMA queues, firmware-IO words).
    pub fn block(&self, offset: u64, len: u64) {
        self.blocked.borrow_mut().push((offset, len));
    }

    /// Route the kernel's queue `id` to the BAR0 offset of its base_lo
    /// register (base_hi at +4, f_size at +8: FACTS §6's per-NQ layout); the
    /// device address `queue_base_lo` is translated through the window table.
    pub fn route_nq(&self, id: NqId, queue_base_lo: DeviceAddr) -> khal_core::Result<()> {
        let off = self.bar0_offset(queue_base_lo)?;
        self.nq_routes
            .borrow_mut()
            .insert((id.dev_type as u32, id.dev_id, id.queue_id()), off.get());
        Ok(())
    }

    /// The next `n` NC_RESET_READY calls answer `EINTR`.
    pub fn interrupt_resets(&self, n: u32) {
        self.interrupts.set(n);
    }

    /// Every command number received, in order.
    pub fn log(&self) -> Vec<u32> {
        self.log.borrow().clone()
    }

    /// How many times `cmd` was received.
    pub fn count(&self, cmd: u32) -> usize {
        self.log.borrow().iter().filter(|c| **c == cmd).count()
    }

    /// Forget the log.
    pub fn clear_log(&self) {
        self.log.borrow_mut().clear();
    }

    /// Chunks allocated and not freed (host allocations and NQ rings).
    pub fn live_chunks(&self) -> usize {
        self.chunks.borrow().len()
    }

    /// Mappings handed out by `mmap` and not unmapped.
    pub fn live_mappings(&self) -> usize {
        self.mapped.get()
    }

    /// BAR_READ dwords whose address was outside BAR0 (the kernel reads them
    /// unchecked).
    pub fn unchecked_reads(&self) -> u64 {
        self.unchecked.get()
    }

    fn gate(&self) -> Result<(), Errno> {
        if self.attached.get() {
            Ok(())
        } else {
            Err(Errno::EACCES)
        }
    }

    fn new_chunk(&self, size: u64) -> Result<(u64, Arc<FakeView>), Errno> {
        if size == 0 {
            return Err(Errno::EINVAL);
        }
        let bytes = size.div_ceil(PAGE) * PAGE;
        let len = usize::try_from(bytes).map_err(|_| Errno::ENOMEM)?;
        let memfd = rustix::fs::memfd_create("khal-fake-neuron", rustix::fs::MemfdFlags::CLOEXEC)
            .map_err(|e| Errno(e.raw_os_error()))?;
        rustix::fs::ftruncate(&memfd, bytes).map_err(|e| Errno(e.raw_os_error()))?;
        let phys = self.next_phys.get();
        self.next_phys.set(phys + bytes);
        let view = Arc::new(FakeView(SharedPages::new(
            map_shared(memfd.as_fd(), 0, len)?,
            host_window(self.arch) + phys,
        )));
        self.model.attach_host(view.clone());
        let handle = self.next_handle.get();
        self.next_handle.set(handle + 1);
        let mmap_offset = self.next_offset.get();
        self.next_offset.set(mmap_offset + bytes);
        self.chunks.borrow_mut().insert(
            handle,
            Chunk {
                memfd,
                view: view.clone(),
                mmap_offset,
                size: bytes,
            },
        );
        Ok((handle, view))
    }

    fn bar_access(&self, write: bool, arg: &mut [u8]) -> Result<i32, Errno> {
        let a = BarRw::from_bytes(arg).ok_or(Errno::EFAULT)?;
        if write {
            self.gate()?;
        }
        let n = a.count as usize;
        let bar_ok = a.bar == 0 || (!write && a.bar == 2);
        if !bar_ok || n == 0 || (!write && a.count > BAR_READ_MAX) {
            return Err(Errno::EINVAL);
        }
        let addrs: Vec<u64> = copy_from_user(a.address, n)?;
        if write {
            let data: Vec<u32> = copy_from_user(a.data, n)?;
            let offs: Vec<u64> = addrs
                .iter()
                .map(|k| k.wrapping_sub(FAKE_BAR0_KADDR))
                .collect();
            let blocked = self.blocked.borrow();
            let refused = |off: u64| {
                off > self.bar_size[0]
                    || blocked
                        .iter()
                        .any(|&(b, l)| off.checked_sub(b).is_some_and(|d| d < l))
            };
            if offs.iter().any(|&o| refused(o)) {
                return Err(Errno::EINVAL);
            }
            for (o, v) in offs.into_iter().zip(data) {
                self.model
                    .write32(DeviceAddr(o), v)
                    .map_err(|_| Errno::EFAULT)?;
            }
            return Ok(0);
        }
        let vals: Vec<u32> = addrs
            .iter()
            .map(|&k| {
                let off = k.wrapping_sub(FAKE_BAR0_KADDR);
                if a.bar == 2 {
                    0
                } else if off >= self.bar_size[0] {
                    self.unchecked.set(self.unchecked.get() + 1);
                    u32::MAX
                } else {
                    self.model.read32(DeviceAddr(off)).unwrap_or(u32::MAX)
                }
            })
            .collect();
        copy_to_user(a.data, &vals)?;
        Ok(0)
    }

    fn dispatch(&self, cmd: u32, arg: &mut [u8]) -> Result<i32, Errno> {
        fn put<A: Arg>(arg: &mut [u8], v: &A) {
            arg.copy_from_slice(&v.to_bytes());
        }
        match cmd {
            abi::DEVICE_BASIC_INFO => {
                BasicInfo::from_bytes(arg).ok_or(Errno::EFAULT)?;
                put(
                    arg,
                    &BasicInfo {
                        architecture: self.architecture(),
                        revision: self.revision,
                    },
                );
                Ok(0)
            }
            abi::DEVICE_INFO => {
                DeviceInfo::from_bytes(arg).ok_or(Errno::EFAULT)?;
                put(
                    arg,
                    &DeviceInfo {
                        architecture: self.architecture(),
                        revision: self.revision,
                        bar_address: [FAKE_BAR0_KADDR, 0xFFFF_C900_0000_0000],
                        bar_size: self.bar_size,
                        ..DeviceInfo::default()
                    },
                );
                Ok(0)
            }
            abi::BAR_READ => self.bar_access(false, arg),
            abi::BAR_WRITE => self.bar_access(true, arg),
            abi::MEM_ALLOC_V2MT => {
                let a = MemAllocV2Mt::from_bytes(arg).ok_or(Errno::EFAULT)?;
                self.gate()?;
                // Host memory only (device memory is not modelled); a
                // non-zero alignment is refused for host memory [FACTS §14.4].
                if a.host_memory != 1 || a.align != 0 {
                    return Err(Errno::EINVAL);
                }
                let (handle, _) = self.new_chunk(a.size)?;
                copy_to_user(a.mem_handle, &[handle])?;
                Ok(0)
            }
            abi::MEM_GET_EXTENDED_INFO => {
                let mut a = MemExtendedInfo::from_bytes(arg).ok_or(Errno::EFAULT)?;
                if a.version != abi::MEM_INFO_VERSION {
                    return Err(Errno::EINVAL);
                }
                let chunks = self.chunks.borrow();
                let c = chunks.get(&a.mem_handle).ok_or(Errno::EINVAL)?;
                a.host_memory = 1;
                a.mmap_offset = c.mmap_offset;
                a.pa = c.view.bus_addr();
                a.pid = u64::from(std::process::id());
                a.size = c.size;
                put(arg, &a);
                Ok(0)
            }
            abi::MEM_FREE => {
                let a = MemFree::from_bytes(arg).ok_or(Errno::EFAULT)?;
                self.gate()?;
                self.chunks
                    .borrow_mut()
                    .remove(&a.mem_handle)
                    .map(|_| 0)
                    .ok_or(Errno::EINVAL)
            }
            abi::NOTIFICATIONS_INIT_V2 => {
                let mut a = NotificationsInitV2::from_bytes(arg).ok_or(Errno::EFAULT)?;
                self.gate()?;
                if !a.size.is_power_of_two()
                    || a.on_host_memory != 1
                    || a.nq_type > 5
                    || a.engine_index >= abi::NQ_PER_TYPE
                {
                    return Err(Errno::EINVAL);
                }
                let qid = a.nq_type * abi::NQ_PER_TYPE + a.engine_index;
                let off = *self
                    .nq_routes
                    .borrow()
                    .get(&(a.nq_dev_type, a.nq_dev_id, qid))
                    .ok_or(Errno::EINVAL)?;
                let (handle, view) = self.new_chunk(u64::from(a.size))?;
                let pa = view.bus_addr();
                // The kernel programs the ring's base and size itself [FACTS §14.5].
                for (i, v) in [pa as u32, (pa >> 32) as u32, a.size]
                    .into_iter()
                    .enumerate()
                {
                    self.model
                        .write32(DeviceAddr(off + 4 * i as u64), v)
                        .map_err(|_| Errno::EFAULT)?;
                }
                let c = self.chunks.borrow();
                a.mmap_offset = c.get(&handle).map_or(0, |c| c.mmap_offset);
                a.mem_handle = handle;
                put(arg, &a);
                Ok(0)
            }
            abi::NC_RESET => {
                let mut a = NcReset::from_bytes(arg).ok_or(Errno::EFAULT)?;
                let id = self.next_request.get();
                self.next_request.set(id + 1);
                self.requests.borrow_mut().push(id);
                a.request_id = id;
                put(arg, &a);
                Ok(0)
            }
            abi::NC_RESET_READY => {
                let mut a = NcResetReady::from_bytes(arg).ok_or(Errno::EFAULT)?;
                if !self.requests.borrow().contains(&a.request_id) {
                    return Err(Errno::EINVAL);
                }
                if self.interrupts.get() > 0 {
                    self.interrupts.set(self.interrupts.get() - 1);
                    return Err(Errno::EINTR);
                }
                a.result = 0;
                put(arg, &a);
                Ok(0)
            }
            _ => Err(Errno::ENOTTY),
        }
    }
}

impl NeuronSys for FakeDriver {
    fn ioctl(&self, cmd: u32, arg: &mut [u8]) -> Result<i32, Errno> {
        self.log.borrow_mut().push(cmd);
        self.dispatch(cmd, arg)
    }

    fn mmap(&self, offset: u64, len: usize) -> Result<Mapping, Errno> {
        let chunks = self.chunks.borrow();
        let c = chunks
            .values()
            .find(|c| c.mmap_offset == offset)
            .ok_or(Errno::EINVAL)?;
        // Only whole chunks are mapped [FACTS §14.4].
        if len as u64 != c.size {
            return Err(Errno::EINVAL);
        }
        let m = map_shared(c.memfd.as_fd(), 0, len)?;
        self.mapped.set(self.mapped.get() + 1);
        Ok(m)
    }

    fn munmap(&self, map: &Mapping) -> Result<(), Errno> {
        unmap(map)?;
        self.mapped.set(self.mapped.get().saturating_sub(1));
        Ok(())
    }
}
