//! `khal map`: the JSON document holds every value of FACTS §3 for the arch,
//! in the lowercase `0x` hex form; the table and the diff say what they must.

use std::collections::BTreeMap;
use std::process::Command;

use serde_json::Value;

mod common;
use common::khal;

/// item name → (status, value) of `map --arch <arch> --json`.
fn map_json(arch: &str) -> BTreeMap<String, (String, Value)> {
    let (code, out, err) = khal(&["map", "--arch", arch, "--json"]);
    assert_eq!(code, 0, "stderr: {err}");
    let doc: Value = serde_json::from_str(&out).expect("one JSON document");
    assert_eq!(doc["arch"], arch);
    let items = doc["items"].as_array().expect("items array");
    let mut m = BTreeMap::new();
    for it in items {
        let name = it["item"].as_str().unwrap().to_string();
        let status = it["status"].as_str().unwrap().to_string();
        // Every address, offset and size is a lowercase 0x hex string.
        if matches!(
            it["kind"].as_str(),
            Some("address" | "offset" | "size" | "value")
        ) {
            let v = it["value"].as_str().expect("hex string");
            assert!(v.starts_with("0x"), "{name}: {v}");
            assert!(
                v[2..]
                    .chars()
                    .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c)),
                "{name}: {v}"
            );
            assert!(it["source"].as_str().unwrap().starts_with('['), "{name}");
        }
        assert!(
            m.insert(name.clone(), (status, it["value"].clone()))
                .is_none(),
            "duplicate {name}"
        );
    }
    m
}

fn hex(v: u64) -> Value {
    Value::String(format!("{v:#x}"))
}

fn expect(m: &BTreeMap<String, (String, Value)>, item: &str, v: u64) {
    let (status, got) = m.get(item).unwrap_or_else(|| panic!("missing item {item}"));
    assert_eq!(status, "traced", "{item}");
    assert_eq!(got, &hex(v), "{item}");
}

fn expect_status(m: &BTreeMap<String, (String, Value)>, item: &str, status: &str) {
    let (s, v) = m.get(item).unwrap_or_else(|| panic!("missing item {item}"));
    assert_eq!(s, status, "{item}");
    assert_eq!(v, &Value::Null, "{item}: no value may be shown");
}

const ENGINES: [&str; 5] = ["pe", "act", "pool", "dve", "sp"];

/// The four capability-gated getters besides `eng_fp8_cfg` [FACTS §13.9].
const CAP_CFG_R1: [&str; 4] = [
    "sdma_cce_user_offset",
    "sdma_data_conv_non_ocp_cfg_offset",
    "sdma_data_conv_fp8_ocp_cfg_offset",
    "dve_sequencer_emax_cfg_offset",
];

fn trn2_common(m: &BTreeMap<String, (String, Value)>) {
    // §3.1
    let tpb = [
        0x20_0000_0000u64,
        0x30_0000_0000,
        0x60_0000_0000,
        0x70_0000_0000,
        0x8020_0000_0000,
        0x8030_0000_0000,
        0x8060_0000_0000,
        0x8070_0000_0000,
    ];
    for (i, b) in tpb.iter().enumerate() {
        expect(m, &format!("tpb[{i}]"), *b);
        expect(m, &format!("psum[{i}]"), b + 0x8_0200_0000);
    }
    for (i, b) in [
        0x12_0000_0000u64,
        0x52_0000_0000,
        0x8012_0000_0000,
        0x8052_0000_0000,
    ]
    .iter()
    .enumerate()
    {
        expect(m, &format!("preproc[{i}]"), *b);
    }
    expect(m, "preproc size", 0x34C_0000);
    expect_status(m, "libnrt preproc table length", "not traced");
    for (i, b) in [0x0u64, 0x40_0000_0000, 0x8000_0000_0000, 0x8040_0000_0000]
        .iter()
        .enumerate()
    {
        expect(m, &format!("hbm[{i}]"), *b);
    }
    assert_eq!(m["hbm channels"].1, Value::from(4));
    assert_eq!(m["tpb count"].1, Value::from(8));
    for e in ["act", "pool", "dve", "sp"] {
        expect(m, &format!("iram[{e}]"), 32 * 1024);
    }
    expect(m, "iram[pe]", 0x2_0000);
    // §3.2
    for (e, b) in [
        ("pe", 0x8_0260_0000u64),
        ("act", 0x8_0240_0000),
        ("pool", 0x8_0300_0000),
        ("dve", 0x8_02B0_0000),
    ] {
        expect(m, &format!("seq[{e}].seq"), b);
        expect(m, &format!("seq[{e}].seqtop"), b + 0x2_0000);
        expect(m, &format!("seq[{e}].hostvis"), b + 0x4_0000);
        expect(
            m,
            &format!("seq[{e}].seq (host-visible)"),
            b - 0x8_0000_0000,
        );
        expect(
            m,
            &format!("seq[{e}].seqtop (host-visible)"),
            b + 0x2_0000 - 0x8_0000_0000,
        );
        expect(
            m,
            &format!("seq[{e}].hostvis (host-visible)"),
            b + 0x4_0000 - 0x8_0000_0000,
        );
    }
    expect(m, "seq[sp].seq", 0);
    expect(m, "seq[sp].seqtop", 0x2_0000);
    expect(m, "seq[sp].hostvis", 0x4_0000);
    expect(m, "seq[sp].seq (host-visible)", 0x280_0000);
    expect(m, "seq[sp].seqtop (host-visible)", 0x282_0000);
    expect(m, "seq[sp].hostvis (host-visible)", 0x284_0000);
    expect(m, "sz1", 0x2_0000);
    expect(m, "sz2", 0x1_0000);
    // §3.4
    expect(m, "dve table offset opcode", 0x2B8_2000);
    expect(m, "dve table offset control_fast", 0x2B8_0000);
    expect(m, "dve table offset control_slow", 0x2B8_1000);
    expect(m, "dve table offset datapath", 0x2B8_6000);
    expect(m, "dve param ram base", 0x2B8_7000);
    expect(m, "dve param ram size", 0x400);
    // [000r1 §3], FACTS §12.1 / §13.9.
    for (t, v) in [
        ("opcode", 0x4000u64),
        ("control_fast", 0x1000),
        ("control_slow", 0x1000),
        ("datapath", 0x400),
    ] {
        expect(m, &format!("dve table size {t}"), v);
    }
    for (i, v) in [0x250_0000u64, 0x252_0000, 0x254_0000, 0x258_0000]
        .iter()
        .enumerate()
    {
        expect(m, &format!("act table param[{i}]"), *v);
    }
    assert_eq!(m["dve loads control_slow"].1, Value::Bool(true));
    // §13.1 windows (MARIANA: "as CAYMAN", MED), §13.3 Q7 (byte-identical).
    for (e, w) in [
        ("pe", 0x266_0000u64),
        ("act", 0x246_0000),
        ("pool", 0x306_0000),
        ("dve", 0x2B6_0000),
    ] {
        expect(m, &format!("xt_local_reg_offset[{e}]"), w);
    }
    expect(m, "xt_local_reg_offset[sp, owner 0]", 0x6_0000);
    expect(m, "xt_local_reg_offset[sp, owner 1]", 0x286_0000);
    expect(m, "q7[owner 2].base", 0x310_0000);
    expect(m, "q7[owner 2].per-core stride", 0x10_0000);
    expect(m, "q7[owner 2].dram - iram", 0x8_0000);
    assert_eq!(m["q7[owner 2].num_q7"].1, Value::from(8));
    assert_eq!(m["q7[owner 5].num_q7"].1, Value::from(4));
    expect(m, "topsp window base", 0x6_0000);
    expect(m, "topsp basic_block_switch", 0x6_15E0);
    expect(m, "topsp host_trigger", 0x6_15A0);
    expect(m, "xt q7_release_run_stall", 0x3000);
    expect(m, "xt hw_decode_control", 0x4000);
    expect(m, "release_run_stall", 0x0);
    expect(m, "slot act.instr_debug_level_set", 0x210);
    expect(m, "slot dve.instr_debug_level_set", 0x200);
    assert_eq!(m["sdma max_cce_elements"].1, Value::from(2048));
    for k in ["error mask", "ham mask", "evsem mask"] {
        expect_status(m, k, "not traced");
    }
}

#[test]
fn cayman_json_holds_every_fact() {
    let m = map_json("cayman");
    trn2_common(&m);
    expect(&m, "get_hbm_size (usable per channel)", 0x6_0000_0000);
    expect(&m, "bar window per channel", 0x10_0000_0000);
    for item in CAP_CFG_R1 {
        expect_status(&m, item, "absent on this arch");
    }
    for e in ENGINES {
        expect_status(&m, &format!("fp8 cfg offset[{e}]"), "absent on this arch");
    }
    expect(&m, "topsp stop_signal", 0x6_15C0);
    expect(&m, "topsp init_signal", 0x6_1540);
    expect(&m, "topsp tsync_signal", 0x6_1560);
    expect(&m, "start_addr_lo", 0x1060);
    expect(&m, "start_addr_hi", 0x1080);
    expect(&m, "notific_sw_queue_num3", 0xA0C);
    expect(&m, "dma_ctrl", 0x10A0);
    expect(&m, "sw_dge_carveout", 0x14E0);
    expect(&m, "sw_dge_dma_mapping", 0x1500);
    expect(&m, "dge carveout cap", 0x3_8000);
    expect(&m, "xt_local_reg_offset[5]", 0x306_0000);
    expect(&m, "pe-sequencer topsp host-visible relbase", 0x14_0000);
    // §13.5: the four outs, bit 35 folded; eng 2/3 as FACTS (MED).
    for (e, b) in [
        ("pe", 0x267_0000u64),
        ("act", 0x247_0000),
        ("pool", 0x307_0000),
        ("dve", 0x2B8_8000),
    ] {
        expect(&m, &format!("hw_decode[{e}].cam_base"), b);
        expect(&m, &format!("hw_decode[{e}].cam_size"), 0x1000);
        expect(&m, &format!("hw_decode[{e}].table_base"), b + 0x1000);
        expect(&m, &format!("hw_decode[{e}].table_size"), 0x2000);
    }
    expect(&m, "start_ctrl", 0x004);
    expect(&m, "notific_sw_queue_num2", 0xA08);
    assert_eq!(
        m["notific_sw_queue_num2.events_semaphores_nt"].1,
        serde_json::json!({ "mask": "0xf0000", "shift": 16 })
    );
    expect(&m, "xt memcopy_dmas", 0x13A0);
    expect_status(&m, "nq mailbox map", "not traced");
}

#[test]
fn mariana_json_holds_every_fact() {
    let m = map_json("mariana");
    trn2_common(&m);
    expect(&m, "get_hbm_size (usable per channel)", 0x9_0000_0000);
    expect_status(&m, "bar window per channel", "not traced");
    for (e, o) in [
        ("pe", 0xF00u64),
        ("act", 0xF08),
        ("pool", 0xF0C),
        ("dve", 0xF04),
    ] {
        expect(&m, &format!("fp8 cfg offset[{e}]"), o);
    }
    expect_status(&m, "fp8 cfg offset[sp]", "not traced");
    // [000r1 §3], FACTS §12.1 (MED).
    expect(&m, "sdma_cce_user_offset", 0x2000);
    expect(&m, "dve_sequencer_emax_cfg_offset", 0x32C);
    for (item, a, b) in [
        ("sdma_data_conv_non_ocp_cfg_offset", 0xC04u64, 0xC14u64),
        ("sdma_data_conv_fp8_ocp_cfg_offset", 0xC00, 0xC10),
    ] {
        assert_eq!(m[item].0, "traced", "{item}");
        assert_eq!(m[item].1, Value::from(vec![hex(a), hex(b)]), "{item}");
    }
    for t in ["stop_signal", "init_signal", "tsync_signal"] {
        expect_status(&m, &format!("topsp {t}"), "not traced");
    }
    for item in [
        "start_ctrl",
        "start_addr_lo",
        "start_addr_hi",
        "sw_dge_carveout",
    ] {
        expect_status(&m, item, "not traced");
    }
    expect_status(&m, "xt_local_reg_offset[5]", "not traced");
    expect_status(&m, "pe-sequencer topsp host-visible relbase", "not traced");
    expect(&m, "dge carveout cap", 0x4_0000);
    expect(&m, "dve rspcomb (force_rspcomb_eight_deep)", 0x3C0);
    for e in ["pe", "act", "pool", "dve"] {
        expect_status(&m, &format!("hw_decode[{e}]"), "not traced");
    }
    for q in 0..8u64 {
        expect(&m, &format!("nq mailbox[{q}]"), 0x85_8000_0400 + 0x200 * q);
        expect(
            &m,
            &format!("nq mailbox[{}]", q + 8),
            0x8085_8000_0400 + 0x200 * q,
        );
    }
}

#[test]
fn sunda_json_holds_every_fact() {
    let m = map_json("sunda");
    expect(&m, "tpb[0]", 0xFFF_C000_0000);
    expect(&m, "tpb[1]", 0xFFF_C400_0000);
    assert!(!m.contains_key("tpb[2]"));
    expect_status(&m, "psum[0]", "not traced");
    expect_status(&m, "preproc bases", "not traced");
    expect(&m, "hbm[0]", 0x0);
    expect(&m, "hbm[1]", 0x10_0000_0000);
    assert!(!m.contains_key("hbm[2]"));
    expect(&m, "get_hbm_size (usable per channel)", 0x4_0000_0000);
    expect_status(&m, "bar window per channel", "not traced");
    for e in ["act", "pool", "dve", "sp"] {
        expect(&m, &format!("iram[{e}]"), 8 * 1024 * 1024);
    }
    expect(&m, "iram[pe]", 0x2_0000);
    for (e, b) in [
        ("pe", 0x260_0000u64),
        ("act", 0x240_0000),
        ("pool", 0x290_0000),
        ("dve", 0x2B0_0000),
    ] {
        for (part, d) in [("seq", 0), ("seqtop", 0x2_0000), ("hostvis", 0x4_0000)] {
            expect(&m, &format!("seq[{e}].{part}"), b + d);
            expect(&m, &format!("seq[{e}].{part} (host-visible)"), b + d);
        }
    }
    expect_status(&m, "seq[sp]", "not traced");
    expect(&m, "sz1", 0x1_0000);
    expect(&m, "sz2", 0x4000);
    for e in ENGINES {
        expect_status(&m, &format!("hw_decode[{e}]"), "unsupported on this arch");
        expect_status(&m, &format!("fp8 cfg offset[{e}]"), "absent on this arch");
    }
    expect_status(&m, "dve table offsets", "absent on this arch");
    expect(&m, "dve param ram base", 0x2B8_4000);
    expect(&m, "dve param ram size", 0x400);
    assert_eq!(m["dve loads control_slow"].1, Value::Bool(false));
    for item in CAP_CFG_R1 {
        expect_status(&m, item, "absent on this arch");
    }
    expect_status(&m, "act table params", "not traced");
    for (t, v) in [
        ("opcode", 0x2000u64),
        ("control_fast", 0x800),
        ("control_slow", 0x800),
        ("datapath", 0x800),
    ] {
        expect(&m, &format!("dve table size {t}"), v);
    }
    expect(&m, "topsp window base", 0x6_0000);
    expect(&m, "topsp stop_signal", 0x6_084C);
    expect(&m, "topsp basic_block_switch", 0x6_083C);
    expect(&m, "topsp host_trigger", 0x6_0848);
    expect(&m, "topsp init_signal", 0x6_083C);
    expect_status(&m, "topsp tsync_signal", "not traced");
    expect(&m, "xt_local_reg_offset[pool]", 0x296_0000);
    expect_status(&m, "xt_local_reg_offset[5]", "unsupported on this arch");
    expect_status(&m, "xt q7_release_run_stall", "absent on this arch");
    expect(&m, "q7[owner 2].base", 0x298_0000);
    expect(&m, "release_run_stall", 0x04);
    expect(&m, "dge carveout cap", 0x3_0000);
    expect(&m, "pe-sequencer topsp host-visible relbase", 0x5B_0000);
    expect(&m, "nx_rsvd_space0", 0x83C);
    expect(&m, "nx_rsvd_space1", 0x840);
    expect(&m, "nx_rsvd_space2", 0x844);
    for item in ["start_ctrl", "notific_sw_queue_num2", "xt memcopy_dmas"] {
        expect_status(&m, item, "not traced");
    }
    expect_status(&m, "nq mailbox map", "not traced");
}

/// item → (confidence, source) of `map --arch <arch> --json`.
fn grades(arch: &str) -> BTreeMap<String, (Value, String)> {
    let (code, out, err) = khal(&["map", "--arch", arch, "--json"]);
    assert_eq!(code, 0, "stderr: {err}");
    let doc: Value = serde_json::from_str(&out).unwrap();
    let mut m = BTreeMap::new();
    for it in doc["items"].as_array().unwrap() {
        let name = it["item"].as_str().unwrap().to_string();
        let conf = it["confidence"].clone();
        let source = it["source"].as_str().expect("every item has a source");
        assert!(source.starts_with('['), "{arch} {name}: {source}");
        // A value carries its grade; a hole (not traced) has none to carry.
        if it["status"] == "not traced" {
            assert_eq!(conf, Value::Null, "{arch} {name}");
        } else {
            assert!(
                matches!(conf.as_str(), Some("high" | "med" | "low")),
                "{arch} {name}: {conf}"
            );
        }
        m.insert(name, (conf, source.to_string()));
    }
    m
}

fn graded(m: &BTreeMap<String, (Value, String)>, item: &str, conf: &str, source_has: &str) {
    let (c, s) = m.get(item).unwrap_or_else(|| panic!("missing item {item}"));
    assert_eq!(c, conf, "{item}");
    assert!(s.contains(source_has), "{item}: {s}");
}

#[test]
fn every_item_carries_its_grade_and_source() {
    let s = grades("sunda");
    // The byte-decoded table of the earlier revision [FACTS §12.1].
    for part in ["seq", "seqtop", "hostvis"] {
        graded(&s, &format!("seq[pool].{part}"), "med", "[000r1 §3]");
        graded(&s, &format!("seq[pe].{part}"), "high", "[000 §2, §3]");
    }
    // The kernel driver is named as the source of SUNDA's TPB bases.
    graded(&s, "tpb[0]", "med", "kernel driver");
    graded(&s, "tpb count", "high", "kernel driver");
    graded(&s, "nx_rsvd_space0", "high", "[004 §5]");

    let c = grades("cayman");
    for part in ["seq", "seqtop", "hostvis"] {
        graded(&c, &format!("seq[sp].{part}"), "med", "[FACTS §3.2]");
        graded(
            &c,
            &format!("seq[sp].{part} (host-visible)"),
            "med",
            "[FACTS §3.2]",
        );
        graded(&c, &format!("seq[pool].{part}"), "high", "[000 §2, §3]");
    }
    // §13.10 #6: the per-arch decode replaces the LOW reading of [000 §2].
    graded(&c, "release_run_stall", "high", "[hw-decode §5b, §7]");
    graded(&c, "start_addr_lo", "med", "[000r1 §3]");
    graded(&c, "xt_local_reg_offset[pool]", "high", "[q7 §6a-§6b]");
    graded(&c, "hw_decode[pool].cam_base", "med", "§13.10 #1");
    graded(&c, "hw_decode[pe].cam_base", "high", "[hw-decode §1-§3]");
    graded(&c, "q7[owner 2].base", "high", "[q7 §2-§3]");
    graded(&c, "q7[owner 2].per-core stride", "high", "[ucode §3]");
    graded(&c, "slot act.instr_debug_level_set", "high", "[002r1 §3]");
    graded(&s, "topsp init_signal", "med", "[000r1 §3]");
    graded(&s, "topsp host_trigger", "high", "[topsp §3a, §8]");
    graded(&c, "dve table offset opcode", "med", "pairing MED");
    graded(&c, "dve param ram base", "high", "[000 §3, §4]");
    graded(&c, "preproc count (kdrv windows)", "high", "kernel driver");
    graded(&c, "tpb[0]", "high", "kernel driver");
    graded(&c, "hbm[1]", "high", "[kdrv v3]");
    graded(&c, "sdma_cce_user_offset", "high", "[000 §3]");
    graded(&c, "dve table size opcode", "med", "[000r1 §3]");
    graded(&c, "act table param[3]", "med", "[000r1 §3]");

    let m = grades("mariana");
    graded(&m, "hbm[1]", "high", "[kdrv v4]");
    graded(&m, "nq mailbox[9]", "high", "[004 §4]");
    graded(&m, "xt_local_reg_offset[pe]", "med", "Cayman-like");
    graded(&m, "topsp window base", "med", "as CAYMAN");
    graded(&m, "topsp host_trigger", "high", "[ncfw §4.7]");
    graded(&m, "fp8 cfg offset[pool]", "high", "[000 §3]");
    for item in CAP_CFG_R1 {
        graded(&m, item, "med", "[000r1 §3]");
    }
    graded(&s, "dve table size opcode", "med", "[000r1 §3]");
}

#[test]
fn the_table_shows_each_grade() {
    let (code, out, _) = khal(&["map", "--arch", "sunda"]);
    assert_eq!(code, 0);
    assert!(out.lines().next().unwrap().contains("khal register matrix"));
    let header = out.lines().nth(1).unwrap();
    assert!(
        header.contains("grade") && header.contains("source"),
        "{header}"
    );
    let line = out.lines().find(|l| l.contains("seq[pool].seq ")).unwrap();
    assert!(
        line.contains("0x2900000") && line.contains(" med ") && line.contains("[000r1 §3]"),
        "{line}"
    );
    let line = out.lines().find(|l| l.contains("seq[sp]")).unwrap();
    assert!(
        line.contains("not traced") && line.contains(" - "),
        "{line}"
    );
    let (_, out, _) = khal(&["map", "--arch", "cayman"]);
    let line = out.lines().find(|l| l.contains(" start_addr_lo ")).unwrap();
    assert!(line.contains(" med ") && line.contains("0x1060"), "{line}");
}

#[test]
fn table_names_holes_plainly() {
    let (code, out, _) = khal(&["map", "--arch", "sunda"]);
    assert_eq!(code, 0);
    assert!(out.contains("not traced"));
    assert!(out.contains("absent on this arch"));
    assert!(out.contains("unsupported on this arch"));
    let line = out
        .lines()
        .find(|l| l.contains("topsp stop_signal"))
        .unwrap();
    assert!(
        line.contains("0x6084c") && line.contains("[000 §2, §3]"),
        "{line}"
    );
}

#[test]
fn diff_lists_only_the_differences() {
    let (code, out, _) = khal(&["map", "--diff", "cayman", "mariana"]);
    assert_eq!(code, 0);
    let first = out.lines().next().unwrap();
    assert!(first.contains("cayman") && first.contains("mariana"));
    let line = out
        .lines()
        .find(|l| l.contains("get_hbm_size"))
        .expect("hbm size differs");
    assert!(
        line.contains("0x600000000") && line.contains("0x900000000"),
        "{line}"
    );
    assert!(out.contains("fp8 cfg offset[pool]"));
    assert!(out.contains("nq mailbox"));
    // Shared tables do not show up.
    for same in [
        "tpb[0]",
        "psum[3]",
        "seq[pe].seq",
        "dve param ram base",
        "hbm[2]",
    ] {
        assert!(
            !out.lines()
                .any(|l| l.split_whitespace().nth(1) == Some(same)),
            "{same}"
        );
    }
    let (_, out, _) = khal(&["map", "--diff", "sunda", "cayman"]);
    let line = out.lines().find(|l| l.contains("tpb[5]")).unwrap();
    assert!(
        line.contains("(no such item)") && line.contains("0x803000000000"),
        "{line}"
    );
}

/// `--family` keeps one family (or several), `--grep` a case-insensitive
/// substring of family, item, value or source; an unknown family is a bad
/// command line.
#[test]
fn family_and_grep_filter_the_table_and_the_json() {
    let (code, out, err) = khal(&["map", "--arch", "cayman", "--family", "hbm"]);
    assert_eq!(code, 0, "{err}");
    let rows: Vec<&str> = out.lines().skip(2).collect();
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|l| l.starts_with("hbm ")), "{out}");
    let (_, out, _) = khal(&["map", "--arch", "cayman", "--grep", "PSUM[3]"]);
    let rows: Vec<&str> = out.lines().skip(2).collect();
    assert_eq!(rows.len(), 1, "{out}");
    assert!(rows[0].contains("0x7802000000"), "{out}");
    let (_, out, _) = khal(&[
        "map", "--arch", "cayman", "--json", "--family", "tpb", "--grep", "tpb[4]",
    ]);
    let doc: Value = serde_json::from_str(&out).unwrap();
    let items = doc["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{out}");
    assert_eq!(items[0]["value"], "0x802000000000");
    let (_, out, _) = khal(&["map", "--arch", "cayman", "--grep", "no such thing"]);
    assert!(out.contains("(no item matches the filters)"), "{out}");
    let (code, _, err) = khal(&["map", "--arch", "cayman", "--family", "nope"]);
    assert_eq!(code, 2);
    assert!(err.contains("no family 'nope' (one of: "), "{err}");
}

/// The table fits `COLUMNS`: no line is wider, and every character of every
/// cell is still there (wrapped, never dropped). Piped without `COLUMNS`,
/// one line per item.
#[test]
fn the_table_fits_the_terminal_width() {
    let full = khal(&["map", "--arch", "mariana"]).1;
    assert!(
        full.lines().any(|l| l.chars().count() > 150),
        "piped: one line per item"
    );
    for cols in [80, 100, 132] {
        let out = Command::new(env!("CARGO_BIN_EXE_khal"))
            .args(["map", "--arch", "mariana"])
            .env("COLUMNS", cols.to_string())
            .output()
            .unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        for l in text.lines() {
            assert!(l.chars().count() <= cols, "{cols}: {l}");
        }
        let chars = |t: &str| {
            let mut c: Vec<char> = t.chars().filter(|c| !c.is_whitespace()).collect();
            c.sort_unstable();
            c
        };
        assert_eq!(chars(&text), chars(&full), "{cols}: every character kept");
    }
}
