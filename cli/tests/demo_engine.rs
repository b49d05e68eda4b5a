//! `khal demo` reports the engine bring-up of FACTS §13 step by step per arch:
//! where `stpb_init` stopped and why, then each traced leaf run on the model
//! and read back, or the typed answer naming what is not traced.

use std::process::Command;

fn engine_report(arch: &str) -> (String, Vec<(String, String)>) {
    let out = Command::new(env!("CARGO_BIN_EXE_khal"))
        .args(["demo", "--arch", arch, "--notifications", "10", "--json"])
        .output()
        .expect("run khal");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    let steps = v["engine_bringup"]
        .as_array()
        .expect("engine_bringup")
        .iter()
        .map(|s| {
            (
                s["step"].as_str().unwrap().to_string(),
                s["outcome"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (v["stpb_init"].as_str().unwrap().to_string(), steps)
}

fn outcome<'a>(steps: &'a [(String, String)], step: &str) -> &'a str {
    &steps.iter().find(|(s, _)| s == step).unwrap().1
}

#[test]
fn each_arch_says_where_stpb_init_stopped_and_what_the_leaves_did() {
    for arch in ["sunda", "cayman", "mariana"] {
        let (stpb, steps) = engine_report(arch);
        assert!(
            stpb.starts_with("stopped at pooling_init.regs_init (steps run: 1): not traced"),
            "{arch}: {stpb}"
        );
        assert_eq!(steps.len(), 5, "{arch}: {steps:?}");
        assert!(outcome(&steps, "release_run_stall pool").contains("sequencer stalled: false"));
    }
    let (_, c) = engine_report("cayman");
    assert_eq!(
        outcome(&c, "program_start"),
        "launches read back: xt.pe [100], xt.act [200], xt.pool [300], xt.dve [400]"
    );
    assert!(outcome(&c, "release_run_stall pool").ends_with("q7 cores stalled: 0x00"));
    assert!(outcome(&c, "disable_hw_decode").contains("0x7ffd"));
    assert!(outcome(&c, "set_dge_carveout").contains("0x00100002"));
    assert_eq!(
        outcome(&c, "topsp host_trigger"),
        "rung at tpb_mem + 0x615a0"
    );
    let (_, s) = engine_report("sunda");
    assert!(outcome(&s, "program_start").starts_with("not traced"));
    assert!(outcome(&s, "disable_hw_decode").starts_with("no-op"));
    assert_eq!(
        outcome(&s, "topsp host_trigger"),
        "rung at tpb_mem + 0x60848"
    );
    let (_, m) = engine_report("mariana");
    assert!(outcome(&m, "program_start").starts_with("not traced"));
    assert!(outcome(&m, "set_dge_carveout").starts_with("not traced"));
}
