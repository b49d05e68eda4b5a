//! `khal probe [DEVICE]`: what a runtime engineer checks first on a host
//! with the vendor driver [FACTS §14]: the node opens read-write, its arch
//! and revision (DEVICE_BASIC_INFO / DEVICE_INFO), BAR0's kernel address and
//! the BAR sizes, khal's BAR0 windows for the arch, the connected devices,
//! and the kernel's NQ types. Without the driver: one line, exit 1.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;
use khal::std_adapter::neuron::{Errno, Neuron, NeuronError, NqType};

/// Arguments of `khal probe`.
#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// The device node (default `/dev/neuron0`).
    pub device: Option<PathBuf>,
}

/// The probe's report, or its one-line failure.
pub fn run(args: &ProbeArgs) -> Result<String, String> {
    let path = args
        .device
        .clone()
        .unwrap_or_else(|| PathBuf::from("/dev/neuron0"));
    let dev = Neuron::open_path(&path).map_err(|e| match e {
        NeuronError::Open { errno, .. } if errno == Errno::ENOENT => format!(
            "no vendor driver here: {} does not exist (is the neuron kernel module loaded?)",
            path.display()
        ),
        e => e.to_string(),
    })?;
    let info = dev.info();
    let mut out = String::new();
    let _ = writeln!(out, "{}", path.display());
    let _ = writeln!(
        out,
        "  arch        {} (driver architecture {}), revision {}",
        dev.arch(),
        info.architecture,
        info.revision
    );
    let _ = writeln!(
        out,
        "  bar0        kernel address {:#x}, {:#x} bytes",
        info.bar_address[0], info.bar_size[0]
    );
    let _ = writeln!(out, "  bar2        {:#x} bytes", info.bar_size[1]);
    for w in dev.bar0_map().windows() {
        let _ = writeln!(
            out,
            "  window      {:<6} device {:#x} -> BAR0 {:#x}, {:#x} bytes",
            w.name, w.device, w.offset, w.size
        );
    }
    let n = (info.connected_device_count as usize).min(info.connected_devices.len());
    let _ = writeln!(
        out,
        "  connected   {} device(s) {:?}",
        info.connected_device_count,
        &info.connected_devices[..n]
    );
    let types: Vec<String> = NqType::ALL
        .iter()
        .map(|t| format!("{} {}", t.name(), *t as u32))
        .collect();
    let _ = writeln!(out, "  nq types    {} (16 queues each)", types.join(", "));
    Ok(out)
}
