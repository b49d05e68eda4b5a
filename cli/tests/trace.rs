//! `khal trace`: every operation's JSON lines against the sequence the notes
//! prescribe ([004 §2, §3, §4, §5], [FACTS §6, §7]), written from the notes
//! (offsets, values, order), not from the program's output; and the error
//! cases (an operation the arch does not have, an argument out of range):
//! non-zero exit, one line on stderr, nothing on stdout.

mod common;
use common::khal;

/// One expected access: (op, block, offset, value, reg).
type Acc = (&'static str, &'static str, u64, u32, &'static str);

const W: &str = "write";
const R: &str = "read";
const N: &str = "notific";
const X: &str = "msix";
const NX: &str = "tpb_nx_local";

/// The one JSON document of `trace --json` (schema `khal.trace/1`) and its
/// access lines, one per line as printed (without the separating comma).
fn document(out: &str) -> (serde_json::Value, Vec<&str>) {
    let doc: serde_json::Value = serde_json::from_str(out).expect("one JSON document");
    assert_eq!(doc["schema"], "khal.trace/1", "{out}");
    let lines: Vec<&str> = out
        .lines()
        .skip(1)
        .filter(|l| l.starts_with('{'))
        .map(|l| l.strip_suffix(',').unwrap_or(l))
        .collect();
    assert_eq!(
        lines.len(),
        doc["accesses"].as_array().expect("accesses").len(),
        "{out}"
    );
    (doc, lines)
}

/// Run `khal trace --arch <arch> --json <op...>` and compare every access
/// with `want`, as JSON and as exact text (key order, lowercase `0x` hex).
fn check(arch: &str, op: &[&str], want: &[Acc]) {
    let mut args = vec!["trace", "--arch", arch, "--json"];
    args.extend_from_slice(op);
    let (code, out, err) = khal(&args);
    assert_eq!(code, 0, "{args:?}: {err}");
    assert!(err.is_empty(), "{args:?}: stderr {err}");
    let (_, lines) = document(&out);
    assert_eq!(lines.len(), want.len(), "{args:?}:\n{out}");
    for (line, &(o, b, off, v, reg)) in lines.iter().zip(want) {
        let exact = format!(
            r#"{{"op":"{o}","block":"{b}","offset":"{off:#x}","value":"{v:#x}","reg":"{reg}"}}"#
        );
        assert_eq!(*line, exact, "{args:?}");
        let j: serde_json::Value = serde_json::from_str(line).expect("json");
        assert_eq!(j["op"], o);
        assert_eq!(j["offset"], format!("{off:#x}"));
    }
}

/// The error cases: non-zero exit, one `error:` line, nothing traced (with
/// `--json`, the error document alone).
fn fails(arch: &str, op: &[&str], needle: &str) {
    for json in [true, false] {
        let mut args = vec!["trace", "--arch", arch];
        if json {
            args.push("--json");
        }
        args.extend_from_slice(op);
        let (code, out, err) = khal(&args);
        assert_ne!(code, 0, "{args:?} must fail");
        if json {
            let doc: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
            assert_eq!(doc["schema"], "khal.trace/1");
            assert_eq!(
                doc["error"]["message"].as_str(),
                err.trim().strip_prefix("error: "),
                "{args:?}"
            );
            assert!(doc.get("accesses").is_none(), "{args:?}: nothing traced");
        } else {
            assert!(out.is_empty(), "{args:?}: nothing traced, got {out}");
        }
        assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err} lacks {needle}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

const ARCHES: [&str; 3] = ["sunda", "cayman", "mariana"];

#[test]
fn notific_init_both_flavours_both_bp_modes() {
    // [004 §2]: uart_mode; wob_ctrl = 1; 10-queue only: coal_timer 0xAAE60;
    // wr_buf_enable lo, hi all ones; set_bp_config: sw_backpressure
    // (mode 0 → 0x3FF, mode 1 → 0), hw_backpressure lo, hi all ones [FACTS §6].
    for arch in ARCHES {
        check(
            arch,
            &[
                "notific-init",
                "--queues",
                "10",
                "--bp-mode",
                "0",
                "--uart-mode",
                "5",
            ],
            &[
                (W, N, 0x28, 5, "nq_uart_mode"),
                (W, N, 0xBC, 1, "wob_ctrl"),
                (W, N, 0xB4, 0xAAE60, "coal_timer"),
                (W, N, 0x30, 0xFFFF_FFFF, "wr_buf_enable_lo"),
                (W, N, 0x34, 0xFFFF_FFFF, "wr_buf_enable_hi"),
                (W, N, 0x08, 0x3FF, "sw_backpressure"),
                (W, N, 0x0C, 0xFFFF_FFFF, "hw_backpressure_lo"),
                (W, N, 0x10, 0xFFFF_FFFF, "hw_backpressure_hi"),
            ],
        );
        check(
            arch,
            &[
                "notific-init",
                "--queues",
                "1",
                "--bp-mode",
                "1",
                "--uart-mode",
                "0",
            ],
            &[
                (W, N, 0x28, 0, "nq_uart_mode"),
                (W, N, 0xBC, 1, "wob_ctrl"),
                (W, N, 0x30, 0xFFFF_FFFF, "wr_buf_enable_lo"),
                (W, N, 0x34, 0xFFFF_FFFF, "wr_buf_enable_hi"),
                (W, N, 0x08, 0, "sw_backpressure"),
                (W, N, 0x0C, 0xFFFF_FFFF, "hw_backpressure_lo"),
                (W, N, 0x10, 0xFFFF_FFFF, "hw_backpressure_hi"),
            ],
        );
    }
}

#[test]
fn nq_configure_strided_and_flat() {
    // [004 §3] queue_config: base_lo +0x100, base_hi +0x104, f_size +0x108,
    // + 40 * idx on the 10-queue flavour, no stride on the single-queue one
    // (whose only queue is 0: another index is refused, nothing traced).
    for arch in ARCHES {
        let op = |q: &'static str, idx: &'static str| {
            [
                "nq-configure",
                "--queues",
                q,
                "--index",
                idx,
                "--base",
                "0x12_3456_7890",
                "--size",
                "4096",
            ]
        };
        check(
            arch,
            &op("10", "3"),
            &[
                (W, N, 0x100 + 120, 0x3456_7890, "nq[3].nq_base_addr_lo"),
                (W, N, 0x104 + 120, 0x12, "nq[3].nq_base_addr_hi"),
                (W, N, 0x108 + 120, 4096, "nq[3].nq_f_size"),
            ],
        );
        check(
            arch,
            &op("1", "0"),
            &[
                (W, N, 0x100, 0x3456_7890, "nq[0].nq_base_addr_lo"),
                (W, N, 0x104, 0x12, "nq[0].nq_base_addr_hi"),
                (W, N, 0x108, 4096, "nq[0].nq_f_size"),
            ],
        );
        let mut args = vec!["trace", "--arch", arch];
        args.extend_from_slice(&op("1", "3"));
        let (code, out, err) = khal(&args);
        assert_ne!(code, 0, "{args:?}: {out}");
        assert!(err.contains("nq index (single-queue flavour)"), "{err}");
    }
}

#[test]
fn nq_reset_with_and_without_the_flush_pulse() {
    // [004 §3] reset: sw_overflow (+0x18), nq_enable (+0x14) with the queue's
    // bits cleared; idx <= 3: read coal_ctrl, write it | 0x200, write it &
    // !0x200; read the tail until 0; write the head (0 after a reset [FACTS §11]).
    for arch in ARCHES {
        check(
            arch,
            &["nq-reset", "--queues", "10", "--index", "2"],
            &[
                (W, N, 0x18, 0, "sw_overflow"),
                (W, N, 0x14, 0, "nq_enable"),
                (R, N, 0xB8, 0, "coal_ctrl"),
                (W, N, 0xB8, 0x200, "coal_ctrl"),
                (W, N, 0xB8, 0, "coal_ctrl"),
                (R, N, 0x110 + 80, 0, "nq[2].nq_tail_ptr"),
                (W, N, 0x10C + 80, 0, "nq[2].nq_head_ptr"),
            ],
        );
        check(
            arch,
            &["nq-reset", "--queues", "10", "--index", "7"],
            &[
                (W, N, 0x18, 0, "sw_overflow"),
                (W, N, 0x14, 0, "nq_enable"),
                (R, N, 0x110 + 280, 0, "nq[7].nq_tail_ptr"),
                (W, N, 0x10C + 280, 0, "nq[7].nq_head_ptr"),
            ],
        );
        check(
            arch,
            &["nq-reset", "--queues", "1", "--index", "0"],
            &[
                (W, N, 0x18, 0, "sw_overflow"),
                (W, N, 0x14, 0, "nq_enable"),
                (R, N, 0xB8, 0, "coal_ctrl"),
                (W, N, 0xB8, 0x200, "coal_ctrl"),
                (W, N, 0xB8, 0, "coal_ctrl"),
                (R, N, 0x110, 0, "nq[0].nq_tail_ptr"),
                (W, N, 0x10C, 0, "nq[0].nq_head_ptr"),
            ],
        );
    }
}

#[test]
fn engine_config_ops() {
    for arch in ARCHES {
        // [004 §2] set_axi_id: write nq_axi_id, then read-modify-write bit 0
        // of wob_ctrl (init left it at 1).
        check(
            arch,
            &["set-axi-id", "--id", "0x1f", "--rotate", "0"],
            &[
                (W, N, 0x2C, 0x1F, "nq_axi_id"),
                (R, N, 0xBC, 1, "wob_ctrl"),
                (W, N, 0xBC, 0, "wob_ctrl"),
            ],
        );
        check(
            arch,
            &["set-axi-id", "--id", "7", "--rotate", "1"],
            &[
                (W, N, 0x2C, 7, "nq_axi_id"),
                (R, N, 0xBC, 1, "wob_ctrl"),
                (W, N, 0xBC, 1, "wob_ctrl"),
            ],
        );
        // [004 §2] set_bp_config: sw_backpressure 0x3FF / 0, both hw-bp words all ones.
        for (mode, sw) in [("0", 0x3FF), ("1", 0)] {
            check(
                arch,
                &["set-bp-config", "--mode", mode],
                &[
                    (W, N, 0x08, sw, "sw_backpressure"),
                    (W, N, 0x0C, 0xFFFF_FFFF, "hw_backpressure_lo"),
                    (W, N, 0x10, 0xFFFF_FFFF, "hw_backpressure_hi"),
                ],
            );
        }
        // [004 §2] coalescer stream: the stream shadow (seeded 15 on the
        // 10-queue flavour) into coal_ctrl bits 13:10 by read-modify-write.
        check(
            arch,
            &["coalescer-stream", "--stream", "2", "--enable", "0"],
            &[
                (R, N, 0xB8, 0, "coal_ctrl"),
                (W, N, 0xB8, 0b1011 << 10, "coal_ctrl"),
            ],
        );
        check(
            arch,
            &["coalescer-stream", "--stream", "3", "--enable", "1"],
            &[
                (R, N, 0xB8, 0, "coal_ctrl"),
                (W, N, 0xB8, 0x3C00, "coal_ctrl"),
            ],
        );
        // Single-queue flavour: no seed, one stream.
        check(
            arch,
            &[
                "coalescer-stream",
                "--queues",
                "1",
                "--stream",
                "0",
                "--enable",
                "1",
            ],
            &[
                (R, N, 0xB8, 0, "coal_ctrl"),
                (W, N, 0xB8, 0x400, "coal_ctrl"),
            ],
        );
    }
}

#[test]
fn mariana_intc_ops() {
    // [004 §4], [FACTS §7]: mask: shadow |= 1 << vec to set-mask (+16), then
    // 1 to the vector control (+2060 + 16 * vec); unmask: shadow to
    // clear-mask (+24), then 0.
    check(
        "mariana",
        &["intc-mask-vector", "--vector", "3"],
        &[
            (W, X, 16, 1 << 3, "set_mask"),
            (W, X, 2060 + 16 * 3, 1, "vec[3].vector_ctrl"),
        ],
    );
    check(
        "mariana",
        &["intc-unmask-vector", "--vector", "7"],
        &[
            (W, X, 24, 0, "clear_mask"),
            (W, X, 2060 + 16 * 7, 0, "vec[7].vector_ctrl"),
        ],
    );
    // Moderation timer: read +40, write with bits 27:24 = period.
    check(
        "mariana",
        &["intc-mod-timer", "--period", "15"],
        &[
            (R, X, 40, 0, "mod_timer_ctrl"),
            (W, X, 40, 15 << 24, "mod_timer_ctrl"),
        ],
    );
    // set_notific_queue_base: map[8 * (block > 3) + queue]; entries 0..7 =
    // 0x85_8000_0400 + 0x200 * q, 8..15 the same | bit 47; written as the NQ's
    // base_lo then base_hi.
    check(
        "mariana",
        &[
            "intc-set-notific-queue-base",
            "--block",
            "2",
            "--queue",
            "3",
        ],
        &[
            (W, N, 0x100, 0x8000_0A00, "nq[0].nq_base_addr_lo"),
            (W, N, 0x104, 0x85, "nq[0].nq_base_addr_hi"),
        ],
    );
    check(
        "mariana",
        &[
            "intc-set-notific-queue-base",
            "--nq",
            "2",
            "--block",
            "4",
            "--queue",
            "1",
        ],
        &[
            (W, N, 0x100 + 80, 0x8000_0600, "nq[2].nq_base_addr_lo"),
            (W, N, 0x104 + 80, 0x8085, "nq[2].nq_base_addr_hi"),
        ],
    );
}

#[test]
fn sunda_q7_swap_table() {
    // [004 §5]: low dword → nx_rsvd_space0 (+0x83C), high → nx_rsvd_space1
    // (+0x840), b → nx_rsvd_space2 (+0x844).
    check(
        "sunda",
        &[
            "q7-swap-table",
            "--value",
            "0x1122334455667788",
            "--extra",
            "0x99",
        ],
        &[
            (W, NX, 0x83C, 0x5566_7788, "nx_rsvd_space0"),
            (W, NX, 0x840, 0x1122_3344, "nx_rsvd_space1"),
            (W, NX, 0x844, 0x99, "nx_rsvd_space2"),
        ],
    );
}

#[test]
fn operations_the_arch_does_not_have() {
    for arch in ["sunda", "cayman"] {
        fails(
            arch,
            &["intc-mask-vector", "--vector", "1"],
            "not supported",
        );
        fails(
            arch,
            &["intc-unmask-vector", "--vector", "1"],
            "not supported",
        );
        fails(arch, &["intc-mod-timer", "--period", "1"], "not supported");
        fails(
            arch,
            &[
                "intc-set-notific-queue-base",
                "--block",
                "0",
                "--queue",
                "0",
            ],
            "not supported",
        );
    }
    // MARIANA's swap table is not in the sources.
    fails(
        "mariana",
        &["q7-swap-table", "--value", "1", "--extra", "2"],
        "not supported",
    );
}

#[test]
fn arguments_out_of_range() {
    let init = |q: &'static str, bp: &'static str| {
        [
            "notific-init",
            "--queues",
            q,
            "--bp-mode",
            bp,
            "--uart-mode",
            "0",
        ]
    };
    fails("cayman", &init("10", "2"), "unknown back-pressure mode 2");
    fails("cayman", &init("0", "0"), "num_queues");
    fails("cayman", &init("11", "0"), "num_queues");
    let cfg = |i: &'static str, size: &'static str| {
        [
            "nq-configure",
            "--index",
            i,
            "--base",
            "0x1000",
            "--size",
            size,
        ]
    };
    fails("sunda", &cfg("10", "256"), "nq index 10 out of range");
    fails("sunda", &cfg("0", "0"), "nq size");
    fails("sunda", &cfg("0", "17"), "nq size");
    fails(
        "mariana",
        &["nq-reset", "--index", "10"],
        "nq index 10 out of range",
    );
    fails(
        "cayman",
        &["set-axi-id", "--id", "1", "--rotate", "2"],
        "--rotate",
    );
    fails(
        "cayman",
        &["set-bp-config", "--mode", "2"],
        "unknown back-pressure mode 2",
    );
    fails(
        "cayman",
        &["coalescer-stream", "--stream", "4", "--enable", "1"],
        "coalescer stream",
    );
    fails(
        "cayman",
        &[
            "coalescer-stream",
            "--queues",
            "1",
            "--stream",
            "1",
            "--enable",
            "1",
        ],
        "coalescer stream",
    );
    fails(
        "cayman",
        &["coalescer-stream", "--stream", "0", "--enable", "3"],
        "--enable",
    );
    fails(
        "mariana",
        &["intc-mask-vector", "--vector", "8"],
        "vector > 7",
    );
    fails(
        "mariana",
        &["intc-unmask-vector", "--vector", "8"],
        "vector > 7",
    );
    fails(
        "mariana",
        &["intc-mod-timer", "--period", "16"],
        "period 16 out of range",
    );
    fails(
        "mariana",
        &[
            "intc-set-notific-queue-base",
            "--block",
            "8",
            "--queue",
            "0",
        ],
        "out of range",
    );
    fails(
        "mariana",
        &[
            "intc-set-notific-queue-base",
            "--block",
            "0",
            "--queue",
            "8",
        ],
        "out of range",
    );
    // Not a number at all: a command-line error (exit 2), still one line.
    let (code, out, err) = khal(&["trace", "--arch", "sunda", "set-bp-config", "--mode", "x"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn human_output_names_every_access() {
    let (code, out, _) = khal(&["trace", "--arch", "cayman", "nq-reset", "--index", "1"]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("# nq-reset on cayman: 7 register access"));
    assert!(lines[0].contains("relative"));
    assert!(lines[6].contains("nq[1].nq_tail_ptr"));
    assert!(lines[7].contains("nq[1].nq_head_ptr"));
}

#[test]
fn cayman_q7_swap_table_succeeds_with_no_register_access() {
    // [004 §5 QUIRK]: `xor eax,eax; ret` — success, nothing touched.
    check(
        "cayman",
        &["q7-swap-table", "--value", "1", "--extra", "2"],
        &[],
    );
    let (code, out, _) = khal(&[
        "trace",
        "--arch",
        "cayman",
        "q7-swap-table",
        "--value",
        "1",
        "--extra",
        "2",
    ]);
    assert_eq!(code, 0);
    assert!(out.contains("0 register access(es)"), "{out}");
}

const XT: &str = "tpb_xt_local";

#[test]
fn cayman_program_start_lo_hi_ctrl_in_the_notes_order() {
    // [002 §4], [FACTS §12.1, §13.1]: POOL, ACT, PE, DVE; lo +0x1060,
    // hi +0x1080, START_CTRL +0x004 = 1, each at its own window.
    let per = |lo: u32, hi: u32| {
        [
            (W, NX, 0x1060, lo, "start_addr_lo"),
            (W, NX, 0x1080, hi, "start_addr_hi"),
            (W, NX, 0x004, 1, "start_ctrl"),
        ]
    };
    let mut want = Vec::new();
    want.extend(per(0x30, 3)); // POOL
    want.extend(per(0x10, 2)); // ACT
    want.extend(per(0x00, 1)); // PE
    check(
        "cayman",
        &[
            "program-start",
            "--pe",
            "0x100000000",
            "--act",
            "0x200000010",
            "--pool",
            "0x300000030",
            "--dve",
            "skip",
        ],
        &want,
    );
    // SP launched: its window's owner is not in the notes; SUNDA/MARIANA have
    // no start registers: typed NotTraced, nothing traced.
    fails("cayman", &["program-start", "--sp", "0x10"], "not traced");
    fails("sunda", &["program-start"], "not traced");
    fails("mariana", &["program-start"], "not traced");
}

#[test]
fn stpb_init_names_the_step_where_it_stopped_on_every_arch() {
    for arch in ARCHES {
        let (code, out, err) = khal(&["trace", "--arch", arch, "--json", "stpb-init"]);
        assert_eq!(code, 0, "{arch}: {err}");
        let (doc, _) = document(&out);
        let lines = doc["steps"].as_array().expect("steps").clone();
        assert_eq!(lines.len(), 1, "{arch}: {out}");
        assert_eq!(lines[0]["step"], "pooling_init.regs_init");
        assert!(
            lines[0]["outcome"]
                .as_str()
                .unwrap()
                .starts_with("not traced: pooling regs_init"),
            "{out}"
        );
        let (_, text, _) = khal(&["trace", "--arch", arch, "stpb-init"]);
        assert!(
            text.contains("stpb_init stopped at pooling_init.regs_init: not traced"),
            "{text}"
        );
    }
}

#[test]
fn release_run_stall_per_arch() {
    // [FACTS §13.4]: SUNDA +0x04 only; CAYMAN/MARIANA +0x00 then +0x3000.
    check(
        "sunda",
        &["release-run-stall", "--engine", "pool"],
        &[(W, NX, 0x4, 0, "release_run_stall")],
    );
    for arch in ["cayman", "mariana"] {
        check(
            arch,
            &["release-run-stall", "--engine", "pool"],
            &[
                (W, NX, 0x0, 0, "release_run_stall"),
                (W, XT, 0x3000, 0, "q7_release_run_stall"),
            ],
        );
        fails(arch, &["release-run-stall", "--engine", "pe"], "not traced");
    }
}

#[test]
fn disable_hw_decode_dge_and_doorbells() {
    check(
        "cayman",
        &["disable-hw-decode", "--value", "1"],
        &[
            (R, XT, 0x4000, 0, "hw_decode_control"),
            (W, XT, 0x4000, 1, "hw_decode_control"),
        ],
    );
    check("sunda", &["disable-hw-decode"], &[]);
    check(
        "cayman",
        &["dge-carveout", "--size", "0x100", "--offset", "0x20"],
        &[(W, NX, 0x14E0, 0x0010_0002, "sw_dge_carveout")],
    );
    fails(
        "cayman",
        &["dge-carveout", "--size", "0x38000", "--offset", "0x10"],
        "offset + size > cap",
    );
    fails(
        "cayman",
        &["dge-carveout", "--size", "0x108", "--offset", "0"],
        "not a multiple of 16",
    );
    fails(
        "sunda",
        &["dge-carveout", "--size", "0x100", "--offset", "0"],
        "not traced",
    );
    check(
        "cayman",
        &["topsp-doorbell", "--which", "tsync_signal"],
        &[(W, NX, 0x1560, 1, "topsp_tsync_signal")],
    );
    check(
        "sunda",
        &["topsp-doorbell", "--which", "host_trigger", "--value", "7"],
        &[(W, "topsp_nx", 0x848, 7, "host_trigger")],
    );
    fails(
        "mariana",
        &["topsp-doorbell", "--which", "stop_signal"],
        "not traced",
    );
}

#[test]
fn q7_ucode_load_bursts_dram_then_iram_per_core() {
    // SUNDA [FACTS §13.3]: 8 cores, stride 0x2_0000 from 0x298_0000; per core
    // the DRAM image (0x1_0000 padded) at IRAM + 0x1_0000, then the IRAM image.
    let (code, out, err) = khal(&[
        "trace",
        "--arch",
        "sunda",
        "--json",
        "q7-ucode-load",
        "--owner",
        "0",
        "--iram-size",
        "8",
        "--dram-size",
        "4",
    ]);
    assert_eq!(code, 0, "{err}");
    let (doc, _) = document(&out);
    let lines = doc["accesses"].as_array().expect("accesses").clone();
    assert_eq!(lines.len(), 16);
    for (k, pair) in lines.chunks(2).enumerate() {
        let iram = 0x298_0000 + 0x2_0000 * k as u64;
        assert_eq!(pair[0]["offset"], format!("{:#x}", iram + 0x1_0000));
        assert_eq!(pair[0]["words"], 0x4000);
        assert_eq!(pair[0]["first"], "0x4030201");
        assert_eq!(pair[1]["offset"], format!("{iram:#x}"));
        assert_eq!(pair[1]["nonzero"], 2);
        assert_eq!(pair[1]["first"], "0x3020100");
    }
    fails(
        "sunda",
        &[
            "q7-ucode-load",
            "--owner",
            "1",
            "--iram-size",
            "4",
            "--dram-size",
            "4",
        ],
        "only pooling supported",
    );
    fails(
        "cayman",
        &[
            "q7-ucode-load",
            "--owner",
            "0",
            "--iram-size",
            "0x20001",
            "--dram-size",
            "4",
        ],
        "IRAM ucode too big!",
    );
}

#[test]
fn every_engine_op_has_help_with_an_example() {
    for op in [
        "program-start",
        "stpb-init",
        "release-run-stall",
        "disable-hw-decode",
        "dge-carveout",
        "topsp-doorbell",
        "q7-ucode-load",
    ] {
        let (code, out, _) = khal(&["trace", "--arch", "cayman", op, "--help"]);
        assert_eq!(code, 0, "{op}");
        assert!(out.contains("Example:") && out.contains(op), "{op}: {out}");
    }
}
