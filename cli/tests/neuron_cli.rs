//! `khal probe` and `khal demo --device`: the driver interface from the
//! command line [FACTS §14]. On a machine without the driver, probe says so
//! in one line and exits 1; the demo through the fake driver delivers every
//! notification once and in order on every arch and mode.

use serde_json::Value;

mod common;
use common::khal;

#[test]
fn probe_without_the_driver_is_one_line_and_exit_1() {
    let (code, out, err) = khal(&["probe", "/dev/neuron-khal-test-absent"]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("no vendor driver here"), "{err}");
}

#[test]
fn demo_through_the_fake_driver_loses_and_duplicates_nothing() {
    for arch in ["sunda", "cayman", "mariana"] {
        for mode in ["phase", "tail"] {
            let (code, out, err) = khal(&[
                "demo",
                "--device",
                "fake",
                "--arch",
                arch,
                "--mode",
                mode,
                "--json",
                "--notifications",
                "20000",
            ]);
            assert_eq!(code, 0, "{arch} {mode}: {err}");
            let v: Value = serde_json::from_str(&out).expect("json");
            assert_eq!(v["schema"], "khal.demo.device/1");
            assert_eq!(v["posted"], 20000, "{arch} {mode}");
            assert_eq!(v["drained"], 20000);
            assert_eq!(
                (v["lost"].as_u64(), v["duplicated"].as_u64()),
                (Some(0), Some(0))
            );
            assert!(v["bar_writes"].as_u64().unwrap_or(0) > 0);
            // MARIANA's MSI-X masks through BAR writes; the other arches have no INTC.
            let intc = v["intc"].as_str().unwrap_or("");
            assert_eq!(
                arch == "mariana",
                intc.contains("masked (mask 0xff) then unmasked (0x00)"),
                "{v}"
            );
        }
    }
}

#[test]
fn demo_default_count_through_the_fake_ends_ok() {
    let (code, out, err) = khal(&["demo", "--device", "fake", "--arch", "cayman"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("posted = 100000, drained = 100000, lost = 0, duplicated = 0"),
        "{out}"
    );
    assert!(out.ends_with("result: OK, every notification received once and in order\n"));
}

#[test]
fn demo_on_an_absent_node_and_a_fault_on_the_driver_path_are_refused() {
    let (code, _, err) = khal(&[
        "demo",
        "--device",
        "/dev/neuron-khal-test-absent",
        "--arch",
        "cayman",
    ]);
    assert_eq!(code, 1);
    assert_eq!(err.lines().count(), 1, "{err}");
    let (code, _, err) = khal(&[
        "demo", "--device", "fake", "--arch", "cayman", "--fault", "stall",
    ]);
    assert_eq!(code, 2, "{err}");
}
