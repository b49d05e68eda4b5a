//! The firmware examples' build script: the target's memory map where the
//! runtime's `link.x` finds it, and the linker scripts (given here, not as
//! config rustflags: a RUSTFLAGS environment variable would replace those).
use std::{env, fs, path::PathBuf};

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let src = match arch.as_str() {
        "arm" => "../common/memory-arm.x",
        "riscv32" => "../common/memory-riscv.x",
        // A host `cargo check` of the workspace: nothing to link.
        _ => return,
    };
    fs::copy(src, out.join("memory.x")).expect("copy memory.x");
    println!("cargo:rustc-link-search={}", out.display());
    if arch == "riscv32" {
        // riscv-rt's link.x expects the REGION_* aliases of memory.x first.
        println!("cargo:rustc-link-arg-bins=-Tmemory.x");
    }
    println!("cargo:rustc-link-arg-bins=-Tlink.x");
    if env::var_os("CARGO_FEATURE_DEFMT").is_some() {
        println!("cargo:rustc-link-arg-bins=-Tdefmt.x");
    }
    println!("cargo:rerun-if-changed={src}");
    println!("cargo:rerun-if-changed=../common/build.rs");
}
