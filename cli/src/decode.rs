//! `khal decode`: what lives at a device address (or at an offset inside a
//! register window whose base is not traced).
//!
//! The known places are generated from the same trait walk as `khal map`
//! (every base it prints decodes back to its family and index), plus the
//! ranges whose extent the traits give (PREPROC windows, the HBM usable size
//! of each channel, the DVE tables and parameter RAM of each tile). Every
//! offset is from the base of the place that holds the address. The HBM BAR
//! window is a size, not an address range, so it decodes nothing [000 §3].
//! A host-visible value's device-full place is the value plus the arch's
//! rebase (none on SUNDA) [000 §2]. Register names come from the
//! `register_block!` descriptions through `BlockDesc::lookup`; a byte inside a
//! 32-bit register names the register and the byte's offset in it.

use std::fmt::Write as _;

use clap::{Args, ValueEnum};
use khal::family::OWNER_TPB;
use khal::family::{Arch, Q7Owner, Tile};
use khal::regs::BlockDesc;
use khal::HOST_VISIBLE_REBASE;
use khal::{ArchId, Cayman, DeviceAddr, Engine, Mariana, Sunda};
use serde_json::{json, Value as Json};

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
    /// The address: `0x`-prefixed hex or decimal (`_` only between digits).
    #[arg(value_parser = parse_addr)]
    pub address: u64,
}

/// The `schema` of `decode --json` (docs/CLI.md).
pub const SCHEMA: &str = "khal.decode/1";

/// A register window described by a `register_block!`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Window {
    /// The TPB NX-local registers of an engine window.
    NxLocal,
    /// The TPB XT-local registers of an engine window.
    XtLocal,
    /// The per-engine notification block [004 §2].
    Notific,
    /// The `tpb_regs` window (context `+0x08`): the engine sub-blocks and the
    /// SW-queue selectors `+0xA00..+0xA18` [FACTS §13.6, §15.1].
    TpbRegs,
    /// The TopSP window (`xt_local(mem, 4, 0)`): its doorbells [FACTS §13.2].
    Topsp,
}

impl Window {
    fn name(self) -> &'static str {
        match self {
            Window::NxLocal => "nx-local",
            Window::XtLocal => "xt-local",
            Window::Notific => "notific",
            Window::TpbRegs => "tpb-regs",
            Window::Topsp => "topsp",
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
        if let Ok(b) = A::TOPSP_BLOCK {
            v.push((Placement::InWindow(Window::Topsp), b));
        }
        // Identical on every arch [004 §2].
        v.push((
            Placement::InWindow(Window::Notific),
            &khal::notific::NOTIFIC,
        ));
        // One description for every arch (the selectors' fields are CAYMAN's
        // schema [FACTS §15.1]).
        v.push((
            Placement::InWindow(Window::TpbRegs),
            &khal::engine::tpb_regs::TPB_REGS,
        ));
        v
    }
    match arch {
        ArchId::Sunda => of::<Sunda>(),
        ArchId::Cayman => of::<Cayman>(),
        ArchId::Mariana => of::<Mariana>(),
    }
}

/// The extent of an XT/NX window: 64 KiB (POOL's `LOCAL_REG` [devmap-pool §1];
/// the same for the other engines, MED).
const XT_WINDOW_BYTES: u64 = 0x1_0000;

/// Parse `0x…` hex or decimal, strictly: digits only, a `_` only between two
/// digits (`0x1_0000`), no sign, no whitespace (ASCII or Unicode) around or
/// inside, no empty number. `0x+10`, `_1`, `1_`, `1__0` and ` 1` are refused
/// (`u64::from_str_radix` alone would take a leading `+`).
pub fn parse_addr(s: &str) -> Result<u64, String> {
    let bad = || format!("'{s}' is not an address (0x-prefixed hex or decimal)");
    let (body, radix) = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => (hex, 16),
        None => (s, 10),
    };
    let digit = |c: char| c.is_digit(radix);
    let chars: Vec<char> = body.chars().collect();
    let well_formed = chars.first().is_some_and(|&c| digit(c))
        && chars.last().is_some_and(|&c| digit(c))
        && chars
            .iter()
            .enumerate()
            .all(|(i, &c)| digit(c) || (c == '_' && chars.get(i + 1).is_some_and(|&n| digit(n))));
    if !well_formed {
        return Err(bad());
    }
    let digits: String = chars.into_iter().filter(|&c| c != '_').collect();
    u64::from_str_radix(&digits, radix).map_err(|_| bad())
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
    /// For a host-visible item: the device-full address of the same place.
    device_twin: Option<u64>,
}

/// What one region says about an address: the item and the offset from the
/// region's own base.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The family (`hbm`, `seq`, …).
    pub family: &'static str,
    /// The item (`hbm[2]`, `seq[pe].seq (host-visible)`, …).
    pub item: String,
    /// `address - base of the item`.
    pub offset: u64,
    /// The rest of the answer line (what the place is, index, mesh half, form).
    pub detail: String,
}

/// The host-visible rebase of an arch, read off the sequencer getter (device
/// PE base minus host-visible PE base): `0x8_0000_0000` on CAYMAN and
/// MARIANA, 0 on SUNDA, which carries no prefix to rebase [000 §2], [FACTS §3.2].
fn rebase_of<A: Arch>() -> u64 {
    match (
        A::seq_params(Engine::Pe),
        A::seq_params_host_visible(Engine::Pe),
    ) {
        (Ok(d), Ok(h)) => d.seq.get().wrapping_sub(h.seq.get()),
        _ => HOST_VISIBLE_REBASE,
    }
}

fn regions_of<A: Arch>() -> Vec<Region> {
    let rebase = rebase_of::<A>();
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
                // The device-full place of a host-visible value is the value
                // plus the rebase, whatever item holds it [000 §2].
                device_twin: (form == Form::HostVisible).then(|| a.wrapping_add(rebase)),
            }),
            _ => None,
        })
        .collect();

    // PREPROC windows: base .. base + size [kdrv v3].
    if let (Ok(bases), Ok(size)) = (A::PREPROC_BASES, A::PREPROC_SIZE) {
        for (i, b) in (0u32..).zip(bases) {
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
    // HBM: channel base .. base + the usable size. The BAR window per channel
    // is a size (the PCIe aperture), not a range of device addresses beyond
    // the usable size [000 §3 GOTCHA]: it decodes nothing.
    let usable = A::HBM.usable_size.0;
    for (i, base) in (0u32..).zip(A::HBM.channel_bases) {
        v.push(Region {
            family: "hbm",
            item: format!("hbm[{i}]"),
            index: Some(("channel", i)),
            form: Form::Device,
            start: base.get(),
            len: usable,
            what: "usable HBM (get_hbm_size)",
            device_twin: None,
        });
    }
    // DVE tables and parameter RAM: TPB AXI base + offset, per tile [FACTS §8].
    // A table spans its size from the table-size getter [000r1 §3].
    let sizes = A::DVE_TABLES.sizes;
    for t in Tile::<A>::all() {
        let idx = Some(("tile", t.index()));
        if let Some(o) = A::DVE_TABLES.offsets {
            for (n, off, len) in [
                ("opcode", o.opcode, sizes.opcode),
                ("control_fast", o.control_fast, sizes.control_fast),
                ("control_slow", o.control_slow, sizes.control_slow),
                ("datapath", o.datapath, sizes.datapath),
            ] {
                v.push(Region {
                    family: "dve",
                    item: format!("tpb[{}] + dve table {n}", t.index()),
                    index: idx,
                    form: Form::Device,
                    start: off.at(A::tpb_base(t)).get(),
                    len,
                    what: "DVE table",
                    device_twin: None,
                });
            }
        }
        engine_places::<A>(&mut v, t, rebase);
        v.push(Region {
            family: "dve",
            item: format!("tpb[{}] + dve param ram", t.index()),
            index: idx,
            form: Form::Device,
            start: A::DVE_TABLES.param_ram_base.at(A::tpb_base(t)).get(),
            len: A::DVE_TABLES.param_ram_size,
            what: "parameter RAM",
            device_twin: None,
        });
    }
    v
}

/// The engine places of FACTS §13 in a tile's device view (bit 35 set, as
/// the RTL map places them [devmap-pool §1–§3]; the HAL's offsets omit it
/// [q7 §6b]): the XT/NX window of each engine (64 KiB), the Q7 cores' IRAM
/// and DRAM (owner 2), the HW-decode CAM and PROFILE tables. SUNDA ships no
/// device map, so these are CAYMAN's (and MARIANA's "as CAYMAN", MED).
fn engine_places<A: Arch>(v: &mut Vec<Region>, t: Tile<A>, rebase: u64) {
    if A::ID == ArchId::Sunda {
        return;
    }
    let tpb = A::tpb_base(t).get();
    let dev = tpb.wrapping_add(rebase);
    let idx = Some(("tile", t.index()));
    let mut push = |item: String, start: u64, len: u64, what: &'static str| {
        v.push(Region {
            family: "engine",
            item,
            index: idx,
            form: Form::Device,
            start,
            len,
            what,
            device_twin: None,
        })
    };
    for e in [Engine::Pe, Engine::Act, Engine::Pool, Engine::Dve] {
        if let Ok(o) = A::xt_local_reg_offset(e.index() as u32, OWNER_TPB) {
            let item = format!("tpb[{}] + xt/nx window {e}", t.index());
            push(
                item,
                dev.wrapping_add(o.get()),
                XT_WINDOW_BYTES,
                "XT/NX local window",
            );
        }
        // The device-full CAM base, and the table's extents and distance
        // from the CAM that the getter's four outs give [FACTS §13.5].
        if let (Ok(b), Ok(p)) = (A::hw_decode_device_base(e), A::hw_decode_table_params(e)) {
            let cam = tpb.wrapping_add(b.get());
            let item = format!("tpb[{}] + hw_decode cam {e}", t.index());
            push(item, cam, p.cam_size, "HW-decode CAM");
            let item = format!("tpb[{}] + hw_decode profile {e}", t.index());
            push(
                item,
                cam.wrapping_add(p.table_base.get().wrapping_sub(p.cam_base.get())),
                p.table_size,
                "HW-decode PROFILE table",
            );
        }
    }
    if let Ok(p) = A::q7_params(Q7Owner::Pooling) {
        for k in 0..p.num_q7 {
            let item = format!("tpb[{}] + q7 core {k} iram", t.index());
            push(
                item,
                dev.wrapping_add(p.iram(k).get()),
                p.iram_size,
                "Q7 IRAM",
            );
            let item = format!("tpb[{}] + q7 core {k} dram", t.index());
            push(
                item,
                dev.wrapping_add(p.dram(k).get()),
                p.dram_size,
                "Q7 DRAM",
            );
        }
    }
}

fn regions(arch: ArchId) -> Vec<Region> {
    match arch {
        ArchId::Sunda => regions_of::<Sunda>(),
        ArchId::Cayman => regions_of::<Cayman>(),
        ArchId::Mariana => regions_of::<Mariana>(),
    }
}

/// A described range (a place with an extent): the picture draws them.
#[derive(Debug, Clone)]
pub struct Range {
    /// The family (`hbm`, `dve`, `engine`, …).
    pub family: &'static str,
    /// The item (`hbm[2]`, `tpb[0] + dve table opcode`, …).
    pub item: String,
    /// First device address.
    pub start: u64,
    /// Length in bytes.
    pub len: u64,
    /// What the range is (`usable HBM (get_hbm_size)`, …).
    pub what: &'static str,
}

/// Every place of `arch` with a traced extent, device-full.
pub fn ranges(arch: ArchId) -> Vec<Range> {
    regions(arch)
        .into_iter()
        .filter(|r| r.len > 1)
        .map(|r| Range {
            family: r.family,
            item: r.item,
            start: r.start,
            len: r.len,
            what: r.what,
        })
        .collect()
}

fn detail(r: &Region, addr: u64) -> String {
    let mut s = format!("({}", r.what);
    if let Some((what, i)) = r.index {
        let _ = write!(s, ", {what} {i}");
    }
    match (r.form, r.device_twin) {
        (Form::Device, _) => {
            let half = DeviceAddr(addr).mesh_half();
            let _ = write!(s, ", {} mesh half, device-full", mesh_label(half));
        }
        (Form::HostVisible, Some(d)) if d == r.start => {
            let _ = write!(
                s,
                ", host-visible, same as device-full: no rebase on this arch"
            );
        }
        (Form::HostVisible, Some(d)) => {
            let _ = write!(s, ", host-visible offset of device-full {d:#x}");
        }
        (Form::HostVisible, None) => {
            let _ = write!(s, ", host-visible offset");
        }
    }
    s.push(')');
    s
}

/// Every place of `arch` that holds `addr`, each with the offset from its own
/// base. Two places that name the same item at the same offset (a channel
/// base the map prints, and the channel's usable range) are one answer.
pub fn hits(arch: ArchId, addr: u64) -> Vec<Hit> {
    let mut out: Vec<Hit> = Vec::new();
    for r in regions(arch) {
        let Some(offset) = addr.checked_sub(r.start) else {
            continue;
        };
        if offset >= r.len {
            continue;
        }
        if out.iter().any(|h| h.item == r.item && h.offset == offset) {
            continue;
        }
        out.push(Hit {
            family: r.family,
            detail: detail(&r, addr),
            item: r.item,
            offset,
        });
    }
    out
}

/// The tile whose span holds `addr` when no described place does: the
/// nearest TPB base at or below it, if `addr` lies closer to it than the
/// smallest spacing of two TPB bases (tiles do not overlap, so no TPB reaches
/// further). The TPB's own extent is not traced (on SUNDA the spacing is
/// `V2_MMAP_TPB_SIZE` [kdrv v2]): the answer says it is a span, not a register.
pub fn tile_span(arch: ArchId, addr: u64) -> Option<Hit> {
    fn of<A: Arch>(addr: u64) -> Option<Hit> {
        let mut bases: Vec<(u32, u64)> = Tile::<A>::all()
            .map(|t| (t.index(), A::tpb_base(t).get()))
            .collect();
        bases.sort_by_key(|&(_, b)| b);
        let spacing = bases.windows(2).map(|w| w[1].1 - w[0].1).min()?;
        let (i, base) = bases.into_iter().rev().find(|&(_, b)| b <= addr)?;
        let offset = addr - base;
        (offset < spacing).then(|| Hit {
            family: "tpb",
            item: format!("tpb[{i}]"),
            offset,
            detail: format!(
                "(inside the tile's span: within {spacing:#x} of its base, the smallest \
                 spacing of two TPB bases; the TPB's own extent is not traced, tile {i}, {} mesh half, device-full)",
                mesh_label(DeviceAddr(addr).mesh_half())
            ),
        })
    }
    match arch {
        ArchId::Sunda => of::<Sunda>(addr),
        ArchId::Cayman => of::<Cayman>(addr),
        ArchId::Mariana => of::<Mariana>(addr),
    }
}

/// The register of a described block holding byte `offset`, with the byte's
/// offset inside it: registers are 32-bit, so the one at `offset & !3`
/// [004 §2], [000 §2].
fn register_holding(b: &BlockDesc, offset: u64) -> Option<(String, u64)> {
    let aligned = offset & !3;
    b.lookup(aligned).map(|n| (n.to_string(), offset - aligned))
}

fn register_line(name: &str, within: u64) -> String {
    if within == 0 {
        format!("register {name}")
    } else {
        format!("register {name} + {within:#x} (byte {within} of the 32-bit register)")
    }
}

/// What `khal decode` found: the places (or the registers of a window).
struct Decoded {
    /// The places holding the address (without `--in`).
    places: Vec<Hit>,
    /// Registers: (name, byte offset inside the 32-bit register).
    registers: Vec<(String, u64)>,
    /// `--in`: no registers of this window are described for the arch.
    window_not_traced: bool,
}

fn decoded(args: &DecodeArgs) -> Decoded {
    let arch = args.arch.id();
    let addr = args.address;
    if let Some(w) = args.window {
        let in_window: Vec<&'static BlockDesc> = blocks(arch)
            .into_iter()
            .filter_map(|(p, b)| matches!(p, Placement::InWindow(x) if x == w).then_some(b))
            .collect();
        return Decoded {
            places: Vec::new(),
            registers: in_window
                .iter()
                .filter_map(|b| register_holding(b, addr))
                .collect(),
            window_not_traced: in_window.is_empty(),
        };
    }
    let mut places = hits(arch, addr);
    if places.is_empty() {
        places.extend(tile_span(arch, addr));
    }
    let registers = blocks(arch)
        .into_iter()
        .filter_map(|(p, b)| match p {
            Placement::At(base) => addr
                .checked_sub(base.get())
                .and_then(|off| register_holding(b, off)),
            Placement::InWindow(_) => None,
        })
        .collect();
    Decoded {
        places,
        registers,
        window_not_traced: false,
    }
}

/// Run `khal decode --json`: one document (docs/CLI.md).
pub fn run_json(args: &DecodeArgs) -> Result<String, String> {
    Ok(format!("{}\n", to_json(args, &decoded(args))))
}

/// Run `khal decode`.
pub fn run(args: &DecodeArgs) -> Result<String, String> {
    let d = decoded(args);
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
        if d.window_not_traced {
            let _ = writeln!(
                out,
                "  not traced: no {} registers are described for {}",
                w.name(),
                arch.name()
            );
        } else if d.registers.is_empty() {
            let _ = writeln!(out, "  unknown: no described register at offset {addr:#x}");
        }
        for (n, within) in &d.registers {
            let _ = writeln!(out, "  {}", register_line(n, *within));
        }
        return Ok(out);
    }

    let half = mesh_label(DeviceAddr(addr).mesh_half());
    let _ = writeln!(
        out,
        "{addr:#x} on {} ({half} mesh half if device-full):",
        arch.name()
    );
    for h in &d.places {
        let _ = write!(out, "  {}  {}", h.family, h.item);
        if h.offset != 0 {
            let _ = write!(out, " + {:#x}", h.offset);
        }
        let _ = writeln!(out, "  {}", h.detail);
    }
    for (n, within) in &d.registers {
        let _ = writeln!(out, "  {}", register_line(n, *within));
    }
    if d.places.is_empty() && d.registers.is_empty() {
        let _ = writeln!(
            out,
            "  unknown: no traced base or window of {} holds this address",
            arch.name()
        );
    }
    Ok(out)
}

/// The `decode --json` document (docs/CLI.md).
fn to_json(args: &DecodeArgs, d: &Decoded) -> Json {
    let addr = args.address;
    let registers: Vec<Json> = d
        .registers
        .iter()
        .map(|(n, within)| json!({ "register": n, "byte": within }))
        .collect();
    let status = if d.window_not_traced {
        "not traced"
    } else if d.places.is_empty() && d.registers.is_empty() {
        "unknown"
    } else {
        "found"
    };
    let mut doc = json!({
        "schema": SCHEMA,
        "arch": args.arch.id().name(),
        "address": format!("{addr:#x}"),
        "status": status,
        "registers": registers,
    });
    match args.window {
        Some(w) => doc["window"] = json!(w.name()),
        None => {
            doc["mesh_half"] = json!(mesh_label(DeviceAddr(addr).mesh_half()));
            doc["places"] = d
                .places
                .iter()
                .map(|h| {
                    json!({
                        "family": h.family,
                        "item": h.item,
                        "offset": format!("{:#x}", h.offset),
                        "detail": h.detail.trim_start_matches('(').trim_end_matches(')'),
                    })
                })
                .collect();
        }
    }
    doc
}
