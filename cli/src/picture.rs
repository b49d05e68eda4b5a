//! `khal map --svg FILE` / `--html FILE`: a picture of one arch's address space.
//!
//! Three lanes share one log2 address axis (2^24 .. 2^47, anything lower at
//! the left edge): the low mesh half (bit 47 clear), the high mesh half
//! (bit 47 set, drawn at its offset inside the half, so tile 4 sits under
//! tile 0) and the host-visible offsets (device-full minus the rebase)
//! [000 §2]. Each family has a row in a lane; each address item is a tick,
//! each range whose extent is traced (HBM usable size, PREPROC windows, DVE
//! tables, the engine places) a bar, each tile a band from its TPB base to
//! the next tile. Items without an address (offsets, sizes, counts, fields,
//! holes) are squares in a grid below, one row per family. Every map item is
//! exactly one element of class `item`, coloured by its grade (HIGH, MED,
//! LOW, not traced), with its value, grade and source as its hover title.

use std::fmt::Write as _;
use std::path::Path;

use khal::addr::MeshHalf;
use khal::ArchId;

use crate::decode;
use crate::map::{self, Form, Item, MapArgs, Val};

/// Bit 47: the mesh half [000 §2].
const MESH_HIGH_BIT: u64 = 1 << 47;
/// The axis: log2 of the address inside a lane, from `LO_BIT` to `HI_BIT`.
const LO_BIT: f64 = 24.0;
const HI_BIT: f64 = 47.0;
/// Geometry (pixels).
const WIDTH: f64 = 1500.0;
const LEFT: f64 = 210.0;
const PLOT: f64 = WIDTH - LEFT - 30.0;
const ROW: f64 = 22.0;
const CELL: f64 = 13.0;

/// The fill of a grade.
fn colour(item: &Item) -> &'static str {
    match item.grade_text() {
        "high" => "#2e7d32",
        "med" => "#f9a825",
        "low" => "#c62828",
        _ => "#9e9e9e",
    }
}

/// XML text and attribute escaping.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The x of an address inside a lane.
fn x_of(offset: u64) -> f64 {
    let bits = if offset == 0 {
        LO_BIT
    } else {
        (offset as f64).log2().clamp(LO_BIT, HI_BIT)
    };
    LEFT + (bits - LO_BIT) / (HI_BIT - LO_BIT) * PLOT
}

/// The hover title of an item: name, value, form, grade, source.
fn title(it: &Item) -> String {
    let mut t = format!("{} = {}", it.item, it.val.text());
    if let Val::Addr(a, form) = it.val {
        let _ = write!(t, " ({}", form.label());
        if form == Form::Device {
            let half = khal::DeviceAddr(a).mesh_half();
            let _ = write!(t, ", {} mesh half", map::mesh_label(half));
        }
        t.push(')');
    }
    let grade = match it.confidence() {
        Some(c) => c.label().to_uppercase(),
        None => "not traced".into(),
    };
    let _ = write!(t, "\ngrade: {grade}\nsource: {}", it.prov.source);
    t
}

/// Which lane an item or range sits in, and its offset inside the lane.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Lane {
    Low,
    High,
    HostVisible,
}

impl Lane {
    fn of(addr: u64, form: Form) -> (Lane, u64) {
        match (form, khal::DeviceAddr(addr).mesh_half()) {
            (Form::HostVisible, _) => (Lane::HostVisible, addr),
            (Form::Device, MeshHalf::Low) => (Lane::Low, addr),
            (Form::Device, MeshHalf::High) => (Lane::High, addr & !MESH_HIGH_BIT),
        }
    }

    fn label(self) -> &'static str {
        match self {
            Lane::Low => "low mesh half (bit 47 = 0), device-full",
            Lane::High => "high mesh half (bit 47 = 1), offset in the half",
            Lane::HostVisible => "host-visible offsets (device-full minus the arch's rebase)",
        }
    }
}

/// Where everything sits: the rows of each lane (in walk order of first
/// appearance), the grid of items without an address, and the heights.
struct Layout {
    /// Each lane's top and bottom.
    lanes: Vec<(Lane, f64, f64)>,
    /// Each `(lane, family)` row's top.
    rows: Vec<((Lane, &'static str), f64)>,
    /// Each grid family and its number of lines.
    grid: Vec<(&'static str, usize)>,
    /// Squares per grid line.
    per_line: usize,
    top: f64,
    axis_y: f64,
    grid_top: f64,
    height: f64,
}

impl Layout {
    fn new(items: &[Item], ranges: &[decode::Range]) -> Layout {
        // Rows: (lane, family) in walk order of first appearance.
        let mut rows: Vec<(Lane, &'static str)> = Vec::new();
        let mut row_of = |lane: Lane, family: &'static str| {
            let key = (lane, family);
            if !rows.contains(&key) {
                rows.push(key);
            }
        };
        for it in items {
            if let Val::Addr(a, form) = it.val {
                row_of(Lane::of(a, form).0, it.family);
            }
        }
        for r in ranges {
            row_of(Lane::of(r.start, Form::Device).0, r.family);
        }
        rows.sort_by_key(|&(lane, _)| lane);
        let grid: Vec<&'static str> = {
            let mut f: Vec<&'static str> = Vec::new();
            for it in items {
                if !matches!(it.val, Val::Addr(..)) && !f.contains(&it.family) {
                    f.push(it.family);
                }
            }
            f
        };
        let per_line = (PLOT / (CELL + 3.0)).floor() as usize;
        let grid_lines: Vec<(&'static str, usize)> = grid
            .iter()
            .map(|&f| {
                let n = items
                    .iter()
                    .filter(|i| i.family == f && !matches!(i.val, Val::Addr(..)))
                    .count();
                (f, n.div_ceil(per_line).max(1))
            })
            .collect();

        // Vertical layout.
        let top = 120.0;
        let lanes: Vec<Lane> = {
            let mut l: Vec<Lane> = rows.iter().map(|r| r.0).collect();
            l.dedup();
            l
        };
        let lane_gap = 34.0;
        let mut y = top;
        let mut lane_y: Vec<(Lane, f64, f64)> = Vec::new();
        let mut row_y: Vec<((Lane, &'static str), f64)> = Vec::new();
        for &lane in &lanes {
            let start = y + 18.0;
            y = start;
            for r in rows.iter().filter(|r| r.0 == lane) {
                row_y.push((*r, y));
                y += ROW;
            }
            lane_y.push((lane, start, y));
            y += lane_gap;
        }
        let axis_y = y;
        let grid_top = axis_y + 60.0;
        let grid_h: f64 = grid_lines
            .iter()
            .map(|&(_, n)| n as f64 * (CELL + 3.0) + 8.0)
            .sum();
        let height = grid_top + 24.0 + grid_h + 20.0;
        Layout {
            lanes: lane_y,
            rows: row_y,
            grid: grid_lines,
            per_line,
            top,
            axis_y,
            grid_top,
            height,
        }
    }

    /// The top of the row of `family` in `lane`.
    fn row(&self, lane: Lane, family: &str) -> Option<f64> {
        self.rows
            .iter()
            .find(|(k, _)| *k == (lane, family))
            .map(|&(_, ry)| ry)
    }
}

/// The SVG of `arch`'s map items (all of them, or those the filters keep).
pub fn svg(arch: ArchId, items: &[Item]) -> String {
    let ranges = decode::ranges(arch);
    let lay = Layout::new(items, &ranges);
    let mut s = String::new();
    header(&mut s, arch, items, lay.height);
    lanes(&mut s, items, &lay);
    row_labels(&mut s, &lay);
    extents(&mut s, &ranges, &lay);
    ticks(&mut s, items, &lay);
    axis(&mut s, &lay);
    grid(&mut s, items, &lay);
    s.push_str("</svg>\n");
    s
}

/// The `<svg>` element, the title, the background and the legend.
fn header(s: &mut String, arch: ArchId, items: &[Item], height: f64) {
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height:.0}" viewBox="0 0 {WIDTH} {height:.0}" font-family="DejaVu Sans, Arial, sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        s,
        r#"<title>khal register map: {} (arch {})</title>"#,
        arch.name(),
        arch.id()
    );
    let _ = writeln!(
        s,
        r##"<rect x="0" y="0" width="{WIDTH}" height="{height:.0}" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        s,
        r#"<text x="20" y="32" font-size="20" font-weight="bold">khal register map: {} (arch {}), {} items</text>"#,
        arch.name(),
        arch.id(),
        items.len()
    );
    let _ = writeln!(
        s,
        r##"<text x="20" y="54" fill="#444">Address axis: log2, 16 MiB .. 128 TiB (lower addresses at the left edge). Ticks: an address; bars: a traced extent; bands: a tile (TPB base to the next tile). Hover for address, grade and source.</text>"##
    );
    // Legend.
    let mut lx = 20.0;
    for (name, fill) in [
        ("HIGH", "#2e7d32"),
        ("MED", "#f9a825"),
        ("LOW", "#c62828"),
        ("not traced", "#9e9e9e"),
    ] {
        let _ = writeln!(
            s,
            r#"<rect x="{lx}" y="68" width="14" height="14" fill="{fill}"/><text x="{}" y="80">{name}</text>"#,
            lx + 20.0
        );
        lx += 30.0 + 8.0 * name.len() as f64 + 20.0;
    }
    let _ = writeln!(
        s,
        r##"<rect x="{lx}" y="68" width="30" height="14" fill="#90caf9" fill-opacity="0.6"/><text x="{}" y="80">traced extent</text>"##,
        lx + 36.0
    );
    lx += 150.0;
    let _ = writeln!(
        s,
        r##"<rect x="{lx}" y="68" width="30" height="14" fill="#e8eaf6"/><text x="{}" y="80">tile</text>"##,
        lx + 36.0
    );
}

/// Each lane's box and label, and its tile bands.
fn lanes(s: &mut String, items: &[Item], lay: &Layout) {
    let tiles: Vec<(u32, u64)> = items
        .iter()
        .filter(|i| i.family == "tpb")
        .filter_map(|i| match (i.index, &i.val) {
            (Some(("tile", t)), Val::Addr(a, Form::Device)) => Some((t, *a)),
            _ => None,
        })
        .collect();
    let spacing = {
        let mut b: Vec<u64> = tiles.iter().map(|t| t.1).collect();
        b.sort_unstable();
        b.windows(2).map(|w| w[1] - w[0]).min()
    };
    for &(lane, y0, y1) in &lay.lanes {
        let _ = writeln!(
            s,
            r##"<g class="lane" data-lane="{}"><rect x="{LEFT}" y="{y0}" width="{PLOT}" height="{}" fill="#fafafa" stroke="#bdbdbd"/><text x="{LEFT}" y="{}" font-weight="bold">{}</text></g>"##,
            esc(lane.label()),
            y1 - y0,
            y0 - 5.0,
            esc(lane.label())
        );
        if let Some(sp) = spacing {
            for &(t, a) in &tiles {
                let (l, off) = Lane::of(a, Form::Device);
                if l != lane {
                    continue;
                }
                let (xa, xb) = (x_of(off), x_of(off.saturating_add(sp)));
                let _ = writeln!(
                    s,
                    r##"<g class="tile"><rect x="{xa:.1}" y="{y0}" width="{:.1}" height="{}" fill="#e8eaf6" stroke="#7986cb" stroke-width="0.5"><title>tile {t}: tpb[{t}] = {a:#x} .. +{sp:#x} (the next tile; the TPB's own extent is not traced)</title></rect><text x="{:.1}" y="{}" font-size="10" text-anchor="middle" fill="#3949ab">t{t}</text></g>"##,
                    (xb - xa).max(2.0),
                    y1 - y0,
                    (xa + xb) / 2.0,
                    // Neighbouring tiles can share an x on the log axis:
                    // alternate their labels over two lines.
                    y1 + if t % 2 == 0 { 11.0 } else { 22.0 }
                );
            }
        }
    }
}

/// Each row's family label and rule.
fn row_labels(s: &mut String, lay: &Layout) {
    for &((_, family), ry) in &lay.rows {
        let _ = writeln!(
            s,
            r##"<text x="{}" y="{}" text-anchor="end" fill="#333">{}</text><line x1="{LEFT}" x2="{}" y1="{}" y2="{}" stroke="#eeeeee"/>"##,
            LEFT - 8.0,
            ry + 15.0,
            esc(family),
            LEFT + PLOT,
            ry + ROW,
            ry + ROW
        );
    }
}

/// The traced extents: one bar each (drawn behind the ticks).
fn extents(s: &mut String, ranges: &[decode::Range], lay: &Layout) {
    for r in ranges {
        let (lane, off) = Lane::of(r.start, Form::Device);
        let Some(ry) = lay.row(lane, r.family) else {
            continue;
        };
        let (xa, xb) = (x_of(off), x_of(off.saturating_add(r.len)));
        let _ = writeln!(
            s,
            r##"<rect class="range" x="{xa:.1}" y="{}" width="{:.1}" height="{}" fill="#90caf9" fill-opacity="0.6"><title>{}: {} {:#x} .. {:#x}</title></rect>"##,
            ry + 4.0,
            (xb - xa).max(1.5),
            ROW - 8.0,
            esc(&r.item),
            esc(r.what),
            r.start,
            r.start.saturating_add(r.len)
        );
    }
}

/// The address items: one tick each.
fn ticks(s: &mut String, items: &[Item], lay: &Layout) {
    for it in items {
        let Val::Addr(a, form) = it.val else {
            continue;
        };
        let (lane, off) = Lane::of(a, form);
        let Some(ry) = lay.row(lane, it.family) else {
            continue;
        };
        let _ = writeln!(
            s,
            r#"<rect class="item" data-item="{}" data-grade="{}" x="{:.1}" y="{}" width="4" height="{}" fill="{}"><title>{}</title></rect>"#,
            esc(&it.item),
            it.grade_text(),
            x_of(off) - 2.0,
            ry + 2.0,
            ROW - 4.0,
            colour(it),
            esc(&title(it))
        );
    }
}

/// The address axis: a mark every 2 bits, 16 MiB to 64 TiB.
fn axis(s: &mut String, lay: &Layout) {
    let (top, axis_y) = (lay.top, lay.axis_y);
    let _ = writeln!(
        s,
        r##"<line x1="{LEFT}" x2="{}" y1="{axis_y}" y2="{axis_y}" stroke="#000"/>"##,
        LEFT + PLOT
    );
    let units = [
        "16 MiB", "64 MiB", "256 MiB", "1 GiB", "4 GiB", "16 GiB", "64 GiB", "256 GiB", "1 TiB",
        "4 TiB", "16 TiB", "64 TiB",
    ];
    for (k, unit) in units.iter().enumerate() {
        let bit = 24 + 2 * k as u32;
        let x = x_of(1u64 << bit);
        let _ = writeln!(
            s,
            r##"<line x1="{x:.1}" x2="{x:.1}" y1="{}" y2="{}" stroke="#000"/><line x1="{x:.1}" x2="{x:.1}" y1="{top}" y2="{axis_y}" stroke="#000" stroke-opacity="0.06"/><text x="{x:.1}" y="{}" text-anchor="middle" font-size="11">{:#x}</text><text x="{x:.1}" y="{}" text-anchor="middle" font-size="10" fill="#555">{unit}</text>"##,
            axis_y,
            axis_y + 6.0,
            axis_y + 20.0,
            1u64 << bit,
            axis_y + 33.0
        );
    }
}

/// The grid of items without an address: one square each, a row per family.
fn grid(s: &mut String, items: &[Item], lay: &Layout) {
    let per_line = lay.per_line;
    let _ = writeln!(
        s,
        r#"<text x="20" y="{}" font-weight="bold">Items without an address (offsets, sizes, counts, fields, holes): one square each</text>"#,
        lay.grid_top
    );
    let mut gy = lay.grid_top + 14.0;
    for &(family, lines) in &lay.grid {
        let _ = writeln!(
            s,
            r##"<text x="{}" y="{}" text-anchor="end" fill="#333">{}</text>"##,
            LEFT - 8.0,
            gy + CELL - 2.0,
            esc(family)
        );
        let cells = items
            .iter()
            .filter(|i| i.family == family && !matches!(i.val, Val::Addr(..)));
        for (k, it) in cells.enumerate() {
            let cx = LEFT + (k % per_line) as f64 * (CELL + 3.0);
            let cy = gy + (k / per_line) as f64 * (CELL + 3.0);
            let _ = writeln!(
                s,
                r#"<rect class="item" data-item="{}" data-grade="{}" x="{cx:.1}" y="{cy:.1}" width="{CELL}" height="{CELL}" fill="{}"><title>{}</title></rect>"#,
                esc(&it.item),
                it.grade_text(),
                colour(it),
                esc(&title(it))
            );
        }
        gy += lines as f64 * (CELL + 3.0) + 8.0;
    }
}

/// The SVG in a page of its own (hovering an item outlines it).
pub fn html(arch: ArchId, items: &[Item]) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>khal register map: {}</title>\n\
         <style>body{{margin:0;background:#fff}} rect.item:hover{{stroke:#000;stroke-width:2}}</style>\n\
         </head>\n<body>\n{}</body>\n</html>\n",
        arch.name(),
        svg(arch, items)
    )
}

/// Run `khal map --svg FILE` / `--html FILE`: the picture into FILE, or on
/// stdout for `-`; a line saying what was written otherwise.
pub fn run(args: &MapArgs) -> Result<String, String> {
    let arch = args
        .arch
        .ok_or("--arch <sunda|cayman|mariana> is required")?
        .id();
    let items: Vec<Item> = map::items(arch)
        .into_iter()
        .filter(|i| args.keeps(i))
        .collect();
    let (path, text) = match (&args.svg, &args.html) {
        (Some(p), _) => (p, svg(arch, &items)),
        (None, Some(p)) => (p, html(arch, &items)),
        (None, None) => return Err("--svg or --html needs a file".into()),
    };
    if path == Path::new("-") {
        return Ok(text);
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(format!(
        "khal map: {} address space, {} items, written to {}\n",
        arch.name(),
        items.len(),
        path.display()
    ))
}
