//! What differs per target: the image name and how the result leaves the emulator.

/// This image: `<target>-<arch>`.
#[cfg(all(target_arch = "arm", feature = "sunda"))]
pub const IMAGE: &str = "thumbv7em-sunda";
/// This image: `<target>-<arch>`.
#[cfg(all(target_arch = "arm", feature = "cayman"))]
pub const IMAGE: &str = "thumbv7em-cayman";
/// This image: `<target>-<arch>`.
#[cfg(all(target_arch = "arm", feature = "mariana"))]
pub const IMAGE: &str = "thumbv7em-mariana";
/// This image: `<target>-<arch>`.
#[cfg(all(target_arch = "riscv32", feature = "sunda"))]
pub const IMAGE: &str = "riscv32imac-sunda";
/// This image: `<target>-<arch>`.
#[cfg(all(target_arch = "riscv32", feature = "cayman"))]
pub const IMAGE: &str = "riscv32imac-cayman";
/// This image: `<target>-<arch>`.
#[cfg(all(target_arch = "riscv32", feature = "mariana"))]
pub const IMAGE: &str = "riscv32imac-mariana";

/// End the emulation with `code` (0 = pass) through semihosting's `SYS_EXIT`
/// (QEMU returns the code as its exit status).
#[cfg(target_arch = "arm")]
pub fn exit(code: i32) -> ! {
    semihosting::process::exit(code)
}

/// The `virt` machine's SiFive test device ("sifive,test0") at `0x10_0000`:
/// writing `0x5555` powers off with status 0, `(code << 16) | 0x3333` with
/// status `code`.
#[cfg(target_arch = "riscv32")]
const SIFIVE_TEST: *mut u32 = 0x10_0000 as *mut u32;

/// End the emulation with `code` (0 = pass) through the SiFive test device.
#[cfg(target_arch = "riscv32")]
pub fn exit(code: i32) -> ! {
    let word = if code == 0 {
        0x5555
    } else {
        ((code as u32) << 16) | 0x3333
    };
    // SAFETY: on QEMU's riscv32 `virt` machine 0x10_0000 is the SiFive test
    // device's register (mapped I/O, not Rust memory); a 32-bit volatile store
    // to it ends the emulation.
    unsafe { SIFIVE_TEST.write_volatile(word) };
    // Not reached under QEMU; on anything else, stop here.
    loop {
        core::hint::spin_loop();
    }
}
