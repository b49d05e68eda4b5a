//! The seam: the two kernel entry points the driver backend needs (an ioctl
//! with a raw command number and its argument bytes; mmap / munmap of the
//! node), and their real implementation over `/dev/neuronN` [FACTS §14.1].
//!
//! Nothing above this trait calls the OS: the device, its registers, DMA
//! memory and NQ rings are written against [`NeuronSys`], so the in-process
//! fake driver ([`super::fake::FakeDriver`]) runs the same code the real node
//! does. [`DevNode`] goes through rustix's libc backend, so an `LD_PRELOAD`
//! library can stand in for the node too (`.ci/run`'s smoke).

use core::ptr::NonNull;
use std::fs::File;
use std::os::fd::{AsFd, BorrowedFd};
use std::path::{Path, PathBuf};

/// An errno the kernel answered with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Errno(pub i32);

impl Errno {
    /// No such file or directory.
    pub const ENOENT: Errno = Errno(2);
    /// Interrupted system call.
    pub const EINTR: Errno = Errno(4);
    /// Out of memory.
    pub const ENOMEM: Errno = Errno(12);
    /// Permission denied: the process is not attached [FACTS §14.2].
    pub const EACCES: Errno = Errno(13);
    /// Bad address.
    pub const EFAULT: Errno = Errno(14);
    /// Invalid argument.
    pub const EINVAL: Errno = Errno(22);
    /// Inappropriate ioctl for device (an unknown command).
    pub const ENOTTY: Errno = Errno(25);

    /// The errno of an I/O error (`EIO` when it has none).
    pub fn of(e: &std::io::Error) -> Errno {
        Errno(e.raw_os_error().unwrap_or(5))
    }
}

impl core::fmt::Display for Errno {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}", std::io::Error::from_raw_os_error(self.0))
    }
}

/// A shared, read-write mapping of part of the node (a memory chunk).
#[derive(Debug)]
pub struct Mapping {
    ptr: NonNull<u8>,
    len: usize,
}

// SAFETY: a `Mapping` is an address range, not an access: every access of
// the mapped bytes goes through atomics (`super::dma`), so the range may be
// handed to and shared between threads.
unsafe impl Send for Mapping {}
// SAFETY: as for `Send`.
unsafe impl Sync for Mapping {}

impl Mapping {
    /// A mapping of `len` bytes at `ptr`: what an `mmap` returned.
    pub fn new(ptr: NonNull<u8>, len: usize) -> Mapping {
        Mapping { ptr, len }
    }

    /// Its first byte.
    pub fn ptr(&self) -> NonNull<u8> {
        self.ptr
    }

    /// Its length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` when it maps no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The kernel entry points of the driver backend.
pub trait NeuronSys {
    /// `ioctl(fd, cmd, arg)` with `arg` the address of `arg`'s bytes: the
    /// kernel reads (and for a read command writes) them. `Err` is the errno.
    fn ioctl(&self, cmd: u32, arg: &mut [u8]) -> Result<i32, Errno>;

    /// `mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset)`.
    fn mmap(&self, offset: u64, len: usize) -> Result<Mapping, Errno>;

    /// `munmap` of a mapping [`NeuronSys::mmap`] returned.
    fn munmap(&self, map: &Mapping) -> Result<(), Errno>;
}

impl<S: NeuronSys + ?Sized> NeuronSys for &S {
    fn ioctl(&self, cmd: u32, arg: &mut [u8]) -> Result<i32, Errno> {
        (**self).ioctl(cmd, arg)
    }
    fn mmap(&self, offset: u64, len: usize) -> Result<Mapping, Errno> {
        (**self).mmap(offset, len)
    }
    fn munmap(&self, map: &Mapping) -> Result<(), Errno> {
        (**self).munmap(map)
    }
}

/// The device node `/dev/neuronN`, opened read-write (which attaches this
/// process, at most 16 per device [FACTS §14.1]).
#[derive(Debug)]
pub struct DevNode {
    file: File,
    path: PathBuf,
}

impl DevNode {
    /// `/dev/neuron<n>`.
    pub fn path_of(n: u32) -> PathBuf {
        PathBuf::from(format!("/dev/neuron{n}"))
    }

    /// Open `path` read-write (`O_RDWR`: attach) [FACTS §14.1].
    pub fn open(path: &Path) -> Result<DevNode, Errno> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| Errno::of(&e))?;
        Ok(DevNode {
            file,
            path: path.to_path_buf(),
        })
    }

    /// The node's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// One ioctl with a raw command number and the address of its argument.
struct Raw {
    cmd: u32,
    arg: *mut u8,
}

// SAFETY: `arg` is the address of a live byte buffer of the argument's size
// (the caller's `&mut [u8]`, borrowed for the whole call) and every command
// of the driver reads or writes at most that many bytes there, plus the user
// buffers the argument itself points to (which its builder keeps alive for
// the call, `super::mmio`). The output is the return value only.
unsafe impl rustix::ioctl::Ioctl for Raw {
    type Output = i32;
    const IS_MUTATING: bool = true;
    fn opcode(&self) -> rustix::ioctl::Opcode {
        self.cmd as rustix::ioctl::Opcode
    }
    fn as_ptr(&mut self) -> *mut core::ffi::c_void {
        self.arg.cast()
    }
    unsafe fn output_from_ptr(
        out: rustix::ioctl::IoctlOutput,
        _: *mut core::ffi::c_void,
    ) -> rustix::io::Result<i32> {
        Ok(out)
    }
}

impl NeuronSys for DevNode {
    fn ioctl(&self, cmd: u32, arg: &mut [u8]) -> Result<i32, Errno> {
        let raw = Raw {
            cmd,
            arg: arg.as_mut_ptr(),
        };
        // SAFETY: see `Raw`'s `Ioctl` impl: the argument is `arg`, borrowed
        // mutably for the call and of the size the command's table gives.
        unsafe { rustix::ioctl::ioctl(self.file.as_fd(), raw) }.map_err(|e| Errno(e.raw_os_error()))
    }

    fn mmap(&self, offset: u64, len: usize) -> Result<Mapping, Errno> {
        map_shared(self.file.as_fd(), offset, len)
    }

    fn munmap(&self, map: &Mapping) -> Result<(), Errno> {
        unmap(map)
    }
}

/// `mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, offset)`: the
/// one mapping call of the backend (the node's chunks, the fake's memfds).
pub(super) fn map_shared(fd: BorrowedFd<'_>, offset: u64, len: usize) -> Result<Mapping, Errno> {
    use rustix::mm::{MapFlags, ProtFlags};
    // SAFETY: a new shared mapping at an address the kernel chooses (null
    // hint): it aliases no Rust object. Its bytes are reached only through
    // atomics while the `Mapping` lives (`super::dma::SharedPages`), and it
    // is unmapped once, by its owner, through `unmap`.
    let p = unsafe {
        rustix::mm::mmap(
            core::ptr::null_mut(),
            len,
            ProtFlags::READ | ProtFlags::WRITE,
            MapFlags::SHARED,
            fd,
            offset,
        )
    }
    .map_err(|e| Errno(e.raw_os_error()))?;
    NonNull::new(p.cast::<u8>())
        .map(|ptr| Mapping::new(ptr, len))
        .ok_or(Errno::EFAULT)
}

/// `munmap` of a mapping [`map_shared`] made.
pub(super) fn unmap(map: &Mapping) -> Result<(), Errno> {
    // SAFETY: `map` came from `map_shared` and is unmapped once, by its
    // owner's drop, after its last access.
    unsafe { rustix::mm::munmap(map.ptr().as_ptr().cast(), map.len()) }
        .map_err(|e| Errno(e.raw_os_error()))
}
