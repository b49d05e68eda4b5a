//! `khal map --svg` / `--html`: the picture parses as XML and holds exactly
//! one `item` element per map item (the same items, by name, as `--json`),
//! each coloured by its grade; both mesh halves and every tile are drawn;
//! `--family` / `--grep` filter it as they filter the table.

use std::collections::BTreeMap;

use serde_json::Value;

mod common;
use common::khal;

/// item name -> grade (`high`, `med`, `low`, `-`) of `map --json`.
fn json_items(args: &[&str]) -> BTreeMap<String, String> {
    let mut a = vec!["map", "--json"];
    a.extend_from_slice(args);
    let (code, out, err) = khal(&a);
    assert_eq!(code, 0, "{err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            let grade = i["confidence"].as_str().unwrap_or("-").to_string();
            (i["item"].as_str().unwrap().to_string(), grade)
        })
        .collect()
}

/// item name -> (grade, fill) of the picture's `item` elements.
fn picture_items(svg: &str) -> (BTreeMap<String, (String, String)>, usize, String) {
    let doc = roxmltree::Document::parse(svg).expect("the SVG parses");
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    let items: Vec<_> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("item"))
        .collect();
    let mut by_name = BTreeMap::new();
    for n in &items {
        let name = n.attribute("data-item").expect("data-item").to_string();
        let title = n
            .children()
            .find(|c| c.tag_name().name() == "title")
            .and_then(|t| t.text())
            .expect("a hover title");
        assert!(title.starts_with(&name), "{title}");
        assert!(title.contains("source: ["), "{title}");
        let grade = n.attribute("data-grade").unwrap().to_string();
        let fill = n.attribute("fill").unwrap().to_string();
        by_name.insert(name, (grade, fill));
    }
    let text: String = doc
        .descendants()
        .filter_map(|n| n.text())
        .collect::<Vec<_>>()
        .join("\n");
    (by_name, items.len(), text)
}

#[test]
fn the_svg_holds_one_element_per_map_item_coloured_by_grade() {
    for arch in ["sunda", "cayman", "mariana"] {
        let (code, svg, err) = khal(&["map", "--arch", arch, "--svg", "-"]);
        assert_eq!(code, 0, "{err}");
        let want = json_items(&["--arch", arch]);
        let (got, count, text) = picture_items(&svg);
        assert_eq!(count, want.len(), "{arch}: one element per item");
        assert_eq!(got.len(), want.len(), "{arch}: item names are unique");
        for (name, grade) in &want {
            let (g, fill) = got
                .get(name)
                .unwrap_or_else(|| panic!("{arch}: {name} drawn"));
            assert_eq!(g, grade, "{arch} {name}");
            let want_fill = match grade.as_str() {
                "high" => "#2e7d32",
                "med" => "#f9a825",
                "low" => "#c62828",
                _ => "#9e9e9e",
            };
            assert_eq!(fill, want_fill, "{arch} {name}");
        }
        // Both mesh halves (where the arch has tiles in them) and every tile.
        assert!(text.contains("low mesh half"), "{arch}");
        let tiles = want.keys().filter(|k| k.starts_with("tpb[")).count();
        for t in 0..tiles {
            assert!(
                text.contains(&format!("tile {t}: tpb[{t}]")),
                "{arch}: tile {t}"
            );
        }
        if arch != "sunda" {
            assert!(text.contains("high mesh half"), "{arch}");
        }
        assert!(text.contains("not traced") || arch != "sunda", "{arch}");
    }
}

#[test]
fn the_html_page_holds_the_same_picture_and_filters_apply() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("map.html");
    let p = path.to_str().unwrap();
    let (code, out, err) = khal(&["map", "--arch", "cayman", "--html", p]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("written to"), "{out}");
    let html = std::fs::read_to_string(&path).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    let svg = &html[html.find("<svg").unwrap()..html.find("</svg>").unwrap() + 6];
    let (got, _, _) = picture_items(svg);
    assert_eq!(got.len(), json_items(&["--arch", "cayman"]).len());

    let filt = ["--arch", "cayman", "--family", "tpb", "--family", "hbm"];
    let (_, svg, _) = khal(&[&["map", "--svg", "-"][..], &filt[..]].concat());
    let (got, _, _) = picture_items(&svg);
    let want = json_items(&filt);
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>()
    );
    assert!(want.keys().all(|k| k.starts_with("tpb")
        || k.starts_with("hbm")
        || k.contains("channel")
        || k.contains("hbm")));
}
