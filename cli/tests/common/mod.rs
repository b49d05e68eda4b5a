//! What the CLI tests share: running the built `khal`.

use std::process::Command;

/// Run `khal args`; (exit code, stdout, stderr).
pub fn khal(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_khal"))
        .args(args)
        .output()
        .expect("run khal");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
