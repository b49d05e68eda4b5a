//! Register-access probes: tiny functions whose thumbv7em disassembly
//! `scripts/access-probe.sh` reads to prove what one register access costs
//! (instructions per access, not time: the count is exact and deterministic).
//!
//! Each probe is `#[no_mangle]` and `#[inline(never)]` and is called from
//! `main` through `black_box`, so it survives LTO as one symbol with exactly
//! the code of the access it shows. The image also links only if no panic
//! path is reachable (the panic-never handler of the library). Read on
//! thumbv7em only; it builds for riscv32 too, as the library does.
#![no_std]
#![no_main]

use core::hint::black_box;

use khal::csr::{Csr, CsrRegion};
use khal::mmio::{BoundBlock, BoundReg, VolatileWindow};
use khal::{DeviceAddr, Error, Mmio, Result};
use khal_example_firmware::{publish, window_parts, WINDOW_ADDR};

/// The probed register block: 4 KiB, one plain register, one array.
pub const BLOCK: usize = 0x1000;

khal::register_block! {
    /// The probes' block (offsets of the notification block's shape).
    pub PROBE: "probe" {
        /// A plain register.
        CTRL @ 0xB8, rw, "ctrl";
        /// An array register (the NQ head's geometry).
        HEAD @ 0x10C, rw, "head", array "nq" [10; 40];
    }
}

/// What an engine holds: some state and a bound register / block.
pub struct Holder<'w> {
    /// Unrelated state before the handles (so they sit at a non-zero offset).
    pub state: u32,
    /// A bound register (the NQ head of queue 3).
    pub head: BoundReg<'w>,
    /// The bound block.
    pub block: BoundBlock<'w, BLOCK>,
}

/// Raw reference: one `str` through a pointer (what C firmware writes; a
/// safe `fn` so the probe's call is the same shape as the khal probes').
#[no_mangle]
#[inline(never)]
#[allow(clippy::not_unsafe_ptr_arg_deref)]
pub fn khal_probe_raw_write(p: *mut u32, v: u32) {
    // SAFETY: called only by `main` with a pointer into the register window.
    unsafe { p.write_volatile(v) }
}

/// A bound register passed by value: write.
#[no_mangle]
#[inline(never)]
pub fn khal_probe_reg_write(r: BoundReg<'_>, v: u32) {
    r.write(v)
}

/// A bound register passed by value: read.
#[no_mangle]
#[inline(never)]
pub fn khal_probe_reg_read(r: BoundReg<'_>) -> u32 {
    r.read()
}

/// A bound register held in a struct: write.
#[no_mangle]
#[inline(never)]
pub fn khal_probe_held_reg_write(h: &Holder<'_>, v: u32) {
    h.head.write(v)
}

/// A bound register held in a struct: read.
#[no_mangle]
#[inline(never)]
pub fn khal_probe_held_reg_read(h: &Holder<'_>) -> u32 {
    h.head.read()
}

/// A bound block held in a struct, a constant register: write.
#[no_mangle]
#[inline(never)]
pub fn khal_probe_held_block_write(h: &Holder<'_>, v: u32) {
    let _ = h.block.write(CTRL, v);
}

/// A bound block held in a struct, a constant register: read.
#[no_mangle]
#[inline(never)]
pub fn khal_probe_held_block_read(h: &Holder<'_>) -> u32 {
    h.block.read(CTRL).unwrap_or(0)
}

/// A bound block held in a struct, a constant array instance (`nq[3].head`).
#[no_mangle]
#[inline(never)]
pub fn khal_probe_held_block_array_write(h: &Holder<'_>, v: u32) {
    if let Ok(r) = h.block.at(HEAD, 3) {
        r.write(v);
    }
}

/// For comparison (not gated): the address-based `Mmio` path through a
/// window held by reference, with the per-access window check (on bare metal
/// a call to the window's out-of-line check, then the store).
#[no_mangle]
#[inline(never)]
pub fn khal_probe_mmio_window_write(w: &VolatileWindow, v: u32) {
    let _ = CTRL.write(w, DeviceAddr(0), v);
}

/// Not an access probe: the default CSR lookup (the cell index) built,
/// changed and used, so that a panic path in its build fails this image's
/// link (the size images name the binary search and do not link the build).
#[no_mangle]
#[inline(never)]
pub fn khal_csr_cell_linked(w: &VolatileWindow) -> Result<u32> {
    let mut csr = Csr::<_, 4>::with_empty_table(w);
    let t = csr.regions_mut().ok_or(Error::NoRegionTable)?;
    let at = |a: u64, b: u64, id: u32| {
        CsrRegion::identity(DeviceAddr(black_box(a)), DeviceAddr(black_box(b)), id)
    };
    for r in [at(0, 0x40, 0)?, at(0x100, 0x140, 1)?, at(0x180, 0x1C0, 1)?] {
        t.insert(r)?;
    }
    t.insert(at(0x4_0000, 0x8_0000, 2)?)?;
    t.remove_device(black_box(1));
    csr.write32(black_box(DeviceAddr(0x10)), 1)?;
    csr.read32(black_box(DeviceAddr(0x4_0010)))
}

/// The register window, as each image's `main.rs` builds it.
fn window() -> Result<VolatileWindow> {
    let (ptr, bytes, base) = window_parts()?;
    // SAFETY: on the target part, WINDOW_ADDR .. + WINDOW_BYTES is the
    // device's register window: mapped for the whole program, never reached
    // through a Rust reference, every dword readable at any time.
    unsafe { VolatileWindow::new(ptr, bytes, base) }
}

#[cfg_attr(target_arch = "arm", cortex_m_rt::entry)]
#[cfg_attr(target_arch = "riscv32", riscv_rt::entry)]
fn main() -> ! {
    let r = window().and_then(|w| {
        let block = w.bind_block::<BLOCK>(black_box(DeviceAddr(0)))?;
        let h = Holder {
            state: black_box(1),
            head: block.at(HEAD, black_box(3))?,
            block,
        };
        black_box(khal_probe_raw_write as fn(*mut u32, u32))(WINDOW_ADDR as *mut u32, 1);
        black_box(khal_probe_reg_write as fn(BoundReg<'_>, u32))(h.head, 2);
        let mut x = black_box(khal_probe_reg_read as fn(BoundReg<'_>) -> u32)(h.head);
        black_box(khal_probe_held_reg_write as fn(&Holder<'_>, u32))(&h, 3);
        x ^= black_box(khal_probe_held_reg_read as fn(&Holder<'_>) -> u32)(&h);
        black_box(khal_probe_held_block_write as fn(&Holder<'_>, u32))(&h, 4);
        x ^= black_box(khal_probe_held_block_read as fn(&Holder<'_>) -> u32)(&h);
        black_box(khal_probe_held_block_array_write as fn(&Holder<'_>, u32))(&h, 5);
        black_box(khal_probe_mmio_window_write as fn(&VolatileWindow, u32))(&w, 6);
        x ^= black_box(khal_csr_cell_linked as fn(&VolatileWindow) -> Result<u32>)(&w)?;
        Ok((x ^ h.state) as usize)
    });
    publish(r);
    loop {
        core::hint::spin_loop();
    }
}
