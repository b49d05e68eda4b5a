//! `khal demo`: every arch in both modes delivers every notification once and
//! in order over several wraps (`--json`); every `--fault` in both modes ends
//! in its typed error, one line, exit 1, within a second of wall time; the
//! default command (100000 notifications) succeeds; help and bad arguments.

use std::time::{Duration, Instant};

use serde_json::Value;

mod common;

/// `common::khal`, and how long the run took.
fn khal(args: &[&str]) -> (i32, String, String, Duration) {
    let t = Instant::now();
    let (code, out, err) = common::khal(args);
    (code, out, err, t.elapsed())
}

const ARCHES: [&str; 3] = ["sunda", "cayman", "mariana"];
const MODES: [&str; 2] = ["phase", "tail"];

fn num(v: &Value, k: &str) -> u64 {
    v[k].as_u64()
        .unwrap_or_else(|| panic!("key {k} missing or not a number in {v}"))
}

#[test]
fn every_arch_and_mode_delivers_every_notification_once_in_order() {
    for arch in ARCHES {
        for mode in MODES {
            let (code, out, err, _) = khal(&[
                "demo",
                "--arch",
                arch,
                "--mode",
                mode,
                "--notifications",
                "5000",
                "--json",
            ]);
            assert_eq!(code, 0, "{arch} {mode}: {err}");
            assert_eq!(out.lines().count(), 1, "one JSON object: {out}");
            let v: Value = serde_json::from_str(&out).expect("json");
            assert_eq!(v["arch"], arch);
            assert_eq!(v["mode"], mode);
            assert_eq!(num(&v, "posted"), 5000, "{v}");
            assert_eq!(num(&v, "drained"), num(&v, "posted"), "{v}");
            assert_eq!(num(&v, "lost"), 0, "{v}");
            assert_eq!(num(&v, "duplicated"), 0, "{v}");
            assert_eq!(num(&v, "misrouted"), 0, "{v}");
            assert!(num(&v, "wraps") >= 3, "{v}");
            // 11 rings of 64 entries: 5000 notifications wrap each ring.
            assert!(num(&v, "wraps") >= 5000 / 64 - 11, "{v}");
            // One head write per non-empty drain, none per empty poll.
            let drains = num(&v, "drain_calls");
            let empty = num(&v, "empty_polls");
            assert_eq!(num(&v, "head_writes"), drains - empty, "{v}");
            assert_eq!(num(&v, "non_empty_drains"), drains - empty, "{v}");
            // Phase mode reads no register while draining; tail mode at most
            // one tail read per drain call.
            match mode {
                "phase" => assert_eq!(num(&v, "drain_mmio_reads"), 0, "{v}"),
                _ => {
                    let r = num(&v, "drain_mmio_reads");
                    assert!(r > 0 && r <= drains, "{v}");
                }
            }
            for k in ["mmio_reads", "mmio_writes", "elapsed_ms"] {
                num(&v, k);
            }
            assert!(num(&v, "mmio_writes") >= num(&v, "head_writes"));
            let tables = if arch == "sunda" { 4 } else { 5 };
            assert_eq!(v["dve"]["tables"], tables, "{v}");
            assert_eq!(v["dve"]["sha256"].as_str().map(str::len), Some(64));
            assert_eq!(v["intc"].is_string(), arch == "mariana", "{v}");
            assert!(
                v["stpb_init"].as_str().is_some_and(|s| !s.is_empty()),
                "{v}"
            );
        }
    }
}

#[test]
fn a_short_run_still_counts_right() {
    for n in ["0", "1", "63", "64", "65"] {
        let (code, out, err, _) =
            khal(&["demo", "--arch", "cayman", "--notifications", n, "--json"]);
        assert_eq!(code, 0, "{n}: {err}");
        let v: Value = serde_json::from_str(&out).expect("json");
        let n: u64 = n.parse().unwrap();
        assert_eq!((num(&v, "posted"), num(&v, "drained")), (n, n));
        assert_eq!((num(&v, "lost"), num(&v, "duplicated")), (0, 0));
    }
}

/// The typed error each fault must end in, per mode (see `cli/src/demo.rs`).
fn expected(fault: &str, mode: &str) -> &'static str {
    match (fault, mode) {
        ("stall", _) => "timeout: device accepting notifications on an empty NQ",
        ("lie", _) => "device fault: tail 0x18 is not a multiple of the 16-byte entry",
        ("slow", "tail") => "timeout: nq notification arrival",
        ("slow", _) => "timeout: posted notifications landing (phase bits)",
        // Both modes name the gone device (phase mode through the demo's
        // liveness probe before it waits for a device that takes nothing).
        ("gone", _) => "reads all ones (device gone)",
        _ => unreachable!(),
    }
}

#[test]
fn every_fault_ends_in_its_typed_error_within_a_second() {
    for arch in ARCHES {
        for mode in MODES {
            for fault in ["stall", "lie", "slow", "gone"] {
                for json in [false, true] {
                    let mut args = vec![
                        "demo",
                        "--arch",
                        arch,
                        "--mode",
                        mode,
                        "--notifications",
                        "5000",
                        "--fault",
                        fault,
                    ];
                    if json {
                        args.push("--json");
                    }
                    let (code, out, err, took) = khal(&args);
                    assert_eq!(code, 1, "{args:?}: {err}");
                    if json {
                        // The JSON summary of the run so far, holding the error.
                        let v: Value = serde_json::from_str(&out)
                            .unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"));
                        assert_eq!(v["error"]["kind"], "failed");
                        assert_eq!(
                            v["error"]["message"].as_str(),
                            err.trim().strip_prefix("error: ")
                        );
                        assert_eq!(v["schema"], "khal.demo/1");
                        assert_eq!(
                            (v["arch"].as_str(), v["mode"].as_str()),
                            (Some(arch), Some(mode))
                        );
                        assert!(num(&v, "posted") >= num(&v, "drained"), "{v}");
                        assert!(num(&v, "drained") > 0, "{v}");
                    } else {
                        assert!(out.is_empty(), "{args:?}: {out}");
                    }
                    assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
                    assert!(
                        err.starts_with(&format!("error: demo --fault {fault} on {arch}: ")),
                        "{err}"
                    );
                    assert!(err.contains(expected(fault, mode)), "{args:?}: {err}");
                    assert!(!err.contains("panicked"), "{err}");
                    assert!(took < Duration::from_secs(1), "{args:?} took {took:?}");
                }
            }
        }
    }
}

#[test]
fn a_fault_on_the_shortest_run_still_ends_in_an_error() {
    for mode in MODES {
        for fault in ["stall", "lie", "slow", "gone"] {
            // No traffic: nothing to inject the fault into, a bad command line.
            let (code, out, err, _) = khal(&[
                "demo",
                "--arch",
                "sunda",
                "--mode",
                mode,
                "--notifications",
                "0",
                "--fault",
                fault,
            ]);
            // A bad command line: exit 2.
            assert_eq!(code, 2, "{fault}: {err}");
            assert!(out.is_empty());
            assert_eq!(err, "error: --fault needs --notifications > 0\n");
            // One notification: the fault is injected before it is posted.
            let (code, out, err, took) = khal(&[
                "demo",
                "--arch",
                "mariana",
                "--mode",
                mode,
                "--notifications",
                "1",
                "--fault",
                fault,
            ]);
            assert_eq!(code, 1, "{mode} {fault}: {err}");
            assert!(out.is_empty());
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(
                err.contains("timeout: ") || err.contains("device fault: "),
                "{err}"
            );
            assert!(took < Duration::from_secs(1), "{took:?}");
        }
    }
}

#[test]
fn the_default_command_succeeds_with_the_summary() {
    let (code, out, err, _) = khal(&["demo", "--arch", "cayman"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("posted = 100000, drained = 100000, lost = 0, duplicated = 0"),
        "{out}"
    );
    assert!(out.contains("result: OK"), "{out}");
    // A healthy run reads like one: why CAYMAN has no INTC line, and no
    // "0 us simulated" that looks like nothing ran.
    assert!(
        out.contains("intc       skipped: cayman's INTC is not traced in the notes"),
        "{out}"
    );
    assert!(out.contains("no wait had to sleep"), "{out}");
    assert!(!out.contains("us simulated"), "{out}");
    // Not a terminal here: no progress bar on stderr.
    assert!(err.is_empty(), "{err}");
}

#[test]
fn help_explains_with_examples_and_bad_arguments_are_one_line() {
    let (code, out, _, _) = khal(&["--help"]);
    assert_eq!(code, 0);
    for cmd in [
        "khal demo --arch",
        "khal trace --arch",
        "khal map",
        "khal decode",
    ] {
        assert!(out.contains(cmd), "khal --help lacks {cmd}:\n{out}");
    }
    for sub in ["demo", "trace", "map", "decode"] {
        let (code, out, _, _) = khal(&[sub, "--help"]);
        assert_eq!(code, 0);
        assert!(out.contains("Examples:"), "{sub} --help:\n{out}");
    }
    let (code, out, _, _) = khal(&["demo", "--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("cargo run --release -p khal-cli -- demo --arch cayman"));
    for bad in [
        vec!["demo", "--arch", "foo"],
        vec!["demo"],
        vec!["demo", "--arch", "cayman", "--mode", "both"],
        vec!["demo", "--arch", "cayman", "--fault", "fire"],
        vec!["demo", "--arch", "cayman", "--notifications", "-1"],
        vec!["trace", "--arch", "cayman"],
        vec![],
    ] {
        let (code, out, err, _) = khal(&bad);
        assert_eq!(code, 2, "{bad:?}: {err}");
        assert!(out.is_empty(), "{bad:?}");
        assert_eq!(err.lines().count(), 1, "{bad:?}: {err}");
        assert!(err.starts_with("error:"), "{bad:?}: {err}");
    }
}
