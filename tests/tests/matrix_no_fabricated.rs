//! The fabricated DVE values of an earlier revision of the notes appear nowhere
//! in the source tree [000 §3 CORRECTION], [FACTS §3.4], and the retractions
//! [FACTS §12] keeps stay retracted (the mesh-marker reading of `0x8_0270_1800`).
//! (Its third retraction, 000's `.data` delta, is a value khal never had.)
//!
//! The needles are built at run time so this file does not contain them.

use std::path::{Path, PathBuf};

use khal::family::DveTables;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ lives inside the workspace")
        .to_path_buf()
}

/// Every `.rs` and `.toml` file under `dir`, skipping build output and git.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("readable dir") {
        let path = entry.expect("dir entry").path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if name.starts_with("target") || name.starts_with('.') {
                continue;
            }
            sources(&path, out);
        } else if name.ends_with(".rs") || name.ends_with(".toml") {
            out.push(path);
        }
    }
}

/// File text, lowercased, with `_` digit separators removed.
fn normalized(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .to_lowercase()
        .replace('_', "")
}

/// `0x2b7` + the given tail, built at run time.
fn needle(tail: &str) -> String {
    format!("{}{}{}", "0x", "2b7", tail)
}

#[test]
fn fabricated_table_offsets_appear_nowhere() {
    let needles: Vec<String> = ["b000", "9000", "a000", "f000"]
        .iter()
        .map(|t| needle(t))
        .collect();
    let mut files = Vec::new();
    sources(&workspace_root(), &mut files);
    assert!(files.len() > 10, "the walk found the source tree");
    for f in &files {
        let text = normalized(f);
        for n in &needles {
            assert!(!text.contains(n.as_str()), "{} contains {n}", f.display());
        }
    }
}

#[test]
fn fabricated_mariana_param_ram_base_appears_nowhere() {
    // As a value: MARIANA's param RAM is CAYMAN's `0x2B8_7000` [000 §3 CORRECTION].
    let fabricated = u64::from_str_radix(&format!("{}{}", "2b8", "0000"), 16).unwrap();
    assert_ne!(
        <khal::Mariana as DveTables>::DVE_TABLES
            .param_ram_base
            .get(),
        fabricated
    );
    assert_eq!(
        <khal::Mariana as DveTables>::DVE_TABLES
            .param_ram_base
            .get(),
        0x2B8_7000
    );
    // As text: nowhere in MARIANA's crate (the same number is CAYMAN's
    // legitimate control_fast offset, so only MARIANA's sources are searched).
    let text_needle = format!("{}{}{}", "0x", "2b8", "0000");
    let mut files = Vec::new();
    sources(&workspace_root().join("arch-mariana"), &mut files);
    assert!(!files.is_empty());
    for f in &files {
        assert!(
            !normalized(f).contains(&text_needle),
            "{} contains {text_needle}",
            f.display()
        );
    }
}

/// §12 keeps the current note's retraction of reading the SDMA band's
/// embedded-semaphore base `0x8_0270_1800` as a mesh marker: it carries bit 35
/// (the device-full / host-visible prefix), not the mesh bit 47 [004 §4 QUIRK],
/// [FACTS §1, §12]. khal's mesh classification must not call it high-die.
#[test]
fn the_retracted_mesh_marker_reading_is_not_used() {
    use khal::{MeshHalf, HOST_VISIBLE_REBASE, MESH_HIGH_BIT};
    let a = khal::DeviceAddr(0x8_0270_1800);
    assert_eq!(a.mesh_half(), MeshHalf::Low);
    assert_ne!(a.get() & HOST_VISIBLE_REBASE, 0);
    assert_eq!(a.get() & MESH_HIGH_BIT, 0);
    // The genuine marker: MARIANA's high-die mailbox entries differ from the
    // low-die ones by exactly bit 47 [004 §4].
    assert_eq!(0x8085_8000_0400u64 - 0x85_8000_0400, MESH_HIGH_BIT);
}
