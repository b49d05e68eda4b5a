//! A typed register access (a `register_block!` handle over a constant-geometry
//! `VolatileWindow`) against a raw volatile access of the same dword.
//!
//! Shared with the time bench `tests/benches/regs.rs`.

use core::ptr::NonNull;

use crate::setup::{window, BASE, N};

khal_core::register_block! {
    /// The bench's register block: one plain register.
    pub BENCH: "bench" {
        /// A plain register.
        CTRL @ 0xB8, rw, "ctrl";
    }
}

/// `N` volatile writes of `ctrl` (offset 0xB8).
#[inline(never)]
pub fn ir_raw_write(ptr: NonNull<u32>) {
    let p = ptr.as_ptr().wrapping_add(0xB8 / 4);
    for i in 0..N {
        // SAFETY: `p` is dword 0xB8/4 of the caller's live register buffer.
        unsafe { p.write_volatile(i) };
    }
}

/// `N` writes of `ctrl` through its handle.
#[inline(never)]
pub fn ir_typed_write(ptr: NonNull<u32>) {
    let Some(w) = window(ptr) else { return };
    for i in 0..N {
        let _ = CTRL.write(&w, BASE, i);
    }
}

/// `N` volatile reads of `ctrl`, summed.
#[inline(never)]
pub fn ir_raw_read(ptr: NonNull<u32>) -> u32 {
    let p = ptr.as_ptr().wrapping_add(0xB8 / 4);
    let mut s = 0u32;
    for _ in 0..N {
        // SAFETY: as in `ir_raw_write`.
        s = s.wrapping_add(unsafe { p.read_volatile() });
    }
    s
}

/// `N` reads of `ctrl` through its handle, summed.
#[inline(never)]
pub fn ir_typed_read(ptr: NonNull<u32>) -> u32 {
    let Some(w) = window(ptr) else { return 0 };
    let mut s = 0u32;
    for _ in 0..N {
        s = s.wrapping_add(CTRL.read(&w, BASE).unwrap_or(0));
    }
    s
}
