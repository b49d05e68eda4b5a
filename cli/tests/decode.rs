//! `khal decode`: every base `khal map` prints decodes back to its family and
//! item; register names inside described windows; unknown addresses; bad
//! arguments give one line and a non-zero exit.

use serde_json::Value;

mod common;
use common::khal;

#[test]
fn every_printed_base_round_trips() {
    for arch in ["sunda", "cayman", "mariana"] {
        let (_, out, _) = khal(&["map", "--arch", arch, "--json"]);
        let doc: Value = serde_json::from_str(&out).unwrap();
        let mut n = 0;
        for it in doc["items"].as_array().unwrap() {
            if it["kind"] != "address" {
                continue;
            }
            let family = it["family"].as_str().unwrap();
            let item = it["item"].as_str().unwrap();
            let addr = it["value"].as_str().unwrap();
            let (code, out, err) = khal(&["decode", "--arch", arch, addr]);
            assert_eq!(code, 0, "{arch} {addr}: {err}");
            let want = format!("  {family}  {item}  (");
            let line = out
                .lines()
                .find(|l| l.starts_with(&want))
                .unwrap_or_else(|| panic!("{arch} {addr}: no line {want:?} in\n{out}"));
            if let Some(idx) = it["index"].as_object() {
                let (what, i) = idx.iter().next().unwrap();
                assert!(line.contains(&format!("{what} {i}")), "{line}");
            }
            let form = it["form"].as_str().unwrap();
            assert!(line.contains(form), "{line}");
            if let Some(h) = it["mesh_half"].as_str() {
                assert!(line.contains(&format!("{h} mesh half")), "{line}");
            }
            n += 1;
        }
        assert!(n >= 20, "{arch}: only {n} addresses");
    }
}

#[test]
fn ranges_and_mesh_halves() {
    let (_, out, _) = khal(&["decode", "--arch", "cayman", "0x8000_0000_1000"]);
    assert!(out.contains("hbm  hbm[2] + 0x1000  (usable HBM"), "{out}");
    assert!(
        out.contains("channel 2, high mesh half, device-full"),
        "{out}"
    );
    let (_, out, _) = khal(&["decode", "--arch", "cayman", "0x20_02B8_7010"]);
    assert!(out.contains("dve  tpb[0] + dve param ram + 0x10"), "{out}");
    // A DVE table spans its size from the size getter [000r1 §3].
    let (_, out, _) = khal(&["decode", "--arch", "cayman", "0x20_02B8_5FFC"]);
    assert!(
        out.contains("dve  tpb[0] + dve table opcode + 0x3ffc"),
        "{out}"
    );
    let (_, out, _) = khal(&["decode", "--arch", "cayman", "0x2600000"]);
    assert!(
        out.contains("seq[pe].seq (host-visible)") && out.contains("device-full 0x802600000"),
        "{out}"
    );
    let (_, out, _) = khal(&["decode", "--arch", "sunda", "0x2600000"]);
    assert!(out.contains("no rebase on this arch"), "{out}");
}

/// The HBM BAR window is a size, not a range of device addresses: nothing
/// past a channel's usable size decodes as HBM, and offsets are from the
/// channel base [000 §3 GOTCHA].
#[test]
fn hbm_bar_window_is_not_an_address_range() {
    let (_, out, _) = khal(&["decode", "--arch", "cayman", "0x802B20000"]);
    assert!(out.contains("seq  seq[dve].seqtop  (base"), "{out}");
    assert!(!out.contains("hbm"), "{out}");
    assert_eq!(out.lines().count(), 2, "{out}");
    for addr in ["0x804700000000", "0x600000000", "0x8046_0000_0000"] {
        let (_, out, _) = khal(&["decode", "--arch", "cayman", addr]);
        assert!(!out.contains("hbm"), "{addr}: {out}");
        assert!(out.contains("unknown"), "{addr}: {out}");
    }
    // The last dword of the usable range, from the channel's own base.
    let (_, out, _) = khal(&["decode", "--arch", "cayman", "0x5_FFFF_FFFC"]);
    assert!(out.contains("hbm  hbm[0] + 0x5fffffffc  (usable"), "{out}");
    let (_, out, _) = khal(&["decode", "--arch", "cayman", "0x8045_FFFF_FFFC"]);
    assert!(out.contains("hbm  hbm[3] + 0x5fffffffc  (usable"), "{out}");
    let (_, out, _) = khal(&["decode", "--arch", "mariana", "0x8048_0000_0000"]);
    assert!(out.contains("hbm  hbm[3] + 0x800000000  (usable"), "{out}");
}

/// A host-visible value's device-full place is the value plus
/// `0x8_0000_0000` (CAYMAN, MARIANA), not whatever item has the same name.
#[test]
fn host_visible_twin_is_the_value_plus_the_rebase() {
    for arch in ["cayman", "mariana"] {
        let (_, out, _) = khal(&["decode", "--arch", arch, "0x2800000"]);
        assert!(
            out.contains("seq[sp].seq (host-visible)")
                && out.contains("host-visible offset of device-full 0x802800000"),
            "{out}"
        );
        assert!(!out.contains("device-full 0x0)"), "{out}");
    }
    let (_, out, _) = khal(&["decode", "--arch", "cayman", "0x247_0000"]);
    assert!(
        out.contains("hw_decode[act].cam_base") && out.contains("device-full 0x802470000"),
        "{out}"
    );
}

#[test]
fn register_names_inside_windows() {
    let (code, out, _) = khal(&["decode", "--arch", "cayman", "--in", "tpb-regs", "0xA08"]);
    assert_eq!(code, 0);
    assert!(out.contains("register tpb_regs.sw_queue_num2"), "{out}");
    let (_, out, _) = khal(&["decode", "--arch", "cayman", "--in", "xt-local", "0x13a0"]);
    assert!(out.contains("register tpb_xt_local.memcopy_dmas"), "{out}");
    let (_, out, _) = khal(&["decode", "--arch", "sunda", "--in", "nx-local", "0x844"]);
    assert!(
        out.contains("register tpb_nx_local.nx_rsvd_space2"),
        "{out}"
    );
    // The §13 registers: CAYMAN's start address, Q7 release, HW-decode control;
    // the TopSP doorbells per arch [FACTS §12.1, §13.2, §13.4].
    let (_, out, _) = khal(&["decode", "--arch", "cayman", "--in", "nx-local", "0x1060"]);
    assert!(out.contains("register tpb_nx_local.start_addr_lo"), "{out}");
    let (_, out, _) = khal(&["decode", "--arch", "cayman", "--in", "xt-local", "0x4002"]);
    assert!(
        out.contains("register tpb_xt_local.hw_decode_control + 0x2"),
        "{out}"
    );
    let (_, out, _) = khal(&["decode", "--arch", "sunda", "--in", "topsp", "0x848"]);
    assert!(out.contains("register topsp_nx.host_trigger"), "{out}");
    let (_, out, _) = khal(&["decode", "--arch", "cayman", "--in", "topsp", "0x15c0"]);
    assert!(
        out.contains("register tpb_nx_local.topsp_stop_signal"),
        "{out}"
    );
    let (_, out, _) = khal(&["decode", "--arch", "mariana", "--in", "topsp", "0x15a0"]);
    assert!(
        out.contains("register topsp_nx.topsp_host_trigger"),
        "{out}"
    );
    // MARIANA: only the run-stall registers are decoded [FACTS §13.4].
    let (_, out, _) = khal(&["decode", "--arch", "mariana", "--in", "nx-local", "0x0"]);
    assert!(
        out.contains("register tpb_nx_local.release_run_stall"),
        "{out}"
    );
    let (_, out, _) = khal(&["decode", "--arch", "mariana", "--in", "nx-local", "0x4"]);
    assert!(out.contains("unknown"), "{out}");
    let (_, out, _) = khal(&["decode", "--arch", "cayman", "--in", "nx-local", "0x8"]);
    assert!(out.contains("unknown"), "{out}");
    // A byte inside a register names the register and the byte's offset.
    let (_, out, _) = khal(&["decode", "--arch", "cayman", "--in", "notific", "0x10e"]);
    assert!(
        out.contains("register notific.nq[0].nq_head_ptr + 0x2 (byte 2"),
        "{out}"
    );
    let (_, out, _) = khal(&["decode", "--arch", "sunda", "--in", "notific", "0x10c"]);
    assert!(
        out.contains("register notific.nq[0].nq_head_ptr\n"),
        "{out}"
    );
    let (_, out, _) = khal(&["decode", "--arch", "cayman", "--in", "tpb-regs", "0xA0B"]);
    assert!(
        out.contains("register tpb_regs.sw_queue_num2 + 0x3"),
        "{out}"
    );
}

#[test]
fn unknown_address_says_so() {
    for arch in ["sunda", "cayman", "mariana"] {
        let (code, out, _) = khal(&["decode", "--arch", arch, "0xFFFF_0000_0000"]);
        assert_eq!(code, 0);
        assert!(out.contains("unknown: no traced base or window"), "{out}");
        assert_eq!(out.lines().count(), 2, "{out}");
    }
}

#[test]
fn bad_arguments_give_one_line_and_fail() {
    for args in [
        &["decode", "--arch", "foo", "0x0"][..],
        &["decode", "--arch", "cayman", "zz"],
        &["decode", "--arch", "cayman", "0x1_0000_0000_0000_0000"],
        &["decode", "--arch", "cayman"],
        &["decode", "0x0"],
        &["decode", "--arch", "cayman", "--in", "nowhere", "0x0"],
        &["map"],
        &["map", "--arch", "trn9"],
        &["map", "--diff", "sunda"],
        &["map", "--diff", "sunda", "cayman", "--arch", "sunda"],
        &[],
        &["bogus"],
    ] {
        let (code, out, err) = khal(args);
        assert_ne!(code, 0, "{args:?}");
        assert!(out.is_empty(), "{args:?}: stdout {out}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}");
    }
}

#[test]
fn engine_places_in_the_device_view() {
    // [FACTS §13.1, §13.3, §13.5], [devmap-pool §1-§3]: CAYMAN tile 0 + bit 35.
    for (addr, want) in [
        (
            "0x28_0306_3000",
            "engine  tpb[0] + xt/nx window pool + 0x3000",
        ),
        ("0x28_0318_0010", "engine  tpb[0] + q7 core 0 dram + 0x10"),
        ("0x28_0320_0000", "engine  tpb[0] + q7 core 1 iram  "),
        (
            "0x28_0267_1004",
            "engine  tpb[0] + hw_decode profile pe + 0x4",
        ),
        ("0x8028_0307_0000", "engine  tpb[4] + hw_decode cam pool  "),
    ] {
        let (code, out, _) = khal(&["decode", "--arch", "cayman", addr]);
        assert_eq!(code, 0);
        assert!(out.contains(want), "{addr}: {out}");
    }
    // SUNDA ships no device map: no engine places.
    let (_, out, _) = khal(&["decode", "--arch", "sunda", "0xFFF_C296_0000"]);
    assert!(!out.contains("xt/nx window"), "{out}");
}

/// An address inside a tile, past every described place, names the tile's
/// TPB base plus the offset, and says the TPB's own extent is not traced;
/// past the tiles' spacing it is unknown again.
#[test]
fn an_address_inside_a_tile_is_the_tpb_base_plus_its_offset() {
    let (code, out, _) = khal(&["decode", "--arch", "cayman", "0x2000000004"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("tpb  tpb[0] + 0x4  (inside the tile's span"),
        "{out}"
    );
    assert!(out.contains("extent is not traced"), "{out}");
    let (_, out, _) = khal(&["decode", "--arch", "cayman", "0x807FFFFFFFFC"]);
    assert!(out.contains("tpb  tpb[7] + 0xffffffffc"), "{out}");
    let (_, out, _) = khal(&["decode", "--arch", "cayman", "0x808000000000"]);
    assert!(out.contains("unknown"), "{out}");
    // SUNDA: the spacing is V2_MMAP_TPB_SIZE (0x400_0000) [kdrv v2].
    let (_, out, _) = khal(&["decode", "--arch", "sunda", "0xfffc4000010"]);
    assert!(out.contains("tpb  tpb[1] + 0x10"), "{out}");
    let (_, out, _) = khal(&["decode", "--arch", "sunda", "0xfffc8000000"]);
    assert!(out.contains("unknown"), "{out}");
    let (_, out, _) = khal(&["decode", "--arch", "cayman", "--json", "0x2000000004"]);
    let doc: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["places"][0]["item"], "tpb[0]");
    assert_eq!(doc["places"][0]["offset"], "0x4");
    assert_eq!(doc["status"], "found");
}
