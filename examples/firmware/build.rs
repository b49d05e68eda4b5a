//! The firmware images' build script (each image's and the probe's): the
//! target's memory map where the runtime's `link.x` finds it, and the linker
//! scripts. Given here, not as config rustflags: a RUSTFLAGS environment
//! variable (CI sets one, even empty) replaces those, and without the script
//! an image links to an empty file: the panic-never proof would pass vacuously.
//! Paths are from the package's directory (`examples/<package>/`).
use std::{env, fs, path::PathBuf};

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let src = match arch.as_str() {
        "arm" => "../firmware/memory-arm.x",
        "riscv32" => "../firmware/memory-riscv.x",
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
    println!("cargo:rerun-if-changed=../firmware/build.rs");
}
