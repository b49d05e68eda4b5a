//! Registers through BAR_READ / BAR_WRITE: khal's [`Mmio`] over the driver
//! [FACTS §14.3].
//!
//! Every address is checked against the BAR0 window table
//! ([`super::window::Bar0Map`]) before any ioctl: the kernel bounds writes
//! but never reads. A write is one BAR_WRITE, a burst one BAR_WRITE of all
//! its addresses; [`Neuron::read_run`] batches at most 100 dwords per
//! BAR_READ (the kernel's limit). A write the kernel refuses `EINVAL` is
//! [`NeuronError::WriteRefused`] naming the address; `EACCES` is
//! [`NeuronError::NotAttached`].

use khal_core::{DeviceAddr, Error, Mmio, Result};

use super::abi::{self, BarRw, BAR_READ_MAX};
use super::device::Neuron;
use super::error::NeuronError;
use super::sys::{Errno, NeuronSys};

/// BAR0, the `bar` of every access khal makes [FACTS §14.3].
const BAR0: u32 = 0;

impl<S: NeuronSys> Neuron<S> {
    /// The kernel addresses of `n` dwords from `addr`, checked inside one
    /// BAR0 window first.
    fn kernel_addrs(&self, addr: DeviceAddr, n: usize) -> Result<Vec<u64>, NeuronError> {
        let off = self.bar0_map().offset(addr, n)?;
        let base = self.bar0_kernel_addr().wrapping_add(off);
        Ok((0..n as u64).map(|i| base.wrapping_add(4 * i)).collect())
    }

    /// BAR_WRITE of `words` to consecutive dwords from `addr`: one ioctl.
    pub fn bar_write(&self, addr: DeviceAddr, words: &[u32]) -> Result<(), NeuronError> {
        if words.is_empty() {
            return Ok(());
        }
        let addrs = self.kernel_addrs(addr, words.len())?;
        let count = u32::try_from(words.len())
            .map_err(|_| Error::InvalidArgument("bar write count (at most u32::MAX dwords)"))?;
        let mut arg = BarRw {
            bar: BAR0,
            address: addrs.as_ptr() as u64,
            data: words.as_ptr() as u64,
            count,
            ..BarRw::default()
        };
        match self.call(abi::BAR_WRITE, &mut arg) {
            Err(NeuronError::Os { errno, .. }) if errno == Errno::EINVAL => {
                Err(NeuronError::WriteRefused { addr })
            }
            other => other.map(|_| ()),
        }
    }

    /// BAR_READ of `out.len()` consecutive dwords from `addr`, at most 100
    /// per ioctl [FACTS §14.3]; the whole run checked first.
    pub fn read_run(&self, addr: DeviceAddr, out: &mut [u32]) -> Result<(), NeuronError> {
        let addrs = self.kernel_addrs(addr, out.len())?;
        for (a, o) in addrs
            .chunks(BAR_READ_MAX as usize)
            .zip(out.chunks_mut(BAR_READ_MAX as usize))
        {
            let mut arg = BarRw {
                bar: BAR0,
                address: a.as_ptr() as u64,
                data: o.as_mut_ptr() as u64,
                count: a.len() as u32,
                ..BarRw::default()
            };
            self.call(abi::BAR_READ, &mut arg)?;
        }
        Ok(())
    }
}

impl<S: NeuronSys> Mmio for Neuron<S> {
    fn read32(&self, addr: DeviceAddr) -> Result<u32> {
        let mut v = [0u32];
        self.read_run(addr, &mut v)?;
        Ok(v[0])
    }

    fn write32(&self, addr: DeviceAddr, value: u32) -> Result<()> {
        Ok(self.bar_write(addr, &[value])?)
    }

    fn write_burst(&self, addr: DeviceAddr, words: &[u32]) -> Result<()> {
        Ok(self.bar_write(addr, words)?)
    }
}
