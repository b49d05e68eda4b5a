//! `khal map`: the register matrix of an arch, built by walking the family traits.
//!
//! Every value printed here comes from the `khal_core::family` traits of the
//! arch crates (never a second copy of the numbers); this file only adds the
//! labels and the provenance of each item: its grade ([`Confidence`]: HIGH
//! unless FACTS marks it MED or LOW) and its source (a note section, an
//! earlier revision such as `[000r1 §3]`, or the kernel driver `[kdrv vN]`).
//!
//! Adding an item: push it with a [`Prov`] — `src(family, arch)` for the
//! family's usual grade and source, or `Prov::med(...)` / `Prov::low(...)`
//! with the exact citation when FACTS grades that value apart.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use clap::Args;
use khal::family::{Arch, Doorbell, FlagSelected, Gated, NotificMask, Offset, Q7Owner, Tile};
use khal::intc::MSIX;
use khal::regs::{Field, Reg};
use khal::MeshHalf;
use khal::{ArchId, Cayman, Engine, Error, Mariana, Sunda};
use serde_json::{json, Value as Json};

use crate::ArchArg;

/// Arguments of `khal map`.
#[derive(Debug, Args)]
pub struct MapArgs {
    /// The arch whose matrix to print.
    #[arg(long, value_enum, required_unless_present = "diff")]
    pub arch: Option<ArchArg>,
    /// Print one JSON document instead of a table (not with `--diff`).
    #[arg(long, conflicts_with = "diff")]
    pub json: bool,
    /// Print only the items that differ between two arches, side by side.
    #[arg(long, num_args = 2, value_names = ["ARCH", "ARCH"], value_enum, conflicts_with = "arch")]
    pub diff: Option<Vec<ArchArg>>,
    /// Keep only the items of this family (repeat for several): tpb, hbm, seq, …
    #[arg(long, value_name = "FAMILY", value_parser = family)]
    pub family: Vec<String>,
    /// Keep only the items whose family, name, value or source contains this
    /// text (case-insensitive).
    #[arg(long, value_name = "TEXT")]
    pub grep: Option<String>,
    /// Draw the arch's address space as an SVG picture into FILE (`-`: stdout).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["json", "diff", "html"])]
    pub svg: Option<std::path::PathBuf>,
    /// The same picture in an HTML page (hover an item for its address and source).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["json", "diff"])]
    pub html: Option<std::path::PathBuf>,
}

/// The `schema` of `map --json` (docs/CLI.md).
pub const SCHEMA: &str = "khal.map/1";

/// Every family name the walk uses, on any arch.
pub fn families() -> Vec<&'static str> {
    let mut f: Vec<&'static str> = [ArchId::Sunda, ArchId::Cayman, ArchId::Mariana]
        .into_iter()
        .flat_map(items)
        .map(|i| i.family)
        .collect();
    f.sort_unstable();
    f.dedup();
    f
}

/// `--family`: one of [`families`] (a bad command line otherwise).
fn family(s: &str) -> Result<String, String> {
    let all = families();
    if all.contains(&s) {
        Ok(s.to_string())
    } else {
        Err(format!("no family '{s}' (one of: {})", all.join(", ")))
    }
}

impl MapArgs {
    /// The rows `--family` and `--grep` keep.
    pub fn keeps(&self, item: &Item) -> bool {
        let family = self.family.is_empty() || self.family.iter().any(|f| f == item.family);
        let grep = self.grep.as_ref().is_none_or(|g| {
            let g = g.to_lowercase();
            [
                item.family,
                item.item.as_str(),
                &item.val.text(),
                item.prov.source,
            ]
            .iter()
            .any(|t| t.to_lowercase().contains(&g))
        });
        family && grep
    }
}

/// Whether an address is device-full or a host-visible offset [000 §2].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// A device-full address.
    Device,
    /// A host-visible offset (device-full minus `0x8_0000_0000`).
    HostVisible,
}

impl Form {
    /// Human label.
    pub fn label(self) -> &'static str {
        match self {
            Form::Device => "device-full",
            Form::HostVisible => "host-visible",
        }
    }
}

/// One value of the matrix, or the typed reason there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Val {
    /// An absolute address.
    Addr(u64, Form),
    /// An offset relative to a window base.
    Offset(u64),
    /// A size in bytes.
    Size(u64),
    /// A raw value whose role the notes do not give (printed in hex).
    Value(u64),
    /// One of two values, selected by a flag argument whose mapping is not
    /// traced ([`FlagSelected`]).
    OneOf([u64; 2]),
    /// A count.
    Count(u64),
    /// A register bit field.
    Field {
        /// In-place mask.
        mask: u32,
        /// Shift.
        shift: u32,
    },
    /// A yes/no property.
    Flag(bool),
    /// Nobody traced the value.
    NotTraced(String),
    /// The feature is absent on this arch (the C 0 sentinel, or no getter).
    Absent(&'static str),
    /// The getter aborts on this arch.
    Unsupported,
}

impl Val {
    fn from_err(e: Error) -> Val {
        match e {
            Error::NotTraced(what) => Val::NotTraced(what.to_string()),
            Error::Unsupported { .. } => Val::Unsupported,
            other => Val::NotTraced(other.to_string()),
        }
    }

    /// The status column.
    pub fn status(&self) -> &'static str {
        match self {
            Val::NotTraced(_) => "not traced",
            Val::Absent(_) => "absent on this arch",
            Val::Unsupported => "unsupported on this arch",
            _ => "traced",
        }
    }

    /// The value column of the table.
    pub fn text(&self) -> String {
        match self {
            Val::Addr(v, _) | Val::Offset(v) | Val::Size(v) | Val::Value(v) => format!("{v:#x}"),
            Val::OneOf([a, b]) => {
                format!("{a:#x} or {b:#x} (a flag selects; which one: not traced)")
            }
            Val::Count(n) => n.to_string(),
            Val::Field { mask, shift } => format!("mask {mask:#x}, shift {shift}"),
            Val::Flag(b) => if *b { "yes" } else { "no" }.to_string(),
            Val::NotTraced(_) => "not traced".to_string(),
            Val::Absent(why) => format!("absent on this arch ({why})"),
            Val::Unsupported => "unsupported on this arch (the C getter aborts)".to_string(),
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Val::Addr(..) => "address",
            Val::Offset(_) => "offset",
            Val::Size(_) => "size",
            Val::Value(_) => "value",
            Val::OneOf(_) => "offset choice",
            Val::Count(_) => "count",
            Val::Field { .. } => "field",
            Val::Flag(_) => "flag",
            Val::NotTraced(_) | Val::Absent(_) | Val::Unsupported => "none",
        }
    }

    fn json(&self) -> Json {
        match self {
            Val::Addr(v, _) | Val::Offset(v) | Val::Size(v) | Val::Value(v) => {
                json!(format!("{v:#x}"))
            }
            Val::OneOf([a, b]) => json!([format!("{a:#x}"), format!("{b:#x}")]),
            Val::Count(n) => json!(n),
            Val::Field { mask, shift } => json!({ "mask": format!("{mask:#x}"), "shift": shift }),
            Val::Flag(b) => json!(b),
            Val::NotTraced(_) | Val::Absent(_) | Val::Unsupported => Json::Null,
        }
    }
}

/// How sure a value is: the grade FACTS gives it (HIGH unless marked MED or
/// LOW, as the notes grade them; every [FACTS §12] value is MED unless §12
/// says otherwise).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Confidence {
    /// The notes' CERTAIN / HIGH (the default grade of FACTS).
    High,
    /// MED: an inference, a derivation, or a value from an earlier revision
    /// of a note that the current text does not confirm [FACTS §12].
    Med,
    /// LOW: the notes' own LOW grade. No value is LOW today: the one LOW
    /// item, the NX `release_run_stall` offset [000 §2], is HIGH since the
    /// per-arch decode of [hw-decode §5b, §7] (§13.10 #6); the scale keeps it.
    #[allow(dead_code)]
    Low,
}

impl Confidence {
    /// `high`, `med` or `low` (the JSON `confidence` field).
    pub fn label(self) -> &'static str {
        match self {
            Confidence::High => "high",
            Confidence::Med => "med",
            Confidence::Low => "low",
        }
    }
}

/// Where a value comes from and how sure it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Prov {
    /// The grade.
    pub confidence: Confidence,
    /// The citation: `[000 §3]`, `[000r1 §3]`, `[kdrv v3 …]`, …
    pub source: &'static str,
}

impl Prov {
    /// A HIGH value from `source`.
    pub const fn high(source: &'static str) -> Prov {
        Prov {
            confidence: Confidence::High,
            source,
        }
    }

    /// A MED value from `source`.
    pub const fn med(source: &'static str) -> Prov {
        Prov {
            confidence: Confidence::Med,
            source,
        }
    }

    /// A LOW value from `source` (none today, see [`Confidence::Low`]).
    #[allow(dead_code)]
    pub const fn low(source: &'static str) -> Prov {
        Prov {
            confidence: Confidence::Low,
            source,
        }
    }
}

/// One row of the matrix.
#[derive(Debug, Clone)]
pub struct Item {
    /// The register family (`tpb`, `hbm`, `seq`, …).
    pub family: &'static str,
    /// The item's name within its family (`tpb[5]`, `seq[pe].seqtop`, …).
    pub item: String,
    /// What the item is indexed by: `("tile", 5)`, `("channel", 2)`, `("engine", 0)`…
    pub index: Option<(&'static str, u32)>,
    /// The value.
    pub val: Val,
    /// Where the value comes from and its grade.
    pub prov: Prov,
}

impl Item {
    /// The mesh half of an address item.
    pub fn mesh_half(&self) -> Option<MeshHalf> {
        match self.val {
            Val::Addr(v, Form::Device) => Some(khal::DeviceAddr(v).mesh_half()),
            _ => None,
        }
    }

    /// The grade of the item, or `None` when there is no value to grade
    /// (not traced: the source then says where the hole is listed).
    pub fn confidence(&self) -> Option<Confidence> {
        match self.val {
            Val::NotTraced(_) => None,
            _ => Some(self.prov.confidence),
        }
    }

    /// The grade column of the table: `high` / `med` / `low`, `-` for a hole.
    pub fn grade_text(&self) -> &'static str {
        self.confidence().map_or("-", Confidence::label)
    }

    fn json(&self) -> Json {
        let mut o = json!({
            "family": self.family,
            "item": self.item,
            "kind": self.val.kind(),
            "value": self.val.json(),
            "status": self.val.status(),
            "confidence": self.confidence().map(Confidence::label),
            "source": self.prov.source,
        });
        if let Some((what, i)) = self.index {
            o["index"] = json!({ what: i });
        }
        if let Val::Addr(_, form) = self.val {
            o["form"] = json!(form.label());
        }
        if let Some(h) = self.mesh_half() {
            o["mesh_half"] = json!(mesh_label(h));
        }
        match &self.val {
            Val::NotTraced(what) => o["note"] = json!(what),
            Val::Absent(why) => o["note"] = json!(why),
            _ => {}
        }
        o
    }
}

/// `low` / `high`.
pub fn mesh_label(h: MeshHalf) -> &'static str {
    match h {
        MeshHalf::Low => "low",
        MeshHalf::High => "high",
    }
}

/// Collects rows.
struct Rows(Vec<Item>);

impl Rows {
    fn push(
        &mut self,
        family: &'static str,
        item: impl Into<String>,
        index: Option<(&'static str, u32)>,
        val: Val,
        prov: Prov,
    ) {
        self.0.push(Item {
            family,
            item: item.into(),
            index,
            val,
            prov,
        });
    }
}

fn res<T>(r: khal::Result<T>, f: impl FnOnce(T) -> Val) -> Val {
    match r {
        Ok(v) => f(v),
        Err(e) => Val::from_err(e),
    }
}

fn eng_idx(e: Engine) -> Option<(&'static str, u32)> {
    Some(("engine", e.index() as u32))
}

/// A register's offset in its window, or the typed reason there is none.
fn reg(x: khal::Result<Reg>) -> Val {
    res(x, |g| Val::Offset(g.offset()))
}

/// A register bit field.
fn field(f: Field) -> Val {
    Val::Field {
        mask: f.mask(),
        shift: f.lo.into(),
    }
}

/// A capability-gated getter's answer when it returns the C 0 sentinel.
fn absent() -> Val {
    Val::Absent("the getter returns the 0 sentinel")
}

/// A capability-gated offset [FACTS §13.9].
fn gated(g: khal::Result<Gated<Offset>>) -> Val {
    match g {
        Ok(Gated::Present(o)) => Val::Offset(o.get()),
        Ok(Gated::Absent) => absent(),
        Err(e) => Val::from_err(e),
    }
}

/// A capability-gated pair of offsets a flag selects between [FACTS §13.9].
fn gated_pair(g: khal::Result<Gated<FlagSelected>>) -> Val {
    match g {
        Ok(Gated::Present(FlagSelected([a, b]))) => Val::OneOf([a.get(), b.get()]),
        Ok(Gated::Absent) => absent(),
        Err(e) => Val::from_err(e),
    }
}

/// A register of an engine bring-up leaf, absent where the leaf is a no-op.
fn gated_reg(g: khal::Result<Gated<Reg>>) -> Val {
    match g {
        Ok(Gated::Present(r)) => Val::Offset(r.offset()),
        Ok(Gated::Absent) => Val::Absent("the leaf is a no-op on this arch"),
        Err(e) => Val::from_err(e),
    }
}

/// The usual grade and source of a family on an arch, as [FACTS] gives them.
/// Items FACTS grades apart (the SP sequencer triple, the DVE name↔slot
/// pairing, the values of an earlier revision…) are pushed with their own
/// [`Prov`] in [`walk`].
fn src(family: &str, arch: ArchId) -> Prov {
    let sunda = arch == ArchId::Sunda;
    match family {
        "identity" => Prov::high("[002 §1], [000 §3]"),
        "tpb.count" if sunda => Prov::high("[kdrv v2 V2_MMAP_TPB_COUNT] (kernel driver)"),
        "tpb.count" => Prov::high("[000 §3] AL_HAL_NUM_TPB_CAYMAN"),
        // One TPB per `V2_MMAP_TPB_SIZE` from `V2_MMAP_TPB_OFFSET`: the
        // per-tile reading of the kernel's region is an interpretation.
        "tpb" if sunda => {
            Prov::med("[kdrv v2] V2_MMAP_TPB_OFFSET/SIZE (kernel driver; tile layout MED)")
        }
        "tpb" => Prov::high("[kdrv v3 V3_MMAP_TPB_n_BASE] (kernel driver), [000 §3]"),
        "psum" if sunda => Prov::high("[000 §3] (not in this band)"),
        "psum" => Prov::high("[000 §3 NOTE]"),
        "preproc" if sunda => Prov::high("[000 §3] (not in this band)"),
        "preproc" => Prov::high("[kdrv v3] (kernel driver), [000 §3]"),
        "hbm" if sunda => Prov::high("[kdrv v2] (kernel driver), [000 §3]"),
        // The v4 kernel headers give MARIANA's channels [FACTS §15.4].
        "hbm" if arch == ArchId::Mariana => {
            Prov::high("[kdrv v4] (kernel driver), [000 §3], [FACTS §15.4]")
        }
        "hbm" => Prov::high("[kdrv v3] (kernel driver), [000 §3]"),
        "hbm.size" => Prov::high("[000 §3]"),
        "hbm.bar" => Prov::high("[000 §3 GOTCHA]"),
        "iram" => Prov::high("[000 §3]"),
        "iram.pe" => Prov::med("[000r1 §3], [FACTS §12.1]"),
        "seq" => Prov::high("[000 §2, §3]"),
        // The note's SP pseudo-code is terse [FACTS §3.2].
        "seq.sp" if !sunda => Prov::med("[000 §2] (terse pseudo-code), [FACTS §3.2]"),
        // The byte-decoded table of the earlier revision against a summary
        // sentence of the current one: the table wins, MED [FACTS §12.1].
        "seq.pool" if sunda => Prov::med("[000r1 §3], [FACTS §12.1]"),
        "seq.pool" | "seq.sp" => Prov::high("[000 §2, §3]"),
        "hw_decode" => Prov::high("[000 §3]"),
        "dve" => Prov::high("[000 §3, §4]"),
        // Offsets HIGH, the name↔slot pairing MED [000 §3 CORRECTION]: the
        // items are named, so they carry the pairing's grade.
        "dve.offsets" => Prov::med("[000 §3 CORRECTION] (offsets HIGH, name↔slot pairing MED)"),
        "dve.sizes" if sunda => Prov::med("[000r1 §3], [FACTS §12.1]"),
        // The values are HIGH [arch-stpb §2]; which name each belongs to is
        // the pairing's MED [FACTS §13.9].
        "dve.sizes" => Prov::med("[000r1 §3], [arch-stpb §2] (sizes HIGH, name↔slot pairing MED)"),
        "cap_cfg" => Prov::high("[000 §3]"),
        // MARIANA's values of the earlier revision (MED); elsewhere the 0
        // sentinel, which both revisions give.
        "cap_cfg.r1" if arch == ArchId::Mariana => Prov::med("[000r1 §3], [FACTS §12.1]"),
        "cap_cfg.r1" => Prov::high("[000 §3], [000r1 §3]"),
        "act" if sunda => Prov::high("[000r1 §3] (not in this band)"),
        "act" => Prov::med("[000r1 §3], [FACTS §12.1]"),
        "topsp" => Prov::high("[000 §2, §3], [topsp §3a, §8]"),
        // MARIANA's window rests on "Cayman-like" [FACTS §13.1, §13.2].
        "topsp.window" if arch == ArchId::Mariana => {
            Prov::med("[q7 §6b, §9] (\"as CAYMAN\"), [FACTS §13.11, §15.3]")
        }
        "topsp.window" => Prov::high("[q7 §6a-§6b], [topsp §3a]"),
        "topsp.mariana" => Prov::high("[ncfw §4.7] (byte-checked)"),
        "topsp.init" if sunda => Prov::med("[000r1 §3], [FACTS §12.1, §13.11]"),
        // Only [000 §2]; the sibling pages do not give it [FACTS §13.11].
        "topsp.bbs" if sunda => Prov::med("[000 §2 QUIRK], [FACTS §3.6, §13.11]"),
        "topsp.bbs" => Prov::high("[000 §2, §3], [topsp §9]"),
        "topsp.init" => Prov::high("[topsp §3a]"),
        "nx_local" if sunda => Prov::high("[004 §5]"),
        "nx_local" => Prov::high("[000 §2, §3]"),
        // §13.10 #6: the per-arch decode (+0x00, SUNDA +0x04) replaces the
        // LOW reading of [000 §2].
        "nx_local.release_run_stall" => Prov::high("[hw-decode §5b, §7], [FACTS §13.4]"),
        // MARIANA's rests on CAYMAN's too [FACTS §15.3].
        "nx_local.r1" if arch == ArchId::Mariana => Prov::med("[000r1 §3], [FACTS §12.1, §15.3]"),
        "nx_local.r1" => Prov::med("[000r1 §3], [FACTS §12.1]"),
        "nx_local.stpb" => Prov::high("[arch-stpb §1, §3], [FACTS §13.6]"),
        "nx_local.release" => Prov::high("[hw-decode §5-§7], [csr §4, §7], [FACTS §13.4]"),
        // "as CAYMAN", kept MED as [FACTS §13.11] allows, with the device-side
        // support of [FACTS §15.3]; never HIGH.
        "xt_window" if arch == ArchId::Mariana => {
            Prov::med("[q7 §6b, §9] (\"Cayman-like\"), [FACTS §13.1, §13.11, §15.3]")
        }
        "xt_window" => Prov::high("[q7 §6a-§6b], [FACTS §13.1]"),
        "hw_decode.r13" => Prov::high("[hw-decode §1-§3], [FACTS §13.5]"),
        // §13.10 #1: eng 2 / eng 3 disputed, FACTS kept (MED).
        "hw_decode.disputed" => Prov::med("[000 §3], [devmap-pool §1-§2] (§13.10 #1)"),
        "q7" => Prov::high("[q7 §2-§3], [FACTS §13.3]"),
        // Derived (MED) on SUNDA only; CAYMAN = MARIANA match the RTL map.
        "q7.derived" if sunda => Prov::med("[ucode §3] (derived), [FACTS §13.3]"),
        "q7.derived" => Prov::high("[ucode §3], [devmap-pool §3], [FACTS §13.3]"),
        "dge" => Prov::high("[arch-stpb §3], [FACTS §13.8]"),
        "dge.reg" => Prov::med("[000r1 §3], [devmap-dma §6.3], [FACTS §13.8]"),
        "sdma" => Prov::high("[hal-registers §4], [FACTS §13.9]"),
        "seq.relbase" => Prov::med("[000r1 §3], [FACTS §12.1]"),
        "tpb_regs" => Prov::high("[arch-stpb §4], [FACTS §13.7]"),
        "slots" => Prov::high("[002r1 §3], [FACTS §12.2]"),
        "slots.q7" => Prov::high("[q7 §4, §5], [FACTS §13.3]"),
        "slots.notific" => Prov::high("[004 §1, §3], [FACTS §4]"),
        "slots.notific.r1" => Prov::med("[004r1 §1], [FACTS §12.3]"),
        "intc.r1" => Prov::med("[004r1 §4], [FACTS §12.3]"),
        "notific_mask" => Prov::high("[002 §4]"),
        "intc" => Prov::high("[004 §4]"),
        _ => Prov::high("[FACTS]"),
    }
}

/// Walk every family of `A` into rows, in the order the table prints them.
pub fn walk<A: Arch>() -> Vec<Item> {
    let steps: [fn(&mut Rows); 20] = [
        identity::<A>,
        tpb::<A>,
        hbm::<A>,
        iram::<A>,
        seq::<A>,
        hw_decode::<A>,
        dve::<A>,
        act::<A>,
        cap_cfg::<A>,
        topsp::<A>,
        nx_local::<A>,
        nx_local_fields::<A>,
        nx_local_leaves::<A>,
        xt_windows::<A>,
        q7::<A>,
        dge_sdma::<A>,
        slots::<A>,
        notific_masks::<A>,
        msix::<A>,
        nq_mailbox::<A>,
    ];
    let mut r = Rows(Vec::new());
    for step in steps {
        step(&mut r);
    }
    r.0
}

/// The identity: the arch id and the engine count.
fn identity<A: Arch>(r: &mut Rows) {
    let s = |f| src(f, A::ID);
    r.push(
        "identity",
        "arch id",
        None,
        Val::Count(A::ID.id().into()),
        s("identity"),
    );
    r.push(
        "identity",
        "engines",
        None,
        Val::Count(Engine::ALL.len() as u64),
        s("identity"),
    );
}

/// The TPBs, their PSUM and the PREPROC windows.
fn tpb<A: Arch>(r: &mut Rows) {
    let s = |f| src(f, A::ID);
    r.push(
        "tpb",
        "tpb count",
        None,
        Val::Count(A::TPB_BASES.len() as u64),
        s("tpb.count"),
    );
    for t in Tile::<A>::all() {
        let idx = Some(("tile", t.index()));
        r.push(
            "tpb",
            format!("tpb[{}]", t.index()),
            idx,
            Val::Addr(A::tpb_base(t).get(), Form::Device),
            s("tpb"),
        );
    }
    for t in Tile::<A>::all() {
        let idx = Some(("tile", t.index()));
        let v = res(A::psum_base(t), |a| Val::Addr(a.get(), Form::Device));
        r.push("psum", format!("psum[{}]", t.index()), idx, v, s("psum"));
    }
    match A::PREPROC_BASES {
        Ok(bases) => {
            r.push(
                "preproc",
                "preproc count (kdrv windows)",
                None,
                Val::Count(bases.len() as u64),
                s("preproc"),
            );
            for (i, a) in (0u32..).zip(bases) {
                r.push(
                    "preproc",
                    format!("preproc[{i}]"),
                    Some(("window", i)),
                    Val::Addr(a.get(), Form::Device),
                    s("preproc"),
                );
            }
        }
        Err(e) => r.push(
            "preproc",
            "preproc bases",
            None,
            Val::from_err(e),
            s("preproc"),
        ),
    }
    r.push(
        "preproc",
        "preproc size",
        None,
        res(A::PREPROC_SIZE, Val::Size),
        s("preproc"),
    );
    r.push(
        "preproc",
        "libnrt preproc table length",
        None,
        Val::NotTraced("libnrt preproc table length".into()),
        s("preproc"),
    );
}

/// The HBM channels and their sizes.
fn hbm<A: Arch>(r: &mut Rows) {
    let s = |f| src(f, A::ID);
    r.push(
        "hbm",
        "hbm channels",
        None,
        Val::Count(A::HBM.channel_bases.len() as u64),
        s("hbm"),
    );
    for (i, base) in (0u32..).zip(A::HBM.channel_bases) {
        r.push(
            "hbm",
            format!("hbm[{i}]"),
            Some(("channel", i)),
            Val::Addr(base.get(), Form::Device),
            s("hbm"),
        );
    }
    r.push(
        "hbm",
        "get_hbm_size (usable per channel)",
        None,
        Val::Size(A::HBM.usable_size.0),
        s("hbm.size"),
    );
    r.push(
        "hbm",
        "bar window per channel",
        None,
        res(A::HBM.bar_window, |w| Val::Size(w.0)),
        s("hbm.bar"),
    );
}

/// The IRAM size of each engine.
fn iram<A: Arch>(r: &mut Rows) {
    let s = |f| src(f, A::ID);
    for e in Engine::ALL {
        r.push(
            "iram",
            format!("iram[{e}]"),
            eng_idx(e),
            res(A::iram_size(e), Val::Size),
            s(if e == Engine::Pe { "iram.pe" } else { "iram" }),
        );
    }
}

/// Each engine's sequencer triple, device-full and host-visible, and the sizes.
fn seq<A: Arch>(r: &mut Rows) {
    let s = |f| src(f, A::ID);
    for e in Engine::ALL {
        let ps = s(match e {
            Engine::Pool => "seq.pool",
            Engine::Sp => "seq.sp",
            _ => "seq",
        });
        let name = |part: &str, hv: bool| {
            if hv {
                format!("seq[{e}].{part} (host-visible)")
            } else {
                format!("seq[{e}].{part}")
            }
        };
        match A::seq_params(e) {
            Ok(t) => {
                for (part, a) in [("seq", t.seq), ("seqtop", t.seqtop), ("hostvis", t.hostvis)] {
                    r.push(
                        "seq",
                        name(part, false),
                        eng_idx(e),
                        Val::Addr(a.get(), Form::Device),
                        ps,
                    );
                }
            }
            Err(err) => r.push(
                "seq",
                format!("seq[{e}]"),
                eng_idx(e),
                Val::from_err(err),
                ps,
            ),
        }
        match A::seq_params_host_visible(e) {
            Ok(t) => {
                for (part, a) in [("seq", t.seq), ("seqtop", t.seqtop), ("hostvis", t.hostvis)] {
                    r.push(
                        "seq",
                        name(part, true),
                        eng_idx(e),
                        Val::Addr(a.get(), Form::HostVisible),
                        ps,
                    );
                }
            }
            Err(err) => r.push(
                "seq",
                format!("seq[{e}] (host-visible)"),
                eng_idx(e),
                Val::from_err(err),
                ps,
            ),
        }
    }
    r.push("seq", "sz1", None, Val::Size(A::SEQ_SIZES.sz1), s("seq"));
    r.push("seq", "sz2", None, Val::Size(A::SEQ_SIZES.sz2), s("seq"));
}

/// The HW-decode CAM and table of each engine: the four outs, bit 35 always
/// folded [FACTS §13.5].
fn hw_decode<A: Arch>(r: &mut Rows) {
    let s = |f| src(f, A::ID);
    for e in Engine::ALL {
        let prov = if matches!(e, Engine::Pool | Engine::Dve) {
            s("hw_decode.disputed")
        } else {
            s("hw_decode.r13")
        };
        match A::hw_decode_table_params(e) {
            Ok(p) => {
                for (n, v) in [
                    ("cam_base", Val::Addr(p.cam_base.get(), Form::HostVisible)),
                    ("cam_size", Val::Size(p.cam_size)),
                    (
                        "table_base",
                        Val::Addr(p.table_base.get(), Form::HostVisible),
                    ),
                    ("table_size", Val::Size(p.table_size)),
                ] {
                    r.push(
                        "hw_decode",
                        format!("hw_decode[{e}].{n}"),
                        eng_idx(e),
                        v,
                        prov,
                    );
                }
            }
            Err(err) => r.push(
                "hw_decode",
                format!("hw_decode[{e}]"),
                eng_idx(e),
                Val::from_err(err),
                prov,
            ),
        }
    }
}

/// The DVE tables' offsets and sizes and the parameter RAM.
fn dve<A: Arch>(r: &mut Rows) {
    let s = |f| src(f, A::ID);
    match A::DVE_TABLES.offsets {
        Some(o) => {
            for (n, off) in [
                ("opcode", o.opcode),
                ("control_fast", o.control_fast),
                ("control_slow", o.control_slow),
                ("datapath", o.datapath),
            ] {
                r.push(
                    "dve",
                    format!("dve table offset {n}"),
                    None,
                    Val::Offset(off.get()),
                    s("dve.offsets"),
                );
            }
        }
        None => r.push(
            "dve",
            "dve table offsets",
            None,
            Val::Absent("no offset getter"),
            s("dve"),
        ),
    }
    let sizes = A::DVE_TABLES.sizes;
    for (n, size) in [
        ("opcode", sizes.opcode),
        ("control_fast", sizes.control_fast),
        ("control_slow", sizes.control_slow),
        ("datapath", sizes.datapath),
    ] {
        r.push(
            "dve",
            format!("dve table size {n}"),
            None,
            Val::Size(size),
            s("dve.sizes"),
        );
    }
    r.push(
        "dve",
        "dve param ram base",
        None,
        Val::Offset(A::DVE_TABLES.param_ram_base.get()),
        s("dve"),
    );
    r.push(
        "dve",
        "dve param ram size",
        None,
        Val::Size(A::DVE_TABLES.param_ram_size),
        s("dve"),
    );
    r.push(
        "dve",
        "dve loads control_slow",
        None,
        Val::Flag(A::DVE_TABLES.loads_control_slow),
        s("dve"),
    );
}

/// The ACT table parameters: four raw out-param values [000r1 §3].
fn act<A: Arch>(r: &mut Rows) {
    let s = |f| src(f, A::ID);
    match A::act_table_params() {
        Ok(p) => {
            for (i, v) in p.iter().enumerate() {
                r.push(
                    "act",
                    format!("act table param[{i}]"),
                    Some(("out-param", i as u32)),
                    Val::Value(*v),
                    s("act"),
                );
            }
        }
        Err(e) => r.push("act", "act table params", None, Val::from_err(e), s("act")),
    }
}

/// The capability-gated config offsets: the five getters [FACTS §13.9].
fn cap_cfg<A: Arch>(r: &mut Rows) {
    let s = |f| src(f, A::ID);
    r.push(
        "cap_cfg",
        "sdma_cce_user_offset",
        None,
        gated(A::CAP_CFG.sdma_cce_user),
        s("cap_cfg.r1"),
    );
    r.push(
        "cap_cfg",
        "sdma_data_conv_non_ocp_cfg_offset",
        None,
        gated_pair(A::CAP_CFG.sdma_data_conv_non_ocp),
        s("cap_cfg.r1"),
    );
    r.push(
        "cap_cfg",
        "sdma_data_conv_fp8_ocp_cfg_offset",
        None,
        gated_pair(A::CAP_CFG.sdma_data_conv_fp8_ocp),
        s("cap_cfg.r1"),
    );
    r.push(
        "cap_cfg",
        "dve_sequencer_emax_cfg_offset",
        None,
        gated(A::CAP_CFG.dve_sequencer_emax),
        s("cap_cfg.r1"),
    );
    for e in Engine::ALL {
        r.push(
            "cap_cfg",
            format!("fp8 cfg offset[{e}]"),
            eng_idx(e),
            gated(A::eng_fp8_cfg_offset(e)),
            s("cap_cfg"),
        );
    }
}

/// The TopSP-NX window and doorbells [FACTS §3.6, §12.1, §13.2].
fn topsp<A: Arch>(r: &mut Rows) {
    let s = |f| src(f, A::ID);
    let mariana = A::ID == ArchId::Mariana;
    let topsp_prov = |n: &str| match n {
        "window base" => s("topsp.window"),
        "basic_block_switch" | "host_trigger" if mariana => s("topsp.mariana"),
        "basic_block_switch" => s("topsp.bbs"),
        "init_signal" => s("topsp.init"),
        _ => s("topsp"),
    };
    for (n, v) in [
        ("window base", A::TOPSP.window_base),
        ("stop_signal", A::TOPSP.stop_signal),
        ("basic_block_switch", A::TOPSP.basic_block_switch),
        ("host_trigger", A::TOPSP.host_trigger),
        ("init_signal", A::topsp_doorbell(Doorbell::InitSignal)),
        ("tsync_signal", A::topsp_doorbell(Doorbell::TsyncSignal)),
    ] {
        r.push(
            "topsp",
            format!("topsp {n}"),
            None,
            res(v, |o| Val::Offset(o.get())),
            topsp_prov(n),
        );
    }
}

/// The NX / XT local registers.
fn nx_local<A: Arch>(r: &mut Rows) {
    let s = |f| src(f, A::ID);
    let nx = A::NX_LOCAL_REGS;
    r.push(
        "nx_local",
        "start_ctrl",
        None,
        reg(nx.start_ctrl),
        s("nx_local"),
    );
    r.push(
        "nx_local",
        "notific_sw_queue_num2",
        None,
        reg(nx.notific_sw_queue_num2),
        s("nx_local"),
    );
    r.push(
        "nx_local",
        "notific_sw_queue_num2.events_semaphores_nt",
        None,
        res(nx.events_semaphores_nt, field),
        s("nx_local"),
    );
    r.push(
        "nx_local",
        "release_run_stall",
        None,
        reg(nx.release_run_stall),
        s("nx_local.release_run_stall"),
    );
    let rsvd = match nx.nx_rsvd_space {
        Ok(rs) => rs.map(Ok),
        Err(e) => [Err(e); 3],
    };
    for (i, v) in rsvd.into_iter().enumerate() {
        let v = reg(v);
        r.push(
            "nx_local",
            format!("nx_rsvd_space{i}"),
            None,
            v,
            s("nx_local"),
        );
    }
    r.push(
        "nx_local",
        "xt memcopy_dmas",
        None,
        res(nx.memcopy_dmas_offset, |o| Val::Offset(o.get())),
        s("nx_local"),
    );
    for (n, v) in [
        ("start_addr_lo", reg(nx.start_addr_lo)),
        ("start_addr_hi", reg(nx.start_addr_hi)),
        ("notific_ctrl", reg(nx.notific_ctrl)),
        ("notific_sw_queue_num3", reg(nx.notific_sw_queue_num3)),
        ("notific_sw_queue_num4", reg(nx.notific_sw_queue_num4)),
        (
            "xt memcopy_queues",
            res(nx.memcopy_queues_offset, |o| Val::Offset(o.get())),
        ),
        (
            "xt memcopy_all",
            res(nx.memcopy_all_offset, |o| Val::Offset(o.get())),
        ),
        ("dma_regs lo a", reg(nx.dma_regs.map(|d| d[0]))),
        ("dma_regs lo b", reg(nx.dma_regs.map(|d| d[1]))),
        ("dma_regs hi", reg(nx.dma_regs.map(|d| d[2]))),
    ] {
        r.push("nx_local", n, None, v, s("nx_local.r1"));
    }
}

/// The NX / XT local fields of the earlier revision.
fn nx_local_fields<A: Arch>(r: &mut Rows) {
    let s = |f| src(f, A::ID);
    let nx = A::NX_LOCAL_REGS;
    r.push(
        "nx_local",
        "notific_sw_queue_num3.errors_nt",
        None,
        res(nx.errors_nt, field),
        s("nx_local.r1"),
    );
    r.push(
        "nx_local",
        "notific_sw_queue_num4.ham_throttle",
        None,
        res(nx.ham_throttle_fields, |(h, _)| field(h)),
        s("nx_local.r1"),
    );
    r.push(
        "nx_local",
        "notific_sw_queue_num4.ham_throttle_en",
        None,
        res(nx.ham_throttle_fields, |(_, e)| field(e)),
        s("nx_local.r1"),
    );
}

/// The NX / XT local registers of the engine bring-up leaves.
fn nx_local_leaves<A: Arch>(r: &mut Rows) {
    let s = |f| src(f, A::ID);
    let nx = A::NX_LOCAL_REGS;
    // SUNDA's dma_ctrl is decoded from its dma_init [arch-stpb §3].
    let dma_prov = if A::ID == ArchId::Sunda {
        s("nx_local.stpb")
    } else {
        s("nx_local.r1")
    };
    r.push("nx_local", "dma_ctrl", None, reg(nx.dma_ctrl), dma_prov);
    r.push(
        "nx_local",
        "xt iram_cache_block_size",
        None,
        reg(nx.iram_cache_block_size),
        s("nx_local.stpb"),
    );
    r.push(
        "nx_local",
        "xt q7_release_run_stall",
        None,
        gated_reg(nx.q7_release_run_stall),
        s("nx_local.release"),
    );
    r.push(
        "nx_local",
        "xt hw_decode_control",
        None,
        gated_reg(nx.hw_decode_control),
        s("nx_local.release"),
    );
}

/// The XT/NX window of each engine; eng 4 by owner (0 TopSP, 1 SP)
/// [FACTS §13.1].
fn xt_windows<A: Arch>(r: &mut Rows) {
    let s = |f| src(f, A::ID);
    for (e, owner) in [
        (Engine::Pe, 1u8),
        (Engine::Act, 1),
        (Engine::Pool, 1),
        (Engine::Dve, 1),
        (Engine::Sp, 0),
        (Engine::Sp, 1),
    ] {
        let name = if e == Engine::Sp {
            format!("xt_local_reg_offset[{e}, owner {owner}]")
        } else {
            format!("xt_local_reg_offset[{e}]")
        };
        r.push(
            "nx_local",
            name,
            eng_idx(e),
            res(A::xt_local_reg_offset(e.index() as u32, owner), |o| {
                Val::Offset(o.get())
            }),
            s("xt_window"),
        );
    }
    r.push(
        "nx_local",
        "xt_local_reg_offset[5]",
        None,
        // SUNDA asserts on eng > 4: no such window (not a hole in the data).
        match A::xt_local_reg_offset(5, 0) {
            Ok(o) => Val::Offset(o.get()),
            Err(Error::OutOfRange { .. }) => Val::Unsupported,
            Err(e) => Val::from_err(e),
        },
        s("xt_window"),
    );
}

/// The Q7 parameters: the six outs per owner and the derived per-core layout
/// [FACTS §13.3].
fn q7<A: Arch>(r: &mut Rows) {
    let s = |f| src(f, A::ID);
    for owner in [Q7Owner::Pooling, Q7Owner::ComputeCluster] {
        let o = owner as u32;
        let idx = Some(("owner", o));
        match A::q7_params(owner) {
            Ok(p) => {
                for (n, v, prov) in [
                    ("base", Val::Offset(p.base.get()), s("q7")),
                    ("iram_size", Val::Size(p.iram_size), s("q7")),
                    ("dram_size", Val::Size(p.dram_size), s("q7")),
                    ("iram_rsvd", Val::Size(p.iram_rsvd), s("q7")),
                    ("dram_rsvd", Val::Size(p.dram_rsvd), s("q7")),
                    ("num_q7", Val::Count(p.num_q7.into()), s("q7")),
                    ("per-core stride", Val::Size(p.stride()), s("q7.derived")),
                    (
                        "dram - iram",
                        Val::Size(p.dram(0).get() - p.iram(0).get()),
                        s("q7.derived"),
                    ),
                ] {
                    r.push("q7", format!("q7[owner {o}].{n}"), idx, v, prov);
                }
            }
            Err(e) => r.push(
                "q7",
                format!("q7[owner {o}]"),
                idx,
                Val::from_err(e),
                s("q7"),
            ),
        }
    }
}

/// DGE, SDMA, the PE-sequencer relbase, the tpb_regs gates [FACTS §12.1,
/// §13.7-§13.9].
fn dge_sdma<A: Arch>(r: &mut Rows) {
    let s = |f| src(f, A::ID);
    r.push(
        "dge",
        "dge carveout cap",
        None,
        Val::Size(A::DGE_CARVEOUT_CAP.into()),
        s("dge"),
    );
    r.push(
        "dge",
        "sw_dge_carveout",
        None,
        reg(A::NX_LOCAL_REGS.sw_dge_carveout),
        s("dge.reg"),
    );
    r.push(
        "dge",
        "sw_dge_dma_mapping",
        None,
        reg(A::NX_LOCAL_REGS.sw_dge_dma_mapping),
        s("dge.reg"),
    );
    let l = A::SDMA_LIMITS;
    for (n, v) in [
        ("sdma max_fma_sources", l.max_fma_sources),
        ("sdma max_cce_elements", l.max_cce_elements),
        ("sdma max_hw_dge_count", l.max_hw_dge_count),
    ] {
        r.push("sdma", n, None, Val::Count(v.into()), s("sdma"));
    }
    r.push(
        "seq",
        "pe-sequencer topsp host-visible relbase",
        None,
        res(A::pe_seq_topsp_relbase(), |o| Val::Offset(o.get())),
        s("seq.relbase"),
    );
    r.push(
        "tpb_regs",
        "dve rspcomb (force_rspcomb_eight_deep)",
        None,
        gated(Ok(A::RSPCOMB_EIGHT_DEEP)),
        s("tpb_regs"),
    );
}

/// The dispatch slots (kaena_khal offsets) with their grade and NULL policy
/// [002r1 §3], [004 §1], [FACTS §12.2, §12.3, §13.3].
fn slots<A: Arch>(r: &mut Rows) {
    use khal::engine::slots::{NullPolicy, SlotGrade, SubTable, SLOTS};
    let s = |f| src(f, A::ID);
    for slot in SLOTS {
        let high = slot.grade == SlotGrade::High;
        let mut prov = match slot.table {
            SubTable::Engine(_) => s("slots"),
            SubTable::Q7 => s("slots.q7"),
            _ if high => s("slots.notific"),
            _ => s("slots.notific.r1"),
        };
        if !high {
            prov.confidence = Confidence::Med;
        }
        let name = format!("slot {}.{}", slot.table.name(), slot.op);
        r.push("slots", name, None, Val::Offset(slot.offset.into()), prov);
    }
    // What a NULL Q7 slot does is in no source (not Pooling's return 0).
    if let Some(q7) = SLOTS.iter().find(|x| x.table == SubTable::Q7) {
        debug_assert_eq!(q7.null_policy(), NullPolicy::NotTraced);
        r.push(
            "slots",
            "q7 slots: null policy",
            None,
            Val::NotTraced("null policy of the q7 slots".into()),
            s("slots.q7"),
        );
    }
}

/// The notification masks.
fn notific_masks<A: Arch>(r: &mut Rows) {
    let s = |f| src(f, A::ID);
    for m in NotificMask::ALL {
        r.push(
            "notific_mask",
            format!("{} mask", m.name()),
            None,
            res(A::notific_mask(m), |v| Val::Offset(v.into())),
            s("notific_mask"),
        );
    }
}

/// MARIANA's MSI-X details of the earlier revision (MED) [004r1 §4],
/// [FACTS §12.3].
fn msix<A: Arch>(r: &mut Rows) {
    let s = |f| src(f, A::ID);
    if A::ID == ArchId::Mariana {
        let reg = |name| MSIX.regs.iter().find(|r| r.name == name);
        let fld = |r, name| {
            reg(r)
                .and_then(|r| r.fields.iter().find(|f| f.name == name))
                .map_or(Val::Absent("not in the MSI-X description"), |f| field(*f))
        };
        r.push(
            "intc",
            "msix mod_timer_ctrl.reset",
            None,
            fld("mod_timer_ctrl", "RESET"),
            s("intc.r1"),
        );
        r.push(
            "intc",
            "msix interval groups",
            None,
            reg("interval")
                .and_then(|r| r.array)
                .map_or(Val::Absent("not in the MSI-X description"), |a| {
                    Val::Count(a.count.into())
                }),
            s("intc.r1"),
        );
        r.push(
            "intc",
            "msix interval[grp] field",
            None,
            fld("interval", "INTERVAL"),
            s("intc.r1"),
        );
    }
}

/// The INTC NQ mailbox map.
fn nq_mailbox<A: Arch>(r: &mut Rows) {
    let s = |f| src(f, A::ID);
    match A::NQ_MAILBOX_MAP {
        Ok(map) => {
            for (i, a) in map.iter().enumerate() {
                r.push(
                    "intc",
                    format!("nq mailbox[{i}]"),
                    Some(("entry", i as u32)),
                    Val::Addr(a.get(), Form::Device),
                    s("intc"),
                );
            }
        }
        Err(e) => r.push("intc", "nq mailbox map", None, Val::from_err(e), s("intc")),
    }
}

/// The matrix of one arch.
pub fn items(arch: ArchId) -> Vec<Item> {
    match arch {
        ArchId::Sunda => walk::<Sunda>(),
        ArchId::Cayman => walk::<Cayman>(),
        ArchId::Mariana => walk::<Mariana>(),
    }
}

/// Split `text` into lines of at most `width` characters, at spaces when
/// it can (a longer word is cut).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        loop {
            let used = line.chars().count();
            let sep = usize::from(used > 0);
            if used + sep + word.len() <= width {
                if sep == 1 {
                    line.push(' ');
                }
                line.extend(word.iter());
                break;
            }
            if used > 0 {
                lines.push(std::mem::take(&mut line));
                continue;
            }
            let rest = word.split_off(width);
            lines.push(word.iter().collect());
            word = rest;
        }
    }
    lines.push(line);
    lines
}

/// The column widths of the table: each column's widest cell, then, if the
/// row is wider than `width`, the source, value and item columns give way
/// (in that order, down to a floor each) and their cells wrap.
fn widths(rows: &[Item], width: Option<usize>) -> [usize; 4] {
    let widest =
        |f: &dyn Fn(&Item) -> usize, min: usize| rows.iter().map(f).max().unwrap_or(min).max(min);
    let fam = widest(&|r| r.family.len(), 6);
    let mut item = widest(&|r| r.item.chars().count(), 4);
    let mut val = widest(&|r| r.val.text().chars().count(), 5);
    let mut source = widest(&|r| r.prov.source.chars().count(), 6);
    let Some(width) = width else {
        return [fam, item, val, source];
    };
    // Four gaps of two and the grade column.
    let fixed = fam + 2 + 2 + 2 + 5 + 2;
    let give =
        |col: usize, floor: usize, excess: usize| col - col.saturating_sub(floor).min(excess);
    source = give(
        source,
        16,
        (fixed + item + val + source).saturating_sub(width),
    );
    val = give(val, 14, (fixed + item + val + source).saturating_sub(width));
    item = give(
        item,
        14,
        (fixed + item + val + source).saturating_sub(width),
    );
    [fam, item, val, source]
}

fn table(arch: ArchId, rows: &[Item], width: Option<usize>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "khal register matrix: {} (arch {})",
        arch.name(),
        arch.id()
    );
    let [w_fam, w_item, w_val, w_src] = widths(rows, width);
    let mut line = |fam: &str, item: &str, val: &str, grade: &str, src: &str| {
        let cells = [wrap(item, w_item), wrap(val, w_val), wrap(src, w_src)];
        let n = cells.iter().map(Vec::len).max().unwrap_or(1);
        for k in 0..n {
            let cell = |c: &Vec<String>| c.get(k).cloned().unwrap_or_default();
            let (f, g) = if k == 0 { (fam, grade) } else { ("", "") };
            let row = format!(
                "{f:w_fam$}  {:w_item$}  {:w_val$}  {g:5}  {}",
                cell(&cells[0]),
                cell(&cells[1]),
                cell(&cells[2])
            );
            let _ = writeln!(out, "{}", row.trim_end());
        }
    };
    line("family", "item", "value", "grade", "source");
    for r in rows {
        line(
            r.family,
            &r.item,
            &r.val.text(),
            r.grade_text(),
            r.prov.source,
        );
    }
    if rows.is_empty() {
        let _ = writeln!(out, "(no item matches the filters)");
    }
    out
}

fn to_json(arch: ArchId, rows: &[Item]) -> Json {
    json!({
        "schema": SCHEMA,
        "arch": arch.name(),
        "id": arch.id(),
        "items": rows.iter().map(Item::json).collect::<Vec<_>>(),
    })
}

fn diff(a: ArchId, b: ArchId) -> String {
    let index = |rows: Vec<Item>| -> BTreeMap<(String, String), String> {
        rows.into_iter()
            .map(|r| ((r.family.to_string(), r.item), r.val.text()))
            .collect()
    };
    let (ra, rb) = (index(items(a)), index(items(b)));
    let mut keys: Vec<&(String, String)> = ra.keys().chain(rb.keys()).collect();
    keys.sort();
    keys.dedup();
    let absent = "(no such item)".to_string();
    let rows: Vec<(&(String, String), &String, &String)> = keys
        .into_iter()
        .filter_map(|k| {
            let va = ra.get(k).unwrap_or(&absent);
            let vb = rb.get(k).unwrap_or(&absent);
            (va != vb).then_some((k, va, vb))
        })
        .collect();
    let w_fam = rows.iter().map(|r| r.0 .0.len()).max().unwrap_or(6).max(6);
    let w_item = rows.iter().map(|r| r.0 .1.len()).max().unwrap_or(4).max(4);
    let w_a = rows
        .iter()
        .map(|r| r.1.len())
        .max()
        .unwrap_or(0)
        .max(a.name().len());
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:w_fam$}  {:w_item$}  {:w_a$}  {}",
        "family",
        "item",
        a.name(),
        b.name()
    );
    if rows.is_empty() {
        let _ = writeln!(out, "(no item differs between {a} and {b})");
    }
    for ((fam, item), va, vb) in rows {
        let _ = writeln!(out, "{fam:w_fam$}  {item:w_item$}  {va:w_a$}  {vb}");
    }
    out
}

/// Run `khal map`; the table's rows wrap to fit `width` columns (none: one
/// line per item).
pub fn run(args: &MapArgs, width: Option<usize>) -> Result<String, String> {
    if let Some(pair) = &args.diff {
        let (a, b) = match pair.as_slice() {
            [a, b] => (a.id(), b.id()),
            _ => return Err("--diff takes exactly two arches".into()),
        };
        if a == b {
            // Nothing can differ: say so rather than print an empty table.
            return Ok(format!(
                "{a} and {b} are the same arch: no item differs (--diff takes two different arches)\n"
            ));
        }
        return Ok(diff(a, b));
    }
    let arch = args
        .arch
        .ok_or("--arch <sunda|cayman|mariana> is required")?
        .id();
    let rows: Vec<Item> = items(arch).into_iter().filter(|i| args.keeps(i)).collect();
    if args.json {
        serde_json::to_string_pretty(&to_json(arch, &rows))
            .map(|s| s + "\n")
            .map_err(|e| format!("cannot render JSON: {e}"))
    } else {
        Ok(table(arch, &rows, width))
    }
}
