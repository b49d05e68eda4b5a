//! `khal decode`: what lives at a device address (or at an offset inside a
//! register window whose base is not traced).
//!
//! The known places are generated from the same trait walk as `khal map`
//! (every base it prints decodes back to its family and index), plus the
//! ranges whose extent the traits give (PREPROC windows, HBM usable size and
//! BAR window, the DVE parameter RAM of each tile). Register names come from
//! the `register_block!` descriptions through `BlockDesc::lookup`.

use std::fmt::Write as _;

use clap::{Args, ValueEnum};
use khal::core::addr::MeshHalf;
use khal::core::family::{Arch, HbmChannel, Tile};
use khal::core::regs::BlockDesc;
use khal::{ArchId, Cayman, DeviceAddr, Mariana, Sunda};

use crate::map::{self, mesh_label, Form, Val};
use crate::ArchArg;

/// Arguments of `khal decode`.
#[derive(Debug, Args)]
pub struct DecodeArgs {
    /// The arch whose address map to use.
    #[arg(long, value_enum)]
    pub arch: ArchArg,
    /// Read the address as an offset inside this register window (its base is
    /// not traced, so only the offset can be named).
    #[arg(long = "in", value_enum, value_name = "WINDOW")]
    pub window: Option<Window>,
    /// The address: `0x`-prefixed hex (`_` separators allowed) or decimal.
    #[arg(value_parser = parse_addr)]
    pub address: u64,
}

/// A register window described by a `register_block!`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Window {
    /// The TPB NX-local registers of an engine window.
    NxLocal,
    /// The TPB XT-local registers of an engine window.
    XtLocal,
    /// The per-engine notification block [004 §2].
    Notific,
}

impl Window {
    fn name(self) -> &'static str {
        match self {
            Window::NxLocal => "nx-local",
            Window::XtLocal => "xt-local",
            Window::Notific => "notific",
        }
    }
}

/// Where a described block sits: at a traced absolute base, or only relative
/// to a window whose base is not traced.
#[derive(Debug, Clone, Copy)]
pub enum Placement {
    /// Mounted at this device address.
    // No block of the matrix has a traced absolute base yet; blocks added
    // later by other work (with a traced base) use this variant.
    #[allow(dead_code)]
    At(DeviceAddr),
    /// Only reachable with `--in <window>`.
    InWindow(Window),
}

/// The register blocks decode knows for an arch. Blocks described by other
/// work are added here (one line each).
pub fn blocks(arch: ArchId) -> Vec<(Placement, &'static BlockDesc)> {
    fn of<A: Arch>() -> Vec<(Placement, &'static BlockDesc)> {
        let mut v = Vec::new();
        if let Ok(b) = A::NX_LOCAL_BLOCK {
            v.push((Placement::InWindow(Window::NxLocal), b));
        }
        if let Ok(b) = A::XT_LOCAL_BLOCK {
            v.push((Placement::InWindow(Window::XtLocal), b));
        }
        // Identical on every arch [004 §2].
        v.push((
            Placement::InWindow(Window::Notific),
            &khal::core::notific::regs::NOTIFIC,
        ));
        v
    }
    match arch {
        ArchId::Sunda => of::<Sunda>(),
        ArchId::Cayman => of::<Cayman>(),
        ArchId::Mariana => of::<Mariana>(),
    }
}

/// Parse `0x…` hex (with optional `_`) or decimal.
pub fn parse_addr(s: &str) -> Result<u64, String> {
    let t = s.trim().replace('_', "");
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse::<u64>(),
    };
    parsed.map_err(|_| format!("'{s}' is not an address (0x-prefixed hex or decimal)"))
}

/// One place an address falls in.
#[derive(Debug, Clone)]
struct Region {
    family: &'static str,
    item: String,
    index: Option<(&'static str, u32)>,
    form: Form,
    start: u64,
    /// Exclusive length; 1 for an exact base whose extent is not traced.
    len: u64,
    what: &'static str,
    /// For a host-visible item: the device-full address of the same item.
    device_twin: Option<u64>,
}

fn regions_of<A: Arch>() -> Vec<Region> {
    let mut v: Vec<Region> = map::walk::<A>()
        .into_iter()
        .filter_map(|it| match it.val {
            Val::Addr(a, form) => Some(Region {
                family: it.family,
                item: it.item,
                index: it.index,
                form,
                start: a,
                len: 1,
                what: "base",
                device_twin: None,
            }),
            _ => None,
        })
        .collect();
    // Pair each host-visible item with its device-full twin (same item name
    // without the suffix): SUNDA's twin has the same value, CAYMAN's differs
    // by the rebase [000 §2].
    let twins: Vec<(String, u64)> = v
        .iter()
        .filter(|r| r.form == Form::Device)
        .map(|r| (format!("{} (host-visible)", r.item), r.start))
        .collect();
    for r in v.iter_mut().filter(|r| r.form == Form::HostVisible) {
        r.device_twin = twins.iter().find(|(n, _)| *n == r.item).map(|&(_, a)| a);
    }

    // PREPROC windows: base .. base + size [kdrv v3].
    if let (Ok(n), Ok(size)) = (A::preproc_count(), A::preproc_size()) {
        for i in 0..n {
            if let Ok(b) = A::preproc_base(i) {
                v.push(Region {
                    family: "preproc",
                    item: format!("preproc[{i}]"),
                    index: Some(("window", i)),
                    form: Form::Device,
                    start: b.get(),
                    len: size,
                    what: "inside the window",
                    device_twin: None,
                });
            }
        }
    }
    // HBM: the usable size, then the rest of the BAR window where known.
    let usable = A::get_hbm_size().bytes();
    for c in HbmChannel::<A>::all() {
        let idx = Some(("channel", c.index()));
        v.push(Region {
            family: "hbm",
            item: format!("hbm[{}]", c.index()),
            index: idx,
            form: Form::Device,
            start: c.base().get(),
            len: usable,
            what: "usable HBM (get_hbm_size)",
            device_twin: None,
        });
        if let Ok(bar) = A::hbm_bar_window() {
            if bar.bytes() > usable {
                v.push(Region {
                    family: "hbm",
                    item: format!("hbm[{}]", c.index()),
                    index: idx,
                    form: Form::Device,
                    start: c.base().get() + usable,
                    len: bar.bytes() - usable,
                    what: "BAR window beyond the usable size",
                    device_twin: None,
                });
            }
        }
    }
    // DVE tables and parameter RAM: TPB AXI base + offset, per tile [FACTS §8].
    for t in Tile::<A>::all() {
        let idx = Some(("tile", t.index()));
        if let Some(o) = A::DVE_TABLE_OFFSETS {
            for (n, off) in [
                ("opcode", o.opcode),
                ("control_fast", o.control_fast),
                ("control_slow", o.control_slow),
                ("datapath", o.datapath),
            ] {
                v.push(Region {
                    family: "dve",
                    item: format!("tpb[{}] + dve table {n}", t.index()),
                    index: idx,
                    form: Form::Device,
                    start: off.at(t.base()).get(),
                    len: 1,
                    what: "table start",
                    device_twin: None,
                });
            }
        }
        v.push(Region {
            family: "dve",
            item: format!("tpb[{}] + dve param ram", t.index()),
            index: idx,
            form: Form::Device,
            start: A::DVE_PARAM_RAM_BASE.at(t.base()).get(),
            len: A::DVE_PARAM_RAM_SIZE,
            what: "parameter RAM",
            device_twin: None,
        });
    }
    v
}

fn regions(arch: ArchId) -> Vec<Region> {
    match arch {
        ArchId::Sunda => regions_of::<Sunda>(),
        ArchId::Cayman => regions_of::<Cayman>(),
        ArchId::Mariana => regions_of::<Mariana>(),
    }
}

fn describe(r: &Region, addr: u64) -> String {
    let mut s = format!("{}  {}", r.family, r.item);
    let off = addr - r.start;
    if off != 0 {
        let _ = write!(s, " + {off:#x}");
    }
    let _ = write!(s, "  ({}", r.what);
    if let Some((what, i)) = r.index {
        let _ = write!(s, ", {what} {i}");
    }
    match r.form {
        Form::Device => {
            let half = DeviceAddr(addr).mesh_half();
            let _ = write!(s, ", {} mesh half, device-full", mesh_label(half));
        }
        Form::HostVisible => match r.device_twin {
            Some(d) if d == r.start => {
                let _ = write!(
                    s,
                    ", host-visible, same as device-full: no rebase on this arch"
                );
            }
            Some(d) => {
                let _ = write!(s, ", host-visible offset of device-full {d:#x}");
            }
            None => {
                let _ = write!(s, ", host-visible offset");
            }
        },
    }
    s.push(')');
    s
}

/// Run `khal decode`.
pub fn run(args: &DecodeArgs) -> Result<String, String> {
    let arch = args.arch.id();
    let addr = args.address;
    let mut out = String::new();

    if let Some(w) = args.window {
        let _ = writeln!(
            out,
            "{addr:#x} in the {} window on {}:",
            w.name(),
            arch.name()
        );
        let names: Vec<String> = blocks(arch)
            .into_iter()
            .filter(|(p, _)| matches!(p, Placement::InWindow(x) if *x == w))
            .filter_map(|(_, b)| b.lookup(addr).map(|n| n.to_string()))
            .collect();
        if blocks(arch)
            .iter()
            .all(|(p, _)| !matches!(p, Placement::InWindow(x) if *x == w))
        {
            let _ = writeln!(
                out,
                "  not traced: no {} registers are described for {}",
                w.name(),
                arch.name()
            );
        } else if names.is_empty() {
            let _ = writeln!(out, "  unknown: no described register at offset {addr:#x}");
        } else {
            for n in names {
                let _ = writeln!(out, "  register {n}");
            }
        }
        return Ok(out);
    }

    let half = match DeviceAddr(addr).mesh_half() {
        MeshHalf::Low => "low",
        MeshHalf::High => "high",
    };
    let _ = writeln!(
        out,
        "{addr:#x} on {} ({half} mesh half if device-full):",
        arch.name()
    );
    let all = regions(arch);
    let hits: Vec<&Region> = all
        .iter()
        .filter(|r| addr >= r.start && addr - r.start < r.len)
        .collect();
    // A range starting exactly at a base the walk already names adds nothing.
    let hits: Vec<&Region> = hits
        .iter()
        .copied()
        .filter(|r| {
            !(r.len > 1 && r.start == addr && hits.iter().any(|o| o.len == 1 && o.item == r.item))
        })
        .collect();
    for r in &hits {
        let _ = writeln!(out, "  {}", describe(r, addr));
    }
    for (p, b) in blocks(arch) {
        if let Placement::At(base) = p {
            if let Some(n) = b.lookup_at(base, DeviceAddr(addr)) {
                let _ = writeln!(out, "  register {n}");
            }
        }
    }
    if hits.is_empty() {
        let _ = writeln!(
            out,
            "  unknown: no traced base or window of {} holds this address",
            arch.name()
        );
    }
    Ok(out)
}
