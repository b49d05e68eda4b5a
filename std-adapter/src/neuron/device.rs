//! The device: `open(n)`, what DEVICE_BASIC_INFO and DEVICE_INFO report, and
//! the typed ioctl call every part of the backend goes through [FACTS §14.1-§14.2].

use std::path::Path;

use khal_core::ArchId;

use super::abi::{self, Arg, BasicInfo, DeviceInfo};
use super::error::NeuronError;
use super::sys::{DevNode, NeuronSys};
use super::window::Bar0Map;

/// One device through its driver: the seam `S`, its arch and BAR0.
#[derive(Debug)]
pub struct Neuron<S: NeuronSys> {
    sys: S,
    arch: ArchId,
    info: DeviceInfo,
    map: Bar0Map,
}

impl Neuron<DevNode> {
    /// Open `/dev/neuron<n>` read-write (attach) and read its info.
    pub fn open(n: u32) -> Result<Self, NeuronError> {
        Neuron::open_path(&DevNode::path_of(n))
    }

    /// Open the node at `path` read-write (attach) and read its info.
    pub fn open_path(path: &Path) -> Result<Self, NeuronError> {
        let node = DevNode::open(path).map_err(|errno| NeuronError::Open {
            path: path.to_path_buf(),
            errno,
        })?;
        Neuron::with_sys(node)
    }
}

/// khal's arch of a driver architecture number [FACTS §14.2].
pub fn arch_of(architecture: u32) -> Result<ArchId, NeuronError> {
    match architecture {
        abi::ARCH_SUNDA => Ok(ArchId::Sunda),
        abi::ARCH_CAYMAN => Ok(ArchId::Cayman),
        abi::ARCH_MARIANA => Ok(ArchId::Mariana),
        other => Err(NeuronError::UnknownArch(other)),
    }
}

/// One ioctl with a typed argument: its bytes out, the kernel's bytes back.
pub fn call<S: NeuronSys + ?Sized, A: Arg>(
    sys: &S,
    cmd: u32,
    arg: &mut A,
) -> Result<i32, NeuronError> {
    let mut bytes = arg.to_bytes();
    let r = sys
        .ioctl(cmd, &mut bytes)
        .map_err(|e| NeuronError::of(cmd, e))?;
    if let Some(back) = A::from_bytes(&bytes) {
        *arg = back;
    }
    Ok(r)
}

impl<S: NeuronSys> Neuron<S> {
    /// DEVICE_BASIC_INFO, then DEVICE_INFO, over an opened seam; the arch
    /// mapped to khal's (an unknown one is [`NeuronError::UnknownArch`]).
    pub fn with_sys(sys: S) -> Result<Self, NeuronError> {
        let mut basic = BasicInfo::default();
        call(&sys, abi::DEVICE_BASIC_INFO, &mut basic)?;
        let arch = arch_of(basic.architecture)?;
        let mut info = DeviceInfo::default();
        call(&sys, abi::DEVICE_INFO, &mut info)?;
        if info.architecture != basic.architecture {
            return Err(NeuronError::UnknownArch(info.architecture));
        }
        let map = Bar0Map::new(arch, info.bar_size[0]);
        Ok(Neuron {
            sys,
            arch,
            info,
            map,
        })
    }

    /// The seam.
    pub fn sys(&self) -> &S {
        &self.sys
    }

    /// The arch.
    pub fn arch(&self) -> ArchId {
        self.arch
    }

    /// The silicon revision.
    pub fn revision(&self) -> u32 {
        self.info.revision
    }

    /// All of DEVICE_INFO.
    pub fn info(&self) -> &DeviceInfo {
        &self.info
    }

    /// BAR0's kernel virtual address (`bar_address[0]`): every BAR_READ /
    /// BAR_WRITE address is this plus a BAR0 offset [FACTS §14.3].
    pub fn bar0_kernel_addr(&self) -> u64 {
        self.info.bar_address[0]
    }

    /// The BAR sizes.
    pub fn bar_sizes(&self) -> [u64; 2] {
        self.info.bar_size
    }

    /// The BAR0 window table.
    pub fn bar0_map(&self) -> &Bar0Map {
        &self.map
    }

    /// One typed ioctl through the seam.
    pub fn call<A: Arg>(&self, cmd: u32, arg: &mut A) -> Result<i32, NeuronError> {
        call(&self.sys, cmd, arg)
    }
}
