//! What the driver backend can answer besides khal's own errors.

use std::fmt;
use std::path::PathBuf;

use khal_core::{DeviceAddr, Error};

use super::abi;
use super::sys::Errno;

/// A failure of the driver backend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NeuronError {
    /// The node could not be opened (no driver: `ENOENT`).
    Open {
        /// The node.
        path: PathBuf,
        /// Why.
        errno: Errno,
    },
    /// DEVICE_BASIC_INFO / DEVICE_INFO named an architecture khal does not
    /// know (2 = SUNDA, 3 = CAYMAN, 4 = MARIANA) [FACTS §14.2].
    UnknownArch(u32),
    /// BAR_WRITE refused `EINVAL`: the address is past BAR0 or in the
    /// kernel's write block-list [FACTS §14.3].
    WriteRefused {
        /// The first device address of the refused write.
        addr: DeviceAddr,
    },
    /// `EACCES`: the command needs an attached process, and this one did not
    /// open the node read-write [FACTS §14.2].
    NotAttached {
        /// The command's name.
        cmd: &'static str,
    },
    /// Any other errno of a command.
    Os {
        /// The command's name (or `mmap` / `munmap`).
        cmd: &'static str,
        /// The errno.
        errno: Errno,
    },
    /// NC_RESET_READY reported a failed reset.
    ResetFailed {
        /// Its `result`.
        result: i32,
    },
    /// khal's own check refused before any ioctl (a register outside every
    /// window, a value not traced, a bad size…).
    Hal(Error),
}

impl NeuronError {
    /// The error of command `cmd` answering `errno`.
    pub fn of(cmd: u32, errno: Errno) -> NeuronError {
        let cmd = abi::name_of(cmd);
        if errno == Errno::EACCES {
            NeuronError::NotAttached { cmd }
        } else {
            NeuronError::Os { cmd, errno }
        }
    }
}

impl From<Error> for NeuronError {
    fn from(e: Error) -> NeuronError {
        NeuronError::Hal(e)
    }
}

/// The closest khal [`Error`] (what an [`khal_core::Mmio`] access returns).
impl From<NeuronError> for Error {
    fn from(e: NeuronError) -> Error {
        match e {
            NeuronError::Hal(e) => e,
            NeuronError::WriteRefused { addr } => Error::no_region(addr.get()),
            NeuronError::NotAttached { .. } => Error::Rejected(
                "not attached: the driver refused EACCES (open the node read-write)",
            ),
            NeuronError::UnknownArch(_) => {
                Error::InvalidArgument("driver architecture (2 SUNDA, 3 CAYMAN, 4 MARIANA)")
            }
            NeuronError::Open { .. } => Error::Rejected("the device node could not be opened"),
            NeuronError::Os { errno, .. } if errno == Errno::ENOMEM => Error::OutOfMemory,
            NeuronError::Os { .. } => Error::Rejected("a driver ioctl failed"),
            NeuronError::ResetFailed { .. } => Error::Rejected("NeuronCore reset failed"),
        }
    }
}

impl fmt::Display for NeuronError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NeuronError::Open { path, errno } => {
                write!(f, "cannot open {}: {errno}", path.display())
            }
            NeuronError::UnknownArch(a) => write!(
                f,
                "the driver reports architecture {a}, not one khal knows (2 SUNDA, 3 CAYMAN, 4 MARIANA)"
            ),
            NeuronError::WriteRefused { addr } => write!(
                f,
                "BAR_WRITE at {:#x} refused (EINVAL): past BAR0 or in the kernel's write block-list",
                addr.get()
            ),
            NeuronError::NotAttached { cmd } => write!(
                f,
                "{cmd} refused (EACCES): this process is not attached (open the node read-write)"
            ),
            NeuronError::Os { cmd, errno } => write!(f, "{cmd} failed: {errno}"),
            NeuronError::ResetFailed { result } => {
                write!(f, "NeuronCore reset failed (NC_RESET_READY result {result})")
            }
            NeuronError::Hal(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for NeuronError {}
