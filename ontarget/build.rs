//! Put the target's memory map where the runtime's `link.x` finds it, and link
//! with it (given here, not as config rustflags: a RUSTFLAGS environment
//! variable would silently replace those; see examples/firmware/build.rs).
use std::{env, fs, path::PathBuf};

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    let arch = env::var("CARGO_CFG_TARGET_ARCH").unwrap_or_default();
    let src = match arch.as_str() {
        "arm" => "memory-arm.x",
        "riscv32" => "memory-riscv.x",
        _ => {
            panic!("khal-ontarget builds for thumbv7em-none-eabihf or riscv32imac-unknown-none-elf")
        }
    };
    fs::copy(src, out.join("memory.x")).expect("copy memory.x");
    println!("cargo:rustc-link-search={}", out.display());
    if arch == "riscv32" {
        // riscv-rt's link.x expects the REGION_* aliases of memory.x first.
        println!("cargo:rustc-link-arg-bins=-Tmemory.x");
    }
    println!("cargo:rustc-link-arg-bins=-Tlink.x");
    println!("cargo:rerun-if-changed=memory-arm.x");
    println!("cargo:rerun-if-changed=memory-riscv.x");
    println!("cargo:rerun-if-changed=build.rs");
}
