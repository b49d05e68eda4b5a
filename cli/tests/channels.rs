//! `khal` under bad channels, every subcommand: a stdout that is closed
//! (`>&-`), full (`/dev/full`) or a broken pipe (the reader gone) fails the
//! command (exit 1, one `error:` line) and never claims success; a bad stderr
//! changes no exit code; nothing panics (no exit 101). With `--json`, stdout
//! is exactly one JSON document carrying a `schema`, success or failure.

use std::fs::File;
use std::process::{Command, Stdio};

use serde_json::Value;

const KHAL: &str = env!("CARGO_BIN_EXE_khal");

/// What a standard stream of the child is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Chan {
    /// A pipe this test reads.
    Piped,
    /// Closed at `exec` (`>&-`).
    Closed,
    /// `/dev/full`: every write fails with ENOSPC.
    Full,
    /// A pipe whose reader is gone: every write fails with EPIPE.
    Broken,
}

const BAD: [Chan; 3] = [Chan::Closed, Chan::Full, Chan::Broken];

fn stdio(c: Chan) -> Stdio {
    match c {
        Chan::Piped | Chan::Closed => Stdio::piped(),
        Chan::Full => File::options()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full")
            .into(),
        Chan::Broken => {
            let (reader, writer) = std::io::pipe().expect("pipe");
            drop(reader);
            writer.into()
        }
    }
}

/// Run `khal args` with the given stdout and stderr (a closed one through
/// `sh -c 'exec … >&-'`); returns (exit code, stdout, stderr) of what was
/// piped.
fn run(args: &[&str], out: Chan, err: Chan) -> (i32, String, String) {
    let mut redirs = String::new();
    if out == Chan::Closed {
        redirs.push_str(" >&-");
    }
    if err == Chan::Closed {
        redirs.push_str(" 2>&-");
    }
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!("exec \"$0\" \"$@\"{redirs}"))
        .arg(KHAL)
        .args(args)
        .stdin(Stdio::null())
        .stdout(stdio(out))
        .stderr(stdio(err))
        .output()
        .expect("run khal");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Commands that succeed and print something, one or more per subcommand.
const OK: &[&[&str]] = &[
    &["map", "--arch", "cayman"],
    &["map", "--arch", "sunda", "--json"],
    &[
        "map", "--arch", "mariana", "--family", "tpb", "--grep", "tpb[1]",
    ],
    &["map", "--diff", "sunda", "cayman"],
    &["map", "--arch", "cayman", "--svg", "-"],
    &["map", "--arch", "cayman", "--html", "-"],
    &["decode", "--arch", "mariana", "0x808580000400"],
    &["decode", "--arch", "cayman", "--json", "0x2000000004"],
    &[
        "trace", "--arch", "cayman", "nq-reset", "--queues", "10", "--index", "2",
    ],
    &["trace", "--arch", "sunda", "--json", "stpb-init"],
    &["demo", "--arch", "sunda", "--notifications", "100"],
    &[
        "demo",
        "--arch",
        "cayman",
        "--notifications",
        "100",
        "--json",
    ],
    &["--help"],
    &["--version"],
    &["help"],
    &["help", "map"],
    &["map", "--help"],
    &["decode", "--help"],
    &["trace", "--help"],
    &["demo", "--help"],
];

/// Commands that fail (exit 1): the operation itself fails.
const FAILED: &[&[&str]] = &[
    &["trace", "--arch", "cayman", "nq-reset", "--index", "22"],
    &[
        "trace", "--arch", "cayman", "--json", "nq-reset", "--index", "22",
    ],
    &[
        "demo",
        "--arch",
        "cayman",
        "--notifications",
        "100",
        "--fault",
        "stall",
    ],
    &[
        "demo",
        "--arch",
        "cayman",
        "--notifications",
        "100",
        "--fault",
        "gone",
        "--json",
    ],
    &[
        "map",
        "--arch",
        "cayman",
        "--svg",
        "/nonexistent/dir/map.svg",
    ],
];

/// Bad command lines (exit 2).
const USAGE: &[&[&str]] = &[
    &[],
    &["bogus"],
    &["--json"],
    &["map", "--arch", "foo"],
    &["map", "--arch", "cayman", "--family", "nope", "--json"],
    &["decode", "--arch", "cayman", "0x+10"],
    &["decode", "--arch", "cayman", "--json", "_1"],
    &["trace", "--arch", "cayman", "--json"],
    &["demo", "--arch", "cayman", "--notifications", "1\u{a0}"],
];

fn one_error_line(err: &str, what: &str) {
    assert_eq!(err.lines().count(), 1, "{what}: {err}");
    assert!(err.starts_with("error: "), "{what}: {err}");
    assert!(!err.contains("panicked"), "{what}: {err}");
}

#[test]
fn an_undeliverable_stdout_fails_every_command_that_prints() {
    for args in OK {
        let (code, out, err) = run(args, Chan::Piped, Chan::Piped);
        assert_eq!(code, 0, "{args:?}: {err}");
        assert!(!out.is_empty(), "{args:?}");
        for chan in BAD {
            let (code, _, err) = run(args, chan, Chan::Piped);
            let what = format!("{args:?} stdout {chan:?}");
            assert_eq!(code, 1, "{what}: {err}");
            one_error_line(&err, &what);
            assert!(
                err.starts_with("error: cannot write the output: "),
                "{what}: {err}"
            );
        }
    }
}

#[test]
fn a_bad_stderr_changes_no_exit_code() {
    for (cases, want) in [(OK, 0), (FAILED, 1), (USAGE, 2)] {
        for args in cases {
            for chan in BAD {
                let (code, out, _) = run(args, Chan::Piped, chan);
                assert_eq!(code, want, "{args:?} stderr {chan:?}");
                if want == 0 {
                    let (_, full, _) = run(args, Chan::Piped, Chan::Piped);
                    if !args.contains(&"demo") {
                        assert_eq!(out, full, "{args:?} stderr {chan:?}: all of stdout");
                    }
                }
                // Both channels bad: still the command's own code, never 101.
                for both in BAD {
                    let (code, _, _) = run(args, both, chan);
                    let want = if want == 0 { 1 } else { want };
                    assert_eq!(code, want, "{args:?} stdout {both:?} stderr {chan:?}");
                }
            }
        }
    }
}

#[test]
fn failures_and_usage_errors_are_one_line() {
    for (cases, want) in [(FAILED, 1), (USAGE, 2)] {
        for args in cases {
            let (code, _, err) = run(args, Chan::Piped, Chan::Piped);
            assert_eq!(code, want, "{args:?}: {err}");
            one_error_line(&err, &format!("{args:?}"));
        }
    }
}

/// Exactly one JSON document on stdout, with a `schema`.
fn one_document(out: &str, what: &str) -> Value {
    let docs: Vec<Value> = serde_json::Deserializer::from_str(out)
        .into_iter::<Value>()
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {out}"));
    assert_eq!(docs.len(), 1, "{what}: {out}");
    let doc = docs.into_iter().next().unwrap_or_default();
    let schema = doc["schema"].as_str().unwrap_or_default();
    assert!(schema.starts_with("khal"), "{what}: schema {schema:?}");
    assert!(schema.ends_with("/1"), "{what}: schema {schema:?}");
    doc
}

#[test]
fn json_is_one_document_per_subcommand_success_or_failure() {
    let cases: &[(&[&str], i32, &str)] = &[
        (&["map", "--arch", "cayman", "--json"], 0, "khal.map/1"),
        (
            &["map", "--arch", "cayman", "--json", "--family", "hbm"],
            0,
            "khal.map/1",
        ),
        (&["map", "--arch", "foo", "--json"], 2, "khal.map/1"),
        (
            &["map", "--json", "--diff", "sunda", "cayman"],
            2,
            "khal.map/1",
        ),
        (
            &["decode", "--arch", "cayman", "--json", "0x2000000004"],
            0,
            "khal.decode/1",
        ),
        (
            &[
                "decode", "--arch", "cayman", "--json", "--in", "notific", "0x10c",
            ],
            0,
            "khal.decode/1",
        ),
        (
            &["decode", "--arch", "cayman", "--json", "0x1 "],
            2,
            "khal.decode/1",
        ),
        (
            &[
                "trace", "--arch", "cayman", "--json", "nq-reset", "--index", "2",
            ],
            0,
            "khal.trace/1",
        ),
        (
            &[
                "trace", "--arch", "cayman", "--json", "nq-reset", "--index", "22",
            ],
            1,
            "khal.trace/1",
        ),
        (
            &[
                "trace", "--arch", "cayman", "--json", "nq-reset", "--index", "0x+2",
            ],
            2,
            "khal.trace/1",
        ),
        (
            &[
                "demo",
                "--arch",
                "sunda",
                "--json",
                "--notifications",
                "100",
            ],
            0,
            "khal.demo/1",
        ),
        (
            &[
                "demo",
                "--arch",
                "sunda",
                "--json",
                "--notifications",
                "100",
                "--fault",
                "lie",
            ],
            1,
            "khal.demo/1",
        ),
        (
            &[
                "demo",
                "--arch",
                "sunda",
                "--json",
                "--notifications",
                "0",
                "--fault",
                "lie",
            ],
            2,
            "khal.demo/1",
        ),
        (&["--json"], 2, "khal/1"),
    ];
    for &(args, want, schema) in cases {
        let (code, out, err) = run(args, Chan::Piped, Chan::Piped);
        assert_eq!(code, want, "{args:?}: {err}");
        let doc = one_document(&out, &format!("{args:?}"));
        assert_eq!(doc["schema"], schema, "{args:?}");
        if want == 0 {
            assert!(doc.get("error").is_none(), "{args:?}: {out}");
            assert!(err.is_empty(), "{args:?}: {err}");
        } else {
            let kind = if want == 2 { "usage" } else { "failed" };
            assert_eq!(doc["error"]["kind"], kind, "{args:?}: {out}");
            assert_eq!(
                doc["error"]["message"].as_str(),
                err.trim().strip_prefix("error: "),
                "{args:?}"
            );
        }
    }
}

#[test]
fn numbers_are_parsed_strictly() {
    for bad in [
        "0x+10",
        "+16",
        "-1",
        "_1",
        "1_",
        "1__0",
        "0x_10",
        "0x",
        "",
        " 1",
        "1 ",
        "\u{a0}1",
        "1\u{2003}",
        "\u{feff}1",
        "0x1g",
        "١",
    ] {
        let (code, out, err) = run(
            &["decode", "--arch", "cayman", bad],
            Chan::Piped,
            Chan::Piped,
        );
        assert_eq!(code, 2, "{bad:?}: {out}");
        one_error_line(&err, bad);
    }
    for (good, shown) in [
        ("0x1_0000", "0x10000"),
        ("4096", "0x1000"),
        ("0X10", "0x10"),
    ] {
        let (code, out, err) = run(
            &["decode", "--arch", "cayman", good],
            Chan::Piped,
            Chan::Piped,
        );
        assert_eq!(code, 0, "{good}: {err}");
        assert!(out.starts_with(shown), "{good}: {out}");
    }
}
