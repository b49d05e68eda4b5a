//! An access through a resolved CSR window (`Csr::window`) against a raw
//! volatile access with a fixed translation: `csr:<window|raw>:<read|write>`.
//!
//! The layout: eight 512-byte CSR regions 1 MiB apart from 0x20_0000_0000,
//! each translated into its 512 bytes of one `VolatileWindow` (the firmware's
//! backend); the window is resolved once over region 3, then `N` accesses at
//! pseudo-random dwords in it. The raw side subtracts the region's start
//! and adds the buffer's base, the translation a C driver hard-codes.

use std::hint::black_box;
use std::ptr::NonNull;

use khal_core::csr::{Csr, CsrRegion, RegionTable};
use khal_core::mmio::VolatileWindow;
use khal_core::{DeviceAddr, Mmio};

use crate::setup::{window, Regs, BASE, N};

const CSR_BASE: u64 = 0x20_0000_0000;
const REGION_STRIDE: u64 = 0x10_0000;
const REGION_BYTES: u64 = 0x200;
/// The region the window is resolved over.
const REGION: u64 = 3;

/// `N` reads through the window, summed.
#[inline(never)]
pub fn ir_csr_win_read<W: Mmio>(w: &W, addrs: &[DeviceAddr]) -> u32 {
    let mut s = 0u32;
    for &a in addrs {
        s = s.wrapping_add(w.read32(a).unwrap_or(1));
    }
    s
}

/// `N` writes through the window (returns 0).
#[inline(never)]
pub fn ir_csr_win_write<W: Mmio>(w: &W, addrs: &[DeviceAddr]) -> u32 {
    for (i, &a) in addrs.iter().enumerate() {
        let _ = w.write32(a, i as u32);
    }
    0
}

/// `N` raw reads at `base + (a - start)`, summed.
#[inline(never)]
pub fn ir_csr_raw_read(base: NonNull<u32>, start: u64, addrs: &[DeviceAddr]) -> u32 {
    let mut s = 0u32;
    for &a in addrs {
        let p = base.as_ptr().wrapping_byte_add((a.get() - start) as usize);
        // SAFETY: every address is a dword of the region, whose bytes are
        // inside the caller's live register buffer.
        s = s.wrapping_add(unsafe { p.read_volatile() });
    }
    s
}

/// `N` raw writes at `base + (a - start)` (returns 0).
#[inline(never)]
pub fn ir_csr_raw_write(base: NonNull<u32>, start: u64, addrs: &[DeviceAddr]) -> u32 {
    for (i, &a) in addrs.iter().enumerate() {
        let p = base.as_ptr().wrapping_byte_add((a.get() - start) as usize);
        // SAFETY: as in `ir_csr_raw_read`.
        unsafe { p.write_volatile(i as u32) };
    }
    0
}

/// `csr:<window|raw>:<read|write>`.
pub fn scenario(spec: &str) -> Option<u64> {
    let mut it = spec.split(':').skip(1);
    let (side, op) = (it.next()?, it.next()?);
    let mut regs = Regs::new();
    let regs_ptr = regs.ptr();
    let start = CSR_BASE + REGION * REGION_STRIDE;
    // A fixed MMIX LCG: the same dwords every run, no trivial branch pattern.
    let mut x = 0x1234_5678u64;
    let addrs: Vec<DeviceAddr> = (0..N)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            DeviceAddr(start + ((x >> 33) % (REGION_BYTES / 4)) * 4)
        })
        .collect();
    let base = crate::setup::reg(regs_ptr, REGION * REGION_BYTES);
    for k in 0..REGION_BYTES as usize / 4 {
        // SAFETY: a dword of region 3's bytes, inside the live buffer.
        unsafe { base.add(k).write_volatile(1) };
    }
    let sum = match (side, op) {
        ("window", _) => {
            let vw: &VolatileWindow = Box::leak(Box::new(window(regs_ptr)?));
            let mut t = RegionTable::<8>::new();
            for i in 0..8 {
                let s = CSR_BASE + i * REGION_STRIDE;
                let inner = BASE.add(i * REGION_BYTES);
                t.insert(
                    CsrRegion::new(DeviceAddr(s), DeviceAddr(s + REGION_BYTES), inner, 0).ok()?,
                )
                .ok()?;
            }
            let csr = Csr::new(vw, t);
            let w = csr.window(DeviceAddr(start), REGION_BYTES).ok()?;
            match op {
                "read" => black_box(ir_csr_win_read(&w, &addrs)),
                _ => ir_csr_win_write(&w, &addrs),
            }
        }
        ("raw", "read") => black_box(ir_csr_raw_read(base, start, &addrs)),
        ("raw", _) => ir_csr_raw_write(base, start, &addrs),
        _ => return None,
    };
    // Every read found its dword (each holds 1); the last write landed
    // where the raw side puts it.
    let last = *addrs.last()?;
    // SAFETY: a dword of region 3's bytes, inside the live buffer.
    let landed = unsafe { base.byte_add((last.get() - start) as usize).read_volatile() };
    let ok = match op {
        "read" => sum == N,
        "write" => landed == N - 1,
        _ => false,
    };
    ok.then_some(N as u64)
}
