//! Put `memory.x` where cortex-m-rt's `link.x` finds it, and link with `link.x`.
use std::{env, fs, path::PathBuf};

fn main() {
    let out = PathBuf::from(env::var_os("OUT_DIR").expect("OUT_DIR"));
    fs::copy("memory.x", out.join("memory.x")).expect("copy memory.x");
    println!("cargo:rustc-link-search={}", out.display());
    // cortex-m-rt's linker script. Given here rather than as `rustflags` in
    // .cargo/config.toml, because a RUSTFLAGS environment variable (CI sets
    // one, even empty) silently replaces config rustflags, and without the
    // script the examples link to an empty image: the panic-never proof would
    // pass vacuously.
    println!("cargo:rustc-link-arg-bins=-Tlink.x");
    println!("cargo:rerun-if-changed=memory.x");
    println!("cargo:rerun-if-changed=build.rs");
}
