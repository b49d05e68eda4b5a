//! An `LD_PRELOAD` library that stands in for the vendor driver's device
//! nodes with khal-std's in-process fake driver, so the real `/dev/neuronN`
//! code path (`DevNode`: `open`, `ioctl`, `mmap`, `munmap` through libc)
//! runs unchanged in CI on a machine without the driver.
//!
//! It intercepts `open`, `open64`, `openat`, `openat64` of a path starting
//! `/dev/neuron`, and `ioctl`, `mmap`, `mmap64`, `munmap`, `close` of what
//! they returned; everything else goes straight to the kernel (a raw
//! `syscall`). The node's fd is a real fd (a memfd), so the process's fd
//! table stays honest. A read-write open attaches; a write-only open does
//! not [FACTS §14.1]. `KHAL_FAKE_ARCH` (`sunda`, `cayman`, `mariana`;
//! default `cayman`) picks the fake's arch; the kernel's queue NC 0 /
//! NOTIFY / engine 0 is routed to a register in TPB 0's window.
//!
//! The fakes are per thread (the device model is single-threaded); the
//! intercepted calls are x86-64 / AArch64 LP64, where a variadic `open` /
//! `ioctl` argument arrives in the register a fixed third parameter reads.

use core::ffi::{c_char, c_int, c_long, c_uint, c_ulong, c_void, CStr};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use khal_core::family::TpbBases;
use khal_core::ArchId;
use khal_std::neuron::abi;
use khal_std::neuron::{FakeDriver, Mapping, NeuronSys, NqDevType, NqId, NqType};

thread_local! {
    static NODES: RefCell<HashMap<c_int, Rc<FakeDriver>>> = RefCell::new(HashMap::new());
    static MAPS: RefCell<HashMap<usize, (Rc<FakeDriver>, Mapping)>> = RefCell::new(HashMap::new());
}

fn set_errno(e: c_int) {
    // SAFETY: `__errno_location` returns this thread's errno, always valid.
    unsafe { *libc::__errno_location() = e };
}

/// The fake of the node `fd`, if it is one.
fn node(fd: c_int) -> Option<Rc<FakeDriver>> {
    NODES
        .try_with(|n| n.borrow().get(&fd).cloned())
        .ok()
        .flatten()
}

fn fake_arch() -> ArchId {
    match std::env::var("KHAL_FAKE_ARCH").as_deref() {
        Ok("sunda") => ArchId::Sunda,
        Ok("mariana") => ArchId::Mariana,
        _ => ArchId::Cayman,
    }
}

/// A fake node: its fd (a memfd) and its driver.
fn open_node(flags: c_int) -> c_int {
    let fake = FakeDriver::new(fake_arch());
    let fake = if flags & libc::O_ACCMODE == libc::O_RDWR {
        fake
    } else {
        fake.unattached()
    };
    let tile0 = <khal_arch_cayman::Cayman as TpbBases>::TPB_BASES[0];
    let nq = NqId {
        dev_type: NqDevType::NeuronCore,
        dev_id: 0,
        nq_type: NqType::Notify,
        engine_index: 0,
    };
    let base = match fake.arch() {
        ArchId::Sunda => khal_core::DeviceAddr(khal_std::neuron::window::SUNDA_BAR0_DEVICE),
        _ => tile0,
    };
    if fake.route_nq(nq, base.add(0x10_0100)).is_err() {
        set_errno(libc::EINVAL);
        return -1;
    }
    // SAFETY: memfd_create with a NUL-terminated name and no pointers kept.
    let fd = unsafe { libc::memfd_create(c"khal-neuron-node".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return fd;
    }
    let _ = NODES.try_with(|n| n.borrow_mut().insert(fd, Rc::new(fake)));
    fd
}

fn is_node(path: *const c_char) -> bool {
    if path.is_null() {
        return false;
    }
    // SAFETY: `open`'s contract: `path` is a NUL-terminated string.
    let p = unsafe { CStr::from_ptr(path) };
    p.to_bytes().starts_with(b"/dev/neuron")
}

fn ret(r: c_long) -> c_int {
    r as c_int
}

/// `open(2)`.
///
/// # Safety
/// libc's contract for `open`.
#[no_mangle]
pub unsafe extern "C" fn open(path: *const c_char, flags: c_int, mode: c_uint) -> c_int {
    if is_node(path) {
        return open_node(flags);
    }
    // SAFETY: forwarded as given.
    ret(unsafe { libc::syscall(libc::SYS_openat, libc::AT_FDCWD, path, flags, mode) })
}

/// `open64(2)`.
///
/// # Safety
/// libc's contract for `open64`.
#[no_mangle]
pub unsafe extern "C" fn open64(path: *const c_char, flags: c_int, mode: c_uint) -> c_int {
    // SAFETY: the same contract.
    unsafe { open(path, flags | libc::O_LARGEFILE, mode) }
}

/// `openat(2)`.
///
/// # Safety
/// libc's contract for `openat`.
#[no_mangle]
pub unsafe extern "C" fn openat(
    dir: c_int,
    path: *const c_char,
    flags: c_int,
    mode: c_uint,
) -> c_int {
    if is_node(path) {
        return open_node(flags);
    }
    // SAFETY: forwarded as given.
    ret(unsafe { libc::syscall(libc::SYS_openat, dir, path, flags, mode) })
}

/// `openat64(2)`.
///
/// # Safety
/// libc's contract for `openat64`.
#[no_mangle]
pub unsafe extern "C" fn openat64(
    dir: c_int,
    path: *const c_char,
    flags: c_int,
    mode: c_uint,
) -> c_int {
    // SAFETY: the same contract.
    unsafe { openat(dir, path, flags | libc::O_LARGEFILE, mode) }
}

/// `close(2)`.
///
/// # Safety
/// libc's contract for `close`.
#[no_mangle]
pub unsafe extern "C" fn close(fd: c_int) -> c_int {
    let _ = NODES.try_with(|n| n.borrow_mut().remove(&fd));
    // SAFETY: a plain close of `fd`.
    ret(unsafe { libc::syscall(libc::SYS_close, fd) })
}

/// `ioctl(2)`.
///
/// # Safety
/// libc's contract for `ioctl`: for the driver's commands, `arg` points to
/// the command's argument struct [FACTS §14.2].
#[no_mangle]
pub unsafe extern "C" fn ioctl(fd: c_int, request: c_ulong, arg: *mut c_void) -> c_int {
    let Some(fake) = node(fd) else {
        // SAFETY: forwarded as given.
        return ret(unsafe { libc::syscall(libc::SYS_ioctl, fd, request, arg) });
    };
    let cmd = request as u32;
    let Some(size) = abi::arg_size(cmd) else {
        set_errno(libc::ENOTTY);
        return -1;
    };
    if arg.is_null() {
        set_errno(libc::EFAULT);
        return -1;
    }
    // SAFETY: the ioctl contract above: `arg` is the caller's argument of
    // this command, `size` bytes, live and not otherwise borrowed for the call.
    let bytes = unsafe { core::slice::from_raw_parts_mut(arg.cast::<u8>(), size) };
    match fake.ioctl(cmd, bytes) {
        Ok(r) => r,
        Err(e) => {
            set_errno(e.0);
            -1
        }
    }
}

/// `mmap(2)`.
///
/// # Safety
/// libc's contract for `mmap`.
#[no_mangle]
pub unsafe extern "C" fn mmap(
    addr: *mut c_void,
    len: usize,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    offset: libc::off_t,
) -> *mut c_void {
    let Some(fake) = node(fd) else {
        // SAFETY: forwarded as given.
        return unsafe { libc::syscall(libc::SYS_mmap, addr, len, prot, flags, fd, offset) }
            as *mut c_void;
    };
    match fake.mmap(offset as u64, len) {
        Ok(m) => {
            let p = m.ptr().as_ptr().cast::<c_void>();
            let _ = MAPS.try_with(|t| t.borrow_mut().insert(p as usize, (fake, m)));
            p
        }
        Err(e) => {
            set_errno(e.0);
            libc::MAP_FAILED
        }
    }
}

/// `mmap64(2)`.
///
/// # Safety
/// libc's contract for `mmap64`.
#[no_mangle]
pub unsafe extern "C" fn mmap64(
    addr: *mut c_void,
    len: usize,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    offset: libc::off64_t,
) -> *mut c_void {
    // SAFETY: the same contract.
    unsafe { mmap(addr, len, prot, flags, fd, offset) }
}

/// `munmap(2)`.
///
/// # Safety
/// libc's contract for `munmap`.
#[no_mangle]
pub unsafe extern "C" fn munmap(addr: *mut c_void, len: usize) -> c_int {
    let mapped = MAPS
        .try_with(|t| t.borrow_mut().remove(&(addr as usize)))
        .ok()
        .flatten();
    if let Some((fake, m)) = mapped {
        return match fake.munmap(&m) {
            Ok(()) => 0,
            Err(e) => {
                set_errno(e.0);
                -1
            }
        };
    }
    // SAFETY: forwarded as given.
    ret(unsafe { libc::syscall(libc::SYS_munmap, addr, len) })
}
