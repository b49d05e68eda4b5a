//! How `khal` ends: a bad command line is exit 2, `--json` or not (with
//! `--json` its error document is on stdout); `demo --notifications` has a
//! stated cap; `map --diff` of one arch with itself says so. The bad
//! channels (closed, full, broken pipe) are in `channels.rs`.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const KHAL: &str = env!("CARGO_BIN_EXE_khal");

/// Run `khal args` with stdout to `stdout`; returns (exit code, stdout,
/// stderr). Killed after 20 s (a run that would not end is a failure).
fn khal_to(args: &[&str], stdout: Stdio) -> (i32, String, String) {
    let mut child = Command::new(KHAL)
        .args(args)
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("run khal");
    let t = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if t.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("khal {args:?} still running after 20 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let out = child.wait_with_output().expect("output");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn khal(args: &[&str]) -> (i32, String, String) {
    khal_to(args, Stdio::piped())
}

#[test]
fn map_diff_of_an_arch_with_itself_says_they_are_the_same() {
    for arch in ["sunda", "cayman", "mariana"] {
        let (code, out, err) = khal(&["map", "--diff", arch, arch]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(
            out,
            format!(
                "{arch} and {arch} are the same arch: no item differs \
                 (--diff takes two different arches)\n"
            )
        );
    }
    // Two arches still get their table.
    let (code, out, _) = khal(&["map", "--diff", "sunda", "cayman"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("family"), "{out}");
    assert!(out.lines().count() > 1, "{out}");
}

#[test]
fn a_bad_command_line_is_exit_2_with_or_without_json() {
    for bad in [
        vec!["map", "--diff", "sunda", "cayman", "--json"],
        vec!["map", "--json", "--diff", "sunda", "sunda"],
        vec!["map", "--json"],
        vec!["map", "--json", "--arch", "foo"],
        vec!["decode", "--json", "--arch", "cayman", "0x+10"],
        vec!["demo", "--json", "--arch", "foo"],
        vec!["demo", "--json", "--arch", "cayman", "--mode", "both"],
        vec!["demo", "--json", "--arch", "cayman", "--fault", "fire"],
        vec!["demo", "--json", "--arch", "cayman", "--notifications", "x"],
        vec![
            "demo",
            "--json",
            "--arch",
            "cayman",
            "--notifications",
            "0",
            "--fault",
            "stall",
        ],
        vec!["trace", "--json", "--arch", "cayman"],
        vec!["--json"],
    ] {
        let (code, out, err) = khal(&bad);
        assert_eq!(code, 2, "{bad:?}: {err}");
        let doc: serde_json::Value = serde_json::from_str(&out).expect("one JSON document");
        assert_eq!(doc["error"]["kind"], "usage", "{bad:?}: {out}");
        assert_eq!(
            doc["error"]["message"].as_str(),
            err.trim().strip_prefix("error: ")
        );
        assert_eq!(err.lines().count(), 1, "{bad:?}: {err}");
        assert!(err.starts_with("error: "), "{bad:?}: {err}");
    }
}

#[test]
fn demo_refuses_counts_above_its_cap_at_once() {
    for n in ["100000001", "1000000000000", "18446744073709551615"] {
        for json in [false, true] {
            let mut args = vec!["demo", "--arch", "cayman", "--notifications", n];
            if json {
                args.push("--json");
            }
            let t = Instant::now();
            let (code, out, err) = khal(&args);
            assert_eq!(code, 2, "{args:?}: {err}");
            assert_eq!(out.is_empty(), !json, "{args:?}");
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(
                err.contains("at most 100000000 notifications per run"),
                "{err}"
            );
            assert!(t.elapsed() < Duration::from_secs(2), "{args:?}");
        }
    }
    // The cap is stated in the help.
    let (_, out, _) = khal(&["demo", "--help"]);
    assert!(out.contains("at most 100000000"), "{out}");
}
