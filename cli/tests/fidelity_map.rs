//! `khal map --json` grades and sources the items FACTS grades apart exactly as
//! FACTS does [FACTS §12.3, §13.3, §13.11, §15.3, §15.4], and `khal decode`
//! names the registers of [FACTS §15.1, §15.2].

use std::collections::BTreeMap;
use std::process::Command;

use serde_json::Value;

fn khal(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_khal"))
        .args(args)
        .output()
        .expect("run khal");
    assert!(out.status.success(), "khal {args:?}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// item → (confidence, source, value) of `map --arch <arch> --json`.
fn items(arch: &str) -> BTreeMap<String, (Value, String, Value)> {
    let doc: Value = serde_json::from_str(&khal(&["map", "--arch", arch, "--json"])).unwrap();
    doc["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|it| {
            (
                it["item"].as_str().unwrap().to_string(),
                (
                    it["confidence"].clone(),
                    it["source"].as_str().unwrap_or("").to_string(),
                    it["value"].clone(),
                ),
            )
        })
        .collect()
}

#[track_caller]
fn graded(m: &BTreeMap<String, (Value, String, Value)>, item: &str, conf: &str, src: &str) {
    let (c, s, _) = m.get(item).unwrap_or_else(|| panic!("missing item {item}"));
    assert_eq!(c, conf, "{item}");
    assert!(s.contains(src), "{item}: {s}");
}

#[track_caller]
fn value(m: &BTreeMap<String, (Value, String, Value)>, item: &str) -> Value {
    m.get(item)
        .unwrap_or_else(|| panic!("missing item {item}"))
        .2
        .clone()
}

#[test]
fn the_q7_slots_are_med_from_facts_13_3_and_their_null_policy_is_not_traced() {
    for arch in ["sunda", "cayman", "mariana"] {
        let m = items(arch);
        for op in [
            "q7_swap_table",
            "q7_swap_table_get_register_offsets",
            "q7_swap_file_io_table",
        ] {
            graded(&m, &format!("slot q7.{op}"), "med", "[FACTS §13.3]");
        }
        graded(&m, "slot q7.q7_ucode_eng_init", "high", "[FACTS §13.3]");
        let (c, _, v) = &m["q7 slots: null policy"];
        assert!(c.is_null(), "a hole has no grade");
        assert!(v.is_null(), "not traced: no value ({v})");
        // The notific / NQ / INTC slots: the current 004 §1 HIGH, 004r1 MED.
        graded(&m, "slot notific.set_coalescer_stream", "high", "[004 §1");
        graded(&m, "slot notific.get_timestamp", "med", "[004r1 §1]");
        graded(&m, "slot intc.set_cause", "med", "[FACTS §12.3]");
        graded(&m, "slot nq.nq_reset", "high", "[004 §1");
    }
}

#[test]
fn mariana_hbm_is_high_from_the_v4_kernel_headers() {
    let m = items("mariana");
    graded(&m, "hbm channels", "high", "[FACTS §15.4]");
    for i in 0..4 {
        graded(&m, &format!("hbm[{i}]"), "high", "[kdrv v4]");
    }
}

#[test]
fn q7_per_core_layout_is_high_on_cayman_and_mariana_and_derived_on_sunda() {
    for arch in ["cayman", "mariana"] {
        let m = items(arch);
        for o in [2, 5] {
            graded(
                &m,
                &format!("q7[owner {o}].per-core stride"),
                "high",
                "[FACTS §13.3]",
            );
            graded(
                &m,
                &format!("q7[owner {o}].dram - iram"),
                "high",
                "[FACTS §13.3]",
            );
        }
    }
    let s = items("sunda");
    graded(&s, "q7[owner 2].per-core stride", "med", "derived");
    graded(&s, "q7[owner 2].dram - iram", "med", "derived");
}

#[test]
fn mariana_windows_as_cayman_are_med_with_facts_15_3_and_never_high() {
    let m = items("mariana");
    for e in ["pe", "act", "pool", "dve"] {
        graded(&m, &format!("xt_local_reg_offset[{e}]"), "med", "§15.3");
    }
    graded(&m, "topsp window base", "med", "§15.3");
    // Given on every arch, so no longer "not traced" on MARIANA.
    assert_eq!(value(&m, "xt iram_cache_block_size"), "0x1260");
    assert_eq!(value(&m, "notific_sw_queue_num3"), "0xa0c");
    graded(&m, "notific_sw_queue_num3.errors_nt", "med", "[000r1 §3]");
}

#[test]
fn sunda_topsp_items_the_sibling_pages_do_not_give_are_med() {
    let s = items("sunda");
    graded(&s, "topsp init_signal", "med", "§13.11");
    graded(&s, "topsp basic_block_switch", "med", "§13.11");
    let c = items("cayman");
    graded(&c, "topsp basic_block_switch", "high", "[topsp §9]");
}

#[test]
fn the_msix_details_of_the_earlier_revision_are_med() {
    let m = items("mariana");
    graded(&m, "msix mod_timer_ctrl.reset", "med", "[FACTS §12.3]");
    graded(&m, "msix interval groups", "med", "[FACTS §12.3]");
    graded(&m, "msix interval[grp] field", "med", "[FACTS §12.3]");
    assert_eq!(value(&m, "msix interval groups"), 8);
}

#[test]
fn decode_names_nq_stats_and_the_sw_queue_selectors() {
    for arch in ["sunda", "cayman", "mariana"] {
        let out = khal(&["decode", "--arch", arch, "--in", "notific", "0xb0"]);
        assert!(out.contains("register notific.nq_stats\n"), "{out}");
    }
    for (off, name) in [
        ("0xa00", "sw_queue_num0"),
        ("0xa04", "sw_queue_num1"),
        ("0xa08", "sw_queue_num2"),
        ("0xa0c", "sw_queue_num3"),
        ("0xa10", "sw_queue_num4"),
        ("0xa14", "sw_queue_num5"),
        ("0xa18", "queue_idx_ctrl"),
    ] {
        let out = khal(&["decode", "--arch", "cayman", "--in", "tpb-regs", off]);
        assert!(
            out.contains(&format!("register tpb_regs.{name}\n")),
            "{out}"
        );
    }
    // Not in the XT/NX window any more (FACTS §13.10 #8).
    let out = khal(&["decode", "--arch", "cayman", "--in", "nx-local", "0xa08"]);
    assert!(out.contains("unknown"), "{out}");
}
